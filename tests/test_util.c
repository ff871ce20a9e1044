/* This file contains the helpers shared by every test. */
#define _GNU_SOURCE /* setenv, strndup */
#include "test_util.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int test_failures;

cl_mem test_buffer(test_env *env, size_t size, void *data) {
  cl_int err;
  cl_mem m = clCreateBuffer(env->context,
                            CL_MEM_READ_WRITE |
                                (data ? CL_MEM_COPY_HOST_PTR : 0),
                            size, data, &err);
  REQUIRE_OK(err);
  return m;
}

void test_run_1d(test_env *env, cl_program prog, const char *name,
                 size_t global, const cl_mem *args, cl_uint nargs) {
  cl_int err;
  cl_kernel k = clCreateKernel(prog, name, &err);
  REQUIRE_OK(err);
  for (cl_uint i = 0; i < nargs; i++)
    REQUIRE_OK(clSetKernelArg(k, i, sizeof(cl_mem), &args[i]));
  REQUIRE_OK(clEnqueueNDRangeKernel(env->queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  REQUIRE_OK(clFinish(env->queue));
  REQUIRE_OK(clReleaseKernel(k));
}

void test_release_buffers(cl_mem *m, int n) {
  for (int i = 0; i < n; i++)
    REQUIRE_OK(clReleaseMemObject(m[i]));
}

static unsigned long long rand_state = 0x9e3779b97f4a7c15ull;

void test_seed(unsigned long long seed) {
  rand_state = seed ? seed : 0x9e3779b97f4a7c15ull;
}

unsigned long long test_rand(void) {
  rand_state ^= rand_state << 13;
  rand_state ^= rand_state >> 7;
  rand_state ^= rand_state << 17;
  return rand_state;
}

void test_setup(test_env *env) {
  cl_uint n = 0;
  REQUIRE_OK(clGetPlatformIDs(1, &env->platform, &n));
  char name[256];
  REQUIRE_OK(clGetPlatformInfo(env->platform, CL_PLATFORM_NAME, sizeof name,
                               name, NULL));
  if (strcmp(name, "Skein") != 0) {
    fprintf(stderr, "first platform is '%s', not Skein\n", name);
    exit(1);
  }
  REQUIRE_OK(clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_CPU, 1,
                            &env->device, NULL));
  cl_int err;
  env->context = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
  REQUIRE_OK(err);
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                 CL_QUEUE_PROFILING_ENABLE, 0};
  env->queue = clCreateCommandQueueWithProperties(env->context, env->device,
                                                  props, &err);
  REQUIRE_OK(err);
}

void test_teardown(test_env *env) {
  REQUIRE_OK(clFinish(env->queue));
  REQUIRE_OK(clReleaseCommandQueue(env->queue));
  REQUIRE_OK(clReleaseContext(env->context));
}

cl_program test_build(test_env *env, const char *source, const char *options) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(env->context, 1, &source, NULL, &err);
  REQUIRE_OK(err);
  err = clBuildProgram(p, 1, &env->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[16384] = "";
    clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                          NULL);
    fprintf(stderr, "build failed (%d):\n%s\n", err, log);
    exit(1);
  }
  return p;
}

void test_capture_begin(test_capture *c) {
  fflush(stderr);
  c->tmp = tmpfile();
  c->saved = dup(2);
  if (c->tmp)
    dup2(fileno(c->tmp), 2);
}

char *test_capture_end(test_capture *c) {
  fflush(stderr);
  dup2(c->saved, 2);
  close(c->saved);
  if (!c->tmp)
    return calloc(1, 1);
  long len = ftell(c->tmp);
  char *text = calloc((size_t)(len > 0 ? len : 0) + 1, 1);
  rewind(c->tmp);
  if (len > 0 && fread(text, 1, (size_t)len, c->tmp) != (size_t)len)
    text[0] = 0;
  fclose(c->tmp);
  return text;
}

int test_finish(const char *name) {
  if (test_failures) {
    fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
    return 1;
  }
  printf("%s: all checks passed\n", name);
  return 0;
}

/* Whether SKEIN_TARGET_FEATURES has the entry "-name". */
static bool turned_off(const char *name) {
  const char *env = getenv("SKEIN_TARGET_FEATURES");
  size_t len = strlen(name);
  for (const char *p = env; p && *p;) {
    size_t n = strcspn(p, ",");
    if (n == len + 1 && p[0] == '-' && strncmp(p + 1, name, len) == 0)
      return true;
    p += n + (p[n] == ',');
  }
  return false;
}

size_t test_expected_sub_group_size(void) {
  __builtin_cpu_init();
  bool avx = __builtin_cpu_supports("avx") && !turned_off("avx");
  if (avx && __builtin_cpu_supports("avx512f") && !turned_off("avx512f"))
    return 16;
  return avx ? 8 : 4;
}

/* How many entries of the cl_name_version list query param are named
 * name (with that version unless it is 0). */
