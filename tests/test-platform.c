/* This file tests the platform entry points through the ICD loader:
 * clGetPlatformIDs, every clGetPlatformInfo query and its size/value
 * protocol, the cl_khr_icd functions reached through
 * clGetExtensionFunctionAddressForPlatform, invalid handles, the host
 * timers against the host's own CLOCK_MONOTONIC, the completeness of the
 * dispatch table and the errors of unsupported features. */
#include "test_util.h"
#include <CL/cl_ext.h>
#include <CL/cl_gl.h>
#include <CL/cl_icd.h>
#include <time.h>

/* An object that carries Skein's dispatch pointer but no valid type:
 * what a stale or forged handle looks like. The loader dispatches it to
 * Skein, which must reject it. */
typedef struct fake_object {
  const void *dispatch;
  unsigned type, refcount;
} fake_object;

static cl_platform_id platform;

/* Runs the size/value protocol on one query and returns its value in a
 * malloc'd buffer of *size bytes (NULL on failure). */
static void *query(cl_platform_info param, size_t *size) {
  *size = 0;
  cl_int err = clGetPlatformInfo(platform, param, 0, NULL, size);
  CHECK_EQ(err, CL_SUCCESS);
  if (err != CL_SUCCESS || *size == 0)
    return NULL;
  char *v = malloc(*size + 1);
  size_t got = 0;
  CHECK_EQ(clGetPlatformInfo(platform, param, *size, v, &got), CL_SUCCESS);
  CHECK_EQ(got, *size);
  /* A larger buffer than needed is fine and gives the same size. */
  char *big = malloc(*size + 16);
  CHECK_EQ(clGetPlatformInfo(platform, param, *size + 16, big, &got),
           CL_SUCCESS);
  CHECK_EQ(got, *size);
  CHECK(memcmp(big, v, *size) == 0);
  free(big);
  /* CL_INVALID_VALUE if param_value_size < size of return type. */
  CHECK_EQ(clGetPlatformInfo(platform, param, *size - 1, v, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetPlatformInfo(platform, param, 0, v, NULL), CL_INVALID_VALUE);
  /* Neither value nor size wanted is still a valid query. */
  CHECK_EQ(clGetPlatformInfo(platform, param, 0, NULL, NULL), CL_SUCCESS);
  return v;
}

/* Returns a query's string, checking it is NUL-terminated. */
static char *query_string(cl_platform_info param) {
  size_t size;
  char *s = query(param, &size);
  CHECK(s != NULL);
  if (!s)
    return strdup("");
  CHECK_EQ(s[size - 1], 0);
  CHECK_EQ(strlen(s), size - 1);
  return s;
}

static cl_ulong query_ulong(cl_platform_info param) {
  size_t size;
  cl_ulong *v = query(param, &size);
  CHECK_EQ(size, sizeof(cl_ulong));
  cl_ulong r = v ? *v : 0;
  free(v);
  return r;
}

static void test_strings(void) {
  char *s = query_string(CL_PLATFORM_NAME);
  CHECK(strcmp(s, "Skein") == 0);
  free(s);
  s = query_string(CL_PLATFORM_PROFILE);
  CHECK(strcmp(s, "FULL_PROFILE") == 0);
  free(s);
  s = query_string(CL_PLATFORM_VENDOR);
  CHECK(strlen(s) > 0);
  free(s);
  s = query_string(CL_PLATFORM_ICD_SUFFIX_KHR);
  CHECK(strcmp(s, "skein") == 0);
  free(s);
  /* "OpenCL<space><major.minor><space><platform-specific information>",
   * agreeing with CL_PLATFORM_NUMERIC_VERSION. */
  s = query_string(CL_PLATFORM_VERSION);
  int major = -1, minor = -1;
  CHECK_EQ(sscanf(s, "OpenCL %d.%d ", &major, &minor), 2);
  CHECK(strchr(s + 7, ' ') != NULL);
  size_t size;
  cl_version *nv = query(CL_PLATFORM_NUMERIC_VERSION, &size);
  CHECK_EQ(size, sizeof(cl_version));
  CHECK_EQ(CL_VERSION_MAJOR(*nv), major);
  CHECK_EQ(CL_VERSION_MINOR(*nv), minor);
  CHECK_EQ(major, 3);
  free(nv);
  free(s);
}

/* CL_PLATFORM_EXTENSIONS and CL_PLATFORM_EXTENSIONS_WITH_VERSION name the
 * same set, and cl_khr_icd is in it. */
static void test_extensions(void) {
  char *ext = query_string(CL_PLATFORM_EXTENSIONS);
  size_t size;
  cl_name_version *nv = query(CL_PLATFORM_EXTENSIONS_WITH_VERSION, &size);
  CHECK_EQ(size % sizeof(cl_name_version), 0);
  size_t n = size / sizeof(cl_name_version), words = 0;
  for (char *w = strtok(ext, " "); w; w = strtok(NULL, " ")) {
    words++;
    int found = 0;
    for (size_t i = 0; i < n; i++)
      found += strcmp(nv[i].name, w) == 0;
    CHECK_EQ(found, 1);
  }
  CHECK_EQ(words, n);
  int icd = 0;
  for (size_t i = 0; i < n; i++) {
    CHECK(memchr(nv[i].name, 0, CL_NAME_VERSION_MAX_NAME_SIZE) != NULL);
    icd += strcmp(nv[i].name, "cl_khr_icd") == 0;
  }
  CHECK_EQ(icd, 1);
  free(nv);
  free(ext);
}

static cl_ulong host_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (cl_ulong)ts.tv_sec * 1000000000u + (cl_ulong)ts.tv_nsec;
}

