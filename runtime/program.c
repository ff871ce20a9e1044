/* This file contains the program object's behaviour: creation from source
 * or binary, building through compiler/, and destruction. Argument
 * validation and error codes of the API live in api_program.c. */
#define _GNU_SOURCE /* nftw, mkdtemp */
#include "program.h"
#include "context.h"
#include "platform.h"
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *dup_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

static void header_dir_release(struct rt_header_dir *d);

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

cl_program rt_program_create_binary(cl_context ctx, const unsigned char *bin,
                                    size_t size, cl_int *err) {
  /* Loading validates the container and its bitcode; the loaded program
   * is kept so that a build without options costs nothing. */
  cc_program *cc = NULL;
  char *log = NULL;
  cc_status st = cc_build_binary(bin, size, NULL, &ctx->device->caps, &cc,
                                 &log);
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
  p->cc = cc;
  p->binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
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
static void parse_launch_options(cl_program p, const char *options) {
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
  if (p->source) {
    p->uniform_work_groups = p->uniform_chosen = !std2plus || force_uniform;
  } else {
    p->uniform_work_groups = force_uniform || (std_given && !std2plus);
    p->uniform_chosen = !std2plus || force_uniform;
  }
  /* Only programs built from source keep argument info (clGetKernelArgInfo). */
  p->kernel_arg_info = arg_info && p->source;
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
  pthread_mutex_lock(&p->lock);
  cc_program *old = p->cc;
  pthread_mutex_unlock(&p->lock);
  /* A binary program loaded at creation needs no second load when no
   * options could change it. */
  if (opts && !p->source && old && !*opts) {
    cc = old;
    st = CC_OK;
  } else if (opts) {
    st = compile(p, opts, &cc, &log);
  }
  char *names = st == CC_OK ? join_kernel_names(cc) : NULL;
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
    parse_launch_options(p, opts);
    p->binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
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
  free(p->binary);
  free(p->options);
  free(p->log);
  free(p->kernel_names);
  free(p->compile_options);
  header_dir_release(p->header_dir);
  pthread_mutex_destroy(&p->lock);
  cl_context ctx = p->context;
  free(p);
  clReleaseContext(ctx);
}

/* The folder clCompileProgram writes a program's input headers to:
 * shared by the program and the libraries linked from it, removed with
 * the last of them. */
typedef struct rt_header_dir {
  atomic_uint refs;
  char path[];
} rt_header_dir;

static int remove_entry(const char *path, const struct stat *sb, int flag,
                        struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

static void header_dir_release(rt_header_dir *d) {
  if (!d || atomic_fetch_sub(&d->refs, 1) != 1)
    return;
  nftw(d->path, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
  free(d);
}

static rt_header_dir *header_dir_create(void) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp)
    tmp = "/tmp";
  size_t n = strlen(tmp) + sizeof "/skein-headers-XXXXXX";
  rt_header_dir *d = malloc(sizeof *d + n);
  if (!d)
    return NULL;
  snprintf(d->path, n, "%s/skein-headers-XXXXXX", tmp);
  if (!mkdtemp(d->path)) {
    free(d);
    return NULL;
  }
  atomic_init(&d->refs, 1);
  return d;
}

/* Writes len bytes of text to dir/name, creating the folders in name.
 * Names that could leave dir (absolute, or with "..") are refused. */
static bool write_header(const char *dir, const char *name, const char *text,
                         size_t len) {
  if (name[0] == '/' || strstr(name, ".."))
    return false;
  size_t n = strlen(dir) + strlen(name) + 2;
  char *path = malloc(n);
  if (!path)
    return false;
  snprintf(path, n, "%s/%s", dir, name);
  for (char *s = path + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
    *s = '\0';
    mkdir(path, 0700);
    *s = '/';
  }
  FILE *f = fopen(path, "wb");
  bool ok = f && fwrite(text, 1, len, f) == len;
  if (f)
    ok = fclose(f) == 0 && ok;
  free(path);
  return ok;
}

/* Writes every input header; *log names the first that failed. */
static rt_header_dir *write_headers(cl_uint n, const cl_program *headers,
                                    const char **names, char **log) {
  rt_header_dir *d = header_dir_create();
  for (cl_uint i = 0; d && i < n; i++) {
    if (!write_header(d->path, names[i], headers[i]->source,
                      headers[i]->source_len)) {
      size_t size = strlen(names[i]) + 64;
      if ((*log = malloc(size)))
        snprintf(*log, size, "error: cannot use header '%s'\n", names[i]);
      header_dir_release(d);
      return NULL;
    }
  }
  return d;
}

/* "options -I"dir"" as a malloc'd string. */
static char *with_include(const char *options, const rt_header_dir *d) {
  size_t n = strlen(options) + (d ? strlen(d->path) : 0) + 8;
  char *s = malloc(n);
  if (s && d)
    snprintf(s, n, "%s -I\"%s\"", options, d->path);
  else if (s)
    snprintf(s, n, "%s", options);
  return s;
}

/* Compiles a one-line source with options: the compiler's verdict on the
 * options alone (CC_INVALID_OPTIONS or not). */
static cc_status probe_options(cl_program p, const char *options) {
  cc_program *cc = NULL;
  char *log = NULL;
  cc_status st = cc_build_source("\n", 1, options, &p->context->device->caps,
                                 &cc, &log);
  if (cc)
    cc_program_destroy(cc);
  free(log);
  return st == CC_INVALID_OPTIONS || st == CC_OUT_OF_MEMORY ? st : CC_OK;
}

/* Records p as a compiled object (or the failure), under p->lock. */
static void finish_compile(cl_program p, cc_status st, const char *opts,
                           char *copts, rt_header_dir *dir, char *log) {
  pthread_mutex_lock(&p->lock);
  if (st == CC_OK) {
    if (p->cc)
      cc_program_destroy(p->cc);
    p->cc = NULL;
    free(p->kernel_names);
    p->kernel_names = NULL;
    free(p->compile_options);
    p->compile_options = copts;
    header_dir_release(p->header_dir);
    p->header_dir = dir;
    p->binary_type = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
  }
  p->status = st == CC_OK ? CL_BUILD_SUCCESS : CL_BUILD_ERROR;
  char *o = dup_string(opts);
  if (o) {
    free(p->options);
    p->options = o;
  }
  free(p->log);
  p->log = log ? log : dup_string("");
  pthread_mutex_unlock(&p->lock);
}

cl_int rt_program_compile(cl_program p, const char *options, cl_uint n,
                          const cl_program *headers, const char **names) {
  cl_int err = begin_build(p);
  if (err != CL_SUCCESS)
    return err;
  const char *opts = options ? options : "";
  char *log = NULL, *copts = NULL;
  rt_header_dir *dir = NULL;
  cc_status st = probe_options(p, opts);
  if (st == CC_OK && n && !(dir = write_headers(n, headers, names, &log)))
    st = log ? CC_BUILD_FAILED : CC_OUT_OF_MEMORY;
  if (st == CC_OK && !(copts = with_include(opts, dir)))
    st = CC_OUT_OF_MEMORY;
  if (st != CC_OK)
    header_dir_release(dir);
  finish_compile(p, st, opts, copts, dir, log);
  switch (st) {
  case CC_OK: return CL_SUCCESS;
  case CC_INVALID_OPTIONS: return CL_INVALID_COMPILER_OPTIONS;
  case CC_BUILD_FAILED: return CL_COMPILE_PROGRAM_FAILURE;
  default: return CL_OUT_OF_HOST_MEMORY;
  }
}

/* Reads the link options: the ones a link may take, and the math options
 * among them (which the link's compile uses) into *math. */
static bool parse_link_options(const char *options, bool *library,
                               char *math, size_t cap) {
  static const char *const allowed[] = {
      "-cl-denorms-are-zero", "-cl-no-signed-zeros",
      "-cl-unsafe-math-optimizations", "-cl-finite-math-only",
      "-cl-fast-relaxed-math", "-cl-no-subgroup-ifp"};
  *library = false;
  math[0] = '\0';
  for (const char *s = options ? options : ""; *s;) {
    s += strspn(s, " \t\r\n");
    size_t n = strcspn(s, " \t\r\n");
    if (!n)
      break;
    bool ok = option_is(s, n, "-enable-link-options");
    if (option_is(s, n, "-create-library"))
      ok = *library = true;
    for (size_t i = 0; !ok && i < sizeof allowed / sizeof *allowed; i++) {
      if (option_is(s, n, allowed[i]) && strlen(math) + n + 2 < cap) {
        strcat(math, " ");
        strncat(math, s, n);
        ok = true;
      }
    }
    if (!ok)
      return false;
    s += n;
  }
  return true;
}

/* The one compilation unit a link takes, read under its lock. */
static cl_int take_unit(cl_program in, cl_context ctx, char **copts,
                        rt_header_dir **dir) {
  cl_int err = CL_SUCCESS;
  pthread_mutex_lock(&in->lock);
  if (in->status != CL_BUILD_SUCCESS || !in->source ||
      in->context != ctx ||
      (in->binary_type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT &&
       in->binary_type != CL_PROGRAM_BINARY_TYPE_LIBRARY)) {
    err = CL_INVALID_OPERATION;
  } else if (!(*copts = dup_string(in->compile_options))) {
    err = CL_OUT_OF_HOST_MEMORY;
  } else if ((*dir = in->header_dir)) {
    atomic_fetch_add(&(*dir)->refs, 1);
  }
  pthread_mutex_unlock(&in->lock);
  return err;
}

/* Sets a linked program's outcome fields. */
static void link_result(cl_program p, cl_build_status st,
                        cl_program_binary_type type, const char *options,
                        const char *log) {
  pthread_mutex_lock(&p->lock);
  p->status = st;
  p->binary_type = st == CL_BUILD_SUCCESS ? type : p->binary_type;
  char *o = dup_string(options ? options : "");
  if (o) {
    free(p->options);
    p->options = o;
  }
  char *l = log ? dup_string(log) : NULL;
  if (l) {
    free(p->log);
    p->log = l;
  }
  pthread_mutex_unlock(&p->lock);
}

cl_program rt_program_link(cl_context ctx, const char *options, cl_uint n,
                           const cl_program *inputs, cl_int *err) {
  bool library;
  char math[512];
  if (!parse_link_options(options, &library, math, sizeof math)) {
    *err = CL_INVALID_LINKER_OPTIONS;
    return NULL;
  }
  char *copts = NULL;
  rt_header_dir *dir = NULL;
  for (cl_uint i = 0; i < n; i++) {
    char *c = NULL;
    rt_header_dir *d = NULL;
    *err = take_unit(inputs[i], ctx, &c, &d);
    if (i == 0) {
      copts = c, dir = d;
    } else {
      free(c);
      header_dir_release(d);
    }
    if (*err != CL_SUCCESS) {
      free(copts);
      header_dir_release(dir);
      return NULL;
    }
  }
  cl_program p = rt_program_create_source(ctx, inputs[0]->source,
                                          inputs[0]->source_len);
  char *build_opts = p ? malloc(strlen(copts) + strlen(math) + 2) : NULL;
  if (!build_opts) {
    if (p)
      rt_program_release(p);
    free(copts);
    header_dir_release(dir);
    *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  sprintf(build_opts, "%s %s", copts, math);
  if (n > 1) {
    /* compiler/ compiles whole programs: it cannot join modules yet. */
    link_result(p, CL_BUILD_ERROR, 0, options,
                "error: Skein cannot link more than one compiled program "
                "yet; build them as one source\n");
    *err = CL_LINK_PROGRAM_FAILURE;
  } else if (library) {
    p->compile_options = copts, copts = NULL;
    p->header_dir = dir, dir = NULL;
    link_result(p, CL_BUILD_SUCCESS, CL_PROGRAM_BINARY_TYPE_LIBRARY, options,
                NULL);
    *err = CL_SUCCESS;
  } else {
    *err = rt_program_build(p, build_opts);
    if (*err == CL_BUILD_PROGRAM_FAILURE || *err == CL_INVALID_BUILD_OPTIONS)
      *err = CL_LINK_PROGRAM_FAILURE;
    link_result(p, *err == CL_SUCCESS ? CL_BUILD_SUCCESS : CL_BUILD_ERROR,
                CL_PROGRAM_BINARY_TYPE_EXECUTABLE, options, NULL);
  }
  free(build_opts);
  free(copts);
  header_dir_release(dir);
  if (*err == CL_OUT_OF_HOST_MEMORY) {
    rt_program_release(p);
    return NULL;
  }
  return p;
}
