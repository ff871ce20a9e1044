/* Issue 10: the tails of unroll-and-jammed work-items, computed across
 * work-items (compiler/jam_tails.cpp). clpeak's float16 and double16
 * kernels (and double8 in AVX2 code) keep their vectors whole and jam
 * several work-items' loops together; after the loop each work-item
 * summed its vector's lanes in the source's order, one shuffle and add
 * at a time (15-19 instructions a work-item, about 300 per 2048 FMAs
 * with 16 jammed on AVX-512: clpeak's float16 at 80-83 % of the FMA
 * peak, 93-100 % with the sum left out). The jammed copies' sums are
 * now computed together, lane k of each vector being copy k's, with one
 * vector store.
 *
 * Checked: for haswell (AVX2) and skylake-avx512 the optimised IR of the
 * clpeak-shaped kernels stores their results with a vector store of the
 * jammed copies (each copy stored its own float before); and the results
 * of kernels of the same shape, with values that neither overflow nor
 * vanish, are bit for bit those of the same operations in the same
 * order on the host, for the host's target and for haswell (each in a
 * child: the target is read once per process). */
#include "test_util.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char source[] =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#define MAD_4(x, y) x = mad(y, x, y); y = mad(x, y, x); "
    "x = mad(y, x, y); y = mad(x, y, x);\n"
    "#define MAD_16(x, y) MAD_4(x, y); MAD_4(x, y); MAD_4(x, y); "
    "MAD_4(x, y);\n"
    /* clpeak 1.1.2's own float16, double8 and double16 kernels */
    "__kernel void tail_float16(__global float *ptr, float _A) {\n"
    "  float16 x = (float16)(_A, (_A+1), (_A+2), (_A+3), (_A+4), (_A+5),\n"
    "    (_A+6), (_A+7), (_A+8), (_A+9), (_A+10), (_A+11), (_A+12),\n"
    "    (_A+13), (_A+14), (_A+15));\n"
    "  float16 y = (float16)get_local_id(0);\n"
    "  for (int i = 0; i < 8; i++) { MAD_16(x, y); }\n"
    "  float2 t = (y.S01) + (y.S23) + (y.S45) + (y.S67) + (y.S89) +\n"
    "    (y.SAB) + (y.SCD) + (y.SEF);\n"
    "  ptr[get_global_id(0)] = t.S0 + t.S1;\n"
    "}\n"
    "__kernel void tail_double8(__global double *ptr, double _A) {\n"
    "  double8 x = (double8)(_A, (_A+1), (_A+2), (_A+3), (_A+4), (_A+5),\n"
    "    (_A+6), (_A+7));\n"
    "  double8 y = (double8)get_local_id(0);\n"
    "  for (int i = 0; i < 16; i++) { MAD_16(x, y); }\n"
    "  ptr[get_global_id(0)] = (y.S0) + (y.S1) + (y.S2) + (y.S3) +\n"
    "    (y.S4) + (y.S5) + (y.S6) + (y.S7);\n"
    "}\n"
    "__kernel void tail_double16(__global double *ptr, double _A) {\n"
    "  double16 x = (double16)(_A, (_A+1), (_A+2), (_A+3), (_A+4), (_A+5),\n"
    "    (_A+6), (_A+7), (_A+8), (_A+9), (_A+10), (_A+11), (_A+12),\n"
    "    (_A+13), (_A+14), (_A+15));\n"
    "  double16 y = (double16)get_local_id(0);\n"
    "  for (int i = 0; i < 8; i++) { MAD_16(x, y); }\n"
    "  double2 t = (y.S01) + (y.S23) + (y.S45) + (y.S67) + (y.S89) +\n"
    "    (y.SAB) + (y.SCD) + (y.SEF);\n"
    "  ptr[get_global_id(0)] = t.S0 + t.S1;\n"
    "}\n"
    /* The same shapes with values that stay finite and inexact: x and y
     * grow by about 1.2 a step; x * 0.5 and y * -0.5 are exact, so a
     * fused or unfused multiply-add rounds the same. */
    "#define S(x, y) x = mad(x, 0.5f, y); y = mad(y, -0.5f, x);\n"
    "#define D(x, y) x = mad(x, 0.5, y); y = mad(y, -0.5, x);\n"
    "#define S8(x, y) S(x,y) S(x,y) S(x,y) S(x,y) S(x,y) S(x,y) S(x,y) "
    "S(x,y)\n"
    "#define D8(x, y) D(x,y) D(x,y) D(x,y) D(x,y) D(x,y) D(x,y) D(x,y) "
    "D(x,y)\n"
    "__kernel void sum_float16(__global float *ptr, float a) {\n"
    "  float16 x = (float16)(a) + (float16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9,\n"
    "    10, 11, 12, 13, 14, 15) * 0.125f;\n"
    "  float16 y = (float16)((float)get_global_id(0) * 0.0078125f);\n"
    "  for (int i = 0; i < 8; i++) { S8(x, y); }\n"
    "  float2 t = (y.S01) + (y.S23) + (y.S45) + (y.S67) + (y.S89) +\n"
    "    (y.SAB) + (y.SCD) + (y.SEF);\n"
    "  ptr[get_global_id(0)] = t.S0 + t.S1;\n"
    "}\n"
    "__kernel void sum_double8(__global double *ptr, double a) {\n"
    "  double8 x = (double8)(a) + (double8)(0, 1, 2, 3, 4, 5, 6, 7) *\n"
    "    0.125;\n"
    "  double8 y = (double8)((double)get_global_id(0) * 0.0078125);\n"
    "  for (int i = 0; i < 16; i++) { D8(x, y); }\n"
    "  ptr[get_global_id(0)] = (y.S0) + (y.S1) + (y.S2) + (y.S3) +\n"
    "    (y.S4) + (y.S5) + (y.S6) + (y.S7);\n"
    "}\n"
    "__kernel void sum_double16(__global double *ptr, double a) {\n"
    "  double16 x = (double16)(a) + (double16)(0, 1, 2, 3, 4, 5, 6, 7, 8,\n"
    "    9, 10, 11, 12, 13, 14, 15) * 0.125;\n"
    "  double16 y = (double16)((double)get_global_id(0) * 0.0078125);\n"
    "  for (int i = 0; i < 8; i++) { D8(x, y); }\n"
    "  double2 t = (y.S01) + (y.S23) + (y.S45) + (y.S67) + (y.S89) +\n"
    "    (y.SAB) + (y.SCD) + (y.SEF);\n"
    "  ptr[get_global_id(0)] = t.S0 + t.S1;\n"
    "}\n";

