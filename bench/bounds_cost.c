/* This file contains skein-bench-bounds: the cost of bounds-checked
 * kernels (-skein-bounds-check, docs/reliability.md). Each kernel of a
 * small set in the styles of real libraries (streaming copies, a stencil,
 * a gather, a local-memory tree reduction, a tiled matrix multiply, a
 * local-memory transpose, a histogram with local atomics, vector loads)
 * is built twice from the same source, without and with the option, and
 * the two are timed alternately in one run (best of REPS each, profiling
 * times), so that the ratio is not skewed by the machine's load drifting.
 * Each checked run's output is also compared with the unchecked one's: a
 * check that changed a result is reported and the program fails.
 *
 * usage: skein-bench-bounds [kernel-name-filter]
 * Skein only (the option is Skein's); OCL_ICD_VENDORS picks the build. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (16u << 20)   /* elements of the streaming kernels */
#define MAT 1024        /* matrix side of matmul and transpose */
#define REPS 5

static const char *source =
    "__kernel void copy(__global const float *in, __global float *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i];\n"
    "}\n"
    "__kernel void saxpy(__global const float *x, __global float *y,\n"
    "                    float a) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + y[i];\n"
    "}\n"
    "__kernel void copy4(__global const float4 *in, __global float4 *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * 2.0f;\n"
    "}\n"
    "__kernel void vload(__global const float *in, __global float *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  vstore4(vload4(i, in) + 1.0f, i, out);\n"
    "}\n"
    "__kernel void stencil(__global const float *in, __global float *out,\n"
    "                      uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float l = i > 0 ? in[i - 1] : 0.0f;\n"
    "  float r = i + 1 < n ? in[i + 1] : 0.0f;\n"
    "  out[i] = 0.25f * l + 0.5f * in[i] + 0.25f * r;\n"
    "}\n"
    "__kernel void gather(__global const float *in, __global const uint *idx,\n"
    "                     __global float *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[idx[i]];\n"
    "}\n"
    "__kernel void rowsum(__global const float *m, __global float *out,\n"
    "                     uint cols) {\n"
    "  size_t r = get_global_id(0);\n"
    "  float s = 0.0f;\n"
    "  for (uint c = 0; c < cols; c++) s += m[r * cols + c];\n"
    "  out[r] = s;\n"
    "}\n"
    "__kernel void tree(__global const float *in, __global float *out,\n"
    "                   __local float *l) {\n"
    "  size_t lid = get_local_id(0);\n"
    "  l[lid] = in[get_global_id(0)];\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (lid < s) l[lid] += l[lid + s];\n"
    "  }\n"
    "  if (lid == 0) out[get_group_id(0)] = l[0];\n"
    "}\n"
    "#define TS 16\n"
    "__kernel void matmul(__global const float *a, __global const float *b,\n"
    "                     __global float *c, uint n) {\n"
    "  __local float ta[TS][TS], tb[TS][TS];\n"
    "  size_t lx = get_local_id(0), ly = get_local_id(1);\n"
    "  size_t col = get_global_id(0), row = get_global_id(1);\n"
    "  float acc = 0.0f;\n"
    "  for (uint t = 0; t < n / TS; t++) {\n"
    "    ta[ly][lx] = a[row * n + t * TS + lx];\n"
    "    tb[ly][lx] = b[(t * TS + ly) * n + col];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (uint k = 0; k < TS; k++) acc += ta[ly][k] * tb[k][lx];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  c[row * n + col] = acc;\n"
    "}\n"
    "__kernel void transpose(__global const float *in, __global float *out,\n"
    "                        uint n) {\n"
    "  __local float t[TS][TS + 1];\n"
    "  size_t lx = get_local_id(0), ly = get_local_id(1);\n"
    "  size_t gx = get_group_id(0) * TS, gy = get_group_id(1) * TS;\n"
    "  t[ly][lx] = in[(gy + ly) * n + gx + lx];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[(gx + ly) * n + gy + lx] = t[lx][ly];\n"
    "}\n"
    "__kernel void histogram(__global const uint *in, __global uint *bins) {\n"
    "  __local uint h[256];\n"
    "  size_t lid = get_local_id(0);\n"
    "  h[lid] = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  atomic_inc(&h[in[get_global_id(0)] & 255]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  atomic_add(&bins[lid], h[lid]);\n"
    "}\n";

