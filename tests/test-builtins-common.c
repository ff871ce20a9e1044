/* This file tests the common builtins (OpenCL C 3.0 section 6.15.4, float
 * and double, scalar and vectors of 2, 3, 4, 8, 16, with the scalar-operand
 * forms) and the geometric builtins (section 6.15.5, 1 to 4 elements): a
 * kernel applies each function to random and edge-case operands, and the
 * host compares with a long double reference within the error bounds of
 * the specification's ULP tables (section 7.5). */
#include "test_util.h"
#include <float.h>
#include <math.h>
#include <stdint.h>

static test_env env;

enum { COUNT = 2048 };
static const int widths[] = {1, 2, 3, 4, 8, 16};

typedef struct ftype {
  const char *name;
  int is_double;
  int mant;          /* significand bits, with the implicit one */
  int min_exp;       /* exponent of the smallest subnormal */
  long double max;   /* largest finite value */
  long double eps;
} ftype;

static const ftype types[] = {
  {"float", 0, 24, -149, FLT_MAX, FLT_EPSILON},
  {"double", 1, 53, -1074, DBL_MAX, DBL_EPSILON},
};

static long double get(const void *buf, size_t i, const ftype *t) {
  return t->is_double ? ((const double *)buf)[i] : ((const float *)buf)[i];
}
static void put(void *buf, size_t i, long double v, const ftype *t) {
  if (t->is_double)
    ((double *)buf)[i] = (double)v;
  else
    ((float *)buf)[i] = (float)v;
}

/* The value of v rounded to t. */
static long double round_to(long double v, const ftype *t) {
  return t->is_double ? (long double)(double)v : (long double)(float)v;
}

/* The size of one unit in the last place of t at v. */
static long double ulp(long double v, const ftype *t) {
  int e;
  frexpl(v, &e);
  int k = e - t->mant;
  return ldexpl(1.0L, k < t->min_exp ? t->min_exp : k);
}

/* Whether got is within tol ulp of the exact ref: an infinite got passes
 * where ref rounds to that infinity; NaN only matches NaN. */
static int within_ulp(long double got, long double ref, double tol,
                      const ftype *t) {
  if (isnan(ref) || isnan(got))
    return isnan(ref) && isnan(got);
  if (isinf(got) || isinf(ref))
    return isinf(round_to(ref, t)) && got == round_to(ref, t);
  return fabsl(got - ref) <= tol * ulp(ref, t);
}

/* Same value, or both NaN. */
static int same(long double got, long double want) {
  return got == want || (isnan(got) && isnan(want));
}

static uint64_t rand64(void) {
  uint64_t r = 0;
  for (int k = 0; k < 4; k++)
    r = (r << 16) ^ (uint64_t)(rand() & 0xffff);
  return r;
}
static long double urand(void) { return (long double)rand64() / 0x1p64L; }

/* A random value of t: mostly moderate magnitudes, sometimes any exponent
 * of the type (subnormals included). */
static long double random_value(const ftype *t, int wide_range) {
  int lo = wide_range ? t->min_exp + t->mant - 1 : -20;
  int hi = wide_range ? (t->is_double ? 1023 : 127) : 20;
  int e = lo + (int)(rand64() % (uint64_t)(hi - lo + 1));
  long double v = ldexpl(0.5L + urand() / 2, e);
  return round_to(rand() & 1 ? -v : v, t);
}

/* ------------------------------------------------------------------ */
/* Common functions. */

enum {
  C_CLAMP, C_DEGREES, C_RADIANS, C_MAX, C_MIN, C_MIX, C_STEP, C_SMOOTHSTEP,
  C_SIGN, C_CLAMP_S, C_MAX_S, C_MIN_S, C_MIX_S, C_STEP_S, C_SMOOTHSTEP_S,
  NCOMMON
};
static const char *const common_names[NCOMMON] = {
  "clamp", "degrees", "radians", "max", "min", "mix", "step", "smoothstep",
  "sign", "clamp(v, s, s)", "max(v, s)", "min(v, s)", "mix(v, v, s)",
  "step(s, v)", "smoothstep(s, s, v)"};

