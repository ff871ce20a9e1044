/* This file contains the stress test's operations besides the command
 * sequences (stress_seq.c): chains of callbacks that enqueue more work
 * from inside the callback, user events set to an error (the commands
 * that wait for them must fail and the rest must not notice), programs
 * built and released while their kernels run, queues replaced while
 * their commands are in flight, and clFinish/clFlush on queues other
 * threads are using. Each checks its results. */
#include "stress.h"
#include <stdlib.h>
#include <string.h>

/* Waits for ev on this thread; returns its final status. */
static cl_int event_status(cl_event ev) {
  cl_int st = 1;
  clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
  return st;
}

/* Compares n words; reports the first difference. */
static void check_words(worker *w, const char *what, const uint32_t *got,
                        const uint32_t *want, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (got[i] != want[i]) {
      stress_fail(w, "%s: word %zu of %zu is 0x%08x, expected 0x%08x", what,
                  i, n, got[i], want[i]);
      return;
    }
}

static cl_mem make_buffer(worker *w, cl_mem_flags flags, size_t size,
                          void *host, const char *what) {
  cl_int err;
  cl_mem m = clCreateBuffer(G.env.context, flags, size, host, &err);
  if (err != CL_SUCCESS) {
    stress_fail(w, "%s: clCreateBuffer returned %d", what, err);
    return NULL;
  }
  return m;
}

/* ---- callbacks that enqueue ---- */

/* A chain: the first kernel's completion callback enqueues the add
 * kernel, whose callback enqueues the next stage, and so on; the last
 * stage enqueues the read. Every enqueue is non-blocking, made from
 * whichever thread completed the previous command. */
typedef struct chain {
  _Atomic int refs;            /* the owner's and each pending callback's */
  const worker *w;             /* for reports only */
  cl_command_queue q;          /* retained: the callbacks enqueue here */
  cl_kernel k;                 /* the chain's own add kernel */
  cl_mem buf;                  /* retained */
  size_t n;
  unsigned stages, next_stage; /* touched by one callback at a time */
  uint32_t adds[3];
  uint32_t *out;
  _Atomic(cl_event) read_ev;
  _Atomic int state;           /* 0 running, 1 read enqueued, 2 failed */
} chain;

static void chain_unref(chain *c) {
  if (atomic_fetch_sub(&c->refs, 1) == 1) {
    free(c->out);
    free(c);
  }
}

/* The chain's objects go while its last commands are in flight. */
static void chain_end(chain *c, int state) {
  clReleaseKernel(c->k);
  clReleaseMemObject(c->buf);
  clReleaseCommandQueue(c->q);
  atomic_store(&c->state, state);
}

static void CL_CALLBACK chain_stage(cl_event ev, cl_int status, void *data);

/* Enqueues the next add stage and hands it the chain. */
static void chain_next(chain *c) {
  uint32_t v = c->adds[c->next_stage++];
  cl_event e;
  cl_int err = clSetKernelArg(c->k, 1, sizeof v, &v);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(c->q, c->k, 1, NULL, &c->n, NULL, 0, NULL,
                                 &e);
  if (err != CL_SUCCESS) {
    stress_fail(c->w, "callback chain: enqueue in a callback returned %d",
                err);
    chain_end(c, 2);
    return;
  }
  atomic_fetch_add(&c->refs, 1);
  atomic_fetch_add(&G.cb_registered, 1);
  err = clSetEventCallback(e, CL_COMPLETE, chain_stage, c);
  if (err != CL_SUCCESS) {
    atomic_fetch_sub(&G.cb_registered, 1);
    atomic_fetch_sub(&c->refs, 1);
    stress_fail(c->w, "callback chain: clSetEventCallback in a callback "
                "returned %d", err);
    chain_end(c, 2);
  }
  clReleaseEvent(e); /* in flight, or complete and its callback run */
}

