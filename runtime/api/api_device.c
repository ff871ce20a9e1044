/* This file contains the device entry points: clGetDeviceIDs,
 * clGetDeviceInfo with every OpenCL 3.0 query, device retain/release and
 * clCreateSubDevices (the partition itself: runtime/core/sub_device.c). */
#include "../core/command_buffer.h"
#include "../core/device_uuid.h"
#include "../core/image.h"
#include "../core/info.h"
#include "../core/device_queue.h"
#include "../core/pipe.h"
#include "../core/platform.h"
#include "../core/printf.h"
#include "../core/usm.h"
#include "../core/sub_device.h"
#include <cpuid.h>
#include <string.h>

/* clCompileProgram and clLinkProgram compile and link separately
 * (compiler/link.c): the device has a linker, as FULL_PROFILE requires
 * once a compiler is available. */
#define RT_HAVE_LINKER 1

/* cl_khr_spirv_queries (OpenCL-Headers newer than Debian's 2023.02.06
 * define them with these values). */
#define RT_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR 0x12B9
#define RT_DEVICE_SPIRV_EXTENSIONS_KHR 0x12BA
#define RT_DEVICE_SPIRV_CAPABILITIES_KHR 0x12BB
/* cl_khr_kernel_clock (likewise). */
#define RT_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR 0x1076
#define RT_KERNEL_CLOCK_SCOPE_DEVICE_KHR (1u << 0)
#define RT_KERNEL_CLOCK_SCOPE_WORK_GROUP_KHR (1u << 1)
#define RT_KERNEL_CLOCK_SCOPE_SUB_GROUP_KHR (1u << 2)
/* cl_ext_float_atomics (Debian's headers lack it). */
#define RT_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT 0x4231
#define RT_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT 0x4232
#define RT_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT 0x4233
#define RT_FP_ATOMIC_ALL_EXT                                               \
  ((cl_bitfield)((1u << 0) | (1u << 1) | (1u << 2) | (1u << 16) |          \
                 (1u << 17) | (1u << 18)))

/* Whether the CPU's time-stamp counter is invariant (CPUID
 * 0x80000007 EDX bit 8): one constant rate in every power state, and
 * synchronised across the cores of the package. */
static bool rt_invariant_tsc(void) {
  unsigned a, b, c, d;
  return __get_cpuid(0x80000007u, &a, &b, &c, &d) && (d >> 8) & 1u;
}

/* Returned by the query groups below for a param_name they do not know;
 * positive, so it is never mistaken for a CL error code. */
#define RT_INFO_UNKNOWN 1

/* The parameters every query group takes (those RT_INFO_* read). */
#define RT_INFO_PARAMS                                                     \
  cl_device_id dev, cl_device_info param_name, size_t param_value_size,   \
      void *param_value, size_t *param_value_size_ret
#define RT_INFO_ARGS                                                       \
  dev, param_name, param_value_size, param_value, param_value_size_ret

static const cl_device_type rt_valid_types =
    CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
    CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;

cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id platform,
                                  cl_device_type device_type,
                                  cl_uint num_entries, cl_device_id *devices,
                                  cl_uint *num_devices) {
  /* CL_INVALID_PLATFORM if platform is not a valid platform. */
  RT_RETURN_IF(!rt_is(platform, RT_PLATFORM), CL_INVALID_PLATFORM);
  /* CL_INVALID_DEVICE_TYPE if device_type is not a valid value. */
  RT_RETURN_IF(device_type != CL_DEVICE_TYPE_ALL &&
                   (device_type == 0 || (device_type & ~rt_valid_types)),
               CL_INVALID_DEVICE_TYPE);
  /* CL_INVALID_VALUE if num_entries is equal to zero and devices is not
   * NULL or if both num_devices and devices are NULL. */
  RT_RETURN_IF(num_entries == 0 && devices, CL_INVALID_VALUE);
  RT_RETURN_IF(!num_devices && !devices, CL_INVALID_VALUE);
  /* CL_DEVICE_NOT_FOUND if no OpenCL devices that matched device_type
   * were found. The one device is a CPU and the default device. */
  RT_RETURN_IF(!(device_type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT)),
               CL_DEVICE_NOT_FOUND);
  if (devices)
    devices[0] = rt_device();
  if (num_devices)
    *num_devices = 1;
  return CL_SUCCESS;
}

