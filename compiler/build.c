/* This file contains the build pipeline: front end (or binary) to module,
 * builtin linking, work-group function generation, optimisation for the
 * host CPU and JIT compilation, and the cc_program that owns the result.
 * Each program gets its own LLJIT instance: dropping a program frees all
 * its code at once, and concurrent builds share no LLVM state. */
#include "builtin_families.h"
#include "jit_listeners.h" /* gdb and perf see the code */
#include "compiler_internal.h"
#include "dot_vnni.h"
#include "math_lib.h"   /* libsleef calls of the math builtins */
#include "printf_lower.h" /* printf calls become buffer records */
#include "program_cache.h" /* builds served from and kept on disk */
#include "spirv_internal.h" /* SPIR-V programs */

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Everything one build owns while it runs. */
typedef struct build {
  cc_options opts;
  cc_log log;
  LLVMOrcThreadSafeContextRef tsc;
  LLVMContextRef ctx;
  LLVMModuleRef m;            /* owned until handed to the JIT */
  LLVMTargetMachineRef tm;
  bool avx512;
  cc_program *p;
  LLVMValueRef *kernels;      /* [p->num_kernels] */
  cc_wg *wgs;                 /* [p->num_kernels] */
  double t_last;              /* SKEIN_DUMP=time: end of the last stage */
} build;

/* SKEIN_DUMP=ir (or all) prints every stage; a stage name prints one. */
static void dump(LLVMModuleRef m, const char *stage) {
  if (!cc_dump_enabled("ir") && !cc_dump_enabled(stage))
    return;
  char *text = LLVMPrintModuleToString(m);
  fprintf(stderr, "; ---- SKEIN_DUMP stage %s ----\n%s", stage, text);
  LLVMDisposeMessage(text);
}

/* SKEIN_DUMP=time prints how long each stage took (ms, to stderr). */
static void stage_done(build *b, const char *stage) {
  if (!cc_dump_enabled("time"))
    return;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  double t = ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
  if (b->t_last > 0)
    fprintf(stderr, "skein: %-10s %7.2f ms\n", stage, t - b->t_last);
  b->t_last = t;
}

/* LLVM reports errors (bad bitcode, link conflicts) through the context;
 * without a handler it would exit the process. */
static void on_diagnostic(LLVMDiagnosticInfoRef di, void *ctx) {
  cc_log *log = ctx;
  LLVMDiagnosticSeverity s = LLVMGetDiagInfoSeverity(di);
  if (!log || s == LLVMDSRemark || s == LLVMDSNote)
    return;   /* after the build, or not build-log material */
  char *text = LLVMGetDiagInfoDescription(di);
  cc_log_printf(log, "%s: %s\n", s == LLVMDSError ? "error" : "warning",
                text);
  LLVMDisposeMessage(text);
}

static void build_begin(build *b) {
  cc_llvm_init();
  b->tsc = LLVMOrcCreateNewThreadSafeContext();
  b->ctx = LLVMOrcThreadSafeContextGetContext(b->tsc);
  LLVMContextSetDiagnosticHandler(b->ctx, on_diagnostic, &b->log);
  stage_done(b, "start");
}

/* Logs an LLVM error and consumes it. */
static cc_status llvm_failed(build *b, LLVMErrorRef err, const char *what) {
  char *msg = LLVMGetErrorMessage(err);
  cc_log_printf(&b->log, "error: %s: %s\n", what, msg);
  LLVMDisposeErrorMessage(msg);
  return CC_BUILD_FAILED;
}

/* Clang's kernel calling convention means nothing to the x86 back end;
 * kernels become plain functions the work-group function calls. */
static void drop_spir_calling_conventions(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    if (LLVMGetFunctionCallConv(f) == LLVMSPIRKERNELCallConv ||
        LLVMGetFunctionCallConv(f) == LLVMSPIRFUNCCallConv)
      LLVMSetFunctionCallConv(f, LLVMCCallConv);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i))
        if (LLVMIsACallInst(i))
          LLVMSetInstructionCallConv(i, LLVMCCallConv);
  }
}

/* Adds kernel f to the program's list. */
static cc_status add_kernel(build *b, LLVMValueRef f) {
  unsigned k = b->p->num_kernels++;
  b->kernels[k] = f;
  if (!cc_kernel_info_fill(b->m, f, b->opts.kernel_arg_info,
                           &b->p->kernels[k]))
    return CC_OUT_OF_MEMORY;
  if (!cc_kernel_info_check(&b->p->kernels[k], &b->log))
    return CC_BUILD_FAILED;
  unsigned req = b->p->kernels[k].required_sub_group_size;
  if (req && !cc_sub_group_size_supported(req)) {
    cc_log_printf(&b->log, "error: kernel '%s': intel_reqd_sub_group_size"
                  "(%u) is not a sub-group size of the device (4, 8, 16 "
                  "or 32)\n", b->p->kernels[k].name, req);
    return CC_BUILD_FAILED;
  }
  return CC_OK;
}

/* Collects the kernels and their metadata: the application's kernels
 * first, then the block kernels, which only enqueue_kernel launches
 * (device_enqueue.c). */
static cc_status find_kernels(build *b) {
  unsigned n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(b->m); f;
       f = LLVMGetNextFunction(f))
    n += !LLVMIsDeclaration(f) &&
         LLVMGetFunctionCallConv(f) == LLVMSPIRKERNELCallConv;
  b->kernels = calloc(n + 1, sizeof(*b->kernels));
  b->wgs = calloc(n + 1, sizeof(*b->wgs));
  b->p->kernels = calloc(n + 1, sizeof(*b->p->kernels));
  if (!b->kernels || !b->wgs || !b->p->kernels)
    return CC_OUT_OF_MEMORY;
  for (int blocks = 0; blocks < 2; blocks++) {
    for (LLVMValueRef f = LLVMGetFirstFunction(b->m); f;
         f = LLVMGetNextFunction(f)) {
      if (LLVMIsDeclaration(f) ||
          LLVMGetFunctionCallConv(f) != LLVMSPIRKERNELCallConv ||
          cc_is_block_kernel(f) != (blocks == 1))
        continue;
      cc_status st = add_kernel(b, f);
      if (st != CC_OK)
        return st;
    }
    if (!blocks)
      b->p->num_visible = b->p->num_kernels;
  }
  return CC_OK;
}

/* SKEIN_MODE=fiber runs every kernel in fiber mode (debugging and
 * comparison). Nothing forces loop mode: it cannot run barriers. */
static bool force_fiber(void) {
  const char *mode = getenv("SKEIN_MODE");
  return mode && strcmp(mode, "fiber") == 0;
}

