/* This file contains clEnqueueNDRangeKernel and clEnqueueTask: the
 * spec's launch checks, the choice of a local size when the application
 * gives none, and the NDRange command, which snapshots the kernel's
 * arguments into a skein_launch and runs its work-groups through
 * scheduler/. */
#include "../core/kernel.h"
#include "../core/program.h"
#include "../core/context.h"
#include "../core/queue.h"
#include "../core/event.h"
#include "../core/mem.h"
#include "../core/image.h"
#include "../core/platform.h"
#include "../core/printf.h"
#include "../core/device_queue.h"
#include "../core/svm.h"
#include "../core/trace.h"
#include "../core/skein_cl31.h"
#include "../../scheduler/scheduler.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The payload of one NDRange command: everything the work-groups read,
 * frozen at enqueue time. */
typedef struct ndrange_cmd {
  skein_launch launch;
  skein_wg_fn wg;
  sched_job job;
  cl_kernel kernel;            /* retained: keeps wg's code loaded */
  bool empty;                  /* a global size of 0: nothing to run */
  atomic_bool failed;          /* a group could not complete */
  bool may_use_fibers;         /* a barrier kernel (region or fiber mode) */
  unsigned num_mems;
  cl_mem *mems;                /* buffer arguments, retained until done */
  uint64_t *arg_sizes;         /* bounds-checked kernels: launch.arg_sizes
                                  and the report after them, else NULL */
  void **slots;                /* launch.args */
  unsigned char *data;         /* argument bytes, RT_LOCAL_ALIGN aligned */
  rt_dq_host dq;               /* launch.device_enqueue: the children its
                                  work-items enqueue (device_queue.c) */
} ndrange_cmd;

/* The launch geometry after validation: unused dimensions hold offset 0,
 * size 1. */
typedef struct ndrange_dims {
  cl_uint work_dim;
  size_t offset[3], global[3], local[3];
} ndrange_dims;

static size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

/* Alignment of a by-value argument: its size rounded up to a power of
 * two, at most RT_LOCAL_ALIGN (so a double16 gets a full vector load). */
static size_t value_align(size_t size) {
  size_t a = 1;
  while (a < size && a < RT_LOCAL_ALIGN)
    a *= 2;
  return a;
}

/* Bytes an argument takes in the data block, at offset *at (updated). */
static size_t arg_place(const cc_arg_info *ai, const rt_kernel_arg *a,
                        size_t *at) {
  size_t size = ai->kind == CC_ARG_VALUE || ai->kind == CC_ARG_SAMPLER
                    ? a->size
                    : sizeof(uint64_t);
  size_t off = align_up(*at, value_align(size));
  *at = off + size;
  return off;
}

static void ndrange_free(ndrange_cmd *c) {
  for (unsigned i = 0; i < c->num_mems; i++)
    rt_mem_release(c->mems[i]);
  free(c->arg_sizes);
  if (c->kernel)
    rt_kernel_release(c->kernel);
  rt_payload_free(c->data);
  rt_payload_free(c);
}

/* Writes argument i's slot at p; buffers are recorded in c->mems, and
 * for a bounds-checked kernel the object's size in *size. */
