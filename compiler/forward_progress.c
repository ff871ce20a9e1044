/* This file contains the pass that gives the sub-groups of a work-group
 * independent forward progress (cl_khr_subgroups, CL_DEVICE_SUB_GROUP_
 * INDEPENDENT_FORWARD_PROGRESS). A work-group's work-items run on one
 * thread and switch only where one of them parks, so a work-item that
 * spins until another sub-group stores a value would spin for ever. Every
 * loop that waits gets a call of __skein_yield() on each of its back
 * edges; the work-group lowering routes it to the scheduler's yield hook
 * (builtins/sync.c, scheduler/fiber_group.c), which lets the other
 * sub-groups run until they park and then comes back. A kernel with such
 * a loop runs in fiber mode (callgraph.c counts the call as barrier-like),
 * never in loop or region mode, where work-items run one after another.
 *
 * A loop waits if its exit depends on a value it reads, inside the loop,
 * from memory that another work-item may change while it loops: an
 * atomic or volatile load, an exchange or test-and-set, an atomic read
 * written as a read-modify-write (fetch_add of 0, fetch_or, min, max), or
 * a compare-exchange against an expected value the loop does not refresh
 * (a lock). Loops that only retry keep their mode: a compare-exchange
 * whose expected value the loop reads afresh (or that the failed exchange
 * itself refreshes), a counter advanced by the loop's own fetch_add. Where
 * it cannot tell, the test says "waits": a call of the program's own
 * function that reads atomically counts as a waiting read. The cost of a
 * wrong "waits" is fiber mode; of a wrong "retries", a hang.
 *
 * It runs on Clang's unoptimised IR (private variables still in allocas),
 * so a value that travels through a private variable is followed to the
 * stores into that variable inside the loop. */
#include "compiler_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define YIELD_FN "__skein_yield"
#define YIELD_CTX_FN "__skein_ctx___skein_yield"

/* ---- a set of pointers (blocks, values), open addressing ---- */

typedef struct ptr_set {
  const void **slot;
  size_t cap, count;
} ptr_set;

static size_t ptr_hash(const void *p, size_t cap) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 17;
  x *= 0x9E3779B97F4A7C15ull;
  return (size_t)(x >> 20) & (cap - 1);
}

static bool set_has(const ptr_set *s, const void *p) {
  if (!s->cap)
    return false;
  for (size_t i = ptr_hash(p, s->cap);; i = (i + 1) & (s->cap - 1)) {
    if (!s->slot[i])
      return false;
    if (s->slot[i] == p)
      return true;
  }
}

/* Adds p; false if it was there already or memory ran out. */
static bool set_add(ptr_set *s, const void *p) {
  if (2 * (s->count + 1) > s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 64;
    const void **slot = calloc(cap, sizeof *slot);
    if (!slot)
      return false;
    for (size_t i = 0; i < s->cap; i++) {
      if (!s->slot[i])
        continue;
      size_t j = ptr_hash(s->slot[i], cap);
      while (slot[j])
        j = (j + 1) & (cap - 1);
      slot[j] = s->slot[i];
    }
    free(s->slot);
    s->slot = slot;
    s->cap = cap;
  }
  size_t i = ptr_hash(p, s->cap);
  for (; s->slot[i]; i = (i + 1) & (s->cap - 1))
    if (s->slot[i] == p)
      return false;
  s->slot[i] = p;
  s->count++;
  return true;
}

static void set_clear(ptr_set *s) {
  free(s->slot);
  *s = (ptr_set){0};
}

/* ---- what a call or instruction reads ---- */

/* The source name of an Itanium-mangled function (_Z<len><name>...), or
 * the whole name if it is not mangled; *len gets its length. */
static const char *base_name(const char *mangled, size_t *len) {
  if (strncmp(mangled, "_Z", 2) != 0) {
    *len = strlen(mangled);
    return mangled;
  }
  char *end;
  unsigned long n = strtoul(mangled + 2, &end, 10);
  *len = n;
  return end;
}

