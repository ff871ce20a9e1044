/* This file tests the integer builtins (OpenCL C 3.0 section 6.15.3) and
 * the cl_khr_extended_bit_ops functions for every integer type, scalar and
 * vectors of 2, 3, 4, 8 and 16: a kernel applies each function to random
 * operands and to every pair of the type's edge values, and the host
 * compares each lane with exact 128-bit integer arithmetic. */
#include "test_util.h"
#include <stdint.h>

static test_env env;

enum { COUNT = 2048 };
static const int widths[] = {1, 2, 3, 4, 8, 16};

/* The functions, in the order the kernel writes them (one slice of COUNT
 * elements each); the last one, upsample, goes to its own buffer. */
enum {
  F_ABS, F_ABS_DIFF, F_ADD_SAT, F_SUB_SAT, F_HADD, F_RHADD, F_CLAMP, F_CLZ,
  F_CTZ, F_POPCOUNT, F_MAD_HI, F_MAD_SAT, F_MAX, F_MIN, F_MUL_HI, F_ROTATE,
  F_MIN_S, F_MAX_S, F_CLAMP_S, F_BF_INSERT, F_BF_EXTRACT_S, F_BF_EXTRACT_U,
  F_BIT_REVERSE, F_MUL24, F_MAD24, NFUNC
};
static const char *const func_names[NFUNC] = {
  "abs", "abs_diff", "add_sat", "sub_sat", "hadd", "rhadd", "clamp", "clz",
  "ctz", "popcount", "mad_hi", "mad_sat", "max", "min", "mul_hi", "rotate",
  "min(v, s)", "max(v, s)", "clamp(v, s, s)", "bitfield_insert",
  "bitfield_extract_signed", "bitfield_extract_unsigned", "bit_reverse",
  "mul24", "mad24"};

typedef __int128 i128;
typedef unsigned __int128 u128;

typedef struct itype {
  const char *name, *uname, *sname, *wide; /* wide: upsample result */
  int bits;
  int is_signed;
} itype;

static const itype types[] = {
  {"char", "uchar", "char", "short", 8, 1},
  {"uchar", "uchar", "char", "ushort", 8, 0},
  {"short", "ushort", "short", "int", 16, 1},
  {"ushort", "ushort", "short", "uint", 16, 0},
  {"int", "uint", "int", "long", 32, 1},
  {"uint", "uint", "int", "ulong", 32, 0},
  {"long", "ulong", "long", NULL, 64, 1},
  {"ulong", "ulong", "long", NULL, 64, 0},
};

/* The kernel for one vector width: T the type, U/ST its unsigned/signed
 * twins, W the upsample type; FIRST(x) the first element (scalar forms).
 * bitfield offsets and counts come from the work-item id (they are
 * scalars even for vectors). Outputs are stored reinterpreted as T. */
static const char kernel_body[] =
  "#define AS(x) __builtin_astype((x), T)\n"
  "kernel void KNAME(global T *a, global T *b, global T *c, global T *o,\n"
  "              global W *up) {\n"
  "  size_t i = get_global_id(0), n = get_global_size(0);\n"
  "  T x = a[i], y = b[i], z = c[i];\n"
  "  T lo = min(y, z), hi = max(y, z);\n"
  "  uint cnt = (uint)(i % (BITS + 1));\n"
  "  uint off = (uint)((i / (BITS + 1)) % (BITS - cnt + 1));\n"
  "  o[0 * n + i] = AS(abs(x));\n"
  "  o[1 * n + i] = AS(abs_diff(x, y));\n"
  "  o[2 * n + i] = add_sat(x, y);\n"
  "  o[3 * n + i] = sub_sat(x, y);\n"
  "  o[4 * n + i] = hadd(x, y);\n"
  "  o[5 * n + i] = rhadd(x, y);\n"
  "  o[6 * n + i] = clamp(x, lo, hi);\n"
  "  o[7 * n + i] = clz(x);\n"
  "  o[8 * n + i] = ctz(x);\n"
  "  o[9 * n + i] = popcount(x);\n"
  "  o[10 * n + i] = mad_hi(x, y, z);\n"
  "  o[11 * n + i] = mad_sat(x, y, z);\n"
  "  o[12 * n + i] = max(x, y);\n"
  "  o[13 * n + i] = min(x, y);\n"
  "  o[14 * n + i] = mul_hi(x, y);\n"
  "  o[15 * n + i] = rotate(x, y);\n"
  "  o[16 * n + i] = min(x, FIRST(y));\n"
  "  o[17 * n + i] = max(x, FIRST(y));\n"
  "  o[18 * n + i] = clamp(x, FIRST(lo), FIRST(hi));\n"
  "  o[19 * n + i] = bitfield_insert(x, y, off, cnt);\n"
  "  o[20 * n + i] = AS(bitfield_extract_signed(x, off, cnt));\n"
  "  o[21 * n + i] = AS(bitfield_extract_unsigned(x, off, cnt));\n"
  "  o[22 * n + i] = bit_reverse(x);\n"
  "#ifdef IS_32\n"
  "  o[23 * n + i] = mul24(x >> 8, y >> 8);\n"
  "  o[24 * n + i] = mad24(x >> 8, y >> 8, z);\n"
  "#endif\n"
  "#ifdef HAS_WIDE\n"
  "  up[i] = upsample(x, AS_U(y));\n"
  "#endif\n"
  "}\n";

