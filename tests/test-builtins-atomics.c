/* This file tests the OpenCL C 1.x atomic functions (atomic_*) and the
 * atom_* functions of the cl_khr_{global,local}_int32_{base,extended}_atomics
 * and cl_khr_int64_{base,extended}_atomics extensions through the ICD
 * loader: contended counters from many work-groups, the tickets the
 * returned old values hand out (a permutation only if every update is
 * atomic), min/max/and/or/xor against a host reduction, compare-exchange
 * loops, local-memory atomics followed by a barrier, float and 64-bit
 * exchange chains, all with 64-bit values above 2^32. Each program is
 * built for CL1.2 and CL3.0, in the default mode and with SKEIN_MODE=fiber. */
#include "test_util.h"
#include <stdint.h>
#include <stdlib.h>

static test_env env;

enum { N = 1 << 20, GROUP = 64, NR = 1 << 16 };

static const char *const ext_names[] = {
  "cl_khr_global_int32_base_atomics", "cl_khr_global_int32_extended_atomics",
  "cl_khr_local_int32_base_atomics", "cl_khr_local_int32_extended_atomics",
  "cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics"};
enum { NEXT = sizeof(ext_names) / sizeof(ext_names[0]) };

static const char source[] =
  "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
  "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n"
  /* c: int counters, u: uint counters, l: long counters, t: tickets. */
  "kernel void counters(volatile global int *c, volatile global uint *u,\n"
  "                     volatile global long *l, global uint *t) {\n"
  "  uint i = (uint)get_global_id(0);\n"
  "  atomic_inc(&c[0]);\n"
  "  atomic_add(&c[1], (int)(i & 7));\n"
  "  atomic_sub(&c[2], 3);\n"
  "  atom_inc(&c[3]);\n"
  "  atom_dec(&c[4]);\n"
  "  atomic_dec(&u[0]);\n"
  "  atom_add(&u[1], i);\n"
  "  atom_sub(&u[2], i);\n"
  "  t[i] = atomic_inc(&u[3]);\n"
  "  atom_add(&l[0], ((long)i << 32) | 1);\n"
  "  atom_inc(&l[1]);\n"
  "  atom_dec(&l[2]);\n"
  "  atom_sub(&l[3], (long)i * 0x100000001L);\n"
  "}\n"
  /* a: NR ints, b: NR longs; r/ur/lr/ulr hold the reductions. */
  "kernel void reduce(global const int *a, global const long *b,\n"
  "                   volatile global int *r, volatile global uint *ur,\n"
  "                   volatile global long *lr, volatile global ulong *ulr) {\n"
  "  size_t i = get_global_id(0);\n"
  "  int x = a[i];\n"
  "  long y = b[i];\n"
  "  atomic_min(&r[0], x); atomic_max(&r[1], x);\n"
  "  atom_min(&r[2], x); atom_max(&r[3], x);\n"
  "  atomic_min(&ur[0], (uint)x); atomic_max(&ur[1], (uint)x);\n"
  "  atomic_and(&ur[2], (uint)x); atomic_or(&ur[3], (uint)x);\n"
  "  atomic_xor(&ur[4], (uint)x);\n"
  "  atom_and(&r[4], x); atom_or(&r[5], x); atom_xor(&r[6], x);\n"
  "  atom_min(&lr[0], y); atom_max(&lr[1], y);\n"
  "  atom_and(&lr[2], y); atom_or(&lr[3], y); atom_xor(&lr[4], y);\n"
  "  atom_min(&ulr[0], (ulong)y); atom_max(&ulr[1], (ulong)y);\n"
  "}\n"
  /* Compare-exchange increments: lock-free, so fibers cannot deadlock. */
  "kernel void cas(volatile global int *c, volatile global uint *u,\n"
  "                volatile global long *l) {\n"
  "  int old;\n"
  "  do { old = *c; } while (atomic_cmpxchg(c, old, old + 1) != old);\n"
  "  uint uo;\n"
  "  do { uo = u[0]; } while (atom_cmpxchg(u, uo, uo + 3u) != uo);\n"
  "  long lo;\n"
  "  do { lo = *l; } while (atom_cmpxchg(l, lo, lo + 0x200000001L) != lo);\n"
  "}\n"
  /* Exchange chains: the values read back plus the final value are the
   * initial value and every value written, each exactly once. */
  "kernel void xchg(volatile global float *f, global float *fo,\n"
  "                 volatile global long *l, global long *lo,\n"
  "                 volatile global uint *u, global uint *uo) {\n"
  "  uint i = (uint)get_global_id(0);\n"
  "  fo[i] = atomic_xchg(f, (float)i);\n"
  "  lo[i] = atom_xchg(l, ((long)i << 33) + 7);\n"
  "  uo[i] = atom_xchg(u, i);\n"
  "}\n"
  /* Per-group local counters, then a barrier; lid 0 publishes them. */
  "kernel void local_ops(global int *cnt, global uint *bits,\n"
  "                      global long *sum, global uint *tick,\n"
  "                      global float *fo, global int *mm) {\n"
  "  local int c, c2, mn, mx;\n"
  "  local uint b, x;\n"
  "  local long s;\n"
  "  local float f;\n"
  "  uint lid = (uint)get_local_id(0), g = (uint)get_group_id(0);\n"
  "  uint n = (uint)get_local_size(0);\n"
  "  if (lid == 0) {\n"
  "    c = 0; c2 = 0; b = 0; x = 0; s = 0x300000000L; f = -1.0f;\n"
  "    mn = 0x7fffffff; mx = -0x7fffffff - 1;\n"
  "  }\n"
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"
  "  tick[g * n + lid] = atomic_inc(&c);\n"
  "  int old;\n"
  "  do { old = c2; } while (atomic_cmpxchg(&c2, old, old + 2) != old);\n"
  "  atomic_or(&b, 1u << (lid & 31));\n"
  "  atom_xor(&x, lid * 2654435761u);\n"
  "  atom_add(&s, ((long)lid << 32) + 1);\n"
  "  fo[g * n + lid] = atomic_xchg(&f, (float)lid);\n"
  "  int v = (int)(lid * 7919u % 1000u) - (int)g;\n"
  "  atomic_min(&mn, v); atom_max(&mx, v);\n"
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"
  "  if (lid == 0) {\n"
  "    cnt[2 * g] = c; cnt[2 * g + 1] = c2;\n"
  "    bits[2 * g] = b; bits[2 * g + 1] = x;\n"
  "    sum[g] = s; fo[get_global_size(0) + g] = f;\n"
  "    mm[2 * g] = mn; mm[2 * g + 1] = mx;\n"
  "  }\n"
  "}\n"
  /* Never run: references every function of every type and address space,
   * so the build fails (naming it) if the library lacks one. */
  "#define OPS(P, p, T) (P##_add(p, (T)1) + P##_sub(p, (T)1) +\\\n"
  "  P##_xchg(p, (T)1) + P##_inc(p) + P##_dec(p) +\\\n"
  "  P##_cmpxchg(p, (T)1, (T)2) + P##_min(p, (T)1) + P##_max(p, (T)1) +\\\n"
  "  P##_and(p, (T)1) + P##_or(p, (T)1) + P##_xor(p, (T)1))\n"
  "#define SPACE(AS, i, u, l, ul, f) OPS(atomic, i, int) +\\\n"
  "  OPS(atomic, u, uint) + OPS(atom, i, int) + OPS(atom, u, uint) +\\\n"
  "  OPS(atom, l, long) + OPS(atom, ul, ulong) + atomic_xchg(f, 1.0f)\n"
  "kernel void every(volatile global int *gi, volatile global uint *gu,\n"
  "                  volatile global long *gl, volatile global ulong *gul,\n"
  "                  volatile global float *gf, global float *out) {\n"
  "  local int li; local uint lu; local long ll; local ulong lul;\n"
  "  local float lf;\n"
  "  out[0] = SPACE(global, gi, gu, gl, gul, gf) +\n"
  "           SPACE(local, &li, &lu, &ll, &lul, &lf);\n"
  "}\n";

