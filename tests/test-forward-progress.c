/* Independent forward progress of sub-groups (cl_khr_subgroups,
 * CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS,
 * compiler/forward_progress.c): kernels in which one sub-group waits,
 * spinning, for a write by another sub-group of its work-group — a
 * turn-taking chain through an atomic load, spin locks through legacy and
 * C11 compare-exchange, a volatile flag in an OpenCL C 1.2 program, and a
 * chain on local atomics with sub_group_barrier in the loop, as the CTS's
 * ifp test has. Each must finish (an alarm turns a hang into a failure)
 * with the result a host model gives. Loops that only retry (a
 * compare-exchange sum, a fetch_add counter) must keep loop mode, and
 * -cl-no-subgroup-ifp must leave waiting loops in their fast mode. */
#include "test_util.h"

#include <stdbool.h>
#include <unistd.h>

static test_env env;

static const char *const src =
    /* Sub-group n-1 goes first, then n-2, ...: lane 0 of each waits for
     * its turn, writes its id where its turn says and passes the turn. */
    "kernel void chain(global atomic_int *turn, global int *order) {\n"
    "  int n = get_num_sub_groups(), s = get_sub_group_id();\n"
    "  size_t g = get_group_id(0) + get_num_groups(0) * get_group_id(1);\n"
    "  if (get_sub_group_local_id() == 0) {\n"
    "    while (atomic_load_explicit(turn + g, memory_order_acquire,\n"
    "                                memory_scope_work_group) != n - 1 - s)\n"
    "      ;\n"
    "    order[g * 64 + n - 1 - s] = s;\n"
    "    atomic_store_explicit(turn + g, n - s, memory_order_release,\n"
    "                          memory_scope_work_group);\n"
    "  }\n"
    "}\n"
    /* A spin lock the sub-groups of a group take in turn: the holder may
     * be another sub-group. Legacy atomics, expected value constant. */
    "kernel void lock_legacy(volatile global int *locks,\n"
    "                        global int *count) {\n"
    "  int g = get_group_id(0);\n"
    "  if (get_sub_group_local_id() == 0) {\n"
    "    while (atomic_cmpxchg(&locks[g], 0, 1) != 0)\n"
    "      ;\n"
    "    int c = count[g * 64];\n"
    "    count[g * 64 + 1 + c] = get_sub_group_id();\n"
    "    count[g * 64] = c + 1;\n"
    "    atomic_xchg(&locks[g], 0);\n"
    "  }\n"
    "}\n"
    /* The same lock in C11 form: the loop puts 0 back into expected. */
    "kernel void lock_c11(global atomic_int *locks, global int *count) {\n"
    "  int g = get_group_id(0);\n"
    "  if (get_sub_group_local_id() == 0) {\n"
    "    int expected;\n"
    "    do {\n"
    "      expected = 0;\n"
    "    } while (!atomic_compare_exchange_strong(&locks[g], &expected, 1));\n"
    "    int c = count[g * 64];\n"
    "    count[g * 64 + 1 + c] = get_sub_group_id();\n"
    "    count[g * 64] = c + 1;\n"
    "    atomic_store(&locks[g], 0);\n"
    "  }\n"
    "}\n"
    /* The CTS's pattern: local atomics, every lane in the loop, a
     * sub_group_barrier on each trip; only lane 0 waits. */
    "kernel void chain_local(global int *order) {\n"
    "  local atomic_int turn;\n"
    "  if (get_local_id(0) == 0)\n"
    "    atomic_init(&turn, 0);\n"
    "  work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int n = get_num_sub_groups(), s = get_sub_group_id();\n"
    "  bool run = true;\n"
    "  while (run) {\n"
    "    if (get_sub_group_local_id() == 0) {\n"
    "      while (atomic_load(&turn) != n - 1 - s)\n"
    "        ;\n"
    "      order[get_group_id(0) * 64 + n - 1 - s] = s;\n"
    "      atomic_store(&turn, n - s);\n"
    "    }\n"
    "    run = false;\n"
    "    sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (get_local_id(0) == 0)\n"
    "    order[get_group_id(0) * 64 + 63] = atomic_load(&turn);\n"
    "}\n"
    /* Loops that only retry: they keep loop mode. */
    "kernel void cas_sum(global int *sum, global const int *in) {\n"
    "  int old, v = in[get_global_id(0)];\n"
    "  do {\n"
    "    old = sum[0];\n"
    "  } while (atomic_cmpxchg(sum, old, old + v) != old);\n"
    "}\n"
    "kernel void take_tickets(global int *next, global int *seen) {\n"
    "  int t;\n"
    "  while ((t = atomic_inc(next)) < 1000)\n"
    "    atomic_inc(&seen[t]);\n"
    "}\n";

