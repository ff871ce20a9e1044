/* This file contains cl_intel_unified_shared_memory's entry points
 * (revision 1.2.0): the host, device and shared allocations, their free
 * and info query, and the memory commands (fill, memset, memcpy,
 * migrate, advise). USM is host memory on a CPU: the allocations live in
 * the SVM registry (runtime/core/usm.c), fill and memcpy are the SVM
 * commands under USM's command types, and migrate and advise only
 * order. The kernel-argument and exec-info parts are in api_kernel.c,
 * the device queries in api_device.c. */
#include "../core/context.h"
#include "../core/event.h"
#include "../core/info.h"
#include "../core/platform.h"
#include "../core/queue.h"
#include "../core/usm.h"
#include <string.h>

/* Reads properties (NULL or a 0-terminated list of name, value pairs)
 * into *flags for an allocation of kind; CL_INVALID_PROPERTY if a name
 * is unknown or repeated, or its value is not valid for kind. */
static cl_int read_properties(const cl_mem_properties_intel *properties,
                              rt_alloc_kind kind,
                              cl_mem_alloc_flags_intel *flags) {
  *flags = 0;
  bool seen_flags = false;
  for (const cl_mem_properties_intel *p = properties; p && p[0]; p += 2) {
    /* CL_INVALID_PROPERTY if a memory property name in properties is not
     * a supported property name (CL_MEM_ALLOC_BUFFER_LOCATION_INTEL
     * belongs to cl_intel_mem_alloc_buffer_location, which Skein lacks),
     * or if the same property name is specified more than once. */
    RT_RETURN_IF(p[0] != CL_MEM_ALLOC_FLAGS_INTEL || seen_flags,
                 CL_INVALID_PROPERTY);
    seen_flags = true;
    /* ... if the value specified for a supported property name is not
     * valid. */
    RT_RETURN_IF(p[1] & ~(cl_mem_properties_intel)RT_USM_ALLOC_FLAGS,
                 CL_INVALID_PROPERTY);
    const cl_mem_alloc_flags_intel placement =
        CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL |
        CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL;
    /* Host and device allocations: CL_INVALID_PROPERTY if either
     * placement flag is specified. Shared: if both are. */
    RT_RETURN_IF(kind != RT_ALLOC_USM_SHARED && (p[1] & placement),
                 CL_INVALID_PROPERTY);
    RT_RETURN_IF((p[1] & placement) == placement, CL_INVALID_PROPERTY);
    *flags = p[1];
  }
  return CL_SUCCESS;
}

/* The three allocation entry points. device is NULL for host
 * allocations (need_device false) and may be for shared ones. */
static void *usm_alloc(cl_context context, rt_alloc_kind kind,
                       cl_device_id device, bool need_device,
                       const cl_mem_properties_intel *properties,
                       size_t size, cl_uint alignment, cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context is not a valid context. */
  RT_FAIL_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT, errcode_ret);
  /* CL_INVALID_DEVICE if device is not a valid device or is not
   * associated with context (shared: if it is not NULL and ...). */
  RT_FAIL_IF((need_device || device) &&
                 (!rt_is(device, RT_DEVICE) ||
                  !rt_context_has_device(context, device)),
             CL_INVALID_DEVICE, errcode_ret);
  /* CL_INVALID_OPERATION if the device (or every device in context)
   * does not support allocations of this kind: never, every capability
   * query is non-zero. CL_INVALID_VALUE if alignment is not zero or a
   * power of two, or is greater than the size of the largest data type
   * supported by the device. */
  RT_FAIL_IF((alignment & (alignment - 1)) || alignment > RT_USM_MAX_ALIGN,
             CL_INVALID_VALUE, errcode_ret);
  cl_mem_alloc_flags_intel flags;
  cl_int err = read_properties(properties, kind, &flags);
  RT_FAIL_IF(err != CL_SUCCESS, err, errcode_ret);
  /* CL_INVALID_BUFFER_SIZE if size is zero or greater than
   * CL_DEVICE_MAX_MEM_ALLOC_SIZE (sub-devices share the device's). */
  RT_FAIL_IF(size == 0 || size > rt_device()->max_mem_alloc_size,
             CL_INVALID_BUFFER_SIZE, errcode_ret);
  void *p = rt_usm_alloc(context, kind, device, flags, size,
                         alignment ? alignment : RT_USM_MAX_ALIGN);
  RT_FAIL_IF(!p, CL_OUT_OF_HOST_MEMORY, errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return p;
}

