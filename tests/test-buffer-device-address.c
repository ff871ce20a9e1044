/* This file tests cl_ext_buffer_device_address through the ICD loader:
 * the extension and its version; buffers made with
 * CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, whose CL_MEM_DEVICE_ADDRESS_EXT is
 * the address kernels see (with and without a host pointer, over an SVM
 * allocation, for sub-buffers); clSetKernelArgDevicePointerEXT with a
 * pointer into the middle of a buffer that the kernel indexes below;
 * a kernel that reaches a buffer only through an address stored in
 * another, with CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT; CL_MEM_PROPERTIES;
 * and the error codes of the property, the query, the argument setter
 * and the exec info. */
#include "test_util.h"
#include <CL/cl_ext.h>
#include <stdint.h>

/* Debian's headers 2023.02.06 predate the extension (OpenCL-Docs'
 * xml/cl.xml gives these values). */
#ifndef cl_ext_buffer_device_address
typedef cl_ulong cl_mem_device_address_ext;
#define CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT 0x5000
#define CL_MEM_DEVICE_ADDRESS_EXT 0x5001
#define CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT 0x5002
typedef cl_int(CL_API_CALL *clSetKernelArgDevicePointerEXT_fn)(
    cl_kernel kernel, cl_uint arg_index, cl_mem_device_address_ext value);
#endif

static test_env env;
static clSetKernelArgDevicePointerEXT_fn set_dev_ptr;

static const char *source =
    "kernel void get_addr(global int *buf, global ulong *addr, int n) {\n"
    "  for (int i = 0; i < n; i++) buf[i] += 1;\n"
    "  *addr = (ulong)buf;\n"
    "}\n"
    "kernel void below(global int *p, global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = p[(int)i - 2] * 10;\n"
    "}\n"
    "kernel void indirect(global ulong *addrs, global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  global int *src = (global int *)addrs[0];\n"
    "  out[i] = src[i] + 7;\n"
    "}\n"
    "kernel void mixed(global int *g, constant int *c, local int *l,\n"
    "                  int v) {\n"
    "  g[0] = c[0] + v;\n"
    "}\n";

static cl_mem bda_buffer(cl_mem_flags flags, size_t size, void *host) {
  cl_mem_properties props[] = {CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, CL_TRUE,
                               0};
  cl_int err;
  cl_mem m = clCreateBufferWithProperties(env.context, props, flags, size,
                                          host, &err);
  REQUIRE_OK(err);
  return m;
}

static cl_mem_device_address_ext address_of(cl_mem m) {
  cl_mem_device_address_ext a = 0;
  size_t ret = 0;
  REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_DEVICE_ADDRESS_EXT, sizeof a, &a,
                                &ret));
  CHECK_EQ(ret, sizeof a); /* one device in the context */
  CHECK(a != 0);
  return a;
}

/* The kernel sees the buffer at the address the query gives, and the
 * data is the buffer's (incremented by the kernel). */
