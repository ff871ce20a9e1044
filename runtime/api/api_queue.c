/* This file contains the command-queue entry points: creation with
 * properties, reference counting, info queries, clFlush and clFinish. */
#include "../core/context.h"
#include "../core/device_queue.h"
#include "../core/event.h"
#include "../core/info.h"
#include "../core/platform.h"
#include "../core/queue.h"
#include "../core/trace.h"
#include <sched.h>
#include <stdlib.h>

static const cl_command_queue_properties supported_properties =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;

/* Creates a queue; context, device and properties already checked. */
static cl_command_queue queue_new(cl_context context, cl_device_id device,
                                  cl_command_queue_properties properties,
                                  const cl_queue_properties *list,
                                  size_t list_len, cl_int *errcode_ret) {
  cl_command_queue q = calloc(1, sizeof *q);
  RT_FAIL_IF(!q, CL_OUT_OF_HOST_MEMORY, errcode_ret);
  if (list_len) {
    q->prop_list = malloc(sizeof *list * list_len);
    if (!q->prop_list) {
      free(q);
      RT_FAIL_IF(true, CL_OUT_OF_HOST_MEMORY, errcode_ret);
    }
    for (size_t i = 0; i < list_len; i++)
      q->prop_list[i] = list[i];
    q->num_props = list_len;
  }
  rt_object_init(&q->obj, RT_QUEUE);
  q->context = context;
  rt_retain(context);
  q->device = device;
  q->properties = properties;
  q->priority = q->throttle = RT_LEVEL_MED;   /* the hints' defaults */
  pthread_mutex_init(&q->lock, NULL);
  pthread_cond_init(&q->idle, NULL);
  rt_trace_queue_new(q);   /* SKEIN_TRACE: a track of its own */
  rt_context_add_queue(context, q);
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return q;
}

/* The checks both creators share. */
static cl_int check_queue_args(cl_context context, cl_device_id device,
                               cl_command_queue_properties properties) {
  /* CL_INVALID_CONTEXT if context is not a valid context. */
  RT_RETURN_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT);
  /* CL_INVALID_DEVICE if device is not a valid device or is not
   * associated with context. */
  RT_RETURN_IF(!rt_is(device, RT_DEVICE), CL_INVALID_DEVICE);
  RT_RETURN_IF(!rt_context_has_device(context, device), CL_INVALID_DEVICE);
  /* CL_INVALID_VALUE if values specified in properties are not valid. */
  const cl_command_queue_properties known =
      supported_properties | CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT;
  RT_RETURN_IF(properties & ~known, CL_INVALID_VALUE);
  RT_RETURN_IF((properties & CL_QUEUE_ON_DEVICE_DEFAULT) &&
                   !(properties & CL_QUEUE_ON_DEVICE),
               CL_INVALID_VALUE);
  RT_RETURN_IF((properties & CL_QUEUE_ON_DEVICE) &&
                   !(properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE),
               CL_INVALID_VALUE);
  return CL_SUCCESS;
}

cl_command_queue CL_API_CALL clCreateCommandQueue(
    cl_context context, cl_device_id device,
    cl_command_queue_properties properties, cl_int *errcode_ret) {
  cl_int err = check_queue_args(context, device, properties);
  RT_FAIL_IF(err != CL_SUCCESS, err, errcode_ret);
  /* CL_INVALID_QUEUE_PROPERTIES if values specified in properties are
   * valid but are not supported by the device: the OpenCL 1.x creator
   * makes host queues only (on-device queues need
   * clCreateCommandQueueWithProperties). */
  RT_FAIL_IF(properties & CL_QUEUE_ON_DEVICE, CL_INVALID_QUEUE_PROPERTIES,
             errcode_ret);
  return queue_new(context, device, properties, NULL, 0, errcode_ret);
}

/* The level (0 high, 1 medium, 2 low) of a cl_khr_priority_hints or
 * cl_khr_throttle_hints value (HIGH, MED and LOW are bits 0, 1 and 2 in
 * both), or -1 if v is none of the three. */
static int hint_level(cl_queue_properties v) {
  return v == 1 ? 0 : v == 2 ? 1 : v == 4 ? 2 : -1;
}

cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(
    cl_context context, cl_device_id device,
    const cl_queue_properties *properties, cl_int *errcode_ret) {
  cl_command_queue_properties flags = 0;
  cl_queue_properties size = 0;
  size_t n = 0;
  bool seen_props = false, seen_size = false;
  int priority = -1, throttle = -1;   /* -1: not given (medium) */
  for (; properties && properties[n]; n += 2) {
    switch (properties[n]) {
    case CL_QUEUE_PROPERTIES:
      RT_FAIL_IF(seen_props, CL_INVALID_VALUE, errcode_ret);
      seen_props = true;
      flags = properties[n + 1];
      break;
    case CL_QUEUE_SIZE:
      RT_FAIL_IF(seen_size, CL_INVALID_VALUE, errcode_ret);
      seen_size = true;
      size = properties[n + 1];
      break;
    /* cl_khr_priority_hints and cl_khr_throttle_hints: each at most once,
     * with one of its three values (else CL_INVALID_VALUE); the two may
     * be given together (the extensions call them orthogonal). */
    case CL_QUEUE_PRIORITY_KHR:
      RT_FAIL_IF(priority >= 0, CL_INVALID_VALUE, errcode_ret);
      priority = hint_level(properties[n + 1]);
      RT_FAIL_IF(priority < 0, CL_INVALID_VALUE, errcode_ret);
      break;
    case CL_QUEUE_THROTTLE_KHR:
      RT_FAIL_IF(throttle >= 0, CL_INVALID_VALUE, errcode_ret);
      throttle = hint_level(properties[n + 1]);
      RT_FAIL_IF(throttle < 0, CL_INVALID_VALUE, errcode_ret);
      break;
    default:
      /* CL_INVALID_VALUE if values specified in properties are not
       * valid. */
      RT_FAIL_IF(true, CL_INVALID_VALUE, errcode_ret);
    }
  }
  cl_int err = check_queue_args(context, device, flags);
  RT_FAIL_IF(err != CL_SUCCESS, err, errcode_ret);
  bool on_device = flags & CL_QUEUE_ON_DEVICE;
  /* CL_QUEUE_SIZE without CL_QUEUE_ON_DEVICE is invalid; with it, the
   * size must be at most CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE (and not 0). */
  RT_FAIL_IF(seen_size && !on_device, CL_INVALID_VALUE, errcode_ret);
  RT_FAIL_IF(seen_size && (size == 0 || size > RT_DQ_MAX_SIZE),
             CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_QUEUE_PROPERTIES if CL_QUEUE_PRIORITY_KHR or
   * CL_QUEUE_THROTTLE_KHR is specified and the queue is a
   * CL_QUEUE_ON_DEVICE. */
  RT_FAIL_IF(on_device && (priority >= 0 || throttle >= 0),
             CL_INVALID_QUEUE_PROPERTIES, errcode_ret);
  cl_command_queue q = queue_new(context, device, flags, properties,
                                 properties ? n + 1 : 0, errcode_ret);
  if (q) {
    q->priority = priority < 0 ? RT_LEVEL_MED : (unsigned char)priority;
    q->throttle = throttle < 0 ? RT_LEVEL_MED : (unsigned char)throttle;
  }
  if (!q || !on_device)
    return q;
  /* An on-device queue: a type of its own, so that host commands refuse
   * it; the default one of a context is made once and then returned,
   * retained. */
  q->obj.type = RT_DEVICE_QUEUE;
  q->device_queue_size = seen_size ? (cl_uint)size : RT_DQ_PREFERRED_SIZE;
  cl_command_queue existing;
  cl_int err2 = rt_device_queue_register(
      q, flags & CL_QUEUE_ON_DEVICE_DEFAULT, &existing);
  if (err2 != CL_SUCCESS || existing) {
    rt_context_remove_queue(q->context, q);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->idle);
    free(q->prop_list);
    clReleaseContext(q->context);
    free(q);
    /* CL_OUT_OF_RESOURCES: more than CL_DEVICE_MAX_ON_DEVICE_QUEUES. */
    RT_FAIL_IF(err2 != CL_SUCCESS, err2, errcode_ret);
  }
  return existing ? existing : q;
}

/* cl_khr_create_command_queue: the core creator under the extension's
 * name (handed out by clGetExtensionFunctionAddress*), with the same
 * properties and errors. */
cl_command_queue CL_API_CALL clCreateCommandQueueWithPropertiesKHR(
    cl_context context, cl_device_id device,
    const cl_queue_properties_khr *properties, cl_int *errcode_ret) {
  return clCreateCommandQueueWithProperties(context, device, properties,
                                            errcode_ret);
}

