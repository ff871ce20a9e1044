/* This file contains skein-bench-launch: it measures what one kernel launch
 * costs on the first device of the first platform the ICD loader finds
 * (OCL_ICD_VENDORS chooses the driver), and the set-up calls before it.
 * It prints one table whose rows are "| metric | value | unit |": (a) the
 * enqueue+clFinish round trip, (b) a chain of 100 launches, (c) the
 * profiled QUEUED->START latency, (d) enqueue+clWaitForEvents, (e) two
 * independent launches on an out-of-order queue, (f) QUEUED->START of a
 * launch the host does not wait for at once. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *source = "__kernel void empty(void) {}\n";

/* The sample sizes; -n N scales the latency samples down for quick runs. */
static int n_latency = 10000;
static int n_warmup = 1000;
enum { CHAIN = 100 };

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts v in place and returns its p-th percentile (nearest rank). */
static double percentile(double *v, int n, double p) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  int i = (int)(p / 100.0 * n + 0.5) - 1;
  if (i < 0)
    i = 0;
  if (i >= n)
    i = n - 1;
  return v[i];
}

static void row(const char *metric, double value, const char *unit) {
  printf("| %-44s | %12.2f | %-9s |\n", metric, value, unit);
  fflush(stdout);
}

static void missing(const char *metric, const char *why) {
  printf("| %-44s | %12s | %-9s |\n", metric, "n/a", why);
  fflush(stdout);
}

static void header(void) {
  printf("| %-44s | %12s | %-9s |\n", "metric", "value", "unit");
  printf("|%.46s|%.14s|%.11s|\n", "----------------------------------------------",
         "--------------", "-----------");
}

/* Reports a failed call and returns the exit status for "driver failed". */
static int fail(const char *what, cl_int err) {
  fprintf(stderr, "skein-bench-launch: %s failed (%d)\n", what, err);
  printf("| %-44s | %12s | %-9s |\n", what, "FAILED", "");
  return 2;
}

/* The objects every measurement shares. */
typedef struct bench {
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;      /* in order, no profiling */
  cl_command_queue q_prof; /* in order, profiling enabled */
  cl_command_queue q_ooo;  /* out of order, or NULL if unsupported */
  cl_kernel k;
} bench;

static cl_command_queue make_queue(bench *b, cl_command_queue_properties p,
                                   cl_int *err) {
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, p, 0};
  cl_command_queue q =
      clCreateCommandQueueWithProperties(b->ctx, b->dev, p ? props : NULL, err);
  if (*err == CL_SUCCESS)
    return q;
  /* A 1.2 platform has only the deprecated creator. */
  return clCreateCommandQueue(b->ctx, b->dev, p, err);
}

static cl_int launch(bench *b, cl_command_queue q, cl_event *ev) {
  size_t global = 1;
  return clEnqueueNDRangeKernel(q, b->k, 1, NULL, &global, NULL, 0, NULL, ev);
}

/* (a) enqueue one work-item, clFinish: the round trip a host sees. */
static int bench_round_trip(bench *b) {
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < n_warmup && !err; i++)
    if (!(err = launch(b, b->q, NULL)))
      err = clFinish(b->q);
  if (err)
    return fail("warm-up enqueue/clFinish", err);
  double *t = malloc((size_t)n_latency * sizeof *t);
  for (int i = 0; i < n_latency && !err; i++) {
    double t0 = now_us();
    if (!(err = launch(b, b->q, NULL)))
      err = clFinish(b->q);
    t[i] = now_us() - t0;
  }
  if (err) {
    free(t);
    return fail("enqueue/clFinish", err);
  }
  row("a: enqueue+clFinish, 1 work-item, min", percentile(t, n_latency, 0), "us");
  row("a: enqueue+clFinish, 1 work-item, median", percentile(t, n_latency, 50),
      "us");
  row("a: enqueue+clFinish, 1 work-item, p90", percentile(t, n_latency, 90), "us");
  free(t);
  return 0;
}

