/* Tests loop-mode kernels written in vector types whose loops carry
 * vector values: Skein splits such kernels into lanes and vectorises
 * the work-item loop across work-items (compiler/wg_gen.c). Uniform and
 * per-work-item trip counts, float and double, group sizes that leave
 * partial vectors; and a loop storing vectors, which stays unsplit. Every
 * float and double kernel uses fma, so the host computes the same values
 * bit for bit; integer chains (uint2, uint8, ulong4, uchar16) wrap as
 * unsigned arithmetic does on the host, and so do byte multiply-add
 * chains (uchar, uchar4, uchar16); half chains (half2, half8) are
 * compared with a tolerance that tells lanes apart. */
#include "half_ref.h"
#include "test_util.h"
#include <math.h>
#include <stdint.h>

static const char *source =
    "#define STEP(x, y) x = fma(y, x, y); y = fma(x, y, x);\n"
    "#define STEPS(x, y) STEP(x, y) STEP(x, y) STEP(x, y) STEP(x, y) \\\n"
    "                    STEP(x, y) STEP(x, y) STEP(x, y) STEP(x, y)\n"
    "kernel void chain16(global float16 *o, float a, int n) {\n"
    "  float16 x = (float16)(a) + (float16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9,\n"
    "                                      10, 11, 12, 13, 14, 15) * 0.01f;\n"
    "  float16 y = (float16)((float)get_local_id(0) * 0.001f);\n"
    "  for (int i = 0; i < n; i++) { STEPS(x, y) }\n"
    "  o[get_global_id(0)] = y;\n"
    "}\n"
    "kernel void varying4(global const double4 *in, global double4 *o) {\n"
    "  size_t g = get_global_id(0);\n"
    "  double4 acc = (double4)(0.5, 0.25, 0.125, 1.0), t = acc;\n"
    "  double4 v = in[g % 256];\n"
    "  for (int i = 0; i < (int)(g % 23); i++) {\n"
    "    acc = fma(acc, v, t); t = fma(t, v, acc);\n"
    "    acc = fma(acc, t, v); t = fma(t, acc, v);\n"
    "    acc = fma(acc, v, t); t = fma(t, v, acc);\n"
    "    acc = fma(acc, t, v); t = fma(t, acc, v);\n"
    "    acc = fma(acc, v, t); t = fma(t, v, acc);\n"
    "    acc = fma(acc, t, v); t = fma(t, acc, v);\n"
    "    acc = fma(acc, v, t); t = fma(t, v, acc);\n"
    "    acc = fma(acc, t, v); t = fma(t, acc, v);\n"
    "    acc *= 0.5; t *= 0.25;\n"
    "  }\n"
    "  o[g] = acc + t;\n"
    "}\n"
    /* Integer vectors carried by a loop (split into lanes like the
     * floating-point ones): wrapping unsigned arithmetic, exact on the
     * host too. */
    "#define ISTEP(x, y) x = y * x + y; y = (x ^ (y << 3)) + x;\n"
    "#define ICHAIN(T, S, N) \\\n"
    "kernel void ichain_##T(global T *o, uint a, int n) { \\\n"
    "  size_t g = get_global_id(0); \\\n"
    "  T x = (T)((S)a) + (T)(N), y = (T)((S)g); \\\n"
    "  for (int i = 0; i < n; i++) { \\\n"
    "    ISTEP(x, y) ISTEP(x, y) ISTEP(x, y) ISTEP(x, y) \\\n"
    "  } \\\n"
    "  o[g] = x + y; \\\n"
    "}\n"
    "ICHAIN(uint2, uint, (uint2)(0, 1))\n"
    "ICHAIN(uint8, uint, (uint8)(0, 1, 2, 3, 4, 5, 6, 7))\n"
    "ICHAIN(ulong4, ulong, (ulong4)(0, 1, 2, 3))\n"
    "ICHAIN(uchar16, uchar, (uchar16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, "
    "11, 12, 13, 14, 15))\n"
    /* Byte multiply-add chains (skein-bench-peak's): computed in 16-bit
     * lanes after the optimiser (compiler/byte_chains.c), kept uchar16
     * in AVX2 code (the @avx2 variant), split and vectorised at the
     * short width otherwise; the bytes must come out as 8-bit
     * arithmetic's. */
    "#define MSTEP(x, y) x = y * x + y; y = x * y + x;\n"
    "#define MCHAIN(T, S, N) \\\n"
    "kernel void mchain_##T(global T *o, uint a, int n) { \\\n"
    "  size_t g = get_global_id(0); \\\n"
    "  T x = (T)((S)a) + (T)(N), y = (T)((S)g); \\\n"
    "  for (int i = 0; i < n; i++) { \\\n"
    "    MSTEP(x, y) MSTEP(x, y) MSTEP(x, y) MSTEP(x, y) \\\n"
    "    MSTEP(x, y) MSTEP(x, y) MSTEP(x, y) MSTEP(x, y) \\\n"
    "  } \\\n"
    "  o[g] = x + y; \\\n"
    "}\n"
    "MCHAIN(uchar, uchar, 0)\n"
    "MCHAIN(uchar4, uchar, (uchar4)(0, 1, 2, 3))\n"
    "MCHAIN(uchar16, uchar, (uchar16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, "
    "11, 12, 13, 14, 15))\n"
    /* Half vectors carried by a loop, split too; x decays by 0.875 a
     * step, so each lane's start (0.125 apart) still shows in its
     * result, 0.04 apart after 8 steps. */
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "#define HSTEP x = x * (half)0.875f + y; "
    "y = y * (half)0.75f + (half)0.125f;\n"
    "#define HCHAIN(T, N) \\\n"
    "kernel void hchain_##T(global T *o, float a, int n) { \\\n"
    "  size_t g = get_global_id(0); \\\n"
    "  T x = (T)((half)a) + (T)(N) * (half)0.125f; \\\n"
    "  T y = (T)((half)(float)(g % 64) * (half)0.0078125f); \\\n"
    "  for (int i = 0; i < n; i++) { \\\n"
    "    HSTEP HSTEP HSTEP HSTEP HSTEP HSTEP HSTEP HSTEP \\\n"
    "  } \\\n"
    "  o[g] = x; \\\n"
    "}\n"
    "HCHAIN(half2, (half2)(0, 1))\n"
    "HCHAIN(half8, (half8)(0, 1, 2, 3, 4, 5, 6, 7))\n"
    "kernel void store8(global float8 *o, float c, int n) {\n"
    "  size_t g = get_global_id(0);\n"
    "  float8 x = (float8)((float)(g % 97) * 0.01f);\n"
    "  float8 y = x + (float8)(0, 1, 2, 3, 4, 5, 6, 7) * 0.125f;\n"
    "  for (int i = 0; i < n; i++) {\n"
    "    STEPS(x, y)\n"
    "    x = x * c; y = y * c;\n"
    "    o[g * n + i] = x + y;\n"
    "  }\n"
    "}\n";

