// This file contains the few LLVM operations the compiler needs that the
// LLVM C API lacks: linking only the needed definitions of a module,
// replacing a global's uses (through constant expressions) inside one
// function, attaching a loop ID with interleave hints, scalarising one
// function's vector arithmetic, and demangling names for the build log.
#include "compiler_internal.h"
#include "unrolled_whole.h"

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ReplaceConstant.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/Scalarizer.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm-c/Target.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <memory>
#include <mutex>
#include <vector>

extern "C" bool cc_link_only_needed(LLVMModuleRef dst, LLVMModuleRef src) {
  std::unique_ptr<llvm::Module> from(llvm::unwrap(src));
  // Linker::linkModules returns true on error.
  return !llvm::Linker::linkModules(*llvm::unwrap(dst), std::move(from),
                                    llvm::Linker::LinkOnlyNeeded);
}

extern "C" void cc_replace_global_in_function(LLVMValueRef gv,
                                              LLVMValueRef fn,
                                              LLVMValueRef repl) {
  auto *global = llvm::cast<llvm::GlobalVariable>(llvm::unwrap(gv));
  auto *func = llvm::cast<llvm::Function>(llvm::unwrap(fn));
  llvm::convertUsersOfConstantsToInstructions({global}, func);
  std::vector<llvm::Use *> uses;
  for (llvm::Use &u : global->uses())
    if (auto *inst = llvm::dyn_cast<llvm::Instruction>(u.getUser()))
      if (inst->getFunction() == func)
        uses.push_back(&u);
  for (llvm::Use *u : uses)
    u->set(llvm::unwrap(repl));
}

extern "C" void cc_set_loop_interleave(LLVMValueRef br, unsigned count,
                                       unsigned width, bool force) {
  auto *inst = llvm::cast<llvm::Instruction>(llvm::unwrap(br));
  llvm::LLVMContext &ctx = inst->getContext();
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Metadata *hint[] = {
      llvm::MDString::get(ctx, "llvm.loop.interleave.count"),
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, count))};
  llvm::Metadata *vf[] = {
      llvm::MDString::get(ctx, "llvm.loop.vectorize.width"),
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, width))};
  std::vector<llvm::Metadata *> ops = {nullptr};
  if (count > 1)
    ops.push_back(llvm::MDNode::get(ctx, hint));
  if (width > 1)
    ops.push_back(llvm::MDNode::get(ctx, vf));
  // Asked for, the loop vectoriser allows 128 assumptions of the index
  // arithmetic's run-time checks instead of 16 (its
  // pragma-vectorize-scev-check-threshold): a split float2 read through
  // an int index needed 32, one per lane's load.
  llvm::Metadata *enable[] = {
      llvm::MDString::get(ctx, "llvm.loop.vectorize.enable"),
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::getTrue(ctx))};
  if (force)
    ops.push_back(llvm::MDNode::get(ctx, enable));
  llvm::MDNode *id = llvm::MDNode::getDistinct(ctx, ops);
  id->replaceOperandWith(0, id);
  inst->setMetadata(llvm::LLVMContext::MD_loop, id);
}

// LLVM's report_fatal_error (a pass pipeline LLVM rejects, a pass's own
// consistency check) ends the process with exit(1) unless a handler takes
// over. Inside a guarded build the handler abandons the build instead, as
// a crash would; elsewhere it returns, and LLVM prints and exits as it
// would have without Skein.
static thread_local char fatal_reason[256];

static void on_llvm_fatal_error(void *, const char *reason, bool) {
  llvm::CrashRecoveryContext *crc = llvm::CrashRecoveryContext::GetCurrent();
  if (!crc)
    return;
  snprintf(fatal_reason, sizeof fatal_reason, "%s", reason);
  crc->HandleExit(1);
}

extern "C" void cc_inject_fatal_error(void) {
  llvm::report_fatal_error("injected by SKEIN_INJECT_COMPILER_CRASH=fatal");
}

extern "C" const char *cc_fatal_error_reason(void) {
  return fatal_reason[0] ? fatal_reason : NULL;
}

extern "C" void cc_crash_forward(const char *reason) {
  llvm::CrashRecoveryContext *crc = llvm::CrashRecoveryContext::GetCurrent();
  if (!crc)
    return;
  snprintf(fatal_reason, sizeof fatal_reason, "%s", reason ? reason : "");
  crc->HandleExit(1);
}

extern "C" void cc_init_asm_parser(void) {
  static std::once_flag once;
  std::call_once(once, [] { LLVMInitializeNativeAsmParser(); });
}

