/* This file contains the unit test of scheduler/: every group of 1D/2D/3D
 * jobs runs exactly once, local memory blocks are private and whole,
 * workers are pinned, concurrent sched_run callers all complete, and
 * SKEIN_NUM_THREADS=1 works. It also measures launch latency and group
 * throughput, for both caller modes (see scheduler/pool.c). */
#define _GNU_SOURCE
#include "../scheduler/scheduler.h"

#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures;

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      printf("%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);      \
      failures++;                                                          \
    }                                                                      \
  } while (0)

#define CHECK_EQ(a, b)                                                     \
  do {                                                                     \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);        \
    if (check_a_ != check_b_) {                                            \
      printf("%s:%d: CHECK_EQ failed: %s == %s (%lld vs %lld)\n",          \
             __FILE__, __LINE__, #a, #b, check_a_, check_b_);              \
      failures++;                                                          \
    }                                                                      \
  } while (0)

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- every group exactly once ---------------------------------------- */

typedef struct count_arg {
  uint64_t n[3];
  _Atomic uint32_t *hits;     /* one per group, linear x-fastest */
  _Atomic uint32_t bad;       /* ids out of range */
} count_arg;

static void count_group(void *p, uint64_t x, uint64_t y, uint64_t z,
                        char *local_mem) {
  count_arg *a = p;
  (void)local_mem;
  if (x >= a->n[0] || y >= a->n[1] || z >= a->n[2]) {
    atomic_fetch_add(&a->bad, 1);
    return;
  }
  atomic_fetch_add_explicit(&a->hits[(z * a->n[1] + y) * a->n[0] + x], 1,
                            memory_order_relaxed);
}

/* Runs a counting job of nx*ny*nz groups; returns the number of groups
 * that did not run exactly once (0 on success). */
static uint64_t run_counted(uint64_t nx, uint64_t ny, uint64_t nz) {
  uint64_t total = nx * ny * nz;
  count_arg a = {.n = {nx, ny, nz}};
  a.hits = calloc(total, sizeof *a.hits);
  sched_job job = {.num_groups = {nx, ny, nz}, .fn = count_group, .arg = &a};
  sched_run(&job);
  uint64_t wrong = atomic_load(&a.bad);
  for (uint64_t i = 0; i < total; i++)
    wrong += atomic_load_explicit(&a.hits[i], memory_order_relaxed) != 1;
  free(a.hits);
  return wrong;
}

static void test_coverage(void) {
  static const uint64_t shapes[][3] = {
      {1, 1, 1}, {2, 1, 1}, {3, 1, 1}, {1000, 1, 1}, {37, 23, 1},
      {1, 19, 1}, {7, 5, 3}, {1, 1, 17}, {16, 16, 16}, {1000000, 1, 1},
  };
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    uint64_t wrong = run_counted(shapes[i][0], shapes[i][1], shapes[i][2]);
    if (wrong)
      printf("shape %llux%llux%llu: %llu groups wrong\n",
             (unsigned long long)shapes[i][0],
             (unsigned long long)shapes[i][1],
             (unsigned long long)shapes[i][2], (unsigned long long)wrong);
    CHECK_EQ(wrong, 0);
  }
}

/* ---- local memory ---------------------------------------------------- */

#define MAX_BLOCKS 64

typedef struct local_arg {
  size_t size;
  char *_Atomic blocks[MAX_BLOCKS]; /* distinct blocks seen */
  _Atomic int in_use[MAX_BLOCKS];   /* groups running on each block now */
  _Atomic int running, max_running;
  _Atomic uint32_t shared, corrupt, misaligned, overflow;
} local_arg;

static int block_index(local_arg *a, char *mem) {
  for (int i = 0; i < MAX_BLOCKS; i++) {
    char *expected = NULL;
    if (atomic_compare_exchange_strong(&a->blocks[i], &expected, mem) ||
        expected == mem)
      return i;
  }
  atomic_fetch_add(&a->overflow, 1);
  return -1;
}

/* Fills the whole block with the group's own byte, lingers so groups
 * overlap, and checks nobody else wrote into it. */
