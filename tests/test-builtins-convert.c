/* This file tests the explicit conversions convert_<dest>[_sat][_mode] for
 * every pair of the ten arithmetic types, every width and every variant,
 * on edge values and random values, against a host reference computed in
 * long double / __int128 with the host's rounding modes (fesetround); and
 * as_<type> reinterpretation for every same-size pair of types. */
#include "test_util.h"
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

static test_env env;

enum { NTYPES = 10, NWIDTHS = 6, NMODES = 5, COUNT = 1536 };
enum { MODE_DEFAULT, MODE_RTE, MODE_RTZ, MODE_RTP, MODE_RTN };

typedef struct type_info {
  const char *name;
  bool is_float;
  bool is_signed;
  int size;
} type_info;

static const type_info types[NTYPES] = {
    {"char", false, true, 1},   {"uchar", false, false, 1},
    {"short", false, true, 2},  {"ushort", false, false, 2},
    {"int", false, true, 4},    {"uint", false, false, 4},
    {"long", false, true, 8},   {"ulong", false, false, 8},
    {"float", true, true, 4},   {"double", true, true, 8}};
static const int widths[NWIDTHS] = {1, 2, 3, 4, 8, 16};
static const char *const mode_suffix[NMODES] = {"", "_rte", "_rtz", "_rtp",
                                                "_rtn"};

/* Variants of a destination: index = sat * NMODES + mode; floating-point
 * destinations have no _sat. */
static int nvariants(int d) { return types[d].is_float ? NMODES : 2 * NMODES; }

/* ---- host values ------------------------------------------------------ */

typedef __int128 i128;

static void int_range(int t, i128 *lo, i128 *hi) {
  int bits = types[t].size * 8;
  if (types[t].is_signed) {
    *lo = -((i128)1 << (bits - 1));
    *hi = ((i128)1 << (bits - 1)) - 1;
  } else {
    *lo = 0;
    *hi = ((i128)1 << bits) - 1;
  }
}

/* The integer element idx of buf (type t) as an exact i128. */
static i128 get_int(int t, const void *buf, size_t idx) {
  const char *p = (const char *)buf + idx * types[t].size;
  switch (t) {
  case 0: return *(const int8_t *)p;
  case 1: return *(const uint8_t *)p;
  case 2: return *(const int16_t *)p;
  case 3: return *(const uint16_t *)p;
  case 4: return *(const int32_t *)p;
  case 5: return *(const uint32_t *)p;
  case 6: return *(const int64_t *)p;
  default: return *(const uint64_t *)p;
  }
}

static long double get_float(int t, const void *buf, size_t idx) {
  return t == 8 ? ((const float *)buf)[idx] : ((const double *)buf)[idx];
}

/* Stores the low bytes of v (two's complement modulo 2^bits). */
static void put_int(int t, void *out, i128 v) {
  unsigned __int128 u = (unsigned __int128)v;
  for (int b = 0; b < types[t].size; b++)
    ((unsigned char *)out)[b] = (unsigned char)(u >> (8 * b));
}

static const int fe_mode[NMODES] = {FE_TONEAREST, FE_TONEAREST,
                                    FE_TOWARDZERO, FE_UPWARD, FE_DOWNWARD};

/* Rounds the exact value x to float or double (d) with mode, through the
 * host's dynamic rounding mode. */
static void round_to_float(int d, long double x, int mode, void *out) {
  volatile long double vx = x;
  fesetround(fe_mode[mode]);
  if (d == 8) {
    volatile float f = (float)vx;
    memcpy(out, (const void *)&f, 4);
  } else {
    volatile double f = (double)vx;
    memcpy(out, (const void *)&f, 8);
  }
  fesetround(FE_TONEAREST);
}

/* Rounds the finite x to an integer-valued long double with mode. */
static long double round_to_integer(long double x, int mode) {
  switch (mode) {
  case MODE_RTE: return nearbyintl(x); /* FE_TONEAREST: ties to even */
  case MODE_RTP: return ceill(x);
  case MODE_RTN: return floorl(x);
  default: return truncl(x);
  }
}

