/* Tests out-of-order queues and the launch path: independent commands
 * really run at the same time (two kernels that each wait for the other
 * through a global flag, a kernel that waits for a buffer copy), while
 * barriers, markers, wait lists and clFinish keep their order; commands
 * run by a waiting thread keep in-order semantics, callbacks and
 * profiling; events outlive their queue. No timing assertion: overlap is
 * proven by kernels that can only finish with the flag set if the other
 * command ran while they did. */
#include "test_util.h"
#include <time.h>

static const char *source =
    "__kernel void pair(volatile __global int *flags, int me, int other,\n"
    "                   __global int *out, uint limit) {\n"
    "  atomic_xchg(&flags[me], 1);\n"
    "  int seen = 0;\n"
    "  for (uint i = 0; i < limit && !seen; i++)\n"
    "    seen = flags[other] != 0;\n"
    "  out[me] = seen;\n"
    "}\n"
    "__kernel void wait_flag(volatile __global int *started,\n"
    "                        volatile __global int *flag,\n"
    "                        __global int *out, uint limit) {\n"
    "  atomic_xchg(started, 1);\n"
    "  int seen = 0;\n"
    "  for (uint i = 0; i < limit && !seen; i++)\n"
    "    seen = *flag != 0;\n"
    "  *out = seen;\n"
    "}\n"
    "__kernel void add_one(__global int *x) {\n"
    "  x[get_global_id(0)] += 1;\n"
    "}\n"
    "__kernel void set_at(__global int *x, int i, int v) { x[i] = v; }\n"
    "__kernel void plus_one(__global const int *a, __global int *b) {\n"
    "  size_t i = get_global_id(0);\n"
    "  b[i] = a[i] + 1;\n"
    "}\n";

/* Iterations a waiting kernel polls its flag: about a second, far longer
 * than any scheduling delay, and only spent when the overlap fails. */
#define SPIN_LIMIT (1u << 29)

typedef struct ooo_env {
  test_env *env;
  cl_command_queue q;  /* out of order, profiling */
  cl_program prog;
  cl_kernel pair, wait_flag, add_one, set_at, plus_one;
} ooo_env;

static cl_mem make_buffer(ooo_env *o, size_t size, const void *init) {
  cl_int err;
  cl_mem m = clCreateBuffer(o->env->context,
                            init ? CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE,
                            size, (void *)init, &err);
  REQUIRE_OK(err);
  return m;
}

static cl_int status_of(cl_event ev) {
  cl_int s = 1;
  REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s,
                            &s, NULL));
  return s;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static cl_event launch_1(cl_command_queue q, cl_kernel k, size_t n,
                         cl_uint num_waits, const cl_event *waits) {
  cl_event ev;
  REQUIRE_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, num_waits,
                                    waits, &ev));
  return ev;
}

/* Two single-work-item kernels, each raising its flag and waiting for
 * the other's: both see the other's flag only if they overlapped. */
static void test_two_kernels_overlap(ooo_env *o) {
  cl_uint units = 0;
  REQUIRE_OK(clGetDeviceInfo(o->env->device, CL_DEVICE_MAX_COMPUTE_UNITS,
                             sizeof units, &units, NULL));
  int zero[2] = {0, 0}, minus[2] = {-1, -1}, out[2];
  cl_mem flags = make_buffer(o, sizeof zero, zero);
  cl_mem res = make_buffer(o, sizeof minus, minus);
  cl_uint limit = SPIN_LIMIT;
  cl_event ev[2];
  for (int me = 0; me < 2; me++) {
    int other = 1 - me;
    REQUIRE_OK(clSetKernelArg(o->pair, 0, sizeof flags, &flags));
    REQUIRE_OK(clSetKernelArg(o->pair, 1, sizeof me, &me));
    REQUIRE_OK(clSetKernelArg(o->pair, 2, sizeof other, &other));
    REQUIRE_OK(clSetKernelArg(o->pair, 3, sizeof res, &res));
    REQUIRE_OK(clSetKernelArg(o->pair, 4, sizeof limit, &limit));
    ev[me] = launch_1(o->q, o->pair, 1, 0, NULL);
  }
  REQUIRE_OK(clFinish(o->q));
  CHECK_EQ(status_of(ev[0]), CL_COMPLETE);
  CHECK_EQ(status_of(ev[1]), CL_COMPLETE);
  REQUIRE_OK(clEnqueueReadBuffer(o->q, res, CL_TRUE, 0, sizeof out, out, 0,
                                 NULL, NULL));
  if (units > 1) {
    /* Both waited successfully: they ran at the same time. */
    CHECK_EQ(out[0], 1);
    CHECK_EQ(out[1], 1);
  } else {
    /* One compute unit need not run them together; both must finish. */
    CHECK(out[0] == 0 || out[0] == 1);
    CHECK(out[1] == 0 || out[1] == 1);
    printf("one compute unit: overlap %s\n",
           out[0] && out[1] ? "seen" : "not required");
  }
  clReleaseEvent(ev[0]);
  clReleaseEvent(ev[1]);
  clReleaseMemObject(flags);
  clReleaseMemObject(res);
}