static bool name_is(const char *name, size_t len, const char *const *list,
                    size_t count) {
  for (size_t k = 0; k < count; k++)
    if (strlen(list[k]) == len && strncmp(name, list[k], len) == 0)
      return true;
  return false;
}

enum read_kind {
  READ_NONE,      /* not an atomic read */
  READ_WAITS,     /* reads what another work-item writes: waits on it */
  READ_ADD,       /* fetch_add/sub/inc/dec: waits only when adding 0 */
  READ_CAS_VALUE, /* legacy cmpxchg(p, expected, new) */
  READ_CAS_PTR,   /* C11 compare_exchange(p, &expected, new, ...) */
};

/* What a builtin of this (base) name reads. */
static enum read_kind call_kind(const char *name, size_t len) {
  static const char *const waits[] = {
      "atomic_load", "atomic_load_explicit", "atomic_exchange",
      "atomic_exchange_explicit", "atomic_xchg", "atom_xchg",
      "atomic_flag_test_and_set", "atomic_flag_test_and_set_explicit",
      "atomic_fetch_or", "atomic_fetch_or_explicit", "atomic_fetch_and",
      "atomic_fetch_and_explicit", "atomic_or", "atomic_and", "atom_or",
      "atom_and", "atomic_fetch_min", "atomic_fetch_min_explicit",
      "atomic_fetch_max", "atomic_fetch_max_explicit", "atomic_min",
      "atomic_max", "atom_min", "atom_max"};
  static const char *const adds[] = {
      "atomic_fetch_add", "atomic_fetch_add_explicit", "atomic_fetch_sub",
      "atomic_fetch_sub_explicit", "atomic_add", "atomic_sub", "atom_add",
      "atom_sub"};
  static const char *const cas_value[] = {"atomic_cmpxchg", "atom_cmpxchg"};
  static const char *const cas_ptr[] = {
      "atomic_compare_exchange_strong", "atomic_compare_exchange_weak",
      "atomic_compare_exchange_strong_explicit",
      "atomic_compare_exchange_weak_explicit"};
#define IN(list) name_is(name, len, list, sizeof list / sizeof *list)
  if (IN(waits))
    return READ_WAITS;
  if (IN(adds))
    return READ_ADD;
  if (IN(cas_value))
    return READ_CAS_VALUE;
  if (IN(cas_ptr))
    return READ_CAS_PTR;
#undef IN
  return READ_NONE;
}

/* The object a pointer points into: through GEPs and casts, instructions
 * or constant expressions. */
static LLVMValueRef underlying(LLVMValueRef p) {
  for (unsigned depth = 0; depth < 32; depth++) {
    if (LLVMIsAGetElementPtrInst(p) || LLVMIsACastInst(p)) {
      p = LLVMGetOperand(p, 0);
    } else if (LLVMIsAConstantExpr(p)) {
      LLVMOpcode op = LLVMGetConstOpcode(p);
      if (op != LLVMGetElementPtr && op != LLVMBitCast &&
          op != LLVMAddrSpaceCast)
        return p;
      p = LLVMGetOperand(p, 0);
    } else {
      return p;
    }
  }
  return p;
}

/* ---- one function's loops ---- */

typedef struct loop_ctx {
  ptr_set body;          /* the loop's blocks */
  ptr_set seen;          /* values the dependence walk has visited */
  ptr_set *reading_fns;  /* program functions that read atomically */
} loop_ctx;

static bool in_loop(const loop_ctx *l, LLVMValueRef v) {
  return LLVMIsAInstruction(v) &&
         set_has(&l->body, LLVMGetInstructionParent(v));
}

/* llvm.lifetime.start/end: they mark a variable's scope, write nothing. */
static bool is_lifetime_marker(LLVMValueRef call) {
  LLVMValueRef callee = cc_direct_callee(call);
  size_t len;
  return callee &&
         strncmp(LLVMGetValueName2(callee, &len), "llvm.lifetime.", 14) == 0;
}

/* Calls f(l, inst, arg) for every instruction of the loop that writes
 * object obj: a store into it, or a call that is passed a pointer into
 * it. Returns true as soon as f does. */
typedef bool (*writer_fn)(loop_ctx *l, LLVMValueRef inst, LLVMValueRef obj);

