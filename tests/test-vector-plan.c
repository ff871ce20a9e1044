/* Issue 10, item 2: kernels shaped like clpeak's compute kernels (one
 * long chain of dependent multiply-adds per work-item, in a loop) are
 * compiled for several x86 targets through SKEIN_CPU, and the optimised
 * IR (SKEIN_DUMP=optimized) of each work-group function must do its
 * arithmetic in vectors at least as wide as the target's registers, for
 * the scalar type and every vector width: 256 bits on AVX2 targets, 512
 * on AVX-512 ones, whatever the host. Scalar kernels must also interleave
 * enough vectors of work-items to hide the FMA latency (compiler/
 * vector_plan.c). Targets the host cannot run are compiled and dumped,
 * and their build fails with the reason, which is checked too.
 *
 * Each target needs its own process (the target is chosen once per
 * process): the test runs itself with --child TARGET, its stderr in a
 * file, and reads the file back. */
#include "test_util.h"

#include <stdbool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char source[] =
    "#define STEP(x, y) x = MAD(y, x, y); y = MAD(x, y, x);\n"
    "#define STEP8(x, y) STEP(x, y) STEP(x, y) STEP(x, y) STEP(x, y) \\\n"
    "  STEP(x, y) STEP(x, y) STEP(x, y) STEP(x, y)\n"
    "#define CHAIN(T, name)                                          \\\n"
    "  __kernel void name(__global T *out, T seed) {                 \\\n"
    "    T x = seed, y = (T)(get_local_id(0));                       \\\n"
    "    for (int i = 0; i < 32; i++) { STEP8(x, y) }                \\\n"
    "    out[get_global_id(0)] = y;                                  \\\n"
    "  }\n"
    "#define MAD(a, b, c) mad(a, b, c)\n"
    "CHAIN(float, chain_float) CHAIN(float2, chain_float2)\n"
    "CHAIN(float4, chain_float4) CHAIN(float8, chain_float8)\n"
    "CHAIN(float16, chain_float16)\n"
    "CHAIN(double, chain_double) CHAIN(double2, chain_double2)\n"
    "CHAIN(double4, chain_double4) CHAIN(double8, chain_double8)\n"
    "CHAIN(double16, chain_double16)\n"
    "#undef MAD\n"
    "#define MAD(a, b, c) ((a) * (b) + (c))\n"
    "CHAIN(int, chain_int) CHAIN(int2, chain_int2) CHAIN(int4, chain_int4)\n"
    "CHAIN(int8, chain_int8) CHAIN(int16, chain_int16)\n"
    /* bytes: no x86 multiplies them; compiler/byte_chains.c computes
     * their chains in 16-bit lanes */
    "CHAIN(char, chain_char) CHAIN(char4, chain_char4)\n"
    "CHAIN(char16, chain_char16)\n"
    /* half: float arithmetic between F16C conversions where the target
     * has no AVX-512 FP16 (compiler/half_lower.c) */
    "#undef MAD\n"
    "#define MAD(a, b, c) mad(a, b, c)\n"
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "CHAIN(half, chain_half) CHAIN(half8, chain_half8)\n"
    "CHAIN(half16, chain_half16)\n"
    /* skein-bench-peak's shape: few trips of the kernel's loop, a loop
     * LLVM unrolls whole as the kernel wrote it, but not once its
     * vectors are split into lanes unless asked to (unrolled_whole.h):
     * it stayed a loop inside the work-item loop, which then ran one
     * work-item at a time (float8 at 52 GFLOPS against float16's 276 on
     * a 2-core Xeon). */
    "#define SHORT_CHAIN(T, name, trips)                             \\\n"
    "  __kernel void name(__global T *out, T seed) {                 \\\n"
    "    T x = seed, y = (T)(get_local_id(0));                       \\\n"
    "    for (int i = 0; i < trips; i++) { STEP8(x, y) }             \\\n"
    "    out[get_global_id(0)] = y;                                  \\\n"
    "  }\n"
    "SHORT_CHAIN(float8, short_float8, 8)\n"
    "SHORT_CHAIN(double4, short_double4, 8)\n"
    /* skein-bench-peak's float16 with 8 chains per work-item: 256
     * carried lanes, which split would spill; kept, it brings its own
     * chains. */
    "__kernel void chains8_float16(__global float16 *out, float16 s) {\n"
    "  float16 x0 = s, x1 = s + 1, x2 = s + 2, x3 = s + 3, x4 = s + 4,\n"
    "          x5 = s + 5, x6 = s + 6, x7 = s + 7;\n"
    "  float16 y0 = (float16)(get_local_id(0)), y1 = y0 + 1, y2 = y0 + 2,\n"
    "          y3 = y0 + 3, y4 = y0 + 4, y5 = y0 + 5, y6 = y0 + 6,\n"
    "          y7 = y0 + 7;\n"
    "  for (int i = 0; i < 4; i++) {\n"
    "    STEP(x0, y0) STEP(x1, y1) STEP(x2, y2) STEP(x3, y3)\n"
    "    STEP(x4, y4) STEP(x5, y5) STEP(x6, y6) STEP(x7, y7)\n"
    "  }\n"
    "  out[get_global_id(0)] = y0 + y1 + y2 + y3 + y4 + y5 + y6 + y7;\n"
    "}\n"
    /* clpeak's global read (1.1.2): 16 loads per work-item in a loop of
     * 4 trips, consecutive work-items reading consecutive floats. */
    /* A float16 chain that stores in its loop: LLVM cannot prove the
     * work-items' stores independent, so its loop is not jammed, and the
     * kernel stays in region mode. */
    "__kernel void store_float16(__global float16 *out, float16 seed) {\n"
    "  float16 x = seed, y = (float16)(get_local_id(0));\n"
    "  for (int i = 0; i < 32; i++) {\n"
    "    STEP8(x, y)\n"
    "    out[get_global_id(0) * 32 + i] = y;\n"
    "  }\n"
    "}\n"
    "#define FETCH(s, id, a) s += a[id]; id += get_local_size(0);\n"
    "__kernel void read_float(__global const float *a,\n"
    "                         __global float *b) {\n"
    "  int id = get_group_id(0) * get_local_size(0) * 16 +\n"
    "           get_local_id(0);\n"
    "  float s = 0;\n"
    "  for (int i = 0; i < 4; i++) {\n"
    "    FETCH(s, id, a) FETCH(s, id, a) FETCH(s, id, a) FETCH(s, id, a)\n"
    "  }\n"
    "  b[get_global_id(0)] = s;\n"
    "}\n"
    /* The same with float2 and float4 elements: a body too short for the
     * plan's arithmetic rules, whose vectors the loop vectoriser cannot
     * widen unless they are split into lanes. */
    "#define READ_VECTOR(T, name, sum)                               \\\n"
    "  __kernel void name(__global const T *a, __global float *b) {  \\\n"
    "    int id = get_group_id(0) * get_local_size(0) * 16 +          \\\n"
    "             get_local_id(0);                                    \\\n"
    "    T s = 0;                                                     \\\n"
    "    for (int i = 0; i < 4; i++) {                                \\\n"
    "      FETCH(s, id, a) FETCH(s, id, a) FETCH(s, id, a)            \\\n"
    "      FETCH(s, id, a)                                            \\\n"
    "    }                                                            \\\n"
    "    b[get_global_id(0)] = sum;                                   \\\n"
    "  }\n"
    "READ_VECTOR(float2, read_float2, s.x + s.y)\n"
    "READ_VECTOR(float4, read_float4, s.x + s.y + s.z + s.w)\n"
    /* A local-memory tree reduction (bench/collectives.c's): region mode
     * splits each round's work-item loop at s instead of masking. */
    "__kernel void tree_int(__global const int *in, __global int *out,\n"
    "                       __local int *l) {\n"
    "  size_t lid = get_local_id(0);\n"
    "  l[lid] = in[get_global_id(0)];\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (lid < s) l[lid] += l[lid + s];\n"
    "  }\n"
    "  if (lid == 0) out[get_group_id(0)] = l[0];\n"
    "}\n";

