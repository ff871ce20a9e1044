/* This file contains the seeded random kernel generator (see kernel_gen.h
 * for what it generates and the kernel signature).
 *
 * How it stays free of undefined behaviour and races, so that any
 * difference between execution modes is a bug in Skein:
 *  - signed arithmetic goes through the guarded kg_* helpers of the
 *    preamble; unsigned arithmetic wraps; shifts mask their count; narrow
 *    types are computed in int/uint and converted back; the only floats
 *    are integers below 2^24 (exact, fused or not);
 *  - every value, variable and control-flow point has a uniformity level:
 *    GRID (same for the whole NDRange), GROUP (same within a group) or
 *    VARY. A variable keeps the level it was declared with and may only be
 *    assigned at or below it in control flow at or below it; a loop whose
 *    break/continue conditions vary runs its whole body at VARY level;
 *  - barriers and collectives appear only where control flow is at GROUP
 *    level or below; local arrays are written only between the two
 *    barriers of a "publish" (barrier; write own slot; barrier) and read
 *    anywhere else, within the group's actual local size;
 *  - a work-item stores only its own out slots; a uni slot is stored by
 *    every work-item of its scope with the same value at GRID (global
 *    slots) or GROUP (group slots) level, or by one work-item only, the
 *    two kinds in separate slots;
 *  - loops have bounded trip counts; induction variables are read-only. */
#include "kernel_gen.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- string building ---- */

typedef struct sb {
  char *s;
  size_t len, cap;
} sb;

static void sb_vadd(sb *b, const char *fmt, va_list ap) {
  for (;;) {
    va_list copy;
    va_copy(copy, ap);
    size_t room = b->cap - b->len;
    int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, copy);
    va_end(copy);
    if (b->s && (size_t)n < room) {
      b->len += (size_t)n;
      return;
    }
    b->cap = (b->cap + (size_t)n + 1) * 2;
    b->s = realloc(b->s, b->cap);
  }
}

static void sb_add(sb *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sb_vadd(b, fmt, ap);
  va_end(ap);
}

/* ---- random choices ---- */

typedef struct rng {
  unsigned long long s;
} rng;

static unsigned long long next(rng *r) {
  r->s ^= r->s << 13;
  r->s ^= r->s >> 7;
  r->s ^= r->s << 17;
  return r->s;
}

/* splitmix64: neighbouring seeds give unrelated streams. */
static void seed_rng(rng *r, unsigned long long seed) {
  unsigned long long z = seed + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  r->s = (z ^ (z >> 31)) | 1;
}

/* ---- types and levels ---- */

enum { GRID, GROUP, VARY };
enum {
  T_CHAR,
  T_UCHAR,
  T_SHORT,
  T_USHORT,
  T_INT,
  T_UINT,
  T_LONG,
  T_ULONG,
  NTYPES
};

static const struct {
  const char *name;
  int bits, is_signed, compute; /* compute: the type arithmetic uses */
} types[NTYPES] = {
    {"char", 8, 1, T_INT},   {"uchar", 8, 0, T_UINT},
    {"short", 16, 1, T_INT}, {"ushort", 16, 0, T_UINT},
    {"int", 32, 1, T_INT},   {"uint", 32, 0, T_UINT},
    {"long", 64, 1, T_LONG}, {"ulong", 64, 0, T_ULONG},
};

static int max_level(int a, int b) { return a > b ? a : b; }

#define MAX_VARS 256

typedef struct var {
  char name[16];
  int type, level;
  int len;      /* 0: scalar; else a private array of len (power of 2) */
  int readonly; /* induction variables, work-item ids */
  int nofold;   /* the checksum itself and the work-item ids */
  int depth;    /* block depth of the declaration */
} var;

typedef struct gen {
  rng r;
  sb *out;
  int indent, depth;
  var vars[MAX_VARS];
  int nvars;
  int ctx;       /* level of the control flow here */
  int floor;     /* level of everything after an early return */
  int loops;     /* loops around this point */
  int loop_body; /* level of the innermost loop's body */
  int in_helper; /* a pure helper: no memory, no work-item functions */
  int no_local;  /* generating a value a publish writes: no local loads */
  int barriers, collectives, local_helper, task;
  int small;    /* a serial "task" kernel of a few statements */
  int nhelpers; /* pure helpers defined so far (callable) */
  int budget;   /* statements left to generate */
  int next_id;
  char tag[24]; /* the kernel's unique suffix */
} gen;

static int pick(gen *g, int n) { return (int)(next(&g->r) % (unsigned)n); }
static int chance(gen *g, int percent) { return pick(g, 100) < percent; }
static int cur(gen *g) { return max_level(g->ctx, g->floor); }

/* A level at or above lo, uniform ones favoured (they are the
 * interesting case for the fast modes). */
static int level_from(gen *g, int lo) {
  int l = pick(g, 5) < 2 ? GRID : pick(g, 3) < 2 ? GROUP : VARY;
  return max_level(l, lo);
}

/* Appends an indented line (fmt ends it with a newline, or not). */
static void line(gen *g, const char *fmt, ...) {
  for (int i = 0; i < g->indent; i++)
    sb_add(g->out, "  ");
  va_list ap;
  va_start(ap, fmt);
  sb_vadd(g->out, fmt, ap);
  va_end(ap);
}

static var *add_var(gen *g, char prefix, int type, int level, int len,
                    int readonly) {
  if (g->nvars == MAX_VARS)
    g->nvars--; /* the oldest scope keeps the rest; never happens */
  var *v = &g->vars[g->nvars++];
  snprintf(v->name, sizeof v->name, "%c%d", prefix, g->next_id++);
  v->type = type;
  v->level = level;
  v->len = len;
  v->readonly = readonly;
  v->depth = g->depth;
  return v;
}

static void add_named(gen *g, const char *name, int type, int level,
                      int readonly) {
  var *v = add_var(g, 'x', type, level, 0, readonly);
  snprintf(v->name, sizeof v->name, "%s", name);
  v->nofold = 1;
}

/* ---- expressions ---- */

static void expr(gen *g, sb *b, int t, int lvl, int depth);

