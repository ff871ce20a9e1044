/* This file contains the sub-group functions of cl_khr_subgroup_
 * non_uniform_vote (sub_group_elect, sub_group_non_uniform_all/any/
 * all_equal), cl_khr_subgroup_non_uniform_arithmetic (sub_group_non_
 * uniform_reduce/scan_inclusive/scan_exclusive of add, min, max, mul,
 * and, or, xor, logical_and, logical_or, logical_xor) and the parts of
 * cl_khr_subgroup_ballot that need the other members
 * (sub_group_non_uniform_broadcast, sub_group_broadcast_first,
 * sub_group_ballot); the ballot's queries on a given bitfield are in
 * subgroups_ballot.cl.
 *
 * Each is a fiber-mode sub-group operation (subgroups_ops.h): its active
 * set is the members of the sub-group parked at the same call when none
 * of the sub-group can run further. Loop mode never runs a kernel that
 * calls one (compiler/callgraph.c), region mode declines it
 * (compiler/region.cpp), except sub_group_broadcast_first, whose name
 * region mode takes for a sub_group_broadcast: for a call every
 * work-item reaches it gets the region protocol of subgroups.c. */
#include "subgroups_ops.h"

/* ---- cl_khr_subgroup_non_uniform_vote -------------------------------- */

/* sub_group_elect: 1 for the active member with the lowest lane. */
SG_OP sg_elect(void *const *mm, unsigned n) {
  for (unsigned k = 0; k < n; k++)
    SG_M(k)->out.s.i = k == 0;
}

SG_ENTRY int32_t __skein_ctx__Z15sub_group_electv(skein_group *g) {
  sg_member m;
  sg_init(g, &m);
  sg_park(g, sg_elect, &m);
  return m.out.s.i;
}

SG_OPS(logical_and, i, int32_t)
SG_OPS(logical_or, i, int32_t)
SG_OPS(logical_xor, i, int32_t)
SG_ENTRY_1(__skein_ctx__Z25sub_group_non_uniform_alli, i, int32_t,
           sg_reduce_logical_and_i)
SG_ENTRY_1(__skein_ctx__Z25sub_group_non_uniform_anyi, i, int32_t,
           sg_reduce_logical_or_i)

/* sub_group_non_uniform_all_equal: 1 if every active member's value
 * equals the first's (as the type compares: a float NaN equals
 * nothing). */
