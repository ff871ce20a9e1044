/* Tests images in kernels (issue 9, phase 2): image
 * and sampler kernel arguments (clSetKernelArg's checks and error codes,
 * kernel argument info); the image queries of every type; read_image*
 * and write_image* of every supported format class against host
 * references of the Conversion Rules; sampling with every addressing
 * mode, normalised and unnormalised coordinates, nearest and linear
 * filtering on edge coordinates (-1, 0, w-1, w, 1.5w and between) of 1D,
 * 1D array, 2D, 2D array and 3D images against a host implementation of
 * "Image Addressing and Filtering"; sampler constants of the program;
 * writes of every type (dropped outside the image); read_write images; a
 * barrier kernel. The kernel tests run in the default mode, fiber mode
 * and loop mode (SKEIN_MODE). Sampled and written images use the
 * application's memory (CL_MEM_USE_HOST_PTR) placed against an
 * inaccessible page, once ending at it and once starting after it, so
 * that kernel code (which no sanitizer sees) touching a byte outside an
 * image crashes the test. */
#include "test_util.h"
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static test_env env;

/* Where guarded_alloc puts a block: against the inaccessible page after
 * it (true) or the one before it. */
static bool guard_at_end = true;

/* size bytes of zeroed memory with an inaccessible page right after or
 * right before them (guard_at_end); release with guarded_free. */
static void *guarded_alloc(size_t size) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t body = (size + page - 1) / page * page;
  char *map = mmap(NULL, body + 2 * page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  mprotect(map, page, PROT_NONE);
  mprotect(map + page + body, page, PROT_NONE);
  /* Floats and pixels stay 4-byte aligned: sizes here are multiples. */
  return guard_at_end ? map + page + body - size : map + page;
}

static void guarded_free(void *p, size_t size) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t body = (size + page - 1) / page * page;
  char *start = (char *)((uintptr_t)p / page * page);
  munmap(start - page, body + 2 * page);
}

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
  /* What the device reports with images on: the OpenCL C features that
   * let programs use image types and builtins, and the extensions. */
  static const char *const want_features[] = {
      "__opencl_c_images", "__opencl_c_read_write_images",
      "__opencl_c_3d_image_writes"};
  for (int w = 0; w < 3; w++) {
    if (test_c_feature_count(&env, want_features[w], 0) == 0) {
      fprintf(stderr, "feature %s not reported\n", want_features[w]);
      test_failures++;
    }
  }
  char ext[4096];
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof ext,
                             ext, NULL));
  CHECK(strstr(ext, "cl_khr_3d_image_writes") != NULL);
  CHECK(strstr(ext, "cl_khr_depth_images") != NULL);

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

/* A buffer argument whose struct type's name begins with "image" (as
 * the conformance suite's image query kernels declare theirs) is a
 * buffer argument, not an image one: it takes a buffer, and the kernel
 * writes through it. */
static const char *struct_arg_src =
    "typedef struct { int width, order; } image_kernel_data;\n"
    "kernel void k(read_only image1d_t in, global image_kernel_data *o) {\n"
    "  o->width = get_image_width(in);\n"
    "  o->order = get_image_channel_order(in);\n"
    "}\n";

static void test_struct_arg(void) {
  cl_program p = test_build(&env, struct_arg_src, "-cl-std=CL3.0");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "k", &err);
  REQUIRE_OK(err);
  cl_mem img = make_image(CL_MEM_OBJECT_IMAGE1D, CL_MEM_READ_ONLY, CL_RG,
                          CL_UNORM_INT8, 29, 1, 1, NULL);
  cl_mem buf = test_buffer(&env, 2 * sizeof(int), NULL);
  CHECK_EQ(clSetKernelArg(k, 0, sizeof img, &img), CL_SUCCESS);
  CHECK_EQ(clSetKernelArg(k, 1, sizeof buf, &buf), CL_SUCCESS);
  /* And it takes no image. */
  CHECK_EQ(clSetKernelArg(k, 1, sizeof img, &img), CL_INVALID_MEM_OBJECT);
  CHECK_EQ(clSetKernelArg(k, 1, sizeof buf, &buf), CL_SUCCESS);
  size_t one = 1;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &one, NULL, 0,
                                    NULL, NULL));
  int out[2] = {0, 0};
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, buf, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  CHECK_EQ(out[0], 29);
  CHECK_EQ(out[1], CL_RG);
  cl_mem all[] = {img, buf};
  test_release_buffers(all, 2);
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseProgram(p));
}

/* ---- Kernels ------------------------------------------------------------ */

static const char *kernels_src =
    "#define I get_global_id(0)\n"
    "constant sampler_t prog_s = CLK_NORMALIZED_COORDS_TRUE |\n"
    "    CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_NEAREST;\n"
    "kernel void s1d(read_only image1d_t im, sampler_t s,\n"
    "                global const float4 *c, global float4 *o) {\n"
    "  o[I] = read_imagef(im, s, c[I].x);\n"
    "}\n"
    "kernel void s1da(read_only image1d_array_t im, sampler_t s,\n"
    "                 global const float4 *c, global float4 *o) {\n"
    "  o[I] = read_imagef(im, s, c[I].xy);\n"
    "}\n"
    "kernel void s2d(read_only image2d_t im, sampler_t s,\n"
    "                global const float4 *c, global float4 *o) {\n"
    "  o[I] = read_imagef(im, s, c[I].xy);\n"
    "}\n"
    "kernel void s2da(read_only image2d_array_t im, sampler_t s,\n"
    "                 global const float4 *c, global float4 *o) {\n"
    "  o[I] = read_imagef(im, s, c[I]);\n"
    "}\n"
    "kernel void s3d(read_only image3d_t im, sampler_t s,\n"
    "                global const float4 *c, global float4 *o) {\n"
    "  o[I] = read_imagef(im, s, c[I]);\n"
    "}\n"
    /* Integer coordinates with a sampler, and integer results. */
    "kernel void s2d_int(read_only image2d_t im, sampler_t s,\n"
    "                    global const int4 *c, global float4 *o) {\n"
    "  o[I] = read_imagef(im, s, c[I].xy);\n"
    "}\n"
    "kernel void s3d_int(read_only image3d_t im, sampler_t s,\n"
    "                    global const int4 *c, global float4 *o) {\n"
    "  o[I] = read_imagef(im, s, c[I]);\n"
    "}\n"
    "kernel void s2d_ui(read_only image2d_t im, sampler_t s,\n"
    "                   global const float4 *c, global uint4 *o) {\n"
    "  o[I] = read_imageui(im, s, c[I].xy);\n"
    "}\n"
    /* The program's sampler constants: program scope and kernel scope. */
    "kernel void s2d_const(read_only image2d_t im, global const float4 *c,\n"
    "                      global float4 *o) {\n"
    "  const sampler_t ks = CLK_NORMALIZED_COORDS_FALSE |\n"
    "      CLK_ADDRESS_CLAMP | CLK_FILTER_LINEAR;\n"
    "  o[2 * I] = read_imagef(im, prog_s, c[I].xy);\n"
    "  o[2 * I + 1] = read_imagef(im, ks, c[I].xy);\n"
    "}\n"
    /* Sampler-less reads and writes of every pixel (2D range). */
    "#define P (int2)(get_global_id(0), get_global_id(1))\n"
    "#define LIN (get_global_id(1) * get_global_size(0) + get_global_id(0))\n"
    "kernel void rd_f(read_only image2d_t im, global float4 *o) {\n"
    "  o[LIN] = read_imagef(im, P);\n"
    "}\n"
    "kernel void rd_i(read_only image2d_t im, global int4 *o) {\n"
    "  o[LIN] = read_imagei(im, P);\n"
    "}\n"
    "kernel void rd_ui(read_only image2d_t im, global uint4 *o) {\n"
    "  o[LIN] = read_imageui(im, P);\n"
    "}\n"
    "kernel void wr_f(write_only image2d_t im, global const float4 *v) {\n"
    "  write_imagef(im, P, v[LIN]);\n"
    "}\n"
    "kernel void wr_i(write_only image2d_t im, global const int4 *v) {\n"
    "  write_imagei(im, P, v[LIN]);\n"
    "}\n"
    "kernel void wr_ui(write_only image2d_t im, global const uint4 *v) {\n"
    "  write_imageui(im, P, v[LIN]);\n"
    "}\n"
    /* Writes of each type at listed coordinates (some outside). */
    "kernel void w1d(write_only image1d_t im, global const int4 *c,\n"
    "                global const float4 *v) {\n"
    "  write_imagef(im, c[I].x, v[I]);\n"
    "}\n"
    "kernel void w1db(write_only image1d_buffer_t im, global const int4 *c,\n"
    "                 global const float4 *v) {\n"
    "  write_imagef(im, c[I].x, v[I]);\n"
    "}\n"
    "kernel void w1da(write_only image1d_array_t im, global const int4 *c,\n"
    "                 global const float4 *v) {\n"
    "  write_imagef(im, c[I].xy, v[I]);\n"
    "}\n"
    "kernel void w2da(write_only image2d_array_t im, global const int4 *c,\n"
    "                 global const float4 *v) {\n"
    "  write_imagef(im, c[I], v[I]);\n"
    "}\n"
    "kernel void w3d(write_only image3d_t im, global const int4 *c,\n"
    "                global const float4 *v) {\n"
    "  write_imagef(im, c[I], v[I]);\n"
    "}\n"
    /* Sampler-less reads of each type at listed coordinates. */
    "kernel void r1d(read_only image1d_t im, global const int4 *c,\n"
    "                global float4 *o) {\n"
    "  o[I] = read_imagef(im, c[I].x);\n"
    "}\n"
    "kernel void r1db(read_only image1d_buffer_t im, global const int4 *c,\n"
    "                 global float4 *o) {\n"
    "  o[I] = read_imagef(im, c[I].x);\n"
    "}\n"
    "kernel void r1da(read_only image1d_array_t im, global const int4 *c,\n"
    "                 global float4 *o) {\n"
    "  o[I] = read_imagef(im, c[I].xy);\n"
    "}\n"
    "kernel void r2da(read_only image2d_array_t im, global const int4 *c,\n"
    "                 global float4 *o) {\n"
    "  o[I] = read_imagef(im, c[I]);\n"
    "}\n"
    "kernel void r3d(read_only image3d_t im, global const int4 *c,\n"
    "                global float4 *o) {\n"
    "  o[I] = read_imagef(im, c[I]);\n"
    "}\n"
    /* read_imageh and write_imageh. */
    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
    "kernel void half_copy(read_only image2d_t a, write_only image2d_t b) {\n"
    "  write_imageh(b, P, read_imageh(a, P));\n"
    "}\n"
    /* A read_write image: each work-item increments its own pixel. */
    "kernel void rw_inc(read_write image2d_t im) {\n"
    "  uint4 v = read_imageui(im, P);\n"
    "  atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, memory_order_acq_rel,\n"
    "                         memory_scope_work_item);\n"
    "  write_imageui(im, P, v + (uint4)(1, 2, 3, 4));\n"
    "}\n"
    /* A barrier between a read and a write (region or fiber mode): each
     * row of a group is written reversed. */
    "kernel void flip(read_only image2d_t a, write_only image2d_t b,\n"
    "                 local float4 *tmp) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  tmp[l] = read_imagef(a, P);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  write_imagef(b, P, tmp[n - 1 - l]);\n"
    "}\n"
    /* Queries of every type. */
    "kernel void queries(read_only image1d_t a, read_only image1d_buffer_t b,\n"
    "                    read_only image1d_array_t c, write_only image2d_t d,\n"
    "                    read_write image2d_array_t e, read_only image3d_t f,\n"
    "                    global int *o) {\n"
    "  o[0] = get_image_width(a); o[1] = get_image_channel_order(a);\n"
    "  o[2] = get_image_channel_data_type(a);\n"
    "  o[3] = get_image_width(b); o[4] = get_image_channel_order(b);\n"
    "  o[5] = get_image_width(c); o[6] = (int)get_image_array_size(c);\n"
    "  o[7] = get_image_width(d); o[8] = get_image_height(d);\n"
    "  o[9] = get_image_dim(d).x; o[10] = get_image_dim(d).y;\n"
    "  o[11] = get_image_channel_data_type(d);\n"
    "  o[12] = get_image_width(e); o[13] = get_image_height(e);\n"
    "  o[14] = (int)get_image_array_size(e); o[15] = get_image_dim(e).y;\n"
    "  int4 dim = get_image_dim(f);\n"
    "  o[16] = get_image_width(f); o[17] = get_image_height(f);\n"
    "  o[18] = get_image_depth(f); o[19] = dim.x; o[20] = dim.y;\n"
    "  o[21] = dim.z; o[22] = dim.w;\n"
    "}\n"
    /* Depth images: a sampled read and a write of one float. */
    "kernel void depth(read_only image2d_depth_t d, sampler_t s,\n"
    "                  write_only image2d_depth_t w,\n"
    "                  global const float4 *c, global float *o) {\n"
    "  o[I] = read_imagef(d, s, c[I].xy);\n"
    "  write_imagef(w, (int2)(I % 4, I / 4 % 3), o[I] * 0.5f);\n"
    "}\n"
    /* Image to image, one pixel per work-item, the read shifted one
     * pixel left and clamped to the edge, as a filter reads: the work-item
     * loop that the compiler versions on the format (test_copies). */
    "kernel void copy_shifted(read_only image2d_t in,\n"
    "                         write_only image2d_t out) {\n"
    "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE |\n"
    "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imagef(out, c, read_imagef(in, s, c - (int2)(1, 0)));\n"
    "}\n"
    "kernel void copy_plain(read_only image2d_t in,\n"
    "                       write_only image2d_t out) {\n"
    "  int2 c = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imagef(out, c, read_imagef(in, c) * 0.5f);\n"
    "}\n";

