/* This file tests region mode (barrier kernels cut into loops over the
 * work-items): values of every type, vectors, private arrays and structs
 * live across barriers, barriers in loops whose trip counts come from
 * arguments, nested loops, groups that return early, local-memory
 * reductions, 2D and 3D groups, partial last groups, collectives, a
 * kernel too big for region mode, and a barrier in a divergent branch.
 * Every kernel is built twice, with SKEIN_MODE=region and SKEIN_MODE=fiber
 * (SKEIN_DUMP=modes tells which mode each got), and both results are
 * compared with a host reference. */
#include "test_util.h"
#include <stdint.h>
#include <stdlib.h>

static test_env env;

static const char src[] =
    "kernel void live_types(global const int *in, global long *out) {\n"
    "  size_t l = get_local_id(0), g = get_global_id(0);\n"
    "  int x = in[g];\n"
    "  char c = (char)(x * 3); uchar uc = (uchar)(x ^ 0x5a);\n"
    "  short s = (short)(x * 7); ushort us = (ushort)(x + 1000);\n"
    "  int i = x * 11; uint ui = (uint)x * 2654435761u;\n"
    "  long lg = (long)x * 1000003L; ulong ul = (ulong)x << 33;\n"
    "  float f = (float)x * 0.5f; double d = (double)x * 0.25;\n"
    "  int4 v4 = (int4)(x, x + 1, x + 2, x + 3);\n"
    "  float8 f8 = (float8)((float)x) * (float8)(1, 2, 3, 4, 5, 6, 7, 8);\n"
    "  double2 d2 = (double2)(x, -x);\n"
    "  uchar16 c16 = (uchar16)((uchar)x) + (uchar16)(0, 1, 2, 3, 4, 5, 6,\n"
    "      7, 8, 9, 10, 11, 12, 13, 14, 15);\n"
    "  int arr[8];\n"
    "  for (int k = 0; k < 8; k++) arr[k] = x * k;\n"
    "  struct { int a; float b; } st = { x + 5, x * 1.5f };\n"
    "  local int sh[256];\n"
    "  sh[l] = x;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int nb = sh[(l + 1) % get_local_size(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[g] = c + uc + s + us + i + (long)ui + lg + (long)(ul >> 20)\n"
    "      + (long)(f * 4) + (long)(d * 8) + v4.x + v4.y * 2 + v4.z * 3\n"
    "      + v4.w * 4 + (long)(f8.s0 + f8.s7 * 2) + (long)(d2.x - d2.y)\n"
    "      + c16.s0 + c16.sf * 3 + arr[x & 7] + arr[(x >> 3) & 7] + st.a\n"
    "      + (long)(st.b * 2) + nb;\n"
    "}\n"
    "kernel void loop_arg(global int *out, int iters, int step) {\n"
    "  local int buf[256];\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  int v = (int)get_global_id(0);\n"
    "  for (int i = 0; i < iters; i += step) {\n"
    "    buf[l] = v;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    v = buf[(l + 1) % n] + i;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  out[get_global_id(0)] = v;\n"
    "}\n"
    "kernel void nested(global int *out, int outer, int inner) {\n"
    "  local int buf[256];\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  int v = (int)l, acc = 0;\n"
    "  for (int o = 0; o < outer; o++) {\n"
    "    for (int k = 0; k < inner; k++) {\n"
    "      buf[l] = v + o;\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "      v = buf[(l + k + 1) % n] ^ k;\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    acc += v;\n"
    "  }\n"
    "  out[get_global_id(0)] = acc;\n"
    "}\n"
    "kernel void early(global int *out) {\n"
    "  local int buf[256];\n"
    "  size_t l = get_local_id(0), grp = get_group_id(0);\n"
    "  size_t n = get_local_size(0), g = get_global_id(0);\n"
    "  out[g] = -7;\n"
    "  if (grp % 3 == 1) return;\n"
    "  buf[l] = (int)g;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int v = buf[n - 1 - l];\n"
    "  if (grp % 3 == 2) { out[g] = v; return; }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  buf[l] = v * 2;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[g] = buf[(l + 1) % n];\n"
    "}\n"
    "#define TREE(name, T)\\\n"
    "kernel void name(global const T *in, global T *out, local T *l) {\\\n"
    "  size_t lid = get_local_id(0);\\\n"
    "  l[lid] = in[get_global_id(0)];\\\n"
    "  for (size_t s = get_local_size(0); s > 1;) {\\\n"
    "    size_t h = (s + 1) / 2;\\\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\\\n"
    "    if (lid + h < s) l[lid] += l[lid + h];\\\n"
    "    s = h;\\\n"
    "  }\\\n"
    "  if (lid == 0) out[get_group_id(0)] = l[0];\\\n"
    "}\n"
    "TREE(tree_long, long)\n"
    "TREE(tree_double, double)\n"
    "kernel void reverse2d(global const int *in, global int *out) {\n"
    "  local int tile[16][16];\n"
    "  size_t lx = get_local_id(0), ly = get_local_id(1);\n"
    "  size_t w = get_global_size(0);\n"
    "  size_t nx = get_local_size(0), ny = get_local_size(1);\n"
    "  tile[ly][lx] = in[get_global_id(1) * w + get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(1) * w + get_global_id(0)] =\n"
    "      tile[ny - 1 - ly][nx - 1 - lx];\n"
    "}\n"
    "kernel void prefix3d(global int *out) {\n"
    "  local int buf[512];\n"
    "  size_t lin = (get_local_id(2) * get_local_size(1) +\n"
    "                get_local_id(1)) * get_local_size(0) + get_local_id(0);\n"
    "  buf[lin] = (int)(get_global_id(0) + 10 * get_global_id(1) +\n"
    "                   100 * get_global_id(2));\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int s = 0;\n"
    "  for (size_t k = 0; k <= lin; k++) s += buf[k];\n"
    "  size_t gx = get_global_size(0), gy = get_global_size(1);\n"
    "  out[(get_global_id(2) * gy + get_global_id(1)) * gx +\n"
    "      get_global_id(0)] = s * 4 + (int)get_local_linear_id();\n"
    "}\n"
    "kernel void coll_mix(global const int *in, global int *out) {\n"
    "  size_t g = get_global_id(0);\n"
    "  int x = in[g];\n"
    "  float4 v = (float4)(x, 2 * x, 3 * x, 4 * x);\n"
    "  int s = work_group_scan_exclusive_add(x);\n"
    "  int m = work_group_reduce_max(x);\n"
    "  double b = work_group_broadcast((double)x, get_local_size(0) - 1);\n"
    "  int a = work_group_all(x >= 0), any = work_group_any(x == 5);\n"
    "  long sl = work_group_scan_inclusive_min((long)-x);\n"
    "  out[g] = s + m * 3 + (int)b * 5 + a * 7 + any * 11 + (int)sl * 13\n"
    "      + (int)(v.x + v.y + v.z + v.w);\n"
    "}\n"
    "kernel void big_private(global int *out) {\n"
    "  int a[1024];\n"
    "  size_t l = get_local_id(0);\n"
    "  for (int i = 0; i < 1024; i++) a[i] = i ^ (int)l;\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "  int s = 0;\n"
    "  for (int i = 0; i < 1024; i += 7) s += a[(i * 13 + out[0]) & 1023];\n"
    "  out[get_global_id(0) + 1] = s;\n"
    "}\n"
    "/* v is the same for the whole group but redefined in the region\n"
    " * that reads its old value (iterations without the barrier); u is\n"
    " * uniform on both sides of a branch that is not. */\n"
    "kernel void skipbar(global int *out, int iters) {\n"
    "  local int buf[256];\n"
    "  size_t l = get_local_id(0);\n"
    "  int acc = 0, u = iters;\n"
    "  if (l & 1) u = iters * 2;\n"
    "  for (int i = 0; i < iters; i++) {\n"
    "    int v = i * 7 + iters;\n"
    "    buf[l] = acc;\n"
    "    if (i % 3 == 0) barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    acc += v + (int)l;\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = acc + u * 1000;\n"
    "}\n"
    "/* bench/collectives.c's tree reduction (barrier at the loop top). */\n"
    "kernel void bench_tree(global const int *in, global int *out,\n"
    "                       local int *l) {\n"
    "  size_t lid = get_local_id(0);\n"
    "  l[lid] = in[get_global_id(0)];\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (lid < s) l[lid] += l[lid + s];\n"
    "  }\n"
    "  if (lid == 0) out[get_group_id(0)] = l[0];\n"
    "}\n"
    "kernel void divergent(global int *out) {\n"
    "  size_t l = get_local_id(0);\n"
    "  out[get_global_id(0)] = 1;\n"
    "  if (l < 3) {\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[get_global_id(0)] = 2;\n"
    "  }\n"
    "}\n"
    /* Rows split between groups, bounds from work-size queries: the
     * bound r1 is used right after its definition in the first region
     * and after a cut in the loop's closing region. */
    "kernel void rows(global int *y, int n, int m) {\n"
    "  local int buf[128];\n"
    "  uint wpg = (m - 1) / get_num_groups(0) + 1;\n"
    "  uint r0 = get_group_id(0) * wpg;\n"
    "  uint r1 = min((uint)((get_group_id(0) + 1) * wpg), (uint)m);\n"
    "  for (uint r = r0; r < r1; ++r) {\n"
    "    uint i = r * get_local_size(0) + get_local_id(0);\n"
    "    buf[get_local_id(0)] = (int)i + 1;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (i < n) y[i] = buf[get_local_id(0)];\n"
    "    else if (i < get_global_size(0)) y[i] = -1;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "}\n";

