/* This file contains cl_ext_float_atomics: atomic_fetch_add/sub/min/max
 * (each with its _explicit forms) on atomic_half, atomic_float and
 * atomic_double, and atomic_init/load/store/exchange on atomic_half, for
 * global, local and generic pointers. (float and double load, store and
 * exchange are core OpenCL C: builtins/atomics_c11.cl.) */
#include "builtins.h"

#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

/* add and sub are one LLVM `atomicrmw fadd/fsub` each (Clang's
 * __opencl_atomic_fetch_add/sub on a floating-point atomic type). x86 has
 * no floating-point read-modify-write instruction, so LLVM's atomic
 * expansion turns each into a compare-exchange loop on the integer
 * representation (lock cmpxchg of 2, 4 or 8 bytes) around the scalar
 * operation: IEEE arithmetic in the current rounding mode, and for half
 * the sum in float rounded once to half, which is the correctly rounded
 * half sum (float has more than twice half's precision).
 *
 * min and max are such a loop written out here (SKF_MINMAX), not
 * `atomicrmw fmin/fmax`: the x86 back end lowers half's minnum to a call
 * of fminf, which the JIT does not resolve, and the comparison below says
 * the extension's rules directly: a NaN in memory is replaced by the
 * operand, a NaN operand leaves memory as it is (so min(x, NaN) = x and
 * two NaNs give a NaN), and of -0 and +0 the value already in memory
 * stays (the extension allows either).
 *
 * Orders and scopes are passed through as in atomics_c11.cl: a run-time
 * order becomes Clang's switch over the valid orderings; every scope is
 * the system scope, exact for device and all_devices and stronger than
 * needed for work_group. always_inline for the loop-mode generator. */
#define SKF __attribute__((overloadable, always_inline))
#define SKF_SEQ __ATOMIC_SEQ_CST
#define SKF_DEV __OPENCL_MEMORY_SCOPE_DEVICE

/* atomic_fetch_OP[_explicit] on atomic type A of value type T. */
#define SKF_FETCH(OP, A, T, AS)                                              \
  SKF T atomic_fetch_##OP##_explicit(volatile AS A *p, T v, memory_order o,  \
                                     memory_scope s) {                       \
    return __opencl_atomic_fetch_##OP(p, v, o, s);                           \
  }                                                                          \
  SKF T atomic_fetch_##OP##_explicit(volatile AS A *p, T v,                  \
                                     memory_order o) {                       \
    return __opencl_atomic_fetch_##OP(p, v, o, SKF_DEV);                     \
  }                                                                          \
  SKF T atomic_fetch_##OP(volatile AS A *p, T v) {                           \
    return __opencl_atomic_fetch_##OP(p, v, SKF_SEQ, SKF_DEV);               \
  }

/* atomic_fetch_OP[_explicit] for min or max: BETTER(v, old) says the
 * operand v replaces a non-NaN old. Every call writes (the old value
 * again if it stays), so each is a read-modify-write with order o as the
 * memory model asks, whatever the values; a failed exchange is relaxed
 * and reloads old. */
#define SKF_MINMAX(OP, BETTER, A, T, AS)                                     \
  SKF T atomic_fetch_##OP##_explicit(volatile AS A *p, T v, memory_order o,  \
                                     memory_scope s) {                       \
    T old = __opencl_atomic_load(p, __ATOMIC_RELAXED, s);                    \
    for (;;) {                                                               \
      T next = (old != old || BETTER(v, old)) ? v : old;                     \
      if (__opencl_atomic_compare_exchange_weak(p, &old, next, o,           \
                                                __ATOMIC_RELAXED, s))        \
        return old;                                                          \
    }                                                                        \
  }                                                                          \
  SKF T atomic_fetch_##OP##_explicit(volatile AS A *p, T v,                  \
                                     memory_order o) {                       \
    return atomic_fetch_##OP##_explicit(p, v, o, SKF_DEV);                   \
  }                                                                          \
  SKF T atomic_fetch_##OP(volatile AS A *p, T v) {                           \
    return atomic_fetch_##OP##_explicit(p, v, SKF_SEQ, SKF_DEV);             \
  }
#define SKF_LESS(v, old) ((v) < (old))
#define SKF_GREATER(v, old) ((v) > (old))

#define SKF_ARITH(A, T, AS)                                                  \
  SKF_FETCH(add, A, T, AS) SKF_FETCH(sub, A, T, AS)                          \
  SKF_MINMAX(min, SKF_LESS, A, T, AS) SKF_MINMAX(max, SKF_GREATER, A, T, AS)

/* atomic_half's load, store and exchange (the extension's
 * __opencl_c_ext_fp16_*_atomic_load_store features). Clang 19's builtin
 * declarations give atomic_store's value the type atomic_half rather than
 * half (so a call mangles it as `U7_AtomicDh`); the definitions take what
 * those declarations pass: a program's half argument is converted to it
 * at the call, and reading the parameter back is a plain load. */
