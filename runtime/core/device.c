/* This file contains Skein's CPU device singleton: what the operating
 * system and the CPU say about memory, cores, caches, SIMD width, clock,
 * name and vendor, gathered once on first use. */
#include "platform.h"
#include "../../scheduler/scheduler.h"
#include <cpuid.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct _cl_device_id rt_the_device;

/* The OpenCL C features every program is compiled with; image support
 * adds RT_IMAGE_FEATURES. */
#define RT_FEATURES                                                        \
  "__opencl_c_fp64 __opencl_c_int64 __opencl_c_fp16 "                      \
  "__opencl_c_work_group_collective_functions __opencl_c_subgroups "       \
  "__opencl_c_atomic_order_acq_rel __opencl_c_atomic_order_seq_cst "       \
  "__opencl_c_atomic_scope_device __opencl_c_atomic_scope_all_devices "    \
  "__opencl_c_generic_address_space "                                      \
  "__opencl_c_program_scope_global_variables __opencl_c_pipes "             \
  "__opencl_c_integer_dot_product_input_4x8bit "                           \
  "__opencl_c_integer_dot_product_input_4x8bit_packed "                    \
  "__opencl_c_kernel_clock_scope_device "                                  \
  "__opencl_c_kernel_clock_scope_work_group "                              \
  "__opencl_c_kernel_clock_scope_sub_group "                              \
  RT_FLOAT_ATOMIC_FEATURES
/* cl_ext_float_atomics (builtins/float_atomics.cl): add/sub and min/max
 * on half, float and double, and half load/store/exchange, in global and
 * local memory. */
#define RT_FLOAT_ATOMIC_FEATURES                                           \
  "__opencl_c_ext_fp16_global_atomic_load_store "                          \
  "__opencl_c_ext_fp16_local_atomic_load_store "                           \
  "__opencl_c_ext_fp16_global_atomic_add "                                 \
  "__opencl_c_ext_fp32_global_atomic_add "                                 \
  "__opencl_c_ext_fp64_global_atomic_add "                                 \
  "__opencl_c_ext_fp16_local_atomic_add "                                  \
  "__opencl_c_ext_fp32_local_atomic_add "                                  \
  "__opencl_c_ext_fp64_local_atomic_add "                                  \
  "__opencl_c_ext_fp16_global_atomic_min_max "                             \
  "__opencl_c_ext_fp32_global_atomic_min_max "                             \
  "__opencl_c_ext_fp64_global_atomic_min_max "                             \
  "__opencl_c_ext_fp16_local_atomic_min_max "                              \
  "__opencl_c_ext_fp32_local_atomic_min_max "                              \
  "__opencl_c_ext_fp64_local_atomic_min_max"
/* Device-side enqueue (runtime/core/device_queue.c). */
#define RT_ENQUEUE_FEATURES "__opencl_c_device_enqueue"
#define RT_IMAGE_FEATURES                                                  \
  "__opencl_c_images __opencl_c_read_write_images "                        \
  "__opencl_c_3d_image_writes"

/* The device extensions; RT_IMAGE_EXTENSIONS join them when image support
 * is on. cl_khr_subgroups promises that the sub-groups of a work-group
 * make independent forward progress: loops that wait for another
 * work-item yield to the other sub-groups (compiler/forward_progress.c). */
#define RT_EXTENSIONS                                                      \
  "cl_khr_byte_addressable_store cl_khr_fp64 cl_khr_fp16 "                 \
  "cl_khr_global_int32_base_atomics "                                      \
  "cl_khr_global_int32_extended_atomics "                                  \
  "cl_khr_local_int32_base_atomics "                                       \
  "cl_khr_local_int32_extended_atomics "                                   \
  "cl_khr_int64_base_atomics cl_khr_int64_extended_atomics "               \
  "cl_khr_extended_bit_ops cl_khr_work_group_uniform_arithmetic "          \
  "cl_khr_subgroups "                                                     \
  "cl_khr_subgroup_extended_types cl_khr_subgroup_non_uniform_vote "       \
  "cl_khr_subgroup_ballot cl_khr_subgroup_non_uniform_arithmetic "         \
  "cl_khr_subgroup_shuffle cl_khr_subgroup_shuffle_relative "              \
  "cl_khr_subgroup_clustered_reduce cl_khr_subgroup_rotate "              \
  "cl_intel_required_subgroup_size cl_intel_subgroups "                   \
  "cl_intel_subgroups_char cl_intel_subgroups_short "                      \
  "cl_intel_subgroups_long cl_khr_device_uuid "                           \
  "cl_khr_suggested_local_work_size cl_khr_expect_assume "               \
  "cl_khr_create_command_queue cl_khr_priority_hints "                     \
  "cl_khr_throttle_hints "                                                 \
  "cl_intel_unified_shared_memory cl_ext_buffer_device_address "          \
  "cl_khr_integer_dot_product cl_khr_kernel_clock cl_ext_float_atomics "  \
  "cl_khr_command_buffer cl_khr_command_buffer_mutable_dispatch "          \
  "cl_khr_command_buffer_multi_device"
