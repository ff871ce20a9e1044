/* cl_khr_command_buffer and cl_khr_command_buffer_multi_device through
 * the ICD loader: every command type recorded, finalized and replayed
 * many times against host references, sync-point DAGs, replays waiting
 * for events and overlapping (simultaneous use), several queues,
 * remapping, profiling of a replay, and the error code of each misuse
 * of the state machine and of every entry point's own checks. */
#include "cmdbuf_util.h"
#include <stdbool.h>
#include <stdint.h>

static cmdbuf_fns F;

enum { N = 1024, REPLAYS = 50 };

static const char *source =
    "kernel void scale(global const int *in, global int *out, int k) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * 2 + k;\n"
    "}\n"
    "kernel void bump(global int *a) { a[get_global_id(0)] += 1; }\n";

static cl_command_buffer_khr create(test_env *env, cl_command_queue q,
                                    const cl_command_buffer_properties_khr *p) {
  cl_int err;
  cl_command_buffer_khr cb = F.clCreateCommandBufferKHR(1, &q, p, &err);
  REQUIRE_OK(err);
  (void)env;
  return cb;
}

static void read_ints(test_env *env, cl_mem m, int *out, size_t n) {
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, m, CL_TRUE, 0, n * sizeof(int),
                                 out, 0, NULL, NULL));
}

/* Reporting: extensions with versions, capabilities, queue properties. */
static void test_queries(test_env *env) {
  CHECK(test_extension_listed(env, "cl_khr_command_buffer"));
  CHECK(test_extension_listed(env, "cl_khr_command_buffer_mutable_dispatch"));
  CHECK(test_extension_listed(env, "cl_khr_command_buffer_multi_device"));
  CHECK_EQ(test_extension_count(env, "cl_khr_command_buffer",
                                CL_MAKE_VERSION(0, 9, 8)), 1);
  CHECK_EQ(test_extension_count(env, "cl_khr_command_buffer_mutable_dispatch",
                                CL_MAKE_VERSION(0, 9, 5)), 1);
  CHECK_EQ(test_extension_count(env, "cl_khr_command_buffer_multi_device",
                                CL_MAKE_VERSION(0, 9, 2)), 1);
  cl_bitfield caps = 0;
  REQUIRE_OK(clGetDeviceInfo(env->device,
                             CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR,
                             sizeof caps, &caps, NULL));
  CHECK(caps & CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR);
  CHECK(caps & CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR);
  CHECK(caps & CL_COMMAND_BUFFER_CAPABILITY_MULTIPLE_QUEUE_KHR);
  cl_command_queue_properties qp = 99;
  REQUIRE_OK(clGetDeviceInfo(env->device,
                             CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR,
                             sizeof qp, &qp, NULL));
  CHECK_EQ(qp, 0);
  REQUIRE_OK(clGetDeviceInfo(
      env->device, CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR,
      sizeof qp, &qp, NULL));
  CHECK_EQ(qp, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                   CL_QUEUE_PROFILING_ENABLE);
  cl_uint num_sync = 0;
  cl_device_id sync_dev = NULL;
  REQUIRE_OK(clGetDeviceInfo(env->device,
                             CL_DEVICE_COMMAND_BUFFER_NUM_SYNC_DEVICES_KHR,
                             sizeof num_sync, &num_sync, NULL));
  REQUIRE_OK(clGetDeviceInfo(env->device,
                             CL_DEVICE_COMMAND_BUFFER_SYNC_DEVICES_KHR,
                             sizeof sync_dev, &sync_dev, NULL));
  CHECK_EQ(num_sync, 1);
  CHECK(sync_dev == env->device);
  cl_bitfield pcaps = 0;
  REQUIRE_OK(clGetPlatformInfo(env->platform,
                               CL_PLATFORM_COMMAND_BUFFER_CAPABILITIES_KHR,
                               sizeof pcaps, &pcaps, NULL));
  CHECK_EQ(pcaps, CL_COMMAND_BUFFER_PLATFORM_UNIVERSAL_SYNC_KHR |
                      CL_COMMAND_BUFFER_PLATFORM_REMAP_QUEUES_KHR);
}

