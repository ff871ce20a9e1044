/* This file contains the integer-division guard: OpenCL C leaves integer
 * division by zero (and INT_MIN / -1) undefined, but on x86-64 the idiv
 * instruction traps with SIGFPE, which would kill the host process. Every
 * division or remainder whose divisor may be zero (or -1 with a dividend
 * that may be the minimum) gets its divisor replaced by 1 in those cases,
 * so the kernel computes some value and the host process lives. */
#include "compiler_internal.h"

#include <stdbool.h>

/* True if the divisor is a constant that is neither zero nor -1 in any
 * lane: such a division can never trap. */
static bool divisor_is_safe(LLVMValueRef d, bool is_signed) {
  if (LLVMIsAConstantInt(d)) {
    if (LLVMIsNull(d))
      return false;
    return !is_signed || LLVMConstIntGetSExtValue(d) != -1;
  }
  if (LLVMIsAConstantDataVector(d) || LLVMIsAConstantVector(d)) {
    unsigned n = LLVMGetVectorSize(LLVMTypeOf(d));
    for (unsigned i = 0; i < n; i++) {
      LLVMValueRef e = LLVMGetAggregateElement(d, i);
      if (!e || !LLVMIsAConstantInt(e) || !divisor_is_safe(e, is_signed))
        return false;
    }
    return true;
  }
  return false;
}

/* The integer constant c in type t (a scalar, or every lane of a vector). */
static LLVMValueRef splat(LLVMTypeRef t, unsigned long long c) {
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
    return LLVMConstInt(t, c, false);
  LLVMValueRef lanes[64];   /* callers keep to vectors of <= 64 lanes */
  unsigned n = LLVMGetVectorSize(t);
  for (unsigned i = 0; i < n; i++)
    lanes[i] = LLVMConstInt(LLVMGetElementType(t), c, false);
  return LLVMConstVector(lanes, n);
}

/* Builds the replacement divisor for one division instruction:
 * d == 0 (or, signed, a == MIN && d == -1) ? 1 : d, lane by lane. */
static LLVMValueRef safe_divisor(LLVMBuilderRef bld, LLVMValueRef inst,
                                 bool is_signed) {
  LLVMValueRef a = LLVMGetOperand(inst, 0);
  LLVMValueRef d = LLVMGetOperand(inst, 1);
  LLVMTypeRef t = LLVMTypeOf(d);
  LLVMTypeRef et = LLVMGetTypeKind(t) == LLVMVectorTypeKind
                       ? LLVMGetElementType(t) : t;
  unsigned bits = LLVMGetIntTypeWidth(et);
  LLVMValueRef bad = LLVMBuildICmp(bld, LLVMIntEQ, d, LLVMConstNull(t), "");
  if (is_signed) {
    /* MIN / -1 overflows, and idiv traps on it as on a zero divisor. */
    LLVMValueRef is_min = LLVMBuildICmp(
        bld, LLVMIntEQ, a, splat(t, 1ULL << (bits - 1)), "");
    LLVMValueRef minus_one =
        LLVMBuildICmp(bld, LLVMIntEQ, d, LLVMConstAllOnes(t), "");
    bad = LLVMBuildOr(bld, bad, LLVMBuildAnd(bld, is_min, minus_one, ""), "");
  }
  return LLVMBuildSelect(bld, bad, splat(t, 1), d, "safe.divisor");
}

void cc_guard_integer_division(LLVMModuleRef m) {
  LLVMBuilderRef bld = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        LLVMOpcode op = LLVMGetInstructionOpcode(i);
        bool is_signed = op == LLVMSDiv || op == LLVMSRem;
        if (!is_signed && op != LLVMUDiv && op != LLVMURem)
          continue;
        LLVMTypeRef t = LLVMTypeOf(i);
        if (divisor_is_safe(LLVMGetOperand(i, 1), is_signed) ||
            (LLVMGetTypeKind(t) == LLVMVectorTypeKind &&
             LLVMGetVectorSize(t) > 64))
          continue;
        LLVMPositionBuilderBefore(bld, i);
        LLVMSetOperand(i, 1, safe_divisor(bld, i, is_signed));
      }
  LLVMDisposeBuilder(bld);
}
