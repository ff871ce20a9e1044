/* This file tests device-side enqueue (__opencl_c_device_enqueue, OpenCL
 * C 2.0) through the ICD loader: the device's on-device queue queries;
 * clCreateCommandQueueWithProperties with CL_QUEUE_ON_DEVICE, _DEFAULT
 * and CL_QUEUE_SIZE and its errors; clSetDefaultDeviceCommandQueue;
 * host commands refusing a device queue. In kernels, against host
 * references: 1D, 2D and 3D child grids (ids, offsets, sizes, groups);
 * children nested to a depth of 100 (each level after its parent); the
 * event forms (a chain through clk_event_t wait lists, enqueue_marker,
 * user events, is_valid_event, capture_event_profiling_info); __local
 * pointer block arguments in a child that reduces with a barrier; the
 * flags' ordering promises (WAIT_KERNEL sees every work-group's writes,
 * WAIT_WORK_GROUP the enqueuing group's writes after the call); a full
 * device queue (CLK_DEVICE_QUEUE_FULL, nothing lost, no hang);
 * independent children (siblings, and children of different parents)
 * running side by side, with mixed sizes and __local buffers; invalid
 * queues and ndranges; the get_kernel_* queries; OpenCL C 2.0 reported,
 * and a CL2.0 program using pipes, SVM and device enqueue together.
 * Built for CL2.0 and CL3.0; ctest runs it in every mode
 * (mode_variants.cmake). */
#include "test_util.h"
#include <stdbool.h>
#include <stdint.h>

static test_env env;
static cl_command_queue devq;   /* the context's default device queue */

/* ---- Host side: queries and queues ------------------------------------- */

static cl_command_queue device_queue(cl_queue_properties flags,
                                    cl_uint size, cl_int *err) {
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, flags, 0, 0, 0};
  if (size) {
    props[2] = CL_QUEUE_SIZE;
    props[3] = size;
  }
  return clCreateCommandQueueWithProperties(env.context, env.device, props,
                                            err);
}

static const cl_queue_properties OOO_DEV =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE;

static void test_queries(void) {
  cl_device_device_enqueue_capabilities caps = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES,
                             sizeof caps, &caps, NULL));
  CHECK_EQ(caps, CL_DEVICE_QUEUE_SUPPORTED |
                     CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT);
  cl_command_queue_properties p = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES,
                             sizeof p, &p, NULL));
  CHECK_EQ(p, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                  CL_QUEUE_PROFILING_ENABLE);
  cl_uint pref = 0, max = 0, queues = 0, events = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device,
                             CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE,
                             sizeof pref, &pref, NULL));
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE,
                             sizeof max, &max, NULL));
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_ON_DEVICE_QUEUES,
                             sizeof queues, &queues, NULL));
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_ON_DEVICE_EVENTS,
                             sizeof events, &events, NULL));
  /* The full profile's minimums. */
  CHECK(pref >= 16 * 1024 && pref <= max);
  CHECK(max >= 256 * 1024);
  CHECK(queues >= 1);
  CHECK(events >= 1024);
  CHECK(test_c_feature_count(&env, "__opencl_c_device_enqueue", 0) == 1);
}

