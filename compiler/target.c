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

/* The vector width for 32-bit lanes the optimiser targets: 512-bit
 * vectors with AVX-512 (build.c prefers them there), 256-bit with AVX,
 * else 128-bit. It decides the sub-group size. */
static bool has_feature(const char *features, const char *name) {
  size_t len = strlen(name);
  for (const char *p = features; p && *p;) {
    size_t n = strcspn(p, ",");
    if (n == len && strncmp(p, name, len) == 0)
      return true;
    p += n + (p[n] == ',');
  }
  return false;
}

static unsigned target_lanes(const char *features) {
  if (has_feature(features, "+avx512f"))
    return 16;
  if (has_feature(features, "+avx"))
    return 8;
  return 4;
}

static unsigned sub_group_lanes;
static pthread_once_t sub_group_once = PTHREAD_ONCE_INIT;

static void find_sub_group_size(void) {
  char *features = LLVMGetHostCPUFeatures();
  sub_group_lanes = target_lanes(features);
  LLVMDisposeMessage(features);
}

unsigned cc_sub_group_size(void) {
  pthread_once(&sub_group_once, find_sub_group_size);
  return sub_group_lanes;
}

LLVMTargetMachineRef cc_host_target_machine(cc_log *log, bool *avx512) {
  char *triple = LLVMGetDefaultTargetTriple();
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  LLVMTargetRef target;
  char *err = NULL;
  LLVMTargetMachineRef tm = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &err)) {
    cc_log_printf(log, "error: no LLVM target for %s: %s\n", triple, err);
    LLVMDisposeMessage(err);
  } else {
    tm = LLVMCreateTargetMachine(target, triple, cpu, features,
                                 LLVMCodeGenLevelAggressive, LLVMRelocPIC,
                                 LLVMCodeModelJITDefault);
    *avx512 = strstr(features, "+avx512f") != NULL;
  }
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  return tm;
}
