/* This file runs kernels end to end through the ICD loader and checks
 * every result against the host: vector add, SAXPY in float and double,
 * a naive matrix multiply, 1D/2D/3D NDRanges with offsets and non-uniform
 * work-groups (every work-item function's value written out), a NULL
 * local size, clEnqueueTask, struct and vector arguments, __local pointer
 * arguments, argument snapshots, and the enqueue errors. */
#include "test_util.h"
#include <math.h>

static test_env env;

static cl_mem make_buffer(size_t size, const void *init) {
  cl_int err;
  cl_mem m = clCreateBuffer(env.context,
                            CL_MEM_READ_WRITE |
                                (init ? CL_MEM_COPY_HOST_PTR : 0),
                            size, (void *)init, &err);
  REQUIRE_OK(err);
  return m;
}

static void read_buffer(cl_mem m, size_t size, void *out) {
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, size, out, 0, NULL,
                                 NULL));
}

static cl_kernel make_kernel(cl_program p, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  return k;
}

static const char *basic_src =
    "kernel void vadd(global const float *a, global const float *b,\n"
    "                 global float *c) {\n"
    "  size_t i = get_global_id(0);\n"
    "  c[i] = a[i] + b[i];\n"
    "}\n"
    "kernel void saxpy(float a, global const float *x, global float *y) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + y[i];\n"
    "}\n"
    "kernel void daxpy(double a, global const double *x, global double *y) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + y[i];\n"
    "}\n"
    "kernel void matmul(int n, int k, global const float *a,\n"
    "                   global const float *b, global float *c) {\n"
    "  int row = get_global_id(1), col = get_global_id(0);\n"
    "  int m = get_global_size(0);\n"
    "  float sum = 0.0f;\n"
    "  for (int i = 0; i < k; i++)\n"
    "    sum += a[row * k + i] * b[i * m + col];\n"
    "  c[row * m + col] = sum;\n"
    "}\n";

static void test_vadd(cl_program p) {
  enum { N = 100003 };
  float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  float *c = malloc(N * sizeof *c);
  for (int i = 0; i < N; i++) {
    a[i] = (float)i * 0.5f;
    b[i] = (float)(N - i) * 0.25f;
  }
  cl_mem ma = make_buffer(N * sizeof *a, a), mb = make_buffer(N * sizeof *b, b);
  cl_mem mc = make_buffer(N * sizeof *c, NULL);
  cl_kernel k = make_kernel(p, "vadd");
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof ma, &ma));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof mb, &mb));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof mc, &mc));
  size_t global = N; /* prime: the chosen local size must divide it */
  cl_event ev;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, &ev));
  read_buffer(mc, N * sizeof *c, c);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += c[i] != a[i] + b[i];
  CHECK_EQ(bad, 0);
  cl_command_type type = 0;
  REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof type, &type,
                            NULL));
  CHECK_EQ(type, CL_COMMAND_NDRANGE_KERNEL);
  cl_int status = 1;
  REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                            sizeof status, &status, NULL));
  CHECK_EQ(status, CL_COMPLETE);
  clReleaseEvent(ev);
  clReleaseKernel(k);
  clReleaseMemObject(ma);
  clReleaseMemObject(mb);
  clReleaseMemObject(mc);
  free(a);
  free(b);
  free(c);
}

