/* This file contains on-device queues and device-side enqueue's runtime:
 * the registry of each context's device queues and default queue, and
 * the child commands of one host NDRange command.
 *
 * Ownership: a host command whose work-items enqueue gets a root (made
 * by the first enqueue). Every child command (a node) belongs to it,
 * and so does every clk_event_t, which lives until the root is freed
 * (release_event only counts). Nodes wait in the root's list; when the
 * host command's work-groups have all finished, its executor runs them
 * one after another, oldest first among those whose wait events have
 * completed, each over the whole worker pool (rt_dq_host_finish); a
 * child's own enqueues join the list. So every flag's promise holds: no
 * child starts before its parent's work-groups, and with them the
 * enqueuing work-group, have finished. A node completes (its event
 * becomes CL_COMPLETE) when it has run and all its children have
 * completed; the host command completes after rt_dq_host_finish, so
 * after its whole tree. Nothing recurses: a depth of 100 is a list of
 * 100 nodes run in turn. */
#include "device_queue.h"
#include "context.h"
#include "kernel.h"
#include "platform.h"
#include "printf.h"
#include "queue.h"
#include "../../scheduler/scheduler.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* OpenCL C's CLK_* codes (opencl-c-base.h). */
enum {
  CLK_SUCCESS = 0,
  CLK_ENQUEUE_FAILURE = -101,
  CLK_INVALID_QUEUE = -102,
  CLK_INVALID_NDRANGE = -160,
  CLK_INVALID_EVENT_WAIT_LIST = -57,
  CLK_DEVICE_QUEUE_FULL = -161,
  CLK_INVALID_ARG_SIZE = -51,
  CLK_EVENT_ALLOCATION_FAILURE = -100,
  CLK_OUT_OF_RESOURCES = -5,
  CLK_PROFILING_COMMAND_EXEC_TIME = 1,
};

/* ---- The registry of device queues ---------------------------------- */

typedef struct dq_context {
  cl_context context;
  unsigned count;                /* live device queues */
  cl_command_queue def;          /* the default one, or NULL */
  struct dq_context *next;
} dq_context;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static dq_context *registry;     /* guarded by registry_lock */

static dq_context *find_context(cl_context ctx) {
  for (dq_context *c = registry; c; c = c->next)
    if (c->context == ctx)
      return c;
  return NULL;
}

cl_int rt_device_queue_register(cl_command_queue q, bool make_default,
                                cl_command_queue *existing) {
  *existing = NULL;
  cl_int err = CL_SUCCESS;
  pthread_mutex_lock(&registry_lock);
  dq_context *c = find_context(q->context);
  if (make_default && c && c->def) {
    *existing = c->def;
    rt_retain(c->def);
  } else if (c && c->count >= RT_DQ_MAX_QUEUES + 1) {
    err = CL_OUT_OF_RESOURCES;
  } else if (!c && !(c = calloc(1, sizeof *c))) {
    err = CL_OUT_OF_HOST_MEMORY;
  } else {
    if (!c->context) {
      c->context = q->context;
      c->next = registry;
      registry = c;
    }
    c->count++;
    if (make_default)
      c->def = q;
  }
  pthread_mutex_unlock(&registry_lock);
  return err;
}

void rt_device_queue_unregister(cl_command_queue q) {
  pthread_mutex_lock(&registry_lock);
  for (dq_context **p = &registry; *p; p = &(*p)->next) {
    dq_context *c = *p;
    if (c->context != q->context)
      continue;
    if (c->def == q)
      c->def = NULL;
    if (--c->count == 0) {
      *p = c->next;
      free(c);
    }
    break;
  }
  pthread_mutex_unlock(&registry_lock);
}

cl_command_queue rt_device_queue_default(cl_context ctx) {
  pthread_mutex_lock(&registry_lock);
  dq_context *c = find_context(ctx);
  cl_command_queue q = c ? c->def : NULL;
  pthread_mutex_unlock(&registry_lock);
  return q;
}

void rt_device_queue_set_default(cl_context ctx, cl_command_queue q) {
  pthread_mutex_lock(&registry_lock);
  dq_context *c = find_context(ctx);
  if (c)
    c->def = q;
  pthread_mutex_unlock(&registry_lock);
}

/* ---- Events and nodes ----------------------------------------------- */

#define DQ_EVENT_MAGIC 0x5e7e47u

