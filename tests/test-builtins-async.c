/* Tests async_work_group_copy, async_work_group_strided_copy,
 * wait_group_events and prefetch: global -> local -> global round trips,
 * contiguous and strided, scalar and vector types, in OpenCL C 1.2 and
 * 3.0, with the results of every element checked on the host. */
#include "test_util.h"

static const char *source =
    "__kernel void copy_in_out(__global const T *in, __global T *out,\n"
    "                          __local T *tile) {\n"
    "  size_t n = get_local_size(0), base = get_group_id(0) * n;\n"
    "  prefetch(in + base, n);\n"
    "  event_t e = async_work_group_copy(tile, in + base, n, 0);\n"
    "  wait_group_events(1, &e);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  size_t l = get_local_id(0);\n"
    "  T sum = tile[l] + tile[n - 1 - l];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  tile[l] = sum;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  e = async_work_group_copy(out + base, tile, n, 0);\n"
    "  wait_group_events(1, &e);\n"
    "}\n"
    "__kernel void strided(__global const T *in, __global T *out,\n"
    "                      __local T *tile, uint stride) {\n"
    "  size_t n = get_local_size(0), g = get_group_id(0);\n"
    "  event_t e = async_work_group_strided_copy(tile, in + g, n, stride, 0);\n"
    "  wait_group_events(1, &e);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  e = async_work_group_strided_copy(out + g, tile, n, stride, 0);\n"
    "  wait_group_events(1, &e);\n"
    "}\n";

static void run(test_env *env, const char *type, size_t elem, int lanes,
                const char *std) {
  char options[128];
  snprintf(options, sizeof options, "-DT=%s %s", type, std);
  cl_program p = test_build(env, source, options);
  enum { GROUPS = 6, LOCAL = 64, STRIDE = GROUPS };
  size_t total = GROUPS * LOCAL, bytes = total * elem;
  /* Elements are filled as ints (or floats) lane by lane. */
  int is_float = type[0] == 'f';
  float *inf = malloc(bytes), *outf = malloc(bytes);
  int *ini = (int *)inf, *outi = (int *)outf;
  size_t words = bytes / 4;
  for (size_t i = 0; i < words; i++) {
    if (is_float)
      inf[i] = (float)(i % 1000) * 0.5f;
    else
      ini[i] = (int)(i * 7 % 1001);
  }
  cl_int err;
  cl_mem in = clCreateBuffer(env->context, CL_MEM_COPY_HOST_PTR, bytes, inf,
                             &err);
  REQUIRE_OK(err);
  cl_mem out = clCreateBuffer(env->context, 0, bytes, NULL, &err);
  REQUIRE_OK(err);
  size_t global = total, local = LOCAL;

  cl_kernel k = clCreateKernel(p, "copy_in_out", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof in, &in));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof out, &out));
  REQUIRE_OK(clSetKernelArg(k, 2, LOCAL * elem, NULL));
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, bytes, outf, 0,
                                 NULL, NULL));
  int bad = 0;
  size_t wpe = elem / 4; /* 4-byte words per element */
  for (size_t g = 0; g < GROUPS; g++)
    for (size_t l = 0; l < LOCAL; l++)
      for (size_t w = 0; w < (size_t)lanes; w++) {
        size_t a = ((g * LOCAL + l) * wpe) + w;
        size_t b = ((g * LOCAL + LOCAL - 1 - l) * wpe) + w;
        if (is_float)
          bad += outf[a] != inf[a] + inf[b];
        else
          bad += outi[a] != ini[a] + ini[b];
      }
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);

  k = clCreateKernel(p, "strided", &err);
  REQUIRE_OK(err);
  cl_uint stride = STRIDE;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof in, &in));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof out, &out));
  REQUIRE_OK(clSetKernelArg(k, 2, LOCAL * elem, NULL));
  REQUIRE_OK(clSetKernelArg(k, 3, sizeof stride, &stride));
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, &local, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env->queue, out, CL_TRUE, 0, bytes, outf, 0,
                                 NULL, NULL));
  /* Group g gathers elements g, g + 6, ... and scatters them back to the
   * same places: every element is copied through unchanged. */
  CHECK(memcmp(outf, inf, bytes) == 0);
  clReleaseKernel(k);
  clReleaseMemObject(in);
  clReleaseMemObject(out);
  clReleaseProgram(p);
  free(inf);
  free(outf);
}

int main(void) {
  test_env env;
  test_setup(&env);
  run(&env, "int", 4, 1, "");
  run(&env, "float", 4, 1, "-cl-std=CL3.0");
  run(&env, "int4", 16, 4, "-cl-std=CL1.2");
  run(&env, "float3", 16, 3, "-cl-std=CL3.0");
  run(&env, "long2", 16, 4, "");
  test_teardown(&env);
  return test_finish("builtins-async");
}
