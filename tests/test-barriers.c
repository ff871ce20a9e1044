/* This file tests barrier kernels (fiber mode) through the ICD loader:
 * tree reductions in kernel-scope and argument __local memory, barriers
 * in loops and in called functions, collectives in loops, kernels mixing
 * collectives, barriers and local memory, thousands of groups over every
 * worker at once, each barrier flag combination and work_group_barrier
 * scope, the memory fences, and a barrier kernel with a large private
 * array (the fiber stack follows the compiler's estimate). */
#include "test_util.h"
#include <stdint.h>

static test_env env;

static const char src[] =
    "kernel void tree_static(global const int *in, global int *out) {\n"
    "  local int tmp[256];\n"
    "  size_t l = get_local_id(0);\n"
    "  tmp[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    if (l < s) tmp[l] += tmp[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) out[get_group_id(0)] = tmp[0];\n"
    "}\n"
    "kernel void tree_arg(global const int *in, global int *out,\n"
    "                     local int *tmp) {\n"
    "  size_t l = get_local_id(0);\n"
    "  tmp[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    if (l < s) tmp[l] += tmp[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) out[get_group_id(0)] = tmp[0];\n"
    "}\n"
    "/* steps rotations of the group's values, two barriers each. */\n"
    "int rotate(local int *buf, int v, int steps) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  for (int s = 0; s < steps; s++) {\n"
    "    buf[l] = v;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    v = buf[(l + 1) % n];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  return v;\n"
    "}\n"
    "kernel void rot(global int *out, int steps) {\n"
    "  local int buf[128];\n"
    "  size_t g = get_global_id(0);\n"
    "  out[g] = rotate(buf, (int)g * 3, steps);\n"
    "}\n"
    "/* A private array that lives across barriers. */\n"
    "kernel void big_private(global int *out) {\n"
    "  int a[4096];\n"
    "  size_t l = get_local_id(0);\n"
    "  for (int i = 0; i < 4096; i++) a[i] = i ^ (int)l;\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "  int s = 0;\n"
    "  for (int i = 0; i < 4096; i += 7) s += a[(i * 13 + out[0]) & 4095];\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "  out[get_global_id(0) + 1] = s;\n"
    "}\n"
    "/* The legacy fences (OpenCL C 1.x) order one work-item's accesses. */\n"
    "kernel void fences(global int *p) {\n"
    "  size_t g = get_global_id(0);\n"
    "  p[g] = 1;\n"
    "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  p[g] += 2;\n"
    "  write_mem_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
    "  int v = p[g];\n"
    "  read_mem_fence(CLK_LOCAL_MEM_FENCE);\n"
    "  p[g] = v * 10;\n"
    "}\n";

