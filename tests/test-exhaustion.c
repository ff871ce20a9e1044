/* Tests Skein when resources run out (issue 14, item 3). Each part runs
 * in a forked child, so that a crash or a hang is reported rather than
 * suffered; the parent checks how every child ended.
 *  - memory: under an RLIMIT_AS a little above the child's usage, too
 *    large a buffer, buffers until memory is gone, a build, enqueues and
 *    a printf kernel fail with the spec's codes, and after each failure a
 *    small buffer + kernel + read still gives the right answer;
 *  - threads: with thread creation impossible at start-up (RLIMIT_NPROC 0
 *    as an unprivileged user) or the address space too small for worker
 *    stacks, Skein gives a working smaller device or a clean error;
 *  - cycles: create/release cycles of every object kind leave the
 *    resident set where it was after a warm-up.
 * `test-exhaustion --long` runs ten times the cycles, with a larger memory
 * limit and a longer chain (ctest exhaustion-long, labels stress and
 * exhaustive); `test-exhaustion PART` runs one part. */
#define _GNU_SOURCE
#include "test_util.h"
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Under AddressSanitizer the address space holds the shadow memory
 * (terabytes of reservations), so RLIMIT_AS cannot be used, and the
 * allocator's quarantine makes RSS no measure of leaks (LeakSanitizer is
 * the leak check there). */
#if TEST_UNDER_ASAN
#include <sanitizer/lsan_interface.h>
#endif

#define SKIPPED 77 /* a child's exit code for a part that cannot run here */
#define MIB ((size_t)1 << 20)

static int long_run; /* --long */

static const char *source =
    "kernel void add1(global int *p) {\n"
    "  size_t i = get_global_id(0);\n"
    "  p[i] = (int)i + 1;\n"
    "}\n"
    "kernel void group_sum(global int *p, local int *tmp) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  tmp[l] = p[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l == 0) {\n"
    "    int s = 0;\n"
    "    for (size_t j = 0; j < n; j++) s += tmp[j];\n"
    "    p[get_global_id(0)] = s;\n"
    "  }\n"
    "}\n"
    "kernel void shout(global int *p) {\n"
    "  if (p[0] < 0) printf(\"%d\\n\", p[0]);\n"
    "  p[0] = 42;\n"
    "}\n";

/* ---- Process measurements and limits ---------------------------------------
 */

/* Field i of /proc/self/statm (0: address space, 1: resident), in bytes. */
static size_t statm_bytes(int i) {
  unsigned long v[2] = {0, 0};
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%lu %lu", &v[0], &v[1]) != 2)
      v[0] = v[1] = 0;
    fclose(f);
  }
  return (size_t)v[i] * (size_t)sysconf(_SC_PAGESIZE);
}
static size_t address_space(void) { return statm_bytes(0); }
static size_t resident(void) { return statm_bytes(1); }

/* Threads of this process, from /proc/self/status. */
static int thread_count(void) {
  char line[256];
  int n = -1;
  FILE *f = fopen("/proc/self/status", "r");
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &n) == 1)
      break;
  if (f)
    fclose(f);
  return n;
}

/* Sets the soft RLIMIT_AS (the hard limit stays, so it can be raised
 * again); RLIM_INFINITY lifts it. */
static void limit_address_space(rlim_t bytes) {
  struct rlimit r;
  getrlimit(RLIMIT_AS, &r);
  r.rlim_cur = bytes;
  if (setrlimit(RLIMIT_AS, &r) != 0) {
    perror("setrlimit(RLIMIT_AS)");
    exit(1);
  }
}

/* ---- Checks shared by the parts
 * ------------------------------------------------ */

/* True if err is one of the codes the spec gives for running out. */
static int is_exhaustion_code(cl_int err) {
  return err == CL_OUT_OF_HOST_MEMORY || err == CL_OUT_OF_RESOURCES ||
         err == CL_MEM_OBJECT_ALLOCATION_FAILURE;
}

/* Reports a call that failed with a code other than the exhaustion codes
 * (success is fine: memory may have been found). */
static void check_exhaustion_code(const char *what, cl_int err) {
  if (err != CL_SUCCESS && !is_exhaustion_code(err)) {
    fprintf(stderr, "%s under exhaustion returned %d\n", what, err);
    test_failures++;
  }
}

