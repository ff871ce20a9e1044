/* This file contains the differential engine of test-modes-diff (see
 * modes_diff.h): building a program once per execution mode, running a
 * launch in each mode on fresh guarded buffers, and reporting every
 * difference from the fiber-mode run. */
#include "modes_diff.h"
#include <math.h>
#include <stdarg.h>
#include <time.h>

const char *const md_mode_names[MD_NMODES] = {"fiber", "default", "scalar",
                                              "loop"};

/* The environment each mode builds under (read by clBuildProgram):
 * SKEIN_MODE and SKEIN_VECTORIZE, NULL meaning unset. */
static const struct {
  const char *mode, *vectorize;
} mode_env[MD_NMODES] = {
    [MD_FIBER] = {"fiber", NULL},
    [MD_DEFAULT] = {NULL, NULL},
    [MD_SCALAR] = {NULL, "0"},
    [MD_LOOP] = {"loop", NULL},
};

static md_stats local_stats;
md_stats *md_stats_out = &local_stats;
md_note_fn md_note_hook;

#define GUARD 0x5A  /* bytes of the zones around every buffer */
#define BACK_GUARD 256

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void md_note(const char *fmt, ...) {
  if (!md_note_hook)
    return;
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  md_note_hook(what);
}

/* ---- launch construction ---- */

void md_init(md_launch *l, const char *fmt, ...) {
  memset(l, 0, sizeof *l);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(l->label, sizeof l->label, fmt, ap);
  va_end(ap);
}

static int add_arg(md_launch *l, md_arg_kind kind, const char *name,
                   const void *data, size_t size, size_t elem) {
  if (l->nargs == MD_MAX_ARGS) {
    fprintf(stderr, "%s: too many arguments\n", l->label);
    exit(1);
  }
  md_arg *a = &l->args[l->nargs];
  a->kind = kind;
  a->size = size;
  a->elem = elem;
  snprintf(a->name, sizeof a->name, "%s", name ? name : "");
  if (data) {
    a->data = malloc(size);
    memcpy(a->data, data, size);
  }
  return l->nargs++;
}

int md_buf(md_launch *l, const char *name, const void *data, size_t size,
           size_t elem) {
  return add_arg(l, MD_BUF, name, data, size, elem);
}

int md_out(md_launch *l, const char *name, size_t size, size_t elem) {
  return add_arg(l, MD_BUF, name, NULL, size, elem);
}

int md_scalar(md_launch *l, const void *value, size_t size) {
  return add_arg(l, MD_SCALAR_ARG, "scalar", value, size, size);
}

int md_u32(md_launch *l, uint32_t v) { return md_scalar(l, &v, sizeof v); }
int md_i32(md_launch *l, int32_t v) { return md_scalar(l, &v, sizeof v); }

int md_local(md_launch *l, size_t size) {
  return add_arg(l, MD_LOCAL, "local", NULL, size, 1);
}

void md_step_add(md_launch *l, const char *kernel, cl_uint dims,
                 const size_t *global, const size_t *local, int nargs, ...) {
  md_step *s = &l->steps[l->nsteps++];
  memset(s, 0, sizeof *s);
  s->kernel = kernel;
  s->dims = dims;
  for (cl_uint d = 0; d < dims; d++) {
    s->global[d] = global[d];
    s->local[d] = local ? local[d] : 0;
  }
  s->nargs = nargs;
  va_list ap;
  va_start(ap, nargs);
  for (int i = 0; i < nargs; i++)
    s->arg[i] = va_arg(ap, int);
  va_end(ap);
}

void md_launch_free(md_launch *l) {
  for (int a = 0; a < l->nargs; a++)
    free(l->args[a].data);
  l->nargs = 0;
}

/* ---- building in every mode ---- */

static void set_env(const char *name, const char *value) {
  if (value)
    setenv(name, value, 1);
  else
    unsetenv(name);
}

static char *dup_env(const char *name) {
  const char *v = getenv(name);
  return v ? strdup(v) : NULL;
}

/* Runs clBuildProgram with stderr captured into *captured (malloc'd),
 * where SKEIN_DUMP=modes writes one line per kernel. */
static cl_int build_captured(test_env *env, cl_program prog,
                             const char *options, char **captured) {
  test_capture cap;
  test_capture_begin(&cap);
  cl_int err = clBuildProgram(prog, 1, &env->device, options, NULL, NULL);
  *captured = test_capture_end(&cap);
  return err;
}

