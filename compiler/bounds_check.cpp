// This file contains bounds-checked mode (-skein-bounds-check or
// SKEIN_BOUNDS_CHECK=1): every load, store, atomic and memory intrinsic of
// a kernel on global, constant or local memory is checked against the
// object its pointer came from (a buffer or __local argument, whose size
// the launch carries, or a program- or kernel-scope variable, whose size
// is known), and pointers handed to library functions are checked to
// start inside theirs. An access outside its object is skipped (a load
// gives 0) and noted in the launch's report with its check site and
// work-item; the command then fails and the host prints where
// (runtime/api/api_enqueue_kernel.c). C++ for IRBuilder, block splitting and
// the walk through phis.
//
// The check runs on the kernel function itself, before it is inlined into
// the work-group functions, so loop, region and fiber mode all run it. A
// pointer's object is found by walking back through address arithmetic,
// casts, phis and selects (which get shadow phis and selects of the
// object's address and size); a pointer whose object cannot be seen (one
// loaded from memory, an integer turned pointer, private memory) is not
// checked. The failure path is the note's few stores (inlined, not a
// call); compiler/bounds_lift.cpp then takes the checks whose offsets it
// can bound out of the loops that run them.
#include "compiler_internal.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace llvm;

namespace {

// Global (1), constant (2) and local (3) memory are checked; generic (4)
// pointers are followed back to one of those.
bool checked_space(Type *t) {
  if (!t->isPointerTy())
    return false;
  unsigned as = t->getPointerAddressSpace();
  return as == 1 || as == 2 || as == 3 || as == 4;
}

// The pointer a load, store or atomic accesses, the type it moves and
// whether it writes; false for any other instruction.
bool scalar_access(Instruction *i, Value **ptr, Type **type, bool *store) {
  if (auto *ld = dyn_cast<LoadInst>(i)) {
    *ptr = ld->getPointerOperand(), *type = ld->getType(), *store = false;
  } else if (auto *st = dyn_cast<StoreInst>(i)) {
    *ptr = st->getPointerOperand();
    *type = st->getValueOperand()->getType(), *store = true;
  } else if (auto *rmw = dyn_cast<AtomicRMWInst>(i)) {
    *ptr = rmw->getPointerOperand();
    *type = rmw->getValOperand()->getType(), *store = true;
  } else if (auto *cx = dyn_cast<AtomicCmpXchgInst>(i)) {
    *ptr = cx->getPointerOperand();
    *type = cx->getNewValOperand()->getType(), *store = true;
  } else {
    return false;
  }
  return true;
}

// A pointer's object: its first byte's address and its size (i64), and
// which argument it is (i32; UINT_MAX for a variable, whose name and
// size a site records when the object is one variable).
struct Object {
  Value *base = nullptr, *size = nullptr, *arg = nullptr;
  GlobalVariable *variable = nullptr;   // when it is one known variable
};

class Checker {
public:
  Checker(Function &k, cc_kernel_info *ki)
      : k_(k), m_(*k.getParent()), dl_(m_.getDataLayout()),
        ctx_(k.getContext()), ki_(ki),
        entry_(&*k.getEntryBlock().getFirstInsertionPt()) {}
  bool run();

private:
  Function &k_;
  Module &m_;
  const DataLayout &dl_;
  LLVMContext &ctx_;
  cc_kernel_info *ki_;
  Instruction *entry_;   // where the objects of phis and selects start
  DenseMap<Value *, Object> objects_;
  DenseSet<Value *> unknown_;
  std::vector<cc_bounds_site> sites_;

