/* This file contains the image entry points: creation of every image type
 * (also from a buffer or another image), clGetImageInfo,
 * clGetSupportedImageFormats, and the image commands (read, write, copy,
 * fill, image <-> buffer, map). They validate their arguments and return
 * the error codes of the OpenCL 3.0 API specification; runtime/core/image.c
 * does the work. Without SKEIN_IMAGES=1 the device has no image support:
 * creation fails with CL_INVALID_OPERATION, so no image ever exists and
 * the commands answer CL_INVALID_MEM_OBJECT. */
#include "../core/context.h"
#include "../core/event.h"
#include "../core/image.h"
#include "../core/info.h"
#include "../core/platform.h"
#include "../core/queue.h"
#include <string.h>

static bool is_image_type(cl_mem_object_type t) {
  return t == CL_MEM_OBJECT_IMAGE1D || t == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
         t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D ||
         t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D;
}

static bool is_array(cl_mem_object_type t) {
  return t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY;
}

/* The API dimensions of an image type's region: the limits of origin +
 * region in x, y and z (y is a 1D array's layer, z a 2D array's). */
static void api_dims(const skein_image *k, size_t lim[3]) {
  lim[0] = k->width;
  lim[1] = k->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? k->array_size
                                                        : k->height;
  lim[2] = k->image_type == CL_MEM_OBJECT_IMAGE2D_ARRAY ? k->array_size
                                                        : k->depth;
}

/* CL_INVALID_IMAGE_SIZE checks of the dimensions: each at least 1 and
 * within the device's limits for the type; fills the layout's
 * dimensions. */
static bool dims_valid(const cl_image_desc *d, rt_image_layout *l) {
  size_t w = d->image_width, h = 1, depth = 1, layers = 0, wmax = RT_IMAGE2D_MAX;
  switch (d->image_type) {
  case CL_MEM_OBJECT_IMAGE1D_BUFFER:
    wmax = rt_image_max_buffer_pixels();
    break;
  case CL_MEM_OBJECT_IMAGE2D:
    h = d->image_height;
    break;
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    layers = d->image_array_size;
    break;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    h = d->image_height;
    layers = d->image_array_size;
    break;
  case CL_MEM_OBJECT_IMAGE3D:
    wmax = RT_IMAGE3D_MAX;
    h = d->image_height;
    depth = d->image_depth;
    if (h > RT_IMAGE3D_MAX || depth == 0 || depth > RT_IMAGE3D_MAX)
      return false;
    break;
  }
  if (w == 0 || w > wmax || h == 0 || h > RT_IMAGE2D_MAX)
    return false;
  if (is_array(d->image_type) && (layers == 0 || layers > RT_IMAGE_MAX_ARRAY))
    return false;
  l->width = w, l->height = h, l->depth = depth, l->array_size = layers;
  /* The whole image as an API region: y and z extents. */
  l->rows = d->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? layers : h;
  l->slices = d->image_type == CL_MEM_OBJECT_IMAGE2D_ARRAY ? layers : depth;
  return true;
}

/* The slice pitch a type needs at least, given its row pitch. */
static bool min_slice(const cl_image_desc *d, size_t row, size_t *out) {
  if (d->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY) {
    *out = row;
    return true;
  }
  return !__builtin_mul_overflow(row, d->image_height, out);
}

/* Pitches given with host_ptr (or for a 2D image from a buffer): a row
 * pitch of at least a row of pixels and a multiple of the pixel size; a
 * slice pitch (3D images and arrays) of at least min_slice and a multiple
 * of the row pitch. 0 means tight. */
static bool pitches_valid(const cl_image_desc *d, size_t elem, size_t *row,
                          size_t *slice) {
  size_t tight_row, need_slice;
  if (__builtin_mul_overflow(d->image_width, elem, &tight_row))
    return false;
  *row = d->image_row_pitch ? d->image_row_pitch : tight_row;
  if (*row < tight_row || *row % elem)
    return false;
  *slice = 0;
  if (d->image_type != CL_MEM_OBJECT_IMAGE3D && !is_array(d->image_type))
    return true;
  if (!min_slice(d, *row, &need_slice))
    return false;
  *slice = d->image_slice_pitch ? d->image_slice_pitch : need_slice;
  return *slice >= need_slice && *slice % *row == 0;
}

/* Bytes of an image of the layout's pitches: its last row or slice ends
 * the storage as the table of host_ptr sizes says. False on overflow. */
