/* This file contains the integer builtins (OpenCL C 3.0 section 6.15.3)
 * beyond integer_basic.cl: abs, abs_diff, hadd, rhadd, clz, ctz, popcount,
 * rotate, mul_hi, mad_hi, mad_sat, upsample, mul24 and mad24, for every
 * integer type, scalar and vector. Arithmetic that may wrap is done on the
 * unsigned twin type, where wrapping is defined. */
#include "builtins.h"

/* M(T, ST, UT, BITS, N): T one integer type of width N; ST and UT its
 * signed and unsigned twins. */
#define SK_IW(M, T, ST, UT, B) M(T, ST, UT, B, 1) M(T##2, ST##2, UT##2, B, 2) \
  M(T##3, ST##3, UT##3, B, 3) M(T##4, ST##4, UT##4, B, 4) \
  M(T##8, ST##8, UT##8, B, 8) M(T##16, ST##16, UT##16, B, 16)
#define SK_ISIZE(M, S, U, B) SK_IW(M, S, S, U, B) SK_IW(M, U, S, U, B)
#define SK_IALL(M) SK_ISIZE(M, char, uchar, 8) SK_ISIZE(M, short, ushort, 16) \
  SK_ISIZE(M, int, uint, 32) SK_ISIZE(M, long, ulong, 64)

/* Reinterprets x (cast first to U, undoing C's integer promotion of char
 * and short scalars) as type T. */
#define AS(T, U, x) __builtin_astype((U)(x), T)

/* Applies scalar function f per element for operations Clang 19 has no
 * element-wise builtin for (vectors split into halves; LLVM's SLP pass
 * merges the lanes back into vector instructions where the target has
 * them). */
#define LIFT_2(T, f, x) (T)(f((x).s0), f((x).s1))
#define LIFT_3(T, f, x) (T)(f((x).s01), f((x).s2))
#define LIFT_4(T, f, x) (T)(f((x).lo), f((x).hi))
#define LIFT_8 LIFT_4
#define LIFT_16 LIFT_4
#define LIFT2_2(T, f, x, y) (T)(f((x).s0, (y).s0), f((x).s1, (y).s1))
#define LIFT2_3(T, f, x, y) (T)(f((x).s01, (y).s01), f((x).s2, (y).s2))
#define LIFT2_4(T, f, x, y) (T)(f((x).lo, (y).lo), f((x).hi, (y).hi))
#define LIFT2_8 LIFT2_4
#define LIFT2_16 LIFT2_4
#define LIFT3_2(T, f, x, y, z) \
  (T)(f((x).s0, (y).s0, (z).s0), f((x).s1, (y).s1, (z).s1))
#define LIFT3_3(T, f, x, y, z) \
  (T)(f((x).s01, (y).s01, (z).s01), f((x).s2, (y).s2, (z).s2))
#define LIFT3_4(T, f, x, y, z) \
  (T)(f((x).lo, (y).lo, (z).lo), f((x).hi, (y).hi, (z).hi))
#define LIFT3_8 LIFT3_4
#define LIFT3_16 LIFT3_4

/* Converts x to type W: a cast for scalars, convertvector for vectors. */
#define CV_1(x, W) ((W)(x))
#define CV_2(x, W) __builtin_convertvector((x), W)
#define CV_3 CV_2
#define CV_4 CV_2
#define CV_8 CV_2
#define CV_16 CV_2

/* The operations expressible on whole vectors. hadd and rhadd add the
 * halves, so the intermediate sum cannot overflow. The comparison x < 0
 * is false for unsigned T, where abs is the identity. */
#define INT_ARITH(T, ST, UT, B, N) \
  UT OVL abs(T x) { \
    UT u = AS(UT, T, x); \
    return x < (T)(0) ? (UT)(-u) : u; \
  } \
  UT OVL abs_diff(T x, T y) { \
    UT ux = AS(UT, T, x), uy = AS(UT, T, y); \
    return x > y ? (UT)(ux - uy) : (UT)(uy - ux); \
  } \
  T OVL hadd(T x, T y) { return (T)((x >> 1) + (y >> 1) + (x & y & (T)(1))); } \
  T OVL rhadd(T x, T y) { \
    return (T)((x >> 1) + (y >> 1) + ((x | y) & (T)(1))); \
  } \
  /* Shift counts are taken modulo the width, as for << and >>. */ \
  T OVL rotate(T v, T i) { \
    UT u = AS(UT, T, v), n = AS(UT, T, i) & (UT)(B - 1); \
    return AS(T, UT, (u << n) | (u >> (((UT)(B) - n) & (UT)(B - 1)))); \
  }
SK_IALL(INT_ARITH)

/* Bit counts: Clang's type-generic scalar builtins (the fallback names
 * the result for 0), lifted per element for vectors. */
#define BITS_1(T, ST, UT, B) \
  T OVL clz(T x) { return (T)__builtin_clzg((UT)(x), (int)(B)); } \
  T OVL ctz(T x) { return (T)__builtin_ctzg((UT)(x), (int)(B)); } \
  T OVL popcount(T x) { return (T)__builtin_popcountg((UT)(x)); }
#define BITS_V(T, N) \
  T OVL clz(T x) { return LIFT_##N(T, clz, x); } \
  T OVL ctz(T x) { return LIFT_##N(T, ctz, x); } \
  T OVL popcount(T x) { return LIFT_##N(T, popcount, x); }
#define BITS(T, ST, UT, B, N) BITS_##N(T, ST, UT, B)
#define BITS_2(T, ST, UT, B) BITS_V(T, 2)
#define BITS_3(T, ST, UT, B) BITS_V(T, 3)
#define BITS_4(T, ST, UT, B) BITS_V(T, 4)
#define BITS_8(T, ST, UT, B) BITS_V(T, 8)
#define BITS_16(T, ST, UT, B) BITS_V(T, 16)
SK_IALL(BITS)

/* mad_hi adds on the unsigned twin: the sum wraps (only the product's
 * high half is specified, the addition is the ordinary one). */
#define MAD_HI(T, ST, UT, B, N) \
  T OVL mad_hi(T a, T b, T c) { \
    return AS(T, UT, AS(UT, T, mul_hi(a, b)) + AS(UT, T, c)); \
  }

/* Types up to 32 bits: the full product fits the double-width type W,
 * and so does a * b + c, which mad_sat then clamps to T's range. */
#define NARROW_MUL(T, ST, UT, B, N, W, LO, HI) \
  T OVL mul_hi(T x, T y) { \
    return CV_##N((CV_##N(x, W) * CV_##N(y, W)) >> B, T); \
  } \
  T OVL mad_sat(T a, T b, T c) { \
    W p = CV_##N(a, W) * CV_##N(b, W) + CV_##N(c, W); \
    p = __builtin_elementwise_max(p, (W)(LO)); \
    return CV_##N(__builtin_elementwise_min(p, (W)(HI)), T); \
  } \
  MAD_HI(T, ST, UT, B, N)
#define NARROW_MUL_W(T, ST, UT, B, N, WS, LO, HI) \
  NARROW_MUL(T, ST, UT, B, N, WS##N, LO, HI)
#define NARROW_MUL_SIZE(S, U, B, WS, WU, SMIN, SMAX, UMAX) \
  NARROW_MUL(S, S, U, B, 1, WS, SMIN, SMAX) \
  NARROW_MUL(U, S, U, B, 1, WU, 0, UMAX) \
  NARROW_MUL(S##2, S##2, U##2, B, 2, WS##2, SMIN, SMAX) \
  NARROW_MUL(U##2, S##2, U##2, B, 2, WU##2, 0, UMAX) \
  NARROW_MUL(S##3, S##3, U##3, B, 3, WS##3, SMIN, SMAX) \
  NARROW_MUL(U##3, S##3, U##3, B, 3, WU##3, 0, UMAX) \
  NARROW_MUL(S##4, S##4, U##4, B, 4, WS##4, SMIN, SMAX) \
  NARROW_MUL(U##4, S##4, U##4, B, 4, WU##4, 0, UMAX) \
  NARROW_MUL(S##8, S##8, U##8, B, 8, WS##8, SMIN, SMAX) \
  NARROW_MUL(U##8, S##8, U##8, B, 8, WU##8, 0, UMAX) \
  NARROW_MUL(S##16, S##16, U##16, B, 16, WS##16, SMIN, SMAX) \
  NARROW_MUL(U##16, S##16, U##16, B, 16, WU##16, 0, UMAX)
NARROW_MUL_SIZE(char, uchar, 8, short, ushort, CHAR_MIN, CHAR_MAX, UCHAR_MAX)
NARROW_MUL_SIZE(short, ushort, 16, int, uint, SHRT_MIN, SHRT_MAX, USHRT_MAX)
NARROW_MUL_SIZE(int, uint, 32, long, ulong, INT_MIN, INT_MAX, UINT_MAX)

/* 64-bit types: the product in 128 bits, per element for vectors. */
#define WIDE_MUL_1(T, W, LO, HI) \
  T OVL mul_hi(T x, T y) { return (T)(((W)x * (W)y) >> 64); } \
  T OVL mad_sat(T a, T b, T c) { \
    W p = (W)a * (W)b + (W)c; \
    return (T)(p < (W)(LO) ? (W)(LO) : p > (W)(HI) ? (W)(HI) : p); \
  }
#define WIDE_MUL_V(T, ST, UT, N) \
  T OVL mul_hi(T x, T y) { return LIFT2_##N(T, mul_hi, x, y); } \
  T OVL mad_sat(T a, T b, T c) { return LIFT3_##N(T, mad_sat, a, b, c); } \
  MAD_HI(T, ST, UT, 64, N)
WIDE_MUL_1(long, __int128, LONG_MIN, LONG_MAX)
WIDE_MUL_1(ulong, unsigned __int128, 0, ULONG_MAX)
MAD_HI(long, long, ulong, 64, 1)
MAD_HI(ulong, long, ulong, 64, 1)
#define WIDE_MUL_SIZE(N) WIDE_MUL_V(long##N, long##N, ulong##N, N) \
  WIDE_MUL_V(ulong##N, long##N, ulong##N, N)
WIDE_MUL_SIZE(2) WIDE_MUL_SIZE(3) WIDE_MUL_SIZE(4) WIDE_MUL_SIZE(8)
WIDE_MUL_SIZE(16)

/* upsample(hi, lo): hi converted (sign- or zero-extended) to the result
 * type W, shifted on its unsigned twin UW, lo zero-extended below it. */
#define UPSAMPLE(H, L, W, UW, B, N) \
  W OVL upsample(H hi, L lo) { \
    UW h = AS(UW, W, CV_##N(hi, W)); \
    return AS(W, UW, (UW)(h << B) | CV_##N(lo, UW)); \
  }
#define UPSAMPLE_W(S, U, WS, WU, B, N) UPSAMPLE(S, U, WS, WU, B, N) \
  UPSAMPLE(U, U, WU, WU, B, N)
#define UPSAMPLE_SIZE(S, U, WS, WU, B) UPSAMPLE_W(S, U, WS, WU, B, 1) \
  UPSAMPLE_W(S##2, U##2, WS##2, WU##2, B, 2) \
  UPSAMPLE_W(S##3, U##3, WS##3, WU##3, B, 3) \
  UPSAMPLE_W(S##4, U##4, WS##4, WU##4, B, 4) \
  UPSAMPLE_W(S##8, U##8, WS##8, WU##8, B, 8) \
  UPSAMPLE_W(S##16, U##16, WS##16, WU##16, B, 16)
UPSAMPLE_SIZE(char, uchar, short, ushort, 8)
UPSAMPLE_SIZE(short, ushort, int, uint, 16)
UPSAMPLE_SIZE(int, uint, long, ulong, 32)

/* mul24 uses only the low 24 bits of each operand (sign-extended for
 * int), multiplied with 32-bit wrapping: in the specified operand range
 * that is the exact product's low 32 bits. */
#define MUL24(T, UT) \
  T OVL mul24(T x, T y) { \
    T sx = AS(T, UT, AS(UT, T, x) << 8) >> 8; \
    T sy = AS(T, UT, AS(UT, T, y) << 8) >> 8; \
    return AS(T, UT, AS(UT, T, sx) * AS(UT, T, sy)); \
  } \
  T OVL mad24(T x, T y, T z) { \
    return AS(T, UT, AS(UT, T, mul24(x, y)) + AS(UT, T, z)); \
  }
#define MUL24_W(S, U) MUL24(S, U) MUL24(U, U)
MUL24_W(int, uint) MUL24_W(int2, uint2) MUL24_W(int3, uint3)
MUL24_W(int4, uint4) MUL24_W(int8, uint8) MUL24_W(int16, uint16)
