/* This file tests kernel objects through the ICD loader: creation errors,
 * every clSetKernelArg error, kernel, argument and work-group info
 * queries, cloning and the entry points of features Skein lacks. */
#include "test_util.h"

static test_env env;

static const char *src =
    "typedef struct { int a; float b; char c; } pod;\n"
    "kernel void k(global float *restrict g, constant int *c, local int *l,\n"
    "              int v, float4 f4, pod s, const global volatile int *cv) {\n"
    "  g[0] = v + f4.x + c[0] + s.b + cv[0];\n"
    "  l[get_local_id(0)] = v;\n"
    "}\n"
    "kernel __attribute__((reqd_work_group_size(4, 2, 1)))\n"
    "void fixed(global int *o) { o[get_global_id(0)] = 1; }\n"
    "kernel void uses_local(global int *o) {\n"
    "  local int tile[300];\n"
    "  tile[get_local_id(0)] = 1;\n"
    "  o[get_global_id(0)] = tile[get_local_id(0)];\n"
    "}\n";

static void test_create(cl_program p) {
  cl_int err;
  CHECK(clCreateKernel(p, "nope", &err) == NULL);
  CHECK_EQ(err, CL_INVALID_KERNEL_NAME);
  CHECK(clCreateKernel(p, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateKernel(NULL, "k", &err) == NULL);
  CHECK_EQ(err, CL_INVALID_PROGRAM);

  cl_uint n = 0;
  REQUIRE_OK(clCreateKernelsInProgram(p, 0, NULL, &n));
  CHECK_EQ(n, 3);
  cl_kernel ks[3];
  CHECK_EQ(clCreateKernelsInProgram(p, 2, ks, NULL), CL_INVALID_VALUE);
  CHECK_EQ(clCreateKernelsInProgram(NULL, 3, ks, NULL), CL_INVALID_PROGRAM);
  REQUIRE_OK(clCreateKernelsInProgram(p, 3, ks, &n));
  int seen = 0;
  for (int i = 0; i < 3; i++) {
    char name[64];
    REQUIRE_OK(clGetKernelInfo(ks[i], CL_KERNEL_FUNCTION_NAME, sizeof name,
                               name, NULL));
    seen |= (strcmp(name, "k") == 0) | (strcmp(name, "fixed") == 0) << 1 |
            (strcmp(name, "uses_local") == 0) << 2;
    REQUIRE_OK(clReleaseKernel(ks[i]));
  }
  CHECK_EQ(seen, 7);
}

static void test_set_arg_errors(cl_kernel k) {
  cl_int err;
  cl_mem buf = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 64, NULL, &err);
  REQUIRE_OK(err);
  int v = 1;
  cl_float4 f4 = {{1, 2, 3, 4}};
  struct { cl_int a; cl_float b; cl_char c; } s = {1, 2, 3};

  CHECK_EQ(clSetKernelArg(NULL, 0, sizeof buf, &buf), CL_INVALID_KERNEL);
  CHECK_EQ(clSetKernelArg((cl_kernel)buf, 0, sizeof buf, &buf),
           CL_INVALID_KERNEL);
  CHECK_EQ(clSetKernelArg(k, 7, sizeof v, &v), CL_INVALID_ARG_INDEX);
  /* Buffers. */
  CHECK_EQ(clSetKernelArg(k, 0, sizeof buf - 1, &buf), CL_INVALID_ARG_SIZE);
  cl_mem not_mem = (cl_mem)env.queue;
  CHECK_EQ(clSetKernelArg(k, 0, sizeof not_mem, &not_mem),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clSetKernelArg(k, 1, sizeof not_mem, &not_mem),
           CL_INVALID_MEM_OBJECT);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof buf, NULL));  /* NULL pointer */
  cl_mem null_mem = NULL;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof null_mem, &null_mem));
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof buf, &buf));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof buf, &buf));
  /* __local. */
  /* Size 0: an error under OpenCL 3.0, allowed by 3.1. */
  CHECK_EQ(clSetKernelArg(k, 2, 0, NULL),
           test_device_is_3_1(&env) ? CL_SUCCESS : CL_INVALID_ARG_SIZE);
  CHECK_EQ(clSetKernelArg(k, 2, 16, &v), CL_INVALID_ARG_VALUE);
  REQUIRE_OK(clSetKernelArg(k, 2, 1000, NULL));
  /* By value. */
  CHECK_EQ(clSetKernelArg(k, 3, sizeof v + 1, &v), CL_INVALID_ARG_SIZE);
  CHECK_EQ(clSetKernelArg(k, 3, 2, &v), CL_INVALID_ARG_SIZE);
  CHECK_EQ(clSetKernelArg(k, 3, sizeof v, NULL), CL_INVALID_ARG_VALUE);
  REQUIRE_OK(clSetKernelArg(k, 3, sizeof v, &v));
  CHECK_EQ(clSetKernelArg(k, 4, sizeof(cl_float3) - 4, &f4),
           CL_INVALID_ARG_SIZE);
  REQUIRE_OK(clSetKernelArg(k, 4, sizeof f4, &f4));
  CHECK_EQ(clSetKernelArg(k, 5, 9, &s), CL_INVALID_ARG_SIZE);
  REQUIRE_OK(clSetKernelArg(k, 5, sizeof s, &s));

  /* Not all arguments set yet: CL_INVALID_KERNEL_ARGS. */
  size_t one = 1;
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &one, NULL, 0, NULL,
                                  NULL),
           CL_INVALID_KERNEL_ARGS);
  REQUIRE_OK(clSetKernelArg(k, 6, sizeof buf, &buf));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &one, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));

  /* __local memory accounting: 1000 bytes of argument. */
  cl_ulong local = 0;
  REQUIRE_OK(clGetKernelWorkGroupInfo(k, env.device, CL_KERNEL_LOCAL_MEM_SIZE,
                                      sizeof local, &local, NULL));
  CHECK(local >= 1000);
  /* Too much __local memory for the device: CL_OUT_OF_RESOURCES. */
  cl_ulong dev_local = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_LOCAL_MEM_SIZE,
                             sizeof dev_local, &dev_local, NULL));
  REQUIRE_OK(clSetKernelArg(k, 2, (size_t)dev_local + 1, NULL));
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &one, NULL, 0, NULL,
                                  NULL),
           CL_OUT_OF_RESOURCES);
  REQUIRE_OK(clSetKernelArg(k, 2, 16, NULL));

  /* A clone keeps the values and is independent afterwards. */
  cl_kernel c = clCloneKernel(k, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, c, 1, NULL, &one, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  CHECK(clCloneKernel(NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_KERNEL);
  clReleaseKernel(c);

  /* SVM (tests/test-svm.c checks it in full). */
  CHECK_EQ(clSetKernelArgSVMPointer(NULL, 0, NULL), CL_INVALID_KERNEL);
  cl_bool t = CL_TRUE;
  CHECK_EQ(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
                               sizeof t, &t),
           CL_SUCCESS);
  CHECK_EQ(clSetKernelExecInfo(k, 0x7777, sizeof t, &t), CL_INVALID_VALUE);
  /* Sub-groups are (tests/test-subgroups-api.c checks the queries). */
  size_t sg = 0;
  CHECK_EQ(clGetKernelSubGroupInfo(k, env.device,
                                   CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
                                   sizeof sg, &sg, NULL),
           CL_SUCCESS);
  CHECK(sg > 0);
  CHECK_EQ(clGetKernelSubGroupInfo(NULL, env.device,
                                   CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL,
                                   sizeof sg, &sg, NULL),
           CL_INVALID_KERNEL);
  clReleaseMemObject(buf);
}

