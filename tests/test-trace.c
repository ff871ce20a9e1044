/* Tests the timeline trace (SKEIN_TRACE, runtime/core/trace.c): runs
 * buffer commands and kernels on two queues with the variable set, then
 * reads the file back with a small JSON reader and checks that it holds
 * exactly those commands, in order, on their queues' tracks, with the
 * four timestamps of each in order and equal to the profiling counters,
 * the workers' work-group spans inside their command and covering every
 * group once, and the program build. */
#include "test_util.h"
#include <math.h>
#include <stdbool.h>
#include <unistd.h>

/* ---- a minimal JSON reader: enough for the trace-event format ---- */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jkind;
typedef struct jval {
  jkind kind;
  double num;
  char *str;                 /* J_STR */
  struct jval *items;        /* J_ARR: values; J_OBJ: values */
  char **keys;               /* J_OBJ */
  size_t n;
} jval;

typedef struct { const char *p; bool bad; } jin;

static void skip_ws(jin *in) {
  while (*in->p == ' ' || *in->p == '\n' || *in->p == '\t' || *in->p == '\r')
    in->p++;
}

static char *parse_string(jin *in) {
  if (*in->p != '"') {
    in->bad = true;
    return NULL;
  }
  in->p++;
  size_t cap = 16, n = 0;
  char *s = malloc(cap);
  while (*in->p && *in->p != '"') {
    char c = *in->p++;
    if (c == '\\') {
      char e = *in->p++;
      if (e == 'u') {        /* the trace only escapes control bytes */
        unsigned v = 0;
        if (sscanf(in->p, "%4x", &v) != 1)
          in->bad = true;
        in->p += 4;
        c = (char)v;
      } else if (e == 'n') {
        c = '\n';
      } else if (e == '"' || e == '\\' || e == '/') {
        c = e;
      } else {
        in->bad = true;
      }
    }
    if (n + 2 > cap)
      s = realloc(s, cap *= 2);
    s[n++] = c;
  }
  if (*in->p != '"')
    in->bad = true;
  else
    in->p++;
  s[n] = '\0';
  return s;
}

static void parse_value(jin *in, jval *v);

/* Appends a value (and key) to an array or object. */
static jval *push_item(jval *v, char *key) {
  v->items = realloc(v->items, (v->n + 1) * sizeof *v->items);
  if (v->kind == J_OBJ) {
    v->keys = realloc(v->keys, (v->n + 1) * sizeof *v->keys);
    v->keys[v->n] = key;
  }
  memset(&v->items[v->n], 0, sizeof *v->items);
  return &v->items[v->n++];
}

static void parse_container(jin *in, jval *v, char close) {
  in->p++;
  skip_ws(in);
  if (*in->p == close) {
    in->p++;
    return;
  }
  for (;;) {
    skip_ws(in);
    char *key = NULL;
    if (v->kind == J_OBJ) {
      key = parse_string(in);
      skip_ws(in);
      if (*in->p++ != ':')
        in->bad = true;
    }
    parse_value(in, push_item(v, key));
    skip_ws(in);
    if (in->bad)
      return;
    if (*in->p == ',') {
      in->p++;
      continue;
    }
    if (*in->p++ != close)
      in->bad = true;
    return;
  }
}

static void parse_value(jin *in, jval *v) {
  skip_ws(in);
  memset(v, 0, sizeof *v);
  char c = *in->p;
  if (c == '{') {
    v->kind = J_OBJ;
    parse_container(in, v, '}');
  } else if (c == '[') {
    v->kind = J_ARR;
    parse_container(in, v, ']');
  } else if (c == '"') {
    v->kind = J_STR;
    v->str = parse_string(in);
  } else if (strncmp(in->p, "true", 4) == 0 ||
             strncmp(in->p, "false", 5) == 0) {
    v->kind = J_BOOL;
    v->num = c == 't';
    in->p += c == 't' ? 4 : 5;
  } else if (strncmp(in->p, "null", 4) == 0) {
    in->p += 4;
  } else {
    char *end;
    v->kind = J_NUM;
    v->num = strtod(in->p, &end);
    if (end == in->p)
      in->bad = true;
    in->p = end;
  }
}

/* Frees what parse_value allocated under v (not v itself). */
static void free_value(jval *v) {
  for (size_t i = 0; i < v->n; i++) {
    free_value(&v->items[i]);
    if (v->keys)
      free(v->keys[i]);
  }
  free(v->items);
  free(v->keys);
  free(v->str);
}