extern "C" bool cc_run_crash_safe(void (*fn)(void *), void *arg) {
  // Installs LLVM's signal handlers and the fatal error handler once,
  // process-wide. A signal outside any guarded call makes them step aside
  // (restoring the previous handlers) and re-raise it, so the host sees
  // what it would have seen.
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::CrashRecoveryContext::Enable();
    llvm::install_fatal_error_handler(on_llvm_fatal_error, nullptr);
  });
  fatal_reason[0] = '\0';
  // SKEIN_NO_CRASH_GUARD=1 (fuzzing, debugging): no guard, so that a
  // crash inside a build reaches the sanitizer or debugger as it is.
  static const bool unguarded = [] {
    const char *e = getenv("SKEIN_NO_CRASH_GUARD");
    return e && strcmp(e, "1") == 0;
  }();
  if (unguarded) {
    fn(arg);
    return true;
  }
  llvm::CrashRecoveryContext crc;
  return crc.RunSafely([&] { fn(arg); });
}

namespace {
// The analysis managers one function pass pipeline needs, registered.
struct FunctionPasses {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  FunctionPasses() {
    llvm::PassBuilder pb;
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
  }
};
} // namespace

// The elements of the floating-point and integer vector phis of func:
// after the split into lanes, each is one value carried around a loop,
// i.e. one register across the work-items vectorised together, whatever
// its width (16 floats or 8 doubles in a zmm register).
static unsigned vector_phi_elements(llvm::Function &func) {
  unsigned elements = 0;
  for (llvm::BasicBlock &bb : func)
    for (llvm::PHINode &phi : bb.phis())
      if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(phi.getType()))
        if (vt->getElementType()->isFloatingPointTy() ||
            vt->getElementType()->isIntegerTy())
          elements += vt->getNumElements();
  return elements;
}

// The loops inside the loop of latch (its latch block), outermost
// first; latch NULL: every loop of the function. None if latch is in no
// loop.
static std::vector<llvm::Loop *>
loops_inside(skein_loops::LoopAnalyses &a, llvm::BasicBlock *latch) {
  llvm::Loop *outer = latch ? a.li.getLoopFor(latch) : nullptr;
  if (latch && !outer)
    return {};
  std::vector<llvm::Loop *> loops;
  for (llvm::Loop *l :
       outer ? outer->getLoopsInPreorder() : a.li.getLoopsInPreorder())
    if (l != outer)
      loops.push_back(l);
  return loops;
}

// Whether a loop inside the loop of latch moves vectors to or from
// memory (shape->inner_vector_memory): split into lanes, each access
// would become a gather or a scatter across work-items, which costs a
// memory-bound loop (a float16 read loop) ten times its speed.
// latch NULL: any loop of func (region mode's body, where the kernel's
// own loops become loops around the work-item loops). A loop LLVM
// unrolls whole is straight-line code in the work-item loop by the time
// the loop vectoriser runs, where the split lanes of consecutive
// work-items' vectors are interleaved accesses, not gathers: only the
// widest of its vectors is recorded (shape->unrolled_vector_lanes).
static void inner_loops_access_vectors(llvm::Function &func,
                                       llvm::BasicBlock *latch,
                                       cc_vector_shape_t *shape) {
  shape->inner_vector_memory = false;
  shape->unrolled_vector_lanes = 0;
  shape->kept_inner_loop = false;
  skein_loops::LoopAnalyses a(func);
  for (llvm::Loop *inner : loops_inside(a, latch)) {
    bool unrolled = skein_loops::unrolled_whole(inner, a.se);
    shape->kept_inner_loop |= !unrolled;
    for (llvm::BasicBlock *bb : inner->blocks())
      for (llvm::Instruction &i : *bb) {
        llvm::Type *t = nullptr;
        if (auto *ld = llvm::dyn_cast<llvm::LoadInst>(&i))
          t = ld->getType();
        else if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&i))
          t = st->getValueOperand()->getType();
        auto *vt = llvm::dyn_cast_or_null<llvm::FixedVectorType>(t);
        if (!vt)
          continue;
        if (!unrolled)
          shape->inner_vector_memory = true;
        else if (vt->getNumElements() > shape->unrolled_vector_lanes)
          shape->unrolled_vector_lanes = vt->getNumElements();
      }
  }
}

