/* This file contains skein-bench-collectives: elements per second of
 * work_group_reduce_add, work_group_scan_inclusive_add and a hand-written
 * local-memory tree reduction (plus a plain copy for scale) over 64M ints
 * and floats in work-groups of 256, and of sub_group_reduce_add,
 * sub_group_scan_inclusive_add, sub_group_broadcast (of lane 1),
 * sub_group_shuffle_xor (by 1) and sub_group_shuffle_down (by 1), on
 * whichever platform OCL_ICD_VENDORS selects. The sub-group kernels
 * write one result per work-item, so they move the copy's bytes: their
 * goal is the copy's throughput (issue #15). Collectives need OpenCL C
 * 2.0/3.0 with __opencl_c_work_group_collective_functions, the sub-group
 * ones __opencl_c_subgroups (shuffle_xor also cl_khr_subgroup_shuffle,
 * shuffle_down cl_khr_subgroup_shuffle_relative); a kernel the platform
 * lacks is reported as not run. Best of 3, profiling times. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (64u << 20)
#define WG 256

static const char *source =
    "__kernel void copy(__global const T *in, __global T *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i];\n"
    "}\n"
    "__kernel void tree(__global const T *in, __global T *out,\n"
    "                   __local T *l) {\n"
    "  size_t lid = get_local_id(0);\n"
    "  l[lid] = in[get_global_id(0)];\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (lid < s) l[lid] += l[lid + s];\n"
    "  }\n"
    "  if (lid == 0) out[get_group_id(0)] = l[0];\n"
    "}\n"
    "#ifdef COLLECTIVES\n"
    "__kernel void reduce(__global const T *in, __global T *out) {\n"
    "  T r = work_group_reduce_add(in[get_global_id(0)]);\n"
    "  if (get_local_id(0) == 0) out[get_group_id(0)] = r;\n"
    "}\n"
    "__kernel void scan(__global const T *in, __global T *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = work_group_scan_inclusive_add(in[i]);\n"
    "}\n"
    "#endif\n"
    "#ifdef SUBGROUPS\n"
    "__kernel void sg_reduce(__global const T *in, __global T *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = sub_group_reduce_add(in[i]);\n"
    "}\n"
    "__kernel void sg_scan(__global const T *in, __global T *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = sub_group_scan_inclusive_add(in[i]);\n"
    "}\n"
    "__kernel void sg_broadcast(__global const T *in, __global T *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = sub_group_broadcast(in[i], 1u);\n"
    "}\n"
    "#endif\n"
    "#ifdef SHUFFLE\n"
    "__kernel void sg_shuffle_xor(__global const T *in, __global T *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = sub_group_shuffle_xor(in[i], 1u);\n"
    "}\n"
    "#endif\n"
    "#ifdef RELATIVE\n"
    "__kernel void sg_shuffle_down(__global const T *in, __global T *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = sub_group_shuffle_down(in[i], 1u);\n"
    "}\n"
    "#endif\n";

static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;

static int check(cl_int err, const char *what) {
  if (err != CL_SUCCESS) {
    fprintf(stderr, "skein-bench-collectives: %s failed (%d)\n", what, err);
    exit(1);
  }
  return 0;
}

/* Seconds of the best of 3 runs of k over N items. */
static double time_kernel(cl_kernel k) {
  size_t global = N, local = WG;
  double best = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    cl_event ev;
    check(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, &ev),
          "enqueue");
    check(clWaitForEvents(1, &ev), "wait");
    cl_ulong t0, t1;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0,
                            NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    clReleaseEvent(ev);
    double s = (double)(t1 - t0) * 1e-9;
    if (s < best)
      best = s;
  }
  return best;
}

/* Whether the device lists name among its OpenCL C features (query
 * CL_DEVICE_OPENCL_C_FEATURES) or extensions (CL_DEVICE_EXTENSIONS_WITH_
 * VERSION). */
static int has_entry(cl_device_info query, const char *name) {
  size_t size = 0;
  if (clGetDeviceInfo(dev, query, 0, NULL, &size) || !size)
    return 0;
  cl_name_version *f = malloc(size);
  clGetDeviceInfo(dev, query, size, f, NULL);
  int found = 0;
  for (size_t i = 0; i < size / sizeof *f; i++)
    found |= !strcmp(f[i].name, name);
  free(f);
  return found;
}

static void run_type(const char *type, size_t elem) {
  int coll = has_entry(CL_DEVICE_OPENCL_C_FEATURES,
                       "__opencl_c_work_group_collective_functions");
  int sub = has_entry(CL_DEVICE_OPENCL_C_FEATURES, "__opencl_c_subgroups");
  int shuffle =
      sub && has_entry(CL_DEVICE_EXTENSIONS_WITH_VERSION,
                       "cl_khr_subgroup_shuffle");
  int relative =
      sub && has_entry(CL_DEVICE_EXTENSIONS_WITH_VERSION,
                       "cl_khr_subgroup_shuffle_relative");
  char options[160];
  snprintf(options, sizeof options, "-DT=%s%s%s%s%s%s", type,
           coll || sub ? " -cl-std=CL3.0" : "",
           coll ? " -DCOLLECTIVES" : "", sub ? " -DSUBGROUPS" : "",
           shuffle ? " -DSHUFFLE" : "", relative ? " -DRELATIVE" : "");
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  check(err, "clCreateProgramWithSource");
  if (clBuildProgram(p, 1, &dev, options, NULL, NULL) != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, "build failed:\n%s\n", log);
    exit(1);
  }
  void *host = calloc(N, elem);
  cl_mem in = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, N * elem, host, &err);
  check(err, "clCreateBuffer");
  cl_mem out = clCreateBuffer(ctx, 0, N * elem, NULL, &err);
  check(err, "clCreateBuffer");
  const char *names[] = {"copy",      "tree",         "reduce",
                         "scan",      "sg_reduce",    "sg_scan",
                         "sg_broadcast", "sg_shuffle_xor",
                         "sg_shuffle_down"};
  const int present[] = {1, 1, coll, coll, sub, sub, sub, shuffle, relative};
  for (int i = 0; i < 9; i++) {
    if (!present[i]) {
      printf("%-6s %-15s not run (the device lacks it)\n", type, names[i]);
      continue;
    }
    cl_kernel k = clCreateKernel(p, names[i], &err);
    check(err, names[i]);
    clSetKernelArg(k, 0, sizeof in, &in);
    clSetKernelArg(k, 1, sizeof out, &out);
    if (i == 1)
      clSetKernelArg(k, 2, WG * elem, NULL);
    double s = time_kernel(k);
    printf("%-6s %-15s %10.1f Melem/s\n", type, names[i], N / s / 1e6);
    clReleaseKernel(k);
  }
  clReleaseMemObject(in);
  clReleaseMemObject(out);
  clReleaseProgram(p);
  free(host);
}

int main(void) {
  cl_platform_id platform;
  check(clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs");
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL),
        "clGetDeviceIDs");
  char name[256];
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, NULL);
  printf("platform: %s, %u M elements, work-groups of %d\n", name, N >> 20, WG);
  cl_int err;
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  check(err, "clCreateContext");
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
  check(err, "clCreateCommandQueueWithProperties");
  run_type("int", sizeof(int));
  run_type("float", sizeof(float));
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}
