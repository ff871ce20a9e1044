/* This file contains the build pipeline: front end (or binary) to module,
 * builtin linking, work-group function generation, optimisation for the
 * host CPU and JIT compilation, and the cc_program that owns the result.
 * Each program gets its own LLJIT instance: dropping a program frees all
 * its code at once, and concurrent builds share no LLVM state. */
#define _GNU_SOURCE   /* sched_getaffinity */
#include "builtin_families.h"
#include "jit_listeners.h" /* gdb and perf see the code */
#include "compiler_internal.h"
#include "dot_vnni.h"
#include "math_lib.h"   /* libsleef calls of the math builtins */
#include "printf_lower.h" /* printf calls become buffer records */
#include "program_cache.h" /* builds served from and kept on disk */
#include "spirv_internal.h" /* SPIR-V programs */
#include "split_module.h"   /* a module per kernel, built in parallel */

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
  /* Remarks exist only when SKEIN_LLVM_OPTIONS asked for them
   * (target.c): the developer reads them on stderr. */
  if (s == LLVMDSRemark && getenv("SKEIN_LLVM_OPTIONS")) {
    char *text = LLVMGetDiagInfoDescription(di);
    fprintf(stderr, "skein: llvm remark: %s\n", text);
    LLVMDisposeMessage(text);
  }
  if (!log || s == LLVMDSRemark || s == LLVMDSNote)
    return;   /* after the build, or not build-log material */
  char *text = LLVMGetDiagInfoDescription(di);
  /* Skein's own unroll-and-jam hint (unroll_jam.cpp) is a request LLVM
   * may decline (a dependence between work-items' inner loops): not the
   * program's business. */
  if (s == LLVMDSWarning && strstr(text, "loop not unroll-and-jammed")) {
    LLVMDisposeMessage(text);
    return;
  }
  /* An error (an inline assembly statement the assembler rejects, say)
   * leaves the code incomplete: the build fails (build_end). */
  log->llvm_errors += s == LLVMDSError;
  cc_log_printf(log, "%s: %s\n", s == LLVMDSError ? "error" : "warning",
                text);
  LLVMDisposeMessage(text);
}

