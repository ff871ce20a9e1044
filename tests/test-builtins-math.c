/* This file contains the test of the math builtins (OpenCL C 3.0 section
 * 6.15.2): every function in float and double, scalar and vector, on a
 * few thousand inputs (the spec's edge cases, then random values over
 * the whole range), compared on the host with a long double (or exact)
 * libm reference at the ULP bound of the spec's full-profile table. The
 * pointer-argument functions run in the private, global and local
 * address spaces. SKEIN_MATH_WIDTHS=all tests every vector width
 * (SKEIN_MATH_VERBOSE=1 prints each function's largest error). */
#define _GNU_SOURCE
#include "test_util.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#define N 3072            /* elements per function: a multiple of 3*1024 */
#define LOCAL 64          /* work-group size of the local-memory kernels */
#define MAX_REPORTS 4     /* failures printed per function and width */

typedef struct args {
  long double x, y, z;
  int n;
} args;

/* What a reference returns besides its value: the pointer result. */
typedef struct outs {
  long double v2;   /* fract/modf/sincos second result */
  int i2;           /* frexp/lgamma_r/remquo int result */
} outs;

typedef long double (*ref_fn)(const args *a, int dbl, outs *o);

/* Function shapes: how the kernel calls it. */
enum kind {
  K1,     /* T f(T) */
  K2,     /* T f(T, T) */
  K3,     /* T f(T, T, T) */
  KFI,    /* T f(T, intn) */
  KIF,    /* intn f(T) */
  KP,     /* T f(T, T *) */
  KPI,    /* T f(T, intn *) */
  KRQ,    /* T f(T, T, intn *) (remquo) */
};

/* Flags. */
#define EXACT 1        /* 0 ULP: bit-exact with the host's result */
#define FLOAT_ONLY 2   /* half_* and native_* */
#define LOOSE 4        /* lgamma: no bound in the spec */
#define NO_DOUBLE_CHECK 8   /* mad in double: any value allowed */
#define MAD 16         /* fma or a rounded multiply then add */
#define INT_LDEXP 32   /* n over the exponent range (else small) */

typedef struct fn {
  const char *name;
  enum kind kind;
  double ulp_f, ulp_d;
  ref_fn ref;
  unsigned flags;
} fn;

static test_env env;

/* ---- References ---- */
#define PI_L 3.141592653589793238462643383279502884L

/* x rounded to the tested type: for references that are exact. */
static long double to_t(long double x, int dbl) {
  return dbl ? (long double)(double)x : (long double)(float)x;
}

#define R1(name, expr)                                                    \
  static long double r_##name(const args *a, int dbl, outs *o) {          \
    long double x = a->x;                                                 \
    (void)dbl; (void)o; (void)x;                                          \
    return expr;                                                          \
  }
#define R2(name, expr)                                                    \
  static long double r_##name(const args *a, int dbl, outs *o) {          \
    long double x = a->x, y = a->y;                                       \
    (void)dbl; (void)o; (void)x; (void)y;                                 \
    return expr;                                                          \
  }

/* sinpi/cospi with exact argument reductions: x mod 2 into [-1, 1],
 * then next to 0 (sin(pi r) = sin(pi (±1 - r)), cos(pi r) =
 * sin(pi (0.5 - |r|))), so that the rounding of pi in long double stays
 * a relative error also near the zeros; and the spec's exact zeros. */
static long double reduce2(long double x) {
  long double r = fmodl(x, 2.0L);
  return r > 1 ? r - 2 : r < -1 ? r + 2 : r;
}
static long double sinpi_l(long double x) {
  if (isinf(x) || isnan(x))
    return NAN;
  if (x == floorl(x))
    return copysignl(0.0L, x);
  long double r = reduce2(x);
  if (fabsl(r) > 0.5L)
    r = copysignl(1.0L, r) - r;
  return sinl(PI_L * r);
}
static long double cospi_l(long double x) {
  if (isinf(x) || isnan(x))
    return NAN;
  long double r = 0.5L - fabsl(reduce2(x));
  return r == 0 ? 0.0L : sinpi_l(r);
}

static long double powr_l(long double x, long double y) {
  if (x < 0 || isnan(x) || isnan(y) || (x == 0 && y == 0) ||
      (isinf(x) && y == 0) || (x == 1 && isinf(y)))
    return NAN;
  return powl(fabsl(x), y);
}

R1(acos, acosl(x)) R1(acosh, acoshl(x)) R1(asin, asinl(x))
R1(asinh, asinhl(x)) R1(atan, atanl(x)) R1(atanh, atanhl(x))
R1(cbrt, cbrtl(x)) R1(cos, cosl(x)) R1(cosh, coshl(x))
R1(erf, erfl(x)) R1(erfc, erfcl(x)) R1(exp, expl(x)) R1(exp2, exp2l(x))
R1(exp10, exp10l(x)) R1(expm1, expm1l(x)) R1(log, logl(x))
R1(log2, log2l(x)) R1(log10, log10l(x)) R1(log1p, log1pl(x))
R1(sin, sinl(x)) R1(sinh, sinhl(x)) R1(tan, tanl(x)) R1(tanh, tanhl(x))
R1(tgamma, tgammal(x)) R1(lgamma, lgammal(x))
R1(sqrt, sqrtl(x)) R1(rsqrt, 1.0L / sqrtl(x)) R1(recip, 1.0L / x)
R1(sinpi, sinpi_l(x)) R1(cospi, cospi_l(x))
R1(acospi, acosl(x) / PI_L) R1(asinpi, asinl(x) / PI_L)
R1(atanpi, isinf(x) ? copysignl(0.5L, x) : atanl(x) / PI_L)
R2(atan2, atan2l(x, y)) R2(hypot, hypotl(x, y)) R2(pow, powl(x, y))
R2(powr, powr_l(x, y)) R2(divide, x / y)
R2(atan2pi, atan2l(x, y) / PI_L)

