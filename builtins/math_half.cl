/* This file contains the half-precision forms of the math builtins
 * (OpenCL C 3.0 section 6.15.2, cl_khr_fp16), scalar and vector. Each
 * converts its half arguments to float (exact), calls the float builtin
 * and rounds the result once to half, as the spec's note on half
 * arithmetic allows; where that is not enough (fma, fract, nextafter,
 * nan) the function is written here for half itself. */
#include "math_defs.h"

/* Why one rounding of the float result meets the half ULP table: every
 * float builtin used is within 4 float ULP (most within 1), i.e. within
 * 4 * 2^-13 half ULP, so the half result is within 0.5 + 2^-11 half ULP
 * of the exact value (bounds: 2 ULP, 4 for erf, erfc, pow, pown, powr, rootn, tgamma).
 * Half denormals are float normals, so this holds for them too. The
 * exact functions (fmod, remainder, remquo, frexp, ldexp, modf, ilogb,
 * logb, rounding, fmin/fmax, maxmag/minmag, copysign) are exact in
 * float on half inputs and their results are half values (ldexp: the
 * float product is exact unless far outside the half range, so the one
 * rounding to half is the correct one). sqrt: float's correctly rounded
 * sqrt rounded again to half is correctly rounded (24 >= 2 * 11 + 2).
 * The special values (+-0, +-INF, NaN, the spec's edge cases) are the
 * float function's, which conversion to half keeps. */

#define HCV(x, T) __builtin_convertvector(x, T)

/* The library's own definitions hide Clang's declarations of the same
 * name (-fdeclare-opencl-builtins adds them only when a lookup finds
 * nothing), so the float forms called here are declared first. */
#define FDECL1(F) \
  float OVL F(float); float2 OVL F(float2); float3 OVL F(float3); \
  float4 OVL F(float4); float8 OVL F(float8); float16 OVL F(float16);
#define FDECL2(F) \
  float OVL F(float, float); float2 OVL F(float2, float2); \
  float3 OVL F(float3, float3); float4 OVL F(float4, float4); \
  float8 OVL F(float8, float8); float16 OVL F(float16, float16);
#define FDECLI(F) \
  float OVL F(float, int); float2 OVL F(float2, int2); \
  float3 OVL F(float3, int3); float4 OVL F(float4, int4); \
  float8 OVL F(float8, int8); float16 OVL F(float16, int16);

/* F over half and halfN through the float form. */
#define H1_N(F, N) \
  half##N OVL F(half##N x) { return HCV(F(HCV(x, float##N)), half##N); }
#define H1(F) FDECL1(F) \
  half OVL F(half x) { return (half)F((float)x); } \
  H1_N(F, 2) H1_N(F, 3) H1_N(F, 4) H1_N(F, 8) H1_N(F, 16)