static void test_saxpy(cl_program p) {
  enum { N = 4096 };
  float x[N], y[N], r[N];
  double dx[N], dy[N], dr[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)i / 7.0f;
    y[i] = 1.0f - (float)i;
    dx[i] = (double)i / 7.0;
    dy[i] = 1.0 - (double)i * 1e-3;
  }
  float a = 2.5f;
  double da = -1.25;
  cl_mem mx = make_buffer(sizeof x, x), my = make_buffer(sizeof y, y);
  cl_mem mdx = make_buffer(sizeof dx, dx), mdy = make_buffer(sizeof dy, dy);
  cl_kernel k = make_kernel(p, "saxpy"), kd = make_kernel(p, "daxpy");
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof mx, &mx));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof my, &my));
  REQUIRE_OK(clSetKernelArg(kd, 0, sizeof da, &da));
  REQUIRE_OK(clSetKernelArg(kd, 1, sizeof mdx, &mdx));
  REQUIRE_OK(clSetKernelArg(kd, 2, sizeof mdy, &mdy));
  size_t global = N, local = 64;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, kd, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  read_buffer(my, sizeof r, r);
  read_buffer(mdy, sizeof dr, dr);
  int bad = 0, dbad = 0;
  for (int i = 0; i < N; i++) {
    /* a*x+y may be contracted to an fma: allow one rounding of slack. */
    float e = a * x[i] + y[i];
    bad += fabsf(r[i] - e) > 1e-6f * fmaxf(1.0f, fabsf(e));
    double de = da * dx[i] + dy[i];
    dbad += fabs(dr[i] - de) > 1e-14 * fmax(1.0, fabs(de));
  }
  CHECK_EQ(bad, 0);
  CHECK_EQ(dbad, 0);
  clReleaseKernel(k);
  clReleaseKernel(kd);
  clReleaseMemObject(mx);
  clReleaseMemObject(my);
  clReleaseMemObject(mdx);
  clReleaseMemObject(mdy);
}

static void test_matmul(cl_program p) {
  enum { N = 37, K = 29, M = 48 }; /* c (N x M) = a (N x K) * b (K x M) */
  float a[N * K], b[K * M], c[N * M];
  for (int i = 0; i < N * K; i++)
    a[i] = (float)((i * 7) % 13) - 6.0f;
  for (int i = 0; i < K * M; i++)
    b[i] = (float)((i * 5) % 11) * 0.5f;
  cl_mem ma = make_buffer(sizeof a, a), mb = make_buffer(sizeof b, b);
  cl_mem mc = make_buffer(sizeof c, NULL);
  cl_kernel k = make_kernel(p, "matmul");
  int n = N, kk = K;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof n, &n));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof kk, &kk));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof ma, &ma));
  REQUIRE_OK(clSetKernelArg(k, 3, sizeof mb, &mb));
  REQUIRE_OK(clSetKernelArg(k, 4, sizeof mc, &mc));
  size_t global[2] = {M, N}, local[2] = {16, 1};
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 2, NULL, global, local, 0,
                                    NULL, NULL));
  read_buffer(mc, sizeof c, c);
  int bad = 0;
  for (int r = 0; r < N; r++) {
    for (int col = 0; col < M; col++) {
      float sum = 0;
      for (int i = 0; i < K; i++)
        sum += a[r * K + i] * b[i * M + col];
      bad += c[r * M + col] != sum; /* exact: small integers and halves */
    }
  }
  CHECK_EQ(bad, 0);
  /* The same with the local size left to Skein. */
  memset(c, 0, sizeof c);
  REQUIRE_OK(clEnqueueWriteBuffer(env.queue, mc, CL_TRUE, 0, sizeof c, c, 0,
                                  NULL, NULL));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 2, NULL, global, NULL, 0,
                                    NULL, NULL));
  read_buffer(mc, sizeof c, c);
  bad = 0;
  for (int r = 0; r < N; r++) {
    for (int col = 0; col < M; col++) {
      float sum = 0;
      for (int i = 0; i < K; i++)
        sum += a[r * K + i] * b[i * M + col];
      bad += c[r * M + col] != sum;
    }
  }
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);
  clReleaseMemObject(ma);
  clReleaseMemObject(mb);
  clReleaseMemObject(mc);
}

/* Every work-item writes its work-item function values into 32 ulongs at
 * its linear position in the NDRange. */
