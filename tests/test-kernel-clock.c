/* This file contains the tests of cl_khr_kernel_clock: the extension and
 * its three scope features are reported, CL_DEVICE_KERNEL_CLOCK_
 * CAPABILITIES_KHR has the work-group and sub-group scopes and, on a CPU
 * with an invariant time-stamp counter, the device scope; in kernels every
 * clock_read_* and clock_read_hilo_* read is ordered as the reads were:
 * within a work-item (including the _hilo forms between two 64-bit
 * reads), and, for the device scope, across the work-items of two
 * launches of which the second starts after the first ends. */
#include "test_util.h"

#include <cpuid.h>
#include <stdbool.h>
#include <stdint.h>

static test_env env;

#define KERNEL_CLOCK_CAPABILITIES 0x1076

static const char *source =
    "#if !defined(cl_khr_kernel_clock) || \\\n"
    "    !defined(__opencl_c_kernel_clock_scope_device) || \\\n"
    "    !defined(__opencl_c_kernel_clock_scope_work_group) || \\\n"
    "    !defined(__opencl_c_kernel_clock_scope_sub_group)\n"
    "#error kernel clock macros missing\n"
    "#endif\n"
    "ulong hl(uint2 v) { return upsample(v.hi, v.lo); }\n"
    "kernel void clocks(global ulong *out, global const uint *in) {\n"
    "  size_t i = get_global_id(0);\n"
    "  global ulong *o = out + 10 * i;\n"
    "  o[0] = clock_read_device();\n"
    "  o[1] = clock_read_work_group();\n"
    "  o[2] = clock_read_sub_group();\n"
    "  uint acc = in[i];\n"
    "  for (uint k = 0; k < 200; k++)\n"
    "    acc = acc * 1664525u + 1013904223u;\n"
    "  o[3] = hl(clock_read_hilo_device());\n"
    "  o[4] = hl(clock_read_hilo_work_group());\n"
    "  o[5] = hl(clock_read_hilo_sub_group());\n"
    "  o[6] = clock_read_sub_group();\n"
    "  o[7] = clock_read_work_group();\n"
    "  o[8] = clock_read_device();\n"
    "  o[9] = acc;\n"
    "}\n";

static bool invariant_tsc(void) {
  unsigned a, b, c, d;
  return __get_cpuid(0x80000007u, &a, &b, &c, &d) && (d >> 8) & 1u;
}

static void check_reports(void) {
  CHECK(test_extension_listed(&env, "cl_khr_kernel_clock"));
  CHECK_EQ(test_extension_count(&env, "cl_khr_kernel_clock", 0), 1);
  CHECK_EQ(test_extension_count(&env, "cl_khr_kernel_clock",
                                CL_MAKE_VERSION(1, 0, 0)),
           1);
  cl_name_version list[128];
  size_t size;
  int found;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_OPENCL_C_FEATURES,
                             sizeof list, list, &size));
  found = 0;
  for (size_t i = 0; i < size / sizeof list[0]; i++)
    found += strncmp(list[i].name, "__opencl_c_kernel_clock_scope_", 30) == 0;
  CHECK_EQ(found, 3);
  cl_bitfield caps = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, KERNEL_CLOCK_CAPABILITIES,
                             sizeof caps, &caps, &size));
  CHECK_EQ(size, sizeof caps);
  CHECK_EQ(caps, (invariant_tsc() ? 1u : 0u) | 2u | 4u);
  CHECK_EQ(clGetDeviceInfo(env.device, KERNEL_CLOCK_CAPABILITIES, 4, &caps,
                           NULL),
           CL_INVALID_VALUE);
}

/* One launch of 512 work-items in groups of 64; returns its smallest
 * first device read and largest last one. */
static void launch(cl_kernel k, cl_mem bo, uint64_t *first, uint64_t *last) {
  enum { N = 512 };
  static uint64_t out[10 * N];
  size_t global = N, local = 64;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  *first = UINT64_MAX;
  *last = 0;
  for (int i = 0; i < N; i++) {
    const uint64_t *o = out + 10 * i;
    /* Program order within the work-item, every scope and form. */
    for (int s = 0; s < 3; s++)
      CHECK(o[s] <= o[3 + s]);
    CHECK(o[5] <= o[6]);
    CHECK(o[4] <= o[7]);
    CHECK(o[3] <= o[8]);
    CHECK(o[0] <= o[1] && o[1] <= o[2] && o[2] <= o[3]);
    CHECK(o[8] > o[0]);   /* 200 multiply-adds take time */
    if (o[0] < *first)
      *first = o[0];
    if (o[8] > *last)
      *last = o[8];
  }
}

int main(void) {
  test_setup(&env);
  check_reports();
  cl_program p = test_build(&env, source, "-cl-std=CL3.0");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "clocks", &err);
  REQUIRE_OK(err);
  cl_mem bo = test_buffer(&env, 10 * 512 * sizeof(uint64_t), NULL);
  uint32_t in[512];
  for (int i = 0; i < 512; i++)
    in[i] = (uint32_t)i;
  cl_mem bi = test_buffer(&env, sizeof in, in);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bi, &bi));
  uint64_t first1, last1, first2, last2;
  launch(k, bo, &first1, &last1);
  launch(k, bo, &first2, &last2);
  /* Device scope: the second launch began after the first ended. */
  if (invariant_tsc())
    CHECK(first2 >= last1);
  CHECK(last1 > first1);
  clReleaseMemObject(bo);
  clReleaseMemObject(bi);
  clReleaseKernel(k);
  clReleaseProgram(p);
  test_teardown(&env);
  return test_finish("kernel-clock");
}
