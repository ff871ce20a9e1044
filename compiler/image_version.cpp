// This file contains the image pass: it lets a loop-mode kernel that
// reads and writes images vectorise across work-items. builtins/image.c
// reads an image's format through calls of __skein_image_key_f(image)
// (float reads and writes) and __skein_image_key_i (integer ones); without knowing the format, every access dispatches on it and
// the dispatch holds calls of the out-of-line conversions, which the loop
// vectoriser refuses. Here (C++: the C API can neither clone blocks nor
// set metadata kinds by id on many loads):
//
// - every load of an image's descriptor (skein_image, builtins/abi.h)
//   is marked !invariant.load: the runtime never changes it during a
//   launch, so LICM hoists its fields out of the work-item loop although
//   the kernel stores to the images' pixels;
// - a work-group function whose work-item loops ask only float reads and
//   writes of images that its entry block already has (kernel arguments)
//   is versioned on the format: the body after the entry is copied once
//   per common format (RGBA and R of UNORM_INT8 and FLOAT), the entry
//   switches on the images' common key, and in each copy the key is a
//   constant, so the conversion is straight-line code with a constant
//   pixel size that LLVM vectorises; other formats, or images of
//   different formats, run the original body;
// - in the copies of R UNORM_INT8, whose masked byte accesses AVX2
//   lacks, a second copy runs the work-groups whose coordinates are all
//   inside the images, with the border tests constants
//   (image_inside.cpp);
// - every other key call becomes a load of the key;
// - __skein_image_lane_x(id), the column a read is guessed to sample,
//   becomes the work-item's global x id in the versioned loops (their
//   reads of that column are then contiguous loads), INT32_MIN elsewhere
//   (image.c truncates the column to 32 bits).
// After the optimiser, cc_image_finish branches around each vectorised
// pixel gather whose lanes are all off (the reads outside the guess).
#include "compiler_internal.h"
#include "image_centres.h"
#include "image_inside.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Casting.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/Scalarizer.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>


using namespace llvm;