static const struct target {
  const char *cpu;
  unsigned vector_bits;
  bool fp16;   /* AVX-512 FP16: half arithmetic in half */
} targets[] = {
    {"x86-64-v2", 128, false},
    {"haswell", 256, false},
    {"znver3", 256, false},
    {"skylake-avx512", 512, false},
    {"znver4", 512, false},
    {"sapphirerapids", 512, true},
};

static const struct chain {
  const char *name;
  const char *elem;   /* IR element type */
  unsigned bits;
  bool scalar;
} chains[] = {
    {"chain_float", "float", 32, true},
    {"chain_float2", "float", 32, false},
    {"chain_float4", "float", 32, false},
    {"chain_float8", "float", 32, false},
    {"chain_float16", "float", 32, false},
    {"chain_double", "double", 64, true},
    {"chain_double2", "double", 64, false},
    {"chain_double4", "double", 64, false},
    {"chain_double8", "double", 64, false},
    {"chain_double16", "double", 64, false},
    {"chain_int", "i32", 32, true},
    {"chain_int2", "i32", 32, false},
    {"chain_int4", "i32", 32, false},
    {"chain_int8", "i32", 32, false},
    {"chain_int16", "i32", 32, false},
};

/* How many multiply-adds of body work on vectors of elem with at least
 * min_bits: llvm.fma/fmuladd calls for floating point, mul for i32. */
