/* This file tests SPIR-V 1.4 programs (OpenCL 3.1 requires the 1.4 IL):
 * the device reports it, and modules using what 1.4 added run against
 * host references, from the .spvasm files of tests/spirv/ assembled at
 * build time:
 *   - the instructions llvm-spirv 15 cannot translate, which
 *     compiler/spirv_lower.c rewrites first: OpPtrEqual, OpPtrNotEqual,
 *     OpPtrDiff (spv14_ptrops: global, local, private and generic
 *     pointers, elements of 2, 4, 16 and 24 bytes), OpCopyLogical
 *     (spv14_copylogical: nested structs and arrays), OpDecorateString and
 *     OpMemberDecorateString (spv14_decorate_string), OpCopyMemory and
 *     OpCopyMemorySized with two memory operands (spv14_copy_memory, an
 *     alignment only the target has among them), and a named barrier
 *     whose table Skein adds to the 1.4 entry point's interface
 *     (spv14_named_barrier);
 *   - what llvm-spirv reads itself: OpSelect of a struct, an array, a
 *     vector by a scalar and pointers (spv14_select), the new loop controls
 *     and NoSignedWrap without its extension (spv14_loop_controls), the
 *     SignExtend / ZeroExtend image operands (spv14_images), entry points
 *     listing program-scope and local variables (spv14_globals);
 *   - an OpCopyLogical of types that do not match fails the build with a
 *     log saying so (spv14_bad_copylogical).
 * Each kernel runs with the driver's local size and a given one; ctest
 * runs the test again in fiber, loop and scalar form
 * (tests/mode_variants.cmake). An alarm turns a hang into a failure. */
#include "test_util.h"

#include <CL/cl_ext.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

static test_env env;

/* The log of p's build on the device (static storage). */
static const char *build_log(cl_program p) {
  static char log[16384];
  log[0] = '\0';
  clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, sizeof log,
                        log, NULL);
  return log;
}

/* The program of tests/spirv/<name>, built (exits on failure). */
static cl_program build_spv(const char *name) {
  return test_build_spirv_file(&env, SKEIN_SPIRV_TEST_DIR, name);
}

static cl_kernel kernel(cl_program p, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  return k;
}

/* Sets k's arguments: n buffers. */
static void set_buffers(cl_kernel k, const cl_mem *bufs, cl_uint n) {
  for (cl_uint i = 0; i < n; i++)
    REQUIRE_OK(clSetKernelArg(k, i, sizeof(cl_mem), &bufs[i]));
}

/* Runs k over global work-items in groups of local (0: Skein's choice)
 * and waits. */
static void run(cl_kernel k, size_t global, size_t local) {
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global,
                                    local ? &local : NULL, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
}

static void read_buffer(cl_mem b, size_t size, void *to) {
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b, CL_TRUE, 0, size, to, 0,
                                 NULL, NULL));
}

/* CL_DEVICE_IL_VERSION and CL_DEVICE_ILS_WITH_VERSION list SPIR-V 1.4. */
static void test_reports(void) {
  char text[512];
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_IL_VERSION, sizeof text,
                             text, NULL));
  CHECK(strstr(text, "SPIR-V_1.4") != NULL);
  cl_name_version ils[16];
  size_t size;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_ILS_WITH_VERSION,
                             sizeof ils, ils, &size));
  bool listed = false;
  for (size_t i = 0; i < size / sizeof ils[0]; i++)
    listed |= strcmp(ils[i].name, "SPIR-V") == 0 &&
              ils[i].version == CL_MAKE_VERSION(1, 4, 0);
  CHECK(listed);
}