static void test_queue_errors(void) {
  cl_int err;
  cl_uint max = 0, queues = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE,
                             sizeof max, &max, NULL));
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_ON_DEVICE_QUEUES,
                             sizeof queues, &queues, NULL));
  /* An on-device queue must be out of order. */
  CHECK(!device_queue(CL_QUEUE_ON_DEVICE, 0, &err));
  CHECK_EQ(err, CL_INVALID_VALUE);
  /* _DEFAULT needs ON_DEVICE. */
  CHECK(!device_queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                          CL_QUEUE_ON_DEVICE_DEFAULT, 0, &err));
  CHECK_EQ(err, CL_INVALID_VALUE);
  /* A size over the maximum, and a size for a host queue. */
  CHECK(!device_queue(OOO_DEV, max + 1, &err));
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(!device_queue(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 4096, &err));
  CHECK_EQ(err, CL_INVALID_VALUE);
  /* The 1.x creator makes host queues only. */
  CHECK(!clCreateCommandQueue(env.context, env.device, OOO_DEV, &err));
  CHECK_EQ(err, CL_INVALID_QUEUE_PROPERTIES);

  /* A sized queue reports its size; host queues have none. */
  cl_command_queue q = device_queue(OOO_DEV, 4096, &err);
  REQUIRE_OK(err);
  cl_uint size = 0;
  REQUIRE_OK(clGetCommandQueueInfo(q, CL_QUEUE_SIZE, sizeof size, &size,
                                   NULL));
  CHECK_EQ(size, 4096);
  CHECK_EQ(clGetCommandQueueInfo(env.queue, CL_QUEUE_SIZE, sizeof size,
                                 &size, NULL),
           CL_INVALID_COMMAND_QUEUE);
  /* Host commands refuse a device queue. */
  CHECK_EQ(clFinish(q), CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clEnqueueMarkerWithWaitList(q, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);

  /* The default device queue: made once, then returned retained. */
  cl_command_queue again = device_queue(OOO_DEV | CL_QUEUE_ON_DEVICE_DEFAULT,
                                        0, &err);
  REQUIRE_OK(err);
  CHECK(again == devq);
  cl_uint refs = 0;
  REQUIRE_OK(clGetCommandQueueInfo(devq, CL_QUEUE_REFERENCE_COUNT,
                                   sizeof refs, &refs, NULL));
  CHECK_EQ(refs, 2);
  REQUIRE_OK(clReleaseCommandQueue(again));
  cl_command_queue def = NULL;
  REQUIRE_OK(clGetCommandQueueInfo(env.queue, CL_QUEUE_DEVICE_DEFAULT,
                                   sizeof def, &def, NULL));
  CHECK(def == devq);

  /* clSetDefaultDeviceCommandQueue: a device queue of the context only. */
  CHECK_EQ(clSetDefaultDeviceCommandQueue(env.context, env.device,
                                          env.queue),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clSetDefaultDeviceCommandQueue(NULL, env.device, q),
           CL_INVALID_CONTEXT);
  CHECK_EQ(clSetDefaultDeviceCommandQueue(env.context, NULL, q),
           CL_INVALID_DEVICE);
  REQUIRE_OK(clSetDefaultDeviceCommandQueue(env.context, env.device, q));
  REQUIRE_OK(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE_DEFAULT, sizeof def,
                                   &def, NULL));
  CHECK(def == q);
  REQUIRE_OK(clSetDefaultDeviceCommandQueue(env.context, env.device, devq));

  /* CL_DEVICE_MAX_ON_DEVICE_QUEUES besides the default one (q counts),
   * then CL_OUT_OF_RESOURCES. */
  cl_command_queue extra[16];
  cl_uint made = 0;
  while (made < 16) {
    extra[made] = device_queue(OOO_DEV, 0, &err);
    if (!extra[made])
      break;
    made++;
  }
  CHECK_EQ(made + 1, queues);
  CHECK_EQ(err, CL_OUT_OF_RESOURCES);
  for (cl_uint i = 0; i < made; i++)
    REQUIRE_OK(clReleaseCommandQueue(extra[i]));
  REQUIRE_OK(clReleaseCommandQueue(q));
}

/* ---- Kernels ----------------------------------------------------------- */

static const char *stds[] = {"-cl-std=CL2.0", "-cl-std=CL3.0"};

static void run(cl_program prog, const char *name, size_t global,
                size_t local, const cl_mem *bufs, int nbufs, const int *ints,
                int nints) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  for (int i = 0; i < nbufs; i++)
    REQUIRE_OK(clSetKernelArg(k, i, sizeof(cl_mem), &bufs[i]));
  for (int i = 0; i < nints; i++)
    REQUIRE_OK(clSetKernelArg(k, nbufs + i, sizeof(int), &ints[i]));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global,
                                    local ? &local : NULL, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  REQUIRE_OK(clReleaseKernel(k));
}

static void read_back(cl_mem m, void *p, size_t size) {
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, size, p, 0, NULL,
                                 NULL));
}

/* Every work-item of the parent enqueues one 1D child over its own slice
 * (offset i * 64, 64 items, groups of 16); a 2D and a 3D child write
 * their work-item functions' values; a program-scope block is called
 * directly. */