/* The program of kernels_src, built in the current SKEIN_MODE. */
static cl_program kernels;

static cl_kernel kernel(const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(kernels, name, &err);
  REQUIRE_OK(err);
  return k;
}

/* Sets kernel k's arguments: n cl_mem / cl_sampler handles (all
 * pointer-sized) in order. */
static void set_args(cl_kernel k, int n, const void *const *handles) {
  for (int i = 0; i < n; i++)
    REQUIRE_OK(clSetKernelArg(k, (cl_uint)i, sizeof(void *), handles[i]));
}

/* Runs k over global[0..dims) work-items (driver's local size) and
 * waits. */
static void run(cl_kernel k, cl_uint dims, const size_t *global) {
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, dims, NULL, global, NULL,
                                    0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
}

static void read_buffer(cl_mem b, size_t size, void *out) {
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, b, CL_TRUE, 0, size, out, 0,
                                 NULL, NULL));
}

/* ---- Sampling: the host reference ---------------------------------------- */

/* An image as the sampler sees it: extents along x, y and z (z is a 3D
 * image's depth or an array's layers; a 1D array's layer is z here), how
 * many axes are addressed, and whether z is a layer. */
typedef struct shape {
  cl_mem_object_type type;
  int n[3];
  int dims;
  bool layered;
} shape;

/* The pixel of a float RGBA test image at (x, y, z): distinct and exact. */
static void ref_pixel(int x, int y, int z, float out[4]) {
  out[0] = (float)(x + 1);
  out[1] = (float)(y + 1);
  out[2] = (float)(z + 1);
  out[3] = (float)(100 + x + 10 * y + 100 * z);
}

/* One axis of "Image Addressing and Filtering": the pixel (nearest: i0)
 * or pixels and weight (linear: i0, i1, a) that coordinate c selects
 * among n. */
typedef struct ref_axis_t {
  int i0, i1;
  float a;
} ref_axis_t;

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static int ref_mode(cl_addressing_mode am, int i, int n) {
  if (am == CL_ADDRESS_CLAMP_TO_EDGE)
    return clampi(i, 0, n - 1);
  if (am == CL_ADDRESS_CLAMP)
    return clampi(i, -1, n);
  return i;
}

static ref_axis_t ref_axis(bool norm, cl_addressing_mode am, bool linear,
                           float c, int n) {
  ref_axis_t r = {0, 0, 0.0f};
  float nf = (float)n;
  if (am == CL_ADDRESS_REPEAT) {
    float u = (c - floorf(c)) * nf;
    if (!linear) {
      r.i0 = (int)floorf(u);
      if (r.i0 > n - 1)
        r.i0 -= n;
    } else {
      r.i0 = (int)floorf(u - 0.5f);
      r.i1 = r.i0 + 1;
      if (r.i0 < 0)
        r.i0 += n;
      if (r.i1 > n - 1)
        r.i1 -= n;
      r.a = (u - 0.5f) - floorf(u - 0.5f);
    }
    return r;
  }
  if (am == CL_ADDRESS_MIRRORED_REPEAT) {
    float s = fabsf(c - 2.0f * rintf(0.5f * c));
    float u = s * nf;
    if (!linear) {
      r.i0 = (int)floorf(u);
      if (r.i0 > n - 1)
        r.i0 = n - 1;
    } else {
      r.i0 = (int)floorf(u - 0.5f);
      r.i1 = r.i0 + 1;
      r.i0 = r.i0 < 0 ? 0 : r.i0;
      r.i1 = r.i1 > n - 1 ? n - 1 : r.i1;
      r.a = (u - 0.5f) - floorf(u - 0.5f);
    }
    return r;
  }
  float u = norm ? c * nf : c;
  if (!linear) {
    r.i0 = ref_mode(am, (int)floorf(u), n);
  } else {
    r.i0 = ref_mode(am, (int)floorf(u - 0.5f), n);
    r.i1 = ref_mode(am, (int)floorf(u - 0.5f) + 1, n);
    r.a = (u - 0.5f) - floorf(u - 0.5f);
  }
  return r;
}

/* The colour at pixel p of the test image, or the border colour (alpha
 * 0: RGBA) outside; *outside notes a pixel outside the image. */
static void ref_texel(const shape *sh, const int p[3], float out[4],
                      bool *outside) {
  for (int k = 0; k < 3; k++)
    if (p[k] < 0 || p[k] >= sh->n[k]) {
      out[0] = out[1] = out[2] = out[3] = 0.0f;
      *outside = true;
      return;
    }
  ref_pixel(p[0], p[1], p[2], out);
}

/* read_imagef(image, sampler, coord) of the test image; c holds the
 * coordinate in grid order (x, y, z or layer). Returns false where the
 * result is undefined (CLK_ADDRESS_NONE outside the image, the wrapping
 * modes with unnormalised coordinates). */
static bool ref_sample(const shape *sh, bool norm, cl_addressing_mode am,
                       cl_filter_mode fm, const float c[3], float out[4]) {
  bool linear = fm == CL_FILTER_LINEAR, outside = false;
  if (!norm && (am == CL_ADDRESS_REPEAT || am == CL_ADDRESS_MIRRORED_REPEAT))
    return false;
  ref_axis_t ax[3];
  for (int k = 0; k < 3; k++) {
    if (k < sh->dims) {
      ax[k] = ref_axis(norm, am, linear, c[k], sh->n[k]);
    } else {
      int l = sh->layered ? clampi((int)rintf(c[k]), 0, sh->n[k] - 1) : 0;
      ax[k] = (ref_axis_t){l, l, 0.0f};
    }
  }
  if (!linear) {
    int p[3] = {ax[0].i0, ax[1].i0, ax[2].i0};
    ref_texel(sh, p, out, &outside);
  } else {
    double sum[4] = {0, 0, 0, 0};
    for (int m = 0; m < (1 << sh->dims); m++) {
      int p[3];
      double w = 1.0;
      for (int k = 0; k < 3; k++) {
        bool hi = k < sh->dims && ((m >> k) & 1);
        p[k] = hi ? ax[k].i1 : ax[k].i0;
        if (k < sh->dims)
          w *= hi ? ax[k].a : 1.0 - ax[k].a;
      }
      float t[4];
      ref_texel(sh, p, t, &outside);
      for (int i = 0; i < 4; i++)
        sum[i] += w * t[i];
    }
    for (int i = 0; i < 4; i++)
      out[i] = (float)sum[i];
  }
  return !(outside && am == CL_ADDRESS_NONE);
}

/* ---- Sampling: the tests ------------------------------------------------- */

/* A float RGBA image of shape sh in guarded application memory of
 * exactly its size (the caller releases it, then frees *mem with
 * free_sampled). */
static void free_sampled(const shape *sh, float *mem) {
  guarded_free(mem, (size_t)sh->n[0] * (size_t)sh->n[1] * (size_t)sh->n[2] *
                        16);
}

static cl_mem sampled_image(const shape *sh, float **mem) {
  size_t w = (size_t)sh->n[0], h = (size_t)sh->n[1], d = (size_t)sh->n[2];
  float *px = guarded_alloc(w * h * d * 16);
  for (size_t z = 0; z < d; z++)
    for (size_t y = 0; y < h; y++)
      for (size_t x = 0; x < w; x++)
        ref_pixel((int)x, (int)y, (int)z, px + 4 * ((z * h + y) * w + x));
  cl_image_format f = {CL_RGBA, CL_FLOAT};
  cl_image_desc desc = {sh->type, w, 1, 1, 0, 0, 0, 0, 0, {NULL}};
  switch (sh->type) {
  case CL_MEM_OBJECT_IMAGE1D_ARRAY:
    desc.image_array_size = d;
    break;
  case CL_MEM_OBJECT_IMAGE2D:
    desc.image_height = h;
    break;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY:
    desc.image_height = h;
    desc.image_array_size = d;
    break;
  case CL_MEM_OBJECT_IMAGE3D:
    desc.image_height = h;
    desc.image_depth = d;
    break;
  }
  cl_int err;
  cl_mem m = clCreateImage(env.context,
                           CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, &f, &desc,
                           px, &err);
  REQUIRE_OK(err);
  *mem = px;
  return m;
}

