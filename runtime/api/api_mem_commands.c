/* This file contains the buffer commands: read, write, copy and fill,
 * their *Rect variants, map/unmap (zero-copy: buffers are host memory)
 * and migrate. Every transfer is a rectangle copy in the end. */
#include "../core/event.h"
#include "../core/image.h"
#include "../core/mem.h"
#include "../core/queue.h"
#include <stdlib.h>
#include <string.h>

/* A transfer between two places, each a base pointer with row and slice
 * pitches; linear transfers use a region of {size, 1, 1}. */
typedef struct mem_cmd {
  cl_mem src_mem, dst_mem;  /* retained, or NULL for host memory */
  char *src, *dst;          /* first byte of the region */
  size_t region[3];
  size_t src_row, src_slice, dst_row, dst_slice;
  unsigned char pattern[128];
  size_t pattern_size;      /* fill: > 0 */
  cl_mem unmap_mem;         /* unmap: mem whose map count drops */
} mem_cmd;

static cl_int run_copy(cl_event ev) {
  const mem_cmd *c = ev->payload;
  rt_copy_pixels((rt_pixels){c->src, c->src_row, c->src_slice},
                 (rt_pixels){c->dst, c->dst_row, c->dst_slice}, c->region);
  return CL_SUCCESS;
}

static cl_int run_fill(cl_event ev) {
  mem_cmd *c = ev->payload;
  for (size_t off = 0; off < c->region[0]; off += c->pattern_size)
    memcpy(c->dst + off, c->pattern, c->pattern_size);
  return CL_SUCCESS;
}

static cl_int run_unmap(cl_event ev) {
  mem_cmd *c = ev->payload;
  pthread_mutex_lock(&c->unmap_mem->lock);
  c->unmap_mem->map_count--;
  pthread_mutex_unlock(&c->unmap_mem->lock);
  return CL_SUCCESS;
}

static void free_cmd(cl_event ev) {
  mem_cmd *c = ev->payload;
  if (!c)
    return;
  if (c->src_mem)
    rt_mem_release(c->src_mem);
  if (c->dst_mem)
    rt_mem_release(c->dst_mem);
  if (c->unmap_mem)
    rt_mem_release(c->unmap_mem);
  rt_payload_free(c);
  ev->payload = NULL;
}

/* The mems a buffer command names, retained while it exists. */
static void hold_mems(void *payload) {
  mem_cmd *c = payload;
  if (c->src_mem)
    rt_retain(c->src_mem);
  if (c->dst_mem)
    rt_retain(c->dst_mem);
  if (c->unmap_mem)
    rt_retain(c->unmap_mem);
}

/* Creates, fills in and submits a command running run with payload c
 * (which it takes over, retaining the mems it names). */
static cl_int submit(cl_command_queue q, cl_command_type type,
                     rt_command_run_fn run, mem_cmd *c, bool blocking,
                     cl_uint num_events, const cl_event *wait_list,
                     cl_event *event) {
  return rt_command_enqueue(q, type, run, c, hold_mems, free_cmd, blocking,
                            num_events, wait_list, event);
}

/* The checks every buffer command shares for queue and one buffer. */
static cl_int check_queue_mem(cl_command_queue q, cl_mem m) {
  RT_RETURN_IF(!rt_is(q, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  RT_RETURN_IF(!rt_is(m, RT_MEM) || m->type != CL_MEM_OBJECT_BUFFER,
               CL_INVALID_MEM_OBJECT);
  /* CL_INVALID_CONTEXT if the context associated with command_queue and
   * buffer are not the same. */
  RT_RETURN_IF(q->context != m->context, CL_INVALID_CONTEXT);
  return CL_SUCCESS;
}

/* CL_INVALID_VALUE if the region being read or written specified by
 * (offset, size) is out of bounds. A size of 0 is no error since OpenCL
 * 2.1 (the 1.2 and 2.0 lists had "or if size is 0"; 3.0 has not, for
 * read, write, copy and fill): such a command copies nothing. */
static bool range_ok(cl_mem m, size_t offset, size_t size) {
  return offset <= m->size && size <= m->size - offset;
}

/* CL_INVALID_OPERATION if clEnqueueReadBuffer is called on buffer which
 * has been created with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS
 * (and the converse for writes). */
static bool host_may_read(cl_mem m) {
  return !(m->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS));
}
static bool host_may_write(cl_mem m) {
  return !(m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS));
}

