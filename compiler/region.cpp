// This file contains region mode: a barrier kernel cut at its barriers
// and collectives into regions, each run as a loop over the work-items
// (vectorised like loop mode), with the values that live across a cut
// kept in a per-group context block. C++ because the LLVM C API has no
// block splitting, post-dominator tree, reg2mem-style demotion of a
// value's uses, function cloning with a value map, inlining of one call,
// or verifier of one function.
//
// The input is __skein_ri_K (wg_gen.c) after inlining, lowering and SROA:
// one work-item of the kernel, taking the group, its local ids, local
// memory, the context block (ctx), its linear local id (lid), the group
// size (n), where to write the next region (next), then the kernel's
// arguments. Barrier calls become cuts; a collective call becomes a region
// of its own (every work-item deposits, the last computes: the library's
// __skein_ctx_ function with a barrier hook that does nothing) followed by
// a cut after which each work-item reads its result. A value used across
// a cut is recomputed there if it is cheap, else stored: in one slot if
// it is the same for the whole group (a loop counter), else in one slot
// per work-item. The body is cloned once per region, and __skein_rwg_K
// runs the clones as a state machine of z/y/x loops (see build_driver).
#include "region_internal.h"
#include "group_records.h"
#include "unrolled_whole.h"

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/OptimizationRemarkEmitter.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LCSSA.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Utils/UnrollLoop.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace llvm;
using namespace skein_region;

// Region mode is tried by default for barrier kernels; SKEIN_MODE=fiber
// keeps fiber mode, SKEIN_MODE=region asks for region mode explicitly.
static const bool region_default = true;

extern "C" {
thread_local bool cc_region_used = false, cc_region_off = false;
}

extern "C" bool cc_region_wanted(void) {
  if (cc_region_off)
    return false;   // the retry after a crashed build (build.c guarded)
  const char *mode = getenv("SKEIN_MODE");
  if (mode && strcmp(mode, "region") == 0)
    return true;
  if (mode && (strcmp(mode, "fiber") == 0 || strcmp(mode, "loop") == 0))
    return false;
  return region_default;
}

// The context block is a stack array in the work-group function: per
// work-item bytes times the largest group (1024) must stay well inside
// the stack of whichever thread runs the group (256 KiB of 8 MiB).
static const uint64_t max_group = 1024;
static const uint64_t max_ctx_block = 256 * 1024;


// The barrier builtins' __skein_ctx_ forms (builtins/sync.c), and
// sub_group_barrier's (builtins/subgroups.c): a cut that all work-items
// of the group reach (syncs_uniform) waits for more than the sub-group.
static bool is_barrier_name(StringRef name) {
  return name == "__skein_ctx__Z7barrierj" ||
         name.starts_with("__skein_ctx__Z18work_group_barrierj") ||
         name.starts_with("__skein_ctx__Z17sub_group_barrierj");
}

// Classifies a call of a __skein_ctx_ function; false if region mode does
// not know it.
static bool classify(CallInst *call, StringRef name, Sync *s) {
  s->call = call;
  s->collective = false;
  s->group_wide = false;
  s->sub_group = false;
  s->group_step = false;
  s->exchange = NONE;
  s->uniform_arg = false;
  if (is_barrier_name(name))
    return true;
  // Exchanges (read_exchange) of scalars: each reads another lane's slot.
  if ((s->exchange = parse_exchange(name)) != NONE) {
    s->collective = true;
    s->sub_group = true;
    Type *t = call->getType();
    return (t->isIntegerTy() && t->getIntegerBitWidth() <= 64) ||
           t->isFloatTy() || t->isDoubleTy();
  }
  // Sub-group reductions, scans, all and any, non-uniform ones included
  // (region mode runs them only where every work-item reaches them,
  // syncs_uniform, so they are the uniform ones): group steps
  // (region_collective.cpp). Other sub-group functions, and these of
  // types the steps do not take, make region mode decline.
  static const char *const sub_kinds[] = {
      "sub_group_non_uniform_", "sub_group_clustered_reduce_",
      "sub_group_reduce_", "sub_group_scan_", "sub_group_all",
      "sub_group_any"};
  for (const char *k : sub_kinds)
    if (name.contains(k)) {
      if (!parse_group_step(call, name, true, &s->step))
        return false;
      s->collective = s->sub_group = s->group_step = true;
      return true;
    }
  static const char *const kinds[] = {"work_group_reduce_",
                                      "work_group_scan_", "work_group_all",
                                      "work_group_any",
                                      "work_group_broadcast"};
  for (const char *k : kinds)
    if (name.contains(k)) {
      s->collective = true;
      s->group_wide = strcmp(k, "work_group_scan_") != 0;
      s->group_step = parse_group_step(call, name, false, &s->step);
      Type *t = call->getType();
      return t->isIntegerTy(32) || t->isIntegerTy(64) || t->isFloatTy() ||
             t->isDoubleTy();
    }
  return false;
}

// Finds the barriers and collectives and checks that nothing else stands
// in the way (variable-length allocas, calls that could still reach a
// barrier, unusual control flow).
static bool scan(Cutter &c) {
  for (BasicBlock &bb : *c.F)
    for (Instruction &i : bb) {
      if (auto *a = dyn_cast<AllocaInst>(&i)) {
        if (!a->isStaticAlloca()) {
          c.why = "variable-length private array";
          return false;
        }
        continue;
      }
      if (isa<InvokeInst>(i) || isa<CallBrInst>(i) || isa<IndirectBrInst>(i)) {
        c.why = "unusual control flow";
        return false;
      }
      auto *call = dyn_cast<CallInst>(&i);
      if (!call)
        continue;
      Function *callee = call->getCalledFunction();
      if (!callee) {
        c.why = "indirect call";
        return false;
      }
      StringRef name = callee->getName();
      // printf (compiler/printf_lower.c), the bounds checks
      // (bounds_check.cpp) and device-side enqueue (device_enqueue.c)
      // need the group, not a cut.
      if (name == "__skein_ctx___skein_printf" ||
          name.starts_with("__skein_ctx___skein_bounds_") ||
          cc_is_device_enqueue_builtin(name.str().c_str()))
        continue;
      // Named barriers wait for a count of sub-groups, which no cut
      // between regions can express (builtins/named_barrier.c).
      if (name.starts_with("__skein_ctx___spirv_") &&
          name.contains("NamedBarrier")) {
        c.why = ("named barrier " + name.drop_front(12) +
                 ": only fiber mode waits for a count of sub-groups")
                    .str();
        return false;
      }
      if (name == "__skein_ctx___skein_yield") {
        c.why = "a loop waits for another work-item: it yields to the "
                "other sub-groups (forward_progress.c)";
        return false;
      }
      if (name.starts_with("__skein_ctx_")) {
        Sync s;
        if (!classify(call, name, &s)) {
          c.why = ("group builtin " + name + " not handled").str();
          return false;
        }
        c.has_collective |= s.collective;
        // A 64-bit sub-group value makes every sub-group slot 8 bytes
        // (sub_slot_type), a 64-bit work-group step every work-group
        // step's (group_slot_type).
        c.wide_sub_slots |=
            s.sub_group && call->getType()->getScalarSizeInBits() > 32;
        c.wide_group_slots |= s.group_step && !s.sub_group &&
                              call->getType()->getScalarSizeInBits() > 32;
        c.syncs.push_back(s);
      } else if (!callee->isDeclaration() &&
                 callee->hasFnAttribute("skein-workitem")) {
        c.why = ("call of " + name + " not inlined").str();
        return false;
      }
    }
  return true;
}

