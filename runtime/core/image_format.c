/* This file contains what Skein knows about image formats: which channel
 * order and data type pairs the API specification's format tables allow
 * and which of them Skein implements, the list clGetSupportedImageFormats
 * reports, and the conversion of a fill colour into a pixel, done as the
 * OpenCL C specification's Conversion Rules convert what write_imagef,
 * write_imagei and write_imageui write. */
#include "image.h"
#include "../../builtins/image_channels.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

/* The data types by class. */
static bool is_packed(cl_channel_type t) {
  return t == CL_UNORM_SHORT_565 || t == CL_UNORM_SHORT_555 ||
         t == CL_UNORM_INT_101010 || t == CL_UNORM_INT_101010_2;
}


/* The channel data types of the "every type" channel orders (R, RG, RGBA
 * and the like). */
static bool is_plain(cl_channel_type t) {
  return skein_channel_bytes(t) != 0;
}

/* The 8-bit types BGRA, ARGB and ABGR allow. */
static bool is_8bit(cl_channel_type t) {
  return t == CL_UNORM_INT8 || t == CL_SNORM_INT8 || t == CL_SIGNED_INT8 ||
         t == CL_UNSIGNED_INT8;
}

/* The normalised and floating types INTENSITY and LUMINANCE allow. */
static bool is_norm_or_float(cl_channel_type t) {
  return t == CL_UNORM_INT8 || t == CL_UNORM_INT16 || t == CL_SNORM_INT8 ||
         t == CL_SNORM_INT16 || t == CL_HALF_FLOAT || t == CL_FLOAT;
}

/* Channels a pixel of order o stores; 0 for an unknown order. Orders with
 * an ignored "x" channel store only their named channels (Rx as R, RGx as
 * RG), the layout the Khronos conformance tests read them with; RGBx
 * exists only with the packed types, where the padding is in the word. */
static unsigned order_channels(cl_channel_order o) {
  switch (o) {
  case CL_R:
  case CL_A:
  case CL_Rx:
  case CL_INTENSITY:
  case CL_LUMINANCE:
  case CL_DEPTH:
    return 1;
  case CL_RG:
  case CL_RA:
  case CL_RGx:
  case CL_DEPTH_STENCIL:
    return 2;
  case CL_RGB:
  case CL_RGBx:
  case CL_sRGB:
  case CL_sRGBx:
    return 3;
  case CL_RGBA:
  case CL_BGRA:
  case CL_ARGB:
  case CL_ABGR:
  case CL_sRGBA:
  case CL_sBGRA:
    return 4;
  }
  return 0;
}

rt_format_status rt_format_check(const cl_image_format *f, size_t *elem_size,
                                 unsigned *num_channels) {
  cl_channel_order o = f->image_channel_order;
  cl_channel_type t = f->image_channel_data_type;
  unsigned n = order_channels(o);
  bool legal;
  switch (o) {
  case CL_R:
  case CL_A:
  case CL_Rx:
  case CL_RG:
  case CL_RA:
  case CL_RGx:
    legal = is_plain(t);
    break;
  case CL_RGBA:
    legal = is_plain(t) || t == CL_UNORM_INT_101010_2;
    break;
  case CL_RGB:
  case CL_RGBx:
    /* CL_UNORM_SHORT_565, _555 and CL_UNORM_INT_101010: "the channel
     * order must be CL_RGB or CL_RGBx"; other types would make a pixel
     * whose bits are not a power of two. */
    legal = t == CL_UNORM_SHORT_565 || t == CL_UNORM_SHORT_555 ||
            t == CL_UNORM_INT_101010;
    break;
  case CL_BGRA:
  case CL_ARGB:
  case CL_ABGR:
    legal = is_8bit(t);
    break;
  case CL_INTENSITY:
  case CL_LUMINANCE:
    legal = is_norm_or_float(t);
    break;
  case CL_sRGB:
  case CL_sRGBx:
  case CL_sRGBA:
  case CL_sBGRA:
    legal = t == CL_UNORM_INT8;
    break;
  case CL_DEPTH:
    legal = t == CL_UNORM_INT16 || t == CL_FLOAT || t == CL_UNORM_INT24;
    break;
  case CL_DEPTH_STENCIL:
    legal = t == CL_UNORM_INT24 || t == CL_FLOAT;
    break;
  default:
    legal = false;
  }
  if (!legal)
    return RT_FORMAT_INVALID;
  /* Legal but not implemented: depth/stencil and 24-bit depth (GL
   * sharing formats). */
  if (o == CL_DEPTH_STENCIL || t == CL_UNORM_INT24)
    return RT_FORMAT_UNSUPPORTED;
  *num_channels = n;
  if (is_packed(t))
    *elem_size = t == CL_UNORM_SHORT_565 || t == CL_UNORM_SHORT_555 ? 2 : 4;
  else if (o == CL_sRGBx)
    /* sRGBx stores r, g, b and a padding byte: 4 bytes a pixel, as the
     * Khronos conformance tests lay it out (sRGB is 3 bytes, unpadded).
     * Reads see its three named channels; writes and fills put alpha in
     * the padding byte, as those tests expect. */
    *elem_size = 4;
  else
    *elem_size = n * skein_channel_bytes(t);
  return RT_FORMAT_OK;
}