static mem_cmd *linear_cmd(size_t size) {
  mem_cmd *c = rt_payload_alloc(sizeof *c);
  if (c) {
    c->region[0] = size;
    c->region[1] = c->region[2] = 1;
  }
  return c;
}

/* Read and write share everything but the direction. */
static cl_int buffer_io(cl_command_queue q, cl_mem buffer, bool read,
                        cl_bool blocking, size_t offset, size_t size,
                        char *ptr, cl_uint num_events,
                        const cl_event *wait_list, cl_event *event) {
  cl_int err = check_queue_mem(q, buffer);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  RT_RETURN_IF(!range_ok(buffer, offset, size) || !ptr, CL_INVALID_VALUE);
  RT_RETURN_IF(read ? !host_may_read(buffer) : !host_may_write(buffer),
               CL_INVALID_OPERATION);
  mem_cmd *c = linear_cmd(size);
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  if (read) {
    c->src_mem = buffer;
    c->src = buffer->data + offset;
    c->dst = ptr;
  } else {
    c->dst_mem = buffer;
    c->dst = buffer->data + offset;
    c->src = ptr;
  }
  return submit(q, read ? CL_COMMAND_READ_BUFFER : CL_COMMAND_WRITE_BUFFER,
                run_copy, c, blocking, num_events, wait_list, event);
}

cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue q, cl_mem buffer,
                                       cl_bool blocking, size_t offset,
                                       size_t size, void *ptr,
                                       cl_uint num_events,
                                       const cl_event *wait_list,
                                       cl_event *event) {
  return buffer_io(q, buffer, true, blocking, offset, size, ptr, num_events,
                   wait_list, event);
}

cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue q, cl_mem buffer,
                                        cl_bool blocking, size_t offset,
                                        size_t size, const void *ptr,
                                        cl_uint num_events,
                                        const cl_event *wait_list,
                                        cl_event *event) {
  return buffer_io(q, buffer, false, blocking, offset, size, (char *)ptr,
                   num_events, wait_list, event);
}

/* The root buffer and absolute offset of m's byte at offset. */
static cl_mem root_of(cl_mem m, size_t *offset) {
  *offset += m->origin;
  return m->parent ? m->parent : m;
}

static bool overlap(size_t a, size_t b, size_t size) {
  return a < b + size && b < a + size;
}

cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue q, cl_mem src,
                                       cl_mem dst, size_t src_offset,
                                       size_t dst_offset, size_t size,
                                       cl_uint num_events,
                                       const cl_event *wait_list,
                                       cl_event *event) {
  cl_int err = check_queue_mem(q, src);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  err = check_queue_mem(q, dst);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  RT_RETURN_IF(!range_ok(src, src_offset, size) ||
                   !range_ok(dst, dst_offset, size),
               CL_INVALID_VALUE);
  /* CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer
   * or sub-buffer object (or share a parent) and the source and
   * destination regions overlap. */
  size_t a = src_offset, b = dst_offset;
  RT_RETURN_IF(root_of(src, &a) == root_of(dst, &b) && overlap(a, b, size),
               CL_MEM_COPY_OVERLAP);
  mem_cmd *c = linear_cmd(size);
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  c->src_mem = src;
  c->dst_mem = dst;
  c->src = src->data + src_offset;
  c->dst = dst->data + dst_offset;
  return submit(q, CL_COMMAND_COPY_BUFFER, run_copy, c, false, num_events,
                wait_list, event);
}

cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue q, cl_mem buffer,
                                       const void *pattern,
                                       size_t pattern_size, size_t offset,
                                       size_t size, cl_uint num_events,
                                       const cl_event *wait_list,
                                       cl_event *event) {
  cl_int err = check_queue_mem(q, buffer);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  /* CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if
   * pattern_size is not one of { 1, 2, 4, 8, 16, 32, 64, 128 }. */
  RT_RETURN_IF(!pattern || pattern_size == 0 || pattern_size > 128 ||
                   (pattern_size & (pattern_size - 1)),
               CL_INVALID_VALUE);
  /* CL_INVALID_VALUE if offset and size are not a multiple of
   * pattern_size, or the region is out of bounds. */
  RT_RETURN_IF(offset % pattern_size || size % pattern_size,
               CL_INVALID_VALUE);
  RT_RETURN_IF(!range_ok(buffer, offset, size), CL_INVALID_VALUE);
  mem_cmd *c = linear_cmd(size);
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  c->dst_mem = buffer;
  c->dst = buffer->data + offset;
  memcpy(c->pattern, pattern, pattern_size);
  c->pattern_size = pattern_size;
  return submit(q, CL_COMMAND_FILL_BUFFER, run_fill, c, false, num_events,
                wait_list, event);
}

