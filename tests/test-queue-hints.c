/* This file contains the tests of cl_khr_create_command_queue,
 * cl_khr_priority_hints and cl_khr_throttle_hints: the three are reported
 * (1.0.0); clCreateCommandQueueWithPropertiesKHR comes from
 * clGetExtensionFunctionAddressForPlatform and makes working queues; the
 * hints are accepted alone and together, kept in CL_QUEUE_PROPERTIES_ARRAY,
 * and refused with the spec's errors (bad values, repeats, on-device
 * queues); and a high-priority queue's kernels finish before a
 * low-priority backlog drains (event profiling timestamps). */
#include "test_util.h"

#include <CL/cl_ext.h>
#include <time.h>

static test_env env;

static const char *source =
    "kernel void spin(global uint *out, uint n, uint tag) {\n"
    "  uint x = tag;\n"
    "  for (uint i = 0; i < n; i++)\n"
    "    x = x * 1664525u + 1013904223u;\n"
    "  out[tag] = x;\n"
    "}\n";

/* The host's value of spin(n, tag). */
static cl_uint spin_ref(cl_uint n, cl_uint tag) {
  cl_uint x = tag;
  for (cl_uint i = 0; i < n; i++)
    x = x * 1664525u + 1013904223u;
  return x;
}

static clCreateCommandQueueWithPropertiesKHR_fn create_khr;

static cl_command_queue make(const cl_queue_properties *props, cl_int *err) {
  return create_khr(env.context, env.device, props, err);
}

static void test_reports(void) {
  static const char *const names[] = {"cl_khr_create_command_queue",
                                      "cl_khr_priority_hints",
                                      "cl_khr_throttle_hints"};
  for (int i = 0; i < 3; i++) {
    CHECK(test_extension_listed(&env, names[i]));
    CHECK_EQ(test_extension_count(&env, names[i], CL_MAKE_VERSION(1, 0, 0)),
             1);
  }
  create_khr = (clCreateCommandQueueWithPropertiesKHR_fn)
      clGetExtensionFunctionAddressForPlatform(
          env.platform, "clCreateCommandQueueWithPropertiesKHR");
  CHECK(create_khr != NULL);
  if (!create_khr) {
    test_finish("queue-hints");
    exit(1);
  }
  CHECK(clGetExtensionFunctionAddressForPlatform(
            env.platform, "clCreateCommandQueueWithPropertiesKHR") ==
        (void *)create_khr);
}

/* A queue of each hint value runs a kernel and reports its properties. */
static void test_valid(cl_program p) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, "spin", &err);
  REQUIRE_OK(err);
  cl_mem out = test_buffer(&env, 64 * sizeof(cl_uint), NULL);
  static const cl_queue_properties lists[][7] = {
      {0},
      {CL_QUEUE_PRIORITY_KHR, CL_QUEUE_PRIORITY_HIGH_KHR, 0},
      {CL_QUEUE_PRIORITY_KHR, CL_QUEUE_PRIORITY_MED_KHR, 0},
      {CL_QUEUE_PRIORITY_KHR, CL_QUEUE_PRIORITY_LOW_KHR, 0},
      {CL_QUEUE_THROTTLE_KHR, CL_QUEUE_THROTTLE_HIGH_KHR, 0},
      {CL_QUEUE_THROTTLE_KHR, CL_QUEUE_THROTTLE_MED_KHR, 0},
      {CL_QUEUE_THROTTLE_KHR, CL_QUEUE_THROTTLE_LOW_KHR, 0},
      /* Orthogonal hints: both at once, with queue properties. */
      {CL_QUEUE_PRIORITY_KHR, CL_QUEUE_PRIORITY_HIGH_KHR,
       CL_QUEUE_THROTTLE_KHR, CL_QUEUE_THROTTLE_LOW_KHR, CL_QUEUE_PROPERTIES,
       CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE, 0},
  };
  for (cl_uint i = 0; i < sizeof lists / sizeof lists[0]; i++) {
    cl_command_queue q = make(lists[i], &err);
    CHECK_EQ(err, CL_SUCCESS);
    if (!q)
      continue;
    size_t len = 0;
    while (lists[i][len])
      len += 2;
    cl_queue_properties got[8];
    size_t size = 0;
    REQUIRE_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof got,
                                     got, &size));
    CHECK_EQ(size, (len + 1) * sizeof(cl_queue_properties));
    CHECK(memcmp(got, lists[i], size) == 0);
    cl_uint n = 1000 + i, tag = i;
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof out, &out));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof n, &n));
    REQUIRE_OK(clSetKernelArg(k, 2, sizeof tag, &tag));
    size_t one = 1;
    REQUIRE_OK(
        clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
    REQUIRE_OK(clFinish(q));   /* the last queue is out of order */
    cl_uint v = 0;
    REQUIRE_OK(clEnqueueReadBuffer(q, out, CL_TRUE, tag * sizeof v, sizeof v,
                                   &v, 0, NULL, NULL));
    CHECK_EQ(v, spin_ref(n, tag));
    REQUIRE_OK(clReleaseCommandQueue(q));
  }
  /* The extension's creator is the core one: no properties at all. */
  cl_command_queue q = make(NULL, &err);
  CHECK_EQ(err, CL_SUCCESS);
  if (q)
    REQUIRE_OK(clReleaseCommandQueue(q));
  REQUIRE_OK(clReleaseMemObject(out));
  REQUIRE_OK(clReleaseKernel(k));
}

