/* This file tests the sub-group queries of the API through the ICD
 * loader: clGetKernelSubGroupInfo and cl_khr_subgroups' ...KHR form
 * (through the dispatch table)
 * with every query against what kernels see at run time
 * (get_max_sub_group_size, get_num_sub_groups) and against the sub-group
 * size the CPU's SIMD width gives, the error codes of the OpenCL 3.0 API
 * specification for each bad input, and the device queries
 * CL_DEVICE_MAX_NUM_SUB_GROUPS and CL_DEVICE_SUB_GROUP_INDEPENDENT_
 * FORWARD_PROGRESS. */
#include "test_util.h"
#include <CL/cl_ext.h>
#include <stdint.h>

static test_env env;
static size_t sg;   /* the sub-group size this CPU must have */

static const char src[] =
    "kernel void info(global uint *out) {\n"
    "  size_t g = get_global_linear_id();\n"
    "  out[2 * g] = get_max_sub_group_size();\n"
    "  out[2 * g + 1] = get_num_sub_groups();\n"
    "}\n"
    "__attribute__((reqd_work_group_size(48, 1, 1)))\n"
    "kernel void fixed(global uint *out) {\n"
    "  out[get_global_id(0)] = get_sub_group_id();\n"
    "}\n";

typedef cl_int (*info_fn)(cl_kernel, cl_device_id, cl_kernel_sub_group_info,
                          size_t, const void *, size_t, void *, size_t *);

static size_t query(info_fn f, cl_kernel k, cl_kernel_sub_group_info name,
                    size_t in_size, const void *in) {
  size_t v = 12345, ret = 0;
  REQUIRE_OK(f(k, env.device, name, in_size, in, sizeof v, &v, &ret));
  CHECK_EQ(ret, sizeof(size_t));
  return v;
}

/* The ..._FOR_NDRANGE queries agree with what the kernel sees when
 * enqueued with that local size. */
static void check_ndrange(info_fn f, cl_kernel k, cl_uint dims,
                          const size_t *local) {
  size_t items = 1;
  for (cl_uint d = 0; d < dims; d++)
    items *= local[d];
  size_t max = query(f, k, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                     dims * sizeof(size_t), local);
  size_t count = query(f, k, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                       dims * sizeof(size_t), local);
  CHECK_EQ(max, items < sg ? items : sg);
  CHECK_EQ(count, (items + sg - 1) / sg);
  cl_int err;
  cl_mem out = clCreateBuffer(env.context, CL_MEM_READ_WRITE,
                              2 * items * sizeof(cl_uint), NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof out, &out));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, dims, NULL, local, local,
                                    0, NULL, NULL));
  cl_uint *got = malloc(2 * items * sizeof *got);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0,
                                 2 * items * sizeof *got, got, 0, NULL,
                                 NULL));
  for (size_t i = 0; i < items; i++) {
    CHECK_EQ(got[2 * i], max);
    CHECK_EQ(got[2 * i + 1], count);
  }
  free(got);
  clReleaseMemObject(out);
}

