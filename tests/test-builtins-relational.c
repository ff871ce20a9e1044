/* This file tests the relational builtins (OpenCL C 3.0 section 6.15.6)
 * and the miscellaneous vector functions (section 6.15.9): the is*
 * functions and signbit on float and double edge values (scalar results
 * 0/1, vector results 0/-1), any and all, bitselect and select for every
 * type, shuffle and shuffle2 for every element type and width pair, and
 * the vec_step operator. Results are compared with host references. */
#include "test_util.h"
#include <math.h>
#include <stdint.h>
#include <float.h>

static test_env env;

enum { COUNT = 1024 };
static const int widths[] = {1, 2, 3, 4, 8, 16};
static const int shuffle_widths[] = {2, 4, 8, 16};

static uint64_t rand64(void) {
  uint64_t r = 0;
  for (int k = 0; k < 4; k++)
    r = (r << 16) ^ (uint64_t)(rand() & 0xffff);
  return r;
}

/* Runs kernel name over global work-items with the buffers, and reads
 * the last buffer (out_size bytes) into out. */
static void run(cl_program prog, const char *name, size_t global,
                cl_mem *args, cl_uint nargs, void *out, size_t out_size) {
  test_run_1d(&env, prog, name, global, args, nargs);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, args[nargs - 1], CL_TRUE, 0,
                                 out_size, out, 0, NULL, NULL));
}

static uint64_t ebits(const void *p, size_t i, int size) {
  switch (size) {
  case 1: return ((const uint8_t *)p)[i];
  case 2: return ((const uint16_t *)p)[i];
  case 4: return ((const uint32_t *)p)[i];
  default: return ((const uint64_t *)p)[i];
  }
}

static void fill_random(void *p, size_t bytes) {
  for (size_t i = 0; i < bytes; i++)
    ((uint8_t *)p)[i] = (uint8_t)rand();
}

typedef struct etype {
  const char *name, *sname, *uname;
  int size;
  int is_signed_int; /* any and all take signed integers only */
} etype;

static const etype int_types[] = {
  {"char", "char", "uchar", 1, 1},   {"uchar", "char", "uchar", 1, 0},
  {"short", "short", "ushort", 2, 1}, {"ushort", "short", "ushort", 2, 0},
  {"int", "int", "uint", 4, 1},      {"uint", "int", "uint", 4, 0},
  {"long", "long", "ulong", 8, 1},   {"ulong", "long", "ulong", 8, 0},
};
static const etype all_types[] = {
  {"char", "char", "uchar", 1, 1},   {"uchar", "char", "uchar", 1, 0},
  {"short", "short", "ushort", 2, 1}, {"ushort", "short", "ushort", 2, 0},
  {"int", "int", "uint", 4, 1},      {"uint", "int", "uint", 4, 0},
  {"long", "long", "ulong", 8, 1},   {"ulong", "long", "ulong", 8, 0},
  {"float", "int", "uint", 4, 0},    {"double", "long", "ulong", 8, 0},
};

/* ------------------------------------------------------------------ */
/* shuffle, shuffle2 and vec_step. */

enum { NSHUF = 64 }; /* vectors per kernel run */

/* Appends kernels s<m>_<n> (shuffle and shuffle2 from m to n elements)
 * and vs (vec_step) for element type t to src; returns the new length. */
static size_t shuffle_source(const etype *t, char *src, size_t cap,
                             size_t len) {
  for (int mi = 0; mi < 4; mi++)
    for (int ni = 0; ni < 4; ni++) {
      int m = shuffle_widths[mi], n = shuffle_widths[ni];
      len += (size_t)snprintf(
          src + len, cap - len,
          "kernel void s%d_%d(global %s%d *x, global %s%d *y,\n"
          "                   global %s%d *mask, global %s%d *o) {\n"
          "  size_t i = get_global_id(0);\n"
          "  o[2 * i] = shuffle(x[i], mask[i]);\n"
          "  o[2 * i + 1] = shuffle2(x[i], y[i], mask[i]);\n"
          "}\n", m, n, t->name, m, t->name, m, t->uname, n, t->name, n);
    }
  len += (size_t)snprintf(
      src + len, cap - len,
      "kernel void vs(global int *o) {\n"
      "  %s3 v3; %s16 v16;\n"
      "  o[0] = vec_step(%s); o[1] = vec_step(%s2); o[2] = vec_step(%s3);\n"
      "  o[3] = vec_step(%s4); o[4] = vec_step(%s8); o[5] = vec_step(%s16);\n"
      "  o[6] = vec_step(v3); o[7] = vec_step(v16);\n"
      "}\n", t->name, t->name, t->name, t->name, t->name, t->name, t->name,
      t->name);
  return len;
}

