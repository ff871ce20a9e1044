/* This file tests the sub-group functions of OpenCL C 3.0 (the
 * __opencl_c_subgroups feature) through the ICD loader: the queries
 * (get_sub_group_size, get_max_sub_group_size, get_num_sub_groups,
 * get_enqueued_num_sub_groups, get_sub_group_id, get_sub_group_local_id),
 * sub_group_all/any/broadcast and reduce/scan_inclusive/scan_exclusive of
 * add, min and max for int, uint, long, ulong, float, double and half, on
 * 1D, 2D and 3D groups, partial groups of non-uniform NDRanges, groups
 * whose size is not a multiple of the sub-group size and groups of one,
 * against a host reference that maps linear local ids onto sub-groups the
 * way the device says it does (runs of the sub-group size, which must be
 * the SIMD width for 32-bit lanes). Then sub_group_barrier through local
 * memory, sub-groups that take different paths (each still meeting its
 * own collectives), a work-group barrier between sub-group collectives,
 * and a kernel that breaks the rules (part of a sub-group returns early),
 * which must finish. ctest runs it in the default (region) mode and
 * again in fiber, loop and scalar form (tests/mode_variants.cmake); the
 * default run also checks that the uniform kernels went to region mode
 * and the divergent ones to fiber mode. */
#include "test_util.h"
#include <math.h>
#include <stdint.h>

static test_env env;
static size_t sg_size;   /* the device's sub-group size */

/* ---- Shapes --------------------------------------------------------- */

typedef struct shape {
  cl_uint dims;
  size_t global[3], local[3];   /* local[0] == 0: the driver chooses */
} shape;

static const shape shapes[] = {
    {1, {1, 1, 1}, {1, 1, 1}},
    {1, {5, 1, 1}, {5, 1, 1}},
    {1, {37, 1, 1}, {37, 1, 1}},
    {1, {96, 1, 1}, {16, 1, 1}},
    {1, {100, 1, 1}, {24, 1, 1}},      /* non-uniform: last group of 4 */
    {1, {1000, 1, 1}, {300, 1, 1}},    /* last group of 100 */
    {1, {2048, 1, 1}, {1024, 1, 1}},
    {1, {77, 1, 1}, {0, 0, 0}},
    {2, {13, 7, 1}, {5, 3, 1}},        /* partial in both dimensions */
    {2, {32, 8, 1}, {8, 8, 1}},
    {2, {3, 3, 1}, {3, 3, 1}},
    {3, {9, 5, 3}, {3, 3, 3}},
    {3, {8, 8, 8}, {4, 4, 4}},
    {3, {7, 6, 5}, {4, 4, 2}},         /* partial in every dimension */
};
#define NUM_SHAPES (sizeof shapes / sizeof shapes[0])

/* Where work-item (x, y, z) of shape s sits: its linear global index
 * (x fastest, as get_global_linear_id), its linear local id, its group's
 * size and the group's enqueued size. */
typedef struct place {
  size_t index, lid, group_n, enq_n, group;
} place;

static size_t total_items(const shape *s) {
  return s->global[0] * s->global[1] * s->global[2];
}

static place place_of(const shape *s, const size_t *local, size_t x,
                      size_t y, size_t z) {
  size_t id[3] = {x, y, z}, l[3], size[3], grp[3], ng[3];
  place p = {0};
  p.enq_n = 1;
  p.group_n = 1;
  for (int d = 0; d < 3; d++) {
    grp[d] = id[d] / local[d];
    l[d] = id[d] % local[d];
    size_t left = s->global[d] - grp[d] * local[d];
    size[d] = left < local[d] ? left : local[d];
    ng[d] = (s->global[d] + local[d] - 1) / local[d];
    p.enq_n *= local[d];
    p.group_n *= size[d];
  }
  p.index = (z * s->global[1] + y) * s->global[0] + x;
  p.lid = (l[2] * size[1] + l[1]) * size[0] + l[0];
  p.group = (grp[2] * ng[1] + grp[1]) * ng[0] + grp[0];
  return p;
}

/* Runs kernel k over shape s (the local size it ran with in *local). */
static void run(cl_kernel k, const shape *s, size_t *local) {
  size_t *ls = s->local[0] ? (size_t *)s->local : NULL;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, s->dims, NULL, s->global,
                                    ls, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  /* With the driver's choice (1D only here), test_queries reads the
   * size from get_enqueued_local_size. */
  for (int d = 0; d < 3; d++)
    local[d] = d < (int)s->dims ? s->local[d] : 1;
}

/* ---- Sub-group map of one group: per linear global index, the
 * work-items of its sub-group (their global indices in sub-group local
 * id order). Built from the places of all work-items. ------------------ */

typedef struct sg_map {
  size_t n;            /* work-items */
  place *places;       /* by linear global index */
  size_t *order;       /* global indices sorted by (group, lid) */
  size_t *pos;         /* pos[index]: where index is in order */
} sg_map;

static const place *cmp_places;
static int by_group_lid(const void *a, const void *b) {
  const place *p = &cmp_places[*(const size_t *)a];
  const place *q = &cmp_places[*(const size_t *)b];
  if (p->group != q->group)
    return p->group < q->group ? -1 : 1;
  return p->lid < q->lid ? -1 : p->lid > q->lid;
}

static void map_build(sg_map *m, const shape *s, const size_t *local) {
  m->n = total_items(s);
  m->places = calloc(m->n, sizeof *m->places);
  m->order = calloc(m->n, sizeof *m->order);
  m->pos = calloc(m->n, sizeof *m->pos);
  if (!m->places || !m->order || !m->pos)
    exit(1);
  for (size_t z = 0; z < s->global[2]; z++)
    for (size_t y = 0; y < s->global[1]; y++)
      for (size_t x = 0; x < s->global[0]; x++) {
        place p = place_of(s, local, x, y, z);
        m->places[p.index] = p;
      }
  for (size_t i = 0; i < m->n; i++)
    m->order[i] = i;
  cmp_places = m->places;
  qsort(m->order, m->n, sizeof *m->order, by_group_lid);
  for (size_t i = 0; i < m->n; i++)
    m->pos[m->order[i]] = i;
}

static void map_free(sg_map *m) {
  free(m->places);
  free(m->order);
  free(m->pos);
}

/* The sub-group of work-item index: the global indices of its members
 * are m->order[*first .. *first + *count). Its sub-group local id is
 * lid % sg_size. */
static void sub_group_of(const sg_map *m, size_t index, size_t *first,
                         size_t *count) {
  const place *p = &m->places[index];
  size_t sg_first_lid = p->lid / sg_size * sg_size;
  *first = m->pos[index] - (p->lid - sg_first_lid);
  size_t left = p->group_n - sg_first_lid;
  *count = left < sg_size ? left : sg_size;
}

/* ---- Queries and votes ---------------------------------------------- */