static void print_build_log(test_env *env, cl_program prog) {
  size_t size = 0;
  clGetProgramBuildInfo(prog, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL,
                        &size);
  char *log = calloc(size + 1, 1);
  clGetProgramBuildInfo(prog, env->device, CL_PROGRAM_BUILD_LOG, size, log,
                        NULL);
  fprintf(stderr, "%s\n", log);
  free(log);
}

/* Builds unit u in mode m, the environment set for it and put back
 * afterwards. */
static int build_mode(test_env *env, md_unit *u, int m, const char *options) {
  char *old_mode = dup_env("SKEIN_MODE"), *old_vec = dup_env("SKEIN_VECTORIZE");
  char *old_dump = dup_env("SKEIN_DUMP");
  set_env("SKEIN_MODE", mode_env[m].mode);
  set_env("SKEIN_VECTORIZE", mode_env[m].vectorize);
  setenv("SKEIN_DUMP", "modes", 1);
  md_note("building in mode %s", md_mode_names[m]);
  cl_int err;
  const char *src = u->source;
  u->prog[m] = clCreateProgramWithSource(env->context, 1, &src, NULL, &err);
  REQUIRE_OK(err);
  double t0 = seconds();
  err = build_captured(env, u->prog[m], options, &u->dump[m]);
  md_stats_out->build_s[m] += seconds() - t0;
  set_env("SKEIN_MODE", old_mode);
  set_env("SKEIN_VECTORIZE", old_vec);
  set_env("SKEIN_DUMP", old_dump);
  free(old_mode);
  free(old_vec);
  free(old_dump);
  if (err == CL_SUCCESS)
    return 0;
  fprintf(stderr, "BUILD FAILED in mode %s (%d):\n", md_mode_names[m], err);
  print_build_log(env, u->prog[m]);
  md_stats_out->errors++;
  return -1;
}

static int count_lines(const char *dump, const char *what) {
  int n = 0;
  for (const char *at = dump; at && (at = strstr(at, what)); at++)
    n++;
  return n;
}

/* Counts the modes of the default build, and checks that the reference
 * really is fiber mode (else the comparison would prove nothing). */
static int account_modes(const md_unit *u) {
  const char *dflt = u->dump[MD_DEFAULT], *fiber = u->dump[MD_FIBER];
  md_stats_out->default_kernel_modes[0] += count_lines(dflt, ": loop mode");
  md_stats_out->default_kernel_modes[1] += count_lines(dflt, ": region mode");
  md_stats_out->default_kernel_modes[2] += count_lines(dflt, ": fiber mode");
  if (count_lines(fiber, ": fiber mode") > 0 &&
      count_lines(fiber, ": loop mode") + count_lines(fiber, ": region mode") ==
          0)
    return 0;
  fprintf(stderr, "SKEIN_MODE=fiber did not give fiber mode:\n%s",
          fiber ? fiber : "(no SKEIN_DUMP=modes output)\n");
  md_stats_out->errors++;
  return -1;
}

/* Where each kernel of source starts ("kernel void" at a line start). */
static int kernel_starts(const char *source, const char **starts, int max) {
  int n = 0;
  for (const char *at = source; (at = strstr(at, "kernel void ")); at++)
    if ((at == source || at[-1] == '\n') && n < max)
      starts[n++] = at;
  return n;
}

static char *concat(const char *a, size_t alen, const char *b, size_t blen) {
  char *s = malloc(alen + blen + 1);
  memcpy(s, a, alen);
  memcpy(s + alen, b, blen);
  s[alen + blen] = 0;
  return s;
}

int md_build(test_env *env, md_program *p, const char *source,
             const char *options, int per_kernel) {
  const char *starts[256];
  int n = per_kernel ? kernel_starts(source, starts, 256) : 0;
  memset(p, 0, sizeof *p);
  p->nunits = n ? n : 1;
  p->units = calloc((size_t)p->nunits, sizeof *p->units);
  if (!n)
    p->units[0].source = strdup(source);
  for (int k = 0; k < n; k++) {
    const char *end = k + 1 < n ? starts[k + 1] : source + strlen(source);
    p->units[k].source = concat(source, (size_t)(starts[0] - source), starts[k],
                                (size_t)(end - starts[k]));
  }
  int failed = 0;
  for (int u = 0; u < p->nunits; u++) {
    int unit_failed = 0;
    for (int m = 0; m < MD_NMODES; m++)
      unit_failed |= build_mode(env, &p->units[u], m, options);
    if (unit_failed)
      fprintf(stderr, "(the source that failed:)\n%s\n", p->units[u].source);
    else
      unit_failed = account_modes(&p->units[u]);
    failed |= unit_failed;
  }
  return failed ? -1 : 0;
}

