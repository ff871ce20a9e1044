/* This file contains the corpus's dense kernels: tiled GEMM through local
 * memory (square tiles from 1 to 16, a non-power-of-two among them) and a
 * naive 2D GEMM loop, radix-2 FFT butterflies (a whole transform per
 * group in local memory, and one launch per stage over global memory),
 * a tiled transpose and a 1D stencil with halo loads. */
#include "modes_corpus.h"
#include <math.h>

static const char source[] =
    "kernel void gemm_tiled(global const float *A, global const float *B,\n"
    "                       global float *C, uint M, uint N, uint K) {\n"
    "  local float As[16][16], Bs[16][16];\n"
    "  uint tx = get_local_id(0), ty = get_local_id(1);\n"
    "  uint ts = get_local_size(0);\n"
    "  uint col = get_global_id(0), row = get_global_id(1);\n"
    "  float acc = 0.0f;\n"
    "  for (uint t = 0; t < (K + ts - 1) / ts; t++) {\n"
    "    uint ka = t * ts + tx, kb = t * ts + ty;\n"
    "    As[ty][tx] = row < M && ka < K ? A[row * K + ka] : 0.0f;\n"
    "    Bs[ty][tx] = kb < K && col < N ? B[kb * N + col] : 0.0f;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (uint k = 0; k < ts; k++) acc += As[ty][k] * Bs[k][tx];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (row < M && col < N) C[row * N + col] = acc;\n"
    "}\n"
    "kernel void gemm_naive(global const float *A, global const float *B,\n"
    "                       global float *C, uint M, uint N, uint K) {\n"
    "  uint col = get_global_id(0), row = get_global_id(1);\n"
    "  float acc = 0.0f;\n"
    "  for (uint k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];\n"
    "  C[row * N + col] = acc;\n"
    "}\n"
    /* A transform of 2 * local size points per group. */
    "kernel void fft_local(global float2 *data, global const float2 *tw,\n"
    "                      uint logn) {\n"
    "  local float2 s[512];\n"
    "  uint lid = get_local_id(0), lsz = get_local_size(0), n = 2 * lsz;\n"
    "  global float2 *d = data + get_group_id(0) * n;\n"
    "  for (uint i = lid; i < n; i += lsz) {\n"
    "    uint r = 0;\n"
    "    for (uint b = 0; b < logn; b++) r |= ((i >> b) & 1) << (logn - 1 - "
    "b);\n"
    "    s[r] = d[i];\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint span = 1; span < n; span <<= 1) {\n"
    "    uint pos = lid % span, i0 = (lid / span) * 2 * span + pos;\n"
    "    uint i1 = i0 + span;\n"
    "    float2 w = tw[pos * (n / (2 * span))];\n"
    "    float2 a = s[i0], b = s[i1];\n"
    "    float2 wb = (float2)(w.x * b.x - w.y * b.y, w.x * b.y + w.y * b.x);\n"
    "    s[i0] = a + wb;\n"
    "    s[i1] = a - wb;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  for (uint i = lid; i < n; i += lsz) d[i] = s[i];\n"
    "}\n"
    /* One stage, in place, of a transform whose input is in bit-reversed
     * order. */
    "kernel void fft_stage(global float2 *d, global const float2 *tw,\n"
    "                      uint n, uint span) {\n"
    "  uint i = get_global_id(0);\n"
    "  uint pos = i % span, i0 = (i / span) * 2 * span + pos, i1 = i0 + span;\n"
    "  float2 w = tw[pos * (n / (2 * span))];\n"
    "  float2 a = d[i0], b = d[i1];\n"
    "  float2 wb = (float2)(w.x * b.x - w.y * b.y, w.x * b.y + w.y * b.x);\n"
    "  d[i0] = a + wb;\n"
    "  d[i1] = a - wb;\n"
    "}\n"
    "kernel void transpose_tiled(global const int *in, global int *out,\n"
    "                            uint w, uint h) {\n"
    "  local int tile[16][17];\n"
    "  uint tx = get_local_id(0), ty = get_local_id(1);\n"
    "  uint ts = get_local_size(0);\n"
    "  uint x = get_group_id(0) * ts + tx, y = get_group_id(1) * ts + ty;\n"
    "  if (x < w && y < h) tile[ty][tx] = in[y * w + x];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  x = get_group_id(1) * ts + tx;\n"
    "  y = get_group_id(0) * ts + ty;\n"
    "  if (x < h && y < w) out[y * h + x] = tile[tx][ty];\n"
    "}\n"
    "kernel void stencil3(global const int *in, global int *out, uint n) {\n"
    "  local int t[258];\n"
    "  uint lid = get_local_id(0), lsz = get_local_size(0);\n"
    "  uint gid = get_global_id(0);\n"
    "  t[lid + 1] = gid < n ? in[gid] : 0;\n"
    "  if (lid == 0) t[0] = gid > 0 && gid - 1 < n ? in[gid - 1] : 0;\n"
    "  if (lid == lsz - 1) t[lsz + 1] = gid + 1 < n ? in[gid + 1] : 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (gid < n) out[gid] = t[lid] - 2 * t[lid + 1] + t[lid + 2];\n"
    "}\n";