static const char grids_src[] =
  "int (^__constant scaled)(int) = ^int(int v) {\n"
  "  return v * (1 + (int)get_global_id(0));\n"
  "};\n"
  "kernel void global_block(global int *a) {\n"
  "  a[get_global_id(0)] = scaled(3);\n"
  "}\n"
  "kernel void grid1(global int *a, int tag) {\n"
  "  size_t i = get_global_id(0);\n"
  "  int r = enqueue_kernel(get_default_queue(),\n"
  "      CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(i * 64, 64, 16),\n"
  "      ^{ size_t g = get_global_id(0);\n"
  "         a[g] = tag + (int)g * 3 + (int)i\n"
  "              + 1000 * (int)(get_group_id(0) * 16 + get_local_id(0)\n"
  "                             == g - get_global_offset(0))\n"
  "              + 100000 * (get_work_dim() == 1 &&\n"
  "                          get_global_size(0) == 64 &&\n"
  "                          get_local_size(0) == 16); });\n"
  "  if (r != CLK_SUCCESS) a[i] = -1000000;\n"
  "}\n"
  "kernel void grid2(global int *a) {\n"
  "  size_t g[2] = {12, 10}, l[2] = {4, 5}, o[2] = {2, 3};\n"
  "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
  "      ndrange_2D(o, g, l),\n"
  "      ^{ size_t x = get_global_id(0) - 2, y = get_global_id(1) - 3;\n"
  "         a[y * 12 + x] = (int)(get_group_id(0) + 10 * get_group_id(1)\n"
  "             + 100 * get_local_id(0) + 1000 * get_local_id(1)\n"
  "             + 10000 * get_work_dim()\n"
  "             + 100000 * (get_num_groups(0) * get_num_groups(1))); });\n"
  "}\n"
  "kernel void grid3(global int *a) {\n"
  "  size_t g[3] = {8, 6, 4}, l[3] = {2, 3, 2};\n"
  "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
  "      ndrange_3D(g, l),\n"
  "      ^{ size_t x = get_global_id(0), y = get_global_id(1),\n"
  "                z = get_global_id(2);\n"
  "         a[(z * 6 + y) * 8 + x] = (int)(get_local_linear_id()\n"
  "             + 100 * get_group_id(2) + 1000 * get_work_dim()\n"
  "             + 10000 * get_global_linear_id()); });\n"
  "  size_t g2[3] = {3, 2, 2};\n"
  "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
  "      ndrange_3D(g2),\n"
  "      ^{ a[192 + get_global_linear_id()] = 7 + (int)get_global_size(2); });\n"
  "}\n";

static void test_grids(const char *opt) {
  cl_program p = test_build(&env, grids_src, opt);
  enum { P = 8, N = P * 64 };
  int a[N];
  cl_mem m = test_buffer(&env, sizeof a, NULL);
  int tag = 7;
  run(p, "grid1", P, 0, &m, 1, &tag, 1);
  read_back(m, a, sizeof a);
  for (int g = 0; g < N; g++)
    CHECK_EQ(a[g], 7 + g * 3 + g / 64 + 1000 + 100000);

  int b[120];
  run(p, "grid2", 1, 0, &m, 1, NULL, 0);
  read_back(m, b, sizeof b);
  for (int y = 0; y < 10; y++)
    for (int x = 0; x < 12; x++)
      CHECK_EQ(b[y * 12 + x], (x / 4) + 10 * (y / 5) + 100 * (x % 4) +
                                  1000 * (y % 5) + 20000 + 100000 * 6);

  int c[192 + 12];
  run(p, "grid3", 1, 0, &m, 1, NULL, 0);
  read_back(m, c, sizeof c);
  for (int z = 0; z < 4; z++)
    for (int y = 0; y < 6; y++)
      for (int x = 0; x < 8; x++) {
        int lin = (z % 2 * 3 + y % 3) * 2 + x % 2;
        int gl = (z * 6 + y) * 8 + x;
        CHECK_EQ(c[gl], lin + 100 * (z / 2) + 3000 + 10000 * gl);
      }
  for (int i = 0; i < 12; i++)
    CHECK_EQ(c[192 + i], 9);
  /* A program-scope block called by a kernel (no enqueue). */
  run(p, "global_block", 16, 0, &m, 1, NULL, 0);
  read_back(m, c, 16 * sizeof(int));
  for (int i = 0; i < 16; i++)
    CHECK_EQ(c[i], 3 * (1 + i));
  clReleaseMemObject(m);
  clReleaseProgram(p);
}

/* A kernel enqueuing itself (through a function the block calls) to a
 * depth of `depth`: level d runs after level d - 1 and writes a[d] from
 * a[d - 1]; nothing recurses on a stack. */
static const char nest_src[] =
  "void level(queue_t q, global int *a, int d, int depth) {\n"
  "  a[d] = (d ? a[d - 1] : 0) + d + 1;\n"
  "  if (d + 1 < depth) {\n"
  "    int r = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
  "        ndrange_1D(1), ^{ level(q, a, d + 1, depth); });\n"
  "    if (r != CLK_SUCCESS) a[depth] = r;\n"
  "  }\n"
  "}\n"
  "kernel void nest(global int *a, int depth) {\n"
  "  level(get_default_queue(), a, 0, depth);\n"
  "}\n";

