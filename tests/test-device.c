/* This file tests the device entry points through the ICD loader:
 * clGetDeviceIDs and its errors, every OpenCL 3.0 clGetDeviceInfo query
 * with its size/value protocol, values checked against what the OS and
 * the CPU say, retain/release and clCreateSubDevices errors. */
#include "test_util.h"
#include <stdbool.h>
#include <CL/cl_ext.h>
#include <cpuid.h>
#include <unistd.h>

/* A handle with Skein's dispatch pointer but no valid object type. */
typedef struct fake_object {
  const void *dispatch;
  unsigned type, refcount;
} fake_object;

static cl_platform_id platform;
static cl_device_id device;

enum kind { FIXED, STRING, ARRAY };
typedef struct query_spec {
  cl_device_info param;
  const char *name;
  enum kind kind;
  size_t size; /* FIXED: exact size; ARRAY: element size */
} query_spec;

#define Q(p, k, s) {p, #p, k, s}
static const query_spec queries[] = {
    Q(CL_DEVICE_TYPE, FIXED, sizeof(cl_device_type)),
    Q(CL_DEVICE_VENDOR_ID, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_MAX_COMPUTE_UNITS, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_MAX_WORK_GROUP_SIZE, FIXED, sizeof(size_t)),
    Q(CL_DEVICE_MAX_WORK_ITEM_SIZES, ARRAY, sizeof(size_t)),
    Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_MAX_CLOCK_FREQUENCY, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_ADDRESS_BITS, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_MAX_READ_IMAGE_ARGS, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_MAX_WRITE_IMAGE_ARGS, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_MAX_MEM_ALLOC_SIZE, FIXED, sizeof(cl_ulong)),
    Q(CL_DEVICE_IMAGE2D_MAX_WIDTH, FIXED, sizeof(size_t)),
    Q(CL_DEVICE_IMAGE2D_MAX_HEIGHT, FIXED, sizeof(size_t)),
    Q(CL_DEVICE_IMAGE3D_MAX_WIDTH, FIXED, sizeof(size_t)),
    Q(CL_DEVICE_IMAGE3D_MAX_HEIGHT, FIXED, sizeof(size_t)),
    Q(CL_DEVICE_IMAGE3D_MAX_DEPTH, FIXED, sizeof(size_t)),
    Q(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, FIXED, sizeof(size_t)),
    Q(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, FIXED, sizeof(size_t)),
    Q(CL_DEVICE_MAX_SAMPLERS, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_IMAGE_PITCH_ALIGNMENT, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_IMAGE_SUPPORT, FIXED, sizeof(cl_bool)),
    Q(CL_DEVICE_MAX_PIPE_ARGS, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_PIPE_MAX_PACKET_SIZE, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_MAX_PARAMETER_SIZE, FIXED, sizeof(size_t)),
    Q(CL_DEVICE_MEM_BASE_ADDR_ALIGN, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_SINGLE_FP_CONFIG, FIXED, sizeof(cl_device_fp_config)),
    Q(CL_DEVICE_DOUBLE_FP_CONFIG, FIXED, sizeof(cl_device_fp_config)),
    Q(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, FIXED, sizeof(cl_device_mem_cache_type)),
    Q(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, FIXED, sizeof(cl_ulong)),
    Q(CL_DEVICE_GLOBAL_MEM_SIZE, FIXED, sizeof(cl_ulong)),
    Q(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, FIXED, sizeof(cl_ulong)),
    Q(CL_DEVICE_MAX_CONSTANT_ARGS, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, FIXED, sizeof(size_t)),
    Q(CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE, FIXED, sizeof(size_t)),
    Q(CL_DEVICE_LOCAL_MEM_TYPE, FIXED, sizeof(cl_device_local_mem_type)),
    Q(CL_DEVICE_LOCAL_MEM_SIZE, FIXED, sizeof(cl_ulong)),
    Q(CL_DEVICE_ERROR_CORRECTION_SUPPORT, FIXED, sizeof(cl_bool)),
    Q(CL_DEVICE_HOST_UNIFIED_MEMORY, FIXED, sizeof(cl_bool)),
    Q(CL_DEVICE_PROFILING_TIMER_RESOLUTION, FIXED, sizeof(size_t)),
    Q(CL_DEVICE_ENDIAN_LITTLE, FIXED, sizeof(cl_bool)),
    Q(CL_DEVICE_AVAILABLE, FIXED, sizeof(cl_bool)),
    Q(CL_DEVICE_COMPILER_AVAILABLE, FIXED, sizeof(cl_bool)),
    Q(CL_DEVICE_LINKER_AVAILABLE, FIXED, sizeof(cl_bool)),
    Q(CL_DEVICE_EXECUTION_CAPABILITIES, FIXED,
      sizeof(cl_device_exec_capabilities)),
    Q(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, FIXED,
      sizeof(cl_command_queue_properties)),
    Q(CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, FIXED,
      sizeof(cl_command_queue_properties)),
    Q(CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_MAX_ON_DEVICE_QUEUES, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_MAX_ON_DEVICE_EVENTS, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_BUILT_IN_KERNELS, STRING, 1),
    Q(CL_DEVICE_PLATFORM, FIXED, sizeof(cl_platform_id)),
    Q(CL_DEVICE_NAME, STRING, 1),
    Q(CL_DEVICE_VENDOR, STRING, 1),
    Q(CL_DRIVER_VERSION, STRING, 1),
    Q(CL_DEVICE_PROFILE, STRING, 1),
    Q(CL_DEVICE_VERSION, STRING, 1),
    Q(CL_DEVICE_OPENCL_C_VERSION, STRING, 1),
    Q(CL_DEVICE_EXTENSIONS, STRING, 1),
    Q(CL_DEVICE_PRINTF_BUFFER_SIZE, FIXED, sizeof(size_t)),
    Q(CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, FIXED, sizeof(cl_bool)),
    Q(CL_DEVICE_PARENT_DEVICE, FIXED, sizeof(cl_device_id)),
    Q(CL_DEVICE_PARTITION_MAX_SUB_DEVICES, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_PARTITION_PROPERTIES, ARRAY,
      sizeof(cl_device_partition_property)),
    Q(CL_DEVICE_PARTITION_AFFINITY_DOMAIN, FIXED,
      sizeof(cl_device_affinity_domain)),
    Q(CL_DEVICE_PARTITION_TYPE, ARRAY, sizeof(cl_device_partition_property)),
    Q(CL_DEVICE_REFERENCE_COUNT, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_SVM_CAPABILITIES, FIXED, sizeof(cl_device_svm_capabilities)),
    Q(CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_MAX_NUM_SUB_GROUPS, FIXED, sizeof(cl_uint)),
    Q(CL_DEVICE_IL_VERSION, STRING, 1),
    Q(CL_DEVICE_ILS_WITH_VERSION, ARRAY, sizeof(cl_name_version)),
    Q(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, FIXED,
      sizeof(cl_bool)),
    Q(CL_DEVICE_NUMERIC_VERSION, FIXED, sizeof(cl_version)),
    Q(CL_DEVICE_EXTENSIONS_WITH_VERSION, ARRAY, sizeof(cl_name_version)),
    Q(CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION, ARRAY, sizeof(cl_name_version)),
    Q(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, FIXED,
      sizeof(cl_device_atomic_capabilities)),
    Q(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, FIXED,
      sizeof(cl_device_atomic_capabilities)),
    Q(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, FIXED, sizeof(cl_bool)),
    Q(CL_DEVICE_OPENCL_C_ALL_VERSIONS, ARRAY, sizeof(cl_name_version)),
    Q(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, FIXED, sizeof(size_t)),
    Q(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, FIXED,
      sizeof(cl_bool)),
    Q(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, FIXED, sizeof(cl_bool)),
    Q(CL_DEVICE_OPENCL_C_FEATURES, ARRAY, sizeof(cl_name_version)),
    Q(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, FIXED,
      sizeof(cl_device_device_enqueue_capabilities)),
    Q(CL_DEVICE_PIPE_SUPPORT, FIXED, sizeof(cl_bool)),
    Q(CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED, STRING, 1),
};

