/* This file contains the stress test's helper threads and shared boards:
 * the watchdog, which fails the run (printing where every thread was)
 * when a thread makes no progress for the watchdog time, since a hang is
 * a failure; the setter, which sets user events other threads posted
 * (from a thread that enqueues nothing, after a random delay, so commands
 * gated by them are released from elsewhere); and the board of command
 * events that threads other than their creator wait for. */
#include "stress.h"
#include <unistd.h>

/* ---- watchdog ---- */

static progress *const *watch_slots;
static unsigned watch_count;
static pthread_t watch_thread;
static _Atomic bool watch_stop;
static progress setter_prog = {.name = "setter"};

/* Seconds since p's last step (a step may be newer than now). */
static double since_s(const progress *p, uint64_t now) {
  uint64_t beat = atomic_load(&p->beat_ns);
  return beat < now ? (double)(now - beat) / 1e9 : 0;
}

static void report_slot(const progress *p, uint64_t now) {
  double idle_s = since_s(p, now);
  fprintf(stderr, "  %-10s op %-6llu %s%.1f s at: %s\n", p->name,
          (unsigned long long)atomic_load(&p->op),
          atomic_load(&p->idle) ? "(idle) " : "", idle_s,
          atomic_load(&p->where));
}

/* Prints every thread's position and ends the process: the hung threads
 * cannot be unwound, and exit() would run destructors under them. */
static void hang(const progress *stuck, uint64_t now) {
  fprintf(stderr,
          "stress: FAIL [seed %llu]: HANG: %s made no progress for %.0f s\n",
          (unsigned long long)G.seed, stuck->name, G.watchdog_s);
  for (unsigned i = 0; i < watch_count; i++)
    report_slot(watch_slots[i], now);
  report_slot(&setter_prog, now);
  fflush(stderr);
  _exit(1);
}

/* True if p has been busy in one step for longer than the limit. */
static bool stuck(const progress *p, uint64_t now, double limit) {
  return !atomic_load(&p->idle) && since_s(p, now) > limit;
}

static void *watchdog_main(void *unused) {
  (void)unused;
  double limit = G.watchdog_s;
  while (!atomic_load(&watch_stop)) {
    stress_nap_us(200000);
    uint64_t now = stress_now_ns();
    for (unsigned i = 0; i < watch_count; i++)
      if (stuck(watch_slots[i], now, limit))
        hang(watch_slots[i], now);
    if (stuck(&setter_prog, now, limit))
      hang(&setter_prog, now);
  }
  return NULL;
}

void watchdog_start(progress *const *slots, unsigned n) {
  watch_slots = slots;
  watch_count = n;
  stress_at(&setter_prog, "not started");
  if (pthread_create(&watch_thread, NULL, watchdog_main, NULL) != 0) {
    fprintf(stderr, "stress: cannot start the watchdog\n");
    _exit(1);
  }
}

void watchdog_stop(void) {
  atomic_store(&watch_stop, true);
  pthread_join(watch_thread, NULL);
}

/* ---- user-event setter ---- */

enum { MAX_PENDING = 512 };
typedef struct pending_set {
  cl_event ev;
  cl_int status;
  uint64_t due_ns;
} pending_set;

static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;
static pending_set pending[MAX_PENDING];
static unsigned num_pending;
static pthread_t set_thread;
static _Atomic bool set_stop;

/* Sets one user event and drops the reference the post handed over. */
static void set_now(const worker *w, pending_set p) {
  cl_int err = clSetUserEventStatus(p.ev, p.status);
  if (err != CL_SUCCESS)
    stress_fail(w, "clSetUserEventStatus(%d) returned %d", p.status, err);
  clReleaseEvent(p.ev);
}

/* Removes and returns a pending event due by now (any, when now is 0). */
static bool take_due(uint64_t now, pending_set *out) {
  bool found = false;
  pthread_mutex_lock(&set_lock);
  for (unsigned i = 0; i < num_pending; i++)
    if (!now || pending[i].due_ns <= now) {
      *out = pending[i];
      pending[i] = pending[--num_pending];
      found = true;
      break;
    }
  pthread_mutex_unlock(&set_lock);
  return found;
}

