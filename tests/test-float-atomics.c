/* This file contains the tests of cl_ext_float_atomics: the extension,
 * its fourteen OpenCL C features and the three capability queries are
 * reported; atomic_fetch_add/sub/min/max (plain and _explicit) on
 * atomic_half, atomic_float and atomic_double, in global, local and
 * generic memory, give exact results with many work-items contending on
 * few addresses (integer-valued sums, every old value returned exactly
 * once by a counter), min/max follow the extension's NaN rules (a NaN
 * operand or stored value is ignored), and single operations match the
 * host bit for bit. Every kernel runs in the default modes (loop, region
 * for barrier kernels), in fiber mode and with region mode off. */
#include "test_util.h"

#include <math.h>
#include <stdint.h>

static test_env env;

/* cl_ext_float_atomics (Debian's headers lack it). */
#define SINGLE_FP_ATOMIC_CAPS 0x4231
#define DOUBLE_FP_ATOMIC_CAPS 0x4232
#define HALF_FP_ATOMIC_CAPS 0x4233
#define ALL_FP_ATOMIC_CAPS                                                 \
  ((1u << 0) | (1u << 1) | (1u << 2) | (1u << 16) | (1u << 17) | (1u << 18))

static const char *const features[] = {
    "__opencl_c_ext_fp16_global_atomic_load_store",
    "__opencl_c_ext_fp16_local_atomic_load_store",
    "__opencl_c_ext_fp16_global_atomic_add",
    "__opencl_c_ext_fp32_global_atomic_add",
    "__opencl_c_ext_fp64_global_atomic_add",
    "__opencl_c_ext_fp16_local_atomic_add",
    "__opencl_c_ext_fp32_local_atomic_add",
    "__opencl_c_ext_fp64_local_atomic_add",
    "__opencl_c_ext_fp16_global_atomic_min_max",
    "__opencl_c_ext_fp32_global_atomic_min_max",
    "__opencl_c_ext_fp64_global_atomic_min_max",
    "__opencl_c_ext_fp16_local_atomic_min_max",
    "__opencl_c_ext_fp32_local_atomic_min_max",
    "__opencl_c_ext_fp64_local_atomic_min_max",
};
#define NUM_FEATURES (int)(sizeof features / sizeof features[0])