/* cl_khr_extended_bit_ops is declared by Skein's own header (Clang 19
 * declares none of it): a program that sees no macro fails to build. */
static const char ext_decls[] =
  "#ifndef cl_khr_extended_bit_ops\n"
  "#error cl_khr_extended_bit_ops is not defined\n"
  "#endif\n";

/* Value of element i of buf, sign- or zero-extended per t. */
static i128 load(const void *buf, size_t i, const itype *t) {
  switch (t->bits) {
  case 8: return t->is_signed ? (i128)((const int8_t *)buf)[i]
                              : (i128)((const uint8_t *)buf)[i];
  case 16: return t->is_signed ? (i128)((const int16_t *)buf)[i]
                               : (i128)((const uint16_t *)buf)[i];
  case 32: return t->is_signed ? (i128)((const int32_t *)buf)[i]
                               : (i128)((const uint32_t *)buf)[i];
  default: return t->is_signed ? (i128)((const int64_t *)buf)[i]
                               : (i128)((const uint64_t *)buf)[i];
  }
}

/* v reduced modulo 2^bits, read back as signed or unsigned. */
static i128 wrap(i128 v, int bits, int is_signed) {
  u128 m = bits == 128 ? ~(u128)0 : (((u128)1 << bits) - 1);
  u128 u = (u128)v & m;
  if (is_signed && bits < 128 && (u >> (bits - 1)) & 1)
    return (i128)(u | ~m);
  return (i128)u;
}

static i128 tmin(const itype *t) {
  return t->is_signed ? -((i128)1 << (t->bits - 1)) : 0;
}
static i128 tmax(const itype *t) {
  return t->is_signed ? ((i128)1 << (t->bits - 1)) - 1
                      : ((i128)1 << t->bits) - 1;
}
static i128 sat(i128 v, const itype *t) {
  return v < tmin(t) ? tmin(t) : v > tmax(t) ? tmax(t) : v;
}
static i128 imin(i128 a, i128 b) { return b < a ? b : a; }
static i128 imax(i128 a, i128 b) { return a < b ? b : a; }

/* Floor of a / 2^k for a possibly negative a. */
static i128 shr_floor(i128 a, int k) {
  return a >= 0 ? a >> k : -((-a + ((i128)1 << k) - 1) >> k);
}

/* The high half of a * b: exact in 128 bits, unsigned for ulong. */
static i128 ref_mul_hi(i128 a, i128 b, const itype *t) {
  if (t->bits == 64 && !t->is_signed)
    return (i128)(((u128)a * (u128)b) >> 64);
  return shr_floor(a * b, t->bits);
}

static i128 ref_mad_sat(i128 a, i128 b, i128 c, const itype *t) {
  if (t->bits == 64 && !t->is_signed) {
    u128 p = (u128)a * (u128)b + (u128)c; /* < 2^128 */
    return p > (u128)tmax(t) ? tmax(t) : (i128)p;
  }
  return sat(a * b + c, t);
}

