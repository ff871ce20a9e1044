/* Tests clEnqueueFillImage's conversion of the fill colour into every
 * format's bits against host references of the OpenCL C specification's
 * Conversion Rules: for the 8- and 16-bit normalised types every code
 * value is hit exactly, at the halfway points between codes (ties round to
 * even), one float to either side of those, and out of range (saturation,
 * NaN to 0); half against the compiler's _Float16 rounding for every half
 * value and every halfway point; the packed 565/555/101010/101010_2
 * formats per channel code; sRGB within one code of the exact curve;
 * integer formats' saturation; and where each channel order puts r, g, b
 * and a. Each fill writes one pixel of a large image with its own colour;
 * one read checks them all. */
#include "test_util.h"
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

static test_env env;

/* Fills pixel i of a 2D image of format f with colours[i] (16 bytes each)
 * for i < n, then reads the image back into out (n * elem bytes). */
static void fill_many(const cl_image_format *f, size_t elem,
                      const void *colours, size_t n, unsigned char *out) {
  const size_t width = 4096, height = (n + width - 1) / width;
  cl_image_desc desc = {CL_MEM_OBJECT_IMAGE2D, width, height, 1, 0, 0, 0, 0,
                        0, {NULL}};
  cl_int err;
  cl_mem img = clCreateImage(env.context, 0, f, &desc, NULL, &err);
  REQUIRE_OK(err);
  for (size_t i = 0; i < n; i++) {
    size_t origin[3] = {i % width, i / width, 0}, region[3] = {1, 1, 1};
    REQUIRE_OK(clEnqueueFillImage(env.queue, img,
                                  (const unsigned char *)colours + 16 * i,
                                  origin, region, 0, NULL, NULL));
  }
  unsigned char *all = malloc(width * height * elem);
  size_t origin[3] = {0, 0, 0}, region[3] = {width, height, 1};
  REQUIRE_OK(clEnqueueReadImage(env.queue, img, CL_TRUE, origin, region, 0,
                                0, all, 0, NULL, NULL));
  memcpy(out, all, n * elem);
  free(all);
  REQUIRE_OK(clReleaseMemObject(img));
}

/* The spec's convert_<T>_sat_rte(f * scale), computed independently:
 * the product in float, then rounding in double (exact for these
 * magnitudes) with ties to even. */
static long ref_norm(float f, float scale, long lo, long hi) {
  if (isnan(f))
    return 0;
  float p = f * scale;
  if (p <= (float)lo)
    return lo;
  if (p >= (float)hi)
    return hi;
  double fl = floor((double)p), frac = (double)p - fl;
  long r = (long)fl;
  if (frac > 0.5 || (frac == 0.5 && (r & 1)))
    r++;
  return r;
}

/* Inputs for a normalised type of scale s and codes lo..hi: each code
 * exactly, the halfway point above it, a float on either side of both,
 * and out-of-range and special values. */
static float *norm_inputs(float s, long lo, long hi, size_t *count) {
  size_t cap = (size_t)(hi - lo + 1) * 6 + 16, n = 0;
  float *v = malloc(cap * sizeof *v);
  for (long c = lo; c <= hi; c++) {
    float exact = (float)c / s, half = ((float)c + 0.5f) / s;
    v[n++] = exact;
    v[n++] = nextafterf(exact, INFINITY);
    v[n++] = nextafterf(exact, -INFINITY);
    v[n++] = half;
    v[n++] = nextafterf(half, INFINITY);
    v[n++] = nextafterf(half, -INFINITY);
  }
  const float special[] = {-2.0f, -1.0f, -0.0f, 0.0f, 1.0f, 1.5f, 100.0f,
                           -100.0f, INFINITY, -INFINITY, NAN, 1e-30f,
                           -1e-30f, 0.5f, 1e30f, -1e30f};
  for (size_t i = 0; i < 16; i++)
    v[n++] = special[i];
  *count = n;
  return v;
}

