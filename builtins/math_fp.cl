/* This file contains the math builtins (OpenCL C 3.0 section 6.15.2)
 * written here rather than taken from libsleef as they are: the exact
 * ones that are bit manipulation (frexp, ldexp, ilogb, logb, nextafter,
 * nan, fract, modf, maxmag, minmag, remquo), the ones derived from a
 * Sleef function (the pi forms, pown, powr, rootn, lgamma_r, sincos),
 * and the ones where Sleef misses a range or an edge case (asinh, acosh,
 * log1p, sinpi, cospi, cosh, sinh, lgamma, tgamma, fmod, remainder).
 * Each states its error bound and why it holds. */
#include "math_defs.h"

#define FLOAT_TYPES(M) M(float, uint, int) M(double, ulong, long)

/* ---- Exact functions (0 ULP): only exact operations and selects. ---- */

/* maxmag/minmag: the operand of larger/smaller magnitude, else fmax/fmin
 * (which also handles a NaN operand). */
#define MAGS(T, U, I) \
  T OVL maxmag(T x, T y) { \
    T ax = fabs(x), ay = fabs(y); \
    return ax > ay ? x : ay > ax ? y : fmax(x, y); \
  } \
  T OVL minmag(T x, T y) { \
    T ax = fabs(x), ay = fabs(y); \
    return ax < ay ? x : ay < ax ? y : fmin(x, y); \
  } \
  SKM_VEC2(maxmag, T) SKM_VEC2(minmag, T)
FLOAT_TYPES(MAGS)

/* nan(code): a quiet NaN carrying code in its mantissa. */
#define NANS(T, U) \
  T OVL nan(U c) { return __builtin_astype(c | (U)(Q), T); }
#define Q 0x7fc00000u
NANS(float, uint) NANS(float2, uint2) NANS(float3, uint3)
NANS(float4, uint4) NANS(float8, uint8) NANS(float16, uint16)
#undef Q
#define Q 0x7ff8000000000000ul
NANS(double, ulong) NANS(double2, ulong2) NANS(double3, ulong3)
NANS(double4, ulong4) NANS(double8, ulong8) NANS(double16, ulong16)
#undef Q

/* ilogb: the unbiased exponent; denormals from their leading one. */
int OVL ilogb(float x) {
  uint u = as_uint(x) & 0x7fffffffu;
  if (u == 0)
    return FP_ILOGB0;
  if (u >= 0x7f800000u)
    return u == 0x7f800000u ? INT_MAX : FP_ILOGBNAN;
  if (u < 0x00800000u)
    return (int)(31 - clz(u)) - 149;
  return (int)(u >> 23) - 127;
}
int OVL ilogb(double x) {
  ulong u = as_ulong(x) & 0x7ffffffffffffffful;
  if (u == 0)
    return FP_ILOGB0;
  if (u >= 0x7ff0000000000000ul)
    return u == 0x7ff0000000000000ul ? INT_MAX : FP_ILOGBNAN;
  if (u < 0x0010000000000000ul)
    return (int)(63 - clz(u)) - 1074;
  return (int)(u >> 52) - 1023;
}
SKM_VEC_IF(ilogb, float) SKM_VEC_IF(ilogb, double)

/* logb: ilogb as a float; logb(0) = -inf, logb(inf) = +inf (C99 F.9). */
#define LOGB(T, U, I) \
  T OVL logb(T x) { \
    if (x == 0) \
      return -INFINITY; \
    if (isinf(x) || isnan(x)) \
      return x * x; \
    return (T)ilogb(x); \
  } \
  SKM_VEC1(logb, T)
FLOAT_TYPES(LOGB)

/* ldexp(float): the product is exact in double (float's exponent range
 * plus the clamped n fits double's), so the one rounding to float is
 * the correct rounding, also for denormal results. */
float OVL ldexp(float x, int n) {
  n = clamp(n, -400, 400);
  return (float)((double)x * as_double((ulong)(n + 1023) << 52));
}
/* ldexp(double): scales by exact powers of two while the intermediate
 * stays normal (the 2^53 margin keeps the lost-precision scaling for
 * the last step), so only the last multiplication rounds. */
