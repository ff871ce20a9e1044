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
 *   - the border tests are unsigned comparisons, one per axis.
 *
 * Each target needs its own process (the target is chosen once per
 * process): the test runs itself with --child TARGET, its stderr in a
 * file, and reads the file back. */
#define _GNU_SOURCE /* setenv */
#include "test_util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* The child: builds the program for SKEIN_CPU=cpu with the optimised IR
 * on stderr. */
static int child(const char *cpu) {
  setenv("SKEIN_CPU", cpu, 1);
  setenv("SKEIN_DUMP", "optimized", 1);
  cl_platform_id platform;
  cl_device_id device;
  if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, NULL) !=
          CL_SUCCESS)
    return 2;
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  const char *src = source;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  err = clBuildProgram(prog, 1, &device, "", NULL, NULL);
  fprintf(stderr, "\nchild-build-status %d\n", err);
  clReleaseProgram(prog);
  clReleaseContext(ctx);
  return 0;
}

/* The child's stderr for cpu (malloc'd), NULL if it could not run. */
static char *run_child(const char *self, const char *cpu) {
  char path[] = "/tmp/skein-images-codegen-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0)
    return NULL;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd, 2);
    execl(self, self, "--child", cpu, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  char *text = NULL;
  FILE *f = fdopen(fd, "r");
  if (f) {
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    text = calloc(1, (size_t)size + 1);
    if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
      free(text);
      text = NULL;
    }
    fclose(f);
  }
  unlink(path);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "%s: child failed (status %d)\n", cpu, status);
    free(text);
    return NULL;
  }
  return text;
}

/* The text of the definition of @__skein_wg_<name> in ir (malloc'd), or
 * NULL. */
static char *function_body(const char *ir, const char *name) {
  char head[128];
  snprintf(head, sizeof head, "@__skein_wg_%s(", name);
  for (const char *p = strstr(ir, head); p; p = strstr(p + 1, head)) {
    const char *line = p;
    while (line > ir && line[-1] != '\n')
      line--;
    if (strncmp(line, "define ", 7) != 0)
      continue;
    const char *end = strstr(p, "\n}\n");
    return end ? strndup(line, (size_t)(end - line)) : NULL;
  }
  return NULL;
}

/* How many times text occurs in body. */
static unsigned count_calls(const char *body, const char *text) {
  unsigned n = 0;
  for (const char *p = strstr(body, text); p; p = strstr(p + 1, text))
    n++;
  return n;
}

/* Whether body has an instruction that starts with op (ending in '<')
 * on vectors of elem. */
static bool vector_of(const char *body, const char *op, const char *elem) {
  for (const char *p = strstr(body, op); p; p = strstr(p + 1, op)) {
    unsigned lanes;
    char e[8];
    if (sscanf(p + strlen(op) - 1, "<%u x %7[a-z0-9]>", &lanes, e) == 2 &&
        strcmp(e, elem) == 0)
      return true;
  }
  return false;
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
  if (argc == 3 && strcmp(argv[1], "--child") == 0)
    return child(argv[2]);
  for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
    const char *cpu = targets[t];
    char *out = run_child("/proc/self/exe", cpu);
    CHECK(out != NULL);
    if (!out)
      continue;
    char *samplerless = function_body(out, "samplerless");
    char *nearest = function_body(out, "nearest");
    CHECK(samplerless != NULL && nearest != NULL);
    if (samplerless && nearest) {
      /* The sampled read's gather of the pixels outside the guessed
       * column: there only where the loop is vectorised. */
      if (!strstr(nearest, "@llvm.masked.gather.")) {
        fprintf(stderr, "%s: nearest's loops are not vectorised (no "
                        "gather)\n", cpu);
        test_failures++;
      }
      /* RGBA8's and R FLOAT's guessed pixels: a masked load of a vector
       * of i32 or float in each of their copies. */
      unsigned contiguous = count_calls(nearest, "x i32> @llvm.masked.load.") +
                            count_calls(nearest, "x float> @llvm.masked.load.");
      if (contiguous < 2) {
        fprintf(stderr, "%s: nearest loads 32-bit pixels contiguously in "
                        "%u loops, want 2 (RGBA8, R FLOAT)\n", cpu,
                contiguous);
        test_failures++;
      }
      /* No 64-bit vector induction of the ids, nor its truncation. */
      if (vector_of(samplerless, "= phi <", "i64") ||
          vector_of(samplerless, "= trunc <", "i64")) {
        fprintf(stderr, "%s: samplerless has a vector induction of i64\n",
                cpu);
        test_failures++;
      }
      if (signed_vector_compare(samplerless)) {
        fprintf(stderr, "%s: samplerless has signed vector comparisons\n",
                cpu);
        test_failures++;
      }
    }
    free(samplerless);
    free(nearest);
    free(out);
  }
  return test_finish("test-images-codegen");
}
