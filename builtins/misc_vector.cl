/* This file contains the miscellaneous vector builtins (OpenCL C 3.0
 * section 6.15.9): shuffle and shuffle2 for every element type and every
 * pair of source and mask widths 2, 4, 8, 16. vec_step is an operator of
 * the language and needs nothing here. */
#include "builtins.h"

/* Only the low log2(M) bits (shuffle) or log2(2M) bits (shuffle2) of each
 * mask element select; the rest are ignored. The loops unroll fully, so
 * each result element is one variable-index element extraction. */
#define SHUFFLE(E, U, M, N) \
  E##N OVL shuffle(E##M x, U##N mask) { \
    E##N r; \
    for (int i = 0; i < N; i++) \
      r[i] = x[mask[i] & (U)(M - 1)]; \
    return r; \
  } \
  E##N OVL shuffle2(E##M x, E##M y, U##N mask) { \
    E##N r; \
    for (int i = 0; i < N; i++) { \
      U k = mask[i] & (U)(2 * M - 1); \
      r[i] = k < M ? x[k] : y[k - M]; \
    } \
    return r; \
  }
#define SHUFFLE_M(E, U, M) SHUFFLE(E, U, M, 2) SHUFFLE(E, U, M, 4) \
  SHUFFLE(E, U, M, 8) SHUFFLE(E, U, M, 16)
#define SHUFFLE_TYPE(E, U) SHUFFLE_M(E, U, 2) SHUFFLE_M(E, U, 4) \
  SHUFFLE_M(E, U, 8) SHUFFLE_M(E, U, 16)
SHUFFLE_TYPE(char, uchar) SHUFFLE_TYPE(uchar, uchar)
SHUFFLE_TYPE(short, ushort) SHUFFLE_TYPE(ushort, ushort)
SHUFFLE_TYPE(int, uint) SHUFFLE_TYPE(uint, uint)
SHUFFLE_TYPE(long, ulong) SHUFFLE_TYPE(ulong, ulong)
SHUFFLE_TYPE(float, uint) SHUFFLE_TYPE(double, ulong)
SHUFFLE_TYPE(half, ushort)
