/* This file contains the work-group function generator: for a kernel K
 * it emits __skein_wg_K, which in loop mode loads K's arguments from the
 * launch and loops over the group's local ids calling K, and in fiber
 * mode hands __skein_wi_K (one work-item: load the arguments, call K) to
 * the scheduler's run_fibers. After K is inlined it turns work-item
 * builtins into expressions of the local ids, group-aware builtins
 * (barriers, collectives) into calls with the group, and kernel-scope
 * __local variables into slices of the group's local memory. */
#include "compiler_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The OpenCL work-item builtins (Itanium-mangled as Clang emits them)
 * and the helper in builtins/workitem.c that implements each. */
static const struct workitem {
  const char *builtin, *helper;
  bool has_dim;   /* takes a uint dimindx */
  bool ret32;     /* returns uint (get_work_dim) rather than size_t */
} workitems[] = {
  {"_Z12get_work_dimv", "__skein_get_work_dim", false, true},
  {"_Z15get_global_sizej", "__skein_get_global_size", true, false},
  {"_Z13get_global_idj", "__skein_get_global_id", true, false},
  {"_Z14get_local_sizej", "__skein_get_local_size", true, false},
  {"_Z23get_enqueued_local_sizej", "__skein_get_enqueued_local_size", true,
   false},
  {"_Z12get_local_idj", "__skein_get_local_id", true, false},
  {"_Z14get_num_groupsj", "__skein_get_num_groups", true, false},
  {"_Z12get_group_idj", "__skein_get_group_id", true, false},
  {"_Z17get_global_offsetj", "__skein_get_global_offset", true, false},
  {"_Z20get_global_linear_idv", "__skein_get_global_linear_id", false,
   false},
  {"_Z19get_local_linear_idv", "__skein_get_local_linear_id", false, false},
  /* Sub-groups (builtins/workitem.c says how they map onto work-items). */
  {"_Z18get_sub_group_sizev", "__skein_get_sub_group_size", false, true},
  {"_Z22get_max_sub_group_sizev", "__skein_get_max_sub_group_size", false,
   true},
  {"_Z18get_num_sub_groupsv", "__skein_get_num_sub_groups", false, true},
  {"_Z27get_enqueued_num_sub_groupsv",
   "__skein_get_enqueued_num_sub_groups", false, true},
  {"_Z16get_sub_group_idv", "__skein_get_sub_group_id", false, true},
  {"_Z22get_sub_group_local_idv", "__skein_get_sub_group_local_id", false,
   true},
};
#define NUM_WORKITEMS (sizeof(workitems) / sizeof(workitems[0]))

static const struct workitem *find_workitem(const char *name) {
  for (size_t i = 0; i < NUM_WORKITEMS; i++)
    if (strcmp(name, workitems[i].builtin) == 0)
      return &workitems[i];
  return NULL;
}

bool cc_is_workitem_builtin(const char *name) {
  return find_workitem(name) != NULL;
}

/* The helper's function type: (group*, lx, ly, lz[, dim]) -> i32/i64. */
static LLVMTypeRef helper_type(LLVMContextRef ctx, const struct workitem *w) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef params[5] = {LLVMPointerTypeInContext(ctx, 0), i64, i64, i64,
                           LLVMInt32TypeInContext(ctx)};
  LLVMTypeRef ret = w->ret32 ? LLVMInt32TypeInContext(ctx) : i64;
  return LLVMFunctionType(ret, params, w->has_dim ? 5 : 4, 0);
}

/* Declares the helper (so linking the builtins brings its body). */
static LLVMValueRef helper_decl(LLVMModuleRef m, const struct workitem *w) {
  LLVMValueRef f = LLVMGetNamedFunction(m, w->helper);
  if (!f)
    f = LLVMAddFunction(m, w->helper,
                        helper_type(LLVMGetModuleContext(m), w));
  return f;
}