static int name_version_count(test_env *env, cl_device_info param,
                              const char *name, cl_version version) {
  size_t size = 0;
  REQUIRE_OK(clGetDeviceInfo(env->device, param, 0, NULL, &size));
  cl_name_version *f = malloc(size ? size : 1);
  REQUIRE_OK(clGetDeviceInfo(env->device, param, size, f, NULL));
  int found = 0;
  for (size_t i = 0; i < size / sizeof *f; i++)
    found += strcmp(f[i].name, name) == 0 &&
             (version == 0 || f[i].version == version);
  free(f);
  return found;
}

int test_c_feature_count(test_env *env, const char *name,
                         cl_version version) {
  return name_version_count(env, CL_DEVICE_OPENCL_C_FEATURES, name, version);
}

int test_extension_count(test_env *env, const char *name,
                         cl_version version) {
  return name_version_count(env, CL_DEVICE_EXTENSIONS_WITH_VERSION, name,
                            version);
}

int test_extension_listed(test_env *env, const char *name) {
  size_t size = 0;
  REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, 0, NULL,
                             &size));
  char *list = malloc(size + 1);
  REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, size, list,
                             NULL));
  list[size] = 0;
  size_t n = strlen(name);
  int listed = 0;
  for (const char *p = list; !listed && (p = strstr(p, name)); p += n)
    listed = (p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0');
  free(list);
  return listed;
}

int test_device_is_3_1(test_env *env) {
  char version[64] = "";
  REQUIRE_OK(clGetDeviceInfo(env->device, CL_DEVICE_VERSION, sizeof version,
                             version, NULL));
  return strncmp(version, "OpenCL 3.1 ", 11) == 0;
}

cl_program test_build_spirv_file(test_env *env, const char *dir,
                                 const char *name) {
  size_t size;
  void *il = test_read_file(dir, name, &size);
  if (!il) {
    fprintf(stderr, "missing %s/%s\n", dir, name);
    exit(1);
  }
  cl_int err;
  cl_program p = clCreateProgramWithIL(env->context, il, size, &err);
  free(il);
  REQUIRE_OK(err);
  err = clBuildProgram(p, 1, &env->device, "", NULL, NULL);
  if (err != CL_SUCCESS) {
    static char log[16384];
    log[0] = '\0';
    clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, sizeof log,
                          log, NULL);
    fprintf(stderr, "%s: build failed (%d):\n%s\n", name, err, log);
    exit(1);
  }
  return p;
}

void *test_read_file(const char *dir, const char *name, size_t *size) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  if (buf)
    buf[n] = '\0';
  fclose(f);
  *size = buf ? (size_t)n : 0;
  return buf;
}

char *test_run_child(const char *self, const char *arg) {
  char path[] = "/tmp/skein-test-child-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0)
    return NULL;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd, 2);
    execl(self, self, "--child", arg, (char *)NULL);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  char *text = NULL;
  FILE *f = fdopen(fd, "r");
  if (f) {
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    text = calloc(1, (size_t)(size > 0 ? size : 0) + 1);
    if (text && size > 0 && fread(text, 1, (size_t)size, f) != (size_t)size) {
      free(text);
      text = NULL;
    }
    fclose(f);
  } else {
    close(fd);
  }
  unlink(path);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "%s: child failed (status %d)\n", arg, status);
    free(text);
    return NULL;
  }
  return text;
}

char *test_wg_function_ir(const char *ir, const char *name) {
  char head[128];
  snprintf(head, sizeof head, "@__skein_wg_%s(", name);
  for (const char *p = strstr(ir, head); p; p = strstr(p + 1, head)) {
    const char *line = p;
    while (line > ir && line[-1] != '\n')
      line--;
    if (strncmp(line, "define ", 7) != 0)
      continue;
    const char *end = strstr(p, "\n}\n");
    return end ? strndup(line, (size_t)(end - line)) : NULL;
  }
  return NULL;
}

bool test_mode_says(const char *out, const char *what, const char *name,
                    const char *text) {
  char head[128];
  snprintf(head, sizeof head, "skein: %s%s%s: ", what, *what ? " " : "",
           name);
  for (const char *p = strstr(out, head); p; p = strstr(p + 1, head)) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    char line[512];
    snprintf(line, sizeof line, "%.*s", (int)(len < 511 ? len : 511), p);
    if (strstr(line, text))
      return true;
  }
  return false;
}

unsigned test_count(const char *text, const char *needle) {
  unsigned n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

int test_build_child(const char *cpu, const char *dump, const char *source) {
  setenv("SKEIN_CPU", cpu, 1);
  setenv("SKEIN_DUMP", dump, 1);
  cl_platform_id platform;
  cl_device_id device;
  if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, NULL) !=
          CL_SUCCESS)
    return 2;
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  err = clBuildProgram(prog, 1, &device, "", NULL, NULL);
  char log[4096] = "";
  clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, sizeof log, log,
                        NULL);
  fprintf(stderr, "\nchild-build-status %d\nchild-build-log %s\n", err,
          log);
  clReleaseProgram(prog);
  clReleaseContext(ctx);
  return 0;
}
