/* cl_khr_command_buffer_mutable_dispatch through the ICD loader: a
 * recorded kernel command's buffer, scalar, SVM and __local arguments,
 * global size, global offset, local size and exec info updated between
 * replays and checked against host references; updates leave replays
 * enqueued before them alone; a failed update keeps nothing; arguments
 * left unset at recording (Finalized state); the info queries; and the
 * error codes of each misuse. */
#include "cmdbuf_util.h"
#include <stdbool.h>

static cmdbuf_fns F;

enum { N = 512 };

static const char *source =
    "kernel void axpb(global const int *in, global int *out, int a, int b) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * a + b;\n"
    "}\n"
    /* Each group sums its inputs through __local memory into out[group]. */
    "kernel void gsum(global const int *in, global int *out, local int *t) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  t[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l == 0) { int s = 0; for (size_t j = 0; j < n; j++) s += t[j];\n"
    "    out[get_group_id(0)] = s; }\n"
    "}\n";

static cl_mem buf(test_env *env, const int *init) {
  return test_buffer(env, N * sizeof(int), (void *)init);
}

static void read_ints(test_env *env, cl_mem m, int *out) {
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, N * sizeof(int),
                                 out, 0, NULL, NULL));
}

static void zero(test_env *env, cl_mem m) {
  int z = 0;
  REQUIRE_OK(clEnqueueFillBuffer(env->queue, m, &z, sizeof z, 0,
                                 N * sizeof(int), 0, NULL, NULL));
}

static cl_command_buffer_khr mutable_cb(test_env *env) {
  cl_command_buffer_properties_khr p[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                          CL_COMMAND_BUFFER_MUTABLE_KHR, 0};
  cl_int err;
  cl_command_buffer_khr cb = F.clCreateCommandBufferKHR(1, &env->queue, p,
                                                        &err);
  REQUIRE_OK(err);
  return cb;
}

static cl_int update(cl_command_buffer_khr cb,
                     const skein_mutable_dispatch_config_khr *c) {
  skein_command_buffer_update_type_khr t =
      SKEIN_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR;
  const void *cfg = c;
  return F.clUpdateMutableCommandsKHR(cb, 1, &t, &cfg);
}

/* Counts out[i] != in[i] * a + b over [from, to), and out[i] != keep
 * elsewhere. */
static int mismatches(const int *in, const int *out, int a, int b,
                      size_t from, size_t to, int keep) {
  int bad = 0;
  for (size_t i = 0; i < N; i++)
    bad += out[i] != (i >= from && i < to ? in[i] * a + b : keep);
  return bad;
}

