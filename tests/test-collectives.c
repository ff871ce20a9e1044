/* This file tests the work-group collective functions of OpenCL C 2.0 and
 * 3.0 through the ICD loader: the spec's scan example, then all, any,
 * broadcast (1D, 2D, 3D forms), reduce and inclusive/exclusive scans of
 * add, min and max for int, uint, long, ulong, float and double, on group
 * shapes from 1 to the device maximum (1024), 2D and 3D groups and
 * NDRanges whose last groups are partial, against a host reference in
 * linear local id order (integer wrap-around, identities, fmin/fmax with
 * NaN and infinities, float sums within the error any order allows). */
#include "test_util.h"
#include <float.h>
#include <math.h>
#include <stdint.h>

static test_env env;

/* The device reports the OpenCL C 3.0 feature and the 3.0 query, and
 * OpenCL C 2.0, of which the collectives are part. */
static void test_reported(void) {
  cl_bool support = CL_FALSE;
  REQUIRE_OK(clGetDeviceInfo(env.device,
                             CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT,
                             sizeof support, &support, NULL));
  CHECK_EQ(support, CL_TRUE);
  CHECK_EQ(test_c_feature_count(&env,
                                "__opencl_c_work_group_collective_functions",
                                CL_MAKE_VERSION(3, 0, 0)),
           1);
  cl_name_version nv[64];
  size_t size;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_OPENCL_C_ALL_VERSIONS,
                             sizeof nv, nv, &size));
  int twos = 0;
  for (size_t i = 0; i < size / sizeof nv[0]; i++)
    twos += CL_VERSION_MAJOR(nv[i].version) == 2;
  CHECK_EQ(twos, 1);
}

/* The spec's example (OpenCL C 3.0, 6.15.19), as written, in CL2.0. */
static void test_seed_example(void) {
  static const char src[] =
      "kernel void k(global const int *p, global int *inc,\n"
      "              global int *exc) {\n"
      "  int prefix_sum_val = work_group_scan_inclusive_add(\n"
      "      p[get_local_id(0)]);\n"
      "  inc[get_local_id(0)] = prefix_sum_val;\n"
      "  exc[get_local_id(0)] = work_group_scan_exclusive_add(\n"
      "      p[get_local_id(0)]);\n"
      "}\n";
  cl_program prog = test_build(&env, src, "-cl-std=CL2.0");
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "k", &err);
  REQUIRE_OK(err);
  int in[8] = {3, 1, 7, 0, 4, 1, 6, 3}, inc[8], exc[8];
  cl_mem b[3];
  for (int i = 0; i < 3; i++) {
    b[i] = clCreateBuffer(env.context, CL_MEM_READ_WRITE |
                          (i == 0 ? CL_MEM_COPY_HOST_PTR : 0),
                          sizeof in, i == 0 ? in : NULL, &err);
    REQUIRE_OK(err);
    REQUIRE_OK(clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &b[i]));
  }
  size_t gs = 8, ls = 8;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &gs, &ls, 0, NULL,
                                    NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b[1], CL_TRUE, 0, sizeof inc,
                                 inc, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b[2], CL_TRUE, 0, sizeof exc,
                                 exc, 0, NULL, NULL));
  static const int want_inc[8] = {3, 4, 11, 11, 15, 16, 22, 25};
  static const int want_exc[8] = {0, 3, 4, 11, 11, 15, 16, 22};
  for (int i = 0; i < 8; i++) {
    CHECK_EQ(inc[i], want_inc[i]);
    CHECK_EQ(exc[i], want_exc[i]);
  }
  for (int i = 0; i < 3; i++)
    clReleaseMemObject(b[i]);
  clReleaseKernel(k);
  clReleaseProgram(prog);
}

/* One kernel per type runs every collective on the same input; row f of
 * out holds function f's results (ROWS rows of n). The broadcast kernel
 * broadcasts from the work-item (px, py, pz), clamped into the group. */
enum { R_RED_ADD, R_RED_MIN, R_RED_MAX, R_INC_ADD, R_INC_MIN, R_INC_MAX,
       R_EXC_ADD, R_EXC_MIN, R_EXC_MAX, R_ALL, R_ANY, R_BCAST, ROWS };