/* A clk_event_t. */
typedef struct dq_event {
  uint32_t magic;
  _Atomic int32_t status;        /* CL_SUBMITTED, CL_COMPLETE or < 0 */
  _Atomic uint32_t refs;         /* the kernels' references */
  uint64_t t_start, t_end, t_complete;  /* node events, nanoseconds */
  uint64_t *capture;             /* capture_event_profiling_info's
                                    destination, written at completion */
  struct dq_event *next;         /* the root's list of every event */
} dq_event;

/* What every skein_device_enqueue of this file starts with. */
typedef struct dq_base {
  skein_device_enqueue de;
  rt_dq_host *host;
  struct dq_node *node;          /* NULL: the host command */
} dq_base;

/* A child command: a kernel launch or a marker. */
typedef struct dq_node {
  dq_base base;                  /* first: launch.device_enqueue */
  struct dq_node *parent;        /* NULL: the host command */
  _Atomic uint32_t pending;      /* 1 until it has run, plus children
                                    not yet complete */
  dq_event *event;               /* completes with it */
  cl_command_queue queue;        /* retained; a slot until it has run */
  const cc_kernel_info *info;    /* NULL for a marker */
  skein_launch launch;
  sched_job job;
  _Atomic bool group_failed;     /* a fiber stack overflowed */
  bool failed;                   /* a wait event failed: not run */
  uint32_t num_waits;
  dq_event **waits;              /* point into the node's allocation */
  struct dq_node *next;          /* the root's list of nodes to run */
} dq_node;

typedef struct rt_dq_root {
  pthread_mutex_t lock;          /* guards the lists and live_events */
  dq_node *head, *tail;          /* nodes waiting to run, oldest first */
  dq_event *events;              /* every event, freed with the root */
  unsigned live_events;          /* events with references */
  _Atomic uint32_t top_pending;  /* the host command's children */
} rt_dq_root;

static const skein_device_enqueue_ops ops;

void rt_dq_host_init(rt_dq_host *h, const cc_program *program,
                     cl_context ctx, cl_device_id dev) {
  h->de.ops = &ops;
  h->host = h;
  h->node = NULL;
  atomic_store_explicit(&h->root, NULL, memory_order_relaxed);
  h->program = program;
  h->context = ctx;
  h->device = dev;
}

/* The root of d's host command, made by the first caller; NULL if out of
 * memory. */
static rt_dq_root *root_of(skein_device_enqueue *d) {
  rt_dq_host *h = ((dq_base *)d)->host;
  rt_dq_root *r = atomic_load_explicit(&h->root, memory_order_acquire);
  if (r)
    return r;
  rt_dq_root *made = calloc(1, sizeof *made);
  if (!made)
    return NULL;
  pthread_mutex_init(&made->lock, NULL);
  if (atomic_compare_exchange_strong(&h->root, &r, made))
    return made;
  pthread_mutex_destroy(&made->lock);
  free(made);
  return r;
}

static bool event_valid(void *e) {
  return e && e != (void *)~(uintptr_t)0 &&
         ((dq_event *)e)->magic == DQ_EVENT_MAGIC &&
         atomic_load(&((dq_event *)e)->refs) > 0;
}

static dq_event *event_new(rt_dq_root *r, int32_t status) {
  pthread_mutex_lock(&r->lock);
  dq_event *e = NULL;
  if (r->live_events < RT_DQ_MAX_EVENTS && (e = calloc(1, sizeof *e))) {
    e->magic = DQ_EVENT_MAGIC;
    atomic_init(&e->status, status);
    atomic_init(&e->refs, 1);
    e->next = r->events;
    r->events = e;
    r->live_events++;
  }
  pthread_mutex_unlock(&r->lock);
  return e;
}

static void event_release(rt_dq_root *r, dq_event *e) {
  if (atomic_fetch_sub(&e->refs, 1) != 1)
    return;
  pthread_mutex_lock(&r->lock);
  r->live_events--;
  pthread_mutex_unlock(&r->lock);
}

static void event_complete(dq_event *e, int32_t status) {
  if (e->capture) {
    e->capture[0] = e->t_end - e->t_start;
    e->capture[1] = e->t_complete - e->t_start;
  }
  atomic_store_explicit(&e->status, status, memory_order_release);
}

static bool event_done(dq_event *e) {
  return atomic_load_explicit(&e->status, memory_order_acquire) <= 0;
}