void md_program_release(md_program *p) {
  for (int u = 0; u < p->nunits; u++) {
    for (int m = 0; m < MD_NMODES; m++) {
      if (p->units[u].prog[m])
        clReleaseProgram(p->units[u].prog[m]);
      free(p->units[u].dump[m]);
    }
    free(p->units[u].source);
  }
  free(p->units);
  memset(p, 0, sizeof *p);
}

/* The unit that defines kernel (NULL if none). */
static const md_unit *unit_for(const md_program *p, const char *kernel) {
  char key[160];
  snprintf(key, sizeof key, "kernel void %s(", kernel);
  for (int u = 0; u < p->nunits; u++)
    if (strstr(p->units[u].source, key))
      return &p->units[u];
  return NULL;
}

const char *md_kernel_mode(const md_program *p, int m, const char *kernel) {
  char key[160];
  snprintf(key, sizeof key, "kernel %s: ", kernel);
  const md_unit *u = unit_for(p, kernel);
  const char *at = u && u->dump[m] ? strstr(u->dump[m], key) : NULL;
  if (!at)
    return "?";
  at += strlen(key);
  if (strncmp(at, "loop", 4) == 0)
    return "loop";
  if (strncmp(at, "region", 6) == 0)
    return "region";
  if (strncmp(at, "fiber", 5) == 0)
    return "fiber";
  return "?";
}

/* ---- running one mode ---- */

static size_t front_guard(test_env *env) {
  static size_t bytes;
  if (!bytes) {
    cl_uint bits = 0;
    REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                               sizeof bits, &bits, NULL));
    bytes = bits / 8 > 128 ? bits / 8 : 128;
  }
  return bytes;
}

/* The whole guarded block of buffer argument a as first written. */
static unsigned char *initial_block(test_env *env, const md_arg *a) {
  size_t front = front_guard(env), total = front + a->size + BACK_GUARD;
  unsigned char *b = malloc(total);
  memset(b, GUARD, total);
  if (a->data)
    memcpy(b + front, a->data, a->size);
  else
    memset(b + front, MD_POISON, a->size);
  return b;
}

typedef struct mode_run {
  cl_int err;            /* first failing call, CL_SUCCESS if none */
  const char *failed_at; /* which call failed */
  unsigned char *block[MD_MAX_ARGS]; /* guarded contents after the run */
} mode_run;

static cl_int set_args(cl_kernel k, const md_launch *l, const md_step *s,
                       cl_mem *sub) {
  for (int i = 0; i < s->nargs; i++) {
    const md_arg *a = &l->args[s->arg[i]];
    cl_int err;
    if (a->kind == MD_BUF)
      err = clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &sub[s->arg[i]]);
    else if (a->kind == MD_LOCAL)
      err = clSetKernelArg(k, (cl_uint)i, a->size, NULL);
    else
      err = clSetKernelArg(k, (cl_uint)i, a->size, a->data);
    if (err != CL_SUCCESS)
      return err;
  }
  return CL_SUCCESS;
}

static void run_steps(test_env *env, const md_program *p, int m,
                      const md_launch *l, cl_mem *sub, mode_run *r) {
  for (int s = 0; s < l->nsteps && r->err == CL_SUCCESS; s++) {
    const md_step *st = &l->steps[s];
    const md_unit *u = unit_for(p, st->kernel);
    if (!u) {
      fprintf(stderr, "%s: no kernel %s in the program\n", l->label,
              st->kernel);
      r->err = CL_INVALID_KERNEL_NAME;
      r->failed_at = "finding the kernel";
      break;
    }
    cl_kernel k = clCreateKernel(u->prog[m], st->kernel, &r->err);
    r->failed_at = "clCreateKernel";
    if (r->err != CL_SUCCESS)
      break;
    r->err = set_args(k, l, st, sub);
    r->failed_at = "clSetKernelArg";
    if (r->err == CL_SUCCESS) {
      r->err = clEnqueueNDRangeKernel(env->queue, k, st->dims, NULL, st->global,
                                      st->local[0] ? st->local : NULL, 0, NULL,
                                      NULL);
      r->failed_at = "clEnqueueNDRangeKernel";
    }
    if (r->err == CL_SUCCESS) {
      r->err = clFinish(env->queue);
      r->failed_at = "clFinish";
    }
    clReleaseKernel(k);
  }
}

