/* This file contains what the work-group collectives (collectives.c)
 * and the sub-group collectives (subgroups.c) share: the 8-byte slot
 * each work-item deposits its value in, the work-item's linear id, and
 * the binary operators and their identities per mangled type code. */
#ifndef SKEIN_COLLECTIVE_OPS_H
#define SKEIN_COLLECTIVE_OPS_H

#include "abi.h"

typedef union slot {
  int8_t c;  /* char, uchar, short, ushort: cl_khr_subgroup_extended_types */
  uint8_t h;
  int16_t s;
  uint16_t t;
  int32_t i;
  uint32_t j;
  int64_t l;
  uint64_t m;
  float f;
  double d;
  _Float16 Dh; /* half: named by its mangled code, as the others are */
} slot;

static inline uint64_t group_size(const skein_group *g) {
  return g->local_size[0] * g->local_size[1] * g->local_size[2];
}

static inline uint64_t linear_id(const skein_group *g) {
  return (g->local_id[2] * g->local_size[1] + g->local_id[1]) *
             g->local_size[0] + g->local_id[0];
}

/* The binary operators, per mangled type code (c char, h uchar, s short,
 * t ushort, i int, j uint, l long, m ulong, f float, d double, Dh half). Integer add and mul wrap: the
 * arithmetic is done in the unsigned type. Floating min/max are fmin/fmax
 * (a NaN operand is ignored). Logical operators take predicates (non-zero
 * is true) and give 0 or 1. */
#define INT_OPS(c, T, U)                                                    \
  static inline T add_##c(T a, T b) { return (T)((U)a + (U)b); }            \
  static inline T mul_##c(T a, T b) { return (T)((U)a * (U)b); }            \
  static inline T min_##c(T a, T b) { return b < a ? b : a; }               \
  static inline T max_##c(T a, T b) { return a < b ? b : a; }               \
  static inline T and_##c(T a, T b) { return a & b; }                       \
  static inline T or_##c(T a, T b) { return a | b; }                        \
  static inline T xor_##c(T a, T b) { return a ^ b; }
INT_OPS(c, int8_t, uint8_t)
INT_OPS(h, uint8_t, uint8_t)
INT_OPS(s, int16_t, uint16_t)
INT_OPS(t, uint16_t, uint16_t)
INT_OPS(i, int32_t, uint32_t)
INT_OPS(j, uint32_t, uint32_t)
INT_OPS(l, int64_t, uint64_t)
INT_OPS(m, uint64_t, uint64_t)

/* half (cl_khr_fp16): each step rounds to half, as a half kernel's own
 * arithmetic would; min/max are exact through float. */
static inline _Float16 add_Dh(_Float16 a, _Float16 b) {
  return (_Float16)((float)a + (float)b);
}
static inline _Float16 mul_Dh(_Float16 a, _Float16 b) {
  return (_Float16)((float)a * (float)b);
}
static inline _Float16 min_Dh(_Float16 a, _Float16 b) {
  return (_Float16)__builtin_fminf((float)a, (float)b);
}
static inline _Float16 max_Dh(_Float16 a, _Float16 b) {
  return (_Float16)__builtin_fmaxf((float)a, (float)b);
}

static inline float add_f(float a, float b) { return a + b; }
static inline float mul_f(float a, float b) { return a * b; }
static inline float min_f(float a, float b) { return __builtin_fminf(a, b); }
static inline float max_f(float a, float b) { return __builtin_fmaxf(a, b); }
static inline double add_d(double a, double b) { return a + b; }
static inline double mul_d(double a, double b) { return a * b; }
static inline double min_d(double a, double b) { return __builtin_fmin(a, b); }
static inline double max_d(double a, double b) { return __builtin_fmax(a, b); }

static inline int32_t logical_and_i(int32_t a, int32_t b) {
  return a != 0 && b != 0;
}
static inline int32_t logical_or_i(int32_t a, int32_t b) {
  return a != 0 || b != 0;
}
static inline int32_t logical_xor_i(int32_t a, int32_t b) {
  return (a != 0) != (b != 0);
}

/* The identities (OpenCL C 6.15.19 and the extension's tables). */
#define id_add_c 0
#define id_add_h 0
#define id_add_s 0
#define id_add_t 0
#define id_mul_c 1
#define id_mul_h 1
#define id_mul_s 1
#define id_mul_t 1
#define id_min_c INT8_MAX
#define id_min_h UINT8_MAX
#define id_min_s INT16_MAX
#define id_min_t UINT16_MAX
#define id_max_c INT8_MIN
#define id_max_h 0
#define id_max_s INT16_MIN
#define id_max_t 0
#define id_and_c (-1)
#define id_and_h UINT8_MAX
#define id_and_s (-1)
#define id_and_t UINT16_MAX
#define id_or_c 0
#define id_or_h 0
#define id_or_s 0
#define id_or_t 0
#define id_xor_c 0
#define id_xor_h 0
#define id_xor_s 0
#define id_xor_t 0
#define id_add_i 0
#define id_add_j 0u
#define id_add_l 0
#define id_add_m 0u
#define id_add_f 0.0f
#define id_add_d 0.0
#define id_add_Dh ((_Float16)0.0f)
#define id_mul_Dh ((_Float16)1.0f)
#define id_min_Dh ((_Float16)__builtin_inff())
#define id_max_Dh ((_Float16)(-__builtin_inff()))
#define id_mul_i 1
#define id_mul_j 1u
#define id_mul_l 1
#define id_mul_m 1u
#define id_mul_f 1.0f
#define id_mul_d 1.0
#define id_min_i INT32_MAX
#define id_min_j UINT32_MAX
#define id_min_l INT64_MAX
#define id_min_m UINT64_MAX
#define id_min_f __builtin_inff()
#define id_min_d __builtin_inf()
#define id_max_i INT32_MIN
#define id_max_j 0u
#define id_max_l INT64_MIN
#define id_max_m 0u
#define id_max_f (-__builtin_inff())
#define id_max_d (-__builtin_inf())
#define id_and_i (-1)
#define id_and_j UINT32_MAX
#define id_and_l (-1)
#define id_and_m UINT64_MAX
#define id_or_i 0
#define id_or_j 0u
#define id_or_l 0
#define id_or_m 0u
#define id_xor_i 0
#define id_xor_j 0u
#define id_xor_l 0
#define id_xor_m 0u
#define id_logical_and_i 1
#define id_logical_or_i 0
#define id_logical_xor_i 0

/* The in-place scans over n slots s[] (of a type with a member c), which
 * the work-group and the sub-group collectives compute alike: each slot
 * gets the op of the slots up to and including it (inclusive) or before
 * it (exclusive, the identity for the first). */
#define SCANS(op, c, T)                                                     \
  static inline void inclusive_##op##_##c(slot *s, uint64_t n) {            \
    T acc = id_##op##_##c;                                                  \
    for (uint64_t k = 0; k < n; k++)                                        \
      s[k].c = acc = op##_##c(acc, s[k].c);                                 \
  }                                                                         \
  static inline void exclusive_##op##_##c(slot *s, uint64_t n) {            \
    T acc = id_##op##_##c;                                                  \
    for (uint64_t k = 0; k < n; k++) {                                      \
      T x = s[k].c;                                                         \
      s[k].c = acc;                                                         \
      acc = op##_##c(acc, x);                                               \
    }                                                                       \
  }

#endif
