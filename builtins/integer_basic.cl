/* This file contains the integer builtins (OpenCL C 3.0 section 6.15.3)
 * that map onto one LLVM operation: min, max, clamp, add_sat and sub_sat
 * for every integer type, scalar and vector. */
#include "builtins.h"

#define INTEGER(T, S) \
  T OVL min(T x, T y) { return __builtin_elementwise_min(x, y); } \
  T OVL max(T x, T y) { return __builtin_elementwise_max(x, y); } \
  T OVL clamp(T x, T lo, T hi) { return min(max(x, lo), hi); } \
  T OVL add_sat(T x, T y) { return __builtin_elementwise_add_sat(x, y); } \
  T OVL sub_sat(T x, T y) { return __builtin_elementwise_sub_sat(x, y); }
SK_INTS(INTEGER)

#define INTEGER_SCALAR(T, S) \
  T OVL min(T x, S y) { return min(x, (T)(y)); } \
  T OVL max(T x, S y) { return max(x, (T)(y)); } \
  T OVL clamp(T x, S lo, S hi) { return clamp(x, (T)(lo), (T)(hi)); }
SK_INT_VECS(INTEGER_SCALAR)
