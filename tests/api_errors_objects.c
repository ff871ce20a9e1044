/* This file contains the error table's rows for the object entry points:
 * platform, device, context, command-queue, buffer, program and kernel
 * creation, queries and reference counting. Each row is one condition of
 * the entry point's error list in the OpenCL 3.0 API specification
 * (abridged in the row), one small call that meets only that condition,
 * and the code the specification names. Handles of the wrong kind are
 * live Skein objects (WRONG), so the ICD loader dispatches them to Skein;
 * NULL handles are answered by the loader itself and are included where
 * the loader returns the specification's code too. */
#include "api_errors.h"

/* ---- Platform ---------------------------------------------------------- */

static cl_int platform_ids_zero_entries(fixture *f) {
  cl_platform_id p = SENTINEL_PTR;
  cl_int err = clGetPlatformIDs(0, &p, &f->num_ret);
  if (p != SENTINEL_PTR)
    f->out[0] = 0; /* written: reported as an output */
  return err;
}
static cl_int platform_ids_both_null(fixture *f) {
  (void)f;
  return clGetPlatformIDs(1, NULL, NULL);
}
static cl_int platform_ids_count_only(fixture *f) {
  (void)f;
  cl_uint n = 0;
  cl_int err = clGetPlatformIDs(0, NULL, &n);
  return err == CL_SUCCESS && n == 0 ? ROW_SETUP_FAILED : err;
}
static cl_int platform_info_wrong_handle(fixture *f) {
  return clGetPlatformInfo(WRONG(cl_platform_id, f), CL_PLATFORM_NAME,
                           sizeof f->out, f->out, &f->size_ret);
}
static cl_int platform_info_bad_name(fixture *f) {
  return clGetPlatformInfo(f->env.platform, 0x7fff, sizeof f->out, f->out,
                           &f->size_ret);
}
static cl_int platform_info_too_small(fixture *f) {
  return clGetPlatformInfo(f->env.platform, CL_PLATFORM_NAME, 2, f->out,
                           &f->size_ret);
}
static cl_int platform_info_value_small(fixture *f) {
  return clGetPlatformInfo(f->env.platform, CL_PLATFORM_HOST_TIMER_RESOLUTION,
                           sizeof(cl_ulong) - 1, f->out, &f->size_ret);
}
static cl_int platform_info_all_null(fixture *f) {
  return clGetPlatformInfo(f->env.platform, CL_PLATFORM_NAME, 0, NULL, NULL);
}
static cl_int host_timer_wrong_device(fixture *f) {
  return clGetHostTimer(WRONG(cl_device_id, f), (cl_ulong *)f->out);
}
static cl_int host_timer_null(fixture *f) {
  return clGetHostTimer(f->env.device, NULL);
}
static cl_int device_host_timer_null_device_ts(fixture *f) {
  return clGetDeviceAndHostTimer(f->env.device, NULL, (cl_ulong *)f->out);
}
static cl_int device_host_timer_null_host_ts(fixture *f) {
  return clGetDeviceAndHostTimer(f->env.device, (cl_ulong *)f->out, NULL);
}
static cl_int device_host_timer_wrong_device(fixture *f) {
  return clGetDeviceAndHostTimer(WRONG(cl_device_id, f), (cl_ulong *)f->out,
                                 (cl_ulong *)(f->out + 8));
}
static cl_int unload_platform_compiler_wrong(fixture *f) {
  return clUnloadPlatformCompiler(WRONG(cl_platform_id, f));
}

/* ---- Device ------------------------------------------------------------ */

static cl_int device_ids_wrong_platform(fixture *f) {
  return clGetDeviceIDs(WRONG(cl_platform_id, f), CL_DEVICE_TYPE_ALL, 1,
                        (cl_device_id *)f->out, &f->num_ret);
}
static cl_int device_ids_type_zero(fixture *f) {
  return clGetDeviceIDs(f->env.platform, 0, 1, (cl_device_id *)f->out,
                        &f->num_ret);
}
static cl_int device_ids_type_unknown_bit(fixture *f) {
  return clGetDeviceIDs(f->env.platform, (cl_device_type)1 << 20, 1,
                        (cl_device_id *)f->out, &f->num_ret);
}
static cl_int device_ids_zero_entries(fixture *f) {
  return clGetDeviceIDs(f->env.platform, CL_DEVICE_TYPE_ALL, 0,
                        (cl_device_id *)f->out, &f->num_ret);
}
static cl_int device_ids_both_null(fixture *f) {
  return clGetDeviceIDs(f->env.platform, CL_DEVICE_TYPE_ALL, 1, NULL, NULL);
}
static cl_int device_ids_gpu(fixture *f) {
  return clGetDeviceIDs(f->env.platform, CL_DEVICE_TYPE_GPU, 1,
                        (cl_device_id *)f->out, &f->num_ret);
}
static cl_int device_ids_count_only(fixture *f) {
  cl_uint n = 0;
  cl_int err =
      clGetDeviceIDs(f->env.platform, CL_DEVICE_TYPE_DEFAULT, 0, NULL, &n);
  return err == CL_SUCCESS && n != 1 ? ROW_SETUP_FAILED : err;
}
static cl_int device_info_wrong_handle(fixture *f) {
  return clGetDeviceInfo(WRONG(cl_device_id, f), CL_DEVICE_NAME, sizeof f->out,
                         f->out, &f->size_ret);
}
static cl_int device_info_bad_name(fixture *f) {
  return clGetDeviceInfo(f->env.device, 0x7fff, sizeof f->out, f->out,
                         &f->size_ret);
}
static cl_int device_info_too_small_string(fixture *f) {
  return clGetDeviceInfo(f->env.device, CL_DEVICE_NAME, 1, f->out,
                         &f->size_ret);
}
static cl_int device_info_too_small_uint(fixture *f) {
  return clGetDeviceInfo(f->env.device, CL_DEVICE_MAX_COMPUTE_UNITS,
                         sizeof(cl_uint) - 1, f->out, &f->size_ret);
}
static cl_int device_info_too_small_array(fixture *f) {
  /* Three size_t values: room for two is too little. */
  return clGetDeviceInfo(f->env.device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                         2 * sizeof(size_t), f->out, &f->size_ret);
}
static cl_int device_info_size_only(fixture *f) {
  size_t size = 0;
  cl_int err =
      clGetDeviceInfo(f->env.device, CL_DEVICE_EXTENSIONS, 0, NULL, &size);
  return err == CL_SUCCESS && size < 2 ? ROW_SETUP_FAILED : err;
}
static cl_int retain_device_wrong(fixture *f) {
  return clRetainDevice(WRONG(cl_device_id, f));
}
static cl_int release_device_wrong(fixture *f) {
  return clReleaseDevice(WRONG(cl_device_id, f));
}
static cl_int sub_devices_equally(fixture *f) {
  cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  return clCreateSubDevices(f->env.device, props, 1, (cl_device_id *)f->out,
                            &f->num_ret);
}
static cl_int sub_devices_wrong_device(fixture *f) {
  cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  return clCreateSubDevices(WRONG(cl_device_id, f), props, 1,
                            (cl_device_id *)f->out, &f->num_ret);
}

/* ---- Context ----------------------------------------------------------- */

static cl_int context_null_devices(fixture *f) {
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)f->env.platform, 0};
  cl_int err;
  return ret_context(f, clCreateContext(props, 1, NULL, NULL, NULL, &err),
                     &err);
}
static cl_int context_zero_devices(fixture *f) {
  cl_int err;
  return ret_context(
      f, clCreateContext(NULL, 0, &f->env.device, NULL, NULL, &err), &err);
}
static cl_int context_user_data_without_notify(fixture *f) {
  cl_int err;
  return ret_context(f, clCreateContext(NULL, 1, &f->env.device, NULL, f, &err),
                     &err);
}
static cl_int context_wrong_device(fixture *f) {
  cl_device_id devices[] = {f->env.device, WRONG(cl_device_id, f)};
  cl_int err;
  return ret_context(f, clCreateContext(NULL, 2, devices, NULL, NULL, &err),
                     &err);
}
static cl_int context_unknown_property(fixture *f) {
  cl_context_properties props[] = {0x7fff, 1, 0};
  cl_int err;
  return ret_context(
      f, clCreateContext(props, 1, &f->env.device, NULL, NULL, &err), &err);
}
static cl_int context_platform_twice(fixture *f) {
  cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, (cl_context_properties)f->env.platform,
      CL_CONTEXT_PLATFORM, (cl_context_properties)f->env.platform, 0};
  cl_int err;
  return ret_context(
      f, clCreateContext(props, 1, &f->env.device, NULL, NULL, &err), &err);
}
static cl_int context_wrong_platform(fixture *f) {
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)f->env.device, 0};
  cl_int err;
  return ret_context(
      f, clCreateContext(props, 1, &f->env.device, NULL, NULL, &err), &err);
}
static cl_int context_bad_sync_value(fixture *f) {
  cl_context_properties props[] = {CL_CONTEXT_INTEROP_USER_SYNC, 7, 0};
  cl_int err;
  return ret_context(
      f, clCreateContext(props, 1, &f->env.device, NULL, NULL, &err), &err);
}
static cl_int context_no_errcode(fixture *f) {
  /* errcode_ret may be NULL: the call must still fail, not crash. */
  cl_context c = clCreateContext(NULL, 0, &f->env.device, NULL, NULL, NULL);
  cl_int err = c ? CL_SUCCESS : CL_INVALID_VALUE;
  return ret_context(f, c, &err);
}

/* Properties naming the Skein platform, so the loader picks it. */
#define SKEIN_PROPS(f)                                                         \
  cl_context_properties props[] = {                                            \
      CL_CONTEXT_PLATFORM, (cl_context_properties)(f)->env.platform, 0}

