// This file contains region mode's group steps: the reductions, scans,
// all and any of the work-group and sub-group collectives, computed once
// per group between two work-item loops instead of by a library call
// inside one (which kept that loop scalar).
//
// The work-item loop before the step deposits each work-item's value in
// its slot (skein_group.collective: slot lid for a work-group collective,
// a whole 8-byte slot; for a sub-group one, slot lid of an array that
// starts at slot n + 1, of 4-byte slots for values of at most 32 bits
// and 8-byte ones otherwise), so the deposit is a contiguous store the
// vectoriser widens; the step computes the
// results into the slots; the loop after it reads each work-item's
// result. A sub-group's step is in registers: each full sub-group of the
// kernel's compile-time size is one vector load, log2(size) shuffles and
// operations (a butterfly for a reduction, a Hillis-Steele ladder for a
// scan) and one store. What that does not cover (the shorter last
// sub-group of a group, a launch whose sub-group size differs from the
// compile-time one, as with intel_reqd_sub_group_size) is computed in
// lane order from the identity, as the library does. A work-group step
// is in registers too, a vector of the target's width at a time
// (work_group_in_registers); the result of a reduction, all or any goes
// to slot n. The non-uniform
// reductions, scans, all and any are the uniform ones here: region mode
// takes them only where every work-item reaches them.
//
// Floating-point reductions and scans combine in another order than the
// library's left fold (the spec does not fix the order); the identity is
// applied first, as the library's fold starts from it, so that a -0.0 or
// a NaN lane gives what the library gives.
#include "region_internal.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/ADT/StringSwitch.h>

#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <algorithm>
#include <functional>

using namespace llvm;

