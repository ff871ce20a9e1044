/* Tests the OpenCL version Skein reports against what OpenCL 3.1 requires
 * (docs/opencl-3.1.md): the platform and device agree on 3.0 or 3.1, and
 * report 3.1 only when every requirement this test can see holds (the
 * nine promoted extensions, sub-groups, the SPIR-V 1.0-1.4 ILs, OpenCL C
 * 3.1 listed and built); the promoted queries answer under their core
 * names (runtime/core/skein_cl31.h) as under their _KHR ones; and a
 * __local kernel argument of size 0 is an error under 3.0 and allocates
 * nothing under 3.1. Run twice: as is, and as opencl-3-1@forced with
 * SKEIN_OPENCL_3_1=1 (3.1 reported although not met). */
#include "test_util.h"
#include "../runtime/core/skein_cl31.h"
#include <CL/cl_ext.h>
#include <stdbool.h>

static test_env env;

static bool forced(void) {
  const char *v = getenv("SKEIN_OPENCL_3_1");
  return v && strcmp(v, "1") == 0;
}

/* Whether name is in the array of versioned names the query returns. */
static bool listed(cl_device_info query, const char *name, cl_version ver) {
  size_t size = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, query, 0, NULL, &size));
  cl_name_version *v = malloc(size ? size : 1);
  REQUIRE_OK(clGetDeviceInfo(env.device, query, size, v, NULL));
  bool found = false;
  for (size_t i = 0; i < size / sizeof *v; i++)
    found |= strcmp(v[i].name, name) == 0 && v[i].version == ver;
  free(v);
  return found;
}

/* The version strings and numbers agree, and say 3.1 only when every
 * requirement seen here is met (or when forced). */
static void test_version(void) {
  char pv[256] = "", dv[256] = "";
  cl_version pn = 0, dn = 0;
  REQUIRE_OK(clGetPlatformInfo(env.platform, CL_PLATFORM_VERSION, sizeof pv,
                               pv, NULL));
  REQUIRE_OK(clGetPlatformInfo(env.platform, CL_PLATFORM_NUMERIC_VERSION,
                               sizeof pn, &pn, NULL));
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_VERSION, sizeof dv, dv,
                             NULL));
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_NUMERIC_VERSION,
                             sizeof dn, &dn, NULL));
  bool is31 = strncmp(dv, "OpenCL 3.1 ", 11) == 0;
  CHECK(is31 || strncmp(dv, "OpenCL 3.0 ", 11) == 0);
  CHECK_EQ(strncmp(pv, dv, 11), 0);
  CHECK_EQ(pn, dn);
  CHECK_EQ(dn, is31 ? CL_MAKE_VERSION(3, 1, 0) : CL_MAKE_VERSION(3, 0, 0));

  static const char *const promoted[] = {
      "cl_khr_device_uuid", "cl_khr_extended_bit_ops",
      "cl_khr_integer_dot_product", "cl_khr_spirv_queries",
      "cl_khr_subgroup_extended_types", "cl_khr_subgroup_rotate",
      "cl_khr_subgroup_shuffle", "cl_khr_subgroup_shuffle_relative",
      "cl_khr_suggested_local_work_size"};
  bool met = true;
  for (size_t i = 0; i < sizeof promoted / sizeof *promoted; i++)
    if (!test_extension_listed(&env, promoted[i])) {
      printf("3.1: %s not reported\n", promoted[i]);
      met = false;
    }
  cl_uint sub_groups = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_NUM_SUB_GROUPS,
                             sizeof sub_groups, &sub_groups, NULL));
  CHECK(sub_groups >= 1);
  met &= sub_groups >= 1;
  for (cl_uint minor = 0; minor <= 4; minor++)
    if (!listed(CL_DEVICE_ILS_WITH_VERSION, "SPIR-V",
                CL_MAKE_VERSION(1, minor, 0))) {
      printf("3.1: SPIR-V 1.%u not supported\n", minor);
      met = false;
    }
  if (!listed(CL_DEVICE_OPENCL_C_ALL_VERSIONS, "OpenCL C",
              CL_MAKE_VERSION(3, 1, 0))) {
    printf("3.1: OpenCL C 3.1 not listed\n");
    met = false;
  }
  /* Skein cannot build OpenCL C 3.1 yet, so it must not list it, 3.1
   * reported or not. */
  const char *src = "kernel void k(global int *p) { p[0] = 1; }\n";
  cl_int err;
  cl_program p = clCreateProgramWithSource(env.context, 1, &src, NULL, &err);
  REQUIRE_OK(err);
  bool builds = clBuildProgram(p, 1, &env.device, "-cl-std=CL3.1", NULL,
                               NULL) == CL_SUCCESS;
  REQUIRE_OK(clReleaseProgram(p));
  if (!builds) {
    printf("3.1: -cl-std=CL3.1 does not build\n");
    met = false;
  }
  CHECK(!listed(CL_DEVICE_OPENCL_C_ALL_VERSIONS, "OpenCL C",
                CL_MAKE_VERSION(3, 1, 0)) ||
        builds);
  printf("reported %s, 3.1 requirements %s\n", is31 ? "3.1" : "3.0",
         met ? "met" : "not met");
  CHECK_EQ(is31, forced() || met);
}