/* Runs and checks the kernels of shuffle_source in prog. */
static void test_shuffle(const etype *t, cl_program prog) {
  const size_t bytes = NSHUF * 16 * (size_t)t->size;
  uint8_t *x = malloc(bytes), *y = malloc(bytes), *mask = malloc(bytes);
  uint8_t *o = malloc(2 * bytes);
  fill_random(x, bytes);
  fill_random(y, bytes);
  fill_random(mask, bytes);
  cl_mem mem[] = {test_buffer(&env, bytes, x), test_buffer(&env, bytes, y),
                  test_buffer(&env, bytes, mask), test_buffer(&env, 2 * bytes, NULL)};
  int bad = 0;
  for (int mi = 0; mi < 4; mi++)
    for (int ni = 0; ni < 4; ni++) {
      size_t m = (size_t)shuffle_widths[mi], n = (size_t)shuffle_widths[ni];
      char name[16];
      snprintf(name, sizeof name, "s%zu_%zu", m, n);
      run(prog, name, NSHUF, mem, 4, o, 2 * bytes);
      for (size_t i = 0; i < NSHUF; i++)
        for (size_t k = 0; k < n; k++) {
          uint64_t mk = ebits(mask, i * n + k, t->size);
          uint64_t want1 = ebits(x, i * m + (mk & (m - 1)), t->size);
          size_t k2 = (size_t)(mk & (2 * m - 1));
          uint64_t want2 = k2 < m ? ebits(x, i * m + k2, t->size)
                                  : ebits(y, i * m + k2 - m, t->size);
          uint64_t got1 = ebits(o, 2 * i * n + k, t->size);
          uint64_t got2 = ebits(o, (2 * i + 1) * n + k, t->size);
          if ((got1 != want1 || got2 != want2) && bad++ < 5)
            fprintf(stderr, "%s: shuffle(2) %zu -> %zu: vector %zu lane %zu "
                    "wrong\n", t->name, m, n, i, k);
        }
    }
  int vs[8];
  cl_mem vm = test_buffer(&env, sizeof vs, NULL);
  run(prog, "vs", 1, &vm, 1, vs, sizeof vs);
  const int want_vs[8] = {1, 2, 4, 4, 8, 16, 4, 16};
  for (int i = 0; i < 8; i++)
    CHECK_EQ(vs[i], want_vs[i]);
  CHECK_EQ(bad, 0);
  REQUIRE_OK(clReleaseMemObject(vm));
  for (int i = 0; i < 4; i++)
    REQUIRE_OK(clReleaseMemObject(mem[i]));
  free(x);
  free(y);
  free(mask);
  free(o);
}

/* ------------------------------------------------------------------ */
/* Floating-point classification and comparison. */

enum { NREL = 14 };
static const char *const rel_names[NREL] = {
  "isequal", "isnotequal", "isgreater", "isgreaterequal", "isless",
  "islessequal", "islessgreater", "isfinite", "isinf", "isnan", "isnormal",
  "isordered", "isunordered", "signbit"};

