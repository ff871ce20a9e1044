/* This file contains fiber mode: running the work-items of one work-group
 * as fibers on the calling worker (skein_hooks.run_fibers), the barrier
 * that switches between them (skein_hooks.barrier), and the sub-group
 * barrier and sub-group operations (skein_hooks.sub_group_barrier,
 * .sub_group_operation), which only involve the caller's sub-group.
 *
 * Work-items run in increasing linear local id order; each runs until it
 * parks (at one of those) or returns, then switches straight to the
 * work-item choose() names (no trip through a scheduler loop): without
 * sub-group operations that is the next one, wrapping around to the
 * first. So at every work-group barrier the last to arrive is the
 * highest linear id, which the work-group collectives in builtins/ rely
 * on.
 *
 * Stacks: each thread keeps a pool of fiber stacks, each with a guard page
 * below it (PROT_NONE), grown on demand and reused by every group the
 * thread runs. A stack overflow faults on the guard page instead of
 * silently writing over the next work-item's stack; the SIGSEGV handler
 * (running on its own alternate stack) recognises a fault in a guard page
 * of the running group, abandons the group and jumps back to
 * fiber_run_group, which records the error for the runtime
 * (sched_fiber_take_error). Any other fault goes to the handler that was
 * installed before ours. */
#define _GNU_SOURCE /* pthread_getattr_np */
#include "fiber.h"
#include "sched_internal.h"
#include "../builtins/abi.h"
#include <setjmp.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define FIBER_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define FIBER_TSAN 1
#endif

/* Work-group and sub-group collectives need two 8-byte slots per
 * work-item plus spares for a group-wide result (see
 * skein_group.collective). */
#define COLLECTIVE_SLOTS (SKEIN_COLLECTIVE_SLOTS(SCHED_MAX_GROUP_SIZE) + 64)

typedef struct fiber_run fiber_run;

/* What a work-item that is not running waits for (fiber_item.wait). */
enum {
  WAIT_NONE,        /* runnable: not started, or released */
  WAIT_BARRIER,     /* at a work-group barrier */
  WAIT_SUB_GROUP,   /* at sub_group_barrier */
  WAIT_OPERATION,   /* at a sub-group operation (op, site, member) */
};

/* One work-item: its context, its own copy of the group description,
 * whether it has returned and what it is parked at. */
typedef struct fiber_item {
  sched_fiber_ctx ctx;
  skein_group g;
  fiber_run *run;
  unsigned index;
  bool done;
  unsigned char wait;            /* WAIT_* */
  skein_sub_group_op op;         /* WAIT_OPERATION: the operation, */
  const void *site;              /* its call site */
  void *member;                  /* and this work-item's record */
#if FIBER_TSAN
  void *tsan_fiber;
#endif
} fiber_item;

/* One run_fibers call. */
struct fiber_run {
  sched_fiber_ctx main;        /* the worker's own context */
  fiber_item *items;
  unsigned n;
  unsigned remaining;          /* items not yet returned */
  unsigned sub_group_size;     /* launch->sub_group_size, at least 1 */
  void **members;              /* an operation's active set (pool's) */
  skein_wi_fn wi;
  sigjmp_buf escape;           /* where a stack overflow lands */
  char *stack_base;            /* for the sanitizers' bookkeeping */
  size_t stack_stride, stack_size;
#if FIBER_TSAN
  void *tsan_main;
#endif
#if FIBER_ASAN
  const void *main_bottom;     /* the worker's own stack */
  size_t main_size;
#endif
};

/* This thread's stacks and scratch, reused by every group it runs. */
typedef struct fiber_pool {
  char *stacks;                /* count * stride bytes, guard page first */
  size_t stride;               /* guard page + stack size */
  unsigned count;
  fiber_item *items;           /* SCHED_MAX_GROUP_SIZE entries */
  uint64_t *collective;        /* COLLECTIVE_SLOTS entries */
  void **members;              /* SCHED_MAX_GROUP_SIZE entries */
  char *altstack;              /* this thread's signal stack, if ours */
  fiber_run *volatile running; /* the group in progress, for the handler */
  bool failed;                 /* a group could not complete since the
                                  last sched_fiber_take_error */
} fiber_pool;

