/* This file contains the cl_intel_subgroups functions (with
 * cl_intel_subgroups_char, _short and _long) that builtins/
 * skein_intel_subgroups.h declares: intel_sub_group_shuffle, _down, _up
 * and _xor for scalars and vectors, and the block reads and writes of
 * global buffers. The sub-group functions the extension shares with
 * cl_khr_subgroups are subgroups.c's.
 *
 * The shuffles are fiber-mode sub-group operations (subgroups_ops.h)
 * that read another member's value. The two-input ones read a sub-group
 * twice as large: shuffle_down(cur, next, delta) reads index lane +
 * delta of (cur of every lane, then next of every lane), shuffle_up(prev,
 * cur, delta) index lane - delta + max of (prev..., then cur...), with
 * max = get_max_sub_group_size(). An index outside that, or a lane that
 * is inactive or past the end of a partial sub-group, gives the caller
 * its own (cur or x) value: undefined by the extension.
 *
 * A block read gives lane l the elements p[l + k * max] for k < n (a
 * write stores them there), max = get_max_sub_group_size(), as the
 * extension lays them out. It reads the caller's lane from the group's
 * local id, which only fiber mode keeps: compiler/callgraph.c keeps
 * kernels calling intel_sub_group_* out of loop mode, region mode
 * declines them. */
#include "subgroups_ops.h"

#define GLOBAL __attribute__((address_space(1)))

/* ---- Shuffles ------------------------------------------------------- */

/* The entries for value type VT (mangled M, and M2 when it appears a
 * second time: the type again for a scalar, S_ for a vector). */
#define SHUFFLES(VT, M, M2)                                                 \
  SG_ENTRY VT __skein_ctx__Z23intel_sub_group_shuffle##M##j(                \
      skein_group *g, VT x, uint32_t c) {                                   \
    return isg_shuffle(g, x, x, c, 0);                                      \
  }                                                                         \
  SG_ENTRY VT __skein_ctx__Z27intel_sub_group_shuffle_xor##M##j(            \
      skein_group *g, VT x, uint32_t c) {                                   \
    return isg_shuffle(g, x, x, c, 1);                                      \
  }                                                                         \
  SG_ENTRY VT __skein_ctx__Z28intel_sub_group_shuffle_down##M##M2##j(       \
      skein_group *g, VT cur, VT next, uint32_t delta) {                    \
    return isg_shuffle(g, cur, next, delta, 2);                             \
  }                                                                         \
  SG_ENTRY VT __skein_ctx__Z26intel_sub_group_shuffle_up##M##M2##j(         \
      skein_group *g, VT prev, VT cur, uint32_t delta) {                    \
    return isg_shuffle(g, cur, prev, delta, 3);                             \
  }

/* The shared body, a macro for every value type: kind 0 shuffle, 1 xor,
 * 2 down (x = cur, y = next), 3 up (x = cur, y = prev). */
#define isg_shuffle(g, x_, y_, a_, kind_)                                   \
  ({                                                                        \
    __typeof__(x_) x__ = (x_), y__ = (y_), r__ = x__;                       \
    sg_member m__;                                                          \
    sg_init(g, &m__);                                                       \
    m__.vin = &x__;                                                         \
    m__.vin2 = &y__;                                                        \
    m__.vout = &r__;                                                        \
    m__.bytes = sizeof x__;                                                 \
    m__.src = isg_source(&m__, (a_), kind_);                                \
    sg_park(g, sg_pick, &m__);                                              \
    r__;                                                                    \
  })

/* The lane m reads (setting m->second for the second input), or
 * UINT32_MAX for none. */
static inline uint32_t isg_source(sg_member *m, uint32_t a, int kind) {
  int64_t max = m->max, v;
  switch (kind) {
  case 0:
    return a;
  case 1:
    return m->lane ^ a;
  case 2:
    v = (int64_t)m->lane + a;
    break;
  default:
    v = (int64_t)m->lane - a + max;
    break;
  }
  if (v < 0 || v >= 2 * max)
    return UINT32_MAX;
  /* down: [0, max) is cur (x), the rest next (y); up: [0, max) is prev
   * (y), the rest cur (x). */
  int in_y = kind == 2 ? v >= max : v < max;
  m->second = (uint32_t)in_y;
  return (uint32_t)(v % max);
}

