/* Tests the sRGB image formats, CL_sRGB (3 bytes a pixel), CL_sRGBx (r, g,
 * b and a padding byte), CL_sRGBA and CL_sBGRA, all of UNORM_INT8,
 * against host references of the OpenCL C specification's "Conversion
 * Rules for sRGBA and sBGRA Images":
 * - they are listed by clGetSupportedImageFormats for every image type
 *   and access, with the element size clGetImageInfo reports;
 * - reads: every one of the 256 codes in every colour channel, through
 *   read_imagef without a sampler, with a sampler argument and with a
 *   kernel-scope sampler, in every execution mode; the result converted
 *   back must lie within 0.5 ulp of the code (the spec's bound) and within
 *   a float ulp of the exact curve; alpha is code / 255 or 1 where the
 *   order has none; linear filtering converts before it filters;
 * - writes (cl_khr_srgb_image_writes) and fills: every code's exact linear
 *   value, each step between two codes and a float to either side of it,
 *   and out-of-range and special values: within the spec's 0.6 of the
 *   scaled reference; a code's own linear value gives back that code;
 *   sRGBx's padding byte takes alpha (as the Khronos CTS expects), which
 *   reads ignore;
 * - the host commands on 3- and 4-byte pixels for every image type:
 *   creation with host pitches, read/write of a region with pitches,
 *   copies image to image and through a buffer, fills and maps, against
 *   a host model of the storage; kernel reads and writes of every type. */
#include "test_util.h"
#include <math.h>
#include <stdint.h>

static test_env env;

static const char *kernels_src =
    "#define IDX ((get_global_id(2) * get_global_size(1) + "
    "get_global_id(1)) * get_global_size(0) + get_global_id(0))\n"
    "#define X (int)get_global_id(0)\n"
    "#define Y (int)get_global_id(1)\n"
    "#define Z (int)get_global_id(2)\n"
    "const sampler_t ks = CLK_NORMALIZED_COORDS_FALSE | "
    "CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "kernel void r1(read_only image1d_t im, global float4 *o) {\n"
    "  o[IDX] = read_imagef(im, X); }\n"
    "kernel void r1b(read_only image1d_buffer_t im, global float4 *o) {\n"
    "  o[IDX] = read_imagef(im, X); }\n"
    "kernel void r1a(read_only image1d_array_t im, global float4 *o) {\n"
    "  o[IDX] = read_imagef(im, (int2)(X, Y)); }\n"
    "kernel void r2(read_only image2d_t im, global float4 *o) {\n"
    "  o[IDX] = read_imagef(im, (int2)(X, Y)); }\n"
    "kernel void r2a(read_only image2d_array_t im, global float4 *o) {\n"
    "  o[IDX] = read_imagef(im, (int4)(X, Y, Z, 0)); }\n"
    "kernel void r3(read_only image3d_t im, global float4 *o) {\n"
    "  o[IDX] = read_imagef(im, (int4)(X, Y, Z, 0)); }\n"
    "kernel void r2s(read_only image2d_t im, sampler_t s, global float4 *o) {\n"
    "  o[IDX] = read_imagef(im, s, (float2)(X + 0.5f, Y + 0.5f)); }\n"
    "kernel void r2k(read_only image2d_t im, global float4 *o) {\n"
    "  o[IDX] = read_imagef(im, ks, (float2)(X + 0.5f, Y + 0.5f)); }\n"
    "kernel void r2c(read_only image2d_t im, sampler_t s,\n"
    "                global const float2 *c, global float4 *o) {\n"
    "  o[IDX] = read_imagef(im, s, c[IDX]); }\n"
    "kernel void w1(write_only image1d_t im, global const float4 *v) {\n"
    "  write_imagef(im, X, v[IDX]); }\n"
    "kernel void w1b(write_only image1d_buffer_t im, global const float4 *v) "
    "{\n"
    "  write_imagef(im, X, v[IDX]); }\n"
    "kernel void w1a(write_only image1d_array_t im, global const float4 *v) {\n"
    "  write_imagef(im, (int2)(X, Y), v[IDX]); }\n"
    "kernel void w2(write_only image2d_t im, global const float4 *v) {\n"
    "  write_imagef(im, (int2)(X, Y), v[IDX]); }\n"
    "kernel void w2a(write_only image2d_array_t im, global const float4 *v) "
    "{\n"
    "  write_imagef(im, (int4)(X, Y, Z, 0), v[IDX]); }\n"
    "kernel void w3(write_only image3d_t im, global const float4 *v) {\n"
    "  write_imagef(im, (int4)(X, Y, Z, 0), v[IDX]); }\n";

static cl_program prog;

static const cl_channel_order orders[] = {CL_sRGB, CL_sRGBx, CL_sRGBA,
                                          CL_sBGRA};

static size_t pixel_size(cl_channel_order o) { return o == CL_sRGB ? 3 : 4; }

/* Where r, g, b and the fourth byte (alpha or padding) lie in a pixel. */
static int byte_of(cl_channel_order o, int c) {
  if (o == CL_sBGRA && c != 1 && c != 3)
    return 2 - c;
  return c;
}

static int has_alpha(cl_channel_order o) {
  return o == CL_sRGBA || o == CL_sBGRA;
}

/* Whether writes and fills store alpha in the fourth byte: sRGBx's
 * padding byte holds it too (its content is undefined; the Khronos
 * conformance tests expect alpha there), while reads ignore it. */
static int stores_alpha(cl_channel_order o) {
  return has_alpha(o) || o == CL_sRGBx;
}

/* The exact curves, in double. */
static double srgb_to_linear(int code) {
  double s = code / 255.0;
  return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4);
}

