/* This file contains skein-bench-cpu-peak: the machine's own limits,
 * measured without OpenCL, that Skein's kernel figures are judged
 * against (issue 10): the FMA peak (GFLOPS, float and double) of a
 * hand-written loop in the widest vector ISA present, and a STREAM-style
 * read bandwidth (GB/s). Every core runs one pinned thread.
 *
 * Half arithmetic has two ceilings: with AVX-512 FP16, the FMA peak of
 * halves; without it, each half operation is a float FMA whose result
 * is rounded to half and widened again (F16C's vcvtps2ph and vcvtph2ps),
 * as Skein's code does (compiler/half_lower.c), so the ceiling is that
 * round trip's rate, which the conversions bound (issue 10 asks half to
 * reach 40 % of float; on the Zen 5 of 2026-11-26 this loop reached 27 %).
 *
 * usage: skein-bench-cpu-peak [-i avx512|avx2|sse] [-t THREADS]
 *   -i  the ISA to use (default: the widest the CPU has): so that an
 *       AVX-512 machine also gives the AVX2 peak that SKEIN_CPU=haswell
 *       code is measured against
 * Rows are "| metric | value | unit |", as skein-bench-peak prints. */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h" /* cmp_double */

/* Independent accumulators per thread: two FMA pipes of 4 cycles need 8
 * in flight; 12 leave margin for a 5-cycle FMA (Haswell) and fit in the
 * 16 registers of AVX2 with the two constants. */
enum { CHAINS = 12, INNER = 1000 };

typedef enum isa { ISA_SSE, ISA_AVX2, ISA_AVX512 } isa;
static const char *const isa_names[] = {"sse", "avx2", "avx512"};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One body per ISA and type: CHAINS accumulators, each a = a * m + c, for
 * iters * INNER steps. Returns the flops done (2 per lane per step); the
 * sum keeps the compiler from dropping the work. */
#define FMA_BODY(VT, SET1, FMA, ADD, LANES, STORE, ET)                    \
  VT acc[CHAINS];                                                         \
  for (int i = 0; i < CHAINS; i++)                                        \
    acc[i] = SET1((ET)(i + 1) * (ET)1e-3);                                \
  VT m = SET1((ET)0.999999), c = SET1((ET)1e-7);                           \
  for (long it = 0; it < iters; it++)                                     \
    for (int k = 0; k < INNER; k++) {                                     \
      /* unrolled, so the accumulators live in registers */               \
      _Pragma("GCC unroll 16") for (int i = 0; i < CHAINS; i++)           \
        acc[i] = FMA(acc[i], m, c);                                       \
    }                                                                     \
  VT s = acc[0];                                                          \
  for (int i = 1; i < CHAINS; i++)                                        \
    s = ADD(s, acc[i]);                                                   \
  ET out[LANES];                                                          \
  STORE(out, s);                                                          \
  *sink = (double)out[0];                                                 \
  return 2.0 * LANES * CHAINS * INNER * (double)iters;

__attribute__((target("avx512f"))) static double
fma512_f(long iters, double *sink) {
  FMA_BODY(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, 16,
           _mm512_storeu_ps, float)
}
__attribute__((target("avx512f"))) static double
fma512_d(long iters, double *sink) {
  FMA_BODY(__m512d, _mm512_set1_pd, _mm512_fmadd_pd, _mm512_add_pd, 8,
           _mm512_storeu_pd, double)
}
__attribute__((target("avx2,fma"))) static double
fma256_f(long iters, double *sink) {
  FMA_BODY(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, 8,
           _mm256_storeu_ps, float)
}
__attribute__((target("avx2,fma"))) static double
fma256_d(long iters, double *sink) {
  FMA_BODY(__m256d, _mm256_set1_pd, _mm256_fmadd_pd, _mm256_add_pd, 4,
           _mm256_storeu_pd, double)
}
/* SSE has no FMA: a multiply and an add count as its two flops. */
static inline __m128 sse_fma_ps(__m128 a, __m128 b, __m128 c) {
  return _mm_add_ps(_mm_mul_ps(a, b), c);
}
static inline __m128d sse_fma_pd(__m128d a, __m128d b, __m128d c) {
  return _mm_add_pd(_mm_mul_pd(a, b), c);
}
static double fma128_f(long iters, double *sink) {
  FMA_BODY(__m128, _mm_set1_ps, sse_fma_ps, _mm_add_ps, 4, _mm_storeu_ps,
           float)
}
static double fma128_d(long iters, double *sink) {
  FMA_BODY(__m128d, _mm_set1_pd, sse_fma_pd, _mm_add_pd, 2, _mm_storeu_pd,
           double)
}

