/* This file declares the command-buffer extensions at the revisions the
 * Khronos CTS tests (cl_khr_command_buffer 0.9.8,
 * cl_khr_command_buffer_mutable_dispatch 0.9.5,
 * cl_khr_command_buffer_multi_device 0.9.2). Debian's OpenCL headers
 * (2023.02.06) declare older revisions: recording entry points without
 * the properties argument, a mutable config struct with type and next
 * fields, a one-argument clUpdateMutableCommandsKHR. Their prototypes and
 * struct names cannot be redeclared, so Skein's entry points are named
 * skein_cl*KHR (icd/entry.c hands them out under the Khronos names) and
 * the new structs and function types carry a skein_ prefix; the layouts
 * and values are those of the newer revisions. Tests include it too. */
#ifndef SKEIN_RUNTIME_COMMAND_BUFFER_KHR_H
#define SKEIN_RUNTIME_COMMAND_BUFFER_KHR_H

#include <CL/cl.h>
#include <CL/cl_ext.h>

#define SKEIN_COMMAND_BUFFER_VERSION CL_MAKE_VERSION(0, 9, 8)
#define SKEIN_MUTABLE_DISPATCH_VERSION CL_MAKE_VERSION(0, 9, 5)
#define SKEIN_MULTI_DEVICE_VERSION CL_MAKE_VERSION(0, 9, 2)

/* Values the newer revisions add (guarded: newer system headers have
 * them with the same values). */
typedef cl_properties skein_command_properties_khr;
typedef cl_uint skein_command_buffer_update_type_khr;
typedef cl_bitfield skein_mutable_dispatch_asserts_khr;
typedef cl_bitfield skein_platform_command_buffer_capabilities_khr;

#ifndef CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR
#define CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR 0x129A
#endif
#ifndef CL_COMMAND_BUFFER_CONTEXT_KHR
#define CL_COMMAND_BUFFER_CONTEXT_KHR 0x1299
#endif
/* 0.9.8 has no pending state; 2 is the mutable-dispatch Finalized state
 * (the older headers' CL_COMMAND_BUFFER_STATE_PENDING_KHR). */
#ifndef CL_COMMAND_BUFFER_STATE_FINALIZED_KHR
#define CL_COMMAND_BUFFER_STATE_FINALIZED_KHR 2
#endif
#ifndef CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR
#define CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR 0x12A2
#endif
#ifndef CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR
#define CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR 0x12B7
#endif
#ifndef CL_MUTABLE_DISPATCH_ASSERTS_KHR
#define CL_MUTABLE_DISPATCH_ASSERTS_KHR 0x12B8
#endif
#ifndef CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR
#define CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR (1 << 0)
#endif
/* The one update type of 0.9.5 (0 there; the older headers had a base
 * config at 0 and the dispatch config at 1). */
#define SKEIN_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR 0
#ifndef CL_PLATFORM_COMMAND_BUFFER_CAPABILITIES_KHR
#define CL_PLATFORM_COMMAND_BUFFER_CAPABILITIES_KHR 0x0908
#endif
#ifndef CL_COMMAND_BUFFER_PLATFORM_UNIVERSAL_SYNC_KHR
#define CL_COMMAND_BUFFER_PLATFORM_UNIVERSAL_SYNC_KHR (1 << 0)
#define CL_COMMAND_BUFFER_PLATFORM_REMAP_QUEUES_KHR (1 << 1)
#define CL_COMMAND_BUFFER_PLATFORM_AUTOMATIC_REMAP_KHR (1 << 2)
#endif
#ifndef CL_DEVICE_COMMAND_BUFFER_NUM_SYNC_DEVICES_KHR
#define CL_DEVICE_COMMAND_BUFFER_NUM_SYNC_DEVICES_KHR 0x12AB
#define CL_DEVICE_COMMAND_BUFFER_SYNC_DEVICES_KHR 0x12AC
#endif
#ifndef CL_COMMAND_BUFFER_CAPABILITY_MULTIPLE_QUEUE_KHR
#define CL_COMMAND_BUFFER_CAPABILITY_MULTIPLE_QUEUE_KHR (1 << 4)
#endif
#ifndef CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR
#define CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR (1 << 2)
#endif

