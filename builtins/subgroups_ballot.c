/* This file contains the queries of cl_khr_subgroup_ballot that read a
 * bitfield (a uint4, bit k of component k / 32 for sub-group local id k)
 * without the other members: sub_group_inverse_ballot,
 * sub_group_ballot_bit_extract, _bit_count, _inclusive_scan,
 * _exclusive_scan, _find_lsb, _find_msb, and get_sub_group_eq/ge/gt/le/
 * lt_mask. sub_group_ballot itself is in subgroups_nu.c.
 *
 * Those that need the caller's sub-group local id read it from the
 * group's local_id, which only fiber mode keeps per work-item: the
 * compiler runs kernels calling them in fiber mode (compiler/callgraph.c
 * counts them with the sub-group functions); bit_extract, bit_count and
 * find_lsb/msb need only the launch and run in any mode. */
#include "subgroups_ops.h"

typedef uint32_t sg_uint4 __attribute__((ext_vector_type(4)));

/* The caller's sub-group local id. */
static inline uint32_t sg_lane(const skein_group *g) {
  uint64_t id = linear_id(g);
  return (uint32_t)(id - sub_group_of(g, id).first);
}

/* get_max_sub_group_size(), at most the 128 bits of a ballot. */
static inline uint32_t sg_max(const skein_group *g) {
  uint32_t s = sg_max_size(g);
  return s < 128 ? s : 128;
}

static inline int32_t bit(sg_uint4 v, uint32_t k) {
  return k < 128 && ((v[k / 32] >> (k % 32)) & 1);
}

/* The bits of lanes [0, n) (n <= 128). */
static inline sg_uint4 below(uint32_t n) {
  sg_uint4 r;
  for (uint32_t w = 0; w < 4; w++) {
    uint32_t lo = w * 32;
    r[w] = n <= lo ? 0 : n >= lo + 32 ? UINT32_MAX : (1u << (n - lo)) - 1;
  }
  return r;
}

static inline uint32_t popcount4(sg_uint4 v) {
  return (uint32_t)(__builtin_popcount(v[0]) + __builtin_popcount(v[1]) +
                    __builtin_popcount(v[2]) + __builtin_popcount(v[3]));
}

int32_t __skein_ctx__Z24sub_group_inverse_ballotDv4_j(skein_group *g,
                                                      sg_uint4 v) {
  return bit(v, sg_lane(g));
}

int32_t __skein_ctx__Z28sub_group_ballot_bit_extractDv4_jj(skein_group *g,
                                                          sg_uint4 v,
                                                          uint32_t k) {
  (void)g;
  return bit(v, k);
}

uint32_t __skein_ctx__Z26sub_group_ballot_bit_countDv4_j(skein_group *g,
                                                        sg_uint4 v) {
  return popcount4(v & below(sg_max(g)));
}

uint32_t __skein_ctx__Z31sub_group_ballot_inclusive_scanDv4_j(
    skein_group *g, sg_uint4 v) {
  return popcount4(v & below(sg_lane(g) + 1));
}

uint32_t __skein_ctx__Z31sub_group_ballot_exclusive_scanDv4_j(
    skein_group *g, sg_uint4 v) {
  return popcount4(v & below(sg_lane(g)));
}

/* With no bit set the result is undefined by the spec: find_lsb gives
 * the maximum sub-group size, find_msb gives UINT32_MAX (-1). */
uint32_t __skein_ctx__Z25sub_group_ballot_find_lsbDv4_j(skein_group *g,
                                                       sg_uint4 v) {
  v &= below(sg_max(g));
  for (uint32_t w = 0; w < 4; w++)
    if (v[w])
      return w * 32 + (uint32_t)__builtin_ctz(v[w]);
  return sg_max(g);
}

uint32_t __skein_ctx__Z25sub_group_ballot_find_msbDv4_j(skein_group *g,
                                                       sg_uint4 v) {
  v &= below(sg_max(g));
  for (uint32_t w = 4; w-- > 0;)
    if (v[w])
      return w * 32 + 31 - (uint32_t)__builtin_clz(v[w]);
  return UINT32_MAX;
}

/* The masks: eq the caller's lane; ge/gt from it (or the next) up to the
 * maximum sub-group size; le/lt up to it (or before). */
sg_uint4 __skein_ctx__Z21get_sub_group_eq_maskv(skein_group *g) {
  uint32_t l = sg_lane(g);
  return below(l + 1) & ~below(l);
}

sg_uint4 __skein_ctx__Z21get_sub_group_ge_maskv(skein_group *g) {
  return below(sg_max(g)) & ~below(sg_lane(g));
}

sg_uint4 __skein_ctx__Z21get_sub_group_gt_maskv(skein_group *g) {
  return below(sg_max(g)) & ~below(sg_lane(g) + 1);
}

sg_uint4 __skein_ctx__Z21get_sub_group_le_maskv(skein_group *g) {
  return below(sg_lane(g) + 1);
}

sg_uint4 __skein_ctx__Z21get_sub_group_lt_maskv(skein_group *g) {
  return below(sg_lane(g));
}
