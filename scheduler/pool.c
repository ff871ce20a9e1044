/* This file contains the worker pool: hwloc topology discovery, starting
 * and pinning the workers, their idle protocol (spin, then sleep on a
 * futex) and shutdown.
 *
 * Who runs the groups. sched_num_workers() is N, the number of compute
 * units (one per core, or SKEIN_NUM_THREADS). The thread that calls
 * sched_run() (the runtime's executor, or an application thread in a
 * blocking call) runs groups itself, and N-1 background threads are
 * pinned to cores 1..N-1, leaving core 0 to the caller (sched_bind_caller
 * pins a long-lived caller there). The alternative, N pinned workers while
 * the caller sleeps, is kept behind SKEIN_SCHED_CALLER=sleep to compare.
 * tests/unit-scheduler.c, 2-core KVM guest shared with other builds
 * (medians of 10,000 launches; ranges over 5 runs):
 *                                    caller helps    caller sleeps
 *   1-group empty job                0.04 us         0.26-0.54 us
 *   2-group job, workers spinning    0.11-0.38 us    0.35-0.78 us
 *   2-group job, workers asleep      6-17 us         25-66 us
 *   10M empty groups                 460-1160 M/s    670-1100 M/s
 * A helping caller hands nothing off for a one-group kernel, and after an
 * idle gap it starts at once and pays only the futex wake (5-8 us to wake
 * a halted vCPU here) instead of also waiting for a worker to wake up.
 * Throughput is equal when the machine is otherwise idle; under outside
 * load an unpinned caller may stay on a worker's core (the low end of the
 * range; sched_bind_caller() rules that out, but then the caller shares
 * core 0 with the outside load, and measured no better). N workers plus
 * a caller that also runs groups would oversubscribe: a preempted thread
 * holding the last chunk delays the job by a time slice. The caller is
 * never pinned implicitly: it belongs to the runtime or the application.
 *
 * Lock rules: sched_g.lock guards the task queue (job.c); init_lock
 * serialises sched_init/sched_shutdown. Nothing holds both. */
#define _GNU_SOURCE
#include "sched_internal.h"

#include <hwloc.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SCHED_MAX_THREADS 1024

sched_pool sched_g = {.lock = PTHREAD_MUTEX_INITIALIZER};

pthread_mutex_t sched_init_lock = PTHREAD_MUTEX_INITIALIZER;
#define init_lock sched_init_lock
static _Atomic bool started;
static char *mem_base; /* one mapping: worker blocks, then caller slots */
static size_t mem_len;

/* Sleeps while *addr == expected (or until woken or interrupted). */
void sched_futex_wait(_Atomic uint32_t *addr, uint32_t expected) {
  /* EINTR and EAGAIN are fine: every caller re-checks its condition. */
  syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, expected, NULL,
          NULL, 0);
}

/* Wakes up to count threads sleeping on addr. */
void sched_futex_wake(_Atomic uint32_t *addr, int count) {
  syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, count, NULL,
          NULL, 0);
}

/* CLOCK_MONOTONIC in nanoseconds (vDSO: no syscall). */
uint64_t sched_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Idle worker: polls for a newly linked task for SCHED_SPIN_NS, then
 * sleeps on wake_seq. seen is link_seq before the worker last found no
 * task it may run: polling head instead would spin without end beside a
 * sub-device job it may not take. Returns false when the pool stops. The
 * sleeper announces itself in n_sleeping before re-checking link_seq,
 * and a publisher bumps link_seq before reading n_sleeping (all
 * seq_cst), so one of them sees the other: no lost wake-up. */
static bool idle_wait(uint32_t seen) {
  sched_pool *p = &sched_g;
  atomic_fetch_add(&p->n_spinning, 1);
  uint64_t deadline = sched_now_ns() + SCHED_SPIN_NS;
  for (;;) {
    for (int i = 0; i < 64; i++) {
      if (atomic_load(&p->link_seq) != seen || atomic_load(&p->stop)) {
        atomic_fetch_sub(&p->n_spinning, 1);
        return !atomic_load(&p->stop);
      }
      sched_cpu_relax();
    }
    if (sched_now_ns() > deadline)
      break;
  }
  uint32_t seq = atomic_load(&p->wake_seq);
  atomic_fetch_add(&p->n_sleeping, 1);
  atomic_fetch_sub(&p->n_spinning, 1);
  if (atomic_load(&p->link_seq) == seen && !atomic_load(&p->stop))
    sched_futex_wait(&p->wake_seq, seq);
  atomic_fetch_sub(&p->n_sleeping, 1);
  return !atomic_load(&p->stop);
}

/* Wakes up to `want` idle workers, less those already spinning, for a
 * task just linked. Called without the queue lock. */
