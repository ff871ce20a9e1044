/* This file tests the vector data load and store builtins: vloadn and
 * vstoren for every element type and width from/to every address space
 * with the spec's offset semantics (p + offset * n, element alignment,
 * exactly n elements touched), and vload_half[n], vloada_halfn,
 * vstore_half[n][_mode] and vstorea_halfn[_mode] from float and double
 * against a host half-precision reference with each rounding mode. */
#include "test_util.h"
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

static test_env env;


static size_t appendf(char **buf, size_t *cap, size_t len, const char *fmt,
                      ...) __attribute__((format(printf, 4, 5)));
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

static cl_mem make_buffer(cl_mem_flags flags, size_t size, void *host) {
  cl_int err;
  cl_mem m = clCreateBuffer(env.context, flags | (host ? CL_MEM_COPY_HOST_PTR
                                                       : 0),
                            size, host, &err);
  REQUIRE_OK(err);
  return m;
}

static void run(cl_program prog, const char *name, size_t global, int nargs,
                ...) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  va_list ap;
  va_start(ap, nargs);
  for (int a = 0; a < nargs; a++) {
    cl_mem m = va_arg(ap, cl_mem);
    REQUIRE_OK(clSetKernelArg(k, (cl_uint)a, sizeof m, &m));
  }
  va_end(ap);
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  clReleaseKernel(k);
}

/* ---- vloadn / vstoren -------------------------------------------------- */

enum { NTYPES = 10, ITEMS = 64, SLOTS = ITEMS * 16 + 32 };
static const char *const tnames[NTYPES] = {"char", "uchar", "short",
                                           "ushort", "int", "uint", "long",
                                           "ulong", "float", "double"};
static const int tsize[NTYPES] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
static const int vwidths[] = {2, 3, 4, 8, 16};
enum { NVW = 5, NREGIONS = 4 }; /* global, constant, local, private */
static const char *const region_name[NREGIONS] = {"global", "constant",
                                                  "local", "private"};

/* Even work-items copy their chunk (p + 1 + i * n) through each address
 * space into region r of out at the same position; odd chunks and the
 * rest of out keep the sentinel, which shows that exactly n elements are
 * written at exactly p + offset * n. */
static size_t vls_source(char **src, size_t *cap, size_t len, int t) {
  const char *T = tnames[t];
  len = appendf(src, cap, len,
                "kernel void vls_%s(global const %s *in, constant %s *cin, "
                "global %s *out) {\n  local %s loc[%d];\n  %s priv[40];\n"
                "  size_t i = get_global_id(0);\n  if (i %% 2) return;\n",
                T, T, T, T, T, SLOTS, T);
  for (int w = 0; w < NVW; w++) {
    int n = vwidths[w];
    size_t r = (size_t)w * NREGIONS * SLOTS;
    len = appendf(
        src, cap, len,
        "  vstore%d(vload%d(i, in + 1), i, out + %zu + 1);\n"
        "  vstore%d(vload%d(i, cin + 1), i, out + %zu + 1);\n"
        "  vstore%d(vload%d(i, in + 1), i, loc + 1);\n"
        "  vstore%d(vload%d(i, (const local %s *)loc + 1), i, out + %zu + 1);\n"
        "  vstore%d(vload%d(i, in + 1), 1, priv + 3);\n"
        "  vstore%d(vload%d(1, (const %s *)priv + 3), i, out + %zu + 1);\n",
        n, n, r, n, n, r + SLOTS, n, n, n, n, T, r + 2 * SLOTS, n, n, n, n, T,
        r + 3 * SLOTS);
  }
  return appendf(src, cap, len, "}\n");
}

