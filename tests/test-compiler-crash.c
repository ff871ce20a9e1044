/* Tests the compiler's crash guard: a crash inside the LLVM pipeline
 * (injected with SKEIN_INJECT_COMPILER_CRASH=1 where the back end starts)
 * fails the build with CL_BUILD_PROGRAM_FAILURE and a log saying so, the
 * host process survives, and the next build works. A crash after region
 * mode was used (SKEIN_INJECT_COMPILER_CRASH=region) is retried without
 * it: the build succeeds, says so in its log, and the kernel computes the
 * right values. LLVM's report_fatal_error, which would exit the process
 * (SKEIN_INJECT_COMPILER_CRASH=fatal), fails the build the same way, with
 * its reason in the log; with SKEIN_NO_CRASH_GUARD=1 it ends a child run
 * of this program, as it would without the guard. Skipped under TSan,
 * which cannot follow a jump out of a signal handler. */
#define _GNU_SOURCE
#include "test_util.h"
#include <dlfcn.h>
#include <sys/wait.h>

static const char *source =
    "__kernel void k(__global int *o) { o[get_global_id(0)] = 7; }\n";

/* The child run of the unguarded case: with SKEIN_NO_CRASH_GUARD=1 the
 * injected fatal error is LLVM's as it would be without Skein, which
 * ends the process; returning from the build is the failure. */
static int unguarded_child(void) {
  test_env env;
  test_setup(&env);
  cl_int err;
  cl_program p = clCreateProgramWithSource(env.context, 1, &source, NULL, &err);
  REQUIRE_OK(err);
  clBuildProgram(p, 1, &env.device, "", NULL, NULL);
  fprintf(stderr, "compiler-crash: the unguarded build returned\n");
  return 0;
}

int main(int argc, char **argv) {
  if (dlsym(RTLD_DEFAULT, "__tsan_init")) {
    printf("compiler-crash: skipped under ThreadSanitizer\n");
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--unguarded-child") == 0)
    return unguarded_child();
  /* A crashed build leaks what it held, on purpose: under LeakSanitizer
   * those allocations are excluded (the calls exist only there). */
  void (*lsan_disable)(void) = (void (*)(void))dlsym(RTLD_DEFAULT,
                                                     "__lsan_disable");
  void (*lsan_enable)(void) = (void (*)(void))dlsym(RTLD_DEFAULT,
                                                    "__lsan_enable");
  test_env env;
  test_setup(&env);
  cl_int err;
  for (int round = 0; round < 2; round++) {
    setenv("SKEIN_INJECT_COMPILER_CRASH", "1", 1);
    cl_program p = clCreateProgramWithSource(env.context, 1, &source, NULL,
                                             &err);
    REQUIRE_OK(err);
    if (lsan_disable)
      lsan_disable();
    CHECK_EQ(clBuildProgram(p, 1, &env.device, "", NULL, NULL),
             CL_BUILD_PROGRAM_FAILURE);
    if (lsan_enable)
      lsan_enable();
    char log[1024] = "";
    REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG,
                                     sizeof log, log, NULL));
    CHECK(strstr(log, "internal compiler error") != NULL);
    cl_build_status st;
    REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_STATUS,
                                     sizeof st, &st, NULL));
    CHECK_EQ(st, CL_BUILD_ERROR);
    clReleaseProgram(p);

    /* The same source builds and runs once the fault is gone. */
    unsetenv("SKEIN_INJECT_COMPILER_CRASH");
    p = test_build(&env, source, "");
    cl_kernel k = clCreateKernel(p, "k", &err);
    REQUIRE_OK(err);
    cl_mem m = clCreateBuffer(env.context, 0, 64 * sizeof(int), NULL, &err);
    REQUIRE_OK(err);
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof m, &m));
    size_t g = 64;
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &g, NULL, 0, NULL,
                                      NULL));
    int out[64];
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, sizeof out, out,
                                   0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < 64; i++)
      bad += out[i] != 7;
    CHECK_EQ(bad, 0);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
  }

  /* A fatal error inside LLVM: the build fails, the process lives on. */
  setenv("SKEIN_INJECT_COMPILER_CRASH", "fatal", 1);
  cl_program fatal = clCreateProgramWithSource(env.context, 1, &source, NULL,
                                               &err);
  REQUIRE_OK(err);
  if (lsan_disable)
    lsan_disable();
  CHECK_EQ(clBuildProgram(fatal, 1, &env.device, "", NULL, NULL),
           CL_BUILD_PROGRAM_FAILURE);
  if (lsan_enable)
    lsan_enable();
  unsetenv("SKEIN_INJECT_COMPILER_CRASH");
  char fatal_log[1024] = "";
  REQUIRE_OK(clGetProgramBuildInfo(fatal, env.device, CL_PROGRAM_BUILD_LOG,
                                   sizeof fatal_log, fatal_log, NULL));
  CHECK(strstr(fatal_log, "fatal error: injected") != NULL);
  clReleaseProgram(fatal);

  /* SKEIN_NO_CRASH_GUARD=1 takes the guard away: the same fatal error
   * ends the process (a child run of this program: LLVM aborts it, which
   * the shell reports as status 134; a child whose build returned exits
   * with 0). */
  char command[4200];
  snprintf(command, sizeof command,
           "SKEIN_NO_CRASH_GUARD=1 SKEIN_INJECT_COMPILER_CRASH=fatal "
           "'%s' --unguarded-child 2>/dev/null",
           argv[0]);
  int status = system(command);
  CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) != 0);

  /* A kernel with a loop of its own runs in region mode (the loop cut at
   * an implicit barrier). */
  static const char *loop_source =
      "__kernel void k(__global int *o, int n) {\n"
      "  int s = 0;\n"
      "  for (int i = 0; i < n; i++) s += i * (int)get_global_id(0);\n"
      "  o[get_global_id(0)] = s;\n"
      "}\n";
  setenv("SKEIN_INJECT_COMPILER_CRASH", "region", 1);
  cl_program p = clCreateProgramWithSource(env.context, 1, &loop_source,
                                           NULL, &err);
  REQUIRE_OK(err);
  if (lsan_disable)
    lsan_disable();
  CHECK_EQ(clBuildProgram(p, 1, &env.device, "", NULL, NULL), CL_SUCCESS);
  if (lsan_enable)
    lsan_enable();
  unsetenv("SKEIN_INJECT_COMPILER_CRASH");
  char log[1024] = "";
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG,
                                   sizeof log, log, NULL));
  CHECK(strstr(log, "built without region mode") != NULL);
  cl_kernel k = clCreateKernel(p, "k", &err);
  REQUIRE_OK(err);
  cl_mem m = clCreateBuffer(env.context, 0, 256 * sizeof(int), NULL, &err);
  REQUIRE_OK(err);
  int n = 10;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof m, &m));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof n, &n));
  size_t g = 256;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &g, NULL, 0, NULL,
                                    NULL));
  int out[256];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, sizeof out, out, 0,
                                 NULL, NULL));
  int bad = 0;
  for (int i = 0; i < 256; i++)
    bad += out[i] != 45 * i;
  CHECK_EQ(bad, 0);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseProgram(p);
  test_teardown(&env);
  return test_finish("compiler-crash");
}
