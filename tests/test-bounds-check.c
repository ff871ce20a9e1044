/* Tests bounds-checked kernels (-skein-bounds-check): in loop, region and
 * fiber mode, an access outside its buffer, sub-buffer, __local argument
 * or __local variable does not happen, the command fails with
 * CL_OUT_OF_RESOURCES, a command waiting on it fails too, and stderr names
 * the kernel, the access, the object, the work-item and (with -g) the
 * line; in-bounds kernels give the same results as without checks. */
#define _GNU_SOURCE
#include "test_util.h"

static test_env env;

static const char *source =
    "kernel void copy_shift(global const int *in, global int *out,\n"
    "                       int shift) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i + shift] + 1;\n"
    "}\n"
    "kernel void store_far(global int *out, int stride) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i * stride] = (int)i;\n"
    "}\n"
    "kernel void local_reverse(global int *out, local int *tmp, int skew) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  tmp[l] = (int)get_global_id(0);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = tmp[n - 1 - l + skew];\n"
    "}\n"
    "kernel void scoped(global int *out, int skew) {\n"
    "  local int buf[32];\n"
    "  size_t l = get_local_id(0);\n"
    "  buf[l] = (int)l * 3;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = buf[(l + skew) % 64];\n"
    "}\n"
    "kernel void guarded(global int *out, uint s) {\n"
    "  size_t l = get_local_id(0);\n"
    "  if (l < s) out[get_group_id(0) * 64 + l + s] = (int)l;\n"
    "}\n"
    "kernel void loop_sum(global const int *in, global int *out, int n) {\n"
    "  int s = 0;\n"
    "  for (int k = 0; k < n; k++) s += in[k];\n"
    "  out[get_global_id(0)] = s;\n"
    "}\n"
    /* The lifting's box tests over a kernel loop's iterations and the
     * work-items' ids together (bounds_lift.cpp), one per mode's shape. */
    "kernel void window(global int *out, uint m) {\n"
    "  local int t[80];\n"
    "  size_t l = get_local_id(0);\n"
    "  t[l] = (int)l;\n"
    "  if (l < 16) t[64 + l] = 64 + (int)l;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int s = 0;\n"
    "  for (uint k = 0; k < m; k++) s += t[l + k];\n"
    "  out[get_global_id(0)] = s;\n"
    "}\n"
    "kernel void rows(global int *out, uint m) {\n"
    "  size_t i = get_global_id(0);\n"
    "  for (uint k = 0; k < m; k++) out[i * 8 + k] = (int)(i + k);\n"
    "}\n"
    "kernel void rows_signed(global int *out, long base, long stride) {\n"
    "  long i = get_global_id(0);\n"
    "  for (uint k = 0; k < 8; k++) out[base + i * stride + k] = (int)i;\n"
    "}\n"
    "kernel void backwards(global const int *in, global int *out, uint n,\n"
    "                      uint skew) {\n"
    "  size_t top = (size_t)n - 1 + skew;\n"
    "  int s = 0;\n"
    "  for (size_t k = 0; k < n; k++) s += in[top - k] * (int)k;\n"
    "  out[get_global_id(0)] = s;\n"
    "}\n"
    "kernel void reduce_shift(global const int *in, global int *out,\n"
    "                         uint shift) {\n"
    "  int r = work_group_reduce_add(in[get_global_id(0) + shift]);\n"
    "  out[get_global_id(0)] = r;\n"
    "}\n";

/* Builds source in mode (SKEIN_MODE value, NULL: default) with options. */
static cl_program build(const char *mode, const char *options) {
  if (mode)
    setenv("SKEIN_MODE", mode, 1);
  cl_program p = test_build(&env, source, options);
  unsetenv("SKEIN_MODE");
  return p;
}

static cl_mem buffer(size_t size, const void *init) {
  return test_buffer(&env, size, (void *)init);
}

/* Runs kernel k over global/local, capturing what Skein prints on stderr
 * into err_text; returns the command's execution status. */
static cl_int run(cl_kernel k, size_t global, size_t local, char *err_text,
                  size_t cap_size) {
  test_capture cap;
  test_capture_begin(&cap);
  cl_event ev;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global,
                                    local ? &local : NULL, 0, NULL, &ev));
  clWaitForEvents(1, &ev);
  cl_int status;
  REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                            sizeof status, &status, NULL));
  clReleaseEvent(ev);
  char *text = test_capture_end(&cap);
  snprintf(err_text, cap_size, "%s", text);
  free(text);
  return status;
}

