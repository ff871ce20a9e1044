/* This file contains Skein's ICD dispatch table: every object handle
 * points to it, and ICD loaders call through it. Every slot of the
 * 2023.02.06 cl_icd.h is filled, and OpenCL 3.1's one slot after them;
 * entry points not implemented by runtime/ resolve to the weak
 * definitions of icd/missing.c. */
#include "../runtime/core/object.h"
#include "../runtime/core/skein_cl31.h"
#include <CL/cl_icd.h>
#include <stddef.h>

#include "d3d_decls.h"

/* Debian's cl_icd.h ends at OpenCL 3.0's clSetContextDestructorCallback;
 * OpenCL-Headers v2026.05.29 appends "OpenCL 3.1":
 * clGetKernelSuggestedLocalWorkSize, the next pointer. The Khronos
 * loader of that release calls it there; ocl-icd 2.3.1 (Debian's loader)
 * knows no such slot or function. */
struct skein_icd_dispatch {
  struct _cl_icd_dispatch base;
  skein_get_kernel_suggested_local_work_size_fn
      clGetKernelSuggestedLocalWorkSize;
};
_Static_assert(offsetof(struct skein_icd_dispatch,
                        clGetKernelSuggestedLocalWorkSize) ==
                   offsetof(struct _cl_icd_dispatch,
                            clSetContextDestructorCallback) +
                       sizeof(void *),
               "the OpenCL 3.1 slot directly follows the 3.0 ones");