/* OpenCL C 1.2 with the extension: a volatile flag, no atomics types. */
static const char *const src12 =
    "#pragma OPENCL EXTENSION cl_khr_subgroups : enable\n"
    "kernel void chain_volatile(volatile global int *turn,\n"
    "                           global int *order) {\n"
    "  int n = get_num_sub_groups(), s = get_sub_group_id();\n"
    "  int g = get_group_id(0);\n"
    "  if (get_sub_group_local_id() == 0) {\n"
    "    while (turn[g] != n - 1 - s)\n"
    "      ;\n"
    "    order[g * 64 + n - 1 - s] = s;\n"
    "    mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "    atomic_xchg(&turn[g], n - s);\n"
    "  }\n"
    "}\n";

/* Runs kernel with the two buffers, 1D or 2D, and waits; a hang is
 * killed by the alarm. */
static void run(cl_program p, const char *name, cl_mem a, cl_mem b,
                cl_uint dims, const size_t *global, const size_t *local) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof b, &b));
  alarm(120);   /* a waiting loop that never yields hangs: fail instead */
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, dims, NULL, global, local,
                                    0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  alarm(0);
  clReleaseKernel(k);
}

static size_t sub_groups_of(cl_program p, const char *name, cl_uint dims,
                            const size_t *local) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  size_t n = 0;
  REQUIRE_OK(clGetKernelSubGroupInfo(
      k, env.device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
      dims * sizeof(size_t), local, sizeof n, &n, NULL));
  clReleaseKernel(k);
  return n;
}

/* The chain kernels: each group's order[] reads n-1, n-2, ..., 0 and
 * (chain, chain_volatile) its turn ends at n. */
static void test_chain(cl_program p, const char *name, cl_uint dims,
                       const size_t *global, const size_t *local,
                       bool has_turn) {
  size_t groups = global[0] / local[0] * (dims > 1 ? global[1] / local[1] : 1);
  size_t n = sub_groups_of(p, name, dims, local);
  if (n < 2 || n > 62) {
    fprintf(stderr, "%s: %zu sub-groups: shape does not test progress\n",
            name, n);
    test_failures++;
    return;
  }
  int *turn = calloc(groups, sizeof *turn);
  int *order = malloc(groups * 64 * sizeof *order);
  for (size_t i = 0; i < groups * 64; i++)
    order[i] = -1;
  cl_mem t = test_buffer(&env, groups * sizeof *turn, turn);
  cl_mem o = test_buffer(&env, groups * 64 * sizeof *order, order);
  if (has_turn)
    run(p, name, t, o, dims, global, local);
  else {
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    REQUIRE_OK(err);
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof o, &o));
    alarm(120);
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, dims, NULL, global,
                                      local, 0, NULL, NULL));
    REQUIRE_OK(clFinish(env.queue));
    alarm(0);
    clReleaseKernel(k);
  }
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, t, CL_TRUE, 0,
                                 groups * sizeof *turn, turn, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, o, CL_TRUE, 0,
                                 groups * 64 * sizeof *order, order, 0, NULL,
                                 NULL));
  int bad = 0;
  for (size_t g = 0; g < groups; g++) {
    for (size_t i = 0; i < n; i++)
      bad += order[g * 64 + i] != (int)(n - 1 - i);
    if (has_turn)
      bad += turn[g] != (int)n;
    else
      bad += order[g * 64 + 63] != (int)n;
  }
  if (bad) {
    fprintf(stderr, "%s (%zu sub-groups, local %zu): %d wrong values\n",
            name, n, local[0], bad);
    test_failures++;
  }
  clReleaseMemObject(t);
  clReleaseMemObject(o);
  free(turn);
  free(order);
}

/* The locks: every sub-group got in exactly once. */
static void test_lock(cl_program p, const char *name, size_t local) {
  size_t groups = 6, global = groups * local;
  size_t n = sub_groups_of(p, name, 1, &local);
  int *locks = calloc(groups, sizeof *locks);
  int *count = calloc(groups * 64, sizeof *count);
  cl_mem l = test_buffer(&env, groups * sizeof *locks, locks);
  cl_mem c = test_buffer(&env, groups * 64 * sizeof *count, count);
  run(p, name, l, c, 1, &global, &local);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, c, CL_TRUE, 0,
                                 groups * 64 * sizeof *count, count, 0, NULL,
                                 NULL));
  int bad = 0;
  for (size_t g = 0; g < groups; g++) {
    bad += count[g * 64] != (int)n;
    unsigned long long got = 0;
    for (size_t i = 0; i < n && i < 62; i++) {
      int s = count[g * 64 + 1 + i];
      if (s >= 0 && s < 62)
        got |= 1ull << s;
    }
    bad += got != (n >= 64 ? ~0ull : (1ull << n) - 1);
  }
  if (bad) {
    fprintf(stderr, "%s (%zu sub-groups, local %zu): %d wrong groups\n",
            name, n, local, bad);
    test_failures++;
  }
  clReleaseMemObject(l);
  clReleaseMemObject(c);
  free(locks);
  free(count);
}

