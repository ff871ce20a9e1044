/* This file tests the cl_khr_subgroup_* extension family through the ICD
 * loader: extended_types (char/uchar/short/ushort collectives, vector
 * broadcasts), non_uniform_vote, ballot, non_uniform_arithmetic, shuffle,
 * shuffle_relative, clustered_reduce and rotate, for every scalar type
 * each lists, on 1D, 2D and 3D groups, partial groups, sizes that are
 * not a multiple of the sub-group size and groups of one. Each function
 * is called under several divergence patterns (every lane, odd lanes,
 * lanes not a multiple of 3, a data-dependent half, the first two), in
 * loops whose trip count differs per lane, and before a uniform
 * collective that the sub-group's last lane reaches first; the host
 * simulates fiber mode's model (docs/architecture.md, "Sub-groups"):
 * the active set of a call is the members of the sub-group that reach
 * it, in lane order; an exchange with an inactive or missing lane gives
 * the caller its own value. Results must match bit for bit. ctest runs
 * it in every mode (tests/mode_variants.cmake): these kernels run in
 * fiber mode whatever the mode asked for. */
#include "test_util.h"
#include <math.h>
#include <stdint.h>

static test_env env;
static size_t sg_size;

/* ---- Shapes and sub-groups ------------------------------------------ */

typedef struct shape {
  cl_uint dims;
  size_t global[3], local[3];
} shape;

static const shape shapes[] = {
    {1, {1, 1, 1}, {1, 1, 1}},
    {1, {37, 1, 1}, {37, 1, 1}},
    {1, {100, 1, 1}, {24, 1, 1}}, /* last group of 4 */
    {1, {128, 1, 1}, {64, 1, 1}},
    {2, {13, 7, 1}, {5, 3, 1}}, /* partial in both dimensions */
    {3, {7, 6, 5}, {4, 4, 2}},  /* partial in every dimension */
};
#define NUM_SHAPES (sizeof shapes / sizeof shapes[0])

/* The sub-groups of a launch: members[first[k] .. first[k + 1]) are the
 * linear global indices of sub-group k in lane order. */
typedef struct sg_list {
  size_t n, count;
  int64_t max; /* get_max_sub_group_size() */
  size_t *members, *first;
} sg_list;

static size_t total(const shape *s) {
  return s->global[0] * s->global[1] * s->global[2];
}

static void sg_list_build(sg_list *l, const shape *s) {
  size_t n = total(s);
  size_t ng[3], groups = 1;
  for (int d = 0; d < 3; d++) {
    ng[d] = (s->global[d] + s->local[d] - 1) / s->local[d];
    groups *= ng[d];
  }
  l->n = n;
  size_t enq = s->local[0] * s->local[1] * s->local[2];
  l->max = (int64_t)(enq < sg_size ? enq : sg_size);
  l->members = malloc(n * sizeof *l->members);
  l->first = malloc((n + 1) * sizeof *l->first);
  l->count = 0;
  size_t at = 0;
  for (size_t g = 0; g < groups; g++) {
    size_t gid[3] = {g % ng[0], g / ng[0] % ng[1], g / (ng[0] * ng[1])};
    size_t size[3], base[3];
    for (int d = 0; d < 3; d++) {
      base[d] = gid[d] * s->local[d];
      size_t left = s->global[d] - base[d];
      size[d] = left < s->local[d] ? left : s->local[d];
    }
    size_t gn = size[0] * size[1] * size[2];
    for (size_t lid = 0; lid < gn; lid++) {
      if (lid % sg_size == 0)
        l->first[l->count++] = at;
      size_t x = base[0] + lid % size[0];
      size_t y = base[1] + lid / size[0] % size[1];
      size_t z = base[2] + lid / (size[0] * size[1]);
      l->members[at++] = (z * s->global[1] + y) * s->global[0] + x;
    }
  }
  l->first[l->count] = at;
}

static void sg_list_free(sg_list *l) {
  free(l->members);
  free(l->first);
}

static void run(cl_kernel k, const shape *s) {
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, s->dims, NULL, s->global,
                                    s->local, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
}

/* ---- Types and operators on the host -------------------------------- */

typedef enum {
  T_CHAR,
  T_UCHAR,
  T_SHORT,
  T_USHORT,
  T_INT,
  T_UINT,
  T_LONG,
  T_ULONG,
  T_FLOAT,
  T_DOUBLE,
  T_HALF,
  NUM_TYPES
} tcode;

static const struct {
  const char *name;
  size_t size;
  int is_int;
} types[NUM_TYPES] = {
    {"char", 1, 1},  {"uchar", 1, 1},  {"short", 2, 1}, {"ushort", 2, 1},
    {"int", 4, 1},   {"uint", 4, 1},   {"long", 8, 1},  {"ulong", 8, 1},
    {"float", 4, 0}, {"double", 8, 0}, {"half", 2, 0},
};

typedef union val {
  int8_t c;
  uint8_t h;
  int16_t s;
  uint16_t t;
  int32_t i;
  uint32_t j;
  int64_t l;
  uint64_t m;
  float f;
  double d;
  _Float16 x;
  unsigned char b[8];
} val;

enum {
  OP_ADD,
  OP_MIN,
  OP_MAX,
  OP_MUL,
  OP_AND,
  OP_OR,
  OP_XOR,
  OP_LAND,
  OP_LOR,
  OP_LXOR,
  NUM_OPS
};
static const char *const op_names[NUM_OPS] = {
    "add", "min", "max",         "mul",        "and",
    "or",  "xor", "logical_and", "logical_or", "logical_xor"};

/* Integer arithmetic in the unsigned type (wraps as the device's). */
#define IOP(F, T, U)                                                           \
  switch (op) {                                                                \
  case OP_ADD:                                                                 \
    r.F = (T)((U)a.F + (U)b.F);                                                \
    break;                                                                     \
  case OP_MUL:                                                                 \
    r.F = (T)((U)a.F * (U)b.F);                                                \
    break;                                                                     \
  case OP_MIN:                                                                 \
    r.F = b.F < a.F ? b.F : a.F;                                               \
    break;                                                                     \
  case OP_MAX:                                                                 \
    r.F = a.F < b.F ? b.F : a.F;                                               \
    break;                                                                     \
  case OP_AND:                                                                 \
    r.F = a.F & b.F;                                                           \
    break;                                                                     \
  case OP_OR:                                                                  \
    r.F = a.F | b.F;                                                           \
    break;                                                                     \
  case OP_XOR:                                                                 \
    r.F = a.F ^ b.F;                                                           \
    break;                                                                     \
  case OP_LAND:                                                                \
    r.F = a.F != 0 && b.F != 0;                                                \
    break;                                                                     \
  case OP_LOR:                                                                 \
    r.F = a.F != 0 || b.F != 0;                                                \
    break;                                                                     \
  default:                                                                     \
    r.F = (a.F != 0) != (b.F != 0);                                            \
    break;                                                                     \
  }
#define FOP(F, T, MIN, MAX)                                                    \
  switch (op) {                                                                \
  case OP_ADD:                                                                 \
    r.F = (T)(a.F + b.F);                                                      \
    break;                                                                     \
  case OP_MUL:                                                                 \
    r.F = (T)(a.F * b.F);                                                      \
    break;                                                                     \
  case OP_MIN:                                                                 \
    r.F = (T)MIN(a.F, b.F);                                                    \
    break;                                                                     \
  default:                                                                     \
    r.F = (T)MAX(a.F, b.F);                                                    \
    break;                                                                     \
  }

