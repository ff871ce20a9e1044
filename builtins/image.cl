/* This file contains the image builtins of OpenCL C 3.0 section 6.15.15
 * for every image type and access qualifier: read_imagef/i/ui/h with a
 * sampler (float and integer coordinates) and without one, write_imagef/
 * i/ui/h, and the image queries (get_image_width ... channel_order). Each
 * overload widens its coordinate to four components and calls the one
 * implementation in image.c, which finds the image's descriptor, the
 * sampler's bits and the pixel. */
#include "builtins.h"

/* Image builtins read or write memory: overloadable and inlined, never
 * const. */
#define IOVL __attribute__((overloadable, always_inline))

/* image.c: the value of an image as the address of its skein_image, one
 * function per type (tag) and access, and a sampler_t's bits. */
#define HANDLE_DECL(tag, T)                                                \
  const global void *__skein_image_##tag##_ro(read_only T);                \
  const global void *__skein_image_##tag##_wo(write_only T);               \
  const global void *__skein_image_##tag##_rw(read_write T);
HANDLE_DECL(1d, image1d_t)
HANDLE_DECL(1db, image1d_buffer_t)
HANDLE_DECL(1da, image1d_array_t)
HANDLE_DECL(2d, image2d_t)
HANDLE_DECL(2da, image2d_array_t)
HANDLE_DECL(3d, image3d_t)
HANDLE_DECL(2dd, image2d_depth_t)
HANDLE_DECL(2dad, image2d_array_depth_t)
uint __skein_sampler_bits(sampler_t s);

/* image.c: reads (float or integer coordinates, with sampler bits; 0 is
 * the sampler-less read), writes and queries. The first argument is the
 * image type (CL_MEM_OBJECT_IMAGE*, below), a constant of each overload
 * that lets image.c fold the image's shape once inlined. */
#define TY_2d 0x10F1u   /* CL_MEM_OBJECT_IMAGE2D */
#define TY_3d 0x10F2u   /* CL_MEM_OBJECT_IMAGE3D */
#define TY_2da 0x10F3u  /* CL_MEM_OBJECT_IMAGE2D_ARRAY */
#define TY_1d 0x10F4u   /* CL_MEM_OBJECT_IMAGE1D */
#define TY_1da 0x10F5u  /* CL_MEM_OBJECT_IMAGE1D_ARRAY */
#define TY_1db 0x10F6u  /* CL_MEM_OBJECT_IMAGE1D_BUFFER */
#define TY_2dd TY_2d
#define TY_2dad TY_2da
float4 __skein_image_read_f(uint t, const global void *img, uint s, float4 c);
float4 __skein_image_read_fi(uint t, const global void *img, uint s, int4 c);
uint4 __skein_image_read_u(uint t, const global void *img, uint s, float4 c);
uint4 __skein_image_read_ui(uint t, const global void *img, uint s, int4 c);
void __skein_image_write_f(uint t, const global void *img, int4 c, float4 v);
void __skein_image_write_u(uint t, const global void *img, int4 c, uint4 v);
ulong __skein_image_query(const global void *img, int which);
#define QUERY_WIDTH 0
#define QUERY_HEIGHT 1
#define QUERY_DEPTH 2
#define QUERY_ARRAY_SIZE 3
#define QUERY_CHANNEL_TYPE 4
#define QUERY_CHANNEL_ORDER 5

/* A coordinate of 1, 2 or 4 components as four (unused ones 0). */
#define W4_int(c) ((int4)((c), 0, 0, 0))
#define W4_int2(c) ((int4)((c), 0, 0))
#define W4_int4(c) (c)
#define W4_float(c) ((float4)((c), 0.0f, 0.0f, 0.0f))
#define W4_float2(c) ((float4)((c), 0.0f, 0.0f))
#define W4_float4(c) (c)

#define H(tag, acc, i) __skein_image_##tag##_##acc(i)
#define SB(s) __skein_sampler_bits(s)
/* The type and the handle of image i: the first two arguments of a read
 * or write of image.c. */
#define IM(tag, acc, i) TY_##tag, H(tag, acc, i)

/* Reads with a sampler (read_only images): float and integer
 * coordinates CF and CI. */
