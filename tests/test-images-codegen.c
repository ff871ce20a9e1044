/* Tests what the image pass (compiler/image_version.cpp) and
 * builtins/image.c leave in the vectorised work-item loops of image
 * kernels (issue 9: image reads within 2x of the same kernel over a
 * buffer), in the optimised IR (SKEIN_DUMP=optimized) of an AVX2 target
 * (haswell) and an AVX-512 one (skylake-avx512), whatever the host
 * (a target the host cannot run is still compiled and dumped):
 *
 *   - a read through a sampler vectorises on AVX2 too: its pixels
 *     outside the guessed column are a gather, which LLVM takes for
 *     legal only on CPUs it tunes as having fast gathers (not Haswell,
 *     nor Zen 1-3), and the loop stayed scalar;
 *   - such a read loads the pixels of the guessed column (the
 *     work-item's own) with a contiguous masked load in every format of
 *     4-byte pixels too (RGBA8, R FLOAT): InstCombine merged that load
 *     with the one of the sampled pixel into one load of an address
 *     chosen per lane, a gather of every lane;
 *   - the work-items' x ids are a 32-bit vector induction, not a 64-bit
 *     one truncated vector by vector;
 *   - the border tests are unsigned comparisons, one per axis;
 *   - the unorm8 decode multiplies in float, not in integers (vpmulld);
 *   - a skipped gather's lane addresses are made only where it runs;
 *   - nearest reads of pixel centres made from ints floor nothing in
 *     the vectorised loops (the ints are the pixels' indices);
 *   - a 5x5 box filter's loops are unrolled whole and its 25 reads are
 *     plain vector loads in the 8-bit formats' inside versions;
 *   - R UNORM_INT8's loops, in the inside versions of work-groups whose
 *     pixels are all inside the images, load and store vectors of bytes
 *     without masks (AVX2 has no masked byte accesses: with the border
 *     tests those loops stayed scalar).
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
    "kernel void samplerless(read_only image2d_t in,\n"
    "                        write_only image2d_t out) {\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imagef(out, c, read_imagef(in, c));\n"
    "}\n"
    "kernel void nearest(read_only image2d_t in, write_only image2d_t out) {\n"
    "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE |\n"
    "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imagef(out, c, read_imagef(in, s, c));\n"
    "}\n"
    /* Nearest reads of pixel centres made from the ids, unnormalised
     * and normalised (compiler/image_centres.cpp: the ids themselves,
     * no float round trip). */
    "kernel void centre(read_only image2d_t in, write_only image2d_t out) {\n"
    "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE |\n"
    "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imagef(out, c, read_imagef(in, s, convert_float2(c) + 0.5f));\n"
    "}\n"
    "kernel void centre_norm(read_only image2d_t in,\n"
    "                        write_only image2d_t out) {\n"
    "  const sampler_t s = CLK_NORMALIZED_COORDS_TRUE |\n"
    "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  float2 f = (convert_float2(c) + 0.5f) /\n"
    "             (float2)(get_image_width(in), get_image_height(in));\n"
    "  write_imagef(out, c, read_imagef(in, s, f));\n"
    "}\n"
    /* A 5x5 box filter over integer coordinates clamped to the edge: its
     * loops unrolled whole (image_version.cpp), the kernel in loop mode
     * (build.c: no region mode for image kernels), its reads plain
     * vector loads in the inside versions. */
    "kernel void box(read_only image2d_t in, write_only image2d_t out) {\n"
    "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE |\n"
    "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float4 sum = 0.0f;\n"
    "  for (int dy = -2; dy <= 2; dy++)\n"
    "    for (int dx = -2; dx <= 2; dx++)\n"
    "      sum += read_imagef(in, s, (int2)(x + dx, y + dy));\n"
    "  write_imagef(out, (int2)(x, y), sum * (1.0f / 25.0f));\n"
    "}\n"
    /* A barrier kernel (region mode): with one in the program, the
     * work-item builtins are inlined before the image pass runs, so that
     * the ids it narrows are add chains, not calls. */
    "kernel void reverse(global int *p) {\n"
    "  local int t[64];\n"
    "  t[get_local_id(0)] = p[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  p[get_global_id(0)] = t[63 - get_local_id(0)];\n"
    "}\n";

static const char *const targets[] = {"haswell", "skylake-avx512"};

/* Whether body has an instruction that starts with op (ending in '<')
 * on vectors of at least min_lanes elem. */