static long double r_tanpi(const args *a, int dbl, outs *o) {
  (void)dbl; (void)o;
  long double s = sinpi_l(a->x), c = cospi_l(a->x);
  if (c == 0)
    return s > 0 ? INFINITY : -INFINITY;
  return s / c;
}

/* Exact functions: the host's own float/double function. */
#define RX1(name, f, d)                                                   \
  static long double r_##name(const args *a, int dbl, outs *o) {          \
    (void)o;                                                              \
    return dbl ? (long double)d((double)a->x) : (long double)f((float)a->x); \
  }
#define RX2(name, f, d)                                                   \
  static long double r_##name(const args *a, int dbl, outs *o) {          \
    (void)o;                                                              \
    return dbl ? (long double)d((double)a->x, (double)a->y)               \
               : (long double)f((float)a->x, (float)a->y);                \
  }
RX1(ceil, ceilf, ceil) RX1(floor, floorf, floor) RX1(trunc, truncf, trunc)
RX1(round, roundf, round) RX1(rint, rintf, rint) RX1(fabs, fabsf, fabs)
RX2(copysign, copysignf, copysign) RX2(fmax, fmaxf, fmax)
RX2(fmin, fminf, fmin) RX2(fmod, fmodf, fmod)
RX2(remainder, remainderf, remainder) RX2(nextafter, nextafterf, nextafter)
RX2(fdim, fdimf, fdim)

static long double r_fma(const args *a, int dbl, outs *o) {
  (void)o;
  return dbl ? (long double)fma((double)a->x, (double)a->y, (double)a->z)
             : (long double)fmaf((float)a->x, (float)a->y, (float)a->z);
}
static long double r_logb(const args *a, int dbl, outs *o) {
  (void)o;
  return dbl ? (long double)logb((double)a->x)
             : (long double)logbf((float)a->x);
}
static long double r_maxmag(const args *a, int dbl, outs *o) {
  (void)dbl; (void)o;
  long double x = a->x, y = a->y;
  return fabsl(x) > fabsl(y) ? x : fabsl(y) > fabsl(x) ? y : fmaxl(x, y);
}
static long double r_minmag(const args *a, int dbl, outs *o) {
  (void)dbl; (void)o;
  long double x = a->x, y = a->y;
  return fabsl(x) < fabsl(y) ? x : fabsl(y) < fabsl(x) ? y : fminl(x, y);
}
static long double r_ldexp(const args *a, int dbl, outs *o) {
  (void)o;
  return dbl ? (long double)ldexp((double)a->x, a->n)
             : (long double)ldexpf((float)a->x, a->n);
}
static long double r_pown(const args *a, int dbl, outs *o) {
  (void)dbl; (void)o;
  return powl(a->x, (long double)a->n);
}
static long double r_rootn(const args *a, int dbl, outs *o) {
  (void)dbl; (void)o;
  long double x = a->x;
  int n = a->n;
  if (n == 0 || (x < 0 && n % 2 == 0) || isnan(x))
    return NAN;
  long double r = powl(fabsl(x), 1.0L / n);
  return n % 2 ? copysignl(r, x) : r;
}
/* ilogb with OpenCL's FP_ILOGB0 (INT_MIN) and FP_ILOGBNAN (INT_MAX). */
static long double r_ilogb(const args *a, int dbl, outs *o) {
  (void)o;
  long double x = to_t(a->x, dbl);
  if (x == 0)
    return INT_MIN;
  if (isnan(x) || isinf(x))
    return INT_MAX;
  return ilogbl(x);
}
static long double r_frexp(const args *a, int dbl, outs *o) {
  if (isinf(a->x) || isnan(a->x)) {
    o->i2 = 0;
    return a->x;
  }
  return dbl ? (long double)frexp((double)a->x, &o->i2)
             : (long double)frexpf((float)a->x, &o->i2);
}
static long double r_fract(const args *a, int dbl, outs *o) {
  long double x = a->x;
  o->v2 = floorl(x);
  if (isnan(x))
    return x;
  if (isinf(x) || x == 0)
    return copysignl(0.0L, x);
  long double below_one = dbl ? 1.0L - 0x1p-53L : 1.0L - 0x1p-24L;
  return fminl(to_t(x - o->v2, dbl), below_one);
}
static long double r_modf(const args *a, int dbl, outs *o) {
  (void)dbl;
  long double x = a->x;
  o->v2 = truncl(x);
  return copysignl(isinf(x) ? 0.0L : x - o->v2, x);
}
static long double r_sincos(const args *a, int dbl, outs *o) {
  (void)dbl;
  o->v2 = cosl(a->x);
  return sinl(a->x);
}
static long double r_lgamma_r(const args *a, int dbl, outs *o) {
  (void)dbl;
  long double x = a->x;
  if (isnan(x) || (x <= 0 && floorl(x) == x))
    o->i2 = 0;
  else
    (void)lgammal_r(x, &o->i2);
  return lgammal(x);
}
static long double r_remquo(const args *a, int dbl, outs *o) {
  if (isnan(a->x) || isnan(a->y) || isinf(a->x) || a->y == 0) {
    o->i2 = 0;
    return NAN;
  }
  long double r = dbl ? (long double)remquo((double)a->x, (double)a->y,
                                            &o->i2)
                       : (long double)remquof((float)a->x, (float)a->y,
                                              &o->i2);
  /* C promises three bits of the quotient, OpenCL seven: the low seven
   * bits of round(x / y), from exact long double fmod and remainder
   * (|x| - 128k|y| and |x| - n|y|; their difference is (n - 128k)|y|). */
  long double ax = fabsl(a->x), ay = fabsl(a->y);
  long double n = rintl((fmodl(ax, 128 * ay) - remainderl(ax, ay)) / ay);
  int low = (int)n & 127;
  o->i2 = (a->x < 0) != (a->y < 0) ? -low : low;
  return r;
}