/* z * slice + y * row + x in *out; false if it does not fit in size_t.
 * Origins and pitches come from the application: a sum that wrapped
 * would pass the bounds check and address memory outside the buffer
 * (origin[1] = 1, row_pitch = 2^63 read far past it; the read crashed). */
static bool rect_byte(size_t x, size_t y, size_t z, size_t row, size_t slice,
                      size_t *out) {
  size_t zs, yr;
  return !__builtin_mul_overflow(z, slice, &zs) &&
         !__builtin_mul_overflow(y, row, &yr) &&
         !__builtin_add_overflow(zs, yr, out) &&
         !__builtin_add_overflow(*out, x, out);
}

/* Fills in pitches the caller gave as 0 and checks them and the region
 * (no element 0) against a buffer of size bytes (size 0: host memory,
 * unbounded). Stores the byte offset of origin in *start; false when
 * invalid. */
static bool rect_offset(const size_t origin[3], const size_t region[3],
                        size_t *row, size_t *slice, size_t size,
                        size_t *start) {
  if (*row == 0)
    *row = region[0];
  size_t min_slice;
  if (__builtin_mul_overflow(region[1], *row, &min_slice))
    return false;
  if (*slice == 0)
    *slice = min_slice;
  /* CL_INVALID_VALUE if row_pitch is not 0 and is less than region[0];
   * if slice_pitch is not 0 and is less than region[1] * row_pitch; if
   * slice_pitch is not 0 and is not a multiple of row_pitch. */
  if (*row < region[0] || *slice < min_slice || *slice % *row)
    return false;
  /* CL_INVALID_VALUE if the region is out of bounds: one past its last
   * byte, (origin + region - 1) in y and z, origin + region in x. */
  size_t last_x, last_y, last_z, end;
  if (__builtin_add_overflow(origin[0], region[0], &last_x) ||
      __builtin_add_overflow(origin[1], region[1] - 1, &last_y) ||
      __builtin_add_overflow(origin[2], region[2] - 1, &last_z) ||
      !rect_byte(last_x, last_y, last_z, *row, *slice, &end))
    return false;
  if (size && end > size)
    return false;
  return rect_byte(origin[0], origin[1], origin[2], *row, *slice, start);
}

static bool region_ok(const size_t *region) {
  return region && region[0] && region[1] && region[2];
}

/* Read and write rect share everything but the direction. */
static cl_int buffer_rect_io(cl_command_queue q, cl_mem buffer, bool read,
                             cl_bool blocking, const size_t *buffer_origin,
                             const size_t *host_origin, const size_t *region,
                             size_t buffer_row, size_t buffer_slice,
                             size_t host_row, size_t host_slice, char *ptr,
                             cl_uint num_events, const cl_event *wait_list,
                             cl_event *event) {
  cl_int err = check_queue_mem(q, buffer);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  RT_RETURN_IF(!ptr || !buffer_origin || !host_origin || !region_ok(region),
               CL_INVALID_VALUE);
  size_t boff, hoff;
  RT_RETURN_IF(!rect_offset(buffer_origin, region, &buffer_row,
                            &buffer_slice, buffer->size, &boff) ||
                   !rect_offset(host_origin, region, &host_row, &host_slice,
                                0, &hoff),
               CL_INVALID_VALUE);
  RT_RETURN_IF(read ? !host_may_read(buffer) : !host_may_write(buffer),
               CL_INVALID_OPERATION);
  mem_cmd *c = rt_payload_alloc(sizeof *c);
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  memcpy(c->region, region, sizeof c->region);
  if (read) {
    c->src_mem = buffer;
    c->src = buffer->data + boff, c->src_row = buffer_row,
    c->src_slice = buffer_slice;
    c->dst = ptr + hoff, c->dst_row = host_row, c->dst_slice = host_slice;
  } else {
    c->dst_mem = buffer;
    c->dst = buffer->data + boff, c->dst_row = buffer_row,
    c->dst_slice = buffer_slice;
    c->src = ptr + hoff, c->src_row = host_row, c->src_slice = host_slice;
  }
  return submit(q, read ? CL_COMMAND_READ_BUFFER_RECT
                        : CL_COMMAND_WRITE_BUFFER_RECT,
                run_copy, c, blocking, num_events, wait_list, event);
}

