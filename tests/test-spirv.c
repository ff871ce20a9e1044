/* This file contains the tests of SPIR-V programs (issue 16): the device's
 * IL reports, clCreateProgramWithIL and its KHR alias, CL_PROGRAM_IL, the
 * same kernels built from OpenCL C and from SPIR-V giving identical
 * results (a table over tests/spirv/kernels.cl, sub-group instructions
 * included), specialization constants of every scalar type, builtin
 * variables, OpenCL.std instructions and decorations
 * (tests/spirv/extinst.spvasm), the SPIR-V forms of extended bit
 * operations and uniform group arithmetic, NoSignedWrap/NoUnsignedWrap
 * and LinkOnceODR, the cl_khr_spirv_queries lists (each entry accepted,
 * others refused), a link of a SPIR-V object with an OpenCL C one,
 * binaries of IL programs, and malformed modules with their error codes
 * and logs, a translator that is missing, hangs or crashes. The SPIR-V
 * comes from tests/spirv/, made at build time.
 * "--no-translator" (run with SKEIN_LLVM_SPIRV naming a missing file)
 * checks a device without the translator instead. */
#include "test_util.h"
#include "dot_reference.h"

#include <CL/cl_ext.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static test_env env;

static uint32_t float_bits(float f);
static void run_int_kernel(cl_program p, const char *name, int *out,
                           size_t n);

static void *spirv(const char *name, size_t *size) {
  void *p = test_read_file(SKEIN_SPIRV_TEST_DIR, name, size);
  if (!p) {
    fprintf(stderr, "missing %s/%s\n", SKEIN_SPIRV_TEST_DIR, name);
    exit(1);
  }
  return p;
}

static cl_program from_il(const void *il, size_t size) {
  cl_int err;
  cl_program p = clCreateProgramWithIL(env.context, il, size, &err);
  REQUIRE_OK(err);
  return p;
}

static char *build_log(cl_program p) {
  static char log[16384];
  log[0] = '\0';
  clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                        NULL);
  return log;
}

static void build_or_die(cl_program p, const char *options) {
  cl_int err = clBuildProgram(p, 1, &env.device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "build failed (%d):\n%s\n", err, build_log(p));
    exit(1);
  }
}

/* The device reports SPIR-V 1.0 to 1.4 (test-spirv-14 runs the 1.4
 * modules) and the IL extensions. */
static void test_reports(void) {
  char text[4096];
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_IL_VERSION, sizeof text,
                             text, NULL));
  CHECK(strcmp(text, "SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2 SPIR-V_1.3 "
                     "SPIR-V_1.4") == 0);
  cl_name_version ils[8];
  size_t size;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_ILS_WITH_VERSION,
                             sizeof ils, ils, &size));
  CHECK_EQ(size, 5 * sizeof(cl_name_version));
  for (unsigned i = 0; i < 5 && i < size / sizeof ils[0]; i++) {
    CHECK(strcmp(ils[i].name, "SPIR-V") == 0);
    CHECK_EQ(ils[i].version, CL_MAKE_VERSION(1, i, 0));
  }
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof text,
                             text, NULL));
  CHECK(strstr(text, "cl_khr_il_program") != NULL);
  cl_name_version ext[64];
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS_WITH_VERSION,
                             sizeof ext, ext, &size));
  static const char *const il_extensions[] = {
      "cl_khr_il_program", "cl_khr_spirv_no_integer_wrap_decoration",
      "cl_khr_spirv_linkonce_odr"};
  for (int e = 0; e < 3; e++) {
    int found = 0;
    for (size_t i = 0; i < size / sizeof(ext[0]); i++)
      found += strcmp(ext[i].name, il_extensions[e]) == 0;
    CHECK_EQ(found, 1);
  }
}

/* Runs kernel name of p over 256 work-items in groups of 64 with (out,
 * in, n); out (out_size bytes, zeroed first) receives the result. */
static void run_kernel(cl_program p, const char *name, const uint32_t *in,
                       void *out, size_t out_size) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  memset(out, 0, out_size);
  cl_mem bo = test_buffer(&env, out_size, out);
  cl_mem bi = test_buffer(&env, 256 * sizeof(uint32_t), (void *)in);
  cl_uint n = 256;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bi, &bi));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof n, &n));
  size_t global = 256, local = 64;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, out_size, out, 0,
                                 NULL, NULL));
  clReleaseMemObject(bo);
  clReleaseMemObject(bi);
  clReleaseKernel(k);
}

/* Every kernel of kernels.cl, with the bytes its output takes. */
static const struct {
  const char *name;
  size_t out_size;
} kernel_table[] = {
    {"arith", 256 * 4},         {"float_math", 256 * 4},
    {"double_math", 256 * 8},   {"vectors", 256 * 16},
    {"shorts_chars", 256 * 2},  {"conversions", 256 * 4},
    {"half_math", 512 * 2},     {"atomics", 256 * 4},
    {"local_barrier", 256 * 4}, {"collectives", 256 * 4},
    {"loops", 256 * 4},         {"structs", 256 * 16},
    {"workitem", 256 * 4},      {"calls", 256 * 4},
    {"generic_ptr", 256 * 4},   {"subgroups", 256 * 4},
    {"intel_subgroups", 256 * 4},
};

/* The same kernels from OpenCL C and from SPIR-V: identical bits. */
static void test_same_results(void) {
  size_t src_size, il_size;
  char *src = test_read_file(SKEIN_SPIRV_SOURCE_DIR, "kernels.cl", &src_size);
  void *il = spirv("kernels.spv", &il_size);
  CHECK(src != NULL);
  cl_program from_c = test_build(&env, src, "-cl-std=CL3.0");
  cl_program from_spirv = from_il(il, il_size);
  build_or_die(from_spirv, "");
  size_t n_c = 0, n_il = 0;   /* CL_PROGRAM_NUM_KERNELS is a size_t */
  REQUIRE_OK(clGetProgramInfo(from_c, CL_PROGRAM_NUM_KERNELS, sizeof n_c,
                              &n_c, NULL));
  REQUIRE_OK(clGetProgramInfo(from_spirv, CL_PROGRAM_NUM_KERNELS,
                              sizeof n_il, &n_il, NULL));
  CHECK_EQ(n_il, n_c);
  uint32_t in[256];
  test_seed(16);
  for (int i = 0; i < 256; i++)
    in[i] = (uint32_t)test_rand();
  for (size_t t = 0; t < sizeof kernel_table / sizeof kernel_table[0]; t++) {
    size_t size = kernel_table[t].out_size;
    unsigned char *a = malloc(size), *b = malloc(size);
    run_kernel(from_c, kernel_table[t].name, in, a, size);
    run_kernel(from_spirv, kernel_table[t].name, in, b, size);
    if (memcmp(a, b, size) != 0) {
      size_t at = 0;
      while (a[at] == b[at])
        at++;
      fprintf(stderr, "kernel %s: OpenCL C and SPIR-V differ at byte %zu\n",
              kernel_table[t].name, at);
      test_failures++;
    }
    free(a);
    free(b);
  }
  clReleaseProgram(from_c);
  clReleaseProgram(from_spirv);
  free(src);
  free(il);
}

