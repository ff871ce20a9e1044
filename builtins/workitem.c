/* This file contains the work-item helpers the generated work-group
 * functions call in place of the OpenCL work-item builtins (get_global_id
 * and friends). It is compiled as C to bitcode, so it is also where the
 * compiler takes the IR layout of skein_launch and skein_group from. */
#include "abi.h"

/* The helpers take the current local ids as values (the work-group loop's
 * induction variables) instead of reading skein_group.local_id, so the
 * optimiser sees get_local_id(0) as the x-loop variable and vectorises.
 * Dimension indices past 2 give the spec's out-of-range results (id 0,
 * size 1); dimensions past work_dim are already 0/1 in the launch. */
#define PICK(v, d) ((d) == 0 ? (v)[0] : (d) == 1 ? (v)[1] : (v)[2])

static inline uint64_t pick_id(uint64_t lx, uint64_t ly, uint64_t lz,
                               uint32_t d) {
  return d == 0 ? lx : d == 1 ? ly : lz;
}

/* Every helper below is the body of the work-item builtin of the same
 * name; g is the group being run, lx/ly/lz the current work-item. */

__attribute__((always_inline)) uint32_t
__skein_get_work_dim(const skein_group *g, uint64_t lx, uint64_t ly,
                     uint64_t lz) {
  (void)lx, (void)ly, (void)lz;
  return g->launch->work_dim;
}

__attribute__((always_inline)) uint64_t
__skein_get_global_size(const skein_group *g, uint64_t lx, uint64_t ly,
                        uint64_t lz, uint32_t d) {
  (void)lx, (void)ly, (void)lz;
  return d < 3 ? PICK(g->launch->global_size, d) : 1;
}

__attribute__((always_inline)) uint64_t
__skein_get_global_id(const skein_group *g, uint64_t lx, uint64_t ly,
                      uint64_t lz, uint32_t d) {
  if (d >= 3)
    return 0;
  return PICK(g->group_id, d) * PICK(g->launch->local_size, d) +
         pick_id(lx, ly, lz, d) + PICK(g->launch->global_offset, d);
}

__attribute__((always_inline)) uint64_t
__skein_get_local_size(const skein_group *g, uint64_t lx, uint64_t ly,
                       uint64_t lz, uint32_t d) {
  (void)lx, (void)ly, (void)lz;
  return d < 3 ? PICK(g->local_size, d) : 1;
}

__attribute__((always_inline)) uint64_t
__skein_get_enqueued_local_size(const skein_group *g, uint64_t lx,
                                uint64_t ly, uint64_t lz, uint32_t d) {
  (void)lx, (void)ly, (void)lz;
  return d < 3 ? PICK(g->launch->local_size, d) : 1;
}

__attribute__((always_inline)) uint64_t
__skein_get_local_id(const skein_group *g, uint64_t lx, uint64_t ly,
                     uint64_t lz, uint32_t d) {
  (void)g;
  return d < 3 ? pick_id(lx, ly, lz, d) : 0;
}

__attribute__((always_inline)) uint64_t
__skein_get_num_groups(const skein_group *g, uint64_t lx, uint64_t ly,
                       uint64_t lz, uint32_t d) {
  (void)lx, (void)ly, (void)lz;
  return d < 3 ? PICK(g->launch->num_groups, d) : 1;
}

__attribute__((always_inline)) uint64_t
__skein_get_group_id(const skein_group *g, uint64_t lx, uint64_t ly,
                     uint64_t lz, uint32_t d) {
  (void)lx, (void)ly, (void)lz;
  return d < 3 ? PICK(g->group_id, d) : 0;
}

__attribute__((always_inline)) uint64_t
__skein_get_global_offset(const skein_group *g, uint64_t lx, uint64_t ly,
                          uint64_t lz, uint32_t d) {
  (void)lx, (void)ly, (void)lz;
  return d < 3 ? PICK(g->launch->global_offset, d) : 0;
}

