/* This file tests the generic address space (__opencl_c_generic_address_space,
 * OpenCL C 2.0) through the ICD loader: the device queries; generic
 * pointers to global, local (kernel-scope and argument) and private data
 * chosen at run time and passed to functions that read and write through
 * them; to_global/to_local/to_private (NULL when the pointer is
 * elsewhere) and get_fence; the generic-pointer forms of fract, frexp,
 * modf, sincos, lgamma_r and remquo, whose results must equal the private
 * forms' (the same kernel built for OpenCL C 1.2); vloadn/vstoren and
 * vload_half/vstore_half through generic pointers. Kernels run built for
 * CL2.0 and CL3.0, in the default mode (loop, or region for the barrier
 * variants) and with SKEIN_MODE=fiber. */
#include "test_util.h"
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

static test_env env;

enum { N = 1024, GROUP = 64 };

/* ---- Device queries ---------------------------------------------------- */

static bool has_feature(const char *name) {
  return test_c_feature_count(&env, name, 0) > 0;
}

static void test_queries(void) {
  cl_bool b = CL_FALSE;
  REQUIRE_OK(clGetDeviceInfo(env.device,
                             CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT,
                             sizeof b, &b, NULL));
  CHECK_EQ(b, CL_TRUE);
  CHECK(has_feature("__opencl_c_generic_address_space"));
}

/* ---- Classification --------------------------------------------------- */

/* Work-item i picks, by i % 4, a generic pointer to its global element,
 * its kernel-scope local element, a private variable or its element of
 * the local argument; classify() reports what the to_* builtins and
 * get_fence say (bit 0 global, 1 local, 2 private, bit 3 the non-NULL
 * result equals the pointer, bits 4.. the fence), bump() writes through
 * the pointer, and the value read back shows it reached the right data. */
static const char classify_src[] =
  "#ifndef __opencl_c_generic_address_space\n"
  "#error no generic address space\n"
  "#endif\n"
  "int classify(generic int *p) {\n"
  "  int r = 0;\n"
  "  global int *g = to_global(p);\n"
  "  local int *l = to_local(p);\n"
  "  private int *q = to_private(p);\n"
  "  if (g) r |= 1 | ((generic int *)g == p ? 8 : 0);\n"
  "  if (l) r |= 2 | ((generic int *)l == p ? 8 : 0);\n"
  "  if (q) r |= 4 | ((generic int *)q == p ? 8 : 0);\n"
  "  return r | (int)get_fence(p) << 4 |\n"
  "         (int)get_fence((const generic int *)p) << 8;\n"
  "}\n"
  "void bump(generic int *p, int by) { *p += by; }\n"
  "kernel void cls(global int *g, global int *out, local int *larg) {\n"
  "  local int l[64];\n"
  "  int priv[3];\n"
  "  size_t i = get_global_id(0), lid = get_local_id(0);\n"
  "  l[lid] = (int)i * 3;\n"
  "  larg[lid] = (int)i * 5;\n"
  "  priv[i % 3] = (int)i * 7;\n"
  "  generic int *ptrs[4] = {g + i, l + lid, priv + i % 3, larg + lid};\n"
  "  generic int *p = ptrs[i % 4];\n"
  "#ifdef BARRIER\n"
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"
  "#endif\n"
  "  out[3 * i] = classify(p);\n"
  "  bump(p, 1000);\n"
  "#ifdef BARRIER\n"
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"
  "#endif\n"
  "  out[3 * i + 1] = *p;\n"
  "  out[3 * i + 2] = classify(p + 1) >> 4 & 15;\n"
  "}\n";

