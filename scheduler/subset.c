/* This file contains what sub-devices need from the scheduler: sets of
 * compute units that a job may be confined to, the thread that gives
 * compute unit 0 a pinned worker of its own, and the affinity domain
 * (NUMA node, L4..L1 cache) of each unit from the hwloc tree.
 *
 * A sub-device is a mask over the one pool, not a pool of its own: the
 * pool already has one pinned thread per core, so a job restricted to a
 * set of units runs on exactly those cores without a second thread per
 * core competing for them, and sub-devices cost no threads or memory.
 * The one gap is unit 0, whose groups the calling thread runs for the
 * root device; the caller belongs to the runtime or the application and
 * is never pinned, so unit 0 gets a thread bound to core 0 that runs
 * sub-device jobs only, started when a job first needs it. */
#define _GNU_SOURCE
#include "sched_internal.h"

#include <hwloc.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Makes the set of the n compute units listed. The caller owns it. */
sched_subset *sched_subset_create(const unsigned *units, unsigned n) {
  sched_subset *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  for (unsigned i = 0; i < n; i++) {
    unsigned u = units[i];
    if (u >= SCHED_MAX_UNITS || sched_subset_has(s, u))
      continue;
    s->bits[u / 64] |= (uint64_t)1 << (u % 64);
    s->count++;
  }
  return s;
}

void sched_subset_free(sched_subset *s) { free(s); }

/* Marks compute unit u as having (or no longer having) a running
 * thread. */
void sched_unit_set_live(unsigned u, bool live) {
  if (u >= SCHED_MAX_UNITS)
    return;
  uint64_t bit = (uint64_t)1 << (u % 64);
  if (live)
    atomic_fetch_or(&sched_g.unit_live[u / 64], bit);
  else
    atomic_fetch_and(&sched_g.unit_live[u / 64], ~bit);
}

/* Starts unit 0's sub-device thread once, if the caller runs unit 0's
 * share of root-device jobs (with SKEIN_SCHED_CALLER=sleep unit 0 has an
 * ordinary thread already). On failure the unit stays without a thread
 * and sched_run lets the caller run the job. */
void sched_start_unit0(void) {
  sched_pool *p = &sched_g;
  pthread_mutex_lock(&sched_init_lock);
  if (p->unit0_started || !p->caller_helps || !p->threads)
    goto out;
  sched_worker *w = &p->unit0;
  void *mem = mmap(NULL, SCHED_LOCAL_MEM_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    goto out;
  w->index = 0;
  w->subset_only = true;
  w->local_mem = mem;
  w->cpuset = sched_unit_cpuset(0, p->ncores, p->core_type);
  if (pthread_create(&w->thread, NULL, sched_worker_main, w) != 0) {
    hwloc_bitmap_free(w->cpuset);
    munmap(mem, SCHED_LOCAL_MEM_SIZE);
    goto out;
  }
  p->unit0_started = true;
  sched_unit_set_live(0, true);
out:
  pthread_mutex_unlock(&sched_init_lock);
}

/* Joins unit 0's sub-device thread (sched_shutdown, init_lock held,
 * stop set and sleepers woken). */
void sched_stop_unit0(void) {
  sched_pool *p = &sched_g;
  if (!p->unit0_started)
    return;
  pthread_join(p->unit0.thread, NULL);
  hwloc_bitmap_free(p->unit0.cpuset);
  munmap(p->unit0.local_mem, SCHED_LOCAL_MEM_SIZE);
  p->unit0_started = false;
}

/* How many running threads belong to units of s; starts unit 0's thread
 * first if s needs it. */
unsigned sched_subset_threads(const sched_subset *s) {
  if (sched_subset_has(s, 0) &&
      !(atomic_load_explicit(&sched_g.unit_live[0], memory_order_acquire) &
        1))
    sched_start_unit0();
  unsigned n = 0;
  for (unsigned i = 0; i < SCHED_MAX_UNITS / 64; i++)
    n += (unsigned)__builtin_popcountll(
        s->bits[i] & atomic_load_explicit(&sched_g.unit_live[i],
                                          memory_order_acquire));
  return n;
}

/* Wakes every sleeping worker; those that may not run the new job find
 * nothing and sleep again. */
void sched_wake_all(void) {
  if (atomic_load(&sched_g.n_sleeping) == 0)
    return;
  atomic_fetch_add(&sched_g.wake_seq, 1);
  sched_futex_wake(&sched_g.wake_seq, INT_MAX);
}

/* The hwloc object type of an affinity level. */
static hwloc_obj_type_t level_type(sched_level level) {
  switch (level) {
  case SCHED_LEVEL_NUMA:
    return HWLOC_OBJ_NUMANODE;
  case SCHED_LEVEL_L4:
    return HWLOC_OBJ_L4CACHE;
  case SCHED_LEVEL_L3:
    return HWLOC_OBJ_L3CACHE;
  case SCHED_LEVEL_L2:
    return HWLOC_OBJ_L2CACHE;
  case SCHED_LEVEL_L1:
  default:
    return HWLOC_OBJ_L1CACHE; /* data (or unified) L1 */
  }
}

/* Which object of the level holds unit u's core (its index among the
 * level's objects in hwloc's logical order), or -1. NUMA nodes are
 * memory children in hwloc 2, not ancestors of cores, so the test is
 * cpuset inclusion for every level alike. */
int sched_unit_domain(unsigned unit, sched_level level) {
  if (sched_init(0) < 0 || !sched_g.topology)
    return -1;
  hwloc_topology_t topo = sched_g.topology;
  hwloc_obj_t core =
      hwloc_get_obj_by_type(topo, sched_g.core_type, unit % sched_g.ncores);
  if (!core || !core->cpuset)
    return -1;
  hwloc_obj_type_t type = level_type(level);
  int n = hwloc_get_nbobjs_by_type(topo, type);
  for (int i = 0; i < n; i++) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type, (unsigned)i);
    if (obj && obj->cpuset && hwloc_bitmap_isincluded(core->cpuset,
                                                       obj->cpuset))
      return i;
  }
  return -1;
}