/* The spec's scaled_reference_result of a write of linear value c. */
static double scaled_reference(float f) {
  double c = f;
  if (isnan(f))
    c = 0.0;
  if (c > 1.0)
    c = 1.0;
  else if (c < 0.0)
    c = 0.0;
  else if (c < 0.0031308)
    c = 12.92 * c;
  else
    c = 1.055 * pow(c, 1.0 / 2.4) - 0.055;
  return c * 255.0;
}

/* UNORM_INT8 of alpha: convert_uchar_sat_rte(a * 255.0f). */
static int unorm8(float a) {
  if (isnan(a))
    return 0;
  float p = a * 255.0f;
  return p <= 0.0f ? 0 : p >= 255.0f ? 255 : (int)rint(p);
}

static cl_kernel kernel(const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  return k;
}

static void run(cl_kernel k, const size_t global[3]) {
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 3, NULL, global, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
}

static cl_mem image2d(cl_channel_order o, cl_mem_flags flags, size_t w,
                      size_t h, void *pixels) {
  cl_image_format f = {o, CL_UNORM_INT8};
  cl_image_desc d = {CL_MEM_OBJECT_IMAGE2D, w, h, 1, 0, 0, 0, 0, 0, {NULL}};
  cl_int err;
  cl_mem m = clCreateImage(env.context,
                           flags | (pixels ? CL_MEM_COPY_HOST_PTR : 0), &f,
                           &d, pixels, &err);
  REQUIRE_OK(err);
  return m;
}

/* ---- Formats ------------------------------------------------------------ */