void sched_wake_workers(unsigned want) {
  sched_pool *p = &sched_g;
  /* Unit 0's sub-device thread (subset.c) sleeps on the same futex but
   * never takes this job: one more wake-up covers its being chosen. */
  if (p->caller_helps && (atomic_load(&p->unit_live[0]) & 1))
    want++;
  /* Spinning workers will see the task themselves; wake only as many
   * sleepers as are still missing, never all of them for a small job. */
  unsigned spinning = atomic_load(&p->n_spinning);
  unsigned sleeping = atomic_load(&p->n_sleeping);
  if (sleeping == 0 || spinning >= want)
    return;
  unsigned k = want - spinning;
  if (k > sleeping)
    k = sleeping;
  atomic_fetch_add(&p->wake_seq, 1);
  sched_futex_wake(&p->wake_seq, (int)k);
}

void *sched_worker_main(void *arg) {
  sched_worker *w = arg;
  /* A binding that fails (a topology loaded from XML whose CPUs this
   * machine lacks, a cgroup without them) leaves the thread unpinned:
   * it still runs its unit's groups, only without the placement. */
  if (w->cpuset)
    hwloc_set_cpubind(sched_g.topology, w->cpuset, HWLOC_CPUBIND_THREAD);
  /* First touch after pinning: the block's pages come from this core's
   * NUMA node. */
  memset(w->local_mem, 0, SCHED_LOCAL_MEM_SIZE);
  for (;;) {
    uint32_t seen = atomic_load(&sched_g.link_seq);
    sched_task *t = sched_task_acquire(w);
    if (t) {
      sched_task_help(t, w->local_mem);
      continue;
    }
    if (!idle_wait(seen))
      return NULL;
  }
}

/* Number of compute units asked for: the argument, SKEIN_NUM_THREADS, or
 * the number of cores, in that order. */
static unsigned wanted_workers(unsigned num_threads, unsigned ncores) {
  if (num_threads == 0) {
    const char *env = getenv("SKEIN_NUM_THREADS");
    long v = env ? strtol(env, NULL, 10) : 0;
    num_threads = v > 0 ? (unsigned)v : ncores;
  }
  if (num_threads > SCHED_MAX_THREADS)
    num_threads = SCHED_MAX_THREADS;
  return num_threads ? num_threads : 1;
}

/* Loads the topology; returns the number of cores (PUs if hwloc finds no
 * cores) and their object type through *type, or 0 on failure. */
static unsigned load_topology(hwloc_obj_type_t *type) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) < 0)
    return 0;
  if (hwloc_topology_load(topo) < 0) {
    hwloc_topology_destroy(topo);
    return 0;
  }
  sched_g.topology = topo;
  /* HWLOC_XMLFILE (hwloc's own variable) loads a topology from XML: the
   * sub-device tests use it for machines with several NUMA nodes and L3
   * caches. */
  *type = HWLOC_OBJ_CORE;
  int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  if (n <= 0) {
    *type = HWLOC_OBJ_PU;
    n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  }
  return n > 0 ? (unsigned)n : 1;
}

/* The cpuset the thread of compute unit `unit` binds to: core unit %
 * ncores (units from 1 up when the caller helps, from 0 when it sleeps),
 * wrapping when there are more threads than cores. */
void *sched_unit_cpuset(unsigned unit, unsigned ncores, int type) {
  if (!sched_g.topology)
    return NULL;
  hwloc_obj_t obj = hwloc_get_obj_by_type(sched_g.topology, type,
                                          unit % ncores);
  return obj && obj->cpuset ? hwloc_bitmap_dup(obj->cpuset) : NULL;
}

/* Maps the local memory of every thread and caller slot. Pages are left
 * untouched so their owners fault them in. */
static int map_local_mem(unsigned nthreads) {
  mem_len = (size_t)(nthreads + SCHED_CALLER_SLOTS) * SCHED_LOCAL_MEM_SIZE;
  void *m = mmap(NULL, mem_len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return -1;
  mem_base = m;
  for (unsigned i = 0; i < SCHED_CALLER_SLOTS; i++)
    sched_g.caller_mem[i] =
        mem_base + (size_t)(nthreads + i) * SCHED_LOCAL_MEM_SIZE;
  atomic_store(&sched_g.slot_free, (1u << SCHED_CALLER_SLOTS) - 1);
  return 0;
}

/* Starts the background threads; returns how many started. */
static unsigned start_threads(unsigned n, unsigned ncores,
                              hwloc_obj_type_t type) {
  sched_pool *p = &sched_g;
  unsigned started_n = 0;
  for (unsigned j = 0; j < n; j++) {
    sched_worker *w = &p->threads[started_n];
    w->index = started_n + (p->caller_helps ? 1 : 0);
    /* Bound by index, not j: a thread that failed to start leaves no
     * hole in the units, and unit u stays on core u % ncores. */
    w->cpuset = sched_unit_cpuset(w->index, ncores, type);
    w->local_mem = mem_base + (size_t)started_n * SCHED_LOCAL_MEM_SIZE;
    w->subset_only = false;
    sched_unit_set_live(w->index, true);
    if (pthread_create(&w->thread, NULL, sched_worker_main, w) != 0) {
      sched_unit_set_live(w->index, false);
      hwloc_bitmap_free(w->cpuset);
      continue;
    }
    started_n++;
  }
  return started_n;
}

/* Computes the cores no background thread is bound to, for
 * sched_bind_caller(); NULL if there are none. */
static void *free_cpuset(void) {
  sched_pool *p = &sched_g;
  if (!p->topology)
    return NULL;
  hwloc_bitmap_t set =
      hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(p->topology));
  for (unsigned i = 0; i < p->num_threads; i++)
    if (p->threads[i].cpuset)
      hwloc_bitmap_andnot(set, set, p->threads[i].cpuset);
  if (hwloc_bitmap_iszero(set)) {
    hwloc_bitmap_free(set);
    return NULL;
  }
  return set;
}

