/* Tests the image kernels that the image pass (compiler/image_version.cpp)
 * versions on the format and vectorises: image-to-image filters over RGBA
 * and R of UNORM_INT8 and FLOAT (the versioned formats), one pixel per
 * work-item, reading through kernel-scope samplers (nearest and linear
 * filtering; CLAMP_TO_EDGE, CLAMP, NONE and REPEAT; unnormalised and
 * normalised coordinates) and sampler arguments (every addressing mode,
 * filter and normalisation, float and integer coordinates; the loops are
 * versioned on the argument's class, and with two sampler arguments
 * not; and nearest reads of pixel centres computed from ints shifted by
 * whole pixels, which compiler/image_centres.cpp reads as the ints,
 * through kernel-scope samplers and sampler arguments), at coordinates
 * shifted off the pixel centres and past every edge (launches wider and taller
 * than the image, a width that leaves a remainder after 16 lanes). Each
 * output pixel is compared bit for bit with a host model that evaluates
 * builtins/image.c's formulas in the same float operations in the same
 * order (the x86-64 baseline this test is built for has no FMA to
 * contract them into), so the vectorised loops (default and loop mode),
 * the generic path (fiber mode, SKEIN_IMAGE_VERSIONS=0) and loops without
 * the guessed column (SKEIN_IMAGE_GUESS=0) must all give the same bits.
 * Outside the image a read gives the border colour, also with
 * CLK_ADDRESS_NONE (undefined there; Skein's choice). */
#include "test_util.h"
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static test_env env;

