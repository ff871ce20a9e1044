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
  cl_device_id device;               /* Skein has one device */
  cl_uint num_devices;               /* 1 */
  cl_context_properties *properties; /* copy, zero-terminated, or NULL */
  size_t num_properties;             /* entries incl. the 0, 0 if none */
  void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *);
  void *notify_data;
  pthread_mutex_t lock;              /* guards callbacks */
  rt_context_callback *destructors;  /* run last-registered first */
};

/* True if device belongs to context. */
bool rt_context_has_device(cl_context ctx, cl_device_id device);

#endif
