/* This file contains the error table's rows for the commands (buffer
 * reads, writes, copies, fills, maps and their *Rect forms, migration,
 * NDRange kernels and tasks, markers and barriers), the event entry
 * points, and the entry points of features the device does not report
 * (images and samplers with SKEIN_IMAGES=0, whose image-enabled errors
 * are test-images-errors'; native kernels, which icd/missing.c
 * answers; pipes, whose own errors are test-pipes'), each with the code
 * docs/features.md and the
 * OpenCL 3.0 specification name for a device without the feature.
 * Every enqueue passes &f->ev_out, which a failed call must not write. */
#include "api_errors.h"

/* ---- Buffer reads and writes -------------------------------------------- */

static cl_int read_buf(fixture *f, cl_command_queue q, cl_mem m,
                       cl_bool blocking, size_t offset, size_t size, void *p,
                       cl_uint n, const cl_event *list) {
  return clEnqueueReadBuffer(q, m, blocking, offset, size, p, n, list,
                             &f->ev_out);
}
static cl_int write_buf(fixture *f, cl_command_queue q, cl_mem m,
                        cl_bool blocking, size_t offset, size_t size,
                        const void *p, cl_uint n, const cl_event *list) {
  return clEnqueueWriteBuffer(q, m, blocking, offset, size, p, n, list,
                              &f->ev_out);
}
static cl_int read_wrong_queue(fixture *f) {
  return read_buf(f, WRONG(cl_command_queue, f), f->buf, CL_TRUE, 0, 16, f->out,
                  0, NULL);
}
static cl_int read_wrong_mem(fixture *f) {
  return read_buf(f, f->env.queue, WRONG(cl_mem, f), CL_TRUE, 0, 16, f->out, 0,
                  NULL);
}
static cl_int read_null_mem(fixture *f) {
  return read_buf(f, f->env.queue, NULL, CL_TRUE, 0, 16, f->out, 0, NULL);
}
static cl_int read_other_context(fixture *f) {
  return read_buf(f, f->env.queue, f->other_buf, CL_TRUE, 0, 16, f->out, 0,
                  NULL);
}
static cl_int read_past_end(fixture *f) {
  return read_buf(f, f->env.queue, f->buf, CL_TRUE, BUF_SIZE - 8, 16, f->out, 0,
                  NULL);
}
static cl_int read_offset_past_end(fixture *f) {
  return read_buf(f, f->env.queue, f->buf, CL_TRUE, BUF_SIZE + 1, 0, f->out, 0,
                  NULL);
}
static cl_int read_size_wraps(fixture *f) {
  return read_buf(f, f->env.queue, f->buf, CL_TRUE, 16, SIZE_MAX - 8, f->out, 0,
                  NULL);
}
static cl_int read_sub_past_end(fixture *f) {
  /* sub_a is 256 bytes into a larger parent: its own size bounds it. */
  return read_buf(f, f->env.queue, f->sub_a, CL_TRUE, 200, 64, f->out, 0, NULL);
}
static cl_int read_null_ptr(fixture *f) {
  return read_buf(f, f->env.queue, f->buf, CL_TRUE, 0, 16, NULL, 0, NULL);
}
static cl_int read_host_write_only(fixture *f) {
  return read_buf(f, f->env.queue, f->host_wo, CL_TRUE, 0, 16, f->out, 0, NULL);
}
static cl_int read_host_no_access(fixture *f) {
  return read_buf(f, f->env.queue, f->host_none, CL_TRUE, 0, 16, f->out, 0,
                  NULL);
}
static cl_int read_failed_wait_list(fixture *f) {
  return read_buf(f, f->env.queue, f->buf, CL_TRUE, 0, 16, f->out, 1,
                  &f->failed_ev);
}
static cl_int read_size_zero(fixture *f) {
  return read_buf(f, f->env.queue, f->buf, CL_TRUE, 8, 0, f->out, 0, NULL);
}
static cl_int read_size_zero_at_end(fixture *f) {
  return read_buf(f, f->env.queue, f->buf, CL_TRUE, BUF_SIZE, 0, f->out, 0,
                  NULL);
}
static cl_int write_past_end(fixture *f) {
  return write_buf(f, f->env.queue, f->buf, CL_TRUE, BUF_SIZE - 8, 16, f->out,
                   0, NULL);
}
static cl_int write_null_ptr(fixture *f) {
  return write_buf(f, f->env.queue, f->buf, CL_TRUE, 0, 16, NULL, 0, NULL);
}
static cl_int write_host_read_only(fixture *f) {
  return write_buf(f, f->env.queue, f->host_ro, CL_TRUE, 0, 16, f->out, 0,
                   NULL);
}
static cl_int write_host_no_access(fixture *f) {
  return write_buf(f, f->env.queue, f->host_none, CL_TRUE, 0, 16, f->out, 0,
                   NULL);
}
static cl_int write_other_context(fixture *f) {
  return write_buf(f, f->env.queue, f->other_buf, CL_TRUE, 0, 16, f->out, 0,
                   NULL);
}
static cl_int write_failed_wait_list(fixture *f) {
  return write_buf(f, f->env.queue, f->buf, CL_TRUE, 0, 16, f->out, 1,
                   &f->failed_ev);
}
static cl_int write_size_zero(fixture *f) {
  return write_buf(f, f->env.queue, f->buf, CL_FALSE, 0, 0, f->out, 0, NULL);
}

/* ---- Rectangles ---------------------------------------------------------- */

typedef struct rect {
  size_t buffer_origin[3], host_origin[3], region[3];
  size_t buffer_row, buffer_slice, host_row, host_slice;
} rect;

/* A valid rectangle: 8 x 2 x 2 bytes at (8, 1, 1) of a 32 x 8 buffer
 * view, packed on the host side (32 bytes of f->out). */
static rect valid_rect(void) {
  rect r = {{8, 1, 1}, {0, 0, 0}, {8, 2, 2}, 32, 256, 0, 0};
  return r;
}
static cl_int read_rect(fixture *f, cl_mem m, const rect *r, void *p) {
  return clEnqueueReadBufferRect(f->env.queue, m, CL_TRUE, r->buffer_origin,
                                 r->host_origin, r->region, r->buffer_row,
                                 r->buffer_slice, r->host_row, r->host_slice, p,
                                 0, NULL, &f->ev_out);
}
static cl_int write_rect(fixture *f, cl_mem m, const rect *r, const void *p) {
  return clEnqueueWriteBufferRect(f->env.queue, m, CL_TRUE, r->buffer_origin,
                                  r->host_origin, r->region, r->buffer_row,
                                  r->buffer_slice, r->host_row, r->host_slice,
                                  p, 0, NULL, &f->ev_out);
}
static cl_int read_rect_valid(fixture *f) {
  rect r = valid_rect();
  return read_rect(f, f->buf, &r, f->out);
}
static cl_int read_rect_null_origin(fixture *f) {
  rect r = valid_rect();
  return clEnqueueReadBufferRect(
      f->env.queue, f->buf, CL_TRUE, NULL, r.host_origin, r.region,
      r.buffer_row, r.buffer_slice, 0, 0, f->out, 0, NULL, &f->ev_out);
}
static cl_int read_rect_null_host_origin(fixture *f) {
  rect r = valid_rect();
  return clEnqueueReadBufferRect(f->env.queue, f->buf, CL_TRUE, r.buffer_origin,
                                 NULL, r.region, r.buffer_row, r.buffer_slice,
                                 0, 0, f->out, 0, NULL, &f->ev_out);
}
static cl_int read_rect_null_region(fixture *f) {
  rect r = valid_rect();
  return clEnqueueReadBufferRect(
      f->env.queue, f->buf, CL_TRUE, r.buffer_origin, r.host_origin, NULL,
      r.buffer_row, r.buffer_slice, 0, 0, f->out, 0, NULL, &f->ev_out);
}
static cl_int read_rect_region_zero(fixture *f) {
  rect r = valid_rect();
  r.region[1] = 0;
  return read_rect(f, f->buf, &r, f->out);
}
static cl_int read_rect_row_pitch_small(fixture *f) {
  rect r = valid_rect();
  r.buffer_row = 4; /* < region[0] */
  return read_rect(f, f->buf, &r, f->out);
}
static cl_int read_rect_slice_pitch_small(fixture *f) {
  rect r = valid_rect();
  r.buffer_slice = 32; /* < region[1] * buffer_row_pitch = 64 */
  return read_rect(f, f->buf, &r, f->out);
}
static cl_int read_rect_slice_not_multiple(fixture *f) {
  rect r = valid_rect();
  r.buffer_slice = 100; /* not a multiple of 32 */
  return read_rect(f, f->buf, &r, f->out);
}
static cl_int read_rect_host_row_small(fixture *f) {
  rect r = valid_rect();
  r.host_row = 4;
  return read_rect(f, f->buf, &r, f->out);
}
static cl_int read_rect_host_slice_small(fixture *f) {
  rect r = valid_rect();
  r.host_row = 8;
  r.host_slice = 8;
  return read_rect(f, f->buf, &r, f->out);
}
static cl_int read_rect_host_slice_not_multiple(fixture *f) {
  rect r = valid_rect();
  r.host_row = 8;
  r.host_slice = 20;
  return read_rect(f, f->buf, &r, f->out);
}
static cl_int read_rect_out_of_bounds(fixture *f) {
  rect r = valid_rect();
  r.buffer_origin[2] = 3; /* slices 3 and 4 of 256 bytes: past 1024 */
  return read_rect(f, f->buf, &r, f->out);
}
static cl_int read_rect_origin_wraps(fixture *f) {
  /* origin[0] = SIZE_MAX: the end offset wraps to 0 if computed naively. */
  rect r = {{SIZE_MAX, 0, 0}, {0, 0, 0}, {1, 1, 1}, 0, 0, 0, 0};
  return read_rect(f, f->buf, &r, f->out);
}
static cl_int read_rect_slice_wraps(fixture *f) {
  rect r = {{0, 0, SIZE_MAX / 16}, {0, 0, 0}, {16, 1, 1}, 16, 16, 0, 0};
  return read_rect(f, f->buf, &r, f->out);
}
static cl_int read_rect_row_wraps(fixture *f) {
  size_t row = SIZE_MAX / 2 + 1;
  rect r = {{0, 0, 0}, {0, 0, 0}, {1, 3, 1}, row, 0, 0, 0};
  return read_rect(f, f->buf, &r, f->out);
}
static cl_int read_rect_host_write_only(fixture *f) {
  rect r = valid_rect();
  return read_rect(f, f->host_wo, &r, f->out);
}
static cl_int read_rect_null_ptr(fixture *f) {
  rect r = valid_rect();
  return read_rect(f, f->buf, &r, NULL);
}
static cl_int read_rect_other_context(fixture *f) {
  rect r = valid_rect();
  return read_rect(f, f->other_buf, &r, f->out);
}
static cl_int write_rect_wraps(fixture *f) {
  /* The write form of read_rect_origin_wraps: accepting it would write
   * one byte before the buffer. */
  rect r = {{SIZE_MAX, 0, 0}, {0, 0, 0}, {1, 1, 1}, 0, 0, 0, 0};
  return write_rect(f, f->buf, &r, f->out);
}
static cl_int write_rect_slice_wraps(fixture *f) {
  rect r = {{0, 0, SIZE_MAX / 16}, {0, 0, 0}, {16, 1, 1}, 16, 16, 0, 0};
  return write_rect(f, f->buf, &r, f->out);
}
static cl_int write_rect_host_read_only(fixture *f) {
  rect r = valid_rect();
  return write_rect(f, f->host_ro, &r, f->out);
}
static cl_int write_rect_region_zero(fixture *f) {
  rect r = valid_rect();
  r.region[2] = 0;
  return write_rect(f, f->buf, &r, f->out);
}