static void test_nesting(const char *opt) {
  cl_program p = test_build(&env, nest_src, opt);
  enum { DEPTH = 100 };
  int a[DEPTH + 1];
  memset(a, 0, sizeof a);
  cl_mem m = test_buffer(&env, sizeof a, a);
  int depth = DEPTH;
  run(p, "nest", 1, 0, &m, 1, &depth, 1);
  read_back(m, a, sizeof a);
  int want = 0;
  for (int d = 0; d < DEPTH; d++) {
    want += d + 1;
    CHECK_EQ(a[d], want);
  }
  CHECK_EQ(a[DEPTH], 0);
  clReleaseMemObject(m);
  clReleaseProgram(p);
}

/* A chain through events: A writes x, B (waiting for A) doubles it into
 * y, a marker waits for both, C (waiting for the marker) adds 1 into z;
 * D waits for C and for a user event that E, enqueued after it,
 * completes after writing what D reads (nothing else orders them: a
 * device queue is out of order).
 * flags[] receives is_valid_event answers and the return codes. */
static const char events_src[] =
  "kernel void chain(global int *x, global int *y, global int *z,\n"
  "                  global int *flags, global ulong *prof) {\n"
  "  queue_t q = get_default_queue();\n"
  "  clk_event_t a, b, m, c, u;\n"
  "  int n = 256;\n"
  "  flags[0] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
  "      ndrange_1D(n, 32), 0, NULL, &a,\n"
  "      ^{ x[get_global_id(0)] = (int)get_global_id(0) * 5; });\n"
  "  flags[1] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
  "      ndrange_1D(n, 32), 1, &a, &b,\n"
  "      ^{ y[get_global_id(0)] = x[get_global_id(0)] * 2; });\n"
  "  clk_event_t both[2] = {a, b};\n"
  "  flags[2] = enqueue_marker(q, 2, both, &m);\n"
  "  flags[3] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
  "      ndrange_1D(n), 1, &m, &c,\n"
  "      ^{ z[get_global_id(0)] = y[get_global_id(0)] + 1; });\n"
  "  u = create_user_event();\n"
  "  flags[4] = is_valid_event(u);\n"
  "  clk_event_t cu[2] = {c, u};\n"
  "  flags[5] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
  "      ndrange_1D(1), 2, cu, NULL, ^{ flags[6] = z[n - 1] + flags[8]; });\n"
  "  flags[8] = 0;\n"
  "  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
  "      ^{ flags[8] = 2; set_user_event_status(u, CL_COMPLETE); });\n"
  "  flags[7] = is_valid_event(CLK_NULL_EVENT);\n"
  "  capture_event_profiling_info(a, CLK_PROFILING_COMMAND_EXEC_TIME,\n"
  "                               prof);\n"
  "  retain_event(a);\n"
  "  release_event(a);\n"
  "  release_event(a); release_event(b); release_event(m);\n"
  "  release_event(c); release_event(u);\n"
  "}\n";

static void test_events(const char *opt) {
  cl_program p = test_build(&env, events_src, opt);
  enum { N = 256 };
  int x[N], y[N], z[N], flags[9];
  cl_ulong prof[2] = {0, 0};
  cl_mem m[5] = {test_buffer(&env, sizeof x, NULL),
                 test_buffer(&env, sizeof y, NULL),
                 test_buffer(&env, sizeof z, NULL),
                 test_buffer(&env, sizeof flags, NULL),
                 test_buffer(&env, sizeof prof, prof)};
  run(p, "chain", 1, 0, m, 5, NULL, 0);
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
  CHECK_EQ(flags[6], (N - 1) * 10 + 3);   /* after E */
  CHECK_EQ(flags[7], 0);
  /* Execution time, then the time with children: both set, in order. */
  CHECK(prof[0] > 0);
  CHECK(prof[1] >= prof[0]);
  test_release_buffers(m, 5);
  clReleaseProgram(p);
}

/* __local block arguments: each group of the child sums its 64 elements
 * through one local array (barriers: region or fiber mode) and writes
 * the sum scaled by a second local argument's use. */
