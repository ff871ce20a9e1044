/* Tests pipes (issue 11, part 2): the device's pipe queries,
 * clCreatePipe and clGetPipeInfo with their bad input, a pipe as a
 * memory object (clGetMemObjectInfo, buffer commands refuse it), pipe
 * kernel arguments (clSetKernelArg, clGetKernelArgInfo), and in kernels
 * every read, write and reservation form (2- and 4-argument reads and
 * writes, reserve/commit of work-items, work-groups and sub-groups,
 * is_valid_reserve_id, get_pipe_num_packets, get_pipe_max_packets),
 * checked against host references: every packet written is read exactly
 * once, reservations keep their packets together and in order, a full
 * pipe refuses writes and an empty one reads. Last, a producer and a
 * consumer kernel run at the same time on an out-of-order queue through
 * a pipe far smaller than the stream, each spinning (a bounded number
 * of times) where the pipe is full or empty; the host waits with a
 * deadline, so a failure cannot hang. */
#include "test_util.h"
#include <stdint.h>
#include <time.h>
#include <unistd.h>

static const char *source =
    "typedef struct { char a; int b; } pair_t;\n"
    /* 2-argument forms: one packet per work-item; st gets the result. */
    "__kernel void w2(__write_only pipe int p, __global const int *src,\n"
    "                 __global int *st) {\n"
    "  size_t i = get_global_id(0);\n"
    "  st[i] = write_pipe(p, &src[i]);\n"
    "}\n"
    "__kernel void r2(__read_only pipe int p, __global int *dst,\n"
    "                 __global int *st) {\n"
    "  size_t i = get_global_id(0);\n"
    "  st[i] = read_pipe(p, &dst[i]);\n"
    "}\n"
    /* One work-item: n packets in order, then the queries. */
    "__kernel void w_seq(__write_only pipe int p, int n,\n"
    "                    __global int *out) {\n"
    "  int fails = 0;\n"
    "  for (int k = 0; k < n; k++) fails += write_pipe(p, &k) != 0;\n"
    "  out[0] = fails;\n"
    "  out[1] = get_pipe_num_packets(p);\n"
    "  out[2] = get_pipe_max_packets(p);\n"
    "}\n"
    "__kernel void r_seq(__read_only pipe int p, int n, __global int *out) {\n"
    "  out[0] = get_pipe_num_packets(p);\n"
    "  out[1] = get_pipe_max_packets(p);\n"
    "  for (int k = 0; k < n; k++) {\n"
    "    int v = -7;\n"
    "    out[2 + k] = read_pipe(p, &v) == 0 ? v : -1;\n"
    "  }\n"
    "}\n"
    /* Work-item reservations of two packets (4-argument forms). */
    "__kernel void w_res(__write_only pipe int p, __global int *st) {\n"
    "  int i = get_global_id(0);\n"
    "  reserve_id_t r = reserve_write_pipe(p, 2);\n"
    "  if (!is_valid_reserve_id(r)) { st[i] = -100; return; }\n"
    "  int a = 2 * i, b = 2 * i + 1;\n"
    "  st[i] = write_pipe(p, r, 1, &b) + write_pipe(p, r, 0, &a);\n"
    "  commit_write_pipe(p, r);\n"
    "}\n"
    "__kernel void r_res(__read_only pipe int p, __global int2 *dst,\n"
    "                    __global int *st) {\n"
    "  int i = get_global_id(0);\n"
    "  reserve_id_t r = reserve_read_pipe(p, 2);\n"
    "  if (!is_valid_reserve_id(r)) { st[i] = -100; return; }\n"
    "  int a, b;\n"
    "  st[i] = read_pipe(p, r, 0, &a) + read_pipe(p, r, 1, &b);\n"
    "  dst[i] = (int2)(a, b);\n"
    "  commit_read_pipe(p, r);\n"
    "}\n"
    /* Bad reservations and indices; reads of an empty, writes of a full
     * pipe. Pipe capacity 4. */
    "__kernel void bad_w(__write_only pipe int p, __global int *out) {\n"
    "  int v = 5;\n"
    "  out[0] = is_valid_reserve_id(reserve_write_pipe(p, 5));\n"
    "  out[1] = is_valid_reserve_id(reserve_write_pipe(p, 0));\n"
    "  out[2] = is_valid_reserve_id(CLK_NULL_RESERVE_ID);\n"
    "  reserve_id_t r = reserve_write_pipe(p, 3);\n"
    "  out[3] = is_valid_reserve_id(r);\n"
    "  out[4] = write_pipe(p, r, 3, &v) < 0;\n"
    "  out[5] = write_pipe(p, CLK_NULL_RESERVE_ID, 0, &v) < 0;\n"
    "  for (int k = 0; k < 3; k++) { v = 10 + k; write_pipe(p, r, k, &v); }\n"
    "  out[6] = is_valid_reserve_id(reserve_write_pipe(p, 2));\n"
    "  v = 13;\n"
    "  out[7] = write_pipe(p, &v);\n"
    "  out[8] = write_pipe(p, &v) < 0;\n"
    "  out[9] = get_pipe_num_packets(p);\n"
    "  commit_write_pipe(p, CLK_NULL_RESERVE_ID);\n"
    "  commit_write_pipe(p, r);\n"
    "}\n"
    "__kernel void bad_r(__read_only pipe int p, __global int *out) {\n"
    "  int v;\n"
    "  out[0] = is_valid_reserve_id(reserve_read_pipe(p, 5));\n"
    "  reserve_id_t r = reserve_read_pipe(p, 2);\n"
    "  out[1] = is_valid_reserve_id(r);\n"
    "  out[2] = read_pipe(p, r, 2, &v) < 0;\n"
    "  read_pipe(p, r, 0, &out[3]);\n"
    "  read_pipe(p, r, 1, &out[4]);\n"
    "  commit_read_pipe(p, r);\n"
    "  out[5] = read_pipe(p, &out[6]);\n"
    "  out[7] = read_pipe(p, &out[8]);\n"
    "  out[9] = read_pipe(p, &v) < 0;\n"
    "  out[10] = get_pipe_num_packets(p);\n"
    "}\n"
    /* Work-group reservations: a group's packets go and come together. */
    "__kernel void w_wg(__write_only pipe int p, __global const int *src,\n"
    "                   __global int *st) {\n"
    "  size_t i = get_global_id(0);\n"
    "  reserve_id_t r = work_group_reserve_write_pipe(p, get_local_size(0));\n"
    "  st[i] = is_valid_reserve_id(r) ? write_pipe(p, r, get_local_id(0),\n"
    "                                               &src[i]) : -100;\n"
    "  work_group_commit_write_pipe(p, r);\n"
    "}\n"
    "__kernel void r_wg(__read_only pipe int p, __global int *dst,\n"
    "                   __global int *st) {\n"
    "  size_t i = get_global_id(0);\n"
    "  reserve_id_t r = work_group_reserve_read_pipe(p, get_local_size(0));\n"
    "  st[i] = is_valid_reserve_id(r) ? read_pipe(p, r, get_local_id(0),\n"
    "                                              &dst[i]) : -100;\n"
    "  work_group_commit_read_pipe(p, r);\n"
    "}\n"
    /* Structs as packets. */
    "__kernel void w_struct(__write_only pipe pair_t p) {\n"
    "  int i = get_global_id(0);\n"
    "  pair_t v = {(char)i, 1000 * i};\n"
    "  write_pipe(p, &v);\n"
    "}\n"
    "__kernel void r_struct(__read_only pipe pair_t p, __global int *dst) {\n"
    "  pair_t v = {0, -1};\n"
    "  int i = get_global_id(0);\n"
    "  dst[i] = read_pipe(p, &v) == 0 && v.b == 1000 * (int)v.a ? v.b : -1;\n"
    "}\n"
    /* Producer and consumer at the same time: each work-item moves n
     * packets, spinning at most limit times per packet. */
    "__kernel void produce(__write_only pipe int p, int n, uint limit,\n"
    "                      __global int *gave_up) {\n"
    "  int base = get_global_id(0) * n;\n"
    "  for (int k = 0; k < n; k++) {\n"
    "    int v = base + k;\n"
    "    uint tries = 0;\n"
    "    while (write_pipe(p, &v) != 0)\n"
    "      if (++tries == limit) { atomic_inc(gave_up); return; }\n"
    "  }\n"
    "}\n"
    "__kernel void consume(__read_only pipe int p, int n, uint limit,\n"
    "                      __global int *seen, __global int *gave_up) {\n"
    "  for (int k = 0; k < n; k++) {\n"
    "    int v;\n"
    "    uint tries = 0;\n"
    "    while (read_pipe(p, &v) != 0)\n"
    "      if (++tries == limit) { atomic_inc(gave_up); return; }\n"
    "    atomic_inc(&seen[v]);\n"
    "  }\n"
    "}\n"
    /* A barrier kernel (region mode): packets read into local memory,
     * then stored mirrored within the group. */
    "__kernel void r_local(__read_only pipe int p, __global int *dst,\n"
    "                      __global int *st) {\n"
    "  __local int tmp[64];\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  st[get_global_id(0)] = read_pipe(p, &tmp[l]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  dst[get_global_id(0)] = tmp[n - 1 - l];\n"
    "}\n"
    /* Pipe arguments, for clSetKernelArg and the argument info. */
    "__kernel void args(__read_only pipe float4 in, __global int *buf,\n"
    "                   __write_only pipe pair_t out) {}\n";

