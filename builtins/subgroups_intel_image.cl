/* This file contains cl_intel_subgroups' block reads and writes of 2D
 * images (with _ui, and _us, _uc and _ul of cl_intel_subgroups_short,
 * _char and _long): read_only and read_write images for reads, write_only and
 * read_write for writes. Each passes the image's descriptor, the byte
 * coordinate, its sub-group lane and the value's size and count to
 * subgroups_intel_image.c. The lane is get_sub_group_local_id(), which
 * only fiber mode keeps per work-item: compiler/callgraph.c keeps
 * kernels that call intel_sub_group_* functions in fiber mode. */
#include "builtins.h"

#define ISG_OVL __attribute__((overloadable, always_inline))

const global void *__skein_image_2d_ro(read_only image2d_t);
const global void *__skein_image_2d_wo(write_only image2d_t);
const global void *__skein_image_2d_rw(read_write image2d_t);
void __skein_isg_image_read(const global void *image, int x, int y,
                            uint lane, uint size, uint n, private void *out);
void __skein_isg_image_write(const global void *image, int x, int y,
                             uint lane, uint size, uint n,
                             private const void *in);

#define RD(name, VT, T, n, acc, Q)                                         \
  VT ISG_OVL name(Q image2d_t i, int2 c) {                                 \
    VT r;                                                                  \
    __skein_isg_image_read(__skein_image_2d_##acc(i), c.x, c.y,            \
                           get_sub_group_local_id(), sizeof(T), n, &r);    \
    return r;                                                              \
  }
#define WR(name, VT, T, n, acc, Q)                                         \
  void ISG_OVL name(Q image2d_t i, int2 c, VT v) {                         \
    __skein_isg_image_write(__skein_image_2d_##acc(i), c.x, c.y,           \
                            get_sub_group_local_id(), sizeof(T), n, &v);   \
  }
#define BOTH(rname, wname, VT, T, n)                                       \
  RD(rname, VT, T, n, ro, read_only)                                       \
  RD(rname, VT, T, n, rw, read_write)                                      \
  WR(wname, VT, T, n, wo, write_only)                                      \
  WR(wname, VT, T, n, rw, read_write)
#define SUFFIXED(S, T)                                                     \
  BOTH(intel_sub_group_block_read_##S, intel_sub_group_block_write_##S,    \
       T, T, 1)                                                            \
  BOTH(intel_sub_group_block_read_##S##2,                                  \
       intel_sub_group_block_write_##S##2, T##2, T, 2)                     \
  BOTH(intel_sub_group_block_read_##S##4,                                  \
       intel_sub_group_block_write_##S##4, T##4, T, 4)                     \
  BOTH(intel_sub_group_block_read_##S##8,                                  \
       intel_sub_group_block_write_##S##8, T##8, T, 8)

BOTH(intel_sub_group_block_read, intel_sub_group_block_write, uint, uint, 1)
BOTH(intel_sub_group_block_read2, intel_sub_group_block_write2, uint2, uint,
     2)
BOTH(intel_sub_group_block_read4, intel_sub_group_block_write4, uint4, uint,
     4)
BOTH(intel_sub_group_block_read8, intel_sub_group_block_write8, uint8, uint,
     8)
SUFFIXED(ui, uint)
SUFFIXED(us, ushort)
SUFFIXED(uc, uchar)
SUFFIXED(ul, ulong)
BOTH(intel_sub_group_block_read_uc16, intel_sub_group_block_write_uc16,
     uchar16, uchar, 16)
