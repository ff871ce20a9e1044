// This file contains the image pass's nearest reads of pixel centres
// (issue 9): image filters address the pixel of work-item x as its
// centre, `convert_float(x) + 0.5f` (unnormalised) or that divided by
// the image's extent (normalised, which the sampler multiplies back), and
// a nearest read then floors the coordinate, clamps it and converts it
// back to an int. builtins/image.c does that floor in the out-of-line
// __skein_image_nearest_index(u); here each call whose u is such a
// centre becomes x itself, kept within +-2^22, and every other call is
// inlined. In a vectorised loop the float round trip was six vector
// instructions per axis and pixel (convert, add, round, two clamps,
// convert), as many as the whole copy of a pixel over a buffer.
//
// Why x is exact, for an int x and an extent n of at most 2^22 (the
// device's limits are 65536 and 8192, runtime/core/image.h):
// - unnormalised, u = fl(float(x) + 0.5): for |x| < 2^23 float(x) and
//   the sum are exact and floor(u) = x. For x >= 2^22 both floor(u) and
//   min(x, 2^22) are at least 2^22 >= n, past the last pixel, and every
//   addressing mode gives both the same pixel (clamp to edge: n - 1;
//   clamp: the border colour; none: a read outside, undefined, which
//   texel_f bounds-tests). For x <= -2^22 both are before the first;
// - normalised, u = fl(fl(c / N) * N) with c = fl(float(x) + 0.5) and N
//   the float of the extent read by both: for 0 <= x < n, c is exact
//   and u = c (1 + e1)(1 + e2) with |e1|, |e2| <= 2^-24, so |u - c| <
//   c * 2^-22.9 < 0.5 while c < 2^22: floor(u) = x. u is a monotonic
//   function of x (each step rounds to nearest), u(n) > n and u(-1) < 0,
//   so x >= n floors to n or more and x < 0 below 0, as x clamped does.
//   (Checked exhaustively for n <= 4096 and every x within 3 of the
//   extents, and on 40 million samples of n up to 2^22.)
// Fast-math flags do not matter: the exact quotient is one of the
// results a relaxed division may give.
#include "image_centres.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <vector>

using namespace llvm;
using namespace llvm::PatternMatch;

