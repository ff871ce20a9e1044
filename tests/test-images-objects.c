/* Tests image and sampler objects: the device's image limits against the
 * FULL_PROFILE minimums, clGetSupportedImageFormats per type and flags
 * (the required formats present, every listed format creatable with the
 * right element size), clGetImageInfo and clGetMemObjectInfo of every
 * image type and way of creating it, images over buffers (1D image
 * buffers, 2D images with a row pitch) and over images (sRGBA over RGBA,
 * depth over R) sharing their storage, the deprecated clCreateImage2D/3D,
 * and samplers of every addressing and filter mode from both creators. */
/* The deprecated clCreateImage2D/3D are tested too. */
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#include "test_util.h"
#include <stdbool.h>
#include <stdint.h>

static test_env env;

static size_t dev_size(cl_device_info what) {
  size_t v = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, what, sizeof v, &v, NULL));
  return v;
}

static cl_uint dev_uint(cl_device_info what) {
  cl_uint v = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, what, sizeof v, &v, NULL));
  return v;
}

static void check_device(void) {
  cl_bool images = CL_FALSE;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT,
                             sizeof images, &images, NULL));
  CHECK_EQ(images, CL_TRUE);
  CHECK(dev_size(CL_DEVICE_IMAGE2D_MAX_WIDTH) >= 16384);
  CHECK(dev_size(CL_DEVICE_IMAGE2D_MAX_HEIGHT) >= 16384);
  CHECK(dev_size(CL_DEVICE_IMAGE3D_MAX_WIDTH) >= 2048);
  CHECK(dev_size(CL_DEVICE_IMAGE3D_MAX_HEIGHT) >= 2048);
  CHECK(dev_size(CL_DEVICE_IMAGE3D_MAX_DEPTH) >= 2048);
  CHECK(dev_size(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE) >= 2048);
  CHECK(dev_size(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE) >= 65536);
  CHECK(dev_uint(CL_DEVICE_MAX_READ_IMAGE_ARGS) >= 128);
  CHECK(dev_uint(CL_DEVICE_MAX_WRITE_IMAGE_ARGS) >= 64);
  CHECK(dev_uint(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS) >= 64);
  CHECK(dev_uint(CL_DEVICE_MAX_SAMPLERS) >= 16);
  cl_uint pitch = dev_uint(CL_DEVICE_IMAGE_PITCH_ALIGNMENT);
  cl_uint base = dev_uint(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT);
  CHECK(pitch && !(pitch & (pitch - 1)));
  CHECK(base && !(base & (base - 1)));
  char ext[4096];
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof ext,
                             ext, NULL));
  CHECK(strstr(ext, "cl_khr_image2d_from_buffer") != NULL);
  /* A 1D image buffer of the largest size the device claims fits the
   * largest allocation (16-byte pixels). */
  cl_ulong alloc = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                             sizeof alloc, &alloc, NULL));
  CHECK(dev_size(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE) * 16 <= alloc);
  /* ... and an int coordinate reaches its every pixel, as builtins/
   * image.c's 32-bit indices assume (the cap binds where the largest
   * allocation passes 32 GiB). */
  CHECK(dev_size(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE) <= INT32_MAX);
}

/* The element size of a format, from the API specification's tables. */
static size_t elem_size(const cl_image_format *f) {
  size_t cs = 0, n = 0;
  switch (f->image_channel_data_type) {
  case CL_UNORM_SHORT_565:
  case CL_UNORM_SHORT_555:
    return 2;
  case CL_UNORM_INT_101010:
  case CL_UNORM_INT_101010_2:
    return 4;
  case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8:
  case CL_UNSIGNED_INT8:
    cs = 1;
    break;
  case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16:
  case CL_UNSIGNED_INT16: case CL_HALF_FLOAT:
    cs = 2;
    break;
  default:
    cs = 4;
  }
  switch (f->image_channel_order) {
  case CL_RG: case CL_RA: case CL_RGx:
    n = 2;
    break;
  case CL_sRGB: /* 3 bytes, as the Khronos conformance tests lay it out */
    n = 3;
    break;
  case CL_RGBA: case CL_BGRA: case CL_ARGB: case CL_ABGR: case CL_sRGBA:
  case CL_sBGRA: case CL_sRGBx: /* r, g, b and a padding byte */
    n = 4;
    break;
  default:
    n = 1;
  }
  return cs * n;
}

