/* This file contains the common builtins (OpenCL C 3.0 section 6.15.4)
 * for half, float and double, scalar and vector: min, max, clamp, mix, step,
 * smoothstep, sign, degrees and radians, with the forms that take a scalar
 * for the vector functions' other operands. */
#include "builtins.h"

/* min and max are specified by comparison (y if x < y, ...); clamp is
 * specified as fmin(fmax(x, minval), maxval), which LLVM's maxnum and
 * minnum are (a NaN operand yields the other one). sign keeps the sign of
 * a zero and maps a NaN to 0.0. */
#define COMMON(T, S) \
  T OVL min(T x, T y) { return y < x ? y : x; } \
  T OVL max(T x, T y) { return x < y ? y : x; } \
  T OVL clamp(T x, T lo, T hi) { \
    return __builtin_elementwise_min(__builtin_elementwise_max(x, lo), hi); \
  } \
  T OVL mix(T x, T y, T a) { return x + (y - x) * a; } \
  T OVL step(T edge, T x) { return x < edge ? (T)(0) : (T)(1); } \
  T OVL smoothstep(T edge0, T edge1, T x) { \
    T t = clamp((x - edge0) / (edge1 - edge0), (T)(0), (T)(1)); \
    return t * t * ((T)(3) - (T)(2) * t); \
  } \
  T OVL sign(T x) { \
    T one = __builtin_elementwise_copysign((T)(1), x); \
    return x > (T)(0) || x < (T)(0) ? one : x == x ? x : (T)(0); \
  } \
  T OVL degrees(T r) { return r * (T)(57.295779513082320876798154814105); } \
  T OVL radians(T d) { return d * (T)(0.017453292519943295769236907684886); }
SK_FLOATS(COMMON)
SK_HALFS(COMMON)

/* The forms with a scalar operand broadcast it. */
#define COMMON_SCALAR(T, S) \
  T OVL min(T x, S y) { return min(x, (T)(y)); } \
  T OVL max(T x, S y) { return max(x, (T)(y)); } \
  T OVL clamp(T x, S lo, S hi) { return clamp(x, (T)(lo), (T)(hi)); } \
  T OVL mix(T x, T y, S a) { return mix(x, y, (T)(a)); } \
  T OVL step(S edge, T x) { return step((T)(edge), x); } \
  T OVL smoothstep(S edge0, S edge1, T x) { \
    return smoothstep((T)(edge0), (T)(edge1), x); \
  }
SK_FLOAT_VECS(COMMON_SCALAR)
SK_HALF_VECS(COMMON_SCALAR)