#define H2_N(F, N) \
  half##N OVL F(half##N x, half##N y) { \
    return HCV(F(HCV(x, float##N), HCV(y, float##N)), half##N); \
  }
#define H2(F) FDECL2(F) \
  half OVL F(half x, half y) { return (half)F((float)x, (float)y); } \
  H2_N(F, 2) H2_N(F, 3) H2_N(F, 4) H2_N(F, 8) H2_N(F, 16)
/* F(half, int) -> half, e.g. ldexp, pown, rootn. */
#define HFI_N(F, N) \
  half##N OVL F(half##N x, int##N n) { \
    return HCV(F(HCV(x, float##N), n), half##N); \
  }
#define HFI(F) FDECLI(F) \
  half OVL F(half x, int n) { return (half)F((float)x, n); } \
  HFI_N(F, 2) HFI_N(F, 3) HFI_N(F, 4) HFI_N(F, 8) HFI_N(F, 16)

H1(acos) H1(acosh) H1(acospi) H1(asin) H1(asinh) H1(asinpi)
H1(atan) H1(atanh) H1(atanpi) H1(cbrt) H1(cos) H1(cosh) H1(cospi)
H1(erfc) H1(erf) H1(exp) H1(exp2) H1(exp10) H1(expm1) H1(lgamma)
H1(log) H1(log2) H1(log10) H1(log1p) H1(logb) H1(sin) H1(sinh)
H1(sinpi) H1(tan) H1(tanh) H1(tanpi) H1(tgamma) H1(rsqrt)
H1(sqrt) H1(ceil) H1(floor) H1(trunc) H1(round) H1(rint) H1(fabs)
H2(atan2) H2(atan2pi) H2(copysign) H2(fdim) H2(fmax) H2(fmin) H2(fmod)
H2(hypot) H2(maxmag) H2(minmag) H2(pow) H2(powr) H2(remainder)
HFI(ldexp) HFI(pown) HFI(rootn)

/* The forms with a scalar second operand. */
#define HSCALAR_N(N) \
  half##N OVL fmin(half##N x, half y) { return fmin(x, (half##N)(y)); } \
  half##N OVL fmax(half##N x, half y) { return fmax(x, (half##N)(y)); } \
  half##N OVL ldexp(half##N x, int n) { return ldexp(x, (int##N)(n)); }
HSCALAR_N(2) HSCALAR_N(3) HSCALAR_N(4) HSCALAR_N(8) HSCALAR_N(16)

/* ilogb: float's ilogb of the (exact) float value, denormals included. */
int OVL ilogb(float); int2 OVL ilogb(float2); int3 OVL ilogb(float3);
int4 OVL ilogb(float4); int8 OVL ilogb(float8); int16 OVL ilogb(float16);
int OVL ilogb(half x) { return ilogb((float)x); }
#define HILOGB_N(N) \
  int##N OVL ilogb(half##N x) { return ilogb(HCV(x, float##N)); }
HILOGB_N(2) HILOGB_N(3) HILOGB_N(4) HILOGB_N(8) HILOGB_N(16)

/* nan(code): a quiet half NaN carrying code in its mantissa. */
#define HNAN(N) \
  half##N OVL nan(ushort##N c) { \
    return __builtin_astype((ushort##N)(c | (ushort##N)(0x7e00)), half##N); \
  }
half OVL nan(ushort c) { return __builtin_astype((ushort)(c | 0x7e00), half); }
HNAN(2) HNAN(3) HNAN(4) HNAN(8) HNAN(16)

/* nextafter: one step of the half's bit pattern towards y. */
half OVL nextafter(half x, half y) {
  if (isnan(x) || isnan(y))
    return x + y;
  if (x == y)
    return y;
  if (x == 0)
    return copysign(__builtin_astype((ushort)1, half), y);
  short i = __builtin_astype(x, short);
  return __builtin_astype((short)(i + (((x < y) == (x > 0)) ? 1 : -1)), half);
}
SKM_VEC2(nextafter, half)

/* fma must be correctly rounded, which float's fma followed by a
 * rounding to half is not. The product of two halves is exact in double
 * and the sum's rounding error e exact by TwoSum; the sum is then rounded
 * to float "to odd" (a tie or exact case of the later rounding cannot be
 * produced by the earlier one: 24 >= 11 + 2 bits), so the final rounding
 * to half is the correct rounding of a * b + c. */
half OVL fma(half a, half b, half c) {
  double p = (double)a * (double)b, dc = (double)c;
  double s = p + dc;
  double bv = s - p;
  double e = (p - (s - bv)) + (dc - bv);
  float f = (float)s;
  double r = (s - (double)f) + e;   /* s - f is exact */
  uint u = __builtin_astype(f, uint);
  if ((r < 0 || r > 0) && (u & 1) == 0)   /* r is NaN for an infinite s */
    u += (r > 0) == (f > 0) ? 1 : -1;
  return (half)__builtin_astype(u, float);
}
#define HFMA_L(F, i) F(a.s##i, b.s##i, c.s##i)
#define HFMA_N(N, L) \
  half##N OVL fma(half##N a, half##N b, half##N c) { \
    return (half##N)(L(HFMA_L, fma)); \
  }
HFMA_N(2, SKM_L2) HFMA_N(3, SKM_L3) HFMA_N(4, SKM_L4) HFMA_N(8, SKM_L8)
HFMA_N(16, SKM_L16)

/* mad is implementation-defined in accuracy: an fma of the halves. With
 * AVX-512 FP16 that is one instruction; elsewhere compiler/half_lower.c
 * rewrites it as float's fma between conversions, rounded once more to
 * half (LLVM would make a library call of each lane). */
#define HMAD(T, S) \
  T OVL mad(T a, T b, T c) { return __builtin_elementwise_fma(a, b, c); }
SK_VECS(HMAD, half)

/* ---- Functions with a pointer argument: the private scalar form, then
 * the vector forms and the global and local forms through it. ---- */

/* fract: the float value x - floor(x) is exact; once rounded to half it
 * is kept below 1 (the spec: fmin(x - floor(x), 0x1.ffcp-1)). */
float OVLP fract(float, __private float *);
float OVLP modf(float, __private float *);
float OVLP sincos(float, __private float *);
float OVLP frexp(float, __private int *);
float OVLP lgamma_r(float, __private int *);
float OVL floor(float);
half OVLP fract(half x, __private half *ip) {
  float f = (float)x, fl = floor(f);
  *ip = (half)fl;
  if (isnan(x))
    return x;
  if (isinf(x) || x == 0)
    return copysign((half)0, x);
  return fmin((half)(f - fl), (half)0x1.ffcp-1f);
}
half OVLP modf(half x, __private half *ip) {
  float i;
  half r = (half)modf((float)x, &i);
  *ip = (half)i;
  return r;
}
half OVLP sincos(half x, __private half *c) {
  float fc;
  half r = (half)sincos((float)x, &fc);
  *c = (half)fc;
  return r;
}
half OVLP frexp(half x, __private int *e) { return (half)frexp((float)x, e); }
half OVLP lgamma_r(half x, __private int *s) {
  return (half)lgamma_r((float)x, s);
}
/* remquo: the remainder is float's exact remainder (a half value); the
 * quotient k = (x - r) / y is an integer below 2^40, and both the
 * subtraction and the division are exact in double, so the lower seven
 * bits the spec asks for are exact. */
float OVL remainder(float, float);
half OVLP remquo(half x, half y, __private int *q) {
  if (isnan(x) || isnan(y) || isinf(x) || y == 0) {
    *q = 0;
    return (half)NAN;
  }
  float r = remainder((float)x, (float)y);
  double k = ((double)x - (double)r) / (double)y;
  int n = (int)((long)__builtin_fabs(k) & 0x7f);
  *q = k < 0 ? -n : n;
  return (half)r;
}

SKM_VECP(frexp, half, int) SKM_VECP(fract, half, half)
SKM_VECP(modf, half, half) SKM_VECP(lgamma_r, half, int)
SKM_VECP(sincos, half, half)
SKM_PTR_ALL(frexp, half, int) SKM_PTR_ALL(fract, half, half)
SKM_PTR_ALL(modf, half, half) SKM_PTR_ALL(lgamma_r, half, int)
SKM_PTR_ALL(sincos, half, half)

/* remquo's two inputs: its own vector and address-space forms. */
#define HREMQUO_VN(N, H, LO, HI) \
  half##N OVLP remquo(half##N x, half##N y, __private int##N *q) { \
    H a, b; \
    half##N r = (half##N)(remquo(x.LO, y.LO, &a), remquo(x.HI, y.HI, &b)); \
    *q = (int##N)(a, b); \
    return r; \
  }
#define HREMQUO_AS(T, I) \
  T OVLP remquo(T x, T y, __global I *q) { \
    I t; T r = remquo(x, y, &t); *q = t; return r; \
  } \
  T OVLP remquo(T x, T y, __local I *q) { \
    I t; T r = remquo(x, y, &t); *q = t; return r; \
  }
HREMQUO_VN(2, int, s0, s1)
half3 OVLP remquo(half3 x, half3 y, __private int3 *q) {
  int a, b, c;
  half3 r = (half3)(remquo(x.s0, y.s0, &a), remquo(x.s1, y.s1, &b),
                    remquo(x.s2, y.s2, &c));
  *q = (int3)(a, b, c);
  return r;
}
HREMQUO_VN(4, int2, lo, hi) HREMQUO_VN(8, int4, lo, hi)
HREMQUO_VN(16, int8, lo, hi)
HREMQUO_AS(half, int) HREMQUO_AS(half2, int2) HREMQUO_AS(half3, int3)
HREMQUO_AS(half4, int4) HREMQUO_AS(half8, int8) HREMQUO_AS(half16, int16)

/* The generic address-space forms (OpenCL C 2.0, and 3.0 with the
 * feature): through the private form. An unqualified pointer parameter
 * is a generic one there; &t of a private variable is a private pointer,
 * so the call inside picks the private form. */
#ifdef __opencl_c_generic_address_space
#define HGEN(F, T, P) \
  T OVLP F(T x, P *p) { P t; T r = F(x, &t); *p = t; return r; }
#define HGEN_ALL(F, P) \
  HGEN(F, half, P) HGEN(F, half2, P##2) HGEN(F, half3, P##3) \
  HGEN(F, half4, P##4) HGEN(F, half8, P##8) HGEN(F, half16, P##16)
HGEN_ALL(fract, half) HGEN_ALL(modf, half) HGEN_ALL(sincos, half)
HGEN_ALL(frexp, int) HGEN_ALL(lgamma_r, int)
#define HGEN_REMQUO(T, I) \
  T OVLP remquo(T x, T y, I *q) { \
    I t; T r = remquo(x, y, &t); *q = t; return r; \
  }
HGEN_REMQUO(half, int) HGEN_REMQUO(half2, int2) HGEN_REMQUO(half3, int3)
HGEN_REMQUO(half4, int4) HGEN_REMQUO(half8, int8)
HGEN_REMQUO(half16, int16)
#endif