static const char *ids_src =
    "#if __OPENCL_C_VERSION__ < 200\n"
    "/* OpenCL C 1.x: uniform work-groups, these are derived. */\n"
    "#define get_enqueued_local_size get_local_size\n"
    "#define get_global_linear_id() ((get_global_id(2) - get_global_offset(2))\\\n"
    "  * get_global_size(1) * get_global_size(0) + (get_global_id(1) -\\\n"
    "  get_global_offset(1)) * get_global_size(0) + get_global_id(0) -\\\n"
    "  get_global_offset(0))\n"
    "#define get_local_linear_id() ((get_local_id(2) * get_local_size(1) +\\\n"
    "  get_local_id(1)) * get_local_size(0) + get_local_id(0))\n"
    "#endif\n"
    "kernel void ids(global ulong *out) {\n"
    "  size_t lin = get_global_linear_id();\n"
    "  size_t x = get_global_id(0) - get_global_offset(0);\n"
    "  size_t y = get_global_id(1) - get_global_offset(1);\n"
    "  size_t z = get_global_id(2) - get_global_offset(2);\n"
    "  size_t pos = (z * get_global_size(1) + y) * get_global_size(0) + x;\n"
    "  global ulong *o = out + pos * 32;\n"
    "  o[0] = get_work_dim();\n"
    "  for (uint d = 0; d < 3; d++) {\n"
    "    o[1 + d] = get_global_id(d);\n"
    "    o[4 + d] = get_local_id(d);\n"
    "    o[7 + d] = get_group_id(d);\n"
    "    o[10 + d] = get_global_size(d);\n"
    "    o[13 + d] = get_local_size(d);\n"
    "    o[16 + d] = get_enqueued_local_size(d);\n"
    "    o[19 + d] = get_num_groups(d);\n"
    "    o[22 + d] = get_global_offset(d);\n"
    "  }\n"
    "  o[25] = lin;\n"
    "  o[26] = get_local_linear_id();\n"
    "  o[27] = get_global_size(3) + 10 * get_global_id(3) +\n"
    "          100 * get_local_size(3) + 1000 * get_num_groups(3) +\n"
    "          10000 * get_group_id(3) + 100000 * get_global_offset(3);\n"
    "  o[28] = 0xC0FFEE;\n"
    "}\n";

/* Checks one work-item's record against the host's values. el is the
 * enqueued local size (all dims, 1 beyond work_dim). */
static int check_record(const cl_ulong *o, cl_uint dim, const size_t *g,
                        const size_t *el, const size_t *off,
                        const size_t *pos) {
  int bad = 0;
  size_t ls[3];
  for (int d = 0; d < 3; d++) {
    size_t grp = pos[d] / el[d];
    ls[d] = g[d] - grp * el[d] < el[d] ? g[d] - grp * el[d] : el[d];
    bad += o[1 + d] != pos[d] + off[d];
    bad += o[4 + d] != pos[d] % el[d];
    bad += o[7 + d] != grp;
    bad += o[10 + d] != g[d];
    bad += o[13 + d] != ls[d];
    bad += o[16 + d] != el[d];
    bad += o[19 + d] != (g[d] + el[d] - 1) / el[d];
    bad += o[22 + d] != off[d];
  }
  size_t lin = (pos[2] * g[1] + pos[1]) * g[0] + pos[0];
  size_t llin = ((pos[2] % el[2]) * ls[1] + pos[1] % el[1]) * ls[0] +
                pos[0] % el[0];
  bad += o[0] != dim;
  bad += o[25] != lin;
  bad += o[26] != llin;
  bad += o[27] != 1 + 100 + 1000; /* out-of-range dimension: 1,0,1,1,0,0 */
  bad += o[28] != 0xC0FFEE;
  return bad;
}

/* Runs ids over the NDRange and checks every record. A NULL local lets
 * Skein choose: the check takes the enqueued size from the first record. */
static void run_ids(cl_program p, cl_uint dim, const size_t *global,
                    const size_t *local, const size_t *offset) {
  size_t g[3] = {1, 1, 1}, el[3] = {1, 1, 1}, off[3] = {0, 0, 0};
  for (cl_uint d = 0; d < dim; d++) {
    g[d] = global[d];
    el[d] = local ? local[d] : 1;
    off[d] = offset ? offset[d] : 0;
  }
  size_t n = g[0] * g[1] * g[2];
  cl_ulong *out = calloc(n * 32, sizeof *out);
  cl_mem m = make_buffer(n * 32 * sizeof *out, out);
  cl_kernel k = make_kernel(p, "ids");
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof m, &m));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, dim, offset, global, local,
                                    0, NULL, NULL));
  read_buffer(m, n * 32 * sizeof *out, out);
  if (!local) {
    size_t product = 1;
    for (int d = 0; d < 3; d++) {
      el[d] = out[16 + d];
      product *= el[d];
      CHECK(el[d] >= 1);
    }
    CHECK(product <= 1024);
  }
  int bad = 0;
  for (size_t z = 0; z < g[2]; z++)
    for (size_t y = 0; y < g[1]; y++)
      for (size_t x = 0; x < g[0]; x++) {
        size_t pos[3] = {x, y, z};
        bad += check_record(out + ((z * g[1] + y) * g[0] + x) * 32, dim, g,
                            el, off, pos) != 0;
      }
  if (bad)
    fprintf(stderr, "ids: dim %u global %zux%zux%zu local %zux%zux%zu: %d "
                    "bad work-items\n",
            dim, g[0], g[1], g[2], el[0], el[1], el[2], bad);
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);
  clReleaseMemObject(m);
  free(out);
}