/* Built with -DT=<type> -DA=atomic_<type>. */
static const char *source =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "#ifndef cl_ext_float_atomics\n"
    "#error cl_ext_float_atomics not defined\n"
    "#endif\n"
    /* Contended global add and sub; cnt counts by one so that the old
     * values it returns name every count exactly once. */
    "kernel void gadd(global A *acc, global A *sub, global A *cnt,\n"
    "                 global const T *v, global T *old, uint k) {\n"
    "  size_t i = get_global_id(0);\n"
    "  atomic_fetch_add(&acc[i % k], v[i]);\n"
    "  atomic_fetch_sub_explicit(&sub[i % k], v[i], memory_order_relaxed,\n"
    "                            memory_scope_device);\n"
    "  old[i] = atomic_fetch_add_explicit(&cnt[i % k], (T)1,\n"
    "                                     memory_order_acq_rel);\n"
    "}\n"
    "kernel void gminmax(global A *mn, global A *mx, global const T *v,\n"
    "                    uint k) {\n"
    "  size_t i = get_global_id(0);\n"
    "  atomic_fetch_min(&mn[i % k], v[i]);\n"
    "  atomic_fetch_max_explicit(&mx[i % k], v[i], memory_order_relaxed);\n"
    "}\n"
    /* The same in local memory (k <= 8), written out per group: sums,
     * counters, minima, maxima, each k values. */
    "kernel void lops(global T *out, global const T *v, global T *old,\n"
    "                 global const T *init, uint k) {\n"
    "  local A acc[8], cnt[8], mn[8], mx[8];\n"
    "  size_t l = get_local_id(0), i = get_global_id(0);\n"
    "  if (l < k) {\n"
    "    atomic_store_explicit(&acc[l], (T)0, memory_order_relaxed);\n"
    "    atomic_store_explicit(&cnt[l], (T)0, memory_order_relaxed);\n"
    "    atomic_store_explicit(&mn[l], init[l], memory_order_relaxed);\n"
    "    atomic_store_explicit(&mx[l], init[l], memory_order_relaxed);\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  atomic_fetch_add(&acc[l % k], v[i]);\n"
    "  atomic_fetch_sub_explicit(&acc[l % k], (T)0.0, memory_order_relaxed);\n"
    "  old[i] = atomic_fetch_add_explicit(&cnt[l % k], (T)1,\n"
    "      memory_order_relaxed, memory_scope_work_group);\n"
    "  atomic_fetch_min_explicit(&mn[l % k], v[i], memory_order_seq_cst,\n"
    "                            memory_scope_work_group);\n"
    "  atomic_fetch_max(&mx[l % k], v[i]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l < k) {\n"
    "    global T *o = out + 4 * k * get_group_id(0);\n"
    "    o[l] = atomic_load(&acc[l]);\n"
    "    o[k + l] = atomic_load_explicit(&cnt[l], memory_order_acquire);\n"
    "    o[2 * k + l] = atomic_load(&mn[l]);\n"
    "    o[3 * k + l] = atomic_load(&mx[l]);\n"
    "  }\n"
    "}\n"
    /* Generic pointers: one helper on a global and a local object. */
    "T gen_op(volatile A *p, T v, int op) {\n"
    "  switch (op) {\n"
    "  case 0: return atomic_fetch_add(p, v);\n"
    "  case 1: return atomic_fetch_sub_explicit(p, v, memory_order_relaxed,\n"
    "                                           memory_scope_device);\n"
    "  case 2: return atomic_fetch_min(p, v);\n"
    "  default: return atomic_fetch_max_explicit(p, v,\n"
    "                                            memory_order_seq_cst);\n"
    "  }\n"
    "}\n"
    "kernel void gen(global A *g, global T *out, global const T *v) {\n"
    "  local A s[1];\n"
    "  size_t l = get_local_id(0), i = get_global_id(0);\n"
    "  if (l == 0)\n"
    "    atomic_store(&s[0], (T)0);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  gen_op(&g[0], v[i], 0);\n"
    "  gen_op(&g[1], v[i], 1);\n"
    "  gen_op(&g[2], v[i], 2);\n"
    "  gen_op(&g[3], v[i], 3);\n"
    "  gen_op(&s[0], v[i], 0);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l == 0)\n"
    "    out[get_group_id(0)] = atomic_load(&s[0]);\n"
    "}\n"
    /* One operation per work-item on its own object: the returned old
     * value and the new one against the host. */
    "kernel void single(global A *slot, global const T *x, global T *old,\n"
    "                   int op) {\n"
    "  size_t i = get_global_id(0);\n"
    "  T r;\n"
    "  switch (op) {\n"
    "  case 0: r = atomic_fetch_add(&slot[i], x[i]); break;\n"
    "  case 1: r = atomic_fetch_sub(&slot[i], x[i]); break;\n"
    "  case 2: r = atomic_fetch_min(&slot[i], x[i]); break;\n"
    "  case 3: r = atomic_fetch_max(&slot[i], x[i]); break;\n"
    "  default: r = atomic_exchange(&slot[i], x[i]); break;\n"
    "  }\n"
    "  old[i] = r;\n"
    "}\n";

/* The three element types: values go through double, which holds every
 * half, float and double exactly. */
typedef struct fa_type {
  const char *name;
  size_t size;
} fa_type;
static const fa_type types[] = {{"half", 2}, {"float", 4}, {"double", 8}};

static double get(const fa_type *t, const void *buf, size_t i) {
  if (t->size == 2) {
    _Float16 h;
    memcpy(&h, (const char *)buf + 2 * i, 2);
    return (double)h;
  }
  if (t->size == 4) {
    float f;
    memcpy(&f, (const char *)buf + 4 * i, 4);
    return f;
  }
  double d;
  memcpy(&d, (const char *)buf + 8 * i, 8);
  return d;
}

static void put(const fa_type *t, void *buf, size_t i, double v) {
  if (t->size == 2) {
    _Float16 h = (_Float16)v;
    memcpy((char *)buf + 2 * i, &h, 2);
  } else if (t->size == 4) {
    float f = (float)v;
    memcpy((char *)buf + 4 * i, &f, 4);
  } else {
    memcpy((char *)buf + 8 * i, &v, 8);
  }
}

