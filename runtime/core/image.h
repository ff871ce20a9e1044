/* This file declares image memory objects: the part of a cl_mem that only
 * images have (format, dimensions, pitches, the descriptor kernels
 * read), the image formats Skein knows and their conversions, and the
 * commands that move pixels (read, write, copy, fill, image <-> buffer).
 * Images are host memory like buffers: every map is zero-copy. */
#ifndef SKEIN_RUNTIME_IMAGE_H
#define SKEIN_RUNTIME_IMAGE_H

#include "mem.h"
#include "../../builtins/abi.h"

/* The image part of a cl_mem (cl_mem->image; NULL for buffers). Lives in
 * the same allocation as the cl_mem, freed with it. */
typedef struct rt_image {
  cl_image_format format;
  cl_image_desc desc;        /* as the application gave it, pitches 0
                                when it gave 0; mem_object = m->parent */
  skein_image kernel;        /* the descriptor kernels receive: data,
                                dimensions, storage pitches, format */
} rt_image;

/* The CL_DEVICE_IMAGE_* limits (runtime/core/image.c). Dimensions are pixels. */
#define RT_IMAGE2D_MAX 65536
#define RT_IMAGE3D_MAX 8192
#define RT_IMAGE_MAX_ARRAY 8192
#define RT_IMAGE_PITCH_ALIGN 1       /* pixels: any whole pixel pitch */
#define RT_IMAGE_BASE_ALIGN 1        /* pixels: any whole-pixel address */
#define RT_IMAGE_MAX_READ_ARGS 128
#define RT_IMAGE_MAX_WRITE_ARGS 64
#define RT_IMAGE_MAX_RW_ARGS 64
#define RT_MAX_SAMPLERS 16
/* CL_DEVICE_IMAGE_MAX_BUFFER_SIZE in pixels: what the largest buffer
 * holds of the largest (16-byte) pixels, at most INT32_MAX. */
size_t rt_image_max_buffer_pixels(void);

/* True if image support is switched on for applications (SKEIN_IMAGES=1,
 * read once when the device is first used). Without it the device
 * reports no image support and image creation fails as it always has. */
bool rt_images_enabled(void);

/* True if m is a live image object (any image type). */
bool rt_is_image(const void *m);

/* Formats (runtime/core/image_format.c). */

/* What the format tables of the API specification say about a format:
 * RT_FORMAT_INVALID (an unknown order or type, or a combination the
 * tables forbid: CL_INVALID_IMAGE_FORMAT_DESCRIPTOR), RT_FORMAT_UNSUPPORTED
 * (legal, but Skein does not implement it: CL_IMAGE_FORMAT_NOT_SUPPORTED)
 * or RT_FORMAT_OK with the pixel's size and stored channel count. */
typedef enum { RT_FORMAT_OK, RT_FORMAT_INVALID, RT_FORMAT_UNSUPPORTED }
    rt_format_status;
rt_format_status rt_format_check(const cl_image_format *f, size_t *elem_size,
                                 unsigned *num_channels);

/* True if format f (valid) can be used by an image of the given type
 * (depth images are 2D and 2D arrays only). */
bool rt_format_fits_type(const cl_image_format *f, cl_mem_object_type type);

/* Writes the formats clGetSupportedImageFormats lists for image type and
 * kernel access flags (the same formats for every access) into
 * out[0..max) and returns how many there are (all of them, even when
 * more than max). */
cl_uint rt_supported_formats(cl_mem_object_type type, cl_mem_flags flags,
                             cl_image_format *out, cl_uint max);

/* Converts clEnqueueFillImage's fill_color (float[4], int[4] or uint[4] by
 * the format's data type; one float for CL_DEPTH) into one pixel of
 * format f, as the Conversion Rules of the OpenCL C specification
 * convert what write_image{f,i,ui} writes; out receives elem_size bytes. */
void rt_format_pack(const cl_image_format *f, const void *fill_color,
                    unsigned char *out);

/* Commands (runtime/core/image.c). */

/* One side of a pixel transfer: the address of pixel (x0, y0, z0) of a
 * region and the byte distance between consecutive y and z indices (in
 * the API's region coordinates: y is the layer of a 1D array). */
typedef struct rt_pixels {
  char *base;
  size_t ystride, zstride;
} rt_pixels;

/* An image's storage layout, worked out and checked by clCreateImage. */
typedef struct rt_image_layout {
  size_t elem_size;
  unsigned num_channels;
  size_t width, height, depth, array_size;  /* as skein_image has them */
  size_t row_pitch, slice_pitch;            /* of the storage */
  size_t rows, slices;       /* the whole image as a region: y and z */
  size_t size;               /* bytes of storage (CL_MEM_SIZE) */
  size_t host_ystride, host_zstride; /* COPY_HOST_PTR: host_ptr's layout */
} rt_image_layout;

/* Creates an image object of context ctx (valid) with checked flags,
 * format, descriptor and layout: a view of desc->mem_object's storage if
 * that is set, the application's host_ptr with USE_HOST_PTR, else new
 * storage (a copy of host_ptr with COPY_HOST_PTR). Returns NULL with *err
 * set on failure. The caller owns the one reference. */
cl_mem rt_image_new(cl_context ctx, cl_mem_flags flags,
                    const cl_image_format *format, const cl_image_desc *desc,
                    const rt_image_layout *layout, void *host_ptr,
                    cl_int *err);

/* Where the API coordinate origin of image m lies: its storage address
 * and the strides of its region's y and z indices. */
rt_pixels rt_image_at(cl_mem m, const size_t origin[3]);

/* Copies region (width in bytes, rows, slices) from src to dst now,
 * row by row with memmove (the buffer commands' rectangles use it too). */
void rt_copy_pixels(rt_pixels src, rt_pixels dst, const size_t bytes[3]);

/* Enqueues the copy of region (width in bytes, rows, slices) from src to
 * dst on q, keeping src_mem and dst_mem (either may be NULL: host
 * memory) alive until it has run. Checks the wait list. */
cl_int rt_image_enqueue_copy(cl_command_queue q, cl_command_type type,
                             cl_mem src_mem, rt_pixels src, cl_mem dst_mem,
                             rt_pixels dst, const size_t bytes_region[3],
                             bool blocking, cl_uint num_events,
                             const cl_event *wait_list, cl_event *event);

/* Enqueues the fill of region (pixels) of image m, starting at dst, with
 * pixel (m's element size bytes). */
cl_int rt_image_enqueue_fill(cl_command_queue q, cl_mem m, rt_pixels dst,
                             const size_t region[3],
                             const unsigned char *pixel, cl_uint num_events,
                             const cl_event *wait_list, cl_event *event);

/* Enqueues a map command of region (origin, region) of image m
 * (zero-copy: nothing to move) and records ptr as one of m's mappings,
 * which clEnqueueUnmapMemObject removes. CL_INVALID_OPERATION if the map
 * is for writing and a live map for writing overlaps the region. */
cl_int rt_image_enqueue_map(cl_command_queue q, cl_mem m, void *ptr,
                            const size_t origin[3], const size_t region[3],
                            bool write, bool blocking, cl_uint num_events,
                            const cl_event *wait_list, cl_event *event);

#endif
