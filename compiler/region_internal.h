// This file declares what the region-mode files share: the state of one
// kernel's transformation (region.cpp), the uniformity analysis
// (region_uniform.cpp) and the work-group function that runs the regions
// (region_driver.cpp).
#ifndef SKEIN_REGION_INTERNAL_H
#define SKEIN_REGION_INTERNAL_H

#include "compiler_internal.h"

#include <llvm/ADT/BitVector.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace skein_region {

using namespace llvm;   // inside this namespace only

// A barrier or collective call of the region body.
struct Sync {
  CallInst *call;
  bool collective;
  bool group_wide;   // collective whose result is slot n (else slot lid)
};

// One region: its start block, the blocks reachable from it without
// crossing a cut, their dominators within the region, and the regions a
// cut leads to.
struct Region {
  BasicBlock *start;
  std::vector<BasicBlock *> blocks;
  DenseMap<BasicBlock *, unsigned> index;
  std::vector<BitVector> dom;   // dom[i][j]: blocks[j] dominates blocks[i]
  std::vector<unsigned> next;
};

// Everything one kernel's transformation owns.
struct Cutter {
  Function *F;
  StructType *group_ty, *launch_ty;
  std::string why;                 // why region mode does not apply
  std::vector<Sync> syncs;
  BasicBlock *prologue = nullptr;  // allocas and context pointers
  std::vector<Region> regions;
  DenseMap<BasicBlock *, unsigned> cut_to;   // cut block -> region
  DenseSet<Value *> divergent;      // values that may differ per item
  DenseSet<Instruction *> uniform_loads;   // group-wide collective results
  DenseSet<BasicBlock *> collective_starts;  // a collective's own region
  std::vector<AllocaInst *> demoted;
  // Every load spill() placed for a crossing use, with the value it
  // reloads: in a region where that value's definition dominates the
  // load, the region's clone uses the value itself (see clone_regions).
  std::vector<std::pair<LoadInst *, Instruction *>> reloads;
  // Uniform values crossing a cut: every work-item writes the first
  // (cur), crossing uses read the second (snap), which the work-group
  // function refreshes from cur before each region's loop.
  std::vector<std::pair<AllocaInst *, AllocaInst *>> uniform;
  std::vector<AllocaInst *> ctx_allocas;
  uint64_t ctx_bytes = 0;          // per work-item
  uint64_t uniform_bytes = 0;      // each of cur and snap
  uint64_t ctx_align = 64;
  bool has_collective = false;
};

// The address of field f (element idx if idx >= 0) of the group struct.
inline llvm::Value *group_field(llvm::IRBuilder<> &b, llvm::StructType *st,
                               llvm::Value *g,
                          unsigned f, int idx = -1) {
  if (idx < 0)
    return b.CreateStructGEP(st, g, f);
  llvm::Value *ix[3] = {b.getInt32(0), b.getInt32(f), b.getInt32(idx)};
  return b.CreateInBoundsGEP(st, g, ix);
}

// Fills c.divergent: the values of the region body that may differ
// between the work-items of a group (region_uniform.cpp).
void find_divergent(Cutter &c);

// Replaces the placeholder call of c.F in rwg by the loops that run the
// region functions fns (region r is fns[r]) and inlines them
// (region_driver.cpp). False if rwg has no placeholder call.
bool build_driver(Cutter &c, llvm::Function *rwg,
                  std::vector<llvm::Function *> &fns);

} // namespace skein_region

#endif
