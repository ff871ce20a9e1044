/* This file contains sampler objects' behaviour: creation, release and the
 * encoding of a sampler as the sampler_t value kernel code reads. */
#include "sampler.h"
#include "../../builtins/abi.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

cl_sampler rt_sampler_new(cl_context ctx, cl_bool normalized,
                          cl_addressing_mode addressing, cl_filter_mode filter,
                          const cl_sampler_properties *props,
                          size_t num_props) {
  cl_sampler s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  if (num_props) {
    s->props = malloc(num_props * sizeof *props);
    if (!s->props) {
      free(s);
      return NULL;
    }
    memcpy(s->props, props, num_props * sizeof *props);
    s->num_props = num_props;
  }
  rt_object_init(&s->obj, RT_SAMPLER);
  s->context = ctx;
  rt_retain(ctx);
  s->normalized_coords = normalized;
  s->addressing_mode = addressing;
  s->filter_mode = filter;
  return s;
}

void rt_sampler_release(cl_sampler s) {
  if (!rt_release_last(s))
    return;
  cl_context ctx = s->context;
  free(s->props);
  free(s);
  clReleaseContext(ctx);
}

uint32_t rt_sampler_bits(cl_sampler s) {
  uint32_t bits = s->normalized_coords ? SKEIN_SAMPLER_NORMALIZED : 0;
  switch (s->addressing_mode) {
  case CL_ADDRESS_CLAMP_TO_EDGE:
    bits |= SKEIN_SAMPLER_ADDRESS_CLAMP_TO_EDGE;
    break;
  case CL_ADDRESS_CLAMP:
    bits |= SKEIN_SAMPLER_ADDRESS_CLAMP;
    break;
  case CL_ADDRESS_REPEAT:
    bits |= SKEIN_SAMPLER_ADDRESS_REPEAT;
    break;
  case CL_ADDRESS_MIRRORED_REPEAT:
    bits |= SKEIN_SAMPLER_ADDRESS_MIRRORED_REPEAT;
    break;
  default: /* CL_ADDRESS_NONE */
    bits |= SKEIN_SAMPLER_ADDRESS_NONE;
  }
  bits |= s->filter_mode == CL_FILTER_LINEAR ? SKEIN_SAMPLER_FILTER_LINEAR
                                             : SKEIN_SAMPLER_FILTER_NEAREST;
  return bits;
}