static void test_arguments_and_geometry(test_env *env, cl_program prog) {
  cl_int err;
  int in_host[N], in2_host[N], got[N];
  for (int i = 0; i < N; i++) {
    in_host[i] = i - 100;
    in2_host[i] = 3 * i + 1;
  }
  cl_mem in = buf(env, in_host), in2 = buf(env, in2_host);
  cl_mem out = buf(env, NULL), out2 = buf(env, NULL);
  zero(env, out);
  zero(env, out2);
  cl_kernel k = clCreateKernel(prog, "axpb", &err);
  REQUIRE_OK(err);
  int a = 2, b = 5;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof in, &in));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof out, &out));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(k, 3, sizeof b, &b));
  cl_command_buffer_khr cb = mutable_cb(env);
  cl_mutable_command_khr cmd = NULL;
  size_t g = 256, off = 0, l = 64;
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, k, 1, &off, &g, &l,
                                         0, NULL, NULL, &cmd));
  CHECK(cmd != NULL);
  /* Updates need a finalized buffer. */
  skein_mutable_dispatch_config_khr c = {.command = cmd};
  CHECK_EQ(update(cb, &c), CL_INVALID_OPERATION);
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  int bad = 0;
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  read_ints(env, out, got);
  bad += mismatches(in_host, got, 2, 5, 0, 256, 0);

  /* Scalar and buffer arguments. */
  int a2 = -3;
  cl_mutable_dispatch_arg_khr args[] = {{0, sizeof in2, &in2},
                                        {1, sizeof out2, &out2},
                                        {2, sizeof a2, &a2}};
  c = (skein_mutable_dispatch_config_khr){
      .command = cmd, .num_args = 3, .arg_list = args};
  REQUIRE_OK(update(cb, &c));
  /* The kernel object itself is unchanged. */
  zero(env, out);
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &g, NULL, 0,
                                    NULL, NULL));
  read_ints(env, out, got);
  bad += mismatches(in_host, got, 2, 5, 0, 256, 0);
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  read_ints(env, out2, got);
  bad += mismatches(in2_host, got, -3, 5, 0, 256, 0);

  /* Global size and offset. */
  zero(env, out2);
  size_t g2 = 128, off2 = 256;
  c = (skein_mutable_dispatch_config_khr){.command = cmd,
                                          .global_work_size = &g2,
                                          .global_work_offset = &off2};
  REQUIRE_OK(update(cb, &c));
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  read_ints(env, out2, got);
  bad += mismatches(in2_host, got, -3, 5, 256, 384, 0);
  size_t q[3];
  REQUIRE_OK(F.clGetMutableCommandInfoKHR(
      cmd, CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR, sizeof(size_t), q, NULL));
  CHECK_EQ(q[0], 128);
  REQUIRE_OK(F.clGetMutableCommandInfoKHR(
      cmd, CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR, sizeof(size_t), q,
      NULL));
  CHECK_EQ(q[0], 256);

  /* Local size (uniform stays uniform). */
  size_t l2 = 32;
  c = (skein_mutable_dispatch_config_khr){.command = cmd, .work_dim = 1,
                                          .local_work_size = &l2};
  REQUIRE_OK(update(cb, &c));
  REQUIRE_OK(F.clGetMutableCommandInfoKHR(
      cmd, CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR, sizeof(size_t), q, NULL));
  CHECK_EQ(q[0], 32);
  /* A local size that makes the groups non-uniform changes uniformity. */
  size_t l3 = 48;
  c.local_work_size = &l3;
  CHECK_EQ(update(cb, &c), CL_INVALID_OPERATION);
  /* Exec info is checked as clSetKernelExecInfo checks it. */
  void *ptrs[1] = {NULL};
  cl_mutable_dispatch_exec_info_khr info = {CL_KERNEL_EXEC_INFO_SVM_PTRS,
                                            sizeof ptrs, ptrs};
  c = (skein_mutable_dispatch_config_khr){
      .command = cmd, .num_exec_infos = 1, .exec_info_list = &info};
  REQUIRE_OK(update(cb, &c));
  info.param_name = 0x4242;
  CHECK_EQ(update(cb, &c), CL_INVALID_VALUE);

  /* An update that fails in part keeps nothing: b would change, but
   * argument 9 does not exist. */
  int b2 = 100;
  cl_mutable_dispatch_arg_khr half[] = {{3, sizeof b2, &b2},
                                        {9, sizeof b2, &b2}};
  c = (skein_mutable_dispatch_config_khr){
      .command = cmd, .num_args = 2, .arg_list = half};
  CHECK_EQ(update(cb, &c), CL_INVALID_ARG_INDEX);
  /* Two configs, the second bad: the first is not kept either. */
  skein_mutable_dispatch_config_khr good = {
      .command = cmd, .num_args = 1, .arg_list = half};
  skein_mutable_dispatch_config_khr badc = {.command = cmd, .work_dim = 2};
  const void *cfgs[2] = {&good, &badc};
  skein_command_buffer_update_type_khr types[2] = {0, 0};
  CHECK_EQ(F.clUpdateMutableCommandsKHR(cb, 2, types, cfgs),
           CL_INVALID_OPERATION);
  zero(env, out2);
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  read_ints(env, out2, got);
  bad += mismatches(in2_host, got, -3, 5, 256, 384, 0);

  /* A replay enqueued before an update runs the old command, though it
   * runs after the update. */
  zero(env, out);
  zero(env, out2);
  REQUIRE_OK(clFinish(env->queue));
  cl_event gate = clCreateUserEvent(env->context, &err);
  REQUIRE_OK(err);
  cl_event before;
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &gate, &before));
  cl_mutable_dispatch_arg_khr to_out[] = {{1, sizeof out, &out},
                                          {3, sizeof b2, &b2}};
  c = (skein_mutable_dispatch_config_khr){
      .command = cmd, .num_args = 2, .arg_list = to_out};
  REQUIRE_OK(update(cb, &c));
  REQUIRE_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  REQUIRE_OK(clWaitForEvents(1, &before));
  read_ints(env, out2, got);
  bad += mismatches(in2_host, got, -3, 5, 256, 384, 0);
  read_ints(env, out, got);
  bad += mismatches(in2_host, got, 0, 0, 0, 0, 0);
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  read_ints(env, out, got);
  bad += mismatches(in2_host, got, -3, 100, 256, 384, 0);
  CHECK_EQ(bad, 0);
  REQUIRE_OK(clReleaseEvent(gate));
  REQUIRE_OK(clReleaseEvent(before));

  /* Queries. */
  cl_kernel qk = NULL;
  REQUIRE_OK(F.clGetMutableCommandInfoKHR(cmd, CL_MUTABLE_DISPATCH_KERNEL_KHR,
                                          sizeof qk, &qk, NULL));
  CHECK(qk == k);
  cl_uint dims = 0;
  REQUIRE_OK(F.clGetMutableCommandInfoKHR(
      cmd, CL_MUTABLE_DISPATCH_DIMENSIONS_KHR, sizeof dims, &dims, NULL));
  CHECK_EQ(dims, 1);
  cl_command_buffer_khr qcb = NULL;
  REQUIRE_OK(F.clGetMutableCommandInfoKHR(
      cmd, CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR, sizeof qcb, &qcb, NULL));
  CHECK(qcb == cb);
  cl_command_queue qq = NULL;
  REQUIRE_OK(F.clGetMutableCommandInfoKHR(
      cmd, CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR, sizeof qq, &qq, NULL));
  CHECK(qq == env->queue);
  cl_command_type type = 0;
  REQUIRE_OK(F.clGetMutableCommandInfoKHR(
      cmd, CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR, sizeof type, &type, NULL));
  CHECK_EQ(type, CL_COMMAND_NDRANGE_KERNEL);
  size_t size = 99;
  REQUIRE_OK(F.clGetMutableCommandInfoKHR(
      cmd, CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR, 0, NULL, &size));
  CHECK_EQ(size, 0);
  CHECK_EQ(F.clGetMutableCommandInfoKHR(cmd, 0x4242, 0, NULL, &size),
           CL_INVALID_VALUE);
  CHECK_EQ(F.clGetMutableCommandInfoKHR(NULL, CL_MUTABLE_DISPATCH_KERNEL_KHR,
                                        0, NULL, &size),
           CL_INVALID_MUTABLE_COMMAND_KHR);

  /* Misuse. */
  c = (skein_mutable_dispatch_config_khr){.command = NULL};
  CHECK_EQ(update(cb, &c), CL_INVALID_MUTABLE_COMMAND_KHR);
  c = (skein_mutable_dispatch_config_khr){.command = cmd, .num_args = 1};
  CHECK_EQ(update(cb, &c), CL_INVALID_VALUE);
  skein_command_buffer_update_type_khr wrong = 7;
  const void *one = &good;
  CHECK_EQ(F.clUpdateMutableCommandsKHR(cb, 1, &wrong, &one),
           CL_INVALID_VALUE);
  CHECK_EQ(F.clUpdateMutableCommandsKHR(cb, 1, NULL, &one), CL_INVALID_VALUE);
  const void *none = NULL;
  CHECK_EQ(F.clUpdateMutableCommandsKHR(cb, 1, types, &none),
           CL_INVALID_VALUE);
  CHECK_EQ(F.clUpdateMutableCommandsKHR(NULL, 1, types, &one),
           CL_INVALID_COMMAND_BUFFER_KHR);

  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  /* Fields not made updatable; an immutable buffer. */
  cb = mutable_cb(env);
  skein_command_properties_khr only_args[] = {
      CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
      CL_MUTABLE_DISPATCH_ARGUMENTS_KHR, 0};
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb, NULL, only_args, k, 1, NULL, &g,
                                         NULL, 0, NULL, NULL, &cmd));
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  c = (skein_mutable_dispatch_config_khr){.command = cmd,
                                          .global_work_size = &g2};
  CHECK_EQ(update(cb, &c), CL_INVALID_OPERATION);
  c = (skein_mutable_dispatch_config_khr){.command = cmd,
                                          .global_work_offset = &off2};
  CHECK_EQ(update(cb, &c), CL_INVALID_OPERATION);
  c = (skein_mutable_dispatch_config_khr){
      .command = cmd, .num_exec_infos = 1, .exec_info_list = &info};
  CHECK_EQ(update(cb, &c), CL_INVALID_OPERATION);
  REQUIRE_OK(F.clGetMutableCommandInfoKHR(
      cmd, CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR, 0, NULL, &size));
  CHECK_EQ(size, sizeof only_args);
  cl_mutable_command_khr other_cmd = cmd;
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  cb = F.clCreateCommandBufferKHR(1, &env->queue, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, k, 1, NULL, &g, NULL,
                                         0, NULL, NULL, &cmd));
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  c = (skein_mutable_dispatch_config_khr){.command = cmd};
  CHECK_EQ(update(cb, &c), CL_INVALID_OPERATION); /* not mutable */
  (void)other_cmd;
  skein_command_properties_khr bad_fields[] = {
      CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, 1 << 12, 0};
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  cb = mutable_cb(env);
  CHECK_EQ(F.clCommandNDRangeKernelKHR(cb, NULL, bad_fields, k, 1, NULL, &g,
                                       NULL, 0, NULL, NULL, &cmd),
           CL_INVALID_VALUE);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  REQUIRE_OK(clReleaseKernel(k));
  cl_mem m[] = {in, in2, out, out2};
  test_release_buffers(m, 4);
}