/* The coordinates tried along an axis of n pixels, unnormalised: the
 * edges -1, 0, n-1, n, 1.5n and points between pixels and beyond. */
static int axis_coords(int n, float out[24]) {
  const float v[] = {-1.0f, 0.0f, (float)(n - 1), (float)n, 1.5f * (float)n,
                     0.5f, 0.25f, (float)n - 0.5f, (float)n - 0.25f, -0.5f,
                     -2.75f, 2.3f, (float)n + 0.4f, -1.5f * (float)n,
                     /* wraps to exactly n with REPEAT (1 - tiny is 1) */
                     -1e-9f,
                     /* undefined: only read, never compared */
                     NAN, INFINITY};
  int k = (int)(sizeof v / sizeof v[0]);
  memcpy(out, v, sizeof v);
  return k;
}

/* Every coordinate of shape sh (the product of the axes' lists; a layer
 * takes -1, 0, 0.4, 0.6, n-1, n+3), in the kernel's component order: a
 * 1D array's layer is y. grid receives the same coordinate in grid order
 * (x, y, z). Returns how many. */
static size_t all_coords(const shape *sh, float (*kc)[4], float (*grid)[3]) {
  float a[3][24] = {{0}};
  int na[3] = {1, 1, 1};
  for (int k = 0; k < 3; k++) {
    if (k < sh->dims) {
      na[k] = axis_coords(sh->n[k], a[k]);
    } else if (sh->layered) {
      const float l[] = {-1.0f, 0.0f, 0.4f, 0.6f, (float)(sh->n[k] - 1),
                         (float)(sh->n[k] + 3)};
      na[k] = 6;
      memcpy(a[k], l, sizeof l);
    } else {
      a[k][0] = 0.0f;
    }
  }
  size_t count = 0;
  for (int z = 0; z < na[2]; z++)
    for (int y = 0; y < na[1]; y++)
      for (int x = 0; x < na[0]; x++) {
        float g[3] = {a[0][x], a[1][y], a[2][z]};
        memcpy(grid[count], g, sizeof g);
        bool la = sh->type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
        kc[count][0] = g[0];
        kc[count][1] = la ? g[2] : g[1];
        kc[count][2] = la ? 0.0f : g[2];
        kc[count][3] = 0.0f;
        count++;
      }
  return count;
}

static bool close_to(float got, float want, bool exact) {
  if (exact)
    return got == want;
  return fabsf(got - want) <= 1e-4f * fmaxf(1.0f, fabsf(want));
}

/* Samples image shape sh through kernel name with every sampler (every
 * addressing mode, normalised or not, nearest and linear) at every
 * coordinate of all_coords (normalised: divided by the axis' size), and
 * compares with ref_sample. */
static void test_sampling(const char *name, const shape *sh) {
  float *px;
  cl_mem img = sampled_image(sh, &px);
  float (*kc)[4] = malloc(8192 * sizeof *kc);
  float (*grid)[3] = malloc(8192 * sizeof *grid);
  size_t n = all_coords(sh, kc, grid);
  cl_mem cbuf = test_buffer(&env, n * 16, NULL);
  cl_mem obuf = test_buffer(&env, n * 16, NULL);
  float (*out)[4] = malloc(n * 16);
  float (*nc)[4] = malloc(n * 16);
  cl_kernel k = kernel(name);
  static const cl_addressing_mode modes[] = {
      CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP,
      CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT};
  for (int norm = 0; norm < 2; norm++) {
    /* Normalised coordinates: each addressed axis divided by its size
     * (a layer stays unnormalised). */
    for (size_t i = 0; i < n; i++) {
      memcpy(nc[i], kc[i], 16);
      if (!norm)
        continue;
      for (int a = 0; a < sh->dims; a++)
        nc[i][a] = kc[i][a] / (float)sh->n[a];
    }
    REQUIRE_OK(clEnqueueWriteBuffer(env.queue, cbuf, CL_TRUE, 0, n * 16, nc,
                                    0, NULL, NULL));
    for (int m = 0; m < 5; m++)
      for (int f = 0; f < 2; f++) {
        cl_filter_mode fm = f ? CL_FILTER_LINEAR : CL_FILTER_NEAREST;
        cl_sampler s = make_sampler((cl_bool)norm, modes[m], fm);
        const void *args[] = {&img, &s, &cbuf, &obuf};
        set_args(k, 4, args);
        run(k, 1, &n);
        read_buffer(obuf, n * 16, out);
        int bad = 0;
        for (size_t i = 0; i < n; i++) {
          float g[3], want[4];
          memcpy(g, grid[i], sizeof g);
          for (int a = 0; norm && a < sh->dims; a++)
            g[a] = nc[i][a];
          if (!isfinite(g[0]) || !isfinite(g[1]) || !isfinite(g[2]) ||
              !ref_sample(sh, norm, modes[m], fm, g, want))
            continue;
          for (int c = 0; c < 4; c++)
            if (!close_to(out[i][c], want[c], !f) && bad++ < 3) {
              fprintf(stderr,
                      "%s norm %d mode %#x filter %#x coord (%g, %g, %g) "
                      "channel %d: %g, want %g\n",
                      name, norm, (unsigned)modes[m], (unsigned)fm, nc[i][0],
                      nc[i][1], nc[i][2], c, out[i][c], want[c]);
            }
        }
        test_failures += bad;
        REQUIRE_OK(clReleaseSampler(s));
      }
  }
  REQUIRE_OK(clReleaseKernel(k));
  cl_mem all[] = {img, cbuf, obuf};
  test_release_buffers(all, 3);
  free_sampled(sh, px);
  free(kc), free(grid), free(out), free(nc);
}

/* Integer coordinates with a sampler (unnormalised, nearest): clamped by
 * CLAMP_TO_EDGE, the border colour outside with CLAMP; with NONE only
 * the pixels inside are defined. Checks 2D and 3D. */
static void test_int_coords(const char *name, const shape *sh) {
  float *px;
  cl_mem img = sampled_image(sh, &px);
  const int edge[] = {-1, 0, 1, sh->n[0] - 1, sh->n[0], sh->n[0] * 3 / 2,
                      -1000};
  int ne = (int)(sizeof edge / sizeof edge[0]);
  int nz = sh->dims == 3 ? ne : 1;
  size_t n = (size_t)(ne * ne * nz);
  cl_int (*c)[4] = malloc(n * 16);
  size_t i = 0;
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ne; y++)
      for (int x = 0; x < ne; x++, i++) {
        c[i][0] = edge[x], c[i][1] = edge[y], c[i][3] = 0;
        c[i][2] = sh->dims == 3 ? edge[z] : 0;
      }
  cl_mem cbuf = test_buffer(&env, n * 16, c);
  cl_mem obuf = test_buffer(&env, n * 16, NULL);
  float (*out)[4] = malloc(n * 16);
  cl_kernel k = kernel(name);
  static const cl_addressing_mode modes[] = {
      CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP};
  for (int m = 0; m < 3; m++) {
    cl_sampler s = make_sampler(CL_FALSE, modes[m], CL_FILTER_NEAREST);
    const void *args[] = {&img, &s, &cbuf, &obuf};
    set_args(k, 4, args);
    run(k, 1, &n);
    read_buffer(obuf, n * 16, out);
    for (i = 0; i < n; i++) {
      int p[3] = {c[i][0], c[i][1], c[i][2]};
      bool in = true;
      for (int a = 0; a < 3; a++) {
        if (modes[m] == CL_ADDRESS_CLAMP_TO_EDGE)
          p[a] = clampi(p[a], 0, sh->n[a] - 1);
        in &= p[a] >= 0 && p[a] < sh->n[a];
      }
      if (!in && modes[m] == CL_ADDRESS_NONE)
        continue;
      float want[4] = {0, 0, 0, 0};
      if (in)
        ref_pixel(p[0], p[1], p[2], want);
      if (memcmp(out[i], want, 16) != 0) {
        fprintf(stderr, "%s mode %#x (%d, %d, %d): %g %g %g %g\n", name,
                (unsigned)modes[m], c[i][0], c[i][1], c[i][2], out[i][0],
                out[i][1], out[i][2], out[i][3]);
        test_failures++;
      }
    }
    REQUIRE_OK(clReleaseSampler(s));
  }
  REQUIRE_OK(clReleaseKernel(k));
  cl_mem all[] = {img, cbuf, obuf};
  test_release_buffers(all, 3);
  free_sampled(sh, px);
  free(c), free(out);
}

/* The program's sampler constants (program scope: normalised mirrored
 * repeat nearest; kernel scope: unnormalised clamp linear), and
 * read_imageui through a sampler argument on an integer image. */
static void test_const_samplers(void) {
  shape sh = {CL_MEM_OBJECT_IMAGE2D, {5, 3, 1}, 2, false};
  float *px;
  cl_mem img = sampled_image(&sh, &px);
  float (*kc)[4] = malloc(8192 * sizeof *kc);
  float (*grid)[3] = malloc(8192 * sizeof *grid);
  size_t n = all_coords(&sh, kc, grid);
  float (*nc)[4] = malloc(n * 16);
  for (size_t i = 0; i < n; i++) {
    memcpy(nc[i], kc[i], 16);
    nc[i][0] = kc[i][0] / 5.0f, nc[i][1] = kc[i][1] / 3.0f;
  }
  cl_mem cbuf = test_buffer(&env, n * 16, nc);
  cl_mem obuf = test_buffer(&env, 2 * n * 16, NULL);
  float (*out)[4] = malloc(2 * n * 16);
  cl_kernel k = kernel("s2d_const");
  const void *args[] = {&img, &cbuf, &obuf};
  set_args(k, 3, args);
  run(k, 1, &n);
  read_buffer(obuf, 2 * n * 16, out);
  for (size_t i = 0; i < n; i++) {
    float want[4];
    float g[3] = {nc[i][0], nc[i][1], 0.0f};
    if (!isfinite(g[0]) || !isfinite(g[1]))
      continue; /* undefined */
    ref_sample(&sh, true, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_NEAREST, g,
               want);
    for (int c = 0; c < 4; c++)
      CHECK(out[2 * i][c] == want[c]);
    /* The same coordinates, unnormalised: within the first pixels. */
    ref_sample(&sh, false, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR, g, want);
    for (int c = 0; c < 4; c++)
      CHECK(close_to(out[2 * i + 1][c], want[c], false));
  }
  REQUIRE_OK(clReleaseKernel(k));

  /* read_imageui through a sampler on a CL_RGBA CL_UNSIGNED_INT32 image
   * (linear asked: integer images always filter nearest). */
  cl_uint upx[5 * 3 * 4];
  for (int p = 0; p < 15; p++)
    for (int c = 0; c < 4; c++)
      upx[4 * p + c] = (cl_uint)(p * 16 + c);
  cl_mem uimg = make_image(CL_MEM_OBJECT_IMAGE2D, 0, CL_RGBA,
                           CL_UNSIGNED_INT32, 5, 3, 1, upx);
  cl_kernel ku = kernel("s2d_ui");
  cl_sampler s = make_sampler(CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR);
  const void *uargs[] = {&uimg, &s, &cbuf, &obuf};
  set_args(ku, 4, uargs);
  run(ku, 1, &n);
  cl_uint (*uout)[4] = (cl_uint(*)[4])out;
  read_buffer(obuf, n * 16, uout);
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(nc[i][0]) || !isfinite(nc[i][1]))
      continue; /* undefined */
    ref_axis_t ax = ref_axis(true, CL_ADDRESS_REPEAT, false, nc[i][0], 5);
    ref_axis_t ay = ref_axis(true, CL_ADDRESS_REPEAT, false, nc[i][1], 3);
    for (int c = 0; c < 4; c++)
      CHECK_EQ(uout[i][c], (cl_uint)((ay.i0 * 5 + ax.i0) * 16 + c));
  }
  REQUIRE_OK(clReleaseSampler(s));
  REQUIRE_OK(clReleaseKernel(ku));
  cl_mem all[] = {img, cbuf, obuf, uimg};
  test_release_buffers(all, 4);
  free_sampled(&sh, px);
  free(kc), free(grid), free(nc), free(out);
}

