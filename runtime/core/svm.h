/* This file declares shared virtual memory: the allocations clSVMAlloc
 * makes and the registry that finds the allocation a pointer lies in.
 * Host and kernels share one address space, so an SVM pointer is an
 * ordinary host pointer and every capability (coarse and fine-grain
 * buffers, fine-grain system memory, atomics) comes with it; the
 * registry only answers which clSVMAlloc allocation, if any, holds a
 * pointer, for the checks the API makes and for CL_MEM_USES_SVM_POINTER. */
#ifndef SKEIN_RUNTIME_SVM_H
#define SKEIN_RUNTIME_SVM_H

#include "object.h"

/* What the registry knows of one allocation. */
typedef struct rt_svm_info {
  char *base;
  size_t size;                 /* as given to clSVMAlloc */
  cl_svm_mem_flags flags;
  cl_context context;          /* the context it was allocated in */
} rt_svm_info;

/* The flags clSVMAlloc takes. */
#define RT_SVM_FLAGS                                                       \
  (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY |              \
   CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS)

/* The largest alignment clSVMAlloc accepts (a page), and the one it uses
 * for alignment 0 (the largest OpenCL C type, long16). */
#define RT_SVM_MAX_ALIGN 4096
#define RT_SVM_DEFAULT_ALIGN 128

/* Allocates size bytes aligned to align (a power of two, checked by the
 * caller) in ctx and registers them; retains ctx until rt_svm_free.
 * NULL when out of memory. */
void *rt_svm_alloc(cl_context ctx, cl_svm_mem_flags flags, size_t size,
                   size_t align);

/* Unregisters and frees the allocation that starts at ptr in ctx; false
 * (doing nothing) if no allocation of ctx starts there (a freed pointer,
 * another context's, a pointer inside an allocation). */
bool rt_svm_free(cl_context ctx, void *ptr);

/* The allocation (of any context) that contains ptr: true and *info
 * filled in, or false. */
bool rt_svm_find(const void *ptr, rt_svm_info *info);

#endif
