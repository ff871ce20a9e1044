// This file vectorises, across work-items, the code that follows an
// unroll-and-jammed loop: after the optimiser, where a jammed loop of
// arithmetic (a kept vector's chains: clpeak's float16, double8 in AVX2
// code) exits into a block that reduces each copy's vectors and stores
// one value per work-item to consecutive addresses, the copies' tails
// are computed together, lane k of each wide value being copy k's.
//
// Why: unroll-and-jam (unroll_jam.cpp) leaves each jammed work-item its
// own tail. clpeak's float16 sums its result's 16 lanes in the source's
// order, (y.S01 + y.S23 + ... + y.SEF) as float2 and then t.S0 + t.S1:
// horizontally, 15-19 shuffles and adds per work-item, after 128 FMAs
// of 2 (AVX2) or 1 (AVX-512) registers. With 16 work-items jammed on
// AVX-512 that was about 300 shuffles and adds per 2048 FMAs, on the
// zmm FMA ports; on the 2-core Emerald Rapids the kernel ran at 80-83 %
// of the FMA peak where the same loop with each work-item's float16
// stored (vstore16) instead, or summed as a tree of 7 operations, ran
// at 93-100 %. Computed across copies, the tail's operations are the
// same operations in the same order for each lane (the sums are not
// reassociated), one wide operation for all copies, after a transpose of
// the copies' vectors: log2(copies) rounds of two-input shuffles
// ("zips") over the copies' registers, which x86 does one or two
// instructions a register.
//
// What is taken: the exit block's stores must be the only memory
// operations there, store scalars to consecutive elements of one base,
// and their values be isomorphic trees (same operations, flags, masks
// and indices) of lane-wise arithmetic and casts over extractions of
// aligned blocks of lanes from one loop value per copy (or over values
// the copies share). Anything else is left as it was.
#include "chain_schedule.h"
#include "compiler_internal.h"

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Local.h>

#include <algorithm>
#include <vector>

using namespace llvm;

namespace {

enum { MAX_COPIES = 64 };

// A store's address as base[index + offset] (index + offset written
// `add` or `or disjoint`, as unroll-and-jam's copies' ids are).
struct Address {
  Value *base = nullptr;
  Type *elt = nullptr;
  Value *index = nullptr;
  int64_t offset = 0;
};

bool store_address(StoreInst *s, Address &a) {
  auto *gep = dyn_cast<GetElementPtrInst>(s->getPointerOperand());
  if (!gep || gep->getNumIndices() != 1 ||
      gep->getSourceElementType() != s->getValueOperand()->getType())
    return false;
  a.base = gep->getPointerOperand();
  a.elt = gep->getSourceElementType();
  Value *i = gep->getOperand(1);
  a.index = i;
  a.offset = 0;
  if (auto *bo = dyn_cast<BinaryOperator>(i))
    if (auto *c = dyn_cast<ConstantInt>(bo->getOperand(1))) {
      bool add = bo->getOpcode() == Instruction::Add;
      bool disjoint_or = bo->getOpcode() == Instruction::Or &&
                         cast<PossiblyDisjointInst>(bo)->isDisjoint();
      if (add || disjoint_or) {
        a.index = bo->getOperand(0);
        a.offset = c->getSExtValue();
      }
    }
  return true;
}

unsigned lanes_of(Type *t) {
  auto *v = dyn_cast<FixedVectorType>(t);
  return v ? v->getNumElements() : 1;
}

Type *wide_type(Type *t, unsigned copies) {
  return FixedVectorType::get(t->getScalarType(), lanes_of(t) * copies);
}

class Tails {
public:
  Tails(BasicBlock *loop, BasicBlock *exit, unsigned copies)
      : loop_(loop), exit_(exit), n_(copies), sources_(copies, nullptr) {}

