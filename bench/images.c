/* This file contains skein-bench-images: the throughput of kernel image
 * reads and writes (read_imagef into write_imagef, one pixel per
 * work-item) over a 2D image of CL_RGBA CL_UNORM_INT8 and of CL_RGBA
 * CL_FLOAT (and, with -a, CL_R of both), with integer coordinates, a
 * sampler-less read, and samplers of nearest and linear filtering with
 * unnormalised and normalised coordinates (the sampler a kernel-scope
 * constant, or, in the *_arg kernels, a kernel argument), each against
 * two buffer kernels: one that copies the same bytes, and one that does
 * the same work by hand over a buffer (issue 9's goal is image reads
 * "within 2x of the same kernel over a buffer"):
 *
 *   - 8-bit formats, every read but linear: "conv", the unorm8 round
 *     trip read_imagef/write_imagef make: each channel to float as the
 *     Conversion Rules' c / 255 (written as a product with the float
 *     1 / 255, within the rules' 1.5 ulp, as a buffer programmer writes
 *     it), then convert_uchar*_sat_rte(f * 255.0f);
 *   - float formats, every read but linear: the copy itself;
 *   - linear reads: "lin_unnorm" and "lin_norm", bilinear filtering with
 *     CLK_ADDRESS_CLAMP_TO_EDGE by the specification's formula (i0 =
 *     floor(u - 0.5), a = frac(u - 0.5), indices clamped to the edge,
 *     weights (1 - a)(1 - b), a(1 - b), (1 - a)b, ab), from the same
 *     float coordinates as the image kernel's (normalised ones
 *     multiplied back by the size, as the sampler does), the 8-bit
 *     channels converted as in conv; linear_arg's is lin_unnorm.
 *
 * Before timing, each image kernel's output is compared on the host with
 * its same-work buffer kernel's: bit for bit for the copies and conv,
 * within one unorm8 step or one float ulp for linear filtering. A
 * difference prints a FAIL line and makes the exit status 1 (the figures
 * are still printed: another driver's filter may differ).
 *
 * Also a 5x5 box filter over the RGBA8 image against the same filter
 * over a buffer (edges clamped by hand; not compared). Runs on whichever
 * platform OCL_ICD_VENDORS selects. Each figure is the best of 5
 * launches (profiling times); with -r N the whole set runs N rounds and
 * the median over the rounds of each time and of each ratio (taken
 * within its round) is printed: on a loaded machine a ratio within one
 * round is steadier than either time. Images are 4096 pixels wide and
 * tall enough to hold 64 MiB (-m MiB; -m 0 gives the 4096 x 2048 of
 * before). Their pixels are a pattern of every 8-bit code (one byte in
 * 256 is 0) or floats in [0, 1); with -z every pixel is 0, a black image
 * (an 8-bit code 0 once took a slow path in Skein's conversion).
 *
 * Output, one line per kernel:
 *
 *   rgba8   nearest_norm   4.10 ms  32.7 GB/s   2.95x copy   1.40x conv
 *
 * format, kernel, median time, GB/s (bytes read + written once per
 * pixel), the median ratio of its time to the same round's buffer copy,
 * and, for an image kernel, to its same-work buffer kernel's (named). */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdint.h>
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
/* -z: every input pixel 0 (a black image) instead of the pattern. */
static int black = 0;

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
    /* The same work over buffers (the head comment). */
    "#define CONV(name, T, F, load, store)                                 \\\n"
    "__kernel void name(__global const T *in, __global T *out) {           \\\n"
    "  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\\\n"
    "  F f = load(in[i]);                                                  \\\n"
    "  out[i] = store(f);                                                  \\\n"
    "}\n"
    "#define LOAD_U8X4(p) (convert_float4(p) * (1.0f / 255.0f))\n"
    "#define STORE_U8X4(f) convert_uchar4_sat_rte((f) * 255.0f)\n"
    "#define LOAD_U8(p) (convert_float(p) * (1.0f / 255.0f))\n"
    "#define STORE_U8(f) convert_uchar_sat_rte((f) * 255.0f)\n"
    "#define AS_IS(p) (p)\n"
    "CONV(conv_u8, uchar4, float4, LOAD_U8X4, STORE_U8X4)\n"
    "CONV(conv_r8, uchar, float, LOAD_U8, STORE_U8)\n"
    "#define LINEAR(name, T, F, load, store, norm)                         \\\n"
    "__kernel void name(__global const T *in, __global T *out) {           \\\n"
    "  int x = get_global_id(0), y = get_global_id(1);                     \\\n"
    "  int w = get_global_size(0), h = get_global_size(1);                 \\\n"
    "  float2 u = convert_float2((int2)(x, y)) + 0.5f;                     \\\n"
    "  if (norm) u = u / (float2)(w, h) * (float2)(w, h);                  \\\n"
    "  float2 g = u - 0.5f, lo = floor(g), ab = g - lo;                    \\\n"
    "  int2 i = convert_int2(lo);                                          \\\n"
    "  int x0 = clamp(i.x, 0, w - 1), x1 = clamp(i.x + 1, 0, w - 1);       \\\n"
    "  int y0 = clamp(i.y, 0, h - 1), y1 = clamp(i.y + 1, 0, h - 1);       \\\n"
    "  F v = (1.0f - ab.x) * (1.0f - ab.y) * load(in[y0 * w + x0]) +       \\\n"
    "        ab.x * (1.0f - ab.y) * load(in[y0 * w + x1]) +                \\\n"
    "        (1.0f - ab.x) * ab.y * load(in[y1 * w + x0]) +                \\\n"
    "        ab.x * ab.y * load(in[y1 * w + x1]);                          \\\n"
    "  out[y * w + x] = store(v);                                          \\\n"
    "}\n"
    "LINEAR(lin_unnorm_u8, uchar4, float4, LOAD_U8X4, STORE_U8X4, 0)\n"
    "LINEAR(lin_norm_u8, uchar4, float4, LOAD_U8X4, STORE_U8X4, 1)\n"
    "LINEAR(lin_unnorm_f32, float4, float4, AS_IS, AS_IS, 0)\n"
    "LINEAR(lin_norm_f32, float4, float4, AS_IS, AS_IS, 1)\n"
    "LINEAR(lin_unnorm_r8, uchar, float, LOAD_U8, STORE_U8, 0)\n"
    "LINEAR(lin_norm_r8, uchar, float, LOAD_U8, STORE_U8, 1)\n"
    "LINEAR(lin_unnorm_r32f, float, float, AS_IS, AS_IS, 0)\n"
    "LINEAR(lin_norm_r32f, float, float, AS_IS, AS_IS, 1)\n"
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