/* The kernels expected in region mode (test_modes checks the ones that
 * are not: big_private and divergent). */
static const char *const region_kernels[] = {
    "live_types", "loop_arg", "nested", "early", "tree_long", "tree_double",
    "reverse2d", "prefix3d", "coll_mix", "skipbar", "bench_tree", "rows"};

static cl_program programs[2];   /* [0] region mode, [1] fiber mode */

/* Sets or (value NULL) unsets environment variable name. */
static void set_env(const char *name, const char *value) {
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

/* Builds src with SKEIN_MODE=mode and SKEIN_DUMP=modes, capturing the
 * mode lines the compiler prints on stderr into *modes (malloc'd). */
static cl_program build_in(const char *mode, char **modes) {
  char *old_mode = getenv("SKEIN_MODE"), *old_dump = getenv("SKEIN_DUMP");
  old_mode = old_mode ? strdup(old_mode) : NULL;
  old_dump = old_dump ? strdup(old_dump) : NULL;
  setenv("SKEIN_MODE", mode, 1);
  setenv("SKEIN_DUMP", "modes", 1);
  test_capture capture;
  test_capture_begin(&capture);
  cl_program p = test_build(&env, src, "-cl-std=CL3.0");
  *modes = test_capture_end(&capture);
  set_env("SKEIN_DUMP", old_dump);   /* as the test found them */
  set_env("SKEIN_MODE", old_mode);
  free(old_dump);
  free(old_mode);
  return p;
}

/* True if the compiler said kernel name runs in mode. */
static int has_mode(const char *modes, const char *name, const char *mode) {
  char line[128];
  snprintf(line, sizeof line, "kernel %s: %s mode", name, mode);
  return strstr(modes, line) != NULL;
}

static void test_modes(void) {
  char *region, *fiber;
  programs[0] = build_in("region", &region);
  programs[1] = build_in("fiber", &fiber);
  for (size_t i = 0; i < sizeof region_kernels / sizeof *region_kernels;
       i++) {
    if (!has_mode(region, region_kernels[i], "region"))
      fprintf(stderr, "%s not in region mode:\n%s", region_kernels[i],
              region);
    CHECK(has_mode(region, region_kernels[i], "region"));
    CHECK(has_mode(fiber, region_kernels[i], "fiber"));
  }
  /* 4 KiB of private array live across the barrier: fibers. */
  CHECK(has_mode(region, "big_private", "fiber"));
  /* A barrier only some work-items reach: fibers, which let the others
   * go on. */
  CHECK(has_mode(region, "divergent", "fiber"));
  free(region);
  free(fiber);
}

static cl_mem buffer(size_t size, const void *init) {
  cl_int err;
  cl_mem b = clCreateBuffer(env.context,
                            CL_MEM_READ_WRITE |
                                (init ? CL_MEM_COPY_HOST_PTR : 0),
                            size, (void *)init, &err);
  REQUIRE_OK(err);
  return b;
}

static void read_buf(cl_mem b, size_t size, void *out) {
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b, CL_TRUE, 0, size, out, 0,
                                 NULL, NULL));
}

