/* This file contains the corpus's row and block loops, sparse products,
 * reductions, histograms and collectives: the issue-13 row-per-group
 * kernel verbatim and its get_global_size variant, CSR sparse
 * matrix-vector products (one row per work-item, and one row per group
 * with a barrier loop), a Givens-rotation-style block loop with a private
 * accumulator carried across barriers, tree reductions (power-of-two,
 * any size, two-level with a grid-stride loop), a local-atomic histogram,
 * and kernels built on work_group_reduce/scan/broadcast/any/all, over
 * several local sizes (1 and non-powers of two among them) and global
 * sizes that leave the last group partial. */
#include "modes_corpus.h"
#include <limits.h>

static const char source[] =
    "kernel void rows_per_group(global int *Y, uint n, uint m) {\n"
    "  __local int buf[128];\n"
    "  uint wpg = (m - 1) / get_num_groups(0) + 1;\n"
    "  uint r0 = get_group_id(0) * wpg;\n"
    "  uint r1 = min((uint)((get_group_id(0) + 1) * wpg), m);\n"
    "  for (uint r = r0; r < r1; ++r) {\n"
    "    uint i = r * get_local_size(0) + get_local_id(0);\n"
    "    buf[get_local_id(0)] = (int)i + 1;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (i < n) Y[i] = buf[get_local_id(0)];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "}\n"
    "kernel void rows_global(global int *Y, uint n) {\n"
    "  local int buf[128];\n"
    "  uint lid = get_local_id(0), lsz = get_local_size(0);\n"
    "  uint iters = (n - 1) / get_global_size(0) + 1;\n"
    "  for (uint r = 0; r < iters; ++r) {\n"
    "    uint i = r * get_global_size(0) + get_global_id(0);\n"
    "    buf[lid] = (int)i + 1;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (i < n) Y[i] = buf[(lid + 1) % lsz];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "}\n"
    "kernel void spmv_csr_scalar(global const int *row_ptr,\n"
    "                            global const int *col,\n"
    "                            global const int *val, global const int *x,\n"
    "                            global int *y, uint nrows) {\n"
    "  uint row = get_global_id(0);\n"
    "  if (row < nrows) {\n"
    "    int s = 0;\n"
    "    for (int k = row_ptr[row]; k < row_ptr[row + 1]; k++)\n"
    "      s += val[k] * x[col[k]];\n"
    "    y[row] = s;\n"
    "  }\n"
    "}\n"
    "kernel void spmv_csr_vector(global const int *row_ptr,\n"
    "                            global const int *col,\n"
    "                            global const int *val, global const int *x,\n"
    "                            global int *y, uint nrows,\n"
    "                            local int *part) {\n"
    "  uint lid = get_local_id(0), lsz = get_local_size(0);\n"
    "  for (uint row = get_group_id(0); row < nrows;\n"
    "       row += get_num_groups(0)) {\n"
    "    int s = 0;\n"
    "    for (int k = row_ptr[row] + (int)lid; k < row_ptr[row + 1];\n"
    "         k += (int)lsz)\n"
    "      s += val[k] * x[col[k]];\n"
    "    part[lid] = s;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (uint stride = 1; stride < lsz; stride <<= 1) {\n"
    "      int t = (lid % (2 * stride) == 0 && lid + stride < lsz)\n"
    "                  ? part[lid + stride] : 0;\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "      part[lid] += t;\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (lid == 0) y[row] = part[0];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "}\n"
    /* Each group rotates its own pair of rows (x, y) of length n by the
     * integer "rotation" (c, s) block by block through local memory, and
     * every work-item carries a dot product of the old x with w across
     * the barriers. */
    "kernel void givens_block(global int *x, global int *y,\n"
    "                         global const int *w, uint n, int c, int s,\n"
    "                         global int *dot) {\n"
    "  local int lx[64], ly[64];\n"
    "  uint lsz = get_local_size(0), lid = get_local_id(0);\n"
    "  uint g = get_group_id(0);\n"
    "  global int *X = x + g * n, *Y = y + g * n;\n"
    "  int acc = (int)lid;\n"
    "  for (uint b = 0; b < (n + lsz - 1) / lsz; b++) {\n"
    "    uint cnt = min(n - b * lsz, lsz);\n"
    "    if (lid < cnt) { lx[lid] = X[b * lsz + lid]; ly[lid] = Y[b * lsz + "
    "lid]; }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (lid < cnt) {\n"
    "      int xv = lx[lid], yv = ly[lid];\n"
    "      X[b * lsz + lid] = c * xv - s * yv;\n"
    "      Y[b * lsz + lid] = s * xv + c * yv;\n"
    "    }\n"
    "    for (uint j = 0; j < cnt; j++) acc += lx[j] * w[b * lsz + j];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  dot[g * lsz + lid] = acc;\n"
    "}\n"
    "kernel void reduce_pow2(global const int *in, uint n,\n"
    "                        global int *partial, local int *l) {\n"
    "  uint lid = get_local_id(0), i = get_global_id(0);\n"
    "  l[lid] = i < n ? in[i] : 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    if (lid < s) l[lid] += l[lid + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) partial[get_group_id(0)] = l[0];\n"
    "}\n"
    "kernel void reduce_float(global const float *in, uint n,\n"
    "                         global float *partial) {\n"
    "  local float l[256];\n"
    "  uint lid = get_local_id(0), i = get_global_id(0);\n"
    "  l[lid] = i < n ? in[i] : 0.0f;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    if (lid < s) l[lid] += l[lid + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) partial[get_group_id(0)] = l[0];\n"
    "}\n"
    /* Any group size: a grid-stride accumulation, then a tree. */
    "kernel void reduce_any(global const uint *in, uint n,\n"
    "                       global uint *partial, local uint *l) {\n"
    "  uint lid = get_local_id(0), lsz = get_local_size(0);\n"
    "  uint acc = 0;\n"
    "  for (uint i = get_global_id(0); i < n; i += get_global_size(0))\n"
    "    acc += in[i] * 2654435761u;\n"
    "  l[lid] = acc;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint s = 1; s < lsz; s <<= 1) {\n"
    "    if (lid % (2 * s) == 0 && lid + s < lsz) l[lid] += l[lid + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) partial[get_group_id(0)] = l[0];\n"
    "}\n"
    "kernel void histogram_local(global const uint *in, uint n,\n"
    "                            global uint *hist, uint bins,\n"
    "                            local uint *lh) {\n"
    "  uint lid = get_local_id(0), lsz = get_local_size(0);\n"
    "  for (uint b = lid; b < bins; b += lsz) lh[b] = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint i = get_global_id(0); i < n; i += get_global_size(0))\n"
    "    atomic_inc(&lh[in[i] % bins]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint b = lid; b < bins; b += lsz)\n"
    "    if (lh[b]) atomic_add(&hist[b], lh[b]);\n"
    "}\n"
    "kernel void compact_positive(global const int *in, uint n,\n"
    "                             global int *out, global uint *counts) {\n"
    "  uint gid = get_global_id(0);\n"
    "  int v = gid < n ? in[gid] : 0;\n"
    "  uint keep = v > 0;\n"
    "  uint pos = work_group_scan_exclusive_add(keep);\n"
    "  uint total = work_group_reduce_add(keep);\n"
    "  if (keep) out[get_group_id(0) * get_enqueued_local_size(0) + pos] = v;\n"
    "  if (get_local_id(0) == 0) counts[get_group_id(0)] = total;\n"
    "}\n"
    "kernel void normalize_by_last(global const int *in, global int *out) {\n"
    "  int v = in[get_global_id(0)];\n"
    "  int last = work_group_broadcast(v, get_local_size(0) - 1);\n"
    "  int lo = work_group_reduce_min(v), hi = work_group_reduce_max(v);\n"
    "  int mx = work_group_scan_inclusive_max(v);\n"
    "  out[get_global_id(0)] = (v - last) * 3 + (hi - lo) * 7 + mx;\n"
    "}\n"
    /* Collatz steps until the whole group reached 1: a loop whose exit
     * is a collective. */
    "kernel void collatz_group(global const int *in, global int *out,\n"
    "                          global uint *iters, uint max_iters) {\n"
    "  int x = in[get_global_id(0)], steps = 0;\n"
    "  uint it = 0;\n"
    "  for (; it < max_iters; it++) {\n"
    "    if (!work_group_any(x != 1)) break;\n"
    "    if (x != 1) { x = (x & 1) ? 3 * x + 1 : x / 2; steps++; }\n"
    "  }\n"
    "  out[get_global_id(0)] = steps * 100000 + x;\n"
    "  if (get_local_id(0) == 0) iters[get_group_id(0)] = it;\n"
    "}\n"
    "kernel void scan_long(global const long *in, global long *incl,\n"
    "                      global long *excl, global long *sum) {\n"
    "  size_t g = get_global_id(0);\n"
    "  long v = in[g];\n"
    "  incl[g] = work_group_scan_inclusive_add(v);\n"
    "  excl[g] = work_group_scan_exclusive_add(v);\n"
    "  sum[g] = work_group_reduce_add(v) + work_group_all(v > 0);\n"
    "}\n"
    /* Every group sums the whole input, a collective per loop trip. */
    "kernel void wg_sum_loop(global const long *in, uint n,\n"
    "                        global long *sums) {\n"
    "  long acc = 0;\n"
    "  for (uint base = 0; base < n; base += get_local_size(0)) {\n"
    "    uint i = base + get_local_id(0);\n"
    "    acc += work_group_reduce_add(i < n ? in[i] : 0L);\n"
    "  }\n"
    "  sums[get_global_id(0)] = acc;\n"
    "}\n"
    "kernel void reduce_2d(global const int *in, global int *out) {\n"
    "  size_t x = get_global_id(0), y = get_global_id(1);\n"
    "  size_t w = get_global_size(0);\n"
    "  int v = in[y * w + x];\n"
    "  int s = work_group_reduce_add(v);\n"
    "  int b = work_group_broadcast(v, 0, get_local_size(1) - 1);\n"
    "  out[y * w + x] = s * 5 - b;\n"
    "}\n";