static unsigned wide_ops(const char *body, const struct chain *c,
                         unsigned min_bits) {
  unsigned count = 0;
  for (const char *line = body; line && *line;) {
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line) : strlen(line);
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < 511 ? len : 511), line);
    bool op = strcmp(c->elem, "i32") == 0
                  ? strstr(buf, " = mul ") != NULL
                  : strstr(buf, "@llvm.fma.") || strstr(buf, "@llvm.fmuladd.");
    const char *v = strchr(buf, '<');
    unsigned lanes = 0;
    char elem[16] = "";
    if (op && v && sscanf(v, "<%u x %15[a-z0-9]>", &lanes, elem) == 2 &&
        strcmp(elem, c->elem) == 0 && lanes * c->bits >= min_bits)
      count++;
    line = eol ? eol + 1 : NULL;
  }
  return count;
}

/* Whether body loads floats in vectors of at least min_bits and never
 * gathers them. */
static bool wide_loads(const char *body, unsigned min_bits) {
  if (strstr(body, "masked.gather"))
    return false;
  for (const char *p = strstr(body, " = load <"); p;
       p = strstr(p + 1, " = load <")) {
    unsigned lanes = 0;
    char elem[16] = "";
    if (sscanf(p, " = load <%u x %15[a-z0-9]>", &lanes, elem) == 2 &&
        strcmp(elem, "float") == 0 && lanes * 32 >= min_bits)
      return true;
  }
  return false;
}

/* The line of body that defines %name ("  %name = ..."), copied into
 * line; false if there is none. */
static bool defining_line(const char *body, const char *name, char *line,
                          size_t size) {
  char head[48];
  snprintf(head, sizeof head, "\n  %s = ", name);
  const char *p = strstr(body, head);
  if (!p)
    return false;
  p += 3;
  const char *eol = strchr(p, '\n');
  snprintf(line, size, "%.*s", (int)(eol ? eol - p : 400), p);
  return true;
}

/* Whether the value %later of body reads %earlier, directly or through
 * up to depth instructions that are not multiplies or phis (the add
 * between two multiplies of a chain). */
static bool reads(const char *body, const char *later, const char *earlier,
                  int depth) {
  char line[512];
  if (depth < 0 || !defining_line(body, later, line, sizeof line))
    return false;
  const char *rhs = strchr(line, '=');
  for (const char *p = rhs ? strchr(rhs, '%') : NULL; p;
       p = strchr(p + 1, '%')) {
    char op[40];
    if (sscanf(p, "%39[%0-9a-zA-Z_.]", op) != 1)
      continue;
    if (strcmp(op, earlier) == 0)
      return true;
    char def[512];
    if (defining_line(body, op, def, sizeof def) && !strstr(def, " = mul ") &&
        !strstr(def, " = phi ") && reads(body, op, earlier, depth - 1))
      return true;
  }
  return false;
}

