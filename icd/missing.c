/* This file contains the entry points of the ICD dispatch table that
 * Skein does not implement yet (sub-devices, native kernels,
 * GL/EGL/D3D sharing). Each answers with the error the
 * OpenCL 3.0 specification names when the device lacks the feature.
 * Implementing one means deleting its stub here. */
#include "../runtime/core/object.h"
#include <CL/cl_egl.h>
#include <CL/cl_gl.h>

/* Stubs ignore most of their arguments by design. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Weak, so that an implementation in runtime/ replaces a stub without a
 * link error; docs/features.md lists every function still stubbed here. */
#define WEAK __attribute__((weak))

/* Reports an unsupported call on the debug channel and returns err
 * (MISSING), or stores it in *errcode_ret and returns NULL (MISSING_OBJ). */
#define MISSING(err)                                                       \
  do {                                                                     \
    rt_debug("%s: not supported -> %s\n", __func__, #err);                \
    return (err);                                                          \
  } while (0)
#define MISSING_OBJ(err, errcode_ret)                                      \
  do {                                                                     \
    rt_debug("%s: not supported -> %s\n", __func__, #err);                \
    if (errcode_ret)                                                       \
      *(errcode_ret) = (err);                                              \
    return NULL;                                                           \
  } while (0)

#include "d3d_decls.h"

WEAK cl_int CL_API_CALL clSetCommandQueueProperty(
    cl_command_queue command_queue,
    cl_command_queue_properties properties,
    cl_bool enable,
    cl_command_queue_properties *old_properties) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command queue
   * object. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* Not implemented in this build (the real definition lives in runtime/). */
  MISSING(CL_INVALID_OPERATION);
}

WEAK cl_int CL_API_CALL clEnqueueNativeKernel(
    cl_command_queue command_queue,
    void (CL_CALLBACK *user_func)(void *),
    void *args,
    size_t cb_args,
    cl_uint num_mem_objects,
    const cl_mem *mem_list,
    const void **args_mem_loc,
    cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list,
    cl_event *event) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command queue
   * object. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_OPERATION if the device associated with command_queue cannot
   * execute the native kernel (CL_DEVICE_EXECUTION_CAPABILITIES lacks
   * CL_EXEC_NATIVE_KERNEL). */
  MISSING(CL_INVALID_OPERATION);
}

WEAK cl_mem CL_API_CALL clCreateFromGLBuffer(cl_context context,
                                             cl_mem_flags flags,
                                             cl_GLuint bufobj,
                                             cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context was not created from a GL context: Skein
   * creates none (no cl_khr_gl_sharing). */
  MISSING_OBJ(CL_INVALID_CONTEXT, errcode_ret);
}

WEAK cl_mem CL_API_CALL clCreateFromGLTexture2D(cl_context context,
                                                cl_mem_flags flags,
                                                cl_GLenum target,
                                                cl_GLint miplevel,
                                                cl_GLuint texture,
                                                cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context was not created from a GL context: Skein
   * creates none (no cl_khr_gl_sharing). */
  MISSING_OBJ(CL_INVALID_CONTEXT, errcode_ret);
}

WEAK cl_mem CL_API_CALL clCreateFromGLTexture3D(cl_context context,
                                                cl_mem_flags flags,
                                                cl_GLenum target,
                                                cl_GLint miplevel,
                                                cl_GLuint texture,
                                                cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context was not created from a GL context: Skein
   * creates none (no cl_khr_gl_sharing). */
  MISSING_OBJ(CL_INVALID_CONTEXT, errcode_ret);
}

WEAK cl_mem CL_API_CALL clCreateFromGLRenderbuffer(
    cl_context context,
    cl_mem_flags flags,
    cl_GLuint renderbuffer,
    cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context was not created from a GL context: Skein
   * creates none (no cl_khr_gl_sharing). */
  MISSING_OBJ(CL_INVALID_CONTEXT, errcode_ret);
}

WEAK cl_int CL_API_CALL clGetGLObjectInfo(cl_mem memobj,
                                          cl_gl_object_type *gl_object_type,
                                          cl_GLuint *gl_object_name) {
  /* CL_INVALID_MEM_OBJECT if memobj is not a valid mem object. */
  RT_RETURN_IF(!rt_is(memobj, RT_MEM), CL_INVALID_MEM_OBJECT);
  /* CL_INVALID_GL_OBJECT if there is no GL object associated with memobj:
   * Skein has no GL sharing. */
  MISSING(CL_INVALID_GL_OBJECT);
}

