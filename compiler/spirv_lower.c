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
 * nothing in it uses them any more.
 * It also rewrites the SPIR-V 1.4 instructions llvm-spirv 15 aborts on
 * into SPIR-V 1.3 ones (the module keeps its version: the rest of 1.4,
 * composite OpSelect, the new loop controls and image operands, the
 * longer OpEntryPoint interface, llvm-spirv reads):
 *   - OpPtrEqual / OpPtrNotEqual: OpIEqual / OpINotEqual of the two
 *     addresses (OpConvertPtrToU, 64-bit: Skein takes Physical64 only);
 *   - OpPtrDiff: the addresses' difference divided (OpSDiv) by the
 *     element's size, itself the distance from the first operand to an
 *     OpPtrAccessChain one element on, so that the size is LLVM's own
 *     array stride of the type (which LLVM folds to a constant);
 *   - OpCopyLogical: OpCompositeExtract of each member (array element),
 *     copied the same way where the member types differ, inserted with
 *     OpCompositeInsert into an OpUndef of the result type;
 *   - OpDecorateString / OpMemberDecorateString: dropped for UserSemantic
 *     (and UserTypeGOOGLE), which only annotate; any other decoration
 *     becomes the OpDecorate / OpMemberDecorate it was before 1.4;
 *   - OpCopyMemorySized with two memory operands (target, source): one
 *     operand for both, Volatile if either is, Aligned with the smaller
 *     alignment if both are, Nontemporal if both are;
 *   - OpCopyMemory, of any version (llvm-spirv 15 aborts on it even
 *     without memory operands): an OpLoad of the source with the
 *     source's memory operand and an OpStore to the target with the
 *     target's (the one operand for both where there is one). */
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
  OP_VARIABLE = 59, OP_LOAD = 61, OP_STORE = 62, OP_ACCESS_CHAIN = 65,
  OP_IN_BOUNDS_ACCESS_CHAIN = 66, OP_PTR_ACCESS_CHAIN = 67,
  OP_IN_BOUNDS_PTR_ACCESS_CHAIN = 70, OP_DECORATE = 71,
  OP_MEMBER_DECORATE = 72, OP_DECORATION_GROUP = 73, OP_GROUP_DECORATE = 74,
  OP_GROUP_MEMBER_DECORATE = 75, OP_COPY_OBJECT = 83,
  OP_CONVERT_U_TO_PTR = 120, OP_PTR_CAST_TO_GENERIC = 121,
  OP_GENERIC_CAST_TO_PTR = 122, OP_GENERIC_CAST_TO_PTR_EXPLICIT = 123,
  OP_BITCAST = 124, OP_SELECT = 169, OP_PHI = 245,
  OP_CONSTANT_COMPOSITE = 44, OP_SPEC_CONSTANT_COMPOSITE = 51,
  OP_COPY_MEMORY = 63, OP_COPY_MEMORY_SIZED = 64,
  OP_COMPOSITE_CONSTRUCT = 80, OP_COMPOSITE_EXTRACT = 81,
  OP_COMPOSITE_INSERT = 82, OP_CONVERT_PTR_TO_U = 117, OP_UCONVERT = 113,
  OP_ISUB = 130, OP_SDIV = 135, OP_IEQUAL = 170, OP_INOT_EQUAL = 171,
  OP_COPY_LOGICAL = 400, OP_PTR_EQUAL = 401, OP_PTR_NOT_EQUAL = 402,
  OP_PTR_DIFF = 403,
  OP_TYPE_NAMED_BARRIER = 327, OP_NAMED_BARRIER_INITIALIZE = 328,
  OP_MEMORY_NAMED_BARRIER = 329, OP_MODULE_PROCESSED = 330,
  OP_EXECUTION_MODE_ID = 331, OP_DECORATE_ID = 332,
  OP_READ_CLOCK_KHR = 5056, OP_ATOMIC_FMIN_EXT = 5614,
  OP_ATOMIC_FMAX_EXT = 5615, OP_DECORATE_STRING = 5632,
  OP_MEMBER_DECORATE_STRING = 5633, OP_ATOMIC_FADD_EXT = 6035,

  CAP_LINKAGE = 5, CAP_INT64 = 11, CAP_NAMED_BARRIER = 59,
  CAP_SHADER_CLOCK = 5055,
  CAP_ATOMIC_FLOAT16_MIN_MAX = 5616, CAP_ATOMIC_FLOAT32_MIN_MAX = 5612,
  CAP_ATOMIC_FLOAT64_MIN_MAX = 5613, CAP_ATOMIC_FLOAT32_ADD = 6033,
  CAP_ATOMIC_FLOAT64_ADD = 6034, CAP_ATOMIC_FLOAT16_ADD = 6095,

  DECORATION_LINKAGE_ATTRIBUTES = 41, LINKAGE_IMPORT = 1,
  STORAGE_WORKGROUP = 4, STORAGE_CROSS_WORKGROUP = 5, STORAGE_GENERIC = 8,
  DECORATION_USER_SEMANTIC = 5635, DECORATION_USER_TYPE_GOOGLE = 5636,

  /* Memory operands: the bits Skein merges, and those with a literal or
   * id after the mask (Aligned, MakePointerAvailable, MakePointerVisible,
   * AliasScopeINTEL, NoAliasINTEL). */
  MEM_VOLATILE = 0x1, MEM_ALIGNED = 0x2, MEM_NONTEMPORAL = 0x4,
  MEM_WITH_OPERAND = 0x2 | 0x8 | 0x10 | 0x10000 | 0x20000,
};

