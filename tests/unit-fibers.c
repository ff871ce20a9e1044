/* Unit test of fiber mode in scheduler/: run_fibers runs every
 * work-item, barriers order them (the last to arrive is the highest
 * linear id), per-item group copies are right, finished work-items are
 * never resumed, and stacks are distinct. Prints the fiber switch cost. */
#include "../builtins/abi.h"
#include "../scheduler/scheduler.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

static int failures;
#define CHECK(c)                                                           \
  do {                                                                     \
    if (!(c)) {                                                            \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); \
      failures++;                                                          \
    }                                                                      \
  } while (0)

static const skein_hooks *hooks;
static int trace[1 << 16], ntrace;
static uint64_t ids[1024][3];
static void *stack_addr[1024];

static unsigned linear(const skein_group *g) {
  return (unsigned)(g->local_id[0] + g->local_size[0] *
                    (g->local_id[1] + g->local_size[1] * g->local_id[2]));
}

/* Three barriers; records (phase, id) in order; the last to arrive at
 * each barrier sums every deposited slot, like a collective. */
static void wi_phases(skein_group *g) {
  unsigned lid = linear(g);
  unsigned n = (unsigned)(g->local_size[0] * g->local_size[1] *
                          g->local_size[2]);
  int local_var = (int)lid;
  stack_addr[lid] = &local_var;
  memcpy(ids[lid], g->local_id, sizeof ids[lid]);
  for (int phase = 0; phase < 3; phase++) {
    trace[ntrace++] = phase * 10000 + (int)lid;
    g->collective[lid] = lid + 1;
    if (lid == n - 1) {
      uint64_t sum = 0;
      for (unsigned i = 0; i < n; i++)
        sum += g->collective[i];
      g->collective[n] = sum;
    }
    hooks->barrier(g);
    CHECK(g->collective[n] == (uint64_t)n * (n + 1) / 2);
    hooks->barrier(g); /* nobody overwrites the result before all read */
  }
  CHECK(local_var == (int)lid); /* our stack survived the others */
}

/* Under ASan, a finished group leaves no poisoned bytes on its fibers'
 * stacks (around where each work-item's frame was): stale poison outlives
 * the stacks, and memory mapped there later (a header Clang maps, say)
 * was reported as a stack-buffer-underflow. */
static void check_unpoisoned(unsigned n) {
#if defined(__SANITIZE_ADDRESS__)
  for (unsigned i = 0; i < n; i++) {
    /* The work-item's frame and the 4 KiB below it (its callees): a few
     * hundred bytes above it the fiber's stack can end, and what lies
     * past its top is not the fiber's (a check to frame + 4 KiB failed
     * now and then at frame + 144..160 bytes). */
    char *near = (char *)stack_addr[i] - 4096;
    char *bad = __asan_region_is_poisoned(near, 4096 + 64);
    CHECK(bad == NULL);
    if (bad) {
      fprintf(stderr, "fiber %u: poisoned byte %td bytes from its frame\n",
              i, bad - (char *)stack_addr[i]);
      return;
    }
  }
#else
  (void)n;
#endif
}

static void run(uint64_t lx, uint64_t ly, uint64_t lz) {
  skein_launch launch = {.hooks = hooks};
  skein_group proto = {.launch = &launch, .local_size = {lx, ly, lz}};
  unsigned n = (unsigned)(lx * ly * lz);
  ntrace = 0;
  hooks->run_fibers(&proto, wi_phases, 64 * 1024);
  CHECK(ntrace == 3 * (int)n);
  for (int i = 0; i < ntrace && i < 3 * (int)n; i++)
    CHECK(trace[i] == (i / (int)n) * 10000 + i % (int)n);
  for (unsigned i = 0; i < n; i++) {
    CHECK(ids[i][0] == i % lx);
    CHECK(ids[i][1] == i / lx % ly);
    CHECK(ids[i][2] == i / (lx * ly));
    if (i)
      CHECK(stack_addr[i] != stack_addr[i - 1]);
  }
  check_unpoisoned(n);
}

/* Work-items that return early (divergent barriers are undefined in
 * OpenCL C, but must not crash): even ids return at once. */
static int early_done;
static void wi_diverge(skein_group *g) {
  if (linear(g) % 2 == 0)
    return;
  hooks->barrier(g);
  hooks->barrier(g);
  early_done++;
}

/* Recursion that never ends: each frame touches 1 KiB of stack, so the
 * overflow reaches the guard page below the work-item's stack. */
static volatile int depth_limit = 1 << 30; /* never reached */
static int deep(volatile char *prev, int depth) {
  volatile char frame[1024];
  frame[0] = (char)depth;
  frame[1023] = prev ? prev[0] : 0;
  if (depth > depth_limit)
    return 0;
  return deep(frame, depth + 1) + frame[5];
}

static int overflow_survivors;
static void wi_overflow(skein_group *g) {
  int local_var = 0;
  stack_addr[linear(g)] = &local_var;
  if (linear(g) == 2)
    deep(NULL, 0);
  hooks->barrier(g);
  overflow_survivors++;
}

static long switches;
static void wi_pingpong(skein_group *g) {
  for (int i = 0; i < 100000; i++)
    hooks->barrier(g);
  (void)switches;
}

int main(void) {
  hooks = sched_hooks();
  run(1, 1, 1);
  run(2, 1, 1);
  run(7, 1, 1);
  run(8, 4, 2);
  run(1024, 1, 1);
  run(64, 1, 1); /* reuse of a larger pool */
  skein_launch launch = {.hooks = hooks};
  skein_group proto = {.launch = &launch, .local_size = {9, 1, 1}};
  hooks->run_fibers(&proto, wi_diverge, 16 * 1024);
  CHECK(early_done == 4);

  /* A stack overflow abandons the group, reports it, and the next group
   * runs normally. (Not under TSan, which cannot follow a siglongjmp out
   * of a signal handler on another stack.) */
#if !defined(__SANITIZE_THREAD__)
  CHECK(!sched_fiber_take_error());
  proto.local_size[0] = 4;
  hooks->run_fibers(&proto, wi_overflow, 16 * 1024);
  CHECK(sched_fiber_take_error());
  CHECK(!sched_fiber_take_error());
  CHECK(overflow_survivors == 0); /* no one passed the barrier */
  check_unpoisoned(4);              /* abandoned frames leave no poison */
  run(8, 4, 2);
  CHECK(!sched_fiber_take_error());
#endif
  /* A stack beyond the limit is refused, not mapped. */
  hooks->run_fibers(&proto, wi_overflow, (uint64_t)1 << 40);
  CHECK(sched_fiber_take_error());

  /* Switch cost: 2 work-items, 100k barriers each: 200k switches. */
  proto.local_size[0] = 2;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  hooks->run_fibers(&proto, wi_pingpong, 16 * 1024);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
  printf("fiber barrier switch: %.1f ns\n", ns / 200000);
  if (failures) {
    printf("unit-fibers: %d check(s) failed\n", failures);
    return 1;
  }
  printf("unit-fibers: all checks passed\n");
  return 0;
}
