/* This file contains what fiber mode's sub-group operations share
 * (subgroups.c, subgroups_nu.c, subgroups_shuffle.c): the record each
 * member passes to skein_hooks.sub_group_operation, the call that parks
 * it there, and the operations computed for an active set (reductions,
 * scans, clustered reductions, "read another lane's value").
 *
 * A work-item fills its record (value, lane, what to read), parks with
 * an operation; when its sub-group can run no further, the scheduler
 * (scheduler/fiber_group.c) hands the records of the members parked at
 * the same call, in increasing lane order, to the operation, which
 * writes each member's result into its record. The records live on the
 * parked members' own stacks. */
#ifndef SKEIN_SUBGROUPS_OPS_H
#define SKEIN_SUBGROUPS_OPS_H

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

/* get_max_sub_group_size(): the sub-group size, or the enqueued group
 * size if that is smaller (builtins/workitem.c). */
static inline uint32_t sg_max_size(const skein_group *g) {
  const uint64_t *l = g->launch->local_size;
  uint64_t s = g->launch->sub_group_size ? g->launch->sub_group_size : 1;
  uint64_t n = l[0] * l[1] * l[2];
  return (uint32_t)(n < s ? n : s);
}

/* One member's part in a sub-group operation. */
typedef struct sg_member {
  slot in;                   /* a scalar value */
  union {
    slot s;                  /* a scalar result */
    uint32_t v[4];           /* a ballot */
  } out;
  const void *vin;           /* the value's bytes (&in for a scalar) */
  const void *vin2;          /* a second value (intel two-input shuffles) */
  void *vout;                /* where a copied value goes (&out) */
  uint32_t bytes;            /* how many bytes to copy */
  uint32_t lane;             /* sub-group local id */
  uint32_t src;              /* the lane to read, or the cluster size */
  uint32_t second;           /* read that lane's vin2, not its vin */
  uint32_t size;             /* this sub-group's size */
  uint32_t max;              /* get_max_sub_group_size() */
} sg_member;

#define SG_M(k) ((sg_member *)mm[k])
#define SG_ENTRY __attribute__((always_inline, convergent))
#define SG_OP __attribute__((unused)) static void

/* Fills the lane fields of m for the calling work-item, a scalar copy by
 * default. */
static inline __attribute__((always_inline)) void
sg_init(const skein_group *g, sg_member *m) {
  uint64_t id = linear_id(g);
  sub_group sg = sub_group_of(g, id);
  m->lane = (uint32_t)(id - sg.first);
  m->size = (uint32_t)sg.count;
  m->max = sg_max_size(g);
  m->src = m->lane;
  m->vin = m->vin2 = &m->in;
  m->second = 0;
  m->vout = &m->out;
  m->bytes = sizeof m->in;
}

/* Parks the caller at op. Never inlined, so that its return address is
 * the call site in the kernel (every entry is inlined there): members
 * meet when they are at the same call. Convergent, so that LLVM does not
 * merge calls of different branches into one. */
static __attribute__((noinline, convergent, nomerge, unused)) void
sg_park(skein_group *g, skein_sub_group_op op, sg_member *m) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  g->launch->hooks->sub_group_operation(g, op, __builtin_return_address(0),
                                        m);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* Each member gets the bytes of the member at lane src (its vin, or its
 * vin2 if second), or its own vin if that lane is not in the active set
 * (out of range, inactive or past the end of a partial sub-group:
 * undefined by the spec). */
SG_OP sg_pick(void *const *mm, unsigned n) {
  for (unsigned k = 0; k < n; k++) {
    sg_member *me = SG_M(k);
    const void *from = me->vin;
    for (unsigned j = 0; j < n; j++)
      if (SG_M(j)->lane == me->src)
        from = me->second ? SG_M(j)->vin2 : SG_M(j)->vin;
    __builtin_memcpy(me->vout, from, me->bytes);
  }
}