cl_int CL_API_CALL clEnqueueReadBufferRect(
    cl_command_queue q, cl_mem buffer, cl_bool blocking,
    const size_t *buffer_origin, const size_t *host_origin,
    const size_t *region, size_t buffer_row_pitch, size_t buffer_slice_pitch,
    size_t host_row_pitch, size_t host_slice_pitch, void *ptr,
    cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  return buffer_rect_io(q, buffer, true, blocking, buffer_origin, host_origin,
                        region, buffer_row_pitch, buffer_slice_pitch,
                        host_row_pitch, host_slice_pitch, ptr, num_events,
                        wait_list, event);
}

cl_int CL_API_CALL clEnqueueWriteBufferRect(
    cl_command_queue q, cl_mem buffer, cl_bool blocking,
    const size_t *buffer_origin, const size_t *host_origin,
    const size_t *region, size_t buffer_row_pitch, size_t buffer_slice_pitch,
    size_t host_row_pitch, size_t host_slice_pitch, const void *ptr,
    cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  return buffer_rect_io(q, buffer, false, blocking, buffer_origin,
                        host_origin, region, buffer_row_pitch,
                        buffer_slice_pitch, host_row_pitch, host_slice_pitch,
                        (char *)ptr, num_events, wait_list, event);
}

/* Floor and ceiling of n / d for d > 0, n of either sign. */
static long long div_floor(long long n, long long d) {
  return n / d - (n % d != 0 && n < 0);
}
static long long div_ceil(long long n, long long d) {
  return n / d + (n % d != 0 && n > 0);
}

/* True if two rectangles with the same pitches, starting at byte offsets
 * a and b, share a byte. Row (y1, z1) of one and row (y2, z2) of the other
 * overlap iff |b - a + dz * slice + dy * row| < width with dz = z2 - z1,
 * dy = y2 - y1; for each dz the dy that qualify form an interval, so the
 * test is exact in O(depth) steps. Sizes are bounded by buffer sizes, so
 * the arithmetic fits in 64 bits. */
static bool rects_overlap(size_t a, size_t b, const size_t region[3],
                          size_t row, size_t slice) {
  long long d = (long long)b - (long long)a, w = (long long)region[0];
  long long ymax = (long long)region[1] - 1, zmax = (long long)region[2] - 1;
  for (long long dz = -zmax; dz <= zmax; dz++) {
    long long base = d + dz * (long long)slice;
    /* -w < base + dy * row < w, i.e. dy in the open interval below. */
    long long lo = div_floor(-w - base, (long long)row) + 1;
    long long hi = div_ceil(w - base, (long long)row) - 1;
    if (lo < -ymax)
      lo = -ymax;
    if (hi > ymax)
      hi = ymax;
    if (lo <= hi)
      return true;
  }
  return false;
}

/* A rectangle in a buffer: its first byte and pitches. */
typedef struct rect_shape {
  size_t start, row, slice;
} rect_shape;

/* True if the row of width w at byte s shares a byte with rectangle b of
 * the given region. b's slices occupy disjoint, ascending byte ranges
 * (slice >= region[1] * row >= (region[1] - 1) * row + w), so at most two
 * slices can meet the row; within a slice, the rows that do form an
 * interval, found as in rects_overlap. */
static bool row_meets_rect(long long s, long long w, const rect_shape *b,
                           const size_t region[3]) {
  long long row = (long long)b->row, slice = (long long)b->slice;
  long long extent = ((long long)region[1] - 1) * row + w;
  long long d = s - (long long)b->start;
  long long zlo = div_ceil(d - extent + 1, slice);
  long long zhi = div_floor(d + w - 1, slice);
  if (zlo < 0)
    zlo = 0;
  if (zhi > (long long)region[2] - 1)
    zhi = (long long)region[2] - 1;
  for (long long z = zlo; z <= zhi; z++) {
    long long base = d - z * slice; /* s relative to slice z's first row */
    long long lo = div_floor(base - w, row) + 1;
    long long hi = div_ceil(base + w, row) - 1;
    if (lo < 0)
      lo = 0;
    if (hi > (long long)region[1] - 1)
      hi = (long long)region[1] - 1;
    if (lo <= hi)
      return true;
  }
  return false;
}

/* True if two rectangles of the same region in one buffer share a byte.
 * Equal pitches: rects_overlap, O(depth). Different pitches (different
 * sub-buffers of one buffer): every row of a against b, O(rows), after a
 * check of the byte ranges they span, which settles the common case. */
