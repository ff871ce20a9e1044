/* This file contains sched_run(): the queue of jobs in flight, guided
 * claiming of work-group chunks with an atomic counter, and completion
 * (the caller spins briefly, then sleeps on a futex until the job's
 * unfinished count has reached zero). */
#include "sched_internal.h"

#include <assert.h>

/* Appends t to the queue; idle workers see it through head. */
static void task_link(sched_task *t) {
  sched_pool *p = &sched_g;
  pthread_mutex_lock(&p->lock);
  t->next_task = NULL;
  t->linked = true;
  if (p->tail)
    p->tail->next_task = t;
  else
    atomic_store(&p->head, t);
  p->tail = t;
  atomic_fetch_add(&p->link_seq, 1); /* idle workers look again */
  pthread_mutex_unlock(&p->lock);
}

/* Removes t from the queue once its last chunk is claimed, so no worker
 * takes a new reference to it. */
static void task_unlink(sched_task *t) {
  sched_pool *p = &sched_g;
  pthread_mutex_lock(&p->lock);
  assert(t->linked);
  sched_task *prev = NULL, *cur = atomic_load(&p->head);
  while (cur != t) {
    prev = cur;
    cur = cur->next_task;
  }
  if (prev)
    prev->next_task = t->next_task;
  else
    atomic_store(&p->head, t->next_task);
  if (p->tail == t)
    p->tail = prev;
  t->linked = false;
  pthread_mutex_unlock(&p->lock);
}

/* Whether worker w may run groups of t: a sub-device's job only on its
 * units' threads, the root device's on any thread but unit 0's
 * sub-device thread (the caller already runs unit 0's share). */
static bool task_eligible(const sched_task *t, const sched_worker *w) {
  if (!t->job.subset)
    return !w->subset_only;
  return sched_subset_has(t->job.subset, w->index);
}

/* Takes a reference to the oldest linked task w may run (workers help
 * the oldest job first), or returns NULL if there is none. */
sched_task *sched_task_acquire(const sched_worker *w) {
  sched_pool *p = &sched_g;
  if (!atomic_load(&p->head))
    return NULL;
  pthread_mutex_lock(&p->lock);
  sched_task *t = atomic_load(&p->head);
  while (t && !task_eligible(t, w))
    t = t->next_task;
  /* While t is linked its last chunk is unclaimed or being unlinked, so
   * unfinished >= 1 here and the reference cannot revive a done task. */
  if (t)
    atomic_fetch_add_explicit(&t->unfinished, 1, memory_order_relaxed);
  pthread_mutex_unlock(&p->lock);
  return t;
}

/* Claims the next chunk of t: [*begin, *end). Guided: a share of what is
 * left, so early chunks are large and the tail balances the load. */
static bool task_claim(sched_task *t, uint64_t *begin, uint64_t *end) {
  uint64_t n = atomic_load_explicit(&t->next, memory_order_relaxed);
  for (;;) {
    if (n >= t->total)
      return false;
    uint64_t c = (t->total - n) / ((uint64_t)SCHED_CHUNK_K * t->workers);
    if (c == 0)
      c = 1;
    if (atomic_compare_exchange_weak_explicit(&t->next, &n, n + c,
                                              memory_order_relaxed,
                                              memory_order_relaxed)) {
      *begin = n;
      *end = n + c;
      return true;
    }
  }
}

static sched_trace_fn trace_hook; /* set before the first job */

void sched_set_trace_hook(sched_trace_fn fn) { trace_hook = fn; }

/* Runs groups [begin, end) of t, in linear order (x fastest). */
static void task_run_groups(const sched_task *t, uint64_t begin,
                            uint64_t end, char *local_mem) {
  uint64_t z = begin / t->nxy, r = begin % t->nxy;
  uint64_t y = r / t->nx, x = r % t->nx;
  uint64_t nx = t->nx, ny = t->job.num_groups[1];
  sched_group_fn fn = t->job.fn;
  void *arg = t->job.arg;
  for (uint64_t i = begin; i < end; i++) {
    fn(arg, x, y, z, local_mem);
    if (++x == nx) {
      x = 0;
      if (++y == ny) {
        y = 0;
        z++;
      }
    }
  }
}

/* Runs a chunk, reporting it to the trace hook as one span: a chunk,
 * not a group, so that a huge NDRange writes few events. */
static void task_run_chunk(const sched_task *t, uint64_t begin, uint64_t end,
                           char *local_mem) {
  if (!t->job.trace_id || !trace_hook) {
    task_run_groups(t, begin, end, local_mem);
    return;
  }
  uint64_t t0 = sched_now_ns();
  task_run_groups(t, begin, end, local_mem);
  trace_hook(t->job.trace_id, t->job.trace_name, begin, end - begin, t0,
             sched_now_ns());
}

/* Subtracts count from t's unfinished groups and references; the thread
 * that reaches zero marks the task done and wakes its caller if asleep.
 * After the exchange the caller may return and its stack be reused: the
 * futex wake then at worst wakes some other waiter spuriously, and every
 * futex waiter here re-checks its condition. */
static void task_finish(sched_task *t, uint64_t count) {
  if (atomic_fetch_sub_explicit(&t->unfinished, count,
                                memory_order_acq_rel) != count)
    return;
  uint32_t old = atomic_exchange_explicit(&t->state, SCHED_TASK_DONE,
                                          memory_order_acq_rel);
  if (old == SCHED_TASK_SLEEPING)
    sched_futex_wake(&t->state, 1);
}

/* Claims and runs chunks of t until none is left. */
static void task_work(sched_task *t, char *local_mem) {
  uint64_t begin, end;
  while (task_claim(t, &begin, &end)) {
    if (end == t->total)
      task_unlink(t);
    task_run_chunk(t, begin, end, local_mem);
    task_finish(t, end - begin);
  }
}

