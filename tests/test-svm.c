/* This file tests shared virtual memory through the ICD loader: the
 * device's SVM and atomic capabilities and feature macros; clSVMAlloc
 * (every flag combination, alignments, the inputs that give NULL) and
 * clSVMFree; every SVM command (free with and without a callback,
 * memcpy, fill, map, unmap, migrate) with its results, event, command
 * type and error codes; SVM kernel arguments (pointers into the middle
 * of an allocation, constant pointers, malloc memory as fine-grain
 * system SVM, clones) and clSetKernelExecInfo; CL_MEM_USE_HOST_PTR
 * buffers over SVM and CL_MEM_USES_SVM_POINTER; pointers of another
 * context and freed pointers; linked lists built by the host and walked
 * by kernels and the reverse; a host-kernel atomic ping-pong and a
 * shared counter on fine-grain memory while the kernel runs (bounded by
 * a timeout, so a failure cannot hang); allocations from several
 * threads at once; a barrier kernel on SVM, which must take region mode
 * in the default run. ctest runs it again with SKEIN_MODE=fiber and
 * SKEIN_MODE=loop. */
#include "test_util.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

static test_env env;

static const char *source =
    "typedef struct node { global struct node *next; int value; int pad; }\n"
    "  node;\n"
    "kernel void scale(global int *a, int k) {\n"
    "  size_t i = get_global_id(0);\n"
    "  a[i] = a[i] * k + (int)i;\n"
    "}\n"
    "kernel void sum_const(constant int *a, global int *out, int n) {\n"
    "  int s = 0;\n"
    "  for (int i = 0; i < n; i++) s += a[i];\n"
    "  out[0] = s;\n"
    "}\n"
    /* Work-item i walks the list heads[i] starts. */
    "kernel void walk(global node *global *heads, global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int s = 0, n = 0;\n"
    "  for (global node *p = heads[i]; p; p = p->next) {\n"
    "    s += p->value * (n + 1);\n"
    "    n++;\n"
    "  }\n"
    "  out[2 * i] = s;\n"
    "  out[2 * i + 1] = n;\n"
    "}\n"
    /* Node at list position pos is pool[(pos * 37) % n]. */
    "kernel void build(global node *pool, int n) {\n"
    "  int pos = (int)get_global_id(0);\n"
    "  global node *me = &pool[(pos * 37) % n];\n"
    "  me->value = pos * 5 + 1;\n"
    "  me->next = pos + 1 < n ? &pool[((pos + 1) * 37) % n] : 0;\n"
    "}\n"
    "kernel void reverse_groups(global int *a) {\n"
    "  local int tmp[64];\n"
    "  size_t l = get_local_id(0), base = get_group_id(0) * 64;\n"
    "  tmp[l] = a[base + l];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  a[base + l] = tmp[63 - l] + 1;\n"
    "}\n"
    /* Rounds of: wait for the host's odd value, update data[r], answer
     * with the next even value. abort_flag ends it early. */
    "kernel void pingpong(global atomic_int *flag, global int *data,\n"
    "                     global atomic_int *abort_flag, int rounds,\n"
    "                     global int *status) {\n"
    "  for (int r = 0; r < rounds; r++) {\n"
    "    int want = 2 * r + 1;\n"
    "    while (atomic_load_explicit(flag, memory_order_acquire,\n"
    "                                memory_scope_all_svm_devices) != want)\n"
    "      if (atomic_load_explicit(abort_flag, memory_order_relaxed,\n"
    "                               memory_scope_all_svm_devices)) {\n"
    "        status[0] = -1 - r;\n"
    "        return;\n"
    "      }\n"
    "    data[r] = data[r] * 2 + 1;\n"
    "    atomic_store_explicit(flag, want + 1, memory_order_release,\n"
    "                          memory_scope_all_svm_devices);\n"
    "  }\n"
    "  status[0] = rounds;\n"
    "}\n"
    /* OpenCL C 3.0 names the scope memory_scope_all_devices too. */
    "#if __OPENCL_C_VERSION__ >= 300\n"
    "#define ALL memory_scope_all_devices\n"
    "#else\n"
    "#define ALL memory_scope_all_svm_devices\n"
    "#endif\n"
    "kernel void count(global atomic_int *counter) {\n"
    "  atomic_fetch_add_explicit(counter, 1, memory_order_relaxed, ALL);\n"
    "}\n";

/* Host mirror of the kernels' node. */
typedef struct node {
  struct node *next;
  cl_int value;
  cl_int pad;
} node;

static cl_program prog;
static cl_device_svm_capabilities caps;

static cl_kernel kernel(const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  return k;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void run(cl_kernel k, size_t global, size_t local) {
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global,
                                    local ? &local : NULL, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
}

/* ---- Device queries ---------------------------------------------------- */

static void test_queries(void) {
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_SVM_CAPABILITIES,
                             sizeof caps, &caps, NULL));
  CHECK_EQ(caps, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER |
                     CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
                     CL_DEVICE_SVM_FINE_GRAIN_SYSTEM |
                     CL_DEVICE_SVM_ATOMICS);
  cl_device_atomic_capabilities atomics = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES,
                             sizeof atomics, &atomics, NULL));
  CHECK(atomics & CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES);
  CHECK(atomics & CL_DEVICE_ATOMIC_ORDER_SEQ_CST);
  /* memory_scope_all_svm_devices needs the all-devices scope feature. */
  CHECK_EQ(test_c_feature_count(&env, "__opencl_c_atomic_scope_all_devices",
                                0),
           1);
}

/* ---- clSVMAlloc / clSVMFree ---------------------------------------------- */

