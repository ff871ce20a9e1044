// This file contains the one rule that region mode (region.cpp) and the
// vector plan (cc_vector_shape in llvm_helpers.cpp) share about a
// kernel's own loops: which of them LLVM's full unrolling turns into
// straight-line code before the loop vectoriser runs, so that they are
// neither cut into regions nor counted as loops around the work-items'
// memory accesses.
#ifndef SKEIN_UNROLLED_WHOLE_H
#define SKEIN_UNROLLED_WHOLE_H
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/IR/Metadata.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

#include <cstdint>

namespace skein_loops {

// The analyses the loop rules below need of one function, built together
// (the dominator tree, loop info and scalar evolution over them).
struct LoopAnalyses {
  llvm::DominatorTree dt;
  llvm::LoopInfo li;
  llvm::TargetLibraryInfoImpl tlii;
  llvm::TargetLibraryInfo tli;
  llvm::AssumptionCache ac;
  llvm::ScalarEvolution se;
  explicit LoopAnalyses(llvm::Function &f)
      : dt(f), li(dt),
        tlii(llvm::Triple(f.getParent()->getTargetTriple())), tli(tlii),
        ac(f), se(f, tli, ac, dt, li) {}
};

// Instructions times trips (header runs) of a loop up to which it is
// taken as unrolled whole: O3's full-unroll threshold is 300 units of
// cost, and the work-item queries, casts and address arithmetic counted
// here cost nothing once inlined and folded.
enum { UNROLLED_WHOLE_COST = 256 };

// Whether l's metadata already asks anything of the unroller (the
// program's `#pragma unroll`, or ask_full_unroll below): the program's
// wish stands.
inline bool has_unroll_hint(const llvm::Loop *l) {
  return llvm::hasUnrollTransformation(l) != llvm::TM_Unspecified;
}

// Whether l is an innermost loop of a constant trip count that LLVM
// unrolls whole (see UNROLLED_WHOLE_COST).
inline bool unrolled_whole(llvm::Loop *l, llvm::ScalarEvolution &se) {
  if (!l->isInnermost())
    return false;
  // The program's `#pragma unroll 1` or `unroll N` keeps it a loop.
  llvm::MDNode *id = l->getLoopID();
  if (llvm::findOptionMDForLoopID(id, "llvm.loop.unroll.disable") ||
      llvm::findOptionMDForLoopID(id, "llvm.loop.unroll.count"))
    return false;
  unsigned trips = se.getSmallConstantTripCount(l);
  if (trips == 0)
    return false;
  unsigned size = 0;
  for (llvm::BasicBlock *bb : l->blocks())
    size += (unsigned)bb->sizeWithoutDebug();
  return (uint64_t)trips * size <= UNROLLED_WHOLE_COST;
}

// Makes the guess above a decision: asks LLVM to unroll l whole before
// the loop vectoriser runs. The guess measures the kernel's own vectors;
// once the vector plan splits them into lanes (vector_plan.c) the loop
// has a lane's copy of each, and LLVM's full-unroll threshold no longer
// took it: a loop of 8 trips of 16 float8 mads stayed a loop, inside the
// work-item loop, which the vectoriser then left scalar (skein-bench-peak
// float8 at 52 GFLOPS against float16's 276 on a 2-core Xeon).
inline void ask_full_unroll(llvm::Loop *l) {
  if (!has_unroll_hint(l))
    llvm::addStringMetadataToLoop(l, "llvm.loop.unroll.full", 1);
}

} // namespace skein_loops
#endif
