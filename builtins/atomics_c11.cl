/* This file contains the OpenCL C 2.0/3.0 C11-style atomic functions
 * (spec 6.15.12: atomic_init, atomic_load/store/exchange,
 * atomic_compare_exchange_strong/weak, atomic_fetch_<op>, atomic_flag_*,
 * each with its _explicit forms) for global, local and generic pointers.
 * atomic_work_item_fence lives with the other fences in sync.c. */
#include "builtins.h"

#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

/* Every function becomes a real LLVM atomic (atomicrmw, cmpxchg, load
 * atomic, store atomic) through Clang's __opencl_atomic_* builtins, which
 * take the order and scope as separate arguments. Orders: a constant
 * order becomes that LLVM ordering; an order only known at run time
 * makes Clang emit a switch over the valid orders, each case with its own
 * ordering (so a run-time memory_order_seq_cst really is seq_cst, and an
 * invalid order falls back to relaxed, which is allowed: the spec leaves
 * it undefined). After inlining, a constant order folds the switch away.
 * Scopes: Clang maps every OpenCL scope to LLVM's default (system)
 * syncscope on this target. That is exact for device and all_devices
 * (work-groups run on several threads, SVM is host memory) and merely
 * stronger than needed for work_group; x86 has no cheaper instruction for
 * a narrower scope anyway.
 * always_inline: the loop-mode work-group generator needs every callee
 * inlined. Not `const`: they read and write memory. */
#define SKA __attribute__((overloadable, always_inline))

/* The defaults of the non-_explicit forms (spec 6.15.12.2:
 * memory_order_seq_cst and memory_scope_device), and of the _explicit
 * forms without a scope argument (memory_scope_device). The enumerator
 * names are not all declared for this target, hence Clang's numbers. */
#define SKA_SEQ __ATOMIC_SEQ_CST
#define SKA_DEV __OPENCL_MEMORY_SCOPE_DEVICE

/* atomic_init: a non-atomic initialisation (spec: "not atomic with
 * respect to another work-item"), still through the builtin so that the
 * _Atomic object is written with its own representation. */
#define SKA_INIT(A, T, AS)                                                   \
  SKA void atomic_init(volatile AS A *p, T v) { __opencl_atomic_init(p, v); }

/* load, store, exchange: default, order-only and order+scope forms. */
#define SKA_LSX(A, T, AS)                                                    \
  SKA T atomic_load_explicit(volatile AS A *p, memory_order o,               \
                             memory_scope s) {                               \
    return __opencl_atomic_load(p, o, s);                                    \
  }                                                                          \
  SKA T atomic_load_explicit(volatile AS A *p, memory_order o) {             \
    return __opencl_atomic_load(p, o, SKA_DEV);                              \
  }                                                                          \
  SKA T atomic_load(volatile AS A *p) {                                      \
    return __opencl_atomic_load(p, SKA_SEQ, SKA_DEV);                        \
  }                                                                          \
  SKA void atomic_store_explicit(volatile AS A *p, T v, memory_order o,      \
                                 memory_scope s) {                           \
    __opencl_atomic_store(p, v, o, s);                                       \
  }                                                                          \
  SKA void atomic_store_explicit(volatile AS A *p, T v, memory_order o) {    \
    __opencl_atomic_store(p, v, o, SKA_DEV);                                 \
  }                                                                          \
  SKA void atomic_store(volatile AS A *p, T v) {                             \
    __opencl_atomic_store(p, v, SKA_SEQ, SKA_DEV);                           \
  }                                                                          \
  SKA T atomic_exchange_explicit(volatile AS A *p, T v, memory_order o,      \
                                 memory_scope s) {                           \
    return __opencl_atomic_exchange(p, v, o, s);                             \
  }                                                                          \
  SKA T atomic_exchange_explicit(volatile AS A *p, T v, memory_order o) {    \
    return __opencl_atomic_exchange(p, v, o, SKA_DEV);                       \
  }                                                                          \
  SKA T atomic_exchange(volatile AS A *p, T v) {                             \
    return __opencl_atomic_exchange(p, v, SKA_SEQ, SKA_DEV);                 \
  }

/* compare_exchange_KIND (strong or weak) with the object in AS and the
 * expected value in EAS. On failure the current value is written to
 * *expected. Float and double compare bit patterns, as C11 does (Clang's
 * cmpxchg on the integer representation). */
#define SKA_CMPXCHG_AS(KIND, A, T, AS, EAS)                                  \
  SKA bool atomic_compare_exchange_##KIND##_explicit(                        \
      volatile AS A *p, EAS T *expected, T desired, memory_order success,     \
      memory_order failure, memory_scope s) {                                \
    return __opencl_atomic_compare_exchange_##KIND(p, expected, desired,     \
                                                   success, failure, s);     \
  }                                                                          \
  SKA bool atomic_compare_exchange_##KIND##_explicit(                        \
      volatile AS A *p, EAS T *expected, T desired, memory_order success,     \
      memory_order failure) {                                                \
    return __opencl_atomic_compare_exchange_##KIND(p, expected, desired,     \
                                                   success, failure,         \
                                                   SKA_DEV);                 \
  }                                                                          \
  SKA bool atomic_compare_exchange_##KIND(volatile AS A *p, EAS T *expected, \
                                          T desired) {                       \
    return __opencl_atomic_compare_exchange_##KIND(p, expected, desired,     \
                                                   SKA_SEQ, SKA_SEQ,         \
                                                   SKA_DEV);                 \
  }

/* Clang declares the expected value in each named address space for an
 * object in a named one (OpenCL C 3.0 without the generic address
 * space), and a generic one for a generic object (OpenCL C 2.0). */
