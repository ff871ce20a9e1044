/* Tests the image commands against a host model: for every image type, a
 * set of formats and every way of creating the storage (Skein's own, the
 * application's with USE_HOST_PTR and padded pitches, COPY_HOST_PTR with
 * padded pitches, ALLOC_HOST_PTR, a 1D image buffer over a buffer, a 2D
 * image over a buffer with a padded row pitch), random reads, writes,
 * copies (image to image of every type, image to buffer, buffer to
 * image, inside one image), fills and maps with random origins, regions
 * and host pitches are applied to the image and to a tightly packed host
 * copy of it, which must agree after every command. USE_HOST_PTR images
 * are also compared in the application's own memory (zero-copy), and maps
 * must point into it. */
#include "test_util.h"
#include <stdbool.h>
#include <stdint.h>

/* An image under test with its model: pixel (x, y, z) in API coordinates
 * (y the layer of a 1D array, z the layer of a 2D array) of the model is
 * at ((z * dims[1] + y) * dims[0] + x) * elem. */
typedef struct timg {
  cl_mem m;
  cl_mem buffer;             /* the buffer a 1D/2D image was made from */
  cl_mem_object_type type;
  size_t dims[3];
  size_t elem;
  unsigned char *model;
  unsigned char *host;       /* USE_HOST_PTR storage, else NULL */
  size_t host_row, host_slice;
  int how;
} timg;

enum { HOW_ALLOC, HOW_USE, HOW_COPY, HOW_ALLOC_HOST, HOW_FROM_BUFFER,
       NUM_HOW };

static test_env env;

static size_t rnd(size_t n) { return n ? (size_t)(test_rand() % n) : 0; }

static size_t model_off(const timg *t, size_t x, size_t y, size_t z) {
  return ((z * t->dims[1] + y) * t->dims[0] + x) * t->elem;
}

static size_t total(const timg *t) {
  return t->dims[0] * t->dims[1] * t->dims[2] * t->elem;
}

/* Byte offset of API pixel (x, y, z) in USE_HOST_PTR storage. */
static size_t host_off(const timg *t, size_t x, size_t y, size_t z) {
  if (t->type == CL_MEM_OBJECT_IMAGE1D_ARRAY)
    return y * t->host_slice + x * t->elem;
  return z * t->host_slice + y * t->host_row + x * t->elem;
}

static bool has_slices(cl_mem_object_type type) {
  return type == CL_MEM_OBJECT_IMAGE3D || type == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
         type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
}

static void fill_random(unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)test_rand();
}

/* Makes image t of the type, format and dimensions (w, h, d, layers) by
 * method how, with random contents known to the model. False when the
 * method does not apply to the type. */