/* A buffer initialised from host memory (or uninitialised if host NULL). */
static cl_mem buffer(size_t size, const void *host) {
  cl_int err;
  cl_mem m = clCreateBuffer(env.context,
                            CL_MEM_READ_WRITE |
                                (host ? CL_MEM_COPY_HOST_PTR : 0),
                            size, (void *)host, &err);
  REQUIRE_OK(err);
  return m;
}

static void read(cl_mem m, size_t size, void *host) {
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, size, host, 0,
                                 NULL, NULL));
}

/* Sets args[0..n) (all cl_mem) and runs k over global items in GROUPs. */
static void run(cl_kernel k, cl_mem *args, int n, size_t global) {
  for (int i = 0; i < n; i++)
    REQUIRE_OK(clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &args[i]));
  size_t local = GROUP;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
}

static cl_kernel kernel(cl_program p, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  return k;
}

/* Whether v[0..n) holds each of 0..n-1 exactly once. */
static int is_permutation(const uint32_t *v, size_t n) {
  unsigned char *seen = calloc(n, 1);
  int ok = seen != NULL;
  for (size_t i = 0; ok && i < n; i++) {
    ok = v[i] < n && !seen[v[i]];
    if (ok)
      seen[v[i]] = 1;
  }
  free(seen);
  return ok;
}