/* One of n's own runs or children finished; completes n, and so on up,
 * when none is left. */
static void node_settle(rt_dq_root *r, dq_node *n) {
  while (n && atomic_fetch_sub(&n->pending, 1) == 1) {
    dq_node *parent = n->parent;
    if (n->event) {
      n->event->t_complete = rt_now_ns();
      event_complete(n->event, n->failed ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
                                         : CL_COMPLETE);
      event_release(r, n->event);
    }
    free(n);
    n = parent;
  }
  if (!n)
    atomic_fetch_sub(&r->top_pending, 1);
}

/* Takes a queue slot of q; false if q is full. */
static bool slot_take(cl_command_queue q) {
  unsigned cap = q->device_queue_size / RT_DQ_COMMAND_BYTES;
  unsigned used = atomic_load(&q->dq_used);
  do {
    if (used >= cap)
      return false;
  } while (!atomic_compare_exchange_weak(&q->dq_used, &used, used + 1));
  return true;
}

/* The checks and node creation every enqueue shares: queue, wait list,
 * the event to return. extra bytes follow the node (and its waits). */
static int32_t node_new(skein_device_enqueue *d, void *queue,
                        uint32_t num_waits, void *const *waits,
                        void **event_ret, size_t extra, dq_node **out) {
  dq_base *b = (dq_base *)d;
  cl_command_queue q = queue;
  if (!rt_is(q, RT_DEVICE_QUEUE) || q->context != b->host->context)
    return CLK_INVALID_QUEUE;
  if ((num_waits && !waits) || (!num_waits && waits))
    return CLK_INVALID_EVENT_WAIT_LIST;
  for (uint32_t i = 0; i < num_waits; i++)
    if (!event_valid(waits[i]))
      return CLK_INVALID_EVENT_WAIT_LIST;
  rt_dq_root *r = root_of(d);
  if (!r)
    return CLK_OUT_OF_RESOURCES;
  size_t waits_at = (sizeof(dq_node) + 7) & ~(size_t)7;
  dq_node *n = calloc(1, waits_at + num_waits * sizeof(dq_event *) + extra);
  if (!n)
    return CLK_OUT_OF_RESOURCES;
  if (event_ret && !(n->event = event_new(r, CL_SUBMITTED))) {
    free(n);
    return CLK_EVENT_ALLOCATION_FAILURE;
  }
  if (!slot_take(q)) {
    if (n->event)
      event_release(r, n->event);
    free(n);
    return CLK_DEVICE_QUEUE_FULL;
  }
  if (n->event) {
    atomic_fetch_add(&n->event->refs, 1);  /* the caller's and ours */
    *event_ret = n->event;
  }
  n->base.de.ops = &ops;
  n->base.host = b->host;
  n->base.node = n;
  n->parent = b->node;
  atomic_init(&n->pending, 1);
  n->queue = q;
  rt_retain(q);
  n->num_waits = num_waits;
  n->waits = (dq_event **)((char *)n + waits_at);
  /* The node keeps what it waits for alive until it has run. */
  for (uint32_t i = 0; i < num_waits; i++) {
    n->waits[i] = waits[i];
    atomic_fetch_add(&n->waits[i]->refs, 1);
  }
  *out = n;
  return CLK_SUCCESS;
}

/* Appends n to the root's list; its parent now waits for it. */
static void node_submit(skein_device_enqueue *d, dq_node *n) {
  rt_dq_root *r = root_of(d);
  if (n->parent)
    atomic_fetch_add(&n->parent->pending, 1);
  else
    atomic_fetch_add(&r->top_pending, 1);
  pthread_mutex_lock(&r->lock);
  if (r->tail)
    r->tail->next = n;
  else
    r->head = n;
  r->tail = n;
  pthread_mutex_unlock(&r->lock);
}

static size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

/* The local size the runtime chooses for dimension sizes g (a local size
 * of 0 in the ndrange): the largest divisors within a budget. */
static void choose_local(const cc_kernel_info *info, uint32_t dim,
                         const uint64_t *g, uint64_t *l) {
  uint64_t budget = info->uses_barriers ? 64 : 256;
  for (uint32_t i = 0; i < 3; i++) {
    uint64_t d = 1;
    if (i < dim)
      for (d = budget < g[i] ? budget : g[i]; d > 1 && g[i] % d; d--)
        ;
    l[i] = d ? d : 1;
    budget /= l[i];
    if (!budget)
      budget = 1;
  }
}