enum { ITEMS = 1000, GROUP = 100 }; /* groups not a multiple of any jam */

static float ref_float16(size_t gid, float a) {
  float x[16], y[16];
  for (int l = 0; l < 16; l++) {
    x[l] = a + (float)l * 0.125f;
    y[l] = (float)gid * 0.0078125f;
  }
  for (int i = 0; i < 64; i++)
    for (int l = 0; l < 16; l++) {
      x[l] = x[l] * 0.5f + y[l];
      y[l] = y[l] * -0.5f + x[l];
    }
  float t0 = y[0], t1 = y[1];
  for (int p = 1; p < 8; p++) {
    t0 = t0 + y[2 * p];
    t1 = t1 + y[2 * p + 1];
  }
  return t0 + t1;
}

static double ref_double(size_t gid, double a, int lanes, int steps,
                         bool pairs) {
  double x[16], y[16];
  for (int l = 0; l < lanes; l++) {
    x[l] = a + (double)l * 0.125;
    y[l] = (double)gid * 0.0078125;
  }
  for (int i = 0; i < steps; i++)
    for (int l = 0; l < lanes; l++) {
      x[l] = x[l] * 0.5 + y[l];
      y[l] = y[l] * -0.5 + x[l];
    }
  if (!pairs) {
    double s = y[0];
    for (int l = 1; l < lanes; l++)
      s = s + y[l];
    return s;
  }
  double t0 = y[0], t1 = y[1];
  for (int p = 1; p < lanes / 2; p++) {
    t0 = t0 + y[2 * p];
    t1 = t1 + y[2 * p + 1];
  }
  return t0 + t1;
}

