/* This file is the stress test's driver: it parses the settings, builds
 * the stress program in every mode, creates the shared queues, runs N
 * host threads (16 by default) that each pick random operations
 * (stress_seq.c, stress_ops.c, stress_watch.c) until the time is up, then
 * releases everything and checks the callback accounting. It also holds
 * the helpers every part uses: failure reports that name the seed, the
 * per-thread random stream, and callback counting.
 *
 * Usage: stress [-t seconds] [-n threads] [-s seed] [-w watchdog_seconds]
 * (or STRESS_SECONDS, STRESS_THREADS, STRESS_SEED, STRESS_WATCHDOG). The
 * seed fixes every thread's sequence of operations (not the interleaving
 * of threads); a failure prints it. Exit 0 only if every check passed. */
#define _GNU_SOURCE /* setenv, unsetenv */
#include "stress.h"
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

stress_globals G;

const char *const stress_kernel_names[NUM_KERNELS] = {
    "affine", "add", "add2d", "poly", "group_sum", "group_scan", "guarded"};

/* Every kernel computes in unsigned arithmetic, so the host model
 * (stress_seq.c) reproduces it exactly, overflow included. */
const char *const stress_source =
    "kernel void affine(global const uint *in, global uint *out, uint m,\n"
    "                   uint c) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * m + c;\n"
    "}\n"
    "kernel void add(global uint *a, uint v) { a[get_global_id(0)] += v; }\n"
    "kernel void add2d(global uint *a, uint pitch, uint v) {\n"
    "  size_t x = get_global_id(0), y = get_global_id(1);\n"
    "  a[y * pitch + x] += v ^ (uint)(x * 3 + y);\n"
    "}\n"
    "kernel void poly(global const uint *in, global uint *out, uint terms) {\n"
    "  size_t i = get_global_id(0);\n"
    "  uint x = in[i], acc = 0;\n"
    "  for (uint k = 0; k < terms; k++)\n"
    "    acc = acc * x + k;\n"
    "  out[i] = acc;\n"
    "}\n"
    "kernel void group_sum(global const uint *in, global uint *out,\n"
    "                      local uint *scratch) {\n"
    "  size_t lid = get_local_id(0), lsz = get_local_size(0);\n"
    "  size_t g = get_group_id(0);\n"
    "  uint v = in[get_global_id(0)];\n"
    "  scratch[lid] = v;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = lsz / 2; s > 0; s /= 2) {\n"
    "    if (lid < s)\n"
    "      scratch[lid] += scratch[lid + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  uint r = work_group_reduce_add(v);\n"
    "  uint mx = work_group_reduce_max(v);\n"
    "  if (lid == 0) {\n"
    "    out[3 * g] = scratch[0];\n"
    "    out[3 * g + 1] = r;\n"
    "    out[3 * g + 2] = mx;\n"
    "  }\n"
    "}\n"
    "kernel void group_scan(global const uint *in, global uint *out) {\n"
    "  local uint tile[256];\n"
    "  size_t lid = get_local_id(0), lsz = get_local_size(0);\n"
    "  tile[lid] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  uint rev = tile[lsz - 1 - lid];\n"
    "  out[get_global_id(0)] = work_group_scan_inclusive_add(rev) +\n"
    "                          work_group_broadcast(rev, 0);\n"
    "}\n"
    /* Region mode refuses a barrier after a return only some work-items
     * might take; with n = offset + global size none takes it, so the
     * kernel is valid and runs in fiber mode. */
    "kernel void guarded(global const uint *in, global uint *out, uint n) {\n"
    "  local uint tile[256];\n"
    "  size_t gid = get_global_id(0), lid = get_local_id(0);\n"
    "  if (gid >= n)\n"
    "    return;\n"
    "  tile[lid] = in[gid] * 3u;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[gid] = tile[(lid + 1) % get_local_size(0)];\n"
    "}\n";

/* Failure reports stop after this many lines; the count goes on. */
enum { MAX_REPORTS = 40 };

void stress_fail(const worker *w, const char *fmt, ...) {
  unsigned n = atomic_fetch_add(&G.failures, 1);
  if (n >= MAX_REPORTS)
    return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (w)
    fprintf(stderr, "stress: FAIL [seed %llu, thread %u, op %llu]: %s\n",
            (unsigned long long)G.seed, w->id,
            (unsigned long long)atomic_load(&w->prog.op), msg);
  else
    fprintf(stderr, "stress: FAIL [seed %llu]: %s\n",
            (unsigned long long)G.seed, msg);
}