static void build_begin(build *b) {
  cc_llvm_init();
  cc_init_asm_parser();
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
 * (after lowering, before the module is verified and optimised). And,
 * with keep_chains, chains of widened half mads made to stay in float
 * (half_mad_chains.cpp) on the SSA values SROA leaves: here, before the
 * regions are cut, so that region mode's slots across barriers carry
 * the same float values as the other modes' registers. */
static cc_status finish_regions(build *b, bool keep_chains) {
  bool any = false;
  for (unsigned k = 0; k < b->p->num_kernels; k++)
    any |= b->wgs[k].region_body != NULL;
  /* Private variables in registers first: only what lives across a
   * barrier should go to the per-work-item context. */
  cc_status st =
      any || keep_chains ? run_passes(b, "function(sroa)") : CC_OK;
  if (st != CC_OK)
    return st;
  if (keep_chains)
    cc_keep_half_mad_chains(b->m);
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
static size_t private_size(LLVMModuleRef m, cc_wg *wg) {
  size_t total = 0;
  if (wg->fiber)
    cc_wg_set_stack_size(m, wg, &total);
  else
    total = cc_alloca_bytes(m, wg->fn);
  return total;
}

static void estimate_private(build *b) {
  for (unsigned k = 0; k < b->p->num_kernels; k++)
    b->p->kernels[k].private_mem_size = private_size(b->m, &b->wgs[k]);
}

/* The JIT's session errors (a relocation out of range, a symbol no
 * object defines) come to the reporter, not with the lookup's error,
 * which only says that materialising failed; LLVM's default reporter
 * prints them on the application's stderr. The first one of a program
 * is kept, for the build log (jit_error_to_log). */
static pthread_mutex_t jit_error_lock = PTHREAD_MUTEX_INITIALIZER;

static void report_jit_error(void *ctx, LLVMErrorRef err) {
  cc_program *p = ctx;
  char *msg = LLVMGetErrorMessage(err);
  pthread_mutex_lock(&jit_error_lock);
  if (!p->jit_error[0])
    snprintf(p->jit_error, sizeof p->jit_error, "%s", msg);
  pthread_mutex_unlock(&jit_error_lock);
  LLVMDisposeErrorMessage(msg);
}

void cc_jit_error_to_log(cc_program *p, cc_log *log) {
  pthread_mutex_lock(&jit_error_lock);
  if (p->jit_error[0])
    cc_log_printf(log, "error: JIT: %s\n", p->jit_error);
  pthread_mutex_unlock(&jit_error_lock);
}

/* A new JIT for program p (p->jit); concurrent: it compiles the modules
 * of a split build on the threads that look their kernels up. */
static LLVMErrorRef jit_create(cc_program *p, bool concurrent) {
  LLVMOrcJITTargetMachineBuilderRef jtmb;
  LLVMErrorRef err = LLVMOrcJITTargetMachineBuilderDetectHost(&jtmb);
  if (err)
    return err;
  LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(jb, jtmb);
  cc_jit_listeners_attach(jb);   /* gdb, perf (jit_listeners.cpp) */
  if (concurrent && !cc_jit_builder_concurrent(jb)) {
    LLVMOrcDisposeLLJITBuilder(jb);
    return LLVMCreateStringError("no concurrent JIT");
  }
  err = LLVMOrcCreateLLJIT(&p->jit, jb);
  if (err)
    return err;
  LLVMOrcExecutionSessionSetErrorReporter(
      LLVMOrcLLJITGetExecutionSession(p->jit), report_jit_error, p);
  return cc_math_define_runtime(p->jit);
}

LLVMErrorRef cc_jit_create(cc_program *p) {
  return jit_create(p, false);
}

/* Frees the object files kept for the disk cache. */
static void free_cache_objects(cc_program *p) {
  for (unsigned i = 0; i < p->num_cache_objects; i++)
    free(p->cache_objects[i]);
  free(p->cache_objects);
  free(p->cache_object_sizes);
  p->cache_objects = NULL;
  p->cache_object_sizes = NULL;
  p->num_cache_objects = 0;
}

/* Makes room for the n object files of a build the disk cache will
 * keep: one per part, the whole module being one part unless split. */
static cc_status expect_cache_objects(cc_program *p, unsigned n) {
  p->cache_objects = calloc(n, sizeof(*p->cache_objects));
  p->cache_object_sizes = calloc(n, sizeof(*p->cache_object_sizes));
  if (!p->cache_objects || !p->cache_object_sizes)
    return CC_OUT_OF_MEMORY;
  p->num_cache_objects = n;
  return CC_OK;
}

/* The JIT's object transform, for a build the disk cache will keep: a
 * copy of each object file the JIT's code generator made, in the slot of
 * its part (split builds generate them on several threads at once, in
 * no fixed order; the entry lists them in part order). */
static LLVMErrorRef keep_object(void *ctx, LLVMMemoryBufferRef *obj) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  cc_program *p = ctx;
  int part = cc_part_of_object(*obj);
  unsigned i = part < 0 ? 0 : (unsigned)part;
  size_t size = LLVMGetBufferSize(*obj);
  unsigned char *copy = malloc(size ? size : 1);
  if (copy)
    memcpy(copy, LLVMGetBufferStart(*obj), size);
  pthread_mutex_lock(&lock);
  if (!copy || i >= p->num_cache_objects || p->cache_objects[i]) {
    /* no memory, or an object we did not expect: no entry */
    p->cache_objects_failed = true;
    free(copy);
  } else {
    p->cache_objects[i] = copy;
    p->cache_object_sizes[i] = size;
  }
  pthread_mutex_unlock(&lock);
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
  LLVMErrorRef err = cc_jit_create(b->p);
  if (err)
    return llvm_failed(b, err, "JIT creation");
  stage_done(b, "jit-create");
  if ((err = cc_math_define_symbols(b->p->jit, b->m)))
    return llvm_failed(b, err, "JIT");
  if (cc_cache_capturing) {
    if (keep_symbols(b) != CC_OK || expect_cache_objects(b->p, 1) != CC_OK)
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
    if ((err = LLVMOrcLLJITLookup(b->p->jit, &addr, name))) {
      cc_jit_error_to_log(b->p, &b->log);
      return llvm_failed(b, err, "JIT");
    }
    b->p->kernels[k].wg = (skein_wg_fn)(uintptr_t)addr;
  }
  /* The context lives on in the JIT; the log does not. */
  LLVMContextSetDiagnosticHandler(b->ctx, on_diagnostic, NULL);
  return CC_OK;
}

/* ---- The split build: a module per kernel, compiled in parallel or
 * at first use ----
 *
 * After lowering, the module is split per kernel (split_module.cpp), each
 * part in an LLVM context of its own, and every part joins one JIT
 * unoptimised: the JIT's IR transform optimises a part (default<O3>) and
 * its code generator compiles it on whichever thread first looks the
 * part's kernel up. Then either (eager) the build looks every kernel up
 * on up to as many threads as the process may use, or (lazy) the build
 * ends there: the first clCreateKernel of a kernel compiles it, and one
 * background thread compiles the others meanwhile and then stores the
 * disk cache's entry. docs/architecture.md ("Split builds") says when
 * each is used. */

/* Threads the process lets builds use at once: SKEIN_BUILD_THREADS, else
 * the CPUs this process may run on. Each build has its own thread and
 * borrows the others from spare_threads, so that concurrent builds never
 * run more compile threads than that in all. */
static unsigned build_threads(void) {
  const char *e = getenv("SKEIN_BUILD_THREADS");
  if (e && *e) {
    long v = strtol(e, NULL, 10);
    return v < 1 ? 1 : v > 256 ? 256 : (unsigned)v;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0)
    return 1;
  int n = CPU_COUNT(&set);
  return n < 1 ? 1 : (unsigned)n;
}

static atomic_int spare_threads;   /* build_threads() - 1, at first use */
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;

static void spare_init(void) {
  atomic_store(&spare_threads, (int)build_threads() - 1);
}

/* Takes up to want spare threads; how many it got. */
static unsigned take_threads(unsigned want) {
  pthread_once(&spare_once, spare_init);
  int have = atomic_load(&spare_threads);
  while (want && have > 0) {
    int take = have < (int)want ? have : (int)want;
    if (atomic_compare_exchange_weak(&spare_threads, &have, have - take))
      return (unsigned)take;
  }
  return 0;
}

static void give_threads(unsigned n) {
  atomic_fetch_add(&spare_threads, (int)n);
}

enum { PART_WAITING, PART_READY, PART_FAILED };

/* One kernel's part of a split build; it lives as long as the program. */
typedef struct part {
  cc_program *p;
  struct cc_lazy *lz;
  unsigned k;                  /* its kernel */
  char *fn_name, *body_name;   /* the kernel's cc_wg functions */
  cc_wg wg;                    /* the kernel's mode (fiber or not) */
  size_t weight;               /* instructions: big parts start first */
  pthread_mutex_t lock;        /* held while its kernel is looked up */
  atomic_int state;            /* PART_* */
  cc_log log;                  /* its diagnostics (under lz->diag_lock) */
  unsigned errors;             /* error diagnostics among them */
  bool crashed;                /* an LLVM crash in its compile */
  char reason[256];            /* LLVM's fatal error, if that was it */
} part;

/* The split build's state, kept by the program (cc_program.lazy). */
typedef struct cc_lazy {
  unsigned n;
  part *parts;
  unsigned *order;             /* biggest first */
  bool opt_disable, vectorize; /* the build's passes */
  atomic_bool broken;          /* a compile crashed: the JIT's state is
                                  unknown, no more lookups, and it is
                                  leaked, not disposed */
  pthread_mutex_t diag_lock;
  /* lazy: the background thread, and the cache entry it stores */
  bool lazy;
  bool bg_running;
  pthread_t bg;
  atomic_bool stop;
  bool capture;
  cc_cache_key key;
  char *log;
} cc_lazy;

/* LLVM's diagnostics of a part's context: the part's log (which joins
 * the build's in part order when the build compiles the part); any
 * thread may compile any part. */
static void part_diagnostic(LLVMDiagnosticInfoRef di, void *ctx) {
  part *pt = ctx;
  pthread_mutex_lock(&pt->lz->diag_lock);
  on_diagnostic(di, &pt->log);
  /* An error leaves the code incomplete: the kernel fails. */
  pt->errors += LLVMGetDiagInfoSeverity(di) == LLVMDSError;
  pthread_mutex_unlock(&pt->lz->diag_lock);
}

/* The JIT's IR transform: a part's passes, with a target machine of its
 * own (one is not thread-safe), then its kernel's private memory. */
static LLVMErrorRef optimize_part(void *ctx, LLVMModuleRef m) {
  cc_lazy *lz = ctx;
  size_t len;
  const char *id = LLVMGetModuleIdentifier(m, &len);
  unsigned i;
  if (sscanf(id, "skein-part-%u", &i) != 1 || i >= lz->n)
    return LLVMCreateStringError("a module that is no part of the build");
  part *pt = &lz->parts[i];
  /* Fault injection for tests/test-split-build.c: a crash while one
   * kernel's part is compiled ("part:<kernel>"). */
  const char *inject = getenv("SKEIN_INJECT_COMPILER_CRASH");
  if (inject && strncmp(inject, "part:", 5) == 0 &&
      strcmp(inject + 5, pt->p->kernels[pt->k].name) == 0)
    raise(SIGSEGV);
  cc_log log = {0};
  bool avx512;
  LLVMTargetMachineRef tm = cc_host_target_machine(&log, &avx512);
  free(log.buf);
  if (!tm)
    return LLVMCreateStringError("no target machine for the host");
  const char *pipeline = lz->opt_disable ? "default<O0>" : "default<O3>";
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(o, lz->vectorize);
  LLVMPassBuilderOptionsSetSLPVectorization(o, lz->vectorize);
  LLVMPassBuilderOptionsSetLoopInterleaving(o, lz->vectorize);
  LLVMPassBuilderOptionsSetLoopUnrolling(o, 1);
  LLVMErrorRef err = LLVMRunPasses(m, pipeline, tm, o);
  LLVMDisposePassBuilderOptions(o);
  LLVMDisposeTargetMachine(tm);
  if (err)
    return err;
  cc_image_finish(m);
  cc_widen_byte_chains(m);
  cc_interleave_chains(m);
  cc_wg wg = pt->wg;
  wg.fn = LLVMGetNamedFunction(m, pt->fn_name);
  wg.body = LLVMGetNamedFunction(m, pt->body_name);
  if (!wg.fn || !wg.body)
    return LLVMCreateStringError("the kernel lost its work-group function");
  pt->p->kernels[pt->k].private_mem_size = private_size(m, &wg);
  if (cc_dump_enabled("ir") || cc_dump_enabled("optimized")) {
    static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&dump_lock);
    dump(m, "optimized");
    pthread_mutex_unlock(&dump_lock);
  }
  return NULL;
}

