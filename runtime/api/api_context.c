/* This file contains the cl*Context* entry points: validation of the
 * properties and device lists, reference counting, info queries and
 * destructor callbacks. */
#include "../core/context.h"
#include "../core/info.h"
#include "../core/platform.h"
#include "../core/trace.h"
#include "../core/sub_device.h"
#include <stdlib.h>

bool rt_context_has_device(cl_context ctx, cl_device_id device) {
  for (cl_uint i = 0; i < ctx->num_devices; i++)
    if (ctx->devices[i] == device)
      return true;
  return false;
}

/* Copies the device list, dropping duplicates ("duplicate devices
 * specified in devices are ignored"), and retains the sub-devices. */
static cl_int copy_devices(cl_context ctx, cl_uint num_devices,
                           const cl_device_id *devices) {
  ctx->devices = malloc(sizeof *devices * num_devices);
  RT_RETURN_IF(!ctx->devices, CL_OUT_OF_HOST_MEMORY);
  for (cl_uint i = 0; i < num_devices; i++) {
    if (rt_context_has_device(ctx, devices[i]))
      continue;
    ctx->devices[ctx->num_devices++] = devices[i];
    rt_device_retain(devices[i]);
  }
  ctx->device = ctx->devices[0];
  return CL_SUCCESS;
}

/* Drops the context's references to its sub-devices. */
static void release_devices(cl_context ctx) {
  for (cl_uint i = 0; i < ctx->num_devices; i++)
    rt_device_release(ctx->devices[i]);
  free(ctx->devices);
}

/* Checks a context property list and copies it. Returns CL_SUCCESS or
 * the spec's error. */
static cl_int copy_properties(cl_context ctx,
                              const cl_context_properties *props) {
  if (!props)
    return CL_SUCCESS;
  size_t n = 0;
  bool seen_platform = false, seen_sync = false;
  for (; props[n]; n += 2) {
    switch (props[n]) {
    case CL_CONTEXT_PLATFORM:
      /* CL_INVALID_PROPERTY if the same property name is specified more
       * than once. */
      RT_RETURN_IF(seen_platform, CL_INVALID_PROPERTY);
      seen_platform = true;
      /* CL_INVALID_PLATFORM if the platform value is not a valid one. */
      RT_RETURN_IF((cl_platform_id)props[n + 1] != rt_platform(),
                   CL_INVALID_PLATFORM);
      break;
    case CL_CONTEXT_INTEROP_USER_SYNC:
      RT_RETURN_IF(seen_sync, CL_INVALID_PROPERTY);
      seen_sync = true;
      /* CL_INVALID_PROPERTY if the value specified for a supported
       * property name is not valid (a cl_bool). */
      RT_RETURN_IF(props[n + 1] != CL_TRUE && props[n + 1] != CL_FALSE,
                   CL_INVALID_PROPERTY);
      break;
    default:
      /* CL_INVALID_PROPERTY if context property name in properties is
       * not a supported property name. */
      RT_FAIL(CL_INVALID_PROPERTY);
    }
  }
  ctx->num_properties = n + 1;
  ctx->properties = malloc(sizeof *props * ctx->num_properties);
  RT_RETURN_IF(!ctx->properties, CL_OUT_OF_HOST_MEMORY);
  for (size_t i = 0; i < ctx->num_properties; i++)
    ctx->properties[i] = props[i];
  return CL_SUCCESS;
}

/* Creates a context on the devices; arguments already checked except the
 * properties. */
static cl_context context_new(const cl_context_properties *properties,
                              cl_uint num_devices,
                              const cl_device_id *devices,
                              void(CL_CALLBACK *notify)(const char *,
                                                        const void *, size_t,
                                                        void *),
                              void *user_data, cl_int *errcode_ret) {
  cl_int err = CL_OUT_OF_HOST_MEMORY;
  cl_context ctx = calloc(1, sizeof *ctx);
  if (!ctx)
    goto out_fail;
  rt_object_init(&ctx->obj, RT_CONTEXT);
  ctx->notify = notify;
  ctx->notify_data = user_data;
  pthread_mutex_init(&ctx->lock, NULL);
  err = copy_properties(ctx, properties);
  if (err == CL_SUCCESS)
    err = copy_devices(ctx, num_devices, devices);
  if (err != CL_SUCCESS)
    goto out_free_ctx;
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return ctx;

out_free_ctx:
  release_devices(ctx);
  pthread_mutex_destroy(&ctx->lock);
  free(ctx->properties);
  free(ctx);
out_fail:
  if (errcode_ret)
    *errcode_ret = err;
  return NULL;
}