static val apply(tcode t, int op, val a, val b) {
  val r = {0};
  switch (t) {
  case T_CHAR:
    IOP(c, int8_t, uint8_t);
    break;
  case T_UCHAR:
    IOP(h, uint8_t, uint8_t);
    break;
  case T_SHORT:
    IOP(s, int16_t, uint16_t);
    break;
  case T_USHORT:
    IOP(t, uint16_t, uint16_t);
    break;
  case T_INT:
    IOP(i, int32_t, uint32_t);
    break;
  case T_UINT:
    IOP(j, uint32_t, uint32_t);
    break;
  case T_LONG:
    IOP(l, int64_t, uint64_t);
    break;
  case T_ULONG:
    IOP(m, uint64_t, uint64_t);
    break;
  case T_FLOAT:
    FOP(f, float, fminf, fmaxf);
    break;
  case T_DOUBLE:
    FOP(d, double, fmin, fmax);
    break;
  default: { /* half: each step through float, rounded to half */
    val fa = {.f = (float)a.x}, fb = {.f = (float)b.x};
    r.x = (_Float16)apply(T_FLOAT, op, fa, fb).f;
  }
  }
  return r;
}

static val identity(tcode t, int op) {
  val r = {0};
  int is_signed = t == T_CHAR || t == T_SHORT || t == T_INT || t == T_LONG;
  size_t bits = types[t].size * 8;
  switch (op) {
  case OP_ADD:
  case OP_OR:
  case OP_XOR:
  case OP_LOR:
  case OP_LXOR:
    if (t == T_FLOAT)
      r.f = 0.0f;
    else if (t == T_DOUBLE)
      r.d = 0.0;
    else if (t == T_HALF)
      r.x = 0;
    break;
  case OP_MUL:
  case OP_LAND:
    if (t == T_FLOAT)
      r.f = 1.0f;
    else if (t == T_DOUBLE)
      r.d = 1.0;
    else if (t == T_HALF)
      r.x = 1;
    else
      r.m = 1;
    break;
  case OP_AND:
    r.m = UINT64_MAX;
    break;
  case OP_MIN:
    if (t == T_FLOAT)
      r.f = INFINITY;
    else if (t == T_DOUBLE)
      r.d = INFINITY;
    else if (t == T_HALF)
      r.x = (_Float16)INFINITY;
    else
      r.m = is_signed ? (UINT64_MAX >> (65 - bits)) : UINT64_MAX;
    break;
  default: /* max */
    if (t == T_FLOAT)
      r.f = -INFINITY;
    else if (t == T_DOUBLE)
      r.d = -INFINITY;
    else if (t == T_HALF)
      r.x = (_Float16)-INFINITY;
    else if (is_signed)
      r.m = (uint64_t)1 << (bits - 1);
    break;
  }
  /* Keep only the type's bytes (little-endian). */
  if (types[t].size < 8)
    r.m &= (UINT64_MAX >> (64 - bits));
  return r;
}

static int same(tcode t, val a, val b) {
  if (t == T_FLOAT && isnan(a.f) && isnan(b.f))
    return 1;
  if (t == T_DOUBLE && isnan(a.d) && isnan(b.d))
    return 1;
  if (t == T_HALF && a.x != a.x && b.x != b.x)
    return 1;
  return memcmp(a.b, b.b, types[t].size) == 0;
}

/* A small value of type t from r (floats: small integers, exact). */
static val make(tcode t, uint64_t r) {
  val v = {0};
  int64_t k = (int64_t)(r % 17) - 8;
  switch (t) {
  case T_FLOAT:
    v.f = (float)k;
    break;
  case T_DOUBLE:
    v.d = (double)k;
    break;
  case T_HALF:
    v.x = (_Float16)k;
    break;
  default:
    v.m = r;
    break;
  }
  if (types[t].size < 8)
    v.m &= UINT64_MAX >> (64 - 8 * types[t].size);
  return v;
}

/* The value of type t equal to the integer v (0 or 1). */
static val from_int(tcode t, int v) {
  val r = {0};
  if (t == T_FLOAT)
    r.f = (float)v;
  else if (t == T_DOUBLE)
    r.d = v;
  else if (t == T_HALF)
    r.x = (_Float16)v;
  else
    r.m = (uint64_t)v;
  return r;
}

/* ---- The divergence patterns (as the kernels' active()) -------------- */

#define NUM_PATTERNS 5
static int active(int pat, size_t lane, uint32_t r) {
  switch (pat) {
  case 0:
    return 1;
  case 1:
    return lane & 1;
  case 2:
    return lane % 3 != 0;
  case 3:
    return r & 1;
  default:
    return lane < 2;
  }
}

static const char *const prelude =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "int active(int pat, uint lane, uint r) {\n"
    "  switch (pat) {\n"
    "  case 0: return 1;\n"
    "  case 1: return lane & 1;\n"
    "  case 2: return lane % 3 != 0;\n"
    "  case 3: return r & 1;\n"
    "  default: return lane < 2;\n"
    "  }\n"
    "}\n"
    "#define ID get_global_linear_id()\n"
    "#define ON active(pat, get_sub_group_local_id(), r[ID])\n";

/* ---- Test driver ---------------------------------------------------- */

/* One launch's buffers: in, r (per work-item random words), out
 * (pre-filled with a sentinel). */
typedef struct bufs {
  size_t n, size; /* work-items, element bytes */
  unsigned char *in, *out, *sentinel;
  uint32_t *r;
  cl_mem m_in, m_r, m_out;
} bufs;

static void bufs_make(bufs *b, const shape *s, size_t size, tcode t,
                      int equalish) {
  b->n = total(s);
  b->size = size;
  b->in = malloc(b->n * size);
  b->out = malloc(b->n * size);
  b->sentinel = malloc(b->n * size);
  b->r = malloc(b->n * sizeof *b->r);
  for (size_t i = 0; i < b->n; i++) {
    b->r[i] = (uint32_t)test_rand();
    for (size_t k = 0; k < size; k += types[t].size) {
      uint64_t raw = test_rand();
      if (equalish) /* mostly equal values, some sub-groups differ */
        raw = (i % 29 == 5) ? 3 : 7;
      val v = make(t, raw);
      memcpy(b->in + i * size + k, v.b, types[t].size);
    }
    for (size_t k = 0; k < size; k++)
      b->sentinel[i * size + k] = (unsigned char)(0xA5 ^ k);
  }
  b->m_in = test_buffer(&env, b->n * size, b->in);
  b->m_r = test_buffer(&env, b->n * sizeof *b->r, b->r);
  b->m_out = test_buffer(&env, b->n * size, b->sentinel);
}

static void bufs_read(bufs *b) {
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b->m_out, CL_TRUE, 0,
                                 b->n * b->size, b->out, 0, NULL, NULL));
}

static void bufs_free(bufs *b) {
  clReleaseMemObject(b->m_in);
  clReleaseMemObject(b->m_r);
  clReleaseMemObject(b->m_out);
  free(b->in);
  free(b->out);
  free(b->sentinel);
  free(b->r);
}

/* What a kernel computes, for the host model. */
typedef enum {
  K_REDUCE,
  K_INCLUSIVE,
  K_EXCLUSIVE,
  K_CLUSTERED,
  K_SHUFFLE,
  K_XOR,
  K_UP,
  K_DOWN,
  K_ROTATE,
  K_CROTATE,
  K_NU_BROADCAST,
  K_FIRST,
  K_ALL_EQUAL,
  K_BROADCAST
} kind;

/* The lane an exchange reads for a member at lane with word r and
 * argument a (delta, index); UINT32_MAX: none. */