/* Loop mode cannot run a kernel that waits for its whole group: a kernel
 * that reaches a barrier or a collective through any call chain runs in
 * fiber mode. So does one with a loop that waits for another work-item
 * (it gets yields first: forward_progress.c), unless the program was
 * built with -cl-no-subgroup-ifp. */
static cc_status choose_modes(build *b) {
  if (!b->opts.no_subgroup_ifp && !cc_insert_progress_yields(b->m))
    return CC_OUT_OF_MEMORY;
  bool all = force_fiber();
  for (unsigned k = 0; k < b->p->num_kernels; k++) {
    const char *what = NULL;
    b->p->kernels[k].uses_barriers =
        cc_reaches_barrier(b->kernels[k], &what) || all;
  }
  return CC_OK;
}

/* Bounds-checked mode: -skein-bounds-check, or SKEIN_BOUNDS_CHECK=1 for
 * every program the process builds. */
static bool bounds_wanted(build *b) {
  const char *env = getenv("SKEIN_BOUNDS_CHECK");
  return b->opts.bounds_check || (env && strcmp(env, "1") == 0);
}

static cc_status run_passes(build *b, const char *pipeline);

/* Inlines the program's own functions into its kernels and guards their
 * global, constant and local accesses (bounds_check.cpp). */
static cc_status instrument_bounds(build *b) {
  cc_bounds_prepare(b->m, b->kernels, b->p->num_kernels);
  cc_status st = run_passes(b, "always-inline,function(sroa)");
  for (unsigned k = 0; st == CC_OK && k < b->p->num_kernels; k++)
    if (!cc_bounds_instrument(b->kernels[k], &b->p->kernels[k]))
      st = CC_OUT_OF_MEMORY;
  stage_done(b, "bounds");
  return st;
}

/* Sets the host triple and data layout on m. */
static void set_target(build *b, LLVMModuleRef m) {
  char *triple = LLVMGetTargetMachineTriple(b->tm);
  LLVMSetTarget(m, triple);
  LLVMDisposeMessage(triple);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(b->tm);
  char *layout = LLVMCopyStringRepOfTargetData(td);
  LLVMSetDataLayout(m, layout);
  LLVMDisposeMessage(layout);
  LLVMDisposeTargetData(td);
}

/* Reads the launch ABI's struct types off the builtin family that
 * defines them (builtins/workitem.c). */
static cc_status load_abi_types(build *b, cc_abi_types *abi) {
  int family = cc_builtin_family_of("__skein_abi_launch_layout");
  LLVMModuleRef fm =
      family < 0 ? NULL : cc_builtin_family_load(b->m, (unsigned)family);
  LLVMValueRef launch =
      fm ? LLVMGetNamedGlobal(fm, "__skein_abi_launch_layout") : NULL;
  LLVMValueRef group =
      fm ? LLVMGetNamedGlobal(fm, "__skein_abi_group_layout") : NULL;
  if (launch && group) {
    /* Types belong to the context: they outlive the module. */
    abi->launch = LLVMGlobalGetValueType(launch);
    abi->group = LLVMGlobalGetValueType(group);
  }
  if (fm)
    LLVMDisposeModule(fm);
  if (!launch || !group) {
    cc_log_printf(&b->log, "error: builtin library lacks the ABI types\n");
    return CC_BUILD_FAILED;
  }
  return CC_OK;
}

/* A builtin the library does not define yet must fail the build by name,
 * not resolve against the host's libc or libm at JIT time. */
static cc_status check_undefined(build *b) {
  cc_status st = CC_OK;
  for (LLVMValueRef f = LLVMGetFirstFunction(b->m); f;
       f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (!LLVMIsDeclaration(f) || LLVMGetIntrinsicID(f) ||
        !LLVMGetFirstUse(f) || cc_is_workitem_builtin(name) ||
        cc_ctx_function(b->m, name) || cc_math_is_lib_function(name))
      continue;
    char *pretty = cc_demangle(name);
    cc_log_printf(&b->log, "error: undefined function '%s' [%s]: no linked "
                  "program defines it, nor does Skein's built-in library\n",
                  pretty ? pretty : name, name);
    free(pretty);
    st = CC_BUILD_FAILED;
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(b->m); g;
       g = LLVMGetNextGlobal(g)) {
    size_t len;
    if (LLVMIsDeclaration(g) && LLVMGetFirstUse(g)) {
      cc_log_printf(&b->log, "error: undefined variable '%s'\n",
                    LLVMGetValueName2(g, &len));
      st = CC_BUILD_FAILED;
    }
  }
  return st;
}

static bool is_wg_function(build *b, LLVMValueRef f) {
  for (unsigned k = 0; k < b->p->num_kernels; k++)
    if (b->wgs[k].fn == f)
      return true;
  return false;
}

static void set_fn_attr(LLVMValueRef f, const char *key, const char *val) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(f));
  LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(
                              ctx, key, (unsigned)strlen(key), val,
                              (unsigned)strlen(val)));
}

/* Only the work-group functions stay visible (the rest is inlined or
 * dropped); every function is compiled for the target CPU (the host's,
 * or SKEIN_CPU's) at the target model's vector width: LLVM's own default
 * for AVX-512 CPUs is 256 bits, which halves clpeak's figures. */
static void prepare_module(build *b) {
  const cc_target *t = cc_target_get();
  char bits[16];
  snprintf(bits, sizeof bits, "%u", t->vector_bits);
  for (LLVMValueRef f = LLVMGetFirstFunction(b->m); f;
       f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f))
      continue;
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    /* The work-item helpers get their callers only in lower_all: the
     * always-inline pass would delete them as dead if internal now. */
    bool helper = strncmp(name, "__skein_get_", 12) == 0 ||
                  strncmp(name, "__skein_ctx_", 12) == 0;
    if (!is_wg_function(b, f) && !helper) {
      LLVMSetLinkage(f, LLVMInternalLinkage);
      LLVMSetVisibility(f, LLVMDefaultVisibility);
    }
    set_fn_attr(f, "target-cpu", t->cpu);
    set_fn_attr(f, "target-features", t->features ? t->features : "");
    set_fn_attr(f, "prefer-vector-width", bits);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(b->m); g;
       g = LLVMGetNextGlobal(g)) {
    size_t len;
    if (!LLVMIsDeclaration(g) &&
        strncmp(LLVMGetValueName2(g, &len), "llvm.", 5) != 0) {
      LLVMSetLinkage(g, LLVMInternalLinkage);
      LLVMSetVisibility(g, LLVMDefaultVisibility);
    }
  }
}

/* SKEIN_VECTORIZE=0 turns LLVM's vectorisers off: the scalar form of
 * every kernel, which the differential tests compare with the vectorised
 * one. */
bool cc_vectorize_wanted(void) {
  const char *v = getenv("SKEIN_VECTORIZE");
  return !v || strcmp(v, "0") != 0;
}

