// This file turns an LLVM CPU name (SKEIN_CPU=haswell, znver4, ...) into
// the complete feature string of that CPU ("+avx2,+fma,-avx512f,..."),
// the one thing target.c needs from LLVM's C++ API: the C API can only
// describe the host. With the whole string, target.c can derive the
// code-generation choices (vector width, registers, FP16) from the named
// CPU exactly as it does from the host's.
#include "compiler_internal.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/TargetParser/Host.h>

extern "C" char *cc_cpu_feature_string(const char *cpu) {
  std::string triple = llvm::sys::getDefaultTargetTriple();
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      target->createMCSubtargetInfo(triple, cpu, ""));
  // An unknown name gets LLVM's generic CPU (and a warning on stderr
  // from LLVM): refuse it here instead, so the caller can say so.
  if (!sti || !sti->isCPUStringValid(cpu))
    return nullptr;
  std::string out;
  for (const llvm::SubtargetFeatureKV &kv : sti->getAllProcessorFeatures()) {
    if (!out.empty())
      out += ',';
    out += sti->getFeatureBits().test(kv.Value) ? '+' : '-';
    out += kv.Key;
  }
  return strdup(out.c_str());
}
