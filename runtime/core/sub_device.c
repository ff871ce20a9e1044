/* This file contains sub-device objects: how a device's compute units
 * are split (equally, by counts, by an affinity domain of the hwloc
 * tree), creating the sub-devices and their reference counts.
 *
 * A device's compute units are scheduler units (scheduler/subset.c:
 * unit u runs on core u % cores, in hwloc's logical order), kept in
 * ascending order, so "equally" and "by counts" hand out neighbouring
 * cores, which share the deepest caches. */
#include "sub_device.h"
#include "../../scheduler/scheduler.h"
#include <stdlib.h>
#include <string.h>

/* Unit i of d's compute units. */
static unsigned device_unit(cl_device_id d, unsigned i) {
  return d->units ? d->units[i] : i;
}

void rt_device_retain(cl_device_id d) {
  if (d->parent)
    rt_retain(d);
}

void rt_device_release(cl_device_id d) {
  while (d && d->parent && rt_release_last(d)) {
    cl_device_id parent = d->parent;
    free(d->units);
    sched_subset_free(d->subset);
    free(d->partition);
    free(d);
    d = parent; /* the reference each sub-device holds on its parent */
  }
}

/* The affinity levels in the order NEXT_PARTITIONABLE tries them. */
static const struct {
  cl_device_affinity_domain domain;
  sched_level level;
} levels[] = {
    {CL_DEVICE_AFFINITY_DOMAIN_NUMA, SCHED_LEVEL_NUMA},
    {CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE, SCHED_LEVEL_L4},
    {CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, SCHED_LEVEL_L3},
    {CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE, SCHED_LEVEL_L2},
    {CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE, SCHED_LEVEL_L1},
};

/* Groups d's units by their object of `level`: group[i] for unit i,
 * numbered in order of first appearance. Returns the number of groups,
 * 0 if no unit has an object of that level (the machine lacks it), or
 * -1 if out of memory. Units without one form a group of their own. */
static int group_by_level(cl_device_id d, sched_level level, int *group) {
  unsigned n = d->compute_units;
  int *ids = malloc(sizeof *ids * n); /* domain id of each group */
  if (!ids)
    return -1;
  int groups = 0;
  bool any = false;
  for (unsigned i = 0; i < n; i++) {
    int id = sched_unit_domain(device_unit(d, i), level);
    any |= id >= 0;
    int g = 0;
    while (g < groups && ids[g] != id)
      g++;
    if (g == groups)
      ids[groups++] = id;
    group[i] = g;
  }
  free(ids);
  return any ? groups : 0;
}

cl_device_affinity_domain rt_device_affinity_domains(cl_device_id d) {
  cl_device_affinity_domain found = 0;
  int *group = malloc(sizeof *group * d->compute_units);
  if (!group)
    return 0; /* defensive: reports no domain rather than failing */
  for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
    if (group_by_level(d, levels[i].level, group) >= 2)
      found |= levels[i].domain;
  free(group);
  return found ? found | CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE : 0;
}

/* Works out the sub-device of each of in's units: group[i] (-1: unused),
 * the number of sub-devices in *count and, for an affinity partition,
 * the level used in *used. */
