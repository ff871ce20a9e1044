// This file contains the lifting of bounds checks (bounds_check.cpp
// inserts them) out of the loops that run them, so that a checked kernel
// runs the same vector code as an unchecked one when its accesses are in
// bounds. Two sufficient conditions for a check "off <u limit" to pass,
// each made into a test:
//
// - the box test (cc_bounds_box, on the kernel before the work-group
//   functions exist): off as SCEV is rest + a sum of scale * x over
//   values x with a known range: the work-item's local or global ids
//   (the group's box of ids, narrowed by a guarding "id < bound") and the
//   iterations of the kernel's own loops (a recurrence {start, +, step}
//   adds step * i, i from 0 to the backedge-taken count). Scales may be
//   computed at run time; their signs are taken then, and a spread or
//   sum that overflows fails the test. Over the whole range off lies in
//   [lo, lo + span], inside the object when lo + span does not wrap and
//   is below limit. The test is true only when the check is (it holds
//   for this work-item's ids and iteration, as for any in the range), so
//   "box | check" replaces the check; when rest does not vary across the
//   work-items, the box test does not vary in the work-item loops.
// - the range test (cc_bounds_hoist, after inlining): off an affine
//   function of an innermost loop L's iteration, {first, +, step}, passes
//   on every iteration when it passes at the first and the last one
//   without wrapping.
//
// cc_bounds_hoist then versions loops, outermost first: a loop with inner
// loops on the box tests that do not vary in it (a work-item loop nest
// around a kernel loop, region mode's state machine), an innermost loop
// on its range tests and the boxes left. The loop itself loses those
// checks (and vectorises as the unchecked kernel does), and a copy that
// keeps them runs when a test fails (a launch that goes out of bounds, or
// accesses guarded by conditions the tests cannot see). Before that,
// forward_records makes the launch and the group record's set-once
// fields visible as invariant, so the tests can leave the loops.
#include "compiler_internal.h"
#include "group_records.h"

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>
#include <llvm/Transforms/Utils/ValueMapper.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>

#include <vector>

using namespace llvm;

