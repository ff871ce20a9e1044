/* This file contains the common builtins (OpenCL C 3.0 section 6.15.4)
 * for float and double: min, max, clamp, mix, step, degrees, radians. */
#include "builtins.h"

#define COMMON(T, S) \
  T OVL min(T x, T y) { return y < x ? y : x; } \
  T OVL max(T x, T y) { return x < y ? y : x; } \
  T OVL clamp(T x, T lo, T hi) { return min(max(x, lo), hi); } \
  T OVL mix(T x, T y, T a) { return x + (y - x) * a; } \
  T OVL step(T edge, T x) { return x < edge ? (T)(0) : (T)(1); } \
  T OVL degrees(T r) { return r * (T)(57.295779513082320876798154814105); } \
  T OVL radians(T d) { return d * (T)(0.017453292519943295769236907684886); }
SK_FLOATS(COMMON)

/* The forms with a scalar second operand broadcast it. */
#define COMMON_SCALAR(T, S) \
  T OVL min(T x, S y) { return min(x, (T)(y)); } \
  T OVL max(T x, S y) { return max(x, (T)(y)); } \
  T OVL clamp(T x, S lo, S hi) { return clamp(x, (T)(lo), (T)(hi)); } \
  T OVL mix(T x, T y, S a) { return mix(x, y, (T)(a)); } \
  T OVL step(S edge, T x) { return step((T)(edge), x); }
SK_FLOAT_VECS(COMMON_SCALAR)
