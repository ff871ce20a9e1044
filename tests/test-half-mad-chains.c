/* Chains of half mads: what Skein promises for mad(a, b, c) of halves fed
 * by another mad (docs/features.md, "half"). mad's accuracy is
 * implementation-defined for half; Skein computes it either in the
 * hardware's half instructions (AVX-512 FP16: each mad the correctly
 * rounded fma) or, on every other CPU, as float's fma of the operands
 * where a mad's operand that is another mad's result is that mad's float
 * result, unrounded (compiler/half_mad_chains.cpp). Everything else that
 * reads a mad's result (an add, a store, a value kept across a barrier
 * and then stored) reads it rounded to half.
 *
 * Each kernel runs x = mad(x, a, b) n times, adds each x to a half sum
 * s (an add: it must see x rounded), and stores x and s; the host
 * computes both promised results and the output must be one of them,
 * every work-item the same one. Variants: scalar, half4 (split into
 * lanes by the vector plan), half16 (kept whole on AVX-512), and a chain
 * crossing a barrier in every trip (region mode's slots, fiber mode's
 * stacks). And a chain whose middle overflows half but not float: each
 * mad rounded gives infinity, the float chain the finite product, and
 * the kernel must keep the same promise as the chains above. ctest runs
 * it in every mode and, on an AVX-512 FP16 CPU, with
 * SKEIN_CPU_FEATURES=-avx512fp16 (the float path) too. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "half_ref.h"
#include "test_util.h"

static test_env env;

enum { ITEMS = 1024, TRIPS = 40, GROUP = 64 };

static const char *source =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "#define CHAIN(T, name, SYNC)                                        \\\n"
    "__kernel void name(__global const T *a, __global const T *b,       \\\n"
    "                   __global T *xo, __global T *so, int n) {        \\\n"
    "  size_t i = get_global_id(0);                                     \\\n"
    "  T x = a[i], s = (T)0;                                            \\\n"
    "  for (int k = 0; k < n; k++) {                                    \\\n"
    "    x = mad(x, a[i], b[i]);                                        \\\n"
    "    SYNC                                                           \\\n"
    "    s += x;                                                        \\\n"
    "  }                                                                \\\n"
    "  xo[i] = x;                                                       \\\n"
    "  so[i] = s;                                                       \\\n"
    "}\n"
    "CHAIN(half, chain1, )\n"
    "CHAIN(half4, chain4, )\n"
    "CHAIN(half16, chain16, )\n"
    "CHAIN(half, chain_barrier, barrier(CLK_LOCAL_MEM_FENCE);)\n"
    "__kernel void overflow(__global const half *a, __global const half *c,\n"
    "                       __global half *o) {\n"
    "  size_t i = get_global_id(0);\n"
    "  o[i] = mad(mad(a[i], a[i], (half)0), c[i], (half)0);\n"
    "}\n";

/* The two promised results of one work-item's lane. */
typedef struct expected {
  uint16_t x, s;
} expected;

static uint16_t to_half(float f) { return hr_bits_of((_Float16)f); }

/* Each mad the correctly rounded fma of halves (AVX-512 FP16). */
static expected rounded_chain(uint16_t a, uint16_t b, int n) {
  uint16_t x = a, s = 0;
  for (int k = 0; k < n; k++) {
    x = hr_fma(x, a, b);
    s = to_half((float)hr_val(s) + (float)hr_val(x));
  }
  return (expected){x, s};
}

/* The mads in float, each reading the last one's float result; the sum
 * reads x rounded. */
static expected float_chain(uint16_t a, uint16_t b, int n) {
  float fa = (float)hr_val(a), fb = (float)hr_val(b), x = fa;
  uint16_t s = 0;
  for (int k = 0; k < n; k++) {
    x = fmaf(x, fa, fb);
    s = to_half((float)hr_val(s) + (float)hr_val(to_half(x)));
  }
  return (expected){to_half(x), s};
}

/* Inputs whose chains stay in range (|a| < 0.95, |b| < 2: |x| < 40, the
 * sums below 1700) and differ between the two promises in most lanes. */
static void make_inputs(uint16_t *a, uint16_t *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    double u = (double)(test_rand() % 1000000) / 1000000.0;
    double v = (double)(test_rand() % 1000000) / 1000000.0;
    a[i] = to_half((float)((u * 1.9 - 0.95) * 0.999));
    b[i] = to_half((float)(v * 4.0 - 2.0) * 0.999f);
  }
}

/* Runs kernel name over ITEMS work-items of lanes halves each and checks
 * every lane against both promises: all lanes must keep one of them.
 * Returns which: 1 the float chain, 0 each mad rounded. */
