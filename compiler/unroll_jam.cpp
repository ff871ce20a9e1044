// This file asks LLVM to unroll-and-jam the work-item loop of kernels
// whose own vectors are kept whole (a float16 on AVX2, a double16 on
// AVX-512: vector_plan.c). Such a kernel's work-item loop holds the
// kernel's own loop (clpeak's 8 trips of 16 dependent mads), so the loop
// vectoriser, which widens and interleaves innermost loops only, leaves
// it alone and each work-item runs one dependent chain at a time: clpeak's
// double16 reached 43 % of the FMA peak on the 16-core Xeon, waiting on
// FMA latency. Unroll-and-jam copies the work-item loop's body `count`
// times and fuses the copies' inner loops, so `count` work-items' chains
// run side by side in one inner loop, as interleaving does for
// innermost loops.
//
// LLVM has the transformation (LoopUnrollAndJamPass) but adds it to its
// O3 pipeline only under the hidden option -enable-unroll-and-jam; with
// it on, the pass still transforms only loops whose metadata asks for it
// (the X86 cost model never chooses it), so turning the option on for the
// process changes nothing but the loops marked here. The pass checks
// legality itself (one inner loop, a trip count the outer loop does not
// change, no dependence between the copies) and leaves a loop it cannot
// prove alone.
#include "compiler_internal.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/Support/CommandLine.h>

#include <vector>

extern "C" void cc_enable_unroll_and_jam(void) {
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find("enable-unroll-and-jam");
  if (it != options.end())
    static_cast<llvm::cl::opt<bool> *>(it->second)->setValue(true);
}

extern "C" void cc_set_loop_unroll_and_jam(LLVMValueRef latch_br,
                                          unsigned count) {
  auto *br = llvm::cast<llvm::Instruction>(llvm::unwrap(latch_br));
  llvm::LLVMContext &ctx = br->getContext();
  // Only a loop with exactly one loop inside can be jammed: asked of any
  // other, LLVM would warn in the build log that it could not.
  llvm::DominatorTree dt(*br->getFunction());
  llvm::LoopInfo li(dt);
  llvm::Loop *loop = li.getLoopFor(br->getParent());
  if (!loop || loop->getLoopLatch() != br->getParent() ||
      loop->getSubLoops().size() != 1)
    return;
  // Keep what the loop's metadata already says (the interleave hint),
  // and add the request: the first operand is the loop id itself.
  std::vector<llvm::Metadata *> ops = {nullptr};
  if (llvm::MDNode *old = br->getMetadata(llvm::LLVMContext::MD_loop))
    for (unsigned i = 1; i < old->getNumOperands(); i++)
      ops.push_back(old->getOperand(i));
  llvm::Metadata *jam[] = {
      llvm::MDString::get(ctx, "llvm.loop.unroll_and_jam.count"),
      llvm::ConstantAsMetadata::get(
          llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), count))};
  ops.push_back(llvm::MDNode::get(ctx, jam));
  llvm::MDNode *id = llvm::MDNode::getDistinct(ctx, ops);
  id->replaceOperandWith(0, id);
  br->setMetadata(llvm::LLVMContext::MD_loop, id);
}
