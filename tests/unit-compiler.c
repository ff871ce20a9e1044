/* This file contains the unit tests of compiler/: kernels built from
 * source are run group by group through their JIT-compiled work-group
 * functions with hand-filled launches (fiber mode through the
 * scheduler's hooks) and checked against host values; bad source, bad
 * options and bad binaries are refused. */
#include "../compiler/compiler.h"
#include "../compiler/compiler_internal.h"
#include "../scheduler/scheduler.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

static int failures;

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,     \
              #cond);                                                      \
      failures++;                                                          \
    }                                                                      \
  } while (0)

#define CHECK_EQ(a, b)                                                     \
  do {                                                                     \
    long long ca_ = (long long)(a), cb_ = (long long)(b);                  \
    if (ca_ != cb_) {                                                      \
      fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%lld vs %lld)\n", \
              __FILE__, __LINE__, #a, #b, ca_, cb_);                       \
      failures++;                                                          \
    }                                                                      \
  } while (0)

static const cc_device_caps caps = {
    "cl_khr_fp64 cl_khr_byte_addressable_store cl_khr_int64_base_atomics "
    "cl_khr_work_group_uniform_arithmetic",
    "__opencl_c_fp64 __opencl_c_int64 __opencl_c_images "
    "__opencl_c_program_scope_global_variables "
    "__opencl_c_work_group_collective_functions",
    300};

/* SKEIN_MODE=fiber runs every kernel in fiber mode: the checks that a
 * kernel is in loop mode then do not apply. */
static bool forced_fiber(void) {
  const char *mode = getenv("SKEIN_MODE");
  return mode && strcmp(mode, "fiber") == 0;
}

/* Builds source; on failure prints the log and exits (later checks would
 * only fail confusingly). Every kernel is made ready to launch, as
 * clCreateKernel does (a split build compiles kernels at first use). */
static cc_program *build(const char *src, const char *options) {
  cc_program *p = NULL;
  char *log = NULL;
  cc_status st = cc_build_source(src, strlen(src), options, &caps, &p, &log);
  if (st != CC_OK) {
    fprintf(stderr, "build failed (%d):\n%s\n", st, log ? log : "");
    exit(1);
  }
  free(log);
  for (unsigned i = 0; i < cc_program_num_kernels(p); i++)
    if (!cc_program_kernel_prepare(p, cc_program_kernel(p, i))) {
      fprintf(stderr, "kernel %u could not be compiled\n", i);
      exit(1);
    }
  return p;
}

/* Expects a build to fail with want and its log to contain needle. */
static void expect_failure(const char *src, const char *options,
                           cc_status want, const char *needle) {
  cc_program *p = NULL;
  char *log = NULL;
  cc_status st = cc_build_source(src, strlen(src), options, &caps, &p, &log);
  CHECK_EQ(st, want);
  CHECK(p == NULL);
  CHECK(log && strstr(log, needle));
  if (!log || !strstr(log, needle))
    fprintf(stderr, "  log lacks '%s':\n%s\n", needle, log ? log : "(null)");
  free(log);
}

/* Fills a launch like the runtime does: unused dimensions 1/0. */
static void set_launch(skein_launch *l, unsigned dim, const size_t *off,
                       const size_t *gs, const size_t *ls, void **args) {
  memset(l, 0, sizeof(*l));
  l->work_dim = dim;
  for (unsigned d = 0; d < 3; d++) {
    l->global_offset[d] = d < dim && off ? off[d] : 0;
    l->global_size[d] = d < dim ? gs[d] : 1;
    l->local_size[d] = d < dim ? ls[d] : 1;
    l->num_groups[d] = (l->global_size[d] + l->local_size[d] - 1) /
                       l->local_size[d];
  }
  l->args = (void *const *)args;
  l->hooks = sched_hooks();
}

/* Runs every group of the launch on this thread. */
static void run(const cc_kernel_info *k, const skein_launch *l,
                char *local_mem) {
  for (uint64_t z = 0; z < l->num_groups[2]; z++)
    for (uint64_t y = 0; y < l->num_groups[1]; y++)
      for (uint64_t x = 0; x < l->num_groups[0]; x++)
        k->wg(l, x, y, z, local_mem);
}

static const char vadd_src[] =
    "__kernel void vadd(__global const float *a, __global const float *b,\n"
    "                   __global float *c, float scale) {\n"
    "  size_t i = get_global_id(0);\n"
    "  c[i] = mad(a[i], scale, b[i]);\n"
    "}\n";

/* vadd over 1000 items in groups of 64 (the last one partial). */
static void run_vadd(const cc_program *p) {
  const cc_kernel_info *k = cc_program_find_kernel(p, "vadd");
  CHECK(k && cc_program_kernel_prepare(p, k));   /* compiled if lazy */
  CHECK(k && k->wg);
  if (!k || !k->wg)
    return;
  enum { N = 1000 };
  float a[N], b[N], c[N]; /* per thread: builds run concurrently */
  for (int i = 0; i < N; i++) {
    a[i] = (float)i * 0.5f;
    b[i] = (float)(N - i);
    c[i] = -1.0f;
  }
  float *pa = a, *pb = b, *pc = c, scale = 3.0f;
  void *args[4] = {&pa, &pb, &pc, &scale};
  size_t gs = N, ls = 64;
  skein_launch l;
  set_launch(&l, 1, NULL, &gs, &ls, args);
  run(k, &l, NULL);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += c[i] != a[i] * 3.0f + b[i];
  CHECK_EQ(bad, 0);
}

static void test_vadd(void) {
  cc_program *p = build(vadd_src, "-cl-kernel-arg-info");
  CHECK_EQ(cc_program_num_kernels(p), 1);
  const cc_kernel_info *k = cc_program_kernel(p, 0);
  CHECK(strcmp(k->name, "vadd") == 0);
  CHECK_EQ(k->num_args, 4);
  CHECK_EQ(k->args[0].kind, CC_ARG_GLOBAL);
  CHECK_EQ(k->args[3].kind, CC_ARG_VALUE);
  CHECK_EQ(k->args[3].size, 4);
  CHECK(strcmp(k->args[0].type_name, "float*") == 0);
  CHECK(k->args[0].name && strcmp(k->args[0].name, "a") == 0);
  CHECK_EQ(k->args[0].type_qualifier, 1 /* CL_KERNEL_ARG_TYPE_CONST */);
  CHECK(!k->uses_barriers || forced_fiber());
  run_vadd(p);
  cc_program_destroy(p);
  /* Argument names only with -cl-kernel-arg-info. */
  p = build(vadd_src, NULL);
  CHECK(cc_program_kernel(p, 0)->args[0].name == NULL);
  cc_program_destroy(p);
}

/* Every work-item builtin, 3D, with offsets and partial last groups. */
static const char ids_src[] =
    "__kernel void ids(__global ulong *out) {\n"
    "  size_t x = get_global_id(0) - get_global_offset(0);\n"
    "  size_t y = get_global_id(1) - get_global_offset(1);\n"
    "  size_t z = get_global_id(2) - get_global_offset(2);\n"
    "  __global ulong *o = out + 8 * get_global_linear_id();\n"
    "  o[0] = get_global_id(0) | get_global_id(1) << 16 |\n"
    "         get_global_id(2) << 32;\n"
    "  o[1] = get_local_id(0) | get_local_id(1) << 16 | get_local_id(2) << 32;\n"
    "  o[2] = get_group_id(0) | get_group_id(1) << 16 | get_group_id(2) << 32;\n"
    "  o[3] = get_local_size(0) | get_local_size(1) << 16 |\n"
    "         get_local_size(2) << 32;\n"
    "  o[4] = get_enqueued_local_size(0) | get_num_groups(1) << 16 |\n"
    "         (ulong)get_work_dim() << 32 | get_global_size(2) << 40;\n"
    "  o[5] = get_local_linear_id();\n"
    "  o[6] = get_global_id(3) | get_local_size(4) << 8 |\n"
    "         get_global_size(5) << 16 | get_num_groups(9) << 24 |\n"
    "         get_global_offset(3) << 32 | get_local_id(3) << 40;\n"
    "  o[7] = x + 100 * y + 10000 * z;\n"
    "}\n";

static uint64_t pack3(uint64_t a, uint64_t b, uint64_t c) {
  return a | b << 16 | c << 32;
}

/* Checks the record of work-item (x, y, z) (global ids minus offset). */
static int check_item(const uint64_t *o, const skein_launch *l, size_t x,
                      size_t y, size_t z) {
  size_t g[3] = {x, y, z}, lid[3], grp[3], lsz[3];
  for (int d = 0; d < 3; d++) {
    grp[d] = g[d] / l->local_size[d];
    lid[d] = g[d] % l->local_size[d];
    size_t rest = l->global_size[d] - grp[d] * l->local_size[d];
    lsz[d] = rest < l->local_size[d] ? rest : l->local_size[d];
  }
  const uint64_t *off = l->global_offset;
  uint64_t want[8] = {
      pack3(x + off[0], y + off[1], z + off[2]),
      pack3(lid[0], lid[1], lid[2]),
      pack3(grp[0], grp[1], grp[2]),
      pack3(lsz[0], lsz[1], lsz[2]),
      l->local_size[0] | l->num_groups[1] << 16 | 3ull << 32 |
          l->global_size[2] << 40,
      (lid[2] * lsz[1] + lid[1]) * lsz[0] + lid[0],
      0 | 1 << 8 | 1 << 16 | 1 << 24,
      x + 100 * y + 10000 * z};
  int bad = 0;
  for (int i = 0; i < 8; i++)
    if (o[i] != want[i]) {
      if (bad++ == 0)
        fprintf(stderr, "  item (%zu,%zu,%zu) field %d: %#llx, want %#llx\n",
                x, y, z, i, (unsigned long long)o[i],
                (unsigned long long)want[i]);
    }
  return bad;
}

static void test_ids_3d(void) {
  cc_program *p = build(ids_src, "-cl-std=CL3.0");
  const cc_kernel_info *k = cc_program_find_kernel(p, "ids");
  size_t gs[3] = {13, 7, 5}, ls[3] = {4, 3, 2}, off[3] = {100, 200, 300};
  size_t n = gs[0] * gs[1] * gs[2];
  uint64_t *out = calloc(n * 8, sizeof(uint64_t));
  void *args[1] = {&out};
  skein_launch l;
  set_launch(&l, 3, off, gs, ls, args);
  run(k, &l, NULL);
  int bad = 0;
  for (size_t z = 0; z < gs[2]; z++)
    for (size_t y = 0; y < gs[1]; y++)
      for (size_t x = 0; x < gs[0]; x++)
        bad += check_item(out + 8 * ((z * gs[1] + y) * gs[0] + x), &l, x, y,
                          z) != 0;
  CHECK_EQ(bad, 0);
  free(out);
  cc_program_destroy(p);
}

/* Kernel-scope __local variables and a __local argument share the
 * group's block: variables first, the argument at the offset given. */
static const char local_src[] =
    "typedef struct { int a; float b; } pair;\n"
    "__kernel void loc(__global int *out, __local int *arg, float4 v,\n"
    "                  pair s) {\n"
    "  __local int table[8];\n"
    "  __local short other[3];\n"
    "  size_t i = get_local_id(0);\n"
    "  table[i] = (int)i * 3;\n"
    "  other[i % 3] = 7;\n"
    "  arg[i] = (int)i + 1000;\n"
    "  out[get_global_id(0)] = table[i] + arg[i] + other[i % 3] +\n"
    "      (int)(v.x + v.y + v.z + v.w) + s.a + (int)s.b;\n"
    "}\n";

static void test_locals_and_values(void) {
  cc_program *p = build(local_src, NULL);
  const cc_kernel_info *k = cc_program_find_kernel(p, "loc");
  CHECK_EQ(k->args[1].kind, CC_ARG_LOCAL);
  CHECK_EQ(k->args[2].size, 16);
  CHECK_EQ(k->args[3].size, 8);
  CHECK(k->static_local_mem_size >= 8 * 4 + 3 * 2);
  int out[8];
  int *po = out;
  uint64_t arg_off = 128;
  float v[4] = {1, 2, 3, 4};
  struct { int a; float b; } s = {10, 20.0f};
  void *args[4] = {&po, &arg_off, v, &s};
  size_t gs = 8, ls = 8;
  skein_launch l;
  set_launch(&l, 1, NULL, &gs, &ls, args);
  _Alignas(128) static char local[256];
  memset(local, 0, sizeof(local));
  run(k, &l, local);
  int bad = 0;
  for (int i = 0; i < 8; i++)
    bad += out[i] != i * 3 + i + 1000 + 7 + 10 + 10 + 20;
  CHECK_EQ(bad, 0);
  /* The __local argument really lives at its offset in the block. */
  int at_arg[8];
  memcpy(at_arg, local + arg_off, sizeof(at_arg));
  for (int i = 0; i < 8; i++)
    CHECK_EQ(at_arg[i], i + 1000);
  /* So do the kernel-scope variables (the first one at offset 0). */
  int at_table[8];
  memcpy(at_table, local, sizeof(at_table));
  for (int i = 0; i < 8; i++)
    CHECK_EQ(at_table[i], i * 3);
  cc_program_destroy(p);
}

/* Program-scope __constant data and a helper function that reads
 * work-item state (inlined into the work-group function). */
static void test_program_scope(void) {
  cc_program *p = build(
      "__constant int tab[4] = {5, 6, 7, 8};\n"
      "int twice_gid(void) { return 2 * (int)get_global_id(0); }\n"
      "__kernel void k(__global int *o) {\n"
      "  o[get_global_id(0)] = tab[get_global_id(0) & 3] + twice_gid();\n"
      "}\n", NULL);
  int out[37], *po = out;
  void *args[1] = {&po};
  size_t gs = 37, ls = 5;
  skein_launch l;
  set_launch(&l, 1, NULL, &gs, &ls, args);
  run(cc_program_kernel(p, 0), &l, NULL);
  int bad = 0;
  for (int i = 0; i < 37; i++)
    bad += out[i] != 5 + (i & 3) + 2 * i;
  CHECK_EQ(bad, 0);
  cc_program_destroy(p);
}

static void test_refusals(void) {
  expect_failure("__kernel void k(__global int *p) {\n"
                 "  int x = 1;\n"
                 "  p[0] = x +;\n"
                 "}\n", NULL, CC_BUILD_FAILED, "input.cl:3:");
  /* A function nothing defines names itself instead of binding to libm
   * (the JIT would otherwise resolve cosf against the process). */
  expect_failure("float cosf(float);\n"
                 "__kernel void k(__global float *p) { p[0] = cosf(p[1]); }\n",
                 NULL, CC_BUILD_FAILED, "undefined function 'cosf'");
  expect_failure(vadd_src, "-cl-fancy-option", CC_INVALID_OPTIONS,
                 "-cl-fancy-option");
  expect_failure(vadd_src, "-cl-std=CL9.9", CC_INVALID_OPTIONS, "CL9.9");
  expect_failure(vadd_src, "-D", CC_INVALID_OPTIONS, "-D");
  /* Every option of the spec is accepted. */
  cc_program *p = build(
      "__kernel void k(__global float *p) { p[0] = N + M; }\n",
      "-D N=4 -DM=3.0f -I /tmp -I/tmp -w -Werror -cl-mad-enable "
      "-cl-no-signed-zeros -cl-unsafe-math-optimizations "
      "-cl-finite-math-only -cl-fast-relaxed-math -cl-denorms-are-zero "
      "-cl-single-precision-constant -cl-fp32-correctly-rounded-divide-sqrt "
      "-cl-kernel-arg-info -cl-uniform-work-group-size -cl-no-subgroup-ifp "
      "-g -cl-std=CL1.2 -cl-opt-disable");
  float f = 0, *pf = &f;
  void *args[1] = {&pf};
  size_t one = 1;
  skein_launch l;
  set_launch(&l, 1, NULL, &one, &one, args);
  run(cc_program_kernel(p, 0), &l, NULL);
  CHECK(f == 7.0f);
  cc_program_destroy(p);
}

/* clpeak's single-precision compute kernel: 256 dependent FMAs per
 * work-item; the loop over work-items must vectorise (SKEIN_DUMP=optimized
 * shows <16 x float> FMAs on AVX-512 hosts). */
static const char peak_src[] =
    "#define MAD_4(x, y) x = mad(y, x, y); y = mad(x, y, x); \\\n"
    "  x = mad(y, x, y); y = mad(x, y, x);\n"
    "#define MAD_16(x, y) MAD_4(x, y) MAD_4(x, y) MAD_4(x, y) MAD_4(x, y)\n"
    "#define MAD_64(x, y) MAD_16(x, y) MAD_16(x, y) MAD_16(x, y) "
    "MAD_16(x, y)\n"
    "__kernel void compute_sp_v1(__global float *ptr, float _A) {\n"
    "  float x = _A;\n"
    "  float y = (float)get_local_id(0);\n"
    "  MAD_64(x, y); MAD_64(x, y);\n"
    "  ptr[get_global_id(0)] = y;\n"
    "}\n"
    "/* The same with values that stay finite, to check the results. */\n"
    "__kernel void bounded(__global float *ptr, float _A, float _B) {\n"
    "  float x = _A;\n"
    "  float y = (float)get_local_id(0) * _B;\n"
    "  MAD_64(x, y); MAD_64(x, y);\n"
    "  ptr[get_global_id(0)] = y;\n"
    "}\n";

/* Host reference of the kernels above: 64 pairs of dependent FMAs. */
static float peak_ref(float x, float y) {
  for (int k = 0; k < 64; k++) {
    x = fmaf(y, x, y);
    y = fmaf(x, y, x);
  }
  return y;
}

static void test_peak(void) {
  cc_program *p = build(peak_src, NULL);
  enum { N = 1024, LS = 256 };
  static float out[N];
  float *po = out, a = 0.25f, b = -1.0f / 512;
  void *args[3] = {&po, &a, &b};
  size_t gs = N, ls = LS;
  skein_launch l;
  set_launch(&l, 1, NULL, &gs, &ls, args);
  run(cc_program_find_kernel(p, "bounded"), &l, NULL);
  int bad = 0, finite = 0;
  for (int i = 0; i < N; i++) {
    float y = peak_ref(a, (float)(i % LS) * b);
    bad += out[i] != y;
    finite += isfinite(y) && y != 0;
  }
  CHECK_EQ(bad, 0);
  CHECK(finite > N / 2);   /* the check compares real numbers */
  run(cc_program_find_kernel(p, "compute_sp_v1"), &l, NULL);
  bad = 0;
  for (int i = 0; i < N; i++) {
    float y = peak_ref(a, (float)(i % LS));
    bad += !(out[i] == y || (isnan(out[i]) && isnan(y)));
  }
  CHECK_EQ(bad, 0);
  cc_program_destroy(p);
}

static cc_status load(const unsigned char *bin, size_t size) {
  cc_program *p = NULL;
  char *log = NULL;
  cc_status st = cc_build_binary(bin, size, NULL, &caps, &p, &log);
  if (st == CC_OK)
    run_vadd(p);
  cc_program_destroy(p);
  free(log);
  return st;
}

static void test_binary(void) {
  cc_program *p = build(vadd_src, NULL);
  size_t size;
  const unsigned char *bin = cc_program_binary(p, &size);
  CHECK(bin && size > 64);
  CHECK_EQ(load(bin, size), CC_OK);
  unsigned char *copy = malloc(size);
  memcpy(copy, bin, size);
  copy[size / 2] ^= 0x40;                     /* a flipped bit */
  CHECK_EQ(load(copy, size), CC_INVALID_BINARY);
  memcpy(copy, bin, size);
  CHECK_EQ(load(copy, size - 9), CC_INVALID_BINARY);   /* truncated */
  CHECK_EQ(load(copy, 3), CC_INVALID_BINARY);
  copy[0] = 'X';                              /* bad magic */
  CHECK_EQ(load(copy, size), CC_INVALID_BINARY);
  free(copy);
  /* A well-formed container around bitcode that does not parse. */
  static const unsigned char junk[] = "BC\xc0\xde this is not bitcode";
  size_t jsize;
  unsigned char *j = cc_binary_pack(junk, sizeof(junk), "", &jsize);
  CHECK_EQ(load(j, jsize), CC_INVALID_BINARY);
  free(j);
  cc_program_destroy(p);
}

/* Fiber mode: which kernels get it, the spec's scan example through the
 * scheduler's hooks, a helper function reaching a collective. */
static const char scan_src[] =
    "int helper(int v) { return work_group_scan_exclusive_add(v); }\n"
    "__kernel void scan(__global const int *in, __global int *inc,\n"
    "                   __global int *exc) {\n"
    "  size_t i = get_global_id(0);\n"
    "  inc[i] = work_group_scan_inclusive_add(in[i]);\n"
    "  exc[i] = helper(in[i]);\n"
    "}\n"
    "__kernel void plain(__global int *p) { p[get_global_id(0)] += 1; }\n";

static void test_fiber_scan(void) {
  cc_program *p = build(scan_src, "-cl-std=CL2.0");
  const cc_kernel_info *k = cc_program_find_kernel(p, "scan");
  CHECK(k->uses_barriers);
  CHECK(k->private_mem_size < 4096);
  CHECK(!cc_program_find_kernel(p, "plain")->uses_barriers ||
        forced_fiber());
  static const int in[16] = {3, 1, 7, 0, 4, 1, 6, 3, 3, 1, 7, 0, 4, 1, 6, 3};
  static const int want_inc[8] = {3, 4, 11, 11, 15, 16, 22, 25};
  static const int want_exc[8] = {0, 3, 4, 11, 11, 15, 16, 22};
  int inc[16], exc[16];
  const int *pin = in;
  int *pinc = inc, *pexc = exc;
  void *args[3] = {&pin, &pinc, &pexc};
  size_t gs = 16, ls = 8;
  skein_launch l;
  set_launch(&l, 1, NULL, &gs, &ls, args);
  run(k, &l, NULL);
  for (int i = 0; i < 16; i++) {
    CHECK_EQ(inc[i], want_inc[i % 8]);
    CHECK_EQ(exc[i], want_exc[i % 8]);
  }
  cc_program_destroy(p);
}

/* A tree reduction in kernel-scope local memory with barriers in a loop,
 * 2D groups with a partial last group. */
static const char tree_src[] =
    "__kernel void tree(__global const int *in, __global int *out) {\n"
    "  __local int tmp[64];\n"
    "  size_t l = get_local_linear_id(), n = get_local_size(0) *\n"
    "      get_local_size(1);\n"
    "  size_t g = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
    "  tmp[l] = in[g];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = 64; s > 0; s >>= 1) {\n"
    "    if (l < s && l + s < n) tmp[l] += tmp[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  out[g] = tmp[0] + work_group_reduce_add(in[g]) * 1000;\n"
    "}\n";

static void test_fiber_tree(const char *options) {
  cc_program *p = build(tree_src, options);
  const cc_kernel_info *k = cc_program_find_kernel(p, "tree");
  CHECK(k->uses_barriers);
  CHECK(k->static_local_mem_size >= 64 * 4);
  enum { W = 20, H = 7 };
  int in[W * H], out[W * H];
  for (int i = 0; i < W * H; i++)
    in[i] = i * 7 % 13;
  const int *pin = in;
  int *pout = out;
  void *args[2] = {&pin, &pout};
  size_t gs[2] = {W, H}, ls[2] = {8, 4};
  skein_launch l;
  set_launch(&l, 2, NULL, gs, ls, args);
  _Alignas(64) static char local[4096];
  run(k, &l, local);
  int bad = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int sum = 0;
      for (int yy = y / 4 * 4; yy < y / 4 * 4 + 4 && yy < H; yy++)
        for (int xx = x / 8 * 8; xx < x / 8 * 8 + 8 && xx < W; xx++)
          sum += in[yy * W + xx];
      bad += out[y * W + x] != sum * 1001;
    }
  CHECK_EQ(bad, 0);
  cc_program_destroy(p);
}

