/* This file runs every one of the 2^32 float bit patterns through
 * vstore_half16 with each rounding mode and through the saturating
 * float-to-integer conversions, comparing with the host CPU's own
 * conversions (F16C's rounding-mode-controlled float-to-half, lrint and
 * explicit clamps). Slow: it belongs to the exhaustive label, not the
 * default suite. */
#include "test_util.h"
#include <immintrin.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

static test_env env;

enum { CHUNK = 1 << 20, NHALF = 4, NINT = 8 };

/* The integer conversions checked: name, destination size, signedness,
 * rounding (0 rte, 1 rtz, 2 rtp, 3 rtn). */
static const struct {
  const char *fn;
  int size;
  bool is_signed;
  int mode;
} conv[NINT] = {
    {"convert_int16_sat_rte", 4, true, 0}, {"convert_int16_sat", 4, true, 1},
    {"convert_int16_sat_rtp", 4, true, 2}, {"convert_int16_sat_rtn", 4, true, 3},
    {"convert_uint16_sat_rte", 4, false, 0},
    {"convert_short16_sat_rte", 2, true, 0},
    {"convert_long16_sat_rtn", 8, true, 3},
    {"convert_ulong16_sat_rtp", 8, false, 2}};
static const char *const half_fn[NHALF] = {"vstore_half16_rte",
                                           "vstore_half16_rtz",
                                           "vstore_half16_rtp",
                                           "vstore_half16_rtn"};

static char *kernel_source(void) {
  static char src[4096];
  size_t len = (size_t)snprintf(
      src, sizeof src,
      "kernel void k(uint base, global half *h, global int *i32, "
      "global long *i64, global short *i16) {\n"
      "  uint g = get_global_id(0);\n"
      "  float16 x = as_float16((uint16)(base + g * 16) + (uint16)(0, 1, 2, "
      "3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));\n");
  for (int m = 0; m < NHALF; m++)
    len += (size_t)snprintf(src + len, sizeof src - len,
                            "  %s(x, g, h + %d);\n", half_fn[m], m * CHUNK);
  int n32 = 0, n64 = 0;
  for (int c = 0; c < NINT; c++) {
    const char *buf = conv[c].size == 4 ? "i32" : conv[c].size == 8 ? "i64"
                                                                    : "i16";
    const char *cast = conv[c].size == 4   ? "int16"
                       : conv[c].size == 8 ? "long16"
                                           : "short16";
    int slot = conv[c].size == 4 ? n32++ : conv[c].size == 8 ? n64++ : 0;
    len += (size_t)snprintf(src + len, sizeof src - len,
                            "  vstore16(as_%s(%s(x)), g, %s + %d);\n", cast,
                            conv[c].fn, buf, slot * CHUNK);
  }
  snprintf(src + len, sizeof src - len, "}\n");
  return src;
}

/* The host CPU's float-to-half with an explicit rounding mode. */
__attribute__((target("f16c"))) static uint16_t host_half(float x, int mode) {
  __m128 v = _mm_set_ss(x);
  __m128i h;
  switch (mode) {
  case 0: h = _mm_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT); break;
  case 1: h = _mm_cvtps_ph(v, _MM_FROUND_TO_ZERO); break;
  case 2: h = _mm_cvtps_ph(v, _MM_FROUND_TO_POS_INF); break;
  default: h = _mm_cvtps_ph(v, _MM_FROUND_TO_NEG_INF); break;
  }
  return (uint16_t)_mm_extract_epi16(h, 0);
}

