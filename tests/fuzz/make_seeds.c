/* This file contains the generator of corpus/binary's seeds: real
 * program binaries that Skein made (CL_PROGRAM_BINARIES) of a built
 * executable, a compiled object and a library, each written with the
 * two bytes fuzz_binary.c reads first (flags, options). Run, with
 * OCL_ICD_VENDORS naming Skein's .icd:
 *   fuzz_make_seeds tests/fuzz/corpus/binary
 * A binary records the LLVM version that made it, so seeds are remade
 * when LLVM changes. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cl_device_id dev;
static cl_context ctx;
static const char *dir;

static void check(cl_int err, const char *what) {
  if (err != CL_SUCCESS) {
    fprintf(stderr, "%s: %d\n", what, err);
    exit(1);
  }
}

/* Writes p's binary as dir/name, preceded by flags and option byte. */
static void write_seed(cl_program p, const char *name, unsigned char flags,
                       unsigned char opt) {
  size_t size;
  check(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size,
                         NULL), "binary size");
  unsigned char *bin = malloc(size);
  check(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL),
        "binary");
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fputc(flags, f) == EOF || fputc(opt, f) == EOF ||
      fwrite(bin, 1, size, f) != size || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
  printf("%s: %zu bytes\n", path, size + 2);
  free(bin);
}

static cl_program source(const char *src) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  check(err, "clCreateProgramWithSource");
  return p;
}

static const char kernels[] =
    "kernel void scale(global float *x, float a) {\n"
    "  x[get_global_id(0)] *= a;\n"
    "}\n"
    "kernel void sum(global const int *in, global int *out,\n"
    "                local int *tmp) {\n"
    "  tmp[get_local_id(0)] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (get_local_id(0) == 0) {\n"
    "    int s = 0;\n"
    "    for (size_t i = 0; i < get_local_size(0); i++) s += tmp[i];\n"
    "    out[get_group_id(0)] = s;\n"
    "  }\n"
    "}\n";

static const char library_unit[] =
    "int twice(int x) { return 2 * x; }\n"
    "constant int table[4] = {1, 2, 3, 4};\n"
    "int lookup(int i) { return table[i & 3]; }\n";

static const char caller_unit[] =
    "int twice(int x);\n"
    "int lookup(int i);\n"
    "kernel void use(global int *x) {\n"
    "  size_t i = get_global_id(0);\n"
    "  x[i] = twice(x[i]) + lookup((int)i);\n"
    "}\n";

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  dir = argv[1];
  cl_platform_id plat;
  check(clGetPlatformIDs(1, &plat, NULL), "clGetPlatformIDs");
  check(clGetDeviceIDs(plat, CL_DEVICE_TYPE_CPU, 1, &dev, NULL),
        "clGetDeviceIDs");
  cl_int err;
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  check(err, "clCreateContext");

  /* An executable; replayed as it is, with the checksum and sizes kept
   * right after mutation, and reloaded from its own binary. */
  cl_program exe = source(kernels);
  check(clBuildProgram(exe, 1, &dev, "-cl-kernel-arg-info", NULL, NULL),
        "build");
  write_seed(exe, "exe-plain", 0, 0);
  write_seed(exe, "exe-fixed", 3, 2);
  write_seed(exe, "exe-reload", 3 | 8, 3);

  /* A compiled object and a library, loaded and linked. */
  cl_program lib_src = source(library_unit), call_src = source(caller_unit);
  check(clCompileProgram(lib_src, 1, &dev, "", 0, NULL, NULL, NULL, NULL),
        "compile library unit");
  check(clCompileProgram(call_src, 1, &dev, "-cl-std=CL3.0", 0, NULL, NULL,
                         NULL, NULL), "compile caller");
  write_seed(call_src, "object-build", 3, 0);
  write_seed(lib_src, "object-link", 3 | 4, 1);
  cl_program lib = clLinkProgram(ctx, 1, &dev, "-create-library", 1,
                                 &lib_src, NULL, NULL, &err);
  check(err, "link library");
  write_seed(lib, "library-link", 3 | 4, 0);
  write_seed(lib, "library-build", 3, 5);

  clReleaseProgram(lib);
  clReleaseProgram(lib_src);
  clReleaseProgram(call_src);
  clReleaseProgram(exe);
  clReleaseContext(ctx);
  return 0;
}
