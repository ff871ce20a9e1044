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
  pthread_mutex_t lock;              /* guards callbacks and queues */
  rt_context_callback *destructors;  /* run last-registered first */
  /* The context's live queues (host and on-device), linked through
   * ctx_prev/ctx_next, not retained: a queue unlinks itself under lock
   * before it is freed. clMemBlockingFreeINTEL reads it to find the
   * commands enqueued before it (rt_usm_free); submits never touch it. */
  struct _cl_command_queue *queues;
};

/* True if device belongs to context. */
bool rt_context_has_device(cl_context ctx, cl_device_id device);

/* Links q into ctx->queues (at creation) and unlinks it (before it is
 * freed); api_queue.c. */
void rt_context_add_queue(cl_context ctx, struct _cl_command_queue *q);
void rt_context_remove_queue(cl_context ctx, struct _cl_command_queue *q);

/* Waits for every command enqueued on ctx's queues before the call to
 * complete; commands enqueued meanwhile are not waited for. Returns
 * CL_OUT_OF_HOST_MEMORY (having waited for nothing) if the list of
 * commands could not be made. runtime/api/api_queue.c. */
cl_int rt_context_wait_enqueued(cl_context ctx);

#endif