static bool make(timg *t, cl_mem_object_type type, const cl_image_format *f,
                 size_t elem, size_t w, size_t h, size_t d, size_t layers,
                 int how) {
  memset(t, 0, sizeof *t);
  t->type = type;
  t->elem = elem;
  t->how = how;
  if (type == CL_MEM_OBJECT_IMAGE1D_BUFFER && how != HOW_FROM_BUFFER)
    return false;
  if (how == HOW_FROM_BUFFER && type != CL_MEM_OBJECT_IMAGE1D_BUFFER &&
      type != CL_MEM_OBJECT_IMAGE2D)
    return false;
  cl_image_desc desc = {type, w, 1, 1, 0, 0, 0, 0, 0, {NULL}};
  t->dims[0] = w, t->dims[1] = 1, t->dims[2] = 1;
  switch (type) {
  case CL_MEM_OBJECT_IMAGE2D:
    desc.image_height = t->dims[1] = h;
    break;
  case CL_MEM_OBJECT_IMAGE3D:
    desc.image_height = t->dims[1] = h;
    desc.image_depth = t->dims[2] = d;
    break;
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    desc.image_array_size = t->dims[1] = layers;
    break;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    desc.image_height = t->dims[1] = h;
    desc.image_array_size = t->dims[2] = layers;
    break;
  }
  t->model = malloc(total(t));
  fill_random(t->model, total(t));
  cl_int err;
  cl_mem_flags flags = CL_MEM_READ_WRITE;
  void *host_ptr = NULL;
  if (how == HOW_FROM_BUFFER) {
    /* A padded row pitch for the 2D image over a buffer. */
    size_t row = w * elem + (type == CL_MEM_OBJECT_IMAGE2D ? 3 * elem : 0);
    size_t size = row * t->dims[1];
    unsigned char *init = calloc(1, size);
    for (size_t y = 0; y < t->dims[1]; y++)
      memcpy(init + y * row, t->model + model_off(t, 0, y, 0), w * elem);
    t->buffer = clCreateBuffer(env.context,
                               CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size,
                               init, &err);
    REQUIRE_OK(err);
    free(init);
    desc.mem_object = t->buffer;
    desc.image_row_pitch = type == CL_MEM_OBJECT_IMAGE2D ? row : 0;
    t->m = clCreateImage(env.context, 0, f, &desc, NULL, &err);
    REQUIRE_OK(err);
    return true;
  }
  if (how == HOW_USE || how == HOW_COPY) {
    /* Pitches with padding, as an application's own layout. */
    t->host_row = w * elem + elem * rnd(4);
    if (type == CL_MEM_OBJECT_IMAGE1D_ARRAY)
      t->host_slice = t->host_row + t->host_row * rnd(2);
    else
      t->host_slice = t->host_row * (t->dims[1] + rnd(2));
    size_t size = has_slices(type) ? t->host_slice * (type ==
                      CL_MEM_OBJECT_IMAGE3D ? d : layers)
                                   : t->host_row * t->dims[1];
    t->host = malloc(size);
    fill_random(t->host, size);
    for (size_t z = 0; z < t->dims[2]; z++)
      for (size_t y = 0; y < t->dims[1]; y++)
        memcpy(t->host + host_off(t, 0, y, z), t->model + model_off(t, 0, y, z),
               w * elem);
    desc.image_row_pitch = t->host_row;
    desc.image_slice_pitch = has_slices(type) ? t->host_slice : 0;
    host_ptr = t->host;
    flags |= how == HOW_USE ? CL_MEM_USE_HOST_PTR : CL_MEM_COPY_HOST_PTR;
  }
  if (how == HOW_ALLOC_HOST)
    flags |= CL_MEM_ALLOC_HOST_PTR;
  t->m = clCreateImage(env.context, flags, f, &desc, host_ptr, &err);
  REQUIRE_OK(err);
  if (how == HOW_COPY) {
    /* The copy is Skein's: the application's memory no longer counts. */
    free(t->host);
    t->host = NULL;
  }
  if (how != HOW_USE && how != HOW_COPY) {
    /* Contents for images made without data: written once. */
    size_t origin[3] = {0, 0, 0};
    REQUIRE_OK(clEnqueueWriteImage(env.queue, t->m, CL_TRUE, origin, t->dims,
                                   0, 0, t->model, 0, NULL, NULL));
  }
  return true;
}

static void destroy(timg *t) {
  REQUIRE_OK(clReleaseMemObject(t->m));
  if (t->buffer)
    REQUIRE_OK(clReleaseMemObject(t->buffer));
  free(t->model);
  free(t->host);
}

/* A random origin and region inside t (region at most max per axis). */
static void random_box(const timg *t, size_t origin[3], size_t region[3]) {
  for (int i = 0; i < 3; i++) {
    origin[i] = rnd(t->dims[i]);
    region[i] = 1 + rnd(t->dims[i] - origin[i]);
  }
}

/* The image's contents (read tightly) against the model, and for
 * USE_HOST_PTR images the application's memory too. */
static void check(const timg *t, const char *what) {
  unsigned char *got = malloc(total(t));
  size_t origin[3] = {0, 0, 0};
  REQUIRE_OK(clEnqueueReadImage(env.queue, t->m, CL_TRUE, origin, t->dims, 0,
                                0, got, 0, NULL, NULL));
  if (memcmp(got, t->model, total(t)) != 0) {
    fprintf(stderr, "%s: type 0x%x how %d: contents differ from the model\n",
            what, (unsigned)t->type, t->how);
    test_failures++;
  }
  if (t->host) {
    for (size_t z = 0; z < t->dims[2]; z++)
      for (size_t y = 0; y < t->dims[1]; y++)
        if (memcmp(t->host + host_off(t, 0, y, z),
                   t->model + model_off(t, 0, y, z),
                   t->dims[0] * t->elem) != 0) {
          fprintf(stderr, "%s: USE_HOST_PTR memory differs at row %zu/%zu\n",
                  what, y, z);
          test_failures++;
          z = t->dims[2];
          break;
        }
  }
  free(got);
}

