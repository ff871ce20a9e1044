/* This file contains the corpus's scans and sorts: a device-wide
 * exclusive scan built from a work-efficient (Blelloch) scan per block, a
 * scan of the block sums with collectives in a loop and an add pass; a
 * Hillis-Steele scan in double-buffered local memory; a segmented scan;
 * one pass of a radix sort (local histogram with local atomics, scan,
 * stable scatter); a bitonic sort in local memory with barriers in nested
 * loops, and a global bitonic sort of one kernel per step. */
#include "modes_corpus.h"
#include <limits.h>

static const char source[] =
    /* Exclusive scan of a block of 2 * local size (a power of two). */
    "kernel void scan_blelloch(global const uint *in, global uint *out,\n"
    "                          global uint *sums, uint n, local uint *t) {\n"
    "  uint lid = get_local_id(0), lsz = get_local_size(0), m = 2 * lsz;\n"
    "  uint base = get_group_id(0) * m;\n"
    "  t[2 * lid] = base + 2 * lid < n ? in[base + 2 * lid] : 0;\n"
    "  t[2 * lid + 1] = base + 2 * lid + 1 < n ? in[base + 2 * lid + 1] : 0;\n"
    "  uint offset = 1;\n"
    "  for (uint d = lsz; d > 0; d >>= 1) {\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (lid < d) {\n"
    "      uint ai = offset * (2 * lid + 1) - 1, bi = offset * (2 * lid + 2) - "
    "1;\n"
    "      t[bi] += t[ai];\n"
    "    }\n"
    "    offset <<= 1;\n"
    "  }\n"
    "  if (lid == 0) { sums[get_group_id(0)] = t[m - 1]; t[m - 1] = 0; }\n"
    "  for (uint d = 1; d < m; d <<= 1) {\n"
    "    offset >>= 1;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (lid < d) {\n"
    "      uint ai = offset * (2 * lid + 1) - 1, bi = offset * (2 * lid + 2) - "
    "1;\n"
    "      uint v = t[ai];\n"
    "      t[ai] = t[bi];\n"
    "      t[bi] += v;\n"
    "    }\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (base + 2 * lid < n) out[base + 2 * lid] = t[2 * lid];\n"
    "  if (base + 2 * lid + 1 < n) out[base + 2 * lid + 1] = t[2 * lid + 1];\n"
    "}\n"
    /* In-place exclusive scan by one group, chunk by chunk. */
    "kernel void scan_sums(global uint *sums, uint count) {\n"
    "  uint carry = 0;\n"
    "  for (uint base = 0; base < count; base += get_local_size(0)) {\n"
    "    uint i = base + get_local_id(0);\n"
    "    uint v = i < count ? sums[i] : 0;\n"
    "    uint s = work_group_scan_exclusive_add(v) + carry;\n"
    "    carry += work_group_reduce_add(v);\n"
    "    if (i < count) sums[i] = s;\n"
    "  }\n"
    "}\n"
    "kernel void scan_add(global uint *out, global const uint *sums,\n"
    "                     uint n, uint block) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i < n) out[i] += sums[i / block];\n"
    "}\n"
    "kernel void scan_hillis(global const int *in, global int *out, uint n) {\n"
    "  local int buf[2][256];\n"
    "  uint lid = get_local_id(0), lsz = get_local_size(0);\n"
    "  uint gid = get_global_id(0);\n"
    "  int pout = 0, pin = 1;\n"
    "  buf[0][lid] = gid < n ? in[gid] : 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint off = 1; off < lsz; off <<= 1) {\n"
    "    pout = 1 - pout;\n"
    "    pin = 1 - pout;\n"
    "    buf[pout][lid] = buf[pin][lid] + (lid >= off ? buf[pin][lid - off] : "
    "0);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (gid < n) out[gid] = buf[pout][lid];\n"
    "}\n"
    "kernel void scan_segmented(global const int *in,\n"
    "                           global const uchar *flag, global int *out,\n"
    "                           uint n) {\n"
    "  local int v[256];\n"
    "  local uchar f[256];\n"
    "  uint lid = get_local_id(0), lsz = get_local_size(0);\n"
    "  uint gid = get_global_id(0);\n"
    "  v[lid] = gid < n ? in[gid] : 0;\n"
    "  f[lid] = gid < n ? flag[gid] : 1;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint off = 1; off < lsz; off <<= 1) {\n"
    "    int pv = 0;\n"
    "    uchar pf = 0;\n"
    "    if (lid >= off) { pv = v[lid - off]; pf = f[lid - off]; }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (lid >= off && !f[lid]) { v[lid] += pv; f[lid] = pf; }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (gid < n) out[gid] = v[lid];\n"
    "}\n"
    "kernel void radix_hist(global const uint *keys, uint n, uint shift,\n"
    "                       global uint *hist) {\n"
    "  local uint cnt[16];\n"
    "  uint lid = get_local_id(0), lsz = get_local_size(0);\n"
    "  uint gid = get_global_id(0);\n"
    "  for (uint d = lid; d < 16; d += lsz) cnt[d] = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (gid < n) atomic_inc(&cnt[(keys[gid] >> shift) & 15]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint d = lid; d < 16; d += lsz)\n"
    "    hist[d * get_num_groups(0) + get_group_id(0)] = cnt[d];\n"
    "}\n"
    "kernel void radix_scatter(global const uint *keys, uint n, uint shift,\n"
    "                          global const uint *hist, global uint *out) {\n"
    "  local uint k[256];\n"
    "  uint lid = get_local_id(0), gid = get_global_id(0);\n"
    "  uint valid = gid < n, key = valid ? keys[gid] : 0;\n"
    "  k[lid] = key;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (valid) {\n"
    "    uint d = (key >> shift) & 15, rank = 0;\n"
    "    for (uint j = 0; j < lid; j++) rank += ((k[j] >> shift) & 15) == d;\n"
    "    out[hist[d * get_num_groups(0) + get_group_id(0)] + rank] = key;\n"
    "  }\n"
    "}\n"
    "kernel void bitonic_local(global uint *data, uint n) {\n"
    "  local uint s[256];\n"
    "  uint lid = get_local_id(0), lsz = get_local_size(0);\n"
    "  uint gid = get_global_id(0);\n"
    "  s[lid] = gid < n ? data[gid] : UINT_MAX;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint k = 2; k <= lsz; k <<= 1)\n"
    "    for (uint j = k >> 1; j > 0; j >>= 1) {\n"
    "      uint p = lid ^ j;\n"
    "      if (p > lid) {\n"
    "        uint a = s[lid], b = s[p];\n"
    "        bool up = (lid & k) == 0;\n"
    "        if ((a > b) == up) { s[lid] = b; s[p] = a; }\n"
    "      }\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "  if (gid < n) data[gid] = s[lid];\n"
    "}\n"
    /* One compare-exchange step (j, k packed as j | k << 16). */
    "kernel void bitonic_step(global int *data, uint jk) {\n"
    "  uint i = get_global_id(0), j = jk & 0xffff, k = jk >> 16;\n"
    "  uint p = i ^ j;\n"
    "  if (p > i) {\n"
    "    int a = data[i], b = data[p];\n"
    "    if ((i & k) == 0 ? a > b : a < b) { data[i] = b; data[p] = a; }\n"
    "  }\n"
    "}\n";