/* Sub-group reservations: OpenCL C 3.0 with __opencl_c_subgroups. */
static const char *sg_source =
    "__kernel void w_sg(__write_only pipe int p, __global const int *src,\n"
    "                   __global int *st) {\n"
    "  size_t i = get_global_id(0);\n"
    "  reserve_id_t r = sub_group_reserve_write_pipe(p,\n"
    "                                                get_sub_group_size());\n"
    "  st[i] = is_valid_reserve_id(r) ? write_pipe(p, r,\n"
    "      get_sub_group_local_id(), &src[i]) : -100;\n"
    "  sub_group_commit_write_pipe(p, r);\n"
    "}\n"
    "__kernel void r_sg(__read_only pipe int p, __global int *dst,\n"
    "                   __global int *st) {\n"
    "  size_t i = get_global_id(0);\n"
    "  reserve_id_t r = sub_group_reserve_read_pipe(p, get_sub_group_size());\n"
    "  st[i] = is_valid_reserve_id(r) ? read_pipe(p, r,\n"
    "      get_sub_group_local_id(), &dst[i]) : -100;\n"
    "  sub_group_commit_read_pipe(p, r);\n"
    "}\n";

static cl_mem make_pipe(test_env *env, cl_uint size, cl_uint packets) {
  cl_int err;
  cl_mem p = clCreatePipe(env->context, 0, size, packets, NULL, &err);
  REQUIRE_OK(err);
  return p;
}

static cl_kernel kernel(cl_program prog, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  return k;
}

static void set_mem(cl_kernel k, cl_uint i, cl_mem m) {
  REQUIRE_OK(clSetKernelArg(k, i, sizeof m, &m));
}

static void run(test_env *env, cl_kernel k, size_t global, size_t local) {
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global,
                                    local ? &local : NULL, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env->queue));
}