/* Checks v[i] == i + 1 for i < n (what add1 writes); reports the first
 * difference and how many there are, once. */
static void check_ramp(const cl_int *v, int n, const char *what) {
  int bad = 0, first = -1;
  for (int i = 0; i < n; i++)
    if (v[i] != i + 1 && bad++ == 0)
      first = i;
  if (bad) {
    fprintf(stderr, "%s: %d of %d values wrong (first: [%d] = %d)\n", what, bad,
            n, first, v[first]);
    test_failures++;
  }
}

/* The process is usable: a new buffer, kernel add1 over it and a blocking
 * read give i + 1 everywhere. Reports what failed and returns 0. */
static int usable(test_env *env, cl_program prog, const char *after) {
  enum { N = 256 };
  cl_int host[N], err;
  for (int i = 0; i < N; i++)
    host[i] = -1;
  cl_mem m =
      clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                     sizeof host, host, &err);
  cl_kernel k = m ? clCreateKernel(prog, "add1", &err) : NULL;
  size_t global = N;
  if (k && (err = clSetKernelArg(k, 0, sizeof m, &m)) == CL_SUCCESS &&
      (err = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL)) == CL_SUCCESS)
    err = clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, sizeof host, host, 0,
                              NULL, NULL);
  int ok = err == CL_SUCCESS;
  for (int i = 0; ok && i < N; i++)
    ok = host[i] == i + 1;
  if (k)
    clReleaseKernel(k);
  if (m)
    clReleaseMemObject(m);
  if (!ok) {
    fprintf(stderr, "not usable after %s (code %d)\n", after, err);
    test_failures++;
  }
  return ok;
}

/* ---- Part memory
 * ------------------------------------------------------------- */

/* Buffers holding the memory that is left, largest pieces first. */
typedef struct filler {
  cl_mem *mems;
  size_t n, cap;
} filler;

/* Allocates buffers of each size in turn until allocation fails; every
 * failure must carry an exhaustion code. */
static void fill_memory(test_env *env, filler *fl) {
  static const size_t sizes[] = {16 * MIB, MIB, 64 << 10, 4 << 10};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    for (;;) {
      if (fl->n == fl->cap) {
        size_t cap = fl->cap ? 2 * fl->cap : 256;
        cl_mem *grown = realloc(fl->mems, cap * sizeof *grown);
        if (!grown)
          return; /* the test's own array: memory is gone */
        fl->mems = grown;
        fl->cap = cap;
      }
      cl_int err;
      cl_mem m =
          clCreateBuffer(env->context, CL_MEM_READ_WRITE, sizes[s], NULL, &err);
      if (!m) {
        if (!is_exhaustion_code(err)) {
          fprintf(stderr, "a buffer of %zu bytes failed with %d\n", sizes[s],
                  err);
          test_failures++;
        }
        break;
      }
      fl->mems[fl->n++] = m;
    }
  }
}

static void release_filler(filler *fl) {
  for (size_t i = 0; i < fl->n; i++)
    REQUIRE_OK(clReleaseMemObject(fl->mems[i]));
  fl->n = 0;
}

/* A buffer larger than the limit leaves room for. */
static void too_large_buffer(test_env *env, cl_program prog, size_t headroom) {
  cl_ulong max = 0;
  REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                             sizeof max, &max, NULL));
  size_t size = 4 * headroom;
  if (max < size) {
    printf("memory: CL_DEVICE_MAX_MEM_ALLOC_SIZE %llu is below %zu MiB: "
           "too-large buffer skipped\n",
           (unsigned long long)max, size / MIB);
    return;
  }
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(env->context, CL_MEM_READ_WRITE, size, NULL, &err);
  CHECK(m == NULL);
  CHECK(err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
        err == CL_OUT_OF_HOST_MEMORY);
  if (m)
    clReleaseMemObject(m);
  usable(env, prog, "a too-large buffer");
}

/* Every object creator, with memory exhausted: success or an exhaustion
 * code, never a crash. */
