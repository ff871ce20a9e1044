/* This file declares command queues: in-order queues chain each command
 * to the previous one; out-of-order queues only honour wait lists,
 * markers and barriers. */
#ifndef SKEIN_RUNTIME_QUEUE_H
#define SKEIN_RUNTIME_QUEUE_H

#include "object.h"
#include <pthread.h>

struct _cl_command_queue {
  rt_object obj;
  cl_context context;                  /* retained */
  cl_device_id device;
  cl_command_queue_properties properties;
  cl_queue_properties *prop_list;      /* copy for CL_QUEUE_PROPERTIES_ARRAY */
  size_t num_props;                    /* entries incl. the 0; 0 if none */
  pthread_mutex_t lock;                /* guards the fields below */
  pthread_cond_t idle;                 /* broadcast when outstanding hits 0 */
  cl_event last;                       /* in order: newest command
                                          (retained), dropped when done */
  cl_event barrier;                    /* out of order: newest barrier
                                          (retained), dropped when done */
  cl_event live;                       /* out of order: incomplete commands,
                                          newest first, linked through
                                          live_prev/live_next (not
                                          retained: a command unlinks
                                          itself when it completes) */
  _Atomic unsigned outstanding;        /* submitted, not complete; written
                                          with the lock, polled without */
  /* cl_khr_priority_hints, cl_khr_throttle_hints (RT_LEVEL_*), fixed at
   * creation: the executor takes ready commands of higher-priority
   * queues first and does not spin after a low-throttle queue's command
   * (runtime/core/executor.c). */
  unsigned char priority;
  unsigned char throttle;
  /* On-device queues (type RT_DEVICE_QUEUE; runtime/core/device_queue.c): */
  cl_uint device_queue_size;           /* CL_QUEUE_SIZE in bytes */
  _Atomic unsigned dq_used;            /* child commands not yet run */
  /* The context's list of queues (context.h), under context->lock. */
  struct _cl_command_queue *ctx_prev, *ctx_next;
};

/* The levels of the priority and throttle hints: HIGH, MED, LOW. */
enum { RT_LEVEL_HIGH, RT_LEVEL_MED, RT_LEVEL_LOW, RT_NUM_LEVELS };

static inline bool rt_queue_in_order(cl_command_queue q) {
  return !(q->properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
}

/* Called by the engine when command ev of q completes (after its
 * callbacks): unlinks it and wakes clFinish when q is idle. */
void rt_queue_command_done(cl_command_queue q, cl_event ev);

#endif
