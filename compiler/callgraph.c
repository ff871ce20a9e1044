/* This file contains the call-graph walks of the work-group function
 * generator: whether a kernel reaches a barrier or collective (loop mode
 * cannot run it: fiber mode), and which functions must be inlined into
 * the work-group or work-item function because they read work-item or
 * group state. */
#include "compiler_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

LLVMValueRef cc_direct_callee(LLVMValueRef inst) {
  if (!LLVMIsACallInst(inst))
    return NULL;
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  return callee && LLVMIsAFunction(callee) ? callee : NULL;
}

/* barrier, work_group_barrier, every work_group_* collective, and every
 * sub_group_* function (sub_group_barrier, the sub-group collectives and
 * the cl_khr_subgroup_* functions; their Itanium manglings:
 * _Z<length>work_group_..., _Z<length>sub_group_..., and cl_intel_
 * subgroups' _Z<length>intel_sub_group_...): they need all
 * work-items of the group, or of a sub-group, in flight (fiber or region
 * mode). So do the ballot queries that read the caller's sub-group local
 * id from the group (get_sub_group_<eq|ge|gt|le|lt>_mask, inverse_ballot
 * and the ballot scans: builtins/subgroups_ballot.c), which only fiber
 * mode keeps per work-item. Not async_work_group_copy, which only
 * contains the words, nor the queries of the launch alone
 * (get_sub_group_id..., sub_group_ballot_bit_count/_bit_extract/
 * _find_lsb/_find_msb). And __skein_yield, the yield that
 * forward_progress.c puts into loops that wait for another work-item:
 * only fiber mode lets that one run meanwhile. */
static bool is_barrier_like(const char *name) {
  /* The pipe reservations and commits of a work-group or sub-group
   * (Clang's unmangled __work_group_reserve_read_pipe ...,
   * builtins/pipes.c) are collectives too. */
  if (strncmp(name, "__work_group_", 13) == 0 ||
      strncmp(name, "__sub_group_", 12) == 0)
    return true;
  if (strcmp(name, "_Z7barrierj") == 0 || strcmp(name, "__skein_yield") == 0)
    return true;
  /* SPIR-V's named barriers (spirv_lower.c, builtins/named_barrier.c):
   * the initialisation is a work-group barrier, the wait a sub-group one. */
  if (strcmp(name, "__spirv_NamedBarrierInitialize") == 0 ||
      strcmp(name, "__spirv_MemoryNamedBarrier") == 0)
    return true;
  if (strncmp(name, "_Z", 2) != 0)
    return false;
  name += 2;
  name += strspn(name, "0123456789");
  if (strncmp(name, "get_sub_group_", 14) == 0)
    return strlen(name) >= 22 && strncmp(name + 16, "_mask", 5) == 0;
  static const char *const launch_only[] = {
      "sub_group_ballot_bit_count", "sub_group_ballot_bit_extract",
      "sub_group_ballot_find_lsb", "sub_group_ballot_find_msb"};
  for (size_t k = 0; k < sizeof launch_only / sizeof *launch_only; k++)
    if (strncmp(name, launch_only[k], strlen(launch_only[k])) == 0)
      return false;
  return strncmp(name, "work_group_", 11) == 0 ||
         strncmp(name, "sub_group_", 10) == 0 ||
         strncmp(name, "intel_sub_group_", 16) == 0;
}

/* Depth-first search from fn; seen holds visited functions. */
static bool reaches(LLVMValueRef fn, LLVMValueRef **seen, size_t *nseen,
                    const char **what) {
  for (size_t i = 0; i < *nseen; i++)
    if ((*seen)[i] == fn)
      return false;
  LLVMValueRef *grown = realloc(*seen, sizeof(**seen) * (*nseen + 1));
  if (!grown)
    return false;
  *seen = grown;
  (*seen)[(*nseen)++] = fn;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef callee = cc_direct_callee(i);
      if (!callee)
        continue;
      size_t len;
      const char *name = LLVMGetValueName2(callee, &len);
      if (is_barrier_like(name)) {
        *what = name;
        return true;
      }
      if (reaches(callee, seen, nseen, what))
        return true;
    }
  return false;
}

/* A block and its position in its function's layout. */
typedef struct block_pos {
  LLVMBasicBlockRef bb;
  unsigned index;
} block_pos;

static int by_block(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const block_pos *)a)->bb;
  uintptr_t y = (uintptr_t)((const block_pos *)b)->bb;
  return x < y ? -1 : x > y;
}