static cl_kernel kernel(int which, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(programs[which], name, &err);
  REQUIRE_OK(err);
  return k;
}

static void run(cl_kernel k, cl_uint dims, const size_t *global,
                const size_t *local) {
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, dims, NULL, global, local,
                                    0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
}

/* Counts mismatches of n ints/longs against ref, printing the first. */
static int compare(const char *what, int which, const int64_t *got,
                   const int64_t *ref, size_t n) {
  int bad = 0;
  for (size_t i = 0; i < n; i++)
    if (got[i] != ref[i] && bad++ == 0)
      fprintf(stderr, "%s (%s): [%zu] %lld, expected %lld\n", what,
              which ? "fiber" : "region", i, (long long)got[i],
              (long long)ref[i]);
  return bad;
}

static void test_live_types(void) {
  enum { N = 1000, LS = 100 };
  int in[N];
  int64_t ref[N], out[N];
  for (int g = 0; g < N; g++)
    in[g] = (g * 37) % 1000;
  for (int g = 0; g < N; g++) {
    int x = in[g], nb = in[(g / LS) * LS + (g % LS + 1) % LS];
    int64_t acc = (int8_t)(x * 3) + (uint8_t)(x ^ 0x5a) + (int16_t)(x * 7) +
                  (uint16_t)(x + 1000) + x * 11 +
                  (int64_t)(uint32_t)((uint32_t)x * 2654435761u) +
                  (int64_t)x * 1000003 + (int64_t)(((uint64_t)x << 33) >> 20);
    acc += (int64_t)(x * 0.5f * 4) + (int64_t)(x * 0.25 * 8);
    acc += x + (x + 1) * 2 + (x + 2) * 3 + (x + 3) * 4;
    acc += (int64_t)((float)x + (float)x * 8 * 2) + (int64_t)(2.0 * x);
    acc += (uint8_t)x + (uint8_t)((uint8_t)x + 15) * 3;
    acc += x * (x & 7) + x * ((x >> 3) & 7) + x + 5 + (int64_t)(x * 1.5f * 2);
    ref[g] = acc + nb;
  }
  for (int w = 0; w < 2; w++) {
    cl_mem bi = buffer(sizeof in, in), bo = buffer(sizeof out, NULL);
    cl_kernel k = kernel(w, "live_types");
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof bi, &bi));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof bo, &bo));
    size_t global = N, local = LS;
    run(k, 1, &global, &local);
    read_buf(bo, sizeof out, out);
    CHECK_EQ(compare("live_types", w, out, ref, N), 0);
    clReleaseKernel(k);
    clReleaseMemObject(bi);
    clReleaseMemObject(bo);
  }
}

