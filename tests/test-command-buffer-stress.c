/* Command-buffer replay stress (short; run by CI's TSan stage too):
 * thousands of replays back to back on an in-order queue, replays of one
 * simultaneous-use buffer from several host threads on an out-of-order
 * queue, mutable updates (from two threads) racing those replays, and
 * remaps racing recording (not scaled). Every replay adds a known
 * amount, so the final buffers say whether each ran exactly once and
 * whole. SKEIN_STRESS_REPLAYS scales the counts (the soak). */
#include "cmdbuf_util.h"
#include <pthread.h>

static cmdbuf_fns F;
static test_env env;
static unsigned replays = 2000;

enum { N = 256, THREADS = 3, UPDATERS = 2, RECORDS = 2000, REMAPS = 250 };

static const char *source =
    "kernel void add(global int *a, int k) { a[get_global_id(0)] += k; }\n";

static cl_command_buffer_khr cb_shared;
static cl_command_queue ooo;
static cl_mutable_command_khr shared_cmd;
static pthread_barrier_t start;

/* Replays the shared buffer replays / 4 times, waiting for every 16th. */
static void *replayer(void *arg) {
  (void)arg;
  pthread_barrier_wait(&start);
  for (unsigned i = 0; i < replays / 4; i++) {
    cl_event ev;
    REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb_shared, 0, NULL, &ev));
    if (i % 16 == 0)
      REQUIRE_OK(clWaitForEvents(1, &ev));
    REQUIRE_OK(clReleaseEvent(ev));
  }
  return NULL;
}

/* Updates the shared command's scalar to the value it has (1) while the
 * replayers run: each update builds a new plan the next replays take. */
static void *updater(void *arg) {
  (void)arg;
  pthread_barrier_wait(&start);
  int one = 1;
  cl_mutable_dispatch_arg_khr a = {1, sizeof one, &one};
  skein_mutable_dispatch_config_khr c = {.command = shared_cmd,
                                         .num_args = 1, .arg_list = &a};
  skein_command_buffer_update_type_khr t =
      SKEIN_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR;
  const void *cfg = &c;
  for (unsigned i = 0; i < replays / 8; i++)
    REQUIRE_OK(F.clUpdateMutableCommandsKHR(cb_shared, 1, &t, &cfg));
  return NULL;
}

/* Records barriers into cb_rec while the main thread remaps it: a remap
 * reads the commands that recording appends to (and reallocates). */
static cl_command_buffer_khr cb_rec;

static void *recorder(void *arg) {
  (void)arg;
  for (unsigned i = 0; i < RECORDS; i++)
    REQUIRE_OK(F.clCommandBarrierWithWaitListKHR(cb_rec, NULL, NULL, 0, NULL,
                                                 NULL, NULL));
  return NULL;
}

static cl_mem zeroed(void) {
  cl_mem m = test_buffer(&env, N * sizeof(int), NULL);
  int z = 0;
  REQUIRE_OK(clEnqueueFillBuffer(env.queue, m, &z, sizeof z, 0,
                                 N * sizeof(int), 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  return m;
}

static int count_not(cl_mem m, int want) {
  int got[N], bad = 0;
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, sizeof got, got,
                                 0, NULL, NULL));
  for (int i = 0; i < N; i++)
    bad += got[i] != want;
  if (bad)
    fprintf(stderr, "got %d, want %d\n", got[0], want);
  return bad;
}

