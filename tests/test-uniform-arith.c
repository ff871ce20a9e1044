/* This file tests cl_khr_work_group_uniform_arithmetic through the ICD
 * loader: the device reports it, its macro is defined, reduce and
 * inclusive/exclusive scans of mul (int, uint, long, ulong, float,
 * double), and, or, xor (integers) and logical_and/or/xor (int
 * predicates) match a host reference in linear local id order on several
 * group shapes (identities, wrap-around), and
 * -cl-ext=-cl_khr_work_group_uniform_arithmetic hides the functions. */
#include "test_util.h"
#include <float.h>
#include <math.h>
#include <stdint.h>

static test_env env;

#define EXT "cl_khr_work_group_uniform_arithmetic"

static void test_reported(void) {
  char ext[4096];
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof ext,
                             ext, NULL));
  CHECK(strstr(ext, EXT) != NULL);
  cl_name_version nv[64];
  size_t size;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS_WITH_VERSION,
                             sizeof nv, nv, &size));
  int found = 0;
  for (size_t i = 0; i < size / sizeof nv[0]; i++)
    found += strcmp(nv[i].name, EXT) == 0;
  CHECK_EQ(found, 1);
}

/* Row r of out holds function r's results. Integer kernels: mul, and, or,
 * xor, then the logical functions on the predicate x & 0x30 (values other
 * than 0 and 1); float kernels: mul only. */
enum { OPS_INT = 7, OPS_FLOAT = 1, ROWS = 3 * OPS_INT };

static const char src[] =
    "#ifndef " EXT "\n"
    "#error the extension macro is not defined\n"
    "#endif\n"
    "#define ARITH(r, op, v)\\\n"
    "  out[(3 * r + 0) * n + g] = work_group_reduce_##op(v);\\\n"
    "  out[(3 * r + 1) * n + g] = work_group_scan_inclusive_##op(v);\\\n"
    "  out[(3 * r + 2) * n + g] = work_group_scan_exclusive_##op(v);\n"
    "#define INT(T)\\\n"
    "kernel void u_##T(global const T *in, global T *out, ulong n) {\\\n"
    "  size_t g = get_global_linear_id();\\\n"
    "  T x = in[g];\\\n"
    "  int p = (int)(x & 0x30);\\\n"
    "  ARITH(0, mul, x) ARITH(1, and, x) ARITH(2, or, x) ARITH(3, xor, x)\\\n"
    "  ARITH(4, logical_and, p) ARITH(5, logical_or, p)\\\n"
    "  ARITH(6, logical_xor, p)\\\n"
    "}\n"
    "#define FLOAT(T)\\\n"
    "kernel void u_##T(global const T *in, global T *out, ulong n) {\\\n"
    "  size_t g = get_global_linear_id();\\\n"
    "  ARITH(0, mul, in[g])\\\n"
    "}\n"
    "INT(int) INT(uint) INT(long) INT(ulong) FLOAT(float) FLOAT(double)\n";

typedef struct shape {
  unsigned dim;
  size_t gs[3], ls[3];
} shape;

static const shape shapes[] = {
    {1, {3, 1, 1}, {1, 1, 1}},       {1, {4, 1, 1}, {2, 1, 1}},
    {1, {18, 1, 1}, {7, 1, 1}},      {1, {128, 1, 1}, {64, 1, 1}},
    {1, {1500, 1, 1}, {1024, 1, 1}}, {2, {20, 10, 1}, {8, 4, 1}},
    {3, {13, 7, 3}, {8, 4, 2}},
};
#define NUM_SHAPES (sizeof shapes / sizeof shapes[0])

/* Global linear ids of group grp's work-items in linear local id order. */
static size_t group_members(const shape *s, const size_t grp[3],
                            size_t *idx) {
  size_t lsz[3], m = 0;
  for (int d = 0; d < 3; d++) {
    size_t rest = s->gs[d] - grp[d] * s->ls[d];
    lsz[d] = rest < s->ls[d] ? rest : s->ls[d];
  }
  for (size_t z = 0; z < lsz[2]; z++)
    for (size_t y = 0; y < lsz[1]; y++)
      for (size_t x = 0; x < lsz[0]; x++)
        idx[m++] = ((grp[2] * s->ls[2] + z) * s->gs[1] + grp[1] * s->ls[1] +
                    y) * s->gs[0] + grp[0] * s->ls[0] + x;
  return m;
}


