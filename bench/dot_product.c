/* This file is skein-bench-dot-product: the throughput of
 * cl_khr_integer_dot_product's packed 4x8-bit dot products against plain
 * 32-bit integer multiply-adds, in GOPS (a 4x8-bit dot product with its
 * accumulation counts 8 operations, 4 multiplies and 4 adds; a
 * multiply-add counts 2). Each work-item keeps four accumulators and runs
 * R = 256 rounds of four dot products (or multiply-adds) on register
 * operands, one of which changes each round (one add) so that nothing
 * is loop-invariant:
 *   mad     acc = x * y + acc on int (the baseline)
 *   us      acc += dot_4x8packed_us_int(x, y)     (unsigned x signed)
 *   us_sat  acc = dot_acc_sat_4x8packed_us_int(x, y, acc)
 *   ss      acc += dot_4x8packed_ss_int(x, y)
 *   uu      acc += dot_4x8packed_uu_uint(x, y)
 *   ss_sat  acc = dot_acc_sat_4x8packed_ss_int(x, y, acc)
 * N work-items (default 256K); each figure is the best of 5 runs, from
 * enqueue to completion; the results are checked against a host
 * reference for a sample of work-items.
 * Usage: skein-bench-dot-product [N] */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdint.h>
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

enum { R = 256 };

/* Built with -DOP(x,y,acc)=<expression> -DT=<accumulator type>. */
static const char src[] =
  "kernel void k(global const uint *in, global T *out) {\n"
  "  size_t i = get_global_id(0);\n"
  "  uint x = in[4 * i], y0 = in[4 * i + 1], y1 = in[4 * i + 2],\n"
  "       y2 = in[4 * i + 3];\n"
  "  T a0 = 0, a1 = 0, a2 = 0, a3 = 0;\n"
  "  for (int r = 0; r < 256; r++) {\n"
  "    a0 = OP(x, y0, a0);\n"
  "    a1 = OP(x, y1, a1);\n"
  "    a2 = OP(x, y2, a2);\n"
  "    a3 = OP(x, x, a3);\n"
  "    x += 0x01030507u;\n"
  "  }\n"
  "  out[i] = a0 ^ a1 ^ a2 ^ a3;\n"
  "}\n";

typedef struct form {
  const char *name, *op, *type;
  int ops;                      /* operations per OP */
  int64_t (*ref)(uint32_t x, uint32_t y, int64_t acc);
} form;

static int32_t sat32(int64_t v) {
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}
static int64_t dotp(uint32_t x, uint32_t y, int sx, int sy) {
  int64_t s = 0;
  for (int k = 0; k < 4; k++) {
    int a = (x >> (8 * k)) & 0xff, b = (y >> (8 * k)) & 0xff;
    if (sx && a > 127)
      a -= 256;
    if (sy && b > 127)
      b -= 256;
    s += a * b;
  }
  return s;
}
static int64_t r_mad(uint32_t x, uint32_t y, int64_t a) {
  return (int32_t)((uint32_t)a + x * y);
}
static int64_t r_us(uint32_t x, uint32_t y, int64_t a) {
  return (int32_t)((uint32_t)a + (uint32_t)dotp(x, y, 0, 1));
}
static int64_t r_us_sat(uint32_t x, uint32_t y, int64_t a) {
  return sat32(a + dotp(x, y, 0, 1));
}
static int64_t r_ss(uint32_t x, uint32_t y, int64_t a) {
  return (int32_t)((uint32_t)a + (uint32_t)dotp(x, y, 1, 1));
}
static int64_t r_uu(uint32_t x, uint32_t y, int64_t a) {
  return (uint32_t)((uint32_t)a + (uint32_t)dotp(x, y, 0, 0));
}
static int64_t r_ss_sat(uint32_t x, uint32_t y, int64_t a) {
  return sat32(a + dotp(x, y, 1, 1));
}

static const form forms[] = {
  {"mad", "((int)(x) * (int)(y) + (acc))", "int", 2, r_mad},
  {"us", "((acc) + dot_4x8packed_us_int(x, y))", "int", 8, r_us},
  {"us_sat", "dot_acc_sat_4x8packed_us_int(x, y, acc)", "int", 8, r_us_sat},
  {"ss", "((acc) + dot_4x8packed_ss_int(x, y))", "int", 8, r_ss},
  {"uu", "((acc) + dot_4x8packed_uu_uint(x, y))", "uint", 8, r_uu},
  {"ss_sat", "dot_acc_sat_4x8packed_ss_int(x, y, acc)", "int", 8, r_ss_sat},
};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The host's value of work-item i. */
static uint32_t reference(const form *f, const uint32_t *in, size_t i) {
  uint32_t x = in[4 * i];
  int64_t a[4] = {0, 0, 0, 0};
  for (int r = 0; r < R; r++) {
    a[0] = f->ref(x, in[4 * i + 1], a[0]);
    a[1] = f->ref(x, in[4 * i + 2], a[1]);
    a[2] = f->ref(x, in[4 * i + 3], a[2]);
    a[3] = f->ref(x, x, a[3]);
    x += 0x01030507u;
  }
  return (uint32_t)a[0] ^ (uint32_t)a[1] ^ (uint32_t)a[2] ^ (uint32_t)a[3];
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)atol(argv[1]) : (size_t)256 << 10;
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
  char name[256];
  cl_uint cus;
  CHECK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL));
  CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus,
                        NULL));
  printf("device: %s, %u compute units; %zu work-items x %d x 4 ops\n", name,
         cus, n, R);
  uint32_t *in = malloc(16 * n), *out = malloc(4 * n);
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < 4 * n; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    in[i] = (uint32_t)s;
  }
  cl_mem bin = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              16 * n, in, &err);
  CHECK(err);
  cl_mem bout = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 4 * n, NULL, &err);
  CHECK(err);
  double base = 0;
  for (size_t fi = 0; fi < sizeof forms / sizeof forms[0]; fi++) {
    const form *f = &forms[fi];
    char opts[256];
    snprintf(opts, sizeof opts, "-cl-std=CL3.0 \"-DOP(x,y,acc)=%s\" -DT=%s",
             f->op, f->type);
    const char *sp = src;
    cl_program p = clCreateProgramWithSource(ctx, 1, &sp, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(p, 1, &dev, opts, NULL, NULL));
    cl_kernel k = clCreateKernel(p, "k", &err);
    CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof bin, &bin));
    CHECK(clSetKernelArg(k, 1, sizeof bout, &bout));
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
      double t0 = now();
      CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL));
      CHECK(clFinish(q));
      double t = now() - t0;
      if (t < best)
        best = t;
    }
    CHECK(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, 4 * n, out, 0, NULL,
                              NULL));
    for (size_t i = 0; i < n; i += n / 97 + 1)
      if (out[i] != reference(f, in, i)) {
        fprintf(stderr, "%s: work-item %zu gave %08x, want %08x\n", f->name,
                i, out[i], reference(f, in, i));
        return 1;
      }
    double gops = (double)n * R * 4 * f->ops / best / 1e9;
    if (fi == 0)
      base = gops;
    printf("%-7s %8.1f GOPS  %8.2f G%s/s  (%.2fx the mad GOPS)\n", f->name,
           gops, gops / f->ops, fi ? "dots" : "mads", gops / base);
    CHECK(clReleaseKernel(k));
    CHECK(clReleaseProgram(p));
  }
  CHECK(clReleaseMemObject(bin));
  CHECK(clReleaseMemObject(bout));
  CHECK(clReleaseCommandQueue(q));
  CHECK(clReleaseContext(ctx));
  free(in);
  free(out);
  return 0;
}
