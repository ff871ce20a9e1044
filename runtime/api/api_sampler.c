/* This file contains the sampler entry points: creation from arguments or
 * a property list, reference counting and clGetSamplerInfo. Without image
 * support (SKEIN_IMAGES=1 unset) creation fails with CL_INVALID_OPERATION,
 * so no sampler exists and the others answer CL_INVALID_SAMPLER. */
#include "../core/context.h"
#include "../core/image.h"
#include "../core/info.h"
#include "../core/sampler.h"

static bool addressing_valid(cl_addressing_mode a) {
  return a == CL_ADDRESS_NONE || a == CL_ADDRESS_CLAMP_TO_EDGE ||
         a == CL_ADDRESS_CLAMP || a == CL_ADDRESS_REPEAT ||
         a == CL_ADDRESS_MIRRORED_REPEAT;
}

static bool filter_valid(cl_filter_mode f) {
  return f == CL_FILTER_NEAREST || f == CL_FILTER_LINEAR;
}

static bool bool_valid(cl_bool b) { return b == CL_TRUE || b == CL_FALSE; }

/* The checks both creators share; then creates. Every combination of
 * valid values is accepted: OpenCL C only says that REPEAT and
 * MIRRORED_REPEAT without normalised coordinates give undefined
 * coordinates, so the kernel side must keep such reads in bounds. */
static cl_int create_sampler(cl_context context, cl_bool normalized,
                             cl_addressing_mode addressing,
                             cl_filter_mode filter,
                             const cl_sampler_properties *props,
                             size_t num_props, cl_sampler *out) {
  /* CL_INVALID_VALUE if addressing_mode, filter_mode, normalized_coords
   * or a combination of these arguments are not valid. */
  RT_RETURN_IF(!bool_valid(normalized) || !addressing_valid(addressing) ||
                   !filter_valid(filter),
               CL_INVALID_VALUE);
  *out = rt_sampler_new(context, normalized, addressing, filter, props,
                        num_props);
  RT_RETURN_IF(!*out, CL_OUT_OF_HOST_MEMORY);
  return CL_SUCCESS;
}

cl_sampler CL_API_CALL clCreateSampler(cl_context context,
                                       cl_bool normalized_coords,
                                       cl_addressing_mode addressing_mode,
                                       cl_filter_mode filter_mode,
                                       cl_int *errcode_ret) {
  RT_FAIL_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT, errcode_ret);
  /* CL_INVALID_OPERATION if images are not supported by any device
   * associated with context. */
  RT_FAIL_IF(!rt_images_enabled(), CL_INVALID_OPERATION, errcode_ret);
  cl_sampler s = NULL;
  cl_int err = create_sampler(context, normalized_coords, addressing_mode,
                              filter_mode, NULL, 0, &s);
  if (errcode_ret)
    *errcode_ret = err;
  return s;
}

cl_sampler CL_API_CALL clCreateSamplerWithProperties(
    cl_context context, const cl_sampler_properties *sampler_properties,
    cl_int *errcode_ret) {
  RT_FAIL_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT, errcode_ret);
  RT_FAIL_IF(!rt_images_enabled(), CL_INVALID_OPERATION, errcode_ret);
  /* Defaults: normalised coordinates, CL_ADDRESS_CLAMP,
   * CL_FILTER_NEAREST. */
  cl_bool normalized = CL_TRUE;
  cl_addressing_mode addressing = CL_ADDRESS_CLAMP;
  cl_filter_mode filter = CL_FILTER_NEAREST;
  bool seen[3] = {false, false, false};
  size_t n = 0;
  for (const cl_sampler_properties *p = sampler_properties; p && p[0];
       p += 2, n += 2) {
    int which = p[0] == CL_SAMPLER_NORMALIZED_COORDS  ? 0
                : p[0] == CL_SAMPLER_ADDRESSING_MODE ? 1
                : p[0] == CL_SAMPLER_FILTER_MODE     ? 2
                                                     : -1;
    /* CL_INVALID_VALUE if the property name in sampler_properties is not
     * a supported property name, or if the same property name is
     * specified more than once (values are checked below). */
    RT_FAIL_IF(which < 0 || seen[which], CL_INVALID_VALUE, errcode_ret);
    seen[which] = true;
    if (which == 0)
      normalized = (cl_bool)p[1];
    else if (which == 1)
      addressing = (cl_addressing_mode)p[1];
    else
      filter = (cl_filter_mode)p[1];
    /* A value that does not fit its type is not valid either. */
    RT_FAIL_IF((cl_sampler_properties)(which == 0   ? (cl_ulong)normalized
                                       : which == 1 ? (cl_ulong)addressing
                                                    : (cl_ulong)filter) !=
                   p[1],
               CL_INVALID_VALUE, errcode_ret);
  }
  cl_sampler s = NULL;
  cl_int err = create_sampler(context, normalized, addressing, filter,
                              sampler_properties,
                              sampler_properties ? n + 1 : 0, &s);
  if (errcode_ret)
    *errcode_ret = err;
  return s;
}

cl_int CL_API_CALL clRetainSampler(cl_sampler sampler) {
  /* CL_INVALID_SAMPLER if sampler is not a valid sampler object. */
  RT_RETURN_IF(!rt_is(sampler, RT_SAMPLER), CL_INVALID_SAMPLER);
  rt_retain(sampler);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clReleaseSampler(cl_sampler sampler) {
  /* CL_INVALID_SAMPLER if sampler is not a valid sampler object. */
  RT_RETURN_IF(!rt_is(sampler, RT_SAMPLER), CL_INVALID_SAMPLER);
  rt_sampler_release(sampler);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clGetSamplerInfo(cl_sampler sampler,
                                    cl_sampler_info param_name,
                                    size_t param_value_size,
                                    void *param_value,
                                    size_t *param_value_size_ret) {
  /* CL_INVALID_SAMPLER if sampler is a not a valid sampler object. */
  RT_RETURN_IF(!rt_is(sampler, RT_SAMPLER), CL_INVALID_SAMPLER);
  switch (param_name) {
  case CL_SAMPLER_REFERENCE_COUNT:
    RT_INFO_VALUE(cl_uint, rt_refcount(sampler));
  case CL_SAMPLER_CONTEXT:
    RT_INFO_VALUE(cl_context, sampler->context);
  case CL_SAMPLER_NORMALIZED_COORDS:
    RT_INFO_VALUE(cl_bool, sampler->normalized_coords);
  case CL_SAMPLER_ADDRESSING_MODE:
    RT_INFO_VALUE(cl_addressing_mode, sampler->addressing_mode);
  case CL_SAMPLER_FILTER_MODE:
    RT_INFO_VALUE(cl_filter_mode, sampler->filter_mode);
  /* The properties as given, in order; size 0 if there were none. */
  case CL_SAMPLER_PROPERTIES:
    return rt_info(param_value_size, param_value, param_value_size_ret,
                   sampler->props,
                   sampler->num_props * sizeof *sampler->props);
  default:
    /* CL_INVALID_VALUE if param_name is not valid. */
    RT_FAIL(CL_INVALID_VALUE);
  }
}