static void test_kernel_info(cl_program p, cl_kernel k) {
  char buf[256];
  REQUIRE_OK(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof buf, buf,
                             NULL));
  CHECK(strcmp(buf, "k") == 0);
  cl_uint n = 0;
  REQUIRE_OK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof n, &n, NULL));
  CHECK_EQ(n, 7);
  cl_uint refs = 0;
  REQUIRE_OK(clRetainKernel(k));
  REQUIRE_OK(clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof refs, &refs,
                             NULL));
  CHECK_EQ(refs, 2);
  REQUIRE_OK(clReleaseKernel(k));
  cl_context ctx = NULL;
  REQUIRE_OK(clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof ctx, &ctx, NULL));
  CHECK(ctx == env.context);
  cl_program prog = NULL;
  REQUIRE_OK(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof prog, &prog, NULL));
  CHECK(prog == p);
  size_t size = 0;
  REQUIRE_OK(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, 0, NULL, &size));
  CHECK(size >= 1);
  CHECK_EQ(clGetKernelInfo(k, 0x7777, sizeof buf, buf, NULL), CL_INVALID_VALUE);
  CHECK_EQ(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, 1, &n, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetKernelInfo(NULL, CL_KERNEL_NUM_ARGS, sizeof n, &n, NULL),
           CL_INVALID_KERNEL);
  CHECK_EQ(clRetainKernel(NULL), CL_INVALID_KERNEL);
  CHECK_EQ(clReleaseKernel(NULL), CL_INVALID_KERNEL);

  /* Without -cl-kernel-arg-info no argument info is available. */
  cl_kernel_arg_address_qualifier aq;
  CHECK_EQ(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                              sizeof aq, &aq, NULL),
           CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
  CHECK_EQ(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof buf, buf,
                              NULL),
           CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
  CHECK_EQ(clGetKernelArgInfo(k, 9, CL_KERNEL_ARG_NAME, sizeof buf, buf,
                              NULL),
           CL_INVALID_ARG_INDEX);
}

