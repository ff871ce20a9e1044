/* This file contains the geometric builtins (OpenCL C 3.0 section 6.15.5):
 * cross, dot, distance, length, normalize for half, float and double of 1 to 4
 * elements, and fast_distance, fast_length, fast_normalize for float. */
#include "builtins.h"

/* Sums and maxima across the n elements of a vector m. */
#define HSUM_1(m) (m)
#define HSUM_2(m) ((m).x + (m).y)
#define HSUM_3(m) ((m).x + (m).y + (m).z)
#define HSUM_4(m) (((m).x + (m).y) + ((m).z + (m).w))
#define MAX2(a, b) __builtin_elementwise_max(a, b)
#define HMAX_1(m) (m)
#define HMAX_2(m) MAX2((m).x, (m).y)
#define HMAX_3(m) MAX2(MAX2((m).x, (m).y), (m).z)
#define HMAX_4(m) MAX2(MAX2((m).x, (m).y), MAX2((m).z, (m).w))

/* length and normalize must neither overflow nor lose precision to
 * underflow (section 7.5.1): the vector is scaled by a power of two
 * (exactly) that brings its largest magnitude m into [1, 4), so no square
 * overflows, and every element that is not negligible for the sum keeps
 * its full precision (normalize returns each element divided by the
 * length, so even tiny elements must not become subnormal before the
 * division). A subnormal m is first multiplied by PRE (2^64 or 2^200);
 * the exponent E of the then-normal m is read from its bits and capped so
 * that 2^-E stays a normal number. An infinite or NaN m gives a scale
 * that keeps the infinity or NaN (the callers deal with those). */
#define PRE_float(m) ((m) < 0x1p-100f ? 0x1p64f : 1.0f)
#define UNPRE_float(m) ((m) < 0x1p-100f ? 0x1p-64f : 1.0f)
#define EXP_float(m) \
  __builtin_elementwise_min(((__builtin_astype(m, int) >> 23) & 0xff) - 127, \
                            126)
#define POW2_float(e) __builtin_astype((127 + (e)) << 23, float)
#define PRE_double(m) ((m) < 0x1p-900 ? 0x1p200 : 1.0)
#define UNPRE_double(m) ((m) < 0x1p-900 ? 0x1p-200 : 1.0)
#define EXP_double(m) \
  __builtin_elementwise_min( \
      ((__builtin_astype(m, long) >> 52) & 0x7ff) - 1023, 1022L)
#define POW2_double(e) __builtin_astype((1023 + (e)) << 52, double)

#define GEOMETRIC(T, S, N) \
  S OVL dot(T p0, T p1) { T m = p0 * p1; return HSUM_##N(m); } \
  S OVL length(T p) { \
    S m = HMAX_##N(__builtin_elementwise_abs(p)); \
    S pre = PRE_##S(m); \
    __typeof__(EXP_##S(m)) e = EXP_##S(m * pre); \
    T q = p * pre * POW2_##S(-e); \
    S l = __builtin_elementwise_sqrt(dot(q, q)) * POW2_##S(e); \
    return l * UNPRE_##S(m); \
  } \
  S OVL distance(T p0, T p1) { return length(p0 - p1); } \
  T OVL normalize(T p) { \
    T a = __builtin_elementwise_abs(p); \
    /* With an infinite element, every infinity becomes +-1 and every \
     * other element +-0 (a NaN stays a NaN). */ \
    T unit = a == (T)(INFINITY) ? __builtin_elementwise_copysign((T)(1), p) \
                                : p * (T)(0); \
    p = HMAX_##N(a) == (S)(INFINITY) ? unit : p; \
    a = __builtin_elementwise_abs(p); \
    S m = HMAX_##N(a); \
    S pre = PRE_##S(m); \
    T q = p * pre * POW2_##S(-EXP_##S(m * pre)); \
    T r = q / __builtin_elementwise_sqrt(dot(q, q)); \
    /* The zero vector is returned as is; a NaN makes the sum a NaN and \
     * so every element of r. */ \
    return HSUM_##N(a) == (S)(0) ? p : r; \
  }
#define GEOMETRIC_TYPE(S) GEOMETRIC(S, S, 1) GEOMETRIC(S##2, S, 2) \
  GEOMETRIC(S##3, S, 3) GEOMETRIC(S##4, S, 4)
GEOMETRIC_TYPE(float)
GEOMETRIC_TYPE(double)

/* The fast_ forms may lose precision (8192 ulp) and may overflow: the
 * plain sum of squares, with a correctly rounded square root. A sum of
 * squares that underflows to 0 returns p, as the specification allows
 * for sums below FLT_MIN. */
#define FAST_GEOMETRIC(T, S, N) \
  S OVL fast_length(T p) { return __builtin_elementwise_sqrt(dot(p, p)); } \
  S OVL fast_distance(T p0, T p1) { return fast_length(p0 - p1); } \
  T OVL fast_normalize(T p) { \
    S d = dot(p, p); \
    return d == (S)(0) ? p : p * ((S)(1) / __builtin_elementwise_sqrt(d)); \
  }
FAST_GEOMETRIC(float, float, 1) FAST_GEOMETRIC(float2, float, 2)
FAST_GEOMETRIC(float3, float, 3) FAST_GEOMETRIC(float4, float, 4)

/* cross of p0.xyz and p1.xyz; the w element of a 4-vector result is 0. */
#define CROSS(S) \
  S##3 OVL cross(S##3 a, S##3 b) { \
    return (S##3)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, \
                  a.x * b.y - a.y * b.x); \
  } \
  S##4 OVL cross(S##4 a, S##4 b) { \
    return (S##4)(cross(a.xyz, b.xyz), (S)(0)); \
  }
CROSS(float)
CROSS(double)

/* half: the float functions on the (exactly) converted vectors, rounded
 * once to half. The float results are within a few float ULP (2^-13 half
 * ULP each), far inside the half bounds (dot and cross: products of
 * halves are exact in float; length 0.25 + 0.5n, normalize 1 + n,
 * distance 2n ULP), and the float forms already avoid overflow and
 * underflow of the intermediate sums. */
#define HCV(x, T) __builtin_convertvector(x, T)
#define GEOMETRIC_HALF_N(N) \
  half OVL dot(half##N a, half##N b) { \
    return (half)dot(HCV(a, float##N), HCV(b, float##N)); \
  } \
  half OVL length(half##N p) { return (half)length(HCV(p, float##N)); } \
  half OVL distance(half##N a, half##N b) { \
    return (half)distance(HCV(a, float##N), HCV(b, float##N)); \
  } \
  half##N OVL normalize(half##N p) { \
    return HCV(normalize(HCV(p, float##N)), half##N); \
  }
half OVL dot(half a, half b) { return (half)dot((float)a, (float)b); }
half OVL length(half p) { return (half)length((float)p); }
half OVL distance(half a, half b) {
  return (half)distance((float)a, (float)b);
}
half OVL normalize(half p) { return (half)normalize((float)p); }
GEOMETRIC_HALF_N(2) GEOMETRIC_HALF_N(3) GEOMETRIC_HALF_N(4)
half3 OVL cross(half3 a, half3 b) {
  return HCV(cross(HCV(a, float3), HCV(b, float3)), half3);
}
half4 OVL cross(half4 a, half4 b) {
  return HCV(cross(HCV(a, float4), HCV(b, float4)), half4);
}
