/* This file contains skein-bench-peak: compute (GFLOPS) and global-memory
 * read (GB/s) figures in the spirit of clpeak, with kernels that need only
 * mad() and the work-item functions, so they run on a driver whose builtin
 * library is still partial. OCL_ICD_VENDORS chooses the driver; the first
 * device of the first platform runs. Rows are "| metric | value | unit |". */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
  COMPUTE_ITEMS = 1 << 18, /* work-items of one compute launch */
  MADS_PER_ITEM = 1024,    /* dependent mads per work-item, any width */
  READS_PER_ITEM = 16,     /* loads per work-item in the read test */
  RUNS = 5,                /* timed launches; the median is reported */
};
static const size_t read_bytes = (size_t)256 << 20;

typedef struct peak {
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  size_t local;      /* 0: let the driver choose */
  const char *only;  /* run only the tests whose name contains this */
} peak;

/* False for a test the -t option left out. */
static bool selected(const peak *p, const char *metric) {
  return !p->only || strstr(metric, p->only);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void row(const char *metric, double value, const char *unit) {
  printf("| %-44s | %12.2f | %-9s |\n", metric, value, unit);
  fflush(stdout);
}

static void failed_row(const char *metric, cl_int err) {
  char what[32];
  snprintf(what, sizeof what, "err %d", err);
  printf("| %-44s | %12s | %-9s |\n", metric, "FAILED", what);
  fflush(stdout);
}

/* The vector literal (T)(a+0, a+1, ...) as source text: distinct lanes, so
 * the compiler cannot compute one lane and splat it. */
static void lanes(char *buf, size_t n, const char *tw, int w) {
  int k = snprintf(buf, n, "(%s)(a", tw);
  for (int i = 1; i < w && k > 0 && (size_t)k < n; i++)
    k += snprintf(buf + k, n - (size_t)k, ", a + %d", i);
  if (k > 0 && (size_t)k < n)
    snprintf(buf + k, n - (size_t)k, ")");
}

/* Builds src and returns its kernel "k"; NULL (and *err) on failure. */
static cl_kernel build(peak *p, const char *src, cl_int *err) {
  cl_program prog = clCreateProgramWithSource(p->ctx, 1, &src, NULL, err);
  if (*err)
    return NULL;
  if ((*err = clBuildProgram(prog, 1, &p->dev, "", NULL, NULL))) {
    char log[4096] = "";
    clGetProgramBuildInfo(prog, p->dev, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                          NULL);
    fprintf(stderr, "skein-bench-peak: build failed:\n%s\n", log);
    clReleaseProgram(prog);
    return NULL;
  }
  cl_kernel k = clCreateKernel(prog, "k", err);
  clReleaseProgram(prog);
  return k;
}

/* Runs k once to warm up, then RUNS times; returns the median seconds. */
static double time_kernel(peak *p, cl_kernel k, size_t global, cl_int *err) {
  double t[RUNS];
  size_t local = p->local && global % p->local == 0 ? p->local : 0;
  for (int r = -1; r < RUNS; r++) {
    double t0 = now_s();
    *err = clEnqueueNDRangeKernel(p->q, k, 1, NULL, &global,
                                  local ? &local : NULL, 0, NULL, NULL);
    if (!*err)
      *err = clFinish(p->q);
    if (*err)
      return 0;
    if (r >= 0)
      t[r] = now_s() - t0;
  }
  qsort(t, RUNS, sizeof t[0], cmp_double);
  return t[RUNS / 2];
}

/* Appends printf-style text to the source being generated in buf. */
static void add(char *buf, size_t n, const char *fmt, ...) {
  size_t len = strlen(buf);
  va_list ap;
  va_start(ap, fmt);
  if (len < n)
    vsnprintf(buf + len, n - len, fmt, ap);
  va_end(ap);
}

/* The integer element types skein-bench-peak measures (GIOPS). */
static bool is_integer(const char *s) {
  return !strcmp(s, "char") || !strcmp(s, "short") || !strcmp(s, "int") ||
         !strcmp(s, "long");
}

/* The compute kernel's source: each work-item runs MADS_PER_ITEM / w mads
 * on w-wide vectors of type s, as `chains` independent dependency chains
 * (each two alternating values x, y), 16 mads per loop iteration. */
static void compute_source(char *src, size_t n, const char *s, const char *tw,
                           int w, int chains) {
  char init[256];
  lanes(init, sizeof init, tw, w);
  src[0] = '\0';
  if (s[0] == 'd')
    add(src, n, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  /* half: the argument is a float (half kernel arguments need the host to
   * make halves), converted once; the integer types take an int. Integer
   * kernels multiply and add (no mad() for them), as clpeak's do. */
  bool half = s[0] == 'h';
  bool integer = is_integer(s);
  if (half)
    add(src, n, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
  if (integer)
    add(src, n, "#define M(x, y) x = y * x + y; y = x * y + x;\n");
  else
    add(src, n, "#define M(x, y) x = mad(y, x, y); y = mad(x, y, x);\n");
  add(src, n, "__kernel void k(__global %s *out, %s %s) {\n", tw,
      half ? "float" : integer ? "int" : s, half ? "af" : integer ? "ai" : "a");
  if (half)
    add(src, n, "  half a = (half)af;\n");
  if (integer)
    add(src, n, "  %s a = (%s)ai;\n", s, s);
  for (int c = 0; c < chains; c++)
    add(src, n, "  %s x%d = %s + (%s)%d;\n  %s y%d = (%s)((%s)get_local_id(0));\n",
        tw, c, init, s, c, tw, c, tw, s);
  add(src, n, "  for (int i = 0; i < %d; i++) {", MADS_PER_ITEM / w / 16);
  for (int r = 0; r < 8 / chains; r++)
    for (int c = 0; c < chains; c++)
      add(src, n, " M(x%d, y%d)", c, c);
  add(src, n, " }\n  out[get_global_id(0)] = y0");
  for (int c = 1; c < chains; c++)
    add(src, n, " + y%d", c);
  add(src, n, ";\n}\n");
}

/* One compute figure (see compute_source); chains > 1 shows what the code
 * generator reaches when the kernel itself supplies independent work. */
static void compute(peak *p, const char *s, int w, int chains) {
  char tw[16], src[4096], metric[64];
  snprintf(tw, sizeof tw, w > 1 ? "%s%d" : "%s", s, w);
  compute_source(src, sizeof src, s, tw, w, chains);
  snprintf(metric, sizeof metric, "%s compute %s%s",
           is_integer(s) ? "INT" : s[0] == 'd' ? "DP" : s[0] == 'h' ? "HP"
                                                                   : "SP",
           tw, chains > 1 ? ", 8 chains/item" : "");
  if (!selected(p, metric))
    return;
  if (getenv("PEAK_SHOW_SOURCE"))
    fputs(src, stderr);
  cl_int err;
  cl_kernel k = build(p, src, &err);
  cl_mem out = NULL;
  if (k)
    out = clCreateBuffer(p->ctx, CL_MEM_WRITE_ONLY,
                         (size_t)COMPUTE_ITEMS * (size_t)w * 8, NULL, &err);
  double a = 1.0009765625, sec = 0;
  float af = (float)a;
  cl_int ai = 3;
  if (!err)
    err = clSetKernelArg(k, 0, sizeof out, &out);
  if (!err)
    err = is_integer(s) ? clSetKernelArg(k, 1, sizeof ai, &ai)
          : s[0] == 'd' ? clSetKernelArg(k, 1, sizeof a, &a)
                        : clSetKernelArg(k, 1, sizeof af, &af);
  if (!err)
    sec = time_kernel(p, k, COMPUTE_ITEMS, &err);
  if (err)
    failed_row(metric, err);
  else
    row(metric, 2.0 * MADS_PER_ITEM * COMPUTE_ITEMS / sec / 1e9,
        is_integer(s) ? "GIOPS" : "GFLOPS");
  if (out)
    clReleaseMemObject(out);
  if (k)
    clReleaseKernel(k);
}

/* One bandwidth figure: work-item g reads in[g + j*n] for j < 16 (n work-
 * items: consecutive work-items read consecutive vectors) and writes one
 * sum; only the reads are counted, as clpeak does. */
static void bandwidth(peak *p, cl_mem in, cl_mem out, int w) {
  char tw[16], src[1024], metric[64];
  snprintf(tw, sizeof tw, w > 1 ? "float%d" : "float", w);
  snprintf(src, sizeof src,
           "__kernel void k(__global const %s *in, __global %s *out) {\n"
           "  size_t g = get_global_id(0), n = get_global_size(0);\n"
           "  %s s = in[g];\n"
           "  for (int j = 1; j < %d; j++) s += in[g + j * n];\n"
           "  out[g] = s;\n}\n",
           tw, tw, tw, READS_PER_ITEM);
  snprintf(metric, sizeof metric, "global read %s", tw);
  if (!selected(p, metric))
    return;
  size_t items = read_bytes / READS_PER_ITEM / (sizeof(float) * (size_t)w);
  cl_int err;
  double sec = 0;
  cl_kernel k = build(p, src, &err);
  if (k && !(err = clSetKernelArg(k, 0, sizeof in, &in)) &&
      !(err = clSetKernelArg(k, 1, sizeof out, &out)))
    sec = time_kernel(p, k, items, &err);
  if (err)
    failed_row(metric, err);
  else
    row(metric, (double)read_bytes / sec / 1e9, "GB/s");
  if (k)
    clReleaseKernel(k);
}

static void bandwidth_all(peak *p) {
  if (!selected(p, "global read float"))
    return;
  cl_int err;
  cl_mem in = clCreateBuffer(p->ctx, CL_MEM_READ_ONLY, read_bytes, NULL, &err);
  cl_mem out = NULL;
  if (!err)
    out = clCreateBuffer(p->ctx, CL_MEM_WRITE_ONLY, read_bytes / READS_PER_ITEM,
                         NULL, &err);
  /* First touch (and defined contents) before any timing. */
  float zero = 0.0f;
  if (!err)
    err = clEnqueueFillBuffer(p->q, in, &zero, sizeof zero, 0, read_bytes, 0,
                              NULL, NULL);
  if (!err)
    err = clFinish(p->q);
  if (err)
    failed_row("global read buffers", err);
  else
    for (int w = 1; w <= 16; w *= 4)
      bandwidth(p, in, out, w);
  if (out)
    clReleaseMemObject(out);
  if (in)
    clReleaseMemObject(in);
}

static int setup(peak *p) {
  cl_platform_id plat;
  cl_uint n = 0;
  cl_int err = clGetPlatformIDs(1, &plat, &n);
  if (!err && n)
    err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &p->dev, NULL);
  if (!err)
    p->ctx = clCreateContext(NULL, 1, &p->dev, NULL, NULL, &err);
  if (!err)
    p->q = clCreateCommandQueueWithProperties(p->ctx, p->dev, NULL, &err);
  if (err || !n) {
    fprintf(stderr, "skein-bench-peak: no usable device (%d)\n", err);
    return 2;
  }
  char pname[128] = "", dname[256] = "";
  clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
  clGetDeviceInfo(p->dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
  printf("platform: %s\ndevice: %s\nlocal size: %zu (0: driver's choice)\n\n",
         pname, dname, p->local);
  printf("| %-44s | %12s | %-9s |\n", "metric", "value", "unit");
  printf("|%.46s|%.14s|%.11s|\n", "----------------------------------------------",
         "--------------", "-----------");
  return 0;
}

int main(int argc, char **argv) {
  peak p = {0};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-l") && i + 1 < argc) {
      p.local = (size_t)atol(argv[++i]);
    } else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
      p.only = argv[++i];
    } else {
      fprintf(stderr, "usage: %s [-l local_size] [-t test-name-part]\n",
              argv[0]);
      return 1;
    }
  }
  int rc = setup(&p);
  if (rc)
    return rc;
  for (int w = 1; w <= 16; w *= 2)
    compute(&p, "float", w, 1);
  for (int w = 1; w <= 16; w *= 2)
    compute(&p, "double", w, 1);
  for (int w = 1; w <= 16; w *= 2)
    compute(&p, "half", w, 1);
  static const char *const ints[] = {"char", "short", "int", "long"};
  for (int t = 0; t < 4; t++)
    for (int w = 1; w <= 16; w *= 2)
      compute(&p, ints[t], w, 1);
  compute(&p, "float", 16, 8);
  compute(&p, "double", 8, 8);
  bandwidth_all(&p);
  clReleaseCommandQueue(p.q);
  clReleaseContext(p.ctx);
  return 0;
}
