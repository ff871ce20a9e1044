/* This file runs element-wise arithmetic over every integer and floating
 * scalar type and its vectors of 2, 3, 4, 8 and 16 elements, with kernel
 * sources generated here, and compares each lane with the host's result.
 * Vectors of 3 occupy 4 elements in a buffer, as in OpenCL C. */
#include "test_util.h"
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

static test_env env;

enum { COUNT = 1000, NOUT = 6 };
static const int widths[] = {1, 2, 3, 4, 8, 16};

/* Host references: for integers +, -, *, /, %, (a ^ b) >> 1; for floats
 * +, -, *, max by ?:, negation, and / (2.5 ulp for float). Operands stay
 * small enough that no signed operation overflows. */
#define INT_CHECK(T, CT)                                                   \
  static int check_##T(const void *va, const void *vb, void *const *o,    \
                       size_t count, int n) {                             \
    const CT *a = va, *b = vb;                                            \
    CT *const *out = (CT *const *)o;                                      \
    int bad = 0;                                                          \
    for (size_t i = 0; i < count; i++) {                                  \
      if (n == 3 && i % 4 == 3)                                           \
        continue; /* padding lane */                                      \
      bad += out[0][i] != (CT)(a[i] + b[i]);                              \
      bad += out[1][i] != (CT)(a[i] - b[i]);                              \
      bad += out[2][i] != (CT)(a[i] * b[i]);                              \
      bad += out[3][i] != (CT)(a[i] / b[i]);                              \
      bad += out[4][i] != (CT)(a[i] % b[i]);                              \
      bad += out[5][i] != (CT)((CT)(a[i] ^ b[i]) >> 1);                   \
    }                                                                     \
    return bad;                                                           \
  }                                                                       \
  static void gen_##T(void *va, void *vb, size_t count, double lo,       \
                      double hi) {                                        \
    CT *a = va, *b = vb;                                                  \
    for (size_t i = 0; i < count; i++) {                                  \
      a[i] = (CT)(lo + (hi - lo) * ((double)rand() / RAND_MAX));          \
      b[i] = (CT)(lo + (hi - lo) * ((double)rand() / RAND_MAX));          \
      if (b[i] == 0)                                                      \
        b[i] = 1;                                                         \
    }                                                                     \
  }

#define FLT_CHECK(T, CT, ULP)                                              \
  static int check_##T(const void *va, const void *vb, void *const *o,    \
                       size_t count, int n) {                             \
    const CT *a = va, *b = vb;                                            \
    CT *const *out = (CT *const *)o;                                      \
    int bad = 0;                                                          \
    for (size_t i = 0; i < count; i++) {                                  \
      if (n == 3 && i % 4 == 3)                                           \
        continue;                                                         \
      bad += out[0][i] != (CT)(a[i] + b[i]);                              \
      bad += out[1][i] != (CT)(a[i] - b[i]);                              \
      bad += out[2][i] != (CT)(a[i] * b[i]);                              \
      bad += out[3][i] != (a[i] > b[i] ? a[i] : b[i]);                    \
      bad += out[4][i] != -a[i];                                          \
      CT q = a[i] / b[i];                                                 \
      bad += fabs((double)out[5][i] - (double)q) > ULP * fabs((double)q); \
    }                                                                     \
    return bad;                                                           \
  }                                                                       \
  static void gen_##T(void *va, void *vb, size_t count, double lo,       \
                      double hi) {                                        \
    CT *a = va, *b = vb;                                                  \
    for (size_t i = 0; i < count; i++) {                                  \
      a[i] = (CT)(lo + (hi - lo) * ((double)rand() / RAND_MAX));          \
      b[i] = (CT)(lo + (hi - lo) * ((double)rand() / RAND_MAX));          \
      if (b[i] == 0)                                                      \
        b[i] = 1;                                                         \
    }                                                                     \
  }

INT_CHECK(char, cl_char)
INT_CHECK(uchar, cl_uchar)
INT_CHECK(short, cl_short)
INT_CHECK(ushort, cl_ushort)
INT_CHECK(int, cl_int)
INT_CHECK(uint, cl_uint)
INT_CHECK(long, cl_long)
INT_CHECK(ulong, cl_ulong)
FLT_CHECK(float, cl_float, 3 * 0x1p-23)
FLT_CHECK(double, cl_double, 0x1p-52)

typedef struct type_desc {
  const char *name;
  size_t size;
  bool is_float;
  double lo, hi;      /* operands lie in [lo, hi] */
  int (*check)(const void *, const void *, void *const *, size_t, int);
  void (*gen)(void *, void *, size_t, double, double);
} type_desc;

