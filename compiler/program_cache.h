/* This file declares the on-disk program cache (program_cache.c): the
 * results of builds, compiles and links, machine code included, kept in
 * files named by a hash of everything that decides the result, so that
 * a program built before (in any process) loads without Clang or LLVM's
 * optimiser and code generator. Nothing here can fail a build: every
 * error of the cache is a miss. Internal to compiler/ (build.c). */
#ifndef SKEIN_PROGRAM_CACHE_H
#define SKEIN_PROGRAM_CACHE_H

#include "compiler_internal.h"

#include <llvm-c/LLJIT.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds of request a key can name (the request's own fields follow
 * in its parts). */
typedef enum cc_cache_request {
  CC_CACHE_BUILD_SOURCE = 1,
  CC_CACHE_BUILD_BINARY,
  CC_CACHE_LOAD_BINARY,
  CC_CACHE_COMPILE_SOURCE,
  CC_CACHE_LINK,
  CC_CACHE_BUILD_IL,
  CC_CACHE_COMPILE_IL,
} cc_cache_request;

/* One input of a request, hashed as its length and its bytes. */
typedef struct cc_cache_part {
  const void *data;
  size_t size;
} cc_cache_part;

typedef struct cc_cache_key {
  unsigned char hash[32];    /* SHA-256 */
} cc_cache_key;

/* Whether builds in this process now use the cache: not under
 * SKEIN_CACHE=0, not while SKEIN_INJECT_COMPILER_CRASH tests the crash
 * guard, and not while SKEIN_DUMP asks for a stage (a hit would run no
 * stage to dump; SKEIN_DUMP=cache alone keeps the cache). */
bool cc_cache_enabled(void);

/* Computes the key of a request of kind what with the n parts, the
 * options (may be NULL) and the device caps (may be NULL): the parts and
 * options, the caps, Skein's build identity (libskein's GNU build-id),
 * the LLVM version, the target triple, CPU and features of the target
 * machine the compiler would use, and every SKEIN_* environment variable
 * that may change code generation. False if it cannot be computed, or
 * for a -g build (the build then runs uncached). */
bool cc_cache_key_make(cc_cache_request what, const cc_cache_part *parts,
                       unsigned n, const char *options,
                       const cc_device_caps *caps, cc_cache_key *key);

/* Looks key up. On a hit returns the program the entry holds (machine
 * code loaded into a new JIT) and *log, a malloc'd copy of the original
 * build's log (if log is not NULL). NULL on a miss, or an entry that is
 * corrupt, foreign or stale (a header it read changed). */
cc_program *cc_cache_load(const cc_cache_key *key, char **log);

/* Writes p (built with cc_cache_capturing set) and its log (may be NULL)
 * under key, atomically (temporary file, then rename), then evicts the
 * least recently used entries over the size cap. Errors are ignored. */
void cc_cache_store(const cc_cache_key *key, const cc_program *p,
                    const char *log);

/* Set by build.c around a build whose result may be stored: the JIT keeps
 * a copy of the object file it generates and the front end records the
 * files it read. Per thread (builds run on the caller's thread). */
extern _Thread_local bool cc_cache_capturing;

/* The JIT every program uses (build.c): a new LLJIT for the host, as
 * p->jit, whose session errors p keeps for its log. */
LLVMErrorRef cc_jit_create(cc_program *p);

/* Appends p's first JIT session error, if any, to log (build.c). */
void cc_jit_error_to_log(cc_program *p, cc_log *log);

#ifdef __cplusplus
}
#endif

#endif