#define VECTOR_SHUFFLES(c, T, n)                                            \
  typedef T isg_##c##n __attribute__((ext_vector_type(n)));                 \
  SHUFFLES(isg_##c##n, Dv##n##_##c, S_)
#define ALL_SHUFFLES(c, T)                                                  \
  SHUFFLES(T, c, c)                                                         \
  VECTOR_SHUFFLES(c, T, 2)                                                  \
  VECTOR_SHUFFLES(c, T, 3)                                                  \
  VECTOR_SHUFFLES(c, T, 4)                                                  \
  VECTOR_SHUFFLES(c, T, 8)                                                  \
  VECTOR_SHUFFLES(c, T, 16)

ALL_SHUFFLES(f, float)
ALL_SHUFFLES(i, int32_t)
ALL_SHUFFLES(j, uint32_t)
ALL_SHUFFLES(d, double)
ALL_SHUFFLES(s, int16_t)
ALL_SHUFFLES(t, uint16_t)
ALL_SHUFFLES(c, int8_t)
ALL_SHUFFLES(h, uint8_t)
ALL_SHUFFLES(l, int64_t)
ALL_SHUFFLES(m, uint64_t)
/* half (mangled Dh) with cl_khr_fp16: the header declares these under
 * the fp16 pragma. */
ALL_SHUFFLES(Dh, _Float16)

/* ---- Block reads and writes of global buffers ------------------------ */

/* The caller's lane and get_max_sub_group_size(). */
static inline uint64_t isg_lane(const skein_group *g, uint64_t *max) {
  uint64_t id = linear_id(g);
  *max = sg_max_size(g);
  return id - sub_group_of(g, id).first;
}

/* read: _Z<len><name>PU8CLglobalK<c>; write: _Z<len><name>PU8CLglobal<c>
 * <data's mangling>. VT is T for n == 1. */
#define BLOCK(rlen, wlen, rname, wname, c, T, VT, n, DM)                    \
  SG_ENTRY VT __skein_ctx__Z##rlen##rname##PU8CLglobalK##c(                 \
      skein_group *g, const GLOBAL T *p) {                                  \
    uint64_t max, lane = isg_lane(g, &max);                                 \
    T e[n];                                                                 \
    for (uint64_t k = 0; k < (n); k++)                                      \
      e[k] = p[lane + k * max];                                             \
    VT r;                                                                   \
    __builtin_memcpy(&r, e, sizeof e);                                      \
    return r;                                                               \
  }                                                                         \
  SG_ENTRY void __skein_ctx__Z##wlen##wname##PU8CLglobal##c##DM(            \
      skein_group *g, GLOBAL T *p, VT data) {                               \
    uint64_t max, lane = isg_lane(g, &max);                                 \
    T e[n];                                                                 \
    __builtin_memcpy(e, &data, sizeof e);                                   \
    for (uint64_t k = 0; k < (n); k++)                                      \
      p[lane + k * max] = e[k];                                             \
  }

/* intel_sub_group_block_read/write[2|4|8] of uint. */
BLOCK(26, 27, intel_sub_group_block_read, intel_sub_group_block_write, j,
      uint32_t, uint32_t, 1, j)
BLOCK(27, 28, intel_sub_group_block_read2, intel_sub_group_block_write2, j,
      uint32_t, isg_j2, 2, Dv2_j)
BLOCK(27, 28, intel_sub_group_block_read4, intel_sub_group_block_write4, j,
      uint32_t, isg_j4, 4, Dv4_j)
BLOCK(27, 28, intel_sub_group_block_read8, intel_sub_group_block_write8, j,
      uint32_t, isg_j8, 8, Dv8_j)

/* The suffixed names: _ui (uint), _us (ushort), _uc (uchar), _ul
 * (ulong); "intel_sub_group_block_read_xx" has 29 characters, "..._
 * write_xx" 30, one more per digit of the width. */
#define SUFFIXED(S, c, T)                                                   \
  BLOCK(29, 30, intel_sub_group_block_read_##S,                             \
        intel_sub_group_block_write_##S, c, T, T, 1, c)                     \
  BLOCK(30, 31, intel_sub_group_block_read_##S##2,                          \
        intel_sub_group_block_write_##S##2, c, T, isg_##c##2, 2, Dv2_##c)   \
  BLOCK(30, 31, intel_sub_group_block_read_##S##4,                          \
        intel_sub_group_block_write_##S##4, c, T, isg_##c##4, 4, Dv4_##c)   \
  BLOCK(30, 31, intel_sub_group_block_read_##S##8,                          \
        intel_sub_group_block_write_##S##8, c, T, isg_##c##8, 8, Dv8_##c)
SUFFIXED(ui, j, uint32_t)
SUFFIXED(us, t, uint16_t)
SUFFIXED(uc, h, uint8_t)
SUFFIXED(ul, m, uint64_t)
BLOCK(31, 32, intel_sub_group_block_read_uc16, intel_sub_group_block_write_uc16,
      h, uint8_t, isg_h16, 16, Dv16_h)