/* ---- device-wide scan ---- */

static void run_full_scan(md_ctx *c, unsigned n, size_t lsz, size_t lsz2) {
  size_t block = 2 * lsz, groups = (n + block - 1) / block;
  size_t global = groups * lsz, global3 = n;
  unsigned *in = malloc(n * sizeof *in), *want = malloc(n * sizeof *want);
  unsigned run = 0;
  for (unsigned i = 0; i < n; i++) {
    in[i] = (unsigned)test_rand() & 0xffffff;
    want[i] = run;
    run += in[i];
  }
  md_launch l;
  md_init(&l, "full scan n=%u local=%zu sums local=%zu", n, lsz, lsz2);
  int a_in = md_buf(&l, "in", in, n * 4, 4);
  int a_out = md_out(&l, "out", n * 4, 4);
  int a_sums = md_out(&l, "sums", groups * 4, 4), a_n = md_u32(&l, n);
  int a_g = md_u32(&l, (uint32_t)groups), a_b = md_u32(&l, (uint32_t)block);
  md_step_add(&l, "scan_blelloch", 1, &global, &lsz, 5, a_in, a_out, a_sums,
              a_n, md_local(&l, block * 4));
  md_step_add(&l, "scan_sums", 1, &lsz2, &lsz2, 2, a_sums, a_g);
  md_step_add(&l, "scan_add", 1, &global3, NULL, 4, a_out, a_sums, a_n, a_b);
  corpus_check(c, &l, {a_out, want});
  free(in);
  free(want);
}

