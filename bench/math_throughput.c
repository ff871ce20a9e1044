/* This file contains skein-bench-math: the throughput of the math
 * builtins sin, exp, log, pow and sqrt over 64M float elements, as scalar
 * float and as float16 kernels, in elements per second. OCL_ICD_VENDORS
 * chooses the driver; the first device of the first platform runs. Rows
 * are "| metric | value | unit |" like skein-bench-peak's. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
  ELEMENTS = 64 << 20, /* floats per launch */
  RUNS = 3,            /* timed launches; the best is reported */
};

static const char *const funcs[] = {"sin", "exp", "log", "pow", "sqrt"};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define DIE_IF(cond, what)                                                 \
  do {                                                                     \
    if (cond) {                                                            \
      fprintf(stderr, "skein-bench-math: %s failed\n", what);              \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

/* One kernel per function and width: r = f(x) (pow: f(x, y)). */
static cl_program build(cl_context ctx, cl_device_id dev) {
  char src[4096] = "";
  for (size_t f = 0; f < sizeof(funcs) / sizeof(funcs[0]); f++) {
    for (int w = 0; w < 2; w++) {
      const char *t = w ? "float16" : "float";
      size_t len = strlen(src);
      snprintf(src + len, sizeof(src) - len,
               "kernel void %s_%s(global const %s *x, global const %s *y,\n"
               "                  global %s *r) {\n"
               "  size_t i = get_global_id(0);\n"
               "  r[i] = %s(x[i]%s);\n}\n",
               funcs[f], t, t, t, t, funcs[f],
               strcmp(funcs[f], "pow") == 0 ? ", y[i]" : "");
    }
  }
  const char *s = src;
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
  DIE_IF(err, "clCreateProgramWithSource");
  if (clBuildProgram(p, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
    char log[16384] = "";
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "build failed:\n%s\n", log);
    exit(1);
  }
  return p;
}

/* Positive inputs in [0.5, 100): every function is defined there. */
static cl_mem input(cl_context ctx, unsigned seed) {
  float *h = malloc((size_t)ELEMENTS * sizeof(float));
  DIE_IF(!h, "malloc");
  for (size_t i = 0; i < ELEMENTS; i++) {
    seed = seed * 1664525u + 1013904223u;
    h[i] = 0.5f + (float)(seed >> 8) * (99.5f / 16777216.0f);
  }
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            (size_t)ELEMENTS * sizeof(float), h, &err);
  DIE_IF(err, "clCreateBuffer");
  free(h);
  return m;
}

/* Best of RUNS launches of kernel name, in elements per second. */
static double run(cl_command_queue q, cl_program p, const char *name,
                  int width, cl_mem x, cl_mem y, cl_mem r) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  DIE_IF(err, "clCreateKernel");
  clSetKernelArg(k, 0, sizeof(cl_mem), &x);
  clSetKernelArg(k, 1, sizeof(cl_mem), &y);
  clSetKernelArg(k, 2, sizeof(cl_mem), &r);
  size_t global = ELEMENTS / width;
  double best = 0;
  for (int i = 0; i <= RUNS; i++) {   /* the first launch warms up */
    double t0 = now_s();
    DIE_IF(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL,
                                  NULL), "clEnqueueNDRangeKernel");
    DIE_IF(clFinish(q), "clFinish");
    double rate = ELEMENTS / (now_s() - t0);
    if (i > 0 && rate > best)
      best = rate;
  }
  clReleaseKernel(k);
  return best;
}

int main(void) {
  cl_platform_id plat;
  cl_device_id dev;
  DIE_IF(clGetPlatformIDs(1, &plat, NULL), "clGetPlatformIDs");
  DIE_IF(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL),
         "clGetDeviceIDs");
  char pname[256] = "", dname[256] = "";
  clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
  printf("platform: %s, device: %s, %d elements\n", pname, dname, ELEMENTS);
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  DIE_IF(err, "clCreateContext");
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL,
                                                          &err);
  DIE_IF(err, "clCreateCommandQueueWithProperties");
  cl_program p = build(ctx, dev);
  cl_mem x = input(ctx, 1), y = input(ctx, 2);
  cl_mem r = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY,
                            (size_t)ELEMENTS * sizeof(float), NULL, &err);
  DIE_IF(err, "clCreateBuffer");
  for (size_t f = 0; f < sizeof(funcs) / sizeof(funcs[0]); f++) {
    for (int w = 0; w < 2; w++) {
      char name[64];
      snprintf(name, sizeof name, "%s_%s", funcs[f], w ? "float16" : "float");
      double rate = run(q, p, name, w ? 16 : 1, x, y, r);
      printf("| %-44s | %12.3e | %-9s |\n", name, rate, "elem/s");
      fflush(stdout);
    }
  }
  clReleaseMemObject(x);
  clReleaseMemObject(y);
  clReleaseMemObject(r);
  clReleaseProgram(p);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}