static bool any_writer(loop_ctx *l, LLVMValueRef obj, writer_fn f) {
  for (size_t s = 0; s < l->body.cap; s++) {
    LLVMBasicBlockRef bb = (LLVMBasicBlockRef)l->body.slot[s];
    if (!bb)
      continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      bool writes = false;
      if (LLVMIsAStoreInst(i)) {
        writes = underlying(LLVMGetOperand(i, 1)) == obj;
      } else if (LLVMIsACallInst(i) && !is_lifetime_marker(i)) {
        unsigned n = LLVMGetNumArgOperands(i);
        for (unsigned a = 0; a < n && !writes; a++) {
          LLVMValueRef arg = LLVMGetOperand(i, a);
          writes = LLVMGetTypeKind(LLVMTypeOf(arg)) == LLVMPointerTypeKind &&
                   underlying(arg) == obj;
        }
      }
      if (writes && f(l, i, obj))
        return true;
    }
  }
  return false;
}

static bool writes_anything(loop_ctx *l, LLVMValueRef inst, LLVMValueRef obj) {
  (void)l;
  (void)inst;
  (void)obj;
  return true;
}

/* True if v has the same value on every trip round the loop: defined
 * outside it, or read from a private variable the loop never writes. */
static bool invariant(loop_ctx *l, LLVMValueRef v) {
  if (!in_loop(l, v))
    return true;
  if (LLVMIsALoadInst(v) && !LLVMGetVolatile(v) &&
      LLVMGetOrdering(v) == LLVMAtomicOrderingNotAtomic) {
    LLVMValueRef obj = underlying(LLVMGetOperand(v, 0));
    return LLVMIsAAllocaInst(obj) && !any_writer(l, obj, writes_anything);
  }
  return false;
}

/* A store of a loop-invariant value (a lock's expected value reset each
 * time round). */
static bool stores_invariant(loop_ctx *l, LLVMValueRef inst,
                             LLVMValueRef obj) {
  (void)obj;
  return LLVMIsAStoreInst(inst) && invariant(l, LLVMGetOperand(inst, 0));
}

static bool fn_reads_atomically(LLVMValueRef fn, ptr_set *reading,
                                unsigned depth);

static bool depends_on_wait(loop_ctx *l, LLVMValueRef v);

/* True if the program function fn (or one it calls) reads memory
 * atomically or through volatile: conservatively, a waiting read. */
static bool fn_reads_atomically(LLVMValueRef fn, ptr_set *reading,
                                unsigned depth) {
  if (set_has(reading, fn))
    return true;
  if (depth > 8 || LLVMIsDeclaration(fn))
    return false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      bool reads = false;
      if (LLVMIsALoadInst(i))
        reads = LLVMGetVolatile(i) ||
                LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic;
      else if (LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i))
        reads = true;
      else if (cc_direct_callee(i)) {
        LLVMValueRef callee = cc_direct_callee(i);
        size_t len;
        const char *name = base_name(LLVMGetValueName2(callee, &len), &len);
        reads = call_kind(name, len) != READ_NONE ||
                (callee != fn && fn_reads_atomically(callee, reading,
                                                     depth + 1));
      }
      if (reads) {
        set_add(reading, fn);
        return true;
      }
    }
  return false;
}

static bool is_zero(LLVMValueRef v) {
  return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == 0;
}

