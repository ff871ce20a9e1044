/* This file contains what separates compiling from linking: the kind
 * marker of compiled objects and libraries, the link options of
 * clLinkProgram, and the joining of units into one module with duplicate
 * definitions reported by name. build.c drives these steps. */
#include "compiler_internal.h"

#include <llvm-c/Linker.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The marker global of a compiled object or library. Internal, so two
 * units' markers never clash while linking; removed on load. */
#define KIND_MARKER "__skein_unit_kind"
#define KIND_LINK_OPTIONS 0x100u

static bool token_is(const char *s, size_t n, const char *opt) {
  return n == strlen(opt) && strncmp(s, opt, n) == 0;
}

cc_status cc_link_options_parse(const char *options, cc_link_options *o,
                                cc_log *log) {
  memset(o, 0, sizeof(*o));
  for (const char *s = options ? options : "";;) {
    s += strspn(s, " \t\r\n");
    size_t n = strcspn(s, " \t\r\n");
    if (!n)
      break;
    if (token_is(s, n, "-create-library"))
      o->library = true;
    else if (token_is(s, n, "-enable-link-options"))
      o->enable_options = true;
    else if (token_is(s, n, "-cl-denorms-are-zero"))
      o->denorms_zero = true;
    else if (token_is(s, n, "-cl-no-signed-zeros"))
      o->no_signed_zeros = true;
    else if (token_is(s, n, "-cl-unsafe-math-optimizations"))
      o->unsafe_math = o->no_signed_zeros = true;
    else if (token_is(s, n, "-cl-finite-math-only"))
      o->finite_math = true;
    else if (token_is(s, n, "-cl-fast-relaxed-math"))
      o->unsafe_math = o->no_signed_zeros = o->finite_math = true;
    else if (!token_is(s, n, "-cl-no-subgroup-ifp")) {
      cc_log_printf(log, "error: unsupported link option '%.*s'\n", (int)n,
                    s);
      return CC_INVALID_OPTIONS;
    }
    s += n;
  }
  /* -enable-link-options "must be specified with the -create-library
   * option" (OpenCL 3.0 API spec, 5.8.7). */
  if (o->enable_options && !o->library) {
    cc_log_printf(log, "error: -enable-link-options needs -create-library\n");
    return CC_INVALID_OPTIONS;
  }
  return CC_OK;
}

void cc_unit_set_kind(LLVMModuleRef m, cc_kind kind, bool link_options) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(m));
  LLVMValueRef g = LLVMAddGlobal(m, i32, KIND_MARKER);
  unsigned v = (unsigned)kind | (link_options ? KIND_LINK_OPTIONS : 0);
  LLVMSetInitializer(g, LLVMConstInt(i32, v, 0));
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetGlobalConstant(g, 1);
}

cc_kind cc_unit_take_kind(LLVMModuleRef m, bool *link_options) {
  *link_options = false;
  LLVMValueRef g = LLVMGetNamedGlobal(m, KIND_MARKER);
  if (!g)
    return CC_KIND_EXECUTABLE;
  LLVMValueRef init = LLVMGetInitializer(g);
  unsigned v = init && LLVMIsAConstantInt(init)
                   ? (unsigned)LLVMConstIntGetZExtValue(init)
                   : 0;
  LLVMDeleteGlobal(g);
  *link_options = (v & KIND_LINK_OPTIONS) != 0;
  v &= ~KIND_LINK_OPTIONS;
  return v == CC_KIND_OBJECT || v == CC_KIND_LIBRARY ? (cc_kind)v
                                                     : CC_KIND_EXECUTABLE;
}

static void set_attr(LLVMValueRef f, const char *key, const char *val) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(f));
  LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(
                              ctx, key, (unsigned)strlen(key), val,
                              (unsigned)strlen(val)));
}

/* The fast-math flags Clang gives floating-point operations under o. */
static LLVMFastMathFlags math_flags(const cc_link_options *o) {
  LLVMFastMathFlags f = 0;
  if (o->no_signed_zeros)
    f |= LLVMFastMathNoSignedZeros;
  if (o->unsafe_math)
    f |= LLVMFastMathAllowReassoc | LLVMFastMathAllowReciprocal |
         LLVMFastMathAllowContract | LLVMFastMathApproxFunc;
  if (o->finite_math)
    f |= LLVMFastMathNoNaNs | LLVMFastMathNoInfs;
  return f;
}

static void apply_flags(LLVMValueRef fn, LLVMFastMathFlags flags) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMCanValueUseFastMathFlags(i))
        LLVMSetFastMathFlags(i, LLVMGetFastMathFlags(i) | flags);
}