// ---- barrier-free kernels with loops of their own ----
// A kernel loop inside the work-item loop keeps LLVM's loop vectoriser
// from running work-items in SIMD lanes: it widens innermost loops only.
// Region mode turns the nest inside out: a barrier at the head of the
// kernel's loop makes each iteration a region, run for every work-item in
// a work-item loop that is innermost and vectorised with LLVM's ordinary,
// checked vectoriser (the approach of PoCL's implicit loop barriers).
//
// Why this is sound: work-items that do not synchronise may run in any
// interleaving, so "every work-item runs iteration k before any runs
// iteration k + 1" is one the kernel could have had; a kernel whose
// result depends on the interleaving has a data race (undefined). What
// region mode needs is that every work-item of the group meets the
// inserted barrier equally often, so the barrier is placed only in loops
// that every work-item reaches (the header is not under a branch on a
// value that may differ between work-items) and whose every exit test is
// the same for the whole group (find_divergent: computed from arguments,
// constants, group-wide work-item queries such as get_num_groups, and
// other such values; never from memory).

// The declaration of the barrier's group-aware form (builtins/sync.c),
// which scan() and split() treat as any barrier.
static Function *barrier_decl(Module *m) {
  LLVMContext &ctx = m->getContext();
  FunctionType *ty = FunctionType::get(
      Type::getVoidTy(ctx), {PointerType::get(ctx, 0), Type::getInt32Ty(ctx)},
      false);
  return cast<Function>(
      m->getOrInsertFunction("__skein_ctx__Z7barrierj", ty).getCallee());
}

// A loop LLVM unrolls whole (unrolled_whole.h) is not cut: it becomes
// straight-line code, and the work-item loop around it innermost, before
// the loop vectoriser runs. Cut instead, its few operations per trip sat
// between a load and a store of the work-item's context, and a pointer
// read back from the context could not be seen to step with the work-item
// any more: clpeak's global reads (a loop of 4 trips of 4 loads) became
// gathers, 15 GB/s for float against 44 for float16 on the 2-core Zen 5.
// The loops are measured before the vector plan splits the body into
// lanes (cc_region_finish): split, a float4 loop has four times the
// instructions, and clpeak's float4 read was cut into regions whose loads
// became gathers, though LLVM still unrolls it whole.
static void find_unrolled_whole(Cutter &c) {
  skein_loops::LoopAnalyses a(*c.F);
  for (Loop *l : a.li.getLoopsInPreorder())
    if (skein_loops::unrolled_whole(l, a.se))
      c.unrolled_whole.insert(l->getHeader());
}

// Whether f has exactly one outermost loop, the one loop mode's
// unroll-and-jam can fuse (cc_set_loop_unroll_and_jam), and it writes no
// memory: LLVM fuses copies only where it proves them independent, and a
// store it cannot tell apart from the other work-items' would leave each
// work-item's loop to run alone, where region mode's unrolled trips at
// least overlap in the out-of-order window.
static bool one_jammable_loop(Function *f) {
  DominatorTree dt(*f);
  LoopInfo li(dt);
  if (li.getTopLevelLoops().size() != 1)
    return false;
  for (BasicBlock *bb : li.getTopLevelLoops()[0]->blocks())
    for (Instruction &i : *bb)
      if (isa<StoreInst>(i) || i.isAtomic() || isa<MemIntrinsic>(i))
        return false;
  return true;
}

// Instructions a cut loop's trip should have at least per value it
// carries: each trip of a cut loop is a region, whose work-item loop
// loads the values the kernel's loop carries (its header's phis) from
// the context block and stores them back. clpeak's compute loop carries
// 2 floats (and its counter) through 16 multiply-adds a trip: on the
// 16-core Xeon (AVX-512, 2026-11-26, three rounds) it ran at 1785-2115
// GFLOPS float and 837-1019 double as written, and at 2100-2450 and
// 1109-1157 with its body repeated 4 times a trip (the machine's FMA
// peak: 2274-2575 and 1181-1261): the round trip through memory and the
// work-item loop's own overhead cost a fifth of the peak at 8
// instructions per carried value. A split float4 (8 lanes carried) has
// the same ratio. MAX_CUT_TRIP_INSTRUCTIONS bounds the code growth.
enum {
  MIN_CUT_INSTRUCTIONS_PER_CARRIED = 24,
  MAX_CUT_TRIP_INSTRUCTIONS = 1024,
  MAX_CUT_UNROLL = 8
};

