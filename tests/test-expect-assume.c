/* This file contains the tests of cl_khr_expect_assume from OpenCL C:
 * the extension is reported with its version, programs see its macro
 * (and do not with -cl-ext=-cl_khr_expect_assume), and kernels using
 * __builtin_expect and __builtin_assume (a loop kernel and a barrier
 * kernel, in OpenCL C 1.2 and 3.0; tests/mode_variants.cmake adds fiber
 * and loop runs) give the host's results. (tests/test-spirv.c runs the SPIR-V form,
 * OpExpectKHR and OpAssumeTrueKHR.) */
#include "test_util.h"

static test_env env;

static const char *source =
    "#ifndef cl_khr_expect_assume\n"
    "#error cl_khr_expect_assume is not defined\n"
    "#endif\n"
    "kernel void hinted(global int *out, global const int *in, int n) {\n"
    "  int i = (int)get_global_id(0);\n"
    "  __builtin_assume(n > 0);\n"
    "  __builtin_assume(i < n);\n"
    "  int x = in[i], acc = 0;\n"
    "  for (int k = 0; k < (x & 7); k++)\n"
    "    acc += __builtin_expect(x > 0, 1) ? x + k : -k;\n"
    "  if (__builtin_expect(x % 5 == 0, 0))\n"
    "    acc = -acc;\n"
    "  out[i] = acc;\n"
    "}\n"
    "kernel void hinted_barrier(global int *out, global const int *in,\n"
    "                           local int *tmp) {\n"
    "  int l = (int)get_local_id(0);\n"
    "  __builtin_assume(get_local_size(0) <= 64);\n"
    "  tmp[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int other = tmp[(l + 1) % get_local_size(0)];\n"
    "  out[get_global_id(0)] = __builtin_expect(other, 0) * 2;\n"
    "}\n";

static int host_hinted(int x) {
  int acc = 0;
  for (int k = 0; k < (x & 7); k++)
    acc += x > 0 ? x + k : -k;
  return x % 5 == 0 ? -acc : acc;
}

int main(void) {
  test_setup(&env);
  CHECK(test_extension_listed(&env, "cl_khr_expect_assume"));
  CHECK_EQ(test_extension_count(&env, "cl_khr_expect_assume", 0), 1);
  CHECK_EQ(test_extension_count(&env, "cl_khr_expect_assume",
                                CL_MAKE_VERSION(1, 0, 0)),
           1);

  enum { N = 256 };
  int in[N], out[N];
  test_seed(1700);
  for (int i = 0; i < N; i++)
    in[i] = (int)(test_rand() % 2001) - 1000;
  static const char *const options[] = {"", "-cl-std=CL1.2",
                                        "-cl-std=CL3.0"};
  for (int o = 0; o < 3; o++) {
    cl_program p = test_build(&env, source, options[o]);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "hinted", &err);
    REQUIRE_OK(err);
    cl_mem bo = test_buffer(&env, sizeof out, NULL);
    cl_mem bi = test_buffer(&env, sizeof in, in);
    cl_int n = N;
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof bi, &bi));
    REQUIRE_OK(clSetKernelArg(k, 2, sizeof n, &n));
    size_t global = N, local = 64;
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local,
                                      0, NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out,
                                   out, 0, NULL, NULL));
    for (int i = 0; i < N; i++)
      CHECK_EQ(out[i], host_hinted(in[i]));
    clReleaseKernel(k);
    k = clCreateKernel(p, "hinted_barrier", &err);
    REQUIRE_OK(err);
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof bi, &bi));
    REQUIRE_OK(clSetKernelArg(k, 2, 64 * sizeof(int), NULL));
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local,
                                      0, NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out,
                                   out, 0, NULL, NULL));
    for (int i = 0; i < N; i++)
      CHECK_EQ(out[i], in[i / 64 * 64 + (i % 64 + 1) % 64] * 2);
    clReleaseKernel(k);
    clReleaseMemObject(bo);
    clReleaseMemObject(bi);
    clReleaseProgram(p);
  }

  /* -cl-ext=-cl_khr_expect_assume hides the macro. */
  cl_int err;
  cl_program p = clCreateProgramWithSource(env.context, 1, &source, NULL,
                                           &err);
  REQUIRE_OK(err);
  CHECK_EQ(clBuildProgram(p, 1, &env.device, "-cl-ext=-cl_khr_expect_assume",
                          NULL, NULL),
           CL_BUILD_PROGRAM_FAILURE);
  clReleaseProgram(p);
  test_teardown(&env);
  return test_finish("expect-assume");
}