static void test_listed(void) {
  static const cl_mem_object_type types[] = {
      CL_MEM_OBJECT_IMAGE1D,       CL_MEM_OBJECT_IMAGE1D_BUFFER,
      CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D,
      CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D};
  static const cl_mem_flags flags[] = {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY,
                                       CL_MEM_READ_WRITE,
                                       CL_MEM_KERNEL_READ_AND_WRITE};
  for (size_t t = 0; t < 6; t++)
    for (size_t f = 0; f < 4; f++) {
      cl_image_format list[256];
      cl_uint n = 0;
      REQUIRE_OK(clGetSupportedImageFormats(env.context, flags[f], types[t],
                                            256, list, &n));
      for (size_t o = 0; o < 4; o++) {
        int found = 0;
        for (cl_uint i = 0; i < n && i < 256; i++)
          found += list[i].image_channel_order == orders[o] &&
                   list[i].image_channel_data_type == CL_UNORM_INT8;
        CHECK_EQ(found, 1);
      }
    }
  for (size_t o = 0; o < 4; o++) {
    cl_mem m = image2d(orders[o], 0, 5, 3, NULL);
    size_t es = 0, row = 0;
    cl_image_format f;
    REQUIRE_OK(clGetImageInfo(m, CL_IMAGE_ELEMENT_SIZE, sizeof es, &es, NULL));
    REQUIRE_OK(clGetImageInfo(m, CL_IMAGE_ROW_PITCH, sizeof row, &row, NULL));
    REQUIRE_OK(clGetImageInfo(m, CL_IMAGE_FORMAT, sizeof f, &f, NULL));
    CHECK_EQ(es, pixel_size(orders[o]));
    CHECK_EQ(row, 5 * pixel_size(orders[o]));
    CHECK_EQ(f.image_channel_order, orders[o]);
    size_t size = 0;
    REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL));
    CHECK(size >= 15 * pixel_size(orders[o]));
    REQUIRE_OK(clReleaseMemObject(m));
  }
  /* Other types than UNORM_INT8 are not sRGB formats at all. */
  cl_image_format bad = {CL_sRGB, CL_UNORM_INT16}, badx = {CL_sRGBx,
                                                           CL_UNSIGNED_INT8};
  cl_image_desc d = {CL_MEM_OBJECT_IMAGE2D, 4, 4, 1, 0, 0, 0, 0, 0, {NULL}};
  cl_int err;
  CHECK(clCreateImage(env.context, 0, &bad, &d, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  CHECK(clCreateImage(env.context, 0, &badx, &d, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
}

/* ---- Reads -------------------------------------------------------------- */

/* The code of channel c (0..3: r, g, b, fourth byte) of pixel i of the
 * read test: every code appears in every channel. */
static int code_of(size_t i, int c) {
  switch (c) {
  case 0:
    return (int)(i & 255);
  case 1:
    return (int)(255 - (i & 255));
  case 2:
    return (int)((i * 37 + 11) & 255);
  default:
    return (int)((i * 91 + 3) & 255);
  }
}

/* Checks read_imagef's v of pixel i of order o against the curve. */
static int check_read(cl_channel_order o, size_t i, const float *v,
                      const char *what) {
  int bad = 0;
  for (int c = 0; c < 3; c++) {
    int code = code_of(i, c);
    double want = srgb_to_linear(code);
    /* The spec's bound: converted back, within 0.5 ulp (of 8 bits) of the
     * code; and within a float ulp of the exact curve. */
    double back = scaled_reference(v[c]);
    if (fabs(back - code) > 0.5 || fabs(v[c] - want) > 0x1p-24 + want * 0x1p-23)
      bad++;
  }
  float alpha = has_alpha(o) ? (float)code_of(i, 3) / 255.0f : 1.0f;
  if (v[3] != alpha)
    bad++;
  if (bad)
    fprintf(stderr, "%s %#x pixel %zu: (%a %a %a %a)\n", what, (unsigned)o,
            i, v[0], v[1], v[2], v[3]);
  return bad;
}

/* Every code in every channel: a 16 x 16 image, read without a sampler,
 * with a nearest sampler argument and with a kernel-scope sampler. */
static void test_reads(void) {
  const size_t w = 16, h = 16, n = w * h;
  unsigned char px[16 * 16 * 4];
  float *out = malloc(n * 16);
  cl_mem obuf = test_buffer(&env, n * 16, NULL);
  cl_int err;
  cl_sampler s = clCreateSampler(env.context, CL_FALSE,
                                 CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST,
                                 &err);
  REQUIRE_OK(err);
  for (size_t oi = 0; oi < 4; oi++) {
    cl_channel_order o = orders[oi];
    size_t es = pixel_size(o);
    for (size_t i = 0; i < n; i++)
      for (int c = 0; c < (int)es; c++)
        px[i * es + byte_of(o, c)] = (unsigned char)code_of(i, c);
    cl_mem img = image2d(o, CL_MEM_READ_ONLY, w, h, px);
    static const char *names[] = {"r2", "r2s", "r2k"};
    for (int kn = 0; kn < 3; kn++) {
      cl_kernel k = kernel(names[kn]);
      cl_uint a = 0;
      REQUIRE_OK(clSetKernelArg(k, a++, sizeof img, &img));
      if (kn == 1)
        REQUIRE_OK(clSetKernelArg(k, a++, sizeof s, &s));
      REQUIRE_OK(clSetKernelArg(k, a++, sizeof obuf, &obuf));
      size_t global[3] = {w, h, 1};
      run(k, global);
      REQUIRE_OK(clEnqueueReadBuffer(env.queue, obuf, CL_TRUE, 0, n * 16, out,
                                     0, NULL, NULL));
      int bad = 0;
      for (size_t i = 0; i < n; i++)
        bad += check_read(o, i, out + 4 * i, names[kn]) != 0;
      CHECK_EQ(bad, 0);
      REQUIRE_OK(clReleaseKernel(k));
    }
    REQUIRE_OK(clReleaseMemObject(img));
  }
  REQUIRE_OK(clReleaseSampler(s));
  REQUIRE_OK(clReleaseMemObject(obuf));
  free(out);
}

/* Linear filtering converts each pixel to linear light first, then
 * weighs them (the spec's formula for CLK_ADDRESS_CLAMP_TO_EDGE and
 * unnormalised coordinates, weights in float). */
static void test_linear(void) {
  const size_t w = 7, h = 5, n = 64;
  unsigned char px[7 * 5 * 3];
  for (size_t i = 0; i < w * h * 3; i++)
    px[i] = (unsigned char)(i * 53 + 7);
  cl_mem img = image2d(CL_sRGB, CL_MEM_READ_ONLY, w, h, px);
  float coords[64][2];
  for (size_t i = 0; i < n; i++) {
    coords[i][0] = (float)(test_rand() % 1000) / 100.0f - 1.5f;
    coords[i][1] = (float)(test_rand() % 800) / 100.0f - 1.5f;
  }
  cl_mem cbuf = test_buffer(&env, sizeof coords, coords);
  cl_mem obuf = test_buffer(&env, n * 16, NULL);
  cl_int err;
  cl_sampler s = clCreateSampler(env.context, CL_FALSE,
                                 CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR,
                                 &err);
  REQUIRE_OK(err);
  cl_kernel k = kernel("r2c");
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof img, &img));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof s, &s));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof cbuf, &cbuf));
  REQUIRE_OK(clSetKernelArg(k, 3, sizeof obuf, &obuf));
  size_t global[3] = {n, 1, 1};
  run(k, global);
  float out[64][4];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, obuf, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    float u = coords[i][0] - 0.5f, v = coords[i][1] - 0.5f;
    float a = u - floorf(u), b = v - floorf(v);
    long i0 = (long)floorf(u), j0 = (long)floorf(v);
    for (int c = 0; c < 4; c++) {
      double sum = 0;
      for (int m = 0; m < 4; m++) {
        long x = i0 + (m & 1), y = j0 + (m >> 1);
        x = x < 0 ? 0 : x >= (long)w ? (long)w - 1 : x;
        y = y < 0 ? 0 : y >= (long)h ? (long)h - 1 : y;
        double t = c == 3 ? 1.0 : srgb_to_linear(px[(y * w + x) * 3 + c]);
        double wt = ((m & 1) ? a : 1.0f - a) * ((m >> 1) ? b : 1.0f - b);
        sum += wt * t;
      }
      if (fabs(out[i][c] - sum) > 1e-5 && bad++ < 5)
        fprintf(stderr, "linear at (%g, %g) channel %d: %g, want %g\n",
                coords[i][0], coords[i][1], c, out[i][c], sum);
    }
  }
  CHECK_EQ(bad, 0);
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseSampler(s));
  cl_mem all[] = {img, cbuf, obuf};
  test_release_buffers(all, 3);
}

