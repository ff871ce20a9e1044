/* This file contains the once-per-process LLVM initialisation and the
 * host TargetMachine the optimiser uses (the JIT detects the same host
 * CPU and features, so the IR it gets matches its data layout). */
#include "compiler_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Target.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_llvm(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
}

void cc_llvm_init(void) {
  pthread_once(&init_once, init_llvm);
}

/* The features kernels are compiled for (malloc'd): the host CPU's, then
 * the entries of SKEIN_TARGET_FEATURES that turn one off ("-avx512f" or
 * "-avx512f,-avx2": the later entry wins, in LLVM as here). Only "-"
 * entries are taken: code for a feature the host lacks would not run.
 * With "-avx512f" an AVX-512 machine compiles kernels as for an AVX2
 * one (the code-generation choices of issue 10 can be tried there). */
char *cc_target_features(void) {
  char *host = LLVMGetHostCPUFeatures();
  const char *extra = getenv("SKEIN_TARGET_FEATURES");
  size_t cap = strlen(host) + (extra ? strlen(extra) : 0) + 2;
  char *out = malloc(cap);
  if (out) {
    strcpy(out, host);
    for (const char *p = extra; p && *p;) {
      size_t n = strcspn(p, ",");
      if (n > 1 && p[0] == '-') {
        strcat(out, ",");
        strncat(out, p, n);
      }
      p += n + (p[n] == ',');
    }
  }
  LLVMDisposeMessage(host);
  return out;
}

/* Whether the last entry for name (without its sign) in features turns
 * it on. */
static bool has_feature(const char *features, const char *name) {
  size_t len = strlen(name);
  bool on = false;
  for (const char *p = features; p && *p;) {
    size_t n = strcspn(p, ",");
    if (n == len + 1 && strncmp(p + 1, name, len) == 0)
      on = p[0] == '+';
    p += n + (p[n] == ',');
  }
  return on;
}

/* The vector width for 32-bit lanes the optimiser targets: 512-bit
 * vectors with AVX-512 (build.c prefers them there), 256-bit with AVX,
 * else 128-bit. It decides the sub-group size. */
static unsigned target_lanes(const char *features) {
  if (has_feature(features, "avx512f"))
    return 16;
  if (has_feature(features, "avx"))
    return 8;
  return 4;
}

static unsigned sub_group_lanes;
static pthread_once_t sub_group_once = PTHREAD_ONCE_INIT;

static void find_sub_group_size(void) {
  char *features = cc_target_features();
  sub_group_lanes = features ? target_lanes(features) : 4;
  free(features);
}

unsigned cc_sub_group_size(void) {
  pthread_once(&sub_group_once, find_sub_group_size);
  return sub_group_lanes;
}

LLVMTargetMachineRef cc_host_target_machine(cc_log *log, bool *avx512) {
  char *triple = LLVMGetDefaultTargetTriple();
  char *cpu = LLVMGetHostCPUName();
  char *features = cc_target_features();
  LLVMTargetRef target;
  char *err = NULL;
  LLVMTargetMachineRef tm = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &err)) {
    cc_log_printf(log, "error: no LLVM target for %s: %s\n", triple, err);
    LLVMDisposeMessage(err);
  } else {
    tm = LLVMCreateTargetMachine(target, triple, cpu,
                                 features ? features : "",
                                 LLVMCodeGenLevelAggressive, LLVMRelocPIC,
                                 LLVMCodeModelJITDefault);
    *avx512 = features && has_feature(features, "avx512f");
  }
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  free(features);
  return tm;
}