/* A constant of type t, written so that its C type is t. */
static void constant(gen *g, sb *b, int t) {
  static const long long values[] = {
      0,   1,  2,  3,    5,   7,  8,     15,     16,    31,     100,
      255, -1, -2, -128, 127, -7, 32767, -32768, 65535, 1000003};
  const int n = (int)(sizeof values / sizeof *values);
  long long v = values[pick(g, n)];
  int edge = chance(g, 12);
  switch (t) {
  case T_INT:
    if (edge)
      sb_add(b, pick(g, 2) ? "INT_MIN" : "INT_MAX");
    else
      sb_add(b, v < 0 ? "(%lld)" : "%lld", v);
    return;
  case T_UINT:
    if (edge)
      sb_add(b, pick(g, 2) ? "UINT_MAX" : "0x80000000u");
    else
      sb_add(b, "%uu", (unsigned)v);
    return;
  case T_LONG:
    if (edge)
      sb_add(b, pick(g, 2) ? "LONG_MIN" : "LONG_MAX");
    else
      sb_add(b, v < 0 ? "(%lldL)" : "%lldL", v);
    return;
  case T_ULONG:
    if (edge)
      sb_add(b, pick(g, 2) ? "ULONG_MAX" : "0x8000000000000000UL");
    else
      sb_add(b, "%lluUL", (unsigned long long)v);
    return;
  default:
    sb_add(b, "((%s)%lld)", types[t].name, v);
  }
}

/* A variable (or array) usable at lvl; NULL if none. */
static var *pick_var(gen *g, int lvl, int arrays, int writable) {
  int cand[MAX_VARS], n = 0;
  for (int i = 0; i < g->nvars; i++) {
    var *v = &g->vars[i];
    if ((v->len != 0) != arrays)
      continue;
    if (writable ? (v->readonly || v->level < cur(g)) : v->level > lvl)
      continue;
    cand[n++] = i;
  }
  return n ? &g->vars[cand[pick(g, n)]] : NULL;
}

/* A work-item query at lvl or below (none in a pure helper). */
static int leaf_query(gen *g, sb *b, int lvl) {
  if (g->in_helper)
    return 0;
  static const char *const grid[] = {"get_num_groups(0)", "get_global_size(0)",
                                     "get_enqueued_local_size(0)"};
  static const char *const group[] = {"get_group_id(0)", "get_local_size(0)"};
  static const char *const vary[] = {"get_local_id(0)", "get_global_id(0)"};
  int l = pick(g, lvl + 1);
  const char *q = l == GRID    ? grid[pick(g, 3)]
                  : l == GROUP ? group[pick(g, 2)]
                               : vary[pick(g, 2)];
  sb_add(b, "(uint)%s", q);
  return 1;
}

static int leaf_array(gen *g, sb *b, int lvl, int depth) {
  var *a = pick_var(g, lvl, 1, 0);
  if (!a)
    return 0;
  sb_add(b, "%s[(", a->name);
  expr(g, b, T_UINT, lvl, depth - 1);
  sb_add(b, ") & %uu]", a->len - 1);
  return 1;
}

/* A load: in[] anywhere; local memory (at least GROUP level; never
 * inside a publish, where other work-items write it); the work-item's
 * own out slots (VARY). */
static int leaf_memory(gen *g, sb *b, int lvl, int depth) {
  if (g->in_helper)
    return 0;
  int k = pick(g, 3);
  if (k == 1 && g->barriers && !g->no_local && lvl >= GROUP) {
    sb_add(b, "%s[(", pick(g, 2) ? "lb0" : "lb1");
    expr(g, b, T_UINT, lvl, depth - 1);
    sb_add(b, ") %% lsz]");
  } else if (k == 2 && lvl == VARY) {
    if (pick(g, 3) == 0) /* slot 2 belongs to the mirrored work-item */
      sb_add(b, "out[((uint)get_global_size(0) - 1u - gid) * %uu + 2u]",
             KG_OUT_PER_ITEM);
    else
      sb_add(b, "out[gid * %uu + %du]", KG_OUT_PER_ITEM, pick(g, 2));
  } else if (pick(g, 3) == 0) {
    /* fin holds small multiples of 0.5: in int's range. */
    sb_add(b, "(int)fin[(");
    expr(g, b, T_UINT, lvl, depth - 1);
    sb_add(b, ") & %uu]", KG_IN_LEN - 1);
  } else {
    sb_add(b, "in[(");
    expr(g, b, T_UINT, lvl, depth - 1);
    sb_add(b, ") & %uu]", KG_IN_LEN - 1);
  }
  return 1;
}

/* A leaf: a constant, an argument, a work-item query, a variable, an
 * array element or a load, written "((t)leaf)". */
static void leaf(gen *g, sb *b, int t, int lvl, int depth) {
  sb_add(b, "((%s)", types[t].name);
  for (int tries = 0;; tries++) {
    int k = tries > 8 ? 0 : pick(g, 9);
    if (k == 0) {
      constant(g, b, t);
      break;
    }
    if (k == 1) {
      if (g->in_helper)
        sb_add(b, pick(g, 2) ? "p0" : "p1");
      else
        sb_add(b, "%s", pick(g, 3) == 0 ? "a0" : pick(g, 2) ? "a1" : "am");
      break;
    }
    if (k == 2 && leaf_query(g, b, lvl))
      break;
    if (k >= 3 && k <= 5) {
      var *v = pick_var(g, lvl, 0, 0);
      if (v) {
        sb_add(b, "%s", v->name);
        break;
      }
    }
    if (k == 6 && leaf_array(g, b, lvl, depth))
      break;
    if (k >= 7 && depth > 0 && leaf_memory(g, b, lvl, depth))
      break;
  }
  sb_add(b, ")");
}

/* A comparison (an int 0 or 1) at lvl. */
static void condition(gen *g, sb *b, int lvl, int depth) {
  static const char *const ops[] = {"<", "<=", ">", ">=", "==", "!="};
  int k = pick(g, 8);
  if (k == 0 && lvl == VARY && !g->in_helper) {
    static const char *const vary[] = {"(lid < lsz / 2u)", "(lid %% 3u == 1u)",
                                       "((gid & 1u) == 0u)", "(lid == 0u)",
                                       "(lid + 1u == lsz)"};
    sb_add(b, vary[pick(g, 5)]);
    return;
  }
  if (k == 1 && lvl >= GROUP && !g->in_helper) {
    static const char *const group[] = {
        "(grp %% 2u == 0u)", "(lsz > 4u)",
        "(grp + 1u == (uint)get_num_groups(0))",
        "(lsz != (uint)get_enqueued_local_size(0))"};
    sb_add(b, group[pick(g, 4)]);
    return;
  }
  if (k == 2 && !g->in_helper) {
    sb_add(b, "(fin[(");
    expr(g, b, T_UINT, lvl, depth);
    sb_add(b, ") & %uu] %s %d.5f)", KG_IN_LEN - 1, ops[pick(g, 6)],
           pick(g, 20) - 10);
    return;
  }
  int t = T_INT + pick(g, 4);
  sb_add(b, "(");
  expr(g, b, t, lvl, depth);
  sb_add(b, " %s ", ops[pick(g, 6)]);
  expr(g, b, t, lvl, depth);
  sb_add(b, ")");
}