static void test_alloc(void) {
  static const cl_svm_mem_flags good[] = {
      0,
      CL_MEM_READ_WRITE,
      CL_MEM_READ_ONLY,
      CL_MEM_WRITE_ONLY,
      CL_MEM_SVM_FINE_GRAIN_BUFFER,
      CL_MEM_READ_ONLY | CL_MEM_SVM_FINE_GRAIN_BUFFER,
      CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
      CL_MEM_WRITE_ONLY | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    char *p = clSVMAlloc(env.context, good[i], 1000, 0);
    CHECK(p != NULL);
    if (!p)
      continue;
    CHECK_EQ((uintptr_t)p % 128, 0); /* default: long16's alignment */
    memset(p, (int)i, 1000);         /* all of it is host memory */
    clSVMFree(env.context, p);
  }
  for (cl_uint align = 1; align <= 4096; align *= 2) {
    char *p = clSVMAlloc(env.context, CL_MEM_READ_WRITE, 24, align);
    CHECK(p != NULL);
    CHECK_EQ((uintptr_t)p % align, 0);
    clSVMFree(env.context, p);
  }
  cl_ulong max_alloc = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                             sizeof max_alloc, &max_alloc, NULL));
  /* NULL for each input the specification names. */
  CHECK(clSVMAlloc(NULL, CL_MEM_READ_WRITE, 64, 0) == NULL);
  CHECK(clSVMAlloc((cl_context)env.queue, CL_MEM_READ_WRITE, 64, 0) == NULL);
  CHECK(clSVMAlloc(env.context, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64,
                   0) == NULL);
  CHECK(clSVMAlloc(env.context, CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY, 64,
                   0) == NULL);
  CHECK(clSVMAlloc(env.context, CL_MEM_SVM_ATOMICS, 64, 0) == NULL);
  CHECK(clSVMAlloc(env.context, CL_MEM_USE_HOST_PTR, 64, 0) == NULL);
  CHECK(clSVMAlloc(env.context, (cl_svm_mem_flags)1 << 40, 64, 0) == NULL);
  CHECK(clSVMAlloc(env.context, CL_MEM_READ_WRITE, 0, 0) == NULL);
  CHECK(clSVMAlloc(env.context, CL_MEM_READ_WRITE, (size_t)max_alloc + 1,
                   0) == NULL);
  CHECK(clSVMAlloc(env.context, CL_MEM_READ_WRITE, SIZE_MAX, 0) == NULL);
  CHECK(clSVMAlloc(env.context, CL_MEM_READ_WRITE, 64, 3) == NULL);
  CHECK(clSVMAlloc(env.context, CL_MEM_READ_WRITE, 64, 96) == NULL);
  CHECK(clSVMAlloc(env.context, CL_MEM_READ_WRITE, 64, 8192) == NULL);
  /* clSVMFree: NULL, a pointer it did not allocate, one freed already
   * and an invalid context all do nothing. */
  clSVMFree(env.context, NULL);
  int on_stack = 0;
  clSVMFree(env.context, &on_stack);
  char *p = clSVMAlloc(env.context, CL_MEM_READ_WRITE, 256, 0);
  REQUIRE_OK(p ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  clSVMFree(NULL, p);
  clSVMFree(env.context, p + 8); /* inside: not the allocation */
  p[255] = 1;                    /* still allocated (ASan would see) */
  clSVMFree(env.context, p);
  clSVMFree(env.context, p); /* twice: nothing */
}

/* ---- Commands ------------------------------------------------------------ */

static cl_command_type command_type(cl_event ev) {
  cl_command_type t = 0;
  REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL));
  return t;
}

/* Checks that ev completed as a command of type type, then releases it. */
static void check_event(cl_event ev, cl_command_type type) {
  REQUIRE_OK(clWaitForEvents(1, &ev));
  CHECK_EQ(command_type(ev), type);
  cl_int status = -1;
  REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                            sizeof status, &status, NULL));
  CHECK_EQ(status, CL_COMPLETE);
  cl_command_queue q = NULL;
  REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL));
  CHECK(q == env.queue);
  cl_ulong start = 0, end = 0;
  REQUIRE_OK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START,
                                     sizeof start, &start, NULL));
  REQUIRE_OK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END,
                                     sizeof end, &end, NULL));
  CHECK(start <= end);
  clReleaseEvent(ev);
}