static const char coll_src[] =
    "#define COLL(T)\\\n"
    "kernel void coll_##T(global const T *in, global T *out, ulong n,\\\n"
    "                     ulong px, ulong py, ulong pz) {\\\n"
    "  size_t g = get_global_linear_id();\\\n"
    "  T x = in[g];\\\n"
    "  out[0 * n + g] = work_group_reduce_add(x);\\\n"
    "  out[1 * n + g] = work_group_reduce_min(x);\\\n"
    "  out[2 * n + g] = work_group_reduce_max(x);\\\n"
    "  out[3 * n + g] = work_group_scan_inclusive_add(x);\\\n"
    "  out[4 * n + g] = work_group_scan_inclusive_min(x);\\\n"
    "  out[5 * n + g] = work_group_scan_inclusive_max(x);\\\n"
    "  out[6 * n + g] = work_group_scan_exclusive_add(x);\\\n"
    "  out[7 * n + g] = work_group_scan_exclusive_min(x);\\\n"
    "  out[8 * n + g] = work_group_scan_exclusive_max(x);\\\n"
    "  ulong bits = as_ulong((double)x);\\\n"
    "  out[9 * n + g] = work_group_all((bits & 7) != 0);\\\n"
    "  out[10 * n + g] = work_group_any((bits & 1023) == 0);\\\n"
    "  size_t sx = min(px, get_local_size(0) - 1);\\\n"
    "  size_t sy = min(py, get_local_size(1) - 1);\\\n"
    "  size_t sz = min(pz, get_local_size(2) - 1);\\\n"
    "  uint d = get_work_dim();\\\n"
    "  out[11 * n + g] = d == 1 ? work_group_broadcast(x, sx) :\\\n"
    "      d == 2 ? work_group_broadcast(x, sx, sy) :\\\n"
    "      work_group_broadcast(x, sx, sy, sz);\\\n"
    "}\n"
    "COLL(int) COLL(uint) COLL(long) COLL(ulong) COLL(float) COLL(double)\n"
    "kernel void wild(global int *out) {\n"
    "  out[get_global_linear_id()] = work_group_broadcast(\n"
    "      (int)get_global_linear_id(), (size_t)1 << 40);\n"
    "}\n";

/* An NDRange: global and local sizes; work-items are numbered by their
 * global linear id. */
typedef struct shape {
  unsigned dim;
  size_t gs[3], ls[3];
} shape;

static const shape shapes[] = {
    {1, {1, 1, 1}, {1, 1, 1}},         {1, {5, 1, 1}, {1, 1, 1}},
    {1, {8, 1, 1}, {2, 1, 1}},         {1, {21, 1, 1}, {7, 1, 1}},
    {1, {18, 1, 1}, {7, 1, 1}},        {1, {192, 1, 1}, {64, 1, 1}},
    {1, {150, 1, 1}, {64, 1, 1}},      {1, {600, 1, 1}, {256, 1, 1}},
    {1, {1024, 1, 1}, {1024, 1, 1}},   {1, {2500, 1, 1}, {1024, 1, 1}},
    {2, {16, 8, 1}, {8, 4, 1}},        {2, {20, 10, 1}, {8, 4, 1}},
    {2, {32, 32, 1}, {32, 32, 1}},     {3, {16, 8, 4}, {8, 4, 2}},
    {3, {13, 7, 3}, {8, 4, 2}},        {3, {10, 10, 10}, {4, 4, 4}},
    {3, {16, 8, 8}, {16, 8, 8}},
};
#define NUM_SHAPES (sizeof shapes / sizeof shapes[0])

static size_t shape_items(const shape *s) {
  return s->gs[0] * s->gs[1] * s->gs[2];
}

/* The global linear ids of the work-items of group (gx, gy, gz) in
 * increasing linear local id order; returns how many. */
static size_t group_members(const shape *s, const size_t grp[3],
                            size_t *idx) {
  size_t lsz[3];
  for (int d = 0; d < 3; d++) {
    size_t rest = s->gs[d] - grp[d] * s->ls[d];
    lsz[d] = rest < s->ls[d] ? rest : s->ls[d];
  }
  size_t m = 0;
  for (size_t z = 0; z < lsz[2]; z++)
    for (size_t y = 0; y < lsz[1]; y++)
      for (size_t x = 0; x < lsz[0]; x++) {
        size_t gx = grp[0] * s->ls[0] + x, gy = grp[1] * s->ls[1] + y;
        size_t gz = grp[2] * s->ls[2] + z;
        idx[m++] = (gz * s->gs[1] + gy) * s->gs[0] + gx;
      }
  return m;
}

/* The broadcast source (px, py, pz) each run uses, clamped like the
 * kernel does; returns its position in group_members' order. */