/* The expected result of convert_<d>[sat][mode] of element idx of the
 * source buffer, in out; false if the spec leaves it undefined. */
static bool reference(int s, int d, bool sat, int mode, const void *src,
                      size_t idx, void *out) {
  i128 lo, hi;
  if (!types[s].is_float && !types[d].is_float) {
    i128 v = get_int(s, src, idx);
    int_range(d, &lo, &hi);
    if (sat)
      v = v < lo ? lo : v > hi ? hi : v;
    put_int(d, out, v);
    return true;
  }
  long double x = types[s].is_float ? get_float(s, src, idx)
                                    : (long double)get_int(s, src, idx);
  if (types[d].is_float) {
    round_to_float(d, x, mode, out);
    return true;
  }
  if (isnan(x)) {
    put_int(d, out, 0);
    return sat; /* NaN -> 0 with _sat, undefined otherwise */
  }
  int_range(d, &lo, &hi);
  long double r = isinf(x) ? x : round_to_integer(x, mode);
  if (r < (long double)lo || r > (long double)hi) {
    if (!sat)
      return false;
    put_int(d, out, r < 0 ? lo : hi);
    return true;
  }
  put_int(d, out, (i128)r);
  return true;
}

/* ---- inputs ----------------------------------------------------------- */


/* Integer edges: every type's limits and their neighbours, and values at
 * float/double rounding boundaries (ties and ties +- 1). */
static size_t int_edges(i128 *v) {
  static const int pows[] = {7, 8, 15, 16, 24, 25, 31, 32, 53, 54, 63, 64};
  size_t n = 0;
  for (int d = -2; d <= 2; d++)
    v[n++] = d;
  for (size_t k = 0; k < sizeof pows / sizeof *pows; k++)
    for (int d = -2; d <= 2; d++) {
      v[n++] = ((i128)1 << pows[k]) + d;
      v[n++] = -((i128)1 << pows[k]) + d;
    }
  /* Halfway points between consecutive floats (24 bits) and doubles. */
  static const int prec[] = {24, 53};
  static const int exps[] = {25, 31, 32, 40, 55, 62, 63};
  for (int p = 0; p < 2; p++)
    for (size_t k = 0; k < sizeof exps / sizeof *exps; k++) {
      if (exps[k] <= prec[p])
        continue;
      i128 ulp = (i128)1 << (exps[k] - prec[p]);
      i128 base = ((i128)1 << exps[k]) - 3 * ulp; /* odd, then even */
      for (int j = 0; j < 2; j++)
        for (int d = -1; d <= 1; d++) {
          v[n++] = base + j * ulp + ulp / 2 + d;
          v[n++] = -(base + j * ulp + ulp / 2 + d);
        }
    }
  return n;
}

static void gen_int_inputs(int t, void *buf) {
  i128 edges[512];
  size_t ne = int_edges(edges);
  for (size_t i = 0; i < COUNT; i++) {
    i128 v;
    if (i < ne) {
      v = edges[i];
    } else {
      /* Random bit lengths so every magnitude (and rounding) shows up. */
      int len = (int)(test_rand() % 65);
      uint64_t r = test_rand();
      v = len == 64 ? (i128)r : (i128)(r & ((1ull << len) - 1));
      if (test_rand() & 1)
        v = -v;
    }
    put_int(t, (char *)buf + i * types[t].size, v);
  }
}

static void put_fp(int t, void *buf, size_t i, long double x) {
  if (t == 8)
    ((float *)buf)[i] = (float)x;
  else
    ((double *)buf)[i] = (double)x;
}

/* Floating-point edges: zeros, INF, NaN, denormals, extremes, each
 * integer type's limits with their neighbours and +-0.5, ties at .5 and
 * .5 +- ulp, and (for double) the float rounding boundaries. */