// Unrolls each innermost loop of a constant trip count that is short for
// what it carries (fewer than MIN_CUT_INSTRUCTIONS_PER_CARRIED
// instructions a trip per header phi) by the smallest power of two that
// makes a trip long enough (at most MAX_CUT_UNROLL, and
// MAX_CUT_TRIP_INSTRUCTIONS a trip) and divides the trip count, so that
// no remainder loop is needed: the loop is cut at its head afterwards as
// before, each region doing that many of the kernel's trips per context
// round trip. Loops LLVM unrolls whole are left alone (they are not
// cut). SKEIN_CUT_UNROLL=1 turns this off, to measure it.
static void unroll_short_cut_loops(Cutter &c) {
  if (cc_env_switch("SKEIN_CUT_UNROLL"))
    return;
  skein_loops::LoopAnalyses a(*c.F);
  DominatorTree &dt = a.dt;
  LoopInfo &li = a.li;
  AssumptionCache &ac = a.ac;
  ScalarEvolution &se = a.se;
  std::vector<Loop *> loops;
  for (Loop *l : li.getLoopsInPreorder())
    if (l->isInnermost() && !c.unrolled_whole.count(l->getHeader()) &&
        !skein_loops::has_unroll_hint(l))
      loops.push_back(l);
  TargetTransformInfo tti(c.F->getParent()->getDataLayout());
  for (Loop *l : loops) {
    unsigned size = 0;
    for (BasicBlock *bb : l->blocks())
      size += (unsigned)bb->sizeWithoutDebug();
    auto phis = l->getHeader()->phis();
    unsigned carried = (unsigned)std::distance(phis.begin(), phis.end());
    unsigned want = MIN_CUT_INSTRUCTIONS_PER_CARRIED * carried;
    unsigned trips = se.getSmallConstantTripCount(l);
    if (size == 0 || size >= want || trips < 3)
      continue;
    if (!simplifyLoop(l, &dt, &li, &se, &ac, nullptr, false) &&
        !l->isLoopSimplifyForm())
      continue;
    // A loop as the front end writes it tests at its head, which runs
    // once more than the body: the unroll count must divide the body's
    // trips, so that only the first copy keeps the test and the copies
    // run straight through. (Rotated first, the test would sit at the
    // end of the region, whose exit path then kept its work-item loop
    // from vectorising.)
    BasicBlock *exiting = l->getExitingBlock();
    if (!exiting)
      continue;
    if (exiting == l->getHeader() && exiting != l->getLoopLatch())
      trips--;
    else if (exiting != l->getLoopLatch())
      continue;
    if (trips < 2)
      continue;
    unsigned count = 1;
    while (count < MAX_CUT_UNROLL && count * size < want &&
           2 * count * size <= MAX_CUT_TRIP_INSTRUCTIONS)
      count *= 2;
    while (count > 1 && trips % count != 0)
      count /= 2;
    if (count < 2)
      continue;
    formLCSSARecursively(*l, dt, &li, &se);
    OptimizationRemarkEmitter ore(c.F);
    UnrollLoopOptions opts{};
    opts.Count = count;
    opts.Force = true;
    opts.Runtime = false;
    opts.AllowExpensiveTripCount = false;
    opts.UnrollRemainder = false;
    opts.ForgetAllSCEV = true;
    UnrollLoop(l, opts, &li, &se, &dt, &ac, &tti, &ore, true);
  }
}

// Puts a barrier at the head of every loop that all work-items of a group
// run equally often (see above), except loops LLVM unrolls whole; false,
// with c.why, if there is none.
static bool cut_loops(Cutter &c) {
  // A kernel with atomics may make one work-item wait for another (a
  // lock taken before a loop and released after it): cut, the others
  // would spin at the lock while its holder waits at the loop's barrier.
  for (BasicBlock &bb : *c.F)
    for (Instruction &i : bb)
      if (i.isAtomic() && !isa<FenceInst>(i)) {
        c.why = "atomics: work-items keep their own order";
        return false;
      }
  unroll_short_cut_loops(c);
  DenseSet<BasicBlock *> some;
  divergently_executed(c, some);
  DominatorTree dt(*c.F);
  LoopInfo li(dt);
  std::vector<BasicBlock *> headers;
  for (Loop *l : li.getLoopsInPreorder()) {
    if (c.unrolled_whole.count(l->getHeader()))
      continue;
    bool uniform = !some.count(l->getHeader());
    SmallVector<BasicBlock *, 4> exiting;
    l->getExitingBlocks(exiting);
    for (BasicBlock *e : exiting) {
      Value *cond = branch_condition(e);
      uniform &= cond && !c.divergent.count(cond);
    }
    if (uniform)
      headers.push_back(l->getHeader());
  }
  c.divergent.clear();   // demote() computes it again, after the cuts
  if (headers.empty()) {
    c.why = "no loop runs equally often in every work-item";
    return false;
  }
  Function *barrier = barrier_decl(c.F->getParent());
  Value *args[] = {c.F->getArg(RP_GROUP),
                   ConstantInt::get(Type::getInt32Ty(c.F->getContext()), 1)};
  for (BasicBlock *h : headers)
    CallInst::Create(barrier, args, "", h->getFirstInsertionPt());
  return true;
}

// The driver runs a region for every work-item, then the region the
// last work-item's cut names: sound only if every work-item meets the
// same barriers and collectives in the same order, which the spec asks of
// kernels (a barrier in a branch or loop must be reached by all or none
// of the group) but which kernels break, most often with an early return
// of the work-items past the end of the data. Fiber mode lets the
// remaining work-items carry on; region mode would skip them. So a kernel
// any of whose barriers or collectives lies where only some work-items
// may go (under a branch on a value that may differ between them, or
// after such a return) runs in fiber mode.
static bool syncs_uniform(Cutter &c) {
  if (c.loop_regions)
    return true;   // its only barriers are cut_loops', placed so
  DenseSet<BasicBlock *> some;
  divergently_executed(c, some);
  // An exchange whose lane (or delta) is the same for the whole group
  // reads lanes at fixed distances from its own (read_exchange).
  for (Sync &s : c.syncs)
    if (s.exchange != NONE && s.call->arg_size() > 2)
      s.uniform_arg = !c.divergent.count(s.call->getArgOperand(2));
  c.divergent.clear();   // demote() computes it again, after the cuts
  for (Sync &s : c.syncs)
    if (some.count(s.call->getParent())) {
      c.why = "a barrier or collective that only some work-items may "
              "reach";
      return false;
    }
  return true;
}

// The region of a work-group collective that is not a group step
// (work_group_broadcast): each work-item deposits its value in its slot
// (slot lid of skein_group.collective), the last work-item calls the
// library's collective with its ids in the group (it deposits again,
// computes and, through its barrier hook that does nothing, goes on),
// and after the cut each work-item reads the result from slot n.
static void deposit_call_read(Cutter &c, Sync &s, BasicBlock *after,
                              Value *last) {
  Function *F = c.F;
  Value *g = F->getArg(RP_GROUP);
  CallInst *call = s.call;
  IRBuilder<> b(call);
  Value *slots_here = b.CreateLoad(
      b.getPtrTy(), group_field(b, c.group_ty, g, G_COLLECTIVE));
  b.CreateStore(call->getArgOperand(1),
                b.CreateInBoundsGEP(b.getInt64Ty(), slots_here,
                                    F->getArg(RP_LID)));
  Instruction *then = SplitBlockAndInsertIfThen(last, call, false);
  call->moveBefore(then);
  b.SetInsertPoint(call);
  for (unsigned d = 0; d < 3; d++)
    b.CreateStore(F->getArg(RP_LX + d),
                  group_field(b, c.group_ty, g, G_LOCAL_ID, (int)d));
  // After the cut: the values of the region before are gone, so the slot
  // index is made again from the arguments.
  b.SetInsertPoint(after, after->getFirstInsertionPt());
  Value *slots = b.CreateLoad(b.getPtrTy(),
                              group_field(b, c.group_ty, g, G_COLLECTIVE),
                              "slots");
  Value *idx = s.group_wide ? F->getArg(RP_N) : F->getArg(RP_LID);
  auto *r = b.CreateLoad(call->getType(),
                         b.CreateInBoundsGEP(b.getInt64Ty(), slots, idx),
                         "collective");
  call->replaceAllUsesWith(r);
  if (s.group_wide)
    c.uniform_loads.insert(r);
}