/* Address of field[index] (index < 0: the field itself) of a struct. */
static LLVMValueRef field(LLVMBuilderRef b, LLVMTypeRef st, LLVMValueRef p,
                          unsigned f, int index) {
  LLVMContextRef ctx = LLVMGetTypeContext(st);
  LLVMValueRef idx[3] = {
      LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0),
      LLVMConstInt(LLVMInt32TypeInContext(ctx), f, 0),
      LLVMConstInt(LLVMInt32TypeInContext(ctx), (unsigned)index, 0)};
  return LLVMBuildInBoundsGEP2(b, st, p, idx, index < 0 ? 2 : 3, "");
}

/* Fills the skein_group: launch, group ids, this group's actual local
 * size (smaller for the last group of a non-uniform NDRange) and the
 * local memory block. Returns the actual sizes in ls[3]. */
static void build_group(LLVMBuilderRef b, const cc_abi_types *abi,
                        cc_wg *wg, LLVMValueRef ls[3]) {
  LLVMContextRef ctx = LLVMGetTypeContext(abi->group);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMValueRef launch = LLVMGetParam(wg->fn, 0);
  LLVMBuildStore(b, launch, field(b, abi->group, wg->group, G_LAUNCH, -1));
  for (int d = 0; d < 3; d++) {
    LLVMValueRef gid = LLVMGetParam(wg->fn, 1 + (unsigned)d);
    LLVMBuildStore(b, gid, field(b, abi->group, wg->group, G_GROUP_ID, d));
    LLVMValueRef enq = LLVMBuildLoad2(
        b, i64, field(b, abi->launch, launch, L_LOCAL, d), "enq");
    LLVMValueRef gsz = LLVMBuildLoad2(
        b, i64, field(b, abi->launch, launch, L_GLOBAL, d), "gsz");
    LLVMValueRef rest = LLVMBuildSub(b, gsz, LLVMBuildMul(b, gid, enq, ""),
                                     "rest");
    ls[d] = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, rest, enq, ""),
                            rest, enq, "ls");
    LLVMBuildStore(b, ls[d],
                   field(b, abi->group, wg->group, G_LOCAL_SIZE, d));
    LLVMBuildStore(b, LLVMConstInt(i64, 0, 0),
                   field(b, abi->group, wg->group, G_LOCAL_ID, d));
  }
  LLVMBuildStore(b, wg->local_mem,
                 field(b, abi->group, wg->group, G_LOCAL_MEM, -1));
  /* run_fibers sets these for each work-item; loop mode has none. */
  LLVMBuildStore(b, LLVMConstNull(ptr),
                 field(b, abi->group, wg->group, G_FIBER, -1));
  LLVMBuildStore(b, LLVMConstNull(ptr),
                 field(b, abi->group, wg->group, G_COLLECTIVE, -1));
}

/* The address space Clang gave kernel argument i (kernel_arg_addr_space:
 * 0 value, 1 global, 2 constant, 3 local). */
static unsigned arg_addr_space(LLVMValueRef kernel, unsigned i) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(kernel));
  unsigned kind = LLVMGetMDKindIDInContext(ctx, "kernel_arg_addr_space",
                                           21);
  size_t n;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(kernel, &n);
  unsigned as = 0;
  for (size_t k = 0; k < n; k++) {
    if (LLVMValueMetadataEntriesGetKind(md, (unsigned)k) != kind)
      continue;
    LLVMValueRef node = LLVMMetadataAsValue(
        ctx, LLVMValueMetadataEntriesGetMetadata(md, (unsigned)k));
    unsigned nops = LLVMGetMDNodeNumOperands(node);
    if (i < nops) {
      LLVMValueRef ops[nops];
      LLVMGetMDNodeOperands(node, ops);
      as = (unsigned)LLVMConstIntGetZExtValue(ops[i]);
    }
  }
  if (md)
    LLVMDisposeValueMetadataEntries(md);
  return as;
}

