/* This file declares the printf lowering of compiler/printf_lower.c: each
 * call of OpenCL C's variadic printf becomes a packed record of its
 * arguments and a call of the builtin that appends the record to the
 * launch's printf buffer (builtins/printf.c). */
#ifndef SKEIN_COMPILER_PRINTF_LOWER_H
#define SKEIN_COMPILER_PRINTF_LOWER_H

#include "compiler_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Replaces every call of printf in m (the front end's module, before the
 * builtins are linked and the work-group functions generated) and sets
 * uses_printf of each of the n kernels (infos[i] describes kernels[i]) that
 * can reach one. Runs on source and binary builds alike, so a program
 * binary needs nothing beyond its bitcode. Always succeeds. */
void cc_printf_lower(LLVMModuleRef m, LLVMValueRef *kernels,
                     cc_kernel_info *infos, unsigned n);

#ifdef __cplusplus
}
#endif

#endif