static cc_status run_passes(build *b, const char *pipeline) {
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  bool vectorize = cc_vectorize_wanted();
  LLVMPassBuilderOptionsSetLoopVectorization(o, vectorize);
  LLVMPassBuilderOptionsSetSLPVectorization(o, vectorize);
  LLVMPassBuilderOptionsSetLoopInterleaving(o, vectorize);
  LLVMPassBuilderOptionsSetLoopUnrolling(o, 1);
  LLVMErrorRef err = LLVMRunPasses(b->m, pipeline, b->tm, o);
  LLVMDisposePassBuilderOptions(o);
  return err ? llvm_failed(b, err, pipeline) : CC_OK;
}

/* Lowers every work-group function and drops the work-item builtin
 * declarations, which must have no uses left. */
static cc_status lower_all(build *b) {
  for (unsigned k = 0; k < b->p->num_kernels; k++)
    cc_wg_lower(b->m, &b->wgs[k], &b->p->kernels[k].static_local_mem_size);
  cc_status st = CC_OK;
  LLVMValueRef next;
  for (LLVMValueRef f = LLVMGetFirstFunction(b->m); f; f = next) {
    next = LLVMGetNextFunction(f);
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (!cc_is_workitem_builtin(name) &&
        !(LLVMIsDeclaration(f) && cc_ctx_function(b->m, name)))
      continue;
    if (LLVMGetFirstUse(f)) {
      cc_log_printf(&b->log, "error: %s called outside a kernel's call "
                    "tree\n", name);
      st = CC_BUILD_FAILED;
    } else {
      LLVMDeleteFunction(f);
    }
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(b->m); f;
       f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (!LLVMIsDeclaration(f) && (strncmp(name, "__skein_get_", 12) == 0 ||
                                  strncmp(name, "__skein_ctx_", 12) == 0))
      LLVMSetLinkage(f, LLVMInternalLinkage);
  }
  return st;
}

/* Region-mode hook: region.cpp keeps region or fiber mode per kernel
 * (after lowering, before the module is verified and optimised). */
static cc_status finish_regions(build *b) {
  bool any = false;
  for (unsigned k = 0; k < b->p->num_kernels; k++)
    any |= b->wgs[k].region_body != NULL;
  /* Private variables in registers first: only what lives across a
   * barrier should go to the per-work-item context. */
  cc_status st = any ? run_passes(b, "function(sroa)") : CC_OK;
  if (st != CC_OK)
    return st;
  for (unsigned k = 0; k < b->p->num_kernels; k++)
    cc_region_finish(b->m, &b->wgs[k], b->p->kernels[k].name);
  return CC_OK;
}

static cc_status verify(build *b) {
  char *msg = NULL;
  if (LLVMVerifyModule(b->m, LLVMReturnStatusAction, &msg)) {
    cc_log_printf(&b->log, "error: internal compiler error: %s\n", msg);
    LLVMDisposeMessage(msg);
    return CC_BUILD_FAILED;
  }
  LLVMDisposeMessage(msg);
  return CC_OK;
}

/* Per work-item private memory: the stack slots after optimisation of
 * the work-group function (loop mode: each work-item reuses them) or of
 * the work-item function (fiber mode, which also sizes the fiber stacks
 * from it). */
static void estimate_private(build *b) {
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(b->m);
  for (unsigned k = 0; k < b->p->num_kernels; k++) {
    cc_wg *wg = &b->wgs[k];
    size_t total = 0;
    if (wg->fiber) {
      cc_wg_set_stack_size(b->m, wg, &total);
    } else {
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(wg->fn); bb;
           bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
             i = LLVMGetNextInstruction(i))
          if (LLVMIsAAllocaInst(i))
            total += LLVMABISizeOfType(td, LLVMGetAllocatedType(i));
    }
    b->p->kernels[k].private_mem_size = total;
  }
}

LLVMErrorRef cc_jit_create(LLVMOrcLLJITRef *jit) {
  LLVMOrcJITTargetMachineBuilderRef jtmb;
  LLVMErrorRef err = LLVMOrcJITTargetMachineBuilderDetectHost(&jtmb);
  if (err)
    return err;
  LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(jb, jtmb);
  cc_jit_listeners_attach(jb);   /* gdb, perf (jit_listeners.cpp) */
  return LLVMOrcCreateLLJIT(jit, jb);
}

/* The JIT's object transform, for a build the disk cache will keep: a
 * copy of the object file the JIT's code generator made (one per
 * program: the whole module is one unit). */
static LLVMErrorRef keep_object(void *ctx, LLVMMemoryBufferRef *obj) {
  cc_program *p = ctx;
  if (p->cache_object_size == (size_t)-1)
    return NULL;
  size_t size = LLVMGetBufferSize(*obj);
  unsigned char *copy = p->cache_object ? NULL : malloc(size ? size : 1);
  if (copy) {   /* no copy (a second object, or no memory): no entry */
    memcpy(copy, LLVMGetBufferStart(*obj), size);
    p->cache_object = copy;
    p->cache_object_size = size;
  } else {
    free(p->cache_object);
    p->cache_object = NULL;
    p->cache_object_size = (size_t)-1;
  }
  return NULL;
}

/* The libsleef functions m calls, for the disk cache (a cached program
 * defines them in its new JIT by name). */
static cc_status keep_symbols(build *b) {
  cc_log names = {0};
  for (LLVMValueRef f = LLVMGetFirstFunction(b->m); f;
       f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (LLVMIsDeclaration(f) && cc_math_is_lib_function(name))
      cc_log_append(&names, name, len + 1);
  }
  if (names.oom)
    return CC_OUT_OF_MEMORY;
  b->p->cache_symbols = names.buf;
  b->p->cache_symbols_size = names.len;
  return CC_OK;
}

/* Hands the module to a new LLJIT and looks up every work-group
 * function (this is when machine code is generated). */