static bool rect_shapes_overlap(const rect_shape *a, const rect_shape *b,
                                const size_t region[3]) {
  if (a->row == b->row && a->slice == b->slice)
    return rects_overlap(a->start, b->start, region, a->row, a->slice);
  size_t a_end = a->start + (region[2] - 1) * a->slice +
                 (region[1] - 1) * a->row + region[0];
  size_t b_end = b->start + (region[2] - 1) * b->slice +
                 (region[1] - 1) * b->row + region[0];
  if (a_end <= b->start || b_end <= a->start)
    return false;
  for (size_t z = 0; z < region[2]; z++)
    for (size_t y = 0; y < region[1]; y++)
      if (row_meets_rect((long long)(a->start + z * a->slice + y * a->row),
                         (long long)region[0], b, region))
        return true;
  return false;
}

cl_int CL_API_CALL clEnqueueCopyBufferRect(
    cl_command_queue q, cl_mem src, cl_mem dst, const size_t *src_origin,
    const size_t *dst_origin, const size_t *region, size_t src_row_pitch,
    size_t src_slice_pitch, size_t dst_row_pitch, size_t dst_slice_pitch,
    cl_uint num_events, const cl_event *wait_list, cl_event *event) {
  cl_int err = check_queue_mem(q, src);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  err = check_queue_mem(q, dst);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  RT_RETURN_IF(!src_origin || !dst_origin || !region_ok(region),
               CL_INVALID_VALUE);
  size_t soff, doff;
  RT_RETURN_IF(!rect_offset(src_origin, region, &src_row_pitch,
                            &src_slice_pitch, src->size, &soff) ||
                   !rect_offset(dst_origin, region, &dst_row_pitch,
                                &dst_slice_pitch, dst->size, &doff),
               CL_INVALID_VALUE);
  /* CL_INVALID_VALUE if src_buffer and dst_buffer are the same buffer
   * object and src_row_pitch is not equal to dst_row_pitch, or
   * src_slice_pitch is not equal to dst_slice_pitch. */
  RT_RETURN_IF(src == dst && (src_slice_pitch != dst_slice_pitch ||
                              src_row_pitch != dst_row_pitch),
               CL_INVALID_VALUE);
  /* CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer
   * or sub-buffer object and the source and destination regions overlap,
   * or if they are different sub-buffers of the same buffer and the
   * regions overlap (exactly: interleaved rows that share no byte do
   * not). Offsets are taken in the root buffer. */
  size_t sabs = soff, dabs = doff;
  if (root_of(src, &sabs) == root_of(dst, &dabs)) {
    const rect_shape s_shape = {sabs, src_row_pitch, src_slice_pitch};
    const rect_shape d_shape = {dabs, dst_row_pitch, dst_slice_pitch};
    RT_RETURN_IF(rect_shapes_overlap(&s_shape, &d_shape, region),
                 CL_MEM_COPY_OVERLAP);
  }
  mem_cmd *c = rt_payload_alloc(sizeof *c);
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  memcpy(c->region, region, sizeof c->region);
  c->src_mem = src;
  c->dst_mem = dst;
  c->src = src->data + soff, c->src_row = src_row_pitch,
  c->src_slice = src_slice_pitch;
  c->dst = dst->data + doff, c->dst_row = dst_row_pitch,
  c->dst_slice = dst_slice_pitch;
  return submit(q, CL_COMMAND_COPY_BUFFER_RECT, run_copy, c, false,
                num_events, wait_list, event);
}