/* How many aggregate members one OpCopyLogical may copy, and how deep
 * its types may nest. */
#define COPY_LOGICAL_MAX_MEMBERS 65536
#define COPY_LOGICAL_MAX_DEPTH 32

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
  /* Per id: the word index of its OpTypeInt, OpTypeStruct, OpTypeArray
   * or OpConstant (widths, members and array lengths are read there). */
  uint32_t *def_at;
  uint32_t version;           /* the module's version word */
  bool has_linkage, has_int64;
  bool needs_u64;             /* the pointer rewrites use 64-bit integers */
  bool new_u64;               /* ... and the module has no such type */
  uint32_t one64;             /* OpConstant u64 1 for OpPtrDiff, or 0 */
  unsigned copied;            /* members OpCopyLogical copied so far */
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
    if (n >= 2 && a[0] < bound)
      l->def_at[a[0]] = (uint32_t)(a - 1 - l->w);
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
  case OP_TYPE_STRUCT: case OP_TYPE_ARRAY:
    if (n >= 1 && a[0] < bound)
      l->def_at[a[0]] = (uint32_t)(a - 1 - l->w);
    break;
  case OP_CONSTANT:
    if (n >= 2 && a[1] < bound) {
      l->def_at[a[1]] = (uint32_t)(a - 1 - l->w);
      l->type_of[a[1]] = a[0];
    }
    break;
  /* Values of the form (result type, result, ...) whose type an atomic's
   * pointer operand or an OpCopyLogical's operand may need. */
  case OP_CONSTANT_COMPOSITE: case OP_SPEC_CONSTANT_COMPOSITE:
  case OP_COMPOSITE_CONSTRUCT: case OP_COMPOSITE_EXTRACT:
  case OP_COMPOSITE_INSERT: case OP_COPY_LOGICAL:
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

/* The width of integer type t, or 0 if t is not one. */
static uint32_t int_width(const lower *l, uint32_t t) {
  uint32_t at = t < l->bound ? l->def_at[t] : 0;
  return at && (l->w[at] & 0xffffu) == OP_TYPE_INT && l->w[at] >> 16 >= 3
             ? l->w[at + 2]
             : 0;
}

/* Where the second memory operand of an OpCopyMemory (fixed = 2 operands
 * before the masks) or OpCopyMemorySized (3) with operands a[0..n)
 * starts; 0 if it has at most one. */
static uint32_t second_memory_operand(const uint32_t *a, uint32_t n,
                                      uint32_t fixed) {
  if (n <= fixed)
    return 0;
  uint32_t first = fixed + 1 +
                   (uint32_t)__builtin_popcount(a[fixed] & MEM_WITH_OPERAND);
  return n > first ? first : 0;
}

static bool two_memory_operands(uint32_t op, const uint32_t *a, uint32_t n) {
  return op == OP_COPY_MEMORY_SIZED && second_memory_operand(a, n, 3);
}