/* ---- row loops ---- */

/* The size of the group starting at work-item base (the last one may be
 * partial). */
static size_t group_size(size_t global, size_t lsz, size_t base) {
  return global - base < lsz ? global - base : lsz;
}

static void run_rows_per_group(md_ctx *c, size_t lsz, size_t groups,
                               unsigned m) {
  size_t global = lsz * groups;
  unsigned n = m * (unsigned)lsz > 5 ? m * (unsigned)lsz - 5 : 1;
  int *want = malloc(n * sizeof *want);
  for (unsigned i = 0; i < n; i++)
    want[i] = (int)i + 1;
  md_launch l;
  md_init(&l, "rows_per_group local=%zu groups=%zu m=%u n=%u", lsz, groups, m,
          n);
  int a_y = md_out(&l, "Y", n * sizeof(int), 4);
  int a_n = md_u32(&l, n), a_m = md_u32(&l, m);
  md_step_add(&l, "rows_per_group", 1, &global, &lsz, 3, a_y, a_n, a_m);
  corpus_check(c, &l, {a_y, want});
  free(want);
}

/* Issue 13's shapes (local 128 over 1, 2 and 16 groups with m = the
 * number of groups) and others, m and the group count apart. */
static void family_rows_per_group(md_ctx *c, int arg) {
  (void)arg;
  static const size_t groups[] = {1, 2, 16};
  for (size_t g = 0; g < 3; g++)
    run_rows_per_group(c, 128, groups[g], (unsigned)groups[g]);
  run_rows_per_group(c, 64, 3, 7);
  run_rows_per_group(c, 7, 5, 3);
  run_rows_per_group(c, 1, 4, 9);
  run_rows_per_group(c, 33, 2, 1);
}