/* The timers read CLOCK_MONOTONIC: a reading lies between two host
 * readings taken around it. */
static void test_timers(cl_device_id device, fake_object *fake) {
  struct timespec res;
  clock_getres(CLOCK_MONOTONIC, &res);
  cl_ulong expect = (cl_ulong)res.tv_sec * 1000000000u + res.tv_nsec;
  CHECK_EQ(query_ulong(CL_PLATFORM_HOST_TIMER_RESOLUTION),
           expect ? expect : 1);
  cl_ulong h = 0, d = 0, before = host_ns();
  CHECK_EQ(clGetHostTimer(device, &h), CL_SUCCESS);
  cl_ulong mid = host_ns();
  CHECK_EQ(clGetDeviceAndHostTimer(device, &d, &h), CL_SUCCESS);
  cl_ulong after = host_ns();
  CHECK(before <= mid && mid <= h && h <= after);
  CHECK(mid <= d && d <= after);
  /* CL_INVALID_VALUE if host_timestamp or device_timestamp is NULL. */
  CHECK_EQ(clGetHostTimer(device, NULL), CL_INVALID_VALUE);
  CHECK_EQ(clGetDeviceAndHostTimer(device, NULL, &h), CL_INVALID_VALUE);
  CHECK_EQ(clGetDeviceAndHostTimer(device, &d, NULL), CL_INVALID_VALUE);
  /* CL_INVALID_DEVICE if device is not a valid device. */
  CHECK_EQ(clGetHostTimer((cl_device_id)fake, &h), CL_INVALID_DEVICE);
  CHECK_EQ(clGetDeviceAndHostTimer((cl_device_id)fake, &d, &h),
           CL_INVALID_DEVICE);
}

typedef cl_int(CL_API_CALL *icd_get_platforms_fn)(cl_uint, cl_platform_id *,
                                                   cl_uint *);

/* Skein's own clIcdGetPlatformIDsKHR, reached through the loader. */
static void test_icd_functions(void) {
  icd_get_platforms_fn get = (icd_get_platforms_fn)
      clGetExtensionFunctionAddressForPlatform(platform,
                                               "clIcdGetPlatformIDsKHR");
  CHECK(get != NULL);
  CHECK(clGetExtensionFunctionAddressForPlatform(platform, "clNoSuchKHR") ==
        NULL);
  if (!get)
    return;
  cl_platform_id p = NULL;
  cl_uint n = 0;
  CHECK_EQ(get(0, NULL, &n), CL_SUCCESS);
  CHECK_EQ(n, 1);
  CHECK_EQ(get(1, &p, NULL), CL_SUCCESS);
  CHECK(p == platform);
  /* CL_INVALID_VALUE if num_entries is zero and platforms is not NULL, or
   * if both num_platforms and platforms are NULL. */
  CHECK_EQ(get(0, &p, &n), CL_INVALID_VALUE);
  CHECK_EQ(get(1, NULL, NULL), CL_INVALID_VALUE);
}

/* Every slot of the dispatch table the platform handle points to is
 * filled, and the clGetPlatformInfo slot answers like the loader's call. */