/* left op right in compute type ct (int, uint, long, ulong); left NULL
 * means a generated operand. */
static void binop(gen *g, sb *b, int ct, int lvl, int depth, const char *left) {
  static const char *const names[] = {"add", "sub", "mul", "div", "mod"};
  static const char *const sym[] = {"+", "-", "*"};
  static const char *const suffix[] = {
      [T_INT] = "i", [T_UINT] = "u", [T_LONG] = "l", [T_ULONG] = "ul"};
  int op = pick(g, 10), is_signed = types[ct].is_signed;
  const char *mask = types[ct].bits == 64 ? "63" : "31";
  sb lhs = {0};
  if (left)
    sb_add(&lhs, "%s", left);
  else
    expr(g, &lhs, ct, lvl, depth - 1);
  if (op < 5 && (is_signed || op >= 3)) {
    sb_add(b, "kg_%s_%s(%s, ", names[op], suffix[ct], lhs.s);
    expr(g, b, ct, lvl, depth - 1);
    sb_add(b, ")");
  } else if (op < 3) {
    sb_add(b, "(%s %s ", lhs.s, sym[op]);
    expr(g, b, ct, lvl, depth - 1);
    sb_add(b, ")");
  } else if (op < 8) {
    sb_add(b, "(%s %s ", lhs.s, op == 5 ? "&" : op == 6 ? "|" : "^");
    expr(g, b, ct, lvl, depth - 1);
    sb_add(b, ")");
  } else if (op == 8 && is_signed) {
    /* No left shift of negative values: shift the unsigned bits. */
    sb_add(b, "(%s)((%s)%s << (", types[ct].name, types[ct + 1].name, lhs.s);
    expr(g, b, ct, lvl, depth - 1);
    sb_add(b, " & %s))", mask);
  } else {
    sb_add(b, "(%s %s (", lhs.s, op == 8 ? "<<" : ">>");
    expr(g, b, ct, lvl, depth - 1);
    sb_add(b, " & %s))", mask);
  }
  free(lhs.s);
}

static void builtin(gen *g, sb *b, int ct, int lvl, int depth) {
  static const char *const two[] = {"min",  "max",   "add_sat", "sub_sat",
                                    "hadd", "rhadd", "mul_hi",  "rotate"};
  int k = pick(g, 12);
  if (k < 8) {
    sb_add(b, "%s(", two[k]);
    expr(g, b, ct, lvl, depth - 1);
    sb_add(b, ", ");
    expr(g, b, ct, lvl, depth - 1);
    sb_add(b, ")");
  } else if (k < 10) {
    sb_add(b, "%s(", k == 8 ? "clz" : "popcount");
    expr(g, b, ct, lvl, depth - 1);
    sb_add(b, ")");
  } else if (k == 10) {
    /* abs and abs_diff return the unsigned type. */
    int diff = pick(g, 2);
    sb_add(b, "(%s)%s(", types[ct].name, diff ? "abs_diff" : "abs");
    expr(g, b, ct, lvl, depth - 1);
    if (diff) {
      sb_add(b, ", ");
      expr(g, b, ct, lvl, depth - 1);
    }
    sb_add(b, ")");
  } else {
    sb_add(b, "mad_sat(");
    expr(g, b, ct, lvl, depth - 1);
    sb_add(b, ", ");
    expr(g, b, ct, lvl, depth - 1);
    sb_add(b, ", ");
    expr(g, b, ct, lvl, depth - 1);
    sb_add(b, ")");
  }
}

/* An interior node of compute type ct. */
static void node(gen *g, sb *b, int ct, int lvl, int depth) {
  int k = pick(g, 14);
  if (k < 5) {
    binop(g, b, ct, lvl, depth, NULL);
  } else if (k == 5) {
    if (pick(g, 3) == 0) {
      sb_add(b, "(%s)(!", types[ct].name);
      expr(g, b, ct, lvl, depth - 1);
      sb_add(b, ")");
    } else if (types[ct].is_signed && pick(g, 2)) {
      sb_add(b, "kg_neg_%s(", ct == T_INT ? "i" : "l");
      expr(g, b, ct, lvl, depth - 1);
      sb_add(b, ")");
    } else {
      sb_add(b, types[ct].is_signed ? "(~" : pick(g, 2) ? "(~" : "(-");
      expr(g, b, ct, lvl, depth - 1);
      sb_add(b, ")");
    }
  } else if (k == 6) {
    sb_add(b, "(");
    condition(g, b, lvl, depth - 1);
    sb_add(b, " ? ");
    expr(g, b, ct, lvl, depth - 1);
    sb_add(b, " : ");
    expr(g, b, ct, lvl, depth - 1);
    sb_add(b, ")");
  } else if (k == 7) {
    sb_add(b, "(%s)", types[ct].name);
    condition(g, b, lvl, depth - 1);
  } else if (k <= 9) {
    builtin(g, b, ct, lvl, depth);
  } else if (k == 10) {
    sb_add(b, "convert_%s_sat(", types[ct].name);
    expr(g, b, pick(g, NTYPES), lvl, depth - 1);
    sb_add(b, ")");
  } else if (k == 11) {
    /* Integers below 2^24: exact in float whether fused or not. */
    sb_add(b, "(%s)(uint)((float)(", types[ct].name);
    expr(g, b, T_UINT, lvl, depth - 1);
    sb_add(b, " & 0xfffu) * (float)(");
    expr(g, b, T_UINT, lvl, depth - 1);
    sb_add(b, " & 0xfffu) + (float)(");
    expr(g, b, T_UINT, lvl, depth - 1);
    sb_add(b, " & 0xfffu))");
  } else if (k == 12 && g->nhelpers > 0) {
    sb_add(b, "(%s)hf_%s_%d(", types[ct].name, g->tag, pick(g, g->nhelpers));
    expr(g, b, T_UINT, lvl, depth - 1);
    sb_add(b, ", ");
    expr(g, b, T_INT, lvl, depth - 1);
    sb_add(b, ")");
  } else {
    sb_add(b, "(%s)(", types[ct].name);
    expr(g, b, pick(g, NTYPES), lvl, depth - 1);
    sb_add(b, ")");
  }
}

/* An expression whose C type is exactly t and whose level is <= lvl. */
static void expr(gen *g, sb *b, int t, int lvl, int depth) {
  if (depth <= 0 || chance(g, 30)) {
    leaf(g, b, t, lvl, depth);
    return;
  }
  int ct = types[t].compute;
  if (ct != t)
    sb_add(b, "(%s)(", types[t].name);
  node(g, b, ct, lvl, depth);
  if (ct != t)
    sb_add(b, ")");
}

