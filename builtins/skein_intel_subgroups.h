/* This file declares the cl_intel_subgroups built-in functions (with
 * cl_intel_subgroups_char, _short and _long): the shuffles and the block
 * reads and writes of global buffers, which Clang 19 declares only in
 * opencl-c.h, not with -fdeclare-opencl-builtins. The compiler includes
 * it (embedded, as if by -include) after Clang's default header in every
 * compile; each part appears only where its extension macro is defined
 * (compiler/options.c). The definitions are the __skein_ctx_ functions
 * of builtins/subgroups_intel.c, and for images subgroups_intel_image.cl. */
#if defined(cl_intel_subgroups)

#define __SKEIN_ISG __attribute__((overloadable))

#define __SKEIN_ISG_SHUFFLES1(T)                                            \
  T __SKEIN_ISG intel_sub_group_shuffle(T x, uint c);                       \
  T __SKEIN_ISG intel_sub_group_shuffle_down(T cur, T next, uint delta);    \
  T __SKEIN_ISG intel_sub_group_shuffle_up(T prev, T cur, uint delta);      \
  T __SKEIN_ISG intel_sub_group_shuffle_xor(T x, uint c);
#define __SKEIN_ISG_SHUFFLES(T)                                             \
  __SKEIN_ISG_SHUFFLES1(T) __SKEIN_ISG_SHUFFLES1(T##2)                      \
  __SKEIN_ISG_SHUFFLES1(T##3) __SKEIN_ISG_SHUFFLES1(T##4)                   \
  __SKEIN_ISG_SHUFFLES1(T##8) __SKEIN_ISG_SHUFFLES1(T##16)

__SKEIN_ISG_SHUFFLES(float)
__SKEIN_ISG_SHUFFLES(int)
__SKEIN_ISG_SHUFFLES(uint)
#if defined(cl_khr_fp64)
__SKEIN_ISG_SHUFFLES(double)
#endif

/* half with cl_khr_fp16: its pragma is needed to name the type, and is
 * put back off after, as the program expects to find it. */
#if defined(cl_khr_fp16)
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__SKEIN_ISG_SHUFFLES(half)
#pragma OPENCL EXTENSION cl_khr_fp16 : disable
#endif

uint __SKEIN_ISG intel_sub_group_block_read(const __global uint *p);
uint2 __SKEIN_ISG intel_sub_group_block_read2(const __global uint *p);
uint4 __SKEIN_ISG intel_sub_group_block_read4(const __global uint *p);
uint8 __SKEIN_ISG intel_sub_group_block_read8(const __global uint *p);
void __SKEIN_ISG intel_sub_group_block_write(__global uint *p, uint data);
void __SKEIN_ISG intel_sub_group_block_write2(__global uint *p, uint2 data);
void __SKEIN_ISG intel_sub_group_block_write4(__global uint *p, uint4 data);
void __SKEIN_ISG intel_sub_group_block_write8(__global uint *p, uint8 data);

/* The _ui, _us, _uc and _ul names: S the suffix, T the element type. */
#define __SKEIN_ISG_BLOCK(S, T, N)                                          \
  T##N __SKEIN_ISG intel_sub_group_block_read_##S##N(const __global T *p);  \
  void __SKEIN_ISG intel_sub_group_block_write_##S##N(__global T *p,        \
                                                      T##N data);
#define __SKEIN_ISG_BLOCKS(S, T)                                            \
  T __SKEIN_ISG intel_sub_group_block_read_##S(const __global T *p);        \
  void __SKEIN_ISG intel_sub_group_block_write_##S(__global T *p, T data);  \
  __SKEIN_ISG_BLOCK(S, T, 2) __SKEIN_ISG_BLOCK(S, T, 4)                     \
  __SKEIN_ISG_BLOCK(S, T, 8)

__SKEIN_ISG_BLOCKS(ui, uint)

#if defined(cl_intel_subgroups_short)
__SKEIN_ISG_SHUFFLES(short)
__SKEIN_ISG_SHUFFLES(ushort)
__SKEIN_ISG_BLOCKS(us, ushort)
#endif
#if defined(cl_intel_subgroups_char)
__SKEIN_ISG_SHUFFLES(char)
__SKEIN_ISG_SHUFFLES(uchar)
__SKEIN_ISG_BLOCKS(uc, uchar)
__SKEIN_ISG_BLOCK(uc, uchar, 16)
#endif
#if defined(cl_intel_subgroups_long)
__SKEIN_ISG_SHUFFLES(long)
__SKEIN_ISG_SHUFFLES(ulong)
__SKEIN_ISG_BLOCKS(ul, ulong)
#endif

/* Block reads and writes of 2D images (subgroups_intel_image.cl): reads
 * of read_only and read_write images, writes of write_only and
 * read_write ones. */
#if defined(__opencl_c_images)
#if defined(__opencl_c_read_write_images)
#define __SKEIN_ISG_IMAGE_RW(R, W, VT)                                      \
  VT __SKEIN_ISG R(read_write image2d_t image, int2 byte_coord);            \
  void __SKEIN_ISG W(read_write image2d_t image, int2 byte_coord, VT data);
#else
#define __SKEIN_ISG_IMAGE_RW(R, W, VT)
#endif
#define __SKEIN_ISG_IMAGE(R, W, VT)                                         \
  VT __SKEIN_ISG R(read_only image2d_t image, int2 byte_coord);             \
  void __SKEIN_ISG W(write_only image2d_t image, int2 byte_coord, VT data); \
  __SKEIN_ISG_IMAGE_RW(R, W, VT)
#define __SKEIN_ISG_IMAGES(S, T)                                            \
  __SKEIN_ISG_IMAGE(intel_sub_group_block_read_##S,                         \
                    intel_sub_group_block_write_##S, T)                     \
  __SKEIN_ISG_IMAGE(intel_sub_group_block_read_##S##2,                      \
                    intel_sub_group_block_write_##S##2, T##2)               \
  __SKEIN_ISG_IMAGE(intel_sub_group_block_read_##S##4,                      \
                    intel_sub_group_block_write_##S##4, T##4)               \
  __SKEIN_ISG_IMAGE(intel_sub_group_block_read_##S##8,                      \
                    intel_sub_group_block_write_##S##8, T##8)
__SKEIN_ISG_IMAGE(intel_sub_group_block_read, intel_sub_group_block_write,
                  uint)
__SKEIN_ISG_IMAGE(intel_sub_group_block_read2, intel_sub_group_block_write2,
                  uint2)
__SKEIN_ISG_IMAGE(intel_sub_group_block_read4, intel_sub_group_block_write4,
                  uint4)
__SKEIN_ISG_IMAGE(intel_sub_group_block_read8, intel_sub_group_block_write8,
                  uint8)
__SKEIN_ISG_IMAGES(ui, uint)
#if defined(cl_intel_subgroups_short)
__SKEIN_ISG_IMAGES(us, ushort)
#endif
#if defined(cl_intel_subgroups_char)
__SKEIN_ISG_IMAGES(uc, uchar)
__SKEIN_ISG_IMAGE(intel_sub_group_block_read_uc16,
                  intel_sub_group_block_write_uc16, uchar16)
#endif
#if defined(cl_intel_subgroups_long)
__SKEIN_ISG_IMAGES(ul, ulong)
#endif
#undef __SKEIN_ISG_IMAGES
#undef __SKEIN_ISG_IMAGE
#undef __SKEIN_ISG_IMAGE_RW
#endif

#undef __SKEIN_ISG_BLOCKS
#undef __SKEIN_ISG_BLOCK
#undef __SKEIN_ISG_SHUFFLES
#undef __SKEIN_ISG_SHUFFLES1
#undef __SKEIN_ISG
#endif