/* Seconds of the best of reps runs of kernel name over W x H
 * work-items, with arguments a and b (buffers or images) and, where s is
 * not NULL, sampler s. */
static double run(const char *name, cl_mem a, cl_mem b, cl_sampler s,
                  int reps) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  check(err, name);
  check(clSetKernelArg(k, 0, sizeof a, &a), "clSetKernelArg");
  check(clSetKernelArg(k, 1, sizeof b, &b), "clSetKernelArg");
  if (s)
    check(clSetKernelArg(k, 2, sizeof s, &s), "clSetKernelArg");
  size_t global[2] = {W, H}, local[2] = {64, 4};
  double best = 1e30;
  for (int rep = 0; rep < reps; rep++) {
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

/* The kernels of one format, in the order they run and print: the
 * buffer kernels first (each image kernel's same-work kernel is one of
 * them), then the image kernels, then the box filters. */
enum row {
  COPY, CONV, LIN_UNNORM_BUF, LIN_NORM_BUF, /* buffers */
  INT_COORDS, SAMPLERLESS, NEAREST_UNNORM, NEAREST_NORM, LINEAR_UNNORM,
  LINEAR_NORM, NEAREST_ARG, LINEAR_ARG,     /* images */
  BOX_BUFFER, BOX_IMAGE, NUM_ROWS
};
#define FIRST_IMAGE INT_COORDS
static const char *row_names[NUM_ROWS] = {
    "buffer copy",   "buffer conv",    "buffer lin_unnorm", "buffer lin_norm",
    "int_coords",    "samplerless",    "nearest_unnorm",    "nearest_norm",
    "linear_unnorm", "linear_norm",    "nearest_arg",       "linear_arg",
    "box5 buffer",   "box5 image"};
/* What the same-work kernels are called in the output. */
static const char *same_names[FIRST_IMAGE] = {"copy", "conv", "lin_unnorm",
                                              "lin_norm"};

/* One format: its image format, pixel bytes, its buffer kernels (copy,
 * conv or NULL where a read converts nothing, linear unnormalised and
 * normalised), whether the box filters run. */
typedef struct format {
  const char *what;
  cl_channel_order order;
  cl_channel_type type;
  size_t pixel;
  const char *buffer_kernels[FIRST_IMAGE];
  int box;
} format;

/* The buffer kernel that does image row i's work by hand. */
static enum row same_work(const format *f, int i) {
  if (i == LINEAR_UNNORM || i == LINEAR_ARG)
    return LIN_UNNORM_BUF;
  if (i == LINEAR_NORM)
    return LIN_NORM_BUF;
  return f->buffer_kernels[CONV] ? CONV : COPY;
}

/* Seconds of the best of reps runs of row i's kernel. */
static double run_row(const format *f, int i, cl_mem bin, cl_mem bout,
                      cl_mem iin, cl_mem iout, cl_sampler nearest,
                      cl_sampler linear, int reps) {
  if (i < FIRST_IMAGE)
    return run(f->buffer_kernels[i], bin, bout, NULL, reps);
  if (i == BOX_BUFFER)
    return run("box5_buffer", bin, bout, NULL, reps);
  if (i == BOX_IMAGE)
    return run("box5_image", iin, iout, NULL, reps);
  cl_sampler s = i == NEAREST_ARG ? nearest : i == LINEAR_ARG ? linear : NULL;
  return run(row_names[i], iin, iout, s, reps);
}

/* The index of the first channel where a and b (n channels of type)
 * differ: bit for bit where tolerance is 0, else by more than one unorm8
 * step or one float ulp; -1 if none. */
static long long first_difference(const unsigned char *a,
                                  const unsigned char *b, size_t n,
                                  cl_channel_type type, int tolerance) {
  for (size_t i = 0; i < n; i++) {
    long long x, y;
    if (type == CL_FLOAT) {
      int32_t u, v;
      memcpy(&u, a + 4 * i, 4);
      memcpy(&v, b + 4 * i, 4);
      /* Floats as integers in their order (-0 and +0 one apart). */
      x = u < 0 ? (long long)INT32_MIN - u - 1 : u;
      y = v < 0 ? (long long)INT32_MIN - v - 1 : v;
    } else {
      x = a[i], y = b[i];
    }
    if (x - y > tolerance || y - x > tolerance)
      return (long long)i;
  }
  return -1;
}

/* Compares every image kernel's output with its same-work buffer
 * kernel's (one launch each, the outputs filled with a pattern first so
 * that a kernel that writes nothing cannot match); prints a FAIL line for
 * each that differs. Returns the number of FAILs. */
static int verify(const format *f, cl_mem bin, cl_mem bout, cl_mem iin,
                  cl_mem iout, cl_sampler nearest, cl_sampler linear,
                  size_t bytes) {
  unsigned char *want = malloc(bytes), *got = malloc(bytes);
  if (!want || !got) {
    fprintf(stderr, "skein-bench-images: out of host memory\n");
    exit(1);
  }
  size_t channels = bytes / (f->type == CL_FLOAT ? 4 : 1);
  size_t per_pixel = channels / ((size_t)W * H);
  size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
  const unsigned char pattern = 0xa5;
  const float colour[4] = {0.3f, 0.6f, 0.9f, 0.2f};
  int fails = 0;
  for (int b = COPY; b < FIRST_IMAGE; b++) {
    if (!f->buffer_kernels[b])
      continue;
    check(clEnqueueFillBuffer(q, bout, &pattern, 1, 0, bytes, 0, NULL, NULL),
          "clEnqueueFillBuffer");
    run_row(f, b, bin, bout, iin, iout, nearest, linear, 1);
    check(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, bytes, want, 0, NULL,
                              NULL),
          "clEnqueueReadBuffer");
    for (int i = FIRST_IMAGE; i < BOX_BUFFER; i++) {
      if ((int)same_work(f, i) != b)
        continue;
      check(clEnqueueFillImage(q, iout, colour, origin, region, 0, NULL,
                               NULL),
            "clEnqueueFillImage");
      run_row(f, i, bin, bout, iin, iout, nearest, linear, 1);
      check(clEnqueueReadImage(q, iout, CL_TRUE, origin, region, 0, 0, got,
                               0, NULL, NULL),
            "clEnqueueReadImage");
      long long d = first_difference(got, want, channels, f->type,
                                     b == LIN_UNNORM_BUF || b == LIN_NORM_BUF);
      if (d >= 0) {
        size_t pixel = (size_t)d / per_pixel;
        size_t at = (size_t)d * (f->type == CL_FLOAT ? 4 : 1);
        uint32_t g = 0, w = 0;
        memcpy(&g, got + at, f->type == CL_FLOAT ? 4 : 1);
        memcpy(&w, want + at, f->type == CL_FLOAT ? 4 : 1);
        printf("FAIL: %s %s differs from buffer %s at pixel (%zu, %zu) "
               "channel %zu: bits %#x, buffer %#x\n",
               f->what, row_names[i], same_names[b], pixel % W, pixel / W,
               (size_t)d % per_pixel, g, w);
        fails++;
      }
    }
  }
  free(want);
  free(got);
  return fails;
}

