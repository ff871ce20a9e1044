/* This file declares the SPIR-V side of compiler/ shared by its files:
 * the module as Skein reads it (spirv_module.c) and the contained
 * translation to LLVM bitcode (spirv_translate.c). */
#ifndef SKEIN_SPIRV_INTERNAL_H
#define SKEIN_SPIRV_INTERNAL_H

#include "compiler_internal.h"

/* The highest SPIR-V version the translator (llvm-spirv 15) reads. */
#define CC_IL_MAX_VERSION 0x00010400u

/* A specialization constant with a SpecId decoration. */
typedef struct cc_il_spec_const {
  uint32_t id;      /* its SpecId */
  uint32_t size;    /* bytes clSetProgramSpecializationConstant takes
                       (1 for OpSpecConstantTrue/False) */
  uint32_t word;    /* index of its instruction in the module's words */
  bool is_signed;   /* a signed integer type */
} cc_il_spec_const;

/* How many capabilities, extensions and instruction set imports a
 * module may declare (more fail the build). */
#define CC_IL_MAX_LISTED 64

/* A literal string operand: its first word and its length in words. */
typedef struct cc_il_name {
  size_t at;
  uint32_t words;
} cc_il_name;

/* A SPIR-V module that passed cc_il_load, in host byte order. */
struct cc_il_module {
  uint32_t *words;
  size_t num_words;
  cc_il_spec_const *specs;
  unsigned num_specs;
  uint32_t caps[CC_IL_MAX_LISTED];          /* OpCapability operands */
  unsigned num_caps;
  cc_il_name extensions[CC_IL_MAX_LISTED];  /* OpExtension names */
  unsigned num_extensions;
  cc_il_name imports[CC_IL_MAX_LISTED];     /* OpExtInstImport names */
  unsigned num_imports;
  bool too_many;                 /* more than CC_IL_MAX_LISTED of one */
  bool subgroups_per_workgroup;  /* an execution mode Skein lacks */
  uint32_t addressing, memory_model;
  bool has_memory_model;
};

/* The spec constant with SpecId id, or NULL. */
const cc_il_spec_const *cc_il_find_spec(const cc_il_module *m, uint32_t id);

/* Logs why m cannot be built for a device with caps (capabilities,
 * SPIR-V extensions or extended instruction sets other than those
 * cc_il_capabilities, cc_il_extensions and cc_il_instruction_sets list
 * for caps; the SubgroupsPerWorkgroup execution mode; an addressing or
 * memory model other than Physical64 / OpenCL) and returns false. */
bool cc_il_supported(const cc_il_module *m, const cc_device_caps *caps,
                     cc_log *log);

/* A malloc'd copy of m's words with the n values applied to their spec
 * constants; NULL on allocation failure. */
uint32_t *cc_il_specialize(const cc_il_module *m,
                           const cc_il_spec_value *values, unsigned n);

/* Validates the num_words words of a SPIR-V module with spirv-val and
 * translates them to LLVM 15 bitcode with llvm-spirv -r, each in a child
 * process with a time and memory limit, through files of a private
 * temporary folder. On success *bc is the malloc'd bitcode; otherwise the
 * reason (the tool's own messages included) is in log. */
cc_status cc_il_translate(const uint32_t *words, size_t num_words,
                          unsigned char **bc, size_t *bc_size, cc_log *log);

/* A malloc'd copy of the num_words words of a module that passed
 * cc_il_load (*out_words of them) in which the instructions llvm-spirv 15
 * cannot translate are calls of functions the copy imports from Skein's
 * library (spirv_lower.c: named barriers, OpReadClockKHR, the atomic
 * floating-point instructions). NULL if out of memory, or with *why (a
 * malloc'd reason) if the module uses them in a way Skein cannot call. */
uint32_t *cc_il_lower(const uint32_t *words, size_t num_words,
                      size_t *out_words, char **why);

/* Renames m's declarations of builtins, as llvm-spirv mangles them, to
 * the names of Skein's library (spirv_names.c); names the library lacks
 * stay, for the build to report. Kernels' "opencl.queue_t" argument
 * types become Clang's "queue_t". */
void cc_il_rename_builtins(LLVMModuleRef m);

#endif