/* OpenCL C 2.0: collectives, work_group_barrier, atomic_work_item_fence.*/
static const char src20[] =
    "kernel void coll_loop(global const int *in, global int *out,\n"
    "                      int iters) {\n"
    "  int x = in[get_global_id(0)], acc = 0;\n"
    "  for (int i = 0; i < iters; i++) {\n"
    "    acc += work_group_reduce_add(x + i);\n"
    "    x = work_group_scan_inclusive_max(x ^ i);\n"
    "  }\n"
    "  out[get_global_id(0)] = acc + x;\n"
    "}\n"
    "kernel void mix(global const int *in, global int *out,\n"
    "                local int *scratch) {\n"
    "  local int tmp[64];\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  int x = in[get_global_id(0)];\n"
    "  tmp[l] = x;\n"
    "  scratch[l] = 2 * x;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int prefix = work_group_scan_exclusive_add(x);\n"
    "  int mine = tmp[n - 1 - l] + scratch[l];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  tmp[l] = prefix;\n"
    "  work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
    "  int next = tmp[(l + 1) % n];\n"
    "  int first = work_group_broadcast(mine, 0);\n"
    "  out[get_global_id(0)] = mine + next * 7 + first * 13;\n"
    "}\n"
    "#define SHIFT(name, call)\\\n"
    "kernel void name(global int *io) {\\\n"
    "  local int t[64];\\\n"
    "  size_t l = get_local_id(0), g = get_global_id(0);\\\n"
    "  t[l] = io[g];\\\n"
    "  io[g] = -1;\\\n"
    "  call;\\\n"
    "  io[g] = t[(l + 1) % get_local_size(0)];\\\n"
    "}\n"
    "SHIFT(b_none, barrier(0))\n"
    "SHIFT(b_local, barrier(CLK_LOCAL_MEM_FENCE))\n"
    "SHIFT(b_global, barrier(CLK_GLOBAL_MEM_FENCE))\n"
    "SHIFT(b_both, barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE))\n"
    "SHIFT(b_image, barrier(CLK_IMAGE_MEM_FENCE | CLK_LOCAL_MEM_FENCE))\n"
    "SHIFT(w_local, work_group_barrier(CLK_LOCAL_MEM_FENCE))\n"
    "SHIFT(w_all, work_group_barrier(CLK_LOCAL_MEM_FENCE |\\\n"
    "    CLK_GLOBAL_MEM_FENCE | CLK_IMAGE_MEM_FENCE))\n"
    "SHIFT(w_wg, work_group_barrier(CLK_LOCAL_MEM_FENCE,\\\n"
    "    memory_scope_work_group))\n"
    "SHIFT(w_dev, work_group_barrier(CLK_GLOBAL_MEM_FENCE |\\\n"
    "    CLK_LOCAL_MEM_FENCE, memory_scope_device))\n"
    "SHIFT(w_svm, work_group_barrier(CLK_GLOBAL_MEM_FENCE |\\\n"
    "    CLK_LOCAL_MEM_FENCE, memory_scope_all_svm_devices))\n"
    "kernel void fences20(global int *p) {\n"
    "  size_t g = get_global_id(0);\n"
    "  p[g] = 1;\n"
    "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_relaxed,\n"
    "                         memory_scope_work_item);\n"
    "  p[g] += 1;\n"
    "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire,\n"
    "                         memory_scope_work_group);\n"
    "  p[g] += 1;\n"
    "  atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_release,\n"
    "                         memory_scope_device);\n"
    "  p[g] += 1;\n"
    "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE,\n"
    "                         memory_order_acq_rel, memory_scope_device);\n"
    "  p[g] += 1;\n"
    "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst,\n"
    "                         memory_scope_all_svm_devices);\n"
    "  p[g] *= 3;\n"
    "}\n";

static cl_mem buffer(size_t size, const void *init) {
  cl_int err;
  cl_mem m = clCreateBuffer(env.context, CL_MEM_READ_WRITE |
                            (init ? CL_MEM_COPY_HOST_PTR : 0), size,
                            (void *)init, &err);
  REQUIRE_OK(err);
  return m;
}

static cl_kernel kernel(cl_program p, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  REQUIRE_OK(err);
  return k;
}

static void run1(cl_kernel k, size_t gs, size_t ls) {
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &gs, &ls, 0, NULL,
                                    NULL));
}

static void read_buf(cl_mem m, size_t size, void *out) {
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, size, out, 0,
                                 NULL, NULL));
}

static int *random_ints(size_t n, int mod) {
  int *v = malloc(n * sizeof *v);
  uint32_t s = 12345;
  for (size_t i = 0; i < n; i++) {
    s = s * 1103515245u + 12345u;
    v[i] = (int)((s >> 8) % (uint32_t)mod) - mod / 2;
  }
  return v;
}

/* Tree reductions, with kernel-scope and argument local memory, from one
 * work-item groups to 256; 4096 groups of 64 keep every worker busy. */
