/* This file declares events and the commands they stand for. Every
 * enqueued command is an event: it waits for its dependencies (its wait
 * list, plus the previous command of an in-order queue), then runs once on
 * the executor thread (runtime/executor.c) or inline in a blocking call,
 * then completes and releases the commands that wait for it. User events
 * are events with no command. */
#ifndef SKEIN_RUNTIME_EVENT_H
#define SKEIN_RUNTIME_EVENT_H

#include "object.h"
#include <pthread.h>

typedef struct rt_event_callback {
  void(CL_CALLBACK *fn)(cl_event, cl_int, void *);
  void *user_data;
  cl_int trigger;                    /* CL_SUBMITTED, CL_RUNNING, CL_COMPLETE */
  bool fired;
  struct rt_event_callback *next;
} rt_event_callback;

/* Runs the command; returns CL_SUCCESS or a negative error that becomes
 * the event's execution status. Called exactly once, without locks. */
typedef cl_int (*rt_command_run_fn)(cl_event ev);
/* Frees the payload (drop retained objects); called once, after run or
 * when the command is abandoned because a dependency failed. */
typedef void (*rt_command_free_fn)(cl_event ev);

struct _cl_event {
  rt_object obj;
  cl_context context;                /* retained */
  cl_command_queue queue;            /* retained; NULL for user events */
  cl_command_type command_type;
  pthread_mutex_t lock;              /* guards everything below */
  pthread_cond_t done;               /* broadcast when status <= CL_COMPLETE */
  cl_int status;                     /* CL_QUEUED .. CL_COMPLETE, or < 0 */
  cl_ulong t_queued, t_submit, t_start, t_end;
  rt_event_callback *callbacks;
  unsigned pending;                  /* dependencies not yet complete */
  bool dep_failed;                   /* a dependency ended in error */
  bool ready_pushed;                 /* handed to the executor or inline */
  cl_event *dependents;              /* events waiting for this one */
  unsigned num_dependents, cap_dependents;
  /* Set by rt_command_create, consumed by rt_command_submit. */
  cl_event *waits;                   /* retained wait list */
  unsigned num_waits;
  bool wait_all;                     /* marker/barrier with no wait list:
                                        waits for every earlier command */
  bool blocks_later;                 /* barrier: later commands wait for it */
  /* The command: set by the creator before rt_command_submit. */
  rt_command_run_fn run;
  rt_command_free_fn free_payload;
  void *payload;
  struct _cl_event *next_ready;      /* executor's ready list */
};

/* CL_INVALID_EVENT_WAIT_LIST / CL_INVALID_CONTEXT checks the spec names
 * for every enqueue: list and count agree, every event is valid and (if
 * ctx is not NULL) in ctx. */
cl_int rt_check_wait_list(cl_context ctx, cl_uint num_events,
                          const cl_event *wait_list);

/* Creates a user event (status CL_SUBMITTED, no queue) in ctx. */
cl_event rt_user_event_create(cl_context ctx, cl_int *err);

/* Creates a command on queue q (valid, checked by the caller) that depends
 * on the wait list (checked here: returns NULL with *err set to the spec's
 * error). The caller sets run/free_payload/payload, then submits. */
cl_event rt_command_create(cl_command_queue q, cl_command_type type,
                           cl_uint num_events, const cl_event *wait_list,
                           cl_int *err);

/* Submits a created command. If blocking, waits for it and returns
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST when it failed. If event_out
 * is not NULL it receives a reference to the event. The command's creator
 * reference is consumed. */
cl_int rt_command_submit(cl_event ev, bool blocking, cl_event *event_out);

/* True if ev has completed or failed (takes its lock). */
bool rt_event_is_done(cl_event ev);

/* Waits until ev completes (or fails); returns its final status. */
cl_int rt_event_wait(cl_event ev);

/* Sets an event's status (user events, and the engine itself): runs the
 * callbacks whose trigger was reached and, at completion or failure,
 * releases the dependents. */
void rt_event_set_status(cl_event ev, cl_int status);

/* Drops a reference; frees the event on the last one. */
void rt_event_release(cl_event ev);

/* Executes a ready command (status CL_SUBMITTED, no pending
 * dependencies): runs it and completes it. Used by the executor thread
 * and by blocking calls that run their command inline. */
void rt_command_execute(cl_event ev);

/* Hands a ready command to the executor thread (runtime/executor.c). */
void rt_executor_push(cl_event ev);

#endif
