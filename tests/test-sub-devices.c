/* This file tests clCreateSubDevices: every partition scheme, the
 * sub-device queries, reference counts, contexts holding the root and
 * sub-devices, programs and kernels on them, the exact errors, and that
 * a sub-device's work-groups run only on its own cores.
 *
 * Without arguments it runs on the machine's own topology; expected
 * counts come from hwloc (this test reads the same tree Skein does).
 * With --fake it expects the topology of
 * tests/topologies/2pkg-2numa-2l3-2l2-2l1.xml (ctest's sub-devices@fake
 * sets HWLOC_XMLFILE to it, and HWLOC_THISSYSTEM=1 so that binding to
 * its 32 CPUs, which this machine lacks, really fails): 32 compute
 * units, 4 NUMA nodes of 8, 8 L3 caches of 4, 16 L2 of 2, 32 L1.
 *
 * Pinning is read in the kernel: __builtin_ia32_rdtscp returns
 * IA32_TSC_AUX, which Linux sets to (node << 12) | cpu on every CPU
 * (the vDSO's getcpu reads the same), so each work-group records the
 * CPU it ran on without any help from Skein. */
#include "test_util.h"

#include <hwloc.h>
#include <stdbool.h>

static cl_device_id root;
static cl_uint root_cus;
static bool fake;
static cl_device_id wrong_device; /* a context's handle */

#define P(x) ((cl_device_partition_property)(x))

/* clCreateSubDevices in two calls (count, then create); returns the
 * error of the first that failed. */
static cl_int split(cl_device_id in, const cl_device_partition_property *p,
                    cl_device_id *out, cl_uint room, cl_uint *n) {
  cl_uint count = 0;
  cl_int err = clCreateSubDevices(in, p, 0, NULL, &count);
  if (err != CL_SUCCESS)
    return err;
  if (count > room)
    return -1000;
  err = clCreateSubDevices(in, p, count, out, n);
  if (err == CL_SUCCESS)
    CHECK_EQ(*n, count);
  return err;
}

static cl_uint dev_uint(cl_device_id d, cl_device_info what) {
  cl_uint v = 0;
  REQUIRE_OK(clGetDeviceInfo(d, what, sizeof v, &v, NULL));
  return v;
}

static cl_device_affinity_domain dev_domains(cl_device_id d) {
  cl_device_affinity_domain v = 0;
  REQUIRE_OK(clGetDeviceInfo(d, CL_DEVICE_PARTITION_AFFINITY_DOMAIN,
                             sizeof v, &v, NULL));
  return v;
}

static void release_all(cl_device_id *d, cl_uint n) {
  for (cl_uint i = 0; i < n; i++)
    CHECK_EQ(clReleaseDevice(d[i]), CL_SUCCESS);
}

/* Checks a sub-device's partition queries against the properties it was
 * made with (for NEXT_PARTITIONABLE, the level expected). */
static void check_sub(cl_device_id s, cl_device_id parent, cl_uint cus,
                      const cl_device_partition_property *expect,
                      size_t expect_len) {
  cl_device_id par = NULL;
  REQUIRE_OK(clGetDeviceInfo(s, CL_DEVICE_PARENT_DEVICE, sizeof par, &par,
                             NULL));
  CHECK(par == parent);
  CHECK_EQ(dev_uint(s, CL_DEVICE_MAX_COMPUTE_UNITS), cus);
  CHECK_EQ(dev_uint(s, CL_DEVICE_PARTITION_MAX_SUB_DEVICES), cus);
  CHECK_EQ(dev_uint(s, CL_DEVICE_REFERENCE_COUNT), 1);
  cl_device_partition_property type[8] = {0};
  size_t size = 0;
  REQUIRE_OK(clGetDeviceInfo(s, CL_DEVICE_PARTITION_TYPE, sizeof type, type,
                             &size));
  CHECK_EQ(size, expect_len * sizeof type[0]);
  for (size_t i = 0; i < expect_len && i < 8; i++)
    CHECK_EQ(type[i], expect[i]);
  /* Everything else answers as for the root device. */
  char a[256] = "", b[256] = "";
  REQUIRE_OK(clGetDeviceInfo(s, CL_DEVICE_NAME, sizeof a, a, NULL));
  REQUIRE_OK(clGetDeviceInfo(root, CL_DEVICE_NAME, sizeof b, b, NULL));
  CHECK(strcmp(a, b) == 0);
  size_t wg_s = 0, wg_r = 1;
  REQUIRE_OK(clGetDeviceInfo(s, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg_s,
                             &wg_s, NULL));
  REQUIRE_OK(clGetDeviceInfo(root, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                             sizeof wg_r, &wg_r, NULL));
  CHECK_EQ(wg_s, wg_r);
  cl_device_type t = 0;
  REQUIRE_OK(clGetDeviceInfo(s, CL_DEVICE_TYPE, sizeof t, &t, NULL));
  CHECK_EQ(t, CL_DEVICE_TYPE_CPU);
  /* A one-unit device cannot be split: "a value of 0". */
  if (cus == 1) {
    cl_device_partition_property props[4] = {1, 1, 1, 1};
    REQUIRE_OK(clGetDeviceInfo(s, CL_DEVICE_PARTITION_PROPERTIES,
                               sizeof props, props, &size));
    CHECK_EQ(size, sizeof props[0]);
    CHECK_EQ(props[0], 0);
    CHECK_EQ(dev_domains(s), 0);
  }
}