/* Identity, versions, extensions and features. */
static cl_int rt_device_info_identity(RT_INFO_PARAMS) {
  static const cl_name_version extensions[] = {
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_byte_addressable_store"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_fp64"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_fp16"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_global_int32_base_atomics"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_global_int32_extended_atomics"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_local_int32_base_atomics"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_local_int32_extended_atomics"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_int64_base_atomics"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_int64_extended_atomics"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_extended_bit_ops"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_work_group_uniform_arithmetic"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_subgroups"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_subgroup_extended_types"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_subgroup_non_uniform_vote"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_subgroup_ballot"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_subgroup_non_uniform_arithmetic"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_subgroup_shuffle"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_subgroup_shuffle_relative"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_subgroup_clustered_reduce"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_subgroup_rotate"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_intel_required_subgroup_size"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_intel_subgroups"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_intel_subgroups_char"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_intel_subgroups_short"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_intel_subgroups_long"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_device_uuid"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_suggested_local_work_size"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_expect_assume"},
      {CL_MAKE_VERSION(2, 0, 0), "cl_khr_integer_dot_product"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_kernel_clock"},
      {CL_MAKE_VERSION(1, 2, 0), "cl_intel_unified_shared_memory"},
      {CL_MAKE_VERSION(1, 0, 2), "cl_ext_buffer_device_address"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_ext_float_atomics"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_create_command_queue"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_priority_hints"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_throttle_hints"},
      /* The revisions the Khronos CTS tests (command_buffer_khr.h). */
      {CL_MAKE_VERSION(0, 9, 8), "cl_khr_command_buffer"},
      {CL_MAKE_VERSION(0, 9, 5), "cl_khr_command_buffer_mutable_dispatch"},
      {CL_MAKE_VERSION(0, 9, 2), "cl_khr_command_buffer_multi_device"},
      /* Listed only while image support is on (rt_images_enabled). */
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_image2d_from_buffer"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_3d_image_writes"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_depth_images"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_srgb_image_writes"},
      /* Last: listed only while SPIR-V programs can be built (dev->il). */
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_il_program"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_spirv_no_integer_wrap_decoration"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_spirv_linkonce_odr"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_spirv_queries"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_intel_spirv_subgroups"},
      {CL_MAKE_VERSION(1, 0, 0), "cl_khr_subgroup_named_barrier"},
  };
  enum { NUM_IMAGE_EXTENSIONS = 4, NUM_IL_EXTENSIONS = 6 };
  cl_name_version listed[sizeof extensions / sizeof extensions[0]];
  const size_t num_base = sizeof extensions / sizeof extensions[0] -
                          NUM_IMAGE_EXTENSIONS - NUM_IL_EXTENSIONS;
  size_t num_extensions = num_base;
  memcpy(listed, extensions, num_base * sizeof(listed[0]));
  if (dev->images) {
    memcpy(listed + num_extensions, extensions + num_base,
           NUM_IMAGE_EXTENSIONS * sizeof(listed[0]));
    num_extensions += NUM_IMAGE_EXTENSIONS;
  }
  if (dev->il) {
    memcpy(listed + num_extensions,
           extensions + num_base + NUM_IMAGE_EXTENSIONS,
           NUM_IL_EXTENSIONS * sizeof(listed[0]));
    num_extensions += NUM_IL_EXTENSIONS;
  }
  /* The SPIR-V versions Skein builds: llvm-spirv 15 reads 1.0-1.4, and
   * the 1.4 instructions it cannot translate (OpPtrDiff, OpPtrEqual,
   * OpCopyLogical, OpDecorateString, two memory operands) are rewritten
   * first (compiler/spirv_lower.c; tests/test-spirv-14.c). */
  static const cl_name_version ils[] = {
      {CL_MAKE_VERSION(1, 0, 0), "SPIR-V"},
      {CL_MAKE_VERSION(1, 1, 0), "SPIR-V"},
      {CL_MAKE_VERSION(1, 2, 0), "SPIR-V"},
      {CL_MAKE_VERSION(1, 3, 0), "SPIR-V"},
      {CL_MAKE_VERSION(1, 4, 0), "SPIR-V"},
  };
  static const cl_name_version c_versions[] = {
      {CL_MAKE_VERSION(1, 0, 0), "OpenCL C"},
      {CL_MAKE_VERSION(1, 1, 0), "OpenCL C"},
      {CL_MAKE_VERSION(1, 2, 0), "OpenCL C"},
      /* 2.0: its mandatory features (SVM, pipes, device-side enqueue,
       * the generic address space, ...) are all there. */
      {CL_MAKE_VERSION(2, 0, 0), "OpenCL C"},
      {CL_MAKE_VERSION(3, 0, 0), "OpenCL C"},
      /* Last: listed only while the device reports OpenCL 3.1, whose C
       * language compiler/options.c builds. */
      {CL_MAKE_VERSION(3, 1, 0), "OpenCL C"},
  };
  size_t num_c_versions = sizeof c_versions / sizeof c_versions[0] -
                          (dev->caps.max_cl_c_version < 310);
  static const cl_name_version c_features[] = {
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_fp64"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_fp16"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_int64"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_work_group_collective_functions"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_subgroups"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_atomic_order_acq_rel"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_atomic_order_seq_cst"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_atomic_scope_device"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_atomic_scope_all_devices"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_generic_address_space"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_program_scope_global_variables"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_device_enqueue"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_pipes"},
      {CL_MAKE_VERSION(3, 0, 0),
       "__opencl_c_integer_dot_product_input_4x8bit"},
      {CL_MAKE_VERSION(3, 0, 0),
       "__opencl_c_integer_dot_product_input_4x8bit_packed"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_kernel_clock_scope_device"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_kernel_clock_scope_work_group"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_kernel_clock_scope_sub_group"},
      /* cl_ext_float_atomics 1.0.0's features. */
      {CL_MAKE_VERSION(1, 0, 0), "__opencl_c_ext_fp16_global_atomic_load_store"},
      {CL_MAKE_VERSION(1, 0, 0), "__opencl_c_ext_fp16_local_atomic_load_store"},
      {CL_MAKE_VERSION(1, 0, 0), "__opencl_c_ext_fp16_global_atomic_add"},
      {CL_MAKE_VERSION(1, 0, 0), "__opencl_c_ext_fp32_global_atomic_add"},
      {CL_MAKE_VERSION(1, 0, 0), "__opencl_c_ext_fp64_global_atomic_add"},
      {CL_MAKE_VERSION(1, 0, 0), "__opencl_c_ext_fp16_local_atomic_add"},
      {CL_MAKE_VERSION(1, 0, 0), "__opencl_c_ext_fp32_local_atomic_add"},
      {CL_MAKE_VERSION(1, 0, 0), "__opencl_c_ext_fp64_local_atomic_add"},
      {CL_MAKE_VERSION(1, 0, 0), "__opencl_c_ext_fp16_global_atomic_min_max"},
      {CL_MAKE_VERSION(1, 0, 0), "__opencl_c_ext_fp32_global_atomic_min_max"},
      {CL_MAKE_VERSION(1, 0, 0), "__opencl_c_ext_fp64_global_atomic_min_max"},
      {CL_MAKE_VERSION(1, 0, 0), "__opencl_c_ext_fp16_local_atomic_min_max"},
      {CL_MAKE_VERSION(1, 0, 0), "__opencl_c_ext_fp32_local_atomic_min_max"},
      {CL_MAKE_VERSION(1, 0, 0), "__opencl_c_ext_fp64_local_atomic_min_max"},
      /* Last: listed only while image support is on. */
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_images"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_read_write_images"},
      {CL_MAKE_VERSION(3, 0, 0), "__opencl_c_3d_image_writes"},
  };
  const size_t num_c_features =
      sizeof c_features / sizeof c_features[0] - (dev->images ? 0 : 3);
  switch (param_name) {
  case CL_DEVICE_TYPE:
    RT_INFO_VALUE(cl_device_type, CL_DEVICE_TYPE_CPU);
  case CL_DEVICE_VENDOR_ID:
    RT_INFO_VALUE(cl_uint, dev->vendor_id);
  case CL_DEVICE_NAME:
    RT_INFO_STRING(dev->name);
  case CL_DEVICE_VENDOR:
    RT_INFO_STRING(dev->vendor);
  case CL_DRIVER_VERSION:
    RT_INFO_STRING(RT_DRIVER_VERSION);
  case CL_DEVICE_PROFILE:
    RT_INFO_STRING("FULL_PROFILE");
  /* 3.0 until every 3.1 requirement is met (docs/opencl-3.1.md). */
  case CL_DEVICE_VERSION:
    RT_INFO_STRING(rt_opencl_3_1() ? "OpenCL 3.1 Skein" : "OpenCL 3.0 Skein");
  case CL_DEVICE_NUMERIC_VERSION:
    RT_INFO_VALUE(cl_version, rt_opencl_3_1() ? CL_MAKE_VERSION(3, 1, 0)
                                              : CL_MAKE_VERSION(3, 0, 0));
  /* The highest version all of whose optional features the device has
   * (API spec, CL_DEVICE_OPENCL_C_VERSION): OpenCL C 2.0's are SVM,
   * pipes, device-side enqueue, the generic address space, program-scope
   * globals, the collectives and the acq_rel/seq_cst orders with device
   * and all-devices scopes, all listed above (images are optional in 2.0
   * too, so SKEIN_IMAGES=0 changes nothing). 3.0 would be allowed only
   * while every optional 3.0 feature is on, which SKEIN_IMAGES=0 breaks.
   * Without -cl-std programs still compile as OpenCL C 1.2, as the spec
   * asks (compiler/options.c). */
  case CL_DEVICE_OPENCL_C_VERSION:
    /* "OpenCL C<space><major.minor><space><vendor-specific information>" */
    RT_INFO_STRING("OpenCL C 2.0 Skein");
  case CL_DEVICE_OPENCL_C_ALL_VERSIONS:
    RT_INFO_ARRAY(c_versions, num_c_versions);
  case CL_DEVICE_OPENCL_C_FEATURES:
    RT_INFO_ARRAY(c_features, num_c_features);
  case CL_DEVICE_EXTENSIONS:
    RT_INFO_STRING(dev->caps.extensions);
  case CL_DEVICE_EXTENSIONS_WITH_VERSION:
    RT_INFO_ARRAY(listed, num_extensions);
  /* "SPIR-V_<major>.<minor>" for each version, space-separated. */
  case CL_DEVICE_IL_VERSION:
    RT_INFO_STRING(dev->il ? "SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2 SPIR-V_1.3 "
                             "SPIR-V_1.4"
                           : "");
  case CL_DEVICE_ILS_WITH_VERSION:
    if (dev->il)
      RT_INFO_ARRAY(ils, sizeof ils / sizeof ils[0]);
    return rt_info(param_value_size, param_value, param_value_size_ret,
                   NULL, 0);
  /* cl_khr_spirv_queries: what a module may declare
   * (compiler/spirv_module.c); empty lists without IL. */
  case RT_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR:
  case RT_DEVICE_SPIRV_EXTENSIONS_KHR: {
    const char *names[64];
    unsigned n = 0;
    if (dev->il)
      n = param_name == RT_DEVICE_SPIRV_EXTENSIONS_KHR
              ? cc_il_extensions(&dev->caps, names, 64)
              : cc_il_instruction_sets(&dev->caps, names, 64);
    RT_INFO_ARRAY(names, n < 64 ? n : 64);
  }
  case RT_DEVICE_SPIRV_CAPABILITIES_KHR: {
    cl_uint caps[64];
    unsigned n = dev->il ? cc_il_capabilities(&dev->caps, caps, 64) : 0;
    RT_INFO_ARRAY(caps, n < 64 ? n : 64);
  }
  /* cl_khr_device_uuid (runtime/core/device_uuid.c). No LUID: that is
   * a Windows adapter identifier; with LUID_VALID false the LUID and
   * node mask are undefined, and Skein answers zeros. */
  case CL_DEVICE_UUID_KHR:
  case CL_DRIVER_UUID_KHR: {
    uint8_t uuid[CL_UUID_SIZE_KHR];
    if (param_name == CL_DEVICE_UUID_KHR)
      rt_device_uuid(uuid);
    else
      rt_driver_uuid(uuid);
    RT_INFO_ARRAY(uuid, CL_UUID_SIZE_KHR);
  }
  /* cl_khr_integer_dot_product (builtins/integer_dot_product.cl): both
   * input forms. Accelerated where the target CPU has VNNI: the
   * mixed-signedness forms, plain and saturating (vpdpbusd, vpdpbusds;
   * compiler/dot_vnni.c), for vectors and packed operands alike; the
   * signed and unsigned forms are plain integer arithmetic everywhere. */
  case CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR:
    RT_INFO_VALUE(cl_device_integer_dot_product_capabilities_khr,
                  CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR |
                      CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR);
  case CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR:
  case CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR: {
    cl_device_integer_dot_product_acceleration_properties_khr props = {0};
    props.mixed_signedness_accelerated =
        props.accumulating_saturating_mixed_signedness_accelerated =
            cc_dot_vnni_available() ? CL_TRUE : CL_FALSE;
    RT_INFO_VALUE(cl_device_integer_dot_product_acceleration_properties_khr,
                  props);
  }
  /* cl_khr_subgroup_named_barrier (with SPIR-V): every
   * OpNamedBarrierInitialize of a module has its own entry in a table
   * sized for the module (compiler/spirv_lower.c), so this is a floor,
   * not a limit that is enforced. */
  case CL_DEVICE_MAX_NAMED_BARRIER_COUNT_KHR:
    if (!dev->il)
      return CL_INVALID_VALUE;
    RT_INFO_VALUE(cl_uint, 64);
  /* cl_khr_kernel_clock (builtins/kernel_clock.cl): every scope reads
   * the time-stamp counter. A work-group (and so a sub-group) runs on
   * one thread; the device scope needs the counter to be one clock
   * across cores, which an invariant TSC is (the OpenCL C feature
   * __opencl_c_kernel_clock_scope_device is listed either way). */
  case RT_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR:
    RT_INFO_VALUE(cl_bitfield, (rt_invariant_tsc()
                                    ? RT_KERNEL_CLOCK_SCOPE_DEVICE_KHR
                                    : 0) |
                                   RT_KERNEL_CLOCK_SCOPE_WORK_GROUP_KHR |
                                   RT_KERNEL_CLOCK_SCOPE_SUB_GROUP_KHR);
  /* cl_ext_float_atomics (builtins/float_atomics.cl): load/store/
   * exchange, add/sub and min/max, global and local, for all three types
   * (float and double load/store/exchange are core OpenCL C). */
  case RT_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT:
  case RT_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT:
  case RT_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT:
    RT_INFO_VALUE(cl_bitfield, RT_FP_ATOMIC_ALL_EXT);
  case CL_DEVICE_LUID_VALID_KHR:
    RT_INFO_VALUE(cl_bool, CL_FALSE);
  case CL_DEVICE_LUID_KHR: {
    static const uint8_t no_luid[CL_LUID_SIZE_KHR];
    RT_INFO_ARRAY(no_luid, CL_LUID_SIZE_KHR);
  }
  case CL_DEVICE_NODE_MASK_KHR:
    RT_INFO_VALUE(cl_uint, 0);
  case CL_DEVICE_BUILT_IN_KERNELS:
    RT_INFO_STRING("");
  case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION:
    return rt_info(param_value_size, param_value, param_value_size_ret,
                   NULL, 0);
  case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED:
    RT_INFO_STRING("v0000-01-01-00"); /* never submitted */
  case CL_DEVICE_PLATFORM:
    RT_INFO_VALUE(cl_platform_id, dev->platform);
  case CL_DEVICE_PARENT_DEVICE:
    RT_INFO_VALUE(cl_device_id, dev->parent);
  case CL_DEVICE_REFERENCE_COUNT:
    /* A root device's count never changes: 1. */
    RT_INFO_VALUE(cl_uint, dev->parent ? rt_refcount(dev) : 1);
  }
  return RT_INFO_UNKNOWN;
}

