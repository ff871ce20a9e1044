/* This file is skein-bench-device-enqueue: the cost of a device-side
 * enqueue_kernel compared with the host's clEnqueueNDRangeKernel. It
 * times, per launch of a one-work-item kernel that stores one int:
 *   host round trip  clEnqueueNDRangeKernel + clFinish, one at a time;
 *   host batch       R clEnqueueNDRangeKernel on an in-order queue, then
 *                    one clFinish;
 *   device fan-out   one parent work-item enqueues R children (NO_WAIT);
 *   device chain     each child enqueues the next, R deep;
 * and per child of R / 100 (at least 2) one-work-item children that each
 * run 20 000 xorshift steps (about 30 us), enqueued by one
 * parent with NO_WAIT (busy fan-out): independent children that run side
 * by side take less per child than one at a time (compare with
 * SKEIN_DQ_SERIAL=1 in the same session).
 * The device figures subtract one empty parent launch. Best of 5 runs.
 * Usage: skein-bench-device-enqueue [R] (default 10000). */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(x)                                                           \
  do {                                                                     \
    cl_int e_ = (x);                                                       \
    if (e_ != CL_SUCCESS) {                                                \
      fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, e_);     \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

static const char src[] =
  "kernel void tiny(global int *a) { a[0] = 1; }\n"
  "kernel void fan(global int *a, int r) {\n"
  "  queue_t q = get_default_queue();\n"
  "  for (int k = 0; k < r; k++)\n"
  "    if (enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
  "                       ^{ a[1] = k; }) != CLK_SUCCESS)\n"
  "      { a[2] = -1; a[3] = k; }\n"
  "}\n"
  "void step(queue_t q, global int *a, int k, int r) {\n"
  "  a[1] = k;\n"
  "  if (k + 1 < r &&\n"
  "      enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
  "                     ^{ step(q, a, k + 1, r); }) != CLK_SUCCESS)\n"
  "    { a[2] = -2; a[3] = k; }\n"
  "}\n"
  "kernel void chain(global int *a, int r) {\n"
  "  step(get_default_queue(), a, 0, r);\n"
  "}\n"
  /* A xorshift walk: LLVM folds unrolled steps of a linear
   * congruential one into one multiply-add, but not these. */
  "kernel void busy(global int *a, int r) {\n"
  "  queue_t q = get_default_queue();\n"
  "  for (int k = 0; k < r; k++)\n"
  "    if (enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
  "                       ^{ uint x = k + 1;\n"
  "                          for (int i = 0; i < 20000; i++) {\n"
  "                            x ^= x << 13; x ^= x >> 17;\n"
  "                            x ^= x << 5; }\n"
  "                          a[1] = x; }) != CLK_SUCCESS)\n"
  "      { a[2] = -3; a[3] = k; }\n"
  "}\n";

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  int r = argc > 1 ? atoi(argv[1]) : 10000;
  cl_platform_id plat;
  cl_device_id dev;
  cl_int err;
  CHECK(clGetPlatformIDs(1, &plat, NULL));
  CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL,
                                                          &err);
  CHECK(err);
  cl_uint max_size = 0;
  CHECK(clGetDeviceInfo(dev, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE,
                        sizeof max_size, &max_size, NULL));
  cl_queue_properties dp[] = {
      CL_QUEUE_PROPERTIES,
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE |
          CL_QUEUE_ON_DEVICE_DEFAULT,
      CL_QUEUE_SIZE, max_size, 0};
  cl_command_queue dq = clCreateCommandQueueWithProperties(ctx, dev, dp,
                                                           &err);
  CHECK(err);
  cl_uint qsize = 0;
  CHECK(clGetCommandQueueInfo(dq, CL_QUEUE_SIZE, sizeof qsize, &qsize, NULL));
  printf("device queue: %u bytes\n", qsize);
  const char *s = src;
  cl_program p = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(p, 1, &dev, "-cl-std=CL2.0", NULL, NULL));
  int init[4] = {0, 0, 0, 0};
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            sizeof init, init, &err);
  CHECK(err);
  cl_kernel tiny = clCreateKernel(p, "tiny", &err);
  CHECK(err);
  cl_kernel fan = clCreateKernel(p, "fan", &err);
  CHECK(err);
  cl_kernel chain = clCreateKernel(p, "chain", &err);
  CHECK(err);
  cl_kernel busy = clCreateKernel(p, "busy", &err);
  CHECK(err);
  int nbusy = r / 100 > 2 ? r / 100 : 2;
  CHECK(clSetKernelArg(busy, 0, sizeof m, &m));
  CHECK(clSetKernelArg(busy, 1, sizeof nbusy, &nbusy));
  CHECK(clSetKernelArg(tiny, 0, sizeof m, &m));
  CHECK(clSetKernelArg(fan, 0, sizeof m, &m));
  CHECK(clSetKernelArg(chain, 0, sizeof m, &m));
  size_t one = 1;
  double best[6] = {1e9, 1e9, 1e9, 1e9, 1e9, 1e9};
  int zero = 0;
  for (int run = 0; run < 5; run++) {
    double t0 = now();
    for (int k = 0; k < r; k++) {
      CHECK(clEnqueueNDRangeKernel(q, tiny, 1, NULL, &one, &one, 0, NULL,
                                   NULL));
      CHECK(clFinish(q));
    }
    double t1 = now();
    for (int k = 0; k < r; k++)
      CHECK(clEnqueueNDRangeKernel(q, tiny, 1, NULL, &one, &one, 0, NULL,
                                   NULL));
    CHECK(clFinish(q));
    double t2 = now();
    /* An empty parent: what the device figures subtract. */
    CHECK(clSetKernelArg(fan, 1, sizeof zero, &zero));
    CHECK(clEnqueueNDRangeKernel(q, fan, 1, NULL, &one, &one, 0, NULL,
                                 NULL));
    CHECK(clFinish(q));
    double t3 = now();
    CHECK(clSetKernelArg(fan, 1, sizeof r, &r));
    CHECK(clEnqueueNDRangeKernel(q, fan, 1, NULL, &one, &one, 0, NULL,
                                 NULL));
    CHECK(clFinish(q));
    double t4 = now();
    CHECK(clSetKernelArg(chain, 1, sizeof r, &r));
    CHECK(clEnqueueNDRangeKernel(q, chain, 1, NULL, &one, &one, 0, NULL,
                                 NULL));
    CHECK(clFinish(q));
    double t5 = now();
    CHECK(clEnqueueNDRangeKernel(q, busy, 1, NULL, &one, &one, 0, NULL,
                                 NULL));
    CHECK(clFinish(q));
    double t6 = now();
    double v[6] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3 - (t3 - t2),
                   t5 - t4 - (t3 - t2), t6 - t5 - (t3 - t2)};
    for (int i = 0; i < 6; i++)
      if (v[i] < best[i])
        best[i] = v[i];
  }
  int out[4];
  CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof out, out, 0, NULL,
                            NULL));
  if (out[2] < 0)
    fprintf(stderr, "warning: an enqueue_kernel of the %s failed (launch "
            "%d)\n", out[2] == -1 ? "fan-out" : out[2] == -2 ? "chain"
            : "busy fan-out", out[3]);
  printf("launches per figure: %d (best of 5)\n", r);
  printf("host round trip   %8.2f us/launch\n", best[0] / r * 1e6);
  printf("host batch        %8.2f us/launch\n", best[1] / r * 1e6);
  printf("device fan-out    %8.2f us/launch\n", best[3] / r * 1e6);
  printf("device chain      %8.2f us/launch\n", best[4] / r * 1e6);
  printf("busy fan-out      %8.2f us/child (%d children)\n",
         best[5] / nbusy * 1e6, nbusy);
  printf("empty parent      %8.2f us\n", best[2] * 1e6);
  clReleaseKernel(busy);
  clReleaseKernel(tiny);
  clReleaseKernel(fan);
  clReleaseKernel(chain);
  clReleaseMemObject(m);
  clReleaseProgram(p);
  clReleaseCommandQueue(dq);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}
