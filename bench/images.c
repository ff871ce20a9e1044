/* This file contains skein-bench-images: the throughput of kernel image
 * reads and writes (read_imagef into write_imagef, one pixel per
 * work-item) over a 2D image of CL_RGBA CL_UNORM_INT8 and of CL_RGBA
 * CL_FLOAT (and, with -a, CL_R of both), with integer coordinates, a
 * sampler-less read, and samplers of nearest and linear filtering with
 * unnormalised and normalised coordinates (the sampler a kernel-scope
 * constant, or, in the *_arg kernels, a kernel argument), beside a kernel
 * that copies the same bytes between two buffers; and a 5x5 box filter
 * over the RGBA8 image against the same filter over a buffer (edges
 * clamped by hand). Prints GB/s (bytes read + written once per pixel)
 * and each figure's ratio to its buffer copy, on whichever platform
 * OCL_ICD_VENDORS selects. Each figure is the best of 5 launches
 * (profiling times); with -r N the whole set runs N rounds and the
 * median over the rounds of each time and of each ratio (taken within
 * its round) is printed: on a loaded machine a ratio within one round
 * is steadier than either time. Images are 4096 pixels wide and tall
 * enough to hold 64 MiB (-m MiB; -m 0 gives the 4096 x 2048 of before). */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Images are W pixels wide and at least 2048 rows tall, with enough rows
 * that each image (and each buffer) holds at least min_mib MiB (-m; 64
 * by default): so that the copies run from memory, not from a
 * server's last-level cache (at 4096 x 2048 an 8-bit image was 8 or 32
 * MiB, and its buffer copy took 0.09-0.47 ms on a 16-core Xeon). */
#define W 4096
static size_t H = 2048;
static size_t min_mib = 64;

static const char *source =
    "#define NEAREST (CLK_FILTER_NEAREST | CLK_ADDRESS_CLAMP_TO_EDGE)\n"
    "#define LINEAR (CLK_FILTER_LINEAR | CLK_ADDRESS_CLAMP_TO_EDGE)\n"
    "__kernel void copy_u8(__global const uchar4 *in, __global uchar4 *out)"
    " {\n"
    "  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
    "  out[i] = in[i];\n"
    "}\n"
    "__kernel void copy_f32(__global const float4 *in,\n"
    "                       __global float4 *out) {\n"
    "  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
    "  out[i] = in[i];\n"
    "}\n"
    "__kernel void int_coords(read_only image2d_t in,\n"
    "                         write_only image2d_t out) {\n"
    "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | NEAREST;\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imagef(out, c, read_imagef(in, s, c));\n"
    "}\n"
    "__kernel void samplerless(read_only image2d_t in,\n"
    "                          write_only image2d_t out) {\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imagef(out, c, read_imagef(in, c));\n"
    "}\n"
    "#define FLOAT_READ(name, filter, norm)                                \\\n"
    "__kernel void name(read_only image2d_t in, write_only image2d_t out) {\\\n"
    "  const sampler_t s = filter | (norm ? CLK_NORMALIZED_COORDS_TRUE     \\\n"
    "                                     : CLK_NORMALIZED_COORDS_FALSE);  \\\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));                \\\n"
    "  float2 f = convert_float2(c) + 0.5f;                                \\\n"
    "  if (norm) f /= (float2)(get_image_width(in), get_image_height(in)); \\\n"
    "  write_imagef(out, c, read_imagef(in, s, f));                        \\\n"
    "}\n"
    "FLOAT_READ(nearest_unnorm, NEAREST, 0)\n"
    "FLOAT_READ(nearest_norm, NEAREST, 1)\n"
    "FLOAT_READ(linear_unnorm, LINEAR, 0)\n"
    "FLOAT_READ(linear_norm, LINEAR, 1)\n"
    "#define ARG_READ(name, norm)                                          \\\n"
    "__kernel void name(read_only image2d_t in, write_only image2d_t out,  \\\n"
    "                   sampler_t s) {                                     \\\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));                \\\n"
    "  float2 f = convert_float2(c) + 0.5f;                                \\\n"
    "  if (norm) f /= (float2)(get_image_width(in), get_image_height(in)); \\\n"
    "  write_imagef(out, c, read_imagef(in, s, f));                        \\\n"
    "}\n"
    "ARG_READ(nearest_arg, 0)\n"
    "ARG_READ(linear_arg, 0)\n"
    "__kernel void copy_r8(__global const uchar *in, __global uchar *out) {\n"
    "  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
    "  out[i] = in[i];\n"
    "}\n"
    "__kernel void copy_r32f(__global const float *in, __global float *out) {\n"
    "  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
    "  out[i] = in[i];\n"
    "}\n"
    "__kernel void box5_buffer(__global const uchar4 *in,\n"
    "                          __global uchar4 *out) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  int w = get_global_size(0), h = get_global_size(1);\n"
    "  float4 sum = 0.0f;\n"
    "  for (int dy = -2; dy <= 2; dy++)\n"
    "    for (int dx = -2; dx <= 2; dx++) {\n"
    "      int xx = clamp(x + dx, 0, w - 1), yy = clamp(y + dy, 0, h - 1);\n"
    "      sum += convert_float4(in[yy * w + xx]) * (1.0f / 255.0f);\n"
    "    }\n"
    "  out[y * w + x] = convert_uchar4_sat_rte(sum * (255.0f / 25.0f));\n"
    "}\n"
    "__kernel void box5_image(read_only image2d_t in,\n"
    "                         write_only image2d_t out) {\n"
    "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | NEAREST;\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float4 sum = 0.0f;\n"
    "  for (int dy = -2; dy <= 2; dy++)\n"
    "    for (int dx = -2; dx <= 2; dx++)\n"
    "      sum += read_imagef(in, s, (int2)(x + dx, y + dy));\n"
    "  write_imagef(out, (int2)(x, y), sum * (1.0f / 25.0f));\n"
    "}\n";