/* Availability, execution model and capabilities. */
static cl_int rt_device_info_caps(RT_INFO_PARAMS) {
  switch (param_name) {
  case CL_DEVICE_AVAILABLE:
  case CL_DEVICE_COMPILER_AVAILABLE:
  case CL_DEVICE_ENDIAN_LITTLE:
  case CL_DEVICE_HOST_UNIFIED_MEMORY:
  case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT:
  case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC:
  case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT:
  case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT:
    RT_INFO_VALUE(cl_bool, CL_TRUE);
  case CL_DEVICE_LINKER_AVAILABLE:
    RT_INFO_VALUE(cl_bool, RT_HAVE_LINKER ? CL_TRUE : CL_FALSE);
  /* Images unless SKEIN_IMAGES=0 turns them off. */
  case CL_DEVICE_IMAGE_SUPPORT:
    RT_INFO_VALUE(cl_bool, dev->images ? CL_TRUE : CL_FALSE);
  case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
    RT_INFO_VALUE(cl_bool, CL_FALSE);
  /* Pipes (runtime/core/pipe.h, builtins/pipes.c). */
  case CL_DEVICE_PIPE_SUPPORT:
    RT_INFO_VALUE(cl_bool, CL_TRUE);
  case CL_DEVICE_MAX_PIPE_ARGS:
    RT_INFO_VALUE(cl_uint, RT_PIPE_MAX_ARGS);
  case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
    RT_INFO_VALUE(cl_uint, RT_PIPE_MAX_ACTIVE_RESERVATIONS);
  case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
    RT_INFO_VALUE(cl_uint, RT_PIPE_MAX_PACKET_SIZE);
  /* Sub-groups of a work-group run on one thread, one at a time, and
   * switch where a work-item waits (a barrier, a collective) and on each
   * trip round a loop that waits for another work-item's write
   * (compiler/forward_progress.c): a sub-group that spins on another's
   * progress lets it run. */
  case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS:
    RT_INFO_VALUE(cl_bool, CL_TRUE);
  /* Sub-groups are runs of cc_sub_group_size() work-items (the SIMD
   * width for 32-bit lanes), or of the size a kernel requires, as small
   * as the smallest of CL_DEVICE_SUB_GROUP_SIZES_INTEL: as many as fill
   * the largest group. */
  case CL_DEVICE_MAX_NUM_SUB_GROUPS: {
    const size_t *sizes;
    cc_sub_group_sizes(&sizes);
    RT_INFO_VALUE(cl_uint, (cl_uint)((dev->max_work_group_size + sizes[0] -
                                      1) / sizes[0]));
  }
  /* cl_intel_required_subgroup_size: the sizes intel_reqd_sub_group_size
   * may name, the default (cc_sub_group_size) among them. */
  case 0x4108: { /* CL_DEVICE_SUB_GROUP_SIZES_INTEL */
    const size_t *sizes;
    size_t n = cc_sub_group_sizes(&sizes);
    RT_INFO_ARRAY(sizes, n);
  }
  case CL_DEVICE_EXECUTION_CAPABILITIES:
    RT_INFO_VALUE(cl_device_exec_capabilities, CL_EXEC_KERNEL);
  case CL_DEVICE_QUEUE_ON_HOST_PROPERTIES:
    RT_INFO_VALUE(cl_command_queue_properties,
                  CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                      CL_QUEUE_PROFILING_ENABLE);
  /* On-device queues (runtime/core/device_queue.c): always out of order,
   * optionally profiling; the default one is replaceable. */
  case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
    RT_INFO_VALUE(cl_command_queue_properties,
                  CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                      CL_QUEUE_PROFILING_ENABLE);
  case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES:
    RT_INFO_VALUE(cl_device_device_enqueue_capabilities,
                  CL_DEVICE_QUEUE_SUPPORTED |
                      CL_DEVICE_QUEUE_REPLACEABLE_DEFAULT);
  case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
    RT_INFO_VALUE(cl_uint, RT_DQ_PREFERRED_SIZE);
  case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
    RT_INFO_VALUE(cl_uint, RT_DQ_MAX_SIZE);
  case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
    RT_INFO_VALUE(cl_uint, RT_DQ_MAX_QUEUES);
  case CL_DEVICE_MAX_ON_DEVICE_EVENTS:
    RT_INFO_VALUE(cl_uint, RT_DQ_MAX_EVENTS);
  /* Every SVM capability: kernels run in the host's address space on
   * its coherent memory, so any host pointer (clSVMAlloc's or malloc's)
   * is valid in a kernel, and atomics on it are the CPU's atomics that
   * host threads see while the kernel runs (runtime/api/api_svm.c). */
  case CL_DEVICE_SVM_CAPABILITIES:
    RT_INFO_VALUE(cl_device_svm_capabilities,
                  CL_DEVICE_SVM_COARSE_GRAIN_BUFFER |
                      CL_DEVICE_SVM_FINE_GRAIN_BUFFER |
                      CL_DEVICE_SVM_FINE_GRAIN_SYSTEM |
                      CL_DEVICE_SVM_ATOMICS);
  /* cl_intel_unified_shared_memory: every capability for every kind,
   * for the same reason (runtime/core/usm.h). */
  case CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL:
  case CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL:
  case CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL:
  case CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL:
  case CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL:
    RT_INFO_VALUE(cl_device_unified_shared_memory_capabilities_intel,
                  RT_USM_CAPABILITIES);
  /* Every order and scope, matching the __opencl_c_atomic_order_* and
   * __opencl_c_atomic_scope_* features (builtins/atomics_c11.cl makes
   * them real LLVM atomics of the requested order; SVM is host memory).
   * Work-item scope exists for fences only. */
  case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
    RT_INFO_VALUE(cl_device_atomic_capabilities,
                  CL_DEVICE_ATOMIC_ORDER_RELAXED |
                      CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                      CL_DEVICE_ATOMIC_ORDER_SEQ_CST |
                      CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
                      CL_DEVICE_ATOMIC_SCOPE_DEVICE |
                      CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES);
  case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
    RT_INFO_VALUE(cl_device_atomic_capabilities,
                  CL_DEVICE_ATOMIC_ORDER_RELAXED |
                      CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                      CL_DEVICE_ATOMIC_ORDER_SEQ_CST |
                      CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM |
                      CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
                      CL_DEVICE_ATOMIC_SCOPE_DEVICE |
                      CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES);
  /* Float arithmetic is the CPU's IEEE 754 arithmetic. */
  case CL_DEVICE_SINGLE_FP_CONFIG:
    RT_INFO_VALUE(cl_device_fp_config, CL_FP_DENORM | CL_FP_INF_NAN |
                                           CL_FP_ROUND_TO_NEAREST |
                                           CL_FP_FMA);
  /* cl_khr_fp64 requires the full set. */
  case CL_DEVICE_DOUBLE_FP_CONFIG:
    RT_INFO_VALUE(cl_device_fp_config,
                  CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
                      CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM);
  /* cl_khr_fp16: half arithmetic is done in float and rounded once to
   * half (correctly rounded, denormals kept), fma is correctly rounded
   * (builtins/math_half.cl). */
  case CL_DEVICE_HALF_FP_CONFIG:
    RT_INFO_VALUE(cl_device_fp_config,
                  dev->has_fp16 ? CL_FP_DENORM | CL_FP_INF_NAN |
                                      CL_FP_ROUND_TO_NEAREST | CL_FP_FMA
                                : 0);
  case CL_DEVICE_PROFILING_TIMER_RESOLUTION:
    RT_INFO_VALUE(size_t, 1); /* rt_now_ns counts nanoseconds */
  }
  return RT_INFO_UNKNOWN;
}