/* Fill, copy, kernel, rect copy and SVM commands in a sync-point DAG,
 * replayed REPLAYS times with new input written between replays. */
static void test_buffers_and_kernel(test_env *env, cl_program prog) {
  cl_int err;
  cl_mem in = test_buffer(env, N * sizeof(int), NULL);
  cl_mem tmp = test_buffer(env, N * sizeof(int), NULL);
  cl_mem out = test_buffer(env, N * sizeof(int), NULL);
  cl_mem filled = test_buffer(env, N * sizeof(int), NULL);
  cl_mem rect = test_buffer(env, 64 * 64 * sizeof(int), NULL);
  int *svm_a = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof(int), 0);
  int *svm_b = clSVMAlloc(env->context, CL_MEM_READ_WRITE, N * sizeof(int), 0);
  REQUIRE_OK(svm_a && svm_b ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY);
  cl_kernel k = clCreateKernel(prog, "scale", &err);
  REQUIRE_OK(err);
  int kval = 7;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof tmp, &tmp));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof out, &out));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof kval, &kval));

  cl_command_buffer_khr cb = create(env, env->queue, NULL);
  CHECK_EQ(cmdbuf_state(&F, cb), CL_COMMAND_BUFFER_STATE_RECORDING_KHR);
  cl_sync_point_khr s_copy, s_kernel, s_fill, s_rect, s_svm1, s_svm2, s_bar;
  int pattern = 0x5a5a0102;
  REQUIRE_OK(F.clCommandFillBufferKHR(cb, NULL, NULL, filled, &pattern,
                                      sizeof pattern, 0, N * sizeof(int), 0,
                                      NULL, &s_fill, NULL));
  REQUIRE_OK(F.clCommandCopyBufferKHR(cb, NULL, NULL, in, tmp, 0, 0,
                                      N * sizeof(int), 0, NULL, &s_copy,
                                      NULL));
  size_t gsz = N;
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, k, 1, NULL, &gsz,
                                         NULL, 1, &s_copy, &s_kernel, NULL));
  /* out (viewed as 32 x 32 ints) into the middle of a 64 x 64 grid. */
  size_t so[3] = {0, 0, 0}, dor[3] = {16 * sizeof(int), 16, 0};
  size_t region[3] = {32 * sizeof(int), 32, 1};
  REQUIRE_OK(F.clCommandCopyBufferRectKHR(
      cb, NULL, NULL, out, rect, so, dor, region, 32 * sizeof(int), 0,
      64 * sizeof(int), 0, 1, &s_kernel, &s_rect, NULL));
  int svm_pattern = -3;
  REQUIRE_OK(F.clCommandSVMMemFillKHR(cb, NULL, NULL, svm_a, &svm_pattern,
                                      sizeof svm_pattern, N * sizeof(int), 0,
                                      NULL, &s_svm1, NULL));
  REQUIRE_OK(F.clCommandSVMMemcpyKHR(cb, NULL, NULL, svm_b, svm_a,
                                     N / 2 * sizeof(int), 1, &s_svm1,
                                     &s_svm2, NULL));
  cl_sync_point_khr all[] = {s_fill, s_rect, s_svm2};
  REQUIRE_OK(F.clCommandBarrierWithWaitListKHR(cb, NULL, NULL, 3, all,
                                               &s_bar, NULL));
  /* Sync points are distinct. */
  CHECK(s_copy != s_kernel && s_kernel != s_fill && s_bar != s_svm2);
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  CHECK_EQ(cmdbuf_state(&F, cb), CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);

  /* Arguments set after recording do not reach the recorded command. */
  int other = 1000;
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof other, &other));

  int host[N], got[N], grid[64 * 64];
  int bad = 0;
  for (int r = 0; r < REPLAYS; r++) {
    for (int i = 0; i < N; i++)
      host[i] = (int)(test_rand() & 0xffff) - 0x8000;
    REQUIRE_OK(clEnqueueWriteBuffer(env->queue, in, CL_FALSE, 0, sizeof host,
                                    host, 0, NULL, NULL));
    memset(svm_b, 0, N * sizeof(int));
    REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    read_ints(env, out, got, N);
    for (int i = 0; i < N; i++)
      bad += got[i] != host[i] * 2 + kval;
    read_ints(env, rect, grid, 64 * 64);
    for (int y = 0; y < 32; y++)
      for (int x = 0; x < 32; x++)
        bad += grid[(16 + y) * 64 + 16 + x] != got[y * 32 + x];
    read_ints(env, filled, got, N);
    for (int i = 0; i < N; i++)
      bad += got[i] != pattern;
    for (int i = 0; i < N; i++)
      bad += svm_b[i] != (i < N / 2 ? svm_pattern : 0);
  }
  CHECK_EQ(bad, 0);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  clSVMFree(env->context, svm_a);
  clSVMFree(env->context, svm_b);
  REQUIRE_OK(clReleaseKernel(k));
  cl_mem m[] = {in, tmp, out, filled, rect};
  test_release_buffers(m, 5);
}

