/* This file contains the event graph: creating commands with their
 * dependencies, submitting them, status changes with callbacks, and
 * waking the commands that wait for a completed one.
 *
 * Lock rules: an event's lock guards its status, callbacks, pending count
 * and dependents. The queue lock may be held while taking an event lock
 * (at submit), never the other way round: completion drops the event lock
 * before it touches dependents or the queue. */
#include "event.h"
#include "context.h"
#include "queue.h"
#include "platform.h"
#include <stdlib.h>

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

/* Allocates an event with one reference and status, in context ctx. */
static cl_event event_alloc(cl_context ctx, cl_command_queue q,
                            cl_command_type type, cl_int status) {
  cl_event ev = calloc(1, sizeof *ev);
  if (!ev)
    return NULL;
  rt_object_init(&ev->obj, RT_EVENT);
  ev->context = ctx;
  rt_retain(ctx);
  ev->queue = q;
  if (q)
    rt_retain(q);
  ev->command_type = type;
  ev->status = status;
  ev->pending = 1; /* the submission guard, dropped by rt_command_submit */
  pthread_mutex_init(&ev->lock, NULL);
  pthread_cond_init(&ev->done, NULL);
  ev->t_queued = rt_now_ns();
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
    ev->waits = malloc(sizeof *ev->waits * num_events);
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

/* Makes ev wait for dep (unless dep is already complete). Takes dep's
 * lock; the caller may hold the queue lock. */
static void add_dependency(cl_event ev, cl_event dep) {
  if (dep == ev)
    return;
  pthread_mutex_lock(&dep->lock);
  if (dep->status < 0) {
    ev->dep_failed = true; /* written before ev is published: no race */
  } else if (dep->status != CL_COMPLETE) {
    if (dep->num_dependents == dep->cap_dependents) {
      unsigned cap = dep->cap_dependents ? 2 * dep->cap_dependents : 4;
      cl_event *grown = realloc(dep->dependents, sizeof *grown * cap);
      if (!grown) { /* defensive: keep going, ordering by waiting */
        pthread_mutex_unlock(&dep->lock);
        rt_event_wait(dep);
        return;
      }
      dep->dependents = grown;
      dep->cap_dependents = cap;
    }
    rt_retain(ev);
    dep->dependents[dep->num_dependents++] = ev;
    pthread_mutex_lock(&ev->lock);
    ev->pending++;
    pthread_mutex_unlock(&ev->lock);
  }
  pthread_mutex_unlock(&dep->lock);
}

bool rt_event_is_done(cl_event ev) {
  pthread_mutex_lock(&ev->lock);
  bool done = ev->status <= CL_COMPLETE;
  pthread_mutex_unlock(&ev->lock);
  return done;
}

/* Removes complete events from the queue's live list. Queue lock held. */
static void prune_live(cl_command_queue q) {
  unsigned kept = 0;
  for (unsigned i = 0; i < q->num_live; i++) {
    cl_event e = q->live[i];
    if (rt_event_is_done(e))
      rt_event_release(e);
    else
      q->live[kept++] = e;
  }
  q->num_live = kept;
}

/* Links ev into its queue's order: in-order chaining, barriers, and the
 * wait-all of markers. Queue lock held. Returns false on allocation
 * failure. */
static bool link_into_queue(cl_command_queue q, cl_event ev) {
  prune_live(q);
  if (rt_queue_in_order(q)) {
    if (q->last)
      add_dependency(ev, q->last);
  } else {
    if (q->barrier)
      add_dependency(ev, q->barrier);
    if (ev->wait_all && ev->num_waits == 0)
      for (unsigned i = 0; i < q->num_live; i++)
        add_dependency(ev, q->live[i]);
  }
  if (q->num_live == q->cap_live) {
    unsigned cap = q->cap_live ? 2 * q->cap_live : 16;
    cl_event *grown = realloc(q->live, sizeof *grown * cap);
    if (!grown)
      return false;
    q->live = grown;
    q->cap_live = cap;
  }
  rt_retain(ev);
  q->live[q->num_live++] = ev;
  rt_retain(ev);
  if (q->last)
    rt_event_release(q->last);
  q->last = ev;
  if (ev->blocks_later) {
    rt_retain(ev);
    if (q->barrier)
      rt_event_release(q->barrier);
    q->barrier = ev;
  }
  q->outstanding++;
  return true;
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
  pthread_mutex_lock(&ev->lock);
  if (dep_status < 0)
    ev->dep_failed = true;
  bool ready = --ev->pending == 0;
  pthread_mutex_unlock(&ev->lock);
  if (ready)
    rt_executor_push(ev);
}

void rt_event_set_status(cl_event ev, cl_int status) {
  pthread_mutex_lock(&ev->lock);
  if (ev->status <= CL_COMPLETE) { /* already final */
    pthread_mutex_unlock(&ev->lock);
    return;
  }
  ev->status = status;
  cl_ulong now = rt_now_ns();
  if (status == CL_SUBMITTED)
    ev->t_submit = now;
  else if (status == CL_RUNNING)
    ev->t_start = now;
  bool final = status <= CL_COMPLETE;
  cl_event *deps = NULL;
  unsigned num_deps = 0;
  if (final) {
    ev->t_end = now;
    if (!ev->t_start)
      ev->t_start = now;
    if (!ev->t_submit)
      ev->t_submit = ev->t_start;
    deps = ev->dependents;
    num_deps = ev->num_dependents;
    ev->dependents = NULL;
    ev->num_dependents = ev->cap_dependents = 0;
  }
  pthread_mutex_unlock(&ev->lock);

  if (final && ev->free_payload) {
    ev->free_payload(ev);
    ev->free_payload = NULL;
  }
  rt_retain(ev); /* callbacks may release the application's reference */
  if (final) {
    pthread_mutex_lock(&ev->lock);
    pthread_cond_broadcast(&ev->done);
    pthread_mutex_unlock(&ev->lock);
  }
  fire_callbacks(ev, status);
  for (unsigned i = 0; i < num_deps; i++) {
    dependency_done(deps[i], status);
    rt_event_release(deps[i]);
  }
  free(deps);
  if (final && ev->queue)
    rt_queue_command_done(ev->queue);
  rt_event_release(ev);
}

void rt_command_execute(cl_event ev) {
  cl_int result;
  if (ev->dep_failed) {
    result = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  } else {
    rt_event_set_status(ev, CL_RUNNING);
    result = ev->run ? ev->run(ev) : CL_SUCCESS;
  }
  rt_event_set_status(ev, result == CL_SUCCESS ? CL_COMPLETE : result);
  rt_event_release(ev); /* the reference the ready path held */
}

cl_int rt_command_submit(cl_event ev, bool blocking, cl_event *event_out) {
  cl_command_queue q = ev->queue;
  pthread_mutex_lock(&q->lock);
  for (unsigned i = 0; i < ev->num_waits; i++)
    add_dependency(ev, ev->waits[i]);
  bool linked = link_into_queue(q, ev);
  pthread_mutex_unlock(&q->lock);
  for (unsigned i = 0; i < ev->num_waits; i++)
    rt_event_release(ev->waits[i]);
  free(ev->waits);
  ev->waits = NULL;
  ev->num_waits = 0;
  if (!linked) { /* defensive: allocation failure */
    rt_event_set_status(ev, CL_OUT_OF_HOST_MEMORY);
    rt_event_release(ev);
    return CL_OUT_OF_HOST_MEMORY;
  }
  rt_event_set_status(ev, CL_SUBMITTED);
  if (event_out) {
    rt_retain(ev);
    *event_out = ev;
  }
  rt_retain(ev); /* kept until the end of this function */
  pthread_mutex_lock(&ev->lock);
  bool ready = --ev->pending == 0;
  pthread_mutex_unlock(&ev->lock);
  /* The creator's reference now belongs to the ready path, which drops
   * it after execution (rt_command_execute). */
  if (ready) {
    if (blocking)
      rt_command_execute(ev); /* no thread hop for a blocking call */
    else
      rt_executor_push(ev);
  }
  cl_int result = CL_SUCCESS;
  if (blocking && rt_event_wait(ev) < 0)
    result = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  rt_event_release(ev);
  return result;
}

cl_int rt_event_wait(cl_event ev) {
  pthread_mutex_lock(&ev->lock);
  while (ev->status > CL_COMPLETE)
    pthread_cond_wait(&ev->done, &ev->lock);
  cl_int status = ev->status;
  pthread_mutex_unlock(&ev->lock);
  return status;
}

void rt_event_release(cl_event ev) {
  if (!rt_release_last(ev))
    return;
  /* A command's payload is freed at completion; one that never ran
   * (released before submission) frees it here. */
  if (ev->free_payload)
    ev->free_payload(ev);
  for (unsigned i = 0; i < ev->num_waits; i++)
    rt_event_release(ev->waits[i]);
  free(ev->waits);
  for (rt_event_callback *c = ev->callbacks, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  free(ev->dependents);
  pthread_mutex_destroy(&ev->lock);
  pthread_cond_destroy(&ev->done);
  if (ev->queue)
    clReleaseCommandQueue(ev->queue);
  clReleaseContext(ev->context);
  free(ev);
}
