/* This file contains the compiler's side of the math builtins (see
 * math_lib.h): resolving the builtin library's libsleef calls in the JIT,
 * naming Sleef's vector entry points for the vectorisers (LLVM's vector
 * function ABI), and the relaxed-math switch to Sleef's faster forms. */
#define _GNU_SOURCE
#include "math_lib.h"
#include "compiler_internal.h" /* cc_target_features, cc_feature_on */

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Error.h>
#include <llvm-c/Orc.h>
#include <llvm-c/TargetMachine.h>

/* Any libsleef function: its address tells dladdr which file libskein
 * loaded, so the other symbols are looked up in that very library. */
extern float Sleef_sinf_u10(float);

static pthread_once_t sleef_once = PTHREAD_ONCE_INIT;
static void *sleef_handle;

static void open_sleef(void) {
  Dl_info info;
  if (dladdr((void *)Sleef_sinf_u10, &info) && info.dli_fname)
    sleef_handle = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
}

/* The address of libsleef's function name, or NULL. */
static void *sleef_symbol(const char *name) {
  pthread_once(&sleef_once, open_sleef);
  return sleef_handle ? dlsym(sleef_handle, name) : NULL;
}

bool cc_math_is_lib_function(const char *name) {
  return strncmp(name, "Sleef_", 6) == 0;
}

/* One x86 vector ISA of LLVM's vector function ABI and Sleef's name for
 * it; lanes for float (double has half as many). */
typedef struct isa {
  char letter;          /* VFABI ISA letter */
  const char *sleef;    /* Sleef's ISA suffix */
  unsigned float_lanes;
  const char *features[2];   /* host features it needs */
} isa;

static const isa isas[] = {
  {'e', "avx512f", 16, {"+avx512f", NULL}},
  {'d', "avx2", 8, {"+avx2", "+fma"}},
  {'b', "sse4", 4, {"+sse4.1", NULL}},
};

/* Whether the target has every feature s needs (the last entry of a
 * name wins: SKEIN_CPU_FEATURES=-avx512f comes after the host's +). */
static bool host_has(const char *features, const isa *s) {
  for (int i = 0; i < 2; i++)
    if (s->features[i] && !cc_feature_on(features, s->features[i] + 1))
      return false;
  return true;
}

/* Splits a scalar Sleef name "Sleef_<base>[f]_u<NN>" into base (without
 * the float 'f') and suffix "_uNN"; false for names without an accuracy
 * suffix (Sleef has no vector forms under a predictable name for them). */
static bool split_name(const char *name, bool is_float, char *base,
                       size_t cap, const char **suffix) {
  const char *u = strstr(name, "_u");
  if (!u || u[2] < '0' || u[2] > '9' || strchr(u + 1, '_'))
    return false;
  size_t len = (size_t)(u - name) - 6 - (is_float ? 1 : 0);
  if (len == 0 || len >= cap || (is_float && u[-1] != 'f'))
    return false;
  memcpy(base, name + 6, len);
  base[len] = '\0';
  *suffix = u;
  return true;
}

/* Appends fns to @llvm.compiler.used (keeps the vector declarations
 * until the vectorisers run). */
void cc_append_compiler_used(LLVMModuleRef m, LLVMValueRef *fns,
                             unsigned n) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMValueRef old = LLVMGetNamedGlobal(m, "llvm.compiler.used");
  unsigned nold = 0;
  LLVMValueRef init = old ? LLVMGetInitializer(old) : NULL;
  if (init)
    nold = (unsigned)LLVMGetNumOperands(init);
  LLVMValueRef *all = malloc(sizeof(*all) * (nold + n));
  if (!all)
    return;   /* the vectorisers then just keep scalar calls */
  for (unsigned i = 0; i < nold; i++)
    all[i] = LLVMGetOperand(init, i);
  memcpy(all + nold, fns, sizeof(*fns) * n);
  if (old)
    LLVMDeleteGlobal(old);
  LLVMValueRef g = LLVMAddGlobal(m, LLVMArrayType2(ptr, nold + n),
                                 "llvm.compiler.used");
  LLVMSetLinkage(g, LLVMAppendingLinkage);
  LLVMSetSection(g, "llvm.metadata");
  LLVMSetInitializer(g, LLVMConstArray2(ptr, all, nold + n));
  free(all);
}

/* Declares vector function name of n lanes in m, with the attributes
 * (readnone, nounwind...) of the scalar function f. */