static cc_status jit(build *b) {
  cc_jit_set_debug(b->opts.debug, b->opts.opt_disable);   /* -g: registered with gdb */
  LLVMErrorRef err = cc_jit_create(&b->p->jit);
  if (err)
    return llvm_failed(b, err, "JIT creation");
  stage_done(b, "jit-create");
  if ((err = cc_math_define_symbols(b->p->jit, b->m)))
    return llvm_failed(b, err, "JIT");
  if (cc_cache_capturing) {
    if (keep_symbols(b) != CC_OK)
      return CC_OUT_OF_MEMORY;
    LLVMOrcObjectTransformLayerSetTransform(
        LLVMOrcLLJITGetObjTransformLayer(b->p->jit), keep_object, b->p);
  }
  LLVMOrcThreadSafeModuleRef tsm =
      LLVMOrcCreateNewThreadSafeModule(b->m, b->tsc);
  b->m = NULL;
  err = LLVMOrcLLJITAddLLVMIRModule(
      b->p->jit, LLVMOrcLLJITGetMainJITDylib(b->p->jit), tsm);
  if (err)
    return llvm_failed(b, err, "JIT");
  for (unsigned k = 0; k < b->p->num_kernels; k++) {
    char name[strlen(b->p->kernels[k].name) + 16];
    snprintf(name, sizeof(name), "__skein_wg_%s", b->p->kernels[k].name);
    LLVMOrcExecutorAddress addr;
    if ((err = LLVMOrcLLJITLookup(b->p->jit, &addr, name)))
      return llvm_failed(b, err, "JIT");
    b->p->kernels[k].wg = (skein_wg_fn)(uintptr_t)addr;
  }
  /* The context lives on in the JIT; the log does not. */
  LLVMContextSetDiagnosticHandler(b->ctx, on_diagnostic, NULL);
  return CC_OK;
}

/* For every builtin F the program calls that the library implements as
 * __skein_ctx_F (barriers, collectives: they need the work-item's
 * group), declares __skein_ctx_F so linking brings its body, and marks F
 * so that its callers are inlined where the group is known. */
static void declare_ctx_functions(build *b) {
  LLVMModuleRef loaded[cc_num_builtin_families];
  memset(loaded, 0, sizeof(loaded));
  for (LLVMValueRef f = LLVMGetFirstFunction(b->m); f;
       f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (!LLVMIsDeclaration(f) || strncmp(name, "__skein_", 8) == 0)
      continue;
    char ctx_name[len + 16];
    snprintf(ctx_name, sizeof(ctx_name), "__skein_ctx_%s", name);
    int family = cc_builtin_family_of(ctx_name);
    if (family < 0)
      continue;
    if (!loaded[family])
      loaded[family] = cc_builtin_family_load(b->m, (unsigned)family);
    LLVMValueRef def =
        loaded[family] ? LLVMGetNamedFunction(loaded[family], ctx_name) : NULL;
    if (!def)
      continue;
    LLVMAddFunction(b->m, ctx_name, LLVMGlobalGetValueType(def));
    cc_mark_needs_group(f);
  }
  for (unsigned i = 0; i < cc_num_builtin_families; i++)
    if (loaded[i])
      LLVMDisposeModule(loaded[i]);
}

/* Links the builtins and generates the work-group functions. */
static cc_status link_and_generate(build *b) {
  cc_abi_types abi;
  cc_status st = load_abi_types(b, &abi);
  if (st != CC_OK)
    return st;
  drop_spir_calling_conventions(b->m);
  declare_ctx_functions(b);
  /* -g: no region mode, which cuts a kernel into pieces whose lines gdb
   * cannot follow; barrier kernels run as fibers, the kernel intact. */
  bool region_off = cc_region_off;
  cc_region_off |= b->opts.debug;
  for (unsigned k = 0; k < b->p->num_kernels; k++)
    cc_wg_generate(b->m, &abi, b->kernels[k],
                   b->p->kernels[k].uses_barriers,
                   !b->p->kernels[k].uses_barriers &&
                       cc_reaches_loop(b->kernels[k], 0),
                   &b->wgs[k]);
  cc_region_off = region_off;
  if (b->opts.debug)
    cc_debug_generated(b->m);   /* the kernels' lines survive inlining */
  if (!cc_link_builtins(b->m, &b->log))
    return CC_BUILD_FAILED;
  stage_done(b, "link");
  dump(b->m, "linked");
  return check_undefined(b);
}

/* The bytes of the program-scope variables in the global address space
 * (and static ones in functions) that m defines: the user's module only,
 * before the builtins join it. */
static size_t global_variable_size(LLVMModuleRef m) {
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  size_t total = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g) &&
        LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == 1)
      total += LLVMABISizeOfType(td, LLVMGlobalGetValueType(g));
  return total;
}

/* Everything after the module exists: shared by source and binary. */
static cc_status backend(build *b) {
  /* Fault injection for tests/test-compiler-crash.c: a crash where LLVM
   * would crash, to prove the guard holds ("region": only where region
   * mode was used, to prove the retry without it; "fatal": LLVM's
   * report_fatal_error, which would otherwise exit the process). */
  const char *inject = getenv("SKEIN_INJECT_COMPILER_CRASH");
  if (inject && *inject == '1')
    raise(SIGSEGV);
  if (inject && strcmp(inject, "fatal") == 0)
    cc_inject_fatal_error();
  b->tm = cc_host_target_machine(&b->log, &b->avx512);
  if (!b->tm)
    return CC_BUILD_FAILED;
  set_target(b, b->m);
  b->p->global_var_size = global_variable_size(b->m);
  if (!cc_device_enqueue_prepare(b->m, &b->log))
    return CC_BUILD_FAILED;
  cc_status st = find_kernels(b);
  if (st == CC_OK)
    st = choose_modes(b);
  if (st == CC_OK) {
    cc_printf_lower(b->m, b->kernels, b->p->kernels, b->p->num_kernels);
    if (bounds_wanted(b))
      st = instrument_bounds(b);
    if (st == CC_OK)
      st = link_and_generate(b);
  }
  if (st != CC_OK)
    return st;
  cc_math_prepare(b->m);   /* Sleef vector forms, relaxed-math forms */
  cc_half_lower(b->m);     /* mad of halves without AVX-512 FP16 */
  cc_dot_prepare(b->m);    /* VNNI forms of the integer dot products */
  cc_mark_workitem_inline(b->m, b->kernels, b->p->num_kernels);
  prepare_module(b);
  cc_guard_integer_division(b->m);
  if ((st = run_passes(b, "always-inline")) != CC_OK ||
      (st = lower_all(b)) != CC_OK || (st = finish_regions(b)) != CC_OK ||
      (st = verify(b)) != CC_OK)
    return st;
  if (inject && strcmp(inject, "region") == 0 && cc_region_used)
    raise(SIGSEGV);
  stage_done(b, "lower");
  dump(b->m, "lowered");
  if (!cc_vectorize_wanted())
    cc_forbid_loop_vectorization(b->m);
  if (bounds_wanted(b) && !b->opts.opt_disable) {
    /* Inlining and the loop forms first, so that the checks sit in the
     * work-item loops with their limits hoisted, where cc_bounds_hoist
     * can lift them. */
    cc_bounds_mark_invariant(b->m);
    st = run_passes(b, "always-inline,cgscc(inline),function(sroa,"
                       "early-cse<memssa>,instcombine<no-verify-fixpoint>,"
                       "simplifycfg,loop-mssa(licm),loop(loop-rotate),"
                       "loop-mssa(licm))");
    if (st != CC_OK)
      return st;
    cc_bounds_hoist(b->m);
    dump(b->m, "lifted");
  } else if (cc_region_used && !b->opts.opt_disable) {
    /* The work-item builtins inlined into region mode's work-group
     * functions, whose set-once group fields are then forwarded. */
    if ((st = run_passes(b, "always-inline")) != CC_OK)
      return st;
    cc_region_forward_records(b->m);
  }
  /* Image kernels: their work-item loops versioned on the images'
   * format (SKEIN_IMAGE_VERSIONS=0 keeps one loop, for comparisons). */
  const char *iv = getenv("SKEIN_IMAGE_VERSIONS");
  bool versions = !b->opts.opt_disable && !(iv && *iv == '0') &&
                  LLVMGetNamedFunction(b->m, "__skein_image_key_f");
  /* SROA first: the inlined kernels' parameter slots go, so that the
   * image pass sees their images as the entry block's values. */
  if (versions && (st = run_passes(b, "function(sroa)")) != CC_OK)
    return st;
  cc_image_version(b->m, versions);
  dump(b->m, "imaged");
  st = run_passes(b, b->opts.opt_disable ? "default<O0>" : "default<O3>");
  if (st != CC_OK)
    return st;
  stage_done(b, "optimize");
  estimate_private(b);
  dump(b->m, "optimized");
  /* SKEIN_CPU naming a CPU with features this one lacks: the code is
   * there to dump (SKEIN_DUMP=optimized), but would stop on an illegal
   * instruction, so the build fails here, with the reason. */
  const cc_target *t = cc_target_get();
  if (!t->runnable) {
    cc_log_printf(&b->log, "error: %s\n", t->problem);
    return CC_BUILD_FAILED;
  }
  if (t->problem[0])   /* an unknown SKEIN_CPU: the host's CPU was used */
    cc_log_printf(&b->log, "warning: %s; compiled for %s\n", t->problem,
                  t->cpu);
  st = jit(b);
  stage_done(b, "jit");
  return st;
}