/* ---- Writes and fills ------------------------------------------------------ */

/* The linear values a write is tested with: every code's own value, each
 * step between codes and a float either side, specials. */
static float *write_inputs(size_t *count) {
  size_t n = 0;
  float *v = malloc((256 * 4 + 16) * sizeof *v);
  for (int k = 0; k < 256; k++) {
    v[n++] = (float)srgb_to_linear(k);
    if (k < 255) {
      /* The linear value whose scaled reference is k + 0.5. */
      double s = (k + 0.5) / 255.0;
      float step = (float)(s <= 0.04045 ? s / 12.92
                                        : pow((s + 0.055) / 1.055, 2.4));
      v[n++] = step;
      v[n++] = nextafterf(step, 0.0f);
      v[n++] = nextafterf(step, 2.0f);
    }
  }
  const float special[] = {-1.0f,      -0.0f,       0x1p-149f, 1e-30f,
                           0.0031308f, 0.0031307f,  0.5f,      1.0f,
                           1.0000001f, 2.0f,        INFINITY,  -INFINITY,
                           NAN,        0.99999994f};
  for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
    v[n++] = special[i];
  *count = n;
  return v;
}

/* Checks stored pixel p (of order o) made from colour c; returns the
 * number of bad channels. exact: the value is a code's own linear value
 * (in every colour channel), which must come back as that code. */
static int check_written(cl_channel_order o, const unsigned char *p,
                         const float *c, const char *what) {
  int bad = 0;
  for (int ch = 0; ch < 3; ch++) {
    double ref = scaled_reference(c[ch]);
    int got = p[byte_of(o, ch)];
    if (fabs(got - ref) > 0.6) {
      if (bad++ < 3)
        fprintf(stderr, "%s %#x: channel %d of %a gives %d, reference %.4f\n",
                what, (unsigned)o, ch, c[ch], got, ref);
    }
  }
  if (stores_alpha(o) && p[3] != unorm8(c[3]))
    bad++;
  return bad;
}