/* Half through F16C: a float FMA, rounded to half and back per step
 * (so each step is one correctly rounded half operation of a chain). */
__attribute__((target("avx512f"))) static inline __m512
fma512_h_step(__m512 a, __m512 b, __m512 c) {
  return _mm512_cvtph_ps(
      _mm512_cvtps_ph(_mm512_fmadd_ps(a, b, c), _MM_FROUND_TO_NEAREST_INT));
}
__attribute__((target("avx2,fma,f16c"))) static inline __m256
fma256_h_step(__m256 a, __m256 b, __m256 c) {
  return _mm256_cvtph_ps(
      _mm256_cvtps_ph(_mm256_fmadd_ps(a, b, c), _MM_FROUND_TO_NEAREST_INT));
}
__attribute__((target("avx512f"))) static double
fma512_h(long iters, double *sink) {
  FMA_BODY(__m512, _mm512_set1_ps, fma512_h_step, _mm512_add_ps, 16,
           _mm512_storeu_ps, float)
}
__attribute__((target("avx2,fma,f16c"))) static double
fma256_h(long iters, double *sink) {
  FMA_BODY(__m256, _mm256_set1_ps, fma256_h_step, _mm256_add_ps, 8,
           _mm256_storeu_ps, float)
}

/* Half natively (AVX-512 FP16: 32 halves per register). */
__attribute__((target("avx512fp16,avx512f"))) static double
fma512_ph(long iters, double *sink) {
  FMA_BODY(__m512h, _mm512_set1_ph, _mm512_fmadd_ph, _mm512_add_ph, 32,
           _mm512_storeu_ph, _Float16)
}

typedef double (*fma_fn)(long, double *);
enum { FMA_FLOAT, FMA_DOUBLE, FMA_HALF_F16C, FMA_HALF_FP16, KINDS };
static const fma_fn fma_fns[3][KINDS] = {
    {fma128_f, fma128_d, NULL, NULL},
    {fma256_f, fma256_d, fma256_h, NULL},
    {fma512_f, fma512_d, fma512_h, fma512_ph}};

/* Summing reads of a thread's slice of the array, 256 bits at a time
 * (wider loads do not read memory faster). */
__attribute__((target("avx2"))) static double read_sum_avx(const float *p,
                                                           size_t n) {
  __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  for (size_t i = 0; i + 32 <= n; i += 32) {
    s0 = _mm256_add_ps(s0, _mm256_loadu_ps(p + i));
    s1 = _mm256_add_ps(s1, _mm256_loadu_ps(p + i + 8));
    s2 = _mm256_add_ps(s2, _mm256_loadu_ps(p + i + 16));
    s3 = _mm256_add_ps(s3, _mm256_loadu_ps(p + i + 24));
  }
  float out[8];
  _mm256_storeu_ps(out, _mm256_add_ps(_mm256_add_ps(s0, s1),
                                      _mm256_add_ps(s2, s3)));
  return out[0];
}
static double read_sum_sse(const float *p, size_t n) {
  __m128 s0 = _mm_setzero_ps(), s1 = s0;
  for (size_t i = 0; i + 8 <= n; i += 8) {
    s0 = _mm_add_ps(s0, _mm_loadu_ps(p + i));
    s1 = _mm_add_ps(s1, _mm_loadu_ps(p + i + 4));
  }
  float out[4];
  _mm_storeu_ps(out, _mm_add_ps(s0, s1));
  return out[0];
}

enum { READ = KINDS };

typedef struct job {
  int cpu;
  isa isa;
  int what;          /* an FMA_* kind, or READ */
  long iters;        /* FMA: outer iterations */
  const float *data; /* read: this thread's slice */
  size_t n;
  pthread_barrier_t *start;
  double work, sink;
  double t0, t1;     /* this thread's start and end */
} job;