/* Checks one query's size and the size/value protocol. */
static void check_protocol(const query_spec *q) {
  size_t size = 12345;
  cl_int err = clGetDeviceInfo(device, q->param, 0, NULL, &size);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "%s: returned %d\n", q->name, err);
    test_failures++;
    return;
  }
  if (q->kind == FIXED && size != q->size)
    fprintf(stderr, "%s: size %zu, expected %zu\n", q->name, size, q->size);
  CHECK(q->kind != FIXED || size == q->size);
  CHECK(q->kind != ARRAY || size % q->size == 0);
  CHECK(q->kind != STRING || size >= 1);
  char *v = malloc(size + 8);
  memset(v, 0x55, size + 8);
  size_t got = 0;
  CHECK_EQ(clGetDeviceInfo(device, q->param, size + 8, v, &got), CL_SUCCESS);
  CHECK_EQ(got, size);
  CHECK_EQ((unsigned char)v[size], 0x55); /* nothing written past size */
  if (q->kind == STRING) {
    CHECK_EQ(v[size - 1], 0);
    CHECK_EQ(strlen(v), size - 1);
  }
  if (size > 0) {
    /* CL_INVALID_VALUE if param_value_size < size of return type. */
    CHECK_EQ(clGetDeviceInfo(device, q->param, size - 1, v, NULL),
             CL_INVALID_VALUE);
    CHECK_EQ(clGetDeviceInfo(device, q->param, 0, v, NULL), CL_INVALID_VALUE);
  }
  free(v);
}

