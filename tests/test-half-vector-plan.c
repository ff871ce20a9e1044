/* Checks the vector plan (compiler/vector_plan.c) for half vectors on
 * the F16C path (no AVX-512 FP16), where chained half mads run in float
 * (half_mad_chains.cpp). A half8 kernel shaped like skein-bench-peak's,
 * whose loop LLVM unrolls whole, is kept as <8 x float> vectors, not
 * split into lanes, with haswell and skylake-avx512 code (split, LLVM's
 * scheduler ran its 8 work-items' chains one after another: 28-52
 * GFLOPS against 74-86 kept on the 2-core Xeon). clpeak's half8, whose
 * loop stays a loop, and half4 are still split (kept: 8-10 and 20-43
 * GFLOPS against 64 and 66-152). The first kernel also runs with
 * haswell code and its results are compared with the host's computation
 * of the same chains in float, the promise of docs/features.md's
 * cl_khr_fp16 row for chained half mads without AVX-512 FP16. */
#include <CL/cl.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "half_ref.h"
#include "test_util.h"

/* Each work-item's x and y turn by a little less than a rotation each
 * step (c * d just below 1), so the mads stay in half's range and their
 * rounding shows. chain_half8's loop (2 trips of 16 mads) is small
 * enough for LLVM to unroll whole, chain_half8_loop's is not. */
static const char *source =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "#define M(x, y) x = mad(x, c, y); y = mad(y, d, x);\n"
    "__kernel void chain_half8(__global half8 *out, float cf, float df) {\n"
    "  half c = (half)cf, d = (half)df;\n"
    "  half8 x = (half8)(0.5h, 0.625h, 0.75h, 0.875h, 1.0h, 1.125h,"
    " 1.25h, 1.375h);\n"
    "  half8 y = (half8)((half)(get_global_id(0) & 15) * 0.0625h);\n"
    "  for (int i = 0; i < 2; i++) {\n"
    "    M(x, y) M(x, y) M(x, y) M(x, y) M(x, y) M(x, y) M(x, y) M(x, y)\n"
    "  }\n"
    "  out[get_global_id(0)] = y;\n"
    "}\n"
    /* clpeak's half8: its loop (16 trips of 16 mads) stays a loop */
    "#define M16(x, y) M(x, y) M(x, y) M(x, y) M(x, y) M(x, y) M(x, y)"
    " M(x, y) M(x, y)\n"
    "__kernel void chain_half8_loop(__global half *out, float cf,"
    " float df) {\n"
    "  half c = (half)cf, d = (half)df;\n"
    "  half8 x = (half8)(0.5h, 0.625h, 0.75h, 0.875h, 1.0h, 1.125h,"
    " 1.25h, 1.375h);\n"
    "  half8 y = (half8)((half)(get_global_id(0) & 15) * 0.0625h);\n"
    "  for (int i = 0; i < 16; i++) {\n"
    "    M16(x, y)\n"
    "  }\n"
    "  out[get_global_id(0)] = y.s0 + y.s1 + y.s2 + y.s3 + y.s4 + y.s5 +"
    " y.s6 + y.s7;\n"
    "}\n"
    "__kernel void chain_half4(__global half4 *out, float cf, float df) {\n"
    "  half c = (half)cf, d = (half)df;\n"
    "  half4 x = (half4)(0.5h, 0.625h, 0.75h, 0.875h);\n"
    "  half4 y = (half4)((half)(get_global_id(0) & 15) * 0.0625h);\n"
    "  for (int i = 0; i < 8; i++) {\n"
    "    M(x, y) M(x, y) M(x, y) M(x, y) M(x, y) M(x, y) M(x, y) M(x, y)\n"
    "  }\n"
    "  out[get_global_id(0)] = y;\n"
    "}\n";

enum { ITEMS = 256 };
static const float c_arg = -0.96875f, d_arg = -1.0234375f;

/* Lane `lane` of work-item `item` with every mad in float, each reading
 * the last one's float result; the start values and the stored result
 * rounded to half. */
static uint16_t float_chain(unsigned item, int lane) {
  float c = (float)(_Float16)c_arg, d = (float)(_Float16)d_arg;
  float x = 0.5f + 0.125f * (float)lane;
  float y = (float)(item & 15) * 0.0625f;
  for (int i = 0; i < 16; i++) {
    x = fmaf(x, c, y);
    y = fmaf(y, d, x);
  }
  return hr_bits_of((_Float16)y);
}

/* The child's run: builds and runs the kernel with AVX2 code, compares
 * with float_chain. */
static int run_avx2(void) {
  setenv("SKEIN_CPU", "haswell", 1);
  test_env env;
  test_setup(&env);
  cl_program prog = test_build(&env, source, "");
  cl_mem out = test_buffer(&env, ITEMS * 8 * sizeof(uint16_t), NULL);
  cl_kernel k = NULL;
  cl_int err = CL_SUCCESS;
  k = clCreateKernel(prog, "chain_half8", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof out, &out));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof c_arg, &c_arg));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof d_arg, &d_arg));
  size_t global = ITEMS, local = 64;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  static uint16_t got[ITEMS * 8];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof got, got,
                                 0, NULL, NULL));
  unsigned bad = 0, nonzero = 0;
  for (unsigned i = 0; i < ITEMS; i++)
    for (int l = 0; l < 8; l++) {
      uint16_t want = float_chain(i, l);
      nonzero += (want & 0x7fff) != 0;
      if (got[i * 8 + l] != want && bad++ < 4)
        fprintf(stderr, "item %u lane %d: %#06x (%g), want %#06x (%g)\n", i,
                l, got[i * 8 + l], (double)hr_val(got[i * 8 + l]), want,
                (double)hr_val(want));
    }
  CHECK(bad == 0);
  CHECK(nonzero > ITEMS * 4);   /* the chains did not die out */
  clReleaseKernel(k);
  clReleaseProgram(prog);
  test_release_buffers(&out, 1);
  test_teardown(&env);
  return test_finish("test-half-vector-plan (run, haswell)");
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--child") == 0)
    return strcmp(argv[2], "run") == 0
               ? run_avx2()
               : test_build_child(argv[2], "modes", source);

  static const char *const targets[] = {"haswell", "skylake-avx512"};
  for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
    char *out = test_run_child("/proc/self/exe", targets[t]);
    CHECK(out != NULL);
    if (!out)
      continue;
    if (!test_mode_says(out, "", "chain_half8", "vectors kept")) {
      fprintf(stderr, "%s: chain_half8's vectors not kept\n", targets[t]);
      test_failures++;
    }
    /* Its loop kept, a kept half8 needs unroll-and-jam, which did not
     * happen: 8-10 GFLOPS kept against 64 split (haswell). */
    if (!test_mode_says(out, "", "chain_half8_loop", "split into lanes")) {
      fprintf(stderr, "%s: chain_half8_loop's vectors not split\n",
              targets[t]);
      test_failures++;
    }
    if (!test_mode_says(out, "", "chain_half4", "split into lanes")) {
      fprintf(stderr, "%s: chain_half4's vectors not split\n", targets[t]);
      test_failures++;
    }
    free(out);
  }

  char *ran = test_run_child("/proc/self/exe", "run");
  if (ran && *ran)
    fputs(ran, stderr);
  CHECK(ran != NULL);
  free(ran);
  return test_finish("test-half-vector-plan");
}