static void read_ints(test_env *env, cl_mem m, int *out, size_t n) {
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, n * sizeof(int),
                                 out, 0, NULL, NULL));
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static void test_device(test_env *env) {
  cl_bool support = CL_FALSE;
  REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_PIPE_SUPPORT,
                             sizeof support, &support, NULL));
  CHECK_EQ(support, CL_TRUE);
  cl_uint args = 0, reservations = 0, packet = 0;
  REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_PIPE_ARGS,
                             sizeof args, &args, NULL));
  REQUIRE_OK(clGetDeviceInfo(env->device,
                             CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS,
                             sizeof reservations, &reservations, NULL));
  REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_PIPE_MAX_PACKET_SIZE,
                             sizeof packet, &packet, NULL));
  /* The FULL_PROFILE minimums. */
  CHECK(args >= 16);
  CHECK(reservations >= 1);
  CHECK(packet >= 1024);
  CHECK_EQ(test_c_feature_count(env, "__opencl_c_pipes",
                                CL_MAKE_VERSION(3, 0, 0)), 1);
}

static void test_create(test_env *env) {
  cl_int err = 0;
  cl_uint max_packet = 0;
  REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_PIPE_MAX_PACKET_SIZE,
                             sizeof max_packet, &max_packet, NULL));
  CHECK(!clCreatePipe(NULL, 0, 4, 4, NULL, &err));
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  CHECK(!clCreatePipe((cl_context)env->queue, 0, 4, 4, NULL, &err));
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  const cl_mem_flags bad_flags[] = {
      CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_USE_HOST_PTR,
      CL_MEM_ALLOC_HOST_PTR, CL_MEM_COPY_HOST_PTR, CL_MEM_HOST_READ_ONLY,
      CL_MEM_HOST_WRITE_ONLY, CL_MEM_READ_WRITE | CL_MEM_KERNEL_READ_AND_WRITE,
      (cl_mem_flags)1 << 40};
  for (size_t i = 0; i < sizeof bad_flags / sizeof *bad_flags; i++) {
    err = 0;
    CHECK(!clCreatePipe(env->context, bad_flags[i], 4, 4, NULL, &err));
    CHECK_EQ(err, CL_INVALID_VALUE);
  }
  cl_pipe_properties props[] = {0};
  CHECK(!clCreatePipe(env->context, 0, 4, 4, props, &err));
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(!clCreatePipe(env->context, 0, 0, 4, NULL, &err));
  CHECK_EQ(err, CL_INVALID_PIPE_SIZE);
  CHECK(!clCreatePipe(env->context, 0, max_packet + 1, 4, NULL, &err));
  CHECK_EQ(err, CL_INVALID_PIPE_SIZE);
  CHECK(!clCreatePipe(env->context, 0, 4, 0, NULL, &err));
  CHECK_EQ(err, CL_INVALID_PIPE_SIZE);
  /* Far more than memory holds: an allocation failure, not a crash. */
  CHECK(!clCreatePipe(env->context, 0, max_packet, 0xffffffffu, NULL,
                      &err));
  CHECK_EQ(err, CL_MEM_OBJECT_ALLOCATION_FAILURE);

  /* Flags 0 are CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS; either may be
   * named; errcode_ret may be NULL. */
  const cl_mem_flags good[] = {0, CL_MEM_READ_WRITE, CL_MEM_HOST_NO_ACCESS,
                               CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS};
  const cl_mem_flags want[] = {CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS,
                               CL_MEM_READ_WRITE, CL_MEM_HOST_NO_ACCESS,
                               CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS};
  for (int i = 0; i < 4; i++) {
    cl_mem p = clCreatePipe(env->context, good[i], max_packet, 3, NULL, NULL);
    CHECK(p != NULL);
    if (!p)
      continue;
    cl_mem_flags f = 0;
    REQUIRE_OK(clGetMemObjectInfo(p, CL_MEM_FLAGS, sizeof f, &f, NULL));
    CHECK_EQ(f, want[i]);
    REQUIRE_OK(clReleaseMemObject(p));
  }
}

