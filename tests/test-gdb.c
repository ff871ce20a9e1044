/* Tests kernel debugging (docs/debugging.md): a scripted gdb -batch
 * session runs this program's --debuggee half, which builds two kernels
 * with -g, and checks that gdb stops at OpenCL C source lines (a
 * loop-mode kernel named with -s, and a barrier kernel whose source copy
 * Skein writes), steps a line, and prints the kernel's variables with the
 * values the host computes. Exit 77 (skipped) without a usable gdb. */
#include "test_util.h"
#include <stdbool.h>
#include <unistd.h>

/* The -s file's lines: the gdb script names lines 3 and 4 of it. */
static const char scale_src[] =
    "kernel void scale(global const int *in, global int *out, int k) {\n"
    "  int i = get_global_id(0);\n"
    "  int v = in[i] * k;\n"
    "  out[i] = v + 1;\n"
    "}\n";

/* Line 5 reads the mirrored element after the barrier. */
static const char rev_src[] =
    "kernel void rev(global int *data, local int *tmp) {\n"
    "  int l = get_local_id(0);\n"
    "  tmp[l] = data[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int r = tmp[get_local_size(0) - 1 - l];\n"
    "  data[get_global_id(0)] = r;\n"
    "}\n";

enum { N = 64, K = 3, LOCAL = 8 };

/* The program gdb runs: both kernels, results checked (exit 1 if
 * wrong, so the session's "exited normally" means they were right). */
static int debuggee(const char *scale_path) {
  test_env env;
  test_setup(&env);
  char opts[600];
  snprintf(opts, sizeof opts, "-g -cl-opt-disable -s %s", scale_path);
  cl_program ps = test_build(&env, scale_src, opts);
  cl_program pr = test_build(&env, rev_src, "-g -cl-opt-disable");
  cl_int err;
  cl_kernel ks = clCreateKernel(ps, "scale", &err);
  REQUIRE_OK(err);
  cl_kernel kr = clCreateKernel(pr, "rev", &err);
  REQUIRE_OK(err);
  int in[N], out[N];
  for (int i = 0; i < N; i++)
    in[i] = i;
  cl_mem a = test_buffer(&env, sizeof in, in);
  cl_mem b = test_buffer(&env, sizeof out, NULL);
  int k = K;
  REQUIRE_OK(clSetKernelArg(ks, 0, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(ks, 1, sizeof b, &b));
  REQUIRE_OK(clSetKernelArg(ks, 2, sizeof k, &k));
  size_t global = N, local = LOCAL;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, ks, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  for (int i = 0; i < N; i++)
    CHECK_EQ(out[i], in[i] * K + 1);
  REQUIRE_OK(clSetKernelArg(kr, 0, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(kr, 1, LOCAL * sizeof(int), NULL));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, kr, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, a, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  for (int i = 0; i < N; i++)
    CHECK_EQ(out[i], i / LOCAL * LOCAL + (LOCAL - 1 - i % LOCAL));
  cl_mem m[] = {a, b};
  test_release_buffers(m, 2);
  clReleaseKernel(ks);
  clReleaseKernel(kr);
  clReleaseProgram(ps);
  clReleaseProgram(pr);
  test_teardown(&env);
  return test_finish("gdb debuggee");
}

/* Whether out holds text (reporting it if not). */
static void expect(const char *out, const char *text) {
  if (!strstr(out, text)) {
    fprintf(stderr, "gdb output lacks: %s\n", text);
    test_failures++;
  }
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--debuggee") == 0)
    return debuggee(argv[2]);
  if (system("gdb --version >/dev/null 2>&1") != 0) {
    printf("gdb: not installed, skipped\n");
    return 77;
  }
  char dir[] = "/tmp/skein-gdb-XXXXXX";
  if (!mkdtemp(dir))
    return 1;
  char scale_path[256], script[256], cmd[1200];
  snprintf(scale_path, sizeof scale_path, "%s/scale.cl", dir);
  snprintf(script, sizeof script, "%s/session.gdb", dir);
  FILE *f = fopen(scale_path, "w");
  fputs(scale_src, f);
  fclose(f);
  /* Work-item 5: v = 5 * K = 15 after line 3; in the barrier kernel,
   * work-item 2 of group 0 reads tmp[8 - 1 - 2] = 5 on line 5. */
  f = fopen(script, "w");
  fprintf(f,
          "set breakpoint pending on\n"
          "set pagination off\n"
          "break scale.cl:3 if i == 5\n"
          "run\n"
          "print i\n"
          "next\n"
          "print v\n"
          "delete\n"
          "break rev\n"
          "continue\n"
          "info source\n"
          "delete\n"
          "break 6 if l == 2\n"
          "continue\n"
          "print r\n"
          "print l\n"
          "delete\n"
          "continue\n");
  fclose(f);
  /* The copy of rev's source goes to dir (SKEIN_DEBUG_DIR); one worker
   * thread keeps the session short; no program cache. */
  snprintf(cmd, sizeof cmd,
           "SKEIN_DEBUG_DIR=%s SKEIN_NUM_THREADS=1 SKEIN_CACHE=0 "
           "gdb -batch -nx -x %s --args %s --debuggee %s 2>&1",
           dir, script, argv[0], scale_path);
  FILE *p = popen(cmd, "r");
  static char out[1 << 16];
  size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
  out[n] = '\0';
  if (p)
    pclose(p);
  if (strstr(out, "ptrace: Operation not permitted") ||
      strstr(out, "Couldn't get registers")) {
    printf("gdb: cannot trace processes here, skipped\n%s", out);
    return 77;
  }
  /* Loop mode: stopped in scale at line 3, stepped to line 4. */
  expect(out, "hit Breakpoint 1, scale (");
  expect(out, "scale.cl:3\n3\t  int v = in[i] * k;\n$1 = 5\n");
  expect(out, "4\t  out[i] = v + 1;\n$2 = 15\n");
  /* The barrier kernel: its source is the copy Skein wrote. */
  expect(out, "hit Breakpoint 2, rev (");
  char copy[300];
  snprintf(copy, sizeof copy, "Current source file is %s/kernel-", dir);
  expect(out, copy);
  expect(out, "6\t  data[get_global_id(0)] = r;\n$3 = 5\n$4 = 2\n");
  expect(out, "exited normally");
  if (test_failures)
    fprintf(stderr, "---- gdb session ----\n%s", out);
  char rm[300];
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  if (system(rm) != 0)
    fprintf(stderr, "could not remove %s\n", dir);
  return test_finish("gdb");
}
