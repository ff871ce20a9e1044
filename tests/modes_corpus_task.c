/* This file contains the corpus's serial "task" kernels: what algorithm
 * libraries launch for small inputs (count_if, find, accumulate with a
 * differently typed accumulator, min/max element, any/all/none of,
 * is_sorted_until, lower_bound, copy_if), where every work-item runs the
 * whole loop and stores one result to a uniform address. Each is launched
 * over 1, 4, 16 and 64 work-items (the driver's local size, and explicit
 * ones of 4 and 3) and checked against a host reference. The issue-13
 * kernel count_gt is here verbatim. */
#include "modes_corpus.h"
#include <limits.h>

static const char source[] =
    "kernel void count_gt(global const float *input, uint size,\n"
    "                     global int *result) {\n"
    "  int count = 0;\n"
    "  for (uint i = 0; i < size; i++) { if (input[i] > 2.0f) count++; }\n"
    "  *result = count;\n"
    "}\n"
    /* The table kernels share one signature: (in, n, key, result). */
    "kernel void count_if_eq(global const int *in, uint n, int key,\n"
    "                        global int *result) {\n"
    "  int c = 0;\n"
    "  for (uint i = 0; i < n; i++) c += in[i] == key;\n"
    "  *result = c;\n"
    "}\n"
    "kernel void find_first(global const int *in, uint n, int key,\n"
    "                       global uint *result) {\n"
    "  uint pos = n;\n"
    "  for (uint i = 0; i < n; i++) {\n"
    "    if (in[i] == key) { pos = i; break; }\n"
    "  }\n"
    "  *result = pos;\n"
    "}\n"
    "kernel void find_float(global const float *in, uint n, int key,\n"
    "                       global uint *result) {\n"
    "  uint pos = n;\n"
    "  for (uint i = 0; i < n; i++)\n"
    "    if (in[i] == (float)key) { pos = i; break; }\n"
    "  *result = pos;\n"
    "}\n"
    /* accumulate(first, last, int init): acc = acc + x in float. */
    "kernel void accumulate_int_float(global const float *in, uint n,\n"
    "                                 int key, global int *result) {\n"
    "  int acc = key;\n"
    "  for (uint i = 0; i < n; i++) acc = acc + in[i];\n"
    "  *result = acc;\n"
    "}\n"
    "kernel void sum_short_int(global const short *in, uint n, int key,\n"
    "                          global int *result) {\n"
    "  int s = 0;\n"
    "  for (uint i = 0; i < n; i++) s += in[i];\n"
    "  *result = s;\n"
    "}\n"
    "kernel void sum_uchar_uint(global const uchar *in, uint n, int key,\n"
    "                           global uint *result) {\n"
    "  uint s = (uint)key;\n"
    "  uint i = 0;\n"
    "  while (i < n) s += in[i++];\n"
    "  *result = s;\n"
    "}\n"
    "kernel void sum_int_long(global const int *in, uint n, int key,\n"
    "                         global long *result) {\n"
    "  long s = key;\n"
    "  for (uint i = 0; i < n; i++) s += (long)in[i] * 1000003L;\n"
    "  *result = s;\n"
    "}\n"
    "kernel void min_element(global const float *in, uint n, int key,\n"
    "                        global uint *result) {\n"
    "  uint best = 0;\n"
    "  for (uint i = 1; i < n; i++) if (in[i] < in[best]) best = i;\n"
    "  *result = best;\n"
    "}\n"
    "kernel void max_element(global const int *in, uint n, int key,\n"
    "                        global uint *result) {\n"
    "  uint best = 0;\n"
    "  int v = n ? in[0] : 0;\n"
    "  for (uint i = 1; i < n; i++)\n"
    "    if (in[i] > v) { v = in[i]; best = i; }\n"
    "  *result = best;\n"
    "}\n"
    "kernel void minmax_value(global const int *in, uint n, int key,\n"
    "                         global int *result) {\n"
    "  int lo = INT_MAX, hi = INT_MIN;\n"
    "  for (uint i = 0; i < n; i++) { lo = min(lo, in[i]); hi = max(hi, "
    "in[i]); }\n"
    "  result[0] = lo;\n"
    "  result[1] = hi;\n"
    "}\n"
    "kernel void any_negative(global const float *in, uint n, int key,\n"
    "                         global int *result) {\n"
    "  int any = 0;\n"
    "  for (uint i = 0; i < n; i++) { if (in[i] < 0.0f) { any = 1; break; } }\n"
    "  *result = any;\n"
    "}\n"
    "kernel void all_below(global const int *in, uint n, int key,\n"
    "                      global int *result) {\n"
    "  int all = 1;\n"
    "  for (uint i = 0; i < n; i++) if (!(in[i] < key)) { all = 0; break; }\n"
    "  *result = all;\n"
    "}\n"
    "kernel void none_of_short(global const short *in, uint n, int key,\n"
    "                          global int *result) {\n"
    "  bool none = true;\n"
    "  for (uint i = 0; i < n && none; i++) none = in[i] != (short)key;\n"
    "  *result = none;\n"
    "}\n"
    "kernel void is_sorted_until(global const int *in, uint n, int key,\n"
    "                            global uint *result) {\n"
    "  uint k = n;\n"
    "  for (uint i = 1; i < n; i++) if (in[i] < in[i - 1]) { k = i; break; }\n"
    "  *result = k;\n"
    "}\n"
    "kernel void lower_bound(global const int *in, uint n, int key,\n"
    "                        global uint *result) {\n"
    "  uint lo = 0, hi = n;\n"
    "  while (lo < hi) {\n"
    "    uint mid = lo + (hi - lo) / 2;\n"
    "    if (in[mid] < key) lo = mid + 1; else hi = mid;\n"
    "  }\n"
    "  *result = lo;\n"
    "}\n"
    "kernel void adjacent_find(global const int *in, uint n, int key,\n"
    "                          global uint *result) {\n"
    "  uint pos = n;\n"
    "  for (uint i = 0; i + 1 < n; i++)\n"
    "    if (in[i] == in[i + 1]) { pos = i; break; }\n"
    "  *result = pos;\n"
    "}\n"
    "kernel void dot_float(global const float *in, uint n, int key,\n"
    "                      global float *result) {\n"
    "  float s = (float)key;\n"
    "  for (uint i = 0; i < n; i++) s += in[i] * in[n - 1 - i];\n"
    "  *result = s;\n"
    "}\n"
    "kernel void count_sum_skip(global const int *in, uint n, int key,\n"
    "                           global int *result) {\n"
    "  int s = 0, c = 0;\n"
    "  uint i = 0;\n"
    "  while (i < n) {\n"
    "    int v = in[i++];\n"
    "    if (v < key) continue;\n"
    "    s += v;\n"
    "    c++;\n"
    "  }\n"
    "  result[0] = c;\n"
    "  result[1] = s;\n"
    "}\n"
    "kernel void histogram4(global const int *in, uint n, int key,\n"
    "                       global uint *result) {\n"
    "  uint h[4] = {0, 0, 0, 0};\n"
    "  for (uint i = 0; i < n; i++) h[in[i] & 3]++;\n"
    "  for (uint k = 0; k < 4; k++) result[k] = h[k];\n"
    "}\n"
    "kernel void count_in_range(global const short *in, uint n, int key,\n"
    "                           global uint *result) {\n"
    "  uint c = 0;\n"
    "  for (uint i = 0; i < n; i++)\n"
    "    if (in[i] >= -key && in[i] <= key) c++;\n"
    "  *result = c;\n"
    "}\n"
    "kernel void copy_if_serial(global const int *in, uint n, int key,\n"
    "                           global int *result) {\n"
    "  uint j = 1;\n"
    "  for (uint i = 0; i < n && j < 8; i++)\n"
    "    if (in[i] % 3 == 0) result[j++] = in[i];\n"
    "  result[0] = (int)j - 1;\n"
    "}\n";