/* Fills geometry from nd; false for an invalid ndrange. */
static bool ndrange_fill(rt_dq_host *h, const cc_kernel_info *info,
                         const skein_ndrange *nd, uint64_t *off,
                         uint64_t *g, uint64_t *l) {
  uint32_t dim = nd->work_dim;
  if (dim < 1 || dim > 3)
    return false;
  bool choose = false;
  uint64_t product = 1;
  for (uint32_t i = 0; i < 3; i++) {
    off[i] = i < dim ? nd->global_offset[i] : 0;
    g[i] = i < dim ? nd->global_size[i] : 1;
    l[i] = i < dim ? nd->local_size[i] : 1;
    if (g[i] == 0 || off[i] > UINT64_MAX - g[i])
      return false;
    choose |= l[i] == 0;
    product *= l[i] ? l[i] : 1;
    if (l[i] > h->device->max_work_group_size)
      return false;
  }
  if (choose) {
    /* Either all local sizes are given or none (the ndrange_* forms). */
    choose_local(info, dim, g, l);
    product = l[0] * l[1] * l[2];
  }
  const size_t *reqd = info->reqd_work_group_size;
  if (reqd[0] && (l[0] != reqd[0] || l[1] != reqd[1] || l[2] != reqd[2]))
    return false;
  return product <= h->device->max_work_group_size;
}

static int32_t op_enqueue_kernel(skein_device_enqueue *d,
                                 const skein_child_request *req) {
  rt_dq_host *h = ((dq_base *)d)->host;
  const cc_kernel_info *info =
      req->kernel ? cc_program_find_block_kernel(h->program, req->kernel)
                  : NULL;
  if (!info || info->num_args != 1 + req->num_locals)
    return CLK_ENQUEUE_FAILURE;
  if ((uint32_t)req->flags > 2)
    return CLK_ENQUEUE_FAILURE;
  uint64_t off[3], g[3], l[3];
  if (!req->nd || !ndrange_fill(h, info, req->nd, off, g, l))
    return CLK_INVALID_NDRANGE;
  /* Local memory: the block kernel's own, then each __local argument. */
  uint64_t local_at = align_up(info->static_local_mem_size, RT_LOCAL_ALIGN);
  uint64_t local_total = local_at;
  for (uint32_t i = 0; i < req->num_locals; i++) {
    if (req->local_sizes[i] == 0)
      return CLK_INVALID_ARG_SIZE;
    local_total += align_up(req->local_sizes[i], RT_LOCAL_ALIGN);
  }
  if (local_total > h->device->local_mem_size ||
      local_total > sched_max_local_mem())
    return CLK_OUT_OF_RESOURCES;
  /* After the node: the argument slots, their values, for a
   * bounds-checked kernel the arguments' object sizes, the literal. */
  uint32_t lit_size;
  memcpy(&lit_size, req->literal, sizeof lit_size);
  unsigned n_args = info->num_args;
  bool bounds = info->num_bounds_sites != 0;
  size_t extra = n_args * (sizeof(void *) + (bounds ? 2 : 1) *
                                                sizeof(uint64_t)) +
                 lit_size + 16;
  dq_node *n;
  int32_t err = node_new(d, req->queue, req->num_waits, req->waits,
                         req->event_ret, extra, &n);
  if (err != CLK_SUCCESS)
    return err;
  void **slots = (void **)(n->waits + n->num_waits);
  uint64_t *values = (uint64_t *)(slots + n_args);
  uint64_t *sizes = values + n_args;
  unsigned char *literal = (unsigned char *)align_up(
      (uintptr_t)(sizes + (bounds ? n_args : 0)), 16);
  memcpy(literal, req->literal, lit_size);
  values[0] = (uintptr_t)literal;
  for (uint32_t i = 0; i < req->num_locals; i++) {
    values[1 + i] = local_at;
    local_at += align_up(req->local_sizes[i], RT_LOCAL_ALIGN);
  }
  for (unsigned i = 0; i < n_args; i++)
    slots[i] = &values[i];
  if (bounds) {
    /* The literal's slot is a value (no object to bound); each __local
     * argument is its size. Accesses outside are skipped, as for any
     * bounds-checked kernel, but not reported (launch.bounds is NULL:
     * no report is read for a child). */
    sizes[0] = UINT64_MAX;
    for (uint32_t i = 0; i < req->num_locals; i++)
      sizes[1 + i] = req->local_sizes[i];
    n->launch.arg_sizes = sizes;
  }
  n->info = info;
  skein_launch *L = &n->launch;
  L->work_dim = req->nd->work_dim;
  L->sub_group_size = info->sub_group_size;
  L->args = slots;
  L->hooks = sched_hooks();
  L->device_enqueue = &n->base.de;
  for (int i = 0; i < 3; i++) {
    L->global_offset[i] = off[i];
    L->global_size[i] = g[i];
    L->local_size[i] = l[i];
    L->num_groups[i] = (g[i] + l[i] - 1) / l[i];
    n->job.num_groups[i] = L->num_groups[i];
  }
  n->job.local_mem_size = local_total;
  /* On the parent's sub-device, if it runs on one. */
  n->job.subset = ((dq_base *)d)->host->device->subset;
  node_submit(d, n);
  return CLK_SUCCESS;
}

