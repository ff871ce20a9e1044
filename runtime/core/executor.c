/* This file contains the executor: a few runtime threads (one per compute
 * unit) that run commands whose dependencies are complete, oldest first,
 * so independent commands of out-of-order queues run at the same time;
 * "oldest" within a priority level: commands of higher-priority queues
 * (cl_khr_priority_hints) go first.
 * Kernels fan out to the scheduler's workers from here. Threads waiting
 * in clFinish or clWaitForEvents take ready commands from the same list
 * and run them themselves (rt_executor_take).
 *
 * Wake-ups. A futex wake of a sleeping thread costs 5-8 us on the KVM
 * guests this runs on, more than a whole empty launch, so the list is
 * built to need as few as possible:
 *  - an executor that runs out of work spins RT_SPIN_NS (one executor at
 *    a time), then naps: it sleeps with a short timeout (NAP_NS) while
 *    commands were pushed in the last IDLE_NS, and only then sleeps
 *    without one;
 *  - a push wakes nobody when an executor spins, or when the pushing
 *    thread is draining (an executor, or a thread in a wait, which takes
 *    what it can and calls rt_executor_flush before it sleeps or
 *    returns);
 *  - nor, while the application comes back for what it enqueues (lazy_ok),
 *    when an executor naps: the application's wait will run the command,
 *    else the napper finds it within NAP_NS;
 *  - otherwise a push, and rt_executor_flush (clFlush, waits, status
 *    queries), wake one sleeper, unless a wake-up is already on its way.
 * lazy_ok adapts: an executor that finds a lazily pushed command the
 * application did not come back for turns it off (enqueue, host work,
 * then wait: the command should start at once), a waiting thread that
 * takes a command the application pushed turns it on. So enqueue-then-
 * wait runs the command on the waiting thread and wakes nobody, and
 * enqueue-then-work starts the command with one wake-up, as before.
 *
 * Lock rules: executor_lock guards the list and the counters below it,
 * except `spinning` and `count`/`push_seq`, which are atomics also read
 * without it. executor_lock is a leaf: no other lock is taken while it
 * is held (it may be taken with a queue or event lock held). */
#define _GNU_SOURCE /* PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP */
#include "event.h"
#include "kernel.h"   /* RT_MAX_PRIVATE_MEM */
#include "platform.h"
#include "queue.h"
#include "../../scheduler/scheduler.h"
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

/* A napping executor wakes this often to look for unflushed commands. */
#define NAP_NS 500000
/* Executors nap (rather than sleep) for this long after the last push. */
#define IDLE_NS 5000000
/* Executor threads at most; more would only contend for the cores. */
#define MAX_EXECUTORS 4
/* How far rt_executor_take looks down the list for a command of its
 * queue; commands further back are left to the executors. */
#define TAKE_SCAN 64

static pthread_once_t executor_once = PTHREAD_ONCE_INIT;
/* Adaptive: held for a few instructions, by threads that run at the same
 * time, so a short spin beats sleeping in the kernel. */
static pthread_mutex_t executor_lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
static pthread_cond_t executor_wake; /* CLOCK_MONOTONIC, for naps */
/* The ready list, one FIFO per cl_khr_priority_hints level (RT_LEVEL_*
 * of the command's queue): executors take the oldest command of the
 * highest level that has one, so a high-priority queue's work starts
 * before a lower one's backlog, whenever both are ready. */
static cl_event ready_head[RT_NUM_LEVELS], ready_tail[RT_NUM_LEVELS];
static _Atomic unsigned count;      /* commands in the list */
static _Atomic unsigned push_seq;   /* pushes so far (wraps) */
static _Atomic unsigned spinning;   /* executors polling count: 0 or 1 */
static unsigned napping;            /* executors in a timed wait */
static unsigned sleeping;           /* executors in an untimed wait */
static unsigned waking;             /* signals not yet absorbed */
static bool lazy_ok = true;         /* pushes may rely on a napper */
static unsigned nap_seq;            /* push_seq when the last nap began */
static unsigned idle_naps;          /* naps in a row that saw no push */
static unsigned num_executors;      /* started; 0: run pushes inline */

static RT_TLS unsigned draining; /* drain_begin nesting depth */

/* Wakes one waiting executor if no executor will look at the list soon
 * by itself. lazy: a napper counts as looking. executor_lock held. */
static void wake_one_locked(bool lazy) {
  if (atomic_load(&spinning) || (lazy && napping))
    return;
  if (napping + sleeping > waking) {
    waking++;
    pthread_cond_signal(&executor_wake);
  }
}

/* The priority level of command ev's queue (medium without a queue). */
static unsigned level_of(cl_event ev) {
  return ev->queue ? ev->queue->priority : RT_LEVEL_MED;
}

/* True if any command is ready; executor_lock held. */
static bool any_ready_locked(void) {
  for (unsigned l = 0; l < RT_NUM_LEVELS; l++)
    if (ready_head[l])
      return true;
  return false;
}

/* Unlinks and returns the oldest command of the highest priority level
 * that has one; executor_lock held. */
