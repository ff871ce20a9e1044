/* Tests that every image and sampler entry point returns the error code
 * the OpenCL 3.0 API specification names for bad formats, sizes,
 * descriptors, pitches, flags, host pointers, origins and regions, map
 * flags, host access, overlapping copies, wrong objects (an image where a
 * buffer is expected and the reverse, a sampler that is not one), and
 * that a failed creation returns NULL. Runs with images on (the
 * default; the entry points with SKEIN_IMAGES=0 are test-api-errors'
 * rows). */
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#include "test_util.h"
#include <stdint.h>

static test_env env;
static cl_context other_ctx;
static cl_command_queue other_queue;

static const cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};

/* clCreateImage's error code; a failed call must return NULL. */
static cl_int create(cl_context ctx, cl_mem_flags flags,
                     const cl_image_format *f, const cl_image_desc *d,
                     void *host) {
  cl_int err = 1;
  cl_mem m = clCreateImage(ctx, flags, f, d, host, &err);
  if (err == CL_SUCCESS)
    REQUIRE_OK(clReleaseMemObject(m));
  else
    CHECK(m == NULL);
  return err;
}

static cl_image_desc desc2d(size_t w, size_t h) {
  cl_image_desc d = {CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0, 0, 0, 0, 0, {NULL}};
  return d;
}

static cl_mem image2d(cl_mem_flags flags, size_t w, size_t h) {
  cl_image_desc d = desc2d(w, h);
  cl_int err;
  cl_mem m = clCreateImage(env.context, flags, &rgba8, &d, NULL, &err);
  REQUIRE_OK(err);
  return m;
}

static cl_mem buffer(cl_mem_flags flags, size_t size, void *host) {
  cl_int err;
  cl_mem m = clCreateBuffer(env.context, flags, size, host, &err);
  REQUIRE_OK(err);
  return m;
}

