/* This file contains cl_intel_unified_shared_memory's allocations: they
 * are entries of the SVM registry (svm.c) tagged with their kind, so
 * that SVM and USM share one lookup for the kernel-argument, command
 * and info checks; the blocking free waits for the commands enqueued on
 * the context's queues before it. */
#include "usm.h"
#include "context.h"

void *rt_usm_alloc(cl_context ctx, rt_alloc_kind kind, cl_device_id device,
                   cl_mem_alloc_flags_intel flags, size_t size,
                   size_t align) {
  rt_svm_info info = {NULL, size, flags, ctx, kind, device};
  return rt_alloc_register(&info, align);
}

cl_int rt_usm_free(cl_context ctx, void *ptr, bool blocking) {
  rt_svm_info info;
  /* Checked before waiting, so a bad pointer fails at once. */
  if (!rt_svm_find(ptr, &info) || info.base != ptr ||
      info.context != ctx || info.kind == RT_ALLOC_SVM)
    return CL_INVALID_VALUE;
  /* The extension says the blocking free waits for the enqueued
   * commands that use ptr. Which those are is not known: kernels reach
   * USM through pointers stored anywhere (the indirect-access exec
   * infos), so it waits, conservatively, for every command enqueued on
   * the context's queues before the call; later ones are not waited for
   * (they cannot rightly use memory being freed). */
  if (blocking) {
    cl_int err = rt_context_wait_enqueued(ctx);
    if (err != CL_SUCCESS)
      return err;
  }
  return rt_alloc_unregister(ctx, ptr, true) ? CL_SUCCESS
                                              : CL_INVALID_VALUE;
}
