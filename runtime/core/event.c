/* This file contains the event graph: creating commands with their
 * dependencies, submitting them, status changes with callbacks, waking
 * the commands that wait for a completed one, waiting (running what is
 * ready on the waiting thread), and the cache of recycled events.
 *
 * Lock rules: an event's lock guards its status changes, callbacks and
 * dependents; the pending count and dep_failed are atomics, so no event
 * lock is ever taken while another is held (recycled events reuse their
 * locks, so any nesting could pair up both ways). The queue lock may be
 * held while taking an event lock (at submit), never the other way
 * round: completion drops the event lock before it touches dependents or
 * the queue. The cache lock is taken with no other lock held. */
#include "event.h"
#include "context.h"
#include "queue.h"
#include "platform.h"
#include "trace.h"
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

cl_int rt_check_wait_list(cl_context ctx, cl_uint num_events,
                          const cl_event *wait_list) {
  /* CL_INVALID_EVENT_WAIT_LIST if event_wait_list is NULL and
   * num_events_in_wait_list > 0, or event_wait_list is not NULL and
   * num_events_in_wait_list is 0, or if event objects in event_wait_list
   * are not valid events. */
  RT_RETURN_IF(!wait_list && num_events > 0, CL_INVALID_EVENT_WAIT_LIST);
  RT_RETURN_IF(wait_list && num_events == 0, CL_INVALID_EVENT_WAIT_LIST);
  for (cl_uint i = 0; i < num_events; i++) {
    RT_RETURN_IF(!rt_is(wait_list[i], RT_EVENT), CL_INVALID_EVENT_WAIT_LIST);
    /* CL_INVALID_CONTEXT if the context associated with command_queue and
     * events in event_wait_list are not the same. */
    RT_RETURN_IF(ctx && wait_list[i]->context != ctx, CL_INVALID_CONTEXT);
  }
  return CL_SUCCESS;
}

/* Released events wait here for reuse, with their lock and condition
 * variable still initialised and their grown dependents array kept, so a
 * launch needs no allocation once warm. Bounded: beyond EVENT_CACHE_MAX
 * events are freed. Any thread may release, any thread may allocate. */
enum { EVENT_CACHE_MAX = 256 };
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cl_event cache_head;       /* linked through next_ready */
static unsigned cache_count;

/* A recycled event, or NULL if the cache is empty. */
static cl_event cache_take(void) {
  pthread_mutex_lock(&cache_lock);
  cl_event ev = cache_head;
  if (ev) {
    cache_head = ev->next_ready;
    cache_count--;
  }
  pthread_mutex_unlock(&cache_lock);
  return ev;
}

/* Keeps ev (already emptied) for reuse, or destroys it. */
static void cache_put(cl_event ev) {
  pthread_mutex_lock(&cache_lock);
  bool keep = cache_count < EVENT_CACHE_MAX;
  if (keep) {
    ev->next_ready = cache_head;
    cache_head = ev;
    cache_count++;
  }
  pthread_mutex_unlock(&cache_lock);
  if (keep)
    return;
  if (ev->dependents != ev->dep_inline)
    free(ev->dependents);
  pthread_mutex_destroy(&ev->lock);
  pthread_cond_destroy(&ev->done);
  free(ev);
}

/* A fresh event from the cache or the heap: lock and condition variable
 * initialised, dependents empty, every other field zero. */
static cl_event event_get(void) {
  cl_event ev = cache_take();
  if (ev) {
    /* Keep the lock, condition variable and dependents array (the
     * fields before t_queued are all set by event_alloc); zero the
     * rest. */
    cl_event *deps = ev->dependents;
    unsigned cap = ev->cap_dependents;
    size_t from = offsetof(struct _cl_event, t_queued);
    memset((char *)ev + from, 0, sizeof *ev - from);
    bool heap = deps != ev->dep_inline;
    ev->dependents = heap ? deps : ev->dep_inline;
    ev->cap_dependents = heap ? cap : RT_EVENT_INLINE_DEPS;
    return ev;
  }
  ev = calloc(1, sizeof *ev);
  if (!ev)
    return NULL;
  pthread_mutex_init(&ev->lock, NULL);
  pthread_cond_init(&ev->done, NULL);
  ev->dependents = ev->dep_inline;
  ev->cap_dependents = RT_EVENT_INLINE_DEPS;
  return ev;
}

