/* Tests contexts and command queues: creation from devices and from type,
 * properties, destructor callbacks, info queries and the error codes of
 * every entry point. */
#include "test_util.h"

static int destructor_order[4], destructor_calls;

static void CL_CALLBACK record_destructor(cl_context ctx, void *data) {
  (void)ctx;
  destructor_order[destructor_calls++] = (int)(size_t)data;
}

static void test_context(test_env *env) {
  cl_int err;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)env->platform, 0};
  cl_context ctx = clCreateContext(props, 1, &env->device, NULL, NULL, &err);
  REQUIRE_OK(err);
  cl_context_properties got[8];
  size_t size = 0;
  REQUIRE_OK(clGetContextInfo(ctx, CL_CONTEXT_PROPERTIES, sizeof got, got,
                              &size));
  CHECK_EQ(size, sizeof props);
  CHECK_EQ(got[1], (cl_context_properties)env->platform);
  cl_uint n = 0;
  REQUIRE_OK(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, NULL));
  CHECK_EQ(n, 1);
  cl_device_id dev = NULL;
  REQUIRE_OK(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof dev, &dev, NULL));
  CHECK(dev == env->device);
  cl_uint refs = 0;
  REQUIRE_OK(clRetainContext(ctx));
  REQUIRE_OK(clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof refs,
                              &refs, NULL));
  CHECK_EQ(refs, 2);
  CHECK_EQ(clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT, 1, &refs, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetContextInfo(ctx, 0x7777, sizeof refs, &refs, NULL),
           CL_INVALID_VALUE);
  REQUIRE_OK(clSetContextDestructorCallback(ctx, record_destructor, (void *)1));
  REQUIRE_OK(clSetContextDestructorCallback(ctx, record_destructor, (void *)2));
  CHECK_EQ(clSetContextDestructorCallback(ctx, NULL, NULL), CL_INVALID_VALUE);
  REQUIRE_OK(clReleaseContext(ctx));
  CHECK_EQ(destructor_calls, 0);
  REQUIRE_OK(clReleaseContext(ctx));
  /* Callbacks run in the reverse order of registration. */
  CHECK_EQ(destructor_calls, 2);
  CHECK_EQ(destructor_order[0], 2);
  CHECK_EQ(destructor_order[1], 1);

  ctx = clCreateContextFromType(NULL, CL_DEVICE_TYPE_CPU, NULL, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clReleaseContext(ctx));
  ctx = clCreateContextFromType(props, CL_DEVICE_TYPE_DEFAULT, NULL, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clReleaseContext(ctx));

  /* Errors. */
  CHECK(clCreateContext(NULL, 0, &env->device, NULL, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateContext(NULL, 1, NULL, NULL, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(clCreateContext(NULL, 1, &env->device, NULL, (void *)1, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  cl_device_id bad_dev = (cl_device_id)env->context;
  CHECK(clCreateContext(NULL, 1, &bad_dev, NULL, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_DEVICE);
  cl_context_properties bad_prop[] = {0x7777, 1, 0};
  CHECK(clCreateContext(bad_prop, 1, &env->device, NULL, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_PROPERTY);
  cl_context_properties twice[] = {
      CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform,
      CL_CONTEXT_PLATFORM, (cl_context_properties)env->platform, 0};
  CHECK(clCreateContext(twice, 1, &env->device, NULL, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_PROPERTY);
  cl_context_properties bad_sync[] = {CL_CONTEXT_INTEROP_USER_SYNC, -1, 0};
  CHECK(clCreateContext(bad_sync, 1, &env->device, NULL, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_PROPERTY);
  CHECK(clCreateContextFromType(NULL, CL_DEVICE_TYPE_GPU, NULL, NULL, &err) ==
        NULL);
  CHECK_EQ(err, CL_DEVICE_NOT_FOUND);
  CHECK(clCreateContextFromType(NULL, 1u << 20, NULL, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_DEVICE_TYPE);
  CHECK(clCreateContextFromType(NULL, 0, NULL, NULL, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_DEVICE_TYPE);
  CHECK_EQ(clRetainContext(NULL), CL_INVALID_CONTEXT);
  CHECK_EQ(clReleaseContext((cl_context)env->queue), CL_INVALID_CONTEXT);
  CHECK_EQ(clGetContextInfo(NULL, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, NULL),
           CL_INVALID_CONTEXT);
}

static void test_queue(test_env *env) {
  cl_int err;
  cl_command_queue q = clCreateCommandQueue(
      env->context, env->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  REQUIRE_OK(err);
  cl_command_queue_properties p = 0;
  REQUIRE_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof p, &p, NULL));
  CHECK_EQ(p, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_context c = NULL;
  REQUIRE_OK(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof c, &c, NULL));
  CHECK(c == env->context);
  cl_device_id d = NULL;
  REQUIRE_OK(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof d, &d, NULL));
  CHECK(d == env->device);
  size_t size = 1;
  REQUIRE_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, 0, NULL,
                                   &size));
  CHECK_EQ(size, 0); /* created without a property list */
  REQUIRE_OK(clFlush(q));
  REQUIRE_OK(clFinish(q));
  REQUIRE_OK(clReleaseCommandQueue(q));

  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                 CL_QUEUE_PROFILING_ENABLE, 0};
  q = clCreateCommandQueueWithProperties(env->context, env->device, props,
                                         &err);
  REQUIRE_OK(err);
  cl_queue_properties got[4];
  REQUIRE_OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof got,
                                   got, &size));
  CHECK_EQ(size, sizeof props);
  CHECK_EQ(got[1], CL_QUEUE_PROFILING_ENABLE);
  cl_uint refs = 0;
  REQUIRE_OK(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof refs,
                                   &refs, NULL));
  CHECK_EQ(refs, 1);
  REQUIRE_OK(clReleaseCommandQueue(q));

  /* Errors. */
  CHECK(clCreateCommandQueue(NULL, env->device, 0, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  CHECK(clCreateCommandQueue(env->context, NULL, 0, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_DEVICE);
  CHECK(clCreateCommandQueue(env->context, env->device, 1u << 30, &err) ==
        NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  cl_queue_properties on_device[] = {
      CL_QUEUE_PROPERTIES,
      CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  /* An on-device queue (tests/test-device-enqueue.c tests them). */
  cl_command_queue dq = clCreateCommandQueueWithProperties(
      env->context, env->device, on_device, &err);
  CHECK_EQ(err, CL_SUCCESS);
  if (dq)
    CHECK_EQ(clReleaseCommandQueue(dq), CL_SUCCESS);
  cl_queue_properties bad[] = {0x7777, 0, 0};
  CHECK(clCreateCommandQueueWithProperties(env->context, env->device, bad,
                                           &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK_EQ(clRetainCommandQueue(NULL), CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clReleaseCommandQueue((cl_command_queue)env->context),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clFinish(NULL), CL_INVALID_COMMAND_QUEUE);
  /* Only an on-device queue can be the default one. */
  CHECK_EQ(clSetDefaultDeviceCommandQueue(env->context, env->device, NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clFlush(NULL), CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clGetCommandQueueInfo(env->queue, 0x7777, sizeof p, &p, NULL),
           CL_INVALID_VALUE);
}

int main(void) {
  test_env env;
  test_setup(&env);
  test_context(&env);
  test_queue(&env);
  test_teardown(&env);
  return test_finish("context-queue");
}
