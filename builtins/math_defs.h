/* This file declares the macro templates of the math builtin files
 * (math_*.cl): libsleef declarations and the expansion of a scalar
 * definition over the vector widths, so that every vector form ends in
 * scalar calls the SLP vectoriser can regroup (see
 * compiler/math_lib.c for how Sleef's vector forms are found). */
#ifndef SKEIN_MATH_DEFS_H
#define SKEIN_MATH_DEFS_H

#include "builtins.h"

/* Functions with pointer arguments read and write memory: not const. */
#define OVLP __attribute__((overloadable, always_inline))
/* libsleef's functions are pure: the vectorisers need that. (OpenCL makes
 * every function convergent; compiler/math_lib.c drops that for Sleef.) */
#define SLEEF __attribute__((const))

/* The lanes of a vector form, one scalar call each, as one flat list:
 * the SLP vectoriser regroups such a build-vector into one call of a
 * Sleef vector function. M(F, i) is one lane's expression. */
#define SKM_L2(M, F) M(F, 0), M(F, 1)
#define SKM_L3(M, F) M(F, 0), M(F, 1), M(F, 2)
#define SKM_L4(M, F) M(F, 0), M(F, 1), M(F, 2), M(F, 3)
#define SKM_L8(M, F) SKM_L4(M, F), M(F, 4), M(F, 5), M(F, 6), M(F, 7)
#define SKM_L16(M, F) SKM_L8(M, F), M(F, 8), M(F, 9), M(F, a), M(F, b), \
  M(F, c), M(F, d), M(F, e), M(F, f)
#define SKM_U(F, i) F(x.s##i)
#define SKM_B(F, i) F(x.s##i, y.s##i)
#define SKM_T(F, i) F(x.s##i, y.s##i, z.s##i)
#define SKM_N(F, i) F(x.s##i, n.s##i)

/* Vector forms of unary F over scalar type S. */
#define SKM_VEC1(F, S) \
  S##2 OVL F(S##2 x) { return (S##2)(SKM_L2(SKM_U, F)); } \
  S##3 OVL F(S##3 x) { return (S##3)(SKM_L3(SKM_U, F)); } \
  S##4 OVL F(S##4 x) { return (S##4)(SKM_L4(SKM_U, F)); } \
  S##8 OVL F(S##8 x) { return (S##8)(SKM_L8(SKM_U, F)); } \
  S##16 OVL F(S##16 x) { return (S##16)(SKM_L16(SKM_U, F)); }

/* Vector forms of binary F(S, S). */
#define SKM_VEC2(F, S) \
  S##2 OVL F(S##2 x, S##2 y) { return (S##2)(SKM_L2(SKM_B, F)); } \
  S##3 OVL F(S##3 x, S##3 y) { return (S##3)(SKM_L3(SKM_B, F)); } \
  S##4 OVL F(S##4 x, S##4 y) { return (S##4)(SKM_L4(SKM_B, F)); } \
  S##8 OVL F(S##8 x, S##8 y) { return (S##8)(SKM_L8(SKM_B, F)); } \
  S##16 OVL F(S##16 x, S##16 y) { return (S##16)(SKM_L16(SKM_B, F)); }

/* Vector forms of F(S, int) -> S with an int vector second argument. */
#define SKM_VEC_FI(F, S) \
  S##2 OVL F(S##2 x, int2 n) { return (S##2)(SKM_L2(SKM_N, F)); } \
  S##3 OVL F(S##3 x, int3 n) { return (S##3)(SKM_L3(SKM_N, F)); } \
  S##4 OVL F(S##4 x, int4 n) { return (S##4)(SKM_L4(SKM_N, F)); } \
  S##8 OVL F(S##8 x, int8 n) { return (S##8)(SKM_L8(SKM_N, F)); } \
  S##16 OVL F(S##16 x, int16 n) { return (S##16)(SKM_L16(SKM_N, F)); }

/* Vector forms of F(S) -> int. */
#define SKM_VEC_IF(F, S) \
  int2 OVL F(S##2 x) { return (int2)(SKM_L2(SKM_U, F)); } \
  int3 OVL F(S##3 x) { return (int3)(SKM_L3(SKM_U, F)); } \
  int4 OVL F(S##4 x) { return (int4)(SKM_L4(SKM_U, F)); } \
  int8 OVL F(S##8 x) { return (int8)(SKM_L8(SKM_U, F)); } \
  int16 OVL F(S##16 x) { return (int16)(SKM_L16(SKM_U, F)); }

/* Vector forms of F(S x, private P *p) -> S (P: S or int), private
 * address space: lanes computed into private scalars, stored once. */
#define SKM_VECP_N(F, S, P, N, H, LO, HI) \
  S##N OVLP F(S##N x, __private P##N *p) { \
    H a, b; \
    S##N r = (S##N)(F(x.LO, &a), F(x.HI, &b)); \
    *p = (P##N)(a, b); \
    return r; \
  }
#define SKM_VECP(F, S, P) \
  SKM_VECP_N(F, S, P, 2, P, s0, s1) \
  S##3 OVLP F(S##3 x, __private P##3 *p) { \
    P a, b, c; \
    S##3 r = (S##3)(F(x.s0, &a), F(x.s1, &b), F(x.s2, &c)); \
    *p = (P##3)(a, b, c); \
    return r; \
  } \
  SKM_VECP_N(F, S, P, 4, P##2, lo, hi) SKM_VECP_N(F, S, P, 8, P##4, lo, hi) \
  SKM_VECP_N(F, S, P, 16, P##8, lo, hi)

/* The global and local forms of F(T x, P *p): the private form, then one
 * store. For T the scalar or a vector type, P its pointee. */
#define SKM_PTR_AS(F, T, P) \
  T OVLP F(T x, __global P *p) { P t; T r = F(x, &t); *p = t; return r; } \
  T OVLP F(T x, __local P *p) { P t; T r = F(x, &t); *p = t; return r; }
#define SKM_PTR_ALL(F, S, P) \
  SKM_PTR_AS(F, S, P) SKM_PTR_AS(F, S##2, P##2) SKM_PTR_AS(F, S##3, P##3) \
  SKM_PTR_AS(F, S##4, P##4) SKM_PTR_AS(F, S##8, P##8) \
  SKM_PTR_AS(F, S##16, P##16)

#endif