static const char *source =
    "#define FILTER(name, flags, norm) \\\n"
    "kernel void name(read_only image2d_t in, write_only image2d_t out, \\\n"
    "                 float sx, float sy) { \\\n"
    "  const sampler_t s = flags | (norm ? CLK_NORMALIZED_COORDS_TRUE \\\n"
    "                                    : CLK_NORMALIZED_COORDS_FALSE); \\\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1)); \\\n"
    "  float2 f = convert_float2(c) + 0.5f + (float2)(sx, sy); \\\n"
    "  if (norm) f /= (float2)(get_image_width(in), get_image_height(in)); \\\n"
    "  write_imagef(out, c, read_imagef(in, s, f)); \\\n"
    "}\n"
    "#define L CLK_FILTER_LINEAR\n"
    "#define N CLK_FILTER_NEAREST\n"
    "FILTER(lin_edge, L | CLK_ADDRESS_CLAMP_TO_EDGE, 0)\n"
    "FILTER(lin_edge_norm, L | CLK_ADDRESS_CLAMP_TO_EDGE, 1)\n"
    "FILTER(lin_clamp, L | CLK_ADDRESS_CLAMP, 0)\n"
    "FILTER(lin_none, L | CLK_ADDRESS_NONE, 0)\n"
    "FILTER(lin_repeat, L | CLK_ADDRESS_REPEAT, 1)\n"
    "FILTER(near_edge, N | CLK_ADDRESS_CLAMP_TO_EDGE, 0)\n"
    "FILTER(near_clamp, N | CLK_ADDRESS_CLAMP, 0)\n"
    "FILTER(near_repeat, N | CLK_ADDRESS_REPEAT, 1)\n"
    /* Pixel centres of whole-pixel shifts, as ints before the float
     * conversion: compiler/image_centres.cpp reads them as the ints. */
    "#define CENTRE(name, flags, norm) \\\n"
    "kernel void name(read_only image2d_t in, write_only image2d_t out, \\\n"
    "                 float sx, float sy) { \\\n"
    "  const sampler_t s = flags | (norm ? CLK_NORMALIZED_COORDS_TRUE \\\n"
    "                                    : CLK_NORMALIZED_COORDS_FALSE); \\\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1)); \\\n"
    "  float2 f = convert_float2(c + convert_int2((float2)(sx, sy))) + 0.5f; \\\n"
    "  if (norm) f /= (float2)(get_image_width(in), get_image_height(in)); \\\n"
    "  write_imagef(out, c, read_imagef(in, s, f)); \\\n"
    "}\n"
    "CENTRE(cen_edge, N | CLK_ADDRESS_CLAMP_TO_EDGE, 0)\n"
    "CENTRE(cen_edge_norm, N | CLK_ADDRESS_CLAMP_TO_EDGE, 1)\n"
    "CENTRE(cen_clamp, N | CLK_ADDRESS_CLAMP, 0)\n"
    "CENTRE(cen_clamp_norm, N | CLK_ADDRESS_CLAMP, 1)\n"
    "CENTRE(cen_none, N | CLK_ADDRESS_NONE, 0)\n"
    /* The same, the coordinates never divided: with a normalised
     * sampler argument they are far outside (clamped), so the folded
     * unnormalised side must not be taken. */
    "kernel void arg_centre_unnorm(read_only image2d_t in,\n"
    "                              write_only image2d_t out, float sx,\n"
    "                              float sy, sampler_t s, int norm) {\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  float2 f = convert_float2(c + convert_int2((float2)(sx, sy))) + 0.5f;\n"
    "  write_imagef(out, c, read_imagef(in, s, f));\n"
    "}\n"
    "kernel void arg_centre(read_only image2d_t in, write_only image2d_t out,\n"
    "                       float sx, float sy, sampler_t s, int norm) {\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  float2 f = convert_float2(c + convert_int2((float2)(sx, sy))) + 0.5f;\n"
    "  if (norm) f /= (float2)(get_image_width(in), get_image_height(in));\n"
    "  write_imagef(out, c, read_imagef(in, s, f));\n"
    "}\n"
    /* A 3x3 box filter over integer coordinates clamped to the edge:
     * its reads' offsets are phis of the kernel's loops, which the inside
     * versions bound (image_inside.cpp). */
    "kernel void box3(read_only image2d_t in, write_only image2d_t out,\n"
    "                 float sx, float sy) {\n"
    "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE |\n"
    "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  int2 o = c + convert_int2((float2)(sx, sy));\n"
    "  float4 sum = 0.0f;\n"
    "  for (int dy = -1; dy <= 1; dy++)\n"
    "    for (int dx = -1; dx <= 1; dx++)\n"
    "      sum += read_imagef(in, s, o + (int2)(dx, dy));\n"
    "  write_imagef(out, c, sum * (1.0f / 9.0f));\n"
    "}\n"
    /* Integer coordinates through a clamping sampler. */
    "kernel void int_edge(read_only image2d_t in, write_only image2d_t out,\n"
    "                     float sx, float sy) {\n"
    "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE |\n"
    "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imagef(out, c, read_imagef(in, s, c + convert_int2((float2)(sx,"
    " sy))));\n"
    "}\n"
    /* The sampler an argument: the loop is versioned on its class. */
    "kernel void arg(read_only image2d_t in, write_only image2d_t out,\n"
    "                float sx, float sy, sampler_t s, int norm) {\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  float2 f = convert_float2(c) + 0.5f + (float2)(sx, sy);\n"
    "  if (norm) f /= (float2)(get_image_width(in), get_image_height(in));\n"
    "  write_imagef(out, c, read_imagef(in, s, f));\n"
    "}\n"
    /* Integer coordinates through a sampler argument. */
    "kernel void arg_int(read_only image2d_t in, write_only image2d_t out,\n"
    "                    float sx, float sy, sampler_t s, int norm) {\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imagef(out, c, read_imagef(in, s, c + convert_int2((float2)(sx,"
    " sy))));\n"
    "}\n"
    /* Two sampler arguments (not versioned on the sampler: its bits stay
     * a run-time value); pick is 0, so s is the one read. */
    "kernel void arg_two(read_only image2d_t in, write_only image2d_t out,\n"
    "                    float sx, float sy, sampler_t s, int norm,\n"
    "                    sampler_t s2, int pick) {\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  float2 f = convert_float2(c) + 0.5f + (float2)(sx, sy);\n"
    "  if (norm) f /= (float2)(get_image_width(in), get_image_height(in));\n"
    "  write_imagef(out, c, pick ? read_imagef(in, s2, f)\n"
    "                            : read_imagef(in, s, f));\n"
    "}\n";