cl_context CL_API_CALL clCreateContext(
    const cl_context_properties *properties, cl_uint num_devices,
    const cl_device_id *devices,
    void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *),
    void *user_data, cl_int *errcode_ret) {
  /* CL_INVALID_VALUE if devices is NULL or num_devices is 0. */
  RT_FAIL_IF(!devices || num_devices == 0, CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL. */
  RT_FAIL_IF(!pfn_notify && user_data, CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_DEVICE if any device in devices is not a valid device. */
  for (cl_uint i = 0; i < num_devices; i++)
    RT_FAIL_IF(!rt_is(devices[i], RT_DEVICE), CL_INVALID_DEVICE, errcode_ret);
  return context_new(properties, num_devices, devices, pfn_notify,
                     user_data, errcode_ret);
}

cl_context CL_API_CALL clCreateContextFromType(
    const cl_context_properties *properties, cl_device_type device_type,
    void(CL_CALLBACK *pfn_notify)(const char *, const void *, size_t, void *),
    void *user_data, cl_int *errcode_ret) {
  RT_FAIL_IF(!pfn_notify && user_data, CL_INVALID_VALUE, errcode_ret);
  const cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU |
                               CL_DEVICE_TYPE_GPU |
                               CL_DEVICE_TYPE_ACCELERATOR |
                               CL_DEVICE_TYPE_CUSTOM;
  /* CL_INVALID_DEVICE_TYPE if device_type is not a valid value. */
  RT_FAIL_IF(device_type == 0 ||
                 (device_type != CL_DEVICE_TYPE_ALL && (device_type & ~known)),
             CL_INVALID_DEVICE_TYPE, errcode_ret);
  /* CL_DEVICE_NOT_FOUND if no devices that match device_type and property
   * values specified in properties are currently available. */
  RT_FAIL_IF(device_type != CL_DEVICE_TYPE_ALL &&
                 !(device_type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT)),
             CL_DEVICE_NOT_FOUND, errcode_ret);
  cl_device_id root = rt_device();
  return context_new(properties, 1, &root, pfn_notify, user_data,
                     errcode_ret);
}

cl_int CL_API_CALL clRetainContext(cl_context context) {
  RT_RETURN_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT);
  rt_retain(context);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clReleaseContext(cl_context context) {
  RT_RETURN_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT);
  /* SKEIN_TRACE: the file is complete up to here (at every release: the
   * last reference may belong to a command's event on another thread). */
  rt_trace_flush();
  if (!rt_release_last(context))
    return CL_SUCCESS;
  /* Destructor callbacks run in reverse order of registration, which is
   * the list's order (each is pushed at the head). */
  for (rt_context_callback *c = context->destructors, *next; c; c = next) {
    next = c->next;
    c->fn(context, c->user_data);
    free(c);
  }
  release_devices(context);
  pthread_mutex_destroy(&context->lock);
  free(context->properties);
  free(context);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clSetContextDestructorCallback(
    cl_context context,
    void(CL_CALLBACK *pfn_notify)(cl_context, void *), void *user_data) {
  RT_RETURN_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT);
  /* CL_INVALID_VALUE if pfn_notify is NULL. */
  RT_RETURN_IF(!pfn_notify, CL_INVALID_VALUE);
  rt_context_callback *c = malloc(sizeof *c);
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  c->fn = pfn_notify;
  c->user_data = user_data;
  pthread_mutex_lock(&context->lock);
  c->next = context->destructors;
  context->destructors = c;
  pthread_mutex_unlock(&context->lock);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clGetContextInfo(cl_context context,
                                    cl_context_info param_name,
                                    size_t param_value_size, void *param_value,
                                    size_t *param_value_size_ret) {
  RT_RETURN_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT);
  switch (param_name) {
  case CL_CONTEXT_REFERENCE_COUNT:
    RT_INFO_VALUE(cl_uint, rt_refcount(context));
  case CL_CONTEXT_NUM_DEVICES:
    RT_INFO_VALUE(cl_uint, context->num_devices);
  case CL_CONTEXT_DEVICES:
    RT_INFO_ARRAY(context->devices, context->num_devices);
  case CL_CONTEXT_PROPERTIES:
    RT_INFO_ARRAY(context->properties, context->num_properties);
  default:
    RT_FAIL(CL_INVALID_VALUE);
  }
}
