/* This file contains the tests of separate compilation and linking:
 * clCompileProgram with embedded headers, clLinkProgram of several
 * compiled objects and libraries with calls across units, binary round
 * trips of objects and libraries, and the link errors with their codes
 * and build logs. */
#include "test_util.h"

static test_env env;

static int notify_calls;
static void CL_CALLBACK notify(cl_program p, void *user_data) {
  CHECK(p != NULL);
  CHECK(user_data == &notify_calls);
  notify_calls++;
}

static cl_program source(const char *text) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(env.context, 1, &text, NULL, &err);
  REQUIRE_OK(err);
  return p;
}

/* A compiled object of text (exits on failure, printing the log). */
static cl_program compiled(const char *text, const char *options) {
  cl_program p = source(text);
  cl_int err = clCompileProgram(p, 1, &env.device, options, 0, NULL, NULL,
                                NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[4096] = "";
    clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, sizeof log,
                          log, NULL);
    fprintf(stderr, "compile failed (%d):\n%s\n", err, log);
    exit(1);
  }
  return p;
}

static cl_program_binary_type binary_type(cl_program p) {
  cl_program_binary_type t = 0xdead;
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BINARY_TYPE,
                                   sizeof t, &t, NULL));
  return t;
}

static cl_build_status build_status(cl_program p) {
  cl_build_status s = 1;
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_STATUS,
                                   sizeof s, &s, NULL));
  return s;
}

static void get_log(cl_program p, char *buf, size_t size) {
  buf[0] = '\0';
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG,
                                   size, buf, NULL));
}

/* Runs kernel name of p over n ints: out[i] = f(i, arg). */
static void run(cl_program p, const char *name, int arg, int *out, size_t n) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  cl_mem buf = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY,
                              n * sizeof(int), NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof buf, &buf));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof arg, &arg));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &n, NULL, 0, NULL,
                                    NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, buf, CL_TRUE, 0, n * sizeof(int),
                                 out, 0, NULL, NULL));
  clReleaseMemObject(buf);
  clReleaseKernel(k);
}

/* Three units: a kernel calling into two others, one of which calls the
 * third (extern declarations only). */
static const char *unit_a =
    "int square(int x);\n"
    "int poly(int x, int c);\n"
    "kernel void compute(global int *out, int c) {\n"
    "  int i = (int)get_global_id(0);\n"
    "  out[i] = poly(i, c) + square(i);\n"
    "}\n";
static const char *unit_b =
    "int square(int x);\n"
    "int poly(int x, int c) { return 3 * square(x) - x + c; }\n";
static const char *unit_c = "int square(int x) { return x * x; }\n";

static int expect_compute(int i, int c) { return 3 * i * i - i + c + i * i; }

static void check_compute(cl_program exe, int c) {
  int out[64];
  run(exe, "compute", c, out, 64);
  int bad = 0;
  for (int i = 0; i < 64; i++)
    bad += out[i] != expect_compute(i, c);
  CHECK_EQ(bad, 0);
}

