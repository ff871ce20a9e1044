/* This file tests program objects through the ICD loader: builds that
 * succeed and fail (with their status, options and log), -D and -I,
 * binaries round-tripped through clCreateProgramWithBinary and run, and
 * the error code of every bad argument of the program entry points. */
/* clSetProgramReleaseCallback is deprecated by 3.0; its errors are still
 * tested. */
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS
#include "test_util.h"
#include <stdlib.h>
#include <unistd.h>

static test_env env;

static const char *fill_src =
    "kernel void fill(global int *out, int base) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = base + VALUE * (int)i;\n"
    "}\n"
    "kernel void other(global int *out) { out[0] = 1; }\n";

/* Runs kernel `fill` of p over n items and checks out[i] == base + k*i. */
static void run_fill(cl_program p, int base, int k) {
  enum { N = 100 };
  cl_int err;
  cl_kernel kern = clCreateKernel(p, "fill", &err);
  REQUIRE_OK(err);
  cl_mem buf = clCreateBuffer(env.context, CL_MEM_READ_WRITE, N * sizeof(int),
                              NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(kern, 0, sizeof buf, &buf));
  REQUIRE_OK(clSetKernelArg(kern, 1, sizeof base, &base));
  size_t global = N;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, kern, 1, NULL, &global, NULL,
                                    0, NULL, NULL));
  int out[N];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, buf, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != base + k * i;
  CHECK_EQ(bad, 0);
  clReleaseMemObject(buf);
  clReleaseKernel(kern);
}

static void get_string(cl_program p, cl_program_build_info what, char *buf,
                       size_t size) {
  buf[0] = '\0';
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, what, size, buf, NULL));
}

static int notify_calls;
static void CL_CALLBACK notify(cl_program p, void *user_data) {
  (void)p;
  CHECK(user_data == &notify_calls);
  notify_calls++;
}

static void test_build_success(void) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(env.context, 1, &fill_src, NULL,
                                           &err);
  REQUIRE_OK(err);
  cl_build_status st = 0;
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_STATUS,
                                   sizeof st, &st, NULL));
  CHECK_EQ(st, CL_BUILD_NONE);
  size_t nk;
  CHECK_EQ(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL),
           CL_INVALID_PROGRAM_EXECUTABLE);
  CHECK_EQ(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, 0, NULL, NULL),
           CL_INVALID_PROGRAM_EXECUTABLE);
  clCreateKernel(p, "fill", &err);
  CHECK_EQ(err, CL_INVALID_PROGRAM_EXECUTABLE);

  const char *opts = "-DVALUE=3 -cl-mad-enable";
  REQUIRE_OK(clBuildProgram(p, 1, &env.device, opts, notify, &notify_calls));
  CHECK_EQ(notify_calls, 1);
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_STATUS,
                                   sizeof st, &st, NULL));
  CHECK_EQ(st, CL_BUILD_SUCCESS);
  char buf[4096];
  get_string(p, CL_PROGRAM_BUILD_OPTIONS, buf, sizeof buf);
  CHECK(strcmp(buf, opts) == 0);
  size_t log_size = 0;
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, 0,
                                   NULL, &log_size));
  CHECK(log_size >= 1);
  cl_program_binary_type bt = 0;
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BINARY_TYPE,
                                   sizeof bt, &bt, NULL));
  CHECK_EQ(bt, CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  size_t gvs = 99;
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device,
                                   CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                                   sizeof gvs, &gvs, NULL));
  CHECK_EQ(gvs, 0);
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL));
  CHECK_EQ(nk, 2);
  get_string(p, CL_PROGRAM_BUILD_OPTIONS, buf, sizeof buf);
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof buf, buf,
                              NULL));
  CHECK(strcmp(buf, "fill;other") == 0 || strcmp(buf, "other;fill") == 0);
  run_fill(p, 7, 3);

  /* Rebuilding with a kernel attached is refused; without, it works and
   * the new options take effect. */
  cl_kernel k = clCreateKernel(p, "other", &err);
  REQUIRE_OK(err);
  CHECK_EQ(clBuildProgram(p, 0, NULL, "-DVALUE=5", NULL, NULL),
           CL_INVALID_OPERATION);
  clReleaseKernel(k);
  REQUIRE_OK(clBuildProgram(p, 0, NULL, "-DVALUE=5", NULL, NULL));
  run_fill(p, -2, 5);
  clReleaseProgram(p);
}