/* A kernel raises `started` and waits for `flag`; copies of started
 * into flag, enqueued without dependencies while it runs, release it.
 * The kernel sees the flag only if a copy ran while it was running. */
static void test_kernel_and_copy_overlap(ooo_env *o) {
  int zero = 0, minus = -1, out = 0;
  cl_mem started = make_buffer(o, sizeof zero, &zero);
  cl_mem flag = make_buffer(o, sizeof zero, &zero);
  cl_mem res = make_buffer(o, sizeof minus, &minus);
  cl_uint limit = SPIN_LIMIT;
  REQUIRE_OK(clSetKernelArg(o->wait_flag, 0, sizeof started, &started));
  REQUIRE_OK(clSetKernelArg(o->wait_flag, 1, sizeof flag, &flag));
  REQUIRE_OK(clSetKernelArg(o->wait_flag, 2, sizeof res, &res));
  REQUIRE_OK(clSetKernelArg(o->wait_flag, 3, sizeof limit, &limit));
  cl_event k = launch_1(o->q, o->wait_flag, 1, 0, NULL);
  /* Polling the status is enough to get the kernel started. */
  for (int i = 0; i < 10000 && status_of(k) > CL_RUNNING; i++)
    sleep_ms(1);
  CHECK(status_of(k) <= CL_RUNNING);
  int copies = 0;
  while (status_of(k) > CL_COMPLETE && copies < 100000) {
    cl_event c;
    REQUIRE_OK(clEnqueueCopyBuffer(o->q, started, flag, 0, 0, sizeof zero, 0,
                                   NULL, &c));
    /* Waits for the copy alone, not for the kernel. */
    REQUIRE_OK(clWaitForEvents(1, &c));
    clReleaseEvent(c);
    copies++;
  }
  REQUIRE_OK(clFinish(o->q));
  REQUIRE_OK(clEnqueueReadBuffer(o->q, res, CL_TRUE, 0, sizeof out, &out, 0,
                                 NULL, NULL));
  CHECK_EQ(out, 1);
  CHECK(copies >= 1);
  clReleaseEvent(k);
  clReleaseMemObject(started);
  clReleaseMemObject(flag);
  clReleaseMemObject(res);
}

/* Sets x[i] = v with the set_at kernel after the given waits. */
static cl_event set_at(ooo_env *o, cl_mem x, int i, int v, cl_uint nw,
                       const cl_event *w) {
  REQUIRE_OK(clSetKernelArg(o->set_at, 0, sizeof x, &x));
  REQUIRE_OK(clSetKernelArg(o->set_at, 1, sizeof i, &i));
  REQUIRE_OK(clSetKernelArg(o->set_at, 2, sizeof v, &v));
  return launch_1(o->q, o->set_at, 1, nw, w);
}

/* Markers, barriers and wait lists against a command held back by a user
 * event: what depends on it waits, what does not runs (reordering). */