static void family_full_scan(md_ctx *c, int arg) {
  (void)arg;
  test_seed(3101);
  run_full_scan(c, 100000, 128, 64);
  run_full_scan(c, 1000, 64, 7);
  run_full_scan(c, 1000, 1, 256);
  run_full_scan(c, 3, 8, 1);
  run_full_scan(c, 4096, 32, 33);
}

/* ---- Hillis-Steele and segmented scans ---- */

static void run_hillis(md_ctx *c, unsigned n, size_t global, size_t lsz) {
  int *in = malloc(n * sizeof *in), *want = malloc(n * sizeof *want);
  for (unsigned i = 0; i < n; i++)
    in[i] = corpus_rand(-1000, 1000);
  for (unsigned i = 0, run = 0; i < n; i++) {
    run = i % lsz == 0 ? 0 : run;
    run += (unsigned)in[i];
    want[i] = (int)run;
  }
  md_launch l;
  md_init(&l, "scan_hillis n=%u global=%zu local=%zu", n, global, lsz);
  int a_in = md_buf(&l, "in", in, n * 4, 4);
  int a_out = md_out(&l, "out", n * 4, 4), a_n = md_u32(&l, n);
  md_step_add(&l, "scan_hillis", 1, &global, &lsz, 3, a_in, a_out, a_n);
  corpus_check(c, &l, {a_out, want});
  free(in);
  free(want);
}

static void run_segmented(md_ctx *c, unsigned n, size_t global, size_t lsz) {
  int *in = malloc(n * sizeof *in), *want = malloc(n * sizeof *want);
  unsigned char *flag = malloc(n);
  for (unsigned i = 0; i < n; i++) {
    in[i] = corpus_rand(-1000, 1000);
    flag[i] = corpus_rand(0, 6) == 0;
  }
  int run = 0;
  for (unsigned i = 0; i < n; i++) {
    run = (i % lsz == 0 || flag[i]) ? in[i] : run + in[i];
    want[i] = run;
  }
  md_launch l;
  md_init(&l, "scan_segmented n=%u global=%zu local=%zu", n, global, lsz);
  int a_in = md_buf(&l, "in", in, n * 4, 4);
  int a_f = md_buf(&l, "flag", flag, n, 1);
  int a_out = md_out(&l, "out", n * 4, 4), a_n = md_u32(&l, n);
  md_step_add(&l, "scan_segmented", 1, &global, &lsz, 4, a_in, a_f, a_out, a_n);
  corpus_check(c, &l, {a_out, want});
  free(in);
  free(want);
  free(flag);
}

/* Shapes: n, global, local (global == n leaves the last group partial
 * where local does not divide it). */
static const size_t local_scan_shapes[][3] = {
    {1000, 1024, 256}, {1000, 1000, 100}, {500, 500, 13},
    {64, 64, 64},      {10, 10, 1},       {777, 800, 40}};

static void family_local_scans(md_ctx *c, int arg) {
  (void)arg;
  test_seed(3201);
  for (size_t s = 0; s < sizeof local_scan_shapes / sizeof *local_scan_shapes;
       s++) {
    const size_t *sh = local_scan_shapes[s];
    run_hillis(c, (unsigned)sh[0], sh[1], sh[2]);
    run_segmented(c, (unsigned)sh[0], sh[1], sh[2]);
  }
}

/* ---- radix sort pass ---- */