void *CL_API_CALL clHostMemAllocINTEL(
    cl_context context, const cl_mem_properties_intel *properties,
    size_t size, cl_uint alignment, cl_int *errcode_ret) {
  return usm_alloc(context, RT_ALLOC_USM_HOST, NULL, false, properties, size,
                   alignment, errcode_ret);
}

void *CL_API_CALL clDeviceMemAllocINTEL(
    cl_context context, cl_device_id device,
    const cl_mem_properties_intel *properties, size_t size,
    cl_uint alignment, cl_int *errcode_ret) {
  return usm_alloc(context, RT_ALLOC_USM_DEVICE, device, true, properties,
                   size, alignment, errcode_ret);
}

void *CL_API_CALL clSharedMemAllocINTEL(
    cl_context context, cl_device_id device,
    const cl_mem_properties_intel *properties, size_t size,
    cl_uint alignment, cl_int *errcode_ret) {
  return usm_alloc(context, RT_ALLOC_USM_SHARED, device, false, properties,
                   size, alignment, errcode_ret);
}

/* clMemFreeINTEL and clMemBlockingFreeINTEL. */
static cl_int usm_free(cl_context context, void *ptr, bool blocking) {
  /* CL_INVALID_CONTEXT if context is not a valid context. */
  RT_RETURN_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT);
  /* If ptr is NULL then no action occurs. */
  if (!ptr)
    return CL_SUCCESS;
  /* CL_INVALID_VALUE if ptr is not a value returned by
   * clHostMemAllocINTEL, clDeviceMemAllocINTEL or clSharedMemAllocINTEL
   * (for this context: one of another context's, a freed pointer, a
   * pointer inside an allocation or an SVM pointer is none). */
  cl_int err = rt_usm_free(context, ptr, blocking);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clMemFreeINTEL(cl_context context, void *ptr) {
  return usm_free(context, ptr, false);
}

cl_int CL_API_CALL clMemBlockingFreeINTEL(cl_context context, void *ptr) {
  return usm_free(context, ptr, true);
}

cl_int CL_API_CALL clGetMemAllocInfoINTEL(cl_context context,
                                          const void *ptr,
                                          cl_mem_info_intel param_name,
                                          size_t param_value_size,
                                          void *param_value,
                                          size_t *param_value_size_ret) {
  /* CL_INVALID_CONTEXT if context is not a valid context. */
  RT_RETURN_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT);
  /* ptr need not be the start of an allocation. One outside every USM
   * allocation of context (NULL, malloc's, an SVM allocation, another
   * context's, a freed one) is of CL_MEM_TYPE_UNKNOWN_INTEL, with a NULL
   * base and device and a size and flags of 0. */
  rt_svm_info info;
  bool known = ptr && rt_svm_find(ptr, &info) && info.context == context &&
               info.kind != RT_ALLOC_SVM;
  if (!known)
    memset(&info, 0, sizeof info);
  switch (param_name) {
  case CL_MEM_ALLOC_TYPE_INTEL: {
    cl_unified_shared_memory_type_intel type = CL_MEM_TYPE_UNKNOWN_INTEL;
    if (known)
      type = info.kind == RT_ALLOC_USM_HOST     ? CL_MEM_TYPE_HOST_INTEL
             : info.kind == RT_ALLOC_USM_DEVICE ? CL_MEM_TYPE_DEVICE_INTEL
                                                : CL_MEM_TYPE_SHARED_INTEL;
    RT_INFO_VALUE(cl_unified_shared_memory_type_intel, type);
  }
  case CL_MEM_ALLOC_BASE_PTR_INTEL:
    RT_INFO_VALUE(void *, info.base);
  case CL_MEM_ALLOC_SIZE_INTEL:
    RT_INFO_VALUE(size_t, info.size);
  case CL_MEM_ALLOC_DEVICE_INTEL:
    RT_INFO_VALUE(cl_device_id, info.device);
  case CL_MEM_ALLOC_FLAGS_INTEL:
    RT_INFO_VALUE(cl_mem_alloc_flags_intel, info.flags);
  default:
    /* CL_INVALID_VALUE if param_name is not a valid Unified Shared
     * Memory allocation query. */
    RT_FAIL(CL_INVALID_VALUE);
  }
}

