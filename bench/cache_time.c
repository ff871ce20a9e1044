/* This file contains skein-bench-cache: what an application pays at
 * start for the 5-kernel program of bench/build_time.cl, each time in a
 * new process, as a real application start does: building it from
 * OpenCL C (clCreateProgramWithSource + clBuildProgram), and source to
 * first results (the build, clCreateKernel, one saxpy launch over 1M
 * floats, the blocking read of its results, which are checked). Rows:
 * Skein cold (empty cache folder: the entry is written too), Skein with
 * its cache off (SKEIN_CACHE=0), Skein served from its cache (a new
 * process after one that filled it), and the same for PoCL when its ICD
 * file is given (POCL_KERNEL_CACHE=0, and =1 with a filled
 * POCL_CACHE_DIR). Medians of N processes each, then the best of them
 * (what a machine with idle cores gives).
 *
 *   skein-bench-cache [-n N] [--pocl /etc/OpenCL/vendors/pocl.icd]
 *
 * OCL_ICD_VENDORS must name the folder of Skein's ICD file (as for the
 * other benchmarks); each child sees one platform only. */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define CHECK_CL(expr)                                                     \
  do {                                                                     \
    cl_int e_ = (expr);                                                    \
    if (e_ != CL_SUCCESS) {                                                \
      fprintf(stderr, "%s failed: %d\n", #expr, e_);                       \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

/* The child: one build and first launch; prints "build first". */
static int child(void) {
  enum { N = 1 << 20 };
  cl_platform_id plat;
  cl_device_id dev;
  cl_int err;
  CHECK_CL(clGetPlatformIDs(1, &plat, NULL));
  CHECK_CL(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK_CL(err);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL,
                                                          &err);
  CHECK_CL(err);
  float *x = malloc(N * sizeof(float)), *y = malloc(N * sizeof(float));
  for (int i = 0; i < N; i++) {
    x[i] = (float)(i % 1000);
    y[i] = 1.0f;
  }
  cl_mem bx = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, N * sizeof(float), x,
                             &err);
  cl_mem by = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, N * sizeof(float), y,
                             &err);
  size_t size;
  char *text = read_file(SKEIN_BENCH_SOURCE, &size);
  const char *src = text;
  double t0 = now_ms();
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, &size, &err);
  CHECK_CL(err);
  CHECK_CL(clBuildProgram(p, 1, &dev, "-cl-std=CL2.0", NULL, NULL));
  double t_build = now_ms() - t0;
  cl_kernel k = clCreateKernel(p, "saxpy", &err);
  CHECK_CL(err);
  float a = 2.0f;
  CHECK_CL(clSetKernelArg(k, 0, sizeof by, &by));
  CHECK_CL(clSetKernelArg(k, 1, sizeof bx, &bx));
  CHECK_CL(clSetKernelArg(k, 2, sizeof a, &a));
  size_t global = N;
  CHECK_CL(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL,
                                  NULL));
  CHECK_CL(clEnqueueReadBuffer(q, by, CL_TRUE, 0, N * sizeof(float), y, 0,
                               NULL, NULL));
  double t_first = now_ms() - t0;
  for (int i = 0; i < N; i++)
    if (y[i] != 2.0f * x[i] + 1.0f) {
      fprintf(stderr, "wrong result at %d: %g\n", i, y[i]);
      return 1;
    }
  printf("%.3f %.3f\n", t_build, t_first);
  clReleaseKernel(k);
  clReleaseProgram(p);
  clReleaseMemObject(bx);
  clReleaseMemObject(by);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}

static const char *self;
static char vendors[2][128];   /* one-platform ICD folders: Skein, PoCL */

/* Runs a child with the variables env ("NAME=value", NULL-terminated;
 * "NAME=" unsets) and ICD folder vendors[which]; its two times. */
static int run_child(int which, const char *const *env, double *t) {
  int fds[2];
  if (pipe(fds) != 0)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    setenv("OCL_ICD_VENDORS", vendors[which], 1);
    for (const char *const *e = env; *e; e++) {
      char name[128];
      const char *eq = strchr(*e, '=');
      snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
      if (eq[1])
        setenv(name, eq + 1, 1);
      else
        unsetenv(name);
    }
    execl(self, self, "--child", (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  char out[128] = "";
  ssize_t n = read(fds[0], out, sizeof out - 1);
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
      sscanf(out, "%lf %lf", &t[0], &t[1]) != 2)
    return -1;
  return 0;
}

static void remove_dir(const char *path) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", path);
}

