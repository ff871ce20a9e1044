// This file contains the forwarding of the ABI records' set-once fields
// in a work-group function: the group record (builtins/abi.h's
// skein_group) and region mode's copy of the launch live on its stack,
// and LLVM would otherwise reload their fields in every work-item loop.
#include "group_records.h"
#include "compiler_internal.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>

#include <vector>

using namespace llvm;

namespace skein_records {
namespace {

// The accesses of a record on the stack (an alloca) at constant offsets:
// its loads, the entry block's last store to each offset, the offsets
// stored elsewhere, a memcpy into it in the entry block. unknown: a use
// that could write it some other way (a memory intrinsic elsewhere, a
// pointer merged by a phi or select). Handing its address on (a store of
// the address, a call) is not counted: the records this file forwards
// are read, not written, by whatever receives them (see the callers).
struct RecordAccesses {
  std::vector<std::pair<LoadInst *, uint64_t>> loads;
  DenseMap<uint64_t, StoreInst *> entry_store;
  DenseSet<uint64_t> written_later;
  MemCpyInst *copy = nullptr;
  bool unknown = false;
};

RecordAccesses record_accesses(AllocaInst *rec, const DataLayout &dl) {
  RecordAccesses r;
  BasicBlock *entry = rec->getParent();
  std::vector<std::pair<Value *, uint64_t>> work = {{rec, 0}};
  while (!work.empty() && !r.unknown) {
    auto [p, off] = work.back();
    work.pop_back();
    for (User *u : p->users()) {
      if (auto *gep = dyn_cast<GetElementPtrInst>(u)) {
        APInt delta(64, 0);
        if (gep->getPointerOperand() != p ||
            !gep->accumulateConstantOffset(dl, delta))
          r.unknown = true;
        else
          work.push_back({gep, off + delta.getZExtValue()});
      } else if (auto *ld = dyn_cast<LoadInst>(u)) {
        r.loads.push_back({ld, off});
      } else if (auto *st = dyn_cast<StoreInst>(u)) {
        if (st->getValueOperand() == p)
          continue;   // the address handed on
        if (st->getParent() != entry || st->isVolatile())
          r.written_later.insert(off);
        else if (!r.entry_store.count(off) ||
                 r.entry_store[off]->comesBefore(st))
          r.entry_store[off] = st;
      } else if (auto *mi = dyn_cast<MemIntrinsic>(u)) {
        auto *mc = dyn_cast<MemCpyInst>(mi);
        if (mi->getDest() != p)
          continue;   // read from
        if (mc && off == 0 && !r.copy && mc->getParent() == entry &&
            !mc->isVolatile())
          r.copy = mc;
        else
          r.unknown = true;
      } else if (!isa<CallInst>(u)) {
        r.unknown = true;
      }
    }
  }
  return r;
}

// Whether rec is an alloca of the named ABI struct (builtins/abi.h).
StructType *abi_record(Instruction &i, StringRef name) {
  auto *a = dyn_cast<AllocaInst>(&i);
  auto *st = a ? dyn_cast<StructType>(a->getAllocatedType()) : nullptr;
  return st && st->hasName() && st->getName() == name ? st : nullptr;
}

} // namespace

// The skein_group record of a loop- or region-mode work-group function
// is an alloca whose address reaches the collective and barrier
// builtins, so LLVM must assume any store through an unknown pointer (a
// check's note in the bounds report) may change it, and reloads its
// fields in every work-item loop: the limits and box tests built from
// them could not leave the loop. Its set-once fields (builtins/abi.h:
// launch, group_id, local_size, local_mem) are written only by the
// work-group function's entry block, never by a builtin, so a load of
// one outside the entry block reads what the entry block stored last.
// Forwards those values; other fields (the local ids, which the
// function updates in its loops) are left alone. collective_set_once:
// the collective slots' address is set once too (region mode's
// work-group function: collective_setup, region_driver.cpp; in fiber
// mode the scheduler sets it in records of its own).
//
// Region mode also copies the launch into an alloca (launch_copy,
// region_driver.cpp) to give the builtins other hooks, and the work-item
// builtins then read the sizes and offsets from the copy, with the same
// effect. The copy is a memcpy of the launch in the entry block and a
// few stores there; a load from it elsewhere, of bytes no store wrote,
// reads the launch itself, which nothing writes while it runs: such a
// load is pointed at the launch and marked invariant.
void forward_records(Function &f, bool collective_set_once) {
  const DataLayout &dl = f.getParent()->getDataLayout();
  BasicBlock &entry = f.getEntryBlock();
  MDNode *invariant = MDNode::get(f.getContext(), {});
  // Loads from the launch a work-group function is given (its first
  // argument, wg_gen.c; nothing writes it while the command runs), which
  // the work-item builtins make in every work-item loop, are invariant
  // too.
  Argument *launch_arg = nullptr;
  if ((f.getName().starts_with("__skein_wg_") ||
       f.getName().starts_with("__skein_rwg_")) &&
      f.arg_size() == 5 && f.getArg(0)->getType()->isPointerTy())
    launch_arg = f.getArg(0);
  for (BasicBlock &bb : f)
    for (Instruction &i : bb)
      if (auto *ld = dyn_cast<LoadInst>(&i))
        if (launch_arg && !ld->isVolatile() &&
            getUnderlyingObject(ld->getPointerOperand()) == launch_arg)
          ld->setMetadata(LLVMContext::MD_invariant_load, invariant);
  for (Instruction &i : entry) {
    if (StructType *st = abi_record(i, "struct.skein_group")) {
      if (st->getNumElements() <= G_FIBER)
        continue;
      const StructLayout *sl = dl.getStructLayout(st);
      // launch, group_id and local_size lead; local_mem follows local_id.
      static_assert(G_LAUNCH == 0 && G_GROUP_ID == 1 && G_LOCAL_SIZE == 2 &&
                        G_LOCAL_ID == 3 && G_LOCAL_MEM == 4 && G_FIBER == 5,
                    "skein_group's field order");
      static_assert(G_COLLECTIVE == 6, "skein_group's field order");
      auto set_once = [&](uint64_t off) {
        return off < sl->getElementOffset(G_LOCAL_ID) ||
               (off >= sl->getElementOffset(G_LOCAL_MEM) &&
                off < sl->getElementOffset(G_FIBER)) ||
               (collective_set_once && st->getNumElements() > G_COLLECTIVE &&
                off >= sl->getElementOffset(G_COLLECTIVE) &&
                off < sl->getElementOffset(G_COLLECTIVE) + 8);
      };
      RecordAccesses r = record_accesses(cast<AllocaInst>(&i), dl);
      if (r.unknown || r.copy)
        continue;
      for (auto [ld, off] : r.loads) {
        auto it = r.entry_store.find(off);
        if (!set_once(off) || r.written_later.count(off) ||
            it == r.entry_store.end() || ld->getParent() == &entry ||
            ld->isVolatile() ||
            ld->getType() != it->second->getValueOperand()->getType())
          continue;
        ld->replaceAllUsesWith(it->second->getValueOperand());
        ld->eraseFromParent();
      }
    } else if (StructType *st = abi_record(i, "struct.skein_launch")) {
      RecordAccesses r = record_accesses(cast<AllocaInst>(&i), dl);
      auto *len = r.copy ? dyn_cast<ConstantInt>(r.copy->getLength())
                         : nullptr;
      if (r.unknown || !r.written_later.empty() || !len ||
          len->getZExtValue() < dl.getTypeAllocSize(st) ||
          !isa<Argument>(r.copy->getSource()))
        continue;
      Value *launch = r.copy->getSource();
      for (auto [ld, off] : r.loads) {
        uint64_t size = dl.getTypeStoreSize(ld->getType());
        bool stored = false;   // by a store in the entry block
        for (auto &[soff, st_] : r.entry_store) {
          uint64_t ssize =
              dl.getTypeStoreSize(st_->getValueOperand()->getType());
          stored |= soff < off + size && off < soff + ssize;
        }
        if (stored || ld->getParent() == &entry || ld->isVolatile() ||
            off + size > len->getZExtValue())
          continue;
        IRBuilder<> b(ld);
        ld->setOperand(ld->getPointerOperandIndex(),
                       b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), launch,
                                                    off));
        ld->setMetadata(LLVMContext::MD_invariant_load, invariant);
      }
    }
  }
}

} // namespace skein_records
