/* This file contains the AArch64 (AAPCS64) fiber switch: it saves the
 * callee-saved registers x19-x30, d8-d15 and FPCR on the current stack,
 * stores the stack pointer, loads the other one and restores the same set
 * from it. */
#if defined(__aarch64__)
        .text
        .globl  sched_fiber_switch
        .hidden sched_fiber_switch
        .type   sched_fiber_switch, %function
/* void sched_fiber_switch(sched_fiber_ctx *from x0, const sched_fiber_ctx *to x1) */
sched_fiber_switch:
        sub     sp, sp, #176
        stp     x19, x20, [sp, #0]
        stp     x21, x22, [sp, #16]
        stp     x23, x24, [sp, #32]
        stp     x25, x26, [sp, #48]
        stp     x27, x28, [sp, #64]
        stp     x29, x30, [sp, #80]
        stp     d8, d9, [sp, #96]
        stp     d10, d11, [sp, #112]
        stp     d12, d13, [sp, #128]
        stp     d14, d15, [sp, #144]
        mrs     x9, fpcr
        str     x9, [sp, #160]
        mov     x9, sp
        str     x9, [x0]
        ldr     x9, [x1]
        mov     sp, x9
        ldr     x9, [sp, #160]
        msr     fpcr, x9
        ldp     x19, x20, [sp, #0]
        ldp     x21, x22, [sp, #16]
        ldp     x23, x24, [sp, #32]
        ldp     x25, x26, [sp, #48]
        ldp     x27, x28, [sp, #64]
        ldp     x29, x30, [sp, #80]
        ldp     d8, d9, [sp, #96]
        ldp     d10, d11, [sp, #112]
        ldp     d12, d13, [sp, #128]
        ldp     d14, d15, [sp, #144]
        add     sp, sp, #176
        ret
        .size   sched_fiber_switch, .-sched_fiber_switch

/* First code of a new fiber: sched_fiber_init left entry in x19 and its
 * argument in x20; x30 (the "return address" restored above) points here. */
        .globl  sched_fiber_trampoline
        .hidden sched_fiber_trampoline
        .type   sched_fiber_trampoline, %function
sched_fiber_trampoline:
        mov     x0, x20
        blr     x19
        brk     #0              /* entry must never return */
        .size   sched_fiber_trampoline, .-sched_fiber_trampoline
#endif
        .section .note.GNU-stack,"",%progbits
