/* This file declares the corpus of test-modes-diff: real-world-style
 * OpenCL C kernels (serial "task" kernels, row and block loops with
 * barriers, scans, sorts, GEMM, FFT, reductions, histograms, collectives),
 * grouped in parts that are each one program, and families that each run
 * one kind of kernel over several sizes and check fiber mode's result
 * against a host reference. */
#ifndef SKEIN_MODES_CORPUS_H
#define SKEIN_MODES_CORPUS_H

#include "modes_diff.h"

typedef struct md_ctx {
  test_env *env;
  md_program *prog; /* the part's program, built in every mode */
} md_ctx;

/* A family runs one kernel (or one kind) over its sizes; arg tells a
 * shared run function which member it is. */
typedef struct corpus_family {
  const char *name;
  void (*run)(md_ctx *c, int arg);
  int arg;
} corpus_family;

typedef struct corpus_part {
  const char *name;
  const char *source;
  const corpus_family *families;
  int nfamilies;
} corpus_part;

extern const corpus_part corpus_task, corpus_group, corpus_scan, corpus_dense;

/* Runs l in every mode; fiber receives fiber mode's buffers. Returns 0
 * if the fiber run succeeded, so that a host reference can look at it. */
static inline int corpus_run(md_ctx *c, const md_launch *l,
                             void *fiber[MD_MAX_ARGS]) {
  return md_compare(c->env, c->prog, l, fiber) < 0 ? -1 : 0;
}

/* A uniformly distributed integer in [lo, hi] from test_rand. */
static inline int corpus_rand(int lo, int hi) {
  return lo + (int)(test_rand() % (unsigned long long)(hi - lo + 1));
}

#endif
