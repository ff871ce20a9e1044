/* Tests loop-mode kernels that have loops of their own, which Skein
 * vectorises across work-items by cutting the loops at implicit barriers
 * (region mode) where every work-item runs them equally often: serial
 * task kernels storing one result, uniform and per-work-item
 * trip counts, nested loops, early exits, loops that store, float and
 * double recurrences (clpeak-style), with group sizes that leave partial
 * vectors; and loops that call what cannot be widened (a Sleef math
 * function, a noinline function, printf), which once crashed LLVM's
 * outer-loop vectoriser and failed the build. Every element is compared
 * with a host computation. */
#include "test_util.h"
#include <math.h>
#include <unistd.h>

static const char *source =
    "__kernel void uniform_trip(__global float *o, float a, int n) {\n"
    "  float x = a, y = (float)get_local_id(0);\n"
    "  for (int i = 0; i < n; i++) { x = mad(x, 0.75f, y * 0.125f); y = mad(y, 0.5f, x * 0.25f) + 1.0f; }\n"
    "  o[get_global_id(0)] = x + y;\n"
    "}\n"
    "__kernel void per_item_trip(__global int *o) {\n"
    "  int g = (int)get_global_id(0), s = 0;\n"
    "  for (int i = 0; i < g % 37; i++) s += i * g;\n"
    "  o[g] = s;\n"
    "}\n"
    "__kernel void nested(__global const double *in, __global double *o, int n, int m) {\n"
    "  size_t g = get_global_id(0);\n"
    "  double acc = 0.0;\n"
    "  for (int i = 0; i < n; i++)\n"
    "    for (int j = 0; j < m; j++) acc += in[(g + i * m + j) % 1024] * (i - j);\n"
    "  o[g] = acc;\n"
    "}\n"
    "__kernel void early_exit(__global const int *in, __global int *o) {\n"
    "  size_t g = get_global_id(0);\n"
    "  int found = -1;\n"
    "  for (int i = 0; i < 64; i++) if (in[(g + i) % 4096] == 7) { found = i; break; }\n"
    "  o[g] = found;\n"
    "}\n"
    "__kernel void vector_loop(__global float *o, float a) {\n"
    "  float4 x = (float4)(a, a + 1, a + 2, a + 3);\n"
    "  float4 y = (float4)((float)get_local_id(0) * 0.001f);\n"
    "  for (int i = 0; i < 16; i++) { x = mad(y, x, y) * 0.5f; y = mad(x, y, x) * 0.5f; }\n"
    "  o[get_global_id(0)] = y.s0 + y.s1 + y.s2 + y.s3;\n"
    "}\n"
    "__attribute__((noinline)) float helper(float x) { return x * 3.0f + 1.0f; }\n"
    "__kernel void calls_in_loop(__global float *o, __global const float *x, int n) {\n"
    "  float a = 0.0f, b = 0.0f;\n"
    "  for (int i = 0; i < n; i++) { a += sin(x[i]); b += helper((float)i); }\n"
    "  for (int i = 0; i < n - 100; i++) printf(\"%d\\n\", i);\n"
    "  o[2 * get_global_id(0)] = a; o[2 * get_global_id(0) + 1] = b;\n"
    "}\n"
    "__kernel void store_in_loop(__global int *o, int n) {\n"
    "  size_t g = get_global_id(0);\n"
    "  for (int i = 0; i < n; i++) o[g * n + i] = (int)g * 3 + i;\n"
    "}\n"
    /* Constant trips, short bodies: region mode unrolls these loops
     * (by 8 and 4) before cutting them (region.cpp), one with a store in
     * every trip. */
    "__kernel void const_trip(__global uint *o, __global uint *steps) {\n"
    "  uint g = get_global_id(0), x = g, y = 7;\n"
    "  for (int i = 0; i < 24; i++) {\n"
    "    x = x * 3u + y; y = y ^ (x >> 3); steps[g * 24 + i] = x;\n"
    "  }\n"
    "  o[g] = x + y;\n"
    "}\n"
    /* Long enough for interleaved region loops: groups of 173 run a
     * wide loop over work-items 0-127 and a narrow one over the rest
     * (region_driver.cpp). */
    "#define PAIR x = mad(x, 0.75f, y * 0.125f); y = mad(y, 0.5f, x * 0.25f) + 1.0f;\n"
    "__kernel void const_float(__global float *o, float a) {\n"
    "  float x = a, y = (float)get_local_id(0);\n"
    "  for (int i = 0; i < 32; i++) { PAIR PAIR PAIR PAIR }\n"
    "  o[get_global_id(0)] = x + y;\n"
    "}\n"
    "__kernel void const_chain(__global uint *o) {\n"
    "  uint g = get_global_id(0), x = g, y = (uint)get_local_id(0);\n"
    "  for (int i = 0; i < 40; i++) { x = x * 5u + y; y = (y * 3u) ^ x; }\n"
    "  o[g] = x - y;\n"
    "}\n"
    /* Serial \"task\" kernels of algorithm libraries: every work-item
     * computes the same result and stores it to one address. */
    "__kernel void task_count(__global const float *in, uint n, __global int *r) {\n"
    "  int c = 0;\n"
    "  for (uint i = 0; i < n; i++) { if (in[i] > 2.0f) c++; }\n"
    "  *r = c;\n"
    "}\n"
    "__kernel void task_accumulate(__global const float *in, uint n, __global int *r) {\n"
    "  int acc = 1;\n"
    "  for (uint i = 0; i < n; i++) acc = acc + in[i];\n"
    "  *r = acc;\n"
    "}\n"
    "__kernel void task_any(__global const float *in, uint n, __global int *r) {\n"
    "  int any = 0;\n"
    "  for (uint i = 0; i < n; i++) any = any || (in[i] < 0.0f);\n"
    "  *r = any + 10;\n"
    "}\n"
    /* A lock held across a uniform loop: cutting the loop at an implicit
     * barrier would leave the holder waiting there while the others spin
     * (it hung the host thread). */
    "__kernel void locked_sum(__global int *o, __global int *lock, int n) {\n"
    "  while (atomic_cmpxchg(lock, 0, 1) != 0) ;\n"
    "  int s = 0;\n"
    "  for (int i = 0; i < n; i++) s += i;\n"
    "  o[get_global_id(0)] = s;\n"
    "  atomic_xchg(lock, 0);\n"
    "}\n";