static void test_writes(void) {
  size_t n;
  float *vals = write_inputs(&n);
  const size_t w = 64, h = (n + w - 1) / w, total = w * h;
  float *colours = malloc(total * 16);
  for (size_t i = 0; i < total; i++) {
    colours[4 * i + 0] = vals[i % n];
    colours[4 * i + 1] = vals[(i + 1) % n];
    colours[4 * i + 2] = vals[(i + 7) % n];
    colours[4 * i + 3] = vals[(i + 3) % n];
  }
  cl_mem vbuf = test_buffer(&env, total * 16, colours);
  unsigned char *pre = malloc(total * 4), *back = malloc(total * 4);
  for (size_t oi = 0; oi < 4; oi++) {
    cl_channel_order o = orders[oi];
    size_t es = pixel_size(o);
    memset(pre, 0xa5, total * es);
    cl_mem img = image2d(o, CL_MEM_WRITE_ONLY, w, h, pre);
    cl_kernel k = kernel("w2");
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof img, &img));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof vbuf, &vbuf));
    size_t global[3] = {w, h, 1};
    run(k, global);
    size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1};
    REQUIRE_OK(clEnqueueReadImage(env.queue, img, CL_TRUE, origin, region, 0,
                                  0, back, 0, NULL, NULL));
    int bad = 0;
    for (size_t i = 0; i < total; i++) {
      bad += check_written(o, back + i * es, colours + 4 * i, "write") != 0;
    }
    /* A code's own linear value writes that code. */
    for (size_t i = 0; i < total; i++) {
      size_t j = i % n; /* vals[4 k] is code k's own value */
      if (j <= 4 * 255 && j % 4 == 0)
        bad += back[i * es + byte_of(o, 0)] != (int)(j / 4);
    }
    CHECK_EQ(bad, 0);
    REQUIRE_OK(clReleaseKernel(k));

    /* Fills: one pixel each. */
    cl_mem fimg = image2d(o, 0, w, h, NULL);
    for (size_t i = 0; i < total; i++) {
      size_t at[3] = {i % w, i / w, 0}, one[3] = {1, 1, 1};
      REQUIRE_OK(clEnqueueFillImage(env.queue, fimg, colours + 4 * i, at, one,
                                    0, NULL, NULL));
    }
    REQUIRE_OK(clEnqueueReadImage(env.queue, fimg, CL_TRUE, origin, region, 0,
                                  0, back, 0, NULL, NULL));
    bad = 0;
    for (size_t i = 0; i < total; i++) {
      bad += check_written(o, back + i * es, colours + 4 * i, "fill") != 0;
    }
    CHECK_EQ(bad, 0);
    /* Every code's linear value, in r, fills that code. */
    for (int code = 0; code < 256; code++) {
      float c[4] = {(float)srgb_to_linear(code), 0.0f, 1.0f, 0.5f};
      size_t one[3] = {1, 1, 1};
      unsigned char got[4];
      REQUIRE_OK(clEnqueueFillImage(env.queue, fimg, c, origin, one, 0, NULL,
                                    NULL));
      REQUIRE_OK(clEnqueueReadImage(env.queue, fimg, CL_TRUE, origin, one, 0,
                                    0, got, 0, NULL, NULL));
      CHECK_EQ(got[byte_of(o, 0)], code);
      CHECK_EQ(got[byte_of(o, 1)], 0);
      CHECK_EQ(got[byte_of(o, 2)], 255);
      if (stores_alpha(o))
        CHECK_EQ(got[3], 128);
    }
    REQUIRE_OK(clReleaseMemObject(fimg));
    REQUIRE_OK(clReleaseMemObject(img));
  }
  REQUIRE_OK(clReleaseMemObject(vbuf));
  free(vals), free(colours), free(pre), free(back);
}

/* ---- Every image type: host commands and kernels ------------------------ */

typedef struct shape {
  cl_mem_object_type type;
  const char *reader, *writer;
  size_t n[3]; /* the API region of the whole image: x, y, z */
} shape;

static const shape shapes[] = {
    {CL_MEM_OBJECT_IMAGE1D, "r1", "w1", {13, 1, 1}},
    {CL_MEM_OBJECT_IMAGE1D_BUFFER, "r1b", "w1b", {13, 1, 1}},
    {CL_MEM_OBJECT_IMAGE1D_ARRAY, "r1a", "w1a", {11, 4, 1}},
    {CL_MEM_OBJECT_IMAGE2D, "r2", "w2", {9, 7, 1}},
    {CL_MEM_OBJECT_IMAGE2D_ARRAY, "r2a", "w2a", {7, 5, 3}},
    {CL_MEM_OBJECT_IMAGE3D, "r3", "w3", {6, 5, 4}},
};

/* A host layout of a region: pixel (x, y, z) at x * es + y * ys + z * zs,
 * with the pitches the API takes for it (1D arrays step their layers with
 * the slice pitch). */
typedef struct layout {
  size_t es, row, slice, ys, zs, size;
} layout;