/* Work-group and argument limits, vector widths, clock. */
static cl_int rt_device_info_limits(RT_INFO_PARAMS) {
  static const size_t item_sizes[3] = {1024, 1024, 1024};
  cl_uint simd = dev->simd_bytes;
  switch (param_name) {
  case CL_DEVICE_MAX_COMPUTE_UNITS:
    RT_INFO_VALUE(cl_uint, dev->compute_units);
  case CL_DEVICE_MAX_CLOCK_FREQUENCY:
    RT_INFO_VALUE(cl_uint, dev->max_clock_mhz);
  case CL_DEVICE_ADDRESS_BITS:
    RT_INFO_VALUE(cl_uint, 64);
  case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS:
    RT_INFO_VALUE(cl_uint, 3);
  case CL_DEVICE_MAX_WORK_ITEM_SIZES:
    RT_INFO_ARRAY(item_sizes, 3);
  case CL_DEVICE_MAX_WORK_GROUP_SIZE:
    RT_INFO_VALUE(size_t, dev->max_work_group_size);
  case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
    RT_INFO_VALUE(size_t, simd / 4); /* floats per SIMD register */
  case CL_DEVICE_MAX_PARAMETER_SIZE:
    RT_INFO_VALUE(size_t, 1024);
  case CL_DEVICE_MAX_CONSTANT_ARGS:
    RT_INFO_VALUE(cl_uint, 8);
  case CL_DEVICE_PRINTF_BUFFER_SIZE:
    RT_INFO_VALUE(size_t, rt_printf_buffer_size()); /* core/printf.c */
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
    RT_INFO_VALUE(cl_uint, simd);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
    RT_INFO_VALUE(cl_uint, simd / 2);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
    RT_INFO_VALUE(cl_uint, simd / 4);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE:
    RT_INFO_VALUE(cl_uint, simd / 8);
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF:
    RT_INFO_VALUE(cl_uint, dev->has_fp16 ? simd / 2 : 0);
  }
  return RT_INFO_UNKNOWN;
}