/* Host and on-device queues alike. */
static bool any_queue(cl_command_queue q) {
  return rt_is(q, RT_QUEUE) || rt_is(q, RT_DEVICE_QUEUE);
}

cl_int CL_API_CALL clRetainCommandQueue(cl_command_queue q) {
  RT_RETURN_IF(!any_queue(q), CL_INVALID_COMMAND_QUEUE);
  rt_retain(q);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue q) {
  RT_RETURN_IF(!any_queue(q), CL_INVALID_COMMAND_QUEUE);
  /* clReleaseCommandQueue performs an implicit flush. */
  rt_executor_flush();
  /* Commands hold references on their queue, so the last release comes
   * after every command has completed. */
  bool on_device = q->obj.type == RT_DEVICE_QUEUE;
  if (!rt_release_last(q))
    return CL_SUCCESS;
  /* First: rt_context_wait_enqueued may be reading q->last. */
  rt_context_remove_queue(q->context, q);
  if (on_device)
    rt_device_queue_unregister(q);
  if (q->last)
    rt_event_release(q->last);
  if (q->barrier)
    rt_event_release(q->barrier);
  pthread_mutex_destroy(&q->lock);
  pthread_cond_destroy(&q->idle);
  free(q->prop_list);
  clReleaseContext(q->context);
  free(q);
  return CL_SUCCESS;
}

void rt_queue_command_done(cl_command_queue q, cl_event ev) {
  cl_event drop_last = NULL, drop_barrier = NULL;
  pthread_mutex_lock(&q->lock);
  if (!rt_queue_in_order(q)) { /* out of order: leave the live list */
    if (ev->live_prev)
      ev->live_prev->live_next = ev->live_next;
    else
      q->live = ev->live_next;
    if (ev->live_next)
      ev->live_next->live_prev = ev->live_prev;
    ev->live_prev = ev->live_next = NULL;
  }
  /* Completed commands need no ordering any more: dropping them here
   * breaks the queue -> event -> queue reference cycle. */
  if (q->last && rt_event_is_done(q->last)) {
    drop_last = q->last;
    q->last = NULL;
  }
  if (q->barrier && rt_event_is_done(q->barrier)) {
    drop_barrier = q->barrier;
    q->barrier = NULL;
  }
  if (atomic_fetch_sub_explicit(&q->outstanding, 1,
                                memory_order_release) == 1)
    pthread_cond_broadcast(&q->idle);
  pthread_mutex_unlock(&q->lock);
  if (drop_last)
    rt_event_release(drop_last);
  if (drop_barrier)
    rt_event_release(drop_barrier);
}

