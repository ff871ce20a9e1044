/* This file contains the program object's behaviour: creation from source
 * or binary, building through compiler/, and destruction. Argument
 * validation and error codes of the API live in api_program.c. */
#include "program.h"
#include "context.h"
#include "platform.h"
#include "trace.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

/* Allocates a program of ctx with no code, status CL_BUILD_NONE. */
static cl_program program_alloc(cl_context ctx) {
  cl_program p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->options = dup_string("");
  p->log = dup_string("");
  if (!p->options || !p->log) {
    free(p->options);
    free(p->log);
    free(p);
    return NULL;
  }
  rt_object_init(&p->obj, RT_PROGRAM);
  pthread_mutex_init(&p->lock, NULL);
  atomic_init(&p->num_kernels, 0);
  p->status = CL_BUILD_NONE;
  p->binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
  rt_retain(ctx);
  p->context = ctx;
  return p;
}

cl_program rt_program_create_source(cl_context ctx, const char *source,
                                    size_t length) {
  char *copy = malloc(length + 1);
  if (!copy)
    return NULL;
  memcpy(copy, source, length);
  copy[length] = '\0';
  cl_program p = program_alloc(ctx);
  if (!p) {
    free(copy);
    return NULL;
  }
  p->source = copy;
  p->source_len = length;
  return p;
}