/* Writes an expression into a fresh string (the caller frees it). */
static char *expr_str(gen *g, int t, int lvl, int depth) {
  sb b = {0};
  expr(g, &b, t, lvl, depth);
  return b.s;
}

static char *cond_str(gen *g, int lvl, int depth) {
  sb b = {0};
  condition(g, &b, lvl, depth);
  return b.s;
}

/* ---- blocks ---- */

static void stmt(gen *g);

static void open_block(gen *g) {
  sb_add(g->out, "{\n");
  g->indent++;
  g->depth++;
}

/* Folds the block's variables into the checksum h, so every value
 * computed is observed (and cannot be dropped as dead). */
static void fold_scope(gen *g) {
  if (g->in_helper)
    return;
  for (int i = 0; i < g->nvars; i++) {
    var *v = &g->vars[i];
    if (v->depth != g->depth || v->readonly || v->nofold)
      continue;
    if (v->len)
      line(g, "h = h * 31u + (uint)%s[%d] + (uint)%s[%d];\n", v->name, 0,
           v->name, v->len - 1);
    else if (types[v->type].bits == 64)
      line(g, "h = h * 31u + (uint)((ulong)%s ^ ((ulong)%s >> 32));\n", v->name,
           v->name);
    else
      line(g, "h = h * 31u + (uint)%s;\n", v->name);
  }
}

static void pop_scope(gen *g) {
  while (g->nvars && g->vars[g->nvars - 1].depth >= g->depth)
    g->nvars--;
}

/* Ends a block with "}" (no newline: else / while may follow). */
static void close_block(gen *g, int fold) {
  if (fold)
    fold_scope(g);
  pop_scope(g);
  g->depth--;
  g->indent--;
  line(g, "}");
}

static void statements(gen *g, int n) {
  for (int i = 0; i < n && g->budget > 0; i++)
    stmt(g);
}

/* ---- simple statements ---- */

static void decl(gen *g) {
  int t = pick(g, NTYPES), lvl = level_from(g, cur(g));
  char *e = expr_str(g, t, lvl, 3);
  var *v = add_var(g, 'v', t, lvl, 0, 0);
  line(g, "%s %s = %s;\n", types[t].name, v->name, e);
  free(e);
}

static int assign(gen *g) {
  var *v = pick_var(g, VARY, 0, 1);
  if (!v)
    return 0;
  int ct = types[v->type].compute;
  sb b = {0};
  if (pick(g, 2)) {
    expr(g, &b, v->type, v->level, 3);
  } else {
    /* A compound update: v = v op e. */
    char left[40];
    snprintf(left, sizeof left, "((%s)%s)", types[ct].name, v->name);
    if (ct != v->type)
      sb_add(&b, "(%s)(", types[v->type].name);
    binop(g, &b, ct, v->level, 3, left);
    if (ct != v->type)
      sb_add(&b, ")");
  }
  line(g, "%s = %s;\n", v->name, b.s);
  free(b.s);
  return 1;
}

static void array_decl(gen *g) {
  int t = pick(g, NTYPES), lvl = level_from(g, cur(g));
  int len = 4 << pick(g, 3);
  /* The initialiser comes first: the array is not in scope in it. */
  char *e = expr_str(g, t, lvl, 2);
  var *a = add_var(g, 'a', t, lvl, len, 0);
  int i = g->next_id++;
  line(g, "%s %s[%d];\n", types[t].name, a->name, len);
  /* Added in the unsigned type: no signed overflow. */
  line(g,
       "for (uint i%d = 0u; i%d < %du; i%d++) %s[i%d] = (%s)((%s)(%s) + "
       "i%d);\n",
       i, i, len, i, a->name, i, types[t].name,
       types[t].bits == 64 ? "ulong" : "uint", e, i);
  free(e);
}

static int array_store(gen *g) {
  var *a = pick_var(g, VARY, 1, 1);
  if (!a)
    return 0;
  char *idx = expr_str(g, T_UINT, a->level, 2);
  char *e = expr_str(g, a->type, a->level, 3);
  line(g, "%s[(%s) & %du] = %s;\n", a->name, idx, a->len - 1, e);
  free(idx);
  free(e);
  return 1;
}

static int store_own(gen *g) {
  if (g->in_helper)
    return 0;
  char *e = expr_str(g, T_UINT, VARY, 3);
  if (pick(g, 3) == 0)
    line(g, "out[((uint)get_global_size(0) - 1u - gid) * %uu + 2u] = %s;\n",
         KG_OUT_PER_ITEM, e);
  else
    line(g, "out[gid * %uu + %du] = %s;\n", KG_OUT_PER_ITEM, pick(g, 2), e);
  free(e);
  return 1;
}

/* Uniform addresses: unguarded stores of uniform values in uniform
 * control flow (slots 0-3), or guarded stores of anything (slots 4-7). */
static int store_uniform(gen *g) {
  if (g->in_helper)
    return 0;
  int c = cur(g), slot = pick(g, 4);
  const char *grp = pick(g, 2) ? "grp" : "(uint)get_group_id(0)";
  if (pick(g, 3) == 0) {
    char *e = expr_str(g, T_UINT, VARY, 3);
    if (pick(g, 2))
      line(g, "if (lid == 0u) uni[%du + %s * %du + %du] = %s;\n", KG_UNI_GLOBAL,
           grp, KG_UNI_PER_GROUP, 4 + slot, e);
    else
      line(g, "if (gid == 0u) uni[%du] = %s;\n", 4 + slot, e);
    free(e);
    return 1;
  }
  if (c == GRID && pick(g, 2)) {
    char *e = expr_str(g, T_UINT, GRID, 3);
    line(g, "uni[%du] = %s;\n", slot, e);
    free(e);
    return 1;
  }
  if (c > GROUP)
    return 0;
  char *e = expr_str(g, T_UINT, GROUP, 3);
  line(g, "uni[%du + %s * %du + %du] = %s;\n", KG_UNI_GLOBAL, grp,
       KG_UNI_PER_GROUP, slot, e);
  free(e);
  return 1;
}

/* ---- control flow ---- */

static int if_stmt(gen *g) {
  int cl = level_from(g, GRID);
  char *c = cond_str(g, cl, 2);
  line(g, "if %s ", c);
  free(c);
  int saved = g->ctx;
  g->ctx = max_level(cur(g), cl);
  open_block(g);
  statements(g, 1 + pick(g, 3));
  close_block(g, 1);
  if (pick(g, 3) == 0) {
    sb_add(g->out, " else ");
    open_block(g);
    statements(g, 1 + pick(g, 2));
    close_block(g, 1);
  }
  sb_add(g->out, "\n");
  g->ctx = saved;
  return 1;
}