static void CL_CALLBACK chain_stage(cl_event ev, cl_int status, void *data) {
  (void)ev;
  chain *c = data;
  atomic_fetch_add(&G.cb_fired, 1);
  if (status != CL_COMPLETE) {
    stress_fail(c->w, "callback chain: stage called with status %d", status);
    chain_end(c, 2);
  } else if (c->next_stage < c->stages) {
    chain_next(c);
  } else {
    cl_event r;
    cl_int err = clEnqueueReadBuffer(c->q, c->buf, CL_FALSE, 0,
                                     c->n * sizeof *c->out, c->out, 0, NULL,
                                     &r);
    if (err != CL_SUCCESS) {
      stress_fail(c->w, "callback chain: read in a callback returned %d", err);
      chain_end(c, 2);
    } else {
      atomic_store(&c->read_ev, r);
      chain_end(c, 1);
    }
  }
  chain_unref(c);
}

/* Creates the chain's objects; false (reported) on failure. */
static bool chain_setup(worker *w, chain *c, const uint32_t *in,
                        cl_mem *min) {
  cl_int err;
  c->q = pick_queue(w)->q;
  clRetainCommandQueue(c->q);
  c->buf = make_buffer(w, CL_MEM_READ_WRITE, c->n * 4, NULL, "callback chain");
  *min = make_buffer(w, CL_MEM_COPY_HOST_PTR, c->n * 4, (void *)in,
                     "callback chain");
  c->k = clCreateKernel(G.progs[chance(w, 30) ? P_FIBER : P_DEFAULT], "add",
                        &err);
  if (!c->buf || !*min || err != CL_SUCCESS ||
      clSetKernelArg(c->k, 0, sizeof c->buf, &c->buf) != CL_SUCCESS) {
    stress_fail(w, "callback chain: set-up failed (%d)", err);
    if (c->buf)
      clReleaseMemObject(c->buf);
    if (*min)
      clReleaseMemObject(*min);
    if (err == CL_SUCCESS)
      clReleaseKernel(c->k);
    clReleaseCommandQueue(c->q);
    return false;
  }
  return true;
}

/* Enqueues the chain's first kernel (out = in * m + c0, gated by a user
 * event half the time); returns its event or NULL. */
static cl_event chain_start(worker *w, chain *c, cl_mem min, uint32_t m,
                            uint32_t c0, cl_event *gate) {
  cl_kernel ka = w->kernels[chance(w, 30) ? P_FIBER : P_DEFAULT][K_AFFINE];
  cl_int err = clSetKernelArg(ka, 0, sizeof min, &min);
  err |= clSetKernelArg(ka, 1, sizeof c->buf, &c->buf);
  err |= clSetKernelArg(ka, 2, sizeof m, &m);
  err |= clSetKernelArg(ka, 3, sizeof c0, &c0);
  *gate = NULL;
  if (chance(w, 50))
    *gate = clCreateUserEvent(G.env.context, &err);
  cl_event e1 = NULL;
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(pick_queue(w)->q, ka, 1, NULL, &c->n, NULL,
                                 *gate ? 1 : 0, *gate ? gate : NULL, &e1);
  if (err != CL_SUCCESS) {
    stress_fail(w, "callback chain: first enqueue failed (%d)", err);
    return NULL;
  }
  return e1;
}

