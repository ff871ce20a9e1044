/* This file contains the math builtins (OpenCL C 3.0 section 6.15.2)
 * that are one libsleef call: the transcendental functions, for float
 * and double, scalar and vector. Sleef's _u10 functions are within 1.0
 * ULP, _u05 within 0.5 ULP and erfc's _u15 within 1.5 ULP, which meets
 * every bound of the full-profile ULP table (the tightest: cbrt float,
 * 2 ULP); Sleef follows C99 Annex F for the special values, which the
 * spec's edge-case section requires. Functions where Sleef misses a
 * range or an edge case are in math_fp.cl. */
#include "math_defs.h"

/* One function over float and double, scalar and vector: F calls
 * Sleef_<float name> and Sleef_<double name>. */
#define SLEEF1(F, FN, DN) \
  float SLEEF Sleef_##FN(float); \
  double SLEEF Sleef_##DN(double); \
  float OVL F(float x) { return Sleef_##FN(x); } \
  double OVL F(double x) { return Sleef_##DN(x); } \
  SKM_VEC1(F, float) SKM_VEC1(F, double)

#define SLEEF2(F, FN, DN) \
  float SLEEF Sleef_##FN(float, float); \
  double SLEEF Sleef_##DN(double, double); \
  float OVL F(float x, float y) { return Sleef_##FN(x, y); } \
  double OVL F(double x, double y) { return Sleef_##DN(x, y); } \
  SKM_VEC2(F, float) SKM_VEC2(F, double)

SLEEF1(acos, acosf_u10, acos_u10)
SLEEF1(asin, asinf_u10, asin_u10)
SLEEF1(atan, atanf_u10, atan_u10)
SLEEF1(atanh, atanhf_u10, atanh_u10)
SLEEF1(cbrt, cbrtf_u10, cbrt_u10)
SLEEF1(cos, cosf_u10, cos_u10)
SLEEF1(erf, erff_u10, erf_u10)
SLEEF1(erfc, erfcf_u15, erfc_u15)
SLEEF1(exp, expf_u10, exp_u10)
SLEEF1(exp2, exp2f_u10, exp2_u10)
SLEEF1(exp10, exp10f_u10, exp10_u10)
SLEEF1(expm1, expm1f_u10, expm1_u10)
SLEEF1(log, logf_u10, log_u10)
SLEEF1(log2, log2f_u10, log2_u10)
SLEEF1(log10, log10f_u10, log10_u10)
SLEEF1(sin, sinf_u10, sin_u10)
SLEEF1(tan, tanf_u10, tan_u10)
SLEEF1(tanh, tanhf_u10, tanh_u10)

SLEEF2(atan2, atan2f_u10, atan2_u10)
SLEEF2(hypot, hypotf_u05, hypot_u05)
/* pow(double) is in math_fp.cl: Sleef's overflows a little early. */
float SLEEF Sleef_powf_u10(float, float);
float OVL pow(float x, float y) { return Sleef_powf_u10(x, y); }
SKM_VEC2(pow, float)