void cc_unit_apply_math(LLVMModuleRef m, const cc_link_options *o) {
  LLVMFastMathFlags flags = math_flags(o);
  if (!flags && !o->denorms_zero)
    return;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f))
      continue;
    /* The attributes compiler/math_lib.c and LLVM's back end read. */
    if (o->unsafe_math)
      set_attr(f, "unsafe-fp-math", "true");
    if (o->no_signed_zeros)
      set_attr(f, "no-signed-zeros-fp-math", "true");
    if (o->finite_math) {
      set_attr(f, "no-infs-fp-math", "true");
      set_attr(f, "no-nans-fp-math", "true");
    }
    if (o->denorms_zero)
      set_attr(f, "denormal-fp-math-f32", "preserve-sign,preserve-sign");
    if (flags)
      apply_flags(f, flags);
  }
}

/* A definition that the linker must not see twice: external, not weak,
 * linkonce or common. */
static bool strong_definition(LLVMValueRef g) {
  if (LLVMIsDeclaration(g))
    return false;
  switch (LLVMGetLinkage(g)) {
  case LLVMExternalLinkage:
  case LLVMAppendingLinkage:
    return true;
  default:
    return false;
  }
}

/* Logs every strong definition of src that dst also has. */
static bool no_duplicates(LLVMModuleRef dst, LLVMModuleRef src,
                          unsigned index, cc_log *log) {
  bool ok = true;
  for (LLVMValueRef f = LLVMGetFirstFunction(src); f;
       f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    LLVMValueRef old = LLVMGetNamedFunction(dst, name);
    if (!strong_definition(f) || !old || !strong_definition(old))
      continue;
    char *pretty = cc_demangle(name);
    cc_log_printf(log, "error: duplicate symbol: %s '%s' is defined in "
                  "input program %u and in an earlier one\n",
                  LLVMGetFunctionCallConv(f) == LLVMSPIRKERNELCallConv
                      ? "kernel" : "function",
                  pretty ? pretty : name, index);
    free(pretty);
    ok = false;
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(src); g;
       g = LLVMGetNextGlobal(g)) {
    size_t len;
    const char *name = LLVMGetValueName2(g, &len);
    LLVMValueRef old = LLVMGetNamedGlobal(dst, name);
    if (LLVMGetLinkage(g) == LLVMAppendingLinkage || !strong_definition(g) ||
        !old || !strong_definition(old))
      continue;
    cc_log_printf(log, "error: duplicate symbol: variable '%s' is defined "
                  "in input program %u and in an earlier one\n", name,
                  index);
    ok = false;
  }
  return ok;
}

bool cc_unit_link(LLVMModuleRef dst, LLVMModuleRef src, unsigned index,
                  cc_log *log) {
  if (!no_duplicates(dst, src, index, log)) {
    LLVMDisposeModule(src);
    return false;
  }
  /* LLVM's own errors reach the log through the context's handler. */
  if (LLVMLinkModules2(dst, src)) {
    cc_log_printf(log, "error: linking input program %u failed\n", index);
    return false;
  }
  return true;
}

/* "1.2" of "-cl-std=CL1.2" as 12; 0 if s is not such an option. */
static int std_of(const char *s, size_t n) {
  if (n != 13 || strncmp(s, "-cl-std=CL", 10) != 0 || s[11] != '.')
    return 0;
  return (s[10] - '0') * 10 + (s[12] - '0');
}

/* Appends " tok" to *acc unless already there. */
static bool add_token(char **acc, const char *tok, size_t n) {
  size_t have = *acc ? strlen(*acc) : 0;
  for (const char *s = *acc; s && *s;) {
    s += strspn(s, " ");
    size_t m = strcspn(s, " ");
    if (m == n && strncmp(s, tok, n) == 0)
      return true;
    s += m;
  }
  char *grown = realloc(*acc, have + n + 2);
  if (!grown)
    return false;
  snprintf(grown + have, n + 2, "%s%.*s", have ? " " : "", (int)n, tok);
  *acc = grown;
  return true;
}

/* Removes the -cl-std option from acc and returns its version (0: none). */
static int take_std(char *acc) {
  for (char *s = acc; s && *s;) {
    s += strspn(s, " ");
    size_t n = strcspn(s, " ");
    int v = std_of(s, n);
    if (v) {
      memmove(s, s + n, strlen(s + n) + 1);
      return v;
    }
    s += n;
  }
  return 0;
}

bool cc_unit_merge_options(char **acc, const char *unit_options) {
  static const char *const kept[] = {"-cl-kernel-arg-info", "-cl-opt-disable",
                                     "-cl-uniform-work-group-size",
                                     "-skein-bounds-check"};
  int std = 12;
  for (const char *s = unit_options ? unit_options : "";;) {
    s += strspn(s, " \t\r\n");
    size_t n = strcspn(s, " \t\r\n");
    if (!n)
      break;
    if (std_of(s, n))
      std = std_of(s, n);
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
      if (token_is(s, n, kept[i]) && !add_token(acc, s, n))
        return false;
    s += n;
  }
  int old = *acc ? take_std(*acc) : 0;
  if (old && old < std)
    std = old;
  char tok[32];
  snprintf(tok, sizeof(tok), "-cl-std=CL%d.%d", std / 10 % 10, std % 10);
  return add_token(acc, tok, strlen(tok));
}
