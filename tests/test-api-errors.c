/* Tests the error codes of every entry point against the OpenCL 3.0 API
 * specification's error lists (issue 14, item 5). The table lives in
 * api_errors_objects.c and api_errors_commands.c; this file sets up the
 * fixture the rows run against and runs each row: the call must return
 * exactly the code the specification names, and a failed call must leave
 * its outputs alone (a returned object is NULL, size/count/event outputs
 * and value buffers keep their sentinel pattern). */
#include "api_errors.h"
#include <unistd.h>

static const char *kernel_source =
    "kernel void args(global int *p, local int *l, int n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  l[get_local_id(0)] = n;\n"
    "  p[i] = l[get_local_id(0)] + (int)i;\n"
    "}\n"
    "__attribute__((reqd_work_group_size(4, 1, 1)))\n"
    "kernel void reqd4(global int *p) { p[get_global_id(0)] = 4; }\n"
    "kernel void plain(global int *p) { p[get_global_id(0)] = 1; }\n";

/* A unit for clCompileProgram/clLinkProgram. */
static const char *unit_source =
    "kernel void unit(global int *p) { p[0] = 7; }\n";

void CL_CALLBACK never_called_event(cl_event e, cl_int status, void *data) {
  (void)e, (void)status, (void)data;
  fprintf(stderr, "an event callback of a failed call ran\n");
  test_failures++;
}
void CL_CALLBACK never_called_program(cl_program p, void *data) {
  (void)p, (void)data;
  fprintf(stderr, "a program callback of a failed call ran\n");
  test_failures++;
}
void CL_CALLBACK never_called_mem(cl_mem m, void *data) { (void)m, (void)data; }
void CL_CALLBACK never_called_context(cl_context c, void *data) {
  (void)c, (void)data;
}

cl_int ret_mem(fixture *f, cl_mem m, const cl_int *err) {
  f->ret = m;
  if (m)
    clReleaseMemObject(m);
  return *err;
}
cl_int ret_context(fixture *f, cl_context c, const cl_int *err) {
  f->ret = c;
  if (c)
    clReleaseContext(c);
  return *err;
}
cl_int ret_queue(fixture *f, cl_command_queue q, const cl_int *err) {
  f->ret = q;
  if (q)
    clReleaseCommandQueue(q);
  return *err;
}
cl_int ret_program(fixture *f, cl_program p, const cl_int *err) {
  f->ret = p;
  if (p)
    clReleaseProgram(p);
  return *err;
}
cl_int ret_kernel(fixture *f, cl_kernel k, const cl_int *err) {
  f->ret = k;
  if (k)
    clReleaseKernel(k);
  return *err;
}
cl_int ret_event(fixture *f, cl_event e, const cl_int *err) {
  f->ret = e;
  if (e)
    clReleaseEvent(e);
  return *err;
}
cl_int ret_sampler(fixture *f, cl_sampler s, const cl_int *err) {
  f->ret = s;
  if (s)
    clReleaseSampler(s);
  return *err;
}
cl_int ret_pointer(fixture *f, void *p, const cl_int *err) {
  f->ret = p;
  return *err;
}

static cl_mem make_buffer(cl_context ctx, cl_mem_flags flags) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, flags, BUF_SIZE, NULL, &err);
  REQUIRE_OK(err);
  return m;
}

static cl_mem make_sub(cl_mem parent, size_t origin, size_t size) {
  cl_int err;
  cl_buffer_region r = {origin, size};
  cl_mem m =
      clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
  REQUIRE_OK(err);
  return m;
}

static cl_program make_source(cl_context ctx, const char *src) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  REQUIRE_OK(err);
  return p;
}

static cl_program make_compiled(cl_context ctx, const char *src) {
  cl_program p = make_source(ctx, src);
  REQUIRE_OK(clCompileProgram(p, 0, NULL, "", 0, NULL, NULL, NULL, NULL));
  return p;
}

static cl_kernel make_kernel(cl_program p, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  return k;
}

static cl_event make_user_event(cl_context ctx, cl_int status) {
  cl_int err;
  cl_event e = clCreateUserEvent(ctx, &err);
  REQUIRE_OK(err);
  if (status <= CL_COMPLETE)
    REQUIRE_OK(clSetUserEventStatus(e, status));
  return e;
}

/* Sets k_args's three arguments (buffer, 16 ints of local memory, int). */
static void set_args(fixture *f, cl_kernel k) {
  cl_int n = 3;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &f->buf));
  REQUIRE_OK(clSetKernelArg(k, 1, 16 * sizeof(cl_int), NULL));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof n, &n));
}

