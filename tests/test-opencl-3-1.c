/* Tests the OpenCL version Skein reports against what OpenCL 3.1 requires
 * (docs/opencl-3.1.md): the platform and device agree on 3.0 or 3.1, and
 * report 3.1 only when every requirement this test can see holds (the
 * nine promoted extensions, sub-groups, the SPIR-V 1.0-1.4 ILs, OpenCL C
 * 3.1 listed and built); the promoted queries answer under their core
 * names (runtime/core/skein_cl31.h) as under their _KHR ones; and a
 * __local kernel argument of size 0 is an error under 3.0 and allocates
 * nothing under 3.1. OpenCL C 3.1 (-cl-std=CL3.1) builds exactly when
 * the device lists it, with its macros and the promoted builtins
 * whatever the extension macros say, and fails to build otherwise; the
 * core clGetKernelSuggestedLocalWorkSize sits in the ICD dispatch slot
 * OpenCL 3.1 added. Run twice: as is (3.1 where the SPIR-V tools are
 * installed), and as opencl-3-1@3.0 with SKEIN_OPENCL_3_1=0 (the 3.0 side
 * of every switch the version makes). */
#include "test_util.h"
#include "dot_reference.h"
#include "../runtime/core/skein_cl31.h"
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>
#include <dlfcn.h>
#include <stdbool.h>

static test_env env;

/* SKEIN_OPENCL_3_1 forces the version: "1" 3.1, "0" 3.0 (else -1: the
 * device reports 3.1 exactly when it meets it). */
static int forced(void) {
  const char *v = getenv("SKEIN_OPENCL_3_1");
  return !v ? -1 : strcmp(v, "1") == 0 ? 1 : strcmp(v, "0") == 0 ? 0 : -1;
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
  /* OpenCL C 3.1 is listed exactly when -cl-std=CL3.1 builds. */
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
  CHECK_EQ(listed(CL_DEVICE_OPENCL_C_ALL_VERSIONS, "OpenCL C",
                  CL_MAKE_VERSION(3, 1, 0)),
           builds);
  printf("reported %s, 3.1 requirements %s\n", is31 ? "3.1" : "3.0",
         met ? "met" : "not met");
  CHECK_EQ(is31, forced() < 0 ? met : forced() == 1);
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
  if (!test_device_is_3_1(&env)) {
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

/* The version macros: CL_VERSION_3_1 is 310 in every language version
 * (as CL_VERSION_3_0 is 300), __OPENCL_C_VERSION__ the version built. */
static void check_version_macros(const char *options, int c_version) {
  const char *src =
      "kernel void k(global int *o) {\n"
      "  o[0] = __OPENCL_C_VERSION__;\n"
      "  o[1] = CL_VERSION_3_1;\n"
      "#if __OPENCL_C_VERSION__ >= CL_VERSION_3_1\n"
      "  o[2] = 31;\n"
      "#else\n"
      "  o[2] = 30;\n"
      "#endif\n"
      "}\n";
  cl_program p = test_build(&env, src, options);
  cl_mem out = test_buffer(&env, 3 * sizeof(int), NULL);
  test_run_1d(&env, p, "k", 1, &out, 1);
  int got[3];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof got, got,
                                 0, NULL, NULL));
  CHECK_EQ(got[0], c_version);
  CHECK_EQ(got[1], 310);
  CHECK_EQ(got[2], c_version >= 310 ? 31 : 30);
  REQUIRE_OK(clReleaseMemObject(out));
  REQUIRE_OK(clReleaseProgram(p));
}

/* Runs kernel k of p (one int) and returns what it wrote. */
static int run_one(cl_program p) {
  cl_mem out = test_buffer(&env, sizeof(int), NULL);
  test_run_1d(&env, p, "k", 1, &out, 1);
  int got = 0;
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof got, &got,
                                 0, NULL, NULL));
  REQUIRE_OK(clReleaseMemObject(out));
  return got;
}