extern "C" void cc_vector_shape(LLVMValueRef fn, LLVMValueRef latch,
                                cc_vector_shape_t *shape) {
  auto &func = *llvm::cast<llvm::Function>(llvm::unwrap(fn));
  auto *br = latch ? llvm::cast<llvm::Instruction>(llvm::unwrap(latch))
                   : nullptr;
  FunctionPasses passes;
  // Private vectors live in allocas until SROA: the scalariser splits
  // only SSA values, and the phis say how many chains the loops carry.
  llvm::SROAPass(llvm::SROAOptions::PreserveCFG).run(func, passes.fam);
  shape->carried = vector_phi_elements(func);
  inner_loops_access_vectors(func, br ? br->getParent() : nullptr, shape);
}

extern "C" void cc_sroa_function(LLVMValueRef fn) {
  auto &func = *llvm::cast<llvm::Function>(llvm::unwrap(fn));
  FunctionPasses passes;
  llvm::SROAPass(llvm::SROAOptions::PreserveCFG).run(func, passes.fam);
}

extern "C" void cc_unroll_whole_loops(LLVMValueRef fn, LLVMValueRef latch) {
  if (cc_env_switch("SKEIN_KEEP_SMALL_LOOPS"))
    return;   // to measure the change against LLVM's own choice
  auto &func = *llvm::cast<llvm::Function>(llvm::unwrap(fn));
  auto *br = latch ? llvm::cast<llvm::Instruction>(llvm::unwrap(latch))
                   : nullptr;
  skein_loops::LoopAnalyses a(func);
  for (llvm::Loop *inner : loops_inside(a, br ? br->getParent() : nullptr))
    if (skein_loops::unrolled_whole(inner, a.se))
      skein_loops::ask_full_unroll(inner);
}

extern "C" void cc_scalarize_function(LLVMValueRef fn) {
  auto &func = *llvm::cast<llvm::Function>(llvm::unwrap(fn));
  FunctionPasses passes;
  // InstCombine folds the ABI's round trips (a float2 passed to a builtin
  // as a double is bitcast there and back), which the scalariser cannot
  // split and which would keep the loop vector-typed.
  llvm::InstCombinePass().run(func, passes.fam);
  passes.fam.invalidate(func, llvm::PreservedAnalyses::none());
  llvm::ScalarizerPassOptions opts;
  opts.ScalarizeLoadStore = true;
  llvm::ScalarizerPass(opts).run(func, passes.fam);
}

// True if v (a constant) is used, directly or through constant
// expressions, by an instruction of func.
static bool used_in(const llvm::Value *v, const llvm::Function *func) {
  for (const llvm::User *u : v->users()) {
    if (auto *inst = llvm::dyn_cast<llvm::Instruction>(u)) {
      if (inst->getFunction() == func)
        return true;
    } else if (llvm::isa<llvm::Constant>(u) && used_in(u, func)) {
      return true;
    }
  }
  return false;
}

extern "C" bool cc_global_used_in(LLVMValueRef gv, LLVMValueRef fn) {
  return used_in(llvm::unwrap(gv),
                 llvm::cast<llvm::Function>(llvm::unwrap(fn)));
}

extern "C" char *cc_demangle(const char *name) {
  // itaniumDemangle returns a malloc'd string or nullptr.
  return llvm::itaniumDemangle(name);
}

extern "C" void cc_forbid_loop_vectorization(LLVMModuleRef m) {
  // Loop metadata saying "do not vectorise or interleave" on every loop:
  // LLVM's pass options alone still let default<O3> widen some loops.
  for (llvm::Function &f : *llvm::unwrap(m)) {
    if (f.isDeclaration())
      continue;
    llvm::DominatorTree dt(f);
    llvm::LoopInfo li(dt);
    for (llvm::Loop *loop : li.getLoopsInPreorder()) {
      llvm::LLVMContext &ctx = f.getContext();
      llvm::Metadata *off[] = {
          llvm::MDString::get(ctx, "llvm.loop.vectorize.enable"),
          llvm::ConstantAsMetadata::get(llvm::ConstantInt::getFalse(ctx))};
      llvm::Metadata *one[] = {
          llvm::MDString::get(ctx, "llvm.loop.interleave.count"),
          llvm::ConstantAsMetadata::get(
              llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), 1))};
      loop->setLoopID(llvm::makePostTransformationMetadata(
          ctx, loop->getLoopID(),
          {"llvm.loop.vectorize.", "llvm.loop.interleave."},
          {llvm::MDNode::get(ctx, off), llvm::MDNode::get(ctx, one)}));
    }
  }
}