/* Contended counters: N work-items, every group on the same words. */
static void test_counters(cl_program p) {
  int32_t c[5] = {0, 0, 0, 5, 0};
  uint32_t u[4] = {0, 0, 0, 0};
  int64_t l[4] = {INT64_C(0x7ffffff0), INT64_C(0xffffffff) - N / 2,
                  INT64_C(0x100000000) + N / 2, 0};
  uint32_t *t = malloc(N * sizeof *t);
  REQUIRE_OK(t ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  cl_mem m[4] = {buffer(sizeof c, c), buffer(sizeof u, u),
                 buffer(sizeof l, l), buffer(N * sizeof *t, NULL)};
  cl_kernel k = kernel(p, "counters");
  run(k, m, 4, N);
  read(m[0], sizeof c, c);
  read(m[1], sizeof u, u);
  read(m[2], sizeof l, l);
  read(m[3], N * sizeof *t, t);
  uint64_t sum_i = (uint64_t)N * (N - 1) / 2, sum7 = (uint64_t)N / 8 * 28;
  CHECK_EQ(c[0], N);
  CHECK_EQ(c[1], (int64_t)sum7);
  CHECK_EQ(c[2], -3 * N);
  CHECK_EQ(c[3], N + 5);
  CHECK_EQ(c[4], -N);
  CHECK_EQ(u[0], (uint32_t)-N);
  CHECK_EQ(u[1], (uint32_t)sum_i);
  CHECK_EQ(u[2], (uint32_t)-sum_i);
  CHECK_EQ(u[3], N);
  CHECK(is_permutation(t, N));
  CHECK_EQ((uint64_t)l[0], INT64_C(0x7ffffff0) + (sum_i << 32) + N);
  CHECK_EQ(l[1], INT64_C(0xffffffff) + N / 2);
  CHECK_EQ(l[2], INT64_C(0x100000000) - N / 2);
  CHECK_EQ((uint64_t)l[3], (uint64_t)0 - sum_i * UINT64_C(0x100000001));
  test_release_buffers(m, 4);
  REQUIRE_OK(clReleaseKernel(k));
  free(t);
}

/* min/max/and/or/xor of NR random values (with the extremes) vs host. */
static void test_reduce(cl_program p) {
  static int32_t a[NR];
  static int64_t b[NR];
  for (int i = 0; i < NR; i++) {
    a[i] = (int32_t)((uint32_t)rand() << 16 ^ (uint32_t)rand());
    b[i] = (int64_t)((uint64_t)(uint32_t)a[i] << 31 ^ (uint64_t)rand() << 7 ^
                     (uint64_t)rand());
  }
  a[7] = INT32_MIN; a[9] = INT32_MAX; a[11] = -1;
  b[3] = INT64_MIN + 1; b[5] = INT64_MAX - 1; b[8] = -1;
  int32_t r[7] = {INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN, -1, 0, 0};
  uint32_t ur[5] = {UINT32_MAX, 0, UINT32_MAX, 0, 0x5a5a5a5a};
  int64_t lr[5] = {INT64_MAX, INT64_MIN, -1, 0, 0};
  uint64_t ulr[2] = {UINT64_MAX, 0};
  int32_t er[7]; uint32_t eur[5]; int64_t elr[5]; uint64_t eulr[2];
  memcpy(er, r, sizeof r); memcpy(eur, ur, sizeof ur);
  memcpy(elr, lr, sizeof lr); memcpy(eulr, ulr, sizeof ulr);
  for (int i = 0; i < NR; i++) {
    int32_t x = a[i]; uint32_t ux = (uint32_t)x; int64_t y = b[i];
    if (x < er[0]) er[0] = x;
    if (x > er[1]) er[1] = x;
    er[2] = er[0]; er[3] = er[1];
    er[4] &= x; er[5] |= x; er[6] ^= x;
    if (ux < eur[0]) eur[0] = ux;
    if (ux > eur[1]) eur[1] = ux;
    eur[2] &= ux; eur[3] |= ux; eur[4] ^= ux;
    if (y < elr[0]) elr[0] = y;
    if (y > elr[1]) elr[1] = y;
    elr[2] &= y; elr[3] |= y; elr[4] ^= y;
    if ((uint64_t)y < eulr[0]) eulr[0] = (uint64_t)y;
    if ((uint64_t)y > eulr[1]) eulr[1] = (uint64_t)y;
  }
  cl_mem m[6] = {buffer(sizeof a, a), buffer(sizeof b, b), buffer(sizeof r, r),
                 buffer(sizeof ur, ur), buffer(sizeof lr, lr),
                 buffer(sizeof ulr, ulr)};
  cl_kernel k = kernel(p, "reduce");
  run(k, m, 6, NR);
  read(m[2], sizeof r, r); read(m[3], sizeof ur, ur);
  read(m[4], sizeof lr, lr); read(m[5], sizeof ulr, ulr);
  for (int i = 0; i < 7; i++)
    CHECK_EQ(r[i], er[i]);
  for (int i = 0; i < 5; i++)
    CHECK_EQ(ur[i], eur[i]);
  for (int i = 0; i < 5; i++)
    CHECK_EQ(lr[i], elr[i]);
  for (int i = 0; i < 2; i++)
    CHECK(ulr[i] == eulr[i]);
  test_release_buffers(m, 6);
  REQUIRE_OK(clReleaseKernel(k));
}

/* Compare-exchange loops on int, uint (atom_) and long (above 2^32). */
static void test_cas(cl_program p) {
  int32_t c = -100;
  uint32_t u = 0xfffffff0u;
  int64_t l = INT64_C(0xfffffff0);
  cl_mem m[3] = {buffer(sizeof c, &c), buffer(sizeof u, &u),
                 buffer(sizeof l, &l)};
  cl_kernel k = kernel(p, "cas");
  run(k, m, 3, NR);
  read(m[0], sizeof c, &c); read(m[1], sizeof u, &u); read(m[2], sizeof l, &l);
  CHECK_EQ(c, NR - 100);
  CHECK_EQ(u, (uint32_t)(0xfffffff0u + 3u * NR));
  CHECK_EQ(l, INT64_C(0xfffffff0) + INT64_C(0x200000001) * NR);
  test_release_buffers(m, 3);
  REQUIRE_OK(clReleaseKernel(k));
}

/* Exchange chains of float, long (values above 2^32) and uint: the old
 * values plus the final one are {initial} and every written value once. */
static void test_xchg(cl_program p) {
  float f = -1.0f;
  int64_t l = -5;
  uint32_t u = NR;
  float *fo = malloc(NR * sizeof *fo);
  int64_t *lo = malloc(NR * sizeof *lo);
  uint32_t *uo = malloc((NR + 1) * sizeof *uo);
  uint32_t *idx = malloc((NR + 1) * sizeof *idx);
  REQUIRE_OK(fo && lo && uo && idx ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  cl_mem m[6] = {buffer(sizeof f, &f), buffer(NR * sizeof *fo, NULL),
                 buffer(sizeof l, &l), buffer(NR * sizeof *lo, NULL),
                 buffer(sizeof u, &u), buffer(NR * sizeof *uo, NULL)};
  cl_kernel k = kernel(p, "xchg");
  run(k, m, 6, NR);
  read(m[0], sizeof f, &f); read(m[1], NR * sizeof *fo, fo);
  read(m[2], sizeof l, &l); read(m[3], NR * sizeof *lo, lo);
  read(m[4], sizeof u, &u); read(m[5], NR * sizeof *uo, uo);
  /* Map every value to its writer's index (the initial value to NR). */
  int ok_f = 1, ok_l = 1;
  for (size_t i = 0; i <= NR; i++) {
    float v = i < NR ? fo[i] : f;
    ok_f &= v == -1.0f || (v >= 0 && v < NR && v == (float)(uint32_t)v);
    idx[i] = v == -1.0f ? NR : (uint32_t)v;
  }
  CHECK(ok_f && is_permutation(idx, NR + 1));
  for (size_t i = 0; i <= NR; i++) {
    int64_t v = i < NR ? lo[i] : l;
    int known = v == -5 || ((v & ((INT64_C(1) << 33) - 1)) == 7 && v > 0 &&
                            (v >> 33) < NR);
    ok_l &= known;
    idx[i] = v == -5 || !known ? NR : (uint32_t)(v >> 33);
  }
  CHECK(ok_l && is_permutation(idx, NR + 1));
  uo[NR] = u;
  CHECK(is_permutation(uo, NR + 1));
  test_release_buffers(m, 6);
  REQUIRE_OK(clReleaseKernel(k));
  free(fo); free(lo); free(uo); free(idx);
}

/* Local atomics per group (NR / GROUP groups), checked after a barrier. */
static void test_local(cl_program p) {
  enum { G = NR / GROUP };
  int32_t *cnt = malloc(2 * G * sizeof *cnt);
  uint32_t *bits = malloc(2 * G * sizeof *bits);
  int64_t *sum = malloc(G * sizeof *sum);
  uint32_t *tick = malloc(NR * sizeof *tick);
  float *fo = malloc((NR + G) * sizeof *fo);
  int32_t *mm = malloc(2 * G * sizeof *mm);
  REQUIRE_OK(cnt && bits && sum && tick && fo && mm ? CL_SUCCESS
                                                    : CL_OUT_OF_HOST_MEMORY);
  cl_mem m[6] = {buffer(2 * G * sizeof *cnt, NULL),
                 buffer(2 * G * sizeof *bits, NULL),
                 buffer(G * sizeof *sum, NULL), buffer(NR * sizeof *tick, NULL),
                 buffer((NR + G) * sizeof *fo, NULL),
                 buffer(2 * G * sizeof *mm, NULL)};
  cl_kernel k = kernel(p, "local_ops");
  run(k, m, 6, NR);
  read(m[0], 2 * G * sizeof *cnt, cnt); read(m[1], 2 * G * sizeof *bits, bits);
  read(m[2], G * sizeof *sum, sum); read(m[3], NR * sizeof *tick, tick);
  read(m[4], (NR + G) * sizeof *fo, fo); read(m[5], 2 * G * sizeof *mm, mm);
  uint32_t x = 0;
  int mn = 1000, mx = -1;
  for (uint32_t lid = 0; lid < GROUP; lid++) {
    x ^= lid * 2654435761u;
    int v = (int)(lid * 7919u % 1000u);
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
  }
  int bad = 0;
  uint32_t idx[GROUP + 1];
  for (int g = 0; g < G && bad < 5; g++) {
    int before = test_failures;
    CHECK_EQ(cnt[2 * g], GROUP);
    CHECK_EQ(cnt[2 * g + 1], 2 * GROUP);
    CHECK_EQ(bits[2 * g], GROUP >= 32 ? 0xffffffffu : (1u << GROUP) - 1);
    CHECK_EQ(bits[2 * g + 1], x);
    CHECK_EQ(sum[g], INT64_C(0x300000000) +
                         ((int64_t)GROUP * (GROUP - 1) / 2 << 32) + GROUP);
    CHECK(is_permutation(tick + g * GROUP, GROUP));
    for (int i = 0; i <= GROUP; i++) {
      float v = i < GROUP ? fo[g * GROUP + i] : fo[NR + g];
      idx[i] = v == -1.0f ? GROUP : v >= 0 && v < GROUP ? (uint32_t)v
                                                        : GROUP + 1;
    }
    CHECK(is_permutation(idx, GROUP + 1));
    CHECK_EQ(mm[2 * g], mn - g);
    CHECK_EQ(mm[2 * g + 1], mx - g);
    bad += test_failures != before;
  }
  test_release_buffers(m, 6);
  REQUIRE_OK(clReleaseKernel(k));
  free(cnt); free(bits); free(sum); free(tick); free(fo); free(mm);
}

/* The -cl-ext option enabling the extensions the device does not report
 * (so the atom_* declarations exist), with -cl-std=std. */
static void options_for(const char *std, char *opts, size_t size) {
  char ext[4096] = "";
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof ext,
                             ext, NULL));
  int n = snprintf(opts, size, "-cl-std=%s", std);
  const char *sep = " -cl-ext=";
  for (int i = 0; i < NEXT; i++) {
    if (strstr(ext, ext_names[i]))
      continue;
    n += snprintf(opts + n, size - (size_t)n, "%s+%s", sep, ext_names[i]);
    sep = ",";
  }
}

int main(void) {
  test_setup(&env);
  static const char *const stds[] = {"CL1.2", "CL3.0"};
  static const char *const modes[] = {NULL, "fiber"};
  for (int mode = 0; mode < 2; mode++) {
    for (int s = 0; s < 2; s++) {
      if (modes[mode])
        setenv("SKEIN_MODE", modes[mode], 1);
      else
        unsetenv("SKEIN_MODE");
      char opts[512];
      options_for(stds[s], opts, sizeof opts);
      cl_program p = test_build(&env, source, opts);
      unsetenv("SKEIN_MODE");
      int before = test_failures;
      test_counters(p);
      test_reduce(p);
      test_cas(p);
      test_xchg(p);
      test_local(p);
      printf("%s, mode %s (%s): %s\n", stds[s],
             modes[mode] ? modes[mode] : "default", opts,
             test_failures == before ? "ok" : "FAILED");
      REQUIRE_OK(clReleaseProgram(p));
    }
  }
  test_teardown(&env);
  return test_finish("builtins-atomics");
}