static u128 ubits(i128 v, const itype *t) {
  return (u128)wrap(v, t->bits, 0);
}

static i128 ref_clz(i128 a, const itype *t) {
  u128 u = ubits(a, t);
  int n = 0;
  for (int k = t->bits - 1; k >= 0 && !((u >> k) & 1); k--)
    n++;
  return n;
}

static i128 ref_ctz(i128 a, const itype *t) {
  u128 u = ubits(a, t);
  int n = 0;
  for (int k = 0; k < t->bits && !((u >> k) & 1); k++)
    n++;
  return n;
}

static i128 ref_popcount(i128 a, const itype *t) {
  u128 u = ubits(a, t);
  int n = 0;
  for (int k = 0; k < t->bits; k++)
    n += (int)((u >> k) & 1);
  return n;
}

static i128 ref_rotate(i128 a, i128 b, const itype *t) {
  int s = (int)(ubits(b, t) % (u128)t->bits);
  u128 u = ubits(a, t);
  u128 r = s ? (u << s) | (u >> (t->bits - s)) : u;
  return wrap((i128)r, t->bits, t->is_signed);
}

static i128 ref_bit_reverse(i128 a, const itype *t) {
  u128 u = ubits(a, t), r = 0;
  for (int k = 0; k < t->bits; k++)
    r |= ((u >> k) & 1) << (t->bits - 1 - k);
  return wrap((i128)r, t->bits, t->is_signed);
}

static i128 ref_insert(i128 base, i128 ins, int off, int cnt,
                       const itype *t) {
  u128 mask = cnt ? (((u128)1 << cnt) - 1) << off : 0;
  u128 r = (ubits(base, t) & ~mask) | ((ubits(ins, t) << off) & mask);
  return wrap((i128)r, t->bits, t->is_signed);
}

static i128 ref_extract(i128 base, int off, int cnt, int is_signed,
                        const itype *t) {
  if (cnt == 0)
    return 0;
  u128 field = (ubits(base, t) >> off) & (((u128)1 << cnt) - 1);
  return wrap((i128)field, cnt, is_signed);
}

/* mul24 of the operands' low 24 bits, in range as x >> 8 and y >> 8. */
static i128 ref_mul24(i128 a, i128 b, const itype *t) {
  i128 x = shr_floor(a, 8), y = shr_floor(b, 8);
  return wrap(x * y, 32, t->is_signed);
}

/* The reference for function f on element e (of the vector whose first
 * element is e0) with the offset/count of work-item wi. The
 * result is given as the T bit pattern, read back per t. */
static i128 reference(int f, const void *a, const void *b, const void *c,
                      size_t e, size_t e0, size_t wi, const itype *t) {
  i128 x = load(a, e, t), y = load(b, e, t), z = load(c, e, t);
  i128 lo = imin(y, z), hi = imax(y, z);
  i128 lo0 = imin(load(b, e0, t), load(c, e0, t));
  i128 hi0 = imax(load(b, e0, t), load(c, e0, t));
  int cnt = (int)(wi % (size_t)(t->bits + 1));
  int off = (int)((wi / (size_t)(t->bits + 1)) % (size_t)(t->bits - cnt + 1));
  switch (f) {
  case F_ABS: return x < 0 ? -x : x;
  case F_ABS_DIFF: return x > y ? x - y : y - x;
  case F_ADD_SAT: return sat(x + y, t);
  case F_SUB_SAT: return sat(x - y, t);
  case F_HADD: return shr_floor(x + y, 1);
  case F_RHADD: return shr_floor(x + y + 1, 1);
  case F_CLAMP: return imin(imax(x, lo), hi);
  case F_CLZ: return ref_clz(x, t);
  case F_CTZ: return ref_ctz(x, t);
  case F_POPCOUNT: return ref_popcount(x, t);
  case F_MAD_HI: return ref_mul_hi(x, y, t) + z;
  case F_MAD_SAT: return ref_mad_sat(x, y, z, t);
  case F_MAX: return imax(x, y);
  case F_MIN: return imin(x, y);
  case F_MUL_HI: return ref_mul_hi(x, y, t);
  case F_ROTATE: return ref_rotate(x, y, t);
  case F_MIN_S: return imin(x, load(b, e0, t));
  case F_MAX_S: return imax(x, load(b, e0, t));
  case F_CLAMP_S: return imin(imax(x, lo0), hi0);
  case F_BF_INSERT: return ref_insert(x, y, off, cnt, t);
  case F_BF_EXTRACT_S: return ref_extract(x, off, cnt, 1, t);
  case F_BF_EXTRACT_U: return ref_extract(x, off, cnt, 0, t);
  case F_BIT_REVERSE: return ref_bit_reverse(x, t);
  case F_MUL24: return ref_mul24(x, y, t);
  case F_MAD24: return ref_mul24(x, y, t) + z;
  }
  return 0;
}

