// This file contains region mode's uniformity analysis: which values of
// a kernel may differ between the work-items of a group. A value that is
// the same for all (a loop counter, a size) and lives across a barrier
// needs one slot in the context instead of one per work-item, and the
// region loops then see it as loop-invariant. C++ for LLVM's
// post-dominator tree, which the C API lacks.
#include "region_internal.h"

#include <llvm/Analysis/PostDominators.h>
#include <llvm/IR/CFG.h>

using namespace llvm;

namespace skein_region {

// The work-item helpers whose result is the same for the whole group
// (they ignore the local ids they are given). A sub-group's id and size
// are not: the last sub-group of a group may be smaller.
static bool uniform_helper(StringRef name) {
  if (name == "__skein_ctx___skein_bounds_size")
    return true;   // an argument's size (bounds-checked mode)
  return name.starts_with("__skein_get_") && !name.contains("local_id") &&
         !name.contains("global_id") && !name.contains("linear_id") &&
         !name.contains("sub_group_id") &&
         name != "__skein_get_sub_group_size";
}

// Adds to out the blocks reachable from bb's branch without passing its
// immediate post-dominator (none when a path returns early: then every
// block reachable), which it returns: where some work-items may go and
// others not, when the branch's condition differs between them.
static BasicBlock *before_join(BasicBlock *bb, PostDominatorTree &pdt,
                               DenseSet<BasicBlock *> &out) {
  DomTreeNode *node = pdt.getNode(bb);
  BasicBlock *ipd = node && node->getIDom() ? node->getIDom()->getBlock()
                                            : nullptr;
  std::vector<BasicBlock *> work(succ_begin(bb), succ_end(bb));
  DenseSet<BasicBlock *> seen;
  while (!work.empty()) {
    BasicBlock *x = work.back();
    work.pop_back();
    if (x == ipd || !seen.insert(x).second)
      continue;
    out.insert(x);
    for (BasicBlock *s : successors(x))
      work.push_back(s);
  }
  return ipd;
}

// The blocks where the paths of a branch on a value that differs per
// work-item may join: those before the join, and the join itself.
static void join_blocks(BasicBlock *bb, PostDominatorTree &pdt,
                        DenseSet<BasicBlock *> &joins) {
  if (BasicBlock *ipd = before_join(bb, pdt, joins))
    joins.insert(ipd);
}

Value *branch_condition(BasicBlock *bb) {
  Instruction *t = bb->getTerminator();
  if (auto *br = dyn_cast<BranchInst>(t))
    return br->isConditional() ? br->getCondition() : nullptr;
  if (auto *sw = dyn_cast<SwitchInst>(t))
    return sw->getCondition();
  return nullptr;
}

// True if instruction i (not a phi) may differ between work-items.
static bool diverges(const Cutter &c, Instruction &i) {
  if (auto *call = dyn_cast<CallInst>(&i)) {
    Function *f = call->getCalledFunction();
    if (f && f->isIntrinsic() && !call->mayReadOrWriteMemory()) {
      for (Value *a : call->args())   // min, max, fma...: like arithmetic
        if (c.divergent.count(a))
          return true;
      return false;
    }
    if (!f || !uniform_helper(f->getName()))
      return true;
    for (unsigned k = RP_LZ + 1; k < call->arg_size(); k++)
      if (c.divergent.count(call->getArgOperand(k)))
        return true;   // the dimension index
    return false;
  }
  if (isa<LoadInst>(i))
    return !c.uniform_loads.count(&i);
  if (isa<AllocaInst>(i) || i.mayReadOrWriteMemory())
    return true;
  for (Value *op : i.operands())
    if (c.divergent.count(op))
      return true;
  return false;
}

// Which values may differ between the work-items of a group: the local
// ids, loads and calls, what depends on them, and phis where branches on
// such values join. Grows to a fixpoint from "everything uniform".
void find_divergent(Cutter &c) {
  for (unsigned a : {RP_LX, RP_LY, RP_LZ, RP_LID})
    c.divergent.insert(c.F->getArg(a));
  PostDominatorTree pdt(*c.F);
  for (bool changed = true; changed;) {
    changed = false;
    DenseSet<BasicBlock *> joins;
    for (BasicBlock &bb : *c.F) {
      Value *cond = branch_condition(&bb);
      if (cond && c.divergent.count(cond))
        join_blocks(&bb, pdt, joins);
    }
    for (BasicBlock &bb : *c.F)
      for (Instruction &i : bb) {
        if (i.getType()->isVoidTy() || c.divergent.count(&i))
          continue;
        bool d;
        if (auto *phi = dyn_cast<PHINode>(&i)) {
          d = joins.count(&bb) != 0;
          for (Value *v : phi->incoming_values())
            d |= c.divergent.count(v) != 0;
        } else {
          d = diverges(c, i);
        }
        if (d) {
          c.divergent.insert(&i);
          changed = true;
        }
      }
  }
}

void divergently_executed(Cutter &c, DenseSet<BasicBlock *> &out) {
  find_divergent(c);
  PostDominatorTree pdt(*c.F);
  for (BasicBlock &bb : *c.F) {
    Value *cond = branch_condition(&bb);
    if (cond && c.divergent.count(cond))
      before_join(&bb, pdt, out);
  }
}

} // namespace skein_region
