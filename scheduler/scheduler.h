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

typedef struct sched_job {
  uint64_t num_groups[3];   /* every entry >= 1 */
  size_t local_mem_size;    /* bytes of local memory per work-group */
  sched_group_fn fn;
  void *arg;
} sched_job;

/* Starts the pool (idempotent, thread-safe). num_threads 0 means one per
 * core, or SKEIN_NUM_THREADS if set. Returns 0 or -1 if no thread could be
 * started. */
int sched_init(unsigned num_threads);

/* Number of workers (>= 1); starts the pool if needed. */
unsigned sched_num_workers(void);

/* The largest local_mem_size a job may ask for. */
size_t sched_max_local_mem(void);

/* Runs every group of job and returns when all have finished. May be
 * called from several threads at once; the calling thread helps. */
void sched_run(const sched_job *job);

/* Stops the workers (at library unload). */
void sched_shutdown(void);

#endif