static const char query_src[] =
    "kernel void queries(global uint *q, global const int *pred) {\n"
    "  size_t g = get_global_linear_id();\n"
    "  global uint *o = q + g * 10;\n"
    "  o[0] = get_sub_group_size();\n"
    "  o[1] = get_max_sub_group_size();\n"
    "  o[2] = get_num_sub_groups();\n"
    "  o[3] = get_enqueued_num_sub_groups();\n"
    "  o[4] = get_sub_group_id();\n"
    "  o[5] = get_sub_group_local_id();\n"
    "  o[6] = sub_group_all(pred[g]);\n"
    "  o[7] = sub_group_any(pred[g]);\n"
    "  o[8] = (uint)(get_local_size(0) * get_local_size(1) *\n"
    "                get_local_size(2));\n"
    "  o[9] = (uint)get_enqueued_local_size(0);\n"
    "}\n"
    /* Queries only: loop mode (they are expressions of the local id). */
    "kernel void plain_queries(global uint *q) {\n"
    "  global uint *o = q + get_global_linear_id() * 6;\n"
    "  o[0] = get_sub_group_size();\n"
    "  o[1] = get_max_sub_group_size();\n"
    "  o[2] = get_num_sub_groups();\n"
    "  o[3] = get_enqueued_num_sub_groups();\n"
    "  o[4] = get_sub_group_id();\n"
    "  o[5] = get_sub_group_local_id();\n"
    "}\n";

static void test_queries(cl_program prog, const shape *s) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "queries", &err);
  REQUIRE_OK(err);
  size_t n = total_items(s);
  uint32_t *q = calloc(n * 10, sizeof *q);
  int32_t *pred = malloc(n * sizeof *pred);
  /* Per work-item predicates: mostly runs of the same value, so that
   * some sub-groups are all true, some all false, some mixed. */
  int mode = 0;
  for (size_t i = 0; i < n; i++) {
    if (i % 5 == 0)
      mode = (int)(test_rand() % 4);
    pred[i] = mode == 0 ? 0 : mode == 1 ? (int)(test_rand() % 7 + 1)
              : mode == 2 ? -3
                          : (int)(test_rand() % 2);
  }
  cl_mem b[2] = {test_buffer(&env, n * 10 * sizeof *q, NULL),
                 test_buffer(&env, n * sizeof *pred, pred)};
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &b[0]));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &b[1]));
  size_t local[3];
  run(k, s, local);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b[0], CL_TRUE, 0,
                                 n * 10 * sizeof *q, q, 0, NULL, NULL));
  /* The same queries from a kernel that only queries (loop mode). */
  cl_kernel kp = clCreateKernel(prog, "plain_queries", &err);
  REQUIRE_OK(err);
  uint32_t *pq = calloc(n * 6, sizeof *pq);
  cl_mem pb = test_buffer(&env, n * 6 * sizeof *pq, NULL);
  REQUIRE_OK(clSetKernelArg(kp, 0, sizeof(cl_mem), &pb));
  size_t plocal[3];
  run(kp, s, plocal);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, pb, CL_TRUE, 0,
                                 n * 6 * sizeof *pq, pq, 0, NULL, NULL));
  clReleaseMemObject(pb);
  clReleaseKernel(kp);
  if (!s->local[0])
    local[0] = q[9];   /* the driver's choice (1D) */
  sg_map m;
  map_build(&m, s, local);
  int bad = 0;
  for (size_t i = 0; i < n && bad < 5; i++) {
    const place *p = &m.places[i];
    const uint32_t *o = q + i * 10;
    size_t first, count;
    sub_group_of(&m, i, &first, &count);
    size_t max = p->enq_n < sg_size ? p->enq_n : sg_size;
    int all = 1, any = 0;
    for (size_t j = 0; j < count; j++) {
      all &= pred[m.order[first + j]] != 0;
      any |= pred[m.order[first + j]] != 0;
    }
    uint32_t want[8] = {(uint32_t)count, (uint32_t)max,
                        (uint32_t)((p->group_n + sg_size - 1) / sg_size),
                        (uint32_t)((p->enq_n + sg_size - 1) / sg_size),
                        (uint32_t)(p->lid / sg_size),
                        (uint32_t)(p->lid % sg_size), (uint32_t)all,
                        (uint32_t)any};
    CHECK_EQ(o[8], p->group_n);
    for (int j = 0; j < 6; j++)
      if (s->local[0] && pq[i * 6 + j] != want[j]) {
        fprintf(stderr, "plain_queries %uD global %zu,%zu,%zu item %zu: "
                "field %d is %u, want %u\n", s->dims, s->global[0],
                s->global[1], s->global[2], i, j, pq[i * 6 + j], want[j]);
        test_failures++;
        bad++;
      }
    for (int j = 0; j < 8; j++)
      if (o[j] != want[j]) {
        fprintf(stderr, "queries %uD global %zu,%zu,%zu item %zu: field %d "
                "is %u, want %u\n", s->dims, s->global[0], s->global[1],
                s->global[2], i, j, o[j], want[j]);
        test_failures++;
        bad++;
      }
  }
  map_free(&m);
  test_release_buffers(b, 2);
  free(q);
  free(pq);
  free(pred);
  clReleaseKernel(k);
}

/* ---- Collectives of every type -------------------------------------- */

typedef enum kind { K_INT, K_UINT, K_LONG, K_ULONG, K_FLOAT, K_DOUBLE,
                    K_HALF } kind;
static const struct type_info {
  const char *name;
  size_t size;
} types[] = {{"int", 4}, {"uint", 4}, {"long", 8}, {"ulong", 8},
             {"float", 4}, {"double", 8}, {"half", 2}};
#define NUM_TYPES 7
#define OUTS 10   /* reduce, inclusive, exclusive x add/min/max, broadcast */

/* The kernel for one type: every collective of x = in[g]; broadcast from
 * sub-group local id b % get_sub_group_size() (the same for the whole
 * sub-group, as the spec asks). */
static char *collective_src(kind t) {
  static const char body[] =
      "%s"
      "kernel void coll_%s(global const %s *in, global %s *out, uint b) {\n"
      "  size_t g = get_global_linear_id();\n"
      "  %s x = in[g];\n"
      "  global %s *o = out + g * 10;\n"
      "  o[0] = sub_group_reduce_add(x);\n"
      "  o[1] = sub_group_reduce_min(x);\n"
      "  o[2] = sub_group_reduce_max(x);\n"
      "  o[3] = sub_group_scan_inclusive_add(x);\n"
      "  o[4] = sub_group_scan_inclusive_min(x);\n"
      "  o[5] = sub_group_scan_inclusive_max(x);\n"
      "  o[6] = sub_group_scan_exclusive_add(x);\n"
      "  o[7] = sub_group_scan_exclusive_min(x);\n"
      "  o[8] = sub_group_scan_exclusive_max(x);\n"
      "  o[9] = sub_group_broadcast(x, b %% get_sub_group_size());\n"
      "}\n";
  const char *n = types[t].name;
  char *s = malloc(sizeof body + 200);
  snprintf(s, sizeof body + 200, body,
           t == K_HALF ? "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                       : "",
           n, n, n, n, n);
  return s;
}

/* Host values: every type held as double (exact for the inputs used:
 * integers of 32 bits or less as themselves; 64-bit ones as uint64_t in
 * the bits) or as raw 64-bit integers. */
