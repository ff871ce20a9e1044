/* This file is skein-bench-pipes: the throughput of pipes in packets per
 * second, for 4-byte packets:
 *   write         N work-items each write one packet (write_pipe) into a
 *                 pipe that holds them all;
 *   read          N work-items each read one of them back;
 *   group write   the same through work_group_reserve_write_pipe (one
 *                 reservation per group of 64, fiber mode);
 *   pair          a producer and a consumer kernel at the same time on
 *                 an out-of-order queue through a pipe of 1024 packets:
 *                 G groups of 64 work-items, each moving K packets and
 *                 retrying where the pipe is full or empty;
 *   copy          a kernel copying N ints from buffer to buffer, for
 *                 scale (one packet's bytes per work-item).
 * Each figure is the best of 5 runs, from enqueue to completion.
 * Usage: skein-bench-pipes [N] (default 4M; the pair moves N packets). */
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
  "kernel void w(write_only pipe int p, global int *bad) {\n"
  "  int v = get_global_id(0);\n"
  "  if (write_pipe(p, &v)) atomic_inc(bad);\n"
  "}\n"
  "kernel void r(read_only pipe int p, global int *out, global int *bad) {\n"
  "  int v;\n"
  "  if (read_pipe(p, &v)) atomic_inc(bad); else out[get_global_id(0)] = v;\n"
  "}\n"
  "kernel void wg(write_only pipe int p, global int *bad) {\n"
  "  int v = get_global_id(0);\n"
  "  reserve_id_t id = work_group_reserve_write_pipe(p, get_local_size(0));\n"
  "  if (!is_valid_reserve_id(id) || write_pipe(p, id, get_local_id(0), &v))\n"
  "    atomic_inc(bad);\n"
  "  work_group_commit_write_pipe(p, id);\n"
  "}\n"
  "kernel void produce(write_only pipe int p, int k) {\n"
  "  int base = get_global_id(0) * k;\n"
  "  for (int i = 0; i < k; i++) {\n"
  "    int v = base + i;\n"
  "    while (write_pipe(p, &v)) ;\n"
  "  }\n"
  "}\n"
  "kernel void consume(read_only pipe int p, int k, global int *sum) {\n"
  "  int s = 0;\n"
  "  for (int i = 0; i < k; i++) {\n"
  "    int v;\n"
  "    while (read_pipe(p, &v)) ;\n"
  "    s += v;\n"
  "  }\n"
  "  atomic_add(sum, s);\n"
  "}\n"
  "kernel void copy(global const int *a, global int *b) {\n"
  "  size_t i = get_global_id(0);\n"
  "  b[i] = a[i];\n"
  "}\n";

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static cl_context ctx;
static cl_command_queue q, ooo;
static cl_program prog;

static cl_kernel kernel(const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  CHECK(err);
  return k;
}