/* Runs every step of l with program prog on fresh buffers. */
static void run_mode(test_env *env, const md_program *p, int m,
                     const md_launch *l, mode_run *r) {
  memset(r, 0, sizeof *r);
  cl_mem parent[MD_MAX_ARGS] = {0}, sub[MD_MAX_ARGS] = {0};
  size_t front = front_guard(env);
  for (int a = 0; a < l->nargs; a++) {
    if (l->args[a].kind != MD_BUF)
      continue;
    r->block[a] = initial_block(env, &l->args[a]);
    size_t total = front + l->args[a].size + BACK_GUARD;
    parent[a] = test_buffer(env, total, r->block[a]);
    cl_buffer_region region = {front, l->args[a].size};
    cl_int err;
    sub[a] = clCreateSubBuffer(parent[a], CL_MEM_READ_WRITE,
                               CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    REQUIRE_OK(err);
  }
  run_steps(env, p, m, l, sub, r);
  for (int a = 0; a < l->nargs; a++) {
    if (!parent[a])
      continue;
    size_t total = front + l->args[a].size + BACK_GUARD;
    REQUIRE_OK(clEnqueueReadBuffer(env->queue, parent[a], CL_TRUE, 0, total,
                                   r->block[a], 0, NULL, NULL));
    REQUIRE_OK(clReleaseMemObject(sub[a]));
    REQUIRE_OK(clReleaseMemObject(parent[a]));
  }
}

static void mode_run_free(mode_run *r) {
  for (int a = 0; a < MD_MAX_ARGS; a++)
    free(r->block[a]);
}

/* ---- comparing ---- */

static unsigned long long element(const unsigned char *p, size_t elem) {
  unsigned long long v = 0;
  memcpy(&v, p, elem <= 8 ? elem : 8);
  return v;
}

/* Describes which kernels of l mode m ran in ("k: region"). */
static void kernel_modes(const md_program *p, int m, const md_launch *l,
                         char *out, size_t size) {
  out[0] = 0;
  for (int s = 0; s < l->nsteps; s++) {
    size_t used = strlen(out);
    snprintf(out + used, size - used, "%s%s in %s mode", s ? ", " : "",
             l->steps[s].kernel, md_kernel_mode(p, m, l->steps[s].kernel));
  }
}

/* Prints the differing elements of the data part of one buffer. */
static void print_diff(const md_arg *a, const unsigned char *got,
                       const unsigned char *want) {
  size_t n = a->size / a->elem, differ = 0, shown = 0;
  for (size_t i = 0; i < n; i++)
    differ += memcmp(got + i * a->elem, want + i * a->elem, a->elem) != 0;
  fprintf(stderr, "    buffer %s: %zu of %zu elements differ", a->name, differ,
          n);
  for (size_t i = 0; i < n && shown < 4; i++) {
    if (memcmp(got + i * a->elem, want + i * a->elem, a->elem) == 0)
      continue;
    fprintf(stderr, "%s [%zu] = 0x%llx (fiber 0x%llx)", shown ? "," : ":", i,
            element(got + i * a->elem, a->elem),
            element(want + i * a->elem, a->elem));
    shown++;
  }
  fprintf(stderr, "\n");
}

/* True if the guard zones of buffer a's block are intact. */
static int guards_intact(size_t front, const md_arg *a,
                         const unsigned char *block) {
  for (size_t i = 0; i < front; i++)
    if (block[i] != GUARD)
      return 0;
  for (size_t i = 0; i < BACK_GUARD; i++)
    if (block[front + a->size + i] != GUARD)
      return 0;
  return 1;
}

/* Compares mode m's run with the fiber run; returns 1 if they differ. */
static int compare_mode(test_env *env, const md_program *p, const md_launch *l,
                        int m, const mode_run *got, const mode_run *want) {
  char modes[512];
  kernel_modes(p, m, l, modes, sizeof modes);
  if (got->err != CL_SUCCESS) {
    fprintf(stderr, "MISMATCH %s: mode %s (%s): %s failed with %d\n", l->label,
            md_mode_names[m], modes, got->failed_at, got->err);
    return 1;
  }
  size_t front = front_guard(env);
  int differs = 0;
  for (int a = 0; a < l->nargs; a++) {
    const md_arg *arg = &l->args[a];
    if (arg->kind != MD_BUF)
      continue;
    size_t total = front + arg->size + BACK_GUARD;
    if (memcmp(got->block[a], want->block[a], total) == 0)
      continue;
    if (!differs)
      fprintf(stderr, "MISMATCH %s: mode %s (%s) differs from fiber mode\n",
              l->label, md_mode_names[m], modes);
    differs = 1;
    if (!guards_intact(front, arg, got->block[a]))
      fprintf(stderr, "    buffer %s: written outside its bounds\n", arg->name);
    print_diff(arg, got->block[a] + front, want->block[a] + front);
  }
  return differs;
}

/* The fiber run is the reference: it must succeed and stay in bounds. */
static int check_reference(test_env *env, const md_launch *l,
                           const mode_run *ref) {
  if (ref->err != CL_SUCCESS) {
    fprintf(stderr, "FIBER RUN FAILED %s: %s returned %d\n", l->label,
            ref->failed_at, ref->err);
    return -1;
  }
  for (int a = 0; a < l->nargs; a++)
    if (l->args[a].kind == MD_BUF &&
        !guards_intact(front_guard(env), &l->args[a], ref->block[a])) {
      fprintf(stderr, "FIBER RUN WROTE OUT OF BOUNDS %s: buffer %s\n", l->label,
              l->args[a].name);
      return -1;
    }
  return 0;
}

/* True if the fiber run left every buffer as it was first written. */
static int changed_nothing(test_env *env, const md_launch *l,
                           const mode_run *ref) {
  size_t front = front_guard(env);
  for (int a = 0; a < l->nargs; a++) {
    if (l->args[a].kind != MD_BUF)
      continue;
    unsigned char *initial = initial_block(env, &l->args[a]);
    int same = memcmp(initial + front, ref->block[a] + front,
                      l->args[a].size) == 0;
    free(initial);
    if (!same)
      return 0;
  }
  return 1;
}

int md_compare(test_env *env, md_program *p, const md_launch *l,
               void *fiber[MD_MAX_ARGS]) {
  mode_run runs[MD_NMODES];
  for (int m = 0; m < MD_NMODES; m++) {
    md_note("%s: mode %s", l->label, md_mode_names[m]);
    double t0 = seconds();
    run_mode(env, p, m, l, &runs[m]);
    md_stats_out->run_s[m] += seconds() - t0;
  }
  md_stats_out->launches++;
  int result = check_reference(env, l, &runs[MD_FIBER]);
  if (result < 0)
    md_stats_out->errors++;
  else if (changed_nothing(env, l, &runs[MD_FIBER]))
    md_stats_out->unchanged++;
  for (int m = 1; m < MD_NMODES && result >= 0; m++) {
    md_stats_out->compared[m]++;
    if (compare_mode(env, p, l, m, &runs[m], &runs[MD_FIBER])) {
      md_stats_out->mismatches++;
      result++;
    }
  }
  size_t front = front_guard(env);
  for (int a = 0; a < MD_MAX_ARGS; a++) {
    fiber[a] = NULL;
    if (a < l->nargs && l->args[a].kind == MD_BUF) {
      fiber[a] = malloc(l->args[a].size);
      memcpy(fiber[a], runs[MD_FIBER].block[a] + front, l->args[a].size);
    }
  }
  for (int m = 0; m < MD_NMODES; m++)
    mode_run_free(&runs[m]);
  return result;
}

void md_results_free(void *fiber[MD_MAX_ARGS]) {
  for (int a = 0; a < MD_MAX_ARGS; a++) {
    free(fiber[a]);
    fiber[a] = NULL;
  }
}

/* ---- host references ---- */

int md_expect(const md_launch *l, const char *what, const void *got,
              const void *want, size_t n, size_t elem) {
  const unsigned char *g = got, *w = want;
  for (size_t i = 0; i < n; i++) {
    if (memcmp(g + i * elem, w + i * elem, elem) == 0)
      continue;
    fprintf(stderr,
            "HOST REFERENCE %s: fiber mode's %s[%zu] = 0x%llx, host 0x%llx\n",
            l->label, what, i, element(g + i * elem, elem),
            element(w + i * elem, elem));
    md_stats_out->host_failures++;
    return 1;
  }
  return 0;
}

int md_expect_float(const md_launch *l, const char *what, const float *got,
                    const float *want, size_t n, float tol) {
  for (size_t i = 0; i < n; i++) {
    float scale = fabsf(want[i]) > 1.0f ? fabsf(want[i]) : 1.0f;
    if (fabsf(got[i] - want[i]) <= tol * scale)
      continue;
    fprintf(stderr, "HOST REFERENCE %s: fiber mode's %s[%zu] = %g, host %g\n",
            l->label, what, i, got[i], want[i]);
    md_stats_out->host_failures++;
    return 1;
  }
  return 0;
}