/* One normalised format of RGBA order: every input in every channel. */
static void check_norm(cl_channel_type t, float scale, long lo, long hi,
                       size_t cs) {
  size_t n;
  float *in = norm_inputs(scale, lo, hi, &n);
  size_t pixels = (n + 3) / 4;
  float *colours = calloc(pixels, 16);
  for (size_t i = 0; i < n; i++)
    colours[i] = in[i]; /* pixel i / 4, channel i % 4 */
  unsigned char *out = malloc(pixels * 4 * cs);
  cl_image_format f = {CL_RGBA, t};
  fill_many(&f, 4 * cs, colours, pixels, out);
  unsigned bad = 0;
  for (size_t i = 0; i < n; i++) {
    long want = ref_norm(in[i], scale, lo, hi), got;
    if (cs == 1)
      got = lo < 0 ? (long)(int8_t)out[i] : (long)out[i];
    else {
      uint16_t u;
      memcpy(&u, out + 2 * i, 2);
      got = lo < 0 ? (long)(int16_t)u : (long)u;
    }
    if (got != want && bad++ < 5)
      fprintf(stderr, "type 0x%x: fill %.9g gives %ld, want %ld\n",
              (unsigned)t, in[i], got, want);
  }
  CHECK_EQ(bad, 0);
  printf("type 0x%x: %zu inputs\n", (unsigned)t, n);
  free(in), free(colours), free(out);
}

/* Half: every half value and every halfway point between neighbours (and
 * a float to either side), against _Float16's round to nearest even. */
static void check_half(void) {
  size_t cap = 65536 * 4 + 8, n = 0;
  float *in = malloc(cap * sizeof *in);
  for (uint32_t h = 0; h < 65536; h++) {
    uint16_t bits = (uint16_t)h, next = (uint16_t)(h + 1);
    _Float16 a, b;
    memcpy(&a, &bits, 2);
    memcpy(&b, &next, 2);
    float fa = (float)a;
    in[n++] = fa;
    if (isfinite(fa) && (bits & 0x7fff) < 0x7bff) {
      float mid = (float)(((double)fa + (double)(float)b) / 2);
      in[n++] = mid;
      in[n++] = nextafterf(mid, INFINITY);
      in[n++] = nextafterf(mid, -INFINITY);
    }
  }
  in[n++] = 65520.0f, in[n++] = 1e10f, in[n++] = -65520.0f;
  in[n++] = 1e-10f;
  size_t pixels = (n + 3) / 4;
  float *colours = calloc(pixels, 16);
  memcpy(colours, in, n * sizeof *in);
  uint16_t *out = malloc(pixels * 8);
  cl_image_format f = {CL_RGBA, CL_HALF_FLOAT};
  fill_many(&f, 8, colours, pixels, (unsigned char *)out);
  unsigned bad = 0;
  for (size_t i = 0; i < n; i++) {
    _Float16 want = (_Float16)in[i];
    uint16_t wb;
    memcpy(&wb, &want, 2);
    bool same = wb == out[i] ||
                (isnan(in[i]) && (out[i] & 0x7c00) == 0x7c00 &&
                 (out[i] & 0x3ff)); /* any NaN */
    if (!same && bad++ < 5)
      fprintf(stderr, "half: fill %a gives 0x%04x, want 0x%04x\n", in[i],
              out[i], wb);
  }
  CHECK_EQ(bad, 0);
  printf("half: %zu inputs\n", n);
  free(in), free(colours), free(out);
}

/* The packed formats: each channel over its codes (exact and halfway
 * inputs), the others fixed, against shifts and masks. */
static void check_packed(cl_channel_order o, cl_channel_type t) {
  const int *bits, *shift;
  static const int b565[] = {5, 6, 5, 0}, s565[] = {11, 5, 0, 0};
  static const int b555[] = {5, 5, 5, 0}, s555[] = {10, 5, 0, 0};
  static const int b10[] = {10, 10, 10, 0}, s10[] = {20, 10, 0, 0};
  static const int b102[] = {10, 10, 10, 2}, s102[] = {22, 12, 2, 0};
  size_t elem = 4;
  switch (t) {
  case CL_UNORM_SHORT_565:
    bits = b565, shift = s565, elem = 2;
    break;
  case CL_UNORM_SHORT_555:
    bits = b555, shift = s555, elem = 2;
    break;
  case CL_UNORM_INT_101010:
    bits = b10, shift = s10;
    break;
  default:
    bits = b102, shift = s102;
  }
  size_t n = 0, cap = 4 * 1024 * 3;
  float *colours = calloc(cap, 16);
  for (int ch = 0; ch < 4; ch++) {
    if (!bits[ch])
      continue;
    long max = (1L << bits[ch]) - 1;
    for (long c = 0; c <= max; c++)
      for (int k = 0; k < 3; k++) {
        float *col = colours + 4 * n++;
        col[0] = 0.25f, col[1] = 0.5f, col[2] = 0.75f, col[3] = 1.0f;
        col[ch] = k == 0   ? (float)c / (float)max
                  : k == 1 ? ((float)c + 0.5f) / (float)max
                           : (float)c / (float)max - 0.7f / (float)max;
      }
  }
  unsigned char *out = malloc(n * elem);
  cl_image_format f = {o, t};
  fill_many(&f, elem, colours, n, out);
  unsigned bad = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t want = 0, got = 0;
    for (int ch = 0; ch < 4; ch++)
      if (bits[ch]) {
        long max = (1L << bits[ch]) - 1;
        want |= (uint32_t)ref_norm(colours[4 * i + ch], (float)max, 0, max)
                << shift[ch];
      }
    memcpy(&got, out + i * elem, elem);
    if (got != want && bad++ < 5)
      fprintf(stderr, "packed 0x%x: pixel %zu is 0x%x, want 0x%x\n",
              (unsigned)t, i, got, want);
  }
  CHECK_EQ(bad, 0);
  printf("packed 0x%x/0x%x: %zu pixels\n", (unsigned)o, (unsigned)t, n);
  free(colours), free(out);
}

