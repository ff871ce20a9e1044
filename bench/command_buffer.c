/* skein-bench-command-buffer: the cost of one replay of a command-buffer
 * against enqueuing the same commands one by one, in the same run. The
 * work is a chain of small kernels (K kernels over N work-items, each
 * reading what the previous wrote) and a copy: per-command overhead
 * dominates. Two patterns: each iteration waited for (clFinish: latency)
 * and ITERS iterations enqueued back to back before one clFinish
 * (throughput). Prints microseconds per iteration, median of ROUNDS.
 * Usage: skein-bench-command-buffer [kernels [work-items]]. Runs on the
 * first platform (OCL_ICD_VENDORS picks it); the replay half is skipped
 * where cl_khr_command_buffer is missing. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include "../runtime/core/command_buffer_khr.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ITERS = 2000, ROUNDS = 7 };

#define CHECK(e)                                                           \
  do {                                                                     \
    cl_int e_ = (e);                                                       \
    if (e_ != CL_SUCCESS) {                                                \
      fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #e, e_);     \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static cl_command_queue q;
static cl_kernel *ks;
static cl_mem bufs[2], copy_dst;
static size_t n, nk;
static skein_clEnqueueCommandBufferKHR_fn enqueue_cb;
static cl_command_buffer_khr cb;

/* One iteration of the work, enqueued command by command. */
static void enqueue_direct(void) {
  for (size_t i = 0; i < nk; i++)
    CHECK(clEnqueueNDRangeKernel(q, ks[i], 1, NULL, &n, NULL, 0, NULL, NULL));
  CHECK(clEnqueueCopyBuffer(q, bufs[nk % 2], copy_dst, 0, 0, n * sizeof(int),
                            0, NULL, NULL));
}

static void enqueue_replay(void) {
  CHECK(enqueue_cb(0, NULL, cb, 0, NULL, NULL));
}

/* Median microseconds per iteration: waited for each (latency) or all
 * at the end (throughput). */
static double measure(void (*fn)(void), int wait_each) {
  double t[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = now_us();
    for (int i = 0; i < ITERS; i++) {
      fn();
      if (wait_each)
        CHECK(clFinish(q));
    }
    CHECK(clFinish(q));
    t[r] = (now_us() - t0) / ITERS;
  }
  qsort(t, ROUNDS, sizeof t[0], cmp);
  return t[ROUNDS / 2];
}

int main(int argc, char **argv) {
  nk = argc > 1 ? (size_t)atoi(argv[1]) : 8;
  n = argc > 2 ? (size_t)atoi(argv[2]) : 256;
  if (nk < 1 || n < 1)
    return 2;
  cl_platform_id p;
  cl_device_id d;
  cl_int err;
  CHECK(clGetPlatformIDs(1, &p, NULL));
  CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
  char name[256];
  CHECK(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, NULL));
  cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
  CHECK(err);
  q = clCreateCommandQueueWithProperties(ctx, d, NULL, &err);
  CHECK(err);
  const char *src =
      "kernel void chain(global const int *a, global int *b) {\n"
      "  size_t i = get_global_id(0); b[i] = a[i] * 3 + 1; }\n";
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(prog, 1, &d, NULL, NULL, NULL));
  for (int i = 0; i < 2; i++) {
    bufs[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(int), NULL,
                             &err);
    CHECK(err);
  }
  copy_dst = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(int), NULL,
                            &err);
  CHECK(err);
  ks = calloc(nk, sizeof *ks);
  for (size_t i = 0; i < nk; i++) {
    ks[i] = clCreateKernel(prog, "chain", &err);
    CHECK(err);
    CHECK(clSetKernelArg(ks[i], 0, sizeof(cl_mem), &bufs[i % 2]));
    CHECK(clSetKernelArg(ks[i], 1, sizeof(cl_mem), &bufs[(i + 1) % 2]));
  }
  printf("platform %s, %zu kernels of %zu work-items + 1 copy, "
         "median of %d rounds of %d iterations\n",
         name, nk, n, ROUNDS, ITERS);
  measure(enqueue_direct, 1); /* warm-up */
  double direct_lat = measure(enqueue_direct, 1);
  double direct_thr = measure(enqueue_direct, 0);
  printf("enqueued one by one: %8.2f us/iteration waited, %8.2f us/iteration "
         "back to back\n",
         direct_lat, direct_thr);

  skein_clCreateCommandBufferKHR_fn create =
      (skein_clCreateCommandBufferKHR_fn)
          clGetExtensionFunctionAddressForPlatform(p,
                                                   "clCreateCommandBufferKHR");
  skein_clCommandNDRangeKernelKHR_fn nd =
      (skein_clCommandNDRangeKernelKHR_fn)
          clGetExtensionFunctionAddressForPlatform(p,
                                                   "clCommandNDRangeKernelKHR");
  skein_clCommandCopyBufferKHR_fn copy =
      (skein_clCommandCopyBufferKHR_fn)clGetExtensionFunctionAddressForPlatform(
          p, "clCommandCopyBufferKHR");
  skein_clFinalizeCommandBufferKHR_fn fin =
      (skein_clFinalizeCommandBufferKHR_fn)
          clGetExtensionFunctionAddressForPlatform(
              p, "clFinalizeCommandBufferKHR");
  enqueue_cb = (skein_clEnqueueCommandBufferKHR_fn)
      clGetExtensionFunctionAddressForPlatform(p, "clEnqueueCommandBufferKHR");
  /* The entry points' signatures are those of 0.9.8 (earlier revisions
   * lack the properties argument): only that revision is run. */
  cl_version version = 0;
  size_t size = 0;
  if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, NULL,
                      &size) == CL_SUCCESS && size) {
    cl_name_version *list = malloc(size);
    CHECK(clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS_WITH_VERSION, size, list,
                          NULL));
    for (size_t i = 0; i < size / sizeof *list; i++)
      if (strcmp(list[i].name, "cl_khr_command_buffer") == 0)
        version = list[i].version;
    free(list);
  }
  if (version != SKEIN_COMMAND_BUFFER_VERSION || !create || !nd || !copy ||
      !fin || !enqueue_cb) {
    printf("command-buffer replay: not run (cl_khr_command_buffer %u.%u.%u, "
           "0.9.8 needed)\n",
           CL_VERSION_MAJOR(version), CL_VERSION_MINOR(version),
           CL_VERSION_PATCH(version));
    return 0;
  }
  cb = create(1, &q, NULL, &err);
  CHECK(err);
  /* The same chain, in order through sync points. */
  cl_sync_point_khr prev = 0, s;
  for (size_t i = 0; i < nk; i++) {
    CHECK(nd(cb, NULL, NULL, ks[i], 1, NULL, &n, NULL, prev ? 1 : 0,
             prev ? &prev : NULL, &s, NULL));
    prev = s;
  }
  CHECK(copy(cb, NULL, NULL, bufs[nk % 2], copy_dst, 0, 0, n * sizeof(int), 1,
             &prev, NULL, NULL));
  CHECK(fin(cb));
  measure(enqueue_replay, 1);
  double replay_lat = measure(enqueue_replay, 1);
  double replay_thr = measure(enqueue_replay, 0);
  printf("command-buffer replay: %8.2f us/iteration waited, %8.2f us/iteration "
         "back to back\n",
         replay_lat, replay_thr);
  printf("replay / one by one:   %8.2f waited, %8.2f back to back\n",
         replay_lat / direct_lat, replay_thr / direct_thr);
  return 0;
}
