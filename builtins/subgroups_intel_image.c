/* This file contains the two bodies of cl_intel_subgroups' image block
 * reads and writes (the overloads are subgroups_intel_image.cl's): lane
 * l of a sub-group moves n values of size bytes, value k at byte
 * x + l * size of row y + k of a 2D image, without format conversion.
 *
 * Bounds are checked in bytes against the row (width x element size)
 * and the image's height, as the extension describes for 4-byte
 * elements: a read outside is clamped to the edge (CLAMP_TO_EDGE), a
 * write outside is dropped. For smaller elements the extension leaves
 * out-of-bounds accesses undefined; clamping the same way keeps them
 * inside the image here, so no access ever leaves it. */
#include "abi.h"

#define AS_GLOBAL __attribute__((address_space(1)))

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

void __skein_isg_image_read(const AS_GLOBAL void *image, int32_t x,
                            int32_t y, uint32_t lane, uint32_t size,
                            uint32_t n, unsigned char *out) {
  const skein_image *d = (const skein_image *)image;
  int64_t row = (int64_t)(d->width * d->element_size);
  int64_t xb = (int64_t)x + (int64_t)lane * size;
  for (uint32_t k = 0; k < n; k++) {
    unsigned char *o = out + (uint64_t)k * size;
    __builtin_memset(o, 0, size);
    if (row <= 0 || d->height == 0)
      continue;
    int64_t yy = clamp64((int64_t)y + k, 0, (int64_t)d->height - 1);
    /* A row narrower than one value: what fits, the rest 0. */
    int64_t take = row < (int64_t)size ? row : (int64_t)size;
    int64_t xx = clamp64(xb, 0, row - take);
    __builtin_memcpy(o, d->data + (uint64_t)yy * d->row_pitch + xx,
                     (uint64_t)take);
  }
}

void __skein_isg_image_write(const AS_GLOBAL void *image, int32_t x,
                             int32_t y, uint32_t lane, uint32_t size,
                             uint32_t n, const unsigned char *in) {
  const skein_image *d = (const skein_image *)image;
  int64_t row = (int64_t)(d->width * d->element_size);
  int64_t xb = (int64_t)x + (int64_t)lane * size;
  if (xb < 0 || xb + size > row)
    return;
  for (uint32_t k = 0; k < n; k++) {
    int64_t yy = (int64_t)y + k;
    if (yy < 0 || yy >= (int64_t)d->height)
      continue;
    __builtin_memcpy(d->data + (uint64_t)yy * d->row_pitch + xb,
                     in + (uint64_t)k * size, size);
  }
}