/* A sampler as the host model sees it. */
typedef struct sampler {
  const char *kernel; /* NULL: the arg kernel with this sampler */
  bool linear, norm, int_coords;
  cl_addressing_mode mode;
  const char *arg_kernel; /* with kernel NULL: arg_int, arg_two,
                             arg_centre (or arg) */
  bool centre; /* shifted by whole pixels before the float conversion */
  bool box;    /* box3: the mean of the 3x3 pixels around, clamped */
} sampler;

/* Sampler arguments: every addressing mode and filter, normalised and
 * not (REPEAT and MIRRORED_REPEAT with unnormalised coordinates are
 * undefined; Skein takes them as normalised, in every path). */
#define ARGS(mode)                                                         \
  {NULL, false, false, false, mode, NULL, false, false},                                  \
      {NULL, true, false, false, mode, NULL, false, false},                               \
      {NULL, false, true, false, mode, NULL, false, false},                               \
      {NULL, true, true, false, mode, NULL, false, false}

static const sampler samplers[] = {
    {"lin_edge", true, false, false, CL_ADDRESS_CLAMP_TO_EDGE, NULL, false, false},
    {"lin_edge_norm", true, true, false, CL_ADDRESS_CLAMP_TO_EDGE, NULL, false, false},
    {"lin_clamp", true, false, false, CL_ADDRESS_CLAMP, NULL, false, false},
    {"lin_none", true, false, false, CL_ADDRESS_NONE, NULL, false, false},
    {"lin_repeat", true, true, false, CL_ADDRESS_REPEAT, NULL, false, false},
    {"near_edge", false, false, false, CL_ADDRESS_CLAMP_TO_EDGE, NULL, false, false},
    {"near_clamp", false, false, false, CL_ADDRESS_CLAMP, NULL, false, false},
    {"near_repeat", false, true, false, CL_ADDRESS_REPEAT, NULL, false, false},
    {"int_edge", false, false, true, CL_ADDRESS_CLAMP_TO_EDGE, NULL, false, false},
    ARGS(CL_ADDRESS_CLAMP_TO_EDGE),
    ARGS(CL_ADDRESS_CLAMP),
    ARGS(CL_ADDRESS_NONE),
    ARGS(CL_ADDRESS_REPEAT),
    ARGS(CL_ADDRESS_MIRRORED_REPEAT),
    {NULL, false, false, true, CL_ADDRESS_CLAMP_TO_EDGE, "arg_int", false, false},
    {NULL, false, false, true, CL_ADDRESS_CLAMP, "arg_int", false, false},
    {NULL, false, false, true, CL_ADDRESS_NONE, "arg_int", false, false},
    {NULL, true, false, false, CL_ADDRESS_CLAMP_TO_EDGE, "arg_two", false, false},
    {NULL, false, true, false, CL_ADDRESS_MIRRORED_REPEAT, "arg_two", false, false},
    {"cen_edge", false, false, false, CL_ADDRESS_CLAMP_TO_EDGE, NULL, true, false},
    {"cen_edge_norm", false, true, false, CL_ADDRESS_CLAMP_TO_EDGE, NULL, true, false},
    {"cen_clamp", false, false, false, CL_ADDRESS_CLAMP, NULL, true, false},
    {"cen_clamp_norm", false, true, false, CL_ADDRESS_CLAMP, NULL, true, false},
    {"cen_none", false, false, false, CL_ADDRESS_NONE, NULL, true, false},
    {NULL, false, false, false, CL_ADDRESS_CLAMP_TO_EDGE, "arg_centre", true, false},
    {NULL, false, true, false, CL_ADDRESS_CLAMP_TO_EDGE, "arg_centre", true, false},
    {NULL, false, false, false, CL_ADDRESS_CLAMP, "arg_centre", true, false},
    {NULL, false, false, false, CL_ADDRESS_NONE, "arg_centre", true, false},
    {NULL, false, true, false, CL_ADDRESS_REPEAT, "arg_centre", true, false},
    {"box3", false, false, true, CL_ADDRESS_CLAMP_TO_EDGE, NULL, false, true},
    {NULL, false, false, false, CL_ADDRESS_CLAMP_TO_EDGE, "arg_centre_unnorm",
     true, false},
    {NULL, false, false, false, CL_ADDRESS_CLAMP, "arg_centre_unnorm", true,
     false},
    {NULL, false, true, false, CL_ADDRESS_CLAMP_TO_EDGE, "arg_centre_unnorm",
     true, false},
};