WEAK cl_int CL_API_CALL clGetGLTextureInfo(cl_mem memobj,
                                           cl_gl_texture_info param_name,
                                           size_t param_value_size,
                                           void *param_value,
                                           size_t *param_value_size_ret) {
  /* CL_INVALID_MEM_OBJECT if memobj is not a valid mem object. */
  RT_RETURN_IF(!rt_is(memobj, RT_MEM), CL_INVALID_MEM_OBJECT);
  /* CL_INVALID_GL_OBJECT if there is no GL object associated with memobj:
   * Skein has no GL sharing. */
  MISSING(CL_INVALID_GL_OBJECT);
}

WEAK cl_int CL_API_CALL clEnqueueAcquireGLObjects(
    cl_command_queue command_queue,
    cl_uint num_objects,
    const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list,
    cl_event *event) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command queue
   * object. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_CONTEXT if the context associated with command_queue was not
   * created from a GL context: Skein creates none. */
  MISSING(CL_INVALID_CONTEXT);
}

WEAK cl_int CL_API_CALL clEnqueueReleaseGLObjects(
    cl_command_queue command_queue,
    cl_uint num_objects,
    const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list,
    cl_event *event) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command queue
   * object. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_CONTEXT if the context associated with command_queue was not
   * created from a GL context: Skein creates none. */
  MISSING(CL_INVALID_CONTEXT);
}

WEAK cl_int CL_API_CALL clGetGLContextInfoKHR(
    const cl_context_properties *properties,
    cl_gl_context_info param_name,
    size_t param_value_size,
    void *param_value,
    size_t *param_value_size_ret) {
  /* CL_INVALID_OPERATION if a GL context or share group is given for a
   * window-system binding the implementation does not support: Skein
   * supports none. */
  MISSING(CL_INVALID_OPERATION);
}

WEAK cl_int CL_API_CALL clGetDeviceIDsFromD3D10KHR(
    cl_platform_id platform,
    cl_uint d3d_device_source,
    void *d3d_object,
    cl_uint d3d_device_set,
    cl_uint num_entries,
    cl_device_id *devices,
    cl_uint *num_devices) {
  /* CL_INVALID_PLATFORM if platform is not a valid platform. */
  RT_RETURN_IF(!rt_is(platform, RT_PLATFORM), CL_INVALID_PLATFORM);
  /* CL_DEVICE_NOT_FOUND if no OpenCL devices that correspond to the Direct3D
   * / DX9 object were found: Skein shares with none (and loaders dispatch
   * these on Windows only). */
  MISSING(CL_DEVICE_NOT_FOUND);
}

WEAK cl_mem CL_API_CALL clCreateFromD3D10BufferKHR(
    cl_context context,
    cl_mem_flags flags,
    void *resource,
    cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context was not created with a Direct3D / DX9
   * device: Skein creates none. */
  MISSING_OBJ(CL_INVALID_CONTEXT, errcode_ret);
}

WEAK cl_mem CL_API_CALL clCreateFromD3D10Texture2DKHR(
    cl_context context,
    cl_mem_flags flags,
    void *resource,
    unsigned subresource,
    cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context was not created with a Direct3D / DX9
   * device: Skein creates none. */
  MISSING_OBJ(CL_INVALID_CONTEXT, errcode_ret);
}

WEAK cl_mem CL_API_CALL clCreateFromD3D10Texture3DKHR(
    cl_context context,
    cl_mem_flags flags,
    void *resource,
    unsigned subresource,
    cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context was not created with a Direct3D / DX9
   * device: Skein creates none. */
  MISSING_OBJ(CL_INVALID_CONTEXT, errcode_ret);
}

WEAK cl_int CL_API_CALL clEnqueueAcquireD3D10ObjectsKHR(
    cl_command_queue command_queue,
    cl_uint num_objects,
    const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list,
    cl_event *event) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command queue
   * object. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_CONTEXT if the context of command_queue was not created with
   * a Direct3D / DX9 device: Skein creates none. */
  MISSING(CL_INVALID_CONTEXT);
}

WEAK cl_int CL_API_CALL clEnqueueReleaseD3D10ObjectsKHR(
    cl_command_queue command_queue,
    cl_uint num_objects,
    const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list,
    cl_event *event) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command queue
   * object. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_CONTEXT if the context of command_queue was not created with
   * a Direct3D / DX9 device: Skein creates none. */
  MISSING(CL_INVALID_CONTEXT);
}