static bool vector_of(const char *body, const char *op, const char *elem,
                      unsigned min_lanes) {
  for (const char *p = strstr(body, op); p; p = strstr(p + 1, op)) {
    unsigned lanes;
    char e[8];
    if (sscanf(p + strlen(op) - 1, "<%u x %7[a-z0-9]>", &lanes, e) == 2 &&
        strcmp(e, elem) == 0 && lanes >= min_lanes)
      return true;
  }
  return false;
}

/* Whether a line of body holds a, b and c. */
static bool line_with(const char *body, const char *a, const char *b,
                      const char *c) {
  for (const char *p = strstr(body, a); p; p = strstr(p + 1, a)) {
    const char *start = p, *end = strchr(p, '\n');
    while (start > body && start[-1] != '\n')
      start--;
    size_t n = end ? (size_t)(end - start) : strlen(start);
    char line[4096];
    if (n >= sizeof line)
      continue;
    memcpy(line, start, n);
    line[n] = '\0';
    if (strstr(line, b) && strstr(line, c))
      return true;
  }
  return false;
}

/* The number of pixel gathers in body whose vector of addresses is made
 * outside the gather's block (its name defined before the block's
 * label, or not at all in it). */
static unsigned gathers_addressed_outside(const char *body) {
  static const char op[] = "@llvm.masked.gather.";
  unsigned outside = 0;
  for (const char *p = strstr(body, op); p; p = strstr(p + 1, op)) {
    const char *arg = strstr(p, " x ptr> %");
    const char *eol = strchr(p, '\n');
    if (!arg || (eol && arg > eol))
      continue;
    char name[32], def[40];
    if (sscanf(arg + 8, "%31[%0-9a-z.]", name) != 1)
      continue;
    snprintf(def, sizeof def, "  %s = ", name);
    /* Back from the gather's line to its block's label. */
    const char *line = p;
    while (line > body && line[-1] != '\n')
      line--;
    bool found = false;
    while (line > body) {
      const char *prev = line - 1;
      while (prev > body && prev[-1] != '\n')
        prev--;
      line = prev;
      if (strncmp(line, def, strlen(def)) == 0) {
        found = true;
        break;
      }
      if (line[0] != ' ' && line[0] != '\n' && strchr(line, ':') &&
          strchr(line, ':') < strchr(line, '\n'))
        break; /* the block's label */
    }
    if (!found)
      outside++;
  }
  return outside;
}

/* Whether body has a signed comparison of vectors of i32. */
static bool signed_vector_compare(const char *body) {
  static const char *const preds[] = {"slt", "sle", "sgt", "sge"};
  for (size_t i = 0; i < sizeof preds / sizeof *preds; i++) {
    char pat[32];
    snprintf(pat, sizeof pat, "icmp %s <", preds[i]);
    for (const char *p = strstr(body, pat); p; p = strstr(p + 1, pat)) {
      unsigned lanes;
      char elem[8];
      if (sscanf(p + strlen(pat) - 1, "<%u x %7[a-z0-9]>", &lanes, elem) ==
              2 &&
          strcmp(elem, "i32") == 0)
        return true;
    }
  }
  return false;
}

