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