/* The errors that do not depend on the topology. */
static void test_errors(void) {
  cl_device_id out[2];
  cl_uint n = 0;
  cl_int cus = (cl_int)root_cus;
  const cl_device_partition_property equally1[] = {
      CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  /* A handle of another type (the ICD loader itself dereferences NULL
   * and foreign pointers before Skein sees them). */
  CHECK_EQ(clCreateSubDevices(wrong_device, equally1, 0, NULL, &n),
           CL_INVALID_DEVICE);
  CHECK_EQ(clCreateSubDevices(root, NULL, 0, NULL, &n), CL_INVALID_VALUE);
  const cl_device_partition_property empty[] = {0};
  CHECK_EQ(clCreateSubDevices(root, empty, 0, NULL, &n), CL_INVALID_VALUE);
  /* cl_ext_device_fission's CL_DEVICE_PARTITION_EQUALLY_EXT. */
  const cl_device_partition_property unknown[] = {0x4050, 1, 0};
  CHECK_EQ(clCreateSubDevices(root, unknown, 0, NULL, &n), CL_INVALID_VALUE);
  const cl_device_partition_property eq0[] = {CL_DEVICE_PARTITION_EQUALLY,
                                              0, 0};
  CHECK_EQ(clCreateSubDevices(root, eq0, 0, NULL, &n), CL_INVALID_VALUE);
  const cl_device_partition_property eq_over[] = {
      CL_DEVICE_PARTITION_EQUALLY, P(cus + 1), 0};
  CHECK_EQ(clCreateSubDevices(root, eq_over, 0, NULL, &n),
           CL_INVALID_DEVICE_PARTITION_COUNT);
  /* All units in one sub-device is no partition. */
  const cl_device_partition_property eq_all[] = {
      CL_DEVICE_PARTITION_EQUALLY, P(cus), 0};
  CHECK_EQ(clCreateSubDevices(root, eq_all, 0, NULL, &n),
           CL_DEVICE_PARTITION_FAILED);
  const cl_device_partition_property eq_neg[] = {
      CL_DEVICE_PARTITION_EQUALLY, -1, 0};
  CHECK_EQ(clCreateSubDevices(root, eq_neg, 0, NULL, &n),
           CL_INVALID_DEVICE_PARTITION_COUNT);
  const cl_device_partition_property counts_over[] = {
      CL_DEVICE_PARTITION_BY_COUNTS, P(cus), 1,
      CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
  CHECK_EQ(clCreateSubDevices(root, counts_over, 0, NULL, &n),
           CL_INVALID_DEVICE_PARTITION_COUNT);
  const cl_device_partition_property counts_neg[] = {
      CL_DEVICE_PARTITION_BY_COUNTS, 1, -1,
      CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
  CHECK_EQ(clCreateSubDevices(root, counts_neg, 0, NULL, &n),
           CL_INVALID_DEVICE_PARTITION_COUNT);
  const cl_device_partition_property counts_none[] = {
      CL_DEVICE_PARTITION_BY_COUNTS, CL_DEVICE_PARTITION_BY_COUNTS_LIST_END,
      0};
  CHECK_EQ(clCreateSubDevices(root, counts_none, 0, NULL, &n),
           CL_INVALID_VALUE);
  /* Only one scheme per list. */
  const cl_device_partition_property two[] = {
      CL_DEVICE_PARTITION_EQUALLY, 1, CL_DEVICE_PARTITION_BY_COUNTS, 1,
      CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
  CHECK_EQ(clCreateSubDevices(root, two, 0, NULL, &n), CL_INVALID_VALUE);
  /* Exactly one known affinity domain. */
  cl_device_partition_property bad_domains[] = {
      0, CL_DEVICE_AFFINITY_DOMAIN_NUMA | CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE,
      1 << 6};
  for (int i = 0; i < 3; i++) {
    const cl_device_partition_property p[] = {
        CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, bad_domains[i], 0};
    CHECK_EQ(clCreateSubDevices(root, p, 0, NULL, &n), CL_INVALID_VALUE);
  }
  /* Neither machine has an L4 cache: a valid domain the device does not
   * support. */
  const cl_device_partition_property l4[] = {
      CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
      CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE, 0};
  CHECK_EQ(clCreateSubDevices(root, l4, 0, NULL, &n), CL_INVALID_VALUE);
  CHECK_EQ(dev_domains(root) & CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE, 0);
  if (root_cus < 2)
    return;
  /* out_devices too small for the partition. */
  const cl_device_partition_property eq_half[] = {
      CL_DEVICE_PARTITION_EQUALLY, P(cus / 2), 0};
  CHECK_EQ(clCreateSubDevices(root, eq_half, 1, out, &n), CL_INVALID_VALUE);
  /* A sub-device of one unit cannot be split further. */
  cl_device_id *one = malloc(sizeof *one * root_cus);
  cl_uint made = 0;
  REQUIRE_OK(split(root, equally1, one, root_cus, &made));
  CHECK_EQ(made, root_cus);
  CHECK_EQ(clCreateSubDevices(one[0], equally1, 0, NULL, &n),
           CL_DEVICE_PARTITION_FAILED);
  const cl_device_partition_property np[] = {
      CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
      CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0};
  CHECK_EQ(clCreateSubDevices(one[0], np, 0, NULL, &n),
           CL_DEVICE_PARTITION_FAILED);
  release_all(one, made);
  free(one);
}

/* The number of distinct hwloc objects of type t over the first `cus`
 * cores (the units Skein maps onto them), or 0 if there are none. */
static unsigned level_groups(hwloc_topology_t topo, hwloc_obj_type_t t,
                             unsigned cus) {
  int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  int nobj = hwloc_get_nbobjs_by_type(topo, t);
  if (ncores <= 0 || nobj <= 0)
    return 0;
  unsigned groups = 0;
  char seen[4096] = {0};
  for (unsigned u = 0; u < cus; u++) {
    hwloc_obj_t core =
        hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, u % (unsigned)ncores);
    for (int i = 0; i < nobj && i < 4096; i++) {
      hwloc_obj_t o = hwloc_get_obj_by_type(topo, t, (unsigned)i);
      if (hwloc_bitmap_isincluded(core->cpuset, o->cpuset)) {
        groups += !seen[i];
        seen[i] = 1;
        break;
      }
    }
  }
  return groups;
}

/* One affinity partition of the root: the count expected (0: the
 * machine lacks the level, 1: it cannot split the root). */
static void test_domain(cl_device_affinity_domain domain, unsigned expect) {
  cl_device_id out[64];
  cl_uint n = 0;
  const cl_device_partition_property p[] = {
      CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, P(domain), 0};
  cl_int err = split(root, p, out, 64, &n);
  if (expect == 0) {
    CHECK_EQ(err, CL_INVALID_VALUE);
  } else if (expect == 1 || root_cus < 2) {
    CHECK_EQ(err, CL_DEVICE_PARTITION_FAILED);
  } else {
    CHECK_EQ(err, CL_SUCCESS);
    CHECK_EQ(n, expect);
    CHECK(dev_domains(root) & domain);
    cl_uint total = 0;
    for (cl_uint i = 0; err == CL_SUCCESS && i < n; i++) {
      cl_uint cus = dev_uint(out[i], CL_DEVICE_MAX_COMPUTE_UNITS);
      total += cus;
      check_sub(out[i], root, cus, p, 3);
    }
    CHECK_EQ(total, root_cus);
    if (err == CL_SUCCESS)
      release_all(out, n);
    return;
  }
  CHECK_EQ(dev_domains(root) & domain, 0);
}

/* Equally and by counts on the root, and every affinity level, with the
 * counts hwloc gives for this machine. */
static void test_real_partitions(void) {
  cl_device_id out[64];
  cl_uint n = 0;
  if (root_cus >= 2) {
    const cl_device_partition_property eq1[] = {CL_DEVICE_PARTITION_EQUALLY,
                                                1, 0};
    REQUIRE_OK(split(root, eq1, out, 64, &n));
    CHECK_EQ(n, root_cus < 64 ? root_cus : 64);
    for (cl_uint i = 0; i < n; i++)
      check_sub(out[i], root, 1, eq1, 3);
    release_all(out, n);
    const cl_device_partition_property counts[] = {
        CL_DEVICE_PARTITION_BY_COUNTS, 1, P(root_cus - 1),
        CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
    REQUIRE_OK(split(root, counts, out, 64, &n));
    CHECK_EQ(n, 2);
    check_sub(out[0], root, 1, counts, 5);
    check_sub(out[1], root, root_cus - 1, counts, 5);
    release_all(out, n);
  }
  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  hwloc_topology_load(topo);
  static const struct {
    cl_device_affinity_domain d;
    hwloc_obj_type_t t;
  } levels[] = {{CL_DEVICE_AFFINITY_DOMAIN_NUMA, HWLOC_OBJ_NUMANODE},
                {CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE, HWLOC_OBJ_L4CACHE},
                {CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, HWLOC_OBJ_L3CACHE},
                {CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE, HWLOC_OBJ_L2CACHE},
                {CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE, HWLOC_OBJ_L1CACHE}};
  cl_device_affinity_domain next = 0;
  for (int i = 0; i < 5; i++) {
    unsigned g = level_groups(topo, levels[i].t, root_cus);
    test_domain(levels[i].d, g);
    if (!next && g >= 2)
      next = levels[i].d;
  }
  hwloc_topology_destroy(topo);
  /* NEXT_PARTITIONABLE takes the first level that splits, and says so in
   * CL_DEVICE_PARTITION_TYPE. */
  const cl_device_partition_property np[] = {
      CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
      CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0};
  cl_int err = split(root, np, out, 64, &n);
  if (!next) {
    CHECK_EQ(err, CL_DEVICE_PARTITION_FAILED);
    return;
  }
  CHECK_EQ(err, CL_SUCCESS);
  const cl_device_partition_property used[] = {
      CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, P(next), 0};
  for (cl_uint i = 0; err == CL_SUCCESS && i < n; i++)
    check_sub(out[i], root, dev_uint(out[i], CL_DEVICE_MAX_COMPUTE_UNITS),
              used, 3);
  if (err == CL_SUCCESS)
    release_all(out, n);
}

/* Splits `in` along NEXT_PARTITIONABLE and expects `count` sub-devices
 * of `cus` units each, made along `level`; returns the first in *first
 * (the others are released). */
static void next_level(cl_device_id in, cl_uint count, cl_uint cus,
                       cl_device_affinity_domain level,
                       cl_device_id *first) {
  cl_device_id out[32];
  cl_uint n = 0;
  const cl_device_partition_property np[] = {
      CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
      CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0};
  REQUIRE_OK(split(in, np, out, 32, &n));
  CHECK_EQ(n, count);
  const cl_device_partition_property used[] = {
      CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, P(level), 0};
  for (cl_uint i = 0; i < n; i++)
    check_sub(out[i], in, cus, used, 3);
  *first = out[0];
  release_all(out + 1, n - 1);
}

/* The fake machine: 2 packages x 2 NUMA nodes x 2 L3 x 2 L2 x 2 L1
 * (one core each). */
static void test_fake_partitions(void) {
  CHECK_EQ(root_cus, 32);
  CHECK_EQ(dev_domains(root),
           CL_DEVICE_AFFINITY_DOMAIN_NUMA |
               CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE |
               CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE |
               CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE |
               CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE);
  test_domain(CL_DEVICE_AFFINITY_DOMAIN_NUMA, 4);
  test_domain(CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE, 0);
  test_domain(CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, 8);
  test_domain(CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE, 16);
  test_domain(CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE, 32);
  /* Nested: NUMA, then L3, L2, L1 inside it, each the next level. */
  cl_device_id numa, l3, l2, l1;
  next_level(root, 4, 8, CL_DEVICE_AFFINITY_DOMAIN_NUMA, &numa);
  CHECK_EQ(dev_domains(numa), CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE |
                                  CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE |
                                  CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE |
                                  CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE);
  next_level(numa, 2, 4, CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE, &l3);
  next_level(l3, 2, 2, CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE, &l2);
  next_level(l2, 2, 1, CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE, &l1);
  cl_uint n;
  const cl_device_partition_property numa_p[] = {
      CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN, CL_DEVICE_AFFINITY_DOMAIN_NUMA,
      0};
  /* The level exists but holds the whole sub-device. */
  CHECK_EQ(clCreateSubDevices(l3, numa_p, 0, NULL, &n),
           CL_DEVICE_PARTITION_FAILED);
  const cl_device_partition_property np[] = {
      CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
      CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0};
  CHECK_EQ(clCreateSubDevices(l1, np, 0, NULL, &n),
           CL_DEVICE_PARTITION_FAILED);
  /* Equally and by counts inside a NUMA node: 8 units. */
  cl_device_id out[8];
  const cl_device_partition_property eq3[] = {CL_DEVICE_PARTITION_EQUALLY,
                                              3, 0};
  REQUIRE_OK(split(numa, eq3, out, 8, &n));
  CHECK_EQ(n, 2); /* 8 / 3: two units are left unused */
  check_sub(out[0], numa, 3, eq3, 3);
  check_sub(out[1], numa, 3, eq3, 3);
  release_all(out, n);
  const cl_device_partition_property by_counts[] = {
      CL_DEVICE_PARTITION_BY_COUNTS, 5, 2, 1,
      CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
  REQUIRE_OK(split(numa, by_counts, out, 8, &n));
  CHECK_EQ(n, 3);
  check_sub(out[0], numa, 5, by_counts, 6);
  check_sub(out[1], numa, 2, by_counts, 6);
  check_sub(out[2], numa, 1, by_counts, 6);
  release_all(out, n);
  const cl_device_partition_property over[] = {
      CL_DEVICE_PARTITION_BY_COUNTS, 5, 4,
      CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
  CHECK_EQ(clCreateSubDevices(numa, over, 0, NULL, &n),
           CL_INVALID_DEVICE_PARTITION_COUNT);
  /* The nested sub-devices keep their parents: releasing the parents'
   * last application references first is allowed. */
  release_all(&numa, 1);
  release_all(&l3, 1);
  release_all(&l2, 1);
  CHECK_EQ(dev_uint(l1, CL_DEVICE_MAX_COMPUTE_UNITS), 1);
  release_all(&l1, 1);
}

/* Reference counts: retain/release move a sub-device's count; a context
 * keeps its sub-devices alive after the application's release. */
static void test_refcounts(void) {
  if (root_cus < 2)
    return;
  CHECK_EQ(clRetainDevice(root), CL_SUCCESS);
  CHECK_EQ(clReleaseDevice(root), CL_SUCCESS);
  CHECK_EQ(dev_uint(root, CL_DEVICE_REFERENCE_COUNT), 1);
  CHECK_EQ(clRetainDevice(wrong_device), CL_INVALID_DEVICE);
  CHECK_EQ(clReleaseDevice(wrong_device), CL_INVALID_DEVICE);
  cl_device_id sub[2];
  cl_uint n;
  const cl_device_partition_property counts[] = {
      CL_DEVICE_PARTITION_BY_COUNTS, 1, 1,
      CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
  REQUIRE_OK(clCreateSubDevices(root, counts, 2, sub, &n));
  CHECK_EQ(clRetainDevice(sub[0]), CL_SUCCESS);
  CHECK_EQ(dev_uint(sub[0], CL_DEVICE_REFERENCE_COUNT), 2);
  CHECK_EQ(clReleaseDevice(sub[0]), CL_SUCCESS);
  CHECK_EQ(dev_uint(sub[0], CL_DEVICE_REFERENCE_COUNT), 1);
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 2, sub, NULL, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(dev_uint(sub[0], CL_DEVICE_REFERENCE_COUNT), 2);
  release_all(sub, 2);
  /* Still alive through the context. */
  CHECK_EQ(dev_uint(sub[1], CL_DEVICE_REFERENCE_COUNT), 1);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, sub[1], NULL,
                                                          &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clReleaseCommandQueue(q));
  REQUIRE_OK(clReleaseContext(ctx));
}

static const char *kernel_src =
    "kernel void where(global uint *cpu, global uint *data, uint spin) {\n"
    "  uint x = data[get_global_id(0)];\n"
    "  for (uint i = 0; i < spin; i++)\n"
    "    x = x * 1664525u + 1013904223u;\n"
    "  data[get_global_id(0)] = x;\n"
    "  if (get_local_id(0) == 0) {\n"
    "#ifdef __x86_64__\n"
    "    uint aux;\n"
    "    (void)__builtin_ia32_rdtscp(&aux);\n"
    "    cpu[get_group_id(0)] = aux & 0xfff;\n"
    "#else\n"
    "    cpu[get_group_id(0)] = 0xffffffffu;\n"
    "#endif\n"
    "  }\n"
    "}\n";

#define GROUPS 64
#define LOCAL 16
#define SPIN 20000

/* The host's result of `where` over one element. */
static cl_uint lcg(cl_uint x) {
  for (cl_uint i = 0; i < SPIN; i++)
    x = x * 1664525u + 1013904223u;
  return x;
}

/* Runs `where` on queue q; checks the data and returns in cpus[] the CPU
 * each group ran on. */
static void run_where(cl_context ctx, cl_command_queue q, cl_kernel k,
                      cl_uint *cpus) {
  cl_uint data[GROUPS * LOCAL], expect[GROUPS * LOCAL];
  for (int i = 0; i < GROUPS * LOCAL; i++) {
    data[i] = (cl_uint)test_rand();
    expect[i] = lcg(data[i]);
  }
  cl_int err;
  cl_mem cpu_buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE,
                                  sizeof(cl_uint) * GROUPS, NULL, &err);
  REQUIRE_OK(err);
  cl_mem data_buf = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof data,
                                   data, &err);
  REQUIRE_OK(err);
  cl_uint spin = SPIN;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof cpu_buf, &cpu_buf));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof data_buf, &data_buf));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof spin, &spin));
  size_t global = GROUPS * LOCAL, local = LOCAL;
  REQUIRE_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL,
                                    NULL));
  REQUIRE_OK(clEnqueueReadBuffer(q, cpu_buf, CL_TRUE, 0,
                                 sizeof(cl_uint) * GROUPS, cpus, 0, NULL,
                                 NULL));
  REQUIRE_OK(clEnqueueReadBuffer(q, data_buf, CL_TRUE, 0, sizeof data, data,
                                 0, NULL, NULL));
  int wrong = 0;
  for (int i = 0; i < GROUPS * LOCAL; i++)
    wrong += data[i] != expect[i];
  CHECK_EQ(wrong, 0);
  clReleaseMemObject(cpu_buf);
  clReleaseMemObject(data_buf);
}

