/* This file contains fiber initialisation: for the assembly switches it
 * lays out a new stack so that the first sched_fiber_switch to it
 * "returns" into the architecture's trampoline, which calls the entry
 * function; elsewhere it wraps ucontext. */
#include "fiber.h"
#include <stdint.h>
#include <string.h>

#if defined(SKEIN_FIBER_PORTABLE)

/* makecontext passes int arguments only: the pointers travel as two
 * 32-bit halves. */
static void portable_start(unsigned entry_lo, unsigned entry_hi,
                           unsigned arg_lo, unsigned arg_hi) {
  uintptr_t entry = (uintptr_t)entry_lo | ((uintptr_t)entry_hi << 16 << 16);
  uintptr_t arg = (uintptr_t)arg_lo | ((uintptr_t)arg_hi << 16 << 16);
  ((sched_fiber_entry)entry)((void *)arg);
}

void sched_fiber_init(sched_fiber_ctx *ctx, void *stack, size_t size,
                      sched_fiber_entry entry, void *arg) {
  getcontext(&ctx->uc);
  ctx->uc.uc_stack.ss_sp = stack;
  ctx->uc.uc_stack.ss_size = size;
  ctx->uc.uc_link = NULL;
  uintptr_t e = (uintptr_t)entry, a = (uintptr_t)arg;
  makecontext(&ctx->uc, (void (*)(void))portable_start, 4,
              (unsigned)e, (unsigned)(e >> 16 >> 16), (unsigned)a,
              (unsigned)(a >> 16 >> 16));
}

void sched_fiber_switch(sched_fiber_ctx *from, const sched_fiber_ctx *to) {
  swapcontext(&from->uc, &to->uc);
}

#elif defined(__x86_64__)
void sched_fiber_trampoline(void);

void sched_fiber_init(sched_fiber_ctx *ctx, void *stack, size_t size,
                      sched_fiber_entry entry, void *arg) {
  /* The frame sched_fiber_switch pops, lowest address first:
   * [mxcsr|fpucw] r15 r14 r13 r12 rbx rbp, return address. After the
   * final ret the trampoline runs with rsp == top (16-byte aligned), so
   * its call enters entry with rsp == 8 mod 16, as the ABI requires. */
  uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  uint64_t *sp = (uint64_t *)top;
  *--sp = (uint64_t)(uintptr_t)sched_fiber_trampoline;
  *--sp = 0;                          /* rbp */
  *--sp = 0;                          /* rbx */
  *--sp = (uint64_t)(uintptr_t)entry; /* r12 */
  *--sp = (uint64_t)(uintptr_t)arg;   /* r13 */
  *--sp = 0;                          /* r14 */
  *--sp = 0;                          /* r15 */
  uint32_t mxcsr;
  uint16_t fpucw;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  __asm__ volatile("fnstcw %0" : "=m"(fpucw));
  *--sp = (uint64_t)mxcsr | ((uint64_t)fpucw << 32);
  ctx->sp = sp;
}

#elif defined(__aarch64__)
void sched_fiber_trampoline(void);

void sched_fiber_init(sched_fiber_ctx *ctx, void *stack, size_t size,
                      sched_fiber_entry entry, void *arg) {
  /* The 176-byte frame sched_fiber_switch restores: x19..x30 at 0..95
   * (x30, the link register, at 88), d8..d15 at 96..159, FPCR at 160.
   * sp stays 16-byte aligned, as AArch64 requires at all times. */
  uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  uint64_t *frame = (uint64_t *)(top - 176);
  memset(frame, 0, 176);
  frame[0] = (uint64_t)(uintptr_t)entry; /* x19 */
  frame[1] = (uint64_t)(uintptr_t)arg;   /* x20 */
  frame[11] = (uint64_t)(uintptr_t)sched_fiber_trampoline; /* x30 */
  uint64_t fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  frame[20] = fpcr;
  ctx->sp = frame;
}
#endif