typedef union value {
  int64_t i;
  uint64_t u;
  double f;
} value;

static uint16_t to_half(float f) {
  _Float16 h = (_Float16)f;
  uint16_t b;
  memcpy(&b, &h, 2);
  return b;
}

static float from_half(uint16_t b) {
  _Float16 h;
  memcpy(&h, &b, 2);
  return (float)h;
}

/* Reads element i of a buffer of type t as a value. */
static value load(kind t, const void *buf, size_t i) {
  value v = {0};
  switch (t) {
  case K_INT: v.i = ((const int32_t *)buf)[i]; break;
  case K_UINT: v.u = ((const uint32_t *)buf)[i]; break;
  case K_LONG: v.i = ((const int64_t *)buf)[i]; break;
  case K_ULONG: v.u = ((const uint64_t *)buf)[i]; break;
  case K_FLOAT: v.f = ((const float *)buf)[i]; break;
  case K_DOUBLE: v.f = ((const double *)buf)[i]; break;
  case K_HALF: v.f = from_half(((const uint16_t *)buf)[i]); break;
  }
  return v;
}

/* Input element i: wrapping integers for the integer types; for the
 * floating types small integers (and some infinities for min/max), whose
 * sums are exact in any order. */
static void store_input(kind t, void *buf, size_t i) {
  uint64_t r = test_rand();
  double f = (double)((int64_t)(r % 41) - 20);
  if (r % 97 == 0)
    f = (r & 128) ? INFINITY : -INFINITY;
  switch (t) {
  case K_INT: ((int32_t *)buf)[i] = (int32_t)r; break;
  case K_UINT: ((uint32_t *)buf)[i] = (uint32_t)(r >> 7); break;
  case K_LONG: ((int64_t *)buf)[i] = (int64_t)r; break;
  case K_ULONG: ((uint64_t *)buf)[i] = r * 0x9E3779B97F4A7C15ull; break;
  case K_FLOAT: ((float *)buf)[i] = (float)f; break;
  case K_DOUBLE: ((double *)buf)[i] = f; break;
  case K_HALF: ((uint16_t *)buf)[i] = to_half((float)f); break;
  }
}

/* a op b in type t (op 0 add, 1 min, 2 max); integer add wraps. */
static value apply(kind t, int op, value a, value b) {
  value r = a;
  switch (t) {
  case K_INT:
    r.i = op == 0 ? (int32_t)(uint32_t)((uint64_t)a.i + (uint64_t)b.i)
          : op == 1 ? (b.i < a.i ? b.i : a.i) : (a.i < b.i ? b.i : a.i);
    break;
  case K_LONG:
    r.i = op == 0 ? (int64_t)((uint64_t)a.i + (uint64_t)b.i)
          : op == 1 ? (b.i < a.i ? b.i : a.i) : (a.i < b.i ? b.i : a.i);
    break;
  case K_UINT:
    r.u = op == 0 ? (uint32_t)(a.u + b.u)
          : op == 1 ? (b.u < a.u ? b.u : a.u) : (a.u < b.u ? b.u : a.u);
    break;
  case K_ULONG:
    r.u = op == 0 ? a.u + b.u
          : op == 1 ? (b.u < a.u ? b.u : a.u) : (a.u < b.u ? b.u : a.u);
    break;
  default:
    r.f = op == 0 ? a.f + b.f : op == 1 ? fmin(a.f, b.f) : fmax(a.f, b.f);
    break;
  }
  return r;
}

static value identity(kind t, int op) {
  value v = {0};
  switch (t) {
  case K_INT: v.i = op == 1 ? INT32_MAX : op == 2 ? INT32_MIN : 0; break;
  case K_LONG: v.i = op == 1 ? INT64_MAX : op == 2 ? INT64_MIN : 0; break;
  case K_UINT: v.u = op == 1 ? UINT32_MAX : 0; break;
  case K_ULONG: v.u = op == 1 ? UINT64_MAX : 0; break;
  default: v.f = op == 1 ? INFINITY : op == 2 ? -INFINITY : 0.0; break;
  }
  return v;
}

static int same(kind t, value a, value b) {
  if (t == K_FLOAT || t == K_DOUBLE || t == K_HALF)
    return a.f == b.f || (isnan(a.f) && isnan(b.f));
  return a.u == b.u;
}

static void test_collectives(cl_program prog, kind t, const shape *s,
                             const size_t *local) {
  char name[32];
  snprintf(name, sizeof name, "coll_%s", types[t].name);
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  size_t n = total_items(s), es = types[t].size;
  unsigned char *in = malloc(n * es), *out = calloc(n * OUTS, es);
  for (size_t i = 0; i < n; i++)
    store_input(t, in, i);
  cl_mem b[2] = {test_buffer(&env, n * es, in),
                 test_buffer(&env, n * OUTS * es, NULL)};
  cl_uint lane = (cl_uint)(test_rand() % 64);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &b[0]));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &b[1]));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof lane, &lane));
  shape fixed = *s;
  for (int d = 0; d < 3; d++)
    fixed.local[d] = local[d];
  size_t ran[3];
  run(k, &fixed, ran);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b[1], CL_TRUE, 0, n * OUTS * es,
                                 out, 0, NULL, NULL));
  sg_map m;
  map_build(&m, &fixed, local);
  int bad = 0;
  for (size_t i = 0; i < n && bad < 5; i++) {
    size_t first, count;
    sub_group_of(&m, i, &first, &count);
    size_t me = m.pos[i] - first;   /* sub-group local id */
    value want[OUTS];
    for (int op = 0; op < 3; op++) {
      value acc = identity(t, op), incl = acc, excl = acc;
      for (size_t j = 0; j < count; j++) {
        if (j == me)
          excl = acc;
        acc = apply(t, op, acc, load(t, in, m.order[first + j]));
        if (j == me)
          incl = acc;
      }
      want[op] = acc;
      want[3 + op] = incl;
      want[6 + op] = excl;
    }
    size_t from = lane % count;
    want[9] = load(t, in, m.order[first + from]);
    for (int j = 0; j < OUTS; j++) {
      value got = load(t, out, i * OUTS + j);
      if (!same(t, got, want[j])) {
        fprintf(stderr, "%s %uD global %zu,%zu,%zu local %zu,%zu,%zu item "
                "%zu: output %d is %llx (%g), want %llx (%g)\n", name,
                s->dims, s->global[0], s->global[1], s->global[2], local[0],
                local[1], local[2], i, j, (unsigned long long)got.u, got.f,
                (unsigned long long)want[j].u, want[j].f);
        test_failures++;
        bad++;
      }
    }
  }
  map_free(&m);
  test_release_buffers(b, 2);
  free(in);
  free(out);
  clReleaseKernel(k);
}

/* ---- Barriers, divergence, rule breaking ---------------------------- */