static const cl_mem_object_type all_types[] = {
    CL_MEM_OBJECT_IMAGE1D,       CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D};

static bool listed(const cl_image_format *list, cl_uint n, cl_channel_order o,
                   cl_channel_type t) {
  for (cl_uint i = 0; i < n; i++)
    if (list[i].image_channel_order == o &&
        list[i].image_channel_data_type == t)
      return true;
  return false;
}

/* A small image of any type and format (a buffer behind 1D buffers). */
static cl_mem small_image(cl_mem_object_type type, const cl_image_format *f,
                          cl_mem_flags flags, cl_int *err) {
  cl_image_desc d = {type, 8, 4, 2, 3, 0, 0, 0, 0, {NULL}};
  cl_mem buf = NULL;
  if (type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
    buf = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 8 * 16, NULL, err);
    REQUIRE_OK(*err);
    d.mem_object = buf;
  }
  cl_mem m = clCreateImage(env.context, flags, f, &d, NULL, err);
  if (buf)
    REQUIRE_OK(clReleaseMemObject(buf)); /* the image keeps it */
  return m;
}

static void check_formats(void) {
  static const cl_mem_flags flag_sets[] = {
      CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_READ_WRITE,
      CL_MEM_KERNEL_READ_AND_WRITE};
  static const cl_channel_type rgba_required[] = {
      CL_UNORM_INT8,    CL_UNORM_INT16,    CL_SIGNED_INT8,
      CL_SIGNED_INT16,  CL_SIGNED_INT32,   CL_UNSIGNED_INT8,
      CL_UNSIGNED_INT16, CL_UNSIGNED_INT32, CL_HALF_FLOAT,
      CL_FLOAT};
  for (size_t ti = 0; ti < 6; ti++)
    for (size_t fi = 0; fi < 4; fi++) {
      cl_mem_object_type type = all_types[ti];
      cl_uint n = 0;
      REQUIRE_OK(clGetSupportedImageFormats(env.context, flag_sets[fi], type,
                                            0, NULL, &n));
      CHECK(n >= 11);
      cl_image_format *list = calloc(n + 1, sizeof *list);
      cl_uint n2 = 0;
      REQUIRE_OK(clGetSupportedImageFormats(env.context, flag_sets[fi], type,
                                            n + 1, list, &n2));
      CHECK_EQ(n2, n);
      /* The minimum list for reading or writing. */
      for (size_t i = 0; i < 10; i++)
        CHECK(listed(list, n, CL_RGBA, rgba_required[i]));
      CHECK(listed(list, n, CL_BGRA, CL_UNORM_INT8));
      CHECK(listed(list, n, CL_R, CL_FLOAT));
      /* sRGB for every access (cl_khr_srgb_image_writes); depth for 2D
       * images and arrays only. */
      CHECK(listed(list, n, CL_sRGBA, CL_UNORM_INT8));
      CHECK(listed(list, n, CL_sRGB, CL_UNORM_INT8));
      CHECK(listed(list, n, CL_sRGBx, CL_UNORM_INT8));
      CHECK_EQ(listed(list, n, CL_DEPTH, CL_FLOAT),
               type == CL_MEM_OBJECT_IMAGE2D ||
                   type == CL_MEM_OBJECT_IMAGE2D_ARRAY);
      /* Every listed format makes an image with the tables' pixel size. */
      for (cl_uint i = 0; i < n; i++) {
        cl_int err;
        cl_mem m = small_image(type, &list[i], flag_sets[fi], &err);
        CHECK_EQ(err, CL_SUCCESS);
        if (!m)
          continue;
        size_t es = 0;
        REQUIRE_OK(clGetImageInfo(m, CL_IMAGE_ELEMENT_SIZE, sizeof es, &es,
                                  NULL));
        CHECK_EQ(es, elem_size(&list[i]));
        REQUIRE_OK(clReleaseMemObject(m));
      }
      /* A short list gets the first entries only. */
      cl_image_format two[3];
      memset(two, 0xa5, sizeof two);
      REQUIRE_OK(clGetSupportedImageFormats(env.context, flag_sets[fi], type,
                                            2, two, NULL));
      CHECK(memcmp(two, list, 2 * sizeof *two) == 0);
      CHECK_EQ(two[2].image_channel_order, 0xa5a5a5a5u);
      free(list);
    }
}