static void test_address(cl_program prog) {
  enum { N = 256 };
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "get_addr", &err);
  REQUIRE_OK(err);
  int host[N], got[N];
  for (int i = 0; i < N; i++)
    host[i] = i * 3 - 100;
  cl_mem bufs[3];
  bufs[0] = bda_buffer(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host,
                       host);
  bufs[1] = bda_buffer(CL_MEM_READ_WRITE, sizeof host, NULL);
  int *user = malloc(sizeof host);
  memcpy(user, host, sizeof host);
  bufs[2] = bda_buffer(CL_MEM_USE_HOST_PTR, sizeof host, user);
  REQUIRE_OK(clEnqueueWriteBuffer(env.queue, bufs[1], CL_TRUE, 0,
                                  sizeof host, host, 0, NULL, NULL));
  CHECK(address_of(bufs[2]) == (uintptr_t)user);
  cl_mem out = test_buffer(&env, sizeof(cl_ulong), NULL);
  for (int b = 0; b < 3; b++) {
    int n = N;
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &bufs[b]));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &out));
    REQUIRE_OK(clSetKernelArg(k, 2, sizeof n, &n));
    REQUIRE_OK(clEnqueueTask(env.queue, k, 0, NULL, NULL));
    cl_ulong seen = 0;
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof seen,
                                   &seen, 0, NULL, NULL));
    CHECK_EQ(seen, address_of(bufs[b]));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, bufs[b], CL_TRUE, 0,
                                   sizeof got, got, 0, NULL, NULL));
    for (int i = 0; i < N; i++)
      CHECK_EQ(got[i], host[i] + 1);
    /* The properties come back as given. */
    cl_mem_properties props[4] = {0};
    size_t ret = 0;
    REQUIRE_OK(clGetMemObjectInfo(bufs[b], CL_MEM_PROPERTIES, sizeof props,
                                  props, &ret));
    CHECK_EQ(ret, 3 * sizeof(cl_mem_properties));
    CHECK_EQ(props[0], CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT);
    CHECK_EQ(props[1], CL_TRUE);
    CHECK_EQ(props[2], 0);
  }
  /* A sub-buffer's address is its parent's plus the origin. */
  cl_buffer_region region = {512, 256};
  cl_mem sub = clCreateSubBuffer(bufs[1], 0, CL_BUFFER_CREATE_TYPE_REGION,
                                 &region, &err);
  REQUIRE_OK(err);
  CHECK_EQ(address_of(sub), address_of(bufs[1]) + 512);
  REQUIRE_OK(clReleaseMemObject(sub));
  /* Over an SVM allocation the address is the SVM pointer. */
  void *svm = clSVMAlloc(env.context, CL_MEM_READ_WRITE, 4096, 0);
  CHECK(svm != NULL);
  cl_mem over = bda_buffer(CL_MEM_USE_HOST_PTR, 4096, svm);
  CHECK(address_of(over) == (uintptr_t)svm);
  REQUIRE_OK(clReleaseMemObject(over));
  clSVMFree(env.context, svm);
  for (int b = 0; b < 3; b++)
    REQUIRE_OK(clReleaseMemObject(bufs[b]));
  free(user);
  REQUIRE_OK(clReleaseMemObject(out));
  REQUIRE_OK(clReleaseKernel(k));
}

/* A pointer 2 ints into the buffer, indexed from -2. */
static void test_set_arg(cl_program prog) {
  enum { N = 64 };
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "below", &err);
  REQUIRE_OK(err);
  int host[N + 2], got[N];
  for (int i = 0; i < N + 2; i++)
    host[i] = 1000 - i * 11;
  cl_mem b = bda_buffer(CL_MEM_COPY_HOST_PTR, sizeof host, host);
  cl_mem out = test_buffer(&env, sizeof got, NULL);
  cl_mem_device_address_ext a = address_of(b);
  REQUIRE_OK(set_dev_ptr(k, 0, a + 2 * sizeof(int)));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &out));
  size_t global = N;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof got, got,
                                 0, NULL, NULL));
  for (int i = 0; i < N; i++)
    CHECK_EQ(got[i], host[i] * 10);
  REQUIRE_OK(clReleaseMemObject(b));
  REQUIRE_OK(clReleaseMemObject(out));
  REQUIRE_OK(clReleaseKernel(k));
}

/* The kernel reaches src only through its address stored in addrs. */
static void test_indirect(cl_program prog) {
  enum { N = 100 };
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "indirect", &err);
  REQUIRE_OK(err);
  int host[N], got[N];
  for (int i = 0; i < N; i++)
    host[i] = i * i - 50;
  cl_mem src = bda_buffer(CL_MEM_COPY_HOST_PTR, sizeof host, host);
  cl_mem_device_address_ext a = address_of(src);
  cl_mem addrs = test_buffer(&env, sizeof a, &a);
  cl_mem out = test_buffer(&env, sizeof got, NULL);
  REQUIRE_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT,
                                 sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &addrs));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &out));
  size_t global = N;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof got, got,
                                 0, NULL, NULL));
  for (int i = 0; i < N; i++)
    CHECK_EQ(got[i], host[i] + 7);
  /* Exec-info errors; an empty list is fine. */
  REQUIRE_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT, 0,
                                 NULL));
  CHECK_EQ(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT, 7,
                               &a),
           CL_INVALID_VALUE);
  CHECK_EQ(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT,
                               sizeof a, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clSetKernelExecInfo(NULL, CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT,
                               sizeof a, &a),
           CL_INVALID_KERNEL);
  REQUIRE_OK(clReleaseMemObject(src));
  REQUIRE_OK(clReleaseMemObject(addrs));
  REQUIRE_OK(clReleaseMemObject(out));
  REQUIRE_OK(clReleaseKernel(k));
}

