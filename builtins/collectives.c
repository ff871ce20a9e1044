/* This file contains the work-group collective functions (OpenCL C 3.0
 * section 6.15.19: all, any, broadcast, reduce/scan_inclusive/
 * scan_exclusive of add, min, max) and those of
 * cl_khr_work_group_uniform_arithmetic (mul, and, or, xor, logical_and,
 * logical_or, logical_xor), as fiber-mode yield points reached through
 * the __skein_ctx_ rewrite (see sync.c). */
#include "collective_ops.h"

/* Each collective is two yields: every work-item writes its value into
 * its slot of g->collective and calls the scheduler's barrier; past it,
 * when every work-item has deposited, the highest linear local id
 * computes the whole group's result, in increasing linear id order,
 * starting from the operator's identity, while the others wait at the
 * second barrier: scans in place (work-item i then reads slot i, which
 * only i writes), group-wide results into slot n (nobody writes it again
 * before every work-item has passed the next collective's first
 * barrier, i.e. read this one's). The highest id used to compute before
 * the first barrier, as the last to arrive; but work-items parked at a
 * sub-group operation it skipped (scheduler/fiber_group.c) arrive after
 * it, and their values were missed. Region mode calls these for the
 * last work-item only, with barriers that return at once. */
static inline void wait_group(skein_group *g) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  g->launch->hooks->barrier(g);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* The last work-item's part of each collective over the n slots s[]. */
#define COMPUTE(op, c, T)                                                   \
  static inline void reduce_##op##_##c(slot *s, uint64_t n) {               \
    T acc = id_##op##_##c;                                                  \
    for (uint64_t k = 0; k < n; k++)                                        \
      acc = op##_##c(acc, s[k].c);                                          \
    s[n].c = acc;                                                           \
  }                                                                         \
  SCANS(op, c, T)

/* One collective entry point: deposit, let the last compute, wait, read
 * (slot n for a group-wide result, one's own slot for a scan). */
#define ENTRY(name, c, T, compute, group_wide)                              \
  T name(skein_group *g, T x) {                                             \
    slot *s = (slot *)g->collective;                                        \
    uint64_t n = group_size(g), id = linear_id(g);                          \
    s[id].c = x;                                                            \
    wait_group(g);                                                          \
    if (id == n - 1)                                                        \
      compute(s, n);                                                        \
    wait_group(g);                                                          \
    return s[(group_wide) ? n : id].c;                                      \
  }

/* __skein_ctx_ + _Z<len><name><type code>: rlen and slen are the lengths
 * of "work_group_reduce_<op>" and "work_group_scan_inclusive_<op>". */
#define CTX(len, name, c) __skein_ctx__Z##len##name##c
#define COLLECTIVES(op, rlen, slen, c, T)                                   \
  COMPUTE(op, c, T)                                                         \
  ENTRY(CTX(rlen, work_group_reduce_##op, c), c, T, reduce_##op##_##c, 1)   \
  ENTRY(CTX(slen, work_group_scan_inclusive_##op, c), c, T,                 \
        inclusive_##op##_##c, 0)                                            \
  ENTRY(CTX(slen, work_group_scan_exclusive_##op, c), c, T,                 \
        exclusive_##op##_##c, 0)

#define ALL_TYPES(op, rlen, slen)                                           \
  COLLECTIVES(op, rlen, slen, i, int32_t)                                   \
  COLLECTIVES(op, rlen, slen, j, uint32_t)                                  \
  COLLECTIVES(op, rlen, slen, l, int64_t)                                   \
  COLLECTIVES(op, rlen, slen, m, uint64_t)                                  \
  COLLECTIVES(op, rlen, slen, f, float)                                     \
  COLLECTIVES(op, rlen, slen, d, double)                                    \
  COLLECTIVES(op, rlen, slen, Dh, _Float16)
#define INT_TYPES(op, rlen, slen)                                           \
  COLLECTIVES(op, rlen, slen, i, int32_t)                                   \
  COLLECTIVES(op, rlen, slen, j, uint32_t)                                  \
  COLLECTIVES(op, rlen, slen, l, int64_t)                                   \
  COLLECTIVES(op, rlen, slen, m, uint64_t)

/* OpenCL C 2.0 / 3.0 with __opencl_c_work_group_collective_functions. */
ALL_TYPES(add, 21, 29)
ALL_TYPES(min, 21, 29)
ALL_TYPES(max, 21, 29)
/* cl_khr_work_group_uniform_arithmetic. */
ALL_TYPES(mul, 21, 29)
INT_TYPES(and, 21, 29)
INT_TYPES(or, 20, 28)
INT_TYPES(xor, 21, 29)
COLLECTIVES(logical_and, 29, 37, i, int32_t)
COLLECTIVES(logical_or, 28, 36, i, int32_t)
COLLECTIVES(logical_xor, 29, 37, i, int32_t)

/* work_group_all and work_group_any are the logical and/or reductions. */
ENTRY(__skein_ctx__Z14work_group_alli, i, int32_t, reduce_logical_and_i, 1)
ENTRY(__skein_ctx__Z14work_group_anyi, i, int32_t, reduce_logical_or_i, 1)

/* work_group_broadcast: the spec leaves an out-of-range local id
 * undefined; each coordinate is clamped to the group so that it never
 * reads outside the slots. The 1D form names the x coordinate. */
static inline uint64_t clamp_id(uint64_t v, uint64_t size) {
  return v < size ? v : size - 1;
}

#define BROADCAST(c, T)                                                     \
  static inline T broadcast_##c(skein_group *g, T a, uint64_t x,            \
                                uint64_t y, uint64_t z) {                   \
    slot *s = (slot *)g->collective;                                        \
    uint64_t n = group_size(g), id = linear_id(g);                          \
    s[id].c = a;                                                            \
    wait_group(g);                                                          \
    if (id == n - 1) {                                                      \
      x = clamp_id(x, g->local_size[0]);                                    \
      y = clamp_id(y, g->local_size[1]);                                    \
      z = clamp_id(z, g->local_size[2]);                                    \
      s[n].c = s[(z * g->local_size[1] + y) * g->local_size[0] + x].c;      \
    }                                                                       \
    wait_group(g);                                                          \
    return s[n].c;                                                          \
  }                                                                         \
  T __skein_ctx__Z20work_group_broadcast##c##m(skein_group *g, T a,         \
                                               uint64_t x) {                \
    return broadcast_##c(g, a, x, 0, 0);                                    \
  }                                                                         \
  T __skein_ctx__Z20work_group_broadcast##c##mm(skein_group *g, T a,        \
                                                uint64_t x, uint64_t y) {   \
    return broadcast_##c(g, a, x, y, 0);                                    \
  }                                                                         \
  T __skein_ctx__Z20work_group_broadcast##c##mmm(                           \
      skein_group *g, T a, uint64_t x, uint64_t y, uint64_t z) {            \
    return broadcast_##c(g, a, x, y, z);                                    \
  }
BROADCAST(i, int32_t)
BROADCAST(j, uint32_t)
BROADCAST(l, int64_t)
BROADCAST(m, uint64_t)
BROADCAST(f, float)
BROADCAST(d, double)
BROADCAST(Dh, _Float16)
