/* cl_intel_subgroups beyond tests/test-subgroups-ext.c: the block reads
 * and writes of 2D images (builtins/subgroups_intel_image.cl: uint,
 * _ui, _us, _uc; a byte coordinate, row by row, clamped to the edge
 * when reading, dropped when writing outside) and the half shuffles
 * (builtins/subgroups_intel.c), each against a host model. */
#include "test_util.h"

#include <stdint.h>

static test_env env;

static const char *const src =
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "kernel void rd(read_only image2d_t img, global uint *out,\n"
    "               global const int2 *coords) {\n"
    "  int2 c = coords[get_sub_group_id() +\n"
    "                  get_num_sub_groups() * get_group_id(0)];\n"
    "  uint2 v = intel_sub_group_block_read2(img, c);\n"
    "  size_t g = get_global_id(0);\n"
    "  out[2 * g] = v.x;\n"
    "  out[2 * g + 1] = v.y;\n"
    "}\n"
    "kernel void rd_us(read_write image2d_t img, global ushort *out,\n"
    "                  global const int2 *coords) {\n"
    "  int2 c = coords[get_sub_group_id() +\n"
    "                  get_num_sub_groups() * get_group_id(0)];\n"
    "  vstore4(intel_sub_group_block_read_us4(img, c), get_global_id(0),\n"
    "          out);\n"
    "}\n"
    "kernel void rd_uc(read_only image2d_t img, global uchar *out,\n"
    "                  global const int2 *coords) {\n"
    "  int2 c = coords[get_sub_group_id() +\n"
    "                  get_num_sub_groups() * get_group_id(0)];\n"
    "  out[get_global_id(0)] = intel_sub_group_block_read_uc(img, c);\n"
    "}\n"
    "kernel void rd_ul(read_only image2d_t img, global ulong *out,\n"
    "                  global const int2 *coords) {\n"
    "  int2 c = coords[get_sub_group_id() +\n"
    "                  get_num_sub_groups() * get_group_id(0)];\n"
    "  vstore2(intel_sub_group_block_read_ul2(img, c), get_global_id(0),\n"
    "          out);\n"
    "}\n"
    "kernel void wr(write_only image2d_t img, global const int2 *coords) {\n"
    "  int2 c = coords[get_sub_group_id() +\n"
    "                  get_num_sub_groups() * get_group_id(0)];\n"
    "  uint g = get_global_id(0);\n"
    "  intel_sub_group_block_write_ui2(img, c, (uint2)(g, g + 1000));\n"
    "}\n"
    "kernel void shuffles(global const half *in, global half *out) {\n"
    "  size_t g = get_global_id(0);\n"
    "  half x = in[g];\n"
    "  out[4 * g] = intel_sub_group_shuffle(x, 3);\n"
    "  out[4 * g + 1] = intel_sub_group_shuffle_xor(x, 1);\n"
    "  out[4 * g + 2] = intel_sub_group_shuffle_down(x, -x, 2);\n"
    "  half4 v = intel_sub_group_shuffle_up((half4)(x, 1, 2, 3),\n"
    "                                      (half4)(-x, 4, 5, 6), 1);\n"
    "  out[4 * g + 3] = v.x + v.y;\n"
    "}\n";

enum { W = 37, H = 5, L = 32, G = 4, ROW = W * 4 };
static unsigned char pixels[H][ROW];
static size_t sg;

static cl_mem make_image(cl_mem_flags flags, const void *data) {
  cl_image_format fmt = {CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                        .image_width = W, .image_height = H};
  cl_int err;
  cl_mem m = clCreateImage(env.context, flags | CL_MEM_COPY_HOST_PTR, &fmt,
                           &desc, (void *)data, &err);
  REQUIRE_OK(err);
  return m;
}

/* The bytes lane reads for value k from coordinate c: row c.y + k and
 * byte c.x + lane * size, both clamped into the image. */