static LLVMErrorRef transform_part(void *ctx, LLVMOrcThreadSafeModuleRef *tsm,
                                   LLVMOrcMaterializationResponsibilityRef r) {
  (void)r;
  return LLVMOrcThreadSafeModuleWithModuleDo(*tsm, optimize_part, ctx);
}

/* Looks part pt's kernel up, which optimises and compiles the part (and
 * any part it links to) if no thread has yet; runs under the crash
 * guard. */
static void lookup_part(void *arg) {
  part *pt = arg;
  LLVMOrcExecutorAddress addr;
  LLVMErrorRef err = LLVMOrcLLJITLookup(pt->p->jit, &addr, pt->fn_name);
  pthread_mutex_lock(&pt->lz->diag_lock);
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    cc_log_printf(&pt->log, "error: kernel '%s': %s\n",
                  pt->p->kernels[pt->k].name, msg);
    LLVMDisposeErrorMessage(msg);
    cc_jit_error_to_log(pt->p, &pt->log);
  }
  bool ok = !err && !pt->errors;
  pthread_mutex_unlock(&pt->lz->diag_lock);
  if (ok)
    pt->p->kernels[pt->k].wg = (skein_wg_fn)(uintptr_t)addr;
  atomic_store(&pt->state, ok ? PART_READY : PART_FAILED);
}