static size_t image_size(cl_mem m, cl_image_info what) {
  size_t v = 12345;
  REQUIRE_OK(clGetImageInfo(m, what, sizeof v, &v, NULL));
  return v;
}

/* clGetImageInfo and clGetMemObjectInfo of every type, created with
 * USE_HOST_PTR and padded pitches, and with Skein's own storage. */
static void check_info(void) {
  const cl_image_format f = {CL_RGBA, CL_UNSIGNED_INT16}; /* 8 bytes */
  for (size_t ti = 0; ti < 6; ti++) {
    cl_mem_object_type type = all_types[ti];
    for (int use = 0; use < 2; use++) {
      if (type == CL_MEM_OBJECT_IMAGE1D_BUFFER && use)
        continue;
      cl_image_desc d = {type, 10, 6, 4, 3, 0, 0, 0, 0, {NULL}};
      bool is1d = type == CL_MEM_OBJECT_IMAGE1D ||
                  type == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
                  type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
      bool sliced = type == CL_MEM_OBJECT_IMAGE3D ||
                    type == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                    type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
      size_t row = use ? 10 * 8 + 24 : 10 * 8;
      size_t slice = !sliced ? 0
                     : type == CL_MEM_OBJECT_IMAGE1D_ARRAY
                         ? (use ? 2 * row : row)
                         : (use ? row * 7 : row * 6);
      size_t count = type == CL_MEM_OBJECT_IMAGE3D ? 4
                     : type == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                             type == CL_MEM_OBJECT_IMAGE1D_ARRAY
                         ? 3
                         : 1;
      size_t size = sliced ? slice * count
                           : row * (type == CL_MEM_OBJECT_IMAGE2D ? 6 : 1);
      void *host = use ? calloc(1, size) : NULL;
      cl_mem buf = NULL;
      cl_int err;
      if (type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
        buf = clCreateBuffer(env.context, CL_MEM_READ_ONLY, 200, NULL, &err);
        REQUIRE_OK(err);
        d.mem_object = buf;
      }
      if (use) {
        d.image_row_pitch = row;
        d.image_slice_pitch = slice;
      }
      cl_mem m = clCreateImage(env.context,
                               use ? CL_MEM_USE_HOST_PTR |
                                         CL_MEM_HOST_READ_ONLY
                                   : 0,
                               &f, &d, host, &err);
      REQUIRE_OK(err);
      cl_image_format got;
      REQUIRE_OK(clGetImageInfo(m, CL_IMAGE_FORMAT, sizeof got, &got, NULL));
      CHECK(got.image_channel_order == f.image_channel_order &&
            got.image_channel_data_type == f.image_channel_data_type);
      CHECK_EQ(image_size(m, CL_IMAGE_ELEMENT_SIZE), 8);
      CHECK_EQ(image_size(m, CL_IMAGE_ROW_PITCH), row);
      CHECK_EQ(image_size(m, CL_IMAGE_SLICE_PITCH), slice);
      CHECK_EQ(image_size(m, CL_IMAGE_WIDTH), 10);
      CHECK_EQ(image_size(m, CL_IMAGE_HEIGHT), is1d ? 0 : 6);
      CHECK_EQ(image_size(m, CL_IMAGE_DEPTH),
               type == CL_MEM_OBJECT_IMAGE3D ? 4 : 0);
      CHECK_EQ(image_size(m, CL_IMAGE_ARRAY_SIZE),
               type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
                       type == CL_MEM_OBJECT_IMAGE2D_ARRAY
                   ? 3
                   : 0);
      cl_mem ib = (cl_mem)1;
      REQUIRE_OK(clGetImageInfo(m, CL_IMAGE_BUFFER, sizeof ib, &ib, NULL));
      CHECK(ib == buf);
      cl_uint u = 7;
      REQUIRE_OK(clGetImageInfo(m, CL_IMAGE_NUM_MIP_LEVELS, sizeof u, &u,
                                NULL));
      CHECK_EQ(u, 0);
      REQUIRE_OK(clGetImageInfo(m, CL_IMAGE_NUM_SAMPLES, sizeof u, &u, NULL));
      CHECK_EQ(u, 0);
      size_t ret = 0;
      REQUIRE_OK(clGetImageInfo(m, CL_IMAGE_FORMAT, 0, NULL, &ret));
      CHECK_EQ(ret, sizeof(cl_image_format));
      /* clGetMemObjectInfo. */
      cl_mem_object_type mt = 0;
      REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof mt, &mt, NULL));
      CHECK_EQ(mt, type);
      cl_mem_flags mf = 0;
      REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof mf, &mf, NULL));
      if (type == CL_MEM_OBJECT_IMAGE1D_BUFFER)
        CHECK_EQ(mf, CL_MEM_READ_ONLY); /* inherited from the buffer */
      else
        CHECK_EQ(mf, use ? CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR |
                               CL_MEM_HOST_READ_ONLY
                         : CL_MEM_READ_WRITE);
      size_t msize = 0;
      REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof msize, &msize,
                                    NULL));
      CHECK(msize >= size);
      void *hp = (void *)1;
      REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof hp, &hp, NULL));
      CHECK(hp == host);
      cl_mem assoc = (cl_mem)1;
      REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT,
                                    sizeof assoc, &assoc, NULL));
      CHECK(assoc == buf);
      cl_context ctx = NULL;
      REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof ctx, &ctx,
                                    NULL));
      CHECK(ctx == env.context);
      REQUIRE_OK(clReleaseMemObject(m));
      if (buf)
        REQUIRE_OK(clReleaseMemObject(buf));
      free(host);
    }
  }
}