/* extinst.spv: builtin variables, OpenCL.std instructions and
 * decorations, against the host's values. */
static void test_extinst(void) {
  size_t size;
  void *il = spirv("extinst.spv", &size);
  cl_program p = from_il(il, size);
  build_or_die(p, "");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "extinst", &err);
  REQUIRE_OK(err);
  enum { N = 64, LOCAL = 16 };
  float in[N];
  for (int g = 0; g < N; g++)
    in[g] = (float)(g * g);
  cl_mem bo = test_buffer(&env, N * 8 * sizeof(uint32_t), NULL);
  cl_mem bi = test_buffer(&env, sizeof in, in);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bi, &bi));
  size_t global = N, local = LOCAL;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local, 0,
                                    NULL, NULL));
  uint32_t out[N * 8];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  for (int g = 0; g < N; g++) {
    uint32_t *o = out + 8 * g, xi = (uint32_t)(g * g);
    float x = in[g];
    CHECK_EQ(o[0], float_bits((float)g));
    CHECK_EQ(o[1], float_bits(x > 2.0f ? x : 2.0f));
    CHECK_EQ(o[2], float_bits(x * x + 1.0f));   /* exact: small integers */
    CHECK_EQ(o[3], xi);
    CHECK_EQ(o[4], xi < 7 ? xi : 7);
    CHECK_EQ(o[5], xi ? (uint32_t)__builtin_clz(xi) : 32);
    CHECK_EQ(o[6], xi + 100);
    CHECK_EQ(o[7], (uint32_t)(g % LOCAL | (g / LOCAL) << 8 | LOCAL << 16));
  }
  clReleaseMemObject(bo);
  clReleaseMemObject(bi);
  clReleaseKernel(k);
  clReleaseProgram(p);
  free(il);
}

/* Runs kernel name of the module file over 64 work-items in groups of
 * 8 with (out, in); out has out_words words. */
static void run_asm(const char *file, const char *name, const uint32_t *in,
                    uint32_t *out, size_t out_words) {
  size_t size;
  void *il = spirv(file, &size);
  cl_program p = from_il(il, size);
  build_or_die(p, "");
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  cl_mem bo = test_buffer(&env, out_words * 4, NULL);
  cl_mem bi = test_buffer(&env, 64 * 4, (void *)in);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bo, &bo));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bi, &bi));
  size_t global = 64, local = 8;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, out_words * 4,
                                 out, 0, NULL, NULL));
  clReleaseMemObject(bo);
  clReleaseMemObject(bi);
  clReleaseKernel(k);
  clReleaseProgram(p);
  free(il);
}

static uint32_t bit_reverse(uint32_t x) {
  uint32_t r = 0;
  for (int i = 0; i < 32; i++)
    r |= ((x >> i) & 1u) << (31 - i);
  return r;
}

/* The SPIR-V forms of cl_khr_extended_bit_ops and
 * cl_khr_work_group_uniform_arithmetic (their capabilities are taken
 * because the device lists those extensions). */
static void test_extension_capabilities(void) {
  uint32_t in[64], out[128];
  test_seed(1616);
  for (int i = 0; i < 64; i++)
    in[i] = (uint32_t)test_rand() | 1u;   /* odd: products stay odd */
  run_asm("bits.spv", "bits", in, out, 128);
  for (int i = 0; i < 64; i++) {
    CHECK_EQ(out[2 * i], (bit_reverse(in[i]) >> 3) & 0xfu);
    CHECK_EQ(out[2 * i + 1], (in[i] & ~0xff00u) | 0xff00u);
  }
  run_asm("uniform.spv", "uniform", in, out, 64);
  for (int g = 0; g < 8; g++) {
    uint32_t prod = 1, scan = ~0u;
    for (int i = 0; i < 8; i++)
      prod *= in[8 * g + i];
    for (int i = 0; i < 8; i++) {
      scan &= in[8 * g + i];
      CHECK_EQ(out[8 * g + i], prod + scan);
    }
  }
}

/* SPV_KHR_no_integer_wrap_decoration: NoSignedWrap and NoUnsignedWrap
 * on arithmetic that does not wrap give the plain results. */
static void test_no_integer_wrap(void) {
  uint32_t in[64], out[128];
  test_seed(1617);
  for (int i = 0; i < 64; i++)
    in[i] = (uint32_t)test_rand() & 0xffffu;
  run_asm("nowrap.spv", "nowrap", in, out, 128);
  for (int i = 0; i < 64; i++) {
    CHECK_EQ(out[i], ((in[i] * 3 + 5) << 2) - in[i]);
    CHECK_EQ(out[64 + i], 0u - in[i]);
  }
}

/* SPV_KHR_expect_assume: OpAssumeTrueKHR and OpExpectKHR (llvm.assume
 * and llvm.expect) keep the kernel's results. */
static void test_expect_assume(void) {
  uint32_t in[64], out[64];
  test_seed(1619);
  for (int i = 0; i < 64; i++)
    in[i] = ((uint32_t)test_rand() & 0xffffu) | 1u;   /* odd, as assumed */
  run_asm("expect_assume.spv", "expect_assume", in, out, 64);
  for (int i = 0; i < 64; i++)
    CHECK_EQ(out[i], 2 * in[i]);
}

/* Scalar OpConstantNull and OpVectorShuffle of vectors of different
 * lengths, which llvm-spirv 15 aborts on and Skein rewrites first. */