/* cl_mutable_dispatch_config_khr of 0.9.5 (no type or next field). */
typedef struct skein_mutable_dispatch_config_khr {
  cl_mutable_command_khr command;
  cl_uint num_args;
  cl_uint num_svm_args;
  cl_uint num_exec_infos;
  cl_uint work_dim;
  const cl_mutable_dispatch_arg_khr *arg_list;
  const cl_mutable_dispatch_arg_khr *arg_svm_list;
  const cl_mutable_dispatch_exec_info_khr *exec_info_list;
  const size_t *global_work_offset;
  const size_t *global_work_size;
  const size_t *local_work_size;
} skein_mutable_dispatch_config_khr;

/* The entry points, as X(return type, name, parameter list). */
#define SKEIN_CB_COMMON_TAIL                                               \
  cl_uint num_sync_points_in_wait_list,                                    \
      const cl_sync_point_khr *sync_point_wait_list,                       \
      cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle

#define SKEIN_COMMAND_BUFFER_FUNCTIONS(X)                                  \
  X(cl_command_buffer_khr, clCreateCommandBufferKHR,                       \
    (cl_uint num_queues, const cl_command_queue *queues,                   \
     const cl_command_buffer_properties_khr *properties,                   \
     cl_int *errcode_ret))                                                 \
  X(cl_int, clFinalizeCommandBufferKHR,                                    \
    (cl_command_buffer_khr command_buffer))                                \
  X(cl_int, clRetainCommandBufferKHR, (cl_command_buffer_khr command_buffer)) \
  X(cl_int, clReleaseCommandBufferKHR,                                     \
    (cl_command_buffer_khr command_buffer))                                \
  X(cl_int, clEnqueueCommandBufferKHR,                                     \
    (cl_uint num_queues, cl_command_queue *queues,                         \
     cl_command_buffer_khr command_buffer,                                 \
     cl_uint num_events_in_wait_list, const cl_event *event_wait_list,     \
     cl_event *event))                                                     \
  X(cl_int, clCommandBarrierWithWaitListKHR,                               \
    (cl_command_buffer_khr command_buffer, cl_command_queue command_queue, \
     const skein_command_properties_khr *properties, SKEIN_CB_COMMON_TAIL)) \
  X(cl_int, clCommandCopyBufferKHR,                                        \
    (cl_command_buffer_khr command_buffer, cl_command_queue command_queue, \
     const skein_command_properties_khr *properties, cl_mem src_buffer,    \
     cl_mem dst_buffer, size_t src_offset, size_t dst_offset, size_t size, \
     SKEIN_CB_COMMON_TAIL))                                                \
  X(cl_int, clCommandCopyBufferRectKHR,                                    \
    (cl_command_buffer_khr command_buffer, cl_command_queue command_queue, \
     const skein_command_properties_khr *properties, cl_mem src_buffer,    \
     cl_mem dst_buffer, const size_t *src_origin, const size_t *dst_origin, \
     const size_t *region, size_t src_row_pitch, size_t src_slice_pitch,   \
     size_t dst_row_pitch, size_t dst_slice_pitch, SKEIN_CB_COMMON_TAIL))  \
  X(cl_int, clCommandCopyBufferToImageKHR,                                 \
    (cl_command_buffer_khr command_buffer, cl_command_queue command_queue, \
     const skein_command_properties_khr *properties, cl_mem src_buffer,    \
     cl_mem dst_image, size_t src_offset, const size_t *dst_origin,        \
     const size_t *region, SKEIN_CB_COMMON_TAIL))                          \
  X(cl_int, clCommandCopyImageKHR,                                         \
    (cl_command_buffer_khr command_buffer, cl_command_queue command_queue, \
     const skein_command_properties_khr *properties, cl_mem src_image,     \
     cl_mem dst_image, const size_t *src_origin, const size_t *dst_origin, \
     const size_t *region, SKEIN_CB_COMMON_TAIL))                          \
  X(cl_int, clCommandCopyImageToBufferKHR,                                 \
    (cl_command_buffer_khr command_buffer, cl_command_queue command_queue, \
     const skein_command_properties_khr *properties, cl_mem src_image,     \
     cl_mem dst_buffer, const size_t *src_origin, const size_t *region,    \
     size_t dst_offset, SKEIN_CB_COMMON_TAIL))                             \
  X(cl_int, clCommandFillBufferKHR,                                        \
    (cl_command_buffer_khr command_buffer, cl_command_queue command_queue, \
     const skein_command_properties_khr *properties, cl_mem buffer,        \
     const void *pattern, size_t pattern_size, size_t offset, size_t size, \
     SKEIN_CB_COMMON_TAIL))                                                \
  X(cl_int, clCommandFillImageKHR,                                         \
    (cl_command_buffer_khr command_buffer, cl_command_queue command_queue, \
     const skein_command_properties_khr *properties, cl_mem image,         \
     const void *fill_color, const size_t *origin, const size_t *region,   \
     SKEIN_CB_COMMON_TAIL))                                                \
  X(cl_int, clCommandNDRangeKernelKHR,                                     \
    (cl_command_buffer_khr command_buffer, cl_command_queue command_queue, \
     const skein_command_properties_khr *properties, cl_kernel kernel,     \
     cl_uint work_dim, const size_t *global_work_offset,                   \
     const size_t *global_work_size, const size_t *local_work_size,        \
     SKEIN_CB_COMMON_TAIL))                                                \
  X(cl_int, clCommandSVMMemcpyKHR,                                         \
    (cl_command_buffer_khr command_buffer, cl_command_queue command_queue, \
     const skein_command_properties_khr *properties, void *dst_ptr,        \
     const void *src_ptr, size_t size, SKEIN_CB_COMMON_TAIL))              \
  X(cl_int, clCommandSVMMemFillKHR,                                        \
    (cl_command_buffer_khr command_buffer, cl_command_queue command_queue, \
     const skein_command_properties_khr *properties, void *svm_ptr,        \
     const void *pattern, size_t pattern_size, size_t size,                \
     SKEIN_CB_COMMON_TAIL))                                                \
  X(cl_int, clGetCommandBufferInfoKHR,                                     \
    (cl_command_buffer_khr command_buffer,                                 \
     cl_command_buffer_info_khr param_name, size_t param_value_size,       \
     void *param_value, size_t *param_value_size_ret))                     \
  X(cl_int, clUpdateMutableCommandsKHR,                                    \
    (cl_command_buffer_khr command_buffer, cl_uint num_configs,            \
     const skein_command_buffer_update_type_khr *config_types,             \
     const void **configs))                                                \
  X(cl_int, clGetMutableCommandInfoKHR,                                    \
    (cl_mutable_command_khr command, cl_mutable_command_info_khr param_name, \
     size_t param_value_size, void *param_value,                           \
     size_t *param_value_size_ret))                                        \
  X(cl_command_buffer_khr, clRemapCommandBufferKHR,                        \
    (cl_command_buffer_khr command_buffer, cl_bool automatic,              \
     cl_uint num_queues, const cl_command_queue *queues,                   \
     cl_uint num_handles, const cl_mutable_command_khr *handles,           \
     cl_mutable_command_khr *handles_ret, cl_int *errcode_ret))

/* skein_clFooKHR_fn: the type of clFooKHR as
 * clGetExtensionFunctionAddressForPlatform returns it. */
#define SKEIN_CB_TYPEDEF(ret, name, params)                                \
  typedef ret(CL_API_CALL *skein_##name##_fn) params;
SKEIN_COMMAND_BUFFER_FUNCTIONS(SKEIN_CB_TYPEDEF)
#undef SKEIN_CB_TYPEDEF

#endif