static void test_memcpy_fill(void) {
  enum { N = 4096 };
  unsigned char *a = clSVMAlloc(env.context, CL_MEM_READ_WRITE, N, 0);
  unsigned char *b = clSVMAlloc(env.context, CL_MEM_SVM_FINE_GRAIN_BUFFER,
                                N, 0);
  unsigned char *host = malloc(N), *ref = malloc(N);
  REQUIRE_OK(a && b && host && ref ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  for (int i = 0; i < N; i++)
    host[i] = (unsigned char)(i * 7 + 3);
  cl_event ev;
  /* host -> coarse, coarse -> fine (middle, non-blocking), fine -> host */
  REQUIRE_OK(clEnqueueSVMMemcpy(env.queue, CL_TRUE, a, host, N, 0, NULL,
                                &ev));
  check_event(ev, CL_COMMAND_SVM_MEMCPY);
  REQUIRE_OK(clEnqueueSVMMemcpy(env.queue, CL_FALSE, b + 100, a + 50, 1000,
                                0, NULL, &ev));
  memset(ref, 0xEE, N);
  REQUIRE_OK(clEnqueueSVMMemcpy(env.queue, CL_TRUE, ref, b + 100, 1000, 1,
                                &ev, NULL));
  check_event(ev, CL_COMMAND_SVM_MEMCPY);
  CHECK(memcmp(ref, host + 50, 1000) == 0);
  /* size 0 copies nothing */
  REQUIRE_OK(clEnqueueSVMMemcpy(env.queue, CL_TRUE, a, b, 0, 0, NULL, NULL));

  /* Every pattern size, at an offset that is a multiple of it. */
  for (size_t ps = 1; ps <= 128; ps *= 2) {
    unsigned char pattern[128];
    for (size_t i = 0; i < ps; i++)
      pattern[i] = (unsigned char)(ps + i * 13);
    memset(host, 0x5A, N);
    REQUIRE_OK(clEnqueueSVMMemcpy(env.queue, CL_FALSE, b, host, N, 0, NULL,
                                  NULL));
    size_t off = ps * 3, size = ps * 5;
    REQUIRE_OK(clEnqueueSVMMemFill(env.queue, b + off, pattern, ps, size, 0,
                                   NULL, &ev));
    check_event(ev, CL_COMMAND_SVM_MEMFILL);
    for (size_t i = 0; i < N; i++) {
      unsigned char want = i >= off && i < off + size
                               ? pattern[(i - off) % ps]
                               : 0x5A;
      if (b[i] != want) {
        fprintf(stderr, "fill %zu: byte %zu is %u, not %u\n", ps, i, b[i],
                want);
        test_failures++;
        break;
      }
    }
  }

  /* Errors. */
  unsigned char pat[4] = {1, 2, 3, 4};
  CHECK_EQ(clEnqueueSVMMemcpy(NULL, CL_TRUE, a, b, 16, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clEnqueueSVMMemcpy(env.queue, CL_TRUE, NULL, b, 16, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMemcpy(env.queue, CL_TRUE, a, NULL, 16, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMemcpy(env.queue, CL_TRUE, a, a + 15, 16, 0, NULL,
                              NULL),
           CL_MEM_COPY_OVERLAP);
  CHECK_EQ(clEnqueueSVMMemcpy(env.queue, CL_TRUE, a + 15, a, 16, 0, NULL,
                              NULL),
           CL_MEM_COPY_OVERLAP);
  CHECK_EQ(clEnqueueSVMMemcpy(env.queue, CL_TRUE, a + 16, a, 16, 0, NULL,
                              NULL),
           CL_SUCCESS);
  /* past the end of an allocation */
  CHECK_EQ(clEnqueueSVMMemcpy(env.queue, CL_TRUE, host, a + N - 8, 16, 0,
                              NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMemcpy(env.queue, CL_TRUE, a, b, 16, 1, NULL, NULL),
           CL_INVALID_EVENT_WAIT_LIST);
  CHECK_EQ(clEnqueueSVMMemFill(NULL, a, pat, 4, 16, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clEnqueueSVMMemFill(env.queue, NULL, pat, 4, 16, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMemFill(env.queue, a, NULL, 4, 16, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMemFill(env.queue, a, pat, 0, 16, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMemFill(env.queue, a, pat, 3, 12, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMemFill(env.queue, a, pat, 256, 256, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMemFill(env.queue, a + 2, pat, 4, 16, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMemFill(env.queue, a, pat, 4, 18, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMemFill(env.queue, a + N - 8, pat, 4, 16, 0, NULL,
                               NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMemFill(env.queue, a, pat, 4, 16, 0, &ev, NULL),
           CL_INVALID_EVENT_WAIT_LIST);

  /* A blocking copy whose wait list failed. */
  cl_int err;
  cl_event user = clCreateUserEvent(env.context, &err);
  REQUIRE_OK(err);
  cl_command_queue q2 = clCreateCommandQueueWithProperties(
      env.context, env.device, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetUserEventStatus(user, -1));
  CHECK_EQ(clEnqueueSVMMemcpy(q2, CL_TRUE, a, b, 16, 1, &user, NULL),
           CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  clReleaseEvent(user);
  clReleaseCommandQueue(q2);

  REQUIRE_OK(clFinish(env.queue));
  clSVMFree(env.context, a);
  clSVMFree(env.context, b);
  free(host);
  free(ref);
}

static void test_map_migrate(void) {
  enum { N = 1024 };
  cl_int *a = clSVMAlloc(env.context, CL_MEM_READ_WRITE, N * sizeof(cl_int),
                         0);
  REQUIRE_OK(a ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  cl_event ev;
  /* Coarse-grain: the host writes between map and unmap, a kernel reads
   * after the unmap; the host reads after mapping again. */
  REQUIRE_OK(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_WRITE, a,
                             N * sizeof(cl_int), 0, NULL, &ev));
  check_event(ev, CL_COMMAND_SVM_MAP);
  for (int i = 0; i < N; i++)
    a[i] = i;
  REQUIRE_OK(clEnqueueSVMUnmap(env.queue, a, 0, NULL, &ev));
  check_event(ev, CL_COMMAND_SVM_UNMAP);
  const void *ptrs[2] = {a, a + 100};
  size_t sizes[2] = {0, 64};
  REQUIRE_OK(clEnqueueSVMMigrateMem(env.queue, 2, ptrs, sizes, 0, 0, NULL,
                                    &ev));
  check_event(ev, CL_COMMAND_SVM_MIGRATE_MEM);
  REQUIRE_OK(clEnqueueSVMMigrateMem(env.queue, 1, ptrs, NULL,
                                    CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL,
                                    &ev));
  check_event(ev, CL_COMMAND_SVM_MIGRATE_MEM);
  cl_kernel k = kernel("scale");
  cl_int three = 3;
  REQUIRE_OK(clSetKernelArgSVMPointer(k, 0, a));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof three, &three));
  run(k, N, 0);
  REQUIRE_OK(clEnqueueSVMMap(env.queue, CL_FALSE, CL_MAP_READ, a,
                             N * sizeof(cl_int), 0, NULL, &ev));
  REQUIRE_OK(clWaitForEvents(1, &ev));
  clReleaseEvent(ev);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += a[i] != i * 3 + i;
  CHECK_EQ(bad, 0);
  REQUIRE_OK(clEnqueueSVMUnmap(env.queue, a, 0, NULL, NULL));

  /* Errors. */
  CHECK_EQ(clEnqueueSVMMap(NULL, CL_TRUE, CL_MAP_READ, a, 4, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, NULL, 4, 0, NULL,
                           NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, a, 0, 0, NULL,
                           NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMap(env.queue, CL_TRUE,
                           CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, a, 4,
                           0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMap(env.queue, CL_TRUE, 0x100, a, 4, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, a,
                           N * sizeof(cl_int) + 1, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMUnmap(NULL, a, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clEnqueueSVMUnmap(env.queue, NULL, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMUnmap(env.queue, a, 0, &ev, NULL),
           CL_INVALID_EVENT_WAIT_LIST);
  CHECK_EQ(clEnqueueSVMMigrateMem(NULL, 1, ptrs, NULL, 0, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clEnqueueSVMMigrateMem(env.queue, 0, ptrs, NULL, 0, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMigrateMem(env.queue, 1, NULL, NULL, 0, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMigrateMem(env.queue, 1, ptrs, NULL, 0x40, 0, NULL,
                                  NULL),
           CL_INVALID_VALUE);
  size_t too_big[1] = {N * sizeof(cl_int) + 1};
  CHECK_EQ(clEnqueueSVMMigrateMem(env.queue, 1, ptrs, too_big, 0, 0, NULL,
                                  NULL),
           CL_INVALID_VALUE);
  int on_stack[4];
  const void *not_svm[1] = {on_stack};
  CHECK_EQ(clEnqueueSVMMigrateMem(env.queue, 1, not_svm, NULL, 0, 0, NULL,
                                  NULL),
           CL_INVALID_VALUE);
  REQUIRE_OK(clFinish(env.queue));
  clReleaseKernel(k);
  clSVMFree(env.context, a);
}

/* What the clEnqueueSVMFree callback saw. */
static struct {
  int calls;
  cl_command_queue queue;
  cl_uint num;
  void *ptrs[4];
  void *user_data;
} freed;

static void CL_CALLBACK free_cb(cl_command_queue queue, cl_uint num,
                                void *ptrs[], void *user_data) {
  freed.calls++;
  freed.queue = queue;
  freed.num = num;
  for (cl_uint i = 0; i < num && i < 4; i++) {
    freed.ptrs[i] = ptrs[i];
    clSVMFree(env.context, ptrs[i]);
  }
  freed.user_data = user_data;
}

static void test_enqueue_free(void) {
  void *p[3];
  for (int i = 0; i < 3; i++) {
    p[i] = clSVMAlloc(env.context, CL_MEM_SVM_FINE_GRAIN_BUFFER, 64, 0);
    REQUIRE_OK(p[i] ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  }
  void *list[2] = {p[0], p[1]};
  void *const expect0 = p[0], *const expect1 = p[1];
  cl_event ev;
  int tag = 0;
  REQUIRE_OK(clEnqueueSVMFree(env.queue, 2, list, free_cb, &tag, 0, NULL,
                              &ev));
  list[0] = list[1] = NULL; /* the command keeps its own copy */
  check_event(ev, CL_COMMAND_SVM_FREE);
  CHECK_EQ(freed.calls, 1);
  CHECK(freed.queue == env.queue);
  CHECK_EQ(freed.num, 2);
  CHECK(freed.ptrs[0] == expect0 && freed.ptrs[1] == expect1);
  CHECK(freed.user_data == &tag);
  /* No pointers with a callback: it still runs, with none. */
  REQUIRE_OK(clEnqueueSVMFree(env.queue, 0, NULL, free_cb, NULL, 0, NULL,
                              NULL));
  REQUIRE_OK(clFinish(env.queue));
  CHECK_EQ(freed.calls, 2);
  CHECK_EQ(freed.num, 0);
  /* Without a callback Skein frees them (a NULL entry is skipped). */
  void *mine[2] = {p[2], NULL};
  REQUIRE_OK(clEnqueueSVMFree(env.queue, 2, mine, NULL, NULL, 0, NULL, &ev));
  check_event(ev, CL_COMMAND_SVM_FREE);
  /* Freed now: without a callback it is no pointer Skein may free. */
  CHECK_EQ(clEnqueueSVMFree(env.queue, 1, mine, NULL, NULL, 0, NULL, NULL),
           CL_INVALID_VALUE);
  /* System memory needs the application's callback. */
  void *sys[1] = {malloc(16)};
  CHECK_EQ(clEnqueueSVMFree(env.queue, 1, sys, NULL, NULL, 0, NULL, NULL),
           CL_INVALID_VALUE);
  free(sys[0]);
  CHECK_EQ(clEnqueueSVMFree(NULL, 1, mine, free_cb, NULL, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clEnqueueSVMFree(env.queue, 0, mine, free_cb, NULL, 0, NULL,
                            NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMFree(env.queue, 1, NULL, free_cb, NULL, 0, NULL,
                            NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMFree(env.queue, 0, NULL, free_cb, NULL, 1, NULL,
                            NULL),
           CL_INVALID_EVENT_WAIT_LIST);
  REQUIRE_OK(clFinish(env.queue));
  CHECK_EQ(freed.calls, 2);
}

/* ---- Another context ----------------------------------------------------- */

static void test_other_context(void) {
  cl_int err;
  cl_context other = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
  REQUIRE_OK(err);
  int *theirs = clSVMAlloc(other, CL_MEM_READ_WRITE, 256, 0);
  int *ours = clSVMAlloc(env.context, CL_MEM_READ_WRITE, 256, 0);
  REQUIRE_OK(theirs && ours ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  /* The allocation keeps its context: released here, still usable. */
  clReleaseContext(other);
  CHECK_EQ(clEnqueueSVMMemcpy(env.queue, CL_TRUE, ours, theirs, 64, 0, NULL,
                              NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMemcpy(env.queue, CL_TRUE, theirs + 8, ours, 64, 0,
                              NULL, NULL),
           CL_INVALID_VALUE);
  int pat = 7;
  CHECK_EQ(clEnqueueSVMMemFill(env.queue, theirs, &pat, 4, 64, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, theirs, 4, 0,
                           NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueSVMUnmap(env.queue, theirs, 0, NULL, NULL),
           CL_INVALID_VALUE);
  const void *m[1] = {theirs};
  CHECK_EQ(clEnqueueSVMMigrateMem(env.queue, 1, m, NULL, 0, 0, NULL, NULL),
           CL_INVALID_VALUE);
  void *f[1] = {theirs};
  CHECK_EQ(clEnqueueSVMFree(env.queue, 1, f, NULL, NULL, 0, NULL, NULL),
           CL_INVALID_VALUE);
  cl_kernel k = kernel("scale");
  CHECK_EQ(clSetKernelArgSVMPointer(k, 0, theirs + 3), CL_INVALID_ARG_VALUE);
  clReleaseKernel(k);
  clSVMFree(env.context, theirs); /* not this context's: nothing */
  theirs[63] = 1;
  /* Its own context (kept alive by the allocation) frees it. */
  cl_context theirs_ctx = other;
  clSVMFree(theirs_ctx, theirs);
  clSVMFree(env.context, ours);
}

/* ---- Kernel arguments ---------------------------------------------------- */

static void test_kernel_args(void) {
  enum { N = 1024, OFF = 100, M = 256 };
  cl_int *a = clSVMAlloc(env.context, CL_MEM_SVM_FINE_GRAIN_BUFFER,
                         N * sizeof(cl_int), 0);
  REQUIRE_OK(a ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  for (int i = 0; i < N; i++)
    a[i] = i;
  cl_kernel k = kernel("scale");
  cl_int two = 2;
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof two, &two));
  /* A pointer into the middle of the allocation. */
  REQUIRE_OK(clSetKernelArgSVMPointer(k, 0, a + OFF));
  run(k, M, 0);
  int bad = 0;
  for (int i = 0; i < N; i++) {
    int want = i >= OFF && i < OFF + M ? i * 2 + (i - OFF) : i;
    bad += a[i] != want;
  }
  CHECK_EQ(bad, 0);

  /* A clone keeps the SVM argument; then a buffer replaces it, and an SVM
   * pointer the buffer again. */
  cl_int err;
  cl_kernel c = clCloneKernel(k, &err);
  REQUIRE_OK(err);
  for (int i = 0; i < N; i++)
    a[i] = i;
  run(c, M, 0);
  CHECK_EQ(a[OFF + 5], (OFF + 5) * 2 + 5);
  CHECK_EQ(a[OFF - 1], OFF - 1);
  cl_mem buf = test_buffer(&env, M * sizeof(cl_int), a);
  REQUIRE_OK(clSetKernelArg(c, 0, sizeof buf, &buf));
  run(c, M, 0);
  cl_int out[M];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, buf, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  CHECK_EQ(out[7], 7 * 2 + 7);
  CHECK_EQ(a[7], 7); /* the buffer had a copy */
  /* Plain malloc memory is fine-grain system SVM. */
  cl_int *sys = malloc(M * sizeof(cl_int));
  for (int i = 0; i < M; i++)
    sys[i] = -i;
  cl_bool yes = CL_TRUE;
  REQUIRE_OK(clSetKernelExecInfo(c, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
                                 sizeof yes, &yes));
  REQUIRE_OK(clSetKernelArgSVMPointer(c, 0, sys));
  run(c, M, 0);
  bad = 0;
  for (int i = 0; i < M; i++)
    bad += sys[i] != -i * 2 + i;
  CHECK_EQ(bad, 0);
  free(sys);
  clReleaseMemObject(buf);
  clReleaseKernel(c);

  /* A constant pointer argument. */
  cl_kernel s = kernel("sum_const");
  cl_int *res = clSVMAlloc(env.context, CL_MEM_READ_WRITE, sizeof(cl_int), 0);
  REQUIRE_OK(res ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  for (int i = 0; i < N; i++)
    a[i] = i % 17;
  int want = 0;
  for (int i = 10; i < 10 + 300; i++)
    want += i % 17;
  cl_int n = 300;
  REQUIRE_OK(clSetKernelArgSVMPointer(s, 0, a + 10));
  REQUIRE_OK(clSetKernelArgSVMPointer(s, 1, res));
  REQUIRE_OK(clSetKernelArg(s, 2, sizeof n, &n));
  run(s, 1, 0);
  REQUIRE_OK(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, res,
                             sizeof(cl_int), 0, NULL, NULL));
  CHECK_EQ(*res, want);
  REQUIRE_OK(clEnqueueSVMUnmap(env.queue, res, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  clSVMFree(env.context, res);

  /* Errors. */
  CHECK_EQ(clSetKernelArgSVMPointer(NULL, 0, a), CL_INVALID_KERNEL);
  CHECK_EQ(clSetKernelArgSVMPointer((cl_kernel)env.queue, 0, a),
           CL_INVALID_KERNEL);
  CHECK_EQ(clSetKernelArgSVMPointer(k, 2, a), CL_INVALID_ARG_INDEX);
  CHECK_EQ(clSetKernelArgSVMPointer(k, 1, a), CL_INVALID_ARG_VALUE);
  CHECK_EQ(clSetKernelArgSVMPointer(k, 0, NULL), CL_SUCCESS);
  void *list[2] = {a, a + 10};
  CHECK_EQ(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof list,
                               list),
           CL_SUCCESS);
  CHECK_EQ(clSetKernelExecInfo(NULL, CL_KERNEL_EXEC_INFO_SVM_PTRS,
                               sizeof list, list),
           CL_INVALID_KERNEL);
  /* Size 0 and NULL unset the list. */
  CHECK_EQ(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, NULL),
           CL_SUCCESS);
  CHECK_EQ(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 12, list),
           CL_INVALID_VALUE);
  CHECK_EQ(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof list,
                               NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
                               sizeof(cl_uint) * 2, &yes),
           CL_INVALID_VALUE);
  CHECK_EQ(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
                               sizeof yes, NULL),
           CL_INVALID_VALUE);
  cl_bool no = CL_FALSE;
  CHECK_EQ(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
                               sizeof no, &no),
           CL_SUCCESS);
  CHECK_EQ(clSetKernelExecInfo(k, 0x7777, sizeof yes, &yes),
           CL_INVALID_VALUE);
  clReleaseKernel(s);
  clReleaseKernel(k);
  clSVMFree(env.context, a);
}

/* ---- Buffers over SVM ---------------------------------------------------- */

static cl_bool uses_svm(cl_mem m) {
  cl_bool b = 7;
  size_t size = 0;
  REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_USES_SVM_POINTER, sizeof b, &b,
                                &size));
  CHECK_EQ(size, sizeof(cl_bool));
  return b;
}

static void test_buffers_over_svm(void) {
  enum { N = 1024 };
  cl_int *a = clSVMAlloc(env.context, CL_MEM_READ_WRITE, N * sizeof(cl_int),
                         0);
  REQUIRE_OK(a ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  for (int i = 0; i < N; i++)
    a[i] = i;
  cl_int err;
  cl_mem whole = clCreateBuffer(env.context, CL_MEM_USE_HOST_PTR,
                                N * sizeof(cl_int), a, &err);
  REQUIRE_OK(err);
  CHECK_EQ(uses_svm(whole), CL_TRUE);
  /* The second half, through a buffer over its middle. */
  cl_mem half = clCreateBuffer(env.context, CL_MEM_USE_HOST_PTR,
                               N / 2 * sizeof(cl_int), a + N / 2, &err);
  REQUIRE_OK(err);
  CHECK_EQ(uses_svm(half), CL_TRUE);
  cl_buffer_region r = {128 * sizeof(cl_int), 64 * sizeof(cl_int)};
  cl_mem sub = clCreateSubBuffer(whole, 0, CL_BUFFER_CREATE_TYPE_REGION, &r,
                                 &err);
  REQUIRE_OK(err);
  CHECK_EQ(uses_svm(sub), CL_TRUE);
  cl_kernel k = kernel("scale");
  cl_int three = 3;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof half, &half));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof three, &three));
  run(k, N / 2, 0);
  REQUIRE_OK(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, a,
                             N * sizeof(cl_int), 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += a[i] != (i < N / 2 ? i : i * 3 + (i - N / 2));
  CHECK_EQ(bad, 0);
  REQUIRE_OK(clEnqueueSVMUnmap(env.queue, a, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  /* Not over SVM: a plain buffer, one over malloc memory. */
  cl_mem plain = test_buffer(&env, 64, NULL);
  CHECK_EQ(uses_svm(plain), CL_FALSE);
  void *sys = malloc(64);
  cl_mem over_sys = clCreateBuffer(env.context, CL_MEM_USE_HOST_PTR, 64, sys,
                                   &err);
  REQUIRE_OK(err);
  CHECK_EQ(uses_svm(over_sys), CL_FALSE);
  /* Larger than the SVM allocation (from where host_ptr points). */
  CHECK(clCreateBuffer(env.context, CL_MEM_USE_HOST_PTR,
                       2 * N * sizeof(cl_int), a, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_BUFFER_SIZE);
  CHECK(clCreateBuffer(env.context, CL_MEM_USE_HOST_PTR,
                       N / 2 * sizeof(cl_int) + 1, a + N / 2, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_BUFFER_SIZE);
  clReleaseKernel(k);
  cl_mem all[] = {sub, whole, half, plain, over_sys};
  test_release_buffers(all, 5);
  free(sys);
  clSVMFree(env.context, a);
}

/* ---- Linked lists -------------------------------------------------------- */

static void test_lists(void) {
  enum { LISTS = 64, POOL = 4096, SYS = 512 };
  /* Nodes in a fine-grain allocation and in malloc memory, lists mixing
   * both; the heads array is the only argument, so the pools go to
   * clSetKernelExecInfo. */
  node *pool = clSVMAlloc(env.context, CL_MEM_SVM_FINE_GRAIN_BUFFER,
                          POOL * sizeof(node), 0);
  node *sys = malloc(SYS * sizeof(node));
  node **heads = clSVMAlloc(env.context, CL_MEM_SVM_FINE_GRAIN_BUFFER,
                            LISTS * sizeof(node *), 0);
  cl_int *out = clSVMAlloc(env.context, CL_MEM_SVM_FINE_GRAIN_BUFFER,
                           2 * LISTS * sizeof(cl_int), 0);
  REQUIRE_OK(pool && sys && heads && out ? CL_SUCCESS
                                         : CL_OUT_OF_HOST_MEMORY);
  test_seed(11);
  int want_sum[LISTS] = {0}, want_len[LISTS] = {0};
  size_t used = 0, used_sys = 0;
  for (int l = 0; l < LISTS; l++) {
    heads[l] = NULL;
    node **link = &heads[l];
    int len = l == 0 ? 0 : (int)(test_rand() % 60) + 1;
    for (int j = 0; j < len; j++) {
      node *nd = (test_rand() & 3) == 0 && used_sys < SYS ? &sys[used_sys++]
                                                          : &pool[used++];
      nd->value = (int)(test_rand() % 1000) - 500;
      nd->next = NULL;
      want_sum[l] += nd->value * (j + 1);
      *link = nd;
      link = &nd->next;
    }
    want_len[l] = len;
  }
  cl_kernel k = kernel("walk");
  void *pools[2] = {pool, sys};
  REQUIRE_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS,
                                 sizeof pools, pools));
  cl_bool yes = CL_TRUE;
  REQUIRE_OK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
                                 sizeof yes, &yes));
  REQUIRE_OK(clSetKernelArgSVMPointer(k, 0, heads));
  REQUIRE_OK(clSetKernelArgSVMPointer(k, 1, out));
  run(k, LISTS, 0);
  int bad = 0;
  for (int l = 0; l < LISTS; l++)
    bad += out[2 * l] != want_sum[l] || out[2 * l + 1] != want_len[l];
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);

  /* The reverse: a kernel links the nodes, the host walks them; in a
   * coarse-grain allocation (mapped to read) and in malloc memory. */
  enum { BUILT = 1000 }; /* prime to 37 */
  node *coarse = clSVMAlloc(env.context, CL_MEM_READ_WRITE,
                            BUILT * sizeof(node), 0);
  REQUIRE_OK(coarse ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  node *targets[2] = {coarse, malloc(BUILT * sizeof(node))};
  k = kernel("build");
  cl_int n = BUILT;
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof n, &n));
  for (int t = 0; t < 2; t++) {
    REQUIRE_OK(clSetKernelArgSVMPointer(k, 0, targets[t]));
    run(k, BUILT, 0);
    if (t == 0)
      REQUIRE_OK(clEnqueueSVMMap(env.queue, CL_TRUE, CL_MAP_READ, coarse,
                                 BUILT * sizeof(node), 0, NULL, NULL));
    int len = 0;
    bad = 0;
    for (node *p = &targets[t][0]; p && len <= BUILT; p = p->next) {
      bad += p->value != len * 5 + 1;
      bad += p != &targets[t][(len * 37) % BUILT];
      len++;
    }
    CHECK_EQ(len, BUILT);
    CHECK_EQ(bad, 0);
    if (t == 0)
      REQUIRE_OK(clEnqueueSVMUnmap(env.queue, coarse, 0, NULL, NULL));
  }
  REQUIRE_OK(clFinish(env.queue));
  clReleaseKernel(k);
  free(targets[1]);
  clSVMFree(env.context, coarse);
  clSVMFree(env.context, pool);
  clSVMFree(env.context, heads);
  clSVMFree(env.context, out);
  free(sys);
}

/* ---- Atomics while the kernel runs --------------------------------------- */

/* Fails the test and tells the kernel to stop if the deadline passed. */
static bool timed_out(double deadline, atomic_int *abort_flag,
                      const char *what) {
  if (now_s() < deadline)
    return false;
  fprintf(stderr, "%s: timed out\n", what);
  test_failures++;
  atomic_store(abort_flag, 1);
  return true;
}

static void test_pingpong(void) {
  enum { ROUNDS = 200 };
  /* flag, abort flag and status in one fine-grain allocation with
   * atomics, data in another. */
  atomic_int *sync = clSVMAlloc(
      env.context, CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
      4 * sizeof(atomic_int), 0);
  cl_int *data = clSVMAlloc(env.context, CL_MEM_SVM_FINE_GRAIN_BUFFER,
                            ROUNDS * sizeof(cl_int), 0);
  REQUIRE_OK(sync && data ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  atomic_int *flag = &sync[0], *abort_flag = &sync[1];
  cl_int *status = (cl_int *)&sync[2];
  atomic_init(flag, 0);
  atomic_init(abort_flag, 0);
  *status = 12345;
  cl_kernel k = kernel("pingpong");
  cl_int rounds = ROUNDS;
  REQUIRE_OK(clSetKernelArgSVMPointer(k, 0, flag));
  REQUIRE_OK(clSetKernelArgSVMPointer(k, 1, data));
  REQUIRE_OK(clSetKernelArgSVMPointer(k, 2, abort_flag));
  REQUIRE_OK(clSetKernelArg(k, 3, sizeof rounds, &rounds));
  REQUIRE_OK(clSetKernelArgSVMPointer(k, 4, status));
  size_t one = 1;
  cl_event ev;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &one, NULL, 0,
                                    NULL, &ev));
  REQUIRE_OK(clFlush(env.queue));
  double deadline = now_s() + 30;
  int done = 0;
  for (int r = 0; r < ROUNDS; r++) {
    data[r] = r * 3;
    atomic_store_explicit(flag, 2 * r + 1, memory_order_release);
    bool late = false;
    while (atomic_load_explicit(flag, memory_order_acquire) != 2 * r + 2)
      if ((late = timed_out(deadline, abort_flag, "ping-pong")))
        break;
    if (late)
      break;
    CHECK_EQ(data[r], r * 6 + 1);
    done++;
  }
  CHECK_EQ(done, ROUNDS);
  REQUIRE_OK(clWaitForEvents(1, &ev));
  clReleaseEvent(ev);
  CHECK_EQ(*status, ROUNDS);

  /* A shared counter: every work-item adds 1 while the host adds too. */
  enum { ITEMS = 1 << 16, HOST_ADDS = 100000 };
  atomic_int *counter = &sync[3];
  atomic_init(counter, 0);
  cl_kernel c = kernel("count");
  REQUIRE_OK(clSetKernelArgSVMPointer(c, 0, counter));
  size_t items = ITEMS;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, c, 1, NULL, &items, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clFlush(env.queue));
  for (int i = 0; i < HOST_ADDS; i++)
    atomic_fetch_add_explicit(counter, 1, memory_order_relaxed);
  REQUIRE_OK(clFinish(env.queue));
  CHECK_EQ(atomic_load(counter), ITEMS + HOST_ADDS);
  clReleaseKernel(c);
  clReleaseKernel(k);
  clSVMFree(env.context, sync);
  clSVMFree(env.context, data);
}

/* ---- Threads ----------------------------------------------------------- */

/* Threads allocate and free at once; each checks through the registry
 * (a buffer over its allocation's middle, and a copy past its end) that
 * its own allocations are found, and only they. */
static void *alloc_thread(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  int *bad = calloc(1, sizeof *bad);
  for (int i = 0; i < 300 && bad; i++) {
    seed = seed * 1103515245u + 12345u;
    size_t size = 64 + (seed >> 8) % 4096;
    char *p = clSVMAlloc(env.context, CL_MEM_SVM_FINE_GRAIN_BUFFER, size, 0);
    if (!p) {
      (*bad)++;
      continue;
    }
    memset(p, i, size);
    cl_int err;
    cl_mem m = clCreateBuffer(env.context, CL_MEM_USE_HOST_PTR, size - 32,
                              p + 32, &err);
    cl_bool uses = CL_FALSE;
    if (err != CL_SUCCESS ||
        clGetMemObjectInfo(m, CL_MEM_USES_SVM_POINTER, sizeof uses, &uses,
                           NULL) != CL_SUCCESS ||
        !uses)
      (*bad)++;
    if (m)
      clReleaseMemObject(m);
    if (clCreateBuffer(env.context, CL_MEM_USE_HOST_PTR, size, p + 1,
                       &err) != NULL ||
        err != CL_INVALID_BUFFER_SIZE)
      (*bad)++;
    clSVMFree(env.context, p);
  }
  return bad;
}

static void test_threads(void) {
  enum { THREADS = 4 };
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++)
    REQUIRE_OK(pthread_create(&t[i], NULL, alloc_thread,
                              (void *)(uintptr_t)(i + 1)) ? CL_OUT_OF_RESOURCES
                                                          : CL_SUCCESS);
  for (int i = 0; i < THREADS; i++) {
    void *bad = NULL;
    pthread_join(t[i], &bad);
    CHECK(bad != NULL);
    if (bad)
      CHECK_EQ(*(int *)bad, 0);
    free(bad);
  }
}

/* ---- A barrier kernel on SVM --------------------------------------------- */

static void test_barrier_kernel(void) {
  enum { N = 64 * 32 };
  cl_int *a = clSVMAlloc(env.context, CL_MEM_SVM_FINE_GRAIN_BUFFER,
                         (N + 64) * sizeof(cl_int), 0);
  REQUIRE_OK(a ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  for (int i = 0; i < N + 64; i++)
    a[i] = i * 5;
  cl_kernel k = kernel("reverse_groups");
  REQUIRE_OK(clSetKernelArgSVMPointer(k, 0, a + 64));
  run(k, N, 64);
  int bad = 0;
  for (int i = 0; i < N + 64; i++) {
    int want = i * 5;
    if (i >= 64) {
      int j = i - 64, g = j / 64, l = j % 64;
      want = (64 + g * 64 + 63 - l) * 5 + 1;
    }
    bad += a[i] != want;
  }
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);
  clSVMFree(env.context, a);
}

/* In the default mode the barrier kernel takes region mode, the list
 * walk loop mode, and the ping-pong, whose spin loop yields, fiber mode
 * (SKEIN_DUMP=modes); ctest's fiber and loop runs cover the others. */
static void test_modes(void) {
  if (getenv("SKEIN_MODE") || getenv("SKEIN_VECTORIZE"))
    return;
  setenv("SKEIN_DUMP", "modes", 1);
  test_capture capture;
  test_capture_begin(&capture);
  cl_program p = test_build(&env, source, "-cl-std=CL3.0");
  char *modes = test_capture_end(&capture);
  unsetenv("SKEIN_DUMP");
  if (!strstr(modes, "kernel reverse_groups: region mode") ||
      !strstr(modes, "kernel walk: loop mode") ||
      !strstr(modes, "kernel pingpong: fiber mode")) {
    fprintf(stderr, "unexpected modes:\n%s", modes);
    test_failures++;
  }
  free(modes);
  clReleaseProgram(p);
}

int main(void) {
  test_setup(&env);
  test_queries();
  test_alloc();
  test_threads();
  for (int std = 0; std < 2; std++) {
    /* OpenCL C 3.0 and 2.0 (memory_scope_all_svm_devices in both). */
    prog = test_build(&env, source, std ? "-cl-std=CL2.0" : "-cl-std=CL3.0");
    if (std == 0) {
      test_memcpy_fill();
      test_map_migrate();
      test_enqueue_free();
      test_other_context();
      test_kernel_args();
      test_buffers_over_svm();
    }
    test_lists();
    test_pingpong();
    test_barrier_kernel();
    clReleaseProgram(prog);
  }
  test_modes();
  test_teardown(&env);
  return test_finish("svm");
}
