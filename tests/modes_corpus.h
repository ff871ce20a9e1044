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

/* What fiber mode's run must leave in buffer argument arg: the whole
 * buffer, bit for bit. */
typedef struct corpus_want {
  int arg;
  const void *want;
} corpus_want;

/* Runs l in every mode (each compared with fiber mode) and, if the fiber
 * run succeeded, checks fiber mode's buffers against the host references
 * want[0..n) (md_expect, in each buffer's element size); then frees l. */
static inline void corpus_check_n(md_ctx *c, md_launch *l, int n,
                                  const corpus_want *want) {
  void *fiber[MD_MAX_ARGS];
  if (md_compare(c->env, c->prog, l, fiber) >= 0)
    for (int i = 0; i < n; i++) {
      const md_arg *a = &l->args[want[i].arg];
      md_expect(l, a->name, fiber[want[i].arg], want[i].want,
                a->size / a->elem, a->elem);
    }
  md_results_free(fiber);
  md_launch_free(l);
}

/* corpus_check(c, &l, {a_x, want_x}, {a_y, want_y}, ...) */
#define corpus_check(c, l, ...)                                            \
  corpus_check_n((c), (l),                                                 \
                 (int)(sizeof((corpus_want[]){__VA_ARGS__}) /              \
                       sizeof(corpus_want)),                               \
                 (corpus_want[]){__VA_ARGS__})

/* The same for one buffer of floats, within tol (md_expect_float). */
static inline void corpus_check_float(md_ctx *c, md_launch *l, int arg,
                                      const float *want, float tol) {
  void *fiber[MD_MAX_ARGS];
  if (md_compare(c->env, c->prog, l, fiber) >= 0)
    md_expect_float(l, l->args[arg].name, fiber[arg], want,
                    l->args[arg].size / sizeof(float), tol);
  md_results_free(fiber);
  md_launch_free(l);
}

/* A uniformly distributed integer in [lo, hi] from test_rand. */
static inline int corpus_rand(int lo, int hi) {
  return lo + (int)(test_rand() % (unsigned long long)(hi - lo + 1));
}

#endif