static void test_info(test_env *env) {
  cl_mem p = make_pipe(env, 12, 100);
  cl_uint v = 0;
  size_t size = 99;
  REQUIRE_OK(clGetPipeInfo(p, CL_PIPE_PACKET_SIZE, sizeof v, &v, &size));
  CHECK_EQ(v, 12);
  CHECK_EQ(size, sizeof(cl_uint));
  REQUIRE_OK(clGetPipeInfo(p, CL_PIPE_MAX_PACKETS, sizeof v, &v, NULL));
  CHECK_EQ(v, 100);
  /* Created with NULL properties: an empty answer. */
  size = 99;
  REQUIRE_OK(clGetPipeInfo(p, CL_PIPE_PROPERTIES, 0, NULL, &size));
  CHECK_EQ(size, 0);
  CHECK_EQ(clGetPipeInfo(p, CL_PIPE_PACKET_SIZE, 2, &v, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetPipeInfo(p, CL_MEM_SIZE, sizeof v, &v, NULL),
           CL_INVALID_VALUE);
  cl_mem buf = test_buffer(env, 16, NULL);
  CHECK_EQ(clGetPipeInfo(buf, CL_PIPE_PACKET_SIZE, sizeof v, &v, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clGetPipeInfo(NULL, CL_PIPE_PACKET_SIZE, sizeof v, &v, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clGetPipeInfo((cl_mem)env->context, CL_PIPE_PACKET_SIZE,
                         sizeof v, &v, NULL),
           CL_INVALID_MEM_OBJECT);

  /* A pipe is a memory object. */
  cl_mem_object_type type = 0;
  REQUIRE_OK(clGetMemObjectInfo(p, CL_MEM_TYPE, sizeof type, &type, NULL));
  CHECK_EQ(type, CL_MEM_OBJECT_PIPE);
  cl_context ctx = NULL;
  REQUIRE_OK(clGetMemObjectInfo(p, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL));
  CHECK(ctx == env->context);
  size_t mem_size = 0;
  REQUIRE_OK(clGetMemObjectInfo(p, CL_MEM_SIZE, sizeof mem_size, &mem_size,
                                NULL));
  CHECK(mem_size >= 12 * 100);
  void *host = (void *)1;
  REQUIRE_OK(clGetMemObjectInfo(p, CL_MEM_HOST_PTR, sizeof host, &host,
                                NULL));
  CHECK(host == NULL);
  REQUIRE_OK(clRetainMemObject(p));
  cl_uint refs = 0;
  REQUIRE_OK(clGetMemObjectInfo(p, CL_MEM_REFERENCE_COUNT, sizeof refs,
                                &refs, NULL));
  CHECK_EQ(refs, 2);
  REQUIRE_OK(clReleaseMemObject(p));

  /* Buffer commands and sub-buffers take no pipe. */
  char bytes[16];
  CHECK_EQ(clEnqueueReadBuffer(env->queue, p, CL_TRUE, 0, 4, bytes, 0, NULL,
                               NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueWriteBuffer(env->queue, p, CL_TRUE, 0, 4, bytes, 0,
                                NULL, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueCopyBuffer(env->queue, buf, p, 0, 0, 4, 0, NULL, NULL),
           CL_INVALID_MEM_OBJECT);
  cl_buffer_region region = {0, 4};
  cl_int err = 0;
  CHECK(!clCreateSubBuffer(p, 0, CL_BUFFER_CREATE_TYPE_REGION, &region,
                           &err));
  CHECK_EQ(err, CL_INVALID_MEM_OBJECT);
  REQUIRE_OK(clReleaseMemObject(buf));
  REQUIRE_OK(clReleaseMemObject(p));
}

static void test_args(test_env *env, cl_program prog) {
  cl_kernel k = kernel(prog, "args");
  cl_mem in = make_pipe(env, 16, 8), out = make_pipe(env, 8, 8);
  cl_mem buf = test_buffer(env, 64, NULL);
  cl_mem none = NULL;
  /* A buffer where a pipe is declared, a pipe where a buffer is. */
  CHECK_EQ(clSetKernelArg(k, 0, sizeof buf, &buf), CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clSetKernelArg(k, 1, sizeof in, &in), CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clSetKernelArg(k, 0, sizeof none, &none), CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clSetKernelArg(k, 0, sizeof in, NULL), CL_INVALID_ARG_VALUE);
  CHECK_EQ(clSetKernelArg(k, 0, 4, &in), CL_INVALID_ARG_SIZE);
  CHECK_EQ(clSetKernelArg(k, 0, sizeof k, &k), CL_INVALID_MEM_OBJECT);
  /* A pipe of another context. */
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL,
                                     &err);
  REQUIRE_OK(err);
  cl_mem foreign = clCreatePipe(other, 0, 16, 4, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clSetKernelArg(k, 0, sizeof foreign, &foreign),
           CL_INVALID_CONTEXT);
  REQUIRE_OK(clReleaseMemObject(foreign));
  REQUIRE_OK(clReleaseContext(other));
  set_mem(k, 0, in);
  set_mem(k, 1, buf);
  set_mem(k, 2, out);
  run(env, k, 1, 0);

  /* Argument info: the packet type, global, PIPE, the access. */
  const struct {
    const char *type;
    cl_kernel_arg_access_qualifier access;
  } want[3] = {{"float4", CL_KERNEL_ARG_ACCESS_READ_ONLY},
               {"int*", CL_KERNEL_ARG_ACCESS_NONE},
               {"pair_t", CL_KERNEL_ARG_ACCESS_WRITE_ONLY}};
  for (cl_uint i = 0; i < 3; i++) {
    char type[64] = "";
    cl_kernel_arg_address_qualifier as = 0;
    cl_kernel_arg_access_qualifier acc = 0;
    cl_kernel_arg_type_qualifier tq = 0;
    REQUIRE_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type,
                                  type, NULL));
    REQUIRE_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                                  sizeof as, &as, NULL));
    REQUIRE_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER,
                                  sizeof acc, &acc, NULL));
    REQUIRE_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER,
                                  sizeof tq, &tq, NULL));
    CHECK(strcmp(type, want[i].type) == 0);
    CHECK_EQ(as, CL_KERNEL_ARG_ADDRESS_GLOBAL);
    CHECK_EQ(acc, want[i].access);
    CHECK_EQ(tq, i == 1 ? CL_KERNEL_ARG_TYPE_NONE : CL_KERNEL_ARG_TYPE_PIPE);
  }
  REQUIRE_OK(clReleaseKernel(k));
  test_release_buffers((cl_mem[]){in, out, buf}, 3);
}

/* n work-items write 0, 7, 14 ... through the 2-argument forms into a
 * pipe of cap packets, then n work-items read: min(n, cap) succeed each
 * way, and the values read are those written. */