static void test_all_sampling(void) {
  const shape s1d = {CL_MEM_OBJECT_IMAGE1D, {7, 1, 1}, 1, false};
  const shape s1da = {CL_MEM_OBJECT_IMAGE1D_ARRAY, {7, 1, 3}, 1, true};
  const shape s2d = {CL_MEM_OBJECT_IMAGE2D, {5, 4, 1}, 2, false};
  const shape s2da = {CL_MEM_OBJECT_IMAGE2D_ARRAY, {5, 3, 3}, 2, true};
  const shape s3d = {CL_MEM_OBJECT_IMAGE3D, {4, 3, 5}, 3, false};
  test_sampling("s1d", &s1d);
  test_sampling("s1da", &s1da);
  test_sampling("s2d", &s2d);
  test_sampling("s2da", &s2da);
  test_sampling("s3d", &s3d);
  test_int_coords("s2d_int", &s2d);
  test_int_coords("s3d_int", &s3d);
  test_const_samplers();
}

/* ---- Formats: the Conversion Rules --------------------------------------- */

/* The classes of channel types, by what read_image and write_image take. */
enum { FLOATS, SIGNED, UNSIGNED };

typedef struct fmt {
  cl_channel_order order;
  cl_channel_type type;
  int cls;
} fmt;

static const fmt formats[] = {
    {CL_RGBA, CL_UNORM_INT8, FLOATS},     {CL_BGRA, CL_UNORM_INT8, FLOATS},
    {CL_R, CL_UNORM_INT8, FLOATS},        {CL_RG, CL_UNORM_INT16, FLOATS},
    {CL_RGBA, CL_SNORM_INT8, FLOATS},     {CL_RA, CL_SNORM_INT16, FLOATS},
    {CL_ARGB, CL_UNORM_INT8, FLOATS},     {CL_ABGR, CL_SNORM_INT8, FLOATS},
    {CL_A, CL_UNORM_INT16, FLOATS},       {CL_INTENSITY, CL_UNORM_INT8, FLOATS},
    {CL_LUMINANCE, CL_FLOAT, FLOATS},     {CL_RGBA, CL_FLOAT, FLOATS},
    {CL_R, CL_FLOAT, FLOATS},             {CL_RGBA, CL_HALF_FLOAT, FLOATS},
    {CL_RG, CL_HALF_FLOAT, FLOATS},       {CL_RGB, CL_UNORM_SHORT_565, FLOATS},
    {CL_RGB, CL_UNORM_SHORT_555, FLOATS}, {CL_RGB, CL_UNORM_INT_101010, FLOATS},
    {CL_RGBA, CL_UNORM_INT_101010_2, FLOATS},
    {CL_RGBA, CL_UNSIGNED_INT8, UNSIGNED}, {CL_BGRA, CL_UNSIGNED_INT8, UNSIGNED},
    {CL_RG, CL_UNSIGNED_INT16, UNSIGNED}, {CL_R, CL_UNSIGNED_INT32, UNSIGNED},
    {CL_RGBA, CL_UNSIGNED_INT32, UNSIGNED},
    {CL_RGBA, CL_SIGNED_INT8, SIGNED},    {CL_R, CL_SIGNED_INT16, SIGNED},
    {CL_RG, CL_SIGNED_INT32, SIGNED},     {CL_RGBA, CL_SIGNED_INT16, SIGNED},
};

/* Channels stored and bytes per channel (packed: 0) of f. */
static int fmt_channels(const fmt *f) {
  switch (f->order) {
  case CL_R: case CL_A: case CL_INTENSITY: case CL_LUMINANCE:
    return 1;
  case CL_RG: case CL_RA:
    return 2;
  case CL_RGB:
    return 3;
  default:
    return 4;
  }
}

static int type_bytes(cl_channel_type t) {
  switch (t) {
  case CL_UNORM_INT8: case CL_SNORM_INT8: case CL_SIGNED_INT8:
  case CL_UNSIGNED_INT8:
    return 1;
  case CL_UNORM_INT16: case CL_SNORM_INT16: case CL_SIGNED_INT16:
  case CL_UNSIGNED_INT16: case CL_HALF_FLOAT:
    return 2;
  case CL_UNORM_SHORT_565: case CL_UNORM_SHORT_555:
    return 0;
  case CL_UNORM_INT_101010: case CL_UNORM_INT_101010_2:
    return 0;
  default:
    return 4;
  }
}

static size_t fmt_size(const fmt *f) {
  if (f->type == CL_UNORM_SHORT_565 || f->type == CL_UNORM_SHORT_555)
    return 2;
  if (type_bytes(f->type) == 0)
    return 4;
  return (size_t)(fmt_channels(f) * type_bytes(f->type));
}

/* Which of r, g, b, a stored channel i of order o is (the table of the
 * API specification's channel orders). */
static int rgba_of(cl_channel_order o, int i) {
  static const int bgra[4] = {2, 1, 0, 3}, argb[4] = {3, 0, 1, 2},
                   abgr[4] = {3, 2, 1, 0};
  switch (o) {
  case CL_A: return 3;
  case CL_RA: return i ? 3 : 0;
  case CL_BGRA: return bgra[i];
  case CL_ARGB: return argb[i];
  case CL_ABGR: return abgr[i];
  default: return i;
  }
}

static uint32_t get_le(const unsigned char *p, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; i++)
    v |= (uint32_t)p[i] << (8 * i);
  return v;
}

/* Packed formats: each channel's (shift, bits), r first. */
static int packed_fields(cl_channel_type t, int shift[4], int bits[4]) {
  switch (t) {
  case CL_UNORM_SHORT_565:
    shift[0] = 11, bits[0] = 5, shift[1] = 5, bits[1] = 6, shift[2] = 0,
    bits[2] = 5;
    return 3;
  case CL_UNORM_SHORT_555:
    shift[0] = 10, shift[1] = 5, shift[2] = 0, bits[0] = bits[1] = bits[2] = 5;
    return 3;
  case CL_UNORM_INT_101010:
    shift[0] = 20, shift[1] = 10, shift[2] = 0,
    bits[0] = bits[1] = bits[2] = 10;
    return 3;
  default: /* 101010_2 */
    shift[0] = 22, shift[1] = 12, shift[2] = 2, shift[3] = 0;
    bits[0] = bits[1] = bits[2] = 10, bits[3] = 2;
    return 4;
  }
}

/* The float a normalised or floating channel's bits read as. */
static float ref_to_float(cl_channel_type t, uint32_t v) {
  switch (t) {
  case CL_UNORM_INT8: return (float)v / 255.0f;
  case CL_UNORM_INT16: return (float)v / 65535.0f;
  case CL_SNORM_INT8: return fmaxf((float)(int8_t)v / 127.0f, -1.0f);
  case CL_SNORM_INT16: return fmaxf((float)(int16_t)v / 32767.0f, -1.0f);
  case CL_HALF_FLOAT: {
    _Float16 h;
    uint16_t b = (uint16_t)v;
    memcpy(&h, &b, 2);
    return (float)h;
  }
  default: {
    float f;
    memcpy(&f, &v, 4);
    return f;
  }
  }
}

/* What read_imagef (FLOATS) or read_imagei/ui return for the pixel at p. */
static void ref_read(const fmt *f, const unsigned char *p, float fo[4],
                     uint32_t uo[4]) {
  float fv[4] = {0, 0, 0, 1};
  uint32_t uv[4] = {0, 0, 0, 1};
  int shift[4], bits[4];
  if (type_bytes(f->type) == 0) {
    uint32_t w = get_le(p, (int)fmt_size(f));
    int n = packed_fields(f->type, shift, bits);
    for (int i = 0; i < n; i++)
      fv[i] = (float)((w >> shift[i]) & ((1u << bits[i]) - 1)) /
              (float)((1u << bits[i]) - 1);
  } else {
    int nb = type_bytes(f->type);
    for (int i = 0; i < fmt_channels(f); i++) {
      uint32_t raw = get_le(p + i * nb, nb);
      int c = rgba_of(f->order, i);
      if (f->cls == FLOATS)
        fv[c] = ref_to_float(f->type, raw);
      else if (f->cls == SIGNED)
        uv[c] = (uint32_t)(nb == 1 ? (int8_t)raw : nb == 2 ? (int16_t)raw
                                                           : (int32_t)raw);
      else
        uv[c] = raw;
    }
    if (f->order == CL_INTENSITY)
      fv[1] = fv[2] = fv[3] = fv[0];
    if (f->order == CL_LUMINANCE)
      fv[1] = fv[2] = fv[0];
  }
  memcpy(fo, fv, 16);
  memcpy(uo, uv, 16);
}

/* convert_<T>_sat_rte(f * scale) for codes lo..hi, computed in double
 * from the float product. */
static uint32_t ref_norm(float f, float scale, long lo, long hi) {
  if (isnan(f))
    return 0;
  float p = f * scale;
  if (p <= (float)lo)
    return (uint32_t)lo;
  if (p >= (float)hi)
    return (uint32_t)hi;
  return (uint32_t)(long)nearbyint((double)p); /* ties to even */
}

static uint32_t ref_from_float(cl_channel_type t, float f) {
  switch (t) {
  case CL_UNORM_INT8: return ref_norm(f, 255.0f, 0, 255);
  case CL_UNORM_INT16: return ref_norm(f, 65535.0f, 0, 65535);
  case CL_SNORM_INT8: return ref_norm(f, 127.0f, -128, 127) & 0xff;
  case CL_SNORM_INT16: return ref_norm(f, 32767.0f, -32768, 32767) & 0xffff;
  case CL_HALF_FLOAT: {
    _Float16 h = (_Float16)f;
    uint16_t b;
    memcpy(&b, &h, 2);
    return b;
  }
  default: {
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
  }
  }
}

