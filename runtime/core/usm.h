/* This file declares cl_intel_unified_shared_memory's allocations (host,
 * device and shared) and the names cl_ext_buffer_device_address adds.
 * On a CPU all three USM kinds are the same coherent host memory, so a
 * USM allocation is an entry of the SVM registry (runtime/core/svm.h)
 * with its kind, device and flags; this file adds what USM has beyond
 * SVM: its flags and capabilities, and the free that waits. */
#ifndef SKEIN_RUNTIME_USM_H
#define SKEIN_RUNTIME_USM_H

#include "object.h"
#include "svm.h"

/* cl_ext_buffer_device_address (OpenCL-Docs' xml/cl.xml, revision
 * 1.0.2): Debian's OpenCL headers 2023.02.06 predate it, newer ones
 * define the same names. */
#ifndef cl_ext_buffer_device_address
#define cl_ext_buffer_device_address 1
typedef cl_ulong cl_mem_device_address_ext;
#define CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT 0x5000
#define CL_MEM_DEVICE_ADDRESS_EXT 0x5001
#define CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT 0x5002
cl_int CL_API_CALL clSetKernelArgDevicePointerEXT(
    cl_kernel kernel, cl_uint arg_index, cl_mem_device_address_ext arg_value);
#endif

/* The CL_MEM_ALLOC_FLAGS_INTEL bits Skein accepts. All are hints that
 * change nothing on a CPU: write-combining is a property of device
 * memory seen over a bus, and the placement hints choose between host
 * and device memory, which are one here. */
#define RT_USM_ALLOC_FLAGS                                                 \
  (CL_MEM_ALLOC_WRITE_COMBINED_INTEL |                                     \
   CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL |                           \
   CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL)

/* The largest alignment a USM allocation may ask for, and the one 0
 * means: the size of the largest OpenCL C type (long16, double16), as
 * the extension says. */
#define RT_USM_MAX_ALIGN 128

/* The device's capabilities for every USM kind (host, device, single-
 * and cross-device shared, shared system): kernels run on the host's
 * threads in its address space, so every kind can be read and written,
 * its atomics are the CPU's, and the host (or another sub-device) may
 * touch it, atomically too, while a kernel runs. */
#define RT_USM_CAPABILITIES                                                \
  (CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL |                                 \
   CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL |                          \
   CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL |                      \
   CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ATOMIC_ACCESS_INTEL)

/* Allocates size bytes of kind (an RT_ALLOC_USM_* value) aligned to
 * align (a power of two up to RT_USM_MAX_ALIGN) in ctx for device (NULL
 * for host allocations and device-less shared ones), recording flags;
 * retains ctx until freed. Arguments are checked by the caller. NULL
 * when out of memory. */
void *rt_usm_alloc(cl_context ctx, rt_alloc_kind kind, cl_device_id device,
                   cl_mem_alloc_flags_intel flags, size_t size,
                   size_t align);

/* Frees the USM allocation of ctx that starts at ptr, first waiting, if
 * blocking is set, for every command enqueued on ctx's queues before
 * the call to complete (any of them may use ptr, directly or
 * indirectly). CL_INVALID_VALUE, having freed nothing, if no USM
 * allocation of ctx starts at ptr; CL_OUT_OF_HOST_MEMORY if the wait
 * could not be set up. */
cl_int rt_usm_free(cl_context ctx, void *ptr, bool blocking);

#endif
