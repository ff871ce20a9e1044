/* Tests images in kernels (issue 9, phase 2) with SKEIN_IMAGES=1: image
 * and sampler kernel arguments (clSetKernelArg's checks and error codes,
 * kernel argument info) and kernels that launch with them. */
#include "test_util.h"
#include <stdbool.h>
#include <stdint.h>

static test_env env;

static cl_mem make_image(cl_mem_object_type type, cl_mem_flags flags,
                         cl_channel_order order, cl_channel_type dtype,
                         size_t w, size_t h, size_t d, const void *pixels) {
  cl_image_format f = {order, dtype};
  size_t array = type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? h
                 : type == CL_MEM_OBJECT_IMAGE2D_ARRAY ? d
                                                       : 0;
  cl_image_desc desc = {type, w, h, d, array, 0, 0, 0, 0, {NULL}};
  cl_int err;
  cl_mem m = clCreateImage(env.context,
                           flags | (pixels ? CL_MEM_COPY_HOST_PTR : 0), &f,
                           &desc, (void *)pixels, &err);
  REQUIRE_OK(err);
  return m;
}

static cl_sampler make_sampler(cl_bool norm, cl_addressing_mode am,
                               cl_filter_mode fm) {
  cl_int err;
  cl_sampler s = clCreateSampler(env.context, norm, am, fm, &err);
  REQUIRE_OK(err);
  return s;
}

/* ---- Arguments ---------------------------------------------------------- */

static const char *args_src =
    "kernel void k(read_only image2d_t a, write_only image2d_t b,\n"
    "              read_write image3d_t c, sampler_t s, global int *out,\n"
    "              __read_only image1d_buffer_t d, image2d_array_t e) {\n"
    "  out[get_global_id(0)] = 7;\n"
    "}\n";

/* Argument info of image and sampler arguments: type names, access and
 * address qualifiers. */
static void test_arg_info(cl_kernel k) {
  static const struct {
    const char *type;
    cl_kernel_arg_access_qualifier access;
    cl_kernel_arg_address_qualifier address;
  } want[] = {
      {"image2d_t", CL_KERNEL_ARG_ACCESS_READ_ONLY,
       CL_KERNEL_ARG_ADDRESS_GLOBAL},
      {"image2d_t", CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
       CL_KERNEL_ARG_ADDRESS_GLOBAL},
      {"image3d_t", CL_KERNEL_ARG_ACCESS_READ_WRITE,
       CL_KERNEL_ARG_ADDRESS_GLOBAL},
      {"sampler_t", CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_ADDRESS_PRIVATE},
      {"int*", CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_ADDRESS_GLOBAL},
      {"image1d_buffer_t", CL_KERNEL_ARG_ACCESS_READ_ONLY,
       CL_KERNEL_ARG_ADDRESS_GLOBAL},
      {"image2d_array_t", CL_KERNEL_ARG_ACCESS_READ_ONLY,
       CL_KERNEL_ARG_ADDRESS_GLOBAL},
  };
  for (cl_uint i = 0; i < sizeof want / sizeof want[0]; i++) {
    char name[64] = "";
    REQUIRE_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof name,
                                  name, NULL));
    if (strcmp(name, want[i].type) != 0) {
      fprintf(stderr, "arg %u: type name %s, want %s\n", i, name,
              want[i].type);
      test_failures++;
    }
    cl_kernel_arg_access_qualifier access;
    REQUIRE_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER,
                                  sizeof access, &access, NULL));
    CHECK_EQ(access, want[i].access);
    cl_kernel_arg_address_qualifier address;
    REQUIRE_OK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                                  sizeof address, &address, NULL));
    CHECK_EQ(address, want[i].address);
  }
}

/* clSetKernelArg's answers for every wrong kind of object, then a launch
 * with every argument right. */