/* Frees everything the build still owns and hands over the results. */
static cc_status build_end(build *b, cc_status st, cc_program **out,
                           char **log) {
  if (b->m)
    LLVMDisposeModule(b->m);
  if (b->tsc)
    LLVMOrcDisposeThreadSafeContext(b->tsc);
  if (b->tm)
    LLVMDisposeTargetMachine(b->tm);
  free(b->kernels);
  free(b->wgs);
  cc_options_free(&b->opts);
  if (st == CC_OK && b->log.oom)
    st = CC_OUT_OF_MEMORY;
  if (st != CC_OK && b->p) {
    cc_program_destroy(b->p);
    b->p = NULL;
  }
  *out = b->p;
  if (log)
    *log = b->log.buf;
  else
    free(b->log.buf);
  return st;
}

/* The start every build shares, once its options are parsed (st): the
 * program object and the clock. */
static cc_status build_start(build *b, cc_status st) {
  if (st == CC_OK && !(b->p = calloc(1, sizeof(*b->p))))
    st = CC_OUT_OF_MEMORY;
  if (st == CC_OK)
    build_begin(b);
  return st;
}

/* The front end: source (and embedded headers) to module. */
static cc_status frontend(build *b, const char *source, size_t length,
                          const cc_header *headers, unsigned num_headers) {
  /* -g: the source as a file gdb can show (debug_info.c). */
  char *named = b->opts.debug ? cc_debug_source(source, length,
                                                b->opts.debug_source,
                                                &length)
                              : NULL;
  source = named ? named : source;
  if (!cc_clang_compile(b->ctx, source, length,
                        (const char *const *)b->opts.argv, b->opts.argc,
                        headers, num_headers, &b->m, &b->log,
                        cc_cache_capturing ? &b->p->cache_deps : NULL,
                        &b->p->cache_deps_size)) {
    free(named);
    return CC_BUILD_FAILED;
  }
  free(named);
  stage_done(b, "frontend");
  dump(b->m, "frontend");
  return CC_OK;
}

/* The SPIR-V front end: the module specialised with the n values,
 * validated and translated in child processes (spirv_translate.c), and
 * the bitcode read into b's context as a module of the host target, as
 * the OpenCL C front end makes them. The translator names OpenCL C's
 * builtins as Clang mangles them and keeps Clang's address spaces
 * (global 1, constant 2, local 3, generic 4), so the rest of the
 * pipeline takes the module as it is. */
static cc_status frontend_il(build *b, const cc_il_module *m,
                             const cc_il_spec_value *values, unsigned n,
                             const cc_device_caps *caps) {
  if (!cc_il_supported(m, caps, &b->log))
    return CC_BUILD_FAILED;
  uint32_t *words = cc_il_specialize(m, values, n);
  if (!words)
    return CC_OUT_OF_MEMORY;
  unsigned char *bc = NULL;
  size_t size = 0;
  cc_status st = cc_il_translate(words, m->num_words, &bc, &size, &b->log);
  free(words);
  if (st != CC_OK)
    return st;
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
      (const char *)bc, size, "spirv");
  free(bc);
  if (LLVMParseBitcodeInContext2(b->ctx, buf, &b->m)) {
    b->m = NULL;
    cc_log_printf(&b->log, "error: the SPIR-V translator's output is not "
                  "bitcode LLVM %s reads\n", SKEIN_LLVM_VERSION);
    st = CC_BUILD_FAILED;
  }
  LLVMDisposeMemoryBuffer(buf);
  if (st != CC_OK)
    return st;
  /* The translator names the module after its input's temporary path:
   * a fixed name keeps the compiled object's bytes (CL_PROGRAM_BINARIES,
   * and so the key of a link in the program cache) the same every time. */
  LLVMSetModuleIdentifier(b->m, "spirv", 5);
  LLVMSetSourceFileName(b->m, "spirv", 5);
  cc_il_rename_builtins(b->m);
  /* The host's triple and layout now, so that linking with OpenCL C
   * objects sees one target. */
  LLVMTargetMachineRef tm = cc_host_target_machine(&b->log, &b->avx512);
  if (!tm)
    return CC_BUILD_FAILED;
  b->tm = tm;
  set_target(b, b->m);
  b->tm = NULL;
  LLVMDisposeTargetMachine(tm);
  stage_done(b, "frontend");
  dump(b->m, "frontend");
  return CC_OK;
}

/* Makes b->m's bitcode, with options, the program's binary. */
static cc_status pack(build *b, const char *options) {
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(b->m);
  free(b->p->binary);
  b->p->binary = cc_binary_pack(LLVMGetBufferStart(bc), LLVMGetBufferSize(bc),
                                options, &b->p->binary_size);
  LLVMDisposeMemoryBuffer(bc);
  free(b->p->options);
  b->p->options = strdup(options ? options : "");
  return b->p->binary && b->p->options ? CC_OK : CC_OUT_OF_MEMORY;
}

