/* This file contains the integer builtins (OpenCL C 3.0 section 6.15.3)
 * that map onto one LLVM operation: min, max, clamp, add_sat and sub_sat
 * for every integer type, scalar and vector. */
#include "builtins.h"

#define INTEGER(T, S) \
  T OVL min(T x, T y) { return __builtin_elementwise_min(x, y); } \
  T OVL max(T x, T y) { return __builtin_elementwise_max(x, y); } \
  T OVL clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }
SK_INTS(INTEGER)

#define SATURATING(T, S) \
  T OVL add_sat(T x, T y) { return __builtin_elementwise_add_sat(x, y); } \
  T OVL sub_sat(T x, T y) { return __builtin_elementwise_sub_sat(x, y); }
SK_VECS_ONLY(SATURATING, char) SK_VECS_ONLY(SATURATING, uchar)
SK_VECS_ONLY(SATURATING, short) SK_VECS_ONLY(SATURATING, ushort)
SK_VECS(SATURATING, int) SK_VECS(SATURATING, uint)
SK_VECS(SATURATING, long) SK_VECS(SATURATING, ulong)

/* Clang promotes char and short scalar operands of the element-wise
 * builtins to int, where nothing saturates: those scalars go through a
 * one-lane-used vector of their own type. */
#define SATURATING_NARROW(T) \
  T OVL add_sat(T x, T y) { \
    return __builtin_elementwise_add_sat((T##2)(x), (T##2)(y)).s0; \
  } \
  T OVL sub_sat(T x, T y) { \
    return __builtin_elementwise_sub_sat((T##2)(x), (T##2)(y)).s0; \
  }
SATURATING_NARROW(char) SATURATING_NARROW(uchar)
SATURATING_NARROW(short) SATURATING_NARROW(ushort)

#define INTEGER_SCALAR(T, S) \
  T OVL min(T x, S y) { return min(x, (T)(y)); } \
  T OVL max(T x, S y) { return max(x, (T)(y)); } \
  T OVL clamp(T x, S lo, S hi) { return clamp(x, (T)(lo), (T)(hi)); }
SK_INT_VECS(INTEGER_SCALAR)