/* The type an OpCopyMemory's target pointer a0 points to, or 0. */
static uint32_t copied_type(const lower *l, uint32_t a0) {
  uint32_t pt = a0 < l->bound ? l->type_of[a0] : 0;
  return pt && pt < l->bound ? l->pointee[pt] : 0;
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
    if (op == OP_CAPABILITY && n >= 1 && a[0] == CAP_INT64)
      l->has_int64 = true;
    if (op == OP_PTR_EQUAL || op == OP_PTR_NOT_EQUAL || op == OP_PTR_DIFF) {
      /* The operands' type: OpPtrDiff steps one element on from the
       * first (its definition dominates, so it came before). */
      if (n < 4 || (op == OP_PTR_DIFF &&
                    (a[2] >= l->bound || !l->type_of[a[2]] ||
                     !int_width(l, a[0]))))
        return fail(why, "a pointer comparison or difference whose "
                    "operand or result type Skein cannot find");
      l->needs_u64 = true;
      if (op == OP_PTR_DIFF)
        l->one64 = 1;   /* an id below, once the u64 type is known */
    }
    if (op == OP_COPY_MEMORY && (n < 2 || n > 12 || !copied_type(l, a[0])))
      return fail(why, "an OpCopyMemory whose target's type Skein cannot "
                  "find");
    if (op == OP_COPY_LOGICAL &&
        (n < 3 || a[2] >= l->bound || !l->type_of[a[2]]))
      return fail(why, "an OpCopyLogical whose operand's type Skein cannot "
                  "find");
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
  if (l->needs_u64 && !l->u64) {
    l->u64 = l->next_id++;
    l->new_u64 = true;
  }
  if (l->one64)
    l->one64 = l->next_id++;
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
  if (l->one64)
    emit(l, OP_CONSTANT, 4, l->u64, l->one64, 1u, 0u);
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

/* The members of aggregate type t: how many (*count), their types
 * (*types, one per member of a struct; for an array *array is set and
 * *types is its one element type). False if t is neither, or an array
 * whose length is not a constant below 2^32. */
static bool members_of(const lower *l, uint32_t t, uint32_t *count,
                       const uint32_t **types, bool *array) {
  uint32_t at = t < l->bound ? l->def_at[t] : 0;
  if (!at)
    return false;
  uint32_t op = l->w[at] & 0xffffu, words = l->w[at] >> 16;
  if (op == OP_TYPE_STRUCT && words >= 2) {
    *count = words - 2;
    *types = l->w + at + 2;
    *array = false;
    return true;
  }
  if (op != OP_TYPE_ARRAY || words < 4)
    return false;
  uint32_t len = l->w[at + 3];
  uint32_t c = len < l->bound ? l->def_at[len] : 0;
  if (!c || (l->w[c] & 0xffffu) != OP_CONSTANT || l->w[c] >> 16 < 4 ||
      (l->w[c] >> 16 >= 5 && l->w[c + 4] != 0))
    return false;
  *count = l->w[c + 3];
  *types = l->w + at + 2;
  *array = true;
  return true;
}

/* Emits the copy of value v of type from as type to, which logically
 * matches it (SPIR-V 1.4, OpCopyLogical): each member extracted, copied
 * the same way if its types differ, and inserted into an OpUndef of to.
 * The copy's id is result (a new one if 0); returns it, or 0 with *why
 * set if the types do not match member by member. */
static uint32_t copy_logical(lower *l, uint32_t to, uint32_t from,
                             uint32_t v, uint32_t result, unsigned depth,
                             char **why) {
  if (to == from) {
    if (result)
      emit(l, OP_COPY_OBJECT, 3, to, result, v);
    return result ? result : v;
  }
  uint32_t n_to, n_from;
  const uint32_t *t_to, *t_from;
  bool array_to, array_from;
  if (depth >= COPY_LOGICAL_MAX_DEPTH ||
      !members_of(l, to, &n_to, &t_to, &array_to) ||
      !members_of(l, from, &n_from, &t_from, &array_from) ||
      array_to != array_from || n_to != n_from) {
    fail(why, "an OpCopyLogical of types that do not match member by "
         "member");
    return 0;
  }
  if (n_to > COPY_LOGICAL_MAX_MEMBERS - l->copied) {
    fail(why, "OpCopyLogical of more than %d members",
         COPY_LOGICAL_MAX_MEMBERS);
    return 0;
  }
  l->copied += n_to;
  uint32_t acc = n_to == 0 && result ? result : l->next_id++;
  emit(l, OP_UNDEF, 2, to, acc);
  for (uint32_t i = 0; i < n_to; i++) {
    uint32_t m_to = t_to[array_to ? 0 : i];
    uint32_t m_from = t_from[array_from ? 0 : i];
    uint32_t part = l->next_id++;
    emit(l, OP_COMPOSITE_EXTRACT, 4, m_from, part, v, i);
    uint32_t copy = copy_logical(l, m_to, m_from, part, 0, depth + 1, why);
    if (!copy)
      return 0;
    uint32_t next = i + 1 == n_to && result ? result : l->next_id++;
    emit(l, OP_COMPOSITE_INSERT, 5, to, next, copy, acc, i);
    acc = next;
  }
  return acc;
}

/* OpPtrEqual, OpPtrNotEqual (result type a[0], result a[1], operands
 * a[2], a[3]): the addresses compared. OpPtrDiff: their difference in
 * elements of the pointee type, whose size is the distance to one
 * element on. */
static void lower_pointer_op(lower *l, uint32_t op, const uint32_t *a) {
  uint32_t x = l->next_id++, y = l->next_id++;
  emit(l, OP_CONVERT_PTR_TO_U, 3, l->u64, x, a[2]);
  emit(l, OP_CONVERT_PTR_TO_U, 3, l->u64, y, a[3]);
  if (op != OP_PTR_DIFF) {
    emit(l, op == OP_PTR_EQUAL ? OP_IEQUAL : OP_INOT_EQUAL, 4, a[0], a[1],
         x, y);
    return;
  }
  uint32_t next = l->next_id++, next_u = l->next_id++;
  uint32_t size = l->next_id++, bytes = l->next_id++;
  emit(l, OP_PTR_ACCESS_CHAIN, 4, l->type_of[a[2]], next, a[2], l->one64);
  emit(l, OP_CONVERT_PTR_TO_U, 3, l->u64, next_u, next);
  emit(l, OP_ISUB, 4, l->u64, size, next_u, x);
  emit(l, OP_ISUB, 4, l->u64, bytes, x, y);
  if (int_width(l, a[0]) == 64) {
    emit(l, OP_SDIV, 4, a[0], a[1], bytes, size);
  } else {
    /* Narrower results are the quotient's low bits. */
    uint32_t q = l->next_id++;
    emit(l, OP_SDIV, 4, l->u64, q, bytes, size);
    emit(l, OP_UCONVERT, 3, a[0], a[1], q);
  }
}

/* OpCopyMemory target a[0], source a[1] (n operands, at most 12, the
 * type known: scan checked) as a load and a store. */
static void lower_copy_memory(lower *l, const uint32_t *a, uint32_t n) {
  uint32_t second = second_memory_operand(a, n, 2);
  uint32_t to_end = second ? second : n, from = second ? second : 2;
  uint32_t value = l->next_id++, words[16];
  uint32_t k = 1;
  words[k++] = copied_type(l, a[0]);
  words[k++] = value;
  words[k++] = a[1];
  for (uint32_t i = from; i < n; i++)
    words[k++] = a[i];
  words[0] = k << 16 | OP_LOAD;
  emit_words(l, words, k);
  k = 1;
  words[k++] = a[0];
  words[k++] = value;
  for (uint32_t i = 2; i < to_end; i++)
    words[k++] = a[i];
  words[0] = k << 16 | OP_STORE;
  emit_words(l, words, k);
}

/* An OpCopyMemorySized (fixed = 3 operands before the masks) with a
 * target's and a source's memory operand, with one for both; false
 * (with *why) for operands other than Volatile, Aligned and Nontemporal,
 * which need capabilities Skein refuses anyway. */
static bool merge_memory_operands(lower *l, const uint32_t *inst,
                                  uint32_t fixed, uint32_t second,
                                  char **why) {
  const uint32_t *a = inst + 1;
  uint32_t m1 = a[fixed], m2 = a[second];
  uint32_t known = MEM_VOLATILE | MEM_ALIGNED | MEM_NONTEMPORAL;
  if ((m1 | m2) & ~known)
    return fail(why, "an OpCopyMemory with memory operands 0x%x and 0x%x",
                m1, m2);
  uint32_t words[8];
  memcpy(words + 1, a, fixed * sizeof(*a));
  uint32_t n = 1 + fixed, mask = (m1 | m2) & MEM_VOLATILE;
  if (m1 & m2 & MEM_NONTEMPORAL)
    mask |= MEM_NONTEMPORAL;
  if (m1 & m2 & MEM_ALIGNED)
    mask |= MEM_ALIGNED;
  if (mask) {
    words[n++] = mask;
    if (mask & MEM_ALIGNED)   /* (the first literal after each mask) */
      words[n++] = a[fixed + 1] < a[second + 1] ? a[fixed + 1]
                                                : a[second + 1];
  }
  words[0] = n << 16 | (inst[0] & 0xffffu);
  emit_words(l, words, n);
  return true;
}

/* Pass 2: the copy. */
static void rewrite(lower *l, char **why) {
  emit_words(l, l->w, 5);
  if (l->num_imports && !l->has_linkage)
    emit(l, OP_CAPABILITY, 1, (uint32_t)CAP_LINKAGE);
  if (l->new_u64 && !l->has_int64)
    emit(l, OP_CAPABILITY, 1, (uint32_t)CAP_INT64);
  bool decorated = false, globals = false;
  unsigned init_index = 0;
  for (size_t at = 5; at < l->num_words;) {
    uint32_t count = l->w[at] >> 16, op = l->w[at] & 0xffffu;
    const uint32_t *a = l->w + at + 1;
    uint32_t n = count - 1;
    at += count;
    if (!decorated && !in_preamble(op)) {
      emit_decorations(l);
      if (l->new_u64)
        emit(l, OP_TYPE_INT, 3, l->u64, 64u, 0u);
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
    if (op == OP_ENTRY_POINT && l->nb_table && l->version >= 0x00010400u) {
      /* From SPIR-V 1.4 an entry point lists every global variable its
       * functions use: the table too (listing it where unused is
       * allowed). */
      emit_words(l, a - 1, count);
      emit_words(l, &l->nb_table, 1);
      if (!l->oom)
        l->out[l->n - count - 1] += 1u << 16;
      continue;
    }
    if ((op == OP_DECORATE_STRING && n >= 2) ||
        (op == OP_MEMBER_DECORATE_STRING && n >= 3)) {
      uint32_t decoration = a[op == OP_DECORATE_STRING ? 1 : 2];
      if (decoration == DECORATION_USER_SEMANTIC ||
          decoration == DECORATION_USER_TYPE_GOOGLE)
        continue;   /* annotations: nothing Skein uses */
      emit_words(l, a - 1, count);
      if (!l->oom)
        l->out[l->n - count] = count << 16 | (op == OP_DECORATE_STRING
                                                  ? OP_DECORATE
                                                  : OP_MEMBER_DECORATE);
      continue;
    }
    if (op == OP_COPY_MEMORY && n >= 2) {
      lower_copy_memory(l, a, n);
      continue;
    }
    if (two_memory_operands(op, a, n)) {
      uint32_t fixed = 3;
      if (!merge_memory_operands(l, a - 1, fixed,
                                 second_memory_operand(a, n, fixed), why)) {
        l->oom = true;   /* (with *why: the caller tells them apart) */
        return;
      }
      continue;
    }
    if ((op == OP_PTR_EQUAL || op == OP_PTR_NOT_EQUAL ||
         op == OP_PTR_DIFF) && n >= 4) {
      lower_pointer_op(l, op, a);
      continue;
    }
    if (op == OP_COPY_LOGICAL && n >= 3) {
      if (!copy_logical(l, a[0], l->type_of[a[2]], a[2], a[1], 0, why)) {
        l->oom = true;
        return;
      }
      continue;
    }
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
  if (!l->oom && l->next_id >= (1u << 22)) {
    fail(why, "the module's ids run out");
    l->oom = true;
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
        op == OP_ATOMIC_FMAX_EXT || op == OP_PTR_EQUAL ||
        op == OP_PTR_NOT_EQUAL || op == OP_PTR_DIFF ||
        op == OP_COPY_LOGICAL || op == OP_DECORATE_STRING ||
        op == OP_MEMBER_DECORATE_STRING || op == OP_COPY_MEMORY ||
        (count >= 1 && two_memory_operands(op, w + at + 1, count - 1)))
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
             .next_id = w[3], .version = w[1]};
  size_t per_id = (size_t)l.bound * sizeof(uint32_t);
  l.type_of = calloc(1, per_id);
  l.ptr_class = calloc(1, per_id);
  l.pointee = calloc(1, per_id);
  l.float_width = calloc(1, per_id);
  l.vec_of = calloc(1, per_id);
  l.vec_len = calloc(1, per_id);
  l.def_at = calloc(1, per_id);
  bool ok = l.type_of && l.ptr_class && l.pointee && l.float_width &&
            l.vec_of && l.vec_len && l.def_at && scan(&l, why);
  if (ok)
    rewrite(&l, why);
  free(l.type_of);
  free(l.ptr_class);
  free(l.pointee);
  free(l.float_width);
  free(l.vec_of);
  free(l.vec_len);
  free(l.def_at);
  if (!ok || l.oom) {
    free(l.out);
    return NULL;
  }
  *out_words = l.n;
  return l.out;
}