#define MAX_ROUNDS 31
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

/* The median over the rounds of row i's time divided by row j's. */
static double median_ratio(int i, int j, int rounds) {
  double ratio[MAX_ROUNDS];
  for (int r = 0; r < rounds; r++)
    ratio[r] = times[i][r] / times[j][r];
  return median(ratio, rounds);
}

/* Measures and prints format f over rounds rounds; returns the number of
 * image kernels whose output differs from their same-work kernel's. */
static int run_format(const format *f, int rounds) {
  cl_int err;
  size_t min_rows = (min_mib << 20) / ((size_t)W * f->pixel);
  H = min_rows > 2048 ? min_rows : 2048;
  size_t bytes = (size_t)W * H * f->pixel;
  unsigned char *host = malloc(bytes);
  for (size_t i = 0; i < bytes; i++)
    host[i] = (unsigned char)(i * 7 + (i >> 12));
  if (f->type == CL_FLOAT)
    for (size_t i = 0; i < bytes / 4; i++)
      ((float *)host)[i] = (float)(i % 1000) / 1000.0f;
  if (black)
    memset(host, 0, bytes);
  cl_mem bin = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, bytes, host, &err);
  check(err, "clCreateBuffer");
  cl_mem bout = clCreateBuffer(ctx, 0, bytes, NULL, &err);
  check(err, "clCreateBuffer");
  cl_image_format fmt = {f->order, f->type};
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
   * nearest_unnorm and linear_unnorm (unnormalised coordinates must be
   * asked for: CL_SAMPLER_NORMALIZED_COORDS is CL_TRUE by default, and
   * without it every work-item read the clamped last column of its row,
   * which the figures before the same-work comparison measured). */
  cl_sampler_properties np[] = {CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE,
                                 CL_SAMPLER_ADDRESSING_MODE,
                                 CL_ADDRESS_CLAMP_TO_EDGE,
                                 CL_SAMPLER_FILTER_MODE, CL_FILTER_NEAREST, 0};
  cl_sampler_properties lp[] = {CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE,
                                 CL_SAMPLER_ADDRESSING_MODE,
                                 CL_ADDRESS_CLAMP_TO_EDGE,
                                 CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0};
  cl_sampler nearest = clCreateSamplerWithProperties(ctx, np, &err);
  check(err, "clCreateSamplerWithProperties");
  cl_sampler linear = clCreateSamplerWithProperties(ctx, lp, &err);
  check(err, "clCreateSamplerWithProperties");

  int fails = verify(f, bin, bout, iin, iout, nearest, linear, bytes);
  int rows = f->box ? NUM_ROWS : BOX_BUFFER;
  for (int r = 0; r < rounds; r++)
    for (int i = 0; i < rows; i++)
      if (i >= FIRST_IMAGE || f->buffer_kernels[i])
        times[i][r] = run_row(f, i, bin, bout, iin, iout, nearest, linear, 5);
  for (int i = 0; i < rows; i++) {
    if (i < FIRST_IMAGE && !f->buffer_kernels[i])
      continue;
    double t = median(times[i], rounds);
    printf("%-7s %-17s %8.2f ms %7.2f GB/s %6.2fx copy", f->what,
           row_names[i], t * 1e3, 2.0 * (double)bytes / t / 1e9,
           median_ratio(i, COPY, rounds));
    if (i >= FIRST_IMAGE && i < BOX_BUFFER) {
      enum row s = same_work(f, i);
      printf(" %6.2fx %s", median_ratio(i, s, rounds), same_names[s]);
    }
    putchar('\n');
    if (i == COPY)
      printf("%-7s (%d x %zu pixels, %zu MiB per image)\n", f->what, W, H,
             bytes >> 20);
  }
  if (f->box)
    printf("%-7s box5 image / box5 buffer time: %.2fx\n", f->what,
           median_ratio(BOX_IMAGE, BOX_BUFFER, rounds));
  clReleaseSampler(nearest);
  clReleaseSampler(linear);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
  clReleaseMemObject(iin);
  clReleaseMemObject(iout);
  free(host);
  return fails;
}