static const size_t bsrc[3] = {5, 2, 1};

static size_t bcast_pos(const shape *s, const size_t grp[3]) {
  size_t lsz[3], p[3];
  for (int d = 0; d < 3; d++) {
    size_t rest = s->gs[d] - grp[d] * s->ls[d];
    lsz[d] = rest < s->ls[d] ? rest : s->ls[d];
    p[d] = bsrc[d] < lsz[d] - 1 ? bsrc[d] : lsz[d] - 1;
  }
  return (p[2] * lsz[1] + p[1]) * lsz[0] + p[0];
}


/* The predicates of work_group_all/any, on the value's double bits. */
static int pred_all(double v) {
  uint64_t b;
  memcpy(&b, &v, 8);
  return (b & 7) != 0;
}

static int pred_any(double v) {
  uint64_t b;
  memcpy(&b, &v, 8);
  return (b & 1023) == 0;
}

static int mismatches;

static void report(const char *type, const shape *s, int row, size_t k,
                   double got, double want) {
  if (mismatches++ < 10)
    fprintf(stderr, "  %s shape %ux(%zu,%zu,%zu)/(%zu,%zu,%zu) row %d "
            "item %zu: got %.17g, want %.17g\n", type, s->dim, s->gs[0],
            s->gs[1], s->gs[2], s->ls[0], s->ls[1], s->ls[2], row, k, got,
            want);
}

/* Integer types: exact, add wraps (done in the unsigned type U). */
#define INT_REF(T, U, MIN, MAX)                                             \
  static void ref_##T(const char *name, const shape *s, const size_t *idx, \
                      size_t m, const T *in, const T *out, size_t n,        \
                      size_t bpos) {                                        \
    T add = 0, mn = MAX, mx = MIN;                                          \
    int all = 1, any = 0;                                                   \
    for (size_t k = 0; k < m; k++) {                                        \
      T x = in[idx[k]];                                                     \
      all &= pred_all((double)x), any |= pred_any((double)x);               \
      T want[3] = {add, mn, mx};                                            \
      for (int r = 0; r < 3; r++)                                           \
        if (out[(R_EXC_ADD + r) * n + idx[k]] != want[r])                   \
          report(name, s, R_EXC_ADD + r, k,                                 \
                 (double)out[(R_EXC_ADD + r) * n + idx[k]],                 \
                 (double)want[r]);                                          \
      add = (T)((U)add + (U)x), mn = x < mn ? x : mn, mx = x > mx ? x : mx; \
      T inc[3] = {add, mn, mx};                                             \
      for (int r = 0; r < 3; r++)                                           \
        if (out[(R_INC_ADD + r) * n + idx[k]] != inc[r])                    \
          report(name, s, R_INC_ADD + r, k,                                 \
                 (double)out[(R_INC_ADD + r) * n + idx[k]],                 \
                 (double)inc[r]);                                           \
    }                                                                       \
    T red[3] = {add, mn, mx};                                               \
    for (size_t k = 0; k < m; k++) {                                        \
      for (int r = 0; r < 3; r++)                                           \
        if (out[r * n + idx[k]] != red[r])                                  \
          report(name, s, r, k, (double)out[r * n + idx[k]],                \
                 (double)red[r]);                                           \
      if ((out[R_ALL * n + idx[k]] != 0) != all)                            \
        report(name, s, R_ALL, k, (double)out[R_ALL * n + idx[k]], all);    \
      if ((out[R_ANY * n + idx[k]] != 0) != any)                            \
        report(name, s, R_ANY, k, (double)out[R_ANY * n + idx[k]], any);    \
      if (out[R_BCAST * n + idx[k]] != in[idx[bpos]])                       \
        report(name, s, R_BCAST, k, (double)out[R_BCAST * n + idx[k]],      \
               (double)in[idx[bpos]]);                                      \
    }                                                                       \
  }
INT_REF(cl_int, cl_uint, INT32_MIN, INT32_MAX)
INT_REF(cl_uint, cl_uint, 0, UINT32_MAX)
INT_REF(cl_long, cl_ulong, INT64_MIN, INT64_MAX)
INT_REF(cl_ulong, cl_ulong, 0, UINT64_MAX)

/* got is within the error of an n-term sum whose terms' magnitudes sum
 * to abs, in any order: |err| <= n * eps * abs (exact if abs is 0).
 * Non-finite sums must match exactly (a NaN any NaN). */