/* Whether a call of the loop waits, by what its callee reads. */
static bool call_waits(loop_ctx *l, LLVMValueRef call, LLVMValueRef callee) {
  size_t len;
  const char *name = base_name(LLVMGetValueName2(callee, &len), &len);
  switch (call_kind(name, len)) {
  case READ_WAITS:
    return true;
  case READ_ADD:
    return LLVMGetNumArgOperands(call) >= 2 &&
           is_zero(LLVMGetOperand(call, 1));
  case READ_CAS_VALUE:
    return LLVMGetNumArgOperands(call) >= 2 &&
           invariant(l, LLVMGetOperand(call, 1));
  case READ_CAS_PTR: {
    if (LLVMGetNumArgOperands(call) < 2)
      return true;
    /* A failed exchange writes the current value to *expected: the next
     * try compares with that, a retry. Unless the loop puts an invariant
     * value back there (a lock waiting for 0), or expected is not a
     * private variable whose writes can be seen. */
    LLVMValueRef obj = underlying(LLVMGetOperand(call, 1));
    return !LLVMIsAAllocaInst(obj) || any_writer(l, obj, stores_invariant);
  }
  case READ_NONE:
    break;
  }
  if (!LLVMIsDeclaration(callee))
    return fn_reads_atomically(callee, l->reading_fns, 0);
  /* Another builtin: whatever its arguments depend on. */
  unsigned n = LLVMGetNumArgOperands(call);
  for (unsigned a = 0; a < n; a++)
    if (depends_on_wait(l, LLVMGetOperand(call, a)))
      return true;
  return false;
}

/* Follows a value read from a private variable to what the loop stores
 * there, and to the calls the loop passes it to. */
static bool follow_writer(loop_ctx *l, LLVMValueRef inst, LLVMValueRef obj) {
  (void)obj;
  if (LLVMIsAStoreInst(inst))
    return depends_on_wait(l, LLVMGetOperand(inst, 0));
  LLVMValueRef callee = cc_direct_callee(inst);
  return callee ? call_waits(l, inst, callee) : true;
}

/* True if v, computed in the loop, depends on a waiting read of it. */
static bool depends_on_wait(loop_ctx *l, LLVMValueRef v) {
  if (!in_loop(l, v) || !set_add(&l->seen, v))
    return false;
  if (LLVMIsALoadInst(v)) {
    if (LLVMGetVolatile(v) ||
        LLVMGetOrdering(v) != LLVMAtomicOrderingNotAtomic)
      return true;
    LLVMValueRef obj = underlying(LLVMGetOperand(v, 0));
    /* A plain load of shared memory: a data race if another work-item
     * writes it, nothing to wait for. */
    return LLVMIsAAllocaInst(obj) && any_writer(l, obj, follow_writer);
  }
  if (LLVMIsAAtomicRMWInst(v)) {
    switch (LLVMGetAtomicRMWBinOp(v)) {
    case LLVMAtomicRMWBinOpAdd:
    case LLVMAtomicRMWBinOpSub:
    case LLVMAtomicRMWBinOpFAdd:
    case LLVMAtomicRMWBinOpFSub:
      return is_zero(LLVMGetOperand(v, 1));
    default:
      return true;
    }
  }
  if (LLVMIsAAtomicCmpXchgInst(v))
    return invariant(l, LLVMGetOperand(v, 1));
  if (LLVMIsACallInst(v)) {
    LLVMValueRef callee = cc_direct_callee(v);
    return !callee || call_waits(l, v, callee);
  }
  int n = LLVMGetNumOperands(v);
  for (int k = 0; k < n; k++) {
    LLVMValueRef op = LLVMGetOperand(v, k);
    if (LLVMIsAInstruction(op) && depends_on_wait(l, op))
      return true;
  }
  return false;
}

/* ---- finding loops: back edges of a depth-first walk ---- */

typedef struct block_info {
  LLVMBasicBlockRef bb;
  unsigned state;          /* 0 unvisited, 1 on the walk's stack, 2 done */
} block_info;

typedef struct fn_blocks {
  block_info *info;        /* sorted by block address */
  unsigned n;
  unsigned *pred_start;    /* block i's predecessors (i its position in
                              info): preds[pred_start[i] ..
                              pred_start[i + 1]) */
  LLVMBasicBlockRef *preds;
} fn_blocks;

static int by_block(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const block_info *)a)->bb;
  uintptr_t y = (uintptr_t)((const block_info *)b)->bb;
  return x < y ? -1 : x > y;
}

static block_info *info_of(fn_blocks *fb, LLVMBasicBlockRef bb) {
  block_info key = {bb, 0};
  return bsearch(&key, fb->info, fb->n, sizeof key, by_block);
}

/* The loop of header h with back edges from the latches: h and every
 * block that reaches a latch without passing through h. */