static void test_three_units(void) {
  cl_program in[3] = {compiled(unit_a, NULL), compiled(unit_b, "-w"),
                      compiled(unit_c, "-cl-std=CL1.2")};
  for (int i = 0; i < 3; i++) {
    CHECK_EQ(binary_type(in[i]), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
    CHECK_EQ(build_status(in[i]), CL_BUILD_SUCCESS);
  }
  /* Not an executable: no kernels yet. */
  cl_int err;
  clCreateKernel(in[0], "compute", &err);
  CHECK_EQ(err, CL_INVALID_PROGRAM_EXECUTABLE);
  size_t nk;
  CHECK_EQ(clGetProgramInfo(in[0], CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk,
                            NULL),
           CL_INVALID_PROGRAM_EXECUTABLE);
  notify_calls = 0;
  cl_program exe = clLinkProgram(env.context, 1, &env.device, NULL, 3, in,
                                 notify, &notify_calls, &err);
  REQUIRE_OK(err);
  CHECK_EQ(notify_calls, 1);
  CHECK_EQ(binary_type(exe), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  CHECK_EQ(build_status(exe), CL_BUILD_SUCCESS);
  REQUIRE_OK(clGetProgramInfo(exe, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk,
                              NULL));
  CHECK_EQ(nk, 1);
  check_compute(exe, 7);
  /* Input order does not matter. */
  cl_program rev[3] = {in[2], in[0], in[1]};
  cl_program exe2 = clLinkProgram(env.context, 0, NULL, NULL, 3, rev, NULL,
                                  NULL, &err);
  REQUIRE_OK(err);
  check_compute(exe2, -5);
  clReleaseProgram(exe2);
  clReleaseProgram(exe);
  for (int i = 0; i < 3; i++)
    clReleaseProgram(in[i]);
}

/* A kernel in the second unit, a helper in the first; each unit may hold
 * kernels. */
static void test_kernel_in_second_unit(void) {
  cl_program in[2] = {
      compiled("int twice(int x) { return 2 * x; }\n"
               "kernel void first(global int *o, int a) {\n"
               "  o[get_global_id(0)] = a;\n"
               "}\n", NULL),
      compiled("int twice(int x);\n"
               "kernel void second(global int *o, int a) {\n"
               "  int i = (int)get_global_id(0);\n"
               "  o[i] = twice(i) + a;\n"
               "}\n", NULL)};
  cl_int err;
  cl_program exe = clLinkProgram(env.context, 0, NULL, NULL, 2, in, NULL,
                                 NULL, &err);
  REQUIRE_OK(err);
  char names[128] = "";
  REQUIRE_OK(clGetProgramInfo(exe, CL_PROGRAM_KERNEL_NAMES, sizeof names,
                              names, NULL));
  CHECK(strstr(names, "first") && strstr(names, "second"));
  int out[32];
  run(exe, "second", 100, out, 32);
  int bad = 0;
  for (int i = 0; i < 32; i++)
    bad += out[i] != 2 * i + 100;
  CHECK_EQ(bad, 0);
  run(exe, "first", -3, out, 32);
  CHECK_EQ(out[31], -3);
  clReleaseProgram(exe);
  clReleaseProgram(in[0]);
  clReleaseProgram(in[1]);
}

/* Embedded headers, with folders in their names, and compile options. */
static void test_headers(void) {
  cl_program h1 = source("#define SCALE 5\n#include \"inner.h\"\n");
  cl_program h2 = source("#define OFFSET (BASE + 1)\n");
  cl_program h3 = source("int scale_it(int x);\n");
  const char *names[3] = {"dir/defs.h", "dir/inner.h", "proto.h"};
  cl_program hdrs[3] = {h1, h2, h3};
  cl_program p = source("#include \"dir/defs.h\"\n"
                        "#include <proto.h>\n"
                        "int scale_it(int x) { return SCALE * x + OFFSET; }\n"
                        "kernel void k(global int *o, int a) {\n"
                        "  o[get_global_id(0)] = scale_it(a);\n"
                        "}\n");
  notify_calls = 0;
  REQUIRE_OK(clCompileProgram(p, 1, &env.device, "-DBASE=10 -Werror", 3, hdrs,
                              names, notify, &notify_calls));
  CHECK_EQ(notify_calls, 1);
  char opts[64] = "";
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_OPTIONS,
                                   sizeof opts, opts, NULL));
  CHECK(strcmp(opts, "-DBASE=10 -Werror") == 0);
  /* The headers may go once compiled: the object holds everything. */
  clReleaseProgram(h1);
  clReleaseProgram(h2);
  clReleaseProgram(h3);
  cl_int err;
  cl_program exe = clLinkProgram(env.context, 0, NULL, NULL, 1, &p, NULL,
                                 NULL, &err);
  REQUIRE_OK(err);
  int out[4];
  run(exe, "k", 3, out, 4);
  CHECK_EQ(out[0], 5 * 3 + 11);
  clReleaseProgram(exe);

  /* Without the header the compile fails with a log naming it. */
  cl_program q = source("#include \"dir/defs.h\"\nint f(void) { return 1; }\n");
  CHECK_EQ(clCompileProgram(q, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL),
           CL_COMPILE_PROGRAM_FAILURE);
  CHECK_EQ(build_status(q), CL_BUILD_ERROR);
  char log[4096];
  get_log(q, log, sizeof log);
  CHECK(strstr(log, "dir/defs.h") != NULL);
  CHECK_EQ(binary_type(q), CL_PROGRAM_BINARY_TYPE_NONE);
  clReleaseProgram(q);
  /* -Werror turns a warning into a compile failure. */
  q = source("int f(int x) { if (x) return 1; }\n");
  CHECK_EQ(clCompileProgram(q, 0, NULL, "-Werror", 0, NULL, NULL, NULL, NULL),
           CL_COMPILE_PROGRAM_FAILURE);
  REQUIRE_OK(clCompileProgram(q, 0, NULL, "-w", 0, NULL, NULL, NULL, NULL));
  clReleaseProgram(q);
  clReleaseProgram(p);
}