  // Whether the copies' values vals (copy k's at k) are isomorphic trees
  // this file can compute across copies.
  bool check(const std::vector<Value *> &vals) {
    Value *v0 = vals[0];
    if (uniform(vals))
      return !v0->getType()->isVectorTy() ||
             isa<FixedVectorType>(v0->getType());
    auto *i0 = dyn_cast<Instruction>(v0);
    if (!i0 || i0->getParent() != exit_)
      return false;
    for (unsigned k = 0; k < n_; k++) {
      auto *ik = dyn_cast<Instruction>(vals[k]);
      if (!ik || ik->getParent() != exit_ || !ik->isSameOperationAs(i0))
        return false;
      // an instruction belongs to one copy only
      auto it = owner_.find(ik);
      if (it != owner_.end() && it->second != k)
        return false;
      owner_[ik] = k;
    }
    if (isa<BinaryOperator>(i0) ||
        (isa<CastInst>(i0) && !isa<BitCastInst>(i0))) {
      if (i0->getType()->isVectorTy() && !isa<FixedVectorType>(i0->getType()))
        return false;
      for (unsigned op = 0; op < i0->getNumOperands(); op++)
        if (!check(operands(vals, op)))
          return false;
      return true;
    }
    if (auto *e0 = dyn_cast<ExtractElementInst>(i0)) {
      auto *c0 = dyn_cast<ConstantInt>(e0->getIndexOperand());
      if (!c0)
        return false;
      for (unsigned k = 0; k < n_; k++) {
        auto *ck = dyn_cast<ConstantInt>(
            cast<ExtractElementInst>(vals[k])->getIndexOperand());
        if (!ck || ck->getZExtValue() != c0->getZExtValue())
          return false;
      }
      if (in_exit(e0->getVectorOperand()))
        return check(operands(vals, 0));
      return source(vals, 0, 1);
    }
    if (auto *s0 = dyn_cast<ShuffleVectorInst>(i0)) {
      if (!isa<PoisonValue>(s0->getOperand(1)) &&
          !isa<UndefValue>(s0->getOperand(1)))
        return false;
      ArrayRef<int> mask = s0->getShuffleMask();
      for (unsigned k = 0; k < n_; k++) {
        auto *sk = cast<ShuffleVectorInst>(vals[k]);
        if (sk->getShuffleMask() != mask ||
            (!isa<PoisonValue>(sk->getOperand(1)) &&
             !isa<UndefValue>(sk->getOperand(1))))
          return false;
      }
      // an aligned block of the source's lanes, in order
      unsigned w = mask.size();
      bool block = mask[0] >= 0 && mask[0] % w == 0;
      for (unsigned i = 0; block && i < w; i++)
        block = mask[i] == mask[0] + (int)i;
      unsigned src_lanes = lanes_of(s0->getOperand(0)->getType());
      if (block && src_lanes % w == 0 &&
          !in_exit(s0->getOperand(0)))
        return source(vals, 0, w);
      // a permutation of a value of the same copy's tail
      if (!in_exit(s0->getOperand(0)))
        return false;
      return check(operands(vals, 0));
    }
    return false;
  }

