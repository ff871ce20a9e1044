/* This file contains on-device queues and device-side enqueue's runtime:
 * the registry of each context's device queues and default queue, and
 * the child commands of one host NDRange command.
 *
 * Ownership: a host command whose work-items enqueue gets a root (made
 * by the first enqueue). Every child command (a node) belongs to it,
 * and so does every clk_event_t, which lives until the root is freed
 * (release_event only counts). Nodes wait in the root's list; when the
 * host command's work-groups have all finished, its executor runs them
 * in rounds (rt_dq_host_finish): each round takes every node whose wait
 * events have completed and runs all their work-groups as one job over
 * the worker pool, so independent children (siblings, or children of
 * different parents) run side by side; a child's own enqueues join the
 * list and run in a later round. So every flag's promise holds: no
 * child starts before its parent's work-groups, and with them the
 * enqueuing work-group, have finished; and none starts before the
 * events it waits for have completed (device queues are out of order,
 * so nothing else orders children). A node completes (its event
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
  _Atomic uint64_t groups_left;  /* in a batch: the last group's worker
                                    notes the end time */
  uint64_t first_group;          /* in a batch: its first group's index */
  cl_int error;                  /* set by its run */
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

/* The groups of one node, or UINT64_MAX if their count overflows. */
static uint64_t node_groups(const dq_node *n) {
  if (!n->info || n->failed)
    return 0;
  uint64_t xy, xyz;
  if (__builtin_mul_overflow(n->job.num_groups[0], n->job.num_groups[1],
                             &xy) ||
      __builtin_mul_overflow(xy, n->job.num_groups[2], &xyz))
    return UINT64_MAX;
  return xyz;
}

/* A round's work-groups, as one job: group g of the job is group
 * g - first_group of the node whose range holds it. */
typedef struct dq_batch {
  dq_node **nodes;               /* in the order taken */
  uint32_t count;
} dq_batch;

/* Runs one group of n; x, y, z its group ids. */
static void node_group(dq_node *n, uint64_t x, uint64_t y, uint64_t z,
                       char *local_mem) {
  n->info->wg(&n->launch, x, y, z, local_mem);
  if (n->info->uses_barriers && sched_fiber_take_error())
    atomic_store_explicit(&n->group_failed, true, memory_order_relaxed);
}

static void run_group(void *arg, uint64_t gx, uint64_t gy, uint64_t gz,
                      char *local_mem) {
  node_group(arg, gx, gy, gz, local_mem);
}

static void run_batch_group(void *arg, uint64_t g, uint64_t gy,
                            uint64_t gz, char *local_mem) {
  (void)gy;
  (void)gz;
  const dq_batch *b = arg;
  /* The last node whose first group is at or before g. */
  uint32_t lo = 0, hi = b->count;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (b->nodes[mid]->first_group <= g)
      lo = mid;
    else
      hi = mid;
  }
  dq_node *n = b->nodes[lo];
  uint64_t i = g - n->first_group;
  uint64_t nx = n->job.num_groups[0], ny = n->job.num_groups[1];
  node_group(n, i % nx, i / nx % ny, i / nx / ny, local_mem);
  /* The end time of a profiled child is its own last group's, not the
   * round's. */
  if (n->event &&
      atomic_fetch_sub_explicit(&n->groups_left, 1, memory_order_acq_rel) ==
          1)
    n->event->t_end = rt_now_ns();
}

/* The most groups a round runs together: a node with more runs alone,
 * as a 3D job of its own. */
#define DQ_ROUND_GROUPS ((uint64_t)1 << 62)

/* Removes from the root's list, in order, every node whose wait events
 * have all completed, as long as their groups add up to at most
 * DQ_ROUND_GROUPS (a node that does not fit stays for a later round),
 * and returns them linked by next; NULL if none. *any says whether
 * nodes are left. */
static dq_node *take_runnable(rt_dq_root *r, bool *any) {
  pthread_mutex_lock(&r->lock);
  dq_node *taken = NULL, **tail = &taken;
  uint64_t total = 0;
  for (dq_node *prev = NULL, *n = r->head, *next; n && total <=
       DQ_ROUND_GROUPS; n = next) {
    next = n->next;
    uint32_t i = 0;
    while (i < n->num_waits && event_done(n->waits[i]))
      i++;
    uint64_t groups = node_groups(n);
    if (i < n->num_waits ||
        (taken && groups > DQ_ROUND_GROUPS - total)) {
      prev = n;
      continue;
    }
    /* A node over the limit is taken alone, and ends the round. */
    total = groups > DQ_ROUND_GROUPS ? DQ_ROUND_GROUPS + 1 : total + groups;
    if (prev)
      prev->next = next;
    else
      r->head = next;
    if (r->tail == n)
      r->tail = prev;
    n->next = NULL;
    *tail = n;
    tail = &n->next;
  }
  *any = r->head != NULL;
  pthread_mutex_unlock(&r->lock);
  return taken;
}

