/* This file contains the relational builtins (OpenCL C 3.0 section
 * 6.15.6): the is* comparisons and classifications and signbit for half,
 * float and double, any and all, bitselect and select. */
#include "builtins.h"

/* OpenCL C's own comparison operators already give what the builtins
 * return: int 0 or 1 for scalars, and 0 or -1 in the same-size integer
 * type (RT) for vectors. An ordered comparison with a NaN is false and
 * != with a NaN is true, as the specification requires. IT is the
 * integer type of T's size, for signbit. */
#define RELATIONAL(T, RT, IT, S) \
  RT OVL isequal(T x, T y) { return x == y; } \
  RT OVL isnotequal(T x, T y) { return x != y; } \
  RT OVL isgreater(T x, T y) { return x > y; } \
  RT OVL isgreaterequal(T x, T y) { return x >= y; } \
  RT OVL isless(T x, T y) { return x < y; } \
  RT OVL islessequal(T x, T y) { return x <= y; } \
  RT OVL islessgreater(T x, T y) { return x < y || x > y; } \
  RT OVL isordered(T x, T y) { return x == x && y == y; } \
  RT OVL isunordered(T x, T y) { return x != x || y != y; } \
  RT OVL isnan(T x) { return x != x; } \
  RT OVL isfinite(T x) { \
    return __builtin_elementwise_abs(x) < (T)(INFINITY); \
  } \
  RT OVL isinf(T x) { \
    return __builtin_elementwise_abs(x) == (T)(INFINITY); \
  } \
  RT OVL isnormal(T x) { \
    T a = __builtin_elementwise_abs(x); \
    return a >= (T)(S##_MIN) && a < (T)(INFINITY); \
  } \
  RT OVL signbit(T x) { return __builtin_astype(x, IT) < (IT)(0); }
#define RELATIONAL_TYPE(T, I, S) RELATIONAL(T, int, I, S) \
  RELATIONAL(T##2, I##2, I##2, S) RELATIONAL(T##3, I##3, I##3, S) \
  RELATIONAL(T##4, I##4, I##4, S) RELATIONAL(T##8, I##8, I##8, S) \
  RELATIONAL(T##16, I##16, I##16, S)
RELATIONAL_TYPE(float, int, FLT)
RELATIONAL_TYPE(double, long, DBL)
RELATIONAL_TYPE(half, short, HALF)

/* any and all test the most significant bit: of x itself for a scalar,
 * of the OR (any) or AND (all) of the elements for a vector. */
#define ANY_ALL_1(T) \
  int OVL any(T x) { return x < (T)(0); } \
  int OVL all(T x) { return x < (T)(0); }
#define ANY_ALL_V(T) \
  int OVL any(T x) { return __builtin_reduce_or(x) < 0; } \
  int OVL all(T x) { return __builtin_reduce_and(x) < 0; }
#define ANY_ALL(T) ANY_ALL_1(T) ANY_ALL_V(T##2) ANY_ALL_V(T##3) \
  ANY_ALL_V(T##4) ANY_ALL_V(T##8) ANY_ALL_V(T##16)
ANY_ALL(char) ANY_ALL(short) ANY_ALL(int) ANY_ALL(long)

/* bitselect works on the bits, through the unsigned type UT of T's size;
 * select picks b where the most significant bit of c is set (vectors;
 * the comparison yields all-ones or zero per element) or c is non-zero
 * (scalars). ST and UT: the signed and unsigned integer types of T's
 * element size and width. */
#define AS(T, x) __builtin_astype((x), T)
#define SELECT(T, ST, UT) \
  T OVL bitselect(T a, T b, T c) { \
    UT uc = AS(UT, c); \
    return AS(T, (UT)((AS(UT, a) & (UT)(~uc)) | (AS(UT, b) & uc))); \
  } \
  T OVL select(T a, T b, ST c) { return SELECT_PICK(a, b, c, ST); } \
  T OVL select(T a, T b, UT c) { return SELECT_PICK(a, b, c, ST); }
#define SELECT_PICK(a, b, c, ST) (AS(ST, c) < (ST)(0) ? (b) : (a))
#define SELECT_SCALAR(T, ST, UT) \
  T OVL bitselect(T a, T b, T c) { \
    UT uc = AS(UT, c); \
    return AS(T, (UT)((AS(UT, a) & (UT)(~uc)) | (AS(UT, b) & uc))); \
  } \
  T OVL select(T a, T b, ST c) { return c ? b : a; } \
  T OVL select(T a, T b, UT c) { return c ? b : a; }
#define SELECT_TYPE(T, ST, UT) SELECT_SCALAR(T, ST, UT) \
  SELECT(T##2, ST##2, UT##2) SELECT(T##3, ST##3, UT##3) \
  SELECT(T##4, ST##4, UT##4) SELECT(T##8, ST##8, UT##8) \
  SELECT(T##16, ST##16, UT##16)
SELECT_TYPE(char, char, uchar) SELECT_TYPE(uchar, char, uchar)
SELECT_TYPE(short, short, ushort) SELECT_TYPE(ushort, short, ushort)
SELECT_TYPE(int, int, uint) SELECT_TYPE(uint, int, uint)
SELECT_TYPE(long, long, ulong) SELECT_TYPE(ulong, long, ulong)
SELECT_TYPE(float, int, uint) SELECT_TYPE(double, long, ulong)
SELECT_TYPE(half, short, ushort)
