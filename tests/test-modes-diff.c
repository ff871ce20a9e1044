/* This file is the differential test of Skein's execution modes (issue 13,
 * point 4): every kernel of a corpus of real-world-style kernels
 * (modes_corpus_*.c) and of a few hundred seeded random kernels
 * (kernel_gen.c) is built and run in fiber mode, the default mode (loop or
 * region), the default mode with LLVM's vectorisers off (SKEIN_VECTORIZE=0)
 * and plain loop mode (SKEIN_MODE=loop), and every buffer is compared bit
 * for bit with the fiber-mode run; corpus results in fiber mode are also
 * checked against a host reference. Any difference fails the test and
 * names the kernel, the mode and (for generated kernels) the seed.
 *
 * The work runs in child processes, several at once: a kernel that crashes
 * or hangs in one mode is reported (with what the engine was doing) and
 * the run goes on with the next kernel, so one bad kernel does not hide
 * the others. Every kernel is built alone (a program of several kernels
 * can hide one kernel's miscompilation behind another's fallback).
 *
 *   test-modes-diff              corpus, then 250 generated kernels
 *   test-modes-diff --fuzz       5000 generated kernels, seed from the clock
 *   --corpus / --generated       only one of the two
 *   --seed S --count N           generated kernels S, S+1, ... S+N-1
 *   --jobs N                     child processes at once (default: the
 *                                number of CPUs, at most 8)
 *   --print S                    print the kernel of seed S and exit
 *   --only TEXT                  only corpus families whose name has TEXT
 *   --no-fork                    run in this process (for a debugger)
 * SKEIN_FUZZ_SEED and SKEIN_FUZZ_COUNT set the seed and count when the
 * arguments do not; SKEIN_DIFF_JOBS the lanes; SKEIN_DIFF_TIMEOUT the
 * seconds one step (a build or a run) may take. */
#include "kernel_gen.h"
#include "modes_corpus.h"
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const corpus_part *const parts[] = {&corpus_task, &corpus_group,
                                           &corpus_scan, &corpus_dense};
#define NPARTS (int)(sizeof parts / sizeof *parts)

/* Generated kernels per job (one child process). */
#define KERNELS_PER_JOB 10

/* A piece of work for one child: families [from, to) of a corpus part,
 * or generated kernels [from, to). */
typedef struct job {
  int part; /* -1: generated kernels */
  int from, to;
} job;

/* What the parent learns from a lane's children, in shared memory. */
typedef struct shared {
  md_stats stats;
  int item;     /* family or kernel index in progress */
  int building; /* building its program(s) */
  int set_up;   /* the child reached the Skein platform */
  int done;     /* the child got through its job */
  long long heartbeat_ms;
  long families_done, kernels_done, kernels_mismatched;
  char note[256]; /* what the engine was doing */
} shared;

static shared *sh; /* this process's lane */

typedef struct options {
  int corpus, generated, fuzz, no_fork, jobs;
  const char *only; /* corpus family filter, or NULL */
  unsigned long long seed;
  long count;
  int timeout_s;
} options;

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void note_hook(const char *what) {
  snprintf(sh->note, sizeof sh->note, "%s", what);
  sh->heartbeat_ms = now_ms();
}

/* ---- corpus ---- */

static int corpus_size(void) {
  int n = 0;
  for (int p = 0; p < NPARTS; p++)
    n += parts[p]->nfamilies;
  return n;
}

/* Every kernel of the part is built alone, in every mode. */
static void corpus_job(const options *o, test_env *env, const job *j) {
  const corpus_part *part = parts[j->part];
  int wanted = 0;
  for (int f = j->from; f < j->to; f++)
    wanted += !o->only || strstr(part->families[f].name, o->only) != NULL;
  if (!wanted)
    return;
  md_program prog;
  sh->item = j->from;
  sh->building = 1;
  int failed = md_build(env, &prog, part->source, "-cl-std=CL3.0", 1) < 0;
  sh->building = 0;
  for (int f = j->from; f < j->to && !failed; f++) {
    if (o->only && !strstr(part->families[f].name, o->only))
      continue;
    sh->item = f;
    md_ctx c = {env, &prog};
    part->families[f].run(&c, part->families[f].arg);
    sh->families_done++;
  }
  if (failed)
    fprintf(stderr, "corpus part %s did not build\n", part->name);
  md_program_release(&prog);
}

