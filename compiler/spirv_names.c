/* This file contains the renaming of the builtin calls llvm-spirv writes
 * onto the names of Skein's builtin library. Both are Itanium-mangled
 * OpenCL C names, but llvm-spirv mangles address spaces the SPIR way
 * (U3AS1 global, U3AS2 constant, U3AS3 local, U3AS4 generic, private
 * unqualified) and Skein's library, compiled for the host, the language
 * way (U8CLglobal, ..., U9CLprivate). The qualifiers take part in the
 * mangling's substitutions, so the names are compared demangled: each
 * library name once, with " CLprivate" dropped, and each name of a
 * program with " ASn" spelled as the library's qualifier. It also
 * spells the one OpenCL C type llvm-spirv names its own way in kernels'
 * argument metadata ("opencl.queue_t") as Clang does. */
#include "builtin_families.h"
#include "spirv_internal.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct name_entry {
  char *key;              /* the demangled, normalised name */
  const char *name;       /* the library's mangled name */
} name_entry;

static name_entry *table;
static size_t table_size;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

/* Replaces every occurrence of from in s (malloc'd) by to; returns the
 * new malloc'd string (s is freed), NULL on allocation failure. */
static char *replace_all(char *s, const char *from, const char *to) {
  size_t nf = strlen(from), nt = strlen(to), count = 0;
  for (const char *p = s; (p = strstr(p, from)); p += nf)
    count++;
  if (!count)
    return s;
  char *out = malloc(strlen(s) + count * nt + 1);
  if (out) {
    char *w = out;
    const char *p = s, *hit;
    while ((hit = strstr(p, from))) {
      memcpy(w, p, (size_t)(hit - p));
      w += hit - p;
      memcpy(w, to, nt);
      w += nt;
      p = hit + nf;
    }
    strcpy(w, p);
  }
  free(s);
  return out;
}

static int by_key(const void *a, const void *b) {
  return strcmp(((const name_entry *)a)->key, ((const name_entry *)b)->key);
}

/* Demangles every mangled name of the library once. */
static void build_table(void) {
  table = malloc(cc_num_builtin_symbols * sizeof(*table));
  if (!table)
    return;
  for (unsigned i = 0; i < cc_num_builtin_symbols; i++) {
    const char *name = cc_builtin_symbols[i].name;
    /* A builtin that needs its work-item's group exists as
     * __skein_ctx_F only; a call to F finds it (build.c). */
    if (strncmp(name, "__skein_ctx__Z", 14) == 0)
      name += 12;
    if (strncmp(name, "_Z", 2) != 0)
      continue;
    char *key = cc_demangle(name);
    if (key)
      key = replace_all(key, " CLprivate", "");
    if (key)
      table[table_size++] = (name_entry){key, name};
  }
  qsort(table, table_size, sizeof(*table), by_key);
}

/* The library's name for a builtin llvm-spirv calls name, or NULL. */
static const char *library_name(const char *name) {
  /* The address spaces, and llvm-spirv 15's names for the bitwise
   * group operations of SPV_KHR_uniform_group_instructions
   * (work_group_reduce_bitwise_and: cl_khr_work_group_uniform_arithmetic
   * calls them work_group_reduce_and). */
  static const char *const spaces[][2] = {
      {" AS1", " CLglobal"}, {" AS2", " CLconstant"},
      {" AS3", " CLlocal"},  {" AS4", " CLgeneric"},
      {"_bitwise_and(", "_and("}, {"_bitwise_or(", "_or("},
      {"_bitwise_xor(", "_xor("}};
  pthread_once(&table_once, build_table);
  char *key = cc_demangle(name);
  for (size_t i = 0; key && i < sizeof spaces / sizeof spaces[0]; i++)
    key = replace_all(key, spaces[i][0], spaces[i][1]);
  if (!key || !table)
    return free(key), NULL;
  name_entry probe = {key, NULL};
  name_entry *hit = bsearch(&probe, table, table_size, sizeof(*table),
                            by_key);
  free(key);
  return hit ? hit->name : NULL;
}

/* The kernel_arg_type (or _base_type, kind) metadata node of kernel f
 * with llvm-spirv's "opencl.queue_t" spelled "queue_t", as Clang
 * writes it and the runtime's clSetKernelArg looks for it (a queue_t
 * argument takes only a device queue). */
static void rename_queue_arg_type(LLVMValueRef f, const char *kind) {
  LLVMValueRef node = cc_function_md(f, kind);
  unsigned count = node ? LLVMGetMDNodeNumOperands(node) : 0;
  if (!count)
    return;
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(f));
  LLVMValueRef ops[count];
  LLVMMetadataRef mds[count];
  LLVMGetMDNodeOperands(node, ops);
  bool changed = false;
  for (unsigned i = 0; i < count; i++) {
    unsigned len = 0;
    const char *text = ops[i] ? LLVMGetMDString(ops[i], &len) : NULL;
    if (text && len == 14 && memcmp(text, "opencl.queue_t", 14) == 0) {
      mds[i] = LLVMMDStringInContext2(ctx, "queue_t", 7);
      changed = true;
    } else {
      mds[i] = ops[i] ? LLVMValueAsMetadata(ops[i]) : NULL;
    }
  }
  if (changed)
    LLVMGlobalSetMetadata(
        f, LLVMGetMDKindIDInContext(ctx, kind, (unsigned)strlen(kind)),
        LLVMMDNodeInContext2(ctx, mds, count));
}

void cc_il_rename_builtins(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    if (LLVMGetFunctionCallConv(f) != LLVMSPIRKERNELCallConv)
      continue;
    rename_queue_arg_type(f, "kernel_arg_type");
    rename_queue_arg_type(f, "kernel_arg_base_type");
  }
  LLVMValueRef next;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = next) {
    next = LLVMGetNextFunction(f);
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (!LLVMIsDeclaration(f) || strncmp(name, "_Z", 2) != 0 ||
        cc_builtin_family_of(name) >= 0)
      continue;
    const char *to = library_name(name);
    if (!to || strcmp(to, name) == 0)
      continue;   /* check_undefined reports it by name; a __skein_ctx_
                     builtin keeps its name */
    LLVMValueRef have = LLVMGetNamedFunction(m, to);
    if (have) {
      /* Both spellings were declared: one function, the library's. */
      LLVMReplaceAllUsesWith(f, have);
      LLVMDeleteFunction(f);
    } else {
      LLVMSetValueName2(f, to, strlen(to));
    }
  }
}
