/* This file contains the async copy and prefetch built-ins (spec section
 * "Async Copies from Global to Local Memory, Local to Global Memory, and
 * Prefetch"). Skein runs a work-group on one thread, so there is nothing
 * to overlap a copy with: every work-item that calls a copy performs the
 * whole copy at once (all of them copy the same data, so the result is
 * the same whichever runs first), the event is returned unchanged, and
 * wait_group_events only orders memory. prefetch is a no-op: a CPU's own
 * prefetchers serve better than a hint per work-item. */
#include "builtins.h"

#define ASYNC_OVL __attribute__((overloadable))

#define ASYNC_COPY(T, S)                                                    \
  event_t ASYNC_OVL async_work_group_copy(__local T *dst,                   \
                                          const __global T *src, size_t n,  \
                                          event_t event) {                  \
    for (size_t i = 0; i < n; i++)                                          \
      dst[i] = src[i];                                                      \
    return event;                                                           \
  }                                                                         \
  event_t ASYNC_OVL async_work_group_copy(__global T *dst,                  \
                                          const __local T *src, size_t n,   \
                                          event_t event) {                  \
    for (size_t i = 0; i < n; i++)                                          \
      dst[i] = src[i];                                                      \
    return event;                                                           \
  }                                                                         \
  event_t ASYNC_OVL async_work_group_strided_copy(                          \
      __local T *dst, const __global T *src, size_t n, size_t stride,       \
      event_t event) {                                                      \
    for (size_t i = 0; i < n; i++)                                          \
      dst[i] = src[i * stride];                                             \
    return event;                                                           \
  }                                                                         \
  event_t ASYNC_OVL async_work_group_strided_copy(                          \
      __global T *dst, const __local T *src, size_t n, size_t stride,       \
      event_t event) {                                                      \
    for (size_t i = 0; i < n; i++)                                          \
      dst[i * stride] = src[i];                                             \
    return event;                                                           \
  }                                                                         \
  void ASYNC_OVL prefetch(const __global T *p, size_t n) {                  \
    (void)p;                                                                \
    (void)n;                                                                \
  }

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