static const struct skein_icd_dispatch dispatch = {.base = {
  /* OpenCL 1.0 */
  .clGetPlatformIDs = clGetPlatformIDs,
  .clGetPlatformInfo = clGetPlatformInfo,
  .clGetDeviceIDs = clGetDeviceIDs,
  .clGetDeviceInfo = clGetDeviceInfo,
  .clCreateContext = clCreateContext,
  .clCreateContextFromType = clCreateContextFromType,
  .clRetainContext = clRetainContext,
  .clReleaseContext = clReleaseContext,
  .clGetContextInfo = clGetContextInfo,
  .clCreateCommandQueue = clCreateCommandQueue,
  .clRetainCommandQueue = clRetainCommandQueue,
  .clReleaseCommandQueue = clReleaseCommandQueue,
  .clGetCommandQueueInfo = clGetCommandQueueInfo,
  .clSetCommandQueueProperty = clSetCommandQueueProperty,
  .clCreateBuffer = clCreateBuffer,
  .clCreateImage2D = clCreateImage2D,
  .clCreateImage3D = clCreateImage3D,
  .clRetainMemObject = clRetainMemObject,
  .clReleaseMemObject = clReleaseMemObject,
  .clGetSupportedImageFormats = clGetSupportedImageFormats,
  .clGetMemObjectInfo = clGetMemObjectInfo,
  .clGetImageInfo = clGetImageInfo,
  .clCreateSampler = clCreateSampler,
  .clRetainSampler = clRetainSampler,
  .clReleaseSampler = clReleaseSampler,
  .clGetSamplerInfo = clGetSamplerInfo,
  .clCreateProgramWithSource = clCreateProgramWithSource,
  .clCreateProgramWithBinary = clCreateProgramWithBinary,
  .clRetainProgram = clRetainProgram,
  .clReleaseProgram = clReleaseProgram,
  .clBuildProgram = clBuildProgram,
  .clUnloadCompiler = clUnloadCompiler,
  .clGetProgramInfo = clGetProgramInfo,
  .clGetProgramBuildInfo = clGetProgramBuildInfo,
  .clCreateKernel = clCreateKernel,
  .clCreateKernelsInProgram = clCreateKernelsInProgram,
  .clRetainKernel = clRetainKernel,
  .clReleaseKernel = clReleaseKernel,
  .clSetKernelArg = clSetKernelArg,
  .clGetKernelInfo = clGetKernelInfo,
  .clGetKernelWorkGroupInfo = clGetKernelWorkGroupInfo,
  .clWaitForEvents = clWaitForEvents,
  .clGetEventInfo = clGetEventInfo,
  .clRetainEvent = clRetainEvent,
  .clReleaseEvent = clReleaseEvent,
  .clGetEventProfilingInfo = clGetEventProfilingInfo,
  .clFlush = clFlush,
  .clFinish = clFinish,
  .clEnqueueReadBuffer = clEnqueueReadBuffer,
  .clEnqueueWriteBuffer = clEnqueueWriteBuffer,
  .clEnqueueCopyBuffer = clEnqueueCopyBuffer,
  .clEnqueueReadImage = clEnqueueReadImage,
  .clEnqueueWriteImage = clEnqueueWriteImage,
  .clEnqueueCopyImage = clEnqueueCopyImage,
  .clEnqueueCopyImageToBuffer = clEnqueueCopyImageToBuffer,
  .clEnqueueCopyBufferToImage = clEnqueueCopyBufferToImage,
  .clEnqueueMapBuffer = clEnqueueMapBuffer,
  .clEnqueueMapImage = clEnqueueMapImage,
  .clEnqueueUnmapMemObject = clEnqueueUnmapMemObject,
  .clEnqueueNDRangeKernel = clEnqueueNDRangeKernel,
  .clEnqueueTask = clEnqueueTask,
  .clEnqueueNativeKernel = clEnqueueNativeKernel,
  .clEnqueueMarker = clEnqueueMarker,
  .clEnqueueWaitForEvents = clEnqueueWaitForEvents,
  .clEnqueueBarrier = clEnqueueBarrier,
  .clGetExtensionFunctionAddress = clGetExtensionFunctionAddress,
  .clCreateFromGLBuffer = clCreateFromGLBuffer,
  .clCreateFromGLTexture2D = clCreateFromGLTexture2D,
  .clCreateFromGLTexture3D = clCreateFromGLTexture3D,
  .clCreateFromGLRenderbuffer = clCreateFromGLRenderbuffer,
  .clGetGLObjectInfo = clGetGLObjectInfo,
  .clGetGLTextureInfo = clGetGLTextureInfo,
  .clEnqueueAcquireGLObjects = clEnqueueAcquireGLObjects,
  .clEnqueueReleaseGLObjects = clEnqueueReleaseGLObjects,
  .clGetGLContextInfoKHR = clGetGLContextInfoKHR,
  /* cl_khr_d3d10_sharing */
  .clGetDeviceIDsFromD3D10KHR = (void *)clGetDeviceIDsFromD3D10KHR,
  .clCreateFromD3D10BufferKHR = (void *)clCreateFromD3D10BufferKHR,
  .clCreateFromD3D10Texture2DKHR = (void *)clCreateFromD3D10Texture2DKHR,
  .clCreateFromD3D10Texture3DKHR = (void *)clCreateFromD3D10Texture3DKHR,
  .clEnqueueAcquireD3D10ObjectsKHR = (void *)clEnqueueAcquireD3D10ObjectsKHR,
  .clEnqueueReleaseD3D10ObjectsKHR = (void *)clEnqueueReleaseD3D10ObjectsKHR,
  /* OpenCL 1.1 */
  .clSetEventCallback = clSetEventCallback,
  .clCreateSubBuffer = clCreateSubBuffer,
  .clSetMemObjectDestructorCallback = clSetMemObjectDestructorCallback,
  .clCreateUserEvent = clCreateUserEvent,
  .clSetUserEventStatus = clSetUserEventStatus,
  .clEnqueueReadBufferRect = clEnqueueReadBufferRect,
  .clEnqueueWriteBufferRect = clEnqueueWriteBufferRect,
  .clEnqueueCopyBufferRect = clEnqueueCopyBufferRect,
  /* cl_ext_device_fission */
  .clCreateSubDevicesEXT = clCreateSubDevicesEXT,
  .clRetainDeviceEXT = clRetainDeviceEXT,
  .clReleaseDeviceEXT = clReleaseDeviceEXT,
  /* cl_khr_gl_event */
  .clCreateEventFromGLsyncKHR = clCreateEventFromGLsyncKHR,
  /* OpenCL 1.2 */
  .clCreateSubDevices = clCreateSubDevices,
  .clRetainDevice = clRetainDevice,
  .clReleaseDevice = clReleaseDevice,
  .clCreateImage = clCreateImage,
  .clCreateProgramWithBuiltInKernels = clCreateProgramWithBuiltInKernels,
  .clCompileProgram = clCompileProgram,
  .clLinkProgram = clLinkProgram,
  .clUnloadPlatformCompiler = clUnloadPlatformCompiler,
  .clGetKernelArgInfo = clGetKernelArgInfo,
  .clEnqueueFillBuffer = clEnqueueFillBuffer,
  .clEnqueueFillImage = clEnqueueFillImage,
  .clEnqueueMigrateMemObjects = clEnqueueMigrateMemObjects,
  .clEnqueueMarkerWithWaitList = clEnqueueMarkerWithWaitList,
  .clEnqueueBarrierWithWaitList = clEnqueueBarrierWithWaitList,
  .clGetExtensionFunctionAddressForPlatform =
      clGetExtensionFunctionAddressForPlatform,
  .clCreateFromGLTexture = clCreateFromGLTexture,
  /* cl_khr_d3d11_sharing */
  .clGetDeviceIDsFromD3D11KHR = (void *)clGetDeviceIDsFromD3D11KHR,
  .clCreateFromD3D11BufferKHR = (void *)clCreateFromD3D11BufferKHR,
  .clCreateFromD3D11Texture2DKHR = (void *)clCreateFromD3D11Texture2DKHR,
  .clCreateFromD3D11Texture3DKHR = (void *)clCreateFromD3D11Texture3DKHR,
  .clCreateFromDX9MediaSurfaceKHR = (void *)clCreateFromDX9MediaSurfaceKHR,
  .clEnqueueAcquireD3D11ObjectsKHR = (void *)clEnqueueAcquireD3D11ObjectsKHR,
  .clEnqueueReleaseD3D11ObjectsKHR = (void *)clEnqueueReleaseD3D11ObjectsKHR,
  /* cl_khr_dx9_media_sharing */
  .clGetDeviceIDsFromDX9MediaAdapterKHR =
      (void *)clGetDeviceIDsFromDX9MediaAdapterKHR,
  .clEnqueueAcquireDX9MediaSurfacesKHR =
      (void *)clEnqueueAcquireDX9MediaSurfacesKHR,
  .clEnqueueReleaseDX9MediaSurfacesKHR =
      (void *)clEnqueueReleaseDX9MediaSurfacesKHR,
  /* cl_khr_egl_image */
  .clCreateFromEGLImageKHR = clCreateFromEGLImageKHR,
  .clEnqueueAcquireEGLObjectsKHR = clEnqueueAcquireEGLObjectsKHR,
  .clEnqueueReleaseEGLObjectsKHR = clEnqueueReleaseEGLObjectsKHR,
  /* cl_khr_egl_event */
  .clCreateEventFromEGLSyncKHR = clCreateEventFromEGLSyncKHR,
  /* OpenCL 2.0 */
  .clCreateCommandQueueWithProperties = clCreateCommandQueueWithProperties,
  .clCreatePipe = clCreatePipe,
  .clGetPipeInfo = clGetPipeInfo,
  .clSVMAlloc = clSVMAlloc,
  .clSVMFree = clSVMFree,
  .clEnqueueSVMFree = clEnqueueSVMFree,
  .clEnqueueSVMMemcpy = clEnqueueSVMMemcpy,
  .clEnqueueSVMMemFill = clEnqueueSVMMemFill,
  .clEnqueueSVMMap = clEnqueueSVMMap,
  .clEnqueueSVMUnmap = clEnqueueSVMUnmap,
  .clCreateSamplerWithProperties = clCreateSamplerWithProperties,
  .clSetKernelArgSVMPointer = clSetKernelArgSVMPointer,
  .clSetKernelExecInfo = clSetKernelExecInfo,
  /* cl_khr_sub_groups */
  .clGetKernelSubGroupInfoKHR = clGetKernelSubGroupInfoKHR,
  /* OpenCL 2.1 */
  .clCloneKernel = clCloneKernel,
  .clCreateProgramWithIL = clCreateProgramWithIL,
  .clEnqueueSVMMigrateMem = clEnqueueSVMMigrateMem,
  .clGetDeviceAndHostTimer = clGetDeviceAndHostTimer,
  .clGetHostTimer = clGetHostTimer,
  .clGetKernelSubGroupInfo = clGetKernelSubGroupInfo,
  .clSetDefaultDeviceCommandQueue = clSetDefaultDeviceCommandQueue,
  /* OpenCL 2.2 */
  .clSetProgramReleaseCallback = clSetProgramReleaseCallback,
  .clSetProgramSpecializationConstant = clSetProgramSpecializationConstant,
  /* OpenCL 3.0 */
  .clCreateBufferWithProperties = clCreateBufferWithProperties,
  .clCreateImageWithProperties = clCreateImageWithProperties,
  .clSetContextDestructorCallback = clSetContextDestructorCallback,
}, /* OpenCL 3.1 */
  .clGetKernelSuggestedLocalWorkSize = clGetKernelSuggestedLocalWorkSize,
};

const void *const rt_dispatch_table = &dispatch;
