/* This file declares the compiler's side of cl_khr_integer_dot_product
 * on VNNI (compiler/dot_vnni.c). */
#ifndef SKEIN_COMPILER_DOT_VNNI_H
#define SKEIN_COMPILER_DOT_VNNI_H

#include <llvm-c/Core.h>

/* Before the module's functions get the target's attributes: on a VNNI
 * target, gives builtins/integer_dot_product.cl's __skein_dot_us and
 * __skein_dot_us_sat vector forms for the loop vectoriser (vpdpbusd and
 * vpdpbusds over 16 lanes with AVX-512, 8 with 256-bit vectors);
 * elsewhere lets them inline. */
void cc_dot_prepare(LLVMModuleRef m);

#endif