/* ---- generated kernels ---- */

static unsigned long long kernel_seed(const options *o, int i) {
  return o->seed + (unsigned long long)i;
}

static void print_kernel(unsigned long long seed) {
  kg_kernel k;
  kg_generate(seed, &k);
  fprintf(stderr, "---- kernel %s (seed 0x%llx) ----\n%s----\n", k.name, seed,
          k.source);
  kg_kernel_free(&k);
}

static void print_replay(unsigned long long seed) {
  fprintf(stderr,
          "  replay: SKEIN_FUZZ_SEED=0x%llx SKEIN_FUZZ_COUNT=1 "
          "test-modes-diff --generated\n",
          seed);
}

/* Runs both launches of kernel k; 1 if any differed. */
static int run_launches(test_env *env, md_program *prog, const kg_kernel *k) {
  int bad = 0;
  for (int v = 0; v < 2; v++) {
    kg_launch kl;
    kg_launch_make(k->seed, v, &kl);
    md_launch l;
    md_init(&l,
            "%s (seed 0x%llx) launch %d global=%zu local=%zu a0=%u "
            "a1=%d am=%u",
            k->name, k->seed, v, kl.global, kl.local, kl.a0, kl.a1, kl.am);
    int a_in = md_buf(&l, "in", kl.in, sizeof kl.in, 4);
    int a_fin = md_buf(&l, "fin", kl.fin, sizeof kl.fin, 4);
    int a_out = md_out(&l, "out", kl.global * KG_OUT_PER_ITEM * 4, 4);
    int a_uni = md_out(&l, "uni", kg_uni_words(&kl) * 4, 4);
    int a_0 = md_u32(&l, kl.a0), a_1 = md_i32(&l, kl.a1);
    int a_m = md_u32(&l, kl.am);
    md_step_add(&l, k->name, 1, &kl.global, &kl.local, 7, a_in, a_fin, a_out,
                a_uni, a_0, a_1, a_m);
    void *fiber[MD_MAX_ARGS];
    bad |= md_compare(env, prog, &l, fiber) != 0;
    md_results_free(fiber);
    md_launch_free(&l);
  }
  return bad;
}

/* Each kernel is a program of its own (with the arithmetic helpers):
 * the modes see it as a small program, and a failure names it. */
static void generated_job(const options *o, test_env *env, const job *j) {
  for (int i = j->from; i < j->to; i++) {
    kg_kernel k;
    kg_generate(kernel_seed(o, i), &k);
    char *src = malloc(strlen(kg_preamble()) + strlen(k.source) + 1);
    strcat(strcpy(src, kg_preamble()), k.source);
    sh->item = i;
    sh->building = 1;
    md_program prog;
    int failed = md_build(env, &prog, src, "-cl-std=CL3.0", 0) < 0;
    sh->building = 0;
    if (failed) {
      print_replay(k.seed);
    } else if (run_launches(env, &prog, &k)) {
      sh->kernels_mismatched++;
      print_replay(k.seed);
      if (sh->kernels_mismatched <= 10)
        fprintf(stderr, "---- kernel %s ----\n%s----\n", k.name, k.source);
    }
    if (!failed)
      sh->kernels_done++;
    md_program_release(&prog);
    kg_kernel_free(&k);
    free(src);
  }
}

static void run_job(const options *o, const job *j) {
  test_env env;
  md_note("setting up the Skein platform");
  test_setup(&env); /* exits if there is none */
  sh->set_up = 1;
  if (j->part >= 0)
    corpus_job(o, &env, j);
  else
    generated_job(o, &env, j);
  test_teardown(&env);
}