int main(int argc, char **argv) {
  /* The code checked is the default's: SKEIN_IMAGE_GUESS=0 (for
   * comparisons) drops the guessed column and its contiguous loads. */
  unsetenv("SKEIN_IMAGE_GUESS");
  if (argc == 3 && strcmp(argv[1], "--child") == 0)
    return test_build_child(argv[2], "optimized", source);
  for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
    const char *cpu = targets[t];
    char *out = test_run_child("/proc/self/exe", cpu);
    CHECK(out != NULL);
    if (!out)
      continue;
    char *samplerless = test_wg_function_ir(out, "samplerless");
    char *nearest = test_wg_function_ir(out, "nearest");
    CHECK(samplerless != NULL && nearest != NULL);
    if (samplerless && nearest) {
      /* The sampled read's gather of the pixels outside the guessed
       * column: there only where the loop is vectorised. */
      if (!strstr(nearest, "@llvm.masked.gather.")) {
        fprintf(stderr, "%s: nearest's loops are not vectorised (no "
                        "gather)\n", cpu);
        test_failures++;
      }
      /* The gather's lane addresses are made in the block that runs it
       * only where a lane misses the guess (cc_image_finish), not in
       * every iteration. */
      unsigned outside = gathers_addressed_outside(nearest);
      if (outside) {
        fprintf(stderr, "%s: nearest makes the addresses of %u gathers "
                        "outside their guarded blocks\n", cpu, outside);
        test_failures++;
      }
      /* RGBA8's and R FLOAT's guessed pixels: a masked load of a vector
       * of i32 or float in each of their copies. */
      unsigned contiguous = test_count(nearest, "x i32> @llvm.masked.load.") +
                            test_count(nearest, "x float> @llvm.masked.load.");
      if (contiguous < 2) {
        fprintf(stderr, "%s: nearest loads 32-bit pixels contiguously in "
                        "%u loops, want 2 (RGBA8, R FLOAT)\n", cpu,
                contiguous);
        test_failures++;
      }
      /* No 64-bit vector induction of the ids, nor its truncation (the
       * loop's vectors of ids have 8 lanes or more; the inside
       * version's test at a group's start may truncate the images'
       * extents, read as a <4 x i64>). */
      if (vector_of(samplerless, "= phi <", "i64", 1) ||
          vector_of(samplerless, "= trunc <", "i64", 8)) {
        fprintf(stderr, "%s: samplerless has a vector induction of i64\n",
                cpu);
        test_failures++;
      }
      /* R8's loops in a work-group whose pixels are all inside the
       * images (image_inside.cpp): plain vector loads and stores of
       * bytes. Where the border tests stayed, AVX2 (no masked byte
       * accesses) left those loops scalar, and AVX-512 masked them. */
      const char *r8[2] = {samplerless, nearest};
      for (int k = 0; k < 2; k++)
        if (!vector_of(r8[k], "= load <", "i8", 8) ||
            !vector_of(r8[k], "store <", "i8", 8)) {
          fprintf(stderr, "%s: %s has no unmasked vector load and store "
                          "of R8 pixels\n", cpu,
                  k ? "nearest" : "samplerless");
          test_failures++;
        }
      /* unorm8's decode multiplies in float: InstCombine made an integer
       * multiply (vpmulld) of the product of the converted code and the
       * integral constant 65793. */
      if (line_with(samplerless, " = mul ", "i32> %", "65793")) {
        fprintf(stderr, "%s: samplerless decodes unorm8 with an integer "
                        "multiply\n", cpu);
        test_failures++;
      }
      if (signed_vector_compare(samplerless)) {
        fprintf(stderr, "%s: samplerless has signed vector comparisons\n",
                cpu);
        test_failures++;
      }
    }
    /* Pixel centres: the vectorised loops floor no coordinate (the
     * scalar loop of the other formats keeps llvm.floor.f32), and in
     * the R8 and RGBA8 inside versions the clamps to the edge go too,
     * and with them the guess's test and its gather: R8's loops load
     * and store plain vectors of bytes. */
    static const char *const centres[] = {"centre", "centre_norm"};
    for (int k = 0; k < 2; k++) {
      char *ir = test_wg_function_ir(out, centres[k]);
      CHECK(ir != NULL);
      if (!ir)
        continue;
      if (strstr(ir, "@llvm.floor.v")) {
        fprintf(stderr, "%s: %s floors a vector of coordinates\n", cpu,
                centres[k]);
        test_failures++;
      }
      if (!vector_of(ir, "= load <", "i8", 8) ||
          !vector_of(ir, "store <", "i8", 8)) {
        fprintf(stderr, "%s: %s has no unmasked vector load and store of "
                        "R8 pixels\n", cpu, centres[k]);
        test_failures++;
      }
      free(ir);
    }
    /* The box filter: 25 reads a pixel, each a plain vector load of
     * RGBA8 pixels (i32) and of R8 ones (i8) in the inside versions. */
    char *box = test_wg_function_ir(out, "box");
    CHECK(box != NULL);
    if (box && (test_count(box, "= load <") < 50 ||
                !vector_of(box, "= load <", "i32", 8) ||
                !vector_of(box, "= load <", "i8", 8))) {
      fprintf(stderr, "%s: box's reads are not plain vector loads of RGBA8 "
                      "and R8 pixels (%u vector loads)\n", cpu,
              test_count(box, "= load <"));
      test_failures++;
    }
    free(box);
    free(samplerless);
    free(nearest);
    free(out);
  }
  return test_finish("test-images-codegen");
}
