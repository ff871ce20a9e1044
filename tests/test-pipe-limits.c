/* Tests CL_DEVICE_MAX_PIPE_ARGS (issue 11): a kernel with exactly that
 * many pipe arguments builds and moves packets through every one of them
 * (checked against the host's list of what was written), and one with a
 * pipe more fails to build (clBuildProgram, and clLinkProgram of a
 * compiled object) with a log line naming the kernel and the limit. The
 * spec names no error for the excess, so the build refuses it rather than
 * a launch misbehaving. */
#include "test_util.h"

enum { ITEMS = 8 };

/* Source of a writer (access "write_only") or reader kernel taking n
 * pipes: work-item i writes k * 1000 + i into pipe k, or reads one packet
 * of each pipe into out[k * ITEMS + i] (-1 when the read fails). */
static char *pipe_kernel(const char *name, const char *access, unsigned n) {
  size_t cap = 256 + 160 * (size_t)n;
  char *s = malloc(cap);
  size_t len = (size_t)snprintf(s, cap, "__kernel void %s(", name);
  for (unsigned k = 0; k < n; k++)
    len += (size_t)snprintf(s + len, cap - len, "__%s pipe int p%u, ",
                            access, k);
  len += (size_t)snprintf(s + len, cap - len,
                          "__global int *out) {\n"
                          "  int i = get_global_id(0), v;\n");
  for (unsigned k = 0; k < n; k++) {
    if (access[0] == 'w')
      len += (size_t)snprintf(s + len, cap - len,
                              "  v = %u * 1000 + i; write_pipe(p%u, &v);\n",
                              k, k);
    else
      len += (size_t)snprintf(s + len, cap - len,
                              "  out[%u * %d + i] = read_pipe(p%u, &v) ? "
                              "-1 : v;\n",
                              k, ITEMS, k);
  }
  snprintf(s + len, cap - len, "}\n");
  return s;
}

static char *build_log(cl_program p, cl_device_id dev) {
  size_t size = 0;
  REQUIRE_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL,
                                   &size));
  char *log = malloc(size + 1);
  REQUIRE_OK(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, size, log,
                                   NULL));
  log[size] = '\0';
  return log;
}

/* max pipes: both kernels build, and each pipe carries its own packets. */
static void at_limit(test_env *env, unsigned max) {
  char *w = pipe_kernel("writer", "write_only", max);
  char *r = pipe_kernel("reader", "read_only", max);
  size_t lw = strlen(w), lr = strlen(r);
  char *src = malloc(lw + lr + 1);
  memcpy(src, w, lw);
  memcpy(src + lw, r, lr + 1);
  cl_program prog = test_build(env, src, "-cl-std=CL2.0");
  cl_int err;
  cl_kernel kw = clCreateKernel(prog, "writer", &err);
  REQUIRE_OK(err);
  cl_kernel kr = clCreateKernel(prog, "reader", &err);
  REQUIRE_OK(err);
  cl_uint nargs = 0;
  REQUIRE_OK(clGetKernelInfo(kw, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs,
                             NULL));
  CHECK_EQ(nargs, max + 1);
  cl_mem *pipes = calloc(max, sizeof *pipes);
  for (unsigned k = 0; k < max; k++) {
    pipes[k] = clCreatePipe(env->context, 0, sizeof(cl_int), ITEMS, NULL,
                            &err);
    REQUIRE_OK(err);
    REQUIRE_OK(clSetKernelArg(kw, k, sizeof(cl_mem), &pipes[k]));
    REQUIRE_OK(clSetKernelArg(kr, k, sizeof(cl_mem), &pipes[k]));
  }
  cl_mem out = test_buffer(env, sizeof(cl_int) * ITEMS * max, NULL);
  REQUIRE_OK(clSetKernelArg(kw, max, sizeof out, &out));
  REQUIRE_OK(clSetKernelArg(kr, max, sizeof out, &out));
  size_t global = ITEMS;
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, kw, 1, NULL, &global, NULL,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, kr, 1, NULL, &global, NULL,
                                    0, NULL, NULL));
  cl_int *got = malloc(sizeof(cl_int) * ITEMS * max);
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0,
                                 sizeof(cl_int) * ITEMS * max, got, 0, NULL,
                                 NULL));
  /* The work-items of one pipe may read in any order: each value
   * k * 1000 + i must come out of pipe k exactly once. */
  for (unsigned k = 0; k < max; k++) {
    int seen[ITEMS] = {0};
    for (int i = 0; i < ITEMS; i++) {
      int v = got[k * ITEMS + i];
      int item = v - (int)k * 1000;
      if (item >= 0 && item < ITEMS)
        seen[item]++;
      else
        CHECK_EQ(v, (int)k * 1000 + i); /* prints the stray value */
    }
    for (int i = 0; i < ITEMS; i++)
      CHECK_EQ(seen[i], 1);
  }
  free(got);
  clReleaseMemObject(out);
  for (unsigned k = 0; k < max; k++)
    clReleaseMemObject(pipes[k]);
  free(pipes);
  clReleaseKernel(kw);
  clReleaseKernel(kr);
  clReleaseProgram(prog);
  free(src);
  free(w);
  free(r);
}

/* max + 1 pipes: the build fails, the log says why. */
static void over_limit(test_env *env, unsigned max) {
  char *src = pipe_kernel("too_many", "read_only", max + 1);
  cl_int err;
  const char *s = src;
  cl_program prog =
      clCreateProgramWithSource(env->context, 1, &s, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clBuildProgram(prog, 1, &env->device, "-cl-std=CL2.0", NULL,
                          NULL),
           CL_BUILD_PROGRAM_FAILURE);
  cl_build_status st = CL_BUILD_NONE;
  REQUIRE_OK(clGetProgramBuildInfo(prog, env->device,
                                   CL_PROGRAM_BUILD_STATUS, sizeof st, &st,
                                   NULL));
  CHECK_EQ(st, CL_BUILD_ERROR);
  char *log = build_log(prog, env->device);
  CHECK(strstr(log, "too_many") != NULL);
  CHECK(strstr(log, "CL_DEVICE_MAX_PIPE_ARGS") != NULL);
  free(log);
  /* No kernel can be made of the failed program. */
  CHECK(clCreateKernel(prog, "too_many", &err) == NULL);
  CHECK_EQ(err, CL_INVALID_PROGRAM_EXECUTABLE);
  clReleaseProgram(prog);

  /* Compiling alone does not check (a compiled object has no kernels to
   * run yet); linking it into an executable does. */
  prog = clCreateProgramWithSource(env->context, 1, &s, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clCompileProgram(prog, 1, &env->device, "-cl-std=CL2.0", 0,
                              NULL, NULL, NULL, NULL));
  cl_program linked = clLinkProgram(env->context, 1, &env->device, "", 1,
                                    &prog, NULL, NULL, &err);
  CHECK_EQ(err, CL_LINK_PROGRAM_FAILURE);
  if (linked) {
    log = build_log(linked, env->device);
    CHECK(strstr(log, "CL_DEVICE_MAX_PIPE_ARGS") != NULL);
    free(log);
    clReleaseProgram(linked);
  }
  clReleaseProgram(prog);
  free(src);
}

int main(void) {
  test_env env;
  test_setup(&env);
  cl_uint max = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_PIPE_ARGS,
                             sizeof max, &max, NULL));
  CHECK_EQ(max, 16); /* the FULL_PROFILE minimum */
  at_limit(&env, max);
  over_limit(&env, max);
  test_teardown(&env);
  return test_finish("test-pipe-limits");
}