/* SVM pointer and __local size arguments. */
static void test_svm_and_local(test_env *env, cl_program prog) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "gsum", &err);
  REQUIRE_OK(err);
  int *src = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof(int), 0);
  int *src2 = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof(int), 0);
  int *dst = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof(int), 0);
  REQUIRE_OK(src && src2 && dst ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  for (int i = 0; i < N; i++) {
    src[i] = i;
    src2[i] = 1000 - i;
  }
  REQUIRE_OK(clSetKernelArgSVMPointer(k, 0, src));
  REQUIRE_OK(clSetKernelArgSVMPointer(k, 1, dst));
  size_t l = 64, g = N;
  REQUIRE_OK(clSetKernelArg(k, 2, l * sizeof(int), NULL));
  cl_command_buffer_khr cb = mutable_cb(env);
  cl_mutable_command_khr cmd;
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, k, 1, NULL, &g, &l,
                                         0, NULL, NULL, &cmd));
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env->queue));
  int bad = 0;
  for (size_t grp = 0; grp < N / l; grp++) {
    int s = 0;
    for (size_t j = 0; j < l; j++)
      s += src[grp * l + j];
    bad += dst[grp] != s;
  }
  /* New SVM input, groups of 128 and a __local array to match. */
  size_t l2 = 128;
  cl_mutable_dispatch_arg_khr svm = {0, 0, src2};
  cl_mutable_dispatch_arg_khr local = {2, l2 * sizeof(int), NULL};
  skein_mutable_dispatch_config_khr c = {
      .command = cmd, .num_args = 1, .arg_list = &local,
      .num_svm_args = 1, .arg_svm_list = &svm, .local_work_size = &l2};
  REQUIRE_OK(update(cb, &c));
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env->queue));
  for (size_t grp = 0; grp < N / l2; grp++) {
    int s = 0;
    for (size_t j = 0; j < l2; j++)
      s += src2[grp * l2 + j];
    bad += dst[grp] != s;
  }
  CHECK_EQ(bad, 0);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  REQUIRE_OK(clReleaseKernel(k));
  clSVMFree(env->context, src);
  clSVMFree(env->context, src2);
  clSVMFree(env->context, dst);
}

