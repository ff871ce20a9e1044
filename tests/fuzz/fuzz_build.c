/* This file contains the fuzz target of OpenCL C source and build
 * options: the input is
 *
 *   [@fiber|@loop|@region NEWLINE] options NEWLINE source
 *
 * (the optional first line sets SKEIN_MODE for this build; the options
 * line goes to clBuildProgram as it is). The target builds the source,
 * checks the result code, build status and log, and when the build
 * succeeded creates every kernel and queries it (fz_query_kernels); one
 * input in four also reloads the program's binary and builds that. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cl_context ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fz_setup();
  fz_guarded_crash_is_finding = true;
  ctx = fz_context();
  return 0;
}

/* Sets SKEIN_MODE from the first line when it is @fiber, @loop or
 * @region (and consumes that line); clears it otherwise. */
static void choose_mode(fz_in *in) {
  static const char *const modes[] = {"fiber", "loop", "region"};
  unsetenv("SKEIN_MODE");
  if (in->n < 2 || in->p[0] != '@')
    return;
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(modes[i]);
    if (in->n > n + 1 && memcmp(in->p + 1, modes[i], n) == 0 &&
        in->p[n + 1] == '\n') {
      setenv("SKEIN_MODE", modes[i], 1);
      in->p += n + 2;
      in->n -= n + 2;
      return;
    }
  }
}

/* Builds the binary of a built program again: it must build. */
static void rebuild_binary(cl_program p) {
  size_t size = 0;
  FZ_EXPECT("clGetProgramInfo(BINARY_SIZES)",
            clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size,
                             NULL),
            CL_OUT_OF_HOST_MEMORY);
  if (size == 0)
    fz_fail("a built program has a binary of size 0");
  unsigned char *bin = malloc(size);
  FZ_EXPECT("clGetProgramInfo(BINARIES)",
            clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL),
            CL_OUT_OF_HOST_MEMORY);
  cl_int err, status = 1;
  const unsigned char *b = bin;
  cl_program q = clCreateProgramWithBinary(ctx, 1, &fz_device, &size, &b,
                                           &status, &err);
  FZ_EXPECT("clCreateProgramWithBinary", err, CL_OUT_OF_HOST_MEMORY);
  if (q) {
    if (status != CL_SUCCESS)
      fz_fail("binary_status %d for a program's own binary", status);
    err = FZ_EXPECT("clBuildProgram(binary)",
                    clBuildProgram(q, 0, NULL, NULL, NULL, NULL),
                    CL_OUT_OF_HOST_MEMORY, CL_OUT_OF_RESOURCES);
    fz_check_build_info(q, err, "clBuildProgram(binary)");
    clReleaseProgram(q);
  }
  free(bin);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in in = {data, size};
  choose_mode(&in);
  char *options = fz_take_until(&in, "\n", NULL);
  size_t len;
  char *source = fz_take_until(&in, "", &len); /* the rest */
  const char *src = source;
  cl_int err;
  /* A length of 0 means a NUL-terminated string: here an empty one. */
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, &len, &err);
  FZ_EXPECT("clCreateProgramWithSource", err, CL_OUT_OF_HOST_MEMORY);
  if (p) {
    err = FZ_EXPECT("clBuildProgram",
                    clBuildProgram(p, 1, &fz_device, options, NULL, NULL),
                    CL_INVALID_BUILD_OPTIONS, CL_BUILD_PROGRAM_FAILURE,
                    CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
    fz_check_build_info(p, err, "clBuildProgram");
    if (err == CL_SUCCESS) {
      fz_query_kernels(p);
      if (len % 4 == 0)
        rebuild_binary(p);
    } else {
      cl_uint n;
      if (clCreateKernelsInProgram(p, 0, NULL, &n) !=
          CL_INVALID_PROGRAM_EXECUTABLE)
        fz_fail("clCreateKernelsInProgram of a failed build is not "
                "CL_INVALID_PROGRAM_EXECUTABLE");
    }
    clReleaseProgram(p);
  }
  free(source);
  free(options);
  return 0;
}
