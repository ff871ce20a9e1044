/* This file tests device-side enqueue from SPIR-V (issues 16 and 11):
 * tests/spirv/enqueue.cl, compiled at build time by clang-15 and
 * llvm-spirv-15 into a module that declares DeviceEnqueue, runs through
 * the ICD loader against host references, and so does the same source
 * built as OpenCL C 2.0; the kernel queries must agree between the two.
 * Covered: OpEnqueueKernel with and without events and with __local
 * sizes, OpBuildNDRange in 1, 2 and 3 dimensions (offsets, local sizes,
 * a local size left to Skein), OpEnqueueMarker, OpGetDefaultQueue, a
 * queue_t kernel argument, OpCreateUserEvent, OpSetUserEventStatus,
 * OpIsValidEvent, OpRetainEvent, OpReleaseEvent,
 * OpCaptureEventProfilingInfo, OpGetKernelWorkGroupSize,
 * OpGetKernelPreferredWorkGroupSizeMultiple,
 * OpGetKernelNDrangeSubGroupCount, OpGetKernelNDrangeMaxSubGroupSize;
 * the WAIT_KERNEL and WAIT_WORK_GROUP orderings; and, because such
 * modules are read in llvm-spirv's OpenCL 2.0 form, legacy and C11
 * atomics, fences, barriers and pipe reservations (OpTypeReserveId) in
 * that form. ctest runs it in every
 * mode (mode_variants.cmake). */
#include "test_util.h"

#include <stdbool.h>
#include <stdint.h>

static test_env env;

static cl_command_queue device_queue(cl_queue_properties extra,
                                     cl_int *err) {
  cl_queue_properties props[] = {
      CL_QUEUE_PROPERTIES,
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE | extra,
      0};
  return clCreateCommandQueueWithProperties(env.context, env.device, props,
                                            err);
}

static cl_program build(cl_program p) {
  cl_int err = clBuildProgram(p, 1, &env.device, "-cl-std=CL2.0", NULL,
                              NULL);
  if (err != CL_SUCCESS) {
    static char log[16384];
    clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, sizeof log,
                          log, NULL);
    fprintf(stderr, "build failed (%d):\n%s\n", err, log);
    exit(1);
  }
  return p;
}

/* Runs kernel name of p over global work-items (groups of local, 0:
 * Skein's choice) with the buffers, then an int if with_int. */
static void run(cl_program p, const char *name, size_t global, size_t local,
                const cl_mem *bufs, int nbufs, const int *with_int) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  for (int i = 0; i < nbufs; i++)
    REQUIRE_OK(clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &bufs[i]));
  if (with_int)
    REQUIRE_OK(clSetKernelArg(k, (cl_uint)nbufs, sizeof(int), with_int));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global,
                                    local ? &local : NULL, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  REQUIRE_OK(clReleaseKernel(k));
}

static void read_back(cl_mem m, void *p, size_t size) {
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, size, p, 0, NULL,
                                 NULL));
}

/* 1D children with offsets (one per parent work-item), a 2D child with
 * an offset and local size, 3D children with and without local sizes. */
static void test_grids(cl_program p) {
  enum { P = 8, N = P * 64 };
  int a[N];
  cl_mem m = test_buffer(&env, sizeof a, NULL);
  int tag = 7;
  run(p, "grid1", P, 0, &m, 1, &tag);
  read_back(m, a, sizeof a);
  for (int g = 0; g < N; g++)
    CHECK_EQ(a[g], 7 + g * 3 + g / 64 + 1000 + 100000);

  int b[324];
  run(p, "grid23", 1, 0, &m, 1, NULL);
  read_back(m, b, sizeof b);
  for (int y = 0; y < 10; y++)
    for (int x = 0; x < 12; x++)
      CHECK_EQ(b[y * 12 + x], (x / 4) + 10 * (y / 5) + 100 * (x % 4) +
                                  1000 * (y % 5) + 20000 + 100000 * 6);
  for (int z = 0; z < 4; z++)
    for (int y = 0; y < 6; y++)
      for (int x = 0; x < 8; x++) {
        int lin = (z % 2 * 3 + y % 3) * 2 + x % 2;
        int gl = (z * 6 + y) * 8 + x;
        CHECK_EQ(b[120 + gl], lin + 100 * (z / 2) + 3000 + 10000 * gl);
      }
  for (int i = 0; i < 12; i++)
    CHECK_EQ(b[312 + i], 9);
  clReleaseMemObject(m);
}

