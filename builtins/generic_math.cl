/* This file contains the generic-address-space forms of the math builtins
 * that take a pointer (fract, frexp, modf, sincos, lgamma_r, remquo) for
 * float and double, every vector width. With __opencl_c_generic_address_space
 * (and in OpenCL C 2.0) Clang declares only these forms. */
#include "builtins.h"

#ifdef __opencl_c_generic_address_space

/* Writes through the pointer: not const, unlike OVL. */
#define SKG_OVL __attribute__((overloadable, always_inline))

/* F(T x, generic P *p): the private form (declared here: Clang declares
 * only the generic ones, which would call themselves) into a temporary,
 * then one store through the generic pointer (on a CPU all address spaces
 * are one flat memory: the store reaches global, local or private data). */
#define SKG_PTR(F, T, P) \
  T SKG_OVL F(T x, __private P *p); \
  T SKG_OVL F(T x, __generic P *p) { P t; T r = F(x, &t); *p = t; return r; }
#define SKG_PTR_ALL(F, S, P) \
  SKG_PTR(F, S, P) SKG_PTR(F, S##2, P##2) SKG_PTR(F, S##3, P##3) \
  SKG_PTR(F, S##4, P##4) SKG_PTR(F, S##8, P##8) SKG_PTR(F, S##16, P##16)

/* remquo has two value arguments. */
#define SKG_REMQUO(T, I) \
  T SKG_OVL remquo(T x, T y, __private I *q); \
  T SKG_OVL remquo(T x, T y, __generic I *q) { \
    I t; T r = remquo(x, y, &t); *q = t; return r; \
  }
#define SKG_REMQUO_ALL(S) \
  SKG_REMQUO(S, int) SKG_REMQUO(S##2, int2) SKG_REMQUO(S##3, int3) \
  SKG_REMQUO(S##4, int4) SKG_REMQUO(S##8, int8) SKG_REMQUO(S##16, int16)

#define SKG_TYPE(S) \
  SKG_PTR_ALL(fract, S, S) SKG_PTR_ALL(frexp, S, int) \
  SKG_PTR_ALL(modf, S, S) SKG_PTR_ALL(sincos, S, S) \
  SKG_PTR_ALL(lgamma_r, S, int) SKG_REMQUO_ALL(S)

SKG_TYPE(float)
SKG_TYPE(double)

#endif