static int sum_ok(double got, double want, double n, double abs,
                  double eps) {
  if (isnan(want))
    return isnan(got);
  if (isinf(want))
    return got == want;
  return fabs(got - want) <= n * eps * abs;
}

static int same(double got, double want) {
  return got == want || (isnan(got) && isnan(want));
}

/* Floating types: min/max are fmin/fmax (NaN operands ignored), the
 * identities +INF and -INF, sums within sum_ok. */
#define FLOAT_REF(T, EPS)                                                   \
  static void ref_##T(const char *name, const shape *s, const size_t *idx, \
                      size_t m, const T *in, const T *out, size_t n,        \
                      size_t bpos) {                                        \
    long double add = 0; /* nearly exact: the error bound is Skein's */    \
    T mn = (T)INFINITY, mx = (T)-INFINITY;                                  \
    double abs = 0;                                                         \
    int all = 1, any = 0;                                                   \
    for (size_t k = 0; k < m; k++) {                                        \
      T x = in[idx[k]];                                                     \
      all &= pred_all((double)x), any |= pred_any((double)x);               \
      const T *o = out + idx[k];                                            \
      if (!sum_ok(o[R_EXC_ADD * n], (double)add, (double)k, abs, EPS))     \
        report(name, s, R_EXC_ADD, k, o[R_EXC_ADD * n], (double)add);       \
      if (!same(o[R_EXC_MIN * n], mn))                                      \
        report(name, s, R_EXC_MIN, k, o[R_EXC_MIN * n], mn);                \
      if (!same(o[R_EXC_MAX * n], mx))                                      \
        report(name, s, R_EXC_MAX, k, o[R_EXC_MAX * n], mx);                \
      add += x, abs += fabs((double)x);                                     \
      mn = (T)fmin(mn, x), mx = (T)fmax(mx, x);                             \
      if (!sum_ok(o[R_INC_ADD * n], (double)add, (double)k + 1, abs, EPS)) \
        report(name, s, R_INC_ADD, k, o[R_INC_ADD * n], (double)add);       \
      if (!same(o[R_INC_MIN * n], mn))                                      \
        report(name, s, R_INC_MIN, k, o[R_INC_MIN * n], mn);                \
      if (!same(o[R_INC_MAX * n], mx))                                      \
        report(name, s, R_INC_MAX, k, o[R_INC_MAX * n], mx);                \
    }                                                                       \
    for (size_t k = 0; k < m; k++) {                                        \
      const T *o = out + idx[k];                                            \
      if (!sum_ok(o[0], (double)add, (double)m, abs, EPS))                  \
        report(name, s, R_RED_ADD, k, o[0], (double)add);                   \
      if (!same(o[R_RED_MIN * n], mn))                                      \
        report(name, s, R_RED_MIN, k, o[R_RED_MIN * n], mn);                \
      if (!same(o[R_RED_MAX * n], mx))                                      \
        report(name, s, R_RED_MAX, k, o[R_RED_MAX * n], mx);                \
      if ((o[R_ALL * n] != 0) != all)                                       \
        report(name, s, R_ALL, k, o[R_ALL * n], all);                       \
      if ((o[R_ANY * n] != 0) != any)                                       \
        report(name, s, R_ANY, k, o[R_ANY * n], any);                       \
      if (!same(o[R_BCAST * n], in[idx[bpos]]))                             \
        report(name, s, R_BCAST, k, o[R_BCAST * n], in[idx[bpos]]);         \
    }                                                                       \
  }
FLOAT_REF(cl_float, FLT_EPSILON)
FLOAT_REF(cl_double, DBL_EPSILON)

/* Input values: integers over their whole range (sums wrap); floats in
 * [-1000, 1000], with NaN, +INF and -INF sprinkled in when special. */
static void fill(const char *type, void *buf, size_t n, int special) {
  for (size_t i = 0; i < n; i++) {
    uint64_t r = test_rand();
    double f = ((double)(r >> 11) / 9007199254740992.0) * 2000.0 - 1000.0;
    if (special && r % 11 == 0)
      f = (r >> 8) % 3 == 0 ? NAN : (r >> 8) % 3 == 1 ? INFINITY : -INFINITY;
    if (strcmp(type, "int") == 0 || strcmp(type, "uint") == 0)
      ((uint32_t *)buf)[i] = (uint32_t)r;
    else if (strcmp(type, "long") == 0 || strcmp(type, "ulong") == 0)
      ((uint64_t *)buf)[i] = r;
    else if (strcmp(type, "float") == 0)
      ((float *)buf)[i] = (float)f;
    else
      ((double *)buf)[i] = f;
  }
}