/* What a job was doing when its child died. */
static void describe(const options *o, const job *j, int item) {
  if (j->part >= 0) {
    fprintf(stderr, "  in corpus family '%s' (part %s)\n",
            parts[j->part]->families[item].name, parts[j->part]->name);
    return;
  }
  print_replay(kernel_seed(o, item));
  print_kernel(kernel_seed(o, item));
}

/* ---- supervision ---- */

typedef struct lane {
  shared *sh;
  pid_t pid; /* 0: idle */
  job j;
} lane;

typedef struct queue {
  job *jobs;
  int n, cap, next;
} queue;

static void push(queue *q, job j) {
  if (q->n == q->cap) {
    q->cap = q->cap ? 2 * q->cap : 64;
    q->jobs = realloc(q->jobs, (size_t)q->cap * sizeof *q->jobs);
  }
  q->jobs[q->n++] = j;
}

static void start(const options *o, lane *ln, job j) {
  ln->j = j;
  ln->sh->done = 0;
  ln->sh->set_up = 0;
  ln->sh->note[0] = 0;
  ln->sh->item = j.from;
  ln->sh->building = 0;
  ln->sh->heartbeat_ms = now_ms();
  fflush(stdout);
  fflush(stderr);
  ln->pid = fork();
  if (ln->pid < 0) {
    perror("fork");
    exit(1);
  }
  if (ln->pid == 0) {
    sh = ln->sh;
    md_stats_out = &sh->stats;
    run_job(o, &j);
    sh->done = 1;
    fflush(stdout);
    fflush(stderr);
    _exit(0);
  }
}

/* A child that died or hung: report it, and queue the rest of its job
 * (a corpus part that crashed while building is skipped). Returns 1. */
static int lost(const options *o, lane *ln, queue *q, int status) {
  shared *s = ln->sh;
  if (!s->set_up)
    return 1; /* no kernel to blame: platform_lost reports it */
  if (status < 0)
    fprintf(stderr, "HANG (no progress for %d s) while %s\n", o->timeout_s,
            s->note);
  else if (WIFSIGNALED(status))
    fprintf(stderr, "CRASH (signal %d) while %s\n", WTERMSIG(status), s->note);
  else
    fprintf(stderr, "CHILD EXITED (status %d) while %s\n",
            WIFEXITED(status) ? WEXITSTATUS(status) : -1, s->note);
  describe(o, &ln->j, s->item);
  int corpus_build = ln->j.part >= 0 && s->building;
  if (!corpus_build && s->item + 1 < ln->j.to)
    push(q, (job){ln->j.part, s->item + 1, ln->j.to});
  return 1;
}

/* Polls a busy lane; returns the crashes and hangs it saw. */
static int poll_lane(const options *o, lane *ln, queue *q) {
  int status = 0;
  pid_t r = waitpid(ln->pid, &status, WNOHANG);
  if (r == 0) {
    if (now_ms() - ln->sh->heartbeat_ms <= o->timeout_s * 1000LL)
      return 0;
    kill(ln->pid, SIGKILL);
    waitpid(ln->pid, &status, 0);
    ln->pid = 0;
    return lost(o, ln, q, -1);
  }
  ln->pid = 0;
  if (r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && ln->sh->done)
    return 0;
  return lost(o, ln, q, status);
}

/* A child that could not even reach the platform: every other would
 * fail the same way (no ICD, a library being rebuilt), so the run stops. */
static int platform_lost(const lane *ln, queue *q) {
  if (ln->sh->set_up)
    return 0;
  fprintf(stderr, "a child found no Skein platform: stopping the run\n");
  q->next = q->n;
  return 1;
}