static void store(void *buf, size_t i, i128 v, int bits) {
  switch (bits) {
  case 8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
  case 16: ((uint16_t *)buf)[i] = (uint16_t)v; break;
  case 32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
  default: ((uint64_t *)buf)[i] = (uint64_t)v; break;
  }
}

static uint64_t rand64(void) {
  uint64_t r = 0;
  for (int k = 0; k < 4; k++)
    r = (r << 16) ^ (uint64_t)(rand() & 0xffff);
  return r;
}

/* Every pair of the type's edge values first, then random bit patterns
 * (some reduced to small magnitudes, where most functions are exact
 * corner cases of their own: shifts, rotations, bit counts). */
static void fill_inputs(const itype *t, void *a, void *b, void *c) {
  const i128 edge[] = {0, 1, -1, tmin(t), tmax(t), tmin(t) + 1, tmax(t) - 1,
                       2, 0x55, (i128)t->bits};
  const size_t ne = sizeof edge / sizeof edge[0];
  for (size_t i = 0; i < COUNT; i++) {
    i128 x = (i128)rand64(), y = (i128)rand64(), z = (i128)rand64();
    if (i < ne * ne) {
      x = edge[i % ne];
      y = edge[i / ne];
      z = edge[(i * 7) % ne];
    } else if (i % 4 == 1) {
      x %= 70;
      y %= 70;
    }
    store(a, i, x, t->bits);
    store(b, i, y, t->bits);
    store(c, i, z, t->bits);
  }
}

/* The program for type t: one kernel k<n> per vector width n. */
static char *make_source(const itype *t) {
  size_t cap = 64 * 1024, len = 0;
  char *src = malloc(cap);
  for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
    int n = widths[w];
    char sfx[12] = "";
    if (n > 1)
      snprintf(sfx, sizeof sfx, "%d", n);
    len += (size_t)snprintf(
        src + len, cap - len,
        "#undef T\n#undef U\n#undef ST\n#undef W\n#undef FIRST\n"
        "#undef KNAME\n#undef AS_U\n"
        "#define T %s%s\n#define U %s%s\n#define ST %s%s\n#define W %s%s\n"
        "#define FIRST(x) %s\n#define KNAME k%d\n"
        "#define AS_U(x) __builtin_astype((x), U)\n%s%s",
        t->name, sfx, t->uname, sfx, t->sname, sfx,
        t->wide ? t->wide : t->name, t->wide ? sfx : sfx,
        n > 1 ? "((x).s0)" : "(x)", n, ext_decls, kernel_body);
  }
  return src;
}