/* Runs a one-output-int kernel over global/local (1D) with two int
 * arguments after the buffer and compares with ref. */
static void run_int_kernel(const char *name, size_t global, size_t local,
                           int a1, int a2, int nargs, const int *ref) {
  int out[global];
  int64_t got[global], want[global];
  for (int w = 0; w < 2; w++) {
    cl_mem bo = buffer(sizeof out, NULL);
    cl_kernel k = kernel(w, name);
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
    if (nargs > 1)
      REQUIRE_OK(clSetKernelArg(k, 1, sizeof a1, &a1));
    if (nargs > 2)
      REQUIRE_OK(clSetKernelArg(k, 2, sizeof a2, &a2));
    run(k, 1, &global, &local);
    read_buf(bo, sizeof out, out);
    for (size_t i = 0; i < global; i++) {
      got[i] = out[i];
      want[i] = ref[i];
    }
    CHECK_EQ(compare(name, w, got, want, global), 0);
    clReleaseKernel(k);
    clReleaseMemObject(bo);
  }
}

/* loop_arg and nested, with trip counts from the arguments (zero too),
 * over groups of 64 with a partial last group. */
static void test_loops(void) {
  enum { N = 300, LS = 64 };
  int ref[N];
  static const int cases[][2] = {{0, 1}, {1, 1}, {7, 2}, {20, 3}};
  for (size_t c = 0; c < 4; c++) {
    int iters = cases[c][0], step = cases[c][1];
    for (int g0 = 0; g0 < N; g0 += LS) {
      int n = N - g0 < LS ? N - g0 : LS, v[LS], t[LS];
      for (int l = 0; l < n; l++)
        v[l] = g0 + l;
      for (int i = 0; i < iters; i += step) {
        for (int l = 0; l < n; l++)
          t[l] = v[(l + 1) % n] + i;
        memcpy(v, t, sizeof v);
      }
      for (int l = 0; l < n; l++)
        ref[g0 + l] = v[l];
    }
    run_int_kernel("loop_arg", N, LS, iters, step, 3, ref);
  }
  static const int nest[][2] = {{0, 3}, {3, 0}, {2, 3}, {5, 4}};
  for (size_t c = 0; c < 4; c++) {
    int outer = nest[c][0], inner = nest[c][1];
    for (int g0 = 0; g0 < N; g0 += LS) {
      int n = N - g0 < LS ? N - g0 : LS, v[LS], t[LS], acc[LS] = {0};
      for (int l = 0; l < n; l++)
        v[l] = l;
      for (int o = 0; o < outer; o++) {
        for (int k = 0; k < inner; k++) {
          for (int l = 0; l < n; l++)
            t[l] = v[(l + k + 1) % n] + o;
          for (int l = 0; l < n; l++)
            v[l] = t[l] ^ k;
        }
        for (int l = 0; l < n; l++)
          acc[l] += v[l];
      }
      for (int l = 0; l < n; l++)
        ref[g0 + l] = acc[l];
    }
    run_int_kernel("nested", N, LS, outer, inner, 3, ref);
  }
}