// A reduction, scan, all or any (region_collective.cpp): each work-item
// deposits its value as a whole slot where it calls the collective, at
// the end of the region before it; the collective's own region keeps
// nothing of the call, and the work-group function computes the results
// after that region's loop (build_driver); after the cut each work-item
// reads its result.
static void split_group_step(Cutter &c, Sync &s, BasicBlock *own,
                             BasicBlock *after) {
  Function *F = c.F;
  Value *g = F->getArg(RP_GROUP);
  CallInst *call = s.call;
  c.group_steps[own] = s.step;
  IRBuilder<> b(after, after->getFirstInsertionPt());
  Value *slots = b.CreateLoad(b.getPtrTy(),
                              group_field(b, c.group_ty, g, G_COLLECTIVE),
                              "slots");
  Value *lid = F->getArg(RP_LID), *n = F->getArg(RP_N);
  Type *slot = s.sub_group ? sub_slot_type(c, call->getType())
                           : group_slot_type(c, call->getType());
  Value *at = s.group_wide  ? b.CreateInBoundsGEP(slot, slots, n)
              : s.sub_group ? sub_slot_at(b, slots, n, slot, lid)
                            : b.CreateInBoundsGEP(slot, slots, lid);
  Value *r = from_slot(b, b.CreateLoad(slot, at), call->getType());
  r->setName(s.sub_group ? "sub_group_result" : "collective");
  call->replaceAllUsesWith(r);
  if (s.group_wide)
    c.uniform_loads.insert(cast<Instruction>(r));
  call->eraseFromParent();
}

// The deposit of a group step's value, placed before the call is split
// off so that it ends the region before.
//
// An exchange deposits in slots of its own (exchange_slots): its read,
// after the cut, takes another work-item's slot, so no exchange's
// deposit may follow it in that region (early_deposits), and a group
// step's deposit that ends the region may (a loop's next collective).
static void deposit_whole_slot(Cutter &c, Sync &s) {
  Function *F = c.F;
  IRBuilder<> b(s.call);
  Value *lid = F->getArg(RP_LID), *n = F->getArg(RP_N);
  Value *slots = b.CreateLoad(
      b.getPtrTy(), group_field(b, c.group_ty, F->getArg(RP_GROUP),
                                G_COLLECTIVE));
  Value *v = s.call->getArgOperand(1);
  if (s.exchange != NONE) {
    Type *slot = sub_slot_type(c, v->getType());
    Value *first =
        b.CreateInBoundsGEP(b.getInt64Ty(), slots, exchange_slots(b, n));
    b.CreateStore(to_slot(b, v, slot),
                  b.CreateInBoundsGEP(slot, first, lid));
    if (is_exchange_step(s) && s.call->arg_size() > 2 &&
        !isa<ConstantInt>(s.call->getArgOperand(2)))
      b.CreateStore(b.CreateZExt(s.call->getArgOperand(2), b.getInt64Ty()),
                    stash_slot(b, slots, n));
  } else if (s.sub_group) {
    Type *slot = sub_slot_type(c, v->getType());
    b.CreateStore(to_slot(b, v, slot), sub_slot_at(b, slots, n, slot, lid));
  } else {
    Type *slot = group_slot_type(c, v->getType());
    b.CreateStore(to_slot(b, v, slot), b.CreateInBoundsGEP(slot, slots, lid));
  }
}

// The exchanges that may deposit at the end of the region before their
// own, as group steps do, instead of in it: those that no exchange's
// read can precede in that region, found walking back from the call to
// the cuts before it (any barrier or collective's call). Where an
// exchange's call is met first, its read (right after that call's cut)
// would share the region with the deposit, and a work-item's deposit
// would overwrite the slot a later work-item still reads (a loop of
// exchanges, or two in a row): those keep the deposit in the own region,
// whose loop then copies the value there from the context block, a pass
// more over the group.
static DenseSet<CallInst *> early_deposits(Cutter &c) {
  DenseMap<CallInst *, const Sync *> sync_of;
  for (const Sync &s : c.syncs)
    sync_of[s.call] = &s;
  DenseSet<CallInst *> early;
  for (const Sync &s : c.syncs) {
    if (s.exchange == NONE)
      continue;
    bool safe = true;
    DenseSet<BasicBlock *> seen;
    // (block, the instruction to scan back from, exclusive)
    std::vector<std::pair<BasicBlock *, Instruction *>> work = {
        {s.call->getParent(), s.call}};
    while (safe && !work.empty()) {
      auto [bb, from] = work.back();
      work.pop_back();
      bool cut = false;
      auto it = from ? from->getIterator() : bb->end();
      while (it != bb->begin()) {
        --it;
        auto *call = dyn_cast<CallInst>(&*it);
        auto at = call ? sync_of.find(call) : sync_of.end();
        if (at == sync_of.end())
          continue;
        safe = at->second->exchange == NONE;
        cut = true;
        break;
      }
      if (cut)
        continue;
      for (BasicBlock *p : predecessors(bb))
        if (seen.insert(p).second)
          work.push_back({p, nullptr});
    }
    if (safe)
      early.insert(s.call);
  }
  return early;
}

// Splits the body at every barrier (the call goes: the cut is the edge
// into the new block) and around every collective (its own region, then
// a cut after which each work-item reads its result from the slots).
static void split(Cutter &c, std::vector<BasicBlock *> &starts) {
  Function *F = c.F;
  DenseSet<CallInst *> early = early_deposits(c);
  for (Sync &s : c.syncs) {
    CallInst *call = s.call;
    if (!s.collective) {
      starts.push_back(SplitBlock(call->getParent(), call));
      call->eraseFromParent();
      continue;
    }
    bool deposited = s.group_step || early.count(call);
    if (deposited)
      deposit_whole_slot(c, s);
    BasicBlock *own = SplitBlock(call->getParent(), call);
    BasicBlock *after = SplitBlock(own, call->getNextNode());
    starts.push_back(own);
    starts.push_back(after);
    if (s.group_step) {
      split_group_step(c, s, own, after);
      continue;
    }
    if (s.exchange != NONE) {
      if (!deposited)
        deposit_whole_slot(c, s);
      if (is_exchange_step(s)) {
        Value *lane =
            call->arg_size() > 2 ? call->getArgOperand(2) : nullptr;
        c.exchange_steps[own] = {
            s.exchange, sub_slot_type(c, call->getType()),
            lane ? dyn_cast<ConstantInt>(lane)
                 : ConstantInt::get(Type::getInt32Ty(F->getContext()), 0)};
      }
      read_exchange(c, s, after);
      continue;
    }
    c.collective_starts.insert(own);
    // Every work-item deposits its value; the last one calls the
    // library's collective once for the group.
    IRBuilder<> b(call);
    Value *last = b.CreateICmpEQ(F->getArg(RP_LID),
                                 b.CreateSub(F->getArg(RP_N), b.getInt64(1)));
    deposit_call_read(c, s, after, last);
  }
}

