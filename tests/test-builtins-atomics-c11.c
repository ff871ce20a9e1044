/* This file tests the OpenCL C 2.0/3.0 C11-style atomics (atomic_init,
 * atomic_load/store/exchange, atomic_compare_exchange_strong/weak,
 * atomic_fetch_<op>, atomic_flag_*, each in its default, order-only and
 * order+scope form) through the ICD loader: contended global and local
 * counters of int/uint/long/ulong with every memory order and scope given
 * as run-time kernel arguments, compare-exchange loops implementing float
 * and double addition, exchange chains, an atomic_flag spin lock between
 * work-groups, a local atomic_flag claimed once per group, and
 * release/acquire message passing between work-groups. Every kernel runs
 * in the default modes (loop, region for barrier kernels) and in fiber
 * mode; a CL2.0 build checks the generic-pointer overloads. */
#include "test_util.h"
#include <stdint.h>
#include <stdlib.h>

static test_env env;

enum { NF = 1 << 14, GROUP = 64, NG = NF / GROUP, NOPS = 11, NMP = 1 << 12 };

/* Orders and scopes as OpenCL C numbers them (C11's __ATOMIC_* values and
 * Clang's __OPENCL_MEMORY_SCOPE_*): relaxed, acquire, release, acq_rel,
 * seq_cst; work_group, device, all_svm_devices. */
static const int orders[] = {0, 2, 3, 4, 5};
static const int scopes[] = {1, 2, 3};

/* The fetch kernels for one atomic type. Work-item i applies in[i] (and
 * andv[i]) to the shared words c[0..NOPS): add, sub, or, xor, and, min,
 * max, a ticket counter, an exchange chain, a strong and a weak CAS-loop
 * add. Forms alternate with i % 3 (default, order only, order + scope)
 * so one launch covers all three; the order and scope come from the
 * host. The local variant does the same per group on local atomics
 * (atomic_init, barrier, operations, barrier, lid 0 copies out), and
 * also bumps a global counter from inside the barrier kernel. */
#define FETCH_KERNELS(A, T)                                                  \
  "#define A " #A "\n#define T " #T "\n"                                     \
  "kernel void fetch_" #T "(volatile global A *c, global const T *in,\n"     \
  "    global const T *andv, global T *tick, global T *xo, int o, int s) {\n"\
  "  OPS(c, get_global_id(0))\n"                                             \
  "}\n"                                                                      \
  "kernel void local_" #T "(global T *out, global const T *in,\n"            \
  "    global const T *andv, global T *tick, global T *xo, int o, int s,\n"  \
  "    volatile global atomic_uint *total) {\n"                              \
  "  local A c[NOPS];\n"                                                     \
  "  size_t lid = get_local_id(0), g = get_group_id(0);\n"                   \
  "  if (lid < NOPS)\n"                                                      \
  "    atomic_init(&c[lid], init_of(lid));\n"                                \
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"                                        \
  "  OPS(c, get_global_id(0))\n"                                             \
  "  atomic_fetch_add_explicit(total, 1u, memory_order_relaxed);\n"          \
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"                                        \
  "  if (lid < NOPS)\n"                                                      \
  "    out[g * NOPS + lid] = atomic_load_explicit(&c[lid],\n"                \
  "        memory_order_relaxed, memory_scope_work_group);\n"                \
  "}\n"                                                                      \
  "#undef A\n#undef T\n"