void op_callback_chain(worker *w) {
  stress_at(&w->prog, "callback chain: set-up");
  chain *c = calloc(1, sizeof *c);
  atomic_init(&c->refs, 1);
  c->w = w;
  c->n = rnd_range(w, 1, stress_size(4096));
  c->stages = (unsigned)rnd_range(w, 1, 3);
  uint32_t m = (uint32_t)rnd(w), c0 = (uint32_t)rnd(w), sum = 0;
  for (unsigned i = 0; i < c->stages; i++)
    sum += c->adds[i] = (uint32_t)rnd(w);
  c->out = malloc(c->n * sizeof *c->out);
  uint32_t *in = malloc(c->n * sizeof *in), *want = malloc(c->n * sizeof *in);
  rnd_bytes(w, in, c->n * sizeof *in);
  for (size_t i = 0; i < c->n; i++)
    want[i] = in[i] * m + c0 + sum;
  cl_mem min;
  if (!chain_setup(w, c, in, &min)) {
    chain_unref(c);
    free(in);
    free(want);
    return;
  }
  cl_event gate, e1 = chain_start(w, c, min, m, c0, &gate);
  clReleaseMemObject(min); /* in flight */
  cb_count counts[4];
  unsigned ncounts = 0;
  static const cl_int triggers[] = {CL_SUBMITTED, CL_RUNNING, CL_COMPLETE};
  if (e1) {
    for (int i = 0; i < 3; i++)
      if (chance(w, 40) && cb_register(w, e1, triggers[i], &counts[ncounts]))
        ncounts++;
    atomic_fetch_add(&c->refs, 1);
    atomic_fetch_add(&G.cb_registered, 1);
    cl_int err = clSetEventCallback(e1, CL_COMPLETE, chain_stage, c);
    if (err != CL_SUCCESS) {
      atomic_fetch_sub(&G.cb_registered, 1);
      atomic_fetch_sub(&c->refs, 1);
      stress_fail(w, "callback chain: clSetEventCallback returned %d", err);
      chain_end(c, 2);
    }
  } else {
    chain_end(c, 2);
  }
  if (gate) { /* released from another thread, or from this one */
    if (chance(w, 60))
      setter_post(gate, CL_COMPLETE, (unsigned)rnd_below(w, 2000));
    else {
      clSetUserEventStatus(gate, CL_COMPLETE);
      clReleaseEvent(gate);
    }
  }
  if (e1 && chance(w, 50)) {
    stress_at(&w->prog, "callback chain: clWaitForEvents on the first kernel");
    if (clWaitForEvents(1, &e1) != CL_SUCCESS || event_status(e1) != CL_COMPLETE)
      stress_fail(w, "callback chain: the first kernel did not complete");
    /* A callback on a complete event is called too. */
    if (cb_register(w, e1, triggers[rnd_below(w, 3)], &counts[ncounts]))
      ncounts++;
  }
  for (unsigned i = 0; i < ncounts; i++)
    cb_await(w, &counts[i], false);
  stress_at(&w->prog, "callback chain: waiting for the callbacks to enqueue "
                      "the read");
  while (atomic_load(&c->state) == 0)
    stress_nap_us(20);
  if (atomic_load(&c->state) == 1) {
    cl_event r = atomic_load(&c->read_ev);
    stress_at(&w->prog, "callback chain: clWaitForEvents on the read");
    if (clWaitForEvents(1, &r) != CL_SUCCESS)
      stress_fail(w, "callback chain: the read failed");
    else
      check_words(w, "callback chain", c->out, want, c->n);
    clReleaseEvent(r);
  }
  if (e1)
    clReleaseEvent(e1);
  chain_unref(c);
  free(in);
  free(want);
}

/* ---- a user event set to an error ---- */

/* The commands of a failing gate on a queue of this operation only. */
typedef struct failing {
  cl_command_queue q;
  cl_mem a;
  cl_event u, e_w, e_k, e_r;
  uint32_t *d0, *d1, *got;
  size_t n;
} failing;

/* Enqueues a write gated by f->u, a kernel after it and a read after
 * that: none may run once u fails. */