/* convert_<T>_sat of write_imagei's int or write_imageui's uint. */
static uint32_t ref_from_int(const fmt *f, uint32_t v) {
  int32_t s = (int32_t)v;
  switch (f->type) {
  case CL_SIGNED_INT8: return (uint32_t)clampi(s, -128, 127) & 0xff;
  case CL_SIGNED_INT16: return (uint32_t)clampi(s, -32768, 32767) & 0xffff;
  case CL_UNSIGNED_INT8: return v > 255 ? 255 : v;
  case CL_UNSIGNED_INT16: return v > 65535 ? 65535 : v;
  default: return v;
  }
}

/* The pixel write_imagef (fv) or write_imagei/ui (uv) store. */
static void ref_write(const fmt *f, const float fv[4], const uint32_t uv[4],
                      unsigned char *p) {
  int shift[4], bits[4];
  memset(p, 0, fmt_size(f));
  if (type_bytes(f->type) == 0) {
    uint32_t w = 0;
    int n = packed_fields(f->type, shift, bits);
    for (int i = 0; i < n; i++)
      w |= ref_norm(fv[i], (float)((1u << bits[i]) - 1), 0,
                    (long)((1u << bits[i]) - 1))
           << shift[i];
    for (int i = 0; i < (int)fmt_size(f); i++)
      p[i] = (unsigned char)(w >> (8 * i));
    return;
  }
  int nb = type_bytes(f->type);
  for (int i = 0; i < fmt_channels(f); i++) {
    int c = rgba_of(f->order, i);
    uint32_t v = f->cls == FLOATS ? ref_from_float(f->type, fv[c])
                                  : ref_from_int(f, uv[c]);
    for (int b = 0; b < nb; b++)
      p[i * nb + b] = (unsigned char)(v >> (8 * b));
  }
}

/* Values written: for the normalised types every 8-bit code, the points
 * halfway between codes and a float either side of them, then random
 * values in [-0.25, 1.25], specials. */
static float write_value(size_t i) {
  if (i < 256 * 4) {
    float c = (float)(i / 4), v = (i % 4 == 0) ? c / 255.0f
                              : (c + 0.5f) / 255.0f;
    if (i % 4 == 2)
      v = nextafterf(v, INFINITY);
    if (i % 4 == 3)
      v = nextafterf(v, -INFINITY);
    return i % 8 < 4 ? v : -v * 0.5f; /* SNORM sees negatives too */
  }
  /* ... and for half, ties between halves (normal and denormal), the
   * largest half and what rounds to infinity. */
  static const float special[] = {
      NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, -1.0f, 2.0f, 65504.0f,
      70000.0f, 65519.0f, 65520.0f, 1e-8f, 6e-5f, 1.0f + 0x1p-11f,
      1.0f + 0x3p-11f, -(1.0f + 0x5p-11f), 0x1p-25f, 0x3p-25f, 0x5p-25f,
      0x1.ffcp-15f, 0x1.ffep-15f};
  const size_t num_special = sizeof special / sizeof special[0];
  if (i < 256 * 4 + num_special)
    return special[i - 256 * 4];
  return (float)((double)(test_rand() % 1000001) / 1000000.0 * 1.5 - 0.25);
}

/* Reads every pixel of a random image of each format with read_imagef/i/
 * ui, and writes every pixel with write_imagef/i/ui, against ref_read and
 * ref_write. */
static void test_formats(void) {
  const size_t w = 32, h = 40, n = w * h;
  size_t global[2] = {w, h};
  unsigned char *bytes = malloc(n * 16), *back = malloc(n * 16),
                *want = malloc(16);
  float (*fv)[4] = malloc(n * 16);
  uint32_t (*uv)[4] = malloc(n * 16);
  cl_mem vbuf = test_buffer(&env, n * 16, NULL);
  static const char *rd[] = {"rd_f", "rd_i", "rd_ui"};
  static const char *wr[] = {"wr_f", "wr_i", "wr_ui"};
  for (size_t fi = 0; fi < sizeof formats / sizeof formats[0]; fi++) {
    const fmt *f = &formats[fi];
    size_t es = fmt_size(f);
    for (size_t i = 0; i < n * es; i++)
      bytes[i] = (unsigned char)test_rand();
    cl_mem img = make_image(CL_MEM_OBJECT_IMAGE2D, 0, f->order, f->type, w,
                            h, 1, bytes);
    /* Reads. */
    cl_kernel k = kernel(rd[f->cls]);
    const void *args[] = {&img, &vbuf};
    set_args(k, 2, args);
    run(k, 2, global);
    read_buffer(vbuf, n * 16, fv);
    memcpy(uv, fv, n * 16);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
      float rf[4];
      uint32_t ru[4];
      ref_read(f, bytes + i * es, rf, ru);
      for (int c = 0; c < 4; c++) {
        bool ok = f->cls == FLOATS
                      ? (fv[i][c] == rf[c] || (isnan(fv[i][c]) && isnan(rf[c])))
                      : uv[i][c] == ru[c];
        if (!ok && bad++ < 3)
          fprintf(stderr, "read %#x/%#x pixel %zu channel %d: %#x, want %#x\n",
                  (unsigned)f->order, (unsigned)f->type, i, c, uv[i][c],
                  f->cls == FLOATS ? 0u : ru[c]);
      }
    }
    test_failures += bad;
    REQUIRE_OK(clReleaseKernel(k));
    /* Writes. */
    for (size_t i = 0; i < n; i++)
      for (int c = 0; c < 4; c++) {
        if (f->cls == FLOATS)
          fv[i][c] = write_value((i * 4 + (size_t)c * 997) % (n * 4));
        else
          uv[i][c] = (uint32_t)test_rand();
      }
    REQUIRE_OK(clEnqueueWriteBuffer(env.queue, vbuf, CL_TRUE, 0, n * 16,
                                    f->cls == FLOATS ? (void *)fv : (void *)uv,
                                    0, NULL, NULL));
    cl_mem out = make_image(CL_MEM_OBJECT_IMAGE2D, CL_MEM_WRITE_ONLY,
                            f->order, f->type, w, h, 1, NULL);
    k = kernel(wr[f->cls]);
    const void *wargs[] = {&out, &vbuf};
    set_args(k, 2, wargs);
    run(k, 2, global);
    size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1};
    REQUIRE_OK(clEnqueueReadImage(env.queue, out, CL_TRUE, origin, region, 0,
                                  0, back, 0, NULL, NULL));
    bad = 0;
    for (size_t i = 0; i < n; i++) {
      ref_write(f, fv[i], uv[i], want);
      if (memcmp(back + i * es, want, es) != 0 && bad++ < 3)
        fprintf(stderr,
                "write %#x/%#x pixel %zu (%a %a %a %a): %#x, want %#x\n",
                (unsigned)f->order, (unsigned)f->type, i, fv[i][0], fv[i][1],
                fv[i][2], fv[i][3], get_le(back + i * es, (int)(es > 4 ? 4 : es)),
                get_le(want, (int)(es > 4 ? 4 : es)));
    }
    test_failures += bad;
    REQUIRE_OK(clReleaseKernel(k));
    REQUIRE_OK(clReleaseMemObject(out));
    REQUIRE_OK(clReleaseMemObject(img));
  }
  REQUIRE_OK(clReleaseMemObject(vbuf));
  free(bytes), free(back), free(want), free(fv), free(uv);
}

/* sRGB reads within the specification's bound of the exact curve, and
 * sRGB writes. */
static void test_srgb(void) {
  const size_t w = 16, h = 16, n = w * h;
  size_t global[2] = {w, h};
  unsigned char px[16 * 16 * 4];
  for (size_t i = 0; i < n * 4; i++)
    px[i] = (unsigned char)(i * 7 + i / 4);
  cl_mem img = make_image(CL_MEM_OBJECT_IMAGE2D, CL_MEM_READ_ONLY, CL_sRGBA,
                          CL_UNORM_INT8, w, h, 1, px);
  cl_mem vbuf = test_buffer(&env, n * 16, NULL);
  cl_kernel k = kernel("rd_f");
  const void *args[] = {&img, &vbuf};
  set_args(k, 2, args);
  run(k, 2, global);
  float (*out)[4] = malloc(n * 16);
  read_buffer(vbuf, n * 16, out);
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 4; c++) {
      double s = px[4 * i + c] / 255.0;
      double want = c == 3 ? s
                    : s <= 0.04045 ? s / 12.92
                                   : pow((s + 0.055) / 1.055, 2.4);
      CHECK(fabs(out[i][c] - want) <= 1e-6 + 1e-5 * want);
    }
  REQUIRE_OK(clReleaseKernel(k));

  /* sRGB writes: red, green and blue to the nearest code of the curve
   * (one code either way where the float and double curves disagree);
   * alpha as UNORM_INT8. */
  cl_mem wimg = make_image(CL_MEM_OBJECT_IMAGE2D, CL_MEM_WRITE_ONLY,
                           CL_sRGBA, CL_UNORM_INT8, w, h, 1, NULL);
  for (size_t i = 0; i < n * 4; i++)
    ((float *)out)[i] = (float)(i % 1024) / 1000.0f - 0.01f;
  REQUIRE_OK(clEnqueueWriteBuffer(env.queue, vbuf, CL_TRUE, 0, n * 16, out,
                                  0, NULL, NULL));
  k = kernel("wr_f");
  const void *wargs[] = {&wimg, &vbuf};
  set_args(k, 2, wargs);
  run(k, 2, global);
  unsigned char back[16 * 16 * 4];
  size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1};
  REQUIRE_OK(clEnqueueReadImage(env.queue, wimg, CL_TRUE, origin, region, 0,
                                0, back, 0, NULL, NULL));
  int exact = 0;
  for (size_t i = 0; i < n * 4; i++) {
    double l = ((float *)out)[i], e;
    if (i % 4 == 3)
      e = l;
    else
      e = l <= 0.0 ? 0.0 : l < 0.0031308 ? 12.92 * l
                                          : 1.055 * pow(l, 1 / 2.4) - 0.055;
    long want = lrint(fmin(fmax(e, 0.0), 1.0) * 255.0);
    CHECK(labs((long)back[i] - want) <= 1);
    exact += back[i] == want;
  }
  CHECK(exact >= (int)(n * 4) - 8);
  REQUIRE_OK(clReleaseKernel(k));
  cl_mem all[] = {img, vbuf, wimg};
  test_release_buffers(all, 3);
  free(out);
}

/* ---- Writes of every type; read_write; a barrier; queries --------------- */

/* write_imagef to 1D, 1D buffer, 1D array, 2D array and 3D images at
 * coordinates inside and outside (those outside are dropped; the image
 * lies in guarded memory of exactly its size, so a write outside it
 * crashes). */
