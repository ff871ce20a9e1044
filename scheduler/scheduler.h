/* This file is the public interface of scheduler/: a pool of worker
 * threads, one per core and pinned with hwloc, that runs the work-groups
 * of an NDRange. It knows nothing of OpenCL objects. */
#ifndef SKEIN_SCHEDULER_H
#define SKEIN_SCHEDULER_H

#include <stddef.h>
#include <stdint.h>

/* Runs one work-group. local_mem is a block of the job's local_mem_size
 * bytes that belongs to the calling worker for the duration of the call. */
typedef void (*sched_group_fn)(void *arg, uint64_t gx, uint64_t gy,
                               uint64_t gz, char *local_mem);

/* A set of compute units (a sub-device's): subset.c. */
typedef struct sched_subset sched_subset;

typedef struct sched_job {
  uint64_t num_groups[3];   /* every entry >= 1 */
  /* NULL: any compute unit (the root device). Else only the background
   * threads of these units run groups, and the calling thread does not. */
  const sched_subset *subset;
  size_t local_mem_size;    /* bytes of local memory per work-group */
  sched_group_fn fn;
  void *arg;
  /* SKEIN_TRACE (runtime/core/trace.c): a nonzero id makes the workers
   * report each chunk of groups they ran to the trace hook, under name. */
  uint64_t trace_id;
  const char *trace_name;
} sched_job;

/* Called by the thread that ran groups [first, first + count) of a job
 * with a nonzero trace_id, between t0 and t1 (CLOCK_MONOTONIC ns). */
typedef void (*sched_trace_fn)(uint64_t trace_id, const char *name,
                               uint64_t first, uint64_t count, uint64_t t0,
                               uint64_t t1);
/* Installs the trace hook (NULL: none). Set once, before any sched_run. */
void sched_set_trace_hook(sched_trace_fn fn);

/* Starts the pool (idempotent, thread-safe). num_threads 0 means one per
 * core, or SKEIN_NUM_THREADS if set. Returns 0, or -1 if the pool could not
 * be set up (no memory even for the callers' local memory blocks); a
 * later call tries again. The thread calling sched_run() runs groups too,
 * so threads that fail to start, or whose local memory cannot be had,
 * only lower sched_num_workers(). */
int sched_init(unsigned num_threads);

/* Number of compute units (>= 1): background workers plus the calling
 * thread; starts the pool if needed. */
unsigned sched_num_workers(void);

/* The largest local_mem_size a job may ask for: 128 KiB, twice the
 * CL_DEVICE_LOCAL_MEM_SIZE the device reports, for alignment padding and
 * the compiler's own per-group scratch. */
size_t sched_max_local_mem(void);

/* Runs every group of job and returns 0 when all have finished, or -1
 * at once, having run none, if the pool could not be started (sched_init
 * failed: the caller must fail the work, not report it done). May be
 * called from several threads at once; the calling thread runs groups
 * too (unless SKEIN_SCHED_CALLER=sleep, see pool.c). Never allocates once
 * the pool runs. Preconditions: local_mem_size <= sched_max_local_mem();
 * not called from inside a group function. *job may be reused on return. */
int sched_run(const sched_job *job);

/* Pins the calling thread to the cores the pool leaves to its callers
 * (those no background worker is bound to; core 0 on a machine with one
 * worker per core). For a long-lived thread that calls sched_run() often,
 * such as the runtime's executor, so that it never shares a core with a
 * worker. Optional (on a shared 2-core machine it measured no faster than
 * leaving placement to the OS); starts the pool if needed; a no-op if
 * hwloc failed or no core is free. */
void sched_bind_caller(void);

/* The largest work-group fiber mode runs (CL_DEVICE_MAX_WORK_GROUP_SIZE
 * must not exceed it). */
#define SCHED_MAX_GROUP_SIZE 1024

struct skein_hooks;
/* The services generated kernels call through skein_launch.hooks: fiber
 * mode's run_fibers and barrier (scheduler/fiber_group.c). */
const struct skein_hooks *sched_hooks(void);

/* True if a fiber-mode group run by the calling thread overflowed a
 * work-item's stack since the last call (the group was abandoned);
 * clears the flag. */
_Bool sched_fiber_take_error(void);

/* Sub-devices (scheduler/subset.c). Compute unit u is the worker bound
 * to core u % C of the hwloc topology's C cores, in hwloc's logical
 * order (so that consecutive units share caches); unit 0 is the calling
 * thread's, with a pinned thread of its own for sub-device jobs. */

/* Makes the set of the n compute units listed (each below
 * sched_num_workers()); NULL if out of memory. The caller owns it
 * (sched_subset_free). */
sched_subset *sched_subset_create(const unsigned *units, unsigned n);
void sched_subset_free(sched_subset *s);

/* The affinity levels of clCreateSubDevices. */
typedef enum sched_level {
  SCHED_LEVEL_NUMA,
  SCHED_LEVEL_L4,
  SCHED_LEVEL_L3,
  SCHED_LEVEL_L2,
  SCHED_LEVEL_L1,
} sched_level;

/* Which object of the level holds compute unit u's core: an index from
 * 0, or -1 if the topology has no such object above that core (no L4
 * cache, or no topology at all). */
int sched_unit_domain(unsigned unit, sched_level level);

/* Stops and joins the workers (at library unload). Safe if the pool never
 * started; sched_init() may start it again. Precondition: no sched_run()
 * is in flight. */
void sched_shutdown(void);

#endif
