/* This file contains the reading of a kernel's OpenCL metadata (what
 * Clang records about its arguments and attributes) into cc_kernel_info,
 * the form the runtime's clGetKernel*Info queries use. */
#include "compiler_internal.h"

#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

LLVMValueRef cc_function_md(LLVMValueRef fn, const char *kind) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(fn));
  unsigned id = LLVMGetMDKindIDInContext(ctx, kind, (unsigned)strlen(kind));
  size_t n;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(fn, &n);
  LLVMValueRef node = NULL;
  for (size_t i = 0; i < n && !node; i++)
    if (LLVMValueMetadataEntriesGetKind(md, (unsigned)i) == id)
      node = LLVMMetadataAsValue(
          ctx, LLVMValueMetadataEntriesGetMetadata(md, (unsigned)i));
  if (md)
    LLVMDisposeValueMetadataEntries(md);
  return node;
}

/* Operand i of node (NULL if absent). */
static LLVMValueRef md_op(LLVMValueRef node, unsigned i) {
  if (!node || i >= LLVMGetMDNodeNumOperands(node))
    return NULL;
  LLVMValueRef ops[LLVMGetMDNodeNumOperands(node)];
  LLVMGetMDNodeOperands(node, ops);
  return ops[i];
}

/* A malloc'd copy of string operand i of the kind node ("" if absent). */
static char *md_str(LLVMValueRef fn, const char *kind, unsigned i) {
  LLVMValueRef op = md_op(cc_function_md(fn, kind), i);
  unsigned len = 0;
  const char *s = op ? LLVMGetMDString(op, &len) : NULL;
  char *copy = malloc(len + 1);
  if (copy) {
    if (len)
      memcpy(copy, s, len);
    copy[len] = '\0';
  }
  return copy;
}

static uint64_t md_int(LLVMValueRef fn, const char *kind, unsigned i) {
  LLVMValueRef op = md_op(cc_function_md(fn, kind), i);
  return op && LLVMIsAConstantInt(op) ? LLVMConstIntGetZExtValue(op) : 0;
}

static bool has_word(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
    if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
      return true;
  return false;
}

static unsigned access_qualifier(const char *s) {
  if (strcmp(s, "read_only") == 0)
    return CL_KERNEL_ARG_ACCESS_READ_ONLY;
  if (strcmp(s, "write_only") == 0)
    return CL_KERNEL_ARG_ACCESS_WRITE_ONLY;
  if (strcmp(s, "read_write") == 0)
    return CL_KERNEL_ARG_ACCESS_READ_WRITE;
  return CL_KERNEL_ARG_ACCESS_NONE;
}

/* True if base, an argument's base type name, is an OpenCL C image type
 * ("image2d_t", "image2d_array_depth_t" ...): "image" and an "_t" end
 * with no pointer, so that a pointer to a struct whose name begins with
 * "image" stays a buffer argument. */
static bool is_image_type_name(const char *base) {
  size_t n = strlen(base);
  return strncmp(base, "image", 5) == 0 && n > 7 &&
         strcmp(base + n - 2, "_t") == 0 && !strchr(base, '*');
}

/* The kind, address qualifier and size of argument i. */
static void arg_kind(LLVMModuleRef m, LLVMValueRef kernel, unsigned i,
                     cc_arg_info *a) {
  static const unsigned addr[4] = {
      CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ADDRESS_GLOBAL,
      CL_KERNEL_ARG_ADDRESS_CONSTANT, CL_KERNEL_ARG_ADDRESS_LOCAL};
  static const cc_arg_kind kinds[4] = {CC_ARG_VALUE, CC_ARG_GLOBAL,
                                       CC_ARG_CONSTANT, CC_ARG_LOCAL};
  uint64_t as = md_int(kernel, "kernel_arg_addr_space", i);
  if (as > 3)
    as = 0;
  a->address_qualifier = addr[as];
  a->kind = kinds[as];
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  LLVMTypeRef ty = LLVMTypeOf(LLVMGetParam(kernel, i));
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  LLVMAttributeRef bv = LLVMGetEnumAttributeAtIndex(kernel, i + 1, byval);
  if (bv)
    ty = LLVMGetTypeAttributeValue(bv);
  /* A __local argument is given only a size by clSetKernelArg. */
  a->size = as == 3 ? 0 : (size_t)LLVMABISizeOfType(td, ty);
  char *base = md_str(kernel, "kernel_arg_base_type", i);
  char *qual = md_str(kernel, "kernel_arg_type_qual", i);
  /* A pipe's type name is its packet type's; "pipe" is among the type
   * qualifiers (Clang gives it the global address space). */
  if (qual && has_word(qual, "pipe"))
    a->kind = CC_ARG_PIPE;
  else if (base && strcmp(base, "sampler_t") == 0)
    a->kind = CC_ARG_SAMPLER;
  else if (base && as == 1 && is_image_type_name(base))
    a->kind = CC_ARG_IMAGE;
  free(qual);
  free(base);
}

