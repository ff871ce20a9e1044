/* This file is the public interface of compiler/: OpenCL C source to
 * JIT-compiled work-group functions, with the metadata the runtime needs
 * about each kernel. It knows nothing of queues, events or cl_* objects;
 * the runtime owns those and calls in here.
 *
 * Environment variables (debugging):
 *   SKEIN_DUMP=ir        print the IR of every stage of every build to
 *                        stderr; or a comma-separated list of stages:
 *                        frontend (Clang's output), linked (work-group
 *                        functions generated, builtins linked), lowered
 *                        (kernels inlined, work-item builtins replaced),
 *                        optimized (after default<O3>, what the JIT gets);
 *                        "time" prints each stage's duration instead.
 *   SKEIN_MODE=fiber     run every kernel in fiber mode (each work-item a
 *                        fiber), not only those that reach a barrier or
 *                        a work-group collective; for debugging and
 *                        comparison.
 *   SKEIN_MODE=loop      no region mode: barrier-free kernels in plain
 *                        loop mode (their loops not cut), barrier kernels
 *                        in fiber mode.
 *   SKEIN_VECTORIZE=0    LLVM's loop and SLP vectorisers off (the scalar
 *                        form of every kernel, for comparison).
 *   SKEIN_INTERLEAVE=n   vector chains interleaved in the work-item loop
 *                        of kernels with long floating-point bodies
 *                        (default 4; see wg_gen.c).
 *
 * Each program owns one ORC LLJIT instance: destroying the program frees
 * its machine code, and concurrent builds share no LLVM state. */
#ifndef SKEIN_COMPILER_H
#define SKEIN_COMPILER_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "../builtins/abi.h"