static void test_ids(void) {
  cl_program p3 = test_build(&env, ids_src, "-cl-std=CL3.0");
  size_t g3[3] = {13, 7, 5}, l3[3] = {4, 3, 2}, o3[3] = {3, 5, 7};
  run_ids(p3, 3, g3, l3, o3);               /* non-uniform, offset */
  run_ids(p3, 3, g3, NULL, o3);             /* chosen local size */
  size_t g2[2] = {33, 9}, l2[2] = {8, 4}, o2[2] = {100, 1};
  run_ids(p3, 2, g2, l2, o2);
  run_ids(p3, 2, g2, l2, NULL);
  size_t g1 = 1000, l1 = 128, o1 = 12345;
  run_ids(p3, 1, &g1, &l1, &o1);
  run_ids(p3, 1, &g1, NULL, NULL);
  size_t g1p = 997; /* prime: non-uniform when chosen */
  run_ids(p3, 1, &g1p, NULL, NULL);

  /* A binary of the 3.0 program keeps allowing non-uniform launches. */
  size_t bin_size;
  REQUIRE_OK(clGetProgramInfo(p3, CL_PROGRAM_BINARY_SIZES, sizeof bin_size,
                              &bin_size, NULL));
  unsigned char *bin = malloc(bin_size);
  REQUIRE_OK(clGetProgramInfo(p3, CL_PROGRAM_BINARIES, sizeof bin, &bin,
                              NULL));
  cl_int err;
  const unsigned char *cbin = bin;
  cl_program pb = clCreateProgramWithBinary(env.context, 1, &env.device,
                                            &bin_size, &cbin, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clBuildProgram(pb, 0, NULL, NULL, NULL, NULL));
  run_ids(pb, 3, g3, l3, o3);
  clReleaseProgram(pb);
  free(bin);

  /* OpenCL C 1.2 needs uniform work-groups. */
  cl_program p12 = test_build(&env, ids_src, "-cl-std=CL1.2");
  size_t gu[3] = {16, 6, 4};
  run_ids(p12, 3, gu, l3, o3);
  run_ids(p12, 3, g3, NULL, o3);            /* chosen: must divide */
  run_ids(p12, 1, &g1p, NULL, NULL);
  cl_kernel k = make_kernel(p12, "ids");
  cl_mem m = make_buffer(13 * 7 * 5 * 32 * 8, NULL);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof m, &m));
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 3, NULL, g3, l3, 0, NULL,
                                  NULL),
           CL_INVALID_WORK_GROUP_SIZE);
  clReleaseKernel(k);
  clReleaseMemObject(m);
  /* -cl-uniform-work-group-size asks the same of a 3.0 program. */
  cl_program pu = test_build(&env, ids_src,
                             "-cl-std=CL3.0 -cl-uniform-work-group-size");
  k = make_kernel(pu, "ids");
  m = make_buffer(13 * 7 * 5 * 32 * 8, NULL);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof m, &m));
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 3, NULL, g3, l3, 0, NULL,
                                  NULL),
           CL_INVALID_WORK_GROUP_SIZE);
  clReleaseKernel(k);
  clReleaseMemObject(m);
  clReleaseProgram(pu);
  clReleaseProgram(p12);
  clReleaseProgram(p3);
}