/* ---- Copies ----------------------------------------------------------------
 */

static cl_int copy(fixture *f, cl_command_queue q, cl_mem src, cl_mem dst,
                   size_t src_offset, size_t dst_offset, size_t size) {
  return clEnqueueCopyBuffer(q, src, dst, src_offset, dst_offset, size, 0, NULL,
                             &f->ev_out);
}
static cl_int copy_wrong_src(fixture *f) {
  return copy(f, f->env.queue, WRONG(cl_mem, f), f->buf, 0, 0, 16);
}
static cl_int copy_wrong_dst(fixture *f) {
  return copy(f, f->env.queue, f->buf, WRONG(cl_mem, f), 0, 0, 16);
}
static cl_int copy_other_context(fixture *f) {
  return copy(f, f->env.queue, f->buf, f->other_buf, 0, 0, 16);
}
static cl_int copy_src_out_of_bounds(fixture *f) {
  return copy(f, f->env.queue, f->buf, f->buf_b, BUF_SIZE - 8, 0, 16);
}
static cl_int copy_dst_out_of_bounds(fixture *f) {
  return copy(f, f->env.queue, f->buf, f->buf_b, 0, BUF_SIZE - 8, 16);
}
static cl_int copy_size_wraps(fixture *f) {
  return copy(f, f->env.queue, f->buf, f->buf_b, 8, 8, SIZE_MAX);
}
static cl_int copy_overlap(fixture *f) {
  return copy(f, f->env.queue, f->buf, f->buf, 0, 8, 16);
}
static cl_int copy_sub_buffers_overlap(fixture *f) {
  /* sub_a covers [128, 384) of buf, sub_b [256, 512): their bytes 128..
   * of sub_a and 0.. of sub_b are the same memory. */
  return copy(f, f->env.queue, f->sub_a, f->sub_b, 128, 0, 64);
}
static cl_int copy_same_no_overlap(fixture *f) {
  return copy(f, f->env.queue, f->buf, f->buf, 0, 512, 256);
}
static cl_int copy_size_zero(fixture *f) {
  return copy(f, f->env.queue, f->buf, f->buf_b, 0, 0, 0);
}

static cl_int copy_rect(fixture *f, cl_mem src, cl_mem dst, const size_t *so,
                        const size_t *dorg, const size_t *region, size_t srow,
                        size_t sslice, size_t drow, size_t dslice) {
  return clEnqueueCopyBufferRect(f->env.queue, src, dst, so, dorg, region, srow,
                                 sslice, drow, dslice, 0, NULL, &f->ev_out);
}
static const size_t origin0[3] = {0, 0, 0};
static const size_t region_8x2x2[3] = {8, 2, 2};
static cl_int copy_rect_null_origin(fixture *f) {
  return copy_rect(f, f->buf, f->buf_b, NULL, origin0, region_8x2x2, 32, 256,
                   32, 256);
}
static cl_int copy_rect_region_zero(fixture *f) {
  size_t region[3] = {8, 0, 2};
  return copy_rect(f, f->buf, f->buf_b, origin0, origin0, region, 32, 256, 32,
                   256);
}
static cl_int copy_rect_src_row_small(fixture *f) {
  return copy_rect(f, f->buf, f->buf_b, origin0, origin0, region_8x2x2, 4, 0,
                   32, 256);
}
static cl_int copy_rect_dst_slice_small(fixture *f) {
  return copy_rect(f, f->buf, f->buf_b, origin0, origin0, region_8x2x2, 32, 256,
                   32, 32);
}
static cl_int copy_rect_src_out_of_bounds(fixture *f) {
  size_t so[3] = {0, 0, 4};
  return copy_rect(f, f->buf, f->buf_b, so, origin0, region_8x2x2, 32, 256, 32,
                   256);
}
static cl_int copy_rect_dst_wraps(fixture *f) {
  size_t dorg[3] = {SIZE_MAX, 0, 0};
  size_t region[3] = {1, 1, 1};
  return copy_rect(f, f->buf, f->buf_b, origin0, dorg, region, 0, 0, 0, 0);
}
static cl_int copy_rect_same_pitch_differs(fixture *f) {
  size_t dorg[3] = {0, 0, 2};
  return copy_rect(f, f->buf, f->buf, origin0, dorg, region_8x2x2, 32, 256, 64,
                   256);
}
static cl_int copy_rect_overlap(fixture *f) {
  size_t dorg[3] = {4, 1, 0};
  return copy_rect(f, f->buf, f->buf, origin0, dorg, region_8x2x2, 32, 256, 32,
                   256);
}
static cl_int copy_rect_interleaved(fixture *f) {
  /* Rows 8 bytes wide, 32 apart: a copy 16 bytes along shares no byte. */
  size_t dorg[3] = {16, 0, 0};
  return copy_rect(f, f->buf, f->buf, origin0, dorg, region_8x2x2, 32, 256, 32,
                   256);
}
static cl_int copy_rect_sub_buffers_overlap(fixture *f) {
  /* Byte 128 + 32 * 4 = 256 of sub_a is byte 0 of sub_b: row 4 of the
   * source is the destination's first row. */
  size_t region[3] = {8, 6, 1};
  return copy_rect(f, f->sub_a, f->sub_b, origin0, origin0, region, 32, 0, 32,
                   0);
}
static cl_int copy_rect_sub_buffers_apart(fixture *f) {
  /* The same rows, but at x 16 in the destination: no byte shared. */
  size_t region[3] = {8, 6, 1}, dorg[3] = {16, 0, 0};
  return copy_rect(f, f->sub_a, f->sub_b, origin0, dorg, region, 32, 0, 32, 0);
}

/* ---- Fill -------------------------------------------------------------------
 */

static cl_int fill(fixture *f, cl_mem m, const void *pattern, size_t psize,
                   size_t offset, size_t size) {
  return clEnqueueFillBuffer(f->env.queue, m, pattern, psize, offset, size, 0,
                             NULL, &f->ev_out);
}
static const unsigned char pattern[256];
static cl_int fill_wrong_mem(fixture *f) {
  return fill(f, WRONG(cl_mem, f), pattern, 4, 0, 16);
}
static cl_int fill_other_context(fixture *f) {
  return fill(f, f->other_buf, pattern, 4, 0, 16);
}
static cl_int fill_out_of_bounds(fixture *f) {
  return fill(f, f->buf, pattern, 4, BUF_SIZE - 8, 16);
}
static cl_int fill_null_pattern(fixture *f) {
  return fill(f, f->buf, NULL, 4, 0, 16);
}
static cl_int fill_pattern_size_zero(fixture *f) {
  return fill(f, f->buf, pattern, 0, 0, 16);
}
static cl_int fill_pattern_size_3(fixture *f) {
  return fill(f, f->buf, pattern, 3, 0, 12);
}
static cl_int fill_pattern_size_256(fixture *f) {
  return fill(f, f->buf, pattern, 256, 0, 512);
}
static cl_int fill_offset_not_multiple(fixture *f) {
  return fill(f, f->buf, pattern, 8, 4, 16);
}
static cl_int fill_size_not_multiple(fixture *f) {
  return fill(f, f->buf, pattern, 8, 0, 12);
}
static cl_int fill_size_zero(fixture *f) {
  return fill(f, f->buf, pattern, 4, 0, 0);
}
static cl_int fill_128(fixture *f) {
  return fill(f, f->buf, pattern, 128, 128, 256);
}

/* ---- Map, unmap, migrate ---------------------------------------------------
 */