static void test_skipbar(void) {
  enum { N = 200, LS = 64 };
  int ref[N];
  for (int iters = 0; iters < 8; iters += 7) {
    for (int g = 0; g < N; g++) {
      int l = g % LS, acc = 0;
      for (int i = 0; i < iters; i++)
        acc += i * 7 + iters + l;
      ref[g] = acc + (l & 1 ? iters * 2 : iters) * 1000;
    }
    run_int_kernel("skipbar", N, LS, iters, 0, 2, ref);
  }
}

static void test_early(void) {
  enum { N = 500, LS = 32 };
  int ref[N];
  for (int g0 = 0, grp = 0; g0 < N; g0 += LS, grp++) {
    int n = N - g0 < LS ? N - g0 : LS;
    for (int l = 0; l < n; l++) {
      int v = g0 + n - 1 - l;   /* buf[n - 1 - l] */
      int vn = g0 + n - 1 - (l + 1) % n;
      ref[g0 + l] = grp % 3 == 1 ? -7 : grp % 3 == 2 ? v : vn * 2;
    }
  }
  run_int_kernel("early", N, LS, 0, 0, 1, ref);
}

/* Tree reductions of long and double, groups of 100 with a partial last
 * group (group sizes that are not powers of two). */
static void test_trees(void) {
  enum { N = 1234, LS = 100, G = (N + LS - 1) / LS };
  int64_t in[N], ref[G], out[G];
  double din[N], dout[G];
  for (int i = 0; i < N; i++) {
    in[i] = (int64_t)i * 1000003 - 500000;
    din[i] = (double)(i % 97);
  }
  for (int w = 0; w < 2; w++) {
    for (int t = 0; t < 2; t++) {
      size_t esz = t ? sizeof(double) : sizeof(int64_t);
      cl_mem bi = buffer(N * esz, t ? (void *)din : (void *)in);
      cl_mem bo = buffer(G * esz, NULL);
      cl_kernel k = kernel(w, t ? "tree_double" : "tree_long");
      REQUIRE_OK(clSetKernelArg(k, 0, sizeof bi, &bi));
      REQUIRE_OK(clSetKernelArg(k, 1, sizeof bo, &bo));
      REQUIRE_OK(clSetKernelArg(k, 2, LS * esz, NULL));
      size_t global = N, local = LS;
      run(k, 1, &global, &local);
      read_buf(bo, G * esz, t ? (void *)dout : (void *)out);
      for (int g = 0; g < G; g++) {
        int64_t s = 0;
        double d = 0;
        for (int i = g * LS; i < N && i < (g + 1) * LS; i++) {
          s += in[i];
          d += din[i];
        }
        ref[g] = t ? (int64_t)d : s;
        if (t)
          out[g] = (int64_t)dout[g];
      }
      CHECK_EQ(compare(t ? "tree_double" : "tree_long", w, out, ref, G), 0);
      clReleaseKernel(k);
      clReleaseMemObject(bi);
      clReleaseMemObject(bo);
    }
  }
}

/* The benchmark's tree reduction over 1M random ints in groups of 256
 * (the vectorised region loops run with every reduction distance). */
