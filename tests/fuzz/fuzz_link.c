/* This file contains the fuzz target of separate compilation: the input
 * is a script and up to eight texts, separated by lines "%%":
 *
 *   script %% text0 %% text1 ...
 *
 * Each script letter is one call, its following bytes its operands:
 *   S t      a program from the source text t (the program table holds 8)
 *   C i o h  clCompileProgram of program i with options o and the
 *            headers of mask h: header j is a program of text j, named
 *            "hj.h" (even j) or "inc/hj.h" (odd j)
 *   L m o    clLinkProgram of the programs of mask m with options o; the
 *            result joins the table
 *   B i o    clBuildProgram of program i
 *   K i      creates and queries the kernels of program i
 *   R i      releases program i
 * Options o: below 128 one of a fixed list, else text (o & 7). Every
 * result is checked against the spec's codes and the program's binary
 * type and build status. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TEXTS = 8, PROGRAMS = 8 };

static cl_context ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fz_setup();
  fz_guarded_crash_is_finding = true;
  ctx = fz_context();
  return 0;
}

typedef struct state {
  char *text[TEXTS];
  size_t len[TEXTS];
  unsigned ntext;
  cl_program prog[PROGRAMS];
  fz_in script;
} state;

static const char *const fixed_options[] = {
    "", "-create-library", "-enable-link-options",
    "-create-library -enable-link-options", "-cl-fast-relaxed-math",
    "-cl-std=CL3.0", "-cl-std=CL2.0", "-D N=3", "-cl-kernel-arg-info",
    "-skein-bounds-check", "-cl-opt-disable", "-I inc", "-no-such-option",
    "-cl-denorms-are-zero", "-cl-mad-enable -cl-no-signed-zeros", "-g",
    "-cl-unsafe-math-optimizations", "-cl-finite-math-only -w", "-Werror",
    "-create-library -cl-std=CL1.2", "-D", "-cl-std=CL9.9",
};

static const char *options(state *s, uint8_t o) {
  if (o < 128)
    return fixed_options[o % (sizeof fixed_options / sizeof *fixed_options)];
  return s->ntext ? s->text[(o & 7) % s->ntext] : "";
}

static cl_program *slot(state *s, uint8_t i) {
  return &s->prog[i % PROGRAMS];
}

/* Puts p into the first free slot (releases it when there is none). */
static void keep(state *s, cl_program p) {
  for (int i = 0; i < PROGRAMS; i++)
    if (!s->prog[i]) {
      s->prog[i] = p;
      return;
    }
  clReleaseProgram(p);
}

static cl_program_binary_type binary_type(cl_program p) {
  cl_program_binary_type t;
  FZ_EXPECT("clGetProgramBuildInfo(BINARY_TYPE)",
            clGetProgramBuildInfo(p, fz_device, CL_PROGRAM_BINARY_TYPE,
                                  sizeof t, &t, NULL),
            CL_OUT_OF_HOST_MEMORY);
  return t;
}

static void op_source(state *s) {
  if (!s->ntext)
    return;
  unsigned t = fz_u8(&s->script) % s->ntext;
  const char *src = s->text[t];
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, &s->len[t], &err);
  FZ_EXPECT("clCreateProgramWithSource", err, CL_INVALID_VALUE,
            CL_OUT_OF_HOST_MEMORY);
  if (p)
    keep(s, p);
}

