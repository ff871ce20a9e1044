// This file contains the image pass's inside versions (issue 9): a second
// copy of a format copy of a work-group function (image_version.cpp) for
// the work-groups whose coordinates are all inside the images, chosen by
// one test when the group starts. In that copy image.c's border tests
// (a read's and a write's `inside`, a read's guessed column) are
// constants, so the pixel loads and stores they guarded are plain ones.
// Where they stay predicated, the loop vectoriser makes them masked
// loads and stores, which AVX2 has for 32- and 64-bit elements only:
// LLVM's x86 cost model takes masked byte accesses for legal only with
// AVX512BW and costs each as a branch per lane, so the R UNORM_INT8
// loops stayed scalar with AVX2 code (7-16x the same work over a
// buffer).
//
// Which comparisons: an unsigned comparison `A < B` (or its negation as
// InstCombine writes it, `B <= A`, and `B == 0` for `0 < B`) where B is
// the same for the whole work-group and reads an image's descriptor (an
// extent), and A is the same for the whole group too, or is l + u
// (truncated or not) for a work-item loop's local id l and a u the same
// for the whole group: a global id, which __skein_get_global_id
// computes as group_id * local_size + l + offset, plus or minus what is
// the same for the group. Then A takes the values a0, a0 + 1, ...,
// a0 + n - 1 (modulo 2^width; n the loop's trip count, a0 A's value at
// l = 0), all below B exactly when a0 < B and B - a0 >= n. The test
// computes a0 and B when the group starts, from clones of their
// instructions with every local id 0 (the group's first work-item), and
// only from values that cannot change during the launch: constants,
// the entry block's values, the launch record and the image
// descriptors. A group whose test fails runs the copy as it was.
//
// Clamps to the edge, `min(max(A, 0), B - 1)` (image.c's clamp_edge,
// also over image_centres.cpp's bounds of a centre's index), are tested
// the same way: where A is inside [0, B) for the whole group, the clamp
// is A, and a read's guessed column (texel_f) then equals its pixel's,
// so its test and its gather go too.
#include "image_inside.h"
#include "compiler_internal.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <vector>

using namespace llvm;
using namespace llvm::PatternMatch;

namespace skein_images {

namespace {

// A fresh loop id for a copied loop's metadata; id itself where it is no
// loop id.
MDNode *fresh_loop_id(MDNode *id) {
  if (!id || id->getNumOperands() == 0 || id->getOperand(0) != id)
    return id;
  SmallVector<Metadata *, 4> ops;
  ops.push_back(nullptr);
  for (unsigned i = 1; i < id->getNumOperands(); i++)
    ops.push_back(id->getOperand(i));
  MDNode *n = MDNode::getDistinct(id->getContext(), ops);
  n->replaceOperandWith(0, n);
  return n;
}

} // namespace

SmallVector<BasicBlock *, 64> clone_blocks(Function &f,
                                           ArrayRef<BasicBlock *> blocks,
                                           const char *suffix,
                                           ValueToValueMapTy &vmap) {
  SmallVector<BasicBlock *, 64> made;
  for (BasicBlock *bb : blocks) {
    BasicBlock *n = CloneBasicBlock(bb, vmap, suffix, &f);
    vmap[bb] = n;
    made.push_back(n);
  }
  remapInstructionsInBlocks(made, vmap);
  for (BasicBlock *bb : made)
    for (Instruction &i : *bb)
      if (MDNode *id = i.getMetadata(LLVMContext::MD_loop))
        i.setMetadata(LLVMContext::MD_loop, fresh_loop_id(id));
  return made;
}

namespace {

// One format copy: its blocks, its work-item loops' local ids (each with
// its loop's bound, a value of the entry block) and which of its values
// are the same for every work-item of a group.
struct Copy {
  Function &f;
  ScalarEvolution &se;
  Copy(Function &fn, ScalarEvolution &s) : f(fn), se(s) {}
  SmallPtrSet<BasicBlock *, 32> blocks;
  DenseMap<PHINode *, Value *> ids;
  DenseMap<Value *, bool> uniform;
  // Phis of the kernel's own loops with a small range (a filter's
  // offsets), which the test at the group's start takes as 0.
  SmallPtrSet<PHINode *, 8> bounded;

