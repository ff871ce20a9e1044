/* This file contains the fuzz target of program binaries: the input is
 * one flag byte, one option byte and the bytes given to
 * clCreateProgramWithBinary. Skein's binaries close with a checksum
 * (compiler/binary.c) that random changes almost never keep, so flag 1
 * recomputes it and flag 2 makes the bitcode size agree with the
 * options size: mutations then reach the bitcode reader and the code
 * generator. Flag 4 links the program (an object or library) instead of
 * building it; flag 8 reloads a built program's own binary, which must
 * build. Seeds: real binaries (make_seeds.c). */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

enum { FIX_SUM = 1, FIX_SIZES = 2, LINK = 4, RELOAD = 8 };

/* The container's header: 8 magic bytes, format, header size, two
 * 16-byte version strings, options size and bitcode size (64 bytes),
 * then the options, the bitcode and a 64-bit FNV-1a sum of all before. */
enum { HEADER = 64, OPT_SIZE_AT = 48, BC_SIZE_AT = 56 };

static cl_context ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fz_setup();
  ctx = fz_context();
  return 0;
}

static void fix_sizes(unsigned char *b, size_t n) {
  if (n < HEADER + 8)
    return;
  uint64_t opt, room = n - HEADER - 8;
  memcpy(&opt, b + OPT_SIZE_AT, 8);
  if (opt == 0 || opt > room)
    return;
  uint64_t bc = room - opt;
  memcpy(b + BC_SIZE_AT, &bc, 8);
}

static void fix_sum(unsigned char *b, size_t n) {
  if (n < 8)
    return;
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n - 8; i++)
    h = (h ^ b[i]) * 1099511628211ull;
  memcpy(b + n - 8, &h, 8);
}

static const char *const build_options[] = {
    NULL, "", "-cl-kernel-arg-info", "-skein-bounds-check", "-g",
    "-cl-opt-disable", "-cl-fast-relaxed-math", "-no-such-option",
};

/* Builds (or links) a program made from a binary; returns the built
 * program or NULL. */
static cl_program build(cl_program p, int flags, const char *options) {
  cl_int err;
  if (flags & LINK) {
    cl_program out = clLinkProgram(ctx, 1, &fz_device, options, 1, &p, NULL,
                                   NULL, &err);
    FZ_EXPECT("clLinkProgram", err, CL_INVALID_PROGRAM, CL_INVALID_OPERATION,
              CL_INVALID_LINKER_OPTIONS, CL_LINK_PROGRAM_FAILURE,
              CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
    if (err == CL_INVALID_LINKER_OPTIONS || err == CL_INVALID_PROGRAM ||
        err == CL_INVALID_OPERATION) {
      if (out)
        fz_fail("clLinkProgram returned a program with error %d", err);
      return NULL;
    }
    if (!out)
      return NULL;
    fz_check_build_info(out, err, "clLinkProgram");
    if (err != CL_SUCCESS) {
      clReleaseProgram(out);
      return NULL;
    }
    return out;
  }
  err = FZ_EXPECT("clBuildProgram",
                  clBuildProgram(p, 1, &fz_device, options, NULL, NULL),
                  CL_INVALID_BINARY, CL_INVALID_BUILD_OPTIONS,
                  CL_BUILD_PROGRAM_FAILURE, CL_OUT_OF_RESOURCES,
                  CL_OUT_OF_HOST_MEMORY);
  fz_check_build_info(p, err, "clBuildProgram");
  if (err != CL_SUCCESS)
    return NULL;
  clRetainProgram(p);
  return p;
}

/* Makes a program of the binary b; NULL when it is refused. */
static cl_program load(const unsigned char *b, size_t n) {
  cl_int err, status = 1;
  cl_program p = clCreateProgramWithBinary(ctx, 1, &fz_device, &n, &b,
                                           &status, &err);
  FZ_EXPECT("clCreateProgramWithBinary", err, CL_INVALID_VALUE,
            CL_INVALID_BINARY, CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
  if (n == 0 && err != CL_INVALID_VALUE)
    fz_fail("clCreateProgramWithBinary accepted a binary of length 0");
  if (err == CL_INVALID_BINARY && status != CL_INVALID_BINARY)
    fz_fail("CL_INVALID_BINARY but binary_status %d", status);
  if (err == CL_SUCCESS && status != CL_SUCCESS)
    fz_fail("CL_SUCCESS but binary_status %d", status);
  if ((p != NULL) != (err == CL_SUCCESS))
    fz_fail("clCreateProgramWithBinary: program %p with error %d",
            (void *)p, err);
  return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  int flags = data[0];
  const char *options = build_options[data[1] % 8];
  size_t n = size - 2;
  unsigned char *b = malloc(n ? n : 1);
  memcpy(b, data + 2, n);
  if (flags & FIX_SIZES)
    fix_sizes(b, n);
  if (flags & FIX_SUM)
    fix_sum(b, n);
  cl_program p = load(b, n);
  free(b);
  if (!p)
    return 0;
  cl_program built = build(p, flags, options);
  if (built) {
    fz_query_kernels(built);
    if (flags & RELOAD) {
      size_t bsize = 0;
      FZ_EXPECT("clGetProgramInfo(BINARY_SIZES)",
                clGetProgramInfo(built, CL_PROGRAM_BINARY_SIZES,
                                 sizeof bsize, &bsize, NULL),
                CL_OUT_OF_HOST_MEMORY);
      unsigned char *own = malloc(bsize ? bsize : 1);
      FZ_EXPECT("clGetProgramInfo(BINARIES)",
                clGetProgramInfo(built, CL_PROGRAM_BINARIES, sizeof own,
                                 &own, NULL),
                CL_OUT_OF_HOST_MEMORY);
      cl_program again = load(own, bsize);
      if (!again)
        fz_fail("a built program's own binary is refused");
      cl_int err = clBuildProgram(again, 1, &fz_device, NULL, NULL, NULL);
      FZ_EXPECT("clBuildProgram(own binary)", err, CL_OUT_OF_RESOURCES,
                CL_OUT_OF_HOST_MEMORY);
      clReleaseProgram(again);
      free(own);
    }
    clReleaseProgram(built);
  }
  clReleaseProgram(p);
  return 0;
}