static const char sync_src[] =
    /* sub_group_barrier orders local memory within the sub-group: each
     * work-item reads what its neighbour in the sub-group wrote, twice
     * (both forms of the barrier). */
    "kernel void neighbours(global int *out, local int *l) {\n"
    "  uint lid = get_local_linear_id(), s = get_sub_group_size();\n"
    "  uint first = lid - get_sub_group_local_id();\n"
    "  uint next = first + (get_sub_group_local_id() + 1) % s;\n"
    "  l[lid] = (int)get_global_linear_id() * 3;\n"
    "  sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int a = l[next];\n"
    "  sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  l[lid] = a + 1;\n"
    "  sub_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_sub_group);\n"
    "  out[get_global_linear_id()] = l[next];\n"
    "}\n"
    /* Sub-groups take different paths, each meeting its own collectives
     * (as many as its id), and one that meets none; a sub_group_barrier
     * only some sub-groups reach; then a work-group collective. */
    "kernel void diverge(global const int *in, global int *out,\n"
    "                    local int *l) {\n"
    "  size_t g = get_global_linear_id();\n"
    "  uint sg = get_sub_group_id(), lid = get_local_linear_id();\n"
    "  int x = in[g], r = 0;\n"
    "  if (sg % 3 == 0) {\n"
    "    r = sub_group_reduce_add(x);\n"
    "    r ^= sub_group_scan_exclusive_max(x);\n"
    "  } else if (sg % 3 == 1) {\n"
    "    for (uint i = 0; i <= sg; i++)\n"
    "      r += sub_group_scan_inclusive_add(x + (int)i);\n"
    "    l[lid] = r;\n"
    "    sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    r += l[lid - get_sub_group_local_id()];\n"
    "  }\n"
    "  out[g] = r ^ work_group_reduce_add(x);\n"
    "}\n"
    /* A work-group barrier between sub-group collectives: every
     * sub-group's sum goes through local memory to the whole group; and
     * a work-group collective of the sub-groups' sums. */
    "kernel void mixed(global const int *in, global int *out,\n"
    "                  local int *l) {\n"
    "  size_t g = get_global_linear_id();\n"
    "  uint lid = get_local_linear_id();\n"
    "  int s = sub_group_reduce_add(in[g]);\n"
    "  if (get_sub_group_local_id() == 0)\n"
    "    l[get_sub_group_id()] = s;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int t = 0;\n"
    "  for (uint k = 0; k < get_num_sub_groups(); k++)\n"
    "    t += l[k];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[g] = sub_group_scan_inclusive_add(t + (int)lid)\n"
    "           + work_group_reduce_max(s);\n"
    "}\n"
    /* Sub-group collectives in a loop every work-item runs equally
     * often (region mode cuts it), carrying values across iterations. */
    "kernel void looped(global const int *in, global int *out,\n"
    "                   local int *l) {\n"
    "  size_t g = get_global_linear_id();\n"
    "  int x = in[g], r = 0, iters = (int)get_num_sub_groups() % 4 + 3;\n"
    "  for (int i = 0; i < iters; i++) {\n"
    "    r += sub_group_scan_exclusive_add(x + i);\n"
    "    x = sub_group_broadcast(x, (uint)i % get_sub_group_size()) ^ i;\n"
    "  }\n"
    "  out[g] = r;\n"
    "}\n"
    /* Breaks the rules (part of every sub-group leaves before a
     * collective the rest reaches; members of one sub-group meet
     * different numbers of collectives; some meet a sub-group barrier
     * where others meet the group's): undefined values, but it must
     * end. */
    /* Exchanges between collectives in a loop: region mode reads other
     * lanes' deposits, which the next iteration's deposits must not
     * overwrite first. */
    "kernel void exchanged(global const int *in, global int *out,\n"
    "                      local int *l) {\n"
    "  size_t g = get_global_linear_id();\n"
    "  int x = in[g], r = 0;\n"
    "  for (int i = 0; i < 3; i++) {\n"
    "    r += sub_group_scan_inclusive_add(x);\n"
    "    int y = sub_group_shuffle_xor(x, 1u);\n"
    "    int z = sub_group_rotate(y * 3, i - 1);\n"
    "    int w = sub_group_shuffle_down(z + y, 1u);\n"
    "    x = w - sub_group_broadcast(x, 2u);\n"
    "  }\n"
    "  out[g] = r + x;\n"
    "}\n"
    /* A work-group collective right after sub-groups diverged around a
     * non-uniform one that the group's last work-item skips: fiber mode
     * must not compute the group's sum before the parked lanes have
     * deposited theirs. */
    "kernel void diverged_then_group(global const int *in,\n"
    "                                global int *out, local int *l) {\n"
    "  size_t g = get_global_linear_id();\n"
    "  int x = in[g];\n"
    "  if (get_sub_group_local_id() + 1 != get_sub_group_size())\n"
    "    x += sub_group_non_uniform_reduce_add(x);\n"
    "  out[g] = work_group_reduce_add(x);\n"
    "}\n"
    /* Non-uniform functions that every work-item reaches: region mode
     * computes them as the uniform ones. */
    "kernel void non_uniform_all_reach(global const int *in,\n"
    "                                  global int *out, local int *l) {\n"
    "  size_t g = get_global_linear_id();\n"
    "  int x = in[g];\n"
    "  out[g] = sub_group_non_uniform_reduce_add(x)\n"
    "           + 3 * sub_group_non_uniform_scan_inclusive_min(x)\n"
    "           + sub_group_non_uniform_any(x == 5)\n"
    "           + 7 * sub_group_non_uniform_reduce_xor(x)\n"
    "           + 11 * sub_group_non_uniform_scan_exclusive_logical_and(\n"
    "                      x != 2)\n"
    "           + 13 * sub_group_clustered_reduce_max(x, 4u)\n"
    "           + 17 * sub_group_reduce_add((char)(x * 37))\n"
    "           + 19 * sub_group_scan_inclusive_min((ushort)(x * 999));\n"
    "}\n"
    "kernel void rule_breaker(global int *out) {\n"
    "  uint sl = get_sub_group_local_id();\n"
    "  if (sl % 3 == 1) return;\n"
    "  int r = sub_group_reduce_add(1);\n"
    "  for (uint i = 0; i < sl; i++)\n"
    "    r += sub_group_scan_inclusive_add((int)i);\n"
    "  if (sl & 1) sub_group_barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "  else barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "  out[get_global_linear_id()] = r + sub_group_any(1);\n"
    "}\n";

static void run_sync(cl_program prog, const char *name, const shape *s,
                     const int *in, int *out, size_t local_bytes) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  size_t n = total_items(s);
  cl_mem b[2] = {test_buffer(&env, n * sizeof(int), (void *)in),
                 test_buffer(&env, n * sizeof(int), NULL)};
  cl_uint a = 0;
  if (in)
    REQUIRE_OK(clSetKernelArg(k, a++, sizeof(cl_mem), &b[0]));
  REQUIRE_OK(clSetKernelArg(k, a++, sizeof(cl_mem), &b[1]));
  if (local_bytes)
    REQUIRE_OK(clSetKernelArg(k, a++, local_bytes, NULL));
  size_t ran[3];
  run(k, s, ran);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b[1], CL_TRUE, 0, n * sizeof(int),
                                 out, 0, NULL, NULL));
  test_release_buffers(b, 2);
  clReleaseKernel(k);
}