/* locked_sum over 4 groups of 64: every element 0 + 1 + ... + 9. */
static void test_lock(test_env *env, cl_program p) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, "locked_sum", &err);
  REQUIRE_OK(err);
  int zero = 0, n = 10, out[256];
  cl_mem bo = test_buffer(env, sizeof out, NULL);
  cl_mem bl = test_buffer(env, sizeof zero, &zero);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bl, &bl));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof n, &n));
  size_t global = 256, local = 64;
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < 256; i++)
    bad += out[i] != 45;
  CHECK_EQ(bad, 0);
  clReleaseMemObject(bo);
  clReleaseMemObject(bl);
  clReleaseKernel(k);
}

/* Runs task kernel name over input in[n] with 1, 4, 16, 64 and 1000
 * work-items in one group and checks the single result against want.
 * Loop mode once stored the initial value of the accumulator (LLVM's
 * outer-loop vectoriser, issue 13). */
static void check_task(test_env *env, cl_program p, const char *name,
                       const float *in, cl_uint n, int want) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  cl_mem bi = test_buffer(env, n * sizeof(float), (void *)in);
  cl_mem br = test_buffer(env, sizeof(int), NULL);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bi, &bi));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof n, &n));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof br, &br));
  static const size_t sizes[] = {1, 4, 16, 64, 1000};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int got = -12345;
    REQUIRE_OK(clEnqueueWriteBuffer(env->queue, br, CL_TRUE, 0, sizeof got,
                                    &got, 0, NULL, NULL));
    REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &sizes[s],
                                      &sizes[s], 0, NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env->queue, br, CL_TRUE, 0, sizeof got,
                                   &got, 0, NULL, NULL));
    if (got != want)
      fprintf(stderr, "%s over %zu work-items: %d, want %d\n", name,
              sizes[s], got, want);
    CHECK_EQ(got, want);
  }
  clReleaseMemObject(bi);
  clReleaseMemObject(br);
  clReleaseKernel(k);
}