/* spv14_ptrops: out[16i + k] for the pair a = idx[2i], b = idx[2i + 1]. */
static void test_ptrops(void) {
  enum { N = 256, K = 16, LEN = 64 };
  cl_program p = build_spv("spv14_ptrops.spv");
  cl_kernel k = kernel(p, "ptrops");
  uint32_t idx[2 * N];
  test_seed(0x9a7d1ff);
  for (int i = 0; i < N; i++) {
    idx[2 * i] = (uint32_t)(test_rand() % LEN);
    /* Every fifth pair equal; the ends of the range among the others. */
    idx[2 * i + 1] = i % 5 == 0   ? idx[2 * i]
                     : i % 7 == 1 ? (i & 8 ? 0 : LEN - 1)
                                  : (uint32_t)(test_rand() % LEN);
  }
  uint64_t *out = malloc(N * K * sizeof *out);
  cl_mem bufs[5] = {test_buffer(&env, N * K * sizeof *out, NULL),
                    test_buffer(&env, sizeof idx, idx),
                    test_buffer(&env, LEN * 4, NULL),
                    test_buffer(&env, LEN * 24, NULL),
                    test_buffer(&env, LEN * 16, NULL)};
  set_buffers(k, bufs, 5);
  size_t locals[] = {0, 64, 16};
  for (size_t r = 0; r < sizeof locals / sizeof locals[0]; r++) {
    memset(out, 0xa5, N * K * sizeof *out);
    REQUIRE_OK(clEnqueueWriteBuffer(env.queue, bufs[0], CL_TRUE, 0,
                                    N * K * sizeof *out, out, 0, NULL, NULL));
    run(k, N, locals[r]);
    read_buffer(bufs[0], N * K * sizeof *out, out);
    int bad = 0;
    for (int i = 0; i < N; i++) {
      int64_t d = (int64_t)idx[2 * i] - (int64_t)idx[2 * i + 1];
      uint64_t eq = d == 0, ne = d != 0;
      uint64_t want[14] = {(uint64_t)d, (uint32_t)d, eq, ne, (uint64_t)d,
                           (uint32_t)d, (uint64_t)d, eq, (uint64_t)d, ne,
                           (uint64_t)d, eq, (uint16_t)d, (uint64_t)-d};
      for (int j = 0; j < 14; j++)
        if (out[i * K + j] != want[j] && bad++ < 6)
          fprintf(stderr, "ptrops (local %zu) item %d result %d: %llx, "
                  "not %llx (a %u, b %u)\n", locals[r], i, j,
                  (unsigned long long)out[i * K + j],
                  (unsigned long long)want[j], idx[2 * i], idx[2 * i + 1]);
    }
    CHECK_EQ(bad, 0);
  }
  test_release_buffers(bufs, 5);
  free(out);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

/* spv14_copylogical's types as the host lays them out (the natural
 * alignment llvm-spirv gives them too). */
typedef struct { uint64_t d; uint16_t e; } nested;
typedef struct {
  uint32_t a;
  float b;
  uint32_t c[3];
  nested n;
} outer;

static void test_copylogical(void) {
  enum { N = 128 };
  cl_program p = build_spv("spv14_copylogical.spv");
  cl_kernel k = kernel(p, "copylogical");
  outer *in = calloc(N, sizeof *in), *out = calloc(N, sizeof *out);
  nested(*ain)[4] = calloc(N, sizeof *ain);
  nested(*aout)[4] = calloc(N, sizeof *aout);
  test_seed(0xc0b1);
  for (int i = 0; i < N; i++) {
    in[i].a = (uint32_t)test_rand();
    in[i].b = (float)(int32_t)test_rand() / 7.0f;
    for (int j = 0; j < 3; j++)
      in[i].c[j] = (uint32_t)test_rand();
    in[i].n.d = test_rand();
    in[i].n.e = (uint16_t)test_rand();
    for (int j = 0; j < 4; j++) {
      ain[i][j].d = test_rand();
      ain[i][j].e = (uint16_t)test_rand();
    }
  }
  cl_mem bufs[4] = {test_buffer(&env, N * sizeof *out, out),
                    test_buffer(&env, N * sizeof *in, in),
                    test_buffer(&env, N * sizeof *aout, aout),
                    test_buffer(&env, N * sizeof *ain, ain)};
  set_buffers(k, bufs, 4);
  size_t locals[] = {0, 32};
  for (size_t r = 0; r < 2; r++) {
    run(k, N, locals[r]);
    read_buffer(bufs[0], N * sizeof *out, out);
    read_buffer(bufs[2], N * sizeof *aout, aout);
    int bad = 0;
    for (int i = 0; i < N; i++) {
      bool ok = out[i].a == in[i].a &&
                memcmp(&out[i].b, &in[i].b, sizeof(float)) == 0 &&
                memcmp(out[i].c, in[i].c, sizeof in[i].c) == 0 &&
                out[i].n.d == in[i].n.d && out[i].n.e == in[i].n.e;
      for (int j = 0; j < 4; j++)
        ok &= aout[i][j].d == ain[i][j].d && aout[i][j].e == ain[i][j].e;
      if (!ok && bad++ < 4)
        fprintf(stderr, "copylogical item %d: {%u %g {%u %u %u} {%llx %u}}"
                " from {%u %g {%u %u %u} {%llx %u}}\n", i, out[i].a,
                out[i].b, out[i].c[0], out[i].c[1], out[i].c[2],
                (unsigned long long)out[i].n.d, out[i].n.e, in[i].a,
                in[i].b, in[i].c[0], in[i].c[1], in[i].c[2],
                (unsigned long long)in[i].n.d, in[i].n.e);
    }
    CHECK_EQ(bad, 0);
    memset(out, 0, N * sizeof *out);
    memset(aout, 0, N * sizeof *aout);
    REQUIRE_OK(clEnqueueWriteBuffer(env.queue, bufs[0], CL_TRUE, 0,
                                    N * sizeof *out, out, 0, NULL, NULL));
    REQUIRE_OK(clEnqueueWriteBuffer(env.queue, bufs[2], CL_TRUE, 0,
                                    N * sizeof *aout, aout, 0, NULL, NULL));
  }
  test_release_buffers(bufs, 4);
  free(in);
  free(out);
  free(ain);
  free(aout);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

static void test_decorate_string(void) {
  enum { N = 100 };
  cl_program p = build_spv("spv14_decorate_string.spv");
  cl_kernel k = kernel(p, "decorate_string");
  uint32_t in[2 * N], out[N];
  test_seed(0xdec0);
  for (int i = 0; i < 2 * N; i++)
    in[i] = (uint32_t)test_rand();
  cl_mem bufs[2] = {test_buffer(&env, sizeof out, NULL),
                    test_buffer(&env, sizeof in, in)};
  set_buffers(k, bufs, 2);
  run(k, N, 0);
  read_buffer(bufs[0], sizeof out, out);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != 3 * in[2 * i] + in[2 * i + 1];
  CHECK_EQ(bad, 0);
  test_release_buffers(bufs, 2);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

static void test_copy_memory(void) {
  enum { N = 64 };
  cl_program p = build_spv("spv14_copy_memory.spv");
  cl_kernel k = kernel(p, "copy_memory");
  uint32_t in[4 * N + 4], out[8 * N];
  test_seed(0xc097);
  for (int i = 0; i < 4 * N + 4; i++)
    in[i] = (uint32_t)test_rand();
  memset(out, 0xee, sizeof out);
  cl_mem bufs[2] = {test_buffer(&env, sizeof out, out),
                    test_buffer(&env, sizeof in, in)};
  set_buffers(k, bufs, 2);
  size_t locals[] = {0, 8};
  for (size_t r = 0; r < 2; r++) {
    run(k, N, locals[r]);
    read_buffer(bufs[0], sizeof out, out);
    int bad = 0;
    for (int i = 0; i < N; i++) {
      const uint32_t *s = in + 4 * i;
      uint32_t want[8] = {s[1], s[2], s[3], s[4], s[1], s[2], s[3],
                          s[0] + 5};
      for (int j = 0; j < 8; j++)
        if (out[8 * i + j] != want[j] && bad++ < 4)
          fprintf(stderr, "copy_memory item %d word %d: %08x, not %08x\n",
                  i, j, out[8 * i + j], want[j]);
    }
    CHECK_EQ(bad, 0);
  }
  test_release_buffers(bufs, 2);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

/* spv14_select's struct. */
typedef struct {
  uint32_t a;
  float b;
  uint64_t c;
} triple;

static void test_select(void) {
  enum { N = 64 };
  cl_program p = build_spv("spv14_select.spv");
  cl_kernel k = kernel(p, "select");
  uint32_t in[N], ain[N][3], aout[N][3], vin[2 * N][4], vout[N][4];
  uint32_t pout[N];
  triple sin[2 * N], sout[N];
  test_seed(0x5e1ec7);
  for (int i = 0; i < N; i++) {
    in[i] = (uint32_t)test_rand();
    for (int j = 0; j < 3; j++)
      ain[i][j] = (uint32_t)test_rand();
  }
  for (int i = 0; i < 2 * N; i++) {
    sin[i] = (triple){(uint32_t)test_rand(), (float)i * 0.25f, test_rand()};
    for (int j = 0; j < 4; j++)
      vin[i][j] = (uint32_t)test_rand();
  }
  cl_mem bufs[8] = {test_buffer(&env, sizeof in, in),
                    test_buffer(&env, sizeof sout, NULL),
                    test_buffer(&env, sizeof sin, sin),
                    test_buffer(&env, sizeof aout, NULL),
                    test_buffer(&env, sizeof ain, ain),
                    test_buffer(&env, sizeof vout, NULL),
                    test_buffer(&env, sizeof vin, vin),
                    test_buffer(&env, sizeof pout, NULL)};
  set_buffers(k, bufs, 8);
  size_t locals[] = {0, 16};
  for (size_t r = 0; r < 2; r++) {
    run(k, N, locals[r]);
    read_buffer(bufs[1], sizeof sout, sout);
    read_buffer(bufs[3], sizeof aout, aout);
    read_buffer(bufs[5], sizeof vout, vout);
    read_buffer(bufs[7], sizeof pout, pout);
    int bad = 0;
    for (int i = 0; i < N; i++) {
      bool c = in[i] & 1;
      const triple *ws = &sin[c ? 2 * i : 2 * i + 1];
      static const uint32_t constant[3] = {7, 8, 9};
      const uint32_t *wa = c ? constant : ain[i];
      const uint32_t *wv = vin[c ? 2 * i : 2 * i + 1];
      bool ok = sout[i].a == ws->a && sout[i].b == ws->b &&
                sout[i].c == ws->c &&
                memcmp(aout[i], wa, sizeof aout[i]) == 0 &&
                memcmp(vout[i], wv, sizeof vout[i]) == 0 &&
                pout[i] == (c ? in[i] : ain[i][1]);
      if (!ok && bad++ < 4)
        fprintf(stderr, "select item %d (condition %d) wrong\n", i, c);
    }
    CHECK_EQ(bad, 0);
  }
  test_release_buffers(bufs, 8);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

static void test_loop_controls(void) {
  enum { N = 256 };
  cl_program p = build_spv("spv14_loop_controls.spv");
  cl_kernel k = kernel(p, "loop_controls");
  uint32_t in[N], out[N];
  test_seed(0x100b);
  for (int i = 0; i < N; i++)
    in[i] = i < 64 ? (uint32_t)i + 1 : 1 + (uint32_t)(test_rand() % 64);
  cl_mem bufs[2] = {test_buffer(&env, sizeof out, NULL),
                    test_buffer(&env, sizeof in, in)};
  set_buffers(k, bufs, 2);
  size_t locals[] = {0, 64};
  for (size_t r = 0; r < 2; r++) {
    run(k, N, locals[r]);
    read_buffer(bufs[0], sizeof out, out);
    int bad = 0;
    for (int i = 0; i < N; i++) {
      uint32_t n = in[i];
      uint32_t want = n * (n - 1) / 2 + 2 * n * (2 * n - 1) +
                      3 * (n * (n - 1) / 2);
      if (out[i] != want && bad++ < 4)
        fprintf(stderr, "loop_controls n %u: %u, not %u\n", n, out[i],
                want);
    }
    CHECK_EQ(bad, 0);
  }
  test_release_buffers(bufs, 2);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

static cl_mem image(cl_channel_type type, cl_mem_flags flags, size_t w,
                    size_t h, void *data) {
  cl_image_format format = {CL_RGBA, type};
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                        .image_width = w,
                        .image_height = h};
  cl_int err;
  cl_mem m = clCreateImage(env.context,
                           flags | (data ? CL_MEM_COPY_HOST_PTR : 0),
                           &format, &desc, data, &err);
  REQUIRE_OK(err);
  return m;
}

static void read_image(cl_mem m, size_t w, size_t h, void *to) {
  size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1};
  REQUIRE_OK(clEnqueueReadImage(env.queue, m, CL_TRUE, origin, region, 0, 0,
                                to, 0, NULL, NULL));
}

/* spv14_images: reads sign-extend CL_SIGNED_INT8 texels and zero-extend
 * CL_UNSIGNED_INT16 ones, writes saturate (ZeroExtend: unsigned). */
static void test_images(void) {
  cl_bool images = CL_FALSE;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT,
                             sizeof images, &images, NULL));
  if (!images) {
    printf("images: skipped (no image support)\n");
    return;
  }
  enum { W = 8, H = 4, N = W * H };
  cl_program p = build_spv("spv14_images.spv");
  cl_kernel k = kernel(p, "images");
  int8_t s8[N * 4];
  uint16_t u16[N * 4];
  int32_t in[N * 4];
  uint32_t out[N * 3 * 4];
  uint8_t wu8[N * 4];
  int8_t ws8[N * 4];
  test_seed(0x1a6e);
  for (int i = 0; i < N * 4; i++) {
    s8[i] = (int8_t)test_rand();
    u16[i] = (uint16_t)test_rand();
    in[i] = (int32_t)(test_rand() % 601) - 300;
  }
  s8[0] = -128;
  u16[0] = 0xffff;
  u16[1] = 0x8000;
  cl_mem bufs[2] = {test_buffer(&env, sizeof out, NULL),
                    test_buffer(&env, sizeof in, in)};
  cl_mem imgs[4] = {image(CL_SIGNED_INT8, CL_MEM_READ_ONLY, W, H, s8),
                    image(CL_UNSIGNED_INT16, CL_MEM_READ_ONLY, W, H, u16),
                    image(CL_UNSIGNED_INT8, CL_MEM_WRITE_ONLY, W, H, NULL),
                    image(CL_SIGNED_INT8, CL_MEM_WRITE_ONLY, W, H, NULL)};
  set_buffers(k, bufs, 2);
  for (cl_uint i = 0; i < 4; i++)
    REQUIRE_OK(clSetKernelArg(k, 2 + i, sizeof(cl_mem), &imgs[i]));
  cl_uint w = W;
  REQUIRE_OK(clSetKernelArg(k, 6, sizeof w, &w));
  size_t locals[] = {0, 8};
  for (size_t r = 0; r < 2; r++) {
    run(k, N, locals[r]);
    read_buffer(bufs[0], sizeof out, out);
    read_image(imgs[2], W, H, wu8);
    read_image(imgs[3], W, H, ws8);
    int bad = 0;
    for (int i = 0; i < N * 4; i++) {
      int t = i / 4, c = i % 4;
      uint32_t read_s8 = (uint32_t)(int32_t)s8[i];
      uint32_t u = (uint32_t)in[i];
      uint8_t want_u8 = u > 255 ? 255 : (uint8_t)u;
      int8_t want_s8 = in[i] > 127 ? 127 : in[i] < -128 ? -128 : in[i];
      bool ok = out[(3 * t) * 4 + c] == read_s8 &&
                out[(3 * t + 1) * 4 + c] == u16[i] &&
                out[(3 * t + 2) * 4 + c] == read_s8 && wu8[i] == want_u8 &&
                ws8[i] == want_s8;
      if (!ok && bad++ < 4)
        fprintf(stderr, "images texel %d channel %d: read %08x %08x "
                "sampled %08x (s8 %d, u16 %u), wrote %u %d from %d\n", t, c,
                out[(3 * t) * 4 + c], out[(3 * t + 1) * 4 + c],
                out[(3 * t + 2) * 4 + c], s8[i], u16[i], wu8[i], ws8[i],
                in[i]);
    }
    CHECK_EQ(bad, 0);
  }
  test_release_buffers(bufs, 2);
  test_release_buffers(imgs, 4);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

static void test_globals(void) {
  enum { N = 256 };
  static const uint32_t table[4] = {3, 5, 7, 11};
  cl_program p = build_spv("spv14_globals.spv");
  cl_kernel ka = kernel(p, "globals_a"), kb = kernel(p, "globals_b");
  uint32_t in[N], out[N];
  test_seed(0x910b);
  for (int i = 0; i < N; i++)
    in[i] = (uint32_t)(test_rand() & 0xffffff);
  cl_mem bufs[2] = {test_buffer(&env, sizeof out, NULL),
                    test_buffer(&env, sizeof in, in)};
  set_buffers(ka, bufs, 2);
  set_buffers(kb, bufs, 2);
  size_t locals[] = {64, 32, 16};
  for (size_t r = 0; r < 3; r++) {
    size_t n = locals[r];
    run(ka, N, n);
    read_buffer(bufs[0], sizeof out, out);
    int bad = 0;
    for (int i = 0; i < N; i++) {
      size_t g = i / n * n, l = i % n;
      uint32_t want = in[g + (l + 1) % n] + table[i % 4] + 100;
      if (out[i] != want && bad++ < 4)
        fprintf(stderr, "globals_a (local %zu) item %d: %u, not %u\n", n,
                i, out[i], want);
    }
    CHECK_EQ(bad, 0);
  }
  run(kb, N, 0);
  read_buffer(bufs[0], sizeof out, out);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != table[i % 4] * 100 + in[i];
  CHECK_EQ(bad, 0);
  test_release_buffers(bufs, 2);
  clReleaseKernel(ka);
  clReleaseKernel(kb);
  clReleaseProgram(p);
}

/* spv14_named_barrier, where cl_khr_subgroup_named_barrier is reported:
 * out[i] = in of the work-item one sub-group on in the group. */
static void test_named_barrier(void) {
  if (!test_extension_listed(&env, "cl_khr_subgroup_named_barrier")) {
    printf("named barrier: skipped (cl_khr_subgroup_named_barrier not "
           "reported)\n");
    return;
  }
  cl_program p = build_spv("spv14_named_barrier.spv");
  cl_kernel k = kernel(p, "named_barrier14");
  size_t s = 0, big = 256;
  REQUIRE_OK(clGetKernelSubGroupInfo(k, env.device,
                                     CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                     sizeof big, &big, sizeof s, &s, NULL));
  CHECK(s >= 4 && s <= 64);
  size_t shapes[] = {2 * s, 3 * s + 5, 200};
  for (size_t r = 0; r < sizeof shapes / sizeof shapes[0]; r++) {
    size_t n = shapes[r], global = 3 * n;
    if (n > 256)
      continue;
    uint32_t *in = malloc(global * 4), *out = malloc(global * 4);
    for (size_t i = 0; i < global; i++)
      in[i] = (uint32_t)(i * 2654435761u);
    cl_mem bufs[2] = {test_buffer(&env, global * 4, NULL),
                      test_buffer(&env, global * 4, in)};
    set_buffers(k, bufs, 2);
    run(k, global, n);
    read_buffer(bufs[0], global * 4, out);
    int bad = 0;
    for (size_t i = 0; i < global; i++) {
      size_t g = i / n * n, l = i % n;
      if (out[i] != in[g + (l + s) % n] && bad++ < 4)
        fprintf(stderr, "named_barrier14 (local %zu) item %zu: %08x, not "
                "%08x\n", n, i, out[i], in[g + (l + s) % n]);
    }
    CHECK_EQ(bad, 0);
    test_release_buffers(bufs, 2);
    free(in);
    free(out);
  }
  clReleaseKernel(k);
  clReleaseProgram(p);
}

/* An OpCopyLogical of types that do not match: CL_BUILD_PROGRAM_FAILURE
 * and a log that says why. */
static void test_bad_copylogical(void) {
  size_t size;
  void *il = test_read_file(SKEIN_SPIRV_TEST_DIR, "spv14_bad_copylogical.spv",
                            &size);
  CHECK(il != NULL);
  if (!il)
    return;
  cl_int err;
  cl_program p = clCreateProgramWithIL(env.context, il, size, &err);
  free(il);
  REQUIRE_OK(err);
  CHECK_EQ(clBuildProgram(p, 1, &env.device, "", NULL, NULL),
           CL_BUILD_PROGRAM_FAILURE);
  CHECK(strstr(build_log(p), "OpCopyLogical of types that do not match") !=
        NULL);
  clReleaseProgram(p);
}

int main(void) {
  size_t size;
  void *probe = test_read_file(SKEIN_SPIRV_TEST_DIR, "spv14_ptrops.spv",
                               &size);
  if (!probe) {
    printf("skipped: no test SPIR-V (spirv-as missing at build time)\n");
    return 77;
  }
  free(probe);
  alarm(300);   /* a barrier that never opens fails, not hangs */
  test_setup(&env);
  char il[512] = "";
  clGetDeviceInfo(env.device, CL_DEVICE_IL_VERSION, sizeof il, il, NULL);
  if (!*il) {
    printf("skipped: the device takes no IL (SPIR-V tools not installed)\n");
    test_teardown(&env);
    return 77;
  }
  test_reports();
  test_ptrops();
  test_copylogical();
  test_decorate_string();
  test_copy_memory();
  test_select();
  test_loop_controls();
  test_images();
  test_globals();
  test_named_barrier();
  test_bad_copylogical();
  test_teardown(&env);
  return test_finish("spirv-14");
}