static void test_sync(cl_program prog, const shape *s) {
  size_t n = total_items(s), local[3];
  for (int d = 0; d < 3; d++)
    local[d] = s->local[d];
  sg_map m;
  map_build(&m, s, local);
  int *in = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
  for (size_t i = 0; i < n; i++)
    in[i] = (int)(test_rand() % 1000) - 500;
  size_t lbytes = 1024 * sizeof(int);
  int bad = 0;

  run_sync(prog, "neighbours", s, NULL, out, lbytes);
  for (size_t i = 0; i < n && bad < 5; i++) {
    size_t first, count;
    sub_group_of(&m, i, &first, &count);
    size_t me = m.pos[i] - first;
    size_t nb = m.order[first + (me + 1) % count];
    size_t nb2 = m.order[first + (me + 2) % count];
    (void)nb;
    int want = (int)nb2 * 3 + 1;
    if (out[i] != want) {
      fprintf(stderr, "neighbours global %zu,%zu,%zu item %zu: %d, want "
              "%d\n", s->global[0], s->global[1], s->global[2], i, out[i],
              want);
      test_failures++;
      bad++;
    }
  }

  run_sync(prog, "diverge", s, in, out, lbytes);
  for (size_t i = 0; i < n && bad < 5; i++) {
    size_t first, count;
    sub_group_of(&m, i, &first, &count);
    size_t me = m.pos[i] - first, sg = m.places[i].lid / sg_size;
    int want = 0;
    if (sg % 3 == 0) {
      int sum = 0, mx = INT32_MIN;
      for (size_t j = 0; j < count; j++)
        sum += in[m.order[first + j]];
      for (size_t j = 0; j < me; j++)
        if (in[m.order[first + j]] > mx)
          mx = in[m.order[first + j]];
      want = sum ^ mx;   /* ^: the first member's max is INT_MIN */
    } else if (sg % 3 == 1) {
      int r0 = 0, rme = 0;
      for (size_t it = 0; it <= sg; it++) {
        int acc0 = in[m.order[first]] + (int)it, acc = 0;
        for (size_t j = 0; j <= me; j++)
          acc += in[m.order[first + j]] + (int)it;
        r0 += acc0;
        rme += acc;
      }
      want = rme + r0;
    }
    size_t gfirst = m.pos[i] - m.places[i].lid;
    int group_sum = 0;
    for (size_t j = 0; j < m.places[i].group_n; j++)
      group_sum += in[m.order[gfirst + j]];
    want ^= group_sum;
    if (out[i] != want) {
      fprintf(stderr, "diverge global %zu,%zu,%zu item %zu: %d, want %d\n",
              s->global[0], s->global[1], s->global[2], i, out[i], want);
      test_failures++;
      bad++;
    }
  }

  run_sync(prog, "mixed", s, in, out, lbytes);
  for (size_t i = 0; i < n && bad < 5; i++) {
    size_t first, count;
    sub_group_of(&m, i, &first, &count);
    size_t me = m.pos[i] - first;
    /* The group's total: the sum of every member of i's group. */
    size_t gfirst = m.pos[i] - m.places[i].lid;
    int total = 0;
    for (size_t j = 0; j < m.places[i].group_n; j++)
      total += in[m.order[gfirst + j]];
    int want = 0, best = INT32_MIN;
    for (size_t j = 0; j <= me; j++)
      want += total + (int)m.places[m.order[first + j]].lid;
    /* work_group_reduce_max of the sub-group sums. */
    for (size_t f = 0; f < m.places[i].group_n; f += sg_size) {
      int sum = 0;
      for (size_t j = f; j < m.places[i].group_n && j < f + sg_size; j++)
        sum += in[m.order[gfirst + j]];
      if (sum > best)
        best = sum;
    }
    want += best;
    if (out[i] != want) {
      fprintf(stderr, "mixed global %zu,%zu,%zu item %zu: %d, want %d\n",
              s->global[0], s->global[1], s->global[2], i, out[i], want);
      test_failures++;
      bad++;
    }
  }

  run_sync(prog, "looped", s, in, out, lbytes);
  {
    for (size_t i = 0; i < n && bad < 5; i++) {
      size_t first, count;
      sub_group_of(&m, i, &first, &count);
      /* The group's sub-group count decides its trip count. */
      int iters = (int)((m.places[i].group_n + sg_size - 1) / sg_size % 4) + 3;
      size_t me = m.pos[i] - first;
      int xs[16], r = 0;
      for (size_t j = 0; j < count; j++)
        xs[j] = in[m.order[first + j]];
      for (int it = 0; it < iters; it++) {
        for (size_t j = 0; j < me; j++)
          r += xs[j] + it;
        int b = xs[(size_t)it % count];
        for (size_t j = 0; j < count; j++)
          xs[j] = b ^ it;
      }
      if (out[i] != r) {
        fprintf(stderr, "looped global %zu,%zu,%zu item %zu: %d, want %d\n",
                s->global[0], s->global[1], s->global[2], i, out[i], r);
        test_failures++;
        bad++;
      }
    }
  }

  run_sync(prog, "exchanged", s, in, out, lbytes);
  for (size_t i = 0; i < n && bad < 5; i++) {
    size_t first, count;
    sub_group_of(&m, i, &first, &count);
    size_t me = m.pos[i] - first;
    size_t max = m.places[i].enq_n < sg_size ? m.places[i].enq_n : sg_size;
    int xs[32], ys[32], zs[32], r = 0;
    for (size_t j = 0; j < count; j++)
      xs[j] = in[m.order[first + j]];
    for (int it = 0; it < 3; it++) {
      for (size_t j = 0; j <= me; j++)
        r += xs[j];
      /* A lane outside the sub-group gives the lane its own value;
       * broadcast clamps its lane into the sub-group. */
      for (size_t j = 0; j < count; j++)
        ys[j] = xs[(j ^ 1) < count ? j ^ 1 : j];
      for (size_t j = 0; j < count; j++) {
        long rot = ((long)j + it - 1) % (long)max;
        size_t ro = (size_t)(rot < 0 ? rot + (long)max : rot);
        zs[j] = ys[ro < count ? ro : j] * 3;
      }
      int b = xs[2 < count ? 2 : count - 1];
      for (size_t j = 0; j < count; j++) {
        size_t dn = j + 1 < count ? j + 1 : j;
        xs[j] = zs[dn] + ys[dn] - b;
      }
    }
    if (out[i] != r + xs[me]) {
      fprintf(stderr, "exchanged global %zu,%zu,%zu item %zu: %d, want %d\n",
              s->global[0], s->global[1], s->global[2], i, out[i],
              r + xs[me]);
      test_failures++;
      bad++;
    }
  }

  run_sync(prog, "diverged_then_group", s, in, out, lbytes);
  for (size_t i = 0; i < n && bad < 5; i++) {
    /* Every member of i's group, sub-group by sub-group. */
    size_t gfirst = m.pos[i] - m.places[i].lid, want = 0;
    for (size_t f = 0; f < m.places[i].group_n; f += sg_size) {
      size_t count = m.places[i].group_n - f < sg_size
                         ? m.places[i].group_n - f : sg_size;
      int active = 0;   /* all lanes but the sub-group's last */
      for (size_t j = 0; j + 1 < count; j++)
        active += in[m.order[gfirst + f + j]];
      for (size_t j = 0; j < count; j++)
        want += (size_t)(in[m.order[gfirst + f + j]] +
                         (j + 1 < count ? active : 0));
    }
    if (out[i] != (int)want) {
      fprintf(stderr, "diverged_then_group global %zu,%zu,%zu item %zu: "
              "%d, want %d\n", s->global[0], s->global[1], s->global[2], i,
              out[i], (int)want);
      test_failures++;
      bad++;
    }
  }

  run_sync(prog, "non_uniform_all_reach", s, in, out, lbytes);
  for (size_t i = 0; i < n && bad < 5; i++) {
    size_t first, count;
    sub_group_of(&m, i, &first, &count);
    size_t me = m.pos[i] - first;
    int sum = 0, low = INT32_MAX, five = 0, bits = 0, none_before = 1;
    int cluster_max = INT32_MIN;   /* over me's aligned cluster of 4 */
    int chars = 0, ushort_min = 0xffff;   /* char sum wraps at 8 bits */
    for (size_t j = 0; j < count; j++) {
      int x = in[m.order[first + j]];
      sum += x;
      five |= x == 5;
      bits ^= x;
      if (j <= me && x < low)
        low = x;
      if (j < me)
        none_before &= x != 2;
      if (j / 4 == me / 4 && x > cluster_max)
        cluster_max = x;
      chars += (signed char)(x * 37);
      if (j <= me && (unsigned short)(x * 999) < ushort_min)
        ushort_min = (unsigned short)(x * 999);
    }
    int want = sum + 3 * low + five + 7 * bits + 11 * none_before +
               13 * cluster_max + 17 * (signed char)chars + 19 * ushort_min;
    if (out[i] != want) {
      fprintf(stderr, "non_uniform_all_reach global %zu,%zu,%zu item %zu: "
              "%d, want %d\n", s->global[0], s->global[1], s->global[2], i,
              out[i], want);
      test_failures++;
      bad++;
    }
  }

  /* Undefined results; finishing (no hang, no crash) is the test. */
  run_sync(prog, "rule_breaker", s, NULL, out, 0);
  map_free(&m);
  free(in);
  free(out);
}