static void test_vloadn(void) {
  size_t cap = 1 << 16, len = 0;
  char *src = malloc(cap);
  for (int t = 0; t < NTYPES; t++)
    len = vls_source(&src, &cap, len, t);
  cl_program prog = test_build(&env, src, "");
  free(src);

  unsigned char in[SLOTS * 8];
  size_t out_bytes = (size_t)NVW * NREGIONS * SLOTS * 8;
  unsigned char *out = malloc(out_bytes), *sentinel = malloc(out_bytes);
  memset(sentinel, 0xa5, out_bytes);
  for (int t = 0; t < NTYPES; t++) {
    for (size_t k = 0; k < sizeof in; k++)
      in[k] = (unsigned char)test_rand();
    size_t es = (size_t)tsize[t], bytes = (size_t)NVW * NREGIONS * SLOTS * es;
    cl_mem bin = make_buffer(CL_MEM_READ_ONLY, SLOTS * es, in);
    cl_mem bout = make_buffer(CL_MEM_READ_WRITE, bytes, sentinel);
    char name[32];
    snprintf(name, sizeof name, "vls_%s", tnames[t]);
    run(prog, name, ITEMS, 3, bin, bin, bout);
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, bout, CL_TRUE, 0, bytes, out, 0,
                                   NULL, NULL));
    int shown = 0;
    for (int w = 0; w < NVW; w++)
      for (int r = 0; r < NREGIONS; r++)
        for (size_t e = 0; e < SLOTS; e++) {
          int n = vwidths[w];
          size_t chunk = (e - 1) / (size_t)n;
          bool written = e >= 1 && chunk < ITEMS && chunk % 2 == 0;
          const unsigned char *want = written ? in + e * es : sentinel;
          const unsigned char *got =
              out + (((size_t)w * NREGIONS + (size_t)r) * SLOTS + e) * es;
          if (memcmp(got, want, es) != 0) {
            test_failures++;
            if (shown++ < 5)
              fprintf(stderr, "vload%d/vstore%d %s (%s): element %zu %s\n", n,
                      n, tnames[t], region_name[r], e,
                      written ? "wrong" : "overwritten");
          }
        }
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
  }
  free(out);
  free(sentinel);
  clReleaseProgram(prog);
}

/* ---- host half reference ---------------------------------------------- */

enum { RTE, RTZ, RTP, RTN, NHMODES };
static const char *const hmode_suffix[NHMODES + 1] = {"_rte", "_rtz", "_rtp",
                                                      "_rtn", ""};

/* x rounded to half with mode, as bits. The value is scaled to an integer
 * count of the half ulp of its binade (exact in long double), rounded per
 * mode, then encoded: a method independent of the library's bit
 * arithmetic. */
static uint16_t ref_to_half(long double x, int mode) {
  if (isnan(x))
    return 0x7e00;
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  long double a = fabsl(x);
  if (isinf(a))
    return sign | 0x7c00;
  int e = 0;
  frexpl(a, &e);                   /* a in [2^(e-1), 2^e) */
  int binade = a == 0 || e - 1 < -14 ? -14 : e - 1;
  long double ulp = ldexpl(1, binade - 10);
  long double q = a / ulp, qr;
  bool neg = sign != 0;
  switch (mode) {
  case RTE: qr = nearbyintl(q); break;
  case RTZ: qr = floorl(q); break;
  case RTP: qr = neg ? floorl(q) : ceill(q); break;
  default: qr = neg ? ceill(q) : floorl(q); break;
  }
  long double v = qr * ulp;
  if (v > 65504) {
    bool away = mode == RTE || (mode == RTP && !neg) || (mode == RTN && neg);
    return sign | (away ? 0x7c00 : 0x7bff);
  }
  if (v < ldexpl(1, -14))
    return sign | (uint16_t)(v / ldexpl(1, -24));
  frexpl(v, &e);
  uint16_t mant = (uint16_t)(v / ldexpl(1, e - 11) - 1024);
  return sign | (uint16_t)((e - 1 + 15) << 10) | mant;
}