static void test_translator_workarounds(void) {
  uint32_t in[64], out[512];
  test_seed(1620);
  for (int i = 0; i < 64; i++)
    in[i] = (uint32_t)test_rand() & 0xffffffu;
  run_asm("null_shuffle.spv", "null_shuffle", in, out, 512);
  for (int i = 0; i < 64; i++) {
    const uint32_t x = in[i], *o = out + 8 * i;
    const uint32_t expect[8] = {x + 1, x + 2, x + 5, x, x, x + 5, x + 1,
                                x + 1};
    for (int c = 0; c < 8; c++)
      CHECK_EQ(o[c], expect[c]);
  }
}

/* SPV_KHR_integer_dot_product: every dot instruction, packed and 4 x
 * 8-bit vector, against the host. */
static void test_integer_dot_product(void) {
  uint32_t in[64], out[640];
  test_seed(1621);
  for (int i = 0; i < 64; i++)
    in[i] = (uint32_t)test_rand();
  in[0] = 0x7fffffffu;   /* saturates the signed accumulations */
  in[1] = 0x7f7f7f7fu;
  in[2] = 0xffffffffu;   /* and the unsigned one */
  in[3] = 0xffffffffu;
  run_asm("dot.spv", "dot", in, out, 640);
  for (int i = 0; i < 64; i++) {
    uint32_t x = in[i], y = in[i ^ 1];
    const uint32_t *o = out + 10 * i;
    int64_t ss = ref_dot(x, y, true, true), uu = ref_dot(x, y, false, false),
            su = ref_dot(x, y, true, false);
    CHECK_EQ(o[0], (uint32_t)ss);
    CHECK_EQ(o[1], (uint32_t)uu);
    CHECK_EQ(o[2], (uint32_t)su);
    CHECK_EQ(o[3], (uint32_t)ref_sat_int(ss + (int32_t)x));
    CHECK_EQ(o[4], ref_sat_uint(uu + x));
    CHECK_EQ(o[5], (uint32_t)ref_sat_int(su + (int32_t)x));
    CHECK_EQ(o[6], (uint32_t)ss);
    CHECK_EQ(o[7], (uint32_t)uu);
    CHECK_EQ(o[8], (uint32_t)su);
    CHECK_EQ(o[9], (uint32_t)ref_sat_int(ss + (int32_t)y));
  }
}

/* SPV_KHR_linkonce_odr: two IL objects that both define lo_helper with
 * LinkOnceODR linkage link into one program (without the linkage the
 * link fails on the duplicate symbol). */
static void test_linkonce_odr(void) {
  cl_program units[2];
  void *il[2];
  const char *files[2] = {"linkonce_a.spv", "linkonce_b.spv"};
  for (int u = 0; u < 2; u++) {
    size_t size;
    il[u] = spirv(files[u], &size);
    units[u] = from_il(il[u], size);
    cl_int err = clCompileProgram(units[u], 1, &env.device, "", 0, NULL,
                                  NULL, NULL, NULL);
    if (err != CL_SUCCESS)
      fprintf(stderr, "compile of %s failed:\n%s\n", files[u],
              build_log(units[u]));
    REQUIRE_OK(err);
  }
  cl_int err;
  cl_program linked = clLinkProgram(env.context, 1, &env.device, "", 2,
                                    units, NULL, NULL, &err);
  if (err != CL_SUCCESS && linked)
    fprintf(stderr, "link failed:\n%s\n", build_log(linked));
  REQUIRE_OK(err);
  int out[16];
  run_int_kernel(linked, "linkonce_a", out, 16);
  for (int i = 0; i < 16; i++)
    CHECK_EQ(out[i], 7 * i + 1);
  run_int_kernel(linked, "linkonce_b", out, 16);
  for (int i = 0; i < 16; i++)
    CHECK_EQ(out[i], 7 * i + 100);
  clReleaseProgram(linked);
  for (int u = 0; u < 2; u++) {
    clReleaseProgram(units[u]);
    free(il[u]);
  }
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* The Pipes capability (listed with pipe support): a producer and a
 * consumer kernel from SPIR-V pass every packet through a pipe once.
 * Without pipe support the module is refused. */
static void test_pipes(void) {
  cl_bool pipes = CL_FALSE;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_PIPE_SUPPORT,
                             sizeof pipes, &pipes, NULL));
  size_t size;
  void *il = spirv("pipes.spv", &size);
  cl_program p = from_il(il, size);
  if (!pipes) {
    CHECK_EQ(clBuildProgram(p, 1, &env.device, "", NULL, NULL),
             CL_BUILD_PROGRAM_FAILURE);
    CHECK(strstr(build_log(p), "capability 17 is not supported") != NULL);
    clReleaseProgram(p);
    free(il);
    return;
  }
  build_or_die(p, "");
  enum { N = 64 };
  uint32_t in[N], out[N];
  test_seed(1618);
  for (int i = 0; i < N; i++)
    in[i] = (uint32_t)test_rand() & 0x7fffffffu;
  cl_int err;
  cl_mem pipe = clCreatePipe(env.context, 0, 4, N, NULL, &err);
  REQUIRE_OK(err);
  cl_mem bi = test_buffer(&env, sizeof in, in);
  cl_mem bo = test_buffer(&env, sizeof out, NULL);
  cl_kernel prod = clCreateKernel(p, "pipe_producer", &err);
  REQUIRE_OK(err);
  cl_kernel cons = clCreateKernel(p, "pipe_consumer", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(prod, 0, sizeof bi, &bi));
  REQUIRE_OK(clSetKernelArg(prod, 1, sizeof pipe, &pipe));
  REQUIRE_OK(clSetKernelArg(cons, 0, sizeof bo, &bo));
  REQUIRE_OK(clSetKernelArg(cons, 1, sizeof pipe, &pipe));
  size_t global = N, local = 16;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, prod, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, cons, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bo, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  qsort(in, N, sizeof in[0], cmp_u32);
  qsort(out, N, sizeof out[0], cmp_u32);
  for (int i = 0; i < N; i++)
    CHECK_EQ(out[i], in[i]);
  clReleaseKernel(prod);
  clReleaseKernel(cons);
  clReleaseMemObject(bi);
  clReleaseMemObject(bo);
  clReleaseMemObject(pipe);
  clReleaseProgram(p);
  free(il);
}