static void run_rows_global(md_ctx *c, size_t global, size_t lsz, unsigned n) {
  int *want = malloc(n * sizeof *want);
  unsigned iters = (n - 1) / (unsigned)global + 1;
  for (unsigned r = 0; r < iters; r++)
    for (size_t gid = 0; gid < global; gid++) {
      size_t base = gid / lsz * lsz, size = group_size(global, lsz, base);
      size_t i = r * global + gid, lid = gid - base;
      if (i < n)
        want[i] = (int)(r * global + base + (lid + 1) % size) + 1;
    }
  md_launch l;
  md_init(&l, "rows_global global=%zu local=%zu n=%u", global, lsz, n);
  int a_y = md_out(&l, "Y", n * sizeof(int), 4), a_n = md_u32(&l, n);
  md_step_add(&l, "rows_global", 1, &global, &lsz, 2, a_y, a_n);
  corpus_check(c, &l, {a_y, want});
  free(want);
}

static void family_rows_global(md_ctx *c, int arg) {
  (void)arg;
  run_rows_global(c, 128, 128, 123);
  run_rows_global(c, 256, 128, 2000);
  run_rows_global(c, 100, 16, 1000); /* last group partial */
  run_rows_global(c, 21, 7, 400);
  run_rows_global(c, 5, 1, 37);
  run_rows_global(c, 2048, 128, 2043);
}