/* Memory sizes, caches and alignments. */
static cl_int rt_device_info_memory(RT_INFO_PARAMS) {
  cl_ulong constant = (cl_ulong)64 << 20;
  if (constant > dev->max_mem_alloc_size)
    constant = dev->max_mem_alloc_size;
  switch (param_name) {
  case CL_DEVICE_GLOBAL_MEM_SIZE:
    RT_INFO_VALUE(cl_ulong, dev->global_mem_size);
  case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
    RT_INFO_VALUE(cl_ulong, dev->max_mem_alloc_size);
  case CL_DEVICE_LOCAL_MEM_SIZE:
    RT_INFO_VALUE(cl_ulong, dev->local_mem_size);
  case CL_DEVICE_LOCAL_MEM_TYPE:
    RT_INFO_VALUE(cl_device_local_mem_type, CL_LOCAL);
  case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE:
    RT_INFO_VALUE(cl_ulong, constant);
  case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE:
    RT_INFO_VALUE(cl_device_mem_cache_type, CL_READ_WRITE_CACHE);
  case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE:
    RT_INFO_VALUE(cl_uint, dev->cacheline_size);
  case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE:
    RT_INFO_VALUE(cl_ulong, dev->cache_size);
  case CL_DEVICE_MEM_BASE_ADDR_ALIGN:
    RT_INFO_VALUE(cl_uint, RT_MEM_ALIGN * 8); /* in bits */
  case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE:
    RT_INFO_VALUE(cl_uint, 128); /* long16 / double16 */
  /* Program-scope global variables live in the program's JIT memory
   * (host memory, zero-filled or copied from the initialisers when the
   * program is built): 64 MiB, well above the spec's 64 KB minimum. */
  case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE:
  case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE:
    RT_INFO_VALUE(size_t, (size_t)64 << 20);
  /* 0: atomics need only their natural alignment. */
  case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT:
  case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT:
  case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT:
    RT_INFO_VALUE(cl_uint, 0);
  }
  return RT_INFO_UNKNOWN;
}

