/* This file tests remquo through the ICD loader for float and double:
 * the remainder and the sign and low seven bits of the quotient, against
 * a host reference in long double (exact fmod and remainder, no
 * overflow), on random bit patterns and on pairs near the type's
 * maximum, where |x| - remainder(|x|, |y|) overflows the type. */
#include "test_util.h"
#include <float.h>
#include <math.h>
#include <stdint.h>

static test_env env;

enum { N = 4096 };

static const char src[] =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "kernel void kf(global const float *x, global const float *y,\n"
    "               global float *r, global int *q) {\n"
    "  size_t i = get_global_id(0);\n"
    "  r[i] = remquo(x[i], y[i], q + i);\n"
    "}\n"
    "kernel void kd(global const double *x, global const double *y,\n"
    "               global double *r, global int *q) {\n"
    "  size_t i = get_global_id(0);\n"
    "  r[i] = remquo(x[i], y[i], q + i);\n"
    "}\n";

/* The quotient's sign and its magnitude modulo 128 (exact for finite x
 * and non-zero finite y in float or double). */
static int ref_quo(long double x, long double y) {
  long double ax = fabsl(x), ay = fabsl(y);
  long double r = remainderl(ax, ay), r128 = fmodl(ax, 128 * ay);
  int n = (int)rintl((r128 - r) / ay) & 127;
  return signbit(x) != signbit(y) ? -n : n;
}

/* The inputs: pairs near the maximum (x/y between 1 and 128, where the
 * overflow was), the CTS's failing pair, then random bit patterns. */
static void inputs_f(float *x, float *y) {
  for (int i = 0; i < N; i++) {
    if (i < 512) {
      x[i] = FLT_MAX / (1.0f + (float)(test_rand() % 1000) / 1000.0f);
      y[i] = x[i] / (1.0f + (float)(test_rand() % 127000) / 1000.0f);
      x[i] = (i & 1) ? -x[i] : x[i];
      y[i] = (i & 2) ? -y[i] : y[i];
    } else {
      uint32_t a = (uint32_t)test_rand(), b = (uint32_t)test_rand();
      memcpy(&x[i], &a, 4);
      memcpy(&y[i], &b, 4);
    }
  }
  x[512] = -0x1.bef9b6p+127f;
  y[512] = 0x1.1c12b6p+127f;
}

static void inputs_d(double *x, double *y) {
  for (int i = 0; i < N; i++) {
    if (i < 512) {
      x[i] = DBL_MAX / (1.0 + (double)(test_rand() % 1000) / 1000.0);
      y[i] = x[i] / (1.0 + (double)(test_rand() % 127000) / 1000.0);
      x[i] = (i & 1) ? -x[i] : x[i];
      y[i] = (i & 2) ? -y[i] : y[i];
    } else {
      uint64_t a = test_rand(), b = test_rand();
      memcpy(&x[i], &a, 8);
      memcpy(&y[i], &b, 8);
    }
  }
}

/* Runs kernel name over x, y (elements of size es) into r, q. */
static void run(cl_program prog, const char *name, size_t es, const void *x,
                const void *y, void *r, int *q) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  cl_mem b[4];
  b[0] = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR, N * es,
                        (void *)x, &err);
  REQUIRE_OK(err);
  b[1] = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR, N * es,
                        (void *)y, &err);
  REQUIRE_OK(err);
  b[2] = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, N * es, NULL, &err);
  REQUIRE_OK(err);
  b[3] = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, N * sizeof(int),
                        NULL, &err);
  REQUIRE_OK(err);
  for (cl_uint a = 0; a < 4; a++)
    REQUIRE_OK(clSetKernelArg(k, a, sizeof b[a], &b[a]));
  size_t global = N;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b[2], CL_TRUE, 0, N * es, r, 0,
                                 NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b[3], CL_TRUE, 0,
                                 N * sizeof(int), q, 0, NULL, NULL));
  for (int i = 0; i < 4; i++)
    clReleaseMemObject(b[i]);
  clReleaseKernel(k);
}

/* The quotient is unspecified for NaN or infinite x, or y zero or NaN. */
static int defined(long double x, long double y) {
  return isfinite(x) && !isnan(y) && y != 0;
}

/* The remainder (exact) and the quotient's low seven bits must match. */
static int check(const char *type, int i, long double x, long double y,
                 long double got_r, int got_q, int quiet) {
  if (!defined(x, y))
    return 0;
  long double want_r = remainderl(x, y);
  int want_q = ref_quo(x, y);
  int ok = ((got_q ^ want_q) & 127) == 0 &&
           (want_q == 0 || (got_q < 0) == (want_q < 0)) &&
           (got_r == want_r || (isnan(got_r) && isnan(want_r)));
  if (!ok && !quiet)
    fprintf(stderr, "remquo(%s) %d: (%La, %La) gave (%La, %d), want "
            "(%La, %d)\n", type, i, x, y, got_r, got_q, want_r, want_q);
  return !ok;
}

int main(void) {
  test_setup(&env);
  test_seed(0x7e3a0);
  cl_program prog = test_build(&env, src, NULL);
  static float xf[N], yf[N], rf[N];
  static double xd[N], yd[N], rd[N];
  static int q[N];
  inputs_f(xf, yf);
  run(prog, "kf", sizeof(float), xf, yf, rf, q);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += check("float", i, xf[i], yf[i], rf[i], q[i], bad >= 10);
  CHECK_EQ(bad, 0);
  inputs_d(xd, yd);
  run(prog, "kd", sizeof(double), xd, yd, rd, q);
  bad = 0;
  for (int i = 0; i < N; i++)
    bad += check("double", i, xd[i], yd[i], rd[i], q[i], bad >= 10);
  CHECK_EQ(bad, 0);
  clReleaseProgram(prog);
  test_teardown(&env);
  return test_finish("builtins-remquo");
}