cl_int CL_API_CALL clEnqueueMemFillINTEL(cl_command_queue command_queue,
                                         void *dst_ptr, const void *pattern,
                                         size_t pattern_size, size_t size,
                                         cl_uint num_events_in_wait_list,
                                         const cl_event *event_wait_list,
                                         cl_event *event) {
  /* The errors are clEnqueueSVMMemFill's: NULL dst_ptr or pattern, a
   * pattern_size that is not a power of two up to 128 (the largest
   * vector type, long16), dst_ptr not aligned to it, size not a multiple
   * of it; a range that starts in a USM allocation must lie in one of
   * the queue's context (CL_INVALID_VALUE: the specification leaves it
   * open, and the memory past an allocation's end is not its). */
  return rt_svm_enqueue_fill(command_queue, CL_COMMAND_MEMFILL_INTEL,
                             dst_ptr, pattern, pattern_size, size,
                             num_events_in_wait_list, event_wait_list,
                             event);
}

cl_int CL_API_CALL clEnqueueMemsetINTEL(cl_command_queue command_queue,
                                        void *dst_ptr, cl_int value,
                                        size_t size,
                                        cl_uint num_events_in_wait_list,
                                        const cl_event *event_wait_list,
                                        cl_event *event) {
  /* Deprecated for clEnqueueMemFillINTEL: a fill with the one-byte
   * pattern value converted to unsigned char, as memset does. */
  unsigned char byte = (unsigned char)value;
  return rt_svm_enqueue_fill(command_queue, CL_COMMAND_MEMFILL_INTEL,
                             dst_ptr, &byte, 1, size,
                             num_events_in_wait_list, event_wait_list,
                             event);
}

cl_int CL_API_CALL clEnqueueMemcpyINTEL(cl_command_queue command_queue,
                                        cl_bool blocking, void *dst_ptr,
                                        const void *src_ptr, size_t size,
                                        cl_uint num_events_in_wait_list,
                                        const cl_event *event_wait_list,
                                        cl_event *event) {
  /* clEnqueueSVMMemcpy's errors: CL_INVALID_VALUE for a NULL pointer,
   * CL_MEM_COPY_OVERLAP for overlapping ranges, CL_INVALID_VALUE for a
   * range in another context's allocation or past the end of one. Any
   * other host memory may be copied to or from. */
  return rt_svm_enqueue_memcpy(command_queue, CL_COMMAND_MEMCPY_INTEL,
                               blocking, dst_ptr, src_ptr, size,
                               num_events_in_wait_list, event_wait_list,
                               event);
}

/* The checks migrate and advise share: ptr must not be NULL, and a range
 * that starts in an allocation must lie in one of q's context. The
 * specification leaves which ptr and size are invalid open (its issue
 * list); these are the ones no implementation could act on. */
static bool hint_range_ok(cl_command_queue q, const void *ptr, size_t size) {
  return ptr && rt_svm_range_ok(q, ptr, size);
}

/* Enqueues a command of type that only orders: USM is the host's
 * memory, there is nothing to move. */
static cl_int enqueue_hint(cl_command_queue q, cl_command_type type,
                           cl_uint num_events, const cl_event *wait_list,
                           cl_event *event) {
  return rt_command_enqueue(q, type, NULL, NULL, NULL, NULL, false,
                            num_events, wait_list, event);
}

cl_int CL_API_CALL clEnqueueMigrateMemINTEL(
    cl_command_queue command_queue, const void *ptr, size_t size,
    cl_mem_migration_flags flags, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
   * command-queue. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_VALUE if flags is not a supported combination of memory
   * migration flags (0 is valid since revision 1.2.0: to the queue's
   * device). */
  RT_RETURN_IF(flags & ~(cl_mem_migration_flags)(
                           CL_MIGRATE_MEM_OBJECT_HOST |
                           CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED),
               CL_INVALID_VALUE);
  RT_RETURN_IF(!hint_range_ok(command_queue, ptr, size), CL_INVALID_VALUE);
  return enqueue_hint(command_queue, CL_COMMAND_MIGRATEMEM_INTEL,
                      num_events_in_wait_list, event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueMemAdviseINTEL(
    cl_command_queue command_queue, const void *ptr, size_t size,
    cl_mem_advice_intel advice, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
   * command-queue. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  RT_RETURN_IF(!hint_range_ok(command_queue, ptr, size), CL_INVALID_VALUE);
  /* The extension defines no advice value (0x4208-0x420F are reserved)
   * and says a hint the device does not support is ignored: every value
   * is taken and ignored, so SYCL's mem_advise with its default advice
   * 0 works. */
  (void)advice;
  return enqueue_hint(command_queue, CL_COMMAND_MEMADVISE_INTEL,
                      num_events_in_wait_list, event_wait_list, event);
}