/* ---- The functions ---- */
static const fn fns[] = {
  {"acos", K1, 4, 4, r_acos, 0},
  {"acosh", K1, 4, 4, r_acosh, 0},
  {"acospi", K1, 5, 5, r_acospi, 0},
  {"asin", K1, 4, 4, r_asin, 0},
  {"asinh", K1, 4, 4, r_asinh, 0},
  {"asinpi", K1, 5, 5, r_asinpi, 0},
  {"atan", K1, 5, 5, r_atan, 0},
  {"atan2", K2, 6, 6, r_atan2, 0},
  {"atanh", K1, 5, 5, r_atanh, 0},
  {"atanpi", K1, 5, 5, r_atanpi, 0},
  {"atan2pi", K2, 6, 6, r_atan2pi, 0},
  {"cbrt", K1, 2, 4, r_cbrt, 0},
  {"ceil", K1, 0, 0, r_ceil, EXACT},
  {"copysign", K2, 0, 0, r_copysign, EXACT},
  {"cos", K1, 4, 4, r_cos, 0},
  {"cosh", K1, 4, 4, r_cosh, 0},
  {"cospi", K1, 4, 4, r_cospi, 0},
  {"erfc", K1, 16, 16, r_erfc, 0},
  {"erf", K1, 16, 16, r_erf, 0},
  {"exp", K1, 3, 4, r_exp, 0},
  {"exp2", K1, 3, 4, r_exp2, 0},
  {"exp10", K1, 3, 4, r_exp10, 0},
  {"expm1", K1, 3, 4, r_expm1, 0},
  {"fabs", K1, 0, 0, r_fabs, EXACT},
  {"fdim", K2, 0, 0, r_fdim, EXACT},
  {"floor", K1, 0, 0, r_floor, EXACT},
  {"fma", K3, 0, 0, r_fma, EXACT},
  {"fmax", K2, 0, 0, r_fmax, EXACT},
  {"fmin", K2, 0, 0, r_fmin, EXACT},
  {"fmod", K2, 0, 0, r_fmod, EXACT},
  {"fract", KP, 0, 0, r_fract, EXACT},
  {"frexp", KPI, 0, 0, r_frexp, EXACT},
  {"hypot", K2, 4, 4, r_hypot, 0},
  {"ilogb", KIF, 0, 0, r_ilogb, EXACT},
  {"ldexp", KFI, 0, 0, r_ldexp, EXACT | INT_LDEXP},
  {"lgamma", K1, 16, 16, r_lgamma, LOOSE},
  {"lgamma_r", KPI, 16, 16, r_lgamma_r, LOOSE},
  {"log", K1, 3, 4, r_log, 0},
  {"log2", K1, 3, 4, r_log2, 0},
  {"log10", K1, 3, 4, r_log10, 0},
  {"log1p", K1, 2, 4, r_log1p, 0},
  {"logb", K1, 0, 0, r_logb, EXACT},
  {"mad", K3, 0, 0, r_fma, MAD | NO_DOUBLE_CHECK},
  {"maxmag", K2, 0, 0, r_maxmag, EXACT},
  {"minmag", K2, 0, 0, r_minmag, EXACT},
  {"modf", KP, 0, 0, r_modf, EXACT},
  {"nextafter", K2, 0, 0, r_nextafter, EXACT},
  {"pow", K2, 16, 16, r_pow, 0},
  {"pown", KFI, 16, 16, r_pown, 0},
  {"powr", K2, 16, 16, r_powr, 0},
  {"remainder", K2, 0, 0, r_remainder, EXACT},
  {"remquo", KRQ, 0, 0, r_remquo, EXACT},
  {"rint", K1, 0, 0, r_rint, EXACT},
  {"rootn", KFI, 16, 16, r_rootn, 0},
  {"round", K1, 0, 0, r_round, EXACT},
  {"rsqrt", K1, 2, 4, r_rsqrt, 0},
  {"sin", K1, 4, 4, r_sin, 0},
  {"sincos", KP, 4, 4, r_sincos, 0},
  {"sinh", K1, 4, 4, r_sinh, 0},
  {"sinpi", K1, 4, 4, r_sinpi, 0},
  {"sqrt", K1, 3, 4, r_sqrt, 0},
  {"tan", K1, 5, 5, r_tan, 0},
  {"tanh", K1, 5, 5, r_tanh, 0},
  {"tanpi", K1, 6, 6, r_tanpi, 0},
  {"tgamma", K1, 16, 16, r_tgamma, 0},
  {"trunc", K1, 0, 0, r_trunc, EXACT},
#define HALF_NATIVE(p, b)                                                   \
  {p "cos", K1, b, 0, r_cos, FLOAT_ONLY},                                   \
  {p "divide", K2, b, 0, r_divide, FLOAT_ONLY},                             \
  {p "exp", K1, b, 0, r_exp, FLOAT_ONLY},                                   \
  {p "exp2", K1, b, 0, r_exp2, FLOAT_ONLY},                                 \
  {p "exp10", K1, b, 0, r_exp10, FLOAT_ONLY},                               \
  {p "log", K1, b, 0, r_log, FLOAT_ONLY},                                   \
  {p "log2", K1, b, 0, r_log2, FLOAT_ONLY},                                 \
  {p "log10", K1, b, 0, r_log10, FLOAT_ONLY},                               \
  {p "powr", K2, b, 0, r_powr, FLOAT_ONLY},                                 \
  {p "recip", K1, b, 0, r_recip, FLOAT_ONLY},                               \
  {p "rsqrt", K1, b, 0, r_rsqrt, FLOAT_ONLY},                               \
  {p "sin", K1, b, 0, r_sin, FLOAT_ONLY},                                   \
  {p "sqrt", K1, b, 0, r_sqrt, FLOAT_ONLY},                                 \
  {p "tan", K1, b, 0, r_tan, FLOAT_ONLY}
  /* half_*: 8192 ULP; native_*: implementation-defined, Skein's are
   * half_*'s. */
  HALF_NATIVE("half_", 8192),
  HALF_NATIVE("native_", 8192),
};
#define NFNS (sizeof(fns) / sizeof(fns[0]))