  bool traceable(Value *p, DenseSet<Value *> &visiting);
  Object object_of(Value *p);
  Object argument_object(IRBuilder<> &b, Argument *a);
  Value *strip(Value *p);
  FunctionCallee ctx_decl(const char *name, FunctionType *ty);
  bool add_site(Instruction *at, const Object &o, uint64_t access,
                bool is_store, unsigned *id);
  void guard(Instruction *access, Value *ptr, Value *bytes, unsigned site,
             const Object &o);
  bool check_pointer(Instruction *at, Value *ptr, Value *bytes,
                     bool is_store);
};

// The pointer p is computed from, through address arithmetic and casts.
Value *Checker::strip(Value *p) {
  for (;;) {
    if (auto *gep = dyn_cast<GEPOperator>(p))
      p = gep->getPointerOperand();
    else if (auto *c = dyn_cast<BitCastOperator>(p))
      p = c->getOperand(0);
    else if (auto *c = dyn_cast<AddrSpaceCastOperator>(p))
      p = c->getOperand(0);
    else
      return p;
  }
}

// True if every path p may come from ends at an object (optimistic on
// the phis being visited: a cycle of phis adds no other object).
bool Checker::traceable(Value *p, DenseSet<Value *> &visiting) {
  p = strip(p);
  if (objects_.count(p))
    return true;
  if (unknown_.count(p))
    return false;
  if (auto *a = dyn_cast<Argument>(p))
    return a->getParent() == &k_ && checked_space(a->getType()) &&
           a->getType()->getPointerAddressSpace() != 4;
  if (auto *g = dyn_cast<GlobalVariable>(p))
    return checked_space(g->getType()) && g->getValueType()->isSized();
  if (!isa<PHINode>(p) && !isa<SelectInst>(p))
    return false;
  if (!visiting.insert(p).second)
    return true;
  auto *user = cast<Instruction>(p);
  unsigned first = isa<SelectInst>(p) ? 1 : 0;
  for (unsigned i = first; i < user->getNumOperands(); i++)
    if (!traceable(user->getOperand(i), visiting)) {
      unknown_.insert(p);
      return false;
    }
  return true;
}

// Argument a's object read at b: its address and the launch's size of it.
Object Checker::argument_object(IRBuilder<> &b, Argument *a) {
  Type *i64 = b.getInt64Ty();
  FunctionCallee size = ctx_decl(
      "__skein_bounds_size", FunctionType::get(i64, {b.getInt32Ty()}, false));
  Object o;
  o.base = b.CreatePtrToInt(a, i64);
  o.size = b.CreateCall(size, {b.getInt32(a->getArgNo())});
  o.arg = b.getInt32(a->getArgNo());
  return o;
}

// The object of a traceable pointer p (see traceable), building shadow
// phis and selects where p's object depends on the path taken.
Object Checker::object_of(Value *p) {
  p = strip(p);
  auto it = objects_.find(p);
  if (it != objects_.end())
    return it->second;
  IRBuilder<> b(entry_);
  Type *i64 = b.getInt64Ty(), *i32 = b.getInt32Ty();
  Object o;
  if (auto *a = dyn_cast<Argument>(p)) {
    o = argument_object(b, a);
  } else if (auto *g = dyn_cast<GlobalVariable>(p)) {
    o.base = b.CreatePtrToInt(g, i64);
    o.size = b.getInt64(dl_.getTypeAllocSize(g->getValueType()));
    o.arg = b.getInt32(UINT_MAX);
    o.variable = g;
  } else if (auto *phi = dyn_cast<PHINode>(p)) {
    IRBuilder<> pb(phi);
    unsigned n = phi->getNumIncomingValues();
    auto *base = pb.CreatePHI(i64, n, "obj.base");
    auto *size = pb.CreatePHI(i64, n, "obj.size");
    auto *arg = pb.CreatePHI(i32, n, "obj.arg");
    o = Object{base, size, arg, nullptr};
    objects_[p] = o;   // before the incoming: cycles meet it
    for (unsigned i = 0; i < n; i++) {
      Object in = object_of(phi->getIncomingValue(i));
      BasicBlock *bb = phi->getIncomingBlock(i);
      base->addIncoming(in.base, bb);
      size->addIncoming(in.size, bb);
      arg->addIncoming(in.arg, bb);
    }
    return o;
  } else {
    auto *sel = cast<SelectInst>(p);
    Object t = object_of(sel->getTrueValue());
    Object f = object_of(sel->getFalseValue());
    IRBuilder<> sb(sel);
    Value *c = sel->getCondition();
    o.base = sb.CreateSelect(c, t.base, f.base, "obj.base");
    o.size = sb.CreateSelect(c, t.size, f.size, "obj.size");
    o.arg = sb.CreateSelect(c, t.arg, f.arg, "obj.arg");
    if (t.variable == f.variable)
      o.variable = t.variable;
  }
  objects_[p] = o;
  return o;
}

// A group-aware builtin of builtins/bounds.c: the plain declaration the
// kernel calls, and its __skein_ctx_ form (with the group first), which
// the work-group lowering routes the call to.
FunctionCallee Checker::ctx_decl(const char *name, FunctionType *ty) {
  std::vector<Type *> params = {PointerType::get(ctx_, 0)};
  params.insert(params.end(), ty->param_begin(), ty->param_end());
  m_.getOrInsertFunction(
      std::string("__skein_ctx_") + name,
      FunctionType::get(ty->getReturnType(), params, false));
  return m_.getOrInsertFunction(name, ty);
}

// Records a check site for the access at; false on allocation failure.
bool Checker::add_site(Instruction *at, const Object &o, uint64_t access,
                       bool is_store, unsigned *id) {
  cc_bounds_site s = {};
  auto *arg = dyn_cast<ConstantInt>(o.arg);
  s.arg = arg ? (unsigned)arg->getZExtValue() : UINT_MAX;
  if (o.variable) {
    std::string name = o.variable->getName().str();
    if (!(s.variable = strdup(name.c_str())))
      return false;
    s.variable_size = dl_.getTypeAllocSize(o.variable->getValueType());
  }
  s.access = access;
  s.line = at->getDebugLoc() ? at->getDebugLoc().getLine() : 0;
  s.is_store = is_store;
  *id = (unsigned)sites_.size();
  sites_.push_back(s);
  return true;
}

// Runs access only if ptr .. ptr + bytes lies inside object o; otherwise
// notes the work-item and skips it (a value it produced becomes 0).
void Checker::guard(Instruction *access, Value *ptr, Value *bytes,
                    unsigned site, const Object &in) {
  IRBuilder<> b(access);
  Type *i64 = b.getInt64Ty();
  // An argument's base and size are read again here rather than taken
  // from the kernel's entry: in region mode a value from the entry would
  // cross a barrier into a per-work-item or uniform slot, reloaded inside
  // every region's work-item loop, where the check's limit would vary;
  // read here, it is the launch's, which LICM hoists.
  Object o = in;
  if (auto *a = dyn_cast<Argument>(strip(ptr)))
    o = argument_object(b, a);
  Value *off = b.CreateSub(b.CreatePtrToInt(ptr, i64), o.base, "obj.off");
  Value *ok;
  auto *known = dyn_cast<ConstantInt>(bytes);
  if (known && !known->isZero()) {
    // One unsigned compare with a limit that does not vary in the loop,
    // the range check form IRCE (see cc_bounds_pipeline) takes out of
    // work-item loops: off + bytes <= size, i.e. off < size - bytes + 1
    // (limit 0, no offset, when the object is smaller than the access).
    Value *limit = b.CreateSelect(
        b.CreateICmpUGE(o.size, bytes),
        b.CreateAdd(b.CreateSub(o.size, bytes), ConstantInt::get(i64, 1)),
        ConstantInt::get(i64, 0), "obj.limit");
    ok = b.CreateICmpULT(off, limit, "in.bounds");
  } else {
    // off <= size and bytes <= size - off: the whole access inside.
    ok = b.CreateAnd(b.CreateICmpULE(off, o.size),
                     b.CreateICmpULE(bytes, b.CreateSub(o.size, off)),
                     "in.bounds");
  }
  Instruction *then_term, *else_term;
  MDNode *likely = MDBuilder(ctx_).createLikelyBranchWeights();
  SplitBlockAndInsertIfThenElse(ok, access, &then_term, &else_term, likely);
  if (isa<ICmpInst>(ok))   // the one-compare form: cc_bounds_hoist's to lift
    cast<Instruction>(ok)->setMetadata(
        "skein.bounds", MDNode::get(ctx_, {}));
  // (bounds_lift.cpp adds the box test of each such check afterwards.)
  BasicBlock *tail = access->getParent();
  access->moveBefore(then_term);
  IRBuilder<> eb(else_term);
  FunctionCallee lid = m_.getOrInsertFunction(
      "_Z19get_local_linear_idv", FunctionType::get(i64, false));
  FunctionCallee note = ctx_decl(
      "__skein_bounds_note",
      FunctionType::get(eb.getVoidTy(), {eb.getInt32Ty(), i64, i64}, false));
  eb.CreateCall(note, {eb.getInt32(site), off, eb.CreateCall(lid)});
  if (access->getType()->isVoidTy() || access->use_empty())
    return;
  IRBuilder<> tb(&*tail->getFirstInsertionPt());
  PHINode *phi = tb.CreatePHI(access->getType(), 2);
  access->replaceAllUsesWith(phi);
  phi->addIncoming(access, then_term->getParent());
  phi->addIncoming(Constant::getNullValue(access->getType()),
                   else_term->getParent());
}

// Guards instruction at's access of bytes at ptr, if ptr's object can be
// traced. False on allocation failure.
bool Checker::check_pointer(Instruction *at, Value *ptr, Value *bytes,
                            bool is_store) {
  if (!checked_space(ptr->getType()))
    return true;
  DenseSet<Value *> visiting;
  if (!traceable(ptr, visiting))
    return true;
  Object o = object_of(ptr);
  auto *known = dyn_cast<ConstantInt>(bytes);   // else the site says 0
  unsigned site;
  if (!add_site(at, o, known ? known->getZExtValue() : 0, is_store, &site))
    return false;
  guard(at, ptr, bytes, site, o);
  return true;
}

bool Checker::run() {
  // Collected first: guarding splits blocks.
  std::vector<Instruction *> accesses;
  for (BasicBlock &bb : k_)
    for (Instruction &i : bb)
      if (isa<LoadInst>(i) || isa<StoreInst>(i) || isa<AtomicRMWInst>(i) ||
          isa<AtomicCmpXchgInst>(i) || isa<CallBase>(i))
        accesses.push_back(&i);
  auto *i64 = Type::getInt64Ty(ctx_);
  auto size_of = [&](Type *t) {
    return ConstantInt::get(i64, dl_.getTypeStoreSize(t).getFixedValue());
  };
  for (Instruction *i : accesses) {
    bool ok = true, store;
    Value *ptr;
    Type *type;
    if (scalar_access(i, &ptr, &type, &store)) {
      ok = check_pointer(i, ptr, size_of(type), store);
    } else if (auto *mi = dyn_cast<MemIntrinsic>(i)) {
      Value *len = IRBuilder<>(mi).CreateZExtOrTrunc(mi->getLength(), i64);
      // The source first: once guarded, the destination's check wraps
      // the copy again, inside the first.
      if (auto *mt = dyn_cast<MemTransferInst>(mi))
        ok = check_pointer(i, mt->getSource(), len, false);
      ok = ok && check_pointer(i, mi->getDest(), len, true);
    } else if (auto *call = dyn_cast<CallBase>(i)) {
      // A library function (the builtins: vloadn, atomics, async copies,
      // math with pointer outputs): its pointers must start inside their
      // objects; the extent it touches is the function's.
      Function *f = call->getCalledFunction();
      if (!f || f->isIntrinsic() || f->getName().starts_with("__skein_"))
        continue;
      for (Value *arg : call->args())
        if (ok && checked_space(arg->getType()))
          ok = check_pointer(i, arg, ConstantInt::get(i64, 1), false);
    }
    if (!ok)
      return false;
  }
  if (sites_.empty())
    return true;
  ki_->bounds_sites = static_cast<cc_bounds_site *>(
      malloc(sites_.size() * sizeof(cc_bounds_site)));
  if (!ki_->bounds_sites)
    return false;
  memcpy(ki_->bounds_sites, sites_.data(),
         sites_.size() * sizeof(cc_bounds_site));
  ki_->num_bounds_sites = (unsigned)sites_.size();
  return true;
}

} // namespace

extern "C" void cc_bounds_prepare(LLVMModuleRef m, LLVMValueRef *kernels,
                                  unsigned n) {
  Module &mod = *unwrap(m);
  DenseSet<Function *> is_kernel;
  for (unsigned i = 0; i < n; i++)
    is_kernel.insert(unwrap<Function>(kernels[i]));
  for (Function &f : mod) {
    if (f.isDeclaration() || is_kernel.count(&f))
      continue;
    f.removeFnAttr(Attribute::NoInline);
    f.removeFnAttr(Attribute::OptimizeNone);
    f.addFnAttr(Attribute::AlwaysInline);
  }
}

extern "C" bool cc_bounds_instrument(LLVMValueRef kernel,
                                     cc_kernel_info *ki) {
  Function &k = *unwrap<Function>(kernel);
  if (k.isDeclaration())
    return true;
  k.removeFnAttr(Attribute::OptimizeNone);   // -cl-opt-disable kernels
  if (!Checker(k, ki).run())
    return false;
  cc_bounds_box(kernel);
  return true;
}
