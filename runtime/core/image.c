/* This file contains image objects' behaviour: building an image's cl_mem
 * and the descriptor kernels will read, where a pixel lies, and the
 * commands that copy, fill and map pixels. Validation and error codes
 * are the entry points' (runtime/api/api_image.c). */
#include "image.h"
#include "event.h"
#include "platform.h"
#include "queue.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool rt_images_enabled(void) { return rt_device()->images; }

bool rt_is_image(const void *m) {
  return rt_is(m, RT_MEM) && ((const struct _cl_mem *)m)->image != NULL;
}

size_t rt_image_max_buffer_pixels(void) {
  /* At most INT32_MAX: a kernel addresses a 1D image buffer with an int,
   * and builtins/image.c keeps every extent and pixel index in 32 bits. */
  size_t pixels = (size_t)(rt_device()->max_mem_alloc_size / 16);
  return pixels < INT32_MAX ? pixels : INT32_MAX;
}

cl_mem rt_image_new(cl_context ctx, cl_mem_flags flags,
                    const cl_image_format *format, const cl_image_desc *desc,
                    const rt_image_layout *layout, void *host_ptr,
                    cl_int *err) {
  cl_mem m = calloc(1, sizeof *m + sizeof(rt_image));
  if (!m) {
    *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  rt_object_init(&m->obj, RT_MEM);
  m->context = ctx;
  rt_retain(ctx);
  m->type = desc->image_type;
  m->flags = flags;
  m->size = layout->size;
  pthread_mutex_init(&m->lock, NULL);
  rt_image *img = m->image = (rt_image *)(m + 1);
  img->format = *format;
  img->desc = *desc;
  skein_image *k = &img->kernel;
  k->width = layout->width;
  k->height = layout->height;
  k->depth = layout->depth;
  k->array_size = layout->array_size;
  k->row_pitch = layout->row_pitch;
  k->slice_pitch = layout->slice_pitch;
  k->element_size = (uint32_t)layout->elem_size;
  k->num_channels = layout->num_channels;
  k->channel_order = format->image_channel_order;
  k->channel_type = format->image_channel_data_type;
  k->image_type = desc->image_type;
  cl_mem from = desc->mem_object;
  if (from) {
    /* A view of a buffer's or another image's storage. */
    m->parent = from;
    rt_retain(from);
    m->data = from->data;
    if (from->flags & CL_MEM_USE_HOST_PTR)
      m->host_ptr = from->host_ptr;
  } else if (flags & CL_MEM_USE_HOST_PTR) {
    m->host_ptr = host_ptr;
    m->data = host_ptr; /* zero-copy, with the application's pitches */
  } else {
    /* Like a buffer's: aligned, with a zeroed tail (api_mem.c). */
    size_t rounded = (layout->size + RT_MEM_ZERO_TAIL + RT_MEM_ALIGN - 1) /
                     RT_MEM_ALIGN * RT_MEM_ALIGN;
    m->data = aligned_alloc(RT_MEM_ALIGN, rounded);
    if (!m->data) {
      rt_mem_release(m);
      *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
      return NULL;
    }
    m->owns_data = true;
    memset(m->data + layout->size, 0, rounded - layout->size);
    img->kernel.data = m->data;
    if (flags & CL_MEM_COPY_HOST_PTR) {
      /* The application's layout (its pitches) into the tight one. */
      const size_t origin[3] = {0, 0, 0};
      rt_pixels dst = rt_image_at(m, origin);
      rt_pixels src = {host_ptr, layout->host_ystride,
                       layout->host_zstride};
      const size_t bytes[3] = {layout->width * layout->elem_size,
                               layout->rows, layout->slices};
      rt_copy_pixels(src, dst, bytes);
    }
  }
  img->kernel.data = m->data;
  *err = CL_SUCCESS;
  return m;
}

rt_pixels rt_image_at(cl_mem m, const size_t origin[3]) {
  const skein_image *k = &m->image->kernel;
  rt_pixels p;
  /* A 1D array's layers are its region's y; every other type's y is its
   * rows and z its slices or layers. */
  if (k->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY) {
    p.ystride = k->slice_pitch;
    p.zstride = 0;
  } else {
    p.ystride = k->row_pitch;
    p.zstride = k->slice_pitch;
  }
  p.base = k->data + origin[0] * k->element_size + origin[1] * p.ystride +
           origin[2] * p.zstride;
  return p;
}

void rt_copy_pixels(rt_pixels src, rt_pixels dst, const size_t bytes[3]) {
  for (size_t z = 0; z < bytes[2]; z++)
    for (size_t y = 0; y < bytes[1]; y++)
      memmove(dst.base + z * dst.zstride + y * dst.ystride,
              src.base + z * src.zstride + y * src.ystride, bytes[0]);
}

/* A pixel command's payload. */
typedef struct image_cmd {
  cl_mem mems[2];            /* retained; either may be NULL */
  rt_pixels src, dst;
  size_t region[3];          /* copy: bytes, rows, slices; fill: pixels */
  unsigned char pixel[16];   /* fill */
  size_t pixel_size;
} image_cmd;

static cl_int run_copy(cl_event ev) {
  image_cmd *c = ev->payload;
  rt_copy_pixels(c->src, c->dst, c->region);
  return CL_SUCCESS;
}

/* Fills the first row with the pixel, then copies that row to the
 * region's other rows. */
static cl_int run_fill(cl_event ev) {
  image_cmd *c = ev->payload;
  char *row0 = c->dst.base;
  for (size_t x = 0; x < c->region[0]; x++)
    memcpy(row0 + x * c->pixel_size, c->pixel, c->pixel_size);
  size_t bytes = c->region[0] * c->pixel_size;
  for (size_t z = 0; z < c->region[2]; z++)
    for (size_t y = 0; y < c->region[1]; y++)
      if (z || y)
        memcpy(row0 + z * c->dst.zstride + y * c->dst.ystride, row0, bytes);
  return CL_SUCCESS;
}

static void free_cmd(cl_event ev) {
  image_cmd *c = ev->payload;
  if (!c)
    return;
  for (int i = 0; i < 2; i++)
    if (c->mems[i])
      rt_mem_release(c->mems[i]);
  rt_payload_free(c);
  ev->payload = NULL;
}

/* The mems an image command names, retained while it exists. */
static void hold_mems(void *payload) {
  image_cmd *c = payload;
  for (int i = 0; i < 2; i++)
    if (c->mems[i])
      rt_retain(c->mems[i]);
}

/* Creates and submits a command running run with payload c (taken over;
 * the mems it names are retained here). */
static cl_int submit(cl_command_queue q, cl_command_type type,
                     rt_command_run_fn run, image_cmd *c, bool blocking,
                     cl_uint num_events, const cl_event *wait_list,
                     cl_event *event) {
  return rt_command_enqueue(q, type, run, c, hold_mems, free_cmd, blocking,
                            num_events, wait_list, event);
}

cl_int rt_image_enqueue_copy(cl_command_queue q, cl_command_type type,
                             cl_mem src_mem, rt_pixels src, cl_mem dst_mem,
                             rt_pixels dst, const size_t bytes_region[3],
                             bool blocking, cl_uint num_events,
                             const cl_event *wait_list, cl_event *event) {
  image_cmd *c = rt_payload_alloc(sizeof *c);
  if (!c)
    return CL_OUT_OF_HOST_MEMORY;
  c->mems[0] = src_mem;
  c->mems[1] = dst_mem;
  c->src = src;
  c->dst = dst;
  memcpy(c->region, bytes_region, sizeof c->region);
  return submit(q, type, run_copy, c, blocking, num_events, wait_list, event);
}

cl_int rt_image_enqueue_fill(cl_command_queue q, cl_mem m, rt_pixels dst,
                             const size_t region[3],
                             const unsigned char *pixel, cl_uint num_events,
                             const cl_event *wait_list, cl_event *event) {
  image_cmd *c = rt_payload_alloc(sizeof *c);
  if (!c)
    return CL_OUT_OF_HOST_MEMORY;
  c->mems[1] = m;
  c->dst = dst;
  memcpy(c->region, region, sizeof c->region);
  c->pixel_size = m->image->kernel.element_size;
  memcpy(c->pixel, pixel, c->pixel_size);
  return submit(q, CL_COMMAND_FILL_IMAGE, run_fill, c, false, num_events,
                wait_list, event);
}

/* True if boxes (a, ar) and (b, br) share a pixel. */
static bool boxes_meet(const size_t *a, const size_t *ar, const size_t *b,
                       const size_t *br) {
  for (int i = 0; i < 3; i++)
    if (a[i] >= b[i] + br[i] || b[i] >= a[i] + ar[i])
      return false;
  return true;
}

cl_int rt_image_enqueue_map(cl_command_queue q, cl_mem m, void *ptr,
                            const size_t origin[3], const size_t region[3],
                            bool write, bool blocking, cl_uint num_events,
                            const cl_event *wait_list, cl_event *event) {
  rt_mapping *map = calloc(1, sizeof *map);
  image_cmd *c = rt_payload_alloc(sizeof *c);
  if (!map || !c) {
    free(map);
    rt_payload_free(c);
    return CL_OUT_OF_HOST_MEMORY;
  }
  map->ptr = ptr;
  map->write = write;
  memcpy(map->origin, origin, sizeof map->origin);
  memcpy(map->region, region, sizeof map->region);
  /* The region is claimed before the command exists, so that two
   * threads cannot both map it for writing. */
  pthread_mutex_lock(&m->lock);
  bool clash = false;
  for (rt_mapping *o = m->mappings; write && o && !clash; o = o->next)
    clash = o->write && boxes_meet(o->origin, o->region, origin, region);
  if (!clash) {
    map->next = m->mappings;
    m->mappings = map;
    m->map_count++;
  }
  pthread_mutex_unlock(&m->lock);
  if (clash) {
    free(map);
    rt_payload_free(c);
    rt_debug("%s: overlaps a region mapped for writing -> "
             "CL_INVALID_OPERATION\n", __func__);
    return CL_INVALID_OPERATION;
  }
  c->mems[1] = m; /* kept alive while the map command is pending */
  cl_int err = submit(q, CL_COMMAND_MAP_IMAGE, NULL, c, blocking, num_events,
                      wait_list, event);
  if (err != CL_SUCCESS) {
    /* Not mapped after all: the claim goes. */
    pthread_mutex_lock(&m->lock);
    rt_mapping **link = &m->mappings;
    while (*link && *link != map)
      link = &(*link)->next;
    if (*link) {
      *link = map->next;
      m->map_count--;
    }
    pthread_mutex_unlock(&m->lock);
    free(map);
  }
  return err;
}