#define INT_TYPE(T, CT, LO, HI)                                            \
  {#T, sizeof(CT), false, LO, HI, check_##T, gen_##T}
#define FLT_TYPE(T, CT)                                                    \
  {#T, sizeof(CT), true, -1000.0, 1000.0, check_##T, gen_##T}
static const type_desc types[] = {
    INT_TYPE(char, cl_char, -11, 11),
    INT_TYPE(uchar, cl_uchar, 0, 15),
    INT_TYPE(short, cl_short, -181, 181),
    INT_TYPE(ushort, cl_ushort, 0, 255),
    INT_TYPE(int, cl_int, -46340, 46340),
    INT_TYPE(uint, cl_uint, 0, 65535),
    INT_TYPE(long, cl_long, -3037000499.0, 3037000499.0),
    INT_TYPE(ulong, cl_ulong, 0, 4.29e9),
    FLT_TYPE(float, cl_float),
    FLT_TYPE(double, cl_double),
};

/* Appends the kernel for type t and width n to src. */
static void gen_kernel(char *src, size_t cap, const type_desc *t, int n) {
  char vt[32];
  if (n == 1)
    snprintf(vt, sizeof vt, "%s", t->name);
  else
    snprintf(vt, sizeof vt, "%s%d", t->name, n);
  size_t len = strlen(src);
  snprintf(src + len, cap - len,
           "kernel void k_%s_%d(global const %s *a, global const %s *b,\n"
           "    global %s *o0, global %s *o1, global %s *o2, global %s *o3,\n"
           "    global %s *o4, global %s *o5) {\n"
           "  size_t i = get_global_id(0);\n"
           "  %s x = a[i], y = b[i];\n"
           "  o0[i] = x + y; o1[i] = x - y; o2[i] = x * y;\n"
           "%s"
           "}\n",
           t->name, n, vt, vt, vt, vt, vt, vt, vt, vt, vt,
           t->is_float ? "  o3[i] = x > y ? x : y; o4[i] = -x;"
                         " o5[i] = x / y;\n"
                       : "  o3[i] = x / y; o4[i] = x % y;"
                         " o5[i] = (x ^ y) >> 1;\n");
}

/* Runs k_<type>_<n> of p over COUNT vectors; returns the bad lanes. */
static int run_one(cl_program p, const type_desc *t, int n) {
  char name[64];
  snprintf(name, sizeof name, "k_%s_%d", t->name, n);
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  size_t lanes = (size_t)(n == 3 ? 4 : n) * COUNT;
  size_t bytes = lanes * t->size;
  void *a = malloc(bytes), *b = malloc(bytes);
  void *outs[NOUT];
  t->gen(a, b, lanes, t->lo, t->hi);
  cl_mem ma = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR, bytes, a,
                             &err);
  REQUIRE_OK(err);
  cl_mem mb = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR, bytes, b,
                             &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof ma, &ma));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof mb, &mb));
  cl_mem mo[NOUT];
  for (int i = 0; i < NOUT; i++) {
    mo[i] = clCreateBuffer(env.context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    REQUIRE_OK(err);
    REQUIRE_OK(clSetKernelArg(k, 2 + i, sizeof mo[i], &mo[i]));
  }
  size_t global = COUNT;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  for (int i = 0; i < NOUT; i++) {
    outs[i] = malloc(bytes);
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, mo[i], CL_TRUE, 0, bytes,
                                   outs[i], 0, NULL, NULL));
  }
  int bad = t->check(a, b, outs, lanes, n);
  if (bad)
    fprintf(stderr, "%s: %d bad lanes\n", name, bad);
  for (int i = 0; i < NOUT; i++) {
    clReleaseMemObject(mo[i]);
    free(outs[i]);
  }
  clReleaseMemObject(ma);
  clReleaseMemObject(mb);
  clReleaseKernel(k);
  free(a);
  free(b);
  return bad;
}

int main(void) {
  test_setup(&env);
  srand(12345);
  static char src[1 << 16];
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
    src[0] = '\0';
    if (!strcmp(types[ti].name, "double"))
      strcat(src, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
      gen_kernel(src, sizeof src, &types[ti], widths[w]);
    cl_program p = test_build(&env, src, NULL);
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
      CHECK_EQ(run_one(p, &types[ti], widths[w]), 0);
    clReleaseProgram(p);
  }
  test_teardown(&env);
  return test_finish("kernel-types");
}