/* A loop bound at level <= lvl: small (<= 8) inside other loops, up to
 * ~70 at the outermost level (work sizes, arguments). */
static char *bound_str(gen *g, int lvl, int big) {
  sb b = {0};
  int l = pick(g, lvl + 1);
  int k = pick(g, big ? 4 : 3);
  if (g->in_helper && l > GRID)
    l = GRID;
  if (k == 0) {
    sb_add(&b, "%du", pick(g, 7));
  } else if (k == 1 || (g->in_helper && k == 3)) {
    sb_add(&b, "((uint)(");
    expr(g, &b, T_UINT, l, 2);
    sb_add(&b, ") & 7u)");
  } else if (k == 2) {
    static const char *const small[3][4] = {
        {"min(a0, 6u)", "(am %% 5u)", "((uint)get_num_groups(0) %% 4u + 1u)",
         "((uint)in[a0 & 255u] & 7u)"},
        {"(grp %% 3u + 1u)", "(lsz %% 5u)", "((uint)get_local_size(0) & 7u)",
         "(lb0[grp %% lsz] & 3u)"},
        {"(lid %% 4u + 1u)", "((uint)in[gid & 255u] & 7u)", "(gid %% 3u)",
         "(lb0[lid] & 7u)"}};
    int j = pick(g, 4);
    if (g->in_helper || (j == 3 && l > GRID && !g->barriers))
      sb_add(&b, "%du", 1 + pick(g, 5));
    else
      sb_add(&b, small[l][j]);
  } else {
    static const char *const large[3][4] = {
        {"(uint)get_num_groups(0)", "min(am, 40u)",
         "((uint)get_global_size(0) / (uint)get_enqueued_local_size(0))",
         "min((uint)get_global_size(0), 70u)"},
        {"lsz", "((uint)get_local_size(0) / 2u + 1u)", "(grp * 3u + 2u)",
         "min(lsz * 2u, 70u)"},
        {"(lid + 1u)", "min(gid, 20u)", "((uint)in[lid & 255u] & 31u)",
         "(lsz - lid)"}};
    sb_add(&b, large[l][pick(g, 4)]);
  }
  return b.s;
}

/* Generates a loop body at level body_level; prologue (or NULL) starts
 * it. Returns with the block closed but no newline written. */
static void loop_body(gen *g, int body_level, const char *prologue,
                      var **induction, int ninduction) {
  int saved_ctx = g->ctx, saved_body = g->loop_body;
  open_block(g);
  for (int i = 0; i < ninduction; i++)
    induction[i]->depth = g->depth;
  if (prologue)
    line(g, "%s\n", prologue);
  g->ctx = body_level;
  g->loop_body = body_level;
  g->loops++;
  statements(g, 1 + pick(g, 4));
  g->loops--;
  close_block(g, 1);
  g->ctx = saved_ctx;
  g->loop_body = saved_body;
}

/* The level of a loop's break/continue conditions: none (-1), or one at
 * least as varying as the bounds. */
static int exit_level(gen *g, int lb) {
  return pick(g, 2) ? -1 : level_from(g, lb);
}

static void counted_loop(gen *g, int big) {
  int lb = level_from(g, GRID);
  char *bound = bound_str(g, lb, big);
  int down = pick(g, 5) == 0, step = pick(g, 4) == 0 ? 2 + pick(g, 2) : 1;
  int body = max_level(max_level(cur(g), lb), exit_level(g, lb));
  var *i = add_var(g, 'i', T_UINT, lb, 0, 1);
  if (down)
    line(g, "for (uint %s = %s; %s > 0u; %s--) ", i->name, bound, i->name,
         i->name);
  else
    line(g, "for (uint %s = %s; %s < %s; %s += %du) ", i->name,
         lb == VARY && !g->in_helper && pick(g, 2) ? "(lid & 3u)" : "0u",
         i->name, bound, i->name, step);
  free(bound);
  loop_body(g, body, NULL, &i, 1);
  sb_add(g->out, "\n");
}

static void while_loop(gen *g, int do_while) {
  int lb = level_from(g, GRID);
  char *bound = bound_str(g, lb, 0);
  int body = max_level(max_level(cur(g), lb), exit_level(g, lb));
  /* The counter counts at the top, so continue cannot skip it; it
   * outlives the loop, where breaks may have made it as varying as the
   * body. */
  var *w = add_var(g, 'w', T_UINT, body, 0, 1);
  line(g, "uint %s = 0u;\n", w->name);
  char inc[32];
  snprintf(inc, sizeof inc, "%s++;", w->name);
  if (do_while) {
    line(g, "do ");
    loop_body(g, body, inc, NULL, 0);
    sb_add(g->out, " while (%s < %s);\n", w->name, bound);
  } else {
    line(g, "while (%s < %s) ", w->name, bound);
    loop_body(g, body, inc, NULL, 0);
    sb_add(g->out, "\n");
  }
  free(bound);
}

/* Rows per group (issue 13's shape): a GROUP-level range from
 * get_num_groups and get_group_id. */
static void rows_loop(gen *g) {
  int id = g->next_id++;
  line(g, "uint wpg%d = (am - 1u) / (uint)get_num_groups(0) + 1u;\n", id);
  line(g, "uint rend%d = min((uint)((get_group_id(0) + 1) * wpg%d), am);\n", id,
       id);
  var *r = add_var(g, 'r', T_UINT, GROUP, 0, 1);
  int body = max_level(max_level(cur(g), GROUP), exit_level(g, GROUP));
  line(g, "for (uint %s = grp * wpg%d; %s < rend%d; ++%s) ", r->name, id,
       r->name, id, r->name);
  loop_body(g, body, NULL, &r, 1);
  sb_add(g->out, "\n");
}

/* Blocks of the local size (the Givens shape): an inner loop to
 * min(am - b * lsz, lsz). */
static void block_loop(gen *g) {
  var *b = add_var(g, 'b', T_UINT, GROUP, 0, 1);
  int body = max_level(max_level(cur(g), GROUP), exit_level(g, GROUP));
  line(g, "for (uint %s = 0u; %s < (am + lsz - 1u) / lsz; %s++) ", b->name,
       b->name, b->name);
  int saved_ctx = g->ctx, saved_body = g->loop_body;
  open_block(g);
  b->depth = g->depth;
  g->ctx = body;
  g->loop_body = body;
  g->loops++;
  var *cnt = add_var(g, 'c', T_UINT, GROUP, 0, 1);
  line(g, "uint %s = min(am - %s * lsz, lsz);\n", cnt->name, b->name);
  statements(g, pick(g, 2));
  var *j = add_var(g, 'j', T_UINT, GROUP, 0, 1);
  int inner = max_level(body, exit_level(g, GROUP));
  line(g, "for (uint %s = 0u; %s < %s; %s++) ", j->name, j->name, cnt->name,
       j->name);
  loop_body(g, inner, NULL, &j, 1);
  sb_add(g->out, "\n");
  statements(g, pick(g, 3));
  g->loops--;
  close_block(g, 1);
  sb_add(g->out, "\n");
  g->ctx = saved_ctx;
  g->loop_body = saved_body;
}