static void setup_buffers(fixture *f) {
  cl_context ctx = f->env.context;
  f->buf = make_buffer(ctx, CL_MEM_READ_WRITE);
  f->buf_b = make_buffer(ctx, CL_MEM_READ_WRITE);
  f->sub_a = make_sub(f->buf, 128, 256);
  f->sub_b = make_sub(f->buf, 256, 256);
  f->kernel_ro = make_buffer(ctx, CL_MEM_READ_ONLY);
  f->kernel_wo = make_buffer(ctx, CL_MEM_WRITE_ONLY);
  f->host_ro = make_buffer(ctx, CL_MEM_HOST_READ_ONLY);
  f->host_wo = make_buffer(ctx, CL_MEM_HOST_WRITE_ONLY);
  f->host_none = make_buffer(ctx, CL_MEM_HOST_NO_ACCESS);
}

static void setup_programs(fixture *f) {
  cl_context ctx = f->env.context;
  f->built = test_build(&f->env, kernel_source, "");
  f->unbuilt = make_source(ctx, kernel_source);
  f->build_failed = make_source(ctx, "kernel void broken( { }");
  CHECK_EQ(clBuildProgram(f->build_failed, 0, NULL, "", NULL, NULL),
           CL_BUILD_PROGRAM_FAILURE);
  f->compiled = make_compiled(ctx, unit_source);
  cl_int err;
  f->linked =
      clLinkProgram(ctx, 0, NULL, "", 1, &f->compiled, NULL, NULL, &err);
  REQUIRE_OK(err);
  f->uniform = test_build(&f->env, kernel_source,
                          "-cl-std=CL3.0 -cl-uniform-work-group-size");
  f->arg_info = test_build(&f->env, kernel_source, "-cl-kernel-arg-info");
  f->other_header = make_source(f->other_ctx, "#define SEVEN 7\n");
  f->other_compiled = make_compiled(f->other_ctx, unit_source);
  REQUIRE_OK(clGetProgramInfo(f->built, CL_PROGRAM_BINARY_SIZES,
                              sizeof f->binary_size, &f->binary_size, NULL));
  f->binary = malloc(f->binary_size);
  REQUIRE_OK(clGetProgramInfo(f->built, CL_PROGRAM_BINARIES, sizeof f->binary,
                              &f->binary, NULL));
}

static void setup_kernels(fixture *f) {
  f->k_args = make_kernel(f->built, "args");
  set_args(f, f->k_args);
  f->k_unset = make_kernel(f->built, "args");
  f->k_reqd = make_kernel(f->built, "reqd4");
  REQUIRE_OK(clSetKernelArg(f->k_reqd, 0, sizeof(cl_mem), &f->buf));
  f->k_uniform = make_kernel(f->uniform, "args");
  set_args(f, f->k_uniform);
  f->k_info = make_kernel(f->arg_info, "plain");
}

static void setup(fixture *f) {
  test_setup(&f->env);
  cl_int err;
  f->plain_queue = clCreateCommandQueueWithProperties(
      f->env.context, f->env.device, NULL, &err);
  REQUIRE_OK(err);
  f->other_ctx = clCreateContext(NULL, 1, &f->env.device, NULL, NULL, &err);
  REQUIRE_OK(err);
  f->other_queue = clCreateCommandQueueWithProperties(
      f->other_ctx, f->env.device, NULL, &err);
  REQUIRE_OK(err);
  f->other_buf = make_buffer(f->other_ctx, CL_MEM_READ_WRITE);
  f->other_ev = make_user_event(f->other_ctx, CL_COMPLETE);
  setup_buffers(f);
  setup_programs(f);
  setup_kernels(f);
  f->user_ev = make_user_event(f->env.context, CL_SUBMITTED);
  f->failed_ev = make_user_event(f->env.context, -1);
  REQUIRE_OK(clEnqueueMarkerWithWaitList(f->env.queue, 0, NULL, &f->done_ev));
  REQUIRE_OK(clFinish(f->env.queue));
}