static const char *misc_src =
    "typedef struct { int a; float b; double c; char d; int4 e; } rec;\n"
    "kernel void task(global ulong *o) {\n"
    "  o[0] = get_global_size(0); o[1] = get_local_size(0);\n"
    "  o[2] = get_global_id(0); o[3] = get_work_dim(); o[4] = 42;\n"
    "}\n"
    "kernel void byval(rec r, float4 f, int3 i3, uchar c, short2 s,\n"
    "                  global double *o) {\n"
    "  o[0] = r.a; o[1] = r.b; o[2] = r.c; o[3] = r.d;\n"
    "  o[4] = r.e.x + r.e.y * 10 + r.e.z * 100 + r.e.w * 1000;\n"
    "  o[5] = f.x + f.y + f.z + f.w; o[6] = f.w;\n"
    "  o[7] = i3.x * i3.y * i3.z; o[8] = c; o[9] = s.x - s.y;\n"
    "}\n"
    "kernel void locals(local float *a, global int *out, local int *b) {\n"
    "  size_t l = get_local_id(0), g = get_global_id(0);\n"
    "  a[l] = (float)g * 2.0f;\n"
    "  b[l] = (int)g;\n"
    "  out[g] = (int)a[l] + b[l] + (int)(((size_t)a & 127) != 0) * 1000000\n"
    "           + (int)(((size_t)b & 127) != 0) * 1000000;\n"
    "}\n"
    "kernel void scale(global int *o, int v) {\n"
    "  o[get_global_id(0)] = v * (int)get_global_id(0);\n"
    "}\n";

typedef struct {
  cl_int a;
  cl_float b;
  cl_double c;
  cl_char d;
  cl_int4 e;
} rec;

static void test_task_and_values(cl_program p) {
  cl_ulong t[5] = {0};
  cl_mem mt = make_buffer(sizeof t, t);
  cl_kernel k = make_kernel(p, "task");
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof mt, &mt));
  cl_event ev;
  REQUIRE_OK(clEnqueueTask(env.queue, k, 0, NULL, &ev));
  read_buffer(mt, sizeof t, t);
  CHECK(t[0] == 1 && t[1] == 1 && t[2] == 0 && t[3] == 1 && t[4] == 42);
  cl_command_type type = 0;
  REQUIRE_OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof type, &type,
                            NULL));
  CHECK_EQ(type, CL_COMMAND_TASK);
  clReleaseEvent(ev);
  CHECK_EQ(clEnqueueTask(NULL, k, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clEnqueueTask(env.queue, NULL, 0, NULL, NULL), CL_INVALID_KERNEL);
  clReleaseKernel(k);
  clReleaseMemObject(mt);

  rec r = {-7, 1.5f, 1e100, 'x', {{1, 2, 3, 4}}};
  cl_float4 f = {{0.5f, 1.0f, 2.0f, 4.25f}};
  cl_int3 i3 = {{2, 3, 7}};
  cl_uchar c = 200;
  cl_short2 s = {{-300, 45}};
  double o[10] = {0};
  cl_mem mo = make_buffer(sizeof o, o);
  k = make_kernel(p, "byval");
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof r, &r));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof f, &f));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof i3, &i3));
  REQUIRE_OK(clSetKernelArg(k, 3, sizeof c, &c));
  REQUIRE_OK(clSetKernelArg(k, 4, sizeof s, &s));
  REQUIRE_OK(clSetKernelArg(k, 5, sizeof mo, &mo));
  REQUIRE_OK(clEnqueueTask(env.queue, k, 0, NULL, NULL));
  read_buffer(mo, sizeof o, o);
  CHECK(o[0] == -7 && o[1] == 1.5 && o[2] == 1e100 && o[3] == 'x');
  CHECK(o[4] == 4321);
  CHECK(o[5] == 7.75 && o[6] == 4.25);
  CHECK(o[7] == 42 && o[8] == 200 && o[9] == -345);
  clReleaseKernel(k);
  clReleaseMemObject(mo);
}

static void test_locals(cl_program p) {
  enum { N = 1000 };
  int out[N];
  cl_mem m = make_buffer(sizeof out, NULL);
  cl_kernel k = make_kernel(p, "locals");
  size_t local = 50;
  REQUIRE_OK(clSetKernelArg(k, 0, local * sizeof(float), NULL));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof m, &m));
  REQUIRE_OK(clSetKernelArg(k, 2, local * sizeof(int) + 3, NULL));
  size_t global = N;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local, 0,
                                    NULL, NULL));
  read_buffer(m, sizeof out, out);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != 3 * i;
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);
  clReleaseMemObject(m);
}

