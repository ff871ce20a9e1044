/* This file tests split builds (compiler/build.c, split_module.cpp)
 * through the ICD loader: a program of several kernels is compiled per
 * kernel, lazily (each kernel at its first clCreateKernel, a background
 * thread the rest), eagerly in parallel (SKEIN_LAZY=0), or as one module
 * (SKEIN_BUILD_THREADS=1). In every mode: the kernels' results against
 * the host (a program-scope variable one kernel writes and another reads,
 * a constant table and a helper two kernels share, a barrier kernel, a
 * math call); the same CL_KERNEL_PRIVATE_MEM_SIZE; clCreateKernelsInProgram;
 * kernels created from two host threads at once; a program released while
 * its background thread compiles. An LLVM crash in a lazily compiled
 * kernel fails that kernel's clCreateKernel with CL_OUT_OF_RESOURCES and
 * leaves the process working. A lazy build's disk cache entry is
 * complete, and SKEIN_BUILD_THREADS is not in its key. */
#define _GNU_SOURCE
#include "test_util.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

static test_env env;

/* Under ThreadSanitizer: no injected crash (a crash guard's jump out of
 * the signal handler leaves TSan believing every later call runs inside
 * it), and the cache child releases its program (a background thread
 * left to the exit handler is joined by no one: a "thread leak"). */
/* Under AddressSanitizer no injected crash either: a program whose
 * compile crashed leaks its JIT on purpose (LeakSanitizer would report
 * it, from whichever thread crashed). */

enum { N = 1024, GROUP = 64 };

static const char source[] =
    "global int total;\n"
    "constant int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};\n"
    "int mix(int x) { return table[x & 7] * x + 1; }\n"
    "kernel void add_total(global const int *in) {\n"
    "  if (get_global_id(0) == 0) {\n"
    "    int s = 0;\n"
    "    for (int i = 0; i < 16; i++) s += in[i];\n"
    "    total += s;\n"
    "  }\n"
    "}\n"
    "kernel void read_total(global int *out) {\n"
    "  out[get_global_id(0)] = total + mix((int)get_global_id(0));\n"
    "}\n"
    "kernel void mixer(global const int *in, global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int priv[16];\n"
    "  for (int j = 0; j < 16; j++) priv[j] = mix(in[i] + j);\n"
    "  int acc = 0;\n"
    "  for (int j = 0; j < 16; j++) acc += priv[(j * 7 + in[i]) & 15];\n"
    "  out[i] = acc;\n"
    "}\n"
    "kernel void reverse(global const int *in, global int *out) {\n"
    "  local int tile[64];\n"
    "  size_t l = get_local_id(0), g = get_group_id(0);\n"
    "  tile[l] = in[g * 64 + l];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[g * 64 + l] = tile[63 - l];\n"
    "}\n"
    "kernel void waves(global const float *in, global float *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = sin(in[i]) + 1.0f;\n"
    "}\n";

static int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
static int mix(int x) { return table[x & 7] * x + 1; }

static void run(cl_kernel k, size_t global, size_t local) {
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global,
                                    local ? &local : NULL, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
}

static cl_kernel kernel(cl_program p, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clCreateKernel(%s): %d\n", name, err);
    exit(1);
  }
  return k;
}

/* Runs every kernel of p and checks it; *priv: mixer's private memory
 * size. The first kernel created is read_total: its part links to
 * add_total's variable before add_total's part is compiled. */
