/* This file contains the fuzz target of SPIR-V programs (issue 16): the
 * input is one flag byte, one option byte and the bytes given to
 * clCreateProgramWithIL. Flag 1 rewrites the header into a valid one
 * (magic, SPIR-V 1.0-1.4, a generous id bound, schema 0), so that
 * mutations reach the instruction walk, spirv-val and llvm-spirv; flag 2
 * sets specialization constants 0-7 from the last bytes (each size
 * tried); flag 4 compiles and links the program instead of building it.
 * A built program's kernels are created and queried. Whatever the
 * tools do with the module, Skein must answer with a listed error code;
 * a crash inside LLVM 19 or Skein's compiler that the build guard caught
 * is a finding too. Seeds: tests/spirv/'s modules (corpus/il). */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

enum { FIX_HEADER = 1, SPEC = 2, COMPILE_LINK = 4 };

static cl_context ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fz_setup();
  fz_guarded_crash_is_finding = true;
  ctx = fz_context();
  return 0;
}

static const char *const build_options[] = {
    NULL, "", "-cl-kernel-arg-info", "-skein-bounds-check",
    "-cl-opt-disable", "-cl-fast-relaxed-math", "-cl-uniform-work-group-size",
    "-no-such-option",
};

static void fix_header(unsigned char *b, size_t n, uint8_t version) {
  if (n < 20)
    return;
  uint32_t h[5] = {0x07230203u, 0x00010000u | (version % 5u) << 8, 0,
                   0x10000u, 0};
  memcpy(&h[2], b + 8, 4);   /* the generator word stays the input's */
  memcpy(b, h, sizeof h);
}

/* Tries spec constants 0-7 with each size; values from the input. */
static void set_spec_constants(cl_program p, fz_in *in) {
  static const size_t sizes[] = {1, 2, 4, 8};
  for (cl_uint id = 0; id < 8; id++) {
    uint64_t v = fz_u64(in);
    for (int s = 0; s < 4; s++) {
      cl_int err = clSetProgramSpecializationConstant(p, id, sizes[s], &v);
      FZ_EXPECT("clSetProgramSpecializationConstant", err, CL_INVALID_SPEC_ID,
                CL_INVALID_VALUE, CL_OUT_OF_HOST_MEMORY);
      if (err == CL_INVALID_SPEC_ID)
        break;
    }
  }
}

/* clCompileProgram then clLinkProgram of p alone; the linked program or
 * NULL. */
static cl_program compile_link(cl_program p, const char *options) {
  cl_int err = FZ_EXPECT(
      "clCompileProgram",
      clCompileProgram(p, 1, &fz_device, options, 0, NULL, NULL, NULL, NULL),
      CL_INVALID_COMPILER_OPTIONS, CL_COMPILE_PROGRAM_FAILURE,
      CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
  fz_check_build_info(p, err, "clCompileProgram");
  if (err != CL_SUCCESS)
    return NULL;
  cl_program out =
      clLinkProgram(ctx, 1, &fz_device, NULL, 1, &p, NULL, NULL, &err);
  FZ_EXPECT("clLinkProgram", err, CL_LINK_PROGRAM_FAILURE,
            CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
  if (!out)
    return NULL;
  fz_check_build_info(out, err, "clLinkProgram");
  if (err != CL_SUCCESS) {
    clReleaseProgram(out);
    return NULL;
  }
  return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  int flags = data[0];
  const char *options = build_options[data[1] % 8];
  size_t n = size - 2;
  unsigned char *b = malloc(n ? n : 1);
  memcpy(b, data + 2, n);
  if (flags & FIX_HEADER)
    fix_header(b, n, data[1] >> 3);
  cl_int err;
  cl_program p = clCreateProgramWithIL(ctx, b, n, &err);
  FZ_EXPECT("clCreateProgramWithIL", err, CL_INVALID_VALUE,
            CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
  if ((p != NULL) != (err == CL_SUCCESS))
    fz_fail("clCreateProgramWithIL: program %p with error %d", (void *)p,
            err);
  if (!p) {
    free(b);
    return 0;
  }
  /* CL_PROGRAM_IL gives the bytes back as they came. */
  size_t il_size = 0;
  FZ_EXPECT("clGetProgramInfo(IL)",
            clGetProgramInfo(p, CL_PROGRAM_IL, 0, NULL, &il_size),
            CL_OUT_OF_HOST_MEMORY);
  if (il_size != n)
    fz_fail("CL_PROGRAM_IL size %zu for %zu bytes", il_size, n);
  free(b);
  if (flags & SPEC) {
    /* The values come from the input's last 64 bytes (or fewer). */
    size_t tail = n < 64 ? n : 64;
    fz_in in = {data + size - tail, tail};
    set_spec_constants(p, &in);
  }
  cl_program built = NULL;
  if (flags & COMPILE_LINK) {
    built = compile_link(p, options);
  } else {
    err = FZ_EXPECT("clBuildProgram",
                    clBuildProgram(p, 1, &fz_device, options, NULL, NULL),
                    CL_INVALID_BUILD_OPTIONS, CL_BUILD_PROGRAM_FAILURE,
                    CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
    fz_check_build_info(p, err, "clBuildProgram");
    if (err == CL_SUCCESS) {
      clRetainProgram(p);
      built = p;
    }
  }
  if (built) {
    fz_query_kernels(built);
    clReleaseProgram(built);
  }
  clReleaseProgram(p);
  return 0;
}