/* Loads argument i of the kernel from its slot (builtins/abi.h). */
static LLVMValueRef load_arg(LLVMBuilderRef b, cc_wg *wg, LLVMValueRef args,
                             unsigned i) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(wg->kernel));
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMValueRef idx = LLVMConstInt(i64, i, 0);
  LLVMValueRef slot = LLVMBuildLoad2(
      b, ptr, LLVMBuildInBoundsGEP2(b, ptr, args, &idx, 1, ""), "slot");
  LLVMValueRef param = LLVMGetParam(wg->kernel, i);
  LLVMTypeRef ty = LLVMTypeOf(param);
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  if (LLVMGetEnumAttributeAtIndex(wg->kernel, i + 1, byval))
    return slot;   /* the callee copies a byval struct itself */
  if (arg_addr_space(wg->kernel, i) == 3) {
    LLVMValueRef off = LLVMBuildLoad2(b, i64, slot, "local_off");
    LLVMValueRef p = LLVMBuildInBoundsGEP2(b, LLVMInt8TypeInContext(ctx),
                                           wg->local_mem, &off, 1, "");
    return LLVMBuildAddrSpaceCast(b, p, ty, "local_arg");
  }
  /* Argument bytes may sit at any address the runtime chose. */
  LLVMValueRef v = LLVMBuildLoad2(b, ty, slot, "arg");
  LLVMSetAlignment(v, 1);
  return v;
}

/* A do-while loop header: phi from 0, returns the phi. */
static LLVMValueRef loop_phi(LLVMBuilderRef b, LLVMBasicBlockRef from,
                             const char *name) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(
      LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(from))));
  LLVMValueRef phi = LLVMBuildPhi(b, i64, name);
  LLVMValueRef zero = LLVMConstInt(i64, 0, 0);
  LLVMAddIncoming(phi, &zero, &from, 1);
  return phi;
}

/* Closes a do-while loop: phi += 1; continue while phi < n. Returns the
 * back-edge branch. */
static LLVMValueRef loop_latch(LLVMBuilderRef b, LLVMValueRef phi,
                               LLVMValueRef n, LLVMBasicBlockRef header,
                               LLVMBasicBlockRef exit) {
  LLVMTypeRef i64 = LLVMTypeOf(phi);
  LLVMValueRef next = LLVMBuildNUWAdd(b, phi, LLVMConstInt(i64, 1, 0), "");
  LLVMBasicBlockRef here = LLVMGetInsertBlock(b);
  LLVMAddIncoming(phi, &next, &here, 1);
  return LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, n, ""),
                         header, exit);
}

/* Emits the z, y, x loops around one call of the kernel. The x loop is
 * the one the vectoriser runs across work-items. */
static void build_loops(LLVMBuilderRef b, cc_wg *wg, LLVMValueRef *args,
                        unsigned nargs, LLVMValueRef ls[3]) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(wg->fn));
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(b);
  const char *names[3] = {"x", "y", "z"};
  LLVMBasicBlockRef head[3], latch[3];
  for (int d = 2; d >= 0; d--)
    head[d] = LLVMAppendBasicBlockInContext(ctx, wg->fn, names[d]);
  for (int d = 0; d < 3; d++)
    latch[d] = d == 0 ? head[0] : LLVMAppendBasicBlockInContext(
                                      ctx, wg->fn, names[d]);
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(ctx, wg->fn, "ret");
  LLVMBuildBr(b, head[2]);
  for (int d = 2; d >= 0; d--) {
    LLVMPositionBuilderAtEnd(b, head[d]);
    wg->lid[d] = loop_phi(b, d == 2 ? entry : head[d + 1], names[d]);
    if (d > 0)
      LLVMBuildBr(b, head[d - 1]);
  }
  LLVMTypeRef fty = LLVMGlobalGetValueType(wg->kernel);
  LLVMBuildCall2(b, fty, wg->kernel, args, nargs, "");
  for (int d = 0; d < 3; d++) {
    LLVMBasicBlockRef after = d == 2 ? exit : latch[d + 1];
    if (d > 0)
      LLVMPositionBuilderAtEnd(b, latch[d]);
    LLVMValueRef br = loop_latch(b, wg->lid[d], ls[d], head[d], after);
    if (d == 0)
      wg->x_latch = br;
  }
  LLVMPositionBuilderAtEnd(b, exit);
  LLVMBuildRetVoid(b);
}