static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;
static cl_program prog;

static void check(cl_int err, const char *what) {
  if (err != CL_SUCCESS) {
    fprintf(stderr, "skein-bench-images: %s failed (%d)\n", what, err);
    exit(1);
  }
}

/* Seconds of the best of 5 runs of kernel name over W x H work-items,
 * with arguments a and b (buffers or images) and, where s is not NULL,
 * sampler s. */
static double run(const char *name, cl_mem a, cl_mem b, cl_sampler s) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  check(err, name);
  check(clSetKernelArg(k, 0, sizeof a, &a), "clSetKernelArg");
  check(clSetKernelArg(k, 1, sizeof b, &b), "clSetKernelArg");
  if (s)
    check(clSetKernelArg(k, 2, sizeof s, &s), "clSetKernelArg");
  size_t global[2] = {W, H}, local[2] = {64, 4};
  double best = 1e30;
  for (int rep = 0; rep < 5; rep++) {
    cl_event ev;
    check(clEnqueueNDRangeKernel(q, k, 2, NULL, global, local, 0, NULL, &ev),
          "clEnqueueNDRangeKernel");
    check(clWaitForEvents(1, &ev), "clWaitForEvents");
    cl_ulong t0, t1;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0,
                            NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1,
                            NULL);
    clReleaseEvent(ev);
    double t = (double)(t1 - t0) * 1e-9;
    if (t < best)
      best = t;
  }
  clReleaseKernel(k);
  return best;
}

/* The figures of one format: kernel i's time in each round. */
#define MAX_ROUNDS 31
#define NUM_ROWS 11
enum { COPY, BOX_BUFFER = 9, BOX_IMAGE = 10 };
static const char *row_names[NUM_ROWS] = {
    "buffer copy",  "int_coords",    "samplerless", "nearest_unnorm",
    "nearest_norm", "linear_unnorm", "linear_norm", "nearest_arg",
    "linear_arg",   "box5 buffer",   "box5 image"};