  // Computes vals (checked) across copies: a vector of n_ times their
  // lanes, copy k's lanes at k * lanes.
  Value *build(IRBuilder<> &b, const std::vector<Value *> &vals) {
    Value *v0 = vals[0];
    auto found = built_.find(v0);
    if (found != built_.end())
      return found->second;
    Value *out = nullptr;
    unsigned lanes = lanes_of(v0->getType());
    if (uniform(vals)) {
      SmallVector<int, 64> mask;
      for (unsigned k = 0; k < n_; k++)
        for (unsigned i = 0; i < lanes; i++)
          mask.push_back(i);
      Value *v = v0;
      if (!v->getType()->isVectorTy())
        v = b.CreateInsertElement(PoisonValue::get(FixedVectorType::get(
                                      v->getType(), 1)),
                                  v, b.getInt64(0));
      out = b.CreateShuffleVector(v, mask);
    } else if (auto *bo = dyn_cast<BinaryOperator>(v0)) {
      Value *l = build(b, operands(vals, 0));
      Value *r = build(b, operands(vals, 1));
      out = b.CreateBinOp(bo->getOpcode(), l, r);
      if (auto *i = dyn_cast<Instruction>(out))
        i->copyIRFlags(bo);
    } else if (auto *c = dyn_cast<CastInst>(v0)) {
      Value *s = build(b, operands(vals, 0));
      out = b.CreateCast(c->getOpcode(), s, wide_type(c->getType(), n_));
    } else if (auto *e = dyn_cast<ExtractElementInst>(v0)) {
      unsigned index = cast<ConstantInt>(e->getIndexOperand())->getZExtValue();
      Value *src = e->getVectorOperand();
      if (!in_exit(src)) {
        out = block(b, index);
      } else {
        Value *s = build(b, operands(vals, 0));
        unsigned w = lanes_of(src->getType());
        SmallVector<int, 64> mask;
        for (unsigned k = 0; k < n_; k++)
          mask.push_back(k * w + index);
        out = b.CreateShuffleVector(s, mask);
      }
    } else {
      auto *s0 = cast<ShuffleVectorInst>(v0);
      Value *src = s0->getOperand(0);
      ArrayRef<int> m = s0->getShuffleMask();
      if (!in_exit(src)) {
        out = block(b, m[0] / m.size());
      } else {
        Value *s = build(b, operands(vals, 0));
        unsigned w = lanes_of(src->getType());
        SmallVector<int, 64> mask;
        for (unsigned k = 0; k < n_; k++)
          for (int i : m)
            mask.push_back(i < 0 ? -1 : (int)(k * w) + i);
        out = b.CreateShuffleVector(s, mask);
      }
    }
    built_[v0] = out;
    return out;
  }

private:
  bool in_exit(Value *v) const {
    auto *i = dyn_cast<Instruction>(v);
    return i && i->getParent() == exit_;
  }

  bool uniform(const std::vector<Value *> &vals) const {
    if (in_exit(vals[0]))
      return false;
    for (Value *v : vals)
      if (v != vals[0])
        return false;
    return true;
  }

  static std::vector<Value *> operands(const std::vector<Value *> &vals,
                                       unsigned op) {
    std::vector<Value *> out;
    for (Value *v : vals)
      out.push_back(cast<Instruction>(v)->getOperand(op));
    return out;
  }

  // Records copy k's source vector (a value of the jammed loop) and the
  // unit of lanes the tails take from it.
  bool source(const std::vector<Value *> &vals, unsigned op, unsigned unit) {
    for (unsigned k = 0; k < n_; k++) {
      Value *s = cast<Instruction>(vals[k])->getOperand(op);
      auto *si = dyn_cast<Instruction>(s);
      if (!si || si->getParent() != loop_ ||
          !isa<FixedVectorType>(s->getType()) ||
          lanes_of(s->getType()) % unit != 0)
        return false;
      if (sources_[k] && sources_[k] != s)
        return false;
      sources_[k] = s;
      if (s->getType() != sources_[0]->getType())
        return false;
      if (k && s == sources_[0])
        return false;
    }
    if (unit_ && unit_ != unit)
      return false;
    unit_ = unit;
    return true;
  }

  // The index-th unit of lanes of every copy's source, side by side.
  Value *block(IRBuilder<> &b, unsigned index) {
    if (blocks_.empty())
      transpose(b);
    return blocks_[index];
  }

  static Value *part(IRBuilder<> &b, Value *v, unsigned first,
                     unsigned lanes) {
    if (first == 0 && lanes == lanes_of(v->getType()))
      return v;
    SmallVector<int, 64> mask;
    for (unsigned i = 0; i < lanes; i++)
      mask.push_back(first + i);
    return b.CreateShuffleVector(v, mask);
  }