namespace {

// The formats a work-item loop is versioned on: FORMAT_KEY of image.c,
// the channel order in the low half, the data type in the high half.
constexpr uint64_t key_of(uint64_t order, uint64_t type) {
  return type << 32 | order;
}
const uint64_t float_versions[] = {
    key_of(0x10B5 /* CL_RGBA */, 0x10D2 /* CL_UNORM_INT8 */),
    key_of(0x10B0 /* CL_R */, 0x10D2 /* CL_UNORM_INT8 */),
    key_of(0x10B5 /* CL_RGBA */, 0x10DE /* CL_FLOAT */),
    key_of(0x10B0 /* CL_R */, 0x10DE /* CL_FLOAT */),
};

// Whether the copy of case value v (version(): the format's index in
// float_versions plus 1, times 16, plus the sampler class's) gets an
// inside version (image_inside.cpp): those of UNORM_INT8. R's pixels are
// bytes, and AVX2 has no masked byte loads or stores, so where the border
// tests stay its loops stay scalar; RGBA8's vectorise with masked 32-bit
// accesses (vpmaskmovd, slow stores on AVX2) and a test per read of a
// guessed column, which the inside version's clamps to the edge remove
// (a nearest read of pixel centres becomes a plain copy). The float
// formats' copies are within 1.6x of a buffer copy without one, and
// another copy costs compile time.
bool inside_wanted(uint64_t v) {
  uint64_t format = v / 16;
  if (format < 1 || format > std::size(float_versions))
    return false;
  uint64_t key = float_versions[format - 1];
  return key == key_of(0x10B0 /* CL_R */, 0x10D2 /* CL_UNORM_INT8 */) ||
         key == key_of(0x10B5 /* CL_RGBA */, 0x10D2 /* CL_UNORM_INT8 */);
}

// The sampler values a versioned loop is further specialised on, when
// its reads take their sampler from a kernel argument (uniform for the
// launch): each class names a filter and the addressing modes it covers
// (SKEIN_SAMPLER_* of builtins/abi.h; the normalised-coordinates bit
// stays a run-time value, one select per coordinate). In a class's copy
// the sampler's filter is a constant and its mode one of the class's, so
// image.c's addressing folds to that mode's code (a class of two modes
// keeps a select between them) and the loop vectorises as it does with
// a kernel-scope sampler. Together the classes cover every sampler
// clCreateSampler makes; other bits run the original loop.
struct SamplerClass {
  uint32_t filter;
  uint32_t modes[2];
  unsigned num_modes;
};
constexpr uint32_t NEAREST = SKEIN_SAMPLER_FILTER_NEAREST,
                   LINEAR = SKEIN_SAMPLER_FILTER_LINEAR;
const SamplerClass sampler_classes[] = {
    {NEAREST, {SKEIN_SAMPLER_ADDRESS_CLAMP_TO_EDGE}, 1},
    {LINEAR, {SKEIN_SAMPLER_ADDRESS_CLAMP_TO_EDGE}, 1},
    {NEAREST, {SKEIN_SAMPLER_ADDRESS_CLAMP, SKEIN_SAMPLER_ADDRESS_NONE}, 2},
    {LINEAR, {SKEIN_SAMPLER_ADDRESS_CLAMP, SKEIN_SAMPLER_ADDRESS_NONE}, 2},
    {NEAREST,
     {SKEIN_SAMPLER_ADDRESS_REPEAT, SKEIN_SAMPLER_ADDRESS_MIRRORED_REPEAT},
     2},
    {LINEAR,
     {SKEIN_SAMPLER_ADDRESS_REPEAT, SKEIN_SAMPLER_ADDRESS_MIRRORED_REPEAT},
     2},
};
constexpr uint32_t SAMPLER_CLASS_BITS =
    SKEIN_SAMPLER_FILTER_MASK | SKEIN_SAMPLER_ADDRESS_MASK;

bool is_handle(Function *f) {
  // __skein_image_<type>_<ro|wo|rw>: image.c's identity functions.
  StringRef n = f->getName();
  return n.starts_with("__skein_image_") && f->arg_size() == 1 &&
         (n.ends_with("_ro") || n.ends_with("_wo") || n.ends_with("_rw"));
}

Function *callee_of(Instruction &i) {
  auto *call = dyn_cast<CallInst>(&i);
  return call ? call->getCalledFunction() : nullptr;
}

// What the image pass adds to accesses: the invariant mark of
// descriptor loads, and one alias scope that the pixel loads of
// read_only images are in and the pixel stores of write_only images are
// not: a work-item cannot see another's image writes without a barrier,
// nor its own through another image than a read_write one after a fence
// (OpenCL C's "Reading and Writing to the Same Image in a Kernel"), so
// the loop vectoriser may take them apart without run-time checks.
struct Marks {
  MDNode *empty;
  MDNode *read_only_scope;  // a list of one scope
  SmallPtrSet<Value *, 32> seen = {};  // pointers walked (phi cycles)
};

// Marks the pixel accesses through data pointer v (the descriptor's
// first field) of an image of access `access` ('r', 'w' or other).
void mark_pixels(Value *v, char access, Marks &mk, unsigned depth) {
  if (depth > 12 || (access != 'r' && access != 'w') ||
      !mk.seen.insert(v).second)
    return;
  for (User *u : v->users()) {
    if (auto *ld = dyn_cast<LoadInst>(u)) {
      if (access == 'r' && ld->getPointerOperand() == v)
        ld->setMetadata(LLVMContext::MD_alias_scope,
                        MDNode::concatenate(
                            ld->getMetadata(LLVMContext::MD_alias_scope),
                            mk.read_only_scope));
    } else if (auto *st = dyn_cast<StoreInst>(u)) {
      if (access == 'w' && st->getPointerOperand() == v)
        st->setMetadata(LLVMContext::MD_noalias,
                        MDNode::concatenate(
                            st->getMetadata(LLVMContext::MD_noalias),
                            mk.read_only_scope));
    } else if (isa<CastInst>(u) || isa<GetElementPtrInst>(u) ||
               isa<PHINode>(u) || isa<SelectInst>(u)) {
      // Phis and selects: the builtins' own merges of one access's
      // paths (a kernel cannot hold a pixel's address). A load is only
      // ever of a read_only or read_write image, a store of a write_only
      // or read_write one, so a merge of two images' pointers cannot
      // make a write_only store look apart from a read_only load it
      // reaches.
      mark_pixels(u, access, mk, depth + 1);
    }
  }
}

// Marks the loads of the descriptor that v points at invariant, through
// casts and address arithmetic (not through loaded values: the pixels
// are not invariant), and the pixel accesses through its data field.
// at_data: v points at the descriptor's first field (the data pointer).
void mark_invariant(Value *v, char access, Marks &mk,
                    bool at_data = true, unsigned depth = 0) {
  if (depth > 8)
    return;
  for (User *u : v->users()) {
    if (auto *ld = dyn_cast<LoadInst>(u)) {
      if (ld->getPointerOperand() != v)
        continue;
      ld->setMetadata(LLVMContext::MD_invariant_load, mk.empty);
      if (at_data && ld->getType()->isPointerTy())
        mark_pixels(ld, access, mk, 0);
    } else if (auto *gep = dyn_cast<GetElementPtrInst>(u)) {
      mark_invariant(u, access, mk, at_data && gep->hasAllZeroIndices(),
                     depth + 1);
    } else if (isa<CastInst>(u)) {
      mark_invariant(u, access, mk, at_data, depth + 1);
    }
  }
}

// The image value under casts and handle calls.
Value *strip(Value *v) {
  for (unsigned i = 0; i < 8; i++) {
    auto *call = dyn_cast<CallInst>(v);
    if (call && call->getCalledFunction() &&
        is_handle(call->getCalledFunction()))
      v = call->getArgOperand(0);
    else if (auto *c = dyn_cast<CastInst>(v))
      v = c->getOperand(0);
    else if (auto *c = dyn_cast<ConstantExpr>(v); c && c->isCast())
      v = c->getOperand(0);
    else
      break;
  }
  return v;
}

// Loads the key of image value `image` before `at`.
Value *load_key(IRBuilder<> &b, Value *image, MDNode *empty) {
  Value *p = b.CreateConstGEP1_64(b.getInt8Ty(), image,
                                  offsetof(skein_image, channel_order));
  LoadInst *ld = b.CreateAlignedLoad(b.getInt64Ty(), p, Align(4), "key");
  ld->setMetadata(LLVMContext::MD_invariant_load, empty);
  return ld;
}

// The root of run-time sampler value `bits` (a kernel argument: an
// argument of f or a load in its entry block), or null.
Value *sampler_root(Function &f, Instruction *bits) {
  Value *r = strip(bits->getOperand(0));
  auto *ri = dyn_cast<Instruction>(r);
  bool argument =
      isa<Argument>(r) ||
      (ri && ri->getParent() == &f.getEntryBlock() && isa<LoadInst>(ri));
  return argument && (r->getType()->isPointerTy() ||
                      r->getType()->isIntegerTy())
             ? r
             : nullptr;
}

// The sampler bits of a copy of sampler class c, in place of run-time
// bits: the filter the class's, the addressing mode one of the class's
// (a constant, or a select between two), the other bits as they are.
// Once InstCombine has seen through the masks image.c applies, every
// test of the filter and of modes outside the class folds.
Value *class_bits(IRBuilder<> &b, Value *bits, const SamplerClass &c) {
  Value *mode = b.getInt32(c.modes[c.num_modes - 1]);
  Value *m = b.CreateAnd(bits, SKEIN_SAMPLER_ADDRESS_MASK);
  for (unsigned i = c.num_modes - 1; i-- > 0;)
    mode = b.CreateSelect(b.CreateICmpEQ(m, b.getInt32(c.modes[i])),
                          b.getInt32(c.modes[i]), mode);
  Value *rest = b.CreateAnd(bits, ~SAMPLER_CLASS_BITS);
  return b.CreateOr(b.CreateOr(rest, b.getInt32(c.filter)), mode,
                    "sampler.class");
}

// Versions work-group function f on the common key of its images, when
// every key call asks for floats and names an image that f's entry block
// has; and, where every run-time sampler value of f (samplers) is one
// kernel argument, on that sampler's class too (sampler_classes). Sets
// formats to the number of formats and returns the number of copies.
unsigned version(Function &f, std::vector<CallInst *> &keys,
                 const std::vector<Instruction *> &samplers, MDNode *empty,
                 unsigned &formats) {
  formats = 0;
  BasicBlock &entry = f.getEntryBlock();
  auto *br = dyn_cast<BranchInst>(entry.getTerminator());
  if (!br || br->isConditional())
    return 0;
  std::vector<Value *> roots;
  for (CallInst *k : keys) {
    if (k->getCalledFunction()->getName() != "__skein_image_key_f" ||
        k->getParent() == &entry)
      return 0;
    Value *r = strip(k->getArgOperand(0));
    auto *ri = dyn_cast<Instruction>(r);
    bool known = isa<Argument>(r) || (ri && ri->getParent() == &entry &&
                                      isa<LoadInst>(ri));
    if (!known)
      return 0;
    if (std::find(roots.begin(), roots.end(), r) == roots.end())
      roots.push_back(r);
  }
  if (roots.empty())
    return 0;
  // One sampler argument for every run-time sampler value (two samplers,
  // or one that is not an argument, leave the sampler run-time: one copy
  // per format, as for a kernel with constant samplers).
  Value *sampler = nullptr;
  for (Instruction *bits : samplers) {
    Value *r = bits->getParent() != &entry ? sampler_root(f, bits) : nullptr;
    if (!r || (sampler && r != sampler) || !bits->getType()->isIntegerTy(32)) {
      sampler = nullptr;
      break;
    }
    sampler = r;
  }
  // The descriptors can be read anywhere in f (LICM then hoists the
  // loads of their fields out of conditional code too).
  LLVMContext &ctx = f.getContext();
  Type *i64 = Type::getInt64Ty(ctx);
  MDNode *size = MDNode::get(
      ctx, ConstantAsMetadata::get(ConstantInt::get(i64, sizeof(skein_image))));
  MDNode *align = MDNode::get(
      ctx, ConstantAsMetadata::get(ConstantInt::get(i64, alignof(skein_image))));
  for (Value *r : roots)
    if (auto *ld = dyn_cast<LoadInst>(r)) {
      ld->setMetadata(LLVMContext::MD_dereferenceable, size);
      ld->setMetadata(LLVMContext::MD_align, align);
      ld->setMetadata(LLVMContext::MD_noundef, empty);
    }

  // The copies, made from the original blocks before any copy exists.
  std::vector<BasicBlock *> body;
  for (BasicBlock &bb : f)
    if (&bb != &entry)
      body.push_back(&bb);
  BasicBlock *start = br->getSuccessor(0);
  IRBuilder<> b(br);
  // The case value: the format's index (1..) times 16 plus the sampler
  // class's (1.., 0 without sampler versions); 0 (the original loop) for
  // another format, images of different formats or sampler bits of no
  // class. One switch, one edge to each copy.
  Value *first = load_key(b, roots[0], empty);
  Value *same = b.getTrue();
  for (size_t i = 1; i < roots.size(); i++)
    same = b.CreateAnd(same,
                       b.CreateICmpEQ(load_key(b, roots[i], empty), first));
  Value *fmt = b.getInt32(0);
  for (size_t i = std::size(float_versions); i-- > 0;)
    fmt = b.CreateSelect(b.CreateICmpEQ(first, b.getInt64(float_versions[i])),
                         b.getInt32((uint32_t)(i + 1) * 16), fmt);
  fmt = b.CreateSelect(same, fmt, b.getInt32(0), "image.format");
  unsigned num_classes = sampler ? std::size(sampler_classes) : 0;
  Value *sel = fmt;
  if (sampler) {
    Value *bits = sampler->getType()->isPointerTy()
                      ? b.CreatePtrToInt(sampler, b.getInt32Ty())
                      : b.CreateZExtOrTrunc(sampler, b.getInt32Ty());
    bits = b.CreateAnd(bits, SAMPLER_CLASS_BITS);
    Value *cls = b.getInt32(0);
    for (unsigned i = num_classes; i-- > 0;)
      for (unsigned j = 0; j < sampler_classes[i].num_modes; j++)
        cls = b.CreateSelect(
            b.CreateICmpEQ(bits, b.getInt32(sampler_classes[i].filter |
                                            sampler_classes[i].modes[j])),
            b.getInt32(i + 1), cls);
    // A format without a sampler class runs the original loop too.
    sel = b.CreateSelect(b.CreateICmpEQ(cls, b.getInt32(0)), b.getInt32(0),
                         b.CreateOr(fmt, cls), "image.version");
  }
  SwitchInst *sw = b.CreateSwitch(
      sel, start, std::size(float_versions) * std::max(num_classes, 1u));
  br->eraseFromParent();
  unsigned made = 0;
  for (size_t fi = 0; fi < std::size(float_versions); fi++)
    for (unsigned ci = 0; ci < std::max(num_classes, 1u); ci++) {
      ValueToValueMapTy vmap;
      skein_images::clone_blocks(f, body, ".fmt", vmap);
      for (CallInst *k : keys) {
        auto *copy = cast<CallInst>(vmap[k]);
        copy->replaceAllUsesWith(b.getInt64(float_versions[fi]));
        copy->eraseFromParent();
      }
      if (sampler)
        for (Instruction *bits : samplers) {
          auto *copy = cast<Instruction>(vmap[bits]);
          SmallVector<Use *, 8> uses;
          for (Use &u : copy->uses())
            uses.push_back(&u);
          IRBuilder<> cb(copy->getNextNode());
          Value *v = class_bits(cb, copy, sampler_classes[ci]);
          for (Use *u : uses)
            u->set(v);
        }
      sw->addCase(b.getInt32((uint32_t)(fi + 1) * 16 + (sampler ? ci + 1 : 0)),
                  cast<BasicBlock>(vmap[start]));
      made++;
    }
  formats = std::size(float_versions);
  return made;
}

// The builtins' small out-of-line functions, which the optimiser does
// not inline into kernels (the builtins are built "no-builtins", the
// kernels are not) and which would keep a sampler opaque and a query a
// call in the work-item loop: replaced by what they compute (image.c).
// __skein_sampler_bits(s) and __translate_sampler_initializer(bits) are
// casts (a sampler value is its bits), a handle is its argument, and
// __skein_image_query(image, constant) a load of the descriptor's field.
// samplers: each function's run-time sampler values (the bits of a
// sampler_t that is no constant), which version() may specialise.
void lower_helpers(Module &m, MDNode *empty,
                   DenseMap<Function *, std::vector<Instruction *>> &samplers) {
  std::vector<CallInst *> calls;
  for (Function &f : m)
    if (f.getName() == "__skein_sampler_bits" ||
        f.getName() == "__translate_sampler_initializer" ||
        f.getName() == "__skein_image_query" || is_handle(&f))
      for (User *u : f.users())
        if (auto *call = dyn_cast<CallInst>(u))
          if (call->getCalledFunction() == &f)
            calls.push_back(call);
  for (CallInst *call : calls) {
    IRBuilder<> b(call);
    StringRef name = call->getCalledFunction()->getName();
    Value *v = nullptr;
    if (name == "__skein_sampler_bits") {
      v = b.CreatePtrToInt(call->getArgOperand(0), call->getType());
      if (auto *bits = dyn_cast<Instruction>(v))
        samplers[call->getFunction()].push_back(bits);
    } else if (name == "__translate_sampler_initializer") {
      v = b.CreateIntToPtr(b.CreateZExt(call->getArgOperand(0),
                                        b.getInt64Ty()),
                           call->getType());
    } else if (name == "__skein_image_query") {
      auto *which = dyn_cast<ConstantInt>(call->getArgOperand(1));
      if (!which || which->getZExtValue() > 5)
        continue;
      static const size_t fields[] = {
          offsetof(skein_image, width),        offsetof(skein_image, height),
          offsetof(skein_image, depth),        offsetof(skein_image, array_size),
          offsetof(skein_image, channel_type), offsetof(skein_image, channel_order),
      };
      unsigned q = (unsigned)which->getZExtValue();
      Value *p = b.CreateConstGEP1_64(b.getInt8Ty(), call->getArgOperand(0),
                                      fields[q]);
      LoadInst *ld = b.CreateAlignedLoad(q < 4 ? b.getInt64Ty() : b.getInt32Ty(),
                                         p, Align(4));
      ld->setMetadata(LLVMContext::MD_invariant_load, empty);
      v = b.CreateZExtOrTrunc(ld, call->getType());
    } else if (call->getArgOperand(0)->getType() == call->getType()) {
      v = call->getArgOperand(0);   /* a handle */
    }
    if (!v)
      continue;
    call->replaceAllUsesWith(v);
    call->eraseFromParent();
  }
}

// The 64-bit phi (a work-item loop's local id) under v, an add chain
// of at most a few levels, or null.
PHINode *local_id_under(Value *v, unsigned depth = 0) {
  if (auto *phi = dyn_cast<PHINode>(v))
    return phi->getType()->isIntegerTy(64) ? phi : nullptr;
  auto *add = dyn_cast<BinaryOperator>(v);
  if (!add || add->getOpcode() != Instruction::Add || depth > 4)
    return nullptr;
  if (PHINode *p = local_id_under(add->getOperand(0), depth + 1))
    return p;
  return local_id_under(add->getOperand(1), depth + 1);
}

// Rewrites each 32-bit truncation of a global id in f, trunc(gid), as
// trunc(lx) + trunc(gid - lx), lx the work-item loop's local id (equal
// modulo 2^32): gid a call of __skein_get_global_id (lx its argument) or,
// where the work-group function's builtins are inlined already (a split
// build), an add chain over the loop's phi. The difference is
// loop-invariant, and a truncated induction variable is one the loop
// vectoriser widens as a 32-bit vector induction of its own; otherwise it
// widened the 64-bit id and truncated every vector of it: in the
// sampler-less R8 copy's loop (64 pixels an iteration) 8 vpaddq, 8
// vpmovqd and 4 vinserti64x4, of about 140 instructions. A kernel's int
// coordinates and image.c's guessed column are such truncations.
void narrow_ids(Function &f) {
  std::vector<std::pair<TruncInst *, Value *>> truncs;
  for (BasicBlock &bb : f)
    for (Instruction &i : bb) {
      auto *t = dyn_cast<TruncInst>(&i);
      if (!t || !t->getType()->isIntegerTy(32) ||
          !t->getOperand(0)->getType()->isIntegerTy(64))
        continue;
      Value *gid = t->getOperand(0);
      auto *call = dyn_cast<CallInst>(gid);
      Function *c = call ? call->getCalledFunction() : nullptr;
      if (c && c->getName() == "__skein_get_global_id" &&
          call->arg_size() == 5 &&
          call->getArgOperand(1)->getType() == gid->getType() &&
          isa<ConstantInt>(call->getArgOperand(4)) &&
          cast<ConstantInt>(call->getArgOperand(4))->isZero())
        truncs.push_back({t, call->getArgOperand(1)});
      else if (PHINode *lx = !call ? local_id_under(gid) : nullptr;
               lx && lx != gid)
        truncs.push_back({t, lx});
    }
  for (auto [t, lx] : truncs) {
    Value *gid = t->getOperand(0);
    IRBuilder<> b(t);
    Value *v = b.CreateAdd(b.CreateTrunc(lx, t->getType()),
                           b.CreateTrunc(b.CreateSub(gid, lx), t->getType()));
    t->replaceAllUsesWith(v);
    t->eraseFromParent();
  }
}

// Splits f's vector arithmetic (a pixel is a float4) into lanes, so that
// its work-item loops are scalar code that the loop vectoriser widens
// across work-items (it refuses vector-typed instructions). Loads and
// stores of vectors stay whole: the vectoriser widens an RGBA FLOAT
// pixel's 16 bytes better than four interleaved floats (skein-bench-images
// ran 2-3x faster so). SROA and InstCombine first, as
// cc_scalarize_function does: the scalariser splits only SSA values, and
// not the ABI's round trips through other types; between them the ids
// are narrowed (narrow_ids).
void scalarize(Function &f) {
  LoopAnalysisManager lam;
  FunctionAnalysisManager fam;
  CGSCCAnalysisManager cgam;
  ModuleAnalysisManager mam;
  PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  SROAPass(SROAOptions::PreserveCFG).run(f, fam);
  // Before InstCombine, which folds the sign extension of a truncated id
  // (image.c's pixel address) into shifts of the 64-bit id that
  // narrow_ids would not find.
  narrow_ids(f);
  fam.invalidate(f, PreservedAnalyses::none());
  InstCombinePass().run(f, fam);
  fam.invalidate(f, PreservedAnalyses::none());
  ScalarizerPassOptions opts;
  opts.ScalarizeLoadStore = false;
  ScalarizerPass(opts).run(f, fam);
}

// Asks LLVM to unroll whole the kernel's own small loops in versioned
// function f (llvm.loop.unroll.full): a filter's loops over its
// neighbours (a 5x5 box: dy and dx, 5 trips each). Unless unrolled, such
// a loop inside the work-item loop keeps that loop from being the
// innermost, which is the only one the loop vectoriser widens; LLVM's own
// full unroll gave up on RGBA8's (each read decodes four channels: over
// its size threshold) and left those loops scalar, 4-5x the same work
// over a buffer. Loops of at most 8 trips whose nest of such loops has
// at most 64 trips in all; the work-item loops (trip count the group's
// size) never qualify.
void unroll_small_loops(Function &f) {
  skein_images::FunctionAnalyses an(f);
  ScalarEvolution &se = an.se;
  LLVMContext &ctx = f.getContext();
  for (Loop *l : an.li.getLoopsInPreorder()) {
    unsigned trips = se.getSmallConstantTripCount(l);
    if (trips == 0 || trips > 8)
      continue;
    unsigned nest = trips;
    for (Loop *p = l->getParentLoop(); p; p = p->getParentLoop())
      if (unsigned t = se.getSmallConstantTripCount(p); t && t <= 8)
        nest *= t;
    if (nest > 64)
      continue;
    SmallVector<Metadata *, 4> ops = {nullptr};
    if (MDNode *old = l->getLoopID())
      for (unsigned i = 1; i < old->getNumOperands(); i++)
        ops.push_back(old->getOperand(i));
    ops.push_back(MDNode::get(ctx, MDString::get(ctx, "llvm.loop.unroll.full")));
    MDNode *id = MDNode::getDistinct(ctx, ops);
    id->replaceOperandWith(0, id);
    l->setLoopID(id);
  }
}

// Replaces the __skein_image_lane_x(id) calls in f (image.c: the column
// a read is guessed to sample; id is the work-item's global x id) by id
// where `ids` (f is a versioned work-group function, its work-item loops
// about to be vectorised), by INT32_MIN (no column, also as image.c's
// 32-bit column and plus 1: the guess folds away, and the id with it)
// elsewhere.
void lower_lane_x(Function &f, Function *lane_x, bool ids) {
  std::vector<CallInst *> hints;
  for (BasicBlock &bb : f)
    for (Instruction &i : bb)
      if (callee_of(i) == lane_x)
        hints.push_back(cast<CallInst>(&i));
  for (CallInst *h : hints) {
    Value *v = ids ? h->getArgOperand(0)
                   : ConstantInt::getSigned(h->getType(), INT32_MIN);
    h->replaceAllUsesWith(v);
    h->eraseFromParent();
  }
}

// Lets the loop vectoriser use AVX2's gathers in versioned work-group
// function f. LLVM takes gathers for legal only on CPUs it tunes as
// having fast ones (AVX-512, Skylake and later Intel cores); for the
// others with AVX2 (Haswell, Broadwell, Zen 1-3) it costs a gather as one
// branch and load per lane, and a versioned loop's reads through a
// sampler, whose pixels outside the guessed column are a gather
// (texel_f), then stayed scalar: with SKEIN_CPU=haswell the RGBA8 reads
// with integer coordinates or nearest filtering ran 5-7x the same-work
// buffer kernel. Those gathers run only where a lane misses the guess
// (cc_image_finish branches around the others), so their speed hardly
// matters; the tuning flag changes nothing else in the code generated.
void allow_gathers(Function &f) {
  Attribute a = f.getFnAttribute("target-features");
  if (!a.isValid())
    return;
  std::string fs = a.getValueAsString().str();
  if (!cc_feature_on(fs.c_str(), "avx2") ||
      cc_feature_on(fs.c_str(), "avx512f") ||
      cc_feature_on(fs.c_str(), "fast-gather"))
    return;
  f.addFnAttr("target-features", fs + ",+fast-gather");
}

} // namespace

