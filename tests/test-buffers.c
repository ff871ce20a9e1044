/* Tests buffer objects and buffer commands: every creation flag,
 * sub-buffers, read/write/copy/fill (every pattern size), the *Rect
 * variants with pitches, map/unmap, migrate, and their error codes. */
#include "test_util.h"
#include <stdint.h>

#define N 4096

static void fill_ramp(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)(i * 7 + seed);
}

static void test_flags(test_env *env) {
  cl_int err;
  unsigned char host[N], out[N];
  fill_ramp(host, N, 1);

  /* COPY_HOST_PTR: contents copied at creation, later host changes not seen. */
  cl_mem m = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, N, host, &err);
  REQUIRE_OK(err);
  host[0] ^= 0xff;
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, N, out, 0, NULL,
                                 NULL));
  CHECK_EQ(out[0], (unsigned char)(host[0] ^ 0xff));
  CHECK(memcmp(out + 1, host + 1, N - 1) == 0);
  cl_mem_flags flags = 0;
  REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof flags, &flags, NULL));
  CHECK_EQ(flags, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_WRITE);
  void *hp = (void *)1;
  REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof hp, &hp, NULL));
  CHECK(hp == NULL);
  REQUIRE_OK(clReleaseMemObject(m));

  /* USE_HOST_PTR: zero-copy, writes land in the application's memory and
   * mapping returns it. */
  m = clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, N, host, &err);
  REQUIRE_OK(err);
  unsigned char val[16];
  memset(val, 0xab, sizeof val);
  REQUIRE_OK(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 100, sizeof val, val,
                                  0, NULL, NULL));
  CHECK(memcmp(host + 100, val, sizeof val) == 0);
  void *mapped = clEnqueueMapBuffer(env->queue, m, CL_TRUE, CL_MAP_READ, 64,
                                    128, 0, NULL, NULL, &err);
  REQUIRE_OK(err);
  CHECK(mapped == host + 64);
  REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof hp, &hp, NULL));
  CHECK(hp == host);
  REQUIRE_OK(clEnqueueUnmapMemObject(env->queue, m, mapped, 0, NULL, NULL));
  REQUIRE_OK(clReleaseMemObject(m));

  /* ALLOC_HOST_PTR, alignment, and the access/host-access flags. */
  m = clCreateBuffer(env->context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_ONLY |
                                       CL_MEM_HOST_WRITE_ONLY,
                     N, NULL, &err);
  REQUIRE_OK(err);
  cl_uint align_bits = 0;
  REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                             sizeof align_bits, &align_bits, NULL));
  mapped = clEnqueueMapBuffer(env->queue, m, CL_TRUE, CL_MAP_WRITE, 0, N, 0,
                              NULL, NULL, &err);
  REQUIRE_OK(err);
  CHECK((uintptr_t)mapped % (align_bits / 8) == 0);
  REQUIRE_OK(clEnqueueUnmapMemObject(env->queue, m, mapped, 0, NULL, NULL));
  CHECK_EQ(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, N, out, 0, NULL,
                               NULL),
           CL_INVALID_OPERATION);
  clEnqueueMapBuffer(env->queue, m, CL_TRUE, CL_MAP_READ, 0, N, 0, NULL, NULL,
                     &err);
  CHECK_EQ(err, CL_INVALID_OPERATION);
  REQUIRE_OK(clReleaseMemObject(m));
  m = clCreateBuffer(env->context, CL_MEM_HOST_READ_ONLY, N, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clEnqueueWriteBuffer(env->queue, m, CL_TRUE, 0, N, host, 0, NULL,
                                NULL),
           CL_INVALID_OPERATION);
  REQUIRE_OK(clReleaseMemObject(m));
  m = clCreateBuffer(env->context, CL_MEM_HOST_NO_ACCESS | CL_MEM_WRITE_ONLY,
                     N, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, N, out, 0, NULL,
                               NULL),
           CL_INVALID_OPERATION);
  REQUIRE_OK(clReleaseMemObject(m));

  /* Creation errors. */
  CHECK(clCreateBuffer(env->context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, N,
                       NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateBuffer(env->context,
                       CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, N, NULL,
                       &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR,
                       N, host, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateBuffer(env->context, 1ull << 40, N, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateBuffer(env->context, 0, 0, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_BUFFER_SIZE);
  cl_ulong max_alloc = 0;
  REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                             sizeof max_alloc, &max_alloc, NULL));
  CHECK(clCreateBuffer(env->context, 0, (size_t)max_alloc + 1, NULL, &err) ==
        NULL);
  CHECK_EQ(err, CL_INVALID_BUFFER_SIZE);
  CHECK(clCreateBuffer(env->context, CL_MEM_USE_HOST_PTR, N, NULL, &err) ==
        NULL);
  CHECK_EQ(err, CL_INVALID_HOST_PTR);
  CHECK(clCreateBuffer(env->context, 0, N, host, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_HOST_PTR);
  CHECK(clCreateBuffer(NULL, 0, N, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  cl_mem_properties bad_props[] = {0x7777, 0, 0};
  CHECK(clCreateBufferWithProperties(env->context, bad_props, 0, N, NULL,
                                     &err) == NULL);
  CHECK_EQ(err, CL_INVALID_PROPERTY);
  CHECK_EQ(clRetainMemObject(NULL), CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clReleaseMemObject((cl_mem)env->queue), CL_INVALID_MEM_OBJECT);
}

static int destructor_calls;
static void CL_CALLBACK on_destroy(cl_mem m, void *data) {
  (void)m;
  destructor_calls = destructor_calls * 10 + (int)(size_t)data;
}

static void test_sub_buffers(test_env *env) {
  cl_int err;
  unsigned char host[N], out[N];
  fill_ramp(host, N, 3);
  cl_mem parent = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR |
                                                   CL_MEM_READ_WRITE,
                                 N, host, &err);
  REQUIRE_OK(err);
  cl_buffer_region region = {1024, 512};
  cl_mem sub = clCreateSubBuffer(parent, CL_MEM_READ_ONLY,
                                 CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, sub, CL_TRUE, 0, 512, out, 0,
                                 NULL, NULL));
  CHECK(memcmp(out, host + 1024, 512) == 0);
  /* Writes through the parent are seen through the sub-buffer. */
  unsigned char v = 0x5a;
  REQUIRE_OK(clEnqueueWriteBuffer(env->queue, parent, CL_TRUE, 1030, 1, &v, 0,
                                  NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, sub, CL_TRUE, 6, 1, out, 0, NULL,
                                 NULL));
  CHECK_EQ(out[0], 0x5a);
  cl_mem assoc = NULL;
  size_t off = 0, size = 0;
  REQUIRE_OK(clGetMemObjectInfo(sub, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc,
                                &assoc, NULL));
  CHECK(assoc == parent);
  REQUIRE_OK(clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof off, &off, NULL));
  CHECK_EQ(off, 1024);
  REQUIRE_OK(clGetMemObjectInfo(sub, CL_MEM_SIZE, sizeof size, &size, NULL));
  CHECK_EQ(size, 512);
  /* Errors: out of bounds, misaligned, size 0, sub of sub, bad flags. */
  cl_buffer_region oob = {N - 128, 256};
  CHECK(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &oob,
                          &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  cl_buffer_region mis = {3, 16};
  CHECK(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &mis,
                          &err) == NULL);
  CHECK_EQ(err, CL_MISALIGNED_SUB_BUFFER_OFFSET);
  cl_buffer_region empty = {0, 0};
  CHECK(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &empty,
                          &err) == NULL);
  CHECK_EQ(err, CL_INVALID_BUFFER_SIZE);
  cl_buffer_region inner = {0, 64};
  CHECK(clCreateSubBuffer(sub, 0, CL_BUFFER_CREATE_TYPE_REGION, &inner,
                          &err) == NULL);
  CHECK_EQ(err, CL_INVALID_MEM_OBJECT);
  CHECK(clCreateSubBuffer(parent, CL_MEM_USE_HOST_PTR,
                          CL_BUFFER_CREATE_TYPE_REGION, &inner, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateSubBuffer(parent, 0, 0x7777, &inner, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, NULL,
                          &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  /* A read-only parent refuses a read-write child. */
  cl_mem ro = clCreateBuffer(env->context, CL_MEM_READ_ONLY, N, NULL, &err);
  REQUIRE_OK(err);
  CHECK(clCreateSubBuffer(ro, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                          &inner, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  REQUIRE_OK(clReleaseMemObject(ro));
  /* Copies between a buffer and its own sub-buffer that overlap. */
  CHECK_EQ(clEnqueueCopyBuffer(env->queue, parent, sub, 1024, 0, 64, 0, NULL,
                               NULL),
           CL_MEM_COPY_OVERLAP);
  REQUIRE_OK(clEnqueueCopyBuffer(env->queue, parent, sub, 0, 0, 64, 0, NULL,
                                 NULL));
  /* Destructor callbacks: newest first, when the last reference goes (the
   * sub-buffer holds one on its parent). */
  REQUIRE_OK(clSetMemObjectDestructorCallback(parent, on_destroy, (void *)1));
  REQUIRE_OK(clSetMemObjectDestructorCallback(parent, on_destroy, (void *)2));
  REQUIRE_OK(clFinish(env->queue));
  REQUIRE_OK(clReleaseMemObject(parent));
  CHECK_EQ(destructor_calls, 0);
  REQUIRE_OK(clReleaseMemObject(sub));
  CHECK_EQ(destructor_calls, 21);
}

static void test_transfers(test_env *env) {
  cl_int err;
  unsigned char host[N], out[N], ref[N];
  fill_ramp(host, N, 5);
  cl_mem a = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, N, host, &err);
  REQUIRE_OK(err);
  cl_mem b = clCreateBuffer(env->context, 0, N, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clEnqueueCopyBuffer(env->queue, a, b, 0, 0, N, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueCopyBuffer(env->queue, a, b, 10, 2000, 300, 0, NULL,
                                 NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, N, out, 0, NULL,
                                 NULL));
  memcpy(ref, host, N);
  memcpy(ref + 2000, host + 10, 300);
  CHECK(memcmp(out, ref, N) == 0);

  /* Fill with every legal pattern size, at an offset. */
  for (size_t ps = 1; ps <= 128; ps *= 2) {
    unsigned char pattern[128];
    fill_ramp(pattern, ps, (unsigned)ps);
    REQUIRE_OK(clEnqueueWriteBuffer(env->queue, b, CL_FALSE, 0, N, host, 0,
                                    NULL, NULL));
    size_t offset = ps * 3, size = ps * 9;
    REQUIRE_OK(clEnqueueFillBuffer(env->queue, b, pattern, ps, offset, size, 0,
                                   NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, N, out, 0, NULL,
                                   NULL));
    memcpy(ref, host, N);
    for (size_t i = 0; i < size; i++)
      ref[offset + i] = pattern[i % ps];
    CHECK(memcmp(out, ref, N) == 0);
  }
  unsigned char pat[4] = {0};
  CHECK_EQ(clEnqueueFillBuffer(env->queue, b, pat, 3, 0, 12, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueFillBuffer(env->queue, b, pat, 4, 2, 12, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueFillBuffer(env->queue, b, NULL, 4, 0, 12, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueFillBuffer(env->queue, b, pat, 256, 0, 256, 0, NULL, NULL),
           CL_INVALID_VALUE);

  /* Range and argument errors. */
  CHECK_EQ(clEnqueueReadBuffer(env->queue, a, CL_TRUE, N - 10, 11, out, 0,
                               NULL, NULL),
           CL_INVALID_VALUE);
  /* Size 0 is no error since OpenCL 2.1 (1.2 and 2.0 listed it). */
  CHECK_EQ(clEnqueueReadBuffer(env->queue, a, CL_TRUE, 0, 0, out, 0, NULL,
                               NULL),
           CL_SUCCESS);
  CHECK_EQ(clEnqueueReadBuffer(env->queue, a, CL_TRUE, 0, 4, NULL, 0, NULL,
                               NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueWriteBuffer(env->queue, NULL, CL_TRUE, 0, 4, host, 0,
                                NULL, NULL),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clEnqueueWriteBuffer(NULL, a, CL_TRUE, 0, 4, host, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clEnqueueReadBuffer(env->queue, a, CL_TRUE, 0, 4, out, 1, NULL,
                               NULL),
           CL_INVALID_EVENT_WAIT_LIST);
  cl_event none = NULL;
  CHECK_EQ(clEnqueueReadBuffer(env->queue, a, CL_TRUE, 0, 4, out, 0, &none,
                               NULL),
           CL_INVALID_EVENT_WAIT_LIST);
  CHECK_EQ(clEnqueueCopyBuffer(env->queue, a, a, 0, 100, 200, 0, NULL, NULL),
           CL_MEM_COPY_OVERLAP);
  CHECK_EQ(clEnqueueCopyBuffer(env->queue, a, b, 0, N - 1, 2, 0, NULL, NULL),
           CL_INVALID_VALUE);
  /* A buffer from another context. */
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  REQUIRE_OK(err);
  cl_mem foreign = clCreateBuffer(other, 0, N, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clEnqueueReadBuffer(env->queue, foreign, CL_TRUE, 0, 4, out, 0,
                               NULL, NULL),
           CL_INVALID_CONTEXT);
  REQUIRE_OK(clReleaseMemObject(foreign));
  REQUIRE_OK(clReleaseContext(other));

  /* Migrate only orders. */
  cl_mem both[2] = {a, b};
  REQUIRE_OK(clEnqueueMigrateMemObjects(env->queue, 2, both,
                                        CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL,
                                        NULL));
  CHECK_EQ(clEnqueueMigrateMemObjects(env->queue, 0, both, 0, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueMigrateMemObjects(env->queue, 2, both, 1u << 10, 0, NULL,
                                      NULL),
           CL_INVALID_VALUE);
  REQUIRE_OK(clReleaseMemObject(a));
  REQUIRE_OK(clReleaseMemObject(b));
}

/* Host reference of a rectangle copy with pitches. */
static void ref_rect(unsigned char *dst, const unsigned char *src,
                     const size_t so[3], const size_t dorg[3],
                     const size_t r[3], size_t srow, size_t sslice,
                     size_t drow, size_t dslice) {
  for (size_t z = 0; z < r[2]; z++)
    for (size_t y = 0; y < r[1]; y++)
      for (size_t x = 0; x < r[0]; x++)
        dst[(dorg[2] + z) * dslice + (dorg[1] + y) * drow + dorg[0] + x] =
            src[(so[2] + z) * sslice + (so[1] + y) * srow + so[0] + x];
}

static void test_rect(test_env *env) {
  cl_int err;
  enum { ROW = 32, SLICE = 32 * 16, SIZE = SLICE * 8 };
  unsigned char host[SIZE], out[SIZE], ref[SIZE];
  fill_ramp(host, SIZE, 9);
  cl_mem buf = clCreateBuffer(env->context, 0, SIZE, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clEnqueueFillBuffer(env->queue, buf, (unsigned char[]){0}, 1, 0,
                                 SIZE, 0, NULL, NULL));
  size_t borg[3] = {3, 2, 1}, horg[3] = {1, 4, 2}, region[3] = {10, 5, 3};
  /* Host pitches differ from the buffer's. */
  size_t hrow = 24, hslice = 24 * 12;
  REQUIRE_OK(clEnqueueWriteBufferRect(env->queue, buf, CL_TRUE, borg, horg,
                                      region, ROW, SLICE, hrow, hslice, host, 0,
                                      NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, buf, CL_TRUE, 0, SIZE, out, 0,
                                 NULL, NULL));
  memset(ref, 0, SIZE);
  ref_rect(ref, host, horg, borg, region, hrow, hslice, ROW, SLICE);
  CHECK(memcmp(out, ref, SIZE) == 0);

  memset(out, 0, SIZE);
  REQUIRE_OK(clEnqueueReadBufferRect(env->queue, buf, CL_TRUE, borg, horg,
                                     region, ROW, SLICE, hrow, hslice, out, 0,
                                     NULL, NULL));
  unsigned char ref2[SIZE];
  memset(ref2, 0, SIZE);
  ref_rect(ref2, ref, borg, horg, region, ROW, SLICE, hrow, hslice);
  CHECK(memcmp(out, ref2, SIZE) == 0);

  /* Copy within one buffer, non-overlapping, default (0) pitches. */
  cl_mem src = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, SIZE, host,
                              &err);
  REQUIRE_OK(err);
  size_t sorg[3] = {0, 0, 0}, dorg[3] = {0, 0, 4}, r2[3] = {ROW, 16, 3};
  REQUIRE_OK(clEnqueueCopyBufferRect(env->queue, src, src, sorg, dorg, r2, 0,
                                     0, 0, 0, 0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, src, CL_TRUE, 0, SIZE, out, 0,
                                 NULL, NULL));
  memcpy(ref, host, SIZE);
  ref_rect(ref, host, sorg, dorg, r2, ROW, SLICE, ROW, SLICE);
  CHECK(memcmp(out, ref, SIZE) == 0);
  /* Overlapping copy within one buffer. */
  size_t dover[3] = {0, 0, 1};
  CHECK_EQ(clEnqueueCopyBufferRect(env->queue, src, src, sorg, dover, r2, ROW,
                                   SLICE, ROW, SLICE, 0, NULL, NULL),
           CL_MEM_COPY_OVERLAP);
  /* Interleaved rows of one buffer that share no byte are not an overlap
   * (a conformance test does this with regions too large to compare row
   * by row). */
  {
    enum { IROW = 100, ISLICE = 10000, ISIZE = 20000 };
    static unsigned char ihost[ISIZE], iout[ISIZE], iref[ISIZE];
    fill_ramp(ihost, ISIZE, 13);
    cl_mem ib = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, ISIZE,
                               ihost, &err);
    REQUIRE_OK(err);
    size_t io[3] = {0, 0, 0}, id[3] = {50, 0, 0}, ir[3] = {10, 80, 2};
    REQUIRE_OK(clEnqueueCopyBufferRect(env->queue, ib, ib, io, id, ir, IROW,
                                       ISLICE, IROW, ISLICE, 0, NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env->queue, ib, CL_TRUE, 0, ISIZE, iout, 0,
                                   NULL, NULL));
    memcpy(iref, ihost, ISIZE);
    ref_rect(iref, ihost, io, id, ir, IROW, ISLICE, IROW, ISLICE);
    CHECK(memcmp(iout, iref, ISIZE) == 0);
    /* Shifted by 5 bytes instead of 50: rows now share bytes. */
    size_t near[3] = {5, 0, 0};
    CHECK_EQ(clEnqueueCopyBufferRect(env->queue, ib, ib, io, near, ir, IROW,
                                     ISLICE, IROW, ISLICE, 0, NULL, NULL),
             CL_MEM_COPY_OVERLAP);
    /* One row down and one slice over: disjoint again. */
    size_t far2[3] = {0, 80, 0};
    REQUIRE_OK(clEnqueueCopyBufferRect(env->queue, ib, ib, io, far2,
                                       (size_t[3]){10, 20, 2}, IROW, ISLICE,
                                       IROW, ISLICE, 0, NULL, NULL));
    REQUIRE_OK(clReleaseMemObject(ib));
  }

  /* Errors: zero region, pitch smaller than the region, out of bounds. */
  size_t zero[3] = {0, 1, 1};
  CHECK_EQ(clEnqueueReadBufferRect(env->queue, buf, CL_TRUE, borg, horg, zero,
                                   ROW, SLICE, 0, 0, out, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueReadBufferRect(env->queue, buf, CL_TRUE, borg, horg,
                                   region, 5, SLICE, 0, 0, out, 0, NULL, NULL),
           CL_INVALID_VALUE);
  size_t far[3] = {0, 0, 7};
  CHECK_EQ(clEnqueueReadBufferRect(env->queue, buf, CL_TRUE, far, horg, region,
                                   ROW, SLICE, 0, 0, out, 0, NULL, NULL),
           CL_INVALID_VALUE);
  REQUIRE_OK(clReleaseMemObject(src));
  REQUIRE_OK(clReleaseMemObject(buf));
}

static void test_map(test_env *env) {
  cl_int err;
  unsigned char host[N];
  fill_ramp(host, N, 11);
  cl_mem m = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, N, host, &err);
  REQUIRE_OK(err);
  unsigned char *p = clEnqueueMapBuffer(env->queue, m, CL_TRUE,
                                        CL_MAP_READ | CL_MAP_WRITE, 256, 512,
                                        0, NULL, NULL, &err);
  REQUIRE_OK(err);
  CHECK(memcmp(p, host + 256, 512) == 0);
  cl_uint count = 0;
  REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof count, &count,
                                NULL));
  CHECK_EQ(count, 1);
  p[0] = 0x42;
  cl_event unmapped;
  REQUIRE_OK(clEnqueueUnmapMemObject(env->queue, m, p, 0, NULL, &unmapped));
  REQUIRE_OK(clWaitForEvents(1, &unmapped));
  REQUIRE_OK(clReleaseEvent(unmapped));
  REQUIRE_OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof count, &count,
                                NULL));
  CHECK_EQ(count, 0);
  unsigned char out;
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 256, 1, &out, 0, NULL,
                                 NULL));
  CHECK_EQ(out, 0x42);
  /* Unmapping twice, or a pointer never mapped. */
  CHECK_EQ(clEnqueueUnmapMemObject(env->queue, m, p, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clEnqueueUnmapMemObject(env->queue, m, host, 0, NULL, NULL),
           CL_INVALID_VALUE);
  clEnqueueMapBuffer(env->queue, m, CL_TRUE, CL_MAP_READ, N, 1, 0, NULL, NULL,
                     &err);
  CHECK_EQ(err, CL_INVALID_VALUE);
  clEnqueueMapBuffer(env->queue, m, CL_TRUE,
                     CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 1, 0,
                     NULL, NULL, &err);
  CHECK_EQ(err, CL_INVALID_VALUE);
  REQUIRE_OK(clReleaseMemObject(m));
}

/* A buffer mapped for reading on one queue while a kernel on another
 * queue reads it: both see the same data, and the kernel's result is
 * right. */
static void test_map_while_kernel_reads(test_env *env) {
  cl_int err;
  enum { M = 1 << 20 };
  float *src = malloc(M * sizeof *src);
  for (int i = 0; i < M; i++)
    src[i] = (float)i * 0.25f;
  cl_mem in = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR |
                                               CL_MEM_READ_ONLY,
                             M * sizeof *src, src, &err);
  REQUIRE_OK(err);
  cl_mem out = clCreateBuffer(env->context, 0, M * sizeof *src, NULL, &err);
  REQUIRE_OK(err);
  const char *source =
      "__kernel void twice(__global const float *in, __global float *out) {\n"
      "  size_t i = get_global_id(0);\n"
      "  out[i] = in[i] * 2.0f;\n"
      "}\n";
  cl_program prog = test_build(env, source, "");
  cl_kernel k = clCreateKernel(prog, "twice", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof in, &in));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof out, &out));
  cl_command_queue other =
      clCreateCommandQueue(env->context, env->device, 0, &err);
  REQUIRE_OK(err);
  size_t global = M;
  cl_event kernel_done;
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, &kernel_done));
  float *mapped = clEnqueueMapBuffer(other, in, CL_TRUE, CL_MAP_READ, 0,
                                     M * sizeof *src, 0, NULL, NULL, &err);
  REQUIRE_OK(err);
  int bad = 0;
  for (int i = 0; i < M; i++)
    bad += mapped[i] != src[i];
  CHECK_EQ(bad, 0);
  REQUIRE_OK(clWaitForEvents(1, &kernel_done));
  REQUIRE_OK(clEnqueueUnmapMemObject(other, in, mapped, 0, NULL, NULL));
  float *result = malloc(M * sizeof *result);
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, M * sizeof *src,
                                 result, 0, NULL, NULL));
  bad = 0;
  for (int i = 0; i < M; i++)
    bad += result[i] != src[i] * 2.0f;
  CHECK_EQ(bad, 0);
  REQUIRE_OK(clFinish(other));
  clReleaseEvent(kernel_done);
  clReleaseCommandQueue(other);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseMemObject(in);
  clReleaseMemObject(out);
  free(src);
  free(result);
}

int main(void) {
  test_env env;
  test_setup(&env);
  test_flags(&env);
  test_sub_buffers(&env);
  test_transfers(&env);
  test_rect(&env);
  test_map(&env);
  test_map_while_kernel_reads(&env);
  test_teardown(&env);
  return test_finish("buffers");
}