/* The retry loops: right sums, and still loop mode (checked in the
 * default run only, from SKEIN_DUMP=modes). */
static void test_retry(cl_program p) {
  enum { N = 4096 };
  int *in = malloc(N * sizeof *in), sum = 0, expect = 0;
  for (int i = 0; i < N; i++)
    expect += in[i] = (int)(test_rand() % 1000);
  cl_mem s = test_buffer(&env, sizeof sum, &sum);
  cl_mem b = test_buffer(&env, N * sizeof *in, in);
  size_t global = N, local = 64;
  run(p, "cas_sum", s, b, 1, &global, &local);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, s, CL_TRUE, 0, sizeof sum, &sum,
                                 0, NULL, NULL));
  CHECK_EQ(sum, expect);
  int next = 0, *seen = calloc(1200, sizeof *seen);
  cl_mem nb = test_buffer(&env, sizeof next, &next);
  cl_mem sb = test_buffer(&env, 1200 * sizeof *seen, seen);
  global = 256;
  run(p, "take_tickets", nb, sb, 1, &global, &local);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, sb, CL_TRUE, 0,
                                 1200 * sizeof *seen, seen, 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < 1200; i++)
    bad += seen[i] != (i < 1000);
  CHECK_EQ(bad, 0);
  clReleaseMemObject(s);
  clReleaseMemObject(b);
  clReleaseMemObject(nb);
  clReleaseMemObject(sb);
  free(in);
  free(seen);
}

/* Which mode each kernel of source took, built with options. */
static char *modes_of(const char *source, const char *options) {
  setenv("SKEIN_DUMP", "modes", 1);
  test_capture capture;
  test_capture_begin(&capture);
  cl_program p = test_build(&env, source, options);
  char *modes = test_capture_end(&capture);
  unsetenv("SKEIN_DUMP");
  clReleaseProgram(p);
  return modes;
}

static void expect_mode(const char *modes, const char *kernel,
                        const char *mode) {
  char line[128];
  snprintf(line, sizeof line, "kernel %s: %s mode", kernel, mode);
  if (!strstr(modes, line)) {
    fprintf(stderr, "%s not in %s mode:\n%s", kernel, mode, modes);
    test_failures++;
  }
}

static void test_modes(void) {
  if (getenv("SKEIN_MODE") || getenv("SKEIN_VECTORIZE"))
    return;
  char *modes = modes_of(src, "-cl-std=CL3.0");
  expect_mode(modes, "chain", "fiber");
  expect_mode(modes, "lock_legacy", "fiber");
  expect_mode(modes, "lock_c11", "fiber");
  expect_mode(modes, "cas_sum", "loop");
  expect_mode(modes, "take_tickets", "loop");
  free(modes);
  /* The program gives up independent progress: its waits get no yield. */
  modes = modes_of(src, "-cl-std=CL3.0 -cl-no-subgroup-ifp");
  expect_mode(modes, "chain", "loop");
  expect_mode(modes, "lock_c11", "loop");
  free(modes);
}

static void test_reported(void) {
  CHECK(test_extension_listed(&env, "cl_khr_subgroups"));
  cl_bool progress = CL_FALSE;
  REQUIRE_OK(clGetDeviceInfo(env.device,
                             CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS,
                             sizeof progress, &progress, NULL));
  CHECK_EQ(progress, CL_TRUE);
  CHECK_EQ(test_extension_count(&env, "cl_khr_subgroups", 0), 1);
}

int main(void) {
  test_setup(&env);
  test_seed(0xf0a2d);
  test_reported();
  test_modes();
  cl_program p = test_build(&env, src, "-cl-std=CL3.0");
  size_t sg = test_expected_sub_group_size();
  /* Whole sub-groups, a partial last one, and a 2D group. */
  size_t locals[3] = {4 * sg, 3 * sg + sg / 2 + 1, 2 * sg};
  for (int i = 0; i < 3; i++) {
    size_t global = 5 * locals[i];
    test_chain(p, "chain", 1, &global, &locals[i], true);
    test_chain(p, "chain_local", 1, &global, &locals[i], false);
    test_lock(p, "lock_legacy", locals[i]);
    test_lock(p, "lock_c11", locals[i]);
  }
  size_t global2[2] = {4 * sg, 6}, local2[2] = {sg, 3};
  test_chain(p, "chain", 2, global2, local2, true);
  test_retry(p);
  clReleaseProgram(p);
  cl_program p12 = test_build(&env, src12, "-cl-std=CL1.2");
  size_t local = 3 * sg, global = 4 * local;
  test_chain(p12, "chain_volatile", 1, &global, &local, true);
  clReleaseProgram(p12);
  test_teardown(&env);
  return test_finish("forward-progress");
}
