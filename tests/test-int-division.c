/* This file tests integer division and remainder in kernels: exact
 * results for every defined case, and for the undefined ones (a zero
 * divisor, MIN / -1) that the kernel completes and the host process lives
 * (on x86-64 these trap with SIGFPE unless the compiler guards them).
 * Covers char/short/int/long, signed and unsigned, scalars and vectors,
 * in loop mode, in fiber mode and in a barrier (region-mode) kernel. */
#include "test_util.h"

#include <limits.h>
#include <stdint.h>

#define N 4096

/* One kernel per element type; the division runs on values the compiler
 * cannot see, and the vector form exercises lane-wise guards. */
static const char *source =
    "#define DIVS(T, T4) \\\n"
    "kernel void div_##T(global const T *a, global const T *b, \\\n"
    "                    global T *q, global T *r) { \\\n"
    "  size_t i = get_global_id(0); \\\n"
    "  q[i] = a[i] / b[i]; \\\n"
    "  r[i] = a[i] % b[i]; \\\n"
    "} \\\n"
    "kernel void div4_##T(global const T4 *a, global const T4 *b, \\\n"
    "                     global T4 *q, global T4 *r) { \\\n"
    "  size_t i = get_global_id(0); \\\n"
    "  q[i] = a[i] / b[i]; \\\n"
    "  r[i] = a[i] % b[i]; \\\n"
    "} \\\n"
    "kernel void divbar_##T(global const T *a, global const T *b, \\\n"
    "                       global T *q, global T *r) { \\\n"
    "  local T tmp[64]; \\\n"
    "  size_t i = get_global_id(0), l = get_local_id(0); \\\n"
    "  tmp[l] = b[i]; \\\n"
    "  barrier(CLK_LOCAL_MEM_FENCE); \\\n"
    "  q[i] = a[i] / tmp[l]; \\\n"
    "  r[i] = a[i] % tmp[l]; \\\n"
    "}\n"
    "DIVS(char, char4) DIVS(uchar, uchar4) DIVS(short, short4)             \n"
    "DIVS(ushort, ushort4) DIVS(int, int4) DIVS(uint, uint4)               \n"
    "DIVS(long, long4) DIVS(ulong, ulong4)                                 \n";

typedef struct type_desc {
  const char *name;
  size_t size;
  int is_signed;
} type_desc;

static const type_desc types[] = {
    {"char", 1, 1},  {"uchar", 1, 0}, {"short", 2, 1}, {"ushort", 2, 0},
    {"int", 4, 1},   {"uint", 4, 0},  {"long", 8, 1},  {"ulong", 8, 0},
};


static void store(void *buf, size_t i, size_t size, int64_t v) {
  memcpy((char *)buf + i * size, &v, size);   /* little-endian truncation */
}

static int64_t load(const void *buf, size_t i, const type_desc *t) {
  uint64_t u = 0;
  memcpy(&u, (const char *)buf + i * t->size, t->size);
  if (t->is_signed && t->size < 8 && (u >> (t->size * 8 - 1)) & 1)
    u |= ~0ull << (t->size * 8);
  return (int64_t)u;
}

/* Divisors: zeros, -1, small and random values; dividends include MIN. */
static void fill(const type_desc *t, void *a, void *b) {
  int64_t min = t->is_signed ? (int64_t)(~0ull << (t->size * 8 - 1)) : 0;
  for (size_t i = 0; i < N; i++) {
    uint64_t ra = test_rand(), rb = test_rand();
    int64_t av = (i % 5 == 0) ? min : (int64_t)ra;
    int64_t bv;
    switch (i % 7) {
    case 0: bv = 0; break;
    case 1: bv = -1; break;
    case 2: bv = (int64_t)(rb % 13) - 6; break;
    default: bv = (int64_t)rb; break;
    }
    store(a, i, t->size, av);
    store(b, i, t->size, bv);
  }
}

