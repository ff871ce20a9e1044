/* This file gives the command-buffer tests the extension's entry points,
 * looked up by name through the ICD loader as an application would
 * (clGetExtensionFunctionAddressForPlatform), typed with the revisions
 * Skein implements (runtime/core/command_buffer_khr.h). */
#ifndef SKEIN_TEST_CMDBUF_UTIL_H
#define SKEIN_TEST_CMDBUF_UTIL_H

#include "test_util.h"
#include "../runtime/core/command_buffer_khr.h"

/* One pointer per entry point: cb.clFinalizeCommandBufferKHR(...). */
typedef struct cmdbuf_fns {
#define CMDBUF_FIELD(ret, name, params) skein_##name##_fn name;
  SKEIN_COMMAND_BUFFER_FUNCTIONS(CMDBUF_FIELD)
#undef CMDBUF_FIELD
} cmdbuf_fns;

/* Looks every entry point up; exits if one is missing. */
static inline void cmdbuf_load(test_env *env, cmdbuf_fns *f) {
#define CMDBUF_LOAD(ret, name, params)                                     \
  f->name = (skein_##name##_fn)clGetExtensionFunctionAddressForPlatform(   \
      env->platform, #name);                                               \
  if (!f->name) {                                                          \
    fprintf(stderr, "%s not found\n", #name);                              \
    exit(1);                                                               \
  }
  SKEIN_COMMAND_BUFFER_FUNCTIONS(CMDBUF_LOAD)
#undef CMDBUF_LOAD
}

/* The command-buffer state (CL_COMMAND_BUFFER_STATE_KHR). */
static inline cl_uint cmdbuf_state(const cmdbuf_fns *f,
                                   cl_command_buffer_khr cb) {
  cl_command_buffer_state_khr s = 99;
  REQUIRE_OK(f->clGetCommandBufferInfoKHR(cb, CL_COMMAND_BUFFER_STATE_KHR,
                                          sizeof s, &s, NULL));
  return s;
}

#endif
