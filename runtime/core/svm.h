/* This file declares shared virtual memory: the allocations clSVMAlloc
 * makes and the registry that finds the allocation a pointer lies in.
 * The registry also holds cl_intel_unified_shared_memory's allocations
 * (runtime/core/usm.c), which are the same host memory under another
 * name, so one search answers for both.
 * Host and kernels share one address space, so an SVM pointer is an
 * ordinary host pointer and every capability (coarse and fine-grain
 * buffers, fine-grain system memory, atomics) comes with it; the
 * registry only answers which clSVMAlloc allocation, if any, holds a
 * pointer, for the checks the API makes and for CL_MEM_USES_SVM_POINTER. */
#ifndef SKEIN_RUNTIME_SVM_H
#define SKEIN_RUNTIME_SVM_H

#include "object.h"

/* Which entry point made an allocation. */
typedef enum rt_alloc_kind {
  RT_ALLOC_SVM,                /* clSVMAlloc */
  RT_ALLOC_USM_HOST,           /* clHostMemAllocINTEL */
  RT_ALLOC_USM_DEVICE,         /* clDeviceMemAllocINTEL */
  RT_ALLOC_USM_SHARED,         /* clSharedMemAllocINTEL */
} rt_alloc_kind;

/* What the registry knows of one allocation. */
typedef struct rt_svm_info {
  char *base;
  size_t size;                 /* as given to clSVMAlloc */
  cl_svm_mem_flags flags;      /* SVM: clSVMAlloc's flags; USM: the
                                  CL_MEM_ALLOC_FLAGS_INTEL property */
  cl_context context;          /* the context it was allocated in */
  rt_alloc_kind kind;
  cl_device_id device;         /* USM device and shared: the device it
                                  was made for (NULL: none) */
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

/* Allocates info->size bytes aligned to align (a power of two, checked
 * by the caller) and registers them with info's other fields; retains
 * info->context until freed. NULL when out of memory. */
void *rt_alloc_register(const rt_svm_info *info, size_t align);

/* Unregisters and frees the allocation that starts at ptr in ctx if it
 * is an SVM allocation (usm false) or a USM one (usm true); false
 * (doing nothing) if no such allocation of ctx starts there (a freed
 * pointer, another context's, a pointer inside an allocation, one of
 * the other family). */
bool rt_alloc_unregister(cl_context ctx, void *ptr, bool usm);

/* Unregisters and frees the clSVMAlloc allocation that starts at ptr in
 * ctx; false (doing nothing) if no SVM allocation of ctx starts there. */
bool rt_svm_free(cl_context ctx, void *ptr);

/* The allocation (of any context) that contains ptr: true and *info
 * filled in, or false. */
bool rt_svm_find(const void *ptr, rt_svm_info *info);

/* The SVM commands that USM shares (runtime/api/api_svm.c, where they
 * are described). rt_svm_range_ok: whether q may read or write
 * [ptr, ptr + size). rt_svm_enqueue_memcpy and rt_svm_enqueue_fill:
 * clEnqueueSVMMemcpy and clEnqueueSVMMemFill (every check and error code)
 * with the command type the event reports. */
bool rt_svm_range_ok(cl_command_queue q, const void *ptr, size_t size);
cl_int rt_svm_enqueue_memcpy(cl_command_queue q, cl_command_type type,
                             cl_bool blocking, void *dst, const void *src,
                             size_t size, cl_uint num_events,
                             const cl_event *wait_list, cl_event *event);
cl_int rt_svm_enqueue_fill(cl_command_queue q, cl_command_type type,
                           void *dst, const void *pattern,
                           size_t pattern_size, size_t size,
                           cl_uint num_events, const cl_event *wait_list,
                           cl_event *event);

#endif
