/* This file contains the platform entry points: clGetPlatformIDs,
 * clGetPlatformInfo (also exported for ICD loaders) and the host timer
 * queries of OpenCL 2.1. */
#include "../core/command_buffer.h"
#include "../core/info.h"
#include "../core/platform.h"
#include <time.h>

cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries,
                                    cl_platform_id *platforms,
                                    cl_uint *num_platforms) {
  /* CL_INVALID_VALUE if num_entries is equal to zero and platforms is not
   * NULL or if both num_platforms and platforms are NULL. */
  RT_RETURN_IF(num_entries == 0 && platforms, CL_INVALID_VALUE);
  RT_RETURN_IF(!num_platforms && !platforms, CL_INVALID_VALUE);
  if (platforms)
    platforms[0] = rt_platform();
  if (num_platforms)
    *num_platforms = 1;
  return CL_SUCCESS;
}

/* The resolution of rt_now_ns in nanoseconds (at least 1). */
static cl_ulong rt_host_timer_resolution(void) {
  struct timespec res;
  if (clock_getres(CLOCK_MONOTONIC, &res) != 0)
    return 1;
  cl_ulong ns = (cl_ulong)res.tv_sec * 1000000000u + (cl_ulong)res.tv_nsec;
  return ns ? ns : 1;
}

/* Exported with its standard name: loaders may call it directly on a
 * platform handle they got from clIcdGetPlatformIDsKHR. */
__attribute__((visibility("default"))) cl_int CL_API_CALL
clGetPlatformInfo(cl_platform_id platform, cl_platform_info param_name,
                  size_t param_value_size, void *param_value,
                  size_t *param_value_size_ret) {
  /* CL_INVALID_PLATFORM if platform is not a valid platform. */
  RT_RETURN_IF(!rt_is(platform, RT_PLATFORM), CL_INVALID_PLATFORM);
  static const cl_name_version extensions[] = {
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_icd"},
  };
  switch (param_name) {
  case CL_PLATFORM_PROFILE:
    RT_INFO_STRING("FULL_PROFILE");
  case CL_PLATFORM_VERSION:
    /* 3.0 until every 3.1 requirement is met (docs/opencl-3.1.md). */
    RT_INFO_STRING(rt_opencl_3_1() ? "OpenCL 3.1 Skein " RT_DRIVER_VERSION
                                   : "OpenCL 3.0 Skein " RT_DRIVER_VERSION);
  case CL_PLATFORM_NUMERIC_VERSION:
    RT_INFO_VALUE(cl_version, rt_opencl_3_1() ? CL_MAKE_VERSION(3, 1, 0)
                                              : CL_MAKE_VERSION(3, 0, 0));
  case CL_PLATFORM_NAME:
    RT_INFO_STRING("Skein");
  case CL_PLATFORM_VENDOR:
    RT_INFO_STRING("The Skein project");
  case CL_PLATFORM_EXTENSIONS:
    RT_INFO_STRING(rt_platform_extensions());
  case CL_PLATFORM_EXTENSIONS_WITH_VERSION:
    RT_INFO_ARRAY(extensions, sizeof extensions / sizeof extensions[0]);
  case CL_PLATFORM_HOST_TIMER_RESOLUTION:
    RT_INFO_VALUE(cl_ulong, rt_host_timer_resolution());
  case CL_PLATFORM_ICD_SUFFIX_KHR:
    RT_INFO_STRING("skein");
  case CL_PLATFORM_COMMAND_BUFFER_CAPABILITIES_KHR:
    /* cl_khr_command_buffer_multi_device (runtime/core/command_buffer.h). */
    RT_INFO_VALUE(cl_bitfield, RT_CB_PLATFORM_CAPABILITIES);
  }
  /* CL_INVALID_VALUE if param_name is not one of the supported values. */
  rt_debug("%s: unknown param_name 0x%x -> CL_INVALID_VALUE\n", __func__,
           (unsigned)param_name);
  return CL_INVALID_VALUE;
}

cl_int CL_API_CALL clGetHostTimer(cl_device_id device,
                                  cl_ulong *host_timestamp) {
  /* CL_INVALID_DEVICE if device is not a valid device. */
  RT_RETURN_IF(!rt_is(device, RT_DEVICE), CL_INVALID_DEVICE);
  /* CL_INVALID_VALUE if host_timestamp is NULL. */
  RT_RETURN_IF(!host_timestamp, CL_INVALID_VALUE);
  *host_timestamp = rt_now_ns();
  return CL_SUCCESS;
}

cl_int CL_API_CALL clGetDeviceAndHostTimer(cl_device_id device,
                                           cl_ulong *device_timestamp,
                                           cl_ulong *host_timestamp) {
  /* CL_INVALID_DEVICE if device is not a valid device. */
  RT_RETURN_IF(!rt_is(device, RT_DEVICE), CL_INVALID_DEVICE);
  /* CL_INVALID_VALUE if host_timestamp or device_timestamp is NULL. */
  RT_RETURN_IF(!host_timestamp || !device_timestamp, CL_INVALID_VALUE);
  /* The device clock is the host clock: one reading serves both. */
  *device_timestamp = *host_timestamp = rt_now_ns();
  return CL_SUCCESS;
}
