/* This file declares the compiler's side of the math builtins: the
 * builtin library calls libsleef (linked into libskein) for most math
 * functions; these helpers let the JIT resolve those calls, give the
 * vectorisers Sleef's vector entry points, and pick the faster Sleef
 * variants for programs built with relaxed math. */
#ifndef SKEIN_MATH_LIB_H
#define SKEIN_MATH_LIB_H

#include <llvm-c/Core.h>
#include <llvm-c/LLJIT.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* True if name is a libsleef function (Sleef_*): the only external
 * functions a program may call besides LLVM's own libcalls. */
bool cc_math_is_lib_function(const char *name);

/* Before optimisation of m: for every scalar Sleef function m declares,
 * declares the vector forms the host CPU can run and names them in the
 * function's "vector-function-abi-variant" attribute (kept alive through
 * llvm.compiler.used) so that the loop and SLP vectorisers call them.
 * If a function of m carries "unsafe-fp-math"="true" (the program was
 * built with -cl-unsafe-math-optimizations or -cl-fast-relaxed-math),
 * calls of 1-ULP Sleef functions switch to their 3.5-ULP forms. */
void cc_math_prepare(LLVMModuleRef m);

/* Defines, in the main JITDylib of jit, every Sleef_* function m declares
 * as an absolute symbol at its libsleef address (libskein opens libsleef
 * privately, so the JIT's process-symbol search cannot see it). Call
 * before m is handed to the JIT. NULL or an error naming a symbol
 * libsleef lacks. */
LLVMErrorRef cc_math_define_symbols(LLVMOrcLLJITRef jit, LLVMModuleRef m);

/* Defines in jit the helpers LLVM's code generator may call (half
 * conversions, fma/fmaf) with libskein's own copies. */
LLVMErrorRef cc_math_define_runtime(LLVMOrcLLJITRef jit);

/* The same for the n Sleef_* function names (a program loaded from the
 * disk cache has no module: program_cache.c kept the names). */
LLVMErrorRef cc_math_define_names(LLVMOrcLLJITRef jit,
                                  const char *const *names, unsigned n);

#ifdef __cplusplus
}
#endif

#endif