static void check_program(cl_program p, cl_ulong *priv) {
  int in[N], out[N];
  float fin[N], fout[N];
  for (int i = 0; i < N; i++) {
    in[i] = (int)(test_rand() % 1000);
    fin[i] = (float)i * 0.01f;
  }
  cl_mem bin = test_buffer(&env, sizeof in, in);
  cl_mem bout = test_buffer(&env, sizeof out, NULL);
  cl_mem fbin = test_buffer(&env, sizeof fin, fin);
  cl_mem fbout = test_buffer(&env, sizeof fout, NULL);

  cl_kernel rd = kernel(p, "read_total");
  cl_kernel add = kernel(p, "add_total");
  REQUIRE_OK(clSetKernelArg(add, 0, sizeof bin, &bin));
  REQUIRE_OK(clSetKernelArg(rd, 0, sizeof bout, &bout));
  run(add, 64, 0);
  run(add, 64, 0);
  run(rd, N, 0);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bout, CL_TRUE, 0, sizeof out,
                                 out, 0, NULL, NULL));
  int sum = 0;
  for (int i = 0; i < 16; i++)
    sum += in[i];
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != 2 * sum + mix(i);
  CHECK_EQ(bad, 0);
  if (bad)
    fprintf(stderr, "read_total: out[0] %d, want %d\n", out[0],
            2 * sum + mix(0));

  cl_kernel mx = kernel(p, "mixer");
  REQUIRE_OK(clSetKernelArg(mx, 0, sizeof bin, &bin));
  REQUIRE_OK(clSetKernelArg(mx, 1, sizeof bout, &bout));
  run(mx, N, 0);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bout, CL_TRUE, 0, sizeof out,
                                 out, 0, NULL, NULL));
  bad = 0;
  for (int i = 0; i < N; i++) {
    int priv_ref[16], acc = 0;
    for (int j = 0; j < 16; j++)
      priv_ref[j] = mix(in[i] + j);
    for (int j = 0; j < 16; j++)
      acc += priv_ref[(j * 7 + in[i]) & 15];
    bad += out[i] != acc;
  }
  CHECK_EQ(bad, 0);
  REQUIRE_OK(clGetKernelWorkGroupInfo(mx, env.device,
                                      CL_KERNEL_PRIVATE_MEM_SIZE,
                                      sizeof *priv, priv, NULL));

  cl_kernel rv = kernel(p, "reverse");
  REQUIRE_OK(clSetKernelArg(rv, 0, sizeof bin, &bin));
  REQUIRE_OK(clSetKernelArg(rv, 1, sizeof bout, &bout));
  run(rv, N, GROUP);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bout, CL_TRUE, 0, sizeof out,
                                 out, 0, NULL, NULL));
  bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != in[i / GROUP * GROUP + GROUP - 1 - i % GROUP];
  CHECK_EQ(bad, 0);

  cl_kernel wv = kernel(p, "waves");
  REQUIRE_OK(clSetKernelArg(wv, 0, sizeof fbin, &fbin));
  REQUIRE_OK(clSetKernelArg(wv, 1, sizeof fbout, &fbout));
  run(wv, N, 0);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, fbout, CL_TRUE, 0, sizeof fout,
                                 fout, 0, NULL, NULL));
  bad = 0;
  for (int i = 0; i < N; i++)
    bad += fabsf(fout[i] - (sinf(fin[i]) + 1.0f)) > 1e-5f;
  CHECK_EQ(bad, 0);

  cl_kernel ks[] = {rd, add, mx, rv, wv};
  for (unsigned i = 0; i < sizeof ks / sizeof ks[0]; i++)
    clReleaseKernel(ks[i]);
  cl_mem ms[] = {bin, bout, fbin, fbout};
  test_release_buffers(ms, 4);
}

/* clCreateKernelsInProgram makes all five, each ready to launch. */
static void check_all_kernels(cl_program p) {
  cl_kernel ks[8];
  cl_uint n = 0;
  REQUIRE_OK(clCreateKernelsInProgram(p, 8, ks, &n));
  CHECK_EQ(n, 5);
  int out[64];
  cl_mem bout = test_buffer(&env, sizeof out, NULL);
  for (cl_uint i = 0; i < n; i++) {
    char name[64];
    REQUIRE_OK(clGetKernelInfo(ks[i], CL_KERNEL_FUNCTION_NAME, sizeof name,
                               name, NULL));
    if (strcmp(name, "read_total") == 0) {
      REQUIRE_OK(clSetKernelArg(ks[i], 0, sizeof bout, &bout));
      run(ks[i], 64, 0);
      REQUIRE_OK(clEnqueueReadBuffer(env.queue, bout, CL_TRUE, 0,
                                     sizeof out, out, 0, NULL, NULL));
      CHECK_EQ(out[5] - out[4], mix(5) - mix(4));
    }
    clReleaseKernel(ks[i]);
  }
  clReleaseMemObject(bout);
}

typedef struct creator {
  cl_program p;
  const char *name;
  cl_int err;
} creator;

static void *create_one(void *arg) {
  creator *c = arg;
  cl_kernel k = clCreateKernel(c->p, c->name, &c->err);
  if (k)
    clReleaseKernel(k);
  return NULL;
}

/* Two host threads create two different kernels at once; then a third
 * program is released while its background thread is compiling. */
static void check_threads(void) {
  cl_program p = test_build(&env, source, "-cl-std=CL2.0");
  creator c[2] = {{p, "mixer", -1}, {p, "waves", -1}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    CHECK_EQ(pthread_create(&t[i], NULL, create_one, &c[i]), 0);
  for (int i = 0; i < 2; i++) {
    pthread_join(t[i], NULL);
    CHECK_EQ(c[i].err, CL_SUCCESS);
  }
  clReleaseProgram(p);
  p = test_build(&env, source, "-cl-std=CL2.0");
  clReleaseProgram(p);
}

/* An LLVM crash while a lazy kernel is compiled: clCreateKernel fails
 * with CL_OUT_OF_RESOURCES, the process lives on (the program's JIT is
 * given up: kernels not compiled yet fail too) and builds again. */
static void check_crash(void) {
  setenv("SKEIN_INJECT_COMPILER_CRASH", "part:mixer", 1);
  setenv("SKEIN_LAZY", "1", 1);
  cl_program p = test_build(&env, source, "-cl-std=CL2.0");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "mixer", &err);
  CHECK_EQ(err, CL_OUT_OF_RESOURCES);
  CHECK(k == NULL);
  k = clCreateKernel(p, "mixer", &err);   /* it stays failed */
  CHECK_EQ(err, CL_OUT_OF_RESOURCES);
  cl_kernel ks[8];
  cl_uint n = 0;
  CHECK_EQ(clCreateKernelsInProgram(p, 8, ks, &n), CL_OUT_OF_RESOURCES);
  clReleaseProgram(p);
  /* Eager split builds report it as a failed build. */
  setenv("SKEIN_LAZY", "0", 1);
  const char *src = source;
  p = clCreateProgramWithSource(env.context, 1, &src, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clBuildProgram(p, 1, &env.device, "-cl-std=CL2.0", NULL, NULL),
           CL_BUILD_PROGRAM_FAILURE);
  char log[4096] = "";
  clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, sizeof log,
                        log, NULL);
  CHECK(strstr(log, "internal compiler error") != NULL);
  clReleaseProgram(p);
  unsetenv("SKEIN_INJECT_COMPILER_CRASH");
  unsetenv("SKEIN_LAZY");
  p = test_build(&env, source, "-cl-std=CL2.0");
  cl_ulong priv;
  check_program(p, &priv);
  clReleaseProgram(p);
}