/* Makes part pt's kernel ready (once, whichever thread asks first);
 * whether it is. A crash marks the part failed. */
static bool part_ensure(part *pt) {
  int state = atomic_load(&pt->state);
  if (state != PART_WAITING)
    return state == PART_READY;
  pthread_mutex_lock(&pt->lock);
  if (atomic_load(&pt->state) == PART_WAITING && atomic_load(&pt->lz->broken))
    atomic_store(&pt->state, PART_FAILED);
  if (atomic_load(&pt->state) == PART_WAITING &&
      !cc_run_crash_safe(lookup_part, pt)) {
    const char *why = cc_fatal_error_reason();
    pt->crashed = true;
    snprintf(pt->reason, sizeof pt->reason, "%s", why ? why : "");
    atomic_store(&pt->lz->broken, true);
    atomic_store(&pt->state, PART_FAILED);
  }
  pthread_mutex_unlock(&pt->lock);
  return atomic_load(&pt->state) == PART_READY;
}

typedef struct part_pool {
  cc_lazy *lz;
  atomic_uint next;
} part_pool;

/* An eager build's worker: takes parts, biggest first, until none is
 * left. */
static void *pool_work(void *arg) {
  part_pool *pool = arg;
  unsigned i;
  while ((i = atomic_fetch_add(&pool->next, 1)) < pool->lz->n)
    part_ensure(&pool->lz->parts[pool->lz->order[i]]);
  return NULL;
}

/* Compiles every part, on this thread and up to threads - 1 more. */
static void pool_run(cc_lazy *lz, unsigned threads) {
  part_pool pool = {.lz = lz};
  atomic_init(&pool.next, 0);
  unsigned extra = threads > 1 ? take_threads(threads - 1) : 0;
  pthread_t tids[extra ? extra : 1];
  unsigned started = 0;
  for (; started < extra; started++)
    if (pthread_create(&tids[started], NULL, pool_work, &pool) != 0)
      break;
  pool_work(&pool);
  for (unsigned t = 0; t < started; t++)
    pthread_join(tids[t], NULL);
  give_threads(extra);
}