static bool half_is_nan(uint16_t h) {
  return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

static float ref_from_half(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float v = e == 0 ? ldexpf((float)m, -24)
            : e == 31 ? (m ? NAN : INFINITY)
                      : ldexpf((float)(m | 0x400), e - 25);
  return h & 0x8000 ? -v : v;
}

/* The reference on values whose half encodings are known. */
static void test_half_reference(void) {
  static const struct {
    double x;
    uint16_t h[NHMODES]; /* rte, rtz, rtp, rtn */
  } known[] = {
      {1.0, {0x3c00, 0x3c00, 0x3c00, 0x3c00}},
      {-2.0, {0xc000, 0xc000, 0xc000, 0xc000}},
      {65504.0, {0x7bff, 0x7bff, 0x7bff, 0x7bff}},
      {65520.0, {0x7c00, 0x7bff, 0x7c00, 0x7bff}},
      {-65520.0, {0xfc00, 0xfbff, 0xfbff, 0xfc00}},
      {65519.99, {0x7bff, 0x7bff, 0x7c00, 0x7bff}},
      {1e6, {0x7c00, 0x7bff, 0x7c00, 0x7bff}},
      {0x1p-24, {0x0001, 0x0001, 0x0001, 0x0001}},
      {0x1p-25, {0x0000, 0x0000, 0x0001, 0x0000}},
      {0x1.8p-24, {0x0002, 0x0001, 0x0002, 0x0001}},
      {-0x1p-25, {0x8000, 0x8000, 0x8000, 0x8001}},
      {0x1p-14, {0x0400, 0x0400, 0x0400, 0x0400}},
      {0x1.ffcp-15, {0x0400, 0x03ff, 0x0400, 0x03ff}},
      {0.1, {0x2e66, 0x2e66, 0x2e67, 0x2e66}},
      {1.0 / 3, {0x3555, 0x3555, 0x3556, 0x3555}},
      {1.0 + 0x1p-11, {0x3c00, 0x3c00, 0x3c01, 0x3c00}},
      {1.0 + 0x3p-11, {0x3c02, 0x3c01, 0x3c02, 0x3c01}},
      {-0.0, {0x8000, 0x8000, 0x8000, 0x8000}},
      {INFINITY, {0x7c00, 0x7c00, 0x7c00, 0x7c00}},
  };
  for (size_t k = 0; k < sizeof known / sizeof *known; k++)
    for (int m = 0; m < NHMODES; m++)
      if (ref_to_half(known[k].x, m) != known[k].h[m]) {
        fprintf(stderr, "reference half(%a)%s = %#x, expected %#x\n",
                known[k].x, hmode_suffix[m], ref_to_half(known[k].x, m),
                known[k].h[m]);
        test_failures++;
      }
  CHECK(half_is_nan(ref_to_half(NAN, RTE)));
  CHECK(ref_from_half(0x3c00) == 1.0f);
  CHECK(ref_from_half(0x0001) == 0x1p-24f);
  CHECK(ref_from_half(0xfbff) == -65504.0f);
  CHECK(isnan(ref_from_half(0x7e01)));
}

/* ---- vstore_half ------------------------------------------------------- */

enum { HCOUNT = 2400, HREGION = 2 * HCOUNT };
/* Variants per mode: scalar, vstore_halfn, vstorea_halfn. */
enum { NHVAR = 1 + 2 * NVW };

static void half_inputs(double *d) {
  static const double edge[] = {
      0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 65504.0, 65519.0,
      65520.0, 65535.0, 65536.0, 1e10, -1e10, FLT_MAX, 0x1p-14, 0x1p-24,
      0x1p-25, 0x1.8p-24, 0x1.0000000001p-25, 0x1p-26, 0x1.ff8p-15,
      0x1.ffcp-15, FLT_MIN, FLT_TRUE_MIN, 1e-30, DBL_TRUE_MIN, 1e300,
      1.0 + 0x1p-11, 1.0 + 0x3p-11, 1.0 + 0x1p-11 + 0x1p-40,
      1.0 + 0x1p-11 - 0x1p-40, 0.1, 1.0 / 3, 2049.0, 2051.0, 4097.0};
  size_t ne = sizeof edge / sizeof *edge;
  for (size_t i = 0; i < HCOUNT; i++) {
    if (i < 2 * ne) {
      d[i] = i % 2 ? -edge[i / 2] : edge[i / 2];
      continue;
    }
    uint64_t r = test_rand();
    if (r % 3 == 0) { /* random float bits */
      uint32_t b = (uint32_t)(r >> 32);
      float f;
      memcpy(&f, &b, 4);
      d[i] = f;
    } else if (r % 3 == 1) { /* half range, fine fractions */
      d[i] = ldexp((double)(test_rand() >> 11) / 0x1p53, (int)(test_rand() % 46) - 28) *
             (r & 8 ? -1 : 1);
    } else { /* double bits near the half range */
      uint64_t b = (test_rand() & 0x800fffffffffffffull) |
                   ((uint64_t)(1023 - 30 + test_rand() % 50) << 52);
      memcpy(&d[i], &b, 8);
    }
  }
}

/* Kernel vsh_F: work-item i converts chunk i of the input (n values) with
 * every store variant and mode; the halves land at i * step of the
 * variant's region in three copies: written to global memory directly,
 * written to local memory and copied out, written to private memory and
 * copied out (step is n, or 4 for vstorea_half3). */
enum { SUB = HCOUNT * 4 / 3 + 16, LSIZE = 16 };

static size_t vstore_source(char **src, size_t *cap, size_t len,
                            const char *F) {
  len = appendf(src, cap, len,
                "kernel void vsh_%s(global const %s *in, global half *out) {\n"
                "  size_t i = get_global_id(0), l = get_local_id(0);\n"
                "  global ushort *o = (global ushort *)out;\n"
                "  local ushort loc[%d];\n  ushort priv[40];\n",
                F, F, LSIZE * 16);
  for (int m = 0; m <= NHMODES; m++)
    for (int v = 0; v < NHVAR; v++) {
      int n = v == 0 ? 1 : vwidths[(v - 1) % NVW];
      bool aligned = v > NVW;
      int step = aligned && n == 3 ? 4 : n;
      size_t base = ((size_t)m * NHVAR + (size_t)v) * 3 * SUB;
      char fn[48], val[32];
      snprintf(fn, sizeof fn, "%s%.0d%s",
               aligned ? "vstorea_half" : "vstore_half", n > 1 ? n : 0,
               hmode_suffix[m]);
      if (n == 1)
        snprintf(val, sizeof val, "in[i]");
      else
        snprintf(val, sizeof val, "vload%d(i, in)", n);
      len = appendf(
          src, cap, len,
          "  if (i < %d) {\n    %s(%s, i, out + %zu);\n"
          "    for (int j = 0; j < %d; j++) loc[l * %d + j] = 0xa5a5;\n"
          "    %s(%s, l, (local half *)loc);\n"
          "    for (int j = 0; j < %d; j++) o[%zu + i * %d + j] = "
          "loc[l * %d + j];\n"
          "    for (int j = 0; j < 40; j++) priv[j] = 0xa5a5;\n"
          "    %s(%s, 1, (private half *)priv);\n"
          "    for (int j = 0; j < %d; j++) o[%zu + i * %d + j] = "
          "priv[%d + j];\n  }\n",
          HCOUNT / n, fn, val, base, step, step, fn, val, step, base + SUB,
          step, step, fn, val, step, base + 2 * SUB, step, step);
    }
  return appendf(src, cap, len, "}\n");
}

static void check_vstore(int f, const double *in, const uint16_t *out) {
  int shown = 0;
  for (int m = 0; m <= NHMODES; m++)
    for (int v = 0; v < NHVAR; v++) {
      int n = v == 0 ? 1 : vwidths[(v - 1) % NVW];
      bool aligned = v > NVW;
      size_t step = aligned && n == 3 ? 4 : (size_t)n;
      size_t chunks = HCOUNT / (size_t)n;
      for (int c = 0; c < 3; c++)
        for (size_t e = 0; e < SUB; e++) {
          size_t i = e / step, j = e % step;
          uint16_t want = 0xa5a5;
          if (i < chunks && j < (size_t)n)
            want = ref_to_half(in[i * (size_t)n + j], m == NHMODES ? RTE : m);
          uint16_t got = out[((size_t)m * NHVAR + (size_t)v) * 3 * SUB +
                             (size_t)c * SUB + e];
          if (got == want || (half_is_nan(want) && half_is_nan(got)))
            continue;
          test_failures++;
          if (shown++ < 8)
            fprintf(stderr, "%s%.0d%s(%s %a) [%s] = %#x, expected %#x\n",
                    aligned ? "vstorea_half" : "vstore_half", n > 1 ? n : 0,
                    hmode_suffix[m], f ? "double" : "float",
                    i < chunks && j < (size_t)n ? in[i * (size_t)n + j] : 0.0,
                    c == 0 ? "global" : c == 1 ? "local" : "private", got,
                    want);
        }
    }
}

static void test_vstore_half(void) {
  size_t cap = 1 << 16, len = 0;
  char *src = malloc(cap);
  len = vstore_source(&src, &cap, len, "float");
  len = vstore_source(&src, &cap, len, "double");
  cl_program prog = test_build(&env, src, "");
  free(src);
  double *in = malloc(HCOUNT * sizeof *in);
  float *inf = malloc(HCOUNT * sizeof *inf);
  size_t out_count = (size_t)(NHMODES + 1) * NHVAR * 3 * SUB;
  uint16_t *out = malloc(out_count * 2);
  for (int f = 0; f < 2; f++) {
    half_inputs(in);
    if (f == 0)
      for (size_t i = 0; i < HCOUNT; i++) { /* exactly what the kernel sees */
        inf[i] = (float)in[i];
        in[i] = inf[i];
      }
    memset(out, 0xa5, out_count * 2);
    cl_mem bin = make_buffer(CL_MEM_READ_ONLY, HCOUNT * (f ? 8 : 4),
                             f ? (void *)in : (void *)inf);
    cl_mem bout = make_buffer(CL_MEM_READ_WRITE, out_count * 2, out);
    cl_int err;
    cl_kernel k = clCreateKernel(prog, f ? "vsh_double" : "vsh_float", &err);
    REQUIRE_OK(err);
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof bin, &bin));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof bout, &bout));
    size_t global = HCOUNT, local = LSIZE;
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local,
                                      0, NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, bout, CL_TRUE, 0, out_count * 2,
                                   out, 0, NULL, NULL));
    check_vstore(f, in, out);
    clReleaseKernel(k);
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
  }
  free(in);
  free(inf);
  free(out);
  clReleaseProgram(prog);
}