static uint64_t model_read(const int *c, unsigned lane, unsigned size,
                           unsigned k) {
  long x = c[0] + (long)lane * size, y = c[1] + (long)k;
  y = y < 0 ? 0 : y >= H ? H - 1 : y;
  x = x < 0 ? 0 : x > ROW - (long)size ? ROW - (long)size : x;
  uint64_t v = 0;
  memcpy(&v, &pixels[y][x], size);
  return v;
}

/* One coordinate per sub-group of the G groups of L (sub-groups of 4 at
 * the least): inside, across the right and bottom edges, before the
 * first row and column. */
static int coords[2 * G * (L / 4)];

static void run(const char *name, cl_mem a, cl_mem b, cl_mem c) {
  cl_int err;
  cl_program p = test_build(&env, src, "-cl-std=CL3.0");
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof b, &b));
  if (c)
    REQUIRE_OK(clSetKernelArg(k, 2, sizeof c, &c));
  size_t global = G * L, local = L;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  clReleaseKernel(k);
  clReleaseProgram(p);
}

static const int *coord_of(size_t g) {
  size_t per = L / sg;
  return &coords[2 * ((g % L) / sg + per * (g / L))];
}

static void test_reads(void) {
  cl_mem img = make_image(CL_MEM_READ_ONLY, pixels);
  cl_mem img_rw = make_image(CL_MEM_READ_WRITE, pixels);
  cl_mem cb = test_buffer(&env, sizeof coords, coords);
  uint32_t out[2 * G * L];
  uint16_t out_us[4 * G * L];
  uint8_t out_uc[G * L];
  uint64_t out_ul[2 * G * L];
  cl_mem ob = test_buffer(&env, sizeof out, NULL);
  cl_mem ob_us = test_buffer(&env, sizeof out_us, NULL);
  cl_mem ob_uc = test_buffer(&env, sizeof out_uc, NULL);
  cl_mem ob_ul = test_buffer(&env, sizeof out_ul, NULL);
  run("rd", img, ob, cb);
  run("rd_us", img_rw, ob_us, cb);
  run("rd_uc", img, ob_uc, cb);
  run("rd_ul", img, ob_ul, cb);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, ob_ul, CL_TRUE, 0,
                                 sizeof out_ul, out_ul, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, ob, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, ob_us, CL_TRUE, 0,
                                 sizeof out_us, out_us, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, ob_uc, CL_TRUE, 0,
                                 sizeof out_uc, out_uc, 0, NULL, NULL));
  int bad = 0;
  for (size_t g = 0; g < G * L; g++) {
    const int *c = coord_of(g);
    unsigned lane = (unsigned)(g % L % sg);
    for (unsigned k = 0; k < 2; k++)
      bad += out[2 * g + k] != model_read(c, lane, 4, k);
    for (unsigned k = 0; k < 4; k++)
      bad += out_us[4 * g + k] != model_read(c, lane, 2, k);
    bad += out_uc[g] != model_read(c, lane, 1, 0);
    for (unsigned k = 0; k < 2; k++)
      bad += out_ul[2 * g + k] != model_read(c, lane, 8, k);
  }
  CHECK_EQ(bad, 0);
  clReleaseMemObject(img);
  clReleaseMemObject(img_rw);
  clReleaseMemObject(cb);
  clReleaseMemObject(ob);
  clReleaseMemObject(ob_us);
  clReleaseMemObject(ob_uc);
  clReleaseMemObject(ob_ul);
}

/* Bytes that two work-items write (sub-groups run in no set order) are
 * not compared. */