static cl_int context_type_zero(fixture *f) {
  SKEIN_PROPS(f);
  cl_int err;
  return ret_context(f, clCreateContextFromType(props, 0, NULL, NULL, &err),
                     &err);
}
static cl_int context_type_unknown(fixture *f) {
  SKEIN_PROPS(f);
  cl_int err;
  return ret_context(
      f,
      clCreateContextFromType(props, (cl_device_type)1 << 20, NULL, NULL, &err),
      &err);
}
static cl_int context_type_gpu(fixture *f) {
  SKEIN_PROPS(f);
  cl_int err;
  return ret_context(
      f, clCreateContextFromType(props, CL_DEVICE_TYPE_GPU, NULL, NULL, &err),
      &err);
}
static cl_int context_type_user_data(fixture *f) {
  SKEIN_PROPS(f);
  cl_int err;
  return ret_context(
      f, clCreateContextFromType(props, CL_DEVICE_TYPE_CPU, NULL, f, &err),
      &err);
}
static cl_int context_type_unknown_property(fixture *f) {
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)f->env.platform,
                                   0x7fff, 1, 0};
  cl_int err;
  return ret_context(
      f, clCreateContextFromType(props, CL_DEVICE_TYPE_CPU, NULL, NULL, &err),
      &err);
}
static cl_int retain_context_wrong(fixture *f) {
  return clRetainContext(WRONG_CONTEXT(f));
}
static cl_int release_context_wrong(fixture *f) {
  return clReleaseContext(WRONG_CONTEXT(f));
}
static cl_int context_info_wrong(fixture *f) {
  return clGetContextInfo(WRONG_CONTEXT(f), CL_CONTEXT_NUM_DEVICES,
                          sizeof f->out, f->out, &f->size_ret);
}
static cl_int context_info_bad_name(fixture *f) {
  return clGetContextInfo(f->env.context, 0x7fff, sizeof f->out, f->out,
                          &f->size_ret);
}
static cl_int context_info_too_small(fixture *f) {
  return clGetContextInfo(f->env.context, CL_CONTEXT_DEVICES,
                          sizeof(cl_device_id) - 1, f->out, &f->size_ret);
}
static cl_int context_destructor_null(fixture *f) {
  return clSetContextDestructorCallback(f->env.context, NULL, NULL);
}
static cl_int context_destructor_wrong(fixture *f) {
  return clSetContextDestructorCallback(WRONG_CONTEXT(f), never_called_context,
                                        NULL);
}

/* ---- Command-queue ----------------------------------------------------- */

static cl_int queue_props(fixture *f, const cl_queue_properties *props) {
  cl_int err;
  return ret_queue(f,
                   clCreateCommandQueueWithProperties(
                       f->env.context, f->env.device, props, &err),
                   &err);
}
static cl_int queue_wrong_context(fixture *f) {
  cl_int err;
  return ret_queue(f,
                   clCreateCommandQueueWithProperties(
                       WRONG_CONTEXT(f), f->env.device, NULL, &err),
                   &err);
}
static cl_int queue_wrong_device(fixture *f) {
  cl_int err;
  return ret_queue(f,
                   clCreateCommandQueueWithProperties(
                       f->env.context, WRONG(cl_device_id, f), NULL, &err),
                   &err);
}
static cl_int queue_unknown_property(fixture *f) {
  cl_queue_properties p[] = {0x7fff, 0, 0};
  return queue_props(f, p);
}
static cl_int queue_unknown_flag(fixture *f) {
  cl_queue_properties p[] = {CL_QUEUE_PROPERTIES, (cl_queue_properties)1 << 20,
                             0};
  return queue_props(f, p);
}
static cl_int queue_properties_twice(fixture *f) {
  cl_queue_properties p[] = {CL_QUEUE_PROPERTIES, 0, CL_QUEUE_PROPERTIES, 0, 0};
  return queue_props(f, p);
}
static cl_int queue_on_device_in_order(fixture *f) {
  cl_queue_properties p[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_ON_DEVICE, 0};
  return queue_props(f, p);
}
static cl_int queue_default_without_on_device(fixture *f) {
  cl_queue_properties p[] = {
      CL_QUEUE_PROPERTIES,
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE_DEFAULT, 0};
  return queue_props(f, p);
}
static cl_int queue_on_device(fixture *f) {
  cl_queue_properties p[] = {
      CL_QUEUE_PROPERTIES,
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE, 0};
  return queue_props(f, p);
}
static cl_int queue_size_over_max(fixture *f) {
  cl_queue_properties p[] = {
      CL_QUEUE_PROPERTIES,
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE,
      CL_QUEUE_SIZE, 8u * 1024 * 1024 + 1, 0};
  return queue_props(f, p);
}
static cl_int queue_size_host(fixture *f) {
  cl_queue_properties p[] = {CL_QUEUE_SIZE, 1024, 0};
  return queue_props(f, p);
}
static cl_int queue_out_of_order_profiling(fixture *f) {
  cl_queue_properties p[] = {
      CL_QUEUE_PROPERTIES,
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE, 0};
  return queue_props(f, p);
}
static cl_int queue_legacy(fixture *f, cl_context ctx, cl_device_id dev,
                           cl_command_queue_properties props) {
  cl_int err;
  return ret_queue(f, clCreateCommandQueue(ctx, dev, props, &err), &err);
}
static cl_int queue_legacy_wrong_context(fixture *f) {
  return queue_legacy(f, WRONG_CONTEXT(f), f->env.device, 0);
}
static cl_int queue_legacy_wrong_device(fixture *f) {
  return queue_legacy(f, f->env.context, WRONG(cl_device_id, f), 0);
}
static cl_int queue_legacy_unknown_flag(fixture *f) {
  return queue_legacy(f, f->env.context, f->env.device,
                      (cl_command_queue_properties)1 << 20);
}
static cl_int queue_legacy_out_of_order(fixture *f) {
  return queue_legacy(f, f->env.context, f->env.device,
                      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                          CL_QUEUE_PROFILING_ENABLE);
}
static cl_int retain_queue_wrong(fixture *f) {
  return clRetainCommandQueue(WRONG(cl_command_queue, f));
}
static cl_int release_queue_wrong(fixture *f) {
  return clReleaseCommandQueue(WRONG(cl_command_queue, f));
}
static cl_int queue_info_wrong(fixture *f) {
  return clGetCommandQueueInfo(WRONG(cl_command_queue, f), CL_QUEUE_CONTEXT,
                               sizeof f->out, f->out, &f->size_ret);
}
static cl_int queue_info_bad_name(fixture *f) {
  return clGetCommandQueueInfo(f->env.queue, 0x7fff, sizeof f->out, f->out,
                               &f->size_ret);
}
static cl_int queue_info_too_small(fixture *f) {
  return clGetCommandQueueInfo(f->env.queue, CL_QUEUE_PROPERTIES,
                               sizeof(cl_command_queue_properties) - 1, f->out,
                               &f->size_ret);
}
static cl_int queue_info_size_host(fixture *f) {
  return clGetCommandQueueInfo(f->env.queue, CL_QUEUE_SIZE, sizeof f->out,
                               f->out, &f->size_ret);
}
static cl_int flush_wrong(fixture *f) {
  return clFlush(WRONG(cl_command_queue, f));
}
static cl_int finish_wrong(fixture *f) {
  return clFinish(WRONG(cl_command_queue, f));
}
static cl_int queue_legacy_on_device(fixture *f) {
  return queue_legacy(f, f->env.context, f->env.device,
                      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                          CL_QUEUE_ON_DEVICE);
}
static cl_int default_device_queue(fixture *f) {
  return clSetDefaultDeviceCommandQueue(f->env.context, f->env.device,
                                        f->env.queue);
}
static cl_int set_queue_property(fixture *f) {
  cl_command_queue_properties old = 0;
  cl_int err = clSetCommandQueueProperty(
      f->env.queue, CL_QUEUE_PROFILING_ENABLE, CL_FALSE, &old);
  if (old)
    f->size_ret = 0; /* the old properties were written */
  return err;
}

/* ---- Buffers ----------------------------------------------------------- */

static cl_int buffer(fixture *f, cl_mem_flags flags, size_t size, void *ptr) {
  cl_int err;
  return ret_mem(f, clCreateBuffer(f->env.context, flags, size, ptr, &err),
                 &err);
}
static cl_int buffer_wrong_context(fixture *f) {
  cl_int err;
  return ret_mem(f, clCreateBuffer(WRONG_CONTEXT(f), 0, BUF_SIZE, NULL, &err),
                 &err);
}
static cl_int buffer_rw_ro(fixture *f) {
  return buffer(f, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, BUF_SIZE, NULL);
}
static cl_int buffer_wo_ro(fixture *f) {
  return buffer(f, CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY, BUF_SIZE, NULL);
}
static cl_int buffer_rw_wo(fixture *f) {
  return buffer(f, CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY, BUF_SIZE, NULL);
}
static cl_int buffer_host_ro_wo(fixture *f) {
  return buffer(f, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY, BUF_SIZE,
                NULL);
}
static cl_int buffer_host_none_ro(fixture *f) {
  return buffer(f, CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_READ_ONLY, BUF_SIZE,
                NULL);
}
static cl_int buffer_use_alloc(fixture *f) {
  return buffer(f, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 64, f->out);
}
static cl_int buffer_use_copy(fixture *f) {
  return buffer(f, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, f->out);
}
static cl_int buffer_unknown_flag(fixture *f) {
  return buffer(f, (cl_mem_flags)1 << 40, BUF_SIZE, NULL);
}
static cl_int buffer_size_zero(fixture *f) {
  return buffer(f, CL_MEM_READ_WRITE, 0, NULL);
}
static cl_int buffer_size_too_big(fixture *f) {
  cl_ulong max = 0;
  if (clGetDeviceInfo(f->env.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max,
                      &max, NULL) != CL_SUCCESS)
    return ROW_SETUP_FAILED;
  return buffer(f, CL_MEM_READ_WRITE, (size_t)max + 1, NULL);
}
static cl_int buffer_use_null(fixture *f) {
  return buffer(f, CL_MEM_USE_HOST_PTR, 64, NULL);
}
static cl_int buffer_copy_null(fixture *f) {
  return buffer(f, CL_MEM_COPY_HOST_PTR, 64, NULL);
}
static cl_int buffer_ptr_without_flag(fixture *f) {
  return buffer(f, CL_MEM_READ_WRITE, 64, f->out);
}
static cl_int buffer_alloc_with_ptr(fixture *f) {
  return buffer(f, CL_MEM_ALLOC_HOST_PTR, 64, f->out);
}
static cl_int buffer_no_errcode(fixture *f) {
  cl_mem m = clCreateBuffer(f->env.context, 0, 0, NULL, NULL);
  cl_int err = m ? CL_SUCCESS : CL_INVALID_BUFFER_SIZE;
  return ret_mem(f, m, &err);
}
static cl_int buffer_props(fixture *f, const cl_mem_properties *props) {
  cl_int err;
  return ret_mem(f,
                 clCreateBufferWithProperties(f->env.context, props, 0,
                                              BUF_SIZE, NULL, &err),
                 &err);
}
static cl_int buffer_props_unknown(fixture *f) {
  cl_mem_properties p[] = {0x7fff, 1, 0};
  return buffer_props(f, p);
}
static cl_int buffer_props_empty(fixture *f) {
  cl_mem_properties p[] = {0};
  return buffer_props(f, p);
}
static cl_int buffer_props_size_zero(fixture *f) {
  cl_int err;
  return ret_mem(
      f, clCreateBufferWithProperties(f->env.context, NULL, 0, 0, NULL, &err),
      &err);
}