/* The image commands: buffer to image, image to image, fill, image to
 * buffer. */
static void test_images(test_env *env) {
  cl_bool images = CL_FALSE;
  REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_IMAGE_SUPPORT,
                             sizeof images, &images, NULL));
  if (!images)
    return;
  cl_int err;
  enum { W = 16, H = 8 };
  cl_image_format fmt = {CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                        .image_width = W, .image_height = H};
  cl_mem a = clCreateImage(env->context, CL_MEM_READ_WRITE, &fmt, &desc, NULL,
                           &err);
  REQUIRE_OK(err);
  cl_mem b = clCreateImage(env->context, CL_MEM_READ_WRITE, &fmt, &desc, NULL,
                           &err);
  REQUIRE_OK(err);
  unsigned char src[W * H * 4], dst[W * H * 4];
  cl_mem in = test_buffer(env, sizeof src, NULL);
  cl_mem out = test_buffer(env, sizeof dst, NULL);
  cl_command_buffer_khr cb = create(env, env->queue, NULL);
  size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
  size_t fo[3] = {4, 2, 0}, fr[3] = {4, 3, 1};
  cl_uint4 color = {{9, 8, 7, 6}};
  cl_sync_point_khr s1, s2, s3;
  REQUIRE_OK(F.clCommandCopyBufferToImageKHR(cb, NULL, NULL, in, a, 0, origin,
                                             region, 0, NULL, &s1, NULL));
  REQUIRE_OK(F.clCommandCopyImageKHR(cb, NULL, NULL, a, b, origin, origin,
                                     region, 1, &s1, &s2, NULL));
  REQUIRE_OK(F.clCommandFillImageKHR(cb, NULL, NULL, b, &color, fo, fr, 1,
                                     &s2, &s3, NULL));
  REQUIRE_OK(F.clCommandCopyImageToBufferKHR(cb, NULL, NULL, b, out, origin,
                                             region, 0, 1, &s3, NULL, NULL));
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  int bad = 0;
  for (int r = 0; r < 5; r++) {
    for (size_t i = 0; i < sizeof src; i++)
      src[i] = (unsigned char)test_rand();
    REQUIRE_OK(clEnqueueWriteBuffer(env->queue, in, CL_FALSE, 0, sizeof src,
                                    src, 0, NULL, NULL));
    REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
    REQUIRE_OK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, sizeof dst,
                                   dst, 0, NULL, NULL));
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        for (int c = 0; c < 4; c++) {
          bool in_fill = x >= 4 && x < 8 && y >= 2 && y < 5;
          int want = in_fill ? 9 - c : src[(y * W + x) * 4 + c];
          bad += dst[(y * W + x) * 4 + c] != want;
        }
  }
  CHECK_EQ(bad, 0);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  cl_mem m[] = {a, b, in, out};
  test_release_buffers(m, 4);
}

/* A replay waits for its wait list; replays on an out-of-order queue
 * overlap (simultaneous use) and still each run whole; the returned
 * event reports the command type and profiling times. */