static void creators_exhausted(test_env *env, cl_program prog, cl_mem any) {
  cl_int err;
  cl_context c = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  check_exhaustion_code("clCreateContext", err);
  if (c)
    clReleaseContext(c);
  cl_command_queue q =
      clCreateCommandQueueWithProperties(env->context, env->device, NULL, &err);
  check_exhaustion_code("clCreateCommandQueueWithProperties", err);
  if (q)
    clReleaseCommandQueue(q);
  cl_event e = clCreateUserEvent(env->context, &err);
  check_exhaustion_code("clCreateUserEvent", err);
  if (e) {
    clSetUserEventStatus(e, CL_COMPLETE);
    clReleaseEvent(e);
  }
  cl_buffer_region r = {0, 128};
  cl_mem sub =
      clCreateSubBuffer(any, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
  check_exhaustion_code("clCreateSubBuffer", err);
  if (sub)
    clReleaseMemObject(sub);
  cl_kernel k = clCreateKernel(prog, "add1", &err);
  check_exhaustion_code("clCreateKernel", err);
  if (k) {
    cl_kernel k2 = clCloneKernel(k, &err);
    check_exhaustion_code("clCloneKernel", err);
    if (k2)
      clReleaseKernel(k2);
    clReleaseKernel(k);
  }
  /* A source of 2 MiB: its copy needs memory that is not there. */
  size_t big = 2 * MIB;
  char *src = malloc(big + 1);
  if (src) {
    memset(src, ' ', big);
    src[big] = 0;
    const char *s = src;
    cl_program p = clCreateProgramWithSource(env->context, 1, &s, NULL, &err);
    check_exhaustion_code("clCreateProgramWithSource", err);
    if (p)
      clReleaseProgram(p);
    free(src);
  }
}

/* A build with memory exhausted fails with CL_OUT_OF_HOST_MEMORY, or
 * CL_BUILD_PROGRAM_FAILURE with a log. */
static void build_exhausted(test_env *env) {
  cl_int err;
  cl_program p =
      clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  if (!p) {
    check_exhaustion_code("clCreateProgramWithSource", err);
    return;
  }
  err = clBuildProgram(p, 0, NULL, "", NULL, NULL);
  if (err == CL_SUCCESS) {
    printf("memory: a build succeeded with memory exhausted\n");
  } else if (err == CL_BUILD_PROGRAM_FAILURE) {
    size_t len = 0;
    char log[512] = "";
    CHECK_EQ(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG,
                                   sizeof log, log, &len) == CL_SUCCESS ||
                 len > sizeof log,
             1);
    CHECK(len > 1); /* the log says why */
    cl_build_status st = CL_BUILD_NONE;
    REQUIRE_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_STATUS,
                                     sizeof st, &st, NULL));
    CHECK_EQ(st, CL_BUILD_ERROR);
    printf("memory: build failed, log: %.*s\n", (int)strcspn(log, "\n"), log);
  } else {
    CHECK_EQ(err, CL_OUT_OF_HOST_MEMORY);
  }
  clReleaseProgram(p);
}

/* Enqueues held back by a user event until one fails; the failure must
 * be an exhaustion code, and once the event completes every command that
 * was accepted runs. */
static void enqueues_exhausted(test_env *env, cl_program prog, cl_mem target) {
  cl_int err;
  cl_event gate = clCreateUserEvent(env->context, &err);
  cl_kernel k = clCreateKernel(prog, "add1", &err);
  if (!gate || !k) {
    /* Too little memory even for these: that is an answer too. */
    check_exhaustion_code("gate or kernel", err);
    if (gate)
      clSetUserEventStatus(gate, CL_COMPLETE), clReleaseEvent(gate);
    return;
  }
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof target, &target));
  static cl_int word = 5;
  size_t global = 64, accepted = 0, limit = long_run ? 4000000 : 1000000;
  err = CL_SUCCESS;
  for (; accepted < limit && err == CL_SUCCESS; accepted++) {
    switch (accepted % 3) {
    case 0:
      err = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 1,
                                   &gate, NULL);
      break;
    case 1:
      err = clEnqueueWriteBuffer(env->queue, target, CL_FALSE, 0, sizeof word,
                                 &word, 1, &gate, NULL);
      break;
    default:
      err = clEnqueueMarkerWithWaitList(env->queue, 1, &gate, NULL);
    }
  }
  if (err == CL_SUCCESS)
    printf("memory: %zu enqueues were all accepted\n", accepted);
  else
    CHECK(is_exhaustion_code(err));
  printf("memory: enqueue failed after %zu commands (code %d)\n", accepted,
         err);
  REQUIRE_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  REQUIRE_OK(clFinish(env->queue));
  clReleaseEvent(gate);
  clReleaseKernel(k);
}

