/* This file tests program-scope global variables
 * (__opencl_c_program_scope_global_variables, OpenCL C 2.0) through the
 * ICD loader: initial values of scalars, arrays, structs and a pointer to
 * another global; values persisting across launches and shared by the
 * kernels of one program; a static global local variable; an atomic
 * counter bumped by many work-items; separate copies per program; a fresh
 * copy from clCreateProgramWithBinary; an extern variable shared by two
 * units of clLinkProgram; the device and build queries. Kernels run in
 * the default mode and with SKEIN_MODE=fiber. */
#include "test_util.h"
#include <stdint.h>

static test_env env;

enum { N = 512, GROUP = 64 };

/* Storage of the program-scope variables below: counter 4, arr 16, s 24,
 * gp 8, hits 4, seen 4, calls (static in a kernel) 4. */
#define PROGRAM_VARS_SIZE (4 + 16 + 24 + 8 + 4 + 4 + 4)

static const char source[] =
  "#ifndef __opencl_c_program_scope_global_variables\n"
  "#error no program-scope global variables\n"
  "#endif\n"
  "typedef struct { int a; float b; long c[2]; } S;\n"
  "global int counter = 5;\n"
  "global float arr[4] = {1.5f, 2.5f, 3.5f, 4.5f};\n"
  "global S s = {7, 0.25f, {10, 20}};\n"
  "global int *global gp = &counter;\n"
  "global atomic_int hits = ATOMIC_VAR_INIT(0);\n"
  "global int seen;\n" /* no initialiser: zero */
  "kernel void get(global long *out) {\n"
  "  out[0] = counter; out[1] = (long)(arr[0] * 2); out[2] = (long)(arr[3] * 2);\n"
  "  out[3] = s.a; out[4] = (long)(s.b * 4); out[5] = s.c[0]; out[6] = s.c[1];\n"
  "  out[7] = *gp; out[8] = atomic_load(&hits); out[9] = seen;\n"
  "}\n"
  "kernel void bump(int add) {\n"
  "  size_t i = get_global_id(0);\n"
  "  atomic_fetch_add(&hits, 1);\n"
  "#ifdef BARRIER\n"
  "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
  "#endif\n"
  "  if (i == 0) {\n"
  "    *gp += add; arr[0] += 1.0f; arr[3] *= 2.0f;\n"
  "    s.a -= 1; s.b *= 2.0f; s.c[1] += add; seen = 1;\n"
  "  }\n"
  "}\n"
  "kernel void ticket(global int *out) {\n"
  "  static global int calls = 100;\n"
  "  out[0] = calls++;\n"
  "}\n";

/* The values get reports after `launches` launches of bump(add) over N
 * work-items (and before: launches == 0). */
static void expect(long want[10], int launches, int add) {
  long counter = 5, arr0 = 3, arr3 = 9, a = 7, b = 1, c1 = 20;
  for (int l = 0; l < launches; l++) {
    counter += add;
    arr0 += 2;  /* arr[0] + 1, reported times 2 */
    arr3 *= 2;
    a -= 1;
    b *= 2;
    c1 += add;
  }
  long w[10] = {counter, arr0, arr3, a, b, 10, c1, counter,
                (long)launches * N, launches > 0};
  memcpy(want, w, sizeof w);
}

static void check_get(cl_program p, int launches, int add, const char *what) {
  cl_int err;
  long out[10] = {0}, want[10];
  cl_mem o = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, sizeof out, NULL,
                            &err);
  REQUIRE_OK(err);
  cl_kernel k = clCreateKernel(p, "get", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof o, &o));
  REQUIRE_OK(clEnqueueTask(env.queue, k, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, o, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  expect(want, launches, add);
  for (int i = 0; i < 10; i++)
    if (out[i] != want[i]) {
      fprintf(stderr, "%s: get[%d] = %ld, want %ld\n", what, i, out[i],
              want[i]);
      test_failures++;
    }
  clReleaseKernel(k);
  clReleaseMemObject(o);
}

static void launch_bump(cl_program p, int add) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, "bump", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof add, &add));
  size_t gs = N, ls = GROUP;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &gs, &ls, 0, NULL,
                                    NULL));
  REQUIRE_OK(clFinish(env.queue));
  clReleaseKernel(k);
}

static int ticket(cl_program p) {
  cl_int err;
  int out = -1;
  cl_mem o = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, sizeof out, NULL,
                            &err);
  REQUIRE_OK(err);
  cl_kernel k = clCreateKernel(p, "ticket", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof o, &o));
  REQUIRE_OK(clEnqueueTask(env.queue, k, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, o, CL_TRUE, 0, sizeof out, &out,
                                 0, NULL, NULL));
  clReleaseKernel(k);
  clReleaseMemObject(o);
  return out;
}