static layout host_layout(const shape *s, size_t es, const size_t r[3],
                          size_t pad) {
  layout l = {es, (r[0] + pad) * es, 0, 0, 0, 0};
  switch (s->type) {
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    l.slice = l.row * (pad ? 2 : 1);
    l.ys = l.slice;
    break;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
  case CL_MEM_OBJECT_IMAGE3D:
    l.slice = l.row * (r[1] + pad);
    l.ys = l.row, l.zs = l.slice;
    break;
  default:
    l.ys = l.row;
    break;
  }
  l.size = (r[2] - 1) * l.zs + (r[1] - 1) * l.ys + r[0] * es;
  return l;
}

static size_t at(const layout *l, size_t x, size_t y, size_t z) {
  return x * l->es + y * l->ys + z * l->zs;
}

/* Creates an image of shape s and order o holding host (laid out as l):
 * with COPY_HOST_PTR and l's pitches, or for a 1D image buffer over a
 * buffer, written after. */
static cl_mem make_shape(const shape *s, cl_channel_order o, const layout *l,
                         const void *host, cl_mem *buffer) {
  cl_image_format f = {o, CL_UNORM_INT8};
  cl_image_desc d = {s->type, s->n[0], 1, 1, 0, 0, 0, 0, 0, {NULL}};
  cl_int err;
  *buffer = NULL;
  switch (s->type) {
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    d.image_array_size = s->n[1];
    d.image_row_pitch = l->row, d.image_slice_pitch = l->slice;
    break;
  case CL_MEM_OBJECT_IMAGE2D:
    d.image_height = s->n[1], d.image_row_pitch = l->row;
    break;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    d.image_height = s->n[1], d.image_array_size = s->n[2];
    d.image_row_pitch = l->row, d.image_slice_pitch = l->slice;
    break;
  case CL_MEM_OBJECT_IMAGE3D:
    d.image_height = s->n[1], d.image_depth = s->n[2];
    d.image_row_pitch = l->row, d.image_slice_pitch = l->slice;
    break;
  case CL_MEM_OBJECT_IMAGE1D:
    d.image_row_pitch = l->row;
    break;
  case CL_MEM_OBJECT_IMAGE1D_BUFFER:
    *buffer = test_buffer(&env, s->n[0] * l->es, NULL);
    d.buffer = *buffer;
    break;
  }
  cl_mem m = clCreateImage(env.context,
                           *buffer ? 0 : CL_MEM_COPY_HOST_PTR, &f, &d,
                           *buffer ? NULL : (void *)host, &err);
  REQUIRE_OK(err);
  if (*buffer) {
    size_t origin[3] = {0, 0, 0};
    REQUIRE_OK(clEnqueueWriteImage(env.queue, m, CL_TRUE, origin, s->n,
                                   l->row, l->slice, host, 0, NULL, NULL));
  }
  return m;
}

/* The pitches clEnqueueRead/WriteImage take for layout l of type s. */
static size_t cmd_slice(const shape *s, const layout *l) {
  return s->type == CL_MEM_OBJECT_IMAGE1D || s->type == CL_MEM_OBJECT_IMAGE2D ||
                 s->type == CL_MEM_OBJECT_IMAGE1D_BUFFER
             ? 0
             : l->slice;
}