static cl_int map(fixture *f, cl_mem m, cl_bool blocking, cl_map_flags flags,
                  size_t offset, size_t size, cl_uint n, const cl_event *list) {
  cl_int err;
  void *p = clEnqueueMapBuffer(f->env.queue, m, blocking, flags, offset, size,
                               n, list, &f->ev_out, &err);
  if (p) { /* a map that should have failed: undo it */
    clEnqueueUnmapMemObject(f->env.queue, m, p, 0, NULL, NULL);
    clFinish(f->env.queue);
  }
  return ret_pointer(f, p, &err);
}
static cl_int map_wrong_mem(fixture *f) {
  return map(f, WRONG(cl_mem, f), CL_TRUE, CL_MAP_READ, 0, 16, 0, NULL);
}
static cl_int map_other_context(fixture *f) {
  return map(f, f->other_buf, CL_TRUE, CL_MAP_READ, 0, 16, 0, NULL);
}
static cl_int map_out_of_bounds(fixture *f) {
  return map(f, f->buf, CL_TRUE, CL_MAP_READ, BUF_SIZE - 8, 16, 0, NULL);
}
static cl_int map_size_zero(fixture *f) {
  return map(f, f->buf, CL_TRUE, CL_MAP_READ, 0, 0, 0, NULL);
}
static cl_int map_bad_flags(fixture *f) {
  return map(f, f->buf, CL_TRUE, (cl_map_flags)1 << 10, 0, 16, 0, NULL);
}
static cl_int map_invalidate_with_read(fixture *f) {
  return map(f, f->buf, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_READ,
             0, 16, 0, NULL);
}
static cl_int map_read_host_write_only(fixture *f) {
  return map(f, f->host_wo, CL_TRUE, CL_MAP_READ, 0, 16, 0, NULL);
}
static cl_int map_read_host_no_access(fixture *f) {
  return map(f, f->host_none, CL_TRUE, CL_MAP_READ, 0, 16, 0, NULL);
}
static cl_int map_write_host_read_only(fixture *f) {
  return map(f, f->host_ro, CL_TRUE, CL_MAP_WRITE, 0, 16, 0, NULL);
}
static cl_int map_invalidate_host_read_only(fixture *f) {
  return map(f, f->host_ro, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, 16, 0,
             NULL);
}
static cl_int map_failed_wait_list(fixture *f) {
  return map(f, f->buf, CL_TRUE, CL_MAP_READ, 0, 16, 1, &f->failed_ev);
}
static cl_int map_count_after_failures(fixture *f) {
  /* The failed maps above left no mapping behind. */
  cl_uint count = 1;
  cl_int err =
      clGetMemObjectInfo(f->buf, CL_MEM_MAP_COUNT, sizeof count, &count, NULL);
  return err == CL_SUCCESS && count != 0 ? ROW_SETUP_FAILED : err;
}
static cl_int unmap(fixture *f, cl_command_queue q, cl_mem m, void *p,
                    cl_uint n, const cl_event *list) {
  return clEnqueueUnmapMemObject(q, m, p, n, list, &f->ev_out);
}
static cl_int unmap_not_mapped(fixture *f) {
  return unmap(f, f->env.queue, f->buf, f->out, 0, NULL);
}
static cl_int unmap_wrong_mem(fixture *f) {
  return unmap(f, f->env.queue, WRONG(cl_mem, f), f->out, 0, NULL);
}
static cl_int unmap_wrong_queue(fixture *f) {
  return unmap(f, WRONG(cl_command_queue, f), f->buf, f->out, 0, NULL);
}
/* Maps buf_b, tries the unmap the row describes, then unmaps for real:
 * the failed unmap must have left the mapping in place. */
static cl_int unmap_then(fixture *f, cl_mem as, cl_command_queue q, cl_uint n,
                         const cl_event *list) {
  cl_int err;
  void *p = clEnqueueMapBuffer(f->env.queue, f->buf_b, CL_TRUE, CL_MAP_READ, 0,
                               16, 0, NULL, NULL, &err);
  if (!p)
    return ROW_SETUP_FAILED;
  cl_int got = unmap(f, q, as, p, n, list);
  if (got != CL_SUCCESS && clEnqueueUnmapMemObject(f->env.queue, f->buf_b, p, 0,
                                                   NULL, NULL) != CL_SUCCESS)
    return ROW_SETUP_FAILED; /* the failed call dropped the mapping */
  clFinish(f->env.queue);
  return got;
}
static cl_int unmap_other_buffer(fixture *f) {
  return unmap_then(f, f->buf, f->env.queue, 0, NULL);
}
static cl_int unmap_other_context(fixture *f) {
  return unmap_then(f, f->buf_b, f->other_queue, 0, NULL);
}
static cl_int migrate(fixture *f, cl_uint n, const cl_mem *mems,
                      cl_mem_migration_flags flags) {
  return clEnqueueMigrateMemObjects(f->env.queue, n, mems, flags, 0, NULL,
                                    &f->ev_out);
}
static cl_int migrate_zero(fixture *f) { return migrate(f, 0, &f->buf, 0); }
static cl_int migrate_null(fixture *f) { return migrate(f, 1, NULL, 0); }
static cl_int migrate_bad_flags(fixture *f) {
  return migrate(f, 1, &f->buf, (cl_mem_migration_flags)1 << 8);
}
static cl_int migrate_wrong_mem(fixture *f) {
  cl_mem m[2] = {f->buf, WRONG(cl_mem, f)};
  return migrate(f, 2, m, 0);
}
static cl_int migrate_other_context(fixture *f) {
  cl_mem m[2] = {f->buf, f->other_buf};
  return migrate(f, 2, m, 0);
}

/* ---- Kernels ------------------------------------------------------------- */

static cl_int ndrange(fixture *f, cl_command_queue q, cl_kernel k, cl_uint dim,
                      const size_t *offset, const size_t *global,
                      const size_t *local) {
  return clEnqueueNDRangeKernel(q, k, dim, offset, global, local, 0, NULL,
                                &f->ev_out);
}
static const size_t global_64[3] = {64, 1, 1};
static const size_t local_16[3] = {16, 1, 1};
static cl_int ndrange_wrong_queue(fixture *f) {
  return ndrange(f, WRONG(cl_command_queue, f), f->k_args, 1, NULL, global_64,
                 local_16);
}
static cl_int ndrange_wrong_kernel(fixture *f) {
  return ndrange(f, f->env.queue, WRONG(cl_kernel, f), 1, NULL, global_64,
                 local_16);
}
static cl_int ndrange_other_context(fixture *f) {
  return ndrange(f, f->other_queue, f->k_args, 1, NULL, global_64, local_16);
}
static cl_int ndrange_dim_zero(fixture *f) {
  return ndrange(f, f->env.queue, f->k_args, 0, NULL, global_64, local_16);
}
static cl_int ndrange_dim_four(fixture *f) {
  size_t g[4] = {4, 4, 4, 4}, l[4] = {1, 1, 1, 1};
  return ndrange(f, f->env.queue, f->k_args, 4, NULL, g, l);
}
static cl_int ndrange_args_unset(fixture *f) {
  return ndrange(f, f->env.queue, f->k_unset, 1, NULL, global_64, local_16);
}
static cl_int ndrange_some_args_unset(fixture *f) {
  cl_int err;
  cl_kernel k = clCreateKernel(f->built, "args", &err);
  if (!k || clSetKernelArg(k, 0, sizeof(cl_mem), &f->buf) != CL_SUCCESS)
    return ROW_SETUP_FAILED;
  err = ndrange(f, f->env.queue, k, 1, NULL, global_64, local_16);
  clReleaseKernel(k);
  return err;
}
static cl_int ndrange_local_zero(fixture *f) {
  size_t l[3] = {0, 1, 1};
  return ndrange(f, f->env.queue, f->k_args, 1, NULL, global_64, l);
}
static cl_int ndrange_group_too_big(fixture *f) {
  size_t g[3] = {64, 64, 4}, l[3] = {32, 32, 2}; /* 2048 work-items */
  return ndrange(f, f->env.queue, f->k_args, 3, NULL, g, l);
}
static cl_int ndrange_item_too_big(fixture *f) {
  size_t max[3] = {0};
  if (clGetDeviceInfo(f->env.device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof max,
                      max, NULL) != CL_SUCCESS)
    return ROW_SETUP_FAILED;
  size_t g[3] = {4, 2 * max[1], 1}, l[3] = {1, 2 * max[1], 1};
  return ndrange(f, f->env.queue, f->k_args, 2, NULL, g, l);
}
static cl_int ndrange_not_divisible_cl12(fixture *f) {
  /* Built without -cl-std: OpenCL C 1.2, whose work-groups are uniform. */
  size_t g[3] = {60, 1, 1};
  return ndrange(f, f->env.queue, f->k_args, 1, NULL, g, local_16);
}
static cl_int ndrange_not_divisible_uniform(fixture *f) {
  size_t g[3] = {60, 1, 1};
  return ndrange(f, f->env.queue, f->k_uniform, 1, NULL, g, local_16);
}
static cl_int ndrange_reqd_mismatch(fixture *f) {
  size_t l[3] = {2, 1, 1};
  return ndrange(f, f->env.queue, f->k_reqd, 1, NULL, global_64, l);
}
static cl_int ndrange_reqd_mismatch_2d(fixture *f) {
  size_t g[3] = {8, 8, 1}, l[3] = {4, 2, 1};
  return ndrange(f, f->env.queue, f->k_reqd, 2, NULL, g, l);
}
static cl_int ndrange_offset_overflow(fixture *f) {
  size_t offset[3] = {SIZE_MAX - 16, 0, 0};
  return ndrange(f, f->env.queue, f->k_args, 1, offset, global_64, local_16);
}
static cl_int ndrange_offset_overflow_dim2(fixture *f) {
  size_t offset[3] = {0, SIZE_MAX, 0}, g[3] = {16, 2, 1}, l[3] = {16, 1, 1};
  return ndrange(f, f->env.queue, f->k_args, 2, offset, g, l);
}
static cl_int ndrange_null_global(fixture *f) {
  /* Since OpenCL 2.1 a NULL global_work_size enqueues an empty command. */
  return ndrange(f, f->env.queue, f->k_args, 1, NULL, NULL, NULL);
}
static cl_int ndrange_global_zero(fixture *f) {
  size_t g[3] = {0, 1, 1};
  return ndrange(f, f->env.queue, f->k_args, 1, NULL, g, NULL);
}
static cl_int ndrange_local_mem_too_big(fixture *f) {
  cl_int err;
  cl_kernel k = clCreateKernel(f->built, "args", &err);
  cl_ulong local = 0;
  if (!k || clGetDeviceInfo(f->env.device, CL_DEVICE_LOCAL_MEM_SIZE,
                            sizeof local, &local, NULL) != CL_SUCCESS)
    return ROW_SETUP_FAILED;
  cl_int n = 1;
  clSetKernelArg(k, 0, sizeof(cl_mem), &f->buf);
  clSetKernelArg(k, 1, (size_t)local + 4096, NULL);
  clSetKernelArg(k, 2, sizeof n, &n);
  err = ndrange(f, f->env.queue, k, 1, NULL, global_64, local_16);
  clReleaseKernel(k);
  return err;
}
static cl_int ndrange_sub_buffer_arg(fixture *f) {
  cl_int err;
  cl_kernel k = clCreateKernel(f->built, "plain", &err);
  if (!k || clSetKernelArg(k, 0, sizeof(cl_mem), &f->sub_a) != CL_SUCCESS)
    return ROW_SETUP_FAILED;
  err = ndrange(f, f->env.queue, k, 1, NULL, local_16, local_16);
  clReleaseKernel(k);
  return err;
}
static cl_int task(fixture *f, cl_command_queue q, cl_kernel k) {
  return clEnqueueTask(q, k, 0, NULL, &f->ev_out);
}
static cl_int task_reqd(fixture *f) { return task(f, f->env.queue, f->k_reqd); }
static cl_int task_args_unset(fixture *f) {
  return task(f, f->env.queue, f->k_unset);
}
static cl_int task_wrong_queue(fixture *f) {
  return task(f, WRONG(cl_command_queue, f), f->k_args);
}
static cl_int task_wrong_kernel(fixture *f) {
  return task(f, f->env.queue, WRONG(cl_kernel, f));
}
static cl_int task_other_context(fixture *f) {
  return task(f, f->other_queue, f->k_args);
}