static void test_write_types(void) {
  static const struct {
    const char *kernel, *reader;
    cl_mem_object_type type;
    int n[3];     /* grid: x, y, z (a 1D array's layers are z) */
  } cases[] = {
      {"w1d", "r1d", CL_MEM_OBJECT_IMAGE1D, {9, 1, 1}},
      {"w1db", "r1db", CL_MEM_OBJECT_IMAGE1D_BUFFER, {9, 1, 1}},
      {"w1da", "r1da", CL_MEM_OBJECT_IMAGE1D_ARRAY, {9, 1, 3}},
      {"w2da", "r2da", CL_MEM_OBJECT_IMAGE2D_ARRAY, {5, 4, 3}},
      {"w3d", "r3d", CL_MEM_OBJECT_IMAGE3D, {5, 4, 3}},
  };
  for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
    const int *gn = cases[t].n;
    size_t pixels = (size_t)(gn[0] * gn[1] * gn[2]);
    float *mem = guarded_alloc(pixels * 16);
    cl_image_format f = {CL_RGBA, CL_FLOAT};
    cl_image_desc d = {cases[t].type, (size_t)gn[0], 1, 1, 0, 0, 0, 0, 0,
                       {NULL}};
    cl_mem buf = NULL;
    cl_int err;
    cl_mem_flags flags = CL_MEM_USE_HOST_PTR;
    if (cases[t].type == CL_MEM_OBJECT_IMAGE1D_BUFFER) {
      buf = clCreateBuffer(env.context, CL_MEM_USE_HOST_PTR, pixels * 16, mem,
                           &err);
      REQUIRE_OK(err);
      d.buffer = buf;
      flags = 0;
    } else if (cases[t].type == CL_MEM_OBJECT_IMAGE1D_ARRAY) {
      d.image_array_size = (size_t)gn[2];
    } else if (cases[t].type == CL_MEM_OBJECT_IMAGE2D_ARRAY) {
      d.image_height = (size_t)gn[1], d.image_array_size = (size_t)gn[2];
    } else if (cases[t].type == CL_MEM_OBJECT_IMAGE3D) {
      d.image_height = (size_t)gn[1], d.image_depth = (size_t)gn[2];
    }
    cl_mem img = clCreateImage(env.context, flags, &f, &d, buf ? NULL : mem,
                               &err);
    REQUIRE_OK(err);
    /* Every pixel once, plus coordinates outside on every axis. */
    size_t cap = pixels + 64, n = 0;
    cl_int (*c)[4] = malloc(cap * 16);
    float (*v)[4] = malloc(cap * 16);
    bool la = cases[t].type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
    for (int z = 0; z < gn[2]; z++)
      for (int y = 0; y < gn[1]; y++)
        for (int x = 0; x < gn[0]; x++, n++) {
          c[n][0] = x, c[n][1] = la ? z : y, c[n][2] = la ? 0 : z, c[n][3] = 0;
          ref_pixel(x, y, z, v[n]);
        }
    const int out[] = {-1, gn[0], 1 << 20, -(1 << 20)};
    for (int o = 0; o < 4; o++)
      for (int a = 0; a < 3; a++, n++) {
        c[n][0] = c[n][1] = c[n][2] = c[n][3] = 0;
        c[n][a] = out[o];
        v[n][0] = v[n][1] = v[n][2] = v[n][3] = -7.0f;
      }
    /* A 1D image ignores y and z, a 2D array nothing: only coordinates
     * outside an axis the type has count as outside. */
    cl_mem cbuf = test_buffer(&env, n * 16, c);
    cl_mem vb = test_buffer(&env, n * 16, v);
    cl_kernel k = kernel(cases[t].kernel);
    const void *args[] = {&img, &cbuf, &vb};
    set_args(k, 3, args);
    run(k, 1, &n);
    /* The application's memory is the image (USE_HOST_PTR): map it to
     * see it. */
    size_t origin[3] = {0, 0, 0};
    size_t region[3] = {(size_t)gn[0], la ? (size_t)gn[2] : (size_t)gn[1],
                        la ? 1 : (size_t)gn[2]};
    if (cases[t].type == CL_MEM_OBJECT_IMAGE1D ||
        cases[t].type == CL_MEM_OBJECT_IMAGE1D_BUFFER)
      region[1] = region[2] = 1;
    float *got = malloc(pixels * 16);
    REQUIRE_OK(clEnqueueReadImage(env.queue, img, CL_TRUE, origin, region, 0,
                                  0, got, 0, NULL, NULL));
    int bad = 0;
    for (int z = 0; z < gn[2]; z++)
      for (int y = 0; y < gn[1]; y++)
        for (int x = 0; x < gn[0]; x++) {
          float want[4];
          ref_pixel(x, y, z, want);
          float *g = got + 4 * ((size_t)(z * gn[1] + y) * (size_t)gn[0] +
                                (size_t)x);
          /* Writes outside on an axis a type lacks land on pixel 0
           * (coordinates it ignores); those carry -7. */
          if (memcmp(g, want, 16) != 0 &&
              !(x == 0 && y == 0 && z == 0 && g[0] == -7.0f) && bad++ < 3)
            fprintf(stderr, "%s (%d, %d, %d): %g %g %g %g\n",
                    cases[t].kernel, x, y, z, g[0], g[1], g[2], g[3]);
        }
    test_failures += bad;
    REQUIRE_OK(clReleaseKernel(k));
    /* Read back through the sampler-less reads at the same coordinates:
     * the pixels inside, the border colour (all 0) outside an axis the
     * type has (undefined, Skein's answer), an array's layer clamped. */
    k = kernel(cases[t].reader);
    const void *rargs[] = {&img, &cbuf, &vb};
    set_args(k, 3, rargs);
    run(k, 1, &n);
    read_buffer(vb, n * 16, v);
    bad = 0;
    for (size_t i = 0; i < n; i++) {
      int p[3] = {c[i][0], la ? 0 : c[i][1], la ? c[i][1] : c[i][2]};
      float want[4] = {0, 0, 0, 0};
      bool in = true;
      for (int a = 0; a < 3; a++) {
        if (gn[a] == 1 && !(a == 2 && la))
          p[a] = 0; /* an axis the type lacks */
        else if (a == 2 && (la || cases[t].type ==
                                      CL_MEM_OBJECT_IMAGE2D_ARRAY))
          p[a] = clampi(p[a], 0, gn[a] - 1);
        in &= p[a] >= 0 && p[a] < gn[a];
      }
      if (in)
        ref_pixel(p[0], p[1], p[2], want);
      bool pixel0 = in && !p[0] && !p[1] && !p[2] && v[i][0] == -7.0f;
      if (memcmp(v[i], want, 16) != 0 && !pixel0 && bad++ < 3)
        fprintf(stderr, "%s (%d, %d, %d): %g %g %g %g\n", cases[t].reader,
                c[i][0], c[i][1], c[i][2], v[i][0], v[i][1], v[i][2],
                v[i][3]);
    }
    test_failures += bad;
    REQUIRE_OK(clReleaseKernel(k));
    cl_mem all[] = {img, cbuf, vb};
    test_release_buffers(all, 3);
    if (buf)
      REQUIRE_OK(clReleaseMemObject(buf));
    guarded_free(mem, pixels * 16);
    free(c), free(v), free(got);
  }
}

/* A read_write image incremented in place; a barrier kernel that reverses
 * rows within each group. */
static void test_rw_and_barrier(void) {
  const size_t w = 16, h = 6, n = w * h;
  size_t global[2] = {w, h}, local[2] = {8, 1};
  cl_uint *px = malloc(n * 16), *back = malloc(n * 16);
  for (size_t i = 0; i < n * 4; i++)
    px[i] = (cl_uint)(i * 3);
  cl_mem img = make_image(CL_MEM_OBJECT_IMAGE2D, 0, CL_RGBA,
                          CL_UNSIGNED_INT32, w, h, 1, px);
  cl_kernel k = kernel("rw_inc");
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof img, &img));
  run(k, 2, global);
  run(k, 2, global);
  size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1};
  REQUIRE_OK(clEnqueueReadImage(env.queue, img, CL_TRUE, origin, region, 0, 0,
                                back, 0, NULL, NULL));
  for (size_t i = 0; i < n * 4; i++)
    CHECK_EQ(back[i], px[i] + 2 * (cl_uint)(i % 4 + 1));
  REQUIRE_OK(clReleaseKernel(k));
  REQUIRE_OK(clReleaseMemObject(img));

  float *fpx = malloc(n * 16), *fback = malloc(n * 16);
  for (size_t i = 0; i < n * 4; i++)
    fpx[i] = (float)i;
  cl_mem a = make_image(CL_MEM_OBJECT_IMAGE2D, 0, CL_RGBA, CL_FLOAT, w, h, 1,
                        fpx);
  cl_mem b = make_image(CL_MEM_OBJECT_IMAGE2D, 0, CL_RGBA, CL_FLOAT, w, h, 1,
                        NULL);
  k = kernel("flip");
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof b, &b));
  REQUIRE_OK(clSetKernelArg(k, 2, 8 * 16, NULL));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 2, NULL, global, local, 0,
                                    NULL, NULL));
  REQUIRE_OK(clEnqueueReadImage(env.queue, b, CL_TRUE, origin, region, 0, 0,
                                fback, 0, NULL, NULL));
  for (size_t y = 0; y < h; y++)
    for (size_t x = 0; x < w; x++) {
      size_t from = y * w + (x / 8) * 8 + 7 - x % 8;
      CHECK(memcmp(fback + 4 * (y * w + x), fpx + 4 * from, 16) == 0);
    }
  REQUIRE_OK(clReleaseKernel(k));
  cl_mem all[] = {a, b};
  test_release_buffers(all, 2);

  /* read_imageh then write_imageh of a half image: every half but NaN
   * comes back with the same bits (NaN stays NaN). */
  uint16_t *hpx = malloc(n * 8), *hback = malloc(n * 8);
  for (size_t i = 0; i < n * 4; i++)
    hpx[i] = (uint16_t)test_rand();
  hpx[0] = 0x7bff, hpx[1] = 0x0001, hpx[2] = 0x8400, hpx[3] = 0xfc00;
  a = make_image(CL_MEM_OBJECT_IMAGE2D, 0, CL_RGBA, CL_HALF_FLOAT, w, h, 1,
                 hpx);
  b = make_image(CL_MEM_OBJECT_IMAGE2D, 0, CL_RGBA, CL_HALF_FLOAT, w, h, 1,
                 NULL);
  k = kernel("half_copy");
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof a, &a));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof b, &b));
  run(k, 2, global);
  REQUIRE_OK(clEnqueueReadImage(env.queue, b, CL_TRUE, origin, region, 0, 0,
                                hback, 0, NULL, NULL));
  for (size_t i = 0; i < n * 4; i++) {
    bool nan = (hpx[i] & 0x7c00) == 0x7c00 && (hpx[i] & 0x3ff);
    if (nan)
      CHECK((hback[i] & 0x7c00) == 0x7c00 && (hback[i] & 0x3ff));
    else
      CHECK_EQ(hback[i], hpx[i]);
  }
  REQUIRE_OK(clReleaseKernel(k));
  cl_mem halves[] = {a, b};
  test_release_buffers(halves, 2);
  free(hpx), free(hback);
  free(px), free(back), free(fpx), free(fback);
}