static const char local_src[] =
  "kernel void sums(global const int *in, global int *out) {\n"
  "  void (^blk)(local void *, local void *) =\n"
  "      ^(local void *p, local void *q) {\n"
  "    local int *s = p; local int *t = q;\n"
  "    size_t l = get_local_id(0);\n"
  "    s[l] = in[get_global_id(0)];\n"
  "    if (l == 0) t[0] = 3;\n"
  "    for (size_t h = get_local_size(0) / 2; h; h /= 2) {\n"
  "      barrier(CLK_LOCAL_MEM_FENCE);\n"
  "      if (l < h) s[l] += s[l + h];\n"
  "    }\n"
  "    barrier(CLK_LOCAL_MEM_FENCE);\n"
  "    if (l == 0) out[get_group_id(0)] = s[0] * t[0];\n"
  "  };\n"
  "  out[100] = enqueue_kernel(get_default_queue(),\n"
  "      CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(64 * 8, 64), blk,\n"
  "      (uint)(64 * sizeof(int)), (uint)sizeof(int));\n"
  "  clk_event_t e;\n"
  "  out[101] = enqueue_kernel(get_default_queue(),\n"
  "      CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(64 * 2, 64), 0, NULL,\n"
  "      &e, ^(local void *p){ local int *s = p; s[get_local_id(0)] = 1;\n"
  "          barrier(CLK_LOCAL_MEM_FENCE);\n"
  "          if (get_local_id(0) == 0) out[8 + get_group_id(0)] =\n"
  "              s[63] + (int)get_local_size(0); },\n"
  "      (uint)(64 * sizeof(int)));\n"
  "  release_event(e);\n"
  "}\n";

static void test_local_args(const char *opt) {
  cl_program p = test_build(&env, local_src, opt);
  int in[512], out[102];
  for (int i = 0; i < 512; i++)
    in[i] = (int)(test_rand() % 1000);
  cl_mem m[2] = {test_buffer(&env, sizeof in, in),
                 test_buffer(&env, sizeof out, NULL)};
  run(p, "sums", 1, 0, m, 2, NULL, 0);
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
  clReleaseProgram(p);
}

/* The flags' promises. WAIT_KERNEL: a child enqueued by the first
 * work-item sums what every work-item of every group writes (after the
 * enqueue in program order). WAIT_WORK_GROUP: each group's first
 * work-item enqueues a child that sums its group's writes made after the
 * call. */
static const char flags_src[] =
  "kernel void wait_kernel(global int *a, global int *out) {\n"
  "  size_t i = get_global_id(0), n = get_global_size(0);\n"
  "  if (i == 0)\n"
  "    enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
  "        ndrange_1D(1), ^{ int s = 0;\n"
  "          for (size_t k = 0; k < n; k++) s += a[k];\n"
  "          out[0] = s; });\n"
  "  a[i] = (int)i * 2 + 1;\n"
  "}\n"
  "kernel void wait_group(global int *a, global int *out) {\n"
  "  size_t i = get_global_id(0), g = get_group_id(0);\n"
  "  size_t base = g * get_local_size(0), n = get_local_size(0);\n"
  "  if (get_local_id(0) == 0)\n"
  "    enqueue_kernel(get_default_queue(),\n"
  "        CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP, ndrange_1D(1), ^{ int s = 0;\n"
  "          for (size_t k = 0; k < n; k++) s += a[base + k];\n"
  "          out[1 + g] = s; });\n"
  "  a[i] = (int)i + 7;\n"
  "}\n";

static void test_flags(const char *opt) {
  cl_program p = test_build(&env, flags_src, opt);
  enum { N = 1024, L = 64 };
  int out[1 + N / L];
  cl_mem m[2] = {test_buffer(&env, N * sizeof(int), NULL),
                 test_buffer(&env, sizeof out, NULL)};
  run(p, "wait_kernel", N, L, m, 2, NULL, 0);
  run(p, "wait_group", N, L, m, 2, NULL, 0);
  read_back(m[1], out, sizeof out);
  CHECK_EQ(out[0], N * N);   /* sum of 2i + 1 */
  for (int g = 0; g < N / L; g++) {
    int s = 0;
    for (int k = 0; k < L; k++)
      s += g * L + k + 7;
    CHECK_EQ(out[1 + g], s);
  }
  test_release_buffers(m, 2);
  clReleaseProgram(p);
}

/* A queue of 16 commands: the parent's 40 enqueues give 16 successes,
 * then CLK_DEVICE_QUEUE_FULL (the children run only after the parent);
 * each child that was accepted runs once. A queue_t argument takes a
 * device queue only. Invalid queues and ndranges fail with their
 * codes. */