static size_t fp_edges(int t, long double *v) {
  size_t n = 0;
  long double bases[64];
  size_t nb = 0;
  for (int k = 0; k <= 4; k++)
    bases[nb++] = k + 0.5L;
  static const int pows[] = {7, 8, 15, 16, 24, 31, 32, 53, 63, 64};
  for (size_t k = 0; k < sizeof pows / sizeof *pows; k++) {
    bases[nb++] = ldexpl(1, pows[k]);
    bases[nb++] = ldexpl(1, pows[k]) - 1;
  }
  for (size_t b = 0; b < nb; b++)
    for (int sign = -1; sign <= 1; sign += 2) {
      long double x = sign * bases[b];
      if (t == 8) {
        float f = (float)x;
        v[n++] = f;
        v[n++] = nextafterf(f, INFINITY);
        v[n++] = nextafterf(f, -INFINITY);
        v[n++] = f + 0.5f;
        v[n++] = f - 0.5f;
      } else {
        double f = (double)x;
        v[n++] = f;
        v[n++] = nextafter(f, INFINITY);
        v[n++] = nextafter(f, -INFINITY);
        v[n++] = f + 0.5;
        v[n++] = f - 0.5;
      }
    }
  long double specials[] = {
      0, -0.0L, INFINITY, -INFINITY, NAN, -NAN, FLT_MAX, -FLT_MAX,
      FLT_MIN, -FLT_MIN, FLT_TRUE_MIN, -FLT_TRUE_MIN, FLT_MIN - FLT_TRUE_MIN,
      0.1L, -0.1L, 1.0L / 3, -2.0L / 3, 1e10L, -1e10L};
  for (size_t k = 0; k < sizeof specials / sizeof *specials; k++)
    v[n++] = specials[k];
  if (t == 9) {
    long double dspec[] = {
        DBL_MAX, -DBL_MAX, DBL_MIN, DBL_TRUE_MIN, -DBL_TRUE_MIN,
        /* float ties and their neighbours */
        1 + ldexpl(1, -24), 1 + ldexpl(1, -24) + ldexpl(1, -52),
        1 + ldexpl(1, -24) - ldexpl(1, -53), 1 + 3 * ldexpl(1, -24),
        -(1 + 3 * ldexpl(1, -24)),
        /* around FLT_MAX and the rte overflow threshold */
        (long double)FLT_MAX + ldexpl(1, 103), (long double)FLT_MAX +
        ldexpl(1, 103) - ldexpl(1, 80), -((long double)FLT_MAX + 1e30L),
        1e39L, -1e39L, 1e300L,
        /* around float denormals and underflow to zero */
        ldexpl(1, -150), -ldexpl(1, -150), ldexpl(1, -150) * 1.5L,
        ldexpl(3, -150), ldexpl(1, -151), -ldexpl(1, -160), 1e-300L,
        -1e-300L, ldexpl(1, -126) - ldexpl(1, -150)};
    for (size_t k = 0; k < sizeof dspec / sizeof *dspec; k++)
      v[n++] = dspec[k];
  }
  return n;
}

static void gen_fp_inputs(int t, void *buf) {
  long double edges[512];
  size_t ne = fp_edges(t, edges);
  for (size_t i = 0; i < COUNT; i++) {
    if (i < ne) {
      put_fp(t, buf, i, edges[i]);
      continue;
    }
    uint64_t r = test_rand();
    switch (r % 4) {
    case 0: /* random bit pattern (every class, NaN payloads) */
      if (t == 8) {
        uint32_t b = (uint32_t)(r >> 32);
        memcpy((float *)buf + i, &b, 4);
      } else {
        uint64_t b = test_rand();
        memcpy((double *)buf + i, &b, 8);
      }
      break;
    case 1: /* ties: integer + 0.5 */
      put_fp(t, buf, i, (long double)((int64_t)(test_rand() % 2001) - 1000) + 0.5L);
      break;
    default: /* random magnitude up to 2^66 with a fractional part */
      put_fp(t, buf, i,
             ldexpl((long double)(test_rand() >> 11) / 9007199254740992.0L,
                    (int)(test_rand() % 67)) * ((r >> 8) & 1 ? -1 : 1));
    }
  }
}

/* ---- kernels ---------------------------------------------------------- */

