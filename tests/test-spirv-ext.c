/* This file tests the SPIR-V instructions that llvm-spirv 15 cannot
 * translate and Skein turns into calls of its library before the
 * translator runs (compiler/spirv_lower.c), from modules assembled at
 * build time (the .spvasm files of tests/spirv/), against host
 * references:
 *   - cl_khr_subgroup_named_barrier: named_barrier.spvasm, two named
 *     barriers of different counts, one waited on in three phases, data
 *     exchanged between sub-groups through local memory, in several
 *     work-group shapes (full and partial sub-groups);
 *   - cl_khr_kernel_clock: clock.spvasm, OpReadClockKHR at Device,
 *     Workgroup and Subgroup scope and in its two-32-bit-integer form, in
 *     program order and across launches;
 *   - cl_ext_float_atomics: float_atomics.spvasm, OpAtomicFAddEXT,
 *     OpAtomicFMinEXT and OpAtomicFMaxEXT on half, float and double in
 *     global, local and generic memory: exact sums of small integers,
 *     min/max that ignore NaN operands, and the values each returned;
 *     float_atomic_private.spvasm, one on private memory, fails the build.
 * An alarm turns a hang (a barrier that never opens) into a failure. */
#include "test_util.h"

#include <CL/cl_ext.h>
#include <stdbool.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>

/* cl_khr_spirv_queries (enums of its header, defined here). */
#define DEVICE_SPIRV_EXTENSIONS_KHR 0x12BA
#define DEVICE_SPIRV_CAPABILITIES_KHR 0x12BB

static test_env env;

/* The program of tests/spirv/<name>, built (exits on failure). */
static cl_program build_spv(const char *name) {
  return test_build_spirv_file(&env, SKEIN_SPIRV_TEST_DIR, name);
}

/* Whether the device lists extension ext at version (major, minor). */
static bool reports(const char *ext, unsigned major, unsigned minor) {
  char text[8192];
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof text,
                             text, NULL));
  size_t n = strlen(ext);
  bool in_string = false;
  for (const char *p = text; (p = strstr(p, ext)); p += n)
    in_string |= (p == text || p[-1] == ' ') && (p[n] == ' ' || !p[n]);
  cl_name_version v[128];
  size_t size;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS_WITH_VERSION,
                             sizeof v, v, &size));
  bool versioned = false;
  for (size_t i = 0; i < size / sizeof v[0]; i++)
    versioned |= strcmp(v[i].name, ext) == 0 &&
                 v[i].version == CL_MAKE_VERSION(major, minor, 0);
  CHECK(in_string == versioned);
  return in_string && versioned;
}

/* named_barrier.spvasm's result for work-item l of a group of n whose
 * inputs are in[0..n), with sub-groups of s. */
static uint32_t named_barrier_ref(const uint32_t *in, uint32_t n, uint32_t s,
                                  uint32_t l) {
  uint32_t nsg = (n + s - 1) / s;
  uint32_t y[256];
  for (uint32_t i = 0; i < n; i++) {
    uint32_t sg = i / s, x = in[(i + s) % n];
    y[i] = x;
    if (sg < 2 && nsg >= 2) {
      uint32_t p = sg == 0 ? i + s : i - s;
      y[i] = p < n ? in[(p + s) % n] * 3 + p / s + x : x + 7;
    }
  }
  return y[(l + 2 * s) % n] ^ (l / s) << 24;
}