uint64_t stress_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void stress_at(progress *p, const char *where) {
  atomic_store(&p->where, where);
  atomic_store(&p->beat_ns, stress_now_ns());
}

void stress_nap_us(unsigned us) {
  struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

/* splitmix64: seeds each thread's stream from the run's seed. */
static uint64_t splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* xorshift64*: the per-thread stream (test_rand's state is global, and
 * these threads must not share one). */
uint64_t rnd(worker *w) {
  w->rng ^= w->rng >> 12;
  w->rng ^= w->rng << 25;
  w->rng ^= w->rng >> 27;
  return w->rng * 0x2545f4914f6cdd1dull;
}

size_t rnd_below(worker *w, size_t n) { return (size_t)(rnd(w) % n); }

size_t rnd_range(worker *w, size_t lo, size_t hi) {
  return lo + rnd_below(w, hi - lo + 1);
}

bool chance(worker *w, unsigned percent) {
  return rnd_below(w, 100) < percent;
}

void rnd_bytes(worker *w, void *p, size_t n) {
  unsigned char *b = p;
  for (size_t i = 0; i < n; i += 8) {
    uint64_t r = rnd(w);
    for (size_t k = 0; k < 8 && i + k < n; k++)
      b[i + k] = (unsigned char)(r >> (8 * k));
  }
}

const squeue *pick_queue(worker *w) {
  size_t r = rnd_below(w, 2 + STRESS_MAX_SHARED);
  if (r == 0)
    return &w->own_in;
  if (r == 1)
    return &w->own_ooo;
  return &G.shared[r - 2];
}

static void CL_CALLBACK count_callback(cl_event ev, cl_int status,
                                       void *data) {
  (void)ev;
  cb_count *c = data;
  atomic_store(&c->status, status);
  atomic_fetch_add(&G.cb_fired, 1);
  atomic_fetch_add(&c->fired, 1); /* last: the owner may free c after it */
}

bool cb_register(const worker *w, cl_event ev, cl_int trigger,
                 cb_count *c) {
  atomic_init(&c->fired, 0);
  atomic_init(&c->status, 1);
  c->trigger = trigger;
  atomic_fetch_add(&G.cb_registered, 1);
  cl_int err = clSetEventCallback(ev, trigger, count_callback, c);
  if (err != CL_SUCCESS) {
    atomic_fetch_sub(&G.cb_registered, 1);
    stress_fail(w, "clSetEventCallback(%d) returned %d", trigger, err);
    return false;
  }
  return true;
}

void cb_await(worker *w, cb_count *c, bool may_fail) {
  stress_at(&w->prog, "callback: waiting for it to be called");
  while (atomic_load(&c->fired) == 0)
    stress_nap_us(20);
  cl_int st = atomic_load(&c->status);
  if (atomic_load(&c->fired) != 1)
    stress_fail(w, "callback for %d called %d times", c->trigger,
                atomic_load(&c->fired));
  if (st != c->trigger && !(may_fail && st < 0))
    stress_fail(w, "callback for %d called with status %d", c->trigger, st);
}

/* Settings from the command line, else the environment, else defaults. */
static void parse_settings(int argc, char **argv) {
  const char *t = getenv("STRESS_SECONDS"), *n = getenv("STRESS_THREADS");
  const char *s = getenv("STRESS_SEED"), *wd = getenv("STRESS_WATCHDOG");
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-t"))
      t = argv[i + 1];
    else if (!strcmp(argv[i], "-n"))
      n = argv[i + 1];
    else if (!strcmp(argv[i], "-s"))
      s = argv[i + 1];
    else if (!strcmp(argv[i], "-w"))
      wd = argv[i + 1];
    else {
      fprintf(stderr, "usage: stress [-t seconds] [-n threads] [-s seed] "
                      "[-w watchdog_seconds]\n");
      exit(2);
    }
  }
  G.seconds = t ? atof(t) : 10;
  G.threads = n ? (unsigned)atoi(n) : 16;
  if (G.threads < 1)
    G.threads = 1;
  if (G.threads > STRESS_MAX_THREADS)
    G.threads = STRESS_MAX_THREADS;
  G.seed = s ? strtoull(s, NULL, 0) : 0;
  if (!G.seed) {
    uint64_t x = stress_now_ns() ^ ((uint64_t)getpid() << 32);
    G.seed = splitmix(&x) | 1;
  }
  /* Sanitizer builds run many times slower: a step may take longer. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  G.watchdog_s = wd ? atof(wd) : 300;
#else
  G.watchdog_s = wd ? atof(wd) : 60;
#endif
}

/* Builds the stress program; with fiber set, SKEIN_MODE=fiber during the
 * build (before any thread starts: setenv is not thread-safe). */
static cl_program build_program(bool fiber) {
  if (fiber)
    setenv("SKEIN_MODE", "fiber", 1);
  cl_program p = test_build(&G.env, stress_source, "-cl-std=CL3.0");
  if (fiber)
    unsetenv("SKEIN_MODE");
  return p;
}

squeue stress_queue(bool in_order, bool profiling, cl_int *err) {
  cl_queue_properties props[] = {
      CL_QUEUE_PROPERTIES,
      (in_order ? 0 : CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) |
          (profiling ? CL_QUEUE_PROFILING_ENABLE : 0),
      0};
  return (squeue){clCreateCommandQueueWithProperties(
                      G.env.context, G.env.device, props, err),
                  in_order, profiling};
}

static squeue make_queue(bool in_order, bool profiling) {
  cl_int err;
  squeue q = stress_queue(in_order, profiling, &err);
  REQUIRE_OK(err);
  return q;
}

/* The shared queues: test_setup's in-order profiling queue, a plain
 * in-order one, and two out-of-order ones (one profiling). */
static void setup(void) {
  test_setup(&G.env);
  G.progs[P_DEFAULT] = build_program(false);
  G.progs[P_FIBER] = build_program(true);
  G.shared[0] = (squeue){G.env.queue, true, true};
  G.shared[1] = make_queue(true, false);
  G.shared[2] = make_queue(false, false);
  G.shared[3] = make_queue(false, true);
}

static void worker_setup(worker *w) {
  stress_at(&w->prog, "start: queues and kernels");
  w->own_in = make_queue(true, chance(w, 30));
  w->own_ooo = make_queue(false, chance(w, 30));
  for (int p = 0; p < NUM_PROGS; p++)
    for (int k = 0; k < NUM_KERNELS; k++) {
      cl_int err;
      w->kernels[p][k] =
          clCreateKernel(G.progs[p], stress_kernel_names[k], &err);
      if (err != CL_SUCCESS)
        stress_fail(w, "clCreateKernel(%s) returned %d",
                    stress_kernel_names[k], err);
    }
}

static void worker_teardown(worker *w) {
  stress_at(&w->prog, "end: clFinish own queues");
  if (clFinish(w->own_in.q) != CL_SUCCESS ||
      clFinish(w->own_ooo.q) != CL_SUCCESS)
    stress_fail(w, "clFinish of an own queue failed");
  stress_at(&w->prog, "end: releasing own objects");
  clReleaseCommandQueue(w->own_in.q);
  clReleaseCommandQueue(w->own_ooo.q);
  for (int p = 0; p < NUM_PROGS; p++)
    for (int k = 0; k < NUM_KERNELS; k++)
      if (w->kernels[p][k])
        clReleaseKernel(w->kernels[p][k]);
}

/* One operation, chosen by weight (out of 100). */
static void run_one(worker *w) {
  size_t r = rnd_below(w, 100);
  op_kind kind = r < 66   ? OP_SEQUENCE
                 : r < 78 ? OP_CALLBACK_CHAIN
                 : r < 83 ? OP_FAILING_GATE
                 : r < 84 ? OP_BUILD
                 : r < 86 ? OP_QUEUE_CHURN
                 : r < 91 ? OP_BOARD_WAIT
                 : r < 98 ? OP_FINISH
                          : OP_FINISH_FED;
  w->ops[kind]++;
  switch (kind) {
  case OP_SEQUENCE: op_sequence(w); break;
  case OP_CALLBACK_CHAIN: op_callback_chain(w); break;
  case OP_FAILING_GATE: op_failing_gate(w); break;
  case OP_BUILD: op_build(w); break;
  case OP_QUEUE_CHURN: op_queue_churn(w); break;
  case OP_BOARD_WAIT: op_board_wait(w); break;
  case OP_FINISH: op_finish(w); break;
  case OP_FINISH_FED: op_finish_fed(w); break;
  default: break;
  }
}

static void *worker_main(void *arg) {
  worker *w = arg;
  worker_setup(w);
  while (!atomic_load(&G.stop)) {
    atomic_fetch_add(&w->prog.op, 1);
    stress_at(&w->prog, "op: start");
    setter_help(w);
    run_one(w);
  }
  worker_teardown(w);
  stress_at(&w->prog, "done");
  atomic_store(&w->prog.idle, true);
  return NULL;
}

/* Releases the shared objects; every worker has finished. */
static void teardown(progress *main_prog) {
  stress_at(main_prog, "teardown: setting the last user events");
  setter_stop();
  stress_at(main_prog, "teardown: releasing the board's events");
  board_drain();
  for (int i = 0; i < STRESS_MAX_SHARED; i++) {
    stress_at(main_prog, "teardown: clFinish of a shared queue");
    if (clFinish(G.shared[i].q) != CL_SUCCESS)
      stress_fail(NULL, "clFinish of shared queue %d failed", i);
  }
  /* Callbacks may still be running after their commands completed. */
  stress_at(main_prog, "teardown: waiting for the last callbacks");
  while (atomic_load(&G.cb_fired) < atomic_load(&G.cb_registered))
    stress_nap_us(100);
  stress_nap_us(20000);
  uint64_t reg = atomic_load(&G.cb_registered), fired = atomic_load(&G.cb_fired);
  if (reg != fired)
    stress_fail(NULL, "%llu callbacks registered, %llu calls",
                (unsigned long long)reg, (unsigned long long)fired);
  stress_at(main_prog, "teardown: releasing shared objects");
  for (int i = 1; i < STRESS_MAX_SHARED; i++)
    clReleaseCommandQueue(G.shared[i].q);
  for (int p = 0; p < NUM_PROGS; p++)
    clReleaseProgram(G.progs[p]);
  test_teardown(&G.env);
}

static void print_summary(double elapsed) {
  static const char *const names[NUM_OPS] = {
      "sequences", "callback chains", "failing gates", "builds",
      "queue churns", "board waits", "finishes", "finishes while fed"};
  uint64_t total[NUM_OPS] = {0}, commands = 0;
  for (unsigned i = 0; i < G.threads; i++) {
    for (int k = 0; k < NUM_OPS; k++)
      total[k] += G.workers[i].ops[k];
    commands += G.workers[i].commands;
  }
  printf("stress: %.1f s, %u threads, seed %llu:", elapsed, G.threads,
         (unsigned long long)G.seed);
  for (int k = 0; k < NUM_OPS; k++)
    printf(" %llu %s,", (unsigned long long)total[k], names[k]);
  printf(" %llu commands, %llu callbacks\n", (unsigned long long)commands,
         (unsigned long long)atomic_load(&G.cb_fired));
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  parse_settings(argc, argv);
  printf("stress: seed %llu, %u threads, %.0f s, watchdog %.0f s\n",
         (unsigned long long)G.seed, G.threads, G.seconds, G.watchdog_s);
  uint64_t t0 = stress_now_ns();
  static progress main_prog = {.name = "main"};
  stress_at(&main_prog, "setup: building the stress program");
  setup();

  G.workers = calloc(G.threads, sizeof *G.workers);
  progress **slots = calloc(G.threads + 2, sizeof *slots);
  uint64_t x = G.seed;
  for (unsigned i = 0; i < G.threads; i++) {
    worker *w = &G.workers[i];
    w->id = i;
    w->seed = w->rng = splitmix(&x) | 1;
    snprintf(w->prog.name, sizeof w->prog.name, "thread %u", i);
    stress_at(&w->prog, "created");
    slots[i] = &w->prog;
  }
  slots[G.threads] = &main_prog;
  watchdog_start(slots, G.threads + 1);
  setter_start();
  for (unsigned i = 0; i < G.threads; i++)
    if (pthread_create(&G.workers[i].thread, NULL, worker_main,
                       &G.workers[i]) != 0) {
      fprintf(stderr, "stress: cannot start thread %u\n", i);
      _exit(1);
    }

  /* The main thread sleeps while the workers run (and is no hang). */
  atomic_store(&main_prog.idle, true);
  uint64_t end = stress_now_ns() + (uint64_t)(G.seconds * 1e9);
  while (stress_now_ns() < end && atomic_load(&G.failures) < MAX_REPORTS)
    stress_nap_us(50000);
  stress_at(&main_prog, "stopping: joining the threads");
  atomic_store(&main_prog.idle, false);
  atomic_store(&G.stop, true);
  for (unsigned i = 0; i < G.threads; i++)
    pthread_join(G.workers[i].thread, NULL);
  teardown(&main_prog);
  watchdog_stop();

  print_summary((double)(stress_now_ns() - t0) / 1e9);
  free(slots);
  free(G.workers);
  unsigned failures = atomic_load(&G.failures);
  if (failures) {
    fprintf(stderr, "stress: %u failure(s); seed %llu\n", failures,
            (unsigned long long)G.seed);
    return 1;
  }
  printf("stress: all checks passed\n");
  return 0;
}