static uint32_t source(kind k, uint32_t lane, uint32_t r, int32_t a,
                       uint32_t size, int64_t max) {
  switch (k) {
  case K_SHUFFLE:
    return r % (uint32_t)a;
  case K_XOR:
    return lane ^ (r % (uint32_t)a);
  case K_UP:
    return r % 4 <= lane ? lane - r % 4 : UINT32_MAX;
  case K_DOWN:
    return lane + r % 4 < size ? lane + r % 4 : UINT32_MAX;
  case K_ROTATE:
    return (uint32_t)((((int64_t)lane + a) % max + max) % max);
  case K_CROTATE:
    return lane / 4 * 4 + (uint32_t)((((int64_t)(lane % 4) + a) % 4 + 4) % 4);
  case K_BROADCAST:
    return (uint32_t)a < size ? (uint32_t)a : size - 1;
  default:
    return (uint32_t)a; /* K_NU_BROADCAST */
  }
}

/* The host model of one kernel over one launch: expected[] from in, r. */
static void model(kind k, tcode t, int op, int pat, int32_t a, const sg_list *l,
                  const bufs *b, unsigned char *expected) {
  size_t es = types[t].size, vs = b->size;
  memcpy(expected, b->sentinel, b->n * vs);
  for (size_t g = 0; g < l->count; g++) {
    const size_t *mem = l->members + l->first[g];
    size_t size = l->first[g + 1] - l->first[g];
    size_t act[256], n = 0;
    for (size_t lane = 0; lane < size; lane++)
      if (active(pat, lane, b->r[mem[lane]]))
        act[n++] = lane;
    if (!n)
      continue;
    val acc = identity(t, op);
    val first;
    memcpy(&first, b->in + mem[act[0]] * vs, es);
    int eq = 1;
    for (size_t q = 0; q < n; q++) {
      val x = {0};
      memcpy(x.b, b->in + mem[act[q]] * vs, es);
      eq &= t == T_FLOAT    ? x.f == first.f
            : t == T_DOUBLE ? x.d == first.d
            : t == T_HALF   ? x.x == first.x
                            : memcmp(x.b, first.b, es) == 0;
    }
    for (size_t q = 0; q < n; q++) {
      size_t lane = act[q], i = mem[lane];
      unsigned char *out = expected + i * vs;
      val x = {0};
      memcpy(x.b, b->in + i * vs, es);
      if (k == K_REDUCE || k == K_CLUSTERED) {
        val s = identity(t, op);
        for (size_t p = 0; p < n; p++) {
          if (k == K_CLUSTERED && act[p] / 4 != lane / 4)
            continue;
          val y = {0};
          memcpy(y.b, b->in + mem[act[p]] * vs, es);
          s = apply(t, op, s, y);
        }
        memcpy(out, s.b, es);
      } else if (k == K_INCLUSIVE || k == K_EXCLUSIVE) {
        if (k == K_EXCLUSIVE)
          memcpy(out, acc.b, es);
        acc = apply(t, op, acc, x);
        if (k == K_INCLUSIVE)
          memcpy(out, acc.b, es);
      } else if (k == K_FIRST) {
        memcpy(out, b->in + mem[act[0]] * vs, vs);
      } else if (k == K_ALL_EQUAL) {
        val e = from_int(t, eq);
        memcpy(out, e.b, es);
      } else {
        uint32_t src =
            source(k, (uint32_t)lane, b->r[i], a, (uint32_t)size, l->max);
        size_t from = i;
        for (size_t p = 0; p < n; p++)
          if (act[p] == src)
            from = mem[act[p]];
        memcpy(out, b->in + from * vs, vs);
      }
    }
  }
}

/* Compares out with expected; reports the first few differences. */
static void compare(const char *what, const shape *s, int pat, tcode t,
                    const bufs *b, const unsigned char *expected) {
  int shown = 0;
  size_t es = types[t].size;
  for (size_t i = 0; i < b->n; i++)
    for (size_t k = 0; k < b->size; k += es) {
      val x = {0}, y = {0};
      memcpy(x.b, b->out + i * b->size + k, es);
      memcpy(y.b, expected + i * b->size + k, es);
      if (same(t, x, y))
        continue;
      if (shown++ < 3)
        fprintf(stderr,
                "%s (%s) shape %zux%zux%zu/%zux%zux%zu pattern %d item %zu"
                " byte %zu: got %llx, want %llx\n",
                what, types[t].name, s->global[0], s->global[1], s->global[2],
                s->local[0], s->local[1], s->local[2], pat, i, k,
                (unsigned long long)x.m, (unsigned long long)y.m);
      test_failures++;
    }
}

/* Runs kernel name of prog (args: in, r, out, pat, a) over every shape
 * and the patterns [0, pats), against the model. */
static void check(cl_program prog, const char *name, kind k, tcode t, int op,
                  int pats, int32_t a, size_t vsize, int equalish) {
  cl_int err;
  cl_kernel kern = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  for (size_t si = 0; si < NUM_SHAPES; si++) {
    const shape *s = &shapes[si];
    sg_list l;
    sg_list_build(&l, s);
    for (int pat = 0; pat < pats; pat++) {
      bufs b;
      bufs_make(&b, s, vsize, t, equalish);
      REQUIRE_OK(clSetKernelArg(kern, 0, sizeof(cl_mem), &b.m_in));
      REQUIRE_OK(clSetKernelArg(kern, 1, sizeof(cl_mem), &b.m_r));
      REQUIRE_OK(clSetKernelArg(kern, 2, sizeof(cl_mem), &b.m_out));
      REQUIRE_OK(clSetKernelArg(kern, 3, sizeof(int), &pat));
      REQUIRE_OK(clSetKernelArg(kern, 4, sizeof(int), &a));
      run(kern, s);
      bufs_read(&b);
      unsigned char *expected = malloc(b.n * vsize);
      model(k, t, op, pat, a, &l, &b, expected);
      compare(name, s, pat, t, &b, expected);
      free(expected);
      bufs_free(&b);
    }
    sg_list_free(&l);
  }
  clReleaseKernel(kern);
}

/* ---- Per-type kernels ----------------------------------------------- */

#define KARGS                                                                  \
  "(global const T *in, global const uint *r, global T *out, int pat, "        \
  "int a)"