static void run_radix_pass(md_ctx *c, unsigned n, size_t lsz, size_t lsz2,
                           unsigned shift) {
  size_t groups = (n + lsz - 1) / lsz, global = n, nh = 16 * groups;
  unsigned *keys = malloc(n * sizeof *keys), *want = malloc(n * sizeof *want);
  for (unsigned i = 0; i < n; i++)
    keys[i] = (unsigned)test_rand();
  /* Stable counting sort by the digit. */
  unsigned count[17] = {0};
  for (unsigned i = 0; i < n; i++)
    count[((keys[i] >> shift) & 15) + 1]++;
  for (int d = 0; d < 16; d++)
    count[d + 1] += count[d];
  for (unsigned i = 0; i < n; i++)
    want[count[(keys[i] >> shift) & 15]++] = keys[i];
  md_launch l;
  md_init(&l, "radix pass n=%u local=%zu scan local=%zu shift=%u", n, lsz, lsz2,
          shift);
  int a_k = md_buf(&l, "keys", keys, n * 4, 4), a_n = md_u32(&l, n);
  int a_s = md_u32(&l, shift), a_h = md_out(&l, "hist", nh * 4, 4);
  int a_nh = md_u32(&l, (uint32_t)nh), a_out = md_out(&l, "out", n * 4, 4);
  md_step_add(&l, "radix_hist", 1, &global, &lsz, 4, a_k, a_n, a_s, a_h);
  md_step_add(&l, "scan_sums", 1, &lsz2, &lsz2, 2, a_h, a_nh);
  md_step_add(&l, "radix_scatter", 1, &global, &lsz, 5, a_k, a_n, a_s, a_h,
              a_out);
  corpus_check(c, &l, {a_out, want});
  free(keys);
  free(want);
}

static void family_radix(md_ctx *c, int arg) {
  (void)arg;
  test_seed(3301);
  run_radix_pass(c, 10000, 256, 128, 0);
  run_radix_pass(c, 1000, 64, 16, 4);
  run_radix_pass(c, 999, 13, 5, 28);
  run_radix_pass(c, 37, 1, 1, 8);
  run_radix_pass(c, 3000, 100, 256, 12);
}

/* ---- bitonic sorts ---- */

static int cmp_uint(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return (x > y) - (x < y);
}

static void run_bitonic_local(md_ctx *c, unsigned n, size_t lsz) {
  size_t global = (n + lsz - 1) / lsz * lsz;
  unsigned *data = malloc(n * sizeof *data), *want = malloc(n * sizeof *want);
  for (unsigned i = 0; i < n; i++)
    data[i] = (unsigned)test_rand() >> (i % 3 == 0 ? 28 : 1);
  memcpy(want, data, n * sizeof *want);
  for (unsigned b = 0; b < n; b += (unsigned)lsz)
    qsort(want + b, n - b < lsz ? n - b : lsz, sizeof *want, cmp_uint);
  md_launch l;
  md_init(&l, "bitonic_local n=%u local=%zu", n, lsz);
  int a_d = md_buf(&l, "data", data, n * 4, 4), a_n = md_u32(&l, n);
  md_step_add(&l, "bitonic_local", 1, &global, &lsz, 2, a_d, a_n);
  corpus_check(c, &l, {a_d, want});
  free(data);
  free(want);
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* A whole sort of n (a power of two, at most 16) elements, one launch
 * per (k, j) step. */
static void run_bitonic_global(md_ctx *c, unsigned n, size_t lsz) {
  int data[16], want[16];
  for (unsigned i = 0; i < n; i++)
    data[i] = want[i] = corpus_rand(-50, 50);
  qsort(want, n, sizeof *want, cmp_int);
  md_launch l;
  md_init(&l, "bitonic_step sort n=%u local=%zu", n, lsz);
  int a_d = md_buf(&l, "data", data, n * 4, 4);
  size_t global = n;
  for (unsigned k = 2; k <= n; k <<= 1)
    for (unsigned j = k >> 1; j > 0; j >>= 1)
      md_step_add(&l, "bitonic_step", 1, &global, lsz ? &lsz : NULL, 2, a_d,
                  md_u32(&l, j | k << 16));
  corpus_check(c, &l, {a_d, want});
}

static void family_bitonic(md_ctx *c, int arg) {
  (void)arg;
  test_seed(3401);
  run_bitonic_local(c, 1024, 256);
  run_bitonic_local(c, 1000, 64);
  run_bitonic_local(c, 100, 8);
  run_bitonic_local(c, 5, 1);
  run_bitonic_local(c, 2, 2);
  run_bitonic_global(c, 16, 0);
  run_bitonic_global(c, 16, 4);
  run_bitonic_global(c, 8, 8);
}

static const corpus_family families[] = {
    {"full scan", family_full_scan, 0},
    {"local scans", family_local_scans, 0},
    {"radix", family_radix, 0},
    {"bitonic", family_bitonic, 0},
};

const corpus_part corpus_scan = {"scan", source, families,
                                 sizeof families / sizeof *families};