static const char full_src[] =
  "kernel void fill(global int *codes, volatile global int *count) {\n"
  "  for (int k = 0; k < 40; k++)\n"
  "    codes[k] = enqueue_kernel(get_default_queue(),\n"
  "        CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
  "        ^{ atomic_inc(count); });\n"
  "}\n"
  "kernel void via_arg(queue_t q, global int *codes) {\n"
  "  codes[0] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(4),\n"
  "      ^{ codes[1 + get_global_id(0)] = 5 + (int)get_global_id(0); });\n"
  "}\n"
  "kernel void invalid(global int *codes) {\n"
  "  queue_t none = CLK_NULL_QUEUE;\n"
  "  codes[0] = enqueue_kernel(none, CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
  "                            ndrange_1D(1), ^{ codes[9] = 1; });\n"
  "  codes[1] = enqueue_kernel(get_default_queue(),\n"
  "      CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(64, 2048),\n"
  "      ^{ codes[9] = 2; });\n"
  "  codes[2] = enqueue_kernel(get_default_queue(),\n"
  "      CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(0), ^{ codes[9] = 3; });\n"
  "  clk_event_t bad[1] = {CLK_NULL_EVENT};\n"
  "  codes[3] = enqueue_kernel(get_default_queue(),\n"
  "      CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), 1, bad, NULL,\n"
  "      ^{ codes[9] = 4; });\n"
  "  codes[4] = enqueue_marker(get_default_queue(), 0, NULL, NULL);\n"
  "  ndrange_t nd = ndrange_1D(100, 40);\n"
  "  codes[5] = (int)get_kernel_work_group_size(^{ codes[9] = 5; });\n"
  "  codes[6] = (int)get_kernel_preferred_work_group_size_multiple(\n"
  "      ^{ codes[9] = 6; });\n"
  "  codes[7] = (int)get_kernel_sub_group_count_for_ndrange(nd,\n"
  "      ^{ codes[9] = 7; });\n"
  "  codes[8] = (int)get_kernel_max_sub_group_size_for_ndrange(nd,\n"
  "      ^{ codes[9] = 8; });\n"
  "}\n";

static void test_full(const char *opt) {
  cl_program p = test_build(&env, full_src, opt);
  cl_int err;
  cl_command_queue small = device_queue(OOO_DEV, 16 * 64, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetDefaultDeviceCommandQueue(env.context, env.device, small));
  int codes[40], count = 0;
  cl_mem m[2] = {test_buffer(&env, sizeof codes, NULL),
                 test_buffer(&env, sizeof count, &count)};
  run(p, "fill", 1, 0, m, 2, NULL, 0);
  read_back(m[0], codes, sizeof codes);
  read_back(m[1], &count, sizeof count);
  int ok = 0;
  for (int k = 0; k < 40; k++) {
    CHECK(codes[k] == 0 || codes[k] == -161);   /* CLK_DEVICE_QUEUE_FULL */
    ok += codes[k] == 0;
  }
  CHECK_EQ(ok, 16);
  CHECK_EQ(count, ok);
  /* The queue is empty again: the next launch gets 16 more. */
  run(p, "fill", 1, 0, m, 2, NULL, 0);
  read_back(m[1], &count, sizeof count);
  CHECK_EQ(count, 32);
  REQUIRE_OK(clSetDefaultDeviceCommandQueue(env.context, env.device, devq));
  REQUIRE_OK(clReleaseCommandQueue(small));

  int c[10];
  memset(c, 0, sizeof c);
  cl_mem mc = test_buffer(&env, sizeof c, c);
  /* A queue_t argument: a device queue (here not the default one). */
  small = device_queue(OOO_DEV, 0, &err);
  REQUIRE_OK(err);
  cl_kernel k = clCreateKernel(p, "via_arg", &err);
  REQUIRE_OK(err);
  CHECK_EQ(clSetKernelArg(k, 0, sizeof env.queue, &env.queue),
           CL_INVALID_DEVICE_QUEUE);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof small, &small));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof mc, &mc));
  size_t one = 1;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &one, NULL, 0,
                                    NULL, NULL));
  read_back(mc, c, sizeof c);
  CHECK_EQ(c[0], 0);
  for (int i = 0; i < 4; i++)
    CHECK_EQ(c[1 + i], 5 + i);
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseCommandQueue(small));
  memset(c, 0, sizeof c);
  REQUIRE_OK(clEnqueueWriteBuffer(env.queue, mc, CL_TRUE, 0, sizeof c, c, 0,
                                  NULL, NULL));
  run(p, "invalid", 1, 0, &mc, 1, NULL, 0);
  read_back(mc, c, sizeof c);
  CHECK_EQ(c[0], -102);   /* CLK_INVALID_QUEUE */
  CHECK_EQ(c[1], -160);   /* CLK_INVALID_NDRANGE: a local size > 1024 */
  CHECK_EQ(c[2], -160);   /* a global size of 0 */
  CHECK_EQ(c[3], -57);    /* CLK_INVALID_EVENT_WAIT_LIST */
  CHECK_EQ(c[4], -57);
  size_t max_wg = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                             sizeof max_wg, &max_wg, NULL));
  CHECK_EQ(c[5], (int)max_wg);
  size_t sg = test_expected_sub_group_size();
  CHECK_EQ(c[6], (int)sg);
  CHECK_EQ(c[7], (int)((40 + sg - 1) / sg));
  CHECK_EQ(c[8], (int)(sg < 40 ? sg : 40));
  CHECK_EQ(c[9], 0);   /* no invalid enqueue ran */
  test_release_buffers(m, 2);
  clReleaseMemObject(mc);
  clReleaseProgram(p);
}