// Region r's blocks: reachable from its start without crossing a cut.
static void collect(Cutter &c, Region &r) {
  std::vector<BasicBlock *> work = {r.start};
  r.index[r.start] = 0;
  r.blocks.push_back(r.start);
  while (!work.empty()) {
    BasicBlock *bb = work.back();
    work.pop_back();
    auto cut = c.cut_to.find(bb);
    if (cut != c.cut_to.end()) {
      r.next.push_back(cut->second);
      continue;
    }
    for (BasicBlock *s : successors(bb))
      if (r.index.try_emplace(s, (unsigned)r.blocks.size()).second) {
        r.blocks.push_back(s);
        work.push_back(s);
      }
  }
}

// Iterative dominators within the region (the start is its root; a
// region is small, bit vectors are plenty).
static void dominators(Region &r) {
  size_t n = r.blocks.size();
  r.dom.assign(n, BitVector(n, true));
  r.dom[0] = BitVector(n, false);
  r.dom[0].set(0);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 1; i < n; i++) {
      BitVector d(n, true);
      bool any = false;
      for (BasicBlock *p : predecessors(r.blocks[i])) {
        auto it = r.index.find(p);
        if (it == r.index.end())
          continue;   // not run in this region
        d &= r.dom[it->second];
        any = true;
      }
      if (!any)
        d.reset();
      d.set(i);
      if (d != r.dom[i]) {
        r.dom[i] = d;
        changed = true;
      }
    }
  }
}

// True if the value defined in block def reaches a use in block use in
// every run of region r without crossing a cut.
static bool local_to(const Region &r, BasicBlock *def, BasicBlock *use) {
  auto d = r.index.find(def);
  if (d == r.index.end())
    return false;
  return r.dom[r.index.find(use)->second].test(d->second);
}

// Values every region can recompute from the arguments: address
// arithmetic, casts, comparisons and the work-item helpers (pure
// functions of the group and the local ids).
static bool rematerialisable(Value *v, unsigned depth = 0) {
  if (isa<Argument>(v) || isa<Constant>(v))
    return true;
  auto *i = dyn_cast<Instruction>(v);
  if (!i || depth > 8)
    return false;
  if (auto *call = dyn_cast<CallInst>(i)) {
    Function *f = call->getCalledFunction();
    // The work-item queries and an argument's size in bounds-checked
    // mode: pure functions of the group and their arguments.
    if (!f || !(f->getName().starts_with("__skein_get_") ||
                f->getName() == "__skein_ctx___skein_bounds_size"))
      return false;
    for (Value *a : call->args())
      if (!rematerialisable(a, depth + 1))
        return false;
    return true;
  }
  if (!isa<GetElementPtrInst>(i) && !isa<CastInst>(i) &&
      !isa<BinaryOperator>(i) && !isa<CmpInst>(i))
    return false;
  if (i->mayHaveSideEffects() || i->mayReadFromMemory())
    return false;
  for (Value *op : i->operands())
    if (!rematerialisable(op, depth + 1))
      return false;
  return true;
}

// A copy of rematerialisable v (and its operands) placed before at.
static Value *clone_at(Value *v, Instruction *at) {
  auto *i = dyn_cast<Instruction>(v);
  if (!i)
    return v;
  Instruction *copy = i->clone();
  for (unsigned k = 0; k < copy->getNumOperands(); k++)
    if (isa<Instruction>(copy->getOperand(k)))
      copy->setOperand(k, clone_at(copy->getOperand(k), at));
  copy->insertBefore(at);
  return copy;
}

// The block where a use happens (a phi uses at the end of the incoming
// block).
static BasicBlock *use_block(Use &u) {
  auto *user = cast<Instruction>(u.getUser());
  if (auto *phi = dyn_cast<PHINode>(user))
    return phi->getIncomingBlock(u);
  return user->getParent();
}

// True if, within region r, block to can be reached from block from
// (after it) without crossing a cut.
static bool reaches_in(const Cutter &c, const Region &r, BasicBlock *from,
                       BasicBlock *to) {
  std::vector<BasicBlock *> work;
  DenseSet<BasicBlock *> seen;
  auto push_succ = [&](BasicBlock *bb) {
    if (!c.cut_to.count(bb))
      for (BasicBlock *s : successors(bb))
        if (r.index.count(s))
          work.push_back(s);
  };
  push_succ(from);
  while (!work.empty()) {
    BasicBlock *x = work.back();
    work.pop_back();
    if (x == to)
      return true;
    if (seen.insert(x).second)
      push_succ(x);
  }
  return false;
}

// Spills value v for its crossing uses: a store after its definition,
// a load before each such use (at the end of the incoming block for a
// phi, one load per block). Uses within a run of the region keep the
// value itself. Returns the slot the store writes.
static AllocaInst *spill(Cutter &c, Instruction *v,
                         const std::vector<Use *> &uses, bool uniform) {
  IRBuilder<> b(&*c.prologue->begin());
  AllocaInst *cur = b.CreateAlloca(v->getType(), nullptr, "spill");
  AllocaInst *snap = cur;
  if (uniform) {
    snap = b.CreateAlloca(v->getType(), nullptr, "spill.snap");
    c.uniform.push_back({cur, snap});
  } else {
    c.demoted.push_back(cur);
  }
  BasicBlock::iterator at = isa<PHINode>(v)
                                ? v->getParent()->getFirstInsertionPt()
                                : std::next(v->getIterator());
  b.SetInsertPoint(v->getParent(), at);
  b.CreateStore(v, cur);
  DenseMap<std::pair<PHINode *, BasicBlock *>, Value *> phi_loads;
  for (Use *u : uses) {
    auto *user = cast<Instruction>(u->getUser());
    if (auto *phi = dyn_cast<PHINode>(user)) {
      BasicBlock *in = phi->getIncomingBlock(*u);
      Value *&ld = phi_loads[{phi, in}];
      if (!ld) {
        b.SetInsertPoint(in->getTerminator());
        ld = b.CreateLoad(v->getType(), snap, v->getName() + ".reload");
        c.reloads.push_back({cast<LoadInst>(ld), v});
      }
      u->set(ld);
    } else {
      b.SetInsertPoint(user);
      LoadInst *ld = b.CreateLoad(v->getType(), snap,
                                  v->getName() + ".reload");
      c.reloads.push_back({ld, v});
      u->set(ld);
    }
  }
  return cur;
}