static const jval *get(const jval *o, const char *key) {
  if (!o || o->kind != J_OBJ)
    return NULL;
  for (size_t i = 0; i < o->n; i++)
    if (strcmp(o->keys[i], key) == 0)
      return &o->items[i];
  return NULL;
}

static double num(const jval *o, const char *key) {
  const jval *v = get(o, key);
  return v && v->kind == J_NUM ? v->num : NAN;
}

static const char *str(const jval *o, const char *key) {
  const jval *v = get(o, key);
  return v && v->kind == J_STR ? v->str : "";
}

/* Trace times are microseconds with three decimals: back to ns. */
static long long ns(double us) { return llround(us * 1000.0); }

/* ---- the commands the trace must show ---- */

static const char *source =
    "kernel void fill(global uint *a) {\n"
    "  a[get_global_id(0)] = (uint)get_global_id(0) * 3u;\n"
    "}\n"
    "kernel void add(global uint *a, uint k) {\n"
    "  a[get_global_id(0)] += k;\n"
    "}\n";

enum { N = 1 << 20, LOCAL = 64, SMALL = 64 };

typedef struct cmd_view {
  const jval *ev;
  long long start, end;      /* ts and ts + dur, ns */
} cmd_view;

static int by_start(const void *a, const void *b) {
  long long x = ((const cmd_view *)a)->start, y = ((const cmd_view *)b)->start;
  return x < y ? -1 : x > y;
}

/* The command records on queue track tid, sorted by start. */
static unsigned track_commands(const jval *events, double tid, cmd_view *out,
                               unsigned cap) {
  unsigned n = 0;
  for (size_t i = 0; i < events->n; i++) {
    const jval *e = &events->items[i];
    if (strcmp(str(e, "ph"), "X") || strcmp(str(e, "cat"), "command") ||
        num(e, "pid") != 1 || num(e, "tid") != tid)
      continue;
    if (n < cap) {
      out[n].ev = e;
      out[n].start = ns(num(e, "ts"));
      out[n].end = out[n].start + ns(num(e, "dur"));
    }
    n++;
  }
  qsort(out, n < cap ? n : cap, sizeof *out, by_start);
  return n;
}

/* The queue track named "queue <k> (...)" for the k-th queue created. */
static double queue_tid(const jval *events, unsigned k) {
  char want[32];
  snprintf(want, sizeof want, "queue %u (", k);
  for (size_t i = 0; i < events->n; i++) {
    const jval *e = &events->items[i];
    if (!strcmp(str(e, "ph"), "M") && num(e, "pid") == 1 &&
        !strcmp(str(e, "name"), "thread_name") &&
        !strncmp(str(get(e, "args"), "name"), want, strlen(want)))
      return num(e, "tid");
  }
  return -1;
}

static void check_timestamps(const cmd_view *c) {
  const jval *a = get(c->ev, "args");
  double q = num(a, "queued_ns"), s = num(a, "submitted_ns"),
         r = num(a, "started_ns"), e = num(a, "ended_ns");
  CHECK(q > 0 && q <= s && s <= r && r <= e);
  CHECK_EQ(ns(num(c->ev, "ts")), (long long)r);
  CHECK_EQ(ns(num(c->ev, "dur")), (long long)(e - r));
  CHECK_EQ(num(a, "status"), 0);
}

typedef struct span { long long first, count, start, end; double tid; } span;

static int by_first(const void *a, const void *b) {
  long long x = ((const span *)a)->first, y = ((const span *)b)->first;
  return x < y ? -1 : x > y;
}

/* The work-group spans of command c cover groups [0, groups) once each,
 * all inside c's record; returns how many there are. */
