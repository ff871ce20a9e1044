/* This file contains the tests of cl_khr_integer_dot_product from OpenCL
 * C: the extension (version 2.0.0) and its two OpenCL C features are
 * reported, CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR has both input
 * forms, the acceleration properties say that the mixed-signedness forms
 * (plain and saturating) are accelerated exactly where the CPU has VNNI
 * (AVX512-VNNI with AVX-512F, or AVX-VNNI, less what SKEIN_CPU_FEATURES
 * turns off) and no other form is, and every function (dot and
 * dot_acc_sat of uchar4/char4 in each signedness pairing,
 * dot_4x8packed_* and dot_acc_sat_4x8packed_*) matches the host on
 * random and saturating inputs, both in a kernel whose work-item loop
 * stays scalar and in one the vectoriser widens (the VNNI path:
 * compiler/dot_vnni.c). (tests/test-spirv.c runs the SPIR-V
 * instructions.) */
#include "test_util.h"
#include "dot_reference.h"

#include <CL/cl_ext.h>

static test_env env;

static const char *source =
    "#if !defined(cl_khr_integer_dot_product) || \\\n"
    "    !defined(__opencl_c_integer_dot_product_input_4x8bit) || \\\n"
    "    !defined(__opencl_c_integer_dot_product_input_4x8bit_packed)\n"
    "#error integer dot product macros missing\n"
    "#endif\n"
    "kernel void dots(global int *out, global const uint *in,\n"
    "                 global const int *acc) {\n"
    "  size_t i = get_global_id(0);\n"
    "  uint x = in[i], y = in[i ^ 1];\n"
    "  int a = acc[i];\n"
    "  uchar4 ux = as_uchar4(x), uy = as_uchar4(y);\n"
    "  char4 sx = as_char4(x), sy = as_char4(y);\n"
    "  global int *o = out + 16 * i;\n"
    "  o[0] = (int)dot(ux, uy);\n"
    "  o[1] = dot(sx, sy);\n"
    "  o[2] = dot(sx, uy);\n"
    "  o[3] = dot(ux, sy);\n"
    "  o[4] = (int)dot_acc_sat(ux, uy, (uint)a);\n"
    "  o[5] = dot_acc_sat(sx, sy, a);\n"
    "  o[6] = dot_acc_sat(sx, uy, a);\n"
    "  o[7] = dot_acc_sat(ux, sy, a);\n"
    "  o[8] = (int)dot_4x8packed_uu_uint(x, y);\n"
    "  o[9] = dot_4x8packed_ss_int(x, y);\n"
    "  o[10] = dot_4x8packed_us_int(x, y);\n"
    "  o[11] = dot_4x8packed_su_int(x, y);\n"
    "  o[12] = (int)dot_acc_sat_4x8packed_uu_uint(x, y, (uint)a);\n"
    "  o[13] = dot_acc_sat_4x8packed_ss_int(x, y, a);\n"
    "  o[14] = dot_acc_sat_4x8packed_us_int(x, y, a);\n"
    "  o[15] = dot_acc_sat_4x8packed_su_int(x, y, a);\n"
    "}\n"
    /* One result per work-item and function, in unit-stride rows: the
     * loop vectoriser widens this one (with VNNI: vpdpbusd(s) on 16
     * work-items at once). */
    "kernel void wide(global int *out, global const uint *x,\n"
    "                 global const uint *y, global const int *acc) {\n"
    "  size_t i = get_global_id(0), n = get_global_size(0);\n"
    "  uint a = x[i], b = y[i];\n"
    "  int c = acc[i];\n"
    "  out[i] = dot_4x8packed_us_int(a, b);\n"
    "  out[n + i] = dot_4x8packed_su_int(a, b);\n"
    "  out[2 * n + i] = dot_acc_sat_4x8packed_us_int(a, b, c);\n"
    "  out[3 * n + i] = dot_acc_sat_4x8packed_su_int(a, b, c);\n"
    "  out[4 * n + i] = dot(as_uchar4(a), as_char4(b));\n"
    "  out[5 * n + i] = dot(as_char4(a), as_uchar4(b));\n"
    "  out[6 * n + i] = dot_acc_sat(as_uchar4(a), as_char4(b), c);\n"
    "  out[7 * n + i] = dot_acc_sat(as_char4(a), as_uchar4(b), c);\n"
    "}\n";

