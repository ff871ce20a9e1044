/* This file drives Skein from several host threads at once: two threads
 * with their own queues enqueue many kernels and reads (results checked),
 * and programs are built while other threads query or build them. */
#include "test_util.h"
#include <pthread.h>
#include <stdatomic.h>

static test_env env;
static cl_program shared_program;

enum { ITERS = 300, N = 1024 };

static const char *src =
    "kernel void affine(global const int *in, global int *out, int m,\n"
    "                   int c) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * m + c;\n"
    "}\n";

typedef struct worker {
  int id;
  int bad;
  cl_int err;
} worker;

/* One thread: its own queue and kernel; every iteration runs the kernel
 * with new arguments into a ring of output buffers and reads one back
 * without blocking; all reads are checked at the end. */
static void *work(void *arg) {
  worker *w = arg;
  cl_int err;
  cl_command_queue q = clCreateCommandQueueWithProperties(
      env.context, env.device, NULL, &err);
  REQUIRE_OK(err);
  cl_kernel k = clCreateKernel(shared_program, "affine", &err);
  REQUIRE_OK(err);
  int *in = malloc(N * sizeof *in);
  for (int i = 0; i < N; i++)
    in[i] = i * (w->id + 1);
  cl_mem min = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR,
                              N * sizeof *in, in, &err);
  REQUIRE_OK(err);
  enum { RING = 8 };
  cl_mem mout[RING];
  for (int r = 0; r < RING; r++) {
    mout[r] = clCreateBuffer(env.context, CL_MEM_READ_WRITE, N * sizeof(int),
                             NULL, &err);
    REQUIRE_OK(err);
  }
  int *results = malloc((size_t)ITERS * N * sizeof *results);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof min, &min));
  for (int it = 0; it < ITERS; it++) {
    int m = it % 7 - 3, c = it * 11 + w->id;
    cl_mem out = mout[it % RING];
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof out, &out));
    REQUIRE_OK(clSetKernelArg(k, 2, sizeof m, &m));
    REQUIRE_OK(clSetKernelArg(k, 3, sizeof c, &c));
    size_t global = N, local = 64;
    REQUIRE_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global,
                                      it % 2 ? &local : NULL, 0, NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(q, out, CL_FALSE, 0, N * sizeof(int),
                                   results + (size_t)it * N, 0, NULL, NULL));
    if (it % 50 == 49)
      REQUIRE_OK(clFlush(q));
  }
  REQUIRE_OK(clFinish(q));
  for (int it = 0; it < ITERS; it++) {
    int m = it % 7 - 3, c = it * 11 + w->id;
    for (int i = 0; i < N; i++)
      w->bad += results[(size_t)it * N + i] != in[i] * m + c;
  }
  for (int r = 0; r < RING; r++)
    clReleaseMemObject(mout[r]);
  clReleaseMemObject(min);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  free(results);
  free(in);
  return NULL;
}

static void test_two_queues(void) {
  shared_program = test_build(&env, src, NULL);
  pthread_t t[2];
  worker w[2] = {{.id = 0}, {.id = 1}};
  for (int i = 0; i < 2; i++)
    CHECK_EQ(pthread_create(&t[i], NULL, work, &w[i]), 0);
  for (int i = 0; i < 2; i++) {
    pthread_join(t[i], NULL);
    CHECK_EQ(w[i].bad, 0);
  }
  clReleaseProgram(shared_program);
}

/* A program big enough that building it takes a while. */
static char *big_source(void) {
  size_t cap = 1 << 20;
  char *s = malloc(cap);
  s[0] = '\0';
  size_t len = 0;
  for (int i = 0; i < 60; i++)
    len += snprintf(s + len, cap - len,
                    "kernel void k%d(global float *o, float a) {\n"
                    "  size_t i = get_global_id(0);\n"
                    "  float x = o[i];\n"
                    "  for (int j = 0; j < %d; j++) x = x * a + x / (1.0f + x * x);\n"
                    "  o[i] = x;\n"
                    "}\n",
                    i, i + 1);
  return s;
}

typedef struct builder {
  cl_program p;
  cl_int err;
  atomic_int *done;
} builder;

static void *build(void *arg) {
  builder *b = arg;
  b->err = clBuildProgram(b->p, 0, NULL, NULL, NULL, NULL);
  atomic_fetch_add(b->done, 1);
  return NULL;
}

/* Queries during a build see a consistent state; two builds at once give
 * one success and at most one CL_INVALID_OPERATION. */
static void test_build_while_querying(void) {
  char *s = big_source();
  cl_int err;
  const char *cs = s;
  cl_program p = clCreateProgramWithSource(env.context, 1, &cs, NULL, &err);
  REQUIRE_OK(err);
  atomic_int done = 0;
  builder b[2] = {{p, 1, &done}, {p, 1, &done}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    CHECK_EQ(pthread_create(&t[i], NULL, build, &b[i]), 0);
  int odd = 0, polls = 0;
  for (;;) {
    cl_build_status st;
    REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_STATUS,
                                     sizeof st, &st, NULL));
    size_t log_size;
    REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, 0,
                                     NULL, &log_size));
    char opts[64];
    REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_OPTIONS,
                                     sizeof opts, opts, NULL));
    odd += st != CL_BUILD_NONE && st != CL_BUILD_IN_PROGRESS &&
           st != CL_BUILD_SUCCESS;
    polls++;
    if (atomic_load(&done) == 2)
      break;
  }
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  CHECK_EQ(odd, 0);
  CHECK(polls >= 1);
  CHECK(b[0].err == CL_SUCCESS || b[1].err == CL_SUCCESS);
  if (b[0].err != CL_SUCCESS && b[1].err != CL_SUCCESS) {
    static char log[1 << 16];
    clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                          NULL);
    fprintf(stderr, "build: %d %d\n%s\n", b[0].err, b[1].err, log);
    exit(1);
  }
  for (int i = 0; i < 2; i++)
    CHECK(b[i].err == CL_SUCCESS || b[i].err == CL_INVALID_OPERATION);
  size_t nk = 0;
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk,
                              NULL));
  CHECK_EQ(nk, 60);
  clReleaseProgram(p);
  free(s);
}

int main(void) {
  test_setup(&env);
  test_two_queues();
  test_build_while_querying();
  test_teardown(&env);
  return test_finish("threads");
}