static void expect_error(const cl_queue_properties *props, cl_int want,
                         int line) {
  cl_int err = CL_SUCCESS;
  cl_command_queue q = make(props, &err);
  if (err != want || q)
    fprintf(stderr, "line %d: error %d, want %d\n", line, err, want);
  CHECK_EQ(err, want);
  CHECK(q == NULL);
  if (q)
    clReleaseCommandQueue(q);
  /* The core entry point answers the same. */
  err = CL_SUCCESS;
  q = clCreateCommandQueueWithProperties(env.context, env.device, props, &err);
  CHECK_EQ(err, want);
  if (q)
    clReleaseCommandQueue(q);
}

static void test_errors(void) {
  static const cl_queue_properties bad_values[] = {0, 3, 5, 6, 7, 8, ~0ull};
  for (int i = 0; i < 7; i++) {
    cl_queue_properties pr[] = {CL_QUEUE_PRIORITY_KHR, bad_values[i], 0};
    cl_queue_properties th[] = {CL_QUEUE_THROTTLE_KHR, bad_values[i], 0};
    expect_error(pr, CL_INVALID_VALUE, __LINE__);
    expect_error(th, CL_INVALID_VALUE, __LINE__);
  }
  /* Each property at most once. */
  cl_queue_properties twice_p[] = {
      CL_QUEUE_PRIORITY_KHR, CL_QUEUE_PRIORITY_HIGH_KHR,
      CL_QUEUE_PRIORITY_KHR, CL_QUEUE_PRIORITY_HIGH_KHR, 0};
  cl_queue_properties twice_t[] = {
      CL_QUEUE_THROTTLE_KHR, CL_QUEUE_THROTTLE_LOW_KHR,
      CL_QUEUE_THROTTLE_KHR, CL_QUEUE_THROTTLE_MED_KHR, 0};
  expect_error(twice_p, CL_INVALID_VALUE, __LINE__);
  expect_error(twice_t, CL_INVALID_VALUE, __LINE__);
  /* Either hint on an on-device queue: CL_INVALID_QUEUE_PROPERTIES,
   * whichever order the properties come in. */
  const cl_queue_properties dev =
      CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
  cl_queue_properties od_p[] = {CL_QUEUE_PRIORITY_KHR,
                                CL_QUEUE_PRIORITY_LOW_KHR,
                                CL_QUEUE_PROPERTIES, dev, 0};
  cl_queue_properties od_t[] = {CL_QUEUE_PROPERTIES, dev,
                                CL_QUEUE_THROTTLE_KHR,
                                CL_QUEUE_THROTTLE_HIGH_KHR, 0};
  cl_queue_properties od_both[] = {
      CL_QUEUE_PROPERTIES, dev | CL_QUEUE_ON_DEVICE_DEFAULT,
      CL_QUEUE_PRIORITY_KHR, CL_QUEUE_PRIORITY_MED_KHR,
      CL_QUEUE_THROTTLE_KHR, CL_QUEUE_THROTTLE_MED_KHR, 0};
  expect_error(od_p, CL_INVALID_QUEUE_PROPERTIES, __LINE__);
  expect_error(od_t, CL_INVALID_QUEUE_PROPERTIES, __LINE__);
  expect_error(od_both, CL_INVALID_QUEUE_PROPERTIES, __LINE__);
  /* A bad value wins over the on-device rule: the value is not valid. */
  cl_queue_properties od_bad[] = {CL_QUEUE_PROPERTIES, dev,
                                  CL_QUEUE_PRIORITY_KHR, 9, 0};
  expect_error(od_bad, CL_INVALID_VALUE, __LINE__);
  /* The usual object checks through the extension's name. */
  cl_int err;
  cl_command_queue q = create_khr(NULL, env.device, NULL, &err);
  CHECK(q == NULL);
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  q = create_khr(env.context, NULL, NULL, &err);
  CHECK(q == NULL);
  CHECK_EQ(err, CL_INVALID_DEVICE);
}

static cl_ulong now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (cl_ulong)ts.tv_sec * 1000000000ull + (cl_ulong)ts.tv_nsec;
}

/* Waits for ev by polling its status, so that this thread never runs a
 * command itself (clWaitForEvents and clFinish may): only the executors'
 * order is measured. */
static void poll_wait(cl_event ev) {
  cl_int status = CL_QUEUED;
  do {
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
    REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                              sizeof status, &status, NULL));
  } while (status > CL_COMPLETE);
  CHECK_EQ(status, CL_COMPLETE);
}

