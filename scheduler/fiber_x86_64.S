/* This file contains the x86-64 (System V) fiber switch: it saves the
 * callee-saved registers, MXCSR and the x87 control word on the current
 * stack, stores the stack pointer, loads the other one and restores the
 * same set from it. */
#if defined(__x86_64__)
        .text
        .globl  sched_fiber_switch
        .hidden sched_fiber_switch
        .type   sched_fiber_switch, @function
/* void sched_fiber_switch(sched_fiber_ctx *from %rdi, const sched_fiber_ctx *to %rsi) */
sched_fiber_switch:
        .cfi_startproc
        pushq   %rbp
        pushq   %rbx
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15
        subq    $8, %rsp
        stmxcsr (%rsp)
        fnstcw  4(%rsp)
        movq    %rsp, (%rdi)
        movq    (%rsi), %rsp
        ldmxcsr (%rsp)
        fldcw   4(%rsp)
        addq    $8, %rsp
        popq    %r15
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbx
        popq    %rbp
        ret
        .cfi_endproc
        .size   sched_fiber_switch, .-sched_fiber_switch

/* First code of a new fiber: sched_fiber_init left entry in %r12 and its
 * argument in %r13. */
        .globl  sched_fiber_trampoline
        .hidden sched_fiber_trampoline
        .type   sched_fiber_trampoline, @function
sched_fiber_trampoline:
        .cfi_startproc
        .cfi_undefined rip
        movq    %r13, %rdi
        callq   *%r12
        ud2                     /* entry must never return */
        .cfi_endproc
        .size   sched_fiber_trampoline, .-sched_fiber_trampoline
#endif
        .section .note.GNU-stack,"",@progbits
