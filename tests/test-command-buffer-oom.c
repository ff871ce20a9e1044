/* Command-buffer calls that fail for want of memory change nothing:
 * clUpdateMutableCommandsKHR applies every update or none, and a replay
 * of a buffer over several queues is queued whole or not at all. The
 * test fails the k-th allocation of the calling thread (k = 0, 1, ...)
 * until a call makes fewer allocations than k, and after each failed
 * call checks the command's info and a replay's results (or the count
 * of replays that ran) against the state before. The test replaces
 * malloc, calloc and realloc (over glibc's __libc_* functions), which
 * the sanitizers' own allocators forbid: under them it only says so. */
#include "cmdbuf_util.h"
#include <stdbool.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
int main(void) {
  printf("command-buffer-oom: skipped under a sanitizer (it replaces "
         "malloc)\n");
  return 0;
}
#else

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

/* Allocations this thread still lets through before failing one; -1:
 * none fails. fired: one did. Thread-local, so the executor's threads
 * are left alone. */
static _Thread_local long allow = -1;
static _Thread_local bool fired;

static bool fail_now(void) {
  if (allow < 0)
    return false;
  if (allow-- > 0)
    return false;
  allow = -1;
  fired = true;
  return true;
}

void *malloc(size_t n) { return fail_now() ? NULL : __libc_malloc(n); }
void *calloc(size_t n, size_t m) {
  return fail_now() ? NULL : __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
  return fail_now() ? NULL : __libc_realloc(p, n);
}

static void arm(long k) {
  fired = false;
  allow = k;
}

static void disarm(void) { allow = -1; }

static cmdbuf_fns F;
static test_env env;

enum { N = 256, HOLD = 300 };

static const char *source =
    "kernel void axpb(global const int *in, global int *out, int a, int b) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * a + b;\n"
    "}\n"
    "kernel void bump(global int *count) { atomic_inc(count); }\n";

/* Skein recycles released events: holding more than it keeps makes the
 * next commands allocate theirs, so that those allocations fail too. */
static cl_event held[HOLD];

static void hold_events(void) {
  cl_int err;
  for (int i = 0; i < HOLD; i++) {
    held[i] = clCreateUserEvent(env.context, &err);
    REQUIRE_OK(err);
  }
}

static void drop_events(void) {
  for (int i = 0; i < HOLD; i++) {
    REQUIRE_OK(clSetUserEventStatus(held[i], CL_COMPLETE));
    REQUIRE_OK(clReleaseEvent(held[i]));
  }
}

/* Replays cb and counts out[i] != in[i] * a + b over [0, g) and != -1
 * past it. */
static int replay_mismatches(cl_command_buffer_khr cb, cl_mem out,
                             const int *in, int a, int b, size_t g) {
  int minus = -1, got[N], bad = 0;
  REQUIRE_OK(clEnqueueFillBuffer(env.queue, out, &minus, sizeof minus, 0,
                                 sizeof got, 0, NULL, NULL));
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof got, got,
                                 0, NULL, NULL));
  for (size_t i = 0; i < N; i++)
    bad += got[i] != (i < g ? in[i] * a + b : -1);
  return bad;
}

/* An update of a scalar argument and the global size, failed at every
 * allocation it makes: each failure leaves the old size and the old
 * results, the first full run the new ones. */
