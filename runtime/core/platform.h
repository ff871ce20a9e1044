/* This file declares Skein's one platform and one CPU device: singletons
 * created on first use, never freed while the library is loaded. */
#ifndef SKEIN_RUNTIME_PLATFORM_H
#define SKEIN_RUNTIME_PLATFORM_H

#include "object.h"
#include "../../compiler/compiler.h"

struct _cl_platform_id {
  rt_object obj;
};

struct _cl_device_id {
  rt_object obj;
  cl_platform_id platform;
  unsigned compute_units;       /* worker threads */
  cl_ulong global_mem_size;     /* from the operating system */
  cl_ulong max_mem_alloc_size;
  cl_ulong local_mem_size;
  size_t max_work_group_size;
  unsigned simd_bytes;          /* widest vector register: 16, 32 or 64 */
  bool has_fp16;
  bool images;                  /* SKEIN_IMAGES=1: image support on */
  bool il;                      /* SPIR-V programs: the tools are there */
  cc_device_caps caps;          /* what kernels compile against */
  char name[128];               /* CPU model name from /proc/cpuinfo */
  char vendor[16];              /* CPUID vendor string */
  cl_uint vendor_id;            /* PCI vendor id of the CPU maker, or 0 */
  cl_uint max_clock_mhz;        /* 0 if the OS does not say */
  cl_uint cacheline_size;       /* bytes of a data cache line */
  cl_ulong cache_size;          /* bytes of the last-level data cache */
  /* Sub-devices (runtime/core/sub_device.c); zero on the root device. */
  cl_device_id parent;          /* retained; NULL: the root device */
  unsigned *units;              /* its compute_units scheduler units,
                                   ascending (NULL: 0..compute_units-1) */
  struct sched_subset *subset;  /* the same set, for sched_job.subset */
  cl_device_partition_property *partition; /* CL_DEVICE_PARTITION_TYPE */
  size_t partition_len;         /* entries of partition, with its 0 */
};

/* The platform and device singletons (initialised on first call). */
cl_platform_id rt_platform(void);
cl_device_id rt_device(void);

/* True if the platform and device report OpenCL 3.1 (docs/opencl-3.1.md
 * lists what 3.1 requires and where each is met): the one switch every
 * difference between 3.0 and 3.1 asks. True where the SPIR-V tools are
 * installed (3.1 needs the SPIR-V ILs); SKEIN_OPENCL_3_1=0 or =1 forces
 * 3.0 or 3.1. Read once. */
bool rt_opencl_3_1(void);

/* The platform's extensions as a space-separated string. */
const char *rt_platform_extensions(void);

/* CL_DEVICE_HOST_UNIFIED_MEMORY etc. need nothing more; base alignment of
 * every buffer, in bytes (CL_DEVICE_MEM_BASE_ADDR_ALIGN is in bits). */
#define RT_MEM_ALIGN 128

/* Bytes past the end of every buffer Skein allocates that read as zero
 * (and on to the next RT_MEM_ALIGN boundary): a kernel that overruns a
 * buffer by a little sees the same bytes on every run (api_mem.c). */
#define RT_MEM_ZERO_TAIL 64

/* The driver's version string (CL_DRIVER_VERSION). */
#define RT_DRIVER_VERSION "0.1"

/* Nanoseconds of CLOCK_MONOTONIC: device and host timer, profiling. */
cl_ulong rt_now_ns(void);

#endif
