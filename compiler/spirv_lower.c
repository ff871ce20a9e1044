/* This file contains Skein's own translation of the SPIR-V instructions
 * that llvm-spirv 15 cannot read, or reads without what Skein needs,
 * into calls of functions of Skein's library that the module imports
 * (LinkageAttributes Import), done on the words before the validator and
 * the translator see them:
 *   - cl_khr_subgroup_named_barrier: OpTypeNamedBarrier becomes a pointer
 *     into a Workgroup table that the module gains, OpNamedBarrierInitialize
 *     a call of __spirv_NamedBarrierInitialize(table, index, count) (each
 *     instruction owns entry index) and OpMemoryNamedBarrier a call of
 *     __spirv_MemoryNamedBarrier(barrier, scope, semantics)
 *     (builtins/named_barrier.c);
 *   - cl_khr_kernel_clock (SPV_KHR_shader_clock): OpReadClockKHR becomes
 *     __skein_spirv_read_clock(scope) (builtins/kernel_clock.cl), bitcast
 *     to two 32-bit integers for that form;
 *   - cl_ext_float_atomics (SPV_EXT_shader_atomic_float_add, _float16_add,
 *     _float_min_max): OpAtomicFAddEXT, OpAtomicFMinEXT and OpAtomicFMaxEXT
 *     become __skein_spirv_atomic_f<op>_<type>_<space>(pointer, scope,
 *     semantics, value), which keep the scope and the semantics that
 *     llvm-spirv's own reading drops (builtins/spirv_atomics.cl).
 * The capabilities and extensions these need are dropped from the copy:
 * nothing in it uses them any more. */
#include "spirv_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  OP_NOP = 0, OP_UNDEF = 1, OP_SOURCE_CONTINUED = 2, OP_SOURCE = 3,
  OP_SOURCE_EXTENSION = 4, OP_NAME = 5, OP_MEMBER_NAME = 6, OP_STRING = 7,
  OP_EXTENSION = 10, OP_EXT_INST_IMPORT = 11, OP_MEMORY_MODEL = 14,
  OP_ENTRY_POINT = 15, OP_EXECUTION_MODE = 16, OP_CAPABILITY = 17,
  OP_TYPE_VOID = 19, OP_TYPE_INT = 21, OP_TYPE_FLOAT = 22,
  OP_TYPE_VECTOR = 23, OP_TYPE_ARRAY = 28, OP_TYPE_STRUCT = 30,
  OP_TYPE_POINTER = 32, OP_TYPE_FUNCTION = 33, OP_CONSTANT = 43,
  OP_CONSTANT_NULL = 46, OP_SPEC_CONSTANT_OP = 52, OP_FUNCTION = 54,
  OP_FUNCTION_PARAMETER = 55, OP_FUNCTION_END = 56, OP_FUNCTION_CALL = 57,
  OP_VARIABLE = 59, OP_LOAD = 61, OP_ACCESS_CHAIN = 65,
  OP_IN_BOUNDS_ACCESS_CHAIN = 66, OP_PTR_ACCESS_CHAIN = 67,
  OP_IN_BOUNDS_PTR_ACCESS_CHAIN = 70, OP_DECORATE = 71,
  OP_MEMBER_DECORATE = 72, OP_DECORATION_GROUP = 73, OP_GROUP_DECORATE = 74,
  OP_GROUP_MEMBER_DECORATE = 75, OP_COPY_OBJECT = 83,
  OP_CONVERT_U_TO_PTR = 120, OP_PTR_CAST_TO_GENERIC = 121,
  OP_GENERIC_CAST_TO_PTR = 122, OP_GENERIC_CAST_TO_PTR_EXPLICIT = 123,
  OP_BITCAST = 124, OP_SELECT = 169, OP_PHI = 245,
  OP_TYPE_NAMED_BARRIER = 327, OP_NAMED_BARRIER_INITIALIZE = 328,
  OP_MEMORY_NAMED_BARRIER = 329, OP_MODULE_PROCESSED = 330,
  OP_EXECUTION_MODE_ID = 331, OP_DECORATE_ID = 332,
  OP_READ_CLOCK_KHR = 5056, OP_ATOMIC_FMIN_EXT = 5614,
  OP_ATOMIC_FMAX_EXT = 5615, OP_DECORATE_STRING = 5632,
  OP_MEMBER_DECORATE_STRING = 5633, OP_ATOMIC_FADD_EXT = 6035,

  CAP_LINKAGE = 5, CAP_NAMED_BARRIER = 59, CAP_SHADER_CLOCK = 5055,
  CAP_ATOMIC_FLOAT16_MIN_MAX = 5616, CAP_ATOMIC_FLOAT32_MIN_MAX = 5612,
  CAP_ATOMIC_FLOAT64_MIN_MAX = 5613, CAP_ATOMIC_FLOAT32_ADD = 6033,
  CAP_ATOMIC_FLOAT64_ADD = 6034, CAP_ATOMIC_FLOAT16_ADD = 6095,

  DECORATION_LINKAGE_ATTRIBUTES = 41, LINKAGE_IMPORT = 1,
  STORAGE_WORKGROUP = 4, STORAGE_CROSS_WORKGROUP = 5, STORAGE_GENERIC = 8,
};

