/* This file contains the cl*Program* entry points: argument validation,
 * error codes and info queries. The program object itself lives in
 * program.c. */
#include "../core/program.h"
#include "../core/context.h"
#include "../core/info.h"
#include "../core/platform.h"
#include <stdlib.h>
#include <string.h>

/* The device-list checks shared by clBuildProgram and
 * clCreateProgramWithBinary. */
static cl_int check_devices(cl_context ctx, cl_uint num_devices,
                            const cl_device_id *device_list) {
  /* CL_INVALID_VALUE if device_list is NULL and num_devices is greater than
   * zero, or if device_list is not NULL and num_devices is zero. */
  RT_RETURN_IF(!device_list && num_devices > 0, CL_INVALID_VALUE);
  RT_RETURN_IF(device_list && num_devices == 0, CL_INVALID_VALUE);
  /* CL_INVALID_DEVICE if any device in device_list is not in the list of
   * devices associated with program (or context). */
  for (cl_uint i = 0; i < num_devices; i++) {
    RT_RETURN_IF(!rt_is(device_list[i], RT_DEVICE) ||
                     !rt_context_has_device(ctx, device_list[i]),
                 CL_INVALID_DEVICE);
  }
  return CL_SUCCESS;
}

cl_program CL_API_CALL clCreateProgramWithSource(cl_context context,
                                                 cl_uint count,
                                                 const char **strings,
                                                 const size_t *lengths,
                                                 cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context is not a valid context. */
  RT_FAIL_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT, errcode_ret);
  /* CL_INVALID_VALUE if count is zero or if strings or any entry in
   * strings is NULL. */
  RT_FAIL_IF(count == 0 || !strings, CL_INVALID_VALUE, errcode_ret);
  size_t total = 0;
  for (cl_uint i = 0; i < count; i++) {
    RT_FAIL_IF(!strings[i], CL_INVALID_VALUE, errcode_ret);
    /* A NULL lengths, or a zero entry, means a NUL-terminated string. */
    total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
  }
  char *joined = malloc(total + 1);
  RT_FAIL_IF(!joined, CL_OUT_OF_HOST_MEMORY, errcode_ret);
  size_t at = 0;
  for (cl_uint i = 0; i < count; i++) {
    size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
    memcpy(joined + at, strings[i], n);
    at += n;
  }
  cl_program p = rt_program_create_source(context, joined, total);
  free(joined);
  RT_FAIL_IF(!p, CL_OUT_OF_HOST_MEMORY, errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return p;
}

/* Fills binary_status (if given) with status for every device. */
static void set_binary_status(cl_int *binary_status, cl_uint n,
                              cl_int status) {
  for (cl_uint i = 0; binary_status && i < n; i++)
    binary_status[i] = status;
}