static unsigned check_spans(const jval *events, const cmd_view *c,
                            long long groups) {
  double id = num(get(c->ev, "args"), "id");
  span *s = malloc(events->n * sizeof *s);
  unsigned n = 0;
  for (size_t i = 0; i < events->n; i++) {
    const jval *e = &events->items[i];
    if (strcmp(str(e, "cat"), "work-groups") ||
        num(get(e, "args"), "id") != id)
      continue;
    CHECK_EQ(num(e, "pid"), getpid());
    CHECK(!strcmp(str(e, "name"), str(c->ev, "name")));
    s[n].first = (long long)num(get(e, "args"), "first_group");
    s[n].count = (long long)num(get(e, "args"), "groups");
    s[n].start = ns(num(e, "ts"));
    s[n].end = s[n].start + ns(num(e, "dur"));
    CHECK(s[n].start >= c->start && s[n].end <= c->end);
    n++;
  }
  qsort(s, n, sizeof *s, by_first);
  long long next = 0;
  for (unsigned i = 0; i < n; i++) {
    CHECK_EQ(s[i].first, next);
    CHECK(s[i].count >= 1);
    next = s[i].first + s[i].count;
  }
  CHECK_EQ(next, groups);
  free(s);
  return n;
}

/* Spans on each worker track never overlap (a thread runs one chunk at a
 * time), so timestamps are monotone per track. */
static void check_thread_tracks(const jval *events) {
  span *s = malloc(events->n * sizeof *s);
  unsigned n = 0;
  for (size_t i = 0; i < events->n; i++) {
    const jval *e = &events->items[i];
    if (strcmp(str(e, "ph"), "X") || num(e, "pid") != getpid())
      continue;
    s[n].tid = num(e, "tid");
    s[n].first = ns(num(e, "ts"));  /* sort key: start */
    s[n].start = s[n].first;
    s[n].end = s[n].start + ns(num(e, "dur"));
    n++;
  }
  qsort(s, n, sizeof *s, by_first);
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = i + 1; j < n; j++)
      if (s[j].tid == s[i].tid) {
        CHECK(s[j].start >= s[i].end);
        break;
      }
  free(s);
}