static bool storage_size(const cl_image_desc *d, rt_image_layout *l) {
  switch (d->image_type) {
  case CL_MEM_OBJECT_IMAGE1D:
  case CL_MEM_OBJECT_IMAGE1D_BUFFER:
    l->size = l->row_pitch;
    return true;
  case CL_MEM_OBJECT_IMAGE2D:
    return !__builtin_mul_overflow(l->row_pitch, l->height, &l->size);
  case CL_MEM_OBJECT_IMAGE3D:
    return !__builtin_mul_overflow(l->slice_pitch, l->depth, &l->size);
  default: /* arrays */
    return !__builtin_mul_overflow(l->slice_pitch, l->array_size, &l->size);
  }
}

/* The Compatible Image Channel Orders table (image from image), plus the
 * image's own order. */
static bool orders_compatible(cl_channel_order view, cl_channel_order of) {
  static const cl_channel_order pairs[][2] = {
      {CL_sBGRA, CL_BGRA}, {CL_BGRA, CL_sBGRA}, {CL_sRGBA, CL_RGBA},
      {CL_RGBA, CL_sRGBA}, {CL_sRGB, CL_RGB},   {CL_RGB, CL_sRGB},
      {CL_sRGBx, CL_RGBx}, {CL_RGBx, CL_sRGBx}, {CL_DEPTH, CL_R}};
  if (view == of)
    return true;
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
    if (pairs[i][0] == view && pairs[i][1] == of)
      return true;
  return false;
}

/* The checks of an image made from a buffer or an image (desc->mem_object
 * set); completes the layout. Returns CL_SUCCESS or the error. */
