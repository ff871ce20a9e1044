// This file declares the image pass's versions of a format copy for
// work-groups whose pixels are all inside the images (image_inside.cpp),
// which the image pass (image_version.cpp) makes after its format copies.
#ifndef SKEIN_IMAGE_INSIDE_H
#define SKEIN_IMAGE_INSIDE_H

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Metadata.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <cstdint>

namespace skein_images {

// The loop and scalar-evolution analyses of f as it is when made (the
// image pass changes f between uses: make one per use).
struct FunctionAnalyses {
  llvm::TargetLibraryInfoImpl tlii;
  llvm::TargetLibraryInfo tli;
  llvm::AssumptionCache ac;
  llvm::DominatorTree dt;
  llvm::LoopInfo li;
  llvm::ScalarEvolution se;
  explicit FunctionAnalyses(llvm::Function &f)
      : tlii(llvm::Triple(f.getParent()->getTargetTriple())), tli(tlii),
        ac(f), dt(f), li(dt), se(f, tli, ac, dt, li) {}
};

// Copies blocks into f (their names ending in suffix), the copies
// branching and referring to one another where the originals did (vmap
// maps each original block and value to its copy), each copied loop with
// a fresh loop id (a copy must not share its loop's identity). Returns
// the copies in the order of blocks.
llvm::SmallVector<llvm::BasicBlock *, 64>
clone_blocks(llvm::Function &f, llvm::ArrayRef<llvm::BasicBlock *> blocks,
             const char *suffix, llvm::ValueToValueMapTy &vmap);

// In work-group function f, whose entry block ends in the image pass's
// switch over its copies, gives each copy whose case value `wanted`
// accepts a second copy, run where a test at the work-group's start
// shows that every comparison of a work-item's coordinate with an
// image's extent (the border tests of image.c) has the same outcome for
// every work-item of the group; in that copy the comparisons are
// constants. Returns the number of copies made.
unsigned version_inside(llvm::Function &f,
                        llvm::function_ref<bool(uint64_t)> wanted);

} // namespace skein_images

#endif
