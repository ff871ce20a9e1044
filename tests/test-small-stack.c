/* Tests kernels with large private arrays against the stacks they run
 * on: an application thread with a small stack can wait for one (a
 * thread waiting in clFinish or a blocking call runs ready commands
 * itself only with enough stack left, otherwise Skein's own threads run
 * them), and a kernel whose private memory exceeds what any stack can
 * take fails its enqueue with CL_OUT_OF_RESOURCES instead of crashing
 * the host. */
#include "test_util.h"

#include <pthread.h>

enum { N = 256, PRIV = 128 * 1024 };   /* 512 KiB of ints per work-item */

static const char *source =
    "kernel void big_private(global const uint *in, global uint *out) {\n"
    "  uint priv[131072];\n"
    "  size_t g = get_global_id(0);\n"
    "  uint seed = in[g];\n"
    "  for (uint i = 0; i < 131072; i++) priv[i] = seed * i + (i >> 3);\n"
    "  uint sum = 0;\n"
    "  for (int i = 0; i < 64; i++) sum += priv[(seed * 977 + i * 2039) & 131071];\n"
    "  out[g] = sum;\n"
    "}\n"
    "kernel void huge_private(global const int *in, global int *out) {\n"
    "  int priv[4194304];\n"
    "  size_t g = get_global_id(0);\n"
    "  for (int i = 0; i < 4194304; i++) priv[i] = in[g] * i;\n"
    "  out[g] = priv[(in[g] * 977) & 4194303];\n"
    "}\n";

typedef struct job {
  test_env *env;
  cl_kernel kernel;
  cl_mem out;
  unsigned result[N];
  cl_int err;
} job;

/* Runs on a thread with a 256 KiB stack: enqueue, then a blocking read
 * (which may run the kernel on this thread if the stack allows). */
static void *small_thread(void *arg) {
  job *j = arg;
  size_t global = N, local = 16;
  j->err = clEnqueueNDRangeKernel(j->env->queue, j->kernel, 1, NULL, &global,
                                  &local, 0, NULL, NULL);
  if (j->err == CL_SUCCESS)
    j->err = clFinish(j->env->queue);
  if (j->err == CL_SUCCESS)
    j->err = clEnqueueReadBuffer(j->env->queue, j->out, CL_TRUE, 0,
                                 sizeof j->result, j->result, 0, NULL, NULL);
  return NULL;
}

int main(void) {
  test_env env;
  test_setup(&env);
  cl_program p = test_build(&env, source, "");
  cl_int err;
  static unsigned in[N];
  for (int i = 0; i < N; i++)
    in[i] = i * 13 + 1;
  cl_mem bin = clCreateBuffer(env.context, CL_MEM_COPY_HOST_PTR, sizeof in,
                              in, &err);
  REQUIRE_OK(err);
  job j = {.env = &env};
  j.out = clCreateBuffer(env.context, 0, sizeof j.result, NULL, &err);
  REQUIRE_OK(err);
  j.kernel = clCreateKernel(p, "big_private", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(j.kernel, 0, sizeof bin, &bin));
  REQUIRE_OK(clSetKernelArg(j.kernel, 1, sizeof j.out, &j.out));

  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  pthread_t t;
  CHECK_EQ(pthread_create(&t, &attr, small_thread, &j), 0);
  pthread_join(t, NULL);
  pthread_attr_destroy(&attr);
  CHECK_EQ(j.err, CL_SUCCESS);

  int bad = 0;
  for (int g = 0; g < N; g++) {
    unsigned seed = in[g], sum = 0;
    for (unsigned i = 0; i < 64; i++) {
      unsigned k = (seed * 977 + i * 2039) & (PRIV - 1);
      sum += seed * k + (k >> 3);
    }
    bad += j.result[g] != sum;
  }
  CHECK_EQ(bad, 0);

  /* 16 MiB per work-item: more than a thread's stack. */
  cl_kernel huge = clCreateKernel(p, "huge_private", &err);
  REQUIRE_OK(err);
  cl_ulong priv = 0;
  REQUIRE_OK(clGetKernelWorkGroupInfo(huge, env.device,
                                      CL_KERNEL_PRIVATE_MEM_SIZE,
                                      sizeof priv, &priv, NULL));
  CHECK(priv >= 16u << 20);
  REQUIRE_OK(clSetKernelArg(huge, 0, sizeof bin, &bin));
  REQUIRE_OK(clSetKernelArg(huge, 1, sizeof j.out, &j.out));
  size_t global = N;
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, huge, 1, NULL, &global, NULL,
                                  0, NULL, NULL),
           CL_OUT_OF_RESOURCES);
  REQUIRE_OK(clFinish(env.queue));
  clReleaseKernel(huge);
  clReleaseKernel(j.kernel);
  clReleaseMemObject(j.out);
  clReleaseMemObject(bin);
  clReleaseProgram(p);
  test_teardown(&env);
  return test_finish("small-stack");
}