/* cl_khr_spirv_queries (not in Debian's 2023.02.06 headers). */
#define DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR 0x12B9
#define DEVICE_SPIRV_EXTENSIONS_KHR 0x12BA
#define DEVICE_SPIRV_CAPABILITIES_KHR 0x12BB

/* What the device lists with images on (the default), each capability
 * with the SPIR-V extension a module declaring it needs. */
static const struct {
  uint32_t cap;
  const char *ext;
} listed_caps[] = {
    {4, NULL},      /* Addresses */
    {5, NULL},      /* Linkage */
    {6, NULL},      /* Kernel */
    {7, NULL},      /* Vector16 */
    {8, NULL},      /* Float16Buffer */
    {9, NULL},      /* Float16 */
    {10, NULL},     /* Float64 */
    {11, NULL},     /* Int64 */
    {12, NULL},     /* Int64Atomics */
    {18, NULL},     /* Groups */
    {22, NULL},     /* Int16 */
    {38, NULL},     /* GenericPointer */
    {39, NULL},     /* Int8 */
    {58, NULL},     /* SubgroupDispatch */
    {17, NULL},     /* Pipes: only with CL_DEVICE_PIPE_SUPPORT */
    {19, NULL},     /* DeviceEnqueue (tests/test-spirv-enqueue.c) */
    {13, NULL},     /* ImageBasic */
    {14, NULL},     /* ImageReadWrite */
    {20, NULL},     /* LiteralSampler */
    {43, NULL},     /* Sampled1D */
    {44, NULL},     /* Image1D */
    {46, NULL},     /* SampledBuffer */
    {47, NULL},     /* ImageBuffer */
    {61, NULL},     /* GroupNonUniform */
    {62, NULL},     /* GroupNonUniformVote */
    {63, NULL},     /* GroupNonUniformArithmetic */
    {64, NULL},     /* GroupNonUniformBallot */
    {65, NULL},     /* GroupNonUniformShuffle */
    {66, NULL},     /* GroupNonUniformShuffleRelative */
    {67, NULL},     /* GroupNonUniformClustered */
    {59, NULL},     /* NamedBarrier (tests/test-spirv-ext.c) */
    {5055, "SPV_KHR_shader_clock"},   /* ShaderClockKHR (likewise) */
    {6033, "SPV_EXT_shader_atomic_float_add"},     /* AtomicFloat32AddEXT */
    {6034, "SPV_EXT_shader_atomic_float_add"},     /* AtomicFloat64AddEXT */
    {6095, "SPV_EXT_shader_atomic_float16_add"},   /* AtomicFloat16AddEXT */
    {5612, "SPV_EXT_shader_atomic_float_min_max"},
    {5613, "SPV_EXT_shader_atomic_float_min_max"},
    {5616, "SPV_EXT_shader_atomic_float_min_max"},
    {5629, "SPV_KHR_expect_assume"},
    {6017, "SPV_KHR_integer_dot_product"},
    {6018, "SPV_KHR_integer_dot_product"},
    {6019, "SPV_KHR_integer_dot_product"},
    {6025, "SPV_KHR_bit_instructions"},
    {6026, "SPV_KHR_subgroup_rotate"},
    {6400, "SPV_KHR_uniform_group_instructions"},
    {5568, "SPV_INTEL_subgroups"},   /* SubgroupShuffleINTEL */
    {5569, "SPV_INTEL_subgroups"},   /* SubgroupBufferBlockIOINTEL */
    {5570, "SPV_INTEL_subgroups"},   /* SubgroupImageBlockIOINTEL */
};
static const char *const listed_exts[] = {
    "SPV_KHR_no_integer_wrap_decoration", "SPV_KHR_linkonce_odr",
    "SPV_KHR_bit_instructions", "SPV_KHR_expect_assume",
    "SPV_KHR_integer_dot_product",
    "SPV_KHR_subgroup_rotate",
    "SPV_KHR_uniform_group_instructions", "SPV_INTEL_subgroups",
    "SPV_KHR_shader_clock", "SPV_EXT_shader_atomic_float_add",
    "SPV_EXT_shader_atomic_float16_add",
    "SPV_EXT_shader_atomic_float_min_max"};
static const char *const listed_sets[] = {"OpenCL.std",
                                          "OpenCL.DebugInfo.100"};

/* A SPIR-V 1.3 module being written word by word. */
typedef struct {
  uint32_t w[1024];
  unsigned n;
} module_words;

static void put(module_words *m, uint32_t op, unsigned count,
                const uint32_t *ops) {
  m->w[m->n++] = (count + 1) << 16 | op;
  for (unsigned i = 0; i < count; i++)
    m->w[m->n++] = ops[i];
}

/* An instruction whose operands are the optional id (0: none) and the
 * literal string s. */
static void put_string(module_words *m, uint32_t op, uint32_t id,
                       const char *s) {
  uint32_t ops[32] = {0};
  unsigned n = 0;
  if (id)
    ops[n++] = id;
  size_t len = strlen(s) + 1;
  memcpy(ops + n, s, len);
  put(m, op, n + (unsigned)((len + 3) / 4), ops);
}

/* A module declaring Addresses, Kernel and Int64, the n caps, the n_ext
 * extensions and the n_sets instruction set imports, with one empty
 * kernel "k" (and the SubgroupsPerWorkgroup execution mode if spw). */
static void make_module(module_words *m, const uint32_t *caps, unsigned n,
                        const char *const *exts, unsigned n_ext,
                        const char *const *sets, unsigned n_sets, bool spw) {
  enum { VOID = 1, FNTY, FN, LABEL, FIRST_SET };
  uint32_t header[5] = {0x07230203u, 0x00010300u, 0, FIRST_SET + n_sets, 0};
  memcpy(m->w, header, sizeof header);
  m->n = 5;
  const uint32_t base[3] = {4, 6, 11};
  for (unsigned i = 0; i < 3; i++)
    put(m, 17, 1, &base[i]);
  for (unsigned i = 0; i < n; i++)
    put(m, 17, 1, &caps[i]);
  for (unsigned i = 0; i < n_ext; i++)
    put_string(m, 10, 0, exts[i]);
  for (unsigned i = 0; i < n_sets; i++)
    put_string(m, 11, FIRST_SET + i, sets[i]);
  put(m, 14, 2, (const uint32_t[]){2, 2});   /* Physical64 OpenCL */
  uint32_t entry[3] = {6, FN, 'k'};          /* Kernel %fn "k" */
  put(m, 15, 3, entry);
  if (spw)   /* OpExecutionMode %fn SubgroupsPerWorkgroup 2 */
    put(m, 16, 3, (const uint32_t[]){FN, 36, 2});
  put(m, 19, 1, (const uint32_t[]){VOID});
  put(m, 33, 2, (const uint32_t[]){FNTY, VOID});
  put(m, 54, 4, (const uint32_t[]){VOID, FN, 0, FNTY});
  put(m, 248, 1, (const uint32_t[]){LABEL});
  put(m, 253, 0, NULL);
  put(m, 56, 0, NULL);
}

