// This file lets a chain of half mads stay in float on a CPU without
// AVX-512 FP16: where one widened mad (half_lower.c) feeds another, the
// second takes the first's float result instead of the same value
// rounded to half and extended back.
//
// Why: half_lower.c computes mad(a, b, c) of halves as float's fma of the
// extended operands, rounded to half (F16C's vcvtps2ph), and the next mad
// extends that back (vcvtph2ps). In a chain of mads (clpeak's half
// kernels, a Horner polynomial) the two conversions cost twice the fma
// itself on the same ports: half ran at 25-29 % of float with AVX2 code
// on the 2-core Xeon. The OpenCL C specification leaves mad's accuracy
// implementation-defined for half ("ULP Values for Half-Precision
// Floating-Point Arithmetic Operations"), so a mad may compute with its
// operand mads' unrounded results; Skein's choice is written in
// docs/features.md. Every other user of a mad's result (a store, an add,
// a comparison, a conversion, a mad of another precision) still sees the
// half value, so only mads are ever given more precision than half, and
// a chain's end is rounded once where it leaves the chain.
//
// The widened mads are the float fma calls that carry !fpmath (the
// metadata that says how inexact a result may be, which the scalariser
// keeps when it splits vectors into lanes): half_lower.c puts it there,
// and no fma of the program's own carries it. Loop-carried chains go
// through phis: a half phi reached from a widened mad gets a float twin
// whose incoming values are the float results (or the extended half
// values where an incoming value is no mad's).
#include "compiler_internal.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ValueHandle.h>
#include <llvm/Transforms/Utils/Local.h>

using namespace llvm;