static SCHED_TLS fiber_pool pool;

/* The largest stack one work-item may ask for (a kernel with a bigger
 * private array fails with CL_OUT_OF_RESOURCES instead of mapping
 * gigabytes per group). */
#define MAX_STACK ((uint64_t)16 << 20)

/* Frees a thread's pool when the thread exits (pool_key's destructor: its
 * value is only a marker that the pool was set up). */
static pthread_key_t pool_key;
static pthread_once_t pool_key_once = PTHREAD_ONCE_INIT;

/* Clears ASan's poison from fiber stack memory [p, p + len): frames
 * left on a stack (a group abandoned mid-run) keep their redzones
 * poisoned, and this libasan does not clear shadow at munmap or mmap, so
 * memory mapped there later (a header Clang maps, say) read as a
 * stack-buffer-underflow. */
static void stacks_unpoison(char *p, size_t len) {
#if FIBER_ASAN
  __asan_unpoison_memory_region(p, len);
#else
  (void)p;
  (void)len;
#endif
}

/* Unmaps the pool's stacks. */
static void stacks_unmap(void) {
  stacks_unpoison(pool.stacks, (size_t)pool.count * pool.stride);
  munmap(pool.stacks, (size_t)pool.count * pool.stride);
}

static void pool_free(void *unused) {
  (void)unused;
  if (pool.stacks)
    stacks_unmap();
  free(pool.items);
  free(pool.collective);
  free(pool.members);
  if (pool.altstack) {
    stack_t off = {.ss_flags = SS_DISABLE};
    sigaltstack(&off, NULL);
    free(pool.altstack);
  }
  pool = (fiber_pool){0};
}

static void make_pool_key(void) { pthread_key_create(&pool_key, pool_free); }

static struct sigaction previous_segv, previous_bus;
static pthread_once_t handler_once = PTHREAD_ONCE_INIT;

/* True if addr is in one of this thread's guard pages. */
static bool in_guard_page(const char *addr, size_t page) {
  if (!pool.stacks || addr < pool.stacks ||
      addr >= pool.stacks + (size_t)pool.count * pool.stride)
    return false;
  return (size_t)(addr - pool.stacks) % pool.stride < page;
}

static void on_fault(int sig, siginfo_t *info, void *uctx) {
  fiber_run *r = pool.running;
  if (r && in_guard_page(info->si_addr, (size_t)sysconf(_SC_PAGESIZE))) {
    pool.running = NULL;
#if FIBER_ASAN
    __sanitizer_start_switch_fiber(NULL, r->main_bottom, r->main_size);
#endif
    siglongjmp(r->escape, 1);
  }
  /* Not ours: hand it to whoever handled it before. */
  const struct sigaction *prev = sig == SIGBUS ? &previous_bus : &previous_segv;
  if (prev->sa_flags & SA_SIGINFO) {
    prev->sa_sigaction(sig, info, uctx);
  } else if (prev->sa_handler != SIG_IGN && prev->sa_handler != SIG_DFL) {
    prev->sa_handler(sig);
  } else {
    /* Default action: restore it and return, so the fault repeats and
     * the process ends as it would have without Skein. */
    sigaction(sig, prev, NULL);
  }
}

static void install_handler(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &previous_segv);
  sigaction(SIGBUS, &sa, &previous_bus);
}

/* Gives this thread an alternate signal stack unless it has one: the
 * handler cannot run on the stack that just overflowed. */
static void ensure_altstack(void) {
  stack_t old;
  if (pool.altstack || sigaltstack(NULL, &old) != 0 ||
      !(old.ss_flags & SS_DISABLE))
    return;
  size_t size = 64 * 1024;
  pool.altstack = malloc(size);
  if (!pool.altstack)
    return;
  stack_t ss = {.ss_sp = pool.altstack, .ss_size = size, .ss_flags = 0};
  if (sigaltstack(&ss, NULL) != 0) {
    free(pool.altstack);
    pool.altstack = NULL;
  }
}

bool sched_fiber_take_error(void) {
  bool e = pool.failed;
  pool.failed = false;
  return e;
}