/* A printf kernel needs a 1 MiB buffer at run time: with none to be had,
 * its command fails (a negative status), the process goes on. */
static void printf_exhausted(test_env *env, cl_program prog, cl_mem target) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "shout", &err);
  if (!k) {
    check_exhaustion_code("clCreateKernel", err);
    return;
  }
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof target, &target));
  cl_event ev = NULL;
  err = clEnqueueTask(env->queue, k, 0, NULL, &ev);
  if (err != CL_SUCCESS) {
    check_exhaustion_code("clEnqueueTask", err);
  } else {
    cl_int wait = clWaitForEvents(1, &ev), status = 1;
    REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                              sizeof status, &status, NULL));
    if (status == CL_COMPLETE) {
      CHECK_EQ(wait, CL_SUCCESS);
    } else {
      CHECK_EQ(wait, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      CHECK(is_exhaustion_code(status));
    }
    printf("memory: printf kernel status %d\n", status);
    clReleaseEvent(ev);
  }
  clReleaseKernel(k);
}

/* A barrier kernel in work-groups of 1024, the largest: region or fiber
 * mode may need memory for them. It must run, or its enqueue fail with an
 * exhaustion code. */
static void big_group_barrier(test_env *env, cl_program prog, cl_mem target) {
  enum { N = 1024 };
  static cl_int ramp[N];
  for (int i = 0; i < N; i++)
    ramp[i] = i;
  cl_int err, sum = -1;
  cl_kernel k = clCreateKernel(prog, "group_sum", &err);
  if (!k) {
    check_exhaustion_code("clCreateKernel", err);
    return;
  }
  size_t global = N, local = N;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof target, &target));
  REQUIRE_OK(clSetKernelArg(k, 1, local * sizeof(cl_int), NULL));
  cl_event ev = NULL;
  err = clEnqueueWriteBuffer(env->queue, target, CL_TRUE, 0, sizeof ramp, ramp,
                             0, NULL, NULL);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0,
                                 NULL, &ev);
  cl_int status = CL_COMPLETE;
  if (err == CL_SUCCESS) {
    clWaitForEvents(1, &ev);
    REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                              sizeof status, &status, NULL));
    clReleaseEvent(ev);
    err = clEnqueueReadBuffer(env->queue, target, CL_TRUE, 0, sizeof sum, &sum,
                              0, NULL, NULL);
  }
  /* Ran: the group's sum 0 + ... + 1023; or failed with a reason. */
  if (err == CL_SUCCESS && status == CL_COMPLETE)
    CHECK_EQ(sum, N * (N - 1) / 2);
  else if (err == CL_SUCCESS)
    CHECK(is_exhaustion_code(status));
  else
    check_exhaustion_code("the barrier kernel's commands", err);
  clReleaseKernel(k);
}

/* One round: exhaust memory, provoke one kind of failure, give the
 * memory back, and check the process still works. */
typedef void (*pressure_fn)(test_env *, cl_program, cl_mem);

static void build_pressure(test_env *env, cl_program prog, cl_mem target) {
  (void)prog, (void)target;
  build_exhausted(env);
}

static void round_exhausted(test_env *env, cl_program prog, const char *what,
                            pressure_fn fn) {
  filler fl = {0};
  fill_memory(env, &fl);
  if (fl.n == 0) {
    fprintf(stderr, "memory: not one filler buffer could be made\n");
    test_failures++;
    return;
  }
  fn(env, prog, fl.mems[0]);
  release_filler(&fl);
  free(fl.mems);
  usable(env, prog, what);
}