// Every value used where it may not have been computed in the same run of
// the region is recomputed there (if cheap) or spilled: to one slot per
// work-item, or, if it is the same for the whole group and no run of a
// region both redefines it and then reads the old value, to one slot.
static bool demote(Cutter &c) {
  find_divergent(c);
  struct Crossing {
    Instruction *v;
    std::vector<Use *> uses;
    bool uniform;
  };
  std::vector<Crossing> spills;
  std::vector<std::pair<Use *, Instruction *>> remat;
  for (BasicBlock &bb : *c.F) {
    if (&bb == c.prologue)
      continue;
    for (Instruction &i : bb) {
      Crossing x = {&i, {}, !c.divergent.count(&i)};
      for (Use &u : i.uses()) {
        BasicBlock *ub = use_block(u);
        bool here = true;
        for (Region &r : c.regions)
          if (r.index.count(ub) && !local_to(r, &bb, ub)) {
            here = false;
            if (x.uniform && r.index.count(&bb) && reaches_in(c, r, &bb, ub))
              x.uniform = false;
          }
        if (here)
          continue;
        if (rematerialisable(&i))
          remat.push_back({&u, &i});
        else
          x.uses.push_back(&u);
      }
      if (x.uses.empty())
        continue;
      if (i.getType()->isTokenTy() || !i.getType()->isFirstClassType()) {
        c.why = "a token value lives across a barrier";
        return false;
      }
      spills.push_back(std::move(x));
    }
  }
  for (auto &[u, i] : remat) {
    auto *user = cast<Instruction>(u->getUser());
    Instruction *at = isa<PHINode>(user)
                          ? cast<PHINode>(user)->getIncomingBlock(*u)
                                ->getTerminator()
                          : user;
    u->set(clone_at(i, at));
  }
  for (Crossing &x : spills)
    spill(c, x.v, x.uses, x.uniform);
  return true;
}

// The blocks where alloca a's memory is touched (through address
// arithmetic); false if its address escapes into memory.
static bool alloca_blocks(Value *v, std::vector<BasicBlock *> &out,
                          unsigned depth = 0) {
  if (depth > 32)
    return false;
  for (Use &u : v->uses()) {
    auto *user = cast<Instruction>(u.getUser());
    out.push_back(use_block(u));
    if (auto *st = dyn_cast<StoreInst>(user)) {
      if (st->getValueOperand() == v)
        return false;
    } else if (auto *call = dyn_cast<CallBase>(user)) {
      // A callee that may keep the address (in memory, for a later
      // region to use) makes the variable live for the whole group.
      if (call->isArgOperand(&u) &&
          !call->doesNotCapture(call->getArgOperandNo(&u)))
        return false;
    } else if (isa<GetElementPtrInst>(user) || isa<CastInst>(user) ||
               isa<PHINode>(user) || isa<SelectInst>(user)) {
      if (!alloca_blocks(user, out, depth + 1))
        return false;
    }
  }
  return true;
}

// True if region r can run again after itself (a loop through a cut).
static bool reentered(const Cutter &c, unsigned r) {
  std::vector<unsigned> work(c.regions[r].next);
  std::vector<bool> seen(c.regions.size(), false);
  while (!work.empty()) {
    unsigned k = work.back();
    work.pop_back();
    if (k == r)
      return true;
    if (seen[k])
      continue;
    seen[k] = true;
    for (unsigned n : c.regions[k].next)
      work.push_back(n);
  }
  return false;
}

// Which allocas keep their contents across a cut: the demoted values,
// and private variables touched in more than one region or in a region
// that runs more than once per work-item. The rest stay private to one
// run of one region (and optimise as usual).
static void choose_context(Cutter &c) {
  std::vector<bool> again(c.regions.size());
  for (unsigned r = 0; r < c.regions.size(); r++)
    again[r] = reentered(c, r);
  for (Instruction &i : *c.prologue) {
    auto *a = dyn_cast<AllocaInst>(&i);
    if (!a)
      continue;
    bool is_uniform = false;
    for (auto &[cur, snap] : c.uniform)
      is_uniform |= a == cur || a == snap;
    if (is_uniform)
      continue;   // place() gives these their fixed slots
    bool ctx = std::find(c.demoted.begin(), c.demoted.end(), a) !=
               c.demoted.end();
    std::vector<BasicBlock *> blocks;
    if (!ctx && !alloca_blocks(a, blocks))
      ctx = true;
    int only = -1;
    for (BasicBlock *bb : blocks)
      for (unsigned r = 0; r < c.regions.size() && !ctx; r++)
        if (c.regions[r].index.count(bb)) {
          if (only >= 0 && only != (int)r)
            ctx = true;
          only = (int)r;
        }
    if (!ctx && only >= 0 && again[only])
      ctx = true;
    if (ctx)
      c.ctx_allocas.push_back(a);
  }
}

// Removes the lifetime markers: a context slot lives for the whole group.
static void drop_lifetimes(Function *F) {
  std::vector<Instruction *> dead;
  for (BasicBlock &bb : *F)
    for (Instruction &i : bb)
      if (auto *ii = dyn_cast<IntrinsicInst>(&i))
        if (ii->isLifetimeStartOrEnd())
          dead.push_back(ii);
  for (Instruction *i : dead)
    i->eraseFromParent();
}