static bool loop_body(fn_blocks *fb, LLVMBasicBlockRef h,
                      LLVMBasicBlockRef *latches, unsigned nlatch,
                      ptr_set *body) {
  LLVMBasicBlockRef *work = malloc((fb->n + 1) * sizeof *work);
  if (!work)
    return false;
  unsigned top = 0;
  set_add(body, h);
  for (unsigned k = 0; k < nlatch; k++)
    if (set_add(body, latches[k]))
      work[top++] = latches[k];
  while (top) {
    size_t x = (size_t)(info_of(fb, work[--top]) - fb->info);
    for (unsigned k = fb->pred_start[x]; k < fb->pred_start[x + 1]; k++)
      if (set_add(body, fb->preds[k]))
        work[top++] = fb->preds[k];
  }
  free(work);
  return true;
}

/* Fills fb's predecessor lists (edges: the number of successor slots of
 * all its blocks). */
static bool find_predecessors(fn_blocks *fb, unsigned edges) {
  fb->pred_start = calloc(fb->n + 1, sizeof *fb->pred_start);
  fb->preds = malloc((edges ? edges : 1) * sizeof *fb->preds);
  unsigned *fill = calloc(fb->n, sizeof *fill);
  bool ok = fb->pred_start && fb->preds && fill;
  for (int pass = 0; ok && pass < 2; pass++)
    for (unsigned i = 0; i < fb->n; i++) {
      LLVMValueRef t = LLVMGetBasicBlockTerminator(fb->info[i].bb);
      for (unsigned k = 0; t && k < LLVMGetNumSuccessors(t); k++) {
        block_info *si = info_of(fb, LLVMGetSuccessor(t, k));
        if (!si)
          continue;
        size_t s = (size_t)(si - fb->info);
        if (pass == 0)
          fb->pred_start[s + 1]++;
        else
          fb->preds[fb->pred_start[s] + fill[s]++] = fb->info[i].bb;
      }
      if (pass == 0 && i + 1 == fb->n)
        for (unsigned b = 0; b < fb->n; b++)
          fb->pred_start[b + 1] += fb->pred_start[b];
    }
  free(fill);
  return ok;
}

/* True if the loop of body may leave on a condition that depends on a
 * waiting read inside it. */
static bool loop_waits(loop_ctx *l) {
  for (size_t s = 0; s < l->body.cap; s++) {
    LLVMBasicBlockRef bb = (LLVMBasicBlockRef)l->body.slot[s];
    if (!bb)
      continue;
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (!t || (!LLVMIsABranchInst(t) && !LLVMIsASwitchInst(t)))
      continue;
    bool exits = false;
    for (unsigned k = 0; k < LLVMGetNumSuccessors(t) && !exits; k++)
      exits = !set_has(&l->body, LLVMGetSuccessor(t, k));
    if (!exits)
      continue;
    LLVMValueRef cond = LLVMIsABranchInst(t)
                            ? (LLVMIsConditional(t) ? LLVMGetCondition(t)
                                                    : NULL)
                            : LLVMGetOperand(t, 0);
    if (cond && depends_on_wait(l, cond))
      return true;
  }
  return false;
}

static LLVMValueRef yield_fn(LLVMModuleRef m) {
  LLVMValueRef f = LLVMGetNamedFunction(m, YIELD_FN);
  if (f)
    return f;
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef vd = LLVMVoidTypeInContext(ctx);
  /* Declaring the group-aware form makes the work-group lowering route
   * calls to it (cc_ctx_function) and the builtin linker bring its
   * body, as for printf. */
  if (!LLVMGetNamedFunction(m, YIELD_CTX_FN))
    LLVMAddFunction(m, YIELD_CTX_FN, LLVMFunctionType(vd, &ptr, 1, 0));
  f = LLVMAddFunction(m, YIELD_FN, LLVMFunctionType(vd, NULL, 0, 0));
  cc_mark_needs_group(f);
  return f;
}