/* OpenCL C 3.1 through clCompileProgram and clLinkProgram (the linked
 * program carries the units' -cl-std=CL3.1 into its own options), and
 * through a program binary, whose stored options are read again. */
static void check_compile_link_binary(void) {
  const char *src = "kernel void k(global int *o) {\n"
                    "  o[0] = __OPENCL_C_VERSION__ * 1000 +\n"
                    "         (int)bit_reverse(1u << 31);\n"
                    "}\n";
  cl_int err;
  cl_program unit = clCreateProgramWithSource(env.context, 1, &src, NULL,
                                              &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clCompileProgram(unit, 1, &env.device, "-cl-std=CL3.1", 0,
                              NULL, NULL, NULL, NULL));
  cl_program linked = clLinkProgram(env.context, 1, &env.device, NULL, 1,
                                    &unit, NULL, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(run_one(linked), 310001);
  size_t size = 0;
  REQUIRE_OK(clGetProgramInfo(linked, CL_PROGRAM_BINARY_SIZES, sizeof size,
                              &size, NULL));
  unsigned char *bin = malloc(size);
  REQUIRE_OK(clGetProgramInfo(linked, CL_PROGRAM_BINARIES, sizeof bin, &bin,
                              NULL));
  const unsigned char *cbin = bin;
  cl_program loaded = clCreateProgramWithBinary(
      env.context, 1, &env.device, &size, &cbin, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clBuildProgram(loaded, 1, &env.device, NULL, NULL, NULL));
  CHECK_EQ(run_one(loaded), 310001);
  free(bin);
  REQUIRE_OK(clReleaseProgram(loaded));
  REQUIRE_OK(clReleaseProgram(linked));
  REQUIRE_OK(clReleaseProgram(unit));
}

/* One builtin of each family OpenCL C 3.1 promoted, and the sub-group
 * functions, with no #pragma OPENCL EXTENSION and no #ifdef. o[16 * i]:
 * the macros, the sub-group ids, then one result per family. */
static const char lang_src[] =
    "kernel void lang(global const uint *x, global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  uint v = x[i];\n"
    "  uint sg = get_sub_group_local_id(), n = get_sub_group_size();\n"
    "  global int *o = out + 16 * i;\n"
    "  o[0] = __OPENCL_C_VERSION__;\n"
    "  o[1] = CL_VERSION_3_1;\n"
    "  o[2] = (int)sg;\n"
    "  o[3] = (int)n;\n"
    "  o[4] = (int)get_sub_group_id();\n"
    "  o[5] = (int)bitfield_extract_unsigned(v, 4u, 8u);\n"
    "  o[6] = (int)bit_reverse(v);\n"
    "  o[7] = (int)dot(as_uchar4(v), as_uchar4(v * 7u + 1u));\n"
    "  o[8] = dot_4x8packed_su_int(v, v ^ 0x80808080u);\n"
    "  o[9] = sub_group_reduce_add((short)(v & 0xffu));\n"
    "  o[10] = sub_group_broadcast((uchar)v, 0u);\n"
    "  o[11] = (int)sub_group_rotate(v, 1);\n"
    "  o[12] = (int)sub_group_shuffle(v, (sg + 3u) % n);\n"
    "  o[13] = (int)sub_group_shuffle_down(v, 1u);\n"
    "  o[14] = (int)sub_group_shuffle_up(v, 1u);\n"
    "  o[15] = memory_scope_sub_group == __OPENCL_MEMORY_SCOPE_SUB_GROUP;\n"
    "}\n";

/* Every extension and feature macro the promoted builtins hang on, off:
 * OpenCL C 3.1 still declares them (and 3.0 then does not). */
static const char promoted_off[] =
    " -cl-ext=-cl_khr_extended_bit_ops,-cl_khr_integer_dot_product,"
    "-__opencl_c_integer_dot_product_input_4x8bit,"
    "-__opencl_c_integer_dot_product_input_4x8bit_packed,"
    "-cl_khr_subgroup_extended_types,-cl_khr_subgroup_rotate,"
    "-cl_khr_subgroup_shuffle,-cl_khr_subgroup_shuffle_relative,"
    "-cl_khr_subgroups,-__opencl_c_subgroups";

static uint32_t ref_bit_reverse(uint32_t v) {
  uint32_t r = 0;
  for (int b = 0; b < 32; b++)
    r |= ((v >> b) & 1u) << (31 - b);
  return r;
}

/* Builds lang_src with options (which include -cl-std=CL3.1), runs it
 * over 2 work-groups of 64 and compares each result with the host's,
 * the sub-groups taken from the ids the kernel wrote. */
static void run_lang(const char *options) {
  enum { N = 128, L = 64, W = 16 };
  cl_int err;
  cl_program p = test_build(&env, lang_src, options);
  /* The front end's 3.1 prelude leaves no warning in the log. */
  char log[4096] = "";
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG,
                                   sizeof log, log, NULL));
  CHECK(strstr(log, "warning") == NULL);
  if (strstr(log, "warning"))
    fprintf(stderr, "build log: %s\n", log);
  uint32_t x[N];
  test_seed(31);
  for (int i = 0; i < N; i++)
    x[i] = (uint32_t)test_rand();
  cl_mem in = test_buffer(&env, sizeof x, x);
  cl_mem out = test_buffer(&env, sizeof(int) * N * W, NULL);
  cl_kernel k = clCreateKernel(p, "lang", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof in, &in));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof out, &out));
  size_t g = N, l = L;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &g, &l, 0, NULL,
                                    NULL));
  static int o[N * W];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof o, o, 0,
                                 NULL, NULL));
  /* Stops at the first work-item that fails a check. */
  int before = test_failures;
  for (int i = 0; i < N && test_failures == before; i++) {
    const int *r = o + W * i;
    int sg = r[2], n = r[3];
    CHECK_EQ(r[0], 310);
    CHECK_EQ(r[1], 310);
    CHECK_EQ(r[15], 1);
    CHECK(n >= 1 && n <= L && sg >= 0 && sg < n);
    if (test_failures != before)
      break;
    /* lane[j]: the work-item of lane j of i's sub-group (same group). */
    int lane[L];
    for (int j = 0; j < n; j++)
      lane[j] = -1;
    for (int j = i / L * L; j < i / L * L + L; j++)
      if (o[W * j + 4] == r[4] && o[W * j + 2] < n)
        lane[o[W * j + 2]] = j;
    short sum = 0;
    for (int j = 0; j < n; j++) {
      CHECK(lane[j] >= 0);
      if (lane[j] < 0)
        return;
      sum = (short)(sum + (x[lane[j]] & 0xff));
    }
    uint32_t v = x[i];
    CHECK_EQ((uint32_t)r[5], (v >> 4) & 0xff);
    CHECK_EQ((uint32_t)r[6], ref_bit_reverse(v));
    CHECK_EQ((uint32_t)r[7], (uint32_t)ref_dot(v, v * 7u + 1u, false, false));
    CHECK_EQ(r[8], (int32_t)ref_dot(v, v ^ 0x80808080u, true, false));
    CHECK_EQ(r[9], sum);
    CHECK_EQ(r[10], x[lane[0]] & 0xff);
    CHECK_EQ((uint32_t)r[11], x[lane[(sg + 1) % n]]);
    CHECK_EQ((uint32_t)r[12], x[lane[(sg + 3) % n]]);
    if (sg + 1 < n)
      CHECK_EQ((uint32_t)r[13], x[lane[sg + 1]]);
    if (sg >= 1)
      CHECK_EQ((uint32_t)r[14], x[lane[sg - 1]]);
  }
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseMemObject(in));
  REQUIRE_OK(clReleaseMemObject(out));
  REQUIRE_OK(clReleaseProgram(p));
}