static void run_classify(const char *options) {
  cl_int err;
  int host_g[N], out[3 * N];
  for (int i = 0; i < N; i++)
    host_g[i] = i * 11;
  cl_mem g = clCreateBuffer(env.context, CL_MEM_READ_WRITE |
                            CL_MEM_COPY_HOST_PTR, sizeof host_g, host_g, &err);
  REQUIRE_OK(err);
  cl_mem o = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, sizeof out, NULL,
                            &err);
  REQUIRE_OK(err);
  cl_program p = test_build(&env, classify_src, options);
  cl_kernel k = clCreateKernel(p, "cls", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof g, &g));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof o, &o));
  REQUIRE_OK(clSetKernelArg(k, 2, GROUP * sizeof(int), NULL));
  size_t gs = N, ls = GROUP;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &gs, &ls, 0, NULL,
                                    NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, o, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  /* global: bit 0 | 8, CLK_GLOBAL_MEM_FENCE (2) twice; local: bit 1 | 8,
   * CLK_LOCAL_MEM_FENCE (1) twice; private: bit 2 | 8, no fence. */
  static const int want[4] = {1 | 8 | 2 << 4 | 2 << 8, 2 | 8 | 1 << 4 | 1 << 8,
                              4 | 8, 2 | 8 | 1 << 4 | 1 << 8};
  static const int fence_next[4] = {2, 1, 0, 1};
  int bad = 0;
  for (int i = 0; i < N && bad < 5; i++) {
    int kind = i % 4;
    int value = (kind == 0 ? i * 11 : kind == 1 ? i * 3 : kind == 2 ? i * 7
                                                                   : i * 5) +
                1000;
    if (out[3 * i] != want[kind] || out[3 * i + 1] != value ||
        out[3 * i + 2] != fence_next[kind]) {
      fprintf(stderr, "%s: item %d: class %#x (want %#x), value %d (want "
              "%d), next fence %d (want %d)\n", options, i, out[3 * i],
              want[kind], out[3 * i + 1], value, out[3 * i + 2],
              fence_next[kind]);
      bad++;
      test_failures++;
    }
  }
  clReleaseKernel(k);
  clReleaseProgram(p);
  clReleaseMemObject(g);
  clReleaseMemObject(o);
}

/* ---- Math builtins with a pointer argument ---------------------------- */

/* One type T (with IT the int type of the same width): every function's
 * pointer result goes, by i % 3, to global, local or private memory
 * through a generic pointer (GEN), or to a private variable through the
 * private overload (OpenCL C 1.2, the reference). */
#define MATH_SRC(T, IT)                                                      \
  "#define T " #T "\n#define IT " #IT "\n"                                   \
  "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"                          \
  "#ifdef GEN\n"                                                             \
  "#define PTR(P, gp, lp, pp) (i % 3 == 0 ? (generic P *)(gp) :\\\n"         \
  "    i % 3 == 1 ? (generic P *)(lp) : (generic P *)(pp))\n"                \
  "#else\n"                                                                  \
  "#define PTR(P, gp, lp, pp) (pp)\n"                                        \
  "#endif\n"                                                                 \
  "#define STEP(k, P, out, F) { P pv; \\\n"                                  \
  "    r[6 * i + k] = F; \\\n"                                               \
  "    SYNC out = *PTR(P, &out, &l##P[lid], &pv); }\n"                       \
  "kernel void m(global const T *x, global const T *y, global T *r,\n"       \
  "              global T *t, global IT *n) {\n"                             \
  "  local T lT[64]; local IT lIT[64];\n"                                    \
  "  size_t i = get_global_id(0), lid = get_local_id(0);\n"                  \
  "  T a = x[i], b = y[i];\n"                                                \
  "  STEP(0, T, t[3 * i], fract(a, PTR(T, &t[3 * i], &lT[lid], &pv)))\n"     \
  "  STEP(1, T, t[3 * i + 1], modf(a, PTR(T, &t[3 * i + 1], &lT[lid], &pv)))\n" \
  "  STEP(2, T, t[3 * i + 2], sincos(a, PTR(T, &t[3 * i + 2], &lT[lid], &pv)))\n" \
  "  STEP(3, IT, n[3 * i], frexp(a, PTR(IT, &n[3 * i], &lIT[lid], &pv)))\n"   \
  "  STEP(4, IT, n[3 * i + 1], lgamma_r(a, PTR(IT, &n[3 * i + 1], &lIT[lid], &pv)))\n" \
  "  STEP(5, IT, n[3 * i + 2], remquo(a, b, PTR(IT, &n[3 * i + 2], &lIT[lid], &pv)))\n" \
  "}\n"