/* ---- Wait lists: the same four conditions for every command ---------------
 */

/* Each enqueues one valid command of its kind with the given wait list. */
static cl_int wl_read(fixture *f, cl_uint n, const cl_event *l) {
  return read_buf(f, f->env.queue, f->buf, CL_FALSE, 0, 16, f->out, n, l);
}
static cl_int wl_write(fixture *f, cl_uint n, const cl_event *l) {
  return write_buf(f, f->env.queue, f->buf, CL_FALSE, 0, 16, f->out, n, l);
}
static cl_int wl_read_rect(fixture *f, cl_uint n, const cl_event *l) {
  rect r = valid_rect();
  return clEnqueueReadBufferRect(
      f->env.queue, f->buf, CL_FALSE, r.buffer_origin, r.host_origin, r.region,
      r.buffer_row, r.buffer_slice, 0, 0, f->out, n, l, &f->ev_out);
}
static cl_int wl_write_rect(fixture *f, cl_uint n, const cl_event *l) {
  rect r = valid_rect();
  return clEnqueueWriteBufferRect(
      f->env.queue, f->buf, CL_FALSE, r.buffer_origin, r.host_origin, r.region,
      r.buffer_row, r.buffer_slice, 0, 0, f->out, n, l, &f->ev_out);
}
static cl_int wl_copy(fixture *f, cl_uint n, const cl_event *l) {
  return clEnqueueCopyBuffer(f->env.queue, f->buf, f->buf_b, 0, 0, 16, n, l,
                             &f->ev_out);
}
static cl_int wl_copy_rect(fixture *f, cl_uint n, const cl_event *l) {
  return clEnqueueCopyBufferRect(f->env.queue, f->buf, f->buf_b, origin0,
                                 origin0, region_8x2x2, 32, 256, 32, 256, n, l,
                                 &f->ev_out);
}
static cl_int wl_fill(fixture *f, cl_uint n, const cl_event *l) {
  return clEnqueueFillBuffer(f->env.queue, f->buf, pattern, 4, 0, 16, n, l,
                             &f->ev_out);
}
static cl_int wl_map(fixture *f, cl_uint n, const cl_event *l) {
  return map(f, f->buf, CL_FALSE, CL_MAP_READ, 0, 16, n, l);
}
static cl_int wl_unmap(fixture *f, cl_uint n, const cl_event *l) {
  return unmap_then(f, f->buf_b, f->env.queue, n, l);
}
static cl_int wl_migrate(fixture *f, cl_uint n, const cl_event *l) {
  return clEnqueueMigrateMemObjects(f->env.queue, 1, &f->buf, 0, n, l,
                                    &f->ev_out);
}
static cl_int wl_ndrange(fixture *f, cl_uint n, const cl_event *l) {
  return clEnqueueNDRangeKernel(f->env.queue, f->k_args, 1, NULL, global_64,
                                local_16, n, l, &f->ev_out);
}
static cl_int wl_task(fixture *f, cl_uint n, const cl_event *l) {
  return clEnqueueTask(f->env.queue, f->k_args, n, l, &f->ev_out);
}
static cl_int wl_marker(fixture *f, cl_uint n, const cl_event *l) {
  return clEnqueueMarkerWithWaitList(f->env.queue, n, l, &f->ev_out);
}
static cl_int wl_barrier(fixture *f, cl_uint n, const cl_event *l) {
  return clEnqueueBarrierWithWaitList(f->env.queue, n, l, &f->ev_out);
}

#define WAIT_LIST_CALLS(name)                                                  \
  static cl_int name##_list_null(fixture *f) { return name(f, 1, NULL); }      \
  static cl_int name##_list_count_zero(fixture *f) {                           \
    return name(f, 0, &f->done_ev);                                            \
  }                                                                            \
  static cl_int name##_list_not_event(fixture *f) {                            \
    cl_event l[2] = {f->done_ev, WRONG(cl_event, f)};                          \
    return name(f, 2, l);                                                      \
  }                                                                            \
  static cl_int name##_list_other_context(fixture *f) {                        \
    return name(f, 1, &f->other_ev);                                           \
  }