/* The versioned formats. */
typedef struct format {
  cl_channel_order order;
  cl_channel_type type;
  int channels, bytes; /* channels stored, bytes per pixel */
} format;

static const format formats[] = {
    {CL_RGBA, CL_UNORM_INT8, 4, 4},
    {CL_R, CL_UNORM_INT8, 1, 1},
    {CL_RGBA, CL_FLOAT, 4, 16},
    {CL_R, CL_FLOAT, 1, 4},
};

/* The image: W x H pixels, launched over (W + 11) x (H + 2). */
enum { W = 53, H = 7 };

/* read_imagef's view of pixel (x, y) of image px of format f, or the
 * border colour outside: (0, 0, 0, 0) for RGBA, (0, 0, 0, 1) for R. */
static void texel(const format *f, const unsigned char *px, int64_t x,
                  int64_t y, float out[4]) {
  out[0] = out[1] = out[2] = 0.0f;
  out[3] = f->order == CL_R ? 1.0f : 0.0f;
  if (x < 0 || x >= W || y < 0 || y >= H)
    return;
  const unsigned char *p = px + (y * W + x) * f->bytes;
  for (int c = 0; c < f->channels; c++) {
    if (f->type == CL_UNORM_INT8)
      out[c] = (float)p[c] / 255.0f; /* correctly rounded: code / 255 */
    else
      memcpy(&out[c], p + 4 * c, 4);
  }
}

/* image.c's floor_int: floor, kept within +-2^30. */
static int64_t floor_int(float f) {
  f = floorf(f);
  f = f > 0x1p30f ? 0x1p30f : f;
  f = f > -0x1p30f ? f : -0x1p30f;
  return (int64_t)f;
}

static int64_t clamp_mode(cl_addressing_mode m, int64_t i, int64_t n) {
  if (m == CL_ADDRESS_CLAMP_TO_EDGE)
    return i < 0 ? 0 : i >= n ? n - 1 : i;
  if (m == CL_ADDRESS_CLAMP)
    return i < -1 ? -1 : i > n ? n : i;
  return i;
}

/* One axis of image.c's address(): the pixel(s) and the upper weight. */
static void axis(const sampler *s, float c, int64_t n, int64_t *i0,
                 int64_t *i1, float *a) {
  float nf = (float)n;
  if (s->mode == CL_ADDRESS_MIRRORED_REPEAT) {
    float t = 0.5f * c;
    t = rintf(t);
    t = 2.0f * t;
    float u = fabsf(c - t) * nf;
    if (!s->linear) {
      *i0 = floor_int(u);
      if (*i0 > n - 1)
        *i0 = n - 1;
      return;
    }
    *i0 = floor_int(u - 0.5f);
    *i1 = *i0 + 1;
    *i0 = *i0 < 0 ? 0 : *i0;
    *i1 = *i1 > n - 1 ? n - 1 : *i1;
    *a = (u - 0.5f) - floorf(u - 0.5f);
    return;
  }
  if (s->mode == CL_ADDRESS_REPEAT) {
    float u = (c - floorf(c)) * nf;
    if (!s->linear) {
      *i0 = floor_int(u);
      if (*i0 > n - 1)
        *i0 -= n;
      if (*i0 > n - 1)
        *i0 = n - 1;
      return;
    }
    *i0 = floor_int(u - 0.5f);
    *i1 = *i0 + 1;
    if (*i0 < 0)
      *i0 += n;
    if (*i1 > n - 1)
      *i1 -= n;
    *a = (u - 0.5f) - floorf(u - 0.5f);
    return;
  }
  float u = s->norm ? c * nf : c;
  if (!s->linear) {
    *i0 = clamp_mode(s->mode, floor_int(u), n);
    return;
  }
  int64_t i = floor_int(u - 0.5f);
  *i0 = clamp_mode(s->mode, i, n);
  *i1 = clamp_mode(s->mode, i + 1, n);
  *a = (u - 0.5f) - floorf(u - 0.5f);
}