/* Starts the pool; init_lock is held and the pool is stopped. */
static int start_pool(unsigned num_threads) {
  sched_pool *p = &sched_g;
  hwloc_obj_type_t type = HWLOC_OBJ_CORE;
  unsigned ncores = load_topology(&type);
  p->ncores = ncores ? ncores : 1;
  p->core_type = type;
  unsigned n = wanted_workers(num_threads, ncores ? ncores : 1);
  const char *mode = getenv("SKEIN_SCHED_CALLER");
  p->caller_helps = !(mode && strcmp(mode, "sleep") == 0);
  unsigned nthreads = p->caller_helps ? n - 1 : n;

  atomic_store(&p->stop, false);
  p->threads = calloc(nthreads ? nthreads : 1, sizeof *p->threads);
  if (!p->threads)
    goto out_free;
  if (map_local_mem(nthreads) < 0) {
    /* No room for every worker's local memory: the callers' blocks alone
     * (SCHED_CALLER_SLOTS of them) still make a working, smaller device
     * when callers run groups. */
    if (!p->caller_helps || map_local_mem(0) < 0)
      goto out_free;
    nthreads = 0;
  }
  p->num_threads = start_threads(nthreads, ncores ? ncores : 1, type);
  if (p->num_threads < nthreads && !p->caller_helps) {
    /* Defensive: a sleeping caller needs workers; with too few, it helps
     * instead, so the pool still runs every job. */
    p->caller_helps = true;
  }
  p->num_workers = p->num_threads + (p->caller_helps ? 1 : 0);
  p->caller_cpuset = free_cpuset();
  return 0;

out_free:
  free(p->threads);
  p->threads = NULL;
  if (p->topology)
    hwloc_topology_destroy(p->topology);
  p->topology = NULL;
  return -1;
}

/* Starts the pool (idempotent, thread-safe). num_threads 0 means one per
 * core, or SKEIN_NUM_THREADS if set. Returns 0, or -1 if the pool could
 * not be set up (then sched_run fails; a later call tries again). The calling thread
 * counts as one worker, so with N compute units N-1 threads start. */
int sched_init(unsigned num_threads) {
  if (atomic_load_explicit(&started, memory_order_acquire))
    return 0;
  pthread_mutex_lock(&init_lock);
  int rc = 0;
  if (!atomic_load_explicit(&started, memory_order_relaxed)) {
    rc = start_pool(num_threads);
    if (rc == 0)
      atomic_store_explicit(&started, true, memory_order_release);
  }
  pthread_mutex_unlock(&init_lock);
  return rc;
}

/* Number of compute units (>= 1): the background threads plus the calling
 * thread when it helps. Starts the pool if needed. */
unsigned sched_num_workers(void) {
  if (sched_init(0) < 0)
    return 1;
  return sched_g.num_workers;
}

/* The largest local_mem_size a job may ask for (a constant). */
size_t sched_max_local_mem(void) { return SCHED_LOCAL_MEM_SIZE; }

/* Pins the calling thread to the cores no background worker uses. */
void sched_bind_caller(void) {
  if (sched_init(0) < 0 || !sched_g.caller_cpuset)
    return;
  hwloc_set_cpubind(sched_g.topology, sched_g.caller_cpuset,
                    HWLOC_CPUBIND_THREAD);
}

/* Stops and joins the workers and frees the pool. Safe if the pool never
 * started. Precondition: no sched_run() is in flight. sched_init() may be
 * called again afterwards. */
void sched_shutdown(void) {
  sched_pool *p = &sched_g;
  pthread_mutex_lock(&init_lock);
  if (!atomic_load(&started)) {
    pthread_mutex_unlock(&init_lock);
    return;
  }
  atomic_store(&p->stop, true);
  atomic_fetch_add(&p->wake_seq, 1);
  sched_futex_wake(&p->wake_seq, INT_MAX);
  for (unsigned i = 0; i < p->num_threads; i++) {
    pthread_join(p->threads[i].thread, NULL);
    hwloc_bitmap_free(p->threads[i].cpuset);
  }
  sched_stop_unit0();
  for (unsigned i = 0; i < SCHED_MAX_UNITS / 64; i++)
    atomic_store(&p->unit_live[i], 0);
  free(p->threads);
  p->threads = NULL;
  p->num_threads = p->num_workers = 0;
  hwloc_bitmap_free(p->caller_cpuset);
  p->caller_cpuset = NULL;
  munmap(mem_base, mem_len);
  mem_base = NULL;
  if (p->topology)
    hwloc_topology_destroy(p->topology);
  p->topology = NULL;
  atomic_store(&started, false);
  pthread_mutex_unlock(&init_lock);
}