static void test_type(tcode t) {
  char src[16384];
  int is_int = types[t].is_int;
  int n = snprintf(src, sizeof src, "%s#define T %s\n", prelude, types[t].name);
  static const char *const kinds[] = {"reduce", "scan_inclusive",
                                      "scan_exclusive"};
  int nops = is_int ? (t == T_INT ? NUM_OPS : OP_XOR + 1) : OP_MUL + 1;
  for (int op = 0; op < nops; op++) {
    for (int k = 0; k < 3; k++)
      n += snprintf(src + n, sizeof src - n,
                    "kernel void nu_%s_%s" KARGS
                    " { if (ON) out[ID] = sub_group_non_uniform_%s_%s("
                    "in[ID]); }\n",
                    kinds[k], op_names[op], kinds[k], op_names[op]);
    n += snprintf(src + n, sizeof src - n,
                  "kernel void cl_%s" KARGS
                  " { if (ON) out[ID] = sub_group_clustered_reduce_%s("
                  "in[ID], 4); }\n",
                  op_names[op], op_names[op]);
  }
  if (!is_int || t < T_INT) /* extended types of the core functions */
    for (int op = 0; op < 3; op++)
      for (int k = 0; k < 3; k++)
        n += snprintf(src + n, sizeof src - n,
                      "kernel void core_%s_%s" KARGS
                      " { out[ID] = sub_group_%s_%s(in[ID]); }\n",
                      kinds[k], op_names[op], kinds[k], op_names[op]);
  n += snprintf(src + n, sizeof src - n,
                "kernel void shuffle" KARGS
                " { if (ON) out[ID] = sub_group_shuffle("
                "in[ID], r[ID] %% (uint)a); }\n"
                "kernel void shuffle_xor" KARGS " { if (ON) out[ID] = "
                "sub_group_shuffle_xor(in[ID], r[ID] %% (uint)a); }\n"
                "kernel void shuffle_up" KARGS " { if (ON) out[ID] = "
                "sub_group_shuffle_up(in[ID], r[ID] %% 4); }\n"
                "kernel void shuffle_down" KARGS " { if (ON) out[ID] = "
                "sub_group_shuffle_down(in[ID], r[ID] %% 4); }\n"
                "kernel void rotate" KARGS " { if (ON) out[ID] = "
                "sub_group_rotate(in[ID], a); }\n"
                "kernel void crotate" KARGS " { if (ON) out[ID] = "
                "sub_group_clustered_rotate(in[ID], a, 4); }\n"
                "kernel void nu_broadcast" KARGS " { if (ON) out[ID] = "
                "sub_group_non_uniform_broadcast(in[ID], (uint)a); }\n"
                "kernel void broadcast" KARGS " { out[ID] = "
                "sub_group_broadcast(in[ID], (uint)a); }\n"
                "kernel void first" KARGS " { if (ON) out[ID] = "
                "sub_group_broadcast_first(in[ID]); }\n"
                "kernel void first_all" KARGS " { out[ID] = "
                "sub_group_broadcast_first(in[ID]); }\n"
                "kernel void all_equal" KARGS " { if (ON) out[ID] = "
                "(T)sub_group_non_uniform_all_equal(in[ID]); }\n");
  cl_program prog = test_build(&env, src, "-cl-std=CL3.0");
  for (int op = 0; op < nops; op++) {
    char name[64];
    for (int k = 0; k < 3; k++) {
      snprintf(name, sizeof name, "nu_%s_%s", kinds[k], op_names[op]);
      check(prog, name, (kind)k, t, op, NUM_PATTERNS, 0, types[t].size, 0);
    }
    snprintf(name, sizeof name, "cl_%s", op_names[op]);
    check(prog, name, K_CLUSTERED, t, op, NUM_PATTERNS, 0, types[t].size, 0);
  }
  if (!is_int || t < T_INT)
    for (int op = 0; op < 3; op++)
      for (int k = 0; k < 3; k++) {
        char name[64];
        snprintf(name, sizeof name, "core_%s_%s", kinds[k], op_names[op]);
        check(prog, name, (kind)k, t, op, 1, 0, types[t].size, 0);
      }
  size_t es = types[t].size;
  check(prog, "shuffle", K_SHUFFLE, t, 0, NUM_PATTERNS, (int32_t)sg_size + 2,
        es, 0);
  check(prog, "shuffle_xor", K_XOR, t, 0, NUM_PATTERNS, (int32_t)sg_size, es,
        0);
  check(prog, "shuffle_up", K_UP, t, 0, NUM_PATTERNS, 0, es, 0);
  check(prog, "shuffle_down", K_DOWN, t, 0, NUM_PATTERNS, 0, es, 0);
  for (int32_t a = -5; a <= 17; a += 11) {
    check(prog, "rotate", K_ROTATE, t, 0, NUM_PATTERNS, a, es, 0);
    check(prog, "crotate", K_CROTATE, t, 0, NUM_PATTERNS, a, es, 0);
  }
  for (int32_t a = 0; a < 40; a += 3) {
    check(prog, "nu_broadcast", K_NU_BROADCAST, t, 0, NUM_PATTERNS, a, es, 0);
    check(prog, "broadcast", K_BROADCAST, t, 0, 1, a, es, 0);
  }
  check(prog, "first", K_FIRST, t, 0, NUM_PATTERNS, 0, es, 0);
  /* every work-item: region mode takes it (its name test sees a
   * broadcast) for int, uint, long, ulong, float and double */
  check(prog, "first_all", K_FIRST, t, 0, 1, 0, es, 0);
  check(prog, "all_equal", K_ALL_EQUAL, t, 0, NUM_PATTERNS, 0, es, 1);
  check(prog, "all_equal", K_ALL_EQUAL, t, 0, NUM_PATTERNS, 0, es, 0);
  clReleaseProgram(prog);
}

/* ---- Vector broadcasts ---------------------------------------------- */

static void test_vectors(void) {
  static const struct {
    tcode t;
    int width;
  } vecs[] = {{T_INT, 4},   {T_CHAR, 16},  {T_DOUBLE, 3}, {T_HALF, 8},
              {T_ULONG, 2}, {T_FLOAT, 16}, {T_USHORT, 3}};
  for (size_t v = 0; v < sizeof vecs / sizeof *vecs; v++) {
    tcode t = vecs[v].t;
    int w = vecs[v].width;
    char src[4096];
    snprintf(src, sizeof src,
             "%s#define T %s%d\n"
             "kernel void nu_broadcast" KARGS " { if (ON) out[ID] = "
             "sub_group_non_uniform_broadcast(in[ID], (uint)a); }\n"
             "kernel void broadcast" KARGS " { out[ID] = "
             "sub_group_broadcast(in[ID], (uint)a); }\n",
             prelude, types[t].name, w);
    cl_program prog = test_build(&env, src, "-cl-std=CL3.0");
    size_t vsize = types[t].size * (w == 3 ? 4 : w);
    for (int32_t a = 0; a < 20; a += 5) {
      check(prog, "nu_broadcast", K_NU_BROADCAST, t, 0, NUM_PATTERNS, a, vsize,
            0);
      check(prog, "broadcast", K_BROADCAST, t, 0, 1, a, vsize, 0);
    }
    clReleaseProgram(prog);
  }
}

/* ---- Votes, ballots, loops, mixed (int) ----------------------------- */

/* Runs kernel name of prog (in, r, out, pat, a) over s with words per
 * work-item of output; out gets them (pre-filled with 0xA5A5A5A5). */
static void run_words(cl_program prog, const char *name, const shape *s,
                      int pat, int a, const int32_t *in, const uint32_t *r,
                      uint32_t *out, size_t words) {
  size_t n = total(s);
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  for (size_t i = 0; i < n * words; i++)
    out[i] = 0xA5A5A5A5u;
  cl_mem m[3] = {test_buffer(&env, n * 4, (void *)in),
                 test_buffer(&env, n * 4, (void *)r),
                 test_buffer(&env, n * words * 4, out)};
  for (int i = 0; i < 3; i++)
    REQUIRE_OK(clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &m[i]));
  REQUIRE_OK(clSetKernelArg(k, 3, sizeof(int), &pat));
  REQUIRE_OK(clSetKernelArg(k, 4, sizeof(int), &a));
  run(k, s);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, m[2], CL_TRUE, 0, n * words * 4,
                                 out, 0, NULL, NULL));
  test_release_buffers(m, 3);
  clReleaseKernel(k);
}