/* ---- Inputs ---- */
static double rand_unit(void) {
  return (double)(test_rand() >> 11) * 0x1p-53;
}

static const double edges_f[] = {
  0.0, -0.0, INFINITY, -INFINITY, NAN, 1, -1, 0.5, -0.5, 1.5, -1.5, 2, -2,
  2.5, -2.5, 3, -3, 0.25, 0.75, -0.75, 10, -10, 0x1p-149, -0x1p-149,
  0x1p-126, 0x1.fffffcp-127, FLT_MAX, -FLT_MAX, 0x1p24, -0x1.fffffep23,
  100.5, -101.5,
};
static const double edges_d[] = {
  0.0, -0.0, INFINITY, -INFINITY, NAN, 1, -1, 0.5, -0.5, 1.5, -1.5, 2, -2,
  2.5, -2.5, 3, -3, 0.25, 0.75, -0.75, 10, -10, 0x1p-1074, -0x1p-1074,
  0x1p-1022, 0x0.fffffffffffffp-1022, DBL_MAX, -DBL_MAX, 0x1p53,
  -0x1.fffffffffffffp52, 100.5, -101.5,
};
#define NEDGE 32
static const int edges_i[] = {0, 1, -1, 2, -2, 3, -3, 4, -5, 7, -8, 127,
                              -150, 1000, INT_MAX, INT_MIN};
#define NEDGE_I 16