static void part_memory(void) {
  if (TEST_UNDER_ASAN) {
    printf("memory: skipped under AddressSanitizer (RLIMIT_AS)\n");
    exit(SKIPPED);
  }
  test_env env;
  test_setup(&env);
  cl_program prog = test_build(&env, source, "");
  usable(&env, prog, "set-up");
  /* Warm every path once, so that the limit bites on the failures
   * provoked below, not on first-time initialisation. */
  cl_mem warm = test_buffer(&env, 4096, NULL);
  big_group_barrier(&env, prog, warm);
  REQUIRE_OK(clReleaseMemObject(warm));

  size_t headroom = (long_run ? 512 : 128) * MIB, base = address_space();
  limit_address_space(base + headroom);
  printf("memory: address space %zu MiB, limit %zu MiB\n", base / MIB,
         (base + headroom) / MIB);

  too_large_buffer(&env, prog, headroom);
  round_exhausted(&env, prog, "buffers until none could be made",
                  creators_exhausted);
  round_exhausted(&env, prog, "a build with memory exhausted", build_pressure);
  round_exhausted(&env, prog, "enqueues with memory exhausted",
                  enqueues_exhausted);
  round_exhausted(&env, prog, "a printf kernel with memory exhausted",
                  printf_exhausted);
  round_exhausted(&env, prog, "a barrier kernel with memory exhausted",
                  big_group_barrier);

  /* With the limit lifted, builds work again. (Not under the limit: a
   * build that LLVM abandoned for want of memory leaks what it had, by
   * design (cc_run_crash_safe); the headroom is smaller after.) */
  limit_address_space(RLIM_INFINITY);
  cl_program again = test_build(&env, source, "");
  usable(&env, again, "a build after the exhaustion");
  REQUIRE_OK(clReleaseProgram(again));
  REQUIRE_OK(clReleaseProgram(prog));
  test_teardown(&env);
}

/* ---- Part threads ---------------------------------------------------------
 */

/* Either a clean error from the set-up calls or a device that runs a
 * kernel right; returns 1 if the device works. */
static int try_device(const char *how, test_env *env) {
  cl_uint n = 0;
  cl_int err = clGetPlatformIDs(1, &env->platform, &n);
  if (err == CL_SUCCESS)
    err = clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_CPU, 1, &env->device,
                         NULL);
  env->context = err == CL_SUCCESS
                     ? clCreateContext(NULL, 1, &env->device, NULL, NULL, &err)
                     : NULL;
  env->queue = env->context ? clCreateCommandQueueWithProperties(
                                  env->context, env->device, NULL, &err)
                            : NULL;
  if (!env->queue) {
    /* A clean error is an allowed outcome; it must be a real code. */
    printf("threads (%s): set-up failed cleanly with %d\n", how, err);
    CHECK(err < 0);
    return 0;
  }
  cl_uint units = 0;
  REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_COMPUTE_UNITS,
                             sizeof units, &units, NULL));
  CHECK(units >= 1);
  printf("threads (%s): %u compute units, %d threads in the process\n", how,
         units, thread_count());
  return 1;
}

/* A long in-order chain held back by a user event, then released: with
 * no executor thread its commands run on the thread that completes the
 * event. */
static void chain(test_env *env, cl_program prog) {
  cl_int err;
  cl_event gate = clCreateUserEvent(env->context, &err);
  REQUIRE_OK(err);
  cl_mem m = test_buffer(env, 64 * sizeof(cl_int), NULL);
  cl_kernel k = clCreateKernel(prog, "add1", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t global = 64, n = long_run ? 200000 : 50000;
  REQUIRE_OK(clEnqueueMarkerWithWaitList(env->queue, 1, &gate, NULL));
  for (size_t i = 0; i < n; i++)
    REQUIRE_OK(i % 2 ? clEnqueueMarkerWithWaitList(env->queue, 0, NULL, NULL)
                     : clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global,
                                              NULL, 0, NULL, NULL));
  REQUIRE_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  REQUIRE_OK(clFinish(env->queue));
  cl_int out[64];
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, sizeof out, out, 0,
                                 NULL, NULL));
  check_ramp(out, 64, "the chain's kernel");
  clReleaseKernel(k);
  clReleaseMemObject(m);
  clReleaseEvent(gate);
}