cl_program CL_API_CALL clCreateProgramWithBinary(
    cl_context context, cl_uint num_devices, const cl_device_id *device_list,
    const size_t *lengths, const unsigned char **binaries,
    cl_int *binary_status, cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context is not a valid context. */
  RT_FAIL_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT, errcode_ret);
  /* CL_INVALID_VALUE if device_list is NULL or num_devices is zero. */
  RT_FAIL_IF(!device_list || num_devices == 0, CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_DEVICE if any device in device_list is not in the list of
   * devices associated with context. */
  cl_int err = check_devices(context, num_devices, device_list);
  RT_FAIL_IF(err != CL_SUCCESS, err, errcode_ret);
  /* CL_INVALID_VALUE if lengths or binaries is NULL or if any entry in
   * lengths[i] is zero or binaries[i] is NULL. */
  RT_FAIL_IF(!lengths || !binaries, CL_INVALID_VALUE, errcode_ret);
  for (cl_uint i = 0; i < num_devices; i++) {
    if (!lengths[i] || !binaries[i]) {
      set_binary_status(binary_status, num_devices, CL_INVALID_VALUE);
      RT_FAIL_IF(true, CL_INVALID_VALUE, errcode_ret);
    }
  }
  /* CL_INVALID_BINARY if an invalid program binary was encountered for any
   * device; binary_status returns the status of each. Every device of a
   * context (the root device and its sub-devices) is the same CPU and
   * shares one executable, so the binaries listed must be the same bytes;
   * the first is loaded. */
  cl_program p = rt_program_create_binary(context, binaries[0], lengths[0],
                                          &err);
  if (p) {
    for (cl_uint i = 1; i < num_devices && err == CL_SUCCESS; i++) {
      if (lengths[i] != lengths[0] ||
          memcmp(binaries[i], binaries[0], lengths[0]) != 0)
        err = CL_INVALID_BINARY; /* the devices cannot hold two programs */
    }
  }
  set_binary_status(binary_status, num_devices,
                    err == CL_OUT_OF_HOST_MEMORY ? CL_INVALID_BINARY : err);
  if (err != CL_SUCCESS && p)
    rt_program_release(p);
  RT_FAIL_IF(err != CL_SUCCESS, err, errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return p;
}

cl_program CL_API_CALL clCreateProgramWithIL(cl_context context,
                                             const void *il, size_t length,
                                             cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context is not a valid context. */
  RT_FAIL_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT, errcode_ret);
  /* CL_INVALID_VALUE if il is NULL or if length is zero. */
  RT_FAIL_IF(!il || length == 0, CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_OPERATION if no devices in context support intermediate
   * language programs (the SPIR-V tools are not installed: the device's
   * CL_DEVICE_IL_VERSION is empty). */
  RT_FAIL_IF(!cc_il_available(), CL_INVALID_OPERATION, errcode_ret);
  /* CL_INVALID_VALUE if the length-byte memory pointed to by il does not
   * contain well-formed intermediate language input appropriate for the
   * deployment environment (checked as the module is read). */
  cl_int err;
  cl_program p = rt_program_create_il(context, il, length, &err);
  RT_FAIL_IF(!p, err, errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return p;
}

/* cl_khr_il_program's name for clCreateProgramWithIL (through
 * clGetExtensionFunctionAddressForPlatform). */
cl_program CL_API_CALL clCreateProgramWithILKHR(cl_context context,
                                                const void *il, size_t length,
                                                cl_int *errcode_ret) {
  return clCreateProgramWithIL(context, il, length, errcode_ret);
}

cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(
    cl_context context, cl_uint num_devices, const cl_device_id *device_list,
    const char *kernel_names, cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context is not a valid context. */
  RT_FAIL_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT, errcode_ret);
  /* CL_INVALID_VALUE if device_list is NULL or num_devices is zero. */
  RT_FAIL_IF(!device_list || num_devices == 0, CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_VALUE if kernel_names is NULL. */
  RT_FAIL_IF(!kernel_names, CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_DEVICE if any device in device_list is not in the list of
   * devices associated with context. */
  cl_int err = check_devices(context, num_devices, device_list);
  RT_FAIL_IF(err != CL_SUCCESS, err, errcode_ret);
  /* CL_INVALID_VALUE if kernel_names contains a kernel name that is not
   * supported by any of the devices in device_list: Skein's device has no
   * built-in kernels, so every name is such a name. */
  RT_FAIL_IF(true, CL_INVALID_VALUE, errcode_ret);
  return NULL; /* not reached: for -Wreturn-type at -O0 */
}

cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint num_devices,
                                  const cl_device_id *device_list,
                                  const char *options,
                                  void(CL_CALLBACK *pfn_notify)(cl_program,
                                                                void *),
                                  void *user_data) {
  /* CL_INVALID_PROGRAM if program is not a valid program object. */
  RT_RETURN_IF(!rt_is(program, RT_PROGRAM), CL_INVALID_PROGRAM);
  cl_int err = check_devices(program->context, num_devices, device_list);
  if (err != CL_SUCCESS)
    return err;
  /* CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL. */
  RT_RETURN_IF(!pfn_notify && user_data, CL_INVALID_VALUE);
  /* CL_INVALID_OPERATION if program was not created with
   * clCreateProgramWithSource, clCreateProgramWithIL or
   * clCreateProgramWithBinary (clLinkProgram's programs have neither
   * source nor a binary to build from). */
  RT_RETURN_IF(program->from_link, CL_INVALID_OPERATION);
  /* CL_INVALID_OPERATION if the build of a program executable for any of
   * the devices listed in device_list by a previous call to clBuildProgram
   * for program has not completed, or if there are kernel objects attached
   * to program: both checked under the program's lock by the build. */
  err = rt_program_build(program, options);
  if (err == CL_INVALID_OPERATION) {
    rt_debug("%s: build in progress or kernels attached\n", __func__);
    return err;
  }
  /* The build is complete: the notification may be called now, from the
   * calling thread. */
  if (pfn_notify)
    pfn_notify(program, user_data);
  return err;
}

cl_int CL_API_CALL clRetainProgram(cl_program program) {
  /* CL_INVALID_PROGRAM if program is not a valid program object. */
  RT_RETURN_IF(!rt_is(program, RT_PROGRAM), CL_INVALID_PROGRAM);
  rt_retain(program);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clReleaseProgram(cl_program program) {
  /* CL_INVALID_PROGRAM if program is not a valid program object. */
  RT_RETURN_IF(!rt_is(program, RT_PROGRAM), CL_INVALID_PROGRAM);
  rt_program_release(program);
  return CL_SUCCESS;
}

/* The binary of p's current state: the executable's, or the compiled
 * object or library itself; NULL (size 0) before any. */
static const unsigned char *current_binary(cl_program p, size_t *size) {
  *size = 0;
  if (p->binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE && p->cc)
    return cc_program_binary(p->cc, size);
  if (p->binary_type == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT ||
      p->binary_type == CL_PROGRAM_BINARY_TYPE_LIBRARY) {
    *size = p->binary_size;
    return p->binary;
  }
  return NULL;
}

/* CL_PROGRAM_BINARIES: param_value is the application's array of one
 * pointer per device of the context (all get the same executable); a
 * NULL entry skips that device. */
static cl_int program_binaries(cl_program p, size_t param_value_size,
                               void *param_value,
                               size_t *param_value_size_ret) {
  size_t size;
  const unsigned char *bin = current_binary(p, &size);
  cl_uint n = p->context->num_devices;
  /* CL_INVALID_VALUE if param_value_size is < size of return type and
   * param_value is not NULL. */
  RT_RETURN_IF(param_value && param_value_size < n * sizeof(unsigned char *),
               CL_INVALID_VALUE);
  if (param_value_size_ret)
    *param_value_size_ret = n * sizeof(unsigned char *);
  unsigned char **out = param_value;
  for (cl_uint i = 0; out && bin && i < n; i++)
    if (out[i])
      memcpy(out[i], bin, size);
  return CL_SUCCESS;
}

/* The queries that need the program's lock (it may be being built). */
static cl_int program_info_locked(cl_program p, cl_program_info param_name,
                                  size_t param_value_size, void *param_value,
                                  size_t *param_value_size_ret) {
  bool built = p->status == CL_BUILD_SUCCESS && p->cc &&
               p->binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
  switch (param_name) {
  case CL_PROGRAM_BINARY_SIZES: {
    size_t size, n = p->context->num_devices;
    current_binary(p, &size);
    RT_RETURN_IF(param_value && param_value_size < n * sizeof size,
                 CL_INVALID_VALUE);
    for (size_t i = 0; param_value && i < n; i++)
      ((size_t *)param_value)[i] = size;
    if (param_value_size_ret)
      *param_value_size_ret = n * sizeof size;
    return CL_SUCCESS;
  }
  case CL_PROGRAM_BINARIES:
    return program_binaries(p, param_value_size, param_value,
                            param_value_size_ret);
  /* CL_INVALID_PROGRAM_EXECUTABLE if param_name is CL_PROGRAM_NUM_KERNELS
   * or CL_PROGRAM_KERNEL_NAMES and a successful program executable has not
   * been built for at least one device in the list of devices associated
   * with program. */
  case CL_PROGRAM_NUM_KERNELS:
    RT_RETURN_IF(!built, CL_INVALID_PROGRAM_EXECUTABLE);
    RT_INFO_VALUE(size_t, cc_program_num_kernels(p->cc));
  case CL_PROGRAM_KERNEL_NAMES:
    RT_RETURN_IF(!built, CL_INVALID_PROGRAM_EXECUTABLE);
    RT_INFO_STRING(p->kernel_names ? p->kernel_names : "");
  /* CL_INVALID_PROGRAM_EXECUTABLE likewise for
   * CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT and _DTORS_PRESENT. */
  case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
  case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
    RT_RETURN_IF(!built, CL_INVALID_PROGRAM_EXECUTABLE);
    RT_INFO_VALUE(cl_bool, CL_FALSE);
  default:
    /* CL_INVALID_VALUE if param_name is not valid. */
    RT_FAIL(CL_INVALID_VALUE);
  }
}

cl_int CL_API_CALL clGetProgramInfo(cl_program program,
                                    cl_program_info param_name,
                                    size_t param_value_size, void *param_value,
                                    size_t *param_value_size_ret) {
  /* CL_INVALID_PROGRAM if program is a not a valid program object. */
  RT_RETURN_IF(!rt_is(program, RT_PROGRAM), CL_INVALID_PROGRAM);
  switch (param_name) {
  case CL_PROGRAM_REFERENCE_COUNT:
    RT_INFO_VALUE(cl_uint, rt_refcount(program));
  case CL_PROGRAM_CONTEXT:
    RT_INFO_VALUE(cl_context, program->context);
  /* A program is built for every device of its context at once: they
   * are one CPU (the root device and its sub-devices). */
  case CL_PROGRAM_NUM_DEVICES:
    RT_INFO_VALUE(cl_uint, program->context->num_devices);
  case CL_PROGRAM_DEVICES:
    RT_INFO_ARRAY(program->context->devices, program->context->num_devices);
  case CL_PROGRAM_SOURCE:
    /* A program made from a binary returns a null string. */
    RT_INFO_STRING(program->source ? program->source : "");
  case CL_PROGRAM_IL:
    /* The IL as given; not made from IL: param_value is left unchanged,
     * size 0. */
    return rt_info(param_value_size, param_value, param_value_size_ret,
                   program->il, program->il ? program->il_len : 0);
  default:
    break;
  }
  pthread_mutex_lock(&program->lock);
  cl_int err = program_info_locked(program, param_name, param_value_size,
                                   param_value, param_value_size_ret);
  pthread_mutex_unlock(&program->lock);
  return err;
}

static cl_int build_info_locked(cl_program p, cl_program_build_info name,
                                size_t param_value_size, void *param_value,
                                size_t *param_value_size_ret) {
  switch (name) {
  case CL_PROGRAM_BUILD_STATUS:
    RT_INFO_VALUE(cl_build_status, p->status);
  case CL_PROGRAM_BUILD_OPTIONS:
    RT_INFO_STRING(p->options ? p->options : "");
  case CL_PROGRAM_BUILD_LOG:
    /* While a build runs its log does not exist yet. */
    RT_INFO_STRING(p->status != CL_BUILD_IN_PROGRESS && p->log ? p->log : "");
  case CL_PROGRAM_BINARY_TYPE:
    RT_INFO_VALUE(cl_program_binary_type, p->binary_type);
  case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE:
    /* Storage of the program-scope global variables; 0 until built. */
    RT_INFO_VALUE(size_t, p->cc ? cc_program_global_variable_size(p->cc) : 0);
  default:
    /* CL_INVALID_VALUE if param_name is not valid. */
    RT_FAIL(CL_INVALID_VALUE);
  }
}

cl_int CL_API_CALL clGetProgramBuildInfo(cl_program program,
                                         cl_device_id device,
                                         cl_program_build_info param_name,
                                         size_t param_value_size,
                                         void *param_value,
                                         size_t *param_value_size_ret) {
  /* CL_INVALID_PROGRAM if program is a not a valid program object. */
  RT_RETURN_IF(!rt_is(program, RT_PROGRAM), CL_INVALID_PROGRAM);
  /* CL_INVALID_DEVICE if device is not in the list of devices associated
   * with program. */
  RT_RETURN_IF(!rt_is(device, RT_DEVICE) ||
                   !rt_context_has_device(program->context, device),
               CL_INVALID_DEVICE);
  pthread_mutex_lock(&program->lock);
  cl_int err = build_info_locked(program, param_name, param_value_size,
                                 param_value, param_value_size_ret);
  pthread_mutex_unlock(&program->lock);
  return err;
}

cl_int CL_API_CALL clUnloadCompiler(void) {
  /* A hint: the compiler stays loaded, its state is per build. */
  return CL_SUCCESS;
}

cl_int CL_API_CALL clUnloadPlatformCompiler(cl_platform_id platform) {
  /* CL_INVALID_PLATFORM if platform is not a valid platform. */
  RT_RETURN_IF(!rt_is(platform, RT_PLATFORM), CL_INVALID_PLATFORM);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clSetProgramReleaseCallback(
    cl_program program, void(CL_CALLBACK *pfn_notify)(cl_program, void *),
    void *user_data) {
  (void)user_data;
  /* CL_INVALID_PROGRAM if program is not a valid program object. */
  RT_RETURN_IF(!rt_is(program, RT_PROGRAM), CL_INVALID_PROGRAM);
  /* CL_INVALID_VALUE if pfn_notify is NULL. */
  RT_RETURN_IF(!pfn_notify, CL_INVALID_VALUE);
  /* CL_INVALID_OPERATION if no devices in the context associated with
   * program support destructors for program scope global variables. */
  RT_FAIL(CL_INVALID_OPERATION);
}

cl_int CL_API_CALL clSetProgramSpecializationConstant(cl_program program,
                                                      cl_uint spec_id,
                                                      size_t spec_size,
                                                      const void *spec_value) {
  /* CL_INVALID_PROGRAM if program is not a valid program object created
   * from an intermediate language (e.g. SPIR-V). */
  RT_RETURN_IF(!rt_is(program, RT_PROGRAM) || !program->il,
               CL_INVALID_PROGRAM);
  /* CL_INVALID_VALUE if spec_value is NULL. */
  RT_RETURN_IF(!spec_value, CL_INVALID_VALUE);
  /* CL_INVALID_SPEC_ID if spec_id is not a valid specialization constant
   * identifier; CL_INVALID_VALUE if spec_size does not match the size of
   * the specialization constant in the module. */
  cl_int err = rt_program_set_spec_constant(program, spec_id, spec_size,
                                            spec_value);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  return CL_SUCCESS;
}

/* The input-header checks of clCompileProgram for program p. */
static cl_int check_headers(cl_program p, cl_uint num_input_headers,
                            const cl_program *input_headers,
                            const char **header_include_names) {
  /* CL_INVALID_VALUE if num_input_headers is zero and
   * header_include_names or input_headers are not NULL or if
   * num_input_headers is not zero and header_include_names or
   * input_headers are NULL. */
  RT_RETURN_IF(num_input_headers == 0 &&
                   (header_include_names || input_headers),
               CL_INVALID_VALUE);
  RT_RETURN_IF(num_input_headers != 0 &&
                   (!header_include_names || !input_headers),
               CL_INVALID_VALUE);
  for (cl_uint i = 0; i < num_input_headers; i++) {
    /* A header is a program made from source (the spec names no error
     * for other handles; Skein answers CL_INVALID_PROGRAM). */
    RT_RETURN_IF(!rt_is(input_headers[i], RT_PROGRAM) ||
                     !input_headers[i]->source,
                 CL_INVALID_PROGRAM);
    /* CL_INVALID_CONTEXT if the context associated with program and
     * programs in input_headers are not the same. */
    RT_RETURN_IF(input_headers[i]->context != p->context, CL_INVALID_CONTEXT);
    RT_RETURN_IF(!header_include_names[i], CL_INVALID_VALUE);
  }
  return CL_SUCCESS;
}

cl_int CL_API_CALL clCompileProgram(
    cl_program program, cl_uint num_devices, const cl_device_id *device_list,
    const char *options, cl_uint num_input_headers,
    const cl_program *input_headers, const char **header_include_names,
    void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data) {
  /* CL_INVALID_PROGRAM if program is not a valid program object. */
  RT_RETURN_IF(!rt_is(program, RT_PROGRAM), CL_INVALID_PROGRAM);
  cl_int err = check_devices(program->context, num_devices, device_list);
  if (err != CL_SUCCESS)
    return err;
  err = check_headers(program, num_input_headers, input_headers,
                      header_include_names);
  if (err != CL_SUCCESS)
    return err;
  /* CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL. */
  RT_RETURN_IF(!pfn_notify && user_data, CL_INVALID_VALUE);
  /* CL_INVALID_OPERATION if program has no source or IL available, i.e.
   * it has not been created with clCreateProgramWithSource or
   * clCreateProgramWithIL. */
  RT_RETURN_IF(!program->source && !program->il, CL_INVALID_OPERATION);
  /* CL_INVALID_OPERATION if a previous compilation or build has not
   * completed or if there are kernel objects attached to program:
   * checked under the program's lock. */
  err = rt_program_compile(program, options, num_input_headers,
                           input_headers, header_include_names);
  if (err == CL_INVALID_OPERATION) {
    rt_debug("%s: build in progress or kernels attached\n", __func__);
    return err;
  }
  if (pfn_notify)
    pfn_notify(program, user_data);
  return err;
}

cl_program CL_API_CALL clLinkProgram(
    cl_context context, cl_uint num_devices, const cl_device_id *device_list,
    const char *options, cl_uint num_input_programs,
    const cl_program *input_programs,
    void(CL_CALLBACK *pfn_notify)(cl_program, void *), void *user_data,
    cl_int *errcode_ret) {
  /* CL_INVALID_CONTEXT if context is not a valid context. */
  RT_FAIL_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT, errcode_ret);
  /* CL_INVALID_VALUE / CL_INVALID_DEVICE for the device list. */
  cl_int err = check_devices(context, num_devices, device_list);
  RT_FAIL_IF(err != CL_SUCCESS, err, errcode_ret);
  /* CL_INVALID_VALUE if num_input_programs is zero or input_programs is
   * NULL (or one is given without the other). */
  RT_FAIL_IF(num_input_programs == 0 || !input_programs, CL_INVALID_VALUE,
             errcode_ret);
  /* CL_INVALID_PROGRAM if programs specified in input_programs are not
   * valid program objects. */
  for (cl_uint i = 0; i < num_input_programs; i++) {
    RT_FAIL_IF(!rt_is(input_programs[i], RT_PROGRAM), CL_INVALID_PROGRAM,
               errcode_ret);
    /* CL_INVALID_CONTEXT if the context associated with programs in
     * input_programs is not the same as context. */
    RT_FAIL_IF(input_programs[i]->context != context, CL_INVALID_CONTEXT,
               errcode_ret);
  }
  /* CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL. */
  RT_FAIL_IF(!pfn_notify && user_data, CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_LINKER_OPTIONS if the linker options specified by options
   * are invalid; CL_INVALID_OPERATION if an input is not a compiled
   * binary or library (or its compile has not completed); both checked
   * by the link. CL_LINK_PROGRAM_FAILURE if there is a failure to link:
   * the program is still returned, so that its log can be read. The link
   * runs before clLinkProgram returns; the notification may be called
   * from the calling thread. */
  cl_program p = rt_program_link(context, options, num_input_programs,
                                 input_programs, &err);
  RT_FAIL_IF(!p, err, errcode_ret);
  if (pfn_notify)
    pfn_notify(p, user_data);
  if (errcode_ret)
    *errcode_ret = err;
  return p;
}
