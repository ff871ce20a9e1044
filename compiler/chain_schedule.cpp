// This file contains the chain interleaver: after the optimiser, the
// straight-line arithmetic of a single-block loop is reordered so that
// independent dependency chains alternate, instruction by instruction.
//
// Why: unroll-and-jam (unroll_jam.cpp) puts the work-items' copies of a
// kernel's loop body one after another, each a chain of dependent FMAs
// (clpeak's float16: 16 copies of 16 FMAs). The out-of-order core finds
// independent FMAs only within its scheduler window, about a hundred
// instructions, so it saw six of the sixteen chains at a time: the
// jammed loop ran at 70-80 % of the FMA peak on the 16-core Xeon while
// its instructions were all FMAs. Ordered by depth (every copy's first
// operation, then every copy's second, ...) the chains alternate as
// the loop vectoriser's interleaved copies do. Only loops of one block
// that touch no memory are reordered, and every instruction stays after
// the values it uses: the order is a topological order of the same data
// flow.
#include "chain_schedule.h"
#include "compiler_internal.h"

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <vector>

using namespace llvm;

namespace {

// Bodies shorter than this, or with fewer floating-point operations (or
// integer vector multiplies), are left as they are: the reordering is for
// long jammed bodies.
enum { MIN_RUN = 64, MIN_FP_OPS = 32 };

bool movable(const Instruction &i) {
  if (isa<PHINode>(i) || i.isTerminator() || isa<AllocaInst>(i) ||
      i.isEHPad() || i.mayReadOrWriteMemory() || i.mayHaveSideEffects())
    return false;
  if (const auto *call = dyn_cast<CallBase>(&i))
    return isa<IntrinsicInst>(call) && !call->isConvergent() &&
           !call->isInlineAsm();
  return true;
}

bool floating_point(const Instruction &i) {
  return i.getType()->getScalarType()->isFloatingPointTy() &&
         (isa<BinaryOperator>(i) || isa<CallBase>(i) || isa<UnaryOperator>(i));
}

// Integer vector multiplies count as a float operation does: the copies
// of a kept integer vector's chain wait on vpmulld's 10 cycles as a
// float chain waits on an FMA's 4. skein-bench-peak's int16 on AVX-512,
// 16 jammed work-items of 32 dependent multiplies one after another, ran
// at 305-339 GIOPS against 552-641 for the scalar int; ordered by depth,
// 543-624 (the 16-core Xeon, 2026-11-26, docs/performance.md).
bool vector_int_mul(const Instruction &i) {
  return i.getOpcode() == Instruction::Mul && i.getType()->isVectorTy();
}

// Reorders body (the instructions of a block between its phis and its
// terminator, all movable) by depth, keeping the order of equal depths.
void interleave_by_depth(const std::vector<Instruction *> &body) {
  unsigned fp = 0;
  for (Instruction *i : body)
    fp += floating_point(*i) || vector_int_mul(*i);
  if (body.size() < MIN_RUN || fp < MIN_FP_OPS)
    return;
  DenseMap<Instruction *, unsigned> depth;
  for (Instruction *i : body) {
    unsigned d = 0;
    for (Value *op : i->operands())
      if (auto *def = dyn_cast<Instruction>(op)) {
        auto it = depth.find(def);
        if (it != depth.end())
          d = std::max(d, it->second + 1);
      }
    depth[i] = d;
  }
  std::vector<Instruction *> order = body;
  std::stable_sort(order.begin(), order.end(),
                   [&](Instruction *a, Instruction *b) {
                     return depth[a] < depth[b];
                   });
  Instruction *terminator = body.back()->getParent()->getTerminator();
  for (Instruction *i : order)
    i->moveBefore(terminator);
}

} // namespace

namespace skein_chains {

bool arithmetic_self_loop(BasicBlock &bb) {
  bool self = false;
  for (BasicBlock *succ : successors(&bb))
    self |= succ == &bb;
  if (!self)
    return false;
  for (Instruction &i : bb)
    if (!isa<PHINode>(i) && !i.isTerminator() && !movable(i))
      return false;
  return true;
}

} // namespace skein_chains

extern "C" void cc_interleave_chains(LLVMModuleRef mref) {
  // The jammed copies' tails first (jam_tails.cpp): they follow the
  // loops this file reorders.
  cc_transpose_jam_tails(mref);
  if (cc_env_switch("SKEIN_NO_CHAIN_INTERLEAVE"))
    return;
  for (Function &f : *unwrap(mref))
    for (BasicBlock &bb : f)
      if (skein_chains::arithmetic_self_loop(bb)) {
        std::vector<Instruction *> body;
        for (Instruction &i : bb)
          if (!isa<PHINode>(i) && !i.isTerminator())
            body.push_back(&i);
        if (!body.empty())
          interleave_by_depth(body);
      }
}