/* The OS CPU of compute unit u's core (unit u runs on hwloc's core
 * u % cores; see scheduler/subset.c). */
static unsigned unit_cpu(hwloc_topology_t topo, unsigned u) {
  int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  hwloc_obj_t core =
      hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, u % (unsigned)ncores);
  return (unsigned)hwloc_bitmap_first(core->cpuset);
}

/* A context with the root and its sub-devices (the root listed twice:
 * duplicates are ignored); a program built for one sub-device; the
 * kernel on a queue of each. On the real machine, every group of a
 * sub-device's queue must have run on that sub-device's own CPUs. */
static void test_kernels(void) {
  cl_device_id devs[66];
  cl_uint n = 0;
  cl_uint subs = root_cus < 64 ? root_cus : 64;
  if (root_cus >= 2) {
    const cl_device_partition_property eq1[] = {CL_DEVICE_PARTITION_EQUALLY,
                                                1, 0};
    REQUIRE_OK(clCreateSubDevices(root, eq1, subs, devs, &n));
  }
  if (fake && n > 8) { /* enough, and quicker on 2 real cores */
    for (cl_uint i = 8; i < n; i++)
      REQUIRE_OK(clReleaseDevice(devs[i]));
    n = 8;
  }
  devs[n] = root;
  devs[n + 1] = root;
  cl_int err;
  cl_context ctx = clCreateContext(NULL, n + 2, devs, NULL, NULL, &err);
  REQUIRE_OK(err);
  cl_uint ndev = 0;
  REQUIRE_OK(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof ndev,
                              &ndev, NULL));
  CHECK_EQ(ndev, n + 1);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kernel_src, NULL,
                                              &err);
  REQUIRE_OK(err);
  /* Built for the first sub-device (or the root): one executable serves
   * every device of the context. */
  REQUIRE_OK(clBuildProgram(prog, 1, &devs[0], "", NULL, NULL));
  cl_uint pdevs = 0;
  REQUIRE_OK(clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof pdevs,
                              &pdevs, NULL));
  CHECK_EQ(pdevs, n + 1);
  size_t sizes[66] = {0};
  size_t size_ret = 0;
  REQUIRE_OK(clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof sizes,
                              sizes, &size_ret));
  CHECK_EQ(size_ret, (n + 1) * sizeof(size_t));
  for (cl_uint i = 0; i <= n; i++) {
    cl_build_status st = CL_BUILD_NONE;
    REQUIRE_OK(clGetProgramBuildInfo(prog, devs[i], CL_PROGRAM_BUILD_STATUS,
                                     sizeof st, &st, NULL));
    CHECK_EQ(st, CL_BUILD_SUCCESS);
    CHECK(sizes[i] > 0 && sizes[i] == sizes[0]);
  }
  cl_kernel k = clCreateKernel(prog, "where", &err);
  REQUIRE_OK(err);
  size_t wg = 0;
  /* A NULL device is ambiguous with several in the context. */
  CHECK_EQ(clGetKernelWorkGroupInfo(k, NULL, CL_KERNEL_WORK_GROUP_SIZE,
                                    sizeof wg, &wg, NULL),
           n ? CL_INVALID_DEVICE : CL_SUCCESS);
  REQUIRE_OK(clGetKernelWorkGroupInfo(k, devs[0], CL_KERNEL_WORK_GROUP_SIZE,
                                      sizeof wg, &wg, NULL));
  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  hwloc_topology_load(topo);