static void test_rw2(test_env *env, cl_program prog, int n, int cap) {
  cl_mem p = make_pipe(env, sizeof(int), (cl_uint)cap);
  int *src = malloc(n * sizeof(int)), *got = malloc(n * sizeof(int));
  int *st = malloc(n * sizeof(int));
  for (int i = 0; i < n; i++)
    src[i] = 7 * i;
  cl_mem bsrc = test_buffer(env, n * sizeof(int), src);
  cl_mem bdst = test_buffer(env, n * sizeof(int), NULL);
  cl_mem bst = test_buffer(env, n * sizeof(int), NULL);
  cl_kernel w = kernel(prog, "w2"), r = kernel(prog, "r2");
  set_mem(w, 0, p);
  set_mem(w, 1, bsrc);
  set_mem(w, 2, bst);
  run(env, w, n, 0);
  read_ints(env, bst, st, n);
  int wrote = 0, written[n];
  for (int i = 0; i < n; i++) {
    CHECK(st[i] == 0 || st[i] < 0);
    if (st[i] == 0)
      written[wrote++] = src[i];
  }
  CHECK_EQ(wrote, n < cap ? n : cap);
  set_mem(r, 0, p);
  set_mem(r, 1, bdst);
  set_mem(r, 2, bst);
  run(env, r, n, 0);
  read_ints(env, bst, st, n);
  read_ints(env, bdst, got, n);
  int nread = 0;
  for (int i = 0; i < n; i++)
    if (st[i] == 0)
      got[nread++] = got[i];
  CHECK_EQ(nread, wrote);
  qsort(got, nread, sizeof(int), cmp_int);
  qsort(written, wrote, sizeof(int), cmp_int);
  for (int i = 0; i < nread && i < wrote; i++)
    if (got[i] != written[i]) {
      CHECK_EQ(got[i], written[i]);
      break;
    }
  REQUIRE_OK(clReleaseKernel(w));
  REQUIRE_OK(clReleaseKernel(r));
  test_release_buffers((cl_mem[]){p, bsrc, bdst, bst}, 4);
  free(src);
  free(got);
  free(st);
}

/* A pipe whose packets are smaller than the kernel's packet type
 * (undefined) refuses every write; larger packets hold it. */
static void test_mismatch(test_env *env, cl_program prog) {
  enum { N = 16 };
  int src[N], st[N], got[N];
  for (int i = 0; i < N; i++)
    src[i] = 1000 + i;
  cl_mem bsrc = test_buffer(env, sizeof src, src);
  cl_mem bst = test_buffer(env, sizeof st, NULL);
  cl_mem dst = test_buffer(env, sizeof got, NULL);
  cl_kernel w = kernel(prog, "w2"), r = kernel(prog, "r2");
  for (int wide = 0; wide < 2; wide++) {
    cl_mem p = make_pipe(env, wide ? 8 : 2, N);
    set_mem(w, 0, p);
    set_mem(w, 1, bsrc);
    set_mem(w, 2, bst);
    run(env, w, N, 0);
    read_ints(env, bst, st, N);
    int ok = 0;
    for (int i = 0; i < N; i++)
      ok += st[i] == 0;
    CHECK_EQ(ok, wide ? N : 0);
    set_mem(r, 0, p);
    set_mem(r, 1, dst);
    set_mem(r, 2, bst);
    run(env, r, N, 0);
    read_ints(env, bst, st, N);
    read_ints(env, dst, got, N);
    ok = 0;
    for (int i = 0; i < N; i++)
      ok += st[i] == 0;
    CHECK_EQ(ok, wide ? N : 0);
    if (wide) {
      qsort(got, N, sizeof(int), cmp_int);
      CHECK(memcmp(got, src, sizeof src) == 0);
    }
    REQUIRE_OK(clReleaseMemObject(p));
  }
  REQUIRE_OK(clReleaseKernel(w));
  REQUIRE_OK(clReleaseKernel(r));
  test_release_buffers((cl_mem[]){bsrc, bst, dst}, 3);
}

/* FIFO order of one work-item, and the queries. */
static void test_sequence(test_env *env, cl_program prog) {
  enum { N = 100, CAP = 120 };
  cl_mem p = make_pipe(env, sizeof(int), CAP);
  cl_mem out = test_buffer(env, (N + 2) * sizeof(int), NULL);
  cl_kernel w = kernel(prog, "w_seq"), r = kernel(prog, "r_seq");
  int n = N, got[N + 2];
  set_mem(w, 0, p);
  REQUIRE_OK(clSetKernelArg(w, 1, sizeof n, &n));
  set_mem(w, 2, out);
  run(env, w, 1, 0);
  read_ints(env, out, got, 3);
  CHECK_EQ(got[0], 0);
  CHECK_EQ(got[1], N);
  CHECK_EQ(got[2], CAP);
  set_mem(r, 0, p);
  REQUIRE_OK(clSetKernelArg(r, 1, sizeof n, &n));
  set_mem(r, 2, out);
  run(env, r, 1, 0);
  read_ints(env, out, got, N + 2);
  CHECK_EQ(got[0], N);
  CHECK_EQ(got[1], CAP);
  int bad = 0;
  for (int k = 0; k < N; k++)
    bad += got[2 + k] != k;
  CHECK_EQ(bad, 0);
  /* Empty now, and the sequence goes on across the ring's end. */
  for (int round = 0; round < 3; round++) {
    run(env, w, 1, 0);
    run(env, r, 1, 0);
    read_ints(env, out, got, N + 2);
    CHECK_EQ(got[0], N);
    bad = 0;
    for (int k = 0; k < N; k++)
      bad += got[2 + k] != k;
    CHECK_EQ(bad, 0);
  }
  REQUIRE_OK(clReleaseKernel(w));
  REQUIRE_OK(clReleaseKernel(r));
  test_release_buffers((cl_mem[]){p, out}, 2);
}

/* Reservations of two packets: every pair comes out together, in the
 * order its indices say. */
