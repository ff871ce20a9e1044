/* This file rewrites the half-precision fused multiply-adds of a module
 * (llvm.fma.f16 and its vector forms: the builtin library's mad() of
 * halves) for targets without AVX-512 FP16: as float's fma of the
 * extended operands, rounded to half. LLVM lowers an fma of halves on
 * such a CPU to a library call per lane (2.3 GFLOPS where float's mad
 * reached 200 on a Zen 5), while the conversions are F16C instructions
 * and the float fma vectorises. mad's accuracy is implementation-defined,
 * so the extra rounding is allowed; fma() of halves, which must be
 * correctly rounded, is computed in double by the library and never
 * reaches this intrinsic.
 *
 * Each widened fma carries !fpmath (its result may be inexact: mad's),
 * which marks it for half_mad_chains.cpp: a mad fed by another mad takes
 * the float result, unrounded. */
#include "compiler_internal.h"

#include <string.h>

/* Replaces the call c of llvm.fma.<half type> by fptrunc(fma(fpext...)). */
static void widen_call(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef c) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef half_t = LLVMTypeOf(c);
  bool vector = LLVMGetTypeKind(half_t) == LLVMVectorTypeKind;
  LLVMTypeRef float_t =
      vector ? LLVMVectorType(LLVMFloatTypeInContext(ctx),
                              LLVMGetVectorSize(half_t))
             : LLVMFloatTypeInContext(ctx);
  unsigned id = LLVMLookupIntrinsicID("llvm.fma", 8);
  LLVMValueRef fma = LLVMGetIntrinsicDeclaration(m, id, &float_t, 1);
  LLVMTypeRef fma_t = LLVMIntrinsicGetType(ctx, id, &float_t, 1);
  LLVMPositionBuilderBefore(b, c);
  LLVMValueRef args[3];
  for (unsigned i = 0; i < 3; i++)
    args[i] = LLVMBuildFPExt(b, LLVMGetOperand(c, i), float_t, "");
  LLVMValueRef wide = LLVMBuildCall2(b, fma_t, fma, args, 3, "");
  /* !fpmath's operand is the error allowed in ulps; mad's is unbounded,
   * and no target reads it on an fma: it is the mark. */
  LLVMMetadataRef ulps =
      LLVMValueAsMetadata(LLVMConstReal(LLVMFloatTypeInContext(ctx), 65536));
  LLVMSetMetadata(wide, LLVMGetMDKindIDInContext(ctx, "fpmath", 6),
                  LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, &ulps, 1)));
  LLVMValueRef narrow = LLVMBuildFPTrunc(b, wide, half_t, "");
  LLVMReplaceAllUsesWith(c, narrow);
  LLVMInstructionEraseFromParent(c);
}

bool cc_half_lower(LLVMModuleRef m) {
  if (cc_target_get()->fp16_arith)
    return false;   /* vfmadd*ph does it in one instruction */
  bool widened = false;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    /* llvm.fma.f16, llvm.fma.v4f16, ... */
    if (!LLVMIsDeclaration(f) || strncmp(name, "llvm.fma.", 9) != 0 ||
        strcmp(name + len - 3, "f16") != 0)
      continue;
    LLVMUseRef use = LLVMGetFirstUse(f);
    while (use) {
      LLVMValueRef user = LLVMGetUser(use);
      use = LLVMGetNextUse(use);
      if (LLVMIsACallInst(user) && LLVMGetCalledValue(user) == f) {
        widen_call(m, b, user);
        widened = true;
      }
    }
  }
  LLVMDisposeBuilder(b);
  return widened;
}
