/* This file contains the pipe entry points (OpenCL 3.0 API section 5.4):
 * clCreatePipe and clGetPipeInfo. A pipe is a cl_mem (runtime/core/
 * pipe.c); clGetMemObjectInfo, clRetainMemObject and clReleaseMemObject
 * serve it as any memory object. */
#include "../core/context.h"
#include "../core/info.h"
#include "../core/pipe.h"
#include "../core/platform.h"

cl_mem CL_API_CALL clCreatePipe(cl_context context, cl_mem_flags flags,
                                cl_uint pipe_packet_size,
                                cl_uint pipe_max_packets,
                                const cl_pipe_properties *properties,
                                cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context is not a valid context. */
  RT_FAIL_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT, errcode_ret);
  /* CL_INVALID_VALUE if values specified in flags are not as defined
   * above: only CL_MEM_READ_WRITE and CL_MEM_HOST_NO_ACCESS. */
  RT_FAIL_IF(flags & ~(cl_mem_flags)(CL_MEM_READ_WRITE |
                                     CL_MEM_HOST_NO_ACCESS),
             CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_VALUE if properties is not NULL ("Currently, in all
   * OpenCL versions, properties must be NULL"). */
  RT_FAIL_IF(properties != NULL, CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_PIPE_SIZE if pipe_packet_size is 0 or the
   * pipe_packet_size exceeds CL_DEVICE_PIPE_MAX_PACKET_SIZE value
   * specified in the Device Queries table for all devices in context or
   * if pipe_max_packets is 0. */
  RT_FAIL_IF(pipe_packet_size == 0 ||
                 pipe_packet_size > RT_PIPE_MAX_PACKET_SIZE ||
                 pipe_max_packets == 0,
             CL_INVALID_PIPE_SIZE, errcode_ret);
  /* "If the value specified for flags is 0, the default is used which is
   * CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS." */
  if (flags == 0)
    flags = CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS;
  cl_int err;
  cl_mem pipe = rt_pipe_create(context, flags, pipe_packet_size,
                               pipe_max_packets, &err);
  /* CL_MEM_OBJECT_ALLOCATION_FAILURE if there is a failure to allocate
   * memory for the pipe object; CL_OUT_OF_HOST_MEMORY for the host's
   * own resources. */
  RT_FAIL_IF(!pipe, err, errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return pipe;
}

cl_int CL_API_CALL clGetPipeInfo(cl_mem pipe, cl_pipe_info param_name,
                                 size_t param_value_size, void *param_value,
                                 size_t *param_value_size_ret) {
  /* CL_INVALID_MEM_OBJECT if pipe is a not a valid pipe object. */
  RT_RETURN_IF(!rt_is_pipe(pipe), CL_INVALID_MEM_OBJECT);
  const skein_pipe *ring = rt_pipe_ring(pipe);
  switch (param_name) {
  case CL_PIPE_PACKET_SIZE:
    RT_INFO_VALUE(cl_uint, ring->packet_size);
  case CL_PIPE_MAX_PACKETS:
    RT_INFO_VALUE(cl_uint, ring->max_packets);
  /* The properties given to clCreatePipe: always NULL, for which the
   * answer is an empty list (param_value_size_ret 0). */
  case CL_PIPE_PROPERTIES:
    return rt_info(param_value_size, param_value, param_value_size_ret,
                   NULL, 0);
  default:
    /* CL_INVALID_VALUE if param_name is not valid. */
    RT_FAIL(CL_INVALID_VALUE);
  }
}