static size_t appendf(char **buf, size_t *cap, size_t len, const char *fmt,
                      ...) __attribute__((format(printf, 4, 5)));
#include <stdarg.h>
static size_t appendf(char **buf, size_t *cap, size_t len, const char *fmt,
                      ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int w = vsnprintf(*buf + len, *cap - len, fmt, ap);
    va_end(ap);
    if (len + (size_t)w < *cap)
      return len + (size_t)w;
    *cap *= 2;
    *buf = realloc(*buf, *cap);
  }
}

/* One kernel per (s, d): every variant at every width, written to out at
 * ((variant * NWIDTHS) + width index) * n + element. */
static size_t kernel_source(char **src, size_t *cap, size_t len, int s,
                            int d) {
  const char *S = types[s].name, *D = types[d].name;
  len = appendf(src, cap, len,
                "kernel void k_%s_%s(global const %s *in, global %s *out, "
                "uint n) {\n  uint i = get_global_id(0);\n",
                S, D, S, D);
  for (int v = 0; v < nvariants(d); v++) {
    const char *sat = v >= NMODES ? "_sat" : "", *m = mode_suffix[v % NMODES];
    for (int w = 0; w < NWIDTHS; w++) {
      int n = widths[w];
      size_t base = (size_t)(v * NWIDTHS + w);
      if (n == 1)
        len = appendf(src, cap, len,
                      "  out[%zu * n + i] = convert_%s%s%s(in[i]);\n", base,
                      D, sat, m);
      else if (n == 3)
        len = appendf(src, cap, len,
                      "  if (i < n / 3) { %s3 y = convert_%s3%s%s((%s3)(in[3 "
                      "* i], in[3 * i + 1], in[3 * i + 2])); global %s *o = "
                      "out + %zu * n + 3 * i; o[0] = y.x; o[1] = y.y; o[2] = "
                      "y.z; }\n",
                      D, D, sat, m, S, D, base);
      else
        len = appendf(src, cap, len,
                      "  if (i < n / %d) ((global %s%d *)(out + %zu * n))[i] "
                      "= convert_%s%d%s%s(((global const %s%d *)in)[i]);\n",
                      n, D, n, base, D, n, sat, m, S, n);
    }
  }
  return appendf(src, cap, len, "}\n");
}

static void describe(int t, const void *p, char *out, size_t cap) {
  if (types[t].is_float) {
    long double x = get_float(t, p, 0);
    snprintf(out, cap, "%La", x);
  } else {
    i128 v = get_int(t, p, 0);
    if (v > INT64_MAX)
      snprintf(out, cap, "%llu", (unsigned long long)v);
    else
      snprintf(out, cap, "%lld", (long long)v);
  }
}

static bool same_result(int d, const void *got, const void *want) {
  if (types[d].is_float) {
    long double g = get_float(d, got, 0), w = get_float(d, want, 0);
    if (isnan(w))
      return isnan(g);
  }
  return memcmp(got, want, (size_t)types[d].size) == 0;
}

/* Runs kernel k_s_d on the inputs and compares every output. */
static void check_pair(cl_program prog, cl_mem in, const void *host_in,
                       cl_mem out, char *host_out, int s, int d) {
  char name[64];
  snprintf(name, sizeof name, "k_%s_%s", types[s].name, types[d].name);
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  cl_uint n = COUNT;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof in, &in));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof out, &out));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof n, &n));
  size_t gsize = COUNT, dsz = (size_t)types[d].size;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &gsize, NULL, 0,
                                    NULL, NULL));
  size_t bytes = (size_t)nvariants(d) * NWIDTHS * COUNT * dsz;
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, bytes, host_out,
                                 0, NULL, NULL));
  int shown = 0;
  for (int v = 0; v < nvariants(d); v++)
    for (size_t i = 0; i < COUNT; i++) {
      unsigned char want[8];
      if (!reference(s, d, v >= NMODES, v % NMODES, host_in, i, want))
        continue;
      for (int w = 0; w < NWIDTHS; w++) {
        const char *got = host_out + ((size_t)(v * NWIDTHS + w) * COUNT + i) *
                                         dsz;
        if (same_result(d, got, want))
          continue;
        test_failures++;
        if (shown++ < 5) {
          char a[64], g[64], x[64];
          describe(s, (const char *)host_in + i * types[s].size, a, sizeof a);
          describe(d, got, g, sizeof g);
          describe(d, want, x, sizeof x);
          fprintf(stderr, "convert_%s%d%s%s(%s %s) = %s, expected %s\n",
                  types[d].name, widths[w], v >= NMODES ? "_sat" : "",
                  mode_suffix[v % NMODES], types[s].name, a, g, x);
        }
      }
    }
  clReleaseKernel(k);
}

