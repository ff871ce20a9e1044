/* This file defines what every OpenCL object shares: the ICD dispatch
 * pointer (which must come first, the loader reads it), a type tag that
 * makes handle validation one generic check, and an atomic reference
 * count. Each object type embeds rt_object as its first member. */
#ifndef SKEIN_RUNTIME_OBJECT_H
#define SKEIN_RUNTIME_OBJECT_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#define CL_USE_DEPRECATED_OPENCL_2_1_APIS
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum rt_type {
  RT_PLATFORM = 0x5a1e0001,
  RT_DEVICE,
  RT_CONTEXT,
  RT_QUEUE,
  RT_EVENT,
  RT_MEM,
  RT_PROGRAM,
  RT_KERNEL,
  RT_SAMPLER,
  RT_DEVICE_QUEUE,      /* an on-device cl_command_queue (device_queue.h) */
  RT_COMMAND_BUFFER,    /* cl_command_buffer_khr (command_buffer.h) */
} rt_type;

typedef struct rt_object {
  const void *dispatch;      /* struct _cl_icd_dispatch *, first: ICD ABI */
  rt_type type;              /* RT_*; set to 0 when freed */
  atomic_uint refcount;      /* the application's references plus ours */
} rt_object;

/* The ICD dispatch table (icd/dispatch.c). */
extern const void *const rt_dispatch_table;

/* Initialises an object header with one reference. */
void rt_object_init(rt_object *obj, rt_type type);

/* True if handle is a live object of the given type. Defensive: handles
 * come from the application and may be NULL or stale. */
static inline bool rt_is(const void *handle, rt_type type) {
  return handle && ((const rt_object *)handle)->type == type;
}

/* Adds a reference. */
void rt_retain(void *handle);

/* Drops a reference; returns true if it was the last one (the caller
 * then destroys the object). */
bool rt_release_last(void *handle);

/* Reference count, for the *_REFERENCE_COUNT info queries. */
unsigned rt_refcount(const void *handle);

/* Thread-local storage of the runtime. libskein.so is dlopen'ed by the
 * ICD loader, so its TLS would be dynamic: glibc allocates a thread's
 * block on the thread's first access, and when that malloc fails it ends
 * the process ("cannot allocate memory for thread-local data", exit 127),
 * which a worker or application thread reaching Skein's TLS for the first
 * time with memory exhausted did. The initial-exec model puts the block
 * in the static TLS every thread gets when it is created (Skein's is a
 * few dozen bytes, well within glibc's reserve for dlopen'ed modules). */
#define RT_TLS _Thread_local __attribute__((tls_model("initial-exec")))

/* Debug channel: SKEIN_DEBUG=1 prints why an API call failed. */
void rt_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Returns err from the current function when cond holds, logging the
 * failed check on the debug channel. For API entry points. */
#define RT_RETURN_IF(cond, err)                                            \
  do {                                                                     \
    if (cond) {                                                            \
      rt_debug("%s: %s -> %s\n", __func__, #cond, #err);                   \
      return (err);                                                        \
    }                                                                      \
  } while (0)

/* Returns err unconditionally, logging it on the debug channel: the end
 * of a switch over query names, a feature Skein lacks. */
#define RT_FAIL(err)                                                       \
  do {                                                                     \
    rt_debug("%s: -> %s\n", __func__, #err);                               \
    return (err);                                                          \
  } while (0)

/* For entry points that return an object and report through errcode_ret:
 * stores err, logs, and returns NULL. */
#define RT_FAIL_IF(cond, err, errcode_ret)                                 \
  do {                                                                     \
    if (cond) {                                                            \
      rt_debug("%s: %s -> %s\n", __func__, #cond, #err);                   \
      if (errcode_ret)                                                     \
        *(errcode_ret) = (err);                                            \
      return NULL;                                                         \
    }                                                                      \
  } while (0)

#endif