/* The defined cases must match the host exactly. */
static int check(const type_desc *t, const void *a, const void *b,
                 const void *q, const void *r, const char *kernel) {
  int wrong = 0;
  for (size_t i = 0; i < N; i++) {
    int64_t av = load(a, i, t), bv = load(b, i, t);
    int64_t min = t->is_signed ? (int64_t)(~0ull << (t->size * 8 - 1)) : 0;
    if (bv == 0 || (t->is_signed && av == min && bv == -1))
      continue;   /* undefined: any value will do */
    int64_t eq, er;
    if (t->is_signed) {
      eq = av / bv;
      er = av % bv;
    } else {
      uint64_t mask = t->size == 8 ? ~0ull : (1ull << (t->size * 8)) - 1;
      uint64_t ua = (uint64_t)av & mask, ub = (uint64_t)bv & mask;
      eq = (int64_t)(ua / ub);
      er = (int64_t)(ua % ub);
    }
    /* Compare in the element's width. */
    type_desc u = *t;
    u.is_signed = 0;
    int64_t mq = load(&eq, 0, &u), mr = load(&er, 0, &u);
    if (load(q, i, &u) != mq || load(r, i, &u) != mr) {
      if (wrong++ < 3)
        fprintf(stderr, "%s[%zu]: %lld / %lld gave q=%lld r=%lld\n",
                kernel, i, (long long)av, (long long)bv,
                (long long)load(q, i, t), (long long)load(r, i, t));
    }
  }
  return wrong;
}

static void run_type(test_env *env, cl_program prog, const type_desc *t,
                     const char *prefix, size_t width) {
  char name[32];
  snprintf(name, sizeof name, "%s%s", prefix, t->name);
  size_t bytes = N * t->size;
  void *a = malloc(bytes), *b = malloc(bytes), *q = malloc(bytes),
       *r = malloc(bytes);
  fill(t, a, b);
  cl_int err;
  cl_mem ba = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, bytes, a,
                             &err);
  REQUIRE_OK(err);
  cl_mem bb = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, bytes, b,
                             &err);
  REQUIRE_OK(err);
  cl_mem bq = clCreateBuffer(env->context, 0, bytes, NULL, &err);
  REQUIRE_OK(err);
  cl_mem br = clCreateBuffer(env->context, 0, bytes, NULL, &err);
  REQUIRE_OK(err);
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  cl_mem args[4] = {ba, bb, bq, br};
  for (cl_uint i = 0; i < 4; i++)
    REQUIRE_OK(clSetKernelArg(k, i, sizeof(cl_mem), &args[i]));
  size_t global = N / width, local = 64;
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, bq, CL_TRUE, 0, bytes, q, 0,
                                 NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, br, CL_TRUE, 0, bytes, r, 0,
                                 NULL, NULL));
  int wrong = check(t, a, b, q, r, name);
  if (wrong)
    fprintf(stderr, "%s: %d wrong\n", name, wrong);
  CHECK_EQ(wrong, 0);
  clReleaseKernel(k);
  for (int i = 0; i < 4; i++)
    clReleaseMemObject(args[i]);
  free(a);
  free(b);
  free(q);
  free(r);
}

int main(void) {
  test_seed(0x9e3779b97f4a7c15ull);
  test_env env;
  test_setup(&env);
  static const char *modes[] = {NULL, "fiber"};
  for (int m = 0; m < 2; m++) {
    if (modes[m])
      setenv("SKEIN_MODE", modes[m], 1);
    cl_program prog = test_build(&env, source, "");
    unsetenv("SKEIN_MODE");
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
      run_type(&env, prog, &types[i], "div_", 1);
      run_type(&env, prog, &types[i], "div4_", 4);
      run_type(&env, prog, &types[i], "divbar_", 1);
    }
    clReleaseProgram(prog);
  }
  test_teardown(&env);
  return test_finish("int-division");
}
