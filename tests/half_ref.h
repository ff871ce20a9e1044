/* This file contains the host references of the half-precision tests
 * (test-builtins-half.c, exhaustive-half.c): half values through GCC's
 * _Float16, a correctly rounded rounding of an exact __float128 value to
 * half in each rounding mode, the ULP comparison of the spec's half table,
 * and the math functions libm lacks (the pi forms, powr, pown, rootn). */
#ifndef SKEIN_HALF_REF_H
#define SKEIN_HALF_REF_H

#define _GNU_SOURCE
#include "test_util.h"
#include <limits.h>
#include <math.h>
#include <stdint.h>

typedef long double (*hr_fn1)(long double);
typedef long double (*hr_fn2)(long double, long double);
typedef long double (*hr_fni)(long double, int);

enum hr_mode { HR_RTE, HR_RTZ, HR_RTP, HR_RTN };

static inline long double hr_val(uint16_t b) {
  _Float16 h;
  memcpy(&h, &b, 2);
  return (long double)(float)h;
}
static inline uint16_t hr_bits_of(_Float16 h) {
  uint16_t b;
  memcpy(&b, &h, 2);
  return b;
}
static inline int hr_isnan(uint16_t b) { return (b & 0x7fff) > 0x7c00; }

/* v rounded to half in mode (v exact: no earlier rounding). Integer
 * arithmetic on the scaled value: n units of the half ULP at |v| plus a
 * fraction decide the rounding; overflow as IEEE 754 says per mode. */
static inline uint16_t hr_round(__float128 v, enum hr_mode mode) {
  if (v != v)
    return 0x7e00;
  int neg = v < 0 || (v == 0 && signbit((long double)v));
  __float128 a = neg ? -v : v;
  uint16_t sign = neg ? 0x8000 : 0;
  if (a == 0 || a > (__float128)1e300)   /* zero or infinity: exact */
    return sign | (a == 0 ? 0 : 0x7c00);
  int e = -14;   /* exponent of the half binade of a, at least -14 */
  while (e < 17 && a >= (__float128)ldexpl(1.0L, e + 1))
    e++;
  __float128 unit = (__float128)ldexpl(1.0L, e - 10);
  __float128 q = a / unit;   /* exact: a power-of-two scaling */
  if (q >= (__float128)1e15)
    q = (__float128)1e15;    /* far beyond the half range */
  long long n = (long long)q;
  __float128 frac = q - (__float128)n;
  int up = 0;
  if (mode == HR_RTE)
    up = frac > 0.5 || (frac == 0.5 && (n & 1));
  else if (mode == HR_RTP)
    up = frac > 0 && !neg;
  else if (mode == HR_RTN)
    up = frac > 0 && neg;
  long double m = ldexpl((long double)(n + up), e - 10);
  if (m > 65504.0L) {
    int to_inf = mode == HR_RTE || (mode == HR_RTP && !neg) ||
                 (mode == HR_RTN && neg);
    return sign | (to_inf ? 0x7c00 : 0x7bff);
  }
  return sign | hr_bits_of((_Float16)(float)m);   /* m is a half value */
}

/* The size of a half ULP at v. */
static inline long double hr_ulp(long double v) {
  int e;
  frexpl(v, &e);
  return ldexpl(1.0L, (e - 1 < -14 ? -14 : e - 1) - 10);
}

/* Whether got is within tol half ULP of ref; tol < 0: got is exactly the
 * correct rounding of ref. NaN matches NaN; an infinity passes where ref
 * is beyond the largest half by less than tol ULP of slack; zeros must
 * agree in sign. */
static inline int hr_check(uint16_t got, long double ref, double tol) {
  long double g = hr_val(got);
  if (isnan(ref) || isnan(g))
    return isnan(ref) && isnan(g);
  if (tol < 0)
    return got == hr_round((__float128)ref, HR_RTE);
  if (isinf(g))
    return signbit(g) == signbit(ref) && fabsl(ref) + tol * 32 >= 65520;
  if (isinf(ref))
    return 0;
  if (g == 0 && ref == 0)
    return signbit(g) == signbit(ref);
  return fabsl(g - ref) <= tol * hr_ulp(ref);
}