/* Reads p's one binary (malloc'd). */
static unsigned char *get_binary(cl_program p, size_t *size) {
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof *size, size,
                              NULL));
  CHECK(*size > 0);
  unsigned char *bin = malloc(*size);
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin,
                              NULL));
  return bin;
}

static cl_program from_binary(const unsigned char *bin, size_t size) {
  cl_int err, status = 1;
  cl_program p = clCreateProgramWithBinary(env.context, 1, &env.device, &size,
                                           &bin, &status, &err);
  REQUIRE_OK(err);
  CHECK_EQ(status, CL_SUCCESS);
  return p;
}

/* Libraries, linking a library with an object, and binary round trips
 * of objects and libraries. */
static void test_library_and_binaries(void) {
  cl_program b = compiled(unit_b, NULL), c = compiled(unit_c, NULL);
  cl_program bc[2] = {b, c};
  cl_int err;
  notify_calls = 0;
  cl_program lib = clLinkProgram(env.context, 1, &env.device,
                                 "-create-library -enable-link-options", 2,
                                 bc, notify, &notify_calls, &err);
  REQUIRE_OK(err);
  CHECK_EQ(notify_calls, 1);
  CHECK_EQ(binary_type(lib), CL_PROGRAM_BINARY_TYPE_LIBRARY);
  CHECK_EQ(build_status(lib), CL_BUILD_SUCCESS);
  char opts[64] = "";
  REQUIRE_OK(clGetProgramBuildInfo(lib, env.device, CL_PROGRAM_BUILD_OPTIONS,
                                   sizeof opts, opts, NULL));
  CHECK(strcmp(opts, "-create-library -enable-link-options") == 0);
  clCreateKernel(lib, "compute", &err);
  CHECK_EQ(err, CL_INVALID_PROGRAM_EXECUTABLE);

  /* Object round trip: the binary of a compiled object loads back as a
   * compiled object and links. */
  cl_program a = compiled(unit_a, NULL);
  size_t asize, lsize;
  unsigned char *abin = get_binary(a, &asize);
  unsigned char *lbin = get_binary(lib, &lsize);
  cl_program a2 = from_binary(abin, asize);
  cl_program lib2 = from_binary(lbin, lsize);
  CHECK_EQ(binary_type(a2), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
  CHECK_EQ(binary_type(lib2), CL_PROGRAM_BINARY_TYPE_LIBRARY);
  /* A library round trip gives the same bytes back. */
  size_t l2size;
  unsigned char *l2bin = get_binary(lib2, &l2size);
  CHECK(l2size == lsize && memcmp(l2bin, lbin, lsize) == 0);

  cl_program in[2] = {a2, lib2};
  cl_program exe = clLinkProgram(env.context, 0, NULL, "-cl-fast-relaxed-math",
                                 2, in, NULL, NULL, &err);
  REQUIRE_OK(err);
  check_compute(exe, 11);
  /* The executable round-trips too. */
  size_t esize;
  unsigned char *ebin = get_binary(exe, &esize);
  cl_program exe2 = from_binary(ebin, esize);
  CHECK_EQ(binary_type(exe2), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  REQUIRE_OK(clBuildProgram(exe2, 0, NULL, NULL, NULL, NULL));
  check_compute(exe2, 2);
  /* A library inside a library, then with the object of the original. */
  cl_program lib3 = clLinkProgram(env.context, 0, NULL, "-create-library", 1,
                                  &lib2, NULL, NULL, &err);
  REQUIRE_OK(err);
  cl_program in2[2] = {lib3, a};
  cl_program exe3 = clLinkProgram(env.context, 0, NULL, NULL, 2, in2, NULL,
                                  NULL, &err);
  REQUIRE_OK(err);
  check_compute(exe3, 0);
  /* clBuildProgram of a compiled-object binary that needs nothing else. */
  cl_program solo = compiled("kernel void k(global int *o, int a) {\n"
                             "  o[get_global_id(0)] = a * 2;\n}\n", NULL);
  size_t ssize;
  unsigned char *sbin = get_binary(solo, &ssize);
  cl_program solo2 = from_binary(sbin, ssize);
  REQUIRE_OK(clBuildProgram(solo2, 0, NULL, NULL, NULL, NULL));
  CHECK_EQ(binary_type(solo2), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  int out[2];
  run(solo2, "k", 21, out, 2);
  CHECK_EQ(out[1], 42);
  /* A corrupted object binary is refused on load. */
  sbin[ssize / 2] ^= 0x55;
  cl_int status;
  const unsigned char *bad = sbin;
  CHECK(clCreateProgramWithBinary(env.context, 1, &env.device, &ssize, &bad,
                                  &status, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_BINARY);
  free(sbin);
  free(abin);
  free(lbin);
  free(l2bin);
  free(ebin);
  cl_program all[] = {solo, solo2, exe3, lib3, exe2, exe, a2, lib2, a, lib,
                      b, c};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    clReleaseProgram(all[i]);
}

/* A failed link returns the program, whose log says why. */
static void expect_link_failure(cl_program *in, cl_uint n, const char *want) {
  cl_int err;
  notify_calls = 0;
  cl_program p = clLinkProgram(env.context, 0, NULL, NULL, n, in, notify,
                               &notify_calls, &err);
  CHECK_EQ(err, CL_LINK_PROGRAM_FAILURE);
  CHECK(p != NULL);
  if (!p)
    return;
  CHECK_EQ(notify_calls, 1);
  CHECK_EQ(build_status(p), CL_BUILD_ERROR);
  char log[4096];
  get_log(p, log, sizeof log);
  if (!strstr(log, want))
    fprintf(stderr, "log lacks '%s':\n%s\n", want, log);
  CHECK(strstr(log, want) != NULL);
  clCreateKernel(p, "compute", &err);
  CHECK_EQ(err, CL_INVALID_PROGRAM_EXECUTABLE);
  clReleaseProgram(p);
}

static void test_link_errors(void) {
  cl_program a = compiled(unit_a, NULL), b = compiled(unit_b, NULL);
  cl_program c = compiled(unit_c, NULL), c2 = compiled(unit_c, NULL);
  /* square is defined twice. */
  cl_program dup[4] = {a, b, c, c2};
  expect_link_failure(dup, 4, "duplicate symbol: function 'square'");
  /* square is defined nowhere. */
  cl_program missing[2] = {a, b};
  expect_link_failure(missing, 2, "undefined function 'square'");
  /* The same kernel in two units. */
  cl_program a2 = compiled(unit_a, NULL);
  cl_program twice[4] = {a, a2, b, c};
  expect_link_failure(twice, 4, "duplicate symbol: kernel 'compute'");
  /* A library may leave functions undefined. */
  cl_int err;
  cl_program lib = clLinkProgram(env.context, 0, NULL, "-create-library", 2,
                                 missing, NULL, NULL, &err);
  REQUIRE_OK(err);
  clReleaseProgram(lib);

  /* Inputs that are not compiled objects or libraries. */
  cl_program raw = source(unit_c);
  cl_program ok_raw[2] = {a, raw};
  CHECK(clLinkProgram(env.context, 0, NULL, NULL, 2, ok_raw, NULL, NULL,
                      &err) == NULL);
  CHECK_EQ(err, CL_INVALID_OPERATION);
  cl_program built = source(unit_c);
  REQUIRE_OK(clBuildProgram(built, 0, NULL, NULL, NULL, NULL));
  cl_program ok_built[2] = {built, a};
  CHECK(clLinkProgram(env.context, 0, NULL, NULL, 2, ok_built, NULL, NULL,
                      &err) == NULL);
  CHECK_EQ(err, CL_INVALID_OPERATION);
  /* A failed compile is not a compiled object either. */
  cl_program broken = source("int f(void) { return nope; }\n");
  CHECK_EQ(clCompileProgram(broken, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL),
           CL_COMPILE_PROGRAM_FAILURE);
  char log[4096];
  get_log(broken, log, sizeof log);
  CHECK(strstr(log, "nope") != NULL);
  cl_program ok_broken[2] = {a, broken};
  CHECK(clLinkProgram(env.context, 0, NULL, NULL, 2, ok_broken, NULL, NULL,
                      &err) == NULL);
  CHECK_EQ(err, CL_INVALID_OPERATION);

  /* Options and arguments. */
  cl_program good[3] = {a, b, c};
  const char *bad_opts[] = {"-cl-bogus", "-DX=1", "-enable-link-options",
                            "-cl-std=CL2.0"};
  for (size_t i = 0; i < sizeof bad_opts / sizeof *bad_opts; i++) {
    CHECK(clLinkProgram(env.context, 0, NULL, bad_opts[i], 3, good, NULL,
                        NULL, &err) == NULL);
    CHECK_EQ(err, CL_INVALID_LINKER_OPTIONS);
  }
  CHECK(clLinkProgram(env.context, 0, NULL, NULL, 0, good, NULL, NULL,
                      &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clLinkProgram(env.context, 0, NULL, NULL, 3, NULL, NULL, NULL,
                      &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clLinkProgram(env.context, 0, NULL, NULL, 3, good, NULL,
                      &notify_calls, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clLinkProgram(env.context, 1, NULL, NULL, 3, good, NULL, NULL,
                      &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  cl_device_id not_a_device = (cl_device_id)env.context;
  CHECK(clLinkProgram(env.context, 1, &not_a_device, NULL, 3, good, NULL,
                      NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_DEVICE);
  cl_program bogus[2] = {a, (cl_program)env.queue};
  CHECK(clLinkProgram(env.context, 0, NULL, NULL, 2, bogus, NULL, NULL,
                      &err) == NULL);
  CHECK_EQ(err, CL_INVALID_PROGRAM);
  CHECK(clLinkProgram(NULL, 0, NULL, NULL, 3, good, NULL, NULL, &err) ==
        NULL);
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  /* All the math link options are accepted, and still compute right. */
  cl_program exe = clLinkProgram(
      env.context, 0, NULL,
      "-cl-denorms-are-zero -cl-no-signed-zeros "
      "-cl-unsafe-math-optimizations -cl-finite-math-only "
      "-cl-fast-relaxed-math -cl-no-subgroup-ifp", 3, good, NULL, NULL, &err);
  REQUIRE_OK(err);
  check_compute(exe, 4);

  /* clCompileProgram argument errors. */
  CHECK_EQ(clCompileProgram(raw, 0, NULL, "-cl-bogus", 0, NULL, NULL, NULL,
                            NULL),
           CL_INVALID_COMPILER_OPTIONS);
  CHECK_EQ(clCompileProgram(raw, 0, NULL, NULL, 0, NULL, NULL, NULL,
                            &notify_calls),
           CL_INVALID_VALUE);
  const char *name = "x.h";
  CHECK_EQ(clCompileProgram(raw, 0, NULL, NULL, 1, &c, NULL, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clCompileProgram(raw, 0, NULL, NULL, 0, NULL, &name, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clCompileProgram(raw, 1, &not_a_device, NULL, 0, NULL, NULL, NULL,
                            NULL),
           CL_INVALID_DEVICE);
  /* A program made from a binary has no source to compile. */
  size_t size;
  unsigned char *bin = get_binary(c, &size);
  cl_program fromb = from_binary(bin, size);
  CHECK_EQ(clCompileProgram(fromb, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL),
           CL_INVALID_OPERATION);
  free(bin);
  /* A program with a kernel attached cannot be compiled again. */
  cl_kernel k = clCreateKernel(exe, "compute", &err);
  REQUIRE_OK(err);
  cl_program kp = compiled(unit_c, NULL);
  REQUIRE_OK(clBuildProgram(kp, 0, NULL, NULL, NULL, NULL));
  cl_program with_kernel = source("kernel void z(global int *o) { o[0] = 1; }");
  REQUIRE_OK(clBuildProgram(with_kernel, 0, NULL, NULL, NULL, NULL));
  cl_kernel zk = clCreateKernel(with_kernel, "z", &err);
  REQUIRE_OK(err);
  CHECK_EQ(clCompileProgram(with_kernel, 0, NULL, NULL, 0, NULL, NULL, NULL,
                            NULL),
           CL_INVALID_OPERATION);
  clReleaseKernel(zk);
  REQUIRE_OK(clCompileProgram(with_kernel, 0, NULL, NULL, 0, NULL, NULL, NULL,
                              NULL));
  CHECK_EQ(binary_type(with_kernel), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
  clReleaseKernel(k);
  cl_program all[] = {a, b, c, c2, a2, raw, built, broken, exe, fromb, kp,
                      with_kernel};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    clReleaseProgram(all[i]);
}

/* -cl-kernel-arg-info given to the compile survives the link. */
static void test_arg_info(void) {
  cl_program in[2] = {
      compiled("int twice(int x);\n"
               "kernel void named(global int *out_values, int scale) {\n"
               "  out_values[0] = twice(scale);\n}\n",
               "-cl-kernel-arg-info"),
      compiled("int twice(int x) { return x + x; }\n", NULL)};
  cl_int err;
  cl_program exe = clLinkProgram(env.context, 0, NULL, NULL, 2, in, NULL,
                                 NULL, &err);
  REQUIRE_OK(err);
  cl_kernel k = clCreateKernel(exe, "named", &err);
  REQUIRE_OK(err);
  char name[64] = "";
  REQUIRE_OK(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_NAME, sizeof name, name,
                                NULL));
  CHECK(strcmp(name, "scale") == 0);
  int out[1];
  clReleaseKernel(k);
  run(exe, "named", 8, out, 1);
  CHECK_EQ(out[0], 16);
  clReleaseProgram(exe);
  clReleaseProgram(in[0]);
  clReleaseProgram(in[1]);
}

static void test_linker_available(void) {
  cl_bool avail = CL_FALSE;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_LINKER_AVAILABLE,
                             sizeof avail, &avail, NULL));
  CHECK_EQ(avail, CL_TRUE);
}

int main(void) {
  test_setup(&env);
  test_linker_available();
  test_three_units();
  test_kernel_in_second_unit();
  test_headers();
  test_library_and_binaries();
  test_link_errors();
  test_arg_info();
  test_teardown(&env);
  return test_finish("link");
}