/* ---- GEMM ---- */

/* Small integers: every product and sum is exact in float, so the host's
 * order of additions gives the same bits. */
static float *small_matrix(size_t n) {
  float *m = malloc(n * sizeof *m);
  for (size_t i = 0; i < n; i++)
    m[i] = (float)corpus_rand(-8, 8);
  return m;
}

static void run_gemm(md_ctx *c, const char *kernel, unsigned M, unsigned N,
                     unsigned K, size_t tx, size_t ty) {
  float *A = small_matrix((size_t)M * K), *B = small_matrix((size_t)K * N);
  float *want = calloc((size_t)M * N, sizeof *want);
  for (unsigned r = 0; r < M; r++)
    for (unsigned col = 0; col < N; col++)
      for (unsigned k = 0; k < K; k++)
        want[r * N + col] += A[r * K + k] * B[k * N + col];
  int tiled = strcmp(kernel, "gemm_tiled") == 0;
  /* The tiled kernel needs whole square tiles; the naive one takes the
   * exact size (partial groups where the local size does not divide). */
  size_t global[2] = {N, M}, local[2] = {tx, ty};
  if (tiled) {
    global[0] = (N + tx - 1) / tx * tx;
    global[1] = (M + ty - 1) / ty * ty;
  }
  md_launch l;
  md_init(&l, "%s M=%u N=%u K=%u local=%zux%zu", kernel, M, N, K, tx, ty);
  int a_a = md_buf(&l, "A", A, (size_t)M * K * 4, 4);
  int a_b = md_buf(&l, "B", B, (size_t)K * N * 4, 4);
  int a_c = md_out(&l, "C", (size_t)M * N * 4, 4);
  int a_m = md_u32(&l, M), a_n = md_u32(&l, N), a_k = md_u32(&l, K);
  md_step_add(&l, kernel, 2, global, tx ? local : NULL, 6, a_a, a_b, a_c, a_m,
              a_n, a_k);
  corpus_check(c, &l, {a_c, want});
  free(A);
  free(B);
  free(want);
}

static void family_gemm(md_ctx *c, int arg) {
  (void)arg;
  test_seed(4101);
  run_gemm(c, "gemm_tiled", 64, 64, 64, 16, 16);
  run_gemm(c, "gemm_tiled", 37, 29, 41, 8, 8);
  run_gemm(c, "gemm_tiled", 20, 13, 7, 5, 5);
  run_gemm(c, "gemm_tiled", 3, 5, 9, 1, 1);
  run_gemm(c, "gemm_tiled", 16, 16, 100, 4, 4);
  run_gemm(c, "gemm_naive", 37, 29, 41, 0, 0);
  run_gemm(c, "gemm_naive", 37, 29, 41, 5, 3);
  run_gemm(c, "gemm_naive", 64, 64, 64, 16, 4);
}

/* ---- FFT ---- */

/* tw[k] = exp(-2 pi i k / n) for k < n / 2, as float pairs. */
static float *twiddles(unsigned n) {
  float *tw = malloc(n * sizeof *tw);
  for (unsigned k = 0; k < n / 2; k++) {
    tw[2 * k] = (float)cos(-2 * M_PI * k / n);
    tw[2 * k + 1] = (float)sin(-2 * M_PI * k / n);
  }
  return tw;
}

/* The DFT of the n points at x (pairs), in double, rounded to float. */
static void dft(const float *x, float *out, unsigned n) {
  for (unsigned k = 0; k < n; k++) {
    double re = 0, im = 0;
    for (unsigned j = 0; j < n; j++) {
      double a = -2 * M_PI * (double)((unsigned long long)j * k % n) / n;
      re += x[2 * j] * cos(a) - x[2 * j + 1] * sin(a);
      im += x[2 * j] * sin(a) + x[2 * j + 1] * cos(a);
    }
    out[2 * k] = (float)re;
    out[2 * k + 1] = (float)im;
  }
}

static float *random_points(size_t n) {
  float *x = malloc(2 * n * sizeof *x);
  for (size_t i = 0; i < 2 * n; i++)
    x[i] = (float)corpus_rand(-1000, 1000) / 1000.0f;
  return x;
}

static unsigned log2u(unsigned n) {
  unsigned l = 0;
  while ((1u << l) < n)
    l++;
  return l;
}

static void run_fft_local(md_ctx *c, size_t lsz, size_t groups) {
  unsigned n = 2 * (unsigned)lsz;
  size_t global = lsz * groups;
  float *x = random_points(n * groups), *tw = twiddles(n);
  float *want = malloc(2 * n * groups * sizeof *want);
  for (size_t g = 0; g < groups; g++)
    dft(x + 2 * n * g, want + 2 * n * g, n);
  md_launch l;
  md_init(&l, "fft_local n=%u groups=%zu", n, groups);
  int a_d = md_buf(&l, "data", x, 2 * n * groups * 4, 8);
  int a_t = md_buf(&l, "tw", tw, n * 4, 8), a_l = md_u32(&l, log2u(n));
  md_step_add(&l, "fft_local", 1, &global, &lsz, 3, a_d, a_t, a_l);
  corpus_check_float(c, &l, a_d, want, 1e-4f * n);
  free(x);
  free(tw);
  free(want);
}

