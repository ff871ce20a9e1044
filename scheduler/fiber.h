/* This file declares fibers: user-mode threads with their own stacks that
 * the scheduler switches between explicitly. A work-group in fiber mode
 * runs each work-item as a fiber; barriers and collectives switch.
 * x86-64 and AArch64 switch in a few instructions of assembly
 * (fiber_<arch>.S); any other target, or a build with
 * -DSKEIN_FIBER_PORTABLE, uses ucontext. */
#ifndef SKEIN_SCHEDULER_FIBER_H
#define SKEIN_SCHEDULER_FIBER_H

#include <stddef.h>

#if !defined(SKEIN_FIBER_PORTABLE) && !defined(__x86_64__) &&            \
    !defined(__aarch64__)
#define SKEIN_FIBER_PORTABLE 1
#endif

#ifdef SKEIN_FIBER_PORTABLE
#include <ucontext.h>
#endif

/* A suspended execution context. With assembly: just its saved stack
 * pointer; the callee-saved registers and FP control state are on that
 * stack. */
typedef struct sched_fiber_ctx {
#ifdef SKEIN_FIBER_PORTABLE
  ucontext_t uc;
#else
  void *sp;
#endif
} sched_fiber_ctx;

typedef void (*sched_fiber_entry)(void *arg);

/* Saves the current context in from and resumes to. Returns when some
 * other context switches back to from. */
void sched_fiber_switch(sched_fiber_ctx *from, const sched_fiber_ctx *to);

/* Prepares ctx to start running entry(arg) on the stack [stack,
 * stack + size) at its first switch. entry must not return: it switches
 * away for the last time instead. */
void sched_fiber_init(sched_fiber_ctx *ctx, void *stack, size_t size,
                      sched_fiber_entry entry, void *arg);

#endif