/* ---- sparse matrix-vector products ---- */

typedef struct csr {
  unsigned nrows, ncols, nnz;
  int *row_ptr, *col, *val, *x;
} csr;

/* Rows of 0 to 60 entries, one of 300 (longer than any group). */
static void csr_make(csr *m, unsigned nrows) {
  m->nrows = nrows;
  m->ncols = 40;
  m->row_ptr = malloc((nrows + 1) * sizeof(int));
  m->row_ptr[0] = 0;
  for (unsigned r = 0; r < nrows; r++) {
    int len = r == nrows / 2 ? 300 : corpus_rand(-10, 60);
    m->row_ptr[r + 1] = m->row_ptr[r] + (len > 0 ? len : 0);
  }
  m->nnz = (unsigned)m->row_ptr[nrows];
  m->col = malloc((m->nnz + 1) * sizeof(int));
  m->val = malloc((m->nnz + 1) * sizeof(int));
  m->x = malloc(m->ncols * sizeof(int));
  for (unsigned k = 0; k < m->nnz; k++) {
    m->col[k] = corpus_rand(0, (int)m->ncols - 1);
    m->val[k] = corpus_rand(-9, 9);
  }
  for (unsigned k = 0; k < m->ncols; k++)
    m->x[k] = corpus_rand(-9, 9);
}

static void csr_free(csr *m) {
  free(m->row_ptr);
  free(m->col);
  free(m->val);
  free(m->x);
}

static void run_spmv(md_ctx *c, const char *kernel, unsigned nrows,
                     size_t global, size_t lsz) {
  csr m;
  csr_make(&m, nrows);
  md_launch l;
  md_init(&l, "%s rows=%u nnz=%u global=%zu local=%zu", kernel, nrows, m.nnz,
          global, lsz);
  int a_rp = md_buf(&l, "row_ptr", m.row_ptr, (nrows + 1) * 4, 4);
  int a_col = md_buf(&l, "col", m.col, (m.nnz + 1) * 4, 4);
  int a_val = md_buf(&l, "val", m.val, (m.nnz + 1) * 4, 4);
  int a_x = md_buf(&l, "x", m.x, m.ncols * 4, 4);
  int a_y = md_out(&l, "y", nrows * 4, 4), a_n = md_u32(&l, nrows);
  if (strcmp(kernel, "spmv_csr_vector") == 0)
    md_step_add(&l, kernel, 1, &global, &lsz, 7, a_rp, a_col, a_val, a_x, a_y,
                a_n, md_local(&l, lsz * sizeof(int)));
  else
    md_step_add(&l, kernel, 1, &global, &lsz, 6, a_rp, a_col, a_val, a_x, a_y,
                a_n);
  int *want = calloc(nrows, sizeof *want);
  for (unsigned r = 0; r < nrows; r++)
    for (int k = m.row_ptr[r]; k < m.row_ptr[r + 1]; k++)
      want[r] += m.val[k] * m.x[m.col[k]];
  corpus_check(c, &l, {a_y, want});
  free(want);
  csr_free(&m);
}

static void family_spmv(md_ctx *c, int arg) {
  (void)arg;
  test_seed(2101);
  run_spmv(c, "spmv_csr_scalar", 50, 50, 8);
  run_spmv(c, "spmv_csr_scalar", 50, 64, 16);
  run_spmv(c, "spmv_csr_scalar", 7, 9, 3);
  run_spmv(c, "spmv_csr_scalar", 1, 1, 1);
  run_spmv(c, "spmv_csr_vector", 50, 4 * 32, 32);
  run_spmv(c, "spmv_csr_vector", 50, 3 * 13 + 5, 13); /* partial group */
  run_spmv(c, "spmv_csr_vector", 7, 64, 64);
  run_spmv(c, "spmv_csr_vector", 20, 5, 1);
  run_spmv(c, "spmv_csr_vector", 1, 2 * 128, 128);
}

/* ---- Givens-rotation-style block loop ---- */