static void test_conversions(void) {
  size_t cap = 1 << 20, len = 0;
  char *src = malloc(cap);
  for (int s = 0; s < NTYPES; s++)
    for (int d = 0; d < NTYPES; d++)
      len = kernel_source(&src, &cap, len, s, d);
  cl_program prog = test_build(&env, src, "");
  free(src);

  cl_int err;
  cl_mem in = clCreateBuffer(env.context, CL_MEM_READ_ONLY, COUNT * 8, NULL,
                             &err);
  REQUIRE_OK(err);
  size_t out_bytes = (size_t)2 * NMODES * NWIDTHS * COUNT * 8;
  cl_mem out = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, out_bytes, NULL,
                              &err);
  REQUIRE_OK(err);
  char *host_in = malloc(COUNT * 8), *host_out = malloc(out_bytes);
  for (int s = 0; s < NTYPES; s++) {
    if (types[s].is_float)
      gen_fp_inputs(s, host_in);
    else
      gen_int_inputs(s, host_in);
    REQUIRE_OK(clEnqueueWriteBuffer(env.queue, in, CL_TRUE, 0,
                                    COUNT * (size_t)types[s].size, host_in, 0,
                                    NULL, NULL));
    for (int d = 0; d < NTYPES; d++)
      check_pair(prog, in, host_in, out, host_out, s, d);
  }
  free(host_in);
  free(host_out);
  clReleaseMemObject(in);
  clReleaseMemObject(out);
  clReleaseProgram(prog);
}

/* ---- reference self-test ---------------------------------------------- */

/* The host reference itself, on results known by heart. */
static void test_reference(void) {
  float f_in[] = {2.5f, 3.5f, -2.5f, 0.5f, -0.5f, 1.5f};
  int rte[] = {2, 4, -2, 0, 0, 2}, rtp[] = {3, 4, -2, 1, 0, 2};
  for (size_t k = 0; k < sizeof f_in / sizeof *f_in; k++) {
    int32_t got;
    CHECK(reference(8, 4, false, MODE_RTE, f_in, k, &got));
    CHECK_EQ(got, rte[k]);
    CHECK(reference(8, 4, false, MODE_RTP, f_in, k, &got));
    CHECK_EQ(got, rtp[k]);
  }
  int64_t l_in[] = {(1ll << 24) + 1, -((1ll << 24) + 1), INT64_MAX};
  float want_rtp[] = {16777218.0f, -16777216.0f, 0x1p63f};
  float want_rtz[] = {16777216.0f, -16777216.0f, 0x1.fffffep62f};
  for (size_t k = 0; k < 3; k++) {
    float got;
    reference(6, 8, false, MODE_RTP, l_in, k, &got);
    CHECK(got == want_rtp[k]);
    reference(6, 8, false, MODE_RTZ, l_in, k, &got);
    CHECK(got == want_rtz[k]);
  }
  float nan = NAN, big = 3e9f;
  int32_t r;
  CHECK(reference(8, 4, true, MODE_DEFAULT, &nan, 0, &r) && r == 0);
  CHECK(reference(8, 4, true, MODE_DEFAULT, &big, 0, &r) && r == INT32_MAX);
  CHECK(!reference(8, 4, false, MODE_DEFAULT, &big, 0, &r));
}

/* ---- as_type ---------------------------------------------------------- */