/* Builds, runs a kernel, a barrier kernel and a long chain. */
static void exercise(test_env *env) {
  cl_program prog = test_build(env, source, "");
  usable(env, prog, "start-up without threads");
  cl_mem m = test_buffer(env, 1024 * sizeof(cl_int), NULL);
  big_group_barrier(env, prog, m);
  clReleaseMemObject(m);
  chain(env, prog);
  usable(env, prog, "a chain of commands");
  REQUIRE_OK(clReleaseProgram(prog));
}

/* No thread can be created: RLIMIT_NPROC 0 stops every pthread_create of
 * an unprivileged user. Root is exempt, so a root child first becomes
 * nobody. */
static void part_threads_nproc(void) {
  if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) {
    printf("threads: cannot become an unprivileged user: skipped\n");
    exit(SKIPPED);
  }
  struct rlimit r = {0, 0};
  if (setrlimit(RLIMIT_NPROC, &r) != 0) {
    perror("setrlimit(RLIMIT_NPROC)");
    exit(SKIPPED);
  }
  test_env env;
  if (try_device("RLIMIT_NPROC 0", &env)) {
    CHECK_EQ(thread_count(), 1); /* the limit did stop every thread */
    exercise(&env);
    test_teardown(&env);
  }
}

/* The address space has room for the library but not for worker stacks
 * when the device starts (2 MiB left: the pool's local memory fits, a
 * thread's 8 MiB stack does not); the limit is lifted before the first
 * build. */
static void part_threads_as(void) {
  if (TEST_UNDER_ASAN) {
    printf("threads (RLIMIT_AS): skipped under AddressSanitizer\n");
    exit(SKIPPED);
  }
  cl_platform_id platform;
  REQUIRE_OK(clGetPlatformIDs(1, &platform, NULL)); /* loads the library */
  limit_address_space(address_space() + 2 * MIB);
  test_env env;
  int works = try_device("RLIMIT_AS at start-up", &env);
  limit_address_space(RLIM_INFINITY);
  if (!works && !try_device("after the limit was lifted", &env))
    return;
  exercise(&env);
  test_teardown(&env);
}

/* Runs add1 over 256 items with the address space limited to what the
 * process uses plus `room` around the launch only; the kernel must run
 * or its command must fail with an exhaustion code: never a success that
 * computed nothing. */
static void launch_limited(test_env *env, cl_program prog, size_t room) {
  cl_int err, host[256];
  memset(host, 0, sizeof host);
  cl_mem m = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, sizeof host,
                            host, &err);
  REQUIRE_OK(err);
  cl_kernel k = clCreateKernel(prog, "add1", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t global = 256;
  cl_event ev = NULL;
  limit_address_space(address_space() + room);
  err = clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0, NULL,
                               &ev);
  cl_int status = CL_COMPLETE;
  if (ev) {
    clWaitForEvents(1, &ev);
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                   &status, NULL);
  }
  limit_address_space(RLIM_INFINITY);
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, sizeof host, host,
                                 0, NULL, NULL));
  if (err == CL_SUCCESS && status == CL_COMPLETE) {
    check_ramp(host, 256, "a kernel launched with the address space full");
  } else {
    CHECK(err != CL_SUCCESS ? is_exhaustion_code(err)
                            : is_exhaustion_code(status));
  }
  printf("threads (RLIMIT_AS at the first launch): enqueue %d, status %d\n",
         err, status);
  if (ev)
    clReleaseEvent(ev);
  clReleaseKernel(k);
  clReleaseMemObject(m);
}

/* Too little address space even for the pool's local memory when the
 * device starts, and again at the first launch (which retries starting
 * the pool); then, with the limit lifted, the device works. */
static void part_threads_as_launch(void) {
  if (TEST_UNDER_ASAN) {
    printf("threads (RLIMIT_AS): skipped under AddressSanitizer\n");
    exit(SKIPPED);
  }
  cl_platform_id platform;
  REQUIRE_OK(clGetPlatformIDs(1, &platform, NULL));
  limit_address_space(address_space() + 128 * 1024);
  test_env env;
  int works = try_device("RLIMIT_AS 128 KiB above use", &env);
  limit_address_space(RLIM_INFINITY);
  if (!works && !try_device("after the limit was lifted", &env))
    return;
  cl_program prog = test_build(&env, source, "");
  launch_limited(&env, prog, 64 * 1024);
  usable(&env, prog, "a launch with the address space exhausted");
  REQUIRE_OK(clReleaseProgram(prog));
  exercise(&env);
  test_teardown(&env);
}