static const char source[] =
  "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
  "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n"
  "#define NOPS 11\n"
  /* The initial value of word j, for local atomics (host mirrors it):
   * all ones for and, T's maximum for min, its minimum for max. */
  "#define TMAX ((T)-1 < (T)0 ?\\\n"
  "    (T)(~(T)0 ^ (T)((ulong)1 << (sizeof(T) * 8 - 1))) : (T)~(T)0)\n"
  "#define init_of(j) ((j) == 4 ? (T)~(T)0 : (j) == 5 ? TMAX :\\\n"
  "    (j) == 6 ? (T)~TMAX : (T)0)\n"
  /* Wrapping addition (signed overflow is undefined in OpenCL C). */
  "#define WADD(a, b) ((T)((ulong)(a) + (ulong)(b)))\n"
  /* FORM(name, p, args...): the default, order-only or order+scope form. */
  "#define FORM(F, p, ...) (f == 0 ? F(p, __VA_ARGS__) :\\\n"
  "    f == 1 ? F##_explicit(p, __VA_ARGS__, (memory_order)o) :\\\n"
  "    F##_explicit(p, __VA_ARGS__, (memory_order)o, (memory_scope)s))\n"
  /* The failure order of a CAS: no stronger than o, never release. */
  "#define FAIL(o) ((o) == 5 ? memory_order_seq_cst :\\\n"
  "    (o) == 2 || (o) == 4 ? memory_order_acquire : memory_order_relaxed)\n"
  "#define CAS(KIND, p, e, d) (f == 0 ?\\\n"
  "    atomic_compare_exchange_##KIND(p, e, d) : f == 1 ?\\\n"
  "    atomic_compare_exchange_##KIND##_explicit(p, e, d, (memory_order)o,\\\n"
  "        FAIL(o)) :\\\n"
  "    atomic_compare_exchange_##KIND##_explicit(p, e, d, (memory_order)o,\\\n"
  "        FAIL(o), (memory_scope)s))\n"
  "#define OPS(c, gid) {\\\n"
  "  size_t i = gid; int f = (int)(i % 3); T x = in[i];\\\n"
  "  FORM(atomic_fetch_add, &c[0], x);\\\n"
  "  FORM(atomic_fetch_sub, &c[1], x);\\\n"
  "  FORM(atomic_fetch_or, &c[2], x);\\\n"
  "  FORM(atomic_fetch_xor, &c[3], x);\\\n"
  "  FORM(atomic_fetch_and, &c[4], andv[i]);\\\n"
  "  FORM(atomic_fetch_min, &c[5], x);\\\n"
  "  FORM(atomic_fetch_max, &c[6], x);\\\n"
  "  tick[i] = FORM(atomic_fetch_add, &c[7], (T)1);\\\n"
  "  xo[i] = FORM(atomic_exchange, &c[8], (T)(i + 1));\\\n"
  "  T e = atomic_load_explicit(&c[9], memory_order_relaxed);\\\n"
  "  while (!CAS(strong, &c[9], &e, WADD(e, x))) {}\\\n"
  "  e = atomic_load(&c[10]);\\\n"
  "  while (!CAS(weak, &c[10], &e, WADD(e, x))) {}\\\n"
  "}\n"
  FETCH_KERNELS(atomic_int, int)
  FETCH_KERNELS(atomic_uint, uint)
  FETCH_KERNELS(atomic_long, long)
  FETCH_KERNELS(atomic_ulong, ulong)
  /* Float and double addition by compare-exchange (weak for float, strong
   * for double), plus exchange chains of both and atomic_store/init. */
  "kernel void fp(volatile global atomic_float *fs,\n"
  "               volatile global atomic_double *ds, global const int *in,\n"
  "               global float *fo, global double *dox, int o, int s) {\n"
  "  size_t i = get_global_id(0);\n"
  "  float v = (float)in[i];\n"
  "  float e = atomic_load_explicit(&fs[0], memory_order_relaxed);\n"
  "  while (!atomic_compare_exchange_weak_explicit(&fs[0], &e, e + v,\n"
  "      (memory_order)o, FAIL(o), (memory_scope)s)) {}\n"
  "  double de = atomic_load(&ds[0]);\n"
  "  while (!atomic_compare_exchange_strong(&ds[0], &de, de + v)) {}\n"
  "  fo[i] = atomic_exchange_explicit(&fs[1], (float)i, (memory_order)o);\n"
  "  dox[i] = atomic_exchange(&ds[1], (double)i * 0x1p40);\n"
  "  if (i == 0) {\n"
  "    atomic_store_explicit(&fs[2], -2.5f, memory_order_release);\n"
  "    atomic_store(&ds[2], -0x1.8p-1000);\n"
  "  }\n"
  "}\n"
  /* A spin lock on a global atomic_flag taken by one work-item per group
   * (a lock between work-items of one group could deadlock), guarding a
   * non-atomic read-modify-write of three words. */
  "kernel void lock(volatile global atomic_flag *flag,\n"
  "                 global uint *plain, global ulong *wide) {\n"
  "  if (get_local_id(0) != 0)\n"
  "    return;\n"
  "  uint g = (uint)get_group_id(0);\n"
  "  if (g & 1)\n"
  "    while (atomic_flag_test_and_set_explicit(flag, memory_order_acquire,\n"
  "                                              memory_scope_device)) {}\n"
  "  else\n"
  "    while (atomic_flag_test_and_set(flag)) {}\n"
  "  uint v = plain[0];\n"
  "  wide[0] += (ulong)g << 32 | 1;\n"
  "  plain[1] += g * g;\n"
  "  plain[0] = v + 1;\n"
  "  if (g & 1)\n"
  "    atomic_flag_clear_explicit(flag, memory_order_release);\n"
  "  else\n"
  "    atomic_flag_clear(flag);\n"
  "}\n"
  /* A local flag: after clearing it, exactly one test_and_set per group
   * sees it clear (no one waits, so no deadlock in any mode). */
  "kernel void local_flag(global uint *winners, global uint *who) {\n"
  "  local atomic_flag fl;\n"
  "  local atomic_uint n;\n"
  "  size_t lid = get_local_id(0), g = get_group_id(0);\n"
  "  if (lid == 0) {\n"
  "    atomic_flag_clear_explicit(&fl, memory_order_relaxed,\n"
  "                               memory_scope_work_group);\n"
  "    atomic_init(&n, 0u);\n"
  "  }\n"
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"
  "  if (!atomic_flag_test_and_set_explicit(&fl, memory_order_acq_rel,\n"
  "                                         memory_scope_work_group)) {\n"
  "    atomic_fetch_add(&n, 1u);\n"
  "    who[g] = (uint)lid;\n"
  "  }\n"
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"
  "  if (lid == 0)\n"
  "    winners[g] = atomic_load(&n);\n"
  "}\n"
  /* Message passing: item i writes four words, then publishes flag[i]
   * with store order so; it then reads the flag of item i - d (an item
   * of another group) with load order lo and, if set, checks its words. */
  "kernel void mp(global uint *data, volatile global atomic_uint *flag,\n"
  "               volatile global atomic_uint *res, int so, int lo,\n"
  "               uint d) {\n"
  "  uint i = (uint)get_global_id(0);\n"
  "  for (uint k = 0; k < 4; k++)\n"
  "    data[4 * i + k] = i * 2654435761u + k;\n"
  "  atomic_store_explicit(&flag[i], i + 1u, (memory_order)so,\n"
  "                        memory_scope_device);\n"
  "  if (i < d)\n"
  "    return;\n"
  "  uint j = i - d;\n"
  "  if (atomic_load_explicit(&flag[j], (memory_order)lo) != j + 1u)\n"
  "    return;\n"
  "  atomic_fetch_add_explicit(&res[0], 1u, memory_order_relaxed);\n"
  "  for (uint k = 0; k < 4; k++)\n"
  "    if (data[4 * j + k] != j * 2654435761u + k)\n"
  "      atomic_fetch_add(&res[1], 1u);\n"
  "}\n"
  /* Atomics inside a counted loop (the work-item loop around it must not
   * be vectorised as an outer loop): a ticket counter and an exchange
   * chain each item keeps passing on. */
  "kernel void inner(volatile global atomic_uint *cnt,\n"
  "                  volatile global atomic_uint *x, global uint *old) {\n"
  "  uint i = (uint)get_global_id(0);\n"
  "  for (int k = 0; k < 8; k++)\n"
  "    atomic_fetch_add_explicit(cnt, 1u, memory_order_relaxed);\n"
  "  old[i] = atomic_exchange_explicit(x, i + 1u, memory_order_relaxed,\n"
  "                                    memory_scope_work_group);\n"
  "  for (int k = 0; k < 100; k++)\n"
  "    old[i] = atomic_exchange(x, old[i]);\n"
  "}\n"
  /* Never run: references every function of every type, address space
   * and form, so the build fails (naming it) if the library lacks one. */
  "#define LSX(p, T) atomic_init(p, (T)1); atomic_store(p, (T)1);\\\n"
  "  atomic_store_explicit(p, (T)1, memory_order_release);\\\n"
  "  atomic_store_explicit(p, (T)1, memory_order_relaxed,\\\n"
  "                        memory_scope_work_group);\\\n"
  "  r += atomic_load(p) + atomic_exchange(p, (T)1) +\\\n"
  "  atomic_load_explicit(p, memory_order_acquire) +\\\n"
  "  atomic_load_explicit(p, memory_order_relaxed, memory_scope_device) +\\\n"
  "  atomic_exchange_explicit(p, (T)1, memory_order_acq_rel) +\\\n"
  "  atomic_exchange_explicit(p, (T)1, memory_order_relaxed,\\\n"
  "                           memory_scope_all_devices);\n"
  "#define CX(K, p, e, T) r += atomic_compare_exchange_##K(p, e, (T)1) +\\\n"
  "  atomic_compare_exchange_##K##_explicit(p, e, (T)1,\\\n"
  "      memory_order_acq_rel, memory_order_acquire) +\\\n"
  "  atomic_compare_exchange_##K##_explicit(p, e, (T)1,\\\n"
  "      memory_order_relaxed, memory_order_relaxed, memory_scope_device);\n"
  "#define CXS(p, T, ge, le) { T pe = (T)0;\\\n"
  "  CX(strong, p, ge, T) CX(strong, p, le, T) CX(strong, p, &pe, T)\\\n"
  "  CX(weak, p, ge, T) CX(weak, p, le, T) CX(weak, p, &pe, T) }\n"
  "#define F1(op, p, v) r += atomic_fetch_##op(p, v) +\\\n"
  "  atomic_fetch_##op##_explicit(p, v, memory_order_relaxed) +\\\n"
  "  atomic_fetch_##op##_explicit(p, v, memory_order_seq_cst,\\\n"
  "                               memory_scope_device);\n"
  "#define INT(A, T, AS, i) { volatile AS A *p = (volatile AS A *)i;\\\n"
  "  LSX(p, T) CXS(p, T, (global T *)ge, (local T *)le)\\\n"
  "  F1(add, p, (T)1) F1(sub, p, (T)1) F1(or, p, (T)1) F1(xor, p, (T)1)\\\n"
  "  F1(and, p, (T)1) F1(min, p, (T)1) F1(max, p, (T)1) }\n"
  "#define FP(A, T, AS, i) { volatile AS A *p = (volatile AS A *)i;\\\n"
  "  LSX(p, T) CXS(p, T, (global T *)ge, (local T *)le) }\n"
  "#define PTR(A, AS, i) { volatile AS A *p = (volatile AS A *)i;\\\n"
  "  F1(add, p, (ptrdiff_t)1) F1(sub, p, (ptrdiff_t)1) }\n"
  "#define FLAG(AS, i) { volatile AS atomic_flag *p =\\\n"
  "  (volatile AS atomic_flag *)i; r += atomic_flag_test_and_set(p) +\\\n"
  "  atomic_flag_test_and_set_explicit(p, memory_order_acquire) +\\\n"
  "  atomic_flag_test_and_set_explicit(p, memory_order_relaxed,\\\n"
  "                                    memory_scope_work_group);\\\n"
  "  atomic_flag_clear(p);\\\n"
  "  atomic_flag_clear_explicit(p, memory_order_release);\\\n"
  "  atomic_flag_clear_explicit(p, memory_order_seq_cst,\\\n"
  "                             memory_scope_all_svm_devices); }\n"
  "#define SPACE(AS, i) INT(atomic_int, int, AS, i)\\\n"
  "  INT(atomic_uint, uint, AS, i) INT(atomic_long, long, AS, i)\\\n"
  "  INT(atomic_ulong, ulong, AS, i) FP(atomic_float, float, AS, i)\\\n"
  "  FP(atomic_double, double, AS, i) PTR(atomic_intptr_t, AS, i)\\\n"
  "  PTR(atomic_uintptr_t, AS, i) PTR(atomic_size_t, AS, i)\\\n"
  "  PTR(atomic_ptrdiff_t, AS, i) FLAG(AS, i)\n"
  "kernel void every(global long *gi, global long *ge, global double *out) {\n"
  "  local long li[2], le[2];\n"
  "  double r = 0;\n"
  "  SPACE(global, gi) SPACE(local, li)\n"
  "  out[0] = r;\n"
  "}\n"
  /* The feature macros and enumerators the device's features promise. */
  "kernel void features(global int *out) {\n"
  "  int f = 0;\n"
  "#ifdef __opencl_c_atomic_order_acq_rel\n"
  "  f |= 1;\n"
  "#endif\n"
  "#ifdef __opencl_c_atomic_order_seq_cst\n"
  "  f |= 2;\n"
  "#endif\n"
  "#ifdef __opencl_c_atomic_scope_device\n"
  "  f |= 4;\n"
  "#endif\n"
  "#ifdef __opencl_c_atomic_scope_all_devices\n"
  "  f |= 8;\n"
  "#endif\n"
  "  out[0] = f;\n"
  "  out[1] = memory_order_seq_cst + 10 * memory_scope_all_devices +\n"
  "           100 * memory_scope_all_svm_devices;\n"
  "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst,\n"
  "                         memory_scope_all_devices);\n"
  "}\n";