struct kernel_case {
  const char *name;
  unsigned dims;
  size_t global[2], local[2];
  double elements;   /* per launch, for the Melem/s figure */
  size_t out_bytes;
};

static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;
static cl_mem buf_in, buf_idx, buf_out, buf_b;

static void check(cl_int err, const char *what) {
  if (err != CL_SUCCESS) {
    fprintf(stderr, "skein-bench-bounds: %s failed (%d)\n", what, err);
    exit(1);
  }
}

static cl_program build(const char *options) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  check(err, "clCreateProgramWithSource");
  if (clBuildProgram(p, 1, &dev, options, NULL, NULL) != CL_SUCCESS) {
    static char log[16384];
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "build (%s) failed:\n%s\n", options, log);
    exit(1);
  }
  return p;
}

/* The kernel's arguments: the output of every case is buf_out. */
static cl_kernel make(cl_program p, const struct kernel_case *c) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, c->name, &err);
  check(err, c->name);
  cl_uint n = N, mat = MAT;
  float a = 1.5f;
  const char *name = c->name;
  check(clSetKernelArg(k, 0, sizeof buf_in, &buf_in), "arg 0");
  if (!strcmp(name, "gather")) {
    check(clSetKernelArg(k, 1, sizeof buf_idx, &buf_idx), "arg 1");
    check(clSetKernelArg(k, 2, sizeof buf_out, &buf_out), "arg 2");
  } else if (!strcmp(name, "histogram")) {
    check(clSetKernelArg(k, 0, sizeof buf_idx, &buf_idx), "arg 0");
    check(clSetKernelArg(k, 1, sizeof buf_out, &buf_out), "arg 1");
  } else if (!strcmp(name, "matmul")) {
    check(clSetKernelArg(k, 1, sizeof buf_b, &buf_b), "arg 1");
    check(clSetKernelArg(k, 2, sizeof buf_out, &buf_out), "arg 2");
    check(clSetKernelArg(k, 3, sizeof mat, &mat), "arg 3");
  } else {
    check(clSetKernelArg(k, 1, sizeof buf_out, &buf_out), "arg 1");
    if (!strcmp(name, "saxpy"))
      check(clSetKernelArg(k, 2, sizeof a, &a), "arg 2");
    else if (!strcmp(name, "stencil"))
      check(clSetKernelArg(k, 2, sizeof n, &n), "arg 2");
    else if (!strcmp(name, "rowsum") || !strcmp(name, "transpose"))
      check(clSetKernelArg(k, 2, sizeof mat, &mat), "arg 2");
    else if (!strcmp(name, "tree"))
      check(clSetKernelArg(k, 2, c->local[0] * sizeof(float), NULL), "arg 2");
  }
  return k;
}

static double time_once(cl_kernel k, const struct kernel_case *c) {
  cl_event ev;
  check(clEnqueueNDRangeKernel(q, k, c->dims, NULL, c->global, c->local, 0,
                               NULL, &ev),
        c->name);
  check(clWaitForEvents(1, &ev), "wait");
  cl_int status;
  clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                 NULL);
  check(status, "command status");
  cl_ulong t0, t1;
  clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
  clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
  clReleaseEvent(ev);
  return (double)(t1 - t0) * 1e-9;
}

/* The output of one run of k from a fresh zeroed (or y-initialised)
 * output buffer, for comparing the checked run with the unchecked one. */
static void *output_of(cl_kernel k, const struct kernel_case *c) {
  float one = 1.0f;
  check(clEnqueueFillBuffer(q, buf_out, &one, sizeof one, 0, N * sizeof(float),
                            0, NULL, NULL),
        "fill");
  time_once(k, c);
  void *host = malloc(c->out_bytes);
  check(clEnqueueReadBuffer(q, buf_out, CL_TRUE, 0, c->out_bytes, host, 0, NULL,
                            NULL),
        "read");
  return host;
}