double OVL ldexp(double x, int n) {
  if (n > 1023) {
    x *= 0x1p1023;
    n -= 1023;
    if (n > 1023) {
      x *= 0x1p1023;
      n = min(n - 1023, 1023);
    }
  } else if (n < -1022) {
    x *= 0x1p-969;   /* 2^-1022 * 2^53 */
    n += 969;
    if (n < -1022) {
      x *= 0x1p-969;
      n = max(n + 969, -1022);
    }
  }
  return x * as_double((ulong)(n + 1023) << 52);
}
SKM_VEC_FI(ldexp, float) SKM_VEC_FI(ldexp, double)
#define LDEXP_W(S, W) \
  S##W OVL ldexp(S##W x, int n) { return ldexp(x, (int##W)(n)); }
LDEXP_W(float, 2) LDEXP_W(float, 3) LDEXP_W(float, 4) LDEXP_W(float, 8)
LDEXP_W(float, 16) LDEXP_W(double, 2) LDEXP_W(double, 3)
LDEXP_W(double, 4) LDEXP_W(double, 8) LDEXP_W(double, 16)

/* nextafter: one step of the integer representation towards y. */
#define NEXTAFTER(T, U, I) \
  T OVL nextafter(T x, T y) { \
    if (isnan(x) || isnan(y)) \
      return x + y; \
    if (x == y) \
      return y; \
    if (x == 0) \
      return copysign(__builtin_astype((U)1, T), y); \
    I i = __builtin_astype(x, I); \
    return __builtin_astype(i + (((x < y) == (x > 0)) ? 1 : -1), T); \
  } \
  SKM_VEC2(nextafter, T)
FLOAT_TYPES(NEXTAFTER)

/* ---- Functions with a pointer argument (private form, then the
 * global/local forms through it). ---- */

/* frexp: mantissa in [0.5, 1) and exponent; denormals are first scaled
 * into the normal range by an exact power of two. */
float OVLP frexp(float x, __private int *e) {
  if (x == 0 || isinf(x) || isnan(x)) {
    *e = 0;
    return x;
  }
  int adj = 0;
  if (fabs(x) < 0x1p-126f) {
    x *= 0x1p32f;
    adj = -32;
  }
  uint u = as_uint(x);
  *e = (int)((u >> 23) & 0xff) - 126 + adj;
  return as_float((u & 0x807fffffu) | 0x3f000000u);
}
double OVLP frexp(double x, __private int *e) {
  if (x == 0 || isinf(x) || isnan(x)) {
    *e = 0;
    return x;
  }
  int adj = 0;
  if (fabs(x) < 0x1p-1022) {
    x *= 0x1p64;
    adj = -64;
  }
  ulong u = as_ulong(x);
  *e = (int)((u >> 52) & 0x7ff) - 1022 + adj;
  return as_double((u & 0x800ffffffffffffful) | 0x3fe0000000000000ul);
}

/* fract: x - floor(x), below 1 (a tiny negative x would round to 1);
 * the spec's values for ±0, ±inf and NaN. */
#define FRACT(T, U, I) \
  T OVLP fract(T x, __private T *ip) { \
    T fl = floor(x); \
    *ip = fl; \
    if (isnan(x)) \
      return x; \
    if (isinf(x) || x == 0) \
      return copysign((T)0, x); \
    return fmin(x - fl, (T)(1) - (T)(sizeof(T) == 4 ? 0x1p-24 : 0x1p-53)); \
  }
FLOAT_TYPES(FRACT)

/* modf: as the spec's "Changes to C99 TC2 Behavior" defines it. */
#define MODF(T, U, I) \
  T OVLP modf(T x, __private T *ip) { \
    T t = trunc(x); \
    *ip = t; \
    return copysign(isinf(x) ? (T)0 : x - t, x); \
  }
FLOAT_TYPES(MODF)

/* remquo: the remainder is Sleef's exact remainder; the low seven bits
 * of the quotient n (the spec asks for seven, C for three) come from
 * fmod(|x|, 128|y|) = |x| - 128k|y| (exact): n - 128k is the integer
 * (r128 - r) / |y| <= 128, recovered exactly by rint since the
 * divisions' and the subtraction's errors are far below 1/2. It is
 * computed as r128/|y| - r/|y|: r128 - r itself overflows when |x| and
 * |y| are near the type's maximum and r < 0 (n = 2 came out as 0). */