#define RT_IMAGE_EXTENSIONS                                                \
  "cl_khr_image2d_from_buffer cl_khr_3d_image_writes cl_khr_depth_images "  \
  "cl_khr_srgb_image_writes"
/* Listed while SPIR-V programs can be built (rt_device_init): llvm-spirv
 * 15 translates NoSignedWrap/NoUnsignedWrap and LinkOnceODR linkage;
 * cl_khr_spirv_queries lists what compiler/spirv_module.c accepts;
 * cl_khr_subgroup_named_barrier is SPIR-V's only (compiler/spirv_lower.c,
 * builtins/named_barrier.c). */
#define RT_IL_EXTENSIONS                                                   \
  "cl_khr_il_program cl_khr_spirv_no_integer_wrap_decoration "             \
  "cl_khr_spirv_linkonce_odr cl_khr_spirv_queries "                       \
  "cl_intel_spirv_subgroups cl_khr_subgroup_named_barrier"

static pthread_once_t rt_device_once = PTHREAD_ONCE_INIT;

/* Copies the value of the first "key : value" line of /proc/cpuinfo whose
 * key starts with key into out; returns false if there is none. */
static bool rt_cpuinfo(const char *key, char *out, size_t size) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return false;
  char line[512];
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, key, strlen(key)) != 0 || !colon)
      continue;
    char *v = colon + 1;
    v += strspn(v, " \t");
    v[strcspn(v, "\n")] = 0;
    snprintf(out, size, "%s", v);
    found = true;
  }
  fclose(f);
  return found;
}

/* The CPUID vendor string and its PCI vendor id (0 if unknown). */
static void rt_detect_vendor(cl_device_id d) {
  unsigned a, b, c, dx;
  snprintf(d->vendor, sizeof d->vendor, "unknown");
  if (__get_cpuid(0, &a, &b, &c, &dx)) {
    memcpy(d->vendor, &b, 4);
    memcpy(d->vendor + 4, &dx, 4);
    memcpy(d->vendor + 8, &c, 4);
    d->vendor[12] = 0;
  }
  if (strcmp(d->vendor, "GenuineIntel") == 0)
    d->vendor_id = 0x8086;
  else if (strcmp(d->vendor, "AuthenticAMD") == 0)
    d->vendor_id = 0x1022;
}

/* Maximum clock in MHz: cpufreq's maximum if the kernel exposes it,
 * else the current "cpu MHz" of /proc/cpuinfo (VMs), else 0. */
static cl_uint rt_detect_clock(void) {
  FILE *f =
      fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
  unsigned long khz = 0;
  if (f) {
    int n = fscanf(f, "%lu", &khz);
    fclose(f);
    if (n == 1 && khz)
      return (cl_uint)(khz / 1000);
  }
  char mhz[64];
  if (rt_cpuinfo("cpu MHz", mhz, sizeof mhz))
    return (cl_uint)(strtod(mhz, NULL) + 0.5);
  return 0;
}

/* Memory sizes from the OS. hwloc is not used: on some machines its NUMA
 * node reports less than the RAM the process can use. */