static int mismatches;

static void report(const char *type, const shape *s, int row, size_t k,
                   double got, double want) {
  if (mismatches++ < 10)
    fprintf(stderr, "  %s shape %ux(%zu,%zu,%zu) row %d item %zu: got %.17g,"
            " want %.17g\n", type, s->dim, s->gs[0], s->gs[1], s->gs[2], row,
            k, got, want);
}

/* The integer reference: op r of the kernel with its identity; products
 * wrap (computed in the unsigned type U). */
#define INT_REF(T, U)                                                       \
  static T op_##T(int r, T a, T b) {                                        \
    switch (r) {                                                            \
    case 0: return (T)((U)a * (U)b);                                        \
    case 1: return a & b;                                                   \
    case 2: return a | b;                                                   \
    case 3: return a ^ b;                                                   \
    case 4: return a != 0 && b != 0;                                        \
    case 5: return a != 0 || b != 0;                                        \
    default: return (a != 0) != (b != 0);                                   \
    }                                                                       \
  }                                                                         \
  static void ref_##T(const shape *s, const size_t *idx, size_t m,          \
                      const T *in, const T *out, size_t n) {                \
    static const T ident[OPS_INT] = {1, (T)~(U)0, 0, 0, 1, 0, 0};           \
    for (int r = 0; r < OPS_INT; r++) {                                     \
      T acc = ident[r];                                                     \
      for (size_t k = 0; k < m; k++) {                                      \
        T x = r >= 4 ? (T)(in[idx[k]] & 0x30) : in[idx[k]];                 \
        const T *o = out + idx[k];                                          \
        if (o[(3 * r + 2) * n] != acc)                                      \
          report(#T, s, 3 * r + 2, k, (double)o[(3 * r + 2) * n],           \
                 (double)acc);                                              \
        acc = op_##T(r, acc, x);                                            \
        if (o[(3 * r + 1) * n] != acc)                                      \
          report(#T, s, 3 * r + 1, k, (double)o[(3 * r + 1) * n],           \
                 (double)acc);                                              \
      }                                                                     \
      for (size_t k = 0; k < m; k++)                                        \
        if (out[3 * r * n + idx[k]] != acc)                                 \
          report(#T, s, 3 * r, k, (double)out[3 * r * n + idx[k]],          \
                 (double)acc);                                              \
    }                                                                       \
  }
INT_REF(cl_int, cl_uint)
INT_REF(cl_uint, cl_uint)
INT_REF(cl_long, cl_ulong)
INT_REF(cl_ulong, cl_ulong)

/* A product of k factors computed in any order is within k * eps of the
 * exact one, relatively. */
static int product_ok(double got, long double want, size_t k, double eps) {
  return fabsl((long double)got - want) <=
         (long double)(k + 1) * eps * fabsl(want);
}