/* Whether the first two lines of body containing op (an instruction
 * such as " = mul <16 x i32>") are one chain: the second reads the
 * first's result, directly or through an addition. Jammed copies
 * ordered by depth alternate (chain_schedule.cpp): the second is the
 * next copy's. */
static bool first_two_chained(const char *body, const char *op) {
  const char *first = strstr(body, op);
  const char *second = first ? strstr(first + 1, op) : NULL;
  if (!second)
    return true;
  char names[2][40];
  const char *at[2] = {first, second};
  for (int k = 0; k < 2; k++) {
    const char *line = at[k];
    while (line > body && line[-1] != '\n')
      line--;
    if (sscanf(line, " %39[^ =]", names[k]) != 1)
      return true;
  }
  return reads(body, names[1], names[0], 3);
}


/* Counts a failure, naming target cpu and kernel name, unless out has
 * the SKEIN_DUMP=modes line of test_mode_says(what, name, text). */
static void expect_mode(const char *cpu, const char *out, const char *what,
                        const char *name, const char *text) {
  if (test_mode_says(out, what, name, text))
    return;
  fprintf(stderr, "%s %s: no \"%s\" in its modes line\n", cpu, name, text);
  test_failures++;
}

/* Whether the plan of kernel name (its "skein: name: vectors ..." line)
 * jams no more work-items than the target's regs registers hold when
 * each needs per_item. A line without a jam passes. */
static bool jam_fits(const char *out, const char *name, unsigned regs,
                     unsigned per_item) {
  char head[128];
  snprintf(head, sizeof head, "skein: %s: vectors ", name);
  const char *p = strstr(out, head);
  if (!p)
    return false;
  const char *j = strstr(p, " jammed (");
  const char *eol = strchr(p, '\n');
  unsigned jam, chains, each;
  (void)each;
  if (!j || (eol && j > eol))
    return true;
  while (j > p && j[-1] >= '0' && j[-1] <= '9')
    j--;
  if (sscanf(j, "%u jammed (%u chains, %u registers each)", &jam, &chains,
             &each) != 3)
    return false;
  return jam * per_item <= regs;
}

/* Whether the host can run t's code: every AVX-512 target needs
 * AVX-512F (and the rest of its set, which every AVX-512 CPU Skein
 * meets has), AVX2 targets AVX2 and FMA. */