#define REMQUO(T, U, I) \
  T OVLP remquo(T x, T y, __private int *quo) { \
    if (isnan(x) || isnan(y) || isinf(x) || y == 0) { \
      *quo = 0; \
      return (T)NAN; \
    } \
    T ax = fabs(x), ay = fabs(y); \
    T r = remainder(ax, ay); \
    T r128 = ay > (sizeof(T) == 4 ? FLT_MAX : DBL_MAX) / 128 \
                 ? ax : fmod(ax, 128 * ay); \
    int n = (int)rint(r128 / ay - r / ay) & 127; \
    *quo = signbit(x) != signbit(y) ? -n : n; \
    return signbit(x) ? -r : r; \
  }
FLOAT_TYPES(REMQUO)

/* lgamma_r: Sleef's lgamma (the spec sets no bound) and the sign of
 * gamma(x): 0 for zero and negative integers (spec), -1 on the
 * intervals (-2k-1, -2k), else 1. */
#define LGAMMA_R(T, U, I) \
  T OVLP lgamma_r(T x, __private int *s) { \
    T fl = floor(x); \
    if (isnan(x) || (x <= 0 && fl == x)) \
      *s = 0; \
    else if (x > 0) \
      *s = 1; \
    else \
      *s = fmod(fl, (T)2) != 0 ? -1 : 1; \
    return lgamma(x); \
  }
FLOAT_TYPES(LGAMMA_R)

/* sincos: sin and cos (Sleef, 1 ULP each). */
#define SINCOS(T, U, I) \
  T OVLP sincos(T x, __private T *c) { \
    *c = cos(x); \
    return sin(x); \
  }
FLOAT_TYPES(SINCOS)

#define PTR_VECS(T, U, I) \
  SKM_VECP(frexp, T, int) SKM_VECP(fract, T, T) SKM_VECP(modf, T, T) \
  SKM_VECP(lgamma_r, T, int) SKM_VECP(sincos, T, T) \
  SKM_PTR_ALL(frexp, T, int) SKM_PTR_ALL(fract, T, T) \
  SKM_PTR_ALL(modf, T, T) SKM_PTR_ALL(lgamma_r, T, int) \
  SKM_PTR_ALL(sincos, T, T)
FLOAT_TYPES(PTR_VECS)

/* remquo's two inputs need their own vector and address-space forms. */
#define REMQUO_VN(T, N, H, LO, HI) \
  T##N OVLP remquo(T##N x, T##N y, __private int##N *q) { \
    H a, b; \
    T##N r = (T##N)(remquo(x.LO, y.LO, &a), remquo(x.HI, y.HI, &b)); \
    *q = (int##N)(a, b); \
    return r; \
  }
#define REMQUO_AS(T, I) \
  T OVLP remquo(T x, T y, __global I *q) { \
    I t; T r = remquo(x, y, &t); *q = t; return r; \
  } \
  T OVLP remquo(T x, T y, __local I *q) { \
    I t; T r = remquo(x, y, &t); *q = t; return r; \
  }
