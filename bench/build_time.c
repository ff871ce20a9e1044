/* This file contains skein-bench-build: the build time of one 5-kernel
 * program (bench/build_time.cl) from OpenCL C (clCreateProgramWithSource)
 * and from SPIR-V (clCreateProgramWithIL of the module clang-15 and
 * llvm-spirv-15 make of the same file at build time), on the first
 * device of the first platform the ICD loader finds. Every build is a new
 * program object; the first build of each kind in the process is also
 * reported alone (LLVM's set-up, the builtin library's first use). Rows:
 * "| program | first build | median of N | unit |".
 *
 *   skein-bench-build [-n N] [c|spirv|both]   (default: both, N = 10) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
    exit(1);
  buf[n] = '\0';
  fclose(f);
  *size = (size_t)n;
  return buf;
}

static cl_context ctx;
static cl_device_id dev;

/* Creates and builds one program; returns the milliseconds both took. */
static double build_once(int spirv, const char *text, size_t size) {
  cl_int err;
  double t0 = now_ms();
  cl_program p = spirv ? clCreateProgramWithIL(ctx, text, size, &err)
                       : clCreateProgramWithSource(ctx, 1, &text, &size,
                                                   &err);
  if (err == CL_SUCCESS)
    err = clBuildProgram(p, 1, &dev, spirv ? "" : "-cl-std=CL2.0", NULL,
                         NULL);
  double t = now_ms() - t0;
  if (err != CL_SUCCESS) {
    char log[8192] = "";
    if (p)
      clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                            NULL);
    fprintf(stderr, "build failed (%d): %s\n", err, log);
    exit(1);
  }
  clReleaseProgram(p);
  return t;
}

static void measure(int spirv, int n) {
  size_t size;
  char *text = read_file(spirv ? SKEIN_BENCH_SPIRV : SKEIN_BENCH_SOURCE,
                         &size);
  double first = build_once(spirv, text, size);
  double *t = malloc((size_t)n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = build_once(spirv, text, size);
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  printf("| %-8s | %11.1f | %11.1f | ms   |\n",
         spirv ? "SPIR-V" : "OpenCL C", first, t[n / 2]);
  fflush(stdout);
  free(t);
  free(text);
}

int main(int argc, char **argv) {
  int n = 10;
  const char *which = "both";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
      n = atoi(argv[++i]);
    else
      which = argv[i];
  }
  if (n < 1)
    n = 1;
  cl_platform_id plat;
  cl_int err = clGetPlatformIDs(1, &plat, NULL);
  if (err == CL_SUCCESS)
    err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
  if (err == CL_SUCCESS)
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "no OpenCL device (%d)\n", err);
    return 1;
  }
  char name[256] = "";
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  printf("device: %s; %d builds after the first\n", name, n);
  printf("| program  | first build | median      | unit |\n");
  printf("|----------|-------------|-------------|------|\n");
  if (strcmp(which, "spirv") != 0)
    measure(0, n);
  if (strcmp(which, "c") != 0)
    measure(1, n);
  clReleaseContext(ctx);
  return 0;
}