static void test_ordering(ooo_env *o) {
  cl_int err;
  int init[8] = {0};
  cl_mem x = make_buffer(o, sizeof init, init);
  cl_event gate = clCreateUserEvent(o->env->context, &err);
  REQUIRE_OK(err);
  cl_event a = set_at(o, x, 0, 10, 1, &gate);        /* held back */
  cl_event b = set_at(o, x, 1, 11, 0, NULL);         /* independent */
  cl_event c = set_at(o, x, 2, 12, 1, &a);           /* waits for a */
  cl_event m_all, m_b;
  REQUIRE_OK(clEnqueueMarkerWithWaitList(o->q, 0, NULL, &m_all));
  REQUIRE_OK(clEnqueueMarkerWithWaitList(o->q, 1, &b, &m_b));
  cl_event bar;
  REQUIRE_OK(clEnqueueBarrierWithWaitList(o->q, 0, NULL, &bar));
  cl_event d = set_at(o, x, 3, 13, 0, NULL);         /* after the barrier */
  REQUIRE_OK(clFlush(o->q));
  REQUIRE_OK(clWaitForEvents(1, &b));
  REQUIRE_OK(clWaitForEvents(1, &m_b)); /* its list is done: it completes */
  sleep_ms(20);
  CHECK_EQ(status_of(b), CL_COMPLETE);  /* ran past the held command */
  CHECK(status_of(a) > CL_RUNNING);
  CHECK(status_of(c) > CL_RUNNING);
  CHECK(status_of(m_all) > CL_COMPLETE);
  CHECK(status_of(bar) > CL_COMPLETE);
  CHECK(status_of(d) > CL_RUNNING);
  int out[8];
  /* The blocking read follows the barrier too: read only after the gate. */
  REQUIRE_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  REQUIRE_OK(clWaitForEvents(1, &d));
  CHECK_EQ(status_of(a), CL_COMPLETE);
  CHECK_EQ(status_of(c), CL_COMPLETE);
  CHECK_EQ(status_of(m_all), CL_COMPLETE);
  CHECK_EQ(status_of(bar), CL_COMPLETE);
  REQUIRE_OK(clEnqueueReadBuffer(o->q, x, CL_TRUE, 0, sizeof out, out, 0,
                                 NULL, NULL));
  for (int i = 0; i < 4; i++)
    CHECK_EQ(out[i], 10 + i);
  /* Profiling order of the dependent pair: c started after a ended. */
  cl_ulong a_end = 0, c_start = 0, d_start = 0, bar_end = 0;
  REQUIRE_OK(clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_END,
                                     sizeof a_end, &a_end, NULL));
  REQUIRE_OK(clGetEventProfilingInfo(c, CL_PROFILING_COMMAND_START,
                                     sizeof c_start, &c_start, NULL));
  REQUIRE_OK(clGetEventProfilingInfo(bar, CL_PROFILING_COMMAND_END,
                                     sizeof bar_end, &bar_end, NULL));
  REQUIRE_OK(clGetEventProfilingInfo(d, CL_PROFILING_COMMAND_START,
                                     sizeof d_start, &d_start, NULL));
  CHECK(c_start >= a_end);
  CHECK(d_start >= bar_end);
  cl_event all[] = {gate, a, b, c, m_all, m_b, bar, d};
  for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
    clReleaseEvent(all[i]);
  clReleaseMemObject(x);
}

/* A failed user event fails what waits for it, on an out-of-order queue,
 * and clFinish still returns. */