/* Image limits (runtime/core/image.h): the FULL_PROFILE minimums or more
 * while image support is on, zero otherwise. */
static cl_int rt_device_info_images(RT_INFO_PARAMS) {
  bool on = dev->images;
  switch (param_name) {
  case CL_DEVICE_MAX_READ_IMAGE_ARGS:
    RT_INFO_VALUE(cl_uint, on ? RT_IMAGE_MAX_READ_ARGS : 0);
  case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
    RT_INFO_VALUE(cl_uint, on ? RT_IMAGE_MAX_WRITE_ARGS : 0);
  case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS:
    RT_INFO_VALUE(cl_uint, on ? RT_IMAGE_MAX_RW_ARGS : 0);
  case CL_DEVICE_MAX_SAMPLERS:
    RT_INFO_VALUE(cl_uint, on ? RT_MAX_SAMPLERS : 0);
  case CL_DEVICE_IMAGE_PITCH_ALIGNMENT:
    RT_INFO_VALUE(cl_uint, on ? RT_IMAGE_PITCH_ALIGN : 0);
  case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT:
    RT_INFO_VALUE(cl_uint, on ? RT_IMAGE_BASE_ALIGN : 0);
  case CL_DEVICE_IMAGE2D_MAX_WIDTH:
  case CL_DEVICE_IMAGE2D_MAX_HEIGHT:
    RT_INFO_VALUE(size_t, on ? RT_IMAGE2D_MAX : 0);
  case CL_DEVICE_IMAGE3D_MAX_WIDTH:
  case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
  case CL_DEVICE_IMAGE3D_MAX_DEPTH:
    RT_INFO_VALUE(size_t, on ? RT_IMAGE3D_MAX : 0);
  case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
    RT_INFO_VALUE(size_t, on ? rt_image_max_buffer_pixels() : 0);
  case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE:
    RT_INFO_VALUE(size_t, on ? RT_IMAGE_MAX_ARRAY : 0);
  }
  return RT_INFO_UNKNOWN;
}