/* The disk cache: a lazy build in a new process (which uses two of the
 * kernels, then exits while the background thread compiles the rest)
 * leaves a complete entry (one object file per kernel), which a process
 * with another SKEIN_BUILD_THREADS is served from: the thread count is
 * not in the key. */
static void check_cache(const char *self) {
  char dir[] = "/tmp/skein-test-split-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    test_failures++;
    return;
  }
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "env -u SKEIN_CACHE -u SKEIN_LAZY SKEIN_CACHE_DIR=%s "
           "SKEIN_BUILD_THREADS=2 %s --child 2>&1", dir, self);
  CHECK_EQ(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "ls %s/*.skc 2>/dev/null | wc -l", dir);
  FILE *f = popen(cmd, "r");
  int entries = -1;
  if (f) {
    if (fscanf(f, "%d", &entries) != 1)
      entries = -1;
    pclose(f);
  }
  CHECK_EQ(entries, 1);
  snprintf(cmd, sizeof cmd,
           "env -u SKEIN_CACHE -u SKEIN_LAZY SKEIN_CACHE_DIR=%s "
           "SKEIN_BUILD_THREADS=1 SKEIN_DUMP=cache %s --child 2>&1",
           dir, self);
  f = popen(cmd, "r");
  char line[1024];
  bool hit = false;
  while (f && fgets(line, sizeof line, f))
    hit |= strstr(line, "skein: cache hit") != NULL;
  CHECK(f && pclose(f) == 0);
  CHECK(hit);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK_EQ(system(cmd), 0);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--child") == 0) {
    test_setup(&env);
    test_seed(7);
    cl_program p = test_build(&env, source, "-cl-std=CL2.0");
    int in[N];
    for (int i = 0; i < N; i++)
      in[i] = i;
    cl_mem bin = test_buffer(&env, sizeof in, in);
    cl_kernel add = kernel(p, "add_total");
    REQUIRE_OK(clSetKernelArg(add, 0, sizeof bin, &bin));
    run(add, 64, 0);
    clReleaseKernel(add);
    clReleaseMemObject(bin);
    /* the program and the process end with kernels not yet compiled */
    if (TEST_UNDER_TSAN || TEST_UNDER_ASAN) {
      clReleaseProgram(p);
      test_teardown(&env);
    }
    return test_failures != 0;
  }
  check_cache(argv[0]);
  /* Two compile threads whatever the machine (the split needs two), and
   * no disk cache: every build compiles. */
  setenv("SKEIN_BUILD_THREADS", "2", 1);
  setenv("SKEIN_CACHE", "0", 1);
  test_setup(&env);
  test_seed(18);
  static const struct {
    const char *what, *lazy, *threads;
  } modes[] = {{"lazy", NULL, "2"},
               {"eager", "0", "2"},
               {"whole module", NULL, "1"}};
  cl_ulong priv[3];
  for (int m = 0; m < 3; m++) {
    if (modes[m].lazy)
      setenv("SKEIN_LAZY", modes[m].lazy, 1);
    else
      unsetenv("SKEIN_LAZY");
    setenv("SKEIN_BUILD_THREADS", modes[m].threads, 1);
    cl_program p = test_build(&env, source, "-cl-std=CL2.0");
    check_program(p, &priv[m]);
    check_all_kernels(p);
    clReleaseProgram(p);
    if (test_failures)
      fprintf(stderr, "(after the %s build)\n", modes[m].what);
  }
  unsetenv("SKEIN_LAZY");
  setenv("SKEIN_BUILD_THREADS", "2", 1);
  /* A private array: the same frame however the kernel was compiled. */
  CHECK(priv[0] > 0);
  CHECK_EQ(priv[0], priv[1]);
  CHECK_EQ(priv[0], priv[2]);
  check_threads();
  if (!TEST_UNDER_TSAN && !TEST_UNDER_ASAN)
    check_crash();
  test_teardown(&env);
  if (test_failures) {
    fprintf(stderr, "%d failure(s)\n", test_failures);
    return 1;
  }
  printf("test-split-build: all passed\n");
  return 0;
}