static void test_tasks(test_env *env, cl_program p) {
  static const float five[] = {1, 2, 3, 4, 5};
  check_task(env, p, "task_count", five, 5, 3);
  static float many[777];
  int count = 0, acc = 1;
  for (int i = 0; i < 777; i++) {
    many[i] = (float)((i * 37) % 11) * 0.5f;
    count += many[i] > 2.0f;
    acc = (int)((float)acc + many[i]);
  }
  check_task(env, p, "task_count", many, 777, count);
  check_task(env, p, "task_accumulate", many, 777, acc);
  check_task(env, p, "task_any", many, 777, 10);
  many[500] = -1.0f;
  check_task(env, p, "task_any", many, 777, 11);
}

/* const_trip and const_chain over n work-items in groups of local,
 * every result and every stored step against the host. */
static void test_const_trips(test_env *env, cl_program p, size_t n,
                             size_t local) {
  cl_int err;
  cl_kernel kt = clCreateKernel(p, "const_trip", &err);
  REQUIRE_OK(err);
  cl_kernel kc = clCreateKernel(p, "const_chain", &err);
  REQUIRE_OK(err);
  cl_mem bo = test_buffer(env, n * sizeof(cl_uint), NULL);
  cl_mem bs = test_buffer(env, n * 24 * sizeof(cl_uint), NULL);
  cl_mem bc = test_buffer(env, n * sizeof(cl_uint), NULL);
  REQUIRE_OK(clSetKernelArg(kt, 0, sizeof bo, &bo));
  REQUIRE_OK(clSetKernelArg(kt, 1, sizeof bs, &bs));
  REQUIRE_OK(clSetKernelArg(kc, 0, sizeof bc, &bc));
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, kt, 1, NULL, &n, &local, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, kc, 1, NULL, &n, &local, 0,
                                    NULL, NULL));
  cl_uint *o = malloc(n * sizeof *o), *st = malloc(n * 24 * sizeof *st),
          *c = malloc(n * sizeof *c);
  if (!o || !st || !c) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, bo, CL_TRUE, 0, n * sizeof *o,
                                 o, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, bs, CL_TRUE, 0,
                                 n * 24 * sizeof *st, st, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, bc, CL_TRUE, 0, n * sizeof *c,
                                 c, 0, NULL, NULL));
  int bad = 0;
  for (size_t g = 0; g < n; g++) {
    cl_uint x = (cl_uint)g, y = 7;
    for (int i = 0; i < 24; i++) {
      x = x * 3u + y;
      y = y ^ (x >> 3);
      bad += st[g * 24 + i] != x;
    }
    bad += o[g] != x + y;
    x = (cl_uint)g;
    y = (cl_uint)(g % local);
    for (int i = 0; i < 40; i++) {
      x = x * 5u + y;
      y = (y * 3u) ^ x;
    }
    bad += c[g] != x - y;
  }
  CHECK(bad == 0);
  if (bad)
    fprintf(stderr, "const_trip/const_chain (%zu items, groups of %zu): "
                    "%d wrong\n", n, local, bad);
  free(o);
  free(st);
  free(c);
  clReleaseMemObject(bo);
  clReleaseMemObject(bs);
  clReleaseMemObject(bc);
  clReleaseKernel(kt);
  clReleaseKernel(kc);
}

/* uniform_trip's and const_float's recurrence: a contraction towards a
 * fixed point, so that every work-item's value stays finite (the one
 * before, (y * x + y) / 2, overflowed to inf for every y above 2 within
 * 50 steps, and inf compared with inf passed whatever the kernel did). */
static float host_uniform(float a, float y, int n) {
  float x = a;
  for (int i = 0; i < n; i++) {
    x = fmaf(x, 0.75f, y * 0.125f);
    y = fmaf(y, 0.5f, x * 0.25f) + 1.0f;
  }
  return x + y;
}