static void rt_detect_memory(cl_device_id d) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  d->global_mem_size = pages > 0 && page > 0
                           ? (cl_ulong)pages * (cl_ulong)page
                           : (cl_ulong)1 << 30; /* defensive: 1 GiB */
  /* Half the RAM for one allocation, but at least the spec's minimum of
   * max(min(1 GiB, global / 4), 32 MiB) and 128 MiB, never above global. */
  cl_ulong alloc = d->global_mem_size / 2, floor = (cl_ulong)128 << 20;
  if (alloc < floor)
    alloc = floor < d->global_mem_size ? floor : d->global_mem_size;
  d->max_mem_alloc_size = alloc;
  d->local_mem_size = 64 * 1024;
  long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
  d->cacheline_size = line > 0 ? (cl_uint)line : 64;
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  d->cache_size = l3 > 0 ? (cl_ulong)l3 : l2 > 0 ? (cl_ulong)l2 : 0;
}

/* The vector registers kernels are compiled for, in bytes: the target
 * model's width (compiler/target.c: the host's widest, or SKEIN_CPU's),
 * whose 32-bit lanes are the sub-group size. The preferred and native
 * vector widths follow it. */
static unsigned rt_detect_simd(void) {
  return cc_sub_group_size() * 4;
}

static void rt_device_init(void) {
  cl_device_id d = &rt_the_device;
  rt_object_init(&d->obj, RT_DEVICE);
  d->platform = rt_platform();
  d->compute_units = sched_num_workers();
  rt_detect_memory(d);
  d->max_work_group_size = 1024;
  d->simd_bytes = rt_detect_simd();
  d->has_fp16 = true;   /* cl_khr_fp16: builtins/math_half.cl etc. */
  /* Images and samplers are on; SKEIN_IMAGES=0 turns them off (a device
   * without image support, as the tests of those errors need). */
  const char *images = getenv("SKEIN_IMAGES");
  d->images = !(images && strcmp(images, "0") == 0);
  rt_detect_vendor(d);
  d->max_clock_mhz = rt_detect_clock();
  if (!rt_cpuinfo("model name", d->name, sizeof d->name))
    snprintf(d->name, sizeof d->name, "CPU");
  /* SPIR-V programs need the translator and validator of the set-up
   * (compiler/spirv_translate.c); without them no IL is reported. */
  d->il = cc_il_available();
  static char extensions[4096];
  snprintf(extensions, sizeof extensions, "%s%s%s", RT_EXTENSIONS,
           d->images ? " " RT_IMAGE_EXTENSIONS : "",
           d->il ? " " RT_IL_EXTENSIONS : "");
  d->caps.extensions = extensions;
  /* Image types, sampler_t and the image builtins (builtins/image.cl)
   * only exist for programs while image support is on. */
  d->caps.features = d->images ? RT_FEATURES " " RT_ENQUEUE_FEATURES
                                   " " RT_IMAGE_FEATURES
                               : RT_FEATURES " " RT_ENQUEUE_FEATURES;
  /* OpenCL C 3.1 (-cl-std=CL3.1, compiler/options.c) only on a 3.1
   * device: the compiler refuses it below 310. */
  d->caps.max_cl_c_version = rt_opencl_3_1() ? 310 : 300;
}

bool rt_opencl_3_1(void) {
  /* Everything OpenCL 3.1 requires is there (docs/opencl-3.1.md) except
   * where the set-up lacks the SPIR-V tools: 3.1 needs the SPIR-V 1.0-1.4
   * ILs, and without llvm-spirv and spirv-val no IL is reported at all,
   * so such a device stays 3.0. SKEIN_OPENCL_3_1=0 reports 3.0 anyway
   * (to compare the two), =1 reports 3.1 even without the tools. Any
   * thread may read the variable first: all get the same answer. */
  static _Atomic int state = -1;
  int s = atomic_load_explicit(&state, memory_order_relaxed);
  if (s < 0) {
    const char *v = getenv("SKEIN_OPENCL_3_1");
    if (v && strcmp(v, "1") == 0)
      s = 1;
    else if (v && strcmp(v, "0") == 0)
      s = 0;
    else
      s = cc_il_available();
    atomic_store_explicit(&state, s, memory_order_relaxed);
  }
  return s;
}

/* Returns the CPU device, gathering its properties on first use (which
 * also starts the scheduler's worker pool). Thread-safe; the device lives
 * as long as the library and is never freed. */
cl_device_id rt_device(void) {
  pthread_once(&rt_device_once, rt_device_init);
  return &rt_the_device;
}