/* ---- Part cycles
 * ---------------------------------------------------------------- */

typedef struct cycler {
  test_env *env;
  cl_program prog;  /* built, kernel add1 */
  cl_mem buf;       /* 4 KiB */
  cl_kernel kernel; /* add1 on buf */
  unsigned char *binary;
  size_t binary_size;
} cycler;

static void cycle_context(cycler *c) {
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &c->env->device, NULL, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clReleaseContext(ctx));
}
static void cycle_queue(cycler *c) {
  cl_int err;
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                 CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_command_queue q = clCreateCommandQueueWithProperties(
      c->env->context, c->env->device, props, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clReleaseCommandQueue(q));
}
static void cycle_buffer(cycler *c) {
  cl_int err;
  cl_mem m =
      clCreateBuffer(c->env->context, CL_MEM_READ_WRITE, 4096, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clReleaseMemObject(m));
}
static void cycle_sub_buffer(cycler *c) {
  cl_int err;
  cl_buffer_region r = {1024, 1024};
  cl_mem m =
      clCreateSubBuffer(c->buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clReleaseMemObject(m));
}
static void cycle_source(cycler *c) {
  cl_int err;
  cl_program p =
      clCreateProgramWithSource(c->env->context, 1, &source, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clReleaseProgram(p));
}
static void cycle_build(cycler *c) {
  cl_program p = test_build(c->env, source, "");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "add1", &err); /* forces the JIT */
  REQUIRE_OK(err);
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseProgram(p));
}
static void cycle_binary(cycler *c) {
  cl_int err;
  const unsigned char *b = c->binary;
  cl_program p = clCreateProgramWithBinary(c->env->context, 1, &c->env->device,
                                           &c->binary_size, &b, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clBuildProgram(p, 0, NULL, NULL, NULL, NULL));
  REQUIRE_OK(clReleaseProgram(p));
}
static void cycle_kernel(cycler *c) {
  cl_int err;
  cl_kernel k = clCreateKernel(c->prog, "add1", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof c->buf, &c->buf));
  REQUIRE_OK(clReleaseKernel(k));
}
static void cycle_user_event(cycler *c) {
  cl_int err;
  cl_event e = clCreateUserEvent(c->env->context, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetUserEventStatus(e, CL_COMPLETE));
  REQUIRE_OK(clReleaseEvent(e));
}
static void cycle_enqueue_event(cycler *c) {
  cl_event e;
  size_t global = 64;
  REQUIRE_OK(clEnqueueNDRangeKernel(c->env->queue, c->kernel, 1, NULL, &global,
                                    NULL, 0, NULL, &e));
  REQUIRE_OK(clReleaseEvent(e));
  static unsigned n;
  if (++n % 256 == 0) /* keep the queue short */
    REQUIRE_OK(clFinish(c->env->queue));
}

typedef struct cycle_kind {
  const char *name;
  void (*fn)(cycler *);
  unsigned count; /* cycles in the default run; --long: ten times */
} cycle_kind;

static const cycle_kind kinds[] = {
    {"context", cycle_context, 100000},
    {"command-queue", cycle_queue, 100000},
    {"buffer", cycle_buffer, 100000},
    {"sub-buffer", cycle_sub_buffer, 100000},
    {"program from source", cycle_source, 100000},
    {"kernel", cycle_kernel, 100000},
    {"user event", cycle_user_event, 100000},
    {"event of an enqueue", cycle_enqueue_event, 100000},
    /* Builds take tens of milliseconds each: fewer cycles. */
    {"program build", cycle_build, 100},
    {"program from binary", cycle_binary, 100},
};

/* Runs one kind's cycles: a tenth as warm-up, then the rest; the resident
 * set may not grow by more than the noise allowance. */