static void test_args(void) {
  cl_program p = test_build(&env, args_src, "-cl-kernel-arg-info -cl-std=CL3.0");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "k", &err);
  REQUIRE_OK(err);
  test_arg_info(k);

  cl_mem img2 = make_image(CL_MEM_OBJECT_IMAGE2D, 0, CL_RGBA, CL_UNORM_INT8,
                           4, 4, 1, NULL);
  cl_mem img2_ro = make_image(CL_MEM_OBJECT_IMAGE2D, CL_MEM_READ_ONLY,
                              CL_RGBA, CL_UNORM_INT8, 4, 4, 1, NULL);
  cl_mem img2_wo = make_image(CL_MEM_OBJECT_IMAGE2D, CL_MEM_WRITE_ONLY,
                              CL_RGBA, CL_UNORM_INT8, 4, 4, 1, NULL);
  cl_mem img3 = make_image(CL_MEM_OBJECT_IMAGE3D, 0, CL_R, CL_FLOAT, 4, 4, 4,
                           NULL);
  cl_mem arr = make_image(CL_MEM_OBJECT_IMAGE2D_ARRAY, 0, CL_R, CL_FLOAT, 4,
                          4, 2, NULL);
  cl_mem buf = test_buffer(&env, 64 * sizeof(int), NULL);
  cl_image_format f = {CL_R, CL_FLOAT};
  cl_image_desc bd = {CL_MEM_OBJECT_IMAGE1D_BUFFER, 16, 1, 1, 0, 0, 0, 0, 0,
                      {buf}};
  cl_mem img1b = clCreateImage(env.context, 0, &f, &bd, NULL, &err);
  REQUIRE_OK(err);
  cl_sampler s = make_sampler(CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
  cl_mem null_mem = NULL;

  /* Images: a buffer, NULL, a sampler, another image type. */
  CHECK_EQ(clSetKernelArg(k, 0, sizeof buf, &buf), CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clSetKernelArg(k, 0, sizeof null_mem, &null_mem),
           CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clSetKernelArg(k, 0, sizeof(cl_mem), NULL), CL_INVALID_ARG_VALUE);
  CHECK_EQ(clSetKernelArg(k, 0, sizeof s, &s), CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clSetKernelArg(k, 0, sizeof img3, &img3), CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clSetKernelArg(k, 2, sizeof img2, &img2), CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clSetKernelArg(k, 5, sizeof img2, &img2), CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clSetKernelArg(k, 6, sizeof img2, &img2), CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clSetKernelArg(k, 0, sizeof img2 - 1, &img2), CL_INVALID_ARG_SIZE);
  /* Access: a read_only argument takes no CL_MEM_WRITE_ONLY image, a
   * write_only one no CL_MEM_READ_ONLY image. */
  CHECK_EQ(clSetKernelArg(k, 0, sizeof img2_wo, &img2_wo),
           CL_INVALID_ARG_VALUE);
  CHECK_EQ(clSetKernelArg(k, 1, sizeof img2_ro, &img2_ro),
           CL_INVALID_ARG_VALUE);
  /* Buffers take no image. */
  CHECK_EQ(clSetKernelArg(k, 4, sizeof img2, &img2), CL_INVALID_MEM_OBJECT);
  /* Samplers: an image, NULL, the wrong size. */
  CHECK_EQ(clSetKernelArg(k, 3, sizeof img2, &img2), CL_INVALID_SAMPLER);
  CHECK_EQ(clSetKernelArg(k, 3, sizeof s, NULL), CL_INVALID_SAMPLER);
  CHECK_EQ(clSetKernelArg(k, 3, sizeof s - 1, &s), CL_INVALID_ARG_SIZE);

  /* Right: then a launch, with the sampler already released (the
   * argument keeps its value). */
  CHECK_EQ(clSetKernelArg(k, 0, sizeof img2_ro, &img2_ro), CL_SUCCESS);
  CHECK_EQ(clSetKernelArg(k, 1, sizeof img2_wo, &img2_wo), CL_SUCCESS);
  CHECK_EQ(clSetKernelArg(k, 2, sizeof img3, &img3), CL_SUCCESS);
  CHECK_EQ(clSetKernelArg(k, 3, sizeof s, &s), CL_SUCCESS);
  CHECK_EQ(clSetKernelArg(k, 4, sizeof buf, &buf), CL_SUCCESS);
  CHECK_EQ(clSetKernelArg(k, 5, sizeof img1b, &img1b), CL_SUCCESS);
  CHECK_EQ(clSetKernelArg(k, 6, sizeof arr, &arr), CL_SUCCESS);
  REQUIRE_OK(clReleaseSampler(s));
  size_t global = 64;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, NULL, 0,
                                    NULL, NULL));
  int out[64];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, buf, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  for (int i = 0; i < 64; i++)
    CHECK_EQ(out[i], 7);

  cl_mem all[] = {img2, img2_ro, img2_wo, img3, arr, img1b, buf};
  test_release_buffers(all, (int)(sizeof all / sizeof all[0]));
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseProgram(p));
}

int main(void) {
  setenv("SKEIN_IMAGES", "1", 1);
  test_setup(&env);
  test_args();
  test_teardown(&env);
  return test_finish("test-images-kernels");
}