static void run_givens(md_ctx *c, size_t lsz, size_t groups, unsigned n) {
  size_t global = lsz * groups, len = groups * n;
  int *x = malloc(len * sizeof *x), *y = malloc(len * sizeof *y);
  int *w = malloc(n * sizeof *w);
  for (size_t i = 0; i < len; i++) {
    x[i] = corpus_rand(-100, 100);
    y[i] = corpus_rand(-100, 100);
  }
  for (unsigned i = 0; i < n; i++)
    w[i] = corpus_rand(-5, 5);
  int cs = corpus_rand(-4, 4), sn = corpus_rand(-4, 4);
  md_launch l;
  md_init(&l, "givens_block local=%zu groups=%zu n=%u", lsz, groups, n);
  int a_x = md_buf(&l, "x", x, len * 4, 4),
      a_y = md_buf(&l, "y", y, len * 4, 4);
  int a_w = md_buf(&l, "w", w, n * 4, 4), a_n = md_u32(&l, n);
  int a_c = md_i32(&l, cs), a_s = md_i32(&l, sn);
  int a_d = md_out(&l, "dot", global * 4, 4);
  md_step_add(&l, "givens_block", 1, &global, &lsz, 7, a_x, a_y, a_w, a_n, a_c,
              a_s, a_d);
  int *wx = malloc(len * sizeof *wx), *wy = malloc(len * sizeof *wy);
  int *wd = malloc(global * sizeof *wd);
  for (size_t g = 0; g < groups; g++) {
    int dot = 0;
    for (unsigned i = 0; i < n; i++) {
      int xv = x[g * n + i], yv = y[g * n + i];
      wx[g * n + i] = cs * xv - sn * yv;
      wy[g * n + i] = sn * xv + cs * yv;
      dot += xv * w[i];
    }
    for (size_t lid = 0; lid < lsz; lid++)
      wd[g * lsz + lid] = dot + (int)lid;
  }
  corpus_check(c, &l, {a_x, wx}, {a_y, wy}, {a_d, wd});
  free(wx);
  free(wy);
  free(wd);
  free(x);
  free(y);
  free(w);
}

static void family_givens(md_ctx *c, int arg) {
  (void)arg;
  test_seed(2201);
  run_givens(c, 16, 3, 100);
  run_givens(c, 64, 2, 64);
  run_givens(c, 7, 4, 13);
  run_givens(c, 1, 3, 9);
  run_givens(c, 64, 1, 1);
  run_givens(c, 33, 2, 200);
}

/* ---- reductions ---- */

static void run_reduce_pow2(md_ctx *c, unsigned n, size_t lsz) {
  size_t groups = (n + lsz - 1) / lsz, global = groups * lsz;
  int *in = malloc(n * sizeof *in), *want = calloc(groups, sizeof *want);
  for (unsigned i = 0; i < n; i++) {
    in[i] = corpus_rand(-1000, 1000);
    want[i / lsz] += in[i];
  }
  md_launch l;
  md_init(&l, "reduce_pow2 n=%u local=%zu", n, lsz);
  int a_in = md_buf(&l, "in", in, n * 4, 4), a_n = md_u32(&l, n);
  int a_p = md_out(&l, "partial", groups * 4, 4);
  md_step_add(&l, "reduce_pow2", 1, &global, &lsz, 4, a_in, a_n, a_p,
              md_local(&l, lsz * 4));
  corpus_check(c, &l, {a_p, want});
  free(in);
  free(want);
}

/* Integer-valued floats: every partial sum is exact. */
static void run_reduce_float(md_ctx *c, unsigned n, size_t lsz) {
  size_t groups = (n + lsz - 1) / lsz, global = groups * lsz;
  float *in = malloc(n * sizeof *in), *want = calloc(groups, sizeof *want);
  for (unsigned i = 0; i < n; i++) {
    in[i] = (float)corpus_rand(-1000, 1000);
    want[i / lsz] += in[i];
  }
  md_launch l;
  md_init(&l, "reduce_float n=%u local=%zu", n, lsz);
  int a_in = md_buf(&l, "in", in, n * 4, 4), a_n = md_u32(&l, n);
  int a_p = md_out(&l, "partial", groups * 4, 4);
  md_step_add(&l, "reduce_float", 1, &global, &lsz, 3, a_in, a_n, a_p);
  corpus_check(c, &l, {a_p, want});
  free(in);
  free(want);
}

/* Two levels: groups of partial sums over a grid-stride loop, then one
 * group over the partials (the same kernel). */
