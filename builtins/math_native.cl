/* This file contains the half_* and native_* math builtins (OpenCL C 3.0
 * section 6.15.2.1), float only. Both use Sleef's 3.5-ULP functions
 * where libsleef has them (faster than the 1-ULP ones, far inside
 * half_*'s 8192 ULP, with the same C99 special values, which half_*
 * must keep); the rest are the full-precision builtins, since the CPU
 * has no faster instruction of usable accuracy. */
#include "math_defs.h"

float SLEEF Sleef_sinf_u35(float);
float SLEEF Sleef_cosf_u35(float);
float SLEEF Sleef_tanf_u35(float);
float SLEEF Sleef_exp2f_u35(float);
float SLEEF Sleef_exp10f_u35(float);
float SLEEF Sleef_logf_u35(float);
float SLEEF Sleef_log2f_u35(float);

/* P##F over float, scalar and vector, as the expression E of x. */
#define NATIVE1(P, F, E) \
  float OVL P##F(float x) { return E; } \
  SKM_VEC1(P##F, float)
#define NATIVE2(P, F, E) \
  float OVL P##F(float x, float y) { return E; } \
  SKM_VEC2(P##F, float)

#define FAMILY(P) \
  NATIVE1(P, sin, Sleef_sinf_u35(x)) \
  NATIVE1(P, cos, Sleef_cosf_u35(x)) \
  NATIVE1(P, tan, Sleef_tanf_u35(x)) \
  NATIVE1(P, exp, exp(x)) \
  NATIVE1(P, exp2, Sleef_exp2f_u35(x)) \
  NATIVE1(P, exp10, Sleef_exp10f_u35(x)) \
  NATIVE1(P, log, Sleef_logf_u35(x)) \
  NATIVE1(P, log2, Sleef_log2f_u35(x)) \
  NATIVE1(P, log10, log10(x)) \
  NATIVE1(P, recip, 1.0f / x) \
  NATIVE1(P, rsqrt, rsqrt(x)) \
  NATIVE1(P, sqrt, sqrt(x)) \
  NATIVE2(P, divide, x / y) \
  NATIVE2(P, powr, powr(x, y))
FAMILY(half_)
FAMILY(native_)