static cl_int sub(fixture *f, cl_mem parent, cl_mem_flags flags, size_t origin,
                  size_t size) {
  cl_buffer_region r = {origin, size};
  cl_int err;
  return ret_mem(
      f,
      clCreateSubBuffer(parent, flags, CL_BUFFER_CREATE_TYPE_REGION, &r, &err),
      &err);
}
static cl_int sub_of_sub(fixture *f) { return sub(f, f->sub_a, 0, 0, 64); }
static cl_int sub_wrong_handle(fixture *f) {
  return sub(f, WRONG(cl_mem, f), 0, 0, 64);
}
static cl_int sub_wo_parent_ro(fixture *f) {
  return sub(f, f->kernel_wo, CL_MEM_READ_ONLY, 0, 64);
}
static cl_int sub_wo_parent_rw(fixture *f) {
  return sub(f, f->kernel_wo, CL_MEM_READ_WRITE, 0, 64);
}
static cl_int sub_ro_parent_rw(fixture *f) {
  return sub(f, f->kernel_ro, CL_MEM_READ_WRITE, 0, 64);
}
static cl_int sub_ro_parent_wo(fixture *f) {
  return sub(f, f->kernel_ro, CL_MEM_WRITE_ONLY, 0, 64);
}
static cl_int sub_host_wo_parent_ro(fixture *f) {
  return sub(f, f->host_wo, CL_MEM_HOST_READ_ONLY, 0, 64);
}
static cl_int sub_host_ro_parent_wo(fixture *f) {
  return sub(f, f->host_ro, CL_MEM_HOST_WRITE_ONLY, 0, 64);
}
static cl_int sub_host_none_parent_ro(fixture *f) {
  return sub(f, f->host_none, CL_MEM_HOST_READ_ONLY, 0, 64);
}
static cl_int sub_host_none_parent_wo(fixture *f) {
  return sub(f, f->host_none, CL_MEM_HOST_WRITE_ONLY, 0, 64);
}
static cl_int sub_use_host_ptr(fixture *f) {
  return sub(f, f->buf, CL_MEM_USE_HOST_PTR, 0, 64);
}
static cl_int sub_alloc_host_ptr(fixture *f) {
  return sub(f, f->buf, CL_MEM_ALLOC_HOST_PTR, 0, 64);
}
static cl_int sub_copy_host_ptr(fixture *f) {
  return sub(f, f->buf, CL_MEM_COPY_HOST_PTR, 0, 64);
}
static cl_int sub_bad_type(fixture *f) {
  cl_buffer_region r = {0, 64};
  cl_int err;
  return ret_mem(f, clCreateSubBuffer(f->buf, 0, 0x7fff, &r, &err), &err);
}
static cl_int sub_null_info(fixture *f) {
  cl_int err;
  return ret_mem(
      f, clCreateSubBuffer(f->buf, 0, CL_BUFFER_CREATE_TYPE_REGION, NULL, &err),
      &err);
}
static cl_int sub_out_of_bounds(fixture *f) {
  return sub(f, f->buf, 0, 0, BUF_SIZE + 1);
}
static cl_int sub_origin_past_end(fixture *f) {
  return sub(f, f->buf, 0, 2 * BUF_SIZE, 64);
}
static cl_int sub_size_wraps(fixture *f) {
  return sub(f, f->buf, 0, 128, SIZE_MAX - 64);
}
static cl_int sub_size_zero(fixture *f) { return sub(f, f->buf, 0, 0, 0); }
static cl_int sub_misaligned_1(fixture *f) { return sub(f, f->buf, 0, 1, 64); }
static cl_int sub_misaligned_64(fixture *f) {
  /* CL_DEVICE_MEM_BASE_ADDR_ALIGN is 1024 bits: 64 bytes is not enough. */
  return sub(f, f->buf, 0, 64, 64);
}
static cl_int sub_ok_inherits(fixture *f) {
  return sub(f, f->kernel_ro, 0, 128, 128);
}
static cl_int retain_mem_wrong(fixture *f) {
  return clRetainMemObject(WRONG(cl_mem, f));
}
static cl_int release_mem_wrong(fixture *f) {
  return clReleaseMemObject(WRONG(cl_mem, f));
}
static cl_int retain_mem_null(fixture *f) {
  (void)f;
  return clRetainMemObject(NULL);
}
static cl_int mem_info_wrong(fixture *f) {
  return clGetMemObjectInfo(WRONG(cl_mem, f), CL_MEM_SIZE, sizeof f->out,
                            f->out, &f->size_ret);
}
static cl_int mem_info_bad_name(fixture *f) {
  return clGetMemObjectInfo(f->buf, 0x7fff, sizeof f->out, f->out,
                            &f->size_ret);
}
static cl_int mem_info_too_small(fixture *f) {
  return clGetMemObjectInfo(f->buf, CL_MEM_SIZE, sizeof(size_t) - 1, f->out,
                            &f->size_ret);
}
static cl_int mem_destructor_null(fixture *f) {
  return clSetMemObjectDestructorCallback(f->buf, NULL, NULL);
}
static cl_int mem_destructor_wrong(fixture *f) {
  return clSetMemObjectDestructorCallback(WRONG(cl_mem, f), never_called_mem,
                                          NULL);
}

/* ---- Programs ---------------------------------------------------------- */

static cl_int source(fixture *f, cl_context ctx, cl_uint count,
                     const char **strings) {
  cl_int err;
  return ret_program(
      f, clCreateProgramWithSource(ctx, count, strings, NULL, &err), &err);
}
static cl_int source_wrong_context(fixture *f) {
  const char *s = "kernel void k() {}";
  return source(f, WRONG_CONTEXT(f), 1, &s);
}
static cl_int source_count_zero(fixture *f) {
  const char *s = "kernel void k() {}";
  return source(f, f->env.context, 0, &s);
}
static cl_int source_strings_null(fixture *f) {
  return source(f, f->env.context, 1, NULL);
}
static cl_int source_entry_null(fixture *f) {
  const char *s[] = {"kernel void k() {}", NULL};
  return source(f, f->env.context, 2, s);
}

static cl_int binary(fixture *f, cl_uint n, const cl_device_id *devices,
                     const size_t *lengths, const unsigned char **binaries) {
  cl_int status[2] = {SENTINEL_UINT, SENTINEL_UINT}, err;
  cl_program p = clCreateProgramWithBinary(f->env.context, n, devices, lengths,
                                           binaries, status, &err);
  /* binary_status reports each device's outcome, failure included. */
  if (err == CL_INVALID_BINARY && status[0] != CL_INVALID_BINARY)
    return ROW_SETUP_FAILED;
  return ret_program(f, p, &err);
}
static cl_int binary_null_devices(fixture *f) {
  const unsigned char *b = f->binary;
  return binary(f, 1, NULL, &f->binary_size, &b);
}
static cl_int binary_zero_devices(fixture *f) {
  const unsigned char *b = f->binary;
  return binary(f, 0, &f->env.device, &f->binary_size, &b);
}
static cl_int binary_wrong_device(fixture *f) {
  const unsigned char *b = f->binary;
  cl_device_id d = WRONG(cl_device_id, f);
  return binary(f, 1, &d, &f->binary_size, &b);
}
static cl_int binary_null_lengths(fixture *f) {
  const unsigned char *b = f->binary;
  return binary(f, 1, &f->env.device, NULL, &b);
}
static cl_int binary_null_binaries(fixture *f) {
  return binary(f, 1, &f->env.device, &f->binary_size, NULL);
}
static cl_int binary_zero_length(fixture *f) {
  const unsigned char *b = f->binary;
  size_t zero = 0;
  return binary(f, 1, &f->env.device, &zero, &b);
}
static cl_int binary_null_entry(fixture *f) {
  const unsigned char *b = NULL;
  return binary(f, 1, &f->env.device, &f->binary_size, &b);
}
static cl_int binary_garbage(fixture *f) {
  static const unsigned char junk[64] = "this is not a program binary";
  const unsigned char *b = junk;
  size_t len = sizeof junk;
  return binary(f, 1, &f->env.device, &len, &b);
}
static cl_int binary_truncated(fixture *f) {
  const unsigned char *b = f->binary;
  size_t len = f->binary_size / 2;
  return binary(f, 1, &f->env.device, &len, &b);
}
static cl_int binary_corrupted(fixture *f) {
  unsigned char *copy = malloc(f->binary_size);
  if (!copy)
    return ROW_SETUP_FAILED;
  memcpy(copy, f->binary, f->binary_size);
  copy[f->binary_size - 1] ^= 0x40; /* the checksum must catch it */
  const unsigned char *b = copy;
  cl_int err = binary(f, 1, &f->env.device, &f->binary_size, &b);
  free(copy);
  return err;
}
static cl_int il_program(fixture *f) {
  static const unsigned char spirv[] = {0x03, 0x02, 0x23, 0x07};
  cl_int err;
  return ret_program(
      f, clCreateProgramWithIL(f->env.context, spirv, sizeof spirv, &err),
      &err);
}
static cl_int il_program_null(fixture *f) {
  cl_int err;
  return ret_program(f, clCreateProgramWithIL(f->env.context, NULL, 4, &err),
                     &err);
}
static cl_int builtin_kernels(fixture *f) {
  cl_int err;
  return ret_program(f,
                     clCreateProgramWithBuiltInKernels(
                         f->env.context, 1, &f->env.device, "no_such", &err),
                     &err);
}
static cl_int builtin_kernels_null_names(fixture *f) {
  cl_int err;
  return ret_program(f,
                     clCreateProgramWithBuiltInKernels(
                         f->env.context, 1, &f->env.device, NULL, &err),
                     &err);
}
static cl_int builtin_kernels_wrong_device(fixture *f) {
  cl_device_id d = WRONG(cl_device_id, f);
  cl_int err;
  return ret_program(
      f,
      clCreateProgramWithBuiltInKernels(f->env.context, 1, &d, "no_such", &err),
      &err);
}

/* A fresh program of source src, for rows that change a program. */
static cl_program fresh(fixture *f, const char *src) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(f->env.context, 1, &src, NULL, &err);
  return err == CL_SUCCESS ? p : NULL;
}