static const char common_body[] =
  "kernel void KNAME(global T *a, global T *b, global T *c, global T *u,\n"
  "                  global T *o) {\n"
  "  size_t i = get_global_id(0), n = get_global_size(0);\n"
  "  T x = a[i], y = b[i], z = c[i], w = u[i];\n"
  "  T lo = min(y, z), hi = max(y, z);\n"
  "  o[0 * n + i] = clamp(x, lo, hi);\n"
  "  o[1 * n + i] = degrees(x);\n"
  "  o[2 * n + i] = radians(x);\n"
  "  o[3 * n + i] = max(x, y);\n"
  "  o[4 * n + i] = min(x, y);\n"
  "  o[5 * n + i] = mix(x, y, w);\n"
  "  o[6 * n + i] = step(y, x);\n"
  "  o[7 * n + i] = smoothstep(lo, hi, x);\n"
  "  o[8 * n + i] = sign(x);\n"
  "  o[9 * n + i] = clamp(x, FIRST(lo), FIRST(hi));\n"
  "  o[10 * n + i] = max(x, FIRST(y));\n"
  "  o[11 * n + i] = min(x, FIRST(y));\n"
  "  o[12 * n + i] = mix(x, y, FIRST(w));\n"
  "  o[13 * n + i] = step(FIRST(y), x);\n"
  "  o[14 * n + i] = smoothstep(FIRST(lo), FIRST(hi), x);\n"
  "}\n";

/* Edge values first (every pair), then random ones; u is in [0, 1]. */
static void fill_common(const ftype *t, void *a, void *b, void *c, void *u) {
  const long double edge[] = {0.0L, -0.0L, 1.0L, -1.0L, INFINITY, -INFINITY,
                              NAN, t->max, -t->max, ldexpl(1, t->min_exp),
                              -ldexpl(1, t->min_exp),
                              ldexpl(1, t->min_exp + t->mant - 1), 0.5L};
  const size_t ne = sizeof edge / sizeof edge[0];
  for (size_t i = 0; i < COUNT; i++) {
    long double x = random_value(t, i % 5 == 0);
    long double y = random_value(t, i % 7 == 0);
    long double z = random_value(t, i % 3 == 0);
    if (i < ne * ne) {
      x = edge[i % ne];
      y = edge[i / ne];
    }
    put(a, i, x, t);
    put(b, i, y, t);
    put(c, i, z, t);
    put(u, i, i % 16 == 0 ? (i / 16) % 2 : urand(), t);
  }
}

static long double lmin(long double x, long double y) { return y < x ? y : x; }
static long double lmax(long double x, long double y) { return x < y ? y : x; }

/* smoothstep's exact value, or NaN where the check is skipped: edges must
 * be ordered and finite, with a finite difference in t. */
static long double ref_smoothstep(long double e0, long double e1,
                                  long double x, const ftype *t) {
  if (!(e0 < e1) || !isfinite(x) || !isfinite(e0) || !isfinite(e1) ||
      isinf(round_to(e1 - e0, t)) || isinf(round_to(x - e0, t)))
    return NAN;
  long double s = (x - e0) / (e1 - e0);
  s = s < 0 ? 0 : s > 1 ? 1 : s;
  return s * s * (3 - 2 * s);
}