static void test_dispatch_table(void) {
  const struct _cl_icd_dispatch *table =
      *(const struct _cl_icd_dispatch *const *)platform;
  void *const *slot = (void *const *)table;
  size_t n = sizeof *table / sizeof(void *), empty = 0;
  CHECK_EQ(n, 149);
  for (size_t i = 0; i < n; i++)
    if (!slot[i]) {
      fprintf(stderr, "dispatch slot %zu is NULL\n", i);
      empty++;
    }
  CHECK_EQ(empty, 0);
  char name[64] = "";
  CHECK_EQ(table->clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name,
                                    name, NULL),
           CL_SUCCESS);
  CHECK(strcmp(name, "Skein") == 0);
}

/* Features the device reports absent answer with the error the
 * specification names for that case (images: main turns them off with
 * SKEIN_IMAGES=0). */
static void test_unsupported(cl_device_id device) {
  cl_int err = 1;
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK_EQ(err, CL_SUCCESS);
  if (!ctx)
    return;
  cl_image_format fmt = {CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                        .image_width = 4, .image_height = 4};
  /* CL_INVALID_OPERATION if there are no devices in context that support
   * images. */
  err = 1;
  CHECK(clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err) ==
        NULL);
  CHECK_EQ(err, CL_INVALID_OPERATION);
  err = 1;
  CHECK(clCreateSampler(ctx, CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST,
                        &err) == NULL);
  CHECK_EQ(err, CL_INVALID_OPERATION);
  /* No image support: an empty format list, not an error. */
  cl_uint nfmt = 99;
  CHECK_EQ(clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY,
                                      CL_MEM_OBJECT_IMAGE2D, 0, NULL, &nfmt),
           CL_SUCCESS);
  CHECK_EQ(nfmt, 0);
  CHECK_EQ(clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY,
                                      CL_MEM_OBJECT_BUFFER, 0, NULL, &nfmt),
           CL_INVALID_VALUE);
  /* Pipes do not depend on images (tests/test-pipes.c tests them). */
  err = 1;
  cl_mem pipe = clCreatePipe(ctx, CL_MEM_READ_WRITE, 4, 16, NULL, &err);
  CHECK(pipe != NULL);
  CHECK_EQ(err, CL_SUCCESS);
  if (pipe)
    clReleaseMemObject(pipe);
  /* SVM does not depend on images either (tests/test-svm.c tests it). */
  int *svm = clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 0);
  CHECK(svm != NULL);
  if (svm)
    svm[15] = 1;
  clSVMFree(ctx, svm);
  /* CL_INVALID_CONTEXT if context was not created from a GL context. */
  err = 1;
  CHECK(clCreateFromGLBuffer(ctx, CL_MEM_READ_WRITE, 1, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  clReleaseContext(ctx);
}

int main(void) {
  /* Images are on by default; test_unsupported checks a device without
   * them. */
  setenv("SKEIN_IMAGES", "0", 1);
  cl_uint n = 0;
  REQUIRE_OK(clGetPlatformIDs(0, NULL, &n));
  CHECK(n >= 1);
  test_env env;
  memset(&env, 0, sizeof env);
  cl_platform_id first;
  REQUIRE_OK(clGetPlatformIDs(1, &first, NULL));
  platform = first;
  /* CL_INVALID_VALUE if num_entries is zero and platforms is not NULL,
   * or both are NULL (answered by the loader, which must agree). */
  CHECK_EQ(clGetPlatformIDs(0, &first, &n), CL_INVALID_VALUE);
  CHECK_EQ(clGetPlatformIDs(1, NULL, NULL), CL_INVALID_VALUE);

  test_strings();
  test_extensions();
  test_icd_functions();

  /* CL_INVALID_VALUE if param_name is not a supported value. */
  char buf[64];
  CHECK_EQ(clGetPlatformInfo(platform, 0xdead, sizeof buf, buf, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetPlatformInfo(platform, CL_DEVICE_NAME, sizeof buf, buf, NULL),
           CL_INVALID_VALUE);
  /* CL_INVALID_PLATFORM if platform is not a valid platform. */
  fake_object fake = {*(const void *const *)platform, 0, 1};
  CHECK_EQ(clGetPlatformInfo((cl_platform_id)&fake, CL_PLATFORM_NAME,
                             sizeof buf, buf, NULL),
           CL_INVALID_PLATFORM);
  CHECK(clGetExtensionFunctionAddressForPlatform(
            (cl_platform_id)&fake, "clIcdGetPlatformIDsKHR") == NULL);

  cl_device_id device;
  REQUIRE_OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &device, NULL));
  test_timers(device, &fake);
  test_dispatch_table();
  test_unsupported(device);
  return test_finish("platform");
}
