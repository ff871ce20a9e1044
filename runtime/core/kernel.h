/* This file declares the kernel object: one kernel of a built program and
 * the argument values set on it so far. An enqueue snapshots the values
 * (rt_kernel_snapshot), so the application may change them right after. */
#ifndef SKEIN_RUNTIME_KERNEL_H
#define SKEIN_RUNTIME_KERNEL_H

#include "object.h"
#include "../../compiler/compiler.h"
#include <pthread.h>

typedef struct rt_kernel_arg {
  bool set;
  size_t size;             /* bytes given to clSetKernelArg (local: size) */
  cl_mem mem;              /* buffer arguments; NULL is a NULL pointer */
  void *value;             /* by-value arguments: malloc'd copy */
  bool is_svm;             /* a global/constant pointer argument set by
                              clSetKernelArgSVMPointer: svm is its value */
  void *svm;
} rt_kernel_arg;

struct _cl_kernel {
  rt_object obj;
  cl_program program;            /* retained; its cc_program outlives us */
  const cc_kernel_info *info;    /* owned by the program's cc_program */
  pthread_mutex_t lock;          /* guards args */
  rt_kernel_arg *args;           /* info->num_args entries */
};

/* Creates the kernel for info of program p (built, checked by the
 * caller). Retains p and counts the kernel as attached to it. NULL on
 * allocation failure. */
cl_kernel rt_kernel_create(cl_program p, const cc_kernel_info *info);

/* Creates a copy of k with the same argument values. NULL on allocation
 * failure. */
cl_kernel rt_kernel_clone(cl_kernel k);

/* Stores argument index's value (validated by the caller against its
 * cc_arg_info). For buffers, value is the cl_mem (or NULL); for __local
 * arguments only size counts. CL_OUT_OF_HOST_MEMORY or CL_SUCCESS. */
cl_int rt_kernel_set_arg(cl_kernel k, cl_uint index, size_t size,
                         const void *value, cl_mem mem);

/* Stores ptr (any host address: SVM, fine-grain system SVM or NULL) as
 * the value of global or constant pointer argument index (validated by
 * the caller). */
void rt_kernel_set_arg_svm(cl_kernel k, cl_uint index, void *ptr);

/* Bytes of __local memory the kernel needs per work-group with its
 * current arguments: static size rounded up to RT_LOCAL_ALIGN, then each
 * __local argument rounded up to RT_LOCAL_ALIGN; SIZE_MAX when the sum
 * overflows. */
size_t rt_kernel_local_mem(cl_kernel k);

/* Alignment of every __local block handed to kernels (and of the first
 * __local argument after the kernel's static __local variables). */
#define RT_LOCAL_ALIGN 128

/* The most private memory (CL_KERNEL_PRIVATE_MEM_SIZE) one work-item may
 * use: kernels run on threads' stacks (8 MiB for Skein's own threads);
 * more fails the enqueue with CL_OUT_OF_RESOURCES rather than overflow
 * one. */
#define RT_MAX_PRIVATE_MEM ((size_t)1 << 20)

/* Drops a reference; on the last, frees k and releases its program. */
void rt_kernel_release(cl_kernel k);

/* After a launch of bounds-checked kernel k (runtime/core/bounds_report.c): if
 * the launch noted an out-of-bounds access, prints which (kernel, access,
 * object, work-item, source line) on stderr and returns true. */
bool rt_bounds_report(cl_kernel k, const skein_launch *l);

#endif
