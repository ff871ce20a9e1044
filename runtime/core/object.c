/* This file contains the object header operations shared by every OpenCL
 * object type, the info-query helper and the debug channel. */
#include "object.h"
#include "info.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void rt_object_init(rt_object *obj, rt_type type) {
  obj->dispatch = rt_dispatch_table;
  obj->type = type;
  atomic_init(&obj->refcount, 1);
}

void rt_retain(void *handle) {
  atomic_fetch_add_explicit(&((rt_object *)handle)->refcount, 1,
                            memory_order_relaxed);
}

bool rt_release_last(void *handle) {
  rt_object *obj = handle;
  if (atomic_fetch_sub_explicit(&obj->refcount, 1, memory_order_acq_rel) == 1) {
    obj->type = 0; /* later use of a stale handle fails validation */
    return true;
  }
  return false;
}

unsigned rt_refcount(const void *handle) {
  return atomic_load(&((rt_object *)handle)->refcount);
}

void rt_debug(const char *fmt, ...) {
  static _Atomic int enabled = -1; /* racing first calls agree */
  if (atomic_load_explicit(&enabled, memory_order_relaxed) < 0) {
    const char *e = getenv("SKEIN_DEBUG");
    atomic_store_explicit(&enabled, e && *e && *e != '0',
                          memory_order_relaxed);
  }
  if (!enabled)
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs("skein: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
}

cl_int rt_info(size_t param_value_size, void *param_value,
               size_t *param_value_size_ret, const void *value, size_t size) {
  /* CL_INVALID_VALUE if the size in bytes specified by param_value_size is
   * < size of return type and param_value is not NULL. */
  if (param_value && param_value_size < size)
    return CL_INVALID_VALUE;
  if (param_value && size)
    memcpy(param_value, value, size);
  if (param_value_size_ret)
    *param_value_size_ret = size;
  return CL_SUCCESS;
}