static LLVMValueRef declare_vector(LLVMModuleRef m, LLVMValueRef f,
                                   const char *name, unsigned lanes) {
  LLVMValueRef v = LLVMGetNamedFunction(m, name);
  if (v)
    return v;
  LLVMTypeRef ft = LLVMGlobalGetValueType(f);
  unsigned np = LLVMCountParamTypes(ft);
  LLVMTypeRef params[3], vparams[3];
  if (np > 3)
    return NULL;
  LLVMGetParamTypes(ft, params);
  for (unsigned i = 0; i < np; i++)
    vparams[i] = LLVMVectorType(params[i], lanes);
  LLVMTypeRef vt = LLVMFunctionType(
      LLVMVectorType(LLVMGetReturnType(ft), lanes), vparams, np, 0);
  v = LLVMAddFunction(m, name, vt);
  unsigned na = LLVMGetAttributeCountAtIndex(f, LLVMAttributeFunctionIndex);
  LLVMAttributeRef attrs[na + 1];
  LLVMGetAttributesAtIndex(f, LLVMAttributeFunctionIndex, attrs);
  for (unsigned i = 0; i < na; i++)
    LLVMAddAttributeAtIndex(v, LLVMAttributeFunctionIndex, attrs[i]);
  return v;
}

/* Gives scalar Sleef function f its vector variants for the host. */
static void add_variants(LLVMModuleRef m, LLVMValueRef f,
                         const char *features) {
  size_t len;
  const char *name = LLVMGetValueName2(f, &len);
  LLVMTypeRef ft = LLVMGlobalGetValueType(f);
  LLVMTypeKind rk = LLVMGetTypeKind(LLVMGetReturnType(ft));
  unsigned np = LLVMCountParamTypes(ft);
  if ((rk != LLVMFloatTypeKind && rk != LLVMDoubleTypeKind) || np == 0 ||
      np > 3)
    return;
  bool is_float = rk == LLVMFloatTypeKind;
  char base[64], attr[1024] = "", vname[128];
  const char *suffix;
  if (!split_name(name, is_float, base, sizeof(base), &suffix))
    return;
  LLVMValueRef used[3];
  unsigned nused = 0;
  size_t alen = 0;
  for (size_t i = 0; i < sizeof(isas) / sizeof(isas[0]); i++) {
    unsigned lanes = is_float ? isas[i].float_lanes : isas[i].float_lanes / 2;
    snprintf(vname, sizeof(vname), "Sleef_%s%c%u%s%s", base,
             is_float ? 'f' : 'd', lanes, suffix, isas[i].sleef);
    if (!host_has(features, &isas[i]) || !sleef_symbol(vname))
      continue;
    LLVMValueRef v = declare_vector(m, f, vname, lanes);
    if (!v)
      continue;
    used[nused++] = v;
    alen += (size_t)snprintf(attr + alen, sizeof(attr) - alen,
                             "%s_ZGV%cN%u%.*s_%s(%s)", alen ? "," : "",
                             isas[i].letter, lanes, (int)np, "vvv", name,
                             vname);
  }
  if (!nused)
    return;
  static const char key[] = "vector-function-abi-variant";
  LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(
                              LLVMGetModuleContext(m), key,
                              sizeof(key) - 1, attr, (unsigned)alen));
  cc_append_compiler_used(m, used, nused);
}

/* Whether m was built with -cl-unsafe-math-optimizations (or
 * -cl-fast-relaxed-math, which implies it): Clang marks every function
 * of such a program "unsafe-fp-math"="true". */
static bool relaxed_math(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(
        f, LLVMAttributeFunctionIndex, "unsafe-fp-math", 14);
    unsigned vlen;
    if (a && strcmp(LLVMGetStringAttributeValue(a, &vlen), "true") == 0)
      return true;
  }
  return false;
}

/* Relaxed math: calls of Sleef_X_u10 become calls of Sleef_X_u35 where
 * libsleef has it (3.5 ULP, within every relaxed-math bound). */
static void use_fast_forms(LLVMModuleRef m, LLVMValueRef f) {
  size_t len;
  const char *name = LLVMGetValueName2(f, &len);
  if (len < 5 || strcmp(name + len - 4, "_u10") != 0 || len > 120)
    return;
  char fast[128];
  snprintf(fast, sizeof(fast), "%.*s_u35", (int)len - 4, name);
  if (!sleef_symbol(fast) || !LLVMGetFirstUse(f))
    return;
  LLVMValueRef g = LLVMGetNamedFunction(m, fast);
  if (!g) {
    g = LLVMAddFunction(m, fast, LLVMGlobalGetValueType(f));
    unsigned na = LLVMGetAttributeCountAtIndex(f, LLVMAttributeFunctionIndex);
    LLVMAttributeRef attrs[na + 1];
    LLVMGetAttributesAtIndex(f, LLVMAttributeFunctionIndex, attrs);
    for (unsigned i = 0; i < na; i++)
      LLVMAddAttributeAtIndex(g, LLVMAttributeFunctionIndex, attrs[i]);
  }
  LLVMReplaceAllUsesWith(f, g);
}

/* OpenCL C makes every function and call convergent; a Sleef function
 * is not (it is pure), and convergent calls keep the loop vectoriser
 * from versioning loops for aliasing. */
void cc_drop_convergent(LLVMValueRef f) {
  unsigned kind = LLVMGetEnumAttributeKindForName("convergent", 10);
  LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind);
  for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef call = LLVMGetUser(u);
    if (LLVMIsACallInst(call) && LLVMGetCalledValue(call) == f)
      LLVMRemoveCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex,
                                      kind);
  }
}