static void run_reduce_two_level(md_ctx *c, unsigned n, size_t global,
                                 size_t lsz, size_t lsz2) {
  size_t groups = (global + lsz - 1) / lsz;
  unsigned *in = malloc(n * sizeof *in), want = 0;
  for (unsigned i = 0; i < n; i++) {
    in[i] = (unsigned)test_rand();
    want += in[i] * 2654435761u;
  }
  want *= 2654435761u; /* the second pass multiplies again */
  md_launch l;
  md_init(&l, "reduce_any two-level n=%u global=%zu local=%zu then %zu", n,
          global, lsz, lsz2);
  int a_in = md_buf(&l, "in", in, n * 4, 4), a_n = md_u32(&l, n);
  int a_p = md_out(&l, "partial", groups * 4, 4);
  int a_g = md_u32(&l, (uint32_t)groups), a_r = md_out(&l, "result", 4, 4);
  md_step_add(&l, "reduce_any", 1, &global, &lsz, 4, a_in, a_n, a_p,
              md_local(&l, lsz * 4));
  md_step_add(&l, "reduce_any", 1, &lsz2, &lsz2, 4, a_p, a_g, a_r,
              md_local(&l, lsz2 * 4));
  corpus_check(c, &l, {a_r, &want});
  free(in);
}

static void family_reduce(md_ctx *c, int arg) {
  (void)arg;
  test_seed(2301);
  run_reduce_pow2(c, 1000, 64);
  run_reduce_pow2(c, 1024, 256);
  run_reduce_pow2(c, 77, 8);
  run_reduce_pow2(c, 5, 1);
  run_reduce_float(c, 1000, 128);
  run_reduce_float(c, 333, 16);
  run_reduce_two_level(c, 100000, 4 * 64, 64, 4);
  run_reduce_two_level(c, 1000, 7 * 13 + 3, 13, 8);
  run_reduce_two_level(c, 3, 64, 16, 1);
  run_reduce_two_level(c, 5000, 10, 3, 5);
}

/* ---- local-atomic histogram ---- */

static void run_histogram(md_ctx *c, unsigned n, unsigned bins, size_t global,
                          size_t lsz) {
  unsigned *in = malloc(n * sizeof *in), *want = calloc(bins, sizeof *want);
  for (unsigned i = 0; i < n; i++) {
    in[i] = (unsigned)test_rand() % (bins * 3);
    want[in[i] % bins]++;
  }
  md_launch l;
  md_init(&l, "histogram_local n=%u bins=%u global=%zu local=%zu", n, bins,
          global, lsz);
  int a_in = md_buf(&l, "in", in, n * 4, 4), a_n = md_u32(&l, n);
  unsigned *zero = calloc(bins, sizeof *zero);
  int a_h = md_buf(&l, "hist", zero, bins * 4, 4), a_b = md_u32(&l, bins);
  md_step_add(&l, "histogram_local", 1, &global, &lsz, 5, a_in, a_n, a_h, a_b,
              md_local(&l, bins * 4));
  corpus_check(c, &l, {a_h, want});
  free(in);
  free(want);
  free(zero);
}

static void family_histogram(md_ctx *c, int arg) {
  (void)arg;
  test_seed(2401);
  run_histogram(c, 10000, 256, 4 * 64, 64);
  run_histogram(c, 10000, 16, 3 * 7 + 2, 7);
  run_histogram(c, 100, 256, 1, 1);
  run_histogram(c, 5000, 33, 2 * 128, 128);
}

/* ---- collectives ---- */

/* Group shapes: enqueued local size and global size (partial last). */
static const size_t coll_shapes[][2] = {
    {64, 256}, {13, 100}, {1, 5}, {128, 130}, {7, 7}};

static void run_compact(md_ctx *c, size_t lsz, size_t global) {
  unsigned n = (unsigned)global - 2;
  int *in = malloc(global * sizeof *in);
  for (size_t i = 0; i < global; i++)
    in[i] = corpus_rand(-5, 5);
  size_t groups = (global + lsz - 1) / lsz;
  md_launch l;
  md_init(&l, "compact_positive global=%zu local=%zu", global, lsz);
  int a_in = md_buf(&l, "in", in, global * 4, 4), a_n = md_u32(&l, n);
  int a_out = md_out(&l, "out", groups * lsz * 4, 4);
  int a_cnt = md_out(&l, "counts", groups * 4, 4);
  md_step_add(&l, "compact_positive", 1, &global, &lsz, 4, a_in, a_n, a_out,
              a_cnt);
  int *want = malloc(groups * lsz * sizeof *want);
  unsigned *cnt = calloc(groups, sizeof *cnt);
  memset(want, MD_POISON, groups * lsz * sizeof *want);
  for (size_t i = 0; i < n; i++)
    if (in[i] > 0) {
      size_t g = i / lsz;
      want[g * lsz + cnt[g]++] = in[i];
    }
  corpus_check(c, &l, {a_out, want}, {a_cnt, cnt});
  free(want);
  free(cnt);
  free(in);
}

