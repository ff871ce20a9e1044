/* This file computes chains of byte-vector arithmetic that multiply in
 * 16-bit lanes: after the optimiser, a web of char-vector additions,
 * subtractions, multiplications and bitwise operations joined through
 * phis is rebuilt on short vectors of the same lanes, truncated back to
 * bytes only where a value leaves the web.
 *
 * Why: x86 has no byte multiply at any vector width. LLVM multiplies a
 * <16 x i8> by extending both operands to 16 bits, vpmullw, masking and
 * packing back (six instructions, three of them shuffles on one port),
 * for every multiply of a chain: skein-bench-peak's char16 in AVX2 code
 * (kept whole: its 32 carried lanes split would take twice the 16 ymm
 * registers) ran at 266-299 GIOPS against char's 746-821 on the 16-core
 * Xeon, 1102-1222 in 16-bit lanes (docs/performance.md). The
 * low 8 bits of a sum, difference, product, and, or or xor depend only
 * on the low 8 bits of the operands, so a chain computed in 16-bit lanes
 * has the same bytes in its low halves, and only its ends need
 * converting: a multiply-add is then vpmullw and vpaddw, as for shorts.
 * Only vectors whose 16-bit twin still fits one register are widened (a
 * <16 x i8> in an xmm register becomes one ymm register): wider ones
 * (the loop vectoriser's <32 x i8> of a scalar char kernel on AVX2)
 * would take twice the registers their loop was planned for.
 *
 * After the optimiser, because before it AggressiveInstCombine narrows
 * such a web back to bytes (its TruncInstCombine). */
#include "compiler_internal.h"

#include <stdint.h>
#include <stdlib.h>

/* A pointer -> index map by open addressing (the webs are a kernel's
 * arithmetic: hundreds to a few thousand instructions). */
typedef struct value_index {
  LLVMValueRef *keys;
  unsigned *vals;
  size_t cap;   /* a power of two, at least twice the entries */
} value_index;

static size_t slot_of(const value_index *m, LLVMValueRef v) {
  size_t h = ((uintptr_t)v >> 4) * 0x9E3779B97F4A7C15ull;
  size_t s = h & (m->cap - 1);
  while (m->keys[s] && m->keys[s] != v)
    s = (s + 1) & (m->cap - 1);
  return s;
}

/* The index of v, or -1. */
static long index_of(const value_index *m, LLVMValueRef v) {
  size_t s = slot_of(m, v);
  return m->keys[s] ? (long)m->vals[s] : -1;
}

/* Whether i is a byte-vector operation whose result's low byte depends
 * only on its operands' low bytes (or a phi of such values), of at most
 * max_lanes lanes. */
static bool byte_web_op(LLVMValueRef i, unsigned max_lanes) {
  LLVMTypeRef t = LLVMTypeOf(i);
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind ||
      LLVMGetVectorSize(t) > max_lanes)
    return false;
  LLVMTypeRef et = LLVMGetElementType(t);
  if (LLVMGetTypeKind(et) != LLVMIntegerTypeKind ||
      LLVMGetIntTypeWidth(et) != 8)
    return false;
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMPHI: case LLVMAdd: case LLVMSub: case LLVMMul:
  case LLVMAnd: case LLVMOr: case LLVMXor:
    return true;
  default:
    return false;
  }
}

static unsigned find_root(unsigned *parent, unsigned i) {
  while (parent[i] != i)
    i = parent[i] = parent[parent[i]];
  return i;
}

/* The instruction after i (a non-terminator), or for a phi the block's
 * first instruction that is not one: where a value made from i goes. */
static LLVMValueRef after(LLVMValueRef i) {
  LLVMValueRef next = LLVMGetNextInstruction(i);
  while (LLVMIsAPHINode(next))
    next = LLVMGetNextInstruction(next);
  return next;
}