static void grid_stride_loop(gen *g) {
  var *i = add_var(g, 'i', T_UINT, VARY, 0, 1);
  line(g,
       "for (uint %s = gid; %s < min(am * 5u, 200u); %s += "
       "(uint)get_global_size(0)) ",
       i->name, i->name, i->name);
  loop_body(g, VARY, NULL, &i, 1);
  sb_add(g->out, "\n");
}

static int loop_stmt(gen *g) {
  if (g->loops >= 3 || g->budget < 2)
    return 0;
  int big = g->loops == 0 && !g->in_helper;
  switch (pick(g, big ? 7 : 4)) {
  case 0:
  case 1:
    counted_loop(g, big);
    break;
  case 2:
    while_loop(g, 0);
    break;
  case 3:
    while_loop(g, 1);
    break;
  case 4:
    rows_loop(g);
    break;
  case 5:
    block_loop(g);
    break;
  default:
    grid_stride_loop(g);
  }
  return 1;
}

/* if (c) { ...; break; } in the innermost loop, where c is no more
 * varying than the loop body (so that the body's level stays honest). */
static int break_stmt(gen *g) {
  if (!g->loops || cur(g) != g->loop_body)
    return 0;
  char *c = cond_str(g, g->loop_body, 2);
  line(g, "if %s ", c);
  free(c);
  open_block(g);
  if (pick(g, 2))
    statements(g, 1);
  fold_scope(g);
  line(g, "%s;\n", pick(g, 2) ? "break" : "continue");
  close_block(g, 0);
  sb_add(g->out, "\n");
  return 1;
}

/* A serial reduction over the input (the task kernels' shape): count,
 * sum with another type, find with break; at GRID level when control
 * flow is, then stored to a uniform address. */
static int serial_reduce(gen *g) {
  if (g->in_helper || g->loops >= 2)
    return 0;
  int lb = g->task ? GRID : level_from(g, GRID);
  int lvl = max_level(cur(g), lb);
  char *bound = bound_str(g, lb, g->loops == 0);
  int off = pick(g, 64), kind = pick(g, 8), id = g->next_id++;
  var *acc =
      add_var(g, 'v', kind == 1 || kind == 5 ? T_INT : T_UINT, lvl, 0, 0);
  acc->readonly = 1; /* nothing else may touch it while the loop runs */
  line(g, "%s %s = %du;\n", types[acc->type].name, acc->name, pick(g, 4));
  if (kind == 7)
    line(g, "float f%d = 0.0f;\n", id);
  line(g, "for (uint s%d = 0u; s%d < %s; s%d++) {\n", id, id, bound, id);
  g->indent++;
  char elem[64], felem[64];
  snprintf(elem, sizeof elem, "in[(s%d + %du) & %du]", id, off, KG_IN_LEN - 1);
  snprintf(felem, sizeof felem, "fin[(s%d + %du) & %du]", id, off,
           KG_IN_LEN - 1);
  int k = pick(g, 20) - 5;
  /* The float forms are exact: fin holds multiples of 0.5 below 100 in
   * magnitude and trip counts stay below 100. */
  switch (kind) {
  case 0:
    line(g, "if (%s > %d) %s++;\n", elem, k, acc->name);
    break;
  case 1:
    line(g, "%s = (int)((float)%s + (float)(%s %% 1000) * 0.5f);\n", acc->name,
         acc->name, elem);
    break;
  case 2:
    line(g, "%s += (uint)(short)%s;\n", acc->name, elem);
    break;
  case 3:
    line(g, "if (%s == %d) { %s = s%d + 1u; break; }\n", elem, k + 5, acc->name,
         id);
    break;
  case 4:
    line(g, "if (%s > %d.5f) %s++;\n", felem, k, acc->name);
    break;
  case 5:
    line(g, "%s = %s + %s;\n", acc->name, acc->name, felem);
    break;
  case 6:
    line(g, "if (%s < %d.0f) { %s = 1u; break; }\n", felem, k * 4, acc->name);
    break;
  default:
    line(g, "f%d += %s * 0.5f;\n", id, felem);
  }
  g->indent--;
  line(g, "}\n");
  free(bound);
  if (kind == 7)
    line(g, "%s = as_uint(f%d);\n", acc->name, id);
  acc->readonly = 0;
  if (lvl == GRID && pick(g, 2))
    line(g, "uni[%du] = (uint)%s;\n", pick(g, 4), acc->name);
  else if (lvl <= GROUP)
    line(g, "uni[%du + grp * %du + %du] = (uint)%s;\n", KG_UNI_GLOBAL,
         KG_UNI_PER_GROUP, pick(g, 4), acc->name);
  return 1;
}

/* ---- barriers and collectives ---- */

static const char *fence(gen *g) {
  return pick(g, 4) == 0 ? "work_group_barrier(CLK_LOCAL_MEM_FENCE)"
                         : "barrier(CLK_LOCAL_MEM_FENCE)";
}

/* Publish, then read: an exchange through local memory, a tree
 * reduction or a Hillis-Steele scan, a call that publishes, or a bare
 * barrier. */
static int barrier_stmt(gen *g) {
  if (!g->barriers || g->in_helper || cur(g) > GROUP)
    return 0;
  int k = pick(g, 6);
  if (k == 5) {
    line(g, "%s;\n",
         pick(g, 2) ? "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)"
                    : fence(g));
    return 1;
  }
  g->no_local = 1;
  char *e = expr_str(g, T_UINT, VARY, 3);
  g->no_local = 0;
  if (k == 4 && g->local_helper) {
    char *c = expr_str(g, T_UINT, VARY, 1);
    var *v = add_var(g, 'v', T_UINT, VARY, 0, 0);
    line(g, "uint %s = lx_%s(lb0, %s, %s);\n", v->name, g->tag, e, c);
    free(c);
    free(e);
    return 1;
  }
  const char *lb = k == 0 ? "lb1" : "lb0";
  line(g, "%s;\n", fence(g));
  line(g, "%s[lid] = (%s)(%s);\n", lb, k == 0 ? "int" : "uint", e);
  line(g, "%s;\n", fence(g));
  free(e);
  if (k <= 1) {
    var *v = add_var(g, 'v', k == 0 ? T_INT : T_UINT, VARY, 0, 0);
    line(g, "%s %s = %s[(lid + %du) %% lsz];\n", types[v->type].name, v->name,
         lb, pick(g, 5));
    return 1;
  }
  int s = g->next_id++;
  line(g, "for (uint s%d = 1u; s%d < lsz; s%d <<= 1) {\n", s, s, s);
  if (k == 2)
    line(g,
         "  uint t%d = (lid %% (2u * s%d) == 0u && lid + s%d < lsz) ? "
         "lb0[lid + s%d] : 0u;\n",
         s, s, s, s);
  else
    line(g, "  uint t%d = lid >= s%d ? lb0[lid - s%d] : 0u;\n", s, s, s);
  line(g, "  %s;\n", fence(g));
  line(g, "  lb0[lid] += t%d;\n", s);
  line(g, "  %s;\n", fence(g));
  line(g, "}\n");
  var *v = add_var(g, 'v', T_UINT, k == 2 ? GROUP : VARY, 0, 0);
  line(g, "uint %s = lb0[%s];\n", v->name, k == 2 ? "0" : "lid");
  return 1;
}