/* The vector widths' lanes, as stored in buffers (3-vectors take 4). */
typedef struct math_type {
  const char *name;
  const char *src;
  size_t elem, lanes, stride; /* element bytes, lanes used, lanes stored */
} math_type;

static const math_type math_types[] = {
    {"float", MATH_SRC(float, int), 4, 1, 1},
    {"float4", MATH_SRC(float4, int4), 4, 4, 4},
    {"double3", MATH_SRC(double3, int3), 8, 3, 4},
    {"double16", MATH_SRC(double16, int16), 8, 16, 16},
};

/* Runs kernel m of src built with options over x, y; fills r, t, n. */
static void run_math(const math_type *ty, const char *options,
                     const void *x, const void *y, void *r, void *t,
                     int *n) {
  size_t vb = ty->elem * ty->stride, ib = sizeof(int) * ty->stride;
  cl_int err;
  cl_mem bx = clCreateBuffer(env.context, CL_MEM_READ_ONLY |
                             CL_MEM_COPY_HOST_PTR, N * vb, (void *)x, &err);
  REQUIRE_OK(err);
  cl_mem by = clCreateBuffer(env.context, CL_MEM_READ_ONLY |
                             CL_MEM_COPY_HOST_PTR, N * vb, (void *)y, &err);
  REQUIRE_OK(err);
  cl_mem br = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, 6 * N * vb,
                             NULL, &err);
  REQUIRE_OK(err);
  cl_mem bt = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 3 * N * vb,
                             NULL, &err);
  REQUIRE_OK(err);
  cl_mem bn = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 3 * N * ib,
                             NULL, &err);
  REQUIRE_OK(err);
  cl_program p = test_build(&env, ty->src, options);
  cl_kernel k = clCreateKernel(p, "m", &err);
  REQUIRE_OK(err);
  cl_mem args[5] = {bx, by, br, bt, bn};
  for (cl_uint a = 0; a < 5; a++)
    REQUIRE_OK(clSetKernelArg(k, a, sizeof(cl_mem), &args[a]));
  size_t gs = N, ls = GROUP;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &gs, &ls, 0, NULL,
                                    NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, br, CL_TRUE, 0, 6 * N * vb, r, 0,
                                 NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bt, CL_TRUE, 0, 3 * N * vb, t, 0,
                                 NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bn, CL_TRUE, 0, 3 * N * ib, n, 0,
                                 NULL, NULL));
  clReleaseKernel(k);
  clReleaseProgram(p);
  cl_mem all[5] = {bx, by, br, bt, bn};
  for (int a = 0; a < 5; a++)
    clReleaseMemObject(all[a]);
}

/* Bitwise equality of the used lanes, any NaN equal to any NaN. */
static bool same_lanes(const math_type *ty, const void *a, const void *b,
                       size_t vec) {
  for (size_t l = 0; l < ty->lanes; l++) {
    size_t at = vec * ty->stride + l;
    if (ty->elem == 4) {
      float u = ((const float *)a)[at], v = ((const float *)b)[at];
      if (!(isnan(u) && isnan(v)) && memcmp(&u, &v, 4) != 0)
        return false;
    } else {
      double u = ((const double *)a)[at], v = ((const double *)b)[at];
      if (!(isnan(u) && isnan(v)) && memcmp(&u, &v, 8) != 0)
        return false;
    }
  }
  return true;
}

static void fill_inputs(const math_type *ty, void *x, void *y) {
  static const double edge[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, -3.0,
                                1e30, -1e-30, INFINITY, -INFINITY, NAN,
                                7.25, 123456.75, -0.75, 3.0};
  size_t count = N * ty->stride;
  for (size_t i = 0; i < count; i++) {
    double u = i < 16 ? edge[i] : (double)(test_rand() % 200001) / 1000.0 -
                                      100.0;
    double v = i % 7 == 0 ? edge[(i / 7) % 16]
                          : (double)(test_rand() % 20001) / 1000.0 - 10.0;
    if (ty->elem == 4) {
      ((float *)x)[i] = (float)u;
      ((float *)y)[i] = (float)v;
    } else {
      ((double *)x)[i] = u;
      ((double *)y)[i] = v;
    }
  }
}

