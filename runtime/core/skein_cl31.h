/* This file defines the names OpenCL 3.1 gives in core to queries and
 * values of the extensions it promoted (OpenCL-Docs xml/cl.xml, feature
 * CL_VERSION_3_1): Debian's OpenCL headers (2023.02.06) predate 3.1.
 * Each has the value of the extension's _KHR name, so the handlers of
 * those answer them; CL_DEVICE_MAX_WORK_GROUP_SIZES is 3.1's new name of
 * CL_DEVICE_MAX_WORK_ITEM_SIZES. It also declares 3.1's one new entry
 * point, clGetKernelSuggestedLocalWorkSize (OpenCL-Headers v2026.05.29
 * CL/cl.h), whose ICD dispatch slot follows clSetContextDestructorCallback
 * (icd/dispatch.c). Plain C, no Skein types: the tests include it too. */
#ifndef SKEIN_CL31_H
#define SKEIN_CL31_H

#include <CL/cl.h>

#ifndef CL_VERSION_3_1
/* cl_khr_suggested_local_work_size's query under its core name, with
 * the same arguments and errors (API spec v3.1.1 documents the two
 * together). */
extern CL_API_ENTRY cl_int CL_API_CALL clGetKernelSuggestedLocalWorkSize(
    cl_command_queue command_queue, cl_kernel kernel, cl_uint work_dim,
    const size_t *global_work_offset, const size_t *global_work_size,
    size_t *suggested_local_work_size);
#endif
typedef cl_int(CL_API_CALL *skein_get_kernel_suggested_local_work_size_fn)(
    cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
    size_t *);

#ifndef CL_DEVICE_MAX_WORK_GROUP_SIZES
#define CL_DEVICE_MAX_WORK_GROUP_SIZES 0x1005
#endif
#ifndef CL_DEVICE_UUID
#define CL_UUID_SIZE 16
#define CL_LUID_SIZE 8
#define CL_DEVICE_UUID 0x106A
#define CL_DRIVER_UUID 0x106B
#define CL_DEVICE_LUID_VALID 0x106C
#define CL_DEVICE_LUID 0x106D
#define CL_DEVICE_NODE_MASK 0x106E
#endif
#ifndef CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES
#define CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES 0x1073
#define CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT 0x1074
#define CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED \
  0x1075
#define CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED (1 << 0)
#define CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT (1 << 1)
#endif
#ifndef CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS
#define CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS 0x12B9
#define CL_DEVICE_SPIRV_EXTENSIONS 0x12BA
#define CL_DEVICE_SPIRV_CAPABILITIES 0x12BB
#endif

#endif
