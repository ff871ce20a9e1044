/* This file contains what the host side (runtime/core/image_format.c) and the
 * kernel side (builtins/image.c) of images both need to know of a channel
 * data type, so that the two agree on every pixel's layout. */
#ifndef SKEIN_IMAGE_CHANNELS_H
#define SKEIN_IMAGE_CHANNELS_H

#include <CL/cl.h>
#include <stdint.h>

/* Bytes of one channel of a non-packed type; 0 for a packed or unknown
 * one (CL_UNORM_SHORT_565 ... have no channel of their own). */
static inline unsigned skein_channel_bytes(uint32_t type) {
  switch (type) {
  case CL_SNORM_INT8:
  case CL_UNORM_INT8:
  case CL_SIGNED_INT8:
  case CL_UNSIGNED_INT8:
    return 1;
  case CL_SNORM_INT16:
  case CL_UNORM_INT16:
  case CL_SIGNED_INT16:
  case CL_UNSIGNED_INT16:
  case CL_HALF_FLOAT:
    return 2;
  case CL_SIGNED_INT32:
  case CL_UNSIGNED_INT32:
  case CL_FLOAT:
    return 4;
  }
  return 0;
}

#endif