static const char *const int_source =
    "#define P(x) ((x >> 8) % 16 != 0)\n"
    "#define Q(x) ((x >> 8) % 16 == 0)\n"
    "kernel void ballots(global const int *in, global const uint *r,\n"
    "                    global uint *out, int pat, int a) {\n"
    "  if (!ON) return;\n"
    "  global uint *o = out + 16 * ID;\n"
    "  uint4 b = sub_group_ballot(P(r[ID]));\n"
    "  o[0] = b.x; o[1] = b.y; o[2] = b.z; o[3] = b.w;\n"
    "  o[4] = sub_group_inverse_ballot(b);\n"
    "  o[5] = sub_group_ballot_bit_extract(b, (uint)a);\n"
    "  o[6] = sub_group_ballot_bit_count(b);\n"
    "  o[7] = sub_group_ballot_inclusive_scan(b);\n"
    "  o[8] = sub_group_ballot_exclusive_scan(b);\n"
    "  o[9] = any(b != 0) ? sub_group_ballot_find_lsb(b) : 77u;\n"
    "  o[10] = any(b != 0) ? sub_group_ballot_find_msb(b) : 77u;\n"
    "  o[11] = sub_group_elect();\n"
    "  o[12] = sub_group_non_uniform_all(P(r[ID]));\n"
    "  o[13] = sub_group_non_uniform_any(Q(r[ID]));\n"
    "  o[14] = sub_group_non_uniform_reduce_logical_xor(P(r[ID]));\n"
    "  o[15] = sub_group_non_uniform_scan_inclusive_logical_or(Q(r[ID]));\n"
    "}\n"
    "kernel void masks(global const int *in, global const uint *r,\n"
    "                  global uint *out, int pat, int a) {\n"
    "  uint4 m[5] = {get_sub_group_eq_mask(), get_sub_group_ge_mask(),\n"
    "                get_sub_group_gt_mask(), get_sub_group_le_mask(),\n"
    "                get_sub_group_lt_mask()};\n"
    "  for (int k = 0; k < 5; k++)\n"
    "    vstore4(m[k], 5 * ID + k, out);\n"
    "}\n"
    "kernel void loops(global const int *in, global const uint *r,\n"
    "                  global uint *out, int pat, int a) {\n"
    "  uint acc = 0, trips = r[ID] % 5;\n"
    "  if (ON)\n"
    "    for (uint t = 0; t < trips; t++)\n"
    "      acc = acc * 31u +\n"
    "            (uint)sub_group_non_uniform_reduce_add(in[ID] + (int)t) +\n"
    "            (uint)sub_group_non_uniform_scan_exclusive_max(in[ID]);\n"
    "  out[ID] = acc;\n"
    "}\n"
    "kernel void branches(global const int *in, global const uint *r,\n"
    "                     global uint *out, int pat, int a) {\n"
    "  if (ON)\n"
    "    out[2 * ID] = sub_group_broadcast_first(in[ID]),\n"
    "    out[2 * ID + 1] = sub_group_non_uniform_reduce_add(in[ID]);\n"
    "  else\n"
    "    out[2 * ID] = sub_group_broadcast_first(in[ID]),\n"
    "    out[2 * ID + 1] = sub_group_non_uniform_reduce_add(in[ID]);\n"
    "}\n"
    "kernel void mixed(global const int *in, global const uint *r,\n"
    "                  global uint *out, int pat, int a) {\n"
    "  int v = in[ID];\n"
    "  if (ON) v = sub_group_non_uniform_reduce_add(v);\n"
    "  if (a) barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[ID] = (uint)sub_group_reduce_add(v);\n"
    "}\n";

static int P(uint32_t x) { return (x >> 8) % 16 != 0; }
static int Q(uint32_t x) { return (x >> 8) % 16 == 0; }

static uint32_t popc(const uint32_t b[4], uint32_t below) {
  uint32_t c = 0;
  for (uint32_t k = 0; k < below && k < 128; k++)
    c += (b[k / 32] >> (k % 32)) & 1;
  return c;
}

/* The expected words of kernel "ballots" for one sub-group. */
static void model_ballots(const size_t *mem, size_t size, uint32_t max, int pat,
                          int a, const uint32_t *r, uint32_t *want) {
  uint32_t b[4] = {0};
  size_t firstact = SIZE_MAX;
  int all = 1, any = 0, lxor = 0;
  for (size_t lane = 0; lane < size; lane++) {
    uint32_t w = r[mem[lane]];
    if (!active(pat, lane, w))
      continue;
    if (firstact == SIZE_MAX)
      firstact = lane;
    if (P(w))
      b[lane / 32] |= 1u << (lane % 32);
    all &= P(w);
    any |= Q(w);
    lxor ^= P(w);
  }
  int orscan = 0;
  for (size_t lane = 0; lane < size; lane++) {
    uint32_t w = r[mem[lane]];
    uint32_t *o = want + 16 * mem[lane];
    if (!active(pat, lane, w))
      continue;
    orscan |= Q(w);
    memcpy(o, b, 16);
    o[4] = (b[lane / 32] >> (lane % 32)) & 1;
    o[5] = (b[a / 32] >> (a % 32)) & 1;
    o[6] = popc(b, max);
    o[7] = popc(b, (uint32_t)lane + 1);
    o[8] = popc(b, (uint32_t)lane);
    uint32_t lsb = 77, msb = 77;
    for (uint32_t k = 0; k < 128; k++)
      if ((b[k / 32] >> (k % 32)) & 1) {
        if (lsb == 77)
          lsb = k;
        msb = k;
      }
    o[9] = lsb;
    o[10] = msb;
    o[11] = lane == firstact;
    o[12] = all;
    o[13] = any;
    o[14] = lxor;
    o[15] = orscan;
  }
}

static void check_words(const char *what, const shape *s, int pat,
                        const uint32_t *got, const uint32_t *want,
                        size_t words) {
  int shown = 0;
  for (size_t i = 0; i < total(s) * words; i++) {
    if (got[i] == want[i])
      continue;
    if (shown++ < 3)
      fprintf(stderr,
              "%s shape %zux%zux%zu/%zux%zux%zu pattern %d item %zu word "
              "%zu: got %x, want %x\n",
              what, s->global[0], s->global[1], s->global[2], s->local[0],
              s->local[1], s->local[2], pat, i / words, i % words, got[i],
              want[i]);
    test_failures++;
  }
}

