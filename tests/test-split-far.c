/* This file tests that the pieces of one program's machine code link
 * wherever the system maps them. A split build (compiler/build.c,
 * split_module.cpp) compiles each kernel into an object of its own, and
 * the JIT maps each object where mmap puts it; a long-running process
 * (the Khronos CTS after 80 tests) has its address space fragmented, so
 * two objects of one program can land more than 2 GiB apart, out of
 * reach of a 32-bit PC-relative reference from one kernel's code to a
 * program-scope variable another kernel's object holds. The test forces
 * that layout: it interposes mmap so that every anonymous mapping made
 * without an address while a program is built lands 8 GiB below the
 * previous one, and builds programs whose kernels share writable and
 * large program-scope variables, constant tables and helper functions,
 * lazily, eagerly and from the disk cache, and as one module; every
 * kernel's result is checked against the host.
 *
 * Not under AddressSanitizer or ThreadSanitizer: their runtimes own
 * mmap (and their shadow memory owns much of the address space). */
#define _GNU_SOURCE
#include "test_util.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static test_env env;

#if !TEST_UNDER_ASAN && !TEST_UNDER_TSAN
/* While scatter is set, each anonymous mapping asked for without an
 * address is offered the next hint down from 80 TiB, 8 GiB apart (the
 * kernel takes a free hint as it is). glibc's own mappings (malloc,
 * thread stacks) call its internal mmap and are not affected; LLVM's
 * JIT memory, which comes through the PLT, is. */
static atomic_bool scatter;
static atomic_uintptr_t next_hint = (uintptr_t)80 << 40;
enum { SCATTER_STEP_SHIFT = 33 };   /* 8 GiB */

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  if (!addr && (flags & MAP_ANONYMOUS) && !(flags & MAP_FIXED) &&
      atomic_load(&scatter))
    addr = (void *)atomic_fetch_sub(&next_hint,
                                    (uintptr_t)1 << SCATTER_STEP_SHIFT);
  return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
             off_t off) {
  return mmap(addr, len, prot, flags, fd, off);
}
#endif

enum { N = 4096, BIG = 1 << 22 };

/* Every kernel reaches state another kernel's part holds: total and big
 * (4M ints, 16 MiB: large enough that it is never near the code) are
 * written by one kernel and read by another; the table and helper are
 * copied or linked. */
static const char source[] =
    "global int total;\n"
    "global int big[4194304];\n"
    "constant int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};\n"
    "__attribute__((noinline)) int mix(int x) {\n"
    "  return table[x & 7] * x + big[x & 4095];\n"
    "}\n"
    "kernel void fill(global const int *in) {\n"
    "  size_t i = get_global_id(0);\n"
    "  big[i] = in[i];\n"
    "  big[4194303 - i] = 2 * in[i];\n"
    "  if (i == 0) total = in[0] + in[1];\n"
    "}\n"
    "kernel void gather(global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = total + mix((int)i) + big[4194303 - i];\n"
    "}\n"
    "kernel void tail(global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = big[i] - mix((int)i + 1);\n"
    "}\n";

static const int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};

static void run(cl_program p, const char *name, cl_mem arg) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  CHECK_EQ(err, CL_SUCCESS);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "clCreateKernel(%s): %d\n", name, err);
    return;
  }
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof arg, &arg));
  size_t global = N;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  clReleaseKernel(k);
}

/* Builds the program with the mappings scattered and checks its
 * kernels; what: the mode, for messages. */
static void check_build(const char *what) {
  cl_int err;
  const char *src = source;
  cl_program p = clCreateProgramWithSource(env.context, 1, &src, NULL, &err);
  REQUIRE_OK(err);
#if !TEST_UNDER_ASAN && !TEST_UNDER_TSAN
  atomic_store(&scatter, true);
#endif
  err = clBuildProgram(p, 1, &env.device, "-cl-std=CL2.0", NULL, NULL);
  CHECK_EQ(err, CL_SUCCESS);
  if (err != CL_SUCCESS) {
    char log[4096] = "";
    clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, sizeof log,
                          log, NULL);
    fprintf(stderr, "%s: build failed: %s\n", what, log);
  }
  int in[N], out[N], want[N];
  for (int i = 0; i < N; i++)
    in[i] = (int)(test_rand() % 1000);
  cl_mem bin = test_buffer(&env, sizeof in, in);
  cl_mem bout = test_buffer(&env, sizeof out, NULL);
  /* A lazy build compiles each kernel at its clCreateKernel: with the
   * scatter still on, fill's and gather's objects are far apart. */
  run(p, "fill", bin);
  run(p, "gather", bout);
#if !TEST_UNDER_ASAN && !TEST_UNDER_TSAN
  atomic_store(&scatter, false);
#endif
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bout, CL_TRUE, 0, sizeof out,
                                 out, 0, NULL, NULL));
  /* the host's picture of big after fill: in at the front, 2 x in at the
   * back (N is far less than half of big) */
  int total = in[0] + in[1];
  for (int i = 0; i < N; i++)
    want[i] = total + table[i & 7] * i + in[i & 4095] + 2 * in[i];
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != want[i];
  CHECK_EQ(bad, 0);
  if (bad)
    fprintf(stderr, "%s: gather: %d wrong, out[1] %d want %d\n", what, bad,
            out[1], want[1]);
  run(p, "tail", bout);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bout, CL_TRUE, 0, sizeof out,
                                 out, 0, NULL, NULL));
  bad = 0;
  for (int i = 0; i < N; i++) {
    int j = i + 1;
    bad += out[i] != in[i] - (table[j & 7] * j + in[j & 4095]);
  }
  CHECK_EQ(bad, 0);
  if (bad)
    fprintf(stderr, "%s: tail: %d wrong\n", what, bad);
  cl_mem ms[] = {bin, bout};
  test_release_buffers(ms, 2);
  clReleaseProgram(p);
}

int main(void) {
  if (TEST_UNDER_ASAN || TEST_UNDER_TSAN) {
    printf("split-far: skipped under a sanitizer (it interposes mmap)\n");
    return 77;
  }
  /* Two compile threads whatever the machine (the split needs two), and
   * a disk cache of the test's own, empty at the start. */
  char dir[] = "/tmp/skein-test-split-far-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  setenv("SKEIN_CACHE_DIR", dir, 1);
  unsetenv("SKEIN_CACHE");
  setenv("SKEIN_BUILD_THREADS", "2", 1);
  test_setup(&env);
  test_seed(11);
  setenv("SKEIN_LAZY", "1", 1);
  check_build("lazy split build");
  /* The same program again: served from the disk cache (the entry the
   * lazy build's background thread stored, or the next build's), its
   * objects loaded into a new JIT. */
  setenv("SKEIN_LAZY", "0", 1);
  check_build("eager split build or cache hit");
  setenv("SKEIN_CACHE", "0", 1);
  check_build("eager split build");
  setenv("SKEIN_BUILD_THREADS", "1", 1);
  check_build("one module");
  test_teardown(&env);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", dir);
  return test_finish("split-far");
}