static int32_t op_enqueue_marker(skein_device_enqueue *d, void *queue,
                                 uint32_t num_waits, void *const *waits,
                                 void **event_ret) {
  /* enqueue_marker needs a wait list to wait for. */
  if (!num_waits || !waits)
    return CLK_INVALID_EVENT_WAIT_LIST;
  if (!event_ret)
    return CLK_ENQUEUE_FAILURE;
  dq_node *n;
  int32_t err = node_new(d, queue, num_waits, waits, event_ret, 0, &n);
  if (err == CLK_SUCCESS)
    node_submit(d, n);
  return err;
}

static void *op_default_queue(skein_device_enqueue *d) {
  return rt_device_queue_default(((dq_base *)d)->host->context);
}

static void op_retain_event(skein_device_enqueue *d, void *e) {
  (void)d;
  if (event_valid(e))
    atomic_fetch_add(&((dq_event *)e)->refs, 1);
}

static void op_release_event(skein_device_enqueue *d, void *e) {
  rt_dq_root *r = root_of(d);
  if (r && event_valid(e))
    event_release(r, e);
}

static void *op_create_user_event(skein_device_enqueue *d) {
  rt_dq_root *r = root_of(d);
  dq_event *e = r ? event_new(r, CL_SUBMITTED) : NULL;
  return e ? (void *)e : (void *)~(uintptr_t)0;   /* CLK_NULL_EVENT */
}

static void op_set_user_event_status(skein_device_enqueue *d, void *e,
                                     int32_t status) {
  (void)d;
  /* CL_COMPLETE or a negative error; anything else is ignored. */
  if (event_valid(e) && status <= 0)
    atomic_store_explicit(&((dq_event *)e)->status, status,
                          memory_order_release);
}

static int32_t op_is_valid_event(skein_device_enqueue *d, void *e) {
  (void)d;
  return event_valid(e);
}

static void op_capture_profiling(skein_device_enqueue *d, void *e,
                                 int32_t name, uint64_t *out) {
  (void)d;
  if (!event_valid(e) || name != CLK_PROFILING_COMMAND_EXEC_TIME || !out)
    return;
  dq_event *ev = e;
  if (event_done(ev)) {
    out[0] = ev->t_end - ev->t_start;
    out[1] = ev->t_complete - ev->t_start;
  } else {
    ev->capture = out;   /* written when it completes (event_complete) */
  }
}

static uint32_t op_kernel_query(skein_device_enqueue *d, uint32_t what,
                                const char *kernel,
                                const skein_ndrange *nd) {
  rt_dq_host *h = ((dq_base *)d)->host;
  const cc_kernel_info *info =
      kernel ? cc_program_find_block_kernel(h->program, kernel) : NULL;
  if (!info)
    return 0;
  cl_device_id dev = h->device;
  uint64_t off[3], g[3], l[3];
  switch (what) {
  case 0:   /* as CL_KERNEL_WORK_GROUP_SIZE */
    return (uint32_t)dev->max_work_group_size;
  case 1:   /* as CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE */
    return dev->simd_bytes >= 4 ? dev->simd_bytes / 4 : 1;
  default: {
    if (!nd || !ndrange_fill(h, info, nd, off, g, l))
      return 0;
    uint64_t items = l[0] * l[1] * l[2], sg = info->sub_group_size;
    if (what == 2)
      return (uint32_t)((items + sg - 1) / sg);
    return (uint32_t)(items < sg ? items : sg);
  }
  }
}

