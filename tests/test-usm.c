/* This file tests cl_intel_unified_shared_memory through the ICD loader:
 * the extension and its version, the entry points handed out by
 * clGetExtensionFunctionAddressForPlatform, the five capability queries;
 * host, device and shared allocations (with and without a device, with
 * alignments and flags) used by kernels against host references,
 * including pointers into the middle of an allocation and atomics;
 * clGetMemAllocInfoINTEL on starts, middles, ends, foreign, SVM, freed
 * and other contexts' pointers; memcpy, fill and memset across every
 * kind with their events, command types and overlap rules; migrate and
 * advise; indirect access through a struct of pointers with the exec
 * infos; the blocking free waiting for a kernel held back by a user
 * event, but not for commands enqueued while it waits; a shared
 * allocation keeping its sub-device; and every error path of the allocation, free, query, command,
 * kernel-argument and exec-info entry points. */
#include "test_util.h"
#include <CL/cl_ext.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

static test_env env;

static clHostMemAllocINTEL_fn host_alloc;
static clDeviceMemAllocINTEL_fn device_alloc;
static clSharedMemAllocINTEL_fn shared_alloc;
static clMemFreeINTEL_fn mem_free;
static clMemBlockingFreeINTEL_fn blocking_free;
static clGetMemAllocInfoINTEL_fn alloc_info;
static clSetKernelArgMemPointerINTEL_fn set_arg_ptr;
static clEnqueueMemsetINTEL_fn enq_memset;
static clEnqueueMemFillINTEL_fn enq_fill;
static clEnqueueMemcpyINTEL_fn enq_memcpy;
static clEnqueueMigrateMemINTEL_fn enq_migrate;
static clEnqueueMemAdviseINTEL_fn enq_advise;

static const char *source =
    "kernel void axpy(global int *y, global const int *x, int a) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + y[i] + (int)i;\n"
    "}\n"
    "kernel void sum_const(constant int *a, global int *out, int n) {\n"
    "  int s = 0;\n"
    "  for (int i = 0; i < n; i++) s += a[i];\n"
    "  out[0] = s;\n"
    "}\n"
    "kernel void count(global int *counter, local int *scratch) {\n"
    "  atomic_inc(counter);\n"
    "}\n"
    "typedef struct { global int *a; global int *b; global int *c; } ptrs;\n"
    "kernel void indirect(global ptrs *p) {\n"
    "  size_t i = get_global_id(0);\n"
    "  p->c[i] = p->a[i] * 3 + p->b[i];\n"
    "}\n"
    "kernel void touch(global int *p) {\n"
    "  p[get_global_id(0)] += 1;\n"
    "}\n";

static void *get_fn(const char *name) {
  void *f = clGetExtensionFunctionAddressForPlatform(env.platform, name);
  if (!f) {
    fprintf(stderr, "%s not found\n", name);
    exit(1);
  }
  return f;
}

static void load_functions(void) {
  host_alloc = (clHostMemAllocINTEL_fn)get_fn("clHostMemAllocINTEL");
  device_alloc = (clDeviceMemAllocINTEL_fn)get_fn("clDeviceMemAllocINTEL");
  shared_alloc = (clSharedMemAllocINTEL_fn)get_fn("clSharedMemAllocINTEL");
  mem_free = (clMemFreeINTEL_fn)get_fn("clMemFreeINTEL");
  blocking_free = (clMemBlockingFreeINTEL_fn)get_fn("clMemBlockingFreeINTEL");
  alloc_info = (clGetMemAllocInfoINTEL_fn)get_fn("clGetMemAllocInfoINTEL");
  set_arg_ptr = (clSetKernelArgMemPointerINTEL_fn)get_fn(
      "clSetKernelArgMemPointerINTEL");
  enq_memset = (clEnqueueMemsetINTEL_fn)get_fn("clEnqueueMemsetINTEL");
  enq_fill = (clEnqueueMemFillINTEL_fn)get_fn("clEnqueueMemFillINTEL");
  enq_memcpy = (clEnqueueMemcpyINTEL_fn)get_fn("clEnqueueMemcpyINTEL");
  enq_migrate =
      (clEnqueueMigrateMemINTEL_fn)get_fn("clEnqueueMigrateMemINTEL");
  enq_advise = (clEnqueueMemAdviseINTEL_fn)get_fn("clEnqueueMemAdviseINTEL");
  /* Not a USM name: the lookup must not hand out something else. */
  CHECK(!clGetExtensionFunctionAddressForPlatform(env.platform,
                                                  "clMemAllocINTEL"));
}

/* The four kinds of allocation this test makes. */
enum { HOST, DEVICE, SHARED, SHARED_NO_DEVICE, NUM_KINDS };

static void *alloc_kind(int kind, size_t size, cl_uint align) {
  cl_int err = -1;
  void *p = NULL;
  switch (kind) {
  case HOST:
    p = host_alloc(env.context, NULL, size, align, &err);
    break;
  case DEVICE:
    p = device_alloc(env.context, env.device, NULL, size, align, &err);
    break;
  case SHARED:
    p = shared_alloc(env.context, env.device, NULL, size, align, &err);
    break;
  default:
    p = shared_alloc(env.context, NULL, NULL, size, align, &err);
    break;
  }
  CHECK_EQ(err, CL_SUCCESS);
  if (!p) {
    fprintf(stderr, "allocation of kind %d failed\n", kind);
    exit(1);
  }
  return p;
}

static cl_command_type event_type(cl_event ev) {
  cl_command_type t = 0;
  REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL));
  return t;
}

static void test_device_queries(void) {
  CHECK(test_extension_listed(&env, "cl_intel_unified_shared_memory"));
  CHECK_EQ(test_extension_count(&env, "cl_intel_unified_shared_memory",
                                CL_MAKE_VERSION(1, 2, 0)),
           1);
  const cl_device_info names[] = {
      CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL,
      CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL,
      CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
      CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL,
      CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL,
  };
  const cl_device_unified_shared_memory_capabilities_intel all =
      CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL |
      CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL |
      CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL |
      CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ATOMIC_ACCESS_INTEL;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    cl_device_unified_shared_memory_capabilities_intel caps = 0;
    size_t ret = 0;
    REQUIRE_OK(clGetDeviceInfo(env.device, names[i], sizeof caps, &caps,
                               &ret));
    CHECK_EQ(ret, sizeof caps);
    CHECK_EQ(caps, all);
  }
}