static void test_queries(info_fn f, cl_kernel k, cl_kernel fixed) {
  static const size_t l1[] = {1}, l2[] = {37}, l3[] = {64}, l4[] = {1024},
                      l5[] = {5, 3}, l6[] = {16, 16}, l7[] = {3, 3, 3},
                      l8[] = {4, 4, 8};
  check_ndrange(f, k, 1, l1);
  check_ndrange(f, k, 1, l2);
  check_ndrange(f, k, 1, l3);
  check_ndrange(f, k, 1, l4);
  check_ndrange(f, k, 2, l5);
  check_ndrange(f, k, 2, l6);
  check_ndrange(f, k, 3, l7);
  check_ndrange(f, k, 3, l8);

  size_t wg = 0;
  REQUIRE_OK(clGetKernelWorkGroupInfo(k, env.device, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof wg, &wg, NULL));
  CHECK_EQ(query(f, k, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL),
           (wg + sg - 1) / sg);
  CHECK_EQ(query(f, fixed, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL),
           (48 + sg - 1) / sg);
  CHECK_EQ(query(f, k, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, 0, NULL), 0);

  /* LOCAL_SIZE_FOR_SUB_GROUP_COUNT: count whole sub-groups in dimension
   * 0, 1 in the others the output has room for; 0s when impossible. */
  for (size_t dims = 1; dims <= 3; dims++) {
    size_t count = 3, out[3] = {99, 99, 99}, ret = 0;
    REQUIRE_OK(f(k, env.device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                 sizeof count, &count, dims * sizeof(size_t), out, &ret));
    CHECK_EQ(ret, dims * sizeof(size_t));
    CHECK_EQ(out[0], 3 * sg);
    for (size_t d = 1; d < 3; d++)
      CHECK_EQ(out[d], d < dims ? 1 : 99);
    size_t local[1] = {out[0]};
    CHECK_EQ(query(f, k, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                   sizeof local, local), 3);
  }
  size_t too_many = wg / sg + 1, zero = 0, out[2] = {7, 7};
  REQUIRE_OK(f(k, env.device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
               sizeof too_many, &too_many, sizeof out, out, NULL));
  CHECK_EQ(out[0], 0);
  CHECK_EQ(out[1], 0);
  REQUIRE_OK(f(k, env.device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
               sizeof zero, &zero, sizeof out, out, NULL));
  CHECK_EQ(out[0], 0);
  /* A required work-group size of 48 admits only 48 / sg sub-groups, if
   * that is whole. */
  size_t c = 48 / sg;
  REQUIRE_OK(f(fixed, env.device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
               sizeof c, &c, sizeof(size_t), out, NULL));
  CHECK_EQ(out[0], 48 % sg == 0 ? 48 : 0);
  c = 1;
  REQUIRE_OK(f(fixed, env.device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
               sizeof c, &c, sizeof(size_t), out, NULL));
  CHECK_EQ(out[0], 48 == sg ? 48 : 0);
  /* device may be NULL: the context has one device. */
  size_t v = 0, l = 20;
  REQUIRE_OK(f(k, NULL, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof l,
               &l, sizeof v, &v, NULL));
  CHECK_EQ(v, 20 < sg ? 20 : sg);
  /* param_value NULL: only the size. */
  size_t ret = 0;
  REQUIRE_OK(f(k, env.device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL, 0, NULL,
               &ret));
  CHECK_EQ(ret, sizeof(size_t));
}