static void test_named_barrier(void) {
  CHECK(reports("cl_khr_subgroup_named_barrier", 1, 0));
  cl_uint max = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_NAMED_BARRIER_COUNT_KHR,
                             sizeof max, &max, NULL));
  CHECK(max >= 8);
  cl_uint caps[64];
  size_t size;
  REQUIRE_OK(clGetDeviceInfo(env.device, DEVICE_SPIRV_CAPABILITIES_KHR,
                             sizeof caps, caps, &size));
  bool listed = false;
  for (size_t i = 0; i < size / sizeof caps[0]; i++)
    listed |= caps[i] == 59;   /* NamedBarrier */
  CHECK(listed);

  cl_program p = build_spv("named_barrier.spv");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "named_barrier", &err);
  REQUIRE_OK(err);
  /* The kernel's sub-group size: that of a group of 256, which is not
   * smaller than it. */
  size_t s = 0, big = 256;
  REQUIRE_OK(clGetKernelSubGroupInfo(k, env.device,
                                     CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                     sizeof big, &big, sizeof s, &s, NULL));
  CHECK(s >= 4 && s <= 64);
  /* One sub-group (the pair barrier is skipped), two, three, four; a
   * partial last sub-group; a partial second one; 200. */
  size_t shapes[] = {s, 2 * s, 3 * s, 4 * s, 3 * s + 5, 2 * s - 1, 200};
  enum { GROUPS = 3 };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    size_t local = shapes[i], global = local * GROUPS;
    if (local == 0 || local > 256)
      continue;
    uint32_t *in = malloc(global * 4), *out = malloc(global * 4);
    test_seed(0x5eed + i);
    for (size_t j = 0; j < global; j++)
      in[j] = (uint32_t)test_rand() & 0xffffff;
    cl_mem bufs[2] = {test_buffer(&env, global * 4, NULL),
                      test_buffer(&env, global * 4, in)};
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &bufs[0]));
    REQUIRE_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &bufs[1]));
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global,
                                      &local, 0, NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, bufs[0], CL_TRUE, 0,
                                   global * 4, out, 0, NULL, NULL));
    int bad = 0;
    for (size_t j = 0; j < global; j++) {
      size_t g = j / local;
      uint32_t want = named_barrier_ref(in + g * local, (uint32_t)local,
                                        (uint32_t)s, (uint32_t)(j % local));
      if (out[j] != want && bad++ < 4)
        fprintf(stderr, "named_barrier local %zu (sub-groups of %zu): "
                "item %zu is %08x, not %08x\n", local, s, j, out[j], want);
    }
    CHECK_EQ(bad, 0);
    test_release_buffers(bufs, 2);
    free(in);
    free(out);
  }
  clReleaseKernel(k);
  clReleaseProgram(p);
}

/* Whether the SPIR-V extension name and capability cap are listed by
 * cl_khr_spirv_queries. */
static bool spirv_lists(const char *name, cl_uint cap) {
  const char *names[64];
  size_t size;
  REQUIRE_OK(clGetDeviceInfo(env.device, DEVICE_SPIRV_EXTENSIONS_KHR,
                             sizeof names, names, &size));
  bool ext = false;
  for (size_t i = 0; i < size / sizeof names[0]; i++)
    ext |= strcmp(names[i], name) == 0;
  cl_uint caps[64];
  REQUIRE_OK(clGetDeviceInfo(env.device, DEVICE_SPIRV_CAPABILITIES_KHR,
                             sizeof caps, caps, &size));
  bool listed = false;
  for (size_t i = 0; i < size / sizeof caps[0]; i++)
    listed |= caps[i] == cap;
  return ext && listed;
}

/* Runs kernel k over global work-items in groups of local (0: Skein's
 * choice) and waits. */
static void run(cl_kernel k, size_t global, size_t local) {
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global,
                                    local ? &local : NULL, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
}

/* clock.spvasm twice: every work-item's five reads are non-zero and in
 * program order, whatever the scope, and every read of the second launch
 * comes after every read of the first (Device scope). */
static void test_kernel_clock(void) {
  CHECK(reports("cl_khr_kernel_clock", 1, 0));
  CHECK(spirv_lists("SPV_KHR_shader_clock", 5055 /* ShaderClockKHR */));
  cl_program p = build_spv("clock.spv");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "clock", &err);
  REQUIRE_OK(err);
  enum { N = 512 };
  cl_ulong *t = malloc(2 * N * 5 * sizeof *t);
  cl_mem buf = test_buffer(&env, N * 5 * sizeof *t, NULL);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof buf, &buf));
  for (int launch = 0; launch < 2; launch++) {
    run(k, N, launch ? 64 : 0);
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, buf, CL_TRUE, 0,
                                   N * 5 * sizeof *t, t + launch * N * 5, 0,
                                   NULL, NULL));
  }
  int bad = 0;
  cl_ulong first_max = 0, second_min = ~(cl_ulong)0;
  for (int i = 0; i < 2 * N; i++) {
    const cl_ulong *r = t + i * 5;
    bool ok = r[0] != 0;
    for (int j = 1; j < 5; j++)
      ok &= r[j - 1] <= r[j];
    if (!ok && bad++ < 4)
      fprintf(stderr, "clock: work-item %d read %llu %llu %llu %llu %llu\n",
              i % N, (unsigned long long)r[0], (unsigned long long)r[1],
              (unsigned long long)r[2], (unsigned long long)r[3],
              (unsigned long long)r[4]);
    if (i < N && r[4] > first_max)
      first_max = r[4];
    if (i >= N && r[0] < second_min)
      second_min = r[0];
  }
  CHECK_EQ(bad, 0);
  CHECK(first_max < second_min);
  clReleaseMemObject(buf);
  free(t);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