/* Independent children run side by side (runtime/core/device_queue.c
 * runs each round of runnable children as one job). "wide": each of 64
 * work-items enqueues a child of its own size (3 to 21 items, the
 * runtime's local size) and one with a __local buffer of its own size, all
 * in one round. "meet": two work-items each enqueue a child, which
 * enqueues a grandchild; the two children (siblings), and then the two
 * grandchildren (of different parents), each count themselves in, wait
 * a bounded time for the other, and count themselves out: run one at a
 * time, each is always alone. Per level: st[0] who is in, st[1] the
 * most either saw in, st[2] how many ran. */
static const char rounds_src[] =
  "kernel void wide(global int *a) {\n"
  "  int i = (int)get_global_id(0), n = (i % 7 + 1) * 3;\n"
  "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
  "      ndrange_1D(n), ^{ int g = (int)get_global_id(0);\n"
  "        a[i * 32 + g] = i * 1000 + g * 10 + (int)get_global_size(0)\n"
  "                        / 3; });\n"
  "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
  "      ndrange_1D(n, n), ^(local void *p) { local int *s = p;\n"
  "        int l = (int)get_local_id(0);\n"
  "        s[l] = l + i;\n"
  "        barrier(CLK_LOCAL_MEM_FENCE);\n"
  "        if (l == 0) { int t = 0;\n"
  "          for (int k = 0; k < n; k++) t += s[k];\n"
  "          a[64 * 32 + i] = t; } },\n"
  "      (uint)(n * sizeof(int)));\n"
  "}\n"
  "void meet(volatile global atomic_int *st) {\n"
  "  atomic_fetch_add(&st[2], 1);\n"
  "  int seen = atomic_fetch_add(&st[0], 1) + 1;\n"
  "  for (int k = 0; k < (1 << 22) && seen < 2; k++)\n"
  "    seen = atomic_load(&st[0]);\n"
  "  atomic_fetch_max(&st[1], seen);\n"
  "  atomic_fetch_sub(&st[0], 1);\n"
  "}\n"
  "kernel void pair(volatile global atomic_int *st) {\n"
  "  queue_t q = get_default_queue();\n"
  "  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1), ^{\n"
  "    meet(st);\n"
  "    enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),\n"
  "                   ^{ meet(st + 3); }); });\n"
  "}\n";

static void test_rounds(const char *opt) {
  cl_program p = test_build(&env, rounds_src, opt);
  int a[64 * 32 + 64];
  memset(a, 0, sizeof a);
  cl_mem m = test_buffer(&env, sizeof a, a);
  run(p, "wide", 64, 1, &m, 1, NULL, 0);
  read_back(m, a, sizeof a);
  for (int i = 0; i < 64; i++) {
    int n = (i % 7 + 1) * 3, t = 0;
    for (int g = 0; g < 32; g++)
      CHECK_EQ(a[i * 32 + g], g < n ? i * 1000 + g * 10 + n / 3 : 0);
    for (int k = 0; k < n; k++)
      t += k + i;
    CHECK_EQ(a[64 * 32 + i], t);
  }
  clReleaseMemObject(m);

  /* With one compute unit nothing can meet. On a loaded machine a
   * worker may not get a core in time, so a few tries are allowed. */
  cl_uint units = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_COMPUTE_UNITS,
                             sizeof units, &units, NULL));
  int st[6], met = 0;
  memset(st, 0, sizeof st);
  m = test_buffer(&env, sizeof st, st);
  for (int t = 0; t < 10 && units > 1 && met != 2; t++) {
    memset(st, 0, sizeof st);
    REQUIRE_OK(clEnqueueWriteBuffer(env.queue, m, CL_TRUE, 0, sizeof st, st,
                                    0, NULL, NULL));
    run(p, "pair", 2, 1, &m, 1, NULL, 0);
    read_back(m, st, sizeof st);
    for (int l = 0; l < 2; l++) {
      CHECK_EQ(st[3 * l], 0);
      CHECK_EQ(st[3 * l + 2], 2);
    }
    met = (st[1] == 2) + (st[4] == 2);
  }
  if (units > 1)
    CHECK_EQ(met, 2);
  clReleaseMemObject(m);
  clReleaseProgram(p);
}