/* Builds m; returns the error and copies the build log into why. */
static cl_int build_module(const module_words *m, char *why, size_t size) {
  cl_program p = from_il(m->w, m->n * 4);
  cl_int err = clBuildProgram(p, 1, &env.device, "", NULL, NULL);
  const char *log = build_log(p);
  snprintf(why, size, "%s", log);
  clReleaseProgram(p);
  return err;
}

/* Whether the n names have s. */
static bool has_name(const char *const *names, size_t n, const char *s) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(names[i], s) == 0)
      return true;
  return false;
}

/* cl_khr_spirv_queries: the three lists are exactly what the device
 * accepts. A module declaring every listed capability, extension and
 * instruction set builds; one capability, extension, set or execution
 * mode outside them fails the build with a log naming it. */
static void test_spirv_queries(void) {
  char text[4096];
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof text,
                             text, NULL));
  CHECK(strstr(text, "cl_khr_spirv_queries") != NULL);
  const char *names[64];
  size_t size;
  REQUIRE_OK(clGetDeviceInfo(env.device,
                             DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR,
                             sizeof names, names, &size));
  size_t n_sets = size / sizeof(char *);
  CHECK_EQ(n_sets, 2);
  for (size_t i = 0; i < 2; i++)
    CHECK(has_name(names, n_sets, listed_sets[i]));
  REQUIRE_OK(clGetDeviceInfo(env.device, DEVICE_SPIRV_EXTENSIONS_KHR,
                             sizeof names, names, &size));
  size_t n_ext = size / sizeof(char *);
  CHECK_EQ(n_ext, sizeof listed_exts / sizeof listed_exts[0]);
  for (size_t i = 0; i < sizeof listed_exts / sizeof listed_exts[0]; i++)
    CHECK(has_name(names, n_ext, listed_exts[i]));
  cl_uint caps[64];
  REQUIRE_OK(clGetDeviceInfo(env.device, DEVICE_SPIRV_CAPABILITIES_KHR,
                             sizeof caps, caps, &size));
  size_t n_caps = size / sizeof(cl_uint);
  cl_bool pipes = CL_FALSE;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_PIPE_SUPPORT,
                             sizeof pipes, &pipes, NULL));
  const size_t n_listed = sizeof listed_caps / sizeof listed_caps[0];
  CHECK_EQ(n_caps, n_listed - (pipes ? 0 : 1));
  for (size_t i = 0; i < n_listed; i++) {
    if (listed_caps[i].cap == 17 && !pipes)
      continue;
    bool found = false;
    for (size_t j = 0; j < n_caps; j++)
      found |= caps[j] == listed_caps[i].cap;
    if (!found)
      fprintf(stderr, "capability %u not listed\n", listed_caps[i].cap);
    CHECK(found);
  }
  /* Too small a buffer is CL_INVALID_VALUE, as for every query. */
  CHECK_EQ(clGetDeviceInfo(env.device, DEVICE_SPIRV_CAPABILITIES_KHR, 4, caps,
                           NULL),
           CL_INVALID_VALUE);

  /* Every listed capability, extension and set at once builds. */
  static module_words m;
  char log[16384];
  make_module(&m, caps, (unsigned)n_caps, names, (unsigned)n_ext,
              listed_sets, 2, false);
  cl_int err = build_module(&m, log, sizeof log);
  if (err != CL_SUCCESS)
    fprintf(stderr, "module of every listed capability: %d\n%s\n", err, log);
  CHECK_EQ(err, CL_SUCCESS);

  /* Outside the lists: Geometry, Shader, AtomicStorage, an Intel
   * extension, GLSL's instruction set, SubgroupsPerWorkgroup. */
  static const uint32_t refused_caps[] = {2, 1, 21};
  for (int i = 0; i < 3; i++) {
    make_module(&m, &refused_caps[i], 1, NULL, 0, NULL, 0, false);
    CHECK_EQ(build_module(&m, log, sizeof log), CL_BUILD_PROGRAM_FAILURE);
    char expect[64];
    snprintf(expect, sizeof expect, "capability %u is not supported",
             refused_caps[i]);
    CHECK(strstr(log, expect) != NULL);
  }
  const char *intel = "SPV_INTEL_media_block_io";
  make_module(&m, NULL, 0, &intel, 1, NULL, 0, false);
  CHECK_EQ(build_module(&m, log, sizeof log), CL_BUILD_PROGRAM_FAILURE);
  CHECK(strstr(log, "extension \"SPV_INTEL_media_block_io\" is not") !=
        NULL);
  const char *glsl = "GLSL.std.450";
  make_module(&m, NULL, 0, NULL, 0, &glsl, 1, false);
  CHECK_EQ(build_module(&m, log, sizeof log), CL_BUILD_PROGRAM_FAILURE);
  CHECK(strstr(log, "instruction set \"GLSL.std.450\" is not") != NULL);
  const uint32_t dispatch = 58;
  make_module(&m, &dispatch, 1, NULL, 0, NULL, 0, true);
  CHECK_EQ(build_module(&m, log, sizeof log), CL_BUILD_PROGRAM_FAILURE);
  CHECK(strstr(log, "SubgroupsPerWorkgroup") != NULL);
}

/* CL_PROGRAM_IL returns the module as given; CL_PROGRAM_SOURCE is empty;
 * the KHR entry point makes the same kind of program. */