/* Runs chunks of t with a worker's local memory, then drops the worker's
 * reference; t may be gone on return. */
void sched_task_help(sched_task *t, char *local_mem) {
  task_work(t, local_mem);
  task_finish(t, 1); /* the reference from sched_task_acquire() */
}

/* Blocks until t is done: spins SCHED_SPIN_NS, then sleeps on t->state. */
static void task_wait(sched_task *t) {
  uint64_t deadline = 0;
  for (unsigned i = 0;; i++) {
    if (atomic_load_explicit(&t->state, memory_order_acquire) ==
        SCHED_TASK_DONE)
      return;
    sched_cpu_relax();
    if ((i & 63) == 63) {
      uint64_t now = sched_now_ns();
      if (!deadline)
        deadline = now + SCHED_SPIN_NS;
      else if (now > deadline)
        break;
    }
  }
  uint32_t expected = SCHED_TASK_RUNNING;
  if (!atomic_compare_exchange_strong_explicit(
          &t->state, &expected, SCHED_TASK_SLEEPING, memory_order_acq_rel,
          memory_order_acquire))
    return; /* already done */
  while (atomic_load_explicit(&t->state, memory_order_acquire) !=
         SCHED_TASK_DONE)
    sched_futex_wait(&t->state, SCHED_TASK_SLEEPING);
}

/* Takes a free caller local memory slot, or returns -1. */
static int slot_try_acquire(void) {
  uint32_t f = atomic_load_explicit(&sched_g.slot_free, memory_order_relaxed);
  while (f) {
    int i = __builtin_ctz(f);
    if (atomic_compare_exchange_weak_explicit(&sched_g.slot_free, &f,
                                              f & ~(1u << i),
                                              memory_order_acquire,
                                              memory_order_relaxed))
      return i;
  }
  return -1;
}

/* Takes a caller slot, sleeping until one is free. Deadlock-free: a
 * holder only runs its own job, which needs nothing from the waiters. */
static int slot_acquire(void) {
  for (;;) {
    int i = slot_try_acquire();
    if (i >= 0)
      return i;
    atomic_fetch_add(&sched_g.slot_waiters, 1);
    if (atomic_load(&sched_g.slot_free) == 0)
      sched_futex_wait(&sched_g.slot_free, 0);
    atomic_fetch_sub(&sched_g.slot_waiters, 1);
  }
}

static void slot_release(int i) {
  atomic_fetch_or(&sched_g.slot_free, 1u << i);
  if (atomic_load(&sched_g.slot_waiters))
    sched_futex_wake(&sched_g.slot_free, 1);
}

/* The calling thread runs chunks of its own job. With background threads
 * a caller that finds every slot busy leaves the work to them; without
 * any, it must wait for a slot. */
static void caller_help(sched_task *t, bool alone) {
  int slot = !alone ? slot_try_acquire() : slot_acquire();
  if (slot < 0)
    return;
  task_work(t, sched_g.caller_mem[slot]);
  slot_release(slot);
}

/* Runs one group in the calling thread: a one-group job needs no queue,
 * no wake-up and no completion signal. */
static void run_single(const sched_job *job) {
  int slot = slot_acquire();
  uint64_t t0 = job->trace_id && trace_hook ? sched_now_ns() : 0;
  job->fn(job->arg, 0, 0, 0, sched_g.caller_mem[slot]);
  if (t0)
    trace_hook(job->trace_id, job->trace_name, 0, 1, t0, sched_now_ns());
  slot_release(slot);
}

/* Runs every group of job and returns 0 when all have finished, -1 if
 * the pool could not be started. May be called from several threads at
 * once; the calling thread runs groups too (see pool.c). Preconditions:
 * every num_groups entry >= 1, local_mem_size <= sched_max_local_mem().
 * Allocates nothing once the pool runs. */
int sched_run(const sched_job *job) {
  assert(job->local_mem_size <= SCHED_LOCAL_MEM_SIZE);
  /* The pool starts at the device's first use and, if that failed (no
   * address space for the local memory blocks), at each run until it
   * succeeds. This used to return as if every group had run: the runtime
   * never checked sched_init, so a kernel "completed" without running. */
  if (sched_init(0) < 0)
    return -1;
  sched_task t;
  t.job = *job;
  t.nx = job->num_groups[0];
  t.nxy = t.nx * job->num_groups[1];
  t.total = t.nxy * job->num_groups[2];
  if (t.total == 0)
    return 0;
  /* A sub-device's job runs on its units' pinned threads only; the
   * caller, bound to no unit, waits. Without any such thread (none could
   * be started) the caller runs the groups: placement is lost, results
   * are not. */
  unsigned sub_threads = job->subset ? sched_subset_threads(job->subset) : 0;
  bool caller_runs = job->subset ? sub_threads == 0 : sched_g.caller_helps;
  if (t.total == 1 && caller_runs) {
    run_single(job);
    return 0;
  }
  t.workers = job->subset ? (sub_threads ? sub_threads : 1)
                          : sched_g.num_workers;
  atomic_init(&t.next, 0);
  atomic_init(&t.unfinished, t.total);
  atomic_init(&t.state, SCHED_TASK_RUNNING);
  task_link(&t);

  unsigned helpers = job->subset ? sub_threads : sched_g.num_threads;
  uint64_t want = caller_runs ? t.total - 1 : t.total;
  if (job->subset)
    sched_wake_all(); /* sleepers share one futex: wake them to choose */
  else
    sched_wake_workers(want < helpers ? (unsigned)want : helpers);
  if (caller_runs)
    caller_help(&t, helpers == 0);
  task_wait(&t);
  return 0;
}