/* One row: the medians of n children; fresh: a new empty cache folder
 * (dir) before each child, else one filled by an untimed child. */
static void row(const char *label, int which, const char *const *env,
                const char *dir, int fresh, int n) {
  double build[64], first[64], t[2];
  remove_dir(dir);
  if (!fresh && run_child(which, env, t) != 0) {
    printf("| %-28s | failed |\n", label);
    return;
  }
  for (int i = 0; i < n; i++) {
    if (fresh)
      remove_dir(dir);
    if (run_child(which, env, t) != 0) {
      printf("| %-28s | failed |\n", label);
      return;
    }
    build[i] = t[0];
    first[i] = t[1];
  }
  qsort(build, (size_t)n, sizeof build[0], cmp_double);
  qsort(first, (size_t)n, sizeof first[0], cmp_double);
  printf("| %-28s | %9.2f | %13.2f | %10.2f | %10.2f | ms   |\n", label,
         build[n / 2], first[n / 2], build[0], first[0]);
  fflush(stdout);
  remove_dir(dir);
}

/* A folder holding only the ICD file icd (a symbolic link to it). */
static void make_vendors(int which, const char *icd) {
  snprintf(vendors[which], sizeof vendors[which],
           "/tmp/skein-bench-cache-%ld-icd%d", (long)getpid(), which);
  remove_dir(vendors[which]);
  char link[300];
  snprintf(link, sizeof link, "%s/%s.icd", vendors[which],
           which ? "pocl" : "skein");
  if (mkdir(vendors[which], 0700) != 0 || symlink(icd, link) != 0) {
    perror(link);
    exit(1);
  }
}

int main(int argc, char **argv) {
  self = argv[0];
  if (argc == 2 && strcmp(argv[1], "--child") == 0)
    return child();
  int n = 9;
  const char *pocl = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
      n = atoi(argv[++i]);
    else if (strcmp(argv[i], "--pocl") == 0 && i + 1 < argc)
      pocl = argv[++i];
  }
  n = n < 1 ? 1 : n > 64 ? 64 : n;
  const char *skein_dir = getenv("OCL_ICD_VENDORS");
  char skein_icd[300] = "";
  DIR *d = skein_dir ? opendir(skein_dir) : NULL;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strstr(e->d_name, "skein") && strstr(e->d_name, ".icd"))
      snprintf(skein_icd, sizeof skein_icd, "%s/%s", skein_dir, e->d_name);
  if (d)
    closedir(d);
  if (!skein_icd[0]) {
    fprintf(stderr, "OCL_ICD_VENDORS must name the folder of skein.icd\n");
    return 1;
  }
  make_vendors(0, skein_icd);
  if (pocl)
    make_vendors(1, pocl);
  char dir[128], dir_env[160], pocl_env[160];
  snprintf(dir, sizeof dir, "/tmp/skein-bench-cache-%ld-dir", (long)getpid());
  snprintf(dir_env, sizeof dir_env, "SKEIN_CACHE_DIR=%s", dir);
  snprintf(pocl_env, sizeof pocl_env, "POCL_CACHE_DIR=%s", dir);
  printf("skein-bench-cache: bench/build_time.cl, a new process per "
         "build, median and best of %d\n", n);
  printf("| %-28s | %9s | %13s | %10s | %10s | unit |\n", "driver and cache",
         "build", "first results", "best build", "best first");
  printf("|------------------------------|-----------|---------------|"
         "------------|------------|------|\n");
  const char *cold[] = {dir_env, "SKEIN_CACHE=", "SKEIN_DUMP=", NULL};
  const char *off[] = {dir_env, "SKEIN_CACHE=0", "SKEIN_DUMP=", NULL};
  row("Skein, cold (cache empty)", 0, cold, dir, 1, n);
  row("Skein, cache off", 0, off, dir, 1, n);
  row("Skein, cache hit", 0, cold, dir, 0, n);
  if (pocl) {
    const char *pocl_off[] = {pocl_env, "POCL_KERNEL_CACHE=0", NULL};
    const char *pocl_on[] = {pocl_env, "POCL_KERNEL_CACHE=1", NULL};
    row("PoCL, cache off", 1, pocl_off, dir, 1, n);
    row("PoCL, cache hit", 1, pocl_on, dir, 0, n);
  }
  remove_dir(vendors[0]);
  if (pocl)
    remove_dir(vendors[1]);
  return 0;
}
