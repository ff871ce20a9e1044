/* This file contains the stress test's main operation: a random sequence
 * of commands over one or two buffers private to the sequence, each
 * command on a randomly chosen queue (the thread's own in-order and
 * out-of-order queues, the shared ones, or a short-lived queue of its
 * own) and ordered by event wait lists (or, sometimes, only by an
 * in-order queue). Commands: writes, reads, fills, copies, rectangle
 * transfers, maps and unmaps, loop-, region- and fiber-mode kernels,
 * markers and barriers, fork/join over disjoint sub-buffers, user events
 * that gate the next command (set from other threads), host waits of
 * every kind and callbacks.
 *
 * The host model: every buffer has a shadow copy, updated as each command
 * is enqueued (the wait lists make the device run them in that order);
 * reads and maps are compared with the shadow as it was when they were
 * enqueued, and the buffers are read back whole at the end. Events, fresh
 * kernel objects, sub-buffers, buffers and the short-lived queue are
 * released while their commands are still in flight. */
#include "stress.h"
#include <stdlib.h>
#include <string.h>

enum {
  MAX_BUFS = 2,
  MAX_LAST = 4,      /* events the next command waits for (fork/join) */
  MAX_CHECKS = 40,
  MAX_HOST = 64,
  MAX_SUBS = 40,
  MAX_CBS = 6,
  MAX_STEPS = 14,
};

typedef struct sbuf {
  cl_mem mem;               /* the buffer; NULL once released */
  size_t size;              /* bytes, a multiple of 4 */
  unsigned char *shadow;    /* what it holds after the commands so far */
  void *storage;            /* CL_MEM_USE_HOST_PTR memory, or NULL */
} sbuf;

/* The part of a buffer one command works on: the whole buffer, or a
 * sub-buffer at a 128-byte aligned origin (sub set). */
typedef struct view {
  unsigned buf;
  size_t off, len;
  cl_mem mem;
  bool sub;
} view;

/* A read whose result is compared at the end. */
typedef struct check {
  const unsigned char *got;
  const unsigned char *want;
  size_t len;
  unsigned step;
  const char *what;
} check;

typedef struct seq {
  worker *w;
  const squeue *queues[8];
  unsigned nq;
  squeue temp;              /* a queue of this sequence only, if q set */
  cl_event last[MAX_LAST];  /* what the next command waits for */
  unsigned nlast;
  const squeue *last_q;     /* the queue of last[0] when nlast == 1 */
  cl_event gate;            /* a user event the next command waits for */
  bool gate_posted;         /* already handed to the setter */
  sbuf b[MAX_BUFS];
  unsigned nb;
  check checks[MAX_CHECKS];
  unsigned nchecks;
  void *host[MAX_HOST];     /* host memory commands use; freed last */
  unsigned nhost;
  cl_mem subs[MAX_SUBS];    /* sub-buffers released at the end */
  unsigned nsubs;
  cb_count *cbs[MAX_CBS];
  unsigned ncbs;
  unsigned step;
  bool failed;              /* an API call failed: stop issuing */
} seq;

/* ---- bookkeeping ---- */

static bool ok(seq *s, cl_int err, const char *call) {
  if (err == CL_SUCCESS)
    return true;
  stress_fail(s->w, "sequence step %u: %s returned %d", s->step, call, err);
  s->failed = true;
  return false;
}

static void *seq_alloc(seq *s, size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "stress: out of memory\n");
    exit(1);
  }
  s->host[s->nhost++] = p;
  return p;
}

/* True if there is room for one more command of any kind. */
static bool room(const seq *s) {
  return s->nhost + 6 <= MAX_HOST && s->nchecks + 3 <= MAX_CHECKS &&
         s->nsubs + 6 <= MAX_SUBS;
}

static void add_check(seq *s, const unsigned char *got,
                      const unsigned char *want, size_t len,
                      const char *what) {
  s->checks[s->nchecks++] = (check){got, want, len, s->step, what};
}

static const squeue *seq_queue(seq *s) {
  return s->queues[rnd_below(s->w, s->nq)];
}

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

/* Checks that ev has completed (after a blocking call or a wait). */
static void expect_complete(seq *s, cl_event ev, const char *after) {
  cl_int st = 1;
  cl_int err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                              sizeof st, &st, NULL);
  if (err != CL_SUCCESS || st != CL_COMPLETE)
    stress_fail(s->w, "sequence step %u: after %s the event's status is %d "
                "(query %d)", s->step, after, st, err);
}

/* Sometimes checks what clGetEventInfo says about a new command. */
static void check_event_info(seq *s, const squeue *q, cl_event ev,
                             cl_command_type type) {
  if (!chance(s->w, 10))
    return;
  cl_command_queue eq = NULL;
  cl_command_type et = 0;
  cl_context ec = NULL;
  clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, NULL);
  clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof et, &et, NULL);
  clGetEventInfo(ev, CL_EVENT_CONTEXT, sizeof ec, &ec, NULL);
  if (eq != q->q || et != type || ec != G.env.context)
    stress_fail(s->w, "sequence step %u: event info queue %p/%p type "
                "0x%x/0x%x context %p/%p", s->step, (void *)eq,
                (void *)q->q, et, type, (void *)ec, (void *)G.env.context);
}

/* Gives up a reference to a command's event: released at once (the
 * command is usually still in flight), or handed to the board for other
 * threads to wait for. */
static void drop_event(seq *s, cl_event ev) {
  if (chance(s->w, 5))
    board_post(ev);
  else
    clReleaseEvent(ev);
}

/* Makes ev, a command enqueued on q, the one the next command waits for. */
static void advance(seq *s, const squeue *q, cl_event ev,
                    cl_command_type type) {
  s->w->commands++;
  check_event_info(s, q, ev, type);
  for (unsigned i = 0; i < s->nlast; i++)
    drop_event(s, s->last[i]);
  s->last[0] = ev;
  s->nlast = 1;
  s->last_q = q;
}

/* The wait list of the next command on q: the previous command(s) (left
 * out, at random, when it ran on the same in-order queue: the queue then
 * orders them) and the pending gate. */
static cl_uint seq_waits(seq *s, const squeue *q, cl_event *list) {
  cl_uint n = 0;
  bool implicit = s->nlast == 1 && s->last_q == q && q->in_order &&
                  chance(s->w, 50);
  if (!implicit)
    for (unsigned i = 0; i < s->nlast; i++)
      list[n++] = s->last[i];
  if (s->gate)
    list[n++] = s->gate;
  return n;
}

/* Before a command that waits for the gate: a command this thread will
 * wait for at once (blocking, or a map) needs the gate handed to the
 * setter first, else the wait could never end; others sometimes do too. */