/* The extension's min and max: a NaN on either side is ignored. */
static double ref_min(double a, double b) {
  return isnan(a) ? b : isnan(b) ? a : b < a ? b : a;
}
static double ref_max(double a, double b) {
  return isnan(a) ? b : isnan(b) ? a : b > a ? b : a;
}

/* got equals want, where either zero stands for a zero (min/max may give
 * either sign for -0/+0) when any_zero is set; NaN matches NaN. */
static int same(double got, double want, int any_zero) {
  if (isnan(want))
    return isnan(got);
  if (any_zero && want == 0)
    return got == 0;
  return got == want && signbit(got) == signbit(want);
}

/* Operands for min/max: NaNs, zeros of both signs, infinities and small
 * integers (exact in half), with address k - 1 receiving only NaNs. */
static double minmax_operand(size_t i, unsigned k) {
  if (i % k == k - 1)
    return NAN;
  switch (test_rand() % 8) {
  case 0: return NAN;
  case 1: return -0.0;
  case 2: return 0.0;
  case 3: return (test_rand() % 64) ? (double)(test_rand() % 200) - 100
                                    : INFINITY;
  default: return (double)(test_rand() % 2000) - 1000;
  }
}

static cl_kernel kernel(cl_program p, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  return k;
}

static void run(cl_kernel k, size_t global, size_t local) {
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global,
                                    local ? &local : NULL, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
}

static void read(cl_mem m, size_t size, void *dst) {
  REQUIRE_OK(
      clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, size, dst, 0, NULL, NULL));
}

/* Counter old values: for each address a, the olds returned by the items
 * i with i % k == a (within one group when group is set) must be 0..n-1,
 * each once. */
static int counts_ok(const fa_type *t, const void *old, size_t n, unsigned k,
                     size_t group) {
  int bad = 0;
  size_t span = group ? group : n;
  for (size_t g0 = 0; g0 < n; g0 += span)
    for (unsigned a = 0; a < k; a++) {
      size_t per = (span + k - 1 - a) / k;
      unsigned char *seen = calloc(per, 1);
      for (size_t i = g0 + a; i < g0 + span; i += k) {
        double v = get(t, old, i);
        if (v < 0 || v >= (double)per || v != floor(v) || seen[(size_t)v]++)
          bad++;
      }
      free(seen);
    }
  return bad;
}

/* Contended global add, sub and counters: 4096 items on k addresses. */
static void test_global_add(const fa_type *t, cl_program p) {
  enum { N = 4096, K = 16 };
  unsigned k = K;
  char v[N * 8], old[N * 8], zero[K * 8] = {0}, acc[K * 8], sub[K * 8],
      cnt[K * 8];
  double want[K] = {0};
  for (size_t i = 0; i < N; i++) {
    double x = (double)(test_rand() % 4 + 1);
    put(t, v, i, x);
    want[i % K] += x;   /* at most 1024 per address: exact in half */
  }
  cl_mem m[5] = {test_buffer(&env, K * t->size, zero),
                 test_buffer(&env, K * t->size, zero),
                 test_buffer(&env, K * t->size, zero),
                 test_buffer(&env, N * t->size, v),
                 test_buffer(&env, N * t->size, NULL)};
  cl_kernel kk = kernel(p, "gadd");
  for (int a = 0; a < 5; a++)
    REQUIRE_OK(clSetKernelArg(kk, a, sizeof(cl_mem), &m[a]));
  REQUIRE_OK(clSetKernelArg(kk, 5, sizeof k, &k));
  run(kk, N, 0);
  read(m[0], K * t->size, acc);
  read(m[1], K * t->size, sub);
  read(m[2], K * t->size, cnt);
  read(m[4], N * t->size, old);
  int bad = 0;
  for (int a = 0; a < K; a++)
    bad += get(t, acc, a) != want[a] || get(t, sub, a) != -want[a] ||
           get(t, cnt, a) != N / K;
  CHECK_EQ(bad, 0);
  CHECK_EQ(counts_ok(t, old, N, K, 0), 0);
  REQUIRE_OK(clReleaseKernel(kk));
  test_release_buffers(m, 5);
}

