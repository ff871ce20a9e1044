/* This file declares the differential engine of test-modes-diff: it builds
 * one program in every execution mode Skein has (fiber, the default,
 * scalar code, plain loop mode), runs the same launch in each, and
 * compares every buffer bit for bit against the fiber-mode run, which is
 * the reference (fiber mode runs each work-item as written). Buffers carry
 * guard zones on both sides, so a write outside a buffer is caught too. */
#ifndef SKEIN_MODES_DIFF_H
#define SKEIN_MODES_DIFF_H

#include "test_util.h"
#include <stdint.h>

/* The modes, reference first. */
enum { MD_FIBER, MD_DEFAULT, MD_SCALAR, MD_LOOP, MD_NMODES };
extern const char *const md_mode_names[MD_NMODES];

#define MD_MAX_ARGS 24
#define MD_MAX_STEPS 16

typedef enum { MD_BUF, MD_SCALAR_ARG, MD_LOCAL } md_arg_kind;

typedef struct md_arg {
  md_arg_kind kind;
  size_t size; /* bytes of the buffer, scalar or local block */
  size_t elem; /* element size of a buffer, for reports */
  void *data;  /* malloc'd initial contents (NULL: a poison pattern) or
                  scalar value */
  char name[24];
} md_arg;

/* One kernel enqueue of a launch; arg[] index the launch's args. */
typedef struct md_step {
  const char *kernel;
  cl_uint dims;
  size_t global[3], local[3]; /* local[0] == 0: the driver chooses */
  int nargs;
  int arg[MD_MAX_ARGS];
} md_step;

/* The buffers and scalars of a launch and the kernels it enqueues in
 * order (several steps share buffers: two-level reductions, sort passes). */
typedef struct md_launch {
  char label[128];
  int nargs, nsteps;
  md_arg args[MD_MAX_ARGS];
  md_step steps[MD_MAX_STEPS];
} md_launch;

/* One program built in every mode, with what SKEIN_DUMP=modes said. */
typedef struct md_unit {
  char *source;
  cl_program prog[MD_NMODES];
  char *dump[MD_NMODES];
} md_unit;

/* A source built either whole (one unit) or kernel by kernel (a unit per
 * "kernel void" at the start of a line, each with the text before the
 * first kernel): a kernel alone in its program is compiled as a small
 * program is, with no other kernel's fallback applied to it. */
typedef struct md_program {
  int nunits;
  md_unit *units;
} md_program;

/* Counts over a whole run, so that a run that compared nothing fails. */
typedef struct md_stats {
  long launches;                /* launches run in every mode */
  long unchanged;               /* launches whose fiber run changed no
                                   buffer (a comparison of poison) */
  long compared[MD_NMODES];     /* launches compared against fiber */
  long mismatches;              /* (launch, mode) pairs that differed */
  long host_failures;           /* fiber results a host reference rejected */
  long errors;                  /* builds or enqueues that failed */
  long default_kernel_modes[3]; /* kernels the default build put in loop,
                                   region, fiber mode */
  double build_s[MD_NMODES], run_s[MD_NMODES]; /* time spent per mode */
} md_stats;

/* Where the engine is, for a crash report: set by md_note. */
typedef void (*md_note_fn)(const char *what);
extern md_note_fn md_note_hook;
void md_note(const char *fmt, ...);

/* Launch construction. md_buf copies data; md_out is a buffer of
 * poison bytes (MD_POISON), so a missing store shows as a difference. */
#define MD_POISON 0xA5
void md_init(md_launch *l, const char *fmt, ...);
int md_buf(md_launch *l, const char *name, const void *data, size_t size,
           size_t elem);
int md_out(md_launch *l, const char *name, size_t size, size_t elem);
int md_scalar(md_launch *l, const void *value, size_t size);
int md_u32(md_launch *l, uint32_t v);
int md_i32(md_launch *l, int32_t v);
int md_local(md_launch *l, size_t size);
/* Adds a step: nargs argument indices follow. global/local have dims
 * entries; local NULL lets the driver choose. */
void md_step_add(md_launch *l, const char *kernel, cl_uint dims,
                 const size_t *global, const size_t *local, int nargs, ...);
void md_launch_free(md_launch *l);

/* Builds source with options in every mode, whole or per kernel.
 * Returns 0, or -1 after printing which mode failed and its log. */
int md_build(test_env *env, md_program *p, const char *source,
             const char *options, int per_kernel);
void md_program_release(md_program *p);

/* The mode the compiler gave kernel in build mode m ("loop", "region",
 * "fiber" or "?"). */
const char *md_kernel_mode(const md_program *p, int m, const char *kernel);

/* Runs l in every mode and compares with fiber mode. On return fiber[a]
 * holds fiber mode's contents of buffer argument a (malloc'd; NULL for
 * other arguments), for a host reference to check. Returns the number of
 * modes that differed (each reported on stderr), or -1 when the fiber run
 * itself failed. */
int md_compare(test_env *env, md_program *p, const md_launch *l,
               void *fiber[MD_MAX_ARGS]);
void md_results_free(void *fiber[MD_MAX_ARGS]);

/* Reports (and counts) a fiber-mode result that disagrees with the host
 * reference: n elements of size elem at got vs want. Returns 1 if they
 * differ. */
int md_expect(const md_launch *l, const char *what, const void *got,
              const void *want, size_t n, size_t elem);

/* The same for floats within tol (relative to max(1, |want|)). */
int md_expect_float(const md_launch *l, const char *what, const float *got,
                    const float *want, size_t n, float tol);

extern md_stats *md_stats_out; /* where counts go (shared memory) */

#endif