/* Runs the queue on o->jobs lanes. Returns the crashes and hangs. */
static int supervise(const options *o, queue *q, lane *lanes) {
  int crashes = 0;
  if (o->no_fork) {
    sh = lanes[0].sh;
    md_stats_out = &sh->stats;
    for (; q->next < q->n; q->next++)
      run_job(o, &q->jobs[q->next]);
    return 0;
  }
  for (;;) {
    int busy = 0;
    for (int i = 0; i < o->jobs; i++) {
      if (!lanes[i].pid && q->next < q->n)
        start(o, &lanes[i], q->jobs[q->next++]);
      busy += lanes[i].pid != 0;
    }
    if (!busy)
      return crashes;
    usleep(20000);
    for (int i = 0; i < o->jobs; i++)
      if (lanes[i].pid && poll_lane(o, &lanes[i], q)) {
        crashes++;
        platform_lost(&lanes[i], q);
      }
  }
}

static void make_jobs(const options *o, queue *q) {
  if (o->corpus)
    for (int p = 0; p < NPARTS; p++)
      push(q, (job){p, 0, parts[p]->nfamilies});
  if (o->generated)
    for (long i = 0; i < o->count; i += KERNELS_PER_JOB)
      push(q, (job){-1, (int)i,
                    (int)(i + KERNELS_PER_JOB < o->count ? i + KERNELS_PER_JOB
                                                         : o->count)});
}

/* ---- options and summary ---- */

static unsigned long long env_number(const char *name,
                                     unsigned long long dflt) {
  const char *v = getenv(name);
  return v && *v ? strtoull(v, NULL, 0) : dflt;
}

static void parse(int argc, char **argv, options *o) {
  int seed_set = 0, count_set = 0, only = 0;
  memset(o, 0, sizeof *o);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  o->jobs =
      (int)env_number("SKEIN_DIFF_JOBS", cpus > 1 ? (cpus > 8 ? 8 : cpus) : 1);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--fuzz") == 0) {
      o->fuzz = o->generated = only = 1;
    } else if (strcmp(a, "--corpus") == 0) {
      o->corpus = only = 1;
    } else if (strcmp(a, "--generated") == 0) {
      o->generated = only = 1;
    } else if (strcmp(a, "--no-fork") == 0) {
      o->no_fork = 1;
    } else if (strcmp(a, "--only") == 0 && val) {
      o->only = val, i++;
    } else if (strcmp(a, "--seed") == 0 && val) {
      o->seed = strtoull(val, NULL, 0), seed_set = 1, i++;
    } else if (strcmp(a, "--count") == 0 && val) {
      o->count = strtol(val, NULL, 0), count_set = 1, i++;
    } else if (strcmp(a, "--jobs") == 0 && val) {
      o->jobs = atoi(val), i++;
    } else if (strcmp(a, "--print") == 0 && val) {
      print_kernel(strtoull(val, NULL, 0));
      exit(0);
    } else {
      fprintf(stderr,
              "unknown argument %s (see the top of "
              "tests/test-modes-diff.c)\n",
              a);
      exit(2);
    }
  }
  if (!only)
    o->corpus = o->generated = 1;
  if (!seed_set)
    o->seed = env_number("SKEIN_FUZZ_SEED",
                         o->fuzz ? (unsigned long long)time(NULL) * 1000 : 1);
  if (!count_set)
    o->count = (long)env_number("SKEIN_FUZZ_COUNT", o->fuzz ? 5000 : 250);
  if (o->jobs < 1)
    o->jobs = 1;
  o->timeout_s = (int)env_number("SKEIN_DIFF_TIMEOUT", 300);
}

/* The lanes' counts added up. */
static void total(const lane *lanes, int n, shared *t) {
  memset(t, 0, sizeof *t);
  for (int i = 0; i < n; i++) {
    const shared *s = lanes[i].sh;
    t->stats.launches += s->stats.launches;
    t->stats.unchanged += s->stats.unchanged;
    for (int m = 0; m < MD_NMODES; m++) {
      t->stats.compared[m] += s->stats.compared[m];
      t->stats.build_s[m] += s->stats.build_s[m];
      t->stats.run_s[m] += s->stats.run_s[m];
    }
    t->stats.mismatches += s->stats.mismatches;
    t->stats.host_failures += s->stats.host_failures;
    t->stats.errors += s->stats.errors;
    for (int k = 0; k < 3; k++)
      t->stats.default_kernel_modes[k] += s->stats.default_kernel_modes[k];
    t->families_done += s->families_done;
    t->kernels_done += s->kernels_done;
    t->kernels_mismatched += s->kernels_mismatched;
  }
}