/* Events: a chain through a wait list and a marker, a user event that a
 * later child completes, is_valid_event, retain/release and the
 * profiling capture. */
static void test_events(cl_program p) {
  enum { N = 256 };
  int x[N], y[N], z[N], flags[9];
  cl_ulong prof[2] = {0, 0};
  cl_mem m[5] = {test_buffer(&env, sizeof x, NULL),
                 test_buffer(&env, sizeof y, NULL),
                 test_buffer(&env, sizeof z, NULL),
                 test_buffer(&env, sizeof flags, NULL),
                 test_buffer(&env, sizeof prof, prof)};
  run(p, "chain", 1, 0, m, 5, NULL);
  read_back(m[0], x, sizeof x);
  read_back(m[1], y, sizeof y);
  read_back(m[2], z, sizeof z);
  read_back(m[3], flags, sizeof flags);
  read_back(m[4], prof, sizeof prof);
  for (int i = 0; i < N; i++) {
    CHECK_EQ(x[i], i * 5);
    CHECK_EQ(y[i], i * 10);
    CHECK_EQ(z[i], i * 10 + 1);
  }
  for (int i = 0; i < 4; i++)
    CHECK_EQ(flags[i], 0);
  CHECK_EQ(flags[4], 1);
  CHECK_EQ(flags[5], 0);
  CHECK_EQ(flags[6], (N - 1) * 10 + 3);   /* D ran after E */
  /* Execution time, then the time with children: both set, in order. */
  CHECK(prof[0] > 0);
  CHECK(prof[1] >= prof[0]);
  test_release_buffers(m, 5);
}

/* __local pointer block arguments, with and without an event. */
static void test_local_args(cl_program p) {
  int in[512], out[102];
  for (int i = 0; i < 512; i++)
    in[i] = (int)(test_rand() % 1000);
  cl_mem m[2] = {test_buffer(&env, sizeof in, in),
                 test_buffer(&env, sizeof out, NULL)};
  run(p, "sums", 1, 0, m, 2, NULL);
  read_back(m[1], out, sizeof out);
  for (int g = 0; g < 8; g++) {
    int s = 0;
    for (int i = 0; i < 64; i++)
      s += in[g * 64 + i];
    CHECK_EQ(out[g], s * 3);
  }
  CHECK_EQ(out[8], 65);
  CHECK_EQ(out[9], 65);
  CHECK_EQ(out[100], 0);
  CHECK_EQ(out[101], 0);
  test_release_buffers(m, 2);
}

/* WAIT_KERNEL: the child sees every parent work-group's writes, made
 * after the enqueue; WAIT_WORK_GROUP: each child its group's. */
static void test_flags(cl_program p) {
  enum { N = 1024, L = 64 };
  int out[1 + N / L];
  cl_mem m[2] = {test_buffer(&env, N * sizeof(int), NULL),
                 test_buffer(&env, sizeof out, NULL)};
  run(p, "wait_kernel", N, L, m, 2, NULL);
  run(p, "wait_group", N, L, m, 2, NULL);
  read_back(m[1], out, sizeof out);
  CHECK_EQ(out[0], N * N);   /* the sum of 2i + 1 */
  for (int g = 0; g < N / L; g++) {
    int s = 0;
    for (int k = 0; k < L; k++)
      s += g * L + k + 7;
    CHECK_EQ(out[1 + g], s);
  }
  test_release_buffers(m, 2);
}

