/* This file declares the cl_khr_work_group_uniform_arithmetic built-in
 * functions, which Clang 19's OpenCL headers lack. The compiler includes
 * it (embedded, as if by -include) after Clang's default header in every
 * compile; the declarations appear only where the extension macro is
 * defined, which the compiler does from the device's extension list and
 * the user's -cl-ext options (compiler/options.c). Their definitions are
 * the __skein_ctx_ functions of builtins/collectives.c. */
#if defined(cl_khr_work_group_uniform_arithmetic) &&                        \
    (__OPENCL_C_VERSION__ == 200 ||                                         \
     defined(__opencl_c_work_group_collective_functions))

#define __SKEIN_WG_OVL __attribute__((overloadable))

/* reduce, scan_inclusive and scan_exclusive of op for one type. */
#define __SKEIN_WG_ARITH(op, T)                                             \
  T __SKEIN_WG_OVL work_group_reduce_##op(T value);                         \
  T __SKEIN_WG_OVL work_group_scan_inclusive_##op(T value);                 \
  T __SKEIN_WG_OVL work_group_scan_exclusive_##op(T value);

#define __SKEIN_WG_INTS(op)                                                 \
  __SKEIN_WG_ARITH(op, int) __SKEIN_WG_ARITH(op, uint)                      \
  __SKEIN_WG_ARITH(op, long) __SKEIN_WG_ARITH(op, ulong)

/* Bitwise integer functions. */
__SKEIN_WG_INTS(and)
__SKEIN_WG_INTS(or)
__SKEIN_WG_INTS(xor)

/* Multiplicative functions. */
__SKEIN_WG_INTS(mul)
__SKEIN_WG_ARITH(mul, float)
#if defined(cl_khr_fp64) || defined(__opencl_c_fp64)
__SKEIN_WG_ARITH(mul, double)
#endif

/* Logical functions: int predicates, results 0 or 1. */
int __SKEIN_WG_OVL work_group_reduce_logical_and(int predicate);
int __SKEIN_WG_OVL work_group_reduce_logical_or(int predicate);
int __SKEIN_WG_OVL work_group_reduce_logical_xor(int predicate);
int __SKEIN_WG_OVL work_group_scan_inclusive_logical_and(int predicate);
int __SKEIN_WG_OVL work_group_scan_inclusive_logical_or(int predicate);
int __SKEIN_WG_OVL work_group_scan_inclusive_logical_xor(int predicate);
int __SKEIN_WG_OVL work_group_scan_exclusive_logical_and(int predicate);
int __SKEIN_WG_OVL work_group_scan_exclusive_logical_or(int predicate);
int __SKEIN_WG_OVL work_group_scan_exclusive_logical_xor(int predicate);

#undef __SKEIN_WG_INTS
#undef __SKEIN_WG_ARITH
#undef __SKEIN_WG_OVL

#endif