static void test_arg_info(void) {
  cl_int err;
  cl_program p = test_build(&env, src, "-cl-kernel-arg-info");
  cl_kernel k = clCreateKernel(p, "k", &err);
  REQUIRE_OK(err);
  static const char *names[7] = {"g", "c", "l", "v", "f4", "s", "cv"};
  static const char *types[7] = {"float*", "int*", "int*", "int",
                                 "float4", "pod", "int*"};
  static const cl_uint addr[7] = {
      CL_KERNEL_ARG_ADDRESS_GLOBAL, CL_KERNEL_ARG_ADDRESS_CONSTANT,
      CL_KERNEL_ARG_ADDRESS_LOCAL,  CL_KERNEL_ARG_ADDRESS_PRIVATE,
      CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ADDRESS_PRIVATE,
      CL_KERNEL_ARG_ADDRESS_GLOBAL};
  for (cl_uint i = 0; i < 7; i++) {
    char buf[64];
    REQUIRE_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof buf, buf,
                                  NULL));
    CHECK(strcmp(buf, names[i]) == 0);
    REQUIRE_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof buf,
                                  buf, NULL));
    if (strcmp(buf, types[i]) != 0)
      fprintf(stderr, "arg %u type '%s', expected '%s'\n", i, buf, types[i]);
    CHECK(strcmp(buf, types[i]) == 0);
    cl_kernel_arg_address_qualifier aq = 0;
    REQUIRE_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                                  sizeof aq, &aq, NULL));
    CHECK_EQ(aq, addr[i]);
    cl_kernel_arg_access_qualifier acc = 0;
    REQUIRE_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER,
                                  sizeof acc, &acc, NULL));
    CHECK_EQ(acc, CL_KERNEL_ARG_ACCESS_NONE);
  }
  cl_kernel_arg_type_qualifier tq = 0;
  REQUIRE_OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq,
                                &tq, NULL));
  CHECK_EQ(tq, CL_KERNEL_ARG_TYPE_RESTRICT);
  REQUIRE_OK(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq,
                                &tq, NULL));
  CHECK_EQ(tq, CL_KERNEL_ARG_TYPE_CONST);
  REQUIRE_OK(clGetKernelArgInfo(k, 3, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq,
                                &tq, NULL));
  CHECK_EQ(tq, CL_KERNEL_ARG_TYPE_NONE);
  REQUIRE_OK(clGetKernelArgInfo(k, 6, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq,
                                &tq, NULL));
  CHECK_EQ(tq, CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_VOLATILE);
  CHECK_EQ(clGetKernelArgInfo(k, 0, 0x7777, sizeof tq, &tq, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetKernelArgInfo(k, 7, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq,
                              &tq, NULL),
           CL_INVALID_ARG_INDEX);
  CHECK_EQ(clGetKernelArgInfo(NULL, 0, CL_KERNEL_ARG_TYPE_QUALIFIER,
                              sizeof tq, &tq, NULL),
           CL_INVALID_KERNEL);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

static void test_work_group_info(cl_program p, cl_kernel k) {
  cl_int err;
  size_t dev_max = 0, wg = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                             sizeof dev_max, &dev_max, NULL));
  REQUIRE_OK(clGetKernelWorkGroupInfo(k, env.device, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof wg, &wg, NULL));
  CHECK(wg >= 1 && wg <= dev_max);
  REQUIRE_OK(clGetKernelWorkGroupInfo(k, NULL, CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof wg, &wg, NULL));
  size_t cwg[3] = {9, 9, 9};
  REQUIRE_OK(clGetKernelWorkGroupInfo(k, env.device,
                                      CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                      sizeof cwg, cwg, NULL));
  CHECK(cwg[0] == 0 && cwg[1] == 0 && cwg[2] == 0);
  size_t mult = 0;
  REQUIRE_OK(clGetKernelWorkGroupInfo(
      k, env.device, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
      sizeof mult, &mult, NULL));
  CHECK(mult >= 1 && mult <= 64);
  cl_ulong priv = 0;
  REQUIRE_OK(clGetKernelWorkGroupInfo(k, env.device,
                                      CL_KERNEL_PRIVATE_MEM_SIZE, sizeof priv,
                                      &priv, NULL));
  size_t gws[3];
  CHECK_EQ(clGetKernelWorkGroupInfo(k, env.device, CL_KERNEL_GLOBAL_WORK_SIZE,
                                    sizeof gws, gws, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetKernelWorkGroupInfo(k, (cl_device_id)env.context,
                                    CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                    NULL),
           CL_INVALID_DEVICE);
  CHECK_EQ(clGetKernelWorkGroupInfo(NULL, env.device,
                                    CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                    NULL),
           CL_INVALID_KERNEL);
  CHECK_EQ(clGetKernelWorkGroupInfo(k, env.device, 0x7777, sizeof wg, &wg,
                                    NULL),
           CL_INVALID_VALUE);

  /* reqd_work_group_size(4, 2, 1). */
  cl_kernel fixed = clCreateKernel(p, "fixed", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clGetKernelWorkGroupInfo(fixed, env.device,
                                      CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                      sizeof cwg, cwg, NULL));
  CHECK(cwg[0] == 4 && cwg[1] == 2 && cwg[2] == 1);
  REQUIRE_OK(clGetKernelWorkGroupInfo(fixed, env.device,
                                      CL_KERNEL_WORK_GROUP_SIZE, sizeof wg,
                                      &wg, NULL));
  CHECK_EQ(wg, 8);
  char attrs[256] = "";
  REQUIRE_OK(clGetKernelInfo(fixed, CL_KERNEL_ATTRIBUTES, sizeof attrs, attrs,
                             NULL));
  CHECK(strstr(attrs, "reqd_work_group_size") != NULL);
  clReleaseKernel(fixed);

  /* Static __local memory counts in CL_KERNEL_LOCAL_MEM_SIZE. */
  cl_kernel ul = clCreateKernel(p, "uses_local", &err);
  REQUIRE_OK(err);
  cl_ulong local = 0;
  REQUIRE_OK(clGetKernelWorkGroupInfo(ul, env.device,
                                      CL_KERNEL_LOCAL_MEM_SIZE, sizeof local,
                                      &local, NULL));
  CHECK(local >= 300 * sizeof(cl_int));
  clReleaseKernel(ul);
}

int main(void) {
  test_setup(&env);
  cl_int err;
  cl_program p = test_build(&env, src, NULL);
  test_create(p);
  cl_kernel k = clCreateKernel(p, "k", &err);
  REQUIRE_OK(err);
  test_kernel_info(p, k);
  test_set_arg_errors(k);
  test_work_group_info(p, k);
  clReleaseKernel(k);
  clReleaseProgram(p);
  test_arg_info();
  test_teardown(&env);
  return test_finish("kernel-args");
}