/* sRGB: the exact curve in double, within one code (the spec allows the
 * conversion its error bound); alpha exact. */
static void check_srgb(cl_channel_order o) {
  size_t n = 0, cap = 4096 + 16;
  float *colours = calloc(cap, 16);
  for (int i = 0; i < 4096; i++, n++) {
    float v = (float)i / 4095.0f;
    float *c = colours + 4 * n;
    c[0] = v, c[1] = 1.0f - v, c[2] = v * v, c[3] = v;
  }
  const float special[] = {-1.0f, 2.0f, NAN, 0.0031308f, 0.003f, 1.0f};
  for (int i = 0; i < 6; i++, n++)
    for (int k = 0; k < 4; k++)
      colours[4 * n + k] = special[i];
  unsigned char *out = malloc(n * 4);
  cl_image_format f = {o, CL_UNORM_INT8};
  fill_many(&f, 4, colours, n, out);
  unsigned bad = 0;
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 4; k++) {
      double c = colours[4 * i + k];
      if (isnan(c) || c < 0)
        c = 0;
      if (c > 1)
        c = 1;
      double want;
      if (k == 3)
        want = (double)ref_norm(colours[4 * i + k], 255.0f, 0, 255);
      else
        want = 255.0 * (c < 0.0031308 ? 12.92 * c
                                      : 1.055 * pow(c, 1 / 2.4) - 0.055);
      /* sBGRA stores b, g, r, a. */
      int at = o == CL_sBGRA && k < 3 ? 2 - k : k;
      double got = out[4 * i + at];
      if (fabs(got - want) > (k == 3 ? 0.0 : 1.0) && bad++ < 5)
        fprintf(stderr, "sRGB: channel %d of %g gives %g, want %g\n", k,
                colours[4 * i + k], got, want);
    }
  CHECK_EQ(bad, 0);
  free(colours), free(out);
}

/* Integer formats: saturation at the type's limits. */
static void check_integers(void) {
  static const int32_t si[] = {INT32_MIN, -70000, -32769, -32768, -129, -128,
                               -1,        0,      1,      127,    128,  255,
                               256,       32767,  32768,  65535,  65536,
                               INT32_MAX};
  size_t n = sizeof si / sizeof si[0];
  int32_t colours[18][4];
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 4; k++)
      colours[i][k] = si[(i + (size_t)k) % n];
  struct {
    cl_channel_type t;
    size_t cs;
    bool sign;
    long long lo, hi;
  } types[] = {{CL_SIGNED_INT8, 1, true, -128, 127},
               {CL_SIGNED_INT16, 2, true, -32768, 32767},
               {CL_SIGNED_INT32, 4, true, INT32_MIN, INT32_MAX},
               {CL_UNSIGNED_INT8, 1, false, 0, 255},
               {CL_UNSIGNED_INT16, 2, false, 0, 65535},
               {CL_UNSIGNED_INT32, 4, false, 0, UINT32_MAX}};
  for (size_t t = 0; t < 6; t++) {
    unsigned char out[18 * 16];
    cl_image_format f = {CL_RGBA, types[t].t};
    fill_many(&f, 4 * types[t].cs, colours, n, out);
    for (size_t i = 0; i < n; i++)
      for (int k = 0; k < 4; k++) {
        long long v = types[t].sign ? (long long)colours[i][k]
                                    : (long long)(uint32_t)colours[i][k];
        long long want = v < types[t].lo   ? types[t].lo
                         : v > types[t].hi ? types[t].hi
                                           : v;
        uint32_t raw = 0;
        memcpy(&raw, out + (4 * i + (size_t)k) * types[t].cs, types[t].cs);
        long long got = raw;
        if (types[t].sign)
          got = types[t].cs == 1   ? (int8_t)raw
                : types[t].cs == 2 ? (int16_t)raw
                                   : (int32_t)raw;
        if (got != want) {
          fprintf(stderr, "int type 0x%x: %lld gives %lld, want %lld\n",
                  (unsigned)types[t].t, v, got, want);
          test_failures++;
        }
      }
  }
}