#define SKA_CMPXCHG(KIND, A, T, AS) SKA_CMPXCHG_##AS(KIND, A, T)
#define SKA_CMPXCHG_NAMED(KIND, A, T, AS)                                    \
  SKA_CMPXCHG_AS(KIND, A, T, AS, __global)                                   \
  SKA_CMPXCHG_AS(KIND, A, T, AS, __local)                                    \
  SKA_CMPXCHG_AS(KIND, A, T, AS, __private)
#define SKA_CMPXCHG___global(KIND, A, T) SKA_CMPXCHG_NAMED(KIND, A, T, __global)
#define SKA_CMPXCHG___local(KIND, A, T) SKA_CMPXCHG_NAMED(KIND, A, T, __local)
#define SKA_CMPXCHG___generic(KIND, A, T)                                    \
  SKA_CMPXCHG_AS(KIND, A, T, __generic, __generic)

/* atomic_fetch_OP[_explicit] on object type A with operand type V
 * (V differs from T only for atomic_uintptr_t += ptrdiff_t). */
#define SKA_FETCH(OP, A, T, V, AS)                                           \
  SKA T atomic_fetch_##OP##_explicit(volatile AS A *p, V v, memory_order o,  \
                                     memory_scope s) {                       \
    return __opencl_atomic_fetch_##OP(p, (T)v, o, s);                        \
  }                                                                          \
  SKA T atomic_fetch_##OP##_explicit(volatile AS A *p, V v,                  \
                                     memory_order o) {                       \
    return __opencl_atomic_fetch_##OP(p, (T)v, o, SKA_DEV);                  \
  }                                                                          \
  SKA T atomic_fetch_##OP(volatile AS A *p, V v) {                           \
    return __opencl_atomic_fetch_##OP(p, (T)v, SKA_SEQ, SKA_DEV);            \
  }

/* The integer types: everything. min/max compare as T is signed or
 * unsigned (Clang takes it from the atomic type). */
#define SKA_INT(A, T, AS)                                                    \
  SKA_INIT(A, T, AS) SKA_LSX(A, T, AS)                                       \
  SKA_CMPXCHG(strong, A, T, AS) SKA_CMPXCHG(weak, A, T, AS)                  \
  SKA_FETCH(add, A, T, T, AS) SKA_FETCH(sub, A, T, T, AS)                    \
  SKA_FETCH(or, A, T, T, AS) SKA_FETCH(xor, A, T, T, AS)                     \
  SKA_FETCH(and, A, T, T, AS) SKA_FETCH(min, A, T, T, AS)                    \
  SKA_FETCH(max, A, T, T, AS)

/* float and double: no fetch-and-op (that is cl_ext_float_atomics). */
#define SKA_FP(A, T, AS)                                                     \
  SKA_INIT(A, T, AS) SKA_LSX(A, T, AS)                                       \
  SKA_CMPXCHG(strong, A, T, AS) SKA_CMPXCHG(weak, A, T, AS)

/* atomic_flag is an atomic_int holding 0 (clear) or 1 (set). */
#define SKA_FLAG(AS)                                                         \
  SKA bool atomic_flag_test_and_set_explicit(volatile AS atomic_flag *f,     \
                                             memory_order o,                 \
                                             memory_scope s) {               \
    return __opencl_atomic_exchange(f, 1, o, s) != 0;                        \
  }                                                                          \
  SKA bool atomic_flag_test_and_set_explicit(volatile AS atomic_flag *f,     \
                                             memory_order o) {               \
    return __opencl_atomic_exchange(f, 1, o, SKA_DEV) != 0;                  \
  }                                                                          \
  SKA bool atomic_flag_test_and_set(volatile AS atomic_flag *f) {            \
    return __opencl_atomic_exchange(f, 1, SKA_SEQ, SKA_DEV) != 0;            \
  }                                                                          \
  SKA void atomic_flag_clear_explicit(volatile AS atomic_flag *f,            \
                                      memory_order o, memory_scope s) {      \
    __opencl_atomic_store(f, 0, o, s);                                       \
  }                                                                          \
  SKA void atomic_flag_clear_explicit(volatile AS atomic_flag *f,            \
                                      memory_order o) {                      \
    __opencl_atomic_store(f, 0, o, SKA_DEV);                                 \
  }                                                                          \
  SKA void atomic_flag_clear(volatile AS atomic_flag *f) {                   \
    __opencl_atomic_store(f, 0, SKA_SEQ, SKA_DEV);                           \
  }

/* Every function for one address space. atomic_intptr_t, atomic_size_t
 * and atomic_ptrdiff_t are atomic_long/atomic_ulong on this target, so
 * the only extra overloads are atomic_uintptr_t's add/sub taking a
 * ptrdiff_t (Clang's declarations: atomic_ulong with a long operand). */
#define SKA_SPACE(AS)                                                        \
  SKA_INT(atomic_int, int, AS) SKA_INT(atomic_uint, uint, AS)                \
  SKA_INT(atomic_long, long, AS) SKA_INT(atomic_ulong, ulong, AS)            \
  SKA_FETCH(add, atomic_uintptr_t, uintptr_t, ptrdiff_t, AS)                 \
  SKA_FETCH(sub, atomic_uintptr_t, uintptr_t, ptrdiff_t, AS)                 \
  SKA_FP(atomic_float, float, AS) SKA_FP(atomic_double, double, AS)          \
  SKA_FLAG(AS)

/* OpenCL C 3.0 programs without the generic address space feature (what
 * the device reports) call the global and local overloads; OpenCL C 2.0
 * programs call the generic ones, which on a CPU are the same memory. */
SKA_SPACE(__global)
SKA_SPACE(__local)
SKA_SPACE(__generic)