/* The words of one named barrier's state (builtins/named_barrier.c). */
#define NB_WORDS 4
/* How many functions one module may import from here. */
#define MAX_IMPORTS 64

/* A function the copy imports: its name, ids and signature. */
typedef struct import {
  char name[64];
  uint32_t fn, type;          /* the OpFunction and its OpTypeFunction */
  bool new_type;              /* type is added (not the module's own) */
  uint32_t ret, params[4];
  unsigned num_params;
} import;

typedef struct lower {
  const uint32_t *w;
  size_t num_words;
  uint32_t bound, next_id;
  uint32_t u32, u64, void_type;
  /* Per id: the result type of a value whose type the atomics need, the
   * storage class + 1 and pointee of a pointer type, the width of a
   * float type, the component type and count of a vector type. */
  uint32_t *type_of, *ptr_class, *pointee, *float_width;
  uint32_t *vec_of, *vec_len;
  bool has_linkage;
  uint32_t nb_type;           /* OpTypeNamedBarrier's id, or 0 */
  unsigned nb_inits;          /* OpNamedBarrierInitialize count */
  bool nb_waits;              /* an OpMemoryNamedBarrier */
  uint32_t nb_len, nb_array, nb_array_ptr, nb_table, nb_first_index;
  uint32_t nb_struct;         /* what the barrier type points at */
  import imports[MAX_IMPORTS];
  unsigned num_imports;
  uint32_t *out;
  size_t n, cap;
  bool oom;
} lower;

