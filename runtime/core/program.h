/* This file declares the program object: OpenCL C source or a binary,
 * the options and log of its last build, and the compiled cc_program the
 * kernels created from it run. */
#ifndef SKEIN_RUNTIME_PROGRAM_H
#define SKEIN_RUNTIME_PROGRAM_H

#include "object.h"
#include "../../compiler/compiler.h"
#include <pthread.h>

struct _cl_program {
  rt_object obj;
  cl_context context;            /* retained */
  char *source;                  /* NUL-terminated; NULL for binaries */
  size_t source_len;
  unsigned char *binary;         /* clCreateProgramWithBinary's copy, or
                                    the compiled object of
                                    clCompileProgram */
  size_t binary_size;
  void *il;                      /* clCreateProgramWithIL's copy, as
                                    given (CL_PROGRAM_IL); NULL otherwise */
  size_t il_len;
  cc_il_module *il_module;       /* il as the compiler reads it */
  /* Attached kernels (each also holds a program reference). A build is
   * refused while this is not 0, so cc below stays stable for them. */
  atomic_uint num_kernels;
  pthread_mutex_t lock;          /* guards everything below */
  cl_build_status status;        /* CL_BUILD_NONE .. CL_BUILD_SUCCESS */
  cl_program_binary_type binary_type;
  char *options;                 /* last build's options, "" if none */
  char *log;                     /* last build's log, "" if none */
  cc_program *cc;                /* the executable; NULL until built */
  char *kernel_names;            /* "a;b;c" once built */
  cc_il_spec_value *spec_values; /* clSetProgramSpecializationConstant's,
                                    one per id, applied at each build */
  unsigned num_spec_values;
  /* Launch rules from the build options. A binary does not tell which
   * OpenCL C version it was compiled for (compiler/ keeps no record), so
   * for binaries only explicit options make non-uniform launches an
   * error, while sizes Skein chooses stay uniform unless the options say
   * OpenCL C 2.0 or later. */
  bool uniform_work_groups;      /* required: a non-uniform launch fails */
  bool uniform_chosen;           /* NULL local sizes divide the global size */
  bool kernel_arg_info;          /* built from source with -cl-kernel-arg-info */
  bool from_link;                /* made by clLinkProgram (set at creation) */
};

/* Creates a program of ctx holding a copy of the source (not NUL-
 * terminated, length bytes). Returns NULL on allocation failure. The
 * program retains ctx. */
cl_program rt_program_create_source(cl_context ctx, const char *source,
                                    size_t length);

/* Creates a program of ctx from a binary made by cc_program_binary, which
 * is validated (loaded) here. Returns NULL with *err set to
 * CL_INVALID_BINARY or CL_OUT_OF_HOST_MEMORY on failure. */
cl_program rt_program_create_binary(cl_context ctx, const unsigned char *bin,
                                    size_t size, cl_int *err);

/* Creates a program of ctx from SPIR-V (length bytes, either byte
 * order), which is read here: CL_INVALID_VALUE in *err for a module that
 * is not well-formed (the reason goes to the debug channel),
 * CL_OUT_OF_HOST_MEMORY. Returns NULL on failure. */
cl_program rt_program_create_il(cl_context ctx, const void *il,
                                size_t length, cl_int *err);

/* clSetProgramSpecializationConstant on an IL program p: CL_INVALID_SPEC_ID
 * if p's module has no specialization constant spec_id,
 * CL_INVALID_VALUE if spec_size is not its size, CL_OUT_OF_HOST_MEMORY.
 * The value applies to every later build and compile of p. */
cl_int rt_program_set_spec_constant(cl_program p, cl_uint spec_id,
                                    size_t spec_size, const void *value);

/* Builds p with options for its device. Returns CL_SUCCESS,
 * CL_BUILD_PROGRAM_FAILURE, CL_INVALID_BUILD_OPTIONS, CL_INVALID_OPERATION
 * (a build in progress or kernels attached) or CL_OUT_OF_HOST_MEMORY.
 * Safe to call while other threads query p. */
cl_int rt_program_build(cl_program p, const char *options);

/* clCompileProgram for a program made from source: compiles it with
 * options and the n input headers (programs made from source, found by
 * their include names) into a compiled object kept in p->binary.
 * Returns CL_SUCCESS, CL_COMPILE_PROGRAM_FAILURE (log in p),
 * CL_INVALID_COMPILER_OPTIONS or CL_OUT_OF_HOST_MEMORY; same
 * CL_INVALID_OPERATION rules as a build. */
cl_int rt_program_compile(cl_program p, const char *options, cl_uint n,
                          const cl_program *headers, const char **names);

/* clLinkProgram of the n compiled objects or libraries (checked here:
 * CL_INVALID_OPERATION for any other input): -create-library makes a
 * library, otherwise an executable is built. Returns the new program
 * (also on CL_LINK_PROGRAM_FAILURE, as the spec asks, so its log can be
 * read) with *err set; NULL on CL_INVALID_LINKER_OPTIONS,
 * CL_INVALID_OPERATION or allocation failure. */
cl_program rt_program_link(cl_context ctx, const char *options, cl_uint n,
                           const cl_program *inputs, cl_int *err);

/* True if p holds a successfully built executable. */
bool rt_program_is_built(cl_program p);

/* Drops a reference; destroys p (releasing its context) on the last. */
void rt_program_release(cl_program p);

#endif