static void test_bench_tree(void) {
  enum { N = 1 << 20, LS = 256, G = N / LS };
  int *in = malloc(N * sizeof(int));
  static int out[G];
  static int64_t got[G], ref[G];
  srand(7);
  for (int i = 0; i < N; i++)
    in[i] = rand() % 2001 - 1000;
  for (int g = 0; g < G; g++) {
    int s = 0;
    for (int i = 0; i < LS; i++)
      s += in[g * LS + i];
    ref[g] = s;
  }
  for (int w = 0; w < 2; w++) {
    cl_mem bi = buffer(N * sizeof(int), in), bo = buffer(sizeof out, NULL);
    cl_kernel k = kernel(w, "bench_tree");
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof bi, &bi));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof bo, &bo));
    REQUIRE_OK(clSetKernelArg(k, 2, LS * sizeof(int), NULL));
    size_t global = N, local = LS;
    run(k, 1, &global, &local);
    read_buf(bo, sizeof out, out);
    for (int g = 0; g < G; g++)
      got[g] = out[g];
    CHECK_EQ(compare("bench_tree", w, got, ref, G), 0);
    clReleaseKernel(k);
    clReleaseMemObject(bi);
    clReleaseMemObject(bo);
  }
  free(in);
}

/* 2D groups of 16x8 over 70x37 (partial in both dimensions), and 3D
 * groups of 4x3x5 over 10x7x9. */
static void test_2d_3d(void) {
  enum { W = 70, H = 37 };
  size_t global2[2] = {W, H}, local2[2] = {16, 8};
  static int in[W * H], out[W * H];
  static int64_t got[W * H], ref[W * H];
  for (int i = 0; i < W * H; i++)
    in[i] = i * 7 + 3;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int x0 = x / 16 * 16, y0 = y / 8 * 8;
      int nx = W - x0 < 16 ? W - x0 : 16, ny = H - y0 < 8 ? H - y0 : 8;
      int sx = x0 + nx - 1 - (x - x0), sy = y0 + ny - 1 - (y - y0);
      ref[y * W + x] = in[sy * W + sx];
    }
  for (int w = 0; w < 2; w++) {
    cl_mem bi = buffer(sizeof in, in), bo = buffer(sizeof out, NULL);
    cl_kernel k = kernel(w, "reverse2d");
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof bi, &bi));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof bo, &bo));
    run(k, 2, global2, local2);
    read_buf(bo, sizeof out, out);
    for (int i = 0; i < W * H; i++)
      got[i] = out[i];
    CHECK_EQ(compare("reverse2d", w, got, ref, W * H), 0);
    clReleaseKernel(k);
    clReleaseMemObject(bi);
    clReleaseMemObject(bo);
  }
  enum { X = 10, Y = 7, Z = 9, LX = 4, LY = 3, LZ = 5 };
  size_t global3[3] = {X, Y, Z}, local3[3] = {LX, LY, LZ};
  static int out3[X * Y * Z];
  static int64_t got3[X * Y * Z], ref3[X * Y * Z];
  for (int z = 0; z < Z; z++)
    for (int y = 0; y < Y; y++)
      for (int x = 0; x < X; x++) {
        int x0 = x / LX * LX, y0 = y / LY * LY, z0 = z / LZ * LZ;
        int nx = X - x0 < LX ? X - x0 : LX, ny = Y - y0 < LY ? Y - y0 : LY;
        int lin = ((z - z0) * ny + (y - y0)) * nx + (x - x0), s = 0;
        for (int k = 0; k <= lin; k++) {
          int kx = k % nx, ky = k / nx % ny, kz = k / (nx * ny);
          s += (x0 + kx) + 10 * (y0 + ky) + 100 * (z0 + kz);
        }
        ref3[(z * Y + y) * X + x] = s * 4 + lin;
      }
  for (int w = 0; w < 2; w++) {
    cl_mem bo = buffer(sizeof out3, NULL);
    cl_kernel k = kernel(w, "prefix3d");
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
    run(k, 3, global3, local3);
    read_buf(bo, sizeof out3, out3);
    for (int i = 0; i < X * Y * Z; i++)
      got3[i] = out3[i];
    CHECK_EQ(compare("prefix3d", w, got3, ref3, X * Y * Z), 0);
    clReleaseKernel(k);
    clReleaseMemObject(bo);
  }
}