static void test_reserve(test_env *env, cl_program prog, int n) {
  cl_mem p = make_pipe(env, sizeof(int), 2 * n);
  cl_mem st = test_buffer(env, n * sizeof(int), NULL);
  cl_mem dst = test_buffer(env, 2 * n * sizeof(int), NULL);
  cl_kernel w = kernel(prog, "w_res"), r = kernel(prog, "r_res");
  set_mem(w, 0, p);
  set_mem(w, 1, st);
  run(env, w, n, 0);
  int *s = malloc(n * sizeof(int)), *d = malloc(2 * n * sizeof(int));
  read_ints(env, st, s, n);
  int bad = 0;
  for (int i = 0; i < n; i++)
    bad += s[i] != 0;
  CHECK_EQ(bad, 0);
  set_mem(r, 0, p);
  set_mem(r, 1, dst);
  set_mem(r, 2, st);
  run(env, r, n, 0);
  read_ints(env, st, s, n);
  read_ints(env, dst, d, 2 * n);
  char *seen = calloc(n, 1);
  bad = 0;
  for (int i = 0; i < n; i++) {
    int a = d[2 * i], b = d[2 * i + 1];
    if (s[i] != 0 || a % 2 || b != a + 1 || a < 0 || a / 2 >= n ||
        seen[a / 2]++)
      bad++;
  }
  CHECK_EQ(bad, 0);
  free(seen);
  free(s);
  free(d);
  REQUIRE_OK(clReleaseKernel(w));
  REQUIRE_OK(clReleaseKernel(r));
  test_release_buffers((cl_mem[]){p, st, dst}, 3);
}

static void test_bad(test_env *env, cl_program prog) {
  cl_mem p = make_pipe(env, sizeof(int), 4);
  cl_mem out = test_buffer(env, 16 * sizeof(int), NULL);
  cl_kernel w = kernel(prog, "bad_w"), r = kernel(prog, "bad_r");
  int got[16];
  set_mem(w, 0, p);
  set_mem(w, 1, out);
  run(env, w, 1, 0);
  read_ints(env, out, got, 10);
  CHECK_EQ(got[0], 0);  /* 5 of 4 */
  CHECK_EQ(got[1], 0);  /* 0 packets */
  CHECK_EQ(got[2], 0);  /* CLK_NULL_RESERVE_ID */
  CHECK_EQ(got[3], 1);  /* 3 of 4 */
  CHECK_EQ(got[4], 1);  /* index 3 of 3 */
  CHECK_EQ(got[5], 1);  /* through an invalid id */
  CHECK_EQ(got[6], 0);  /* 2 more: 1 left */
  CHECK_EQ(got[7], 0);  /* the last slot */
  CHECK_EQ(got[8], 1);  /* full */
  CHECK_EQ(got[9], 4);  /* reserved (uncommitted) packets count */
  set_mem(r, 0, p);
  set_mem(r, 1, out);
  run(env, r, 1, 0);
  read_ints(env, out, got, 11);
  CHECK_EQ(got[0], 0);  /* 5 of 4 */
  CHECK_EQ(got[1], 1);  /* 2: the reservation's first two */
  CHECK_EQ(got[2], 1);  /* index 2 of 2 */
  CHECK_EQ(got[3], 10);
  CHECK_EQ(got[4], 11);
  CHECK_EQ(got[5], 0);
  CHECK_EQ(got[6], 12);
  CHECK_EQ(got[7], 0);
  CHECK_EQ(got[8], 13);
  CHECK_EQ(got[9], 1);  /* empty */
  CHECK_EQ(got[10], 0);
  REQUIRE_OK(clReleaseKernel(w));
  REQUIRE_OK(clReleaseKernel(r));
  test_release_buffers((cl_mem[]){p, out}, 2);
}

/* Group (work-group or sub-group) reservations of n work-items in groups
 * of local: each group's packets are one reservation, so a reading
 * group gets one writing group's packets, in local id order. chunk is
 * the reservation's size (local, or the sub-group size). */
static void test_group(test_env *env, cl_program prog, const char *wname,
                       const char *rname, int n, int local, int chunk) {
  cl_mem p = make_pipe(env, sizeof(int), n);
  int *src = malloc(n * sizeof(int)), *d = malloc(n * sizeof(int));
  int *s = malloc(n * sizeof(int));
  for (int i = 0; i < n; i++)
    src[i] = 3 * i + 1;
  cl_mem bsrc = test_buffer(env, n * sizeof(int), src);
  cl_mem dst = test_buffer(env, n * sizeof(int), NULL);
  cl_mem st = test_buffer(env, n * sizeof(int), NULL);
  cl_kernel w = kernel(prog, wname), r = kernel(prog, rname);
  set_mem(w, 0, p);
  set_mem(w, 1, bsrc);
  set_mem(w, 2, st);
  run(env, w, n, local);
  read_ints(env, st, s, n);
  int bad = 0;
  for (int i = 0; i < n; i++)
    bad += s[i] != 0;
  CHECK_EQ(bad, 0);
  set_mem(r, 0, p);
  set_mem(r, 1, dst);
  set_mem(r, 2, st);
  run(env, r, n, local);
  read_ints(env, st, s, n);
  read_ints(env, dst, d, n);
  bad = 0;
  char *seen = calloc(n, 1);
  for (int c = 0; c < n / chunk; c++) {
    /* The chunk's first value names the writing chunk; the rest follow. */
    int first = d[c * chunk] - 1;
    if (first < 0 || first % 3 || (first / 3) % chunk || first / 3 >= n) {
      bad++;
      continue;
    }
    for (int k = 0; k < chunk; k++) {
      int i = c * chunk + k, v = first / 3 + k;
      if (s[i] != 0 || d[i] != src[v] || seen[v]++)
        bad++;
    }
  }
  CHECK_EQ(bad, 0);
  free(seen);
  free(src);
  free(d);
  free(s);
  REQUIRE_OK(clReleaseKernel(w));
  REQUIRE_OK(clReleaseKernel(r));
  test_release_buffers((cl_mem[]){p, bsrc, dst, st}, 4);
}

