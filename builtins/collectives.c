/* This file contains the work-group collective functions (OpenCL C 3.0
 * section 6.15.19: all, any, broadcast, reduce/scan_inclusive/
 * scan_exclusive of add, min, max) and those of
 * cl_khr_work_group_uniform_arithmetic (mul, and, or, xor, logical_and,
 * logical_or, logical_xor), as fiber-mode yield points reached through
 * the __skein_ctx_ rewrite (see sync.c). */
#include "abi.h"

/* Each collective is one yield: every work-item writes its value into
 * its slot of g->collective and calls the scheduler's barrier. The last
 * to arrive is the highest linear local id (skein_hooks.barrier), so that
 * one computes the whole group's result before anybody resumes, in
 * increasing linear id order, starting from the operator's identity:
 * scans in place (work-item i then reads slot i, which only i writes),
 * group-wide results into slot n (nobody writes it again before every
 * work-item has reached the next collective, i.e. read this one's). */
typedef union slot {
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

static inline void wait_group(skein_group *g) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  g->launch->hooks->barrier(g);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* The binary operators, per mangled type code (i int, j uint, l long,
 * m ulong, f float, d double, Dh half). Integer add and mul wrap: the
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

/* The last work-item's part of each collective over the n slots s[]. */
#define COMPUTE(op, c, T)                                                   \
  static inline void reduce_##op##_##c(slot *s, uint64_t n) {               \
    T acc = id_##op##_##c;                                                  \
    for (uint64_t k = 0; k < n; k++)                                        \
      acc = op##_##c(acc, s[k].c);                                          \
    s[n].c = acc;                                                           \
  }                                                                         \
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

/* One collective entry point: deposit, let the last compute, wait, read
 * (slot n for a group-wide result, one's own slot for a scan). */
#define ENTRY(name, c, T, compute, group_wide)                              \
  T name(skein_group *g, T x) {                                             \
    slot *s = (slot *)g->collective;                                        \
    uint64_t n = group_size(g), id = linear_id(g);                          \
    s[id].c = x;                                                            \
    if (id == n - 1)                                                        \
      compute(s, n);                                                        \
    wait_group(g);                                                          \
    return s[(group_wide) ? n : id].c;                                      \
  }

/* __skein_ctx_ + _Z<len><name><type code>: rlen and slen are the lengths
 * of "work_group_reduce_<op>" and "work_group_scan_inclusive_<op>". */
#define CTX(len, name, c) __skein_ctx__Z##len##name##c
#define COLLECTIVES(op, rlen, slen, c, T)                                   \
  COMPUTE(op, c, T)                                                         \
  ENTRY(CTX(rlen, work_group_reduce_##op, c), c, T, reduce_##op##_##c, 1)   \
  ENTRY(CTX(slen, work_group_scan_inclusive_##op, c), c, T,                 \
        inclusive_##op##_##c, 0)                                            \
  ENTRY(CTX(slen, work_group_scan_exclusive_##op, c), c, T,                 \
        exclusive_##op##_##c, 0)

#define ALL_TYPES(op, rlen, slen)                                           \
  COLLECTIVES(op, rlen, slen, i, int32_t)                                   \
  COLLECTIVES(op, rlen, slen, j, uint32_t)                                  \
  COLLECTIVES(op, rlen, slen, l, int64_t)                                   \
  COLLECTIVES(op, rlen, slen, m, uint64_t)                                  \
  COLLECTIVES(op, rlen, slen, f, float)                                     \
  COLLECTIVES(op, rlen, slen, d, double)                                    \
  COLLECTIVES(op, rlen, slen, Dh, _Float16)
#define INT_TYPES(op, rlen, slen)                                           \
  COLLECTIVES(op, rlen, slen, i, int32_t)                                   \
  COLLECTIVES(op, rlen, slen, j, uint32_t)                                  \
  COLLECTIVES(op, rlen, slen, l, int64_t)                                   \
  COLLECTIVES(op, rlen, slen, m, uint64_t)

/* OpenCL C 2.0 / 3.0 with __opencl_c_work_group_collective_functions. */
ALL_TYPES(add, 21, 29)
ALL_TYPES(min, 21, 29)
ALL_TYPES(max, 21, 29)
/* cl_khr_work_group_uniform_arithmetic. */
ALL_TYPES(mul, 21, 29)
INT_TYPES(and, 21, 29)
INT_TYPES(or, 20, 28)
INT_TYPES(xor, 21, 29)
COLLECTIVES(logical_and, 29, 37, i, int32_t)
COLLECTIVES(logical_or, 28, 36, i, int32_t)
COLLECTIVES(logical_xor, 29, 37, i, int32_t)

/* work_group_all and work_group_any are the logical and/or reductions. */
ENTRY(__skein_ctx__Z14work_group_alli, i, int32_t, reduce_logical_and_i, 1)
ENTRY(__skein_ctx__Z14work_group_anyi, i, int32_t, reduce_logical_or_i, 1)

/* work_group_broadcast: the spec leaves an out-of-range local id
 * undefined; each coordinate is clamped to the group so that it never
 * reads outside the slots. The 1D form names the x coordinate. */
static inline uint64_t clamp_id(uint64_t v, uint64_t size) {
  return v < size ? v : size - 1;
}

#define BROADCAST(c, T)                                                     \
  static inline T broadcast_##c(skein_group *g, T a, uint64_t x,            \
                                uint64_t y, uint64_t z) {                   \
    slot *s = (slot *)g->collective;                                        \
    uint64_t n = group_size(g), id = linear_id(g);                          \
    s[id].c = a;                                                            \
    if (id == n - 1) {                                                      \
      x = clamp_id(x, g->local_size[0]);                                    \
      y = clamp_id(y, g->local_size[1]);                                    \
      z = clamp_id(z, g->local_size[2]);                                    \
      s[n].c = s[(z * g->local_size[1] + y) * g->local_size[0] + x].c;      \
    }                                                                       \
    wait_group(g);                                                          \
    return s[n].c;                                                          \
  }                                                                         \
  T __skein_ctx__Z20work_group_broadcast##c##m(skein_group *g, T a,         \
                                               uint64_t x) {                \
    return broadcast_##c(g, a, x, 0, 0);                                    \
  }                                                                         \
  T __skein_ctx__Z20work_group_broadcast##c##mm(skein_group *g, T a,        \
                                                uint64_t x, uint64_t y) {   \
    return broadcast_##c(g, a, x, y, 0);                                    \
  }                                                                         \
  T __skein_ctx__Z20work_group_broadcast##c##mmm(                           \
      skein_group *g, T a, uint64_t x, uint64_t y, uint64_t z) {            \
    return broadcast_##c(g, a, x, y, z);                                    \
  }
BROADCAST(i, int32_t)
BROADCAST(j, uint32_t)
BROADCAST(l, int64_t)
BROADCAST(m, uint64_t)
BROADCAST(f, float)
BROADCAST(d, double)
BROADCAST(Dh, _Float16)