static int collective(gen *g) {
  if (!g->collectives || g->in_helper || cur(g) > GROUP)
    return 0;
  static const struct {
    const char *call;
    int type, level;
  } forms[] = {
      {"work_group_reduce_add", T_UINT, GROUP},
      {"work_group_reduce_min", T_INT, GROUP},
      {"work_group_reduce_max", T_LONG, GROUP},
      {"work_group_scan_inclusive_add", T_UINT, VARY},
      {"work_group_scan_exclusive_add", T_ULONG, VARY},
      {"work_group_scan_inclusive_max", T_INT, VARY},
      {"work_group_scan_exclusive_min", T_UINT, VARY},
      {"work_group_reduce_add", T_ULONG, GROUP},
  };
  int k = pick(g, 11);
  char *e = expr_str(g, T_UINT, VARY, 3);
  if (k >= 8) {
    /* The index is drawn before the result is declared: an index that
     * read the variable its own initialiser declares would read it
     * uninitialised (undefined, and so a false mismatch between modes). */
    char *idx = k == 8 ? expr_str(g, T_UINT, GROUP, 2) : NULL;
    var *v = add_var(g, 'v', T_INT, GROUP, 0, 0);
    if (k == 8) {
      line(g,
           "int %s = work_group_broadcast((int)(%s), (size_t)((%s) %% "
           "lsz));\n",
           v->name, e, idx);
      free(idx);
    } else {
      line(g, "int %s = %s((%s & 3u) != 0u);\n", v->name,
           k == 9 ? "work_group_any" : "work_group_all", e);
    }
    free(e);
    return 1;
  }
  var *v = add_var(g, 'v', forms[k].type, forms[k].level, 0, 0);
  line(g, "%s %s = %s((%s)(%s));\n", types[v->type].name, v->name,
       forms[k].call, types[v->type].name, e);
  free(e);
  return 1;
}

/* if (c) return; at the outermost loop level only (inside a loop it
 * would make earlier statements of later trips vary). */
static int return_stmt(gen *g) {
  if (g->in_helper || g->loops || !chance(g, 25))
    return 0;
  int cl = level_from(g, GRID);
  char *c = cond_str(g, cl, 1);
  line(g, "if %s return;\n", c);
  free(c);
  /* Those that return are picked by the condition and by the branches
   * around it. */
  g->floor = max_level(g->floor, max_level(cur(g), cl));
  return 1;
}

static void stmt(gen *g) {
  g->budget--;
  for (;;) {
    int k = pick(g, 22);
    if (k <= 2) {
      decl(g);
      return;
    }
    if ((k == 3 || k == 4) && assign(g))
      return;
    if (k == 5 && chance(g, 50)) {
      array_decl(g);
      return;
    }
    if (k == 6 && array_store(g))
      return;
    if ((k == 7 || k == 8) && g->depth < 6 && if_stmt(g))
      return;
    if ((k == 9 || k == 10) && g->depth < 6 && loop_stmt(g))
      return;
    if (k == 11 && break_stmt(g))
      return;
    if (k == 12 && store_own(g))
      return;
    if ((k == 13 || (k == 20 && g->task)) && store_uniform(g))
      return;
    if ((k == 14 || k == 15 || k == 16) && barrier_stmt(g))
      return;
    if ((k == 17 || k == 18) && collective(g))
      return;
    if (k == 19 && return_stmt(g))
      return;
    if ((k == 21 || (k == 20 && g->task)) && serial_reduce(g))
      return;
  }
}

/* ---- helpers and kernels ---- */

static const char preamble[] =
    "int kg_add_i(int a, int b) { return (b > 0 && a > INT_MAX - b) || "
    "(b < 0 && a < INT_MIN - b) ? a : a + b; }\n"
    "int kg_sub_i(int a, int b) { return (b < 0 && a > INT_MAX + b) || "
    "(b > 0 && a < INT_MIN + b) ? a : a - b; }\n"
    "int kg_mul_i(int a, int b) { long r = (long)a * (long)b; "
    "return r > INT_MAX || r < INT_MIN ? a : (int)r; }\n"
    "int kg_div_i(int a, int b) { return b == 0 || (a == INT_MIN && b == -1) "
    "? a : a / b; }\n"
    "int kg_mod_i(int a, int b) { return b == 0 || (a == INT_MIN && b == -1) "
    "? a : a % b; }\n"
    "int kg_neg_i(int a) { return a == INT_MIN ? a : -a; }\n"
    "long kg_add_l(long a, long b) { return (b > 0 && a > LONG_MAX - b) || "
    "(b < 0 && a < LONG_MIN - b) ? a : a + b; }\n"
    "long kg_sub_l(long a, long b) { return (b < 0 && a > LONG_MAX + b) || "
    "(b > 0 && a < LONG_MIN + b) ? a : a - b; }\n"
    "long kg_mul_l(long a, long b) { return a > -2147483648L && "
    "a < 2147483648L && b > -2147483648L && b < 2147483648L ? a * b : a ^ b; "
    "}\n"
    "long kg_div_l(long a, long b) { return b == 0 || (a == LONG_MIN && "
    "b == -1) ? a : a / b; }\n"
    "long kg_mod_l(long a, long b) { return b == 0 || (a == LONG_MIN && "
    "b == -1) ? a : a % b; }\n"
    "long kg_neg_l(long a) { return a == LONG_MIN ? a : -a; }\n"
    "uint kg_div_u(uint a, uint b) { return b ? a / b : a; }\n"
    "uint kg_mod_u(uint a, uint b) { return b ? a % b : a; }\n"
    "ulong kg_div_ul(ulong a, ulong b) { return b ? a / b : a; }\n"
    "ulong kg_mod_ul(ulong a, ulong b) { return b ? a % b : a; }\n";