/* Declares fn's nounwind attribute (kernels cannot throw). */
static void set_nounwind(LLVMContextRef ctx, LLVMValueRef fn) {
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(ctx, nounwind, 0));
}

/* Adds the function <prefix><kernel name> of type ty. */
static LLVMValueRef add_named(LLVMModuleRef m, const char *prefix,
                              LLVMValueRef kernel, LLVMTypeRef ty) {
  size_t len;
  const char *kname = LLVMGetValueName2(kernel, &len);
  char name[strlen(prefix) + len + 1];
  snprintf(name, sizeof(name), "%s%s", prefix, kname);
  LLVMValueRef fn = LLVMAddFunction(m, name, ty);
  set_nounwind(LLVMGetModuleContext(m), fn);
  return fn;
}

/* Loads every kernel argument from launch->args into args[]. */
static void load_args(LLVMBuilderRef b, const cc_abi_types *abi, cc_wg *wg,
                      LLVMValueRef launch, LLVMValueRef *args) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(LLVMGetTypeContext(abi->group),
                                             0);
  LLVMValueRef args_ptr = LLVMBuildLoad2(
      b, ptr, field(b, abi->launch, launch, L_ARGS, -1), "args");
  unsigned nargs = LLVMCountParams(wg->kernel);
  for (unsigned i = 0; i < nargs; i++)
    args[i] = load_arg(b, wg, args_ptr, i);
}

/* Loop mode: the group on the stack, z/y/x loops around the kernel. */
static void generate_loop(LLVMBuilderRef b, const cc_abi_types *abi,
                          cc_wg *wg) {
  wg->body = wg->fn;
  wg->local_mem = LLVMGetParam(wg->fn, 4);
  wg->group = LLVMBuildAlloca(b, abi->group, "group");
  LLVMValueRef ls[3];
  build_group(b, abi, wg, ls);
  unsigned nargs = LLVMCountParams(wg->kernel);
  LLVMValueRef args[nargs ? nargs : 1];
  load_args(b, abi, wg, LLVMGetParam(wg->fn, 0), args);
  build_loops(b, wg, args, nargs, ls);
}

/* Fiber mode's __skein_wi_K(g): one work-item, its ids and local memory
 * read from its own copy of the group. */
static void generate_wi(LLVMModuleRef m, const cc_abi_types *abi,
                        cc_wg *wg) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  wg->body = add_named(m, "__skein_wi_", wg->kernel,
                       LLVMFunctionType(LLVMVoidTypeInContext(ctx), &ptr,
                                        1, 0));
  wg->group = LLVMGetParam(wg->body, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, wg->body,
                                                            "entry"));
  LLVMValueRef launch = LLVMBuildLoad2(
      b, ptr, field(b, abi->group, wg->group, G_LAUNCH, -1), "launch");
  wg->local_mem = LLVMBuildLoad2(
      b, ptr, field(b, abi->group, wg->group, G_LOCAL_MEM, -1), "local_mem");
  const char *names[3] = {"lx", "ly", "lz"};
  for (int d = 0; d < 3; d++)
    wg->lid[d] = LLVMBuildLoad2(
        b, i64, field(b, abi->group, wg->group, G_LOCAL_ID, d), names[d]);
  unsigned nargs = LLVMCountParams(wg->kernel);
  LLVMValueRef args[nargs ? nargs : 1];
  load_args(b, abi, wg, launch, args);
  LLVMBuildCall2(b, LLVMGlobalGetValueType(wg->kernel), wg->kernel, args,
                 nargs, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
}