/* Checks every lane of width n's results; returns the mismatch count. */
static int check_width(const itype *t, int n, const void *a, const void *b,
                       const void *c, const void *out, const void *up) {
  const size_t stride = n == 3 ? 4 : (size_t)n;
  const itype ut = {t->uname, t->uname, t->sname, NULL, t->bits, 0};
  const itype st = {t->sname, t->uname, t->sname, NULL, t->bits, 1};
  int bad = 0;
  for (int f = 0; f < NFUNC; f++) {
    if ((f == F_MUL24 || f == F_MAD24) && t->bits != 32)
      continue;
    const itype *rt = t;
    if (f == F_ABS || f == F_ABS_DIFF || f == F_BF_EXTRACT_U)
      rt = &ut;
    else if (f == F_BF_EXTRACT_S)
      rt = &st;
    const char *o = (const char *)out + (size_t)f * COUNT * (t->bits / 8);
    int shown = 0;
    for (size_t e = 0; e < COUNT; e++) {
      if (e % stride >= (size_t)n)
        continue; /* padding of a 3-vector */
      size_t e0 = e - e % stride, wi = e / stride;
      i128 want = wrap(reference(f, a, b, c, e, e0, wi, t), t->bits,
                       rt->is_signed);
      i128 got = load(o, e, rt);
      if (got != want && bad++ >= 0 && shown++ < 3)
        fprintf(stderr, "%s%d %s: element %zu: x=%lld y=%lld z=%lld: "
                "got %lld, want %lld\n", t->name, n, func_names[f], e,
                (long long)load(a, e, t), (long long)load(b, e, t),
                (long long)load(c, e, t), (long long)got, (long long)want);
    }
  }
  if (!t->wide)
    return bad;
  const itype wt = {t->wide, NULL, NULL, NULL, 2 * t->bits, t->is_signed};
  for (size_t e = 0; e < COUNT; e++) {
    if (e % stride >= (size_t)n)
      continue;
    i128 want = wrap(load(a, e, t) * ((i128)1 << t->bits) +
                         (i128)ubits(load(b, e, t), t),
                     wt.bits, wt.is_signed);
    i128 got = load(up, e, &wt);
    if (got != want && bad++ < 5)
      fprintf(stderr, "%s%d upsample: element %zu: got %lld, want %lld\n",
              t->name, n, e, (long long)got, (long long)want);
  }
  return bad;
}

/* Builds type t's program and runs and checks each vector width. */
static void test_type(const itype *t) {
  size_t size = COUNT * (size_t)(t->bits / 8);
  void *a = malloc(size), *b = malloc(size), *c = malloc(size);
  void *out = malloc(size * NFUNC), *up = malloc(2 * size);
  fill_inputs(t, a, b, c);
  char *src = make_source(t);
  char opts[128];
  snprintf(opts, sizeof opts, "-cl-std=CL3.0 -DBITS=%d%s%s", t->bits,
           t->bits == 32 ? " -DIS_32" : "", t->wide ? " -DHAS_WIDE" : "");
  cl_program prog = test_build(&env, src, opts);
  cl_mem ma = test_buffer(&env, size, a), mb = test_buffer(&env, size, b);
  cl_mem mc = test_buffer(&env, size, c), mo = test_buffer(&env, size * NFUNC, NULL);
  cl_mem mu = test_buffer(&env, 2 * size, NULL);
  for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
    int n = widths[w];
    char name[8];
    snprintf(name, sizeof name, "k%d", n);
    cl_int err;
    cl_kernel k = clCreateKernel(prog, name, &err);
    REQUIRE_OK(err);
    cl_mem args[] = {ma, mb, mc, mo, mu};
    for (cl_uint i = 0; i < 5; i++)
      REQUIRE_OK(clSetKernelArg(k, i, sizeof(cl_mem), &args[i]));
    size_t global = COUNT / (n == 3 ? 4 : (size_t)n);
    REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL,
                                      0, NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, mo, CL_TRUE, 0, size * NFUNC,
                                   out, 0, NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env.queue, mu, CL_TRUE, 0, 2 * size, up,
                                   0, NULL, NULL));
    int bad = check_width(t, n, a, b, c, out, up);
    CHECK_EQ(bad, 0);
    REQUIRE_OK(clReleaseKernel(k));
  }
  cl_mem all[] = {ma, mb, mc, mo, mu};
  for (int i = 0; i < 5; i++)
    REQUIRE_OK(clReleaseMemObject(all[i]));
  REQUIRE_OK(clReleaseProgram(prog));
  free(src);
  free(a);
  free(b);
  free(c);
  free(out);
  free(up);
}

int main(void) {
  srand(4);
  test_setup(&env);
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    test_type(&types[i]);
  test_teardown(&env);
  return test_finish("builtins-integer");
}