int main(int argc, char **argv) {
  const char *filter = argc > 1 ? argv[1] : NULL;
  cl_platform_id platform;
  check(clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs");
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL),
        "clGetDeviceIDs");
  char name[256];
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  printf("device: %s; best of %d, unchecked and checked alternately\n", name,
         REPS);
  cl_int err;
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  check(err, "clCreateContext");
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE,
                                 0};
  q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
  check(err, "clCreateCommandQueueWithProperties");

  float *host = malloc((size_t)N * sizeof(float));
  cl_uint *idx = malloc((size_t)N * sizeof(cl_uint));
  unsigned seed = 12345;
  for (size_t i = 0; i < N; i++) {
    host[i] = (float)(i % 1000) * 0.001f;
    seed = seed * 1103515245u + 12345u;
    idx[i] = (seed >> 4) % N;
  }
  buf_in = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, N * sizeof(float), host,
                          &err);
  check(err, "buffer");
  buf_idx = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, N * sizeof(cl_uint), idx,
                           &err);
  check(err, "buffer");
  buf_out = clCreateBuffer(ctx, 0, N * sizeof(float), NULL, &err);
  check(err, "buffer");
  buf_b = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, MAT * MAT * sizeof(float),
                         host, &err);
  check(err, "buffer");
  free(host);
  free(idx);

  const struct kernel_case cases[] = {
      {"copy", 1, {N}, {256}, N, N * 4},
      {"saxpy", 1, {N}, {256}, N, N * 4},
      {"copy4", 1, {N / 4}, {256}, N, N * 4},
      {"vload", 1, {N / 4}, {256}, N, N * 4},
      {"stencil", 1, {N}, {256}, N, N * 4},
      {"gather", 1, {N}, {256}, N, N * 4},
      {"rowsum", 1, {MAT}, {64}, (double)MAT * MAT, MAT * 4},
      {"tree", 1, {N}, {256}, N, N / 256 * 4},
      {"matmul", 2, {MAT, MAT}, {16, 16}, (double)MAT * MAT * MAT,
       MAT * MAT * 4},
      {"transpose", 2, {MAT, MAT}, {16, 16}, (double)MAT * MAT, MAT * MAT * 4},
      {"histogram", 1, {N}, {256}, N, 256 * 4},
  };
  cl_program plain = build("");
  cl_program checked = build("-skein-bounds-check");
  printf("%-10s %14s %14s %7s\n", "kernel", "plain Melem/s", "checked", "cost");
  int failed = 0;
  double log_sum = 0;
  int counted = 0;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const struct kernel_case *c = &cases[i];
    if (filter && !strstr(c->name, filter))
      continue;
    cl_kernel kp = make(plain, c), kc = make(checked, c);
    if (strcmp(c->name, "histogram")) {   /* atomics accumulate: skip */
      void *a = output_of(kp, c), *b = output_of(kc, c);
      if (memcmp(a, b, c->out_bytes)) {
        printf("%-10s checked output differs from unchecked\n", c->name);
        failed = 1;
      }
      free(a);
      free(b);
    }
    double best_p = 1e30, best_c = 1e30;
    time_once(kp, c);
    time_once(kc, c);
    for (int r = 0; r < REPS; r++) {
      double tp = time_once(kp, c), tc = time_once(kc, c);
      best_p = tp < best_p ? tp : best_p;
      best_c = tc < best_c ? tc : best_c;
    }
    printf("%-10s %14.1f %14.1f %6.2fx\n", c->name, c->elements / best_p / 1e6,
           c->elements / best_c / 1e6, best_c / best_p);
    log_sum += log(best_c / best_p);
    counted++;
    clReleaseKernel(kp);
    clReleaseKernel(kc);
  }
  if (counted)
    printf("geometric mean cost %.2fx\n", exp(log_sum / counted));
  clReleaseProgram(plain);
  clReleaseProgram(checked);
  clReleaseMemObject(buf_in);
  clReleaseMemObject(buf_idx);
  clReleaseMemObject(buf_out);
  clReleaseMemObject(buf_b);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return failed;
}