/* Each kind: a kernel computes y = 3x + y + i over whole allocations
 * and then over pointers into their middle; the device kind is reached
 * from the host only through memcpy, as the extension allows. */
static void test_kernels(cl_program prog) {
  enum { N = 1024, OFF = 100 };
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "axpy", &err);
  REQUIRE_OK(err);
  int x_host[N], y_host[N], ref[N], got[N];
  for (int kind = 0; kind < NUM_KINDS; kind++) {
    for (int i = 0; i < N; i++) {
      x_host[i] = (int)(test_rand() % 1000) - 500;
      y_host[i] = (int)(test_rand() % 1000) - 500;
    }
    cl_uint align = kind == HOST ? 64 : kind == DEVICE ? 0 : 128;
    int *x = alloc_kind(kind, N * sizeof(int), align);
    int *y = alloc_kind(kind, N * sizeof(int), align);
    CHECK_EQ((uintptr_t)x % (align ? align : 128), 0);
    REQUIRE_OK(enq_memcpy(env.queue, CL_TRUE, x, x_host, sizeof x_host, 0,
                          NULL, NULL));
    REQUIRE_OK(enq_memcpy(env.queue, CL_TRUE, y, y_host, sizeof y_host, 0,
                          NULL, NULL));
    int a = 3;
    REQUIRE_OK(set_arg_ptr(k, 0, y));
    REQUIRE_OK(set_arg_ptr(k, 1, x));
    REQUIRE_OK(clSetKernelArg(k, 2, sizeof a, &a));
    size_t global = N;
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL,
                                      0, NULL, NULL));
    for (int i = 0; i < N; i++)
      ref[i] = a * x_host[i] + y_host[i] + i;
    /* Now from the middle: work-item i touches element OFF + i. */
    REQUIRE_OK(set_arg_ptr(k, 0, y + OFF));
    REQUIRE_OK(set_arg_ptr(k, 1, x + OFF));
    global = N - OFF;
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL,
                                      0, NULL, NULL));
    for (int i = OFF; i < N; i++)
      ref[i] = a * x_host[i] + ref[i] + (i - OFF);
    REQUIRE_OK(enq_memcpy(env.queue, CL_TRUE, got, y, sizeof got, 0, NULL,
                          NULL));
    CHECK(memcmp(got, ref, sizeof got) == 0);
    /* Host and shared allocations are the host's to read directly. */
    if (kind != DEVICE)
      CHECK(memcmp(y, ref, sizeof ref) == 0);
    REQUIRE_OK(mem_free(env.context, x));
    REQUIRE_OK(mem_free(env.context, y));
  }
  /* A constant pointer argument into a shared allocation. */
  cl_kernel ks = clCreateKernel(prog, "sum_const", &err);
  REQUIRE_OK(err);
  int *in = alloc_kind(SHARED, 64 * sizeof(int), 0);
  int *out = alloc_kind(HOST, sizeof(int), 0);
  int sum = 0;
  for (int i = 0; i < 64; i++)
    sum += in[i] = i * 7 - 50;
  int n = 32;
  REQUIRE_OK(set_arg_ptr(ks, 0, in + 32));
  REQUIRE_OK(set_arg_ptr(ks, 1, out));
  REQUIRE_OK(clSetKernelArg(ks, 2, sizeof n, &n));
  REQUIRE_OK(clEnqueueTask(env.queue, ks, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  int ref_sum = 0;
  for (int i = 32; i < 64; i++)
    ref_sum += in[i];
  CHECK_EQ(*out, ref_sum);
  (void)sum;
  REQUIRE_OK(mem_free(env.context, in));
  REQUIRE_OK(mem_free(env.context, out));
  REQUIRE_OK(clReleaseKernel(ks));
  REQUIRE_OK(clReleaseKernel(k));
}

/* Atomics on every kind: 4096 work-items increment one counter. */
static void test_atomics(cl_program prog) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "count", &err);
  REQUIRE_OK(err);
  for (int kind = 0; kind < NUM_KINDS; kind++) {
    int *c = alloc_kind(kind, sizeof(int), 0);
    int zero = 0, got = -1;
    REQUIRE_OK(enq_fill(env.queue, c, &zero, sizeof zero, sizeof zero, 0,
                        NULL, NULL));
    REQUIRE_OK(set_arg_ptr(k, 0, c));
    REQUIRE_OK(clSetKernelArg(k, 1, 64, NULL));
    size_t global = 4096, local = 64;
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local,
                                      0, NULL, NULL));
    REQUIRE_OK(enq_memcpy(env.queue, CL_TRUE, &got, c, sizeof got, 0, NULL,
                          NULL));
    CHECK_EQ(got, 4096);
    REQUIRE_OK(mem_free(env.context, c));
  }
  REQUIRE_OK(clReleaseKernel(k));
}

/* The five queries for ptr, expected values given. */
static void check_info(cl_context ctx, const void *ptr, cl_uint type,
                       const void *base, size_t size, cl_device_id dev,
                       cl_mem_alloc_flags_intel flags) {
  cl_uint t = 0;
  void *b = (void *)1;
  size_t s = 1, ret = 0;
  cl_device_id d = (cl_device_id)1;
  cl_mem_alloc_flags_intel f = 99;
  REQUIRE_OK(alloc_info(ctx, ptr, CL_MEM_ALLOC_TYPE_INTEL, sizeof t, &t,
                        &ret));
  CHECK_EQ(ret, sizeof t);
  CHECK_EQ(t, type);
  REQUIRE_OK(alloc_info(ctx, ptr, CL_MEM_ALLOC_BASE_PTR_INTEL, sizeof b, &b,
                        &ret));
  CHECK_EQ(ret, sizeof b);
  CHECK(b == base);
  REQUIRE_OK(alloc_info(ctx, ptr, CL_MEM_ALLOC_SIZE_INTEL, sizeof s, &s,
                        NULL));
  CHECK_EQ(s, size);
  REQUIRE_OK(alloc_info(ctx, ptr, CL_MEM_ALLOC_DEVICE_INTEL, sizeof d, &d,
                        NULL));
  CHECK(d == dev);
  REQUIRE_OK(alloc_info(ctx, ptr, CL_MEM_ALLOC_FLAGS_INTEL, sizeof f, &f,
                        &ret));
  CHECK_EQ(ret, sizeof f);
  CHECK_EQ(f, flags);
}