static void local_group(void *p, uint64_t x, uint64_t y, uint64_t z,
                        char *mem) {
  local_arg *a = p;
  (void)y, (void)z;
  if ((uintptr_t)mem % 128)
    atomic_fetch_add(&a->misaligned, 1);
  int b = block_index(a, mem);
  if (b >= 0 && atomic_fetch_add(&a->in_use[b], 1) != 0)
    atomic_fetch_add(&a->shared, 1);
  int r = atomic_fetch_add(&a->running, 1) + 1;
  int m = atomic_load(&a->max_running);
  while (r > m && !atomic_compare_exchange_weak(&a->max_running, &m, r))
    ;
  unsigned char tag = (unsigned char)(x * 31 + 7);
  memset(mem, tag, a->size);
  for (uint64_t t0 = now_ns(); now_ns() - t0 < 20000;)
    ;
  for (size_t i = 0; i < a->size; i += 61)
    if ((unsigned char)mem[i] != tag) {
      atomic_fetch_add(&a->corrupt, 1);
      break;
    }
  if ((unsigned char)mem[a->size - 1] != tag)
    atomic_fetch_add(&a->corrupt, 1);
  atomic_fetch_sub(&a->running, 1);
  if (b >= 0)
    atomic_fetch_sub(&a->in_use[b], 1);
}

static void test_local_mem(void) {
  CHECK(sched_max_local_mem() >= 64 * 1024);
  local_arg *a = calloc(1, sizeof *a);
  a->size = sched_max_local_mem();
  sched_job job = {.num_groups = {200, 1, 1},
                   .local_mem_size = a->size,
                   .fn = local_group,
                   .arg = a};
  sched_run(&job);
  CHECK_EQ(atomic_load(&a->shared), 0);
  CHECK_EQ(atomic_load(&a->corrupt), 0);
  CHECK_EQ(atomic_load(&a->misaligned), 0);
  CHECK_EQ(atomic_load(&a->overflow), 0);
  int blocks = 0;
  while (blocks < MAX_BLOCKS && atomic_load(&a->blocks[blocks]))
    blocks++;
  printf("local memory: %d distinct blocks, up to %d groups at once\n",
         blocks, atomic_load(&a->max_running));
  CHECK(blocks <= (int)sched_num_workers());
  free(a);
}

/* ---- pinning --------------------------------------------------------- */

typedef struct pin_arg {
  hwloc_topology_t topo;
  pthread_t caller;
  int machine_weight;
  _Atomic int checked, unpinned;
  pthread_mutex_t lock;
  hwloc_bitmap_t workers_set; /* union of the workers' bindings */
} pin_arg;

static void pin_group(void *p, uint64_t x, uint64_t y, uint64_t z,
                      char *mem) {
  pin_arg *a = p;
  (void)x, (void)y, (void)z, (void)mem;
  for (uint64_t t0 = now_ns(); now_ns() - t0 < 5000;)
    ;
  if (pthread_equal(pthread_self(), a->caller))
    return;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(a->topo, set, HWLOC_CPUBIND_THREAD) == 0 &&
      hwloc_bitmap_weight(set) >= a->machine_weight)
    atomic_fetch_add(&a->unpinned, 1);
  pthread_mutex_lock(&a->lock);
  hwloc_bitmap_or(a->workers_set, a->workers_set, set);
  pthread_mutex_unlock(&a->lock);
  hwloc_bitmap_free(set);
  atomic_fetch_add(&a->checked, 1);
}

/* Checks the default worker count is the core count, that background
 * workers are bound to less than the whole machine, and that
 * sched_bind_caller() binds the caller to cores no worker uses. Leaves the
 * calling thread bound as it was. */
static void test_pinning(void) {
  pin_arg a = {.caller = pthread_self(), .lock = PTHREAD_MUTEX_INITIALIZER};
  hwloc_topology_init(&a.topo);
  hwloc_topology_load(a.topo);
  a.workers_set = hwloc_bitmap_alloc();
  int cores = hwloc_get_nbobjs_by_type(a.topo, HWLOC_OBJ_CORE);
  CHECK_EQ(sched_num_workers(), cores > 0 ? cores : 1);
  a.machine_weight =
      hwloc_bitmap_weight(hwloc_topology_get_topology_cpuset(a.topo));
  sched_job job = {.num_groups = {2000, 1, 1}, .fn = pin_group, .arg = &a};
  sched_run(&job);
  printf("pinning: %d groups checked on background workers\n",
         atomic_load(&a.checked));
  if (cores > 1) {
    CHECK(atomic_load(&a.checked) > 0);
    CHECK_EQ(atomic_load(&a.unpinned), 0);
  }
  hwloc_bitmap_t saved = hwloc_bitmap_alloc(), mine = hwloc_bitmap_alloc();
  hwloc_get_cpubind(a.topo, saved, HWLOC_CPUBIND_THREAD);
  sched_bind_caller();
  hwloc_get_cpubind(a.topo, mine, HWLOC_CPUBIND_THREAD);
  if (cores > 1) {
    CHECK(!hwloc_bitmap_iszero(mine));
    CHECK(!hwloc_bitmap_intersects(mine, a.workers_set));
  }
  hwloc_set_cpubind(a.topo, saved, HWLOC_CPUBIND_THREAD);
  hwloc_bitmap_free(saved);
  hwloc_bitmap_free(mine);
  hwloc_bitmap_free(a.workers_set);
  hwloc_topology_destroy(a.topo);
}