#define SAMPLED_READS(tag, T, CI, CF)                                      \
  float4 IOVL read_imagef(read_only T i, sampler_t s, CF c) {              \
    return __skein_image_read_f(IM(tag, ro, i), SB(s), W4_##CF(c));         \
  }                                                                        \
  float4 IOVL read_imagef(read_only T i, sampler_t s, CI c) {              \
    return __skein_image_read_fi(IM(tag, ro, i), SB(s), W4_##CI(c));        \
  }                                                                        \
  int4 IOVL read_imagei(read_only T i, sampler_t s, CF c) {                \
    return as_int4(__skein_image_read_u(IM(tag, ro, i), SB(s), W4_##CF(c))); \
  }                                                                        \
  int4 IOVL read_imagei(read_only T i, sampler_t s, CI c) {                \
    return as_int4(__skein_image_read_ui(IM(tag, ro, i), SB(s),             \
                                         W4_##CI(c)));                     \
  }                                                                        \
  uint4 IOVL read_imageui(read_only T i, sampler_t s, CF c) {              \
    return __skein_image_read_u(IM(tag, ro, i), SB(s), W4_##CF(c));         \
  }                                                                        \
  uint4 IOVL read_imageui(read_only T i, sampler_t s, CI c) {              \
    return __skein_image_read_ui(IM(tag, ro, i), SB(s), W4_##CI(c));        \
  }                                                                        \
  half4 IOVL read_imageh(read_only T i, sampler_t s, CF c) {               \
    return convert_half4(                                                  \
        __skein_image_read_f(IM(tag, ro, i), SB(s), W4_##CF(c)));           \
  }                                                                        \
  half4 IOVL read_imageh(read_only T i, sampler_t s, CI c) {               \
    return convert_half4(                                                  \
        __skein_image_read_fi(IM(tag, ro, i), SB(s), W4_##CI(c)));          \
  }

/* Sampler-less reads of access acc (read_only or read_write). */
#define PLAIN_READS(tag, acc, Q, T, CI)                                    \
  float4 IOVL read_imagef(Q T i, CI c) {                                   \
    return __skein_image_read_fi(IM(tag, acc, i), 0, W4_##CI(c));           \
  }                                                                        \
  int4 IOVL read_imagei(Q T i, CI c) {                                     \
    return as_int4(__skein_image_read_ui(IM(tag, acc, i), 0, W4_##CI(c)));  \
  }                                                                        \
  uint4 IOVL read_imageui(Q T i, CI c) {                                   \
    return __skein_image_read_ui(IM(tag, acc, i), 0, W4_##CI(c));           \
  }                                                                        \
  half4 IOVL read_imageh(Q T i, CI c) {                                    \
    return convert_half4(                                                  \
        __skein_image_read_fi(IM(tag, acc, i), 0, W4_##CI(c)));             \
  }

/* Writes of access acc (write_only or read_write). */
#define WRITES(tag, acc, Q, T, CI)                                         \
  void IOVL write_imagef(Q T i, CI c, float4 v) {                          \
    __skein_image_write_f(IM(tag, acc, i), W4_##CI(c), v);                  \
  }                                                                        \
  void IOVL write_imagei(Q T i, CI c, int4 v) {                            \
    __skein_image_write_u(IM(tag, acc, i), W4_##CI(c), as_uint4(v));        \
  }                                                                        \
  void IOVL write_imageui(Q T i, CI c, uint4 v) {                          \
    __skein_image_write_u(IM(tag, acc, i), W4_##CI(c), v);                  \
  }                                                                        \
  void IOVL write_imageh(Q T i, CI c, half4 v) {                           \
    __skein_image_write_f(IM(tag, acc, i), W4_##CI(c), convert_float4(v));  \
  }

/* The queries of image type T and access acc: every type has
 * COMMON_QUERIES; the others go to the types that have them. */
#define QUERY(tag, acc, Q, T, R, name, which)                              \
  R IOVL name(Q T i) {                                                     \
    return (R)__skein_image_query(H(tag, acc, i), which);                  \
  }
#define COMMON_QUERIES(tag, acc, Q, T)                                     \
  QUERY(tag, acc, Q, T, int, get_image_width, QUERY_WIDTH)                 \
  QUERY(tag, acc, Q, T, int, get_image_channel_data_type,                  \
        QUERY_CHANNEL_TYPE)                                                \
  QUERY(tag, acc, Q, T, int, get_image_channel_order, QUERY_CHANNEL_ORDER)
#define HEIGHT_QUERY(tag, acc, Q, T)                                       \
  QUERY(tag, acc, Q, T, int, get_image_height, QUERY_HEIGHT)
/* get_image_height and the 2D get_image_dim (width, height). */
#define HEIGHT_QUERIES(tag, acc, Q, T)                                     \
  HEIGHT_QUERY(tag, acc, Q, T)                                             \
  int2 IOVL get_image_dim(Q T i) {                                         \
    return (int2)((int)__skein_image_query(H(tag, acc, i), QUERY_WIDTH),   \
                  (int)__skein_image_query(H(tag, acc, i), QUERY_HEIGHT)); \
  }
#define ARRAY_QUERIES(tag, acc, Q, T)                                      \
  QUERY(tag, acc, Q, T, size_t, get_image_array_size, QUERY_ARRAY_SIZE)

/* Each access qualifier of one image type. */
#define ALL_ACCESS(M, tag, T, ...)                                         \
  M(tag, ro, read_only, T, ##__VA_ARGS__)                                  \
  M(tag, wo, write_only, T, ##__VA_ARGS__)                                 \
  M(tag, rw, read_write, T, ##__VA_ARGS__)
#define READ_ACCESS(M, tag, T, ...)                                        \
  M(tag, ro, read_only, T, ##__VA_ARGS__)                                  \
  M(tag, rw, read_write, T, ##__VA_ARGS__)
#define WRITE_ACCESS(M, tag, T, ...)                                       \
  M(tag, wo, write_only, T, ##__VA_ARGS__)                                 \
  M(tag, rw, read_write, T, ##__VA_ARGS__)

/* A colour image type: reads, writes and queries. */
#define COLOUR_IMAGE(tag, T, CI, CF)                                       \
  SAMPLED_READS(tag, T, CI, CF)                                            \
  READ_ACCESS(PLAIN_READS, tag, T, CI)                                     \
  WRITE_ACCESS(WRITES, tag, T, CI)                                         \
  ALL_ACCESS(COMMON_QUERIES, tag, T)

COLOUR_IMAGE(1d, image1d_t, int, float)
COLOUR_IMAGE(1da, image1d_array_t, int2, float2)
COLOUR_IMAGE(2d, image2d_t, int2, float2)
COLOUR_IMAGE(2da, image2d_array_t, int4, float4)
COLOUR_IMAGE(3d, image3d_t, int4, float4)
/* A 1D image buffer has no sampler. */
READ_ACCESS(PLAIN_READS, 1db, image1d_buffer_t, int)
WRITE_ACCESS(WRITES, 1db, image1d_buffer_t, int)
ALL_ACCESS(COMMON_QUERIES, 1db, image1d_buffer_t)

ALL_ACCESS(HEIGHT_QUERIES, 2d, image2d_t)
ALL_ACCESS(HEIGHT_QUERIES, 2da, image2d_array_t)
ALL_ACCESS(HEIGHT_QUERY, 3d, image3d_t)
ALL_ACCESS(ARRAY_QUERIES, 1da, image1d_array_t)
ALL_ACCESS(ARRAY_QUERIES, 2da, image2d_array_t)

/* get_image_depth and the 3D get_image_dim (width, height, depth, 0). */
#define DEPTH_QUERIES(tag, acc, Q, T)                                      \
  QUERY(tag, acc, Q, T, int, get_image_depth, QUERY_DEPTH)                 \
  int4 IOVL get_image_dim(Q T i) {                                         \
    return (int4)((int)__skein_image_query(H(tag, acc, i), QUERY_WIDTH),   \
                  (int)__skein_image_query(H(tag, acc, i), QUERY_HEIGHT),  \
                  (int)__skein_image_query(H(tag, acc, i), QUERY_DEPTH),   \
                  0);                                                      \
  }
ALL_ACCESS(DEPTH_QUERIES, 3d, image3d_t)

/* Depth images (cl_khr_depth_images): one float channel. */
#define DEPTH_SAMPLED_READS(tag, T, CI, CF)                                \
  float IOVL read_imagef(read_only T i, sampler_t s, CF c) {               \
    return __skein_image_read_f(IM(tag, ro, i), SB(s), W4_##CF(c)).x;       \
  }                                                                        \
  float IOVL read_imagef(read_only T i, sampler_t s, CI c) {               \
    return __skein_image_read_fi(IM(tag, ro, i), SB(s), W4_##CI(c)).x;      \
  }
#define DEPTH_PLAIN_READS(tag, acc, Q, T, CI)                              \
  float IOVL read_imagef(Q T i, CI c) {                                    \
    return __skein_image_read_fi(IM(tag, acc, i), 0, W4_##CI(c)).x;         \
  }
#define DEPTH_WRITES(tag, acc, Q, T, CI)                                   \
  void IOVL write_imagef(Q T i, CI c, float v) {                           \
    __skein_image_write_f(IM(tag, acc, i), W4_##CI(c),                      \
                          (float4)(v, 0.0f, 0.0f, 0.0f));                  \
  }
#define DEPTH_IMAGE(tag, T, CI, CF)                                        \
  DEPTH_SAMPLED_READS(tag, T, CI, CF)                                      \
  READ_ACCESS(DEPTH_PLAIN_READS, tag, T, CI)                               \
  WRITE_ACCESS(DEPTH_WRITES, tag, T, CI)                                   \
  ALL_ACCESS(COMMON_QUERIES, tag, T)                                       \
  ALL_ACCESS(HEIGHT_QUERIES, tag, T)
DEPTH_IMAGE(2dd, image2d_depth_t, int2, float2)
DEPTH_IMAGE(2dad, image2d_array_depth_t, int4, float4)
ALL_ACCESS(ARRAY_QUERIES, 2dad, image2d_array_depth_t)