/* A stack size that serves until cc_wg_set_stack_size knows better. */
#define DEFAULT_STACK (256 * 1024)

/* Fiber mode's __skein_wg_K: the group prototype on the stack, then
 * launch->hooks->run_fibers(&proto, __skein_wi_K, stack size). */
static void generate_fiber(LLVMModuleRef m, LLVMBuilderRef b,
                           const cc_abi_types *abi, cc_wg *wg) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMValueRef proto = LLVMBuildAlloca(b, abi->group, "proto");
  LLVMValueRef ls[3];
  cc_wg tmp = *wg;   /* build_group fills the group wg->group names */
  tmp.group = proto;
  tmp.local_mem = LLVMGetParam(wg->fn, 4);
  build_group(b, abi, &tmp, ls);
  LLVMValueRef launch = LLVMGetParam(wg->fn, 0);
  LLVMValueRef hooks = LLVMBuildLoad2(
      b, ptr, field(b, abi->launch, launch, L_HOOKS, -1), "hooks");
  /* run_fibers is the first member of skein_hooks. */
  LLVMValueRef run = LLVMBuildLoad2(b, ptr, hooks, "run_fibers");
  LLVMTypeRef params[3] = {ptr, ptr, i64};
  LLVMValueRef args[3] = {proto, wg->body, LLVMConstInt(i64, DEFAULT_STACK,
                                                         0)};
  LLVMBuildCall2(b, LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 3,
                                     0),
                 run, args, 3, "");
  LLVMBuildRetVoid(b);
}

/* ---- region mode hook (region.cpp does the rest) ---- */
/* Region mode's two functions, beside the fiber-mode ones:
 * __skein_ri_K(group, lx, ly, lz, local_mem, ctx, lid, n, next, args...)
 * calls K (which gets inlined; cc_region_finish cuts it into regions),
 * and __skein_rwg_K(launch, gx, gy, gz, local_mem) builds the group,
 * loads the arguments and calls __skein_ri_K once as a placeholder that
 * cc_region_finish replaces by the loops over the regions. */
static void generate_region(LLVMModuleRef m, const cc_abi_types *abi,
                            cc_wg *wg) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef kty = LLVMGlobalGetValueType(wg->kernel);
  unsigned nargs = LLVMCountParams(wg->kernel);
  LLVMTypeRef params[RP_ARGS + nargs];
  LLVMTypeRef fixed[RP_ARGS] = {ptr, i64, i64, i64, ptr, ptr, i64, i64, ptr};
  memcpy(params, fixed, sizeof(fixed));
  LLVMGetParamTypes(kty, params + RP_ARGS);
  LLVMValueRef ri = add_named(
      m, "__skein_ri_", wg->kernel,
      LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, RP_ARGS + nargs,
                       0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, ri,
                                                            "entry"));
  LLVMValueRef kargs[nargs ? nargs : 1];
  for (unsigned i = 0; i < nargs; i++)
    kargs[i] = LLVMGetParam(ri, RP_ARGS + i);
  LLVMBuildCall2(b, kty, wg->kernel, kargs, nargs, "");
  LLVMBuildRetVoid(b);

  LLVMTypeRef wparams[5] = {ptr, i64, i64, i64, ptr};
  LLVMValueRef rwg = add_named(
      m, "__skein_rwg_", wg->kernel,
      LLVMFunctionType(LLVMVoidTypeInContext(ctx), wparams, 5, 0));
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, rwg,
                                                            "entry"));
  cc_wg tmp = *wg;
  tmp.fn = rwg;
  tmp.group = LLVMBuildAlloca(b, abi->group, "group");
  tmp.local_mem = LLVMGetParam(rwg, 4);
  LLVMValueRef ls[3];
  build_group(b, abi, &tmp, ls);
  LLVMValueRef args[RP_ARGS + nargs];
  LLVMValueRef zero = LLVMConstInt(i64, 0, 0), null = LLVMConstNull(ptr);
  LLVMValueRef head[RP_ARGS] = {tmp.group, zero, zero, zero, tmp.local_mem,
                                null, zero, zero, null};
  memcpy(args, head, sizeof(head));
  load_args(b, abi, &tmp, LLVMGetParam(rwg, 0), args + RP_ARGS);
  LLVMBuildCall2(b, LLVMGlobalGetValueType(ri), ri, args, RP_ARGS + nargs,
                 "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  wg->region_body = ri;
  wg->region_fn = rwg;
  wg->abi_launch = abi->launch;
  wg->abi_group = abi->group;
}