/* Contended global min and max, the objects starting as NaN. */
static void test_global_minmax(const fa_type *t, cl_program p) {
  enum { N = 4096, K = 16 };
  unsigned k = K;
  char v[N * 8], init[K * 8], mn[K * 8], mx[K * 8];
  double wmin[K], wmax[K];
  for (int a = 0; a < K; a++) {
    put(t, init, a, NAN);
    wmin[a] = wmax[a] = NAN;
  }
  for (size_t i = 0; i < N; i++) {
    double x = minmax_operand(i, K);
    put(t, v, i, x);
    wmin[i % K] = ref_min(wmin[i % K], x);
    wmax[i % K] = ref_max(wmax[i % K], x);
  }
  cl_mem m[3] = {test_buffer(&env, K * t->size, init),
                 test_buffer(&env, K * t->size, init),
                 test_buffer(&env, N * t->size, v)};
  cl_kernel kk = kernel(p, "gminmax");
  for (int a = 0; a < 3; a++)
    REQUIRE_OK(clSetKernelArg(kk, a, sizeof(cl_mem), &m[a]));
  REQUIRE_OK(clSetKernelArg(kk, 3, sizeof k, &k));
  run(kk, N, 0);
  read(m[0], K * t->size, mn);
  read(m[1], K * t->size, mx);
  int bad = 0;
  for (int a = 0; a < K; a++) {
    if (!same(get(t, mn, a), wmin[a], 1) || !same(get(t, mx, a), wmax[a], 1)) {
      fprintf(stderr, "%s min/max address %d: %g %g, want %g %g\n", t->name,
              a, get(t, mn, a), get(t, mx, a), wmin[a], wmax[a]);
      bad++;
    }
  }
  CHECK_EQ(bad, 0);
  CHECK(isnan(wmin[K - 1]));   /* the all-NaN address was checked */
  REQUIRE_OK(clReleaseKernel(kk));
  test_release_buffers(m, 3);
}

/* Local add, counters, min and max: 16 groups of 64 on 4 addresses. */
static void test_local(const fa_type *t, cl_program p) {
  enum { G = 64, NG = 16, N = G * NG, K = 4 };
  unsigned k = K;
  char v[N * 8], old[N * 8], init[K * 8], out[NG * 4 * K * 8];
  double want[NG][4][K];
  for (int a = 0; a < K; a++)
    put(t, init, a, a == 1 ? NAN : 5.0);   /* a stored NaN is ignored */
  for (int g = 0; g < NG; g++)
    for (int a = 0; a < K; a++) {
      want[g][0][a] = 0;
      want[g][1][a] = G / K;
      want[g][2][a] = want[g][3][a] = get(t, init, a);
    }
  for (size_t i = 0; i < N; i++) {
    double x = minmax_operand(i, K);
    if (i % K == K - 1)
      x = (double)(test_rand() % 100) - 50;   /* no all-NaN address here */
    put(t, v, i, x);
    want[i / G][2][i % K] = ref_min(want[i / G][2][i % K], x);
    want[i / G][3][i % K] = ref_max(want[i / G][3][i % K], x);
  }
  /* The sums take small integers (exact in half at every step; a NaN or
   * inf - inf would hide the others): a second operand array. */
  char vadd[N * 8];
  for (size_t i = 0; i < N; i++) {
    double x = get(t, v, i);
    x = isfinite(x) ? fmod(x, 8.0) : 1.0;
    put(t, vadd, i, x);
    want[i / G][0][i % K] += x;
  }
  /* Run once with v (for min/max) and once with vadd (for the sums). */
  cl_kernel kk = kernel(p, "lops");
  for (int pass = 0; pass < 2; pass++) {
    cl_mem m[4] = {test_buffer(&env, sizeof out, NULL),
                   test_buffer(&env, N * t->size, pass ? vadd : v),
                   test_buffer(&env, N * t->size, NULL),
                   test_buffer(&env, K * t->size, init)};
    for (int a = 0; a < 4; a++)
      REQUIRE_OK(clSetKernelArg(kk, a, sizeof(cl_mem), &m[a]));
    REQUIRE_OK(clSetKernelArg(kk, 4, sizeof k, &k));
    run(kk, N, G);
    read(m[0], NG * 4 * K * t->size, out);
    read(m[2], N * t->size, old);
    int bad = 0;
    for (int g = 0; g < NG; g++)
      for (int a = 0; a < K; a++) {
        size_t base = (size_t)g * 4 * K;
        if (pass) {
          bad += get(t, out, base + a) != want[g][0][a];
        } else {
          double mn = get(t, out, base + 2 * K + a),
                 mx = get(t, out, base + 3 * K + a);
          if (!same(mn, want[g][2][a], 1) || !same(mx, want[g][3][a], 1)) {
            if (bad++ < 4)
              fprintf(stderr, "%s local group %d address %d: min/max %g %g, "
                      "want %g %g\n", t->name, g, a, mn, mx, want[g][2][a],
                      want[g][3][a]);
          }
        }
        bad += get(t, out, base + K + a) != G / K;
      }
    CHECK_EQ(bad, 0);
    CHECK_EQ(counts_ok(t, old, N, K, G), 0);
    test_release_buffers(m, 4);
  }
  REQUIRE_OK(clReleaseKernel(kk));
}