/* A CL2.0 program: the generic-pointer overloads, through a helper that
 * takes generic pointers to global and local atomics. */
static const char source20[] =
  "void bump(volatile atomic_int *p, atomic_long *q, int v) {\n"
  "  atomic_fetch_add(p, v);\n"
  "  atomic_fetch_max_explicit(q, (long)v << 33, memory_order_acq_rel,\n"
  "                            memory_scope_device);\n"
  "  int e = atomic_load(p);\n"
  "  while (!atomic_compare_exchange_weak(p, &e, e + 1)) {}\n"
  "}\n"
  "kernel void gen(volatile global atomic_int *c, global atomic_long *m,\n"
  "                global int *out) {\n"
  "  local atomic_int lc;\n"
  "  local atomic_long lm;\n"
  "  if (get_local_id(0) == 0) {\n"
  "    atomic_init(&lc, 0);\n"
  "    atomic_init(&lm, 0);\n"
  "  }\n"
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"
  "  int v = (int)get_global_id(0);\n"
  "  bump(c, m, v);\n"
  "  bump(&lc, &lm, v);\n"
  "  barrier(CLK_LOCAL_MEM_FENCE);\n"
  "  if (get_local_id(0) == 0) {\n"
  "    out[2 * get_group_id(0)] = atomic_load(&lc);\n"
  "    out[2 * get_group_id(0) + 1] = (int)(atomic_load(&lm) >> 33);\n"
  "  }\n"
  "}\n";