static void test_program_il(void) {
  size_t size;
  void *il = spirv("spec.spv", &size);
  cl_program p = from_il(il, size);
  size_t got = 0;
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_IL, 0, NULL, &got));
  CHECK_EQ(got, size);
  void *back = malloc(size);
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_IL, size, back, NULL));
  CHECK(memcmp(back, il, size) == 0);
  free(back);
  char text[8];
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_SOURCE, sizeof text, text,
                              &got));
  CHECK_EQ(got, 1);
  clReleaseProgram(p);

  clCreateProgramWithILKHR_fn khr =
      (clCreateProgramWithILKHR_fn)clGetExtensionFunctionAddressForPlatform(
          env.platform, "clCreateProgramWithILKHR");
  CHECK(khr != NULL);
  if (khr) {
    cl_int err;
    p = khr(env.context, il, size, &err);
    CHECK_EQ(err, CL_SUCCESS);
    /* No argument info for IL programs, even when asked for. */
    build_or_die(p, "-cl-kernel-arg-info");
    cl_kernel k = clCreateKernel(p, "spec", &err);
    REQUIRE_OK(err);
    char name[64];
    CHECK_EQ(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof name, name,
                                NULL),
             CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
  /* A program from source has no IL. */
  cl_program c = test_build(&env, "kernel void k(void) {}", "");
  REQUIRE_OK(clGetProgramInfo(c, CL_PROGRAM_IL, 0, NULL, &got));
  CHECK_EQ(got, 0);
  clReleaseProgram(c);
  free(il);
}

/* Runs spec.spv's kernel: out[0..7] as the module stores them. */
static void run_spec(cl_program p, uint64_t out[8]) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, "spec", &err);
  REQUIRE_OK(err);
  cl_mem b = test_buffer(&env, 8 * sizeof(uint64_t), NULL);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof b, &b));
  size_t one = 1;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &one, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b, CL_TRUE, 0,
                                 8 * sizeof(uint64_t), out, 0, NULL, NULL));
  clReleaseMemObject(b);
  clReleaseKernel(k);
}

static uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static uint64_t double_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

/* Specialization constants of every scalar type: the module's defaults,
 * then values set before a build, then the errors. */
static void test_spec_constants(void) {
  size_t size;
  void *il = spirv("spec.spv", &size);
  cl_program p = from_il(il, size);
  uint64_t out[8];
  build_or_die(p, "");
  run_spec(p, out);
  CHECK_EQ(out[0], 0);
  CHECK_EQ(out[1], (uint64_t)(int64_t)-3);   /* 253 as a signed char */
  CHECK_EQ(out[2], 1000);
  CHECK_EQ(out[3], 100000);
  CHECK_EQ(out[4], 10000000000ull);
  CHECK_EQ(out[5], 0x3e00);                   /* half 1.5 */
  CHECK_EQ(out[6], float_bits(2.5f));
  CHECK_EQ(out[7], double_bits(3.25));

  cl_uchar b = 1;
  cl_char c = -100;
  cl_short s = -12345;
  cl_int i = -2000000000;
  cl_long l = -1234567890123456789ll;
  cl_half h = 0xc500;                         /* -5.0 */
  cl_float f = -0.125f;
  cl_double d = 1e300;
  REQUIRE_OK(clSetProgramSpecializationConstant(p, 0, sizeof b, &b));
  REQUIRE_OK(clSetProgramSpecializationConstant(p, 1, sizeof c, &c));
  REQUIRE_OK(clSetProgramSpecializationConstant(p, 2, sizeof s, &s));
  REQUIRE_OK(clSetProgramSpecializationConstant(p, 3, sizeof i, &i));
  REQUIRE_OK(clSetProgramSpecializationConstant(p, 4, sizeof l, &l));
  REQUIRE_OK(clSetProgramSpecializationConstant(p, 5, sizeof h, &h));
  REQUIRE_OK(clSetProgramSpecializationConstant(p, 6, sizeof f, &f));
  REQUIRE_OK(clSetProgramSpecializationConstant(p, 7, sizeof d, &d));
  build_or_die(p, "");
  run_spec(p, out);
  CHECK_EQ(out[0], 1);
  CHECK_EQ(out[1], (uint64_t)(int64_t)-100);
  CHECK_EQ(out[2], (uint64_t)(int64_t)-12345);
  CHECK_EQ(out[3], (uint64_t)(int64_t)-2000000000);
  CHECK_EQ(out[4], (uint64_t)l);
  CHECK_EQ(out[5], 0xc500);
  CHECK_EQ(out[6], float_bits(-0.125f));
  CHECK_EQ(out[7], double_bits(1e300));

  /* Setting one again replaces it; the others stay. */
  b = 0;
  REQUIRE_OK(clSetProgramSpecializationConstant(p, 0, sizeof b, &b));
  build_or_die(p, "");
  run_spec(p, out);
  CHECK_EQ(out[0], 0);
  CHECK_EQ(out[3], (uint64_t)(int64_t)-2000000000);

  /* CL_INVALID_SPEC_ID, CL_INVALID_VALUE (size, NULL value),
   * CL_INVALID_PROGRAM (not an IL program, not a program). */
  CHECK_EQ(clSetProgramSpecializationConstant(p, 8, 4, &i),
           CL_INVALID_SPEC_ID);
  CHECK_EQ(clSetProgramSpecializationConstant(p, 3, 8, &l),
           CL_INVALID_VALUE);
  CHECK_EQ(clSetProgramSpecializationConstant(p, 3, 4, NULL),
           CL_INVALID_VALUE);
  cl_program src = test_build(&env, "kernel void k(void) {}", "");
  CHECK_EQ(clSetProgramSpecializationConstant(src, 0, 1, &b),
           CL_INVALID_PROGRAM);
  CHECK_EQ(clSetProgramSpecializationConstant(NULL, 0, 1, &b),
           CL_INVALID_PROGRAM);
  clReleaseProgram(src);
  clReleaseProgram(p);
  free(il);
}

static const char *c_side =
    "int lib_scale(int x);\n"
    "int c_offset(int x) { return x + 1000; }\n"
    "kernel void c_side(global int *out) {\n"
    "  int i = (int)get_global_id(0);\n"
    "  out[i] = lib_scale(i) * 2;\n"
    "}\n";