#define WAIT_LIST_ROWS(entry, name)                                            \
  ROW(entry, "event_wait_list NULL, num_events_in_wait_list > 0",              \
      name##_list_null, CL_INVALID_EVENT_WAIT_LIST),                           \
      ROW(entry, "event_wait_list not NULL, num_events_in_wait_list 0",        \
          name##_list_count_zero, CL_INVALID_EVENT_WAIT_LIST),                 \
      ROW(entry, "an event in event_wait_list is not a valid event",           \
          name##_list_not_event, CL_INVALID_EVENT_WAIT_LIST),                  \
      ROW(entry, "an event in event_wait_list is of another context",          \
          name##_list_other_context, CL_INVALID_CONTEXT)

WAIT_LIST_CALLS(wl_read)
WAIT_LIST_CALLS(wl_write)
WAIT_LIST_CALLS(wl_read_rect)
WAIT_LIST_CALLS(wl_write_rect)
WAIT_LIST_CALLS(wl_copy)
WAIT_LIST_CALLS(wl_copy_rect)
WAIT_LIST_CALLS(wl_fill)
WAIT_LIST_CALLS(wl_map)
WAIT_LIST_CALLS(wl_unmap)
WAIT_LIST_CALLS(wl_migrate)
WAIT_LIST_CALLS(wl_ndrange)
WAIT_LIST_CALLS(wl_task)
WAIT_LIST_CALLS(wl_marker)
WAIT_LIST_CALLS(wl_barrier)

/* ---- Events ----------------------------------------------------------------
 */

static cl_int wait_zero(fixture *f) { return clWaitForEvents(0, &f->done_ev); }
static cl_int wait_null(fixture *f) {
  (void)f;
  return clWaitForEvents(1, NULL);
}
static cl_int wait_not_event(fixture *f) {
  cl_event l[2] = {f->done_ev, WRONG(cl_event, f)};
  return clWaitForEvents(2, l);
}
static cl_int wait_two_contexts(fixture *f) {
  cl_event l[2] = {f->done_ev, f->other_ev};
  return clWaitForEvents(2, l);
}
static cl_int wait_failed(fixture *f) {
  return clWaitForEvents(1, &f->failed_ev);
}
static cl_int wait_failed_dependent(fixture *f) {
  /* A marker waiting for a failed event fails too. */
  cl_event marker;
  if (clEnqueueMarkerWithWaitList(f->env.queue, 1, &f->failed_ev, &marker) !=
      CL_SUCCESS)
    return ROW_SETUP_FAILED;
  cl_int err = clWaitForEvents(1, &marker);
  clReleaseEvent(marker);
  return err;
}
static cl_int event_info(fixture *f, cl_event e, cl_event_info name,
                         size_t size) {
  return clGetEventInfo(e, name, size, f->out, &f->size_ret);
}
static cl_int event_info_wrong(fixture *f) {
  return event_info(f, WRONG(cl_event, f), CL_EVENT_COMMAND_TYPE,
                    sizeof f->out);
}
static cl_int event_info_bad_name(fixture *f) {
  return event_info(f, f->done_ev, 0x7fff, sizeof f->out);
}
static cl_int event_info_too_small(fixture *f) {
  return event_info(f, f->done_ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                    sizeof(cl_int) - 1);
}
static cl_int profiling(fixture *f, cl_event e, cl_profiling_info name,
                        size_t size) {
  return clGetEventProfilingInfo(e, name, size, f->out, &f->size_ret);
}
static cl_int profiling_wrong(fixture *f) {
  return profiling(f, WRONG(cl_event, f), CL_PROFILING_COMMAND_END,
                   sizeof f->out);
}
static cl_int profiling_user_event(fixture *f) {
  return profiling(f, f->failed_ev, CL_PROFILING_COMMAND_END, sizeof f->out);
}
static cl_int profiling_not_enabled(fixture *f) {
  cl_event e;
  if (clEnqueueMarkerWithWaitList(f->plain_queue, 0, NULL, &e) != CL_SUCCESS ||
      clWaitForEvents(1, &e) != CL_SUCCESS)
    return ROW_SETUP_FAILED;
  cl_int err = profiling(f, e, CL_PROFILING_COMMAND_END, sizeof f->out);
  clReleaseEvent(e);
  return err;
}
static cl_int profiling_not_complete(fixture *f) {
  /* A marker held back by a user event of its own, released after. */
  cl_int err;
  cl_event gate = clCreateUserEvent(f->env.context, &err), e;
  if (!gate ||
      clEnqueueMarkerWithWaitList(f->env.queue, 1, &gate, &e) != CL_SUCCESS)
    return ROW_SETUP_FAILED;
  err = profiling(f, e, CL_PROFILING_COMMAND_START, sizeof f->out);
  clSetUserEventStatus(gate, CL_COMPLETE);
  clWaitForEvents(1, &e);
  clReleaseEvent(e);
  clReleaseEvent(gate);
  return err;
}
static cl_int profiling_bad_name(fixture *f) {
  return profiling(f, f->done_ev, 0x7fff, sizeof f->out);
}
static cl_int profiling_too_small(fixture *f) {
  return profiling(f, f->done_ev, CL_PROFILING_COMMAND_END,
                   sizeof(cl_ulong) - 1);
}
static cl_int user_event_wrong_context(fixture *f) {
  cl_int err;
  return ret_event(f, clCreateUserEvent(WRONG_CONTEXT(f), &err), &err);
}
static cl_int user_status_not_user(fixture *f) {
  return clSetUserEventStatus(f->done_ev, CL_COMPLETE);
}
static cl_int user_status(fixture *f, cl_int first, cl_int second) {
  cl_int err;
  cl_event e = clCreateUserEvent(f->env.context, &err);
  if (!e)
    return ROW_SETUP_FAILED;
  if (first != 1 && clSetUserEventStatus(e, first) != CL_SUCCESS)
    return ROW_SETUP_FAILED;
  err = clSetUserEventStatus(e, second);
  cl_int status = 0;
  clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                 NULL);
  if (first == 1 && err != CL_SUCCESS && status != CL_SUBMITTED)
    err = ROW_SETUP_FAILED; /* a refused status must not change it */
  if (status > CL_COMPLETE)
    clSetUserEventStatus(e, CL_COMPLETE);
  clReleaseEvent(e);
  return err;
}
static cl_int user_status_running(fixture *f) {
  return user_status(f, 1, CL_RUNNING);
}
static cl_int user_status_submitted(fixture *f) {
  return user_status(f, 1, CL_SUBMITTED);
}
static cl_int user_status_positive(fixture *f) { return user_status(f, 1, 7); }
static cl_int user_status_twice(fixture *f) {
  return user_status(f, CL_COMPLETE, CL_COMPLETE);
}
static cl_int user_status_after_error(fixture *f) {
  return user_status(f, -5, CL_COMPLETE);
}
static cl_int callback(fixture *f, cl_event e, cl_int type) {
  return clSetEventCallback(e, type, never_called_event, f);
}
static cl_int callback_null(fixture *f) {
  return clSetEventCallback(f->user_ev, CL_COMPLETE, NULL, NULL);
}
static cl_int callback_queued(fixture *f) {
  return callback(f, f->user_ev, CL_QUEUED);
}
static cl_int callback_type_7(fixture *f) { return callback(f, f->user_ev, 7); }
static cl_int callback_type_negative(fixture *f) {
  return callback(f, f->user_ev, -1);
}
static cl_int callback_wrong(fixture *f) {
  return callback(f, WRONG(cl_event, f), CL_COMPLETE);
}
static cl_int retain_event_wrong(fixture *f) {
  return clRetainEvent(WRONG(cl_event, f));
}
static cl_int release_event_wrong(fixture *f) {
  return clReleaseEvent(WRONG(cl_event, f));
}
static cl_int marker_wrong_queue(fixture *f) {
  return clEnqueueMarkerWithWaitList(WRONG(cl_command_queue, f), 0, NULL,
                                     &f->ev_out);
}
static cl_int barrier_wrong_queue(fixture *f) {
  return clEnqueueBarrierWithWaitList(WRONG(cl_command_queue, f), 0, NULL,
                                      &f->ev_out);
}
static cl_int marker_legacy_null(fixture *f) {
  return clEnqueueMarker(f->env.queue, NULL);
}
static cl_int marker_legacy_wrong_queue(fixture *f) {
  return clEnqueueMarker(WRONG(cl_command_queue, f), &f->ev_out);
}
static cl_int barrier_legacy_wrong_queue(fixture *f) {
  return clEnqueueBarrier(WRONG(cl_command_queue, f));
}
static cl_int wait_events_zero(fixture *f) {
  return clEnqueueWaitForEvents(f->env.queue, 0, &f->done_ev);
}
static cl_int wait_events_null(fixture *f) {
  return clEnqueueWaitForEvents(f->env.queue, 1, NULL);
}
static cl_int wait_events_other_context(fixture *f) {
  return clEnqueueWaitForEvents(f->env.queue, 1, &f->other_ev);
}
static cl_int wait_events_wrong_queue(fixture *f) {
  return clEnqueueWaitForEvents(WRONG(cl_command_queue, f), 1, &f->done_ev);
}

/* ---- Entry points Skein does not implement (icd/missing.c) -----------------
 */

static const cl_image_format rgba8 = {CL_RGBA, CL_UNORM_INT8};
static cl_int image(fixture *f) {
  cl_image_desc desc = {CL_MEM_OBJECT_IMAGE2D, 4, 4, 1, 1, 0, 0, 0, 0, {NULL}};
  cl_int err;
  return ret_mem(f, clCreateImage(f->env.context, 0, &rgba8, &desc, NULL, &err),
                 &err);
}
static cl_int image_with_properties(fixture *f) {
  cl_image_desc desc = {CL_MEM_OBJECT_IMAGE2D, 4, 4, 1, 1, 0, 0, 0, 0, {NULL}};
  cl_int err;
  return ret_mem(f,
                 clCreateImageWithProperties(f->env.context, NULL, 0, &rgba8,
                                             &desc, NULL, &err),
                 &err);
}
static cl_int image_wrong_context(fixture *f) {
  cl_image_desc desc = {CL_MEM_OBJECT_IMAGE2D, 4, 4, 1, 1, 0, 0, 0, 0, {NULL}};
  cl_int err;
  return ret_mem(
      f, clCreateImage(WRONG_CONTEXT(f), 0, &rgba8, &desc, NULL, &err), &err);
}
static cl_int image_2d(fixture *f) {
  cl_int err;
  return ret_mem(
      f, clCreateImage2D(f->env.context, 0, &rgba8, 4, 4, 0, NULL, &err), &err);
}
static cl_int image_3d(fixture *f) {
  cl_int err;
  return ret_mem(
      f, clCreateImage3D(f->env.context, 0, &rgba8, 4, 4, 4, 0, 0, NULL, &err),
      &err);
}
static cl_int image_formats(fixture *f) {
  cl_uint n = 1;
  cl_int err = clGetSupportedImageFormats(f->env.context, CL_MEM_READ_ONLY,
                                          CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n);
  return err == CL_SUCCESS && n != 0 ? ROW_SETUP_FAILED : err;
}
static cl_int image_formats_bad_type(fixture *f) {
  return clGetSupportedImageFormats(f->env.context, CL_MEM_READ_ONLY,
                                    CL_MEM_OBJECT_BUFFER, 4,
                                    (cl_image_format *)f->out, &f->num_ret);
}
static cl_int image_formats_bad_flags(fixture *f) {
  return clGetSupportedImageFormats(
      f->env.context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
      CL_MEM_OBJECT_IMAGE2D, 4, (cl_image_format *)f->out, &f->num_ret);
}
static cl_int image_formats_zero_entries(fixture *f) {
  return clGetSupportedImageFormats(f->env.context, CL_MEM_READ_ONLY,
                                    CL_MEM_OBJECT_IMAGE2D, 0,
                                    (cl_image_format *)f->out, &f->num_ret);
}
static cl_int image_info(fixture *f) {
  return clGetImageInfo(f->buf, CL_IMAGE_WIDTH, sizeof f->out, f->out,
                        &f->size_ret);
}
static const size_t zero3[3] = {0, 0, 0}, one3[3] = {1, 1, 1};
static cl_int read_image(fixture *f) {
  return clEnqueueReadImage(f->env.queue, f->buf, CL_TRUE, zero3, one3, 0, 0,
                            f->out, 0, NULL, &f->ev_out);
}
static cl_int write_image(fixture *f) {
  return clEnqueueWriteImage(f->env.queue, f->buf, CL_TRUE, zero3, one3, 0, 0,
                             f->out, 0, NULL, &f->ev_out);
}
static cl_int copy_image(fixture *f) {
  return clEnqueueCopyImage(f->env.queue, f->buf, f->buf_b, zero3, zero3, one3,
                            0, NULL, &f->ev_out);
}
static cl_int copy_image_to_buffer(fixture *f) {
  return clEnqueueCopyImageToBuffer(f->env.queue, f->buf, f->buf_b, zero3, one3,
                                    0, 0, NULL, &f->ev_out);
}
static cl_int copy_buffer_to_image(fixture *f) {
  return clEnqueueCopyBufferToImage(f->env.queue, f->buf, f->buf_b, 0, zero3,
                                    one3, 0, NULL, &f->ev_out);
}
static cl_int map_image(fixture *f) {
  cl_int err;
  size_t row, slice;
  return ret_pointer(f,
                     clEnqueueMapImage(f->env.queue, f->buf, CL_TRUE,
                                       CL_MAP_READ, zero3, one3, &row, &slice,
                                       0, NULL, &f->ev_out, &err),
                     &err);
}
static cl_int fill_image(fixture *f) {
  cl_float color[4] = {0};
  return clEnqueueFillImage(f->env.queue, f->buf, color, zero3, one3, 0, NULL,
                            &f->ev_out);
}
static cl_int sampler(fixture *f) {
  cl_int err;
  return ret_sampler(f,
                     clCreateSampler(f->env.context, CL_FALSE, CL_ADDRESS_NONE,
                                     CL_FILTER_NEAREST, &err),
                     &err);
}
static cl_int sampler_with_properties(fixture *f) {
  cl_int err;
  return ret_sampler(
      f, clCreateSamplerWithProperties(f->env.context, NULL, &err), &err);
}
static cl_int retain_sampler(fixture *f) {
  return clRetainSampler(WRONG(cl_sampler, f));
}
static cl_int release_sampler(fixture *f) {
  return clReleaseSampler(WRONG(cl_sampler, f));
}
static cl_int sampler_info(fixture *f) {
  return clGetSamplerInfo(WRONG(cl_sampler, f), CL_SAMPLER_REFERENCE_COUNT,
                          sizeof f->out, f->out, &f->size_ret);
}
static cl_int svm_alloc(fixture *f) {
  /* clSVMAlloc has no error code: NULL is its failure (size 0). */
  void *p = clSVMAlloc(f->env.context, CL_MEM_READ_WRITE, 0, 0);
  if (p)
    clSVMFree(f->env.context, p);
  cl_int err = p ? CL_SUCCESS : CL_INVALID_VALUE;
  return ret_pointer(f, p, &err);
}
static cl_int svm_free(fixture *f) {
  clSVMFree(f->env.context, f->out); /* not clSVMAlloc's: does nothing */
  return CL_SUCCESS;
}
static cl_int svm_enqueue_free(fixture *f) {
  void *ptrs[1] = {f->out};
  return clEnqueueSVMFree(f->env.queue, 1, ptrs, NULL, NULL, 0, NULL,
                          &f->ev_out);
}
static cl_int svm_memcpy(fixture *f) {
  return clEnqueueSVMMemcpy(f->env.queue, CL_TRUE, f->out, f->out + 8, 16, 0,
                            NULL, &f->ev_out);
}
static cl_int svm_memfill(fixture *f) {
  return clEnqueueSVMMemFill(f->env.queue, f->out + 1, pattern, 4, 16, 0,
                             NULL, &f->ev_out);
}
static cl_int svm_map(fixture *f) {
  return clEnqueueSVMMap(f->env.queue, CL_TRUE, CL_MAP_READ, f->out, 0, 0,
                         NULL, &f->ev_out);
}
static cl_int svm_unmap(fixture *f) {
  return clEnqueueSVMUnmap(f->env.queue, NULL, 0, NULL, &f->ev_out);
}
static cl_int svm_migrate(fixture *f) {
  const void *ptrs[1] = {f->out};
  size_t sizes[1] = {16};
  return clEnqueueSVMMigrateMem(f->env.queue, 1, ptrs, sizes, 0, 0, NULL,
                                &f->ev_out);
}
static cl_int pipe_create(fixture *f) {
  cl_int err;
  return ret_mem(f, clCreatePipe(f->env.context, 0, 0, 16, NULL, &err), &err);
}
static cl_int pipe_info(fixture *f) {
  return clGetPipeInfo(f->buf, CL_PIPE_PACKET_SIZE, sizeof f->out, f->out,
                       &f->size_ret);
}
static void CL_CALLBACK native_fn(void *args) { (void)args; }
static cl_int native_kernel(fixture *f) {
  return clEnqueueNativeKernel(f->env.queue, native_fn, NULL, 0, 0, NULL, NULL,
                               0, NULL, &f->ev_out);
}

const error_row command_rows[] = {
    /* Reads and writes. */
    ROW("clEnqueueReadBuffer", "command_queue is not a valid command-queue",
        read_wrong_queue, CL_INVALID_COMMAND_QUEUE),
    ROW("clEnqueueReadBuffer", "buffer is not a valid buffer object",
        read_wrong_mem, CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueReadBuffer", "buffer is NULL", read_null_mem,
        CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueReadBuffer", "buffer is of another context",
        read_other_context, CL_INVALID_CONTEXT),
    ROW("clEnqueueReadBuffer", "region out of bounds (end)", read_past_end,
        CL_INVALID_VALUE),
    ROW("clEnqueueReadBuffer", "region out of bounds (offset)",
        read_offset_past_end, CL_INVALID_VALUE),
    ROW("clEnqueueReadBuffer", "region out of bounds (offset + size wraps)",
        read_size_wraps, CL_INVALID_VALUE),
    ROW("clEnqueueReadBuffer", "region out of bounds of a sub-buffer",
        read_sub_past_end, CL_INVALID_VALUE),
    ROW("clEnqueueReadBuffer", "ptr is NULL", read_null_ptr, CL_INVALID_VALUE),
    ROW("clEnqueueReadBuffer", "buffer created with CL_MEM_HOST_WRITE_ONLY",
        read_host_write_only, CL_INVALID_OPERATION),
    ROW("clEnqueueReadBuffer", "buffer created with CL_MEM_HOST_NO_ACCESS",
        read_host_no_access, CL_INVALID_OPERATION),
    ROW_CREATES(
        "clEnqueueReadBuffer", "blocking, and an event in the wait list failed",
        read_failed_wait_list, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
    ROW("clEnqueueReadBuffer", "size 0 is no error since OpenCL 2.1",
        read_size_zero, CL_SUCCESS),
    ROW("clEnqueueReadBuffer", "size 0 at the end of the buffer",
        read_size_zero_at_end, CL_SUCCESS),
    WAIT_LIST_ROWS("clEnqueueReadBuffer", wl_read),
    ROW("clEnqueueWriteBuffer", "region out of bounds", write_past_end,
        CL_INVALID_VALUE),
    ROW("clEnqueueWriteBuffer", "ptr is NULL", write_null_ptr,
        CL_INVALID_VALUE),
    ROW("clEnqueueWriteBuffer", "buffer created with CL_MEM_HOST_READ_ONLY",
        write_host_read_only, CL_INVALID_OPERATION),
    ROW("clEnqueueWriteBuffer", "buffer created with CL_MEM_HOST_NO_ACCESS",
        write_host_no_access, CL_INVALID_OPERATION),
    ROW("clEnqueueWriteBuffer", "buffer is of another context",
        write_other_context, CL_INVALID_CONTEXT),
    ROW_CREATES("clEnqueueWriteBuffer",
                "blocking, and an event in the wait list failed",
                write_failed_wait_list,
                CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
    ROW("clEnqueueWriteBuffer", "size 0 is no error since OpenCL 2.1",
        write_size_zero, CL_SUCCESS),
    WAIT_LIST_ROWS("clEnqueueWriteBuffer", wl_write),

    /* Rectangles. */
    ROW("clEnqueueReadBufferRect", "a valid rectangle", read_rect_valid,
        CL_SUCCESS),
    ROW("clEnqueueReadBufferRect", "buffer_origin is NULL",
        read_rect_null_origin, CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect", "host_origin is NULL",
        read_rect_null_host_origin, CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect", "region is NULL", read_rect_null_region,
        CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect", "a region element is zero",
        read_rect_region_zero, CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect", "buffer_row_pitch not 0 and < region[0]",
        read_rect_row_pitch_small, CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect",
        "buffer_slice_pitch not 0 and < region[1] * buffer_row_pitch",
        read_rect_slice_pitch_small, CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect",
        "buffer_slice_pitch not 0 and not a multiple of buffer_row_pitch",
        read_rect_slice_not_multiple, CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect", "host_row_pitch not 0 and < region[0]",
        read_rect_host_row_small, CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect",
        "host_slice_pitch not 0 and < region[1] * host_row_pitch",
        read_rect_host_slice_small, CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect",
        "host_slice_pitch not 0 and not a multiple of host_row_pitch",
        read_rect_host_slice_not_multiple, CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect", "the region is out of bounds",
        read_rect_out_of_bounds, CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect", "out of bounds: origin[0] wraps size_t",
        read_rect_origin_wraps, CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect", "out of bounds: origin[2] * slice wraps",
        read_rect_slice_wraps, CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect", "out of bounds: region[1] * row wraps",
        read_rect_row_wraps, CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect", "ptr is NULL", read_rect_null_ptr,
        CL_INVALID_VALUE),
    ROW("clEnqueueReadBufferRect", "buffer created with CL_MEM_HOST_WRITE_ONLY",
        read_rect_host_write_only, CL_INVALID_OPERATION),
    ROW("clEnqueueReadBufferRect", "buffer is of another context",
        read_rect_other_context, CL_INVALID_CONTEXT),
    WAIT_LIST_ROWS("clEnqueueReadBufferRect", wl_read_rect),
    ROW("clEnqueueWriteBufferRect", "out of bounds: origin[0] wraps size_t",
        write_rect_wraps, CL_INVALID_VALUE),
    ROW("clEnqueueWriteBufferRect", "out of bounds: origin[2] * slice wraps",
        write_rect_slice_wraps, CL_INVALID_VALUE),
    ROW("clEnqueueWriteBufferRect", "buffer created with CL_MEM_HOST_READ_ONLY",
        write_rect_host_read_only, CL_INVALID_OPERATION),
    ROW("clEnqueueWriteBufferRect", "a region element is zero",
        write_rect_region_zero, CL_INVALID_VALUE),
    WAIT_LIST_ROWS("clEnqueueWriteBufferRect", wl_write_rect),

    /* Copies. */
    ROW("clEnqueueCopyBuffer", "src_buffer is not a valid buffer object",
        copy_wrong_src, CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueCopyBuffer", "dst_buffer is not a valid buffer object",
        copy_wrong_dst, CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueCopyBuffer", "dst_buffer is of another context",
        copy_other_context, CL_INVALID_CONTEXT),
    ROW("clEnqueueCopyBuffer", "src_offset + size out of bounds of src",
        copy_src_out_of_bounds, CL_INVALID_VALUE),
    ROW("clEnqueueCopyBuffer", "dst_offset + size out of bounds of dst",
        copy_dst_out_of_bounds, CL_INVALID_VALUE),
    ROW("clEnqueueCopyBuffer", "out of bounds: offset + size wraps",
        copy_size_wraps, CL_INVALID_VALUE),
    ROW("clEnqueueCopyBuffer", "same buffer, regions overlap", copy_overlap,
        CL_MEM_COPY_OVERLAP),
    ROW("clEnqueueCopyBuffer", "sub-buffers of one buffer, regions overlap",
        copy_sub_buffers_overlap, CL_MEM_COPY_OVERLAP),
    ROW("clEnqueueCopyBuffer", "same buffer, regions apart",
        copy_same_no_overlap, CL_SUCCESS),
    ROW("clEnqueueCopyBuffer", "size 0 is no error since OpenCL 2.1",
        copy_size_zero, CL_SUCCESS),
    WAIT_LIST_ROWS("clEnqueueCopyBuffer", wl_copy),
    ROW("clEnqueueCopyBufferRect", "src_origin is NULL", copy_rect_null_origin,
        CL_INVALID_VALUE),
    ROW("clEnqueueCopyBufferRect", "a region element is zero",
        copy_rect_region_zero, CL_INVALID_VALUE),
    ROW("clEnqueueCopyBufferRect", "src_row_pitch not 0 and < region[0]",
        copy_rect_src_row_small, CL_INVALID_VALUE),
    ROW("clEnqueueCopyBufferRect",
        "dst_slice_pitch not 0 and < region[1] * dst_row_pitch",
        copy_rect_dst_slice_small, CL_INVALID_VALUE),
    ROW("clEnqueueCopyBufferRect", "the source region is out of bounds",
        copy_rect_src_out_of_bounds, CL_INVALID_VALUE),
    ROW("clEnqueueCopyBufferRect", "out of bounds: dst_origin[0] wraps",
        copy_rect_dst_wraps, CL_INVALID_VALUE),
    ROW("clEnqueueCopyBufferRect", "same buffer and row pitches differ",
        copy_rect_same_pitch_differs, CL_INVALID_VALUE),
    ROW("clEnqueueCopyBufferRect", "same buffer, regions overlap",
        copy_rect_overlap, CL_MEM_COPY_OVERLAP),
    ROW("clEnqueueCopyBufferRect", "same buffer, rows interleave, no overlap",
        copy_rect_interleaved, CL_SUCCESS),
    ROW("clEnqueueCopyBufferRect", "sub-buffers of one buffer, regions overlap",
        copy_rect_sub_buffers_overlap, CL_MEM_COPY_OVERLAP),
    ROW("clEnqueueCopyBufferRect", "sub-buffers of one buffer, regions apart",
        copy_rect_sub_buffers_apart, CL_SUCCESS),
    WAIT_LIST_ROWS("clEnqueueCopyBufferRect", wl_copy_rect),

    /* Fill. */
    ROW("clEnqueueFillBuffer", "buffer is not a valid buffer object",
        fill_wrong_mem, CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueFillBuffer", "buffer is of another context",
        fill_other_context, CL_INVALID_CONTEXT),
    ROW("clEnqueueFillBuffer", "the region is out of bounds",
        fill_out_of_bounds, CL_INVALID_VALUE),
    ROW("clEnqueueFillBuffer", "pattern is NULL", fill_null_pattern,
        CL_INVALID_VALUE),
    ROW("clEnqueueFillBuffer", "pattern_size is zero", fill_pattern_size_zero,
        CL_INVALID_VALUE),
    ROW("clEnqueueFillBuffer", "pattern_size is not a power of two (3)",
        fill_pattern_size_3, CL_INVALID_VALUE),
    ROW("clEnqueueFillBuffer", "pattern_size is greater than 128",
        fill_pattern_size_256, CL_INVALID_VALUE),
    ROW("clEnqueueFillBuffer", "offset is not a multiple of pattern_size",
        fill_offset_not_multiple, CL_INVALID_VALUE),
    ROW("clEnqueueFillBuffer", "size is not a multiple of pattern_size",
        fill_size_not_multiple, CL_INVALID_VALUE),
    ROW("clEnqueueFillBuffer", "size 0 is no error", fill_size_zero,
        CL_SUCCESS),
    ROW("clEnqueueFillBuffer", "pattern_size 128", fill_128, CL_SUCCESS),
    WAIT_LIST_ROWS("clEnqueueFillBuffer", wl_fill),

    /* Map, unmap, migrate. */
    ROW("clEnqueueMapBuffer", "buffer is not a valid buffer object",
        map_wrong_mem, CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueMapBuffer", "buffer is of another context", map_other_context,
        CL_INVALID_CONTEXT),
    ROW("clEnqueueMapBuffer", "the region is out of bounds", map_out_of_bounds,
        CL_INVALID_VALUE),
    ROW("clEnqueueMapBuffer", "size is zero", map_size_zero, CL_INVALID_VALUE),
    ROW("clEnqueueMapBuffer", "map_flags are not valid (unknown bit)",
        map_bad_flags, CL_INVALID_VALUE),
    ROW("clEnqueueMapBuffer", "map_flags: WRITE_INVALIDATE_REGION with READ",
        map_invalidate_with_read, CL_INVALID_VALUE),
    ROW("clEnqueueMapBuffer", "CL_MAP_READ of a CL_MEM_HOST_WRITE_ONLY buffer",
        map_read_host_write_only, CL_INVALID_OPERATION),
    ROW("clEnqueueMapBuffer", "CL_MAP_READ of a CL_MEM_HOST_NO_ACCESS buffer",
        map_read_host_no_access, CL_INVALID_OPERATION),
    ROW("clEnqueueMapBuffer", "CL_MAP_WRITE of a CL_MEM_HOST_READ_ONLY buffer",
        map_write_host_read_only, CL_INVALID_OPERATION),
    ROW("clEnqueueMapBuffer",
        "CL_MAP_WRITE_INVALIDATE_REGION of a CL_MEM_HOST_READ_ONLY buffer",
        map_invalidate_host_read_only, CL_INVALID_OPERATION),
    ROW_CREATES(
        "clEnqueueMapBuffer", "blocking, and an event in the wait list failed",
        map_failed_wait_list, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
    ROW("clEnqueueMapBuffer", "(the failed maps left CL_MEM_MAP_COUNT at 0)",
        map_count_after_failures, CL_SUCCESS),
    WAIT_LIST_ROWS("clEnqueueMapBuffer", wl_map),
    ROW("clEnqueueUnmapMemObject", "mapped_ptr was not returned by a map",
        unmap_not_mapped, CL_INVALID_VALUE),
    ROW("clEnqueueUnmapMemObject", "mapped_ptr was mapped from another buffer",
        unmap_other_buffer, CL_INVALID_VALUE),
    ROW("clEnqueueUnmapMemObject", "memobj is not a valid memory object",
        unmap_wrong_mem, CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueUnmapMemObject", "command_queue is not a valid queue",
        unmap_wrong_queue, CL_INVALID_COMMAND_QUEUE),
    ROW("clEnqueueUnmapMemObject", "memobj and command_queue contexts differ",
        unmap_other_context, CL_INVALID_CONTEXT),
    WAIT_LIST_ROWS("clEnqueueUnmapMemObject", wl_unmap),
    ROW("clEnqueueMigrateMemObjects", "num_mem_objects is zero", migrate_zero,
        CL_INVALID_VALUE),
    ROW("clEnqueueMigrateMemObjects", "mem_objects is NULL", migrate_null,
        CL_INVALID_VALUE),
    ROW("clEnqueueMigrateMemObjects", "flags are not valid", migrate_bad_flags,
        CL_INVALID_VALUE),
    ROW("clEnqueueMigrateMemObjects", "a memory object is not valid",
        migrate_wrong_mem, CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueMigrateMemObjects", "a memory object of another context",
        migrate_other_context, CL_INVALID_CONTEXT),
    WAIT_LIST_ROWS("clEnqueueMigrateMemObjects", wl_migrate),

    /* Kernels. */
    ROW("clEnqueueNDRangeKernel", "command_queue is not a valid queue",
        ndrange_wrong_queue, CL_INVALID_COMMAND_QUEUE),
    ROW("clEnqueueNDRangeKernel", "kernel is not a valid kernel",
        ndrange_wrong_kernel, CL_INVALID_KERNEL),
    ROW("clEnqueueNDRangeKernel", "contexts of command_queue and kernel differ",
        ndrange_other_context, CL_INVALID_CONTEXT),
    ROW("clEnqueueNDRangeKernel", "work_dim is 0", ndrange_dim_zero,
        CL_INVALID_WORK_DIMENSION),
    ROW("clEnqueueNDRangeKernel",
        "work_dim > CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS", ndrange_dim_four,
        CL_INVALID_WORK_DIMENSION),
    ROW("clEnqueueNDRangeKernel", "no kernel argument has been set",
        ndrange_args_unset, CL_INVALID_KERNEL_ARGS),
    ROW("clEnqueueNDRangeKernel", "some kernel arguments have not been set",
        ndrange_some_args_unset, CL_INVALID_KERNEL_ARGS),
    ROW("clEnqueueNDRangeKernel", "the work-group has zero work-items",
        ndrange_local_zero, CL_INVALID_WORK_GROUP_SIZE),
    ROW("clEnqueueNDRangeKernel", "work-items > CL_KERNEL_WORK_GROUP_SIZE",
        ndrange_group_too_big, CL_INVALID_WORK_GROUP_SIZE),
    ROW2("clEnqueueNDRangeKernel",
         "local_work_size[1] > CL_DEVICE_MAX_WORK_ITEM_SIZES[1]",
         ndrange_item_too_big, CL_INVALID_WORK_ITEM_SIZE,
         CL_INVALID_WORK_GROUP_SIZE),
    ROW("clEnqueueNDRangeKernel",
        "uniform groups (OpenCL C 1.2), not divisible",
        ndrange_not_divisible_cl12, CL_INVALID_WORK_GROUP_SIZE),
    ROW("clEnqueueNDRangeKernel",
        "-cl-uniform-work-group-size and not divisible",
        ndrange_not_divisible_uniform, CL_INVALID_WORK_GROUP_SIZE),
    ROW("clEnqueueNDRangeKernel", "local size != reqd_work_group_size",
        ndrange_reqd_mismatch, CL_INVALID_WORK_GROUP_SIZE),
    ROW("clEnqueueNDRangeKernel", "local size != reqd_work_group_size (2D)",
        ndrange_reqd_mismatch_2d, CL_INVALID_WORK_GROUP_SIZE),
    ROW("clEnqueueNDRangeKernel", "global_work_size + offset > SIZE_MAX",
        ndrange_offset_overflow, CL_INVALID_GLOBAL_OFFSET),
    ROW("clEnqueueNDRangeKernel",
        "global_work_size + offset > SIZE_MAX (dim 1)",
        ndrange_offset_overflow_dim2, CL_INVALID_GLOBAL_OFFSET),
    ROW("clEnqueueNDRangeKernel", "global_work_size NULL (an empty command)",
        ndrange_null_global, CL_SUCCESS),
    ROW("clEnqueueNDRangeKernel", "a global_work_size of 0 (an empty command)",
        ndrange_global_zero, CL_SUCCESS),
    ROW("clEnqueueNDRangeKernel", "__local memory > CL_DEVICE_LOCAL_MEM_SIZE",
        ndrange_local_mem_too_big, CL_OUT_OF_RESOURCES),
    ROW("clEnqueueNDRangeKernel", "an aligned sub-buffer argument",
        ndrange_sub_buffer_arg, CL_SUCCESS),
    WAIT_LIST_ROWS("clEnqueueNDRangeKernel", wl_ndrange),
    ROW("clEnqueueTask", "the kernel requires a work-group size not (1,1,1)",
        task_reqd, CL_INVALID_WORK_GROUP_SIZE),
    ROW("clEnqueueTask", "the kernel argument values have not been specified",
        task_args_unset, CL_INVALID_KERNEL_ARGS),
    ROW("clEnqueueTask", "command_queue is not a valid queue", task_wrong_queue,
        CL_INVALID_COMMAND_QUEUE),
    ROW("clEnqueueTask", "kernel is not a valid kernel", task_wrong_kernel,
        CL_INVALID_KERNEL),
    ROW("clEnqueueTask", "contexts of command_queue and kernel differ",
        task_other_context, CL_INVALID_CONTEXT),
    WAIT_LIST_ROWS("clEnqueueTask", wl_task),

    /* Events, markers, barriers. */
    ROW("clWaitForEvents", "num_events is zero", wait_zero, CL_INVALID_VALUE),
    ROW("clWaitForEvents", "event_list is NULL", wait_null, CL_INVALID_VALUE),
    ROW("clWaitForEvents", "an event object is not valid", wait_not_event,
        CL_INVALID_EVENT),
    ROW("clWaitForEvents", "events do not belong to the same context",
        wait_two_contexts, CL_INVALID_CONTEXT),
    ROW("clWaitForEvents", "an event's execution status is negative",
        wait_failed, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
    ROW("clWaitForEvents", "a command whose wait list failed",
        wait_failed_dependent, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
    ROW("clGetEventInfo", "event is not a valid event object", event_info_wrong,
        CL_INVALID_EVENT),
    ROW("clGetEventInfo", "param_name is not one of the supported values",
        event_info_bad_name, CL_INVALID_VALUE),
    ROW("clGetEventInfo", "param_value_size < size of the return type",
        event_info_too_small, CL_INVALID_VALUE),
    ROW("clGetEventProfilingInfo", "event is not a valid event object",
        profiling_wrong, CL_INVALID_EVENT),
    ROW("clGetEventProfilingInfo", "event is a user event",
        profiling_user_event, CL_PROFILING_INFO_NOT_AVAILABLE),
    ROW("clGetEventProfilingInfo", "CL_QUEUE_PROFILING_ENABLE not set",
        profiling_not_enabled, CL_PROFILING_INFO_NOT_AVAILABLE),
    ROW("clGetEventProfilingInfo", "the command is not CL_COMPLETE",
        profiling_not_complete, CL_PROFILING_INFO_NOT_AVAILABLE),
    ROW("clGetEventProfilingInfo",
        "param_name is not one of the supported values", profiling_bad_name,
        CL_INVALID_VALUE),
    ROW("clGetEventProfilingInfo", "param_value_size < size of the return type",
        profiling_too_small, CL_INVALID_VALUE),
    ROW("clCreateUserEvent", "context is not a valid context",
        user_event_wrong_context, CL_INVALID_CONTEXT),
    ROW("clSetUserEventStatus", "event is not a user event object",
        user_status_not_user, CL_INVALID_EVENT),
    ROW("clSetUserEventStatus", "execution_status is CL_RUNNING",
        user_status_running, CL_INVALID_VALUE),
    ROW("clSetUserEventStatus", "execution_status is CL_SUBMITTED",
        user_status_submitted, CL_INVALID_VALUE),
    ROW("clSetUserEventStatus", "execution_status is positive (7)",
        user_status_positive, CL_INVALID_VALUE),
    ROW("clSetUserEventStatus", "the status was already set (CL_COMPLETE)",
        user_status_twice, CL_INVALID_OPERATION),
    ROW("clSetUserEventStatus", "the status was already set (an error)",
        user_status_after_error, CL_INVALID_OPERATION),
    ROW("clSetEventCallback", "pfn_event_notify is NULL", callback_null,
        CL_INVALID_VALUE),
    ROW("clSetEventCallback", "command_exec_callback_type is CL_QUEUED",
        callback_queued, CL_INVALID_VALUE),
    ROW("clSetEventCallback", "command_exec_callback_type is 7",
        callback_type_7, CL_INVALID_VALUE),
    ROW("clSetEventCallback", "command_exec_callback_type is negative",
        callback_type_negative, CL_INVALID_VALUE),
    ROW("clSetEventCallback", "event is not a valid event object",
        callback_wrong, CL_INVALID_EVENT),
    ROW("clRetainEvent", "event is not a valid event object",
        retain_event_wrong, CL_INVALID_EVENT),
    ROW("clReleaseEvent", "event is not a valid event object",
        release_event_wrong, CL_INVALID_EVENT),
    ROW("clEnqueueMarkerWithWaitList", "command_queue is not a valid queue",
        marker_wrong_queue, CL_INVALID_COMMAND_QUEUE),
    WAIT_LIST_ROWS("clEnqueueMarkerWithWaitList", wl_marker),
    ROW("clEnqueueBarrierWithWaitList", "command_queue is not a valid queue",
        barrier_wrong_queue, CL_INVALID_COMMAND_QUEUE),
    WAIT_LIST_ROWS("clEnqueueBarrierWithWaitList", wl_barrier),
    ROW("clEnqueueMarker", "event is NULL", marker_legacy_null,
        CL_INVALID_VALUE),
    ROW("clEnqueueMarker", "command_queue is not a valid queue",
        marker_legacy_wrong_queue, CL_INVALID_COMMAND_QUEUE),
    ROW("clEnqueueBarrier", "command_queue is not a valid queue",
        barrier_legacy_wrong_queue, CL_INVALID_COMMAND_QUEUE),
    ROW("clEnqueueWaitForEvents", "num_events is 0", wait_events_zero,
        CL_INVALID_VALUE),
    ROW("clEnqueueWaitForEvents", "event_list is NULL", wait_events_null,
        CL_INVALID_VALUE),
    ROW("clEnqueueWaitForEvents", "an event of another context",
        wait_events_other_context, CL_INVALID_CONTEXT),
    ROW("clEnqueueWaitForEvents", "command_queue is not a valid queue",
        wait_events_wrong_queue, CL_INVALID_COMMAND_QUEUE),

    /* No image support (runtime/api/api_image.c and api_sampler.c with
     * SKEIN_IMAGES=0, which test-api-errors.c sets); SVM; pipes (one
     * error each: test-pipes has the rest); not implemented
     * (icd/missing.c): native kernels. */
    ROW("clCreateImage", "no device in context supports images", image,
        CL_INVALID_OPERATION),
    ROW("clCreateImage", "context is not a valid context", image_wrong_context,
        CL_INVALID_CONTEXT),
    ROW("clCreateImageWithProperties", "no device in context supports images",
        image_with_properties, CL_INVALID_OPERATION),
    ROW("clCreateImage2D", "no device in context supports images", image_2d,
        CL_INVALID_OPERATION),
    ROW("clCreateImage3D", "no device in context supports images", image_3d,
        CL_INVALID_OPERATION),
    ROW("clGetSupportedImageFormats", "no formats (count 0)", image_formats,
        CL_SUCCESS),
    ROW("clGetSupportedImageFormats", "image_type is not valid",
        image_formats_bad_type, CL_INVALID_VALUE),
    ROW("clGetSupportedImageFormats", "flags are not valid",
        image_formats_bad_flags, CL_INVALID_VALUE),
    ROW("clGetSupportedImageFormats",
        "num_entries is zero and image_formats is not NULL",
        image_formats_zero_entries, CL_INVALID_VALUE),
    ROW("clGetImageInfo", "image is not a valid image object (a buffer)",
        image_info, CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueReadImage", "image is not a valid image object", read_image,
        CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueWriteImage", "image is not a valid image object", write_image,
        CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueCopyImage", "src_image is not a valid image object",
        copy_image, CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueCopyImageToBuffer", "src_image is not a valid image object",
        copy_image_to_buffer, CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueCopyBufferToImage", "dst_image is not a valid image object",
        copy_buffer_to_image, CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueMapImage", "image is not a valid image object", map_image,
        CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueFillImage", "image is not a valid image object", fill_image,
        CL_INVALID_MEM_OBJECT),
    ROW("clCreateSampler", "no device in context supports images", sampler,
        CL_INVALID_OPERATION),
    ROW("clCreateSamplerWithProperties", "no device supports images",
        sampler_with_properties, CL_INVALID_OPERATION),
    ROW("clRetainSampler", "sampler is not a valid sampler object",
        retain_sampler, CL_INVALID_SAMPLER),
    ROW("clReleaseSampler", "sampler is not a valid sampler object",
        release_sampler, CL_INVALID_SAMPLER),
    ROW("clGetSamplerInfo", "sampler is not a valid sampler object",
        sampler_info, CL_INVALID_SAMPLER),
    ROW("clSVMAlloc", "size is 0: returns NULL", svm_alloc,
        CL_INVALID_VALUE),
    ROW("clSVMFree", "a pointer clSVMAlloc did not return: does nothing",
        svm_free, CL_SUCCESS),
    ROW("clEnqueueSVMFree", "no callback and a pointer not from clSVMAlloc",
        svm_enqueue_free, CL_INVALID_VALUE),
    ROW("clEnqueueSVMMemcpy", "source and destination overlap", svm_memcpy,
        CL_MEM_COPY_OVERLAP),
    ROW("clEnqueueSVMMemFill", "svm_ptr is not aligned to pattern_size",
        svm_memfill, CL_INVALID_VALUE),
    ROW("clEnqueueSVMMap", "size is 0", svm_map, CL_INVALID_VALUE),
    ROW("clEnqueueSVMUnmap", "svm_ptr is NULL", svm_unmap, CL_INVALID_VALUE),
    ROW("clEnqueueSVMMigrateMem", "a range outside every clSVMAlloc allocation",
        svm_migrate, CL_INVALID_VALUE),
    ROW("clCreatePipe", "pipe_packet_size is 0", pipe_create,
        CL_INVALID_PIPE_SIZE),
    ROW("clGetPipeInfo", "pipe is not a valid pipe object (a buffer)",
        pipe_info, CL_INVALID_MEM_OBJECT),
    ROW("clEnqueueNativeKernel", "CL_EXEC_NATIVE_KERNEL is not supported",
        native_kernel, CL_INVALID_OPERATION),
};
const size_t num_command_rows = sizeof command_rows / sizeof command_rows[0];