#ifdef __cplusplus
extern "C" {   /* region mode (C++) asks for cc_sub_group_size */
#endif

/* Result codes of compiler entry points (the runtime maps them to CL). */
typedef enum cc_status {
  CC_OK = 0,
  CC_BUILD_FAILED,     /* diagnostics in the log */
  CC_INVALID_OPTIONS,  /* the option string is not acceptable */
  CC_INVALID_BINARY,   /* a binary that failed validation */
  CC_OUT_OF_MEMORY,
} cc_status;

/* What kind of value a kernel argument takes (its address qualifier). */
typedef enum cc_arg_kind {
  CC_ARG_GLOBAL,       /* __global pointer: a cl_mem (or NULL) */
  CC_ARG_CONSTANT,     /* __constant pointer: a cl_mem (or NULL) */
  CC_ARG_LOCAL,        /* __local pointer: a size, value NULL */
  CC_ARG_VALUE,        /* by value: scalar, vector or struct of size bytes */
  CC_ARG_SAMPLER,      /* sampler_t: its 64-bit sampler_t bits (abi.h) */
  CC_ARG_IMAGE,        /* image types: the image's skein_image address */
  CC_ARG_PIPE,         /* pipe types: the pipe's skein_pipe address
                          (builtins/pipes.h) */
} cc_arg_kind;

/* The most pipe arguments a kernel may have (CL_DEVICE_MAX_PIPE_ARGS,
 * the FULL_PROFILE minimum): a kernel with more fails the build
 * (kernel_info.c), since the spec names no error for it at enqueue. */
#define CC_MAX_PIPE_ARGS 16u

typedef struct cc_arg_info {
  cc_arg_kind kind;
  size_t size;                 /* bytes clSetKernelArg must be given */
  unsigned address_qualifier;  /* CL_KERNEL_ARG_ADDRESS_* */
  unsigned access_qualifier;   /* CL_KERNEL_ARG_ACCESS_* */
  uint64_t type_qualifier;     /* CL_KERNEL_ARG_TYPE_* bit field */
  char *type_name;             /* e.g. "float4*", never NULL */
  char *name;                  /* NULL unless built with -cl-kernel-arg-info */
} cc_arg_info;

/* One check of a bounds-checked kernel: the access it guards. */
typedef struct cc_bounds_site {
  unsigned arg;                /* kernel argument index, or UINT_MAX for a
                                  program- or kernel-scope variable */
  char *variable;              /* that variable's name, else NULL */
  uint64_t variable_size;      /* its size in bytes */
  uint64_t access;             /* bytes the access touches (1: a pointer
                                  handed to a library function) */
  unsigned line;               /* source line (built with -g), else 0 */
  bool is_store;
} cc_bounds_site;

typedef struct cc_kernel_info {
  char *name;
  unsigned num_args;
  cc_arg_info *args;
  char *attributes;            /* CL_KERNEL_ATTRIBUTES text, "" if none */
  size_t reqd_work_group_size[3];  /* 0,0,0 if not given */
  size_t work_group_size_hint[3];
  size_t static_local_mem_size;    /* kernel-scope __local variables */
  size_t private_mem_size;         /* per work-item, estimated (fiber
                                      mode sizes its stacks from it) */
  bool uses_barriers;          /* runs in fiber mode: reaches a barrier or
                                  collective (or SKEIN_MODE=fiber) */
  unsigned sub_group_size;     /* cc_sub_group_size() of the build, or
                                  the required size: the launch's
                                  skein_launch.sub_group_size */
  unsigned required_sub_group_size;  /* intel_reqd_sub_group_size(N): N,
                                        else 0 */
  bool uses_printf;            /* reaches printf: launches get a printf
                                  buffer (compiler/printf_lower.c) */
  /* Bounds-checked kernels: what each check site guards (a report names
   * the site that failed); NULL, 0 otherwise. */
  struct cc_bounds_site *bounds_sites;
  unsigned num_bounds_sites;
  skein_wg_fn wg;              /* the JIT-compiled work-group function */
} cc_kernel_info;

typedef struct cc_program cc_program;

/* The sub-group size of every kernel built in this process: the number
 * of 32-bit lanes of the vectors the optimiser targets on the host CPU
 * (16 with AVX-512, 8 with AVX/AVX2, 4 otherwise). Sub-groups are runs of
 * this many consecutive linear local ids (see skein_launch). */
unsigned cc_sub_group_size(void);

/* The sub-group sizes a kernel may require with intel_reqd_sub_group_size
 * (CL_DEVICE_SUB_GROUP_SIZES_INTEL): *sizes gets the static list, the
 * count is returned. cc_sub_group_size_supported says whether n is one. */
size_t cc_sub_group_sizes(const size_t **sizes);
bool cc_sub_group_size_supported(unsigned n);

/* Whether kernels run cl_khr_integer_dot_product's unsigned x signed
 * 4x8-bit dot products (plain and saturating) on the target CPU's VNNI
 * instructions: AVX512-VNNI with AVX-512F, or AVX-VNNI
 * (compiler/dot_vnni.c). */
bool cc_dot_vnni_available(void);

/* What the device lets kernels use: drives the predefined macros and
 * -cl-ext of every compile. Strings are space-separated lists. */
typedef struct cc_device_caps {
  const char *extensions;      /* e.g. "cl_khr_fp64 cl_khr_int64_base_atomics" */
  const char *features;        /* e.g. "__opencl_c_fp64 __opencl_c_int64" */
  unsigned max_cl_c_version;   /* 300 for OpenCL C 3.0 */
} cc_device_caps;

/* Compiles source with the user's options, links the builtin library,
 * generates and JIT-compiles the work-group function of every kernel.
 * On success *out owns the program; on any result *log (may be NULL on
 * success) is a malloc'd NUL-terminated build log the caller frees.
 * Thread-safe: several builds may run at once. */
cc_status cc_build_source(const char *source, size_t length,
                          const char *options, const cc_device_caps *caps,
                          cc_program **out, char **log);

/* The program's binary (CL_PROGRAM_BINARIES): a versioned container the
 * compiler can load again with cc_build_binary. The pointer stays owned
 * by the program. */
const unsigned char *cc_program_binary(const cc_program *p, size_t *size);

/* Loads a binary made by cc_program_binary. CC_INVALID_BINARY for
 * anything not such a binary (never a crash). */
cc_status cc_build_binary(const unsigned char *binary, size_t size,
                          const char *options, const cc_device_caps *caps,
                          cc_program **out, char **log);

/* What a program binary holds (CL_PROGRAM_BINARY_TYPE). */
typedef enum cc_kind {
  CC_KIND_EXECUTABLE,  /* kernels ready to run */
  CC_KIND_OBJECT,      /* clCompileProgram's compiled object */
  CC_KIND_LIBRARY,     /* clLinkProgram -create-library */
} cc_kind;

/* An embedded header of clCompileProgram: the source text that
 * #include "name" (name may contain folders: "dir/a.h") finds. */
typedef struct cc_header {
  const char *name;
  const char *text;
  size_t length;
} cc_header;

/* Compiles source with the compile options and the n embedded headers
 * into a compiled object: front-end bitcode only, nothing linked or
 * generated. *out owns an unbuilt program of kind CC_KIND_OBJECT whose
 * cc_program_binary is the object. *log as for cc_build_source. */
cc_status cc_compile_source(const char *source, size_t length,
                            const char *options, const cc_header *headers,
                            unsigned n, const cc_device_caps *caps,
                            cc_program **out, char **log);

/* Links the n binaries (compiled objects or libraries, as made by
 * cc_compile_source or cc_link) with the link options (-create-library,
 * -enable-link-options and the math options of clLinkProgram;
 * CC_INVALID_OPTIONS for anything else). With -create-library *out is an
 * unbuilt CC_KIND_LIBRARY program; otherwise an executable built like
 * cc_build_source's. A symbol defined twice, a function called but
 * defined nowhere, or a binary that is not an object or library give
 * CC_BUILD_FAILED with the reason in *log. */
cc_status cc_link(const unsigned char *const *binaries, const size_t *sizes,
                  unsigned n, const char *options,
                  const cc_device_caps *caps, cc_program **out, char **log);

/* Loads a binary of any kind: an executable is built as cc_build_binary
 * does; a compiled object or library is only validated (*out is an
 * unbuilt program of that kind). cc_build_binary, in contrast, builds an
 * executable from any kind. */
cc_status cc_load_binary(const unsigned char *binary, size_t size,
                         const cc_device_caps *caps, cc_program **out,
                         char **log);

/* SPIR-V programs (clCreateProgramWithIL; compiler/spirv_*.c). A module
 * is read and checked by Skein, then validated and translated to LLVM
 * bitcode by spirv-val and llvm-spirv in child processes, and from there
 * takes the OpenCL C path (everything after the front end). */
typedef struct cc_il_module cc_il_module;

/* A value given to clSetProgramSpecializationConstant: the raw bits,
 * zero-extended. */
typedef struct cc_il_spec_value {
  uint32_t id;
  uint64_t value;
} cc_il_spec_value;

/* Whether SPIR-V programs can be built: the translator and validator
 * found when Skein was configured are present (SKEIN_LLVM_SPIRV and
 * SKEIN_SPIRV_VAL name others). */
bool cc_il_available(void);

/* The highest SPIR-V version read, as major * 100 + minor (104). */
unsigned cc_il_max_version(void);

/* cl_khr_spirv_queries: the SPIR-V capabilities (their numbers), the
 * SPIR-V extensions and the extended instruction sets (their names,
 * static strings) that modules built for a device with caps may declare;
 * anything else fails the build. Each writes up to max entries to out
 * (which may be NULL) and returns how many there are. */
unsigned cc_il_capabilities(const cc_device_caps *caps, uint32_t *out,
                            unsigned max);
unsigned cc_il_extensions(const cc_device_caps *caps, const char **out,
                          unsigned max);
unsigned cc_il_instruction_sets(const cc_device_caps *caps, const char **out,
                                unsigned max);

/* Reads il (length bytes, either byte order): the header, every
 * instruction's word count, the ids it relies on. On success *out owns
 * a copy in host byte order; otherwise *why (malloc'd, may be NULL on
 * allocation failure) says what is malformed. */
bool cc_il_load(const void *il, size_t length, cc_il_module **out,
                char **why);
void cc_il_module_free(cc_il_module *m);

/* The size in bytes of the specialization constant id of m (1 for a
 * boolean), 0 if m has none of that id. */
size_t cc_il_spec_size(const cc_il_module *m, uint32_t id);

/* clBuildProgram and clCompileProgram of m with the n specialization
 * constant values: like cc_build_source and cc_compile_source, the
 * SPIR-V translated to LLVM IR in place of the front end. */
cc_status cc_build_il(const cc_il_module *m, const cc_il_spec_value *values,
                      unsigned n, const char *options,
                      const cc_device_caps *caps, cc_program **out,
                      char **log);
cc_status cc_compile_il(const cc_il_module *m,
                        const cc_il_spec_value *values, unsigned n,
                        const char *options, const cc_device_caps *caps,
                        cc_program **out, char **log);

/* The kind of p, and the options its binary records (for executables
 * made by cc_link: the options of its units that rule launches, such as
 * -cl-std and -cl-kernel-arg-info). Owned by p. */
cc_kind cc_program_kind(const cc_program *p);
const char *cc_program_options(const cc_program *p);

/* The bytes of p's program-scope global variables (and static ones in
 * functions) in the global address space, for
 * CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE; 0 for an unbuilt program. */
size_t cc_program_global_variable_size(const cc_program *p);
unsigned cc_program_num_kernels(const cc_program *p);
const cc_kernel_info *cc_program_kernel(const cc_program *p, unsigned i);
/* NULL if the program has no kernel of that name. */
const cc_kernel_info *cc_program_find_kernel(const cc_program *p,
                                             const char *name);
/* The block kernel of that name (a kernel Clang made for a block that
 * enqueue_kernel launches; not among the kernels above), or NULL. */
const cc_kernel_info *cc_program_find_block_kernel(const cc_program *p,
                                                   const char *name);
/* Whether kernel k has an image argument (such kernels stay out of
 * region mode, build.c, and get 2D work-groups of a bounded width,
 * runtime/api/api_enqueue_kernel.c's choose_local). */
bool cc_kernel_takes_images(const cc_kernel_info *k);
/* Makes kernel info of p ready to launch before a cl_kernel is made of
 * it: a kernel of a lazy build is compiled at its first use (build.c).
 * False if its compile failed (the reason goes to stderr). */
bool cc_program_kernel_prepare(const cc_program *p,
                               const cc_kernel_info *info);
void cc_program_destroy(cc_program *p);

#ifdef __cplusplus
}
#endif

#endif
