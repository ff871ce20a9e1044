/* This file contains the sub-group functions of OpenCL C 3.0 section
 * 6.15.20 with __opencl_c_subgroups (and of cl_khr_subgroups) that need the
 * work-item's group: sub_group_barrier, sub_group_all/any/broadcast and
 * sub_group_reduce/scan_inclusive/scan_exclusive of add, min and max,
 * reached through the __skein_ctx_ rewrite (see sync.c), with the types
 * cl_khr_subgroup_extended_types adds (char, uchar, short, ushort, and
 * vectors of every type for sub_group_broadcast). The sub-group queries
 * (get_sub_group_size and friends) are work-item helpers in workitem.c.
 *
 * A sub-group is a run of launch->sub_group_size consecutive linear local
 * ids (the last one of a group may be shorter).
 *
 * Fiber mode (g->fiber set): each collective is a sub-group operation
 * (subgroups_ops.h, skein_hooks.sub_group_operation): the members met at
 * the call are computed for together, in lane order from the operator's
 * identity, as the extensions' non-uniform functions are.
 *
 * Region mode (compiler/region.cpp, int, uint, long, ulong, float and
 * double only) deposits every work-item's value in its sub-group slot
 * (skein_group.collective, past the work-group collectives' slots) in
 * linear id order and calls these functions for the last work-item of
 * each sub-group only, with a sub_group_barrier hook that returns at
 * once; that call computes every member's result into the member's slot,
 * which each work-item reads after the cut. */
#include "subgroups_ops.h"


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

/* Region mode's part of each collective, run by the sub-group's last
 * member over the sub-group's n slots s[]: every member's result into
 * its slot. */
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
  SCANS(op, c, T)                                                           \
  SG_OPS(op, c, T)

/* One collective entry point. Fiber mode: a sub-group operation. Region
 * mode: deposit, let the sub-group's last member compute, read one's own
 * slot. */
#define ENTRY(name, c, T, compute, fiber_op)                                \
  SG_ENTRY T name(skein_group *g, T x) {                                    \
    if (g->fiber) {                                                         \
      sg_member m;                                                          \
      sg_init(g, &m);                                                       \
      m.in.c = x;                                                           \
      sg_park(g, fiber_op, &m);                                             \
      return m.out.s.c;                                                     \
    }                                                                       \
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
#define COLLECTIVES(c, T, op)                                               \
  COMPUTE(op, c, T)                                                         \
  ENTRY(CTX(20, sub_group_reduce_##op, c), c, T, reduce_##op##_##c,         \
        sg_reduce_##op##_##c)                                               \
  ENTRY(CTX(28, sub_group_scan_inclusive_##op, c), c, T,                    \
        inclusive_##op##_##c, sg_inclusive_##op##_##c)                      \
  ENTRY(CTX(28, sub_group_scan_exclusive_##op, c), c, T,                    \
        exclusive_##op##_##c, sg_exclusive_##op##_##c)

SG_SCALARS(COLLECTIVES, add)
SG_SCALARS(COLLECTIVES, min)
SG_SCALARS(COLLECTIVES, max)

/* sub_group_all and sub_group_any are the logical and/or reductions
 * (non-zero is true; the result is 1 or 0). */
REDUCE(logical_and, i, int32_t)
REDUCE(logical_or, i, int32_t)
SG_OPS(logical_and, i, int32_t)
SG_OPS(logical_or, i, int32_t)
ENTRY(__skein_ctx__Z13sub_group_alli, i, int32_t, reduce_logical_and_i,
      sg_reduce_logical_and_i)
ENTRY(__skein_ctx__Z13sub_group_anyi, i, int32_t, reduce_logical_or_i,
      sg_reduce_logical_or_i)

/* sub_group_broadcast(x, sub_group_local_id): the id must be the same for
 * the whole sub-group (region mode uses the last member's); an id
 * outside the sub-group is undefined by the spec and clamped to its last
 * member here, in both modes, so that it never reads outside the
 * sub-group. */
#define BROADCAST(c, T, unused)                                             \
  SG_ENTRY T __skein_ctx__Z19sub_group_broadcast##c##j(skein_group *g, T x, \
                                                       uint32_t lane) {     \
    if (g->fiber) {                                                         \
      sg_member m;                                                          \
      sg_init(g, &m);                                                       \
      m.in.c = x;                                                           \
      m.src = lane < m.size ? lane : m.size - 1;                            \
      sg_park(g, sg_pick, &m);                                              \
      return m.out.s.c;                                                     \
    }                                                                       \
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
SG_SCALARS(BROADCAST, 0)

/* Region mode's sub_group_broadcast of a vector of at most 8 bytes: the
 * C calling convention passes and returns it as one integer or double,
 * which region mode takes for a scalar collective and deposits whole in
 * the work-item's slot (larger vectors go through memory and region
 * mode declines them). */
static inline void region_broadcast_bytes(skein_group *g, const void *x,
                                          void *r, uint32_t bytes,
                                          uint32_t lane) {
  slot *s = sub_group_slots(g);
  uint64_t id = linear_id(g);
  sub_group sg = sub_group_of(g, id);
  __builtin_memcpy(&s[id], x, bytes);
  if (id == sg.first + sg.count - 1) {
    uint64_t from = lane < sg.count ? lane : sg.count - 1;
    slot v = s[sg.first + from];
    for (uint64_t k = 0; k < sg.count; k++)
      s[sg.first + k] = v;
  }
  wait_sub_group(g);
  __builtin_memcpy(r, &s[id], bytes);
}

/* cl_khr_subgroup_extended_types: sub_group_broadcast of vectors (2, 3,
 * 4, 8, 16 of every scalar type): the member's value is copied whole. */
#define VBROADCAST(c, T, n)                                                 \
  typedef T sg_v##n##c __attribute__((ext_vector_type(n)));                 \
  SG_ENTRY sg_v##n##c __skein_ctx__Z19sub_group_broadcastDv##n##_##c##j(    \
      skein_group *g, sg_v##n##c x, uint32_t lane) {                        \
    sg_member m;                                                            \
    sg_v##n##c r = x;                                                       \
    if (!g->fiber && sizeof x <= sizeof(slot)) {                            \
      region_broadcast_bytes(g, &x, &r, sizeof x, lane);                    \
      return r;                                                             \
    }                                                                       \
    sg_init(g, &m);                                                         \
    m.vin = &x;                                                             \
    m.vout = &r;                                                            \
    m.bytes = sizeof x;                                                     \
    m.src = lane < m.size ? lane : m.size - 1;                              \
    sg_park(g, sg_pick, &m);                                                \
    return r;                                                               \
  }
SG_SCALARS(VBROADCAST, 2)
SG_SCALARS(VBROADCAST, 3)
SG_SCALARS(VBROADCAST, 4)
SG_SCALARS(VBROADCAST, 8)
SG_SCALARS(VBROADCAST, 16)