/* Checks every group of one run against the reference. */
static void check_run(const char *type, const shape *s, const void *in,
                      const void *out, size_t n) {
  size_t ng[3], grp[3];
  for (int d = 0; d < 3; d++)
    ng[d] = (s->gs[d] + s->ls[d] - 1) / s->ls[d];
  size_t *idx = malloc(sizeof *idx * s->ls[0] * s->ls[1] * s->ls[2]);
  for (grp[2] = 0; grp[2] < ng[2]; grp[2]++)
    for (grp[1] = 0; grp[1] < ng[1]; grp[1]++)
      for (grp[0] = 0; grp[0] < ng[0]; grp[0]++) {
        size_t m = group_members(s, grp, idx), b = bcast_pos(s, grp);
#define CASE(name, T)                                                       \
  if (strcmp(type, name) == 0)                                              \
    ref_##T(name, s, idx, m, in, out, n, b);
        CASE("int", cl_int) CASE("uint", cl_uint) CASE("long", cl_long)
        CASE("ulong", cl_ulong) CASE("float", cl_float)
        CASE("double", cl_double)
#undef CASE
      }
  free(idx);
}

/* Runs coll_<type> on shape s and checks it. */
static void run_shape(cl_program prog, const char *type, size_t size,
                      const shape *s, int special) {
  char name[32];
  snprintf(name, sizeof name, "coll_%s", type);
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  size_t n = shape_items(s);
  void *in = malloc(n * size), *out = malloc(ROWS * n * size);
  fill(type, in, n, special);
  cl_mem bin = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR, n * size,
                              in, &err);
  REQUIRE_OK(err);
  cl_mem bout = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY,
                               ROWS * n * size, NULL, &err);
  REQUIRE_OK(err);
  cl_ulong args[4] = {n, bsrc[0], bsrc[1], bsrc[2]};
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bin, &bin));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bout, &bout));
  for (int i = 0; i < 4; i++)
    REQUIRE_OK(clSetKernelArg(k, 2 + (cl_uint)i, sizeof(cl_ulong),
                              &args[i]));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, s->dim, NULL, s->gs,
                                    s->ls, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bout, CL_TRUE, 0,
                                 ROWS * n * size, out, 0, NULL, NULL));
  check_run(type, s, in, out, n);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
  clReleaseKernel(k);
  free(in);
  free(out);
}

static void test_all_types(const char *options) {
  static const struct { const char *name; size_t size; } types[] = {
      {"int", 4}, {"uint", 4}, {"long", 8}, {"ulong", 8}, {"float", 4},
      {"double", 8}};
  cl_program prog = test_build(&env, coll_src, options);
  for (size_t t = 0; t < 6; t++)
    for (size_t s = 0; s < NUM_SHAPES; s++) {
      run_shape(prog, types[t].name, types[t].size, &shapes[s], 0);
      if (types[t].name[0] == 'f' || types[t].name[0] == 'd')
        run_shape(prog, types[t].name, types[t].size, &shapes[s], 1);
    }
  CHECK_EQ(mismatches, 0);
  clReleaseProgram(prog);
}

/* A broadcast from outside the group is undefined, but must not crash:
 * every work-item of a group still gets one and the same value. */
static void test_wild_broadcast(void) {
  cl_program prog = test_build(&env, coll_src, "-cl-std=CL3.0");
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "wild", &err);
  REQUIRE_OK(err);
  enum { N = 40, LS = 16 };
  cl_mem b = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, N * 4, NULL,
                            &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof b, &b));
  size_t gs = N, ls = LS;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &gs, &ls, 0, NULL,
                                    NULL));
  int out[N];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  for (int i = 0; i < N; i++) {
    CHECK_EQ(out[i], out[i / LS * LS]);
    CHECK(out[i] >= i / LS * LS && out[i] < N);
  }
  clReleaseMemObject(b);
  clReleaseKernel(k);
  clReleaseProgram(prog);
}

int main(void) {
  test_seed(0x9e3779b97f4a7c15ull);
  test_setup(&env);
  test_reported();
  test_seed_example();
  test_all_types("-cl-std=CL3.0");
  test_all_types("-cl-std=CL2.0");
  test_wild_broadcast();
  test_teardown(&env);
  return test_finish("collectives");
}