int main(void) {
  char path[] = "/tmp/skein-trace-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  /* Read when the loader loads libskein, which test_setup makes happen. */
  setenv("SKEIN_TRACE", path, 1);

  test_env env;
  test_setup(&env);   /* queue 1: in order, profiling */
  cl_int err;
  cl_command_queue q2 = clCreateCommandQueue(env.context, env.device, 0,
                                             &err);   /* queue 2: neither */
  REQUIRE_OK(err);
  cl_program prog = test_build(&env, source, "");
  cl_kernel fill = clCreateKernel(prog, "fill", &err);
  REQUIRE_OK(err);
  cl_kernel add = clCreateKernel(prog, "add", &err);
  REQUIRE_OK(err);
  cl_mem a = clCreateBuffer(env.context, 0, N * sizeof(cl_uint), NULL, &err);
  REQUIRE_OK(err);
  cl_mem b = clCreateBuffer(env.context, 0, SMALL * sizeof(cl_uint), NULL,
                            &err);
  REQUIRE_OK(err);
  static cl_uint host[N];
  for (unsigned i = 0; i < N; i++)
    host[i] = 0xdeadbeef;

  /* Queue 1: write, fill (16384 groups), add, read. */
  cl_uint k = 7;
  size_t global = N, local = LOCAL, small = SMALL;
  cl_event ev_fill;
  REQUIRE_OK(clEnqueueWriteBuffer(env.queue, a, CL_FALSE, 0, sizeof host,
                                  host, 0, NULL, NULL));
  REQUIRE_OK(clSetKernelArg(fill, 0, sizeof a, &a));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, fill, 1, NULL, &global,
                                    &local, 0, NULL, &ev_fill));
  REQUIRE_OK(clSetKernelArg(add, 0, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(add, 1, sizeof k, &k));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, add, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, a, CL_TRUE, 0, sizeof host, host,
                                 0, NULL, NULL));
  for (unsigned i = 0; i < N; i++)
    if (host[i] != i * 3u + k) {
      CHECK_EQ(host[i], i * 3u + k);
      break;
    }
  cl_ulong prof_start, prof_end;
  REQUIRE_OK(clGetEventProfilingInfo(ev_fill, CL_PROFILING_COMMAND_START,
                                     sizeof prof_start, &prof_start, NULL));
  REQUIRE_OK(clGetEventProfilingInfo(ev_fill, CL_PROFILING_COMMAND_END,
                                     sizeof prof_end, &prof_end, NULL));

  /* Queue 2: fill, a one-group add, a marker. */
  cl_uint zero = 0, small_out[SMALL];
  REQUIRE_OK(clEnqueueFillBuffer(q2, b, &zero, sizeof zero, 0, sizeof small_out,
                                 0, NULL, NULL));
  REQUIRE_OK(clSetKernelArg(add, 0, sizeof b, &b));
  REQUIRE_OK(clEnqueueNDRangeKernel(q2, add, 1, NULL, &small, &small, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueMarkerWithWaitList(q2, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(q2, b, CL_TRUE, 0, sizeof small_out,
                                 small_out, 0, NULL, NULL));
  for (unsigned i = 0; i < SMALL; i++)
    CHECK_EQ(small_out[i], k);

  clReleaseEvent(ev_fill);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseKernel(fill);
  clReleaseKernel(add);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q2);
  /* Releasing the context writes the trace out. */
  test_teardown(&env);

  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  if (!f)
    return test_finish("trace");
  static char text[8 << 20];
  size_t len = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[len] = '\0';
  jin in = {text, false};
  jval root;
  parse_value(&in, &root);
  skip_ws(&in);
  CHECK(!in.bad && *in.p == '\0');
  const jval *events = get(&root, "traceEvents");
  CHECK(events && events->kind == J_ARR);
  if (in.bad || !events || events->kind != J_ARR) {
    free_value(&root);
    return test_finish("trace");
  }

  double t1 = queue_tid(events, 1), t2 = queue_tid(events, 2);
  CHECK(t1 > 0 && t2 > 0 && t1 != t2);
  cmd_view c1[8], c2[8];
  unsigned n1 = track_commands(events, t1, c1, 8);
  unsigned n2 = track_commands(events, t2, c2, 8);
  CHECK_EQ(n1, 4);   /* write, fill, add, read */
  CHECK_EQ(n2, 4);   /* fill, add, marker, read */
  if (n1 != 4 || n2 != 4) {
    free_value(&root);
    return test_finish("trace");
  }
  static const char *names1[] = {"WriteBuffer", "fill", "add", "ReadBuffer"};
  static const char *names2[] = {"FillBuffer", "add", "Marker",
                                 "ReadBuffer"};
  for (unsigned i = 0; i < 4; i++) {
    CHECK(!strcmp(str(c1[i].ev, "name"), names1[i]));
    CHECK(!strcmp(str(c2[i].ev, "name"), names2[i]));
    check_timestamps(&c1[i]);
    check_timestamps(&c2[i]);
    /* In-order queues: each command starts after the previous ended. */
    if (i) {
      CHECK(c1[i].start >= c1[i - 1].end);
      CHECK(c2[i].start >= c2[i - 1].end);
    }
  }
  CHECK(!strcmp(str(get(c1[1].ev, "args"), "type"), "NDRangeKernel"));
  CHECK(!strcmp(str(get(c2[2].ev, "args"), "type"), "Marker"));
  /* The trace's times are the profiling counters' (one clock). */
  CHECK_EQ(c1[1].end - c1[1].start, (long long)(prof_end - prof_start));
  /* Ids are distinct. */
  for (unsigned i = 0; i < 4; i++)
    for (unsigned j = 0; j < 4; j++)
      CHECK(num(get(c1[i].ev, "args"), "id") !=
            num(get(c2[j].ev, "args"), "id"));

  /* Work-group spans: every group once, inside its command, coalesced
   * into chunks (far fewer records than the 16384 groups). */
  unsigned spans = check_spans(events, &c1[1], N / LOCAL);
  CHECK(spans >= 1 && spans < 2048);
  CHECK(check_spans(events, &c1[2], N / LOCAL) >= 1);
  CHECK_EQ(check_spans(events, &c2[1], 1), 1);
  /* Buffer commands have no spans. */
  CHECK_EQ(check_spans(events, &c1[0], 0), 0);
  check_thread_tracks(events);

  /* The build: on the application thread's track, before the kernels. */
  unsigned builds = 0;
  for (size_t i = 0; i < events->n; i++) {
    const jval *e = &events->items[i];
    if (strcmp(str(e, "cat"), "build"))
      continue;
    builds++;
    CHECK(!strcmp(str(e, "name"), "clBuildProgram"));
    CHECK(!strcmp(str(get(e, "args"), "kernels"), "fill;add"));
    CHECK_EQ(num(get(e, "args"), "status"), 0);
    CHECK(ns(num(e, "ts")) + ns(num(e, "dur")) <= c1[1].start);
  }
  CHECK_EQ(builds, 1);
  free_value(&root);
  unlink(path);
  return test_finish("trace");
}
