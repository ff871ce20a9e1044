/* This file contains the synchronization and fence builtins (OpenCL C 3.0
 * sections 6.15.8, 6.15.9 and atomic_work_item_fence of 6.15.12.3) in C:
 * barrier and work_group_barrier as fiber-mode yield points, and fences
 * sized for a CPU where all work-items of a group share one thread. */
#include "abi.h"

/* The compiler replaces every call of an OpenCL builtin F whose name has
 * a __skein_ctx_F here by __skein_ctx_F(g, args...), g being the calling
 * work-item's group (compiler/wg_gen.c). Names are the Itanium manglings
 * Clang gives the OpenCL declarations. */

/* Every work-item of a group runs on the same thread, so a barrier's
 * memory ordering only has to stop the compiler: the scheduler's barrier
 * is an opaque call (nothing moves across it) and the signal fences say
 * so explicitly. Other groups are not ordered by a barrier (the spec
 * orders work-items of one group only). */
void __skein_ctx__Z7barrierj(skein_group *g, uint32_t flags) {
  (void)flags;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  g->launch->hooks->barrier(g);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* OpenCL C 2.0: work_group_barrier(flags) is an alias of barrier. */
void __skein_ctx__Z18work_group_barrierj(skein_group *g, uint32_t flags) {
  __skein_ctx__Z7barrierj(g, flags);
}

/* The scope only widens which memory becomes visible to whom; within the
 * group (all the barrier waits for) one thread sees everything. */
void __skein_ctx__Z18work_group_barrierj12memory_scope(skein_group *g,
                                                        uint32_t flags,
                                                        uint32_t scope) {
  (void)scope;
  __skein_ctx__Z7barrierj(g, flags);
}

/* The yield compiler/forward_progress.c puts into loops that wait for
 * another work-item: the compiler fences keep the loop's reads inside
 * the loop, after the other work-items' writes. */
void __skein_ctx___skein_yield(skein_group *g) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (g->fiber && g->launch->hooks->yield)
    g->launch->hooks->yield(g);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* The legacy fences order one work-item's accesses for the other
 * work-items of its group (memory_scope_work_group, spec 6.15.12.3):
 * those run on this same thread, so a compiler fence is enough. */
void _Z9mem_fencej(uint32_t flags) {
  (void)flags;
  __atomic_signal_fence(__ATOMIC_ACQ_REL);
}

void _Z14read_mem_fencej(uint32_t flags) {
  (void)flags;
  __atomic_signal_fence(__ATOMIC_ACQUIRE);
}

void _Z15write_mem_fencej(uint32_t flags) {
  (void)flags;
  __atomic_signal_fence(__ATOMIC_RELEASE);
}

/* OpenCL's memory_order values are C11's (__ATOMIC_*); scopes are
 * Clang's __OPENCL_MEMORY_SCOPE_*: 0 work-item, 1 work-group, 2 device,
 * 3 all SVM devices, 4 sub-group. Device and wider scopes reach other
 * threads: a hardware fence of the requested order. Narrower ones stay
 * on this thread. */
void _Z22atomic_work_item_fencej12memory_order12memory_scope(uint32_t flags,
                                                            uint32_t order,
                                                            uint32_t scope) {
  (void)flags;
  if (order == __ATOMIC_RELAXED)
    return;   /* "has no effects" */
  if (scope == 2 || scope == 3) {
    if (order == __ATOMIC_SEQ_CST)
      __atomic_thread_fence(__ATOMIC_SEQ_CST);
    else
      __atomic_thread_fence(__ATOMIC_ACQ_REL);
  } else {
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
  }
}