enum { N = 2048 + 45 };            /* not a multiple of any vector width */
static const size_t local = 119;

static void host_step(float *x, float *y) {
  *x = fmaf(*y, *x, *y);
  *y = fmaf(*x, *y, *x);
}

static int same_float(float a, float b) {
  uint32_t ua, ub;
  memcpy(&ua, &a, 4);
  memcpy(&ub, &b, 4);
  return ua == ub || (isnan(a) && isnan(b));
}

/* Runs the chain kernel name(global T *o, a, int n) over N work-items
 * in groups of local and reads o's bytes into out. */
static void run_chain(test_env *env, cl_program p, const char *name,
                      const void *a, size_t a_size, int n, void *out,
                      size_t bytes) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  cl_mem o = clCreateBuffer(env->context, 0, bytes, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof o, &o));
  REQUIRE_OK(clSetKernelArg(k, 1, a_size, a));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof n, &n));
  size_t global = N;
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, o, CL_TRUE, 0, bytes, out, 0,
                                 NULL, NULL));
  clReleaseMemObject(o);
  clReleaseKernel(k);
}

static void test_chain16(test_env *env, cl_program p) {
  static float out[N * 16];
  float a = 0.0625f;
  int n = 3;
  run_chain(env, p, "chain16", &a, sizeof a, n, out, sizeof out);
  int bad = 0;
  for (size_t g = 0; g < N; g++)
    for (int c = 0; c < 16; c++) {
      float x = a + (float)c * 0.01f, y = (float)(g % local) * 0.001f;
      for (int i = 0; i < n * 8; i++)
        host_step(&x, &y);
      if (!same_float(out[g * 16 + c], y) && bad++ < 3)
        fprintf(stderr, "chain16[%zu].s%d = %a, want %a\n", g, c,
                out[g * 16 + c], y);
    }
  CHECK_EQ(bad, 0);
}