static cl_ulong end_of(cl_event ev) {
  cl_ulong t = 0;
  REQUIRE_OK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t,
                                     &t, NULL));
  return t;
}

/* A backlog of LOW independent kernels on a low-priority out-of-order
 * queue, then HIGH kernels on a high-priority in-order queue: the high
 * ones must not wait for the backlog. Without priorities the executors
 * take ready commands oldest first, so every low kernel would start
 * before the first high one. */
static int run_priority(cl_program p, cl_queue_properties low_prio,
                        cl_queue_properties high_prio, int *high_done) {
  enum { LOW = 24, HIGH = 4 };
  cl_int err;
  cl_kernel k = clCreateKernel(p, "spin", &err);
  REQUIRE_OK(err);
  cl_mem out = test_buffer(&env, (LOW + HIGH) * sizeof(cl_uint), NULL);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof out, &out));
  /* About 2 ms a kernel on this machine, measured. */
  cl_uint n = 1u << 16;
  size_t one = 1;
  for (;;) {
    cl_uint tag = 0;
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof n, &n));
    REQUIRE_OK(clSetKernelArg(k, 2, sizeof tag, &tag));
    cl_ulong t0 = now_ns();
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &one, NULL, 0,
                                      NULL, NULL));
    REQUIRE_OK(clFinish(env.queue));
    if (now_ns() - t0 > 2000000 || n >= 1u << 28)
      break;
    n *= 2;
  }
  cl_queue_properties lp[] = {CL_QUEUE_PROPERTIES,
                              CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                                  CL_QUEUE_PROFILING_ENABLE,
                              CL_QUEUE_PRIORITY_KHR, low_prio, 0};
  cl_queue_properties hp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE,
                              CL_QUEUE_PRIORITY_KHR, high_prio, 0};
  cl_command_queue lq = make(lp, &err);
  REQUIRE_OK(err);
  cl_command_queue hq = make(hp, &err);
  REQUIRE_OK(err);
  cl_event lev[LOW], hev[HIGH];
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof n, &n));
  for (cl_uint i = 0; i < LOW + HIGH; i++) {
    REQUIRE_OK(clSetKernelArg(k, 2, sizeof i, &i));
    REQUIRE_OK(clEnqueueNDRangeKernel(i < LOW ? lq : hq, k, 1, NULL, &one,
                                      NULL, 0, NULL,
                                      i < LOW ? &lev[i] : &hev[i - LOW]));
  }
  REQUIRE_OK(clFlush(lq));
  REQUIRE_OK(clFlush(hq));
  poll_wait(hev[HIGH - 1]);
  for (int i = 0; i < LOW; i++)
    poll_wait(lev[i]);
  cl_ulong high_end = end_of(hev[HIGH - 1]);
  *high_done = 0;
  for (int i = 0; i < LOW; i++)
    *high_done += end_of(lev[i]) < high_end;
  cl_uint v[LOW + HIGH];
  REQUIRE_OK(clEnqueueReadBuffer(hq, out, CL_TRUE, 0, sizeof v, v, 0, NULL,
                                 NULL));
  int bad = 0;
  for (cl_uint i = 0; i < LOW + HIGH; i++)
    bad += v[i] != spin_ref(n, i);
  CHECK_EQ(bad, 0);
  for (int i = 0; i < LOW; i++)
    REQUIRE_OK(clReleaseEvent(lev[i]));
  for (int i = 0; i < HIGH; i++)
    REQUIRE_OK(clReleaseEvent(hev[i]));
  REQUIRE_OK(clReleaseCommandQueue(lq));
  REQUIRE_OK(clReleaseCommandQueue(hq));
  REQUIRE_OK(clReleaseMemObject(out));
  REQUIRE_OK(clReleaseKernel(k));
  return LOW;
}

static void test_priority(cl_program p) {
  int before = 0;
  int low = run_priority(p, CL_QUEUE_PRIORITY_LOW_KHR,
                         CL_QUEUE_PRIORITY_HIGH_KHR, &before);
  printf("priority: %d of %d low-priority kernels finished before the last "
         "high-priority one\n", before, low);
  /* With priorities, the executors (one per core, at most 4) run the
   * high chain as soon as each link is ready: while its 4 kernels run,
   * the other executors finish a few low ones. Half the backlog leaves a
   * wide margin on a loaded machine. */
  CHECK(before <= low / 2);
  /* Equal priorities: oldest first, so the backlog goes first. (Not a
   * requirement of the extension; it shows the measurement can fail.) */
  int same = 0;
  run_priority(p, CL_QUEUE_PRIORITY_MED_KHR, CL_QUEUE_PRIORITY_MED_KHR,
               &same);
  printf("equal priorities: %d of %d low kernels finished first\n", same,
         low);
  CHECK(same > low / 2);
}

int main(void) {
  test_setup(&env);
  test_reports();
  cl_program p = test_build(&env, source, "");
  test_valid(p);
  test_errors();
  test_priority(p);
  REQUIRE_OK(clReleaseProgram(p));
  test_teardown(&env);
  return test_finish("queue-hints");
}
