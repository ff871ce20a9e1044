/* This file declares the internals shared by the compiler's source files:
 * the build log, option translation, the Clang and LLVM C++ shims, kernel
 * metadata, the work-group function generator and the binary container.
 * Nothing outside compiler/ includes it. */
#ifndef SKEIN_COMPILER_INTERNAL_H
#define SKEIN_COMPILER_INTERNAL_H

#include "compiler.h"
#include <llvm-c/Core.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/TargetMachine.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A growable NUL-terminated text buffer: the build log. On allocation
 * failure it stops growing and sets oom (the build then fails with
 * CC_OUT_OF_MEMORY). */
typedef struct cc_log {
  char *buf;
  size_t len, cap;
  bool oom;
  unsigned llvm_errors;   /* error diagnostics LLVM reported (build.c's
                             on_diagnostic): the build fails */
} cc_log;

/* Appends printf-formatted text to log. */
void cc_log_printf(cc_log *log, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends len bytes of text. */
void cc_log_append(cc_log *log, const char *text, size_t len);

/* The translated build options. argv (malloc'd strings) holds the Clang
 * cc1 arguments that come from the options and the device caps. */
typedef struct cc_options {
  char **argv;
  int argc;
  bool kernel_arg_info;   /* -cl-kernel-arg-info: expose argument names */
  bool opt_disable;       /* -cl-opt-disable */
  bool bounds_check;      /* -skein-bounds-check (or SKEIN_BOUNDS_CHECK=1):
                             every global, constant and local access
                             checked (bounds_check.cpp) */
  bool no_subgroup_ifp;   /* -cl-no-subgroup-ifp: loops that wait for
                             another work-item get no yield and keep
                             their mode (forward_progress.c) */
  bool debug;             /* -g: debug info, code registered with gdb */
  char *debug_source;     /* -s <file>: the file -g's debug info names
                             (owned), or NULL: a copy (debug_info.c) */
} cc_options;

/* Translates an OpenCL build option string (may be NULL) and the device
 * caps (may be NULL: nothing enabled) into Clang arguments. Returns
 * CC_INVALID_OPTIONS with a log line for an unknown or malformed option,
 * CC_BUILD_FAILED with one for -cl-std=CL3.1 where caps' version is
 * below 310 (NULL caps: a binary's stored options, accepted).
 * The caller frees *out with cc_options_free on every result. */
cc_status cc_options_parse(const char *options, const cc_device_caps *caps,
                           cc_options *out, cc_log *log);
void cc_options_free(cc_options *o);

/* Runs the Clang front end (cc1) in process on source (named input.cl)
 * with args and the nheaders embedded headers (found by their include
 * names before any -I folder), producing a module in ctx. Diagnostics go
 * to log. Returns true and *out on success; if deps is not NULL, also
 * *deps: the files on disk it read (user headers), NUL-terminated names
 * in one malloc'd block of *deps_size bytes. (clang_frontend.cpp: Clang
 * has no C API for this.) */
bool cc_clang_compile(LLVMContextRef ctx, const char *source, size_t length,
                      const char *const *args, int nargs,
                      const cc_header *headers, unsigned nheaders,
                      LLVMModuleRef *out, cc_log *log, char **deps,
                      size_t *deps_size);

/* Links into dst the definitions of src that dst references (Linker's
 * LinkOnlyNeeded, which the C API lacks). Consumes src. True on success. */
bool cc_link_only_needed(LLVMModuleRef dst, LLVMModuleRef src);

/* Replaces every use of global gv inside function fn (including uses
 * through constant expressions, which are first turned into
 * instructions) with value repl. */
void cc_replace_global_in_function(LLVMValueRef gv, LLVMValueRef fn,
                                   LLVMValueRef repl);

/* True if global gv is used inside function fn, directly or through
 * constant expressions. */
bool cc_global_used_in(LLVMValueRef gv, LLVMValueRef fn);

/* The demangled form of an Itanium-mangled name ("sin(float)"), malloc'd;
 * NULL if it is not one. */
char *cc_demangle(const char *name);

/* Gives the loop whose latch branch is br a loop ID asking the vectoriser
 * to interleave count times (and to use width lanes, if above 1); force:
 * asks for vectorisation itself, which also lets LLVM make the run-time
 * checks of up to 128 (not 16) assumptions on the loop's index arithmetic. */
void cc_set_loop_interleave(LLVMValueRef br, unsigned count, unsigned width,
                            bool force);

/* The metadata node named kind attached to function fn, as a value, or
 * NULL (kernel_info.c). */
LLVMValueRef cc_function_md(LLVMValueRef fn, const char *kind);

/* The bytes of fn's allocas: its fixed stack slots (wg_gen.c). */
size_t cc_alloca_bytes(LLVMModuleRef m, LLVMValueRef fn);

/* unroll_jam.cpp: cc_enable_unroll_and_jam adds LLVM's unroll-and-jam
 * pass to its O3 pipeline (once, at initialisation); the pass acts only on
 * loops that cc_set_loop_unroll_and_jam marked, asking for count copies
 * of the body with their inner loops fused. */
void cc_enable_unroll_and_jam(void);
void cc_set_loop_unroll_and_jam(LLVMValueRef br, unsigned count);

/* Bounds-checked mode (bounds_check.cpp). cc_bounds_prepare makes every
 * defined function of m that is not a kernel always-inline (so the checks
 * see every access in the kernel's own code; run the always-inline pass
 * and SROA after it). cc_bounds_instrument then guards each load, store,
 * atomic and memory intrinsic of kernel on a global, constant or local
 * object it can trace to a kernel argument or a program- or kernel-scope
 * variable, and each such pointer passed to a library call (its first
 * byte): an access outside its object is skipped (a load gives 0) and
 * noted in the launch's report. ki receives the description of each
 * check site. False on allocation failure. */
void cc_bounds_prepare(LLVMModuleRef m, LLVMValueRef *kernels, unsigned n);
bool cc_bounds_instrument(LLVMValueRef kernel, cc_kernel_info *ki);
/* Lifting checks out of loops (bounds_lift.cpp). cc_bounds_box, on an
 * instrumented kernel: each check of an offset linear in the work-item's
 * ids also passes when a test over the group's box of ids does, and
 * becomes "box | check". cc_bounds_hoist, after inlining, before the
 * optimiser's loop passes: versions every innermost loop on the and of
 * the tests of its checks that do not vary in it (box tests, and range
 * tests of offsets affine in its iteration): an unchecked copy when all
 * pass, the checked one otherwise. */
void cc_bounds_box(LLVMValueRef kernel);
void cc_bounds_hoist(LLVMModuleRef m);
/* Before inlining: marks the loads the bounds builtins make through the
 * launch (sizes, report) invariant, so that LICM hoists them. */
void cc_bounds_mark_invariant(LLVMModuleRef m);

/* The image pass (image_version.cpp), before the optimiser: marks the
 * loads of image descriptors invariant, and where `versions`, copies a
 * work-group function's work-item loops once per common image format
 * (the format a constant in each copy, so that they vectorise); lowers
 * every __skein_image_key_f/_i call to a load of the image's format
 * key. */
void cc_image_version(LLVMModuleRef m, bool versions);
/* After the optimiser: branches around every masked gather of image
 * pixels (in a work-group function) whose mask has no lane set. */
void cc_image_finish(LLVMModuleRef m);
/* After the optimiser: in each single-block loop, orders long runs of
 * memory-free arithmetic by dependency depth, so that unroll-and-jammed
 * copies' chains alternate (chain_schedule.cpp). SKEIN_NO_CHAIN_INTERLEAVE=1
 * leaves them. */
void cc_interleave_chains(LLVMModuleRef m);
/* jam_tails.cpp, called by cc_interleave_chains: the tails of
 * unroll-and-jammed copies computed across copies (SKEIN_NO_JAM_TAILS=1:
 * not) */
void cc_transpose_jam_tails(LLVMModuleRef m);
/* Whether the environment variable name is set to anything but "" or
 * "0": the developers' switches that turn one code-generation choice
 * off, to measure it (docs/features.md). */
bool cc_env_switch(const char *name);

/* Marks every loop of m "do not vectorise, do not interleave". */
void cc_forbid_loop_vectorization(LLVMModuleRef m);

/* False under SKEIN_VECTORIZE=0: no vectoriser runs, and no loop asks
 * for interleaving (which LLVM would honour even then). */
bool cc_vectorize_wanted(void);

/* The interleave count for the work-item loops of barrier kernels' long
 * arithmetic regions: SKEIN_INTERLEAVE (1-16), else 4. */
unsigned cc_interleave_count(void);

/* How a work-item body is vectorised on the target (vector_plan.c;
 * docs/architecture.md, "The target model"). */
typedef struct cc_vector_plan {
  bool split;            /* its vectors were split into lanes */
  unsigned interleave;   /* vectors of work-items per iteration of the
                          * work-item loop; 1: LLVM's cost model decides */
  unsigned ops;          /* its arithmetic operations, before any split */
  unsigned width;        /* work-items per vector the loop vectoriser must
                          * use; 0: its cost model chooses */
  unsigned jam;          /* work-items whose inner loops run fused
                          * (unroll-and-jam of the work-item loop); 1: none */
  bool force;            /* the work-item loop must be vectorised (a split
                          * short body: cc_set_loop_interleave) */
} cc_vector_plan;

/* Measures fn (a loop-mode work-item body, latch its loop's back edge;
 * or region mode's body, latch NULL), splits its vectors into lanes
 * where that fills the target's registers, and returns the plan. name:
 * for SKEIN_DUMP=modes. */
cc_vector_plan cc_plan_vectors(LLVMValueRef fn, LLVMValueRef latch,
                               const char *name);

/* The crash retry's switches (build.c guarded): whether this thread's
 * build kept region mode for some kernel, and whether it must not (the
 * retry after a crash runs barrier kernels in fiber mode and every other
 * kernel in plain loop mode). */
#ifdef __cplusplus
extern "C" thread_local bool cc_region_used, cc_region_off;
#else
extern _Thread_local bool cc_region_used, cc_region_off;
#endif

/* What the vector plan (vector_plan.c) needs to know of a work-item
 * body's loops, after its private variables become registers. */
typedef struct cc_vector_shape_t {
  unsigned carried;          /* elements of the vector values its loops
                              * carry (phis): registers after a split */
  bool inner_vector_memory;  /* a loop inside the work-item loop loads or
                              * stores vectors (split, each would become a
                              * gather or scatter); loops LLVM unrolls whole
                              * (unrolled_whole.h) do not count */
  unsigned unrolled_vector_lanes; /* the most lanes of a vector that such
                              * an unrolled loop loads or stores; 0: none */
  bool kept_inner_loop;      /* a loop inside the work-item loop that LLVM
                              * does not unroll whole */
} cc_vector_shape_t;

/* Promotes fn's private variables to registers and measures its shape
 * (latch: the work-item loop's back edge, or NULL for region mode's
 * body, whose loops all count as inner). */
void cc_vector_shape(LLVMValueRef fn, LLVMValueRef latch,
                     cc_vector_shape_t *shape);
/* Promotes fn's private variables to registers (LLVM's SROA). */
void cc_sroa_function(LLVMValueRef fn);
/* Asks LLVM to unroll whole, before the loop vectoriser, every loop
 * inside the work-item loop of latch (NULL: every loop of fn) that
 * unrolled_whole.h takes as unrolled whole: called before a split into
 * lanes, which multiplies such a loop's size past LLVM's own threshold. */
void cc_unroll_whole_loops(LLVMValueRef fn, LLVMValueRef latch);
/* Splits fn's vector arithmetic, loads and stores into scalar
 * operations, lane by lane, so that the work-item loop can be vectorised
 * across work-items instead. Keeps the control flow (branch instructions
 * stay valid). */
void cc_scalarize_function(LLVMValueRef fn);
/* Rebuilds m's webs of byte-vector arithmetic that multiply (adds,
 * subs, muls, bitwise operations and phis of <N x i8>, N shorts fitting
 * one of the target's registers) on <N x i16>, truncating to bytes where
 * a value leaves the web: x86 has no byte multiply (byte_chains.c).
 * After the optimiser, which would narrow them back.
 * SKEIN_BYTE_MULS=1: off. */
void cc_widen_byte_chains(LLVMModuleRef m);

/* Runs fn(arg) under LLVM's crash recovery; returns false if it crashed
 * (a signal such as SIGSEGV or SIGABRT inside it). Thread-safe. */
bool cc_run_crash_safe(void (*fn)(void *), void *arg);
/* Why the last guarded call on this thread was abandoned when LLVM
 * reported a fatal error (report_fatal_error); NULL after a crash or a
 * normal return. */
const char *cc_fatal_error_reason(void);
/* Calls LLVM's report_fatal_error (fault injection for the tests). */
void cc_inject_fatal_error(void);
/* Registers the host target's assembly parser, once per process: the
 * code generator parses inline assembly (asm statements of OpenCL C)
 * with it, and without it stops with a fatal error. Thread-safe. */
void cc_init_asm_parser(void);

/* Initialises LLVM's native target once per process (thread-safe). */
void cc_llvm_init(void);

/* The CPU kernels are compiled for and what code generation derives
 * from it (target.c; docs/architecture.md, "The target model"). */
typedef struct cc_target {
  char cpu[64];           /* LLVM's name: the host's, or SKEIN_CPU */
  char *features;         /* every feature, "+avx2,-avx512f,...", after
                           * SKEIN_CPU_FEATURES (and SKEIN_TARGET_FEATURES) */
  bool runnable;          /* its code runs here (else compile-only) */
  char problem[320];      /* why SKEIN_CPU was not taken or the code
                           * cannot run; empty if neither */
  unsigned vector_bits;   /* vector registers used: 512, 256 or 128 */
  unsigned vector_regs;   /* how many: 32 with AVX-512, else 16 */
  unsigned fma_chains;    /* independent FMAs in flight to fill the pipes */
  bool f16c;              /* F16C converts half and float */
  bool fp16_arith;        /* AVX-512 FP16: half arithmetic in hardware */
} cc_target;

/* Drops the convergent attribute of the pure library function f and of
 * its calls (OpenCL C marks every function and call convergent, which
 * keeps the loop vectoriser from versioning loops around them;
 * math_lib.c). */
void cc_drop_convergent(LLVMValueRef f);

/* Appends fns[0..n) to @llvm.compiler.used, so that the optimiser keeps
 * them (and their signatures) until the vectorisers have run; on no
 * memory it does nothing (slower code, still correct). math_lib.c. */
void cc_append_compiler_used(LLVMModuleRef m, LLVMValueRef *fns, unsigned n);

/* Rewrites m's half fused multiply-adds (mad of halves) as float's for
 * a target without AVX-512 FP16 (half_lower.c); true if it rewrote any. */
bool cc_half_lower(LLVMModuleRef m);

/* Gives the mads cc_half_lower widened their operand mads' float results
 * instead of those rounded to half and extended back, through phis too
 * (half_mad_chains.cpp; SKEIN_ROUND_HALF_MADS=1 off). After SROA. */
void cc_keep_half_mad_chains(LLVMModuleRef m);
/* The same in one function, SROA first where it has widened mads: the
 * work-item loop's body before vector_plan.c measures it. */
void cc_keep_half_mad_chains_in(LLVMValueRef fn);

/* The target, found once per process. */
const cc_target *cc_target_get(void);
/* Whether the last entry for name in a feature string turns it on. */
bool cc_feature_on(const char *features, const char *name);
/* The feature string of an LLVM CPU name (malloc'd), NULL if LLVM does
 * not know the name (target_cpu.cpp). */
char *cc_cpu_feature_string(const char *cpu);

/* A TargetMachine for the target CPU and its features (caller disposes);
 * NULL with a log line if LLVM has no target for the host triple.
 * *avx512 tells whether the target uses 512-bit vectors. */
LLVMTargetMachineRef cc_host_target_machine(cc_log *log, bool *avx512);
/* The target's feature string (malloc'd copy; NULL if out of memory). */
char *cc_target_features(void);

/* Fills ki from kernel's OpenCL metadata (name, arguments, attributes).
 * want_names: expose argument names. The caller frees ki with
 * cc_kernel_info_free. False on allocation failure. */
bool cc_kernel_info_fill(LLVMModuleRef m, LLVMValueRef kernel,
                         bool want_names, cc_kernel_info *ki);
void cc_kernel_info_free(cc_kernel_info *ki);
/* Whether the device can run a kernel of ki's signature: false, with a
 * log line naming the kernel, if it takes more than CC_MAX_PIPE_ARGS
 * pipes. */
bool cc_kernel_info_check(const cc_kernel_info *ki, cc_log *log);

/* Device-side enqueue (device_enqueue.c): marks every block kernel that
 * an enqueue_kernel or get_kernel_* call takes, and replaces the
 * kernel's address in the call by its name. False, with a log line, if a
 * call's block kernel cannot be identified. */
bool cc_device_enqueue_prepare(LLVMModuleRef m, cc_log *log);
/* Whether kernel was marked by cc_device_enqueue_prepare. */
bool cc_is_block_kernel(LLVMValueRef kernel);
/* Whether name is a device-enqueue builtin's __skein_ctx_ form
 * (builtins/device_enqueue.c): it reads the launch, never waits for
 * other work-items, so region mode calls it like printf. */
bool cc_is_device_enqueue_builtin(const char *name);

/* The work-group function of one kernel while it is being generated. */
typedef struct cc_wg {
  LLVMValueRef kernel;    /* the spir_kernel function */
  LLVMValueRef fn;        /* __skein_wg_<kernel> */
  bool fiber;             /* fiber mode (else loop mode) */
  LLVMValueRef body;      /* where the kernel is called and inlined:
                             fn in loop mode, __skein_wi_<kernel> in fiber
                             mode */
  LLVMValueRef group;     /* the skein_group work-item builtins read: fn's
                             alloca (loop), wi's parameter (fiber) */
  LLVMValueRef lid[3];    /* the x, y, z loop variables (loop), the loaded
                             local ids (fiber) */
  LLVMValueRef local_mem; /* the group's local memory block */
  LLVMValueRef x_latch;   /* the back-edge branch of the x loop (loop) */
  /* region mode (region.cpp), beside the fiber-mode functions until
   * cc_region_finish keeps one of the two: */
  LLVMValueRef region_body; /* __skein_ri_<kernel>(RP_... parameters) */
  LLVMValueRef region_fn;   /* __skein_rwg_<kernel>: group and arguments,
                               then one placeholder call of region_body */
  bool loop_regions;      /* region mode for a barrier-free kernel: its
                             loops cut at implicit barriers, loop mode the
                             fallback (and the path for tiny groups) */
  LLVMTypeRef abi_launch, abi_group;
} cc_wg;

/* Field indices of the ABI structs (builtins/abi.h). */
enum { L_WORK_DIM, L_SUB_GROUP_SIZE, L_OFFSET, L_GLOBAL, L_LOCAL, L_GROUPS,
       L_ARGS, L_HOOKS };
enum { G_LAUNCH, G_GROUP_ID, G_LOCAL_SIZE, G_LOCAL_ID, G_LOCAL_MEM, G_FIBER,
       G_COLLECTIVE };

/* The parameters of region mode's __skein_ri_<kernel>, then the kernel's
 * arguments (region.cpp documents each). */
enum { RP_GROUP, RP_LX, RP_LY, RP_LZ, RP_LOCAL_MEM, RP_CTX, RP_LID, RP_N,
       RP_NEXT, RP_ARGS };

/* The IR types of the ABI structs, taken from the builtin bitcode. */
typedef struct cc_abi_types {
  LLVMTypeRef launch, group;
} cc_abi_types;

/* Emits __skein_wg_<kernel> into m. Loop mode: builds the group, loads
 * the arguments from launch->args and loops z, y, x over the local ids
 * calling the kernel. Fiber mode: also emits __skein_wi_<kernel>(group),
 * which loads the arguments and calls the kernel for one work-item, and
 * makes __skein_wg_<kernel> hand it to launch->hooks->run_fibers with a
 * placeholder stack size (cc_wg_set_stack_size fixes it). */
void cc_wg_generate(LLVMModuleRef m, const cc_abi_types *abi,
                    LLVMValueRef kernel, bool fiber, bool loop_regions,
                    cc_wg *wg);

/* After the kernel is inlined into wg->body: replaces work-item builtin
 * calls by calls to the __skein_get_* helpers, calls of builtins that
 * have a __skein_ctx_ form by calls of that form with the group (see
 * cc_ctx_function), kernel-scope __local variables by slices of
 * local_mem, and hints interleaving for long floating-point loop-mode
 * bodies. *local_size receives the static local memory size. */
void cc_wg_lower(LLVMModuleRef m, cc_wg *wg, size_t *local_size);

/* Fiber mode, after optimisation: estimates the stack frame of one
 * work-item (*frame, bytes) and gives run_fibers a stack size that
 * covers it with room for what the estimate cannot see (calls, spills). */
void cc_wg_set_stack_size(LLVMModuleRef m, cc_wg *wg, size_t *frame);

/* ---- region mode (region.cpp) ---- */
/* True if barrier kernels should try region mode: SKEIN_MODE=region, or
 * the default when SKEIN_MODE is unset (SKEIN_MODE=fiber: never). */
bool cc_region_wanted(void);

/* After cc_wg_lower: for a kernel generated with a region body, cuts it
 * into regions and makes __skein_wg_<kernel> run them as loops over the
 * work-items (wg->fiber becomes false, the fiber-mode functions are
 * deleted); when region mode cannot run the kernel, deletes the region
 * functions and leaves fiber mode. SKEIN_DUMP=modes prints each kernel's
 * mode on stderr. name: the kernel's name. */
void cc_region_finish(LLVMModuleRef m, cc_wg *wg, const char *name);

/* After the work-item builtins are inlined into region mode's work-group
 * functions: forwards their group records' set-once fields, so that the
 * work-item loops need not reload them (region.cpp). */
void cc_region_forward_records(LLVMModuleRef m);

/* The __skein_ctx_<name> function of m (the group-aware form of the
 * OpenCL builtin name, defined in builtins/), or NULL. */
LLVMValueRef cc_ctx_function(LLVMModuleRef m, const char *name);

/* True if name is one of the OpenCL work-item builtins cc_wg_lower
 * replaces (mangled names). */
bool cc_is_workitem_builtin(const char *name);

/* The function a call instruction calls directly, or NULL. */
LLVMValueRef cc_direct_callee(LLVMValueRef inst);

/* True if fn or a function it calls (defined in the module; depth: the
 * calls followed so far, give 0) has a loop. */
bool cc_reaches_loop(LLVMValueRef fn, unsigned depth);

/* True if fn can reach (through calls) a barrier or a work-group
 * collective, or a loop that waits for another work-item (a yield of
 * cc_insert_progress_yields); *what receives the first such callee's
 * name. */
bool cc_reaches_barrier(LLVMValueRef fn, const char **what);

/* Puts a call of __skein_yield() on the back edges of every loop of m
 * that waits for another work-item to write memory (forward_progress.c),
 * so that fiber mode lets the other sub-groups run there. False if
 * memory ran out (some loops may lack their yield). */
bool cc_insert_progress_yields(LLVMModuleRef m);

/* Marks declaration fn as needing the work-item's group: its callers are
 * inlined like those of work-item builtins (cc_mark_workitem_inline). */
void cc_mark_needs_group(LLVMValueRef fn);

/* Makes the kernels and every function that (transitively) calls a
 * work-item builtin or a function marked by cc_mark_needs_group
 * always-inline, so those calls all land in the work-group function (or
 * work-item function) where cc_wg_lower can see the group. */
void cc_mark_workitem_inline(LLVMModuleRef m, LLVMValueRef *kernels,
                             unsigned n);

/* The builtin library, family by family (builtin_families.c and the
 * generated index): the family defining an external symbol, or -1. */
int cc_builtin_family_of(const char *name);
/* Loads family lazily into the context of like, with like's target and
 * data layout; NULL if its bitcode does not parse. */
LLVMModuleRef cc_builtin_family_load(LLVMModuleRef like, unsigned family);
/* Links into m the families defining what m declares, round after round
 * until what they call is defined too (only what is needed: Linker's
 * LinkOnlyNeeded). False, with a log line, if linking fails. */
bool cc_link_builtins(LLVMModuleRef m, cc_log *log);
/* Skein's declarations of builtins Clang lacks (builtins/
 * skein_uniform_arith.h and skein_extended_bit_ops.h), embedded by
 * builtins_blob.S: included in every compile after Clang's default
 * header. */
extern const char cc_skein_decls_h[];

/* Rewrites every integer division and remainder of m whose divisor may be
 * zero (or -1 over a minimum dividend) to divide by 1 instead, so kernels
 * with undefined divisions compute some value rather than raise SIGFPE in
 * the host process (safe_div.c). */
void cc_guard_integer_division(LLVMModuleRef m);

/* Binary container (binary.c). cc_binary_pack returns a malloc'd
 * container of the bitcode and option string; cc_binary_unpack validates
 * one and points into it (no copy). */
unsigned char *cc_binary_pack(const void *bc, size_t bc_size,
                              const char *options, size_t *size);
bool cc_binary_unpack(const unsigned char *bin, size_t size,
                      const unsigned char **bc, size_t *bc_size,
                      const char **options, cc_log *log);

/* ---- compiled objects, libraries and their linking (link.c) ---- */
/* The link options of clLinkProgram, read by cc_link_options_parse. */
typedef struct cc_link_options {
  bool library;          /* -create-library */
  bool enable_options;   /* -enable-link-options */
  bool denorms_zero, no_signed_zeros, unsafe_math, finite_math;
} cc_link_options;

/* Parses a clLinkProgram option string (may be NULL); CC_INVALID_OPTIONS
 * with a log line for anything the spec does not list for linking. */
cc_status cc_link_options_parse(const char *options, cc_link_options *o,
                                cc_log *log);

/* Records in m what kind of unit it is (an internal marker global that
 * survives the bitcode round trip); link_options: a library made with
 * -enable-link-options. */
void cc_unit_set_kind(LLVMModuleRef m, cc_kind kind, bool link_options);
/* Reads and removes m's marker: CC_KIND_EXECUTABLE when there is none. */
cc_kind cc_unit_take_kind(LLVMModuleRef m, bool *link_options);

/* Applies the math link options o to every function of m, as the same
 * compile options would have (function attributes, fast-math flags). */
void cc_unit_apply_math(LLVMModuleRef m, const cc_link_options *o);

/* Links unit src (input number index, from 1) into dst; consumes src.
 * A function or variable both define is logged by name; false then, or
 * if LLVM's linker fails. */
bool cc_unit_link(LLVMModuleRef dst, LLVMModuleRef src, unsigned index,
                  cc_log *log);

/* Adds to *acc (malloc'd, may start NULL) the options of unit_options
 * that rule how its kernels are built and launched, without repeats:
 * -cl-kernel-arg-info, -cl-opt-disable, -cl-uniform-work-group-size and
 * the lowest -cl-std (CL1.2 when a unit gives none). False on allocation
 * failure. */
bool cc_unit_merge_options(char **acc, const char *unit_options);

/* A program (build.c), also made by the disk cache (program_cache.c). */
struct cc_program {
  LLVMOrcLLJITRef jit;        /* owns the machine code of every kernel */
  unsigned num_kernels;
  cc_kernel_info *kernels;    /* the application's kernels, then the
                                 block kernels (device_enqueue.c) */
  unsigned num_visible;       /* kernels before the block kernels */
  unsigned char *binary;      /* cc_program_binary's container */
  size_t binary_size;
  cc_kind kind;               /* objects and libraries have no kernels */
  char *options;              /* cc_program_options */
  size_t global_var_size;     /* cc_program_global_variable_size */
  /* Kept while cc_cache_capturing, for the disk cache: the object
   * files the JIT generated, the files the front end read and the libsleef
   * functions the code calls (names, each NUL-terminated). */
  unsigned char **cache_objects;   /* one per part (build.c: a program
                                      split per kernel is several) */
  size_t *cache_object_sizes;
  unsigned num_cache_objects;      /* 0: none captured */
  bool cache_objects_failed;       /* one could not be copied: no entry */
  char *cache_deps;
  size_t cache_deps_size;
  char *cache_symbols;
  size_t cache_symbols_size;
  struct cc_lazy *lazy;       /* a split build's parts (build.c), NULL for
                                 one whole module */
  char jit_error[384];        /* the JIT session's first error (build.c) */
};

/* The SKEIN_DUMP environment variable: true if it names stage (a
 * comma-separated list, or "all"). */
bool cc_dump_enabled(const char *stage);

#ifdef __cplusplus
}
#endif

#endif
