/* This file contains the printf lowering. Clang emits OpenCL C's printf as
 * a variadic call, printf(format, args...), with the default argument
 * promotions and the x86-64 ABI's coercions (a float2 travels as a double,
 * a float8 by pointer). Each call becomes: the arguments stored into a
 * packed stack record, and __skein_printf(format, layout, record, size,
 * get_local_linear_id()), which the work-group lowering turns into the
 * group-aware builtin __skein_ctx___skein_printf (builtins/printf.c). The
 * layout is a string constant naming each argument's kind, size and
 * offset; the host formats the records when the launch ends
 * (runtime/core/printf.c), reading the format string itself at run time. */
#include "printf_lower.h"

#include <stdlib.h>
#include <string.h>

#define PRINTF_FN "__skein_printf"
#define PRINTF_CTX_FN "__skein_ctx___skein_printf"
#define LOCAL_LINEAR_ID "_Z19get_local_linear_idv"

/* The declaration named name with type ty, added if m lacks it. */
static LLVMValueRef get_fn(LLVMModuleRef m, const char *name,
                           LLVMTypeRef ty) {
  LLVMValueRef f = LLVMGetNamedFunction(m, name);
  return f ? f : LLVMAddFunction(m, name, ty);
}

/* __skein_printf and its group-aware form: declaring the latter here
 * makes the work-group lowering route calls to it (cc_ctx_function) and
 * the builtin linker bring its body. */
static LLVMValueRef declare_printf_fn(LLVMModuleRef m) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef params[6] = {ptr, ptr, ptr, ptr, i32, i64};
  get_fn(m, PRINTF_CTX_FN, LLVMFunctionType(i32, params, 6, 0));
  LLVMValueRef f = get_fn(m, PRINTF_FN, LLVMFunctionType(i32, params + 1,
                                                         5, 0));
  cc_mark_needs_group(f);
  return f;
}

/* The bytes of a constant i8 array a pointer argument designates (the
 * array itself or a zero-index GEP of it, in any address space); 0 if the
 * argument is not such a literal. */
static unsigned long long literal_bytes(LLVMValueRef v) {
  while (LLVMIsAConstantExpr(v) &&
         (LLVMGetConstOpcode(v) == LLVMAddrSpaceCast ||
          (LLVMGetConstOpcode(v) == LLVMGetElementPtr &&
           LLVMGetNumOperands(v) >= 2))) {
    if (LLVMGetConstOpcode(v) == LLVMGetElementPtr) {
      for (int i = 1; i < LLVMGetNumOperands(v); i++) {
        LLVMValueRef idx = LLVMGetOperand(v, (unsigned)i);
        if (!LLVMIsAConstantInt(idx) || LLVMConstIntGetZExtValue(idx))
          return 0;
      }
    }
    v = LLVMGetOperand(v, 0);
  }
  if (!LLVMIsAGlobalVariable(v) || !LLVMIsGlobalConstant(v) ||
      !LLVMGetInitializer(v))
    return 0;
  LLVMTypeRef ty = LLVMGlobalGetValueType(v);
  if (LLVMGetTypeKind(ty) != LLVMArrayTypeKind ||
      LLVMGetTypeKind(LLVMGetElementType(ty)) != LLVMIntegerTypeKind ||
      LLVMGetIntTypeWidth(LLVMGetElementType(ty)) != 8)
    return 0;
  return LLVMGetArrayLength2(ty);
}

/* The layout letter of an argument: i integer, f floating-point scalar,
 * s string literal (bounded by its array), p other pointer, v anything
 * else (vectors, coerced or passed by pointer). The host trusts only the
 * sizes for v: the format says what the bytes are. */
static char arg_kind(LLVMValueRef arg, LLVMTypeRef ty, bool byval,
                     unsigned long long *lit) {
  *lit = 0;
  if (byval)
    return 'v';
  switch (LLVMGetTypeKind(ty)) {
  case LLVMIntegerTypeKind:
    return 'i';
  case LLVMHalfTypeKind:
  case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind:
    return 'f';
  case LLVMPointerTypeKind:
    *lit = literal_bytes(arg);
    return *lit ? 's' : 'p';
  default:
    return 'v';
  }
}

/* The record's field type of argument i of call: the value's type, or
 * the pointee of a byval argument (copied, not pointed to). */
static LLVMTypeRef field_type(LLVMValueRef call, unsigned i, bool *byval) {
  unsigned kind = LLVMGetEnumAttributeKindForName("byval", 5);
  LLVMAttributeRef a = LLVMGetCallSiteEnumAttribute(call, i + 1, kind);
  *byval = a != NULL;
  return a ? LLVMGetTypeAttributeValue(a) : LLVMTypeOf(LLVMGetOperand(call,
                                                                      i));
}

/* A private constant string global holding text. */
static LLVMValueRef layout_global(LLVMModuleRef m, const char *text) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMValueRef init = LLVMConstStringInContext2(ctx, text, strlen(text), 0);
  LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(init), ".skein.printf.layout");
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  return g;
}

/* Stores the n arguments of call (operands 1..n) into a packed record
 * allocated in fn's entry block; returns the record (NULL if n == 0) and
 * writes the layout text ("k<size>@<offset> " per argument). */