namespace {

// The analyses one function's lifting needs, made afresh.
struct Analyses {
  TargetLibraryInfo tli;
  AssumptionCache ac;
  DominatorTree dt;
  LoopInfo li;
  ScalarEvolution se;
  Analyses(Function &f, TargetLibraryInfoImpl &tlii)
      : tli(tlii, &f), ac(f), dt(f), li(dt), se(f, tli, ac, dt, li) {}
};

// A work-item id builtin's call (get_local_id or get_global_id with a
// constant dimension): which, and the dimension.
bool workitem_id(const SCEV *s, CallInst **call, bool *global,
                 unsigned *dim) {
  auto *u = dyn_cast<SCEVUnknown>(s);
  auto *c = u ? dyn_cast<CallInst>(u->getValue()) : nullptr;
  Function *f = c ? c->getCalledFunction() : nullptr;
  if (!f || c->arg_size() != 1 || !isa<ConstantInt>(c->getArgOperand(0)))
    return false;
  StringRef name = f->getName();
  if (name != "_Z12get_local_idj" && name != "_Z13get_global_idj")
    return false;
  *call = c;
  *global = name == "_Z13get_global_idj";
  *dim = (unsigned)cast<ConstantInt>(c->getArgOperand(0))->getZExtValue();
  return *dim < 3;
}

// One term scale * x of an offset, where x runs over a known range: a
// work-item id (id set: over the group's box of ids), or the iteration
// number of a kernel loop (iterations set: 0 to that backedge-taken
// count), which an affine recurrence {start, +, step} adds as step * i.
// scale is a constant or a value computed at the check (a kernel
// argument times a constant, as in row * n): the test computes each
// term's spread with its sign at run time, and fails when a product or
// the sum overflows.
struct IdTerm {
  CallInst *id;
  bool global;
  unsigned dim;
  const SCEV *scale;
  const SCEV *iterations;
  bool body_only;   // the check runs in iterations 0 to count - 1
};

// Whether s contains a work-item id or a recurrence (a term to collect).
bool has_terms(const SCEV *s) {
  return SCEVExprContains(s, [](const SCEV *x) {
    CallInst *call;
    bool global;
    unsigned dim;
    return isa<SCEVAddRecExpr>(x) || workitem_id(x, &call, &global, &dim);
  });
}

// Whether s can be computed at the check (at) without a term of its own.
bool plain_at(const SCEV *s, ScalarEvolution &se, Instruction *at) {
  if (has_terms(s))
    return false;
  SCEVExpander expand(se, at->getModule()->getDataLayout(), "bounds.box");
  return expand.isSafeToExpandAt(s, at);
}

// The backedge-taken count of ar's loop, when the recurrence can become a
// term: affine with a step and a count that can be computed at the check
// (at) without terms of their own (which would make the test vary in an
// outer loop).
const SCEV *foldable_count(const SCEVAddRecExpr *ar, ScalarEvolution &se,
                           Instruction *at) {
  if (!ar->isAffine() || !ar->getType()->isIntegerTy(64) ||
      !plain_at(ar->getStepRecurrence(se), se, at))
    return nullptr;
  const SCEV *btc = se.getBackedgeTakenCount(ar->getLoop());
  if (isa<SCEVCouldNotCompute>(btc) || !btc->getType()->isIntegerTy() ||
      btc->getType()->getIntegerBitWidth() > 64 || !plain_at(btc, se, at))
    return nullptr;
  return btc;
}

// Adds s * scale to terms (a work-item id, or a kernel loop's iteration
// through an affine recurrence) or others (the rest), looking through
// sums and products: SCEV keeps 4 * (lid + s) and n * lid as products,
// and the id inside counts all the same. at is the check.
void collect_terms(const SCEV *s, const SCEV *scale, ScalarEvolution &se,
                   Instruction *at, std::vector<IdTerm> *terms,
                   SmallVectorImpl<const SCEV *> *others) {
  if (auto *add = dyn_cast<SCEVAddExpr>(s)) {
    for (const SCEV *op : add->operands())
      collect_terms(op, scale, se, at, terms, others);
    return;
  }
  // A product with one factor holding terms: the others join the scale.
  if (auto *mul = dyn_cast<SCEVMulExpr>(s)) {
    SmallVector<const SCEV *, 4> factors;
    const SCEV *inner = nullptr;
    for (const SCEV *op : mul->operands()) {
      if (has_terms(op) && !inner)
        inner = op;
      else
        factors.push_back(op);
    }
    const SCEV *rest_of = factors.empty() ? nullptr : se.getMulExpr(factors);
    if (inner && rest_of && !has_terms(rest_of)) {
      collect_terms(inner, se.getMulExpr(scale, rest_of), se, at, terms,
                    others);
      return;
    }
  }
  // {start, +, step} at iteration i is start + step * i, i from 0 to the
  // backedge-taken count wherever the check runs (inside the loop, or
  // after it on the last iteration's value).
  if (auto *ar = dyn_cast<SCEVAddRecExpr>(s)) {
    const SCEV *btc = foldable_count(ar, se, at);
    const SCEV *step = se.getMulExpr(scale, ar->getStepRecurrence(se));
    if (btc && plain_at(step, se, at)) {
      // A loop that leaves only at its header (as a "for" loop does
      // before rotation) runs its body one time fewer than its header:
      // a check in the body never sees the last value.
      const Loop *l = ar->getLoop();
      bool body_only = l->contains(at) && at->getParent() != l->getHeader() &&
                       l->getExitingBlock() == l->getHeader();
      terms->push_back({nullptr, false, 0, step, btc, body_only});
      collect_terms(ar->getStart(), scale, se, at, terms, others);
      return;
    }
  }
  IdTerm t;
  if (workitem_id(s, &t.id, &t.global, &t.dim) && plain_at(scale, se, at)) {
    t.scale = scale;
    t.iterations = nullptr;
    t.body_only = false;
    terms->push_back(t);
  } else {
    others->push_back(se.getMulExpr(scale, s));
  }
}

// Splits off into rest + sum of terms; false if no term is found.
bool split_offset(const SCEV *off, ScalarEvolution &se, Instruction *at,
                  std::vector<IdTerm> *terms, const SCEV **rest) {
  SmallVector<const SCEV *, 8> others;
  collect_terms(off, se.getOne(off->getType()), se, at, terms, &others);
  if (terms->empty())
    return false;
  *rest = others.empty() ? se.getZero(off->getType()) : se.getAddExpr(others);
  return true;
}

// The exclusive upper bound X of id where at runs only when "id <u X"
// holds (a dominating branch on it, as in "if (lid < s)"); null if none
// is seen.
Value *guarded_bound(CallInst *id, Instruction *at, DominatorTree &dt) {
  for (User *u : id->users()) {
    auto *cmp = dyn_cast<ICmpInst>(u);
    if (!cmp)
      continue;
    ICmpInst::Predicate p = cmp->getPredicate();
    if (cmp->getOperand(1) == id)
      p = ICmpInst::getSwappedPredicate(p);
    Value *bound = cmp->getOperand(0) == id ? cmp->getOperand(1)
                                            : cmp->getOperand(0);
    if (p != ICmpInst::ICMP_ULT && p != ICmpInst::ICMP_UGE)
      continue;
    for (User *cu : cmp->users()) {
      auto *br = dyn_cast<BranchInst>(cu);
      if (!br || !br->isConditional())
        continue;
      // id <u bound on the true edge of ult, the false edge of uge.
      BasicBlock *taken = br->getSuccessor(p == ICmpInst::ICMP_ULT ? 0 : 1);
      if (br->getSuccessor(0) != br->getSuccessor(1) &&
          dt.dominates(BasicBlockEdge(br->getParent(), taken), at->getParent()))
        return bound;
    }
  }
  return nullptr;
}

// Replaces the condition check of a checked access ("off <u limit") by
// "box | check" where the box test applies.
void add_box_test(ICmpInst *check, Analyses &a, const DataLayout &dl) {
  Value *off = check->getOperand(0);
  if (!off->getType()->isIntegerTy(64))
    return;
  std::vector<IdTerm> terms;
  const SCEV *rest;
  if (!split_offset(a.se.getSCEV(off), a.se, check, &terms, &rest) ||
      terms.size() > 64)
    return;
  SCEVExpander expand(a.se, dl, "bounds.box");
  if (!expand.isSafeToExpand(rest))
    return;
  Module &m = *check->getModule();
  IRBuilder<> b(check);
  Type *i64 = b.getInt64Ty(), *i32 = b.getInt32Ty();
  auto size_query = [&](const char *name) {
    return m.getOrInsertFunction(name, FunctionType::get(i64, {i32}, false));
  };
  FunctionCallee local_size = size_query("_Z14get_local_sizej");
  FunctionCallee group_id = size_query("_Z12get_group_idj");
  FunctionCallee enqueued_size = size_query("_Z23get_enqueued_local_sizej");
  FunctionCallee global_offset = size_query("_Z17get_global_offsetj");
  // lo: rest plus each term at its smallest; span: the widest spread (the
  // sum of |scale| * last, which must not overflow: then every offset of
  // the box is lo plus at most span, exactly).
  Value *lo = expand.expandCodeFor(rest, i64, check);
  Value *span = b.getInt64(0);
  Value *ok = b.getTrue();
  auto checked = [&](Intrinsic::ID op, Value *x, Value *y) {
    Value *r = b.CreateBinaryIntrinsic(op, x, y);
    ok = b.CreateAnd(ok, b.CreateNot(b.CreateExtractValue(r, 1)));
    return b.CreateExtractValue(r, 0);
  };
  for (const IdTerm &t : terms) {
    Value *last, *first = b.getInt64(0);
    if (t.iterations) {   // iterations 0 to the backedge-taken count
      Value *btc = expand.expandCodeFor(t.iterations, nullptr, check);
      last = b.CreateZExt(btc, i64);
      if (t.body_only)   // a count of 0 wraps and fails the test below
        last = b.CreateSub(last, b.getInt64(1));
    } else {
      Value *size = b.CreateCall(local_size, {b.getInt32(t.dim)});
      last = b.CreateSub(size, b.getInt64(1));   // size >= 1
    }
    // The first id of the group: 0 for a local id, the group's first
    // global id for a global one (from the group's id, not as global id
    // minus local id, which would vary in the work-item loop as written).
    if (t.global) {
      Value *d = b.getInt32(t.dim);
      first = b.CreateAdd(b.CreateMul(b.CreateCall(group_id, {d}),
                                      b.CreateCall(enqueued_size, {d})),
                          b.CreateCall(global_offset, {d}));
    }
    // Under "id < bound" the ids run to bound - 1 at most: last is the
    // smaller of the two distances from first (a bound at or below first
    // wraps to a large distance and leaves last as it was).
    Value *bound = t.id ? guarded_bound(t.id, check, a.dt) : nullptr;
    if (bound) {
      Value *to_bound = b.CreateSub(b.CreateSub(bound, first),
                                    b.getInt64(1));
      last = b.CreateBinaryIntrinsic(Intrinsic::umin, last, to_bound);
    }
    Value *scale = expand.expandCodeFor(t.scale, i64, check);
    Value *magnitude = b.CreateBinaryIntrinsic(Intrinsic::abs, scale,
                                               b.getFalse());
    Value *spread = checked(Intrinsic::umul_with_overflow, last, magnitude);
    lo = b.CreateAdd(lo, b.CreateMul(first, scale));
    // A negative scale reaches its smallest at the last id.
    lo = b.CreateSub(lo, b.CreateSelect(b.CreateICmpSLT(scale, b.getInt64(0)),
                                        spread, b.getInt64(0)));
    span = checked(Intrinsic::uadd_with_overflow, span, spread);
  }
  Value *hi = b.CreateAdd(lo, span);
  ok = b.CreateAnd(ok, b.CreateAnd(b.CreateICmpUGE(hi, lo),
                                   b.CreateICmpULT(hi, check->getOperand(1))),
                   "bounds.box");
  Value *either = IRBuilder<>(check->getNextNode()).CreateOr(ok, check);
  check->replaceUsesWithIf(either, [&](Use &u) { return u.getUser() != either; });
}


// A range-tested check: off = {first, +, step} over L.
struct RangeCheck {
  ICmpInst *check;
  const SCEVAddRecExpr *off;
  int64_t step;
};

// What versioning L lifts: the range-tested checks and the box-tested
// ones ("box | check" with box invariant in L).
struct Lifted {
  std::vector<RangeCheck> ranges;
  std::vector<Instruction *> boxed;   // the "box | check" instructions
  std::vector<Value *> boxes;
  std::vector<ICmpInst *> boxed_checks;   // their checks
};

// The invariant box test of check in L, if check feeds "box | check".
Instruction *boxed_use(ICmpInst *check, Loop *l, Value **box) {
  for (User *u : check->users()) {
    auto *op = dyn_cast<BinaryOperator>(u);
    if (!op || op->getOpcode() != Instruction::Or)
      continue;
    Value *other = op->getOperand(0) == check ? op->getOperand(1)
                                              : op->getOperand(0);
    if (l->isLoopInvariant(other)) {
      *box = other;
      return op;
    }
  }
  return nullptr;
}

// Whether v can be computed before L: it is outside L, or an instruction
// without side effects whose operands can be (collected into slice, in
// an order that defines each before its uses). Loads qualify only with
// !invariant.load: in this code those read the launch (the bounds
// builtins' sizes, cc_bounds_mark_invariant, and the work-group
// function's argument table), which stays mapped and unchanged for the
// whole launch, so reading it before the loop, even on a path that would
// not have, is safe. Such loads sit in the conditional blocks of the
// checks they feed, where LICM leaves them.
bool computable_before(Value *v, Loop *l, SmallPtrSetImpl<Instruction *> &seen,
                       SmallVectorImpl<Instruction *> &slice, unsigned depth) {
  auto *i = dyn_cast<Instruction>(v);
  if (!i || !l->contains(i) || seen.count(i))
    return true;
  if (depth > 32 || isa<PHINode>(i))
    return false;
  if (auto *ld = dyn_cast<LoadInst>(i)) {
    if (!ld->getMetadata(LLVMContext::MD_invariant_load) || ld->isVolatile())
      return false;
  } else if (auto *call = dyn_cast<IntrinsicInst>(i)) {
    if (!isSafeToSpeculativelyExecute(call))
      return false;
  } else if (!isa<BinaryOperator>(i) && !isa<CmpInst>(i) &&
             !isa<SelectInst>(i) && !isa<CastInst>(i) &&
             !isa<GetElementPtrInst>(i)) {
    return false;
  } else if (!isSafeToSpeculativelyExecute(i)) {
    return false;   // a division that might trap
  }
  for (Value *op : i->operands())
    if (!computable_before(op, l, seen, slice, depth + 1))
      return false;
  seen.insert(i);
  slice.push_back(i);
  return true;
}

// Moves v (see computable_before) to L's preheader; false if it cannot.
bool move_before_loop(Value *v, Loop *l) {
  SmallPtrSet<Instruction *, 16> seen;
  SmallVector<Instruction *, 16> slice;
  if (!computable_before(v, l, seen, slice, 0))
    return false;
  Instruction *at = l->getLoopPreheader()->getTerminator();
  for (Instruction *i : slice)
    i->moveBefore(at);
  return true;
}

// Moves the limits and box tests of L's checks before L where they can
// be (the checks are collected first: moving changes L's blocks).
void move_tests_before_loop(Loop *l) {
  std::vector<ICmpInst *> checks;
  for (BasicBlock *bb : l->blocks())
    for (Instruction &i : *bb)
      if (auto *c = dyn_cast<ICmpInst>(&i))
        if (c->getMetadata("skein.bounds"))
          checks.push_back(c);
  for (ICmpInst *c : checks) {
    move_before_loop(c->getOperand(1), l);   // the limit
    for (User *u : c->users())
      if (auto *op = dyn_cast<BinaryOperator>(u))
        if (op->getOpcode() == Instruction::Or)
          move_before_loop(op->getOperand(op->getOperand(0) == c ? 1 : 0), l);
  }
}

// The checks of L that can be lifted, into out.
void liftable_checks(Loop *l, ScalarEvolution &se, Lifted *out) {
  for (BasicBlock *bb : l->blocks())
    for (Instruction &i : *bb) {
      auto *c = dyn_cast<ICmpInst>(&i);
      if (!c || !c->getMetadata("skein.bounds") ||
          c->getPredicate() != ICmpInst::ICMP_ULT ||
          !c->getOperand(0)->getType()->isIntegerTy(64))
        continue;
      Value *box;
      if (!l->isLoopInvariant(c->getOperand(1)))
        continue;
      if (Instruction *either = boxed_use(c, l, &box)) {
        if (is_contained(out->boxed, either))
          continue;
        out->boxed.push_back(either);
        out->boxes.push_back(box);
        out->boxed_checks.push_back(c);
        continue;
      }
      if (!l->isInnermost())
        continue;   // range tests: innermost loops only
      auto *ar = dyn_cast<SCEVAddRecExpr>(se.getSCEV(c->getOperand(0)));
      if (!ar || ar->getLoop() != l || !ar->isAffine())
        continue;
      auto *step = dyn_cast<SCEVConstant>(ar->getStepRecurrence(se));
      // |step| < 2^20 and (below) a trip count < 2^32 keep the span of
      // offsets, step * count, exact in 64 bits.
      if (!step || step->getAPInt().abs().uge(1u << 20))
        continue;
      out->ranges.push_back({c, ar, step->getAPInt().getSExtValue()});
    }
}

// The and of the range tests of lifted (dropping those that cannot be
// expanded), built before at; null if the loop's trip count is unknown.
Value *range_tests(Loop *l, ScalarEvolution &se, const DataLayout &dl,
                   Instruction *at, std::vector<RangeCheck> *ranges) {
  const SCEV *btc = se.getBackedgeTakenCount(l);
  if (isa<SCEVCouldNotCompute>(btc) || !btc->getType()->isIntegerTy() ||
      btc->getType()->getIntegerBitWidth() > 64)
    return nullptr;
  SCEVExpander expand(se, dl, "bounds.lift");
  std::vector<RangeCheck> usable;
  for (const RangeCheck &c : *ranges)
    if (expand.isSafeToExpand(c.off->getStart()))
      usable.push_back(c);
  *ranges = usable;
  if (usable.empty() || !expand.isSafeToExpand(btc))
    return nullptr;
  IRBuilder<> b(at);
  Type *i64 = b.getInt64Ty();
  Value *count = b.CreateZExt(expand.expandCodeFor(btc, btc->getType(), at),
                              i64, "bounds.btc");
  Value *all_ok = b.CreateICmpULT(count, b.getInt64(1ull << 32));
  for (const RangeCheck &c : usable) {
    Value *first = expand.expandCodeFor(c.off->getStart(), i64, at);
    Value *limit = c.check->getOperand(1);
    uint64_t magnitude = c.step < 0 ? -(uint64_t)c.step : (uint64_t)c.step;
    Value *span = b.CreateMul(count, b.getInt64(magnitude));
    Value *ok;
    if (c.step >= 0) {   // first <= last (no wrap) < limit
      Value *last = b.CreateAdd(first, span);
      ok = b.CreateAnd(b.CreateICmpUGE(last, first),
                       b.CreateICmpULT(last, limit));
    } else {             // last <= first (no wrap) < limit
      Value *last = b.CreateSub(first, span);
      ok = b.CreateAnd(b.CreateICmpULE(last, first),
                       b.CreateICmpULT(first, limit));
    }
    all_ok = b.CreateAnd(all_ok, ok);
  }
  return all_ok;
}

// all_ok for L's liftable checks, built in L's preheader; null if L has
// none or is not in the form versioning needs.
Value *build_all_ok(Loop *l, ScalarEvolution &se, const DataLayout &dl,
                    Lifted *lifted) {
  BasicBlock *pre = l->getLoopPreheader();
  if (!pre || !l->getExitingBlock() || !l->getExitBlock() ||
      !l->hasDedicatedExits())
    return nullptr;
  liftable_checks(l, se, lifted);

  Instruction *at = pre->getTerminator();
  Value *all_ok = nullptr;
  // Range tests count the iterations from the backedge: only when the
  // loop leaves at its latch is every check run at most that often plus
  // one. Box tests do not depend on the iterations.
  if (!lifted->ranges.empty() && l->getExitingBlock() == l->getLoopLatch())
    all_ok = range_tests(l, se, dl, at, &lifted->ranges);
  if (!all_ok)
    lifted->ranges.clear();
  IRBuilder<> b(at);
  for (Value *box : lifted->boxes)
    all_ok = all_ok ? b.CreateAnd(all_ok, box) : box;
  if (all_ok && all_ok->getName().empty())
    all_ok->setName("bounds.all_ok");
  return all_ok;
}

// Versions L on all_ok (computed in its preheader): the preheader
// branches to L, whose lifted checks become true, or to a copy of L that
// keeps them. Both leave through L's one exit block, whose phis (L is in
// LCSSA form) get the copy's values.
void version_loop(Loop *l, Value *all_ok, const Lifted &lifted,
                  DominatorTree &dt, LoopInfo &li) {
  BasicBlock *check_bb = l->getLoopPreheader();
  BasicBlock *exiting = l->getExitingBlock();
  BasicBlock *exit = l->getExitBlock();
  BasicBlock *ph = SplitBlock(check_bb, check_bb->getTerminator(), &dt, &li,
                              nullptr, l->getHeader()->getName() + ".ph");
  ValueToValueMapTy vmap;
  SmallVector<BasicBlock *, 16> blocks;
  Loop *checked = cloneLoopWithPreheader(ph, check_bb, l, vmap, ".checked",
                                         &li, &dt, blocks);
  remapInstructionsInBlocks(blocks, vmap);
  Instruction *term = check_bb->getTerminator();
  BranchInst::Create(ph, checked->getLoopPreheader(), all_ok, term);
  term->eraseFromParent();
  dt.changeImmediateDominator(exit, check_bb);
  auto *checked_exiting = cast<BasicBlock>(vmap[exiting]);
  for (PHINode &phi : exit->phis()) {
    Value *in = phi.getIncomingValueForBlock(exiting);
    auto it = vmap.find(in);
    Value *mapped = it != vmap.end() ? static_cast<Value *>(it->second) : in;
    phi.addIncoming(mapped, checked_exiting);
  }
  Constant *yes = ConstantInt::getTrue(l->getHeader()->getContext());
  for (const RangeCheck &c : lifted.ranges)
    c.check->replaceAllUsesWith(yes);
  for (size_t i = 0; i < lifted.boxed.size(); i++) {
    // In the copy the box failed: its check alone decides, and may still
    // be range-tested in an inner loop. (LICM may have left the check
    // before the loop, where the copy shares it.)
    auto either = vmap.find(lifted.boxed[i]);
    if (either != vmap.end()) {
      auto check = vmap.find(lifted.boxed_checks[i]);
      Value *alone = check != vmap.end()
                         ? static_cast<Value *>(check->second)
                         : lifted.boxed_checks[i];
      auto *copy = cast<Instruction>(either->second);
      copy->replaceAllUsesWith(alone);
      copy->eraseFromParent();
    }
    // In L the box holds: the check is done with.
    lifted.boxed[i]->replaceAllUsesWith(yes);
    lifted.boxed[i]->eraseFromParent();
    if (l->contains(lifted.boxed_checks[i]))
      lifted.boxed_checks[i]->setMetadata("skein.bounds", nullptr);
  }
}

// Versions one loop of f that has liftable checks, outermost first;
// false when none is left. A loop with inner loops is versioned on the
// box tests that do not vary in it (a work-item loop nest around a
// kernel loop, whose box covers every work-item and iteration): its fast
// copy is then the unchecked loop nest, which LLVM unrolls and
// vectorises as it does unchecked. An innermost loop is versioned on its
// range tests and the boxes left.
bool version_one(Function &f, const DataLayout &dl,
                 TargetLibraryInfoImpl &tlii) {
  Analyses a(f, tlii);
  for (Loop *l : a.li.getLoopsInPreorder())
    if (l->getLoopPreheader()) {
      move_tests_before_loop(l);
      // Versioning joins the two copies in exit blocks of their own.
      formDedicatedExitBlocks(l, &a.dt, &a.li, nullptr, false);
    }
  a.se.forgetAllLoops();
  for (Loop *l : a.li.getLoopsInPreorder()) {
    Lifted lifted;
    Value *all_ok = build_all_ok(l, a.se, dl, &lifted);
    // Checks of an innermost loop are done with either way: in the copy
    // they stay.
    if (l->isInnermost())
      for (BasicBlock *bb : l->blocks())
        for (Instruction &i : *bb)
          i.setMetadata("skein.bounds", nullptr);
    if (!all_ok)
      continue;
    formLCSSA(*l, a.dt, &a.li, &a.se);
    version_loop(l, all_ok, lifted, a.dt, a.li);
    return true;
  }
  return false;
}

} // namespace