/* Where each order puts the colour's r, g, b, a (UNSIGNED_INT8 colours
 * 1, 2, 3, 4; UNORM for the orders that take no integer type). */
static void check_orders(void) {
  const struct {
    cl_channel_order o;
    cl_channel_type t;
    size_t n;
    unsigned char want[4];
  } cases[] = {
      {CL_R, CL_UNSIGNED_INT8, 1, {1}},
      {CL_A, CL_UNSIGNED_INT8, 1, {4}},
      {CL_Rx, CL_UNSIGNED_INT8, 1, {1}},
      {CL_RG, CL_UNSIGNED_INT8, 2, {1, 2}},
      {CL_RA, CL_UNSIGNED_INT8, 2, {1, 4}},
      {CL_RGx, CL_UNSIGNED_INT8, 2, {1, 2}},
      {CL_RGBA, CL_UNSIGNED_INT8, 4, {1, 2, 3, 4}},
      {CL_BGRA, CL_UNSIGNED_INT8, 4, {3, 2, 1, 4}},
      {CL_ARGB, CL_UNSIGNED_INT8, 4, {4, 1, 2, 3}},
      {CL_ABGR, CL_UNSIGNED_INT8, 4, {4, 3, 2, 1}},
      {CL_INTENSITY, CL_UNORM_INT8, 1, {1}},
      {CL_LUMINANCE, CL_UNORM_INT8, 1, {1}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cl_uint ucol[4] = {1, 2, 3, 4};
    float fcol[4] = {1 / 255.0f, 2 / 255.0f, 3 / 255.0f, 4 / 255.0f};
    unsigned char color[16], out[4] = {0};
    memcpy(color, cases[i].t == CL_UNORM_INT8 ? (void *)fcol : (void *)ucol,
           16);
    cl_image_format f = {cases[i].o, cases[i].t};
    fill_many(&f, cases[i].n, color, 1, out);
    if (memcmp(out, cases[i].want, cases[i].n)) {
      fprintf(stderr, "order 0x%x: got %u %u %u %u\n",
              (unsigned)cases[i].o, out[0], out[1], out[2], out[3]);
      test_failures++;
    }
  }
  /* CL_DEPTH: the fill colour is a single float. */
  cl_image_format depth16 = {CL_DEPTH, CL_UNORM_INT16};
  float d[4] = {0.5f, 9, 9, 9};
  uint16_t got16 = 0;
  fill_many(&depth16, 2, d, 1, (unsigned char *)&got16);
  CHECK_EQ(got16, 32768); /* 0.5 * 65535 = 32767.5: ties to even */
  cl_image_format depthf = {CL_DEPTH, CL_FLOAT};
  float gotf = 0;
  fill_many(&depthf, 4, d, 1, (unsigned char *)&gotf);
  CHECK(gotf == 0.5f);
}

int main(void) {
  unsetenv("SKEIN_IMAGES"); /* images are on by default */
  test_setup(&env);
  check_norm(CL_UNORM_INT8, 255.0f, 0, 255, 1);
  check_norm(CL_SNORM_INT8, 127.0f, -128, 127, 1);
  check_norm(CL_UNORM_INT16, 65535.0f, 0, 65535, 2);
  check_norm(CL_SNORM_INT16, 32767.0f, -32768, 32767, 2);
  check_half();
  check_packed(CL_RGB, CL_UNORM_SHORT_565);
  check_packed(CL_RGBx, CL_UNORM_SHORT_555);
  check_packed(CL_RGB, CL_UNORM_INT_101010);
  check_packed(CL_RGBA, CL_UNORM_INT_101010_2);
  check_srgb(CL_sRGBA);
  check_srgb(CL_sBGRA);
  check_integers();
  check_orders();
  test_teardown(&env);
  return test_finish("images-fill");
}
