// This file contains the one rule that region mode (region.cpp) and the
// vector plan (cc_vector_shape in llvm_helpers.cpp) share about a
// kernel's own loops: which of them LLVM's full unrolling turns into
// straight-line code before the loop vectoriser runs, so that they are
// neither cut into regions nor counted as loops around the work-items'
// memory accesses.
#ifndef SKEIN_UNROLLED_WHOLE_H
#define SKEIN_UNROLLED_WHOLE_H
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>

#include <cstdint>

namespace skein_loops {

// Instructions times trips (header runs) of a loop up to which it is
// taken as unrolled whole: O3's full-unroll threshold is 300 units of
// cost, and the work-item queries, casts and address arithmetic counted
// here cost nothing once inlined and folded.
enum { UNROLLED_WHOLE_COST = 256 };

// Whether l is an innermost loop of a constant trip count that LLVM
// unrolls whole (see UNROLLED_WHOLE_COST).
inline bool unrolled_whole(llvm::Loop *l, llvm::ScalarEvolution &se) {
  if (!l->isInnermost())
    return false;
  unsigned trips = se.getSmallConstantTripCount(l);
  if (trips == 0)
    return false;
  unsigned size = 0;
  for (llvm::BasicBlock *bb : l->blocks())
    size += (unsigned)bb->sizeWithoutDebug();
  return (uint64_t)trips * size <= UNROLLED_WHOLE_COST;
}

} // namespace skein_loops
#endif
