// This file contains the work-group function of region mode: the group,
// the context block and the collectives' slots on its stack, then a state
// machine that runs each region as z/y/x loops over the work-items with
// the region's function inlined, so that LLVM's loop vectoriser runs
// several work-items per instruction. C++ for IRBuilder and InlineFunction
// (the C API cannot inline one call).
#include "region_internal.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <cstdlib>

using namespace llvm;

namespace skein_region {

// Groups smaller than this run a barrier-free kernel's loop-mode function
// (build_driver): they would fill no more than half an AVX2 vector.
static const uint64_t min_vector_group = 8;

// The function that stands for the scheduler's barrier in region mode:
// every work-item of a collective's region has deposited before the next
// region reads, so there is nothing to wait for.
static Function *nop_barrier(Module *m) {
  if (Function *f = m->getFunction("__skein_region_nop"))
    return f;
  LLVMContext &ctx = m->getContext();
  auto *f = Function::Create(
      FunctionType::get(Type::getVoidTy(ctx), {PointerType::get(ctx, 0)},
                        false),
      GlobalValue::InternalLinkage, "__skein_region_nop", m);
  ReturnInst::Create(ctx, BasicBlock::Create(ctx, "entry", f));
  return f;
}

// Collectives: the group's slots and a copy of the launch
// whose barrier hook does nothing.
static void collective_setup(IRBuilder<> &b, Cutter &c, Value *group,
                             Value *n) {
  Module *m = c.F->getParent();
  // Three areas of slot_area(n) slots, on cache lines, and the
  // exchanges' pads (region_internal.h).
  AllocaInst *slots = b.CreateAlloca(
      b.getInt64Ty(),
      b.CreateAdd(b.CreateMul(slot_area(b, n), b.getInt64(3)),
                  b.getInt64(2 * exchange_pad_slots())),
      "slots");
  slots->setAlignment(Align(64));
  b.CreateStore(slots, group_field(b, c.group_ty, group, G_COLLECTIVE));
  Value *gl = group_field(b, c.group_ty, group, G_LAUNCH);
  Value *launch = b.CreateLoad(b.getPtrTy(), gl);
  Value *copy = b.CreateAlloca(c.launch_ty, nullptr, "launch_copy");
  const DataLayout &dl = m->getDataLayout();
  b.CreateMemCpy(copy, MaybeAlign(8), launch, MaybeAlign(8),
                 dl.getTypeAllocSize(c.launch_ty));
  // skein_hooks: run_fibers, barrier, address_kind, sub_group_barrier,
  // sub_group_operation, yield (fiber mode's only: region mode takes no
  // function that parks or yields, so they stay null like run_fibers).
  ArrayType *hooks_ty = ArrayType::get(b.getPtrTy(), 6);
  Value *hooks = b.CreateAlloca(hooks_ty, nullptr, "hooks");
  Value *real = b.CreateLoad(b.getPtrTy(),
                             b.CreateStructGEP(c.launch_ty, launch, L_HOOKS));
  for (unsigned k = 0; k < 6; k++) {
    Value *hook = k == 1 || k == 3 ? (Value *)nop_barrier(m)
                  : k == 2 ? b.CreateLoad(b.getPtrTy(),
                                          b.CreateConstInBoundsGEP1_32(
                                              b.getPtrTy(), real, k))
                           : (Value *)ConstantPointerNull::get(b.getPtrTy());
    b.CreateStore(hook, b.CreateConstInBoundsGEP2_32(hooks_ty, hooks, 0, k));
  }
  b.CreateStore(hooks, b.CreateStructGEP(c.launch_ty, copy, L_HOOKS));
  b.CreateStore(copy, gl);
}

void set_loop_properties(Instruction *latch, ArrayRef<Metadata *> props) {
  LLVMContext &ctx = latch->getContext();
  std::vector<Metadata *> ops = {nullptr};
  ops.insert(ops.end(), props.begin(), props.end());
  MDNode *id = MDNode::getDistinct(ctx, ops);
  id->replaceOperandWith(0, id);   // a loop ID names itself first
  latch->setMetadata(LLVMContext::MD_loop, id);
}

// A collective's own region is one library call per work-item: nothing to
// vectorise or unroll, and asking LLVM not to try saves compile time.
static void keep_scalar(Instruction *latch) {
  LLVMContext &ctx = latch->getContext();
  Metadata *vec[] = {MDString::get(ctx, "llvm.loop.vectorize.enable"),
                     ConstantAsMetadata::get(ConstantInt::getFalse(ctx))};
  Metadata *unroll[] = {MDString::get(ctx, "llvm.loop.unroll.disable")};
  set_loop_properties(latch,
                      {MDNode::get(ctx, vec), MDNode::get(ctx, unroll)});
}

// Work-items that do not synchronise may run in any interleaving, and
// between two barriers a work-item that touches what another writes has
// a data race (undefined): so a region's work-item loop carries no
// dependence from one work-item to the next, and saying so lets LLVM's
// vectoriser widen it without run-time overlap checks (a tree
// reduction's l[lid] += l[lid + s] failed such a check and ran scalar).
// The claim is made only for accesses whose memory is not private to one
// run of the region: a private variable of the region function becomes
// one alloca of the work-group function after inlining, reused by every
// work-item, so its accesses (and those through pointers whose object
// cannot be seen) keep LLVM's own analysis, and then the loop as a whole
// is not marked parallel. Atomics and calls are never marked. Returns
// the access group, or null if fn touches no memory that qualifies.
static MDNode *mark_parallel_accesses(Function *fn) {
  LLVMContext &ctx = fn->getContext();
  MDNode *group = nullptr;
  for (BasicBlock &bb : *fn)
    for (Instruction &i : bb) {
      Value *ptr = nullptr;
      if (auto *ld = dyn_cast<LoadInst>(&i))
        ptr = ld->isSimple() ? ld->getPointerOperand() : nullptr;
      else if (auto *st = dyn_cast<StoreInst>(&i))
        ptr = st->isSimple() ? st->getPointerOperand() : nullptr;
      if (!ptr)
        continue;
      const Value *base = getUnderlyingObject(ptr, 0);
      if (!isa<Argument>(base) && !isa<GlobalVariable>(base) &&
          !isa<LoadInst>(base))
        continue;
      if (!group)
        group = MDNode::getDistinct(ctx, {});
      i.setMetadata(LLVMContext::MD_access_group, group);
    }
  return group;
}

// How many vectors of work-items a region's loop should interleave: a
// long arithmetic body (clpeak's) is one dependent chain per work-item,
// and LLVM's cost model interleaves only small loops. Four vectors (64
// work-items at 16 floats) hide the latency of float chains; a double
// vector holds half as many work-items, so double bodies get twice the
// vectors (on the 16-core Xeon, 4 left clpeak's double 30 % below what
// 64 work-items at once gave), and long integer bodies get the same as
// float. c.interleave is the base count (SKEIN_INTERLEAVE). The regions
// of a cut kernel loop (clpeak's) take the count vector_plan.c chose
// from the target for the loop's body as it is: every region with a
// dozen or more operations.
static unsigned chains_for(const Cutter &c, Function *fn) {
  unsigned fp = 0, dbl = 0, ints = 0;
  for (BasicBlock &bb : *fn)
    for (Instruction &i : bb) {
      Type *t = i.getType()->getScalarType();
      bool arith = isa<BinaryOperator>(i) || isa<CallInst>(i);
      if (!arith)
        continue;
      fp += t->isFloatingPointTy();
      dbl += t->isDoubleTy();
      ints += t->isIntegerTy(32) || t->isIntegerTy(64);
    }
  if (c.loop_regions)
    return fp >= 12 || ints >= 12 ? c.interleave : 1;
  if (c.interleave <= 1 || (fp < 32 && ints < 64))
    return 1;
  return dbl >= 32 ? std::min(2 * c.interleave, 8u) : c.interleave;
}

// The most work-items one trip of an interleaved region loop takes: 8
// vectors of 16 (float on AVX-512); the narrower targets' trips divide it.
enum { WIDE_TRIP_ITEMS = 128 };

// Gives the work-item loop of latch its loop ID: the parallel accesses of
// group (may be null), an interleave count (1: none), a vector width
// (0 or 1: LLVM's choice) and an unroll count (1: LLVM's choice).
static void set_loop_id(Instruction *latch, MDNode *group,
                        unsigned interleave, unsigned width,
                        unsigned unroll = 1) {
  LLVMContext &ctx = latch->getContext();
  std::vector<Metadata *> props;
  if (group)
    props.push_back(MDNode::get(
        ctx, {MDString::get(ctx, "llvm.loop.parallel_accesses"), group}));
  if (interleave > 1)
    props.push_back(MDNode::get(
        ctx, {MDString::get(ctx, "llvm.loop.interleave.count"),
              ConstantAsMetadata::get(ConstantInt::get(
                  Type::getInt32Ty(ctx), interleave))}));
  if (width > 1)
    props.push_back(MDNode::get(
        ctx, {MDString::get(ctx, "llvm.loop.vectorize.width"),
              ConstantAsMetadata::get(
                  ConstantInt::get(Type::getInt32Ty(ctx), width))}));
  if (unroll > 1)
    props.push_back(MDNode::get(
        ctx, {MDString::get(ctx, "llvm.loop.unroll.count"),
              ConstantAsMetadata::get(
                  ConstantInt::get(Type::getInt32Ty(ctx), unroll))}));
  if (!props.empty())
    set_loop_properties(latch, props);
}

// One x range of a region's work-item loops: region function fn runs
// for the work-items whose x id is in [from, to) (see split_at_guard).
struct XPart {
  Function *fn;
  Value *from, *to;
};

// Emits z, y, x loops at b calling each part's region function for its
// work-items' x ids (all of them, or a strip's: see build_driver), in
// increasing linear id order (which the collectives need); leaves b
// after the loops and returns each part's x loop latch branch. One part
// is a do-while loop over a range known not to be empty; with two, each
// x loop is skipped where its range is.
static std::vector<Instruction *>
emit_loops(IRBuilder<> &b, ArrayRef<XPart> parts, Value *ls[3], Value *n,
           ArrayRef<Value *> fixed, std::vector<CallInst *> &calls) {
  Function *wg = b.GetInsertBlock()->getParent();
  LLVMContext &ctx = wg->getContext();
  BasicBlock *pre = b.GetInsertBlock();
  BasicBlock *head[3], *latch[3];
  for (int d = 2; d >= 1; d--)
    head[d] = BasicBlock::Create(ctx, "r.head", wg);
  for (int d = 1; d < 3; d++)
    latch[d] = BasicBlock::Create(ctx, "r.latch", wg);
  BasicBlock *exit = BasicBlock::Create(ctx, "r.exit", wg);
  b.CreateBr(head[2]);
  PHINode *id[3];
  for (int d = 2; d >= 1; d--) {
    b.SetInsertPoint(head[d]);
    id[d] = b.CreatePHI(b.getInt64Ty(), 2);
    id[d]->addIncoming(b.getInt64(0), d == 2 ? pre : head[d + 1]);
    if (d > 1)
      b.CreateBr(head[d - 1]);
  }
  // In the y loop's body: each part's x loop in turn.
  std::vector<Instruction *> x_latches;
  for (const XPart &part : parts) {
    BasicBlock *loop = BasicBlock::Create(ctx, "r.head", wg, latch[1]);
    BasicBlock *after = BasicBlock::Create(ctx, "r.part", wg, latch[1]);
    BasicBlock *from = b.GetInsertBlock();
    if (parts.size() > 1)
      b.CreateCondBr(b.CreateICmpULT(part.from, part.to), loop, after);
    else
      b.CreateBr(loop);
    b.SetInsertPoint(loop);
    id[0] = b.CreatePHI(b.getInt64Ty(), 2);
    id[0]->addIncoming(part.from, from);
    Value *lid = b.CreateAdd(
        b.CreateMul(b.CreateAdd(b.CreateMul(id[2], ls[1]), id[1]), ls[0]),
        id[0], "lid");
    std::vector<Value *> args(fixed.begin(), fixed.end());
    args[RP_LX] = id[0];
    args[RP_LY] = id[1];
    args[RP_LZ] = id[2];
    args[RP_LID] = lid;
    args[RP_N] = n;
    calls.push_back(b.CreateCall(part.fn, args));
    Value *nx = b.CreateNUWAdd(id[0], b.getInt64(1));
    id[0]->addIncoming(nx, loop);
    x_latches.push_back(
        b.CreateCondBr(b.CreateICmpULT(nx, part.to), loop, after));
    b.SetInsertPoint(after);
  }
  b.CreateBr(latch[1]);
  for (int d = 1; d < 3; d++) {
    b.SetInsertPoint(latch[d]);
    Value *nx = b.CreateNUWAdd(id[d], b.getInt64(1));
    id[d]->addIncoming(nx, latch[d]);
    b.CreateCondBr(b.CreateICmpULT(nx, ls[d]), head[d],
                   d == 2 ? exit : latch[d + 1]);
  }
  b.SetInsertPoint(exit);
  return x_latches;
}

// ---- regions guarded by the work-item's x id ----
// A tree reduction's region is `if (lid < s) l[lid] += l[lid + s];` for
// an s the same for the whole group: the loop vectoriser made the branch
// a mask, so every round ran masked loads and stores for every
// work-item of the group, s of which did anything (8 rounds of 256
// work-items for 255 additions in groups of 256), and on AVX2 the masked
// store is a slow instruction. Where a region's first branch compares the
// x id with a value every work-item of the group computes alike, the x
// loop is split at that bound: the work-items below it run a clone of the
// region where the comparison is true, the others one where it is false
// (what only those do: the rest of the round's bookkeeping). The
// work-items still run in increasing linear id order, row by row.

// Whether v is get_local_id(0) of the work-item (the x id argument, or
// the helper's call with it).
static bool is_x_id(Function *fn, Value *v) {
  if (v == fn->getArg(RP_LX))
    return true;
  auto *call = dyn_cast<CallInst>(v);
  Function *f = call ? call->getCalledFunction() : nullptr;
  if (!f || f->getName() != "__skein_get_local_id" || call->arg_size() != 5)
    return false;
  auto *dim = dyn_cast<ConstantInt>(call->getArgOperand(4));
  return dim && dim->isZero() && call->getArgOperand(1) == fn->getArg(RP_LX);
}

// The work-item helpers (builtins/workitem.c) whose values are the same
// for every work-item of a group: they ignore the ids passed to them.
static bool group_wide_helper(StringRef name) {
  return name == "__skein_get_work_dim" || name == "__skein_get_global_size" ||
         name == "__skein_get_local_size" ||
         name == "__skein_get_enqueued_local_size" ||
         name == "__skein_get_num_groups" || name == "__skein_get_group_id" ||
         name == "__skein_get_global_offset";
}

// Whether v, in region function fn, has one value for the whole group
// that the work-group function can compute before the region's loops:
// from constants, arguments other than the work-item's ids, group-wide
// helpers, and loads of the uniform values' snapshot (uniform_bytes at
// state_header + uniform_bytes in the state block), which nothing writes
// while the loops run.
static bool hoistable(const Cutter &c, Function *fn, Value *v,
                      unsigned depth = 0) {
  if (isa<Constant>(v))
    return true;
  if (auto *a = dyn_cast<Argument>(v))
    return a->getArgNo() != RP_LX && a->getArgNo() != RP_LY &&
           a->getArgNo() != RP_LZ && a->getArgNo() != RP_LID;
  auto *i = dyn_cast<Instruction>(v);
  if (!i || depth > 8)
    return false;
  if (auto *ld = dyn_cast<LoadInst>(i)) {
    auto *gep = dyn_cast<GetElementPtrInst>(ld->getPointerOperand());
    APInt off(64, 0);
    const DataLayout &dl = fn->getParent()->getDataLayout();
    if (!ld->isSimple() || !gep ||
        gep->getPointerOperand() != fn->getArg(RP_NEXT) ||
        !gep->accumulateConstantOffset(dl, off))
      return false;
    uint64_t snap = state_header + c.uniform_bytes;
    uint64_t size = dl.getTypeStoreSize(ld->getType());
    return off.getZExtValue() >= snap &&
           off.getZExtValue() + size <= snap + c.uniform_bytes;
  }
  if (auto *call = dyn_cast<CallInst>(i)) {
    Function *f = call->getCalledFunction();
    if (!f || !group_wide_helper(f->getName()))
      return false;
    for (unsigned k = 0; k < call->arg_size(); k++)
      if (k < 1 || k > 3)   // the ids (1-3) are ignored
        if (!hoistable(c, fn, call->getArgOperand(k), depth + 1))
          return false;
    return true;
  }
  if (!isa<BinaryOperator>(i) && !isa<CastInst>(i) && !isa<CmpInst>(i) &&
      !isa<SelectInst>(i))
    return false;
  if (i->mayHaveSideEffects() || i->mayReadFromMemory())
    return false;
  for (Value *op : i->operands())
    if (!hoistable(c, fn, op, depth + 1))
      return false;
  return true;
}

// A copy of hoistable v at b, in the work-group function: fn's arguments
// become the values its calls pass (fixed), the ids 0.
static Value *hoist(IRBuilder<> &b, Function *fn, Value *v,
                    ArrayRef<Value *> fixed, Value *n) {
  if (auto *a = dyn_cast<Argument>(v))
    return a->getArgNo() == RP_N ? n : fixed[a->getArgNo()];
  auto *i = dyn_cast<Instruction>(v);
  if (!i)
    return v;
  Instruction *copy = i->clone();
  for (unsigned k = 0; k < copy->getNumOperands(); k++) {
    Value *op = copy->getOperand(k);
    if (isa<CallInst>(i) && k >= 1 && k <= 3)   // ids the helper ignores
      copy->setOperand(k, b.getInt64(0));
    else if (isa<Instruction>(op) || isa<Argument>(op))
      copy->setOperand(k, hoist(b, fn, op, fixed, n));
  }
  return b.Insert(copy);
}

// Region function fn's guard on the x id: the first conditional branch
// (from the entry, through unconditional ones) on x < U or U > x (x <=
// and >= too) with a hoistable U. Returns the comparison, and in *bound
// the x at which it turns (computed at b) and in *below whether it holds
// below the bound; null if there is none.
static ICmpInst *x_guard(IRBuilder<> &b, const Cutter &c, Function *fn,
                         ArrayRef<Value *> fixed, Value *n, Value **bound,
                         bool *below) {
  BasicBlock *bb = &fn->getEntryBlock();
  for (unsigned steps = 0; steps < 4; steps++) {
    auto *br = dyn_cast<BranchInst>(bb->getTerminator());
    if (!br)
      return nullptr;
    if (br->isUnconditional()) {
      bb = br->getSuccessor(0);
      continue;
    }
    auto *cmp = dyn_cast<ICmpInst>(br->getCondition());
    if (!cmp || !cmp->getOperand(0)->getType()->isIntegerTy(64))
      return nullptr;
    ICmpInst::Predicate p = cmp->getPredicate();
    Value *u = cmp->getOperand(1);
    if (is_x_id(fn, cmp->getOperand(1))) {
      p = ICmpInst::getSwappedPredicate(p);
      u = cmp->getOperand(0);
    } else if (!is_x_id(fn, cmp->getOperand(0))) {
      return nullptr;
    }
    if ((p != ICmpInst::ICMP_ULT && p != ICmpInst::ICMP_ULE &&
         p != ICmpInst::ICMP_UGT && p != ICmpInst::ICMP_UGE) ||
        !hoistable(c, fn, u))
      return nullptr;
    // x < B below the bound B: B = U for <, U + 1 for <= (U + 1 > U
    // unless U is the largest value, where every x is below it).
    Value *v = hoist(b, fn, u, fixed, n);
    bool strict = p == ICmpInst::ICMP_ULT || p == ICmpInst::ICMP_UGE;
    if (!strict)
      v = b.CreateSelect(b.CreateICmpEQ(v, b.getInt64(UINT64_MAX)), v,
                         b.CreateAdd(v, b.getInt64(1)));
    *bound = v;
    *below = p == ICmpInst::ICMP_ULT || p == ICmpInst::ICMP_ULE;
    return cmp;
  }
  return nullptr;
}

// The parts of region fn's x loop over [x0, x_end): two if fn has a
// guard on the x id (the clones they call are added to clones), else
// one.
static std::vector<XPart> split_at_guard(IRBuilder<> &b, const Cutter &c,
                                         Function *fn,
                                         ArrayRef<Value *> fixed, Value *n,
                                         Value *x0, Value *x_end,
                                         std::vector<Function *> &clones) {
  Value *bound = nullptr;
  bool below = false;
  ICmpInst *cmp = x_guard(b, c, fn, fixed, n, &bound, &below);
  if (!cmp || getenv("SKEIN_NO_GUARD_SPLIT"))
    return {{fn, x0, x_end}};
  Value *mid = b.CreateBinaryIntrinsic(
      Intrinsic::umin,
      b.CreateBinaryIntrinsic(Intrinsic::umax, bound, x0), x_end, nullptr,
      "r.bound");
  Function *part[2];
  for (int k = 0; k < 2; k++) {
    ValueToValueMapTy vmap;
    part[k] = CloneFunction(fn, vmap);
    auto *copy = cast<ICmpInst>(vmap[cmp]);
    // Part 0 runs below the bound.
    copy->replaceAllUsesWith(b.getInt1(below == (k == 0)));
    copy->eraseFromParent();
    clones.push_back(part[k]);
  }
  return {{part[0], x0, mid}, {part[1], mid, x_end}};
}

// Replaces the placeholder call in __skein_rwg_K by the state machine
//   state = 0; while (state != END) { for z, y, x: R_state(...); state =
//   next (what the last work-item wrote: barriers are uniform) }
// and inlines every region function into its loop.
bool build_driver(Cutter &c, Function *rwg,
                  std::vector<Function *> &fns) {
  CallInst *ph = nullptr;
  for (BasicBlock &bb : *rwg)
    for (Instruction &i : bb)
      if (auto *call = dyn_cast<CallInst>(&i))
        if (call->getCalledFunction() == c.F)
          ph = call;
  if (!ph)
    return false;   // defensive: wg_gen.c always emits it
  LLVMContext &ctx = rwg->getContext();
  BasicBlock *tail = ph->getParent()->splitBasicBlock(ph, "r.done");
  BasicBlock *pre = tail->getSinglePredecessor();
  pre->getTerminator()->eraseFromParent();
  IRBuilder<> b(pre);
  Value *group = ph->getArgOperand(RP_GROUP);
  Value *ls[3];
  for (unsigned d = 0; d < 3; d++)
    ls[d] = b.CreateLoad(b.getInt64Ty(),
                         group_field(b, c.group_ty, group, G_LOCAL_SIZE,
                                     (int)d));
  Value *n = b.CreateMul(b.CreateMul(ls[0], ls[1]), ls[2], "n");
  if (c.loop_fn) {
    // Too few work-items to fill a vector: the kernel's loops run faster
    // in place, one work-item after another (loop mode's function).
    BasicBlock *small = BasicBlock::Create(ctx, "r.small", rwg, tail);
    BasicBlock *big = BasicBlock::Create(ctx, "r.big", rwg, tail);
    b.CreateCondBr(b.CreateICmpULT(n, b.getInt64(min_vector_group)), small,
                   big);
    b.SetInsertPoint(small);
    std::vector<Value *> wg_args;
    for (Argument &a : rwg->args())
      wg_args.push_back(&a);
    b.CreateCall(c.loop_fn, wg_args);
    b.CreateBr(tail);
    b.SetInsertPoint(big);
    pre = big;
  }
  std::vector<Value *> fixed(ph->arg_begin(), ph->arg_end());
  if (!c.slot_sizes.empty()) {
    // One array of n elements per context slot, and the table of their
    // addresses the region functions read (see place()).
    IRBuilder<> eb(&rwg->getEntryBlock(), rwg->getEntryBlock().begin());
    ArrayType *table_ty = ArrayType::get(b.getPtrTy(), c.slot_sizes.size());
    AllocaInst *table = eb.CreateAlloca(table_ty, nullptr, "context");
    for (size_t k = 0; k < c.slot_sizes.size(); k++) {
      // Each array padded by a different number of cache lines: arrays a
      // multiple of 4 KiB apart (1024 floats) put the same work-item's
      // slots at addresses alike in their low 12 bits, and the core then
      // takes a load for a read of a pending store to another slot (4K
      // aliasing: a float16 kernel ran 5x slower).
      AllocaInst *slot = b.CreateAlloca(
          b.getInt8Ty(),
          b.CreateAdd(b.CreateMul(n, b.getInt64(c.slot_sizes[k])),
                      b.getInt64(64 * (1 + k % 16))),
          "slot");
      slot->setAlignment(Align(std::max<uint64_t>(c.slot_aligns[k], 64)));
      b.CreateStore(slot, b.CreateConstInBoundsGEP2_32(table_ty, table, 0,
                                                       (unsigned)k));
    }
    fixed[RP_CTX] = table;
  }
  if (c.has_collective)
    collective_setup(b, c, group, n);
  IRBuilder<> eb(&rwg->getEntryBlock(), rwg->getEntryBlock().begin());
  AllocaInst *state_block = eb.CreateAlloca(
      ArrayType::get(b.getInt8Ty(), state_header + 2 * c.uniform_bytes),
      nullptr, "state");
  state_block->setAlignment(Align(c.ctx_align));
  fixed[RP_NEXT] = state_block;   // the next region's number comes first
  // Zeroed, so that a uniform value's first snapshot is 0, not undef:
  // LLVM promotes the block to registers, and a phi of undef keeps
  // scalar evolution from seeing that a stride like a tree reduction's
  // is positive (its loop then kept a failing overlap check: 5x slower).
  b.CreateMemSet(state_block, b.getInt8(0),
                 state_header + 2 * c.uniform_bytes, Align(c.ctx_align));
  // A barrier-free kernel's implicit barriers order nothing: any split of
  // the group into strips of work-items that each run every region is an
  // interleaving the kernel could have had. Strips of a few vectors keep
  // the context of the work-items in flight in the L1 cache (groups of
  // 1024 work-items carrying 32 floats each ran 20-30 % slower whole).
  Value *x0 = b.getInt64(0), *x_end = ls[0];
  BasicBlock *done = tail;
  if (c.loop_regions) {
    uint64_t per_strip = c.ctx_bytes ? 16384 / c.ctx_bytes : 256;
    uint64_t strip = 64 * std::max<uint64_t>(1, std::min<uint64_t>(
                                                    4, per_strip / 64));
    BasicBlock *strip_head = BasicBlock::Create(ctx, "r.strip", rwg, tail);
    done = BasicBlock::Create(ctx, "r.strip.next", rwg, tail);
    b.CreateBr(strip_head);
    b.SetInsertPoint(strip_head);
    PHINode *phi = b.CreatePHI(b.getInt64Ty(), 2, "x0");
    phi->addIncoming(b.getInt64(0), pre);
    x0 = phi;
    x_end = b.CreateBinaryIntrinsic(Intrinsic::umin,
                                    b.CreateAdd(phi, b.getInt64(strip)),
                                    ls[0], nullptr, "x_end");
    pre = strip_head;
    IRBuilder<> nb(done);
    phi->addIncoming(x_end, done);
    nb.CreateCondBr(nb.CreateICmpULT(x_end, ls[0]), strip_head, tail);
  }
  BasicBlock *head = BasicBlock::Create(ctx, "r.state", rwg, tail);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  PHINode *state = b.CreatePHI(b.getInt32Ty(), fns.size() + 1, "state");
  state->addIncoming(b.getInt32(0), pre);
  SwitchInst *sw = b.CreateSwitch(state, done, fns.size());
  std::vector<CallInst *> calls;
  std::vector<Function *> clones;   // split_at_guard's
  for (unsigned r = 0; r < fns.size(); r++) {
    BasicBlock *bb = BasicBlock::Create(ctx, "r.region", rwg, tail);
    sw->addCase(b.getInt32(r), bb);
    b.SetInsertPoint(bb);
    if (c.uniform_bytes)   // snap = cur: the values at the cut
      b.CreateMemCpy(b.CreateConstInBoundsGEP1_64(
                         b.getInt8Ty(), state_block,
                         state_header + c.uniform_bytes),
                     Align(c.ctx_align),
                     b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), state_block,
                                                  state_header),
                     Align(c.ctx_align), c.uniform_bytes);
    bool collective = c.collective_starts.count(c.regions[r].start);
    std::vector<XPart> parts =
        collective ? std::vector<XPart>{{fns[r], x0, x_end}}
                   : split_at_guard(b, c, fns[r], fixed, n, x0, x_end,
                                    clones);
    // An interleaved region loop takes IC vectors of work-items a trip
    // (128 floats at 8 x 16 on AVX-512): a group of 64 never entered
    // it, and ran LLVM's epilogue, one vector at a time, at a fifth of
    // the peak (the 16-core Xeon, clpeak's float body, 2026-11-26). The
    // strip's x range is split at its last multiple of WIDE_TRIP_ITEMS:
    // the first part runs the wide loop, the rest a loop of half the
    // interleave. SKEIN_NO_NARROW_TAIL=1 keeps one loop, to measure.
    std::vector<unsigned> part_chains;
    for (const XPart &part : parts)
      part_chains.push_back(!collective && cc_vectorize_wanted()
                                ? chains_for(c, part.fn)
                                : 1);
    if (parts.size() == 1 && part_chains[0] > 1 &&
        !cc_env_switch("SKEIN_NO_NARROW_TAIL")) {
      Value *wide_end = b.CreateAdd(
          x0, b.CreateAnd(b.CreateSub(x_end, x0),
                          b.getInt64(~(uint64_t)(WIDE_TRIP_ITEMS - 1))));
      parts = {{fns[r], x0, wide_end}, {fns[r], wide_end, x_end}};
      part_chains.push_back(std::max(1u, part_chains[0] / 2));
    }
    std::vector<Instruction *> x_latches =
        emit_loops(b, parts, ls, n, fixed, calls);
    for (size_t k = 0; k < parts.size(); k++) {
      if (collective) {
        keep_scalar(x_latches[k]);
        continue;
      }
      Function *fn = parts[k].fn;
      set_loop_id(x_latches[k], mark_parallel_accesses(fn), part_chains[k],
                  cc_vectorize_wanted() && c.loop_regions ? c.width : 0,
                  cc_vectorize_wanted() && c.loop_regions ? c.unroll : 1);
    }
    auto step = c.group_steps.find(c.regions[r].start);
    if (step != c.group_steps.end())
      emit_group_step(b, c, step->second, group, n);
    auto xstep = c.exchange_steps.find(c.regions[r].start);
    if (xstep != c.exchange_steps.end())
      emit_exchange_step(b, c, xstep->second, group, n);
    state->addIncoming(b.CreateLoad(b.getInt32Ty(), fixed[RP_NEXT]),
                       b.GetInsertBlock());
    b.CreateBr(head);
  }
  ph->eraseFromParent();
  for (CallInst *call : calls) {
    InlineFunctionInfo ifi;
    InlineFunction(*call, ifi);
  }
  for (Function *f : clones)
    f->eraseFromParent();
  return true;
}

} // namespace skein_region