/* Host pitches for a region: padded, or 0 (tight) half the time. */
static void host_pitches(const timg *t, const size_t region[3], size_t *row,
                         size_t *slice, size_t *ystride, size_t *zstride) {
  size_t tight = region[0] * t->elem;
  *row = rnd(2) ? 0 : tight + rnd(5);
  size_t r = *row ? *row : tight;
  if (t->type == CL_MEM_OBJECT_IMAGE1D_ARRAY) {
    *slice = rnd(2) ? 0 : r + rnd(7);
    *ystride = *slice ? *slice : r;
    *zstride = 0;
  } else if (t->type == CL_MEM_OBJECT_IMAGE3D ||
             t->type == CL_MEM_OBJECT_IMAGE2D_ARRAY) {
    *slice = rnd(2) ? 0 : r * region[1] + rnd(9);
    *ystride = r;
    *zstride = *slice ? *slice : r * region[1];
  } else {
    *slice = 0;
    *ystride = r;
    *zstride = 0;
  }
}

static void op_write(timg *t) {
  size_t o[3], r[3], row, slice, ys, zs;
  random_box(t, o, r);
  host_pitches(t, r, &row, &slice, &ys, &zs);
  size_t size = (r[2] - 1) * zs + (r[1] - 1) * ys + r[0] * t->elem;
  unsigned char *src = malloc(size);
  fill_random(src, size);
  REQUIRE_OK(clEnqueueWriteImage(env.queue, t->m, rnd(2), o, r, row, slice,
                                 src, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  for (size_t z = 0; z < r[2]; z++)
    for (size_t y = 0; y < r[1]; y++)
      memcpy(t->model + model_off(t, o[0], o[1] + y, o[2] + z),
             src + z * zs + y * ys, r[0] * t->elem);
  free(src);
}

static void op_read(timg *t) {
  size_t o[3], r[3], row, slice, ys, zs;
  random_box(t, o, r);
  host_pitches(t, r, &row, &slice, &ys, &zs);
  size_t size = (r[2] - 1) * zs + (r[1] - 1) * ys + r[0] * t->elem;
  unsigned char *dst = malloc(size);
  REQUIRE_OK(clEnqueueReadImage(env.queue, t->m, CL_TRUE, o, r, row, slice,
                                dst, 0, NULL, NULL));
  for (size_t z = 0; z < r[2]; z++)
    for (size_t y = 0; y < r[1]; y++)
      if (memcmp(dst + z * zs + y * ys,
                 t->model + model_off(t, o[0], o[1] + y, o[2] + z),
                 r[0] * t->elem)) {
        fprintf(stderr, "read: type 0x%x how %d origin %zu,%zu,%zu region "
                "%zu,%zu,%zu row %zu slice %zu: differs\n", (unsigned)t->type,
                t->how, o[0], o[1], o[2], r[0], r[1], r[2], row, slice);
        test_failures++;
        z = r[2];
        break;
      }
  free(dst);
}

/* The pixel a fill of colour makes, from a 1x1 image of the same format
 * (the conversions themselves are test-images-fill's). */
static void fill_pixel(const cl_image_format *f, const void *color,
                       unsigned char *out, size_t elem) {
  cl_image_desc desc = {CL_MEM_OBJECT_IMAGE1D, 1, 1, 1, 0, 0, 0, 0, 0, {NULL}};
  cl_int err;
  cl_mem one = clCreateImage(env.context, 0, f, &desc, NULL, &err);
  REQUIRE_OK(err);
  size_t o[3] = {0, 0, 0}, r[3] = {1, 1, 1};
  REQUIRE_OK(clEnqueueFillImage(env.queue, one, color, o, r, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadImage(env.queue, one, CL_TRUE, o, r, 0, 0, out, 0,
                                NULL, NULL));
  REQUIRE_OK(clReleaseMemObject(one));
  (void)elem;
}

static void op_fill(timg *t, const cl_image_format *f) {
  size_t o[3], r[3];
  random_box(t, o, r);
  uint32_t color[4];
  for (int i = 0; i < 4; i++) /* also valid floats: no NaN payload issue */
    color[i] = (uint32_t)(test_rand() % 1000);
  float fc[4];
  for (int i = 0; i < 4; i++)
    fc[i] = (float)color[i] / 999.0f;
  const void *c = f->image_channel_data_type == CL_UNSIGNED_INT8 ||
                          f->image_channel_data_type == CL_SIGNED_INT16 ||
                          f->image_channel_data_type == CL_UNSIGNED_INT32
                      ? (const void *)color
                      : (const void *)fc;
  unsigned char pixel[16];
  fill_pixel(f, c, pixel, t->elem);
  REQUIRE_OK(clEnqueueFillImage(env.queue, t->m, c, o, r, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  for (size_t z = 0; z < r[2]; z++)
    for (size_t y = 0; y < r[1]; y++)
      for (size_t x = 0; x < r[0]; x++)
        memcpy(t->model + model_off(t, o[0] + x, o[1] + y, o[2] + z), pixel,
               t->elem);
}

static void op_map(timg *t) {
  size_t o[3], r[3], row = 0, slice = 12345;
  random_box(t, o, r);
  cl_int err;
  cl_map_flags mf = rnd(3) == 0 ? CL_MAP_WRITE_INVALIDATE_REGION
                                : CL_MAP_READ | CL_MAP_WRITE;
  unsigned char *p = clEnqueueMapImage(env.queue, t->m, CL_TRUE, mf, o, r,
                                       &row, &slice, 0, NULL, NULL, &err);
  REQUIRE_OK(err);
  size_t ys = t->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? slice : row;
  size_t zs = t->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 0 : slice;
  if (!has_slices(t->type))
    CHECK_EQ(slice, 0);
  if (t->host) { /* zero-copy into the application's memory */
    CHECK(p == t->host + host_off(t, o[0], o[1], o[2]));
    CHECK_EQ(row, t->host_row);
    if (has_slices(t->type))
      CHECK_EQ(slice, t->host_slice);
  }
  for (size_t z = 0; z < r[2]; z++)
    for (size_t y = 0; y < r[1]; y++) {
      unsigned char *line = p + z * zs + y * ys;
      unsigned char *m = t->model + model_off(t, o[0], o[1] + y, o[2] + z);
      if (mf & CL_MAP_READ)
        if (memcmp(line, m, r[0] * t->elem)) {
          fprintf(stderr, "map: mapped row %zu/%zu differs\n", y, z);
          test_failures++;
        }
      fill_random(line, r[0] * t->elem);
      memcpy(m, line, r[0] * t->elem);
    }
  cl_uint count = 0;
  REQUIRE_OK(clGetMemObjectInfo(t->m, CL_MEM_MAP_COUNT, sizeof count, &count,
                                NULL));
  CHECK_EQ(count, 1);
  REQUIRE_OK(clEnqueueUnmapMemObject(env.queue, t->m, p, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
}

/* Copies a random region from a to b (both must fit it). */
static void op_copy(timg *a, timg *b) {
  size_t r[3], ao[3], bo[3];
  for (int i = 0; i < 3; i++) {
    size_t lim = a->dims[i] < b->dims[i] ? a->dims[i] : b->dims[i];
    r[i] = 1 + rnd(lim);
    ao[i] = rnd(a->dims[i] - r[i] + 1);
    bo[i] = rnd(b->dims[i] - r[i] + 1);
  }
  if (a == b) { /* the same image: regions that do not overlap */
    bool apart = false;
    for (int i = 0; i < 3; i++)
      if (ao[i] + r[i] <= bo[i] || bo[i] + r[i] <= ao[i])
        apart = true;
    cl_int err = clEnqueueCopyImage(env.queue, a->m, b->m, ao, bo, r, 0, NULL,
                                    NULL);
    if (!apart) {
      CHECK_EQ(err, CL_MEM_COPY_OVERLAP);
      return;
    }
    REQUIRE_OK(err);
  } else {
    REQUIRE_OK(clEnqueueCopyImage(env.queue, a->m, b->m, ao, bo, r, 0, NULL,
                                  NULL));
  }
  REQUIRE_OK(clFinish(env.queue));
  for (size_t z = 0; z < r[2]; z++)
    for (size_t y = 0; y < r[1]; y++)
      memmove(b->model + model_off(b, bo[0], bo[1] + y, bo[2] + z),
              a->model + model_off(a, ao[0], ao[1] + y, ao[2] + z),
              r[0] * a->elem);
}

/* Image to buffer and back, through a buffer at a random offset. */
static void op_buffer_round_trip(timg *t) {
  size_t o[3], r[3];
  random_box(t, o, r);
  size_t bytes = r[0] * r[1] * r[2] * t->elem, off = rnd(64);
  cl_int err;
  cl_mem buf = clCreateBuffer(env.context, CL_MEM_READ_WRITE, off + bytes,
                              NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clEnqueueCopyImageToBuffer(env.queue, t->m, buf, o, r, off, 0,
                                        NULL, NULL));
  unsigned char *got = malloc(bytes);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, buf, CL_TRUE, off, bytes, got, 0,
                                 NULL, NULL));
  size_t row = r[0] * t->elem;
  for (size_t z = 0; z < r[2]; z++)
    for (size_t y = 0; y < r[1]; y++)
      if (memcmp(got + (z * r[1] + y) * row,
                 t->model + model_off(t, o[0], o[1] + y, o[2] + z), row)) {
        fprintf(stderr, "image to buffer: row %zu/%zu differs\n", y, z);
        test_failures++;
      }
  /* New contents into the buffer, then into another random place. */
  fill_random(got, bytes);
  REQUIRE_OK(clEnqueueWriteBuffer(env.queue, buf, CL_TRUE, off, bytes, got, 0,
                                  NULL, NULL));
  size_t o2[3];
  for (int i = 0; i < 3; i++)
    o2[i] = rnd(t->dims[i] - r[i] + 1);
  REQUIRE_OK(clEnqueueCopyBufferToImage(env.queue, buf, t->m, off, o2, r, 0,
                                        NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  for (size_t z = 0; z < r[2]; z++)
    for (size_t y = 0; y < r[1]; y++)
      memcpy(t->model + model_off(t, o2[0], o2[1] + y, o2[2] + z),
             got + (z * r[1] + y) * row, row);
  free(got);
  REQUIRE_OK(clReleaseMemObject(buf));
}

static const cl_mem_object_type types[] = {
    CL_MEM_OBJECT_IMAGE1D,       CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_MEM_OBJECT_IMAGE3D};

static const struct {
  cl_image_format f;
  size_t elem;
} formats[] = {
    {{CL_RGBA, CL_UNORM_INT8}, 4},      {{CL_R, CL_FLOAT}, 4},
    {{CL_RG, CL_SIGNED_INT16}, 4},      {{CL_RGBA, CL_FLOAT}, 16},
    {{CL_R, CL_UNSIGNED_INT8}, 1},      {{CL_RGB, CL_UNORM_SHORT_565}, 2},
    {{CL_BGRA, CL_UNORM_INT8}, 4},      {{CL_RGBA, CL_HALF_FLOAT}, 8},
    {{CL_RGBA, CL_UNSIGNED_INT32}, 16}, {{CL_LUMINANCE, CL_UNORM_INT16}, 2},
};

int main(void) {
  unsetenv("SKEIN_IMAGES"); /* images are on by default */
  test_setup(&env);
  test_seed(0x1a2b3c4d5e6fULL);
  unsigned images = 0;
  for (size_t fi = 0; fi < sizeof formats / sizeof formats[0]; fi++) {
    const cl_image_format *f = &formats[fi].f;
    size_t elem = formats[fi].elem;
    timg all[6 * NUM_HOW];
    int n = 0;
    for (size_t ti = 0; ti < 6; ti++)
      for (int how = 0; how < NUM_HOW; how++) {
        timg *t = &all[n];
        if (!make(t, types[ti], f, elem, 19 + rnd(20), 5 + rnd(9), 2 + rnd(4),
                  2 + rnd(4), how))
          continue;
        n++;
        images++;
        check(t, "created");
        for (int i = 0; i < 12; i++) {
          switch (rnd(6)) {
          case 0:
            op_write(t);
            break;
          case 1:
            op_read(t);
            break;
          case 2:
            op_fill(t, f);
            break;
          case 3:
            op_map(t);
            break;
          case 4:
            op_buffer_round_trip(t);
            break;
          default:
            op_copy(t, t);
          }
          check(t, "after a command");
        }
      }
    /* Copies between every pair of images of the format (every type to
     * every type). */
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        op_copy(&all[i], &all[j]);
        check(&all[j], "after a copy between images");
      }
    for (int i = 0; i < n; i++)
      destroy(&all[i]);
  }
  printf("%u images tested\n", images);
  test_teardown(&env);
  return test_finish("images-commands");
}
