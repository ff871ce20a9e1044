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
  cl_event last;                       /* newest command (retained) */
  cl_event barrier;                    /* newest barrier (retained) */
  cl_event *live;                      /* submitted, maybe not complete:
                                          what a wait-all marker waits for
                                          (retained; pruned on submit) */
  unsigned num_live, cap_live;
  unsigned outstanding;                /* submitted, not complete */
};

static inline bool rt_queue_in_order(cl_command_queue q) {
  return !(q->properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
}

/* Called by the engine when a command of q completes. */
void rt_queue_command_done(cl_command_queue q);

#endif