namespace skein_region {

// Parses the __skein_ctx_ name of a reduce, scan, all or any; false for
// any other collective (broadcast keeps its call in the loop: its lane
// argument is per work-item).
bool parse_group_step(CallInst *call, StringRef name, bool sub_group,
                      GroupStep *out) {
  StringRef rest = name;
  size_t at = rest.find(sub_group ? "sub_group_" : "work_group_");
  if (at == StringRef::npos)
    return false;
  rest = rest.drop_front(at + (sub_group ? 10 : 11));
  GroupStep s;
  s.library = call->getCalledFunction();
  s.type = call->getType();
  s.sub_group = sub_group;
  s.op = GroupStep::ADD;
  // Region mode takes a call only where every work-item of the group
  // reaches it: the active set of a non-uniform one is then the whole
  // sub-group, and it is the uniform function.
  if (sub_group)
    rest.consume_front("non_uniform_");
  s.cluster = 0;
  if (sub_group && rest.consume_front("clustered_reduce_")) {
    // sub_group_clustered_reduce_<op>(x, clustersize): the size is a
    // compile-time power of two (the extension says so), at most the
    // compile-time width here; the mangling ends in its j.
    auto *size = dyn_cast<ConstantInt>(call->getArgOperand(2));
    if (!size || !rest.consume_back("j") || size->getZExtValue() == 0 ||
        size->getZExtValue() > cc_sub_group_size() ||
        !isPowerOf2_64(size->getZExtValue()))
      return false;
    s.kind = GroupStep::REDUCE;
    s.cluster = (unsigned)size->getZExtValue();
  } else if (rest.consume_front("reduce_"))
    s.kind = GroupStep::REDUCE;
  else if (rest.consume_front("scan_inclusive_"))
    s.kind = GroupStep::SCAN_INCLUSIVE;
  else if (rest.consume_front("scan_exclusive_"))
    s.kind = GroupStep::SCAN_EXCLUSIVE;
  else if (rest.consume_front("all"))
    s.kind = GroupStep::ALL, s.op = GroupStep::AND;
  else if (rest.consume_front("any"))
    s.kind = GroupStep::ANY, s.op = GroupStep::OR;
  else
    return false;
  s.logical = s.kind == GroupStep::ALL || s.kind == GroupStep::ANY;
  if (!s.logical) {
    // The operators of OpenCL C and cl_khr_work_group_uniform_arithmetic
    // / cl_khr_subgroup_non_uniform_arithmetic.
    s.logical = rest.consume_front("logical_");
    if (rest.consume_front("add"))
      s.op = GroupStep::ADD;
    else if (rest.consume_front("mul"))
      s.op = GroupStep::MUL;
    else if (rest.consume_front("min"))
      s.op = GroupStep::MIN;
    else if (rest.consume_front("max"))
      s.op = GroupStep::MAX;
    else if (rest.consume_front("and"))
      s.op = GroupStep::AND;
    else if (rest.consume_front("or"))
      s.op = GroupStep::OR;
    else if (rest.consume_front("xor"))
      s.op = GroupStep::XOR;
    else
      return false;
    bool bitwise = s.op == GroupStep::AND || s.op == GroupStep::OR ||
                   s.op == GroupStep::XOR;
    if (s.logical && (!bitwise || rest != "i"))
      return false;   // logical_ names and/or/xor of int only
    // The argument type: c, s, i, l signed; h, t, j, m unsigned (char
    // and short: cl_khr_subgroup_extended_types); f, d.
    StringRef types = bitwise ? "chstijlm" : "chstijlmfd";
    if (rest.size() != 1 || !types.contains(rest))
      return false;
  } else if (rest != "i") {
    return false;   // all_equal
  }
  s.is_signed = rest == "c" || rest == "s" || rest == "i" || rest == "l";
  *out = s;
  return true;
}

// t with the element count of like if like is a vector.
static Type *shaped_like(Type *like, Type *t) {
  if (auto *vt = dyn_cast<VectorType>(like))
    return VectorType::get(t, vt->getElementCount());
  return t;
}

// A value (or vector of values) as whole slots (8 bytes, the low bytes of
// skein's slot union, unless told another width) and back.
Value *to_slot(IRBuilder<> &b, Value *v, Type *slot) {
  Type *t = v->getType(), *e = t->getScalarType();
  if (e->isFloatingPointTy())
    v = b.CreateBitCast(
        v, shaped_like(t, b.getIntNTy(e->getPrimitiveSizeInBits())));
  return b.CreateZExt(v, shaped_like(t, slot));
}

Value *to_slot(IRBuilder<> &b, Value *v) {
  return to_slot(b, v, b.getInt64Ty());
}

Type *sub_slot_type(const Cutter &c, Type *value) {
  LLVMContext &ctx = value->getContext();
  return value->getScalarSizeInBits() <= 32 && !c.wide_sub_slots
             ? Type::getInt32Ty(ctx)
             : Type::getInt64Ty(ctx);
}

Type *group_slot_type(const Cutter &c, Type *value) {
  LLVMContext &ctx = value->getContext();
  return value->getScalarSizeInBits() <= 32 && !c.wide_group_slots
             ? Type::getInt32Ty(ctx)
             : Type::getInt64Ty(ctx);
}

Value *sub_slot_at(IRBuilder<> &b, Value *slots, Value *n, Type *slot,
                   Value *lid) {
  Value *first = b.CreateInBoundsGEP(b.getInt64Ty(), slots, slot_area(b, n));
  return b.CreateInBoundsGEP(slot, first, lid);
}

Value *from_slot(IRBuilder<> &b, Value *slot, Type *t) {
  Type *like = slot->getType();
  Type *bits = t->isIntegerTy() ? t : b.getIntNTy(t->getPrimitiveSizeInBits());
  return b.CreateBitCast(b.CreateTrunc(slot, shaped_like(like, bits)),
                         shaped_like(like, t));
}

// The step's operator on two values of its type (scalars or vectors).
static Value *apply(IRBuilder<> &b, const GroupStep &s, Value *x, Value *y) {
  bool fp = s.type->isFloatingPointTy();
  switch (s.op) {
  case GroupStep::ADD:
    return fp ? b.CreateFAdd(x, y) : b.CreateAdd(x, y);
  case GroupStep::MUL:
    return fp ? b.CreateFMul(x, y) : b.CreateMul(x, y);
  case GroupStep::MIN:
    return b.CreateBinaryIntrinsic(fp ? Intrinsic::minnum
                                   : s.is_signed ? Intrinsic::smin
                                                 : Intrinsic::umin,
                                   x, y);
  case GroupStep::MAX:
    return b.CreateBinaryIntrinsic(fp ? Intrinsic::maxnum
                                   : s.is_signed ? Intrinsic::smax
                                                 : Intrinsic::umax,
                                   x, y);
  case GroupStep::AND:
    return b.CreateAnd(x, y);
  case GroupStep::OR:
    return b.CreateOr(x, y);
  case GroupStep::XOR:
    return b.CreateXor(x, y);
  }
  return x;
}

// The operator's identity in the step's type.
static Constant *identity(const GroupStep &s) {
  Type *t = s.type;
  unsigned bits = t->getScalarSizeInBits();
  if (t->isFloatingPointTy()) {
    if (s.op == GroupStep::ADD || s.op == GroupStep::MUL)
      return ConstantFP::get(t, s.op == GroupStep::MUL ? 1.0 : 0.0);
    return ConstantFP::getInfinity(t, s.op == GroupStep::MAX);
  }
  switch (s.op) {
  case GroupStep::ADD:
  case GroupStep::OR:
  case GroupStep::XOR:
    return ConstantInt::get(t, 0);
  case GroupStep::MUL:
    return ConstantInt::get(t, 1);
  case GroupStep::AND:   // predicates are 0 or 1 here
    return s.logical ? ConstantInt::get(t, 1) : Constant::getAllOnesValue(t);
  case GroupStep::MIN:
    return ConstantInt::get(t, s.is_signed ? APInt::getSignedMaxValue(bits)
                                           : APInt::getMaxValue(bits));
  case GroupStep::MAX:
    return ConstantInt::get(t, s.is_signed ? APInt::getSignedMinValue(bits)
                                           : APInt::getMinValue(bits));
  }
  return nullptr;
}

// One full sub-group of `lanes` work-items in registers: v holds its
// deposited values; returns every member's result.
static Value *sub_group_in_registers(IRBuilder<> &b, const GroupStep &s,
                                     Value *v, unsigned lanes) {
  if (s.logical)
    v = b.CreateZExt(b.CreateICmpNE(v, Constant::getNullValue(v->getType())),
                     v->getType());
  Value *id = ConstantVector::getSplat(ElementCount::getFixed(lanes),
                                       identity(s));
  if (s.type->isFloatingPointTy())
    v = apply(b, s, id, v);   // the library's fold starts from it
  std::vector<int> mask(lanes);
  if (s.kind != GroupStep::SCAN_INCLUSIVE &&
      s.kind != GroupStep::SCAN_EXCLUSIVE) {
    // Butterfly: after the step of distance d every lane holds the
    // combination of its aligned block of 2d lanes, the same in each.
    // A cluster's butterfly stays within its aligned block of lanes.
    for (unsigned d = (s.cluster ? s.cluster : lanes) / 2; d >= 1; d /= 2) {
      for (unsigned i = 0; i < lanes; i++)
        mask[i] = (int)(i ^ d);
      v = apply(b, s, v, b.CreateShuffleVector(v, v, mask));
    }
    return v;
  }
  // Ladder: after the step of distance d lane i holds lanes i-2d+1..i;
  // lanes below d take the identity (the second shuffle operand).
  for (unsigned d = 1; d < lanes; d *= 2) {
    for (unsigned i = 0; i < lanes; i++)
      mask[i] = i >= d ? (int)(i - d) : (int)(lanes + i);
    v = apply(b, s, b.CreateShuffleVector(v, id, mask), v);
  }
  if (s.kind == GroupStep::SCAN_EXCLUSIVE) {
    for (unsigned i = 0; i < lanes; i++)
      mask[i] = i >= 1 ? (int)(i - 1) : (int)lanes;
    v = b.CreateShuffleVector(v, id, mask);
  }
  return v;
}

// A counted loop at b: body(i) for i = from, from + step, ... below to;
// leaves b after the loop.
template <typename Body>
static void emit_for(IRBuilder<> &b, Value *from, Value *to, Value *step,
                     Body body) {
  Function *f = b.GetInsertBlock()->getParent();
  LLVMContext &ctx = f->getContext();
  BasicBlock *pre = b.GetInsertBlock();
  BasicBlock *head = BasicBlock::Create(ctx, "step.head", f);
  BasicBlock *loop = BasicBlock::Create(ctx, "step.body", f);
  BasicBlock *exit = BasicBlock::Create(ctx, "step.exit", f);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  PHINode *i = b.CreatePHI(b.getInt64Ty(), 2, "step.i");
  i->addIncoming(from, pre);
  b.CreateCondBr(b.CreateICmpULT(i, to), loop, exit);
  b.SetInsertPoint(loop);
  body(i);
  i->addIncoming(b.CreateAdd(i, step), b.GetInsertBlock());
  b.CreateBr(head);
  b.SetInsertPoint(exit);
}

// One step of an in-order fold: acc = acc op x; a scan leaves the
// inclusive or exclusive running value in the slot at, which held x.
static void fold_slot(IRBuilder<> &b, const GroupStep &s, AllocaInst *acc,
                      Value *x, Type *slot, Value *at, bool scan) {
  Value *before = b.CreateLoad(s.type, acc);
  Value *after = apply(b, s, before, x);
  b.CreateStore(after, acc);
  if (scan)
    b.CreateStore(
        to_slot(b, s.kind == GroupStep::SCAN_INCLUSIVE ? after : before, slot),
        at);
}

// One sub-group of lanes [first, end) of sub_slots in lane order from
// the identity, as the library computes it: the part the registers do
// not cover. Not the library itself: a non-uniform function's would park
// (fiber mode's hook, which region mode has not).
static void sub_group_in_order(IRBuilder<> &b, const GroupStep &s,
                               Type *slot, Value *sub_slots, Value *first,
                               Value *end) {
  Function *f = b.GetInsertBlock()->getParent();
  IRBuilder<> eb(&f->getEntryBlock(), f->getEntryBlock().begin());
  AllocaInst *acc = eb.CreateAlloca(s.type, nullptr, "step.acc");
  b.CreateStore(identity(s), acc);
  bool predicate = s.logical;
  bool scan = s.kind == GroupStep::SCAN_INCLUSIVE ||
              s.kind == GroupStep::SCAN_EXCLUSIVE;
  emit_for(b, first, end, b.getInt64(1), [&](Value *k) {
    Value *at = b.CreateInBoundsGEP(slot, sub_slots, k);
    Value *x = from_slot(b, b.CreateLoad(slot, at), s.type);
    if (predicate)
      x = b.CreateZExt(b.CreateICmpNE(x, Constant::getNullValue(s.type)),
                       s.type);
    fold_slot(b, s, acc, x, slot, at, scan);
  });
  if (scan)
    return;
  Value *total = to_slot(b, b.CreateLoad(s.type, acc), slot);
  emit_for(b, first, end, b.getInt64(1), [&](Value *k) {
    b.CreateStore(total, b.CreateInBoundsGEP(slot, sub_slots, k));
  });
}

// A predicate's value as 0 or 1 (all, any, logical_*), else v.
static Value *as_operand(IRBuilder<> &b, const GroupStep &s, Value *v) {
  if (!s.logical)
    return v;
  return b.CreateZExt(b.CreateICmpNE(v, Constant::getNullValue(v->getType())),
                      v->getType());
}

// A work-group reduction, scan, all or any over the n deposited slots,
// computed after the deposit's loop in vectors of the target's width,
// where the library's left fold (builtins/collectives.c, called as the
// last work-item) ran one slot at a time: a float sum of 256 slots was
// one dependent chain of 256 additions, as long as the whole copy of the
// group's data. A scan runs the sub-groups' ladder on each vector and adds
// the running total of the vectors before it; a reduction adds the vectors
// lane by lane and runs the butterfly once at the end. The slots past
// the last whole vector are folded in order. Any order is allowed for
// floating point (OpenCL C 3.0, 6.15.19); the identity is applied first,
// as in the library's fold.
static void work_group_in_registers(IRBuilder<> &b, const GroupStep &s,
                                    Type *slot, Value *slots, Value *n) {
  // As many values as fill a register (the slots are wider than 32-bit
  // values: two loads and a narrowing each).
  unsigned lanes = std::max(2u, cc_target_get()->vector_bits /
                                    s.type->getScalarSizeInBits());
  Value *lanes_v = b.getInt64(lanes);
  Value *whole = b.CreateMul(b.CreateUDiv(n, lanes_v), lanes_v, "whole");
  auto *vec_ty = FixedVectorType::get(slot, lanes);
  Align align(slot->getScalarSizeInBits() / 8);
  Constant *id = identity(s);
  Function *f = b.GetInsertBlock()->getParent();
  IRBuilder<> eb(&f->getEntryBlock(), f->getEntryBlock().begin());
  // The running total (a scan's, then the tail's) in a variable that
  // SROA turns into registers.
  AllocaInst *acc = eb.CreateAlloca(s.type, nullptr, "wg.acc");
  b.CreateStore(id, acc);
  bool scan = s.kind == GroupStep::SCAN_INCLUSIVE ||
              s.kind == GroupStep::SCAN_EXCLUSIVE;
  // A vector accumulator: a scan's running total in every lane, a
  // reduction's lane-wise partial results.
  AllocaInst *vacc = eb.CreateAlloca(vec_ty->getWithNewType(s.type),
                                     nullptr, "wg.vacc");
  b.CreateStore(ConstantVector::getSplat(ElementCount::getFixed(lanes), id),
                vacc);
  if (scan) {
    GroupStep ladder = s;
    ladder.kind = GroupStep::SCAN_INCLUSIVE;
    ladder.cluster = 0;
    std::vector<int> last(lanes, (int)lanes - 1);
    emit_for(b, b.getInt64(0), whole, lanes_v, [&](Value *first) {
      Value *at = b.CreateInBoundsGEP(slot, slots, first);
      Value *v = from_slot(b, b.CreateAlignedLoad(vec_ty, at, align), s.type);
      // The ladder does not wait for the vectors before; the running
      // total stays a vector (a broadcast lane), since a round trip
      // through a scalar register made the carry the longest chain (AVX2
      // code's int scan ran at half the library's speed with it). The
      // next total is this one plus the ladder's last lane broadcast,
      // which is the result's last lane (the total is the same in every
      // lane): one operation a vector on the carried chain, where
      // broadcasting the result's lane put the shuffle on it too (a
      // float scan's chain was two additions and a lane permute a
      // vector, 11 cycles in AVX2 code).
      Value *before = b.CreateLoad(vacc->getAllocatedType(), vacc);
      Value *own = sub_group_in_registers(b, ladder, v, lanes);
      Value *incl = apply(b, s, before, own);
      Value *r = incl;
      if (s.kind == GroupStep::SCAN_EXCLUSIVE) {
        std::vector<int> mask(lanes);
        for (unsigned i = 0; i < lanes; i++)
          mask[i] = i >= 1 ? (int)(i - 1) : (int)lanes;
        r = b.CreateShuffleVector(incl, before, mask);
      }
      b.CreateAlignedStore(to_slot(b, r, slot), at, align);
      b.CreateStore(apply(b, s, before, b.CreateShuffleVector(own, own, last)),
                    vacc);
    });
    b.CreateStore(b.CreateExtractElement(
                      b.CreateLoad(vacc->getAllocatedType(), vacc),
                      (uint64_t)0),
                  acc);
  } else {
    emit_for(b, b.getInt64(0), whole, lanes_v, [&](Value *first) {
      Value *at = b.CreateInBoundsGEP(slot, slots, first);
      Value *v = from_slot(b, b.CreateAlignedLoad(vec_ty, at, align), s.type);
      b.CreateStore(apply(b, s, b.CreateLoad(vacc->getAllocatedType(), vacc),
                          as_operand(b, s, v)),
                    vacc);
    });
    GroupStep butterfly = s;
    butterfly.cluster = 0;
    Value *all = sub_group_in_registers(
        b, butterfly, b.CreateLoad(vacc->getAllocatedType(), vacc), lanes);
    b.CreateStore(b.CreateExtractElement(all, (uint64_t)0), acc);
  }
  // The slots past the whole vectors, in order.
  emit_for(b, whole, n, b.getInt64(1), [&](Value *k) {
    Value *at = b.CreateInBoundsGEP(slot, slots, k);
    Value *x = as_operand(b, s, from_slot(b, b.CreateLoad(slot, at), s.type));
    fold_slot(b, s, acc, x, slot, at, scan);
  });
  if (!scan)   // the group-wide result, in slot n
    b.CreateStore(to_slot(b, b.CreateLoad(s.type, acc), slot),
                  b.CreateInBoundsGEP(slot, slots, n));
}

// The launch's sub-group size, at least 1 (a power of two:
// cc_sub_group_size, or intel_reqd_sub_group_size's), and the launch.
static Value *launch_sub_group_size(IRBuilder<> &b, const Cutter &c,
                                    Value *group, Value **launch = nullptr) {
  Value *l = b.CreateLoad(b.getPtrTy(),
                          group_field(b, c.group_ty, group, G_LAUNCH));
  if (launch)
    *launch = l;
  Value *size = b.CreateZExt(
      b.CreateLoad(b.getInt32Ty(),
                   b.CreateStructGEP(c.launch_ty, l, L_SUB_GROUP_SIZE)),
      b.getInt64Ty());
  return b.CreateBinaryIntrinsic(Intrinsic::umax, size, b.getInt64(1),
                                 nullptr, "sub_group_size");
}

// How many of the n slots the full sub-groups of the compile-time size
// cover (a vector each), where the launch's sub-group size is that size
// (a launch always has it today); else 0, and everything is done one
// sub-group at a time.
static Value *in_full_sub_groups(IRBuilder<> &b, Value *size, Value *n) {
  Value *lanes = b.getInt64(cc_sub_group_size());
  return b.CreateSelect(b.CreateICmpEQ(size, lanes),
                        b.CreateMul(b.CreateUDiv(n, lanes), lanes),
                        b.getInt64(0), "in_registers");
}

void emit_group_step(IRBuilder<> &b, Cutter &c, const GroupStep &s,
                     Value *group, Value *n) {
  Value *slots = b.CreateLoad(
      b.getPtrTy(), group_field(b, c.group_ty, group, G_COLLECTIVE), "slots");
  if (!s.sub_group) {
    work_group_in_registers(b, s, group_slot_type(c, s.type), slots, n);
    return;
  }
  Type *slot = sub_slot_type(c, s.type);
  Value *sub_slots = sub_slot_at(b, slots, n, slot, b.getInt64(0));
  Value *size = launch_sub_group_size(b, c, group);
  // Full sub-groups of the compile-time size in registers (a launch
  // always has it today; the test keeps the step right if not).
  unsigned lanes = cc_sub_group_size();
  Value *lanes_v = b.getInt64(lanes);
  Value *in_registers = in_full_sub_groups(b, size, n);
  auto *vec_ty = FixedVectorType::get(slot, lanes);
  Align align(slot->getScalarSizeInBits() / 8);
  emit_for(b, b.getInt64(0), in_registers, lanes_v, [&](Value *first) {
    Value *at = b.CreateInBoundsGEP(slot, sub_slots, first);
    Value *v = from_slot(b, b.CreateAlignedLoad(vec_ty, at, align), s.type);
    v = sub_group_in_registers(b, s, v, lanes);
    b.CreateAlignedStore(to_slot(b, v, slot), at, align);
  });
  // The rest, one sub-group at a time, in lane order.
  emit_for(b, in_registers, n, size, [&](Value *first) {
    Value *end = b.CreateBinaryIntrinsic(Intrinsic::umin,
                                         b.CreateAdd(first, size), n);
    if (!s.cluster) {
      sub_group_in_order(b, s, slot, sub_slots, first, end);
      return;
    }
    Value *cluster = b.getInt64(s.cluster);
    emit_for(b, first, end, cluster, [&](Value *from) {
      sub_group_in_order(
          b, s, slot, sub_slots, from,
          b.CreateBinaryIntrinsic(Intrinsic::umin,
                                  b.CreateAdd(from, cluster), end));
    });
  });
}

// __skein_ctx__Z<length><name><argument types>: the name.
static StringRef builtin_name(StringRef mangled) {
  StringRef rest = mangled;
  if (!rest.consume_front("__skein_ctx__Z"))
    return "";
  unsigned length = 0;
  if (rest.consumeInteger(10, length) || length > rest.size())
    return "";
  return rest.take_front(length);
}

Exchange parse_exchange(StringRef mangled) {
  StringRef name = builtin_name(mangled);
  return StringSwitch<Exchange>(name)
      .Case("sub_group_broadcast", BROADCAST)
      .Case("sub_group_non_uniform_broadcast", BROADCAST)
      .Case("sub_group_broadcast_first", BROADCAST_FIRST)
      .Case("sub_group_shuffle", SHUFFLE)
      .Case("sub_group_shuffle_xor", SHUFFLE_XOR)
      .Case("sub_group_shuffle_up", SHUFFLE_UP)
      .Case("sub_group_shuffle_down", SHUFFLE_DOWN)
      .Case("sub_group_rotate", ROTATE)
      .Default(NONE);
}

bool is_exchange_step(const Sync &s) {
  return s.exchange == BROADCAST_FIRST ||
         ((s.exchange == BROADCAST || s.exchange == SHUFFLE) &&
          s.uniform_arg);
}

// A broadcast's lane is the same for a whole sub-group: the read loop
// would gather it (each work-item's index is first + lane, not affine in
// lid). Instead, between the loops, each sub-group's slots all take the
// lane's value (a full sub-group of the compile-time size is one load,
// a splat and a vector store; the rest in order), and each work-item then
// reads its own slot, a contiguous load. The lane as read_exchange's
// general form takes it: broadcast clamps it into the sub-group; shuffle
// leaves a sub-group it is not in unchanged (each work-item its own).
void emit_exchange_step(IRBuilder<> &b, Cutter &c, const ExchangeStep &x,
                        Value *group, Value *n) {
  Value *slots = b.CreateLoad(
      b.getPtrTy(), group_field(b, c.group_ty, group, G_COLLECTIVE), "slots");
  Value *base =
      b.CreateInBoundsGEP(b.getInt64Ty(), slots, exchange_slots(b, n));
  Value *one = b.getInt64(1);
  Value *lane = x.lane ? (Value *)b.getInt64(x.lane->getZExtValue())
                       : b.CreateLoad(b.getInt64Ty(), stash_slot(b, slots, n),
                                      "lane");
  if (x.exchange == BROADCAST_FIRST)
    lane = b.getInt64(0);
  Value *size_max = launch_sub_group_size(b, c, group);
  Type *slot = x.slot;
  auto at = [&](Value *k) { return b.CreateInBoundsGEP(slot, base, k); };
  // The lane's slot in a sub-group of size, and whether it is in it.
  auto source = [&](Value *first, Value *size, Value **valid) {
    if (x.exchange == SHUFFLE) {
      *valid = b.CreateICmpULT(lane, size);
      return b.CreateAdd(first, b.CreateSelect(*valid, lane, b.getInt64(0)));
    }
    *valid = b.getTrue();
    return b.CreateAdd(first, b.CreateBinaryIntrinsic(
                                  Intrinsic::umin, lane,
                                  b.CreateSub(size, one)));
  };
  unsigned lanes = cc_sub_group_size();
  Value *lanes_v = b.getInt64(lanes);
  Value *in_registers = in_full_sub_groups(b, size_max, n);
  auto *vec_ty = FixedVectorType::get(slot, lanes);
  Align align(slot->getScalarSizeInBits() / 8);
  emit_for(b, b.getInt64(0), in_registers, lanes_v, [&](Value *first) {
    Value *valid;
    Value *v = b.CreateLoad(slot, at(source(first, lanes_v, &valid)));
    Value *splat = b.CreateVectorSplat(lanes, v);
    if (x.exchange == SHUFFLE)
      splat = b.CreateSelect(valid, splat,
                             b.CreateAlignedLoad(vec_ty, at(first), align));
    b.CreateAlignedStore(splat, at(first), align);
  });
  emit_for(b, in_registers, n, size_max, [&](Value *first) {
    Value *size = b.CreateBinaryIntrinsic(Intrinsic::umin, size_max,
                                          b.CreateSub(n, first));
    Value *valid;
    Value *v = b.CreateLoad(slot, at(source(first, size, &valid)));
    emit_for(b, first, b.CreateAdd(first, size), one, [&](Value *k) {
      b.CreateStore(b.CreateSelect(valid, v, b.CreateLoad(slot, at(k))),
                    at(k));
    });
  });
}

// The lane a work-item reads at a distance from its own, for an exchange
// whose argument is the same for the whole group (Sync::uniform_arg):
// each candidate slot is lid plus or minus that distance, an address
// affine in lid, so the work-item loop's vectoriser loads a vector of
// slots at each candidate (contiguous loads) and blends them, where the
// index first + src of read_exchange's general form makes it gather one
// slot per lane (vpgatherdd: a quarter of a copy's speed in AVX2 code).
// For xor the mask must be a power of two (the butterflies' 1, 2, 4...
// are; read_exchange tests one that is not a constant at run time);
// null for broadcast and shuffle (one lane per sub-group, not a
// distance: emit_exchange_step).
//
// The distance d (the argument; rotate's taken modulo the sub-group's
// span) is below size_max, the launch's sub-group size, or the result
// is the work-item's own value: then d is 0. The slots read lie within
// [lid - size, lid + size) of the exchange slots, size the largest
// sub-group size, which exchange_pad_slots() keeps
// inside the allocation; a slot read for a lane that does not take it
// (past the group's end, before its sub-group) is discarded by the
// select, whatever it holds.
//
// The tests that choose between the candidates are on 32-bit values
// (lid, n and d are below max_group, lane below 32): the vectoriser
// then compares vectors of as many lanes as the loaded slots hold
// instead of twice as many 64-bit ones, and blends without narrowing.
struct Relative {
  Value *lid, *size_max, *arg;   // 64 bits
  Value *lid32, *n32, *size_max32, *lane32;
  std::function<Value *(Value *)> load;   // the value of exchange slot k
};

static Value *relative_read(IRBuilder<> &b, unsigned exchange,
                            const Relative &x, Value *enq) {
  Value *zero = b.getInt64(0);
  Type *i32 = b.getInt32Ty();
  Value *own = x.load(x.lid);
  Value *d = b.CreateSelect(b.CreateICmpULT(x.arg, x.size_max), x.arg,
                            zero, "distance");
  Value *d32 = b.CreateTrunc(d, i32);
  switch (exchange) {
  case SHUFFLE_XOR: {
    // lane ^ d for a power of two d: lane - d where lane has d's bit,
    // else lane + d (in the sub-group: sub-groups are aligned to their
    // power-of-two size, and d is below it), unless that is past the
    // group's end. lid & d is lane & d for the same reason.
    Value *hi = b.CreateAdd(x.lid, d), *lo = b.CreateSub(x.lid, d);
    Value *down = b.CreateICmpNE(b.CreateAnd(x.lid32, d32), b.getInt32(0));
    Value *up = b.CreateSelect(
        b.CreateICmpULT(b.CreateAdd(x.lid32, d32), x.n32), x.load(hi), own);
    return b.CreateSelect(down, x.load(lo), up);
  }
  case SHUFFLE_DOWN: {
    Value *hi = b.CreateAdd(x.lid, d);
    Value *valid = b.CreateAnd(
        b.CreateICmpULT(b.CreateAdd(x.lane32, d32), x.size_max32),
        b.CreateICmpULT(b.CreateAdd(x.lid32, d32), x.n32));
    return b.CreateSelect(valid, x.load(hi), own);
  }
  case SHUFFLE_UP:
    return b.CreateSelect(b.CreateICmpULE(d32, x.lane32),
                          x.load(b.CreateSub(x.lid, d)), own);
  case ROTATE: {
    // (lane + delta) mod max, max = min(size_max, enq): with delta's
    // remainder r in [0, max), lane + r, or lane + r - max where that
    // reaches max (then below lane, so in the group).
    Value *max = b.CreateBinaryIntrinsic(Intrinsic::umin, x.size_max, enq);
    Value *r = b.CreateSRem(x.arg, max);
    r = b.CreateSelect(b.CreateICmpSLT(r, zero), b.CreateAdd(r, max), r,
                       "remainder");
    Value *r32 = b.CreateTrunc(r, i32), *max32 = b.CreateTrunc(max, i32);
    Value *hi = b.CreateAdd(x.lid, r);
    Value *wrap = b.CreateICmpUGE(b.CreateAdd(x.lane32, r32), max32);
    Value *ahead = b.CreateSelect(
        b.CreateICmpULT(b.CreateAdd(x.lid32, r32), x.n32), x.load(hi), own);
    return b.CreateSelect(wrap, x.load(b.CreateSub(hi, max)), ahead);
  }
  default:
    return nullptr;
  }
}

// Region mode reaches an exchange only where every work-item of the
// group does (syncs_uniform), so the active set is the whole sub-group:
// non_uniform_broadcast is broadcast, broadcast_first reads lane 0. The
// lanes the library reads (builtins/subgroups_shuffle.c, subgroups.c):
// broadcast clamps its lane into the sub-group; the others give the
// work-item its own value where the lane is not in the sub-group.
void read_exchange(Cutter &c, Sync &s, BasicBlock *after) {
  Function *F = c.F;
  CallInst *call = s.call;
  Value *g = F->getArg(RP_GROUP);
  Value *lid = F->getArg(RP_LID), *n = F->getArg(RP_N);
  Instruction *at_read = &*after->getFirstInsertionPt();
  IRBuilder<> b(at_read);
  Value *one = b.getInt64(1);
  Value *launch;
  Value *size_max = launch_sub_group_size(b, c, g, &launch);
  // A power of two (cc_sub_group_size, intel_reqd_sub_group_size).
  Value *first = b.CreateAnd(lid, b.CreateNeg(size_max));
  Value *size = b.CreateBinaryIntrinsic(Intrinsic::umin, size_max,
                                        b.CreateSub(n, first));
  Value *lane = b.CreateSub(lid, first);
  Value *arg = nullptr;
  if (call->arg_size() > 2)
    arg = s.exchange == ROTATE
              ? b.CreateSExt(call->getArgOperand(2), b.getInt64Ty())
              : b.CreateZExt(call->getArgOperand(2), b.getInt64Ty());
  Value *enq = nullptr;   // the enqueued group size, for rotate
  if (s.exchange == ROTATE) {
    enq = one;
    for (int d = 0; d < 3; d++)
      enq = b.CreateMul(enq, b.CreateLoad(b.getInt64Ty(),
                                          group_field(b, c.launch_ty, launch,
                                                      L_LOCAL, d)));
  }
  Value *slots = b.CreateLoad(b.getPtrTy(),
                              group_field(b, c.group_ty, g, G_COLLECTIVE),
                              "slots");
  Type *slot = sub_slot_type(c, call->getType());
  Value *base =
      b.CreateInBoundsGEP(b.getInt64Ty(), slots, exchange_slots(b, n));
  IRBuilder<> *in = &b;   // where load() emits (the branch taken)
  auto load = [&](Value *k) -> Value * {
    return in->CreateLoad(slot, in->CreateInBoundsGEP(slot, base, k));
  };

  // A uniform argument: a read at a distance (relative_read); xor by a
  // mask not known to be a power of two tests it once for the group, the
  // branch LLVM takes out of the work-item loop (it unswitches it).
  Value *r = nullptr;
  if (is_exchange_step(s))   // each work-item's slot holds its result
    r = load(lid);
  Value *fast = nullptr;   // null: the general form only
  if (s.uniform_arg && (s.exchange == SHUFFLE_DOWN ||
                        s.exchange == SHUFFLE_UP || s.exchange == ROTATE))
    fast = b.getTrue();
  if (s.uniform_arg && s.exchange == SHUFFLE_XOR) {
    fast = b.CreateICmpEQ(b.CreateAnd(arg, b.CreateSub(arg, one)),
                          b.getInt64(0), "power_of_two");
    if (auto *k = dyn_cast<ConstantInt>(fast); k && k->isZero())
      fast = nullptr;
  }
  // The 32-bit lane from the 32-bit lid: no vector of 64-bit lids for
  // the vectoriser to narrow (in AVX2 code, two registers and shuffles).
  // lid is the x loop's counter plus the row's first id (region_driver's
  // emit_loops): truncated apart, the counter's truncation is an
  // induction of its own, which the vectoriser steps as a vector of
  // 32-bit lanes instead of building it from the 64-bit counter.
  Type *i32 = b.getInt32Ty();
  Value *lx = F->getArg(RP_LX);
  Value *lid32 = b.CreateAdd(b.CreateTrunc(lx, i32),
                             b.CreateTrunc(b.CreateSub(lid, lx), i32));
  Value *size_max32 = b.CreateTrunc(size_max, i32);
  Relative x = {lid,
                size_max,
                arg,
                lid32,
                b.CreateTrunc(n, i32),
                size_max32,
                b.CreateAnd(lid32, b.CreateSub(size_max32, b.getInt32(1))),
                load};
  if (fast && isa<ConstantInt>(fast))
    r = relative_read(b, s.exchange, x, enq);
  BasicBlock *join = nullptr;
  Value *fast_r = nullptr;
  BasicBlock *fast_bb = nullptr;
  IRBuilder<> other(at_read);
  if (fast && !r) {
    Instruction *then_t, *else_t;
    SplitBlockAndInsertIfThenElse(fast, at_read, &then_t, &else_t);
    IRBuilder<> tb(then_t);
    in = &tb;
    fast_r = relative_read(tb, s.exchange, x, enq);
    fast_bb = then_t->getParent();
    other.SetInsertPoint(else_t);
    in = &other;
    join = at_read->getParent();
  }
  if (!r) {
    IRBuilder<> &e = *in;
    Value *src = lane, *valid = e.getTrue();
    switch (s.exchange) {
    case BROADCAST:
      src = e.CreateBinaryIntrinsic(Intrinsic::umin, arg,
                                    e.CreateSub(size, one));
      break;
    case BROADCAST_FIRST:
      src = e.getInt64(0);
      break;
    case SHUFFLE:
      src = arg;
      valid = e.CreateICmpULT(src, size);
      break;
    case SHUFFLE_XOR:
      src = e.CreateXor(lane, arg);
      valid = e.CreateICmpULT(src, size);
      break;
    case SHUFFLE_UP:
      src = e.CreateSub(lane, arg);
      valid = e.CreateICmpULE(arg, lane);
      break;
    case SHUFFLE_DOWN:
      src = e.CreateAdd(lane, arg);
      valid = e.CreateICmpULT(arg, e.CreateSub(size, lane));
      break;
    case ROTATE: {
      // (lane + delta) mod get_max_sub_group_size(), for either sign.
      Value *max = e.CreateBinaryIntrinsic(Intrinsic::umin, size_max, enq);
      // The delta's remainder first: it is the same for the whole
      // sub-group in practice, so LLVM can take the division out of the
      // work-item loop; lane + that lies in (-max, 2 max).
      Value *rr = e.CreateAdd(lane, e.CreateSRem(arg, max));
      rr = e.CreateSelect(e.CreateICmpSLT(rr, e.getInt64(0)),
                          e.CreateAdd(rr, max), rr);
      src = e.CreateSelect(e.CreateICmpSGE(rr, max), e.CreateSub(rr, max),
                           rr);
      valid = e.CreateICmpULT(src, size);
      break;
    }
    default:
      break;
    }
    r = load(e.CreateSelect(valid, e.CreateAdd(first, src), lid));
    if (join) {
      b.SetInsertPoint(join, join->getFirstInsertionPt());
      PHINode *phi = b.CreatePHI(slot, 2);
      phi->addIncoming(fast_r, fast_bb);
      phi->addIncoming(r, other.GetInsertBlock());
      r = phi;
    }
  }
  r = from_slot(b, r, call->getType());
  r->setName("exchanged");
  call->replaceAllUsesWith(r);
  call->eraseFromParent();
}

} // namespace skein_region