/* The generic-pointer forms on global and local objects. */
static void test_generic(const fa_type *t, cl_program p) {
  enum { G = 32, NG = 8, N = G * NG };
  char v[N * 8], g[4 * 8], out[NG * 8];
  double sum = 0, mn = 7, mx = 7, gsum[NG] = {0};
  put(t, g, 0, 0);
  put(t, g, 1, 0);
  put(t, g, 2, 7);
  put(t, g, 3, 7);
  for (size_t i = 0; i < N; i++) {
    double x = (double)(test_rand() % 16) - 8;
    put(t, v, i, x);
    sum += x;
    gsum[i / G] += x;
    mn = ref_min(mn, x);
    mx = ref_max(mx, x);
  }
  cl_mem m[3] = {test_buffer(&env, 4 * t->size, g),
                 test_buffer(&env, NG * t->size, NULL),
                 test_buffer(&env, N * t->size, v)};
  cl_kernel kk = kernel(p, "gen");
  for (int a = 0; a < 3; a++)
    REQUIRE_OK(clSetKernelArg(kk, a, sizeof(cl_mem), &m[a]));
  run(kk, N, G);
  read(m[0], 4 * t->size, g);
  read(m[1], NG * t->size, out);
  CHECK(get(t, g, 0) == sum);
  CHECK(get(t, g, 1) == -sum);
  CHECK(get(t, g, 2) == mn);
  CHECK(get(t, g, 3) == mx);
  int bad = 0;
  for (int i = 0; i < NG; i++)
    bad += get(t, out, i) != gsum[i];
  CHECK_EQ(bad, 0);
  REQUIRE_OK(clReleaseKernel(kk));
  test_release_buffers(m, 3);
}

/* Single operations on every pair of special and ordinary values. */
static void test_single(const fa_type *t, cl_program p) {
  static const double vals[] = {NAN, -0.0, 0.0, 1.0, -1.0, 0.5, 3.25,
                                -1000.0, INFINITY, -INFINITY, 0.1, 1e-3};
  enum { NV = sizeof vals / sizeof vals[0], N = NV * NV };
  char slot[N * 8], x[N * 8], old[N * 8], init[N * 8];
  for (int i = 0; i < NV; i++)
    for (int j = 0; j < NV; j++) {
      put(t, init, i * NV + j, vals[i]);
      put(t, x, i * NV + j, vals[j]);
    }
  cl_kernel kk = kernel(p, "single");
  for (int op = 0; op < 5; op++) {
    cl_mem m[3] = {test_buffer(&env, N * t->size, init),
                   test_buffer(&env, N * t->size, x),
                   test_buffer(&env, N * t->size, NULL)};
    for (int a = 0; a < 3; a++)
      REQUIRE_OK(clSetKernelArg(kk, a, sizeof(cl_mem), &m[a]));
    REQUIRE_OK(clSetKernelArg(kk, 3, sizeof op, &op));
    run(kk, N, 0);
    read(m[0], N * t->size, slot);
    read(m[2], N * t->size, old);
    int bad = 0;
    for (int i = 0; i < N; i++) {
      double s = get(t, init, i), y = get(t, x, i), want;
      char w[8];
      switch (op) {
      case 0: want = s + y; break;
      case 1: want = s - y; break;
      case 2: want = ref_min(s, y); break;
      case 3: want = ref_max(s, y); break;
      default: want = y; break;
      }
      /* Round the exact double result to the type once, as the device
       * does (a half or float sum of two such values is exact in
       * double). */
      put(t, w, 0, want);
      want = get(t, w, 0);
      if (!same(get(t, slot, i), want, op == 2 || op == 3) ||
          !same(get(t, old, i), s, 0)) {
        if (bad++ < 5)
          fprintf(stderr, "%s op %d: %g with %g gave %g (old %g), want %g\n",
                  t->name, op, s, y, get(t, slot, i), get(t, old, i), want);
      }
    }
    CHECK_EQ(bad, 0);
    test_release_buffers(m, 3);
  }
  REQUIRE_OK(clReleaseKernel(kk));
}