// Inlines the nearest-index helper (image_centres.cpp) wherever no
// versioned copy folded it: the remaining calls of every function.
static void inline_nearest_index(Module &m) {
  if (!m.getFunction("__skein_image_nearest_index"))
    return;
  for (Function &f : m)
    if (!f.isDeclaration() && f.getName() != "__skein_image_nearest_index")
      skein_images::lower_nearest_index(f, false);
}

extern "C" void cc_image_version(LLVMModuleRef mref, bool versions) {
  Module &m = *unwrap(mref);
  MDNode *empty = MDNode::get(m.getContext(), {});
  MDBuilder mdb(m.getContext());
  MDNode *domain = mdb.createAnonymousAliasScopeDomain("skein.images");
  MDNode *scope = mdb.createAnonymousAliasScope(domain, "read_only");
  Marks mk = {empty, MDNode::get(m.getContext(), {scope}), {}};
  Function *key_f = m.getFunction("__skein_image_key_f");
  Function *key_i = m.getFunction("__skein_image_key_i");
  Function *lane_x = m.getFunction("__skein_image_lane_x");
  // Handles first: their results are the descriptors' addresses.
  for (Function &f : m)
    if (is_handle(&f))
      for (User *u : f.users())
        if (auto *call = dyn_cast<CallInst>(u))
          if (call->getCalledFunction() == &f)
            mark_invariant(call, f.getName().back() == 'o'
                                     ? f.getName().end()[-2]
                                     : 'x',
                           mk);
  if (!key_f && !key_i) {
    inline_nearest_index(m);
    return;
  }
  DenseMap<Function *, std::vector<Instruction *>> samplers;
  lower_helpers(m, empty, samplers);
  for (Function &f : m) {
    if (f.isDeclaration())
      continue;
    std::vector<CallInst *> keys;
    for (BasicBlock &bb : f)
      for (Instruction &i : bb)
        if (Function *c = callee_of(i); c && (c == key_f || c == key_i))
          keys.push_back(cast<CallInst>(&i));
    if (keys.empty())
      continue;
    unsigned made = 0, formats = 0;
    if (versions && f.getName().starts_with("__skein_wg_"))
      made = version(f, keys, samplers.lookup(&f), empty, formats);
    // SKEIN_IMAGE_GUESS=0: no guessed column (every computed pixel
    // address a gather once vectorised), for comparisons.
    const char *guess = getenv("SKEIN_IMAGE_GUESS");
    if (lane_x)
      lower_lane_x(f, lane_x, made > 0 && !(guess && *guess == '0'));
    if (made) {
      scalarize(f);
      allow_gathers(f);
      // After the scalariser (each coordinate's lanes its own values),
      // before the inside versions (whose tests then see the ints).
      skein_images::lower_nearest_index(f, true);
      unroll_small_loops(f);
      // SKEIN_IMAGE_INSIDE=0: no inside versions, for comparisons.
      const char *inside_env = getenv("SKEIN_IMAGE_INSIDE");
      unsigned inside = inside_env && *inside_env == '0'
                            ? 0
                            : skein_images::version_inside(f, inside_wanted);
      if (cc_dump_enabled("modes"))
        fprintf(stderr, "skein: %s: image accesses versioned on %u formats",
                f.getName().str().c_str(), formats);
      if (made > formats && cc_dump_enabled("modes"))
        fprintf(stderr, " x %u classes of its sampler argument",
                made / formats);
      if (inside && cc_dump_enabled("modes"))
        fprintf(stderr, ", %u of them with an inside version", inside);
      if (cc_dump_enabled("modes"))
        fputc('\n', stderr);
    }
    for (CallInst *k : keys) {
      IRBuilder<> b(k);
      k->replaceAllUsesWith(load_key(b, k->getArgOperand(0), empty));
      k->eraseFromParent();
    }
  }
  inline_nearest_index(m);
}

