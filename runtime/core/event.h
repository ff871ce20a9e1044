/* This file declares events and the commands they stand for. Every
 * enqueued command is an event: it waits for its dependencies (its wait
 * list, plus the previous command of an in-order queue), then runs once on
 * an executor thread (runtime/core/executor.c) or on a thread waiting for it,
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

/* Dependents and wait-list entries kept inside the event, so the common
 * launch (an in-order chain, a short wait list) allocates nothing. */
#define RT_EVENT_INLINE_DEPS 4
#define RT_EVENT_INLINE_WAITS 4

struct _cl_event {
  rt_object obj;
  cl_context context;                /* retained */
  cl_command_queue queue;            /* retained; NULL for user events */
  cl_command_type command_type;
  pthread_mutex_t lock;              /* guards status changes, the
                                        callbacks and the dependents */
  pthread_cond_t done;               /* broadcast when status <= CL_COMPLETE */
  _Atomic cl_int status;             /* CL_QUEUED .. CL_COMPLETE, or < 0;
                                        written with the lock held, read
                                        without it by spinning waiters */
  cl_ulong t_queued, t_submit, t_start, t_end;
  uint64_t trace_id;                 /* SKEIN_TRACE: the command's id */
  char *trace_name;                  /* SKEIN_TRACE: the kernel's name
                                        (owned; freed when traced) */
  rt_event_callback *callbacks;
  _Atomic unsigned pending;          /* dependencies not yet complete
                                        (atomic: no lock nests in another
                                        event's) */
  _Atomic bool dep_failed;           /* a dependency ended in error */
  _Atomic bool retired;              /* final status, callbacks run and
                                        the queue told (clFinish waits
                                        for this) */
  cl_event *dependents;              /* events waiting for this one:
                                        dep_inline or a heap array (kept
                                        when the event is recycled) */
  unsigned num_dependents, cap_dependents;
  cl_event dep_inline[RT_EVENT_INLINE_DEPS];
  /* Set by rt_command_create; kept until the command runs (waiters may
   * run what it waits for); detached under the lock. */
  cl_event *waits;                   /* retained wait list: wait_inline or
                                        heap */
  unsigned num_waits;
  cl_event wait_inline[RT_EVENT_INLINE_WAITS];
  bool wait_all;                     /* marker/barrier with no wait list:
                                        waits for every earlier command */
  bool blocks_later;                 /* barrier: later commands wait for it */
  /* The command: set by the creator before rt_command_submit. */
  rt_command_run_fn run;
  rt_command_free_fn free_payload;
  void *payload;
  /* Links owned by others: the executor's ready list (executor_lock) or
   * the event cache's free list; an out-of-order queue's list of
   * incomplete commands (the queue's lock). */
  struct _cl_event *next_ready;
  struct _cl_event *live_prev, *live_next;
  /* How the command entered the ready list (executor_lock): pushed by an
   * application thread (not a draining one), and without a wake-up. */
  bool app_push, lazy_push;
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

/* rt_command_create and rt_command_submit for a command that runs run
 * (NULL: it only orders) with payload (from rt_payload_alloc), which it
 * takes over: on a bad wait list it frees it with rt_payload_free;
 * otherwise hold (if not NULL) is called with it once the command exists,
 * to retain what the payload names (free_payload releases that). */
cl_int rt_command_enqueue(cl_command_queue q, cl_command_type type,
                          rt_command_run_fn run, void *payload,
                          void (*hold)(void *payload),
                          rt_command_free_fn free_payload, bool blocking,
                          cl_uint num_events, const cl_event *wait_list,
                          cl_event *event);

/* Command capture (cl_khr_command_buffer, runtime/core/command_buffer.c):
 * while the calling thread has a slot (slot not NULL, *slot NULL),
 * rt_command_submit stores the command in *slot (with the creator's
 * reference) instead of submitting it, so a clEnqueue* call builds a
 * command, with all its checks, for a command-buffer to run later
 * through ev->run. NULL ends the capture. The enqueue must be
 * non-blocking, with no event and no wait list. */
void rt_command_capture(cl_event *slot);

/* True if ev has completed or failed (takes its lock). */
bool rt_event_is_done(cl_event ev);

/* Waits until ev completes (or fails); returns its final status. A
 * ready command the wait depends on (ev itself, or an earlier command of
 * ev's in-order queue) runs on the calling thread; otherwise the caller
 * spins briefly, then sleeps. */
cl_int rt_event_wait(cl_event ev);

/* Sets an event's status (user events, and the engine itself): runs the
 * callbacks whose trigger was reached and, at completion or failure,
 * releases the dependents. False, changing nothing, if the status was
 * already final. */
bool rt_event_set_status(cl_event ev, cl_int status);

/* Drops a reference; recycles the event on the last one. */
void rt_event_release(cl_event ev);

/* Executes a ready command (status CL_SUBMITTED, no pending
 * dependencies): runs it and completes it. Used by the executor threads
 * and by waiting threads that took the command with rt_executor_take. */
void rt_command_execute(cl_event ev);

/* Executor (runtime/core/executor.c). */

/* Hands a ready command (and the reference the ready path holds) to the
 * executor threads. Wakes one only when nobody is about to look at the
 * ready list: a spinning or napping executor, or a thread inside
 * rt_executor_drain_begin/end, takes it without a wake-up. */
void rt_executor_push(cl_event ev);

/* Removes and returns a ready command the caller may run itself: ev or
 * one of deps[0..num_deps) (what ev waits for) if ready, else (when ev is
 * NULL, or q is in order) the oldest ready command of queue q (q may be
 * NULL). NULL if there is none. The caller owns the ready path's
 * reference and must rt_command_execute the command. */
cl_event rt_executor_take(cl_command_queue q, cl_event ev,
                          const cl_event *deps, unsigned num_deps);

/* Makes sure an executor thread is awake for ready commands nobody has
 * taken: for clFlush, and before a thread sleeps or leaves a wait. */
void rt_executor_flush(void);

/* Marks the calling thread as one that keeps taking ready commands (a
 * thread in clFinish or clWaitForEvents): pushes it makes need no
 * wake-up. drain_end flushes what the thread left behind. Nest. */
void rt_executor_drain_begin(void);
void rt_executor_drain_end(void);

/* Counts rt_executor_push calls: a waiter polls it to see new ready
 * commands without taking a lock. */
unsigned rt_executor_push_seq(void);

/* How long a thread polls before it sleeps (waiters and executors): a
 * few microseconds, about what a futex wake-up of a sleeping thread
 * costs on a virtual machine. */
#define RT_SPIN_NS 10000

/* One pause instruction for spin loops. */
static inline void rt_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Command payload memory (runtime/core/cmd_cache.c): a small-object cache so
 * that launching a command does not call malloc once warm. Returns size
 * zeroed bytes aligned to 128, or NULL; release with rt_payload_free
 * (from any thread). */
void *rt_payload_alloc(size_t size);
void rt_payload_free(void *p);

#endif
