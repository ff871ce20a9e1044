// This file splits a lowered program module into one module per kernel,
// each in an LLVM context of its own, so that the build can optimise and
// generate code for the kernels on several threads (an LLVMContext is not
// thread-safe: parts that shared one would serialise on its lock). It
// also holds the two ORC settings the parallel build needs that the C API
// lacks. docs/architecture.md ("Parallel code generation") says why.
#include "compiler_internal.h"

#include <llvm-c/Orc.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using GVSet = std::unordered_set<const llvm::GlobalValue *>;

// Adds every global value c refers to (through constant expressions and
// aggregates) to the work list.
void refs_of_constant(const llvm::Constant *c,
                      std::vector<const llvm::GlobalValue *> &work,
                      std::unordered_set<const llvm::Constant *> &seen) {
  if (!seen.insert(c).second)
    return;
  if (auto *gv = llvm::dyn_cast<llvm::GlobalValue>(c)) {
    work.push_back(gv);
    return;
  }
  for (const llvm::Use &u : c->operands())
    if (auto *op = llvm::dyn_cast<llvm::Constant>(u.get()))
      refs_of_constant(op, work, seen);
}

// The global values part needs: the roots and everything they reach
// through function bodies, initialisers and aliasees.
GVSet reach(const std::vector<const llvm::GlobalValue *> &roots) {
  GVSet out;
  std::unordered_set<const llvm::Constant *> seen;
  std::vector<const llvm::GlobalValue *> work(roots.begin(), roots.end());
  while (!work.empty()) {
    const llvm::GlobalValue *g = work.back();
    work.pop_back();
    if (!out.insert(g).second)
      continue;
    if (auto *f = llvm::dyn_cast<llvm::Function>(g)) {
      for (const llvm::BasicBlock &bb : *f)
        for (const llvm::Instruction &i : bb)
          for (const llvm::Use &u : i.operands())
            if (auto *c = llvm::dyn_cast<llvm::Constant>(u.get()))
              refs_of_constant(c, work, seen);
      if (f->hasPersonalityFn())
        refs_of_constant(f->getPersonalityFn(), work, seen);
    } else if (auto *v = llvm::dyn_cast<llvm::GlobalVariable>(g)) {
      if (v->hasInitializer())
        refs_of_constant(v->getInitializer(), work, seen);
    } else if (auto *a = llvm::dyn_cast<llvm::GlobalAlias>(g)) {
      refs_of_constant(a->getAliasee(), work, seen);
    }
  }
  return out;
}

// A definition two parts may not both hold: one with a name the JIT
// links by (two definitions would clash), or a variable a kernel may
// write (each part would write its own copy). Constants and internal
// functions are copied into every part that uses them instead.
bool must_be_single(const llvm::GlobalValue *g) {
  if (g->isDeclaration() || g->getName().starts_with("llvm."))
    return false;
  if (!g->hasLocalLinkage())
    return true;
  auto *v = llvm::dyn_cast<llvm::GlobalVariable>(g);
  return v && !v->isConstant();
}

} // namespace

