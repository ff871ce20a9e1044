/* This file tests that the bytes just past the end of a buffer read as
 * zero, so that a kernel which overruns a buffer by a little gives the
 * same result on every run (runtime/api/api_mem.c, RT_MEM_ZERO_TAIL).
 *
 * Reading past a buffer is undefined behaviour, but CLBlast 1.5 does it
 * in every batched half-precision routine: the per-batch alphas (and
 * betas) are uploaded as 2-byte halves and read by the kernel through a
 * `__constant float *` (its real_arg type for half), so batch b reads
 * bytes [4b, 4b + 4) of a 2 * batch_count-byte buffer. With the tail left
 * uninitialised those bytes were whatever the heap held before — other
 * buffers' data, freed objects — and clblast_test_xaxpybatched in half
 * failed a different number of cases on every run (issue 13).
 *
 * The test dirties the heap with buffers full of 0xff bytes before every
 * allocation it checks, so that an uninitialised tail shows. */
#include "test_util.h"
#include <stdint.h>

static test_env env;

static const char *source =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    /* Copies bytes [from, from + n) of a buffer, past its end included. */
    "__kernel void peek(__global const uchar *buf, uint from,\n"
    "                   __global uchar *out) {\n"
    "  out[get_global_id(0)] = buf[from + get_global_id(0)];\n"
    "}\n"
    /* CLBlast's XaxpyBatched for PRECISION 16, with its real_arg (float)
     * and GetRealArg (a conversion to half) written out. */
    "__kernel void axpy_batched(const int n, __constant float *arg_alphas,\n"
    "                           __global const half *restrict xgm,\n"
    "                           __constant int *x_offsets, const int x_inc,\n"
    "                           __global half *ygm,\n"
    "                           __constant int *y_offsets, const int y_inc) {\n"
    "  const int batch = get_group_id(1);\n"
    "  const half alpha = (half)arg_alphas[batch];\n"
    "  for (int id = get_global_id(0); id < n; id += get_global_size(0)) {\n"
    "    half xvalue = xgm[id * x_inc + x_offsets[batch]];\n"
    "    ygm[id * y_inc + y_offsets[batch]] += alpha * xvalue;\n"
    "  }\n"
    "}\n";

/* memset through a volatile pointer: a store right before free must not
 * be optimised away. */
static void *(*volatile fill)(void *, int, size_t) = memset;

/* Creates and releases a few buffers whose whole storage is 0xff, so the
 * next allocations are likely to reuse dirty memory. */
static void dirty_heap(void) {
  static unsigned char ff[4096];
  memset(ff, 0xff, sizeof ff);
  cl_mem m[16];
  for (int i = 0; i < 16; i++)
    m[i] = test_buffer(&env, (size_t)128 << (i % 5), ff);
  test_release_buffers(m, 16);
  /* Blocks too large for glibc's per-thread cache go back to the bins or
   * the top of the heap, where aligned allocations are carved from. */
  void *p[16];
  for (int i = 0; i < 16; i++) {
    p[i] = malloc(2048 + 64 * i);
    if (p[i])
      fill(p[i], 0xff, 2048 + 64 * i);
  }
  for (int i = 0; i < 16; i++)
    free(p[i]);
}

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

/* Every size from 1 to 300 bytes, with and without a host copy: the 64
 * bytes after the end, and on to the next 128-byte boundary, are zero. */
static void test_tail_bytes(cl_program prog) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "peek", &err);
  REQUIRE_OK(err);
  unsigned char data[300], tail[256];
  memset(data, 0x5a, sizeof data);
  int bad_sizes = 0;
  for (size_t size = 1; size <= 300; size++) {
    for (int copy = 0; copy < 2; copy++) {
      dirty_heap();
      cl_mem buf = test_buffer(&env, size, copy ? data : NULL);
      size_t n = round_up(size + 64, 128) - size;
      cl_mem out = test_buffer(&env, n, NULL);
      cl_uint from = (cl_uint)size;
      REQUIRE_OK(clSetKernelArg(k, 0, sizeof buf, &buf));
      REQUIRE_OK(clSetKernelArg(k, 1, sizeof from, &from));
      REQUIRE_OK(clSetKernelArg(k, 2, sizeof out, &out));
      REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &n, NULL, 0,
                                        NULL, NULL));
      REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, n, tail, 0,
                                     NULL, NULL));
      size_t nonzero = 0;
      for (size_t i = 0; i < n; i++)
        nonzero += tail[i] != 0;
      if (nonzero && bad_sizes++ < 5)
        fprintf(stderr, "size %zu (%s): %zu of the %zu tail bytes not zero\n",
                size, copy ? "copied" : "uninitialised", nonzero, n);
      clReleaseMemObject(buf);
      clReleaseMemObject(out);
    }
  }
  CHECK_EQ(bad_sizes, 0);
  clReleaseKernel(k);
}