/* (b) CHAIN launches in flight on an in-order queue, then clFinish. */
static int bench_chain(bench *b) {
  int reps = n_latency / CHAIN < 10 ? 10 : n_latency / CHAIN;
  double *t = malloc((size_t)reps * sizeof *t), total = 0;
  cl_int err = CL_SUCCESS;
  for (int r = -2; r < reps && !err; r++) { /* two warm-up chains */
    double t0 = now_us();
    for (int i = 0; i < CHAIN && !err; i++)
      err = launch(b, b->q, NULL);
    if (!err)
      err = clFinish(b->q);
    if (r >= 0) {
      t[r] = (now_us() - t0) / CHAIN;
      total += t[r] * CHAIN;
    }
  }
  if (err) {
    free(t);
    return fail("chain of 100 launches", err);
  }
  row("b: chain of 100, per kernel, median", percentile(t, reps, 50), "us");
  row("b: chain of 100, per kernel, p90", percentile(t, reps, 90), "us");
  row("b: chain of 100, throughput", reps * CHAIN / (total / 1e6), "kernels/s");
  free(t);
  return 0;
}

static cl_int event_times(cl_event ev, cl_ulong t[4]) {
  static const cl_profiling_info what[4] = {
      CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
      CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < 4 && !err; i++)
    err = clGetEventProfilingInfo(ev, what[i], sizeof t[i], &t[i], NULL);
  return err;
}

/* (c) clpeak's kernel latency: QUEUED -> START from the event's profile. */
static int bench_profiled(bench *b) {
  int n = n_latency / 10 < 100 ? 100 : n_latency / 10;
  double *qs = malloc((size_t)n * sizeof *qs), *se = malloc((size_t)n * sizeof *se);
  cl_int err = CL_SUCCESS;
  for (int i = -n_warmup / 10; i < n && !err; i++) {
    cl_event ev = NULL;
    cl_ulong t[4] = {0};
    if (!(err = launch(b, b->q_prof, &ev)) && !(err = clFinish(b->q_prof)))
      err = event_times(ev, t);
    if (ev)
      clReleaseEvent(ev);
    if (i >= 0 && !err) {
      qs[i] = (double)(t[2] - t[0]) / 1e3;
      se[i] = (double)(t[3] - t[2]) / 1e3;
    }
  }
  if (err) {
    free(qs);
    free(se);
    return fail("profiled launch", err);
  }
  row("c: QUEUED->START (clpeak latency), median", percentile(qs, n, 50), "us");
  row("c: QUEUED->START, p90", percentile(qs, n, 90), "us");
  row("c: START->END, median", percentile(se, n, 50), "us");
  free(qs);
  free(se);
  return 0;
}

/* Times `samples` rounds of fn after n_warmup untimed ones; prints the
 * median and min under the given row names. */
static int time_rounds(bench *b, cl_int (*fn)(bench *), const char *what,
                       const char *median_row, const char *min_row) {
  cl_int err = CL_SUCCESS;
  for (int i = 0; i < n_warmup && !err; i++)
    err = fn(b);
  double *t = malloc((size_t)n_latency * sizeof *t);
  for (int i = 0; i < n_latency && !err; i++) {
    double t0 = now_us();
    err = fn(b);
    t[i] = now_us() - t0;
  }
  if (err) {
    free(t);
    return fail(what, err);
  }
  row(min_row, percentile(t, n_latency, 0), "us");
  row(median_row, percentile(t, n_latency, 50), "us");
  free(t);
  return 0;
}

/* (d) enqueue with an event, clWaitForEvents on it, release it. */
static cl_int round_wait(bench *b) {
  cl_event ev = NULL;
  cl_int err = launch(b, b->q, &ev);
  if (!err)
    err = clWaitForEvents(1, &ev);
  if (ev)
    clReleaseEvent(ev);
  return err;
}

/* (e) two independent launches on an out-of-order queue, clFinish. */
static cl_int round_ooo(bench *b) {
  cl_int err = launch(b, b->q_ooo, NULL);
  if (!err)
    err = launch(b, b->q_ooo, NULL);
  if (!err)
    err = clFinish(b->q_ooo);
  return err;
}

/* (f) QUEUED -> START when the host works for 1 ms after the enqueue
 * (no clFlush) before it waits: how soon a driver starts a command
 * nobody waits for yet. */
static int bench_async_start(bench *b) {
  int n = n_latency / 50 < 100 ? 100 : n_latency / 50;
  double *qs = malloc((size_t)n * sizeof *qs);
  cl_int err = CL_SUCCESS;
  for (int i = -10; i < n && !err; i++) {
    cl_event ev = NULL;
    cl_ulong t[4] = {0};
    err = launch(b, b->q_prof, &ev);
    for (double t0 = now_us(); !err && now_us() - t0 < 1000;)
      ; /* host work */
    if (!err && !(err = clFinish(b->q_prof)))
      err = event_times(ev, t);
    if (ev)
      clReleaseEvent(ev);
    if (i >= 0 && !err)
      qs[i] = (double)(t[2] - t[0]) / 1e3;
  }
  if (err) {
    free(qs);
    return fail("launch with host work", err);
  }
  row("f: QUEUED->START, 1 ms host work, median", percentile(qs, n, 50),
      "us");
  row("f: QUEUED->START, 1 ms host work, p90", percentile(qs, n, 90), "us");
  free(qs);
  return 0;
}