/* Runs the sum_ kernels on this process's target and compares. */
static int run_sums(void) {
  test_env env;
  test_setup(&env);
  cl_int err;
  cl_program prog = test_build(&env, source, "");
  struct {
    const char *name;
    bool dbl;
  } ks[] = {{"sum_float16", false}, {"sum_double8", true},
            {"sum_double16", true}};
  for (size_t k = 0; k < sizeof ks / sizeof *ks; k++) {
    size_t bytes = ITEMS * (ks[k].dbl ? 8 : 4);
    cl_mem out = clCreateBuffer(env.context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK(err == CL_SUCCESS);
    cl_kernel kern = clCreateKernel(prog, ks[k].name, &err);
    CHECK(err == CL_SUCCESS);
    float af = 0.5f;
    double ad = 0.5;
    clSetKernelArg(kern, 0, sizeof out, &out);
    if (ks[k].dbl)
      clSetKernelArg(kern, 1, sizeof ad, &ad);
    else
      clSetKernelArg(kern, 1, sizeof af, &af);
    size_t global = ITEMS, local = GROUP;
    CHECK(clEnqueueNDRangeKernel(env.queue, kern, 1, NULL, &global, &local,
                                 0, NULL, NULL) == CL_SUCCESS);
    void *host = malloc(bytes);
    CHECK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, bytes, host, 0,
                              NULL, NULL) == CL_SUCCESS);
    unsigned bad = 0;
    for (size_t i = 0; i < ITEMS; i++) {
      bool same;
      if (!ks[k].dbl) {
        float want = ref_float16(i, af), got = ((float *)host)[i];
        same = memcmp(&want, &got, sizeof got) == 0 && isfinite(want);
        if (!same && bad < 3)
          fprintf(stderr, "%s[%zu]: %a, expected %a\n", ks[k].name, i, got,
                  want);
      } else {
        bool d16 = strcmp(ks[k].name, "sum_double16") == 0;
        double want = ref_double(i, ad, d16 ? 16 : 8, d16 ? 64 : 128, d16),
               got = ((double *)host)[i];
        same = memcmp(&want, &got, sizeof got) == 0 && isfinite(want);
        if (!same && bad < 3)
          fprintf(stderr, "%s[%zu]: %a, expected %a\n", ks[k].name, i, got,
                  want);
      }
      bad += !same;
    }
    CHECK(bad == 0);
    free(host);
    clReleaseKernel(kern);
    clReleaseMemObject(out);
  }
  clReleaseProgram(prog);
  test_teardown(&env);
  return test_finish("jam-tails run");
}

/* Whether the work-group function of name in out's IR stores a vector
 * of elem (a vector store of the jammed copies' results). */
static bool vector_store(const char *out, const char *name,
                         const char *elem) {
  char *body = test_wg_function_ir(out, name);
  char needle[64];
  snprintf(needle, sizeof needle, " x %s> %%", elem);
  bool found = false;
  for (const char *p = body ? strstr(body, "store <") : NULL; p && !found;
       p = strstr(p + 1, "store <")) {
    const char *eol = strchr(p, '\n');
    const char *hit = strstr(p, needle);
    found = hit && (!eol || hit < eol);
  }
  free(body);
  return found;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--child") == 0) {
    if (strncmp(argv[2], "run:", 4) == 0) {
      if (strcmp(argv[2] + 4, "native") != 0)
        setenv("SKEIN_CPU", argv[2] + 4, 1);
      return run_sums();
    }
    return test_build_child(argv[2], "optimized,modes", source);
  }
  static const struct {
    const char *cpu;
    const char *kernel, *elem;
  } want[] = {
      {"haswell", "tail_float16", "float"},
      {"haswell", "tail_double8", "double"},
      {"haswell", "tail_double16", "double"},
      {"skylake-avx512", "tail_float16", "float"},
      {"skylake-avx512", "tail_double16", "double"},
  };
  const char *done = "";
  char *out = NULL;
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    if (strcmp(done, want[i].cpu) != 0) {
      free(out);
      out = test_run_child("/proc/self/exe", want[i].cpu);
      done = want[i].cpu;
    }
    CHECK(out != NULL);
    if (!out)
      continue;
    CHECK(test_mode_says(out, "kernel", want[i].kernel, "loop mode"));
    if (!vector_store(out, want[i].kernel, want[i].elem)) {
      fprintf(stderr, "%s %s: each jammed work-item stores its own %s\n",
              want[i].cpu, want[i].kernel, want[i].elem);
      test_failures++;
    }
  }
  free(out);
  /* the results, on the host's target and in AVX2 code */
  __builtin_cpu_init();
  static const char *const runs[] = {"run:native", "run:haswell"};
  for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
    if (i == 1 && !(__builtin_cpu_supports("avx2") &&
                    __builtin_cpu_supports("fma")))
      continue;
    char *r = test_run_child("/proc/self/exe", runs[i]);
    if (!r) {
      fprintf(stderr, "%s: wrong results (above)\n", runs[i]);
      test_failures++;
    }
    free(r);
  }
  return test_finish("jam-tails");
}