static void test_int_only(void) {
  char src[8192];
  snprintf(src, sizeof src, "%s%s", prelude, int_source);
  cl_program prog = test_build(&env, src, "-cl-std=CL3.0");
  for (size_t si = 0; si < NUM_SHAPES; si++) {
    const shape *s = &shapes[si];
    size_t n = total(s);
    sg_list l;
    sg_list_build(&l, s);
    int32_t *in = malloc(n * 4);
    uint32_t *r = malloc(n * 4), *got = malloc(n * 20 * 4),
             *want = malloc(n * 20 * 4);
    for (int pat = 0; pat < NUM_PATTERNS; pat++) {
      for (size_t i = 0; i < n; i++) {
        in[i] = (int32_t)(test_rand() % 2001) - 1000;
        r[i] = (uint32_t)test_rand();
      }
      /* ballots, elect, votes */
      for (int a = 0; a < 8; a += 3) {
        run_words(prog, "ballots", s, pat, a, in, r, got, 16);
        for (size_t i = 0; i < n * 16; i++)
          want[i] = 0xA5A5A5A5u;
        for (size_t g = 0; g < l.count; g++)
          model_ballots(l.members + l.first[g], l.first[g + 1] - l.first[g],
                        (uint32_t)l.max, pat, a, r, want);
        check_words("ballots", s, pat, got, want, 16);
      }
      /* loops with per-lane trip counts */
      run_words(prog, "loops", s, pat, 0, in, r, got, 1);
      for (size_t g = 0; g < l.count; g++) {
        const size_t *mem = l.members + l.first[g];
        size_t size = l.first[g + 1] - l.first[g];
        for (size_t lane = 0; lane < size; lane++) {
          size_t i = mem[lane];
          uint32_t acc = 0;
          if (active(pat, lane, r[i]))
            for (uint32_t t = 0; t < r[i] % 5; t++) {
              uint32_t sum = 0;
              int32_t mx = INT32_MIN;
              for (size_t q = 0; q < size; q++) {
                size_t j = mem[q];
                if (!active(pat, q, r[j]) || r[j] % 5 <= t)
                  continue;
                sum += (uint32_t)(in[j] + (int32_t)t);
                if (q < lane && in[j] > mx)
                  mx = in[j];
              }
              acc = acc * 31u + sum + (uint32_t)mx;
            }
          want[i] = acc;
        }
      }
      check_words("loops", s, pat, got, want, 1);
      /* the same calls in both arms of a branch: two active sets */
      run_words(prog, "branches", s, pat, 0, in, r, got, 2);
      for (size_t g = 0; g < l.count; g++) {
        const size_t *mem = l.members + l.first[g];
        size_t size = l.first[g + 1] - l.first[g];
        for (int arm = 0; arm < 2; arm++) {
          uint32_t first = 0, sum = 0;
          int seen = 0;
          for (size_t q = 0; q < size; q++)
            if (active(pat, q, r[mem[q]]) == !arm) {
              if (!seen++)
                first = (uint32_t)in[mem[q]];
              sum += (uint32_t)in[mem[q]];
            }
          for (size_t q = 0; q < size; q++)
            if (active(pat, q, r[mem[q]]) == !arm) {
              want[2 * mem[q]] = first;
              want[2 * mem[q] + 1] = sum;
            }
        }
      }
      check_words("branches", s, pat, got, want, 2);
      /* a uniform reduction after a divergent one, with and without a
       * work-group barrier between */
      for (int a = 0; a < 2; a++) {
        run_words(prog, "mixed", s, pat, a, in, r, got, 1);
        for (size_t g = 0; g < l.count; g++) {
          const size_t *mem = l.members + l.first[g];
          size_t size = l.first[g + 1] - l.first[g];
          uint32_t nu = 0, total_v = 0;
          for (size_t q = 0; q < size; q++)
            if (active(pat, q, r[mem[q]]))
              nu += (uint32_t)in[mem[q]];
          for (size_t q = 0; q < size; q++)
            total_v += active(pat, q, r[mem[q]]) ? nu : (uint32_t)in[mem[q]];
          for (size_t q = 0; q < size; q++)
            want[mem[q]] = total_v;
        }
        check_words(a ? "mixed+barrier" : "mixed", s, pat, got, want, 1);
      }
    }
    /* the masks */
    run_words(prog, "masks", s, 0, 0, in, r, got, 20);
    for (size_t g = 0; g < l.count; g++) {
      const size_t *mem = l.members + l.first[g];
      size_t size = l.first[g + 1] - l.first[g];
      for (uint32_t lane = 0; lane < size; lane++) {
        uint32_t *o = want + 20 * mem[lane];
        memset(o, 0, 80);
        for (uint32_t k = 0; k < 128; k++) {
          uint32_t bit = 1u << (k % 32), w = k / 32;
          if (k == lane)
            o[w] |= bit;
          if (k >= lane && k < l.max)
            o[4 + w] |= bit;
          if (k > lane && k < l.max)
            o[8 + w] |= bit;
          if (k <= lane)
            o[12 + w] |= bit;
          if (k < lane)
            o[16 + w] |= bit;
        }
      }
    }
    check_words("masks", s, 0, got, want, 20);
    free(in);
    free(r);
    free(got);
    free(want);
    sg_list_free(&l);
  }
  clReleaseProgram(prog);
}

/* ---- cl_intel_required_subgroup_size -------------------------------- */

static const char *const reqd_source =
    "__attribute__((intel_reqd_sub_group_size(N)))\n"
    "kernel void sizes(global const int *in, global uint *out) {\n"
    "  size_t i = get_global_linear_id();\n"
    "  out[4 * i] = get_sub_group_size();\n"
    "  out[4 * i + 1] = get_max_sub_group_size();\n"
    "  out[4 * i + 2] = get_sub_group_local_id();\n"
    "  out[4 * i + 3] = (uint)sub_group_reduce_add(in[i]) +\n"
    "                   (uint)sub_group_non_uniform_scan_inclusive_add(1);\n"
    "}\n"
    "__attribute__((intel_reqd_sub_group_size(N)))\n"
    "kernel void sizes_core(global const int *in, global uint *out) {\n"
    "  size_t i = get_global_linear_id();\n"
    "  out[4 * i] = get_sub_group_size();\n"
    "  out[4 * i + 1] = get_max_sub_group_size();\n"
    "  out[4 * i + 2] = get_sub_group_local_id();\n"
    "  out[4 * i + 3] = (uint)sub_group_reduce_add(in[i]) +\n"
    "                   (uint)sub_group_scan_inclusive_add(1);\n"
    "}\n";

static void test_required_size(void) {
  size_t sizes[8] = {0}, bytes = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, 0x4108 /* SUB_GROUP_SIZES_INTEL */,
                             sizeof sizes, sizes, &bytes));
  CHECK_EQ(bytes, 4 * sizeof(size_t));
  CHECK(sizes[0] == 4 && sizes[1] == 8 && sizes[2] == 16 && sizes[3] == 32);
  int listed_default = 0;
  for (int k = 0; k < 4; k++)
    listed_default += sizes[k] == test_expected_sub_group_size();
  CHECK_EQ(listed_default, 1);
  size_t saved = sg_size;
  static const shape reqd_shapes[] = {{1, {100, 1, 1}, {60, 1, 1}},
                                      {1, {64, 1, 1}, {64, 1, 1}},
                                      {2, {12, 10, 1}, {6, 5, 1}},
                                      {1, {3, 1, 1}, {3, 1, 1}}};
  for (int k = 0; k < 4; k++) {
    char src[2048];
    snprintf(src, sizeof src, "#define N %zu\n%s", sizes[k], reqd_source);
    cl_program prog = test_build(&env, src, "-cl-std=CL3.0");
    for (int which = 0; which < 2; which++) {
      cl_int err;
      cl_kernel kern =
          clCreateKernel(prog, which ? "sizes_core" : "sizes", &err);
      REQUIRE_OK(err);
      size_t local = 60, got = 0;
      REQUIRE_OK(clGetKernelSubGroupInfo(
          kern, env.device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
          sizeof local, &local, sizeof got, &got, NULL));
      CHECK_EQ(got, sizes[k]);
      REQUIRE_OK(clGetKernelSubGroupInfo(
          kern, env.device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, sizeof local,
          &local, sizeof got, &got, NULL));
      CHECK_EQ(got, (60 + sizes[k] - 1) / sizes[k]);
      REQUIRE_OK(clGetKernelSubGroupInfo(
          kern, env.device, 0x410A /* COMPILE_SUB_GROUP_SIZE_INTEL */, 0, NULL,
          sizeof got, &got, NULL));
      CHECK_EQ(got, sizes[k]);
      char attrs[256] = "", want_attr[64];
      REQUIRE_OK(clGetKernelInfo(kern, CL_KERNEL_ATTRIBUTES, sizeof attrs,
                                 attrs, NULL));
      snprintf(want_attr, sizeof want_attr, "intel_reqd_sub_group_size(%zu)",
               sizes[k]);
      CHECK(strstr(attrs, want_attr) != NULL);
      sg_size = sizes[k];
      for (size_t si = 0; si < sizeof reqd_shapes / sizeof *reqd_shapes; si++) {
        const shape *s = &reqd_shapes[si];
        size_t n = total(s);
        sg_list l;
        sg_list_build(&l, s);
        int32_t *in = malloc(n * 4);
        uint32_t *out = malloc(n * 16), *want = malloc(n * 16);
        for (size_t i = 0; i < n; i++)
          in[i] = (int32_t)(test_rand() % 1000);
        cl_mem m[2] = {test_buffer(&env, n * 4, in),
                       test_buffer(&env, n * 16, NULL)};
        REQUIRE_OK(clSetKernelArg(kern, 0, sizeof(cl_mem), &m[0]));
        REQUIRE_OK(clSetKernelArg(kern, 1, sizeof(cl_mem), &m[1]));
        run(kern, s);
        REQUIRE_OK(clEnqueueReadBuffer(env.queue, m[1], CL_TRUE, 0, n * 16, out,
                                       0, NULL, NULL));
        for (size_t g = 0; g < l.count; g++) {
          const size_t *mem = l.members + l.first[g];
          size_t size = l.first[g + 1] - l.first[g];
          uint32_t sum = 0;
          for (size_t q = 0; q < size; q++)
            sum += (uint32_t)in[mem[q]];
          for (size_t q = 0; q < size; q++) {
            uint32_t *w = want + 4 * mem[q];
            w[0] = (uint32_t)size;
            w[1] = (uint32_t)l.max;
            w[2] = (uint32_t)q;
            w[3] = sum + (uint32_t)q + 1;
          }
        }
        char what[64];
        snprintf(what, sizeof what, "intel_reqd_sub_group_size(%zu)", sizes[k]);
        check_words(what, s, 0, out, want, 4);
        test_release_buffers(m, 2);
        free(in);
        free(out);
        free(want);
        sg_list_free(&l);
      }
      clReleaseKernel(kern);
    }
    clReleaseProgram(prog);
  }
  sg_size = saved;
  /* A size the device does not have fails the build, saying why. */
  static const int bad[] = {12, 64, 1};
  for (int k = 0; k < 3; k++) {
    char src[2048], log[4096] = "", want[64];
    snprintf(src, sizeof src, "#define N %d\n%s", bad[k], reqd_source);
    const char *p = src;
    cl_int err;
    cl_program prog = clCreateProgramWithSource(env.context, 1, &p, NULL, &err);
    REQUIRE_OK(err);
    CHECK_EQ(clBuildProgram(prog, 1, &env.device, "-cl-std=CL3.0", NULL, NULL),
             CL_BUILD_PROGRAM_FAILURE);
    REQUIRE_OK(clGetProgramBuildInfo(prog, env.device, CL_PROGRAM_BUILD_LOG,
                                     sizeof log, log, NULL));
    snprintf(want, sizeof want, "intel_reqd_sub_group_size(%d)", bad[k]);
    CHECK(strstr(log, want) != NULL);
    clReleaseProgram(prog);
  }
}

