/* This file embeds Skein's own OpenCL C declarations of builtins Clang
 * lacks (builtins/skein_uniform_arith.h, skein_extended_bit_ops.h and
 * skein_intel_subgroups.h, each
 * guarded by its extension macro), after the OpenCL C 3.1 macros
 * (skein_opencl_c_3_1.h), into the compiler library as the
 * NUL-terminated string cc_skein_decls_h. (The builtin library's bitcode
 * is embedded family by family by the generated builtin_families.S.) */
        .section .rodata
        .globl cc_skein_decls_h
        .hidden cc_skein_decls_h
cc_skein_decls_h:
        .incbin SKEIN_OPENCL_C_3_1_H
        .incbin SKEIN_UNIFORM_ARITH_H
        .incbin SKEIN_EXTENDED_BIT_OPS_H
        .incbin SKEIN_INTEL_SUBGROUPS_H
        .byte 0
        .section .note.GNU-stack,"",@progbits