/* fma(a, b, c) correctly rounded: exact in __float128 (113 bits cover
 * the 80 bits a product of halves plus a half can span). */
static inline uint16_t hr_fma(uint16_t a, uint16_t b, uint16_t c) {
  __float128 r = (__float128)hr_val(a) * (__float128)hr_val(b) +
                 (__float128)hr_val(c);
  long double x = hr_val(a), y = hr_val(b), z = hr_val(c);
  if (isinf(x) || isinf(y) || isinf(z) || isnan(x) || isnan(y) || isnan(z))
    return hr_round((__float128)fmal(x, y, z), HR_RTE);
  if (r == 0)   /* the sign of an exact zero sum: IEEE 754's rule */
    return hr_round((__float128)fmal(x, y, z), HR_RTE);
  return hr_round(r, HR_RTE);
}

static inline uint16_t hr_nextafter(uint16_t x, uint16_t y) {
  long double a = hr_val(x), b = hr_val(y);
  if (isnan(a) || isnan(b))
    return 0x7e00;
  if (a == b)
    return y;
  if (a == 0)
    return (uint16_t)((b < 0 ? 0x8000 : 0) | 1);
  return (uint16_t)(((a < b) == (a > 0)) ? x + 1 : x - 1);
}

/* OpenCL's FP_ILOGB0 and FP_ILOGBNAN (not glibc's). */
static inline int hr_ilogb(long double x) {
  if (x == 0)
    return INT_MIN;
  if (isnan(x) || isinf(x))
    return INT_MAX;
  return ilogbl(x);
}

#define HR_PI 3.14159265358979323846264338327950288L
static inline long double hr_acospi(long double x) { return acosl(x) / HR_PI; }
static inline long double hr_asinpi(long double x) { return asinl(x) / HR_PI; }
static inline long double hr_atanpi(long double x) { return atanl(x) / HR_PI; }
static inline long double hr_atan2pi(long double y, long double x) {
  return atan2l(y, x) / HR_PI;
}
/* The pi forms reduce x modulo 2 (exact) first; integers and half
 * integers give the spec's exact zeros and infinities. */
static inline long double hr_sinpi(long double x) {
  if (isinf(x) || isnan(x))
    return NAN;
  if (x == truncl(x))
    return copysignl(0, x);
  return sinl(HR_PI * fmodl(x, 2));
}
static inline long double hr_cospi(long double x) {
  if (isinf(x) || isnan(x))
    return NAN;
  long double r = fmodl(fabsl(x), 2);
  if (r == 0.5L || r == 1.5L)
    return 0;
  return cosl(HR_PI * r);
}
static inline long double hr_tanpi(long double x) {
  if (isinf(x) || isnan(x))
    return NAN;
  long double k = truncl(x);
  if (x == k)
    return copysignl(0, fmodl(k, 2) == 0 ? x : -x);
  long double f = floorl(x);
  if (x - f == 0.5L)
    return fmodl(f, 2) == 0 ? INFINITY : -INFINITY;
  return tanl(HR_PI * fmodl(x, 2));
}
static inline long double hr_rsqrt(long double x) { return 1 / sqrtl(x); }
static inline long double hr_maxmag(long double x, long double y) {
  return fabsl(x) > fabsl(y) ? x : fabsl(y) > fabsl(x) ? y : fmaxl(x, y);
}
static inline long double hr_minmag(long double x, long double y) {
  return fabsl(x) < fabsl(y) ? x : fabsl(y) < fabsl(x) ? y : fminl(x, y);
}
static inline long double hr_powr(long double x, long double y) {
  if (x < 0 || isnan(x) || isnan(y) || (x == 0 && y == 0) ||
      (isinf(x) && y == 0) || (x == 1 && isinf(y)))
    return NAN;
  return powl(fabsl(x), y);   /* powr(-0, y) is powr(+0, y) */
}
static inline long double hr_pown(long double x, int n) {
  return powl(x, n);
}
static inline long double hr_rootn(long double x, int n) {
  if (n == 0 || (x < 0 && !(n & 1)) || isnan(x))
    return NAN;
  long double r = powl(fabsl(x), 1.0L / n);
  return (n & 1) ? copysignl(r, x) : r;
}
static inline long double hr_ldexp(long double x, int n) {
  return ldexpl(x, n);
}

#endif