static void run_int_kernel(cl_program p, const char *name, int *out,
                           size_t n) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  cl_mem b = test_buffer(&env, n * sizeof(int), NULL);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof b, &b));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &n, NULL, 0, NULL,
                                    NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b, CL_TRUE, 0, n * sizeof(int),
                                 out, 0, NULL, NULL));
  clReleaseMemObject(b);
  clReleaseKernel(k);
}

/* A SPIR-V object and an OpenCL C object, each calling the other. */
static void test_link_with_c(void) {
  size_t size;
  void *il = spirv("link_lib.spv", &size);
  cl_program a = from_il(il, size);
  cl_int err = clCompileProgram(a, 1, &env.device, "", 0, NULL, NULL, NULL,
                                NULL);
  if (err != CL_SUCCESS)
    fprintf(stderr, "compile of IL failed:\n%s\n", build_log(a));
  REQUIRE_OK(err);
  cl_program_binary_type type;
  REQUIRE_OK(clGetProgramBuildInfo(a, env.device, CL_PROGRAM_BINARY_TYPE,
                                   sizeof type, &type, NULL));
  CHECK_EQ(type, CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
  cl_program b = clCreateProgramWithSource(env.context, 1, &c_side, NULL,
                                           &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clCompileProgram(b, 1, &env.device, "", 0, NULL, NULL, NULL,
                              NULL));
  cl_program units[2] = {a, b};
  cl_program linked = clLinkProgram(env.context, 1, &env.device, "", 2,
                                    units, NULL, NULL, &err);
  if (err != CL_SUCCESS && linked)
    fprintf(stderr, "link failed:\n%s\n", build_log(linked));
  REQUIRE_OK(err);
  int out[16];
  run_int_kernel(linked, "il_side", out, 16);
  for (int i = 0; i < 16; i++)
    CHECK_EQ(out[i], (i + 1000) + (3 * i + 1));
  run_int_kernel(linked, "c_side", out, 16);
  for (int i = 0; i < 16; i++)
    CHECK_EQ(out[i], (3 * i + 1) * 2);

  /* The executable's binary builds again without the SPIR-V. */
  size_t bin_size;
  REQUIRE_OK(clGetProgramInfo(linked, CL_PROGRAM_BINARY_SIZES,
                              sizeof bin_size, &bin_size, NULL));
  unsigned char *bin = malloc(bin_size);
  REQUIRE_OK(clGetProgramInfo(linked, CL_PROGRAM_BINARIES, sizeof bin, &bin,
                              NULL));
  cl_program again = clCreateProgramWithBinary(
      env.context, 1, &env.device, &bin_size,
      (const unsigned char **)&bin, NULL, &err);
  REQUIRE_OK(err);
  build_or_die(again, "");
  run_int_kernel(again, "il_side", out, 16);
  CHECK_EQ(out[5], 1005 + 16);
  clReleaseProgram(again);
  free(bin);
  clReleaseProgram(linked);
  clReleaseProgram(a);
  clReleaseProgram(b);
  free(il);
}

/* An IL program's executable binary round-trips, with its spec
 * constants applied. */
static void test_binary_round_trip(void) {
  size_t size;
  void *il = spirv("spec.spv", &size);
  cl_program p = from_il(il, size);
  cl_int v = 42;
  REQUIRE_OK(clSetProgramSpecializationConstant(p, 3, sizeof v, &v));
  build_or_die(p, "");
  size_t bin_size;
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bin_size,
                              &bin_size, NULL));
  unsigned char *bin = malloc(bin_size);
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin,
                              NULL));
  cl_int err;
  cl_program q = clCreateProgramWithBinary(env.context, 1, &env.device,
                                           &bin_size,
                                           (const unsigned char **)&bin,
                                           NULL, &err);
  REQUIRE_OK(err);
  build_or_die(q, "");
  uint64_t out[8];
  run_spec(q, out);
  CHECK_EQ(out[3], 42);
  CHECK_EQ(out[2], 1000);
  cl_bool present = CL_TRUE;
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT,
                              sizeof present, &present, NULL));
  CHECK_EQ(present, CL_FALSE);
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT,
                              sizeof present, &present, NULL));
  CHECK_EQ(present, CL_FALSE);
  clReleaseProgram(q);
  clReleaseProgram(p);
  free(bin);
  free(il);
}

static uint32_t swap32(uint32_t w) {
  return (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) |
         (w << 24);
}

/* clCreateProgramWithIL's error for il, length. */
static cl_int create_error(const void *il, size_t length) {
  cl_int err = 12345;
  cl_program p = clCreateProgramWithIL(env.context, il, length, &err);
  if (p)
    clReleaseProgram(p);
  CHECK((p != NULL) == (err == CL_SUCCESS));
  return err;
}

/* The module named builds with CL_BUILD_PROGRAM_FAILURE and a log that
 * contains expect. */
static void check_build_fails(const char *name, const char *expect) {
  size_t size;
  void *il = spirv(name, &size);
  cl_program p = from_il(il, size);
  CHECK_EQ(clBuildProgram(p, 1, &env.device, "", NULL, NULL),
           CL_BUILD_PROGRAM_FAILURE);
  const char *log = build_log(p);
  if (!strstr(log, expect)) {
    fprintf(stderr, "%s: log lacks \"%s\":\n%s\n", name, expect, log);
    test_failures++;
  }
  cl_build_status st;
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_STATUS,
                                   sizeof st, &st, NULL));
  CHECK_EQ(st, CL_BUILD_ERROR);
  clReleaseProgram(p);
  free(il);
}

/* Malformed and unsupported modules: CL_INVALID_VALUE at creation for
 * what is not well-formed, CL_BUILD_PROGRAM_FAILURE with a log for the
 * rest, and a byte-swapped module works. */