static void test_trees(cl_program p) {
  static const struct { size_t gs, ls; } runs[] = {
      {5, 1}, {8, 2}, {4 * 64, 64}, {3 * 256, 256}, {4096 * 64, 64}};
  const char *names[2] = {"tree_static", "tree_arg"};
  for (int kn = 0; kn < 2; kn++)
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
      size_t gs = runs[r].gs, ls = runs[r].ls, ng = gs / ls;
      int *in = random_ints(gs, 2001), *out = malloc(ng * sizeof *out);
      cl_mem bin = buffer(gs * 4, in), bout = buffer(ng * 4, NULL);
      cl_kernel k = kernel(p, names[kn]);
      REQUIRE_OK(clSetKernelArg(k, 0, sizeof bin, &bin));
      REQUIRE_OK(clSetKernelArg(k, 1, sizeof bout, &bout));
      if (kn == 1)
        REQUIRE_OK(clSetKernelArg(k, 2, ls * sizeof(int), NULL));
      run1(k, gs, ls);
      read_buf(bout, ng * 4, out);
      int bad = 0;
      for (size_t g = 0; g < ng; g++) {
        int sum = 0;
        for (size_t i = 0; i < ls; i++)
          sum += in[g * ls + i];
        bad += out[g] != sum;
      }
      if (bad)
        fprintf(stderr, "  %s %zu/%zu: %d groups wrong\n", names[kn], gs, ls,
                bad);
      CHECK_EQ(bad, 0);
      clReleaseKernel(k);
      clReleaseMemObject(bin);
      clReleaseMemObject(bout);
      free(in);
      free(out);
    }
}

/* Barriers in a loop inside a called function (OpenCL C 1.2). */
static void test_rotate(cl_program p) {
  enum { N = 384, LS = 128, STEPS = 5 };
  cl_mem b = buffer(N * 4, NULL);
  cl_kernel k = kernel(p, "rot");
  int steps = STEPS;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof b, &b));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof steps, &steps));
  run1(k, N, LS);
  int out[N];
  read_buf(b, sizeof out, out);
  for (int g = 0; g < N; g++) {
    int base = g / LS * LS, n = N - base < LS ? N - base : LS;
    CHECK_EQ(out[g], (base + (g - base + STEPS) % n) * 3);
  }
  clReleaseKernel(k);
  clReleaseMemObject(b);
}

/* 16 KiB of private array per work-item across barriers: the estimate
 * is reported, and 256 work-items each get a stack that holds it. */
static void test_big_private(cl_program p) {
  cl_kernel k = kernel(p, "big_private");
  cl_ulong priv = 0;
  REQUIRE_OK(clGetKernelWorkGroupInfo(k, env.device,
                                      CL_KERNEL_PRIVATE_MEM_SIZE,
                                      sizeof priv, &priv, NULL));
  CHECK(priv >= 4096 * 4);
  enum { N = 512 };
  int init[N + 1] = {3};
  cl_mem b = buffer(sizeof init, init);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof b, &b));
  run1(k, N, 256);
  int out[N + 1];
  read_buf(b, sizeof out, out);
  for (int g = 0; g < N; g++) {
    int s = 0, l = g % 256;
    for (int i = 0; i < 4096; i += 7)
      s += ((i * 13 + 3) & 4095) ^ l;
    CHECK_EQ(out[g + 1], s);
  }
  clReleaseKernel(k);
  clReleaseMemObject(b);
}

static void test_fences(cl_program p, const char *name, int want) {
  enum { N = 100 };
  cl_mem b = buffer(N * 4, NULL);
  cl_kernel k = kernel(p, name);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof b, &b));
  run1(k, N, 10);
  int out[N];
  read_buf(b, sizeof out, out);
  for (int i = 0; i < N; i++)
    CHECK_EQ(out[i], want);
  clReleaseKernel(k);
  clReleaseMemObject(b);
}