static LLVMValueRef build_record(LLVMBuilderRef b, LLVMModuleRef m,
                                 LLVMValueRef call, unsigned n,
                                 cc_log *layout, unsigned long long *size) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  *size = 0;
  if (n == 0)
    return NULL;
  LLVMTypeRef types[n];
  bool byval[n];
  for (unsigned i = 0; i < n; i++)
    types[i] = field_type(call, i + 1, &byval[i]);
  LLVMTypeRef st = LLVMStructTypeInContext(ctx, types, n, 1);
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
  LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(entry));
  LLVMValueRef rec = LLVMBuildAlloca(b, st, "printf.rec");
  LLVMPositionBuilderBefore(b, call);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef arg = LLVMGetOperand(call, i + 1);
    LLVMValueRef at = LLVMBuildStructGEP2(b, st, rec, i, "");
    unsigned long long bytes = LLVMStoreSizeOfType(td, types[i]);
    /* A load and a store, not a memcpy: the JIT resolves no libc. */
    LLVMValueRef v = arg;
    if (byval[i]) {
      v = LLVMBuildLoad2(b, types[i], arg, "");
      LLVMSetAlignment(v, 1);
    }
    LLVMSetAlignment(LLVMBuildStore(b, v, at), 1);
    unsigned long long lit;
    char kind = arg_kind(arg, types[i], byval[i], &lit);
    cc_log_printf(layout, "%c%llu@%llu", kind, bytes,
                  LLVMOffsetOfElement(td, st, i));
    if (kind == 's')
      cc_log_printf(layout, ":%llu", lit);
    cc_log_append(layout, " ", 1);
  }
  *size = LLVMABISizeOfType(td, st);
  return rec;
}

/* Replaces one printf call by the record and the __skein_printf call. */
static void lower_call(LLVMBuilderRef b, LLVMModuleRef m, LLVMValueRef call,
                       LLVMValueRef pf) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  unsigned nargs = LLVMGetNumArgOperands(call);
  cc_log layout = {0};
  unsigned long long size;
  LLVMValueRef rec = build_record(b, m, call, nargs ? nargs - 1 : 0,
                                  &layout, &size);
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef fmt = nargs ? LLVMGetOperand(call, 0) : LLVMConstNull(ptr);
  if (LLVMGetTypeKind(LLVMTypeOf(fmt)) != LLVMPointerTypeKind)
    fmt = LLVMConstNull(ptr);   /* not a format: prints nothing */
  else if (LLVMGetPointerAddressSpace(LLVMTypeOf(fmt)) != 0)
    fmt = LLVMBuildAddrSpaceCast(b, fmt, ptr, "");
  LLVMValueRef lid_fn = get_fn(m, LOCAL_LINEAR_ID,
                               LLVMFunctionType(i64, NULL, 0, 0));
  LLVMValueRef args[5] = {
      fmt,
      layout_global(m, layout.buf && !layout.oom ? layout.buf : ""),
      rec ? rec : LLVMConstNull(ptr),
      LLVMConstInt(i32, size, 0),
      LLVMBuildCall2(b, LLVMGlobalGetValueType(lid_fn), lid_fn, NULL, 0,
                     "lid")};
  free(layout.buf);
  LLVMValueRef v = LLVMBuildCall2(b, LLVMGlobalGetValueType(pf), pf, args, 5,
                                  "");
  LLVMReplaceAllUsesWith(call, v);
  LLVMInstructionEraseFromParent(call);
}

/* True if fn reaches (through direct calls) target; seen: visited. */
static bool reaches(LLVMValueRef fn, LLVMValueRef target,
                    LLVMValueRef **seen, size_t *nseen) {
  if (fn == target)
    return true;
  for (size_t i = 0; i < *nseen; i++)
    if ((*seen)[i] == fn)
      return false;
  LLVMValueRef *grown = realloc(*seen, sizeof(**seen) * (*nseen + 1));
  if (!grown)
    return true;   /* defensive: a spare buffer costs less than lost output */
  *seen = grown;
  (*seen)[(*nseen)++] = fn;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef callee = LLVMIsACallInst(i) ? LLVMGetCalledValue(i)
                                                : NULL;
      if (callee && LLVMIsAFunction(callee) &&
          reaches(callee, target, seen, nseen))
        return true;
    }
  return false;
}

void cc_printf_lower(LLVMModuleRef m, LLVMValueRef *kernels,
                     cc_kernel_info *infos, unsigned n) {
  LLVMValueRef printf_fn = LLVMGetNamedFunction(m, "printf");
  /* A program may not define printf itself, but if one does, its
   * function is what it calls. */
  if (!printf_fn || !LLVMIsDeclaration(printf_fn))
    return;
  LLVMValueRef pf = declare_printf_fn(m);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  LLVMUseRef use, next;
  for (use = LLVMGetFirstUse(printf_fn); use; use = next) {
    next = LLVMGetNextUse(use);
    LLVMValueRef call = LLVMGetUser(use);
    if (LLVMIsACallInst(call) && LLVMGetCalledValue(call) == printf_fn)
      lower_call(b, m, call, pf);
  }
  LLVMDisposeBuilder(b);
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef *seen = NULL;
    size_t nseen = 0;
    infos[k].uses_printf = reaches(kernels[k], pf, &seen, &nseen);
    free(seen);
  }
  if (!LLVMGetFirstUse(printf_fn))
    LLVMDeleteFunction(printf_fn);
}
