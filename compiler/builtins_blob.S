/* This file embeds the builtin library bitcode (builtins/ in the build
 * tree) into the compiler library as cc_builtins_bc[cc_builtins_bc_size]. */
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
        .section .note.GNU-stack,"",@progbits
