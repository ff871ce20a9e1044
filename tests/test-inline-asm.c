/* Tests inline assembly in OpenCL C kernels (a GNU extension Clang takes
 * for the host target): x86-64 statements with register operands give
 * the host's results in every mode the kernel runs in, and assembly the
 * assembler rejects (an unknown mnemonic, a bad operand), or that the
 * front end rejects (an operand number out of range), fails the build
 * with CL_BUILD_PROGRAM_FAILURE and the reason in the log, leaving the
 * process and later builds unharmed; in a program of two kernels (a
 * split build) the bad kernel fails the build or its clCreateKernel,
 * never runs. Before the JIT registered the
 * target's assembly parser, any asm statement stopped LLVM with a fatal
 * error. */
#include "test_util.h"
#include <stdint.h>

#if defined(__x86_64__)
static const char good_src[] =
    "kernel void add_swap(global const uint *a, global const uint *b,\n"
    "                     global uint *sum, global uint *swapped) {\n"
    "  size_t i = get_global_id(0);\n"
    "  uint x = a[i];\n"
    "  __asm__(\"addl %1, %0\" : \"+r\"(x) : \"r\"(b[i]));\n"
    "  sum[i] = x;\n"
    "  uint y = a[i];\n"
    "  __asm__ volatile(\"bswapl %0\" : \"+r\"(y));\n"
    "  swapped[i] = y;\n"
    "}\n"
    /* A barrier kernel: region or fiber mode. */
    "kernel void rotate(global uint *a, local uint *s) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  uint v = a[get_global_id(0)];\n"
    "  __asm__(\"roll $3, %0\" : \"+r\"(v));\n"
    "  s[l] = v;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  a[get_global_id(0)] = s[(l + 1) % n];\n"
    "}\n";

static uint32_t rotl3(uint32_t v) { return v << 3 | v >> 29; }

static void test_good(test_env *env) {
  enum { N = 256, L = 64 };
  uint32_t a[N], b[N], sum[N], swapped[N];
  for (int i = 0; i < N; i++) {
    a[i] = (uint32_t)test_rand();
    b[i] = (uint32_t)test_rand();
  }
  cl_program p = test_build(env, good_src, "");
  cl_mem m[4] = {test_buffer(env, sizeof a, a), test_buffer(env, sizeof b, b),
                 test_buffer(env, sizeof sum, NULL),
                 test_buffer(env, sizeof swapped, NULL)};
  test_run_1d(env, p, "add_swap", N, m, 4);
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, m[2], CL_TRUE, 0, sizeof sum,
                                 sum, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, m[3], CL_TRUE, 0,
                                 sizeof swapped, swapped, 0, NULL, NULL));
  for (int i = 0; i < N; i++) {
    CHECK_EQ(sum[i], (uint32_t)(a[i] + b[i]));
    CHECK_EQ(swapped[i], __builtin_bswap32(a[i]));
  }

  cl_int err;
  cl_kernel k = clCreateKernel(p, "rotate", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof m[0], &m[0]));
  REQUIRE_OK(clSetKernelArg(k, 1, L * sizeof(cl_uint), NULL));
  size_t global = N, local = L;
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  uint32_t r[N];
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, m[0], CL_TRUE, 0, sizeof r, r,
                                 0, NULL, NULL));
  for (int i = 0; i < N; i++)
    CHECK_EQ(r[i], rotl3(a[i / L * L + (i % L + 1) % L]));
  clReleaseKernel(k);
  test_release_buffers(m, 4);
  clReleaseProgram(p);
}
#endif

/* Builds src, expecting CL_BUILD_PROGRAM_FAILURE with want in the log. */
static void expect_failure(test_env *env, const char *src, const char *want) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clBuildProgram(p, 1, &env->device, "", NULL, NULL),
           CL_BUILD_PROGRAM_FAILURE);
  size_t size = 0;
  REQUIRE_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, 0,
                                   NULL, &size));
  char *log = malloc(size + 1);
  REQUIRE_OK(clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG,
                                   size, log, NULL));
  log[size] = '\0';
  if (!strstr(log, want)) {
    fprintf(stderr, "log lacks \"%s\":\n%s\n", want, log);
    CHECK(strstr(log, want) != NULL);
  }
  free(log);
  clReleaseProgram(p);
}

/* A program of two kernels, one with bad assembly: a split build (one
 * module per kernel, compiled when a kernel is first made) may build the
 * program and fail that kernel at clCreateKernel instead; either way the
 * bad kernel never runs, and no other error comes back. */
static void test_bad_in_split(test_env *env) {
  const char *src =
      "kernel void fine(global int *a) { a[0] = 1; }\n"
      "kernel void bad(global int *a) {\n"
      "  int x = a[0];\n"
      "  __asm__(\"no_such_instruction %0\" : \"+r\"(x));\n"
      "  a[0] = x;\n"
      "}\n";
  cl_int err;
  cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
  REQUIRE_OK(err);
  err = clBuildProgram(p, 1, &env->device, "", NULL, NULL);
  if (err == CL_SUCCESS) {
    cl_kernel k = clCreateKernel(p, "bad", &err);
    CHECK(k == NULL);
    CHECK(err == CL_OUT_OF_RESOURCES || err == CL_INVALID_PROGRAM_EXECUTABLE);
    if (k)
      clReleaseKernel(k);
  } else {
    CHECK_EQ(err, CL_BUILD_PROGRAM_FAILURE);
  }
  clReleaseProgram(p);
}

int main(void) {
  test_env env;
  test_setup(&env);
  test_seed(29);
  /* The assembler's errors: an unknown mnemonic, an operand the
   * instruction cannot take. */
  expect_failure(&env,
                 "kernel void k(global int *a) {\n"
                 "  int x = a[0];\n"
                 "  __asm__(\"no_such_instruction %0\" : \"+r\"(x));\n"
                 "  a[0] = x;\n"
                 "}\n",
                 "no_such_instruction");
  expect_failure(&env,
                 "kernel void k(global int *a) {\n"
                 "  int x = a[0];\n"
                 "  __asm__(\"movl $1, $2\" : \"+r\"(x));\n"
                 "  a[0] = x;\n"
                 "}\n",
                 "error");
  /* The front end's: no operand 5. */
  expect_failure(&env,
                 "kernel void k(global int *a) {\n"
                 "  int x = a[0];\n"
                 "  __asm__(\"addl %5, %0\" : \"+r\"(x));\n"
                 "  a[0] = x;\n"
                 "}\n",
                 "operand");
  test_bad_in_split(&env);
#if defined(__x86_64__)
  test_good(&env);
#endif
  test_teardown(&env);
  return test_finish("test-inline-asm");
}