bool rt_format_fits_type(const cl_image_format *f, cl_mem_object_type type) {
  /* Depth images are 2D images and 2D image arrays. */
  if (f->image_channel_order == CL_DEPTH)
    return type == CL_MEM_OBJECT_IMAGE2D ||
           type == CL_MEM_OBJECT_IMAGE2D_ARRAY;
  return true;
}

cl_uint rt_supported_formats(cl_mem_object_type type, cl_mem_flags flags,
                             cl_image_format *out, cl_uint max) {
  static const cl_channel_order orders[] = {
      CL_R,     CL_A,        CL_RG,        CL_RA,    CL_RGB,
      CL_RGBA,  CL_BGRA,     CL_ARGB,      CL_ABGR,  CL_INTENSITY,
      CL_LUMINANCE, CL_Rx,   CL_RGx,       CL_RGBx,  CL_DEPTH,
      CL_sRGBA, CL_sBGRA,    CL_sRGB,      CL_sRGBx};
  static const cl_channel_type types[] = {
      CL_SNORM_INT8,       CL_SNORM_INT16,     CL_UNORM_INT8,
      CL_UNORM_INT16,      CL_UNORM_SHORT_565, CL_UNORM_SHORT_555,
      CL_UNORM_INT_101010, CL_SIGNED_INT8,     CL_SIGNED_INT16,
      CL_SIGNED_INT32,     CL_UNSIGNED_INT8,   CL_UNSIGNED_INT16,
      CL_UNSIGNED_INT32,   CL_HALF_FLOAT,      CL_FLOAT,
      CL_UNORM_INT_101010_2};
  /* Every format is listed for every access: kernels write sRGB images
   * too (cl_khr_srgb_image_writes). */
  (void)flags;
  cl_uint n = 0;
  for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++)
    for (size_t j = 0; j < sizeof types / sizeof types[0]; j++) {
      cl_image_format f = {orders[i], types[j]};
      size_t size;
      unsigned channels;
      if (rt_format_check(&f, &size, &channels) != RT_FORMAT_OK ||
          !rt_format_fits_type(&f, type))
        continue;
      if (n < max)
        out[n] = f;
      n++;
    }
  return n;
}

/* Conversions of one channel, as the Conversion Rules say. */

/* convert_<int>_sat_rte(f): round to nearest even, saturate; NaN is 0. */
static long long sat_rte(float f, long long lo, long long hi) {
  if (isnan(f))
    return 0;
  if (f <= (float)lo)
    return lo;
  if (f >= (float)hi)
    return hi;
  return (long long)rintf(f); /* the default rounding mode: to even */
}

/* Normalised: f * scale in float, then convert_<int>_sat_rte. */
static long long norm(float f, float scale, long long lo, long long hi) {
  return sat_rte(f * scale, lo, hi);
}

/* Linear to sRGB (the spec's conversion for sRGB writes), then to an
 * unsigned normalised 8-bit value. */
static long long srgb8(float c) {
  if (isnan(c))
    c = 0.0f;
  if (c > 1.0f)
    c = 1.0f;
  else if (c < 0.0f)
    c = 0.0f;
  else if (c < 0.0031308f)
    c = 12.92f * c;
  else
    c = 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
  return norm(c, 255.0f, 0, 255);
}

/* Float to half, round to nearest even, with denormals, infinities and
 * NaN (quiet, payload kept in its top bits). */
static uint16_t half_rte(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  uint32_t abs = x & 0x7fffffff;
  if (abs >= 0x7f800000) /* inf or NaN */
    return sign | 0x7c00 |
           (abs > 0x7f800000 ? (uint16_t)(0x200 | ((abs >> 13) & 0x3ff)) : 0);
  if (abs >= 0x477ff000) /* rounds to at least 65520: infinity */
    return sign | 0x7c00;
  if (abs < 0x38800000) { /* below 2^-14, the smallest normal half */
    if (abs < 0x33000000) /* below 2^-25: rounds to 0 */
      return sign;
    /* In units of 2^-24 (the half denormal step) the value is
     * mant * 2^(exp - 126), exp <= 112: shift right, rounding to even. */
    uint32_t mant = (abs & 0x7fffff) | 0x800000;
    int shift = 126 - (int)(abs >> 23);
    uint32_t whole = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (whole & 1)))
      whole++;
    return sign | (uint16_t)whole;
  }
  uint32_t h = ((abs - 0x38000000) >> 13); /* rebias 127 -> 15 */
  uint32_t rem = abs & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    h++;
  return sign | (uint16_t)h;
}