/* ---- sub-device subsets ---------------------------------------------- */

typedef struct subset_arg {
  pthread_t caller;
  hwloc_bitmap_t want;           /* the CPUs of the subset's cores */
  _Atomic int off_cpu, on_caller, groups;
} subset_arg;

static void subset_group(void *p, uint64_t gx, uint64_t gy, uint64_t gz,
                         char *local_mem) {
  (void)gx, (void)gy, (void)gz, (void)local_mem;
  subset_arg *a = p;
  int cpu = sched_getcpu();
  if (cpu < 0 || !hwloc_bitmap_isset(a->want, (unsigned)cpu))
    atomic_fetch_add(&a->off_cpu, 1);
  if (pthread_equal(pthread_self(), a->caller))
    atomic_fetch_add(&a->on_caller, 1);
  atomic_fetch_add(&a->groups, 1);
  for (volatile int i = 0; i < 2000; i++) /* long enough to spread */
    ;
}

/* Runs jobs confined to one compute unit u at a time (and to all units
 * but 0): every group runs on the unit's core (unit u is bound to core
 * u % cores) and never on the calling thread, one-group jobs included. */
static void test_subsets(void) {
  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  hwloc_topology_load(topo);
  int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  unsigned n = sched_num_workers();
  for (unsigned u = 0; u <= n && u < 9; u++) {
    /* u == n: every unit but 0, if there are several. */
    unsigned units[8], count = 0;
    subset_arg a = {.caller = pthread_self(), .want = hwloc_bitmap_alloc()};
    for (unsigned v = u == n ? 1 : u; v < n && count < 8; v++) {
      units[count++] = v;
      hwloc_obj_t core = hwloc_get_obj_by_type(
          topo, HWLOC_OBJ_CORE, v % (unsigned)(cores > 0 ? cores : 1));
      if (core)
        hwloc_bitmap_or(a.want, a.want, core->cpuset);
      if (u != n)
        break;
    }
    if (count == 0) {
      hwloc_bitmap_free(a.want);
      continue;
    }
    sched_subset *s = sched_subset_create(units, count);
    CHECK(s != NULL);
    for (uint64_t groups = 1; s && groups <= 300; groups += 299) {
      sched_job job = {.num_groups = {groups, 1, 1}, .fn = subset_group,
                       .arg = &a, .subset = s};
      CHECK_EQ(sched_run(&job), 0);
    }
    CHECK_EQ(atomic_load(&a.groups), 301);
    CHECK_EQ(atomic_load(&a.on_caller), 0);
    if (cores > 1)
      CHECK_EQ(atomic_load(&a.off_cpu), 0);
    sched_subset_free(s);
    hwloc_bitmap_free(a.want);
  }
  hwloc_topology_destroy(topo);
}

/* ---- concurrent callers ---------------------------------------------- */

typedef struct caller_arg {
  unsigned seed;
  int iterations;
  uint64_t wrong;
} caller_arg;

static void *caller_main(void *p) {
  caller_arg *c = p;
  for (int i = 0; i < c->iterations; i++) {
    c->seed = c->seed * 1103515245u + 12345u;
    unsigned r = c->seed >> 8;
    uint64_t nx = 1 + r % 300, ny = 1 + (r >> 9) % 4, nz = 1 + (r >> 11) % 3;
    if (i % 5 == 0)
      nx = ny = nz = 1;
    c->wrong += run_counted(nx, ny, nz);
  }
  return NULL;
}

static void test_concurrent(int nthreads, int iterations) {
  pthread_t th[8];
  caller_arg args[8];
  for (int i = 0; i < nthreads; i++) {
    args[i] = (caller_arg){.seed = 17u * (unsigned)i + 1,
                           .iterations = iterations};
    pthread_create(&th[i], NULL, caller_main, &args[i]);
  }
  uint64_t wrong = 0;
  for (int i = 0; i < nthreads; i++) {
    pthread_join(th[i], NULL);
    wrong += args[i].wrong;
  }
  CHECK_EQ(wrong, 0);
}

