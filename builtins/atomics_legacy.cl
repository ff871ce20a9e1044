/* This file contains the OpenCL C 1.x atomic functions (atomic_* on 32-bit
 * int/uint, atomic_xchg on float) and the atom_* spellings of the
 * cl_khr_{global,local}_int32_{base,extended}_atomics and
 * cl_khr_int64_{base,extended}_atomics extensions, for global, local and
 * generic pointers. */
#include "builtins.h"

#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

/* Work-groups run on several threads at once and the work-items of one
 * group interleave (fibers) or share a loop, so every operation is a real
 * read-modify-write of memory. The 1.x atomics only promise atomicity
 * (relaxed); seq_cst costs nothing more on x86 for a locked RMW and also
 * keeps the compiler from moving other accesses across it, which 1.x code
 * that pairs atomics with mem_fence tends to assume. Not `const`: they
 * read and write memory. */
#define SK_AT __attribute__((overloadable, always_inline))
#define SK_ORDER __ATOMIC_SEQ_CST

/* One binary fetch-and-op function: NAME(p, v) returns the old *p. */
#define SK_AT_FETCH(NAME, BUILTIN, T, AS)                                   \
  SK_AT T NAME(volatile AS T *p, T v) { return BUILTIN(p, v, SK_ORDER); }

/* The base set (add, sub, xchg, inc, dec, cmpxchg) under prefix P. */
#define SK_AT_BASE(P, T, AS)                                                \
  SK_AT_FETCH(P##_add, __atomic_fetch_add, T, AS)                           \
  SK_AT_FETCH(P##_sub, __atomic_fetch_sub, T, AS)                           \
  SK_AT_FETCH(P##_xchg, __atomic_exchange_n, T, AS)                         \
  SK_AT T P##_inc(volatile AS T *p) {                                       \
    return __atomic_fetch_add(p, (T)1, SK_ORDER);                           \
  }                                                                         \
  SK_AT T P##_dec(volatile AS T *p) {                                       \
    return __atomic_fetch_sub(p, (T)1, SK_ORDER);                           \
  }                                                                         \
  /* "Compute (old == cmp) ? val : old and store the result at p. The */   \
  /* function returns old." A strong CAS leaves old in cmp on failure. */  \
  SK_AT T P##_cmpxchg(volatile AS T *p, T cmp, T val) {                     \
    __atomic_compare_exchange_n(p, &cmp, val, false, SK_ORDER, SK_ORDER);   \
    return cmp;                                                             \
  }

/* The extended set (min, max, and, or, xor); min/max compare as T is
 * signed or unsigned, which the builtins take from the pointee type. */
#define SK_AT_EXT(P, T, AS)                                                 \
  SK_AT_FETCH(P##_min, __atomic_fetch_min, T, AS)                           \
  SK_AT_FETCH(P##_max, __atomic_fetch_max, T, AS)                           \
  SK_AT_FETCH(P##_and, __atomic_fetch_and, T, AS)                           \
  SK_AT_FETCH(P##_or, __atomic_fetch_or, T, AS)                             \
  SK_AT_FETCH(P##_xor, __atomic_fetch_xor, T, AS)

#define SK_AT_ALL(P, T, AS) SK_AT_BASE(P, T, AS) SK_AT_EXT(P, T, AS)

/* atomic_xchg on float: exchange the bits through a uint view (the bit
 * pattern is what is stored, so NaN payloads and -0.0 survive). */
#define SK_AT_XCHG_FLOAT(NAME, AS)                                          \
  SK_AT float NAME(volatile AS float *p, float v) {                         \
    return as_float(__atomic_exchange_n((volatile AS uint *)p, as_uint(v),  \
                                        SK_ORDER));                         \
  }

/* Every function for one address space. Clang declares the generic forms
 * only for programs with the generic address space; they cost nothing
 * when unused (the library is linked "only what is needed"). */
#define SK_AT_SPACE(AS)                                                     \
  SK_AT_ALL(atomic, int, AS) SK_AT_ALL(atomic, uint, AS)                    \
  SK_AT_XCHG_FLOAT(atomic_xchg, AS)                                         \
  SK_AT_ALL(atom, int, AS) SK_AT_ALL(atom, uint, AS)                        \
  SK_AT_ALL(atom, long, AS) SK_AT_ALL(atom, ulong, AS)

SK_AT_SPACE(__global)
SK_AT_SPACE(__local)
SK_AT_SPACE(__generic)