/* One random value of the type over its whole range (by category). */
static double rand_value(int dbl, unsigned i) {
  switch (i % 4) {
  case 0: {   /* any bit pattern: NaNs, infinities, denormals included */
    uint64_t b = test_rand();
    if (dbl) {
      double d;
      memcpy(&d, &b, 8);
      return d;
    }
    uint32_t u = (uint32_t)b;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  case 1:     /* near zero, both signs */
    return (rand_unit() * 2 - 1) * ldexp(1, -(int)(test_rand() % 30));
  case 2:     /* the usual range */
    return (rand_unit() * 2 - 1) * 100;
  default: {  /* any exponent, denormals included */
    int lo = dbl ? -1074 : -149, hi = dbl ? 1023 : 127;
    int e = lo + (int)(test_rand() % (uint64_t)(hi - lo + 1));
    return ((test_rand() & 1) ? -1 : 1) * ldexp(1 + rand_unit(), e);
  }
  }
}

/* Fills x, y, z (as the tested type) and n for one function: first the
 * edge cases (every pair for two-argument functions), then random. */
static void make_inputs(const fn *f, int dbl, double *x, double *y,
                        double *z, int *n) {
  const double *e = dbl ? edges_d : edges_f;
  bool two = f->kind == K2 || f->kind == K3 || f->kind == KRQ;
  for (unsigned i = 0; i < N; i++) {
    if (two && i < NEDGE * NEDGE) {
      x[i] = e[i / NEDGE];
      y[i] = e[i % NEDGE];
    } else if (!two && i < NEDGE) {
      x[i] = e[i];
      y[i] = rand_value(dbl, i);
    } else {
      x[i] = rand_value(dbl, i);
      y[i] = rand_value(dbl, i / 4 + 1);
    }
    z[i] = i % 8 == 0 ? e[i / 8 % NEDGE] : rand_value(dbl, i + 2);
    if (f->kind == KFI && i < NEDGE * NEDGE_I) {
      x[i] = e[i / NEDGE_I];
      n[i] = edges_i[i % NEDGE_I];
    } else if (f->flags & INT_LDEXP) {
      int span = dbl ? 2200 : 350;
      n[i] = (int)(test_rand() % (uint64_t)(2 * span + 1)) - span;
    } else {
      n[i] = (int)(test_rand() % 41) - 20;
    }
    /* tgamma below -170 (results under 2^-1000, subnormal past -178):
     * Sleef's form lost up to 1 % there. The last 256 inputs: half
     * uniform over (-190, -170), half within 2^20 ULP of a pole. */
    if (dbl && strcmp(f->name, "tgamma") == 0 && i >= N - 256) {
      double pole = -171.0 - (double)(test_rand() % 19);
      x[i] = i % 2 ? -170.0 - 20.0 * rand_unit()
                   : pole + ldexp((double)(test_rand() % (1u << 20)) + 1.0,
                                  -45) * ((test_rand() & 1) ? 1 : -1);
    }
    if (!dbl) {
      x[i] = (float)x[i];
      y[i] = (float)y[i];
      z[i] = (float)z[i];
    }
  }
}

/* ---- Kernels ---- */
enum space { AS_PRIVATE, AS_GLOBAL, AS_LOCAL };
static const char *const space_names[] = {"private", "global", "local"};

static bool has_pointer(const fn *f) {
  return f->kind == KP || f->kind == KPI || f->kind == KRQ;
}

/* Appends the kernel t_<name>_<space> for one width to src. */
static void gen_kernel(char *src, size_t cap, const fn *f, const char *s,
                       int w, enum space as) {
  char vt[16], it[16], ld[8], st[8];
  snprintf(vt, sizeof vt, w == 1 ? "%s" : "%s%d", s, w);
  snprintf(it, sizeof it, w == 1 ? "int" : "int%d", w);
  snprintf(ld, sizeof ld, w == 1 ? "LD1" : "LDV");
  snprintf(st, sizeof st, w == 1 ? "ST1" : "STV");
  const char *pt = f->kind == KP ? vt : it;
  const char *pb = f->kind == KP ? "r2" : "ri2";
  char call[256];
  const char *arg = as == AS_PRIVATE ? "&p" : as == AS_GLOBAL ? "gp" : "lp";
  switch (f->kind) {
  case K1: snprintf(call, sizeof call, "%s(x)", f->name); break;
  case K2: snprintf(call, sizeof call, "%s(x, y)", f->name); break;
  case K3: snprintf(call, sizeof call, "%s(x, y, z)", f->name); break;
  case KFI: snprintf(call, sizeof call, "%s(x, n)", f->name); break;
  case KIF: snprintf(call, sizeof call, "%s(x)", f->name); break;
  case KP: case KPI:
    snprintf(call, sizeof call, "%s(x, %s)", f->name, arg);
    break;
  case KRQ: snprintf(call, sizeof call, "%s(x, y, %s)", f->name, arg); break;
  }
  size_t len = strlen(src);
  snprintf(src + len, cap - len,
           "kernel void t_%s_%s(global const S *a, global const S *b,\n"
           "    global const S *c, global const int *ni, global S *r,\n"
           "    global int *ri, global S *r2, global int *ri2) {\n"
           "  size_t i = get_global_id(0);\n"
           "  %s x = %s(a), y = %s(b), z = %s(c); %s n = %s(ni);\n"
           "  (void)y; (void)z; (void)n;\n",
           f->name, space_names[as], vt, ld, ld, ld, it, ld);
  len = strlen(src);
  if (!has_pointer(f)) {
    snprintf(src + len, cap - len, "  %s(%s, %s);\n}\n", st, call,
             f->kind == KIF ? "ri" : "r");
    return;
  }
  if (as == AS_PRIVATE)
    snprintf(src + len, cap - len,
             "  %s p; %s v = %s;\n  %s(v, r); %s(p, %s);\n}\n", pt, vt, call,
             st, st, pb);
  else if (as == AS_GLOBAL)
    snprintf(src + len, cap - len,
             "  global %s *gp = (global %s *)%s + i;\n"
             "  %s v = %s;\n  %s(v, r);\n}\n", pt, pt, pb, vt, call, st);
  else
    snprintf(src + len, cap - len,
             "  local %s tmp[%d]; local %s *lp = &tmp[get_local_id(0)];\n"
             "  %s v = %s;\n  %s(v, r); %s(*lp, %s);\n}\n", pt, LOCAL, pt,
             vt, call, st, st, pb);
}

/* The program with every function's kernels for one type and width. */
static cl_program build_width(int dbl, int w) {
  size_t cap = 1 << 20;
  char *src = malloc(cap);
  REQUIRE_OK(src ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  snprintf(src, cap,
           "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
           "#define S %s\n#define LD1(p) p[i]\n#define ST1(v, p) p[i] = v\n"
           "#define LDV(p) vload%d(i, p)\n"
           "#define STV(v, p) vstore%d(v, i, p)\n",
           dbl ? "double" : "float", w, w);
  for (size_t k = 0; k < NFNS; k++) {
    if (dbl && (fns[k].flags & FLOAT_ONLY))
      continue;
    for (int as = 0; as < (has_pointer(&fns[k]) ? 3 : 1); as++)
      gen_kernel(src, cap, &fns[k], dbl ? "double" : "float", w,
                 (enum space)as);
  }
  cl_program p = test_build(&env, src, NULL);
  free(src);
  return p;
}

/* ---- Checking ---- */

/* Error of got against ref in ULPs of the tested type (INFINITY when a
 * special value is wrong); the spec's overflow allowance included. */
static double ulp_error(long double ref, double got, int dbl) {
  if (isnan(ref))
    return isnan(got) ? 0 : INFINITY;
  if (isnan(got))
    return INFINITY;
  if (isinf(ref))
    return got == ref ? 0 : INFINITY;
  if (ref == 0)
    return got == 0 && !signbit(got) == !signbit(ref) ? 0 : INFINITY;
  int p = dbl ? 53 : 24, emin = dbl ? -1022 : -126, emax = dbl ? 1023 : 127;
  int e = ilogbl(ref);
  e = e < emin ? emin : e > emax ? emax : e;
  long double ulp = ldexpl(1, e - p + 1);
  if (isinf(got)) {
    /* Infinity is allowed when MAX + 1 ULP (where the next number would
     * be) is within the bound; beyond it, it is the rounded result. */
    if (!signbit(got) != !signbit(ref))
      return INFINITY;
    long double d = ldexpl(1, emax + 1) - fabsl(ref);
    return d > 0 ? (double)(d / ulp) : 0;
  }
  return (double)(fabsl((long double)got - ref) / ulp);
}

/* Whether got is exactly ref (NaN matches NaN; signed zeros differ). */
static bool same(long double ref, double got) {
  if (isnan(ref) || isnan(got))
    return isnan(ref) && isnan(got);
  return (long double)got == ref && !signbit(got) == !signbit(ref);
}

typedef struct bufs {
  cl_mem a, b, c, ni, r, ri, r2, ri2;
} bufs;

typedef struct host {
  double x[N], y[N], z[N], r[N], r2[2 * N];
  int n[N], ri[N], ri2[2 * N];
} host;

static void upload(bufs *d, host *h, int dbl) {
  size_t es = dbl ? 8 : 4;
  static float tmp[N];
  const double *src[3] = {h->x, h->y, h->z};
  cl_mem dst[3] = {d->a, d->b, d->c};
  for (int k = 0; k < 3; k++) {
    if (dbl) {
      REQUIRE_OK(clEnqueueWriteBuffer(env.queue, dst[k], CL_TRUE, 0, N * es,
                                      src[k], 0, NULL, NULL));
    } else {
      for (int i = 0; i < N; i++)
        tmp[i] = (float)src[k][i];
      REQUIRE_OK(clEnqueueWriteBuffer(env.queue, dst[k], CL_TRUE, 0, N * es,
                                      tmp, 0, NULL, NULL));
    }
  }
  REQUIRE_OK(clEnqueueWriteBuffer(env.queue, d->ni, CL_TRUE, 0,
                                  N * sizeof(int), h->n, 0, NULL, NULL));
}

static void download(bufs *d, host *h, int dbl) {
  size_t es = dbl ? 8 : 4;
  static float tmp[2 * N];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, d->ri, CL_TRUE, 0,
                                 N * sizeof(int), h->ri, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, d->ri2, CL_TRUE, 0,
                                 2 * N * sizeof(int), h->ri2, 0, NULL, NULL));
  if (dbl) {
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, d->r, CL_TRUE, 0, N * es, h->r,
                                   0, NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, d->r2, CL_TRUE, 0, 2 * N * es,
                                   h->r2, 0, NULL, NULL));
    return;
  }
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, d->r, CL_TRUE, 0, N * es, tmp, 0,
                                 NULL, NULL));
  for (int i = 0; i < N; i++)
    h->r[i] = tmp[i];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, d->r2, CL_TRUE, 0, 2 * N * es,
                                 tmp, 0, NULL, NULL));
  for (int i = 0; i < 2 * N; i++)
    h->r2[i] = tmp[i];
}

