/* Region mode's collective slots when a kernel mixes value widths: a
 * region reads one collective's result and deposits the next one's value
 * in the same work-item loop, so a 32-bit result's slots must not be
 * overwritten by a 64-bit deposit of another work-item before they are
 * read (region_internal.h, sub_slot_type). An int sub-group scan followed
 * by a long one gave 992 of 1024 wrong results in region mode before the
 * slots were widened for such kernels; fiber mode was right. The
 * work-group's 32-bit steps have 4-byte slots unless the kernel also has
 * a 64-bit work-group step (group_slot_type); work_group_broadcast keeps
 * the library's 8-byte slots next to an int scan's 4-byte ones.
 * Checked against a host reference, for sub-groups and the work-group. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>

static const char source[] =
    "kernel void sub(global const int *in, global long *out,\n"
    "                global int *lane) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int x = in[i];\n"
    "  int a = sub_group_scan_inclusive_add(x);\n"
    "  long b = sub_group_scan_inclusive_add((long)x * 3);\n"
    "  int m = sub_group_reduce_max(x);\n"
    "  out[i] = (a + m) * 1000000L + b;\n"
    "  lane[i] = (int)get_sub_group_local_id();\n"
    "}\n"
    "kernel void group(global const int *in, global long *out,\n"
    "                  global int *lane) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int x = in[i];\n"
    "  int a = work_group_scan_inclusive_add(x);\n"
    "  long b = work_group_scan_inclusive_add((long)x * 3);\n"
    "  int m = work_group_reduce_max(x);\n"
    "  out[i] = (a + m) * 1000000L + b;\n"
    "  lane[i] = (int)get_local_id(0);\n"
    "}\n"
    "kernel void broadcast(global const int *in, global long *out,\n"
    "                      global int *lane) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int x = in[i];\n"
    "  int a = work_group_scan_inclusive_add(x);\n"
    "  long b = (long)work_group_broadcast(a, (size_t)BROADCAST_LID) * 3;\n"
    "  int m = work_group_reduce_max(x);\n"
    "  out[i] = (a + m) * 1000000L + b;\n"
    "  lane[i] = (int)get_local_id(0);\n"
    "}\n";

enum { N = 1024, WG = 256, BROADCAST_LID = 5 };

/* broadcast: b is 3 times the scan's result of work-item BROADCAST_LID
 * of the group instead of the work-item's own. */
static void run(test_env *env, cl_program prog, const char *name,
                const int *in, int broadcast) {
  cl_int err;
  cl_mem bufs[3] = {test_buffer(env, N * sizeof(int), (void *)in),
                    test_buffer(env, N * sizeof(long long), NULL),
                    test_buffer(env, N * sizeof(int), NULL)};
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  for (cl_uint a = 0; a < 3; a++)
    REQUIRE_OK(clSetKernelArg(k, a, sizeof(cl_mem), &bufs[a]));
  size_t global = N, local = WG;
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  static long long out[N];
  static int lane[N];
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, bufs[1], CL_TRUE, 0, sizeof out,
                                 out, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, bufs[2], CL_TRUE, 0,
                                 sizeof lane, lane, 0, NULL, NULL));
  /* Each run of lanes from a lane 0 is one sub-group (or group). */
  int bad = 0;
  for (int s = 0; s < N;) {
    int e = s + 1;
    while (e < N && lane[e] != 0)
      e++;
    long long sum = 0, at_lid = 0;
    int max = in[s];
    for (int i = s; i < e; i++)
      max = in[i] > max ? in[i] : max;
    for (int i = s; i <= s + BROADCAST_LID && i < e; i++)
      at_lid += in[i];
    for (int i = s; i < e; i++) {
      sum += in[i];
      long long want =
          (sum + max) * 1000000LL + (broadcast ? at_lid : sum) * 3;
      if (out[i] != want && bad++ < 3)
        fprintf(stderr, "%s: [%d] %lld, expected %lld\n", name, i, out[i],
                want);
    }
    s = e;
  }
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);
  test_release_buffers(bufs, 3);
}

int main(void) {
  test_env env;
  test_setup(&env);
  char options[64];
  snprintf(options, sizeof options, "-cl-std=CL3.0 -DBROADCAST_LID=%d",
           BROADCAST_LID);
  cl_program prog = test_build(&env, source, options);
  static int in[N];
  test_seed(0x5107);
  for (int i = 0; i < N; i++)
    in[i] = (int)(test_rand() % 1000);
  run(&env, prog, "sub", in, 0);
  run(&env, prog, "group", in, 0);
  run(&env, prog, "broadcast", in, 1);
  clReleaseProgram(prog);
  test_teardown(&env);
  return test_finish("region-slots");
}