static bool host_runs(const struct target *t) {
  __builtin_cpu_init();
  if (t->vector_bits == 512)
    return __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq");
  if (t->vector_bits == 256)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return __builtin_cpu_supports("sse4.2");
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--child") == 0)
    return test_build_child(argv[2], "optimized,modes", source);
  for (size_t k = 0; k < sizeof targets / sizeof *targets; k++) {
    const struct target *t = &targets[k];
    char *out = test_run_child("/proc/self/exe", t->cpu);
    CHECK(out != NULL);
    if (!out)
      continue;
    const char *status = strstr(out, "child-build-status ");
    CHECK(status != NULL);
    int st = status ? atoi(status + 19) : 1;
    /* A target whose every feature the host has builds; one it cannot
     * run fails, saying why. znver3/znver4 name features (e.g. VAES,
     * RDPID) that some hosts with the same vector ISA lack, so only a
     * failure with the reason is required of them. */
    if (st != CL_SUCCESS) {
      CHECK(strstr(out, "lacks") != NULL);
      CHECK(!host_runs(t) || strncmp(t->cpu, "znver", 5) == 0);
    }
    for (size_t i = 0; i < sizeof chains / sizeof *chains; i++) {
      const struct chain *c = &chains[i];
      char *body = test_wg_function_ir(out, c->name);
      CHECK(body != NULL);
      if (!body) {
        fprintf(stderr, "%s: no work-group function for %s\n", t->cpu,
                c->name);
        continue;
      }
      /* 16 multiply-adds per iteration of the kernel's loop and lane,
       * done on vectors at least as wide as the target's. The FMA units
       * need 8 independent chains (vector_plan.c): a kernel whose own
       * vector fills r registers brings r, so ceil(8 / r) work-items'
       * copies of its 16 operations must be in the loop (interleaved,
       * or unroll-and-jammed around the kernel's loop), 4 or more for
       * the narrower ones and the scalars. */
      const char *digits = c->name + strcspn(c->name, "0123456789");
      unsigned regs = (unsigned)(atoi(digits) ? atoi(digits) : 1) *
                      c->bits / t->vector_bits;
      unsigned copies = regs <= 2 ? 4 : (8 + regs - 1) / regs;
      unsigned n = wide_ops(body, c, t->vector_bits);
      unsigned want = 16 * copies;
      if (n < want) {
        fprintf(stderr, "%s %s: %u multiply-adds of %u bits or more, "
                        "want %u\n", t->cpu, c->name, n, t->vector_bits,
                want);
        test_failures++;
      }
      /* A scalar chain's loop (16 multiply-adds a trip) is unrolled 4
       * times before region mode cuts it (region.cpp, MIN_CUT_TRIP_
       * INSTRUCTIONS): each region does 64 of them per trip through the
       * context memory, for each of the interleaved work-item vectors. */
      if (c->scalar && t->vector_bits >= 256 && n < 4 * want) {
        fprintf(stderr, "%s %s: %u wide multiply-adds, want %u (the cut "
                        "loop unrolled 4 times)\n", t->cpu, c->name, n,
                4 * want);
        test_failures++;
      }
      /* Without FMA (x86-64-v2) mad must be a multiply and an add:
       * llvm.fma there is a call of fmaf per lane. */
      if (t->vector_bits == 128 && strstr(body, "@llvm.fma.")) {
        fprintf(stderr, "%s %s: llvm.fma without FMA\n", t->cpu, c->name);
        test_failures++;
      }
      /* A vector exactly as wide as the registers whose carried lanes
       * (x and y: two per lane) would fill the register file once split,
       * where 16 work-items' kept copies fit the registers (float16 and
       * int16 on AVX-512: 2 zmm each), is kept whole, and its loop runs
       * in loop mode, unroll-and-jammed: region mode's cut would run the
       * work-items' copies one after another (vector_plan.c, region.cpp).
       * Narrower vectors, and as wide ones elsewhere, are split. */
      unsigned lanes = (unsigned)(atoi(digits) ? atoi(digits) : 1);
      unsigned width = lanes * c->bits;
      bool keep = width == t->vector_bits && t->vector_bits == 512 &&
                  2 * lanes >= 32;
      if (!c->scalar && keep &&
          (!test_mode_says(out, "", c->name, "vectors kept") ||
           !test_mode_says(out, "kernel", c->name, "loop mode"))) {
        fprintf(stderr, "%s %s: not kept whole in loop mode\n", t->cpu,
                c->name);
        test_failures++;
      }
      if (!c->scalar && width <= t->vector_bits && !keep &&
          !test_mode_says(out, "", c->name, "split into lanes")) {
        fprintf(stderr, "%s %s: not split into lanes\n", t->cpu, c->name);
        test_failures++;
      }
      free(body);
    }
    /* The read kernel's loop of 4 trips is unrolled whole, not cut into
     * regions (whose context round trip turned its loads into gathers):
     * it runs in loop mode and loads consecutive work-items' floats in
     * vectors of at least 256 bits (128 on SSE targets). */
    /* float2 and float4 reads: split into lanes, their loads are
     * interleaved groups, one wide load of several work-items' vectors
     * (kept whole, each work-item loaded its own float2; split with the
     * vectoriser's default run-time check limit, they stayed so). */
    static const char *const reads[] = {"read_float", "read_float2",
                                        "read_float4"};
    unsigned min_bits = t->vector_bits < 256 ? t->vector_bits : 256;
    for (size_t r = 0; r < sizeof reads / sizeof *reads; r++) {
      char *read = test_wg_function_ir(out, reads[r]);
      if (!read || !wide_loads(read, min_bits) ||
          !test_mode_says(out, "kernel", reads[r], "loop mode")) {
        fprintf(stderr, "%s %s: %s\n", t->cpu, reads[r],
                !read ? "no work-group function"
                      : "not loop mode with wide loads and no gathers");
        test_failures++;
      }
      free(read);
    }
    /* The short chains: split and vectorised across work-items, the
     * loop unrolled whole first, so their multiply-adds are on vectors
     * as wide as the registers (before, on AVX-512 targets, one
     * work-item's <8 x float> per trip of the work-item loop). */
    static const struct chain shorts[] = {
        {"short_float8", "float", 32, false},
        {"short_double4", "double", 64, false},
    };
    for (size_t i = 0; i < sizeof shorts / sizeof *shorts; i++) {
      char *body = test_wg_function_ir(out, shorts[i].name);
      unsigned n = body ? wide_ops(body, &shorts[i], t->vector_bits) : 0;
      if (n < 16) {
        fprintf(stderr, "%s %s: %u multiply-adds of %u bits or more\n",
                t->cpu, shorts[i].name, n, t->vector_bits);
        test_failures++;
      }
      free(body);
    }
    /* The jammed float16 body's chains alternate (chain_schedule.cpp):
     * the loop's second multiply-add does not take the first's result.
     * In the copies' order, each work-item's 16 dependent ones came one
     * after another, beyond the out-of-order window's reach. */
    if (t->vector_bits == 512) {
      char *body = test_wg_function_ir(out, "chain_float16");
      const char *first = body ? strstr(body, "@llvm.fmuladd.v16f32") : NULL;
      const char *second =
          first ? strstr(first + 1, "@llvm.fmuladd.v16f32") : NULL;
      bool chained = true;
      if (second) {
        const char *line = first;
        while (line > body && line[-1] != '\n')
          line--;
        char name[32] = "";
        if (sscanf(line, " %31[^ =]", name) == 1) {
          const char *eol = strchr(second, '\n');
          char next[512];
          snprintf(next, sizeof next, "%.*s",
                   (int)(eol ? eol - second : 400), second);
          char use1[40], use2[40];
          snprintf(use1, sizeof use1, "%s,", name);
          snprintf(use2, sizeof use2, "%s)", name);
          chained = strstr(next, use1) || strstr(next, use2);
        }
      }
      if (chained) {
        fprintf(stderr, "%s chain_float16: jammed chains not interleaved\n",
                t->cpu);
        test_failures++;
      }
      free(body);
    }
    /* The same for int16's jammed multiplies: integer vector multiplies
     * count as chain work (vpmulld: 10 cycles). In the copies' order,
     * int16 on AVX-512 ran at half the scalar int's figure. */
    if (t->vector_bits == 512) {
      char *body = test_wg_function_ir(out, "chain_int16");
      if (!body || first_two_chained(body, " = mul <16 x i32>")) {
        fprintf(stderr, "%s chain_int16: jammed chains not interleaved\n",
                t->cpu);
        test_failures++;
      }
      free(body);
    }
    /* Byte multiplies, which x86 lacks, are done in 16-bit lanes, a
     * register of them (compiler/byte_chains.c): the scalar and split
     * chains vectorised at the short width (16 work-items to a ymm
     * register), char16 kept in AVX2 code as a <16 x i16>. Before, LLVM
     * unpacked, multiplied and packed each byte vector back (char16 in
     * AVX2 code at 29-45 % of char's figure). SSE's char16 (kept, two
     * xmm registers as shorts) stays in bytes. */
    static const char *const bytes[] = {"chain_char", "chain_char4",
                                        "chain_char16"};
    for (size_t i = 0; i < sizeof bytes / sizeof *bytes; i++) {
      if (t->vector_bits < 256 && i == 2)
        continue;
      char *body = test_wg_function_ir(out, bytes[i]);
      char wide[32];
      snprintf(wide, sizeof wide, " = mul <%u x i16>", t->vector_bits / 16);
      unsigned n16 = body ? test_count(body, wide) : 0;
      bool byte_muls = false;
      for (const char *p = body ? strstr(body, " = mul <") : NULL; p;
           p = strstr(p + 1, " = mul <")) {
        unsigned lanes;
        char elem[8];
        byte_muls |= sscanf(p, " = mul <%u x %7[a-z0-9]>", &lanes, elem) ==
                         2 && strcmp(elem, "i8") == 0;
      }
      if (n16 < 16 || byte_muls) {
        fprintf(stderr, "%s %s: %u multiplies of <%u x i16>, byte "
                        "multiplies %s\n", t->cpu, bytes[i], n16,
                t->vector_bits / 16, byte_muls ? "left" : "none");
        test_failures++;
      }
      free(body);
    }
    if (t->vector_bits == 512)
      expect_mode(t->cpu, out, "", "chains8_float16", "vectors kept");
    /* half16 with AVX-512 FP16, split, would carry its 32 lanes in all
     * 32 zmm registers (and spilled: clpeak's half16 at 84-165 GFLOPS
     * against 308-334 kept): it is kept and jammed (vector_plan.c). */
    if (t->fp16)
      expect_mode(t->cpu, out, "", "chain_half16", "vectors kept");
    /* Half chains jam no more work-items than the registers hold (half16
     * on AVX-512 without FP16 was once jammed 16 deep in 32 registers
     * and spilled: 40 GFLOPS against 103 with 8, compiler/vector_plan.c).
     * Without FP16 a chain of mads is float arithmetic now, between
     * conversions at its ends only (compiler/half_mad_chains.cpp). */
    static const struct {
      const char *name;
      unsigned lanes;
    } halves[] = {{"chain_half", 1}, {"chain_half8", 8}, {"chain_half16", 16}};
    unsigned regs = t->vector_bits == 512 ? 32 : 16;
    for (size_t i = 0; i < sizeof halves / sizeof *halves; i++) {
      /* x and y of the work-item: in float, or with FP16 in half */
      unsigned per_item =
          (2 * halves[i].lanes * (t->fp16 ? 16 : 32) + t->vector_bits - 1) /
          t->vector_bits;
      if (t->vector_bits >= 256 &&
          !jam_fits(out, halves[i].name, regs, per_item)) {
        fprintf(stderr, "%s %s: jammed past the %u registers\n", t->cpu,
                halves[i].name, regs);
        test_failures++;
      }
    }
    /* int16 on AVX2 (two registers of 32-bit lanes, vpmulld's 10
     * cycles): split, each lane a chain across work-items (vector_plan.c:
     * 279-300 GIOPS kept, 354-436 split on the 16-core Xeon). */
    if (t->vector_bits == 256)
      expect_mode(t->cpu, out, "", "chain_int16", "split into lanes");
    /* Without FP16, a chain of half mads stays in float between its
     * ends (compiler/half_mad_chains.cpp): a rounding per mad, as
     * before, cost two F16C conversions per multiply-add (clpeak's half
     * at 25 GFLOPS where float ran at 170 on the 2-core Xeon, AVX2 code). */
    for (size_t i = 0; !t->fp16 && i < sizeof halves / sizeof *halves; i++) {
      char *body = test_wg_function_ir(out, halves[i].name);
      unsigned fmas = body ? test_count(body, "@llvm.fma.") : 0;
      unsigned rounds = body ? test_count(body, " fptrunc ") : 0;
      if (!fmas || rounds * 4 >= fmas) {
        fprintf(stderr, "%s %s: %u roundings to half for %u mads\n",
                t->cpu, halves[i].name, rounds, fmas);
        test_failures++;
      }
      free(body);
    }
    /* The tree's rounds run s work-items unmasked (region_driver.cpp's
     * split at the guard): no masked load or store, where AVX2 and
     * AVX-512 code had them in every round. (The last region's lid == 0
     * is not split: AVX-512 code gathers and scatters there.) */
    char *tree = test_wg_function_ir(out, "tree_int");
    if (!tree || strstr(tree, "@llvm.masked.load") ||
        strstr(tree, "@llvm.masked.store") ||
        !test_mode_says(out, "kernel", "tree_int", "region mode")) {
      fprintf(stderr, "%s tree_int: %s\n", t->cpu,
              !tree ? "no work-group function"
                    : "not region mode without masked accesses");
      test_failures++;
    }
    free(tree);
    if (t->vector_bits == 512)
      expect_mode(t->cpu, out, "kernel", "store_float16", "region mode");
    free(out);
  }
  return test_finish("vector-plan");
}
