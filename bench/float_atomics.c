/* This file is skein-bench-float-atomics: the throughput of atomic adds
 * (cl_ext_float_atomics) in millions of atomic_fetch_add per second, for
 * int (the baseline: one `lock xadd`), float, double and half (a
 * compare-exchange loop each), in three places:
 *   global 1     every work-item adds to one global object (all cores
 *                contend for one cache line);
 *   global 4096  work-item i adds to object i % 4096 (little contention);
 *   local 1      every work-item of a group of 256 adds to one object in
 *                local memory (one core, no sharing), then one work-item
 *                adds the group's total to a global object.
 * Each work-item does R adds (R = 64); N work-items (default 1M). Each
 * figure is the best of 5 runs, from enqueue to completion, and every
 * run's sum is checked (the operands are integers, exact in every type).
 * Usage: skein-bench-float-atomics [N] */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x)                                                           \
  do {                                                                     \
    cl_int e_ = (x);                                                       \
    if (e_ != CL_SUCCESS) {                                                \
      fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, e_);     \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

enum { R = 64, SPREAD = 4096, GROUP = 256 };

/* Built with -DT=<type> -DA=atomic_<type>; every add adds 1. */
static const char src[] =
  "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
  "kernel void g(global A *acc, uint k) {\n"
  "  volatile global A *p = acc + get_global_id(0) % k;\n"
  "  for (int r = 0; r < 64; r++)\n"
  "    atomic_fetch_add_explicit(p, (T)1, memory_order_relaxed);\n"
  "}\n"
  "kernel void l(global A *acc) {\n"
  "  local A s;\n"
  "  if (get_local_id(0) == 0)\n"
  "    atomic_store_explicit(&s, (T)0, memory_order_relaxed);\n"
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"
  "  for (int r = 0; r < 64; r++)\n"
  "    atomic_fetch_add_explicit(&s, (T)1, memory_order_relaxed,\n"
  "                              memory_scope_work_group);\n"
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"
  "  if (get_local_id(0) == 0)\n"
  "    atomic_fetch_add_explicit(acc, atomic_load_explicit(&s,\n"
  "        memory_order_relaxed), memory_order_relaxed);\n"
  "}\n";

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;

/* The sum of the first k objects of a buffer of type name. */
static double sum_of(cl_mem m, const char *name, unsigned k) {
  size_t size = strcmp(name, "double") == 0 ? 8
                : strcmp(name, "half") == 0 ? 2 : 4;
  unsigned char *buf = malloc(size * k);
  CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, size * k, buf, 0, NULL, NULL));
  double s = 0;
  for (unsigned i = 0; i < k; i++) {
    if (strcmp(name, "int") == 0)
      s += ((int *)buf)[i];
    else if (size == 4)
      s += ((float *)buf)[i];
    else if (size == 8)
      s += ((double *)buf)[i];
    else
      s += (double)((_Float16 *)buf)[i];
  }
  free(buf);
  return s;
}

/* Best-of-5 M adds/s of kernel kern (k objects; local size 256 for the
 * local kernel); checks the sum where the type holds it exactly. */
static double run(cl_program p, const char *name, const char *kern,
                  unsigned k, size_t n) {
  cl_int err;
  cl_kernel kk = clCreateKernel(p, kern, &err);
  CHECK(err);
  size_t size = 8 * (size_t)SPREAD;
  cl_mem acc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, size, NULL, &err);
  CHECK(err);
  CHECK(clSetKernelArg(kk, 0, sizeof acc, &acc));
  if (kern[0] == 'g')
    CHECK(clSetKernelArg(kk, 1, sizeof k, &k));
  size_t local = GROUP;
  double best = 1e30;
  for (int rep = 0; rep < 5; rep++) {
    static const unsigned char zero = 0;
    CHECK(clEnqueueFillBuffer(q, acc, &zero, 1, 0, size, 0, NULL, NULL));
    CHECK(clFinish(q));
    double t0 = now();
    CHECK(clEnqueueNDRangeKernel(q, kk, 1, NULL, &n,
                                 kern[0] == 'l' ? &local : NULL, 0, NULL,
                                 NULL));
    CHECK(clFinish(q));
    double t = now() - t0;
    if (t < best)
      best = t;
    /* Exact where every partial sum is an integer the type holds: int
     * and double always, float below 2^24, half below 2^11 per object
     * (and per local group total). */
    double want = (double)n * R, limit =
        strcmp(name, "half") == 0 ? 2048 : strcmp(name, "float") == 0
                                               ? 16777216 : 1e300;
    double per = kern[0] == 'l' ? want : want / k;
    if (per <= limit && (kern[0] != 'l' || GROUP * R <= limit)) {
      double got = sum_of(acc, name, kern[0] == 'l' ? 1 : k);
      if (got != want) {
        fprintf(stderr, "%s %s: sum %.0f, want %.0f\n", name, kern, got,
                want);
        exit(1);
      }
    }
  }
  CHECK(clReleaseMemObject(acc));
  CHECK(clReleaseKernel(kk));
  return (double)n * R / best / 1e6;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)atol(argv[1]) : (size_t)1 << 20;
  n = (n + GROUP - 1) / GROUP * GROUP;
  cl_platform_id plat;
  cl_int err;
  CHECK(clGetPlatformIDs(1, &plat, NULL));
  CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK(err);
  q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
  CHECK(err);
  char name[256];
  cl_uint cus;
  CHECK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL));
  CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus,
                        NULL));
  printf("device: %s, %u compute units; %zu work-items x %d adds\n", name,
         cus, n, R);
  printf("%-7s %14s %14s %14s   (M atomic adds/s)\n", "type", "global 1",
         "global 4096", "local 1");
  static const char *const types[] = {"int", "float", "double", "half"};
  for (int t = 0; t < 4; t++) {
    char opts[128];
    snprintf(opts, sizeof opts, "-cl-std=CL3.0 -DT=%s -DA=atomic_%s",
             types[t], types[t]);
    const char *s = src;
    cl_program p = clCreateProgramWithSource(ctx, 1, &s, NULL, &err);
    CHECK(err);
    if (clBuildProgram(p, 1, &dev, opts, NULL, NULL) != CL_SUCCESS) {
      printf("%-7s (not built: no cl_ext_float_atomics for it?)\n",
             types[t]);
      clReleaseProgram(p);
      continue;
    }
    double g1 = run(p, types[t], "g", 1, n);
    double gs = run(p, types[t], "g", SPREAD, n);
    double l1 = run(p, types[t], "l", 1, n);
    printf("%-7s %14.1f %14.1f %14.1f\n", types[t], g1, gs, l1);
    CHECK(clReleaseProgram(p));
  }
  CHECK(clReleaseCommandQueue(q));
  CHECK(clReleaseContext(ctx));
  return 0;
}
