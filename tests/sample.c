/* This file contains the sample the set-up command runs after installing
 * Skein: it finds the Skein platform among the installed ones, runs a
 * SAXPY kernel over a million floats and checks every result. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source =
    "__kernel void saxpy(float a, __global const float *x,\n"
    "                    __global float *y) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + y[i];\n"
    "}\n";

static int fail(const char *what, cl_int err) {
  fprintf(stderr, "skein-sample: %s failed (%d)\n", what, err);
  return 1;
}

int main(void) {
  cl_platform_id platforms[16], skein = NULL;
  cl_uint n = 0;
  cl_int err = clGetPlatformIDs(16, platforms, &n);
  if (err)
    return fail("clGetPlatformIDs", err);
  for (cl_uint i = 0; i < n && i < 16; i++) {
    char name[64] = "";
    clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (!strcmp(name, "Skein"))
      skein = platforms[i];
  }
  if (!skein)
    return fail("finding the Skein platform", CL_PLATFORM_NOT_FOUND_KHR);
  cl_device_id dev;
  if ((err = clGetDeviceIDs(skein, CL_DEVICE_TYPE_CPU, 1, &dev, NULL)))
    return fail("clGetDeviceIDs", err);
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  if (err)
    return fail("clCreateContext", err);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
  if (err)
    return fail("clCreateCommandQueueWithProperties", err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  if (err)
    return fail("clCreateProgramWithSource", err);
  if ((err = clBuildProgram(prog, 1, &dev, "", NULL, NULL)))
    return fail("clBuildProgram", err);
  cl_kernel k = clCreateKernel(prog, "saxpy", &err);
  if (err)
    return fail("clCreateKernel", err);

  enum { N = 1 << 20 };
  float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  for (int i = 0; i < N; i++) {
    x[i] = (float)i;
    y[i] = (float)(N - i);
  }
  cl_mem bx = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY,
                             N * sizeof *x, x, &err);
  cl_mem by = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, N * sizeof *y, y, &err);
  float a = 2.0f;
  clSetKernelArg(k, 0, sizeof a, &a);
  clSetKernelArg(k, 1, sizeof bx, &bx);
  clSetKernelArg(k, 2, sizeof by, &by);
  size_t global = N;
  if ((err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL,
                                    NULL)))
    return fail("clEnqueueNDRangeKernel", err);
  float *out = malloc(N * sizeof *out);
  if ((err = clEnqueueReadBuffer(q, by, CL_TRUE, 0, N * sizeof *out, out, 0,
                                 NULL, NULL)))
    return fail("clEnqueueReadBuffer", err);
  int wrong = 0;
  for (int i = 0; i < N; i++)
    if (out[i] != a * x[i] + y[i])
      wrong++;
  char dev_name[256] = "";
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dev_name, dev_name, NULL);
  printf("skein-sample: saxpy over %d floats on '%s': %s (%d wrong)\n", N,
         dev_name, wrong ? "FAILED" : "verified", wrong);
  clReleaseMemObject(bx);
  clReleaseMemObject(by);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  free(x);
  free(y);
  free(out);
  return wrong != 0;
}