// The context: one array per per-work-item slot (work-item k's copy at
// base + k * size, so consecutive work-items are consecutive in memory
// and the vectoriser sees unit strides), each its own allocation in the
// driver, which hands the region functions a table of their addresses
// (ctx). Separate allocations let LLVM see that the slots never overlap
// one another or the kernel's buffers: in one block, at offsets that
// depend on the group size, a kernel carrying float16 values needed 64
// run-time overlap checks and was left scalar. The uniform slots (cur,
// then snap: uniform_bytes each) live in the driver's fixed-size state
// block after the next-region word (state_header bytes), so LLVM sees
// that nothing a region's loop stores touches the snapshot, hoists its
// loads and unswitches the loop on a group-uniform loop test. Points each
// alloca at its element.
static bool place(Cutter &c) {
  const DataLayout &dl = c.F->getParent()->getDataLayout();
  struct Slot {
    AllocaInst *a, *snap;
    uint64_t size, align;
  };
  auto slot_of = [&](AllocaInst *a, AllocaInst *snap) {
    uint64_t align = std::max<uint64_t>(a->getAlign().value(), 1);
    uint64_t size = a->getAllocationSize(dl)->getFixedValue();
    size = (size + align - 1) / align * align;
    return Slot{a, snap, size ? size : align, align};
  };
  auto by_align = [](const Slot &x, const Slot &y) {
    return x.align > y.align;
  };
  std::vector<Slot> slots, uslots;
  for (AllocaInst *a : c.ctx_allocas)
    slots.push_back(slot_of(a, nullptr));
  for (auto &[cur, snap] : c.uniform)
    uslots.push_back(slot_of(cur, snap));
  std::stable_sort(slots.begin(), slots.end(), by_align);
  std::stable_sort(uslots.begin(), uslots.end(), by_align);
  for (Slot &s : slots) {
    c.ctx_bytes += s.size;
    c.ctx_align = std::max(c.ctx_align, s.align);
  }
  for (Slot &s : uslots) {
    c.uniform_bytes += s.size;
    c.ctx_align = std::max(c.ctx_align, s.align);
  }
  c.uniform_bytes = (c.uniform_bytes + c.ctx_align - 1) / c.ctx_align *
                    c.ctx_align;
  // The driver pads each array (region_driver.cpp): up to 1 KiB each.
  uint64_t padding = 1024 * (uint64_t)slots.size();
  if ((c.ctx_bytes * max_group + 2 * c.uniform_bytes + padding) >
      max_ctx_block) {
    c.why = std::to_string(c.ctx_bytes + c.uniform_bytes) +
            " bytes per work-item live across barriers";
    return false;
  }
  IRBuilder<> b(c.prologue->getTerminator());
  Value *ctx = c.F->getArg(RP_CTX), *lid = c.F->getArg(RP_LID);
  Value *state = c.F->getArg(RP_NEXT);
  auto point = [&](AllocaInst *a, Value *at, Value *base) {
    Value *p = b.CreateInBoundsGEP(b.getInt8Ty(), base, at);
    if (p->getType() != a->getType())
      p = b.CreateAddrSpaceCast(p, a->getType());
    a->replaceAllUsesWith(p);
    a->eraseFromParent();
  };
  uint64_t off = 0;
  for (Slot &s : uslots) {
    point(s.a, b.getInt64(state_header + off), state);
    point(s.snap, b.getInt64(state_header + c.uniform_bytes + off), state);
    off += s.size;
  }
  for (Slot &s : slots) {
    Value *entry = b.CreateConstInBoundsGEP1_64(
        b.getPtrTy(), ctx, c.slot_sizes.size());
    Value *base = b.CreateLoad(b.getPtrTy(), entry, "slot");
    point(s.a, b.CreateMul(lid, b.getInt64(s.size)), base);
    c.slot_sizes.push_back(s.size);
    c.slot_aligns.push_back(s.align);
  }
  return true;
}

// Region mode's end of a cut and of the kernel: the next region (or END,
// the number of regions) goes to *next and the region function returns.
static void end_regions(Cutter &c) {
  unsigned end = (unsigned)c.regions.size();
  Value *next = c.F->getArg(RP_NEXT);
  std::vector<Instruction *> rets;
  for (BasicBlock &bb : *c.F)
    if (isa<ReturnInst>(bb.getTerminator()))
      rets.push_back(bb.getTerminator());
  for (Instruction *ret : rets) {
    IRBuilder<> b(ret);
    b.CreateStore(b.getInt32(end), next);
  }
  for (auto &[bb, r] : c.cut_to) {
    Instruction *br = bb->getTerminator();
    IRBuilder<> b(br);
    b.CreateStore(b.getInt32(r), next);
    b.CreateRetVoid();
    br->eraseFromParent();
  }
}

// The whole analysis and rewriting of the region body; false (with
// c.why) if region mode cannot run it.
static bool cut(Cutter &c) {
  removeUnreachableBlocks(*c.F);
  if (c.loop_regions && !cut_loops(c))
    return false;
  if (!scan(c) || !syncs_uniform(c))
    return false;
  BasicBlock *entry = &c.F->getEntryBlock();
  std::vector<Instruction *> allocas;
  for (Instruction &i : *entry)
    if (isa<AllocaInst>(i))
      allocas.push_back(&i);
  for (auto it = allocas.rbegin(); it != allocas.rend(); ++it)
    (*it)->moveBefore(&*entry->begin());
  BasicBlock::iterator first = entry->begin();
  while (isa<AllocaInst>(first))
    ++first;
  std::vector<BasicBlock *> starts = {SplitBlock(entry, &*first)};
  c.prologue = entry;
  split(c, starts);
  bool single = true;   // each cut is the one edge into its region
  for (unsigned r = 1; r < starts.size(); r++) {
    BasicBlock *pred = starts[r]->getSinglePredecessor();
    single &= pred != nullptr;
    c.cut_to[pred] = r;
  }
  if (!single || c.cut_to.size() != starts.size() - 1) {
    c.why = "unusual control flow at a barrier";
    return false;
  }
  c.regions.resize(starts.size());
  for (unsigned r = 0; r < starts.size(); r++) {
    c.regions[r].start = starts[r];
    collect(c, c.regions[r]);
    dominators(c.regions[r]);
  }
  if (!demote(c))
    return false;
  choose_context(c);
  drop_lifetimes(c.F);
  if (!place(c))
    return false;
  end_regions(c);
  return true;
}

// One function per region: a clone of the body whose prologue branches
// to the region's start; what the region cannot reach goes.
//
// A use that crosses a cut in one region may be an ordinary use in
// another: a loop bound computed before a loop whose body holds a
// barrier is used by the loop test both in the first region (right after
// its definition) and in the region that closes each iteration (after a
// cut). spill() gave that use one reload for all regions. For a value
// kept per work-item the reload is right everywhere (the work-item
// stored it before), but a group-uniform value is reloaded from its
// snapshot, which is taken before the region's loop starts: in the
// defining region it still holds the previous region's value (or
// uninitialised stack for the first), and such kernels read garbage
// loop bounds and indices (wrong results, stores far outside buffers).
// So in each clone, a reload that its value's definition dominates
// within the region is replaced by the value itself.
static void use_local_definitions(Cutter &c, unsigned r,
                                  ValueToValueMapTy &vmap) {
  const Region &reg = c.regions[r];
  for (auto &[ld, def] : c.reloads) {
    if (!reg.index.count(ld->getParent()) ||
        !local_to(reg, def->getParent(), ld->getParent()))
      continue;
    auto *copy = cast<Instruction>(vmap[ld]);
    copy->replaceAllUsesWith(vmap[def]);
    copy->eraseFromParent();
  }
}

static void clone_regions(Cutter &c, std::vector<Function *> &fns) {
  for (unsigned r = 0; r < c.regions.size(); r++) {
    ValueToValueMapTy vmap;
    Function *f = CloneFunction(c.F, vmap);
    f->setLinkage(GlobalValue::InternalLinkage);
    use_local_definitions(c, r, vmap);
    auto *br = cast<BranchInst>(
        cast<BasicBlock>(vmap[c.prologue])->getTerminator());
    br->setSuccessor(0, cast<BasicBlock>(vmap[c.regions[r].start]));
    removeUnreachableBlocks(*f);
    fns.push_back(f);
  }
}