/* Every scalar and vector type: name, element size, lanes. */
typedef struct as_type {
  char name[16];
  int elem, lanes;
} as_type;

static int as_size(const as_type *t) {
  return t->elem * (t->lanes == 3 ? 4 : t->lanes);
}

/* Bytes that carry a value: a 3-lane vector's fourth lane is padding. */
static int as_meaningful(const as_type *t) { return t->elem * t->lanes; }

static size_t list_as_types(as_type *out) {
  size_t n = 0;
  for (int t = 0; t < NTYPES; t++)
    for (int w = 0; w < NWIDTHS; w++) {
      if (widths[w] == 1)
        snprintf(out[n].name, sizeof out[n].name, "%s", types[t].name);
      else
        snprintf(out[n].name, sizeof out[n].name, "%s%d", types[t].name,
                 widths[w]);
      out[n].elem = types[t].size;
      out[n].lanes = widths[w];
      n++;
    }
  return n;
}

/* One kernel per source type writes as_<dst>(x) for every destination of
 * the same size into slot j of 128 bytes; the host compares the bytes
 * that carry a value in both types. */
static void test_as_type(void) {
  as_type t[NTYPES * NWIDTHS];
  size_t nt = list_as_types(t), cap = 1 << 16, len = 0;
  char *src = malloc(cap);
  for (size_t a = 0; a < nt; a++) {
    len = appendf(&src, &cap, len,
                  "kernel void as_from_%s(global const %s *in, global uchar "
                  "*out) {\n  %s x = in[0];\n",
                  t[a].name, t[a].name, t[a].name);
    for (size_t b = 0; b < nt; b++)
      if (as_size(&t[a]) == as_size(&t[b]))
        len = appendf(&src, &cap, len,
                      "  *(global %s *)(out + %zu) = as_%s(x);\n", t[b].name,
                      b * 128, t[b].name);
    len = appendf(&src, &cap, len, "}\n");
  }
  cl_program prog = test_build(&env, src, "");
  free(src);
  size_t out_bytes = nt * 128;
  cl_int err;
  cl_mem in = clCreateBuffer(env.context, CL_MEM_READ_ONLY, 128, NULL, &err);
  REQUIRE_OK(err);
  cl_mem out = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, out_bytes, NULL,
                              &err);
  REQUIRE_OK(err);
  unsigned char host_in[128], *host_out = malloc(out_bytes);
  int pairs = 0;
  for (size_t a = 0; a < nt; a++) {
    for (int k = 0; k < 128; k++)
      host_in[k] = (unsigned char)test_rand();
    REQUIRE_OK(clEnqueueWriteBuffer(env.queue, in, CL_TRUE, 0, 128, host_in,
                                    0, NULL, NULL));
    char name[64];
    snprintf(name, sizeof name, "as_from_%.40s", t[a].name);
    cl_kernel k = clCreateKernel(prog, name, &err);
    REQUIRE_OK(err);
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof in, &in));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof out, &out));
    size_t one = 1;
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &one, NULL, 0,
                                      NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, out_bytes,
                                   host_out, 0, NULL, NULL));
    for (size_t b = 0; b < nt; b++) {
      if (as_size(&t[a]) != as_size(&t[b]))
        continue;
      int m = as_meaningful(&t[a]) < as_meaningful(&t[b])
                  ? as_meaningful(&t[a])
                  : as_meaningful(&t[b]);
      pairs++;
      if (memcmp(host_out + b * 128, host_in, (size_t)m) != 0) {
        fprintf(stderr, "as_%s(%s) changed the bits\n", t[b].name, t[a].name);
        test_failures++;
      }
    }
    clReleaseKernel(k);
  }
  CHECK_EQ(pairs, 60 + 520); /* identities + every same-size pair */
  free(host_out);
  clReleaseMemObject(in);
  clReleaseMemObject(out);
  clReleaseProgram(prog);
}

int main(void) {
  test_seed(0x243f6a8885a308d3ull);
  test_setup(&env);
  test_reference();
  test_conversions();
  test_as_type();
  test_teardown(&env);
  return test_finish("builtins-convert");
}