#define SKF_HALF_LSX(AS)                                                     \
  SKF half atomic_load_explicit(volatile AS atomic_half *p, memory_order o,  \
                                memory_scope s) {                            \
    return __opencl_atomic_load(p, o, s);                                    \
  }                                                                          \
  SKF half atomic_load_explicit(volatile AS atomic_half *p,                  \
                                memory_order o) {                            \
    return __opencl_atomic_load(p, o, SKF_DEV);                              \
  }                                                                          \
  SKF half atomic_load(volatile AS atomic_half *p) {                         \
    return __opencl_atomic_load(p, SKF_SEQ, SKF_DEV);                        \
  }                                                                          \
  SKF void atomic_store_explicit(volatile AS atomic_half *p, atomic_half v,  \
                                 memory_order o, memory_scope s) {           \
    __opencl_atomic_store(p, (half)v, o, s);                                 \
  }                                                                          \
  SKF void atomic_store_explicit(volatile AS atomic_half *p, atomic_half v,  \
                                 memory_order o) {                           \
    __opencl_atomic_store(p, (half)v, o, SKF_DEV);                           \
  }                                                                          \
  SKF void atomic_store(volatile AS atomic_half *p, atomic_half v) {         \
    __opencl_atomic_store(p, (half)v, SKF_SEQ, SKF_DEV);                     \
  }                                                                          \
  SKF half atomic_exchange_explicit(volatile AS atomic_half *p, half v,      \
                                    memory_order o, memory_scope s) {        \
    return __opencl_atomic_exchange(p, v, o, s);                             \
  }                                                                          \
  SKF half atomic_exchange_explicit(volatile AS atomic_half *p, half v,      \
                                    memory_order o) {                        \
    return __opencl_atomic_exchange(p, v, o, SKF_DEV);                       \
  }                                                                          \
  SKF half atomic_exchange(volatile AS atomic_half *p, half v) {             \
    return __opencl_atomic_exchange(p, v, SKF_SEQ, SKF_DEV);                 \
  }

#define SKF_SPACE(AS)                                                        \
  SKF_ARITH(atomic_half, half, AS) SKF_ARITH(atomic_float, float, AS)        \
  SKF_ARITH(atomic_double, double, AS) SKF_HALF_LSX(AS)

SKF_SPACE(__global)
SKF_SPACE(__local)
SKF_SPACE(__generic)

/* SPIR-V's OpAtomicFAddEXT, OpAtomicFMinEXT and OpAtomicFMaxEXT
 * (SPV_EXT_shader_atomic_float_add, _float16_add, _float_min_max), which
 * compiler/spirv_lower.c turns into calls of these with the
 * instruction's operands: the pointer, the SPIR-V memory scope, the
 * memory semantics and the value. llvm-spirv 15 would read them back as
 * OpenCL 1.x-style calls without either. Semantics: Acquire 0x2, Release
 * 0x4, AcquireRelease 0x8, SequentiallyConsistent 0x10, none relaxed (the
 * storage-class bits say which memory, which a CPU orders alike). Scopes:
 * CrossDevice 0, Device 1, Workgroup 2, Subgroup 3, Invocation 4. */
static memory_order skf_spirv_order(uint semantics) {
  return (semantics & 0x10)  ? memory_order_seq_cst
         : (semantics & 0x8) ? memory_order_acq_rel
         : (semantics & 0x6) == 0x6 ? memory_order_acq_rel
         : (semantics & 0x4) ? memory_order_release
         : (semantics & 0x2) ? memory_order_acquire
                             : memory_order_relaxed;
}

static memory_scope skf_spirv_scope(uint scope) {
  switch (scope) {
  case 0:
    return (memory_scope)__OPENCL_MEMORY_SCOPE_ALL_SVM_DEVICES;
  case 2:
    return (memory_scope)__OPENCL_MEMORY_SCOPE_WORK_GROUP;
  case 3:
    return (memory_scope)__OPENCL_MEMORY_SCOPE_SUB_GROUP;
  case 4:
    return (memory_scope)__OPENCL_MEMORY_SCOPE_WORK_ITEM;
  default:
    return (memory_scope)__OPENCL_MEMORY_SCOPE_DEVICE;
  }
}

#define SKF_SPIRV(OP, FN, A, T, W, AS, SPACE)                                \
  __attribute__((always_inline)) T                                           \
      __skein_spirv_atomic_f##OP##_f##W##_##SPACE(                            \
          volatile AS A *p, uint scope, uint semantics, T v) {               \
    return atomic_fetch_##FN##_explicit(p, v, skf_spirv_order(semantics),   \
                                        skf_spirv_scope(scope));             \
  }
#define SKF_SPIRV_TYPE(A, T, W, AS, SPACE)                                   \
  SKF_SPIRV(add, add, A, T, W, AS, SPACE)                                    \
  SKF_SPIRV(min, min, A, T, W, AS, SPACE)                                    \
  SKF_SPIRV(max, max, A, T, W, AS, SPACE)
#define SKF_SPIRV_SPACE(AS, SPACE)                                           \
  SKF_SPIRV_TYPE(atomic_half, half, 16, AS, SPACE)                           \
  SKF_SPIRV_TYPE(atomic_float, float, 32, AS, SPACE)                         \
  SKF_SPIRV_TYPE(atomic_double, double, 64, AS, SPACE)

SKF_SPIRV_SPACE(__global, global)
SKF_SPIRV_SPACE(__local, local)
SKF_SPIRV_SPACE(__generic, generic)