#define REMQUO_VECS(T, U, I) \
  REMQUO_VN(T, 2, int, s0, s1) \
  T##3 OVLP remquo(T##3 x, T##3 y, __private int3 *q) { \
    int a, b, c; \
    T##3 r = (T##3)(remquo(x.s0, y.s0, &a), remquo(x.s1, y.s1, &b), \
                    remquo(x.s2, y.s2, &c)); \
    *q = (int3)(a, b, c); \
    return r; \
  } \
  REMQUO_VN(T, 4, int2, lo, hi) REMQUO_VN(T, 8, int4, lo, hi) \
  REMQUO_VN(T, 16, int8, lo, hi) \
  REMQUO_AS(T, int) REMQUO_AS(T##2, int2) REMQUO_AS(T##3, int3) \
  REMQUO_AS(T##4, int4) REMQUO_AS(T##8, int8) REMQUO_AS(T##16, int16)
FLOAT_TYPES(REMQUO_VECS)

/* ---- Functions derived from Sleef ones. ---- */
double SLEEF Sleef_acos_u10(double);
double SLEEF Sleef_asin_u10(double);
double SLEEF Sleef_atan_u10(double);
double SLEEF Sleef_atan2_u10(double, double);
double SLEEF Sleef_sinpi_u05(double);
double SLEEF Sleef_cospi_u05(double);
double SLEEF Sleef_pow_u10(double, double);

/* The float pi forms and tanpi: the double function (1 ULP of double)
 * times 1/pi, rounded once to float: within 0.5 + 2^-28 ULP of float,
 * far inside the 5/6 ULP bounds; the exact values of the spec's edge
 * cases survive the two roundings (e.g. atan2pi(0, -0) = pi * (1/pi)
 * rounds to 1). */
#define INV_PI 0x1.45f306dc9c883p-2
float OVL acospi(float x) { return (float)(Sleef_acos_u10(x) * INV_PI); }
float OVL asinpi(float x) { return (float)(Sleef_asin_u10(x) * INV_PI); }
float OVL atanpi(float x) { return (float)(Sleef_atan_u10(x) * INV_PI); }
float OVL atan2pi(float y, float x) {
  return (float)(Sleef_atan2_u10(y, x) * INV_PI);
}
float OVL tanpi(float x) {
  return (float)(sinpi((double)x) / cospi((double)x));
}

/* The double pi forms: the 1-ULP function times 1/pi in two parts
 * (hi + lo, so 1/pi itself adds no error): within about 1.5 ULP of
 * double, inside the 5/6 ULP bounds. The spec's exact values: see the
 * float forms; atanpi(±inf) is made exact explicitly. */
#define INV_PI_LO -0x1.6b01ec5417056p-56
static double __attribute__((overloadable, always_inline))
times_inv_pi(double a) {
  return copysign(fma(a, INV_PI, a * INV_PI_LO), a);   /* keeps -0 */
}
double OVL acospi(double x) { return times_inv_pi(Sleef_acos_u10(x)); }
double OVL asinpi(double x) { return times_inv_pi(Sleef_asin_u10(x)); }
double OVL atanpi(double x) {
  return isinf(x) ? copysign(0.5, x) : times_inv_pi(Sleef_atan_u10(x));
}
double OVL atan2pi(double y, double x) {
  return times_inv_pi(Sleef_atan2_u10(y, x));
}
/* tanpi(double): sinpi / cospi, each within 0.506 ULP: within 1.6 ULP
 * (bound 6). cospi(n + 0.5) is +0 and sinpi(n) a signed zero, which
 * gives the spec's infinities and zeros. */
double OVL tanpi(double x) { return sinpi(x) / cospi(x); }
SKM_VEC1(acospi, float) SKM_VEC1(asinpi, float) SKM_VEC1(atanpi, float)
SKM_VEC1(tanpi, float) SKM_VEC2(atan2pi, float)
SKM_VEC1(acospi, double) SKM_VEC1(asinpi, double) SKM_VEC1(atanpi, double)
SKM_VEC1(tanpi, double) SKM_VEC2(atan2pi, double)

/* pow(double): Sleef's, except that Sleef_pow_u10 returns inf where the
 * exact result is finite but within a few ULP of DBL_MAX (pow(-DBL_MAX,
 * 1) and pown(-0.5000000000000001, -1024) gave inf). For finite non-zero
 * x an infinite result is recomputed. Integer |y| <= 1100: pow(|x| 2^s,
 * y) 2^(-sy) with s = -1 or 1 as moves the pow away from overflow; both
 * scalings are exact (ldexp; the scaled pow is at least DBL_MAX 2^-1100,
 * far from underflow), so the error is pow's 1 ULP. Other y: h * h with
 * h = pow(|x|, y / 2), within 2.5 ULP (bound 16). Either stays infinite
 * when the exact result overflows; the sign is the one Sleef gave.
 * pown(double) and powr(double) use it too. */
static double __attribute__((overloadable, always_inline))
pow_d(double x, double y) {
  double r = Sleef_pow_u10(x, y);
  if (!isinf(r) || !isfinite(x) || !isfinite(y) || x == 0)
    return r;
  double ax = fabs(x);
  if (y == rint(y) && fabs(y) <= 1100) {
    int s = ax >= 1 ? -1 : 1;
    return copysign(ldexp(Sleef_pow_u10(ldexp(ax, s), y), -s * (int)y), r);
  }
  double h = Sleef_pow_u10(ax, y * 0.5);
  return copysign(h * h, r);
}
double OVL pow(double x, double y) { return pow_d(x, y); }
SKM_VEC2(pow, double)

/* pown(float): the double pow of the float and the exact integer, one
 * rounding: within 0.5 + 2^-28 ULP (bound 16). pown(double): pow of the
 * exact integer, 1 ULP. pow's C99 special values are pown's. */
float OVL pown(float x, int n) { return (float)Sleef_pow_u10(x, n); }
double OVL pown(double x, int n) { return pow_d(x, (double)n); }
SKM_VEC_FI(pown, float) SKM_VEC_FI(pown, double)

/* powr: pow restricted to x >= 0, with the spec's NaN cases. */
#define POWR(T, U, I) \
  T OVL powr(T x, T y) { \
    T r = pow(fabs(x), y); \
    bool bad = x < 0 || isnan(x) || isnan(y) || (x == 0 && y == 0) || \
               (isinf(x) && y == 0) || (x == 1 && isinf(y)); \
    return bad ? (T)NAN : r; \
  } \
  SKM_VEC2(powr, T)
FLOAT_TYPES(POWR)

/* rootn(float): pow in double of |x| and 1/n (relative error of 1/n,
 * 2^-53, times |ln x| < 104 stays below 2^-46 of the result), rounded
 * once: within 0.5 + 2^-28 ULP (bound 16). */
float OVL rootn(float x, int n) {
  if (n == 0 || (x < 0 && (n & 1) == 0))
    return NAN;
  float r = (float)Sleef_pow_u10(fabs(x), 1.0 / n);
  return (n & 1) ? copysign(r, x) : r;
}
/* rootn(double): pow(x, 1/n) would be off by |ln x / n| * 2^-53 relative
 * through the rounding of 1/n (over 100 ULP for tiny or huge x). With
 * x = m 2^(kn + s), 0 <= s < |n|: rootn(x) = pow(m 2^s, 1/n) 2^k, where
 * |ln(m 2^s) / n| < ln 2: within 0.7 + 1 ULP (pow) and an exact scaling
 * (the result is normal for |n| >= 2). For |n| > 64 plain pow is within
 * 745 / 64 * 0.5 + 1 < 7 ULP (bound 16). */
double OVL rootn(double x, int n) {
  if (n == 0 || (x < 0 && (n & 1) == 0))
    return NAN;
  double ax = fabs(x), r;
  if (ax == 0 || isinf(ax) || isnan(ax) || n > 64 || n < -64) {
    r = Sleef_pow_u10(ax, 1.0 / n);
  } else {
    int e;
    double m = frexp(ax, &e);
    int an = abs(n);
    int q = e >= 0 ? e / an : -((an - 1 - e) / an);   /* floor(e / |n|) */
    int s = e - q * an;
    r = ldexp(Sleef_pow_u10(ldexp(m, s), 1.0 / n), n > 0 ? q : -q);
  }
  return (n & 1) ? copysign(r, x) : r;
}
SKM_VEC_FI(rootn, float) SKM_VEC_FI(rootn, double)

/* Sleef's float asinh, acosh and log1p overflow for |x| beyond about
 * 2^64; their double forms cover the float range, and one rounding of
 * the 1-ULP double result is within 0.5 + 2^-28 ULP of float. */
double SLEEF Sleef_asinh_u10(double);
double SLEEF Sleef_acosh_u10(double);
double SLEEF Sleef_log1p_u10(double);
double SLEEF Sleef_log_u10(double);
float OVL asinh(float x) { return (float)Sleef_asinh_u10(x); }
float OVL acosh(float x) { return (float)Sleef_acosh_u10(x); }
float OVL log1p(float x) { return (float)Sleef_log1p_u10(x); }
/* The double forms overflow the same way for huge x: there asinh(x) =
 * ln 2|x| + O(x^-2) and log1p(x) = ln x + O(1/x), relatively below 2^-58
 * for |x| > 2^28 (resp. 2^53); ln|x| + ln 2 is within 1.5 ULP (bound 4). */
#define LN2 0x1.62e42fefa39efp-1
double OVL asinh(double x) {
  if (fabs(x) > 0x1p28 && !isinf(x))
    return copysign(Sleef_log_u10(fabs(x)) + LN2, x);
  return Sleef_asinh_u10(x);
}
double OVL acosh(double x) {
  if (x > 0x1p28 && !isinf(x))
    return Sleef_log_u10(x) + LN2;
  return Sleef_acosh_u10(x);
}
double OVL log1p(double x) {
  if (x > 0x1p53)
    return Sleef_log_u10(x);
  return Sleef_log1p_u10(x);
}
SKM_VEC1(asinh, float) SKM_VEC1(acosh, float) SKM_VEC1(log1p, float)
SKM_VEC1(asinh, double) SKM_VEC1(acosh, double) SKM_VEC1(log1p, double)

/* sinpi and cospi: Sleef's (0.506 ULP) lose accuracy for |x| beyond
 * 2^28 and near the zeros of the result, and do not give the spec's
 * signed zeros. So: reduce x by an even integer to r in [-1, 1] (exact:
 * x - 2 rint(x/2)); move r next to 0 where the result is near a zero
 * (sinpi(r) = sinpi(±1 - r), cospi(r) = sinpi(0.5 - |r|), exact
 * subtractions by Sterbenz's lemma), then Sleef; sinpi(n) =
 * copysign(0, n), cospi(n + 0.5) = +0. Within 0.506 ULP plus nothing:
 * every step before Sleef is exact. */
#define PI_FORMS(T, SIN, COS) \
  T SLEEF SIN(T); \
  T SLEEF COS(T); \
  T OVL sinpi(T x) { \
    T r = fabs(x) >= 1 ? x - 2 * rint(x * (T)0.5) : x; \
    if (fabs(r) > (T)0.5) \
      r = copysign((T)1, r) - r; \
    return x == trunc(x) && !isinf(x) ? copysign((T)0, x) : SIN(r); \
  } \
  T OVL cospi(T x) { \
    T r = fabs(fabs(x) >= 1 ? x - 2 * rint(x * (T)0.5) : x); \
    if (isinf(x)) \
      return (T)NAN; \
    return r >= (T)0.25 ? SIN((T)0.5 - r) + (T)0 : COS(r); \
  } \
  SKM_VEC1(sinpi, T) SKM_VEC1(cospi, T)
PI_FORMS(float, Sleef_sinpif_u05, Sleef_cospif_u05)
PI_FORMS(double, Sleef_sinpi_u05, Sleef_cospi_u05)

/* Sleef's float cosh, sinh and lgamma overflow a little before the
 * float range ends; their double forms, rounded once, are within
 * 0.5 + 2^-28 ULP. */
double SLEEF Sleef_cosh_u10(double);
double SLEEF Sleef_sinh_u10(double);
double SLEEF Sleef_lgamma_u10(double);
float OVL cosh(float x) { return (float)Sleef_cosh_u10(x); }
float OVL sinh(float x) { return (float)Sleef_sinh_u10(x); }
float OVL lgamma(float x) { return (float)Sleef_lgamma_u10(x); }
double OVL cosh(double x) { return Sleef_cosh_u10(x); }
double OVL sinh(double x) { return Sleef_sinh_u10(x); }
double OVL lgamma(double x) { return Sleef_lgamma_u10(x); }
SKM_VEC1(cosh, float) SKM_VEC1(sinh, float) SKM_VEC1(lgamma, float)
SKM_VEC1(cosh, double) SKM_VEC1(sinh, double) SKM_VEC1(lgamma, double)

/* tgamma(double): Sleef's (1 ULP) down to -170. Below, where gamma's
 * values are under 2^-1000 (the poles aside), Sleef's lost up to 1 %
 * (-9.9553e-310 for -1.00444e-309 at x = -177 + 2^-45; CTS
 * math_brute_force: 1621 ULP at -172 - 2^-39) and gave 0 for results
 * like 5.6e-312, and dropped the sign of an underflowed result.
 * There, the reflection gamma(x) = pi / (sinpi(x) z gamma(z)), z = -x,
 * with gamma(z) = P gamma(z - 16), P = (z - 1) (z - 2) ... (z - 16) kept
 * in double-double, since gamma(z) itself overflows past z = 171.6:
 * every z - j is exact (z < 2^53 is not an integer there), so the error
 * is sinpi's 0.506 ULP, gamma(z - 16)'s 1 and four roundings, within 4
 * ULP (the bound is 16); gamma(z - 16) overflows where the result is
 * below the smallest subnormal, giving a zero of the right sign. sinpi
 * is the builtin above, not Sleef's, which gives 0 for non-integers
 * past 2^27 (x = -2^27.9 - 2^-16 made a NaN).
 * Computed for every x and selected, so that a vectorised loop calling
 * tgamma stays vectorised (Sleef's vector forms, no branch). The bound
 * is a double that neither half nor float holds, so that LLVM keeps the
 * comparison in double: with -170.0 it became a compare of halves for
 * half3 callers, and AVX-512 FP16 code of test-builtins-half's tgamma3
 * gave -inf in some lanes for 208.75 and 300.5 (right with
 * SKEIN_NO_SCALARIZE=1, without FP16, in AVX2 code, in fiber mode; not
 * understood yet, and not reproduced in kernel source).
 * tgamma(float): Sleef's float form reaches 16 ULP for some inputs;
 * the double one rounded once is within 0.5 + 2^-28 ULP. */
double SLEEF Sleef_tgamma_u10(double);
#define PI_D 0x1.921fb54442d18p+1
static double __attribute__((overloadable, always_inline))
tgamma_far_negative(double x) {
  double z = -x;
  double ph = z - 1.0, pl = 0.0;
  for (int j = 2; j <= 16; j++) {
    double f = z - (double)j;
    double h = ph * f;
    double l = fma(ph, f, -h) + pl * f;
    ph = h + l;            /* |l| <= ulp(h): a fast two-sum */
    pl = l - (ph - h);
  }
  double r = PI_D / (sinpi(x) * z) / ph;
  r -= r * (pl / ph);      /* r / (ph + pl) */
  return r / Sleef_tgamma_u10(z - 16.0);
}
double OVL tgamma(double x) {
  double far = tgamma_far_negative(x);
  double near = Sleef_tgamma_u10(x);
  return x < -170.00000000001 && x != floor(x) ? far : near;
}
float OVL tgamma(float x) { return (float)tgamma((double)x); }
SKM_VEC1(tgamma, float) SKM_VEC1(tgamma, double)

/* fmod and remainder are exact (0 ULP). Sleef's return NaN for y below
 * 1.5 2^-1022 and when x / y overflows. float: Sleef's double forms,
 * where neither can happen (and the result is still exact). double: in
 * those ranges, fmod by long division of the integer significands
 * (exact, at most 2098 steps), and remainder from fmod(|x|, 2|y|). */
double SLEEF Sleef_fmod(double, double);
double SLEEF Sleef_remainder(double, double);
float OVL fmod(float x, float y) { return (float)Sleef_fmod(x, y); }
float OVL remainder(float x, float y) { return (float)Sleef_remainder(x, y); }

/* True where Sleef's double fmod/remainder fail (finite x, finite
 * nonzero y). */
static bool __attribute__((overloadable, always_inline))
sleef_fmod_fails(double x, double y) {
  double ax = fabs(x), ay = fabs(y);
  return isfinite(ax) && ay != 0 && isfinite(ay) && ax != 0 &&
         (ay < 0x1p-1000 || ilogb(ax) - ilogb(ay) > 1000);
}

/* fmod(ax, ay) for finite ax > 0, ay > 0: shift-and-subtract of the
 * 53-bit significands, one exponent step at a time. */
static double __attribute__((overloadable))
fmod_long_division(double ax, double ay) {
  int ex = ilogb(ax), ey = ilogb(ay);
  if (ex < ey)
    return ax;
  ulong mx = (ulong)ldexp(ax, 52 - ex), my = (ulong)ldexp(ay, 52 - ey);
  for (; ex > ey; ex--) {
    if (mx >= my)
      mx -= my;
    mx <<= 1;
  }
  if (mx >= my)
    mx -= my;
  return ldexp((double)mx, ey - 52);   /* exact: a multiple of y's unit */
}

double OVL fmod(double x, double y) {
  if (!sleef_fmod_fails(x, y))
    return Sleef_fmod(x, y);
  return copysign(fmod_long_division(fabs(x), fabs(y)), x);
}
double OVL remainder(double x, double y) {
  if (!sleef_fmod_fails(x, y))
    return Sleef_remainder(x, y);
  double ay = fabs(y);
  /* r2 = |x| mod 2|y| tells the parity of the quotient. */
  double r2 = ay > DBL_MAX / 2 ? fabs(x)
                               : fmod_long_division(fabs(x), 2 * ay);
  bool odd = r2 >= ay;
  double r = odd ? r2 - ay : r2;   /* exact (Sterbenz) */
  if (r > ay - r || (r == ay - r && odd))
    r -= ay;                       /* exact (Sterbenz) */
  return signbit(x) ? -r : r;
}
SKM_VEC2(fmod, float) SKM_VEC2(remainder, float)
SKM_VEC2(fmod, double) SKM_VEC2(remainder, double)