/* Stores v as a little-endian integer of size bytes at p. */
static void put(unsigned char *p, size_t size, uint64_t v) {
  for (size_t i = 0; i < size; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

/* Which of the colour's r, g, b, a (0..3) channel i of order o stores. */
static int source_channel(cl_channel_order o, unsigned i) {
  static const int rgba[4] = {0, 1, 2, 3}, bgra[4] = {2, 1, 0, 3},
                   argb[4] = {3, 0, 1, 2}, abgr[4] = {3, 2, 1, 0},
                   ra[4] = {0, 3};
  switch (o) {
  case CL_A:
    return 3;
  case CL_RA:
    return ra[i];
  case CL_BGRA:
  case CL_sBGRA:
    return bgra[i];
  case CL_ARGB:
    return argb[i];
  case CL_ABGR:
    return abgr[i];
  default: /* R, Rx, RG, RGx, RGB(x), RGBA, sRGBA, INTENSITY, LUMINANCE,
              DEPTH: in order */
    return rgba[i];
  }
}

/* One channel of a non-packed type t from the colour's channel c. */
static uint64_t pack_channel(cl_channel_type t, const void *color, int c,
                             bool srgb) {
  const float *fc = color;
  const cl_int *ic = color;
  const cl_uint *uc = color;
  switch (t) {
  case CL_UNORM_INT8:
    return (uint64_t)(srgb ? srgb8(fc[c]) : norm(fc[c], 255.0f, 0, 255));
  case CL_UNORM_INT16:
    return (uint64_t)norm(fc[c], 65535.0f, 0, 65535);
  case CL_SNORM_INT8:
    return (uint64_t)norm(fc[c], 127.0f, -128, 127);
  case CL_SNORM_INT16:
    return (uint64_t)norm(fc[c], 32767.0f, -32768, 32767);
  case CL_HALF_FLOAT:
    return half_rte(fc[c]);
  case CL_FLOAT: {
    uint32_t bits;
    memcpy(&bits, &fc[c], 4);
    return bits;
  }
  /* convert_<int>_sat of the int or uint colour. */
  case CL_SIGNED_INT8:
    return (uint64_t)(ic[c] < -128 ? -128 : ic[c] > 127 ? 127 : ic[c]);
  case CL_SIGNED_INT16:
    return (uint64_t)(ic[c] < -32768 ? -32768
                      : ic[c] > 32767 ? 32767 : ic[c]);
  case CL_SIGNED_INT32:
    return (uint32_t)ic[c];
  case CL_UNSIGNED_INT8:
    return uc[c] > 255 ? 255 : uc[c];
  case CL_UNSIGNED_INT16:
    return uc[c] > 65535 ? 65535 : uc[c];
  case CL_UNSIGNED_INT32:
    return uc[c];
  }
  return 0;
}

void rt_format_pack(const cl_image_format *f, const void *fill_color,
                    unsigned char *out) {
  cl_channel_order o = f->image_channel_order;
  cl_channel_type t = f->image_channel_data_type;
  const float *fc = fill_color;
  size_t size;
  unsigned n;
  if (rt_format_check(f, &size, &n) != RT_FORMAT_OK)
    return; /* defensive: callers pass created images' formats */
  memset(out, 0, size);
  switch (t) {
  /* Packed: the first channel in the most significant bits; unused top
   * bits are 0. */
  case CL_UNORM_SHORT_565:
    put(out, 2, (uint64_t)(norm(fc[0], 31.0f, 0, 31) << 11 |
                           norm(fc[1], 63.0f, 0, 63) << 5 |
                           norm(fc[2], 31.0f, 0, 31)));
    return;
  case CL_UNORM_SHORT_555:
    put(out, 2, (uint64_t)(norm(fc[0], 31.0f, 0, 31) << 10 |
                           norm(fc[1], 31.0f, 0, 31) << 5 |
                           norm(fc[2], 31.0f, 0, 31)));
    return;
  case CL_UNORM_INT_101010:
    put(out, 4, (uint64_t)(norm(fc[0], 1023.0f, 0, 1023) << 20 |
                           norm(fc[1], 1023.0f, 0, 1023) << 10 |
                           norm(fc[2], 1023.0f, 0, 1023)));
    return;
  case CL_UNORM_INT_101010_2:
    put(out, 4, (uint64_t)(norm(fc[0], 1023.0f, 0, 1023) << 22 |
                           norm(fc[1], 1023.0f, 0, 1023) << 12 |
                           norm(fc[2], 1023.0f, 0, 1023) << 2 |
                           norm(fc[3], 3.0f, 0, 3)));
    return;
  }
  size_t cs = o == CL_sRGBx ? 1 : size / n; /* sRGBx: 3 channels + pad */
  bool srgb_order = o == CL_sRGBA || o == CL_sBGRA || o == CL_sRGB ||
                    o == CL_sRGBx;
  /* sRGBx's padding byte gets alpha, as a kernel write puts it there
   * (builtins/image.c: what the Khronos conformance tests expect). */
  unsigned stored = o == CL_sRGBx ? 4 : n;
  for (unsigned i = 0; i < stored; i++) {
    int c = source_channel(o, i);
    /* sRGB encodes red, green and blue; alpha stays linear. */
    put(out + i * cs, cs, pack_channel(t, fill_color, c, srgb_order && c < 3));
  }
}