static const char float_body[] =
  "kernel void KNAME(global T *a, global T *b, global T *c, global T *ov,\n"
  "                  global RT *o) {\n"
  "  size_t i = get_global_id(0), n = get_global_size(0);\n"
  "  T x = a[i], y = b[i], z = c[i];\n"
  "  o[0 * n + i] = isequal(x, y);\n"
  "  o[1 * n + i] = isnotequal(x, y);\n"
  "  o[2 * n + i] = isgreater(x, y);\n"
  "  o[3 * n + i] = isgreaterequal(x, y);\n"
  "  o[4 * n + i] = isless(x, y);\n"
  "  o[5 * n + i] = islessequal(x, y);\n"
  "  o[6 * n + i] = islessgreater(x, y);\n"
  "  o[7 * n + i] = isfinite(x);\n"
  "  o[8 * n + i] = isinf(x);\n"
  "  o[9 * n + i] = isnan(x);\n"
  "  o[10 * n + i] = isnormal(x);\n"
  "  o[11 * n + i] = isordered(x, y);\n"
  "  o[12 * n + i] = isunordered(x, y);\n"
  "  o[13 * n + i] = signbit(x);\n"
  "  ov[0 * n + i] = bitselect(x, y, z);\n"
  "  ov[1 * n + i] = select(x, y, __builtin_astype(z, IT));\n"
  "  ov[2 * n + i] = select(x, y, __builtin_astype(z, UT));\n"
  "}\n";

/* The relation f on x and y, as 0 or 1. */
static int ref_rel(int f, double x, double y, int is_double) {
  double ax = fabs(x);
  double min = is_double ? DBL_MIN : FLT_MIN;
  switch (f) {
  case 0: return x == y;
  case 1: return x != y;
  case 2: return x > y;
  case 3: return x >= y;
  case 4: return x < y;
  case 5: return x <= y;
  case 6: return x < y || x > y;
  case 7: return isfinite(x) != 0;
  case 8: return isinf(x) != 0;
  case 9: return isnan(x) != 0;
  case 10: return ax >= min && ax < INFINITY;
  case 11: return !isnan(x) && !isnan(y);
  case 12: return isnan(x) || isnan(y);
  default: return signbit(x) != 0;
  }
}

static uint64_t fbits(const void *p, size_t i, int is_double) {
  if (is_double)
    return ((const uint64_t *)p)[i];
  return ((const uint32_t *)p)[i];
}
static double fval(const void *p, size_t i, int is_double) {
  return is_double ? ((const double *)p)[i] : ((const float *)p)[i];
}

/* Edge values in every pair, then random bit patterns (any class). */
static void fill_float(int is_double, void *a, void *b, void *c) {
  const double edge[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN,
                         -NAN, FLT_MIN, FLT_MIN / 2, -FLT_MAX, DBL_MIN,
                         DBL_MIN / 4, 2.5};
  const size_t ne = sizeof edge / sizeof edge[0];
  for (size_t i = 0; i < COUNT; i++) {
    uint64_t r[3] = {rand64(), rand64(), rand64()};
    for (int k = 0; k < 3; k++) {
      void *buf = k == 0 ? a : k == 1 ? b : c;
      double v = k == 0 ? edge[i % ne] : edge[(i / ne) % ne];
      int use_edge = k < 2 && i < ne * ne;
      if (is_double) {
        double d = use_edge ? v : 0;
        uint64_t bits;
        memcpy(&bits, &d, 8);
        ((uint64_t *)buf)[i] = use_edge ? bits : r[k];
      } else {
        float f = (float)v;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        ((uint32_t *)buf)[i] = use_edge ? bits : (uint32_t)r[k];
      }
    }
  }
}