#ifdef __x86_64__
  bool check_cpu = !fake;
#else
  bool check_cpu = false;
#endif
  for (cl_uint d = 0; d <= n; d++) {
    cl_command_queue q =
        clCreateCommandQueueWithProperties(ctx, devs[d], NULL, &err);
    REQUIRE_OK(err);
    cl_uint cpus[GROUPS];
    run_where(ctx, q, k, cpus);
    if (check_cpu && d < n) {
      /* Sub-device d is compute unit d alone. */
      unsigned want = unit_cpu(topo, d);
      int elsewhere = 0;
      for (int g = 0; g < GROUPS; g++)
        elsewhere += cpus[g] != want;
      if (elsewhere)
        fprintf(stderr, "sub-device %u: %d of %d groups off CPU %u\n", d,
                elsewhere, GROUPS, want);
      CHECK_EQ(elsewhere, 0);
      printf("sub-device %u: %d of %d work-groups on CPU %u\n", d,
             GROUPS - elsewhere, GROUPS, want);
    } else if (check_cpu) {
      unsigned long seen = 0; /* the CPUs the root device used (< 64) */
      for (int g = 0; g < GROUPS; g++)
        seen |= cpus[g] < 64 ? 1ul << cpus[g] : 0;
      printf("root device: work-groups on CPU mask 0x%lx\n", seen);
    }
    REQUIRE_OK(clReleaseCommandQueue(q));
  }
  hwloc_topology_destroy(topo);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  REQUIRE_OK(clReleaseContext(ctx));
  release_all(devs, n);
}