static bool half_is_nan(uint16_t h) {
  return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

/* Saturating conversion reference: round in float (exact: a rounded
 * float is an integer-valued float), then clamp against the destination's
 * limits, which are powers of two (or 0) and so exact in float. */
static __int128 host_sat(float x, int c) {
  if (isnan(x))
    return 0;
  float r = conv[c].mode == 0   ? nearbyintf(x)
            : conv[c].mode == 1 ? truncf(x)
            : conv[c].mode == 2 ? ceilf(x)
                                : floorf(x);
  int bits = conv[c].size * 8 - (conv[c].is_signed ? 1 : 0);
  __int128 hi = ((__int128)1 << bits) - 1, lo = conv[c].is_signed ? -hi - 1
                                                                  : 0;
  if (r >= ldexpf(1, bits))
    return hi;
  if (r <= (float)lo)
    return lo;
  return (__int128)r;
}

static __int128 device_int(const void *p, int c) {
  switch (conv[c].size) {
  case 2: return *(const int16_t *)p;
  case 4: return conv[c].is_signed ? (__int128)*(const int32_t *)p
                                   : (__int128)*(const uint32_t *)p;
  default: return conv[c].is_signed ? (__int128)*(const int64_t *)p
                                    : (__int128)*(const uint64_t *)p;
  }
}

static void check_chunk(uint32_t base, const uint16_t *h, const int32_t *i32,
                        const int64_t *i64, const int16_t *i16) {
  static int shown;
  for (uint32_t k = 0; k < CHUNK; k++) {
    uint32_t bits = base + k;
    float x;
    memcpy(&x, &bits, 4);
    for (int m = 0; m < NHALF; m++) {
      uint16_t want = host_half(x, m), got = h[(size_t)m * CHUNK + k];
      if (got != want && !(half_is_nan(want) && half_is_nan(got))) {
        test_failures++;
        if (shown++ < 10)
          fprintf(stderr, "%s(%a [%#x]) = %#x, expected %#x\n", half_fn[m], x,
                  bits, got, want);
      }
    }
    int n32 = 0, n64 = 0;
    for (int c = 0; c < NINT; c++) {
      const void *p = conv[c].size == 4
                          ? (const void *)&i32[(size_t)n32++ * CHUNK + k]
                      : conv[c].size == 8
                          ? (const void *)&i64[(size_t)n64++ * CHUNK + k]
                          : (const void *)&i16[k];
      __int128 got = device_int(p, c), want = host_sat(x, c);
      if (got != want) {
        test_failures++;
        if (shown++ < 10)
          fprintf(stderr, "%s(%a [%#x]) = %.0Lf, expected %.0Lf\n",
                  conv[c].fn, x, bits, (long double)got, (long double)want);
      }
    }
  }
}

/* An optional argument runs only that many chunks of 2^20 patterns,
 * spread over the whole range (a quick smoke run). */
int main(int argc, char **argv) {
  uint64_t stride = CHUNK;
  if (argc > 1 && atoi(argv[1]) > 0)
    stride = (1ull << 32) / (uint64_t)atoi(argv[1]);
  if (!__builtin_cpu_supports("f16c")) {
    fprintf(stderr, "exhaustive-convert: the host lacks F16C, skipped\n");
    return 0;
  }
  test_setup(&env);
  cl_program prog = test_build(&env, kernel_source(), "");
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "k", &err);
  REQUIRE_OK(err);
  size_t hb = (size_t)NHALF * CHUNK * 2, b32 = (size_t)5 * CHUNK * 4,
         b64 = (size_t)2 * CHUNK * 8, b16 = (size_t)CHUNK * 2;
  cl_mem mh = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, hb, NULL, &err);
  REQUIRE_OK(err);
  cl_mem m32 = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, b32, NULL, &err);
  REQUIRE_OK(err);
  cl_mem m64 = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, b64, NULL, &err);
  REQUIRE_OK(err);
  cl_mem m16 = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, b16, NULL, &err);
  REQUIRE_OK(err);
  uint16_t *h = malloc(hb);
  int32_t *i32 = malloc(b32);
  int64_t *i64 = malloc(b64);
  int16_t *i16 = malloc(b16);
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof mh, &mh));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof m32, &m32));
  REQUIRE_OK(clSetKernelArg(k, 3, sizeof m64, &m64));
  REQUIRE_OK(clSetKernelArg(k, 4, sizeof m16, &m16));
  for (uint64_t base = 0; base + CHUNK <= (1ull << 32); base += stride) {
    cl_uint b = (cl_uint)base;
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof b, &b));
    size_t global = CHUNK / 16;
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL,
                                      0, NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, mh, CL_FALSE, 0, hb, h, 0, NULL,
                                   NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, m32, CL_FALSE, 0, b32, i32, 0,
                                   NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, m64, CL_FALSE, 0, b64, i64, 0,
                                   NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, m16, CL_TRUE, 0, b16, i16, 0,
                                   NULL, NULL));
    check_chunk(b, h, i32, i64, i16);
  }
  free(h);
  free(i32);
  free(i64);
  free(i16);
  clReleaseMemObject(mh);
  clReleaseMemObject(m32);
  clReleaseMemObject(m64);
  clReleaseMemObject(m16);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  test_teardown(&env);
  return test_finish("exhaustive-convert");
}