// SKEIN_DUMP=modes: one line per kernel.
static void print_mode(const char *name, const char *mode,
                       const std::string &detail) {
  if (cc_dump_enabled("modes"))
    fprintf(stderr, "skein: kernel %s: %s mode%s%s%s\n", name, mode,
            detail.empty() ? "" : " (", detail.c_str(),
            detail.empty() ? "" : ")");
}

// Cuts the body, clones the regions and builds the driver in rwg; false
// (with c.why) if region mode cannot run the kernel. The region clones
// are gone either way.
static bool try_regions(Cutter &c, Function *rwg, const char *name) {
  if (!cut(c))
    return false;
  if (cc_dump_enabled("region"))
    errs() << "; ---- SKEIN_DUMP region body " << name << " ----\n" << *c.F;
  std::vector<Function *> fns;
  clone_regions(c, fns);
  bool ok = build_driver(c, rwg, fns);
  for (Function *f : fns)
    f->eraseFromParent();
  if (!ok) {
    c.why = "internal error: no placeholder call";
    return false;
  }
  if (cc_dump_enabled("region"))
    errs() << "; ---- SKEIN_DUMP region " << name << " ----\n" << *rwg;
  // Defensive: a region-mode bug must cost speed, not the build.
  if (verifyFunction(*rwg, &errs())) {
    c.why = "internal error: invalid region IR";
    return false;
  }
  return true;
}

// Makes rwg the kernel's work-group function in place of fiber mode's,
// deleting the fiber-mode functions; a loop-mode function (loop_fn) stays,
// internal, for the small groups rwg hands it.
static void swap_in(cc_wg *wg, Function *rwg, Function *loop_fn) {
  auto *old = unwrap<Function>(wg->fn);
  auto *wi = unwrap<Function>(wg->body);
  std::string wg_name = old->getName().str();
  if (old == loop_fn) {
    old->setName(wg_name + ".loop");
    old->setLinkage(GlobalValue::InternalLinkage);
  } else {
    old->eraseFromParent();
    if (wi->use_empty())
      wi->eraseFromParent();
  }
  // Nothing the kernel writes aliases the launch (the runtime's, never
  // written while groups run) or this group's local memory block: saying
  // so lets LLVM hoist the launch constants out of the region loops.
  rwg->addParamAttr(0, Attribute::NoAlias);
  rwg->addParamAttr(4, Attribute::NoAlias);
  rwg->setName(wg_name);
  rwg->addFnAttr(region_attribute);   // cc_region_forward_records
  rwg->setLinkage(GlobalValue::ExternalLinkage);
  rwg->setVisibility(GlobalValue::DefaultVisibility);
  wg->fn = wg->body = wrap(rwg);
  wg->fiber = false;
  wg->x_latch = nullptr;
}

// The regions read the group's sizes, the launch and the collective
// slots' address in every work-item loop, and a store to the slots (a
// collective's deposit) or through any pointer LLVM cannot tell apart
// from the group record could change them as far as it knows: such loops
// reloaded them and stayed scalar. After the work-item builtins are
// inlined, the set-once fields are forwarded (group_records.cpp).
extern "C" void cc_region_forward_records(LLVMModuleRef m) {
  for (Function &f : *unwrap(m))
    if (f.hasFnAttribute(region_attribute))
      skein_records::forward_records(f, true);
}

extern "C" void cc_region_finish(LLVMModuleRef m, cc_wg *wg,
                                 const char *name) {
  (void)m;   // the functions know their module
  if (!wg->region_body) {
    print_mode(name, wg->fiber ? "fiber" : "loop", "");
    return;
  }
  Cutter c;
  c.F = unwrap<Function>(wg->region_body);
  c.group_ty = cast<StructType>(unwrap(wg->abi_group));
  c.launch_ty = cast<StructType>(unwrap(wg->abi_launch));
  c.loop_regions = wg->loop_regions;
  if (c.loop_regions)
    c.loop_fn = unwrap<Function>(wg->fn);
  c.interleave = cc_interleave_count();
  // A cut loop's regions are the kernel's loop body, planned as loop
  // mode plans a work-item body (vector_plan.c): the work-item loops of
  // the regions widen each lane of a split vector.
  // A kept vector body (one that fills whole registers: vector_plan.c)
  // gains nothing from the cut, which only lets the loop vectoriser widen
  // work-items: in loop mode the work-item loop is unroll-and-jammed
  // around the kernel's loop instead (unroll_jam.cpp), so the plan's
  // count of work-items' chains are interleaved in registers, where the
  // cut loop's unrolled copies ran one after the other and went through
  // the context memory at every trip. SKEIN_KEPT_REGIONS=1 cuts them
  // anyway, to measure the choice.
  bool jam_in_loop_mode = false;
  if (c.loop_regions)
    find_unrolled_whole(c);
  if (c.loop_regions && cc_vectorize_wanted()) {
    cc_vector_plan plan = cc_plan_vectors(wrap(c.F), nullptr, name);
    c.interleave = plan.interleave;
    c.width = plan.width;
    // A kept vector body is not widened, so its regions' work-item loop
    // is unrolled instead: the plan's unroll-and-jam count of work-items
    // side by side (a char16 on AVX2 ran one work-item at a time).
    c.unroll = plan.jam;
    jam_in_loop_mode = !plan.split && plan.jam > 1 &&
                       one_jammable_loop(c.F) &&
                       !getenv("SKEIN_KEPT_REGIONS");
  }
  auto *rwg = unwrap<Function>(wg->region_fn);
  wg->region_body = wg->region_fn = nullptr;
  if (jam_in_loop_mode)
    c.why = "kept vectors: their loop runs unroll-and-jammed";
  bool ok = !jam_in_loop_mode && try_regions(c, rwg, name);
  if (!ok)
    rwg->eraseFromParent();   // before c.F: it calls c.F
  c.F->eraseFromParent();
  if (Function *bar = unwrap(m)->getFunction("__skein_ctx__Z7barrierj"))
    if (bar->isDeclaration() && bar->use_empty())
      bar->eraseFromParent();   // cut_loops' declaration, used no more
  if (!ok) {
    if (c.loop_regions)
      print_mode(name, "loop", "loops not cut: " + c.why);
    else
      print_mode(name, "fiber", "region mode not applicable: " + c.why);
    return;
  }
  cc_region_used = true;
  swap_in(wg, rwg, c.loop_fn);
  print_mode(name, "region",
             std::string(c.loop_regions ? "loops cut at implicit barriers, "
                                        : "") +
                 std::to_string(c.regions.size()) + " regions, " +
                 std::to_string(c.ctx_bytes) +
                 " context bytes per work-item, " +
                 std::to_string(c.uniform_bytes) + " uniform");
}
