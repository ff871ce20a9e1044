/* This file contains what Skein reads of a SPIR-V module itself, before
 * any tool sees it: the header and instruction-stream checks of
 * clCreateProgramWithIL (byte order, magic, version, word counts), the
 * specialization constants a program may set, the capabilities and
 * memory model a build accepts, and the specialization of a copy of the
 * module (the constants' literals rewritten in place). */
#include "spirv_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPV_MAGIC 0x07230203u

/* Opcodes, capabilities and decorations of the SPIR-V specification. */
enum {
  OP_EXTENSION = 10,
  OP_EXT_INST_IMPORT = 11,
  OP_MEMORY_MODEL = 14,
  OP_EXECUTION_MODE = 16,
  OP_CAPABILITY = 17,
  OP_TYPE_BOOL = 20,
  OP_TYPE_INT = 21,
  OP_TYPE_FLOAT = 22,
  OP_SPEC_CONSTANT_TRUE = 48,
  OP_SPEC_CONSTANT_FALSE = 49,
  OP_SPEC_CONSTANT = 50,
  OP_DECORATE = 71,
  OP_EXECUTION_MODE_ID = 331,
  DECORATION_SPEC_ID = 1,
  MODE_SUBGROUPS_PER_WORKGROUP = 36,
  MODE_SUBGROUPS_PER_WORKGROUP_ID = 37,
  ADDRESSING_PHYSICAL64 = 2,
  MEMORY_MODEL_OPENCL = 2,
  SIGNED_TYPE = 0x100,   /* walk's size table: a signed integer type */
};

static uint32_t swap32(uint32_t w) {
  return (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) |
         (w << 24);
}