/* Whether /proc/cpuinfo's flags list flag (a whole word). */
static bool cpu_flag(const char *flag) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[8192];
  bool found = false;
  size_t n = strlen(flag);
  while (f && !found && fgets(line, sizeof line, f)) {
    if (strncmp(line, "flags", 5) != 0)
      continue;
    for (char *p = strstr(line, flag); p && !found; p = strstr(p + 1, flag))
      found = p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n');
    break;
  }
  if (f)
    fclose(f);
  return found;
}

/* Whether SKEIN_CPU_FEATURES (or its older name) turns feature off. */
static bool turned_off(const char *feature) {
  const char *names[] = {"SKEIN_CPU_FEATURES", "SKEIN_TARGET_FEATURES"};
  char minus[64];
  snprintf(minus, sizeof minus, "-%s", feature);
  for (int i = 0; i < 2; i++) {
    const char *v = getenv(names[i]);
    if (v && strstr(v, minus))
      return true;
  }
  return false;
}

/* What Skein should report: VNNI where the CPU has it. */
static bool expect_vnni(void) {
  bool avx512 = cpu_flag("avx512_vnni") && cpu_flag("avx512f") &&
                !turned_off("avx512vnni") && !turned_off("avx512f");
  bool avx = cpu_flag("avx_vnni") && !turned_off("avxvnni");
  return avx512 || avx;
}

static void check_reports(void) {
  CHECK(test_extension_listed(&env, "cl_khr_integer_dot_product"));
  CHECK_EQ(test_extension_count(&env, "cl_khr_integer_dot_product", 0), 1);
  CHECK_EQ(test_extension_count(&env, "cl_khr_integer_dot_product",
                                CL_MAKE_VERSION(2, 0, 0)),
           1);
  cl_name_version list[128];
  size_t size;
  int found;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_OPENCL_C_FEATURES,
                             sizeof list, list, &size));
  found = 0;
  for (size_t i = 0; i < size / sizeof list[0]; i++)
    found += strcmp(list[i].name,
                    "__opencl_c_integer_dot_product_input_4x8bit") == 0 ||
             strcmp(list[i].name,
                    "__opencl_c_integer_dot_product_input_4x8bit_packed") ==
                 0;
  CHECK_EQ(found, 2);
  cl_device_integer_dot_product_capabilities_khr caps = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device,
                             CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR,
                             sizeof caps, &caps, &size));
  CHECK_EQ(size, sizeof caps);
  CHECK_EQ(caps, CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR |
                     CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR);
  static const cl_device_info accel[] = {
      CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR,
      CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR};
  for (int q = 0; q < 2; q++) {
    cl_device_integer_dot_product_acceleration_properties_khr p;
    memset(&p, 0xff, sizeof p);
    REQUIRE_OK(clGetDeviceInfo(env.device, accel[q], sizeof p, &p, &size));
    CHECK_EQ(size, sizeof p);
    CHECK_EQ(p.signed_accelerated, CL_FALSE);
    CHECK_EQ(p.unsigned_accelerated, CL_FALSE);
    cl_bool vnni = expect_vnni() ? CL_TRUE : CL_FALSE;
    CHECK_EQ(p.mixed_signedness_accelerated, vnni);
    CHECK_EQ(p.accumulating_saturating_signed_accelerated, CL_FALSE);
    CHECK_EQ(p.accumulating_saturating_unsigned_accelerated, CL_FALSE);
    CHECK_EQ(p.accumulating_saturating_mixed_signedness_accelerated, vnni);
    CHECK_EQ(clGetDeviceInfo(env.device, accel[q], sizeof p - 1, &p, NULL),
             CL_INVALID_VALUE);
  }
}

/* The mixed-signedness forms in the vectorised kernel "wide", on random
 * operands and, every eighth work-item, on ones that saturate at either
 * end of int. */