static void test_bad_input(void) {
  size_t size;
  uint32_t *il = spirv("spec.spv", &size);
  uint32_t *copy = malloc(size);
  CHECK_EQ(create_error(NULL, size), CL_INVALID_VALUE);
  CHECK_EQ(create_error(il, 0), CL_INVALID_VALUE);
  /* Truncated: not whole words, only part of the header, mid-instruction. */
  CHECK_EQ(create_error(il, size - 2), CL_INVALID_VALUE);
  CHECK_EQ(create_error(il, 12), CL_INVALID_VALUE);
  CHECK_EQ(create_error(il, size - 12), CL_INVALID_VALUE); /* in OpStore */
  /* Wrong magic. */
  memcpy(copy, il, size);
  copy[0] = 0x07230204;
  CHECK_EQ(create_error(copy, size), CL_INVALID_VALUE);
  /* SPIR-V 1.5 and an odd version word. */
  memcpy(copy, il, size);
  copy[1] = 0x00010500;
  CHECK_EQ(create_error(copy, size), CL_INVALID_VALUE);
  copy[1] = 0x01010000;
  CHECK_EQ(create_error(copy, size), CL_INVALID_VALUE);
  /* A bound below the ids in use, a zero word count, a count past the
   * end. */
  memcpy(copy, il, size);
  copy[3] = 3;
  CHECK_EQ(create_error(copy, size), CL_INVALID_VALUE);
  memcpy(copy, il, size);
  copy[5] &= 0xffffu;
  CHECK_EQ(create_error(copy, size), CL_INVALID_VALUE);
  memcpy(copy, il, size);
  copy[5] = (copy[5] & 0xffffu) | 0xffff0000u;
  CHECK_EQ(create_error(copy, size), CL_INVALID_VALUE);
  /* Garbage the length of a module, after a valid header. */
  memcpy(copy, il, size);
  for (size_t i = 5; i < size / 4; i++)
    copy[i] = 0x00000000u;
  CHECK_EQ(create_error(copy, size), CL_INVALID_VALUE);

  /* The other byte order builds and runs. */
  for (size_t i = 0; i < size / 4; i++)
    copy[i] = swap32(il[i]);
  cl_program p = from_il(copy, size);
  build_or_die(p, "");
  uint64_t out[8];
  run_spec(p, out);
  CHECK_EQ(out[3], 100000);
  /* ... and CL_PROGRAM_IL gives it back as it came. */
  uint32_t *back = malloc(size);
  REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_IL, size, back, NULL));
  CHECK(memcmp(back, copy, size) == 0);
  free(back);
  clReleaseProgram(p);

  check_build_fails("bad_capability.spv", "capability 2 is not");
  check_build_fails("physical32.spv", "addressing model 1");
  check_build_fails("undefined_id.spv", "validator");
  free(copy);
  free(il);
}

/* The translator vanishing after creation fails the build with a log. */
static void test_translator_missing_at_build(void) {
  size_t size;
  void *il = spirv("spec.spv", &size);
  cl_program p = from_il(il, size);
  setenv("SKEIN_LLVM_SPIRV", "/nonexistent/llvm-spirv", 1);
  CHECK_EQ(clBuildProgram(p, 1, &env.device, "", NULL, NULL),
           CL_BUILD_PROGRAM_FAILURE);
  CHECK(strstr(build_log(p), "not installed") != NULL);
  unsetenv("SKEIN_LLVM_SPIRV");
  build_or_die(p, "");
  clReleaseProgram(p);
  free(il);
}

/* Writes an executable shell script body to a new temporary file;
 * returns its malloc'd path. */
static char *script(const char *body) {
  char *path = strdup("/tmp/skein-test-spirv-XXXXXX");
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  FILE *f = fdopen(fd, "w");
  fprintf(f, "#!/bin/sh\n%s\n", body);
  fclose(f);
  chmod(path, 0700);
  return path;
}

/* A translator that hangs is stopped at the time limit, one that
 * crashes fails the build; the host goes on either way. */
static void test_translator_contained(void) {
  size_t size;
  void *il = spirv("spec.spv", &size);
  cl_program p = from_il(il, size);
  char *hang = script("exec sleep 100");
  char *crash = script("kill -SEGV $$");
  setenv("SKEIN_SPIRV_SECONDS", "1", 1);
  setenv("SKEIN_LLVM_SPIRV", hang, 1);
  CHECK_EQ(clBuildProgram(p, 1, &env.device, "", NULL, NULL),
           CL_BUILD_PROGRAM_FAILURE);
  CHECK(strstr(build_log(p), "ran out of time") != NULL);
  setenv("SKEIN_LLVM_SPIRV", crash, 1);
  CHECK_EQ(clBuildProgram(p, 1, &env.device, "", NULL, NULL),
           CL_BUILD_PROGRAM_FAILURE);
  CHECK(strstr(build_log(p), "crashed") != NULL);
  unsetenv("SKEIN_LLVM_SPIRV");
  unsetenv("SKEIN_SPIRV_SECONDS");
  build_or_die(p, "");
  unlink(hang);
  unlink(crash);
  free(hang);
  free(crash);
  clReleaseProgram(p);
  free(il);
}

/* SKEIN_LLVM_SPIRV names a missing file from the start: no IL version,
 * no cl_khr_il_program, clCreateProgramWithIL is CL_INVALID_OPERATION. */
static int test_no_translator(void) {
  test_setup(&env);
  char text[4096];
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_IL_VERSION, sizeof text,
                             text, NULL));
  CHECK_EQ(strlen(text), 0);
  size_t size = 1;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_ILS_WITH_VERSION, 0, NULL,
                             &size));
  CHECK_EQ(size, 0);
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof text,
                             text, NULL));
  CHECK(strstr(text, "cl_khr_il_program") == NULL);
  static const uint32_t header[5] = {0x07230203u, 0x00010000u, 0, 1, 0};
  CHECK_EQ(create_error(header, sizeof header), CL_INVALID_OPERATION);
  test_teardown(&env);
  return test_finish("spirv --no-translator");
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--no-translator") == 0)
    return test_no_translator();
  size_t size;
  void *probe = test_read_file(SKEIN_SPIRV_TEST_DIR, "kernels.spv", &size);
  if (!probe) {
    printf("skipped: no test SPIR-V (clang-15, llvm-spirv-15 or spirv-as "
           "missing at build time)\n");
    return 77;
  }
  free(probe);
  test_setup(&env);
  test_reports();
  test_program_il();
  test_extinst();
  test_extension_capabilities();
  test_no_integer_wrap();
  test_expect_assume();
  test_translator_workarounds();
  test_integer_dot_product();
  test_spirv_queries();
  test_pipes();
  test_spec_constants();
  test_binary_round_trip();
  test_link_with_c();
  test_linkonce_odr();
  test_bad_input();
  test_translator_missing_at_build();
  test_translator_contained();
  test_same_results();
  test_teardown(&env);
  return test_finish("spirv");
}