static void check_report(const char *what, const char *text,
                         const char *needle) {
  if (!strstr(text, needle))
    fprintf(stderr, "%s: report lacks \"%s\":\n%s", what, needle, text);
  CHECK(strstr(text, needle) != NULL);
}

/* copy_shift reading one element past its input: the load is skipped
 * (0 + 1), the command fails, the report says where. Shift 0: right. */
static void test_load(cl_program p, const char *mode) {
  enum { N = 1000 };
  int in[N], out[N];
  for (int i = 0; i < N; i++)
    in[i] = i * 7;
  cl_mem bi = buffer(sizeof in, in), bo = buffer(sizeof out, NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "copy_shift", &err);
  REQUIRE_OK(err);
  int shift = 0;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bi, &bi));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bo, &bo));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof shift, &shift));
  char text[4096];
  CHECK_EQ(run(k, N, 0, text, sizeof text), CL_COMPLETE);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != i * 7 + 1;
  CHECK_EQ(bad, 0);
  CHECK(strstr(text, "out-of-bounds") == NULL);

  shift = 1;
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof shift, &shift));
  CHECK_EQ(run(k, N, 0, text, sizeof text), CL_OUT_OF_RESOURCES);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  bad = 0;
  for (int i = 0; i < N - 1; i++)
    bad += out[i] != (i + 1) * 7 + 1;
  CHECK_EQ(bad, 0);
  CHECK_EQ(out[N - 1], 1);   /* the skipped load read 0 */
  check_report(mode, text, "kernel copy_shift: out-of-bounds load of 4 "
                           "bytes at offset 4000 of argument 0 (4000 bytes)");
  check_report(mode, text, "line 4");

  /* One before the start: the first work-item's load, the check that the
   * compiler lifts out of the work-item loop fails at its first iteration
   * rather than its last. */
  shift = -1;
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof shift, &shift));
  CHECK_EQ(run(k, N, 0, text, sizeof text), CL_OUT_OF_RESOURCES);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  bad = 0;
  for (int i = 1; i < N; i++)
    bad += out[i] != (i - 1) * 7 + 1;
  CHECK_EQ(bad, 0);
  CHECK_EQ(out[0], 1);
  check_report(mode, text, "out-of-bounds load of 4 bytes at offset -4 "
                           "of argument 0 (4000 bytes), line 4, by "
                           "work-item (0,0,0) of group (0,0,0)");
  clReleaseKernel(k);
  clReleaseMemObject(bi);
  clReleaseMemObject(bo);
}

/* store_far into a sub-buffer: the stores past its end never reach the
 * parent's bytes after it, and a command waiting on the failed one fails
 * without running. */
static void test_store(cl_program p, const char *mode) {
  enum { PARENT = 4096, SUB = 1024 };
  int fill[PARENT / 4];
  for (int i = 0; i < PARENT / 4; i++)
    fill[i] = -5;
  cl_mem parent = buffer(PARENT, fill);
  cl_buffer_region region = {0, SUB};
  cl_int err;
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION,
                                 &region, &err);
  REQUIRE_OK(err);
  cl_kernel k = clCreateKernel(p, "store_far", &err);
  REQUIRE_OK(err);
  int stride = 2;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof sub, &sub));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof stride, &stride));
  char text[4096];
  CHECK_EQ(run(k, SUB / 4, 0, text, sizeof text), CL_OUT_OF_RESOURCES);
  check_report(mode, text, "out-of-bounds store of 4 bytes");
  int back[PARENT / 4];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, parent, CL_TRUE, 0, PARENT, back,
                                 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < PARENT / 4; i++) {
    int want = i < SUB / 4 && i % 2 == 0 ? i / 2 : -5;
    bad += back[i] != want;
  }
  CHECK_EQ(bad, 0);

  /* A marker after the failed command fails as the spec says. */
  cl_event ev, after;
  size_t global = SUB / 4;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, &ev));
  REQUIRE_OK(clEnqueueMarkerWithWaitList(env.queue, 1, &ev, &after));
  clWaitForEvents(1, &after);
  cl_int status;
  REQUIRE_OK(clGetEventInfo(after, CL_EVENT_COMMAND_EXECUTION_STATUS,
                            sizeof status, &status, NULL));
  CHECK(status < 0);
  clReleaseEvent(ev);
  clReleaseEvent(after);
  clReleaseKernel(k);
  clReleaseMemObject(sub);
  clReleaseMemObject(parent);
}