int main(void) {
  test_env env;
  test_setup(&env);
  cl_int err;
  cl_program p = test_build(&env, source, "-cl-std=CL3.0");
  test_tasks(&env, p);
  test_const_trips(&env, p, 4096 + 77, 173);
  test_const_trips(&env, p, 1024, 256);
  alarm(120);   /* a hang is a failure, not a stuck CI run */
  test_lock(&env, p);
  alarm(0);
  enum { N = 4096 + 77 }; /* not a multiple of any vector width */
  size_t global = N, local = 173;

  /* const_float: uniform_trip's recurrence, 128 steps. */
  {
    cl_kernel kf = clCreateKernel(p, "const_float", &err);
    REQUIRE_OK(err);
    cl_mem bf = clCreateBuffer(env.context, 0, N * sizeof(float), NULL, &err);
    REQUIRE_OK(err);
    float a0 = 0.75f;
    REQUIRE_OK(clSetKernelArg(kf, 0, sizeof bf, &bf));
    REQUIRE_OK(clSetKernelArg(kf, 1, sizeof a0, &a0));
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, kf, 1, NULL, &global,
                                      &local, 0, NULL, NULL));
    static float ff[N];
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, bf, CL_TRUE, 0, sizeof ff, ff,
                                   0, NULL, NULL));
    int wrong = 0;
    for (int i = 0; i < N; i++) {
      float want = host_uniform(a0, (float)(i % local), 128);
      if (!(fabsf(ff[i] - want) <= 1e-4f * fabsf(want) + 1e-6f))
        wrong++;
    }
    CHECK_EQ(wrong, 0);
    clReleaseMemObject(bf);
    clReleaseKernel(kf);
  }

  /* uniform_trip: mad may or may not fuse; allow one rounding per step. */
  cl_kernel k = clCreateKernel(p, "uniform_trip", &err);
  REQUIRE_OK(err);
  cl_mem of = clCreateBuffer(env.context, 0, N * sizeof(float), NULL, &err);
  REQUIRE_OK(err);
  float a = 0.75f;
  int n = 50;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof of, &of));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof n, &n));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local, 0,
                                    NULL, NULL));
  static float fo[N];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, of, CL_TRUE, 0, sizeof fo, fo, 0,
                                 NULL, NULL));
  int bad = 0;
  for (int i = 0; i < N; i++) {
    float want = host_uniform(a, (float)(i % local), n);
    if (!(fabsf(fo[i] - want) <= 1e-4f * fabsf(want) + 1e-6f))
      bad++;
  }
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);

  /* per_item_trip: exact. */
  k = clCreateKernel(p, "per_item_trip", &err);
  REQUIRE_OK(err);
  cl_mem oi = clCreateBuffer(env.context, 0, N * 64 * sizeof(int), NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof oi, &oi));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local, 0,
                                    NULL, NULL));
  static int io[N * 64];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, oi, CL_TRUE, 0, N * sizeof(int),
                                 io, 0, NULL, NULL));
  bad = 0;
  for (int g = 0; g < N; g++) {
    int s = 0;
    for (int i = 0; i < g % 37; i++)
      s += i * g;
    bad += io[g] != s;
  }
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);

  /* nested: doubles, exact (same operation order). */
  k = clCreateKernel(p, "nested", &err);
  REQUIRE_OK(err);
  static double din[1024], dout[N];
  for (int i = 0; i < 1024; i++)
    din[i] = (double)(i % 13) - 6.5;
  cl_mem bin = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR, sizeof din,
                              din, &err);
  REQUIRE_OK(err);
  cl_mem bout = clCreateBuffer(env.context, 0, sizeof dout, NULL, &err);
  REQUIRE_OK(err);
  int nn = 5, mm = 7;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bin, &bin));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bout, &bout));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof nn, &nn));
  REQUIRE_OK(clSetKernelArg(k, 3, sizeof mm, &mm));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bout, CL_TRUE, 0, sizeof dout,
                                 dout, 0, NULL, NULL));
  bad = 0;
  for (int g = 0; g < N; g++) {
    double acc = 0.0;
    for (int i = 0; i < nn; i++)
      for (int j = 0; j < mm; j++)
        acc += din[(g + i * mm + j) % 1024] * (i - j);
    bad += dout[g] != acc;
  }
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);

  /* early_exit: exact. */
  k = clCreateKernel(p, "early_exit", &err);
  REQUIRE_OK(err);
  static int ein[4096];
  for (int i = 0; i < 4096; i++)
    ein[i] = (i * 7919) % 101 == 0 ? 7 : i % 5;
  cl_mem ebin = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR, sizeof ein,
                               ein, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof ebin, &ebin));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof oi, &oi));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, oi, CL_TRUE, 0, N * sizeof(int),
                                 io, 0, NULL, NULL));
  bad = 0;
  for (int g = 0; g < N; g++) {
    int found = -1;
    for (int i = 0; i < 64; i++)
      if (ein[(g + i) % 4096] == 7) {
        found = i;
        break;
      }
    bad += io[g] != found;
  }
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);

  /* vector_loop: a loop computing in float4 (such loops are not
   * vectorised across work-items; this once crashed the optimiser). */
  k = clCreateKernel(p, "vector_loop", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof of, &of));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof a, &a));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, of, CL_TRUE, 0, sizeof fo, fo, 0,
                                 NULL, NULL));
  bad = 0;
  for (int g = 0; g < N; g++) {
    float sum = 0.0f;
    for (int c = 0; c < 4; c++) {
      float x = a + (float)c, y = (float)(g % local) * 0.001f;
      for (int i = 0; i < 16; i++) {
        x = fmaf(y, x, y) * 0.5f;
        y = fmaf(x, y, x) * 0.5f;
      }
      sum += y;
    }
    if (fabsf(fo[g] - sum) > 1e-4f * fabsf(sum) + 1e-6f)
      bad++;
  }
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);

  /* store_in_loop: exact. */
  k = clCreateKernel(p, "store_in_loop", &err);
  REQUIRE_OK(err);
  int sn = 9;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof oi, &oi));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof sn, &sn));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, oi, CL_TRUE, 0,
                                 N * sn * sizeof(int), io, 0, NULL, NULL));
  bad = 0;
  for (int g = 0; g < N; g++)
    for (int i = 0; i < sn; i++)
      bad += io[g * sn + i] != g * 3 + i;
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);

  /* calls_in_loop: sin within its 4 ULP per term (the sum is compared
   * loosely), helper exactly (small integers); the printf loop runs no
   * iteration (n < 100), so nothing is printed. */
  k = clCreateKernel(p, "calls_in_loop", &err);
  REQUIRE_OK(err);
  static float xs[64], co[2 * N];
  for (int i = 0; i < 64; i++)
    xs[i] = (float)i * 0.37f - 11.0f;
  cl_mem bx = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR, sizeof xs, xs,
                             &err);
  REQUIRE_OK(err);
  cl_mem bc = clCreateBuffer(env.context, 0, sizeof co, NULL, &err);
  REQUIRE_OK(err);
  int cn = 64;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bc, &bc));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bx, &bx));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof cn, &cn));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bc, CL_TRUE, 0, sizeof co, co, 0,
                                 NULL, NULL));
  double want_a = 0.0, want_b = 0.0;
  for (int i = 0; i < cn; i++) {
    want_a += sin((double)xs[i]);
    want_b += i * 3.0 + 1.0;
  }
  bad = 0;
  for (int g = 0; g < N; g++)
    bad += fabs(co[2 * g] - want_a) > 1e-4 || co[2 * g + 1] != want_b;
  CHECK_EQ(bad, 0);
  clReleaseMemObject(bx);
  clReleaseMemObject(bc);
  clReleaseKernel(k);

  clReleaseMemObject(of);
  clReleaseMemObject(oi);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
  clReleaseMemObject(ebin);
  clReleaseProgram(p);
  test_teardown(&env);
  return test_finish("kernel-loops");
}