static void *setter_main(void *unused) {
  (void)unused;
  while (!atomic_load(&set_stop)) {
    stress_at(&setter_prog, "setting due user events");
    pending_set p;
    while (take_due(stress_now_ns(), &p))
      set_now(NULL, p);
    stress_at(&setter_prog, "napping");
    stress_nap_us(200);
  }
  return NULL;
}

void setter_start(void) {
  if (pthread_create(&set_thread, NULL, setter_main, NULL) != 0) {
    fprintf(stderr, "stress: cannot start the setter\n");
    _exit(1);
  }
}

void setter_stop(void) {
  atomic_store(&set_stop, true);
  pthread_join(set_thread, NULL);
  pending_set p;
  while (take_due(0, &p))
    set_now(NULL, p);
  atomic_store(&setter_prog.idle, true);
}

void setter_post(cl_event ev, cl_int status, unsigned delay_us) {
  pending_set p = {ev, status, stress_now_ns() + delay_us * 1000ull};
  pthread_mutex_lock(&set_lock);
  bool room = num_pending < MAX_PENDING;
  if (room)
    pending[num_pending++] = p;
  pthread_mutex_unlock(&set_lock);
  if (!room) /* full: set it here rather than lose it */
    set_now(NULL, p);
}

void setter_help(worker *w) {
  pending_set p;
  if (chance(w, 30) && take_due(stress_now_ns(), &p)) {
    stress_at(&w->prog, "setter_help: setting another thread's user event");
    set_now(w, p);
  }
}

/* ---- the board of events other threads wait for ---- */

enum { BOARD_SIZE = 64 };
static pthread_mutex_t board_lock = PTHREAD_MUTEX_INITIALIZER;
static cl_event board[BOARD_SIZE];
static unsigned board_count;

void board_post(cl_event ev) {
  cl_event drop = NULL;
  pthread_mutex_lock(&board_lock);
  if (board_count == BOARD_SIZE) /* full: the oldest goes */
    drop = board[0], board[0] = ev;
  else
    board[board_count++] = ev;
  pthread_mutex_unlock(&board_lock);
  if (drop)
    clReleaseEvent(drop);
}

/* Takes up to max events off the board. */
static unsigned board_take(worker *w, cl_event *out, unsigned max) {
  unsigned n = 0;
  pthread_mutex_lock(&board_lock);
  while (n < max && board_count) {
    unsigned i = (unsigned)rnd_below(w, board_count);
    out[n++] = board[i];
    board[i] = board[--board_count];
  }
  pthread_mutex_unlock(&board_lock);
  return n;
}

/* Waits for events other threads enqueued (they never fail: each was a
 * step of a sequence its owner checks), with clWaitForEvents or by
 * polling their status, then checks they completed. */
void op_board_wait(worker *w) {
  cl_event evs[3];
  unsigned n = board_take(w, evs, (unsigned)rnd_range(w, 1, 3));
  if (!n)
    return;
  if (chance(w, 70)) {
    stress_at(&w->prog, "board: clWaitForEvents on other threads' events");
    cl_int err = clWaitForEvents(n, evs);
    if (err != CL_SUCCESS)
      stress_fail(w, "board: clWaitForEvents returned %d", err);
  }
  for (unsigned i = 0; i < n; i++) {
    stress_at(&w->prog, "board: polling another thread's event");
    cl_int st;
    do {
      cl_int err = clGetEventInfo(evs[i], CL_EVENT_COMMAND_EXECUTION_STATUS,
                                  sizeof st, &st, NULL);
      if (err != CL_SUCCESS) {
        stress_fail(w, "board: clGetEventInfo returned %d", err);
        break;
      }
      if (st > CL_COMPLETE)
        stress_nap_us(20);
    } while (st > CL_COMPLETE);
    if (st != CL_COMPLETE)
      stress_fail(w, "board: event status %d", st);
    clReleaseEvent(evs[i]);
  }
}

void board_drain(void) {
  pthread_mutex_lock(&board_lock);
  unsigned n = board_count;
  cl_event evs[BOARD_SIZE];
  for (unsigned i = 0; i < n; i++)
    evs[i] = board[i];
  board_count = 0;
  pthread_mutex_unlock(&board_lock);
  for (unsigned i = 0; i < n; i++)
    clReleaseEvent(evs[i]);
}