static void test_events_and_simultaneous(test_env *env, cl_program prog) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "bump", &err);
  REQUIRE_OK(err);
  cl_mem a = test_buffer(env, N * sizeof(int), NULL);
  int zero = 0;
  REQUIRE_OK(clEnqueueFillBuffer(env->queue, a, &zero, sizeof zero, 0,
                                 N * sizeof(int), 0, NULL, NULL));
  REQUIRE_OK(clFinish(env->queue));
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof a, &a));
  cl_queue_properties props[] = {
      CL_QUEUE_PROPERTIES,
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue ooo = clCreateCommandQueueWithProperties(
      env->context, env->device, props, &err);
  REQUIRE_OK(err);
  cl_command_buffer_properties_khr cbp[] = {
      CL_COMMAND_BUFFER_FLAGS_KHR, CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0};
  cl_command_buffer_khr cb = create(env, ooo, cbp);
  size_t g = N;
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, k, 1, NULL, &g, NULL,
                                         0, NULL, NULL, NULL));
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  cl_event user = clCreateUserEvent(env->context, &err);
  REQUIRE_OK(err);
  cl_event first;
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &user, &first));
  cl_int status = 0;
  REQUIRE_OK(clGetEventInfo(first, CL_EVENT_COMMAND_EXECUTION_STATUS,
                            sizeof status, &status, NULL));
  CHECK(status > CL_RUNNING); /* still waiting for the user event */
  cl_command_type type = 0;
  REQUIRE_OK(clGetEventInfo(first, CL_EVENT_COMMAND_TYPE, sizeof type, &type,
                            NULL));
  CHECK_EQ(type, CL_COMMAND_COMMAND_BUFFER_KHR);
  enum { OVERLAP = 8 };
  for (int i = 0; i < OVERLAP; i++)
    REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  REQUIRE_OK(clSetUserEventStatus(user, CL_COMPLETE));
  REQUIRE_OK(clFinish(ooo));
  cl_ulong t0 = 0, t1 = 0;
  REQUIRE_OK(clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START,
                                     sizeof t0, &t0, NULL));
  REQUIRE_OK(clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_END,
                                     sizeof t1, &t1, NULL));
  CHECK(t0 != 0 && t1 >= t0);
  int got[N], bad = 0;
  read_ints(env, a, got, N);
  for (int i = 0; i < N; i++)
    bad += got[i] != OVERLAP + 1;
  CHECK_EQ(bad, 0);
  REQUIRE_OK(clReleaseEvent(first));
  REQUIRE_OK(clReleaseEvent(user));
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  REQUIRE_OK(clReleaseCommandQueue(ooo));
  REQUIRE_OK(clReleaseMemObject(a));
  REQUIRE_OK(clReleaseKernel(k));
}

/* Multi-device layer: commands recorded to two queues of the device,
 * enqueued on the creation queues and on substitutes, then remapped. */