static void test_queries(void) {
  cl_mem buf = test_buffer(&env, 64 * 16, NULL);
  cl_image_format f = {CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc bd = {CL_MEM_OBJECT_IMAGE1D_BUFFER, 37, 1, 1, 0, 0, 0, 0, 0,
                      {buf}};
  cl_int err;
  cl_mem b = clCreateImage(env.context, 0, &f, &bd, NULL, &err);
  REQUIRE_OK(err);
  cl_mem a = make_image(CL_MEM_OBJECT_IMAGE1D, 0, CL_R, CL_UNORM_INT16, 23, 1,
                        1, NULL);
  cl_mem c = make_image(CL_MEM_OBJECT_IMAGE1D_ARRAY, 0, CL_RG, CL_FLOAT, 11, 6,
                        1, NULL);
  cl_mem d = make_image(CL_MEM_OBJECT_IMAGE2D, 0, CL_BGRA, CL_SNORM_INT8, 13,
                        7, 1, NULL);
  cl_mem e = make_image(CL_MEM_OBJECT_IMAGE2D_ARRAY, 0, CL_R, CL_HALF_FLOAT,
                        5, 9, 4, NULL);
  cl_mem g = make_image(CL_MEM_OBJECT_IMAGE3D, 0, CL_RGBA, CL_SIGNED_INT32, 3,
                        4, 5, NULL);
  cl_mem o = test_buffer(&env, 32 * sizeof(int), NULL);
  cl_kernel k = kernel("queries");
  const void *args[] = {&a, &b, &c, &d, &e, &g, &o};
  set_args(k, 7, args);
  size_t one = 1;
  run(k, 1, &one);
  int r[23];
  read_buffer(o, sizeof r, r);
  const int want[23] = {23, CL_R, CL_UNORM_INT16, 37, CL_RGBA, 11, 6, 13, 7,
                        13, 7, CL_SNORM_INT8, 5, 9, 4, 9, 3, 4, 5, 3, 4, 5,
                        0};
  for (int i = 0; i < 23; i++)
    if (r[i] != want[i]) {
      fprintf(stderr, "query %d: %d, want %d\n", i, r[i], want[i]);
      test_failures++;
    }
  REQUIRE_OK(clReleaseKernel(k));
  cl_mem all[] = {b, a, c, d, e, g, o, buf};
  test_release_buffers(all, 8);
}

/* Depth images: a sampled read (border 0 outside with CLAMP) and a
 * write of one float. */
static void test_depth(void) {
  float px[4 * 3];
  for (int i = 0; i < 12; i++)
    px[i] = (float)i * 0.25f;
  cl_mem d = make_image(CL_MEM_OBJECT_IMAGE2D, CL_MEM_READ_ONLY, CL_DEPTH,
                        CL_FLOAT, 4, 3, 1, px);
  cl_mem w = make_image(CL_MEM_OBJECT_IMAGE2D, CL_MEM_WRITE_ONLY, CL_DEPTH,
                        CL_FLOAT, 4, 3, 1, NULL);
  float c[12][4];
  for (int i = 0; i < 12; i++) {
    c[i][0] = (float)(i % 5) - 0.5f, c[i][1] = (float)(i / 5) + 0.5f;
    c[i][2] = c[i][3] = 0.0f;
  }
  cl_mem cb = test_buffer(&env, sizeof c, c);
  cl_mem ob = test_buffer(&env, 12 * sizeof(float), NULL);
  cl_sampler s = make_sampler(CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
  cl_kernel k = kernel("depth");
  const void *args[] = {&d, &s, &w, &cb, &ob};
  set_args(k, 5, args);
  size_t n = 12;
  run(k, 1, &n);
  float out[12], back[12];
  read_buffer(ob, sizeof out, out);
  for (int i = 0; i < 12; i++) {
    int x = (int)floorf(c[i][0]), y = (int)floorf(c[i][1]);
    float want = x < 0 || x > 3 || y > 2 ? 0.0f : px[y * 4 + x];
    CHECK(out[i] == want);
  }
  size_t origin[3] = {0, 0, 0}, region[3] = {4, 3, 1};
  REQUIRE_OK(clEnqueueReadImage(env.queue, w, CL_TRUE, origin, region, 0, 0,
                                back, 0, NULL, NULL));
  for (int i = 0; i < 12; i++)
    CHECK(back[(i / 4 % 3) * 4 + i % 4] == out[i] * 0.5f);
  REQUIRE_OK(clReleaseSampler(s));
  REQUIRE_OK(clReleaseKernel(k));
  cl_mem all[] = {d, w, cb, ob};
  test_release_buffers(all, 4);
}

/* The border colour by channel order: alpha 1 for the orders without
 * alpha (R, RG, RGB, LUMINANCE, Rx, RGx, RGBx), else 0; inside, the
 * missing channels of each order (0, and alpha 1). */
static void test_border(void) {
  static const struct {
    cl_channel_order order;
    cl_channel_type type;
    float border_alpha, inside_alpha;
  } cases[] = {
      {CL_R, CL_FLOAT, 1.0f, 1.0f},
      {CL_RG, CL_UNORM_INT8, 1.0f, 1.0f},
      {CL_RGB, CL_UNORM_SHORT_565, 1.0f, 1.0f},
      {CL_LUMINANCE, CL_UNORM_INT8, 1.0f, 1.0f},
      {CL_A, CL_UNORM_INT8, 0.0f, 0.0f},
      {CL_RA, CL_FLOAT, 0.0f, 0.0f},
      {CL_INTENSITY, CL_FLOAT, 0.0f, 0.0f},
      {CL_BGRA, CL_UNORM_INT8, 0.0f, 0.0f},
      /* The padded orders have no alpha channel, so a pixel reads alpha
       * 1. OpenCL C's "Determining the Border Color or Value" lists
       * CL_Rx, CL_RGx and CL_RGBx with the orders whose border is
       * (0, 0, 0, 0); Skein takes that as the border's channels, which
       * the channel mapping table returns with alpha 1 as for any pixel
       * of these orders (and so does the CTS's image_streams reference;
       * docs/features.md). */
      {CL_Rx, CL_FLOAT, 1.0f, 1.0f},
      {CL_RGx, CL_UNORM_INT8, 1.0f, 1.0f},
      {CL_RGBx, CL_UNORM_SHORT_565, 1.0f, 1.0f},
  };
  float c[2][4] = {{-1.0f, 0.5f, 0, 0}, {0.5f, 0.5f, 0, 0}};
  cl_mem cb = test_buffer(&env, sizeof c, c);
  cl_mem ob = test_buffer(&env, sizeof c, NULL);
  cl_sampler s = make_sampler(CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
  cl_kernel k = kernel("s2d");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    unsigned char px[64] = {0};
    cl_mem img = make_image(CL_MEM_OBJECT_IMAGE2D, 0, cases[i].order,
                            cases[i].type, 2, 2, 1, px);
    const void *args[] = {&img, &s, &cb, &ob};
    set_args(k, 4, args);
    size_t n = 2;
    run(k, 1, &n);
    float out[2][4];
    read_buffer(ob, sizeof out, out);
    /* Outside: the border colour; inside: a zero pixel with the order's
     * missing alpha as 1 (an order with alpha or INTENSITY reads 0). */
    for (int ch = 0; ch < 4; ch++) {
      CHECK(out[0][ch] == (ch == 3 ? cases[i].border_alpha : 0.0f));
      CHECK(out[1][ch] == (ch == 3 ? cases[i].inside_alpha : 0.0f));
    }
    REQUIRE_OK(clReleaseMemObject(img));
  }
  REQUIRE_OK(clReleaseSampler(s));
  REQUIRE_OK(clReleaseKernel(k));
  cl_mem all[] = {cb, ob};
  test_release_buffers(all, 2);
}

/* The reads and writes again in a bounds-checked build (-skein-bounds-
 * check): image and sampler arguments must pass its checks, and the
 * program, queries included, must build. */
static void test_bounds_checked(void) {
  kernels = test_build(&env, kernels_src,
                       "-cl-std=CL3.0 -skein-bounds-check");
  test_formats();
  test_all_sampling();
  test_write_types();
  REQUIRE_OK(clReleaseProgram(kernels));
}

/* Images in the application's memory with its own pitches (padded rows
 * and slices): kernels read and write them where the pitches say. */
static void test_pitches(void) {
  const size_t w = 5, h = 4, d = 3, row = w * 16 + 48, slice = row * (h + 1);
  unsigned char *mem = calloc(slice * d, 1);
  for (size_t z = 0; z < d; z++)
    for (size_t y = 0; y < h; y++)
      for (size_t x = 0; x < w; x++)
        ref_pixel((int)x, (int)y, (int)z,
                  (float *)(mem + z * slice + y * row + x * 16));
  cl_image_format f = {CL_RGBA, CL_FLOAT};
  cl_image_desc desc = {CL_MEM_OBJECT_IMAGE3D, w, h, d, 0, row, slice, 0, 0,
                        {NULL}};
  cl_int err;
  cl_mem img = clCreateImage(env.context, CL_MEM_USE_HOST_PTR, &f, &desc,
                             mem, &err);
  REQUIRE_OK(err);
  size_t n = w * h * d;
  cl_int (*c)[4] = malloc(n * 16);
  for (size_t i = 0; i < n; i++) {
    c[i][0] = (cl_int)(i % w), c[i][1] = (cl_int)(i / w % h);
    c[i][2] = (cl_int)(i / (w * h)), c[i][3] = 0;
  }
  cl_mem cb = test_buffer(&env, n * 16, c);
  cl_mem ob = test_buffer(&env, n * 16, NULL);
  cl_kernel k = kernel("r3d");
  const void *args[] = {&img, &cb, &ob};
  set_args(k, 3, args);
  run(k, 1, &n);
  float (*out)[4] = malloc(n * 16);
  read_buffer(ob, n * 16, out);
  for (size_t i = 0; i < n; i++) {
    float want[4];
    ref_pixel(c[i][0], c[i][1], c[i][2], want);
    CHECK(memcmp(out[i], want, 16) == 0);
  }
  REQUIRE_OK(clReleaseKernel(k));
  /* Writes: every pixel's value doubled, in place, padding untouched. */
  for (size_t i = 0; i < n; i++)
    for (int ch = 0; ch < 4; ch++)
      out[i][ch] *= 2.0f;
  REQUIRE_OK(clEnqueueWriteBuffer(env.queue, ob, CL_TRUE, 0, n * 16, out, 0,
                                  NULL, NULL));
  k = kernel("w3d");
  set_args(k, 3, args);
  run(k, 1, &n);
  REQUIRE_OK(clFinish(env.queue));
  for (size_t i = 0; i < n; i++) {
    float want[4];
    ref_pixel(c[i][0], c[i][1], c[i][2], want);
    for (int ch = 0; ch < 4; ch++)
      want[ch] *= 2.0f;
    CHECK(memcmp(mem + (size_t)c[i][2] * slice + (size_t)c[i][1] * row +
                     (size_t)c[i][0] * 16,
                 want, 16) == 0);
  }
  for (size_t z = 0; z < d; z++)
    for (size_t y = 0; y < h; y++)
      for (size_t b = w * 16; b < (y + 1 < h ? row : slice - (h - 1) * row);
           b++)
        CHECK_EQ(mem[z * slice + y * row + b], 0);
  REQUIRE_OK(clReleaseKernel(k));
  cl_mem all[] = {img, cb, ob};
  test_release_buffers(all, 3);
  free(mem), free(c), free(out);
}

/* Every kernel test, built in the current SKEIN_MODE. */
/* Every code of the 8- and 16-bit normalised types, read (read_imagef
 * must give code / scale exactly, at least -1 for the signed types) and
 * written back from its own value and from the value halfway to the next
 * code (write_imagef must round to nearest even and saturate), in R
 * and RGBA (R and RGBA UNORM_INT8 are versioned formats, whose reads
 * convert with an integer multiply and one float step, exact only as
 * checked here) and RG
 * (the generic path, the code in every channel). wide: the 16-bit types too (only in
 * the default mode, to keep the test short; the conversion code is the
 * same in every mode). */
static void test_exhaustive_norm(bool wide) {
  static const cl_channel_type types[] = {CL_UNORM_INT8, CL_SNORM_INT8,
                                          CL_UNORM_INT16, CL_SNORM_INT16};
  /* RGBA: the inline conversion of the versioned loops (UNORM_INT8);
   * R and RG: the out-of-line one. */
  static const cl_channel_order orders[] = {CL_R, CL_RG, CL_RGBA};
  for (size_t ti = 0; ti < (wide ? 4u : 2u); ti++)
    for (size_t oi = 0; oi < 3; oi++) {
      fmt f = {orders[oi], types[ti], FLOATS};
      int nb = type_bytes(f.type), nc = fmt_channels(&f);
      size_t codes = (size_t)1 << (8 * nb), w = 256, h = codes / w;
      size_t es = fmt_size(&f), n = codes * 2;
      unsigned char *bytes = malloc(n * es), *back = malloc(n * es);
      float (*v)[4] = malloc(n * 16);
      for (size_t k = 0; k < codes; k++)
        for (int c = 0; c < nc; c++)
          for (int b = 0; b < nb; b++)
            bytes[k * es + c * nb + b] = (unsigned char)(k >> (8 * b));
      /* Reads. */
      cl_mem img = make_image(CL_MEM_OBJECT_IMAGE2D, 0, f.order, f.type, w,
                              h, 1, bytes);
      cl_mem vbuf = test_buffer(&env, n * 16, NULL);
      cl_kernel k = kernel("rd_f");
      const void *rargs[] = {&img, &vbuf};
      set_args(k, 2, rargs);
      size_t global[2] = {w, h};
      run(k, 2, global);
      read_buffer(vbuf, codes * 16, v);
      int bad = 0;
      for (size_t i = 0; i < codes; i++) {
        float want = ref_to_float(f.type, (uint32_t)i);
        int wrong = 0;
        for (int c = 0; c < nc; c++)
          wrong += v[i][c] != want;
        if (wrong && bad++ < 3)
          fprintf(stderr, "read %#x/%#x code %#zx: %a, want %a\n", f.order,
                  f.type, i, v[i][0], want);
      }
      CHECK(bad == 0);
      REQUIRE_OK(clReleaseKernel(k));
      REQUIRE_OK(clReleaseMemObject(img));
      /* Writes: each code's value, then the midpoints. */
      float scale = f.type == CL_UNORM_INT8    ? 255.0f
                    : f.type == CL_SNORM_INT8  ? 127.0f
                    : f.type == CL_UNORM_INT16 ? 65535.0f
                                               : 32767.0f;
      for (size_t i = 0; i < codes; i++) {
        float exact = ref_to_float(f.type, (uint32_t)i);
        float half = exact + 0.5f / scale;
        v[i][0] = v[i][1] = exact;
        v[codes + i][0] = v[codes + i][1] = half;
        v[i][2] = v[codes + i][2] = 0.0f;
        v[i][3] = v[codes + i][3] = 1.0f;
      }
      REQUIRE_OK(clEnqueueWriteBuffer(env.queue, vbuf, CL_TRUE, 0, n * 16, v,
                                      0, NULL, NULL));
      cl_mem out = make_image(CL_MEM_OBJECT_IMAGE2D, 0, f.order, f.type, w,
                              2 * h, 1, NULL);
      k = kernel("wr_f");
      const void *wargs[] = {&out, &vbuf};
      set_args(k, 2, wargs);
      size_t wglobal[2] = {w, 2 * h};
      run(k, 2, wglobal);
      size_t origin[3] = {0, 0, 0}, region[3] = {w, 2 * h, 1};
      REQUIRE_OK(clEnqueueReadImage(env.queue, out, CL_TRUE, origin, region,
                                    0, 0, back, 0, NULL, NULL));
      bad = 0;
      for (size_t i = 0; i < n; i++)
        for (int c = 0; c < nc; c++) {
          uint32_t got = 0, want = ref_from_float(f.type, v[i][c]);
          for (int b = 0; b < nb; b++)
            got |= (uint32_t)back[i * es + c * nb + b] << (8 * b);
          if (got != want && bad++ < 3)
            fprintf(stderr, "write %#x/%#x of %a: %#x, want %#x\n", f.order,
                    f.type, v[i][c], got, want);
        }
      CHECK(bad == 0);
      REQUIRE_OK(clReleaseKernel(k));
      REQUIRE_OK(clReleaseMemObject(out));
      REQUIRE_OK(clReleaseMemObject(vbuf));
      free(bytes);
      free(back);
      free(v);
    }
}

/* Image-to-image kernels over the formats the compiler versions work-item
 * loops on (RGBA and R of UNORM_INT8 and FLOAT) and two it does not (BGRA
 * UNORM_INT8; RGBA UNORM_INT8 into RGBA FLOAT, images of two formats),
 * on launches wider and taller than the image (writes outside are
 * dropped) with a width that leaves a remainder after 16-lane vectors:
 * copy_shifted's pixel (x, y) is the source's (max(x - 1, 0), y) bit for
 * bit (UNORM_INT8 codes survive code / 255 * 255), copy_plain's the
 * source's read times 0.5 written as the Conversion Rules say. */
static void test_copies(void) {
  static const struct {
    cl_channel_order in_order, out_order;
    cl_channel_type in_type, out_type;
  } cases[] = {
      {CL_RGBA, CL_RGBA, CL_UNORM_INT8, CL_UNORM_INT8},
      {CL_R, CL_R, CL_UNORM_INT8, CL_UNORM_INT8},
      {CL_RGBA, CL_RGBA, CL_FLOAT, CL_FLOAT},
      {CL_R, CL_R, CL_FLOAT, CL_FLOAT},
      {CL_BGRA, CL_BGRA, CL_UNORM_INT8, CL_UNORM_INT8},
      {CL_RGBA, CL_RGBA, CL_UNORM_INT8, CL_FLOAT},
  };
  const size_t w = 53, h = 7;
  size_t global[2] = {w + 11, h + 2};
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    fmt fin = {cases[ci].in_order, cases[ci].in_type, FLOATS};
    fmt fout = {cases[ci].out_order, cases[ci].out_type, FLOATS};
    size_t ies = fmt_size(&fin), oes = fmt_size(&fout);
    unsigned char *src = malloc(w * h * ies), *dst = malloc(w * h * oes),
                  *want = malloc(oes);
    for (size_t i = 0; i < w * h * ies; i++)
      src[i] = (unsigned char)test_rand();
    if (fin.type == CL_FLOAT) /* normal finite floats: exact to compare */
      for (size_t i = 0; i < w * h * ies; i += 4)
        src[i + 3] = (unsigned char)(0x08 + src[i + 3] % 0x38);
    for (int kind = 0; kind < 2; kind++) {
      cl_mem in = make_image(CL_MEM_OBJECT_IMAGE2D, 0, fin.order, fin.type,
                             w, h, 1, src);
      cl_mem out = make_image(CL_MEM_OBJECT_IMAGE2D, 0, fout.order,
                              fout.type, w, h, 1, NULL);
      cl_kernel k = kernel(kind ? "copy_plain" : "copy_shifted");
      const void *args[] = {&in, &out};
      set_args(k, 2, args);
      run(k, 2, global);
      size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1};
      REQUIRE_OK(clEnqueueReadImage(env.queue, out, CL_TRUE, origin, region,
                                    0, 0, dst, 0, NULL, NULL));
      int bad = 0;
      for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++) {
          size_t sx = kind || x == 0 ? x : x - 1;
          float rf[4];
          uint32_t ru[4];
          ref_read(&fin, src + (y * w + sx) * ies, rf, ru);
          float v[4];
          for (int c = 0; c < 4; c++)
            v[c] = kind ? rf[c] * 0.5f : rf[c];
          ref_write(&fout, v, ru, want);
          if (memcmp(dst + (y * w + x) * oes, want, oes) != 0 && bad++ < 3)
            fprintf(stderr, "%s %#x/%#x -> %#x/%#x pixel (%zu, %zu) wrong\n",
                    kind ? "copy_plain" : "copy_shifted", fin.order,
                    fin.type, fout.order, fout.type, x, y);
        }
      CHECK(bad == 0);
      REQUIRE_OK(clReleaseKernel(k));
      REQUIRE_OK(clReleaseMemObject(in));
      REQUIRE_OK(clReleaseMemObject(out));
    }
    free(src);
    free(dst);
    free(want);
  }
}

static void test_kernels(const char *mode) {
  if (mode)
    setenv("SKEIN_MODE", mode, 1);
  else
    unsetenv("SKEIN_MODE");
  kernels = test_build(&env, kernels_src, "-cl-std=CL3.0");
  int before = test_failures;
  test_queries();
  test_formats();
  test_copies();
  test_exhaustive_norm(mode == NULL);
  test_srgb();
  for (int end = 1; end >= 0; end--) {
    guard_at_end = end;
    test_all_sampling();
    test_write_types();
  }
  test_rw_and_barrier();
  test_depth();
  test_border();
  test_pitches();
  if (test_failures != before)
    fprintf(stderr, "(in SKEIN_MODE=%s)\n", mode ? mode : "default");
  REQUIRE_OK(clReleaseProgram(kernels));
  unsetenv("SKEIN_MODE");
}

int main(void) {
  unsetenv("SKEIN_IMAGES"); /* images are on by default */
  test_setup(&env);
  test_seed(0x5eed1a9e5ULL);
  test_args();
  test_struct_arg();
  test_kernels(NULL);
  test_kernels("fiber");
  test_kernels("loop");
  test_bounds_checked();
  test_teardown(&env);
  return test_finish("test-images-kernels");
}