static cl_event pop_locked(void) {
  unsigned l = 0;
  while (l < RT_NUM_LEVELS - 1 && !ready_head[l])
    l++;
  cl_event ev = ready_head[l];
  if (ev) {
    ready_head[l] = ev->next_ready;
    if (!ready_head[l])
      ready_tail[l] = NULL;
    ev->next_ready = NULL;
    atomic_fetch_sub(&count, 1);
    /* The application did not come back for it: wake at once from now. */
    if (ev->lazy_push)
      lazy_ok = false;
  }
  return ev;
}

/* Polls the list for RT_SPIN_NS if no other executor does; true if a
 * command showed up. */
static bool spin_for_work(void) {
  unsigned expected = 0;
  if (!atomic_compare_exchange_strong(&spinning, &expected, 1))
    return false;
  cl_ulong deadline = rt_now_ns() + RT_SPIN_NS;
  bool found = false;
  while (!found) {
    for (int i = 0; i < 32 && !found; i++) {
      found = atomic_load(&count) != 0;
      rt_cpu_relax();
    }
    if (!found && rt_now_ns() > deadline)
      break;
  }
  atomic_store(&spinning, 0);
  return found;
}

/* Waits for a wake-up: a nap with a timeout while the application is
 * active (a push within the last IDLE_NS / NAP_NS naps), else a sleep.
 * executor_lock held. */
static void wait_locked(void) {
  unsigned seq = atomic_load(&push_seq);
  idle_naps = seq != nap_seq ? 0 : idle_naps + 1;
  nap_seq = seq;
  if (!napping && idle_naps < IDLE_NS / NAP_NS) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += NAP_NS;
    if (ts.tv_nsec >= 1000000000) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000;
    }
    napping++;
    pthread_cond_timedwait(&executor_wake, &executor_lock, &ts);
    napping--;
  } else {
    sleeping++;
    pthread_cond_wait(&executor_wake, &executor_lock);
    sleeping--;
  }
  if (waking)
    waking--;
}

static void *executor_main(void *unused) {
  (void)unused;
  draining = 1; /* an executor always comes back for more */
  bool worked = false;
  pthread_mutex_lock(&executor_lock);
  for (;;) {
    cl_event ev = pop_locked();
    if (ev) {
      /* More ready work than this thread: let another executor help. */
      if (any_ready_locked())
        wake_one_locked(false);
      /* cl_khr_throttle_hints: after a low-throttle queue's command the
       * executor does not busy-poll for more (it naps or sleeps at once),
       * trading the next command's start latency for idle cycles. */
      bool low_throttle = ev->queue && ev->queue->throttle == RT_LEVEL_LOW;
      pthread_mutex_unlock(&executor_lock);
      rt_command_execute(ev);
      worked = !low_throttle;
      pthread_mutex_lock(&executor_lock);
      continue;
    }
    /* Spin only when just out of work, not after every nap. */
    bool found = false;
    if (worked) {
      pthread_mutex_unlock(&executor_lock);
      found = spin_for_work();
      pthread_mutex_lock(&executor_lock);
      worked = false;
    }
    if (!found && !any_ready_locked())
      wait_locked();
  }
  return NULL;
}

/* Starts the executor threads: one per compute unit, at most
 * MAX_EXECUTORS. */
static void executor_start(void) {
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&executor_wake, &ca);
  pthread_condattr_destroy(&ca);
  unsigned want = sched_num_workers();
  if (want > MAX_EXECUTORS)
    want = MAX_EXECUTORS;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  unsigned started = 0;
  for (unsigned i = 0; i < want; i++) {
    pthread_t thread;
    if (pthread_create(&thread, &attr, executor_main, NULL) == 0)
      started++;
  }
  pthread_attr_destroy(&attr);
  pthread_mutex_lock(&executor_lock);
  num_executors = started;
  pthread_mutex_unlock(&executor_lock);
}

/* With no executor thread (none could be created: RLIMIT_NPROC, no
 * memory for stacks), commands run on the thread that pushes them. One
 * that becomes ready while this thread already runs such a command (its
 * completion releases its dependents) waits in a per-thread list until
 * that command returns, so a chain of N dependent commands runs in a
 * loop: run in place, each completion nested the next command's run, and
 * an in-order chain of 200,000 commands overflowed the stack (SIGSEGV). */
static RT_TLS cl_event inline_head, inline_tail;
static RT_TLS bool inline_running;

static void run_inline(cl_event ev) {
  ev->next_ready = NULL;
  if (inline_tail)
    inline_tail->next_ready = ev;
  else
    inline_head = ev;
  inline_tail = ev;
  if (inline_running)
    return; /* the loop below, further up this thread's stack, runs it */
  inline_running = true;
  while ((ev = inline_head)) {
    inline_head = ev->next_ready;
    if (!inline_head)
      inline_tail = NULL;
    ev->next_ready = NULL;
    rt_command_execute(ev);
  }
  inline_running = false;
}