void cc_wg_generate(LLVMModuleRef m, const cc_abi_types *abi,
                    LLVMValueRef kernel, bool fiber, bool loop_regions,
                    cc_wg *wg) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef params[5] = {ptr, i64, i64, i64, ptr};
  memset(wg, 0, sizeof(*wg));
  wg->kernel = kernel;
  wg->fiber = fiber;
  wg->fn = add_named(m, "__skein_wg_", kernel,
                     LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 5,
                                      0));
  /* The launch is only read, and nothing else points into it or into the
   * group's local memory: without saying so, every store of the kernel
   * to a buffer could change the launch, LLVM would reload its fields in
   * the work-item loop and give up vectorising it. */
  static const char *const launch_attrs[] = {"noalias", "readonly",
                                             "nocapture"};
  for (size_t i = 0; i < 3; i++)
    LLVMAddAttributeAtIndex(
        wg->fn, 1,
        LLVMCreateEnumAttribute(
            ctx, LLVMGetEnumAttributeKindForName(launch_attrs[i],
                                                 strlen(launch_attrs[i])),
            0));
  LLVMAddAttributeAtIndex(
      wg->fn, 5,
      LLVMCreateEnumAttribute(
          ctx, LLVMGetEnumAttributeKindForName("noalias", 7), 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, wg->fn,
                                                            "entry"));
  if (fiber) {
    generate_wi(m, abi, wg);
    generate_fiber(m, b, abi, wg);
    if (cc_region_wanted())
      generate_region(m, abi, wg);   /* region-mode hook */
  } else {
    generate_loop(b, abi, wg);
    /* A kernel with loops of its own: region mode may cut them at
     * implicit barriers (region.cpp), with loop mode as the fallback. */
    if (loop_regions && cc_region_wanted()) {
      generate_region(m, abi, wg);
      wg->loop_regions = true;
    }
  }
  LLVMDisposeBuilder(b);
  for (size_t i = 0; i < NUM_WORKITEMS; i++)
    helper_decl(m, &workitems[i]);
}

/* Replaces one call of a work-item builtin by a call of its helper with
 * the group and the current local ids. */
static void lower_call(LLVMBuilderRef b, LLVMModuleRef m, cc_wg *wg,
                       LLVMValueRef call, const struct workitem *w) {
  LLVMValueRef helper = helper_decl(m, w);
  LLVMValueRef args[5] = {wg->group, wg->lid[0], wg->lid[1], wg->lid[2],
                          NULL};
  if (w->has_dim)
    args[4] = LLVMGetOperand(call, 0);
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef v = LLVMBuildCall2(b, LLVMGlobalGetValueType(helper), helper,
                                  args, w->has_dim ? 5 : 4, "");
  LLVMReplaceAllUsesWith(call, v);
  LLVMInstructionEraseFromParent(call);
}

LLVMValueRef cc_ctx_function(LLVMModuleRef m, const char *name) {
  char ctx_name[strlen(name) + 16];
  snprintf(ctx_name, sizeof(ctx_name), "__skein_ctx_%s", name);
  return LLVMGetNamedFunction(m, ctx_name);
}