void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue q, cl_mem buffer,
                                     cl_bool blocking, cl_map_flags flags,
                                     size_t offset, size_t size,
                                     cl_uint num_events,
                                     const cl_event *wait_list,
                                     cl_event *event, cl_int *errcode_ret) {
  cl_int err = check_queue_mem(q, buffer);
  RT_FAIL_IF(err != CL_SUCCESS, err, errcode_ret);
  /* CL_INVALID_VALUE if region being mapped given by (offset, size) is
   * out of bounds or if size is 0 or if values specified in map_flags are
   * not valid. */
  const cl_map_flags known =
      CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
  RT_FAIL_IF(!range_ok(buffer, offset, size) || size == 0 ||
                 (flags & ~known) ||
                 ((flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
                  (flags & (CL_MAP_READ | CL_MAP_WRITE))),
             CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_OPERATION if buffer has been created with
   * CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS and CL_MAP_READ is
   * set, or with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS and
   * CL_MAP_WRITE or CL_MAP_WRITE_INVALIDATE_REGION is set. */
  RT_FAIL_IF((flags & CL_MAP_READ) && !host_may_read(buffer),
             CL_INVALID_OPERATION, errcode_ret);
  RT_FAIL_IF((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) &&
                 !host_may_write(buffer),
             CL_INVALID_OPERATION, errcode_ret);
  rt_mapping *map = malloc(sizeof *map);
  mem_cmd *c = rt_payload_alloc(sizeof *c);
  if (!map || !c) {
    free(map);
    rt_payload_free(c);
    RT_FAIL_IF(true, CL_OUT_OF_HOST_MEMORY, errcode_ret);
  }
  /* Zero-copy: the mapped pointer is the buffer's own memory. */
  map->ptr = buffer->data + offset;
  c->dst_mem = buffer; /* kept alive while the map command is pending */
  err = submit(q, CL_COMMAND_MAP_BUFFER, NULL, c, blocking, num_events,
               wait_list, event);
  if (err != CL_SUCCESS) {
    free(map);
    RT_FAIL_IF(true, err, errcode_ret);
  }
  pthread_mutex_lock(&buffer->lock);
  map->next = buffer->mappings;
  buffer->mappings = map;
  buffer->map_count++;
  pthread_mutex_unlock(&buffer->lock);
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return map->ptr;
}

cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue q, cl_mem memobj,
                                           void *mapped_ptr,
                                           cl_uint num_events,
                                           const cl_event *wait_list,
                                           cl_event *event) {
  RT_RETURN_IF(!rt_is(q, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  RT_RETURN_IF(!rt_is(memobj, RT_MEM), CL_INVALID_MEM_OBJECT);
  RT_RETURN_IF(q->context != memobj->context, CL_INVALID_CONTEXT);
  cl_int err = rt_check_wait_list(q->context, num_events, wait_list);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  /* The payload comes first, and the mapping goes back on the list if
   * the command cannot be created: a failed call must leave the mapping
   * for the application to unmap later. */
  mem_cmd *c = rt_payload_alloc(sizeof *c);
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  pthread_mutex_lock(&memobj->lock);
  rt_mapping **link = &memobj->mappings;
  while (*link && (*link)->ptr != mapped_ptr)
    link = &(*link)->next;
  rt_mapping *found = *link;
  if (found)
    *link = found->next;
  pthread_mutex_unlock(&memobj->lock);
  /* CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned by
   * clEnqueueMapBuffer or clEnqueueMapImage for memobj. */
  if (!found) {
    rt_payload_free(c);
    RT_FAIL(CL_INVALID_VALUE);
  }
  c->unmap_mem = memobj;
  err = submit(q, CL_COMMAND_UNMAP_MEM_OBJECT, run_unmap, c, false,
               num_events, wait_list, event);
  if (err != CL_SUCCESS) {
    pthread_mutex_lock(&memobj->lock);
    found->next = memobj->mappings;
    memobj->mappings = found;
    pthread_mutex_unlock(&memobj->lock);
    return err;
  }
  free(found);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clEnqueueMigrateMemObjects(
    cl_command_queue q, cl_uint num_mem_objects, const cl_mem *mem_objects,
    cl_mem_migration_flags flags, cl_uint num_events,
    const cl_event *wait_list, cl_event *event) {
  RT_RETURN_IF(!rt_is(q, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is
   * NULL, or if flags is not 0 or any of the values described. */
  RT_RETURN_IF(num_mem_objects == 0 || !mem_objects, CL_INVALID_VALUE);
  RT_RETURN_IF(flags & ~(cl_mem_migration_flags)(
                           CL_MIGRATE_MEM_OBJECT_HOST |
                           CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED),
               CL_INVALID_VALUE);
  for (cl_uint i = 0; i < num_mem_objects; i++) {
    RT_RETURN_IF(!rt_is(mem_objects[i], RT_MEM), CL_INVALID_MEM_OBJECT);
    RT_RETURN_IF(mem_objects[i]->context != q->context, CL_INVALID_CONTEXT);
  }
  /* Host memory is already where every device and the host see it: the
   * command only orders. */
  mem_cmd *c = rt_payload_alloc(sizeof *c);
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  return submit(q, CL_COMMAND_MIGRATE_MEM_OBJECTS, NULL, c, false,
                num_events, wait_list, event);
}