static void gate_arm(seq *s, bool will_wait) {
  if (!s->gate || s->gate_posted || !(will_wait || chance(s->w, 50)))
    return;
  clRetainEvent(s->gate); /* the setter's reference */
  setter_post(s->gate, CL_COMPLETE, (unsigned)rnd_below(s->w, 1500));
  s->gate_posted = true;
}

/* After the command that waited for the gate (enqueued or not): the gate
 * is set, by this thread now or by the setter later, and dropped. */
static void gate_done(seq *s) {
  if (!s->gate)
    return;
  if (!s->gate_posted) {
    if (chance(s->w, 50)) {
      clRetainEvent(s->gate);
      setter_post(s->gate, CL_COMPLETE, (unsigned)rnd_below(s->w, 1500));
    } else {
      stress_at(&s->w->prog, "sequence: clSetUserEventStatus");
      cl_int err = clSetUserEventStatus(s->gate, CL_COMPLETE);
      if (err != CL_SUCCESS)
        stress_fail(s->w, "clSetUserEventStatus returned %d", err);
    }
  }
  clReleaseEvent(s->gate);
  s->gate = NULL;
  s->gate_posted = false;
}

/* Before a command on q: arms the gate (will_wait as for gate_arm),
 * fills list with the command's wait list and marks the step where.
 * Returns the list's length; gate_done follows the call. */
static cl_uint seq_prepare(seq *s, const squeue *q, bool will_wait,
                           cl_event *list, const char *where) {
  gate_arm(s, will_wait);
  cl_uint n = seq_waits(s, q, list);
  stress_at(&s->w->prog, where);
  return n;
}

/* ---- views and the shadow ---- */

static view whole(seq *s, unsigned b) {
  return (view){b, 0, s->b[b].size, s->b[b].mem, false};
}

/* A view of buffer b of at least min_len bytes (a multiple of 4): the
 * whole buffer, or a sub-buffer. */