static void test_collectives(void) {
  enum { N = 777, LS = 128 };
  int in[N], out[N];
  int64_t got[N], ref[N];
  for (int i = 0; i < N; i++)
    in[i] = (i * 31) % 50;
  for (int g0 = 0; g0 < N; g0 += LS) {
    int n = N - g0 < LS ? N - g0 : LS, m = 0, any = 0, s = 0;
    int64_t mn = INT64_MAX;
    for (int l = 0; l < n; l++) {
      m = in[g0 + l] > m ? in[g0 + l] : m;
      any |= in[g0 + l] == 5;
    }
    for (int l = 0; l < n; l++) {
      int x = in[g0 + l];
      mn = -x < mn ? -x : mn;
      ref[g0 + l] = s + m * 3 + in[g0 + n - 1] * 5 + 7 + any * 11 +
                    (int)mn * 13 + 10 * x;
      s += x;
    }
  }
  for (int w = 0; w < 2; w++) {
    cl_mem bi = buffer(sizeof in, in), bo = buffer(sizeof out, NULL);
    cl_kernel k = kernel(w, "coll_mix");
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof bi, &bi));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof bo, &bo));
    size_t global = N, local = LS;
    run(k, 1, &global, &local);
    read_buf(bo, sizeof out, out);
    for (int i = 0; i < N; i++)
      got[i] = out[i];
    CHECK_EQ(compare("coll_mix", w, got, ref, N), 0);
    clReleaseKernel(k);
    clReleaseMemObject(bi);
    clReleaseMemObject(bo);
  }
}

/* The fallback: 4 KiB of live private array per work-item runs in fiber
 * mode with correct results. */
static void test_big_private(void) {
  enum { N = 64, LS = 16 };
  int ref[N + 1];
  ref[0] = 0;
  for (int g = 0; g < N; g++) {
    int s = 0;
    for (int i = 0; i < 1024; i += 7)
      s += ((i * 13) & 1023) ^ (g % LS);
    ref[g + 1] = s;
  }
  for (int w = 0; w < 2; w++) {
    int out[N + 1];
    int64_t got[N + 1], want[N + 1];
    memset(out, 0, sizeof out);
    cl_mem bo = buffer(sizeof out, out);
    cl_kernel k = kernel(w, "big_private");
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
    size_t global = N, local = LS;
    run(k, 1, &global, &local);
    read_buf(bo, sizeof out, out);
    for (int i = 0; i <= N; i++) {
      got[i] = out[i];
      want[i] = ref[i];
    }
    CHECK_EQ(compare("big_private", w, got, want, N + 1), 0);
    clReleaseKernel(k);
    clReleaseMemObject(bo);
  }
}

/* A barrier only some work-items reach is undefined behaviour: the
 * kernel (in fiber mode) must still finish without crashing (results
 * unspecified). */
static void test_divergent(void) {
  cl_mem bo = buffer(64 * sizeof(int), NULL);
  cl_kernel k = kernel(0, "divergent");
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
  size_t global = 64, local = 16;
  run(k, 1, &global, &local);
  int out[64];
  read_buf(bo, sizeof out, out);
  CHECK(out[20] == 1 || out[20] == 2);
  clReleaseKernel(k);
  clReleaseMemObject(bo);
}

/* rows over 1, 2 and 16 groups of 128: row i of the output is i + 1
 * below n, -1 above. Region mode read the loop bound from a snapshot
 * taken before it was computed, and wrote nothing or only group 0's rows
 * (issue 13). */
static void test_rows(void) {
  static const int groups[] = {1, 2, 16, 3};
  for (size_t c = 0; c < sizeof groups / sizeof *groups; c++) {
    size_t global = 128 * (size_t)groups[c];
    int n = (int)global - 5, *ref = malloc(global * sizeof *ref);
    for (size_t i = 0; i < global; i++)
      ref[i] = (int)i < n ? (int)i + 1 : -1;
    run_int_kernel("rows", global, 128, n, groups[c], 3, ref);
    free(ref);
  }
}

int main(void) {
  test_setup(&env);
  test_modes();
  test_rows();
  test_live_types();
  test_loops();
  test_early();
  test_skipbar();
  test_trees();
  test_bench_tree();
  test_2d_3d();
  test_collectives();
  test_big_private();
  test_divergent();
  clReleaseProgram(programs[0]);
  clReleaseProgram(programs[1]);
  test_teardown(&env);
  return test_finish("region");
}