/* After an eager build: the parts' logs join the build's, in part order
 * (the log is the same whatever the threads did); a crashed part
 * abandons the build as a crash on this thread would (guarded() then
 * answers as for any LLVM crash). */
static cc_status parts_done(build *b, cc_lazy *lz) {
  cc_status st = CC_OK;
  for (unsigned i = 0; i < lz->n; i++) {
    part *pt = &lz->parts[i];
    if (pt->log.len)
      cc_log_append(&b->log, pt->log.buf, pt->log.len);
    free(pt->log.buf);
    memset(&pt->log, 0, sizeof(pt->log));
    if (atomic_load(&pt->state) != PART_READY)
      st = CC_BUILD_FAILED;
  }
  for (unsigned i = 0; i < lz->n; i++)
    if (lz->parts[i].crashed)
      cc_crash_forward(lz->parts[i].reason);
  return st;
}

static void lazy_free(cc_lazy *lz) {
  if (!lz)
    return;
  for (unsigned i = 0; lz->parts && i < lz->n; i++) {
    pthread_mutex_destroy(&lz->parts[i].lock);
    free(lz->parts[i].fn_name);
    free(lz->parts[i].body_name);
    free(lz->parts[i].log.buf);
  }
  pthread_mutex_destroy(&lz->diag_lock);
  free(lz->parts);
  free(lz->order);
  free(lz->log);
  free(lz);
}

static size_t count_instructions(LLVMModuleRef m) {
  size_t n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i))
        n++;
  return n;
}

/* Whether m has an asm statement: the assembler's errors come only when
 * the code is generated, and must fail the build. */
static bool has_inline_asm(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i))
        if (LLVMIsACallInst(i) &&
            LLVMIsAInlineAsm(LLVMGetCalledValue(i)))
          return true;
  return false;
}

/* The libsleef functions the parts call, each name once (NUL-terminated
 * names in one block): the JIT defines them once for all parts, and the
 * disk cache keeps the list. The optimiser adds no new ones: the vector
 * forms it may call are declared already (math_lib.c). */
static cc_status lib_names(LLVMModuleRef *mods, unsigned n, cc_log *names) {
  for (unsigned i = 0; i < n; i++)
    for (LLVMValueRef f = LLVMGetFirstFunction(mods[i]); f;
         f = LLVMGetNextFunction(f)) {
      size_t len;
      const char *name = LLVMGetValueName2(f, &len);
      if (!LLVMIsDeclaration(f) || !cc_math_is_lib_function(name))
        continue;
      bool seen = false;
      for (size_t at = 0; !seen && at < names->len;
           at += strlen(names->buf + at) + 1)
        seen = strcmp(names->buf + at, name) == 0;
      if (!seen)
        cc_log_append(names, name, len + 1);
    }
  return names->oom ? CC_OUT_OF_MEMORY : CC_OK;
}

/* SKEIN_LAZY=0: every kernel compiled by clBuildProgram; so too while
 * SKEIN_DUMP asks for the optimised IR, which a build prints whole. */
static bool lazy_wanted(void) {
  const char *e = getenv("SKEIN_LAZY");
  return !(e && strcmp(e, "0") == 0) && !cc_dump_enabled("optimized") &&
         !cc_dump_enabled("ir");
}

/* Threads for a split build, 0 for none: several kernels, more than one
 * thread, no -g (the debugger's view of one unit stays as it is) and a
 * target this CPU runs. */
static unsigned split_threads(build *b) {
  /* A target this CPU cannot run fails after the whole module is
   * optimised, so that SKEIN_DUMP=optimized shows its code. */
  if (b->p->num_kernels < 2 || b->opts.debug || !cc_target_get()->runnable)
    return 0;
  unsigned t = build_threads();
  if (t < 2)
    return 0;
  return t < b->p->num_kernels ? t : b->p->num_kernels;
}

/* The split build's optimisation and code generation (what backend's
 * whole-module path does from default<O3> to jit). CC_OK with *done
 * false: the module must stay whole; nothing was changed. */