/* Checks function f at element e (e0 the first of its vector). */
static int check_common(int f, const void *a, const void *b, const void *c,
                        const void *u, long double got, size_t e, size_t e0,
                        const ftype *t) {
  long double x = get(a, e, t), y = get(b, e, t), z = get(c, e, t);
  long double w = get(u, e, t);
  /* The scalar forms take lo, hi, y (min, max, step) or w (mix) from the
   * vector's first element. */
  long double lo = lmin(y, z), hi = lmax(y, z);
  if (f >= C_CLAMP_S) {
    long double y0 = get(b, e0, t), z0 = get(c, e0, t);
    lo = lmin(y0, z0);
    hi = lmax(y0, z0);
    w = get(u, e0, t);
    if (f != C_MIX_S)
      y = y0;
  }
  const long double pi = 3.141592653589793238462643383279502884L;
  double mix_tol = t->is_double ? 1e-9 : 1e-3;
  double ss_tol = t->is_double ? 1e-12 : 1e-5;
  switch (f) {
  case C_CLAMP: case C_CLAMP_S:
    if (isnan(y) || isnan(z))
      return 1; /* undefined: minval > maxval */
    /* fmin(fmax(x, lo), hi): a NaN x gives lo. */
    return same(got, isnan(x) ? lo : lmin(lmax(x, lo), hi));
  case C_DEGREES: return within_ulp(got, x * (180 / pi), 2, t);
  case C_RADIANS: return within_ulp(got, x * (pi / 180), 2, t);
  case C_MAX: case C_MAX_S:
    return !isfinite(x) || !isfinite(y) || same(got, x < y ? y : x);
  case C_MIN: case C_MIN_S:
    return !isfinite(x) || !isfinite(y) || same(got, y < x ? y : x);
  case C_MIX: case C_MIX_S:
    /* The absolute bound is meaningful for moderate operands only. */
    if (!(fabsl(x) <= 100 && fabsl(y) <= 100))
      return 1;
    return fabsl(got - (x + (y - x) * w)) <= mix_tol;
  case C_STEP: case C_STEP_S: return same(got, x < y ? 0 : 1);
  case C_SMOOTHSTEP: case C_SMOOTHSTEP_S: {
    long double r = ref_smoothstep(lo, hi, x, t);
    return isnan(r) || fabsl(got - r) <= ss_tol;
  }
  case C_SIGN:
    if (isnan(x))
      return got == 0 && !signbit(got);
    if (x == 0)
      return got == 0 && signbit(got) == signbit(x);
    return got == (x > 0 ? 1 : -1);
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Geometric functions. */

enum { G_DOT, G_LENGTH, G_DISTANCE, G_FAST_LENGTH, G_FAST_DISTANCE, NGS };
enum { G_NORMALIZE, G_FAST_NORMALIZE, G_CROSS, NGV };
static const char *const gs_names[NGS] = {"dot", "length", "distance",
                                          "fast_length", "fast_distance"};
static const char *const gv_names[NGV] = {"normalize", "fast_normalize",
                                          "cross"};

static const char geometric_body[] =
  "kernel void KNAME(global T *a, global T *b, global S *os, global T *ov) {\n"
  "  size_t i = get_global_id(0), n = get_global_size(0);\n"
  "  T x = a[i], y = b[i];\n"
  "  os[0 * n + i] = dot(x, y);\n"
  "  os[1 * n + i] = length(x);\n"
  "  os[2 * n + i] = distance(x, y);\n"
  "#ifdef IS_FLOAT\n"
  "  os[3 * n + i] = fast_length(x);\n"
  "  os[4 * n + i] = fast_distance(x, y);\n"
  "  ov[1 * n + i] = fast_normalize(x);\n"
  "#endif\n"
  "  ov[0 * n + i] = normalize(x);\n"
  "#if N == 3 || N == 4\n"
  "  ov[2 * n + i] = cross(x, y);\n"
  "#endif\n"
  "}\n";

/* Vector classes by index: moderate, huge (squares overflow), tiny
 * (squares underflow, subnormals), mixed exponents, and special vectors
 * (signed zeros, an infinity, a NaN). */
static void fill_geometric(const ftype *t, int n, void *a, void *b) {
  const size_t stride = n == 3 ? 4 : (size_t)n;
  int emax = t->is_double ? 1023 : 127;
  int emin = t->min_exp + t->mant - 1; /* smallest normal exponent - 1 */
  for (size_t v = 0; v < COUNT / stride; v++) {
    for (int pass = 0; pass < 2; pass++) {
      void *buf = pass ? b : a;
      int cls = (int)((v + (size_t)pass * 3) % 8);
      for (int j = 0; j < n; j++) {
        long double x = random_value(t, 0);
        if (cls == 4)
          x = ldexpl(x, emax - 24);
        else if (cls == 5)
          x = round_to(ldexpl(x, emin - 10 + (int)(rand64() % 30)), t);
        else if (cls == 6)
          x = random_value(t, 1);
        else if (cls == 7) {
          int k = (int)((v / 8) % 4);
          x = rand() & 1 ? 0.0L : -0.0L;
          if (k == 1 && j == (int)(v % (size_t)n))
            x = rand() & 1 ? INFINITY : -INFINITY;
          else if (k == 2 && j == (int)(v % (size_t)n))
            x = NAN;
          else if (k == 3)
            x = random_value(t, 0);
        }
        put(buf, v * stride + (size_t)j, x, t);
      }
    }
  }
}

/* Reads vector v of p (n elements) into x; returns the largest magnitude,
 * sets *special to 1 if an element is infinite and 2 if NaN. */
static long double load_vec(const void *p, size_t v, int n, const ftype *t,
                            long double *x, int *special) {
  const size_t stride = n == 3 ? 4 : (size_t)n;
  long double m = 0;
  *special = 0;
  for (int j = 0; j < n; j++) {
    x[j] = get(p, v * stride + (size_t)j, t);
    if (isnan(x[j]))
      *special |= 2;
    else if (isinf(x[j]))
      *special |= 1;
    else if (fabsl(x[j]) > m)
      m = fabsl(x[j]);
  }
  return m;
}

static long double norm(const long double *x, int n) {
  long double s = 0;
  for (int j = 0; j < n; j++)
    s += x[j] * x[j];
  return sqrtl(s);
}

/* length's reference: INF beats NaN, as for hypot. */
static long double ref_length(const long double *x, int n, int special) {
  return special & 1 ? INFINITY : special & 2 ? NAN : norm(x, n);
}

/* Checks the scalar results of vector v; returns the mismatch count. */
static int check_geometric_scalars(const ftype *t, int n, size_t v,
                                   const void *a, const void *b,
                                   const void *os, size_t nvec) {
  long double x[4], y[4], d[4];
  int sx, sy;
  long double mx = load_vec(a, v, n, t, x, &sx);
  long double my = load_vec(b, v, n, t, y, &sy);
  for (int j = 0; j < n; j++)
    d[j] = x[j] - y[j];
  int sd = sx | sy;
  if (!sd)
    for (int j = 0; j < n; j++)
      sd |= isinf(round_to(d[j], t)) ? 1 : 0;
  long double dot = 0, sum_x = 0, sum_d = 0;
  for (int j = 0; j < n; j++) {
    dot += x[j] * y[j];
    sum_x += x[j] * x[j];
    sum_d += d[j] * d[j];
  }
  long double m = mx > my ? mx : my;
  int bad = 0;
  for (int f = 0; f < NGS; f++) {
    if (f >= G_FAST_LENGTH && t->is_double)
      continue;
    long double got = get(os, (size_t)f * nvec + v, t);
    int ok = 1;
    switch (f) {
    case G_DOT:
      ok = sx || sy || fabsl(dot) > t->max ||
           fabsl(got - dot) <= m * m * (2 * n - 1) * t->eps;
      break;
    case G_LENGTH:
      ok = within_ulp(got, ref_length(x, n, sx),
                      t->is_double ? 5.5 + n : 2.75 + 0.5 * n, t);
      break;
    case G_DISTANCE:
      ok = (sd & 1 && !(sx | sy)) /* overflowing difference: any INF */
               ? isinf(got)
               : within_ulp(got, ref_length(d, n, sx | sy),
                            t->is_double ? 5.5 + 2 * n : 2.5 + 2 * n, t);
      break;
    case G_FAST_LENGTH: /* defined for sums of squares in range only */
      ok = sx || !(sum_x >= FLT_MIN && sum_x <= FLT_MAX) ||
           within_ulp(got, sqrtl(sum_x), 8191.5 + n, t);
      break;
    case G_FAST_DISTANCE:
      ok = sd || !(sum_d >= FLT_MIN && sum_d <= FLT_MAX) ||
           within_ulp(got, sqrtl(sum_d), 8191.5 + 2 * n, t);
      break;
    }
    if (!ok && bad++ < 3)
      fprintf(stderr, "%s%d %s: vector %zu: got %Lg\n", t->name, n,
              gs_names[f], v, got);
  }
  return bad;
}

/* normalize's reference for x (modified in place), per section 7.5.1:
 * NaN anywhere gives all NaN, infinities become +-1 and the rest +-0, a
 * zero vector is returned as is. Returns 0 for the zero vector. */
static int ref_normalize(long double *x, int n, int special) {
  if (special & 2) {
    for (int j = 0; j < n; j++)
      x[j] = NAN;
    return 1;
  }
  if (special & 1)
    for (int j = 0; j < n; j++)
      x[j] = isinf(x[j]) ? copysignl(1, x[j]) : 0.0L * x[j];
  long double l = norm(x, n);
  if (l == 0)
    return 0;
  for (int j = 0; j < n; j++)
    x[j] /= l;
  return 1;
}

/* Checks the vector results of vector v; returns the mismatch count. */
static int check_geometric_vectors(const ftype *t, int n, size_t v,
                                   const void *a, const void *b,
                                   const void *ov, size_t nvec) {
  const size_t stride = n == 3 ? 4 : (size_t)n;
  long double x[4], y[4], r[4];
  int sx, sy;
  long double mx = load_vec(a, v, n, t, x, &sx);
  long double my = load_vec(b, v, n, t, y, &sy);
  long double m = mx > my ? mx : my;
  int bad = 0;
  for (int f = 0; f < NGV; f++) {
    if ((f == G_FAST_NORMALIZE && t->is_double) ||
        (f == G_CROSS && n != 3 && n != 4))
      continue;
    const char *o = (const char *)ov + (size_t)f * nvec * stride *
                                           (t->is_double ? 8 : 4);
    long double got[4];
    for (int j = 0; j < n; j++)
      got[j] = get(o, v * stride + (size_t)j, t);
    int ok = 1;
    memcpy(r, x, sizeof r);
    if (f == G_NORMALIZE) {
      int nonzero = ref_normalize(r, n, sx);
      for (int j = 0; j < n; j++)
        ok &= nonzero ? within_ulp(got[j], r[j],
                                   t->is_double ? 4.5 + n : 2 + n, t)
                      : got[j] == x[j] && signbit(got[j]) == signbit(x[j]);
    } else if (f == G_FAST_NORMALIZE) {
      long double s = 0;
      for (int j = 0; j < n; j++)
        s += x[j] * x[j];
      if (sx || !(s >= FLT_MIN && s <= FLT_MAX))
        continue; /* undefined, or p may be returned */
      ref_normalize(r, n, 0);
      for (int j = 0; j < n; j++)
        ok &= within_ulp(got[j], r[j], 8192 + n, t);
    } else {
      if (sx || sy)
        continue;
      long double c[4] = {x[1] * y[2] - x[2] * y[1],
                          x[2] * y[0] - x[0] * y[2],
                          x[0] * y[1] - x[1] * y[0], 0};
      long double tol = m * m * 3 * t->eps;
      for (int j = 0; j < n; j++)
        ok &= isinf(round_to(c[j], t)) || fabsl(got[j] - c[j]) <= tol;
      if (n == 4)
        ok &= got[3] == 0;
    }
    if (!ok && bad++ < 3)
      fprintf(stderr, "%s%d %s: vector %zu: got (%Lg, %Lg, ...) for "
              "(%Lg, %Lg, ...)\n", t->name, n, gv_names[f], v, got[0],
              n > 1 ? got[1] : 0.0L, x[0], n > 1 ? x[1] : 0.0L);
  }
  return bad;
}

/* ------------------------------------------------------------------ */


static void read_buffer(cl_mem m, size_t size, void *out) {
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, size, out, 0,
                                 NULL, NULL));
}