/* The end of every link that makes an executable: the linked module
 * (before builtins) is the binary, then the back end. */
static cc_status finish_executable(build *b, const char *options) {
  b->p->kind = CC_KIND_EXECUTABLE;
  cc_status st = pack(b, options);
  return st == CC_OK ? backend(b) : st;
}

/* clBuildProgram: compile and link of one unit, whose link is only the
 * binary (the front end's module with the build options). */
static cc_status build_source(const char *source, size_t length,
                              const char *options, const cc_device_caps *caps,
                              cc_program **out, char **log) {
  build b;
  memset(&b, 0, sizeof(b));
  cc_status st = build_start(&b, cc_options_parse(options, caps, &b.opts,
                                                  &b.log));
  if (st == CC_OK) {
    st = frontend(&b, source, length, NULL, 0);
  }
  if (st == CC_OK)
    st = finish_executable(&b, options);
  return build_end(&b, st, out, log);
}

/* clCompileProgram: the front end's module, marked as an object, is the
 * whole result. */
static cc_status compile_source(const char *source, size_t length,
                                const char *options, const cc_header *headers,
                                unsigned num_headers,
                                const cc_device_caps *caps, cc_program **out,
                                char **log) {
  build b;
  memset(&b, 0, sizeof(b));
  cc_status st = build_start(&b, cc_options_parse(options, caps, &b.opts,
                                                  &b.log));
  if (st == CC_OK) {
    st = frontend(&b, source, length, headers, num_headers);
  }
  if (st == CC_OK) {
    cc_unit_set_kind(b.m, CC_KIND_OBJECT, false);
    b.p->kind = CC_KIND_OBJECT;
    st = pack(&b, options);
  }
  return build_end(&b, st, out, log);
}

/* clBuildProgram and clCompileProgram of a SPIR-V module: the same as
 * for source, with the SPIR-V front end. */
static cc_status build_il(const cc_il_module *m,
                          const cc_il_spec_value *values, unsigned n,
                          const char *options, const cc_device_caps *caps,
                          bool object, cc_program **out, char **log) {
  build b;
  memset(&b, 0, sizeof(b));
  cc_status st = build_start(&b, cc_options_parse(options, caps, &b.opts,
                                                  &b.log));
  if (st == CC_OK)
    st = frontend_il(&b, m, values, n, caps);
  if (st == CC_OK && object) {
    cc_unit_set_kind(b.m, CC_KIND_OBJECT, false);
    b.p->kind = CC_KIND_OBJECT;
    st = pack(&b, options);
  } else if (st == CC_OK) {
    st = finish_executable(&b, options);
  }
  return build_end(&b, st, out, log);
}

/* Parses the bitcode of container bin into a new module *m of b's
 * context; *stored receives its options (pointing into bin). */
static cc_status parse_unit(build *b, const unsigned char *bin, size_t size,
                            LLVMModuleRef *m, const char **stored) {
  const unsigned char *bc;
  size_t bc_size;
  if (!cc_binary_unpack(bin, size, &bc, &bc_size, stored, &b->log))
    return CC_INVALID_BINARY;
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
      (const char *)bc, bc_size, "binary");
  cc_status st = CC_OK;
  if (LLVMParseBitcodeInContext2(b->ctx, buf, m)) {
    *m = NULL;
    cc_log_printf(&b->log, "error: invalid program binary: bad bitcode\n");
    st = CC_INVALID_BINARY;
  }
  LLVMDisposeMemoryBuffer(buf);
  return st;
}

/* Parses every input of a link and joins them into b->m; *merged
 * collects their options. Math link options change objects, and
 * libraries made with -enable-link-options. */
static cc_status link_units(build *b, const unsigned char *const *bins,
                            const size_t *sizes, unsigned n,
                            const cc_link_options *lo, char **merged) {
  for (unsigned i = 0; i < n; i++) {
    LLVMModuleRef m;
    const char *stored;
    cc_status st = parse_unit(b, bins[i], sizes[i], &m, &stored);
    if (st != CC_OK)
      return st;
    bool unit_lo;
    cc_kind kind = cc_unit_take_kind(m, &unit_lo);
    if (kind == CC_KIND_EXECUTABLE) {
      cc_log_printf(&b->log, "error: input program %u is not a compiled "
                    "object or library\n", i + 1);
      st = CC_BUILD_FAILED;
    } else if (!cc_unit_merge_options(merged, stored)) {
      st = CC_OUT_OF_MEMORY;
    }
    if (st != CC_OK) {
      LLVMDisposeModule(m);
      return st;
    }
    if (!lo->library && (kind == CC_KIND_OBJECT || unit_lo))
      cc_unit_apply_math(m, lo);
    if (!b->m)
      b->m = m;
    else if (!cc_unit_link(b->m, m, i + 1, &b->log))
      return CC_BUILD_FAILED;
  }
  stage_done(b, "link-units");
  return CC_OK;
}

/* clLinkProgram: n objects or libraries to a library or an executable. */
static cc_status link_programs(const unsigned char *const *bins,
                               const size_t *sizes, unsigned n,
                               const char *options,
                               const cc_device_caps *caps, cc_program **out,
                               char **log) {
  build b;
  memset(&b, 0, sizeof(b));
  cc_link_options lo;
  char *merged = NULL;
  cc_status st = build_start(&b, cc_link_options_parse(options, &lo, &b.log));
  if (st == CC_OK) {
    st = link_units(&b, bins, sizes, n, &lo, &merged);
  }
  /* What the back end needs of the units' options (argument names,
   * -cl-opt-disable). */
  if (st == CC_OK)
    st = cc_options_parse(merged, caps, &b.opts, &b.log);
  if (st == CC_OK && lo.library) {
    cc_unit_set_kind(b.m, CC_KIND_LIBRARY, lo.enable_options);
    b.p->kind = CC_KIND_LIBRARY;
    st = pack(&b, merged);
  } else if (st == CC_OK) {
    st = finish_executable(&b, merged);
  }
  free(merged);
  return build_end(&b, st, out, log);
}

/* Parses the bitcode of a validated container into the build; a binary
 * program keeps its container as it came. */