/* Partitioning (runtime/core/sub_device.c). */
static cl_int rt_device_info_partition(RT_INFO_PARAMS) {
  switch (param_name) {
  /* Every compute unit may become a sub-device of its own. */
  case CL_DEVICE_PARTITION_MAX_SUB_DEVICES:
    RT_INFO_VALUE(cl_uint, dev->compute_units);
  case CL_DEVICE_PARTITION_PROPERTIES: {
    /* "If the device cannot be partitioned (i.e. there is no partitioning
     * scheme supported by the device that will return at least two
     * sub-devices), a value of 0 will be returned": one 0 property. */
    cl_device_partition_property list[3] = {0};
    size_t n = 0;
    if (dev->compute_units >= 2) {
      list[n++] = CL_DEVICE_PARTITION_EQUALLY;
      list[n++] = CL_DEVICE_PARTITION_BY_COUNTS;
      if (rt_device_affinity_domains(dev))
        list[n++] = CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN;
    }
    RT_INFO_ARRAY(list, n ? n : 1);
  }
  case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
    RT_INFO_VALUE(cl_device_affinity_domain,
                  rt_device_affinity_domains(dev));
  /* Not a sub-device: "may return a param_value_size_ret of 0". */
  case CL_DEVICE_PARTITION_TYPE:
    return rt_info(param_value_size, param_value, param_value_size_ret,
                   dev->partition,
                   sizeof *dev->partition * dev->partition_len);
  }
  return RT_INFO_UNKNOWN;
}

cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device,
                                   cl_device_info param_name,
                                   size_t param_value_size, void *param_value,
                                   size_t *param_value_size_ret) {
  /* CL_INVALID_DEVICE if device is not a valid device. */
  RT_RETURN_IF(!rt_is(device, RT_DEVICE), CL_INVALID_DEVICE);
  cl_device_id dev = device;
  cl_int (*const groups[])(RT_INFO_PARAMS) = {
      rt_device_info_identity, rt_device_info_caps, rt_device_info_limits,
      rt_device_info_memory, rt_device_info_images,
      rt_device_info_partition, rt_cb_device_info};
  for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
    cl_int err = groups[i](RT_INFO_ARGS);
    if (err != RT_INFO_UNKNOWN)
      return err;
  }
  /* CL_INVALID_VALUE if param_name is not one of the supported values. */
  rt_debug("%s: unknown param_name 0x%x -> CL_INVALID_VALUE\n", __func__,
           (unsigned)param_name);
  return CL_INVALID_VALUE;
}