static void test_build_failure(void) {
  const char *src = "kernel void f(global int *o) {\n"
                    "  o[0] = 1;\n"
                    "  o[1] = undeclared_thing;\n"
                    "}\n";
  cl_int err;
  cl_program p = clCreateProgramWithSource(env.context, 1, &src, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clBuildProgram(p, 1, &env.device, NULL, NULL, NULL),
           CL_BUILD_PROGRAM_FAILURE);
  cl_build_status st = 0;
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_STATUS,
                                   sizeof st, &st, NULL));
  CHECK_EQ(st, CL_BUILD_ERROR);
  char log[8192];
  get_string(p, CL_PROGRAM_BUILD_LOG, log, sizeof log);
  CHECK(strstr(log, ":3:") != NULL);
  CHECK(strstr(log, "undeclared_thing") != NULL);
  CHECK(strstr(log, "error") != NULL);
  clCreateKernel(p, "f", &err);
  CHECK_EQ(err, CL_INVALID_PROGRAM_EXECUTABLE);
  CHECK_EQ(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, 0, NULL, NULL),
           CL_INVALID_PROGRAM_EXECUTABLE);

  /* A bad option. */
  CHECK_EQ(clBuildProgram(p, 0, NULL, "-cl-no-such-option", NULL, NULL),
           CL_INVALID_BUILD_OPTIONS);
  CHECK_EQ(clBuildProgram(p, 0, NULL, "-cl-std=CL9.9", NULL, NULL),
           CL_INVALID_BUILD_OPTIONS);
  clReleaseProgram(p);
}

static void test_include_dir(void) {
  char dir[] = "/tmp/skein-test-program-XXXXXX";
  REQUIRE_OK(mkdtemp(dir) ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  char path[256];
  snprintf(path, sizeof path, "%s/skein_test_header.h", dir);
  FILE *f = fopen(path, "w");
  REQUIRE_OK(f ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  fputs("#define VALUE 11\n", f);
  fclose(f);
  const char *src = "#include \"skein_test_header.h\"\n"
                    "kernel void fill(global int *out, int base) {\n"
                    "  out[get_global_id(0)] = base + VALUE * (int)get_global_id(0);\n"
                    "}\n";
  char opts[300];
  snprintf(opts, sizeof opts, "-I %s", dir);
  cl_program p = test_build(&env, src, opts);
  run_fill(p, 1, 11);
  clReleaseProgram(p);
  snprintf(opts, sizeof opts, "-I%s", dir);
  p = test_build(&env, src, opts);
  run_fill(p, 2, 11);
  clReleaseProgram(p);
  unlink(path);
  rmdir(dir);
}

/* The binary of p as a malloc'd block. */
static unsigned char *get_binary(cl_program p, size_t *size) {
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof *size, size,
                              NULL));
  CHECK(*size > 0);
  unsigned char *bin = malloc(*size);
  unsigned char *bins[1] = {bin};
  size_t ret = 0;
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins,
                              &ret));
  CHECK_EQ(ret, sizeof(unsigned char *));
  /* A NULL entry skips the device. */
  unsigned char *none[1] = {NULL};
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof none, none,
                              NULL));
  CHECK_EQ(clGetProgramInfo(p, CL_PROGRAM_BINARIES, 1, bins, NULL),
           CL_INVALID_VALUE);
  return bin;
}

