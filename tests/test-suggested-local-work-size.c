/* This file contains the tests of cl_khr_suggested_local_work_size:
 * clGetKernelSuggestedLocalWorkSizeKHR, found through
 * clGetExtensionFunctionAddressForPlatform, suggests what the scheduler
 * runs when the application gives no local size (each launch with a NULL
 * local size reports the same sizes through get_local_size), which
 * depends on the kernel and the range: large groups for loop-mode
 * kernels, at most 64 for barrier kernels, divisors of the global size
 * for OpenCL C 1.2 programs, the required size where the kernel has one.
 * Every error code of the specification is checked. */
#include "test_util.h"

#include <CL/cl_ext.h>
#include <stdbool.h>

static test_env env;
static clGetKernelSuggestedLocalWorkSizeKHR_fn suggest;

static const char *source =
    "kernel void plain(global uint *out) {\n"
    "  if ((get_global_id(0) | get_global_id(1) | get_global_id(2)) == 0)\n"
    "    for (uint d = 0; d < 3; d++) out[d] = get_local_size(d);\n"
    "}\n"
    "kernel void with_barrier(global uint *out, local uint *tmp) {\n"
    "  tmp[(get_local_id(2) * get_local_size(1) + get_local_id(1)) *\n"
    "      get_local_size(0) + get_local_id(0)] = 1;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if ((get_global_id(0) | get_global_id(1) | get_global_id(2)) == 0)\n"
    "    for (uint d = 0; d < 3; d++) out[d] = get_local_size(d);\n"
    "}\n"
    "__attribute__((reqd_work_group_size(4, 2, 1)))\n"
    "kernel void required(global uint *out) {\n"
    "  if ((get_global_id(0) | get_global_id(1) | get_global_id(2)) == 0)\n"
    "    for (uint d = 0; d < 3; d++) out[d] = get_local_size(d);\n"
    "}\n";

/* Suggests a local size for k over global (dim entries), checks it
 * against the kernel's limits, and checks that a launch with a NULL
 * local size runs exactly that size; returns it in local. */
static void check_case(cl_kernel k, cl_mem out, cl_uint dim,
                       const size_t *global, bool uniform, size_t local[3]) {
  local[0] = local[1] = local[2] = 1;
  REQUIRE_OK(suggest(env.queue, k, dim, NULL, global, local));
  size_t product = 1, max;
  for (cl_uint d = 0; d < dim; d++) {
    CHECK(local[d] >= 1);
    if (uniform)
      CHECK_EQ(global[d] % local[d], 0);
    product *= local[d];
  }
  REQUIRE_OK(clGetKernelWorkGroupInfo(k, env.device,
                                      CL_KERNEL_WORK_GROUP_SIZE, sizeof max,
                                      &max, NULL));
  CHECK(product <= max);
  cl_uint ran[3] = {0, 0, 0};
  REQUIRE_OK(clEnqueueWriteBuffer(env.queue, out, CL_TRUE, 0, sizeof ran,
                                  ran, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, dim, NULL, global, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof ran, ran,
                                 0, NULL, NULL));
  for (cl_uint d = 0; d < dim; d++)
    CHECK_EQ(ran[d], local[d]);
}

static cl_kernel make_kernel(cl_program p, const char *name, cl_mem out) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof out, &out));
  return k;
}

static void test_sizes(const char *options, bool uniform) {
  cl_program p = test_build(&env, source, options);
  cl_mem out = test_buffer(&env, 3 * sizeof(cl_uint), NULL);
  cl_kernel plain = make_kernel(p, "plain", out);
  cl_kernel bar = make_kernel(p, "with_barrier", out);
  REQUIRE_OK(clSetKernelArg(bar, 1, 1024 * sizeof(cl_uint), NULL));
  cl_kernel reqd = make_kernel(p, "required", out);
  static const size_t ranges[][3] = {
      {1 << 20, 1, 1}, {64, 1, 1}, {113, 1, 1}, {3, 1, 1}, {1000, 1, 1},
      {640, 480, 1}, {12, 113, 3}, {64, 64, 64}, {1, 1, 1}, {4096, 2, 1}};
  size_t local[3];
  for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
    cl_uint dim = ranges[r][2] > 1 ? 3 : ranges[r][1] > 1 ? 2 : 1;
    check_case(plain, out, dim, ranges[r], uniform, local);
    check_case(bar, out, dim, ranges[r], uniform, local);
    CHECK(local[0] * local[1] * local[2] <= 64);
  }
  /* Not a constant: a large loop-mode range gets the largest groups
   * (the vectorised work-item loop runs fastest there), a barrier
   * kernel groups of at most 64, a small range smaller groups so that
   * every worker has some. */
  size_t big[3] = {1 << 20, 1, 1};
  check_case(plain, out, 1, big, uniform, local);
  CHECK_EQ(local[0], 1024);
  check_case(bar, out, 1, big, uniform, local);
  CHECK_EQ(local[0], 64);
  /* The required size, where it divides the range. */
  size_t g2[3] = {64, 32, 1};
  check_case(reqd, out, 2, g2, true, local);
  CHECK_EQ(local[0], 4);
  CHECK_EQ(local[1], 2);
  clReleaseKernel(plain);
  clReleaseKernel(bar);
  clReleaseKernel(reqd);
  clReleaseMemObject(out);
  clReleaseProgram(p);
}