void rt_executor_push(cl_event ev) {
  pthread_once(&executor_once, executor_start);
  pthread_mutex_lock(&executor_lock);
  if (!num_executors) {
    pthread_mutex_unlock(&executor_lock);
    run_inline(ev);
    return;
  }
  ev->next_ready = NULL;
  ev->app_push = !draining;
  ev->lazy_push = !draining && napping && lazy_ok &&
                  !atomic_load(&spinning);
  unsigned l = level_of(ev);
  if (ready_tail[l])
    ready_tail[l]->next_ready = ev;
  else
    ready_head[l] = ev;
  ready_tail[l] = ev;
  atomic_fetch_add(&count, 1);
  atomic_fetch_add(&push_seq, 1);
  if (!draining)
    wake_one_locked(lazy_ok);
  pthread_mutex_unlock(&executor_lock);
}

/* True if a waiter for ev (or for all of q when ev is NULL) may run e:
 * ev itself, one of deps (what ev waits for), or a command of ev's
 * in-order queue. */
static bool may_take(cl_event e, cl_command_queue q, cl_event ev,
                     const cl_event *deps, unsigned num_deps) {
  if (e == ev)
    return true;
  for (unsigned i = 0; i < num_deps; i++)
    if (e == deps[i])
      return true;
  if (e->queue != q)
    return false;
  /* In an in-order queue the only ready command is the oldest incomplete
   * one, which ev must wait for anyway. */
  return !ev || rt_queue_in_order(q);
}

/* Kernels run on the stack of whichever thread runs them: private
 * memory up to RT_MAX_PRIVATE_MEM (runtime/core/kernel.h), plus region mode's
 * work-item contexts (up to 256 KiB) and the frames around them. Skein's
 * own threads have the default 8 MiB; an application thread with less
 * room left than this leaves its commands to them. */
#define INLINE_STACK_MIN (2 * RT_MAX_PRIVATE_MEM)

/* Each thread's lowest stack address, looked up once per thread (finding
 * it reads /proc for the main thread). Kept in a pthread key, not in
 * __thread storage: LeakSanitizer's exit-time scan crashed reading this
 * library's dynamic TLS of application threads. */
static pthread_key_t stack_low_key;
static bool stack_low_key_ok;   /* false: no key, so never run inline */
static pthread_once_t stack_low_once = PTHREAD_ONCE_INIT;

static void make_stack_low_key(void) {
  stack_low_key_ok = pthread_key_create(&stack_low_key, free) == 0;
}

/* True if the calling thread has INLINE_STACK_MIN of stack left below
 * this frame; false if that cannot be known. */
static bool stack_has_room(void) {
  pthread_once(&stack_low_once, make_stack_low_key);
  if (!stack_low_key_ok)
    return false;
  const char **low = pthread_getspecific(stack_low_key);
  if (!low) {
    if (!(low = malloc(sizeof(*low))))
      return false;
    pthread_attr_t attr;
    void *base = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      pthread_attr_getstack(&attr, &base, &size);
      pthread_attr_destroy(&attr);
    }
    *low = base;
    pthread_setspecific(stack_low_key, low);
  }
  char here;
  return *low && (size_t)(&here - *low) >= INLINE_STACK_MIN;
}

cl_event rt_executor_take(cl_command_queue q, cl_event ev,
                          const cl_event *deps, unsigned num_deps) {
  if (!atomic_load(&count) || (!q && !num_deps) || !stack_has_room())
    return NULL;
  pthread_mutex_lock(&executor_lock);
  /* The first command it may take, highest priority level first. */
  cl_event prev = NULL, e = NULL;
  unsigned l = 0, scanned = 0;
  for (; l < RT_NUM_LEVELS && !e; l++) {
    prev = NULL;
    for (e = ready_head[l]; e && scanned < TAKE_SCAN; scanned++) {
      if (may_take(e, q, ev, deps, num_deps))
        break;
      prev = e;
      e = e->next_ready;
    }
    if (e && !may_take(e, q, ev, deps, num_deps))
      e = NULL;
  }
  if (e) {
    l--;   /* the level e was found in */
    if (prev)
      prev->next_ready = e->next_ready;
    else
      ready_head[l] = e->next_ready;
    if (ready_tail[l] == e)
      ready_tail[l] = prev;
    e->next_ready = NULL;
    atomic_fetch_sub(&count, 1);
    /* The application waits for what it enqueues: pushes may be lazy. */
    if (e->app_push)
      lazy_ok = true;
    /* The caller is about to be busy: others must run the rest. */
    if (any_ready_locked())
      wake_one_locked(false);
  }
  pthread_mutex_unlock(&executor_lock);
  return e;
}

unsigned rt_executor_push_seq(void) { return atomic_load(&push_seq); }

void rt_executor_flush(void) {
  if (!atomic_load(&count))
    return;
  pthread_mutex_lock(&executor_lock);
  if (any_ready_locked())
    wake_one_locked(false);
  pthread_mutex_unlock(&executor_lock);
}

void rt_executor_drain_begin(void) { draining++; }

void rt_executor_drain_end(void) {
  if (--draining == 0)
    rt_executor_flush();
}
