/* This file contains cl_khr_subgroup_named_barrier's two operations, which
 * SPIR-V modules reach through compiler/spirv_lower.c (llvm-spirv 15
 * cannot translate them): __spirv_NamedBarrierInitialize, the
 * OpNamedBarrierInitialize of a sub-group count, and
 * __spirv_MemoryNamedBarrier, OpMemoryNamedBarrier: the sub-groups that
 * reach it wait until the count of sub-groups have, then the count
 * starts again from 0 (the barrier is used in phases).
 *
 * Fiber mode only (compiler/callgraph.c sends kernels that call them
 * there; region mode declines them by name). A barrier's state is four
 * words of a Workgroup table the module gains, one entry per
 * OpNamedBarrierInitialize instruction. A sub-group arrives as one: its
 * members park at a sub-group operation (skein_hooks.sub_group_operation)
 * whose single run counts the arrival and hands every member the phase it
 * arrived in; each then yields (skein_hooks.yield, which runs the other
 * sub-groups) until the phase has moved on. All work-items of a group run
 * on one thread, so the state needs no atomics, only compiler fences. */
#include "collective_ops.h"

#define AS_LOCAL __attribute__((address_space(3)))

typedef struct named_barrier {
  uint32_t count;     /* sub-groups per phase */
  uint32_t arrived;   /* sub-groups arrived in this phase */
  uint32_t phase;     /* phases completed */
  uint32_t unused;
} named_barrier;

/* One member's part of an arrival. */
typedef struct nb_member {
  AS_LOCAL named_barrier *b;
  uint32_t phase;     /* the phase it arrived in */
} nb_member;

/* OpNamedBarrierInitialize is a work-group operation (every work-item
 * reaches it with the same count): each writes the same state, and a
 * work-group barrier keeps anyone from waiting on it before all have.
 * A count of 0 is taken as 1, so that a phase always ends. */
AS_LOCAL void *__skein_ctx___spirv_NamedBarrierInitialize(
    skein_group *g, AS_LOCAL uint32_t *table, uint32_t index,
    uint32_t count) {
  AS_LOCAL named_barrier *b = (AS_LOCAL named_barrier *)table + index;
  b->count = count ? count : 1;
  b->arrived = 0;
  b->phase = 0;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (g->fiber)
    g->launch->hooks->barrier(g);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  return b;
}

/* The sub-group's members met at the barrier: one arrival per distinct
 * barrier among them (a sub-group waits on one; another mix is undefined
 * and still counts each once). */
static void nb_arrive(void *const *members, unsigned n) {
  for (unsigned k = 0; k < n; k++) {
    nb_member *m = members[k];
    unsigned first = 0;
    while (((nb_member *)members[first])->b != m->b)
      first++;
    if (first < k) {
      m->phase = ((nb_member *)members[first])->phase;
      continue;
    }
    AS_LOCAL named_barrier *b = m->b;
    m->phase = b->phase;
    if (++b->arrived >= b->count) {
      b->arrived = 0;
      b->phase++;
    }
  }
}

/* Never inlined, so that its return address names the call site (as
 * sg_park in subgroups_ops.h). */
static __attribute__((noinline)) void nb_park(skein_group *g,
                                              nb_member *m) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  g->launch->hooks->sub_group_operation(g, nb_arrive,
                                        __builtin_return_address(0), m);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* The scope and semantics only say which memory becomes visible to the
 * sub-groups released: every work-item of the group runs on this thread,
 * so the compiler fences around the wait are all it takes. */
void __skein_ctx___spirv_MemoryNamedBarrier(skein_group *g,
                                            AS_LOCAL void *barrier,
                                            uint32_t scope,
                                            uint32_t semantics) {
  (void)scope, (void)semantics;
  if (!g->fiber)
    return;   /* defensive: such kernels always run as fibers */
  nb_member m = {barrier, 0};
  nb_park(g, &m);
  volatile AS_LOCAL named_barrier *b = barrier;
  while (b->phase == m.phase) {
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    g->launch->hooks->yield(g);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
  }
}