static const skein_device_enqueue_ops ops = {
    .enqueue_kernel = op_enqueue_kernel,
    .enqueue_marker = op_enqueue_marker,
    .default_queue = op_default_queue,
    .retain_event = op_retain_event,
    .release_event = op_release_event,
    .create_user_event = op_create_user_event,
    .set_user_event_status = op_set_user_event_status,
    .is_valid_event = op_is_valid_event,
    .capture_profiling = op_capture_profiling,
    .kernel_query = op_kernel_query,
};

/* ---- Running the children ------------------------------------------- */

static void run_group(void *arg, uint64_t gx, uint64_t gy, uint64_t gz,
                      char *local_mem) {
  dq_node *n = arg;
  n->info->wg(&n->launch, gx, gy, gz, local_mem);
  if (n->info->uses_barriers && sched_fiber_take_error())
    atomic_store_explicit(&n->group_failed, true, memory_order_relaxed);
}

/* Removes and returns the oldest node whose wait events have all
 * completed, NULL if none; *any says whether nodes are left. */
static dq_node *take_runnable(rt_dq_root *r, bool *any) {
  pthread_mutex_lock(&r->lock);
  dq_node *prev = NULL, *n = r->head;
  for (; n; prev = n, n = n->next) {
    uint32_t i = 0;
    while (i < n->num_waits && event_done(n->waits[i]))
      i++;
    if (i == n->num_waits)
      break;
  }
  if (n) {
    if (prev)
      prev->next = n->next;
    else
      r->head = n->next;
    if (r->tail == n)
      r->tail = prev;
    n->next = NULL;
  }
  *any = r->head != NULL;
  pthread_mutex_unlock(&r->lock);
  return n;
}

/* Runs n's work-groups (a marker has none). */
static cl_int node_run(dq_node *n) {
  for (uint32_t i = 0; i < n->num_waits; i++)
    n->failed |= atomic_load(&n->waits[i]->status) < 0;
  if (n->event)
    n->event->t_start = rt_now_ns();
  cl_int err = CL_SUCCESS;
  if (n->info && !n->failed) {
    n->job.fn = run_group;
    n->job.arg = n;
    if (n->info->uses_printf &&
        !(n->launch.printf_buffer = rt_printf_buffer_create()))
      err = CL_OUT_OF_HOST_MEMORY;
    else if (sched_run(&n->job) != 0 ||
             atomic_load(&n->group_failed))
      err = CL_OUT_OF_RESOURCES;
    rt_printf_flush(n->launch.printf_buffer);
    n->launch.printf_buffer = NULL;
  }
  if (n->event)
    n->event->t_end = rt_now_ns();
  atomic_fetch_sub(&n->queue->dq_used, 1);
  clReleaseCommandQueue(n->queue);
  return err;
}

/* Drops n's references on its wait events. */
static void node_unwait(rt_dq_root *r, dq_node *n) {
  for (uint32_t i = 0; i < n->num_waits; i++)
    event_release(r, n->waits[i]);
}

cl_int rt_dq_host_finish(rt_dq_host *h) {
  rt_dq_root *r = atomic_load_explicit(&h->root, memory_order_acquire);
  if (!r)
    return CL_SUCCESS;
  cl_int err = CL_SUCCESS;
  for (;;) {
    bool any;
    dq_node *n = take_runnable(r, &any);
    if (!n && !any)
      break;
    if (!n) {
      /* Every node left waits for an event nothing can complete any
       * more (a user event never set): they fail instead of hanging. */
      pthread_mutex_lock(&r->lock);
      n = r->head;
      r->head = n->next;
      if (!r->head)
        r->tail = NULL;
      pthread_mutex_unlock(&r->lock);
      n->failed = true;
      err = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    }
    cl_int run = node_run(n);
    node_unwait(r, n);
    if (run != CL_SUCCESS) {
      n->failed = true;
      err = run;
    }
    node_settle(r, n);
  }
  for (dq_event *e = r->events, *next; e; e = next) {
    next = e->next;
    e->magic = 0;
    free(e);
  }
  pthread_mutex_destroy(&r->lock);
  free(r);
  atomic_store(&h->root, NULL);
  return err;
}