/* __local argument and __local variable out of range (barrier kernels:
 * region or fiber mode). */
static void test_local(cl_program p, const char *mode) {
  enum { N = 256, LS = 64 };
  cl_mem bo = buffer(N * sizeof(int), NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "local_reverse", &err);
  REQUIRE_OK(err);
  int skew = 0;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
  REQUIRE_OK(clSetKernelArg(k, 1, LS * sizeof(int), NULL));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof skew, &skew));
  char text[4096];
  CHECK_EQ(run(k, N, LS, text, sizeof text), CL_COMPLETE);
  int out[N];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != i / LS * LS + (LS - 1 - i % LS);
  CHECK_EQ(bad, 0);
  skew = 1;
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof skew, &skew));
  CHECK_EQ(run(k, N, LS, text, sizeof text), CL_OUT_OF_RESOURCES);
  check_report(mode, text, "offset 256 of argument 1 (256 bytes)");
  clReleaseKernel(k);

  k = clCreateKernel(p, "scoped", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof skew, &skew));
  CHECK_EQ(run(k, 64, 32, text, sizeof text), CL_OUT_OF_RESOURCES);
  check_report(mode, text, "of variable scoped.buf (128 bytes)");
  clReleaseKernel(k);
  clReleaseMemObject(bo);
}

/* An access whose range the compiler narrows by the branch guarding it
 * ("l < s": l + s stays below 64 for s <= 32): right in bounds, caught
 * when s = 33 puts the last work-item of the last group one past the end
 * (the narrowed test then fails and the checked copy runs). */
static void test_guarded(cl_program p, const char *mode) {
  enum { GROUPS = 4, LS = 64 };
  cl_mem bo = buffer(GROUPS * LS * sizeof(int), NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "guarded", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
  char text[4096];
  for (cl_uint s = 30; s <= 33; s++) {
    int fill = -1;
    REQUIRE_OK(clEnqueueFillBuffer(env.queue, bo, &fill, sizeof fill, 0,
                                   GROUPS * LS * sizeof(int), 0, NULL, NULL));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof s, &s));
    cl_int st = run(k, GROUPS * LS, LS, text, sizeof text);
    int out[GROUPS * LS];
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                   0, NULL, NULL));
    int bad = 0;
    for (int g = 0; g < GROUPS; g++)
      for (int i = 0; i < LS; i++) {
        /* Slot i of group g holds l = i - s where 0 <= l < s, if it
         * lies inside the buffer (the last group's l = 32 for s = 33
         * would be one past the end: skipped). */
        int l = i - (int)s;
        bad += out[g * LS + i] != (l >= 0 && l < (int)s ? l : -1);
      }
    if (s <= 32) {
      CHECK_EQ(st, CL_COMPLETE);
      CHECK_EQ(bad, 0);
    } else {
      CHECK_EQ(st, CL_OUT_OF_RESOURCES);
      check_report(mode, text, "out-of-bounds store of 4 bytes at offset "
                               "1024 of argument 0 (1024 bytes)");
      /* Everything but the slots the overflowing items would have
       * written in the next group is as computed. */
      CHECK(bad <= 32);
    }
  }
  clReleaseKernel(k);
  clReleaseMemObject(bo);
}

/* A kernel loop over a uniform trip count (region mode cuts it): right
 * in bounds, caught past the end. */
static void test_loop(cl_program p, const char *mode) {
  int in[64], out[128];
  for (int i = 0; i < 64; i++)
    in[i] = i;
  cl_mem bi = buffer(sizeof in, in), bo = buffer(sizeof out, NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "loop_sum", &err);
  REQUIRE_OK(err);
  int n = 64;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bi, &bi));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bo, &bo));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof n, &n));
  char text[4096];
  CHECK_EQ(run(k, 128, 64, text, sizeof text), CL_COMPLETE);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < 128; i++)
    bad += out[i] != 64 * 63 / 2;
  CHECK_EQ(bad, 0);
  n = 65;
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof n, &n));
  CHECK_EQ(run(k, 128, 64, text, sizeof text), CL_OUT_OF_RESOURCES);
  check_report(mode, text, "offset 256 of argument 0 (256 bytes)");
  clReleaseKernel(k);
  clReleaseMemObject(bi);
  clReleaseMemObject(bo);
}