/* ---- measurements ---------------------------------------------------- */

static __thread uint64_t groups_here; /* groups this thread ran */

static void empty_group(void *p, uint64_t x, uint64_t y, uint64_t z,
                        char *mem) {
  (void)p, (void)x, (void)y, (void)z, (void)mem;
  groups_here++;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Median and 99th percentile (ns) of sched_run for an empty job of
 * `groups` groups, launched n times, pausing gap_ns between launches. */
static void measure_latency(const char *label, uint64_t groups, int n,
                            uint64_t gap_ns) {
  uint64_t *t = malloc(n * sizeof *t);
  sched_job job = {.num_groups = {groups, 1, 1}, .fn = empty_group};
  for (int i = 0; i < 100; i++)
    sched_run(&job);
  for (int i = 0; i < n; i++) {
    if (gap_ns) {
      struct timespec ts = {0, (long)gap_ns};
      nanosleep(&ts, NULL);
    }
    uint64_t t0 = now_ns();
    sched_run(&job);
    t[i] = now_ns() - t0;
  }
  qsort(t, n, sizeof *t, cmp_u64);
  printf("  %-34s median %7.3f us  p99 %8.3f us\n", label, t[n / 2] / 1e3,
         t[n * 99 / 100] / 1e3);
  free(t);
}

/* Best of three: the first run also pays for waking sleeping workers. */
static void measure_throughput(void) {
  sched_job job = {.num_groups = {10000000, 1, 1}, .fn = empty_group};
  double best = 1e30;
  for (int i = 0; i < 3; i++) {
    groups_here = 0;
    uint64_t t0 = now_ns();
    sched_run(&job);
    double s = (now_ns() - t0) / 1e9;
    best = s < best ? s : best;
    printf("    run %d: %.4f s, caller ran %llu groups on cpu %d\n", i, s,
           (unsigned long long)groups_here, sched_getcpu());
  }
  printf("  10M-group empty job (best of 3): %.4f s, %.1f M groups/s\n",
         best, 10.0 / best);
}

static void measure_all(const char *mode) {
  printf("measurements (%s, %u workers):\n", mode, sched_num_workers());
  measure_latency("1-group job", 1, 10000, 0);
  measure_latency("2-group job", 2, 10000, 0);
  measure_latency("2-group job, workers asleep", 2, 300, 2000000);
  measure_throughput();
}

/* Restarts the pool with an environment variable set (NULL value unsets). */
static void restart_with(const char *name, const char *value) {
  sched_shutdown();
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
  CHECK_EQ(sched_init(0), 0);
}

int main(void) {
  sched_shutdown(); /* safe before any start */
  unsetenv("SKEIN_NUM_THREADS");
  unsetenv("SKEIN_SCHED_CALLER");
  CHECK_EQ(sched_init(0), 0);
  CHECK_EQ(sched_init(0), 0);
  test_pinning();
  test_coverage();
  test_local_mem();
  test_concurrent(2, 300);
  test_concurrent(7, 60); /* more callers than caller memory slots */
  test_subsets();
  measure_all("caller helps, caller unbound");
  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  hwloc_topology_load(topo);
  hwloc_bitmap_t saved = hwloc_bitmap_alloc();
  hwloc_get_cpubind(topo, saved, HWLOC_CPUBIND_THREAD);
  sched_bind_caller();
  measure_all("caller helps, caller bound");
  hwloc_set_cpubind(topo, saved, HWLOC_CPUBIND_THREAD);
  hwloc_bitmap_free(saved);
  hwloc_topology_destroy(topo);

  restart_with("SKEIN_SCHED_CALLER", "sleep");
  test_subsets();
  test_coverage();
  test_local_mem();
  test_concurrent(2, 200);
  measure_all("caller sleeps");
  unsetenv("SKEIN_SCHED_CALLER");

  restart_with("SKEIN_NUM_THREADS", "1");
  CHECK_EQ(sched_num_workers(), 1);
  test_subsets(); /* unit 0 alone: its own thread, not the caller */
  test_coverage();
  test_local_mem();
  test_concurrent(2, 200);
  test_concurrent(7, 40);
  restart_with("SKEIN_NUM_THREADS", NULL);

  sched_shutdown();
  sched_shutdown(); /* twice is safe */
  if (failures) {
    printf("unit-scheduler: %d check(s) failed\n", failures);
    return 1;
  }
  printf("unit-scheduler: all checks passed\n");
  return 0;
}