namespace skein_images {

namespace {

// The bound x is kept within: any index past it is past every extent.
constexpr int64_t CENTRE_BOUND = 1 << 22;

// v without the integer casts and the extent mask (image.c's extent_of
// masks the descriptor's 64-bit extent with INT32_MAX; extents are
// below 2^31, so the mask changes no value).
Value *strip_extent(Value *v) {
  for (unsigned depth = 0; depth < 6; depth++) {
    Value *inner;
    const APInt *mask;
    if (match(v, m_Trunc(m_Value(inner))) || match(v, m_ZExt(m_Value(inner))) ||
        match(v, m_SExt(m_Value(inner))))
      v = inner;
    else if (match(v, m_And(m_Value(inner), m_APInt(mask))) &&
             mask->isMaxSignedValue())
      v = inner;
    else
      break;
  }
  return v;
}

// Whether floats a and b are the float of the same image extent: integer
// conversions of invariant loads (image descriptors) of the same bytes.
bool same_extent(Value *a, Value *b) {
  Value *ia, *ib;
  if (!(match(a, m_SIToFP(m_Value(ia))) || match(a, m_UIToFP(m_Value(ia)))) ||
      !(match(b, m_SIToFP(m_Value(ib))) || match(b, m_UIToFP(m_Value(ib)))))
    return false;
  auto *la = dyn_cast<LoadInst>(strip_extent(ia));
  auto *lb = dyn_cast<LoadInst>(strip_extent(ib));
  if (!la || !lb || la->getType() != lb->getType() ||
      !la->getMetadata(LLVMContext::MD_invariant_load) ||
      !lb->getMetadata(LLVMContext::MD_invariant_load))
    return false;
  if (la == lb)
    return true;
  const DataLayout &dl = la->getModule()->getDataLayout();
  APInt oa(64, 0), ob(64, 0);
  Value *pa = la->getPointerOperand()->stripAndAccumulateConstantOffsets(
      dl, oa, true);
  Value *pb = lb->getPointerOperand()->stripAndAccumulateConstantOffsets(
      dl, ob, true);
  return pa == pb && oa == ob;
}

// The int x whose centre u is (`float(x) + 0.5`), or null.
Value *centre_of(Value *u) {
  Value *x;
  if (match(u, m_FAdd(m_SIToFP(m_Value(x)), m_SpecificFP(0.5))) &&
      x->getType()->isIntegerTy(32))
    return x;
  return nullptr;
}

// The int x whose centre u is, unnormalised or normalised (see the head
// comment), or null. Builds nothing.
Value *centre_index(Value *u) {
  Value *x = centre_of(u);
  Value *c, *n1, *n2;
  if (!x && match(u, m_c_FMul(m_FDiv(m_Value(c), m_Value(n1)), m_Value(n2))) &&
      same_extent(n1, n2))
    x = centre_of(c);
  return x;
}

bool is_one(Value *k) {
  const APFloat *one;
  return match(k, m_APFloat(one)) && one->isExactlyValue(1.0);
}

// centre_index of the product c * k, which is not built: c itself where
// k is 1.0.
Value *product_centre(Value *c, Value *k) {
  if (is_one(k))
    return centre_index(c);
  Value *cc, *n1;
  if (match(c, m_FDiv(m_Value(cc), m_Value(n1))) && same_extent(n1, k))
    return centre_of(cc);
  return nullptr;
}

// Index x kept within +-CENTRE_BOUND.
Value *bounded(IRBuilder<> &b, Value *x) {
  Value *lo = b.CreateBinaryIntrinsic(Intrinsic::smax, x,
                                      b.getInt32(-CENTRE_BOUND));
  return b.CreateBinaryIntrinsic(Intrinsic::smin, lo,
                                 b.getInt32(CENTRE_BOUND));
}

} // namespace

unsigned lower_nearest_index(Function &f, bool fold) {
  std::vector<CallInst *> calls;
  for (BasicBlock &bb : f)
    for (Instruction &i : bb)
      if (auto *call = dyn_cast<CallInst>(&i))
        if (Function *callee = call->getCalledFunction();
            callee && callee->getName() == "__skein_image_nearest_index")
          calls.push_back(call);
  unsigned folded = 0;
  std::vector<CallInst *> inline_these;
  for (CallInst *call : calls) {
    Function *helper = call->getCalledFunction();
    Value *u = call->getArgOperand(0);
    IRBuilder<> b(call);
    Value *x = fold ? centre_index(u) : nullptr;
    Value *r = x ? bounded(b, x) : nullptr;
    // A run-time choice between normalised and unnormalised coordinates
    // (a sampler argument's bit): each side on its own. InstCombine
    // writes `norm ? c * n : c` as c * (norm ? n : 1.0).
    Value *cond, *t, *e, *c = nullptr;
    bool choice = match(u, m_Select(m_Value(cond), m_Value(t), m_Value(e))) ||
                  match(u, m_c_FMul(m_Value(c), m_Select(m_Value(cond),
                                                        m_Value(t),
                                                        m_Value(e))));
    if (fold && !r && choice) {
      auto centre = [&](Value *k) {
        return c ? product_centre(c, k) : centre_index(k);
      };
      Value *xt = centre(t), *xe = centre(e);
      if (xt || xe) {
        // A side that is no centre keeps the helper, on its own value.
        auto side = [&](Value *sx, Value *k) -> Value * {
          if (sx)
            return bounded(b, sx);
          Value *arg = !c ? k : is_one(k) ? c : b.CreateFMul(c, k);
          CallInst *n = b.CreateCall(helper, {arg});
          inline_these.push_back(n);
          return n;
        };
        r = b.CreateSelect(cond, side(xt, t), side(xe, e));
      }
    }
    if (!r) {
      inline_these.push_back(call);
      continue;
    }
    call->replaceAllUsesWith(r);
    call->eraseFromParent();
    folded++;
  }
  for (CallInst *call : inline_these) {
    InlineFunctionInfo ifi;
    InlineFunction(*call, ifi);
  }
  return folded;
}

} // namespace skein_images