/* Checks one run (r1, t1, n1) against the private forms' (r0, t0, n0). */
static void compare_math(const math_type *ty, const char *label,
                         const char *r0, const char *r1, const char *t0,
                         const char *t1, const int *n0, const int *n1) {
  int bad = 0;
  for (size_t i = 0; i < N && bad < 3; i++) {
    bool ok = true;
    for (int f = 0; f < 6; f++)
      ok &= same_lanes(ty, r0, r1, 6 * i + f);
    for (int f = 0; f < 3; f++) {
      ok &= same_lanes(ty, t0, t1, 3 * i + f);
      for (size_t l = 0; l < ty->lanes; l++) {
        size_t at = (3 * i + f) * ty->stride + l;
        ok &= n0[at] == n1[at];
      }
    }
    if (!ok) {
      fprintf(stderr, "%s %s: item %zu differs from the private forms\n",
              label, ty->name, i);
      bad++;
      test_failures++;
    }
  }
}

/* One generic-pointer build of the math kernel: SKEIN_MODE, options. */
typedef struct math_run {
  const char *mode;
  const char *options;
} math_run;

/* Every type: the private forms once, then each of the n runs. */
static void test_math(const math_run *runs, int n) {
  for (size_t ti = 0; ti < sizeof math_types / sizeof math_types[0]; ti++) {
    const math_type *ty = &math_types[ti];
    size_t vb = ty->elem * ty->stride;
    char *x = malloc(N * vb), *y = malloc(N * vb);
    char *r0 = calloc(6 * N, vb), *r1 = calloc(6 * N, vb);
    char *t0 = calloc(3 * N, vb), *t1 = calloc(3 * N, vb);
    int *n0 = calloc(3 * N * ty->stride, sizeof(int));
    int *n1 = calloc(3 * N * ty->stride, sizeof(int));
    fill_inputs(ty, x, y);
    run_math(ty, "-cl-std=CL1.2 -DSYNC=", x, y, r0, t0, n0);
    /* The reference itself: fract(x) + floor(x) gives x back. */
    if (ty->elem == 4) {
      size_t at = 20 * ty->stride;
      CHECK(((float *)r0)[6 * at] + ((float *)t0)[3 * at] ==
            ((float *)x)[at]);
    }
    for (int o = 0; o < n; o++) {
      if (runs[o].mode)
        setenv("SKEIN_MODE", runs[o].mode, 1);
      run_math(ty, runs[o].options, x, y, r1, t1, n1);
      compare_math(ty, runs[o].options, r0, r1, t0, t1, n0, n1);
      unsetenv("SKEIN_MODE");
    }
    free(x), free(y), free(r0), free(r1), free(t0), free(t1), free(n0),
        free(n1);
  }
}

/* ---- vload / vstore through generic pointers --------------------------- */

/* Each work-item copies 4 floats with vload4/vstore4 and 2 halves with
 * vstore_half2/vload_half2 through generic pointers that, by i % 3, point
 * into global, local or private memory. */
static const char vls_src[] =
  "kernel void v(global const float *in, global float *out,\n"
  "              global half *hbuf, global float *hout) {\n"
  "  local float lf[64 * 4]; local ushort lh[64 * 2];\n"
  "  float pf[4]; ushort ph[2];\n"
  "  size_t i = get_global_id(0), lid = get_local_id(0);\n"
  "  generic float *f = i % 3 == 0 ? (generic float *)(out + 4 * i) :\n"
  "      i % 3 == 1 ? (generic float *)(lf + 4 * lid) : (generic float *)pf;\n"
  "  generic half *h = i % 3 == 0 ? (generic half *)(hbuf + 2 * i) :\n"
  "      i % 3 == 1 ? (generic half *)(lh + 2 * lid) : (generic half *)ph;\n"
  "  generic const float *src = (generic const float *)in;\n"
  "  float4 v = vload4(i, src);\n"
  "  vstore4(v * 2.0f, 0, f);\n"
  "  vstore4(vload4(0, f), i, out);\n"
  "  vstore_half2_rtz(v.lo, 0, h);\n"
  "  vstore2(vload_half2(0, h), i, hout);\n"
  "}\n";