static void run_normalize(md_ctx *c, size_t lsz, size_t global) {
  int *in = malloc(global * sizeof *in), *want = malloc(global * sizeof *want);
  for (size_t i = 0; i < global; i++)
    in[i] = corpus_rand(-100000, 100000);
  for (size_t base = 0; base < global; base += lsz) {
    size_t size = group_size(global, lsz, base);
    int lo = INT_MAX, hi = INT_MIN, mx = INT_MIN;
    for (size_t i = base; i < base + size; i++) {
      lo = in[i] < lo ? in[i] : lo;
      hi = in[i] > hi ? in[i] : hi;
    }
    for (size_t i = base; i < base + size; i++) {
      mx = in[i] > mx ? in[i] : mx;
      want[i] = (in[i] - in[base + size - 1]) * 3 + (hi - lo) * 7 + mx;
    }
  }
  md_launch l;
  md_init(&l, "normalize_by_last global=%zu local=%zu", global, lsz);
  int a_in = md_buf(&l, "in", in, global * 4, 4);
  int a_out = md_out(&l, "out", global * 4, 4);
  md_step_add(&l, "normalize_by_last", 1, &global, &lsz, 2, a_in, a_out);
  corpus_check(c, &l, {a_out, want});
  free(in);
  free(want);
}

static void run_collatz(md_ctx *c, size_t lsz, size_t global) {
  unsigned max_iters = 90;
  size_t groups = (global + lsz - 1) / lsz;
  int *in = malloc(global * sizeof *in), *want = malloc(global * sizeof *want);
  unsigned *iters = calloc(groups, sizeof *iters);
  for (size_t i = 0; i < global; i++)
    in[i] = corpus_rand(1, 60);
  for (size_t base = 0, g = 0; base < global; base += lsz, g++) {
    size_t size = group_size(global, lsz, base);
    int x[128], steps[128];
    unsigned it = 0;
    for (size_t i = 0; i < size; i++)
      x[i] = in[base + i], steps[i] = 0;
    for (; it < max_iters; it++) {
      int any = 0;
      for (size_t i = 0; i < size; i++)
        any |= x[i] != 1;
      if (!any)
        break;
      for (size_t i = 0; i < size; i++)
        if (x[i] != 1) {
          x[i] = (x[i] & 1) ? 3 * x[i] + 1 : x[i] / 2;
          steps[i]++;
        }
    }
    for (size_t i = 0; i < size; i++)
      want[base + i] = steps[i] * 100000 + x[i];
    iters[g] = it;
  }
  md_launch l;
  md_init(&l, "collatz_group global=%zu local=%zu", global, lsz);
  int a_in = md_buf(&l, "in", in, global * 4, 4);
  int a_out = md_out(&l, "out", global * 4, 4);
  int a_it = md_out(&l, "iters", groups * 4, 4), a_max = md_u32(&l, max_iters);
  md_step_add(&l, "collatz_group", 1, &global, &lsz, 4, a_in, a_out, a_it,
              a_max);
  corpus_check(c, &l, {a_out, want}, {a_it, iters});
  free(in);
  free(want);
  free(iters);
}

static void run_scan_long(md_ctx *c, size_t lsz, size_t global) {
  size_t bytes = global * sizeof(long long);
  long long *in = malloc(bytes), *incl = malloc(bytes), *excl = malloc(bytes);
  long long *sum = malloc(bytes);
  for (size_t i = 0; i < global; i++)
    in[i] = (long long)(test_rand() >> 20) - (1LL << 43);
  for (size_t base = 0; base < global; base += lsz) {
    size_t size = group_size(global, lsz, base);
    long long run = 0, all = 1;
    for (size_t i = base; i < base + size; i++) {
      excl[i] = run;
      run += in[i];
      incl[i] = run;
      all &= in[i] > 0;
    }
    for (size_t i = base; i < base + size; i++)
      sum[i] = run + all;
  }
  md_launch l;
  md_init(&l, "scan_long global=%zu local=%zu", global, lsz);
  int a_in = md_buf(&l, "in", in, bytes, 8);
  int a_i = md_out(&l, "incl", bytes, 8), a_e = md_out(&l, "excl", bytes, 8);
  int a_s = md_out(&l, "sum", bytes, 8);
  md_step_add(&l, "scan_long", 1, &global, &lsz, 4, a_in, a_i, a_e, a_s);
  corpus_check(c, &l, {a_i, incl}, {a_e, excl}, {a_s, sum});
  free(in);
  free(incl);
  free(excl);
  free(sum);
}