static void test_errors(void) {
  cl_program p = test_build(&env, source, "");
  cl_mem out = test_buffer(&env, 3 * sizeof(cl_uint), NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "plain", &err);
  REQUIRE_OK(err);
  size_t g[3] = {64, 1, 1}, l[3], off[3] = {SIZE_MAX - 10, 0, 0};
  /* CL_INVALID_KERNEL_ARGS before the argument is set. */
  CHECK_EQ(suggest(env.queue, k, 1, NULL, g, l), CL_INVALID_KERNEL_ARGS);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof out, &out));
  CHECK_EQ(suggest(NULL, k, 1, NULL, g, l), CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(suggest((cl_command_queue)env.context, k, 1, NULL, g, l),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(suggest(env.queue, NULL, 1, NULL, g, l), CL_INVALID_KERNEL);
  CHECK_EQ(suggest(env.queue, (cl_kernel)out, 1, NULL, g, l),
           CL_INVALID_KERNEL);
  CHECK_EQ(suggest(env.queue, k, 0, NULL, g, l), CL_INVALID_WORK_DIMENSION);
  CHECK_EQ(suggest(env.queue, k, 4, NULL, g, l), CL_INVALID_WORK_DIMENSION);
  CHECK_EQ(suggest(env.queue, k, 1, NULL, NULL, l),
           CL_INVALID_GLOBAL_WORK_SIZE);
  size_t zero[3] = {64, 0, 1};
  CHECK_EQ(suggest(env.queue, k, 2, NULL, zero, l),
           CL_INVALID_GLOBAL_WORK_SIZE);
  CHECK_EQ(suggest(env.queue, k, 1, NULL, g, NULL), CL_INVALID_VALUE);
  CHECK_EQ(suggest(env.queue, k, 1, off, g, l), CL_INVALID_GLOBAL_OFFSET);
  /* A queue of another context. */
  cl_context other = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
  REQUIRE_OK(err);
  cl_command_queue q2 =
      clCreateCommandQueueWithProperties(other, env.device, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(suggest(q2, k, 1, NULL, g, l), CL_INVALID_CONTEXT);
  /* A valid call writes only work_dim entries. */
  l[0] = l[1] = l[2] = 77;
  REQUIRE_OK(suggest(env.queue, k, 1, NULL, g, l));
  CHECK_EQ(l[1], 77);
  clReleaseCommandQueue(q2);
  clReleaseContext(other);
  clReleaseKernel(k);
  clReleaseMemObject(out);
  clReleaseProgram(p);
}

int main(void) {
  test_setup(&env);
  CHECK(test_extension_listed(&env, "cl_khr_suggested_local_work_size"));
  CHECK_EQ(test_extension_count(&env, "cl_khr_suggested_local_work_size", 0), 1);
  CHECK_EQ(test_extension_count(&env, "cl_khr_suggested_local_work_size",
                                CL_MAKE_VERSION(1, 0, 0)),
           1);
  suggest = (clGetKernelSuggestedLocalWorkSizeKHR_fn)
      clGetExtensionFunctionAddressForPlatform(
          env.platform, "clGetKernelSuggestedLocalWorkSizeKHR");
  if (!suggest) {
    fprintf(stderr, "clGetKernelSuggestedLocalWorkSizeKHR not found\n");
    return 1;
  }
  test_sizes("-cl-std=CL3.0", false);
  test_sizes("-cl-std=CL1.2", true);
  test_errors();
  test_teardown(&env);
  return test_finish("suggested-local-work-size");
}