/* Builds src with options; returns clBuildProgram's error and leaves the
 * build status in *status, the log in log. */
static cl_int try_build(const char *src, const char *options,
                        cl_build_status *status, char *log, size_t size) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(env.context, 1, &src, NULL, &err);
  REQUIRE_OK(err);
  cl_int built = clBuildProgram(p, 1, &env.device, options, NULL, NULL);
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_STATUS,
                                   sizeof *status, status, NULL));
  log[0] = '\0';
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, size,
                                   log, NULL));
  REQUIRE_OK(clReleaseProgram(p));
  return built;
}

/* OpenCL C 3.1: built and run where the device lists it; elsewhere
 * -cl-std=CL3.1 fails to build, "will fail to compile the program" (API
 * spec v3.1.1, 5.8.6.5): CL_BUILD_PROGRAM_FAILURE with the reason in the
 * log, and CL_COMPILE_PROGRAM_FAILURE from clCompileProgram. */
static void test_opencl_c_3_1(void) {
  check_version_macros(NULL, 120);
  check_version_macros("-cl-std=CL3.0", 300);
  char log[4096];
  cl_build_status status;
  bool has31 = listed(CL_DEVICE_OPENCL_C_ALL_VERSIONS, "OpenCL C",
                      CL_MAKE_VERSION(3, 1, 0));
  if (has31) {
    check_version_macros("-cl-std=CL3.1", 310);
    /* The last -cl-std counts. */
    check_version_macros("-cl-std=CL3.1 -cl-std=CL3.0", 300);
    check_compile_link_binary();
    run_lang("-cl-std=CL3.1");
    char opts[512];
    snprintf(opts, sizeof opts, "-cl-std=CL3.1%s", promoted_off);
    run_lang(opts);
    /* Without 3.1 the same macros switched off hide the builtins, so
     * the run above owes them to OpenCL C 3.1. */
    snprintf(opts, sizeof opts, "-cl-std=CL3.0%s", promoted_off);
    CHECK_EQ(try_build(lang_src, opts, &status, log, sizeof log),
             CL_BUILD_PROGRAM_FAILURE);
    return;
  }
  CHECK_EQ(try_build("kernel void k(global int *p) { p[0] = 1; }\n",
                     "-cl-std=CL3.1", &status, log, sizeof log),
           CL_BUILD_PROGRAM_FAILURE);
  CHECK_EQ(status, CL_BUILD_ERROR);
  CHECK(strstr(log, "OpenCL C 3.1") != NULL);
  const char *src = "kernel void k(global int *p) { p[0] = 1; }\n";
  cl_int err;
  cl_program p = clCreateProgramWithSource(env.context, 1, &src, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clCompileProgram(p, 1, &env.device, "-cl-std=CL3.1", 0, NULL,
                            NULL, NULL, NULL),
           CL_COMPILE_PROGRAM_FAILURE);
  REQUIRE_OK(clReleaseProgram(p));
  /* An unknown version stays an invalid option. */
  CHECK_EQ(try_build(src, "-cl-std=CL3.2", &status, log, sizeof log),
           CL_INVALID_BUILD_OPTIONS);
}