static bool failing_enqueue(worker *w, failing *f) {
  cl_int err;
  stress_at(&w->prog, "failing gate: enqueueing");
  f->u = clCreateUserEvent(G.env.context, &err);
  if (err != CL_SUCCESS)
    return false;
  err = clEnqueueWriteBuffer(f->q, f->a, CL_FALSE, 0, f->n * 4, f->d1, 1,
                             &f->u, &f->e_w);
  if (err != CL_SUCCESS)
    return false;
  cl_kernel k = w->kernels[chance(w, 30) ? P_FIBER : P_DEFAULT][K_ADD];
  uint32_t v = 1;
  err = clSetKernelArg(k, 0, sizeof f->a, &f->a);
  err |= clSetKernelArg(k, 1, sizeof v, &v);
  if (err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(f->q, k, 1, NULL, &f->n, NULL, 1, &f->e_w,
                                 &f->e_k);
  if (err != CL_SUCCESS)
    return false;
  return clEnqueueReadBuffer(f->q, f->a, CL_FALSE, 0, f->n * 4, f->got, 1,
                             &f->e_k, &f->e_r) == CL_SUCCESS;
}

/* Checks that the failure reached every dependent and nothing else. */
static void failing_check(worker *w, failing *f, cl_int status) {
  stress_at(&w->prog, "failing gate: clWaitForEvents on a failed read");
  cl_int err = clWaitForEvents(1, &f->e_r);
  if (err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    stress_fail(w, "failing gate: clWaitForEvents returned %d", err);
  err = clWaitForEvents(1, &f->e_w);
  if (err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    stress_fail(w, "failing gate: clWaitForEvents (write) returned %d", err);
  if (event_status(f->u) != status || event_status(f->e_w) >= 0 ||
      event_status(f->e_k) >= 0 || event_status(f->e_r) >= 0)
    stress_fail(w, "failing gate: statuses %d %d %d %d (user event set to %d)",
                event_status(f->u), event_status(f->e_w),
                event_status(f->e_k), event_status(f->e_r), status);
  /* Nothing ran: the buffer still holds d0, read on another queue (an
   * in-order queue would tie the read to the failed ones). */
  stress_at(&w->prog, "failing gate: blocking read on another queue");
  uint32_t *now = malloc(f->n * 4);
  err = clEnqueueReadBuffer(pick_queue(w)->q, f->a, CL_TRUE, 0, f->n * 4, now,
                            0, NULL, NULL);
  if (err != CL_SUCCESS)
    stress_fail(w, "failing gate: independent read returned %d", err);
  else
    check_words(w, "failing gate (commands behind a failed event ran)", now,
                f->d0, f->n);
  free(now);
}

void op_failing_gate(worker *w) {
  failing f = {0};
  f.n = rnd_range(w, 1, stress_size(2048));
  f.d0 = malloc(f.n * 4);
  f.d1 = malloc(f.n * 4);
  f.got = malloc(f.n * 4);
  rnd_bytes(w, f.d0, f.n * 4);
  rnd_bytes(w, f.d1, f.n * 4);
  cl_queue_properties props[] = {
      CL_QUEUE_PROPERTIES,
      chance(w, 70) ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, 0};
  cl_int err;
  stress_at(&w->prog, "failing gate: set-up");
  f.q = clCreateCommandQueueWithProperties(G.env.context, G.env.device, props,
                                           &err);
  f.a = make_buffer(w, CL_MEM_COPY_HOST_PTR, f.n * 4, f.d0, "failing gate");
  cb_count cbs[2];
  cl_int status = -1 - (cl_int)rnd_below(w, 60);
  if (err != CL_SUCCESS || !f.a || !failing_enqueue(w, &f)) {
    stress_fail(w, "failing gate: set-up or enqueue failed");
    if (f.u) { /* let whatever was enqueued go */
      clSetUserEventStatus(f.u, status);
      clWaitForEvents(1, &f.u);
    }
  } else {
    bool cb0 = cb_register(w, f.e_k, CL_COMPLETE, &cbs[0]);
    bool cb1 = cb_register(w, f.e_w, CL_RUNNING, &cbs[1]);
    clReleaseCommandQueue(f.q); /* in flight, gated */
    f.q = NULL;
    clRetainEvent(f.u);
    setter_post(f.u, status, (unsigned)rnd_below(w, 2000));
    failing_check(w, &f, status);
    for (int i = 0; i < 2; i++)
      if (i == 0 ? cb0 : cb1) {
        cb_await(w, &cbs[i], true);
        if (atomic_load(&cbs[i].status) >= 0)
          stress_fail(w, "failing gate: a callback of a failed command got "
                      "status %d", atomic_load(&cbs[i].status));
      }
  }
  cl_event evs[] = {f.u, f.e_w, f.e_k, f.e_r};
  for (int i = 0; i < 4; i++)
    if (evs[i])
      clReleaseEvent(evs[i]);
  if (f.a)
    clReleaseMemObject(f.a);
  if (f.q)
    clReleaseCommandQueue(f.q);
  free(f.d0);
  free(f.d1);
  free(f.got);
}

/* ---- programs built and released while in use ---- */

static const char *const build_source =
    "kernel void scale(global uint *a, uint v) {\n"
    "  size_t i = get_global_id(0);\n"
    "  a[i] = a[i] * K + v;\n"
    "}\n"
    "kernel void swap_pairs(global uint *a) {\n"
    "  local uint t[64];\n"
    "  size_t l = get_local_id(0);\n"
    "  t[l] = a[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  a[get_global_id(0)] = t[l ^ 1];\n"
    "}\n";

/* Builds a program with a random constant; NULL (reported) on failure. */
static cl_program build_new(worker *w, uint32_t k) {
  cl_int err;
  const char *src = build_source;
  cl_program p = clCreateProgramWithSource(G.env.context, 1, &src, NULL, &err);
  if (err != CL_SUCCESS) {
    stress_fail(w, "build: clCreateProgramWithSource returned %d", err);
    return NULL;
  }
  char options[64];
  snprintf(options, sizeof options, "-DK=%uu -cl-std=CL3.0", k);
  stress_at(&w->prog, "build: clBuildProgram");
  err = clBuildProgram(p, 1, &G.env.device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    stress_fail(w, "build: clBuildProgram returned %d", err);
    clReleaseProgram(p);
    return NULL;
  }
  return p;
}

/* Runs a kernel of a new program, releasing program and kernel while it
 * runs; the code must stay until the command is done. */
static void build_run(worker *w, cl_program p, uint32_t kconst) {
  bool barrier = chance(w, 50);
  size_t n = barrier ? 64 * rnd_range(w, 1, stress_size(32))
                     : rnd_range(w, 1, stress_size(4096));
  size_t local = 64;
  uint32_t v = (uint32_t)rnd(w);
  uint32_t *data = malloc(n * 4), *want = malloc(n * 4), *got = malloc(n * 4);
  rnd_bytes(w, data, n * 4);
  for (size_t i = 0; i < n; i++)
    want[i] = barrier ? data[i ^ 1] : data[i] * kconst + v;
  cl_int err;
  cl_kernel k = clCreateKernel(p, barrier ? "swap_pairs" : "scale", &err);
  clReleaseProgram(p); /* the kernel keeps it */
  cl_mem a = make_buffer(w, CL_MEM_COPY_HOST_PTR, n * 4, data, "build");
  if (err != CL_SUCCESS || !a) {
    stress_fail(w, "build: clCreateKernel returned %d", err);
  } else {
    err = clSetKernelArg(k, 0, sizeof a, &a);
    if (!barrier)
      err |= clSetKernelArg(k, 1, sizeof v, &v);
    const squeue *q = pick_queue(w);
    cl_event e = NULL, r = NULL;
    if (err == CL_SUCCESS)
      err = clEnqueueNDRangeKernel(q->q, k, 1, NULL, &n,
                                   barrier ? &local : NULL, 0, NULL, &e);
    clReleaseKernel(k); /* in flight */
    k = NULL;
    if (err == CL_SUCCESS)
      err = clEnqueueReadBuffer(pick_queue(w)->q, a, CL_FALSE, 0, n * 4, got,
                                1, &e, &r);
    if (e)
      clReleaseEvent(e);
    stress_at(&w->prog, "build: waiting for the new program's kernel");
    if (err != CL_SUCCESS || clWaitForEvents(1, &r) != CL_SUCCESS)
      stress_fail(w, "build: running the new kernel failed (%d)", err);
    else
      check_words(w, "build", got, want, n);
    if (r)
      clReleaseEvent(r);
  }
  if (k)
    clReleaseKernel(k);
  if (a)
    clReleaseMemObject(a);
  free(data);
  free(want);
  free(got);
}

void op_build(worker *w) {
  /* Builds take long: at most two at a time, so threads keep enqueueing. */
  if (atomic_fetch_add(&G.builds_running, 1) >= 2) {
    atomic_fetch_sub(&G.builds_running, 1);
    return;
  }
  uint32_t k = (uint32_t)rnd(w);
  cl_program p = build_new(w, k);
  atomic_fetch_sub(&G.builds_running, 1);
  if (p)
    build_run(w, p, k);
}

/* ---- queues replaced while busy ---- */

void op_queue_churn(worker *w) {
  bool in_order = chance(w, 50);
  squeue *sq = in_order ? &w->own_in : &w->own_ooo;
  size_t n = rnd_range(w, 1, stress_size(8192));
  uint32_t pat = (uint32_t)rnd(w);
  uint32_t *got = malloc(n * 4), *want = malloc(n * 4);
  for (size_t i = 0; i < n; i++)
    want[i] = pat;
  cl_mem a = make_buffer(w, CL_MEM_READ_WRITE, n * 4, NULL, "queue churn");
  cl_int err;
  cl_event gate = chance(w, 50) ? clCreateUserEvent(G.env.context, &err) : NULL;
  cl_event f = NULL, r = NULL;
  stress_at(&w->prog, "queue churn: enqueueing on the old queue");
  err = a ? clEnqueueFillBuffer(sq->q, a, &pat, 4, 0, n * 4, gate ? 1 : 0,
                                gate ? &gate : NULL, &f)
          : CL_INVALID_MEM_OBJECT;
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer(sq->q, a, CL_FALSE, 0, n * 4, got, 1, &f, &r);
  /* The old queue goes with its commands in flight; a new one replaces
   * it. */
  clReleaseCommandQueue(sq->q);
  cl_int qerr;
  *sq = stress_queue(in_order, chance(w, 30), &qerr);
  if (qerr != CL_SUCCESS) {
    fprintf(stderr, "stress: cannot replace a queue (%d)\n", qerr);
    exit(1);
  }
  if (gate)
    setter_post(gate, CL_COMPLETE, (unsigned)rnd_below(w, 1000));
  if (a)
    clReleaseMemObject(a);
  stress_at(&w->prog, "queue churn: waiting for the released queue's read");
  if (err != CL_SUCCESS || clWaitForEvents(1, &r) != CL_SUCCESS)
    stress_fail(w, "queue churn: commands failed (%d)", err);
  else
    check_words(w, "queue churn", got, want, n);
  if (f)
    clReleaseEvent(f);
  if (r)
    clReleaseEvent(r);
  free(got);
  free(want);
}

/* ---- clFinish while another thread keeps the queue busy ---- */

/* The feeder keeps one command gated by a user event on q at all times:
 * it enqueues the next before it releases the previous one, until the
 * worker's clFinish has returned. */
typedef struct feeder {
  const worker *w;
  cl_command_queue q;
  _Atomic bool stop;
  _Atomic unsigned fed;
} feeder;

static void *feeder_main(void *arg) {
  feeder *f = arg;
  cl_event prev = NULL;
  while (!atomic_load(&f->stop) || !prev) {
    cl_int err;
    cl_event u = clCreateUserEvent(G.env.context, &err), m;
    if (err == CL_SUCCESS)
      err = clEnqueueMarkerWithWaitList(f->q, 1, &u, &m);
    if (err != CL_SUCCESS) {
      stress_fail(f->w, "finish while fed: the feeder's enqueue failed (%d)",
                  err);
      if (u) {
        clSetUserEventStatus(u, CL_COMPLETE);
        clReleaseEvent(u);
      }
      break;
    }
    clReleaseEvent(m);
    if (prev) {
      clSetUserEventStatus(prev, CL_COMPLETE);
      clReleaseEvent(prev);
    }
    prev = u;
    atomic_fetch_add(&f->fed, 1);
    stress_nap_us(50);
  }
  if (prev) {
    clSetUserEventStatus(prev, CL_COMPLETE);
    clReleaseEvent(prev);
  }
  return NULL;
}

/* clFinish waits for the commands enqueued before it, not for the queue
 * to be idle: with the feeder running, it must still return (it did not:
 * the watchdog catches that). */
void op_finish_fed(worker *w) {
  feeder f = {.w = w, .q = pick_queue(w)->q};
  atomic_init(&f.stop, false);
  atomic_init(&f.fed, 0);
  pthread_t thread;
  stress_at(&w->prog, "finish while fed: starting the feeder");
  if (pthread_create(&thread, NULL, feeder_main, &f) != 0)
    return;
  while (atomic_load(&f.fed) < 2) /* the queue is busy from here on */
    stress_nap_us(20);
  uint32_t word = (uint32_t)rnd(w), got = 0;
  cl_mem a = make_buffer(w, CL_MEM_READ_WRITE, 4, NULL, "finish while fed");
  cl_event e = NULL;
  if (a && clEnqueueWriteBuffer(f.q, a, CL_FALSE, 0, 4, &word, 0, NULL, &e) !=
               CL_SUCCESS)
    stress_fail(w, "finish while fed: write failed");
  stress_at(&w->prog, "finish while fed: clFinish on a queue kept busy");
  if (clFinish(f.q) != CL_SUCCESS)
    stress_fail(w, "finish while fed: clFinish failed");
  if (e && event_status(e) != CL_COMPLETE)
    stress_fail(w, "finish while fed: a write enqueued before clFinish has "
                "status %d after it", event_status(e));
  atomic_store(&f.stop, true);
  pthread_join(thread, NULL);
  if (e &&
      (clEnqueueReadBuffer(f.q, a, CL_TRUE, 0, 4, &got, 0, NULL, NULL) !=
           CL_SUCCESS ||
       got != word))
    stress_fail(w, "finish while fed: read back 0x%08x, wrote 0x%08x", got,
                word);
  if (e)
    clReleaseEvent(e);
  if (a)
    clReleaseMemObject(a);
}

/* ---- clFinish and clFlush on busy queues ---- */

void op_finish(worker *w) {
  size_t r = rnd_below(w, 10);
  const squeue *q = &G.shared[rnd_below(w, STRESS_MAX_SHARED)];
  cl_int err = CL_SUCCESS;
  if (r < 5) {
    stress_at(&w->prog, "finish: clFinish on a shared queue");
    err = clFinish(q->q);
  } else if (r < 7) {
    stress_at(&w->prog, "finish: clFlush on a shared queue");
    err = clFlush(q->q);
  } else if (r < 9) {
    stress_at(&w->prog, "finish: clFinish on an own queue");
    err = clFinish(chance(w, 50) ? w->own_in.q : w->own_ooo.q);
  } else {
    for (int i = 0; i < STRESS_MAX_SHARED && err == CL_SUCCESS; i++) {
      stress_at(&w->prog, "finish: clFinish on every shared queue");
      err = clFinish(G.shared[i].q);
    }
  }
  if (err != CL_SUCCESS)
    stress_fail(w, "finish: returned %d", err);
}