/* True if fn has a branch back to a block at or before its own in the
 * function's layout (Clang lays a loop's header before its body): a loop,
 * or with unusual layouts a false alarm that only costs a region attempt.
 * Positions are looked up by binary search: kernels of thousands of
 * blocks exist. */
static bool has_back_branch(LLVMValueRef fn) {
  unsigned count = LLVMCountBasicBlocks(fn);
  if (count < 2)
    return false;
  block_pos *pos = malloc(count * sizeof *pos);
  if (!pos)
    return true;   /* can't tell: let region mode look */
  unsigned n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb), n++)
    pos[n] = (block_pos){bb, n};
  qsort(pos, count, sizeof *pos, by_block);
  bool back = false;
  for (unsigned i = 0; i < count && !back; i++) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(pos[i].bb);
    for (unsigned s = 0; t && s < LLVMGetNumSuccessors(t) && !back; s++) {
      block_pos key = {LLVMGetSuccessor(t, s), 0};
      block_pos *to = bsearch(&key, pos, count, sizeof *pos, by_block);
      back = to && to->index <= pos[i].index;
    }
  }
  free(pos);
  return back;
}

bool cc_reaches_loop(LLVMValueRef fn, unsigned depth) {
  if (depth > 8 || LLVMIsDeclaration(fn))
    return false;
  if (has_back_branch(fn))
    return true;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef callee = cc_direct_callee(i);
      if (callee && callee != fn && cc_reaches_loop(callee, depth + 1))
        return true;
    }
  return false;
}

bool cc_reaches_barrier(LLVMValueRef fn, const char **what) {
  LLVMValueRef *seen = NULL;
  size_t nseen = 0;
  bool r = reaches(fn, &seen, &nseen, what);
  free(seen);
  return r;
}

/* Marks the functions cc_mark_workitem_inline chose (builtins carry
 * alwaysinline of their own, so that attribute cannot tell). */
#define MARK "skein-workitem"

static bool marked(LLVMValueRef fn) {
  return LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, MARK,
                                       sizeof(MARK) - 1) != NULL;
}

void cc_mark_needs_group(LLVMValueRef fn) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(fn));
  LLVMAddAttributeAtIndex(
      fn, LLVMAttributeFunctionIndex,
      LLVMCreateStringAttribute(ctx, MARK, sizeof(MARK) - 1, "", 0));
}

/* True if fn calls a work-item builtin or a marked function. */
static bool calls_workitem(LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef callee = cc_direct_callee(i);
      size_t len;
      if (callee &&
          (cc_is_workitem_builtin(LLVMGetValueName2(callee, &len)) ||
           marked(callee)))
        return true;
    }
  return false;
}

/* Makes fn always-inline, dropping what would forbid it. */
static void force_inline(LLVMValueRef fn) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(fn));
  static const char *const drop[] = {"noinline", "optnone"};
  for (int k = 0; k < 2; k++)
    LLVMRemoveEnumAttributeAtIndex(
        fn, LLVMAttributeFunctionIndex,
        LLVMGetEnumAttributeKindForName(drop[k], strlen(drop[k])));
  LLVMAddAttributeAtIndex(
      fn, LLVMAttributeFunctionIndex,
      LLVMCreateEnumAttribute(
          ctx, LLVMGetEnumAttributeKindForName("alwaysinline", 12), 0));
  LLVMAddAttributeAtIndex(
      fn, LLVMAttributeFunctionIndex,
      LLVMCreateStringAttribute(ctx, MARK, sizeof(MARK) - 1, "", 0));
}

void cc_mark_workitem_inline(LLVMModuleRef m, LLVMValueRef *kernels,
                             unsigned n) {
  for (unsigned i = 0; i < n; i++)
    force_inline(kernels[i]);
  /* Fixpoint: OpenCL C has no recursion, so this ends within the depth
   * of the call graph. */
  for (bool changed = true; changed;) {
    changed = false;
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
         f = LLVMGetNextFunction(f)) {
      size_t len;
      const char *name = LLVMGetValueName2(f, &len);
      /* The work-group and work-item functions are the roots everything
       * inlines into. */
      if (LLVMIsDeclaration(f) || marked(f) ||
          strncmp(name, "__skein_wg_", 11) == 0 ||
          strncmp(name, "__skein_wi_", 11) == 0 ||
          /* region mode's body and work-group function (region.cpp) */
          strncmp(name, "__skein_ri_", 11) == 0 ||
          strncmp(name, "__skein_rwg_", 12) == 0)
        continue;
      if (calls_workitem(f)) {
        force_inline(f);
        changed = true;
      }
    }
  }
}