namespace {

bool is_widened_mad(const Value *v) {
  auto *call = dyn_cast<IntrinsicInst>(v);
  return call && call->getIntrinsicID() == Intrinsic::fma &&
         call->getType()->getScalarType()->isFloatTy() &&
         call->getMetadata(LLVMContext::MD_fpmath);
}

bool is_half(const Type *t) { return t->getScalarType()->isHalfTy(); }

// v itself, or the value v copies through bitcasts that come back to
// v's type: the ABI passes a half2 to a builtin as an i32, and the
// inlined call leaves the round trip until InstCombine.
Value *uncast(Value *v) {
  Value *source = v;
  for (Value *w = v; auto *cast = dyn_cast<BitCastInst>(w);) {
    w = cast->getOperand(0);
    if (w->getType() == v->getType())
      source = w;
  }
  return source;
}

// Deletes the conversions the mads no longer read (unread), and the half
// phis among reached that only feed each other now (a loop's rounded
// chain): vector_plan.c counts the phis a loop carries.
void remove_unread(SmallVectorImpl<WeakTrackingVH> &unread,
                   const SmallPtrSetImpl<PHINode *> &reached) {
  SmallVector<WeakTrackingVH, 16> phis(reached.begin(), reached.end());
  RecursivelyDeleteTriviallyDeadInstructionsPermissive(unread);
  SmallPtrSet<PHINode *, 16> dead;
  for (WeakTrackingVH &v : phis)
    if (v)
      dead.insert(cast<PHINode>(v));
  for (bool shrank = true; shrank;) {
    shrank = false;
    for (PHINode *phi : SmallVector<PHINode *, 16>(dead.begin(), dead.end()))
      if (any_of(phi->users(), [&](User *u) {
            return !dead.count(dyn_cast<PHINode>(u));
          })) {
        dead.erase(phi);
        shrank = true;
      }
  }
  SmallVector<WeakTrackingVH, 16> inputs;
  for (PHINode *phi : dead)
    for (Value *in : phi->incoming_values())
      inputs.push_back(in);
  for (PHINode *phi : dead)
    phi->replaceAllUsesWith(PoisonValue::get(phi->getType()));
  for (PHINode *phi : dead)
    phi->eraseFromParent();
  RecursivelyDeleteTriviallyDeadInstructionsPermissive(inputs);
}

// The value a widened mad's operand extends to float (through the ABI's
// round trips), or null where the operand is no extended half.
Value *extended_half(Value *operand) {
  auto *ext = dyn_cast<FPExtInst>(operand);
  return ext ? uncast(ext->getOperand(0)) : nullptr;
}

// Gives the mads of f their operand mads' float results; true if any.
bool keep_chains(Function &f) {
  // A half value -> the float value a mad may read in its place.
  DenseMap<Value *, Value *> wide;
  SmallVector<IntrinsicInst *, 64> mads;
  for (Instruction &inst : instructions(f)) {
    if (is_widened_mad(&inst))
      mads.push_back(cast<IntrinsicInst>(&inst));
    if (auto *t = dyn_cast<FPTruncInst>(&inst))
      if (is_half(t->getType()) && is_widened_mad(t->getOperand(0)))
        wide[t] = t->getOperand(0);
  }
  if (wide.empty())
    return false;
  // The half phis a rounded mad result reaches (until none is left: a
  // loop's phis may reach each other in any order) ...
  SmallPtrSet<PHINode *, 16> reached;
  for (bool grew = true; grew;) {
    grew = false;
    for (Instruction &inst : instructions(f)) {
      auto *phi = dyn_cast<PHINode>(&inst);
      if (!phi || !is_half(phi->getType()) || reached.count(phi))
        continue;
      for (Value *in : phi->incoming_values())
        if (wide.count(uncast(in)) ||
            reached.count(dyn_cast<PHINode>(uncast(in)))) {
          reached.insert(phi);
          grew = true;
          break;
        }
    }
  }
  // ... and of those, the ones a mad reads, directly or through others,
  // each with a float twin (none on a second run: the mads read twins).
  SmallVector<PHINode *, 16> needed;
  auto need = [&](Value *v) {
    auto *phi = dyn_cast_or_null<PHINode>(v);
    if (!phi || !reached.count(phi) || wide.count(phi))
      return;
    Type *float_t =
        phi->getType()->getWithNewType(Type::getFloatTy(f.getContext()));
    wide[phi] = PHINode::Create(float_t, phi->getNumIncomingValues(),
                                phi->getName() + ".wide",
                                phi->getIterator());
    needed.push_back(phi);
  };
  for (IntrinsicInst *mad : mads)
    for (unsigned i = 0; i < 3; i++)
      need(extended_half(mad->getArgOperand(i)));
  for (size_t n = 0; n < needed.size(); n++)
    for (Value *in : needed[n]->incoming_values())
      need(uncast(in));
  for (PHINode *phi : needed) {
    auto *twin = cast<PHINode>(wide[phi]);
    for (unsigned i = 0; i < phi->getNumIncomingValues(); i++) {
      Value *in = phi->getIncomingValue(i);
      BasicBlock *from = phi->getIncomingBlock(i);
      Value *w = wide.lookup(uncast(in));
      if (!w) {
        IRBuilder<> b(from->getTerminator());
        w = b.CreateFPExt(in, twin->getType());
      }
      twin->addIncoming(w, from);
    }
  }
  SmallVector<WeakTrackingVH, 64> unread;
  for (IntrinsicInst *mad : mads)
    for (unsigned i = 0; i < 3; i++) {
      Value *operand = mad->getArgOperand(i);
      Value *w = wide.lookup(extended_half(operand));
      if (w && w->getType() == operand->getType()) {
        mad->setArgOperand(i, w);
        unread.push_back(operand);
      }
    }
  if (unread.empty())
    return false;
  // The phis' other readers (a store after the loop) take the twin
  // rounded: the same half value, so that the loop carries one chain,
  // not the float one and its rounded copy.
  for (PHINode *phi : needed) {
    IRBuilder<> b(phi->getParent(), phi->getParent()->getFirstInsertionPt());
    phi->replaceAllUsesWith(b.CreateFPTrunc(wide[phi], phi->getType()));
  }
  remove_unread(unread, reached);
  return true;
}

}  // namespace

extern "C" void cc_keep_half_mad_chains_in(LLVMValueRef fn) {
  auto &f = *cast<Function>(unwrap(fn));
  if (cc_env_switch("SKEIN_ROUND_HALF_MADS") ||
      none_of(instructions(f), [](Instruction &i) { return is_widened_mad(&i); }))
    return;
  cc_sroa_function(fn);   // the chains through phis, not private slots
  keep_chains(f);
}

extern "C" void cc_keep_half_mad_chains(LLVMModuleRef mref) {
  if (cc_env_switch("SKEIN_ROUND_HALF_MADS"))
    return;   // every mad rounded to half, to compare
  for (Function &f : *unwrap(mref))
    if (!f.isDeclaration())
      keep_chains(f);
}