static size_t page_size(void) {
  static _Atomic size_t size; /* any thread may fill it in: same value */
  size_t v = atomic_load_explicit(&size, memory_order_relaxed);
  if (!v) {
    v = (size_t)sysconf(_SC_PAGESIZE);
    atomic_store_explicit(&size, v, memory_order_relaxed);
  }
  return v;
}

/* Makes sure this thread's pool has n stacks of at least stack_size
 * bytes. Returns false if memory could not be had. */
static bool pool_reserve(unsigned n, size_t stack_size) {
  size_t page = page_size();
  size_t stride = page + (stack_size + page - 1) / page * page;
  if (!pool.items) {
    pthread_once(&handler_once, install_handler);
    pthread_once(&pool_key_once, make_pool_key);
    pthread_setspecific(pool_key, &pool);
    ensure_altstack();
    pool.items = calloc(SCHED_MAX_GROUP_SIZE, sizeof *pool.items);
    pool.collective = calloc(COLLECTIVE_SLOTS, sizeof *pool.collective);
    pool.members = calloc(SCHED_MAX_GROUP_SIZE, sizeof *pool.members);
    if (!pool.items || !pool.collective || !pool.members)
      return false;
  }
  if (pool.stacks && pool.count >= n && pool.stride >= stride)
    return true;
  if (pool.stacks)
    stacks_unmap();
  if (n < pool.count)
    n = pool.count;
  if (stride < pool.stride)
    stride = pool.stride;
  pool.stacks = NULL;
  pool.count = 0;
  /* MAP_NORESERVE: only the pages a fiber touches cost memory. */
  char *mem = mmap(NULL, n * stride, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED)
    return false;
  for (unsigned i = 0; i < n; i++)
    mprotect(mem + i * stride, page, PROT_NONE);
  pool.stacks = mem;
  pool.stride = stride;
  pool.count = n;
  return true;
}

#if FIBER_ASAN
/* The stack a switch goes to, for ASan: a fiber's, or the worker's. */
static const void *asan_bottom(const fiber_run *r, const fiber_item *to) {
  return to ? r->stack_base + to->index * r->stack_stride +
                  r->stack_stride - r->stack_size
            : r->main_bottom;
}

static size_t asan_size(const fiber_run *r, const fiber_item *to) {
  return to ? r->stack_size : r->main_size;
}
#endif

/* Switches from a fiber that is resumed later, with the sanitizers'
 * bookkeeping. */
static void switch_to(fiber_run *r, sched_fiber_ctx *from,
                      const fiber_item *to_item) {
  const sched_fiber_ctx *to = to_item ? &to_item->ctx : &r->main;
#if FIBER_ASAN
  void *fake = NULL;
  __sanitizer_start_switch_fiber(&fake, asan_bottom(r, to_item),
                                 asan_size(r, to_item));
#endif
#if FIBER_TSAN
  __tsan_switch_to_fiber(to_item ? to_item->tsan_fiber : r->tsan_main, 0);
#endif
  sched_fiber_switch(from, to);
#if FIBER_ASAN
  __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
}

/* Switches away from a fiber whose work-item has returned, for good.
 * Unlike switch_to it has no local whose address is taken: ASan poisons
 * the redzones around such a local on entry and clears them on return,
 * which this call never does, so the poison stayed on the stack. */
static void switch_away(fiber_run *r, sched_fiber_ctx *from,
                        const fiber_item *to_item) {
  const sched_fiber_ctx *to = to_item ? &to_item->ctx : &r->main;
#if FIBER_ASAN
  __sanitizer_start_switch_fiber(NULL, asan_bottom(r, to_item),
                                 asan_size(r, to_item));
#endif
#if FIBER_TSAN
  __tsan_switch_to_fiber(to_item ? to_item->tsan_fiber : r->tsan_main, 0);
#endif
  sched_fiber_switch(from, to);
}