/* ---- Exchanges at uniform distances --------------------------------- */

/* Exchanges whose lane or delta is a constant or a kernel argument (the
 * same for the whole group): region mode reads them as contiguous slots
 * at a distance from the work-item's own and blends
 * (compiler/region_collective.cpp, relative_read), a run-time test of
 * the argument choosing that or the general form where it is not a
 * constant. Every xor mask below 32 (the largest sub-group size), deltas
 * past the sub-group's end, in sub-groups cut short by the group's end,
 * for 32- and 64-bit integers and floating types, moved bit for bit. */
static const int uniform_down[] = {0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 32,
                                   100};
static const int uniform_rotate[] = {-33, -17, -1, 0, 1, 3, 7, 16, 33};
static const unsigned uniform_args[] = {0, 1, 3, 4, 6, 8, 31, 40};
#define N_DOWN (sizeof uniform_down / sizeof uniform_down[0])
#define N_ROTATE (sizeof uniform_rotate / sizeof uniform_rotate[0])
/* Per work-item: xor by 0..31, down and up by uniform_down, rotate by
 * uniform_rotate, then by the argument k: xor, down, up, rotate by k
 * and -k, shuffle and broadcast; then a butterfly of xor by 1, 2, 4...
 * below get_max_sub_group_size() (a uniform loop variable); then
 * broadcast of k, broadcast_first, and broadcast of uniform_lanes
 * (clamped into the sub-group, as Skein does: undefined by the spec). */
static const int uniform_lanes[] = {0, 1, 2, 7, 8, 15, 16, 31};
#define N_LANES (sizeof uniform_lanes / sizeof uniform_lanes[0])
#define UNIFORM_OUTS (32 + 2 * N_DOWN + N_ROTATE + 10 + N_LANES)

static const char *const uniform_types[] = {"int", "float", "long",
                                            "double"};
#define N_UNIFORM_TYPES 4

/* Appends to s (at *len of cap) the start of kernel <name>_<t>. */
static void uniform_head(char *s, size_t *len, size_t cap, const char *name,
                         const char *t) {
  *len += (size_t)snprintf(s + *len, cap - *len,
                           "kernel void %s_%s(global const %s *in,\n"
                           "    global %s *out, uint k) {\n"
                           "  size_t g = get_global_linear_id();\n"
                           "  %s x = in[g];\n"
                           "  global %s *o = out + g * %d;\n",
                           name, t, t, t, t, t, (int)UNIFORM_OUTS);
}

/* Several kernels a type, of few exchanges each: each exchange is two
 * cuts, and region mode's build time grows faster than their number.
 * The constants for int and double only (4- and 8-byte slots: float and
 * long take the same paths), the argument for every type. */
static char *uniform_src(void) {
  size_t cap = 64 * 1024, len = 0;
  char *s = malloc(cap);
  for (int t = 0; t < N_UNIFORM_TYPES; t++) {
    const char *n = uniform_types[t];
    if (t % 3 == 0) {
      for (int c = 0; c < 32; c++) {
        if (c % 8 == 0) {
          char name[32];
          snprintf(name, sizeof name, "uniform_xor%d", c / 8);
          uniform_head(s, &len, cap, name, n);
        }
        len += (size_t)snprintf(s + len, cap - len,
                                "  o[%d] = sub_group_shuffle_xor(x, %du);\n",
                                c, c);
        if (c % 8 == 7)
          len += (size_t)snprintf(s + len, cap - len, "}\n");
      }
      uniform_head(s, &len, cap, "uniform_rel", n);
      for (size_t d = 0; d < N_DOWN; d++)
        len += (size_t)snprintf(s + len, cap - len,
                                "  o[%zu] = sub_group_shuffle_down(x, %du);\n",
                                32 + d, uniform_down[d]);
      len += (size_t)snprintf(s + len, cap - len, "}\n");
      uniform_head(s, &len, cap, "uniform_rel2", n);
      for (size_t d = 0; d < N_DOWN; d++)
        len += (size_t)snprintf(s + len, cap - len,
                                "  o[%zu] = sub_group_shuffle_up(x, %du);\n",
                                32 + N_DOWN + d, uniform_down[d]);
      for (size_t r = 0; r < N_ROTATE; r++)
        len += (size_t)snprintf(s + len, cap - len,
                                "  o[%zu] = sub_group_rotate(x, %d);\n",
                                32 + 2 * N_DOWN + r, uniform_rotate[r]);
      len += (size_t)snprintf(s + len, cap - len, "}\n");
    }
    int a = 32 + 2 * (int)N_DOWN + (int)N_ROTATE;
    uniform_head(s, &len, cap, "uniform_arg", n);
    len += (size_t)snprintf(
        s + len, cap - len,
        "  o[%d] = sub_group_shuffle_xor(x, k);\n"
        "  o[%d] = sub_group_shuffle_down(x, k);\n"
        "  o[%d] = sub_group_shuffle_up(x, k);\n"
        "  o[%d] = sub_group_rotate(x, (int)k);\n"
        "  o[%d] = sub_group_rotate(x, -(int)k);\n"
        "  o[%d] = sub_group_shuffle(x, k);\n"
        "  o[%d] = sub_group_broadcast(x, k %% get_sub_group_size());\n"
        "  %s y = x;\n"
        "  for (uint m = 1; m < get_max_sub_group_size(); m <<= 1)\n"
        "    y = sub_group_shuffle_xor(y, m) - y;\n"
        "  o[%d] = y;\n"
        "  o[%d] = sub_group_broadcast(x, k);\n"
        "  o[%d] = sub_group_broadcast_first(x);\n",
        a, a + 1, a + 2, a + 3, a + 4, a + 5, a + 6, n, a + 7, a + 8, a + 9);
    for (size_t l = 0; l < N_LANES; l++)
      len += (size_t)snprintf(s + len, cap - len,
                              "  o[%d] = sub_group_broadcast(x, %du);\n",
                              a + 10 + (int)l, uniform_lanes[l]);
    len += (size_t)snprintf(s + len, cap - len, "}\n");
  }
  return s;
}