static int bench_wait_and_ooo(bench *b) {
  int rc = time_rounds(b, round_wait, "enqueue/clWaitForEvents",
                       "d: enqueue+clWaitForEvents, median",
                       "d: enqueue+clWaitForEvents, min");
  if (rc)
    return rc;
  if (!b->q_ooo) {
    missing("e: out-of-order queue", "no OOO");
    return 0;
  }
  return time_rounds(b, round_ooo, "out-of-order launches",
                     "e: 2 launches+clFinish, out of order, median",
                     "e: 2 launches+clFinish, out of order, min");
}

/* Finds the device and times the set-up calls before the first launch. */
static int setup(bench *b) {
  cl_platform_id plat;
  cl_uint n = 0;
  double t0 = now_us();
  cl_int err = clGetPlatformIDs(1, &plat, &n);
  if (err || n == 0)
    return fail("clGetPlatformIDs", err ? err : CL_INVALID_PLATFORM);
  double t_plat = (now_us() - t0) / 1e3;
  if ((err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &b->dev, NULL)))
    return fail("clGetDeviceIDs", err);
  char pname[128] = "", dname[256] = "", pver[128] = "";
  clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
  clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof pver, pver, NULL);
  clGetDeviceInfo(b->dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
  printf("platform: %s (%s)\ndevice: %s\n\n", pname, pver, dname);
  header();
  row("setup: clGetPlatformIDs (loads the ICDs)", t_plat, "ms");
  t0 = now_us();
  b->ctx = clCreateContext(NULL, 1, &b->dev, NULL, NULL, &err);
  if (err)
    return fail("clCreateContext", err);
  row("setup: clCreateContext", (now_us() - t0) / 1e3, "ms");
  b->q = make_queue(b, 0, &err);
  if (err)
    return fail("clCreateCommandQueue", err);
  b->q_prof = make_queue(b, CL_QUEUE_PROFILING_ENABLE, &err);
  if (err)
    return fail("clCreateCommandQueue (profiling)", err);
  b->q_ooo = make_queue(b, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  if (err)
    b->q_ooo = NULL; /* optional: row e reports n/a */
  return 0;
}

/* Builds the empty kernel; the first build may hit the driver's cache. */
static int build(bench *b) {
  cl_int err;
  double t0 = now_us();
  cl_program p = clCreateProgramWithSource(b->ctx, 1, &source, NULL, &err);
  if (err)
    return fail("clCreateProgramWithSource", err);
  if ((err = clBuildProgram(p, 1, &b->dev, "", NULL, NULL)))
    return fail("clBuildProgram", err);
  row("setup: build empty kernel (cache may hit)", (now_us() - t0) / 1e3, "ms");
  b->k = clCreateKernel(p, "empty", &err);
  clReleaseProgram(p);
  if (err)
    return fail("clCreateKernel", err);
  return 0;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-n") && i + 1 < argc) {
      n_latency = atoi(argv[++i]);
      n_warmup = n_latency / 10;
    } else {
      fprintf(stderr, "usage: %s [-n samples]   (default 10000)\n", argv[0]);
      return 1;
    }
  }
  if (n_latency < 100)
    n_latency = 100;
  bench b = {0};
  int rc = setup(&b);
  if (!rc)
    rc = build(&b);
  if (rc) {
    missing("a/b/c: kernel launches", "no kernel");
    return rc;
  }
  rc = bench_round_trip(&b);
  if (!rc)
    rc = bench_chain(&b);
  if (!rc)
    rc = bench_profiled(&b);
  if (!rc)
    rc = bench_wait_and_ooo(&b);
  if (!rc)
    rc = bench_async_start(&b);
  clReleaseKernel(b.k);
  if (b.q_ooo)
    clReleaseCommandQueue(b.q_ooo);
  clReleaseCommandQueue(b.q);
  clReleaseCommandQueue(b.q_prof);
  clReleaseContext(b.ctx);
  return rc;
}