static cl_int build_wrong_program(fixture *f) {
  return clBuildProgram(WRONG(cl_program, f), 0, NULL, "", NULL, NULL);
}
static cl_int build_null_list(fixture *f) {
  return clBuildProgram(f->unbuilt, 1, NULL, "", NULL, NULL);
}
static cl_int build_zero_devices(fixture *f) {
  return clBuildProgram(f->unbuilt, 0, &f->env.device, "", NULL, NULL);
}
static cl_int build_wrong_device(fixture *f) {
  cl_device_id d = WRONG(cl_device_id, f);
  return clBuildProgram(f->unbuilt, 1, &d, "", NULL, NULL);
}
static cl_int build_user_data(fixture *f) {
  return clBuildProgram(f->unbuilt, 0, NULL, "", NULL, f);
}
static cl_int build_bad_options(fixture *f) {
  cl_program p = fresh(f, "kernel void k(global int *p) { *p = 1; }");
  if (!p)
    return ROW_SETUP_FAILED;
  cl_int err = clBuildProgram(p, 0, NULL, "-cl-no-such-option", NULL, NULL);
  clReleaseProgram(p);
  return err;
}
static cl_int build_failure_with_log(fixture *f) {
  cl_program p = fresh(f, "kernel void k(global int *p) { *p = undeclared; }");
  if (!p)
    return ROW_SETUP_FAILED;
  cl_int err = clBuildProgram(p, 0, NULL, "", NULL, NULL);
  char log[4096] = "";
  clGetProgramBuildInfo(p, f->env.device, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                        NULL);
  cl_build_status status = CL_BUILD_NONE;
  clGetProgramBuildInfo(p, f->env.device, CL_PROGRAM_BUILD_STATUS,
                        sizeof status, &status, NULL);
  clReleaseProgram(p);
  /* The failure leaves a log naming the problem and CL_BUILD_ERROR. */
  if (err == CL_BUILD_PROGRAM_FAILURE &&
      (!strstr(log, "undeclared") || status != CL_BUILD_ERROR))
    return ROW_SETUP_FAILED;
  return err;
}
static cl_int build_kernels_attached(fixture *f) {
  return clBuildProgram(f->built, 0, NULL, "", NULL, NULL);
}
static cl_int build_linked_program(fixture *f) {
  return clBuildProgram(f->linked, 0, NULL, "-DX=1", NULL, NULL);
}
static cl_int build_linked_program_no_options(fixture *f) {
  return clBuildProgram(f->linked, 0, NULL, NULL, NULL, NULL);
}

static cl_int compile(fixture *f, cl_program p, const char *options, cl_uint n,
                      const cl_program *headers, const char **names) {
  (void)f;
  return clCompileProgram(p, 0, NULL, options, n, headers, names, NULL, NULL);
}
static cl_int compile_wrong_program(fixture *f) {
  return compile(f, WRONG(cl_program, f), "", 0, NULL, NULL);
}
static cl_int compile_null_list(fixture *f) {
  return clCompileProgram(f->unbuilt, 1, NULL, "", 0, NULL, NULL, NULL, NULL);
}
static cl_int compile_wrong_device(fixture *f) {
  cl_device_id d = WRONG(cl_device_id, f);
  return clCompileProgram(f->unbuilt, 1, &d, "", 0, NULL, NULL, NULL, NULL);
}
static cl_int compile_names_without_count(fixture *f) {
  const char *names[] = {"h.h"};
  return compile(f, f->unbuilt, "", 0, NULL, names);
}
static cl_int compile_headers_without_count(fixture *f) {
  return compile(f, f->unbuilt, "", 0, &f->other_header, NULL);
}
static cl_int compile_count_without_names(fixture *f) {
  return compile(f, f->unbuilt, "", 1, &f->other_header, NULL);
}
static cl_int compile_user_data(fixture *f) {
  return clCompileProgram(f->unbuilt, 0, NULL, "", 0, NULL, NULL, NULL, f);
}
static cl_int compile_header_other_context(fixture *f) {
  cl_program p = fresh(f, "#include \"seven.h\"\n"
                          "kernel void k(global int *p) { *p = SEVEN; }");
  if (!p)
    return ROW_SETUP_FAILED;
  const char *names[] = {"seven.h"};
  cl_int err = compile(f, p, "", 1, &f->other_header, names);
  clReleaseProgram(p);
  return err;
}
static cl_int compile_bad_options(fixture *f) {
  cl_program p = fresh(f, "kernel void k(global int *p) { *p = 1; }");
  if (!p)
    return ROW_SETUP_FAILED;
  cl_int err = compile(f, p, "-cl-no-such-option", 0, NULL, NULL);
  clReleaseProgram(p);
  return err;
}
static cl_int compile_failure(fixture *f) {
  cl_program p = fresh(f, "kernel void k(global int *p) { *p = nope; }");
  if (!p)
    return ROW_SETUP_FAILED;
  cl_int err = compile(f, p, "", 0, NULL, NULL);
  clReleaseProgram(p);
  return err;
}
static cl_int compile_kernels_attached(fixture *f) {
  return compile(f, f->built, "", 0, NULL, NULL);
}
static cl_int compile_binary_program(fixture *f) {
  const unsigned char *b = f->binary;
  cl_int err;
  cl_program p = clCreateProgramWithBinary(f->env.context, 1, &f->env.device,
                                           &f->binary_size, &b, NULL, &err);
  if (!p)
    return ROW_SETUP_FAILED;
  err = compile(f, p, "", 0, NULL, NULL);
  clReleaseProgram(p);
  return err;
}

static cl_int link_programs(fixture *f, cl_context ctx, const char *options,
                            cl_uint n, const cl_program *inputs,
                            void *user_data) {
  cl_int err;
  return ret_program(
      f, clLinkProgram(ctx, 0, NULL, options, n, inputs, NULL, user_data, &err),
      &err);
}
static cl_int link_wrong_context(fixture *f) {
  return link_programs(f, WRONG_CONTEXT(f), "", 1, &f->compiled, NULL);
}
static cl_int link_zero_inputs(fixture *f) {
  return link_programs(f, f->env.context, "", 0, &f->compiled, NULL);
}
static cl_int link_null_inputs(fixture *f) {
  return link_programs(f, f->env.context, "", 1, NULL, NULL);
}
static cl_int link_wrong_input(fixture *f) {
  cl_program p = WRONG(cl_program, f);
  return link_programs(f, f->env.context, "", 1, &p, NULL);
}
static cl_int link_input_other_context(fixture *f) {
  return link_programs(f, f->env.context, "", 1, &f->other_compiled, NULL);
}
static cl_int link_input_not_compiled(fixture *f) {
  return link_programs(f, f->env.context, "", 1, &f->unbuilt, NULL);
}
static cl_int link_user_data(fixture *f) {
  return link_programs(f, f->env.context, "", 1, &f->compiled, f);
}
static cl_int link_bad_options(fixture *f) {
  return link_programs(f, f->env.context, "-cl-no-such-option", 1, &f->compiled,
                       NULL);
}
static cl_int link_null_list(fixture *f) {
  cl_int err;
  return ret_program(f,
                     clLinkProgram(f->env.context, 1, NULL, "", 1, &f->compiled,
                                   NULL, NULL, &err),
                     &err);
}
static cl_int link_failure(fixture *f) {
  /* A kernel calling a function no unit defines. */
  cl_program p = fresh(f, "int missing(void);\n"
                          "kernel void k(global int *p) { *p = missing(); }");
  if (!p || compile(f, p, "", 0, NULL, NULL) != CL_SUCCESS)
    return ROW_SETUP_FAILED;
  cl_int err = link_programs(f, f->env.context, "", 1, &p, NULL);
  clReleaseProgram(p);
  return err;
}

static cl_int program_info(fixture *f, cl_program p, cl_program_info name,
                           size_t size) {
  return clGetProgramInfo(p, name, size, f->out, &f->size_ret);
}
static cl_int program_info_wrong(fixture *f) {
  return program_info(f, WRONG(cl_program, f), CL_PROGRAM_CONTEXT,
                      sizeof f->out);
}
static cl_int program_info_bad_name(fixture *f) {
  return program_info(f, f->built, 0x7fff, sizeof f->out);
}
static cl_int program_info_too_small(fixture *f) {
  return program_info(f, f->built, CL_PROGRAM_REFERENCE_COUNT,
                      sizeof(cl_uint) - 1);
}
static cl_int program_info_num_kernels_unbuilt(fixture *f) {
  return program_info(f, f->unbuilt, CL_PROGRAM_NUM_KERNELS, sizeof f->out);
}
static cl_int program_info_names_failed(fixture *f) {
  return program_info(f, f->build_failed, CL_PROGRAM_KERNEL_NAMES,
                      sizeof f->out);
}
static cl_int program_info_ctors_unbuilt(fixture *f) {
  return program_info(f, f->unbuilt, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT,
                      sizeof f->out);
}
static cl_int program_info_dtors_unbuilt(fixture *f) {
  return program_info(f, f->unbuilt, CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT,
                      sizeof f->out);
}
static cl_int program_info_binaries_small(fixture *f) {
  return program_info(f, f->built, CL_PROGRAM_BINARIES,
                      sizeof(unsigned char *) - 1);
}
static cl_int build_info(fixture *f, cl_program p, cl_device_id d,
                         cl_program_build_info name, size_t size) {
  return clGetProgramBuildInfo(p, d, name, size, f->out, &f->size_ret);
}
static cl_int build_info_wrong_program(fixture *f) {
  return build_info(f, WRONG(cl_program, f), f->env.device,
                    CL_PROGRAM_BUILD_STATUS, sizeof f->out);
}
static cl_int build_info_wrong_device(fixture *f) {
  return build_info(f, f->built, WRONG(cl_device_id, f),
                    CL_PROGRAM_BUILD_STATUS, sizeof f->out);
}
static cl_int build_info_bad_name(fixture *f) {
  return build_info(f, f->built, f->env.device, 0x7fff, sizeof f->out);
}
static cl_int build_info_too_small(fixture *f) {
  return build_info(f, f->built, f->env.device, CL_PROGRAM_BUILD_STATUS,
                    sizeof(cl_build_status) - 1);
}
static cl_int retain_program_wrong(fixture *f) {
  return clRetainProgram(WRONG(cl_program, f));
}
static cl_int release_program_wrong(fixture *f) {
  return clReleaseProgram(WRONG(cl_program, f));
}
static cl_int program_release_callback(fixture *f) {
  return clSetProgramReleaseCallback(f->built, never_called_program, NULL);
}
static cl_int program_release_callback_wrong(fixture *f) {
  return clSetProgramReleaseCallback(WRONG(cl_program, f), never_called_program,
                                     NULL);
}
static cl_int spec_constant(fixture *f) {
  cl_int v = 1;
  return clSetProgramSpecializationConstant(f->built, 0, sizeof v, &v);
}