static cc_status build_parts(build *b, unsigned threads, bool *done) {
  unsigned n = b->p->num_kernels;
  *done = false;
  cc_lazy *lz = calloc(1, sizeof(*lz));
  const char **roots = calloc(n, sizeof(*roots));
  LLVMOrcThreadSafeContextRef *tscs = calloc(n, sizeof(*tscs));
  LLVMModuleRef *mods = calloc(n, sizeof(*mods));
  cc_status st = lz && roots && tscs && mods ? CC_OK : CC_OUT_OF_MEMORY;
  if (st == CC_OK) {
    lz->n = n;
    lz->parts = calloc(n, sizeof(*lz->parts));
    lz->order = calloc(n, sizeof(*lz->order));
    pthread_mutex_init(&lz->diag_lock, NULL);
    if (!lz->parts || !lz->order)
      st = CC_OUT_OF_MEMORY;
  }
  for (unsigned k = 0; st == CC_OK && k < n; k++) {
    size_t len;
    part *pt = &lz->parts[k];
    pt->p = b->p;
    pt->lz = lz;
    pt->k = k;
    pt->wg = b->wgs[k];
    pthread_mutex_init(&pt->lock, NULL);
    pt->fn_name = strdup(LLVMGetValueName2(b->wgs[k].fn, &len));
    pt->body_name = strdup(LLVMGetValueName2(b->wgs[k].body, &len));
    if (!pt->fn_name || !pt->body_name)
      st = CC_OUT_OF_MEMORY;
    roots[k] = pt->fn_name;
  }
  /* Lazy only where a kernel's compile cannot fail in a way the build
   * must report (asm statements), where no kernel enqueues another
   * (block kernels are looked up while kernels run), and where a thread
   * can finish the rest. */
  bool lazy = st == CC_OK && lazy_wanted() &&
              b->p->num_visible == b->p->num_kernels &&
              !has_inline_asm(b->m);
  if (st == CC_OK && !cc_split_module(b->m, roots, n, tscs, mods)) {
    free(mods);
    free(tscs);
    free(roots);
    lazy_free(lz);
    return CC_OK;   /* the whole-module path builds it */
  }
  *done = true;
  free(roots);
  if (st != CC_OK) {
    free(mods);
    free(tscs);
    lazy_free(lz);
    return st;
  }
  LLVMDisposeModule(b->m);   /* the parts have all of it */
  b->m = NULL;
  b->p->lazy = lz;           /* freed with the program from now on */
  lz->opt_disable = b->opts.opt_disable;
  lz->vectorize = cc_vectorize_wanted();
  for (unsigned k = 0; k < n; k++) {
    part *pt = &lz->parts[k];
    pt->weight = count_instructions(mods[k]);
    LLVMContextSetDiagnosticHandler(
        LLVMOrcThreadSafeContextGetContext(tscs[k]), part_diagnostic, pt);
    unsigned at = k;   /* biggest first: the longest does not start last */
    while (at > 0 && lz->parts[lz->order[at - 1]].weight < pt->weight) {
      lz->order[at] = lz->order[at - 1];
      at--;
    }
    lz->order[at] = k;
  }
  stage_done(b, "split");
  const cc_target *t = cc_target_get();
  if (!t->runnable) {
    cc_log_printf(&b->log, "error: %s\n", t->problem);
    st = CC_BUILD_FAILED;
  } else if (t->problem[0]) {
    cc_log_printf(&b->log, "warning: %s; compiled for %s\n", t->problem,
                  t->cpu);
  }
  cc_log names = {0};
  if (st == CC_OK)
    st = lib_names(mods, n, &names);
  LLVMErrorRef err = NULL;
  if (st == CC_OK) {
    cc_jit_set_debug(false, false);
    if ((err = jit_create(b->p, true)))
      st = llvm_failed(b, err, "JIT creation");
  }
  if (st == CC_OK) {
    unsigned num = 0;
    const char **list = calloc(names.len + 1, sizeof(*list));
    for (size_t at = 0; list && at < names.len;
         at += strlen(names.buf + at) + 1)
      list[num++] = names.buf + at;
    if (!list)
      st = CC_OUT_OF_MEMORY;
    else if ((err = cc_math_define_names(b->p->jit, list, num)))
      st = llvm_failed(b, err, "JIT");
    free(list);
  }
  if (st == CC_OK && cc_cache_capturing) {
    b->p->cache_symbols = names.buf;
    b->p->cache_symbols_size = names.len;
    names.buf = NULL;
    st = expect_cache_objects(b->p, n);
    if (st == CC_OK)
      LLVMOrcObjectTransformLayerSetTransform(
          LLVMOrcLLJITGetObjTransformLayer(b->p->jit), keep_object, b->p);
  }
  free(names.buf);
  if (st == CC_OK)
    LLVMOrcIRTransformLayerSetTransform(
        LLVMOrcLLJITGetIRTransformLayer(b->p->jit), transform_part, lz);
  /* Every part joins the JIT before any is looked up: a part may link to
   * another's symbols (a variable two kernels share). */
  for (unsigned k = 0; k < n; k++) {
    if (st == CC_OK) {
      LLVMOrcThreadSafeModuleRef tsm =
          LLVMOrcCreateNewThreadSafeModule(mods[k], tscs[k]);
      err = LLVMOrcLLJITAddLLVMIRModule(
          b->p->jit, LLVMOrcLLJITGetMainJITDylib(b->p->jit), tsm);
      if (err)
        st = llvm_failed(b, err, "JIT");
    } else {
      LLVMDisposeModule(mods[k]);
    }
    LLVMOrcDisposeThreadSafeContext(tscs[k]);   /* the JIT holds it */
  }
  free(mods);
  free(tscs);
  stage_done(b, "jit-create");
  if (st == CC_OK && lazy) {
    lz->lazy = true;   /* cached() starts the background thread */
    return CC_OK;
  }
  if (st == CC_OK) {
    pool_run(lz, threads);
    st = parts_done(b, lz);
  }
  return st;
}