const char *kg_preamble(void) { return preamble; }

/* A pure helper uint hf_TAG_n(uint p0, int p1): loops, branches, private
 * arrays; no memory and no work-item functions, so its result is as
 * uniform as its arguments. */
static void pure_helper(gen *kernel, sb *out, int n) {
  gen *h = calloc(1, sizeof *h);
  h->r = kernel->r;
  h->out = out;
  h->in_helper = 1;
  h->nhelpers = n;
  h->budget = 2 + pick(h, 4);
  snprintf(h->tag, sizeof h->tag, "%s", kernel->tag);
  sb_add(out, "uint hf_%s_%d(uint p0, int p1) {\n", h->tag, n);
  h->indent = 1;
  h->depth = 1;
  add_named(h, "p0", T_UINT, GRID, 0);
  add_named(h, "p1", T_INT, GRID, 0);
  while (h->budget > 0)
    stmt(h);
  char *e = expr_str(h, T_UINT, GRID, 3);
  line(h, "return %s;\n}\n", e);
  free(e);
  kernel->r = h->r;
  free(h);
}

/* A helper with barriers: publishes v and returns a neighbour's value. */
static void local_helper(gen *g, sb *out) {
  sb_add(out,
         "uint lx_%s(local uint *b, uint v, uint c) {\n"
         "  uint l = get_local_id(0), n = get_local_size(0);\n"
         "  barrier(CLK_LOCAL_MEM_FENCE);\n"
         "  b[l] = v;\n"
         "  barrier(CLK_LOCAL_MEM_FENCE);\n"
         "  return b[(l + c) %% n];\n"
         "}\n",
         g->tag);
}

static void kernel_body(gen *g) {
  line(g, "const uint gid = get_global_id(0), lid = get_local_id(0);\n");
  line(g, "const uint lsz = get_local_size(0), grp = get_group_id(0);\n");
  line(g, "uint h = %du;\n", pick(g, 100));
  add_named(g, "gid", T_UINT, VARY, 1);
  add_named(g, "lid", T_UINT, VARY, 1);
  add_named(g, "lsz", T_UINT, GROUP, 1);
  add_named(g, "grp", T_UINT, GROUP, 1);
  add_named(g, "h", T_UINT, VARY, 0);
  if (g->barriers) {
    g->no_local = 1; /* nothing is published yet */
    char *e0 = expr_str(g, T_UINT, VARY, 2), *e1 = expr_str(g, T_INT, VARY, 2);
    g->no_local = 0;
    line(g, "local uint lb0[%d];\n", KG_MAX_LOCAL);
    line(g, "local int lb1[%d];\n", KG_MAX_LOCAL);
    line(g, "lb0[lid] = %s;\n", e0);
    line(g, "lb1[lid] = %s;\n", e1);
    line(g, "barrier(CLK_LOCAL_MEM_FENCE);\n");
    free(e0);
    free(e1);
  }
  if (g->task)
    serial_reduce(g);
  while (g->budget > 0)
    stmt(g);
  /* A small task kernel often stores nothing but its uniform results
   * (issue 13's count_gt: a uniform store alone went wrong). */
  if (g->small && pick(g, 2))
    return;
  fold_scope(g);
  line(g, "out[gid * %du + %du] = h;\n", KG_OUT_PER_ITEM, KG_OUT_PER_ITEM - 1);
}

void kg_generate(unsigned long long seed, kg_kernel *k) {
  gen *g = calloc(1, sizeof *g);
  seed_rng(&g->r, seed);
  snprintf(g->tag, sizeof g->tag, "%llx", seed);
  snprintf(k->name, sizeof k->name, "gk_%s", g->tag);
  k->seed = seed;
  g->small = chance(g, 25);
  g->barriers = chance(g, g->small ? 20 : 55);
  g->collectives = g->barriers && chance(g, 50);
  g->task = g->small || chance(g, 35);
  sb src = {0};
  int nhelpers = g->small ? 0 : pick(g, 3);
  for (int i = 0; i < nhelpers; i++)
    pure_helper(g, &src, i);
  g->nhelpers = nhelpers;
  g->local_helper = g->barriers && chance(g, 40);
  if (g->local_helper)
    local_helper(g, &src);
  sb_add(
      &src,
      "kernel void %s(global const int *in, global const float *fin,\n"
      "    global uint *out, global uint *uni, uint a0, int a1, uint am) {\n",
      k->name);
  g->out = &src;
  g->indent = 1;
  g->depth = 1;
  g->budget = g->small ? 1 + pick(g, 3) : 6 + pick(g, 12);
  kernel_body(g);
  sb_add(&src, "}\n");
  k->source = src.s;
  free(g);
}

void kg_kernel_free(kg_kernel *k) {
  free(k->source);
  k->source = NULL;
}

/* ---- launches ---- */

void kg_launch_make(unsigned long long seed, int variant, kg_launch *l) {
  static const size_t locals[] = {1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 32, 33, 64};
  gen g;
  seed_rng(&g.r, seed * 31 + 7 + (unsigned long long)variant * 0x51ed27);
  l->local = locals[pick(&g, sizeof locals / sizeof *locals)];
  size_t groups = 1 + (size_t)pick(&g, 4);
  size_t rest =
      l->local > 1 && pick(&g, 2) ? 1 + (size_t)pick(&g, (int)l->local - 1) : 0;
  l->global = groups * l->local + rest;
  l->a0 = pick(&g, 8) == 0 ? 0xfffffff0u + (uint32_t)pick(&g, 16)
                           : (uint32_t)pick(&g, 13);
  l->a1 = pick(&g, 8) == 0 ? (pick(&g, 2) ? INT32_MIN : INT32_MAX)
                           : pick(&g, 41) - 20;
  l->am = 1 + (uint32_t)pick(&g, 40);
  for (int i = 0; i < KG_IN_LEN; i++)
    l->fin[i] = (float)(pick(&g, 401) - 200) * 0.5f;
  for (int i = 0; i < KG_IN_LEN; i++) {
    int k = pick(&g, 10);
    l->in[i] = k < 4   ? pick(&g, 16)
               : k < 7 ? pick(&g, 201) - 100
               : k < 9 ? (int32_t)(uint32_t)next(&g.r)
                       : (pick(&g, 2) ? INT32_MIN : INT32_MAX);
  }
}

size_t kg_uni_words(const kg_launch *l) {
  size_t groups = (l->global + l->local - 1) / l->local;
  return KG_UNI_GLOBAL + groups * KG_UNI_PER_GROUP;
}