/* ---- Kernels ----------------------------------------------------------- */

static cl_int kernel(fixture *f, cl_program p, const char *name) {
  cl_int err;
  return ret_kernel(f, clCreateKernel(p, name, &err), &err);
}
static cl_int kernel_wrong_program(fixture *f) {
  return kernel(f, WRONG(cl_program, f), "args");
}
static cl_int kernel_unbuilt(fixture *f) {
  return kernel(f, f->unbuilt, "args");
}
static cl_int kernel_build_failed(fixture *f) {
  return kernel(f, f->build_failed, "broken");
}
static cl_int kernel_compiled_object(fixture *f) {
  return kernel(f, f->compiled, "unit");
}
static cl_int kernel_bad_name(fixture *f) {
  return kernel(f, f->built, "no_such_kernel");
}
static cl_int kernel_null_name(fixture *f) { return kernel(f, f->built, NULL); }
static cl_int kernels_in_program(fixture *f, cl_program p, cl_uint n) {
  cl_kernel *out = (cl_kernel *)f->out;
  return clCreateKernelsInProgram(p, n, n ? out : NULL, &f->num_ret);
}
static cl_int kernels_wrong_program(fixture *f) {
  return kernels_in_program(f, WRONG(cl_program, f), 4);
}
static cl_int kernels_unbuilt(fixture *f) {
  return kernels_in_program(f, f->unbuilt, 4);
}
static cl_int kernels_too_few(fixture *f) {
  return kernels_in_program(f, f->built, 2); /* the program has three */
}
static cl_int clone_wrong(fixture *f) {
  cl_int err;
  return ret_kernel(f, clCloneKernel(WRONG(cl_kernel, f), &err), &err);
}
static cl_int retain_kernel_wrong(fixture *f) {
  return clRetainKernel(WRONG(cl_kernel, f));
}
static cl_int release_kernel_wrong(fixture *f) {
  return clReleaseKernel(WRONG(cl_kernel, f));
}

/* clSetKernelArg on a fresh kernel "args", whose state a row may change. */
static cl_int set_arg(fixture *f, cl_uint index, size_t size,
                      const void *value) {
  cl_int err;
  cl_kernel k = clCreateKernel(f->built, "args", &err);
  if (!k)
    return ROW_SETUP_FAILED;
  err = clSetKernelArg(k, index, size, value);
  clReleaseKernel(k);
  return err;
}
static cl_int arg_wrong_kernel(fixture *f) {
  return clSetKernelArg(WRONG(cl_kernel, f), 0, sizeof(cl_mem), &f->buf);
}
static cl_int arg_index_out_of_range(fixture *f) {
  cl_int v = 0;
  return set_arg(f, 3, sizeof v, &v);
}
static cl_int arg_mem_size(fixture *f) {
  return set_arg(f, 0, sizeof(cl_mem) / 2, &f->buf);
}
static cl_int arg_mem_not_mem(fixture *f) {
  cl_context c = f->env.context;
  return set_arg(f, 0, sizeof c, &c);
}
static cl_int arg_mem_other_context(fixture *f) {
  return set_arg(f, 0, sizeof(cl_mem), &f->other_buf);
}
static cl_int arg_mem_null_value(fixture *f) {
  return set_arg(f, 0, sizeof(cl_mem), NULL);
}
/* OpenCL 3.0 names CL_INVALID_ARG_SIZE for a __local argument of size 0;
 * 3.1 allows it (tests/test-opencl-3-1.c runs such a kernel). On a 3.1
 * device the row checks that the call succeeds, reported as the 3.0 code
 * the row's table holds. */
static cl_int arg_local_size_zero(fixture *f) {
  cl_int got = set_arg(f, 1, 0, NULL);
  if (test_device_is_3_1(&f->env))
    return got == CL_SUCCESS ? CL_INVALID_ARG_SIZE : CL_SUCCESS;
  return got;
}
static cl_int arg_local_with_value(fixture *f) {
  cl_int v[4] = {0};
  return set_arg(f, 1, sizeof v, v);
}
static cl_int arg_value_size(fixture *f) {
  cl_long v = 0;
  return set_arg(f, 2, sizeof v, &v);
}
static cl_int arg_value_null(fixture *f) {
  return set_arg(f, 2, sizeof(cl_int), NULL);
}
static cl_int arg_svm_pointer(fixture *f) {
  return clSetKernelArgSVMPointer(f->k_args, 2, f->out);
}
static cl_int exec_info_svm(fixture *f) {
  void *ptrs[1] = {f->out};
  return clSetKernelExecInfo(f->k_args, CL_KERNEL_EXEC_INFO_SVM_PTRS,
                             sizeof ptrs - 1, ptrs);
}
static cl_int exec_info_bad_name(fixture *f) {
  cl_bool v = CL_TRUE;
  return clSetKernelExecInfo(f->k_args, 0x7fff, sizeof v, &v);
}
static cl_int kernel_info(fixture *f, cl_kernel k, cl_kernel_info name,
                          size_t size) {
  return clGetKernelInfo(k, name, size, f->out, &f->size_ret);
}
static cl_int kernel_info_wrong(fixture *f) {
  return kernel_info(f, WRONG(cl_kernel, f), CL_KERNEL_NUM_ARGS, sizeof f->out);
}
static cl_int kernel_info_bad_name(fixture *f) {
  return kernel_info(f, f->k_args, 0x7fff, sizeof f->out);
}
static cl_int kernel_info_too_small(fixture *f) {
  return kernel_info(f, f->k_args, CL_KERNEL_FUNCTION_NAME, 4);
}
static cl_int arg_info(fixture *f, cl_kernel k, cl_uint index,
                       cl_kernel_arg_info name) {
  return clGetKernelArgInfo(k, index, name, sizeof f->out, f->out,
                            &f->size_ret);
}
static cl_int arg_info_wrong(fixture *f) {
  return arg_info(f, WRONG(cl_kernel, f), 0, CL_KERNEL_ARG_NAME);
}
static cl_int arg_info_index(fixture *f) {
  return arg_info(f, f->k_info, 1, CL_KERNEL_ARG_NAME);
}
static cl_int arg_info_not_available(fixture *f) {
  return arg_info(f, f->k_args, 0, CL_KERNEL_ARG_NAME);
}
static cl_int arg_info_bad_name(fixture *f) {
  return arg_info(f, f->k_info, 0, 0x7fff);
}
static cl_int arg_info_too_small(fixture *f) {
  /* The name is "p": two bytes. */
  return clGetKernelArgInfo(f->k_info, 0, CL_KERNEL_ARG_NAME, 1, f->out,
                            &f->size_ret);
}
static cl_int wg_info(fixture *f, cl_kernel k, cl_device_id d,
                      cl_kernel_work_group_info name, size_t size) {
  return clGetKernelWorkGroupInfo(k, d, name, size, f->out, &f->size_ret);
}
static cl_int wg_info_wrong_kernel(fixture *f) {
  return wg_info(f, WRONG(cl_kernel, f), f->env.device,
                 CL_KERNEL_WORK_GROUP_SIZE, sizeof f->out);
}
static cl_int wg_info_wrong_device(fixture *f) {
  return wg_info(f, f->k_args, WRONG(cl_device_id, f),
                 CL_KERNEL_WORK_GROUP_SIZE, sizeof f->out);
}
static cl_int wg_info_global_size(fixture *f) {
  return wg_info(f, f->k_args, f->env.device, CL_KERNEL_GLOBAL_WORK_SIZE,
                 sizeof f->out);
}
static cl_int wg_info_bad_name(fixture *f) {
  return wg_info(f, f->k_args, f->env.device, 0x7fff, sizeof f->out);
}
static cl_int wg_info_too_small(fixture *f) {
  return wg_info(f, f->k_args, f->env.device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                 2 * sizeof(size_t));
}
static cl_int wg_info_null_device(fixture *f) {
  /* One device: device may be NULL. */
  return wg_info(f, f->k_args, NULL, CL_KERNEL_WORK_GROUP_SIZE, sizeof f->out);
}
static cl_int sub_group_info(fixture *f) {
  return clGetKernelSubGroupInfo(
      f->k_args, f->env.device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
      sizeof(size_t), NULL, sizeof f->out, f->out, &f->size_ret);
}