static void test_varying4(test_env *env, cl_program p) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, "varying4", &err);
  REQUIRE_OK(err);
  static double in[256 * 4], out[N * 4];
  for (int i = 0; i < 256 * 4; i++)
    in[i] = 0.75 + (double)(i % 11) * 0.03125;
  cl_mem bi = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof in,
                             in, &err);
  REQUIRE_OK(err);
  cl_mem bo = clCreateBuffer(env->context, 0, sizeof out, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bi, &bi));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bo, &bo));
  size_t global = N;
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  static const double init[4] = {0.5, 0.25, 0.125, 1.0};
  int bad = 0;
  for (size_t g = 0; g < N; g++)
    for (int c = 0; c < 4; c++) {
      double acc = init[c], t = acc;
      for (int i = 0; i < (int)(g % 23); i++) {
        double v = in[(g % 256) * 4 + c];
        for (int r = 0; r < 4; r++) {
          acc = fma(acc, v, t);
          t = fma(t, v, acc);
          acc = fma(acc, t, v);
          t = fma(t, acc, v);
        }
        acc *= 0.5;
        t *= 0.25;
      }
      double want = acc + t;
      if (out[g * 4 + c] != want && !(isnan(want) && isnan(out[g * 4 + c]))
          && bad++ < 3)
        fprintf(stderr, "varying4[%zu].s%d = %a, want %a\n", g, c,
                out[g * 4 + c], want);
    }
  CHECK_EQ(bad, 0);
  clReleaseMemObject(bi);
  clReleaseMemObject(bo);
  clReleaseKernel(k);
}

static void test_store8(test_env *env, cl_program p) {
  cl_int err;
  enum { ITERS = 5 };
  cl_kernel k = clCreateKernel(p, "store8", &err);
  REQUIRE_OK(err);
  static float out[N * ITERS * 8];
  cl_mem o = clCreateBuffer(env->context, 0, sizeof out, NULL, &err);
  REQUIRE_OK(err);
  float c = 0.5f;
  int n = ITERS;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof o, &o));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof c, &c));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof n, &n));
  size_t global = N;
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, o, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  int bad = 0;
  for (size_t g = 0; g < N; g++)
    for (int l = 0; l < 8; l++) {
      float x = (float)(g % 97) * 0.01f, y = x + (float)l * 0.125f;
      for (int i = 0; i < ITERS; i++) {
        for (int s = 0; s < 8; s++)
          host_step(&x, &y);
        x *= c;
        y *= c;
        float got = out[(g * ITERS + i) * 8 + l];
        if (!same_float(got, x + y) && bad++ < 3)
          fprintf(stderr, "store8[%zu][%d].s%d = %a, want %a\n", g, i, l,
                  got, x + y);
      }
    }
  CHECK_EQ(bad, 0);
  clReleaseMemObject(o);
  clReleaseKernel(k);
}

