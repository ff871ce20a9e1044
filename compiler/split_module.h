/* This file declares the parallel build's helpers in split_module.cpp:
 * one module per kernel in contexts of their own, the part an object
 * file came from, and a JIT that compiles on its callers' threads. */
#ifndef SKEIN_SPLIT_MODULE_H
#define SKEIN_SPLIT_MODULE_H

#include <llvm-c/Core.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Splits m into n modules, part i holding the function roots[i] and what
 * it reaches (copies of internal functions and constants; a variable two
 * parts use stays in one, the first, and becomes a hidden symbol the
 * others link to), each in a new thread-safe context (tscs[i], parts[i]).
 * False (and nothing made) for a module that must stay whole. m's
 * linkage changes: it is for disposal afterwards. */
bool cc_split_module(LLVMModuleRef m, const char *const *roots, unsigned n,
                     LLVMOrcThreadSafeContextRef *tscs, LLVMModuleRef *parts);

/* The part index of an object file the JIT generated from part i, or -1
 * for an object of a module that was not split. */
int cc_part_of_object(LLVMMemoryBufferRef obj);

/* Makes the JIT being built compile concurrently on the threads that
 * look symbols up (false: it could not; the builder is unchanged). */
bool cc_jit_builder_concurrent(LLVMOrcLLJITBuilderRef jb);

/* Abandons the guarded build running on this thread as a crash would,
 * with reason (may be empty): a part's worker thread crashed. Returns
 * only outside a guarded run. (llvm_helpers.cpp) */
void cc_crash_forward(const char *reason);

#ifdef __cplusplus
}
#endif

#endif