/* One integer type of the fetch kernels, values held as uint64_t. */
typedef struct itype {
  const char *name;
  unsigned bits;
  int is_signed;
} itype;

static const itype itypes[] = {
  {"int", 32, 1}, {"uint", 32, 0}, {"long", 64, 1}, {"ulong", 64, 0}};

static uint64_t mask_of(const itype *t) {
  return t->bits == 64 ? UINT64_MAX : (UINT64_C(1) << t->bits) - 1;
}

/* v (already masked) as a signed or unsigned number, for min/max. */
static int less(const itype *t, uint64_t a, uint64_t b) {
  if (!t->is_signed)
    return a < b;
  unsigned sh = 64 - t->bits;
  return (int64_t)(a << sh) >> sh < (int64_t)(b << sh) >> sh;
}

static uint64_t tmax(const itype *t) {
  return t->is_signed ? mask_of(t) >> 1 : mask_of(t);
}

/* The initial value of word j (the kernels' init_of). */
static uint64_t init_of(const itype *t, int j) {
  return j == 4 ? mask_of(t) : j == 5 ? tmax(t)
       : j == 6 ? ~tmax(t) & mask_of(t) : 0;
}

static uint64_t rand64(void) {
  return (uint64_t)rand() << 42 ^ (uint64_t)rand() << 21 ^ (uint64_t)rand();
}