static void report(const char *what, double best, double packets) {
  printf("%-12s %8.1f M packets/s  (%.3f ms for %.0f)\n", what,
         packets / best / 1e6, best * 1e3, packets);
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)atol(argv[1]) : (size_t)4 << 20;
  n = (n + 63) / 64 * 64;
  cl_platform_id plat;
  cl_device_id dev;
  cl_int err;
  CHECK(clGetPlatformIDs(1, &plat, NULL));
  CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
  char name[256];
  CHECK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL));
  cl_uint units;
  CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units,
                        &units, NULL));
  printf("device: %s, %u compute units; %zu packets of 4 bytes\n", name,
         units, n);
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK(err);
  q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
  CHECK(err);
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                 CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  ooo = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
  CHECK(err);
  const char *s = src;
  prog = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(prog, 1, &dev, "-cl-std=CL3.0", NULL, NULL));

  cl_mem pipe = clCreatePipe(ctx, 0, 4, (cl_uint)n, NULL, &err);
  CHECK(err);
  cl_mem small = clCreatePipe(ctx, 0, 4, 1024, NULL, &err);
  CHECK(err);
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
  CHECK(err);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, NULL, &err);
  CHECK(err);
  cl_mem bad = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4, NULL, &err);
  CHECK(err);
  cl_mem sum = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4, NULL, &err);
  CHECK(err);
  int zero = 0;
  CHECK(clEnqueueFillBuffer(q, sum, &zero, 4, 0, 4, 0, NULL, NULL));
  CHECK(clEnqueueFillBuffer(q, a, &zero, 4, 0, n * 4, 0, NULL, NULL));
  CHECK(clEnqueueFillBuffer(q, bad, &zero, 4, 0, 4, 0, NULL, NULL));

  cl_kernel kw = kernel("w"), kr = kernel("r"), kg = kernel("wg");
  cl_kernel kp = kernel("produce"), kc = kernel("consume");
  cl_kernel kcopy = kernel("copy");
  CHECK(clSetKernelArg(kw, 0, sizeof pipe, &pipe));
  CHECK(clSetKernelArg(kw, 1, sizeof bad, &bad));
  CHECK(clSetKernelArg(kr, 0, sizeof pipe, &pipe));
  CHECK(clSetKernelArg(kr, 1, sizeof b, &b));
  CHECK(clSetKernelArg(kr, 2, sizeof bad, &bad));
  CHECK(clSetKernelArg(kg, 0, sizeof pipe, &pipe));
  CHECK(clSetKernelArg(kg, 1, sizeof bad, &bad));
  CHECK(clSetKernelArg(kcopy, 0, sizeof a, &a));
  CHECK(clSetKernelArg(kcopy, 1, sizeof b, &b));
  size_t local = 64, groups = units * 4, per = n / (groups * local);
  if (per == 0)
    per = 1;
  int k = (int)per;
  size_t items = groups * local;
  CHECK(clSetKernelArg(kp, 0, sizeof small, &small));
  CHECK(clSetKernelArg(kp, 1, sizeof k, &k));
  CHECK(clSetKernelArg(kc, 0, sizeof small, &small));
  CHECK(clSetKernelArg(kc, 1, sizeof k, &k));
  CHECK(clSetKernelArg(kc, 2, sizeof sum, &sum));
  CHECK(clFinish(q));

  double best[5] = {1e9, 1e9, 1e9, 1e9, 1e9};
  for (int run = 0; run < 6; run++) {   /* run 0 warms up */
    double t0 = now();
    CHECK(clEnqueueNDRangeKernel(q, kw, 1, NULL, &n, &local, 0, NULL, NULL));
    CHECK(clFinish(q));
    double t1 = now();
    CHECK(clEnqueueNDRangeKernel(q, kr, 1, NULL, &n, &local, 0, NULL, NULL));
    CHECK(clFinish(q));
    double t2 = now();
    CHECK(clEnqueueNDRangeKernel(q, kg, 1, NULL, &n, &local, 0, NULL, NULL));
    CHECK(clFinish(q));
    double t3 = now();
    /* Drain the group writes (not timed). */
    CHECK(clEnqueueNDRangeKernel(q, kr, 1, NULL, &n, &local, 0, NULL, NULL));
    CHECK(clFinish(q));
    double t4 = now();
    CHECK(clEnqueueNDRangeKernel(ooo, kc, 1, NULL, &items, &local, 0, NULL,
                                 NULL));
    CHECK(clEnqueueNDRangeKernel(ooo, kp, 1, NULL, &items, &local, 0, NULL,
                                 NULL));
    CHECK(clFinish(ooo));
    double t5 = now();
    CHECK(clEnqueueNDRangeKernel(q, kcopy, 1, NULL, &n, &local, 0, NULL,
                                 NULL));
    CHECK(clFinish(q));
    double t6 = now();
    if (run == 0)
      continue;
    double t[5] = {t1 - t0, t2 - t1, t3 - t2, t5 - t4, t6 - t5};
    for (int i = 0; i < 5; i++)
      if (t[i] < best[i])
        best[i] = t[i];
  }
  int failures;
  CHECK(clEnqueueReadBuffer(q, bad, CL_TRUE, 0, 4, &failures, 0, NULL,
                            NULL));
  report("write", best[0], (double)n);
  report("read", best[1], (double)n);
  report("group write", best[2], (double)n);
  report("pair", best[3], (double)items * k);
  report("copy", best[4], (double)n);
  /* Every write and read above must have succeeded. */
  if (failures) {
    fprintf(stderr, "%d pipe operations failed\n", failures);
    return 1;
  }
  return 0;
}