/* What work-item (x, y) reads through sampler s, shifted by (sx, sy). */
static void model(const format *f, const unsigned char *px, const sampler *s,
                  int x, int y, float sx, float sy, float out[4]) {
  if (s->box) {
    /* The kernel's sum, in its order, then the product. */
    float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        int64_t bx = x + (int)sx + dx, by = y + (int)sy + dy;
        bx = bx < 0 ? 0 : bx >= W ? W - 1 : bx;
        by = by < 0 ? 0 : by >= H ? H - 1 : by;
        float t[4];
        texel(f, px, bx, by, t);
        for (int c = 0; c < 4; c++)
          sum[c] = sum[c] + t[c];
      }
    for (int c = 0; c < 4; c++)
      out[c] = sum[c] * (1.0f / 9.0f);
    return;
  }
  if (s->int_coords) {
    /* Clamped to the edge, or as they are (the border colour outside). */
    int64_t p[2] = {x + (int)sx, y + (int)sy};
    if (s->mode == CL_ADDRESS_CLAMP_TO_EDGE) {
      p[0] = p[0] < 0 ? 0 : p[0] >= W ? W - 1 : p[0];
      p[1] = p[1] < 0 ? 0 : p[1] >= H ? H - 1 : p[1];
    }
    texel(f, px, p[0], p[1], out);
    return;
  }
  float cx = ((float)x + 0.5f) + sx, cy = ((float)y + 0.5f) + sy;
  if (s->centre) /* no overflow: x, y >= 0 and the shifts below */
    cx = (float)(x + (int)sx) + 0.5f, cy = (float)(y + (int)sy) + 0.5f;
  bool divided = !(s->arg_kernel && strcmp(s->arg_kernel,
                                            "arg_centre_unnorm") == 0);
  if (s->norm && divided)
    cx = cx / (float)W, cy = cy / (float)H;
  int64_t x0 = 0, x1 = 0, y0 = 0, y1 = 0;
  float a = 0.0f, b = 0.0f;
  axis(s, cx, W, &x0, &x1, &a);
  axis(s, cy, H, &y0, &y1, &b);
  if (!s->linear) {
    texel(f, px, x0, y0, out);
    return;
  }
  /* Corners (x0, y0), (x1, y0), (x0, y1), (x1, y1); weights x first. */
  const int64_t cxs[4] = {x0, x1, x0, x1}, cys[4] = {y0, y0, y1, y1};
  const float wx[4] = {1.0f - a, a, 1.0f - a, a},
              wy[4] = {1.0f - b, 1.0f - b, b, b};
  float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int m = 0; m < 4; m++) {
    float t[4], w = 1.0f;
    w *= wx[m];
    w *= wy[m];
    texel(f, px, cxs[m], cys[m], t);
    for (int c = 0; c < 4; c++)
      sum[c] = sum[c] + w * t[c];
  }
  memcpy(out, sum, sizeof sum);
}

/* write_imagef's bytes of v in format f: UNORM_INT8 is
 * convert_uchar_sat_rte(v * 255) (NaN 0), FLOAT the float. */