/* Query helpers for the value checks. */
static cl_ulong get_uint(cl_device_info param) {
  union {
    cl_ulong u64;
    cl_uint u32;
  } v = {0};
  size_t size = 0;
  CHECK_EQ(clGetDeviceInfo(device, param, sizeof v, &v, &size), CL_SUCCESS);
  return size == sizeof(cl_uint) ? v.u32 : v.u64;
}
static void *get_any(cl_device_info param, size_t *size) {
  *size = 0;
  CHECK_EQ(clGetDeviceInfo(device, param, 0, NULL, size), CL_SUCCESS);
  void *v = calloc(1, *size + 1);
  CHECK_EQ(clGetDeviceInfo(device, param, *size, v, NULL), CL_SUCCESS);
  return v;
}
static char *get_string(cl_device_info param) {
  size_t size;
  return get_any(param, &size);
}

/* Count of entries of a cl_name_version list named name (any version
 * if major is negative). */
static int count_named(const cl_name_version *nv, size_t n, const char *name,
                       int major, int minor) {
  int c = 0;
  for (size_t i = 0; i < n; i++)
    c += strcmp(nv[i].name, name) == 0 &&
         (major < 0 || (CL_VERSION_MAJOR(nv[i].version) == (cl_uint)major &&
                        CL_VERSION_MINOR(nv[i].version) == (cl_uint)minor));
  return c;
}

/* Host view of the values: memory, cores, name, vendor, SIMD width. */
static void check_against_host(void) {
  cl_ulong global = get_uint(CL_DEVICE_GLOBAL_MEM_SIZE);
  double ram = (double)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
  CHECK(global > ram * 0.99 && global < ram * 1.01);
  /* The worker count was fixed by SKEIN_NUM_THREADS in main(). */
  CHECK_EQ(get_uint(CL_DEVICE_MAX_COMPUTE_UNITS), 3);

  char *name = get_string(CL_DEVICE_NAME), line[512], model[256] = "";
  FILE *f = fopen("/proc/cpuinfo", "r");
  CHECK(f != NULL);
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "model name : %255[^\n]", model) == 1)
      break;
  if (f)
    fclose(f);
  CHECK(model[0] != 0); /* x86 Linux always names the model */
  CHECK(strcmp(name, model) == 0);
  free(name);

  unsigned a, b, c, d;
  char vendor[13] = "";
  if (__get_cpuid(0, &a, &b, &c, &d)) {
    memcpy(vendor, &b, 4), memcpy(vendor + 4, &d, 4), memcpy(vendor + 8, &c, 4);
    char *v = get_string(CL_DEVICE_VENDOR);
    CHECK(strcmp(v, vendor) == 0);
    free(v);
    cl_uint id = get_uint(CL_DEVICE_VENDOR_ID);
    if (strcmp(vendor, "GenuineIntel") == 0)
      CHECK_EQ(id, 0x8086);
    if (strcmp(vendor, "AuthenticAMD") == 0)
      CHECK_EQ(id, 0x1022);
  }

  __builtin_cpu_init();
  unsigned bytes = __builtin_cpu_supports("avx512f") ? 64
                   : __builtin_cpu_supports("avx")   ? 32
                                                     : 16;
  CHECK_EQ(get_uint(CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR), bytes);
  CHECK_EQ(get_uint(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT), bytes / 2);
  CHECK_EQ(get_uint(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT), bytes / 4);
  CHECK_EQ(get_uint(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT), bytes / 4);
  CHECK_EQ(get_uint(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE), bytes / 8);
  CHECK_EQ(get_uint(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG), bytes / 8);
  CHECK_EQ(get_uint(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF), bytes / 2);
}