/* The index of element i's pointer result: the global form stores whole
 * vectors (a 3-vector takes 4 slots). */
static size_t pointer_slot(size_t i, int w, enum space as) {
  if (as != AS_GLOBAL || w != 3)
    return i;
  return i / 3 * 4 + i % 3;
}

/* Checks one element; false (after a report) if it fails. */
static bool check_one(const fn *f, int dbl, int w, enum space as, host *h,
                      size_t i, double *worst) {
  args a = {h->x[i], h->y[i], h->z[i], h->n[i]};
  outs o = {0, 0};
  long double ref = f->ref(&a, dbl, &o);
  double bound = dbl ? f->ulp_d : f->ulp_f;
  double got = h->r[i];
  bool ok;
  double err = 0;
  size_t slot = pointer_slot(i, w, as);
  /* fmax/fmin(+0, -0) may return either zero (IEEE 754 maxNum). */
  bool zero_tie = a.x == 0 && a.y == 0 &&
                  (strstr(f->name, "max") || strstr(f->name, "min"));
  if (zero_tie) {
    ok = got == 0;
  } else if (f->kind == KIF) {
    ok = h->ri[i] == (int)ref;
  } else if (f->flags & EXACT) {
    ok = same(to_t(ref, dbl), got);
  } else if ((f->flags & MAD) && !dbl) {
    long double mul_add = (float)((float)(a.x * a.y) + (float)a.z);
    ok = same(to_t(ref, dbl), got) || same(mul_add, got);
  } else if (f->flags & MAD) {
    ok = true;
  } else {
    err = ulp_error(ref, got, dbl);
    ok = err <= bound;
    /* lgamma: no bound; near its zeros only an absolute error means
     * anything. */
    if (!ok && (f->flags & LOOSE) && isfinite(ref) && isfinite(got))
      ok = fabsl((long double)got - ref) < (dbl ? 1e-13L : 1e-5L);
  }
  if (ok && f->kind == KP) {
    double got2 = h->r2[slot];
    if (f->flags & EXACT) {
      ok = same(to_t(o.v2, dbl), got2);
    } else {
      double e2 = ulp_error(o.v2, got2, dbl);
      ok = e2 <= bound;
      err = e2 > err ? e2 : err;
    }
  }
  if (ok && f->kind == KPI && !(f->kind == KPI && (f->flags & LOOSE) &&
                                isnan(a.x)))
    ok = h->ri2[slot] == o.i2;
  if (ok && f->kind == KRQ)
    /* The low three bits and (when they are not 0) the sign. */
    ok = (abs(h->ri2[slot]) & 127) == (abs(o.i2) & 127) &&
         ((abs(o.i2) & 127) == 0 || (h->ri2[slot] < 0) == (o.i2 < 0));
  if (isfinite(err) && err > *worst)
    *worst = err;
  if (!ok) {
    fprintf(stderr, "%s(%s) w=%d %s: x=%a y=%a n=%d: got %a (int %d) "
            "want %La (int %d), %.2f ulp\n", f->name, dbl ? "double" : "float",
            w, has_pointer(f) ? space_names[as] : "", (double)a.x,
            (double)a.y, a.n, got,
            has_pointer(f) ? h->ri2[slot] : h->ri[i], ref, o.i2, err);
  }
  return ok;
}