static void snapshot_arg(ndrange_cmd *c, const cc_arg_info *ai,
                         const rt_kernel_arg *a, unsigned char *p,
                         uint64_t *local_at, uint64_t *size) {
  *size = 0;
  switch (ai->kind) {
  case CC_ARG_GLOBAL:
  case CC_ARG_CONSTANT:
  case CC_ARG_PIPE: {   /* a pipe's data is its ring (builtins/pipes.h) */
    if (a->is_svm) {
      /* An SVM pointer is the address itself. Bounds-checked kernels get
       * the allocation's size for a pointer to its start (0 for NULL, as
       * for a NULL buffer), and no bound for a pointer inside it (the
       * kernel may index below it) or for other host memory (fine-grain
       * system SVM). */
      memcpy(p, &a->svm, sizeof a->svm);
      rt_svm_info info;
      if (!a->svm)
        *size = 0;
      else if (rt_svm_find(a->svm, &info) && info.base == a->svm)
        *size = info.size;
      else
        *size = UINT64_MAX;
      break;
    }
    /* A sub-buffer's data already points into its parent. */
    void *ptr = a->mem ? a->mem->data : NULL;
    memcpy(p, &ptr, sizeof ptr);
    if (a->mem) {
      rt_retain(a->mem);
      c->mems[c->num_mems++] = a->mem;
      *size = a->mem->size;
    }
    break;
  }
  case CC_ARG_IMAGE: {
    /* The kernel receives the image's descriptor (builtins/abi.h); the
     * image builtins reach the pixels through it. */
    skein_image *desc = &a->mem->image->kernel;
    memcpy(p, &desc, sizeof desc);
    rt_retain(a->mem);
    c->mems[c->num_mems++] = a->mem;
    *size = sizeof *desc;
    break;
  }
  case CC_ARG_LOCAL:
    memcpy(p, local_at, sizeof *local_at);
    *local_at += align_up(a->size, RT_LOCAL_ALIGN);
    *size = a->size;
    break;
  case CC_ARG_SAMPLER:
    memcpy(p, a->value, a->size);
    /* A sampler is bits, not memory: for bounds-checked mode, which sees
     * a constant pointer handed to the image builtins, it is an object no
     * offset leaves. */
    *size = UINT64_MAX;
    break;
  default:
    memcpy(p, a->value, a->size);
    break;
  }
}

/* Checks that every argument is set and usable; called with k->lock. */
static cl_int check_args_locked(cl_kernel k) {
  for (unsigned i = 0; i < k->info->num_args; i++) {
    const rt_kernel_arg *a = &k->args[i];
    /* CL_INVALID_KERNEL_ARGS if the kernel argument values have not been
     * specified. (A buffer released since counts as not specified.) */
    RT_RETURN_IF(!a->set || (a->mem && !rt_is(a->mem, RT_MEM)),
                 CL_INVALID_KERNEL_ARGS);
    /* CL_MISALIGNED_SUB_BUFFER_OFFSET if a sub-buffer object is specified
     * as the value for an argument that is a buffer object and the offset
     * specified when the sub-buffer object is created is not aligned to
     * CL_DEVICE_MEM_BASE_ADDR_ALIGN value for the device. */
    RT_RETURN_IF(a->mem && a->mem->parent && a->mem->origin % RT_MEM_ALIGN,
                 CL_MISALIGNED_SUB_BUFFER_OFFSET);
  }
  return CL_SUCCESS;
}

/* Fills c's argument slots from k's current values; called with k->lock
 * after check_args_locked. */
static cl_int snapshot_args_locked(ndrange_cmd *c, cl_kernel k) {
  unsigned n = k->info->num_args;
  size_t at = 0;
  for (unsigned i = 0; i < n; i++)
    arg_place(&k->info->args[i], &k->args[i], &at);
  c->data = rt_payload_alloc(at ? at : 1); /* RT_LOCAL_ALIGN aligned */
  if (!c->data)
    return CL_OUT_OF_HOST_MEMORY;
  uint64_t local_at = align_up(k->info->static_local_mem_size,
                               RT_LOCAL_ALIGN);
  /* Bounds-checked kernels: the objects' sizes, then a zeroed report. */
  if (k->info->num_bounds_sites) {
    c->arg_sizes = calloc(1, n * sizeof(uint64_t) +
                                 sizeof(skein_bounds_report));
    if (!c->arg_sizes)
      return CL_OUT_OF_HOST_MEMORY;
    c->launch.arg_sizes = c->arg_sizes;
    c->launch.bounds = (skein_bounds_report *)(c->arg_sizes + n);
  }
  uint64_t unused;
  at = 0;
  for (unsigned i = 0; i < n; i++) {
    size_t off = arg_place(&k->info->args[i], &k->args[i], &at);
    c->slots[i] = c->data + off;
    snapshot_arg(c, &k->info->args[i], &k->args[i], c->data + off,
                 &local_at, c->arg_sizes ? &c->arg_sizes[i] : &unused);
  }
  c->job.local_mem_size = local_at;
  return CL_SUCCESS;
}

