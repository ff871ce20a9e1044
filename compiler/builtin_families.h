/* This file declares the index of the builtin library (generated at build
 * time by builtins/gen_families.py): the library is kept as one bitcode
 * per family file (math_fp, convert_generated, workitem.c, ...), and a
 * name-sorted table says which family defines each external symbol, so a
 * build loads and links only the families its program uses. */
#ifndef SKEIN_BUILTIN_FAMILIES_H
#define SKEIN_BUILTIN_FAMILIES_H

#include <stddef.h>

typedef struct cc_builtin_family {
  const char *name;               /* the family file's name */
  const unsigned char *bitcode;   /* embedded, 16-byte aligned */
  size_t size;
} cc_builtin_family;

typedef struct cc_builtin_symbol {
  const char *name;               /* an external symbol of the library */
  unsigned family;                /* index into cc_builtin_families */
} cc_builtin_symbol;

extern const cc_builtin_family cc_builtin_families[];
extern const unsigned cc_num_builtin_families;
extern const cc_builtin_symbol cc_builtin_symbols[];   /* sorted (strcmp) */
extern const unsigned cc_num_builtin_symbols;

#endif
