/* This file declares the helpers every test shares: assertions that say
 * what they compare, and the Skein platform/device/context/queue set-up
 * through the ICD loader. */
#ifndef SKEIN_TEST_UTIL_H
#define SKEIN_TEST_UTIL_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <CL/cl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 in a build with AddressSanitizer (TEST_UNDER_ASAN) or
 * ThreadSanitizer (TEST_UNDER_TSAN), else 0: GCC defines
 * __SANITIZE_ADDRESS__/__SANITIZE_THREAD__, Clang answers __has_feature. */
#if defined(__SANITIZE_ADDRESS__)
#define TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_UNDER_ASAN 1
#endif
#endif
#ifndef TEST_UNDER_ASAN
#define TEST_UNDER_ASAN 0
#endif
#if defined(__SANITIZE_THREAD__)
#define TEST_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TEST_UNDER_TSAN 1
#endif
#endif
#ifndef TEST_UNDER_TSAN
#define TEST_UNDER_TSAN 0
#endif

extern int test_failures;

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,     \
              #cond);                                                      \
      test_failures++;                                                     \
    }                                                                      \
  } while (0)

/* Compares two integers (e.g. cl_int error codes), printing both. */
#define CHECK_EQ(a, b)                                                     \
  do {                                                                     \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);        \
    if (check_a_ != check_b_) {                                            \
      fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%lld vs %lld)\n", \
              __FILE__, __LINE__, #a, #b, check_a_, check_b_);             \
      test_failures++;                                                     \
    }                                                                      \
  } while (0)

/* Like CHECK_EQ with CL_SUCCESS, but aborts the test: later steps would
 * only fail confusingly. */
#define REQUIRE_OK(expr)                                                   \
  do {                                                                     \
    cl_int require_err_ = (expr);                                          \
    if (require_err_ != CL_SUCCESS) {                                      \
      fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__,       \
              #expr, require_err_);                                        \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

/* The Skein platform and its CPU device (exits if absent). */
typedef struct test_env {
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;      /* in-order, profiling enabled */
} test_env;

void test_setup(test_env *env);
void test_teardown(test_env *env);

/* Builds source with options; on failure prints the log and exits. */
cl_program test_build(test_env *env, const char *source, const char *options);

/* A read-write buffer of size bytes, a copy of data unless data is NULL
 * (exits on failure). */
cl_mem test_buffer(test_env *env, size_t size, void *data);

/* Runs kernel name of prog over global work-items (1D, the driver's
 * local size) with buffer arguments args[0..nargs), and waits for it. */
void test_run_1d(test_env *env, cl_program prog, const char *name,
                 size_t global, const cl_mem *args, cl_uint nargs);

/* Releases buffers m[0..n). */
void test_release_buffers(cl_mem *m, int n);

/* A reproducible pseudo-random stream (xorshift64) for test inputs:
 * test_seed picks the stream (non-zero), test_rand returns its next
 * 64 bits. */
void test_seed(unsigned long long seed);
unsigned long long test_rand(void);

/* Sends stderr to a temporary file until test_capture_end, which puts
 * it back and returns what was written (malloc'd, NUL-terminated; ""
 * if no temporary file could be made). */
typedef struct test_capture {
  FILE *tmp;
  int saved;
} test_capture;
void test_capture_begin(test_capture *c);
char *test_capture_end(test_capture *c);

/* Runs this test's own executable (self) as `self --child arg` and
 * returns what it wrote to stderr (malloc'd), or NULL (after saying why)
 * if it could not run or did not exit 0: the code-generation tests build
 * for each SKEIN_CPU in a child, since the target is read once per
 * process. */
char *test_run_child(const char *self, const char *arg);
/* The child's side: builds source for SKEIN_CPU=cpu with SKEIN_DUMP=dump
 * (the dumped IR on stderr), then prints "child-build-status <err>" and
 * "child-build-log <log>" on stderr; returns the child's exit status. */
int test_build_child(const char *cpu, const char *dump, const char *source);
/* The definition of @__skein_wg_<name> (the kernel's work-group
 * function) in the dumped IR ir (malloc'd), or NULL. */
char *test_wg_function_ir(const char *ir, const char *name);
/* How many times needle occurs in text. */
unsigned test_count(const char *text, const char *needle);
/* Whether out (a child's stderr) has a SKEIN_DUMP=modes line that starts
 * with "skein: <what> <name>: " ("skein: <name>: " where what is "") and
 * contains text. */
bool test_mode_says(const char *out, const char *what, const char *name,
                    const char *text);

/* Prints "N passed, N failed"-style summary; returns the exit code. */
int test_finish(const char *name);

/* How many entries of CL_DEVICE_OPENCL_C_FEATURES are named name (and
 * have that version, unless version is 0). */
int test_c_feature_count(test_env *env, const char *name, cl_version version);
/* Whether env's device reports OpenCL 3.1 (CL_DEVICE_VERSION), where some
 * 3.0 errors become successes. */
int test_device_is_3_1(test_env *env);
/* Whether CL_DEVICE_EXTENSIONS lists name as a whole word (not as the
 * start of a longer name). */
int test_extension_listed(test_env *env, const char *name);

/* The whole file dir/name, NUL-terminated, malloc'd (*size: its length);
 * NULL if it cannot be read. The SPIR-V tests read the modules that
 * tests/spirv/ made at build time. */
void *test_read_file(const char *dir, const char *name, size_t *size);
/* The program of the SPIR-V module dir/name, built for env's device with
 * no options; exits with the build log on any failure. */
cl_program test_build_spirv_file(test_env *env, const char *dir,
                                 const char *name);
/* How many entries of CL_DEVICE_EXTENSIONS_WITH_VERSION are named name
 * (and have that version, unless version is 0). */
int test_extension_count(test_env *env, const char *name, cl_version version);

/* The sub-group size Skein should choose here: the 32-bit lanes of the
 * widest vectors the host has (AVX-512 16, AVX 8, else 4), less what
 * SKEIN_TARGET_FEATURES turns off ("-avx512f", "-avx"). */
size_t test_expected_sub_group_size(void);

#endif