extern "C" bool cc_split_module(LLVMModuleRef module,
                                const char *const *roots, unsigned n,
                                LLVMOrcThreadSafeContextRef *tscs,
                                LLVMModuleRef *parts) {
  llvm::Module &m = *llvm::unwrap(module);
  // Constructors would run once per part: such a module stays whole.
  if (m.getNamedValue("llvm.global_ctors") ||
      m.getNamedValue("llvm.global_dtors"))
    return false;
  // What llvm.used and llvm.compiler.used keep alive (the vector forms
  // the vectoriser may call, by name, in any part) goes into every part.
  std::vector<const llvm::GlobalValue *> kept;
  for (const char *name : {"llvm.used", "llvm.compiler.used"})
    if (auto *v = m.getGlobalVariable(name, true)) {
      kept.push_back(v);
    }
  std::vector<GVSet> sets(n);
  for (unsigned i = 0; i < n; i++) {
    const llvm::Function *f = m.getFunction(roots[i]);
    if (!f || f->isDeclaration())
      return false;
    std::vector<const llvm::GlobalValue *> r(kept);
    r.push_back(f);
    sets[i] = reach(r);
  }
  // Each single definition has one owner: the part whose root it is,
  // else the first part that reaches it; a variable two parts write
  // becomes a hidden symbol of the program's JIT that the others link to.
  std::unordered_map<const llvm::GlobalValue *, unsigned> owner;
  for (unsigned i = 0; i < n; i++)
    owner[m.getFunction(roots[i])] = i;
  for (unsigned i = 0; i < n; i++)
    for (const llvm::GlobalValue *g : sets[i])
      if (must_be_single(g))
        owner.emplace(g, i);
  for (llvm::GlobalVariable &v : m.globals()) {
    if (!must_be_single(&v) || !v.hasLocalLinkage())
      continue;
    unsigned users = 0;
    for (unsigned i = 0; i < n; i++)
      users += sets[i].count(&v);
    if (users > 1) {
      v.setLinkage(llvm::GlobalValue::ExternalLinkage);
      v.setVisibility(llvm::GlobalValue::HiddenVisibility);
      // The parts link to it by name: an unnamed one (a SPIR-V module's
      // variable without OpName) would get a different "__unnamed_N" in
      // each part's object.
      if (!v.hasName())
        v.setName("__skein_unnamed_global");
    }
  }
  for (unsigned i = 0; i < n; i++) {
    llvm::ValueToValueMapTy vmap;
    std::unique_ptr<llvm::Module> clone =
        llvm::CloneModule(m, vmap, [&](const llvm::GlobalValue *g) {
          if (!sets[i].count(g))
            return false;
          auto o = owner.find(g);
          return o == owner.end() || o->second == i;
        });
    // What the part does not reach is left as unused declarations.
    std::vector<llvm::GlobalValue *> unused;
    for (llvm::Function &f : *clone)
      if (f.isDeclaration() && f.use_empty() && !f.isIntrinsic())
        unused.push_back(&f);
    for (llvm::GlobalVariable &v : clone->globals())
      if (v.isDeclaration() && v.use_empty())
        unused.push_back(&v);
    for (llvm::GlobalValue *g : unused)
      g->eraseFromParent();
    // What another part defines may be mapped anywhere: the JIT maps
    // each part's object where mmap puts it, which in a fragmented
    // address space is more than 2 GiB away. A dso_local (or hidden)
    // declaration is reached by a 32-bit PC-relative reference, which
    // would then fail to link; a default-visibility one goes through a
    // GOT entry of the part's own object (and JITLink turns that back
    // into a direct reference where the target is in reach). Calls take
    // a stub either way. tests/test-split-far.c maps the parts 8 GiB
    // apart.
    for (llvm::GlobalValue &g : clone->global_values()) {
      auto *f = llvm::dyn_cast<llvm::Function>(&g);
      if (!g.isDeclaration() || (f && f->isIntrinsic()))
        continue;
      g.setVisibility(llvm::GlobalValue::DefaultVisibility);
      g.setDSOLocal(false);
    }
    // The part's name names its object file (cc_part_of_object).
    std::string id = "skein-part-" + std::to_string(i);
    clone->setModuleIdentifier(id);
    // Into a context of its own, through bitcode (modules cannot move
    // between contexts).
    llvm::SmallVector<char, 0> bc;
    llvm::raw_svector_ostream os(bc);
    llvm::WriteBitcodeToFile(*clone, os);
    clone.reset();
    tscs[i] = LLVMOrcCreateNewThreadSafeContext();
    // As the front end's context (-discard-value-names): the passes name
    // no values, which only costs time.
    llvm::unwrap(LLVMOrcThreadSafeContextGetContext(tscs[i]))
        ->setDiscardValueNames(true);
    auto parsed = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(llvm::StringRef(bc.data(), bc.size()), id),
        *llvm::unwrap(LLVMOrcThreadSafeContextGetContext(tscs[i])));
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      for (unsigned j = 0; j <= i; j++) {
        if (j < i)
          LLVMDisposeModule(parts[j]);
        LLVMOrcDisposeThreadSafeContext(tscs[j]);
      }
      return false;
    }
    parts[i] = llvm::wrap(parsed->release());
  }
  return true;
}

// The part an object file of the parallel build came from: its buffer is
// named after the module ("skein-part-<i>-jitted-objectbuffer"); -1 for
// any other.
extern "C" int cc_part_of_object(LLVMMemoryBufferRef obj) {
  llvm::StringRef name = llvm::unwrap(obj)->getBufferIdentifier();
  if (!name.consume_front("skein-part-"))
    return -1;
  unsigned i;
  if (name.consumeInteger(10, i) || !name.starts_with("-"))
    return -1;
  return (int)i;
}

// A JIT that compiles modules on whichever threads look their symbols up,
// concurrently: a target machine per compile instead of one shared
// (which is not thread-safe); the code is the same. LLJIT's own
// concurrent mode is not used: it runs compiles on threads of its own
// (outside the build's crash guard and thread budget) and copies every
// module into yet another context first, which the split has done. The
// C API's builder handle is the C++ builder.
extern "C" bool cc_jit_builder_concurrent(LLVMOrcLLJITBuilderRef jb) {
  auto *b = reinterpret_cast<llvm::orc::LLJITBuilder *>(jb);
  b->setSupportConcurrentCompilation(false);
  b->setCompileFunctionCreator([](llvm::orc::JITTargetMachineBuilder jtmb)
      -> llvm::Expected<
          std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
    return std::make_unique<llvm::orc::ConcurrentIRCompiler>(std::move(jtmb));
  });
  return true;
}