/* OpenCL C 2.0 is reported, and one CL2.0 program uses its mandatory
 * features together: a pipe, an atomic on fine-grain SVM with
 * memory_scope_all_svm_devices, a generic pointer, a program-scope
 * variable, a work-group collective and device-side enqueue. */
static const char cl20_src[] =
  "#if __OPENCL_C_VERSION__ != 200\n"
  "#error not OpenCL C 2.0\n"
  "#endif\n"
  "global int counter = 0;\n"
  "kernel void produce(write_only pipe int p, global atomic_int *svm,\n"
  "                    global int *out) {\n"
  "  int v = (int)get_global_id(0);\n"
  "  write_pipe(p, &v);\n"
  "  atomic_fetch_add_explicit(svm, 1, memory_order_relaxed,\n"
  "                            memory_scope_all_svm_devices);\n"
  "  generic int *g = out + get_global_id(0);\n"
  "  *g = work_group_reduce_add(v);\n"
  "  if (get_global_id(0) == 0)\n"
  "    enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,\n"
  "        ndrange_1D(1), ^{ counter += 1;\n"
  "                          out[100] = counter + (to_global(g) != 0); });\n"
  "}\n"
  "kernel void consume(read_only pipe int p, global int *out) {\n"
  "  int v;\n"
  "  if (read_pipe(p, &v) == 0) out[200 + v] = v + 1;\n"
  "}\n";

static void test_cl20(void) {
  size_t size;
  cl_name_version all[16];
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_OPENCL_C_ALL_VERSIONS,
                             sizeof all, all, &size));
  int twos = 0;
  for (size_t i = 0; i < size / sizeof all[0]; i++)
    twos += all[i].version == CL_MAKE_VERSION(2, 0, 0);
  CHECK_EQ(twos, 1);
  cl_program p = test_build(&env, cl20_src, "-cl-std=CL2.0");
  enum { N = 64 };
  cl_int err;
  cl_mem pipe = clCreatePipe(env.context, 0, sizeof(int), N, NULL, &err);
  REQUIRE_OK(err);
  int *svm = clSVMAlloc(env.context,
                        CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER |
                            CL_MEM_SVM_ATOMICS,
                        sizeof(int), 0);
  CHECK(svm != NULL);
  if (!svm)
    return;
  *svm = 0;
  int out[300];
  memset(out, 0, sizeof out);
  cl_mem m = test_buffer(&env, sizeof out, out);
  cl_kernel kp = clCreateKernel(p, "produce", &err);
  REQUIRE_OK(err);
  cl_kernel kc = clCreateKernel(p, "consume", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(kp, 0, sizeof pipe, &pipe));
  REQUIRE_OK(clSetKernelArgSVMPointer(kp, 1, svm));
  REQUIRE_OK(clSetKernelArg(kp, 2, sizeof m, &m));
  REQUIRE_OK(clSetKernelArg(kc, 0, sizeof pipe, &pipe));
  REQUIRE_OK(clSetKernelArg(kc, 1, sizeof m, &m));
  size_t n = N;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, kp, 1, NULL, &n, &n, 0, NULL,
                                    NULL));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, kc, 1, NULL, &n, NULL, 0,
                                    NULL, NULL));
  read_back(m, out, sizeof out);
  for (int i = 0; i < N; i++) {
    CHECK_EQ(out[i], N * (N - 1) / 2);
    CHECK_EQ(out[200 + i], i + 1);
  }
  CHECK_EQ(out[100], 2);
  CHECK_EQ(*svm, N);
  clReleaseKernel(kp);
  clReleaseKernel(kc);
  clReleaseMemObject(m);
  clReleaseMemObject(pipe);
  clSVMFree(env.context, svm);
  clReleaseProgram(p);
}

int main(void) {
  test_setup(&env);
  test_seed(11);
  cl_int err;
  devq = device_queue(OOO_DEV | CL_QUEUE_ON_DEVICE_DEFAULT, 0, &err);
  REQUIRE_OK(err);
  test_queries();
  test_queue_errors();
  for (int s = 0; s < 2; s++) {
    test_grids(stds[s]);
    test_nesting(stds[s]);
    test_events(stds[s]);
    test_local_args(stds[s]);
    test_flags(stds[s]);
    test_full(stds[s]);
    test_rounds(stds[s]);
  }
  test_cl20();
  REQUIRE_OK(clReleaseCommandQueue(devq));
  test_teardown(&env);
  return test_finish("device-enqueue");
}
