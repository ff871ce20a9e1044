/* This file contains the host half of bounds-checked kernels: after a
 * launch, the report the checks wrote (builtins/bounds.c) becomes one
 * line on stderr naming the kernel, the access, its object and a
 * work-item that made it. */
#include "kernel.h"
#include <inttypes.h>
#include <stdio.h>

/* Splits a linear id into x, y, z over sizes n[0..2]. */
static void unlinear(uint64_t id, const uint64_t n[3], uint64_t out[3]) {
  out[0] = id % n[0];
  out[1] = id / n[0] % n[1];
  out[2] = id / n[0] / n[1];
}

bool rt_bounds_report(cl_kernel k, const skein_launch *l) {
  const skein_bounds_report *r = l->bounds;
  unsigned hits = 0, first = 0;
  for (unsigned i = 0; i < SKEIN_BOUNDS_SLOTS; i++)
    if (r->site[i] && hits++ == 0)
      first = i;
  if (!hits)
    return false;
  const cc_kernel_info *ki = k->info;
  unsigned site_id = r->site[first] - 1;
  if (site_id >= ki->num_bounds_sites)
    site_id = 0;   /* defensive: a torn note from racing groups */
  const cc_bounds_site *s = &ki->bounds_sites[site_id];
  uint64_t size = s->arg < ki->num_args ? l->arg_sizes[s->arg]
                                        : s->variable_size;
  uint64_t local[3], group[3];
  unlinear(first, l->local_size, local);
  unlinear(r->group[first], l->num_groups, group);
  char object[160];
  if (s->arg < ki->num_args)
    snprintf(object, sizeof object, "argument %u (%" PRIu64 " bytes)",
             s->arg, size);
  else
    snprintf(object, sizeof object, "variable %s (%" PRIu64 " bytes)",
             s->variable ? s->variable : "?", size);
  char line[32] = "";
  if (s->line)
    snprintf(line, sizeof line, ", line %u", s->line);
  fprintf(stderr,
          "skein: kernel %s: out-of-bounds %s of %" PRIu64 " byte%s at "
          "offset %" PRId64 " of %s%s, by work-item (%" PRIu64 ",%" PRIu64
          ",%" PRIu64 ") of group (%" PRIu64 ",%" PRIu64 ",%" PRIu64
          "); skipped (%u work-item slot%s noted); the command fails\n",
          ki->name, s->is_store ? "store" : "load", s->access,
          s->access == 1 ? "" : "s", (int64_t)r->offset[first], object, line,
          local[0], local[1], local[2], group[0], group[1], group[2], hits,
          hits == 1 ? "" : "s");
  fflush(stderr);
  return true;
}