static void test_reports(void) {
  CHECK(test_extension_listed(&env, "cl_ext_float_atomics"));
  CHECK_EQ(test_extension_count(&env, "cl_ext_float_atomics",
                                CL_MAKE_VERSION(1, 0, 0)),
           1);
  for (int f = 0; f < NUM_FEATURES; f++)
    CHECK_EQ(test_c_feature_count(&env, features[f], 0), 1);
  static const cl_device_info q[] = {SINGLE_FP_ATOMIC_CAPS,
                                     DOUBLE_FP_ATOMIC_CAPS,
                                     HALF_FP_ATOMIC_CAPS};
  for (int i = 0; i < 3; i++) {
    cl_bitfield caps = 0;
    size_t size = 0;
    REQUIRE_OK(clGetDeviceInfo(env.device, q[i], sizeof caps, &caps, &size));
    CHECK_EQ(size, sizeof caps);
    CHECK_EQ(caps, ALL_FP_ATOMIC_CAPS);
    CHECK_EQ(clGetDeviceInfo(env.device, q[i], 4, &caps, NULL),
             CL_INVALID_VALUE);
  }
  /* Every feature macro is defined for a program, and the extension can
   * be turned off with -cl-ext. */
  char check[4096];
  int n = snprintf(check, sizeof check, "%s", "");
  for (int f = 0; f < NUM_FEATURES; f++)
    n += snprintf(check + n, sizeof check - (size_t)n,
                  "#ifndef %s\n#error %s\n#endif\n", features[f], features[f]);
  snprintf(check + n, sizeof check - (size_t)n, "kernel void k(void) {}\n");
  cl_program p = test_build(&env, check, "-cl-std=CL3.0");
  REQUIRE_OK(clReleaseProgram(p));
  cl_int err;
  const char *off = "#ifdef cl_ext_float_atomics\n#error on\n#endif\n"
                    "kernel void k(void) {}\n";
  p = clCreateProgramWithSource(env.context, 1, &off, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clBuildProgram(p, 1, &env.device,
                          "-cl-std=CL3.0 -cl-ext=-cl_ext_float_atomics", NULL,
                          NULL),
           CL_SUCCESS);
  REQUIRE_OK(clReleaseProgram(p));
}

int main(void) {
  test_setup(&env);
  test_seed(17);
  test_reports();
  static const char *const modes[] = {NULL, "fiber", "loop"};
  for (int mode = 0; mode < 3; mode++) {
    if (modes[mode])
      setenv("SKEIN_MODE", modes[mode], 1);
    int before = test_failures;
    for (int ti = 0; ti < 3; ti++) {
      const fa_type *t = &types[ti];
      char opts[128];
      snprintf(opts, sizeof opts, "-cl-std=CL3.0 -DT=%s -DA=atomic_%s",
               t->name, t->name);
      cl_program p = test_build(&env, source, opts);
      test_global_add(t, p);
      test_global_minmax(t, p);
      test_local(t, p);
      test_generic(t, p);
      test_single(t, p);
      REQUIRE_OK(clReleaseProgram(p));
    }
    unsetenv("SKEIN_MODE");
    printf("mode %s: %s\n", modes[mode] ? modes[mode] : "default",
           test_failures == before ? "ok" : "FAILED");
  }
  test_teardown(&env);
  return test_finish("float-atomics");
}
