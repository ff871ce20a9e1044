/* This file declares the scheduler's internals shared by pool.c (threads,
 * topology, idle/wake protocol) and job.c (the job queue, group claiming
 * and completion): the pool and task structures and the futex wrappers. */
#ifndef SKEIN_SCHED_INTERNAL_H
#define SKEIN_SCHED_INTERNAL_H

#include "scheduler.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Bytes of each local memory block: twice the 64 KiB the device reports as
 * CL_DEVICE_LOCAL_MEM_SIZE, so a kernel's static __local variables plus its
 * __local arguments (each aligned up to 128 bytes by the runtime) always
 * fit, with room for the compiler's per-group scratch (collective slots). */
#define SCHED_LOCAL_MEM_SIZE ((size_t)128 * 1024)

/* Local memory blocks for threads that call sched_run() and run groups
 * themselves. More concurrent callers than this wait for a free block. */
#define SCHED_CALLER_SLOTS 4

/* Thread-local storage of the scheduler: initial-exec, like the runtime's
 * RT_TLS (runtime/core/object.h), so that no thread's first access allocates
 * (a failed lazy TLS allocation ends the process). */
#define SCHED_TLS __thread __attribute__((tls_model("initial-exec")))

/* The most compute units (SKEIN_NUM_THREADS is capped there). */
#define SCHED_MAX_UNITS 1024

/* A set of compute units (scheduler.h): a job with one runs only on the
 * background threads of those units. */
struct sched_subset {
  unsigned count;              /* units in the set */
  uint64_t bits[SCHED_MAX_UNITS / 64];
};

static inline bool sched_subset_has(const sched_subset *s, unsigned unit) {
  return unit < SCHED_MAX_UNITS && (s->bits[unit / 64] >> (unit % 64)) & 1;
}

/* Guided chunking: a claim takes remaining / (SCHED_CHUNK_K * workers). */
#define SCHED_CHUNK_K 2

/* How long an idle worker, and a caller waiting for completion, spin
 * before they sleep in the kernel. */
#define SCHED_SPIN_NS 40000

/* One sched_run() call in flight. It lives on the caller's stack: no
 * allocation on the launch path. */
typedef struct sched_task {
  sched_job job;               /* copy of the caller's job */
  uint64_t total;              /* number of groups */
  uint64_t nx, nxy;            /* num_groups[0], num_groups[0] * [1] */
  unsigned workers;            /* sched_num_workers() at submission */
  _Atomic uint64_t next;       /* first unclaimed linear group index */
  /* Groups not yet finished plus references held by workers. A worker
   * takes a reference (under the queue lock, while the task is linked)
   * before it touches the task and drops it when its claims fail, so the
   * count reaches zero exactly once, when nobody will touch the task
   * again except for the futex wake on state. */
  _Atomic uint64_t unfinished;
  _Atomic uint32_t state;      /* SCHED_TASK_* */
  struct sched_task *next_task; /* queue link, guarded by the queue lock */
  bool linked;                 /* in the queue; guarded by the queue lock */
} sched_task;

enum {
  SCHED_TASK_RUNNING = 0,
  SCHED_TASK_SLEEPING = 1,     /* the caller sleeps on state */
  SCHED_TASK_DONE = 2,
};

typedef struct sched_worker {
  pthread_t thread;
  unsigned index;              /* 1..N-1 (0 is the calling thread); its
                                  compute unit, bound to core index %
                                  ncores */
  bool subset_only;            /* runs only sub-device jobs (subset.c) */
  void *cpuset;                /* hwloc_bitmap_t to bind to, owned */
  char *local_mem;             /* SCHED_LOCAL_MEM_SIZE bytes, owned */
} sched_worker;

typedef struct sched_pool {
  /* Queue of linked tasks, oldest first. head is also read without the
   * lock by idle workers polling for work; it is written with the lock. */
  pthread_mutex_t lock;
  sched_task *_Atomic head;
  sched_task *tail;            /* guarded by lock */

  /* Idle protocol (see pool.c). */
  _Atomic uint32_t link_seq;   /* bumped by every task_link: an idle
                                  worker waits for it to change */
  _Atomic uint32_t wake_seq;   /* futex word sleepers wait on */
  _Atomic unsigned n_spinning; /* idle workers polling head */
  _Atomic unsigned n_sleeping; /* idle workers in futex_wait */
  _Atomic bool stop;

  unsigned num_workers;        /* compute units: background + callers */
  unsigned num_threads;        /* background threads started */
  bool caller_helps;           /* see the comment at the top of pool.c */
  sched_worker *threads;       /* num_threads entries */

  /* Local memory for calling threads; bit i of slot_free set = free. */
  char *caller_mem[SCHED_CALLER_SLOTS];
  _Atomic uint32_t slot_free;
  _Atomic unsigned slot_waiters;

  void *topology;              /* hwloc_topology_t, owned */
  unsigned ncores;             /* cores (or PUs) of the topology, >= 1 */
  int core_type;               /* hwloc_obj_type_t of those cores */
  /* Sub-devices (subset.c): bit u set when a thread runs as compute unit
   * u; written under init_lock before the thread starts, read by
   * sched_run. */
  _Atomic uint64_t unit_live[SCHED_MAX_UNITS / 64];
  sched_worker unit0;          /* compute unit 0's own pinned thread for
                                  sub-device jobs when the caller helps
                                  (started on first need) */
  bool unit0_started;          /* guarded by init_lock */
  void *caller_cpuset;         /* hwloc_bitmap_t: cores no thread uses */
} sched_pool;

extern sched_pool sched_g;

/* Thin wrappers over the Linux futex syscall (private futexes). */
void sched_futex_wait(_Atomic uint32_t *addr, uint32_t expected);
void sched_futex_wake(_Atomic uint32_t *addr, int count);

/* Monotonic time in nanoseconds. */
uint64_t sched_now_ns(void);

/* One pause instruction: tells the core (and an SMT sibling) we spin. */
static inline void sched_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Wakes idle workers for a newly linked task wanting `want` helpers.
 * Called after the task is visible in the queue. */
void sched_wake_workers(unsigned want);

/* Worker side of job.c: takes a reference to the oldest linked task w
 * may run (sub-device jobs only on their units' threads), or returns
 * NULL if there is none. */
sched_task *sched_task_acquire(const sched_worker *w);

/* The worker thread's body (pool.c). */
void *sched_worker_main(void *arg);

/* Marks compute unit u as having a running thread (subset.c). */
void sched_unit_set_live(unsigned u, bool live);

/* Starts compute unit 0's thread for sub-device jobs if the caller helps
 * and it is not running yet (subset.c). */
void sched_start_unit0(void);

/* The hwloc cpuset (owned by the caller) of compute unit unit's core,
 * or NULL without a topology (pool.c). */
void *sched_unit_cpuset(unsigned unit, unsigned ncores, int type);

/* How many running threads belong to units of s (subset.c). */
unsigned sched_subset_threads(const sched_subset *s);

/* Wakes every sleeping worker (pool.c): for a sub-device job, which only
 * some of them may run. */
void sched_wake_all(void);

/* Joins compute unit 0's sub-device thread if it runs; at shutdown,
 * after stop is set and sleepers are woken (subset.c). */
void sched_stop_unit0(void);

/* init_lock of pool.c, for subset.c's lazy thread start. */
extern pthread_mutex_t sched_init_lock;

/* Runs chunks of t until none is left, then drops the reference taken by
 * sched_task_acquire(). t may be gone when this returns. */
void sched_task_help(sched_task *t, char *local_mem);

#endif