/* Runs function f's kernel(s) of program p and checks every element. */
static void run_fn(cl_program p, const fn *f, int dbl, int w, bufs *d,
                   host *h) {
  make_inputs(f, dbl, h->x, h->y, h->z, h->n);
  upload(d, h, dbl);
  double worst = 0;
  for (int as = 0; as < (has_pointer(f) ? 3 : 1); as++) {
    char name[64];
    snprintf(name, sizeof name, "t_%s_%s", f->name, space_names[as]);
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    REQUIRE_OK(err);
    cl_mem args[8] = {d->a, d->b, d->c, d->ni, d->r, d->ri, d->r2, d->ri2};
    for (cl_uint j = 0; j < 8; j++)
      REQUIRE_OK(clSetKernelArg(k, j, sizeof(cl_mem), &args[j]));
    size_t global = N / w, local = LOCAL;
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global,
                                      as == AS_LOCAL ? &local : NULL, 0, NULL,
                                      NULL));
    download(d, h, dbl);
    clReleaseKernel(k);
    int reported = 0;
    for (size_t i = 0; i < N; i++) {
      if (!check_one(f, dbl, w, (enum space)as, h, i, &worst)) {
        test_failures++;
        if (++reported >= MAX_REPORTS) {
          fprintf(stderr, "  (further %s failures not shown)\n", f->name);
          break;
        }
      }
    }
  }
  if (getenv("SKEIN_MATH_VERBOSE"))
    printf("%-16s %-6s w=%-2d max %.3f ulp\n", f->name,
           dbl ? "double" : "float", w, worst);
}

/* M_* constants and the FP macros come from Clang's header: check their
 * values (correctly rounded) and FP_FAST_FMA(F). */
static void check_macros(void) {
  static const char *src =
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "kernel void m(global float *f, global double *d, global int *i) {\n"
      "  f[0] = M_PI_F; f[1] = M_E_F; f[2] = M_SQRT2_F; f[3] = M_LN2_F;\n"
      "  f[4] = M_1_PI_F; f[5] = MAXFLOAT; f[6] = M_PI_2_F; f[7] = M_LOG2E_F;\n"
      "  d[0] = M_PI; d[1] = M_E; d[2] = M_SQRT2; d[3] = M_LN2;\n"
      "  i[0] = FP_ILOGB0; i[1] = FP_ILOGBNAN;\n"
      "#ifdef FP_FAST_FMAF\n  i[2] = 1;\n#else\n  i[2] = 0;\n#endif\n"
      "#ifdef FP_FAST_FMA\n  i[3] = 1;\n#else\n  i[3] = 0;\n#endif\n"
      "#ifdef FP_CONTRACT\n  i[4] = 1;\n#else\n  i[4] = 0;\n#endif\n"
      "}\n";
  cl_program p = test_build(&env, src, NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "m", &err);
  REQUIRE_OK(err);
  cl_mem fb = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 64, NULL, &err);
  cl_mem db = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 64, NULL, &err);
  cl_mem ib = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 64, NULL, &err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof fb, &fb));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof db, &db));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof ib, &ib));
  size_t one = 1;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &one, NULL, 0,
                                    NULL, NULL));
  float f[8];
  double d[4];
  int i[5];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, fb, CL_TRUE, 0, sizeof f, f, 0,
                                 NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, db, CL_TRUE, 0, sizeof d, d, 0,
                                 NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, ib, CL_TRUE, 0, sizeof i, i, 0,
                                 NULL, NULL));
  CHECK(f[0] == (float)PI_L);
  CHECK(f[1] == (float)2.71828182845904523536L);
  CHECK(f[2] == (float)1.41421356237309504880L);
  CHECK(f[3] == (float)0.69314718055994530942L);
  CHECK(f[4] == (float)(1 / PI_L));
  CHECK(f[5] == FLT_MAX);
  CHECK(f[6] == (float)(PI_L / 2));
  CHECK(f[7] == (float)1.44269504088896340736L);
  CHECK(d[0] == (double)PI_L);
  CHECK(d[1] == (double)2.71828182845904523536L);
  CHECK(d[2] == (double)1.41421356237309504880L);
  CHECK(d[3] == (double)0.69314718055994530942L);
  CHECK_EQ(i[0], INT_MIN);
  CHECK_EQ(i[1], INT_MAX);
  /* The spec makes FP_FAST_FMA(F) optional ("if defined"); it must not
   * be defined for one precision only on a CPU whose fma covers both. */
  CHECK_EQ(i[2], i[3]);
  printf("FP_FAST_FMAF %s, FP_FAST_FMA %s\n", i[2] ? "defined" : "undefined",
         i[3] ? "defined" : "undefined");
  clReleaseMemObject(fb);
  clReleaseMemObject(db);
  clReleaseMemObject(ib);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

/* The forms the table loop does not call: vector with scalar argument
 * and nan(); built and run once to show they link and compute. */