/* What lane `me` of a sub-group of `count` (max: get_max_sub_group_size)
 * reads, or -1 for its own value: kind 0 xor, 1 down, 2 up, 3 rotate,
 * 4 shuffle, 5 broadcast. */
static long uniform_source(int kind, long a, size_t me, size_t count,
                           size_t max) {
  long src;
  switch (kind) {
  case 0: src = (long)(me ^ (size_t)a); break;
  case 1: src = (long)me + a; break;
  case 2: src = (long)me - a; break;
  case 3: src = (((long)me + a) % (long)max + (long)max) % (long)max; break;
  case 4: src = a; break;
  default: src = a < (long)count ? a : (long)count - 1; break;
  }
  return src >= 0 && src < (long)count ? src : -1;
}

static void test_uniform_exchanges(cl_program prog, const shape *s) {
  size_t n = total_items(s), local[3];
  for (int d = 0; d < 3; d++)
    local[d] = d < (int)s->dims ? s->local[d] : 1;
  sg_map m;
  map_build(&m, s, local);
  for (int t = 0; t < N_UNIFORM_TYPES; t++) {
    const char *tn = uniform_types[t];
    size_t es = t < 2 ? 4 : 8;
    unsigned char *in = malloc(n * es);
    unsigned char *out = malloc(n * es * UNIFORM_OUTS);
    for (size_t i = 0; i < n * es; i++)
      in[i] = (unsigned char)test_rand();
    /* The butterfly subtracts: integers wrap, so use small integral
     * values in the floating types (exact differences). */
    for (size_t i = 0; i < n; i++) {
      long v = (long)(test_rand() % 2001) - 1000;
      if (t == 1) {
        float f = (float)v;
        memcpy(in + i * es, &f, 4);
      } else if (t == 3) {
        double f = (double)v;
        memcpy(in + i * es, &f, 8);
      }
    }
    cl_mem b[2] = {test_buffer(&env, n * es, in),
                   test_buffer(&env, n * es * UNIFORM_OUTS, NULL)};
    static const char *const kernels[] = {"uniform_xor0", "uniform_xor1",
                                          "uniform_xor2", "uniform_xor3",
                                          "uniform_rel",  "uniform_rel2",
                                          "uniform_arg"};
    for (int kn = t % 3 ? 6 : 0; kn < 7; kn++) {
      /* kk: xor, relative (down; up and rotate), argument */
      int kk = kn < 4 ? 0 : kn < 6 ? 1 : 2;
      char name[64];
      snprintf(name, sizeof name, "%s_%s", kernels[kn], tn);
      cl_int err;
      cl_kernel k = clCreateKernel(prog, name, &err);
      REQUIRE_OK(err);
      size_t nargs = kk == 2 ? sizeof uniform_args / sizeof *uniform_args
                             : 1;
      for (size_t ai = 0; ai < nargs; ai++) {
        cl_uint arg = uniform_args[ai];
        REQUIRE_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &b[0]));
        REQUIRE_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &b[1]));
        REQUIRE_OK(clSetKernelArg(k, 2, sizeof arg, &arg));
        memset(out, 0xa5, n * es * UNIFORM_OUTS);
        REQUIRE_OK(clEnqueueWriteBuffer(env.queue, b[1], CL_TRUE, 0,
                                        n * es * UNIFORM_OUTS, out, 0, NULL,
                                        NULL));
        size_t ran[3];
        run(k, s, ran);
        REQUIRE_OK(clEnqueueReadBuffer(env.queue, b[1], CL_TRUE, 0,
                                       n * es * UNIFORM_OUTS, out, 0, NULL,
                                       NULL));
        int bad = 0;
        for (size_t i = 0; i < n && bad < 5; i++) {
          size_t first, count;
          sub_group_of(&m, i, &first, &count);
          size_t me = m.pos[i] - first;
          size_t max =
              m.places[i].enq_n < sg_size ? m.places[i].enq_n : sg_size;
          /* The outputs this kernel writes: (slot, kind, argument). */
          int slots[64], kinds[64];
          long args[64];
          int no = 0;
          int a0 = 32 + 2 * (int)N_DOWN + (int)N_ROTATE;
          if (kk == 0)
            for (int c = 8 * kn; c < 8 * kn + 8; c++)
              slots[no] = c, kinds[no] = 0, args[no++] = c;
          if (kn == 4)
            for (size_t d = 0; d < N_DOWN; d++) {
              slots[no] = 32 + (int)d, kinds[no] = 1;
              args[no++] = uniform_down[d];
            }
          if (kn == 5) {
            for (size_t d = 0; d < N_DOWN; d++) {
              slots[no] = 32 + (int)(N_DOWN + d), kinds[no] = 2;
              args[no++] = uniform_down[d];
            }
            for (size_t r = 0; r < N_ROTATE; r++) {
              slots[no] = 32 + 2 * (int)N_DOWN + (int)r, kinds[no] = 3;
              args[no++] = uniform_rotate[r];
            }
          }
          if (kk == 2) {
            long kv = (long)arg;
            const int ks[] = {0, 1, 2, 3, 3, 4, 5};
            const long as[] = {kv, kv, kv, kv, -kv, kv,
                               kv % (long)count};
            for (int j = 0; j < 7; j++)
              slots[no] = a0 + j, kinds[no] = ks[j], args[no++] = as[j];
            slots[no] = a0 + 8, kinds[no] = 5, args[no++] = kv;
            slots[no] = a0 + 9, kinds[no] = 5, args[no++] = 0;
            for (size_t l = 0; l < N_LANES; l++)
              slots[no] = a0 + 10 + (int)l, kinds[no] = 5,
              args[no++] = uniform_lanes[l];
          }
          for (int j = 0; j < no; j++) {
            long src = uniform_source(kinds[j], args[j], me, count, max);
            size_t from = src < 0 ? i : m.order[first + (size_t)src];
            const unsigned char *got =
                out + (i * UNIFORM_OUTS + (size_t)slots[j]) * es;
            if (memcmp(got, in + from * es, es)) {
              fprintf(stderr,
                      "%s k=%u global %zu,%zu,%zu local %zu,%zu,%zu item "
                      "%zu (lane %zu of %zu): kind %d by %ld reads the "
                      "wrong lane\n",
                      name, arg, s->global[0], s->global[1], s->global[2],
                      s->local[0], s->local[1], s->local[2], i, me, count,
                      kinds[j], args[j]);
              test_failures++;
              bad++;
              break;
            }
          }
          if (kk == 2 && bad == 0) {
            /* The butterfly: y = shuffle_xor(y, m) - y, m = 1, 2, 4... */
            double ys[32];
            long long yi[32];
            for (size_t j = 0; j < count; j++) {
              size_t g = m.order[first + j];
              if (t == 1) {
                float f;
                memcpy(&f, in + g * es, 4);
                ys[j] = f;
              } else if (t == 3)
                memcpy(&ys[j], in + g * es, 8);
              else if (t == 0) {
                int32_t v;
                memcpy(&v, in + g * es, 4);
                yi[j] = v;
              } else
                memcpy(&yi[j], in + g * es, 8);
            }
            for (size_t mm = 1; mm < max; mm <<= 1) {
              double ny[32];
              long long nyi[32];
              for (size_t j = 0; j < count; j++) {
                size_t src = (j ^ mm) < count ? (j ^ mm) : j;
                ny[j] = ys[src] - ys[j];
                nyi[j] = (long long)((unsigned long long)yi[src] -
                                     (unsigned long long)yi[j]);
                if (t == 0)
                  nyi[j] = (int32_t)nyi[j];
              }
              memcpy(ys, ny, sizeof ys);
              memcpy(yi, nyi, sizeof yi);
            }
            const unsigned char *got =
                out + (i * UNIFORM_OUTS + (size_t)a0 + 7) * es;
            unsigned char want[8];
            if (t == 1) {
              float f = (float)ys[me];
              memcpy(want, &f, 4);
            } else if (t == 3)
              memcpy(want, &ys[me], 8);
            else if (t == 0) {
              int32_t v = (int32_t)yi[me];
              memcpy(want, &v, 4);
            } else
              memcpy(want, &yi[me], 8);
            if (memcmp(got, want, es)) {
              fprintf(stderr,
                      "%s butterfly global %zu,%zu,%zu item %zu: wrong\n",
                      name, s->global[0], s->global[1], s->global[2], i);
              test_failures++;
              bad++;
            }
          }
        }
      }
      clReleaseKernel(k);
    }
    test_release_buffers(b, 2);
    free(in);
    free(out);
  }
  map_free(&m);
}