/* Sets *why to a malloc'd reason (printf format); returns false. */
static bool fail(char **why, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool fail(char **why, const char *fmt, ...) {
  if (why) {
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    *why = strdup(text);
  }
  return false;
}

/* The byte size of a scalar type id (1 for bool), 0 if not a scalar. */
static uint32_t scalar_size(const uint32_t *sizes, uint32_t bound,
                            uint32_t type) {
  return type < bound ? sizes[type] : 0;
}

/* Records the spec constant of instruction at word index at, with the
 * given type and result id, if a SpecId decoration names that id. */
static bool add_spec(cc_il_module *m, uint32_t at, uint32_t id, uint32_t size,
                     const uint32_t *spec_ids) {
  if (spec_ids[id] == UINT32_MAX)
    return true;   /* a spec constant without SpecId: not settable */
  cc_il_spec_const *grown =
      realloc(m->specs, (m->num_specs + 1) * sizeof(*m->specs));
  if (!grown)
    return false;
  m->specs = grown;
  m->specs[m->num_specs++] = (cc_il_spec_const){
      .id = spec_ids[id], .size = size & ~SIGNED_TYPE, .word = at,
      .is_signed = (size & SIGNED_TYPE) != 0};
  return true;
}

/* Walks the instructions of m->words: every word count must fit, and the
 * ids the checks rely on must lie below the bound. Two passes: the
 * decorations come before the constants they decorate. */
static bool walk(cc_il_module *m, char **why) {
  const uint32_t *w = m->words;
  uint32_t bound = w[3];
  uint32_t *sizes = calloc(bound, sizeof(*sizes));
  uint32_t *spec_ids = malloc(bound * sizeof(*spec_ids));
  bool ok = sizes && spec_ids;
  if (!ok)
    fail(why, "out of host memory");
  for (uint32_t i = 0; ok && i < bound; i++)
    spec_ids[i] = UINT32_MAX;
  for (int pass = 0; ok && pass < 2; pass++) {
    for (size_t at = 5; ok && at < m->num_words;) {
      uint32_t count = w[at] >> 16, op = w[at] & 0xffffu;
      if (count == 0 || count > m->num_words - at) {
        ok = fail(why, "instruction at word %zu has a word count of %u, "
                  "past the end of the module", at, count);
        break;
      }
      const uint32_t *a = w + at + 1;   /* the operands */
      uint32_t n = count - 1;
      bool ids_ok = true;
      if (pass == 0 && op == OP_DECORATE && n >= 3 &&
          a[1] == DECORATION_SPEC_ID) {
        ids_ok = a[0] < bound;
        if (ids_ok)
          spec_ids[a[0]] = a[2];
      } else if (pass == 0 && op == OP_CAPABILITY && n >= 1) {
        if (m->num_caps < CC_IL_MAX_LISTED)
          m->caps[m->num_caps++] = a[0];
        else
          m->too_many = true;
      } else if (pass == 0 && (op == OP_EXTENSION ||
                               op == OP_EXT_INST_IMPORT) && n >= 1) {
        /* The name's words (after the result id of an import), checked
         * by cc_il_supported; at most 64 of each kind. */
        uint32_t skip = op == OP_EXT_INST_IMPORT ? 1 : 0;
        cc_il_name *list = op == OP_EXTENSION ? m->extensions : m->imports;
        unsigned *num = op == OP_EXTENSION ? &m->num_extensions
                                           : &m->num_imports;
        if (n <= skip)
          ;   /* no name: spirv-val rejects it */
        else if (*num < CC_IL_MAX_LISTED)
          list[(*num)++] = (cc_il_name){.at = at + 1 + skip,
                                        .words = n - skip};
        else
          m->too_many = true;
      } else if (pass == 0 && ((op == OP_EXECUTION_MODE && n >= 2 &&
                                a[1] == MODE_SUBGROUPS_PER_WORKGROUP) ||
                               (op == OP_EXECUTION_MODE_ID && n >= 2 &&
                                a[1] == MODE_SUBGROUPS_PER_WORKGROUP_ID))) {
        m->subgroups_per_workgroup = true;
      } else if (pass == 0 && op == OP_MEMORY_MODEL && n >= 2) {
        m->addressing = a[0];
        m->memory_model = a[1];
        m->has_memory_model = true;
      } else if (pass == 1 && (op == OP_TYPE_INT || op == OP_TYPE_FLOAT) &&
                 n >= 2) {
        ids_ok = a[0] < bound;
        /* The width in bytes; SIGNED_TYPE marks signed integers. */
        if (ids_ok && (a[1] == 8 || a[1] == 16 || a[1] == 32 || a[1] == 64))
          sizes[a[0]] = a[1] / 8 |
                        (op == OP_TYPE_INT && n >= 3 && a[2] ? SIGNED_TYPE
                                                             : 0);
      } else if (pass == 1 && op == OP_TYPE_BOOL && n >= 1) {
        ids_ok = a[0] < bound;
        if (ids_ok)
          sizes[a[0]] = 1;
      } else if (pass == 1 && (op == OP_SPEC_CONSTANT_TRUE ||
                               op == OP_SPEC_CONSTANT_FALSE) && n >= 2) {
        ids_ok = a[1] < bound;
        if (ids_ok && !add_spec(m, (uint32_t)at, a[1], 1, spec_ids))
          ok = fail(why, "out of host memory");
      } else if (pass == 1 && op == OP_SPEC_CONSTANT && n >= 3) {
        ids_ok = a[1] < bound;
        uint32_t type = ids_ok ? scalar_size(sizes, bound, a[0]) : 0;
        uint32_t size = type & ~SIGNED_TYPE;
        /* The literal holds the value: one word, two for 64 bits. */
        if (ids_ok && size && n == 2 + (size == 8 ? 2u : 1u) &&
            !add_spec(m, (uint32_t)at, a[1], type, spec_ids))
          ok = fail(why, "out of host memory");
      }
      if (ok && !ids_ok)
        ok = fail(why, "instruction at word %zu uses an id not below the "
                  "module's bound %u", at, bound);
      at += count;
    }
  }
  free(sizes);
  free(spec_ids);
  return ok;
}

bool cc_il_load(const void *il, size_t length, cc_il_module **out,
                char **why) {
  *out = NULL;
  if (why)
    *why = NULL;
  if (length % 4 != 0)
    return fail(why, "length %zu is not a whole number of 32-bit words",
                length);
  if (length < 20)
    return fail(why, "shorter than the 5-word SPIR-V header");
  uint32_t magic;
  memcpy(&magic, il, 4);
  bool swapped = magic == swap32(SPV_MAGIC);
  if (magic != SPV_MAGIC && !swapped)
    return fail(why, "not SPIR-V: wrong magic number 0x%08x", magic);
  cc_il_module *m = calloc(1, sizeof(*m));
  if (m)
    m->words = malloc(length);
  if (!m || !m->words) {
    cc_il_module_free(m);
    return fail(why, "out of host memory");
  }
  /* Everything after this sees the module in host byte order. */
  memcpy(m->words, il, length);
  m->num_words = length / 4;
  if (swapped)
    for (size_t i = 0; i < m->num_words; i++)
      m->words[i] = swap32(m->words[i]);
  uint32_t version = m->words[1];
  bool ok = true;
  if ((version & 0xff0000ffu) != 0 || version < 0x00010000u ||
      version > CC_IL_MAX_VERSION)
    ok = fail(why, "SPIR-V version 0x%08x is not one Skein reads (1.0 to "
              "1.%u)", version, (CC_IL_MAX_VERSION >> 8) & 0xffu);
  else if (m->words[3] == 0 || m->words[3] > (1u << 22))
    ok = fail(why, "id bound %u is out of range", m->words[3]);
  else if (m->words[4] != 0)
    ok = fail(why, "reserved header word (schema) is %u, not 0",
              m->words[4]);
  if (ok)
    ok = walk(m, why);
  if (!ok) {
    cc_il_module_free(m);
    return false;
  }
  *out = m;
  return true;
}

void cc_il_module_free(cc_il_module *m) {
  if (!m)
    return;
  free(m->words);
  free(m->specs);
  free(m);
}

const cc_il_spec_const *cc_il_find_spec(const cc_il_module *m, uint32_t id) {
  for (unsigned i = 0; i < m->num_specs; i++)
    if (m->specs[i].id == id)
      return &m->specs[i];
  return NULL;
}

/* Whether the space-separated list has the word w. */
static bool listed(const char *list, const char *w) {
  size_t n = strlen(w);
  if (!list)
    return false;
  for (const char *p = list; (p = strstr(p, w)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
      return true;
  return false;
}

/* What a SPIR-V module may declare, each with the device extension or
 * OpenCL C feature it needs (NULL: always): the single source of both
 * the build's check (cc_il_supported) and the device's
 * cl_khr_spirv_queries lists. Every entry is translated by llvm-spirv 15
 * into calls Skein's library has (tests/test-spirv.c builds a module
 * declaring each, and runs kernels using most). */
typedef struct il_entry {
  uint32_t cap;          /* a SPIR-V capability (0 in the name tables) */
  const char *name;      /* an extension or instruction set name */
  const char *needs;     /* a device extension or feature, or NULL */
} il_entry;

static const il_entry il_caps[] = {
    {4, "Addresses", NULL},
    {5, "Linkage", NULL},
    {6, "Kernel", NULL},
    {7, "Vector16", NULL},
    {8, "Float16Buffer", NULL},
    {9, "Float16", "cl_khr_fp16"},
    {10, "Float64", "cl_khr_fp64"},
    {11, "Int64", "__opencl_c_int64"},
    {12, "Int64Atomics", "cl_khr_int64_base_atomics"},
    {18, "Groups", "__opencl_c_work_group_collective_functions"},
    {22, "Int16", NULL},
    {38, "GenericPointer", "__opencl_c_generic_address_space"},
    {39, "Int8", NULL},
    /* Its SubgroupSize execution mode is intel_reqd_sub_group_size;
     * SubgroupsPerWorkgroup fails the build (cc_il_supported). */
    {58, "SubgroupDispatch", "__opencl_c_subgroups"},
    /* OpReadPipe and friends come back as Clang's __read_pipe_2 ...,
     * which builtins/pipes.c implements. */
    {17, "Pipes", "__opencl_c_pipes"},
    /* OpEnqueueKernel and the other device-enqueue instructions: such a
     * module is translated in llvm-spirv's OpenCL 2.0 reading, which
     * gives back Clang's __enqueue_kernel_* calls (spirv_translate.c). */
    {19, "DeviceEnqueue", "__opencl_c_device_enqueue"},
    {13, "ImageBasic", "__opencl_c_images"},
    {14, "ImageReadWrite", "__opencl_c_read_write_images"},
    {20, "LiteralSampler", "__opencl_c_images"},
    {43, "Sampled1D", "__opencl_c_images"},
    {44, "Image1D", "__opencl_c_images"},
    {46, "SampledBuffer", "__opencl_c_images"},
    {47, "ImageBuffer", "__opencl_c_images"},
    {61, "GroupNonUniform", "__opencl_c_subgroups"},
    {62, "GroupNonUniformVote", "cl_khr_subgroup_non_uniform_vote"},
    {63, "GroupNonUniformArithmetic",
     "cl_khr_subgroup_non_uniform_arithmetic"},
    {64, "GroupNonUniformBallot", "cl_khr_subgroup_ballot"},
    {65, "GroupNonUniformShuffle", "cl_khr_subgroup_shuffle"},
    {66, "GroupNonUniformShuffleRelative",
     "cl_khr_subgroup_shuffle_relative"},
    {67, "GroupNonUniformClustered", "cl_khr_subgroup_clustered_reduce"},
    {5629, "ExpectAssumeKHR", "cl_khr_expect_assume"},
    /* Read back as __spirv_*Dot*KHR calls, which
     * builtins/integer_dot_product.cl defines. */
    {6017, "DotProductInput4x8Bit", "cl_khr_integer_dot_product"},
    {6018, "DotProductInput4x8BitPacked", "cl_khr_integer_dot_product"},
    {6019, "DotProduct", "cl_khr_integer_dot_product"},
    {6025, "BitInstructions", "cl_khr_extended_bit_ops"},
    {6026, "GroupNonUniformRotateKHR", "cl_khr_subgroup_rotate"},
    {6400, "GroupUniformArithmeticKHR",
     "cl_khr_work_group_uniform_arithmetic"},
    /* OpNamedBarrierInitialize and OpMemoryNamedBarrier are Skein's own
     * calls before the translator runs (spirv_lower.c). */
    {59, "NamedBarrier", "cl_khr_subgroup_named_barrier"},
    /* OpReadClockKHR, likewise. */
    {5055, "ShaderClockKHR", "cl_khr_kernel_clock"},
    /* OpAtomicFAddEXT, OpAtomicFMinEXT, OpAtomicFMaxEXT, likewise (the
     * device has add and min/max of all three types, global and local). */
    {6033, "AtomicFloat32AddEXT", "cl_ext_float_atomics"},
    {6034, "AtomicFloat64AddEXT", "cl_ext_float_atomics"},
    {6095, "AtomicFloat16AddEXT", "cl_ext_float_atomics"},
    {5612, "AtomicFloat32MinMaxEXT", "cl_ext_float_atomics"},
    {5613, "AtomicFloat64MinMaxEXT", "cl_ext_float_atomics"},
    {5616, "AtomicFloat16MinMaxEXT", "cl_ext_float_atomics"},
    /* SPV_INTEL_subgroups: read back as the intel_sub_group_* calls of
     * cl_intel_subgroups (builtins/subgroups_intel*). */
    {5568, "SubgroupShuffleINTEL", "cl_intel_spirv_subgroups"},
    {5569, "SubgroupBufferBlockIOINTEL", "cl_intel_spirv_subgroups"},
    {5570, "SubgroupImageBlockIOINTEL", "cl_intel_spirv_subgroups"},
};

static const il_entry il_extensions[] = {
    {0, "SPV_KHR_no_integer_wrap_decoration", NULL},
    {0, "SPV_KHR_linkonce_odr", NULL},
    {0, "SPV_KHR_bit_instructions", "cl_khr_extended_bit_ops"},
    {0, "SPV_KHR_expect_assume", "cl_khr_expect_assume"},
    {0, "SPV_KHR_integer_dot_product", "cl_khr_integer_dot_product"},
    {0, "SPV_KHR_subgroup_rotate", "cl_khr_subgroup_rotate"},
    {0, "SPV_KHR_uniform_group_instructions",
     "cl_khr_work_group_uniform_arithmetic"},
    {0, "SPV_INTEL_subgroups", "cl_intel_spirv_subgroups"},
    {0, "SPV_KHR_shader_clock", "cl_khr_kernel_clock"},
    {0, "SPV_EXT_shader_atomic_float_add", "cl_ext_float_atomics"},
    {0, "SPV_EXT_shader_atomic_float16_add", "cl_ext_float_atomics"},
    {0, "SPV_EXT_shader_atomic_float_min_max", "cl_ext_float_atomics"},
};

/* OpenCL.DebugInfo.100 is what clang -g and llvm-spirv write; the
 * translator turns it into LLVM debug information. */
static const il_entry il_sets[] = {
    {0, "OpenCL.std", NULL},
    {0, "OpenCL.DebugInfo.100", NULL},
};

/* Whether the device described by caps has what e needs. */
static bool entry_available(const il_entry *e, const cc_device_caps *caps) {
  return !e->needs || (caps && (listed(caps->extensions, e->needs) ||
                                listed(caps->features, e->needs)));
}

static bool capability_supported(uint32_t cap, const cc_device_caps *caps) {
  for (size_t i = 0; i < sizeof il_caps / sizeof il_caps[0]; i++)
    if (il_caps[i].cap == cap)
      return entry_available(&il_caps[i], caps);
  return false;
}

/* Whether the string operand n of m names an entry of table (n entries)
 * that caps has. */
static bool name_supported(const cc_il_module *m, cc_il_name n,
                           const il_entry *table, size_t count,
                           const cc_device_caps *caps) {
  const char *text = (const char *)(m->words + n.at);
  size_t len = strnlen(text, (size_t)n.words * 4);
  for (size_t i = 0; i < count; i++)
    if (strlen(table[i].name) == len &&
        memcmp(table[i].name, text, len) == 0)
      return entry_available(&table[i], caps);
  return false;
}

/* Logs the string operand n of m (bounded, printable) after what. */
static void log_name(cc_log *log, const char *what, const cc_il_module *m,
                     cc_il_name n) {
  const char *text = (const char *)(m->words + n.at);
  int len = (int)strnlen(text, (size_t)n.words * 4);
  if (len > 80)
    len = 80;
  cc_log_printf(log, "error: SPIR-V %s \"%.*s\" is not supported by this "
                "device\n", what, len, text);
}

/* Copies the names of the entries of table that caps has into out (up
 * to max; NULL to count) and returns how many there are. */
static unsigned list_names(const il_entry *table, size_t count,
                           const cc_device_caps *caps, const char **out,
                           unsigned max) {
  unsigned n = 0;
  for (size_t i = 0; i < count; i++) {
    if (!entry_available(&table[i], caps))
      continue;
    if (out && n < max)
      out[n] = table[i].name;
    n++;
  }
  return n;
}

unsigned cc_il_capabilities(const cc_device_caps *caps, uint32_t *out,
                            unsigned max) {
  unsigned n = 0;
  for (size_t i = 0; i < sizeof il_caps / sizeof il_caps[0]; i++) {
    if (!entry_available(&il_caps[i], caps))
      continue;
    if (out && n < max)
      out[n] = il_caps[i].cap;
    n++;
  }
  return n;
}

unsigned cc_il_extensions(const cc_device_caps *caps, const char **out,
                          unsigned max) {
  return list_names(il_extensions,
                    sizeof il_extensions / sizeof il_extensions[0], caps,
                    out, max);
}

unsigned cc_il_instruction_sets(const cc_device_caps *caps, const char **out,
                                unsigned max) {
  return list_names(il_sets, sizeof il_sets / sizeof il_sets[0], caps, out,
                    max);
}

bool cc_il_supported(const cc_il_module *m, const cc_device_caps *caps,
                     cc_log *log) {
  bool ok = true;
  if (m->too_many) {
    cc_log_printf(log, "error: the SPIR-V module declares more than %d "
                  "capabilities, extensions or instruction sets\n",
                  CC_IL_MAX_LISTED);
    ok = false;
  }
  for (unsigned i = 0; i < m->num_caps; i++) {
    if (!capability_supported(m->caps[i], caps)) {
      cc_log_printf(log, "error: SPIR-V capability %u is not supported by "
                    "this device\n", m->caps[i]);
      ok = false;
    }
  }
  for (unsigned i = 0; i < m->num_extensions; i++) {
    if (!name_supported(m, m->extensions[i], il_extensions,
                        sizeof il_extensions / sizeof il_extensions[0],
                        caps)) {
      log_name(log, "extension", m, m->extensions[i]);
      ok = false;
    }
  }
  for (unsigned i = 0; i < m->num_imports; i++) {
    if (!name_supported(m, m->imports[i], il_sets,
                        sizeof il_sets / sizeof il_sets[0], caps)) {
      log_name(log, "extended instruction set", m, m->imports[i]);
      ok = false;
    }
  }
  if (m->subgroups_per_workgroup) {
    cc_log_printf(log, "error: the SubgroupsPerWorkgroup execution mode is "
                  "not supported by this device (OpenCL C cannot ask for "
                  "a number of sub-groups either)\n");
    ok = false;
  }
  if (!m->has_memory_model) {
    cc_log_printf(log, "error: the SPIR-V module has no OpMemoryModel\n");
    ok = false;
  } else if (m->addressing != ADDRESSING_PHYSICAL64 ||
             m->memory_model != MEMORY_MODEL_OPENCL) {
    cc_log_printf(log, "error: SPIR-V addressing model %u, memory model %u: "
                  "this device takes Physical64 (2) and OpenCL (2)\n",
                  m->addressing, m->memory_model);
    ok = false;
  }
  return ok;
}

uint32_t *cc_il_specialize(const cc_il_module *m,
                           const cc_il_spec_value *values, unsigned n) {
  uint32_t *w = malloc(m->num_words * 4);
  if (!w)
    return NULL;
  memcpy(w, m->words, m->num_words * 4);
  for (unsigned i = 0; i < n; i++) {
    const cc_il_spec_const *s = cc_il_find_spec(m, values[i].id);
    if (!s)
      continue;
    uint32_t *inst = w + s->word;
    uint32_t op = inst[0] & 0xffffu;
    if (op == OP_SPEC_CONSTANT_TRUE || op == OP_SPEC_CONSTANT_FALSE) {
      uint32_t to = values[i].value ? OP_SPEC_CONSTANT_TRUE
                                    : OP_SPEC_CONSTANT_FALSE;
      inst[0] = (inst[0] & 0xffff0000u) | to;
    } else {
      /* Literals are low word first; a narrower value fills the low
       * bits of one word, sign-extended for signed integer types and
       * zero-extended otherwise (SPIR-V 2.2.1, "Literal"). */
      uint64_t v = values[i].value;
      unsigned bits = s->size * 8;
      if (bits < 64)
        v &= (UINT64_C(1) << bits) - 1;
      if (s->is_signed && bits < 32 && (v >> (bits - 1)) & 1)
        v |= ~((UINT64_C(1) << bits) - 1);
      inst[3] = (uint32_t)v;
      if (s->size == 8)
        inst[4] = (uint32_t)(v >> 32);
    }
  }
  return w;
}

size_t cc_il_spec_size(const cc_il_module *m, uint32_t id) {
  const cc_il_spec_const *s = cc_il_find_spec(m, id);
  return s ? s->size : 0;
}

unsigned cc_il_max_version(void) {
  return 100 + ((CC_IL_MAX_VERSION >> 8) & 0xffu);
}