/* Widens fn's byte webs that multiply; true if it widened any. */
static bool widen_function(LLVMValueRef fn, unsigned max_lanes) {
  /* The widening is an optimisation: without memory for its tables the
   * function is left as it is. */
  size_t n = 0, cap_list = 64;
  LLVMValueRef *web = malloc(cap_list * sizeof *web);
  if (!web)
    return false;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (byte_web_op(i, max_lanes)) {
        if (n == cap_list) {
          LLVMValueRef *more = realloc(web, 2 * cap_list * sizeof *web);
          if (!more) {
            free(web);
            return false;
          }
          web = more;
          cap_list *= 2;
        }
        web[n++] = i;
      }
  if (!n) {
    free(web);
    return false;
  }
  value_index map = {NULL, NULL, 4};
  while (map.cap < 2 * n)
    map.cap *= 2;
  map.keys = calloc(map.cap, sizeof *map.keys);
  map.vals = calloc(map.cap, sizeof *map.vals);
  unsigned *parent = malloc(n * sizeof *parent);
  bool *has_mul = calloc(n, sizeof *has_mul);
  bool *keep = malloc(n * sizeof *keep);
  LLVMValueRef *twin = calloc(n, sizeof *twin);
  bool any = false;
  if (!map.keys || !map.vals || !parent || !has_mul || !keep || !twin)
    goto out;
  for (size_t k = 0; k < n; k++) {
    size_t s = slot_of(&map, web[k]);
    map.keys[s] = web[k];
    map.vals[s] = (unsigned)k;
  }
  /* Webs are the connected parts of the operand graph; only those with a
   * multiply are worth widening (byte additions and logic are native,
   * and in 16 bits would take twice the registers). */
  for (size_t k = 0; k < n; k++)
    parent[k] = (unsigned)k;
  for (size_t k = 0; k < n; k++) {
    unsigned ops = (unsigned)LLVMGetNumOperands(web[k]);
    for (unsigned o = 0; o < ops; o++) {
      long j = index_of(&map, LLVMGetOperand(web[k], o));
      if (j >= 0)
        parent[find_root(parent, (unsigned)k)] =
            find_root(parent, (unsigned)j);
    }
  }
  for (size_t k = 0; k < n; k++)
    if (LLVMGetInstructionOpcode(web[k]) == LLVMMul)
      has_mul[find_root(parent, (unsigned)k)] = true;
  for (size_t k = 0; k < n; k++)
    any |= keep[k] = has_mul[find_root(parent, (unsigned)k)];
  if (!any)
    goto out;

  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(fn));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  /* The phis first (their incoming values may come later in the loop),
   * then every operation once its operands' twins exist, each right
   * after its original, which its operands already dominate. */
  for (size_t k = 0; k < n; k++)
    if (keep[k] && LLVMIsAPHINode(web[k])) {
      LLVMTypeRef wide = LLVMVectorType(LLVMInt16TypeInContext(ctx),
                                        LLVMGetVectorSize(LLVMTypeOf(web[k])));
      LLVMPositionBuilderBefore(b, web[k]);
      twin[k] = LLVMBuildPhi(b, wide, "");
    }
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t k = 0; k < n; k++) {
      if (!keep[k] || twin[k])
        continue;
      LLVMValueRef ops[2];
      bool ready = true;
      for (unsigned o = 0; o < 2; o++) {
        long j = index_of(&map, LLVMGetOperand(web[k], o));
        ops[o] = j >= 0 && keep[j] ? twin[j] : NULL;
        ready &= j < 0 || !keep[j] || twin[j];
      }
      if (!ready)
        continue;
      LLVMTypeRef wide = LLVMVectorType(LLVMInt16TypeInContext(ctx),
                                        LLVMGetVectorSize(LLVMTypeOf(web[k])));
      LLVMPositionBuilderBefore(b, after(web[k]));
      for (unsigned o = 0; o < 2; o++)
        if (!ops[o])
          ops[o] = LLVMBuildZExt(b, LLVMGetOperand(web[k], o), wide, "");
      twin[k] = LLVMBuildBinOp(b, LLVMGetInstructionOpcode(web[k]), ops[0],
                               ops[1], "");
      progress = true;
    }
  }
  for (size_t k = 0; k < n; k++) {
    if (!keep[k] || !LLVMIsAPHINode(web[k]))
      continue;
    unsigned count = LLVMCountIncoming(web[k]);
    for (unsigned e = 0; e < count; e++) {
      LLVMValueRef v = LLVMGetIncomingValue(web[k], e);
      LLVMBasicBlockRef from = LLVMGetIncomingBlock(web[k], e);
      long j = index_of(&map, v);
      if (j < 0 || !keep[j]) {
        LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(from));
        v = LLVMBuildZExt(b, v, LLVMTypeOf(twin[k]), "");
      } else {
        v = twin[j];
      }
      LLVMAddIncoming(twin[k], &v, &from, 1);
    }
  }
  /* Every use of an original (inside the web too) now reads the bytes of
   * its twin; the originals then have no uses, and the truncations that
   * only the web read die in the optimiser. */
  for (size_t k = 0; k < n; k++) {
    if (!keep[k])
      continue;
    LLVMPositionBuilderBefore(b, after(twin[k]));
    LLVMValueRef bytes = LLVMBuildTrunc(b, twin[k], LLVMTypeOf(web[k]), "");
    LLVMReplaceAllUsesWith(web[k], bytes);
  }
  for (size_t k = 0; k < n; k++)
    if (keep[k])
      LLVMInstructionEraseFromParent(web[k]);
  LLVMDisposeBuilder(b);
out:
  free(twin);
  free(keep);
  free(has_mul);
  free(parent);
  free(map.keys);
  free(map.vals);
  free(web);
  return any;
}

void cc_widen_byte_chains(LLVMModuleRef m) {
  if (cc_env_switch("SKEIN_BYTE_MULS"))
    return;   /* to measure the change against the byte multiplies */
  unsigned max_lanes = cc_target_get()->vector_bits / 16;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
       fn = LLVMGetNextFunction(fn))
    if (LLVMGetFirstBasicBlock(fn))
      widen_function(fn, max_lanes);
}