/* SKEIN_MODE=fiber runs a barrier-free kernel as fibers, with the same
 * results; the uniform arithmetic declarations follow -cl-ext. */
static void test_fiber_forced(void) {
  setenv("SKEIN_MODE", "fiber", 1);
  cc_program *p = build(vadd_src, NULL);
  unsetenv("SKEIN_MODE");
  CHECK(cc_program_kernel(p, 0)->uses_barriers);
  run_vadd(p);
  cc_program_destroy(p);
  static const char mul_src[] =
      "__kernel void k(__global long *p) {\n"
      "  p[get_local_id(0)] = work_group_scan_inclusive_mul(p[8]) +\n"
      "      work_group_reduce_logical_xor((int)get_local_id(0) & 1);\n"
      "}\n";
  p = build(mul_src, "-cl-std=CL3.0");
  long v[9] = {0, 0, 0, 0, 0, 0, 0, 0, 3};
  long *pv = v;
  void *args[1] = {&pv};
  size_t gs = 4, ls = 4;
  skein_launch l;
  set_launch(&l, 1, NULL, &gs, &ls, args);
  run(cc_program_kernel(p, 0), &l, NULL);
  CHECK_EQ(v[0], 3);
  CHECK_EQ(v[3], 81);
  cc_program_destroy(p);
  /* A helper no kernel calls may still use barriers and ids. */
  p = build("void unused(__global int *p) {\n"
            "  p[get_local_id(0)] = 1;\n"
            "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
            "}\n"
            "__kernel void k(__global int *p) { p[0] = 2; }\n", NULL);
  CHECK(!cc_program_kernel(p, 0)->uses_barriers || forced_fiber());
  cc_program_destroy(p);
  expect_failure(mul_src, "-cl-std=CL3.0 "
                 "-cl-ext=-cl_khr_work_group_uniform_arithmetic",
                 CC_BUILD_FAILED, "work_group_scan_inclusive_mul");
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Several threads build and run at once (separate LLVM contexts). */
static void *build_thread(void *arg) {
  (void)arg;
  for (int i = 0; i < 3; i++) {
    cc_program *p = build(vadd_src, NULL);
    run_vadd(p);
    cc_program_destroy(p);
  }
  return NULL;
}

static void test_threads(void) {
  pthread_t t[3];
  for (int i = 0; i < 3; i++)
    pthread_create(&t[i], NULL, build_thread, NULL);
  for (int i = 0; i < 3; i++)
    pthread_join(t[i], NULL);
}

int main(void) {
  double t0 = now();
  cc_program *p = build(vadd_src, NULL);
  double t1 = now();
  cc_program_destroy(p);
  p = build(vadd_src, NULL);
  double t2 = now();
  cc_program_destroy(p);
  printf("build of vadd: cold %.1f ms, warm %.1f ms\n", (t1 - t0) * 1e3,
         (t2 - t1) * 1e3);
  test_vadd();
  test_ids_3d();
  test_locals_and_values();
  test_program_scope();
  test_refusals();
  test_binary();
  test_peak();
  test_threads();
  test_fiber_scan();
  test_fiber_tree("-cl-std=CL3.0");
  test_fiber_tree("-cl-std=CL3.0 -cl-opt-disable");
  test_fiber_forced();
  if (failures)
    fprintf(stderr, "%d check(s) failed\n", failures);
  else
    printf("all compiler checks passed\n");
  return failures != 0;
}
