/* This file contains the loading and linking of the builtin library by
 * family: a program links only the families defining what it calls (and
 * what those call in turn), found through the generated symbol index
 * (builtin_families.h). Parsing and scanning the whole library cost tens
 * of milliseconds per build; most programs need a few small families. */
#include "builtin_families.h"
#include "compiler_internal.h"

#include <llvm-c/BitReader.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int compare_symbol(const void *key, const void *entry) {
  return strcmp(key, ((const cc_builtin_symbol *)entry)->name);
}

int cc_builtin_family_of(const char *name) {
  const cc_builtin_symbol *s =
      bsearch(name, cc_builtin_symbols, cc_num_builtin_symbols,
              sizeof(*cc_builtin_symbols), compare_symbol);
  return s ? (int)s->family : -1;
}

LLVMModuleRef cc_builtin_family_load(LLVMModuleRef like, unsigned family) {
  const cc_builtin_family *f = &cc_builtin_families[family];
  /* Lazily: function bodies are read only when the linker needs them. */
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(
      (const char *)f->bitcode, f->size, f->name, 0);
  LLVMModuleRef m;
  if (LLVMGetBitcodeModuleInContext2(LLVMGetModuleContext(like), buf, &m)) {
    LLVMDisposeMemoryBuffer(buf);
    return NULL;
  }
  LLVMSetTarget(m, LLVMGetTarget(like));
  LLVMSetDataLayout(m, LLVMGetDataLayoutStr(like));
  return m;
}

/* Marks in want[] the family of every symbol m declares but does not
 * define; true if there is any. */
static bool wanted_families(LLVMModuleRef m, bool *want) {
  bool any = false;
  memset(want, 0, cc_num_builtin_families * sizeof(*want));
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    size_t len;
    int family;
    if (LLVMIsDeclaration(f) &&
        (family = cc_builtin_family_of(LLVMGetValueName2(f, &len))) >= 0)
      any = want[family] = true;
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    size_t len;
    int family;
    if (LLVMIsDeclaration(g) &&
        (family = cc_builtin_family_of(LLVMGetValueName2(g, &len))) >= 0)
      any = want[family] = true;
  }
  return any;
}

bool cc_link_builtins(LLVMModuleRef m, cc_log *log) {
  bool want[cc_num_builtin_families];
  /* Each round defines every symbol it found declared; what those
   * definitions call may need another family (or one linked before, which
   * is loaded again: only declared symbols are linked, so nothing is
   * defined twice). A library whose families call each other in a cycle
   * of more rounds than this would be a bug in the library. */
  for (unsigned round = 0; round < 16; round++) {
    if (!wanted_families(m, want))
      return true;
    for (unsigned i = 0; i < cc_num_builtin_families; i++) {
      if (!want[i])
        continue;
      LLVMModuleRef fm = cc_builtin_family_load(m, i);
      if (!fm || !cc_link_only_needed(m, fm)) {
        cc_log_printf(log, "error: linking the builtin family '%s' "
                      "failed\n", cc_builtin_families[i].name);
        return false;
      }
    }
  }
  cc_log_printf(log, "error: internal compiler error: the builtin "
                "families did not resolve\n");
  return false;
}
