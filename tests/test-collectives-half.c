/* This file tests the half (cl_khr_fp16) work-group collective functions
 * through the ICD loader: reduce, inclusive and exclusive scans of add,
 * min and max, and the 1D/2D broadcast, on 1D and 2D groups, against a
 * host reference in linear local id order. Inputs are small multiples of
 * 0.5, so every partial sum is exact in half and any order gives the
 * same bits. */
#include "test_util.h"
#include <math.h>
#include <stdint.h>

static test_env env;

enum { OPS = 9, GROUPS = 3 };
static const char *const names[OPS] = {
    "work_group_reduce_add",         "work_group_reduce_min",
    "work_group_reduce_max",         "work_group_scan_inclusive_add",
    "work_group_scan_inclusive_min", "work_group_scan_inclusive_max",
    "work_group_scan_exclusive_add", "work_group_scan_exclusive_min",
    "work_group_scan_exclusive_max"};

static const char src[] =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "kernel void k(global const half *in, global half *out, uint n) {\n"
    "  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
    "  half x = in[i];\n"
    "  out[0 * n + i] = work_group_reduce_add(x);\n"
    "  out[1 * n + i] = work_group_reduce_min(x);\n"
    "  out[2 * n + i] = work_group_reduce_max(x);\n"
    "  out[3 * n + i] = work_group_scan_inclusive_add(x);\n"
    "  out[4 * n + i] = work_group_scan_inclusive_min(x);\n"
    "  out[5 * n + i] = work_group_scan_inclusive_max(x);\n"
    "  out[6 * n + i] = work_group_scan_exclusive_add(x);\n"
    "  out[7 * n + i] = work_group_scan_exclusive_min(x);\n"
    "  out[8 * n + i] = work_group_scan_exclusive_max(x);\n"
    "  out[9 * n + i] = work_group_broadcast(x, get_local_size(0) - 1);\n"
    "  out[10 * n + i] = work_group_broadcast(x, (size_t)0,\n"
    "                                         get_local_size(1) - 1);\n"
    "}\n";

static int has_fp16(void) {
  char ext[4096];
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof ext,
                             ext, NULL));
  return strstr(ext, "cl_khr_fp16") != NULL;
}

/* The reference of operation op over the group's values v[0..n) (linear
 * local id order) for work-item j. */
static float reference(int op, const float *v, size_t n, size_t j) {
  int kind = op % 3, scan = op / 3; /* 0 reduce, 1 inclusive, 2 exclusive */
  size_t end = scan == 0 ? n : scan == 1 ? j + 1 : j;
  float acc = kind == 0 ? 0.0f : kind == 1 ? INFINITY : -INFINITY;
  for (size_t k = 0; k < end; k++)
    acc = kind == 0 ? acc + v[k] : kind == 1 ? fminf(acc, v[k])
                                             : fmaxf(acc, v[k]);
  return acc;
}

/* Runs the kernel over GROUPS groups of lx x ly and checks every output. */
static void run(cl_kernel k, size_t lx, size_t ly) {
  size_t gx = lx * GROUPS, n = gx * ly;
  _Float16 *in = malloc(n * sizeof *in), *out = malloc(11 * n * sizeof *out);
  for (size_t i = 0; i < n; i++)
    in[i] = (_Float16)((float)((int)(test_rand() % 33) - 16) * 0.5f);
  cl_int err;
  cl_mem bin = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR,
                              n * sizeof *in, in, &err);
  REQUIRE_OK(err);
  cl_mem bout = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY,
                               11 * n * sizeof *out, NULL, &err);
  REQUIRE_OK(err);
  cl_uint nn = (cl_uint)n;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bin, &bin));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bout, &bout));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof nn, &nn));
  size_t global[2] = {gx, ly}, local[2] = {lx, ly};
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 2, NULL, global, local, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bout, CL_TRUE, 0,
                                 11 * n * sizeof *out, out, 0, NULL, NULL));
  float *v = malloc(lx * ly * sizeof *v);
  int bad = 0;
  for (size_t g = 0; g < GROUPS; g++) {
    /* The group's values in linear local id order (x fastest). */
    for (size_t y = 0; y < ly; y++)
      for (size_t x = 0; x < lx; x++)
        v[y * lx + x] = (float)in[y * gx + g * lx + x];
    for (size_t y = 0; y < ly; y++)
      for (size_t x = 0; x < lx; x++) {
        size_t i = y * gx + g * lx + x, j = y * lx + x;
        for (int op = 0; op < 11; op++) {
          /* The 1D broadcast form is for 1D groups only. */
          if (op == 9 && ly > 1)
            continue;
          float want = op < OPS ? reference(op, v, lx * ly, j)
                       : op == 9 ? v[lx - 1]
                                 : v[(ly - 1) * lx];
          float got = (float)out[op * n + i];
          if (got != want && bad++ < 5)
            fprintf(stderr, "%zux%zu group %zu item %zu %s (%d): %g, want %g\n",
                    lx, ly, g, j, op < OPS ? names[op] : "work_group_broadcast", op,
                    got, want);
        }
      }
  }
  CHECK_EQ(bad, 0);
  free(v);
  free(in);
  free(out);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
}

int main(void) {
  test_setup(&env);
  if (!has_fp16()) {
    printf("collectives-half: the device lacks cl_khr_fp16, nothing to test\n");
    test_teardown(&env);
    return test_finish("collectives-half");
  }
  test_seed(0x5eedf16);
  cl_program prog = test_build(&env, src, "-cl-std=CL3.0");
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "k", &err);
  REQUIRE_OK(err);
  run(k, 1, 1);
  run(k, 64, 1);
  run(k, 13, 1);
  run(k, 8, 4);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  test_teardown(&env);
  return test_finish("collectives-half");
}
