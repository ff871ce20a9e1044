/* This file declares what the parts of the stress test share: the run's
 * settings and the OpenCL objects every thread uses, each thread's state
 * (including the progress record the watchdog reads), failure reporting,
 * the per-thread random stream, callback counting, and the helper threads
 * (watchdog, user-event setter, the board of events that other threads
 * wait for). stress.c runs it; stress_seq.c, stress_ops.c and
 * stress_watch.c hold the parts. */
#ifndef SKEIN_STRESS_H
#define SKEIN_STRESS_H

#include "test_util.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum { STRESS_MAX_THREADS = 256, STRESS_MAX_SHARED = 4 };

/* Work sizes (buffer words, work-groups per command) are divided by this
 * under TSan, where fiber mode creates a TSan fiber (a whole thread
 * state) for every work-item of every group: the same paths run, many
 * more times in the same time. */
#if defined(__SANITIZE_THREAD__)
#define STRESS_SHRINK 16
#else
#define STRESS_SHRINK 1
#endif

/* n / STRESS_SHRINK, at least 1. */
static inline size_t stress_size(size_t n) {
  return n / STRESS_SHRINK ? n / STRESS_SHRINK : 1;
}

/* The kernels of the stress program (source in stress.c). */
typedef enum kernel_id {
  K_AFFINE,     /* loop mode */
  K_ADD,        /* loop mode */
  K_ADD2D,      /* loop mode, two dimensions */
  K_POLY,       /* region mode (implicit barriers in its loop) */
  K_GROUP_SUM,  /* region mode: barriers, __local argument, collectives */
  K_GROUP_SCAN, /* region mode: static __local, scan, broadcast */
  K_GUARDED,    /* fiber mode: region mode refuses its guarded barrier */
  NUM_KERNELS
} kernel_id;

/* The program is built twice: with the modes Skein chooses, and with
 * SKEIN_MODE=fiber set during the build (every kernel a fiber kernel). */
typedef enum prog_id { P_DEFAULT, P_FIBER, NUM_PROGS } prog_id;

/* A queue and how it orders commands (kept, not queried per command). */
typedef struct squeue {
  cl_command_queue q;
  bool in_order;
  bool profiling;
} squeue;

/* What a thread is doing, for the watchdog. Updated at every step that
 * must finish in bounded time; never while waiting, so a wait that does
 * not end shows up as a thread without progress. */
typedef struct progress {
  char name[24];
  _Atomic(const char *) where;
  _Atomic uint64_t op;          /* operations started */
  _Atomic uint64_t beat_ns;     /* last step */
  _Atomic bool idle;            /* not expected to progress (done, asleep) */
} progress;

typedef enum op_kind {
  OP_SEQUENCE,
  OP_CALLBACK_CHAIN,
  OP_FAILING_GATE,
  OP_BUILD,
  OP_QUEUE_CHURN,
  OP_BOARD_WAIT,
  OP_FINISH,
  OP_FINISH_FED,
  NUM_OPS
} op_kind;

typedef struct worker {
  unsigned id;
  uint64_t seed, rng;           /* rng: this thread's stream only */
  squeue own_in, own_ooo;
  cl_kernel kernels[NUM_PROGS][NUM_KERNELS]; /* this thread's own objects */
  progress prog;
  uint64_t ops[NUM_OPS];
  uint64_t commands;
  pthread_t thread;
} worker;

typedef struct stress_globals {
  double seconds;               /* how long threads start new operations */
  unsigned threads;
  uint64_t seed;
  double watchdog_s;            /* a thread without progress this long
                                   fails the run */
  test_env env;
  squeue shared[STRESS_MAX_SHARED];
  cl_program progs[NUM_PROGS];
  worker *workers;
  _Atomic bool stop;
  _Atomic unsigned failures;
  _Atomic uint64_t cb_registered, cb_fired;
  _Atomic unsigned builds_running;
} stress_globals;

extern stress_globals G;
extern const char *const stress_kernel_names[NUM_KERNELS];
extern const char *const stress_source;

/* stress.c: reporting, time and randomness. */

/* Records a failure of worker w's current operation (w may be NULL) and
 * prints it with the seed, thread and operation number. */
void stress_fail(const worker *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Marks a step of p: where it is and that it made progress. */
void stress_at(progress *p, const char *where);
uint64_t stress_now_ns(void);
void stress_nap_us(unsigned us);
uint64_t rnd(worker *w);
size_t rnd_below(worker *w, size_t n);            /* [0, n), n > 0 */
size_t rnd_range(worker *w, size_t lo, size_t hi); /* [lo, hi] */
bool chance(worker *w, unsigned percent);
void rnd_bytes(worker *w, void *p, size_t n);
/* A random queue: the thread's own or a shared one. */
const squeue *pick_queue(worker *w);
/* A new queue of the context ordered and profiled as asked (q NULL and
 * *err set if clCreateCommandQueueWithProperties fails). */
squeue stress_queue(bool in_order, bool profiling, cl_int *err);

/* Counts one callback: registered with cb_register, checked with
 * cb_await (which waits for it, frees nothing). */
typedef struct cb_count {
  _Atomic int fired;
  _Atomic cl_int status;
  cl_int trigger;
} cb_count;
bool cb_register(const worker *w, cl_event ev, cl_int trigger, cb_count *c);
/* Waits until c has fired; checks it fired once with the trigger's
 * status (or an error when the command may fail). */
void cb_await(worker *w, cb_count *c, bool may_fail);

/* stress_seq.c */
void op_sequence(worker *w);

/* stress_ops.c */
void op_callback_chain(worker *w);
void op_failing_gate(worker *w);
void op_build(worker *w);
void op_queue_churn(worker *w);
void op_finish(worker *w);
void op_finish_fed(worker *w);

/* stress_watch.c */
void watchdog_start(progress *const *slots, unsigned n);
void watchdog_stop(void);
void setter_start(void);
/* Sets every pending user event and stops the setter thread. */
void setter_stop(void);
/* Hands user event ev (and one reference) to the setter thread, which
 * sets it to status after delay_us. */
void setter_post(cl_event ev, cl_int status, unsigned delay_us);
/* A worker sets one due user event posted by another thread, if any. */
void setter_help(worker *w);
/* Hands a command's event (and one reference) to the board, from which
 * other threads take it to wait for it. */
void board_post(cl_event ev);
void op_board_wait(worker *w);
void board_drain(void);

#endif