cl_int CL_API_CALL clRetainDevice(cl_device_id device) {
  /* CL_INVALID_DEVICE if device is not a valid device. */
  RT_RETURN_IF(!rt_is(device, RT_DEVICE), CL_INVALID_DEVICE);
  /* A root device: the reference count does not change. */
  rt_device_retain(device);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clReleaseDevice(cl_device_id device) {
  /* CL_INVALID_DEVICE if device is not a valid device. */
  RT_RETURN_IF(!rt_is(device, RT_DEVICE), CL_INVALID_DEVICE);
  /* A root device: the reference count does not change. A sub-device
   * is freed when its count reaches 0; contexts hold references to
   * theirs, so one in use stays. */
  rt_device_release(device);
  return CL_SUCCESS;
}

/* Reads the BY_COUNTS list that starts at props[*n] (after the name):
 * counts up to CL_DEVICE_PARTITION_BY_COUNTS_LIST_END (0). */
static cl_int parse_counts(cl_device_id in,
                           const cl_device_partition_property *props,
                           size_t *n, rt_partition *p) {
  p->counts = props + *n;
  cl_device_partition_property total = 0;
  for (; props[*n] != CL_DEVICE_PARTITION_BY_COUNTS_LIST_END; (*n)++) {
    cl_device_partition_property c = props[*n];
    /* CL_INVALID_DEVICE_PARTITION_COUNT if the number of compute units
     * requested for one or more sub-devices is less than zero, or if the
     * total number of compute units requested exceeds
     * CL_DEVICE_MAX_COMPUTE_UNITS for in_device. */
    RT_RETURN_IF(c < 0, CL_INVALID_DEVICE_PARTITION_COUNT);
    RT_RETURN_IF(c > (cl_device_partition_property)in->compute_units,
                 CL_INVALID_DEVICE_PARTITION_COUNT);
    total += c;
    RT_RETURN_IF(total > (cl_device_partition_property)in->compute_units,
                 CL_INVALID_DEVICE_PARTITION_COUNT);
    p->num_counts++;
    /* CL_INVALID_DEVICE_PARTITION_COUNT if the number of sub-devices
     * requested exceeds CL_DEVICE_PARTITION_MAX_SUB_DEVICES (every
     * count is at least 1, so this follows from the total; kept for the
     * spec's sentence). */
    RT_RETURN_IF(p->num_counts > in->compute_units,
                 CL_INVALID_DEVICE_PARTITION_COUNT);
  }
  (*n)++; /* the list's end */
  /* CL_INVALID_VALUE if values specified in properties are not valid:
   * a list that asks for no sub-device. */
  RT_RETURN_IF(p->num_counts == 0, CL_INVALID_VALUE);
  return CL_SUCCESS;
}

/* Checks the form of a partition property list and reads it into *p. */
static cl_int parse_partition(cl_device_id in,
                              const cl_device_partition_property *props,
                              rt_partition *p) {
  static const cl_device_affinity_domain domains =
      CL_DEVICE_AFFINITY_DOMAIN_NUMA | CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE |
      CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE |
      CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE |
      CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE |
      CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE;
  memset(p, 0, sizeof *p);
  /* CL_INVALID_VALUE if values specified in properties are not valid. */
  RT_RETURN_IF(!props || props[0] == 0, CL_INVALID_VALUE);
  p->scheme = props[0];
  p->props = props;
  size_t n = 1;
  cl_device_partition_property v = props[1];
  switch (p->scheme) {
  case CL_DEVICE_PARTITION_EQUALLY:
    /* A count below zero is CL_INVALID_DEVICE_PARTITION_COUNT ("less
     * than zero"), as is one over the compute units ("the total number
     * of compute units requested exceeds CL_DEVICE_MAX_COMPUTE_UNITS");
     * 0 asks for nothing: CL_INVALID_VALUE. */
    RT_RETURN_IF(v == 0, CL_INVALID_VALUE);
    RT_RETURN_IF(v < 0 || v > (cl_device_partition_property)in->compute_units,
                 CL_INVALID_DEVICE_PARTITION_COUNT);
    p->equally = (unsigned)v;
    n = 2;
    break;
  case CL_DEVICE_PARTITION_BY_COUNTS: {
    cl_int err = parse_counts(in, props, &n, p);
    if (err != CL_SUCCESS)
      return err;
    break;
  }
  case CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN:
    /* Exactly one of the six domains. */
    RT_RETURN_IF(v <= 0 || (v & (v - 1)) || ((cl_device_affinity_domain)v &
                                             ~domains),
                 CL_INVALID_VALUE);
    p->domain = (cl_device_affinity_domain)v;
    n = 2;
    break;
  default:
    /* An unknown partition name (cl_ext_device_fission's _EXT names
     * included: its entry points are not offered). */
    RT_FAIL(CL_INVALID_VALUE);
  }
  /* "Only one of the listed partitioning schemes can be specified in
   * properties": the list ends here. */
  RT_RETURN_IF(props[n] != 0, CL_INVALID_VALUE);
  p->num_props = n + 1;
  return CL_SUCCESS;
}

cl_int CL_API_CALL
clCreateSubDevices(cl_device_id in_device,
                   const cl_device_partition_property *properties,
                   cl_uint num_devices, cl_device_id *out_devices,
                   cl_uint *num_devices_ret) {
  /* CL_INVALID_DEVICE if in_device is not a valid device. */
  RT_RETURN_IF(!rt_is(in_device, RT_DEVICE), CL_INVALID_DEVICE);
  rt_partition p;
  cl_int err = parse_partition(in_device, properties, &p);
  if (err != CL_SUCCESS)
    return err;
  /* CL_DEVICE_PARTITION_FAILED if in_device could not be further
   * partitioned; CL_INVALID_VALUE for an affinity domain the machine
   * does not have (sub_device.c). */
  cl_uint count;
  err = rt_partition_count(in_device, &p, &count);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  /* CL_INVALID_VALUE if out_devices is not NULL and num_devices is less
   * than the number of sub-devices created by the partition scheme. */
  RT_RETURN_IF(out_devices && num_devices < count, CL_INVALID_VALUE);
  if (out_devices) {
    err = rt_partition_create(in_device, &p, out_devices);
    RT_RETURN_IF(err != CL_SUCCESS, err);
  }
  if (num_devices_ret)
    *num_devices_ret = count;
  return CL_SUCCESS;
}