#define ALL_EQUAL(c, T, unused)                                             \
  SG_OP sg_all_equal_##c(void *const *mm, unsigned n) {                     \
    int32_t eq = 1;                                                         \
    for (unsigned k = 0; k < n; k++)                                        \
      eq &= SG_M(k)->in.c == SG_M(0)->in.c;                                 \
    for (unsigned k = 0; k < n; k++)                                        \
      SG_M(k)->out.s.i = eq;                                                \
  }                                                                         \
  SG_ENTRY int32_t __skein_ctx__Z31sub_group_non_uniform_all_equal##c(      \
      skein_group *g, T x) {                                                \
    sg_member m;                                                            \
    sg_init(g, &m);                                                         \
    m.in.c = x;                                                             \
    sg_park(g, sg_all_equal_##c, &m);                                       \
    return m.out.s.i;                                                       \
  }
SG_SCALARS(ALL_EQUAL, 0)

/* ---- cl_khr_subgroup_non_uniform_arithmetic -------------------------- */

/* _Z<len>sub_group_non_uniform_<reduce_|scan_inclusive_|scan_exclusive_>
 * <op><type>: lengths 29, 37 and 37 plus the operator's. */
#define NU_ARITH(c, T, op, len_r, len_s)                                    \
  SG_OPS(op, c, T)                                                          \
  SG_ENTRY_1(__skein_ctx__Z##len_r##sub_group_non_uniform_reduce_##op##c,   \
             c, T, sg_reduce_##op##_##c)                                    \
  SG_ENTRY_1(                                                               \
      __skein_ctx__Z##len_s##sub_group_non_uniform_scan_inclusive_##op##c,  \
      c, T, sg_inclusive_##op##_##c)                                        \
  SG_ENTRY_1(                                                               \
      __skein_ctx__Z##len_s##sub_group_non_uniform_scan_exclusive_##op##c,  \
      c, T, sg_exclusive_##op##_##c)

SG_SCALARS(NU_ARITH, add, 32, 40)
SG_SCALARS(NU_ARITH, min, 32, 40)
SG_SCALARS(NU_ARITH, max, 32, 40)
SG_SCALARS(NU_ARITH, mul, 32, 40)
SG_INTEGERS(NU_ARITH, and, 32, 40)
SG_INTEGERS(NU_ARITH, or, 31, 39)
SG_INTEGERS(NU_ARITH, xor, 32, 40)

#define NU_LOGICAL(op, len_r, len_s)                                        \
  SG_ENTRY_1(__skein_ctx__Z##len_r##sub_group_non_uniform_reduce_##op##i,   \
             i, int32_t, sg_reduce_##op##_i)                                \
  SG_ENTRY_1(                                                               \
      __skein_ctx__Z##len_s##sub_group_non_uniform_scan_inclusive_##op##i,  \
      i, int32_t, sg_inclusive_##op##_i)                                    \
  SG_ENTRY_1(                                                               \
      __skein_ctx__Z##len_s##sub_group_non_uniform_scan_exclusive_##op##i,  \
      i, int32_t, sg_exclusive_##op##_i)
NU_LOGICAL(logical_and, 40, 48)
NU_LOGICAL(logical_or, 39, 47)
NU_LOGICAL(logical_xor, 40, 48)

/* ---- cl_khr_subgroup_ballot ------------------------------------------ */

/* sub_group_non_uniform_broadcast(x, index), scalars and vectors: the
 * value of the active member at lane index, or (undefined by the spec)
 * the caller's own if there is none. */
#define NU_BROADCAST(c, T, unused)                                          \
  SG_ENTRY_ARG(__skein_ctx__Z31sub_group_non_uniform_broadcast##c##j, c, T, \
               uint32_t, sg_pick, m.src = a)
SG_SCALARS(NU_BROADCAST, 0)

#define NU_VBROADCAST(c, T, n)                                              \
  typedef T sg_v##n##c __attribute__((ext_vector_type(n)));                 \
  SG_ENTRY sg_v##n##c                                                       \
      __skein_ctx__Z31sub_group_non_uniform_broadcastDv##n##_##c##j(        \
          skein_group *g, sg_v##n##c x, uint32_t lane) {                    \
    sg_member m;                                                            \
    sg_v##n##c r = x;                                                       \
    sg_init(g, &m);                                                         \
    m.vin = &x;                                                             \
    m.vout = &r;                                                            \
    m.bytes = sizeof x;                                                     \
    m.src = lane;                                                           \
    sg_park(g, sg_pick, &m);                                                \
    return r;                                                               \
  }
SG_SCALARS(NU_VBROADCAST, 2)
SG_SCALARS(NU_VBROADCAST, 3)
SG_SCALARS(NU_VBROADCAST, 4)
SG_SCALARS(NU_VBROADCAST, 8)
SG_SCALARS(NU_VBROADCAST, 16)

/* sub_group_broadcast_first(x): the active member with the lowest lane's
 * value. Region mode (no fiber) calls it for each sub-group's last
 * member after every member deposited its value in its sub-group slot
 * (see subgroups.c): there every member is active. */
#define BROADCAST_FIRST(c, T, unused)                                       \
  SG_ENTRY T __skein_ctx__Z25sub_group_broadcast_first##c(skein_group *g,   \
                                                          T x) {            \
    if (!g->fiber) {                                                        \
      slot *s = (slot *)g->collective + group_size(g) + 1;                  \
      uint64_t id = linear_id(g);                                           \
      sub_group sg = sub_group_of(g, id);                                   \
      s[id].c = x;                                                          \
      if (id == sg.first + sg.count - 1)                                    \
        for (uint64_t k = 1; k < sg.count; k++)                             \
          s[sg.first + k].c = s[sg.first].c;                                \
      g->launch->hooks->sub_group_barrier(g);                               \
      return s[id].c;                                                       \
    }                                                                       \
    sg_member m;                                                            \
    sg_init(g, &m);                                                         \
    m.in.c = x;                                                             \
    sg_park(g, sg_first, &m);                                               \
    return m.out.s.c;                                                       \
  }
SG_SCALARS(BROADCAST_FIRST, 0)

/* sub_group_ballot(predicate): bit lane of the result is set for each
 * active member whose predicate is non-zero; lanes not active, and past
 * the end of a partial sub-group, are 0. */
typedef uint32_t sg_uint4 __attribute__((ext_vector_type(4)));

SG_OP sg_ballot(void *const *mm, unsigned n) {
  uint32_t bits[4] = {0, 0, 0, 0};
  for (unsigned k = 0; k < n; k++)
    if (SG_M(k)->in.i && SG_M(k)->lane < 128)
      bits[SG_M(k)->lane / 32] |= 1u << (SG_M(k)->lane % 32);
  for (unsigned k = 0; k < n; k++)
    for (unsigned w = 0; w < 4; w++)
      SG_M(k)->out.v[w] = bits[w];
}

SG_ENTRY sg_uint4 __skein_ctx__Z16sub_group_balloti(skein_group *g,
                                                    int32_t predicate) {
  sg_member m;
  sg_init(g, &m);
  m.in.i = predicate;
  sg_park(g, sg_ballot, &m);
  return (sg_uint4){m.out.v[0], m.out.v[1], m.out.v[2], m.out.v[3]};
}