const error_row object_rows[] = {
    /* Platform (clGetPlatformIDs is the loader's own). */
    ROW("clGetPlatformIDs", "num_entries is zero and platforms is not NULL",
        platform_ids_zero_entries, CL_INVALID_VALUE),
    ROW("clGetPlatformIDs", "both num_platforms and platforms are NULL",
        platform_ids_both_null, CL_INVALID_VALUE),
    ROW("clGetPlatformIDs", "platforms may be NULL (count only)",
        platform_ids_count_only, CL_SUCCESS),
    ROW("clGetPlatformInfo", "platform is not a valid platform",
        platform_info_wrong_handle, CL_INVALID_PLATFORM),
    ROW("clGetPlatformInfo", "param_name is not one of the supported values",
        platform_info_bad_name, CL_INVALID_VALUE),
    ROW("clGetPlatformInfo", "param_value_size < size of the string",
        platform_info_too_small, CL_INVALID_VALUE),
    ROW("clGetPlatformInfo", "param_value_size < sizeof(cl_ulong)",
        platform_info_value_small, CL_INVALID_VALUE),
    ROW("clGetPlatformInfo", "param_value and param_value_size_ret may be NULL",
        platform_info_all_null, CL_SUCCESS),
    ROW("clGetHostTimer", "device is not a valid device",
        host_timer_wrong_device, CL_INVALID_DEVICE),
    ROW("clGetHostTimer", "host_timestamp is NULL", host_timer_null,
        CL_INVALID_VALUE),
    ROW("clGetDeviceAndHostTimer", "device_timestamp is NULL",
        device_host_timer_null_device_ts, CL_INVALID_VALUE),
    ROW("clGetDeviceAndHostTimer", "host_timestamp is NULL",
        device_host_timer_null_host_ts, CL_INVALID_VALUE),
    ROW("clGetDeviceAndHostTimer", "device is not a valid device",
        device_host_timer_wrong_device, CL_INVALID_DEVICE),
    ROW("clUnloadPlatformCompiler", "platform is not a valid platform",
        unload_platform_compiler_wrong, CL_INVALID_PLATFORM),

    /* Device. */
    ROW("clGetDeviceIDs", "platform is not a valid platform",
        device_ids_wrong_platform, CL_INVALID_PLATFORM),
    ROW("clGetDeviceIDs", "device_type is not a valid value (0)",
        device_ids_type_zero, CL_INVALID_DEVICE_TYPE),
    ROW("clGetDeviceIDs", "device_type is not a valid value (unknown bit)",
        device_ids_type_unknown_bit, CL_INVALID_DEVICE_TYPE),
    ROW("clGetDeviceIDs", "num_entries is zero and devices is not NULL",
        device_ids_zero_entries, CL_INVALID_VALUE),
    ROW("clGetDeviceIDs", "both num_devices and devices are NULL",
        device_ids_both_null, CL_INVALID_VALUE),
    ROW("clGetDeviceIDs", "no device matched device_type (GPU)", device_ids_gpu,
        CL_DEVICE_NOT_FOUND),
    ROW("clGetDeviceIDs", "devices may be NULL (count only)",
        device_ids_count_only, CL_SUCCESS),
    ROW("clGetDeviceInfo", "device is not a valid device",
        device_info_wrong_handle, CL_INVALID_DEVICE),
    ROW("clGetDeviceInfo", "param_name is not one of the supported values",
        device_info_bad_name, CL_INVALID_VALUE),
    ROW("clGetDeviceInfo", "param_value_size < size of a string value",
        device_info_too_small_string, CL_INVALID_VALUE),
    ROW("clGetDeviceInfo", "param_value_size < sizeof(cl_uint)",
        device_info_too_small_uint, CL_INVALID_VALUE),
    ROW("clGetDeviceInfo", "param_value_size < size of a size_t[3] value",
        device_info_too_small_array, CL_INVALID_VALUE),
    ROW("clGetDeviceInfo", "param_value may be NULL (size only)",
        device_info_size_only, CL_SUCCESS),
    ROW("clRetainDevice", "device is not a valid device", retain_device_wrong,
        CL_INVALID_DEVICE),
    ROW("clReleaseDevice", "device is not a valid device", release_device_wrong,
        CL_INVALID_DEVICE),
    ROW("clCreateSubDevices", "properties valid but not supported by in_device",
        sub_devices_equally, CL_INVALID_VALUE),
    ROW("clCreateSubDevices", "in_device is not a valid device",
        sub_devices_wrong_device, CL_INVALID_DEVICE),

    /* Context. */
    ROW("clCreateContext", "devices is NULL", context_null_devices,
        CL_INVALID_VALUE),
    ROW("clCreateContext", "num_devices is equal to zero", context_zero_devices,
        CL_INVALID_VALUE),
    ROW("clCreateContext", "pfn_notify is NULL and user_data is not NULL",
        context_user_data_without_notify, CL_INVALID_VALUE),
    ROW("clCreateContext", "any device in devices is not a valid device",
        context_wrong_device, CL_INVALID_DEVICE),
    ROW("clCreateContext", "a property name is not a supported property name",
        context_unknown_property, CL_INVALID_PROPERTY),
    ROW("clCreateContext", "the same property name is specified more than once",
        context_platform_twice, CL_INVALID_PROPERTY),
    ROW("clCreateContext", "the platform in properties is not a valid platform",
        context_wrong_platform, CL_INVALID_PLATFORM),
    ROW("clCreateContext", "the value of a supported property is not valid",
        context_bad_sync_value, CL_INVALID_PROPERTY),
    ROW("clCreateContext", "errcode_ret may be NULL (num_devices 0 fails)",
        context_no_errcode, CL_INVALID_VALUE),
    ROW("clCreateContextFromType", "device_type is not a valid value (0)",
        context_type_zero, CL_INVALID_DEVICE_TYPE),
    ROW("clCreateContextFromType", "device_type is not a valid value (bit)",
        context_type_unknown, CL_INVALID_DEVICE_TYPE),
    ROW("clCreateContextFromType", "no devices that match device_type found",
        context_type_gpu, CL_DEVICE_NOT_FOUND),
    ROW("clCreateContextFromType", "pfn_notify NULL and user_data not NULL",
        context_type_user_data, CL_INVALID_VALUE),
    ROW("clCreateContextFromType", "a property name is not supported",
        context_type_unknown_property, CL_INVALID_PROPERTY),
    ROW("clRetainContext", "context is not a valid OpenCL context",
        retain_context_wrong, CL_INVALID_CONTEXT),
    ROW("clReleaseContext", "context is not a valid OpenCL context",
        release_context_wrong, CL_INVALID_CONTEXT),
    ROW("clGetContextInfo", "context is not a valid context",
        context_info_wrong, CL_INVALID_CONTEXT),
    ROW("clGetContextInfo", "param_name is not one of the supported values",
        context_info_bad_name, CL_INVALID_VALUE),
    ROW("clGetContextInfo", "param_value_size < size of the return type",
        context_info_too_small, CL_INVALID_VALUE),
    ROW("clSetContextDestructorCallback", "pfn_notify is NULL",
        context_destructor_null, CL_INVALID_VALUE),
    ROW("clSetContextDestructorCallback", "context is not a valid context",
        context_destructor_wrong, CL_INVALID_CONTEXT),

    /* Command-queue. */
    ROW("clCreateCommandQueueWithProperties", "context is not a valid context",
        queue_wrong_context, CL_INVALID_CONTEXT),
    ROW("clCreateCommandQueueWithProperties", "device is not a valid device",
        queue_wrong_device, CL_INVALID_DEVICE),
    ROW("clCreateCommandQueueWithProperties", "unknown property name",
        queue_unknown_property, CL_INVALID_VALUE),
    ROW("clCreateCommandQueueWithProperties", "unknown CL_QUEUE_PROPERTIES bit",
        queue_unknown_flag, CL_INVALID_VALUE),
    ROW("clCreateCommandQueueWithProperties", "a property given twice",
        queue_properties_twice, CL_INVALID_VALUE),
    ROW("clCreateCommandQueueWithProperties",
        "CL_QUEUE_ON_DEVICE without out-of-order (not valid)",
        queue_on_device_in_order, CL_INVALID_VALUE),
    ROW("clCreateCommandQueueWithProperties",
        "CL_QUEUE_ON_DEVICE_DEFAULT without CL_QUEUE_ON_DEVICE (not valid)",
        queue_default_without_on_device, CL_INVALID_VALUE),
    ROW("clCreateCommandQueueWithProperties",
        "an on-device queue (out of order)", queue_on_device, CL_SUCCESS),
    ROW("clCreateCommandQueueWithProperties",
        "CL_QUEUE_SIZE over CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE (not valid)",
        queue_size_over_max, CL_INVALID_VALUE),
    ROW("clCreateCommandQueue",
        "valid but not supported (CL_QUEUE_ON_DEVICE: host queues only)",
        queue_legacy_on_device, CL_INVALID_QUEUE_PROPERTIES),
    ROW("clCreateCommandQueueWithProperties",
        "CL_QUEUE_SIZE without CL_QUEUE_ON_DEVICE (not valid)", queue_size_host,
        CL_INVALID_VALUE),
    ROW("clCreateCommandQueueWithProperties",
        "out-of-order and profiling are supported",
        queue_out_of_order_profiling, CL_SUCCESS),
    ROW("clCreateCommandQueue", "context is not a valid context",
        queue_legacy_wrong_context, CL_INVALID_CONTEXT),
    ROW("clCreateCommandQueue", "device is not a valid device",
        queue_legacy_wrong_device, CL_INVALID_DEVICE),
    ROW("clCreateCommandQueue", "values specified in properties are not valid",
        queue_legacy_unknown_flag, CL_INVALID_VALUE),
    ROW("clCreateCommandQueue", "out-of-order and profiling are supported",
        queue_legacy_out_of_order, CL_SUCCESS),
    ROW("clRetainCommandQueue", "command_queue is not a valid command-queue",
        retain_queue_wrong, CL_INVALID_COMMAND_QUEUE),
    ROW("clReleaseCommandQueue", "command_queue is not a valid command-queue",
        release_queue_wrong, CL_INVALID_COMMAND_QUEUE),
    ROW("clGetCommandQueueInfo", "command_queue is not a valid command-queue",
        queue_info_wrong, CL_INVALID_COMMAND_QUEUE),
    ROW("clGetCommandQueueInfo",
        "param_name is not one of the supported values", queue_info_bad_name,
        CL_INVALID_VALUE),
    ROW("clGetCommandQueueInfo", "param_value_size < size of the return type",
        queue_info_too_small, CL_INVALID_VALUE),
    ROW("clGetCommandQueueInfo",
        "not a valid command-queue for param_name (CL_QUEUE_SIZE, host queue)",
        queue_info_size_host, CL_INVALID_COMMAND_QUEUE),
    ROW("clFlush", "command_queue is not a valid host command-queue",
        flush_wrong, CL_INVALID_COMMAND_QUEUE),
    ROW("clFinish", "command_queue is not a valid host command-queue",
        finish_wrong, CL_INVALID_COMMAND_QUEUE),
    ROW("clSetDefaultDeviceCommandQueue",
        "command_queue is not a valid command-queue for device (a host queue)",
        default_device_queue, CL_INVALID_COMMAND_QUEUE),
    ROW("clSetCommandQueueProperty", "deprecated; missing in Skein",
        set_queue_property, CL_INVALID_OPERATION),

    /* Buffers. */
    ROW("clCreateBuffer", "context is not a valid context",
        buffer_wrong_context, CL_INVALID_CONTEXT),
    ROW("clCreateBuffer", "flags: READ_WRITE with READ_ONLY", buffer_rw_ro,
        CL_INVALID_VALUE),
    ROW("clCreateBuffer", "flags: WRITE_ONLY with READ_ONLY", buffer_wo_ro,
        CL_INVALID_VALUE),
    ROW("clCreateBuffer", "flags: READ_WRITE with WRITE_ONLY", buffer_rw_wo,
        CL_INVALID_VALUE),
    ROW("clCreateBuffer", "flags: HOST_READ_ONLY with HOST_WRITE_ONLY",
        buffer_host_ro_wo, CL_INVALID_VALUE),
    ROW("clCreateBuffer", "flags: HOST_NO_ACCESS with HOST_READ_ONLY",
        buffer_host_none_ro, CL_INVALID_VALUE),
    ROW("clCreateBuffer", "flags: USE_HOST_PTR with ALLOC_HOST_PTR",
        buffer_use_alloc, CL_INVALID_VALUE),
    ROW("clCreateBuffer", "flags: USE_HOST_PTR with COPY_HOST_PTR",
        buffer_use_copy, CL_INVALID_VALUE),
    ROW("clCreateBuffer", "flags: an unknown bit", buffer_unknown_flag,
        CL_INVALID_VALUE),
    ROW("clCreateBuffer", "size is zero", buffer_size_zero,
        CL_INVALID_BUFFER_SIZE),
    ROW("clCreateBuffer", "size > CL_DEVICE_MAX_MEM_ALLOC_SIZE",
        buffer_size_too_big, CL_INVALID_BUFFER_SIZE),
    ROW("clCreateBuffer", "host_ptr NULL with CL_MEM_USE_HOST_PTR",
        buffer_use_null, CL_INVALID_HOST_PTR),
    ROW("clCreateBuffer", "host_ptr NULL with CL_MEM_COPY_HOST_PTR",
        buffer_copy_null, CL_INVALID_HOST_PTR),
    ROW("clCreateBuffer", "host_ptr not NULL without USE/COPY_HOST_PTR",
        buffer_ptr_without_flag, CL_INVALID_HOST_PTR),
    ROW("clCreateBuffer", "host_ptr not NULL with only ALLOC_HOST_PTR",
        buffer_alloc_with_ptr, CL_INVALID_HOST_PTR),
    ROW("clCreateBuffer", "errcode_ret may be NULL (size 0 fails)",
        buffer_no_errcode, CL_INVALID_BUFFER_SIZE),
    ROW("clCreateBufferWithProperties", "a property name is not supported",
        buffer_props_unknown, CL_INVALID_PROPERTY),
    ROW("clCreateBufferWithProperties", "an empty property list is valid",
        buffer_props_empty, CL_SUCCESS),
    ROW("clCreateBufferWithProperties", "size is zero", buffer_props_size_zero,
        CL_INVALID_BUFFER_SIZE),
    ROW("clCreateSubBuffer", "buffer is a sub-buffer object", sub_of_sub,
        CL_INVALID_MEM_OBJECT),
    ROW("clCreateSubBuffer", "buffer is not a valid buffer object",
        sub_wrong_handle, CL_INVALID_MEM_OBJECT),
    ROW("clCreateSubBuffer", "buffer WRITE_ONLY, flags READ_ONLY",
        sub_wo_parent_ro, CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "buffer WRITE_ONLY, flags READ_WRITE",
        sub_wo_parent_rw, CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "buffer READ_ONLY, flags READ_WRITE",
        sub_ro_parent_rw, CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "buffer READ_ONLY, flags WRITE_ONLY",
        sub_ro_parent_wo, CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "buffer HOST_WRITE_ONLY, flags HOST_READ_ONLY",
        sub_host_wo_parent_ro, CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "buffer HOST_READ_ONLY, flags HOST_WRITE_ONLY",
        sub_host_ro_parent_wo, CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "buffer HOST_NO_ACCESS, flags HOST_READ_ONLY",
        sub_host_none_parent_ro, CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "buffer HOST_NO_ACCESS, flags HOST_WRITE_ONLY",
        sub_host_none_parent_wo, CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "flags specifies CL_MEM_USE_HOST_PTR",
        sub_use_host_ptr, CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "flags specifies CL_MEM_ALLOC_HOST_PTR",
        sub_alloc_host_ptr, CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "flags specifies CL_MEM_COPY_HOST_PTR",
        sub_copy_host_ptr, CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "buffer_create_type is not valid", sub_bad_type,
        CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "buffer_create_info is NULL", sub_null_info,
        CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "region out of bounds (size)", sub_out_of_bounds,
        CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "region out of bounds (origin)",
        sub_origin_past_end, CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "region out of bounds (origin + size wraps)",
        sub_size_wraps, CL_INVALID_VALUE),
    ROW("clCreateSubBuffer", "the size field of the region is zero",
        sub_size_zero, CL_INVALID_BUFFER_SIZE),
    ROW("clCreateSubBuffer", "origin not aligned to MEM_BASE_ADDR_ALIGN (1)",
        sub_misaligned_1, CL_MISALIGNED_SUB_BUFFER_OFFSET),
    ROW("clCreateSubBuffer", "origin not aligned to MEM_BASE_ADDR_ALIGN (64)",
        sub_misaligned_64, CL_MISALIGNED_SUB_BUFFER_OFFSET),
    ROW("clCreateSubBuffer", "flags 0 inherit the parent's (READ_ONLY)",
        sub_ok_inherits, CL_SUCCESS),
    ROW("clRetainMemObject", "memobj is not a valid memory object",
        retain_mem_wrong, CL_INVALID_MEM_OBJECT),
    ROW("clRetainMemObject", "memobj is NULL", retain_mem_null,
        CL_INVALID_MEM_OBJECT),
    ROW("clReleaseMemObject", "memobj is not a valid memory object",
        release_mem_wrong, CL_INVALID_MEM_OBJECT),
    ROW("clGetMemObjectInfo", "memobj is not a valid memory object",
        mem_info_wrong, CL_INVALID_MEM_OBJECT),
    ROW("clGetMemObjectInfo", "param_name is not one of the supported values",
        mem_info_bad_name, CL_INVALID_VALUE),
    ROW("clGetMemObjectInfo", "param_value_size < size of the return type",
        mem_info_too_small, CL_INVALID_VALUE),
    ROW("clSetMemObjectDestructorCallback", "pfn_notify is NULL",
        mem_destructor_null, CL_INVALID_VALUE),
    ROW("clSetMemObjectDestructorCallback",
        "memobj is not a valid memory object", mem_destructor_wrong,
        CL_INVALID_MEM_OBJECT),

    /* Programs. */
    ROW("clCreateProgramWithSource", "context is not a valid context",
        source_wrong_context, CL_INVALID_CONTEXT),
    ROW("clCreateProgramWithSource", "count is zero", source_count_zero,
        CL_INVALID_VALUE),
    ROW("clCreateProgramWithSource", "strings is NULL", source_strings_null,
        CL_INVALID_VALUE),
    ROW("clCreateProgramWithSource", "an entry in strings is NULL",
        source_entry_null, CL_INVALID_VALUE),
    ROW("clCreateProgramWithBinary", "device_list is NULL", binary_null_devices,
        CL_INVALID_VALUE),
    ROW("clCreateProgramWithBinary", "num_devices is zero", binary_zero_devices,
        CL_INVALID_VALUE),
    ROW("clCreateProgramWithBinary", "a device is not of context",
        binary_wrong_device, CL_INVALID_DEVICE),
    ROW("clCreateProgramWithBinary", "lengths is NULL", binary_null_lengths,
        CL_INVALID_VALUE),
    ROW("clCreateProgramWithBinary", "binaries is NULL", binary_null_binaries,
        CL_INVALID_VALUE),
    ROW("clCreateProgramWithBinary", "an entry in lengths is zero",
        binary_zero_length, CL_INVALID_VALUE),
    ROW("clCreateProgramWithBinary", "an entry in binaries is NULL",
        binary_null_entry, CL_INVALID_VALUE),
    ROW("clCreateProgramWithBinary", "an invalid program binary (not one)",
        binary_garbage, CL_INVALID_BINARY),
    ROW("clCreateProgramWithBinary", "an invalid program binary (truncated)",
        binary_truncated, CL_INVALID_BINARY),
    ROW("clCreateProgramWithBinary",
        "an invalid program binary (a bit flipped)", binary_corrupted,
        CL_INVALID_BINARY),
    ROW("clCreateProgramWithIL",
        "il is not well-formed (a SPIR-V magic word alone)", il_program,
        CL_INVALID_VALUE),
    ROW2("clCreateProgramWithIL", "il is NULL", il_program_null,
         CL_INVALID_VALUE, CL_INVALID_OPERATION),
    ROW("clCreateProgramWithBuiltInKernels", "a kernel name is not supported",
        builtin_kernels, CL_INVALID_VALUE),
    ROW("clCreateProgramWithBuiltInKernels", "kernel_names is NULL",
        builtin_kernels_null_names, CL_INVALID_VALUE),
    ROW2("clCreateProgramWithBuiltInKernels", "a device is not of context",
         builtin_kernels_wrong_device, CL_INVALID_DEVICE, CL_INVALID_VALUE),
    ROW("clBuildProgram", "program is not a valid program object",
        build_wrong_program, CL_INVALID_PROGRAM),
    ROW("clBuildProgram", "device_list is NULL and num_devices > 0",
        build_null_list, CL_INVALID_VALUE),
    ROW("clBuildProgram", "device_list is not NULL and num_devices is zero",
        build_zero_devices, CL_INVALID_VALUE),
    ROW("clBuildProgram", "a device is not of program", build_wrong_device,
        CL_INVALID_DEVICE),
    ROW("clBuildProgram", "pfn_notify is NULL but user_data is not NULL",
        build_user_data, CL_INVALID_VALUE),
    ROW("clBuildProgram", "the build options are invalid", build_bad_options,
        CL_INVALID_BUILD_OPTIONS),
    ROW("clBuildProgram", "a failure to build (with a log, CL_BUILD_ERROR)",
        build_failure_with_log, CL_BUILD_PROGRAM_FAILURE),
    ROW("clBuildProgram", "there are kernel objects attached to program",
        build_kernels_attached, CL_INVALID_OPERATION),
    ROW("clBuildProgram", "program not created from source/IL/binary (link)",
        build_linked_program, CL_INVALID_OPERATION),
    ROW("clBuildProgram",
        "program not created from source/IL/binary (link, "
        "no options)",
        build_linked_program_no_options, CL_INVALID_OPERATION),
    ROW("clCompileProgram", "program is not a valid program object",
        compile_wrong_program, CL_INVALID_PROGRAM),
    ROW("clCompileProgram", "device_list is NULL and num_devices > 0",
        compile_null_list, CL_INVALID_VALUE),
    ROW("clCompileProgram", "a device is not of program", compile_wrong_device,
        CL_INVALID_DEVICE),
    ROW("clCompileProgram",
        "num_input_headers 0, header_include_names not NULL",
        compile_names_without_count, CL_INVALID_VALUE),
    ROW("clCompileProgram", "num_input_headers 0, input_headers not NULL",
        compile_headers_without_count, CL_INVALID_VALUE),
    ROW("clCompileProgram", "num_input_headers 1, header_include_names NULL",
        compile_count_without_names, CL_INVALID_VALUE),
    ROW("clCompileProgram", "pfn_notify is NULL but user_data is not NULL",
        compile_user_data, CL_INVALID_VALUE),
    ROW("clCompileProgram", "input_headers of another context",
        compile_header_other_context, CL_INVALID_CONTEXT),
    ROW("clCompileProgram", "the compiler options are invalid",
        compile_bad_options, CL_INVALID_COMPILER_OPTIONS),
    ROW("clCompileProgram", "a failure to compile the program source",
        compile_failure, CL_COMPILE_PROGRAM_FAILURE),
    ROW("clCompileProgram", "there are kernel objects attached to program",
        compile_kernels_attached, CL_INVALID_OPERATION),
    ROW("clCompileProgram", "program has no source (made from a binary)",
        compile_binary_program, CL_INVALID_OPERATION),
    ROW("clLinkProgram", "context is not a valid context", link_wrong_context,
        CL_INVALID_CONTEXT),
    ROW("clLinkProgram", "num_input_programs is zero", link_zero_inputs,
        CL_INVALID_VALUE),
    ROW("clLinkProgram", "input_programs is NULL", link_null_inputs,
        CL_INVALID_VALUE),
    ROW("clLinkProgram", "device_list is NULL and num_devices > 0",
        link_null_list, CL_INVALID_VALUE),
    ROW("clLinkProgram", "an input is not a valid program object",
        link_wrong_input, CL_INVALID_PROGRAM),
    ROW("clLinkProgram", "an input program is of another context",
        link_input_other_context, CL_INVALID_CONTEXT),
    ROW("clLinkProgram", "an input is not a compiled object or library",
        link_input_not_compiled, CL_INVALID_OPERATION),
    ROW("clLinkProgram", "pfn_notify is NULL but user_data is not NULL",
        link_user_data, CL_INVALID_VALUE),
    ROW("clLinkProgram", "the linker options are invalid", link_bad_options,
        CL_INVALID_LINKER_OPTIONS),
    ROW_CREATES("clLinkProgram", "a failure to link (undefined function)",
                link_failure, CL_LINK_PROGRAM_FAILURE),
    ROW("clGetProgramInfo", "program is not a valid program object",
        program_info_wrong, CL_INVALID_PROGRAM),
    ROW("clGetProgramInfo", "param_name is not one of the supported values",
        program_info_bad_name, CL_INVALID_VALUE),
    ROW("clGetProgramInfo", "param_value_size < size of the return type",
        program_info_too_small, CL_INVALID_VALUE),
    ROW("clGetProgramInfo", "CL_PROGRAM_BINARIES: param_value_size too small",
        program_info_binaries_small, CL_INVALID_VALUE),
    ROW("clGetProgramInfo", "CL_PROGRAM_NUM_KERNELS, no executable",
        program_info_num_kernels_unbuilt, CL_INVALID_PROGRAM_EXECUTABLE),
    ROW("clGetProgramInfo", "CL_PROGRAM_KERNEL_NAMES, the build failed",
        program_info_names_failed, CL_INVALID_PROGRAM_EXECUTABLE),
    ROW("clGetProgramInfo", "CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT, unbuilt",
        program_info_ctors_unbuilt, CL_INVALID_PROGRAM_EXECUTABLE),
    ROW("clGetProgramInfo", "CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT, unbuilt",
        program_info_dtors_unbuilt, CL_INVALID_PROGRAM_EXECUTABLE),
    ROW("clGetProgramBuildInfo", "program is not a valid program object",
        build_info_wrong_program, CL_INVALID_PROGRAM),
    ROW("clGetProgramBuildInfo", "device is not of program",
        build_info_wrong_device, CL_INVALID_DEVICE),
    ROW("clGetProgramBuildInfo",
        "param_name is not one of the supported values", build_info_bad_name,
        CL_INVALID_VALUE),
    ROW("clGetProgramBuildInfo", "param_value_size < size of the return type",
        build_info_too_small, CL_INVALID_VALUE),
    ROW("clRetainProgram", "program is not a valid program object",
        retain_program_wrong, CL_INVALID_PROGRAM),
    ROW("clReleaseProgram", "program is not a valid program object",
        release_program_wrong, CL_INVALID_PROGRAM),
    ROW("clSetProgramReleaseCallback",
        "no device supports program-scope global destructors",
        program_release_callback, CL_INVALID_OPERATION),
    ROW("clSetProgramReleaseCallback", "program is not a valid program object",
        program_release_callback_wrong, CL_INVALID_PROGRAM),
    ROW2("clSetProgramSpecializationConstant",
         "program not made from IL / no device supports IL", spec_constant,
         CL_INVALID_OPERATION, CL_INVALID_PROGRAM),

    /* Kernels. */
    ROW("clCreateKernel", "program is not a valid program object",
        kernel_wrong_program, CL_INVALID_PROGRAM),
    ROW("clCreateKernel", "no successfully built executable (never built)",
        kernel_unbuilt, CL_INVALID_PROGRAM_EXECUTABLE),
    ROW("clCreateKernel", "no successfully built executable (build failed)",
        kernel_build_failed, CL_INVALID_PROGRAM_EXECUTABLE),
    ROW("clCreateKernel", "no successfully built executable (compiled object)",
        kernel_compiled_object, CL_INVALID_PROGRAM_EXECUTABLE),
    ROW("clCreateKernel", "kernel_name is not found in program",
        kernel_bad_name, CL_INVALID_KERNEL_NAME),
    ROW("clCreateKernel", "kernel_name is NULL", kernel_null_name,
        CL_INVALID_VALUE),
    ROW("clCreateKernelsInProgram", "program is not a valid program object",
        kernels_wrong_program, CL_INVALID_PROGRAM),
    ROW("clCreateKernelsInProgram", "no successfully built executable",
        kernels_unbuilt, CL_INVALID_PROGRAM_EXECUTABLE),
    ROW("clCreateKernelsInProgram", "kernels not NULL, num_kernels too small",
        kernels_too_few, CL_INVALID_VALUE),
    ROW("clCloneKernel", "kernel is not a valid kernel object", clone_wrong,
        CL_INVALID_KERNEL),
    ROW("clRetainKernel", "kernel is not a valid kernel object",
        retain_kernel_wrong, CL_INVALID_KERNEL),
    ROW("clReleaseKernel", "kernel is not a valid kernel object",
        release_kernel_wrong, CL_INVALID_KERNEL),
    ROW("clSetKernelArg", "kernel is not a valid kernel", arg_wrong_kernel,
        CL_INVALID_KERNEL),
    ROW("clSetKernelArg", "arg_index is not a valid argument index",
        arg_index_out_of_range, CL_INVALID_ARG_INDEX),
    ROW("clSetKernelArg", "memory object and arg_size != sizeof(cl_mem)",
        arg_mem_size, CL_INVALID_ARG_SIZE),
    ROW("clSetKernelArg", "arg_value does not point to a valid memory object",
        arg_mem_not_mem, CL_INVALID_MEM_OBJECT),
    ROW("clSetKernelArg", "the memory object is of another context",
        arg_mem_other_context, CL_INVALID_CONTEXT),
    ROW("clSetKernelArg", "a buffer argument's arg_value may be NULL",
        arg_mem_null_value, CL_SUCCESS),
    ROW("clSetKernelArg", "local argument and arg_size is zero (3.0 only)",
        arg_local_size_zero, CL_INVALID_ARG_SIZE),
    ROW("clSetKernelArg", "local argument and arg_value is not NULL",
        arg_local_with_value, CL_INVALID_ARG_VALUE),
    ROW("clSetKernelArg", "arg_size does not match the data type (int)",
        arg_value_size, CL_INVALID_ARG_SIZE),
    ROW("clSetKernelArg", "arg_value is not a valid value (NULL for an int)",
        arg_value_null, CL_INVALID_ARG_VALUE),
    ROW("clSetKernelArgSVMPointer", "the argument is no pointer (an int)",
        arg_svm_pointer, CL_INVALID_ARG_VALUE),
    ROW("clSetKernelExecInfo",
        "CL_KERNEL_EXEC_INFO_SVM_PTRS size not a multiple of a pointer",
        exec_info_svm, CL_INVALID_VALUE),
    ROW("clSetKernelExecInfo", "param_name is not valid", exec_info_bad_name,
        CL_INVALID_VALUE),
    ROW("clGetKernelInfo", "kernel is not a valid kernel object",
        kernel_info_wrong, CL_INVALID_KERNEL),
    ROW("clGetKernelInfo", "param_name is not one of the supported values",
        kernel_info_bad_name, CL_INVALID_VALUE),
    ROW("clGetKernelInfo", "param_value_size < size of the return type",
        kernel_info_too_small, CL_INVALID_VALUE),
    ROW("clGetKernelArgInfo", "kernel is not a valid kernel object",
        arg_info_wrong, CL_INVALID_KERNEL),
    ROW("clGetKernelArgInfo", "arg_index is not a valid argument index",
        arg_info_index, CL_INVALID_ARG_INDEX),
    ROW("clGetKernelArgInfo", "argument information not available",
        arg_info_not_available, CL_KERNEL_ARG_INFO_NOT_AVAILABLE),
    ROW("clGetKernelArgInfo", "param_name is not one of the supported values",
        arg_info_bad_name, CL_INVALID_VALUE),
    ROW("clGetKernelArgInfo", "param_value_size < size of the return type",
        arg_info_too_small, CL_INVALID_VALUE),
    ROW("clGetKernelWorkGroupInfo", "kernel is not a valid kernel object",
        wg_info_wrong_kernel, CL_INVALID_KERNEL),
    ROW("clGetKernelWorkGroupInfo", "device is not of kernel",
        wg_info_wrong_device, CL_INVALID_DEVICE),
    ROW("clGetKernelWorkGroupInfo",
        "CL_KERNEL_GLOBAL_WORK_SIZE for a kernel that is not built-in",
        wg_info_global_size, CL_INVALID_VALUE),
    ROW("clGetKernelWorkGroupInfo",
        "param_name is not one of the supported values", wg_info_bad_name,
        CL_INVALID_VALUE),
    ROW("clGetKernelWorkGroupInfo",
        "param_value_size < size of the return type", wg_info_too_small,
        CL_INVALID_VALUE),
    ROW("clGetKernelWorkGroupInfo", "device may be NULL with one device",
        wg_info_null_device, CL_SUCCESS),
    ROW("clGetKernelSubGroupInfo", "input_value is NULL", sub_group_info,
        CL_INVALID_VALUE),
};
const size_t num_object_rows = sizeof object_rows / sizeof object_rows[0];
