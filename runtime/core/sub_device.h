/* This file declares sub-devices (clCreateSubDevices): devices that run
 * their work-groups on a subset of the root device's compute units,
 * chosen equally, by counts or by an affinity domain of the hwloc tree.
 * A sub-device is a struct _cl_device_id like the root one, with parent,
 * units, subset and partition set (platform.h). */
#ifndef SKEIN_RUNTIME_SUB_DEVICE_H
#define SKEIN_RUNTIME_SUB_DEVICE_H

#include "platform.h"

/* Adds or drops a reference to a sub-device (a root device has none to
 * count: no-ops). The last release frees the sub-device and drops its
 * reference to its parent. */
void rt_device_retain(cl_device_id d);
void rt_device_release(cl_device_id d);

/* The scheduler's set of d's compute units for sched_job.subset; NULL
 * for the root device (every unit). */
static inline const struct sched_subset *rt_device_subset(cl_device_id d) {
  return d->subset;
}

/* CL_DEVICE_PARTITION_AFFINITY_DOMAIN: the levels that split d into two
 * or more sub-devices, and NEXT_PARTITIONABLE if there is one. */
cl_device_affinity_domain rt_device_affinity_domains(cl_device_id d);

/* A partition request, checked for form by clCreateSubDevices. */
typedef struct rt_partition {
  cl_device_partition_property scheme;  /* CL_DEVICE_PARTITION_* */
  unsigned equally;                     /* EQUALLY: units per sub-device */
  const cl_device_partition_property *counts; /* BY_COUNTS: the counts */
  unsigned num_counts;                  /* BY_COUNTS: entries, all > 0 */
  cl_device_affinity_domain domain;     /* BY_AFFINITY_DOMAIN: one bit */
  const cl_device_partition_property *props; /* the whole list */
  size_t num_props;                     /* entries including the 0 */
} rt_partition;

/* Works out how in splits under p: *count sub-devices. Returns
 * CL_SUCCESS, CL_INVALID_VALUE for an affinity level the machine does
 * not have, or CL_DEVICE_PARTITION_FAILED when in cannot be split
 * (one compute unit, or every unit in one object of the level). */
cl_int rt_partition_count(cl_device_id in, const rt_partition *p,
                          cl_uint *count);

/* Creates the *count sub-devices of p into out (room for *count),
 * each with one reference owned by the caller. CL_SUCCESS or
 * CL_OUT_OF_HOST_MEMORY (nothing created). */
cl_int rt_partition_create(cl_device_id in, const rt_partition *p,
                           cl_device_id *out);

#endif