/* Arguments are captured at enqueue: changing them right after does not
 * change the command already queued, even behind a user event. */
static void test_snapshot(cl_program p) {
  enum { N = 64 };
  cl_int err;
  cl_mem m1 = make_buffer(N * sizeof(int), NULL);
  cl_mem m2 = make_buffer(N * sizeof(int), NULL);
  cl_kernel k = make_kernel(p, "scale");
  cl_event gate = clCreateUserEvent(env.context, &err);
  REQUIRE_OK(err);
  int v = 3;
  size_t global = N;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof m1, &m1));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof v, &v));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 1,
                                    &gate, NULL));
  v = 5;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof m2, &m2));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof v, &v));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clSetUserEventStatus(gate, CL_COMPLETE));
  int o1[N], o2[N];
  read_buffer(m1, sizeof o1, o1);
  read_buffer(m2, sizeof o2, o2);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += o1[i] != 3 * i || o2[i] != 5 * i;
  CHECK_EQ(bad, 0);
  /* The kernel's buffer may be released while the command is queued. */
  cl_mem m3 = make_buffer(N * sizeof(int), NULL);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof m3, &m3));
  cl_event gate2 = clCreateUserEvent(env.context, &err);
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 1,
                                    &gate2, NULL));
  REQUIRE_OK(clReleaseMemObject(m3));
  REQUIRE_OK(clSetUserEventStatus(gate2, CL_COMPLETE));
  REQUIRE_OK(clFinish(env.queue));

  /* A kernel outlives the application's references to its program, and a
   * queued command outlives the application's reference to its kernel. */
  cl_program own = test_build(&env, "kernel void twice(global int *o) {\n"
                                    "  o[get_global_id(0)] *= 2; }\n", NULL);
  cl_kernel k2 = make_kernel(own, "twice");
  REQUIRE_OK(clReleaseProgram(own));
  cl_event gate3 = clCreateUserEvent(env.context, &err);
  REQUIRE_OK(clSetKernelArg(k2, 0, sizeof m1, &m1));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k2, 1, NULL, &global, NULL, 1,
                                    &gate3, NULL));
  REQUIRE_OK(clReleaseKernel(k2));
  REQUIRE_OK(clSetUserEventStatus(gate3, CL_COMPLETE));
  read_buffer(m1, sizeof o1, o1);
  bad = 0;
  for (int i = 0; i < N; i++)
    bad += o1[i] != 6 * i;
  CHECK_EQ(bad, 0);
  clReleaseEvent(gate3);
  clReleaseEvent(gate);
  clReleaseEvent(gate2);
  clReleaseKernel(k);
  clReleaseMemObject(m1);
  clReleaseMemObject(m2);
}