static void op_compile(state *s) {
  cl_program p = *slot(s, fz_u8(&s->script));
  const char *opts = options(s, fz_u8(&s->script));
  uint8_t mask = fz_u8(&s->script);
  cl_program headers[TEXTS];
  const char *names[TEXTS];
  char namebuf[TEXTS][16];
  cl_uint nh = 0;
  for (unsigned j = 0; j < s->ntext; j++) {
    if (!(mask >> j & 1))
      continue;
    const char *src = s->text[j];
    cl_int err;
    headers[nh] = clCreateProgramWithSource(ctx, 1, &src, &s->len[j], &err);
    FZ_EXPECT("clCreateProgramWithSource", err, CL_INVALID_VALUE,
              CL_OUT_OF_HOST_MEMORY);
    if (!headers[nh])
      continue;
    snprintf(namebuf[nh], sizeof namebuf[nh], j % 2 ? "inc/h%u.h" : "h%u.h",
             j);
    names[nh] = namebuf[nh];
    nh++;
  }
  if (p) {
    cl_int err = clCompileProgram(p, 1, &fz_device, opts, nh,
                                  nh ? headers : NULL, nh ? names : NULL,
                                  NULL, NULL);
    FZ_EXPECT("clCompileProgram", err, CL_INVALID_OPERATION,
              CL_INVALID_COMPILER_OPTIONS, CL_COMPILE_PROGRAM_FAILURE,
              CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
    if (err != CL_INVALID_OPERATION)
      fz_check_build_info(p, err, "clCompileProgram");
    if (err == CL_SUCCESS &&
        binary_type(p) != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT)
      fz_fail("clCompileProgram succeeded, binary type is not an object");
  }
  for (cl_uint j = 0; j < nh; j++)
    clReleaseProgram(headers[j]);
}

static void op_link(state *s) {
  uint8_t mask = fz_u8(&s->script);
  const char *opts = options(s, fz_u8(&s->script));
  cl_program in[PROGRAMS];
  cl_uint n = 0;
  for (int i = 0; i < PROGRAMS; i++)
    if (mask >> i & 1 && s->prog[i])
      in[n++] = s->prog[i];
  cl_int err;
  cl_program out = clLinkProgram(ctx, 1, &fz_device, opts, n, n ? in : NULL,
                                 NULL, NULL, &err);
  FZ_EXPECT("clLinkProgram", err, CL_INVALID_VALUE, CL_INVALID_OPERATION,
            CL_INVALID_LINKER_OPTIONS, CL_LINK_PROGRAM_FAILURE,
            CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
  if (n == 0 && err != CL_INVALID_VALUE)
    fz_fail("clLinkProgram of no program: %d", err);
  if (err == CL_SUCCESS || err == CL_LINK_PROGRAM_FAILURE) {
    /* A failed link returns its program (its log says why) or NULL. */
    if (!out && err == CL_SUCCESS)
      fz_fail("clLinkProgram succeeded without a program");
  } else if (out) {
    fz_fail("clLinkProgram returned a program with error %d", err);
  }
  if (!out)
    return;
  fz_check_build_info(out, err, "clLinkProgram");
  if (err == CL_SUCCESS) {
    cl_program_binary_type t = binary_type(out);
    int lib = strstr(opts, "-create-library") != NULL;
    if (t != (lib ? CL_PROGRAM_BINARY_TYPE_LIBRARY
                  : CL_PROGRAM_BINARY_TYPE_EXECUTABLE))
      fz_fail("clLinkProgram '%s' made binary type %u", opts, (unsigned)t);
  }
  keep(s, out);
}

static void op_build(state *s) {
  cl_program p = *slot(s, fz_u8(&s->script));
  const char *opts = options(s, fz_u8(&s->script));
  if (!p)
    return;
  cl_int err = clBuildProgram(p, 1, &fz_device, opts, NULL, NULL);
  FZ_EXPECT("clBuildProgram", err, CL_INVALID_OPERATION,
            CL_INVALID_BUILD_OPTIONS, CL_BUILD_PROGRAM_FAILURE,
            CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
  if (err != CL_INVALID_OPERATION)
    fz_check_build_info(p, err, "clBuildProgram");
}

static void op_kernels(state *s) {
  cl_program p = *slot(s, fz_u8(&s->script));
  if (p && binary_type(p) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
    fz_query_kernels(p);
}

static void op_release(state *s) {
  cl_program *p = slot(s, fz_u8(&s->script));
  if (*p)
    clReleaseProgram(*p);
  *p = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  state s;
  memset(&s, 0, sizeof s);
  fz_in in = {data, size};
  size_t slen;
  char *script = fz_take_until(&in, "%%\n", &slen);
  while (in.n && s.ntext < TEXTS) {
    s.text[s.ntext] = fz_take_until(&in, "%%\n", &s.len[s.ntext]);
    s.ntext++;
  }
  s.script = (fz_in){(const uint8_t *)script, slen};
  for (int ops = 0; s.script.n && ops < 24; ops++) {
    switch (fz_u8(&s.script)) {
    case 'S': op_source(&s); break;
    case 'C': op_compile(&s); break;
    case 'L': op_link(&s); break;
    case 'B': op_build(&s); break;
    case 'K': op_kernels(&s); break;
    case 'R': op_release(&s); break;
    default: break;
    }
  }
  for (int i = 0; i < PROGRAMS; i++)
    if (s.prog[i])
      clReleaseProgram(s.prog[i]);
  for (unsigned i = 0; i < s.ntext; i++)
    free(s.text[i]);
  free(script);
  return 0;
}
