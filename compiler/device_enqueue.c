/* This file contains the compiler side of device-side enqueue: Clang
 * lowers every block that enqueue_kernel (or a get_kernel_* query) takes
 * to a kernel of its own, "__<caller>_block_invoke[_N]_kernel", whose
 * first argument is the block literal and whose others are the block's
 * __local pointers, and passes that kernel's address to
 * __enqueue_kernel_basic and friends. Those block kernels are kernels of
 * the program like any other (work-group function, mode choice), but
 * hidden from the application; the address each call passes becomes the
 * kernel's name, by which the runtime finds its work-group function
 * (runtime/core/device_queue.c, builtins/device_enqueue.c). */
#include "compiler_internal.h"

#include <stdlib.h>
#include <string.h>

/* The calls that take a block kernel, and which operand it is. */
static const struct {
  const char *name;
  unsigned operand;
} block_calls[] = {
    {"__enqueue_kernel_basic", 3},
    {"__enqueue_kernel_basic_events", 6},
    {"__enqueue_kernel_varargs", 3},
    {"__enqueue_kernel_events_varargs", 6},
    {"__get_kernel_work_group_size_impl", 0},
    {"__get_kernel_preferred_work_group_size_multiple_impl", 0},
    {"__get_kernel_sub_group_count_for_ndrange_impl", 1},
    {"__get_kernel_max_sub_group_size_for_ndrange_impl", 1},
};

/* The function v names, looking through address-space casts and
 * bitcasts, constant or (as llvm-spirv writes them for SPIR-V's
 * OpEnqueueKernel) instructions; NULL if v is not a function's
 * address. */
static LLVMValueRef function_of(LLVMValueRef v) {
  while (v && !LLVMIsAFunction(v)) {
    LLVMOpcode op;
    if (LLVMIsAConstantExpr(v))
      op = LLVMGetConstOpcode(v);
    else if (LLVMIsACastInst(v))
      op = LLVMGetInstructionOpcode(v);
    else
      return NULL;
    if (op != LLVMAddrSpaceCast && op != LLVMBitCast)
      return NULL;
    v = LLVMGetOperand(v, 0);
  }
  return v;
}

/* Deletes the cast instructions that led from a replaced operand to its
 * block kernel once nothing uses them, so the parent keeps no reference
 * to the kernel's address. */
static void drop_dead_casts(LLVMValueRef v) {
  while (v && LLVMIsACastInst(v) && !LLVMGetFirstUse(v)) {
    LLVMValueRef from = LLVMGetOperand(v, 0);
    LLVMInstructionEraseFromParent(v);
    v = from;
  }
}

/* A constant generic pointer to the NUL-terminated name of kernel, of
 * type ty (the operand's type). */
static LLVMValueRef name_constant(LLVMModuleRef m, LLVMValueRef kernel,
                                  LLVMTypeRef ty) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  size_t len;
  const char *name = LLVMGetValueName2(kernel, &len);
  LLVMValueRef str = LLVMConstStringInContext(ctx, name, (unsigned)len, 0);
  LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(str), "__skein_block_name");
  LLVMSetInitializer(g, str);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  return LLVMGetPointerAddressSpace(ty) == 0
             ? g
             : LLVMConstAddrSpaceCast(g, ty);
}

/* Stores of a block's invoke function into its literal (the literal's
 * third field) store NULL instead: OpenCL C calls a block only where it
 * is known, directly, so nothing reads the field, and the stored address
 * would keep the invoke function, whose work-item builtins only a
 * kernel's call tree can lower, alive outside every kernel. */
static void drop_invoke_stores(LLVMValueRef v) {
  LLVMUseRef next;
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = next) {
    next = LLVMGetNextUse(u);
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == v)
      LLVMSetOperand(user, 0, LLVMConstNull(LLVMTypeOf(v)));
    else if (LLVMIsAConstantExpr(user) &&
             (LLVMGetConstOpcode(user) == LLVMAddrSpaceCast ||
              LLVMGetConstOpcode(user) == LLVMBitCast))
      drop_invoke_stores(user);
  }
}

/* Block kernels come without Clang's kernel_arg_* metadata; the work-group
 * function reads the address spaces from it (a __local argument's slot
 * holds an offset into the group's local memory): 3 for the __local
 * pointers, 0 (a value: the literal's address) for the rest. */