static bool fill_arg(LLVMModuleRef m, LLVMValueRef kernel, unsigned i,
                     bool want_names, cc_arg_info *a) {
  arg_kind(m, kernel, i, a);
  char *access = md_str(kernel, "kernel_arg_access_qual", i);
  char *qual = md_str(kernel, "kernel_arg_type_qual", i);
  a->type_name = md_str(kernel, "kernel_arg_type", i);
  a->name = want_names ? md_str(kernel, "kernel_arg_name", i) : NULL;
  bool ok = access && qual && a->type_name && (!want_names || a->name);
  if (ok) {
    a->access_qualifier = access_qualifier(access);
    a->type_qualifier = (has_word(qual, "const") ? CL_KERNEL_ARG_TYPE_CONST
                                                 : 0) |
                        (has_word(qual, "restrict")
                             ? CL_KERNEL_ARG_TYPE_RESTRICT : 0) |
                        (has_word(qual, "volatile")
                             ? CL_KERNEL_ARG_TYPE_VOLATILE : 0) |
                        (has_word(qual, "pipe") ? CL_KERNEL_ARG_TYPE_PIPE
                                                : 0);
  }
  free(access);
  free(qual);
  return ok;
}

/* The OpenCL C name of a vec_type_hint type such as <4 x float>. */
static void hint_type_name(LLVMTypeRef ty, bool is_signed, char *out,
                           size_t size) {
  unsigned n = 1;
  if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind) {
    n = LLVMGetVectorSize(ty);
    ty = LLVMGetElementType(ty);
  }
  const char *base = "float";
  switch (LLVMGetTypeKind(ty)) {
  case LLVMHalfTypeKind: base = "half"; break;
  case LLVMDoubleTypeKind: base = "double"; break;
  case LLVMIntegerTypeKind:
    switch (LLVMGetIntTypeWidth(ty)) {
    case 8: base = is_signed ? "char" : "uchar"; break;
    case 16: base = is_signed ? "short" : "ushort"; break;
    case 64: base = is_signed ? "long" : "ulong"; break;
    default: base = is_signed ? "int" : "uint"; break;
    }
    break;
  default: break;
  }
  if (n > 1)
    snprintf(out, size, "%s%u", base, n);
  else
    snprintf(out, size, "%s", base);
}

/* CL_KERNEL_ATTRIBUTES: the attributes written in the source. */
static char *attributes_text(LLVMValueRef kernel, cc_kernel_info *ki) {
  cc_log text = {0};
  cc_log_append(&text, "", 0);
  const char *sizes[2] = {"reqd_work_group_size", "work_group_size_hint"};
  size_t *dst[2] = {ki->reqd_work_group_size, ki->work_group_size_hint};
  for (int k = 0; k < 2; k++) {
    if (!cc_function_md(kernel, sizes[k]))
      continue;
    for (unsigned d = 0; d < 3; d++)
      dst[k][d] = (size_t)md_int(kernel, sizes[k], d);
    cc_log_printf(&text, "%s%s(%zu,%zu,%zu)", text.len ? " " : "", sizes[k],
                  dst[k][0], dst[k][1], dst[k][2]);
  }
  LLVMValueRef hint = md_op(cc_function_md(kernel, "vec_type_hint"), 0);
  if (hint) {
    char name[32];
    hint_type_name(LLVMTypeOf(hint), md_int(kernel, "vec_type_hint", 1) != 0,
                   name, sizeof(name));
    cc_log_printf(&text, "%svec_type_hint(%s)", text.len ? " " : "", name);
  }
  if (cc_function_md(kernel, "intel_reqd_sub_group_size"))
    cc_log_printf(&text, "%sintel_reqd_sub_group_size(%u)",
                  text.len ? " " : "",
                  (unsigned)md_int(kernel, "intel_reqd_sub_group_size", 0));
  if (text.oom) {
    free(text.buf);
    return NULL;
  }
  return text.buf;
}

