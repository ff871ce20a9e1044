/* This file contains the async copy and prefetch built-ins (spec section
 * "Async Copies from Global to Local Memory, Local to Global Memory, and
 * Prefetch"). Skein runs a work-group on one thread, so there is nothing
 * to overlap a copy with: every work-item that calls a copy performs the
 * whole copy at once (all of them copy the same data, so the result is
 * the same whichever runs first), the event is returned unchanged, and
 * wait_group_events only orders memory. prefetch is a no-op: a CPU's own
 * prefetchers serve better than a hint per work-item. */
#include "builtins.h"

#include "async_copy.h"

SK_VECS(ASYNC_COPY, char)
SK_VECS(ASYNC_COPY, uchar)
SK_VECS(ASYNC_COPY, short)
SK_VECS(ASYNC_COPY, ushort)
SK_VECS(ASYNC_COPY, int)
SK_VECS(ASYNC_COPY, uint)
SK_VECS(ASYNC_COPY, long)
SK_VECS(ASYNC_COPY, ulong)
SK_VECS(ASYNC_COPY, float)
SK_VECS(ASYNC_COPY, double)

/* The copies are complete when they return; only the memory order of the
 * work-item's later accesses remains. */
void ASYNC_OVL wait_group_events(int num_events, event_t *event_list) {
  (void)num_events;
  (void)event_list;
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE,
                         memory_order_acq_rel, memory_scope_work_group);
}