/* Each core name OpenCL 3.1 gave a promoted query answers what its _KHR
 * name answers (the same bytes). */
static void same_answer(cl_device_info core, cl_device_info khr,
                        const char *name) {
  size_t a = 0, b = 0;
  cl_int ea = clGetDeviceInfo(env.device, core, 0, NULL, &a);
  cl_int eb = clGetDeviceInfo(env.device, khr, 0, NULL, &b);
  CHECK_EQ(ea, eb);
  CHECK_EQ(a, b);
  if (ea != CL_SUCCESS || a != b || !a)
    return;
  unsigned char *x = malloc(a), *y = malloc(b);
  REQUIRE_OK(clGetDeviceInfo(env.device, core, a, x, NULL));
  REQUIRE_OK(clGetDeviceInfo(env.device, khr, b, y, NULL));
  if (memcmp(x, y, a) != 0) {
    fprintf(stderr, "%s: differs from its _KHR query\n", name);
    test_failures++;
  }
  free(x);
  free(y);
}

static void test_core_names(void) {
  size_t sizes[3] = {0};
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_WORK_GROUP_SIZES,
                             sizeof sizes, sizes, NULL));
  CHECK_EQ(sizes[0], 1024);
  same_answer(CL_DEVICE_UUID, CL_DEVICE_UUID_KHR, "CL_DEVICE_UUID");
  same_answer(CL_DRIVER_UUID, CL_DRIVER_UUID_KHR, "CL_DRIVER_UUID");
  same_answer(CL_DEVICE_LUID_VALID, CL_DEVICE_LUID_VALID_KHR,
              "CL_DEVICE_LUID_VALID");
  same_answer(CL_DEVICE_LUID, CL_DEVICE_LUID_KHR, "CL_DEVICE_LUID");
  same_answer(CL_DEVICE_NODE_MASK, CL_DEVICE_NODE_MASK_KHR,
              "CL_DEVICE_NODE_MASK");
  /* The KHR values, written out: Debian's headers lack these names. */
  same_answer(CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES, 0x1073,
              "CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES");
  cl_bitfield caps = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device,
                             CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES,
                             sizeof caps, &caps, NULL));
  /* OpenCL C 3.1 requires the packed form. */
  CHECK(caps & CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED);
  CHECK(caps & CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT);
  if (test_extension_listed(&env, "cl_khr_spirv_queries")) {
    same_answer(CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS, 0x12B9,
                "CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS");
    size_t n = 0;
    REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_SPIRV_CAPABILITIES, 0,
                               NULL, &n));
    CHECK(n > 0);
  }
}

/* A __local argument of size 0: CL_INVALID_ARG_SIZE under 3.0; under 3.1
 * it is set and the kernel (which does not touch it) runs. */
static void test_local_size_zero(void) {
  const char *src = "kernel void k(global int *out, local int *unused) {\n"
                    "  out[get_global_id(0)] = 3 * (int)get_global_id(0);\n"
                    "}\n";
  cl_program p = test_build(&env, src, NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "k", &err);
  REQUIRE_OK(err);
  cl_mem out = test_buffer(&env, 64 * sizeof(int), NULL);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof out, &out));
  err = clSetKernelArg(k, 1, 0, NULL);
  char dv[64] = "";
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_VERSION, sizeof dv, dv,
                             NULL));
  if (strncmp(dv, "OpenCL 3.1 ", 11) != 0) {
    CHECK_EQ(err, CL_INVALID_ARG_SIZE);
  } else {
    CHECK_EQ(err, CL_SUCCESS);
    size_t g = 64, l = 16;
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &g, &l, 0, NULL,
                                      NULL));
    int got[64];
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof got,
                                   got, 0, NULL, NULL));
    for (int i = 0; i < 64; i++)
      CHECK_EQ(got[i], 3 * i);
  }
  REQUIRE_OK(clReleaseMemObject(out));
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseProgram(p));
}

int main(void) {
  test_setup(&env);
  test_version();
  test_core_names();
  test_local_size_zero();
  test_teardown(&env);
  return test_finish(forced() ? "opencl-3-1@forced" : "opencl-3-1");
}