static void test_multi_queue(test_env *env, cl_program prog) {
  cl_int err;
  cl_command_queue q2 = clCreateCommandQueueWithProperties(
      env->context, env->device, NULL, &err);
  REQUIRE_OK(err);
  cl_command_queue q3 = clCreateCommandQueueWithProperties(
      env->context, env->device, NULL, &err);
  REQUIRE_OK(err);
  cl_kernel k = clCreateKernel(prog, "bump", &err);
  REQUIRE_OK(err);
  cl_mem a = test_buffer(env, N * sizeof(int), NULL);
  cl_mem b = test_buffer(env, N * sizeof(int), NULL);
  int zero = 0;
  REQUIRE_OK(clEnqueueFillBuffer(env->queue, a, &zero, sizeof zero, 0,
                                 N * sizeof(int), 0, NULL, NULL));
  REQUIRE_OK(clFinish(env->queue));
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof a, &a));
  cl_command_queue qs[2] = {env->queue, q2};
  cl_command_buffer_khr cb = F.clCreateCommandBufferKHR(2, qs, NULL, &err);
  REQUIRE_OK(err);
  size_t g = N;
  cl_sync_point_khr s;
  /* NULL is no queue when there are two. */
  CHECK_EQ(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, k, 1, NULL, &g, NULL,
                                       0, NULL, &s, NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(F.clCommandNDRangeKernelKHR(cb, q3, NULL, k, 1, NULL, &g, NULL, 0,
                                       NULL, &s, NULL),
           CL_INVALID_COMMAND_QUEUE);
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb, env->queue, NULL, k, 1, NULL, &g,
                                         NULL, 0, NULL, &s, NULL));
  REQUIRE_OK(F.clCommandCopyBufferKHR(cb, q2, NULL, a, b, 0, 0,
                                      N * sizeof(int), 1, &s, NULL, NULL));
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  cl_uint nq = 0;
  REQUIRE_OK(F.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_NUM_QUEUES_KHR,
                                         sizeof nq, &nq, NULL));
  CHECK_EQ(nq, 2);
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  cl_command_queue subst[2] = {q3, env->queue};
  cl_event done;
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(2, subst, cb, 0, NULL, &done));
  REQUIRE_OK(clWaitForEvents(1, &done));
  REQUIRE_OK(clReleaseEvent(done));
  /* A command taken by q2 after the replay follows it. */
  int got[N], bad = 0;
  REQUIRE_OK(clFinish(q3));
  REQUIRE_OK(clEnqueueReadBuffer(q2, b, CL_TRUE, 0, sizeof got, got, 0, NULL,
                                 NULL));
  for (int i = 0; i < N; i++)
    bad += got[i] != 2;
  /* Remapped: the same commands on other queues of the device. */
  cl_command_queue rq[2] = {q3, q3};
  cl_command_buffer_khr re =
      F.clRemapCommandBufferKHR(cb, CL_FALSE, 2, rq, 0, NULL, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(cmdbuf_state(&F, re), CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb)); /* re keeps the commands */
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, re, 0, NULL, NULL));
  REQUIRE_OK(clFinish(q3));
  REQUIRE_OK(clEnqueueReadBuffer(q3, b, CL_TRUE, 0, sizeof got, got, 0, NULL,
                                 NULL));
  for (int i = 0; i < N; i++)
    bad += got[i] != 3;
  CHECK_EQ(bad, 0);
  CHECK(!F.clRemapCommandBufferKHR(re, CL_TRUE, 2, rq, 0, NULL, NULL, &err));
  CHECK_EQ(err, CL_INVALID_OPERATION);
  CHECK(!F.clRemapCommandBufferKHR(re, CL_FALSE, 1, rq, 0, NULL, NULL, &err));
  CHECK_EQ(err, CL_INVALID_VALUE);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(re));
  REQUIRE_OK(clReleaseCommandQueue(q2));
  REQUIRE_OK(clReleaseCommandQueue(q3));
  cl_mem m[] = {a, b};
  test_release_buffers(m, 2);
  REQUIRE_OK(clReleaseKernel(k));
}

