/* This file declares the error table of tests/test-api-errors.c: one row
 * per (entry point, error condition the OpenCL 3.0 API specification
 * lists), the fixture every row's call runs against, and the output
 * sentinels the harness checks after a failed call. The rows live in
 * api_errors_objects.c (platform ... kernels) and api_errors_commands.c
 * (enqueues, events, and the entry points icd/missing.c answers). */
#ifndef SKEIN_TEST_API_ERRORS_H
#define SKEIN_TEST_API_ERRORS_H

/* Rows call deprecated entry points too: they must still answer. */
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS
#include "test_util.h"
#include <stdint.h>

/* What a row's call may write is pre-filled with these patterns; a failed
 * call must leave them as they were. */
#define SENTINEL_BYTE 0xa5
#define SENTINEL_SIZE ((size_t)0xa5a5a5a5a5a5a5a5ull)
#define SENTINEL_UINT ((cl_uint)0xa5a5a5a5u)
#define SENTINEL_PTR ((void *)(uintptr_t)0xa5a5a5a5a5a5a5a5ull)

typedef struct fixture {
  test_env env;                 /* context, in-order profiling queue */
  cl_command_queue plain_queue; /* no profiling */
  cl_context other_ctx;         /* objects of the wrong context */
  cl_command_queue other_queue;
  cl_mem other_buf;
  cl_event other_ev;           /* a completed user event of other_ctx */
  cl_mem buf, buf_b;           /* BUF_SIZE bytes, read-write */
  cl_mem sub_a, sub_b;         /* sub-buffers of buf: [128, 384), [256, 512) */
  cl_mem kernel_ro, kernel_wo; /* CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY */
  cl_mem host_ro, host_wo, host_none; /* CL_MEM_HOST_* */
  cl_program built;          /* built: kernels "args", "reqd4", "plain" */
  cl_program unbuilt;        /* created from source, never built */
  cl_program build_failed;   /* a build that failed */
  cl_program compiled;       /* clCompileProgram's object */
  cl_program linked;         /* made by clLinkProgram */
  cl_program uniform;        /* -cl-std=CL3.0 -cl-uniform-work-group-size */
  cl_program arg_info;       /* -cl-kernel-arg-info */
  cl_program other_header;   /* a header program of other_ctx */
  cl_program other_compiled; /* a compiled object of other_ctx */
  cl_kernel k_args;          /* args(global int *, local int *, int), set */
  cl_kernel k_unset;         /* args(...), no argument set */
  cl_kernel k_reqd;          /* reqd_work_group_size(4, 1, 1), set */
  cl_kernel k_uniform;       /* of program uniform, set */
  cl_kernel k_info;          /* of program arg_info */
  cl_event user_ev;          /* a user event, never set until teardown */
  cl_event done_ev;          /* a completed marker of env.queue */
  cl_event failed_ev;        /* a user event set to -1 */
  unsigned char *binary;     /* the built program's binary */
  size_t binary_size;
  /* The outputs the rows pass, reset before each row. */
  unsigned char out[256];
  size_t size_ret;
  cl_uint num_ret;
  cl_event ev_out;
  void *ret; /* what a create call returned */
} fixture;

#define BUF_SIZE 1024

/* A row returns this instead of a CL error code when the row itself
 * failed to set up (positive: never an OpenCL error code). */
#define ROW_SETUP_FAILED 1

/* One condition of the specification for one entry point. */
typedef struct error_row {
  const char *entry;          /* the entry point */
  const char *condition;      /* the spec's condition, abridged */
  cl_int (*call)(fixture *f); /* performs the call, returns its code */
  cl_int expected;
  /* A second code the specification also allows here (two of its
   * conditions hold at once), or 1 for none (ROW_SETUP_FAILED, which the
   * harness never accepts). */
  cl_int also;
  /* True where a failed call still creates something by design (a failed
   * link returns its program, a blocking command whose wait list failed
   * was enqueued): ret and ev_out are then not checked. */
  int creates;
} error_row;

#define ROW(entry, condition, call, expected)                                  \
  { entry, condition, call, expected, 1, 0 }
#define ROW2(entry, condition, call, expected, also)                           \
  { entry, condition, call, expected, also, 0 }
#define ROW_CREATES(entry, condition, call, expected)                          \
  { entry, condition, call, expected, 1, 1 }

extern const error_row object_rows[];
extern const size_t num_object_rows;
extern const error_row command_rows[];
extern const size_t num_command_rows;

/* Records what a create call returned in f->ret and releases it (a
 * correct call returns NULL on failure; a wrong one must not leak).
 * Returns *err, read after the call (argument evaluation order is
 * unspecified, so the code is passed by address). */
cl_int ret_mem(fixture *f, cl_mem m, const cl_int *err);
cl_int ret_context(fixture *f, cl_context c, const cl_int *err);
cl_int ret_queue(fixture *f, cl_command_queue q, const cl_int *err);
cl_int ret_program(fixture *f, cl_program p, const cl_int *err);
cl_int ret_kernel(fixture *f, cl_kernel k, const cl_int *err);
cl_int ret_event(fixture *f, cl_event e, const cl_int *err);
cl_int ret_sampler(fixture *f, cl_sampler s, const cl_int *err);
cl_int ret_pointer(fixture *f, void *p, const cl_int *err);

/* A handle of the wrong kind: a live Skein object, so the ICD loader
 * dispatches the call to Skein, which must reject it. */
#define WRONG(type, f) ((type)(f)->env.context)
#define WRONG_CONTEXT(f) ((cl_context)(f)->env.queue)

/* A callback that must never run (for pfn_notify arguments). */
void CL_CALLBACK never_called_event(cl_event e, cl_int status, void *data);
void CL_CALLBACK never_called_program(cl_program p, void *data);
void CL_CALLBACK never_called_mem(cl_mem m, void *data);
void CL_CALLBACK never_called_context(cl_context c, void *data);

#endif
