/* This file declares the cl_khr_extended_bit_ops built-in functions, which
 * Clang 19 declares only in opencl-c.h, not under -fdeclare-opencl-builtins.
 * Their definitions are in builtins/integer_bitops.cl. The compiler
 * includes it after the default header (compiler/builtins_blob.S embeds
 * it); the guard hides it under -cl-ext=-cl_khr_extended_bit_ops. */
#if defined(cl_khr_extended_bit_ops)

#define __SKEIN_BITOPS_OVL __attribute__((overloadable, const))

#define __SKEIN_BITOPS(T, ST, UT)                                            \
  T __SKEIN_BITOPS_OVL bitfield_insert(T, T, uint, uint);                    \
  ST __SKEIN_BITOPS_OVL bitfield_extract_signed(T, uint, uint);              \
  UT __SKEIN_BITOPS_OVL bitfield_extract_unsigned(T, uint, uint);            \
  T __SKEIN_BITOPS_OVL bit_reverse(T);
#define __SKEIN_BITOPS_N(S, U)                                               \
  __SKEIN_BITOPS(S, S, U) __SKEIN_BITOPS(U, S, U)                            \
  __SKEIN_BITOPS(S##2, S##2, U##2) __SKEIN_BITOPS(U##2, S##2, U##2)          \
  __SKEIN_BITOPS(S##3, S##3, U##3) __SKEIN_BITOPS(U##3, S##3, U##3)          \
  __SKEIN_BITOPS(S##4, S##4, U##4) __SKEIN_BITOPS(U##4, S##4, U##4)          \
  __SKEIN_BITOPS(S##8, S##8, U##8) __SKEIN_BITOPS(U##8, S##8, U##8)          \
  __SKEIN_BITOPS(S##16, S##16, U##16) __SKEIN_BITOPS(U##16, S##16, U##16)
__SKEIN_BITOPS_N(char, uchar)
__SKEIN_BITOPS_N(short, ushort)
__SKEIN_BITOPS_N(int, uint)
__SKEIN_BITOPS_N(long, ulong)

#undef __SKEIN_BITOPS_N
#undef __SKEIN_BITOPS
#undef __SKEIN_BITOPS_OVL
#endif