/* The kernel queries (returned in q_out for the comparison of the two
 * builds) and a queue_t argument that is not the default queue. */
static void test_queries(cl_program p, int q_out[7]) {
  cl_int err;
  cl_command_queue q = device_queue(0, &err);
  REQUIRE_OK(err);
  cl_kernel k = clCreateKernel(p, "queries", &err);
  REQUIRE_OK(err);
  int count = 0;
  cl_mem m[2] = {test_buffer(&env, 7 * sizeof(int), NULL),
                 test_buffer(&env, sizeof count, &count)};
  /* A host queue is not a queue_t. */
  CHECK_EQ(clSetKernelArg(k, 0, sizeof env.queue, &env.queue),
           CL_INVALID_DEVICE_QUEUE);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof q, &q));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof m[0], &m[0]));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof m[1], &m[1]));
  size_t one = 1;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &one, NULL, 0,
                                    NULL, NULL));
  read_back(m[0], q_out, 7 * sizeof(int));
  read_back(m[1], &count, sizeof count);
  size_t max_wg = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                             sizeof max_wg, &max_wg, NULL));
  CHECK_EQ(q_out[0], (int)max_wg);
  CHECK(q_out[1] >= 1 && q_out[1] <= q_out[0]);
  /* A 2x3x2 group in sub-groups of the device's size. */
  int sg = (int)test_expected_sub_group_size();
  CHECK_EQ(q_out[2], (12 + sg - 1) / sg);
  CHECK_EQ(q_out[3], sg < 12 ? sg : 12);
  CHECK_EQ(q_out[4], 0);
  CHECK_EQ(q_out[5], 0);
  CHECK_EQ(q_out[6], -57);   /* CLK_INVALID_EVENT_WAIT_LIST: no events */
  CHECK_EQ(count, 48 + 10 * 100);   /* both children ran, once each */
  clReleaseKernel(k);
  test_release_buffers(m, 2);
  REQUIRE_OK(clReleaseCommandQueue(q));
}

/* Atomics, fences and barriers as the OpenCL 2.0 reading spells them. */
static void test_atomics(cl_program p) {
  enum { N = 256, L = 64 };
  int c[12] = {0, 0, -1, 0, 0, 0, 0, 1000, -1, 0, 0, 42};
  int out[N];
  cl_mem m[3] = {test_buffer(&env, sizeof c, c),
                 test_buffer(&env, sizeof out, NULL),
                 test_buffer(&env, N * sizeof(int), NULL)};
  run(p, "atomics", N, L, m, 3, NULL);
  read_back(m[0], c, sizeof c);
  read_back(m[1], out, sizeof out);
  int x = 0, o = 0, a = -1;
  for (int i = 0; i < N; i++) {
    x ^= i;
    o |= 1 << (i % 31);
    a &= ~(1 << (i % 31));
  }
  CHECK_EQ(c[0], N);
  CHECK_EQ(c[1], N * (N - 1) / 2);
  CHECK_EQ(c[2], N - 1);
  CHECK_EQ(c[3], -(N - 1));
  CHECK_EQ(c[4], o);
  CHECK_EQ(c[5], x);
  CHECK_EQ(c[6], 5);
  CHECK_EQ(c[7], 1000 - 2 * N);
  CHECK_EQ(c[8], a);
  CHECK(c[9] >= 1 && c[9] <= N);   /* one work-item's exchange won */
  CHECK_EQ(c[10], 1);
  for (int i = 0; i < N; i++) {
    int base = i - i % L;
    CHECK_EQ(out[i], (base + (i % L + 1) % L) * 3 + 42);
  }
  test_release_buffers(m, 3);
}