int main(void) {
  const char *scale = getenv("SKEIN_STRESS_REPLAYS");
  if (scale && atoi(scale) > 0)
    replays = (unsigned)atoi(scale);
  test_setup(&env);
  cmdbuf_load(&env, &F);
  cl_program prog = test_build(&env, source, NULL);
  cl_int err;
  cl_kernel k = clCreateKernel(prog, "add", &err);
  REQUIRE_OK(err);
  size_t g = N;

  /* Back to back on the in-order queue: a kernel and a copy per replay. */
  cl_mem a = zeroed(), b = zeroed();
  int two = 2;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof two, &two));
  cl_command_buffer_khr cb = F.clCreateCommandBufferKHR(1, &env.queue, NULL,
                                                        &err);
  REQUIRE_OK(err);
  cl_sync_point_khr s;
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb, NULL, NULL, k, 1, NULL, &g, NULL,
                                         0, NULL, &s, NULL));
  REQUIRE_OK(F.clCommandCopyBufferKHR(cb, NULL, NULL, a, b, 0, 0,
                                      N * sizeof(int), 1, &s, NULL, NULL));
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb));
  for (unsigned i = 0; i < replays; i++)
    REQUIRE_OK(F.clEnqueueCommandBufferKHR(0, NULL, cb, 0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  CHECK_EQ(count_not(b, 2 * (int)replays), 0);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb));

  /* Remaps of a buffer another thread records into: each copy holds the
   * commands recorded so far, the kernel command's handle mapped. */
  cl_command_buffer_properties_khr mp[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                           CL_COMMAND_BUFFER_MUTABLE_KHR, 0};
  cb_rec = F.clCreateCommandBufferKHR(1, &env.queue, mp, &err);
  REQUIRE_OK(err);
  cl_mutable_command_khr h;
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb_rec, NULL, NULL, k, 1, NULL, &g,
                                         NULL, 0, NULL, NULL, &h));
  pthread_t rec;
  pthread_create(&rec, NULL, recorder, NULL);
  for (unsigned i = 0; i < REMAPS; i++) {
    cl_mutable_command_khr h2 = NULL;
    cl_command_buffer_khr to = F.clRemapCommandBufferKHR(
        cb_rec, CL_FALSE, 1, &env.queue, 1, &h, &h2, &err);
    REQUIRE_OK(err);
    cl_command_buffer_khr owner = NULL;
    REQUIRE_OK(F.clGetMutableCommandInfoKHR(
        h2, CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR, sizeof owner, &owner,
        NULL));
    CHECK(owner == to);
    REQUIRE_OK(F.clReleaseCommandBufferKHR(to));
  }
  pthread_join(rec, NULL);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb_rec));

  /* Several threads replaying one simultaneous-use, mutable buffer on an
   * out-of-order queue while two others update it. */
  cl_mem c = zeroed();
  int one = 1;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof c, &c));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof one, &one));
  cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES,
                              CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  ooo = clCreateCommandQueueWithProperties(env.context, env.device, qp, &err);
  REQUIRE_OK(err);
  cl_command_buffer_properties_khr cbp[] = {
      CL_COMMAND_BUFFER_FLAGS_KHR,
      CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR | CL_COMMAND_BUFFER_MUTABLE_KHR,
      0};
  cb_shared = F.clCreateCommandBufferKHR(1, &ooo, cbp, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(F.clCommandNDRangeKernelKHR(cb_shared, NULL, NULL, k, 1, NULL,
                                         &g, NULL, 0, NULL, NULL,
                                         &shared_cmd));
  REQUIRE_OK(F.clFinalizeCommandBufferKHR(cb_shared));
  pthread_barrier_init(&start, NULL, THREADS + UPDATERS);
  pthread_t t[THREADS + UPDATERS];
  for (int i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, replayer, NULL);
  for (int i = THREADS; i < THREADS + UPDATERS; i++)
    pthread_create(&t[i], NULL, updater, NULL);
  for (int i = 0; i < THREADS + UPDATERS; i++)
    pthread_join(t[i], NULL);
  REQUIRE_OK(clFinish(ooo));
  CHECK_EQ(count_not(c, THREADS * (int)(replays / 4)), 0);
  pthread_barrier_destroy(&start);
  REQUIRE_OK(F.clReleaseCommandBufferKHR(cb_shared));
  REQUIRE_OK(clReleaseCommandQueue(ooo));
  cl_mem m[] = {a, b, c};
  test_release_buffers(m, 3);
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseProgram(prog));
  test_teardown(&env);
  return test_finish("command-buffer-stress");
}