static cl_int plan(cl_device_id in, const rt_partition *p, int *group,
                   cl_uint *count, cl_device_affinity_domain *used) {
  unsigned n = in->compute_units;
  *used = 0;
  /* CL_DEVICE_PARTITION_FAILED if the partition name is supported by the
   * implementation but in_device could not be further partitioned (an
   * affinity level finds that below, after the machine's own levels). */
  if (n < 2 && p->scheme != CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN)
    return CL_DEVICE_PARTITION_FAILED;
  if (p->scheme == CL_DEVICE_PARTITION_EQUALLY) {
    /* "If n does not divide evenly into CL_DEVICE_MAX_COMPUTE_UNITS,
     * then the remaining compute units are not used." */
    *count = n / p->equally;
    /* One sub-device of every unit is no partition: the CTS (api
     * negative_create_sub_devices) expects CL_DEVICE_PARTITION_FAILED for
     * n = CL_DEVICE_MAX_COMPUTE_UNITS. */
    if (*count < 2)
      return CL_DEVICE_PARTITION_FAILED;
    for (unsigned i = 0; i < n; i++)
      group[i] = i / p->equally < *count ? (int)(i / p->equally) : -1;
    return CL_SUCCESS;
  }
  if (p->scheme == CL_DEVICE_PARTITION_BY_COUNTS) {
    unsigned i = 0;
    for (unsigned c = 0; c < p->num_counts; c++)
      for (cl_device_partition_property k = 0; k < p->counts[c]; k++)
        group[i++] = (int)c;
    for (; i < n; i++)
      group[i] = -1;
    *count = p->num_counts;
    return CL_SUCCESS;
  }
  bool next = p->domain == CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE;
  bool level_exists = false;
  for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
    if (!next && levels[l].domain != p->domain)
      continue;
    int groups = group_by_level(in, levels[l].level, group);
    if (groups < 0)
      return CL_OUT_OF_HOST_MEMORY;
    level_exists |= groups > 0;
    if (groups >= 2) {
      *count = (cl_uint)groups;
      *used = levels[l].domain;
      return CL_SUCCESS;
    }
  }
  /* CL_INVALID_VALUE if values specified in properties are valid but not
   * supported by in_device: the machine has no cache or node of that
   * level. One that holds every unit of in_device cannot split it:
   * CL_DEVICE_PARTITION_FAILED, as for NEXT_PARTITIONABLE when no level
   * splits it. */
  return level_exists || next ? CL_DEVICE_PARTITION_FAILED
                              : CL_INVALID_VALUE;
}

cl_int rt_partition_count(cl_device_id in, const rt_partition *p,
                          cl_uint *count) {
  int *group = malloc(sizeof *group * in->compute_units);
  if (!group)
    return CL_OUT_OF_HOST_MEMORY;
  cl_device_affinity_domain used;
  cl_int err = plan(in, p, group, count, &used);
  free(group);
  return err;
}

/* CL_DEVICE_PARTITION_TYPE of the sub-devices: the properties as given,
 * or for NEXT_PARTITIONABLE the level it chose. */
static cl_device_partition_property *partition_type(const rt_partition *p,
                                                    cl_device_affinity_domain
                                                        used,
                                                    size_t *len) {
  *len = p->scheme == CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN ? 3
                                                             : p->num_props;
  cl_device_partition_property *t = malloc(sizeof *t * *len);
  if (!t)
    return NULL;
  if (p->scheme == CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN) {
    t[0] = CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN;
    t[1] = (cl_device_partition_property)used;
    t[2] = 0;
  } else {
    memcpy(t, p->props, sizeof *t * *len);
  }
  return t;
}

/* Makes one sub-device of in from the units i with group[i] == g. */
static cl_device_id sub_device_new(cl_device_id in, const int *group, int g,
                                   const rt_partition *p,
                                   cl_device_affinity_domain used) {
  cl_device_id s = malloc(sizeof *s);
  if (!s)
    return NULL;
  /* Everything but the units answers as for the parent: one ISA, one
   * memory ("the same information ... except" the partition queries). */
  *s = *in;
  rt_object_init(&s->obj, RT_DEVICE);
  s->units = malloc(sizeof *s->units * in->compute_units);
  s->compute_units = 0;
  for (unsigned i = 0; s->units && i < in->compute_units; i++)
    if (group[i] == g)
      s->units[s->compute_units++] = device_unit(in, i);
  s->subset = s->units ? sched_subset_create(s->units, s->compute_units)
                       : NULL;
  s->partition = partition_type(p, used, &s->partition_len);
  if (!s->units || !s->subset || !s->partition) {
    free(s->units);
    sched_subset_free(s->subset);
    free(s->partition);
    free(s);
    return NULL;
  }
  s->parent = in;
  rt_device_retain(in);
  return s;
}

cl_int rt_partition_create(cl_device_id in, const rt_partition *p,
                           cl_device_id *out) {
  int *group = malloc(sizeof *group * in->compute_units);
  if (!group)
    return CL_OUT_OF_HOST_MEMORY;
  cl_uint count;
  cl_device_affinity_domain used;
  cl_int err = plan(in, p, group, &count, &used);
  for (cl_uint g = 0; err == CL_SUCCESS && g < count; g++) {
    out[g] = sub_device_new(in, group, (int)g, p, used);
    if (!out[g]) {
      while (g--)
        rt_device_release(out[g]);
      err = CL_OUT_OF_HOST_MEMORY;
    }
  }
  free(group);
  return err;
}