/* ---- The lazy build's background thread ---- */

/* Background threads still running, which exit waits for: LLVM's static
 * objects must outlive their compiles (and a cache entry is worth the
 * wait: the next process is served from it). Exit runs handlers in the
 * reverse order of registration, and the code generator's function-local
 * statics (SelectionDAG's value type lists) are registered at the first
 * code generation in the process: this handler is registered after one
 * (lazy_start), or exit would destroy them under a running compile. */
static pthread_mutex_t bg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bg_done = PTHREAD_COND_INITIALIZER;
static unsigned bg_count;
static atomic_bool bg_exiting;
static pid_t bg_pid;   /* the process they run in (a fork's child has none) */

static void bg_wait_all(void) {
  if (getpid() != bg_pid)
    return;
  atomic_store(&bg_exiting, true);
  pthread_mutex_lock(&bg_lock);
  while (bg_count)
    pthread_cond_wait(&bg_done, &bg_lock);
  pthread_mutex_unlock(&bg_lock);
}

static void bg_register_atexit(void) {
  bg_pid = getpid();
  atexit(bg_wait_all);
}

/* Compiles the kernels the application has not asked for yet, biggest
 * first, then stores the disk cache's entry once all are compiled. */
static void *background(void *arg) {
  cc_program *p = arg;
  cc_lazy *lz = p->lazy;
  bool all = true;
  for (unsigned i = 0; i < lz->n; i++) {
    /* With no entry to store, a program released (or a process
     * ending) needs no more code. */
    if (!lz->capture &&
        (atomic_load(&lz->stop) || atomic_load(&bg_exiting))) {
      all = false;
      break;
    }
    all &= part_ensure(&lz->parts[lz->order[i]]);
  }
  if (all && lz->capture)
    cc_cache_store(&lz->key, p, lz->log);
  free_cache_objects(p);   /* only the entry wanted them */
  give_threads(1);
  pthread_mutex_lock(&bg_lock);
  bg_count--;
  pthread_cond_broadcast(&bg_done);
  pthread_mutex_unlock(&bg_lock);
  return NULL;
}

/* After a lazy build succeeded: the background thread, with the cache
 * entry to store (key NULL: none); or, with no thread to spare, every
 * kernel compiled now, on this thread (false if one failed: the build
 * fails). */
static bool lazy_start(cc_program *p, const cc_cache_key *key,
                       const char *log) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  cc_lazy *lz = p->lazy;
  /* The smallest kernel now: code generation's statics exist before the
   * exit handler is registered (see bg_wait_all). */
  part_ensure(&lz->parts[lz->order[lz->n - 1]]);
  pthread_once(&once, bg_register_atexit);
  if (key && (lz->log = strdup(log ? log : ""))) {
    lz->capture = true;
    lz->key = *key;
  }
  if (take_threads(1)) {
    pthread_mutex_lock(&bg_lock);
    bg_count++;
    pthread_mutex_unlock(&bg_lock);
    if (pthread_create(&lz->bg, NULL, background, p) == 0) {
      lz->bg_running = true;
      return true;
    }
    pthread_mutex_lock(&bg_lock);
    bg_count--;
    pthread_mutex_unlock(&bg_lock);
    give_threads(1);
  }
  bool ok = true;
  for (unsigned i = 0; i < lz->n; i++)
    ok &= part_ensure(&lz->parts[lz->order[i]]);
  if (ok && lz->capture)
    cc_cache_store(&lz->key, p, lz->log);
  return ok;
}

/* A lazy program's kernel k, compiled if it was not (false: its compile
 * failed; the reason is on stderr, the build being over). */