static void teardown(fixture *f) {
  REQUIRE_OK(clSetUserEventStatus(f->user_ev, CL_COMPLETE));
  REQUIRE_OK(clFinish(f->env.queue));
  REQUIRE_OK(clFinish(f->plain_queue));
  cl_event events[] = {f->user_ev, f->failed_ev, f->done_ev, f->other_ev};
  for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
    REQUIRE_OK(clReleaseEvent(events[i]));
  cl_kernel kernels[] = {f->k_args, f->k_unset, f->k_reqd, f->k_uniform,
                         f->k_info};
  for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
    REQUIRE_OK(clReleaseKernel(kernels[i]));
  cl_program programs[] = {f->built,    f->unbuilt,      f->build_failed,
                           f->compiled, f->linked,       f->uniform,
                           f->arg_info, f->other_header, f->other_compiled};
  for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++)
    REQUIRE_OK(clReleaseProgram(programs[i]));
  cl_mem mems[] = {f->sub_a,     f->sub_b,     f->buf,     f->buf_b,
                   f->kernel_ro, f->kernel_wo, f->host_ro, f->host_wo,
                   f->host_none, f->other_buf};
  test_release_buffers(mems, (int)(sizeof mems / sizeof mems[0]));
  free(f->binary);
  REQUIRE_OK(clReleaseCommandQueue(f->other_queue));
  REQUIRE_OK(clReleaseContext(f->other_ctx));
  REQUIRE_OK(clReleaseCommandQueue(f->plain_queue));
  test_teardown(&f->env);
}

/* Fills every output a row may pass with its sentinel. */
static void reset_outputs(fixture *f) {
  memset(f->out, SENTINEL_BYTE, sizeof f->out);
  f->size_ret = SENTINEL_SIZE;
  f->num_ret = SENTINEL_UINT;
  f->ev_out = SENTINEL_PTR;
  f->ret = SENTINEL_PTR;
}

/* True if the value buffer still holds only the sentinel. */
static int out_untouched(const fixture *f) {
  for (size_t i = 0; i < sizeof f->out; i++)
    if (f->out[i] != SENTINEL_BYTE)
      return 0;
  return 1;
}

/* Reports one problem of a row. */
static void row_fail(const error_row *r, const char *what, long long got) {
  fprintf(stderr, "%s (%s): %s %lld\n", r->entry, r->condition, what, got);
  test_failures++;
}

/* Checks that a failed call left every output alone. */
static void check_outputs(const error_row *r, const fixture *f) {
  if (!out_untouched(f))
    row_fail(r, "wrote param_value/value output", 0);
  if (f->size_ret != SENTINEL_SIZE)
    row_fail(r, "wrote a size output:", (long long)f->size_ret);
  if (f->num_ret != SENTINEL_UINT)
    row_fail(r, "wrote a count output:", (long long)f->num_ret);
  if (r->creates)
    return;
  if (f->ev_out != SENTINEL_PTR)
    row_fail(r, "wrote an event output", 0);
  if (f->ret != SENTINEL_PTR && f->ret != NULL)
    row_fail(r, "returned an object", 0);
}

static void run_row(const error_row *r, fixture *f) {
  reset_outputs(f);
  cl_int got = r->call(f);
  /* Checked first: a row with no second code has also == 1 ==
   * ROW_SETUP_FAILED, which must not count as allowed. */
  if (got == ROW_SETUP_FAILED)
    row_fail(r, "set-up failed or a check of the row failed: returned", got);
  else if (got != r->expected && got != r->also) {
    fprintf(stderr, "%s (%s): returned %d, the spec says %d\n", r->entry,
            r->condition, got, r->expected);
    test_failures++;
  }
  if (r->expected != CL_SUCCESS)
    check_outputs(r, f);
  /* An event a row's call returned (by success or by mistake). */
  if (f->ev_out != SENTINEL_PTR && f->ev_out != NULL)
    clReleaseEvent(f->ev_out);
}

static void run_table(const error_row *rows, size_t n, fixture *f,
                      const char *only) {
  for (size_t i = 0; i < n; i++) {
    if (only && strcmp(only, rows[i].entry) != 0)
      continue;
    run_row(&rows[i], f);
    /* Commands a row enqueued by success finish before the next row. */
    REQUIRE_OK(clFinish(f->env.queue));
  }
}

int main(int argc, char **argv) {
  /* A row that hangs (a command waiting forever) fails the test instead
   * of holding ctest until its timeout. */
  alarm(300);
  /* The image and sampler rows are those of a device without image
   * support (api_errors_commands.c); image support is on by default. */
  setenv("SKEIN_IMAGES", "0", 1);
  const char *only = argc > 1 ? argv[1] : NULL; /* one entry point */
  fixture f;
  memset(&f, 0, sizeof f);
  setup(&f);
  run_table(object_rows, num_object_rows, &f, only);
  run_table(command_rows, num_command_rows, &f, only);
  teardown(&f);
  printf("%zu rows\n", num_object_rows + num_command_rows);
  return test_finish("api-errors");
}