/* ---- Kernels that break the rules must still finish ------------------ */

/* Each kernel meets barriers and sub-group functions in ways the spec
 * leaves undefined; fiber mode's scheduler must still run every
 * work-item to its end (the out[] store after the odd part proves it). */
static const char *const rule_breakers =
    "#define LANE get_sub_group_local_id()\n"
    "kernel void mixed_barriers(global uint *out) {\n"
    "  if (LANE & 1) sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  else barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_linear_id()] = 1;\n"
    "}\n"
    "kernel void early_return(global uint *out) {\n"
    "  uint x = 1;\n"
    "  if (LANE == 0) { out[get_global_linear_id()] = 1; return; }\n"
    "  x = sub_group_reduce_add(x) + sub_group_non_uniform_reduce_add(x);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_linear_id()] = x != 0;\n"
    "}\n"
    "kernel void uneven_loops(global uint *out) {\n"
    "  uint x = 0;\n"
    "  for (uint i = 0; i < LANE % 5; i++) {\n"
    "    sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    x += sub_group_shuffle(i, 0u) + sub_group_broadcast(i, 0u);\n"
    "    if (i == 2) barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  out[get_global_linear_id()] = x + 1 != 0;\n"
    "}\n"
    "kernel void barrier_in_branch(global uint *out) {\n"
    "  if (LANE < 2) barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  uint x = sub_group_non_uniform_reduce_add(1u) + sub_group_elect();\n"
    "  out[get_global_linear_id()] = x != 0;\n"
    "}\n";

static void test_rule_breakers(void) {
  cl_program prog = test_build(&env, rule_breakers, "-cl-std=CL3.0");
  static const char *const names[] = {"mixed_barriers", "early_return",
                                      "uneven_loops", "barrier_in_branch"};
  for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
    cl_int err;
    cl_kernel kern = clCreateKernel(prog, names[k], &err);
    REQUIRE_OK(err);
    for (size_t si = 0; si < NUM_SHAPES; si++) {
      const shape *s = &shapes[si];
      size_t n = total(s);
      uint32_t *out = calloc(n, 4);
      cl_mem m = test_buffer(&env, n * 4, out);
      REQUIRE_OK(clSetKernelArg(kern, 0, sizeof m, &m));
      run(kern, s);
      REQUIRE_OK(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, n * 4, out, 0,
                                     NULL, NULL));
      size_t done = 0;
      for (size_t i = 0; i < n; i++)
        done += out[i] == 1;
      if (done != n)
        fprintf(stderr, "%s: %zu of %zu work-items finished\n", names[k], done,
                n);
      CHECK_EQ(done, n);
      clReleaseMemObject(m);
      free(out);
    }
    clReleaseKernel(kern);
  }
  clReleaseProgram(prog);
}

/* ---- cl_intel_subgroups -------------------------------------------- */

static const char *const intel_shuffle_source =
    "kernel void ishuffle(global const T *a, global const T *b,\n"
    "                     global const uint *r, global T *out) {\n"
    "  size_t i = get_global_linear_id();\n"
    "  uint d = r[i] %% get_max_sub_group_size();\n"
    "  out[4 * i] = intel_sub_group_shuffle(a[i], d);\n"
    "  out[4 * i + 1] = intel_sub_group_shuffle_xor(a[i], d);\n"
    "  out[4 * i + 2] = intel_sub_group_shuffle_down(a[i], b[i], d);\n"
    "  out[4 * i + 3] = intel_sub_group_shuffle_up(b[i], a[i], d);\n"
    "}\n";

/* The intel shuffles of type name (elems elements of es bytes, stored in
 * slots of vs bytes) against the two-input model. */
static void test_intel_shuffle(const char *name, size_t es, size_t elems,
                               size_t vs) {
  char src[2048];
  snprintf(src, sizeof src,
           "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#define T %s\n",
           name);
  size_t len = strlen(src);
  snprintf(src + len, sizeof src - len, intel_shuffle_source);
  cl_program prog = test_build(&env, src, "-cl-std=CL3.0");
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "ishuffle", &err);
  REQUIRE_OK(err);
  for (size_t si = 0; si < NUM_SHAPES; si++) {
    const shape *s = &shapes[si];
    size_t n = total(s);
    sg_list l;
    sg_list_build(&l, s);
    unsigned char *a = malloc(n * vs), *b = malloc(n * vs),
                  *out = calloc(n * 4, vs);
    uint32_t *r = malloc(n * 4);
    for (size_t i = 0; i < n * vs; i++) {
      a[i] = (unsigned char)test_rand();
      b[i] = (unsigned char)test_rand();
    }
    for (size_t i = 0; i < n; i++)
      r[i] = (uint32_t)test_rand();
    cl_mem m[4] = {test_buffer(&env, n * vs, a), test_buffer(&env, n * vs, b),
                   test_buffer(&env, n * 4, r),
                   test_buffer(&env, n * 4 * vs, out)};
    for (int q = 0; q < 4; q++)
      REQUIRE_OK(clSetKernelArg(k, (cl_uint)q, sizeof(cl_mem), &m[q]));
    run(k, s);
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, m[3], CL_TRUE, 0, n * 4 * vs, out,
                                   0, NULL, NULL));
    int shown = 0;
    for (size_t g = 0; g < l.count; g++) {
      const size_t *mem = l.members + l.first[g];
      int64_t size = (int64_t)(l.first[g + 1] - l.first[g]), max = l.max;
      for (int64_t lane = 0; lane < size; lane++) {
        size_t i = mem[lane];
        int64_t d = r[i] % (uint32_t)max;
        /* what each of the four reads: (array, lane), own a if none */
        const unsigned char *want[4];
        int64_t x = (int64_t)((uint64_t)lane ^ (uint64_t)d);
        want[0] = d < size ? a + mem[d] * vs : a + i * vs;
        want[1] = x < size ? a + mem[x] * vs : a + i * vs;
        int64_t v = lane + d;
        want[2] = v < max
                      ? (v < size ? a + mem[v] * vs : a + i * vs)
                      : (v - max < size ? b + mem[v - max] * vs : a + i * vs);
        v = lane - d + max;
        want[3] = v < max
                      ? (v < size ? b + mem[v] * vs : a + i * vs)
                      : (v - max < size ? a + mem[v - max] * vs : a + i * vs);
        for (int q = 0; q < 4; q++)
          if (memcmp(out + (4 * i + q) * vs, want[q], es * elems) != 0) {
            if (shown++ < 3)
              fprintf(stderr,
                      "intel shuffle %d (%s) shape %zu item %zu "
                      "lane %lld delta %lld\n",
                      q, name, si, i, (long long)lane, (long long)d);
            test_failures++;
          }
      }
    }
    test_release_buffers(m, 4);
    free(a);
    free(b);
    free(out);
    free(r);
    sg_list_free(&l);
  }
  clReleaseKernel(k);
  clReleaseProgram(prog);
}

