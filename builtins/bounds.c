/* This file contains the run-time half of bounds-checked kernels
 * (compiler/bounds_check.cpp inserts the checks): the size of a kernel
 * argument's object, and the note of an access outside its object, which
 * the check skips. The host reports a note when the launch completes
 * (runtime/api/api_enqueue_kernel.c).
 *
 * The compiler marks the loads these make through the launch (its sizes,
 * its report, its group counts) invariant (cc_bounds_mark_invariant in
 * compiler/bounds_check.cpp): they do not change during a launch, and
 * without the mark LLVM must assume the kernel's stores may change them,
 * so a check's limit would be reloaded on every work-item and could not
 * be lifted out of the work-item loop. */
#include "abi.h"

/* The byte size of argument arg's object. A kernel calls this only when
 * it has check sites, and the host gives every launch of such a kernel
 * its sizes (runtime/api/api_enqueue_kernel.c): no null test, whose branch
 * would keep the load in the work-item loop. */
__attribute__((always_inline)) uint64_t
__skein_ctx___skein_bounds_size(skein_group *g, uint32_t arg) {
  return g->launch->arg_sizes[arg];
}

/* Notes that the work-item of linear local id lid made the access of check
 * site at byte offset offset, outside its object. Inlined: a call would
 * take the work-group function's group record, which then escapes, and
 * every load of it (local sizes, region state) would stay inside the
 * work-item loops, where the lifted tests of compiler/bounds_lift.cpp
 * built from them would vary. */
__attribute__((always_inline)) void
__skein_ctx___skein_bounds_note(skein_group *g, uint32_t site,
                                uint64_t offset, uint64_t lid) {
  skein_bounds_report *r = g->launch->bounds;
  if (!r || lid >= SKEIN_BOUNDS_SLOTS)
    return;
  const uint64_t *n = g->launch->num_groups;
  r->site[lid] = site + 1;
  r->offset[lid] = offset;
  r->group[lid] = (g->group_id[2] * n[1] + g->group_id[1]) * n[0] +
                  g->group_id[0];
}