static void test_float_type(int is_double) {
  const char *tn = is_double ? "double" : "float";
  const size_t esz = is_double ? 8 : 4, size = COUNT * esz;
  void *a = malloc(size), *b = malloc(size), *c = malloc(size);
  void *ov = malloc(3 * size), *o = malloc(NREL * size);
  fill_float(is_double, a, b, c);
  char src[65536];
  size_t len = 0;
  for (size_t w = 0; w < 6; w++) {
    int n = widths[w];
    char sfx[12] = "";
    if (n > 1)
      snprintf(sfx, sizeof sfx, "%d", n);
    const char *it = is_double ? "long" : "int";
    len += (size_t)snprintf(
        src + len, sizeof src - len,
        "#undef T\n#undef RT\n#undef IT\n#undef UT\n#undef KNAME\n"
        "#define T %s%s\n#define RT %s%s\n#define IT %s%s\n"
        "#define UT u%s%s\n#define KNAME k%d\n%s",
        tn, sfx, n > 1 ? it : "int", sfx, it, sfx, it, sfx, n, float_body);
  }
  len = shuffle_source(&all_types[is_double ? 9 : 8], src, sizeof src, len);
  cl_program prog = test_build(&env, src, "-cl-std=CL3.0");
  test_shuffle(&all_types[is_double ? 9 : 8], prog);
  cl_mem m[] = {test_buffer(&env, size, a), test_buffer(&env, size, b),
                test_buffer(&env, size, c), test_buffer(&env, 3 * size, NULL),
                test_buffer(&env, NREL * size, NULL)};
  for (size_t w = 0; w < 6; w++) {
    int n = widths[w];
    size_t stride = n == 3 ? 4 : (size_t)n, nvec = COUNT / stride;
    char name[8];
    snprintf(name, sizeof name, "k%d", n);
    run(prog, name, nvec, m, 5, o, NREL * size);
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, m[3], CL_TRUE, 0, 3 * size,
                                   ov, 0, NULL, NULL));
    /* Scalar results are int even for double. */
    size_t rsz = n == 1 ? 4 : esz;
    int bad = 0;
    for (size_t e = 0; e < COUNT; e++) {
      if (e % stride >= (size_t)n)
        continue;
      double x = fval(a, e, is_double), y = fval(b, e, is_double);
      for (int f = 0; f < NREL; f++) {
        int64_t got = rsz == 4 ? ((int32_t *)o)[(size_t)f * COUNT + e]
                               : ((int64_t *)o)[(size_t)f * COUNT + e];
        int64_t want = ref_rel(f, x, y, is_double) ? (n == 1 ? 1 : -1) : 0;
        if (got != want && bad++ < 5)
          fprintf(stderr, "%s%d %s(%g, %g): got %lld, want %lld\n", tn, n,
                  rel_names[f], x, y, (long long)got, (long long)want);
      }
      uint64_t ux = fbits(a, e, is_double), uy = fbits(b, e, is_double);
      uint64_t uz = fbits(c, e, is_double);
      int msb = (int)(uz >> (esz * 8 - 1));
      uint64_t want[3] = {(ux & ~uz) | (uy & uz),
                          (n == 1 ? uz != 0 : msb) ? uy : ux,
                          (n == 1 ? uz != 0 : msb) ? uy : ux};
      for (int f = 0; f < 3; f++) {
        uint64_t got = fbits(ov, (size_t)f * COUNT + e, is_double);
        if (got != want[f] && bad++ < 5)
          fprintf(stderr, "%s%d %s: element %zu: got %llx, want %llx\n", tn,
                  n, f ? "select" : "bitselect", e, (unsigned long long)got,
                  (unsigned long long)want[f]);
      }
    }
    CHECK_EQ(bad, 0);
  }
  for (int i = 0; i < 5; i++)
    REQUIRE_OK(clReleaseMemObject(m[i]));
  REQUIRE_OK(clReleaseProgram(prog));
  free(a);
  free(b);
  free(c);
  free(ov);
  free(o);
}

/* ------------------------------------------------------------------ */
/* Integer any, all, bitselect, select. */

static const char int_body[] =
  "kernel void KNAME(global T *a, global T *b, global T *c, global int *oa,\n"
  "                  global T *ov) {\n"
  "  size_t i = get_global_id(0), n = get_global_size(0);\n"
  "  T x = a[i], y = b[i], z = c[i];\n"
  "#ifdef SIGNED\n"
  "  oa[2 * i] = any(x);\n"
  "  oa[2 * i + 1] = all(x);\n"
  "#endif\n"
  "  ov[0 * n + i] = bitselect(x, y, z);\n"
  "  ov[1 * n + i] = select(x, y, __builtin_astype(z, ST));\n"
  "  ov[2 * n + i] = select(x, y, __builtin_astype(z, UT));\n"
  "}\n";

/* Random bytes, with whole vectors of 0 and -1 mixed in (where any and
 * all are decided by every element's sign bit). */
static void fill_int(void *p, int size) {
  fill_random(p, COUNT * (size_t)size);
  for (size_t v = 0; v < COUNT / 16; v += 3)
    memset((uint8_t *)p + v * 16 * (size_t)size, v % 2 ? 0xff : 0,
           16 * (size_t)size);
  for (size_t v = 1; v < COUNT / 16; v += 5) /* only sign bits vary */
    for (size_t j = 0; j < 16; j++)
      ((uint8_t *)p)[(v * 16 + j) * (size_t)size + (size_t)size - 1] &= 0x80;
}

