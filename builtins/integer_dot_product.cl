/* This file contains the cl_khr_integer_dot_product builtins (OpenCL C
 * 3.0 section 6.15.3.3 with the extension): dot and dot_acc_sat of
 * uchar4/char4 in every signedness pairing, and the packed forms
 * dot_4x8packed_{uu,ss,us,su}_{uint,int} and dot_acc_sat_4x8packed_*,
 * whose uint operands hold four 8-bit components, component 0 in the
 * least significant byte. The product sums are exact in 32 bits (four
 * products of at most 2^16 each); the _acc_sat forms then add acc with
 * saturation. The mixed-signedness forms (unsigned x signed, either
 * order, plain and saturating) go through __skein_dot_us and
 * __skein_dot_us_sat, to which compiler/dot_vnni.c gives VNNI vector
 * forms (vpdpbusd/vpdpbusds over 16 or 8 work-items) when the target has
 * AVX512-VNNI or AVX-VNNI; the other forms are plain integer arithmetic.
 * Clang declares them when the feature macros below are defined, as the
 * compiler does for programs (compiler/options.c). */
#define __opencl_c_integer_dot_product_input_4x8bit 1
#define __opencl_c_integer_dot_product_input_4x8bit_packed 1
#include "builtins.h"

#define DOT4(a, b)                                                           \
  ((int)(a).s0 * (int)(b).s0 + (int)(a).s1 * (int)(b).s1 +                   \
   (int)(a).s2 * (int)(b).s2 + (int)(a).s3 * (int)(b).s3)

OVL uint dot(uchar4 a, uchar4 b) { return (uint)DOT4(a, b); }
OVL int dot(char4 a, char4 b) { return DOT4(a, b); }
/* The unsigned x signed dot product of packed a and b plus acc, with
 * the 32-bit wrap-around (plain) or signed saturation (_sat) of the final
 * add: exactly what one 32-bit lane of vpdpbusd or vpdpbusds computes.
 * noinline: the loop vectoriser must see the call to use the vector
 * forms compiler/dot_vnni.c names for it; on a target without VNNI that
 * file removes the noinline and they inline as before. Not static: the
 * compiler finds them by name. */
__attribute__((noinline, const)) int __skein_dot_us(int acc, uint a, uint b);
__attribute__((noinline, const)) int __skein_dot_us_sat(int acc, uint a,
                                                        uint b);

OVL int dot(char4 a, uchar4 b) { return __skein_dot_us(0, as_uint(b), as_uint(a)); }
OVL int dot(uchar4 a, char4 b) { return __skein_dot_us(0, as_uint(a), as_uint(b)); }

OVL uint dot_acc_sat(uchar4 a, uchar4 b, uint acc) {
  return add_sat((uint)DOT4(a, b), acc);
}
OVL int dot_acc_sat(char4 a, char4 b, int acc) {
  return add_sat(DOT4(a, b), acc);
}
OVL int dot_acc_sat(char4 a, uchar4 b, int acc) {
  return __skein_dot_us_sat(acc, as_uint(b), as_uint(a));
}
OVL int dot_acc_sat(uchar4 a, char4 b, int acc) {
  return __skein_dot_us_sat(acc, as_uint(a), as_uint(b));
}

/* Byte k of a packed operand as an unsigned or signed int: shifts of
 * the uint itself, not a uchar4/char4 view, so that the work-item loop
 * around a kernel calling the packed forms stays in scalar types, which
 * LLVM's loop vectoriser widens across work-items. */
#define UB(x, k) ((int)(((x) >> (8 * (k))) & 0xffu))
#define SB(x, k) ((int)((x) << (24 - 8 * (k))) >> 24)
#define PACKED(A, B, x, y)                                                   \
  (A(x, 0) * B(y, 0) + A(x, 1) * B(y, 1) + A(x, 2) * B(y, 2) +              \
   A(x, 3) * B(y, 3))

OVL uint dot_4x8packed_uu_uint(uint a, uint b) {
  return (uint)PACKED(UB, UB, a, b);
}
OVL int dot_4x8packed_ss_int(uint a, uint b) { return PACKED(SB, SB, a, b); }

int __skein_dot_us(int acc, uint a, uint b) {
  return (int)((uint)acc + (uint)PACKED(UB, SB, a, b));
}
int __skein_dot_us_sat(int acc, uint a, uint b) {
  return add_sat(PACKED(UB, SB, a, b), acc);
}

OVL int dot_4x8packed_us_int(uint a, uint b) {
  return __skein_dot_us(0, a, b);
}
OVL int dot_4x8packed_su_int(uint a, uint b) {
  return __skein_dot_us(0, b, a);
}

OVL uint dot_acc_sat_4x8packed_uu_uint(uint a, uint b, uint acc) {
  return add_sat(dot_4x8packed_uu_uint(a, b), acc);
}
OVL int dot_acc_sat_4x8packed_ss_int(uint a, uint b, int acc) {
  return add_sat(dot_4x8packed_ss_int(a, b), acc);
}
OVL int dot_acc_sat_4x8packed_us_int(uint a, uint b, int acc) {
  return __skein_dot_us_sat(acc, a, b);
}
OVL int dot_acc_sat_4x8packed_su_int(uint a, uint b, int acc) {
  return __skein_dot_us_sat(acc, b, a);
}

/* The names llvm-spirv 15 gives OpSDot, OpUDot, OpSUDot and their
 * AccSat forms when it reads SPIR-V (SPV_KHR_integer_dot_product) back:
 * "SPIR-V friendly" calls whose vectors are char4 whatever their
 * signedness, and whose packed forms take the packed-format operand
 * (0, PackedVectorFormat4x8Bit) last. Results of 32 bits only. */
OVL int __spirv_SDotKHR_Rint(char4 a, char4 b) { return dot(a, b); }
OVL uint __spirv_UDotKHR_Ruint(char4 a, char4 b) {
  return dot(as_uchar4(a), as_uchar4(b));
}
OVL int __spirv_SUDotKHR_Rint(char4 a, char4 b) {
  return dot(a, as_uchar4(b));
}
OVL int __spirv_SDotAccSatKHR_Rint(char4 a, char4 b, int acc) {
  return dot_acc_sat(a, b, acc);
}
OVL uint __spirv_UDotAccSatKHR_Ruint(char4 a, char4 b, int acc) {
  return dot_acc_sat(as_uchar4(a), as_uchar4(b), (uint)acc);
}
OVL int __spirv_SUDotAccSatKHR_Rint(char4 a, char4 b, int acc) {
  return dot_acc_sat(a, as_uchar4(b), acc);
}
OVL int __spirv_SDotKHR_Rint(int a, int b, int format) {
  return dot_4x8packed_ss_int((uint)a, (uint)b);
}
OVL uint __spirv_UDotKHR_Ruint(int a, int b, int format) {
  return dot_4x8packed_uu_uint((uint)a, (uint)b);
}
OVL int __spirv_SUDotKHR_Rint(int a, int b, int format) {
  return dot_4x8packed_su_int((uint)a, (uint)b);
}
OVL int __spirv_SDotAccSatKHR_Rint(int a, int b, int acc, int format) {
  return dot_acc_sat_4x8packed_ss_int((uint)a, (uint)b, acc);
}
OVL uint __spirv_UDotAccSatKHR_Ruint(int a, int b, int acc, int format) {
  return dot_acc_sat_4x8packed_uu_uint((uint)a, (uint)b, (uint)acc);
}
OVL int __spirv_SUDotAccSatKHR_Rint(int a, int b, int acc, int format) {
  return dot_acc_sat_4x8packed_su_int((uint)a, (uint)b, acc);
}