static void test_vloadstore(const char *options) {
  float in[4 * N], out[4 * N], hout[2 * N];
  for (int i = 0; i < 4 * N; i++)
    in[i] = (float)((int)(test_rand() % 2001) - 1000) / 16.0f;
  cl_int err;
  cl_mem bi = clCreateBuffer(env.context, CL_MEM_READ_ONLY |
                             CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
  REQUIRE_OK(err);
  cl_mem bo = clCreateBuffer(env.context, CL_MEM_READ_WRITE, sizeof out, NULL,
                             &err);
  REQUIRE_OK(err);
  cl_mem bh = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 2 * N * 2, NULL,
                             &err);
  REQUIRE_OK(err);
  cl_mem bho = clCreateBuffer(env.context, CL_MEM_READ_WRITE, sizeof hout,
                              NULL, &err);
  REQUIRE_OK(err);
  cl_program p = test_build(&env, vls_src, options);
  cl_kernel k = clCreateKernel(p, "v", &err);
  REQUIRE_OK(err);
  cl_mem args[4] = {bi, bo, bh, bho};
  for (cl_uint a = 0; a < 4; a++)
    REQUIRE_OK(clSetKernelArg(k, a, sizeof(cl_mem), &args[a]));
  size_t gs = N, ls = GROUP;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &gs, &ls, 0, NULL,
                                    NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bho, CL_TRUE, 0, sizeof hout,
                                 hout, 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < N && bad < 5; i++) {
    bool ok = true;
    for (int l = 0; l < 4; l++)
      ok &= out[4 * i + l] == in[4 * i + l] * 2.0f;
    /* Multiples of 1/16 up to 62.5 in magnitude are exact in half. */
    for (int l = 0; l < 2; l++)
      ok &= hout[2 * i + l] == in[4 * i + l];
    if (!ok) {
      fprintf(stderr, "%s: vload/vstore item %d: %g %g, %g %g from %g %g\n",
              options, i, out[4 * i], out[4 * i + 1], hout[2 * i],
              hout[2 * i + 1], in[4 * i], in[4 * i + 1]);
      bad++;
      test_failures++;
    }
  }
  clReleaseKernel(k);
  clReleaseProgram(p);
  clReleaseMemObject(bi);
  clReleaseMemObject(bo);
  clReleaseMemObject(bh);
  clReleaseMemObject(bho);
}

int main(void) {
  test_setup(&env);
  test_seed(0x9e4e41c5ULL);
  test_queries();
  static const char *const modes[] = {NULL, "fiber"};
  for (int m = 0; m < 2; m++) {
    if (modes[m])
      setenv("SKEIN_MODE", modes[m], 1);
    run_classify("-cl-std=CL2.0");
    run_classify("-cl-std=CL3.0");
    run_classify("-cl-std=CL3.0 -DBARRIER");
    run_classify("-cl-std=CL2.0 -DBARRIER");
    test_vloadstore("-cl-std=CL2.0");
    test_vloadstore("-cl-std=CL3.0");
    unsetenv("SKEIN_MODE");
  }
  /* The barrier builds put a barrier between the call and the read-back,
   * so that the private result lives across it (in region mode, in the
   * per-work-item context). */
  static const math_run math_runs[] = {
      {NULL, "-cl-std=CL2.0 -DGEN -DSYNC="},
      {NULL, "-cl-std=CL3.0 -DGEN -DSYNC="},
      {NULL, "-cl-std=CL3.0 -DGEN -DSYNC=barrier(CLK_LOCAL_MEM_FENCE);"},
      {"fiber", "-cl-std=CL2.0 -DGEN -DSYNC=barrier(CLK_LOCAL_MEM_FENCE);"},
  };
  test_math(math_runs, 4);
  test_teardown(&env);
  return test_finish("generic-as");
}