/* ichain_T: lanes of `bits` bits each, lane c starting at a + c. */
static void test_ichain(test_env *env, cl_program p, const char *type,
                        unsigned lanes, unsigned bits) {
  char name[32];
  snprintf(name, sizeof name, "ichain_%s", type);
  size_t bytes = (size_t)N * lanes * bits / 8;
  unsigned char *out = malloc(bytes);
  cl_uint a = 0x9e3779b9u;
  int n = 5;
  run_chain(env, p, name, &a, sizeof a, n, out, bytes);
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  int bad = 0;
  for (size_t g = 0; g < N; g++)
    for (unsigned c = 0; c < lanes; c++) {
      uint64_t x = ((a & mask) + c) & mask, y = g & mask;
      for (int i = 0; i < n * 4; i++) {
        x = (y * x + y) & mask;
        y = ((x ^ (y << 3)) + x) & mask;
      }
      uint64_t want = (x + y) & mask, got = 0;
      memcpy(&got, out + (g * lanes + c) * bits / 8, bits / 8);
      if (got != want && bad++ < 3)
        fprintf(stderr, "%s[%zu].s%u = %llx, want %llx\n", name, g, c,
                (unsigned long long)got, (unsigned long long)want);
    }
  CHECK_EQ(bad, 0);
  free(out);
}

/* mchain_T: byte lanes, lane c starting at a + c, in 8-bit wrapping
 * arithmetic on the host. */
static void test_mchain(test_env *env, cl_program p, const char *type,
                        unsigned lanes) {
  char name[32];
  snprintf(name, sizeof name, "mchain_%s", type);
  size_t bytes = (size_t)N * lanes;
  unsigned char *out = malloc(bytes);
  cl_uint a = 0x9e3779b9u;
  int n = 3;
  run_chain(env, p, name, &a, sizeof a, n, out, bytes);
  int bad = 0;
  for (size_t g = 0; g < N; g++)
    for (unsigned c = 0; c < lanes; c++) {
      uint8_t x = (uint8_t)(a + c), y = (uint8_t)g;
      for (int i = 0; i < n * 8; i++) {
        x = (uint8_t)(y * x + y);
        y = (uint8_t)(x * y + x);
      }
      uint8_t want = (uint8_t)(x + y), got = out[g * lanes + c];
      if (got != want && bad++ < 3)
        fprintf(stderr, "%s[%zu].s%u = %02x, want %02x\n", name, g, c, got,
                want);
    }
  CHECK_EQ(bad, 0);
  free(out);
}

/* hchain_T against the host in double: half arithmetic rounds each
 * step, so a lane may differ by a few half ulps (under 0.01 here); a
 * lane mixed up with its neighbour would be 0.04 off. */
static void test_hchain(test_env *env, cl_program p, const char *type,
                        unsigned lanes) {
  char name[32];
  snprintf(name, sizeof name, "hchain_%s", type);
  size_t count = (size_t)N * lanes;
  uint16_t *out = malloc(count * sizeof *out);
  float a = 1.5f;
  int n = 1;
  run_chain(env, p, name, &a, sizeof a, n, out, count * sizeof *out);
  int bad = 0;
  for (size_t g = 0; g < N; g++)
    for (unsigned c = 0; c < lanes; c++) {
      double x = a + c * 0.125, y = (double)(g % 64) * 0.0078125;
      for (int i = 0; i < n * 8; i++) {
        x = x * 0.875 + y;
        y = y * 0.75 + 0.125;
      }
      double got = (double)hr_val(out[g * lanes + c]);
      if (fabs(got - x) > 1e-2 && bad++ < 3)
        fprintf(stderr, "%s[%zu].s%u = %g, want %g\n", name, g, c, got, x);
    }
  CHECK_EQ(bad, 0);
  free(out);
}

int main(void) {
  test_env env;
  test_setup(&env);
  /* CL3.0: the global sizes are not multiples of the local size. */
  cl_program p = test_build(&env, source, "-cl-std=CL3.0");
  test_chain16(&env, p);
  test_varying4(&env, p);
  test_store8(&env, p);
  test_ichain(&env, p, "uint2", 2, 32);
  test_ichain(&env, p, "uint8", 8, 32);
  test_ichain(&env, p, "ulong4", 4, 64);
  test_ichain(&env, p, "uchar16", 16, 8);
  test_mchain(&env, p, "uchar", 1);
  test_mchain(&env, p, "uchar4", 4);
  test_mchain(&env, p, "uchar16", 16);
  test_hchain(&env, p, "half2", 2);
  test_hchain(&env, p, "half8", 8);
  clReleaseProgram(p);
  test_teardown(&env);
  return test_finish("kernel-vector-loops");
}
