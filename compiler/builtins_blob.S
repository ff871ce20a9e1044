/* This file embeds the builtin library bitcode (builtins/ in the build
 * tree) into the compiler library as cc_builtins_bc[cc_builtins_bc_size],
 * and Skein's own OpenCL C declarations of builtins Clang lacks
 * (builtins/skein_uniform_arith.h and skein_extended_bit_ops.h, each
 * guarded by its extension macro) as the NUL-terminated string
 * cc_skein_decls_h. */
        .section .rodata
        .balign 16
        .globl cc_builtins_bc
        .hidden cc_builtins_bc
cc_builtins_bc:
        .incbin SKEIN_BUILTINS_BC
cc_builtins_bc_end:
        .balign 8
        .globl cc_builtins_bc_size
        .hidden cc_builtins_bc_size
cc_builtins_bc_size:
        .quad cc_builtins_bc_end - cc_builtins_bc
        .globl cc_skein_decls_h
        .hidden cc_skein_decls_h
cc_skein_decls_h:
        .incbin SKEIN_UNIFORM_ARITH_H
        .incbin SKEIN_EXTENDED_BIT_OPS_H
        .byte 0
        .section .note.GNU-stack,"",@progbits
