/* This file declares the seeded random kernel generator of
 * test-modes-diff, in the spirit of CLsmith: each seed gives one OpenCL C
 * kernel free of undefined behaviour and data races, whose results
 * therefore must not depend on how work-items are scheduled, vectorised or
 * cut into regions. It mixes loops with uniform bounds (arguments,
 * constants, work-size queries) and varying ones (local id, loaded data),
 * barriers in uniform loops and branches, branches on uniform and varying
 * conditions, early break/continue/return, stores to uniform and varying
 * addresses, char..ulong arithmetic and conversions, private and local
 * arrays, helper calls and work-group collectives.
 *
 * Every kernel has the signature
 *   kernel void NAME(global const int *in, global const float *fin,
 *                    global uint *out, global uint *uni, uint a0, int a1,
 *                    uint am)
 * in: KG_IN_LEN ints; fin: KG_IN_LEN floats, multiples of 0.5 in
 * [-100, 100] (so float sums and products stay exact); out: KG_OUT_PER_ITEM
 * uints per work-item, each written only by its owner; uni: KG_UNI_GLOBAL slots
 * for the whole NDRange, then KG_UNI_PER_GROUP per group (stored by every
 * work-item with the same value, or by one work-item). am >= 1. */
#ifndef SKEIN_KERNEL_GEN_H
#define SKEIN_KERNEL_GEN_H

#include <stddef.h>
#include <stdint.h>

#define KG_IN_LEN 256
#define KG_OUT_PER_ITEM 4
#define KG_UNI_GLOBAL 8
#define KG_UNI_PER_GROUP 8
#define KG_MAX_LOCAL 64

typedef struct kg_kernel {
  unsigned long long seed;
  char name[32];
  char *source; /* the kernel and its helper functions (malloc'd) */
} kg_kernel;

/* One launch of a generated kernel: a 1D NDRange (the last group partial
 * where global is not a multiple of local), the scalars and the input. */
typedef struct kg_launch {
  size_t global, local;
  uint32_t a0, am;
  int32_t a1;
  int32_t in[KG_IN_LEN];
  float fin[KG_IN_LEN];
} kg_launch;

/* The arithmetic helpers (overflow- and zero-guarded) every program of
 * generated kernels starts with, once. */
const char *kg_preamble(void);

/* The kernel of seed (a pure function of the seed). */
void kg_generate(unsigned long long seed, kg_kernel *k);
void kg_kernel_free(kg_kernel *k);

/* Launch number variant of the kernel of seed. */
void kg_launch_make(unsigned long long seed, int variant, kg_launch *l);

/* Words of the uni buffer a launch needs. */
size_t kg_uni_words(const kg_launch *l);

#endif