// Whether md is an alias scope of the image pass's domain.
static bool in_image_domain(MDNode *md) {
  auto *domain = md && md->getNumOperands() > 1
                     ? dyn_cast<MDNode>(md->getOperand(1))
                     : nullptr;
  auto *name = domain && domain->getNumOperands() > 1
                   ? dyn_cast<MDString>(domain->getOperand(1))
                   : nullptr;
  return name && name->getString() == "skein.images";
}

// Where a guarded gather's lanes off are poison (its passthru), moves
// the arithmetic that only works on its value (R8's word gather: the
// shift of the pixel's byte down and the mask) into the guarded block:
// the phi then joins the result and poison, and the operands only that
// arithmetic used (the byte's place) are left for the code generator to
// sink after it. Without this they ran in every iteration, for lanes
// whose value is a guessed column's pixel anyway (native R8 integer
// coordinate loop: 7 of 32 instructions per 16 pixels). A chain stops
// at an instruction with another user, or with an operand made after
// the gather (which would not be available in the guarded block).
static void sink_after_gather(PHINode *phi, Instruction *g, Instruction *then) {
  if (!isa<PoisonValue>(phi->getIncomingValue(1)))
    return;
  BasicBlock *join = phi->getParent();
  std::vector<Instruction *> chain;
  Value *cur = phi;
  while (cur->hasOneUse() && chain.size() < 8) {
    auto *u = dyn_cast<Instruction>(*cur->user_begin());
    if (!u || u->getParent() != join ||
        !(isa<BinaryOperator>(u) || isa<CastInst>(u)))
      break;
    // Operands made after the gather: movable where they are one-use
    // arithmetic on values made before it (R8's shift, from the byte's
    // place).
    bool available = true;
    std::vector<Instruction *> before;
    for (Value *op : u->operands()) {
      auto *oi = dyn_cast<Instruction>(op);
      if (op == cur || !oi || oi->getParent() != join)
        continue;
      bool ok = oi->hasOneUse() &&
                (isa<BinaryOperator>(oi) || isa<CastInst>(oi));
      for (Value *o2 : oi->operands())
        if (auto *i2 = dyn_cast<Instruction>(o2); i2 && i2->getParent() == join)
          ok = false;
      if (!ok)
        available = false;
      before.push_back(oi);
    }
    if (!available)
      break;
    chain.insert(chain.end(), before.begin(), before.end());
    chain.push_back(u);
    cur = u;
  }
  if (chain.empty())
    return;
  // The last one's value becomes the phi's; the others move with it.
  Instruction *last = chain.back();
  IRBuilder<> b(join, join->getFirstInsertionPt());
  PHINode *out = b.CreatePHI(last->getType(), 2, "gather.value");
  last->replaceAllUsesWith(out);
  for (Instruction *i : chain)
    i->moveBefore(then);
  for (Instruction *i : chain)
    i->replaceUsesOfWith(phi, g);
  out->addIncoming(last, then->getParent());
  out->addIncoming(PoisonValue::get(last->getType()),
                   phi->getIncomingBlock(1));
  phi->eraseFromParent();
}