bool cc_kernel_info_fill(LLVMModuleRef m, LLVMValueRef kernel,
                         bool want_names, cc_kernel_info *ki) {
  memset(ki, 0, sizeof(*ki));
  size_t len;
  const char *name = LLVMGetValueName2(kernel, &len);
  ki->name = strndup(name, len);
  ki->num_args = LLVMCountParams(kernel);
  ki->args = calloc(ki->num_args ? ki->num_args : 1, sizeof(cc_arg_info));
  ki->attributes = attributes_text(kernel, ki);
  ki->sub_group_size = cc_sub_group_size();
  /* cl_intel_required_subgroup_size: Clang records
   * intel_reqd_sub_group_size(N) as this metadata; the build fails if N
   * is not one of cc_sub_group_sizes (build.c). */
  if (cc_function_md(kernel, "intel_reqd_sub_group_size")) {
    ki->required_sub_group_size =
        (unsigned)md_int(kernel, "intel_reqd_sub_group_size", 0);
    ki->sub_group_size = ki->required_sub_group_size;
  }
  if (!ki->name || !ki->args || !ki->attributes)
    return false;
  for (unsigned i = 0; i < ki->num_args; i++)
    if (!fill_arg(m, kernel, i, want_names, &ki->args[i]))
      return false;
  return true;
}

/* The sub-group sizes a kernel may require (CL_DEVICE_SUB_GROUP_SIZES_
 * INTEL): fiber mode takes any size (sub-groups are runs of consecutive
 * linear ids), region mode a power of two; these are the ones
 * tests/test-subgroups-ext.c checks. */
static const size_t sub_group_sizes[] = {4, 8, 16, 32};

size_t cc_sub_group_sizes(const size_t **sizes) {
  *sizes = sub_group_sizes;
  return sizeof sub_group_sizes / sizeof sub_group_sizes[0];
}

bool cc_sub_group_size_supported(unsigned n) {
  for (size_t i = 0; i < sizeof sub_group_sizes / sizeof *sub_group_sizes;
       i++)
    if (sub_group_sizes[i] == n)
      return true;
  return false;
}

bool cc_kernel_info_check(const cc_kernel_info *ki, cc_log *log) {
  unsigned pipes = 0;
  for (unsigned i = 0; i < ki->num_args; i++)
    pipes += ki->args[i].kind == CC_ARG_PIPE;
  if (pipes <= CC_MAX_PIPE_ARGS)
    return true;
  cc_log_printf(log, "error: kernel '%s' has %u pipe arguments; the device "
                "takes at most %u (CL_DEVICE_MAX_PIPE_ARGS)\n", ki->name,
                pipes, CC_MAX_PIPE_ARGS);
  return false;
}

void cc_kernel_info_free(cc_kernel_info *ki) {
  for (unsigned i = 0; ki->args && i < ki->num_args; i++) {
    free(ki->args[i].type_name);
    free(ki->args[i].name);
  }
  free(ki->args);
  for (unsigned i = 0; i < ki->num_bounds_sites; i++)
    free(ki->bounds_sites[i].variable);
  free(ki->bounds_sites);
  free(ki->name);
  free(ki->attributes);
  memset(ki, 0, sizeof(*ki));
}

bool cc_kernel_takes_images(const cc_kernel_info *k) {
  for (unsigned i = 0; i < k->num_args; i++)
    if (k->args[i].kind == CC_ARG_IMAGE)
      return true;
  return false;
}
