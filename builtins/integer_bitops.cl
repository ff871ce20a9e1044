/* This file contains the cl_khr_extended_bit_ops builtins (OpenCL C 3.0
 * section 6.15.3.1): bitfield_insert, bitfield_extract_signed/unsigned and
 * bit_reverse for every integer type, scalar and vector. Clang 19 declares
 * none of them under -fdeclare-opencl-builtins (only its opencl-c.h has
 * them), so a program must declare them until the compiler does. */
#include "builtins.h"

#define SK_IW(M, T, ST, UT, B) M(T, ST, UT, B) M(T##2, ST##2, UT##2, B) \
  M(T##3, ST##3, UT##3, B) M(T##4, ST##4, UT##4, B) \
  M(T##8, ST##8, UT##8, B) M(T##16, ST##16, UT##16, B)
#define SK_ISIZE(M, S, U, B) SK_IW(M, S, S, U, B) SK_IW(M, U, S, U, B)
#define SK_IALL(M) SK_ISIZE(M, char, uchar, 8) SK_ISIZE(M, short, ushort, 16) \
  SK_ISIZE(M, int, uint, 32) SK_ISIZE(M, long, ulong, 64)

/* Reinterprets x, cast first to U (undoing integer promotion), as T. */
#define AS(T, U, x) __builtin_astype((U)(x), T)

/* All work on the unsigned twin UT. count == 0 is tested apart because a
 * shift by the full width is taken modulo the width in OpenCL C; with
 * count >= 1 every shift amount below is in [0, B - 1] when offset +
 * count <= B (other arguments are undefined by the specification). */
#define BITOPS(T, ST, UT, B) \
  T OVL bitfield_insert(T base, T insert, uint offset, uint count) { \
    UT ones = (UT)(~(UT)(0)); \
    UT mask = (UT)((UT)(ones >> (B - count)) << offset); \
    mask = count == 0 ? (UT)(0) : mask; \
    UT ins = (UT)(AS(UT, T, insert) << offset); \
    return AS(T, UT, (AS(UT, T, base) & (UT)(~mask)) | (ins & mask)); \
  } \
  ST OVL bitfield_extract_signed(T base, uint offset, uint count) { \
    UT top = (UT)(AS(UT, T, base) << (B - count - offset)); \
    ST r = (ST)(AS(ST, UT, top) >> (B - count)); \
    return count == 0 ? (ST)(0) : r; \
  } \
  UT OVL bitfield_extract_unsigned(T base, uint offset, uint count) { \
    UT top = (UT)(AS(UT, T, base) << (B - count - offset)); \
    UT r = (UT)(top >> (B - count)); \
    return count == 0 ? (UT)(0) : r; \
  }
SK_IALL(BITOPS)

/* Clang promotes char and short scalars given to its element-wise
 * builtins to int: scalars use the fixed-width builtins. */
#define BIT_REVERSE_V(T) \
  T OVL bit_reverse(T base) { return __builtin_elementwise_bitreverse(base); }
#define BIT_REVERSE(S, U, B) \
  S OVL bit_reverse(S base) { return (S)__builtin_bitreverse##B(base); } \
  U OVL bit_reverse(U base) { return (U)__builtin_bitreverse##B(base); } \
  BIT_REVERSE_V(S##2) BIT_REVERSE_V(S##3) BIT_REVERSE_V(S##4) \
  BIT_REVERSE_V(S##8) BIT_REVERSE_V(S##16) BIT_REVERSE_V(U##2) \
  BIT_REVERSE_V(U##3) BIT_REVERSE_V(U##4) BIT_REVERSE_V(U##8) \
  BIT_REVERSE_V(U##16)
BIT_REVERSE(char, uchar, 8) BIT_REVERSE(short, ushort, 16)
BIT_REVERSE(int, uint, 32) BIT_REVERSE(long, ulong, 64)