/* A program made from p's binary (built: a fresh copy of the variables). */
static cl_program from_binary(cl_program p) {
  size_t size = 0;
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size,
                              NULL));
  unsigned char *bin = malloc(size);
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin,
                              NULL));
  cl_int err, status;
  const unsigned char *cbin = bin;
  cl_program q = clCreateProgramWithBinary(env.context, 1, &env.device, &size,
                                           &cbin, &status, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(status);
  REQUIRE_OK(clBuildProgram(q, 1, &env.device, NULL, NULL, NULL));
  free(bin);
  return q;
}

static void test_program(const char *options) {
  cl_program a = test_build(&env, source, options);
  cl_program b = test_build(&env, source, options);
  check_get(a, 0, 0, "initial");
  launch_bump(a, 3);
  check_get(a, 1, 3, "after one launch");
  launch_bump(a, 3);
  check_get(a, 2, 3, "after two launches");
  check_get(b, 0, 0, "second program");
  launch_bump(b, -4);
  check_get(b, 1, -4, "second program, bumped");
  check_get(a, 2, 3, "first program, unchanged");
  CHECK_EQ(ticket(a), 100);
  CHECK_EQ(ticket(a), 101);
  CHECK_EQ(ticket(b), 100);
  cl_program c = from_binary(a);
  check_get(c, 0, 0, "from binary");
  CHECK_EQ(ticket(c), 100);
  launch_bump(c, 1);
  check_get(c, 1, 1, "from binary, bumped");
  check_get(a, 2, 3, "first program after the binary's");
  size_t total = 0;
  REQUIRE_OK(clGetProgramBuildInfo(a, env.device,
                                   CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                                   sizeof total, &total, NULL));
  CHECK_EQ(total, PROGRAM_VARS_SIZE);
  REQUIRE_OK(clGetProgramBuildInfo(c, env.device,
                                   CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                                   sizeof total, &total, NULL));
  CHECK_EQ(total, PROGRAM_VARS_SIZE);
  clReleaseProgram(a);
  clReleaseProgram(b);
  clReleaseProgram(c);
}

/* Two compiled units sharing one variable: the definition in one, an
 * extern declaration in the other. */
static void test_link(void) {
  static const char unit_def[] =
    "global int shared_x = 42;\n"
    "kernel void set_x(int v) { shared_x = v; }\n";
  static const char unit_use[] =
    "extern global int shared_x;\n"
    "kernel void get_x(global int *out) { out[0] = shared_x; }\n";
  const char *srcs[2] = {unit_def, unit_use};
  cl_program units[2];
  cl_int err;
  for (int i = 0; i < 2; i++) {
    units[i] = clCreateProgramWithSource(env.context, 1, &srcs[i], NULL,
                                         &err);
    REQUIRE_OK(err);
    REQUIRE_OK(clCompileProgram(units[i], 1, &env.device, "-cl-std=CL3.0", 0,
                                NULL, NULL, NULL, NULL));
  }
  cl_program p = clLinkProgram(env.context, 1, &env.device, NULL, 2, units,
                               NULL, NULL, &err);
  REQUIRE_OK(err);
  int out = -1;
  cl_mem o = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, sizeof out, NULL,
                            &err);
  REQUIRE_OK(err);
  cl_kernel get = clCreateKernel(p, "get_x", &err);
  REQUIRE_OK(err);
  cl_kernel set = clCreateKernel(p, "set_x", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(get, 0, sizeof o, &o));
  REQUIRE_OK(clEnqueueTask(env.queue, get, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, o, CL_TRUE, 0, sizeof out, &out,
                                 0, NULL, NULL));
  CHECK_EQ(out, 42);
  int v = 9;
  REQUIRE_OK(clSetKernelArg(set, 0, sizeof v, &v));
  REQUIRE_OK(clEnqueueTask(env.queue, set, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueTask(env.queue, get, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, o, CL_TRUE, 0, sizeof out, &out,
                                 0, NULL, NULL));
  CHECK_EQ(out, 9);
  clReleaseKernel(get);
  clReleaseKernel(set);
  clReleaseMemObject(o);
  clReleaseProgram(p);
  clReleaseProgram(units[0]);
  clReleaseProgram(units[1]);
}

static void test_queries(void) {
  size_t max = 0, preferred = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE,
                             sizeof max, &max, NULL));
  REQUIRE_OK(clGetDeviceInfo(env.device,
                             CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE,
                             sizeof preferred, &preferred, NULL));
  /* The OpenCL 3.0 minimum with the feature: 64 KB. */
  CHECK(max >= 65536);
  CHECK(preferred > 0);
  CHECK_EQ(test_c_feature_count(
               &env, "__opencl_c_program_scope_global_variables", 0),
           1);
}

int main(void) {
  test_setup(&env);
  test_queries();
  test_program("-cl-std=CL3.0");
  test_program("-cl-std=CL2.0 -DBARRIER");
  setenv("SKEIN_MODE", "fiber", 1);
  test_program("-cl-std=CL3.0");
  unsetenv("SKEIN_MODE");
  test_link();
  test_teardown(&env);
  return test_finish("program-globals");
}
