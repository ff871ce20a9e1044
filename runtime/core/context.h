/* This file declares the context object: the device it holds, the
 * properties it was made with and its destructor callbacks. */
#ifndef SKEIN_RUNTIME_CONTEXT_H
#define SKEIN_RUNTIME_CONTEXT_H

#include "object.h"
#include <pthread.h>

typedef struct rt_context_callback {
  void(CL_CALLBACK *fn)(cl_context, void *);
  void *user_data;
  struct rt_context_callback *next;
} rt_context_callback;

struct _cl_context {
  rt_object obj;
  cl_device_id device;               /* devices[0]: the root device or
                                        a sub-device, all with the same
                                        ISA and limits */
  cl_uint num_devices;               /* entries of devices, >= 1 */
  cl_device_id *devices;             /* distinct; sub-devices retained */
  cl_context_properties *properties; /* copy, zero-terminated, or NULL */
  size_t num_properties;             /* entries incl. the 0, 0 if none */
  void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *);
  void *notify_data;
  pthread_mutex_t lock;              /* guards callbacks */
  rt_context_callback *destructors;  /* run last-registered first */
  /* Commands submitted on the context's queues and not complete, for
   * clMemBlockingFreeINTEL (rt_context_wait_idle): changed without a
   * lock, and idle is broadcast under lock when it drops to 0. */
  _Atomic unsigned commands;
  pthread_cond_t idle;
};

/* True if device belongs to context. */
bool rt_context_has_device(cl_context ctx, cl_device_id device);

/* Counts a command submitted on a queue of ctx (runtime/core/event.c). */
static inline void rt_context_command_begin(cl_context ctx) {
  atomic_fetch_add_explicit(&ctx->commands, 1, memory_order_relaxed);
}

/* Counts one of them complete (runtime/api/api_queue.c); wakes
 * rt_context_wait_idle when none is left. Called without ctx->lock. */
static inline void rt_context_command_done(cl_context ctx) {
  if (atomic_fetch_sub_explicit(&ctx->commands, 1, memory_order_release) ==
      1) {
    pthread_mutex_lock(&ctx->lock);
    pthread_cond_broadcast(&ctx->idle);
    pthread_mutex_unlock(&ctx->lock);
  }
}

/* Waits until every command submitted on ctx's queues so far (and any
 * submitted meanwhile) has completed. */
static inline void rt_context_wait_idle(cl_context ctx) {
  pthread_mutex_lock(&ctx->lock);
  while (atomic_load_explicit(&ctx->commands, memory_order_acquire))
    pthread_cond_wait(&ctx->idle, &ctx->lock);
  pthread_mutex_unlock(&ctx->lock);
}

#endif