static void check_wide(cl_program p) {
  enum { W = 4096, F = 8 };
  static uint32_t x[W], y[W];
  static int32_t acc[W], out[F * W];
  for (int i = 0; i < W; i++) {
    x[i] = (uint32_t)test_rand();
    y[i] = (uint32_t)test_rand();
    acc[i] = (int32_t)test_rand();
    if (i % 8 == 3)
      x[i] = 0xffffffffu, y[i] = 0x7f7f7f7fu, acc[i] = INT32_MAX - i % 5;
    if (i % 8 == 5)
      x[i] = 0xffffffffu, y[i] = 0x80808080u, acc[i] = INT32_MIN + i % 7;
  }
  cl_int err;
  cl_kernel k = clCreateKernel(p, "wide", &err);
  REQUIRE_OK(err);
  cl_mem m[4] = {test_buffer(&env, sizeof out, NULL),
                 test_buffer(&env, sizeof x, x), test_buffer(&env, sizeof y, y),
                 test_buffer(&env, sizeof acc, acc)};
  for (int a = 0; a < 4; a++)
    REQUIRE_OK(clSetKernelArg(k, a, sizeof m[a], &m[a]));
  size_t global = W;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, m[0], CL_TRUE, 0, sizeof out,
                                 out, 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < W; i++) {
    int64_t us = ref_dot(x[i], y[i], false, true),
            su = ref_dot(x[i], y[i], true, false);
    const int32_t expect[F] = {(int32_t)us, (int32_t)su,
                               ref_sat_int(us + acc[i]),
                               ref_sat_int(su + acc[i]), (int32_t)us,
                               (int32_t)su, ref_sat_int(us + acc[i]),
                               ref_sat_int(su + acc[i])};
    for (int f = 0; f < F; f++)
      if (out[f * W + i] != expect[f] && bad++ < 5)
        fprintf(stderr, "wide: item %d function %d: %d, expected %d\n", i,
                f, out[f * W + i], expect[f]);
  }
  CHECK_EQ(bad, 0);
  test_release_buffers(m, 4);
  clReleaseKernel(k);
}

int main(void) {
  test_setup(&env);
  check_reports();
  enum { N = 1024 };
  static uint32_t in[N];
  static int32_t acc[N], out[16 * N];
  test_seed(1722);
  for (int i = 0; i < N; i++) {
    in[i] = (uint32_t)test_rand();
    acc[i] = (int32_t)test_rand();
  }
  /* Saturation at both ends of int and uint, and extreme bytes. */
  in[0] = 0x7f7f7f7fu, in[1] = 0x7f7f7f7fu, acc[0] = INT32_MAX - 5;
  in[2] = 0x80808080u, in[3] = 0x7f7f7f7fu, acc[2] = INT32_MIN + 5;
  in[4] = 0xffffffffu, in[5] = 0xffffffffu, acc[4] = -1;
  in[6] = 0x80808080u, in[7] = 0x80808080u, acc[6] = INT32_MAX;
  cl_program p = test_build(&env, source, "-cl-std=CL3.0");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "dots", &err);
  REQUIRE_OK(err);
  cl_mem bo = test_buffer(&env, sizeof out, NULL);
  cl_mem bi = test_buffer(&env, sizeof in, in);
  cl_mem ba = test_buffer(&env, sizeof acc, acc);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bi, &bi));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof ba, &ba));
  size_t global = N;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  for (int i = 0; i < N; i++) {
    uint32_t x = in[i], y = in[i ^ 1];
    int64_t a = acc[i];
    int64_t uu = ref_dot(x, y, false, false), ss = ref_dot(x, y, true, true),
            su = ref_dot(x, y, true, false), us = ref_dot(x, y, false, true);
    const int32_t expect[16] = {
        (int32_t)uu, (int32_t)ss, (int32_t)su, (int32_t)us,
        (int32_t)ref_sat_uint(uu + (uint32_t)a), ref_sat_int(ss + a),
        ref_sat_int(su + a), ref_sat_int(us + a),
        (int32_t)uu, (int32_t)ss, (int32_t)us, (int32_t)su,
        (int32_t)ref_sat_uint(uu + (uint32_t)a), ref_sat_int(ss + a),
        ref_sat_int(us + a), ref_sat_int(su + a)};
    for (int f = 0; f < 16; f++)
      if (out[16 * i + f] != expect[f]) {
        fprintf(stderr, "item %d function %d: %d, expected %d\n", i, f,
                out[16 * i + f], expect[f]);
        test_failures++;
      }
  }
  clReleaseMemObject(bo);
  clReleaseMemObject(bi);
  clReleaseMemObject(ba);
  clReleaseKernel(k);
  check_wide(p);
  clReleaseProgram(p);
  test_teardown(&env);
  return test_finish("integer-dot-product");
}