static void test_writes(void) {
  static unsigned char zero[H][ROW], got[H][ROW], want[H][ROW];
  static unsigned char writers[H][ROW];
  cl_mem img = make_image(CL_MEM_WRITE_ONLY, zero);
  cl_mem cb = test_buffer(&env, sizeof coords, coords);
  run("wr", img, cb, NULL);
  size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
  REQUIRE_OK(clEnqueueReadImage(env.queue, img, CL_TRUE, origin, region, 0,
                                0, got, 0, NULL, NULL));
  for (size_t g = 0; g < G * L; g++) {
    const int *c = coord_of(g);
    long x = c[0] + (long)(g % L % sg) * 4;
    if (x < 0 || x + 4 > ROW)
      continue;
    uint32_t v[2] = {(uint32_t)g, (uint32_t)g + 1000};
    for (int k = 0; k < 2; k++)
      if (c[1] + k >= 0 && c[1] + k < H) {
        memcpy(&want[c[1] + k][x], &v[k], 4);
        for (int b = 0; b < 4; b++)
          writers[c[1] + k][x + b]++;
      }
  }
  int bad = 0, compared = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < ROW; x++)
      if (writers[y][x] <= 1) {
        bad += got[y][x] != want[y][x];
        compared += writers[y][x];
      }
  CHECK_EQ(bad, 0);
  CHECK(compared > 16);
  clReleaseMemObject(img);
  clReleaseMemObject(cb);
}

/* float <-> IEEE half for the exact values the test uses. */
static uint16_t to_half(float f) {
  cl_half h;
  union { float f; uint32_t u; } v = {f};
  uint32_t sign = (v.u >> 16) & 0x8000, e = (v.u >> 23) & 0xff;
  uint32_t m = v.u & 0x7fffff;
  h = (cl_half)(f == 0 ? sign : sign | ((e - 112) << 10) | (m >> 13));
  return h;
}

static void test_half_shuffles(void) {
  enum { N = 64 };
  uint16_t in[N], out[4 * N];
  float x[N];
  for (int i = 0; i < N; i++)
    in[i] = to_half(x[i] = (float)(i + 1) * 0.5f);
  cl_mem ib = test_buffer(&env, sizeof in, in);
  cl_mem ob = test_buffer(&env, sizeof out, NULL);
  cl_int err;
  cl_program p = test_build(&env, src, "-cl-std=CL3.0");
  cl_kernel k = clCreateKernel(p, "shuffles", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof ib, &ib));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof ob, &ob));
  size_t global = N, local = L;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, ob, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  int bad = 0;
  for (size_t g = 0; g < N; g++) {
    size_t base = g - g % sg, lane = g % sg;
    float down = lane + 2 < sg ? x[base + lane + 2] : -x[base + lane + 2 - sg];
    float up = lane >= 1 ? -x[base + lane - 1] + 4 : x[base + sg - 1] + 1;
    bad += out[4 * g] != to_half(x[base + 3]);
    bad += out[4 * g + 1] != to_half(x[base + (lane ^ 1)]);
    bad += out[4 * g + 2] != to_half(down);
    bad += out[4 * g + 3] != to_half(up);
  }
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);
  clReleaseProgram(p);
  clReleaseMemObject(ib);
  clReleaseMemObject(ob);
}

int main(void) {
  test_setup(&env);
  test_seed(0x15b10c);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < ROW; x++)
      pixels[y][x] = (unsigned char)test_rand();
  cl_bool images = CL_FALSE;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT,
                             sizeof images, &images, NULL));
  sg = test_expected_sub_group_size();
  /* Sub-groups per group: L / sg; each gets its own coordinate. */
  static const int pick[][2] = {{0, 0},    {4 * 40, 3}, {ROW - 20, 1},
                                {-8, -1},  {ROW + 4, 4}, {-3, 2},
                                {64, 4},   {96, 0}};
  size_t n = (size_t)(L / sg) * G;
  for (size_t i = 0; i < n; i++) {
    coords[2 * i] = pick[i % 8][0] + (int)(i / 8 * 4 * sg);
    coords[2 * i + 1] = pick[i % 8][1];
  }
  test_half_shuffles();
  if (images) {
    test_reads();
    test_writes();
  }
  test_teardown(&env);
  return test_finish("intel-subgroups-more");
}