/* Element types of the inputs. */
/* I32_SORTED ascends but for one element; I32_ASC ascends. */
enum { F32, I32, I32_SORTED, I32_ASC, I16, U8 };
static const size_t type_size[] = {4, 4, 4, 4, 2, 1};

typedef union task_in {
  const void *v;
  const float *f;
  const int *i;
  const short *s;
  const unsigned char *b;
} task_in;

/* The host reference of one task: writes the result words over a
 * buffer of poison bytes. */
typedef void (*task_ref)(task_in in, unsigned n, int key, void *result);

static void ref_count_if_eq(task_in in, unsigned n, int key, void *r) {
  int c = 0;
  for (unsigned i = 0; i < n; i++)
    c += in.i[i] == key;
  *(int *)r = c;
}

static void ref_find_first(task_in in, unsigned n, int key, void *r) {
  unsigned pos = n;
  for (unsigned i = 0; i < n && pos == n; i++)
    if (in.i[i] == key)
      pos = i;
  *(unsigned *)r = pos;
}

static void ref_find_float(task_in in, unsigned n, int key, void *r) {
  unsigned pos = n;
  for (unsigned i = 0; i < n && pos == n; i++)
    if (in.f[i] == (float)key)
      pos = i;
  *(unsigned *)r = pos;
}