#define FLOAT_REF(T, EPS)                                                   \
  static void ref_##T(const shape *s, const size_t *idx, size_t m,          \
                      const T *in, const T *out, size_t n) {                \
    long double acc = 1;                                                    \
    for (size_t k = 0; k < m; k++) {                                        \
      const T *o = out + idx[k];                                            \
      if (!product_ok(o[2 * n], acc, k, EPS))                               \
        report(#T, s, 2, k, o[2 * n], (double)acc);                         \
      acc *= in[idx[k]];                                                    \
      if (!product_ok(o[1 * n], acc, k + 1, EPS))                           \
        report(#T, s, 1, k, o[1 * n], (double)acc);                         \
    }                                                                       \
    for (size_t k = 0; k < m; k++)                                          \
      if (!product_ok(out[idx[k]], acc, m, EPS))                            \
        report(#T, s, 0, k, out[idx[k]], (double)acc);                      \
  }
FLOAT_REF(cl_float, FLT_EPSILON)
FLOAT_REF(cl_double, DBL_EPSILON)

/* Integers: random odd values (products stay non-zero while they wrap);
 * floats: factors in [0.9, 1.1] (products of 1024 stay finite). */
static void fill(const char *type, void *buf, size_t n) {
  for (size_t i = 0; i < n; i++) {
    uint64_t r = test_rand() | 1;
    double f = 0.9 + 0.2 * ((double)(r >> 11) / 9007199254740992.0);
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

static void check_run(const char *type, const shape *s, const void *in,
                      const void *out, size_t n) {
  size_t ng[3], grp[3];
  for (int d = 0; d < 3; d++)
    ng[d] = (s->gs[d] + s->ls[d] - 1) / s->ls[d];
  size_t *idx = malloc(sizeof *idx * s->ls[0] * s->ls[1] * s->ls[2]);
  for (grp[2] = 0; grp[2] < ng[2]; grp[2]++)
    for (grp[1] = 0; grp[1] < ng[1]; grp[1]++)
      for (grp[0] = 0; grp[0] < ng[0]; grp[0]++) {
        size_t m = group_members(s, grp, idx);
#define CASE(name, T)                                                       \
  if (strcmp(type, name) == 0)                                              \
    ref_##T(s, idx, m, in, out, n);
        CASE("int", cl_int) CASE("uint", cl_uint) CASE("long", cl_long)
        CASE("ulong", cl_ulong) CASE("float", cl_float)
        CASE("double", cl_double)
#undef CASE
      }
  free(idx);
}

static void run_shape(cl_program prog, const char *type, size_t size,
                      const shape *s) {
  char name[32];
  snprintf(name, sizeof name, "u_%s", type);
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  size_t n = s->gs[0] * s->gs[1] * s->gs[2];
  void *in = malloc(n * size), *out = malloc(ROWS * n * size);
  fill(type, in, n);
  cl_mem bin = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR, n * size,
                              in, &err);
  REQUIRE_OK(err);
  cl_mem bout = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY,
                               ROWS * n * size, NULL, &err);
  REQUIRE_OK(err);
  cl_ulong nn = n;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bin, &bin));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bout, &bout));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof nn, &nn));
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

static void test_functions(const char *options) {
  static const struct { const char *name; size_t size; } types[] = {
      {"int", 4}, {"uint", 4}, {"long", 8}, {"ulong", 8}, {"float", 4},
      {"double", 8}};
  cl_program prog = test_build(&env, src, options);
  for (size_t t = 0; t < 6; t++)
    for (size_t s = 0; s < NUM_SHAPES; s++)
      run_shape(prog, types[t].name, types[t].size, &shapes[s]);
  CHECK_EQ(mismatches, 0);
  clReleaseProgram(prog);
}

/* Disabling the extension hides the declarations: the build fails and
 * the log names the function. */
static void test_disabled(void) {
  static const char use[] =
      "kernel void k(global int *p) {\n"
      "  p[0] = work_group_reduce_xor(p[1]);\n"
      "}\n";
  const char *s = use;
  cl_int err;
  cl_program p = clCreateProgramWithSource(env.context, 1, &s, NULL, &err);
  REQUIRE_OK(err);
  err = clBuildProgram(p, 1, &env.device, "-cl-std=CL3.0 -cl-ext=-" EXT,
                       NULL, NULL);
  CHECK_EQ(err, CL_BUILD_PROGRAM_FAILURE);
  char log[8192] = "";
  clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                        NULL);
  CHECK(strstr(log, "work_group_reduce_xor") != NULL);
  /* Enabled again by a later option, it builds. */
  REQUIRE_OK(clBuildProgram(p, 1, &env.device,
                            "-cl-std=CL3.0 -cl-ext=-" EXT " -cl-ext=+" EXT,
                            NULL, NULL));
  clReleaseProgram(p);
}

int main(void) {
  test_seed(0x2545f4914f6cdd1dull);
  test_setup(&env);
  test_reported();
  test_functions("-cl-std=CL3.0");
  test_functions("-cl-std=CL2.0");
  test_disabled();
  test_teardown(&env);
  return test_finish("uniform-arith");
}