void cc_math_prepare(LLVMModuleRef m) {
  bool fast = relaxed_math(m);
  /* Collect first: the loops below add functions to m. */
  unsigned n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    size_t len;
    n += LLVMIsDeclaration(f) &&
         cc_math_is_lib_function(LLVMGetValueName2(f, &len));
  }
  if (!n)
    return;
  LLVMValueRef *fns = malloc(sizeof(*fns) * n);
  if (!fns)
    return;   /* no vector forms: correct, only slower */
  unsigned k = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && k < n;
       f = LLVMGetNextFunction(f)) {
    size_t len;
    if (LLVMIsDeclaration(f) &&
        cc_math_is_lib_function(LLVMGetValueName2(f, &len)))
      fns[k++] = f;
  }
  for (unsigned i = 0; i < k; i++)
    cc_drop_convergent(fns[i]);
  if (fast)
    for (unsigned i = 0; i < k; i++)
      use_fast_forms(m, fns[i]);
  /* The target's features (SKEIN_CPU may name an AVX2 CPU on an AVX-512
   * host: no AVX-512 forms then). */
  char *features = cc_target_features();
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    size_t len;
    if (LLVMIsDeclaration(f) && LLVMGetFirstUse(f) &&
        cc_math_is_lib_function(LLVMGetValueName2(f, &len)))
      add_variants(m, f, features);
  }
  free(features);
  free(fns);
}

LLVMErrorRef cc_math_define_symbols(LLVMOrcLLJITRef jit, LLVMModuleRef m) {
  unsigned n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    size_t len;
    n += LLVMIsDeclaration(f) &&
         cc_math_is_lib_function(LLVMGetValueName2(f, &len));
  }
  if (!n)
    return NULL;
  const char **names = calloc(n, sizeof(*names));
  if (!names)
    return LLVMCreateStringError("out of memory");
  unsigned k = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && k < n;
       f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (LLVMIsDeclaration(f) && cc_math_is_lib_function(name))
      names[k++] = name;
  }
  LLVMErrorRef err = cc_math_define_names(jit, names, k);
  free(names);
  return err;
}

/* One entry of an absolute-symbol map: name, callable, at addr. */
static void absolute_symbol(LLVMOrcLLJITRef jit, LLVMOrcCSymbolMapPair *sym,
                            const char *name, void *addr) {
  sym->Name = LLVMOrcLLJITMangleAndIntern(jit, name);
  sym->Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)addr;
  sym->Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported |
                                LLVMJITSymbolGenericFlagsCallable;
  sym->Sym.Flags.TargetFlags = 0;
}

LLVMErrorRef cc_math_define_names(LLVMOrcLLJITRef jit,
                                  const char *const *names, unsigned n) {
  if (!n)
    return NULL;
  LLVMOrcCSymbolMapPair *syms = calloc(n, sizeof(*syms));
  if (!syms)
    return LLVMCreateStringError("out of memory");
  unsigned k = 0;
  for (unsigned i = 0; i < n; i++) {
    const char *name = names[i];
    void *addr = cc_math_is_lib_function(name) ? sleef_symbol(name) : NULL;
    if (!addr) {
      char msg[256];
      snprintf(msg, sizeof(msg), "libsleef lacks %s", name);
      for (unsigned j = 0; j < k; j++)
        LLVMOrcReleaseSymbolStringPoolEntry(syms[j].Name);
      free(syms);
      return LLVMCreateStringError(msg);
    }
    absolute_symbol(jit, &syms[k++], name, addr);
  }
  LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(syms, k);
  free(syms);
  return LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(jit), mu);
}

/* The helpers LLVM's code generator calls by name where the target has
 * no instruction for an operation: half conversions without F16C
 * (libgcc's, linked into libskein statically) and fma()/fmaf() without
 * FMA (libm's). The JIT's own search of the process finds only what
 * the application's global scope holds, where libgcc's helpers never
 * are and libm may not be (libskein is loaded RTLD_LOCAL by the ICD
 * loader): x86-64-v2 builds of half kernels failed to link with
 * "Symbols not found: [ __extendhfsf2, fmaf, __truncsfhf2 ]". */
extern float __extendhfsf2(_Float16);
extern _Float16 __truncsfhf2(float);
extern _Float16 __truncdfhf2(double);

LLVMErrorRef cc_math_define_runtime(LLVMOrcLLJITRef jit) {
  static const struct {
    const char *name;
    void *addr;
  } helpers[] = {
      {"__extendhfsf2", (void *)__extendhfsf2},
      {"__truncsfhf2", (void *)__truncsfhf2},
      {"__truncdfhf2", (void *)__truncdfhf2},
      {"fmaf", (void *)fmaf},
      {"fma", (void *)fma},
  };
  enum { N = sizeof(helpers) / sizeof(helpers[0]) };
  LLVMOrcCSymbolMapPair syms[N];
  for (unsigned i = 0; i < N; i++)
    absolute_symbol(jit, &syms[i], helpers[i].name, helpers[i].addr);
  LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(syms, N);
  return LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(jit), mu);
}