static void ref_accumulate(task_in in, unsigned n, int key, void *r) {
  int acc = key;
  for (unsigned i = 0; i < n; i++)
    acc = (int)((float)acc + in.f[i]);
  *(int *)r = acc;
}

static void ref_sum_short(task_in in, unsigned n, int key, void *r) {
  (void)key;
  int s = 0;
  for (unsigned i = 0; i < n; i++)
    s += in.s[i];
  *(int *)r = s;
}

static void ref_sum_uchar(task_in in, unsigned n, int key, void *r) {
  unsigned s = (unsigned)key;
  for (unsigned i = 0; i < n; i++)
    s += in.b[i];
  *(unsigned *)r = s;
}

static void ref_sum_long(task_in in, unsigned n, int key, void *r) {
  long long s = key;
  for (unsigned i = 0; i < n; i++)
    s += (long long)in.i[i] * 1000003LL;
  *(long long *)r = s;
}

static void ref_min_element(task_in in, unsigned n, int key, void *r) {
  (void)key;
  unsigned best = 0;
  for (unsigned i = 1; i < n; i++)
    if (in.f[i] < in.f[best])
      best = i;
  *(unsigned *)r = best;
}

static void ref_max_element(task_in in, unsigned n, int key, void *r) {
  (void)key;
  unsigned best = 0;
  for (unsigned i = 1; i < n; i++)
    if (in.i[i] > in.i[best])
      best = i;
  *(unsigned *)r = best;
}

static void ref_minmax(task_in in, unsigned n, int key, void *r) {
  (void)key;
  int lo = INT_MAX, hi = INT_MIN;
  for (unsigned i = 0; i < n; i++) {
    lo = in.i[i] < lo ? in.i[i] : lo;
    hi = in.i[i] > hi ? in.i[i] : hi;
  }
  ((int *)r)[0] = lo;
  ((int *)r)[1] = hi;
}

static void ref_any_negative(task_in in, unsigned n, int key, void *r) {
  (void)key;
  int any = 0;
  for (unsigned i = 0; i < n; i++)
    any |= in.f[i] < 0.0f;
  *(int *)r = any;
}

static void ref_all_below(task_in in, unsigned n, int key, void *r) {
  int all = 1;
  for (unsigned i = 0; i < n; i++)
    all &= in.i[i] < key;
  *(int *)r = all;
}

static void ref_none_of_short(task_in in, unsigned n, int key, void *r) {
  int none = 1;
  for (unsigned i = 0; i < n; i++)
    none &= in.s[i] != (short)key;
  *(int *)r = none;
}

static void ref_is_sorted_until(task_in in, unsigned n, int key, void *r) {
  (void)key;
  unsigned k = n;
  for (unsigned i = 1; i < n && k == n; i++)
    if (in.i[i] < in.i[i - 1])
      k = i;
  *(unsigned *)r = k;
}

static void ref_lower_bound(task_in in, unsigned n, int key, void *r) {
  unsigned i = 0;
  while (i < n && in.i[i] < key)
    i++;
  *(unsigned *)r = i;
}

static void ref_adjacent_find(task_in in, unsigned n, int key, void *r) {
  (void)key;
  unsigned pos = n;
  for (unsigned i = 0; i + 1 < n && pos == n; i++)
    if (in.i[i] == in.i[i + 1])
      pos = i;
  *(unsigned *)r = pos;
}