// Moves the instructions of block head (the loop body before a guarded
// gather) that only the guarded block `then` uses into it: the gather's
// lane addresses (R8's word addresses: a sign extension, an add, a mask,
// a subtraction and a vector of pointers per vector of lanes) ran in
// every iteration, for a gather that runs only where the guessed column
// misses. In reverse order, so that an instruction whose users moved can
// follow them; only instructions that neither read nor write memory.
static void sink_before_gather(BasicBlock *head, BasicBlock *then) {
  std::vector<Instruction *> order;
  for (Instruction &i : *head)
    order.push_back(&i);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Instruction *i = *it;
    if (i->isTerminator() || isa<PHINode>(i) || i->mayReadOrWriteMemory() ||
        i->mayHaveSideEffects() || i->use_empty())
      continue;
    bool only_then = true;
    for (User *u : i->users())
      if (cast<Instruction>(u)->getParent() != then)
        only_then = false;
    if (only_then)
      i->moveBefore(&*then->getFirstInsertionPt());
  }
}

// After the optimiser: every masked gather of image pixels in a
// work-group function runs only where its mask has a lane set. A read
// that texel_f splits on the guessed column (image.c) becomes, once
// vectorised, a contiguous load for the lanes that read their own column
// and a gather for the others, which are none but at an image's edges
// or where coordinates are not the work-items' own; a gather costs about
// as much with no lane set as with all (measured on Zen 5), so it is
// branched around. The pixel loads are those in the read_only scope that
// cc_image_version put them in.
extern "C" void cc_image_finish(LLVMModuleRef mref) {
  Module &m = *unwrap(mref);
  std::vector<IntrinsicInst *> gathers;
  for (Function &f : m) {
    if (f.isDeclaration() || !f.getName().starts_with("__skein_wg_"))
      continue;
    for (BasicBlock &bb : f)
      for (Instruction &i : bb) {
        auto *ii = dyn_cast<IntrinsicInst>(&i);
        if (!ii || ii->getIntrinsicID() != Intrinsic::masked_gather ||
            isa<Constant>(ii->getArgOperand(2)))
          continue;
        // A list of scopes, or (as the vectoriser may leave it) the one
        // scope itself.
        MDNode *scopes = ii->getMetadata(LLVMContext::MD_alias_scope);
        bool image = in_image_domain(scopes);
        for (unsigned s = 0; scopes && s < scopes->getNumOperands(); s++)
          image |= in_image_domain(dyn_cast<MDNode>(scopes->getOperand(s)));
        if (image)
          gathers.push_back(ii);
      }
  }
  for (IntrinsicInst *g : gathers) {
    Value *mask = g->getArgOperand(2), *passthru = g->getArgOperand(3);
    auto *vt = cast<FixedVectorType>(mask->getType());
    IRBuilder<> b(g);
    Value *bits = b.CreateBitCast(
        mask, IntegerType::get(m.getContext(), vt->getNumElements()));
    Value *any = b.CreateICmpNE(bits, ConstantInt::get(bits->getType(), 0),
                                "gather.any");
    Instruction *then = SplitBlockAndInsertIfThen(any, g, false);
    BasicBlock *join = g->getParent();
    g->moveBefore(then);
    b.SetInsertPoint(join, join->begin());
    PHINode *phi = b.CreatePHI(g->getType(), 2, "gather");
    g->replaceAllUsesWith(phi);
    phi->addIncoming(g, then->getParent());
    phi->addIncoming(passthru, cast<Instruction>(any)->getParent());
    sink_after_gather(phi, g, then);
    sink_before_gather(cast<Instruction>(any)->getParent(), then->getParent());
  }
}