static void test_types(void) {
  for (size_t oi = 0; oi < 4; oi++)
    for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
      const shape *s = &shapes[si];
      cl_channel_order o = orders[oi];
      size_t es = pixel_size(o), npx = s->n[0] * s->n[1] * s->n[2];
      layout hl = host_layout(s, es, s->n, 2); /* padded host pitches */
      layout tl = host_layout(s, es, s->n, 0); /* tight */
      unsigned char *host = calloc(1, hl.size), *model = malloc(tl.size),
                    *back = calloc(1, hl.size + 64);
      for (size_t z = 0; z < s->n[2]; z++)
        for (size_t y = 0; y < s->n[1]; y++)
          for (size_t x = 0; x < s->n[0]; x++)
            for (size_t b = 0; b < es; b++) {
              unsigned char v = (unsigned char)test_rand();
              host[at(&hl, x, y, z) + b] = v;
              model[at(&tl, x, y, z) + b] = v;
            }
      cl_mem buf;
      cl_mem img = make_shape(s, o, &hl, host, &buf);
      size_t origin[3] = {0, 0, 0};
      /* Read the whole image back with padded pitches. */
      REQUIRE_OK(clEnqueueReadImage(env.queue, img, CL_TRUE, origin, s->n,
                                    hl.row, cmd_slice(s, &hl), back, 0, NULL,
                                    NULL));
      int bad = 0;
      for (size_t z = 0; z < s->n[2]; z++)
        for (size_t y = 0; y < s->n[1]; y++)
          bad += memcmp(back + at(&hl, 0, y, z), model + at(&tl, 0, y, z),
                        s->n[0] * es) != 0;
      /* Write a sub-region from origin o1 (tight host rows). */
      size_t o1[3] = {1, s->n[1] > 1 ? 1 : 0, s->n[2] > 1 ? 1 : 0};
      size_t r1[3] = {s->n[0] - 2, s->n[1] > 2 ? s->n[1] - 2 : 1,
                      s->n[2] > 2 ? s->n[2] - 2 : 1};
      layout rl = host_layout(s, es, r1, 0);
      unsigned char *sub = malloc(rl.size);
      for (size_t i = 0; i < rl.size; i++)
        sub[i] = (unsigned char)test_rand();
      REQUIRE_OK(clEnqueueWriteImage(env.queue, img, CL_TRUE, o1, r1, 0, 0,
                                     sub, 0, NULL, NULL));
      for (size_t z = 0; z < r1[2]; z++)
        for (size_t y = 0; y < r1[1]; y++)
          memcpy(model + at(&tl, o1[0], o1[1] + y, o1[2] + z),
                 sub + at(&rl, 0, y, z), r1[0] * es);
      /* Fill another sub-region: codes 200, 17, 99 and alpha 128. */
      size_t o2[3] = {0, 0, s->n[2] - 1}, r2[3] = {2, 1, 1};
      float colour[4] = {(float)srgb_to_linear(200), (float)srgb_to_linear(17),
                         (float)srgb_to_linear(99), 0.5f};
      REQUIRE_OK(clEnqueueFillImage(env.queue, img, colour, o2, r2, 0, NULL,
                                    NULL));
      for (size_t x = 0; x < 2; x++) {
        unsigned char *p = model + at(&tl, x, 0, o2[2]);
        p[byte_of(o, 0)] = 200, p[byte_of(o, 1)] = 17, p[byte_of(o, 2)] = 99;
        if (es == 4)
          p[3] = 128;
      }
      /* Copy the image to a buffer and back into a second image; then the
       * second image's (1, ...) region into the first at its origin. */
      cl_mem flat = test_buffer(&env, tl.size, NULL);
      REQUIRE_OK(clEnqueueCopyImageToBuffer(env.queue, img, flat, origin, s->n,
                                            0, 0, NULL, NULL));
      cl_mem buf2;
      cl_mem img2 = make_shape(s, o, &hl, host, &buf2);
      REQUIRE_OK(clEnqueueCopyBufferToImage(env.queue, flat, img2, 0, origin,
                                            s->n, 0, NULL, NULL));
      /* The copy's source region starts at (1, o1[1], o1[2]); img2 holds
       * what the model holds now. */
      unsigned char *copy = malloc(tl.size);
      memcpy(copy, model, tl.size);
      size_t src[3] = {1, o1[1], o1[2]};
      size_t rr[3] = {s->n[0] - 1, s->n[1] - src[1], s->n[2] - src[2]};
      REQUIRE_OK(clEnqueueCopyImage(env.queue, img2, img, src, origin, rr, 0,
                                    NULL, NULL));
      for (size_t z = 0; z < rr[2]; z++)
        for (size_t y = 0; y < rr[1]; y++)
          memcpy(model + at(&tl, 0, y, z),
                 copy + at(&tl, src[0], src[1] + y, src[2] + z), rr[0] * es);
      /* Map the whole image and compare. */
      size_t row = 0, slice = 0;
      cl_int err;
      unsigned char *map = clEnqueueMapImage(
          env.queue, img, CL_TRUE, CL_MAP_READ, origin, s->n, &row, &slice, 0,
          NULL, NULL, &err);
      REQUIRE_OK(err);
      CHECK(row >= s->n[0] * es);
      size_t mys = s->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? slice : row;
      size_t mzs = s->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 0 : slice;
      for (size_t z = 0; z < s->n[2]; z++)
        for (size_t y = 0; y < s->n[1]; y++)
          bad += memcmp(map + y * mys + z * mzs, model + at(&tl, 0, y, z),
                        s->n[0] * es) != 0;
      REQUIRE_OK(clEnqueueUnmapMemObject(env.queue, img, map, 0, NULL, NULL));
      REQUIRE_OK(clFinish(env.queue));
      if (bad)
        fprintf(stderr, "host commands %#x type %#x: %d rows differ\n",
                (unsigned)o, (unsigned)s->type, bad);
      CHECK_EQ(bad, 0);

      /* A kernel reads every pixel of the image as the model has it. */
      cl_mem obuf = test_buffer(&env, npx * 16, NULL);
      cl_kernel k = kernel(s->reader);
      REQUIRE_OK(clSetKernelArg(k, 0, sizeof img, &img));
      REQUIRE_OK(clSetKernelArg(k, 1, sizeof obuf, &obuf));
      run(k, s->n);
      float *out = malloc(npx * 16);
      REQUIRE_OK(clEnqueueReadBuffer(env.queue, obuf, CL_TRUE, 0, npx * 16,
                                     out, 0, NULL, NULL));
      bad = 0;
      size_t i = 0;
      for (size_t z = 0; z < s->n[2]; z++)
        for (size_t y = 0; y < s->n[1]; y++)
          for (size_t x = 0; x < s->n[0]; x++, i++) {
            const unsigned char *p = model + at(&tl, x, y, z);
            for (int c = 0; c < 4; c++) {
              float want = c == 3 ? (has_alpha(o) ? (float)p[3] / 255.0f
                                                  : 1.0f)
                                  : (float)srgb_to_linear(p[byte_of(o, c)]);
              if (fabsf(out[4 * i + c] - want) > 0x1p-23f * want + 0x1p-24f)
                bad++;
            }
          }
      if (bad)
        fprintf(stderr, "kernel read %#x type %#x: %d channels differ\n",
                (unsigned)o, (unsigned)s->type, bad);
      CHECK_EQ(bad, 0);
      REQUIRE_OK(clReleaseKernel(k));

      /* A kernel writes every pixel of the second image: each a code's
       * linear value, so the stored bytes are known exactly. */
      float *vals = malloc(npx * 16);
      unsigned char *wantw = malloc(tl.size);
      REQUIRE_OK(clEnqueueReadImage(env.queue, img2, CL_TRUE, origin, s->n, 0,
                                    0, wantw, 0, NULL, NULL));
      i = 0;
      for (size_t z = 0; z < s->n[2]; z++)
        for (size_t y = 0; y < s->n[1]; y++)
          for (size_t x = 0; x < s->n[0]; x++, i++) {
            unsigned char *p = wantw + at(&tl, x, y, z);
            for (int c = 0; c < 3; c++) {
              int code = (int)(test_rand() & 255);
              vals[4 * i + c] = (float)srgb_to_linear(code);
              p[byte_of(o, c)] = (unsigned char)code;
            }
            int a = (int)(test_rand() & 255);
            vals[4 * i + 3] = (float)a / 255.0f;
            if (stores_alpha(o))
              p[3] = (unsigned char)a;
          }
      cl_mem vbuf = test_buffer(&env, npx * 16, vals);
      k = kernel(s->writer);
      REQUIRE_OK(clSetKernelArg(k, 0, sizeof img2, &img2));
      REQUIRE_OK(clSetKernelArg(k, 1, sizeof vbuf, &vbuf));
      run(k, s->n);
      REQUIRE_OK(clEnqueueReadImage(env.queue, img2, CL_TRUE, origin, s->n, 0,
                                    0, back, 0, NULL, NULL));
      bad = memcmp(back, wantw, tl.size) != 0;
      if (bad)
        fprintf(stderr, "kernel write %#x type %#x differs\n", (unsigned)o,
                (unsigned)s->type);
      CHECK_EQ(bad, 0);
      REQUIRE_OK(clReleaseKernel(k));

      cl_mem all[] = {img, img2, flat, obuf, vbuf};
      test_release_buffers(all, 5);
      if (buf)
        REQUIRE_OK(clReleaseMemObject(buf));
      if (buf2)
        REQUIRE_OK(clReleaseMemObject(buf2));
      free(host), free(model), free(back), free(sub), free(copy), free(out);
      free(vals), free(wantw);
    }
}

int main(void) {
  unsetenv("SKEIN_IMAGES"); /* images are on by default */
  test_setup(&env);
  test_seed(0x5ab6e5ULL);
  test_listed();
  static const char *modes[] = {NULL, "fiber", "loop", "region"};
  for (int m = 0; m < 4; m++) {
    if (modes[m])
      setenv("SKEIN_MODE", modes[m], 1);
    else
      unsetenv("SKEIN_MODE");
    int before = test_failures;
    prog = test_build(&env, kernels_src, "-cl-std=CL3.0");
    test_reads();
    test_linear();
    test_writes();
    test_types();
    if (test_failures != before)
      fprintf(stderr, "(in SKEIN_MODE=%s)\n", modes[m] ? modes[m] : "default");
    REQUIRE_OK(clReleaseProgram(prog));
  }
  unsetenv("SKEIN_MODE");
  test_teardown(&env);
  return test_finish("images-srgb");
}