static cc_status load_binary(build *b, const unsigned char *binary,
                             size_t size, const char **stored) {
  cc_status st = parse_unit(b, binary, size, &b->m, stored);
  if (st != CC_OK)
    return st;
  if (!(b->p->binary = malloc(size)) || !(b->p->options = strdup(*stored)))
    return CC_OUT_OF_MEMORY;
  memcpy(b->p->binary, binary, size);
  b->p->binary_size = size;
  /* The stored options decide what the front end saw (argument names). */
  cc_options old;
  st = cc_options_parse(*stored, NULL, &old, &b->log);
  b->opts.kernel_arg_info |= old.kernel_arg_info;
  b->opts.opt_disable |= old.opt_disable;
  b->opts.bounds_check |= old.bounds_check;
  cc_options_free(&old);
  return st == CC_INVALID_OPTIONS ? CC_INVALID_BINARY : st;
}

/* An executable binary goes to the back end; a compiled object or
 * library is only validated (load_only) or linked alone into an
 * executable. */
static cc_status build_binary(const unsigned char *binary, size_t size,
                              const char *options, const cc_device_caps *caps,
                              bool load_only, cc_program **out, char **log) {
  build b;
  memset(&b, 0, sizeof(b));
  const char *stored = NULL;
  char *merged = NULL;
  cc_status st = build_start(&b, cc_options_parse(options, caps, &b.opts,
                                                  &b.log));
  if (st == CC_OK) {
    st = load_binary(&b, binary, size, &stored);
  }
  if (st == CC_OK) {
    bool unit_lo;
    b.p->kind = cc_unit_take_kind(b.m, &unit_lo);
    if (b.p->kind == CC_KIND_EXECUTABLE)
      st = backend(&b);
    else if (!load_only)
      st = cc_unit_merge_options(&merged, stored)
               ? finish_executable(&b, merged)
               : CC_OUT_OF_MEMORY;
  }
  free(merged);
  return build_end(&b, st, out, log);
}

/* One build, as run by the crash guard. */
typedef struct build_request {
  enum { REQ_SOURCE, REQ_BINARY, REQ_LOAD, REQ_COMPILE, REQ_LINK,
         REQ_IL_BUILD, REQ_IL_COMPILE } what;
  const char *source;
  size_t length;
  const unsigned char *binary;
  size_t size;
  const cc_header *headers;              /* REQ_COMPILE */
  unsigned num_headers;
  const unsigned char *const *binaries;  /* REQ_LINK */
  const size_t *sizes;
  unsigned n;
  const cc_il_module *il;                /* REQ_IL_*, with n values */
  const cc_il_spec_value *values;
  const char *options;
  const cc_device_caps *caps;
  cc_program *out;
  char *log;
  cc_status st;
} build_request;

static void run_request(void *arg) {
  build_request *r = arg;
  switch (r->what) {
  case REQ_SOURCE:
    r->st = build_source(r->source, r->length, r->options, r->caps, &r->out,
                         &r->log);
    break;
  case REQ_BINARY:
  case REQ_LOAD:
    r->st = build_binary(r->binary, r->size, r->options, r->caps,
                         r->what == REQ_LOAD, &r->out, &r->log);
    break;
  case REQ_COMPILE:
    r->st = compile_source(r->source, r->length, r->options, r->headers,
                           r->num_headers, r->caps, &r->out, &r->log);
    break;
  case REQ_LINK:
    r->st = link_programs(r->binaries, r->sizes, r->n, r->options, r->caps,
                          &r->out, &r->log);
    break;
  case REQ_IL_BUILD:
  case REQ_IL_COMPILE:
    r->st = build_il(r->il, r->values, r->n, r->options, r->caps,
                     r->what == REQ_IL_COMPILE, &r->out, &r->log);
    break;
  }
}

/* Runs r under LLVM's crash recovery: an LLVM crash (a bug in LLVM, or
 * IR it rejects the hard way) becomes a failed build instead of killing
 * the host. What the crashed build held is leaked on purpose: freeing
 * state a crash left behind could crash again. */
/* note followed by log (both may be empty), in a new malloc'd string;
 * log is freed. On allocation failure, log as it was. */
static char *prepend(char *log, const char *note) {
  size_t a = strlen(note), b = log ? strlen(log) : 0;
  char *s = malloc(a + b + 1);
  if (!s)
    return log;
  memcpy(s, note, a);
  memcpy(s + a, log ? log : "", b + 1);
  free(log);
  return s;
}

static cc_status guarded(build_request *r, cc_program **out, char **log) {
  cc_region_used = false;
  bool ok = cc_run_crash_safe(run_request, r);
  if (!ok && cc_region_used) {
    /* Region mode rewrites kernels the most, and its code is what LLVM
     * optimises hardest: if the build crashed after it was used, build
     * again without it (fiber and plain loop mode) rather than fail the
     * program. (The crashed attempt's memory is lost.) */
    cc_region_off = true;
    cc_region_used = false;
    r->out = NULL;
    r->log = NULL;
    ok = cc_run_crash_safe(run_request, r);
    cc_region_off = false;
    if (ok)
      r->log = prepend(r->log, "note: LLVM crashed on this program's "
                       "region-mode code; it was built without region "
                       "mode\n");
  }
  if (!ok) {
    *out = NULL;
    if (log) {
      const char *why = cc_fatal_error_reason();
      char text[512];
      snprintf(text, sizeof text,
               "error: internal compiler error: LLVM %s%s while building "
               "this program; it was not built\n",
               why ? "stopped with a fatal error: " : "crashed",
               why ? why : "");
      *log = strdup(text);
    }
    return CC_BUILD_FAILED;
  }
  *out = r->out;
  if (log)
    *log = r->log;
  else
    free(r->log);
  return r->st;
}

/* The disk cache's key for r: its kind and inputs (cc_cache_key_make
 * adds the options, caps, environment and target). */
static bool request_key(const build_request *r, cc_cache_key *key) {
  static const cc_cache_request kinds[] = {
      [REQ_SOURCE] = CC_CACHE_BUILD_SOURCE,
      [REQ_BINARY] = CC_CACHE_BUILD_BINARY,
      [REQ_LOAD] = CC_CACHE_LOAD_BINARY,
      [REQ_COMPILE] = CC_CACHE_COMPILE_SOURCE,
      [REQ_LINK] = CC_CACHE_LINK,
      [REQ_IL_BUILD] = CC_CACHE_BUILD_IL,
      [REQ_IL_COMPILE] = CC_CACHE_COMPILE_IL};
  unsigned n = 0, max = 2 + 2 * r->num_headers + r->n;
  cc_cache_part *parts = calloc(max, sizeof(*parts));
  if (!parts)
    return false;
  switch (r->what) {
  case REQ_SOURCE:
  case REQ_COMPILE:
    parts[n++] = (cc_cache_part){r->source, r->length};
    for (unsigned i = 0; i < r->num_headers; i++) {
      const cc_header *h = &r->headers[i];
      parts[n++] = (cc_cache_part){h->name, strlen(h->name)};
      parts[n++] = (cc_cache_part){h->text, h->length};
    }
    break;
  case REQ_BINARY:
  case REQ_LOAD:
    parts[n++] = (cc_cache_part){r->binary, r->size};
    break;
  case REQ_LINK:
    for (unsigned i = 0; i < r->n; i++)
      parts[n++] = (cc_cache_part){r->binaries[i], r->sizes[i]};
    break;
  case REQ_IL_BUILD:
  case REQ_IL_COMPILE:
    parts[n++] = (cc_cache_part){r->il->words,
                                 r->il->num_words * sizeof(uint32_t)};
    parts[n++] = (cc_cache_part){r->values, r->n * sizeof(*r->values)};
    break;
  }
  bool ok = cc_cache_key_make(kinds[r->what], parts, n, r->options, r->caps,
                              key);
  free(parts);
  return ok;
}

