/* This file contains the functions ICD loaders look up by name in
 * libskein.so: clIcdGetPlatformIDsKHR and the extension function lookup.
 * (clGetPlatformInfo, also exported, lives in runtime/api/api_platform.c.)
 * It also stops the worker pool when the library is unloaded. */
#include "../runtime/core/object.h"
#include "../runtime/core/platform.h"
#include "../runtime/core/command_buffer.h"
#include "../runtime/core/usm.h"
#include "../scheduler/scheduler.h"
#include <string.h>

/* The version script exports these; -fvisibility is not used, so make
 * the intent explicit for readers and for builds that add it. */
#define ICD_EXPORT __attribute__((visibility("default")))

ICD_EXPORT cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                     cl_platform_id *platforms,
                                                     cl_uint *num_platforms);

/* Extension functions that clGetExtensionFunctionAddress* hand out, by
 * name: cl_khr_icd's, cl_khr_il_program's, cl_khr_subgroups' (it also
 * has its dispatch table slot), cl_khr_suggested_local_work_size's,
 * cl_khr_create_command_queue's,
 * cl_intel_unified_shared_memory's and cl_ext_buffer_device_address's. */
static const struct {
  const char *name;
  void *fn;
} icd_extension_functions[] = {
    {"clIcdGetPlatformIDsKHR", (void *)clIcdGetPlatformIDsKHR},
    {"clCreateProgramWithILKHR", (void *)clCreateProgramWithILKHR},
    {"clGetKernelSubGroupInfoKHR", (void *)clGetKernelSubGroupInfoKHR},
    {"clGetKernelSuggestedLocalWorkSizeKHR",
     (void *)clGetKernelSuggestedLocalWorkSizeKHR},
    {"clCreateCommandQueueWithPropertiesKHR",
     (void *)clCreateCommandQueueWithPropertiesKHR},
/* The command-buffer extensions, under their Khronos names
 * (runtime/core/command_buffer_khr.h says why Skein's differ). */
#define ICD_COMMAND_BUFFER_ENTRY(ret, name, params)                        \
  {#name, (void *)skein_##name},
    SKEIN_COMMAND_BUFFER_FUNCTIONS(ICD_COMMAND_BUFFER_ENTRY)
#undef ICD_COMMAND_BUFFER_ENTRY
    {"clHostMemAllocINTEL", (void *)clHostMemAllocINTEL},
    {"clDeviceMemAllocINTEL", (void *)clDeviceMemAllocINTEL},
    {"clSharedMemAllocINTEL", (void *)clSharedMemAllocINTEL},
    {"clMemFreeINTEL", (void *)clMemFreeINTEL},
    {"clMemBlockingFreeINTEL", (void *)clMemBlockingFreeINTEL},
    {"clGetMemAllocInfoINTEL", (void *)clGetMemAllocInfoINTEL},
    {"clSetKernelArgMemPointerINTEL", (void *)clSetKernelArgMemPointerINTEL},
    {"clEnqueueMemsetINTEL", (void *)clEnqueueMemsetINTEL},
    {"clEnqueueMemFillINTEL", (void *)clEnqueueMemFillINTEL},
    {"clEnqueueMemcpyINTEL", (void *)clEnqueueMemcpyINTEL},
    {"clEnqueueMigrateMemINTEL", (void *)clEnqueueMigrateMemINTEL},
    {"clEnqueueMemAdviseINTEL", (void *)clEnqueueMemAdviseINTEL},
    {"clSetKernelArgDevicePointerEXT",
     (void *)clSetKernelArgDevicePointerEXT},
};

/* Returns the extension function called name, or NULL. */
static void *icd_lookup(const char *name) {
  if (!name)
    return NULL;
  for (size_t i = 0; i < sizeof icd_extension_functions /
                             sizeof icd_extension_functions[0]; i++)
    if (strcmp(name, icd_extension_functions[i].name) == 0)
      return icd_extension_functions[i].fn;
  return NULL;
}

/* cl_khr_icd: lists the platforms this ICD exposes (one). The errors are
 * those of clGetPlatformIDs; CL_PLATFORM_NOT_FOUND_KHR never happens. */
ICD_EXPORT cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                     cl_platform_id *platforms,
                                                     cl_uint *num_platforms) {
  /* Same semantics, and same CL_INVALID_VALUE cases, as clGetPlatformIDs. */
  return clGetPlatformIDs(num_entries, platforms, num_platforms);
}

/* Returns the address of the extension function funcname, or NULL if
 * Skein has none of that name. Deprecated in 1.2, still used by loaders
 * to find clIcdGetPlatformIDsKHR. */
ICD_EXPORT void *CL_API_CALL
clGetExtensionFunctionAddress(const char *funcname) {
  return icd_lookup(funcname);
}

/* Returns the address of the extension function funcname for platform,
 * or NULL if platform is not Skein's or has no such function. */
ICD_EXPORT void *CL_API_CALL
clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                         const char *funcname) {
  if (!rt_is(platform, RT_PLATFORM) || platform != rt_platform())
    return NULL;
  return icd_lookup(funcname);
}

/* Stops the worker threads before the library's code is unmapped, so no
 * worker runs into freed text at dlclose or process exit. */
__attribute__((destructor)) static void icd_unload(void) {
  sched_shutdown();
}