cl_program rt_program_create_il(cl_context ctx, const void *il,
                                size_t length, cl_int *err) {
  cc_il_module *m = NULL;
  char *why = NULL;
  if (!cc_il_load(il, length, &m, &why)) {
    rt_debug("clCreateProgramWithIL: %s\n", why ? why : "out of memory");
    *err = why ? CL_INVALID_VALUE : CL_OUT_OF_HOST_MEMORY;
    free(why);
    return NULL;
  }
  cl_program p = program_alloc(ctx);
  void *copy = malloc(length);
  if (!p || !copy) {
    free(copy);
    if (p)
      rt_program_release(p);
    cc_il_module_free(m);
    *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  memcpy(copy, il, length);
  p->il = copy;
  p->il_len = length;
  p->il_module = m;
  *err = CL_SUCCESS;
  return p;
}

cl_int rt_program_set_spec_constant(cl_program p, cl_uint spec_id,
                                    size_t spec_size, const void *value) {
  size_t size = cc_il_spec_size(p->il_module, spec_id);
  /* CL_INVALID_SPEC_ID if spec_id is not a valid specialization constant
   * identifier. */
  if (!size)
    return CL_INVALID_SPEC_ID;
  /* CL_INVALID_VALUE if spec_size does not match the size of the
   * specialization constant in the module. */
  if (spec_size != size)
    return CL_INVALID_VALUE;
  uint64_t v = 0;
  memcpy(&v, value, size);   /* little-endian host: the low bytes */
  cl_int err = CL_SUCCESS;
  pthread_mutex_lock(&p->lock);
  unsigned i = 0;
  while (i < p->num_spec_values && p->spec_values[i].id != spec_id)
    i++;
  if (i == p->num_spec_values) {
    cc_il_spec_value *grown =
        realloc(p->spec_values, (i + 1) * sizeof(*grown));
    if (grown) {
      p->spec_values = grown;
      p->num_spec_values++;
    } else {
      err = CL_OUT_OF_HOST_MEMORY;
    }
  }
  if (err == CL_SUCCESS)
    p->spec_values[i] = (cc_il_spec_value){.id = spec_id, .value = v};
  pthread_mutex_unlock(&p->lock);
  return err;
}

/* A copy of p's specialization values (under its lock), for a build
 * that runs without the lock; *n of them. NULL with *n = 0 when there
 * are none; false on allocation failure. */
static bool copy_spec_values(cl_program p, cc_il_spec_value **out,
                             unsigned *n) {
  pthread_mutex_lock(&p->lock);
  *n = p->num_spec_values;
  *out = *n ? malloc(*n * sizeof(**out)) : NULL;
  if (*out)
    memcpy(*out, p->spec_values, *n * sizeof(**out));
  bool ok = !*n || *out;
  pthread_mutex_unlock(&p->lock);
  return ok;
}

cl_program rt_program_create_binary(cl_context ctx, const unsigned char *bin,
                                    size_t size, cl_int *err) {
  /* Loading validates the container and its bitcode; a loaded
   * executable is kept so that a build without options costs nothing. */
  cc_program *cc = NULL;
  char *log = NULL;
  cc_status st = cc_load_binary(bin, size, &ctx->device->caps, &cc, &log);
  free(log);
  if (st != CC_OK) {
    *err = st == CC_OUT_OF_MEMORY ? CL_OUT_OF_HOST_MEMORY : CL_INVALID_BINARY;
    return NULL;
  }
  cl_program p = program_alloc(ctx);
  unsigned char *copy = malloc(size);
  if (!p || !copy) {
    free(copy);
    if (p)
      rt_program_release(p);
    cc_program_destroy(cc);
    *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  memcpy(copy, bin, size);
  p->binary = copy;
  p->binary_size = size;
  /* A compiled object or library waits for clLinkProgram (or a build). */
  switch (cc_program_kind(cc)) {
  case CC_KIND_OBJECT:
    p->binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
    cc_program_destroy(cc);
    break;
  case CC_KIND_LIBRARY:
    p->binary_type = CL_PROGRAM_BINARY_TYPE_LIBRARY;
    cc_program_destroy(cc);
    break;
  default:
    p->cc = cc;
    p->binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
  }
  *err = CL_SUCCESS;
  return p;
}

static bool option_is(const char *s, size_t n, const char *opt) {
  return n == strlen(opt) && !strncmp(s, opt, n);
}

/* Reads the options that change how kernels may be launched: whether
 * work-groups must be uniform (OpenCL C 1.x, the default without -cl-std,
 * or -cl-uniform-work-group-size) and whether argument info was asked.
 * See program.h for what a binary program assumes. */
static void parse_launch_options(cl_program p, const char *options,
                                 bool linked) {
  bool std_given = false, std2plus = false, force_uniform = false;
  bool arg_info = false;
  const char *s = options;
  while (*s) {
    while (*s == ' ' || *s == '\t' || *s == '\n')
      s++;
    size_t n = strcspn(s, " \t\n");
    if (n >= 11 && !strncmp(s, "-cl-std=CL", 10)) {
      std_given = true;
      std2plus = s[10] >= '2';
    } else if (option_is(s, n, "-cl-uniform-work-group-size")) {
      force_uniform = true;
    } else if (option_is(s, n, "-cl-kernel-arg-info")) {
      arg_info = true;
    }
    s += n;
  }
  /* A linked program knows its units' -cl-std (cc_program_options). An
   * IL program has no OpenCL C version: non-uniform work-groups are
   * allowed unless -cl-uniform-work-group-size asks otherwise (the
   * SPIR-V environment's rule for modules of OpenCL 2.0 and later). */
  if (p->il) {
    p->uniform_work_groups = force_uniform;
    p->uniform_chosen = true;
  } else if (p->source || linked) {
    p->uniform_work_groups = p->uniform_chosen = !std2plus || force_uniform;
  } else {
    p->uniform_work_groups = force_uniform || (std_given && !std2plus);
    p->uniform_chosen = !std2plus || force_uniform;
  }
  /* Only programs built from source keep argument info (clGetKernelArgInfo). */
  p->kernel_arg_info = arg_info && (p->source || linked);
}

/* Joins the kernel names of cc with ';' (CL_PROGRAM_KERNEL_NAMES). */
static char *join_kernel_names(const cc_program *cc) {
  unsigned n = cc_program_num_kernels(cc);
  size_t len = 1;
  for (unsigned i = 0; i < n; i++)
    len += strlen(cc_program_kernel(cc, i)->name) + 1;
  char *names = malloc(len);
  if (!names)
    return NULL;
  names[0] = '\0';
  for (unsigned i = 0; i < n; i++) {
    if (i)
      strcat(names, ";");
    strcat(names, cc_program_kernel(cc, i)->name);
  }
  return names;
}

/* Runs the compiler without holding p->lock, so that queries of p (the
 * spec's CL_BUILD_IN_PROGRESS) are answered while it works. */
static cc_status compile(cl_program p, const char *options, cc_program **cc,
                         char **log) {
  const cc_device_caps *caps = &p->context->device->caps;
  if (p->source)
    return cc_build_source(p->source, p->source_len, options, caps, cc, log);
  if (p->il) {
    cc_il_spec_value *values;
    unsigned n;
    if (!copy_spec_values(p, &values, &n))
      return CC_OUT_OF_MEMORY;
    cc_status st = cc_build_il(p->il_module, values, n, options, caps, cc,
                               log);
    free(values);
    return st;
  }
  return cc_build_binary(p->binary, p->binary_size, options, caps, cc, log);
}

static cl_int status_to_cl(cc_status st) {
  switch (st) {
  case CC_OK: return CL_SUCCESS;
  case CC_BUILD_FAILED: return CL_BUILD_PROGRAM_FAILURE;
  case CC_INVALID_OPTIONS: return CL_INVALID_BUILD_OPTIONS;
  case CC_INVALID_BINARY: return CL_INVALID_BINARY;
  default: return CL_OUT_OF_HOST_MEMORY;
  }
}

/* Marks p as being built, or refuses (CL_INVALID_OPERATION). */
static cl_int begin_build(cl_program p) {
  cl_int err = CL_SUCCESS;
  pthread_mutex_lock(&p->lock);
  if (p->status == CL_BUILD_IN_PROGRESS || atomic_load(&p->num_kernels))
    err = CL_INVALID_OPERATION;
  else
    p->status = CL_BUILD_IN_PROGRESS;
  pthread_mutex_unlock(&p->lock);
  return err;
}

cl_int rt_program_build(cl_program p, const char *options) {
  cl_int err = begin_build(p);
  if (err != CL_SUCCESS)
    return err;
  char *opts = dup_string(options ? options : "");
  cc_program *cc = NULL;
  char *log = NULL;
  cc_status st = CC_OUT_OF_MEMORY;
  uint64_t t_build = rt_trace_on ? rt_now_ns() : 0;   /* SKEIN_TRACE */
  pthread_mutex_lock(&p->lock);
  cc_program *old = p->cc;
  pthread_mutex_unlock(&p->lock);
  /* A binary program loaded at creation needs no second load when no
   * options could change it. */
  if (opts && !p->source && !p->il && old && !*opts) {
    cc = old;
    st = CC_OK;
  } else if (opts) {
    st = compile(p, opts, &cc, &log);
  }
  char *names = st == CC_OK ? join_kernel_names(cc) : NULL;
  rt_trace_build("clBuildProgram", t_build, status_to_cl(st), names);
  if (st == CC_OK && !names) {
    if (cc != old)
      cc_program_destroy(cc);
    st = CC_OUT_OF_MEMORY;
  }
  pthread_mutex_lock(&p->lock);
  if (st == CC_OK) {
    if (old && old != cc)
      cc_program_destroy(old);
    p->cc = cc;
    free(p->kernel_names);
    p->kernel_names = names;
    parse_launch_options(p, opts, false);
    p->binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
    if (p->source || p->il) {
      /* A compiled object of the source is replaced by the executable. */
      free(p->binary);
      p->binary = NULL;
      p->binary_size = 0;
    }
  }
  p->status = st == CC_OK ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
  if (opts) {
    free(p->options);
    p->options = opts;
  }
  free(p->log);
  p->log = log ? log : dup_string("");
  pthread_mutex_unlock(&p->lock);
  return status_to_cl(st);
}

bool rt_program_is_built(cl_program p) {
  pthread_mutex_lock(&p->lock);
  bool built = p->status == CL_BUILD_SUCCESS && p->cc;
  pthread_mutex_unlock(&p->lock);
  return built;
}

void rt_program_release(cl_program p) {
  if (!rt_release_last(p))
    return;
  if (p->cc)
    cc_program_destroy(p->cc);
  free(p->source);
  free(p->il);
  cc_il_module_free(p->il_module);
  free(p->spec_values);
  free(p->binary);
  free(p->options);
  free(p->log);
  free(p->kernel_names);
  pthread_mutex_destroy(&p->lock);
  cl_context ctx = p->context;
  free(p);
  clReleaseContext(ctx);
}


/* Keeps the container of the unbuilt program cc (an object or library)
 * as p's binary, with its type; takes cc. Under p->lock. */
static cl_int keep_unit(cl_program p, cc_program *cc) {
  size_t size;
  const unsigned char *bin = cc_program_binary(cc, &size);
  unsigned char *copy = malloc(size);
  cl_program_binary_type type = cc_program_kind(cc) == CC_KIND_LIBRARY
                                    ? CL_PROGRAM_BINARY_TYPE_LIBRARY
                                    : CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
  if (copy)
    memcpy(copy, bin, size);
  cc_program_destroy(cc);
  if (!copy)
    return CL_OUT_OF_HOST_MEMORY;
  if (p->cc)
    cc_program_destroy(p->cc);
  p->cc = NULL;
  free(p->kernel_names);
  p->kernel_names = NULL;
  free(p->binary);
  p->binary = copy;
  p->binary_size = size;
  p->binary_type = type;
  return CL_SUCCESS;
}

/* Records the outcome of a compile or link in p: status, options, log. */
static void set_outcome(cl_program p, bool ok, const char *options,
                        char *log) {
  p->status = ok ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
  char *o = dup_string(options ? options : "");
  if (o) {
    free(p->options);
    p->options = o;
  }
  free(p->log);
  p->log = log ? log : dup_string("");
}

cl_int rt_program_compile(cl_program p, const char *options, cl_uint n,
                          const cl_program *headers, const char **names) {
  cl_int err = begin_build(p);
  if (err != CL_SUCCESS)
    return err;
  uint64_t t_build = rt_trace_on ? rt_now_ns() : 0;   /* SKEIN_TRACE */
  cc_header *hdrs = n ? calloc(n, sizeof(*hdrs)) : NULL;
  cc_program *cc = NULL;
  char *log = NULL;
  cc_status st = CC_OUT_OF_MEMORY;
  if (p->il) {
    /* A SPIR-V module has no headers to include (clCompileProgram
     * ignores them for IL programs). */
    cc_il_spec_value *values;
    unsigned nv;
    if (copy_spec_values(p, &values, &nv))
      st = cc_compile_il(p->il_module, values, nv, options,
                         &p->context->device->caps, &cc, &log);
    free(values);
  } else if (hdrs || !n) {
    /* Header programs hold immutable source: no lock is needed. */
    for (cl_uint i = 0; i < n; i++)
      hdrs[i] = (cc_header){names[i], headers[i]->source,
                            headers[i]->source_len};
    st = cc_compile_source(p->source, p->source_len, options, hdrs, n,
                           &p->context->device->caps, &cc, &log);
  }
  free(hdrs);
  rt_trace_build("clCompileProgram", t_build, st == CC_OK ? CL_SUCCESS
                 : CL_COMPILE_PROGRAM_FAILURE, NULL);
  pthread_mutex_lock(&p->lock);
  if (st == CC_OK && keep_unit(p, cc) != CL_SUCCESS)
    st = CC_OUT_OF_MEMORY;
  set_outcome(p, st == CC_OK, options, log);
  pthread_mutex_unlock(&p->lock);
  switch (st) {
  case CC_OK: return CL_SUCCESS;
  case CC_INVALID_OPTIONS: return CL_INVALID_COMPILER_OPTIONS;
  case CC_BUILD_FAILED: return CL_COMPILE_PROGRAM_FAILURE;
  default: return CL_OUT_OF_HOST_MEMORY;
  }
}

/* Copies input in's container if it is a compiled object or library of
 * ctx whose compile (or link) has completed successfully, under its
 * lock: a later compile of in cannot pull it away during the link. */
static cl_int take_unit(cl_program in, cl_context ctx, unsigned char **bin,
                        size_t *size) {
  cl_int err = CL_SUCCESS;
  pthread_mutex_lock(&in->lock);
  if (in->context != ctx || !in->binary ||
      in->status == CL_BUILD_IN_PROGRESS || in->status == CL_BUILD_ERROR ||
      (in->binary_type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT &&
       in->binary_type != CL_PROGRAM_BINARY_TYPE_LIBRARY)) {
    err = CL_INVALID_OPERATION;
  } else if (!(*bin = malloc(in->binary_size))) {
    err = CL_OUT_OF_HOST_MEMORY;
  } else {
    memcpy(*bin, in->binary, in->binary_size);
    *size = in->binary_size;
  }
  pthread_mutex_unlock(&in->lock);
  return err;
}

/* Links the copied containers; *err as rt_program_link returns it. */
static cl_program link_units(cl_context ctx, const char *options, cl_uint n,
                             const unsigned char **bins, const size_t *sizes,
                             cl_int *err) {
  cc_program *cc = NULL;
  char *log = NULL;
  uint64_t t_build = rt_trace_on ? rt_now_ns() : 0;   /* SKEIN_TRACE */
  cc_status st = cc_link(bins, sizes, n, options, &ctx->device->caps, &cc,
                         &log);
  rt_trace_build("clLinkProgram", t_build, st == CC_OK ? CL_SUCCESS
                 : CL_LINK_PROGRAM_FAILURE, NULL);
  cl_program p = NULL;
  if (st == CC_INVALID_OPTIONS || st == CC_OUT_OF_MEMORY ||
      !(p = program_alloc(ctx))) {
    *err = st == CC_INVALID_OPTIONS ? CL_INVALID_LINKER_OPTIONS
                                    : CL_OUT_OF_HOST_MEMORY;
    cc_program_destroy(cc);
    free(log);
    return NULL;
  }
  p->from_link = true; /* clBuildProgram refuses it */
  char *names = NULL;
  *err = st == CC_OK ? CL_SUCCESS : CL_LINK_PROGRAM_FAILURE;
  if (st == CC_OK && cc_program_kind(cc) != CC_KIND_EXECUTABLE) {
    *err = keep_unit(p, cc);
  } else if (st == CC_OK && !(names = join_kernel_names(cc))) {
    cc_program_destroy(cc);
    *err = CL_OUT_OF_HOST_MEMORY;
  } else if (st == CC_OK) {
    p->cc = cc;
    p->kernel_names = names;
    p->binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
    parse_launch_options(p, cc_program_options(cc), true);
  }
  set_outcome(p, *err == CL_SUCCESS, options, log);
  if (*err == CL_OUT_OF_HOST_MEMORY) {
    rt_program_release(p);
    return NULL;
  }
  return p;
}

cl_program rt_program_link(cl_context ctx, const char *options, cl_uint n,
                           const cl_program *inputs, cl_int *err) {
  unsigned char **bins = calloc(n, sizeof(*bins));
  size_t *sizes = calloc(n, sizeof(*sizes));
  *err = bins && sizes ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
  for (cl_uint i = 0; i < n && *err == CL_SUCCESS; i++)
    *err = take_unit(inputs[i], ctx, &bins[i], &sizes[i]);
  cl_program p = NULL;
  if (*err == CL_SUCCESS)
    p = link_units(ctx, options, n, (const unsigned char **)bins, sizes, err);
  for (cl_uint i = 0; bins && i < n; i++)
    free(bins[i]);
  free(bins);
  free(sizes);
  return p;
}