/* Before a node's groups run: its wait events' failures, its start
 * time, its printf buffer. */
static void node_begin(dq_node *n) {
  for (uint32_t i = 0; i < n->num_waits; i++)
    n->failed |= atomic_load(&n->waits[i]->status) < 0;
  n->error = CL_SUCCESS;
  if (n->event)
    n->event->t_start = rt_now_ns();
  if (n->info && !n->failed && n->info->uses_printf &&
      !(n->launch.printf_buffer = rt_printf_buffer_create()))
    n->error = CL_OUT_OF_HOST_MEMORY;
}

/* Whether n has groups to run (node_begin went well). */
static bool node_runs(const dq_node *n) {
  return n->info && !n->failed && n->error == CL_SUCCESS;
}

/* After: its output, its end time (unless its last group noted it), its
 * queue slot. */
static void node_end(dq_node *n, bool ran, bool timed) {
  if (ran && atomic_load(&n->group_failed))
    n->error = CL_OUT_OF_RESOURCES;
  rt_printf_flush(n->launch.printf_buffer);
  n->launch.printf_buffer = NULL;
  if (n->event && !timed)
    n->event->t_end = rt_now_ns();
  atomic_fetch_sub(&n->queue->dq_used, 1);
  clReleaseCommandQueue(n->queue);
}

/* Runs one node's work-groups (a marker has none) as a job of its own. */
static void node_run(dq_node *n) {
  node_begin(n);
  bool ran = node_runs(n);
  if (ran) {
    n->job.fn = run_group;
    n->job.arg = n;
    if (sched_run(&n->job) != 0)
      n->error = CL_OUT_OF_RESOURCES;
  }
  node_end(n, ran, false);
}

/* SKEIN_DQ_SERIAL=1 runs a round's nodes one at a time, each over the
 * pool, as before rounds ran side by side: for comparison (bench/
 * device_enqueue.c) and to tell a concurrency fault from another. Read
 * once. */
static bool serial_rounds(void) {
  static _Atomic int serial = -1;
  int s = atomic_load_explicit(&serial, memory_order_relaxed);
  if (s < 0) {
    const char *e = getenv("SKEIN_DQ_SERIAL");
    s = e && strcmp(e, "1") == 0;
    atomic_store_explicit(&serial, s, memory_order_relaxed);
  }
  return s;
}

/* Runs the nodes of list (linked by next) side by side: the groups of
 * every one of them as one job over the pool, in list order. A node
 * alone, or a round whose bookkeeping cannot be allocated, runs one
 * node at a time. */
static void batch_run(dq_node *list) {
  uint32_t count = 0;
  for (dq_node *n = list; n; n = n->next)
    count++;
  dq_batch b = {.nodes = count > 1 && !serial_rounds()
                             ? malloc(count * sizeof *b.nodes)
                             : NULL};
  if (!b.nodes) {
    for (dq_node *n = list; n; n = n->next)
      node_run(n);
    return;
  }
  sched_job job = {.num_groups = {0, 1, 1}, .fn = run_batch_group,
                   .arg = &b};
  for (dq_node *n = list; n; n = n->next) {
    node_begin(n);
    if (!node_runs(n))
      continue;
    job.subset = n->job.subset;   /* the same for every node of a root */
    uint64_t groups = node_groups(n);
    n->first_group = job.num_groups[0];
    atomic_store_explicit(&n->groups_left, groups, memory_order_relaxed);
    job.num_groups[0] += groups;
    if (n->job.local_mem_size > job.local_mem_size)
      job.local_mem_size = n->job.local_mem_size;
    b.nodes[b.count++] = n;
  }
  bool failed = b.count && sched_run(&job) != 0;
  for (dq_node *n = list; n; n = n->next) {
    bool ran = node_runs(n);
    if (ran && failed)
      n->error = CL_OUT_OF_RESOURCES;
    node_end(n, ran, ran && !failed && n->event);
  }
  free(b.nodes);
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
    dq_node *list = take_runnable(r, &any);
    if (!list && !any)
      break;
    if (!list) {
      /* Every node left waits for an event nothing can complete any
       * more (a user event never set): they fail instead of hanging. */
      pthread_mutex_lock(&r->lock);
      list = r->head;
      r->head = list->next;
      if (!r->head)
        r->tail = NULL;
      pthread_mutex_unlock(&r->lock);
      list->next = NULL;
      list->failed = true;
      err = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    }
    batch_run(list);
    /* Settling may free a node (and its completed ancestors), never one
     * of this round's that is not yet settled: each waits for its own
     * run until then. */
    for (dq_node *n = list, *next; n; n = next) {
      next = n->next;
      node_unwait(r, n);
      if (n->error != CL_SUCCESS) {
        n->failed = true;
        err = n->error;
      }
      node_settle(r, n);
    }
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
