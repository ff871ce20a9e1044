/* This file contains the helpers the fuzz targets share (fuzz.h): set-up
 * of the Skein platform, the error-code check, the input reader and the
 * build-info and kernel-info walks. */
#include "fuzz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cl_platform_id fz_platform;
cl_device_id fz_device;

void fz_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("fuzz finding: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

void fz_setup(void) {
  if (fz_device)
    return;
  cl_uint n = 0;
  if (clGetPlatformIDs(1, &fz_platform, &n) != CL_SUCCESS || n == 0)
    fz_fail("no OpenCL platform (is OCL_ICD_VENDORS set to Skein's?)");
  char name[64] = "";
  clGetPlatformInfo(fz_platform, CL_PLATFORM_NAME, sizeof name, name, NULL);
  if (strcmp(name, "Skein") != 0)
    fz_fail("the first platform is '%s', not Skein", name);
  if (clGetDeviceIDs(fz_platform, CL_DEVICE_TYPE_CPU, 1, &fz_device, NULL))
    fz_fail("Skein has no CPU device");
}

cl_context fz_context(void) {
  cl_int err;
  cl_context c = clCreateContext(NULL, 1, &fz_device, NULL, NULL, &err);
  if (!c || err != CL_SUCCESS)
    fz_fail("clCreateContext: %d", err);
  return c;
}

cl_int fz_expect(const char *call, cl_int err, ...) {
  static int trace = -1;
  if (trace < 0)
    trace = getenv("FUZZ_TRACE") != NULL;
  if (trace)
    fprintf(stderr, "  %s -> %d\n", call, err);
  if (err == CL_SUCCESS)
    return err;
  va_list ap;
  va_start(ap, err);
  for (int code = va_arg(ap, int); code != 1; code = va_arg(ap, int))
    if (code == err) {
      va_end(ap);
      return err;
    }
  va_end(ap);
  fz_fail("%s returned %d, not a code the OpenCL 3.0 spec lists for it",
          call, err);
}

uint8_t fz_u8(fz_in *in) {
  if (!in->n)
    return 0;
  in->n--;
  return *in->p++;
}

uint16_t fz_u16(fz_in *in) {
  return (uint16_t)(fz_u8(in) | fz_u8(in) << 8);
}

uint32_t fz_u32(fz_in *in) {
  return fz_u16(in) | (uint32_t)fz_u16(in) << 16;
}

uint64_t fz_u64(fz_in *in) {
  return fz_u32(in) | (uint64_t)fz_u32(in) << 32;
}

unsigned fz_pick(fz_in *in, unsigned n) {
  if (n <= 1)
    return 0;
  return (n <= 256 ? fz_u8(in) : fz_u16(in)) % n;
}

char *fz_take_until(fz_in *in, const char *sep, size_t *len_out) {
  size_t seplen = strlen(sep), len = in->n, skip = 0;
  for (size_t i = 0; seplen && i + seplen <= in->n; i++)
    if (memcmp(in->p + i, sep, seplen) == 0) {
      len = i;
      skip = seplen;
      break;
    }
  char *s = malloc(len + 1);
  if (!s)
    fz_fail("out of memory");
  memcpy(s, in->p, len);
  s[len] = '\0';
  in->p += len + skip;
  in->n -= len + skip;
  if (len_out)
    *len_out = len;
  return s;
}

/* A clGet*Info string: asks for its size, then for the value, and checks
 * that it is NUL-terminated with that size. Returns it (malloc'd) or NULL
 * when the query failed with one of the listed codes. */
static char *info_string(const char *what, cl_int err, size_t size,
                         char *(*get)(void *ctx, size_t size, cl_int *err),
                         void *ctx) {
  if (err != CL_SUCCESS)
    return NULL;
  if (size == 0)
    fz_fail("%s: a string of size 0 (no NUL)", what);
  cl_int err2;
  char *s = get(ctx, size, &err2);
  if (err2 != CL_SUCCESS)
    fz_fail("%s: %d on the second query", what, err2);
  if (s[size - 1] != '\0' || strlen(s) != size - 1)
    fz_fail("%s: size %zu but the string has %zu bytes before its NUL",
            what, size, strlen(s));
  return s;
}

typedef struct build_log_ctx {
  cl_program p;
} build_log_ctx;

static char *get_build_log(void *ctx, size_t size, cl_int *err) {
  char *s = malloc(size);
  if (!s)
    fz_fail("out of memory");
  memset(s, 'x', size);
  *err = clGetProgramBuildInfo(((build_log_ctx *)ctx)->p, fz_device,
                               CL_PROGRAM_BUILD_LOG, size, s, NULL);
  return s;
}

bool fz_guarded_crash_is_finding;

void fz_check_build_info(cl_program p, cl_int err, const char *call) {
  cl_build_status st = 99;
  FZ_EXPECT("clGetProgramBuildInfo(STATUS)",
            clGetProgramBuildInfo(p, fz_device, CL_PROGRAM_BUILD_STATUS,
                                  sizeof st, &st, NULL),
            CL_OUT_OF_HOST_MEMORY);
  if (err == CL_SUCCESS && st != CL_BUILD_SUCCESS)
    fz_fail("%s succeeded but the build status is %d", call, st);
  if ((err == CL_BUILD_PROGRAM_FAILURE || err == CL_COMPILE_PROGRAM_FAILURE ||
       err == CL_LINK_PROGRAM_FAILURE) && st != CL_BUILD_ERROR)
    fz_fail("%s failed (%d) but the build status is %d", call, err, st);
  size_t size = 0;
  cl_int e = FZ_EXPECT("clGetProgramBuildInfo(LOG)",
                       clGetProgramBuildInfo(p, fz_device,
                                             CL_PROGRAM_BUILD_LOG, 0, NULL,
                                             &size),
                       CL_OUT_OF_HOST_MEMORY);
  build_log_ctx ctx = {p};
  char *log = info_string("CL_PROGRAM_BUILD_LOG", e, size, get_build_log,
                          &ctx);
  /* Skein's own lines, at the start of the log: the log of an abandoned
   * build is that one line, and a build retried without region mode
   * starts with its note. (Anywhere else the text could be the source
   * quoted in a diagnostic: libFuzzer learns the strings compared here
   * and writes them into sources.) */
  static const char ice[] = "error: internal compiler error: LLVM ";
  static const char retried[] = "note: LLVM crashed on this program's "
                                "region-mode code";
  if (log && fz_guarded_crash_is_finding &&
      (strncmp(log, ice, sizeof ice - 1) == 0 ||
       strncmp(log, retried, sizeof retried - 1) == 0))
    fz_fail("%s: the crash guard caught a crash inside the build:\n%s", call,
            log);
  free(log);
  char opts[4096];
  FZ_EXPECT("clGetProgramBuildInfo(OPTIONS)",
            clGetProgramBuildInfo(p, fz_device, CL_PROGRAM_BUILD_OPTIONS,
                                  sizeof opts, opts, &size),
            CL_INVALID_VALUE /* options longer than opts */,
            CL_OUT_OF_HOST_MEMORY);
  cl_program_binary_type bt;
  FZ_EXPECT("clGetProgramBuildInfo(BINARY_TYPE)",
            clGetProgramBuildInfo(p, fz_device, CL_PROGRAM_BINARY_TYPE,
                                  sizeof bt, &bt, NULL),
            CL_OUT_OF_HOST_MEMORY);
  if (err == CL_SUCCESS && bt == CL_PROGRAM_BINARY_TYPE_NONE)
    fz_fail("%s succeeded but the binary type is NONE", call);
}

typedef struct kernel_ctx {
  cl_kernel k;
  cl_uint arg;
  cl_kernel_arg_info param;
} kernel_ctx;

static char *get_arg_info(void *ctx, size_t size, cl_int *err) {
  kernel_ctx *c = ctx;
  char *s = malloc(size);
  if (!s)
    fz_fail("out of memory");
  *err = clGetKernelArgInfo(c->k, c->arg, c->param, size, s, NULL);
  return s;
}

static char *get_kernel_name(void *ctx, size_t size, cl_int *err) {
  char *s = malloc(size);
  if (!s)
    fz_fail("out of memory");
  *err = clGetKernelInfo(((kernel_ctx *)ctx)->k, CL_KERNEL_FUNCTION_NAME,
                         size, s, NULL);
  return s;
}

typedef struct program_ctx {
  cl_program p;
} program_ctx;

static char *get_kernel_names(void *ctx, size_t size, cl_int *err) {
  char *s = malloc(size);
  if (!s)
    fz_fail("out of memory");
  *err = clGetProgramInfo(((program_ctx *)ctx)->p, CL_PROGRAM_KERNEL_NAMES,
                          size, s, NULL);
  return s;
}

/* True if name is one of the ';'-separated names. */
static int in_list(const char *names, const char *name) {
  size_t n = strlen(name);
  for (const char *p = names; *p;) {
    size_t m = strcspn(p, ";");
    if (m == n && memcmp(p, name, n) == 0)
      return 1;
    p += m + (p[m] == ';');
  }
  return 0;
}

/* Queries one kernel's information. */
static void query_kernel(cl_kernel k, const char *names) {
  kernel_ctx c = {k, 0, 0};
  size_t size = 0;
  cl_int e = FZ_EXPECT("clGetKernelInfo(FUNCTION_NAME)",
                       clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, 0, NULL,
                                       &size),
                       CL_OUT_OF_HOST_MEMORY);
  char *name = info_string("CL_KERNEL_FUNCTION_NAME", e, size,
                           get_kernel_name, &c);
  if (name && names && !in_list(names, name))
    fz_fail("kernel '%s' is not in CL_PROGRAM_KERNEL_NAMES '%s'", name,
            names);
  cl_uint nargs = 0;
  FZ_EXPECT("clGetKernelInfo(NUM_ARGS)",
            clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs,
                            NULL),
            CL_OUT_OF_HOST_MEMORY);
  e = FZ_EXPECT("clGetKernelInfo(ATTRIBUTES)",
                clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, 0, NULL, &size),
                CL_OUT_OF_HOST_MEMORY);
  if (e == CL_SUCCESS) {
    char *s = malloc(size ? size : 1);
    FZ_EXPECT("clGetKernelInfo(ATTRIBUTES)",
              clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, size, s, NULL),
              CL_OUT_OF_HOST_MEMORY);
    free(s);
  }
  static const cl_kernel_arg_info strings[] = {CL_KERNEL_ARG_TYPE_NAME,
                                               CL_KERNEL_ARG_NAME};
  for (cl_uint a = 0; a <= nargs && a < 64; a++) {
    cl_kernel_arg_address_qualifier aq;
    e = clGetKernelArgInfo(k, a, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq,
                           &aq, NULL);
    if (a == nargs) {
      if (e != CL_INVALID_ARG_INDEX)
        fz_fail("clGetKernelArgInfo of argument %u of %u: %d, not "
                "CL_INVALID_ARG_INDEX", a, nargs, e);
      break;
    }
    FZ_EXPECT("clGetKernelArgInfo(ADDRESS_QUALIFIER)", e,
              CL_KERNEL_ARG_INFO_NOT_AVAILABLE, CL_OUT_OF_HOST_MEMORY);
    cl_kernel_arg_access_qualifier acc;
    FZ_EXPECT("clGetKernelArgInfo(ACCESS_QUALIFIER)",
              clGetKernelArgInfo(k, a, CL_KERNEL_ARG_ACCESS_QUALIFIER,
                                 sizeof acc, &acc, NULL),
              CL_KERNEL_ARG_INFO_NOT_AVAILABLE, CL_OUT_OF_HOST_MEMORY);
    cl_kernel_arg_type_qualifier tq;
    FZ_EXPECT("clGetKernelArgInfo(TYPE_QUALIFIER)",
              clGetKernelArgInfo(k, a, CL_KERNEL_ARG_TYPE_QUALIFIER,
                                 sizeof tq, &tq, NULL),
              CL_KERNEL_ARG_INFO_NOT_AVAILABLE, CL_OUT_OF_HOST_MEMORY);
    for (int i = 0; i < 2; i++) {
      c.arg = a;
      c.param = strings[i];
      e = FZ_EXPECT("clGetKernelArgInfo(string)",
                    clGetKernelArgInfo(k, a, strings[i], 0, NULL, &size),
                    CL_KERNEL_ARG_INFO_NOT_AVAILABLE, CL_OUT_OF_HOST_MEMORY);
      free(info_string("kernel argument string", e, size, get_arg_info, &c));
    }
  }
  static const cl_kernel_work_group_info wg[] = {
      CL_KERNEL_WORK_GROUP_SIZE, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
      CL_KERNEL_LOCAL_MEM_SIZE, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
      CL_KERNEL_PRIVATE_MEM_SIZE};
  for (size_t i = 0; i < sizeof wg / sizeof wg[0]; i++) {
    size_t v[3];
    FZ_EXPECT("clGetKernelWorkGroupInfo",
              clGetKernelWorkGroupInfo(k, fz_device, wg[i], sizeof v, v,
                                       NULL),
              CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
  }
  size_t v[3];
  /* CL_INVALID_VALUE: a CPU device, and not a built-in kernel. */
  e = clGetKernelWorkGroupInfo(k, fz_device, CL_KERNEL_GLOBAL_WORK_SIZE,
                               sizeof v, v, NULL);
  if (e != CL_INVALID_VALUE)
    fz_fail("CL_KERNEL_GLOBAL_WORK_SIZE of a program kernel: %d", e);
  cl_int err;
  cl_kernel clone = clCloneKernel(k, &err);
  FZ_EXPECT("clCloneKernel", err, CL_OUT_OF_RESOURCES,
            CL_OUT_OF_HOST_MEMORY);
  if (clone)
    clReleaseKernel(clone);
  if (name && names) {
    cl_program p;
    clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof p, &p, NULL);
    cl_kernel again = clCreateKernel(p, name, &err);
    FZ_EXPECT("clCreateKernel", err, CL_OUT_OF_RESOURCES,
              CL_OUT_OF_HOST_MEMORY);
    if (again)
      clReleaseKernel(again);
  }
  free(name);
}