static void test_int_type(const etype *t) {
  const size_t size = COUNT * (size_t)t->size;
  void *a = malloc(size), *b = malloc(size), *c = malloc(size);
  void *ov = malloc(3 * size);
  int *oa = malloc(2 * COUNT * sizeof(int));
  fill_int(a, t->size);
  fill_int(b, t->size);
  fill_int(c, t->size);
  char src[65536];
  size_t len = 0;
  for (size_t w = 0; w < 6; w++) {
    int n = widths[w];
    char sfx[12] = "";
    if (n > 1)
      snprintf(sfx, sizeof sfx, "%d", n);
    len += (size_t)snprintf(
        src + len, sizeof src - len,
        "#undef T\n#undef ST\n#undef UT\n#undef KNAME\n#define T %s%s\n"
        "#define ST %s%s\n#define UT %s%s\n#define KNAME k%d\n%s",
        t->name, sfx, t->sname, sfx, t->uname, sfx, n, int_body);
  }
  len = shuffle_source(t, src, sizeof src, len);
  cl_program prog = test_build(&env, src,
                               t->is_signed_int ? "-cl-std=CL3.0 -DSIGNED"
                                                : "-cl-std=CL3.0");
  test_shuffle(t, prog);
  cl_mem m[] = {test_buffer(&env, size, a), test_buffer(&env, size, b),
                test_buffer(&env, size, c),
                test_buffer(&env, 2 * COUNT * sizeof(int), NULL),
                test_buffer(&env, 3 * size, NULL)};
  const uint64_t top = (uint64_t)1 << (t->size * 8 - 1);
  for (size_t w = 0; w < 6; w++) {
    int n = widths[w];
    size_t stride = n == 3 ? 4 : (size_t)n, nvec = COUNT / stride;
    char name[8];
    snprintf(name, sizeof name, "k%d", n);
    run(prog, name, nvec, m, 5, ov, 3 * size);
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, m[3], CL_TRUE, 0,
                                   2 * COUNT * sizeof(int), oa, 0, NULL,
                                   NULL));
    int bad = 0;
    for (size_t v = 0; v < nvec; v++) {
      int any = 0, all = 1;
      for (int j = 0; j < n; j++) {
        size_t e = v * stride + (size_t)j;
        uint64_t x = ebits(a, e, t->size), y = ebits(b, e, t->size);
        uint64_t z = ebits(c, e, t->size);
        any |= (x & top) != 0;
        all &= (x & top) != 0;
        int pick = n == 1 ? z != 0 : (z & top) != 0;
        uint64_t want[3] = {(x & ~z) | (y & z), pick ? y : x, pick ? y : x};
        for (int f = 0; f < 3; f++)
          if (ebits(ov, (size_t)f * COUNT + e, t->size) != want[f] &&
              bad++ < 5)
            fprintf(stderr, "%s%d %s: element %zu wrong\n", t->name, n,
                    f ? "select" : "bitselect", e);
      }
      if (t->is_signed_int && (oa[2 * v] != any || oa[2 * v + 1] != all) &&
          bad++ < 5)
        fprintf(stderr, "%s%d any/all: vector %zu: got %d/%d, want %d/%d\n",
                t->name, n, v, oa[2 * v], oa[2 * v + 1], any, all);
    }
    CHECK_EQ(bad, 0);
  }
  for (int i = 0; i < 5; i++)
    REQUIRE_OK(clReleaseMemObject(m[i]));
  REQUIRE_OK(clReleaseProgram(prog));
  free(a);
  free(b);
  free(c);
  free(ov);
  free(oa);
}

int main(void) {
  srand(9);
  test_setup(&env);
  test_float_type(0);
  test_float_type(1);
  for (size_t i = 0; i < sizeof int_types / sizeof int_types[0]; i++)
    test_int_type(&int_types[i]);
  test_teardown(&env);
  return test_finish("builtins-relational");
}
