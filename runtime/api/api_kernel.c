/* This file contains the cl*Kernel* entry points (except the enqueues):
 * argument validation against the compiler's argument metadata, error
 * codes and info queries. The kernel object lives in kernel.c. */
#include "../core/kernel.h"
#include "../core/program.h"
#include "../core/context.h"
#include "../core/mem.h"
#include "../core/image.h"
#include "../core/pipe.h"
#include "../core/sampler.h"
#include "../core/svm.h"
#include "../core/usm.h"
#include "../core/info.h"
#include "../core/platform.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

cl_kernel CL_API_CALL clCreateKernel(cl_program program,
                                     const char *kernel_name,
                                     cl_int *errcode_ret) {
  /* CL_INVALID_PROGRAM if program is not a valid program object. */
  RT_FAIL_IF(!rt_is(program, RT_PROGRAM), CL_INVALID_PROGRAM, errcode_ret);
  /* CL_INVALID_VALUE if kernel_name is NULL. */
  RT_FAIL_IF(!kernel_name, CL_INVALID_VALUE, errcode_ret);
  /* Checked and attached under the lock, so no build can start between
   * (a build refuses programs with kernels attached). */
  pthread_mutex_lock(&program->lock);
  cl_int err = CL_SUCCESS;
  cl_kernel k = NULL;
  /* CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built
   * executable for program. */
  if (program->status != CL_BUILD_SUCCESS || !program->cc) {
    err = CL_INVALID_PROGRAM_EXECUTABLE;
  } else {
    const cc_kernel_info *info =
        cc_program_find_kernel(program->cc, kernel_name);
    /* CL_INVALID_KERNEL_NAME if kernel_name is not found in program. */
    if (!info)
      err = CL_INVALID_KERNEL_NAME;
    /* A kernel of a lazy build is compiled now; should LLVM fail on it,
     * the device lacks what the kernel needs. */
    else if (!cc_program_kernel_prepare(program->cc, info))
      err = CL_OUT_OF_RESOURCES;
    else if (!(k = rt_kernel_create(program, info)))
      err = CL_OUT_OF_HOST_MEMORY;
  }
  pthread_mutex_unlock(&program->lock);
  RT_FAIL_IF(err != CL_SUCCESS, err, errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return k;
}

/* Creates every kernel of the built program p into kernels (n entries),
 * under p's lock. Undoes them all on failure. */
static cl_int create_all(cl_program p, cl_uint n, cl_kernel *kernels) {
  for (cl_uint i = 0; i < n; i++) {
    const cc_kernel_info *info = cc_program_kernel(p->cc, i);
    bool ready = cc_program_kernel_prepare(p->cc, info);
    kernels[i] = ready ? rt_kernel_create(p, info) : NULL;
    if (!kernels[i]) {
      while (i--)
        rt_kernel_release(kernels[i]);
      return ready ? CL_OUT_OF_HOST_MEMORY : CL_OUT_OF_RESOURCES;
    }
  }
  return CL_SUCCESS;
}

cl_int CL_API_CALL clCreateKernelsInProgram(cl_program program,
                                            cl_uint num_kernels,
                                            cl_kernel *kernels,
                                            cl_uint *num_kernels_ret) {
  /* CL_INVALID_PROGRAM if program is not a valid program object. */
  RT_RETURN_IF(!rt_is(program, RT_PROGRAM), CL_INVALID_PROGRAM);
  pthread_mutex_lock(&program->lock);
  cl_int err = CL_SUCCESS;
  cl_uint n = 0;
  /* CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built
   * executable for any device in program. */
  if (program->status != CL_BUILD_SUCCESS || !program->cc) {
    err = CL_INVALID_PROGRAM_EXECUTABLE;
  } else {
    n = cc_program_num_kernels(program->cc);
    /* CL_INVALID_VALUE if kernels is not NULL and num_kernels is less
     * than the number of kernels in program. */
    if (kernels && num_kernels < n)
      err = CL_INVALID_VALUE;
    else if (kernels)
      err = create_all(program, n, kernels);
  }
  pthread_mutex_unlock(&program->lock);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  if (num_kernels_ret)
    *num_kernels_ret = n;
  return CL_SUCCESS;
}

cl_kernel CL_API_CALL clCloneKernel(cl_kernel source_kernel,
                                    cl_int *errcode_ret) {
  /* CL_INVALID_KERNEL if source_kernel is not a valid kernel object. */
  RT_FAIL_IF(!rt_is(source_kernel, RT_KERNEL), CL_INVALID_KERNEL, errcode_ret);
  cl_kernel k = rt_kernel_clone(source_kernel);
  RT_FAIL_IF(!k, CL_OUT_OF_HOST_MEMORY, errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return k;
}

cl_int CL_API_CALL clRetainKernel(cl_kernel kernel) {
  /* CL_INVALID_KERNEL if kernel is not a valid kernel object. */
  RT_RETURN_IF(!rt_is(kernel, RT_KERNEL), CL_INVALID_KERNEL);
  rt_retain(kernel);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clReleaseKernel(cl_kernel kernel) {
  /* CL_INVALID_KERNEL if kernel is not a valid kernel object. */
  RT_RETURN_IF(!rt_is(kernel, RT_KERNEL), CL_INVALID_KERNEL);
  rt_kernel_release(kernel);
  return CL_SUCCESS;
}

/* The image type an image argument's declared type takes ("image2d_t",
 * "image2d_depth_t" ...: the type names of OpenCL C); 0 for a name it
 * does not know (a typedef), which then takes any image. */
static cl_mem_object_type image_arg_type(const char *name) {
  static const struct {
    const char *name;
    cl_mem_object_type type;
  } types[] = {
      {"image1d_t", CL_MEM_OBJECT_IMAGE1D},
      {"image1d_buffer_t", CL_MEM_OBJECT_IMAGE1D_BUFFER},
      {"image1d_array_t", CL_MEM_OBJECT_IMAGE1D_ARRAY},
      {"image2d_t", CL_MEM_OBJECT_IMAGE2D},
      {"image2d_depth_t", CL_MEM_OBJECT_IMAGE2D},
      {"image2d_array_t", CL_MEM_OBJECT_IMAGE2D_ARRAY},
      {"image2d_array_depth_t", CL_MEM_OBJECT_IMAGE2D_ARRAY},
      {"image3d_t", CL_MEM_OBJECT_IMAGE3D},
  };
  for (size_t i = 0; name && i < sizeof types / sizeof types[0]; i++)
    if (strcmp(name, types[i].name) == 0)
      return types[i].type;
  return 0;
}

/* Validates an image argument and returns its cl_mem in *mem. */
static cl_int check_image_arg(const cc_arg_info *ai, const void *arg_value,
                              cl_mem *mem) {
  /* CL_INVALID_ARG_VALUE if arg_value specified is not a valid value: an
   * image argument needs its cl_mem. */
  RT_RETURN_IF(!arg_value, CL_INVALID_ARG_VALUE);
  *mem = *(const cl_mem *)arg_value;
  /* CL_INVALID_MEM_OBJECT for an argument declared to be a memory object
   * when the specified arg_value is not a valid memory object: here, not
   * an image of the argument's type. */
  RT_RETURN_IF(!rt_is_image(*mem), CL_INVALID_MEM_OBJECT);
  cl_mem_object_type want = image_arg_type(ai->type_name);
  RT_RETURN_IF(want && (*mem)->type != want, CL_INVALID_MEM_OBJECT);
  /* CL_INVALID_ARG_VALUE if the argument is an image declared with the
   * read_only qualifier and arg_value refers to an image object created
   * with cl_mem_flags of CL_MEM_WRITE_ONLY or if the image argument is
   * declared with the write_only qualifier and arg_value refers to an
   * image object created with cl_mem_flags of CL_MEM_READ_ONLY. */
  RT_RETURN_IF(ai->access_qualifier == CL_KERNEL_ARG_ACCESS_READ_ONLY &&
                   ((*mem)->flags & CL_MEM_WRITE_ONLY),
               CL_INVALID_ARG_VALUE);
  RT_RETURN_IF(ai->access_qualifier == CL_KERNEL_ARG_ACCESS_WRITE_ONLY &&
                   ((*mem)->flags & CL_MEM_READ_ONLY),
               CL_INVALID_ARG_VALUE);
  return CL_SUCCESS;
}

/* Validates a memory-object argument (buffer or image) and returns the
 * cl_mem in *mem (NULL for a NULL pointer). */
static cl_int check_mem_arg(const cc_arg_info *ai, size_t arg_size,
                            const void *arg_value, cl_mem *mem) {
  /* CL_INVALID_ARG_SIZE if the argument is a memory object and arg_size
   * != sizeof(cl_mem). */
  RT_RETURN_IF(arg_size != sizeof(cl_mem), CL_INVALID_ARG_SIZE);
  if (ai->kind == CC_ARG_IMAGE)
    return check_image_arg(ai, arg_value, mem);
  /* A buffer argument's arg_value may be NULL or point to a NULL value:
   * the kernel then sees a NULL pointer. */
  *mem = arg_value ? *(const cl_mem *)arg_value : NULL;
  bool is_buffer = *mem && rt_is(*mem, RT_MEM) &&
                   (*mem)->type == CL_MEM_OBJECT_BUFFER;
  /* CL_INVALID_MEM_OBJECT for an argument declared to be a memory object
   * when the specified arg_value is not a valid memory object (an image
   * is no buffer). */
  RT_RETURN_IF(*mem && !is_buffer, CL_INVALID_MEM_OBJECT);
  return CL_SUCCESS;
}

/* Validates the value of argument ai; *mem receives a buffer argument. */
static cl_int check_arg(const cc_arg_info *ai, size_t arg_size,
                        const void *arg_value, cl_mem *mem) {
  *mem = NULL;
  switch (ai->kind) {
  case CC_ARG_GLOBAL:
  case CC_ARG_CONSTANT:
  case CC_ARG_IMAGE:
    return check_mem_arg(ai, arg_size, arg_value, mem);
  case CC_ARG_LOCAL:
    /* CL_INVALID_ARG_SIZE if arg_size is zero and the argument is
     * declared with the local qualifier (before OpenCL 3.1; from 3.1 a
     * size of 0 allocates no local memory). */
    RT_RETURN_IF(arg_size == 0 && !rt_opencl_3_1(), CL_INVALID_ARG_SIZE);
    /* CL_INVALID_ARG_VALUE if arg_value is not NULL for an argument
     * declared with the local qualifier. */
    RT_RETURN_IF(arg_value != NULL, CL_INVALID_ARG_VALUE);
    return CL_SUCCESS;
  case CC_ARG_PIPE:
    /* CL_INVALID_ARG_SIZE if the argument is a memory object and arg_size
     * != sizeof(cl_mem). */
    RT_RETURN_IF(arg_size != sizeof(cl_mem), CL_INVALID_ARG_SIZE);
    /* CL_INVALID_ARG_VALUE if arg_value specified is not a valid value:
     * a pipe argument needs its cl_mem. */
    RT_RETURN_IF(!arg_value, CL_INVALID_ARG_VALUE);
    *mem = *(const cl_mem *)arg_value;
    /* CL_INVALID_MEM_OBJECT for an argument declared to be a memory
     * object when the specified arg_value is not a valid memory object:
     * here, not a pipe (a buffer or image is none, as a pipe is no
     * buffer for a pointer argument). */
    RT_RETURN_IF(!rt_is_pipe(*mem), CL_INVALID_MEM_OBJECT);
    return CL_SUCCESS;
  case CC_ARG_SAMPLER:
    /* CL_INVALID_ARG_SIZE if arg_size does not match the size of the data
     * type (cl_sampler). */
    RT_RETURN_IF(arg_size != sizeof(cl_sampler), CL_INVALID_ARG_SIZE);
    /* CL_INVALID_SAMPLER for an argument declared to be of type sampler_t
     * when the specified arg_value is not a valid sampler object. */
    RT_RETURN_IF(!arg_value || !rt_is(*(const cl_sampler *)arg_value,
                                      RT_SAMPLER),
                 CL_INVALID_SAMPLER);
    return CL_SUCCESS;
  case CC_ARG_VALUE:
  default:
    /* CL_INVALID_ARG_SIZE if arg_size does not match the size of the data
     * type for an argument that is not a memory object. */
    RT_RETURN_IF(arg_size != ai->size, CL_INVALID_ARG_SIZE);
    /* CL_INVALID_ARG_VALUE if arg_value specified is not a valid value:
     * a by-value argument needs its bytes. */
    RT_RETURN_IF(!arg_value, CL_INVALID_ARG_VALUE);
    /* CL_INVALID_DEVICE_QUEUE for an argument declared to be of type
     * queue_t when the specified arg_value is not a valid device queue
     * object (the kernel receives the handle: device_queue.c). */
    RT_RETURN_IF(strcmp(ai->type_name, "queue_t") == 0 &&
                     !rt_is(*(const cl_command_queue *)arg_value,
                            RT_DEVICE_QUEUE),
                 CL_INVALID_DEVICE_QUEUE);
    return CL_SUCCESS;
  }
}

cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint arg_index,
                                  size_t arg_size, const void *arg_value) {
  /* CL_INVALID_KERNEL if kernel is not a valid kernel object. */
  RT_RETURN_IF(!rt_is(kernel, RT_KERNEL), CL_INVALID_KERNEL);
  /* CL_INVALID_ARG_INDEX if arg_index is not a valid argument index. */
  RT_RETURN_IF(arg_index >= kernel->info->num_args, CL_INVALID_ARG_INDEX);
  const cc_arg_info *ai = &kernel->info->args[arg_index];
  cl_mem mem;
  cl_int err = check_arg(ai, arg_size, arg_value, &mem);
  if (err != CL_SUCCESS)
    return err;
  /* CL_INVALID_CONTEXT if the context associated with kernel and an
   * OpenCL object pointed to by arg_value are not the same. */
  RT_RETURN_IF(mem && mem->context != kernel->program->context,
               CL_INVALID_CONTEXT);
  if (ai->kind == CC_ARG_SAMPLER) {
    /* The kernel receives the sampler_t bits (builtins/abi.h), taken now:
     * the application may release the sampler once the call returns. */
    uint64_t bits = rt_sampler_bits(*(const cl_sampler *)arg_value);
    return rt_kernel_set_arg(kernel, arg_index, sizeof bits, &bits, NULL);
  }
  return rt_kernel_set_arg(kernel, arg_index, arg_size, arg_value, mem);
}

/* The checks clSetKernelArgSVMPointer and clSetKernelArgMemPointerINTEL
 * share: a valid kernel, a valid index, and an argument declared to be a
 * pointer to global or constant memory (CL_INVALID_ARG_VALUE, arg_value
 * not being a valid value, for any other). */
static cl_int check_pointer_arg(cl_kernel kernel, cl_uint arg_index) {
  /* CL_INVALID_KERNEL if kernel is not a valid kernel object. */
  RT_RETURN_IF(!rt_is(kernel, RT_KERNEL), CL_INVALID_KERNEL);
  /* CL_INVALID_ARG_INDEX if arg_index is not a valid argument index. */
  RT_RETURN_IF(arg_index >= kernel->info->num_args, CL_INVALID_ARG_INDEX);
  cc_arg_kind kind = kernel->info->args[arg_index].kind;
  RT_RETURN_IF(kind != CC_ARG_GLOBAL && kind != CC_ARG_CONSTANT,
               CL_INVALID_ARG_VALUE);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clSetKernelArgSVMPointer(cl_kernel kernel,
                                            cl_uint arg_index,
                                            const void *arg_value) {
  cl_int err = check_pointer_arg(kernel, arg_index);
  if (err != CL_SUCCESS)
    return err;
  /* Every host address is an SVM pointer (fine-grain system SVM), NULL
   * included; one inside a clSVMAlloc allocation of another context is
   * not a valid value for this kernel's context. */
  rt_svm_info info;
  RT_RETURN_IF(arg_value && rt_svm_find(arg_value, &info) &&
                   info.context != kernel->program->context,
               CL_INVALID_ARG_VALUE);
  rt_kernel_set_arg_svm(kernel, arg_index, (void *)arg_value);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clSetKernelArgMemPointerINTEL(cl_kernel kernel,
                                                cl_uint arg_index,
                                                const void *arg_value) {
  /* The checks of clSetKernelArgSVMPointer. Since revision 1.1.0 any
   * pointer value is valid: one the kernel does not dereference need not
   * point anywhere. */
  cl_int err = check_pointer_arg(kernel, arg_index);
  if (err != CL_SUCCESS)
    return err;
  rt_kernel_set_arg_svm(kernel, arg_index, (void *)arg_value);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clSetKernelArgDevicePointerEXT(
    cl_kernel kernel, cl_uint arg_index,
    cl_mem_device_address_ext arg_value) {
  /* CL_INVALID_KERNEL if kernel is not a valid kernel object. */
  RT_RETURN_IF(!rt_is(kernel, RT_KERNEL), CL_INVALID_KERNEL);
  /* CL_INVALID_ARG_INDEX if arg_index is not a valid argument index, or
   * if it corresponds to an argument that is not a pointer to the global
   * address space. */
  RT_RETURN_IF(arg_index >= kernel->info->num_args ||
                   kernel->info->args[arg_index].kind != CC_ARG_GLOBAL,
               CL_INVALID_ARG_INDEX);
  /* A buffer's device address is its host address (CL_MEM_DEVICE_
   * ADDRESS_EXT), so the kernel receives the value as it is; an invalid
   * one is legal as long as the kernel does not dereference it. */
  rt_kernel_set_arg_svm(kernel, arg_index, (void *)(uintptr_t)arg_value);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clSetKernelExecInfo(cl_kernel kernel,
                                       cl_kernel_exec_info param_name,
                                       size_t param_value_size,
                                       const void *param_value) {
  /* CL_INVALID_KERNEL if kernel is not a valid kernel object. */
  RT_RETURN_IF(!rt_is(kernel, RT_KERNEL), CL_INVALID_KERNEL);
  /* CL_INVALID_VALUE if param_name is not valid, if param_value is NULL
   * or if the size specified by param_value_size is not valid. */
  switch (param_name) {
  case CL_KERNEL_EXEC_INFO_SVM_PTRS:
    /* An array of the SVM pointers the kernel reaches other than through
     * its arguments; a size of 0 with a NULL param_value unsets the list
     * set before. Kernels and host share one address space, so the list
     * needs no action: it is checked, not kept. */
    RT_RETURN_IF(param_value_size % sizeof(void *) ||
                     (param_value_size && !param_value),
                 CL_INVALID_VALUE);
    return CL_SUCCESS;
  case CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL:
    /* cl_intel_unified_shared_memory: the USM allocations the kernel
     * reaches other than through its arguments, a void *[] (0 bytes
     * empty the set). Checked, not kept, as the SVM list: USM is host
     * memory the kernel reaches anyway. */
    RT_RETURN_IF(param_value_size % sizeof(void *) ||
                     (param_value_size && !param_value),
                 CL_INVALID_VALUE);
    return CL_SUCCESS;
  case CL_KERNEL_EXEC_INFO_DEVICE_PTRS_EXT:
    /* cl_ext_buffer_device_address: the device pointers the kernel
     * reaches other than through its arguments, a
     * cl_mem_device_address_ext[]; checked, not kept (host addresses). */
    RT_RETURN_IF(param_value_size % sizeof(cl_mem_device_address_ext) ||
                     (param_value_size && !param_value),
                 CL_INVALID_VALUE);
    return CL_SUCCESS;
  case CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL:
  case CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL:
  case CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL:
    /* cl_bool: the kernel may reach any USM allocation of that kind
     * through pointers it loads. Every device supports every kind (no
     * CL_INVALID_OPERATION) and kernels reach all host memory, so either
     * value holds without action. */
    RT_RETURN_IF(!param_value || param_value_size != sizeof(cl_bool),
                 CL_INVALID_VALUE);
    return CL_SUCCESS;
  case CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM:
    RT_RETURN_IF(!param_value, CL_INVALID_VALUE);
    /* A cl_bool. CL_INVALID_OPERATION if it is CL_TRUE and no device in
     * the context supports fine-grain system SVM: Skein's does, so
     * either value holds, and system memory works as SVM either way. */
    RT_RETURN_IF(param_value_size != sizeof(cl_bool), CL_INVALID_VALUE);
    return CL_SUCCESS;
  default:
    RT_FAIL(CL_INVALID_VALUE);
  }
}

cl_int CL_API_CALL clGetKernelInfo(cl_kernel kernel,
                                   cl_kernel_info param_name,
                                   size_t param_value_size, void *param_value,
                                   size_t *param_value_size_ret) {
  /* CL_INVALID_KERNEL if kernel is a not a valid kernel object. */
  RT_RETURN_IF(!rt_is(kernel, RT_KERNEL), CL_INVALID_KERNEL);
  switch (param_name) {
  case CL_KERNEL_FUNCTION_NAME:
    RT_INFO_STRING(kernel->info->name);
  case CL_KERNEL_NUM_ARGS:
    RT_INFO_VALUE(cl_uint, kernel->info->num_args);
  case CL_KERNEL_REFERENCE_COUNT:
    RT_INFO_VALUE(cl_uint, rt_refcount(kernel));
  case CL_KERNEL_CONTEXT:
    RT_INFO_VALUE(cl_context, kernel->program->context);
  case CL_KERNEL_PROGRAM:
    RT_INFO_VALUE(cl_program, kernel->program);
  case CL_KERNEL_ATTRIBUTES:
    RT_INFO_STRING(kernel->info->attributes ? kernel->info->attributes : "");
  default:
    /* CL_INVALID_VALUE if param_name is not valid. */
    RT_FAIL(CL_INVALID_VALUE);
  }
}

cl_int CL_API_CALL clGetKernelArgInfo(cl_kernel kernel, cl_uint arg_index,
                                      cl_kernel_arg_info param_name,
                                      size_t param_value_size,
                                      void *param_value,
                                      size_t *param_value_size_ret) {
  /* CL_INVALID_KERNEL if kernel is a not a valid kernel object. */
  RT_RETURN_IF(!rt_is(kernel, RT_KERNEL), CL_INVALID_KERNEL);
  /* CL_INVALID_ARG_INDEX if arg_index is not a valid argument index. */
  RT_RETURN_IF(arg_index >= kernel->info->num_args, CL_INVALID_ARG_INDEX);
  /* CL_KERNEL_ARG_INFO_NOT_AVAILABLE if the argument information is not
   * available for kernel: only programs created from source and built
   * with -cl-kernel-arg-info keep it. */
  RT_RETURN_IF(!kernel->program->kernel_arg_info,
               CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
  const cc_arg_info *ai = &kernel->info->args[arg_index];
  switch (param_name) {
  case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
    RT_INFO_VALUE(cl_kernel_arg_address_qualifier, ai->address_qualifier);
  case CL_KERNEL_ARG_ACCESS_QUALIFIER:
    RT_INFO_VALUE(cl_kernel_arg_access_qualifier, ai->access_qualifier);
  case CL_KERNEL_ARG_TYPE_NAME:
    RT_INFO_STRING(ai->type_name ? ai->type_name : "");
  case CL_KERNEL_ARG_TYPE_QUALIFIER:
    RT_INFO_VALUE(cl_kernel_arg_type_qualifier, ai->type_qualifier);
  case CL_KERNEL_ARG_NAME:
    RT_INFO_STRING(ai->name ? ai->name : "");
  default:
    /* CL_INVALID_VALUE if param_name is not valid. */
    RT_FAIL(CL_INVALID_VALUE);
  }
}

/* CL_INVALID_DEVICE if device is not in the list of devices associated
 * with kernel or if device is NULL but there is more than one device
 * associated with kernel (a context with sub-devices). */
static bool kernel_device_ok(cl_kernel kernel, cl_device_id device) {
  cl_context ctx = kernel->program->context;
  if (!device)
    return ctx->num_devices == 1;
  return rt_is(device, RT_DEVICE) && rt_context_has_device(ctx, device);
}

/* CL_KERNEL_WORK_GROUP_SIZE: the required size if the kernel names one,
 * else the device's maximum. */
static size_t kernel_max_wg(cl_kernel k) {
  const size_t *r = k->info->reqd_work_group_size;
  if (r[0])
    return r[0] * (r[1] ? r[1] : 1) * (r[2] ? r[2] : 1);
  return k->program->context->device->max_work_group_size;
}

cl_int CL_API_CALL clGetKernelWorkGroupInfo(
    cl_kernel kernel, cl_device_id device, cl_kernel_work_group_info param_name,
    size_t param_value_size, void *param_value, size_t *param_value_size_ret) {
  /* CL_INVALID_KERNEL if kernel is a not a valid kernel object. */
  RT_RETURN_IF(!rt_is(kernel, RT_KERNEL), CL_INVALID_KERNEL);
  RT_RETURN_IF(!kernel_device_ok(kernel, device), CL_INVALID_DEVICE);
  cl_device_id dev = kernel->program->context->device;
  switch (param_name) {
  case CL_KERNEL_WORK_GROUP_SIZE:
    RT_INFO_VALUE(size_t, kernel_max_wg(kernel));
  case CL_KERNEL_COMPILE_WORK_GROUP_SIZE:
    RT_INFO_ARRAY(kernel->info->reqd_work_group_size, 3);
  case CL_KERNEL_LOCAL_MEM_SIZE:
    RT_INFO_VALUE(cl_ulong, rt_kernel_local_mem(kernel));
  case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
    /* The lanes of a float vector: work-items run side by side in them. */
    RT_INFO_VALUE(size_t, dev->simd_bytes >= 4 ? dev->simd_bytes / 4 : 1);
  case CL_KERNEL_PRIVATE_MEM_SIZE:
    RT_INFO_VALUE(cl_ulong, kernel->info->private_mem_size);
  case 0x4109: /* CL_KERNEL_SPILL_MEM_SIZE_INTEL */
    /* cl_intel_required_subgroup_size: private memory is the work-item's
     * stack; nothing spills elsewhere. */
    RT_INFO_VALUE(cl_ulong, 0);
  case CL_KERNEL_GLOBAL_WORK_SIZE:
    /* CL_INVALID_VALUE if param_name is CL_KERNEL_GLOBAL_WORK_SIZE and
     * device is not a custom device and kernel is not a built-in kernel. */
  default:
    /* CL_INVALID_VALUE if param_name is not valid. */
    RT_FAIL(CL_INVALID_VALUE);
  }
}

/* Sub-groups: runs of info->sub_group_size consecutive linear local ids
 * (builtins/abi.h). The local size a ..._FOR_NDRANGE query is given, as
 * its work-item count, or 0 if input_value/input_value_size do not make
 * one: an array of 1 to 3 size_t, none of them 0. */
static size_t sub_group_ndrange_items(size_t input_value_size,
                                      const void *input_value) {
  if (!input_value || input_value_size == 0 ||
      input_value_size % sizeof(size_t) != 0 ||
      input_value_size / sizeof(size_t) > 3)
    return 0;
  const size_t *local = input_value;
  size_t items = 1;
  for (size_t i = 0; i < input_value_size / sizeof(size_t); i++) {
    if (local[i] == 0 || items > SIZE_MAX / local[i])
      return 0;
    items *= local[i];
  }
  return items;
}

/* CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT: count sub-groups of the full
 * size in dimension 0, the other dimensions 1 (dims of them, from
 * param_value_size); all 0 if the kernel cannot run that many. */
static cl_int local_size_for_count(cl_kernel kernel, size_t count,
                                   size_t param_value_size,
                                   void *param_value,
                                   size_t *param_value_size_ret) {
  size_t dims = param_value_size / sizeof(size_t);
  if (dims < 1)
    dims = 1;
  if (dims > 3)
    dims = 3;
  /* CL_INVALID_VALUE if the size in bytes specified by param_value_size
   * is less than size of the return type ... and param_value is not
   * NULL: an array of 1 to 3 size_t. */
  RT_RETURN_IF(param_value && param_value_size % sizeof(size_t) != 0,
               CL_INVALID_VALUE);
  size_t sg = kernel->info->sub_group_size;
  size_t local[3] = {0, 0, 0};
  if (count > 0 && count <= kernel_max_wg(kernel) / sg) {
    local[0] = count * sg;
    local[1] = local[2] = 1;
    /* A required work-group size admits only itself. */
    const size_t *r = kernel->info->reqd_work_group_size;
    if (r[0] && (r[0] != local[0] || r[1] > 1 || r[2] > 1))
      local[0] = local[1] = local[2] = 0;
  }
  if (local[0] == 0)
    local[1] = local[2] = 0;
  return rt_info(param_value_size, param_value, param_value_size_ret, local,
                 dims * sizeof(size_t));
}

cl_int CL_API_CALL clGetKernelSubGroupInfo(
    cl_kernel kernel, cl_device_id device, cl_kernel_sub_group_info param_name,
    size_t input_value_size, const void *input_value, size_t param_value_size,
    void *param_value, size_t *param_value_size_ret) {
  /* CL_INVALID_KERNEL if kernel is a not a valid kernel object. */
  RT_RETURN_IF(!rt_is(kernel, RT_KERNEL), CL_INVALID_KERNEL);
  /* CL_INVALID_DEVICE if device is not in the list of devices associated
   * with kernel or if device is NULL but there is more than one device
   * associated with kernel. */
  RT_RETURN_IF(!kernel_device_ok(kernel, device), CL_INVALID_DEVICE);
  size_t sg = kernel->info->sub_group_size;
  size_t items;
  switch (param_name) {
  case CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE:
  case CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE:
    /* CL_INVALID_VALUE if param_name is ..._FOR_NDRANGE ... and the size
     * in bytes specified by input_value_size is not valid or if
     * input_value is NULL. */
    items = sub_group_ndrange_items(input_value_size, input_value);
    RT_RETURN_IF(items == 0, CL_INVALID_VALUE);
    if (param_name == CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE)
      RT_INFO_VALUE(size_t, items < sg ? items : sg);
    RT_INFO_VALUE(size_t, (items + sg - 1) / sg);
  case CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT:
    /* CL_INVALID_VALUE if param_name is
     * CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT and the size in bytes
     * specified by input_value_size is not valid or if input_value is
     * NULL. */
    RT_RETURN_IF(!input_value || input_value_size != sizeof(size_t),
                 CL_INVALID_VALUE);
    return local_size_for_count(kernel, *(const size_t *)input_value,
                                param_value_size, param_value,
                                param_value_size_ret);
  case CL_KERNEL_MAX_NUM_SUB_GROUPS:
    RT_INFO_VALUE(size_t, (kernel_max_wg(kernel) + sg - 1) / sg);
  case CL_KERNEL_COMPILE_NUM_SUB_GROUPS:
    /* Only SPIR-V can name a sub-group count; OpenCL C cannot. */
    RT_INFO_VALUE(size_t, 0);
  case 0x410A: /* CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL */
    /* intel_reqd_sub_group_size(N)'s N, 0 without the attribute. */
    RT_INFO_VALUE(size_t, kernel->info->required_sub_group_size);
  default:
    /* CL_INVALID_VALUE if param_name is not one of the supported values. */
    RT_FAIL(CL_INVALID_VALUE);
  }
}

/* cl_khr_subgroups' name for the same query: the ICD dispatch table has a
 * slot for each, and loaders export both, so applications reach it even
 * though the extension is not listed (runtime/core/device.c says why). */
cl_int CL_API_CALL clGetKernelSubGroupInfoKHR(
    cl_kernel kernel, cl_device_id device, cl_kernel_sub_group_info param_name,
    size_t input_value_size, const void *input_value, size_t param_value_size,
    void *param_value, size_t *param_value_size_ret) {
  return clGetKernelSubGroupInfo(kernel, device, param_name,
                                 input_value_size, input_value,
                                 param_value_size, param_value,
                                 param_value_size_ret);
}