/* Replaces call (of name) by a call of its __skein_ctx_ form with the
 * group first; false if it has none. */
static bool lower_ctx_call(LLVMBuilderRef b, LLVMModuleRef m, cc_wg *wg,
                           LLVMValueRef call, const char *name) {
  LLVMValueRef ctx_fn = cc_ctx_function(m, name);
  if (!ctx_fn)
    return false;
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMValueRef args[n + 1];
  args[0] = wg->group;
  for (unsigned i = 0; i < n; i++)
    args[i + 1] = LLVMGetOperand(call, i);
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef v = LLVMBuildCall2(b, LLVMGlobalGetValueType(ctx_fn), ctx_fn,
                                  args, n + 1, "");
  LLVMReplaceAllUsesWith(call, v);
  LLVMInstructionEraseFromParent(call);
  return true;
}

static void lower_workitem_calls(LLVMBuilderRef b, LLVMModuleRef m,
                                 cc_wg *wg) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(wg->body); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef inst = LLVMGetFirstInstruction(bb);
    while (inst) {
      LLVMValueRef next = LLVMGetNextInstruction(inst);
      LLVMValueRef callee =
          LLVMIsACallInst(inst) ? LLVMGetCalledValue(inst) : NULL;
      if (callee && LLVMIsAFunction(callee)) {
        size_t len;
        const char *name = LLVMGetValueName2(callee, &len);
        const struct workitem *w = find_workitem(name);
        if (w)
          lower_call(b, m, wg, inst, w);
        else if (LLVMIsDeclaration(callee))
          lower_ctx_call(b, m, wg, inst, name);
      }
      inst = next;
    }
  }
}

/* Gives every kernel-scope __local variable the work-group function uses
 * an offset in the group's local memory block and points its uses there.
 * Returns the bytes used. */
static size_t lower_locals(LLVMBuilderRef b, LLVMModuleRef m, cc_wg *wg) {
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(wg->body);
  size_t offset = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g;
       g = LLVMGetNextGlobal(g)) {
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != 3 ||
        LLVMIsDeclaration(g) || !cc_global_used_in(g, wg->body))
      continue;
    LLVMTypeRef ty = LLVMGlobalGetValueType(g);
    size_t align = LLVMGetAlignment(g);
    if (align < LLVMABIAlignmentOfType(td, ty))
      align = LLVMABIAlignmentOfType(td, ty);
    offset = (offset + align - 1) / align * align;
    /* Right after local_mem is known: in fiber mode the kernel's entry
     * block, with uses of the variable, was merged into this one. */
    /* The region body (region mode hook) got the kernel merged into its
     * entry block too, and has local_mem as a parameter: its start. */
    LLVMPositionBuilderBefore(
        b, LLVMIsAInstruction(wg->local_mem)
               ? LLVMGetNextInstruction(wg->local_mem)
           : wg->body == wg->region_body ? LLVMGetFirstInstruction(entry)
                                         : LLVMGetBasicBlockTerminator(entry));
    LLVMValueRef off = LLVMConstInt(LLVMInt64TypeInContext(ctx), offset, 0);
    LLVMValueRef p = LLVMBuildInBoundsGEP2(b, LLVMInt8TypeInContext(ctx),
                                           wg->local_mem, &off, 1, "");
    size_t len;
    LLVMValueRef repl = LLVMBuildAddrSpaceCast(b, p, LLVMTypeOf(g),
                                               LLVMGetValueName2(g, &len));
    cc_replace_global_in_function(g, wg->body, repl);
    offset += LLVMABISizeOfType(td, ty);
  }
  return offset;
}

