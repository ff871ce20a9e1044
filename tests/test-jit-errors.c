/* Tests that an error of the JIT session (a symbol the kernel's code
 * calls that nothing defines, here through inline assembly, which the
 * front end and the assembler accept) reaches the program's build log
 * and fails the build, clCreateKernel or the launch of that kernel with
 * an error code, never the application's stderr (where LLVM's default
 * reporter prints it), while the program's other kernel still runs.
 * Before the session's errors went to the build log (compiler/build.c,
 * report_jit_error) they were printed on stderr and the log said only
 * that the lookup failed. */
#define _GNU_SOURCE
#include "test_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MISSING "skein_test_symbol_nobody_defines"

static const char source[] =
    "kernel void good(global int *o) { o[get_global_id(0)] = 3 * (int)"
    "get_global_id(0); }\n"
    "kernel void bad(global int *o) {\n"
    "  __asm__ volatile(\"call " MISSING "\");\n"
    "  o[get_global_id(0)] = 1;\n"
    "}\n";

/* The file's text (malloc'd, NUL-terminated), "" if it cannot be read. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  char *text = calloc(1, 1 << 16);
  if (f && text) {
    size_t n = fread(text, 1, (1 << 16) - 1, f);
    text[n] = '\0';
  }
  if (f)
    fclose(f);
  return text;
}

int main(void) {
#if !defined(__x86_64__)
  return 77;
#else
  test_env env;
  test_setup(&env);
  /* stderr into a file for the rest of the test. */
  char path[] = "/tmp/skein-jit-errors-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0)
    return 1;
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);

  cl_int err;
  const char *src = source;
  cl_program p = clCreateProgramWithSource(env.context, 1, &src, NULL, &err);
  cl_int build = clBuildProgram(p, 1, &env.device, "", NULL, NULL);
  cl_int created = CL_SUCCESS, launched = CL_SUCCESS;
  enum { N = 256 };
  int out[N];
  cl_mem buf = test_buffer(&env, sizeof out, NULL);
  if (build == CL_SUCCESS) {
    cl_kernel bad = clCreateKernel(p, "bad", &created);
    if (created == CL_SUCCESS) {
      size_t global = N;
      clSetKernelArg(bad, 0, sizeof buf, &buf);
      launched = clEnqueueNDRangeKernel(env.queue, bad, 1, NULL, &global,
                                        NULL, 0, NULL, NULL);
      if (launched == CL_SUCCESS)
        launched = clFinish(env.queue);
      clReleaseKernel(bad);
    }
    /* The other kernel is unharmed. */
    cl_kernel good = clCreateKernel(p, "good", &err);
    CHECK_EQ(err, CL_SUCCESS);
    if (err == CL_SUCCESS) {
      size_t global = N;
      REQUIRE_OK(clSetKernelArg(good, 0, sizeof buf, &buf));
      REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, good, 1, NULL, &global,
                                        NULL, 0, NULL, NULL));
      REQUIRE_OK(clEnqueueReadBuffer(env.queue, buf, CL_TRUE, 0, sizeof out,
                                     out, 0, NULL, NULL));
      int wrong = 0;
      for (int i = 0; i < N; i++)
        wrong += out[i] != 3 * i;
      CHECK_EQ(wrong, 0);
      clReleaseKernel(good);
    }
  }
  char log[8192] = "";
  clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                        NULL);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  char *captured = slurp(path);
  close(fd);
  unlink(path);

  /* The bad kernel failed somewhere, with an error code. */
  CHECK(build != CL_SUCCESS || created != CL_SUCCESS ||
        launched != CL_SUCCESS);
  /* The log names the missing symbol; stderr does not. */
  CHECK(strstr(log, MISSING) != NULL);
  CHECK(captured && strstr(captured, MISSING) == NULL);
  if (!strstr(log, MISSING) || (captured && strstr(captured, MISSING)))
    fprintf(stderr, "build %d, clCreateKernel %d, launch %d\nlog:\n%s\n"
                    "stderr:\n%s\n", build, created, launched, log,
            captured ? captured : "");
  free(captured);
  clReleaseMemObject(buf);
  clReleaseProgram(p);
  test_teardown(&env);
  return test_finish("jit-errors");
#endif
}