static void *run_job(void *arg) {
  job *j = arg;
  if (j->cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(j->cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
  }
  pthread_barrier_wait(j->start);
  j->t0 = now_s();
  if (j->what != READ) {
    /* For a fixed time, in chunks of about a millisecond: every thread's
     * own rate counts, so a slower vCPU does not hold back the others
     * (the capacity a dynamic scheduler can use; PERFORMANCE.md). */
    j->work = 0;
    do
      j->work += fma_fns[j->isa][j->what](j->iters, &j->sink);
    while (now_s() - j->t0 < 0.25);
  } else {
    /* Passes over this thread's slice for the same fixed time: one pass
     * of 256 MiB took a few milliseconds on 16 cores, shorter than the
     * threads' start-up spread, and under-measured clpeak's own reads. */
    j->work = 0;
    do {
      j->sink += j->isa >= ISA_AVX2 ? read_sum_avx(j->data, j->n)
                                    : read_sum_sse(j->data, j->n);
      j->work += (double)j->n * sizeof(float);
    } while (now_s() - j->t0 < 0.25);
  }
  j->t1 = now_s();
  return NULL;
}

/* Runs what on every thread at once; returns work per second: the sum
 * of the threads' rates (for the reads too: every thread reads for the
 * same quarter of a second, so their rates add up to what memory gave
 * them together). */
static double run_all(int threads, isa isa, int what, long iters,
                      const float *data, size_t n) {
  pthread_t tid[threads];
  job jobs[threads];
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
  for (int t = 0; t < threads; t++) {
    size_t slice = n / (size_t)threads / 32 * 32;
    jobs[t] = (job){.cpu = t, .isa = isa, .what = what, .iters = iters,
                    .data = data ? data + (size_t)t * slice : NULL,
                    .n = slice, .start = &start};
    pthread_create(&tid[t], NULL, run_job, &jobs[t]);
  }
  pthread_barrier_wait(&start);
  double rate = 0;
  for (int t = 0; t < threads; t++) {
    pthread_join(tid[t], NULL);
    rate += jobs[t].work / (jobs[t].t1 - jobs[t].t0);
  }
  pthread_barrier_destroy(&start);
  return rate;
}


/* The median of five runs of a quarter of a second each (the FMA loops
 * in chunks of INNER * 64 steps, the reads in passes over each thread's
 * slice). */
static double median_rate(int threads, isa isa, int what, const float *data,
                          size_t n) {
  double r[5];
  for (int i = 0; i < 5; i++)
    r[i] = run_all(threads, isa, what, 64, data, n);
  qsort(r, 5, sizeof r[0], cmp_double);
  return r[2];
}

int main(int argc, char **argv) {
  __builtin_cpu_init();
  isa best = __builtin_cpu_supports("avx512f")                   ? ISA_AVX512
             : __builtin_cpu_supports("avx2") &&
                     __builtin_cpu_supports("fma")               ? ISA_AVX2
                                                                 : ISA_SSE;
  isa use = best;
  int threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
  int opt;
  while ((opt = getopt(argc, argv, "i:t:")) != -1) {
    if (opt == 'i') {
      for (int i = 0; i < 3; i++)
        if (strcmp(optarg, isa_names[i]) == 0)
          use = (isa)i;
      if (strcmp(optarg, isa_names[use]) != 0 || use > best) {
        fprintf(stderr, "cpu_peak: ISA %s unknown or not on this CPU\n",
                optarg);
        return 1;
      }
    } else if (opt == 't') {
      threads = atoi(optarg);
    } else {
      fprintf(stderr, "usage: %s [-i avx512|avx2|sse] [-t THREADS]\n",
              argv[0]);
      return 1;
    }
  }
  if (threads < 1)
    threads = 1;
  printf("| cpu peak ISA | %s | (%d threads) |\n", isa_names[use], threads);
  printf("| FMA peak float | %.1f | GFLOPS |\n",
         median_rate(threads, use, 0, NULL, 0) / 1e9);
  printf("| FMA peak double | %.1f | GFLOPS |\n",
         median_rate(threads, use, 1, NULL, 0) / 1e9);
  if (use >= ISA_AVX2 && __builtin_cpu_supports("f16c"))
    printf("| FMA peak half through F16C | %.1f | GFLOPS |\n",
           median_rate(threads, use, FMA_HALF_F16C, NULL, 0) / 1e9);
  if (use == ISA_AVX512 && __builtin_cpu_supports("avx512fp16"))
    printf("| FMA peak half (AVX-512 FP16) | %.1f | GFLOPS |\n",
           median_rate(threads, use, FMA_HALF_FP16, NULL, 0) / 1e9);
  /* 2 GiB: several times the last-level cache of any CPU met (the
   * Xeon's L3 held a 256 MiB array: 280 GB/s, from cache). */
  size_t n = ((size_t)2 << 30) / sizeof(float);
  float *data = malloc(n * sizeof(float));
  if (!data)
    return 1;
  for (size_t i = 0; i < n; i++)
    data[i] = (float)(i & 1023);
  printf("| read bandwidth | %.1f | GB/s |\n",
         median_rate(threads, use, READ, data, n) / 1e9);
  free(data);
  return 0;
}