static void test_enqueue_errors(cl_program p, cl_program fixed_p) {
  cl_int err;
  enum { N = 64 };
  int host[N];
  for (int i = 0; i < N; i++)
    host[i] = -1;
  cl_mem m = make_buffer(sizeof host, host);
  cl_kernel k = make_kernel(p, "scale");
  int v = 2;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof m, &m));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof v, &v));
  size_t g[3] = {N, 1, 1}, l[3] = {1, 1, 1};
  CHECK_EQ(clEnqueueNDRangeKernel(NULL, k, 1, NULL, g, NULL, 0, NULL, NULL),
           CL_INVALID_COMMAND_QUEUE);
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, NULL, 1, NULL, g, NULL, 0, NULL,
                                  NULL),
           CL_INVALID_KERNEL);
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 0, NULL, g, NULL, 0, NULL,
                                  NULL),
           CL_INVALID_WORK_DIMENSION);
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 4, NULL, g, NULL, 0, NULL,
                                  NULL),
           CL_INVALID_WORK_DIMENSION);
  /* A NULL global size, like a 0 entry, runs nothing (OpenCL 2.1+). */
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, NULL, NULL, 0, NULL,
                                  NULL),
           CL_SUCCESS);
  REQUIRE_OK(clFinish(env.queue));
  size_t big_off = SIZE_MAX - 10;
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 1, &big_off, g, NULL, 0, NULL,
                                  NULL),
           CL_INVALID_GLOBAL_OFFSET);
  size_t l_item[3] = {2048, 1, 1}, g_item[3] = {4096, 1, 1};
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, g_item, l_item, 0,
                                  NULL, NULL),
           CL_INVALID_WORK_ITEM_SIZE);
  size_t l_grp[3] = {64, 32, 1}, g_grp[3] = {64, 32, 1};
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 2, NULL, g_grp, l_grp, 0,
                                  NULL, NULL),
           CL_INVALID_WORK_GROUP_SIZE);
  size_t l0 = 0;
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, g, &l0, 0, NULL,
                                  NULL),
           CL_INVALID_WORK_GROUP_SIZE);
  size_t l_odd = 7; /* 64 % 7 != 0 in an OpenCL C 1.2 program */
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, g, &l_odd, 0, NULL,
                                  NULL),
           CL_INVALID_WORK_GROUP_SIZE);
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, g, NULL, 1, NULL,
                                  NULL),
           CL_INVALID_EVENT_WAIT_LIST);
  cl_event none = NULL;
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, g, NULL, 0, &none,
                                  NULL),
           CL_INVALID_EVENT_WAIT_LIST);
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, g, NULL, 1, &none,
                                  NULL),
           CL_INVALID_EVENT_WAIT_LIST);

  /* A queue of another context. */
  cl_context ctx2 = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
  REQUIRE_OK(err);
  cl_command_queue q2 =
      clCreateCommandQueueWithProperties(ctx2, env.device, NULL, &err);
  REQUIRE_OK(err);
  CHECK_EQ(clEnqueueNDRangeKernel(q2, k, 1, NULL, g, NULL, 0, NULL, NULL),
           CL_INVALID_CONTEXT);
  clReleaseCommandQueue(q2);
  clReleaseContext(ctx2);

  /* A 0 global size is allowed (OpenCL 2.1+) and runs nothing. */
  size_t g0[2] = {N, 0};
  cl_event ev;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 2, NULL, g0, NULL, 0, NULL,
                                    &ev));
  REQUIRE_OK(clWaitForEvents(1, &ev));
  clReleaseEvent(ev);
  int out[N];
  read_buffer(m, sizeof out, out);
  int untouched = 0;
  for (int i = 0; i < N; i++)
    untouched += out[i] == -1;
  CHECK_EQ(untouched, N);

  /* reqd_work_group_size(8, 1, 1). */
  cl_kernel kf = make_kernel(fixed_p, "fixed");
  REQUIRE_OK(clSetKernelArg(kf, 0, sizeof m, &m));
  l[0] = 4;
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, kf, 1, NULL, g, l, 0, NULL,
                                  NULL),
           CL_INVALID_WORK_GROUP_SIZE);
  /* No local size: the required one is used. */
  CHECK_EQ(clEnqueueNDRangeKernel(env.queue, kf, 1, NULL, g, NULL, 0, NULL,
                                  NULL),
           CL_SUCCESS);
  REQUIRE_OK(clFinish(env.queue));
  CHECK_EQ(clEnqueueTask(env.queue, kf, 0, NULL, NULL),
           CL_INVALID_WORK_GROUP_SIZE);
  l[0] = 8;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, kf, 1, NULL, g, l, 0, NULL,
                                    NULL));
  read_buffer(m, sizeof out, out);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != i + 1;
  CHECK_EQ(bad, 0);
  clReleaseKernel(kf);
  clReleaseKernel(k);
  clReleaseMemObject(m);
}

int main(void) {
  test_setup(&env);
  cl_program p = test_build(&env, basic_src, NULL);
  test_vadd(p);
  test_saxpy(p);
  test_matmul(p);
  clReleaseProgram(p);
  test_ids();
  p = test_build(&env, misc_src, NULL);
  test_task_and_values(p);
  test_locals(p);
  test_snapshot(p);
  cl_program fixed_p = test_build(
      &env,
      "kernel __attribute__((reqd_work_group_size(8, 1, 1)))\n"
      "void fixed(global int *o) { o[get_global_id(0)] = get_global_id(0) + 1; }\n",
      NULL);
  test_enqueue_errors(p, fixed_p);
  clReleaseProgram(fixed_p);
  clReleaseProgram(p);
  test_teardown(&env);
  return test_finish("kernels");
}
