/* This file declares the cl_intel_subgroups built-in functions (with
 * cl_intel_subgroups_char, _short and _long): the shuffles and the block
 * reads and writes of global buffers, which Clang 19 declares only in
 * opencl-c.h, not with -fdeclare-opencl-builtins. The compiler includes
 * it (embedded, as if by -include) after Clang's default header in every
 * compile; each part appears only where its extension macro is defined
 * (compiler/options.c). The image block reads and writes and the half
 * shuffles (half would need the program's cl_khr_fp16 pragma here) are
 * not declared (docs/features.md). Their definitions are the __skein_ctx_
 * functions of builtins/subgroups_intel.c. */
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

#undef __SKEIN_ISG_BLOCKS
#undef __SKEIN_ISG_BLOCK
#undef __SKEIN_ISG_SHUFFLES
#undef __SKEIN_ISG_SHUFFLES1
#undef __SKEIN_ISG
#endif