static void encode(const format *f, const float v[4], unsigned char *p) {
  for (int c = 0; c < f->channels; c++) {
    if (f->type == CL_FLOAT) {
      memcpy(p + 4 * c, &v[c], 4);
      continue;
    }
    float x = v[c] * 255.0f;
    x = x == x ? x : 0.0f;
    x = x < 0.0f ? 0.0f : x > 255.0f ? 255.0f : x;
    p[c] = (unsigned char)rintf(x);
  }
}

/* The last two reach the ends of the int range (pixel indices are 32-bit
 * in image.c): integer coordinates x - 2^31 and y + 2^31 - 128 (no
 * overflow for this launch), float ones that far off (floor_int keeps
 * them within +-2^30). */
static const float shifts[][2] = {
    {0.0f, 0.0f}, {-0.75f, 0.25f}, {0.5f, -0.5f}, {1.3f, 2.6f},
    {-3.2f, -1.1f}, {40.25f, 0.0f},
    {-2147483648.0f, 2147483520.0f}, {2147483520.0f, -2147483648.0f},
};

/* The work-group size of the launches (NULL: Skein's choice, one group
 * as wide as the launch). 16 x 2 over the 64 x 9 launch gives groups
 * wholly inside the image, which run the R UNORM_INT8 loops' inside
 * versions (compiler/image_inside.cpp), and groups across its right and
 * bottom edges (the last ones partial), which must not. */
static const size_t *local_size;

/* Runs every sampler over every versioned format and shift in the
 * current environment (mode, versions) and compares with the model. */