static void test_errors(cl_program prog) {
  cl_int err;
  /* The query needs the property set to CL_TRUE. */
  cl_mem plain = test_buffer(&env, 64, NULL);
  cl_mem_device_address_ext a;
  CHECK_EQ(clGetMemObjectInfo(plain, CL_MEM_DEVICE_ADDRESS_EXT, sizeof a, &a,
                              NULL),
           CL_INVALID_OPERATION);
  cl_mem_properties off[] = {CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, CL_FALSE, 0};
  cl_mem m = clCreateBufferWithProperties(env.context, off, 0, 64, NULL,
                                          &err);
  REQUIRE_OK(err);
  CHECK_EQ(clGetMemObjectInfo(m, CL_MEM_DEVICE_ADDRESS_EXT, sizeof a, &a,
                              NULL),
           CL_INVALID_OPERATION);
  REQUIRE_OK(clReleaseMemObject(m));
  cl_mem b = bda_buffer(0, 64, NULL);
  CHECK_EQ(clGetMemObjectInfo(b, CL_MEM_DEVICE_ADDRESS_EXT, 4, &a, NULL),
           CL_INVALID_VALUE);
  /* Property errors: a value that is no cl_bool, twice, unknown. */
  const cl_mem_properties bad_value[] = {CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT,
                                         2, 0};
  const cl_mem_properties twice[] = {CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT,
                                     CL_TRUE,
                                     CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT,
                                     CL_TRUE, 0};
  const cl_mem_properties unknown[] = {0x5003, CL_TRUE, 0};
  const cl_mem_properties *bad[] = {bad_value, twice, unknown};
  for (int i = 0; i < 3; i++) {
    err = 0;
    CHECK(!clCreateBufferWithProperties(env.context, bad[i], 0, 64, NULL,
                                        &err));
    CHECK_EQ(err, CL_INVALID_PROPERTY);
  }
  /* clSetKernelArgDevicePointerEXT: only global pointer arguments. */
  cl_kernel k = clCreateKernel(prog, "mixed", &err);
  REQUIRE_OK(err);
  cl_mem_device_address_ext addr = address_of(b);
  CHECK_EQ(set_dev_ptr(NULL, 0, addr), CL_INVALID_KERNEL);
  CHECK_EQ(set_dev_ptr((cl_kernel)plain, 0, addr), CL_INVALID_KERNEL);
  CHECK_EQ(set_dev_ptr(k, 1, addr), CL_INVALID_ARG_INDEX); /* constant */
  CHECK_EQ(set_dev_ptr(k, 2, addr), CL_INVALID_ARG_INDEX); /* local */
  CHECK_EQ(set_dev_ptr(k, 3, addr), CL_INVALID_ARG_INDEX); /* int */
  CHECK_EQ(set_dev_ptr(k, 4, addr), CL_INVALID_ARG_INDEX);
  /* Any value, 0 and ones the kernel never dereferences included. */
  REQUIRE_OK(set_dev_ptr(k, 0, 0));
  REQUIRE_OK(set_dev_ptr(k, 0, 0x15465));
  REQUIRE_OK(set_dev_ptr(k, 0, addr));
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseMemObject(b));
  REQUIRE_OK(clReleaseMemObject(plain));
}

int main(void) {
  test_setup(&env);
  CHECK(test_extension_listed(&env, "cl_ext_buffer_device_address"));
  CHECK_EQ(test_extension_count(&env, "cl_ext_buffer_device_address",
                                CL_MAKE_VERSION(1, 0, 2)),
           1);
  set_dev_ptr = (clSetKernelArgDevicePointerEXT_fn)
      clGetExtensionFunctionAddressForPlatform(
          env.platform, "clSetKernelArgDevicePointerEXT");
  if (!set_dev_ptr) {
    fprintf(stderr, "clSetKernelArgDevicePointerEXT not found\n");
    return 1;
  }
  cl_program prog = test_build(&env, source, NULL);
  test_address(prog);
  test_set_arg(prog);
  test_indirect(prog);
  test_errors(prog);
  REQUIRE_OK(clReleaseProgram(prog));
  test_teardown(&env);
  return test_finish("buffer-device-address");
}