WEAK cl_int CL_API_CALL clCreateSubDevicesEXT(
    cl_device_id in_device,
    const cl_device_partition_property_ext *properties,
    cl_uint num_entries,
    cl_device_id *out_devices,
    cl_uint *num_devices) {
  /* CL_INVALID_DEVICE if in_device is not a valid device object. */
  RT_RETURN_IF(!rt_is(in_device, RT_DEVICE), CL_INVALID_DEVICE);
  /* CL_INVALID_VALUE if the partition type in properties is not supported:
   * the device reports none (cl_ext_device_fission is not listed). */
  MISSING(CL_INVALID_VALUE);
}

WEAK cl_int CL_API_CALL clRetainDeviceEXT(cl_device_id device) {
  /* The same semantics as clRetainDevice. */
  return clRetainDevice(device);
}

WEAK cl_int CL_API_CALL clReleaseDeviceEXT(cl_device_id device) {
  /* The same semantics as clReleaseDevice. */
  return clReleaseDevice(device);
}

WEAK cl_event CL_API_CALL clCreateEventFromGLsyncKHR(
    cl_context context,
    cl_GLsync sync,
    cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context was not created from a GL context: Skein
   * creates none (no cl_khr_gl_sharing). */
  MISSING_OBJ(CL_INVALID_CONTEXT, errcode_ret);
}

WEAK cl_int CL_API_CALL clCreateSubDevices(
    cl_device_id in_device,
    const cl_device_partition_property *properties,
    cl_uint num_devices,
    cl_device_id *out_devices,
    cl_uint *num_devices_ret) {
  /* CL_INVALID_DEVICE if in_device is not a valid device object. */
  RT_RETURN_IF(!rt_is(in_device, RT_DEVICE), CL_INVALID_DEVICE);
  /* Not implemented in this build (the real definition lives in runtime/). */
  MISSING(CL_INVALID_OPERATION);
}

WEAK cl_mem CL_API_CALL clCreateFromGLTexture(cl_context context,
                                              cl_mem_flags flags,
                                              cl_GLenum target,
                                              cl_GLint miplevel,
                                              cl_GLuint texture,
                                              cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context was not created from a GL context: Skein
   * creates none (no cl_khr_gl_sharing). */
  MISSING_OBJ(CL_INVALID_CONTEXT, errcode_ret);
}

WEAK cl_int CL_API_CALL clGetDeviceIDsFromD3D11KHR(
    cl_platform_id platform,
    cl_uint d3d_device_source,
    void *d3d_object,
    cl_uint d3d_device_set,
    cl_uint num_entries,
    cl_device_id *devices,
    cl_uint *num_devices) {
  /* CL_INVALID_PLATFORM if platform is not a valid platform. */
  RT_RETURN_IF(!rt_is(platform, RT_PLATFORM), CL_INVALID_PLATFORM);
  /* CL_DEVICE_NOT_FOUND if no OpenCL devices that correspond to the Direct3D
   * / DX9 object were found: Skein shares with none (and loaders dispatch
   * these on Windows only). */
  MISSING(CL_DEVICE_NOT_FOUND);
}

WEAK cl_mem CL_API_CALL clCreateFromD3D11BufferKHR(
    cl_context context,
    cl_mem_flags flags,
    void *resource,
    cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context was not created with a Direct3D / DX9
   * device: Skein creates none. */
  MISSING_OBJ(CL_INVALID_CONTEXT, errcode_ret);
}

WEAK cl_mem CL_API_CALL clCreateFromD3D11Texture2DKHR(
    cl_context context,
    cl_mem_flags flags,
    void *resource,
    unsigned subresource,
    cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context was not created with a Direct3D / DX9
   * device: Skein creates none. */
  MISSING_OBJ(CL_INVALID_CONTEXT, errcode_ret);
}

WEAK cl_mem CL_API_CALL clCreateFromD3D11Texture3DKHR(
    cl_context context,
    cl_mem_flags flags,
    void *resource,
    unsigned subresource,
    cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context was not created with a Direct3D / DX9
   * device: Skein creates none. */
  MISSING_OBJ(CL_INVALID_CONTEXT, errcode_ret);
}

WEAK cl_mem CL_API_CALL clCreateFromDX9MediaSurfaceKHR(
    cl_context context,
    cl_mem_flags flags,
    cl_uint adapter_type,
    void *surface_info,
    cl_uint plane,
    cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context was not created with a Direct3D / DX9
   * device: Skein creates none. */
  MISSING_OBJ(CL_INVALID_CONTEXT, errcode_ret);
}