/* ---- vload_half -------------------------------------------------------- */

enum { HL = 32768 };
static const char *const las_name[4] = {"global", "constant", "local",
                                        "private"};

/* Kernel vlh: work-item i loads chunk i (at i * step) with every load
 * variant from each address space and stores the floats at i * n of
 * region (variant, address space). */
static char *vload_source(void) {
  size_t cap = 1 << 16, len = 0;
  char *src = malloc(cap);
  len = appendf(&src, &cap, len,
                "kernel void vlh(global const half *in, constant half *cin, "
                "global float *out) {\n"
                "  size_t i = get_global_id(0), l = get_local_id(0);\n"
                "  global const ushort *bits = (global const ushort *)in;\n"
                "  local ushort loc[%d];\n  ushort priv[40];\n",
                LSIZE * 16);
  for (int v = 0; v < NHVAR; v++) {
    int n = v == 0 ? 1 : vwidths[(v - 1) % NVW];
    bool aligned = v > NVW;
    int step = aligned && n == 3 ? 4 : n;
    char fn[32];
    snprintf(fn, sizeof fn, "%s%.0d", aligned ? "vloada_half" : "vload_half",
             n > 1 ? n : 0);
    const char *args[4] = {"i, in", "i, cin", "l, (const local half *)loc",
                           "1, (const private half *)priv"};
    len = appendf(&src, &cap, len,
                  "  if (i < %d) {\n"
                  "    for (int j = 0; j < %d; j++) loc[l * %d + j] = "
                  "bits[i * %d + j];\n"
                  "    for (int j = 0; j < %d; j++) priv[%d + j] = "
                  "bits[i * %d + j];\n",
                  HL / step, step, step, step, step, step, step);
    for (int a = 0; a < 4; a++) {
      size_t base = ((size_t)v * 4 + (size_t)a) * HL;
      if (n == 1)
        len = appendf(&src, &cap, len, "    out[%zu + i] = %s(%s);\n", base,
                      fn, args[a]);
      else
        len = appendf(&src, &cap, len,
                      "    vstore%d(%s(%s), i, out + %zu);\n", n, fn, args[a],
                      base);
    }
    len = appendf(&src, &cap, len, "  }\n");
  }
  appendf(&src, &cap, len, "}\n");
  return src;
}