/* Arguments left unset at recording: Finalized, not enqueueable, until
 * an update sets them. */
static void test_deferred(test_env *env, cl_program prog) {
  cl_int err;
  int in_host[N], got[N];
  for (int i = 0; i < N; i++)
    in_host[i] = 7 * i;
  cl_mem in = buf(env, in_host), out = buf(env, NULL);
  cl_kernel k = clCreateKernel(prog, "axpb", &err);
  REQUIRE_OK(err);
  int a = 1, b = -1;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof in, &in));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(k, 3, sizeof b, &b));
  cl_command_buffer_khr cb = mutable_cb(env);
  size_t g = N;
  cl_mutable_command_khr cmd;
  /* Without the arguments field named, unset arguments are an error. */
  CHECK_EQ(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, k, 1, NULL, &g, NULL,
                                       0, NULL, NULL, &cmd),
           CL_INVALID_KERNEL_ARGS);
  skein_command_properties_khr p[] = {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
                                      CL_MUTABLE_DISPATCH_ARGUMENTS_KHR, 0};
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb, NULL, p, k, 1, NULL, &g, NULL, 0,
                                         NULL, NULL, &cmd));
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  CHECK_EQ(cmdbuf_state(&F, cb), CL_COMMAND_BUFFER_STATE_FINALIZED_KHR);
  CHECK_EQ(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL),
           CL_INVALID_OPERATION);
  cl_mutable_dispatch_arg_khr arg = {1, sizeof out, &out};
  skein_mutable_dispatch_config_khr c = {.command = cmd, .num_args = 1,
                                         .arg_list = &arg};
  REQUIRE_OK(update(cb, &c));
  CHECK_EQ(cmdbuf_state(&F, cb), CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  read_ints(env, out, got);
  CHECK_EQ(mismatches(in_host, got, 1, -1, 0, N, 0), 0);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  REQUIRE_OK(clReleaseKernel(k));
  cl_mem m[] = {in, out};
  test_release_buffers(m, 2);
}

/* CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR, on the buffer
 * or on the command, needs a local size: CL_INVALID_VALUE without one. */
static void test_asserts(test_env *env, cl_program prog) {
  cl_int err;
  cl_mem in = buf(env, NULL), out = buf(env, NULL);
  cl_kernel k = clCreateKernel(prog, "axpb", &err);
  REQUIRE_OK(err);
  int a = 2, b = 3;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof in, &in));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof out, &out));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(k, 3, sizeof b, &b));
  size_t g = N, l = 64;
  cl_command_buffer_properties_khr bp[] = {
      CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_MUTABLE_KHR,
      CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR,
      CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR, 0};
  cl_command_buffer_khr cb = F.clCreateCommandBufferKHR(1, &env->queue, bp,
                                                        &err);
  REQUIRE_OK(err);
  CHECK_EQ(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, k, 1, NULL, &g, NULL,
                                       0, NULL, NULL, NULL),
           CL_INVALID_VALUE);
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, k, 1, NULL, &g, &l,
                                         0, NULL, NULL, NULL));
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  cb = mutable_cb(env);
  skein_command_properties_khr p[] = {
      CL_MUTABLE_DISPATCH_ASSERTS_KHR,
      CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR, 0};
  CHECK_EQ(F.clCommandNDRangeKernelKHR(cb, NULL, p, k, 1, NULL, &g, NULL, 0,
                                       NULL, NULL, NULL),
           CL_INVALID_VALUE);
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb, NULL, p, k, 1, NULL, &g, &l, 0,
                                         NULL, NULL, NULL));
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  REQUIRE_OK(clReleaseKernel(k));
  cl_mem m[] = {in, out};
  test_release_buffers(m, 2);
}

int main(void) {
  test_env env;
  test_setup(&env);
  cmdbuf_load(&env, &F);
  cl_bitfield fields = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device,
                             CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR,
                             sizeof fields, &fields, NULL));
  CHECK_EQ(fields, CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR |
                       CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR |
                       CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR |
                       CL_MUTABLE_DISPATCH_ARGUMENTS_KHR |
                       CL_MUTABLE_DISPATCH_EXEC_INFO_KHR);
  cl_program prog = test_build(&env, source, NULL);
  test_arguments_and_geometry(&env, prog);
  test_svm_and_local(&env, prog);
  test_deferred(&env, prog);
  test_asserts(&env, prog);
  REQUIRE_OK(clReleaseProgram(prog));
  test_teardown(&env);
  return test_finish("command-buffer-mutable");
}