/* Builds the command payload for k over dims. On failure returns NULL
 * with *err set (CL_INVALID_KERNEL_ARGS etc.). */
static ndrange_cmd *ndrange_create(cl_kernel k, const ndrange_dims *d,
                                   cl_int *err) {
  unsigned n = k->info->num_args;
  ndrange_cmd *c = rt_payload_alloc(sizeof *c + n * (sizeof(void *) +
                                                      sizeof(cl_mem)));
  if (!c) {
    *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  c->slots = (void **)(c + 1);
  c->mems = (cl_mem *)(c->slots + n);
  pthread_mutex_lock(&k->lock);
  *err = check_args_locked(k);
  if (*err == CL_SUCCESS)
    *err = snapshot_args_locked(c, k);
  pthread_mutex_unlock(&k->lock);
  if (*err != CL_SUCCESS) {
    ndrange_free(c);
    return NULL;
  }
  rt_retain(k);
  c->kernel = k;
  c->may_use_fibers = k->info->uses_barriers;
  c->wg = k->info->wg;
  c->launch.work_dim = d->work_dim;
  c->launch.sub_group_size = k->info->sub_group_size;
  c->launch.args = c->slots;
  c->launch.hooks = sched_hooks(); /* fiber mode: run_fibers, barrier */
  rt_dq_host_init(&c->dq, k->program->cc, k->program->context,
                  k->program->context->device);
  c->launch.device_enqueue = &c->dq.de;
  for (int i = 0; i < 3; i++) {
    c->launch.global_offset[i] = d->offset[i];
    c->launch.global_size[i] = d->global[i];
    c->launch.local_size[i] = d->local[i];
    c->launch.num_groups[i] = (d->global[i] + d->local[i] - 1) / d->local[i];
    c->empty |= d->global[i] == 0;
    c->job.num_groups[i] = c->empty ? 1 : c->launch.num_groups[i];
  }
  return c;
}

static void run_group(void *arg, uint64_t gx, uint64_t gy, uint64_t gz,
                      char *local_mem) {
  ndrange_cmd *c = arg;
  c->wg(&c->launch, gx, gy, gz, local_mem);
  /* A work-item that overflowed its fiber stack ended its group. Only
   * barrier kernels can run as fibers: loop-mode groups skip the check. */
  if (c->may_use_fibers && sched_fiber_take_error())
    atomic_store_explicit(&c->failed, true, memory_order_relaxed);
}

static cl_int ndrange_run(cl_event ev) {
  ndrange_cmd *c = ev->payload;
  if (c->empty)
    return CL_SUCCESS;
  /* A command-buffer replays this command (runtime/core/command_buffer.c):
   * what an earlier run noted (a group that failed, out-of-bounds
   * accesses) belongs to that run alone. */
  atomic_store_explicit(&c->failed, false, memory_order_relaxed);
  if (c->launch.bounds)
    memset(c->launch.bounds, 0, sizeof *c->launch.bounds);
  c->job.fn = run_group;
  c->job.arg = c;
  /* A sub-device's queue runs the groups, and the child kernels they
   * enqueue, on its own compute units only (scheduler/subset.c). */
  c->job.subset = ev->queue->device->subset;
  c->dq.device = ev->queue->device;
  if (rt_trace_on) {
    /* The workers' spans carry the command's id and kernel name; the
     * command's own record is written after the kernel is released. */
    c->job.trace_id = ev->trace_id;
    c->job.trace_name = c->kernel->info->name;
    ev->trace_name = strdup(c->kernel->info->name);
  }
  /* Only kernels that print get a printf buffer; their output reaches
   * stdout before the command completes. */
  if (c->kernel->info->uses_printf &&
      !(c->launch.printf_buffer = rt_printf_buffer_create()))
    return CL_OUT_OF_HOST_MEMORY;
  int ran = sched_run(&c->job);
  rt_printf_flush(c->launch.printf_buffer);
  c->launch.printf_buffer = NULL;
  /* The child kernels its work-items enqueued, and theirs: the command
   * completes after its whole tree (device_queue.c). */
  cl_int children = rt_dq_host_finish(&c->dq);
  /* CL_OUT_OF_RESOURCES: a failure to allocate resources on the device:
   * a worker pool that could not be started (no address space for its
   * local memory blocks), which ran nothing; a work-item stack that
   * overflowed; or (bounds-checked kernels) an access outside its object,
   * skipped (as devices report faults). */
  if (ran != 0)
    return CL_OUT_OF_RESOURCES;
  if (c->launch.bounds && rt_bounds_report(c->kernel, &c->launch))
    return CL_OUT_OF_RESOURCES;
  if (atomic_load(&c->failed))
    return CL_OUT_OF_RESOURCES;
  return children;
}

static void ndrange_free_payload(cl_event ev) {
  ndrange_free(ev->payload);
  ev->payload = NULL;
}

/* The largest divisor of g in [floor, limit], or 1 if there is none
 * (g >= 1, floor >= 1). */
static size_t largest_divisor(size_t g, size_t limit, size_t floor) {
  for (size_t d = limit < g ? limit : g; d > 1 && d >= floor; d--) {
    if (g % d == 0)
      return d;
  }
  return 1;
}

/* Chooses a local size for a NULL local_work_size. Loop-mode kernels get
 * large groups with a long x dimension, which the vectoriser runs several
 * work-items per instruction in (on a 2^24-item vector kernel, groups of
 * 1024 ran 15% faster than 256 and 3x faster than 16); barrier kernels
 * get smaller ones (one fiber and stack per work-item). Groups shrink
 * until every worker has several to claim. With non-uniform work-groups
 * allowed, a size that does not divide the global size is fine: the last
 * group is partial. A kernel that takes images gets groups at most 128
 * wide (more rows instead): an image filter's groups then lie wholly
 * inside the image but at its left and right edges, and run the image
 * pass's inside versions (compiler/image_inside.cpp), plain vector
 * loads; groups half a row wide all touched an edge, and a 5x5 box
 * filter over a 2048 x 2048 RGBA8 image ran 3.3x slower (387 against
 * 117 ms with groups of 64 x 4, 2-core Xeon, loaded). */
static void choose_local(cl_kernel k, bool uniform, ndrange_dims *d) {
  cl_device_id dev = k->program->context->device;
  size_t limit = k->info->uses_barriers ? 64 : 1024;
  size_t max = dev->max_work_group_size;
  if (limit > max)
    limit = max;
  size_t total = d->global[0] * d->global[1] * d->global[2];
  size_t want_groups = 4 * (dev->compute_units ? dev->compute_units : 1);
  while (limit > 16 && total / limit < want_groups)
    limit /= 2;
  size_t budget = limit;
  bool images = d->work_dim > 1 && cc_kernel_takes_images(k->info);
  for (cl_uint i = 0; i < 3; i++) {
    size_t g = d->global[i] ? d->global[i] : 1;
    size_t cap = i == 0 && images && budget > 128 ? 128 : budget;
    /* Non-uniform: a divisor only if it is at least half the cap, else
     * the cap itself (which also bounds the search). */
    size_t floor = !uniform && cap > 2 ? cap / 2 : 1;
    size_t l = largest_divisor(g, cap, floor);
    if (!uniform && l < floor && l < g)
      l = g < cap ? g : cap;
    d->local[i] = l;
    budget /= l;
    if (budget == 0)
      budget = 1;
  }
}

/* The checks of a given local_work_size (work_dim entries). */
static cl_int check_local(cl_kernel k, bool uniform, const size_t *local,
                          ndrange_dims *d) {
  cl_device_id dev = k->program->context->device;
  const size_t *reqd = k->info->reqd_work_group_size;
  size_t product = 1;
  for (cl_uint i = 0; i < d->work_dim; i++) {
    RT_RETURN_IF(local[i] == 0, CL_INVALID_WORK_GROUP_SIZE);
    /* CL_INVALID_WORK_ITEM_SIZE if the number of work-items specified in
     * any of local_work_size[0], ... local_work_size[work_dim - 1] is
     * greater than the corresponding values specified by
     * CL_DEVICE_MAX_WORK_ITEM_SIZES. */
    RT_RETURN_IF(local[i] > dev->max_work_group_size,
                 CL_INVALID_WORK_ITEM_SIZE);
    /* CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and does
     * not match the required work-group size for kernel in the program
     * source. */
    RT_RETURN_IF(reqd[0] && local[i] != (reqd[i] ? reqd[i] : 1),
                 CL_INVALID_WORK_GROUP_SIZE);
    /* CL_INVALID_WORK_GROUP_SIZE if the work-group size must be uniform
     * and the global_work_size is not evenly divisible by the
     * local_work_size. */
    RT_RETURN_IF(uniform && d->global[i] % local[i],
                 CL_INVALID_WORK_GROUP_SIZE);
    d->local[i] = local[i];
    product *= local[i];
  }
  for (cl_uint i = d->work_dim; i < 3; i++)
    RT_RETURN_IF(reqd[0] && reqd[i] > 1, CL_INVALID_WORK_GROUP_SIZE);
  /* CL_INVALID_WORK_GROUP_SIZE if the total number of work-items in the
   * work-group is greater than the value specified by
   * CL_KERNEL_WORK_GROUP_SIZE. */
  size_t max = dev->max_work_group_size;
  RT_RETURN_IF(product > max, CL_INVALID_WORK_GROUP_SIZE);
  return CL_SUCCESS;
}

/* Validates the NDRange geometry and fills d (local size chosen if the
 * application gave none). */
static cl_int check_dims(cl_kernel k, cl_uint work_dim, const size_t *offset,
                         const size_t *global, const size_t *local,
                         ndrange_dims *d) {
  /* CL_INVALID_WORK_DIMENSION if work_dim is not a valid value (i.e. a
   * value between 1 and CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS). */
  RT_RETURN_IF(work_dim < 1 || work_dim > 3, CL_INVALID_WORK_DIMENSION);
  /* Since OpenCL 2.1, a NULL global_work_size or a 0 entry makes a
   * command that runs no work-item and completes once its wait list has
   * (the conformance tests check both). */
  d->work_dim = work_dim;
  for (cl_uint i = 0; i < 3; i++) {
    d->offset[i] = offset && i < work_dim ? offset[i] : 0;
    d->global[i] = i < work_dim ? (global ? global[i] : 0) : 1;
    d->local[i] = 1;
    /* CL_INVALID_GLOBAL_OFFSET if the value specified in global_work_size
     * + the corresponding values in global_work_offset for any dimensions
     * is greater than the maximum value representable by size_t on the
     * device. */
    RT_RETURN_IF(d->offset[i] > SIZE_MAX - d->global[i],
                 CL_INVALID_GLOBAL_OFFSET);
  }
  cl_program p = k->program;
  pthread_mutex_lock(&p->lock);
  bool uniform = p->uniform_work_groups, uniform_chosen = p->uniform_chosen;
  pthread_mutex_unlock(&p->lock);
  if (local)
    return check_local(k, uniform, local, d);
  /* A kernel with reqd_work_group_size runs in groups of that size when
   * the application gives none (OpenCL 2.0+; the conformance tests check
   * it), with the same checks as an explicit size. */
  if (k->info->reqd_work_group_size[0])
    return check_local(k, uniform, k->info->reqd_work_group_size, d);
  choose_local(k, uniform_chosen, d);
  return CL_SUCCESS;
}

/* The checks of the queue, kernel and local memory that precede the
 * geometry. */
static cl_int check_launch(cl_command_queue q, cl_kernel k) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
   * command-queue. */
  RT_RETURN_IF(!rt_is(q, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_KERNEL if kernel is not a valid kernel object. */
  RT_RETURN_IF(!rt_is(k, RT_KERNEL), CL_INVALID_KERNEL);
  /* CL_INVALID_CONTEXT if context associated with command_queue and
   * kernel are not the same. */
  RT_RETURN_IF(q->context != k->program->context, CL_INVALID_CONTEXT);
  /* CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built
   * program executable available for device associated with
   * command_queue: a kernel exists only for a built program, and a
   * program with kernels cannot be rebuilt. */
  RT_RETURN_IF(!rt_program_is_built(k->program),
               CL_INVALID_PROGRAM_EXECUTABLE);
  /* CL_OUT_OF_RESOURCES if there is a failure to queue the execution
   * instance of kernel because of insufficient resources: the static and
   * dynamic __local memory exceed CL_DEVICE_LOCAL_MEM_SIZE. */
  size_t local_mem = rt_kernel_local_mem(k);
  RT_RETURN_IF(local_mem > q->device->local_mem_size ||
                   local_mem > sched_max_local_mem(),
               CL_OUT_OF_RESOURCES);
  /* Likewise when a work-item's private memory would not fit the stack
   * of the thread running it (runtime/core/executor.c leaves a waiting
   * application thread its commands only with twice this to spare). */
  RT_RETURN_IF(k->info->private_mem_size > RT_MAX_PRIVATE_MEM,
               CL_OUT_OF_RESOURCES);
  return CL_SUCCESS;
}

/* clEnqueueNDRangeKernel, with the command type its event reports. */
static cl_int enqueue_ndrange(
    cl_command_queue command_queue, cl_kernel kernel, cl_uint work_dim,
    const size_t *global_work_offset, const size_t *global_work_size,
    const size_t *local_work_size, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event, cl_command_type type) {
  cl_int err = check_launch(command_queue, kernel);
  if (err != CL_SUCCESS)
    return err;
  ndrange_dims d;
  err = check_dims(kernel, work_dim, global_work_offset, global_work_size,
                   local_work_size, &d);
  if (err != CL_SUCCESS)
    return err;
  /* CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and
   * num_events_in_wait_list > 0, or event_wait_list is not NULL and
   * num_events_in_wait_list is 0, or if event objects in event_wait_list
   * are not valid events (and CL_INVALID_CONTEXT for other contexts). */
  err = rt_check_wait_list(command_queue->context, num_events_in_wait_list,
                           event_wait_list);
  if (err != CL_SUCCESS)
    return err;
  ndrange_cmd *c = ndrange_create(kernel, &d, &err);
  if (!c)
    return err;
  cl_event ev = rt_command_create(command_queue, type,
                                  num_events_in_wait_list, event_wait_list,
                                  &err);
  if (!ev) {
    ndrange_free(c);
    return err;
  }
  ev->payload = c;
  ev->run = ndrange_run;
  ev->free_payload = ndrange_free_payload;
  return rt_command_submit(ev, false, event);
}

cl_int CL_API_CALL clEnqueueNDRangeKernel(
    cl_command_queue command_queue, cl_kernel kernel, cl_uint work_dim,
    const size_t *global_work_offset, const size_t *global_work_size,
    const size_t *local_work_size, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  return enqueue_ndrange(command_queue, kernel, work_dim, global_work_offset,
                         global_work_size, local_work_size,
                         num_events_in_wait_list, event_wait_list, event,
                         CL_COMMAND_NDRANGE_KERNEL);
}

/* cl_khr_suggested_local_work_size: the local size clEnqueueNDRangeKernel
 * would choose for these arguments with a NULL local_work_size
 * (check_dims: the required size if the kernel has one, else
 * choose_local, the scheduler's own choice), so that enqueuing it
 * explicitly runs exactly what Skein runs by itself. */
cl_int CL_API_CALL clGetKernelSuggestedLocalWorkSizeKHR(
    cl_command_queue command_queue, cl_kernel kernel, cl_uint work_dim,
    const size_t *global_work_offset, const size_t *global_work_size,
    size_t *suggested_local_work_size) {
  /* CL_INVALID_COMMAND_QUEUE, CL_INVALID_KERNEL, CL_INVALID_CONTEXT,
   * CL_INVALID_PROGRAM_EXECUTABLE, CL_OUT_OF_RESOURCES as for
   * clEnqueueNDRangeKernel. */
  cl_int err = check_launch(command_queue, kernel);
  if (err != CL_SUCCESS)
    return err;
  /* CL_INVALID_KERNEL_ARGS if all argument values for kernel have not
   * been set (and CL_MISALIGNED_SUB_BUFFER_OFFSET as for enqueues). */
  pthread_mutex_lock(&kernel->lock);
  err = check_args_locked(kernel);
  pthread_mutex_unlock(&kernel->lock);
  if (err != CL_SUCCESS)
    return err;
  /* CL_INVALID_WORK_DIMENSION if work_dim is not a valid value. */
  RT_RETURN_IF(work_dim < 1 || work_dim > 3, CL_INVALID_WORK_DIMENSION);
  /* CL_INVALID_GLOBAL_WORK_SIZE if global_work_size is NULL or if any of
   * the values specified in global_work_size are 0. */
  RT_RETURN_IF(!global_work_size, CL_INVALID_GLOBAL_WORK_SIZE);
  for (cl_uint i = 0; i < work_dim; i++)
    RT_RETURN_IF(global_work_size[i] == 0, CL_INVALID_GLOBAL_WORK_SIZE);
  /* CL_INVALID_VALUE if suggested_local_work_size is NULL. */
  RT_RETURN_IF(!suggested_local_work_size, CL_INVALID_VALUE);
  /* CL_INVALID_GLOBAL_OFFSET if global_work_size + global_work_offset
   * overflows size_t (check_dims). */
  ndrange_dims d;
  err = check_dims(kernel, work_dim, global_work_offset, global_work_size,
                   NULL, &d);
  if (err != CL_SUCCESS)
    return err;
  for (cl_uint i = 0; i < work_dim; i++)
    suggested_local_work_size[i] = d.local[i];
  return CL_SUCCESS;
}

/* OpenCL 3.1's core name of the query above: the same arguments, result
 * and errors (API spec v3.1.1, clGetKernelSuggestedLocalWorkSize, lists
 * the same conditions for both names). Reached through the ICD dispatch
 * table (icd/dispatch.c) and exported (icd/exports.map). */
cl_int CL_API_CALL clGetKernelSuggestedLocalWorkSize(
    cl_command_queue command_queue, cl_kernel kernel, cl_uint work_dim,
    const size_t *global_work_offset, const size_t *global_work_size,
    size_t *suggested_local_work_size) {
  return clGetKernelSuggestedLocalWorkSizeKHR(
      command_queue, kernel, work_dim, global_work_offset, global_work_size,
      suggested_local_work_size);
}

cl_int CL_API_CALL clEnqueueTask(cl_command_queue command_queue,
                                 cl_kernel kernel,
                                 cl_uint num_events_in_wait_list,
                                 const cl_event *event_wait_list,
                                 cl_event *event) {
  /* Equivalent to clEnqueueNDRangeKernel with work_dim 1, a global size
   * of 1 and a local size of 1; the event reports CL_COMMAND_TASK. */
  size_t one = 1;
  return enqueue_ndrange(command_queue, kernel, 1, NULL, &one, &one,
                         num_events_in_wait_list, event_wait_list, event,
                         CL_COMMAND_TASK);
}