/* The host's view of one element of float_atomics.spvasm's type w. */
static double get(const void *base, size_t i, int w) {
  if (w == 16)
    return (double)((const _Float16 *)base)[i];
  if (w == 32)
    return ((const float *)base)[i];
  return ((const double *)base)[i];
}

static void put(void *base, size_t i, int w, double v) {
  if (w == 16)
    ((_Float16 *)base)[i] = (_Float16)v;
  else if (w == 32)
    ((float *)base)[i] = (float)v;
  else
    ((double *)base)[i] = v;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Checks the n values an atomic add on one object returned (old[]), with
 * the addends v[], the start and the final value: each old + addend is
 * another's old or the final value, so the olds sorted are the running
 * sums of some order of the adds. Every value is an integer, so the
 * sums are exact. */
static bool adds_chain(double *old, const double *v, size_t n, double start,
                       double final) {
  double *after = malloc((n + 1) * sizeof *after);
  double *before = malloc((n + 1) * sizeof *before);
  for (size_t i = 0; i < n; i++) {
    before[i] = old[i];
    after[i] = old[i] + v[i];
  }
  before[n] = final;
  after[n] = start;
  qsort(before, n + 1, sizeof *before, by_value);
  qsort(after, n + 1, sizeof *after, by_value);
  bool same = memcmp(before, after, (n + 1) * sizeof *after) == 0;
  free(before);
  free(after);
  return same;
}

/* float_atomics.spvasm: every type and space, 1024 work-items in groups
 * of 64 (the local kernels: 16 groups, each on its own 12 objects). */
static void test_float_atomics(void) {
  CHECK(reports("cl_ext_float_atomics", 1, 0));
  CHECK(spirv_lists("SPV_EXT_shader_atomic_float_add", 6033));
  CHECK(spirv_lists("SPV_EXT_shader_atomic_float_add", 6034));
  CHECK(spirv_lists("SPV_EXT_shader_atomic_float16_add", 6095));
  CHECK(spirv_lists("SPV_EXT_shader_atomic_float_min_max", 5612));
  CHECK(spirv_lists("SPV_EXT_shader_atomic_float_min_max", 5613));
  CHECK(spirv_lists("SPV_EXT_shader_atomic_float_min_max", 5616));
  cl_program p = build_spv("float_atomics.spv");
  enum { N = 1024, LOCAL = 64, GROUPS = N / LOCAL };
  static const int widths[] = {16, 32, 64};
  static const char *const spaces[] = {"global", "local", "generic"};
  double *add = malloc(N * sizeof *add), *mm = malloc(N * sizeof *mm);
  double *olds = malloc(N * sizeof *olds), *vals = malloc(N * sizeof *vals);
  test_seed(0xa70f);
  for (int i = 0; i < N; i++) {
    add[i] = (double)(int)(test_rand() % 7) - 3;
    /* Halves of integers below 900 in magnitude: exact in half. */
    mm[i] = (i % 37 == 5) ? NAN : ((double)(int)(test_rand() % 3601) -
                                   1800) / 2;
  }
  for (int t = 0; t < 3; t++) {
    int w = widths[t];
    size_t bytes = (size_t)w / 8;
    for (int s = 0; s < 3; s++) {
      bool local = s == 1;
      size_t sets = local ? GROUPS : 1;
      char name[32];
      snprintf(name, sizeof name, "fa_f%d_%s", w, spaces[s]);
      cl_int err;
      cl_kernel k = clCreateKernel(p, name, &err);
      REQUIRE_OK(err);
      char *obj = malloc(12 * sets * bytes), *in_add = malloc(N * bytes);
      char *in_mm = malloc(N * bytes), *old = malloc(3 * N * bytes);
      for (size_t j = 0; j < 12 * sets; j++)
        put(obj, j, w, j % 12 < 4 ? 0 : j % 12 < 8 ? 1000 : -1000);
      for (int i = 0; i < N; i++) {
        put(in_add, i, w, add[i]);
        put(in_mm, i, w, mm[i]);
      }
      cl_mem bufs[4] = {test_buffer(&env, 12 * sets * bytes, obj),
                        test_buffer(&env, N * bytes, in_add),
                        test_buffer(&env, N * bytes, in_mm),
                        test_buffer(&env, 3 * N * bytes, NULL)};
      for (cl_uint a = 0; a < 4; a++)
        REQUIRE_OK(clSetKernelArg(k, a, sizeof(cl_mem), &bufs[a]));
      run(k, N, LOCAL);
      REQUIRE_OK(clEnqueueReadBuffer(env.queue, bufs[0], CL_TRUE, 0,
                                     12 * sets * bytes, obj, 0, NULL, NULL));
      REQUIRE_OK(clEnqueueReadBuffer(env.queue, bufs[3], CL_TRUE, 0,
                                     3 * N * bytes, old, 0, NULL, NULL));
      int bad = 0;
      for (size_t set = 0; set < sets; set++) {
        size_t first = local ? set * LOCAL : 0;
        size_t count = local ? LOCAL : N;
        for (int o = 0; o < 4; o++) {
          /* The work-items on object o of this set. */
          size_t n = 0;
          double sum = 0, lo = 1000, hi = -1000;
          size_t *mine = malloc(count * sizeof *mine);
          for (size_t i = first; i < first + count; i++) {
            if (i % 4 != (size_t)o)
              continue;
            sum += add[i];
            if (!isnan(mm[i])) {
              lo = mm[i] < lo ? mm[i] : lo;
              hi = mm[i] > hi ? mm[i] : hi;
            }
            olds[n] = get(old, 3 * i, w);
            vals[n] = add[i];
            mine[n++] = i;
          }
          double got_add = get(obj, set * 12 + o, w);
          double got_min = get(obj, set * 12 + 4 + o, w);
          double got_max = get(obj, set * 12 + 8 + o, w);
          bool ok = got_add == sum && got_min == lo && got_max == hi &&
                    adds_chain(olds, vals, n, 0, sum);
          /* A min or max returns a value the object held: between the
           * start and the final value, never a NaN operand. */
          for (size_t j = 0; j < n; j++) {
            size_t i = mine[j];
            double omin = get(old, 3 * i + 1, w), omax = get(old, 3 * i + 2, w);
            ok &= omin <= 1000 && omin >= lo && omax >= -1000 && omax <= hi;
          }
          if (!ok && bad++ < 4)
            fprintf(stderr, "%s set %zu object %d: add %g (want %g), min "
                    "%g (%g), max %g (%g)\n", name, set, o, got_add, sum,
                    got_min, lo, got_max, hi);
          free(mine);
        }
      }
      CHECK_EQ(bad, 0);
      test_release_buffers(bufs, 4);
      free(obj);
      free(in_add);
      free(in_mm);
      free(old);
      clReleaseKernel(k);
    }
  }
  free(add);
  free(mm);
  free(olds);
  free(vals);
  clReleaseProgram(p);

  /* An atomic on private memory has no library function: the build
   * fails and says why. */
  size_t size;
  void *il = test_read_file(SKEIN_SPIRV_TEST_DIR, "float_atomic_private.spv",
                       &size);
  CHECK(il != NULL);
  if (il) {
    cl_int err;
    p = clCreateProgramWithIL(env.context, il, size, &err);
    REQUIRE_OK(err);
    CHECK_EQ(clBuildProgram(p, 1, &env.device, "", NULL, NULL),
             CL_BUILD_PROGRAM_FAILURE);
    static char log[4096];
    REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG,
                                     sizeof log, log, NULL));
    CHECK(strstr(log, "memory other than CrossWorkgroup") != NULL);
    clReleaseProgram(p);
    free(il);
  }
}

int main(void) {
  size_t size;
  void *probe = test_read_file(SKEIN_SPIRV_TEST_DIR, "named_barrier.spv", &size);
  if (!probe) {
    printf("skipped: no test SPIR-V (spirv-as missing at build time)\n");
    return 77;
  }
  free(probe);
  alarm(120);   /* a barrier that never opens fails, not hangs */
  test_setup(&env);
  test_named_barrier();
  test_kernel_clock();
  test_float_atomics();
  test_teardown(&env);
  return test_finish("spirv-ext");
}