/* The minimums the OpenCL 3.0 full profile sets for a non-custom
 * device, and the decisions Skein documents. */
static void check_spec_minimums(void) {
  cl_ulong global = get_uint(CL_DEVICE_GLOBAL_MEM_SIZE);
  cl_ulong alloc = get_uint(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  cl_ulong quarter = global / 4 < (1u << 30) ? global / 4 : (1u << 30);
  CHECK(alloc >= (quarter > (32u << 20) ? quarter : (32u << 20)));
  CHECK(alloc <= global);
  cl_ulong constant = get_uint(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE);
  CHECK(constant >= 64 * 1024 && constant <= alloc);
  CHECK_EQ(get_uint(CL_DEVICE_LOCAL_MEM_SIZE), 64 * 1024);
  CHECK_EQ(get_uint(CL_DEVICE_LOCAL_MEM_TYPE), CL_LOCAL);
  CHECK(get_uint(CL_DEVICE_MAX_CONSTANT_ARGS) >= 8);
  CHECK(get_uint(CL_DEVICE_MAX_PARAMETER_SIZE) >= 1024);
  CHECK(get_uint(CL_DEVICE_PRINTF_BUFFER_SIZE) >= 1024 * 1024);
  CHECK(get_uint(CL_DEVICE_MEM_BASE_ADDR_ALIGN) >= 1024); /* long16 bits */
  CHECK_EQ(get_uint(CL_DEVICE_ADDRESS_BITS), 64);
  CHECK_EQ(get_uint(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS), 3);
  size_t n, wg = get_uint(CL_DEVICE_MAX_WORK_GROUP_SIZE);
  size_t *items = get_any(CL_DEVICE_MAX_WORK_ITEM_SIZES, &n);
  CHECK_EQ(n, 3 * sizeof(size_t));
  for (int i = 0; i < 3; i++)
    CHECK(items[i] >= 1 && items[i] <= wg);
  free(items);
  CHECK_EQ(wg, 1024);
  CHECK_EQ(get_uint(CL_DEVICE_PROFILING_TIMER_RESOLUTION), 1);
  CHECK_EQ(get_uint(CL_DEVICE_ENDIAN_LITTLE), CL_TRUE);
  CHECK_EQ(get_uint(CL_DEVICE_AVAILABLE), CL_TRUE);
  CHECK_EQ(get_uint(CL_DEVICE_COMPILER_AVAILABLE), CL_TRUE);
  CHECK_EQ(get_uint(CL_DEVICE_TYPE), CL_DEVICE_TYPE_CPU);
  CHECK_EQ(get_uint(CL_DEVICE_EXECUTION_CAPABILITIES), CL_EXEC_KERNEL);
  CHECK_EQ(get_uint(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES),
           CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
  cl_ulong single = get_uint(CL_DEVICE_SINGLE_FP_CONFIG);
  CHECK((single & (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN)) ==
        (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN));
  cl_ulong atomics = get_uint(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
  cl_ulong fences = get_uint(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES);
  cl_ulong amin = CL_DEVICE_ATOMIC_ORDER_RELAXED |
                  CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
  CHECK((atomics & amin) == amin);
  CHECK((fences & (amin | CL_DEVICE_ATOMIC_ORDER_ACQ_REL)) ==
        (amin | CL_DEVICE_ATOMIC_ORDER_ACQ_REL));
  CHECK(get_uint(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE) >= 16);
  size_t wgm = get_uint(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
  CHECK(wgm >= 1 && wgm <= wg);
}

/* Images are supported (unless SKEIN_IMAGES=0, which this test does not
 * set), with at least the FULL_PROFILE minimum of every image limit. */
static void check_images(void) {
  CHECK_EQ(get_uint(CL_DEVICE_IMAGE_SUPPORT), CL_TRUE);
  static const struct {
    cl_device_info query;
    cl_ulong min;
  } limits[] = {
      {CL_DEVICE_MAX_READ_IMAGE_ARGS, 128},
      {CL_DEVICE_MAX_WRITE_IMAGE_ARGS, 64},
      {CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, 64},
      {CL_DEVICE_IMAGE2D_MAX_WIDTH, 16384},
      {CL_DEVICE_IMAGE2D_MAX_HEIGHT, 16384},
      {CL_DEVICE_IMAGE3D_MAX_WIDTH, 2048},
      {CL_DEVICE_IMAGE3D_MAX_HEIGHT, 2048},
      {CL_DEVICE_IMAGE3D_MAX_DEPTH, 2048},
      {CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, 65536},
      {CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, 2048},
      {CL_DEVICE_MAX_SAMPLERS, 16},
  };
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
    CHECK(get_uint(limits[i].query) >= limits[i].min);
}

/* The root device's partition queries (sub-devices themselves:
 * tests/test-sub-devices.c), the IL list and bad handles. */
static void check_absent_features(void) {
  /* Every one of the 3 compute units may be a sub-device of its own. */
  CHECK_EQ(get_uint(CL_DEVICE_PARTITION_MAX_SUB_DEVICES), 3);
  size_t size;
  cl_device_partition_property *pp =
      get_any(CL_DEVICE_PARTITION_PROPERTIES, &size);
  CHECK(size >= 2 * sizeof *pp);
  CHECK_EQ(pp[0], CL_DEVICE_PARTITION_EQUALLY);
  CHECK_EQ(pp[1], CL_DEVICE_PARTITION_BY_COUNTS);
  free(pp);
  /* SPIR-V 1.0 to 1.4 where the translator is installed (test-spirv). */
  free(get_any(CL_DEVICE_ILS_WITH_VERSION, &size));
  CHECK(size == 0 || size == 5 * sizeof(cl_name_version));
  free(get_any(CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION, &size));
  CHECK_EQ(size, 0);
}

/* Versions and extensions: strings and cl_name_version lists agree. */
static void check_versions(void) {
  char *v = get_string(CL_DEVICE_VERSION);
  int major = -1, minor = -1;
  CHECK_EQ(sscanf(v, "OpenCL %d.%d ", &major, &minor), 2);
  cl_version nv = get_uint(CL_DEVICE_NUMERIC_VERSION);
  CHECK_EQ(CL_VERSION_MAJOR(nv), major);
  CHECK_EQ(CL_VERSION_MINOR(nv), minor);
  /* 3.1 exactly where the SPIR-V ILs it requires are there
   * (docs/opencl-3.1.md; tests/test-opencl-3-1.c checks the rest). */
  size_t ils = 0;
  REQUIRE_OK(clGetDeviceInfo(device, CL_DEVICE_ILS_WITH_VERSION, 0, NULL,
                             &ils));
  bool is31 = major == 3 && minor == 1;
  CHECK(is31 || (major == 3 && minor == 0));
  if (!getenv("SKEIN_OPENCL_3_1"))
    CHECK_EQ(is31, ils != 0);
  free(v);
  /* 2.0, the highest version whose optional features are all there
   * (checked below, as CTS compiler opencl_c_versions does); a space
   * follows the number. */
  v = get_string(CL_DEVICE_OPENCL_C_VERSION);
  CHECK(strcmp(v, "OpenCL C 2.0 Skein") == 0);
  free(v);
  v = get_string(CL_DEVICE_PROFILE);
  CHECK(strcmp(v, "FULL_PROFILE") == 0);
  free(v);
  size_t size;
  cl_name_version *all = get_any(CL_DEVICE_OPENCL_C_ALL_VERSIONS, &size);
  size_t n = size / sizeof *all;
  CHECK_EQ(n, is31 ? 6 : 5);
  CHECK_EQ(count_named(all, n, "OpenCL C", 3, 1), is31);
  CHECK_EQ(count_named(all, n, "OpenCL C", 1, 2), 1);
  CHECK_EQ(count_named(all, n, "OpenCL C", 3, 0), 1);
  CHECK_EQ(count_named(all, n, "OpenCL C", 2, 0), 1);
  free(all);

  char *ext = get_string(CL_DEVICE_EXTENSIONS);
  cl_name_version *exts = get_any(CL_DEVICE_EXTENSIONS_WITH_VERSION, &size);
  n = size / sizeof *exts;
  size_t words = 0;
  int fp64 = 0;
  for (char *w = strtok(ext, " "); w; w = strtok(NULL, " "), words++) {
    CHECK_EQ(count_named(exts, n, w, -1, 0), 1);
    fp64 += strcmp(w, "cl_khr_fp64") == 0;
  }
  CHECK_EQ(words, n);
  CHECK_EQ(fp64, 1);
  free(exts);
  free(ext);
  /* cl_khr_fp64 goes with the __opencl_c_fp64 feature and the double
   * configuration that extension requires. */
  cl_name_version *feat = get_any(CL_DEVICE_OPENCL_C_FEATURES, &size);
  n = size / sizeof *feat;
  CHECK_EQ(count_named(feat, n, "__opencl_c_fp64", 3, 0), 1);
  CHECK_EQ(count_named(feat, n, "__opencl_c_int64", 3, 0), 1);
  static const char *const c20[] = {
      "__opencl_c_atomic_order_acq_rel", "__opencl_c_atomic_order_seq_cst",
      "__opencl_c_atomic_scope_device", "__opencl_c_atomic_scope_all_devices",
      "__opencl_c_device_enqueue", "__opencl_c_generic_address_space",
      "__opencl_c_pipes", "__opencl_c_program_scope_global_variables",
      "__opencl_c_work_group_collective_functions"};
  for (size_t i = 0; i < sizeof c20 / sizeof c20[0]; i++)
    CHECK_EQ(count_named(feat, n, c20[i], 3, 0), 1);
  /* Images are optional in 2.0; with them, 2.0 has read-write images and
   * 3D image writes. */
  if (count_named(feat, n, "__opencl_c_images", 3, 0)) {
    CHECK_EQ(count_named(feat, n, "__opencl_c_read_write_images", 3, 0), 1);
    CHECK_EQ(count_named(feat, n, "__opencl_c_3d_image_writes", 3, 0), 1);
  }
  free(feat);
  cl_ulong dbl = get_uint(CL_DEVICE_DOUBLE_FP_CONFIG);
  cl_ulong need = CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN |
                  CL_FP_DENORM;
  CHECK((dbl & need) == need);
}

static void check_device_ids(fake_object *fake) {
  cl_device_id d = NULL;
  cl_uint n = 0;
  static const cl_device_type found[] = {
      CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_DEFAULT, CL_DEVICE_TYPE_ALL,
      CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU};
  for (size_t i = 0; i < sizeof found / sizeof found[0]; i++) {
    d = NULL, n = 0;
    CHECK_EQ(clGetDeviceIDs(platform, found[i], 1, &d, &n), CL_SUCCESS);
    CHECK(d == device);
    CHECK_EQ(n, 1);
  }
  /* CL_DEVICE_NOT_FOUND if no OpenCL devices that matched device_type. */
  CHECK_EQ(clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &d, &n),
           CL_DEVICE_NOT_FOUND);
  CHECK_EQ(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ACCELERATOR, 1, &d, &n),
           CL_DEVICE_NOT_FOUND);
  CHECK_EQ(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CUSTOM, 0, NULL, &n),
           CL_DEVICE_NOT_FOUND);
  /* CL_INVALID_DEVICE_TYPE if device_type is not a valid value. */
  CHECK_EQ(clGetDeviceIDs(platform, (cl_device_type)1 << 40, 1, &d, &n),
           CL_INVALID_DEVICE_TYPE);
  CHECK_EQ(clGetDeviceIDs(platform, 0, 1, &d, &n), CL_INVALID_DEVICE_TYPE);
  /* CL_INVALID_VALUE if num_entries is zero and devices is not NULL, or
   * both num_devices and devices are NULL. */
  CHECK_EQ(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 0, &d, &n),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, NULL, NULL),
           CL_INVALID_VALUE);
  /* CL_INVALID_PLATFORM if platform is not a valid platform. */
  CHECK_EQ(clGetDeviceIDs((cl_platform_id)fake, CL_DEVICE_TYPE_CPU, 1, &d, &n),
           CL_INVALID_PLATFORM);
}