static const format formats[] = {
    {"rgba8", CL_RGBA, CL_UNORM_INT8, 4,
     {"copy_u8", "conv_u8", "lin_unnorm_u8", "lin_norm_u8"}, 1},
    {"rgba32f", CL_RGBA, CL_FLOAT, 16,
     {"copy_f32", NULL, "lin_unnorm_f32", "lin_norm_f32"}, 0},
    {"r8", CL_R, CL_UNORM_INT8, 1,
     {"copy_r8", "conv_r8", "lin_unnorm_r8", "lin_norm_r8"}, 0},
    {"r32f", CL_R, CL_FLOAT, 4,
     {"copy_r32f", NULL, "lin_unnorm_r32f", "lin_norm_r32f"}, 0},
};

int main(int argc, char **argv) {
  int rounds = 1, all = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) {
      rounds = atoi(argv[++i]);
    } else if (strcmp(argv[i], "-a") == 0) {
      all = 1;
    } else if (strcmp(argv[i], "-z") == 0) {
      black = 1;
    } else if (strcmp(argv[i], "-m") == 0 && i + 1 < argc) {
      min_mib = (size_t)atol(argv[++i]);
    } else {
      fprintf(stderr, "usage: skein-bench-images [-r rounds (1-%d)] [-a: R "
                      "formats too] [-m MiB: the least size of an image, "
                      "64 by default; 0: 4096 x 2048 pixels] [-z: black "
                      "images]\n", MAX_ROUNDS);
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
         "MiB%s), work-groups of 64 x 4, %d round%s (medians)\n", name, W,
         min_mib, black ? ", every pixel 0" : "", rounds,
         rounds > 1 ? "s" : "");
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
  printf("columns: format, kernel, median time, GB/s, time / the buffer "
         "copy's, and for an image kernel time / its same-work buffer "
         "kernel's (named)\n");
  int fails = 0;
  for (int i = 0; i < (all ? 4 : 2); i++)
    fails += run_format(&formats[i], rounds);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  if (fails)
    printf("FAIL: %d image kernel%s differ from their same-work buffer "
           "kernels\n", fails, fails > 1 ? "s" : "");
  return fails ? 1 : 0;
}