static void test_struct(test_env *env, cl_program prog) {
  enum { N = 100 };
  cl_mem p = make_pipe(env, 8, N);  /* sizeof(pair_t) */
  cl_mem dst = test_buffer(env, N * sizeof(int), NULL);
  cl_kernel w = kernel(prog, "w_struct"), r = kernel(prog, "r_struct");
  set_mem(w, 0, p);
  run(env, w, N, 0);
  set_mem(r, 0, p);
  set_mem(r, 1, dst);
  run(env, r, N, 0);
  int d[N];
  read_ints(env, dst, d, N);
  qsort(d, N, sizeof(int), cmp_int);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += d[i] != 1000 * i;
  CHECK_EQ(bad, 0);
  REQUIRE_OK(clReleaseKernel(w));
  REQUIRE_OK(clReleaseKernel(r));
  test_release_buffers((cl_mem[]){p, dst}, 2);
}

/* n packets written by w2, read by the barrier kernel r_local in
 * groups of 64: every value comes back once, mirrored in its group. */
static void test_barrier(test_env *env, cl_program prog, int n) {
  cl_mem p = make_pipe(env, sizeof(int), n);
  int *src = malloc(n * sizeof(int)), *d = malloc(n * sizeof(int));
  int *st = malloc(n * sizeof(int));
  for (int i = 0; i < n; i++)
    src[i] = 5 * i + 2;
  cl_mem bsrc = test_buffer(env, n * sizeof(int), src);
  cl_mem dst = test_buffer(env, n * sizeof(int), NULL);
  cl_mem bst = test_buffer(env, n * sizeof(int), NULL);
  cl_kernel w = kernel(prog, "w2"), r = kernel(prog, "r_local");
  set_mem(w, 0, p);
  set_mem(w, 1, bsrc);
  set_mem(w, 2, bst);
  run(env, w, n, 0);
  set_mem(r, 0, p);
  set_mem(r, 1, dst);
  set_mem(r, 2, bst);
  run(env, r, n, 64);
  read_ints(env, bst, st, n);
  read_ints(env, dst, d, n);
  int bad = 0;
  for (int i = 0; i < n; i++)
    bad += st[i] != 0;
  CHECK_EQ(bad, 0);
  qsort(d, n, sizeof(int), cmp_int);
  bad = 0;
  for (int i = 0; i < n; i++)
    bad += d[i] != src[i];
  CHECK_EQ(bad, 0);
  REQUIRE_OK(clReleaseKernel(w));
  REQUIRE_OK(clReleaseKernel(r));
  test_release_buffers((cl_mem[]){p, bsrc, dst, bst}, 4);
  free(src);
  free(d);
  free(st);
}

/* In the default mode (no SKEIN_MODE, vectorisers on) the work-item
 * forms keep loop mode, the barrier kernel with them region mode, and
 * the work-group reservations fiber mode; read from SKEIN_DUMP=modes. */
static void test_modes(test_env *env) {
  if (getenv("SKEIN_MODE") || getenv("SKEIN_VECTORIZE"))
    return;
  setenv("SKEIN_DUMP", "modes", 1);
  test_capture capture;
  test_capture_begin(&capture);
  cl_program p = test_build(env, source, "-cl-std=CL3.0");
  char *modes = test_capture_end(&capture);
  unsetenv("SKEIN_DUMP");
  static const char *const want[] = {
      "kernel w2: loop mode", "kernel r2: loop mode",
      "kernel w_res: loop mode", "kernel r_res: loop mode",
      "kernel r_local: region mode", "kernel w_wg: fiber mode",
      "kernel r_wg: fiber mode"};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(modes, want[i])) {
      fprintf(stderr, "expected \"%s\" in:\n%s", want[i], modes);
      test_failures++;
    }
  free(modes);
  REQUIRE_OK(clReleaseProgram(p));
}

/* Waits for ev until deadline seconds have passed; a command still
 * running then ends the test (it cannot be cancelled). */
static void wait_or_die(cl_event ev, const char *what, double deadline) {
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    cl_int status = 1;
    REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                              sizeof status, &status, NULL));
    if (status <= CL_COMPLETE) {
      CHECK_EQ(status, CL_COMPLETE);
      return;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - t0.tv_sec + (now.tv_nsec - t0.tv_nsec) / 1e9 >
        deadline) {
      fprintf(stderr, "%s did not finish within %.0f s\n", what, deadline);
      _exit(1);
    }
    usleep(1000);
  }
}

/* Producer and consumer on an out-of-order queue at the same time, the
 * consumer enqueued first: groups x local work-items each move n packets
 * through a pipe of cap packets. */