static void mark_block_kernel(LLVMModuleRef m, LLVMValueRef kernel) {
  static const char key[] = "skein-block-kernel";
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  if (LLVMGetStringAttributeAtIndex(kernel, LLVMAttributeFunctionIndex, key,
                                    sizeof key - 1))
    return;
  LLVMAddAttributeAtIndex(
      kernel, LLVMAttributeFunctionIndex,
      LLVMCreateStringAttribute(ctx, key, sizeof key - 1, "", 0));
  unsigned n = LLVMCountParams(kernel);
  LLVMMetadataRef spaces[n ? n : 1];
  for (unsigned i = 0; i < n; i++) {
    LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(kernel, i));
    unsigned as = LLVMGetTypeKind(t) == LLVMPointerTypeKind &&
                          LLVMGetPointerAddressSpace(t) == 3
                      ? 3
                      : 0;
    spaces[i] = LLVMValueAsMetadata(
        LLVMConstInt(LLVMInt32TypeInContext(ctx), as, 0));
  }
  unsigned kind = LLVMGetMDKindIDInContext(ctx, "kernel_arg_addr_space",
                                           21);
  LLVMGlobalSetMetadata(kernel, kind, LLVMMDNodeInContext2(ctx, spaces, n));
}

/* Whether f is a block's invoke function (not a block kernel). */
static bool is_invoke(LLVMValueRef f) {
  size_t len;
  return f && !LLVMIsDeclaration(f) &&
         strstr(LLVMGetValueName2(f, &len), "_block_invoke") &&
         LLVMGetFunctionCallConv(f) != LLVMSPIRKERNELCallConv;
}

/* A program-scope block (a global block literal) holds its invoke
 * function's address in its initializer: NULL there too. */
static void drop_invoke_initializers(LLVMModuleRef m) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    LLVMValueRef init = LLVMIsDeclaration(g) ? NULL : LLVMGetInitializer(g);
    if (!init || LLVMGetTypeKind(LLVMTypeOf(init)) != LLVMStructTypeKind)
      continue;
    unsigned n = LLVMGetNumOperands(init);
    if (n == 0 || n > 64)
      continue;
    LLVMValueRef ops[64];
    bool changed = false;
    for (unsigned i = 0; i < n; i++) {
      ops[i] = LLVMGetOperand(init, i);
      if (is_invoke(function_of(ops[i]))) {
        ops[i] = LLVMConstNull(LLVMTypeOf(ops[i]));
        changed = true;
      }
    }
    if (!changed)
      continue;
    LLVMTypeRef ty = LLVMTypeOf(init);
    LLVMSetInitializer(
        g, LLVMGetStructName(ty)
               ? LLVMConstNamedStruct(ty, ops, n)
               : LLVMConstStructInContext(LLVMGetModuleContext(m), ops, n,
                                          LLVMIsPackedStruct(ty)));
  }
}

bool cc_device_enqueue_prepare(LLVMModuleRef m, cc_log *log) {
  bool ok = true;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f))
    if (is_invoke(f))
      drop_invoke_stores(f);
  drop_invoke_initializers(m);
  for (size_t c = 0; c < sizeof block_calls / sizeof *block_calls; c++) {
    LLVMValueRef fn = LLVMGetNamedFunction(m, block_calls[c].name);
    if (!fn)
      continue;
    for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef call = LLVMGetUser(u);
      if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != fn)
        continue;
      unsigned op = block_calls[c].operand;
      LLVMValueRef arg = LLVMGetOperand(call, op);
      LLVMValueRef kernel = function_of(arg);
      if (!kernel || LLVMIsDeclaration(kernel)) {
        cc_log_printf(log, "error: %s: the enqueued block is not a "
                      "known block kernel\n", block_calls[c].name);
        ok = false;
        continue;
      }
      mark_block_kernel(m, kernel);
      LLVMSetOperand(call, op, name_constant(m, kernel, LLVMTypeOf(arg)));
      drop_dead_casts(arg);
    }
  }
  return ok;
}

bool cc_is_block_kernel(LLVMValueRef kernel) {
  static const char key[] = "skein-block-kernel";
  return LLVMGetStringAttributeAtIndex(kernel, LLVMAttributeFunctionIndex,
                                       key, sizeof key - 1) != NULL;
}

bool cc_is_device_enqueue_builtin(const char *name) {
  static const char *const prefixes[] = {
      "__skein_ctx___enqueue_kernel_",
      "__skein_ctx___get_kernel_",
      "__skein_ctx__Z14enqueue_marker",
      "__skein_ctx__Z17get_default_queuev",
      "__skein_ctx__Z12retain_event",
      "__skein_ctx__Z13release_event",
      "__skein_ctx__Z17create_user_eventv",
      "__skein_ctx__Z21set_user_event_status",
      "__skein_ctx__Z14is_valid_event",
      "__skein_ctx__Z28capture_event_profiling_info",
  };
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
      return true;
  return false;
}