/* The scheduler. A work-item runs until it parks (at a work-group
 * barrier, a sub_group_barrier or a sub-group operation) or returns;
 * choose then names the next to run, preferring the parked work-item's
 * own sub-group:
 *   1. a runnable work-item of the sub-group, the next after it in
 *      linear id order (wrapping within the sub-group);
 *   2. if none, the sub-group is served (serve_sub_group): the members
 *      parked at one sub-group operation, or else at sub_group_barrier,
 *      are released;
 *   3. if the whole sub-group is at a work-group barrier or has
 *      returned, the next sub-group (wrapping) with a work-item to run
 *      or to serve;
 *   4. if every work-item is at the work-group barrier or has returned,
 *      the barrier is released.
 * Whatever is released resumes lowest linear id first. So with no
 * sub-group operations the order is the round robin of linear ids, and
 * the last to arrive at a work-group barrier is the highest linear id
 * (the work-group collectives rely on it). Nothing waits for a
 * work-item that has returned, and each step releases someone, so a
 * kernel that breaks the spec's rules gets undefined values, never a
 * hang. */

/* The sub-group [first, end) of work-items, none runnable: releases the
 * members parked at the sub-group operation with the lowest call site
 * (a loop's call comes before the code after the loop, so lanes that
 * loop longer meet there before the others go on), after computing it
 * for them; else those at sub_group_barrier. Returns the lowest one
 * released, NULL if all are at a work-group barrier or returned. */
static fiber_item *serve_sub_group(fiber_run *r, unsigned first,
                                   unsigned end) {
  fiber_item *pick = NULL, *lead = NULL;
  for (unsigned i = first; i < end; i++) {
    fiber_item *it = &r->items[i];
    if (it->done || it->wait != WAIT_OPERATION)
      continue;
    if (!pick || (uintptr_t)it->site < (uintptr_t)pick->site ||
        (it->site == pick->site && (uintptr_t)it->op < (uintptr_t)pick->op))
      pick = it;
  }
  if (pick) {
    unsigned n = 0;
    for (unsigned i = first; i < end; i++) {
      fiber_item *it = &r->items[i];
      if (it->done || it->wait != WAIT_OPERATION || it->site != pick->site ||
          it->op != pick->op)
        continue;
      r->members[n++] = it->member;
      it->wait = WAIT_NONE;
      if (!lead)
        lead = it;
    }
    pick->op(r->members, n);
    return lead;
  }
  for (unsigned i = first; i < end; i++) {
    fiber_item *it = &r->items[i];
    if (!it->done && it->wait == WAIT_SUB_GROUP) {
      it->wait = WAIT_NONE;
      if (!lead)
        lead = it;
    }
  }
  return lead;
}

/* A runnable work-item of [first, end), or one that serving it releases;
 * NULL if none. */
static fiber_item *sub_group_next(fiber_run *r, unsigned first,
                                  unsigned end) {
  for (unsigned i = first; i < end; i++)
    if (!r->items[i].done && r->items[i].wait == WAIT_NONE)
      return &r->items[i];
  return serve_sub_group(r, first, end);
}

/* The work-item to run after self, which has just parked (self->wait set)
 * or returned; self itself if it was released at once; NULL if every
 * work-item has returned. See the steps above. */
static fiber_item *choose(fiber_run *r, fiber_item *self) {
  unsigned size = r->sub_group_size;
  unsigned mine = self->index / size, first = mine * size;
  unsigned count = r->n - first < size ? r->n - first : size;
  for (unsigned k = 1; k < count; k++) {
    fiber_item *it = &r->items[first + (self->index - first + k) % count];
    if (!it->done && it->wait == WAIT_NONE)
      return it;
  }
  fiber_item *next = serve_sub_group(r, first, first + count);
  if (next)
    return next;
  unsigned groups = (r->n + size - 1) / size;
  for (unsigned k = 1; k < groups; k++) {
    unsigned f = (mine + k) % groups * size;
    next = sub_group_next(r, f, r->n - f < size ? r->n : f + size);
    if (next)
      return next;
  }
  for (unsigned i = 0; i < r->n; i++) {
    fiber_item *it = &r->items[i];
    if (!it->done && it->wait == WAIT_BARRIER) {
      it->wait = WAIT_NONE;
      if (!next)
        next = it;
    }
  }
  return next;
}

/* Parks the calling work-item (self->wait set) and runs others until
 * it is released. */