static void run_wg_sum_loop(md_ctx *c, size_t lsz, size_t global, unsigned n) {
  long long *in = malloc((n ? n : 1) * sizeof *in), total = 0;
  for (unsigned i = 0; i < n; i++)
    total += in[i] = corpus_rand(-1000000, 1000000);
  long long *want = malloc(global * sizeof *want);
  for (size_t i = 0; i < global; i++)
    want[i] = total;
  md_launch l;
  md_init(&l, "wg_sum_loop n=%u global=%zu local=%zu", n, global, lsz);
  int a_in = md_buf(&l, "in", in, (n ? n : 1) * 8, 8), a_n = md_u32(&l, n);
  int a_s = md_out(&l, "sums", global * 8, 8);
  md_step_add(&l, "wg_sum_loop", 1, &global, &lsz, 3, a_in, a_n, a_s);
  corpus_check(c, &l, {a_s, want});
  free(in);
  free(want);
}

static void run_reduce_2d(md_ctx *c, const size_t global[2],
                          const size_t lsz[2]) {
  size_t n = global[0] * global[1];
  int *in = malloc(n * sizeof *in), *want = malloc(n * sizeof *want);
  for (size_t i = 0; i < n; i++)
    in[i] = corpus_rand(-1000, 1000);
  for (size_t gy = 0; gy < global[1]; gy += lsz[1])
    for (size_t gx = 0; gx < global[0]; gx += lsz[0]) {
      size_t sx = group_size(global[0], lsz[0], gx);
      size_t sy = group_size(global[1], lsz[1], gy);
      int s = 0;
      for (size_t y = gy; y < gy + sy; y++)
        for (size_t x = gx; x < gx + sx; x++)
          s += in[y * global[0] + x];
      /* broadcast(v, 0, local_size(1) - 1): local x 0, last local y. */
      int b = in[(gy + sy - 1) * global[0] + gx];
      for (size_t y = gy; y < gy + sy; y++)
        for (size_t x = gx; x < gx + sx; x++)
          want[y * global[0] + x] = s * 5 - b;
    }
  md_launch l;
  md_init(&l, "reduce_2d global=%zux%zu local=%zux%zu", global[0], global[1],
          lsz[0], lsz[1]);
  int a_in = md_buf(&l, "in", in, n * 4, 4);
  int a_out = md_out(&l, "out", n * 4, 4);
  md_step_add(&l, "reduce_2d", 2, global, lsz, 2, a_in, a_out);
  corpus_check(c, &l, {a_out, want});
  free(in);
  free(want);
}

static void family_collectives(md_ctx *c, int arg) {
  (void)arg;
  test_seed(2501);
  for (size_t s = 0; s < sizeof coll_shapes / sizeof *coll_shapes; s++) {
    size_t lsz = coll_shapes[s][0], global = coll_shapes[s][1];
    run_compact(c, lsz, global);
    run_normalize(c, lsz, global);
    run_collatz(c, lsz, global);
    run_scan_long(c, lsz, global);
    run_wg_sum_loop(c, lsz, global, (unsigned)(global * 3 + 1));
  }
  run_wg_sum_loop(c, 16, 32, 0);
  run_reduce_2d(c, (size_t[]){16, 8}, (size_t[]){4, 4});
  run_reduce_2d(c, (size_t[]){13, 10}, (size_t[]){5, 3});
  run_reduce_2d(c, (size_t[]){7, 7}, (size_t[]){1, 7});
}

static const corpus_family families[] = {
    {"rows_per_group", family_rows_per_group, 0},
    {"rows_global", family_rows_global, 0},
    {"spmv", family_spmv, 0},
    {"givens", family_givens, 0},
    {"reduce", family_reduce, 0},
    {"histogram", family_histogram, 0},
    {"collectives", family_collectives, 0},
};

const corpus_part corpus_group = {"group", source, families,
                                  sizeof families / sizeof *families};