/* The host's coll_loop for one group of values v[0..n). */
static void coll_loop_ref(int *v, size_t n, int iters, int *res) {
  int acc = 0;
  for (int i = 0; i < iters; i++) {
    unsigned sum = 0;
    for (size_t k = 0; k < n; k++)
      sum += (unsigned)(v[k] + i);
    acc += (int)sum;
    int mx = INT32_MIN;
    for (size_t k = 0; k < n; k++) {
      int t = v[k] ^ i;
      mx = t > mx ? t : mx;
      v[k] = mx;
    }
  }
  for (size_t k = 0; k < n; k++)
    res[k] = acc + v[k];
}

static void test_coll_loop(cl_program p) {
  enum { N = 1000, LS = 96, ITERS = 9 };
  int *in = random_ints(N, 1 << 20), out[N], want[N];
  cl_mem bin = buffer(N * 4, in), bout = buffer(N * 4, NULL);
  cl_kernel k = kernel(p, "coll_loop");
  int iters = ITERS;
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bin, &bin));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bout, &bout));
  REQUIRE_OK(clSetKernelArg(k, 2, sizeof iters, &iters));
  run1(k, N, LS);
  read_buf(bout, sizeof out, out);
  for (size_t base = 0; base < N; base += LS) {
    size_t n = N - base < LS ? N - base : LS;
    coll_loop_ref(in + base, n, ITERS, want + base);
  }
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != want[i];
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
  free(in);
}

static void test_mix(cl_program p) {
  enum { N = 1000, LS = 64 };
  int *in = random_ints(N, 1000), out[N];
  cl_mem bin = buffer(N * 4, in), bout = buffer(N * 4, NULL);
  cl_kernel k = kernel(p, "mix");
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof bin, &bin));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof bout, &bout));
  REQUIRE_OK(clSetKernelArg(k, 2, LS * sizeof(int), NULL));
  run1(k, N, LS);
  read_buf(bout, sizeof out, out);
  int bad = 0;
  for (size_t base = 0; base < N; base += LS) {
    size_t n = N - base < LS ? N - base : LS;
    const int *x = in + base;
    int mine[LS], prefix[LS], sum = 0;
    for (size_t l = 0; l < n; l++) {
      mine[l] = x[n - 1 - l] + 2 * x[l];
      prefix[l] = sum;
      sum += x[l];
    }
    for (size_t l = 0; l < n; l++)
      bad += out[base + l] != mine[l] + prefix[(l + 1) % n] * 7 +
                                  mine[0] * 13;
  }
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
  free(in);
}

/* Every flag combination and scope: the group's values shift by one. */
static void test_flags(cl_program p) {
  static const char *const names[] = {"b_none", "b_local", "b_global",
                                      "b_both", "b_image", "w_local",
                                      "w_all", "w_wg", "w_dev", "w_svm"};
  enum { N = 200, LS = 64 };
  int *in = random_ints(N, 1 << 30), out[N];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    cl_mem b = buffer(N * 4, in);
    cl_kernel k = kernel(p, names[i]);
    REQUIRE_OK(clSetKernelArg(k, 0, sizeof b, &b));
    run1(k, N, LS);
    read_buf(b, sizeof out, out);
    int bad = 0;
    for (int g = 0; g < N; g++) {
      int base = g / LS * LS, n = N - base < LS ? N - base : LS;
      bad += out[g] != in[base + (g - base + 1) % n];
    }
    if (bad)
      fprintf(stderr, "  %s: %d wrong\n", names[i], bad);
    CHECK_EQ(bad, 0);
    clReleaseKernel(k);
    clReleaseMemObject(b);
  }
  free(in);
}

int main(void) {
  test_setup(&env);
  cl_program p = test_build(&env, src, NULL);
  test_trees(p);
  test_rotate(p);
  test_big_private(p);
  test_fences(p, "fences", 30);
  clReleaseProgram(p);
  p = test_build(&env, src20, "-cl-std=CL2.0");
  test_coll_loop(p);
  test_mix(p);
  test_flags(p);
  test_fences(p, "fences20", 15);
  clReleaseProgram(p);
  test_teardown(&env);
  return test_finish("barriers");
}