static void test_binaries(void) {
  cl_program src = test_build(&env, fill_src, "-DVALUE=4");
  size_t size;
  unsigned char *bin = get_binary(src, &size);
  const unsigned char *bins[1] = {bin};
  cl_int status = 1, err;
  cl_program p = clCreateProgramWithBinary(env.context, 1, &env.device, &size,
                                           bins, &status, &err);
  REQUIRE_OK(err);
  CHECK_EQ(status, CL_SUCCESS);
  cl_build_status st = 0;
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_STATUS,
                                   sizeof st, &st, NULL));
  CHECK_EQ(st, CL_BUILD_NONE);
  clCreateKernel(p, "fill", &err);
  CHECK_EQ(err, CL_INVALID_PROGRAM_EXECUTABLE);
  size_t src_size = 0;
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_SOURCE, 0, NULL, &src_size));
  CHECK_EQ(src_size, 1);
  REQUIRE_OK(clBuildProgram(p, 1, &env.device, NULL, NULL, NULL));
  run_fill(p, 100, 4);
  /* The binary of a binary program loads again. */
  size_t size2;
  unsigned char *bin2 = get_binary(p, &size2);
  CHECK_EQ(size2, size);
  free(bin2);
  clReleaseProgram(p);

  /* Corrupt binaries: flipped bytes, truncated, garbage. */
  unsigned char *bad = malloc(size);
  memcpy(bad, bin, size);
  for (size_t i = 0; i < size; i += 7)
    bad[i] ^= 0x5a;
  const unsigned char *badp[1] = {bad};
  status = 1;
  p = clCreateProgramWithBinary(env.context, 1, &env.device, &size, badp,
                                &status, &err);
  CHECK(p == NULL);
  CHECK_EQ(err, CL_INVALID_BINARY);
  CHECK_EQ(status, CL_INVALID_BINARY);
  size_t half = size / 2;
  p = clCreateProgramWithBinary(env.context, 1, &env.device, &half, bins,
                                &status, &err);
  CHECK(p == NULL);
  CHECK_EQ(err, CL_INVALID_BINARY);
  const unsigned char junk[] = "this is not a program binary";
  const unsigned char *junkp[1] = {junk};
  size_t junk_size = sizeof junk;
  p = clCreateProgramWithBinary(env.context, 1, &env.device, &junk_size,
                                junkp, NULL, &err);
  CHECK(p == NULL);
  CHECK_EQ(err, CL_INVALID_BINARY);
  free(bad);

  /* Bad arguments. */
  p = clCreateProgramWithBinary(NULL, 1, &env.device, &size, bins, NULL, &err);
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  p = clCreateProgramWithBinary(env.context, 0, &env.device, &size, bins, NULL,
                                &err);
  CHECK_EQ(err, CL_INVALID_VALUE);
  p = clCreateProgramWithBinary(env.context, 1, NULL, &size, bins, NULL, &err);
  CHECK_EQ(err, CL_INVALID_VALUE);
  cl_device_id bogus = (cl_device_id)env.context;
  p = clCreateProgramWithBinary(env.context, 1, &bogus, &size, bins, NULL,
                                &err);
  CHECK_EQ(err, CL_INVALID_DEVICE);
  p = clCreateProgramWithBinary(env.context, 1, &env.device, NULL, bins, NULL,
                                &err);
  CHECK_EQ(err, CL_INVALID_VALUE);
  p = clCreateProgramWithBinary(env.context, 1, &env.device, &size, NULL,
                                NULL, &err);
  CHECK_EQ(err, CL_INVALID_VALUE);
  size_t zero = 0;
  status = 1;
  p = clCreateProgramWithBinary(env.context, 1, &env.device, &zero, bins,
                                &status, &err);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK_EQ(status, CL_INVALID_VALUE);
  const unsigned char *nullbin[1] = {NULL};
  p = clCreateProgramWithBinary(env.context, 1, &env.device, &size, nullbin,
                                NULL, &err);
  CHECK_EQ(err, CL_INVALID_VALUE);
  free(bin);
  clReleaseProgram(src);
}