static void create_errors(void) {
  cl_image_desc d = desc2d(8, 8);
  unsigned char host[4096];
  /* CL_INVALID_CONTEXT */
  CHECK_EQ(create(NULL, 0, &rgba8, &d, NULL), CL_INVALID_CONTEXT);
  CHECK_EQ(create((cl_context)env.queue, 0, &rgba8, &d, NULL),
           CL_INVALID_CONTEXT);
  /* CL_INVALID_PROPERTY */
  const cl_mem_properties bad_props[] = {0x12345, 0, 0};
  cl_int err = 1;
  CHECK(clCreateImageWithProperties(env.context, bad_props, 0, &rgba8, &d,
                                    NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_PROPERTY);
  /* CL_INVALID_VALUE: flags */
  CHECK_EQ(create(env.context, (cl_mem_flags)1 << 40, &rgba8, &d, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(create(env.context, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, &rgba8,
                  &d, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(create(env.context, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR,
                  &rgba8, &d, host),
           CL_INVALID_VALUE);
  CHECK_EQ(create(env.context, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
                  &rgba8, &d, NULL),
           CL_INVALID_VALUE);
  /* CL_INVALID_IMAGE_FORMAT_DESCRIPTOR */
  const cl_image_format bad_formats[] = {
      {0, CL_UNORM_INT8},           {CL_RGBA, 0},
      {CL_RGB, CL_UNORM_INT8},      {CL_BGRA, CL_FLOAT},
      {CL_ARGB, CL_UNORM_INT16},    {CL_RGBA, CL_UNORM_SHORT_565},
      {CL_RGB, CL_UNORM_INT_101010_2}, {CL_INTENSITY, CL_SIGNED_INT8},
      {CL_LUMINANCE, CL_UNSIGNED_INT32}, {CL_sRGBA, CL_UNORM_INT16},
      {CL_DEPTH, CL_UNORM_INT8},    {CL_R, CL_UNORM_INT24}};
  CHECK_EQ(create(env.context, 0, NULL, &d, NULL),
           CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  for (size_t i = 0; i < sizeof bad_formats / sizeof bad_formats[0]; i++)
    CHECK_EQ(create(env.context, 0, &bad_formats[i], &d, NULL),
             CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  /* CL_IMAGE_FORMAT_NOT_SUPPORTED: legal, not implemented or not for the
   * type. */
  const cl_image_format depth24 = {CL_DEPTH, CL_UNORM_INT24};
  const cl_image_format ds = {CL_DEPTH_STENCIL, CL_FLOAT};
  const cl_image_format depth = {CL_DEPTH, CL_FLOAT};
  CHECK_EQ(create(env.context, 0, &depth24, &d, NULL),
           CL_IMAGE_FORMAT_NOT_SUPPORTED);
  CHECK_EQ(create(env.context, 0, &ds, &d, NULL),
           CL_IMAGE_FORMAT_NOT_SUPPORTED);
  cl_image_desc d3 = {CL_MEM_OBJECT_IMAGE3D, 4, 4, 4, 0, 0, 0, 0, 0, {NULL}};
  CHECK_EQ(create(env.context, 0, &depth, &d3, NULL),
           CL_IMAGE_FORMAT_NOT_SUPPORTED);
  CHECK_EQ(create(env.context, 0, &depth, &d, NULL), CL_SUCCESS);
  /* CL_INVALID_IMAGE_DESCRIPTOR */
  CHECK_EQ(create(env.context, 0, &rgba8, NULL, NULL),
           CL_INVALID_IMAGE_DESCRIPTOR);
  cl_image_desc bad = d;
  bad.image_type = CL_MEM_OBJECT_BUFFER;
  CHECK_EQ(create(env.context, 0, &rgba8, &bad, NULL),
           CL_INVALID_IMAGE_DESCRIPTOR);
  bad = d, bad.num_mip_levels = 1;
  CHECK_EQ(create(env.context, 0, &rgba8, &bad, NULL),
           CL_INVALID_IMAGE_DESCRIPTOR);
  bad = d, bad.num_samples = 1;
  CHECK_EQ(create(env.context, 0, &rgba8, &bad, NULL),
           CL_INVALID_IMAGE_DESCRIPTOR);
  cl_mem buf = buffer(CL_MEM_READ_WRITE, 4096, NULL);
  bad = d3, bad.mem_object = buf; /* a 3D image takes no buffer */
  CHECK_EQ(create(env.context, 0, &rgba8, &bad, NULL),
           CL_INVALID_IMAGE_DESCRIPTOR);
  cl_image_desc d1b = {CL_MEM_OBJECT_IMAGE1D_BUFFER, 16, 0, 0, 0, 0, 0, 0, 0,
                       {NULL}};
  CHECK_EQ(create(env.context, 0, &rgba8, &d1b, NULL), /* needs a buffer */
           CL_INVALID_IMAGE_DESCRIPTOR);
  cl_mem img3 = NULL;
  {
    cl_int e;
    img3 = clCreateImage(env.context, 0, &rgba8, &d3, NULL, &e);
    REQUIRE_OK(e);
  }
  bad = d, bad.mem_object = img3; /* a 2D view of a 3D image */
  CHECK_EQ(create(env.context, 0, &rgba8, &bad, NULL),
           CL_INVALID_IMAGE_DESCRIPTOR);
  d1b.mem_object = img3; /* a 1D image buffer of an image */
  CHECK_EQ(create(env.context, 0, &rgba8, &d1b, NULL),
           CL_INVALID_IMAGE_DESCRIPTOR);
  d1b.mem_object = (cl_mem)env.queue; /* not a memory object */
  CHECK_EQ(create(env.context, 0, &rgba8, &d1b, NULL),
           CL_INVALID_IMAGE_DESCRIPTOR);
  bad = d, bad.image_row_pitch = 64; /* pitch without host_ptr */
  CHECK_EQ(create(env.context, 0, &rgba8, &bad, NULL),
           CL_INVALID_IMAGE_DESCRIPTOR);
  bad = d, bad.image_row_pitch = 31; /* less than a row */
  CHECK_EQ(create(env.context, CL_MEM_COPY_HOST_PTR, &rgba8, &bad, host),
           CL_INVALID_IMAGE_DESCRIPTOR);
  bad = d, bad.image_row_pitch = 34; /* not a multiple of the pixel */
  CHECK_EQ(create(env.context, CL_MEM_USE_HOST_PTR, &rgba8, &bad, host),
           CL_INVALID_IMAGE_DESCRIPTOR);
  bad = d3, bad.image_row_pitch = 16, bad.image_slice_pitch = 48;
  CHECK_EQ(create(env.context, CL_MEM_USE_HOST_PTR, &rgba8, &bad, host),
           CL_INVALID_IMAGE_DESCRIPTOR); /* slice < row * height */
  bad = d3, bad.image_row_pitch = 32, bad.image_slice_pitch = 140;
  CHECK_EQ(create(env.context, CL_MEM_USE_HOST_PTR, &rgba8, &bad, host),
           CL_INVALID_IMAGE_DESCRIPTOR); /* not a multiple of the row */
  cl_image_desc d1a = {CL_MEM_OBJECT_IMAGE1D_ARRAY, 4, 0, 0, 3, 16, 8, 0, 0,
                       {NULL}};
  CHECK_EQ(create(env.context, CL_MEM_USE_HOST_PTR, &rgba8, &d1a, host),
           CL_INVALID_IMAGE_DESCRIPTOR); /* layer pitch < row pitch */
  /* CL_INVALID_IMAGE_SIZE */
  size_t max2d = 0, max3d = 0, maxarr = 0, maxbuf = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE2D_MAX_WIDTH,
                             sizeof max2d, &max2d, NULL));
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE3D_MAX_DEPTH,
                             sizeof max3d, &max3d, NULL));
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE,
                             sizeof maxarr, &maxarr, NULL));
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE,
                             sizeof maxbuf, &maxbuf, NULL));
  cl_image_desc sizes[] = {
      desc2d(0, 8), desc2d(8, 0), desc2d(max2d + 1, 1), desc2d(1, max2d + 1),
      {CL_MEM_OBJECT_IMAGE3D, 4, 4, 0, 0, 0, 0, 0, 0, {NULL}},
      {CL_MEM_OBJECT_IMAGE3D, 4, 4, max3d + 1, 0, 0, 0, 0, 0, {NULL}},
      {CL_MEM_OBJECT_IMAGE1D_ARRAY, 4, 0, 0, 0, 0, 0, 0, 0, {NULL}},
      {CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 0, maxarr + 1, 0, 0, 0, 0, {NULL}},
      {CL_MEM_OBJECT_IMAGE1D, max2d + 1, 0, 0, 0, 0, 0, 0, 0, {NULL}},
      /* Within every limit, but more bytes than one allocation may have. */
      {CL_MEM_OBJECT_IMAGE3D, max3d, max3d, max3d, 0, 0, 0, 0, 0, {NULL}},
  };
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    cl_int e = create(env.context, 0, &rgba8, &sizes[i], NULL);
    if (e != CL_INVALID_IMAGE_SIZE)
      fprintf(stderr, "size case %zu: %d\n", i, e);
    CHECK_EQ(e, CL_INVALID_IMAGE_SIZE);
  }
  d1b.mem_object = buf;
  d1b.image_width = maxbuf + 1;
  CHECK_EQ(create(env.context, 0, &rgba8, &d1b, NULL), CL_INVALID_IMAGE_SIZE);
  d1b.image_width = 4096 / 4 + 1; /* more pixels than the buffer has */
  CHECK_EQ(create(env.context, 0, &rgba8, &d1b, NULL), CL_INVALID_IMAGE_SIZE);
  d1b.image_width = 4096 / 4;
  CHECK_EQ(create(env.context, 0, &rgba8, &d1b, NULL), CL_SUCCESS);
  /* clCreateImage2D/3D: pitch errors are CL_INVALID_IMAGE_SIZE, and a 3D
   * image needs a depth above 1. */
  err = 1;
  CHECK(clCreateImage2D(env.context, CL_MEM_USE_HOST_PTR, &rgba8, 8, 8, 31,
                        host, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_IMAGE_SIZE);
  CHECK(clCreateImage2D(env.context, 0, &rgba8, 0, 8, 0, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_IMAGE_SIZE);
  CHECK(clCreateImage3D(env.context, 0, &rgba8, 8, 8, 1, 0, 0, NULL, &err) ==
        NULL);
  CHECK_EQ(err, CL_INVALID_IMAGE_SIZE);
  CHECK(clCreateImage2D(env.context, 0, NULL, 8, 8, 0, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  /* CL_INVALID_HOST_PTR */
  CHECK_EQ(create(env.context, CL_MEM_USE_HOST_PTR, &rgba8, &d, NULL),
           CL_INVALID_HOST_PTR);
  CHECK_EQ(create(env.context, CL_MEM_COPY_HOST_PTR, &rgba8, &d, NULL),
           CL_INVALID_HOST_PTR);
  CHECK_EQ(create(env.context, 0, &rgba8, &d, host), CL_INVALID_HOST_PTR);
  /* Images from memory objects: flags (CL_INVALID_VALUE). */
  d1b.image_width = 16;
  CHECK_EQ(create(env.context, CL_MEM_USE_HOST_PTR, &rgba8, &d1b, host),
           CL_INVALID_VALUE);
  CHECK_EQ(create(env.context, CL_MEM_ALLOC_HOST_PTR, &rgba8, &d1b, NULL),
           CL_INVALID_VALUE);
  cl_mem wo = buffer(CL_MEM_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS, 4096, NULL);
  d1b.mem_object = wo;
  CHECK_EQ(create(env.context, CL_MEM_READ_ONLY, &rgba8, &d1b, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(create(env.context, CL_MEM_READ_WRITE, &rgba8, &d1b, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(create(env.context, CL_MEM_HOST_READ_ONLY, &rgba8, &d1b, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(create(env.context, CL_MEM_WRITE_ONLY, &rgba8, &d1b, NULL),
           CL_SUCCESS);
  cl_mem hro = buffer(CL_MEM_HOST_READ_ONLY, 4096, NULL);
  d1b.mem_object = hro;
  CHECK_EQ(create(env.context, CL_MEM_HOST_WRITE_ONLY, &rgba8, &d1b, NULL),
           CL_INVALID_VALUE);
  /* 2D images from buffers: a too small buffer, a misaligned USE_HOST_PTR
   * buffer (CL_INVALID_IMAGE_FORMAT_DESCRIPTOR), a bad pitch. */
  cl_image_desc d2b = desc2d(16, 64);
  d2b.mem_object = buf; /* 16 * 4 * 64 = 4096: fits exactly */
  CHECK_EQ(create(env.context, 0, &rgba8, &d2b, NULL), CL_SUCCESS);
  d2b.image_height = 65;
  CHECK_EQ(create(env.context, 0, &rgba8, &d2b, NULL), CL_INVALID_IMAGE_SIZE);
  d2b.image_height = 8, d2b.image_row_pitch = 66;
  CHECK_EQ(create(env.context, 0, &rgba8, &d2b, NULL),
           CL_INVALID_IMAGE_DESCRIPTOR);
  d2b.image_row_pitch = 0, d2b.image_slice_pitch = 64;
  CHECK_EQ(create(env.context, 0, &rgba8, &d2b, NULL),
           CL_INVALID_IMAGE_DESCRIPTOR);
  static _Alignas(64) unsigned char aligned[4096 + 64];
  cl_mem odd = buffer(CL_MEM_USE_HOST_PTR, 4096, aligned + 1);
  d2b.mem_object = odd, d2b.image_slice_pitch = 0;
  CHECK_EQ(create(env.context, 0, &rgba8, &d2b, NULL),
           CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  /* 2D images from 2D images: the rules or
   * CL_INVALID_IMAGE_FORMAT_DESCRIPTOR. */
  cl_mem base = image2d(0, 8, 8);
  cl_image_desc dv = desc2d(8, 8);
  dv.mem_object = base;
  const cl_image_format rg8 = {CL_RG, CL_UNORM_INT8},
                        rgba16 = {CL_RGBA, CL_UNORM_INT16},
                        srgba = {CL_sRGBA, CL_UNORM_INT8};
  CHECK_EQ(create(env.context, 0, &rg8, &dv, NULL),
           CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  CHECK_EQ(create(env.context, 0, &rgba16, &dv, NULL),
           CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  dv.image_width = 7;
  CHECK_EQ(create(env.context, 0, &srgba, &dv, NULL),
           CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  dv.image_width = 8;
  CHECK_EQ(create(env.context, 0, &srgba, &dv, NULL), CL_SUCCESS);
  REQUIRE_OK(clReleaseMemObject(base));
  REQUIRE_OK(clReleaseMemObject(odd));
  REQUIRE_OK(clReleaseMemObject(hro));
  REQUIRE_OK(clReleaseMemObject(wo));
  REQUIRE_OK(clReleaseMemObject(img3));
  REQUIRE_OK(clReleaseMemObject(buf));
}

static void query_errors(void) {
  cl_mem img = image2d(0, 4, 4), buf = buffer(0, 64, NULL);
  size_t v;
  /* clGetImageInfo */
  CHECK_EQ(clGetImageInfo(buf, CL_IMAGE_WIDTH, sizeof v, &v, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clGetImageInfo(NULL, CL_IMAGE_WIDTH, sizeof v, &v, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clGetImageInfo(img, 0x7777, sizeof v, &v, NULL), CL_INVALID_VALUE);
  CHECK_EQ(clGetImageInfo(img, CL_IMAGE_WIDTH, 1, &v, NULL), CL_INVALID_VALUE);
  /* clGetSupportedImageFormats */
  cl_uint n;
  cl_image_format f[2];
  CHECK_EQ(clGetSupportedImageFormats(NULL, 0, CL_MEM_OBJECT_IMAGE2D, 0, NULL,
                                      &n),
           CL_INVALID_CONTEXT);
  CHECK_EQ(clGetSupportedImageFormats(env.context, CL_MEM_READ_ONLY |
                                                       CL_MEM_WRITE_ONLY,
                                      CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetSupportedImageFormats(env.context, 0, CL_MEM_OBJECT_BUFFER, 0,
                                      NULL, &n),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetSupportedImageFormats(env.context, 0, CL_MEM_OBJECT_IMAGE2D,
                                      0, f, &n),
           CL_INVALID_VALUE);
  /* An image where a buffer is expected. */
  unsigned char host[64];
  cl_int err = 1;
  CHECK_EQ(clEnqueueReadBuffer(env.queue, img, CL_TRUE, 0, 4, host, 0, NULL,
                               NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueWriteBuffer(env.queue, img, CL_TRUE, 0, 4, host, 0, NULL,
                                NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueCopyBuffer(env.queue, buf, img, 0, 0, 4, 0, NULL, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueFillBuffer(env.queue, img, host, 4, 0, 4, 0, NULL, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK(clEnqueueMapBuffer(env.queue, img, CL_TRUE, CL_MAP_READ, 0, 4, 0,
                           NULL, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_MEM_OBJECT);
  cl_buffer_region region = {0, 4};
  CHECK(clCreateSubBuffer(img, 0, CL_BUFFER_CREATE_TYPE_REGION, &region,
                          &err) == NULL);
  CHECK_EQ(err, CL_INVALID_MEM_OBJECT);
  /* ... and as a kernel's buffer argument. */
  cl_program p = test_build(&env, "kernel void k(global int *p) {}", "");
  cl_kernel k = clCreateKernel(p, "k", &err);
  REQUIRE_OK(err);
  CHECK_EQ(clSetKernelArg(k, 0, sizeof img, &img), CL_INVALID_MEM_OBJECT);
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseProgram(p));
  REQUIRE_OK(clReleaseMemObject(img));
  REQUIRE_OK(clReleaseMemObject(buf));
}

/* clEnqueueMapImage's error code; a failed map must return NULL. */
static cl_int map_err(cl_mem m, cl_map_flags flags, const size_t *o,
                      const size_t *r, size_t *row, size_t *slice) {
  cl_int err = 1;
  void *p = clEnqueueMapImage(env.queue, m, CL_TRUE, flags, o, r, row, slice,
                              0, NULL, NULL, &err);
  CHECK(p == NULL);
  return err;
}

static void command_errors(void) {
  cl_mem img = image2d(0, 8, 8), buf = buffer(0, 1024, NULL);
  cl_image_desc d3 = {CL_MEM_OBJECT_IMAGE3D, 4, 4, 4, 0, 0, 0, 0, 0, {NULL}};
  cl_image_desc d1 = {CL_MEM_OBJECT_IMAGE1D, 8, 0, 0, 0, 0, 0, 0, 0, {NULL}};
  cl_image_desc d1a = {CL_MEM_OBJECT_IMAGE1D_ARRAY, 8, 0, 0, 4, 0, 0, 0, 0,
                       {NULL}};
  cl_int err;
  cl_mem img3 = clCreateImage(env.context, 0, &rgba8, &d3, NULL, &err);
  REQUIRE_OK(err);
  cl_mem img1 = clCreateImage(env.context, 0, &rgba8, &d1, NULL, &err);
  REQUIRE_OK(err);
  cl_mem img1a = clCreateImage(env.context, 0, &rgba8, &d1a, NULL, &err);
  REQUIRE_OK(err);
  cl_mem hwo = image2d(CL_MEM_HOST_WRITE_ONLY, 8, 8);
  cl_mem hro = image2d(CL_MEM_HOST_READ_ONLY, 8, 8);
  cl_mem hna = image2d(CL_MEM_HOST_NO_ACCESS, 8, 8);
  cl_image_desc df = desc2d(8, 8);
  const cl_image_format rf = {CL_R, CL_FLOAT};
  cl_mem imgf = clCreateImage(env.context, 0, &rf, &df, NULL, &err);
  REQUIRE_OK(err);
  unsigned char host[4096];
  const size_t o0[3] = {0, 0, 0}, r1[3] = {1, 1, 1}, r88[3] = {8, 8, 1};
  /* Read/write: queue, image, context. */
  CHECK_EQ(clEnqueueReadImage(NULL, img, CL_TRUE, o0, r1, 0, 0, host, 0, NULL,
                              NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clEnqueueReadImage(env.queue, buf, CL_TRUE, o0, r1, 0, 0, host, 0,
                              NULL, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueReadImage(other_queue, img, CL_TRUE, o0, r1, 0, 0, host,
                              0, NULL, NULL),
           CL_INVALID_CONTEXT);
  /* Origins, regions, pitches, ptr: CL_INVALID_VALUE. */
  struct {
    cl_mem m;
    size_t o[3], r[3], row, slice;
  } bad_io[] = {
      {img, {0, 0, 0}, {0, 1, 1}, 0, 0},   /* region 0 */
      {img, {0, 0, 0}, {9, 1, 1}, 0, 0},   /* past the width */
      {img, {7, 0, 0}, {2, 1, 1}, 0, 0},
      {img, {0, 8, 0}, {1, 1, 1}, 0, 0},   /* past the height */
      {img, {0, 0, 1}, {1, 1, 1}, 0, 0},   /* 2D: origin[2] must be 0 */
      {img, {0, 0, 0}, {1, 1, 2}, 0, 0},   /* 2D: region[2] must be 1 */
      {img, {0, 0, 0}, {2, 1, 1}, 7, 0},   /* row pitch < a row */
      {img, {0, 0, 0}, {1, 1, 1}, 0, 64},  /* 2D: slice pitch must be 0 */
      {img1, {0, 1, 0}, {1, 1, 1}, 0, 0},  /* 1D: origin[1] must be 0 */
      {img1, {0, 0, 0}, {1, 2, 1}, 0, 0},  /* 1D: region[1] must be 1 */
      {img1, {0, 0, 0}, {1, 1, 1}, 0, 4},  /* 1D: slice pitch must be 0 */
      {img1a, {0, 4, 0}, {1, 1, 1}, 0, 0}, /* 1D array: past the layers */
      {img1a, {0, 0, 1}, {1, 1, 1}, 0, 0}, /* 1D array: origin[2] */
      {img1a, {0, 0, 0}, {2, 2, 1}, 0, 4}, /* 1D array: slice < row */
      {img3, {0, 0, 3}, {1, 1, 2}, 0, 0},  /* 3D: past the depth */
      {img3, {0, 0, 0}, {2, 2, 2}, 0, 15}, /* 3D: slice < row * height */
  };
  for (size_t i = 0; i < sizeof bad_io / sizeof bad_io[0]; i++) {
    cl_int e = clEnqueueReadImage(env.queue, bad_io[i].m, CL_TRUE, bad_io[i].o,
                                  bad_io[i].r, bad_io[i].row, bad_io[i].slice,
                                  host, 0, NULL, NULL);
    if (e != CL_INVALID_VALUE)
      fprintf(stderr, "read case %zu: %d\n", i, e);
    CHECK_EQ(e, CL_INVALID_VALUE);
    CHECK_EQ(clEnqueueWriteImage(env.queue, bad_io[i].m, CL_TRUE, bad_io[i].o,
                                 bad_io[i].r, bad_io[i].row, bad_io[i].slice,
                                 host, 0, NULL, NULL),
             CL_INVALID_VALUE);
  }
  CHECK_EQ(clEnqueueReadImage(env.queue, img, CL_TRUE, NULL, r1, 0, 0, host, 0,
                              NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueReadImage(env.queue, img, CL_TRUE, o0, NULL, 0, 0, host, 0,
                              NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueReadImage(env.queue, img, CL_TRUE, o0, r1, 0, 0, NULL, 0,
                              NULL, NULL),
           CL_INVALID_VALUE);
  /* Host access: CL_INVALID_OPERATION. */
  CHECK_EQ(clEnqueueReadImage(env.queue, hwo, CL_TRUE, o0, r1, 0, 0, host, 0,
                              NULL, NULL),
           CL_INVALID_OPERATION);
  CHECK_EQ(clEnqueueReadImage(env.queue, hna, CL_TRUE, o0, r1, 0, 0, host, 0,
                              NULL, NULL),
           CL_INVALID_OPERATION);
  CHECK_EQ(clEnqueueWriteImage(env.queue, hro, CL_TRUE, o0, r1, 0, 0, host, 0,
                               NULL, NULL),
           CL_INVALID_OPERATION);
  CHECK_EQ(clEnqueueWriteImage(env.queue, hna, CL_TRUE, o0, r1, 0, 0, host, 0,
                               NULL, NULL),
           CL_INVALID_OPERATION);
  REQUIRE_OK(clEnqueueWriteImage(env.queue, hwo, CL_TRUE, o0, r1, 0, 0, host,
                                 0, NULL, NULL));
  /* Wait lists. */
  CHECK_EQ(clEnqueueReadImage(env.queue, img, CL_TRUE, o0, r1, 0, 0, host, 1,
                              NULL, NULL),
           CL_INVALID_EVENT_WAIT_LIST);
  cl_event failed = clCreateUserEvent(env.context, &err);
  REQUIRE_OK(err);
  cl_event other_ev = clCreateUserEvent(other_ctx, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clEnqueueReadImage(env.queue, img, CL_TRUE, o0, r1, 0, 0, host, 1,
                              &other_ev, NULL),
           CL_INVALID_CONTEXT);
  cl_command_queue q2 = clCreateCommandQueueWithProperties(
      env.context, env.device, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetUserEventStatus(failed, -5));
  CHECK_EQ(clEnqueueReadImage(q2, img, CL_TRUE, o0, r1, 0, 0, host, 1,
                              &failed, NULL),
           CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  REQUIRE_OK(clSetUserEventStatus(other_ev, CL_COMPLETE));
  REQUIRE_OK(clReleaseEvent(other_ev));
  REQUIRE_OK(clReleaseEvent(failed));
  REQUIRE_OK(clReleaseCommandQueue(q2));

  /* Copy. */
  CHECK_EQ(clEnqueueCopyImage(env.queue, img, buf, o0, o0, r1, 0, NULL, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueCopyImage(env.queue, buf, img, o0, o0, r1, 0, NULL, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueCopyImage(env.queue, img, imgf, o0, o0, r1, 0, NULL, NULL),
           CL_IMAGE_FORMAT_MISMATCH);
  CHECK_EQ(clEnqueueCopyImage(env.queue, img, img3, o0, o0, r88, 0, NULL,
                              NULL),
           CL_INVALID_VALUE); /* the 3D image is 4 wide */
  CHECK_EQ(clEnqueueCopyImage(env.queue, img, img, o0, o0, NULL, 0, NULL,
                              NULL),
           CL_INVALID_VALUE);
  const size_t o11[3] = {1, 1, 0}, r22[3] = {2, 2, 1}, o33[3] = {3, 3, 0};
  CHECK_EQ(clEnqueueCopyImage(env.queue, img, img, o0, o11, r22, 0, NULL,
                              NULL),
           CL_MEM_COPY_OVERLAP);
  REQUIRE_OK(clEnqueueCopyImage(env.queue, img, img, o11, o33, r22, 0, NULL,
                                NULL));
  /* Image <-> buffer. */
  CHECK_EQ(clEnqueueCopyImageToBuffer(env.queue, buf, buf, o0, r1, 0, 0, NULL,
                                      NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueCopyImageToBuffer(env.queue, img, img3, o0, r1, 0, 0,
                                      NULL, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueCopyBufferToImage(env.queue, img, img3, 0, o0, r1, 0,
                                      NULL, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueCopyBufferToImage(env.queue, buf, buf, 0, o0, r1, 0, NULL,
                                      NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueCopyImageToBuffer(env.queue, img, buf, o0, r88, 1024 - 255,
                                      0, NULL, NULL),
           CL_INVALID_VALUE); /* 256 bytes from 769 pass the end */
  REQUIRE_OK(clEnqueueCopyImageToBuffer(env.queue, img, buf, o0, r88,
                                        1024 - 256, 0, NULL, NULL));
  CHECK_EQ(clEnqueueCopyBufferToImage(env.queue, buf, img, 1024 - 255, o0,
                                      r88, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueCopyBufferToImage(env.queue, buf, img, 0, o11, r88, 0,
                                      NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueCopyImageToBuffer(other_queue, img, buf, o0, r1, 0, 0,
                                      NULL, NULL),
           CL_INVALID_CONTEXT);
  /* A 1D image buffer and the buffer it was made from. */
  cl_image_desc d1b = {CL_MEM_OBJECT_IMAGE1D_BUFFER, 16, 0, 0, 0, 0, 0, 0, 0,
                       {buf}};
  cl_mem img1b = clCreateImage(env.context, 0, &rgba8, &d1b, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clEnqueueCopyImageToBuffer(env.queue, img1b, buf, o0, r1, 512, 0,
                                      NULL, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueCopyBufferToImage(env.queue, buf, img1b, 512, o0, r1, 0,
                                      NULL, NULL),
           CL_INVALID_MEM_OBJECT);
  REQUIRE_OK(clReleaseMemObject(img1b));
  /* Fill. */
  const float color[4] = {0, 0, 0, 0};
  CHECK_EQ(clEnqueueFillImage(env.queue, img, NULL, o0, r1, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueFillImage(env.queue, img, color, o0, NULL, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueFillImage(env.queue, img, color, o11, r88, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueFillImage(env.queue, buf, color, o0, r1, 0, NULL, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueFillImage(other_queue, img, color, o0, r1, 0, NULL, NULL),
           CL_INVALID_CONTEXT);
  /* Host access flags do not apply to fills. */
  REQUIRE_OK(clEnqueueFillImage(env.queue, hna, color, o0, r1, 0, NULL,
                                NULL));
  /* Map. */
  size_t row, slice;
  void *p;
  CHECK_EQ(map_err(img, CL_MAP_READ, o0, r1, NULL, NULL), CL_INVALID_VALUE);
  CHECK_EQ(map_err(img3, CL_MAP_READ, o0, r1, &row, NULL), CL_INVALID_VALUE);
  CHECK_EQ(map_err(img1a, CL_MAP_READ, o0, r1, &row, NULL), CL_INVALID_VALUE);
  CHECK_EQ(map_err(img, 0x80, o0, r1, &row, NULL), CL_INVALID_VALUE);
  CHECK_EQ(map_err(img, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, o0, r1, &row,
               NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(map_err(img, CL_MAP_READ, o11, r88, &row, NULL), CL_INVALID_VALUE);
  CHECK_EQ(map_err(img, CL_MAP_READ, NULL, r1, &row, NULL), CL_INVALID_VALUE);
  CHECK_EQ(map_err(buf, CL_MAP_READ, o0, r1, &row, NULL), CL_INVALID_MEM_OBJECT);
  CHECK_EQ(map_err(hwo, CL_MAP_READ, o0, r1, &row, NULL), CL_INVALID_OPERATION);
  CHECK_EQ(map_err(hro, CL_MAP_WRITE, o0, r1, &row, NULL), CL_INVALID_OPERATION);
  CHECK_EQ(map_err(hro, CL_MAP_WRITE_INVALIDATE_REGION, o0, r1, &row, NULL),
           CL_INVALID_OPERATION);
  CHECK_EQ(map_err(hna, CL_MAP_READ, o0, r1, &row, NULL), CL_INVALID_OPERATION);
  /* A 2D map may pass no slice pitch; a mapping is unmapped once. */
  p = clEnqueueMapImage(env.queue, img, CL_TRUE, CL_MAP_READ, o11, r1, &row,
                        NULL, 0, NULL, NULL, &err);
  REQUIRE_OK(err);
  slice = 99;
  void *p1 = clEnqueueMapImage(env.queue, img1, CL_TRUE, CL_MAP_WRITE, o0, r1,
                               &row, &slice, 0, NULL, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(slice, 0);
  CHECK_EQ(clEnqueueUnmapMemObject(env.queue, img1, p, 0, NULL, NULL),
           CL_INVALID_VALUE);
  REQUIRE_OK(clEnqueueUnmapMemObject(env.queue, img1, p1, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueUnmapMemObject(env.queue, img, p, 0, NULL, NULL));
  CHECK_EQ(clEnqueueUnmapMemObject(env.queue, img, p, 0, NULL, NULL),
           CL_INVALID_VALUE);
  /* CL_INVALID_OPERATION if mapping would lead to overlapping regions
   * being mapped for writing; reads may overlap anything. */
  const size_t o22[3] = {2, 2, 0}, o44[3] = {4, 4, 0};
  void *w1 = clEnqueueMapImage(env.queue, img, CL_TRUE, CL_MAP_WRITE, o11,
                               r22, &row, NULL, 0, NULL, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(map_err(img, CL_MAP_WRITE, o22, r22, &row, NULL),
           CL_INVALID_OPERATION);
  CHECK_EQ(map_err(img, CL_MAP_WRITE_INVALIDATE_REGION, o0, r88, &row, NULL),
           CL_INVALID_OPERATION);
  void *w2 = clEnqueueMapImage(env.queue, img, CL_TRUE, CL_MAP_WRITE, o33,
                               r22, &row, NULL, 0, NULL, NULL, &err);
  REQUIRE_OK(err); /* (3,3)-(4,4) misses (1,1)-(2,2) */
  void *r2 = clEnqueueMapImage(env.queue, img, CL_TRUE, CL_MAP_READ, o22,
                               r22, &row, NULL, 0, NULL, NULL, &err);
  REQUIRE_OK(err);
  cl_uint count = 0;
  REQUIRE_OK(clGetMemObjectInfo(img, CL_MEM_MAP_COUNT, sizeof count, &count,
                                NULL));
  CHECK_EQ(count, 3);
  REQUIRE_OK(clEnqueueUnmapMemObject(env.queue, img, w1, 0, NULL, NULL));
  void *w3 = clEnqueueMapImage(env.queue, img, CL_TRUE, CL_MAP_WRITE, o22,
                               r1, &row, NULL, 0, NULL, NULL, &err);
  REQUIRE_OK(err); /* (2,2) is free for writing again */
  CHECK_EQ(map_err(img, CL_MAP_WRITE, o44, r1, &row, NULL),
           CL_INVALID_OPERATION);
  REQUIRE_OK(clEnqueueUnmapMemObject(env.queue, img, w2, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueUnmapMemObject(env.queue, img, w3, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueUnmapMemObject(env.queue, img, r2, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  REQUIRE_OK(clGetMemObjectInfo(img, CL_MEM_MAP_COUNT, sizeof count, &count,
                                NULL));
  CHECK_EQ(count, 0);
  cl_mem all[] = {img, buf, img3, img1, img1a, hwo, hro, hna, imgf};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    REQUIRE_OK(clReleaseMemObject(all[i]));
}

/* Every image type against every command that takes an origin and a
 * region: a table of origins and regions, each either inside the image
 * (CL_SUCCESS, so that the table can fail both ways) or not
 * (CL_INVALID_VALUE: past an edge in x, y or z, a region of 0, an origin
 * or region in a dimension the type lacks). Each command takes the image
 * on the side under test and a twin (or a buffer) on the other. */
typedef struct region_case {
  size_t o[3], r[3];
  int ok;
} region_case;

static void region_errors(void) {
  static const struct {
    cl_image_desc d;
    size_t lim[3]; /* the API region of the whole image */
  } types[] = {
      {{CL_MEM_OBJECT_IMAGE1D, 8, 0, 0, 0, 0, 0, 0, 0, {NULL}}, {8, 1, 1}},
      {{CL_MEM_OBJECT_IMAGE1D_BUFFER, 8, 0, 0, 0, 0, 0, 0, 0, {NULL}},
       {8, 1, 1}},
      {{CL_MEM_OBJECT_IMAGE1D_ARRAY, 8, 0, 0, 3, 0, 0, 0, 0, {NULL}},
       {8, 3, 1}},
      {{CL_MEM_OBJECT_IMAGE2D, 8, 5, 0, 0, 0, 0, 0, 0, {NULL}}, {8, 5, 1}},
      {{CL_MEM_OBJECT_IMAGE2D_ARRAY, 8, 5, 0, 3, 0, 0, 0, 0, {NULL}},
       {8, 5, 3}},
      {{CL_MEM_OBJECT_IMAGE3D, 8, 5, 4, 0, 0, 0, 0, 0, {NULL}}, {8, 5, 4}},
  };
  cl_int err;
  cl_mem big = buffer(0, 8 * 5 * 4 * 4, NULL);
  unsigned char host[8 * 5 * 4 * 4];
  const float colour[4] = {0.25f, 0.5f, 0.75f, 1.0f};
  const size_t zero[3] = {0, 0, 0};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    const size_t *lim = types[t].lim;
    cl_image_desc d = types[t].d;
    cl_mem backing[2] = {NULL, NULL}, img[2];
    for (int i = 0; i < 2; i++) {
      if (d.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
        backing[i] = buffer(0, 8 * 4, NULL);
        d.buffer = backing[i];
      }
      img[i] = clCreateImage(env.context, 0, &rgba8, &d, NULL, &err);
      REQUIRE_OK(err);
    }
    region_case cases[32];
    size_t n = 0;
    cases[n++] = (region_case){{0, 0, 0}, {lim[0], lim[1], lim[2]}, 1};
    cases[n++] = (region_case){{lim[0] - 1, lim[1] - 1, lim[2] - 1},
                               {1, 1, 1}, 1};
    for (int k = 0; k < 3; k++) {
      region_case c = {{0, 0, 0}, {1, 1, 1}, 0};
      c.o[k] = lim[k]; /* origin past the edge (or a missing dimension) */
      cases[n++] = c;
      c.o[k] = 0, c.r[k] = lim[k] + 1; /* region past the edge */
      cases[n++] = c;
      c.r[k] = 0; /* a region of 0 */
      cases[n++] = c;
      c.o[k] = 1, c.r[k] = lim[k]; /* a whole extent from 1 */
      cases[n++] = c;
      c.o[k] = (size_t)-1, c.r[k] = 2; /* origin + region wraps around */
      cases[n++] = c;
    }
    for (size_t i = 0; i < n; i++) {
      const region_case *c = &cases[i];
      cl_int want = c->ok ? CL_SUCCESS : CL_INVALID_VALUE;
      cl_int got[7];
      got[0] = clEnqueueReadImage(env.queue, img[0], CL_TRUE, c->o, c->r, 0, 0,
                                  host, 0, NULL, NULL);
      got[1] = clEnqueueWriteImage(env.queue, img[0], CL_TRUE, c->o, c->r, 0,
                                   0, host, 0, NULL, NULL);
      got[2] = clEnqueueFillImage(env.queue, img[0], colour, c->o, c->r, 0,
                                  NULL, NULL);
      got[3] = clEnqueueCopyImage(env.queue, img[0], img[1], c->o, zero, c->r,
                                  0, NULL, NULL);
      got[4] = clEnqueueCopyImage(env.queue, img[1], img[0], zero, c->o, c->r,
                                  0, NULL, NULL);
      got[5] = clEnqueueCopyImageToBuffer(env.queue, img[0], big, c->o, c->r,
                                          0, 0, NULL, NULL);
      got[6] = clEnqueueCopyBufferToImage(env.queue, big, img[0], 0, c->o,
                                          c->r, 0, NULL, NULL);
      /* A copy whose region fits the image under test but starts at the
       * other's origin 0 fits the twin too (the same size). */
      for (int j = 0; j < 7; j++)
        if (got[j] != want) {
          fprintf(stderr,
                  "type %#x command %d origin (%zu %zu %zu) region (%zu %zu "
                  "%zu): %d, want %d\n",
                  (unsigned)d.image_type, j, c->o[0], c->o[1], c->o[2],
                  c->r[0], c->r[1], c->r[2], got[j], want);
          test_failures++;
        }
      size_t row, slice;
      void *p = clEnqueueMapImage(env.queue, img[0], CL_TRUE, CL_MAP_READ,
                                  c->o, c->r, &row, &slice, 0, NULL, NULL,
                                  &err);
      CHECK_EQ(err, want);
      CHECK((p != NULL) == (want == CL_SUCCESS));
      if (p)
        REQUIRE_OK(clEnqueueUnmapMemObject(env.queue, img[0], p, 0, NULL,
                                           NULL));
    }
    REQUIRE_OK(clFinish(env.queue));
    for (int i = 0; i < 2; i++) {
      REQUIRE_OK(clReleaseMemObject(img[i]));
      if (backing[i])
        REQUIRE_OK(clReleaseMemObject(backing[i]));
    }
  }
  /* Copies between types: the region must fit both images (a 2D image
   * into a 3D one takes region[2] = 1; a 3D region of depth 2 does not
   * fit a 2D image). */
  cl_mem i2 = clCreateImage(env.context, 0, &rgba8, &types[3].d, NULL, &err);
  REQUIRE_OK(err);
  cl_mem i3 = clCreateImage(env.context, 0, &rgba8, &types[5].d, NULL, &err);
  REQUIRE_OK(err);
  const size_t r2[3] = {8, 5, 1}, r3[3] = {8, 5, 2}, o1[3] = {0, 0, 3};
  CHECK_EQ(clEnqueueCopyImage(env.queue, i2, i3, zero, o1, r2, 0, NULL, NULL),
           CL_SUCCESS);
  CHECK_EQ(clEnqueueCopyImage(env.queue, i3, i2, o1, zero, r2, 0, NULL, NULL),
           CL_SUCCESS);
  CHECK_EQ(clEnqueueCopyImage(env.queue, i3, i2, zero, zero, r3, 0, NULL,
                              NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueCopyImage(env.queue, i2, i3, zero, o1, r3, 0, NULL, NULL),
           CL_INVALID_VALUE);
  /* The buffer side of image <-> buffer copies: the region's bytes from
   * the offset must lie inside the buffer. */
  size_t bytes = 8 * 5 * 2 * 4;
  CHECK_EQ(clEnqueueCopyImageToBuffer(env.queue, i3, big, zero, r3,
                                      8 * 5 * 4 * 4 - bytes, 0, NULL, NULL),
           CL_SUCCESS);
  CHECK_EQ(clEnqueueCopyImageToBuffer(env.queue, i3, big, zero, r3,
                                      8 * 5 * 4 * 4 - bytes + 1, 0, NULL,
                                      NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueCopyBufferToImage(env.queue, big, i3,
                                      8 * 5 * 4 * 4 - bytes + 4, zero, r3, 0,
                                      NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueCopyBufferToImage(env.queue, big, i3, (size_t)-4, zero,
                                      r2, 0, NULL, NULL),
           CL_INVALID_VALUE);
  REQUIRE_OK(clFinish(env.queue));
  REQUIRE_OK(clReleaseMemObject(i2));
  REQUIRE_OK(clReleaseMemObject(i3));
  REQUIRE_OK(clReleaseMemObject(big));
}

static void sampler_errors(void) {
  cl_int err = 1;
  CHECK(clCreateSampler(NULL, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST,
                        &err) == NULL);
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  CHECK(clCreateSampler(env.context, CL_TRUE, 0x1234, CL_FILTER_NEAREST,
                        &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateSampler(env.context, CL_TRUE, CL_ADDRESS_CLAMP, 0x1234,
                        &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateSampler(env.context, 2, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST,
                        &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  const cl_sampler_properties unknown[] = {0x9999, 1, 0};
  const cl_sampler_properties twice[] = {CL_SAMPLER_FILTER_MODE,
                                         CL_FILTER_LINEAR,
                                         CL_SAMPLER_FILTER_MODE,
                                         CL_FILTER_LINEAR, 0};
  const cl_sampler_properties bad_value[] = {CL_SAMPLER_ADDRESSING_MODE, 77,
                                             0};
  const cl_sampler_properties bad_bool[] = {CL_SAMPLER_NORMALIZED_COORDS,
                                            ((cl_ulong)1 << 33) | 1, 0};
  /* The mipmap properties (cl_khr_mipmap_image, not supported). */
  const cl_sampler_properties mip[] = {0x1155 /* MIP_FILTER_MODE_KHR */,
                                       CL_FILTER_NEAREST, 0};
  const cl_sampler_properties lod[] = {0x1156 /* LOD_MIN_KHR */, 0, 0};
  const cl_sampler_properties bad_filter[] = {CL_SAMPLER_FILTER_MODE,
                                              0x1234, 0};
  const cl_sampler_properties two[] = {CL_SAMPLER_NORMALIZED_COORDS, 2, 0};
  const cl_sampler_properties twice_late[] = {
      CL_SAMPLER_NORMALIZED_COORDS, CL_TRUE, CL_SAMPLER_ADDRESSING_MODE,
      CL_ADDRESS_REPEAT, CL_SAMPLER_NORMALIZED_COORDS, CL_TRUE, 0};
  const cl_sampler_properties *bad[] = {unknown, twice,      bad_value,
                                        bad_bool, mip,       lod,
                                        bad_filter, two,     twice_late};
  for (int i = 0; i < 9; i++) {
    err = 1;
    CHECK(clCreateSamplerWithProperties(env.context, bad[i], &err) == NULL);
    CHECK_EQ(err, CL_INVALID_VALUE);
  }
  /* Every property once, in any order, is fine. */
  const cl_sampler_properties all[] = {
      CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, CL_SAMPLER_ADDRESSING_MODE,
      CL_ADDRESS_MIRRORED_REPEAT, CL_SAMPLER_NORMALIZED_COORDS, CL_TRUE, 0};
  cl_sampler good = clCreateSamplerWithProperties(env.context, all, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clReleaseSampler(good));
  CHECK(clCreateSamplerWithProperties(NULL, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  cl_sampler not_one = (cl_sampler)env.context;
  CHECK_EQ(clRetainSampler(not_one), CL_INVALID_SAMPLER);
  CHECK_EQ(clReleaseSampler(not_one), CL_INVALID_SAMPLER);
  CHECK_EQ(clRetainSampler(NULL), CL_INVALID_SAMPLER);
  cl_uint refs;
  CHECK_EQ(clGetSamplerInfo(not_one, CL_SAMPLER_REFERENCE_COUNT, sizeof refs,
                            &refs, NULL),
           CL_INVALID_SAMPLER);
  cl_sampler s = clCreateSampler(env.context, CL_FALSE, CL_ADDRESS_NONE,
                                 CL_FILTER_NEAREST, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clGetSamplerInfo(s, 0x7777, sizeof refs, &refs, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, 1, &refs, NULL),
           CL_INVALID_VALUE);
  /* A sampler is no memory object, and a kernel's sampler argument takes
   * no image. */
  CHECK_EQ(clRetainMemObject((cl_mem)s), CL_INVALID_MEM_OBJECT);
  REQUIRE_OK(clReleaseSampler(s));
}

int main(void) {
  unsetenv("SKEIN_IMAGES"); /* images are on by default */
  test_setup(&env);
  cl_int err;
  other_ctx = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
  REQUIRE_OK(err);
  other_queue =
      clCreateCommandQueueWithProperties(other_ctx, env.device, NULL, &err);
  REQUIRE_OK(err);
  create_errors();
  query_errors();
  command_errors();
  region_errors();
  sampler_errors();
  REQUIRE_OK(clReleaseCommandQueue(other_queue));
  REQUIRE_OK(clReleaseContext(other_ctx));
  test_teardown(&env);
  return test_finish("images-errors");
}