static void check_errors(fake_object *fake) {
  char buf[256];
  /* CL_INVALID_VALUE if param_name is not one of the supported values. */
  CHECK_EQ(clGetDeviceInfo(device, 0xdead, sizeof buf, buf, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetDeviceInfo(device, CL_PLATFORM_NAME, sizeof buf, buf, NULL),
           CL_INVALID_VALUE);
  /* CL_INVALID_DEVICE if device is not valid. */
  cl_device_id bad = (cl_device_id)fake;
  CHECK_EQ(clGetDeviceInfo(bad, CL_DEVICE_NAME, sizeof buf, buf, NULL),
           CL_INVALID_DEVICE);
  CHECK_EQ(clRetainDevice(bad), CL_INVALID_DEVICE);
  CHECK_EQ(clReleaseDevice(bad), CL_INVALID_DEVICE);
  /* Root devices: retain and release succeed and change nothing. */
  CHECK_EQ(clRetainDevice(device), CL_SUCCESS);
  CHECK_EQ(clReleaseDevice(device), CL_SUCCESS);
  CHECK_EQ(clReleaseDevice(device), CL_SUCCESS);
  CHECK_EQ(get_uint(CL_DEVICE_REFERENCE_COUNT), 1);
  /* clCreateSubDevices: CL_INVALID_VALUE for room for 2 of the 3
   * sub-devices; CL_INVALID_DEVICE for a bad handle. */
  cl_device_partition_property eq[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  cl_device_id sub[4];
  cl_uint n;
  CHECK_EQ(clCreateSubDevices(device, eq, 2, sub, &n), CL_INVALID_VALUE);
  CHECK_EQ(clCreateSubDevices(device, NULL, 4, sub, &n), CL_INVALID_VALUE);
  CHECK_EQ(clCreateSubDevices(bad, eq, 4, sub, &n), CL_INVALID_DEVICE);
  cl_platform_id p = NULL;
  CHECK_EQ(clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof p, &p, NULL),
           CL_SUCCESS);
  CHECK(p == platform);
  cl_device_id parent = device;
  CHECK_EQ(clGetDeviceInfo(device, CL_DEVICE_PARENT_DEVICE, sizeof parent,
                           &parent, NULL),
           CL_SUCCESS);
  CHECK(parent == NULL);
}

int main(void) {
  /* Before the first call into Skein: fixes the worker count, which
   * CL_DEVICE_MAX_COMPUTE_UNITS must then report. */
  setenv("SKEIN_NUM_THREADS", "3", 1);
  REQUIRE_OK(clGetPlatformIDs(1, &platform, NULL));
  REQUIRE_OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, NULL));
  fake_object fake = {*(const void *const *)device, 0, 1};
  for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++)
    check_protocol(&queries[i]);
  check_against_host();
  check_spec_minimums();
  check_images();
  check_absent_features();
  check_versions();
  check_device_ids(&fake);
  check_errors(&fake);
  return test_finish("device");
}