/* The errors the API specification lists for clGetKernelSubGroupInfo. */
static void test_errors(info_fn f, cl_kernel k) {
  size_t v, local[4] = {4, 4, 4, 4}, bad0[2] = {4, 0};
  /* CL_INVALID_KERNEL if kernel is a not a valid kernel object. */
  CHECK_EQ(f(NULL, env.device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
             sizeof v, &v, NULL), CL_INVALID_KERNEL);
  CHECK_EQ(f((cl_kernel)env.queue, env.device, CL_KERNEL_MAX_NUM_SUB_GROUPS,
             0, NULL, sizeof v, &v, NULL), CL_INVALID_KERNEL);
  /* CL_INVALID_DEVICE if device is not in the list of devices associated
   * with kernel. */
  CHECK_EQ(f(k, (cl_device_id)env.context, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0,
             NULL, sizeof v, &v, NULL), CL_INVALID_DEVICE);
  /* CL_INVALID_VALUE if param_name is not one of the supported values. */
  CHECK_EQ(f(k, env.device, 0x7777, 0, NULL, sizeof v, &v, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(f(k, env.device, CL_KERNEL_WORK_GROUP_SIZE, 0, NULL, sizeof v, &v,
             NULL), CL_INVALID_VALUE);
  /* ... or if param_value_size is less than the size of the return type
   * and param_value is not NULL. */
  CHECK_EQ(f(k, env.device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
             sizeof v - 1, &v, NULL), CL_INVALID_VALUE);
  CHECK_EQ(f(k, env.device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
             sizeof(size_t), local, 4, &v, NULL), CL_INVALID_VALUE);
  size_t count = 1, out3[3];
  CHECK_EQ(f(k, env.device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
             sizeof count, &count, sizeof(size_t) - 1, out3, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(f(k, env.device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
             sizeof count, &count, sizeof(size_t) + 3, out3, NULL),
           CL_INVALID_VALUE);
  /* CL_INVALID_VALUE if param_name is ..._FOR_NDRANGE or
   * LOCAL_SIZE_FOR_SUB_GROUP_COUNT and input_value_size is not valid or
   * input_value is NULL. */
  static const cl_kernel_sub_group_info ndrange[] = {
      CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
      CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE};
  for (int i = 0; i < 2; i++) {
    CHECK_EQ(f(k, env.device, ndrange[i], sizeof(size_t), NULL, sizeof v, &v,
               NULL), CL_INVALID_VALUE);
    CHECK_EQ(f(k, env.device, ndrange[i], 0, local, sizeof v, &v, NULL),
             CL_INVALID_VALUE);
    CHECK_EQ(f(k, env.device, ndrange[i], 4 * sizeof(size_t), local,
               sizeof v, &v, NULL), CL_INVALID_VALUE);
    CHECK_EQ(f(k, env.device, ndrange[i], sizeof(size_t) + 1, local,
               sizeof v, &v, NULL), CL_INVALID_VALUE);
    /* A local size of 0 in a dimension is no local size. */
    CHECK_EQ(f(k, env.device, ndrange[i], sizeof bad0, bad0, sizeof v, &v,
               NULL), CL_INVALID_VALUE);
  }
  CHECK_EQ(f(k, env.device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
             sizeof(size_t), NULL, sizeof out3, out3, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(f(k, env.device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
             2 * sizeof(size_t), local, sizeof out3, out3, NULL),
           CL_INVALID_VALUE);
}

static void test_device(void) {
  cl_uint max = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_NUM_SUB_GROUPS,
                             sizeof max, &max, NULL));
  size_t wg = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                             sizeof wg, &wg, NULL));
  CHECK_EQ(max, (wg + 3) / 4); /* the smallest size a kernel may require */
  /* Loops that wait for another sub-group yield to it
   * (tests/test-forward-progress.c). */
  cl_bool progress = CL_FALSE;
  REQUIRE_OK(clGetDeviceInfo(env.device,
                             CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS,
                             sizeof progress, &progress, NULL));
  CHECK_EQ(progress, CL_TRUE);
  char version[64];
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_VERSION, sizeof version,
                             version, NULL));
  CHECK(strncmp(version, "OpenCL 3.0 ", 11) == 0 ||
        strncmp(version, "OpenCL 3.1 ", 11) == 0);
}

int main(void) {
  test_setup(&env);
  sg = test_expected_sub_group_size();
  cl_program p = test_build(&env, src, "-cl-std=CL3.0");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "info", &err);
  REQUIRE_OK(err);
  cl_kernel fixed = clCreateKernel(p, "fixed", &err);
  REQUIRE_OK(err);
  test_device();
  test_queries(clGetKernelSubGroupInfo, k, fixed);
  test_errors(clGetKernelSubGroupInfo, k);
  /* cl_khr_subgroups' entry point through the loader's dispatch table,
   * and as the extension function the platform hands out. */
  test_queries(clGetKernelSubGroupInfoKHR, k, fixed);
  test_errors(clGetKernelSubGroupInfoKHR, k);
  info_fn by_name = (info_fn)clGetExtensionFunctionAddressForPlatform(
      env.platform, "clGetKernelSubGroupInfoKHR");
  CHECK(by_name != NULL);
  if (by_name)
    test_queries(by_name, k, fixed);
  clReleaseKernel(fixed);
  clReleaseKernel(k);
  clReleaseProgram(p);
  test_teardown(&env);
  return test_finish("subgroups-api");
}
