/* This file contains the sub-group functions of cl_khr_subgroup_shuffle
 * (sub_group_shuffle, sub_group_shuffle_xor), cl_khr_subgroup_shuffle_
 * relative (sub_group_shuffle_up/down), cl_khr_subgroup_rotate
 * (sub_group_rotate, sub_group_clustered_rotate) and cl_khr_subgroup_
 * clustered_reduce (sub_group_clustered_reduce_<op>), for every scalar
 * type the extensions list.
 *
 * Each is a fiber-mode sub-group operation (subgroups_ops.h). The
 * exchanges read the value of the active member at a lane each member
 * computes for itself; where that lane is inactive, outside the
 * sub-group or past the end of a partial one (undefined by the spec),
 * the member gets its own value back: nothing is read outside the
 * sub-group's records. */
#include "subgroups_ops.h"

/* The lane (lane + delta) mod size, for any sign of delta. */
static inline uint32_t sg_rotated(uint32_t lane, int32_t delta,
                                  uint32_t size) {
  int64_t r = ((int64_t)lane + delta) % (int64_t)size;
  return (uint32_t)(r < 0 ? r + size : r);
}

/* The clustered rotation's lane: within lane's cluster of cluster lanes
 * (a power of two; 0 is taken as 1). */
static inline uint32_t sg_cluster_rotated(uint32_t lane, int32_t delta,
                                          uint32_t cluster) {
  cluster = cluster ? cluster : 1;
  return lane / cluster * cluster + sg_rotated(lane % cluster, delta, cluster);
}

#define EXCHANGES(c, T, unused)                                             \
  SG_ENTRY_ARG(__skein_ctx__Z17sub_group_shuffle##c##j, c, T, uint32_t,     \
               sg_pick, m.src = a)                                          \
  SG_ENTRY_ARG(__skein_ctx__Z21sub_group_shuffle_xor##c##j, c, T, uint32_t, \
               sg_pick, m.src = m.lane ^ a)                                 \
  SG_ENTRY_ARG(__skein_ctx__Z20sub_group_shuffle_up##c##j, c, T, uint32_t,  \
               sg_pick, m.src = a <= m.lane ? m.lane - a : UINT32_MAX)      \
  SG_ENTRY_ARG(__skein_ctx__Z22sub_group_shuffle_down##c##j, c, T,          \
               uint32_t, sg_pick,                                           \
               m.src = a < m.size - m.lane ? m.lane + a : UINT32_MAX)       \
  SG_ENTRY_ARG(__skein_ctx__Z16sub_group_rotate##c##i, c, T, int32_t,       \
               sg_pick, m.src = sg_rotated(m.lane, a, m.max))               \
  SG_ENTRY T __skein_ctx__Z26sub_group_clustered_rotate##c##ij(             \
      skein_group *g, T x, int32_t delta, uint32_t cluster) {               \
    sg_member m;                                                            \
    sg_init(g, &m);                                                         \
    m.in.c = x;                                                             \
    m.src = sg_cluster_rotated(m.lane, delta, cluster);                     \
    sg_park(g, sg_pick, &m);                                                \
    return m.out.s.c;                                                       \
  }
SG_SCALARS(EXCHANGES, 0)

/* sub_group_clustered_reduce_<op>(x, clustersize): the reduction over
 * the active members of each cluster of clustersize lanes;
 * _Z<27 + length of op>sub_group_clustered_reduce_<op><type>j. */
#define CLUSTERED(c, T, op, len)                                            \
  SG_OPS(op, c, T)                                                          \
  SG_ENTRY_ARG(__skein_ctx__Z##len##sub_group_clustered_reduce_##op##c##j,  \
               c, T, uint32_t, sg_clustered_##op##_##c, m.src = a)
SG_SCALARS(CLUSTERED, add, 30)
SG_SCALARS(CLUSTERED, min, 30)
SG_SCALARS(CLUSTERED, max, 30)
SG_SCALARS(CLUSTERED, mul, 30)
SG_INTEGERS(CLUSTERED, and, 30)
SG_INTEGERS(CLUSTERED, or, 29)
SG_INTEGERS(CLUSTERED, xor, 30)
CLUSTERED(i, int32_t, logical_and, 38)
CLUSTERED(i, int32_t, logical_or, 37)
CLUSTERED(i, int32_t, logical_xor, 38)