static void check_misc_forms(void) {
  static const char *src =
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "kernel void m(global float4 *f, global double2 *d, global uint *u) {\n"
      "  f[0] = ldexp((float4)(1, 2, 3, 4), 3);\n"
      "  f[1] = fmax((float4)(1, 5, -1, 0), 2.0f);\n"
      "  d[0] = ldexp((double2)(1, 0.5), -2);\n"
      "  float4 n = nan((uint4)(1, 2, 3, 0));\n"
      "  u[0] = as_uint(n.x); u[1] = as_uint(n.w);\n"
      "  u[2] = (uint)(as_ulong(nan(5ul)) >> 32);\n"
      "  u[3] = (uint)as_ulong(nan(5ul));\n"
      "}\n";
  cl_program p = test_build(&env, src, NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "m", &err);
  REQUIRE_OK(err);
  cl_mem fb = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 64, NULL, &err);
  cl_mem db = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 64, NULL, &err);
  cl_mem ub = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 64, NULL, &err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof fb, &fb));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof db, &db));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof ub, &ub));
  size_t one = 1;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &one, NULL, 0,
                                    NULL, NULL));
  float f[8];
  double d[2];
  unsigned u[4];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, fb, CL_TRUE, 0, sizeof f, f, 0,
                                 NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, db, CL_TRUE, 0, sizeof d, d, 0,
                                 NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, ub, CL_TRUE, 0, sizeof u, u, 0,
                                 NULL, NULL));
  CHECK(f[0] == 8 && f[1] == 16 && f[2] == 24 && f[3] == 32);
  CHECK(f[4] == 2 && f[5] == 5 && f[6] == 2 && f[7] == 2);
  CHECK(d[0] == 0.25 && d[1] == 0.125);
  CHECK_EQ(u[0], 0x7fc00001u);
  CHECK_EQ(u[1], 0x7fc00000u);
  CHECK_EQ(u[2], 0x7ff80000u);
  CHECK_EQ(u[3], 5);
  clReleaseMemObject(fb);
  clReleaseMemObject(db);
  clReleaseMemObject(ub);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

/* -cl-fast-relaxed-math: Skein switches to Sleef's 3.5-ULP forms (and
 * vector forms); check the relaxed bounds of the spec's table (sin and
 * cos: absolute error 2^-11 on [-pi, pi]) and, stricter than needed,
 * log's full-profile 3 ULP. */
static void check_relaxed(void) {
  static const char *src =
      "kernel void k(global const float *x, global float *s, global float *c,\n"
      "              global float *l) {\n"
      "  size_t i = get_global_id(0);\n"
      "  s[i] = sin(x[i]); c[i] = cos(x[i]); l[i] = log(x[i] + 4.0f);\n"
      "}\n";
  cl_program p = test_build(&env, src, "-cl-fast-relaxed-math");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "k", &err);
  REQUIRE_OK(err);
  static float x[N], out[3][N];
  for (int i = 0; i < N; i++)
    x[i] = (float)((rand_unit() * 2 - 1) * PI_L);
  cl_mem bx = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR, sizeof x, x,
                             &err);
  REQUIRE_OK(err);
  cl_mem bo[3];
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bx, &bx));
  for (int j = 0; j < 3; j++) {
    bo[j] = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, sizeof x, NULL,
                           &err);
    REQUIRE_OK(err);
    REQUIRE_OK(clSetKernelArg(k, (cl_uint)j + 1, sizeof bo[j], &bo[j]));
  }
  size_t global = N;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  for (int j = 0; j < 3; j++)
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo[j], CL_TRUE, 0, sizeof x,
                                   out[j], 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < N; i++) {
    bad += fabsl(out[0][i] - sinl(x[i])) > 0x1p-11L;
    bad += fabsl(out[1][i] - cosl(x[i])) > 0x1p-11L;
    bad += ulp_error(logl((float)(x[i] + 4.0f)), out[2][i], 0) > 3;
  }
  CHECK_EQ(bad, 0);
  for (int j = 0; j < 3; j++)
    clReleaseMemObject(bo[j]);
  clReleaseMemObject(bx);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

int main(void) {
  test_seed(0x9e3779b97f4a7c15ull);
  test_setup(&env);
  check_relaxed();
  check_macros();
  check_misc_forms();
  static host h;
  bufs d;
  cl_int err;
  cl_mem *all[8] = {&d.a, &d.b, &d.c, &d.ni, &d.r, &d.ri, &d.r2, &d.ri2};
  size_t sizes[8] = {N * 8, N * 8, N * 8, N * 4, N * 8, N * 4, 2 * N * 8,
                     2 * N * 4};
  for (int j = 0; j < 8; j++) {
    *all[j] = clCreateBuffer(env.context, CL_MEM_READ_WRITE, sizes[j], NULL,
                             &err);
    REQUIRE_OK(err);
  }
  /* By default float 1, 16 and double 1, 3 (compiling is most of the
   * run time, and double16's 16 inlined copies of every function the
   * most of it). */
  const char *ws = getenv("SKEIN_MATH_WIDTHS");
  static const int some[2][6] = {{1, 16}, {1, 3}};
  static const int every[] = {1, 2, 3, 4, 8, 16};
  bool full = ws && strcmp(ws, "all") == 0;
  for (int dbl = 0; dbl < 2; dbl++) {
    int nw = full ? 6 : 2;
    for (int wi = 0; wi < nw; wi++) {
      int w = full ? every[wi] : some[dbl][wi];
      cl_program p = build_width(dbl, w);
      for (size_t k = 0; k < NFNS; k++)
        if (!(dbl && (fns[k].flags & FLOAT_ONLY)))
          run_fn(p, &fns[k], dbl, w, &d, &h);
      clReleaseProgram(p);
    }
  }
  for (int j = 0; j < 8; j++)
    clReleaseMemObject(*all[j]);
  test_teardown(&env);
  return test_finish("builtins-math");
}