/* The core clGetKernelSuggestedLocalWorkSize: in the ICD dispatch slot
 * OpenCL 3.1 added after clSetContextDestructorCallback (index 149 of
 * OpenCL-Headers v2026.05.29's cl_icd_dispatch, the first pointer past
 * Debian's struct), as a Khronos loader of 3.1 calls it (Debian's
 * ocl-icd has no such slot), and exported from libskein. It answers what
 * the cl_khr_suggested_local_work_size function answers, errors too. */
static void test_core_suggested_local_size(void) {
  void *const *table = *(void *const *const *)env.queue;
  skein_get_kernel_suggested_local_work_size_fn core =
      (skein_get_kernel_suggested_local_work_size_fn)
          table[sizeof(struct _cl_icd_dispatch) / sizeof(void *)];
  skein_get_kernel_suggested_local_work_size_fn khr =
      (skein_get_kernel_suggested_local_work_size_fn)
          clGetExtensionFunctionAddressForPlatform(
              env.platform, "clGetKernelSuggestedLocalWorkSizeKHR");
  REQUIRE_OK(core && khr ? CL_SUCCESS : CL_INVALID_VALUE);
  /* The slot holds libskein's exported function (the library the
   * loader opened, found through the .icd file it read). */
  const char *dir = getenv("OCL_ICD_VENDORS");
  char path[4096] = "", icd[4200];
  snprintf(icd, sizeof icd, "%s/skein.icd", dir ? dir : ".");
  FILE *f = fopen(icd, "r");
  if (f) {
    if (!fgets(path, sizeof path, f))
      path[0] = '\0';
    fclose(f);
    path[strcspn(path, "\n")] = '\0';
  }
  void *lib = path[0] ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
  CHECK(lib != NULL);
  if (lib) {
    CHECK(dlsym(lib, "clGetKernelSuggestedLocalWorkSize") == (void *)core);
    dlclose(lib);
  }

  const char *src = "kernel void k(global int *p) { p[get_global_id(0)] = 1; }"
                    "\nkernel __attribute__((reqd_work_group_size(8, 2, 1)))"
                    " void r(global int *p) { p[get_global_id(0)] = 1; }\n";
  cl_program p = test_build(&env, src, NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "k", &err);
  REQUIRE_OK(err);
  cl_kernel r = clCreateKernel(p, "r", &err);
  REQUIRE_OK(err);
  size_t g[3] = {4096, 6, 5}, a[3], b[3];
  /* CL_INVALID_KERNEL_ARGS before the argument is set. */
  CHECK_EQ(core(env.queue, k, 1, NULL, g, a), CL_INVALID_KERNEL_ARGS);
  cl_mem buf = test_buffer(&env, 4096 * 30 * sizeof(int), NULL);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof buf, &buf));
  REQUIRE_OK(clSetKernelArg(r, 0, sizeof buf, &buf));
  for (cl_uint dim = 1; dim <= 3; dim++) {
    memset(a, 0, sizeof a);
    memset(b, 0xff, sizeof b);
    REQUIRE_OK(core(env.queue, k, dim, NULL, g, a));
    REQUIRE_OK(khr(env.queue, k, dim, NULL, g, b));
    for (cl_uint d = 0; d < dim; d++) {
      CHECK_EQ(a[d], b[d]);
      CHECK(a[d] >= 1 && g[d] % a[d] == 0);
    }
  }
  size_t rg[2] = {64, 4};
  REQUIRE_OK(core(env.queue, r, 2, NULL, rg, a));
  CHECK_EQ(a[0], 8);
  CHECK_EQ(a[1], 2);
  size_t off[1] = {SIZE_MAX};
  CHECK_EQ(core(NULL, k, 1, NULL, g, a), CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(core(env.queue, NULL, 1, NULL, g, a), CL_INVALID_KERNEL);
  CHECK_EQ(core(env.queue, k, 0, NULL, g, a), CL_INVALID_WORK_DIMENSION);
  CHECK_EQ(core(env.queue, k, 4, NULL, g, a), CL_INVALID_WORK_DIMENSION);
  CHECK_EQ(core(env.queue, k, 1, NULL, NULL, a), CL_INVALID_GLOBAL_WORK_SIZE);
  size_t zero[1] = {0};
  CHECK_EQ(core(env.queue, k, 1, NULL, zero, a), CL_INVALID_GLOBAL_WORK_SIZE);
  CHECK_EQ(core(env.queue, k, 1, off, g, a), CL_INVALID_GLOBAL_OFFSET);
  CHECK_EQ(core(env.queue, k, 1, NULL, g, NULL), CL_INVALID_VALUE);
  REQUIRE_OK(clReleaseMemObject(buf));
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseKernel(r));
  REQUIRE_OK(clReleaseProgram(p));
}

int main(void) {
  test_setup(&env);
  test_version();
  test_core_names();
  test_local_size_zero();
  test_opencl_c_3_1();
  test_core_suggested_local_size();
  test_teardown(&env);
  return test_finish(forced() == 1   ? "opencl-3-1@forced"
                     : forced() == 0 ? "opencl-3-1@3.0"
                                     : "opencl-3-1");
}