/* LLVM's cost model interleaves only small loops; a kernel with a long
 * arithmetic body (a compute-bound one, like clpeak's) then runs one
 * dependent vector chain and waits on FMA latency. vector_plan.c decides
 * from the target how many vectors of work-items to interleave (and
 * whether to split the kernel's own vectors into lanes first); short
 * bodies are left to the cost model, which interleaves them.
 *
 * A kernel with loops of its own keeps them inside the work-item loop,
 * which LLVM's (checked) loop vectoriser then leaves scalar: region mode
 * cuts such loops at implicit barriers where it can prove that sound, so
 * that work-items become the innermost loop (region.cpp). LLVM's
 * outer-loop vectoriser (the VPlan native path) would widen it in place,
 * but it skips the legality checks and miscompiled plain serial loops
 * (issue 13): Skein does not use it. */
static void hint_interleave(cc_wg *wg) {
  if (wg->fiber || !cc_vectorize_wanted())
    return;   /* no loop over work-items, or no vectors wanted */
  /* Chains of half mads in float first: the plan measures the body as
   * it will run (a rounded chain's conversions would count twice the
   * mads, and hide loops LLVM will unroll whole). */
  cc_keep_half_mad_chains_in(wg->body);
  size_t len;
  cc_vector_plan plan = cc_plan_vectors(wg->body, wg->x_latch,
                                        LLVMGetValueName2(wg->fn, &len));
  if (plan.interleave > 1 || plan.width > 1 || plan.force)
    cc_set_loop_interleave(wg->x_latch, plan.interleave, plan.width,
                           plan.force);
  if (plan.jam > 1)
    cc_set_loop_unroll_and_jam(wg->x_latch, plan.jam);
}

void cc_wg_lower(LLVMModuleRef m, cc_wg *wg, size_t *local_size) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  lower_workitem_calls(b, m, wg);
  *local_size = lower_locals(b, m, wg);
  hint_interleave(wg);
  if (wg->region_body) {
    /* Region-mode hook: the same lowering in the region body, whose
     * parameters carry the group, the local ids and local memory (the
     * same locals in the same module order: the same offsets). */
    cc_wg r = *wg;
    r.body = wg->region_body;
    r.group = LLVMGetParam(r.body, RP_GROUP);
    for (unsigned d = 0; d < 3; d++)
      r.lid[d] = LLVMGetParam(r.body, RP_LX + d);
    r.local_mem = LLVMGetParam(r.body, RP_LOCAL_MEM);
    lower_workitem_calls(b, m, &r);
    lower_locals(b, m, &r);
  }
  LLVMDisposeBuilder(b);
}

size_t cc_alloca_bytes(LLVMModuleRef m, LLVMValueRef fn) {
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  size_t total = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsAAllocaInst(i))
        total += LLVMABISizeOfType(td, LLVMGetAllocatedType(i));
  return total;
}

/* The call of run_fibers in __skein_wg_K: the call whose second
 * argument is __skein_wi_K. */
static LLVMValueRef find_run_fibers(cc_wg *wg) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(wg->fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsACallInst(i) && LLVMGetNumArgOperands(i) == 3 &&
          LLVMGetOperand(i, 1) == wg->body)
        return i;
  return NULL;
}

/* The frame estimate is the work-item function's stack slots after
 * optimisation (private arrays, values whose address is taken). Spills,
 * the builtins' and the scheduler's own frames are not in it: the stack
 * gets twice the estimate plus 32 KiB, at least 64 KiB, in whole pages
 * (the scheduler adds a guard page below). */
void cc_wg_set_stack_size(LLVMModuleRef m, cc_wg *wg, size_t *frame) {
  *frame = cc_alloca_bytes(m, wg->body);
  uint64_t size = 2 * (uint64_t)*frame + 32 * 1024;
  if (size < 64 * 1024)
    size = 64 * 1024;
  size = (size + 4095) / 4096 * 4096;
  LLVMValueRef call = find_run_fibers(wg);
  if (call)   /* else the generous DEFAULT_STACK stays */
    LLVMSetOperand(call, 2, LLVMConstInt(LLVMInt64TypeInContext(
                                             LLVMGetModuleContext(m)),
                                         size, 0));
}