/* Allocates an event with one reference and status, in context ctx. */
static cl_event event_alloc(cl_context ctx, cl_command_queue q,
                            cl_command_type type, cl_int status) {
  cl_event ev = event_get();
  if (!ev)
    return NULL;
  ev->context = ctx;
  rt_retain(ctx);
  ev->queue = q;
  if (q)
    rt_retain(q);
  ev->command_type = type;
  atomic_store_explicit(&ev->status, status, memory_order_relaxed);
  /* The submission guard, dropped by rt_command_submit. */
  atomic_store_explicit(&ev->pending, 1, memory_order_relaxed);
  if (q && ((q->properties & CL_QUEUE_PROFILING_ENABLE) || rt_trace_on)) {
    ev->t_queued = rt_now_ns();
    if (rt_trace_on)
      ev->trace_id = rt_trace_next_id();
  }
  /* Published last: the handle is valid from here on. */
  rt_object_init(&ev->obj, RT_EVENT);
  return ev;
}

cl_event rt_user_event_create(cl_context ctx, cl_int *err) {
  cl_event ev = event_alloc(ctx, NULL, CL_COMMAND_USER, CL_SUBMITTED);
  *err = ev ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
  return ev;
}

cl_event rt_command_create(cl_command_queue q, cl_command_type type,
                           cl_uint num_events, const cl_event *wait_list,
                           cl_int *err) {
  *err = rt_check_wait_list(q->context, num_events, wait_list);
  if (*err != CL_SUCCESS)
    return NULL;
  cl_event ev = event_alloc(q->context, q, type, CL_QUEUED);
  if (ev && num_events) {
    ev->waits = num_events <= RT_EVENT_INLINE_WAITS
                    ? ev->wait_inline
                    : malloc(sizeof *ev->waits * num_events);
    if (!ev->waits) {
      rt_event_release(ev);
      ev = NULL;
    }
  }
  if (!ev) {
    *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  for (cl_uint i = 0; i < num_events; i++) {
    rt_retain(wait_list[i]);
    ev->waits[ev->num_waits++] = wait_list[i];
  }
  return ev;
}

/* Drops the wait list's references and its heap array, if any. The list
 * is detached under ev's lock, as waiters copy it (rt_event_wait). */
static void drop_waits(cl_event ev) {
  /* Only this function clears the list, once: an empty list stays so. */
  if (!ev->num_waits)
    return;
  pthread_mutex_lock(&ev->lock);
  cl_event *waits = ev->waits;
  unsigned n = ev->num_waits;
  ev->waits = NULL;
  ev->num_waits = 0;
  pthread_mutex_unlock(&ev->lock);
  for (unsigned i = 0; i < n; i++)
    rt_event_release(waits[i]);
  if (waits != ev->wait_inline)
    free(waits);
}

/* Appends ev to dep's dependents; dep's lock held. False if the array
 * could not grow. */
static bool append_dependent(cl_event dep, cl_event ev) {
  if (dep->num_dependents == dep->cap_dependents) {
    unsigned cap = 2 * dep->cap_dependents;
    cl_event *grown = malloc(sizeof *grown * cap);
    if (!grown)
      return false;
    for (unsigned i = 0; i < dep->num_dependents; i++)
      grown[i] = dep->dependents[i];
    if (dep->dependents != dep->dep_inline)
      free(dep->dependents);
    dep->dependents = grown;
    dep->cap_dependents = cap;
  }
  dep->dependents[dep->num_dependents++] = ev;
  return true;
}

/* A dependent entry that only orders: an in-order queue's link from one
 * command to the next. The previous command's failure does not fail the
 * next one (what happens after a failed command is implementation-
 * defined; an application goes on using the queue, as the tests do):
 * without the mark it did exactly when the next command was enqueued
 * before the queue had let go of the failed one, a race. Events are
 * aligned, so the low bit of the pointer carries the mark. */
static cl_event order_mark(cl_event ev) {
  return (cl_event)((uintptr_t)ev | 1);
}
static bool is_order_only(cl_event entry) {
  return ((uintptr_t)entry & 1) != 0;
}
static cl_event unmarked(cl_event entry) {
  return (cl_event)((uintptr_t)entry & ~(uintptr_t)1);
}

/* Makes ev wait for dep (unless dep is already complete), failing when
 * dep fails unless order_only. Takes dep's lock (never ev's: no event
 * lock nests in another); the caller may hold the queue lock. */
static void add_dependency_as(cl_event ev, cl_event dep, bool order_only) {
  if (dep == ev)
    return;
  pthread_mutex_lock(&dep->lock);
  cl_int status = atomic_load_explicit(&dep->status, memory_order_relaxed);
  bool ok = true;
  if (status != CL_COMPLETE && status >= 0) {
    /* Counted before dep can see ev; ev's submission guard keeps the
     * count above zero meanwhile. */
    atomic_fetch_add(&ev->pending, 1);
    ok = append_dependent(dep, order_only ? order_mark(ev) : ev);
    if (ok)
      rt_retain(ev);
    else
      atomic_fetch_sub(&ev->pending, 1);
  }
  pthread_mutex_unlock(&dep->lock);
  /* Defensive (!ok): with no memory to record the dependency, fail the
   * command rather than run it out of order or block here with the
   * queue locked. */
  if ((status < 0 && !order_only) || !ok)
    atomic_store(&ev->dep_failed, true);
}

static void add_dependency(cl_event ev, cl_event dep) {
  add_dependency_as(ev, dep, false);
}

bool rt_event_is_done(cl_event ev) {
  return atomic_load_explicit(&ev->status, memory_order_acquire) <=
         CL_COMPLETE;
}

/* Links ev into its queue's order: in-order chaining, barriers, and the
 * wait-all of markers. Queue lock held. */
static void link_into_queue(cl_command_queue q, cl_event ev) {
  if (rt_queue_in_order(q)) {
    if (q->last) {
      add_dependency_as(ev, q->last, true);
      /* Never the last reference: until rt_queue_command_done drops
       * q->last, the command's ready path still holds it. */
      rt_event_release(q->last);
    }
    rt_retain(ev);
    q->last = ev;
  } else {
    if (q->barrier)
      add_dependency(ev, q->barrier);
    if (ev->wait_all && ev->num_waits == 0)
      for (cl_event e = q->live; e; e = e->live_next)
        add_dependency(ev, e);
    ev->live_prev = NULL;
    ev->live_next = q->live;
    if (q->live)
      q->live->live_prev = ev;
    q->live = ev;
    if (ev->blocks_later) {
      rt_retain(ev);
      if (q->barrier)
        rt_event_release(q->barrier);
      q->barrier = ev;
    }
  }
  atomic_fetch_add_explicit(&q->outstanding, 1, memory_order_relaxed);
}

/* Runs the callbacks whose trigger the status has reached. Not locked:
 * takes the event lock itself to pick them. */
static void fire_callbacks(cl_event ev, cl_int status) {
  for (;;) {
    rt_event_callback *cb = NULL;
    pthread_mutex_lock(&ev->lock);
    for (rt_event_callback *c = ev->callbacks; c; c = c->next)
      if (!c->fired && status <= c->trigger) {
        c->fired = true;
        cb = c;
        break;
      }
    pthread_mutex_unlock(&ev->lock);
    if (!cb)
      return;
    /* A callback for CL_COMPLETE of a failed command gets the error. */
    cb->fn(ev, status < 0 ? status : cb->trigger, cb->user_data);
  }
}

/* Called when dep finished with status: one fewer dependency for ev. */
static void dependency_done(cl_event ev, cl_int dep_status) {
  if (dep_status < 0)
    atomic_store(&ev->dep_failed, true);
  /* The thread that drops the count to zero sees every earlier store
   * (acq_rel on one atomic), and hands ev over. */
  if (atomic_fetch_sub(&ev->pending, 1) == 1)
    rt_executor_push(ev);
}

/* Records the timestamps of a status change; ev's lock held. Only
 * profiling queues report them, and the trace (SKEIN_TRACE) records
 * them: others skip the clock reads. */
static void stamp(cl_event ev, cl_int status) {
  if (!ev->queue || !((ev->queue->properties & CL_QUEUE_PROFILING_ENABLE) ||
                      rt_trace_on))
    return;
  cl_ulong now = rt_now_ns();
  if (status == CL_SUBMITTED)
    ev->t_submit = now;
  else if (status == CL_RUNNING)
    ev->t_start = now;
  if (status <= CL_COMPLETE) {
    ev->t_end = now;
    if (!ev->t_start)
      ev->t_start = now;
    if (!ev->t_submit)
      ev->t_submit = ev->t_start;
    if (rt_trace_on)
      rt_trace_command(ev, status);
  }
}

bool rt_event_set_status(cl_event ev, cl_int status) {
  pthread_mutex_lock(&ev->lock);
  if (rt_event_is_done(ev)) { /* already final */
    pthread_mutex_unlock(&ev->lock);
    return false;
  }
  stamp(ev, status);
  bool final = status <= CL_COMPLETE;
  /* Once final, nobody appends dependents (add_dependency checks the
   * status under this lock), so the array is ours to walk unlocked. */
  unsigned num_deps = final ? ev->num_dependents : 0;
  atomic_store_explicit(&ev->status, status, memory_order_release);
  if (final)
    pthread_cond_broadcast(&ev->done);
  pthread_mutex_unlock(&ev->lock);

  rt_retain(ev); /* callbacks may release the application's reference */
  fire_callbacks(ev, status);
  for (unsigned i = 0; i < num_deps; i++) {
    cl_event dep = unmarked(ev->dependents[i]);
    dependency_done(dep, is_order_only(ev->dependents[i]) && status < 0
                             ? CL_COMPLETE
                             : status);
    rt_event_release(dep);
  }
  if (final) {
    ev->num_dependents = 0;
    if (ev->queue)
      rt_queue_command_done(ev->queue, ev);
    atomic_store_explicit(&ev->retired, true, memory_order_release);
  }
  rt_event_release(ev);
  return true;
}

void rt_command_execute(cl_event ev) {
  /* The wait list was kept so that waiters could run it (rt_event_wait);
   * it is complete now. */
  drop_waits(ev);
  cl_int result;
  if (atomic_load(&ev->dep_failed)) {
    result = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  } else {
    rt_event_set_status(ev, CL_RUNNING);
    result = ev->run ? ev->run(ev) : CL_SUCCESS;
  }
  /* The payload goes before waiters can see the final status: a thread
   * returning from a wait may count the references the payload held. */
  if (ev->free_payload) {
    ev->free_payload(ev);
    ev->free_payload = NULL;
  }
  rt_event_set_status(ev, result == CL_SUCCESS ? CL_COMPLETE : result);
  rt_event_release(ev); /* the reference the ready path held */
}

cl_int rt_command_enqueue(cl_command_queue q, cl_command_type type,
                          rt_command_run_fn run, void *payload,
                          void (*hold)(void *payload),
                          rt_command_free_fn free_payload, bool blocking,
                          cl_uint num_events, const cl_event *wait_list,
                          cl_event *event) {
  cl_int err;
  cl_event ev = rt_command_create(q, type, num_events, wait_list, &err);
  if (!ev) {
    rt_payload_free(payload);
    return err;
  }
  if (hold)
    hold(payload);
  ev->run = run;
  ev->payload = payload;
  ev->free_payload = free_payload;
  return rt_command_submit(ev, blocking, event);
}

/* The calling thread's capture slot (rt_command_capture). */
static RT_TLS cl_event *capture_slot;

void rt_command_capture(cl_event *slot) { capture_slot = slot; }

cl_int rt_command_submit(cl_event ev, bool blocking, cl_event *event_out) {
  if (capture_slot) {
    /* Recorded into a command-buffer: kept whole (payload and creator
     * reference), neither linked into the queue nor run. One command
     * per capture: a second would be lost, so it fails (defensive). */
    if (*capture_slot) {
      rt_event_release(ev);
      return CL_OUT_OF_RESOURCES;
    }
    *capture_slot = ev;
    (void)blocking, (void)event_out;
    return CL_SUCCESS;
  }
  cl_command_queue q = ev->queue;
  pthread_mutex_lock(&q->lock);
  for (unsigned i = 0; i < ev->num_waits; i++)
    add_dependency(ev, ev->waits[i]);
  link_into_queue(q, ev);
  pthread_mutex_unlock(&q->lock);
  rt_event_set_status(ev, CL_SUBMITTED);
  if (event_out) {
    rt_retain(ev);
    *event_out = ev;
  }
  if (blocking)
    rt_retain(ev); /* kept until the end of this function */
  bool ready = atomic_fetch_sub(&ev->pending, 1) == 1;
  /* The creator's reference now belongs to the ready path, which drops
   * it after execution (rt_command_execute). */
  if (ready && blocking) {
    /* No thread hop for a blocking call; what its completion makes
     * ready is flushed at drain_end. */
    rt_executor_drain_begin();
    rt_command_execute(ev);
    rt_executor_drain_end();
  } else if (ready) {
    rt_executor_push(ev);
  }
  if (!blocking)
    return CL_SUCCESS;
  cl_int result = CL_SUCCESS;
  if (rt_event_wait(ev) < 0)
    result = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  rt_event_release(ev);
  return result;
}

/* Polls for up to RT_SPIN_NS until ev is done or a command was pushed
 * since push sequence seq (one the caller may take); true if either
 * happened. */
static bool spin_for(cl_event ev, unsigned seq) {
  cl_ulong deadline = rt_now_ns() + RT_SPIN_NS;
  for (;;) {
    for (int i = 0; i < 32; i++) {
      if (rt_event_is_done(ev) || rt_executor_push_seq() != seq)
        return true;
      rt_cpu_relax();
    }
    if (rt_now_ns() > deadline)
      return false;
  }
}

/* Copies (and retains) up to RT_EVENT_INLINE_WAITS of ev's wait list:
 * commands a waiter for ev may run itself. Returns how many. */
static unsigned copy_waits(cl_event ev, cl_event *out) {
  pthread_mutex_lock(&ev->lock);
  unsigned n = ev->num_waits < RT_EVENT_INLINE_WAITS ? ev->num_waits
                                                     : RT_EVENT_INLINE_WAITS;
  for (unsigned i = 0; i < n; i++) {
    out[i] = ev->waits[i];
    rt_retain(out[i]);
  }
  pthread_mutex_unlock(&ev->lock);
  return n;
}

cl_int rt_event_wait(cl_event ev) {
  if (!rt_event_is_done(ev)) {
    rt_executor_drain_begin();
    /* What ev waits for directly may run here too: a blocking read
     * after a kernel runs the kernel on this thread, whatever else the
     * queue holds. */
    cl_event deps[RT_EVENT_INLINE_WAITS];
    unsigned num_deps = copy_waits(ev, deps);
    while (!rt_event_is_done(ev)) {
      unsigned seq = rt_executor_push_seq();
      cl_event run = rt_executor_take(ev->queue, ev, deps, num_deps);
      if (run) {
        rt_command_execute(run);
        continue;
      }
      /* What is left in the ready list is someone else's to run. */
      rt_executor_flush();
      if (spin_for(ev, seq))
        continue; /* progress: look again */
      pthread_mutex_lock(&ev->lock);
      while (!rt_event_is_done(ev))
        pthread_cond_wait(&ev->done, &ev->lock);
      pthread_mutex_unlock(&ev->lock);
    }
    for (unsigned i = 0; i < num_deps; i++)
      rt_event_release(deps[i]);
    rt_executor_drain_end();
  }
  return atomic_load_explicit(&ev->status, memory_order_acquire);
}

void rt_event_release(cl_event ev) {
  if (!rt_release_last(ev))
    return;
  /* A command's payload is freed at completion; one that never ran
   * (released before submission) frees it here. */
  if (ev->free_payload)
    ev->free_payload(ev);
  drop_waits(ev);
  for (rt_event_callback *c = ev->callbacks, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  /* Dependents were handed over at completion; an event released before
   * it completed (a user event never set) still holds references. */
  for (unsigned i = 0; i < ev->num_dependents; i++)
    rt_event_release(unmarked(ev->dependents[i]));
  ev->num_dependents = 0;
  cl_command_queue q = ev->queue;
  cl_context ctx = ev->context;
  cache_put(ev);
  if (q)
    clReleaseCommandQueue(q);
  clReleaseContext(ctx);
}