/* Prints the counts; returns 1 if the run failed or proved nothing. */
static int summary(const options *o, const shared *t, int crashes,
                   double seconds) {
  const md_stats *s = &t->stats;
  printf("modes-diff: %ld corpus families, %ld generated kernels",
         t->families_done, t->kernels_done);
  if (o->generated && o->count)
    printf(" (seeds 0x%llx..0x%llx)", o->seed,
           o->seed + (unsigned long long)(o->count - 1));
  printf(", %ld launches in %.1f s on %d lanes\n", s->launches, seconds,
         o->no_fork ? 1 : o->jobs);
  printf("  compared with fiber mode: default %ld, scalar %ld, loop %ld "
         "(%ld of them changed no buffer)\n",
         s->compared[MD_DEFAULT], s->compared[MD_SCALAR], s->compared[MD_LOOP],
         s->unchanged);
  printf("  the default build put kernels in loop mode %ld, region mode %ld, "
         "fiber mode %ld\n",
         s->default_kernel_modes[0], s->default_kernel_modes[1],
         s->default_kernel_modes[2]);
  printf("  seconds building (running) per mode:");
  for (int m = 0; m < MD_NMODES; m++)
    printf(" %s %.1f (%.1f)", md_mode_names[m], s->build_s[m], s->run_s[m]);
  printf("\n");
  printf("  mismatches %ld (in %ld generated kernels), host reference "
         "failures %ld, errors %ld, crashes or hangs %d\n",
         s->mismatches, t->kernels_mismatched, s->host_failures, s->errors,
         crashes);
  int failed = s->mismatches || s->host_failures || s->errors || crashes;
  if (s->launches == 0 || s->compared[MD_DEFAULT] <= s->unchanged) {
    fprintf(stderr, "nothing was compared\n");
    failed = 1;
  }
  if (s->default_kernel_modes[0] + s->default_kernel_modes[1] == 0) {
    fprintf(stderr, "no kernel ran in loop or region mode: the comparison "
                    "tested fiber mode against itself\n");
    failed = 1;
  }
  if (o->corpus && !o->only && t->families_done + crashes < corpus_size()) {
    fprintf(stderr, "only %ld of %d corpus families ran\n", t->families_done,
            corpus_size());
    failed = 1;
  }
  if (o->generated && t->kernels_done + crashes < o->count) {
    fprintf(stderr, "only %ld of %ld generated kernels were compared\n",
            t->kernels_done, o->count);
    failed = 1;
  }
  return failed;
}

int main(int argc, char **argv) {
  options o;
  parse(argc, argv, &o);
  shared *mem = mmap(NULL, (size_t)o.jobs * sizeof *mem, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  memset(mem, 0, (size_t)o.jobs * sizeof *mem);
  lane *lanes = calloc((size_t)o.jobs, sizeof *lanes);
  for (int i = 0; i < o.jobs; i++)
    lanes[i].sh = &mem[i];
  md_note_hook = note_hook;
  if (o.generated)
    printf("generated kernels: %ld from seed 0x%llx\n", o.count, o.seed);
  long long t0 = now_ms();
  queue q = {0};
  make_jobs(&o, &q);
  int crashes = supervise(&o, &q, lanes);
  shared t;
  total(lanes, o.jobs, &t);
  int failed = summary(&o, &t, crashes, (double)(now_ms() - t0) / 1000);
  free(q.jobs);
  free(lanes);
  munmap(mem, (size_t)o.jobs * sizeof *mem);
  return failed;
}