/* Inputs are multiples of 0.5 below 8 in magnitude: every product and
 * partial sum is exact, so fused or not, any order of rounding agrees. */
static void ref_dot_float(task_in in, unsigned n, int key, void *r) {
  float s = (float)key;
  for (unsigned i = 0; i < n; i++)
    s += in.f[i] * in.f[n - 1 - i];
  *(float *)r = s;
}

static void ref_count_sum_skip(task_in in, unsigned n, int key, void *r) {
  int s = 0, c = 0;
  for (unsigned i = 0; i < n; i++)
    if (in.i[i] >= key) {
      s += in.i[i];
      c++;
    }
  ((int *)r)[0] = c;
  ((int *)r)[1] = s;
}

static void ref_histogram4(task_in in, unsigned n, int key, void *r) {
  (void)key;
  unsigned *h = r;
  memset(h, 0, 4 * sizeof *h);
  for (unsigned i = 0; i < n; i++)
    h[in.i[i] & 3]++;
}

static void ref_count_in_range(task_in in, unsigned n, int key, void *r) {
  unsigned c = 0;
  for (unsigned i = 0; i < n; i++)
    c += in.s[i] >= -key && in.s[i] <= key;
  *(unsigned *)r = c;
}

/* copy_if leaves result[j] for j past the copies as it found them: the
 * poison bytes the harness fills output buffers with (and run_task the
 * host result). */
static void ref_copy_if(task_in in, unsigned n, int key, void *r) {
  (void)key;
  int *out = r;
  unsigned j = 1;
  for (unsigned i = 0; i < n && j < 8; i++)
    if (in.i[i] % 3 == 0)
      out[j++] = in.i[i];
  out[0] = (int)j - 1;
}

typedef struct task {
  const char *kernel;
  int in_type;
  size_t elem; /* element size of the result, for reports */
  task_ref ref;
} task;

static const task tasks[] = {
    {"count_if_eq", I32, 4, ref_count_if_eq},
    {"find_first", I32, 4, ref_find_first},
    {"find_float", F32, 4, ref_find_float},
    {"accumulate_int_float", F32, 4, ref_accumulate},
    {"sum_short_int", I16, 4, ref_sum_short},
    {"sum_uchar_uint", U8, 4, ref_sum_uchar},
    {"sum_int_long", I32, 8, ref_sum_long},
    {"min_element", F32, 4, ref_min_element},
    {"max_element", I32, 4, ref_max_element},
    {"minmax_value", I32, 4, ref_minmax},
    {"any_negative", F32, 4, ref_any_negative},
    {"all_below", I32, 4, ref_all_below},
    {"none_of_short", I16, 4, ref_none_of_short},
    {"is_sorted_until", I32_SORTED, 4, ref_is_sorted_until},
    {"lower_bound", I32_ASC, 4, ref_lower_bound},
    {"adjacent_find", I32, 4, ref_adjacent_find},
    {"dot_float", F32, 4, ref_dot_float},
    {"count_sum_skip", I32, 4, ref_count_sum_skip},
    {"histogram4", I32, 4, ref_histogram4},
    {"count_in_range", I16, 4, ref_count_in_range},
    {"copy_if_serial", I32, 4, ref_copy_if},
};

/* Fills n inputs of type t: small values with repeats (so that finds
 * hit), some negative; sorted ones ascend with a break near the end when
 * unsorted_at < n. */
static void fill_input(int t, void *in, unsigned n, unsigned unsorted_at) {
  for (unsigned i = 0; i < n; i++) {
    int v = corpus_rand(-20, 40);
    switch (t) {
    case F32:
      ((float *)in)[i] = (float)corpus_rand(-14, 15) * 0.5f;
      break;
    case I32:
      ((int *)in)[i] = v;
      break;
    case I32_SORTED:
      ((int *)in)[i] = (int)(i / 3) * 2 - 7 - (i == unsorted_at) * 100;
      break;
    case I32_ASC:
      ((int *)in)[i] = (int)(i / 3) * 2 - 7;
      break;
    case I16:
      ((short *)in)[i] = (short)corpus_rand(-32768, 32767);
      break;
    case U8:
      ((unsigned char *)in)[i] = (unsigned char)corpus_rand(0, 255);
    }
  }
}