/* The program for t: kernels c<n> (common) and g<n> (geometric). */
static char *make_source(const ftype *t) {
  size_t cap = 64 * 1024, len = 0;
  char *src = malloc(cap);
  len += (size_t)snprintf(src, cap, "%s",
                          t->is_double ? "" : "#define IS_FLOAT\n");
  for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
    int n = widths[w];
    char sfx[12] = "";
    if (n > 1)
      snprintf(sfx, sizeof sfx, "%d", n);
    len += (size_t)snprintf(
        src + len, cap - len,
        "#undef T\n#undef S\n#undef N\n#undef FIRST\n#undef KNAME\n"
        "#define T %s%s\n#define S %s\n#define N %d\n#define FIRST(x) %s\n"
        "#define KNAME c%d\n%s", t->name, sfx, t->name, n,
        n > 1 ? "((x).s0)" : "(x)", n, common_body);
    if (n <= 4)
      len += (size_t)snprintf(src + len, cap - len,
                              "#undef KNAME\n#define KNAME g%d\n%s", n,
                              geometric_body);
  }
  return src;
}

static void test_common(const ftype *t, cl_program prog, int n) {
  const size_t esz = t->is_double ? 8 : 4, size = COUNT * esz;
  const size_t stride = n == 3 ? 4 : (size_t)n;
  void *a = malloc(size), *b = malloc(size), *c = malloc(size);
  void *u = malloc(size), *out = malloc(size * NCOMMON);
  fill_common(t, a, b, c, u);
  cl_mem m[] = {test_buffer(&env, size, a), test_buffer(&env, size, b),
                test_buffer(&env, size, c), test_buffer(&env, size, u),
                test_buffer(&env, size * NCOMMON, NULL)};
  char name[8];
  snprintf(name, sizeof name, "c%d", n);
  test_run_1d(&env, prog, name, COUNT / stride, m, 5);
  read_buffer(m[4], size * NCOMMON, out);
  int bad = 0;
  for (int f = 0; f < NCOMMON; f++) {
    int shown = 0;
    for (size_t e = 0; e < COUNT; e++) {
      if (e % stride >= (size_t)n)
        continue;
      long double got = get(out, (size_t)f * COUNT + e, t);
      if (!check_common(f, a, b, c, u, got, e, e - e % stride, t) &&
          bad++ >= 0 && shown++ < 3)
        fprintf(stderr, "%s%d %s: element %zu: x=%La y=%La z=%La: got "
                "%La\n", t->name, n, common_names[f], e, get(a, e, t),
                get(b, e, t), get(c, e, t), got);
    }
  }
  CHECK_EQ(bad, 0);
  for (int i = 0; i < 5; i++)
    REQUIRE_OK(clReleaseMemObject(m[i]));
  free(a);
  free(b);
  free(c);
  free(u);
  free(out);
}