/* ---- Modes ---------------------------------------------------------- */

/* In the default mode the uniform kernels run in region mode and those
 * whose sub-groups diverge in fiber mode; checked from SKEIN_DUMP=modes
 * when ctest runs the test without SKEIN_MODE. */
static void test_modes(const char *all_src) {
  if (getenv("SKEIN_MODE") || getenv("SKEIN_VECTORIZE"))
    return;
  setenv("SKEIN_DUMP", "modes", 1);
  test_capture capture;
  test_capture_begin(&capture);
  cl_program p = test_build(&env, all_src, "-cl-std=CL3.0");
  char *modes = test_capture_end(&capture);
  unsetenv("SKEIN_DUMP");
  static const char *const region[] = {"queries", "coll_int", "coll_double",
                                       "coll_ulong", "neighbours", "mixed",
                                       "looped", "exchanged",
                                       "non_uniform_all_reach",
                                       "uniform_xor0_int", "uniform_xor3_double",
                                       "uniform_rel_double",
                                       "uniform_rel2_int",
                                       "uniform_arg_long",
                                       "uniform_arg_double"};
  static const char *const fiber[] = {"diverge", "rule_breaker", "coll_half"};
  if (!strstr(modes, "kernel plain_queries: loop mode")) {
    fprintf(stderr, "plain_queries not in loop mode:\n%s", modes);
    test_failures++;
  }
  char line[128];
  for (size_t i = 0; i < sizeof region / sizeof region[0]; i++) {
    snprintf(line, sizeof line, "kernel %s: region mode", region[i]);
    if (!strstr(modes, line)) {
      fprintf(stderr, "%s not in region mode:\n%s", region[i], modes);
      test_failures++;
    }
  }
  for (size_t i = 0; i < sizeof fiber / sizeof fiber[0]; i++) {
    snprintf(line, sizeof line, "kernel %s: fiber mode", fiber[i]);
    if (!strstr(modes, line)) {
      fprintf(stderr, "%s not in fiber mode:\n%s", fiber[i], modes);
      test_failures++;
    }
  }
  free(modes);
  clReleaseProgram(p);
}

/* ---- Reporting ------------------------------------------------------ */

/* The device lists the feature, and the sub-group size is the SIMD width
 * for 32-bit lanes (cl_khr_subgroups and its independent forward
 * progress: tests/test-forward-progress.c). */
static void test_reported(void) {
  CHECK_EQ(test_c_feature_count(&env, "__opencl_c_subgroups", 0), 1);
  CHECK_EQ(sg_size, test_expected_sub_group_size());
}

int main(void) {
  test_setup(&env);
  test_seed(0x5b6e0f);
  char *uniform = uniform_src();
  size_t len = strlen(query_src) + strlen(sync_src) + strlen(uniform) + 1;
  char *srcs[NUM_TYPES];
  for (int t = 0; t < NUM_TYPES; t++) {
    srcs[t] = collective_src((kind)t);
    len += strlen(srcs[t]);
  }
  char *all = malloc(len);
  strcpy(all, query_src);
  strcat(all, sync_src);
  strcat(all, uniform);
  free(uniform);
  for (int t = 0; t < NUM_TYPES; t++)
    strcat(all, srcs[t]);
  cl_program prog = test_build(&env, all, "-cl-std=CL3.0");
  {
    cl_int err;
    cl_kernel k = clCreateKernel(prog, "queries", &err);
    REQUIRE_OK(err);
    size_t big[1] = {1024};
    REQUIRE_OK(clGetKernelSubGroupInfo(
        k, env.device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof big,
        big, sizeof sg_size, &sg_size, NULL));
    clReleaseKernel(k);
  }
  test_reported();
  test_modes(all);
  for (size_t i = 0; i < NUM_SHAPES; i++) {
    const shape *s = &shapes[i];
    test_queries(prog, s);
    if (!s->local[0])
      continue;   /* the driver's choice: the queries cover it */
    for (int t = 0; t < NUM_TYPES; t++)
      test_collectives(prog, (kind)t, s, s->local);
    test_sync(prog, s);
    /* Shapes whose groups end in a short sub-group, and a large one. */
    if (s->global[0] % s->local[0] || i == 0 || i == 2 || i == 6)
      test_uniform_exchanges(prog, s);
  }
  for (int t = 0; t < NUM_TYPES; t++)
    free(srcs[t]);
  free(all);
  clReleaseProgram(prog);
  test_teardown(&env);
  return test_finish("subgroups");
}