/* Every member gets the first (lowest lane) member's value. */
SG_OP sg_first(void *const *mm, unsigned n) {
  for (unsigned k = 0; k < n; k++)
    __builtin_memcpy(SG_M(k)->vout, SG_M(0)->vin, SG_M(k)->bytes);
}

/* Reductions and scans over the active set in lane order from the
 * operator's identity; the clustered reduction restarts at every
 * cluster of src lanes. */
#define SG_OPS(op, c, T)                                                    \
  SG_OP sg_reduce_##op##_##c(void *const *mm, unsigned n) {                 \
    T acc = id_##op##_##c;                                                  \
    for (unsigned k = 0; k < n; k++)                                        \
      acc = op##_##c(acc, SG_M(k)->in.c);                                   \
    for (unsigned k = 0; k < n; k++)                                        \
      SG_M(k)->out.s.c = acc;                                               \
  }                                                                         \
  SG_OP sg_inclusive_##op##_##c(void *const *mm, unsigned n) {              \
    T acc = id_##op##_##c;                                                  \
    for (unsigned k = 0; k < n; k++)                                        \
      SG_M(k)->out.s.c = acc = op##_##c(acc, SG_M(k)->in.c);                \
  }                                                                         \
  SG_OP sg_exclusive_##op##_##c(void *const *mm, unsigned n) {              \
    T acc = id_##op##_##c;                                                  \
    for (unsigned k = 0; k < n; k++) {                                      \
      SG_M(k)->out.s.c = acc;                                               \
      acc = op##_##c(acc, SG_M(k)->in.c);                                   \
    }                                                                       \
  }                                                                         \
  SG_OP sg_clustered_##op##_##c(void *const *mm, unsigned n) {              \
    for (unsigned k = 0; k < n;) {                                          \
      uint32_t size = SG_M(k)->src ? SG_M(k)->src : 1;                      \
      uint32_t cluster = SG_M(k)->lane / size;                              \
      T acc = id_##op##_##c;                                                \
      unsigned end = k;                                                     \
      for (; end < n && SG_M(end)->lane / size == cluster; end++)           \
        acc = op##_##c(acc, SG_M(end)->in.c);                               \
      for (; k < end; k++)                                                  \
        SG_M(k)->out.s.c = acc;                                             \
    }                                                                       \
  }

/* The types, by mangled code: every scalar, the integers, and (for the
 * logical operators) int only. */
#define SG_INTEGERS(X, ...)                                                 \
  X(c, int8_t, __VA_ARGS__)                                                 \
  X(h, uint8_t, __VA_ARGS__)                                                \
  X(s, int16_t, __VA_ARGS__)                                                \
  X(t, uint16_t, __VA_ARGS__)                                               \
  X(i, int32_t, __VA_ARGS__)                                                \
  X(j, uint32_t, __VA_ARGS__)                                               \
  X(l, int64_t, __VA_ARGS__)                                                \
  X(m, uint64_t, __VA_ARGS__)
#define SG_SCALARS(X, ...)                                                  \
  SG_INTEGERS(X, __VA_ARGS__)                                               \
  X(f, float, __VA_ARGS__)                                                  \
  X(d, double, __VA_ARGS__)                                                 \
  X(Dh, _Float16, __VA_ARGS__)

/* An entry T name(g, T x [, uint32_t a]) that parks with operation opfn
 * after set (a statement over m, x and a) has said what to read. */
#define SG_ENTRY_ARG(name, c, T, A, opfn, set)                              \
  SG_ENTRY T name(skein_group *g, T x, A a) {                               \
    sg_member m;                                                            \
    sg_init(g, &m);                                                         \
    m.in.c = x;                                                             \
    set;                                                                    \
    sg_park(g, opfn, &m);                                                   \
    return m.out.s.c;                                                       \
  }
#define SG_ENTRY_1(name, c, T, opfn)                                        \
  SG_ENTRY T name(skein_group *g, T x) {                                    \
    sg_member m;                                                            \
    sg_init(g, &m);                                                         \
    m.in.c = x;                                                             \
    sg_park(g, opfn, &m);                                                   \
    return m.out.s.c;                                                       \
  }

#endif