static bool kernel_ready(const cc_program *p, unsigned k) {
  cc_lazy *lz = p->lazy;
  if (!lz || !lz->lazy)
    return true;
  part *pt = &lz->parts[k];
  if (part_ensure(pt))
    return true;
  pthread_mutex_lock(&lz->diag_lock);
  if (pt->log.len || pt->crashed) {
    fprintf(stderr, "skein: kernel '%s' could not be compiled: %s%s%s%s\n",
            p->kernels[k].name, pt->log.buf ? pt->log.buf : "",
            pt->crashed ? "LLVM crashed" : "",
            pt->crashed && pt->reason[0] ? ": " : "", pt->reason);
    free(pt->log.buf);
    memset(&pt->log, 0, sizeof(pt->log));
    pt->crashed = false;
  }
  pthread_mutex_unlock(&lz->diag_lock);
  return false;
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
  /* A barrier-free kernel with loops of its own may have them cut into
   * regions, unless it takes images: the image pass versions and
   * vectorises only loop mode's work-item loops (region bodies read
   * images through the generic, scalar path), and unrolls a filter's
   * small loops there so that the work-item loop is the innermost. */
  for (unsigned k = 0; k < b->p->num_kernels; k++)
    cc_wg_generate(b->m, &abi, b->kernels[k],
                   b->p->kernels[k].uses_barriers,
                   !b->p->kernels[k].uses_barriers &&
                       !cc_kernel_takes_images(&b->p->kernels[k]) &&
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
  bool half_mads = cc_half_lower(b->m); /* mad of halves without FP16 */
  cc_dot_prepare(b->m);    /* VNNI forms of the integer dot products */
  cc_mark_workitem_inline(b->m, b->kernels, b->p->num_kernels);
  prepare_module(b);
  cc_guard_integer_division(b->m);
  if ((st = run_passes(b, "always-inline")) != CC_OK ||
      (st = lower_all(b)) != CC_OK ||
      (st = finish_regions(b, half_mads)) != CC_OK ||
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
  unsigned threads = split_threads(b);
  if (threads) {
    bool done;
    st = build_parts(b, threads, &done);
    if (done) {
      stage_done(b, "jit");
      return st;
    }
  }
  st = run_passes(b, b->opts.opt_disable ? "default<O0>" : "default<O3>");
  if (st != CC_OK)
    return st;
  cc_image_finish(b->m);
  cc_widen_byte_chains(b->m);
  cc_interleave_chains(b->m);
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
  if (st == CC_OK && b->log.llvm_errors)
    st = CC_BUILD_FAILED;
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
  if (st == CC_OK && (*out)->lazy && (*out)->lazy->lazy) {
    /* The entry is stored when every kernel is compiled. */
    if (lazy_start(*out, use ? &key : NULL, log ? *log : NULL))
      return CC_OK;
    if (log)
      *log = prepend(*log, "error: a kernel's code generation failed\n");
    cc_program_destroy(*out);
    *out = NULL;
    return CC_BUILD_FAILED;
  }
  if (use && st == CC_OK)
    cc_cache_store(&key, *out, log ? *log : NULL);
  if (st == CC_OK) {   /* only the cache wanted these */
    free_cache_objects(*out);
    free((*out)->cache_deps);
    free((*out)->cache_symbols);
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

bool cc_program_kernel_prepare(const cc_program *p,
                               const cc_kernel_info *info) {
  if (!p->lazy || info < p->kernels || info >= p->kernels + p->num_kernels)
    return info && info->wg;
  return kernel_ready(p, (unsigned)(info - p->kernels));
}

void cc_program_destroy(cc_program *p) {
  if (!p)
    return;
  if (p->lazy && p->lazy->bg_running && getpid() == bg_pid) {
    /* It finishes its current kernel; with a cache entry to store, it
     * compiles the rest first (the next process is served at once). */
    atomic_store(&p->lazy->stop, true);
    pthread_join(p->lazy->bg, NULL);
  }
  if (p->lazy && atomic_load(&p->lazy->broken))
    return;   /* a crash left the JIT half-done: all of it is leaked */
  if (p->jit)
    LLVMConsumeError(LLVMOrcDisposeLLJIT(p->jit));
  lazy_free(p->lazy);   /* after the JIT: its contexts report to parts */
  for (unsigned k = 0; k < p->num_kernels; k++)
    cc_kernel_info_free(&p->kernels[k]);
  free(p->kernels);
  free(p->binary);
  free(p->options);
  free_cache_objects(p);
  free(p->cache_deps);
  free(p->cache_symbols);
  free(p);
}