static void test_info(void) {
  cl_int err;
  cl_mem_properties_intel wc[] = {CL_MEM_ALLOC_FLAGS_INTEL,
                                  CL_MEM_ALLOC_WRITE_COMBINED_INTEL, 0};
  char *h = host_alloc(env.context, wc, 1000, 0, &err);
  REQUIRE_OK(err);
  char *d = device_alloc(env.context, env.device, wc, 2000, 16, &err);
  REQUIRE_OK(err);
  cl_mem_properties_intel place[] = {
      CL_MEM_ALLOC_FLAGS_INTEL, CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL,
      0};
  char *s = shared_alloc(env.context, env.device, place, 3000, 0, &err);
  REQUIRE_OK(err);
  cl_mem_properties_intel place_host[] = {
      CL_MEM_ALLOC_FLAGS_INTEL,
      CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL |
          CL_MEM_ALLOC_WRITE_COMBINED_INTEL,
      0};
  char *sn = shared_alloc(env.context, NULL, place_host, 17, 0, NULL);
  CHECK(sn != NULL);
  check_info(env.context, h, CL_MEM_TYPE_HOST_INTEL, h, 1000, NULL,
             CL_MEM_ALLOC_WRITE_COMBINED_INTEL);
  check_info(env.context, h + 999, CL_MEM_TYPE_HOST_INTEL, h, 1000, NULL,
             CL_MEM_ALLOC_WRITE_COMBINED_INTEL);
  check_info(env.context, d + 1234, CL_MEM_TYPE_DEVICE_INTEL, d, 2000,
             env.device, CL_MEM_ALLOC_WRITE_COMBINED_INTEL);
  check_info(env.context, s + 1, CL_MEM_TYPE_SHARED_INTEL, s, 3000,
             env.device, CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL);
  check_info(env.context, sn + 16, CL_MEM_TYPE_SHARED_INTEL, sn, 17, NULL,
             CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL |
                 CL_MEM_ALLOC_WRITE_COMBINED_INTEL);
  /* Foreign pointers: the stack, malloc, NULL, an SVM allocation. */
  int local_var = 0;
  check_info(env.context, &local_var, CL_MEM_TYPE_UNKNOWN_INTEL, NULL, 0,
             NULL, 0);
  char *m = malloc(64);
  check_info(env.context, m, CL_MEM_TYPE_UNKNOWN_INTEL, NULL, 0, NULL, 0);
  free(m);
  check_info(env.context, NULL, CL_MEM_TYPE_UNKNOWN_INTEL, NULL, 0, NULL,
             0);
  void *svm = clSVMAlloc(env.context, CL_MEM_READ_WRITE, 256, 0);
  CHECK(svm != NULL);
  check_info(env.context, svm, CL_MEM_TYPE_UNKNOWN_INTEL, NULL, 0, NULL, 0);
  /* clSVMFree leaves a USM allocation alone; clMemFreeINTEL refuses an
   * SVM one. */
  clSVMFree(env.context, h);
  check_info(env.context, h, CL_MEM_TYPE_HOST_INTEL, h, 1000, NULL,
             CL_MEM_ALLOC_WRITE_COMBINED_INTEL);
  CHECK_EQ(mem_free(env.context, svm), CL_INVALID_VALUE);
  void *svm_list[] = {h};
  CHECK_EQ(clEnqueueSVMFree(env.queue, 1, svm_list, NULL, NULL, 0, NULL,
                            NULL),
           CL_INVALID_VALUE);
  clSVMFree(env.context, svm);
  /* Error codes. */
  cl_uint t;
  CHECK_EQ(alloc_info(NULL, h, CL_MEM_ALLOC_TYPE_INTEL, sizeof t, &t, NULL),
           CL_INVALID_CONTEXT);
  CHECK_EQ(alloc_info((cl_context)env.queue, h, CL_MEM_ALLOC_TYPE_INTEL,
                      sizeof t, &t, NULL),
           CL_INVALID_CONTEXT);
  CHECK_EQ(alloc_info(env.context, h, 0x4242, sizeof t, &t, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(alloc_info(env.context, h, CL_MEM_ALLOC_TYPE_INTEL, 2, &t, NULL),
           CL_INVALID_VALUE);
  size_t base_size = 0;
  CHECK_EQ(alloc_info(env.context, h, CL_MEM_ALLOC_BASE_PTR_INTEL, 4, &t,
                      NULL),
           CL_INVALID_VALUE);
  REQUIRE_OK(alloc_info(env.context, h, CL_MEM_ALLOC_BASE_PTR_INTEL, 0, NULL,
                        &base_size));
  CHECK_EQ(base_size, sizeof(void *));
  /* Freed: unknown, and a second free fails. The pointer one past the
   * end of an allocation is not in it. */
  REQUIRE_OK(mem_free(env.context, h));
  check_info(env.context, h, CL_MEM_TYPE_UNKNOWN_INTEL, NULL, 0, NULL, 0);
  CHECK_EQ(mem_free(env.context, h), CL_INVALID_VALUE);
  /* One past the end is not in the allocation (another may start
   * there). */
  void *end_base = NULL;
  REQUIRE_OK(alloc_info(env.context, sn + 17, CL_MEM_ALLOC_BASE_PTR_INTEL,
                        sizeof end_base, &end_base, NULL));
  CHECK(end_base != sn);
  REQUIRE_OK(mem_free(env.context, d));
  REQUIRE_OK(blocking_free(env.context, s));
  REQUIRE_OK(mem_free(env.context, sn));
}

/* memcpy between every pair of kinds and malloc memory, through events
 * of the right command type; fill with every pattern size; memset. */
static void test_copies(void) {
  enum { N = 4096 };
  unsigned char *ref = malloc(N), *got = malloc(N), *m = malloc(N);
  unsigned char *p[NUM_KINDS];
  for (int kind = 0; kind < NUM_KINDS; kind++)
    p[kind] = alloc_kind(kind, N, 0);
  for (int i = 0; i < N; i++)
    ref[i] = (unsigned char)test_rand();
  /* A chain malloc -> host -> device -> shared -> shared (no device)
   * -> malloc, non-blocking with events, then one blocking copy back. */
  cl_event ev[NUM_KINDS + 1];
  REQUIRE_OK(enq_memcpy(env.queue, CL_FALSE, p[HOST], ref, N, 0, NULL,
                        &ev[0]));
  for (int kind = 1; kind < NUM_KINDS; kind++)
    REQUIRE_OK(enq_memcpy(env.queue, CL_FALSE, p[kind], p[kind - 1], N, 1,
                          &ev[kind - 1], &ev[kind]));
  REQUIRE_OK(enq_memcpy(env.queue, CL_TRUE, m, p[NUM_KINDS - 1], N, 1,
                        &ev[NUM_KINDS - 1], &ev[NUM_KINDS]));
  CHECK(memcmp(m, ref, N) == 0);
  for (int i = 0; i <= NUM_KINDS; i++) {
    CHECK_EQ(event_type(ev[i]), CL_COMMAND_MEMCPY_INTEL);
    REQUIRE_OK(clReleaseEvent(ev[i]));
  }
  /* Within one allocation: adjacent ranges are fine, overlapping ones
   * are CL_MEM_COPY_OVERLAP. */
  REQUIRE_OK(enq_memcpy(env.queue, CL_TRUE, p[DEVICE] + 1024,
                        p[DEVICE], 1024, 0, NULL, NULL));
  REQUIRE_OK(enq_memcpy(env.queue, CL_TRUE, got, p[DEVICE], N, 0, NULL,
                        NULL));
  CHECK(memcmp(got + 1024, ref, 1024) == 0);
  CHECK(memcmp(got, ref, 1024) == 0);
  CHECK(memcmp(got + 2048, ref + 2048, N - 2048) == 0);
  CHECK_EQ(enq_memcpy(env.queue, CL_TRUE, p[DEVICE] + 1023, p[DEVICE], 1024,
                      0, NULL, NULL),
           CL_MEM_COPY_OVERLAP);
  CHECK_EQ(enq_memcpy(env.queue, CL_TRUE, p[DEVICE], p[DEVICE] + 1, 1024,
                      0, NULL, NULL),
           CL_MEM_COPY_OVERLAP);
  CHECK_EQ(enq_memcpy(env.queue, CL_TRUE, p[HOST], p[HOST], 1, 0, NULL,
                      NULL),
           CL_MEM_COPY_OVERLAP);
  /* Size 0 copies nothing and succeeds. */
  REQUIRE_OK(enq_memcpy(env.queue, CL_TRUE, p[HOST], p[SHARED], 0, 0, NULL,
                        NULL));
  CHECK_EQ(enq_memcpy(env.queue, CL_TRUE, NULL, p[HOST], 4, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_memcpy(env.queue, CL_TRUE, p[HOST], NULL, 4, 0, NULL, NULL),
           CL_INVALID_VALUE);
  /* Past the end of an allocation. */
  CHECK_EQ(enq_memcpy(env.queue, CL_TRUE, p[SHARED] + N - 8, m, 16, 0, NULL,
                      NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_memcpy(env.queue, CL_TRUE, m, p[DEVICE] + 1, N, 0, NULL,
                      NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_memcpy(NULL, CL_TRUE, m, p[HOST], 4, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(enq_memcpy(env.queue, CL_TRUE, m, p[HOST], 4, 1, NULL, NULL),
           CL_INVALID_EVENT_WAIT_LIST);
  CHECK_EQ(enq_memcpy(env.queue, CL_TRUE, m, p[HOST], 4, 0, ev, NULL),
           CL_INVALID_EVENT_WAIT_LIST);

  /* Fill with every pattern size at an offset, the bytes around kept. */
  for (size_t ps = 1; ps <= 128; ps *= 2) {
    unsigned char pattern[128];
    for (size_t i = 0; i < ps; i++)
      pattern[i] = (unsigned char)(ps * 16 + i + 1);
    memset(ref, 0xEE, N);
    /* Blocking: ref changes below. */
    REQUIRE_OK(enq_memcpy(env.queue, CL_TRUE, p[DEVICE], ref, N, 0, NULL,
                          NULL));
    size_t off = 256, size = ps * 7;
    cl_event fe;
    REQUIRE_OK(enq_fill(env.queue, p[DEVICE] + off, pattern, ps, size, 0,
                        NULL, &fe));
    for (size_t i = 0; i < size; i++)
      ref[off + i] = pattern[i % ps];
    REQUIRE_OK(enq_memcpy(env.queue, CL_TRUE, got, p[DEVICE], N, 1, &fe,
                          NULL));
    CHECK(memcmp(got, ref, N) == 0);
    CHECK_EQ(event_type(fe), CL_COMMAND_MEMFILL_INTEL);
    REQUIRE_OK(clReleaseEvent(fe));
  }
  /* Fill of malloc memory (shared system) is allowed too. */
  int v = 0x01020304;
  REQUIRE_OK(enq_fill(env.queue, m, &v, sizeof v, 64, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  for (int i = 0; i < 16; i++)
    CHECK_EQ(((int *)m)[i], v);
  /* Fill errors. */
  CHECK_EQ(enq_fill(env.queue, NULL, &v, 4, 4, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_fill(env.queue, p[HOST], NULL, 4, 4, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_fill(env.queue, p[HOST], &v, 3, 6, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_fill(env.queue, p[HOST], &v, 0, 0, 0, NULL, NULL),
           CL_INVALID_VALUE);
  unsigned char big[256] = {0};
  CHECK_EQ(enq_fill(env.queue, p[HOST], big, 256, 256, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_fill(env.queue, p[HOST] + 2, &v, 4, 8, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_fill(env.queue, p[HOST], &v, 4, 6, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_fill(env.queue, p[HOST] + N - 4, &v, 4, 8, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_fill(NULL, p[HOST], &v, 4, 4, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);

  /* memset: the low byte of value, any alignment, command type fill. */
  memset(ref, 0x11, N);
  REQUIRE_OK(enq_memcpy(env.queue, CL_FALSE, p[SHARED], ref, N, 0, NULL,
                        NULL));
  cl_event se;
  REQUIRE_OK(enq_memset(env.queue, p[SHARED] + 3, 0x1AB, 1001, 0, NULL,
                        &se));
  REQUIRE_OK(clWaitForEvents(1, &se));
  memset(ref + 3, 0xAB, 1001);
  CHECK(memcmp(p[SHARED], ref, N) == 0);
  CHECK_EQ(event_type(se), CL_COMMAND_MEMFILL_INTEL);
  REQUIRE_OK(clReleaseEvent(se));
  CHECK_EQ(enq_memset(env.queue, NULL, 0, 4, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_memset(NULL, p[HOST], 0, 4, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);

  for (int kind = 0; kind < NUM_KINDS; kind++)
    REQUIRE_OK(mem_free(env.context, p[kind]));
  free(ref);
  free(got);
  free(m);
}

/* Migrate and advise are accepted, order, and report their types. */
static void test_hints(void) {
  char *s = alloc_kind(SHARED, 8192, 0);
  const cl_mem_migration_flags flags[] = {
      0, CL_MIGRATE_MEM_OBJECT_HOST, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
      CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED};
  for (int i = 0; i < 4; i++) {
    cl_event ev;
    REQUIRE_OK(enq_migrate(env.queue, s + 100, 4000, flags[i], 0, NULL,
                           &ev));
    REQUIRE_OK(clWaitForEvents(1, &ev));
    CHECK_EQ(event_type(ev), CL_COMMAND_MIGRATEMEM_INTEL);
    REQUIRE_OK(clReleaseEvent(ev));
  }
  CHECK_EQ(enq_migrate(env.queue, s, 64, 1u << 5, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_migrate(env.queue, NULL, 64, 0, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_migrate(env.queue, s + 8000, 500, 0, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_migrate(NULL, s, 64, 0, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(enq_migrate(env.queue, s, 64, 0, 1, NULL, NULL),
           CL_INVALID_EVENT_WAIT_LIST);
  const cl_mem_advice_intel advice[] = {0, 0x4208, 0x420F};
  for (int i = 0; i < 3; i++) {
    cl_event ev;
    REQUIRE_OK(enq_advise(env.queue, s, 8192, advice[i], 0, NULL, &ev));
    REQUIRE_OK(clWaitForEvents(1, &ev));
    CHECK_EQ(event_type(ev), CL_COMMAND_MEMADVISE_INTEL);
    REQUIRE_OK(clReleaseEvent(ev));
  }
  CHECK_EQ(enq_advise(NULL, s, 64, 0, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(enq_advise(env.queue, NULL, 64, 0, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_advise(env.queue, s + 1, 8192, 0, 0, NULL, NULL),
           CL_INVALID_VALUE);
  REQUIRE_OK(mem_free(env.context, s));
}

/* A kernel reaches host, device and shared allocations only through a
 * struct of pointers in a host allocation, with the indirect-access
 * flags and the pointer list set. */
static void test_indirect(cl_program prog) {
  enum { N = 777 };
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "indirect", &err);
  REQUIRE_OK(err);
  int *a = alloc_kind(HOST, N * sizeof(int), 0);
  int *b = alloc_kind(DEVICE, N * sizeof(int), 0);
  int *c = alloc_kind(SHARED, N * sizeof(int), 0);
  struct {
    int *a, *b, *c;
  } *ptrs = alloc_kind(HOST, 3 * sizeof(void *), 0);
  int bh[N], ref[N];
  for (int i = 0; i < N; i++) {
    a[i] = (int)(test_rand() % 2000) - 1000;
    bh[i] = (int)(test_rand() % 2000) - 1000;
    ref[i] = a[i] * 3 + bh[i];
  }
  REQUIRE_OK(enq_memcpy(env.queue, CL_TRUE, b, bh, sizeof bh, 0, NULL, NULL));
  ptrs->a = a;
  ptrs->b = b;
  ptrs->c = c;
  cl_bool yes = CL_TRUE;
  REQUIRE_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL,
                                 sizeof yes, &yes));
  REQUIRE_OK(clSetKernelExecInfo(
      k, CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL, sizeof yes, &yes));
  REQUIRE_OK(clSetKernelExecInfo(
      k, CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL, sizeof yes, &yes));
  void *list[] = {a, b, c};
  REQUIRE_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL,
                                 sizeof list, list));
  REQUIRE_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL, 0,
                                 NULL));
  REQUIRE_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL,
                                 sizeof list, list));
  REQUIRE_OK(set_arg_ptr(k, 0, ptrs));
  size_t global = N;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  CHECK(memcmp(c, ref, sizeof ref) == 0);
  /* Exec-info errors. */
  cl_bool no = CL_FALSE;
  REQUIRE_OK(clSetKernelExecInfo(
      k, CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL, sizeof no, &no));
  CHECK_EQ(clSetKernelExecInfo(k,
                               CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL,
                               8, list),
           CL_INVALID_VALUE);
  CHECK_EQ(clSetKernelExecInfo(
               k, CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL,
               sizeof yes, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL, 12,
                               list),
           CL_INVALID_VALUE);
  CHECK_EQ(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL,
                               sizeof list, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clSetKernelExecInfo(NULL, CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL,
                               sizeof list, list),
           CL_INVALID_KERNEL);
  REQUIRE_OK(mem_free(env.context, a));
  REQUIRE_OK(mem_free(env.context, b));
  REQUIRE_OK(mem_free(env.context, c));
  REQUIRE_OK(mem_free(env.context, ptrs));
  REQUIRE_OK(clReleaseKernel(k));
}

static void test_arg_errors(cl_program prog) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "axpy", &err);
  REQUIRE_OK(err);
  cl_kernel kc = clCreateKernel(prog, "count", &err);
  REQUIRE_OK(err);
  int on_stack;
  CHECK_EQ(set_arg_ptr(NULL, 0, &on_stack), CL_INVALID_KERNEL);
  CHECK_EQ(set_arg_ptr((cl_kernel)env.context, 0, &on_stack),
           CL_INVALID_KERNEL);
  CHECK_EQ(set_arg_ptr(k, 3, &on_stack), CL_INVALID_ARG_INDEX);
  /* a by-value int, a local pointer */
  CHECK_EQ(set_arg_ptr(k, 2, &on_stack), CL_INVALID_ARG_VALUE);
  CHECK_EQ(set_arg_ptr(kc, 1, &on_stack), CL_INVALID_ARG_VALUE);
  /* Any pointer value is valid (revision 1.1.0): NULL, the stack, a
   * freed allocation, one of another context. */
  REQUIRE_OK(set_arg_ptr(k, 0, NULL));
  REQUIRE_OK(set_arg_ptr(k, 0, &on_stack));
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseKernel(kc));
}

static void test_alloc_errors(void) {
  cl_int err = 0;
  /* Invalid contexts and devices. */
  CHECK(!host_alloc(NULL, NULL, 64, 0, &err));
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  CHECK(!device_alloc((cl_context)env.queue, env.device, NULL, 64, 0, &err));
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  CHECK(!shared_alloc(NULL, NULL, NULL, 64, 0, &err));
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  CHECK(!device_alloc(env.context, NULL, NULL, 64, 0, &err));
  CHECK_EQ(err, CL_INVALID_DEVICE);
  CHECK(!device_alloc(env.context, (cl_device_id)env.context, NULL, 64, 0,
                      &err));
  CHECK_EQ(err, CL_INVALID_DEVICE);
  CHECK(!shared_alloc(env.context, (cl_device_id)env.queue, NULL, 64, 0,
                      &err));
  CHECK_EQ(err, CL_INVALID_DEVICE);
  /* Alignment: a power of two up to 128 (long16). */
  const cl_uint bad_align[] = {3, 96, 256, 4096};
  for (int i = 0; i < 4; i++) {
    err = 0;
    CHECK(!host_alloc(env.context, NULL, 64, bad_align[i], &err));
    CHECK_EQ(err, CL_INVALID_VALUE);
    err = 0;
    CHECK(!device_alloc(env.context, env.device, NULL, 64, bad_align[i],
                        &err));
    CHECK_EQ(err, CL_INVALID_VALUE);
    err = 0;
    CHECK(!shared_alloc(env.context, NULL, NULL, 64, bad_align[i], &err));
    CHECK_EQ(err, CL_INVALID_VALUE);
  }
  for (cl_uint al = 1; al <= 128; al *= 2) {
    char *p = host_alloc(env.context, NULL, 3, al, &err);
    CHECK_EQ(err, CL_SUCCESS);
    CHECK_EQ((uintptr_t)p % al, 0);
    REQUIRE_OK(mem_free(env.context, p));
  }
  /* Sizes. */
  cl_ulong max = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                             sizeof max, &max, NULL));
  CHECK(!host_alloc(env.context, NULL, 0, 0, &err));
  CHECK_EQ(err, CL_INVALID_BUFFER_SIZE);
  CHECK(!device_alloc(env.context, env.device, NULL, (size_t)max + 1, 0,
                      &err));
  CHECK_EQ(err, CL_INVALID_BUFFER_SIZE);
  CHECK(!shared_alloc(env.context, NULL, NULL, 0, 0, &err));
  CHECK_EQ(err, CL_INVALID_BUFFER_SIZE);
  /* Properties. */
  const cl_mem_properties_intel unknown[] = {0x4242, 0, 0};
  const cl_mem_properties_intel location[] = {
      CL_MEM_ALLOC_BUFFER_LOCATION_INTEL, 0, 0};
  const cl_mem_properties_intel twice[] = {CL_MEM_ALLOC_FLAGS_INTEL, 0,
                                           CL_MEM_ALLOC_FLAGS_INTEL, 0, 0};
  const cl_mem_properties_intel bad_bits[] = {CL_MEM_ALLOC_FLAGS_INTEL,
                                              1u << 7, 0};
  const cl_mem_properties_intel dev_place[] = {
      CL_MEM_ALLOC_FLAGS_INTEL, CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL,
      0};
  const cl_mem_properties_intel host_place[] = {
      CL_MEM_ALLOC_FLAGS_INTEL, CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL, 0};
  const cl_mem_properties_intel both_place[] = {
      CL_MEM_ALLOC_FLAGS_INTEL,
      CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL |
          CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL,
      0};
  const cl_mem_properties_intel *bad_all[] = {unknown, location, twice,
                                              bad_bits, both_place};
  for (int i = 0; i < 5; i++) {
    err = 0;
    CHECK(!host_alloc(env.context, bad_all[i], 64, 0, &err));
    CHECK_EQ(err, CL_INVALID_PROPERTY);
    err = 0;
    CHECK(!device_alloc(env.context, env.device, bad_all[i], 64, 0, &err));
    CHECK_EQ(err, CL_INVALID_PROPERTY);
    err = 0;
    CHECK(!shared_alloc(env.context, env.device, bad_all[i], 64, 0, &err));
    CHECK_EQ(err, CL_INVALID_PROPERTY);
  }
  /* Placement hints are for shared allocations only. */
  const cl_mem_properties_intel *places[] = {dev_place, host_place};
  for (int i = 0; i < 2; i++) {
    err = 0;
    CHECK(!host_alloc(env.context, places[i], 64, 0, &err));
    CHECK_EQ(err, CL_INVALID_PROPERTY);
    err = 0;
    CHECK(!device_alloc(env.context, env.device, places[i], 64, 0, &err));
    CHECK_EQ(err, CL_INVALID_PROPERTY);
    void *p = shared_alloc(env.context, NULL, places[i], 64, 0, &err);
    CHECK_EQ(err, CL_SUCCESS);
    REQUIRE_OK(mem_free(env.context, p));
  }
  /* An empty property list, and NULL errcode_ret. */
  const cl_mem_properties_intel empty[] = {0};
  void *p = device_alloc(env.context, env.device, empty, 64, 0, NULL);
  CHECK(p != NULL);
  /* Free errors. */
  CHECK_EQ(mem_free(NULL, p), CL_INVALID_CONTEXT);
  CHECK_EQ(blocking_free((cl_context)env.queue, p), CL_INVALID_CONTEXT);
  REQUIRE_OK(mem_free(env.context, NULL));
  REQUIRE_OK(blocking_free(env.context, NULL));
  CHECK_EQ(mem_free(env.context, (char *)p + 8), CL_INVALID_VALUE);
  int on_stack;
  CHECK_EQ(mem_free(env.context, &on_stack), CL_INVALID_VALUE);
  CHECK_EQ(blocking_free(env.context, &on_stack), CL_INVALID_VALUE);
  REQUIRE_OK(mem_free(env.context, p));
  CHECK_EQ(mem_free(env.context, p), CL_INVALID_VALUE);
  CHECK_EQ(blocking_free(env.context, p), CL_INVALID_VALUE);
}

/* Another context's allocations: unknown here, not freed here, not
 * copied to or from on this context's queue. */
static void test_other_context(void) {
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
  REQUIRE_OK(err);
  char *o = host_alloc(other, NULL, 256, 0, &err);
  REQUIRE_OK(err);
  check_info(other, o + 5, CL_MEM_TYPE_HOST_INTEL, o, 256, NULL, 0);
  check_info(env.context, o + 5, CL_MEM_TYPE_UNKNOWN_INTEL, NULL, 0, NULL,
             0);
  CHECK_EQ(mem_free(env.context, o), CL_INVALID_VALUE);
  CHECK_EQ(blocking_free(env.context, o), CL_INVALID_VALUE);
  char buf[16];
  CHECK_EQ(enq_memcpy(env.queue, CL_TRUE, buf, o, 16, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_memcpy(env.queue, CL_TRUE, o, buf, 16, 0, NULL, NULL),
           CL_INVALID_VALUE);
  int v = 0;
  CHECK_EQ(enq_fill(env.queue, o, &v, 4, 16, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(enq_migrate(env.queue, o, 16, 0, 0, NULL, NULL), CL_INVALID_VALUE);
  REQUIRE_OK(mem_free(other, o));
  /* The context outlives its release while it has an allocation. */
  char *o2 = shared_alloc(other, env.device, NULL, 64, 0, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clReleaseContext(other));
  check_info(other, o2, CL_MEM_TYPE_SHARED_INTEL, o2, 64, env.device, 0);
  REQUIRE_OK(mem_free(other, o2));
}

/* A USM allocation under CL_MEM_USE_HOST_PTR is no SVM pointer. */
static void test_use_host_ptr(void) {
  cl_int err;
  char *h = alloc_kind(HOST, 1024, 0);
  cl_mem m = clCreateBuffer(env.context, CL_MEM_USE_HOST_PTR, 1024, h, &err);
  REQUIRE_OK(err);
  cl_bool uses_svm = CL_TRUE;
  REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_USES_SVM_POINTER, sizeof uses_svm,
                                &uses_svm, NULL));
  CHECK_EQ(uses_svm, CL_FALSE);
  REQUIRE_OK(clReleaseMemObject(m));
  REQUIRE_OK(mem_free(env.context, h));
}

typedef struct release_arg {
  cl_event user;
  _Atomic int released;
} release_arg;

static void *release_later(void *p) {
  release_arg *r = p;
  struct timespec ts = {0, 200 * 1000 * 1000};
  nanosleep(&ts, NULL);
  r->released = 1;
  clSetUserEventStatus(r->user, CL_COMPLETE);
  return NULL;
}

/* clMemBlockingFreeINTEL returns only once the kernel using the
 * allocation (held back by a user event another thread completes after
 * 200 ms) has run; clMemFreeINTEL does not wait. */
static void test_blocking_free(cl_program prog) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "touch", &err);
  REQUIRE_OK(err);
  cl_command_queue q2 =
      clCreateCommandQueueWithProperties(env.context, env.device, NULL, &err);
  REQUIRE_OK(err);
  int *p = alloc_kind(DEVICE, 256 * sizeof(int), 0);
  release_arg r = {clCreateUserEvent(env.context, &err), 0};
  REQUIRE_OK(err);
  REQUIRE_OK(set_arg_ptr(k, 0, p));
  size_t global = 256;
  cl_event kev;
  /* On a second queue: the wait covers every queue of the context. */
  REQUIRE_OK(clEnqueueNDRangeKernel(q2, k, 1, NULL, &global, NULL, 1,
                                    &r.user, &kev));
  REQUIRE_OK(clFlush(q2));
  pthread_t t;
  CHECK_EQ(pthread_create(&t, NULL, release_later, &r), 0);
  REQUIRE_OK(blocking_free(env.context, p));
  CHECK_EQ(r.released, 1);
  cl_int status = 1;
  REQUIRE_OK(clGetEventInfo(kev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                            sizeof status, &status, NULL));
  CHECK_EQ(status, CL_COMPLETE);
  pthread_join(t, NULL);
  REQUIRE_OK(clReleaseEvent(kev));
  REQUIRE_OK(clReleaseEvent(r.user));
  /* clMemFreeINTEL returns at once: the kernel's allocation is freed
   * only after the kernel, by hand here. */
  int *q = alloc_kind(HOST, 256 * sizeof(int), 0);
  memset(q, 0, 256 * sizeof(int));
  int *spare = alloc_kind(HOST, 256 * sizeof(int), 0);
  release_arg r2 = {clCreateUserEvent(env.context, &err), 0};
  REQUIRE_OK(err);
  REQUIRE_OK(set_arg_ptr(k, 0, q));
  REQUIRE_OK(clEnqueueNDRangeKernel(q2, k, 1, NULL, &global, NULL, 1,
                                    &r2.user, &kev));
  REQUIRE_OK(mem_free(env.context, spare));
  CHECK_EQ(r2.released, 0);
  REQUIRE_OK(clSetUserEventStatus(r2.user, CL_COMPLETE));
  REQUIRE_OK(clWaitForEvents(1, &kev));
  for (int i = 0; i < 256; i++)
    CHECK_EQ(q[i], 1);
  REQUIRE_OK(mem_free(env.context, q));
  REQUIRE_OK(clReleaseEvent(kev));
  REQUIRE_OK(clReleaseEvent(r2.user));
  REQUIRE_OK(clReleaseCommandQueue(q2));
  REQUIRE_OK(clReleaseKernel(k));
}

typedef struct free_arg {
  void *p;
  cl_int err;
  _Atomic int done;
} free_arg;

static void *free_blocking(void *v) {
  free_arg *a = v;
  a->err = blocking_free(env.context, a->p);
  a->done = 1;
  return NULL;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000 * 1000};
  nanosleep(&ts, NULL);
}

/* The blocking free waits for the commands enqueued before it, and not
 * for one enqueued on another queue while it waits, here held back by a
 * user event that is set only after the free has returned: waiting for
 * the context to be idle never returned (the check times out after 10 s
 * and then lets the command go). */
static void test_blocking_free_later(cl_program prog) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "touch", &err);
  REQUIRE_OK(err);
  cl_command_queue q2 =
      clCreateCommandQueueWithProperties(env.context, env.device, NULL, &err);
  REQUIRE_OK(err);
  int *p = alloc_kind(SHARED, 64 * sizeof(int), 0);
  int *other = alloc_kind(HOST, 64 * sizeof(int), 0);
  memset(p, 0, 64 * sizeof(int));
  memset(other, 0, 64 * sizeof(int));
  cl_event before = clCreateUserEvent(env.context, &err);
  REQUIRE_OK(err);
  cl_event after = clCreateUserEvent(env.context, &err);
  REQUIRE_OK(err);
  size_t global = 64;
  cl_event kev, lev;
  REQUIRE_OK(set_arg_ptr(k, 0, p));
  REQUIRE_OK(clEnqueueNDRangeKernel(q2, k, 1, NULL, &global, NULL, 1,
                                    &before, &kev));
  REQUIRE_OK(clFlush(q2));
  free_arg a = {p, -1, 0};
  pthread_t t;
  CHECK_EQ(pthread_create(&t, NULL, free_blocking, &a), 0);
  /* Time for the free to take its snapshot and start waiting. */
  sleep_ms(300);
  CHECK_EQ(a.done, 0);
  /* A later command on the other queue, which the free must ignore. */
  REQUIRE_OK(set_arg_ptr(k, 0, other));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL,
                                    1, &after, &lev));
  REQUIRE_OK(clFlush(env.queue));
  REQUIRE_OK(clSetUserEventStatus(before, CL_COMPLETE));
  for (int i = 0; i < 1000 && !a.done; i++)
    sleep_ms(10);
  CHECK_EQ(a.done, 1);
  cl_int status = 1;
  REQUIRE_OK(clGetEventInfo(kev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                            sizeof status, &status, NULL));
  CHECK_EQ(status, CL_COMPLETE);
  REQUIRE_OK(clGetEventInfo(lev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                            sizeof status, &status, NULL));
  CHECK(status > CL_COMPLETE);
  REQUIRE_OK(clSetUserEventStatus(after, CL_COMPLETE));
  pthread_join(t, NULL);
  CHECK_EQ(a.err, CL_SUCCESS);
  REQUIRE_OK(clWaitForEvents(1, &lev));
  for (int i = 0; i < 64; i++)
    CHECK_EQ(other[i], 1);
  REQUIRE_OK(mem_free(env.context, other));
  /* Freed by the blocking free: */
  CHECK_EQ(mem_free(env.context, p), CL_INVALID_VALUE);
  cl_event evs[] = {kev, lev, before, after};
  for (int i = 0; i < 4; i++)
    REQUIRE_OK(clReleaseEvent(evs[i]));
  REQUIRE_OK(clReleaseCommandQueue(q2));
  REQUIRE_OK(clReleaseKernel(k));
}

/* A shared allocation made for a sub-device keeps it: with the
 * application's references to the sub-device dropped,
 * CL_MEM_ALLOC_DEVICE_INTEL still names a valid device, and a kernel on
 * it still uses the allocation. */
static void test_sub_device_alloc(void) {
  cl_uint max_sub = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_PARTITION_MAX_SUB_DEVICES,
                             sizeof max_sub, &max_sub, NULL));
  if (max_sub < 2) {
    printf("sub-device allocation: skipped (%u sub-devices)\n", max_sub);
    return;
  }
  cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  cl_device_id sub[2];
  cl_uint n = 0;
  REQUIRE_OK(clCreateSubDevices(env.device, props, 2, sub, &n));
  CHECK(n >= 2);
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &sub[1], NULL, NULL, &err);
  REQUIRE_OK(err);
  int *p = shared_alloc(ctx, sub[1], NULL, 64 * sizeof(int), 0, &err);
  REQUIRE_OK(err);
  CHECK(p != NULL);
  REQUIRE_OK(clReleaseDevice(sub[0]));
  REQUIRE_OK(clReleaseDevice(sub[1]));
  cl_device_id dev = NULL;
  REQUIRE_OK(alloc_info(ctx, p, CL_MEM_ALLOC_DEVICE_INTEL, sizeof dev, &dev,
                        NULL));
  CHECK(dev == sub[1]);
  cl_device_id parent = NULL;
  REQUIRE_OK(clGetDeviceInfo(dev, CL_DEVICE_PARENT_DEVICE, sizeof parent,
                             &parent, NULL));
  CHECK(parent == env.device);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL,
                                                          &err);
  REQUIRE_OK(err);
  const char *src = "kernel void seq(global int *p) {\n"
                    "  p[get_global_id(0)] = (int)get_global_id(0) * 5;\n"
                    "}\n";
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clBuildProgram(prog, 1, &dev, NULL, NULL, NULL));
  cl_kernel k = clCreateKernel(prog, "seq", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(set_arg_ptr(k, 0, p));
  size_t global = 64;
  REQUIRE_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL,
                                    NULL));
  REQUIRE_OK(clFinish(q));
  for (int i = 0; i < 64; i++)
    CHECK_EQ(p[i], i * 5);
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseProgram(prog));
  REQUIRE_OK(clReleaseCommandQueue(q));
  REQUIRE_OK(blocking_free(ctx, p));
  REQUIRE_OK(clReleaseContext(ctx));
}

int main(void) {
  test_setup(&env);
  test_seed(0x5eed05aull);
  load_functions();
  test_device_queries();
  cl_program prog = test_build(&env, source, NULL);
  test_kernels(prog);
  test_atomics(prog);
  test_info();
  test_copies();
  test_hints();
  test_indirect(prog);
  test_arg_errors(prog);
  test_alloc_errors();
  test_other_context();
  test_use_host_ptr();
  test_blocking_free(prog);
  test_blocking_free_later(prog);
  test_sub_device_alloc();
  REQUIRE_OK(clReleaseProgram(prog));
  test_teardown(&env);
  return test_finish("usm");
}