static void park(fiber_item *self) {
  fiber_run *r = self->run;
  fiber_item *next = choose(r, self);
  if (next != self) /* never NULL: self is parked, not returned */
    switch_to(r, &self->ctx, next);
}

static void fiber_main(void *arg) {
  fiber_item *self = arg;
#if FIBER_ASAN
  __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
  fiber_run *r = self->run;
  r->wi(&self->g);
  self->done = true;
  r->remaining--;
  /* The last to return wakes the worker; others pass the baton on. A
   * finished fiber is never resumed. */
  fiber_item *next = r->remaining ? choose(r, self) : NULL;
#if FIBER_ASAN
  /* Whatever poison the work-item's frames left on this stack (seen 144
   * bytes above a work-item's frame in unit-fibers, now and then) must
   * not outlive it: the next fiber on this stack, or memory mapped here
   * later, would read it as a stack-buffer overflow. This frame has no
   * redzones of its own to lose. */
  __asan_unpoison_memory_region((void *)asan_bottom(r, self),
                                asan_size(r, self));
#endif
  switch_away(r, &self->ctx, next);
}

/* skein_hooks.barrier. */
static void fiber_barrier(skein_group *g) {
  fiber_item *self = g->fiber;
  self->wait = WAIT_BARRIER;
  park(self);
}

/* skein_hooks.sub_group_barrier: the sub-group's members meet it in the
 * same order as the group's barriers (the spec asks it of both), so it
 * composes with fiber_barrier. */
static void fiber_sub_group_barrier(skein_group *g) {
  fiber_item *self = g->fiber;
  self->wait = WAIT_SUB_GROUP;
  park(self);
}

/* skein_hooks.sub_group_operation: the active set is the members parked
 * at the same (op, site) when the sub-group is served. */
static void fiber_sub_group_operation(skein_group *g, skein_sub_group_op op,
                                      const void *site, void *member) {
  fiber_item *self = g->fiber;
  self->op = op;
  self->site = site;
  self->member = member;
  self->wait = WAIT_OPERATION;
  park(self);
}

/* skein_hooks.yield: the caller stays runnable and lets others run
 * meanwhile: first the other sub-groups, each from its next runnable
 * work-item (or by serving it, as choose does), then the rest of its own
 * sub-group. It never releases a work-group barrier (the caller has not
 * arrived) nor serves its own sub-group (the caller can still run on).
 * Whoever runs next comes back here through choose when it parks, since
 * the caller is runnable. */
static void fiber_yield(skein_group *g) {
  fiber_item *self = g->fiber;
  fiber_run *r = self->run;
  unsigned size = r->sub_group_size;
  unsigned mine = self->index / size, first = mine * size;
  unsigned groups = (r->n + size - 1) / size;
  fiber_item *next = NULL;
  for (unsigned k = 1; k < groups && !next; k++) {
    unsigned f = (mine + k) % groups * size;
    next = sub_group_next(r, f, r->n - f < size ? r->n : f + size);
  }
  unsigned count = r->n - first < size ? r->n - first : size;
  for (unsigned k = 1; k < count && !next; k++) {
    fiber_item *it = &r->items[first + (self->index - first + k) % count];
    if (!it->done && it->wait == WAIT_NONE)
      next = it;
  }
  if (next)
    switch_to(r, &self->ctx, next);
}

/* Linear local id i as (x, y, z), x fastest. */
static void local_id_of(const skein_group *proto, unsigned i, uint64_t id[3]) {
  id[0] = i % proto->local_size[0];
  id[1] = i / proto->local_size[0] % proto->local_size[1];
  id[2] = i / (proto->local_size[0] * proto->local_size[1]);
}