/* Puts a yield before the branch that ends latch, once. */
static void yield_at(LLVMModuleRef m, LLVMBuilderRef b,
                     LLVMBasicBlockRef latch) {
  LLVMValueRef y = yield_fn(m);
  LLVMValueRef t = LLVMGetBasicBlockTerminator(latch);
  LLVMValueRef prev = LLVMGetPreviousInstruction(t);
  if (prev && cc_direct_callee(prev) == y)
    return;
  LLVMPositionBuilderBefore(b, t);
  LLVMBuildCall2(b, LLVMGlobalGetValueType(y), y, NULL, 0, "");
}

/* The loops of fn: headers found as targets of back edges, each with its
 * latches; for every loop that waits, yields at its latches. Returns the
 * number of loops that wait (or -1 when memory ran out). */
static int yield_in_function(LLVMModuleRef m, LLVMBuilderRef b,
                             LLVMValueRef fn, ptr_set *reading) {
  unsigned n = LLVMCountBasicBlocks(fn);
  if (n < 2)
    return 0;
  unsigned edges = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    edges += t ? LLVMGetNumSuccessors(t) : 0;
  }
  fn_blocks fb = {calloc(n, sizeof *fb.info), n, NULL, NULL};
  /* The walk's stack: a block and the next successor to look at. */
  struct frame {
    LLVMBasicBlockRef bb;
    unsigned next;
  } *stack = malloc(n * sizeof *stack);
  /* Back edges, latch -> header: at most one per edge. */
  LLVMBasicBlockRef *latch = malloc((edges + 1) * 3 * sizeof *latch);
  LLVMBasicBlockRef *header = latch ? latch + edges + 1 : NULL;
  LLVMBasicBlockRef *latches = latch ? header + edges + 1 : NULL;
  unsigned nback = 0;
  int waiting = 0;
  if (!fb.info || !stack || !latch) {
    waiting = -1;
    goto out;
  }
  unsigned i = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    fb.info[i++] = (block_info){bb, 0};
  qsort(fb.info, n, sizeof *fb.info, by_block);
  unsigned top = 0;
  stack[top++] = (struct frame){LLVMGetEntryBasicBlock(fn), 0};
  info_of(&fb, stack[0].bb)->state = 1;
  while (top) {
    struct frame *f = &stack[top - 1];
    LLVMValueRef t = LLVMGetBasicBlockTerminator(f->bb);
    if (!t || f->next >= LLVMGetNumSuccessors(t)) {
      info_of(&fb, f->bb)->state = 2;
      top--;
      continue;
    }
    LLVMBasicBlockRef s = LLVMGetSuccessor(t, f->next++);
    block_info *si = info_of(&fb, s);
    if (!si)
      continue;
    if (si->state == 1) {
      latch[nback] = f->bb;
      header[nback++] = s;
    } else if (si->state == 0) {
      si->state = 1;
      stack[top++] = (struct frame){s, 0};
    }
  }
  if (nback && !find_predecessors(&fb, edges)) {
    waiting = -1;
    goto out;
  }
  /* One loop per header, with all its latches. */
  for (unsigned e = 0; e < nback; e++) {
    bool first = true;
    for (unsigned d = 0; d < e && first; d++)
      first = header[d] != header[e];
    if (!first)
      continue;
    unsigned nl = 0;
    for (unsigned d = e; d < nback; d++)
      if (header[d] == header[e])
        latches[nl++] = latch[d];
    loop_ctx l = {.reading_fns = reading};
    if (!loop_body(&fb, header[e], latches, nl, &l.body)) {
      waiting = -1;
      break;
    }
    if (loop_waits(&l)) {
      waiting++;
      for (unsigned k = 0; k < nl; k++)
        yield_at(m, b, latches[k]);
    }
    set_clear(&l.body);
    set_clear(&l.seen);
  }
out:
  free(fb.info);
  free(fb.pred_start);
  free(fb.preds);
  free(stack);
  free(latch);
  return waiting;
}

bool cc_insert_progress_yields(LLVMModuleRef m) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  ptr_set reading = {0};
  bool ok = true;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && yield_in_function(m, b, f, &reading) < 0)
      ok = false;
  set_clear(&reading);
  LLVMDisposeBuilder(b);
  return ok;
}