  // The even (odd) blocks of g lanes of x and y, alternately: one
  // unpack, vperm2f128 or vshuff64x2 on x86 where g is 64 bits or more.
  static Value *even_odd(IRBuilder<> &b, Value *x, Value *y, unsigned g,
                         unsigned odd) {
    unsigned lanes = lanes_of(x->getType());
    SmallVector<int, 64> mask;
    for (unsigned blk = odd; blk * g < lanes; blk += 2) {
      for (unsigned l = 0; l < g; l++)
        mask.push_back(blk * g + l);
      for (unsigned l = 0; l < g; l++)
        mask.push_back(lanes + blk * g + l);
    }
    return b.CreateShuffleVector(x, y, mask);
  }

  // The copies' sources transposed, register by register: each source
  // is cut into registers of `reg` lanes, and log2 of the copies (or of
  // the units a register holds, if fewer) rounds of even/odd shuffles
  // exchange a bit of the copy's number with a bit of the unit's, as
  // the usual 4x4 and 8x8 transposes do. Each shuffle reads two
  // registers and writes one.
  void transpose(IRBuilder<> &b) {
    unsigned lanes = lanes_of(sources_[0]->getType());
    unsigned scalar_bits =
        sources_[0]->getType()->getScalarType()->getPrimitiveSizeInBits();
    unsigned reg = scalar_bits ? cc_target_get()->vector_bits / scalar_bits
                               : 0;
    if (reg < unit_ || reg % unit_ || lanes % reg) {
      // no whole registers: one vector, zipped pairwise
      std::vector<Value *> cur(sources_.begin(), sources_.end());
      unsigned unit = unit_;
      while (cur.size() > 1) {
        std::vector<Value *> next;
        for (size_t i = 0; i + 1 < cur.size(); i += 2) {
          unsigned l = lanes_of(cur[i]->getType());
          SmallVector<int, 128> mask;
          for (unsigned u = 0; u < l / unit; u++) {
            for (unsigned j = 0; j < unit; j++)
              mask.push_back(u * unit + j);
            for (unsigned j = 0; j < unit; j++)
              mask.push_back(l + u * unit + j);
          }
          next.push_back(b.CreateShuffleVector(cur[i], cur[i + 1], mask));
        }
        cur.swap(next);
        unit *= 2;
      }
      for (unsigned j = 0; j < lanes / unit_; j++)
        blocks_.push_back(part(b, cur[0], j * n_ * unit_, n_ * unit_));
      return;
    }
    unsigned units = reg / unit_; // units a register holds
    unsigned regs = lanes / reg;
    unsigned rounds = 0;
    while ((1u << rounds) < std::min(n_, units))
      rounds++;
    blocks_.assign(lanes / unit_, nullptr);
    for (unsigned r = 0; r < regs; r++) {
      std::vector<Value *> v;
      for (unsigned k = 0; k < n_; k++)
        v.push_back(part(b, sources_[k], r * reg, reg));
      for (unsigned s = 0; s < rounds; s++)
        for (unsigned i = 0; i < n_; i++)
          if (!(i & (1u << s))) {
            Value *x = v[i], *y = v[i + (1u << s)];
            v[i] = even_odd(b, x, y, unit_ << s, 0);
            v[i + (1u << s)] = even_odd(b, x, y, unit_ << s, 1);
          }
      if (n_ >= units) {
        // v[q * units + c] holds unit c of copies q * units ...
        for (unsigned c = 0; c < units; c++) {
          std::vector<Value *> parts;
          for (unsigned q = 0; q < n_ / units; q++)
            parts.push_back(v[q * units + c]);
          while (parts.size() > 1) {
            std::vector<Value *> next;
            for (size_t i = 0; i + 1 < parts.size(); i += 2) {
              unsigned l = lanes_of(parts[i]->getType());
              SmallVector<int, 128> mask;
              for (unsigned j = 0; j < 2 * l; j++)
                mask.push_back(j);
              next.push_back(
                  b.CreateShuffleVector(parts[i], parts[i + 1], mask));
            }
            parts.swap(next);
          }
          blocks_[r * units + c] = parts[0];
        }
      } else {
        // v[i] holds, h-th, unit h * copies + i of every copy
        for (unsigned i = 0; i < n_; i++)
          for (unsigned h = 0; h < units / n_; h++)
            blocks_[r * units + h * n_ + i] =
                part(b, v[i], h * n_ * unit_, n_ * unit_);
      }
    }
  }