static unsigned bit_reverse(unsigned i, unsigned bits) {
  unsigned r = 0;
  for (unsigned b = 0; b < bits; b++)
    r |= ((i >> b) & 1) << (bits - 1 - b);
  return r;
}

static void run_fft_stages(md_ctx *c, unsigned n, size_t lsz) {
  float *x = random_points(n), *tw = twiddles(n);
  float *rev = malloc(2 * n * sizeof *rev),
        *want = malloc(2 * n * sizeof *want);
  unsigned bits = log2u(n);
  for (unsigned i = 0; i < n; i++) {
    rev[2 * bit_reverse(i, bits)] = x[2 * i];
    rev[2 * bit_reverse(i, bits) + 1] = x[2 * i + 1];
  }
  dft(x, want, n);
  md_launch l;
  md_init(&l, "fft_stage n=%u local=%zu", n, lsz);
  int a_d = md_buf(&l, "data", rev, 2 * n * 4, 8);
  int a_t = md_buf(&l, "tw", tw, n * 4, 8), a_n = md_u32(&l, n);
  size_t global = n / 2;
  for (unsigned span = 1; span < n; span <<= 1)
    md_step_add(&l, "fft_stage", 1, &global, lsz ? &lsz : NULL, 4, a_d, a_t,
                a_n, md_u32(&l, span));
  corpus_check_float(c, &l, a_d, want, 1e-4f * n);
  free(x);
  free(tw);
  free(rev);
  free(want);
}

static void family_fft(md_ctx *c, int arg) {
  (void)arg;
  test_seed(4201);
  run_fft_local(c, 256, 3);
  run_fft_local(c, 32, 5);
  run_fft_local(c, 4, 2);
  run_fft_local(c, 1, 4);
  run_fft_stages(c, 16, 0);
  run_fft_stages(c, 64, 8);
  run_fft_stages(c, 1024, 0);
  run_fft_stages(c, 8, 4);
}

/* ---- transpose and stencil ---- */

static void run_transpose(md_ctx *c, unsigned w, unsigned h, size_t ts) {
  size_t global[2] = {(w + ts - 1) / ts * ts, (h + ts - 1) / ts * ts};
  size_t local[2] = {ts, ts}, n = (size_t)w * h;
  int *in = malloc(n * sizeof *in), *want = malloc(n * sizeof *want);
  for (size_t i = 0; i < n; i++)
    in[i] = (int)(test_rand() >> 33);
  for (unsigned y = 0; y < h; y++)
    for (unsigned x = 0; x < w; x++)
      want[x * h + y] = in[y * w + x];
  md_launch l;
  md_init(&l, "transpose_tiled %ux%u tile=%zu", w, h, ts);
  int a_in = md_buf(&l, "in", in, n * 4, 4);
  int a_out = md_out(&l, "out", n * 4, 4);
  int a_w = md_u32(&l, w), a_h = md_u32(&l, h);
  md_step_add(&l, "transpose_tiled", 2, global, local, 4, a_in, a_out, a_w,
              a_h);
  corpus_check(c, &l, {a_out, want});
  free(in);
  free(want);
}

static void run_stencil(md_ctx *c, unsigned n, size_t global, size_t lsz) {
  int *in = malloc(n * sizeof *in), *want = malloc(n * sizeof *want);
  for (unsigned i = 0; i < n; i++)
    in[i] = corpus_rand(-10000, 10000);
  for (unsigned i = 0; i < n; i++)
    want[i] = (i ? in[i - 1] : 0) - 2 * in[i] + (i + 1 < n ? in[i + 1] : 0);
  md_launch l;
  md_init(&l, "stencil3 n=%u global=%zu local=%zu", n, global, lsz);
  int a_in = md_buf(&l, "in", in, n * 4, 4);
  int a_out = md_out(&l, "out", n * 4, 4), a_n = md_u32(&l, n);
  md_step_add(&l, "stencil3", 1, &global, &lsz, 3, a_in, a_out, a_n);
  corpus_check(c, &l, {a_out, want});
  free(in);
  free(want);
}

static void family_transpose_stencil(md_ctx *c, int arg) {
  (void)arg;
  test_seed(4301);
  run_transpose(c, 64, 64, 16);
  run_transpose(c, 37, 19, 8);
  run_transpose(c, 5, 9, 3);
  run_transpose(c, 4, 3, 1);
  run_stencil(c, 1000, 1000, 64); /* partial last group */
  run_stencil(c, 1000, 1024, 256);
  run_stencil(c, 50, 50, 7);
  run_stencil(c, 3, 3, 1);
}

static const corpus_family families[] = {
    {"gemm", family_gemm, 0},
    {"fft", family_fft, 0},
    {"transpose and stencil", family_transpose_stencil, 0},
};

const corpus_part corpus_dense = {"dense", source, families,
                                  sizeof families / sizeof *families};