/* Element k of a buffer of bits-wide integers. */
static uint64_t get(const void *buf, size_t k, const itype *t) {
  if (t->bits == 32)
    return ((const uint32_t *)buf)[k];
  return ((const uint64_t *)buf)[k];
}

static void put(void *buf, size_t k, const itype *t, uint64_t v) {
  if (t->bits == 32)
    ((uint32_t *)buf)[k] = (uint32_t)v;
  else
    ((uint64_t *)buf)[k] = v;
}

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

static cl_kernel kernel(cl_program p, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  return k;
}

/* Sets argument i of k to the n bytes at v. */
static void arg(cl_kernel k, cl_uint i, size_t n, const void *v) {
  REQUIRE_OK(clSetKernelArg(k, i, n, v));
}

/* Runs k over global items in groups of local, and waits. */
static void run(cl_kernel k, size_t global, size_t local) {
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
}

/* Whether v[0..n) holds each of 0..n-1 exactly once. */
static int is_permutation(const uint64_t *v, size_t n) {
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

/* The inputs of the fetch kernels: in (random, with the type's edge
 * values at the start), andv (all ones but a few single bits). */
typedef struct fetch_data {
  void *in, *andv;
} fetch_data;

static void make_inputs(const itype *t, fetch_data *d) {
  size_t size = t->bits / 8;
  d->in = malloc(NF * size);
  d->andv = malloc(NF * size);
  REQUIRE_OK(d->in && d->andv ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  uint64_t m = mask_of(t);
  const uint64_t edges[] = {0, 1, m, tmax(t), ~tmax(t) & m, tmax(t) - 1,
                            (~tmax(t) + 1) & m};
  for (size_t i = 0; i < NF; i++) {
    uint64_t v = rand64() & m;
    if (i % 1000 < sizeof edges / sizeof edges[0])
      v = edges[i % 1000];
    put(d->in, i, t, v);
    uint64_t a = m;
    if (rand() % 32 == 0)
      a &= ~(UINT64_C(1) << (rand() % (t->bits - 2)));
    put(d->andv, i, t, a);
  }
}

/* Expected words 0..6, 9, 10 after applying items [lo, hi). */
static void expect_words(const itype *t, const fetch_data *d, size_t lo,
                         size_t hi, uint64_t *w) {
  uint64_t m = mask_of(t);
  for (int j = 0; j < NOPS; j++)
    w[j] = init_of(t, j);
  for (size_t i = lo; i < hi; i++) {
    uint64_t x = get(d->in, i, t);
    w[0] = (w[0] + x) & m;
    w[1] = (w[1] - x) & m;
    w[2] |= x;
    w[3] ^= x;
    w[4] &= get(d->andv, i, t);
    if (less(t, x, w[5]))
      w[5] = x;
    if (less(t, w[6], x))
      w[6] = x;
  }
  w[9] = w[10] = w[0];
}

/* Checks one group's (or the whole range's) words, tickets and exchange
 * chain: items [lo, hi) ran on words w; their old values are tick and xo
 * (xo's values are 0 or item + 1). Returns whether all matched. */
static int check_range(const itype *t, const fetch_data *d, size_t lo,
                       size_t hi, const void *words, size_t wbase,
                       const void *tick, const void *xo) {
  uint64_t w[NOPS];
  expect_words(t, d, lo, hi, w);
  int before = test_failures;
  size_t n = hi - lo;
  for (int j = 0; j < NOPS; j++) {
    uint64_t got = get(words, wbase + (size_t)j, t);
    if (j == 7)
      CHECK_EQ(got, n);
    else if (j != 8 && got != w[j]) {
      fprintf(stderr, "%s word %d items [%zu,%zu): got %#llx want %#llx\n",
              t->name, j, lo, hi, (unsigned long long)got,
              (unsigned long long)w[j]);
      test_failures++;
    }
  }
  uint64_t *v = malloc((n + 1) * sizeof *v);
  REQUIRE_OK(v ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  for (size_t i = 0; i < n; i++)
    v[i] = get(tick, lo + i, t);
  CHECK(is_permutation(v, n));
  for (size_t i = 0; i <= n; i++) {
    uint64_t x = i < n ? get(xo, lo + i, t) : get(words, wbase + 8, t);
    v[i] = x == 0 ? 0 : x - lo;   /* item lo + k wrote lo + k + 1 */
  }
  CHECK(is_permutation(v, n + 1));
  free(v);
  return test_failures == before;
}

/* The global fetch kernel of type t with order o and scope s. */
static void test_fetch_global(cl_program p, const itype *t,
                              const fetch_data *d, int o, int s) {
  size_t size = t->bits / 8;
  uint8_t words[NOPS * 8];
  for (int j = 0; j < NOPS; j++)
    put(words, (size_t)j, t, init_of(t, j));
  void *tick = malloc(NF * size), *xo = malloc(NF * size);
  REQUIRE_OK(tick && xo ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  cl_mem m[5] = {buffer(NOPS * size, words), buffer(NF * size, d->in),
                 buffer(NF * size, d->andv), buffer(NF * size, NULL),
                 buffer(NF * size, NULL)};
  char name[32];
  snprintf(name, sizeof name, "fetch_%s", t->name);
  cl_kernel k = kernel(p, name);
  for (cl_uint i = 0; i < 5; i++)
    arg(k, i, sizeof(cl_mem), &m[i]);
  arg(k, 5, sizeof o, &o);
  arg(k, 6, sizeof s, &s);
  run(k, NF, GROUP);
  read(m[0], NOPS * size, words);
  read(m[3], NF * size, tick);
  read(m[4], NF * size, xo);
  if (!check_range(t, d, 0, NF, words, 0, tick, xo))
    fprintf(stderr, "  global %s, order %d scope %d\n", t->name, o, s);
  test_release_buffers(m, 5);
  REQUIRE_OK(clReleaseKernel(k));
  free(tick);
  free(xo);
}

/* The local (barrier) fetch kernel: per-group words, plus a global
 * counter every item bumps. */
static void test_fetch_local(cl_program p, const itype *t,
                             const fetch_data *d, int o, int s) {
  size_t size = t->bits / 8;
  void *out = malloc(NG * NOPS * size), *tick = malloc(NF * size),
       *xo = malloc(NF * size);
  REQUIRE_OK(out && tick && xo ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  uint32_t total = 0;
  cl_mem m[6] = {buffer(NG * NOPS * size, NULL), buffer(NF * size, d->in),
                 buffer(NF * size, d->andv), buffer(NF * size, NULL),
                 buffer(NF * size, NULL), buffer(sizeof total, &total)};
  char name[32];
  snprintf(name, sizeof name, "local_%s", t->name);
  cl_kernel k = kernel(p, name);
  for (cl_uint i = 0; i < 5; i++)
    arg(k, i, sizeof(cl_mem), &m[i]);
  arg(k, 5, sizeof o, &o);
  arg(k, 6, sizeof s, &s);
  arg(k, 7, sizeof(cl_mem), &m[5]);
  run(k, NF, GROUP);
  read(m[0], NG * NOPS * size, out);
  read(m[3], NF * size, tick);
  read(m[4], NF * size, xo);
  read(m[5], sizeof total, &total);
  CHECK_EQ(total, NF);
  int bad = 0;
  for (size_t g = 0; g < NG && bad < 3; g++)
    bad += !check_range(t, d, g * GROUP, (g + 1) * GROUP, out, g * NOPS,
                        tick, xo);
  if (bad)
    fprintf(stderr, "  local %s, order %d scope %d\n", t->name, o, s);
  test_release_buffers(m, 6);
  REQUIRE_OK(clReleaseKernel(k));
  free(out);
  free(tick);
  free(xo);
}

/* Every type, order and scope (scopes cycle with the orders). */
static void test_fetch(cl_program p) {
  for (size_t ti = 0; ti < sizeof itypes / sizeof itypes[0]; ti++) {
    fetch_data d;
    make_inputs(&itypes[ti], &d);
    for (int k = 0; k < 5; k++) {
      test_fetch_global(p, &itypes[ti], &d, orders[k], scopes[k % 3]);
      test_fetch_local(p, &itypes[ti], &d, orders[k], scopes[(k + 1) % 3]);
    }
    free(d.in);
    free(d.andv);
  }
}

/* Float/double CAS-loop sums (small integers: exact in any order), the
 * exchange chains, and the stores of item 0. */
static void test_fp(cl_program p, int o, int s) {
  float fs[3] = {0.5f, -1.0f, 0};
  double ds[3] = {-0.25, -1.0, 0};
  int32_t *in = malloc(NF * sizeof *in);
  float *fo = malloc(NF * sizeof *fo);
  double *dox = malloc(NF * sizeof *dox);
  uint64_t *idx = malloc((NF + 1) * sizeof *idx);
  REQUIRE_OK(in && fo && dox && idx ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  long sum = 0;
  for (size_t i = 0; i < NF; i++)
    sum += in[i] = rand() % 31 - 15;
  cl_mem m[5] = {buffer(sizeof fs, fs), buffer(sizeof ds, ds),
                 buffer(NF * sizeof *in, in), buffer(NF * sizeof *fo, NULL),
                 buffer(NF * sizeof *dox, NULL)};
  cl_kernel k = kernel(p, "fp");
  for (cl_uint i = 0; i < 5; i++)
    arg(k, i, sizeof(cl_mem), &m[i]);
  arg(k, 5, sizeof o, &o);
  arg(k, 6, sizeof s, &s);
  run(k, NF, GROUP);
  read(m[0], sizeof fs, fs);
  read(m[1], sizeof ds, ds);
  read(m[3], NF * sizeof *fo, fo);
  read(m[4], NF * sizeof *dox, dox);
  CHECK(fs[0] == 0.5f + (float)sum);
  CHECK(ds[0] == -0.25 + (double)sum);
  CHECK(fs[2] == -2.5f);
  CHECK(ds[2] == -0x1.8p-1000);
  for (size_t i = 0; i <= NF; i++) {
    float v = i < NF ? fo[i] : fs[1];
    idx[i] = v == -1.0f ? NF : v >= 0 && v < NF ? (uint64_t)v : NF + 1;
  }
  CHECK(is_permutation(idx, NF + 1));
  for (size_t i = 0; i <= NF; i++) {
    double v = (i < NF ? dox[i] : ds[1]) * 0x1p-40;
    idx[i] = v == -0x1p-40 ? NF : v >= 0 && v < NF ? (uint64_t)v : NF + 1;
  }
  CHECK(is_permutation(idx, NF + 1));
  test_release_buffers(m, 5);
  REQUIRE_OK(clReleaseKernel(k));
  free(in); free(fo); free(dox); free(idx);
}

/* The spin lock: one taker per group, 16-item groups for many takers. */
static void test_lock(cl_program p) {
  enum { LG = 16, NL = NF / LG };
  int32_t flag = 0;
  uint32_t plain[2] = {0, 0};
  uint64_t wide = 0;
  cl_mem m[3] = {buffer(sizeof flag, &flag), buffer(sizeof plain, plain),
                 buffer(sizeof wide, &wide)};
  cl_kernel k = kernel(p, "lock");
  for (cl_uint i = 0; i < 3; i++)
    arg(k, i, sizeof(cl_mem), &m[i]);
  run(k, NF, LG);
  read(m[0], sizeof flag, &flag);
  read(m[1], sizeof plain, plain);
  read(m[2], sizeof wide, &wide);
  uint32_t squares = 0;
  uint64_t sum = 0;
  for (uint32_t g = 0; g < NL; g++) {
    squares += g * g;
    sum += g;
  }
  CHECK_EQ(flag, 0);
  CHECK_EQ(plain[0], NL);
  CHECK_EQ(plain[1], squares);
  CHECK(wide == (sum << 32 | NL));
  test_release_buffers(m, 3);
  REQUIRE_OK(clReleaseKernel(k));
}

/* The local flag: exactly one winner per group. */
static void test_local_flag(cl_program p) {
  uint32_t win[NG], who[NG];
  cl_mem m[2] = {buffer(sizeof win, NULL), buffer(sizeof who, NULL)};
  cl_kernel k = kernel(p, "local_flag");
  for (cl_uint i = 0; i < 2; i++)
    arg(k, i, sizeof(cl_mem), &m[i]);
  run(k, NF, GROUP);
  read(m[0], sizeof win, win);
  read(m[1], sizeof who, who);
  int bad = 0;
  for (int g = 0; g < NG; g++)
    bad += win[g] != 1 || who[g] >= GROUP;
  CHECK_EQ(bad, 0);
  test_release_buffers(m, 2);
  REQUIRE_OK(clReleaseKernel(k));
}

/* Message passing with store order so and load order lo over distance
 * d: every message seen complete, and some seen at all. */
static void test_mp(cl_program p, int so, int lo, uint32_t d) {
  uint32_t res[2] = {0, 0};
  cl_mem m[3] = {buffer(4 * NMP * sizeof(uint32_t), NULL),
                 buffer(NMP * sizeof(uint32_t), NULL),
                 buffer(sizeof res, res)};
  uint32_t zero = 0;
  REQUIRE_OK(clEnqueueFillBuffer(env.queue, m[1], &zero, sizeof zero, 0,
                                 NMP * sizeof(uint32_t), 0, NULL, NULL));
  cl_kernel k = kernel(p, "mp");
  for (cl_uint i = 0; i < 3; i++)
    arg(k, i, sizeof(cl_mem), &m[i]);
  arg(k, 3, sizeof so, &so);
  arg(k, 4, sizeof lo, &lo);
  arg(k, 5, sizeof d, &d);
  run(k, NMP, GROUP);
  read(m[2], sizeof res, res);
  CHECK(res[0] > 0 && res[0] <= NMP - d);
  CHECK_EQ(res[1], 0);
  test_release_buffers(m, 3);
  REQUIRE_OK(clReleaseKernel(k));
}

/* Atomics in a counted inner loop: exact count, intact exchange chain. */
static void test_inner(cl_program p) {
  uint32_t cnt = 0, x = 0;
  uint32_t *old = malloc(NF * sizeof *old);
  uint64_t *v = malloc((NF + 1) * sizeof *v);
  REQUIRE_OK(old && v ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  cl_mem m[3] = {buffer(sizeof cnt, &cnt), buffer(sizeof x, &x),
                 buffer(NF * sizeof *old, NULL)};
  cl_kernel k = kernel(p, "inner");
  for (cl_uint i = 0; i < 3; i++)
    arg(k, i, sizeof(cl_mem), &m[i]);
  run(k, NF, GROUP);
  read(m[0], sizeof cnt, &cnt);
  read(m[1], sizeof x, &x);
  read(m[2], NF * sizeof *old, old);
  CHECK_EQ(cnt, 8 * NF);
  for (size_t i = 0; i <= NF; i++)
    v[i] = i < NF ? old[i] : x;
  CHECK(is_permutation(v, NF + 1));
  test_release_buffers(m, 3);
  REQUIRE_OK(clReleaseKernel(k));
  free(old);
  free(v);
}

/* The feature macros and enumerators. */
static void test_features(cl_program p) {
  int32_t out[2] = {0, 0};
  cl_mem m = buffer(sizeof out, out);
  cl_kernel k = kernel(p, "features");
  arg(k, 0, sizeof m, &m);
  run(k, 1, 1);
  read(m, sizeof out, out);
  CHECK_EQ(out[0], 15);
  CHECK_EQ(out[1], 5 + 10 * 3 + 100 * 3);
  test_release_buffers(&m, 1);
  REQUIRE_OK(clReleaseKernel(k));
}

/* The CL2.0 program: generic pointers to global and local atomics. */
static void test_generic(void) {
  cl_program p = test_build(&env, source20, "-cl-std=CL2.0");
  int32_t c = 0;
  int64_t mx = 0;
  int32_t *out = malloc(2 * NG * sizeof *out);
  REQUIRE_OK(out ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  cl_mem m[3] = {buffer(sizeof c, &c), buffer(sizeof mx, &mx),
                 buffer(2 * NG * sizeof *out, NULL)};
  cl_kernel k = kernel(p, "gen");
  for (cl_uint i = 0; i < 3; i++)
    arg(k, i, sizeof(cl_mem), &m[i]);
  run(k, NF, GROUP);
  read(m[0], sizeof c, &c);
  read(m[1], sizeof mx, &mx);
  read(m[2], 2 * NG * sizeof *out, out);
  CHECK_EQ(c, (int64_t)NF * (NF - 1) / 2 + NF);
  CHECK_EQ(mx, (int64_t)(NF - 1) << 33);
  int bad = 0;
  for (int g = 0; g < NG; g++) {
    int64_t lo = (int64_t)g * GROUP, hi = lo + GROUP;
    bad += out[2 * g] != (hi * (hi - 1) - lo * (lo - 1)) / 2 + GROUP;
    bad += out[2 * g + 1] != hi - 1;
  }
  CHECK_EQ(bad, 0);
  test_release_buffers(m, 3);
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseProgram(p));
  free(out);
}

int main(void) {
  test_setup(&env);
  static const char *const modes[] = {NULL, "fiber"};
  for (int mode = 0; mode < 2; mode++) {
    if (modes[mode])
      setenv("SKEIN_MODE", modes[mode], 1);
    cl_program p = test_build(&env, source, "-cl-std=CL3.0");
    int before = test_failures;
    test_fetch(p);
    for (int k = 0; k < 5; k++)
      test_fp(p, orders[k], scopes[(k + 2) % 3]);
    test_lock(p);
    test_local_flag(p);
    test_mp(p, 3, 2, GROUP);        /* release / acquire */
    test_mp(p, 5, 5, 3 * GROUP + 7);  /* seq_cst both */
    test_mp(p, 3, 5, 2 * GROUP);    /* release / seq_cst */
    test_mp(p, 5, 2, GROUP + 1);    /* seq_cst / acquire */
    test_inner(p);
    test_features(p);
    REQUIRE_OK(clReleaseProgram(p));
    test_generic();
    unsetenv("SKEIN_MODE");
    printf("mode %s: %s\n", modes[mode] ? modes[mode] : "default",
           test_failures == before ? "ok" : "FAILED");
  }
  test_teardown(&env);
  return test_finish("builtins-atomics-c11");
}