static int check_chain(cl_program p, const char *name, size_t lanes) {
  size_t n = ITEMS * lanes;
  uint16_t *a = malloc(n * 2), *b = malloc(n * 2), *xo = malloc(n * 2),
           *so = malloc(n * 2);
  make_inputs(a, b, n);
  cl_int err;
  cl_mem m[4] = {test_buffer(&env, n * 2, a), test_buffer(&env, n * 2, b),
                 test_buffer(&env, n * 2, NULL),
                 test_buffer(&env, n * 2, NULL)};
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  int trips = TRIPS;
  for (cl_uint i = 0; i < 4; i++)
    REQUIRE_OK(clSetKernelArg(k, i, sizeof(cl_mem), &m[i]));
  REQUIRE_OK(clSetKernelArg(k, 4, sizeof trips, &trips));
  size_t global = ITEMS, local = GROUP;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, m[2], CL_TRUE, 0, n * 2, xo, 0,
                                 NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, m[3], CL_TRUE, 0, n * 2, so, 0,
                                 NULL, NULL));
  /* Which promise the kernel keeps: the first lane where they differ. */
  int keeps = -1, differing = 0, bad = 0;
  for (size_t i = 0; i < n; i++) {
    expected r = rounded_chain(a[i], b[i], trips);
    expected f = float_chain(a[i], b[i], trips);
    bool is_r = xo[i] == r.x && so[i] == r.s;
    bool is_f = xo[i] == f.x && so[i] == f.s;
    if (r.x != f.x || r.s != f.s) {
      differing++;
      if (keeps < 0 && (is_r || is_f))
        keeps = is_f;
    }
    bool ok = keeps == 1 ? is_f : keeps == 0 ? is_r : is_r || is_f;
    if (!ok && bad++ < 5)
      fprintf(stderr,
              "%s lane %zu: a %04x b %04x: x %04x s %04x, want x %04x s "
              "%04x (each mad rounded) or x %04x s %04x (float chain)\n",
              name, i, a[i], b[i], xo[i], so[i], r.x, r.s, f.x, f.s);
  }
  CHECK_EQ(bad, 0);
  /* The inputs must tell the two promises apart, or the test proves
   * nothing about the chain. */
  CHECK(differing > (int)n / 4);
  if (getenv("SKEIN_TEST_VERBOSE"))
    fprintf(stderr, "%s: %s (%d of %zu lanes differ)\n", name,
            keeps == 1 ? "float chain" : "each mad rounded", differing, n);
  clReleaseKernel(k);
  test_release_buffers(m, 4);
  free(a);
  free(b);
  free(xo);
  free(so);
  return keeps;
}

/* a * a overflows half (a in 256..400) and a * a * c (c in 2^-10..2^-8)
 * does not: rounded after the first mad the result is infinity, kept in
 * float it is the product rounded once. keeps: the promise the chains
 * kept (check_chain). */
static void check_overflow(cl_program p, int keeps) {
  enum { N = 1024 };
  static uint16_t a[N], c[N], got[N];
  for (int i = 0; i < N; i++) {
    a[i] = to_half(256.0f + (float)(test_rand() % 1440) / 10.0f);
    c[i] = to_half(ldexpf(1.0f + (float)(test_rand() % 1000) / 1000.0f,
                          -10 + (int)(test_rand() % 2)));
  }
  cl_mem m[3] = {test_buffer(&env, sizeof a, a), test_buffer(&env, sizeof c, c),
                 test_buffer(&env, sizeof got, NULL)};
  test_run_1d(&env, p, "overflow", N, m, 3);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, m[2], CL_TRUE, 0, sizeof got,
                                 got, 0, NULL, NULL));
  int bad = 0, differing = 0;
  for (int i = 0; i < N; i++) {
    float fa = (float)hr_val(a[i]), fc = (float)hr_val(c[i]);
    uint16_t rounded = hr_fma(hr_fma(a[i], a[i], 0), c[i], 0);
    uint16_t in_float = to_half(fmaf(fmaf(fa, fa, 0.0f), fc, 0.0f));
    differing += rounded != in_float;
    uint16_t want = keeps == 1 ? in_float : rounded;
    if (got[i] != want && bad++ < 5)
      fprintf(stderr, "overflow lane %d: a %04x c %04x: %04x, want %04x\n",
              i, a[i], c[i], got[i], want);
  }
  CHECK_EQ(bad, 0);
  CHECK_EQ(differing, N);   /* every lane tells the promises apart */
  test_release_buffers(m, 3);
}

int main(void) {
  test_setup(&env);
  if (!test_extension_listed(&env, "cl_khr_fp16")) {
    fprintf(stderr, "no cl_khr_fp16\n");
    test_teardown(&env);
    return test_finish("test-half-mad-chains");
  }
  test_seed(0x4a11f00dULL);
  cl_program p = test_build(&env, source, "");
  int keeps = check_chain(p, "chain1", 1);
  check_chain(p, "chain4", 4);
  check_chain(p, "chain16", 16);
  check_chain(p, "chain_barrier", 1);
  check_overflow(p, keeps);
  clReleaseProgram(p);
  test_teardown(&env);
  return test_finish("test-half-mad-chains");
}