WEAK cl_int CL_API_CALL clEnqueueAcquireD3D11ObjectsKHR(
    cl_command_queue command_queue,
    cl_uint num_objects,
    const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list,
    cl_event *event) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command queue
   * object. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_CONTEXT if the context of command_queue was not created with
   * a Direct3D / DX9 device: Skein creates none. */
  MISSING(CL_INVALID_CONTEXT);
}

WEAK cl_int CL_API_CALL clEnqueueReleaseD3D11ObjectsKHR(
    cl_command_queue command_queue,
    cl_uint num_objects,
    const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list,
    cl_event *event) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command queue
   * object. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_CONTEXT if the context of command_queue was not created with
   * a Direct3D / DX9 device: Skein creates none. */
  MISSING(CL_INVALID_CONTEXT);
}

WEAK cl_int CL_API_CALL clGetDeviceIDsFromDX9MediaAdapterKHR(
    cl_platform_id platform,
    cl_uint num_media_adapters,
    cl_uint *media_adapter_type,
    void *media_adapters,
    cl_uint media_adapter_set,
    cl_uint num_entries,
    cl_device_id *devices,
    cl_uint *num_devices) {
  /* CL_INVALID_PLATFORM if platform is not a valid platform. */
  RT_RETURN_IF(!rt_is(platform, RT_PLATFORM), CL_INVALID_PLATFORM);
  /* CL_DEVICE_NOT_FOUND if no OpenCL devices that correspond to the Direct3D
   * / DX9 object were found: Skein shares with none (and loaders dispatch
   * these on Windows only). */
  MISSING(CL_DEVICE_NOT_FOUND);
}

WEAK cl_int CL_API_CALL clEnqueueAcquireDX9MediaSurfacesKHR(
    cl_command_queue command_queue,
    cl_uint num_objects,
    const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list,
    cl_event *event) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command queue
   * object. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_CONTEXT if the context of command_queue was not created with
   * a Direct3D / DX9 device: Skein creates none. */
  MISSING(CL_INVALID_CONTEXT);
}

WEAK cl_int CL_API_CALL clEnqueueReleaseDX9MediaSurfacesKHR(
    cl_command_queue command_queue,
    cl_uint num_objects,
    const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list,
    cl_event *event) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command queue
   * object. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_CONTEXT if the context of command_queue was not created with
   * a Direct3D / DX9 device: Skein creates none. */
  MISSING(CL_INVALID_CONTEXT);
}

WEAK cl_mem CL_API_CALL clCreateFromEGLImageKHR(
    cl_context context,
    CLeglDisplayKHR egldisplay,
    CLeglImageKHR eglimage,
    cl_mem_flags flags,
    const cl_egl_image_properties_khr *properties,
    cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context is not a valid context object. */
  RT_FAIL_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT, errcode_ret);
  /* CL_INVALID_EGL_OBJECT_KHR if the EGL object is not valid for us: Skein
   * has no cl_khr_egl_image / cl_khr_egl_event, so none is. */
  MISSING_OBJ(CL_INVALID_EGL_OBJECT_KHR, errcode_ret);
}

WEAK cl_int CL_API_CALL clEnqueueAcquireEGLObjectsKHR(
    cl_command_queue command_queue,
    cl_uint num_objects,
    const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list,
    cl_event *event) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command queue
   * object. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_EGL_OBJECT_KHR if the EGL object is not valid for us: Skein
   * has no cl_khr_egl_image / cl_khr_egl_event, so none is. */
  MISSING(CL_INVALID_EGL_OBJECT_KHR);
}

WEAK cl_int CL_API_CALL clEnqueueReleaseEGLObjectsKHR(
    cl_command_queue command_queue,
    cl_uint num_objects,
    const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list,
    cl_event *event) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid command queue
   * object. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_EGL_OBJECT_KHR if the EGL object is not valid for us: Skein
   * has no cl_khr_egl_image / cl_khr_egl_event, so none is. */
  MISSING(CL_INVALID_EGL_OBJECT_KHR);
}

WEAK cl_event CL_API_CALL clCreateEventFromEGLSyncKHR(
    cl_context context,
    CLeglSyncKHR sync,
    CLeglDisplayKHR display,
    cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context is not a valid context object. */
  RT_FAIL_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT, errcode_ret);
  /* CL_INVALID_EGL_OBJECT_KHR if the EGL object is not valid for us: Skein
   * has no cl_khr_egl_image / cl_khr_egl_event, so none is. */
  MISSING_OBJ(CL_INVALID_EGL_OBJECT_KHR, errcode_ret);
}