static void test_filters(const char *what) {
  cl_program prog = test_build(&env, source, "-cl-std=CL3.0");
  int before = test_failures;
  for (size_t fi = 0; fi < sizeof formats / sizeof formats[0]; fi++) {
    const format *f = &formats[fi];
    size_t size = (size_t)W * H * f->bytes;
    unsigned char *src = malloc(size), *dst = malloc(size),
                  *want = malloc(size);
    for (size_t i = 0; i < size; i++)
      src[i] = (unsigned char)test_rand();
    if (f->type == CL_FLOAT) /* normal finite floats, both signs */
      for (size_t i = 0; i < size; i += 4)
        src[i + 3] = (unsigned char)((src[i + 3] & 0x80) |
                                     (0x30 + src[i + 3] % 0x18));
    cl_image_format fmt = {f->order, f->type};
    cl_image_desc desc = {CL_MEM_OBJECT_IMAGE2D, W, H, 1, 0, 0, 0, 0, 0,
                          {NULL}};
    cl_int err;
    cl_mem in = clCreateImage(env.context,
                              CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &fmt,
                              &desc, src, &err);
    REQUIRE_OK(err);
    cl_mem out = clCreateImage(env.context, CL_MEM_WRITE_ONLY, &fmt, &desc,
                               NULL, &err);
    REQUIRE_OK(err);
    for (size_t si = 0; si < sizeof samplers / sizeof samplers[0]; si++) {
      const sampler *s = &samplers[si];
      const char *name = s->kernel     ? s->kernel
                         : s->arg_kernel ? s->arg_kernel
                                         : "arg";
      cl_kernel k = clCreateKernel(prog, name, &err);
      REQUIRE_OK(err);
      cl_sampler smp = NULL, other = NULL;
      if (!s->kernel) {
        smp = clCreateSampler(env.context, s->norm, s->mode,
                              s->linear ? CL_FILTER_LINEAR
                                        : CL_FILTER_NEAREST,
                              &err);
        REQUIRE_OK(err);
        cl_int norm = s->norm;
        REQUIRE_OK(clSetKernelArg(k, 4, sizeof smp, &smp));
        REQUIRE_OK(clSetKernelArg(k, 5, sizeof norm, &norm));
      }
      if (s->arg_kernel && strcmp(s->arg_kernel, "arg_two") == 0) {
        /* Another sampler beside it, not read (pick 0). */
        other = clCreateSampler(env.context, CL_TRUE, CL_ADDRESS_REPEAT,
                                CL_FILTER_LINEAR, &err);
        REQUIRE_OK(err);
        cl_int pick = 0;
        REQUIRE_OK(clSetKernelArg(k, 6, sizeof other, &other));
        REQUIRE_OK(clSetKernelArg(k, 7, sizeof pick, &pick));
      }
      REQUIRE_OK(clSetKernelArg(k, 0, sizeof in, &in));
      REQUIRE_OK(clSetKernelArg(k, 1, sizeof out, &out));
      for (size_t hi = 0; hi < sizeof shifts / sizeof shifts[0]; hi++) {
        float sx = shifts[hi][0], sy = shifts[hi][1];
        if (s->box && fabsf(sx) + fabsf(sy) > 1e6f)
          continue; /* x + sx + dx would overflow int */
        REQUIRE_OK(clSetKernelArg(k, 2, sizeof sx, &sx));
        REQUIRE_OK(clSetKernelArg(k, 3, sizeof sy, &sy));
        size_t global[2] = {W + 11, H + 2};
        REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 2, NULL, global,
                                          local_size, 0, NULL, NULL));
        size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
        REQUIRE_OK(clEnqueueReadImage(env.queue, out, CL_TRUE, origin,
                                      region, 0, 0, dst, 0, NULL, NULL));
        int bad = 0;
        for (int y = 0; y < H; y++)
          for (int x = 0; x < W; x++) {
            float v[4];
            model(f, src, s, x, y, sx, sy, v);
            unsigned char *w = want + (y * W + x) * f->bytes;
            encode(f, v, w);
            if (memcmp(dst + (y * W + x) * f->bytes, w, f->bytes) != 0 &&
                bad++ < 3)
              fprintf(stderr,
                      "%s: %s (%s, mode %#x%s) %#x/%#x shift (%g, %g) "
                      "pixel (%d, %d) differs from the model\n",
                      what, name,
                      s->linear ? "linear" : "nearest", (unsigned)s->mode,
                      s->norm ? ", normalised" : "", f->order, f->type, sx,
                      sy, x, y);
          }
        CHECK(bad == 0);
      }
      if (smp)
        REQUIRE_OK(clReleaseSampler(smp));
      if (other)
        REQUIRE_OK(clReleaseSampler(other));
      REQUIRE_OK(clReleaseKernel(k));
    }
    REQUIRE_OK(clReleaseMemObject(in));
    REQUIRE_OK(clReleaseMemObject(out));
    free(src);
    free(dst);
    free(want);
  }
  if (test_failures != before)
    fprintf(stderr, "(in %s)\n", what);
  REQUIRE_OK(clReleaseProgram(prog));
}

int main(void) {
  unsetenv("SKEIN_IMAGES");
  test_setup(&env);
  test_seed(0x1a9e5eedULL);
  /* Each environment is read when the program is built. */
  static const size_t groups[2] = {16, 2};
  static const struct {
    const char *what, *var, *value;
    const size_t *local;
  } runs[] = {
      {"default mode (versioned, vectorised)", NULL, NULL, NULL},
      {"work-groups of 16 x 2 (inside versions)", NULL, NULL, groups},
      {"loop mode", "SKEIN_MODE", "loop", NULL},
      {"loop mode, work-groups of 16 x 2", "SKEIN_MODE", "loop", groups},
      {"fiber mode (generic path)", "SKEIN_MODE", "fiber", NULL},
      {"SKEIN_IMAGE_VERSIONS=0 (generic loop)", "SKEIN_IMAGE_VERSIONS", "0",
       NULL},
      {"SKEIN_IMAGE_GUESS=0 (gathers only)", "SKEIN_IMAGE_GUESS", "0",
       groups},
  };
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    if (runs[i].var)
      setenv(runs[i].var, runs[i].value, 1);
    local_size = runs[i].local;
    test_filters(runs[i].what);
    if (runs[i].var)
      unsetenv(runs[i].var);
  }
  test_teardown(&env);
  return test_finish("test-images-versioned");
}