static const char *enqueue_src =
    "kernel void parent(global uint *cpu) {\n"
    "  if (get_global_id(0) != 0)\n"
    "    return;\n"
    "  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT,\n"
    "                 ndrange_1D(64 * 16, 16), ^{\n"
    "    uint x = get_global_id(0);\n"
    "    for (int i = 0; i < 20000; i++)\n"
    "      x = x * 1664525u + 1013904223u;\n"
    "    if (get_local_id(0) == 0) {\n"
    "      uint aux;\n"
    "      (void)__builtin_ia32_rdtscp(&aux);\n"
    "      cpu[get_group_id(0)] = (aux & 0xfff) | (x & 0x80000000u);\n"
    "    }\n"
    "  });\n"
    "}\n";

/* Child kernels that a sub-device's kernel enqueues run on that
 * sub-device's cores too (the parent's host queue is on it). */
static void test_device_enqueue(void) {
#ifdef __x86_64__
  if (root_cus < 2 || fake)
    return;
  cl_device_id sub[2];
  cl_uint n;
  const cl_device_partition_property counts[] = {
      CL_DEVICE_PARTITION_BY_COUNTS, 1, 1,
      CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
  REQUIRE_OK(clCreateSubDevices(root, counts, 2, sub, &n));
  hwloc_topology_t topo;
  hwloc_topology_init(&topo);
  hwloc_topology_load(topo);
  for (cl_uint d = 0; d < 2; d++) {
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &sub[d], NULL, NULL, &err);
    REQUIRE_OK(err);
    const cl_queue_properties dq_props[] = {
        CL_QUEUE_PROPERTIES,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE |
            CL_QUEUE_ON_DEVICE_DEFAULT,
        0};
    cl_command_queue dq =
        clCreateCommandQueueWithProperties(ctx, sub[d], dq_props, &err);
    REQUIRE_OK(err);
    cl_command_queue q =
        clCreateCommandQueueWithProperties(ctx, sub[d], NULL, &err);
    REQUIRE_OK(err);
    cl_program prog =
        clCreateProgramWithSource(ctx, 1, &enqueue_src, NULL, &err);
    REQUIRE_OK(err);
    REQUIRE_OK(clBuildProgram(prog, 0, NULL, "-cl-std=CL2.0", NULL, NULL));
    cl_kernel k = clCreateKernel(prog, "parent", &err);
    REQUIRE_OK(err);
    cl_uint cpus[GROUPS];
    memset(cpus, 0xff, sizeof cpus);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof cpus, cpus,
                                &err);
    REQUIRE_OK(err);
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof buf, &buf));
    size_t global = 1;
    REQUIRE_OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL,
                                      NULL));
    REQUIRE_OK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof cpus, cpus, 0,
                                   NULL, NULL));
    unsigned want = unit_cpu(topo, d);
    int elsewhere = 0;
    for (int g = 0; g < GROUPS; g++)
      elsewhere += (cpus[g] & 0xfff) != want;
    CHECK_EQ(elsewhere, 0);
    printf("sub-device %u: %d of %d child work-groups on CPU %u\n", d,
           GROUPS - elsewhere, GROUPS, want);
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    REQUIRE_OK(clReleaseCommandQueue(q));
    REQUIRE_OK(clReleaseCommandQueue(dq));
    REQUIRE_OK(clReleaseContext(ctx));
  }
  hwloc_topology_destroy(topo);
  release_all(sub, 2);
#endif
}

int main(int argc, char **argv) {
  fake = argc > 1 && strcmp(argv[1], "--fake") == 0;
  test_env env;
  test_setup(&env);
  root = env.device;
  wrong_device = (cl_device_id)(void *)env.context;
  root_cus = dev_uint(root, CL_DEVICE_MAX_COMPUTE_UNITS);
  test_seed(0x5eb5);
  CHECK_EQ(dev_uint(root, CL_DEVICE_PARTITION_MAX_SUB_DEVICES), root_cus);
  cl_device_id parent = (cl_device_id)1;
  REQUIRE_OK(clGetDeviceInfo(root, CL_DEVICE_PARENT_DEVICE, sizeof parent,
                             &parent, NULL));
  CHECK(parent == NULL);
  size_t size = 1;
  REQUIRE_OK(clGetDeviceInfo(root, CL_DEVICE_PARTITION_TYPE, 0, NULL,
                             &size));
  CHECK_EQ(size, 0);
  test_errors();
  if (fake)
    test_fake_partitions();
  else
    test_real_partitions();
  test_refcounts();
  test_kernels();
  test_device_enqueue();
  test_teardown(&env);
  return test_finish(fake ? "sub-devices --fake" : "sub-devices");
}
