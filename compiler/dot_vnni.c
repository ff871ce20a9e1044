/* This file contains the compiler's side of cl_khr_integer_dot_product on
 * VNNI: the mixed-signedness dot products of builtins/integer_dot_product.cl
 * are calls of __skein_dot_us(a, b, acc) and __skein_dot_us_sat, whose
 * 32-bit lanes are exactly one lane of vpdpbusd / vpdpbusds (four
 * unsigned x signed byte products summed, plus acc wrapping or
 * saturating), with the operands in the instruction's order (acc, a, b).
 * On a target with the instructions each names the 512- and 256-bit
 * intrinsics themselves as its vector forms through LLVM's vector
 * function ABI, so that a work-item loop calling them is vectorised into
 * one vpdpbusd(s) per 16 (or 8) work-items, as the Sleef math forms are
 * (math_lib.c); a named intrinsic needs no inlining after the
 * vectoriser, which a vector function of Skein's own would. */
#include "dot_vnni.h"
#include "compiler.h"
#include "compiler_internal.h" /* cc_target_features, cc_feature_on */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Which vector forms the target takes: 512-bit (AVX512-VNNI with
 * AVX-512F) and 256-bit (AVX-VNNI, or AVX512-VNNI with AVX512VL). */
typedef struct vnni_isa {
  bool zmm, ymm;
} vnni_isa;

static vnni_isa target_isa(void) {
  vnni_isa v = {false, false};
  char *f = cc_target_features();
  if (f) {
    bool avx512 = cc_feature_on(f, "avx512vnni") && cc_feature_on(f, "avx512f");
    v.zmm = avx512;
    v.ymm = cc_feature_on(f, "avxvnni") ||
            (avx512 && cc_feature_on(f, "avx512vl"));
    free(f);
  }
  return v;
}

bool cc_dot_vnni_available(void) {
  vnni_isa v = target_isa();
  return v.zmm || v.ymm;
}

/* Declares x86 intrinsic intr (vpdpbusd(s) of some width, <n x i32>(acc,
 * a, b)) in m and returns a function that calls it, for
 * llvm.compiler.used: an intrinsic may not be listed there itself, and an
 * unused declaration is deleted before the loop vectoriser looks for it.
 * NULL if LLVM lacks the intrinsic. */
static LLVMValueRef declare_form(LLVMModuleRef m, const char *intr) {
  unsigned id = LLVMLookupIntrinsicID(intr, strlen(intr));
  if (!id)
    return NULL;
  LLVMValueRef in = LLVMGetIntrinsicDeclaration(m, id, NULL, 0);
  LLVMTypeRef ft = LLVMGlobalGetValueType(in);
  char name[64];
  snprintf(name, sizeof name, "__skein_keep_%s", intr + 5);
  LLVMValueRef f = LLVMAddFunction(m, name, ft);
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, ""));
  LLVMValueRef args[3] = {LLVMGetParam(f, 0), LLVMGetParam(f, 1),
                          LLVMGetParam(f, 2)};
  LLVMBuildRet(b, LLVMBuildCall2(b, ft, in, args, 3, ""));
  LLVMDisposeBuilder(b);
  LLVMSetLinkage(f, LLVMInternalLinkage);
  return f;
}

void cc_dot_prepare(LLVMModuleRef m) {
  static const struct {
    const char *name, *zmm, *ymm;
  } helpers[] = {
      {"__skein_dot_us", "llvm.x86.avx512.vpdpbusd.512",
       "llvm.x86.avx512.vpdpbusd.256"},
      {"__skein_dot_us_sat", "llvm.x86.avx512.vpdpbusds.512",
       "llvm.x86.avx512.vpdpbusds.256"},
  };
  vnni_isa isa = {false, false};
  bool looked = false;
  for (size_t i = 0; i < sizeof helpers / sizeof helpers[0]; i++) {
    LLVMValueRef f = LLVMGetNamedFunction(m, helpers[i].name);
    if (!f || LLVMIsDeclaration(f) || !LLVMGetFirstUse(f))
      continue;
    if (!looked) {
      isa = target_isa();
      looked = true;
    }
    cc_drop_convergent(f);
    if (!isa.zmm && !isa.ymm) {
      /* No VNNI: plain arithmetic, inlined like any builtin. */
      unsigned kind = LLVMGetEnumAttributeKindForName("noinline", 8);
      LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind);
      LLVMAddAttributeAtIndex(
          f, LLVMAttributeFunctionIndex,
          LLVMCreateEnumAttribute(LLVMGetModuleContext(m),
                                  LLVMGetEnumAttributeKindForName(
                                      "alwaysinline", 12),
                                  0));
      continue;
    }
    char attr[256];
    size_t alen = 0;
    LLVMValueRef used[3] = {f};
    unsigned nused = 1;
    if (isa.zmm && (used[nused] = declare_form(m, helpers[i].zmm))) {
      nused++;
      alen += (size_t)snprintf(attr + alen, sizeof attr - alen,
                               "_ZGVeN16vvv_%s(%s)", helpers[i].name,
                               helpers[i].zmm);
    }
    if (isa.ymm && (used[nused] = declare_form(m, helpers[i].ymm))) {
      nused++;
      alen += (size_t)snprintf(attr + alen, sizeof attr - alen,
                               "%s_ZGVdN8vvv_%s(%s)", alen ? "," : "",
                               helpers[i].name, helpers[i].ymm);
    }
    if (!alen)
      continue;
    static const char key[] = "vector-function-abi-variant";
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(
                                LLVMGetModuleContext(m), key,
                                sizeof(key) - 1, attr, (unsigned)alen));
    /* The scalar helpers then keep their three parameters
     * (interprocedural passes would drop a constant acc, and the vector
     * forms would no longer match). */
    cc_append_compiler_used(m, used, nused);
  }
}