cl_int CL_API_CALL clFlush(cl_command_queue q) {
  RT_RETURN_IF(!rt_is(q, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* Ready commands are in the executor's list: make sure an executor
   * is awake for them. */
  rt_executor_flush();
  return CL_SUCCESS;
}

static bool queue_idle(cl_command_queue q) {
  return atomic_load_explicit(&q->outstanding, memory_order_acquire) == 0;
}

/* What clFinish waits for: the commands enqueued on q before the call,
 * as a few events (retained) that complete only once all of those have.
 * In order: the newest command. Out of order: every incomplete command,
 * or, when there are more than FINISH_INLINE, a marker without a wait
 * list (it waits for all of them). With none of these (out of memory for
 * the marker) it waits for q to be idle. */
#define FINISH_INLINE 8
typedef struct finish_set {
  cl_event ev[FINISH_INLINE];
  unsigned n, first;             /* ev[first..n) may be incomplete */
  bool idle;                     /* wait for q to be idle instead */
} finish_set;

/* Fills s for q; the queue lock is taken here. */
static void finish_target(cl_command_queue q, finish_set *s) {
  s->n = s->first = 0;
  s->idle = false;
  unsigned live = 0;
  pthread_mutex_lock(&q->lock);
  if (rt_queue_in_order(q)) {
    if (q->last)
      s->ev[s->n++] = q->last;
  } else {
    /* A command stays in the live list, holding its ready path's
     * reference, until it has completed: retaining it here is safe. */
    for (cl_event e = q->live; e; e = e->live_next)
      if (live++ < FINISH_INLINE)
        s->ev[s->n++] = e;
  }
  if (live <= FINISH_INLINE)
    for (unsigned i = 0; i < s->n; i++)
      rt_retain(s->ev[i]);
  pthread_mutex_unlock(&q->lock);
  if (live <= FINISH_INLINE)
    return;
  s->n = 0;
  cl_int err;
  cl_event m = rt_command_create(q, CL_COMMAND_MARKER, 0, NULL, &err);
  if (!m) {
    s->idle = true;
    return;
  }
  m->wait_all = true;
  rt_command_submit(m, false, &s->ev[s->n++]);
}

/* True when clFinish may return: every event of s has completed (those
 * that have are skipped from then on), or q is idle. */
static bool finish_done(cl_command_queue q, finish_set *s) {
  if (s->idle)
    return queue_idle(q);
  while (s->first < s->n && rt_event_is_done(s->ev[s->first]))
    s->first++;
  return s->first == s->n;
}

/* Polls for up to RT_SPIN_NS until finish_done or a command was pushed
 * since push sequence seq; true if either happened. */
static bool spin_for_finish(cl_command_queue q, finish_set *s,
                            unsigned seq) {
  cl_ulong deadline = rt_now_ns() + RT_SPIN_NS;
  for (;;) {
    for (int i = 0; i < 32; i++) {
      if (finish_done(q, s) || rt_executor_push_seq() != seq)
        return true;
      rt_cpu_relax();
    }
    if (rt_now_ns() > deadline)
      return false;
  }
}

/* Sleeps until the first incomplete event of s completes (or q is idle). */
static void sleep_for_finish(cl_command_queue q, finish_set *s) {
  if (finish_done(q, s))
    return;
  cl_event t = s->idle ? NULL : s->ev[s->first];
  pthread_mutex_t *lock = t ? &t->lock : &q->lock;
  pthread_cond_t *cond = t ? &t->done : &q->idle;
  pthread_mutex_lock(lock);
  while (t ? !rt_event_is_done(t) : !queue_idle(q))
    pthread_cond_wait(cond, lock);
  pthread_mutex_unlock(lock);
}

/* Waits until the callbacks of s's events have run, and drops them.
 * clFinish has always returned after them; callbacks of commands before
 * these ran before their dependents could start. */
static void finish_release(finish_set *s) {
  for (unsigned i = 0; i < s->n; i++) {
    while (!atomic_load_explicit(&s->ev[i]->retired, memory_order_acquire))
      sched_yield();
    rt_event_release(s->ev[i]);
  }
}

cl_int CL_API_CALL clFinish(cl_command_queue q) {
  RT_RETURN_IF(!rt_is(q, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  if (queue_idle(q))
    return CL_SUCCESS;
  rt_retain(q);
  rt_executor_drain_begin();
  /* Only commands enqueued before this call count: waiting for q to be
   * idle never ended while other threads kept enqueueing on it. */
  finish_set s;
  finish_target(q, &s);
  /* Runs q's ready commands on this thread (no wake-up for the common
   * enqueue-then-finish), spins a little while an executor runs them,
   * then sleeps. */
  while (!finish_done(q, &s)) {
    unsigned seq = rt_executor_push_seq();
    cl_event run = rt_executor_take(q, NULL, NULL, 0);
    if (run) {
      rt_command_execute(run);
      continue;
    }
    rt_executor_flush(); /* what is left is someone else's to run */
    if (spin_for_finish(q, &s, seq))
      continue; /* progress: look again */
    sleep_for_finish(q, &s);
  }
  finish_release(&s);
  rt_executor_drain_end();
  clReleaseCommandQueue(q);
  return CL_SUCCESS;
}

void rt_context_add_queue(cl_context ctx, cl_command_queue q) {
  pthread_mutex_lock(&ctx->lock);
  q->ctx_prev = NULL;
  q->ctx_next = ctx->queues;
  if (ctx->queues)
    ctx->queues->ctx_prev = q;
  ctx->queues = q;
  pthread_mutex_unlock(&ctx->lock);
}

void rt_context_remove_queue(cl_context ctx, cl_command_queue q) {
  pthread_mutex_lock(&ctx->lock);
  if (q->ctx_prev)
    q->ctx_prev->ctx_next = q->ctx_next;
  else
    ctx->queues = q->ctx_next;
  if (q->ctx_next)
    q->ctx_next->ctx_prev = q->ctx_prev;
  q->ctx_prev = q->ctx_next = NULL;
  pthread_mutex_unlock(&ctx->lock);
}

/* Appends ev, retained, to the array *evs of *n entries (capacity *cap);
 * false when out of memory. */
static bool push_event(cl_event **evs, size_t *n, size_t *cap, cl_event ev) {
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 16;
    cl_event *grown = realloc(*evs, c * sizeof *grown);
    if (!grown)
      return false;
    *evs = grown;
    *cap = c;
  }
  rt_retain(ev);
  (*evs)[(*n)++] = ev;
  return true;
}

/* clMemBlockingFreeINTEL's wait. Like clFinish, it takes its target
 * first, the incomplete commands of every queue of ctx at the call, and
 * then waits for those only: waiting for the context to be idle never
 * ended while other threads kept enqueueing, and hung on a later
 * command gated on a user event the caller sets after the free. In
 * order, a queue's newest command completes after all of its earlier
 * ones; out of order, each live command is taken. Lock order:
 * ctx->lock, then a queue's lock (nothing takes them the other way). */
cl_int rt_context_wait_enqueued(cl_context ctx) {
  cl_event *evs = NULL;
  size_t n = 0, cap = 0;
  bool ok = true;
  pthread_mutex_lock(&ctx->lock);
  for (cl_command_queue q = ctx->queues; q && ok; q = q->ctx_next) {
    pthread_mutex_lock(&q->lock);
    /* As in finish_target: q->last and the live commands hold their
     * references until they complete and leave under q->lock. */
    if (rt_queue_in_order(q)) {
      if (q->last && !rt_event_is_done(q->last))
        ok = push_event(&evs, &n, &cap, q->last);
    } else {
      for (cl_event e = q->live; e && ok; e = e->live_next)
        ok = push_event(&evs, &n, &cap, e);
    }
    pthread_mutex_unlock(&q->lock);
  }
  pthread_mutex_unlock(&ctx->lock);
  /* A failed command is complete too: its status does not matter. */
  for (size_t i = 0; i < n; i++) {
    if (ok)
      rt_event_wait(evs[i]);
    rt_event_release(evs[i]);
  }
  free(evs);
  return ok ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
}

cl_int CL_API_CALL clGetCommandQueueInfo(cl_command_queue q,
                                         cl_command_queue_info param_name,
                                         size_t param_value_size,
                                         void *param_value,
                                         size_t *param_value_size_ret) {
  RT_RETURN_IF(!any_queue(q), CL_INVALID_COMMAND_QUEUE);
  switch (param_name) {
  case CL_QUEUE_CONTEXT:
    RT_INFO_VALUE(cl_context, q->context);
  case CL_QUEUE_DEVICE:
    RT_INFO_VALUE(cl_device_id, q->device);
  case CL_QUEUE_REFERENCE_COUNT:
    RT_INFO_VALUE(cl_uint, rt_refcount(q));
  case CL_QUEUE_PROPERTIES:
    RT_INFO_VALUE(cl_command_queue_properties, q->properties);
  case CL_QUEUE_PROPERTIES_ARRAY:
    RT_INFO_ARRAY(q->prop_list, q->num_props);
  case CL_QUEUE_SIZE:
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid
     * command-queue for the device (a host queue has no size). */
    if (q->obj.type != RT_DEVICE_QUEUE)
      RT_FAIL(CL_INVALID_COMMAND_QUEUE);
    RT_INFO_VALUE(cl_uint, q->device_queue_size);
  case CL_QUEUE_DEVICE_DEFAULT:
    /* The device's current default on-device queue (NULL if none). */
    RT_INFO_VALUE(cl_command_queue, rt_device_queue_default(q->context));
  default:
    RT_FAIL(CL_INVALID_VALUE);
  }
}

cl_int CL_API_CALL clSetDefaultDeviceCommandQueue(cl_context context,
                                                  cl_device_id device,
                                                  cl_command_queue q) {
  /* CL_INVALID_CONTEXT if context is not a valid context. */
  RT_RETURN_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT);
  /* CL_INVALID_DEVICE if device is not a valid device or is not
   * associated with context. */
  RT_RETURN_IF(!rt_is(device, RT_DEVICE), CL_INVALID_DEVICE);
  RT_RETURN_IF(!rt_context_has_device(context, device), CL_INVALID_DEVICE);
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command-queue
   * for device: an on-device queue of this context and device. */
  RT_RETURN_IF(!rt_is(q, RT_DEVICE_QUEUE) || q->context != context ||
                   q->device != device,
               CL_INVALID_COMMAND_QUEUE);
  rt_device_queue_set_default(context, q);
  return CL_SUCCESS;
}