static void run_cycles(cycler *c, const cycle_kind *kind) {
  /* Under AddressSanitizer a hundredth of the cycles (at least 10):
   * LeakSanitizer checks what they leave, not the resident set. */
  unsigned total = kind->count * (long_run ? 10 : 1);
  if (TEST_UNDER_ASAN)
    total = total / 100 > 10 ? total / 100 : 10;
  unsigned warm = total / 10;
  for (unsigned i = 0; i < warm; i++)
    kind->fn(c);
  REQUIRE_OK(clFinish(c->env->queue));
  size_t before = resident();
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (unsigned i = warm; i < total; i++)
    kind->fn(c);
  REQUIRE_OK(clFinish(c->env->queue));
  size_t after = resident();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  long long grew = (long long)after - (long long)before;
  /* Allocator noise: 1 MiB (a leak of 12 bytes a cycle shows over 90,000
   * cycles), and 4 KiB a cycle for the few heavy ones (LLVM's own caches
   * settle over the first builds). */
  long long allowed = (long long)MIB;
  if (total < 10000)
    allowed += 4096LL * total;
  printf("cycles: %-20s %7u  RSS %+7lld KiB  %6.2f s\n", kind->name,
         total - warm, grew / 1024,
         (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
  if (!TEST_UNDER_ASAN && grew > allowed) {
    fprintf(stderr, "cycles: %s: RSS grew by %lld KiB over %u cycles\n",
            kind->name, grew / 1024, total - warm);
    test_failures++;
  }
}

static void part_cycles(void) {
  test_env env;
  test_setup(&env);
  cycler c = {.env = &env};
  c.prog = test_build(&env, source, "");
  c.buf = test_buffer(&env, 4096, NULL);
  cl_int err;
  c.kernel = clCreateKernel(c.prog, "add1", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(c.kernel, 0, sizeof c.buf, &c.buf));
  REQUIRE_OK(clGetProgramInfo(c.prog, CL_PROGRAM_BINARY_SIZES,
                              sizeof c.binary_size, &c.binary_size, NULL));
  c.binary = malloc(c.binary_size);
  REQUIRE_OK(clGetProgramInfo(c.prog, CL_PROGRAM_BINARIES, sizeof c.binary,
                              &c.binary, NULL));
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    run_cycles(&c, &kinds[i]);
  usable(&env, c.prog, "the cycles");
  free(c.binary);
  REQUIRE_OK(clReleaseKernel(c.kernel));
  REQUIRE_OK(clReleaseMemObject(c.buf));
  REQUIRE_OK(clReleaseProgram(c.prog));
  test_teardown(&env);
#if TEST_UNDER_ASAN
  /* The child ends with _exit, which skips LeakSanitizer's exit check:
   * run it here, while every object of the cycles is released. */
  if (__lsan_do_recoverable_leak_check()) {
    fprintf(stderr, "cycles: LeakSanitizer found leaks\n");
    test_failures++;
  }
#endif
}

/* ---- Driver
 * ----------------------------------------------------------------------- */

typedef struct part {
  const char *name;
  void (*fn)(void);
  unsigned timeout_s; /* the child is killed (SIGALRM) after this */
} part;

static const part parts[] = {
    {"memory", part_memory, 120},
    {"threads-nproc", part_threads_nproc, 120},
    {"threads-as", part_threads_as, 120},
    {"threads-as-launch", part_threads_as_launch, 120},
    {"cycles", part_cycles, 300},
};

/* Runs a part in a child and reports how it ended. */
static void run_part(const part *p) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    exit(1);
  }
  if (pid == 0) {
    alarm(p->timeout_s * (long_run ? 10 : 1));
    p->fn();
    fflush(NULL);
    _exit(test_failures ? 1 : 0);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (WIFSIGNALED(status)) {
    fprintf(stderr, "%s: the child died of signal %d (%s)%s\n", p->name,
            WTERMSIG(status), strsignal(WTERMSIG(status)),
            WTERMSIG(status) == SIGALRM ? ": it hung" : "");
    test_failures++;
  } else if (WEXITSTATUS(status) == SKIPPED) {
    printf("%s: skipped\n", p->name);
  } else if (WEXITSTATUS(status) != 0) {
    fprintf(stderr, "%s: the child failed (exit %d)\n", p->name,
            WEXITSTATUS(status));
    test_failures++;
  }
}

int main(int argc, char **argv) {
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--long") == 0)
      long_run = 1;
    else
      only = argv[i];
  }
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    if (!only || strcmp(only, parts[i].name) == 0)
      run_part(&parts[i]);
  return test_finish("exhaustion");
}
