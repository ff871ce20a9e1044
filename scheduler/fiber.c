/* This file contains fiber initialisation: it lays out a new stack so
 * that the first sched_fiber_switch to it "returns" into the trampoline of
 * the architecture's assembly file, which calls the entry function. */
#include "fiber.h"
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
void sched_fiber_trampoline(void);

void sched_fiber_init(sched_fiber_ctx *ctx, void *stack, size_t size,
                      sched_fiber_entry entry, void *arg) {
  /* The frame sched_fiber_switch pops, lowest address first:
   * [mxcsr|fpucw] r15 r14 r13 r12 rbx rbp, return address. The return
   * address lands on a 16-byte boundary + 8, as at any function entry. */
  uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  /* After the final ret the trampoline runs with rsp == top (16-byte
   * aligned), so its call enters entry with rsp == 8 mod 16, as the ABI
   * requires. */
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
#endif
