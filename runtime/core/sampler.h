/* This file declares sampler objects: a context, the three sampling
 * properties, the property list they were made from, and their encoding
 * as the OpenCL C sampler_t value kernels receive (builtins/abi.h). */
#ifndef SKEIN_RUNTIME_SAMPLER_H
#define SKEIN_RUNTIME_SAMPLER_H

#include "object.h"

struct _cl_sampler {
  rt_object obj;
  cl_context context;                /* retained */
  cl_bool normalized_coords;
  cl_addressing_mode addressing_mode;
  cl_filter_mode filter_mode;
  cl_sampler_properties *props;      /* copy of the list incl. its 0, or
                                        NULL (clCreateSampler, or NULL
                                        properties) */
  size_t num_props;
};

/* Creates a sampler of context ctx (valid) with checked values and a copy
 * of props[0..num_props) (num_props 0: none). NULL if out of memory. */
cl_sampler rt_sampler_new(cl_context ctx, cl_bool normalized,
                          cl_addressing_mode addressing, cl_filter_mode filter,
                          const cl_sampler_properties *props,
                          size_t num_props);

/* Drops a reference; frees the sampler on the last one. */
void rt_sampler_release(cl_sampler s);

/* The sampler's kernel-side value: the CLK_* bits of OpenCL C's
 * sampler_t (SKEIN_SAMPLER_* in builtins/abi.h). */
uint32_t rt_sampler_bits(cl_sampler s);

#endif