static float f_of_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* CLBlast's HAXPYBATCHED case: alphas uploaded as halves, read as floats.
 * The host reference reads the same bytes, with the tail as zeros. */
static void test_clblast_axpy_batched(cl_program prog, int batch_count) {
  enum { N = 37, INC = 2 };
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "axpy_batched", &err);
  REQUIRE_OK(err);
  /* The half bit patterns CLBlast's test uploads for alpha = 3.138672
   * (its host adds the bit patterns of alpha and of batch + 1), except
   * that batch 0's pair forms the float 2.0 (0x40000000) when a second
   * half follows it, so that the in-bounds read has a plain value. */
  uint16_t alphas[3] = {0x7e47, 0x8247, 0x8447};
  if (batch_count > 1) {
    alphas[0] = 0x0000;
    alphas[1] = 0x4000;
  }
  size_t per = (size_t)N * INC;
  size_t total = per * (size_t)batch_count;
  _Float16 *x = malloc(total * sizeof *x), *y = malloc(total * sizeof *y);
  _Float16 *ref = malloc(total * sizeof *ref), *got = malloc(total * sizeof *got);
  cl_int offs[3];
  for (int b = 0; b < batch_count; b++)
    offs[b] = (cl_int)(per * (size_t)b);
  for (size_t i = 0; i < total; i++) {
    x[i] = (_Float16)(int)(i % 7) - (_Float16)3;      /* exact in half */
    y[i] = (_Float16)(int)(i % 11) * (_Float16)0.5f;
  }
  /* Host reference: batch b's alpha is the float at bytes [4b, 4b + 4)
   * of the alphas buffer, the bytes past its 2 * batch_count zero. */
  unsigned char bytes[16] = {0};
  memcpy(bytes, alphas, 2 * (size_t)batch_count);
  memcpy(ref, y, total * sizeof *ref);
  for (int b = 0; b < batch_count; b++) {
    uint32_t u;
    memcpy(&u, bytes + 4 * b, 4);
    _Float16 alpha = (_Float16)f_of_bits(u);
    for (int i = 0; i < N; i++) {
      size_t xi = (size_t)i * INC + (size_t)offs[b];
      ref[xi] = (_Float16)((float)ref[xi] + (float)alpha * (float)x[xi]);
    }
  }

  for (int rep = 0; rep < 8; rep++) {
    dirty_heap();
    cl_mem a = test_buffer(&env, 2 * (size_t)batch_count, alphas);
    cl_mem xb = test_buffer(&env, total * sizeof *x, x);
    cl_mem yb = test_buffer(&env, total * sizeof *y, y);
    cl_mem xo = test_buffer(&env, sizeof(cl_int) * (size_t)batch_count, offs);
    cl_mem yo = test_buffer(&env, sizeof(cl_int) * (size_t)batch_count, offs);
    cl_int n = N, inc = INC;
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof n, &n));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof a, &a));
    REQUIRE_OK(clSetKernelArg(k, 2, sizeof xb, &xb));
    REQUIRE_OK(clSetKernelArg(k, 3, sizeof xo, &xo));
    REQUIRE_OK(clSetKernelArg(k, 4, sizeof inc, &inc));
    REQUIRE_OK(clSetKernelArg(k, 5, sizeof yb, &yb));
    REQUIRE_OK(clSetKernelArg(k, 6, sizeof yo, &yo));
    REQUIRE_OK(clSetKernelArg(k, 7, sizeof inc, &inc));
    size_t global[2] = {64, (size_t)batch_count}, local[2] = {64, 1};
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 2, NULL, global, local, 0,
                                      NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, yb, CL_TRUE, 0,
                                   total * sizeof *got, got, 0, NULL, NULL));
    size_t wrong = 0;
    for (size_t i = 0; i < total; i++) {
      uint16_t g, r;
      memcpy(&g, &got[i], 2);
      memcpy(&r, &ref[i], 2);
      if (g != r && wrong++ < 3)
        fprintf(stderr,
                "batch_count %d, run %d: y[%zu] = %g, reference %g\n",
                batch_count, rep, i, (double)got[i], (double)ref[i]);
    }
    CHECK_EQ(wrong, 0);
    cl_mem m[5] = {a, xb, yb, xo, yo};
    test_release_buffers(m, 5);
  }
  free(x);
  free(y);
  free(ref);
  free(got);
  clReleaseKernel(k);
}

int main(void) {
  test_setup(&env);
  cl_program prog = test_build(&env, source, "");
  test_tail_bytes(prog);
  test_clblast_axpy_batched(prog, 1);
  test_clblast_axpy_batched(prog, 3);
  clReleaseProgram(prog);
  test_teardown(&env);
  return test_finish("buffer-tail");
}
