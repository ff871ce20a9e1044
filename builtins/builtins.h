/* This file declares the macro templates every builtin family file uses
 * to expand one definition over OpenCL C's scalar and vector types. It is
 * included by the builtin family files (.cl) only (never by user kernels). */
#ifndef SKEIN_BUILTINS_H
#define SKEIN_BUILTINS_H

#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

/* Builtins are pure functions of their arguments; overloadable gives the
 * same Itanium mangling as the declarations in Clang's OpenCL headers. */
#define OVL __attribute__((overloadable, const, always_inline))

/* M(type, scalar type) for the scalar and every vector width of T. */
#define SK_VECS(M, T) M(T, T) M(T##2, T) M(T##3, T) M(T##4, T) M(T##8, T) \
  M(T##16, T)
/* Only the vector widths, for the forms that take a scalar argument. */
#define SK_VECS_ONLY(M, T) M(T##2, T) M(T##3, T) M(T##4, T) M(T##8, T) \
  M(T##16, T)

#define SK_FLOATS(M) SK_VECS(M, float) SK_VECS(M, double)
/* half (cl_khr_fp16), for the families that cover it. */
#define SK_HALFS(M) SK_VECS(M, half)
#define SK_HALF_VECS(M) SK_VECS_ONLY(M, half)
#define SK_FLOAT_VECS(M) SK_VECS_ONLY(M, float) SK_VECS_ONLY(M, double)
#define SK_INTS(M) SK_VECS(M, char) SK_VECS(M, uchar) SK_VECS(M, short) \
  SK_VECS(M, ushort) SK_VECS(M, int) SK_VECS(M, uint) SK_VECS(M, long) \
  SK_VECS(M, ulong)
#define SK_INT_VECS(M) SK_VECS_ONLY(M, char) SK_VECS_ONLY(M, uchar) \
  SK_VECS_ONLY(M, short) SK_VECS_ONLY(M, ushort) SK_VECS_ONLY(M, int) \
  SK_VECS_ONLY(M, uint) SK_VECS_ONLY(M, long) SK_VECS_ONLY(M, ulong)

#endif