static bool fail(char **why, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool fail(char **why, const char *fmt, ...) {
  char text[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (why && !*why)
    *why = strdup(text);
  return false;
}

static void emit_words(lower *l, const uint32_t *words, size_t count) {
  if (l->oom)
    return;
  if (l->n + count > l->cap) {
    size_t cap = (l->n + count) * 2 + 64;
    uint32_t *grown = realloc(l->out, cap * sizeof(*grown));
    if (!grown) {
      l->oom = true;
      return;
    }
    l->out = grown;
    l->cap = cap;
  }
  memcpy(l->out + l->n, words, count * sizeof(*words));
  l->n += count;
}

/* Emits instruction op with the count operand words. */
static void emit(lower *l, uint32_t op, unsigned count, ...) {
  uint32_t words[16];
  va_list ap;
  va_start(ap, count);
  words[0] = (uint32_t)(count + 1) << 16 | op;
  for (unsigned i = 0; i < count && i < 15; i++)
    words[i + 1] = va_arg(ap, uint32_t);
  va_end(ap);
  emit_words(l, words, count + 1);
}

/* Whether the words of a literal string operand say s. */
static bool string_is(const uint32_t *words, uint32_t n, const char *s) {
  size_t len = strlen(s);
  return (size_t)n * 4 > len && memcmp(words, s, len) == 0 &&
         ((const char *)words)[len] == '\0';
}

/* The imported function name with this signature, added if new;
 * NULL if the module needs more than MAX_IMPORTS. */
static import *need_import(lower *l, const char *name, uint32_t ret,
                           const uint32_t *params, unsigned num_params) {
  for (unsigned i = 0; i < l->num_imports; i++)
    if (strcmp(l->imports[i].name, name) == 0)
      return &l->imports[i];
  if (l->num_imports == MAX_IMPORTS)
    return NULL;
  import *im = &l->imports[l->num_imports++];
  memset(im, 0, sizeof(*im));
  snprintf(im->name, sizeof im->name, "%s", name);
  im->fn = l->next_id++;
  im->ret = ret;
  im->num_params = num_params;
  memcpy(im->params, params, num_params * sizeof(*params));
  /* A module's OpTypeFunction of the same signature is reused: spirv-val
   * refuses two of one signature. */
  for (size_t at = 5; at < l->num_words;) {
    uint32_t count = l->w[at] >> 16, op = l->w[at] & 0xffffu;
    const uint32_t *a = l->w + at + 1;
    if (op == OP_FUNCTION)
      break;
    if (op == OP_TYPE_FUNCTION && count == 3 + num_params && a[1] == ret &&
        memcmp(a + 2, params, num_params * sizeof(*params)) == 0) {
      im->type = a[0];
      return im;
    }
    at += count;
  }
  for (unsigned i = 0; i < l->num_imports - 1; i++) {
    import *o = &l->imports[i];
    if (o->new_type && o->ret == ret && o->num_params == num_params &&
        memcmp(o->params, params, num_params * sizeof(*params)) == 0) {
      im->type = o->type;
      return im;
    }
  }
  im->type = l->next_id++;
  im->new_type = true;
  return im;
}

/* Records what the instruction at a (op, count words) tells about types
 * and values. */
static void note_types(lower *l, uint32_t op, const uint32_t *a,
                       uint32_t n) {
  uint32_t bound = l->bound;
  switch (op) {
  case OP_TYPE_VOID:
    if (n >= 1 && !l->void_type)
      l->void_type = a[0];
    break;
  case OP_TYPE_INT:
    if (n >= 3 && a[1] == 32 && a[2] == 0 && !l->u32)
      l->u32 = a[0];
    if (n >= 3 && a[1] == 64 && a[2] == 0 && !l->u64)
      l->u64 = a[0];
    break;
  case OP_TYPE_FLOAT:
    if (n >= 2 && a[0] < bound)
      l->float_width[a[0]] = a[1];
    break;
  case OP_TYPE_VECTOR:
    if (n >= 3 && a[0] < bound) {
      l->vec_of[a[0]] = a[1];
      l->vec_len[a[0]] = a[2];
    }
    break;
  case OP_TYPE_POINTER:
    if (n >= 3 && a[0] < bound) {
      l->ptr_class[a[0]] = a[1] + 1;
      l->pointee[a[0]] = a[2];
    }
    break;
  case OP_TYPE_NAMED_BARRIER:
    if (n >= 1 && !l->nb_type)
      l->nb_type = a[0];
    break;
  /* Values of the form (result type, result, ...) whose type an atomic's
   * pointer operand may need. */
  case OP_UNDEF: case OP_CONSTANT_NULL: case OP_SPEC_CONSTANT_OP:
  case OP_FUNCTION_PARAMETER: case OP_FUNCTION_CALL: case OP_VARIABLE:
  case OP_LOAD: case OP_ACCESS_CHAIN: case OP_IN_BOUNDS_ACCESS_CHAIN:
  case OP_PTR_ACCESS_CHAIN: case OP_IN_BOUNDS_PTR_ACCESS_CHAIN:
  case OP_COPY_OBJECT: case OP_CONVERT_U_TO_PTR: case OP_PTR_CAST_TO_GENERIC:
  case OP_GENERIC_CAST_TO_PTR: case OP_GENERIC_CAST_TO_PTR_EXPLICIT:
  case OP_BITCAST: case OP_SELECT: case OP_PHI:
    if (n >= 2 && a[1] < bound)
      l->type_of[a[1]] = a[0];
    break;
  default:
    break;
  }
}

/* The import an OpAtomicF{Add,Min,Max}EXT of result type t on pointer p
 * calls, or NULL (with *why set) if Skein has none. */
static import *atomic_import(lower *l, uint32_t op, uint32_t t, uint32_t p,
                             char **why) {
  uint32_t bound = l->bound;
  uint32_t pt = p < bound ? l->type_of[p] : 0;
  uint32_t width = t < bound ? l->float_width[t] : 0;
  uint32_t cls = pt && pt < bound ? l->ptr_class[pt] : 0;
  const char *space = cls == STORAGE_CROSS_WORKGROUP + 1 ? "global"
                      : cls == STORAGE_WORKGROUP + 1     ? "local"
                      : cls == STORAGE_GENERIC + 1       ? "generic"
                                                         : NULL;
  if (!width || !space || !l->u32) {
    fail(why, "an atomic floating-point instruction on %s",
         !width ? "a type other than a float"
                : "memory other than CrossWorkgroup, Workgroup or Generic");
    return NULL;
  }
  const char *what = op == OP_ATOMIC_FADD_EXT   ? "add"
                     : op == OP_ATOMIC_FMIN_EXT ? "min"
                                                : "max";
  char name[64];
  snprintf(name, sizeof name, "__skein_spirv_atomic_f%s_f%u_%s", what,
           width, space);
  uint32_t params[4] = {pt, l->u32, l->u32, t};
  import *im = need_import(l, name, t, params, 4);
  if (!im)
    fail(why, "too many imported functions");
  return im;
}

/* Pass 1: what the module has and what it needs. */
static bool scan(lower *l, char **why) {
  for (size_t at = 5; at < l->num_words;) {
    uint32_t count = l->w[at] >> 16, op = l->w[at] & 0xffffu;
    const uint32_t *a = l->w + at + 1;
    uint32_t n = count - 1;
    note_types(l, op, a, n);
    if (op == OP_CAPABILITY && n >= 1 && a[0] == CAP_LINKAGE)
      l->has_linkage = true;
    if (op == OP_NAMED_BARRIER_INITIALIZE)
      l->nb_inits++;
    if (op == OP_MEMORY_NAMED_BARRIER)
      l->nb_waits = true;
    if (op == OP_READ_CLOCK_KHR && n >= 3) {
      /* A 64-bit integer, or two 32-bit ones: the 64-bit read, bitcast
       * (low bits first, as the extension orders them). */
      bool hilo = a[0] < l->bound && l->vec_len[a[0]] == 2;
      uint32_t params[1] = {l->u32};
      if (!l->u32 || !l->u64 || (!hilo && a[0] != l->u64))
        return fail(why, "OpReadClockKHR without 32-bit and 64-bit integer "
                    "types");
      if (!need_import(l, "__skein_spirv_read_clock", l->u64, params, 1))
        return fail(why, "too many imported functions");
    }
    if ((op == OP_ATOMIC_FADD_EXT || op == OP_ATOMIC_FMIN_EXT ||
         op == OP_ATOMIC_FMAX_EXT) &&
        (n < 6 || !atomic_import(l, op, a[0], a[2], why)))
      return fail(why, "a malformed atomic floating-point instruction");
    at += count;
  }
  if (l->nb_inits || l->nb_waits || l->nb_type) {
    /* (Checked here, before the validator has seen the module.) */
    if (!l->nb_type || !l->u32 || !l->void_type)
      return fail(why, "named barriers without OpTypeNamedBarrier or a "
                  "32-bit integer type");
    uint32_t params[3] = {l->nb_type, l->u32, l->u32};
    if (l->nb_waits && !need_import(l, "__spirv_MemoryNamedBarrier",
                                    l->void_type, params, 3))
      return fail(why, "too many imported functions");
    l->nb_struct = l->next_id++;
  }
  if (l->nb_inits) {
    l->nb_len = l->next_id++;
    l->nb_array = l->next_id++;
    l->nb_array_ptr = l->next_id++;
    l->nb_table = l->next_id++;
    l->nb_first_index = l->next_id;
    l->next_id += l->nb_inits;
    uint32_t params[3] = {l->nb_array_ptr, l->u32, l->u32};
    if (!need_import(l, "__spirv_NamedBarrierInitialize", l->nb_type, params,
                     3))
      return fail(why, "too many imported functions");
  }
  if (l->next_id >= (1u << 22))
    return fail(why, "the module's ids run out");
  return true;
}

/* Whether op belongs before the types: capabilities, extensions, the
 * memory model, entry points and modes, debug names and annotations. */
static bool in_preamble(uint32_t op) {
  switch (op) {
  case OP_NOP: case OP_SOURCE_CONTINUED: case OP_SOURCE:
  case OP_SOURCE_EXTENSION: case OP_NAME: case OP_MEMBER_NAME:
  case OP_STRING: case OP_EXTENSION: case OP_EXT_INST_IMPORT:
  case OP_MEMORY_MODEL: case OP_ENTRY_POINT: case OP_EXECUTION_MODE:
  case OP_CAPABILITY: case OP_DECORATE: case OP_MEMBER_DECORATE:
  case OP_DECORATION_GROUP: case OP_GROUP_DECORATE:
  case OP_GROUP_MEMBER_DECORATE: case OP_MODULE_PROCESSED:
  case OP_EXECUTION_MODE_ID: case OP_DECORATE_ID: case OP_DECORATE_STRING:
  case OP_MEMBER_DECORATE_STRING:
    return true;
  default:
    return false;
  }
}

static bool dropped_capability(uint32_t cap) {
  return cap == CAP_NAMED_BARRIER || cap == CAP_SHADER_CLOCK ||
         cap == CAP_ATOMIC_FLOAT16_MIN_MAX ||
         cap == CAP_ATOMIC_FLOAT32_MIN_MAX ||
         cap == CAP_ATOMIC_FLOAT64_MIN_MAX || cap == CAP_ATOMIC_FLOAT32_ADD ||
         cap == CAP_ATOMIC_FLOAT64_ADD || cap == CAP_ATOMIC_FLOAT16_ADD;
}

static bool dropped_extension(const uint32_t *name, uint32_t n) {
  return string_is(name, n, "SPV_KHR_shader_clock") ||
         string_is(name, n, "SPV_EXT_shader_atomic_float_add") ||
         string_is(name, n, "SPV_EXT_shader_atomic_float16_add") ||
         string_is(name, n, "SPV_EXT_shader_atomic_float_min_max");
}

/* The Import decorations of the functions. */
static void emit_decorations(lower *l) {
  for (unsigned i = 0; i < l->num_imports; i++) {
    import *im = &l->imports[i];
    uint32_t words[3 + 17] = {0};
    size_t len = strlen(im->name), name_words = len / 4 + 1;
    words[1] = im->fn;
    words[2] = DECORATION_LINKAGE_ATTRIBUTES;
    memcpy(words + 3, im->name, len);
    words[3 + name_words] = LINKAGE_IMPORT;
    words[0] = (uint32_t)(4 + name_words) << 16 | OP_DECORATE;
    emit_words(l, words, 4 + name_words);
  }
}

/* The named barriers' table, the index constants, the new function types
 * and the imported functions, before the module's first function. */
static void emit_globals(lower *l) {
  if (l->nb_inits) {
    emit(l, OP_CONSTANT, 3, l->u32, l->nb_len, l->nb_inits * NB_WORDS);
    emit(l, OP_TYPE_ARRAY, 3, l->nb_array, l->u32, l->nb_len);
    emit(l, OP_TYPE_POINTER, 3, l->nb_array_ptr, STORAGE_WORKGROUP,
         l->nb_array);
    emit(l, OP_VARIABLE, 3, l->nb_array_ptr, l->nb_table, STORAGE_WORKGROUP);
    for (unsigned i = 0; i < l->nb_inits; i++)
      emit(l, OP_CONSTANT, 3, l->u32, l->nb_first_index + i, i);
  }
  for (unsigned i = 0; i < l->num_imports; i++) {
    import *im = &l->imports[i];
    if (!im->new_type)
      continue;
    uint32_t words[8] = {(uint32_t)(3 + im->num_params) << 16 |
                             OP_TYPE_FUNCTION,
                         im->type, im->ret};
    memcpy(words + 3, im->params, im->num_params * sizeof(uint32_t));
    emit_words(l, words, 3 + im->num_params);
  }
  for (unsigned i = 0; i < l->num_imports; i++) {
    import *im = &l->imports[i];
    emit(l, OP_FUNCTION, 4, im->ret, im->fn, 0u, im->type);
    for (unsigned k = 0; k < im->num_params; k++)
      emit(l, OP_FUNCTION_PARAMETER, 2, im->params[k], l->next_id++);
    emit(l, OP_FUNCTION_END, 0);
  }
}

static const import *find_import(const lower *l, const char *name) {
  for (unsigned i = 0; i < l->num_imports; i++)
    if (strcmp(l->imports[i].name, name) == 0)
      return &l->imports[i];
  return NULL;
}

/* Pass 2: the copy. */
static void rewrite(lower *l, char **why) {
  emit_words(l, l->w, 5);
  if (l->num_imports && !l->has_linkage)
    emit(l, OP_CAPABILITY, 1, (uint32_t)CAP_LINKAGE);
  bool decorated = false, globals = false;
  unsigned init_index = 0;
  for (size_t at = 5; at < l->num_words;) {
    uint32_t count = l->w[at] >> 16, op = l->w[at] & 0xffffu;
    const uint32_t *a = l->w + at + 1;
    uint32_t n = count - 1;
    at += count;
    if (!decorated && !in_preamble(op)) {
      emit_decorations(l);
      decorated = true;
    }
    if (!globals && op == OP_FUNCTION) {
      emit_globals(l);
      globals = true;
    }
    if (op == OP_CAPABILITY && n >= 1 && dropped_capability(a[0]))
      continue;
    if (op == OP_EXTENSION && dropped_extension(a, n))
      continue;
    if (op == OP_TYPE_NAMED_BARRIER && n >= 1) {
      /* A pointer to an empty struct: the barrier's state in the table
       * (or wherever the library keeps it). */
      emit(l, OP_TYPE_STRUCT, 1, l->nb_struct);
      emit(l, OP_TYPE_POINTER, 3, a[0], STORAGE_WORKGROUP, l->nb_struct);
      continue;
    }
    if (op == OP_NAMED_BARRIER_INITIALIZE && n >= 3) {
      const import *im = find_import(l, "__spirv_NamedBarrierInitialize");
      emit(l, OP_FUNCTION_CALL, 6, a[0], a[1], im->fn, l->nb_table,
           l->nb_first_index + init_index++, a[2]);
      continue;
    }
    if (op == OP_MEMORY_NAMED_BARRIER && n >= 3) {
      const import *im = find_import(l, "__spirv_MemoryNamedBarrier");
      emit(l, OP_FUNCTION_CALL, 6, l->void_type, l->next_id++, im->fn, a[0],
           a[1], a[2]);
      continue;
    }
    if (op == OP_READ_CLOCK_KHR && n >= 3) {
      bool hilo = a[0] < l->bound && l->vec_len[a[0]] == 2;
      const import *im = find_import(l, "__skein_spirv_read_clock");
      uint32_t read = hilo ? l->next_id++ : a[1];
      emit(l, OP_FUNCTION_CALL, 4, l->u64, read, im->fn, a[2]);
      if (hilo)
        emit(l, OP_BITCAST, 3, a[0], a[1], read);
      continue;
    }
    if ((op == OP_ATOMIC_FADD_EXT || op == OP_ATOMIC_FMIN_EXT ||
         op == OP_ATOMIC_FMAX_EXT) && n >= 6) {
      const import *im = atomic_import(l, op, a[0], a[2], why);
      if (!im) {
        l->oom = true;   /* defensive: scan found every one */
        return;
      }
      emit(l, OP_FUNCTION_CALL, 7, a[0], a[1], im->fn, a[2], a[3], a[4],
           a[5]);
      continue;
    }
    emit_words(l, a - 1, count);
  }
  if (!l->oom)
    l->out[3] = l->next_id;
}

/* Whether the module has any instruction or type lowered here, or
 * declares a capability or extension dropped here (llvm-spirv 15 does
 * not know SPV_KHR_shader_clock, for one). */
static bool needs_lowering(const uint32_t *w, size_t num_words) {
  for (size_t at = 5; at < num_words;) {
    uint32_t count = w[at] >> 16, op = w[at] & 0xffffu;
    if ((op == OP_CAPABILITY && count >= 2 && dropped_capability(w[at + 1])) ||
        (op == OP_EXTENSION && dropped_extension(w + at + 1, count - 1)))
      return true;
    if (op == OP_TYPE_NAMED_BARRIER || op == OP_NAMED_BARRIER_INITIALIZE ||
        op == OP_MEMORY_NAMED_BARRIER || op == OP_READ_CLOCK_KHR ||
        op == OP_ATOMIC_FADD_EXT || op == OP_ATOMIC_FMIN_EXT ||
        op == OP_ATOMIC_FMAX_EXT)
      return true;
    at += count;
  }
  return false;
}

uint32_t *cc_il_lower(const uint32_t *w, size_t num_words, size_t *out_words,
                      char **why) {
  *why = NULL;
  if (!needs_lowering(w, num_words)) {
    uint32_t *copy = malloc(num_words * sizeof(*copy));
    if (!copy)
      return NULL;
    memcpy(copy, w, num_words * sizeof(*copy));
    *out_words = num_words;
    return copy;
  }
  lower l = {.w = w, .num_words = num_words, .bound = w[3],
             .next_id = w[3]};
  size_t per_id = (size_t)l.bound * sizeof(uint32_t);
  l.type_of = calloc(1, per_id);
  l.ptr_class = calloc(1, per_id);
  l.pointee = calloc(1, per_id);
  l.float_width = calloc(1, per_id);
  l.vec_of = calloc(1, per_id);
  l.vec_len = calloc(1, per_id);
  bool ok = l.type_of && l.ptr_class && l.pointee && l.float_width &&
            l.vec_of && l.vec_len && scan(&l, why);
  if (ok)
    rewrite(&l, why);
  free(l.type_of);
  free(l.ptr_class);
  free(l.pointee);
  free(l.float_width);
  free(l.vec_of);
  free(l.vec_len);
  if (!ok || l.oom) {
    free(l.out);
    return NULL;
  }
  *out_words = l.n;
  return l.out;
}