/* Images over buffers and images share the storage. */
static void check_views(void) {
  cl_int err;
  /* A 1D image buffer over a buffer: writes to one show in the other. */
  cl_mem buf = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 64, NULL, &err);
  REQUIRE_OK(err);
  cl_image_format f = {CL_R, CL_UNSIGNED_INT32};
  cl_image_desc d = {CL_MEM_OBJECT_IMAGE1D_BUFFER, 16, 0, 0, 0, 0, 0, 0, 0,
                     {buf}};
  cl_mem img = clCreateImage(env.context, CL_MEM_HOST_NO_ACCESS, &f, &d, NULL,
                             &err);
  REQUIRE_OK(err);
  uint32_t vals[16], got[16];
  for (int i = 0; i < 16; i++)
    vals[i] = 1000u + (uint32_t)i;
  REQUIRE_OK(clEnqueueWriteBuffer(env.queue, buf, CL_TRUE, 0, 64, vals, 0,
                                  NULL, NULL));
  cl_mem img2 = clCreateImage(env.context, 0, &f, &d, NULL, &err);
  REQUIRE_OK(err);
  size_t o[3] = {0, 0, 0}, r[3] = {16, 1, 1};
  REQUIRE_OK(clEnqueueReadImage(env.queue, img2, CL_TRUE, o, r, 0, 0, got, 0,
                                NULL, NULL));
  CHECK(memcmp(got, vals, 64) == 0);
  REQUIRE_OK(clReleaseMemObject(buf)); /* the images keep it alive */
  cl_uint fill[4] = {77, 0, 0, 0};
  REQUIRE_OK(clEnqueueFillImage(env.queue, img, fill, o, r, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadImage(env.queue, img2, CL_TRUE, o, r, 0, 0, got, 0,
                                NULL, NULL));
  CHECK_EQ(got[15], 77);
  REQUIRE_OK(clReleaseMemObject(img));
  REQUIRE_OK(clReleaseMemObject(img2));

  /* A 1D image buffer given a row pitch (as the conformance suite gives
   * one): a row of pixels or more, a multiple of the pixel size; it sees
   * the buffer's pixels from its start. */
  static const struct {
    size_t pitch;
    cl_int want;
  } pitches[] = {{64, CL_SUCCESS},
                 {72, CL_SUCCESS},
                 {60, CL_INVALID_IMAGE_DESCRIPTOR},
                 {66, CL_INVALID_IMAGE_DESCRIPTOR}};
  cl_mem buf2 = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 128, NULL,
                               &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clEnqueueWriteBuffer(env.queue, buf2, CL_TRUE, 0, 64, vals, 0,
                                  NULL, NULL));
  for (size_t i = 0; i < sizeof pitches / sizeof pitches[0]; i++) {
    cl_image_desc dp = d;
    dp.mem_object = buf2;
    dp.image_row_pitch = pitches[i].pitch;
    cl_mem ip = clCreateImage(env.context, 0, &f, &dp, NULL, &err);
    CHECK_EQ(err, pitches[i].want);
    if (!ip)
      continue;
    memset(got, 0, sizeof got);
    REQUIRE_OK(clEnqueueReadImage(env.queue, ip, CL_TRUE, o, r, 0, 0, got, 0,
                                  NULL, NULL));
    CHECK(memcmp(got, vals, 64) == 0);
    REQUIRE_OK(clReleaseMemObject(ip));
  }
  cl_image_desc dp = d;
  dp.mem_object = buf2;
  dp.image_slice_pitch = 64; /* no slice pitch for a 1D image */
  CHECK(clCreateImage(env.context, 0, &f, &dp, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_IMAGE_DESCRIPTOR);
  REQUIRE_OK(clReleaseMemObject(buf2));

  /* A 2D image over a buffer with a padded row pitch. */
  size_t w = 5, h = 3, row = 8 * 4;
  uint32_t data[3 * 8];
  for (int i = 0; i < 24; i++)
    data[i] = (uint32_t)i;
  buf = clCreateBuffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                       sizeof data, data, &err);
  REQUIRE_OK(err);
  cl_image_desc d2 = {CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0, row, 0, 0, 0, {buf}};
  img = clCreateImage(env.context, 0, &f, &d2, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(image_size(img, CL_IMAGE_ROW_PITCH), row);
  uint32_t tight[15];
  size_t r2[3] = {w, h, 1};
  REQUIRE_OK(clEnqueueReadImage(env.queue, img, CL_TRUE, o, r2, 0, 0, tight, 0,
                                NULL, NULL));
  for (size_t y = 0; y < h; y++)
    for (size_t x = 0; x < w; x++)
      CHECK_EQ(tight[y * w + x], y * 8 + x);
  /* A 2D image over a USE_HOST_PTR buffer: a map points into the
   * application's memory. */
  uint32_t *host = aligned_alloc(64, 128); /* >= sizeof data */
  memcpy(host, data, sizeof data);
  cl_mem hbuf = clCreateBuffer(env.context, CL_MEM_USE_HOST_PTR, sizeof data,
                               host, &err);
  REQUIRE_OK(err);
  d2.mem_object = hbuf;
  cl_mem himg = clCreateImage(env.context, 0, &f, &d2, NULL, &err);
  REQUIRE_OK(err);
  size_t mrow = 0;
  size_t o1[3] = {1, 2, 0}, r1[3] = {2, 1, 1};
  uint32_t *p = clEnqueueMapImage(env.queue, himg, CL_TRUE, CL_MAP_READ, o1, r1,
                                  &mrow, NULL, 0, NULL, NULL, &err);
  REQUIRE_OK(err);
  CHECK(p == host + 2 * 8 + 1);
  CHECK_EQ(mrow, row);
  REQUIRE_OK(clEnqueueUnmapMemObject(env.queue, himg, p, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  REQUIRE_OK(clReleaseMemObject(himg));
  REQUIRE_OK(clReleaseMemObject(hbuf));
  free(host);
  REQUIRE_OK(clReleaseMemObject(img));
  REQUIRE_OK(clReleaseMemObject(buf));

  /* sRGBA over RGBA: the same bytes, another order. */
  cl_image_format rgba = {CL_RGBA, CL_UNORM_INT8}, srgba = {CL_sRGBA,
                                                            CL_UNORM_INT8};
  cl_image_desc d3 = {CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0, 0, 0, 0, 0, {NULL}};
  cl_mem lin = clCreateImage(env.context, 0, &rgba, &d3, NULL, &err);
  REQUIRE_OK(err);
  d3.mem_object = lin;
  cl_mem srgb = clCreateImage(env.context, 0, &srgba, &d3, NULL, &err);
  REQUIRE_OK(err);
  cl_mem assoc = NULL;
  REQUIRE_OK(clGetMemObjectInfo(srgb, CL_MEM_ASSOCIATED_MEMOBJECT,
                                sizeof assoc, &assoc, NULL));
  CHECK(assoc == lin);
  cl_mem ib = (cl_mem)1;
  REQUIRE_OK(clGetImageInfo(srgb, CL_IMAGE_BUFFER, sizeof ib, &ib, NULL));
  CHECK(ib == NULL);
  float white[4] = {1, 1, 1, 1};
  size_t r4[3] = {4, 4, 1};
  REQUIRE_OK(clEnqueueFillImage(env.queue, srgb, white, o, r4, 0, NULL, NULL));
  unsigned char px[64];
  REQUIRE_OK(clEnqueueReadImage(env.queue, lin, CL_TRUE, o, r4, 0, 0, px, 0,
                                NULL, NULL));
  CHECK_EQ(px[0], 255);
  CHECK_EQ(px[63], 255);
  REQUIRE_OK(clReleaseMemObject(lin)); /* the view keeps the storage */
  REQUIRE_OK(clEnqueueReadImage(env.queue, srgb, CL_TRUE, o, r4, 0, 0, px, 0,
                                NULL, NULL));
  CHECK_EQ(px[5], 255);
  REQUIRE_OK(clReleaseMemObject(srgb));
  /* Depth over R. */
  cl_image_format rf = {CL_R, CL_FLOAT}, df = {CL_DEPTH, CL_FLOAT};
  d3.mem_object = NULL;
  cl_mem r_img = clCreateImage(env.context, 0, &rf, &d3, NULL, &err);
  REQUIRE_OK(err);
  d3.mem_object = r_img;
  cl_mem depth = clCreateImage(env.context, 0, &df, &d3, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clReleaseMemObject(depth));
  REQUIRE_OK(clReleaseMemObject(r_img));
}

/* The deprecated creators. */
static void check_legacy(void) {
  cl_image_format f = {CL_RG, CL_HALF_FLOAT}; /* 4 bytes */
  cl_int err;
  unsigned char host[3 * 7 * 40];
  for (size_t i = 0; i < sizeof host; i++)
    host[i] = (unsigned char)i;
  cl_mem m2 = clCreateImage2D(env.context, CL_MEM_COPY_HOST_PTR, &f, 7, 3, 40,
                              host, &err);
  REQUIRE_OK(err);
  unsigned char got[7 * 4];
  size_t o[3] = {0, 2, 0}, r[3] = {7, 1, 1};
  REQUIRE_OK(clEnqueueReadImage(env.queue, m2, CL_TRUE, o, r, 0, 0, got, 0,
                                NULL, NULL));
  CHECK(memcmp(got, host + 80, 28) == 0);
  CHECK_EQ(image_size(m2, CL_IMAGE_ROW_PITCH), 28); /* a copy: tight */
  REQUIRE_OK(clReleaseMemObject(m2));
  cl_mem m3 = clCreateImage3D(env.context, CL_MEM_USE_HOST_PTR, &f, 7, 2, 3,
                              40, 120, host, &err);
  REQUIRE_OK(err);
  CHECK_EQ(image_size(m3, CL_IMAGE_SLICE_PITCH), 120);
  size_t o3[3] = {1, 1, 2}, r3[3] = {1, 1, 1};
  REQUIRE_OK(clEnqueueReadImage(env.queue, m3, CL_TRUE, o3, r3, 0, 0, got, 0,
                                NULL, NULL));
  CHECK(memcmp(got, host + 2 * 120 + 40 + 4, 4) == 0);
  REQUIRE_OK(clReleaseMemObject(m3));
}

static void check_samplers(void) {
  static const cl_addressing_mode modes[] = {
      CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP,
      CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT};
  static const cl_filter_mode filters[] = {CL_FILTER_NEAREST,
                                           CL_FILTER_LINEAR};
  cl_int err;
  for (int norm = 0; norm < 2; norm++)
    for (int a = 0; a < 5; a++)
      for (int fl = 0; fl < 2; fl++) {
        cl_sampler s = clCreateSampler(env.context, norm ? CL_TRUE : CL_FALSE,
                                       modes[a], filters[fl], &err);
        REQUIRE_OK(err);
        cl_bool nb = 9;
        cl_addressing_mode am = 0;
        cl_filter_mode fm = 0;
        cl_context c = NULL;
        cl_uint refs = 0;
        size_t ret = 99;
        REQUIRE_OK(clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS,
                                    sizeof nb, &nb, NULL));
        REQUIRE_OK(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof am,
                                    &am, NULL));
        REQUIRE_OK(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof fm, &fm,
                                    NULL));
        REQUIRE_OK(clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, sizeof c, &c,
                                    NULL));
        REQUIRE_OK(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, 0, NULL, &ret));
        CHECK_EQ(nb, norm ? CL_TRUE : CL_FALSE);
        CHECK_EQ(am, modes[a]);
        CHECK_EQ(fm, filters[fl]);
        CHECK(c == env.context);
        CHECK_EQ(ret, 0);
        REQUIRE_OK(clRetainSampler(s));
        REQUIRE_OK(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT,
                                    sizeof refs, &refs, NULL));
        CHECK_EQ(refs, 2);
        REQUIRE_OK(clReleaseSampler(s));
        REQUIRE_OK(clReleaseSampler(s));
      }
  /* Defaults: normalised, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST. */
  cl_sampler s = clCreateSamplerWithProperties(env.context, NULL, &err);
  REQUIRE_OK(err);
  cl_bool nb = 0;
  cl_addressing_mode am = 0;
  cl_filter_mode fm = 0;
  REQUIRE_OK(clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS, sizeof nb, &nb,
                              NULL));
  REQUIRE_OK(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof am, &am,
                              NULL));
  REQUIRE_OK(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof fm, &fm,
                              NULL));
  CHECK_EQ(nb, CL_TRUE);
  CHECK_EQ(am, CL_ADDRESS_CLAMP);
  CHECK_EQ(fm, CL_FILTER_NEAREST);
  REQUIRE_OK(clReleaseSampler(s));
  /* Given properties come back as given, in order. */
  const cl_sampler_properties props[] = {
      CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, CL_SAMPLER_NORMALIZED_COORDS,
      CL_FALSE, CL_SAMPLER_ADDRESSING_MODE, CL_ADDRESS_MIRRORED_REPEAT, 0};
  s = clCreateSamplerWithProperties(env.context, props, &err);
  REQUIRE_OK(err);
  cl_sampler_properties back[8];
  size_t ret = 0;
  REQUIRE_OK(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, sizeof back, back,
                              &ret));
  CHECK_EQ(ret, sizeof props);
  CHECK(memcmp(back, props, sizeof props) == 0);
  REQUIRE_OK(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof am, &am,
                              NULL));
  CHECK_EQ(am, CL_ADDRESS_MIRRORED_REPEAT);
  REQUIRE_OK(clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS, sizeof nb, &nb,
                              NULL));
  CHECK_EQ(nb, CL_FALSE);
  REQUIRE_OK(clReleaseSampler(s));
  /* An empty list: reported back as the lone 0. */
  const cl_sampler_properties empty[] = {0};
  s = clCreateSamplerWithProperties(env.context, empty, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, 0, NULL, &ret));
  CHECK_EQ(ret, sizeof empty);
  REQUIRE_OK(clReleaseSampler(s));
}

/* The OpenCL C spec's __IMAGE_SUPPORT__ is 1 for a device with images
 * (the CTS's kernel_preprocessor_macros checks it too). */
static void check_image_macro(void) {
  const char *src = "#if !defined(__IMAGE_SUPPORT__) || __IMAGE_SUPPORT__ != 1\n"
                    "#error no __IMAGE_SUPPORT__\n"
                    "#endif\n"
                    "__kernel void k(__global int *p) { p[0] = 1; }\n";
  cl_int err;
  cl_program p = clCreateProgramWithSource(env.context, 1, &src, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clBuildProgram(p, 1, &env.device, "", NULL, NULL), CL_SUCCESS);
  clReleaseProgram(p);
}

int main(void) {
  unsetenv("SKEIN_IMAGES"); /* images are on by default */
  test_setup(&env);
  check_image_macro();
  check_device();
  check_formats();
  check_info();
  check_views();
  check_legacy();
  check_samplers();
  test_teardown(&env);
  return test_finish("images-objects");
}