static const char *const intel_block_source =
    "kernel void iblock(global const T *src, global T *dst) {\n"
    "  size_t base = (get_group_id(0) * get_enqueued_num_sub_groups() +\n"
    "                 get_sub_group_id()) * get_max_sub_group_size() * N;\n"
    "  WRITE(dst + base, READ(src + base) + (VT)1);\n"
    "}\n";

/* A block read and write of N elements of type T (es bytes) per lane:
 * lane l of a sub-group moves elements l + k * max (k < N) of its block,
 * plus one; the rest of dst stays 0. 1D shapes. */
static void test_intel_block(const char *T, const char *VT, size_t es, int n,
                             const char *rd, const char *wr) {
  char src[2048];
  snprintf(src, sizeof src,
           "#define T %s\n#define VT %s\n#define N %d\n#define READ %s\n"
           "#define WRITE %s\n%s",
           T, VT, n, rd, wr, intel_block_source);
  cl_program prog = test_build(&env, src, "-cl-std=CL3.0");
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "iblock", &err);
  REQUIRE_OK(err);
  static const shape block_shapes[] = {{1, {37, 1, 1}, {37, 1, 1}},
                                       {1, {100, 1, 1}, {24, 1, 1}},
                                       {1, {128, 1, 1}, {64, 1, 1}},
                                       {1, {1, 1, 1}, {1, 1, 1}}};
  for (size_t si = 0; si < 4; si++) {
    const shape *s = &block_shapes[si];
    sg_list l;
    sg_list_build(&l, s);
    size_t groups = (s->global[0] + s->local[0] - 1) / s->local[0];
    size_t per_group = (s->local[0] + sg_size - 1) / sg_size;
    size_t elems = groups * per_group * (size_t)l.max * (size_t)n;
    unsigned char *in = malloc(elems * es), *out = calloc(elems, es),
                  *want = calloc(elems, es);
    for (size_t i = 0; i < elems * es; i++)
      in[i] = (unsigned char)test_rand();
    cl_mem m[2] = {test_buffer(&env, elems * es, in),
                   test_buffer(&env, elems * es, out)};
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &m[0]));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &m[1]));
    run(k, s);
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, m[1], CL_TRUE, 0, elems * es, out,
                                   0, NULL, NULL));
    for (size_t g = 0; g < l.count; g++) {
      size_t size = l.first[g + 1] - l.first[g];
      size_t first = l.members[l.first[g]];
      size_t grp = first / s->local[0], sgid = (first % s->local[0]) / sg_size;
      size_t base = (grp * per_group + sgid) * (size_t)l.max * (size_t)n;
      for (size_t lane = 0; lane < size; lane++)
        for (int q = 0; q < n; q++) {
          size_t e = base + lane + (size_t)q * (size_t)l.max;
          uint64_t v = 0;
          memcpy(&v, in + e * es, es);
          v++;
          memcpy(want + e * es, &v, es);
        }
    }
    if (memcmp(out, want, elems * es) != 0) {
      fprintf(stderr, "intel block %s x %d: shape %zu differs\n", T, n, si);
      test_failures++;
    }
    test_release_buffers(m, 2);
    free(in);
    free(out);
    free(want);
    sg_list_free(&l);
  }
  clReleaseKernel(k);
  clReleaseProgram(prog);
}

static void test_intel(void) {
  test_intel_shuffle("int", 4, 1, 4);
  test_intel_shuffle("float4", 4, 4, 16);
  test_intel_shuffle("ushort", 2, 1, 2);
  test_intel_shuffle("uchar3", 1, 3, 4);
  test_intel_shuffle("ulong", 8, 1, 8);
  test_intel_shuffle("double2", 8, 2, 16);
  test_intel_shuffle("char16", 1, 16, 16);
  test_intel_block("uint", "uint", 4, 1, "intel_sub_group_block_read",
                   "intel_sub_group_block_write");
  test_intel_block("uint", "uint8", 4, 8, "intel_sub_group_block_read8",
                   "intel_sub_group_block_write8");
  test_intel_block("uint", "uint2", 4, 2, "intel_sub_group_block_read_ui2",
                   "intel_sub_group_block_write_ui2");
  test_intel_block("ushort", "ushort4", 2, 4, "intel_sub_group_block_read_us4",
                   "intel_sub_group_block_write_us4");
  test_intel_block("uchar", "uchar16", 1, 16, "intel_sub_group_block_read_uc16",
                   "intel_sub_group_block_write_uc16");
  test_intel_block("ulong", "ulong2", 8, 2, "intel_sub_group_block_read_ul2",
                   "intel_sub_group_block_write_ul2");
  test_intel_block("ulong", "ulong8", 8, 8, "intel_sub_group_block_read_ul8",
                   "intel_sub_group_block_write_ul8");
}

int main(void) {
  test_setup(&env);
  test_seed(0x5eed15);
  static const char *const wanted[] = {"cl_khr_subgroup_extended_types",
                                       "cl_khr_subgroup_non_uniform_vote",
                                       "cl_khr_subgroup_ballot",
                                       "cl_khr_subgroup_non_uniform_arithmetic",
                                       "cl_khr_subgroup_shuffle",
                                       "cl_khr_subgroup_shuffle_relative",
                                       "cl_khr_subgroup_clustered_reduce",
                                       "cl_khr_subgroup_rotate",
                                       "cl_intel_required_subgroup_size",
                                       "cl_intel_subgroups",
                                       "cl_intel_subgroups_char",
                                       "cl_intel_subgroups_short",
                                       "cl_intel_subgroups_long"};
  for (size_t k = 0; k < sizeof wanted / sizeof *wanted; k++)
    CHECK(test_extension_listed(&env, wanted[k]));
  sg_size = test_expected_sub_group_size();
  for (int t = 0; t < NUM_TYPES; t++)
    test_type((tcode)t);
  test_vectors();
  test_int_only();
  test_required_size();
  test_rule_breakers();
  test_intel();
  test_teardown(&env);
  if (test_failures)
    fprintf(stderr, "%d failures\n", test_failures);
  return test_failures ? 1 : 0;
}