/* Sets k's arguments from a list of (size, pointer) pairs. */
#define SET_ARGS(k, ...)                                                   \
  do {                                                                     \
    struct { size_t size; const void *value; } args_[] = {__VA_ARGS__};    \
    for (cl_uint a_ = 0; a_ < sizeof args_ / sizeof *args_; a_++)          \
      REQUIRE_OK(clSetKernelArg(k, a_, args_[a_].size, args_[a_].value));  \
  } while (0)

/* A __local window read by a kernel loop after a barrier: every
 * work-item's last read is t[l + m - 1], so m = 17 reaches t[79], the
 * array's end, and m = 18 one past it (only in the loop's last
 * iteration, of the group's last work-item). */
static void test_window(cl_program p, const char *mode) {
  enum { N = 128, LS = 64 };
  cl_mem bo = buffer(N * sizeof(int), NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "window", &err);
  REQUIRE_OK(err);
  char text[4096];
  for (cl_uint m = 16; m <= 18; m++) {
    SET_ARGS(k, {sizeof bo, &bo}, {sizeof m, &m});
    cl_int st = run(k, N, LS, text, sizeof text);
    if (m == 18) {
      CHECK_EQ(st, CL_OUT_OF_RESOURCES);
      check_report(mode, text, "out-of-bounds load of 4 bytes at offset 320 "
                               "of variable window.t (320 bytes)");
      continue;
    }
    CHECK_EQ(st, CL_COMPLETE);
    int out[N], bad = 0;
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                   0, NULL, NULL));
    for (int i = 0; i < N; i++) {
      int l = i % LS, want = 0;
      for (int j = 0; j < (int)m; j++)
        want += l + j;
      bad += out[i] != want;
    }
    CHECK_EQ(bad, 0);
  }
  clReleaseKernel(k);
  clReleaseMemObject(bo);
}

/* Each work-item writes a row of m of its own 8 slots: m = 8 fills the
 * buffer exactly, m = 9 makes the last work-item's last store one past
 * the end (the others' ninth stores land in the next row, in bounds). */
static void test_rows(cl_program p, const char *mode) {
  enum { N = 64 };
  cl_mem bo = buffer(N * 8 * sizeof(int), NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "rows", &err);
  REQUIRE_OK(err);
  char text[4096];
  cl_uint m = 8;
  SET_ARGS(k, {sizeof bo, &bo}, {sizeof m, &m});
  CHECK_EQ(run(k, N, 16, text, sizeof text), CL_COMPLETE);
  int out[N * 8], bad = 0;
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  for (int i = 0; i < N * 8; i++)
    bad += out[i] != i / 8 + i % 8;
  CHECK_EQ(bad, 0);
  m = 9;
  SET_ARGS(k, {sizeof bo, &bo}, {sizeof m, &m});
  CHECK_EQ(run(k, N, 16, text, sizeof text), CL_OUT_OF_RESOURCES);
  check_report(mode, text, "out-of-bounds store of 4 bytes at offset 2048 "
                           "of argument 0 (2048 bytes)");
  clReleaseKernel(k);
  clReleaseMemObject(bo);
}

/* Rows at a stride given at run time, of either sign (a scale the box
 * test computes at run time): base 504 with stride -8 puts work-item 63's
 * row at 0, base 503 one element before the buffer. */
static void test_rows_signed(cl_program p, const char *mode) {
  enum { N = 64 };
  cl_mem bo = buffer(N * 8 * sizeof(int), NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "rows_signed", &err);
  REQUIRE_OK(err);
  char text[4096];
  const cl_long cases[][2] = {{0, 8}, {504, -8}, {503, -8}, {8, 8}};
  for (int c = 0; c < 4; c++) {
    cl_long base = cases[c][0], stride = cases[c][1];
    SET_ARGS(k, {sizeof bo, &bo}, {sizeof base, &base},
             {sizeof stride, &stride});
    cl_int st = run(k, N, 16, text, sizeof text);
    if (c >= 2) {
      CHECK_EQ(st, CL_OUT_OF_RESOURCES);
      /* (Which of the work-items past the end is named is not fixed.) */
      check_report(mode, text, c == 2 ? "store of 4 bytes at offset -4 of "
                                        "argument 0 (2048 bytes)"
                                      : "of argument 0 (2048 bytes), line");
      continue;
    }
    CHECK_EQ(st, CL_COMPLETE);
    int out[N * 8], bad = 0;
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                   0, NULL, NULL));
    for (int i = 0; i < N * 8; i++)
      bad += out[i] != (stride > 0 ? i / 8 : N - 1 - i / 8);
    CHECK_EQ(bad, 0);
  }
  clReleaseKernel(k);
  clReleaseMemObject(bo);
}