static void test_failed_dependency(ooo_env *o) {
  cl_int err;
  int init[2] = {0, 0};
  cl_mem x = make_buffer(o, sizeof init, init);
  cl_event gate = clCreateUserEvent(o->env->context, &err);
  REQUIRE_OK(err);
  cl_event a = set_at(o, x, 0, 5, 1, &gate);
  cl_event b = set_at(o, x, 1, 6, 0, NULL);
  REQUIRE_OK(clSetUserEventStatus(gate, -77));
  CHECK_EQ(clWaitForEvents(1, &a), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  CHECK(status_of(a) < 0);
  REQUIRE_OK(clFinish(o->q));
  CHECK_EQ(status_of(b), CL_COMPLETE);
  int out[2];
  REQUIRE_OK(clEnqueueReadBuffer(o->q, x, CL_TRUE, 0, sizeof out, out, 0,
                                 NULL, NULL));
  CHECK_EQ(out[0], 0); /* never ran */
  CHECK_EQ(out[1], 6);
  clReleaseEvent(gate);
  clReleaseEvent(a);
  clReleaseEvent(b);
  clReleaseMemObject(x);
}

/* Many independent kernels and copies at once: every one runs once. */
static void test_many_independent(ooo_env *o) {
  enum { N = 256 };
  static int src[N], out[N], out2[N];
  for (int i = 0; i < N; i++)
    src[i] = i * 7 - 3;
  cl_mem a = make_buffer(o, sizeof src, src);
  cl_mem b = make_buffer(o, sizeof src, NULL);
  cl_mem c = make_buffer(o, sizeof src, NULL);
  REQUIRE_OK(clSetKernelArg(o->plus_one, 0, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(o->plus_one, 1, sizeof b, &b));
  for (int i = 0; i < N; i++) {
    size_t off = (size_t)i, one = 1;
    REQUIRE_OK(clEnqueueNDRangeKernel(o->q, o->plus_one, 1, &off, &one, NULL,
                                      0, NULL, NULL));
    REQUIRE_OK(clEnqueueCopyBuffer(o->q, a, c, off * sizeof(int),
                                   off * sizeof(int), sizeof(int), 0, NULL,
                                   NULL));
  }
  REQUIRE_OK(clFinish(o->q));
  REQUIRE_OK(clEnqueueReadBuffer(o->q, b, CL_FALSE, 0, sizeof out, out, 0,
                                 NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(o->q, c, CL_FALSE, 0, sizeof out2, out2, 0,
                                 NULL, NULL));
  REQUIRE_OK(clFinish(o->q));
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != src[i] + 1 || out2[i] != src[i];
  CHECK_EQ(bad, 0);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(c);
}

static int callback_calls[3];
static void CL_CALLBACK count_cb(cl_event ev, cl_int status, void *data) {
  (void)ev;
  (void)data;
  int i = status == CL_SUBMITTED ? 0 : status == CL_RUNNING ? 1 : 2;
  __atomic_add_fetch(&callback_calls[i], 1, __ATOMIC_SEQ_CST);
}

/* An in-order chain run by waiting threads: clWaitForEvents on a middle
 * event runs the commands before it in order; callbacks fire once each;
 * profiling stays ordered; clFinish runs the rest. */
static void test_in_order_chain(ooo_env *o) {
  enum { CHAIN = 100 };
  int zero = 0, out = -1;
  cl_command_queue q = o->env->queue; /* in order, profiling */
  cl_mem x = make_buffer(o, sizeof zero, &zero);
  REQUIRE_OK(clSetKernelArg(o->add_one, 0, sizeof x, &x));
  cl_event ev[CHAIN];
  for (int i = 0; i < CHAIN; i++)
    ev[i] = launch_1(q, o->add_one, 1, 0, NULL);
  REQUIRE_OK(clSetEventCallback(ev[CHAIN - 1], CL_SUBMITTED, count_cb, NULL));
  REQUIRE_OK(clSetEventCallback(ev[CHAIN - 1], CL_RUNNING, count_cb, NULL));
  REQUIRE_OK(clSetEventCallback(ev[CHAIN - 1], CL_COMPLETE, count_cb, NULL));
  REQUIRE_OK(clWaitForEvents(1, &ev[CHAIN / 2]));
  for (int i = 0; i <= CHAIN / 2; i++)
    CHECK_EQ(status_of(ev[i]), CL_COMPLETE);
  REQUIRE_OK(clFinish(q));
  REQUIRE_OK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, sizeof out, &out, 0, NULL,
                                 NULL));
  CHECK_EQ(out, CHAIN);
  CHECK_EQ(callback_calls[0], 1);
  CHECK_EQ(callback_calls[1], 1);
  CHECK_EQ(callback_calls[2], 1);
  cl_ulong prev_end = 0;
  int unordered = 0;
  for (int i = 0; i < CHAIN; i++) {
    cl_ulong t[4];
    static const cl_profiling_info what[4] = {
        CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
        CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
    for (int j = 0; j < 4; j++)
      REQUIRE_OK(clGetEventProfilingInfo(ev[i], what[j], sizeof t[j], &t[j],
                                         NULL));
    unordered += !(t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3]) ||
                 t[2] < prev_end;
    prev_end = t[3];
    clReleaseEvent(ev[i]);
  }
  CHECK_EQ(unordered, 0);
  clReleaseMemObject(x);
}

/* Events outlive their queue, whether or not the command has run when
 * the application lets go of the queue; recycled events start clean. */
static void test_event_lifetime(ooo_env *o) {
  cl_int err;
  int zero = 0, out = -1;
  cl_mem x = make_buffer(o, sizeof zero, &zero);
  cl_event gate = clCreateUserEvent(o->env->context, &err);
  REQUIRE_OK(err);
  cl_command_queue q = clCreateCommandQueue(
      o->env->context, o->env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
      &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(o->add_one, 0, sizeof x, &x));
  cl_event k = launch_1(q, o->add_one, 1, 1, &gate);
  cl_event dropped = launch_1(q, o->add_one, 1, 1, &k);
  REQUIRE_OK(clReleaseEvent(dropped)); /* still runs */
  REQUIRE_OK(clReleaseCommandQueue(q));
  cl_command_queue eq = NULL;
  REQUIRE_OK(clGetEventInfo(k, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, NULL));
  CHECK(eq == q);
  REQUIRE_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  REQUIRE_OK(clWaitForEvents(1, &k));
  cl_uint refs = 0;
  REQUIRE_OK(clGetEventInfo(k, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs,
                            NULL));
  CHECK(refs >= 1);
  REQUIRE_OK(clReleaseEvent(k));
  REQUIRE_OK(clReleaseEvent(gate));
  REQUIRE_OK(clFinish(o->env->queue)); /* nothing of q's is on it */
  /* The second kernel ran too (its queue is gone: poll the buffer). */
  for (int i = 0; i < 10000 && out != 2; i++) {
    REQUIRE_OK(clEnqueueReadBuffer(o->env->queue, x, CL_TRUE, 0, sizeof out,
                                   &out, 0, NULL, NULL));
    if (out != 2)
      sleep_ms(1);
  }
  CHECK_EQ(out, 2);
  /* A fresh (possibly recycled) event reports fresh state. */
  cl_event u = clCreateUserEvent(o->env->context, &err);
  REQUIRE_OK(err);
  CHECK_EQ(status_of(u), CL_SUBMITTED);
  refs = 0;
  REQUIRE_OK(clGetEventInfo(u, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs,
                            NULL));
  CHECK_EQ(refs, 1);
  clReleaseEvent(u);
  clReleaseMemObject(x);
}

/* Blocking calls and clFinish between enqueues, as a host loop does. */
static void test_round_trips(ooo_env *o) {
  int zero = 0, out = -1;
  cl_mem x = make_buffer(o, sizeof zero, &zero);
  REQUIRE_OK(clSetKernelArg(o->add_one, 0, sizeof x, &x));
  for (int i = 0; i < 1000; i++) {
    cl_event ev = launch_1(o->q, o->add_one, 1, 0, NULL);
    if (i % 3 == 0)
      REQUIRE_OK(clFinish(o->q));
    else
      REQUIRE_OK(clWaitForEvents(1, &ev));
    CHECK_EQ(status_of(ev), CL_COMPLETE);
    clReleaseEvent(ev);
  }
  REQUIRE_OK(clEnqueueReadBuffer(o->q, x, CL_TRUE, 0, sizeof out, &out, 0,
                                 NULL, NULL));
  CHECK_EQ(out, 1000);
  clReleaseMemObject(x);
}

int main(void) {
  test_env env;
  test_setup(&env);
  ooo_env o = {.env = &env};
  cl_int err;
  cl_queue_properties props[] = {
      CL_QUEUE_PROPERTIES,
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE, 0};
  o.q = clCreateCommandQueueWithProperties(env.context, env.device, props,
                                           &err);
  REQUIRE_OK(err);
  o.prog = test_build(&env, source, "");
  o.pair = clCreateKernel(o.prog, "pair", &err);
  REQUIRE_OK(err);
  o.wait_flag = clCreateKernel(o.prog, "wait_flag", &err);
  REQUIRE_OK(err);
  o.add_one = clCreateKernel(o.prog, "add_one", &err);
  REQUIRE_OK(err);
  o.set_at = clCreateKernel(o.prog, "set_at", &err);
  REQUIRE_OK(err);
  o.plus_one = clCreateKernel(o.prog, "plus_one", &err);
  REQUIRE_OK(err);

  test_two_kernels_overlap(&o);
  test_kernel_and_copy_overlap(&o);
  test_ordering(&o);
  test_failed_dependency(&o);
  test_many_independent(&o);
  test_in_order_chain(&o);
  test_event_lifetime(&o);
  test_round_trips(&o);

  clReleaseKernel(o.pair);
  clReleaseKernel(o.wait_flag);
  clReleaseKernel(o.add_one);
  clReleaseKernel(o.set_at);
  clReleaseKernel(o.plus_one);
  clReleaseProgram(o.prog);
  clReleaseCommandQueue(o.q);
  test_teardown(&env);
  return test_finish("ooo-queue");
}
