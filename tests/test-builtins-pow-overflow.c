/* This file tests pow, pown and powr for double near the overflow
 * threshold through the ICD loader: results that are finite but within
 * a few ULP of DBL_MAX must not become infinite, and results that do
 * overflow must. The reference is the host's long double powl rounded
 * to double; the bound is the spec's 16 ULP. */
#include "test_util.h"
#include <float.h>
#include <math.h>

static test_env env;

enum { N = 64 };

static const char src[] =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "kernel void k(global const double *x, global const double *y,\n"
    "              global double *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[3 * i] = pow(x[i], y[i]);\n"
    "  out[3 * i + 1] = pown(x[i], (int)y[i]);\n"
    "  out[3 * i + 2] = powr(fabs(x[i]), y[i]);\n"
    "}\n";

/* Distance in ULP of got from the exact want (both finite), or 0 / huge
 * for matching / mismatching infinities. */
static double ulps(double got, long double want) {
  if (isinf(got) || isinf((double)want))
    return got == (double)want ? 0 : INFINITY;
  double w = (double)want;
  double ulp = w == 0 ? 0x1p-1074 : ldexp(1.0, ilogb(w) - 52);
  return (double)(fabsl((long double)got - want) / ulp);
}

int main(void) {
  test_setup(&env);
  test_seed(0x90f);
  static double x[N], y[N], out[3 * N];
  /* Integer exponents (so pown applies too): x^n just below and above
   * DBL_MAX, and exponent 1 on the largest values (the reported case). */
  for (int i = 0; i < N; i++) {
    int n = 1 + i % 4;
    double frac = 1.0 - (double)(test_rand() % 1000) * 0x1p-60;
    double base = pow(DBL_MAX, 1.0 / n) * (i % 8 < 6 ? frac : 1.0001);
    x[i] = (i & 1) ? -base : base;
    y[i] = n;
  }
  x[0] = -DBL_MAX;
  y[0] = 1;
  x[1] = DBL_MAX;
  y[1] = 1;
  /* |x| < 1 with a large negative exponent (CTS pown). */
  x[2] = -0x1.0000000000001p-1;
  y[2] = -1024;
  x[3] = 0x1.0000000000001p-1;
  y[3] = -1023;
  /* Far beyond the threshold with a huge exponent: infinite, not 0. */
  x[4] = -0x1.2bffffffffbf3p+0;
  y[4] = 561952863;
  x[5] = 0x1.cde5b4p-1;
  y[5] = -0x1.62a7aap+28;
  cl_program prog = test_build(&env, src, NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "k", &err);
  REQUIRE_OK(err);
  cl_mem bx = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR, sizeof x, x,
                             &err);
  REQUIRE_OK(err);
  cl_mem by = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR, sizeof y, y,
                             &err);
  REQUIRE_OK(err);
  cl_mem bo = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, sizeof out,
                             NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bx, &bx));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof by, &by));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof bo, &bo));
  size_t global = N;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  static const char *const names[3] = {"pow", "pown", "powr"};
  int bad = 0, finite = 0;
  for (int i = 0; i < N; i++)
    for (int f = 0; f < 3; f++) {
      long double base = f == 2 ? fabsl((long double)x[i]) : x[i];
      long double want = powl(base, (long double)y[i]);
      if (want > DBL_MAX || want < -DBL_MAX)
        want = want > 0 ? INFINITY : -INFINITY;
      finite += !isinf((double)want);
      double e = ulps(out[3 * i + f], want);
      if (!(e <= 16) && bad++ < 10)
        fprintf(stderr, "%s(%a, %g) = %a, want %La\n", names[f], (double)base,
                y[i], out[3 * i + f], want);
    }
  CHECK_EQ(bad, 0);
  CHECK(finite > N); /* the inputs straddle the threshold */
  clReleaseMemObject(bx);
  clReleaseMemObject(by);
  clReleaseMemObject(bo);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  test_teardown(&env);
  return test_finish("builtins-pow-overflow");
}