/* A loop reading backwards from in[n - 1 + skew]: skew = 1 reads one past
 * the end in the first iteration. */
static void test_backwards(cl_program p, const char *mode) {
  enum { N = 64 };
  int in[N];
  for (int i = 0; i < N; i++)
    in[i] = i * 3 + 1;
  cl_mem bi = buffer(sizeof in, in), bo = buffer(N * sizeof(int), NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "backwards", &err);
  REQUIRE_OK(err);
  char text[4096];
  cl_uint n = N, skew = 0;
  SET_ARGS(k, {sizeof bi, &bi}, {sizeof bo, &bo}, {sizeof n, &n},
           {sizeof skew, &skew});
  CHECK_EQ(run(k, N, 16, text, sizeof text), CL_COMPLETE);
  int out[N], bad = 0, want = 0;
  for (int j = 0; j < N; j++)
    want += in[N - 1 - j] * j;
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  for (int i = 0; i < N; i++)
    bad += out[i] != want;
  CHECK_EQ(bad, 0);
  skew = 1;
  REQUIRE_OK(clSetKernelArg(k, 3, sizeof skew, &skew));
  CHECK_EQ(run(k, N, 16, text, sizeof text), CL_OUT_OF_RESOURCES);
  check_report(mode, text, "out-of-bounds load of 4 bytes at offset 256 "
                           "of argument 0 (256 bytes)");
  clReleaseKernel(k);
  clReleaseMemObject(bi);
  clReleaseMemObject(bo);
}

/* A work-group collective over checked loads: shift = 1 makes the last
 * work-item read one past the end. */
static void test_reduce(cl_program p, const char *mode) {
  enum { N = 256, LS = 64 };
  int in[N];
  for (int i = 0; i < N; i++)
    in[i] = i;
  cl_mem bi = buffer(sizeof in, in), bo = buffer(sizeof in, NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "reduce_shift", &err);
  REQUIRE_OK(err);
  char text[4096];
  cl_uint shift = 0;
  SET_ARGS(k, {sizeof bi, &bi}, {sizeof bo, &bo}, {sizeof shift, &shift});
  CHECK_EQ(run(k, N, LS, text, sizeof text), CL_COMPLETE);
  int out[N], bad = 0;
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  for (int i = 0; i < N; i++) {
    int g = i / LS;   /* the sum of g*64 .. g*64+63 */
    bad += out[i] != LS * g * LS + LS * (LS - 1) / 2;
  }
  CHECK_EQ(bad, 0);
  shift = 1;
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof shift, &shift));
  CHECK_EQ(run(k, N, LS, text, sizeof text), CL_OUT_OF_RESOURCES);
  check_report(mode, text, "out-of-bounds load of 4 bytes at offset 1024 "
                           "of argument 0 (1024 bytes)");
  clReleaseKernel(k);
  clReleaseMemObject(bi);
  clReleaseMemObject(bo);
}

int main(void) {
  test_setup(&env);
  static const char *const modes[] = {NULL, "fiber", "loop"};
  for (size_t m = 0; m < 3; m++) {
    const char *name = modes[m] ? modes[m] : "default";
    cl_program p = build(modes[m], "-g -skein-bounds-check -cl-std=CL2.0");
    test_load(p, name);
    test_store(p, name);
    test_local(p, name);
    test_loop(p, name);
    test_guarded(p, name);
    test_window(p, name);
    test_rows(p, name);
    test_rows_signed(p, name);
    test_backwards(p, name);
    test_reduce(p, name);
    clReleaseProgram(p);
  }
  /* The environment variable turns it on for every build. */
  setenv("SKEIN_BOUNDS_CHECK", "1", 1);
  cl_program p = build(NULL, "-g -cl-std=CL2.0");
  unsetenv("SKEIN_BOUNDS_CHECK");
  test_load(p, "SKEIN_BOUNDS_CHECK=1");
  clReleaseProgram(p);
  test_teardown(&env);
  return test_finish("bounds-check");
}