/* OpenCL 2.0: ((gz - oz) * gsy + (gy - oy)) * gsx + (gx - ox). */
__attribute__((always_inline)) uint64_t
__skein_get_global_linear_id(const skein_group *g, uint64_t lx, uint64_t ly,
                             uint64_t lz) {
  const skein_launch *l = g->launch;
  uint64_t x = g->group_id[0] * l->local_size[0] + lx;
  uint64_t y = g->group_id[1] * l->local_size[1] + ly;
  uint64_t z = g->group_id[2] * l->local_size[2] + lz;
  return (z * l->global_size[1] + y) * l->global_size[0] + x;
}

/* OpenCL 2.0: (lz * lsy + ly) * lsx + lx, with this group's sizes. */
__attribute__((always_inline)) uint64_t
__skein_get_local_linear_id(const skein_group *g, uint64_t lx, uint64_t ly,
                            uint64_t lz) {
  return (lz * g->local_size[1] + ly) * g->local_size[0] + lx;
}

/* Sub-groups (OpenCL C 3.0 section 6.15.2, __opencl_c_subgroups): runs of
 * launch->sub_group_size consecutive linear local ids; the last sub-group
 * of a group may be smaller. These are plain expressions of the local
 * ids, like the helpers above, so loop and region mode keep vectorising
 * kernels that call them. */
static inline uint64_t sg_width(const skein_group *g) {
  return g->launch->sub_group_size ? g->launch->sub_group_size : 1;
}

static inline uint64_t sg_linear(const skein_group *g, uint64_t lx,
                                 uint64_t ly, uint64_t lz) {
  return (lz * g->local_size[1] + ly) * g->local_size[0] + lx;
}

static inline uint64_t sg_group_size(const uint64_t *size) {
  return size[0] * size[1] * size[2];
}

/* min(sub-group size, work-items from the sub-group's start to the
 * group's end). */
__attribute__((always_inline)) uint32_t
__skein_get_sub_group_size(const skein_group *g, uint64_t lx, uint64_t ly,
                           uint64_t lz) {
  uint64_t s = sg_width(g);
  uint64_t first = sg_linear(g, lx, ly, lz) / s * s;
  uint64_t left = sg_group_size(g->local_size) - first;
  return (uint32_t)(left < s ? left : s);
}

/* The largest sub-group of the dispatch: that of an enqueued-size group. */
__attribute__((always_inline)) uint32_t
__skein_get_max_sub_group_size(const skein_group *g, uint64_t lx,
                               uint64_t ly, uint64_t lz) {
  (void)lx, (void)ly, (void)lz;
  uint64_t s = sg_width(g), n = sg_group_size(g->launch->local_size);
  return (uint32_t)(n < s ? n : s);
}

__attribute__((always_inline)) uint32_t
__skein_get_num_sub_groups(const skein_group *g, uint64_t lx, uint64_t ly,
                           uint64_t lz) {
  (void)lx, (void)ly, (void)lz;
  uint64_t s = sg_width(g);
  return (uint32_t)((sg_group_size(g->local_size) + s - 1) / s);
}

__attribute__((always_inline)) uint32_t
__skein_get_enqueued_num_sub_groups(const skein_group *g, uint64_t lx,
                                    uint64_t ly, uint64_t lz) {
  (void)lx, (void)ly, (void)lz;
  uint64_t s = sg_width(g);
  return (uint32_t)((sg_group_size(g->launch->local_size) + s - 1) / s);
}

__attribute__((always_inline)) uint32_t
__skein_get_sub_group_id(const skein_group *g, uint64_t lx, uint64_t ly,
                         uint64_t lz) {
  return (uint32_t)(sg_linear(g, lx, ly, lz) / sg_width(g));
}

__attribute__((always_inline)) uint32_t
__skein_get_sub_group_local_id(const skein_group *g, uint64_t lx,
                               uint64_t ly, uint64_t lz) {
  return (uint32_t)(sg_linear(g, lx, ly, lz) % sg_width(g));
}

/* The compiler reads the IR types of the ABI structs off these two
 * globals (their value types), so generated code and C agree on layout. */
skein_launch __skein_abi_launch_layout;
skein_group __skein_abi_group_layout;
