/* This file declares what makes JIT-compiled kernels visible to tools:
 * gdb (its JIT interface, for programs built with -g), perf (SKEIN_PERF=
 * map writes /tmp/perf-<pid>.map, =jitdump a jit-<pid>.dump for perf
 * inject) and the source file a -g build names in its debug info
 * (docs/debugging.md). */
#ifndef SKEIN_COMPILER_JIT_LISTENERS_H
#define SKEIN_COMPILER_JIT_LISTENERS_H

#include <llvm-c/LLJIT.h>
#include <llvm-c/Types.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the next JIT the calling thread creates holds a -g program
 * (its code is then registered with gdb), and one built with -g and
 * -cl-opt-disable (its code generator then runs unoptimised, so that
 * each line's code stays in the line). Read and cleared by
 * cc_jit_listeners_attach. */
void cc_jit_set_debug(bool debug, bool opt_disable);

/* Gives the LLJIT being built the object linking layer that tells gdb
 * and perf about its code, when they are wanted (a -g program, or
 * SKEIN_PERF set); otherwise leaves LLJIT's default linker in place. */
void cc_jit_listeners_attach(LLVMOrcLLJITBuilderRef jb);

/* For a -g build: the source the front end compiles instead of source,
 * starting with a #line directive that names a file gdb can show: named
 * (the -s option: the application's own file) or, if named is NULL, a
 * copy of the source written to SKEIN_DEBUG_DIR (default
 * $XDG_CACHE_HOME/skein/source, or ~/.cache/skein/source), named by a
 * hash of its text. Returns a malloc'ed text of *out_length bytes, or
 * NULL (no memory; the build then goes on without a file name). */
char *cc_debug_source(const char *source, size_t length, const char *named,
                      size_t *out_length);

/* For a -g build, after the work-group functions are generated: gives
 * every generated function that calls a kernel a subprogram of its own
 * (artificial, in the kernel's unit) and its calls a
 * location, so that the kernel's lines survive inlining into it and the
 * code generator emits them (it skips functions without a subprogram). */
void cc_debug_generated(LLVMModuleRef m);

/* Moves subprogram sp to the unit of subprogram of (jit_listeners.cpp:
 * the C API cannot). */
void cc_debug_same_unit(LLVMMetadataRef sp, LLVMMetadataRef of);

#ifdef __cplusplus
}
#endif

#endif