static cl_int check_from_mem(const cl_image_format *format,
                             const cl_image_desc *d, rt_image_layout *l) {
  cl_mem from = d->mem_object;
  size_t elem = l->elem_size;
  if (from->type == CL_MEM_OBJECT_BUFFER) {
    if (d->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
      /* An image from a buffer has no host_ptr, so "must be 0 if
       * host_ptr is NULL" cannot be meant for it (the 2D case below
       * takes a pitch too): a row pitch is 0 or at least a row of
       * pixels and a multiple of the pixel size, as for host_ptr; the
       * one row is stored tightly. No slice pitch. */
      size_t row, slice;
      RT_RETURN_IF(d->image_slice_pitch ||
                       !pitches_valid(d, elem, &row, &slice),
                   CL_INVALID_IMAGE_DESCRIPTOR);
      l->row_pitch = l->width * elem;
      l->slice_pitch = 0;
    } else { /* 2D from a buffer: cl_khr_image2d_from_buffer */
      RT_RETURN_IF(d->image_slice_pitch, CL_INVALID_IMAGE_DESCRIPTOR);
      RT_RETURN_IF(!pitches_valid(d, elem, &l->row_pitch, &l->slice_pitch),
                   CL_INVALID_IMAGE_DESCRIPTOR);
      /* CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if a 2D image is created from a
       * buffer and the row pitch and base address alignment does not
       * follow the rules: a row pitch a multiple of
       * CL_DEVICE_IMAGE_PITCH_ALIGNMENT pixels, a USE_HOST_PTR buffer's
       * address one of CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT pixels. */
      RT_RETURN_IF(l->row_pitch % (RT_IMAGE_PITCH_ALIGN * elem) ||
                       ((from->flags & CL_MEM_USE_HOST_PTR) &&
                        (uintptr_t)from->data % (RT_IMAGE_BASE_ALIGN * elem)),
                   CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    /* The buffer must hold the image (image_width x pixel size, or
     * image_row_pitch x image_height): else the dimensions are not
     * valid for it. */
    RT_RETURN_IF(!storage_size(d, l) || l->size > from->size,
                 CL_INVALID_IMAGE_SIZE);
    return CL_SUCCESS;
  }
  /* A 2D image from a 2D image: the same descriptor, the same data type,
   * a compatible channel order; else CL_INVALID_IMAGE_FORMAT_DESCRIPTOR
   * ("if a 2D image is created from a 2D image object and the rules
   * described above are not followed"). */
  const rt_image *src = from->image;
  RT_RETURN_IF(format->image_channel_data_type !=
                       src->format.image_channel_data_type ||
                   !orders_compatible(format->image_channel_order,
                                      src->format.image_channel_order) ||
                   d->image_width != src->kernel.width ||
                   d->image_height != src->kernel.height ||
                   (d->image_row_pitch &&
                    d->image_row_pitch != src->kernel.row_pitch) ||
                   d->image_slice_pitch,
               CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  l->row_pitch = src->kernel.row_pitch;
  l->slice_pitch = 0;
  return storage_size(d, l) ? CL_SUCCESS : CL_INVALID_IMAGE_SIZE;
}

/* Which memory objects desc->mem_object may be for the image type:
 * a buffer for a 1D image buffer (required) or a 2D image, a 2D image for
 * a 2D image. CL_INVALID_IMAGE_DESCRIPTOR otherwise. */
static bool mem_object_valid(cl_context ctx, const cl_image_desc *d) {
  cl_mem from = d->mem_object;
  if (!from)
    return d->image_type != CL_MEM_OBJECT_IMAGE1D_BUFFER;
  if (!rt_is(from, RT_MEM) || from->context != ctx)
    return false;
  if (from->type == CL_MEM_OBJECT_BUFFER)
    return d->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
           d->image_type == CL_MEM_OBJECT_IMAGE2D;
  return d->image_type == CL_MEM_OBJECT_IMAGE2D &&
         from->type == CL_MEM_OBJECT_IMAGE2D;
}

/* clCreateImage's work; legacy: clCreateImage2D/3D, whose pitch errors
 * are CL_INVALID_IMAGE_SIZE. Returns CL_SUCCESS and the image in *out. */
static cl_int create_image(cl_context context,
                           const cl_mem_properties *properties,
                           cl_mem_flags flags, const cl_image_format *format,
                           const cl_image_desc *desc, void *host_ptr,
                           bool legacy, cl_mem *out) {
  RT_RETURN_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT);
  /* CL_INVALID_OPERATION if there are no devices in context that support
   * images. */
  RT_RETURN_IF(!rt_images_enabled(), CL_INVALID_OPERATION);
  /* CL_INVALID_PROPERTY if a property name in properties is not a
   * supported property name (images have none). */
  RT_RETURN_IF(properties && properties[0] != 0, CL_INVALID_PROPERTY);
  /* CL_INVALID_VALUE if values specified in flags are not valid. */
  RT_RETURN_IF(!rt_mem_flags_valid(flags), CL_INVALID_VALUE);
  /* CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if values specified in
   * image_format are not valid or if image_format is NULL. */
  RT_RETURN_IF(!format, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  rt_image_layout l = {0};
  rt_format_status fs = rt_format_check(format, &l.elem_size,
                                        &l.num_channels);
  RT_RETURN_IF(fs == RT_FORMAT_INVALID, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  /* CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not
   * valid or if image_desc is NULL: an image type, no mipmaps or samples
   * (num_mip_levels and num_samples must be 0), a mem_object only where
   * the type takes one. */
  RT_RETURN_IF(!desc || !is_image_type(desc->image_type) ||
                   desc->num_mip_levels || desc->num_samples ||
                   !mem_object_valid(context, desc),
               CL_INVALID_IMAGE_DESCRIPTOR);
  /* CL_IMAGE_FORMAT_NOT_SUPPORTED if there are no devices in context that
   * support image_format (at all, or for this image type); checked here,
   * as the pixel size of a format Skein lacks is unknown. */
  RT_RETURN_IF(fs == RT_FORMAT_UNSUPPORTED ||
                   !rt_format_fits_type(format, desc->image_type),
               CL_IMAGE_FORMAT_NOT_SUPPORTED);
  cl_mem from = desc->mem_object;
  if (from)
    RT_RETURN_IF(!rt_mem_inherit_flags(from, &flags), CL_INVALID_VALUE);
  else if (!(flags & RT_MEM_ACCESS_FLAGS))
    flags |= CL_MEM_READ_WRITE;
  /* CL_INVALID_IMAGE_SIZE if image dimensions specified in image_desc
   * exceed the maximum image dimensions (or are 0). */
  RT_RETURN_IF(!dims_valid(desc, &l), CL_INVALID_IMAGE_SIZE);
  /* CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
   * CL_MEM_COPY_HOST_PTR are set in flags or if host_ptr is not NULL but
   * CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are not set in flags (an
   * image from a memory object has no host_ptr of its own). */
  bool wants_ptr = !from && (flags & (CL_MEM_USE_HOST_PTR |
                                      CL_MEM_COPY_HOST_PTR));
  RT_RETURN_IF(wants_ptr != (host_ptr != NULL), CL_INVALID_HOST_PTR);
  /* Pitch errors: CL_INVALID_IMAGE_DESCRIPTOR, or for clCreateImage2D
   * and clCreateImage3D, "CL_INVALID_IMAGE_SIZE if values specified by
   * image_row_pitch (and image_slice_pitch) do not follow the rules". */
  const cl_int pitch_err =
      legacy ? CL_INVALID_IMAGE_SIZE : CL_INVALID_IMAGE_DESCRIPTOR;
  if (from) {
    cl_int err = check_from_mem(format, desc, &l);
    RT_RETURN_IF(err != CL_SUCCESS, err);
  } else {
    /* The pitches must be 0 if host_ptr is NULL. */
    RT_RETURN_IF(!host_ptr && (desc->image_row_pitch ||
                               desc->image_slice_pitch),
                 pitch_err);
    size_t row, slice;
    RT_RETURN_IF(!pitches_valid(desc, l.elem_size, &row, &slice), pitch_err);
    bool arrayish = desc->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
    l.host_ystride = arrayish ? slice : row;
    l.host_zstride = arrayish ? 0 : slice;
    /* USE_HOST_PTR keeps the application's pitches; anything else gets
     * tight storage. */
    cl_image_desc tight = *desc;
    tight.image_row_pitch = tight.image_slice_pitch = 0;
    RT_RETURN_IF(!pitches_valid(flags & CL_MEM_USE_HOST_PTR ? desc : &tight,
                                l.elem_size, &l.row_pitch, &l.slice_pitch),
                 pitch_err);
    RT_RETURN_IF(!storage_size(desc, &l) ||
                     l.size > rt_device()->max_mem_alloc_size,
                 CL_INVALID_IMAGE_SIZE);
  }
  cl_int err;
  *out = rt_image_new(context, flags, format, desc, &l, host_ptr, &err);
  RT_RETURN_IF(!*out, err);
  /* An empty property list is still reported back, as for buffers. */
  if (properties) {
    (*out)->props = calloc(1, sizeof *(*out)->props);
    (*out)->num_props = (*out)->props ? 1 : 0;
  }
  return CL_SUCCESS;
}

cl_mem CL_API_CALL clCreateImageWithProperties(
    cl_context context, const cl_mem_properties *properties,
    cl_mem_flags flags, const cl_image_format *image_format,
    const cl_image_desc *image_desc, void *host_ptr, cl_int *errcode_ret) {
  cl_mem m = NULL;
  cl_int err = create_image(context, properties, flags, image_format,
                            image_desc, host_ptr, false, &m);
  if (errcode_ret)
    *errcode_ret = err;
  return err == CL_SUCCESS ? m : NULL;
}

cl_mem CL_API_CALL clCreateImage(cl_context context, cl_mem_flags flags,
                                 const cl_image_format *image_format,
                                 const cl_image_desc *image_desc,
                                 void *host_ptr, cl_int *errcode_ret) {
  return clCreateImageWithProperties(context, NULL, flags, image_format,
                                     image_desc, host_ptr, errcode_ret);
}

cl_mem CL_API_CALL clCreateImage2D(cl_context context, cl_mem_flags flags,
                                   const cl_image_format *image_format,
                                   size_t image_width, size_t image_height,
                                   size_t image_row_pitch, void *host_ptr,
                                   cl_int *errcode_ret) {
  cl_image_desc desc = {CL_MEM_OBJECT_IMAGE2D, image_width, image_height,
                        1, 0, image_row_pitch, 0, 0, 0, {NULL}};
  cl_mem m = NULL;
  cl_int err = create_image(context, NULL, flags, image_format, &desc,
                            host_ptr, true, &m);
  if (errcode_ret)
    *errcode_ret = err;
  return err == CL_SUCCESS ? m : NULL;
}

cl_mem CL_API_CALL clCreateImage3D(cl_context context, cl_mem_flags flags,
                                   const cl_image_format *image_format,
                                   size_t image_width, size_t image_height,
                                   size_t image_depth, size_t image_row_pitch,
                                   size_t image_slice_pitch, void *host_ptr,
                                   cl_int *errcode_ret) {
  /* CL_INVALID_IMAGE_SIZE if image_depth <= 1 (a 3D image of one slice is
   * a 2D image). */
  cl_image_desc desc = {CL_MEM_OBJECT_IMAGE3D, image_width, image_height,
                        image_depth, 0, image_row_pitch, image_slice_pitch,
                        0, 0, {NULL}};
  cl_mem m = NULL;
  cl_int err = create_image(context, NULL, flags, image_format, &desc,
                            host_ptr, true, &m);
  if (err == CL_SUCCESS && image_depth <= 1) {
    rt_mem_release(m);
    rt_debug("%s: image_depth <= 1 -> CL_INVALID_IMAGE_SIZE\n", __func__);
    err = CL_INVALID_IMAGE_SIZE;
  }
  if (errcode_ret)
    *errcode_ret = err;
  return err == CL_SUCCESS ? m : NULL;
}

cl_int CL_API_CALL clGetSupportedImageFormats(cl_context context,
                                              cl_mem_flags flags,
                                              cl_mem_object_type image_type,
                                              cl_uint num_entries,
                                              cl_image_format *image_formats,
                                              cl_uint *num_image_formats) {
  RT_RETURN_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT);
  /* CL_INVALID_VALUE if flags or image_type are not valid, or if
   * num_entries is 0 and image_formats is not NULL. */
  RT_RETURN_IF(!rt_mem_flags_valid(flags), CL_INVALID_VALUE);
  RT_RETURN_IF(!is_image_type(image_type), CL_INVALID_VALUE);
  RT_RETURN_IF(num_entries == 0 && image_formats, CL_INVALID_VALUE);
  /* Without image support the list is empty (the function has no error
   * for that case). */
  cl_uint n = 0;
  if (rt_images_enabled())
    n = rt_supported_formats(image_type, flags, image_formats,
                             image_formats ? num_entries : 0);
  if (num_image_formats)
    *num_image_formats = n;
  return CL_SUCCESS;
}

cl_int CL_API_CALL clGetImageInfo(cl_mem image, cl_image_info param_name,
                                  size_t param_value_size, void *param_value,
                                  size_t *param_value_size_ret) {
  /* CL_INVALID_MEM_OBJECT if image is a not a valid image object. */
  RT_RETURN_IF(!rt_is_image(image), CL_INVALID_MEM_OBJECT);
  const rt_image *img = image->image;
  const skein_image *k = &img->kernel;
  cl_mem_object_type t = image->type;
  switch (param_name) {
  case CL_IMAGE_FORMAT:
    RT_INFO_VALUE(cl_image_format, img->format);
  case CL_IMAGE_ELEMENT_SIZE:
    RT_INFO_VALUE(size_t, k->element_size);
  case CL_IMAGE_ROW_PITCH:
    RT_INFO_VALUE(size_t, k->row_pitch);
  /* For a 1D image, 1D image buffer and 2D image object return 0. */
  case CL_IMAGE_SLICE_PITCH:
    RT_INFO_VALUE(size_t, k->slice_pitch);
  case CL_IMAGE_WIDTH:
    RT_INFO_VALUE(size_t, k->width);
  /* For a 1D image, 1D image buffer and 1D image array object, 0. */
  case CL_IMAGE_HEIGHT:
    RT_INFO_VALUE(size_t, t == CL_MEM_OBJECT_IMAGE1D ||
                                  t == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
                                  t == CL_MEM_OBJECT_IMAGE1D_ARRAY
                              ? 0
                              : k->height);
  /* 0 for all but a 3D image. */
  case CL_IMAGE_DEPTH:
    RT_INFO_VALUE(size_t, t == CL_MEM_OBJECT_IMAGE3D ? k->depth : 0);
  case CL_IMAGE_ARRAY_SIZE:
    RT_INFO_VALUE(size_t, k->array_size);
  /* The buffer object associated with image (1D image buffer, 2D image
   * from a buffer); NULL otherwise. */
  case CL_IMAGE_BUFFER:
    RT_INFO_VALUE(cl_mem, image->parent &&
                                  image->parent->type == CL_MEM_OBJECT_BUFFER
                              ? image->parent
                              : NULL);
  case CL_IMAGE_NUM_MIP_LEVELS:
  case CL_IMAGE_NUM_SAMPLES:
    RT_INFO_VALUE(cl_uint, 0);
  default:
    RT_FAIL(CL_INVALID_VALUE);
  }
}

/* Commands. */

/* The checks every image command makes of queue and one image. */
static cl_int check_queue_image(cl_command_queue q, cl_mem image) {
  RT_RETURN_IF(!rt_is(q, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_MEM_OBJECT if image is not a valid image object. */
  RT_RETURN_IF(!rt_is_image(image), CL_INVALID_MEM_OBJECT);
  /* CL_INVALID_CONTEXT if the context associated with command_queue and
   * image are not the same. */
  RT_RETURN_IF(q->context != image->context, CL_INVALID_CONTEXT);
  return CL_SUCCESS;
}

/* The same for a buffer argument of a copy between image and buffer. */
static cl_int check_queue_buffer(cl_command_queue q, cl_mem buffer) {
  RT_RETURN_IF(!rt_is(buffer, RT_MEM) || buffer->type != CL_MEM_OBJECT_BUFFER,
               CL_INVALID_MEM_OBJECT);
  RT_RETURN_IF(q->context != buffer->context, CL_INVALID_CONTEXT);
  return CL_SUCCESS;
}

/* CL_INVALID_VALUE unless origin and region are not NULL, no value of
 * region is 0, and origin + region lies inside image m in every API
 * dimension (so origin[1] and origin[2] are 0 and region[1], region[2]
 * are 1 where the type has no such dimension). */
static bool region_inside(cl_mem m, const size_t *origin,
                          const size_t *region) {
  if (!origin || !region)
    return false;
  size_t lim[3], end;
  api_dims(&m->image->kernel, lim);
  for (int i = 0; i < 3; i++)
    if (region[i] == 0 || __builtin_add_overflow(origin[i], region[i], &end) ||
        end > lim[i])
      return false;
  return true;
}

/* The host side of a read or write: row and slice pitch (0: tight) as
 * the argument descriptions of clEnqueueReadImage say, into strides of
 * the region's y and z. False where they are not valid. */
static bool host_pitches(cl_mem m, const size_t region[3], size_t row,
                         size_t slice, rt_pixels *host) {
  cl_mem_object_type t = m->type;
  size_t width, min_slice;
  if (__builtin_mul_overflow(region[0], (size_t)m->image->kernel.element_size,
                             &width))
    return false;
  if (row == 0)
    row = width;
  if (row < width)
    return false;
  switch (t) {
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    /* Each image of the array is one row, slice_pitch apart. */
    if (slice == 0)
      slice = row;
    if (slice < row)
      return false;
    host->ystride = slice, host->zstride = 0;
    return true;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
  case CL_MEM_OBJECT_IMAGE3D:
    if (__builtin_mul_overflow(row, region[1], &min_slice))
      return false;
    if (slice == 0)
      slice = min_slice;
    if (slice < min_slice)
      return false;
    host->ystride = row, host->zstride = slice;
    return true;
  default:
    /* CL_INVALID_VALUE if image is a 1D or 2D image and slice_pitch is
     * not 0. */
    if (slice)
      return false;
    host->ystride = row, host->zstride = 0;
    return true;
  }
}

/* Read and write share everything but the direction. */
static cl_int image_io(cl_command_queue q, cl_mem image, bool read,
                       cl_bool blocking, const size_t *origin,
                       const size_t *region, size_t row_pitch,
                       size_t slice_pitch, char *ptr, cl_uint num_events,
                       const cl_event *wait_list, cl_event *event) {
  cl_int err = check_queue_image(q, image);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  /* CL_INVALID_VALUE if origin or region is NULL, the region is out of
   * bounds or does not follow the rules for the image type, the pitches
   * are not valid, or ptr is NULL. */
  RT_RETURN_IF(!region_inside(image, origin, region), CL_INVALID_VALUE);
  rt_pixels host;
  RT_RETURN_IF(!host_pitches(image, region, row_pitch, slice_pitch, &host),
               CL_INVALID_VALUE);
  RT_RETURN_IF(!ptr, CL_INVALID_VALUE);
  /* CL_INVALID_OPERATION if clEnqueueReadImage is called on image which
   * has been created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS
   * (clEnqueueWriteImage: CL_MEM_HOST_READ_ONLY or _NO_ACCESS). */
  cl_mem_flags denied = CL_MEM_HOST_NO_ACCESS |
                        (read ? CL_MEM_HOST_WRITE_ONLY : CL_MEM_HOST_READ_ONLY);
  RT_RETURN_IF(image->flags & denied, CL_INVALID_OPERATION);
  host.base = ptr;
  rt_pixels pix = rt_image_at(image, origin);
  const size_t bytes[3] = {region[0] * image->image->kernel.element_size,
                           region[1], region[2]};
  if (read)
    return rt_image_enqueue_copy(q, CL_COMMAND_READ_IMAGE, image, pix, NULL,
                                 host, bytes, blocking, num_events,
                                 wait_list, event);
  return rt_image_enqueue_copy(q, CL_COMMAND_WRITE_IMAGE, NULL, host, image,
                               pix, bytes, blocking, num_events, wait_list,
                               event);
}

cl_int CL_API_CALL clEnqueueReadImage(
    cl_command_queue command_queue, cl_mem image, cl_bool blocking_read,
    const size_t *origin, const size_t *region, size_t row_pitch,
    size_t slice_pitch, void *ptr, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  return image_io(command_queue, image, true, blocking_read, origin, region,
                  row_pitch, slice_pitch, ptr, num_events_in_wait_list,
                  event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueWriteImage(
    cl_command_queue command_queue, cl_mem image, cl_bool blocking_write,
    const size_t *origin, const size_t *region, size_t input_row_pitch,
    size_t input_slice_pitch, const void *ptr,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
    cl_event *event) {
  return image_io(command_queue, image, false, blocking_write, origin,
                  region, input_row_pitch, input_slice_pitch, (char *)ptr,
                  num_events_in_wait_list, event_wait_list, event);
}

/* True if two boxes of the same region, at origins a and b, share a
 * pixel. */
static bool boxes_overlap(const size_t *a, const size_t *b,
                          const size_t *region) {
  for (int i = 0; i < 3; i++)
    if (a[i] >= b[i] + region[i] || b[i] >= a[i] + region[i])
      return false;
  return true;
}

cl_int CL_API_CALL clEnqueueCopyImage(cl_command_queue command_queue,
                                      cl_mem src_image, cl_mem dst_image,
                                      const size_t *src_origin,
                                      const size_t *dst_origin,
                                      const size_t *region,
                                      cl_uint num_events_in_wait_list,
                                      const cl_event *event_wait_list,
                                      cl_event *event) {
  cl_int err = check_queue_image(command_queue, src_image);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  err = check_queue_image(command_queue, dst_image);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  /* CL_IMAGE_FORMAT_MISMATCH if src_image and dst_image do not use the
   * same image format. */
  const cl_image_format *sf = &src_image->image->format,
                        *df = &dst_image->image->format;
  RT_RETURN_IF(sf->image_channel_order != df->image_channel_order ||
                   sf->image_channel_data_type != df->image_channel_data_type,
               CL_IMAGE_FORMAT_MISMATCH);
  /* CL_INVALID_VALUE if src_origin, dst_origin, or region is NULL, or a
   * region lies outside its image or breaks its type's rules. */
  RT_RETURN_IF(!region_inside(src_image, src_origin, region) ||
                   !region_inside(dst_image, dst_origin, region),
               CL_INVALID_VALUE);
  /* CL_MEM_COPY_OVERLAP if src_image and dst_image are the same image
   * object and the source and destination regions overlap. */
  RT_RETURN_IF(src_image == dst_image &&
                   boxes_overlap(src_origin, dst_origin, region),
               CL_MEM_COPY_OVERLAP);
  const size_t bytes[3] = {region[0] * src_image->image->kernel.element_size,
                           region[1], region[2]};
  return rt_image_enqueue_copy(
      command_queue, CL_COMMAND_COPY_IMAGE, src_image,
      rt_image_at(src_image, src_origin), dst_image,
      rt_image_at(dst_image, dst_origin), bytes, false,
      num_events_in_wait_list, event_wait_list, event);
}

/* The buffer side of a copy between image and buffer: the region packed
 * tightly at offset, which must fit in buffer. */
static bool buffer_side(cl_mem buffer, size_t offset, cl_mem image,
                        const size_t region[3], rt_pixels *p) {
  size_t row, slice, size, end;
  if (__builtin_mul_overflow(region[0],
                             (size_t)image->image->kernel.element_size,
                             &row) ||
      __builtin_mul_overflow(row, region[1], &slice) ||
      __builtin_mul_overflow(slice, region[2], &size) ||
      __builtin_add_overflow(offset, size, &end) || end > buffer->size)
    return false;
  p->base = buffer->data + offset;
  p->ystride = row;
  p->zstride = slice;
  return true;
}

/* The copies between an image and a buffer, in either direction
 * (to_buffer: the image is the source). */
static cl_int copy_image_buffer(cl_command_queue q, cl_mem image,
                                cl_mem buffer, const size_t *origin,
                                const size_t *region, size_t offset,
                                bool to_buffer, cl_uint num_events,
                                const cl_event *wait_list, cl_event *event) {
  RT_RETURN_IF(!rt_is(q, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  cl_int err = to_buffer ? check_queue_image(q, image)
                         : check_queue_buffer(q, buffer);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  err = to_buffer ? check_queue_buffer(q, buffer) : check_queue_image(q, image);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  /* CL_INVALID_MEM_OBJECT if the image is a 1D image buffer object
   * created from the buffer. */
  RT_RETURN_IF(image->type == CL_MEM_OBJECT_IMAGE1D_BUFFER &&
                   image->parent == buffer,
               CL_INVALID_MEM_OBJECT);
  /* CL_INVALID_VALUE if the origin or region is NULL, the image region is
   * out of bounds or breaks the type's rules, or the buffer's offset +
   * bytes lies outside the buffer. */
  RT_RETURN_IF(!region_inside(image, origin, region), CL_INVALID_VALUE);
  rt_pixels linear;
  RT_RETURN_IF(!buffer_side(buffer, offset, image, region, &linear),
               CL_INVALID_VALUE);
  const size_t bytes[3] = {linear.ystride, region[1], region[2]};
  rt_pixels pixels = rt_image_at(image, origin);
  if (to_buffer)
    return rt_image_enqueue_copy(q, CL_COMMAND_COPY_IMAGE_TO_BUFFER, image,
                                 pixels, buffer, linear, bytes, false,
                                 num_events, wait_list, event);
  return rt_image_enqueue_copy(q, CL_COMMAND_COPY_BUFFER_TO_IMAGE, buffer,
                               linear, image, pixels, bytes, false,
                               num_events, wait_list, event);
}

cl_int CL_API_CALL clEnqueueCopyImageToBuffer(
    cl_command_queue command_queue, cl_mem src_image, cl_mem dst_buffer,
    const size_t *src_origin, const size_t *region, size_t dst_offset,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
    cl_event *event) {
  return copy_image_buffer(command_queue, src_image, dst_buffer, src_origin,
                           region, dst_offset, true, num_events_in_wait_list,
                           event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueCopyBufferToImage(
    cl_command_queue command_queue, cl_mem src_buffer, cl_mem dst_image,
    size_t src_offset, const size_t *dst_origin, const size_t *region,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
    cl_event *event) {
  return copy_image_buffer(command_queue, dst_image, src_buffer, dst_origin,
                           region, src_offset, false, num_events_in_wait_list,
                           event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueFillImage(cl_command_queue command_queue,
                                      cl_mem image, const void *fill_color,
                                      const size_t *origin,
                                      const size_t *region,
                                      cl_uint num_events_in_wait_list,
                                      const cl_event *event_wait_list,
                                      cl_event *event) {
  cl_int err = check_queue_image(command_queue, image);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  /* CL_INVALID_VALUE if fill_color is NULL. */
  RT_RETURN_IF(!fill_color, CL_INVALID_VALUE);
  RT_RETURN_IF(!region_inside(image, origin, region), CL_INVALID_VALUE);
  /* The colour is converted now: the application may reuse fill_color
   * once the call returns. Host access flags do not apply to fills. */
  unsigned char pixel[16];
  rt_format_pack(&image->image->format, fill_color, pixel);
  return rt_image_enqueue_fill(command_queue, image,
                               rt_image_at(image, origin), region, pixel,
                               num_events_in_wait_list, event_wait_list,
                               event);
}

void *CL_API_CALL clEnqueueMapImage(
    cl_command_queue command_queue, cl_mem image, cl_bool blocking_map,
    cl_map_flags map_flags, const size_t *origin, const size_t *region,
    size_t *image_row_pitch, size_t *image_slice_pitch,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list,
    cl_event *event, cl_int *errcode_ret) {
  cl_int err = check_queue_image(command_queue, image);
  RT_FAIL_IF(err != CL_SUCCESS, err, errcode_ret);
  /* CL_INVALID_VALUE if origin or region is NULL, the region is out of
   * bounds or breaks the type's rules, or map_flags are not valid. */
  const cl_map_flags known =
      CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
  RT_FAIL_IF(!region_inside(image, origin, region) || (map_flags & ~known) ||
                 ((map_flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
                  (map_flags & (CL_MAP_READ | CL_MAP_WRITE))),
             CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_VALUE if image_row_pitch is NULL, or if image is a 3D
   * image, 1D or 2D image array object and image_slice_pitch is NULL. */
  RT_FAIL_IF(!image_row_pitch, CL_INVALID_VALUE, errcode_ret);
  const skein_image *k = &image->image->kernel;
  bool sliced = image->type == CL_MEM_OBJECT_IMAGE3D || is_array(image->type);
  RT_FAIL_IF(sliced && !image_slice_pitch, CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_OPERATION if image has been created with
   * CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS and CL_MAP_READ is
   * set, or with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS and
   * CL_MAP_WRITE or CL_MAP_WRITE_INVALIDATE_REGION is set. */
  RT_FAIL_IF((map_flags & CL_MAP_READ) &&
                 (image->flags &
                  (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)),
             CL_INVALID_OPERATION, errcode_ret);
  RT_FAIL_IF((map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) &&
                 (image->flags &
                  (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)),
             CL_INVALID_OPERATION, errcode_ret);
  /* Zero-copy: the image's own storage (the application's host_ptr with
   * USE_HOST_PTR) and pitches. */
  void *ptr = rt_image_at(image, origin).base;
  /* CL_INVALID_OPERATION if mapping would lead to overlapping regions
   * being mapped for writing. */
  err = rt_image_enqueue_map(
      command_queue, image, ptr, origin, region,
      map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION),
      blocking_map, num_events_in_wait_list, event_wait_list, event);
  RT_FAIL_IF(err != CL_SUCCESS, err, errcode_ret);
  *image_row_pitch = k->row_pitch;
  /* For a 1D and 2D image, zero is returned in image_slice_pitch. */
  if (image_slice_pitch)
    *image_slice_pitch = k->slice_pitch;
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return ptr;
}