static int by_value(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Reserve ids: every packet written through the reservations of
 * work-items and of work-groups is read once through others. */
static void test_reserve(cl_program p) {
  enum { N = 256, L = 64, PACKETS = 3 * N };
  cl_int err;
  cl_mem pipe = clCreatePipe(env.context, 0, sizeof(int), PACKETS, NULL,
                             &err);
  REQUIRE_OK(err);
  int in[PACKETS], out[PACKETS], counts[2] = {0, 0};
  for (int i = 0; i < PACKETS; i++)
    in[i] = i * 7 + 1;
  cl_mem m[2] = {test_buffer(&env, sizeof in, in),
                 test_buffer(&env, sizeof out, NULL)};
  cl_mem c = test_buffer(&env, sizeof counts, counts);
  cl_mem args[2] = {pipe, m[0]};
  run(p, "reserve_write", N, L, args, 2, NULL);
  args[1] = c;
  run(p, "pipe_counts", 1, 1, args, 2, NULL);
  args[1] = m[1];
  run(p, "reserve_read", N, L, args, 2, NULL);
  read_back(c, counts, sizeof counts);
  read_back(m[1], out, sizeof out);
  CHECK_EQ(counts[0], PACKETS);
  CHECK_EQ(counts[1], PACKETS);
  qsort(out, PACKETS, sizeof(int), by_value);
  for (int i = 0; i < PACKETS; i++)
    CHECK_EQ(out[i], in[i]);
  test_release_buffers(m, 2);
  clReleaseMemObject(c);
  clReleaseMemObject(pipe);
}

static void run_all(cl_program p, int q_out[7]) {
  test_grids(p);
  test_events(p);
  test_local_args(p);
  test_flags(p);
  test_queries(p, q_out);
  test_atomics(p);
  test_reserve(p);
}

int main(void) {
  size_t il_size, src_size;
  void *il = test_read_file(SKEIN_SPIRV_TEST_DIR, "enqueue.spv", &il_size);
  if (!il) {
    printf("skipped: no test SPIR-V (clang-15 or llvm-spirv-15 missing at "
           "build time)\n");
    return 77;
  }
  char *src = test_read_file(SKEIN_SPIRV_SOURCE_DIR, "enqueue.cl", &src_size);
  if (!src) {
    fprintf(stderr, "missing %s/enqueue.cl\n", SKEIN_SPIRV_SOURCE_DIR);
    return 1;
  }
  test_setup(&env);
  test_seed(29);
  cl_int err;
  cl_command_queue devq = device_queue(CL_QUEUE_ON_DEVICE_DEFAULT, &err);
  REQUIRE_OK(err);

  /* The device lists DeviceEnqueue (cl_khr_spirv_queries), as the SPIR-V
   * environment requires of a device with device-side enqueue. */
  cl_uint caps[64];
  size_t size = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, 0x12BB /* ..._CAPABILITIES_KHR */,
                             sizeof caps, caps, &size));
  bool listed = false;
  for (size_t i = 0; i < size / sizeof caps[0]; i++)
    listed |= caps[i] == 19;   /* DeviceEnqueue */
  CHECK(listed);

  cl_program from_il = clCreateProgramWithIL(env.context, il, il_size, &err);
  REQUIRE_OK(err);
  build(from_il);
  /* Block kernels are the program's own, not the application's. */
  size_t num = 0;
  REQUIRE_OK(clGetProgramInfo(from_il, CL_PROGRAM_NUM_KERNELS, sizeof num,
                              &num, NULL));
  CHECK_EQ(num, 11);
  const char *text = src;
  cl_program from_c = clCreateProgramWithSource(env.context, 1, &text, NULL,
                                                &err);
  REQUIRE_OK(err);
  build(from_c);

  int q_il[7], q_c[7];
  run_all(from_il, q_il);
  run_all(from_c, q_c);
  for (int i = 0; i < 7; i++)
    CHECK_EQ(q_il[i], q_c[i]);

  clReleaseProgram(from_il);
  clReleaseProgram(from_c);
  REQUIRE_OK(clReleaseCommandQueue(devq));
  free(il);
  free(src);
  test_teardown(&env);
  return test_finish("spirv-enqueue");
}