static void test_source_args(void) {
  cl_int err;
  const char *parts[3] = {"kernel void fill(global int *out, int base) {",
                          " out[get_global_id(0)] = base + 2 * (int)"
                          "get_global_id(0); }GARBAGE",
                          "\n"};
  /* lengths: an explicit length cuts the second string before GARBAGE;
   * zero entries mean NUL-terminated. */
  size_t lengths[3] = {0, strlen(parts[1]) - 7, 0};
  cl_program p = clCreateProgramWithSource(env.context, 3, parts, lengths,
                                           &err);
  REQUIRE_OK(err);
  char src[512];
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_SOURCE, sizeof src, src, NULL));
  CHECK(strstr(src, "GARBAGE") == NULL);
  CHECK(strstr(src, "base + 2") != NULL);
  REQUIRE_OK(clBuildProgram(p, 0, NULL, NULL, NULL, NULL));
  run_fill(p, 3, 2);

  CHECK(clCreateProgramWithSource(NULL, 1, parts, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  CHECK(clCreateProgramWithSource(env.context, 0, parts, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateProgramWithSource(env.context, 1, NULL, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  const char *withnull[2] = {parts[0], NULL};
  CHECK(clCreateProgramWithSource(env.context, 2, withnull, NULL, &err) ==
        NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);

  /* clBuildProgram argument errors. */
  CHECK_EQ(clBuildProgram(NULL, 0, NULL, NULL, NULL, NULL),
           CL_INVALID_PROGRAM);
  CHECK_EQ(clBuildProgram((cl_program)env.context, 0, NULL, NULL, NULL, NULL),
           CL_INVALID_PROGRAM);
  CHECK_EQ(clBuildProgram(p, 1, NULL, NULL, NULL, NULL), CL_INVALID_VALUE);
  CHECK_EQ(clBuildProgram(p, 0, &env.device, NULL, NULL, NULL),
           CL_INVALID_VALUE);
  cl_device_id bogus = (cl_device_id)env.queue;
  CHECK_EQ(clBuildProgram(p, 1, &bogus, NULL, NULL, NULL), CL_INVALID_DEVICE);
  CHECK_EQ(clBuildProgram(p, 0, NULL, NULL, NULL, &notify_calls),
           CL_INVALID_VALUE);

  /* Info queries. */
  cl_uint refs = 0;
  REQUIRE_OK(clRetainProgram(p));
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof refs,
                              &refs, NULL));
  CHECK_EQ(refs, 2);
  REQUIRE_OK(clReleaseProgram(p));
  cl_context ctx = NULL;
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_CONTEXT, sizeof ctx, &ctx, NULL));
  CHECK(ctx == env.context);
  cl_uint ndev = 0;
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev,
                              NULL));
  CHECK_EQ(ndev, 1);
  cl_device_id dev = NULL;
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_DEVICES, sizeof dev, &dev, NULL));
  CHECK(dev == env.device);
  size_t il_size = 99;
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_IL, 0, NULL, &il_size));
  CHECK_EQ(il_size, 0);
  cl_bool ctors = CL_TRUE;
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT,
                              sizeof ctors, &ctors, NULL));
  CHECK_EQ(ctors, CL_FALSE);
  CHECK_EQ(clGetProgramInfo(p, CL_PROGRAM_CONTEXT, 1, &ctx, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetProgramInfo(p, 0x7777, sizeof ctx, &ctx, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetProgramInfo(NULL, CL_PROGRAM_CONTEXT, sizeof ctx, &ctx, NULL),
           CL_INVALID_PROGRAM);
  cl_build_status st;
  CHECK_EQ(clGetProgramBuildInfo(p, bogus, CL_PROGRAM_BUILD_STATUS, sizeof st,
                                 &st, NULL),
           CL_INVALID_DEVICE);
  CHECK_EQ(clGetProgramBuildInfo(p, env.device, 0x7777, sizeof st, &st, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetProgramBuildInfo(NULL, env.device, CL_PROGRAM_BUILD_STATUS,
                                 sizeof st, &st, NULL),
           CL_INVALID_PROGRAM);
  CHECK_EQ(clRetainProgram(NULL), CL_INVALID_PROGRAM);
  CHECK_EQ(clReleaseProgram(NULL), CL_INVALID_PROGRAM);

  /* Entry points for features Skein's device lacks. */
  CHECK_EQ(clSetProgramReleaseCallback(p, notify, NULL),
           CL_INVALID_OPERATION);
  CHECK_EQ(clSetProgramReleaseCallback(p, NULL, NULL), CL_INVALID_VALUE);
  CHECK_EQ(clSetProgramReleaseCallback(NULL, notify, NULL),
           CL_INVALID_PROGRAM);
  CHECK_EQ(clUnloadPlatformCompiler(env.platform), CL_SUCCESS);
  /* A SPIR-V magic word alone is not a well-formed module (test-spirv
   * covers IL programs). */
  static const unsigned char il[4] = {0x03, 0x02, 0x23, 0x07};
  CHECK(clCreateProgramWithIL(env.context, il, sizeof il, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateProgramWithIL(env.context, NULL, 4, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateProgramWithIL(NULL, il, sizeof il, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  CHECK(clCreateProgramWithBuiltInKernels(env.context, 1, &env.device, "foo",
                                          &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateProgramWithBuiltInKernels(env.context, 0, NULL, "foo",
                                          &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  clReleaseProgram(p);
}

static void test_compile_link(void) {
  cl_int err;
  const char *hdr_src = "#define VALUE 6\n";
  const char *src = "#include \"inc/defs.h\"\n"
                    "kernel void fill(global int *out, int base) {\n"
                    "  out[get_global_id(0)] = base + VALUE * "
                    "(int)get_global_id(0);\n"
                    "}\n";
  cl_program hdr = clCreateProgramWithSource(env.context, 1, &hdr_src, NULL,
                                             &err);
  REQUIRE_OK(err);
  cl_program p = clCreateProgramWithSource(env.context, 1, &src, NULL, &err);
  REQUIRE_OK(err);
  const char *names[1] = {"inc/defs.h"};
  CHECK_EQ(clCompileProgram(p, 0, NULL, NULL, 1, NULL, names, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clCompileProgram(p, 0, NULL, NULL, 0, &hdr, NULL, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clCompileProgram(p, 0, NULL, "-cl-bogus", 1, &hdr, names, NULL,
                            NULL),
           CL_INVALID_COMPILER_OPTIONS);
  CHECK_EQ(clCompileProgram(NULL, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL),
           CL_INVALID_PROGRAM);
  /* Not compiled yet: nothing to link. */
  CHECK(clLinkProgram(env.context, 0, NULL, NULL, 1, &p, NULL, NULL, &err) ==
        NULL);
  CHECK_EQ(err, CL_INVALID_OPERATION);
  notify_calls = 0;
  REQUIRE_OK(clCompileProgram(p, 1, &env.device, "-cl-std=CL1.2", 1, &hdr,
                              names, notify, &notify_calls));
  CHECK_EQ(notify_calls, 1);
  cl_program_binary_type bt = 0;
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BINARY_TYPE,
                                   sizeof bt, &bt, NULL));
  CHECK_EQ(bt, CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
  clCreateKernel(p, "fill", &err);
  CHECK_EQ(err, CL_INVALID_PROGRAM_EXECUTABLE);

  CHECK(clLinkProgram(env.context, 0, NULL, "-bogus-link", 1, &p, NULL, NULL,
                      &err) == NULL);
  CHECK_EQ(err, CL_INVALID_LINKER_OPTIONS);
  CHECK(clLinkProgram(env.context, 0, NULL, NULL, 0, NULL, NULL, NULL,
                      &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clLinkProgram(NULL, 0, NULL, NULL, 1, &p, NULL, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  cl_program exe = clLinkProgram(env.context, 1, &env.device,
                                 "-cl-fast-relaxed-math", 1, &p, NULL, NULL,
                                 &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clGetProgramBuildInfo(exe, env.device, CL_PROGRAM_BINARY_TYPE,
                                   sizeof bt, &bt, NULL));
  CHECK_EQ(bt, CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  run_fill(exe, 9, 6);
  /* Through a library, after the header program is gone. */
  clReleaseProgram(hdr);
  cl_program lib = clLinkProgram(env.context, 0, NULL, "-create-library", 1,
                                 &p, NULL, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clGetProgramBuildInfo(lib, env.device, CL_PROGRAM_BINARY_TYPE,
                                   sizeof bt, &bt, NULL));
  CHECK_EQ(bt, CL_PROGRAM_BINARY_TYPE_LIBRARY);
  clReleaseProgram(p);
  cl_program exe2 = clLinkProgram(env.context, 0, NULL, NULL, 1, &lib, NULL,
                                  NULL, &err);
  REQUIRE_OK(err);
  run_fill(exe2, -4, 6);
  clReleaseProgram(exe2);
  clReleaseProgram(lib);
  clReleaseProgram(exe);

  /* Source errors surface at link time, with a program to read the log. */
  const char *bad = "kernel void f(global int *o) {\n  o[0] = nope;\n}\n";
  p = clCreateProgramWithSource(env.context, 1, &bad, NULL, &err);
  REQUIRE_OK(err);
  cl_int cerr = clCompileProgram(p, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL);
  CHECK(cerr == CL_SUCCESS || cerr == CL_COMPILE_PROGRAM_FAILURE);
  if (cerr == CL_SUCCESS) {
    exe = clLinkProgram(env.context, 0, NULL, NULL, 1, &p, NULL, NULL, &err);
    CHECK_EQ(err, CL_LINK_PROGRAM_FAILURE);
    CHECK(exe != NULL);
    char log[4096] = "";
    if (exe)
      clGetProgramBuildInfo(exe, env.device, CL_PROGRAM_BUILD_LOG, sizeof log,
                            log, NULL);
    CHECK(strstr(log, ":2:") != NULL);
    if (exe)
      clReleaseProgram(exe);
  }
  clReleaseProgram(p);
}

/* -w silences warnings, -Werror turns them into a build failure. */
static void test_warning_options(void) {
  const char *src = "#warning skein-test-warning\n"
                    "__kernel void k(__global int *o) { o[0] = 1; }\n";
  const char *options[3] = {"", "-w", "-Werror"};
  cl_int expect[3] = {CL_SUCCESS, CL_SUCCESS, CL_BUILD_PROGRAM_FAILURE};
  int warned[3] = {1, 0, 1};
  for (int i = 0; i < 3; i++) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(env.context, 1, &src, NULL, &err);
    REQUIRE_OK(err);
    CHECK_EQ(clBuildProgram(p, 1, &env.device, options[i], NULL, NULL),
             expect[i]);
    char log[4096];
    get_string(p, CL_PROGRAM_BUILD_LOG, log, sizeof log);
    CHECK_EQ(strstr(log, "skein-test-warning") != NULL, warned[i]);
    clReleaseProgram(p);
  }
}

int main(void) {
  test_setup(&env);
  test_warning_options();
  test_build_success();
  test_build_failure();
  test_include_dir();
  test_binaries();
  test_source_args();
  test_compile_link();
  test_teardown(&env);
  return test_finish("program");
}
