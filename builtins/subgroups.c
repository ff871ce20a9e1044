/* This file contains the sub-group functions of OpenCL C 3.0 section
 * 6.15.20 with __opencl_c_subgroups (and of cl_khr_subgroups) that need the
 * work-item's group: sub_group_barrier, sub_group_all/any/broadcast and
 * sub_group_reduce/scan_inclusive/scan_exclusive of add, min and max,
 * reached through the __skein_ctx_ rewrite (see sync.c). The sub-group
 * queries (get_sub_group_size and friends) are work-item helpers in
 * workitem.c.
 *
 * A sub-group is a run of launch->sub_group_size consecutive linear local
 * ids (the last one of a group may be shorter). Each collective is one
 * yield of the sub-group only (skein_hooks.sub_group_barrier): every
 * work-item writes its value into its sub-group slot (skein_group.
 * collective, past the work-group collectives' slots) and yields; the
 * last of the sub-group to arrive is its highest linear id, which
 * computes, in increasing sub-group local id order from the operator's
 * identity, every member's result into that member's own slot before any
 * member resumes. Each then reads its own slot, which nobody writes again
 * before it has deposited its next value. Other sub-groups may be
 * anywhere else in the kernel meanwhile.
 *
 * Region mode (compiler/region.cpp) deposits every work-item's value in
 * its slot in linear id order and calls the same functions for the last
 * work-item of each sub-group only, with a sub_group_barrier hook that
 * returns at once; each work-item reads its result from its slot after
 * the cut. */
#include "collective_ops.h"

/* The caller's sub-group: its first linear id and how many it has. */
typedef struct sub_group {
  uint64_t first, count;
} sub_group;

static inline sub_group sub_group_of(const skein_group *g, uint64_t id) {
  uint64_t s = g->launch->sub_group_size ? g->launch->sub_group_size : 1;
  uint64_t first = id / s * s, left = group_size(g) - first;
  return (sub_group){first, left < s ? left : s};
}

/* The sub-group slots: one per work-item, after the group's n + 1. */
static inline slot *sub_group_slots(const skein_group *g) {
  return (slot *)g->collective + group_size(g) + 1;
}

static inline void wait_sub_group(skein_group *g) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  g->launch->hooks->sub_group_barrier(g);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* sub_group_barrier: work-items of one sub-group run on one thread, so
 * the memory ordering only has to stop the compiler (see sync.c); the
 * scope form does the same. */
void __skein_ctx__Z17sub_group_barrierj(skein_group *g, uint32_t flags) {
  (void)flags;
  wait_sub_group(g);
}

void __skein_ctx__Z17sub_group_barrierj12memory_scope(skein_group *g,
                                                       uint32_t flags,
                                                       uint32_t scope) {
  (void)flags, (void)scope;
  wait_sub_group(g);
}

/* The last member's part of each collective over the sub-group's n slots
 * s[]: every member's result into its slot. */
#define REDUCE(op, c, T)                                                    \
  static inline void reduce_##op##_##c(slot *s, uint64_t n) {               \
    T acc = id_##op##_##c;                                                  \
    for (uint64_t k = 0; k < n; k++)                                        \
      acc = op##_##c(acc, s[k].c);                                          \
    for (uint64_t k = 0; k < n; k++)                                        \
      s[k].c = acc;                                                         \
  }
#define COMPUTE(op, c, T)                                                   \
  REDUCE(op, c, T)                                                          \
  SCANS(op, c, T)

/* One collective entry point: deposit, let the sub-group's last member
 * compute, wait for the sub-group, read one's own slot. */
#define ENTRY(name, c, T, compute)                                          \
  T name(skein_group *g, T x) {                                             \
    slot *s = sub_group_slots(g);                                           \
    uint64_t id = linear_id(g);                                             \
    sub_group sg = sub_group_of(g, id);                                     \
    s[id].c = x;                                                            \
    if (id == sg.first + sg.count - 1)                                      \
      compute(s + sg.first, sg.count);                                      \
    wait_sub_group(g);                                                      \
    return s[id].c;                                                         \
  }

/* __skein_ctx_ + _Z<len><name><type code>: "sub_group_reduce_<op>" has
 * 20 characters, "sub_group_scan_inclusive_<op>" 28 (add, min, max). */
#define CTX(len, name, c) __skein_ctx__Z##len##name##c
#define COLLECTIVES(op, c, T)                                               \
  COMPUTE(op, c, T)                                                         \
  ENTRY(CTX(20, sub_group_reduce_##op, c), c, T, reduce_##op##_##c)         \
  ENTRY(CTX(28, sub_group_scan_inclusive_##op, c), c, T,                    \
        inclusive_##op##_##c)                                               \
  ENTRY(CTX(28, sub_group_scan_exclusive_##op, c), c, T,                    \
        exclusive_##op##_##c)

#define ALL_TYPES(op)                                                       \
  COLLECTIVES(op, i, int32_t)                                               \
  COLLECTIVES(op, j, uint32_t)                                              \
  COLLECTIVES(op, l, int64_t)                                               \
  COLLECTIVES(op, m, uint64_t)                                              \
  COLLECTIVES(op, f, float)                                                 \
  COLLECTIVES(op, d, double)                                                \
  COLLECTIVES(op, Dh, _Float16)

ALL_TYPES(add)
ALL_TYPES(min)
ALL_TYPES(max)

/* sub_group_all and sub_group_any are the logical and/or reductions
 * (non-zero is true; the result is 1 or 0). */
REDUCE(logical_and, i, int32_t)
REDUCE(logical_or, i, int32_t)
ENTRY(__skein_ctx__Z13sub_group_alli, i, int32_t, reduce_logical_and_i)
ENTRY(__skein_ctx__Z13sub_group_anyi, i, int32_t, reduce_logical_or_i)

/* sub_group_broadcast(x, sub_group_local_id): the id must be the same for
 * the whole sub-group (the last member's is used); an id outside the
 * sub-group is undefined by the spec and clamped here, so that it never
 * reads outside the sub-group's slots. */
#define BROADCAST(c, T)                                                     \
  T __skein_ctx__Z19sub_group_broadcast##c##j(skein_group *g, T x,          \
                                              uint32_t lane) {              \
    slot *s = sub_group_slots(g);                                           \
    uint64_t id = linear_id(g);                                             \
    sub_group sg = sub_group_of(g, id);                                     \
    s[id].c = x;                                                            \
    if (id == sg.first + sg.count - 1) {                                    \
      uint64_t from = lane < sg.count ? lane : sg.count - 1;                \
      T v = s[sg.first + from].c;                                           \
      for (uint64_t k = 0; k < sg.count; k++)                               \
        s[sg.first + k].c = v;                                              \
    }                                                                       \
    wait_sub_group(g);                                                      \
    return s[id].c;                                                         \
  }
BROADCAST(i, int32_t)
BROADCAST(j, uint32_t)
BROADCAST(l, int64_t)
BROADCAST(m, uint64_t)
BROADCAST(f, float)
BROADCAST(d, double)
BROADCAST(Dh, _Float16)