static view pick_view_of(seq *s, unsigned b, size_t min_len) {
  worker *w = s->w;
  size_t size = s->b[b].size;
  if (size < min_len + 128 || !chance(w, 35))
    return whole(s, b);
  size_t origin = 128 * rnd_range(w, 0, (size - min_len) / 128);
  size_t len = rnd_range(w, min_len, size - origin) & ~(size_t)3;
  if (len < min_len)
    len = min_len;
  cl_buffer_region r = {origin, len};
  cl_int err;
  cl_mem m = clCreateSubBuffer(s->b[b].mem, chance(w, 50) ? CL_MEM_READ_WRITE : 0,
                               CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
  if (!ok(s, err, "clCreateSubBuffer"))
    return whole(s, b);
  return (view){b, origin, len, m, true};
}

static view pick_view(seq *s, size_t min_len) {
  return pick_view_of(s, (unsigned)rnd_below(s->w, s->nb), min_len);
}

/* A command has been enqueued on v: a sub-buffer is released now (in
 * flight) or kept for the end. */
static void view_done(seq *s, view *v) {
  if (!v->sub)
    return;
  if (chance(s->w, 50))
    clReleaseMemObject(v->mem);
  else
    s->subs[s->nsubs++] = v->mem;
  v->sub = false;
}

static unsigned char *sh(seq *s, const view *v, size_t off) {
  return s->b[v->buf].shadow + v->off + off;
}

static uint32_t get32(seq *s, const view *v, size_t i) {
  uint32_t x;
  memcpy(&x, sh(s, v, 4 * i), 4);
  return x;
}

static void put32(seq *s, const view *v, size_t i, uint32_t x) {
  memcpy(sh(s, v, 4 * i), &x, 4);
}

/* A random [*off, *off + *len) inside n bytes, sometimes all of it. */
static void pick_range(worker *w, size_t n, size_t *off, size_t *len) {
  if (chance(w, 20)) {
    *off = 0;
    *len = n;
    return;
  }
  *off = rnd_below(w, n);
  *len = rnd_range(w, 1, n - *off);
}

/* ---- transfers ---- */

static void cmd_write(seq *s) {
  worker *w = s->w;
  view v = pick_view(s, 4);
  size_t off, len;
  pick_range(w, v.len, &off, &len);
  unsigned char *src = seq_alloc(s, len);
  rnd_bytes(w, src, len);
  const squeue *q = seq_queue(s);
  bool blocking = chance(w, 20);
  cl_event wl[MAX_LAST + 1], ev;
  cl_uint n = seq_prepare(s, q, blocking, wl,
                          blocking ? "sequence: blocking clEnqueueWriteBuffer"
                                   : "sequence: clEnqueueWriteBuffer");
  cl_int err = clEnqueueWriteBuffer(q->q, v.mem, blocking, off, len, src, n,
                                    n ? wl : NULL, &ev);
  gate_done(s);
  if (ok(s, err, "clEnqueueWriteBuffer")) {
    if (blocking)
      expect_complete(s, ev, "a blocking write");
    memcpy(sh(s, &v, off), src, len);
    advance(s, q, ev, CL_COMMAND_WRITE_BUFFER);
  }
  view_done(s, &v);
}

static void cmd_read(seq *s) {
  worker *w = s->w;
  view v = pick_view(s, 4);
  size_t off, len;
  pick_range(w, v.len, &off, &len);
  unsigned char *got = seq_alloc(s, len), *want = seq_alloc(s, len);
  memcpy(want, sh(s, &v, off), len);
  const squeue *q = seq_queue(s);
  bool blocking = chance(w, 20);
  cl_event wl[MAX_LAST + 1], ev;
  cl_uint n = seq_prepare(s, q, blocking, wl,
                          blocking ? "sequence: blocking clEnqueueReadBuffer"
                                   : "sequence: clEnqueueReadBuffer");
  cl_int err = clEnqueueReadBuffer(q->q, v.mem, blocking, off, len, got, n,
                                   n ? wl : NULL, &ev);
  gate_done(s);
  if (ok(s, err, "clEnqueueReadBuffer")) {
    if (blocking)
      expect_complete(s, ev, "a blocking read");
    add_check(s, got, want, len, v.sub ? "read (sub-buffer)" : "read");
    advance(s, q, ev, CL_COMMAND_READ_BUFFER);
  }
  view_done(s, &v);
}

static void cmd_fill(seq *s) {
  worker *w = s->w;
  view v = pick_view(s, 4);
  size_t ps = (size_t)1 << rnd_below(w, 8); /* 1 .. 128 */
  while (ps > v.len)
    ps /= 2;
  size_t units = v.len / ps, first = rnd_below(w, units);
  size_t count = rnd_range(w, 1, units - first);
  unsigned char pattern[128], saved[128];
  rnd_bytes(w, pattern, ps);
  memcpy(saved, pattern, ps);
  const squeue *q = seq_queue(s);
  cl_event wl[MAX_LAST + 1], ev;
  cl_uint n = seq_prepare(s, q, false, wl, "sequence: clEnqueueFillBuffer");
  cl_int err = clEnqueueFillBuffer(q->q, v.mem, pattern, ps, first * ps,
                                   count * ps, n, n ? wl : NULL, &ev);
  gate_done(s);
  /* The pattern is copied at the call: reusing it must not matter. */
  memset(pattern, 0xcc, sizeof pattern);
  if (ok(s, err, "clEnqueueFillBuffer")) {
    unsigned char *p = sh(s, &v, first * ps);
    for (size_t i = 0; i < count; i++)
      memcpy(p + i * ps, saved, ps);
    advance(s, q, ev, CL_COMMAND_FILL_BUFFER);
  }
  view_done(s, &v);
}

static void cmd_copy(seq *s) {
  worker *w = s->w;
  unsigned bs = (unsigned)rnd_below(w, s->nb), bd = (unsigned)rnd_below(w, s->nb);
  view vs = pick_view_of(s, bs, 4), vd = pick_view_of(s, bd, 4);
  size_t len = rnd_range(w, 1, min_size(vs.len, vd.len));
  size_t so = rnd_below(w, vs.len - len + 1), dof = rnd_below(w, vd.len - len + 1);
  size_t a = vs.off + so, b = vd.off + dof;
  const squeue *q = seq_queue(s);
  if (bs == bd && a < b + len && b < a + len) {
    /* Overlapping regions of one buffer: the spec's error, and nothing
     * is enqueued. */
    stress_at(&w->prog, "sequence: overlapping clEnqueueCopyBuffer");
    cl_int err = clEnqueueCopyBuffer(q->q, vs.mem, vd.mem, so, dof, len, 0,
                                     NULL, NULL);
    if (err != CL_MEM_COPY_OVERLAP) {
      stress_fail(w, "sequence step %u: overlapping copy returned %d",
                  s->step, err);
      s->failed = true;
    }
  } else {
    cl_event wl[MAX_LAST + 1], ev;
    cl_uint n = seq_prepare(s, q, false, wl, "sequence: clEnqueueCopyBuffer");
    cl_int err = clEnqueueCopyBuffer(q->q, vs.mem, vd.mem, so, dof, len, n,
                                     n ? wl : NULL, &ev);
    gate_done(s);
    if (ok(s, err, "clEnqueueCopyBuffer")) {
      memmove(sh(s, &vd, dof), sh(s, &vs, so), len);
      advance(s, q, ev, CL_COMMAND_COPY_BUFFER);
    }
  }
  view_done(s, &vs);
  view_done(s, &vd);
}

/* A rectangle of rows of v: width wb bytes, h rows, row pitch rp, at
 * column x and row y; host rows hp apart. */
typedef struct rect {
  size_t wb, h, rp, x, y, hp;
} rect;

static rect pick_rect(worker *w, size_t len) {
  rect r;
  r.wb = rnd_range(w, 1, min_size(64, len));
  r.rp = rnd_range(w, r.wb, min_size(len, r.wb + 40));
  r.h = rnd_range(w, 1, min_size((len - r.wb) / r.rp + 1, 16));
  r.x = rnd_below(w, r.rp - r.wb + 1);
  if ((len - r.x - r.wb) / r.rp < r.h - 1)
    r.x = 0; /* (h - 1) * rp + wb <= len holds for x = 0 */
  r.y = rnd_range(w, 0, (len - r.x - r.wb) / r.rp - (r.h - 1));
  r.hp = r.wb + rnd_below(w, 17);
  return r;
}

static void cmd_rect(seq *s) {
  worker *w = s->w;
  view v = pick_view(s, 4);
  rect r = pick_rect(w, v.len);
  size_t host_len = (r.h - 1) * r.hp + r.wb;
  bool write = chance(w, 50);
  unsigned char *host = seq_alloc(s, host_len);
  unsigned char *want = write ? NULL : seq_alloc(s, host_len);
  if (write) {
    rnd_bytes(w, host, host_len);
  } else { /* the bytes between rows stay as they were */
    memset(host, 0x5a, host_len);
    memset(want, 0x5a, host_len);
    for (size_t i = 0; i < r.h; i++)
      memcpy(want + i * r.hp, sh(s, &v, (r.y + i) * r.rp + r.x), r.wb);
  }
  size_t borigin[3] = {r.x, r.y, 0}, horigin[3] = {0, 0, 0};
  size_t region[3] = {r.wb, r.h, 1};
  const squeue *q = seq_queue(s);
  bool blocking = chance(w, 20);
  cl_event wl[MAX_LAST + 1], ev;
  cl_uint n = seq_prepare(s, q, blocking, wl,
                          write ? "sequence: clEnqueueWriteBufferRect"
                                : "sequence: clEnqueueReadBufferRect");
  cl_int err =
      write ? clEnqueueWriteBufferRect(q->q, v.mem, blocking, borigin,
                                       horigin, region, r.rp, 0, r.hp, 0,
                                       host, n, n ? wl : NULL, &ev)
            : clEnqueueReadBufferRect(q->q, v.mem, blocking, borigin,
                                      horigin, region, r.rp, 0, r.hp, 0,
                                      host, n, n ? wl : NULL, &ev);
  gate_done(s);
  if (ok(s, err, write ? "clEnqueueWriteBufferRect"
                       : "clEnqueueReadBufferRect")) {
    if (write)
      for (size_t i = 0; i < r.h; i++)
        memcpy(sh(s, &v, (r.y + i) * r.rp + r.x), host + i * r.hp, r.wb);
    else
      add_check(s, host, want, host_len, "rectangle read");
    advance(s, q, ev, write ? CL_COMMAND_WRITE_BUFFER_RECT
                            : CL_COMMAND_READ_BUFFER_RECT);
  }
  view_done(s, &v);
}

/* Compares a mapped region with the shadow. */
static void check_mapped(seq *s, const unsigned char *p,
                         const unsigned char *want, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (p[i] != want[i]) {
      stress_fail(s->w, "sequence step %u: mapped byte %zu of %zu is %02x, "
                  "expected %02x", s->step, i, len, p[i], want[i]);
      return;
    }
}

/* Maps part of a view, checks and/or writes it on the host, unmaps it. */
static void cmd_map(seq *s) {
  worker *w = s->w;
  view v = pick_view(s, 4);
  size_t off, len;
  pick_range(w, v.len, &off, &len);
  static const cl_map_flags kinds[] = {CL_MAP_READ, CL_MAP_WRITE,
                                       CL_MAP_READ | CL_MAP_WRITE,
                                       CL_MAP_WRITE_INVALIDATE_REGION};
  cl_map_flags flags = kinds[rnd_below(w, 4)];
  bool blocking = chance(w, 50);
  const squeue *q = seq_queue(s);
  cl_event wl[MAX_LAST + 1], ev;
  /* This thread waits for the map right away. */
  cl_uint n = seq_prepare(s, q, true, wl, "sequence: clEnqueueMapBuffer");
  cl_int err;
  unsigned char *p = clEnqueueMapBuffer(q->q, v.mem, blocking, flags, off,
                                        len, n, n ? wl : NULL, &ev, &err);
  gate_done(s);
  if (!ok(s, err, "clEnqueueMapBuffer")) {
    view_done(s, &v);
    return;
  }
  advance(s, q, ev, CL_COMMAND_MAP_BUFFER);
  if (!blocking) {
    stress_at(&w->prog, "sequence: clWaitForEvents for a map");
    ok(s, clWaitForEvents(1, &ev), "clWaitForEvents (map)");
  }
  expect_complete(s, ev, "a map");
  void *storage = s->b[v.buf].storage;
  if (storage && p != (unsigned char *)storage + v.off + off)
    stress_fail(w, "sequence step %u: a CL_MEM_USE_HOST_PTR map returned "
                "%p, not the host pointer %p", s->step, (void *)p,
                (void *)((unsigned char *)storage + v.off + off));
  if (flags & CL_MAP_READ)
    check_mapped(s, p, sh(s, &v, off), len);
  if (flags & CL_MAP_WRITE_INVALIDATE_REGION) {
    rnd_bytes(w, p, len);
    memcpy(sh(s, &v, off), p, len);
  } else if (flags & CL_MAP_WRITE) {
    size_t a, l;
    pick_range(w, len, &a, &l);
    rnd_bytes(w, p + a, l);
    memcpy(sh(s, &v, off + a), p + a, l);
  }
  const squeue *q2 = seq_queue(s);
  n = seq_waits(s, q2, wl);
  stress_at(&w->prog, "sequence: clEnqueueUnmapMemObject");
  err = clEnqueueUnmapMemObject(q2->q, v.mem, p, n, n ? wl : NULL, &ev);
  if (ok(s, err, "clEnqueueUnmapMemObject"))
    advance(s, q2, ev, CL_COMMAND_UNMAP_MEM_OBJECT);
  view_done(s, &v);
}

/* ---- kernels ---- */

/* Kernel k of a random program build: the thread's own object, or a new
 * one or a clone (*fresh: released right after its enqueue). */
static cl_kernel get_kernel(seq *s, kernel_id k, bool *fresh) {
  worker *w = s->w;
  prog_id p = chance(w, 30) ? P_FIBER : P_DEFAULT;
  cl_kernel own = w->kernels[p][k];
  size_t r = rnd_below(w, 10);
  *fresh = r >= 7;
  if (!*fresh)
    return own;
  cl_int err;
  cl_kernel kn = r < 9 ? clCreateKernel(G.progs[p], stress_kernel_names[k], &err)
                       : clCloneKernel(own, &err);
  if (!ok(s, err, r < 9 ? "clCreateKernel" : "clCloneKernel")) {
    *fresh = false;
    return NULL;
  }
  return kn;
}

static bool set_arg(seq *s, cl_kernel k, cl_uint i, size_t size,
                    const void *value) {
  return ok(s, clSetKernelArg(k, i, size, value), "clSetKernelArg");
}

/* Enqueues k (its arguments set) and releases it if fresh. */
static bool enqueue_kernel(seq *s, cl_kernel k, bool fresh, cl_uint dim,
                           const size_t *offset, const size_t *global,
                           const size_t *local, const char *where) {
  const squeue *q = seq_queue(s);
  cl_event wl[MAX_LAST + 1], ev;
  cl_uint n = seq_prepare(s, q, false, wl, where);
  cl_int err = clEnqueueNDRangeKernel(q->q, k, dim, offset, global, local,
                                      n, n ? wl : NULL, &ev);
  gate_done(s);
  if (fresh)
    clReleaseKernel(k);
  if (!ok(s, err, where))
    return false;
  advance(s, q, ev, CL_COMMAND_NDRANGE_KERNEL);
  return true;
}

/* Enqueues k if its arguments were set (args); a fresh kernel is
 * released either way. True if enqueued. */
static bool launch(seq *s, cl_kernel k, bool fresh, bool args, cl_uint dim,
                   const size_t *offset, const size_t *global,
                   const size_t *local, const char *where) {
  if (args)
    return enqueue_kernel(s, k, fresh, dim, offset, global, local, where);
  if (k && fresh)
    clReleaseKernel(k);
  return false;
}

/* The input and output views of a kernel: two buffers, or in place. */
static void pick_in_out(seq *s, size_t min_len, view *in, view *out) {
  unsigned bi = (unsigned)rnd_below(s->w, s->nb);
  *in = pick_view_of(s, bi, min_len);
  if (s->nb == 1 || chance(s->w, 30)) {
    *out = *in;
    out->sub = false; /* one release, through in */
  } else {
    *out = pick_view_of(s, 1 - bi, min_len);
  }
}

/* A 1-D geometry over n elements: global size, offset, local size (or
 * none). Non-uniform groups are fine: the program is OpenCL C 3.0. */
static void pick_1d(worker *w, size_t n, size_t *global, size_t *offset,
                    size_t *local, bool *has_local) {
  *global = rnd_range(w, 1, n);
  *offset = chance(w, 30) ? rnd_below(w, n - *global + 1) : 0;
  *has_local = chance(w, 50);
  *local = rnd_range(w, 1, min_size(*global, 256));
}

/* out = in * m + c (loop mode, or fiber mode in the fiber build). */
static void cmd_affine(seq *s) {
  worker *w = s->w;
  view in, out;
  pick_in_out(s, 4, &in, &out);
  size_t n = min_size(in.len, out.len) / 4, g, o, l;
  bool has_local;
  pick_1d(w, n, &g, &o, &l, &has_local);
  uint32_t m = (uint32_t)rnd(w), c = (uint32_t)rnd(w);
  bool fresh;
  cl_kernel k = get_kernel(s, K_AFFINE, &fresh);
  bool args = k && set_arg(s, k, 0, sizeof in.mem, &in.mem) &&
              set_arg(s, k, 1, sizeof out.mem, &out.mem) &&
              set_arg(s, k, 2, sizeof m, &m) && set_arg(s, k, 3, sizeof c, &c);
  if (launch(s, k, fresh, args, 1, o ? &o : NULL, &g, has_local ? &l : NULL,
             "sequence: affine kernel"))
    for (size_t i = o; i < o + g; i++)
      put32(s, &out, i, get32(s, &in, i) * m + c);
  view_done(s, &in);
  view_done(s, &out);
}

/* The add kernel over a 1-D range, add2d over a 2-D one, or add as a
 * task (one work-item: element 0). */
static void cmd_add(seq *s) {
  worker *w = s->w;
  view v = pick_view(s, 4);
  size_t n = v.len / 4;
  uint32_t val = (uint32_t)rnd(w);
  int form = (int)rnd_below(w, 3);
  bool fresh;
  cl_kernel k = get_kernel(s, form == 1 ? K_ADD2D : K_ADD, &fresh);
  if (!k || !set_arg(s, k, 0, sizeof v.mem, &v.mem)) {
    launch(s, k, fresh, false, 0, NULL, NULL, NULL, NULL);
    view_done(s, &v);
    return;
  }
  if (form == 0) {
    size_t g, o, l;
    bool has_local;
    pick_1d(w, n, &g, &o, &l, &has_local);
    if (launch(s, k, fresh, set_arg(s, k, 1, sizeof val, &val), 1,
               o ? &o : NULL, &g, has_local ? &l : NULL,
               "sequence: add kernel"))
      for (size_t i = o; i < o + g; i++)
        put32(s, &v, i, get32(s, &v, i) + val);
  } else if (form == 1) {
    uint32_t pitch = (uint32_t)rnd_range(w, 1, min_size(n, 64));
    size_t rows = n / pitch;
    size_t g[2] = {rnd_range(w, 1, pitch), rnd_range(w, 1, min_size(rows, 32))};
    size_t o[2] = {rnd_below(w, pitch - g[0] + 1), rnd_below(w, rows - g[1] + 1)};
    size_t l[2] = {rnd_range(w, 1, min_size(g[0], 16)),
                   rnd_range(w, 1, min_size(g[1], 16))};
    bool args = set_arg(s, k, 1, sizeof pitch, &pitch) &&
                set_arg(s, k, 2, sizeof val, &val);
    if (launch(s, k, fresh, args, 2, o, g, chance(w, 50) ? l : NULL,
               "sequence: add2d kernel"))
      for (size_t y = o[1]; y < o[1] + g[1]; y++)
        for (size_t x = o[0]; x < o[0] + g[0]; x++) {
          size_t i = y * pitch + x;
          put32(s, &v, i, get32(s, &v, i) + (val ^ (uint32_t)(x * 3 + y)));
        }
  } else if (!set_arg(s, k, 1, sizeof val, &val)) {
    launch(s, k, fresh, false, 0, NULL, NULL, NULL, NULL);
  } else {
    const squeue *q = seq_queue(s);
    cl_event wl[MAX_LAST + 1], ev;
    cl_uint nw = seq_prepare(s, q, false, wl, "sequence: clEnqueueTask");
    cl_int err = clEnqueueTask(q->q, k, nw, nw ? wl : NULL, &ev);
    gate_done(s);
    if (ok(s, err, "clEnqueueTask")) {
      put32(s, &v, 0, get32(s, &v, 0) + val);
      advance(s, q, ev, CL_COMMAND_TASK);
    }
    if (fresh)
      clReleaseKernel(k);
  }
  view_done(s, &v);
}

/* out[i] = polynomial of in[i]: a kernel with a loop of its own (region
 * mode with implicit barriers for groups of 8 or more, else loop mode). */
static void cmd_poly(seq *s) {
  worker *w = s->w;
  view in, out;
  pick_in_out(s, 4, &in, &out);
  size_t n = min_size(in.len, out.len) / 4, g, o, l;
  bool has_local;
  pick_1d(w, n, &g, &o, &l, &has_local);
  uint32_t terms = (uint32_t)rnd_below(w, 13);
  bool fresh;
  cl_kernel k = get_kernel(s, K_POLY, &fresh);
  bool args = k && set_arg(s, k, 0, sizeof in.mem, &in.mem) &&
              set_arg(s, k, 1, sizeof out.mem, &out.mem) &&
              set_arg(s, k, 2, sizeof terms, &terms);
  if (launch(s, k, fresh, args, 1, o ? &o : NULL, &g, has_local ? &l : NULL,
             "sequence: poly kernel"))
    for (size_t i = o; i < o + g; i++) {
      uint32_t x = get32(s, &in, i), acc = 0;
      for (uint32_t t = 0; t < terms; t++)
        acc = acc * x + t;
      put32(s, &out, i, acc);
    }
  view_done(s, &in);
  view_done(s, &out);
}

/* The host model of the group kernels for groups of lsz from offset o. */
static void model_group(seq *s, kernel_id kid, const view *in,
                        const view *out, size_t o, size_t groups,
                        size_t lsz) {
  for (size_t g = 0; g < groups; g++) {
    size_t base = o + g * lsz;
    if (kid == K_GROUP_SUM) {
      uint32_t sum = 0, mx = 0;
      for (size_t j = 0; j < lsz; j++) {
        uint32_t x = get32(s, in, base + j);
        sum += x;
        mx = x > mx ? x : mx;
      }
      put32(s, out, 3 * g, sum);
      put32(s, out, 3 * g + 1, sum);
      put32(s, out, 3 * g + 2, mx);
    } else if (kid == K_GROUP_SCAN) {
      uint32_t first = get32(s, in, base + lsz - 1), pre = 0;
      for (size_t j = 0; j < lsz; j++) {
        pre += get32(s, in, base + lsz - 1 - j);
        put32(s, out, base + j, pre + first);
      }
    } else {
      for (size_t j = 0; j < lsz; j++)
        put32(s, out, base + j, get32(s, in, base + (j + 1) % lsz) * 3u);
    }
  }
}

/* A work-group kernel from one buffer into the other: group_sum and
 * group_scan (region mode, or fiber mode in the fiber build) or guarded
 * (fiber mode in both). */
static void cmd_group(seq *s) {
  worker *w = s->w;
  static const kernel_id kinds[] = {K_GROUP_SUM, K_GROUP_SCAN, K_GUARDED};
  kernel_id kid = kinds[rnd_below(w, 3)];
  unsigned bi = (unsigned)rnd_below(w, 2);
  view in = pick_view_of(s, bi, 4), out = pick_view_of(s, 1 - bi, 12);
  size_t ni = in.len / 4, no = out.len / 4, lsz, limit;
  if (kid == K_GROUP_SUM) { /* a power of two: the tree reduction */
    lsz = (size_t)8 << rnd_below(w, 6);
    while (lsz > ni && lsz > 1)
      lsz /= 2;
    limit = min_size(ni / lsz, no / 3);
  } else {
    lsz = rnd_range(w, 1, min_size(256, min_size(ni, no)));
    limit = min_size(ni, no) / lsz;
  }
  size_t groups =
      rnd_range(w, 1, min_size(limit ? limit : 1, stress_size(64)));
  size_t global = groups * lsz;
  size_t span = kid == K_GROUP_SUM ? ni : min_size(ni, no);
  size_t o = limit && chance(w, 30) ? rnd_below(w, span - global + 1) : 0;
  uint32_t nlimit = (uint32_t)(o + global);
  bool fresh = false;
  cl_kernel k = limit ? get_kernel(s, kid, &fresh) : NULL;
  bool args = k && set_arg(s, k, 0, sizeof in.mem, &in.mem) &&
              set_arg(s, k, 1, sizeof out.mem, &out.mem) &&
              (kid == K_GROUP_SCAN ||
               (kid == K_GROUP_SUM
                    ? set_arg(s, k, 2, lsz * sizeof(uint32_t), NULL)
                    : set_arg(s, k, 2, sizeof nlimit, &nlimit)));
  if (launch(s, k, fresh, args, 1, o ? &o : NULL, &global, &lsz,
             "sequence: work-group kernel"))
    model_group(s, kid, &in, &out, o, groups, lsz);
  view_done(s, &in);
  view_done(s, &out);
}

/* ---- ordering and waiting ---- */

static void cmd_marker(seq *s) {
  worker *w = s->w;
  const squeue *q = seq_queue(s);
  bool barrier = chance(w, 40);
  cl_event wl[MAX_LAST + 1], ev;
  cl_uint n = seq_prepare(s, q, false, wl,
                          barrier ? "sequence: clEnqueueBarrierWithWaitList"
                                  : "sequence: clEnqueueMarkerWithWaitList");
  cl_int err = barrier ? clEnqueueBarrierWithWaitList(q->q, n, n ? wl : NULL, &ev)
                       : clEnqueueMarkerWithWaitList(q->q, n, n ? wl : NULL, &ev);
  gate_done(s);
  if (ok(s, err, barrier ? "clEnqueueBarrierWithWaitList"
                         : "clEnqueueMarkerWithWaitList"))
    advance(s, q, ev, barrier ? CL_COMMAND_BARRIER : CL_COMMAND_MARKER);
}

/* One part of a fork: a fill, a write or the add kernel over bytes
 * [off, off + len) of buffer b, waiting for wl. Returns its event or
 * NULL. */
static cl_event fork_part(seq *s, unsigned b, size_t off, size_t len,
                          const cl_event *wl, cl_uint n) {
  worker *w = s->w;
  const squeue *q = seq_queue(s);
  view v = whole(s, b);
  cl_event ev = NULL;
  cl_int err;
  int kind = (int)rnd_below(w, 3);
  stress_at(&w->prog, "sequence: fork part");
  if (kind == 0) {
    uint32_t pat = (uint32_t)rnd(w);
    err = clEnqueueFillBuffer(q->q, v.mem, &pat, 4, off, len, n, wl, &ev);
    if (ok(s, err, "clEnqueueFillBuffer (fork)"))
      for (size_t i = 0; i < len; i += 4)
        memcpy(sh(s, &v, off + i), &pat, 4);
  } else if (kind == 1) {
    unsigned char *src = seq_alloc(s, len);
    rnd_bytes(w, src, len);
    err = clEnqueueWriteBuffer(q->q, v.mem, CL_FALSE, off, len, src, n, wl,
                               &ev);
    if (ok(s, err, "clEnqueueWriteBuffer (fork)"))
      memcpy(sh(s, &v, off), src, len);
  } else {
    cl_buffer_region r = {off, len};
    cl_mem sub = clCreateSubBuffer(v.mem, 0, CL_BUFFER_CREATE_TYPE_REGION,
                                   &r, &err);
    if (!ok(s, err, "clCreateSubBuffer (fork)"))
      return NULL;
    cl_kernel k = w->kernels[chance(w, 30) ? P_FIBER : P_DEFAULT][K_ADD];
    uint32_t val = (uint32_t)rnd(w);
    size_t g = len / 4;
    view sv = {b, off, len, sub, true};
    if (set_arg(s, k, 0, sizeof sub, &sub) &&
        set_arg(s, k, 1, sizeof val, &val)) {
      err = clEnqueueNDRangeKernel(q->q, k, 1, NULL, &g, NULL, n, wl, &ev);
      if (ok(s, err, "clEnqueueNDRangeKernel (fork)"))
        for (size_t i = 0; i < g; i++)
          put32(s, &sv, i, get32(s, &sv, i) + val);
    }
    clReleaseMemObject(sub); /* in flight */
  }
  if (ev)
    s->w->commands++;
  return ev;
}

/* Fork: 2-4 commands over disjoint parts of one buffer, all waiting for
 * the previous command, free to run at the same time; join: the next
 * command waits for all of them, or a marker or barrier does. */
static void cmd_fork(seq *s) {
  worker *w = s->w;
  unsigned b = (unsigned)rnd_below(w, s->nb);
  size_t size = s->b[b].size;
  unsigned k = (unsigned)rnd_range(w, 2, MAX_LAST);
  while (k > 1 && size < 128 * k)
    k--;
  if (k < 2)
    return;
  size_t part = size / 128 / k * 128;
  cl_event wl[MAX_LAST + 1], parts[MAX_LAST];
  gate_arm(s, false);
  cl_uint n = 0;
  for (unsigned i = 0; i < s->nlast; i++)
    wl[n++] = s->last[i];
  if (s->gate)
    wl[n++] = s->gate;
  unsigned np = 0;
  for (unsigned i = 0; i < k && !s->failed; i++) {
    size_t off = i * part, len = i + 1 == k ? size - off : part;
    cl_event ev = fork_part(s, b, off, len, n ? wl : NULL, n);
    if (ev)
      parts[np++] = ev;
  }
  gate_done(s);
  for (unsigned i = 0; i < s->nlast; i++)
    drop_event(s, s->last[i]);
  for (unsigned i = 0; i < np; i++)
    s->last[i] = parts[i];
  s->nlast = np;
  s->last_q = NULL;
  if (np < 2 || chance(w, 40))
    return; /* the next command waits for every part */
  const squeue *q = seq_queue(s);
  bool barrier = chance(w, 50);
  cl_event ev;
  stress_at(&w->prog, "sequence: join");
  cl_int err = barrier ? clEnqueueBarrierWithWaitList(q->q, np, parts, &ev)
                       : clEnqueueMarkerWithWaitList(q->q, np, parts, &ev);
  if (ok(s, err, "join marker/barrier"))
    advance(s, q, ev, barrier ? CL_COMMAND_BARRIER : CL_COMMAND_MARKER);
}

/* A user event the next command waits for, sometimes with a callback. */
static void cmd_gate(seq *s) {
  if (s->gate)
    return;
  cl_int err;
  stress_at(&s->w->prog, "sequence: clCreateUserEvent");
  s->gate = clCreateUserEvent(G.env.context, &err);
  if (!ok(s, err, "clCreateUserEvent")) {
    s->gate = NULL;
    return;
  }
  if (s->ncbs < MAX_CBS && chance(s->w, 25)) {
    cb_count *c = malloc(sizeof *c);
    cl_int trigger = chance(s->w, 50) ? CL_COMPLETE : CL_SUBMITTED;
    if (cb_register(s->w, s->gate, trigger, c))
      s->cbs[s->ncbs++] = c;
    else
      free(c);
  }
}

/* Checks that every event of the last step completed. */
static void expect_last_complete(seq *s, const char *after) {
  for (unsigned i = 0; i < s->nlast; i++)
    expect_complete(s, s->last[i], after);
}

/* The host waits for the last command in one of the ways an application
 * can, or only flushes. */
static void cmd_wait(seq *s) {
  worker *w = s->w;
  if (!s->nlast)
    return;
  int how = (int)rnd_below(w, 4);
  if (how == 1 && s->nlast == 1 && s->last_q) {
    stress_at(&w->prog, "sequence: clFinish");
    if (ok(s, clFinish(s->last_q->q), "clFinish"))
      expect_last_complete(s, "clFinish");
  } else if (how == 2) {
    stress_at(&w->prog, "sequence: polling an event's status");
    cl_int st = 1;
    while (clGetEventInfo(s->last[0], CL_EVENT_COMMAND_EXECUTION_STATUS,
                          sizeof st, &st, NULL) == CL_SUCCESS &&
           st > CL_COMPLETE)
      stress_nap_us(10);
    if (st != CL_COMPLETE)
      stress_fail(w, "sequence step %u: polled status %d", s->step, st);
  } else if (how == 3) {
    stress_at(&w->prog, "sequence: clFlush");
    ok(s, clFlush(seq_queue(s)->q), "clFlush");
  } else {
    stress_at(&w->prog, "sequence: clWaitForEvents");
    if (ok(s, clWaitForEvents(s->nlast, s->last), "clWaitForEvents"))
      expect_last_complete(s, "clWaitForEvents");
  }
}

/* A counting callback on the last command (which may be complete). */
static void cmd_callback(seq *s) {
  if (!s->nlast || s->ncbs >= MAX_CBS)
    return;
  static const cl_int triggers[] = {CL_SUBMITTED, CL_RUNNING, CL_COMPLETE};
  cb_count *c = malloc(sizeof *c);
  stress_at(&s->w->prog, "sequence: clSetEventCallback");
  if (cb_register(s->w, s->last[rnd_below(s->w, s->nlast)],
                  triggers[rnd_below(s->w, 3)], c))
    s->cbs[s->ncbs++] = c;
  else
    free(c);
}

/* ---- the sequence ---- */

typedef void (*cmd_fn)(seq *s);
static const struct {
  cmd_fn fn;
  unsigned weight;
} commands[] = {
    {cmd_write, 9},  {cmd_read, 9},   {cmd_fill, 7},   {cmd_copy, 7},
    {cmd_rect, 5},   {cmd_map, 8},    {cmd_affine, 9}, {cmd_add, 8},
    {cmd_poly, 5},   {cmd_group, 12}, {cmd_marker, 4}, {cmd_fork, 5},
    {cmd_gate, 6},   {cmd_wait, 4},   {cmd_callback, 4},
};

static cmd_fn pick_command(worker *w) {
  unsigned total = 0;
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    total += commands[i].weight;
  unsigned r = (unsigned)rnd_below(w, total);
  for (size_t i = 0;; i++) {
    if (r < commands[i].weight)
      return commands[i].fn;
    r -= commands[i].weight;
  }
}

/* Creates buffer b with random contents, in one of the ways a buffer can
 * get them: copied at creation, the application's memory, or (a plain
 * buffer) a first write. */
static void new_buffer(seq *s, unsigned b) {
  worker *w = s->w;
  size_t r = rnd_below(w, 100);
  size_t words = stress_size(r < 60   ? rnd_range(w, 1, 256)
                             : r < 90 ? rnd_range(w, 257, 4096)
                                      : rnd_range(w, 4097, 65536));
  sbuf *sb = &s->b[b];
  sb->size = 4 * words;
  sb->shadow = malloc(sb->size);
  rnd_bytes(w, sb->shadow, sb->size);
  int how = (int)rnd_below(w, 4);
  cl_mem_flags flags = how == 1   ? CL_MEM_COPY_HOST_PTR
                       : how == 2 ? CL_MEM_USE_HOST_PTR
                       : how == 3 ? CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR
                                  : CL_MEM_READ_WRITE;
  void *host = NULL;
  if (how == 2) {
    sb->storage = malloc(sb->size);
    memcpy(sb->storage, sb->shadow, sb->size);
    host = sb->storage;
  } else if (how != 0) {
    host = sb->shadow;
  }
  cl_int err;
  stress_at(&w->prog, "sequence: clCreateBuffer");
  sb->mem = clCreateBuffer(G.env.context, flags, sb->size, host, &err);
  if (!ok(s, err, "clCreateBuffer")) {
    sb->mem = NULL;
    return;
  }
  s->nb = b + 1;
  if (how == 0) { /* contents undefined until written */
    unsigned char *src = seq_alloc(s, sb->size);
    memcpy(src, sb->shadow, sb->size);
    const squeue *q = seq_queue(s);
    cl_event wl[MAX_LAST + 1], ev;
    cl_uint n = seq_waits(s, q, wl);
    err = clEnqueueWriteBuffer(q->q, sb->mem, CL_FALSE, 0, sb->size, src, n,
                               n ? wl : NULL, &ev);
    if (ok(s, err, "clEnqueueWriteBuffer (initial)"))
      advance(s, q, ev, CL_COMMAND_WRITE_BUFFER);
  }
}

/* The queues this sequence uses: one to three of the thread's own and
 * the shared ones, and sometimes a queue of its own. */
static void pick_queues(seq *s) {
  worker *w = s->w;
  unsigned n = (unsigned)rnd_range(w, 1, 3);
  for (unsigned i = 0; i < n; i++)
    s->queues[s->nq++] = pick_queue(w);
  if (chance(w, 15)) {
    bool in_order = chance(w, 50), profiling = chance(w, 30);
    cl_int err;
    stress_at(&w->prog, "sequence: clCreateCommandQueueWithProperties");
    s->temp = stress_queue(in_order, profiling, &err);
    if (ok(s, err, "clCreateCommandQueueWithProperties"))
      s->queues[s->nq++] = &s->temp;
    else
      s->temp.q = NULL;
  }
}

/* Checks the profiling times of a completed command. */
static void check_profiling(seq *s, cl_event ev) {
  static const cl_profiling_info names[] = {
      CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
      CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
  cl_ulong t[4];
  for (int i = 0; i < 4; i++)
    if (!ok(s, clGetEventProfilingInfo(ev, names[i], sizeof t[i], &t[i],
                                       NULL),
            "clGetEventProfilingInfo"))
      return;
  if (!(t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3]))
    stress_fail(s->w, "profiling times out of order: %llu %llu %llu %llu",
                (unsigned long long)t[0], (unsigned long long)t[1],
                (unsigned long long)t[2], (unsigned long long)t[3]);
}

/* Releases what the sequence still holds of the OpenCL objects (some
 * while commands are in flight). */
static void release_objects(seq *s) {
  for (unsigned i = 0; i < s->nsubs; i++)
    clReleaseMemObject(s->subs[i]);
  s->nsubs = 0;
  for (unsigned b = 0; b < s->nb; b++)
    if (s->b[b].mem) {
      clReleaseMemObject(s->b[b].mem);
      s->b[b].mem = NULL;
    }
  if (s->temp.q) {
    clReleaseCommandQueue(s->temp.q);
    s->temp.q = NULL;
  }
}

/* Waits for the final reads fin[0..n) (enqueued on fq[i]) in one of the
 * ways an application can; the last read was blocking if how == 2. */
static void final_wait(seq *s, int how, cl_event *fin, const squeue **fq,
                       unsigned n) {
  worker *w = s->w;
  if (how == 1) {
    for (unsigned i = 0; i < n; i++) {
      stress_at(&w->prog, "sequence end: clFinish");
      ok(s, clFinish(fq[i]->q), "clFinish (end)");
    }
  } else if (how == 3) {
    for (unsigned i = 0; i < n; i++) {
      stress_at(&w->prog, "sequence end: polling the final reads");
      cl_int st = 1;
      while (clGetEventInfo(fin[i], CL_EVENT_COMMAND_EXECUTION_STATUS,
                            sizeof st, &st, NULL) == CL_SUCCESS &&
             st > CL_COMPLETE)
        stress_nap_us(10);
    }
  } else if (n) {
    stress_at(&w->prog, "sequence end: clWaitForEvents");
    ok(s, clWaitForEvents(n, fin), "clWaitForEvents (end)");
  }
  for (unsigned i = 0; i < n; i++) {
    expect_complete(s, fin[i], "the final wait");
    if (fq[i]->profiling)
      check_profiling(s, fin[i]);
  }
}

/* After a failed call: wait for what is in flight (it uses host memory
 * about to be freed), ignoring errors. */
static void drain_after_failure(seq *s) {
  gate_done(s);
  if (s->nlast) {
    stress_at(&s->w->prog, "sequence: draining after a failure");
    clWaitForEvents(s->nlast, s->last);
  }
}

static void compare_checks(seq *s) {
  for (unsigned i = 0; i < s->nchecks; i++) {
    const check *c = &s->checks[i];
    for (size_t k = 0; k < c->len; k++)
      if (c->got[k] != c->want[k]) {
        stress_fail(s->w, "sequence step %u (%s): byte %zu of %zu is %02x, "
                    "expected %02x", c->step, c->what, k, c->len, c->got[k],
                    c->want[k]);
        break;
      }
  }
}

/* Reads every buffer back, releases objects (often before waiting),
 * waits, and checks every read and callback. */
static void seq_end(seq *s) {
  worker *w = s->w;
  cl_event fin[MAX_BUFS];
  const squeue *fq[MAX_BUFS];
  unsigned nfin = 0;
  int how = (int)rnd_below(w, 4);
  for (unsigned b = 0; b < s->nb && !s->failed; b++) {
    sbuf *sb = &s->b[b];
    unsigned char *got = seq_alloc(s, sb->size);
    const squeue *q = seq_queue(s);
    bool blocking = how == 2 && b + 1 == s->nb;
    cl_event wl[MAX_LAST + 1];
    cl_uint n = seq_prepare(s, q, blocking, wl, "sequence end: final read");
    cl_int err = clEnqueueReadBuffer(q->q, sb->mem, blocking, 0, sb->size,
                                     got, n, n ? wl : NULL, &fin[nfin]);
    if (ok(s, err, "clEnqueueReadBuffer (final)")) {
      add_check(s, got, sb->shadow, sb->size, "final read");
      fq[nfin++] = q;
    }
  }
  gate_done(s);
  if (s->failed) {
    drain_after_failure(s);
    if (nfin)
      clWaitForEvents(nfin, fin);
  }
  for (unsigned i = 0; i < s->nlast; i++)
    drop_event(s, s->last[i]);
  s->nlast = 0;
  /* clFinish needs the queues: then only the buffers go early. */
  if (chance(w, 60)) {
    cl_command_queue keep = how == 1 ? s->temp.q : NULL;
    if (keep)
      s->temp.q = NULL;
    release_objects(s);
    if (keep)
      s->temp.q = keep;
  }
  if (!s->failed)
    final_wait(s, how, fin, fq, nfin);
  for (unsigned i = 0; i < s->ncbs; i++) {
    cb_await(w, s->cbs[i], false);
    free(s->cbs[i]);
  }
  if (!s->failed)
    compare_checks(s);
  for (unsigned i = 0; i < nfin; i++)
    clReleaseEvent(fin[i]);
  release_objects(s);
  for (unsigned i = 0; i < s->nhost; i++)
    free(s->host[i]);
  for (unsigned b = 0; b < MAX_BUFS; b++) {
    free(s->b[b].shadow);
    free(s->b[b].storage);
  }
}

void op_sequence(worker *w) {
  seq *s = calloc(1, sizeof *s);
  s->w = w;
  pick_queues(s);
  unsigned nb = chance(w, 60) ? 2 : 1;
  for (unsigned b = 0; b < nb && !s->failed; b++)
    new_buffer(s, b);
  unsigned steps = (unsigned)rnd_range(w, 2, MAX_STEPS);
  for (s->step = 1; s->step <= steps && !s->failed && room(s) && s->nb;
       s->step++) {
    cmd_fn fn = pick_command(w);
    if (fn == cmd_group && s->nb < 2)
      fn = cmd_affine;
    fn(s);
  }
  seq_end(s);
  free(s);
}