static void fiber_run_group(const skein_group *proto, skein_wi_fn wi,
                            uint64_t stack_size) {
  uint64_t n64 = proto->local_size[0] * proto->local_size[1] *
                 proto->local_size[2];
  /* Defensive: the runtime never launches groups above the maximum, and
   * a pool that cannot be had leaves the group unrun rather than crash. */
  if (n64 == 0 || n64 > SCHED_MAX_GROUP_SIZE || stack_size > MAX_STACK ||
      !pool_reserve((unsigned)n64, stack_size)) {
    pool.failed = true; /* the command fails: CL_OUT_OF_RESOURCES */
    return;
  }
  unsigned sg = proto->launch->sub_group_size;
  fiber_run r = {.items = pool.items, .n = (unsigned)n64,
                 .remaining = (unsigned)n64, .wi = wi,
                 .sub_group_size = sg ? sg : 1, .members = pool.members,
                 .stack_base = pool.stacks, .stack_stride = pool.stride,
                 .stack_size = pool.stride - page_size()};
#if FIBER_TSAN
  r.tsan_main = __tsan_get_current_fiber();
#endif
#if FIBER_ASAN
  pthread_attr_t attr;
  void *bottom = NULL;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &bottom, &r.main_size);
    pthread_attr_destroy(&attr);
  }
  r.main_bottom = bottom;
#endif
  for (unsigned i = 0; i < r.n; i++) {
    fiber_item *it = &r.items[i];
    it->g = *proto;
    local_id_of(proto, i, it->g.local_id);
    it->g.fiber = it;
    it->g.collective = pool.collective;
    it->run = &r;
    it->index = i;
    it->done = false;
    it->wait = WAIT_NONE;
    char *stack = pool.stacks + i * pool.stride + page_size();
    sched_fiber_init(&it->ctx, stack, r.stack_size, fiber_main, it);
#if FIBER_TSAN
    it->tsan_fiber = __tsan_create_fiber(0);
#endif
  }
  if (sigsetjmp(r.escape, 1)) {
    /* A work-item overflowed its stack: the group is abandoned. */
    pool.failed = true;
#if FIBER_ASAN
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
    /* Its fibers' frames are left mid-call, redzones poisoned. */
    stacks_unpoison(r.stack_base, (size_t)r.n * r.stack_stride);
  } else {
    pool.running = &r;
    switch_to(&r, &r.main, &r.items[0]);
    pool.running = NULL;
  }
#if FIBER_TSAN
  for (unsigned i = 0; i < r.n; i++)
    __tsan_destroy_fiber(r.items[i].tsan_fiber);
#endif
}

/* The calling thread's own stack, [lo, hi): found once per thread. */
static SCHED_TLS const char *thread_stack_lo, *thread_stack_hi;

static void thread_stack(const char **lo, const char **hi) {
  if (!thread_stack_hi) {
    pthread_attr_t attr;
    void *bottom = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      pthread_attr_getstack(&attr, &bottom, &size);
      pthread_attr_destroy(&attr);
    }
    thread_stack_lo = bottom;
    thread_stack_hi = (const char *)bottom + size;
  }
  *lo = thread_stack_lo;
  *hi = thread_stack_hi;
}

/* skein_hooks.address_kind: the group's local memory block is the whole
 * SCHED_LOCAL_MEM_SIZE slot (nothing else lives there); private data is
 * on the stack the work-item runs on: its fiber's in fiber mode, the
 * thread's own in loop and region mode (whose per-work-item context
 * arrays are on that stack too). */
static unsigned fiber_address_kind(const skein_group *g, const void *p) {
  const char *a = p;
  if (g->local_mem && a >= g->local_mem &&
      a < g->local_mem + SCHED_LOCAL_MEM_SIZE)
    return SKEIN_ADDR_LOCAL;
  const char *lo, *hi;
  const fiber_item *self = g->fiber;
  if (self) {
    const fiber_run *r = self->run;
    hi = r->stack_base + (size_t)(self->index + 1) * r->stack_stride;
    lo = hi - r->stack_size;
  } else {
    thread_stack(&lo, &hi);
  }
  return a >= lo && a < hi ? SKEIN_ADDR_PRIVATE : SKEIN_ADDR_GLOBAL;
}

static const skein_hooks fiber_hooks = {
    .run_fibers = fiber_run_group,
    .barrier = fiber_barrier,
    .address_kind = fiber_address_kind,
    .sub_group_barrier = fiber_sub_group_barrier,
    .sub_group_operation = fiber_sub_group_operation,
    .yield = fiber_yield,
};

const skein_hooks *sched_hooks(void) { return &fiber_hooks; }