/* The cache's lookup: its key, and the entry if there is one. It runs
 * under the crash guard as a build does: LLVM (the key's host queries, a
 * hit's JIT) reports exhausted memory by throwing, which outside the
 * guard would end the host process. */
typedef struct cache_lookup {
  build_request *r;
  bool want_log;
  bool use;            /* the request has a key: store what is built */
  cc_cache_key key;
  cc_program *out;     /* a hit */
  char *log;           /* its log */
} cache_lookup;

static void run_lookup(void *arg) {
  cache_lookup *l = arg;
  l->use = cc_cache_enabled() && request_key(l->r, &l->key);
  if (l->use)
    l->out = cc_cache_load(&l->key, l->want_log ? &l->log : NULL);
}

/* Runs r through the disk cache: a hit loads the stored program (its
 * machine code and the original build's log); a miss builds, keeping
 * what the entry needs, and stores the result if the build succeeded.
 * The cache never changes a build's outcome. */
static cc_status cached(build_request *r, cc_program **out, char **log) {
  cache_lookup l = {.r = r, .want_log = log != NULL};
  if (!cc_run_crash_safe(run_lookup, &l))
    l.use = false;   /* what the lookup held is leaked, as for a build */
  else if (l.out) {
    *out = l.out;
    if (log)
      *log = l.log;
    return CC_OK;
  }
  cc_cache_key key = l.key;
  bool use = l.use;
  cc_cache_capturing = use;
  cc_status st = guarded(r, out, log);
  cc_cache_capturing = false;
  if (use && st == CC_OK)
    cc_cache_store(&key, *out, log ? *log : NULL);
  if (st == CC_OK) {   /* only the cache wanted these */
    free((*out)->cache_object);
    free((*out)->cache_deps);
    free((*out)->cache_symbols);
    (*out)->cache_object = NULL;
    (*out)->cache_deps = (*out)->cache_symbols = NULL;
  }
  return st;
}

cc_status cc_build_source(const char *source, size_t length,
                          const char *options, const cc_device_caps *caps,
                          cc_program **out, char **log) {
  build_request r = {.what = REQ_SOURCE, .source = source, .length = length,
                     .options = options, .caps = caps};
  return cached(&r, out, log);
}

cc_status cc_build_binary(const unsigned char *binary, size_t size,
                          const char *options, const cc_device_caps *caps,
                          cc_program **out, char **log) {
  build_request r = {.what = REQ_BINARY, .binary = binary, .size = size,
                     .options = options, .caps = caps};
  return cached(&r, out, log);
}

cc_status cc_load_binary(const unsigned char *binary, size_t size,
                         const cc_device_caps *caps, cc_program **out,
                         char **log) {
  build_request r = {.what = REQ_LOAD, .binary = binary, .size = size,
                     .caps = caps};
  return cached(&r, out, log);
}

cc_status cc_compile_source(const char *source, size_t length,
                            const char *options, const cc_header *headers,
                            unsigned n, const cc_device_caps *caps,
                            cc_program **out, char **log) {
  build_request r = {.what = REQ_COMPILE, .source = source, .length = length,
                     .headers = headers, .num_headers = n, .options = options,
                     .caps = caps};
  return cached(&r, out, log);
}

cc_status cc_link(const unsigned char *const *binaries, const size_t *sizes,
                  unsigned n, const char *options,
                  const cc_device_caps *caps, cc_program **out, char **log) {
  build_request r = {.what = REQ_LINK, .binaries = binaries, .sizes = sizes,
                     .n = n, .options = options, .caps = caps};
  return cached(&r, out, log);
}

cc_status cc_build_il(const cc_il_module *m, const cc_il_spec_value *values,
                      unsigned n, const char *options,
                      const cc_device_caps *caps, cc_program **out,
                      char **log) {
  build_request r = {.what = REQ_IL_BUILD, .il = m, .values = values,
                     .n = n, .options = options, .caps = caps};
  return cached(&r, out, log);
}

cc_status cc_compile_il(const cc_il_module *m,
                        const cc_il_spec_value *values, unsigned n,
                        const char *options, const cc_device_caps *caps,
                        cc_program **out, char **log) {
  build_request r = {.what = REQ_IL_COMPILE, .il = m, .values = values,
                     .n = n, .options = options, .caps = caps};
  return cached(&r, out, log);
}

cc_kind cc_program_kind(const cc_program *p) {
  return p->kind;
}

const char *cc_program_options(const cc_program *p) {
  return p->options ? p->options : "";
}

const unsigned char *cc_program_binary(const cc_program *p, size_t *size) {
  *size = p->binary_size;
  return p->binary;
}

size_t cc_program_global_variable_size(const cc_program *p) {
  return p->global_var_size;
}

unsigned cc_program_num_kernels(const cc_program *p) {
  return p->num_visible;
}

const cc_kernel_info *cc_program_kernel(const cc_program *p, unsigned i) {
  return i < p->num_visible ? &p->kernels[i] : NULL;
}

const cc_kernel_info *cc_program_find_kernel(const cc_program *p,
                                             const char *name) {
  for (unsigned k = 0; k < p->num_visible; k++)
    if (strcmp(p->kernels[k].name, name) == 0)
      return &p->kernels[k];
  return NULL;
}

const cc_kernel_info *cc_program_find_block_kernel(const cc_program *p,
                                                   const char *name) {
  for (unsigned k = p->num_visible; k < p->num_kernels; k++)
    if (strcmp(p->kernels[k].name, name) == 0)
      return &p->kernels[k];
  return NULL;
}

void cc_program_destroy(cc_program *p) {
  if (!p)
    return;
  if (p->jit)
    LLVMConsumeError(LLVMOrcDisposeLLJIT(p->jit));
  for (unsigned k = 0; k < p->num_kernels; k++)
    cc_kernel_info_free(&p->kernels[k]);
  free(p->kernels);
  free(p->binary);
  free(p->options);
  free(p->cache_object);
  free(p->cache_deps);
  free(p->cache_symbols);
  free(p);
}