extern "C" void cc_bounds_box(LLVMValueRef kernel) {
  Function &k = *unwrap<Function>(kernel);
  if (k.isDeclaration())
    return;
  std::vector<ICmpInst *> checks;
  for (BasicBlock &bb : k)
    for (Instruction &i : bb)
      if (auto *c = dyn_cast<ICmpInst>(&i))
        if (c->getMetadata("skein.bounds"))
          checks.push_back(c);
  if (checks.empty())
    return;
  Module &m = *k.getParent();
  TargetLibraryInfoImpl tlii(Triple(m.getTargetTriple()));
  Analyses a(k, tlii);
  for (ICmpInst *c : checks)
    add_box_test(c, a, m.getDataLayout());
}

extern "C" void cc_bounds_mark_invariant(LLVMModuleRef m) {
  Module &mod = *unwrap(m);
  MDNode *empty = MDNode::get(mod.getContext(), {});
  for (Function &f : mod) {
    if (f.isDeclaration() ||
        !f.getName().starts_with("__skein_ctx___skein_bounds_"))
      continue;
    // The loads through a pointer the function itself loaded (the
    // launch's fields and arrays); not those of the group record, which
    // the work-group function writes.
    for (BasicBlock &bb : f)
      for (Instruction &i : bb)
        if (auto *ld = dyn_cast<LoadInst>(&i))
          if (isa<LoadInst>(getUnderlyingObject(ld->getPointerOperand())))
            ld->setMetadata(LLVMContext::MD_invariant_load, empty);
  }
}

extern "C" void cc_bounds_hoist(LLVMModuleRef m) {
  Module &mod = *unwrap(m);
  const DataLayout &dl = mod.getDataLayout();
  TargetLibraryInfoImpl tlii(Triple(mod.getTargetTriple()));
  for (Function &f : mod) {
    if (f.isDeclaration())
      continue;
    // Region mode's work-group functions set the collective slots'
    // address once too (cc_region_forward_records).
    skein_records::forward_records(f, f.hasFnAttribute("skein-region"));
    // One loop at a time, with the analyses made afresh after each; each
    // copies a loop, so a kernel of very many loops stops at 64 (the
    // rest keep their checks in place).
    for (unsigned n = 0; n < 64 && version_one(f, dl, tlii); n++) {
    }
    for (BasicBlock &bb : f)   // loops that were not innermost
      for (Instruction &i : bb)
        i.setMetadata("skein.bounds", nullptr);
  }
}