  BasicBlock *loop_, *exit_;
  unsigned n_;
  std::vector<Value *> sources_;
  unsigned unit_ = 0;
  std::vector<Value *> blocks_;
  DenseMap<Value *, unsigned> owner_;
  DenseMap<Value *, Value *> built_;
};

bool transpose_tails(BasicBlock *loop) {
  BasicBlock *exit = nullptr;
  for (BasicBlock *succ : successors(loop))
    if (succ != loop)
      exit = succ;
  if (!exit || exit->getSinglePredecessor() != loop)
    return false;
  std::vector<StoreInst *> stores;
  for (Instruction &i : *exit) {
    if (auto *s = dyn_cast<StoreInst>(&i)) {
      if (!s->isSimple() || s->getValueOperand()->getType()->isVectorTy())
        return false;
      stores.push_back(s);
    } else if (i.mayReadOrWriteMemory() || i.mayHaveSideEffects()) {
      return false;
    }
  }
  unsigned n = stores.size();
  if (n < 2 || n > MAX_COPIES || (n & (n - 1)))
    return false;
  // elements a vector holds as memory does (no i1, no x86_fp80)
  Type *t = stores[0]->getValueOperand()->getType();
  const DataLayout &dl = exit->getModule()->getDataLayout();
  if (!(t->isFloatingPointTy() || t->isIntegerTy()) ||
      t->getPrimitiveSizeInBits() % 8 ||
      dl.getTypeStoreSize(t) != dl.getTypeAllocSize(t))
    return false;
  // copy k stores to base[index + first + k]
  std::vector<Address> at(n);
  for (unsigned k = 0; k < n; k++)
    if (!store_address(stores[k], at[k]))
      return false;
  std::vector<unsigned> order(n);
  for (unsigned k = 0; k < n; k++)
    order[k] = k;
  std::sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    return at[a].offset < at[b].offset;
  });
  for (unsigned k = 0; k < n; k++) {
    const Address &a = at[order[k]], &first = at[order[0]];
    if (a.base != first.base || a.elt != first.elt || a.index != first.index ||
        a.offset != first.offset + (int64_t)k ||
        stores[order[k]]->getValueOperand()->getType() !=
            stores[order[0]]->getValueOperand()->getType())
      return false;
  }
  std::vector<Value *> roots;
  for (unsigned k = 0; k < n; k++)
    roots.push_back(stores[order[k]]->getValueOperand());
  Tails tails(loop, exit, n);
  if (!tails.check(roots))
    return false;
  // a value shared by every copy is no tail to transpose
  if (!isa<Instruction>(roots[0]) ||
      cast<Instruction>(roots[0])->getParent() != exit)
    return false;
  StoreInst *last = stores.back();
  IRBuilder<> b(last);
  Value *wide = tails.build(b, roots);
  StoreInst *first = stores[order[0]];
  StoreInst *st = b.CreateStore(wide, first->getPointerOperand());
  st->setAlignment(first->getAlign());
  st->copyMetadata(*first, {LLVMContext::MD_tbaa});
  for (StoreInst *s : stores) {
    Value *v = s->getValueOperand(), *p = s->getPointerOperand();
    s->eraseFromParent();
    RecursivelyDeleteTriviallyDeadInstructions(v);
    RecursivelyDeleteTriviallyDeadInstructions(p);
  }
  return true;
}

} // namespace

extern "C" void cc_transpose_jam_tails(LLVMModuleRef mref) {
  if (cc_env_switch("SKEIN_NO_JAM_TAILS"))
    return;
  for (Function &f : *unwrap(mref)) {
    std::vector<BasicBlock *> loops;
    for (BasicBlock &bb : f)
      if (skein_chains::arithmetic_self_loop(bb))
        loops.push_back(&bb);
    for (BasicBlock *bb : loops)
      transpose_tails(bb);
  }
}