  bool in(const Value *v) const {
    auto *i = dyn_cast<Instruction>(v);
    return i && blocks.count(i->getParent());
  }
};

// The blocks reachable from start without passing the entry block: the
// copy that start begins (the copies share no block).
void collect(Copy &c, BasicBlock *start) {
  std::vector<BasicBlock *> work = {start};
  BasicBlock *entry = &c.f.getEntryBlock();
  while (!work.empty()) {
    BasicBlock *bb = work.back();
    work.pop_back();
    if (bb == entry || !c.blocks.insert(bb).second)
      continue;
    for (BasicBlock *s : successors(bb))
      work.push_back(s);
  }
}

// The work-item loops of wg_gen.c's build_loops: do-while loops whose
// header phi starts at 0 and steps by 1 while the next value is below a
// bound of the entry block (the group's local size). Their phis are the
// local ids, the bound the number of values each takes (at least 1).
void find_ids(Copy &c) {
  for (BasicBlock *bb : c.blocks)
    for (PHINode &phi : bb->phis()) {
      if (!phi.getType()->isIntegerTy(64) || phi.getNumIncomingValues() != 2)
        continue;
      Instruction *next = nullptr;
      bool from_zero = false;
      for (Value *in : phi.incoming_values()) {
        auto *add = dyn_cast<BinaryOperator>(in);
        auto *one = add ? dyn_cast<ConstantInt>(add->getOperand(1)) : nullptr;
        if (auto *z = dyn_cast<ConstantInt>(in); z && z->isZero())
          from_zero = true;
        else if (add && add->getOpcode() == Instruction::Add &&
                 add->getOperand(0) == &phi && one && one->isOne())
          next = add;
      }
      if (!from_zero || !next)
        continue;
      // The compare must decide the back edge (so that the phi never
      // takes a value the bound does not admit).
      for (User *u : next->users()) {
        auto *cmp = dyn_cast<ICmpInst>(u);
        auto *br = cmp && cmp->hasOneUse()
                       ? dyn_cast<BranchInst>(*cmp->user_begin())
                       : nullptr;
        if (cmp && br && cmp->getPredicate() == ICmpInst::ICMP_ULT &&
            cmp->getOperand(0) == next && !c.in(cmp->getOperand(1)) &&
            br->getSuccessor(0) == bb && br->getSuccessor(1) != bb) {
          c.ids[&phi] = cmp->getOperand(1);
          break;
        }
      }
    }
}

Value *look_through(Value *v);

// Whether load ld may run when the group starts and reads then what it
// reads in the loops: an invariant load of an image descriptor (the
// image pass marks them; the runtime never changes a descriptor during
// a launch) at a constant offset inside the descriptor from an image
// value the entry block loaded (which the pass marks dereferenceable),
// or a load of the launch record (the work-group function's first
// argument, read-only for the whole launch) inside it.
bool readable_at_start(Copy &c, LoadInst *ld) {
  if (!ld->isSimple())
    return false;
  const DataLayout &dl = c.f.getParent()->getDataLayout();
  uint64_t size = dl.getTypeStoreSize(ld->getType());
  APInt offset(64, 0);
  Value *p = ld->getPointerOperand();
  for (unsigned depth = 0; depth < 8; depth++) {
    if (auto *gep = dyn_cast<GEPOperator>(p)) {
      APInt o(64, 0);
      if (!gep->accumulateConstantOffset(dl, o))
        return false;
      offset += o;
      p = gep->getPointerOperand();
    } else if (auto *cast = dyn_cast<Operator>(p);
               cast && (cast->getOpcode() == Instruction::AddrSpaceCast ||
                        cast->getOpcode() == Instruction::BitCast)) {
      p = cast->getOperand(0);
    } else {
      break;
    }
  }
  if (offset.isNegative())
    return false;
  uint64_t end = offset.getZExtValue() + size;
  if (auto *a = dyn_cast<Argument>(p))
    return a->getArgNo() == 0 && a->onlyReadsMemory() &&
           end <= sizeof(skein_launch);
  auto *root = dyn_cast<LoadInst>(p);
  MDNode *deref =
      root ? root->getMetadata(LLVMContext::MD_dereferenceable) : nullptr;
  if (!deref || c.in(root) ||
      !ld->getMetadata(LLVMContext::MD_invariant_load))
    return false;
  auto *bytes = mdconst::extract<ConstantInt>(deref->getOperand(0));
  return end <= bytes->getZExtValue();
}

// Whether v is the same for every work-item of a group and can be
// computed when the group starts (see readable_at_start): constants,
// arguments and the entry block's values, and, in the copy, arithmetic
// that cannot trap on such values, the work-item builtins' helpers
// called with them, and loads readable at the start.
bool is_uniform(Copy &c, Value *v, unsigned depth = 0) {
  if (!c.in(v))
    return true;
  if (auto it = c.uniform.find(v); it != c.uniform.end())
    return it->second;
  if (depth > 24)
    return false;
  auto *i = cast<Instruction>(v);
  bool u = false;
  auto operands_uniform = [&](auto range) {
    for (Value *op : range)
      if (!is_uniform(c, op, depth + 1))
        return false;
    return true;
  };
  if (isa<PHINode>(i)) {
    Value *w = look_through(i);
    u = w != i && is_uniform(c, w, depth + 1);
  } else if (auto *ld = dyn_cast<LoadInst>(i)) {
    u = readable_at_start(c, ld) &&
        is_uniform(c, ld->getPointerOperand(), depth + 1);
  } else if (auto *call = dyn_cast<CallInst>(i)) {
    Function *callee = call->getCalledFunction();
    Intrinsic::ID id = callee ? callee->getIntrinsicID() : Intrinsic::not_intrinsic;
    bool pure = callee && (callee->getName().starts_with("__skein_get_") ||
                           id == Intrinsic::umin || id == Intrinsic::umax ||
                           id == Intrinsic::smin || id == Intrinsic::smax);
    u = pure && operands_uniform(call->args());
  } else if (auto *bo = dyn_cast<BinaryOperator>(i)) {
    u = !bo->isIntDivRem() && operands_uniform(i->operands());
  } else if (isa<CastInst>(i) || isa<CmpInst>(i) || isa<SelectInst>(i) ||
             isa<GetElementPtrInst>(i) || isa<FreezeInst>(i)) {
    u = operands_uniform(i->operands());
  }
  c.uniform[v] = u;
  return u;
}

// The value phi v stands for where it merges one value with poison (the
// pass runs before the CFG is simplified: image.c's paths that do not
// use a read's column join it with poison), else v itself. A test that
// takes that value where the original was poison is a refinement.
Value *look_through(Value *v) {
  auto *phi = dyn_cast<PHINode>(v);
  if (!phi)
    return v;
  Value *only = nullptr;
  for (Value *in : phi->incoming_values()) {
    if (isa<UndefValue>(in) || in == phi)   /* poison is an UndefValue */
      continue;
    if (only && only != in)
      return v;
    only = in;
  }
  return only ? only : v;
}

// Whether uniform value v reads an image descriptor: an invariant load
// in its operands.
bool reads_image(Value *v, unsigned depth = 0) {
  auto *i = dyn_cast<Instruction>(v);
  if (!i || depth > 12)
    return false;
  if (isa<LoadInst>(i))
    return i->getMetadata(LLVMContext::MD_invariant_load) != nullptr;
  for (Value *op : i->operands())
    if (reads_image(op, depth + 1))
      return true;
  return false;
}

// v as (a value the same for the group) + coef * id, modulo 2^width:
// ok false where it is not of that form, id null where coef is 0.
// Plus, where lo < hi, a sum of phis of the kernel's loops that takes
// values in lo .. hi only (a 5x5 filter's x + dx: dx in -2 .. 2), which
// the clone at the group's start (at_start) computes as 0.
struct Linear {
  bool ok;
  PHINode *id;
  int64_t coef;
  int64_t lo = 0, hi = 0;
};

// The bound on the offsets' range (far below any overflow).
constexpr int64_t OFFSET_BOUND = 1 << 16;

Linear sum(Linear a, Linear b, int64_t sign) {
  if (!a.ok || !b.ok || (a.id && b.id && a.id != b.id))
    return {false, nullptr, 0};
  Linear r = {true, a.id ? a.id : b.id, a.coef + sign * b.coef};
  if (r.coef == 0)
    r.id = nullptr;
  r.lo = a.lo + (sign > 0 ? b.lo : -b.hi);
  r.hi = a.hi + (sign > 0 ? b.hi : -b.lo);
  if (r.lo < -OFFSET_BOUND || r.hi > OFFSET_BOUND)
    return {false, nullptr, 0};
  return r;
}

// A phi of one of the kernel's loops (not a work-item loop) whose values
// scalar evolution bounds to a small range: an offset of a filter.
Linear offset(Copy &c, PHINode *phi) {
  if (!phi->getType()->isIntegerTy() ||
      phi->getType()->getIntegerBitWidth() > 64 ||
      !c.se.isSCEVable(phi->getType()))
    return {false, nullptr, 0};
  ConstantRange r = c.se.getSignedRange(c.se.getSCEV(phi));
  if (r.isFullSet() || r.isEmptySet())
    return {false, nullptr, 0};
  int64_t lo = r.getSignedMin().getSExtValue(),
          hi = r.getSignedMax().getSExtValue();
  if (lo < -OFFSET_BOUND || hi > OFFSET_BOUND)
    return {false, nullptr, 0};
  c.bounded.insert(phi);
  Linear l = {true, nullptr, 0};
  l.lo = lo, l.hi = hi;
  return l;
}

Linear linear(Copy &c, Value *v, unsigned depth = 0) {
  v = look_through(v);
  if (auto *phi = dyn_cast<PHINode>(v); phi && c.ids.count(phi))
    return {true, phi, 1};
  if (is_uniform(c, v))
    return {true, nullptr, 0};
  auto *i = dyn_cast<Instruction>(v);
  if (!i || depth > 16)
    return {false, nullptr, 0};
  switch (i->getOpcode()) {
  case Instruction::PHI:
    return offset(c, cast<PHINode>(i));
  case Instruction::Trunc:
    return linear(c, i->getOperand(0), depth + 1);
  case Instruction::Add:
  case Instruction::Sub:
    return sum(linear(c, i->getOperand(0), depth + 1),
               linear(c, i->getOperand(1), depth + 1),
               i->getOpcode() == Instruction::Add ? 1 : -1);
  case Instruction::Call: {
    // __skein_get_global_id(group, lx, ly, lz, d) (builtins/workitem.c):
    // the group's fields, which are the same for the group, plus the
    // local id of dimension d.
    auto *call = cast<CallInst>(i);
    Function *callee = call->getCalledFunction();
    auto *d = call->arg_size() == 5
                  ? dyn_cast<ConstantInt>(call->getArgOperand(4))
                  : nullptr;
    if (!callee || callee->getName() != "__skein_get_global_id" || !d ||
        d->getZExtValue() > 2 || !is_uniform(c, call->getArgOperand(0)))
      return {false, nullptr, 0};
    for (unsigned k = 1; k <= 3; k++) {
      auto *phi = dyn_cast<PHINode>(call->getArgOperand(k));
      if (!(phi && c.ids.count(phi)) &&
          !is_uniform(c, call->getArgOperand(k)))
        return {false, nullptr, 0};
    }
    return linear(c, call->getArgOperand(1 + (unsigned)d->getZExtValue()),
                  depth + 1);
  }
  default:
    return {false, nullptr, 0};
  }
}

// A border test: cmp is `a < b` (value true for the whole group where
// the test at the group's start passes) or its negation (value false).
// Or a clamp to the edge: cmp is null and clamp is `min(max(a, 0), m)`
// with b = m + 1 (a itself where a < b for the whole group), the max
// maybe over `min(max(a, lo), hi)` with lo <= 0 and b <= hi + 1
// (image_centres.cpp's bounds of a pixel centre's index), which the test
// at the group's start checks with hi.
struct Test {
  ICmpInst *cmp;
  Value *a, *b;
  bool value;
  PHINode *id;   // the local id a varies with, or null
  int64_t lo = 0, hi = 0;   // a's offsets (Linear)
  IntrinsicInst *clamp = nullptr;
  Value *m = nullptr;
  const APInt *inner_hi = nullptr;
  Value *cond = nullptr;   // a clamp's a is chosen where cond == cond_value
  bool cond_value = false;
};

// Whether a is a coordinate whose border tests the inside version can
// decide: the same for the group, or a local id (coefficient 1) plus
// something that is.
bool coordinate(Copy &c, Value *a, Test &t) {
  Linear l = linear(c, a);
  t.id = l.id;
  t.lo = l.lo;
  t.hi = l.hi;
  return l.ok && (!l.id || l.coef == 1);
}

bool border_test(Copy &c, ICmpInst *cmp, Test &t) {
  Value *l = cmp->getOperand(0), *r = cmp->getOperand(1);
  auto *width = dyn_cast<IntegerType>(l->getType());
  if (!width || width->getBitWidth() > 64)
    return false;
  auto zero = [](Value *v) {
    auto *k = dyn_cast<ConstantInt>(v);
    return k && k->isZero();
  };
  t.cmp = cmp;
  switch (cmp->getPredicate()) {
  case ICmpInst::ICMP_ULT: t.a = l, t.b = r, t.value = true; break;
  case ICmpInst::ICMP_UGT: t.a = r, t.b = l, t.value = true; break;
  case ICmpInst::ICMP_ULE: t.a = r, t.b = l, t.value = false; break;
  case ICmpInst::ICMP_UGE: t.a = l, t.b = r, t.value = false; break;
  case ICmpInst::ICMP_EQ:   /* b == 0: !(0 < b) */
  case ICmpInst::ICMP_NE:   /* b != 0: 0 < b */
    if (!zero(r))
      return false;
    t.a = r, t.b = l, t.value = cmp->getPredicate() == ICmpInst::ICMP_NE;
    break;
  default:
    return false;
  }
  if (!c.in(cmp) || !is_uniform(c, t.b) || !reads_image(t.b))
    return false;
  return coordinate(c, t.a, t);
}

// a without image_centres.cpp's bounds of a centre's index,
// `min(max(a, lo), hi)` in either order with lo <= 0 <= hi, into t.a (hi
// into t.inner_hi where it bounds anything); false where the bounds are
// not such.
bool within_bounds(Value *a, Test &t) {
  const APInt *lo, *hi;
  t.inner_hi = nullptr;
  t.a = a;
  if (match(a, m_SMin(m_SMax(m_Value(t.a), m_APInt(lo)), m_APInt(hi))) ||
      match(a, m_SMax(m_SMin(m_Value(t.a), m_APInt(hi)), m_APInt(lo)))) {
    if (!lo->isNonPositive() || hi->isNegative())
      return false;
    if (!hi->isMaxSignedValue())   /* else it bounds nothing */
      t.inner_hi = hi;
  }
  return true;
}

// A clamp to the edge (see Test): image.c's clamp_edge, `max(i, 0)` then
// `min(that, extent - 1)`, as InstCombine leaves it.
bool edge_clamp(Copy &c, IntrinsicInst *mn, Test &t) {
  if (mn->getIntrinsicID() != Intrinsic::smin || !c.in(mn))
    return false;
  for (unsigned k = 0; k < 2; k++) {
    auto *mx = dyn_cast<IntrinsicInst>(mn->getArgOperand(k));
    Value *m = mn->getArgOperand(1 - k);
    const APInt *zero;
    Value *a;
    if (!mx || mx->getIntrinsicID() != Intrinsic::smax ||
        !match(mx->getArgOperand(1), m_APInt(zero)) || !zero->isZero() ||
        !is_uniform(c, m) || !reads_image(m))
      continue;
    a = mx->getArgOperand(0);
    // A choice on a value the same for the group (a sampler argument's
    // normalised-coordinates bit, image_centres.cpp folding one side):
    // the side that is a coordinate, where the test at the group's start
    // finds the condition choosing it.
    t.cond = nullptr;
    if (auto *sel = dyn_cast<SelectInst>(a);
        sel && is_uniform(c, sel->getCondition()))
      for (unsigned side = 0; side < 2 && !t.cond; side++) {
        Value *v = side ? sel->getFalseValue() : sel->getTrueValue();
        if (within_bounds(v, t) && coordinate(c, t.a, t)) {
          a = v;
          t.cond = sel->getCondition();
          t.cond_value = side == 0;
        }
      }
    if (!within_bounds(a, t) || !coordinate(c, t.a, t))
      return false;
    t.cmp = nullptr;
    t.clamp = mn;
    t.m = m;
    t.b = nullptr;
    t.value = true;
    return true;
  }
  return false;
}

// Clones v's instructions in the copy before b's insertion point, every
// local id 0 (poison-generating flags dropped: the clone runs where the
// original might not).
Value *at_start(Copy &c, Value *v, IRBuilder<> &b,
                DenseMap<Value *, Value *> &done) {
  if (!c.in(v))
    return v;
  if (auto *phi = dyn_cast<PHINode>(v))
    return c.ids.count(phi) || c.bounded.count(phi)
               ? ConstantInt::get(phi->getType(), 0)
               : at_start(c, look_through(phi), b, done);
  if (Value *d = done.lookup(v))
    return d;
  auto *i = cast<Instruction>(v);
  Instruction *n = i->clone();
  for (unsigned k = 0; k < i->getNumOperands(); k++)
    n->setOperand(k, at_start(c, i->getOperand(k), b, done));
  n->dropPoisonGeneratingFlags();
  n->dropUnknownNonDebugMetadata({LLVMContext::MD_invariant_load});
  b.Insert(n);
  done[v] = n;
  return n;
}

// Gives the copy that starts at case k of switch sw an inside version.
bool make_inside(Function &f, SwitchInst *sw, unsigned k) {
  BasicBlock *start = sw->getSuccessor(k);
  FunctionAnalyses an(f);   // f as it is now: each inside version changes f
  Copy c{f, an.se};
  collect(c, start);
  find_ids(c);
  std::vector<Test> tests;
  for (BasicBlock &bb : f) {
    if (!c.blocks.count(&bb))
      continue;
    for (Instruction &i : bb) {
      Test t;
      auto *cmp = dyn_cast<ICmpInst>(&i);
      auto *mn = dyn_cast<IntrinsicInst>(&i);
      if ((cmp && border_test(c, cmp, t)) || (mn && edge_clamp(c, mn, t)))
        tests.push_back(t);
    }
  }
  if (tests.empty())
    return false;

  LLVMContext &ctx = f.getContext();
  BasicBlock *check = BasicBlock::Create(ctx, "image.inside", &f, start);
  IRBuilder<> b(check);
  DenseMap<Value *, Value *> done;
  Value *all = b.getTrue();
  for (const Test &t : tests) {
    Value *a0 = at_start(c, t.a, b, done);
    Value *bound = t.clamp ? b.CreateAdd(at_start(c, t.m, b, done),
                                         ConstantInt::get(t.a->getType(), 1))
                           : at_start(c, t.b, b, done);
    Value *n = t.id ? c.ids.lookup(t.id) : b.getInt64(1);
    // With offsets in lo .. hi, a takes a0 + lo .. a0 + hi + n - 1.
    if (t.lo != t.hi) {
      a0 = b.CreateAdd(a0, ConstantInt::get(a0->getType(), t.lo, true));
      n = b.CreateAdd(n, b.getInt64(t.hi - t.lo));
    }
    Value *room = b.CreateZExt(b.CreateSub(bound, a0), b.getInt64Ty());
    all = b.CreateAnd(all, b.CreateAnd(b.CreateICmpULT(a0, bound),
                                       b.CreateICmpUGE(room, n)));
    // A clamp is a itself where 0 <= a < bound as signed values too, and
    // the inner bounds keep every such a.
    if (t.clamp) {
      all = b.CreateAnd(all, b.CreateICmpSGT(bound, ConstantInt::get(
                                                        bound->getType(), 0)));
      if (t.cond)
        all = b.CreateAnd(all, b.CreateICmpEQ(at_start(c, t.cond, b, done),
                                              b.getInt1(t.cond_value)));
      if (t.inner_hi)
        all = b.CreateAnd(all, b.CreateICmpSLE(
                                   bound, ConstantInt::get(bound->getType(),
                                                           *t.inner_hi + 1)));
    }
  }

  ValueToValueMapTy vmap;
  SmallVector<BasicBlock *, 64> copies;
  for (BasicBlock &bb : f)
    if (c.blocks.count(&bb))
      copies.push_back(&bb);
  clone_blocks(f, copies, ".inside", vmap);
  for (const Test &t : tests) {
    Instruction *at = t.cmp ? static_cast<Instruction *>(t.cmp) : t.clamp;
    auto *n = cast<Instruction>(vmap[at]);
    Value *a = t.a;
    if (Value *copied = vmap.lookup(a))
      a = copied;
    n->replaceAllUsesWith(t.clamp ? a : ConstantInt::getBool(ctx, t.value));
    n->eraseFromParent();
  }
  auto *inside = cast<BasicBlock>(vmap[start]);
  b.CreateCondBr(all, inside, start);
  sw->setSuccessor(k, check);
  BasicBlock *entry = sw->getParent();
  for (BasicBlock *s : {start, inside})
    for (PHINode &phi : s->phis())
      phi.replaceIncomingBlockWith(entry, check);
  return true;
}

} // namespace

unsigned version_inside(Function &f, function_ref<bool(uint64_t)> wanted) {
  auto *sw = dyn_cast<SwitchInst>(f.getEntryBlock().getTerminator());
  if (!sw)
    return 0;
  std::vector<unsigned> wanted_cases;
  for (auto &cs : sw->cases())
    if (wanted(cs.getCaseValue()->getZExtValue()))
      wanted_cases.push_back(cs.getSuccessorIndex());
  unsigned made = 0;
  for (unsigned k : wanted_cases)
    made += make_inside(f, sw, k);
  return made;
}

} // namespace skein_images
