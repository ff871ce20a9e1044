/* This file contains the basic math builtins (OpenCL C 3.0 section 6.15.2)
 * that map onto one LLVM operation: mad, fma, fabs, sqrt, rsqrt, rounding,
 * copysign, fmin/fmax and fdim, for float and double, scalar and vector. */
#include "builtins.h"

/* mad may trade accuracy for speed: a * b + c, contracted (llvm.fmuladd),
 * is one fused instruction where the target has FMA (as exact as fma and
 * as fast as a multiply) and a multiply and an add where it has not
 * (x86-64-v2), where llvm.fma would be a call of fmaf per lane. */
#pragma OPENCL FP_CONTRACT ON
#define TERNARY(T, S) \
  T OVL mad(T a, T b, T c) { return a * b + c; } \
  T OVL fma(T a, T b, T c) { return __builtin_elementwise_fma(a, b, c); }
SK_FLOATS(TERNARY)

#define UNARY(T, S) \
  T OVL fabs(T x) { return __builtin_elementwise_abs(x); } \
  T OVL sqrt(T x) { return __builtin_elementwise_sqrt(x); } \
  T OVL rsqrt(T x) { return (T)(1) / __builtin_elementwise_sqrt(x); } \
  T OVL floor(T x) { return __builtin_elementwise_floor(x); } \
  T OVL ceil(T x) { return __builtin_elementwise_ceil(x); } \
  T OVL trunc(T x) { return __builtin_elementwise_trunc(x); } \
  T OVL round(T x) { return __builtin_elementwise_round(x); } \
  T OVL rint(T x) { return __builtin_elementwise_rint(x); }
SK_FLOATS(UNARY)

/* fmin/fmax return the other operand when one is a NaN: LLVM's minnum. */
#define BINARY(T, S) \
  T OVL copysign(T x, T y) { return __builtin_elementwise_copysign(x, y); } \
  T OVL fmin(T x, T y) { return __builtin_elementwise_min(x, y); } \
  T OVL fmax(T x, T y) { return __builtin_elementwise_max(x, y); } \
  T OVL fdim(T x, T y) { \
    return x > y ? x - y : (x != x || y != y) ? (x + y) : (T)(0); \
  }
SK_FLOATS(BINARY)

#define BINARY_SCALAR(T, S) \
  T OVL fmin(T x, S y) { return fmin(x, (T)(y)); } \
  T OVL fmax(T x, S y) { return fmax(x, (T)(y)); }
SK_FLOAT_VECS(BINARY_SCALAR)