static void test_update(cl_program prog) {
  cl_int err;
  int in_host[N];
  for (int i = 0; i < N; i++)
    in_host[i] = 7 * i - 300;
  cl_mem in = test_buffer(&env, sizeof in_host, in_host);
  cl_mem out = test_buffer(&env, sizeof in_host, NULL);
  cl_kernel k = clCreateKernel(prog, "axpb", &err);
  REQUIRE_OK(err);
  int a = 3, b = -2;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof in, &in));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof out, &out));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(k, 3, sizeof b, &b));
  cl_command_buffer_properties_khr p[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                          CL_COMMAND_BUFFER_MUTABLE_KHR, 0};
  cl_command_buffer_khr cb = F.clCreateCommandBufferKHR(1, &env.queue, p,
                                                        &err);
  REQUIRE_OK(err);
  cl_mutable_command_khr cmd = NULL;
  size_t g = 128;
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, k, 1, NULL, &g,
                                         NULL, 0, NULL, NULL, &cmd));
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  CHECK_EQ(replay_mismatches(cb, out, in_host, a, b, g), 0);
  int a2 = -5;
  size_t g2 = 192;
  cl_mutable_dispatch_arg_khr arg = {2, sizeof a2, &a2};
  skein_mutable_dispatch_config_khr c = {
      .command = cmd, .num_args = 1, .arg_list = &arg,
      .global_work_size = &g2};
  skein_command_buffer_update_type_khr t =
      SKEIN_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR;
  const void *cfg = &c;
  long failures = 0;
  for (long at = 0;; at++) {
    hold_events();
    arm(at);
    err = F.clUpdateMutableCommandsKHR(cb, 1, &t, &cfg);
    disarm();
    bool hit = fired;
    drop_events();
    size_t now = 0;
    REQUIRE_OK(F.clGetMutableCommandInfoKHR(
        cmd, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR, sizeof now, &now,
        NULL));
    if (err != CL_SUCCESS) {
      failures++;
      CHECK(hit);
      CHECK_EQ(err, CL_OUT_OF_HOST_MEMORY);
      CHECK_EQ(now, g);
      CHECK_EQ(replay_mismatches(cb, out, in_host, a, b, g), 0);
      continue;
    }
    /* An allocation whose failure was survived, or none failed. */
    CHECK_EQ(now, g2);
    CHECK_EQ(replay_mismatches(cb, out, in_host, a2, b, g2), 0);
    if (!hit)
      break;
    /* Undo, for the next round. */
    cl_mutable_dispatch_arg_khr back = {2, sizeof a, &a};
    skein_mutable_dispatch_config_khr undo = {
        .command = cmd, .num_args = 1, .arg_list = &back,
        .global_work_size = &g};
    const void *ucfg = &undo;
    REQUIRE_OK(F.clUpdateMutableCommandsKHR(cb, 1, &t, &ucfg));
  }
  printf("update: %ld failed allocations, each left the command as it "
         "was\n", failures);
  CHECK(failures >= 3);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseMemObject(in));
  REQUIRE_OK(clReleaseMemObject(out));
}

/* A replay over three queues, gated on a user event, enqueued with the
 * k-th allocation failing: when the call fails, no part of it may run
 * (the counter the replay bumps stays), and when it succeeds it runs
 * once. */
static void test_multi_queue_enqueue(cl_program prog) {
  cl_int err;
  cl_command_queue qs[3] = {env.queue, NULL, NULL};
  for (int i = 1; i < 3; i++) {
    qs[i] = clCreateCommandQueueWithProperties(env.context, env.device, NULL,
                                               &err);
    REQUIRE_OK(err);
  }
  int zero = 0;
  cl_mem count = test_buffer(&env, sizeof zero, &zero);
  cl_kernel k = clCreateKernel(prog, "bump", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof count, &count));
  cl_command_buffer_khr cb = F.clCreateCommandBufferKHR(3, qs, NULL, &err);
  REQUIRE_OK(err);
  size_t g = 16;
  for (int i = 0; i < 3; i++)
    REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb, qs[i], NULL, k, 1, NULL, &g,
                                           NULL, 0, NULL, NULL, NULL));
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  int expect = 0;
  long failures = 0;
  for (long at = 0;; at++) {
    cl_event gate = clCreateUserEvent(env.context, &err);
    REQUIRE_OK(err);
    hold_events();
    arm(at);
    err = F.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &gate, NULL);
    disarm();
    bool hit = fired;
    drop_events();
    REQUIRE_OK(clSetUserEventStatus(gate, CL_COMPLETE));
    REQUIRE_OK(clReleaseEvent(gate));
    for (int i = 0; i < 3; i++)
      REQUIRE_OK(clFinish(qs[i]));
    if (err == CL_SUCCESS)
      expect += 3 * (int)g;
    else
      failures++;
    int got = -1;
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, count, CL_TRUE, 0, sizeof got,
                                   &got, 0, NULL, NULL));
    CHECK_EQ(got, expect);
    if (err != CL_SUCCESS)
      CHECK_EQ(err, CL_OUT_OF_HOST_MEMORY);
    if (!hit)
      break;
  }
  printf("multi-queue enqueue: %ld failed allocations, none ran any of "
         "the replay\n", failures);
  CHECK(failures >= 3);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseMemObject(count));
  for (int i = 1; i < 3; i++)
    REQUIRE_OK(clReleaseCommandQueue(qs[i]));
}

int main(void) {
  test_setup(&env);
  cmdbuf_load(&env, &F);
  cl_program prog = test_build(&env, source, NULL);
  test_update(prog);
  test_multi_queue_enqueue(prog);
  REQUIRE_OK(clReleaseProgram(prog));
  test_teardown(&env);
  return test_finish("command-buffer-oom");
}
#endif
