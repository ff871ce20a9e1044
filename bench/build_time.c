/* This file contains skein-bench-build: the build time of one 5-kernel
 * program (bench/build_time.cl) from OpenCL C (clCreateProgramWithSource)
 * and from SPIR-V (clCreateProgramWithIL of the module clang-15 and
 * llvm-spirv-15 make of the same file at build time), on the first
 * device of the first platform the ICD loader finds. Every build is a new
 * program object; the first build of each kind in the process is also
 * reported alone (LLVM's set-up, the builtin library's first use). Rows:
 * "| program | first build | median of N | unit |". Then the kernels'
 * speed from each build: matmul (512 x 512) and saxpy (16M floats),
 * median of 9 launches.
 *
 *   skein-bench-build [-n N] [c|spirv|both]   (default: both, N = 10) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

static cl_context ctx;
static cl_device_id dev;

/* Creates and builds one program; returns the milliseconds both took
 * and, if keep is not NULL, the program. */
static double build_program(int spirv, const char *text, size_t size,
                            cl_program *keep) {
  cl_int err;
  double t0 = now_ms();
  cl_program p = spirv ? clCreateProgramWithIL(ctx, text, size, &err)
                       : clCreateProgramWithSource(ctx, 1, &text, &size,
                                                   &err);
  if (err == CL_SUCCESS)
    err = clBuildProgram(p, 1, &dev, spirv ? "" : "-cl-std=CL2.0", NULL,
                         NULL);
  double t = now_ms() - t0;
  if (err != CL_SUCCESS) {
    char log[8192] = "";
    if (p)
      clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                            NULL);
    fprintf(stderr, "build failed (%d): %s\n", err, log);
    exit(1);
  }
  if (keep)
    *keep = p;
  else
    clReleaseProgram(p);
  return t;
}

static double build_once(int spirv, const char *text, size_t size) {
  return build_program(spirv, text, size, NULL);
}

/* Median milliseconds of 9 launches of kernel name of p over global
 * (2D if global[1]) with buffer arguments a, b, c and, for matmul, n. */
static double time_kernel(cl_program p, const char *name, size_t *global,
                          cl_mem a, cl_mem b, cl_mem c, int n) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL,
                                                          &err);
  if (strcmp(name, "matmul") == 0) {
    clSetKernelArg(k, 0, sizeof a, &a);
    clSetKernelArg(k, 1, sizeof b, &b);
    clSetKernelArg(k, 2, sizeof c, &c);
    clSetKernelArg(k, 3, sizeof n, &n);
  } else {
    float alpha = 1.5f;
    clSetKernelArg(k, 0, sizeof a, &a);
    clSetKernelArg(k, 1, sizeof b, &b);
    clSetKernelArg(k, 2, sizeof alpha, &alpha);
  }
  double t[9];
  for (int i = 0; i < 10; i++) {
    double t0 = now_ms();
    clEnqueueNDRangeKernel(q, k, global[1] ? 2 : 1, NULL, global, NULL, 0,
                           NULL, NULL);
    clFinish(q);
    if (i)   /* the first launch warms up */
      t[i - 1] = now_ms() - t0;
  }
  qsort(t, 9, sizeof t[0], cmp_double);
  clReleaseCommandQueue(q);
  clReleaseKernel(k);
  return t[4];
}

/* The kernels' speed from the OpenCL C and the SPIR-V build. */
static void run_kernels(void) {
  enum { N = 512, M = 1 << 24 };
  cl_int err;
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, M * sizeof(float), NULL,
                            &err);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, M * sizeof(float), NULL,
                            &err);
  cl_mem c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * N * sizeof(float),
                            NULL, &err);
  float zero = 0.0f;
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL,
                                                          &err);
  clEnqueueFillBuffer(q, a, &zero, sizeof zero, 0, M * sizeof(float), 0,
                      NULL, NULL);
  clEnqueueFillBuffer(q, b, &zero, sizeof zero, 0, M * sizeof(float), 0,
                      NULL, NULL);
  clFinish(q);
  clReleaseCommandQueue(q);
  printf("\n| kernel (median of 9) | from OpenCL C | from SPIR-V | unit |\n");
  printf("|----------------------|---------------|-------------|------|\n");
  cl_program progs[2];
  for (int spirv = 0; spirv < 2; spirv++) {
    size_t size;
    char *text = read_file(spirv ? SKEIN_BENCH_SPIRV : SKEIN_BENCH_SOURCE,
                           &size);
    build_program(spirv, text, size, &progs[spirv]);
    free(text);
  }
  size_t g2[2] = {N, N}, g1[2] = {M, 0};
  double mm[2], sx[2];
  for (int i = 0; i < 2; i++) {
    mm[i] = time_kernel(progs[i], "matmul", g2, a, b, c, N);
    sx[i] = time_kernel(progs[i], "saxpy", g1, a, b, c, 0);
  }
  printf("| matmul 512 x 512     | %13.2f | %11.2f | ms   |\n", mm[0], mm[1]);
  printf("| saxpy 16M            | %13.2f | %11.2f | ms   |\n", sx[0], sx[1]);
  clReleaseProgram(progs[0]);
  clReleaseProgram(progs[1]);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(c);
}

static void measure(int spirv, int n) {
  size_t size;
  char *text = read_file(spirv ? SKEIN_BENCH_SPIRV : SKEIN_BENCH_SOURCE,
                         &size);
  double first = build_once(spirv, text, size);
  double *t = malloc((size_t)n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = build_once(spirv, text, size);
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  printf("| %-8s | %11.1f | %11.1f | ms   |\n",
         spirv ? "SPIR-V" : "OpenCL C", first, t[n / 2]);
  fflush(stdout);
  free(t);
  free(text);
}

int main(int argc, char **argv) {
  int n = 10;
  const char *which = "both";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
      n = atoi(argv[++i]);
    else
      which = argv[i];
  }
  if (n < 1)
    n = 1;
  cl_platform_id plat;
  cl_int err = clGetPlatformIDs(1, &plat, NULL);
  if (err == CL_SUCCESS)
    err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
  if (err == CL_SUCCESS)
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "no OpenCL device (%d)\n", err);
    return 1;
  }
  char name[256] = "";
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  printf("device: %s; %d builds after the first\n", name, n);
  printf("| program  | first build | median      | unit |\n");
  printf("|----------|-------------|-------------|------|\n");
  if (strcmp(which, "spirv") != 0)
    measure(0, n);
  if (strcmp(which, "c") != 0)
    measure(1, n);
  if (strcmp(which, "both") == 0)
    run_kernels();
  clReleaseContext(ctx);
  return 0;
}