static void test_vload_half(void) {
  char *src = vload_source();
  cl_program prog = test_build(&env, src, "");
  free(src);
  uint16_t *in = malloc(HL * 2);
  size_t out_count = (size_t)NHVAR * 4 * HL;
  float *out = malloc(out_count * 4);
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "vlh", &err);
  REQUIRE_OK(err);
  /* Two passes cover all 65536 half bit patterns. */
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < HL; i++)
      in[i] = (uint16_t)(pass * HL + i);
    cl_mem bin = make_buffer(CL_MEM_READ_ONLY, HL * 2, in);
    cl_mem bout = make_buffer(CL_MEM_WRITE_ONLY, out_count * 4, NULL);
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof bin, &bin));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof bin, &bin));
    REQUIRE_OK(clSetKernelArg(k, 2, sizeof bout, &bout));
    size_t global = HL, local = LSIZE;
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local,
                                      0, NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, bout, CL_TRUE, 0, out_count * 4,
                                   out, 0, NULL, NULL));
    int shown = 0;
    for (int v = 0; v < NHVAR; v++) {
      int n = v == 0 ? 1 : vwidths[(v - 1) % NVW];
      bool aligned = v > NVW;
      size_t step = aligned && n == 3 ? 4 : (size_t)n;
      for (int a = 0; a < 4; a++)
        for (size_t i = 0; i < HL / step; i++)
          for (size_t j = 0; j < (size_t)n; j++) {
            uint16_t h = in[i * step + j];
            float want = ref_from_half(h);
            float got = out[((size_t)v * 4 + (size_t)a) * HL + i * (size_t)n +
                            j];
            if (memcmp(&got, &want, 4) == 0 || (isnan(want) && isnan(got)))
              continue;
            test_failures++;
            if (shown++ < 8)
              fprintf(stderr, "%s%.0d(%#x) [%s] = %a, expected %a\n",
                      aligned ? "vloada_half" : "vload_half", n > 1 ? n : 0, h,
                      las_name[a], got, want);
          }
    }
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
  }
  clReleaseKernel(k);
  free(in);
  free(out);
  clReleaseProgram(prog);
}

int main(void) {
  test_seed(0x9e3779b97f4a7c15ull);
  test_setup(&env);
  test_half_reference();
  test_vloadn();
  test_vstore_half();
  test_vload_half();
  test_teardown(&env);
  return test_finish("builtins-vloadstore");
}