/* Each misuse returns the error the specification names. */
static void test_errors(test_env *env, cl_program prog) {
  cl_int err;
  cl_command_queue q = env->queue;
  cl_mem a = test_buffer(env, 256, NULL);
  cl_kernel k = clCreateKernel(prog, "bump", &err);
  REQUIRE_OK(err);

  /* Creation. */
  CHECK(!F.clCreateCommandBufferKHR(0, &q, NULL, &err));
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(!F.clCreateCommandBufferKHR(1, NULL, NULL, &err));
  CHECK_EQ(err, CL_INVALID_VALUE);
  cl_command_queue bogus = (cl_command_queue)a;
  CHECK(!F.clCreateCommandBufferKHR(1, &bogus, NULL, &err));
  CHECK_EQ(err, CL_INVALID_COMMAND_QUEUE);
  cl_command_buffer_properties_khr twice[] = {CL_COMMAND_BUFFER_FLAGS_KHR, 0,
                                              CL_COMMAND_BUFFER_FLAGS_KHR, 0,
                                              0};
  CHECK(!F.clCreateCommandBufferKHR(1, &q, twice, &err));
  CHECK_EQ(err, CL_INVALID_VALUE);
  cl_command_buffer_properties_khr badflag[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                                1 << 20, 0};
  CHECK(!F.clCreateCommandBufferKHR(1, &q, badflag, &err));
  CHECK_EQ(err, CL_INVALID_VALUE);
  cl_command_buffer_properties_khr badname[] = {0x4242, 0, 0};
  CHECK(!F.clCreateCommandBufferKHR(1, &q, badname, &err));
  CHECK_EQ(err, CL_INVALID_VALUE);

  cl_command_buffer_properties_khr props[] = {CL_COMMAND_BUFFER_FLAGS_KHR, 0,
                                              0};
  cl_command_buffer_khr cb = create(env, q, props);
  /* Queries. */
  cl_command_buffer_properties_khr got_props[3];
  size_t size = 0;
  REQUIRE_OK(F.clGetCommandBufferInfoKHR(cb,
                                         CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR,
                                         sizeof got_props, got_props, &size));
  CHECK_EQ(size, sizeof props);
  CHECK(memcmp(got_props, props, sizeof props) == 0);
  cl_context ctx = NULL;
  REQUIRE_OK(F.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_CONTEXT_KHR,
                                         sizeof ctx, &ctx, NULL));
  CHECK(ctx == env->context);
  cl_command_queue gq = NULL;
  REQUIRE_OK(F.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_QUEUES_KHR,
                                         sizeof gq, &gq, NULL));
  CHECK(gq == q);
  REQUIRE_OK(F.clRetainCommandBufferKHR(cb));
  cl_uint refs = 0;
  REQUIRE_OK(F.clGetCommandBufferInfoKHR(cb,
                                         CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR,
                                         sizeof refs, &refs, NULL));
  CHECK_EQ(refs, 2);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  CHECK_EQ(F.clGetCommandBufferInfoKHR(cb, 0x4242, sizeof refs, &refs, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(F.clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_STATE_KHR, 1,
                                       &refs, NULL),
           CL_INVALID_VALUE);
  cl_command_buffer_khr not_cb = (cl_command_buffer_khr)a;
  CHECK_EQ(F.clGetCommandBufferInfoKHR(not_cb, CL_COMMAND_BUFFER_STATE_KHR,
                                       sizeof refs, &refs, NULL),
           CL_INVALID_COMMAND_BUFFER_KHR);
  CHECK_EQ(F.clRetainCommandBufferKHR(NULL), CL_INVALID_COMMAND_BUFFER_KHR);
  CHECK_EQ(F.clReleaseCommandBufferKHR(not_cb),
           CL_INVALID_COMMAND_BUFFER_KHR);
  CHECK_EQ(F.clFinalizeCommandBufferKHR(NULL), CL_INVALID_COMMAND_BUFFER_KHR);

  /* Recording checks. */
  int pat = 1;
  cl_sync_point_khr s0, bad_point = 77;
  REQUIRE_OK(F.clCommandFillBufferKHR(cb, NULL, NULL, a, &pat, sizeof pat, 0,
                                      256, 0, NULL, &s0, NULL));
  CHECK_EQ(F.clCommandFillBufferKHR(cb, NULL, NULL, a, &pat, sizeof pat, 0,
                                    256, 1, &bad_point, NULL, NULL),
           CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
  CHECK_EQ(F.clCommandFillBufferKHR(cb, NULL, NULL, a, &pat, sizeof pat, 0,
                                    256, 1, NULL, NULL, NULL),
           CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
  CHECK_EQ(F.clCommandFillBufferKHR(cb, NULL, NULL, a, &pat, sizeof pat, 0,
                                    256, 0, &s0, NULL, NULL),
           CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
  cl_mutable_command_khr handle;
  CHECK_EQ(F.clCommandFillBufferKHR(cb, NULL, NULL, a, &pat, sizeof pat, 0,
                                    256, 0, NULL, NULL, &handle),
           CL_INVALID_VALUE);
  CHECK_EQ(F.clCommandBarrierWithWaitListKHR(cb, NULL, NULL, 0, NULL, NULL,
                                             &handle),
           CL_INVALID_VALUE);
  skein_command_properties_khr cprops[] = {0x1234, 0, 0};
  CHECK_EQ(F.clCommandCopyBufferKHR(cb, NULL, cprops, a, a, 0, 128, 64, 0,
                                    NULL, NULL, NULL),
           CL_INVALID_VALUE);
  /* The enqueue's own errors. */
  CHECK_EQ(F.clCommandFillBufferKHR(cb, NULL, NULL, a, &pat, 3, 0, 256, 0,
                                    NULL, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(F.clCommandCopyBufferKHR(cb, NULL, NULL, a, a, 0, 64, 128, 0, NULL,
                                    NULL, NULL),
           CL_MEM_COPY_OVERLAP);
  CHECK_EQ(F.clCommandCopyBufferKHR(cb, NULL, NULL, a, a, 0, 128, 512, 0,
                                    NULL, NULL, NULL),
           CL_INVALID_VALUE);
  size_t g = 64;
  CHECK_EQ(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, NULL, 1, NULL, &g,
                                       NULL, 0, NULL, NULL, NULL),
           CL_INVALID_KERNEL);
  CHECK_EQ(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, k, 1, NULL, &g, NULL,
                                       0, NULL, NULL, NULL),
           CL_INVALID_KERNEL_ARGS); /* argument 0 not set */
  CHECK_EQ(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, k, 4, NULL, &g, NULL,
                                       0, NULL, NULL, NULL),
           CL_INVALID_WORK_DIMENSION);
  /* Another context's queue and buffer. */
  cl_context other = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  REQUIRE_OK(err);
  cl_command_queue oq = clCreateCommandQueueWithProperties(other, env->device,
                                                           NULL, &err);
  REQUIRE_OK(err);
  cl_mem ob = clCreateBuffer(other, CL_MEM_READ_WRITE, 256, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(F.clCommandCopyBufferKHR(cb, NULL, NULL, ob, a, 0, 0, 64, 0, NULL,
                                    NULL, NULL),
           CL_INVALID_CONTEXT);
  CHECK_EQ(F.clCommandCopyBufferKHR(cb, oq, NULL, a, a, 0, 128, 64, 0, NULL,
                                    NULL, NULL),
           CL_INVALID_CONTEXT);
  /* Not yet finalized. */
  CHECK_EQ(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL),
           CL_INVALID_OPERATION);
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  /* Finalized: no more recording, no second finalize. */
  CHECK_EQ(F.clFinalizeCommandBufferKHR(cb), CL_INVALID_OPERATION);
  CHECK_EQ(F.clCommandFillBufferKHR(cb, NULL, NULL, a, &pat, sizeof pat, 0,
                                    256, 0, NULL, NULL, NULL),
           CL_INVALID_OPERATION);
  CHECK_EQ(F.clCommandBarrierWithWaitListKHR(cb, NULL, NULL, 0, NULL, NULL,
                                             NULL),
           CL_INVALID_OPERATION);
  /* Enqueue checks. */
  CHECK_EQ(F.clEnqueueCommandBufferKHR(1, NULL, cb, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(F.clEnqueueCommandBufferKHR(0, &q, cb, 0, NULL, NULL),
           CL_INVALID_VALUE);
  cl_command_queue two[2] = {q, q};
  CHECK_EQ(F.clEnqueueCommandBufferKHR(2, two, cb, 0, NULL, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(F.clEnqueueCommandBufferKHR(1, &bogus, cb, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(F.clEnqueueCommandBufferKHR(1, &oq, cb, 0, NULL, NULL),
           CL_INVALID_CONTEXT);
  CHECK_EQ(F.clEnqueueCommandBufferKHR(0, NULL, cb, 1, NULL, NULL),
           CL_INVALID_EVENT_WAIT_LIST);
  cl_event foreign = clCreateUserEvent(other, &err);
  REQUIRE_OK(err);
  CHECK_EQ(F.clEnqueueCommandBufferKHR(0, NULL, cb, 1, &foreign, NULL),
           CL_INVALID_CONTEXT);
  CHECK_EQ(F.clEnqueueCommandBufferKHR(0, NULL, not_cb, 0, NULL, NULL),
           CL_INVALID_COMMAND_BUFFER_KHR);
  /* Still usable after all that. */
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(1, &q, cb, 0, NULL, NULL));
  int got[64];
  REQUIRE_OK(clEnqueueReadBuffer(q, a, CL_TRUE, 0, sizeof got, got, 0, NULL,
                                 NULL));
  CHECK_EQ(got[63], 1);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  REQUIRE_OK(clReleaseEvent(foreign));
  REQUIRE_OK(clReleaseMemObject(ob));
  REQUIRE_OK(clReleaseCommandQueue(oq));
  REQUIRE_OK(clReleaseContext(other));
  REQUIRE_OK(clReleaseMemObject(a));
  REQUIRE_OK(clReleaseKernel(k));
}

/* Objects a recorded command names stay alive while the buffer does,
 * though the application released its own references. */
static void test_lifetime(test_env *env) {
  cl_mem a = test_buffer(env, 64 * sizeof(int), NULL);
  cl_mem b = test_buffer(env, 64 * sizeof(int), NULL);
  cl_command_buffer_khr cb = create(env, env->queue, NULL);
  int pat = 42;
  REQUIRE_OK(F.clCommandFillBufferKHR(cb, NULL, NULL, a, &pat, sizeof pat, 0,
                                      64 * sizeof(int), 0, NULL, NULL, NULL));
  REQUIRE_OK(F.clCommandCopyBufferKHR(cb, NULL, NULL, a, b, 0, 0,
                                      64 * sizeof(int), 0, NULL, NULL, NULL));
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  REQUIRE_OK(clReleaseMemObject(a));
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  /* Released while a replay may still run: it completes. */
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  int got[64];
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, b, CL_TRUE, 0, sizeof got, got,
                                 0, NULL, NULL));
  CHECK_EQ(got[0], 42);
  CHECK_EQ(got[63], 42);
  REQUIRE_OK(clReleaseMemObject(b));
}

/* A replay runs the same captured command again: what one run noted (a
 * bounds-checked kernel's out-of-bounds access, here data-dependent)
 * fails that replay only, not the next ones. */
static void test_replay_state(test_env *env) {
  static const char *src =
      "kernel void put(global int *out, global const int *idx) {\n"
      "  out[idx[get_global_id(0)]] = 1;\n"
      "}\n";
  cl_program p = test_build(env, src, "-skein-bounds-check");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "put", &err);
  REQUIRE_OK(err);
  cl_mem out = test_buffer(env, 16 * sizeof(int), NULL);
  int bad = 1 << 20, good = 3, zero = 0;
  cl_mem idx = test_buffer(env, sizeof(int), &bad);
  REQUIRE_OK(clEnqueueFillBuffer(env->queue, out, &zero, sizeof zero, 0,
                                 16 * sizeof(int), 0, NULL, NULL));
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof out, &out));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof idx, &idx));
  cl_command_buffer_khr cb = create(env, env->queue, NULL);
  size_t g = 1;
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, k, 1, NULL, &g, NULL,
                                         0, NULL, NULL, NULL));
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  cl_event ev;
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, &ev));
  clWaitForEvents(1, &ev);
  cl_int status = 0;
  REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                            sizeof status, &status, NULL));
  CHECK_EQ(status, CL_OUT_OF_RESOURCES);
  REQUIRE_OK(clReleaseEvent(ev));
  REQUIRE_OK(clEnqueueWriteBuffer(env->queue, idx, CL_TRUE, 0, sizeof good,
                                  &good, 0, NULL, NULL));
  REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, &ev));
  REQUIRE_OK(clWaitForEvents(1, &ev));
  REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                            sizeof status, &status, NULL));
  CHECK_EQ(status, CL_COMPLETE);
  REQUIRE_OK(clReleaseEvent(ev));
  int got[16];
  read_ints(env, out, got, 16);
  CHECK_EQ(got[3], 1);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseProgram(p));
  cl_mem m[] = {out, idx};
  test_release_buffers(m, 2);
}

int main(void) {
  test_env env;
  test_setup(&env);
  cmdbuf_load(&env, &F);
  test_seed(17);
  cl_program prog = test_build(&env, source, NULL);
  test_queries(&env);
  test_buffers_and_kernel(&env, prog);
  test_images(&env);
  test_events_and_simultaneous(&env, prog);
  test_multi_queue(&env, prog);
  test_errors(&env, prog);
  test_lifetime(&env);
  test_replay_state(&env);
  REQUIRE_OK(clReleaseProgram(prog));
  test_teardown(&env);
  return test_finish("command-buffer");
}