static void test_geometric(const ftype *t, cl_program prog, int n) {
  const size_t esz = t->is_double ? 8 : 4, size = COUNT * esz;
  const size_t stride = n == 3 ? 4 : (size_t)n, nvec = COUNT / stride;
  void *a = malloc(size), *b = malloc(size);
  void *os = malloc(nvec * esz * NGS), *ov = malloc(size * NGV);
  fill_geometric(t, n, a, b);
  cl_mem m[] = {test_buffer(&env, size, a), test_buffer(&env, size, b),
                test_buffer(&env, nvec * esz * NGS, NULL),
                test_buffer(&env, size * NGV, NULL)};
  char name[16];
  snprintf(name, sizeof name, "g%d", n);
  test_run_1d(&env, prog, name, nvec, m, 4);
  read_buffer(m[2], nvec * esz * NGS, os);
  read_buffer(m[3], size * NGV, ov);
  int bad = 0;
  for (size_t v = 0; v < nvec; v++) {
    bad += check_geometric_scalars(t, n, v, a, b, os, nvec);
    bad += check_geometric_vectors(t, n, v, a, b, ov, nvec);
  }
  CHECK_EQ(bad, 0);
  for (int i = 0; i < 4; i++)
    REQUIRE_OK(clReleaseMemObject(m[i]));
  free(a);
  free(b);
  free(os);
  free(ov);
}

int main(void) {
  srand(6);
  test_setup(&env);
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    char *src = make_source(&types[i]);
    cl_program prog = test_build(&env, src, "-cl-std=CL3.0");
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
      test_common(&types[i], prog, widths[w]);
      if (widths[w] <= 4)
        test_geometric(&types[i], prog, widths[w]);
    }
    REQUIRE_OK(clReleaseProgram(prog));
    free(src);
  }
  test_teardown(&env);
  return test_finish("builtins-common");
}