static double times[NUM_ROWS][MAX_ROUNDS];

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(const double *v, int n) {
  double tmp[MAX_ROUNDS];
  memcpy(tmp, v, (size_t)n * sizeof *v);
  qsort(tmp, (size_t)n, sizeof *tmp, cmp_double);
  return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

/* One format: channel order and type, pixel bytes, the buffer copy
 * kernel, and whether the box filters run; rounds rounds. */
static void run_format(const char *what, cl_channel_order order,
                       cl_channel_type type, size_t pixel,
                       const char *copy_kernel, int box, int rounds) {
  cl_int err;
  size_t min_rows = (min_mib << 20) / ((size_t)W * pixel);
  H = min_rows > 2048 ? min_rows : 2048;
  size_t bytes = (size_t)W * H * pixel;
  unsigned char *host = malloc(bytes);
  for (size_t i = 0; i < bytes; i++)
    host[i] = (unsigned char)(i * 7 + (i >> 12));
  if (type == CL_FLOAT)
    for (size_t i = 0; i < bytes / 4; i++)
      ((float *)host)[i] = (float)(i % 1000) / 1000.0f;
  cl_mem bin = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, bytes, host, &err);
  check(err, "clCreateBuffer");
  cl_mem bout = clCreateBuffer(ctx, 0, bytes, NULL, &err);
  check(err, "clCreateBuffer");
  cl_image_format fmt = {order, type};
  cl_image_desc desc = {0};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = W;
  desc.image_height = H;
  cl_mem iin = clCreateImage(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             &fmt, &desc, host, &err);
  check(err, "clCreateImage");
  cl_mem iout = clCreateImage(ctx, CL_MEM_WRITE_ONLY, &fmt, &desc, NULL, &err);
  check(err, "clCreateImage");
  /* The samplers of the *_arg kernels: as the constants of
   * nearest_unnorm and linear_unnorm. */
  cl_sampler_properties np[] = {CL_SAMPLER_ADDRESSING_MODE,
                                 CL_ADDRESS_CLAMP_TO_EDGE,
                                 CL_SAMPLER_FILTER_MODE, CL_FILTER_NEAREST, 0};
  cl_sampler_properties lp[] = {CL_SAMPLER_ADDRESSING_MODE,
                                 CL_ADDRESS_CLAMP_TO_EDGE,
                                 CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0};
  cl_sampler nearest = clCreateSamplerWithProperties(ctx, np, &err);
  check(err, "clCreateSamplerWithProperties");
  cl_sampler linear = clCreateSamplerWithProperties(ctx, lp, &err);
  check(err, "clCreateSamplerWithProperties");

  for (int r = 0; r < rounds; r++) {
    times[COPY][r] = run(copy_kernel, bin, bout, NULL);
    for (int i = 1; i <= 6; i++)
      times[i][r] = run(row_names[i], iin, iout, NULL);
    times[7][r] = run("nearest_arg", iin, iout, nearest);
    times[8][r] = run("linear_arg", iin, iout, linear);
    if (box) {
      times[BOX_BUFFER][r] = run("box5_buffer", bin, bout, NULL);
      times[BOX_IMAGE][r] = run("box5_image", iin, iout, NULL);
    }
  }
  for (int i = 0; i < (box ? NUM_ROWS : BOX_BUFFER); i++) {
    double ratio[MAX_ROUNDS];
    for (int r = 0; r < rounds; r++)
      ratio[r] = times[i][r] / times[COPY][r];
    double t = median(times[i], rounds);
    printf("%-7s %-15s %8.2f ms %8.2f GB/s  %6.2fx the buffer copy's time\n",
           what, row_names[i], t * 1e3, 2.0 * (double)bytes / t / 1e9,
           median(ratio, rounds));
    if (i == COPY)
      printf("%-7s (%d x %zu pixels, %zu MiB per image)\n", what, W, H,
             bytes >> 20);
  }
  if (box) {
    double ratio[MAX_ROUNDS];
    for (int r = 0; r < rounds; r++)
      ratio[r] = times[BOX_IMAGE][r] / times[BOX_BUFFER][r];
    printf("%-7s box5 image / box5 buffer time: %.2fx\n", what,
           median(ratio, rounds));
  }
  clReleaseSampler(nearest);
  clReleaseSampler(linear);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
  clReleaseMemObject(iin);
  clReleaseMemObject(iout);
  free(host);
}

int main(int argc, char **argv) {
  int rounds = 1, all = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) {
      rounds = atoi(argv[++i]);
    } else if (strcmp(argv[i], "-a") == 0) {
      all = 1;
    } else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
      min_mib = (size_t)atol(argv[++i]);
    } else {
      fprintf(stderr, "usage: skein-bench-images [-r rounds (1-%d)] [-a: R "
                      "formats too] [-m MiB: the least size of an image, "
                      "64 by default; 0: 4096 x 2048 pixels]\n", MAX_ROUNDS);
      return 2;
    }
  }
  if (rounds < 1 || rounds > MAX_ROUNDS) {
    fprintf(stderr, "skein-bench-images: rounds must be 1-%d\n", MAX_ROUNDS);
    return 2;
  }
  cl_platform_id platform;
  check(clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs");
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL),
        "clGetDeviceIDs");
  char name[256];
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, NULL);
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
  printf("platform: %s, images of %d x 2048 pixels or more (at least %zu "
         "MiB), work-groups of 64 x 4, %d round%s (medians)\n", name, W,
         min_mib, rounds, rounds > 1 ? "s" : "");
  if (!images) {
    printf("the device has no image support\n");
    return 1;
  }
  cl_int err;
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  check(err, "clCreateContext");
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                 CL_QUEUE_PROFILING_ENABLE, 0};
  q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
  check(err, "clCreateCommandQueueWithProperties");
  prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  check(err, "clCreateProgramWithSource");
  if (clBuildProgram(prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                          NULL);
    fprintf(stderr, "build failed:\n%s\n", log);
    return 1;
  }
  run_format("rgba8", CL_RGBA, CL_UNORM_INT8, 4, "copy_u8", 1, rounds);
  run_format("rgba32f", CL_RGBA, CL_FLOAT, 16, "copy_f32", 0, rounds);
  if (all) {
    run_format("r8", CL_R, CL_UNORM_INT8, 1, "copy_r8", 0, rounds);
    run_format("r32f", CL_R, CL_FLOAT, 4, "copy_r32f", 0, rounds);
  }
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}