static void test_concurrent(test_env *env, cl_program prog, int groups,
                            int local, int n, int cap) {
  cl_int err;
  cl_command_queue q = clCreateCommandQueueWithProperties(
      env->context, env->device,
      (cl_queue_properties[]){CL_QUEUE_PROPERTIES,
                              CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0},
      &err);
  REQUIRE_OK(err);
  int items = groups * local, total = items * n;
  cl_mem p = make_pipe(env, sizeof(int), cap);
  int *seen = calloc(total, sizeof(int));
  cl_mem bseen = test_buffer(env, total * sizeof(int), seen);
  int zero[2] = {0, 0};
  cl_mem gave_up = test_buffer(env, sizeof(int), zero);
  cl_mem gave_up_c = test_buffer(env, sizeof(int), zero);
  cl_uint limit = 1u << 28;  /* seconds of spinning: failure only */
  cl_kernel pr = kernel(prog, "produce"), co = kernel(prog, "consume");
  set_mem(pr, 0, p);
  REQUIRE_OK(clSetKernelArg(pr, 1, sizeof n, &n));
  REQUIRE_OK(clSetKernelArg(pr, 2, sizeof limit, &limit));
  set_mem(pr, 3, gave_up);
  set_mem(co, 0, p);
  REQUIRE_OK(clSetKernelArg(co, 1, sizeof n, &n));
  REQUIRE_OK(clSetKernelArg(co, 2, sizeof limit, &limit));
  set_mem(co, 3, bseen);
  set_mem(co, 4, gave_up_c);
  size_t g = items, l = local;
  cl_event ev[2];
  REQUIRE_OK(clEnqueueNDRangeKernel(q, co, 1, NULL, &g, &l, 0, NULL,
                                    &ev[0]));
  REQUIRE_OK(clEnqueueNDRangeKernel(q, pr, 1, NULL, &g, &l, 0, NULL,
                                    &ev[1]));
  REQUIRE_OK(clFlush(q));
  wait_or_die(ev[1], "the producer", 120);
  wait_or_die(ev[0], "the consumer", 120);
  int up[2];
  read_ints(env, gave_up, &up[0], 1);
  read_ints(env, gave_up_c, &up[1], 1);
  CHECK_EQ(up[0], 0);
  CHECK_EQ(up[1], 0);
  read_ints(env, bseen, seen, total);
  int missing = 0, twice = 0;
  for (int i = 0; i < total; i++) {
    missing += seen[i] == 0;
    twice += seen[i] > 1;
  }
  CHECK_EQ(missing, 0);
  CHECK_EQ(twice, 0);
  REQUIRE_OK(clReleaseEvent(ev[0]));
  REQUIRE_OK(clReleaseEvent(ev[1]));
  REQUIRE_OK(clReleaseKernel(pr));
  REQUIRE_OK(clReleaseKernel(co));
  REQUIRE_OK(clReleaseCommandQueue(q));
  test_release_buffers((cl_mem[]){p, bseen, gave_up, gave_up_c}, 4);
  free(seen);
}

/* Contention without waiting: groups of one work-item each write n
 * packets at once into a pipe that holds them all, then as many read
 * them; a lost claim of a position (two writers in one slot) shows as a
 * packet missing or read twice. limit is small: nothing has to wait. */
static void test_contended(test_env *env, cl_program prog, int groups,
                           int n) {
  int total = groups * n, zero = 0;
  cl_mem p = make_pipe(env, sizeof(int), total);
  int *seen = calloc(total, sizeof(int));
  cl_mem bseen = test_buffer(env, total * sizeof(int), seen);
  cl_mem up = test_buffer(env, sizeof(int), &zero);
  cl_uint limit = 1000;
  cl_kernel pr = kernel(prog, "produce"), co = kernel(prog, "consume");
  set_mem(pr, 0, p);
  REQUIRE_OK(clSetKernelArg(pr, 1, sizeof n, &n));
  REQUIRE_OK(clSetKernelArg(pr, 2, sizeof limit, &limit));
  set_mem(pr, 3, up);
  set_mem(co, 0, p);
  REQUIRE_OK(clSetKernelArg(co, 1, sizeof n, &n));
  REQUIRE_OK(clSetKernelArg(co, 2, sizeof limit, &limit));
  set_mem(co, 3, bseen);
  set_mem(co, 4, up);
  run(env, pr, groups, 1);
  run(env, co, groups, 1);
  int gave_up;
  read_ints(env, up, &gave_up, 1);
  CHECK_EQ(gave_up, 0);
  read_ints(env, bseen, seen, total);
  int wrong = 0;
  for (int i = 0; i < total; i++)
    wrong += seen[i] != 1;
  CHECK_EQ(wrong, 0);
  REQUIRE_OK(clReleaseKernel(pr));
  REQUIRE_OK(clReleaseKernel(co));
  test_release_buffers((cl_mem[]){p, bseen, up}, 3);
  free(seen);
}

int main(void) {
  test_env env;
  test_setup(&env);
  test_device(&env);
  test_create(&env);
  test_info(&env);

  cl_program prog = test_build(&env, source, "-cl-std=CL3.0 -cl-kernel-arg-info");
  test_args(&env, prog);
  test_rw2(&env, prog, 64, 64);
  test_rw2(&env, prog, 100, 37);    /* more writers than room */
  test_rw2(&env, prog, 1000, 1000);
  test_sequence(&env, prog);
  test_mismatch(&env, prog);
  test_reserve(&env, prog, 500);
  test_bad(&env, prog);
  test_struct(&env, prog);
  test_group(&env, prog, "w_wg", "r_wg", 256, 64, 64);
  test_group(&env, prog, "w_wg", "r_wg", 60, 20, 20);
  test_group(&env, prog, "w_wg", "r_wg", 7, 1, 1);
  test_barrier(&env, prog, 256);
  test_barrier(&env, prog, 64);
  test_contended(&env, prog, 8, 20000);
  test_concurrent(&env, prog, 4, 32, 256, 64);
  test_concurrent(&env, prog, 2, 1, 4000, 1);
  REQUIRE_OK(clReleaseProgram(prog));

  /* The same kernels in an OpenCL C 2.0 program, where pipes are core. */
  prog = test_build(&env, source, "-cl-std=CL2.0");
  test_rw2(&env, prog, 64, 64);
  test_reserve(&env, prog, 64);
  test_group(&env, prog, "w_wg", "r_wg", 128, 32, 32);
  REQUIRE_OK(clReleaseProgram(prog));

  prog = test_build(&env, sg_source, "-cl-std=CL3.0");
  size_t sg = test_expected_sub_group_size();
  test_group(&env, prog, "w_sg", "r_sg", 256, 64, (int)sg);
  test_group(&env, prog, "w_sg", "r_sg", 4 * (int)sg, (int)sg, (int)sg);
  REQUIRE_OK(clReleaseProgram(prog));

  test_modes(&env);
  test_teardown(&env);
  return test_finish("pipes");
}