/* The key: usually an element (so find hits), sometimes absent. */
static int pick_key(int t, const void *in, unsigned n) {
  if (n == 0 || corpus_rand(0, 3) == 0)
    return corpus_rand(-3, 3) * 1000 + 999;
  unsigned i = (unsigned)corpus_rand(0, (int)n - 1);
  switch (t) {
  case F32:
    return (int)((const float *)in)[i];
  case I16:
    return ((const short *)in)[i];
  case U8:
    return ((const unsigned char *)in)[i];
  default:
    return ((const int *)in)[i];
  }
}

/* The launch shapes of a task: global size and local size (0: the
 * driver's). A task's result must not depend on either. */
static const size_t shapes[][2] = {{1, 0},  {4, 0},  {16, 0}, {64, 0},
                                   {16, 4}, {64, 3}, {5, 5}};

static void run_task(md_ctx *c, const task *t, unsigned n, size_t global,
                     size_t local) {
  size_t isz = type_size[t->in_type];
  void *in = calloc(n ? n : 1, isz);
  fill_input(t->in_type, in, n, (unsigned)corpus_rand(0, (int)n + 3));
  int key = pick_key(t->in_type, in, n);
  md_launch l;
  md_init(&l, "%s n=%u key=%d global=%zu local=%zu", t->kernel, n, key, global,
          local);
  int a_in = md_buf(&l, "in", in, (n ? n : 1) * isz, isz);
  int a_n = md_u32(&l, n), a_key = md_i32(&l, key);
  int a_r = md_out(&l, "result", 32, t->elem);
  md_step_add(&l, t->kernel, 1, &global, local ? &local : NULL, 4, a_in, a_n,
              a_key, a_r);
  /* The whole result buffer: what the kernel does not store stays
   * poison. */
  unsigned char want[32];
  memset(want, MD_POISON, sizeof want);
  t->ref((task_in){.v = in}, n, key, want);
  corpus_check(c, &l, {a_r, want});
  free(in);
}

/* Task t over every size and shape (n = 0 included: a serial loop that
 * runs no iteration must still store its initial value). */
static void family_task(md_ctx *c, int t) {
  static const unsigned sizes[] = {0, 1, 5, 37, 1000};
  test_seed(1301 + (unsigned long long)t);
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
    for (size_t h = 0; h < sizeof shapes / sizeof *shapes; h++)
      run_task(c, &tasks[t], sizes[s], shapes[h][0], shapes[h][1]);
}

/* The reproduction of issue 13 as written: {1,2,3,4,5} gives 3. */
static void family_count_gt(md_ctx *c, int arg) {
  (void)arg;
  static const float in[] = {1, 2, 3, 4, 5};
  for (size_t h = 0; h < sizeof shapes / sizeof *shapes; h++) {
    md_launch l;
    size_t global = shapes[h][0], local = shapes[h][1];
    md_init(&l, "count_gt {1,2,3,4,5} global=%zu local=%zu", global, local);
    int a_in = md_buf(&l, "input", in, sizeof in, 4);
    int a_n = md_u32(&l, 5), a_r = md_out(&l, "result", 4, 4);
    md_step_add(&l, "count_gt", 1, &global, local ? &local : NULL, 3, a_in, a_n,
                a_r);
    int want = 3;
    corpus_check(c, &l, {a_r, &want});
  }
}

#define TASK(i)                                                                \
  { "task " #i, family_task, i }
static const corpus_family families[] = {
    {"count_gt", family_count_gt, 0},
    TASK(0),
    TASK(1),
    TASK(2),
    TASK(3),
    TASK(4),
    TASK(5),
    TASK(6),
    TASK(7),
    TASK(8),
    TASK(9),
    TASK(10),
    TASK(11),
    TASK(12),
    TASK(13),
    TASK(14),
    TASK(15),
    TASK(16),
    TASK(17),
    TASK(18),
    TASK(19),
    TASK(20),
};
_Static_assert(sizeof families / sizeof *families ==
                   1 + sizeof tasks / sizeof *tasks,
               "one family per task");

const corpus_part corpus_task = {"task", source, families,
                                 sizeof families / sizeof *families};