void fz_query_kernels(cl_program p) {
  size_t nk = 0, size = 0;
  cl_int e = FZ_EXPECT("clGetProgramInfo(NUM_KERNELS)",
                       clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nk,
                                        &nk, NULL),
                       CL_INVALID_PROGRAM_EXECUTABLE, CL_OUT_OF_HOST_MEMORY);
  if (e != CL_SUCCESS)
    fz_fail("clGetProgramInfo(NUM_KERNELS) of a built program: %d", e);
  program_ctx pc = {p};
  e = FZ_EXPECT("clGetProgramInfo(KERNEL_NAMES)",
                clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &size),
                CL_OUT_OF_HOST_MEMORY);
  char *names = info_string("CL_PROGRAM_KERNEL_NAMES", e, size,
                            get_kernel_names, &pc);
  cl_uint n = 0;
  e = FZ_EXPECT("clCreateKernelsInProgram",
                clCreateKernelsInProgram(p, 0, NULL, &n),
                CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
  if (e == CL_SUCCESS && n != nk)
    fz_fail("clCreateKernelsInProgram counts %u kernels, "
            "CL_PROGRAM_NUM_KERNELS %zu", n, nk);
  if (e == CL_SUCCESS && n > 0) {
    cl_kernel *ks = calloc(n, sizeof *ks);
    if (n > 1 &&
        clCreateKernelsInProgram(p, n - 1, ks, NULL) != CL_INVALID_VALUE)
      fz_fail("clCreateKernelsInProgram with room for one less kernel did "
              "not fail with CL_INVALID_VALUE");
    cl_uint got = 0;
    e = FZ_EXPECT("clCreateKernelsInProgram",
                  clCreateKernelsInProgram(p, n, ks, &got),
                  CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
    if (e == CL_SUCCESS) {
      if (got != n)
        fz_fail("clCreateKernelsInProgram made %u kernels of %u", got, n);
      for (cl_uint i = 0; i < n && i < 16; i++)
        query_kernel(ks[i], names);
      for (cl_uint i = 0; i < n; i++)
        clReleaseKernel(ks[i]);
    }
    free(ks);
  }
  static const char missing[] = "skein_fuzz_no_such_kernel";
  if (names && !in_list(names, missing)) {
    cl_int err;
    cl_kernel none = clCreateKernel(p, missing, &err);
    if (none || err != CL_INVALID_KERNEL_NAME)
      fz_fail("clCreateKernel of a missing name: %d", err);
  }
  free(names);
}
