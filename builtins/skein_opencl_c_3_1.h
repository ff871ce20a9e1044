/* This file holds the OpenCL C 3.1 preprocessor macros (OpenCL C spec
 * v3.1.1, 6.12 "Preprocessor Directives and Macros"), which Clang 19
 * lacks. The compiler includes it first of Skein's declarations, after
 * the default header (compiler/builtins_blob.S embeds it).
 *
 * CL_VERSION_3_1 is defined in every language version, as Clang defines
 * CL_VERSION_3_0 at CL1.2 too: `__OPENCL_C_VERSION__ >= CL_VERSION_3_1`
 * must be false, not `>= 0`, in a program built for an older version.
 * Its value is 310: v3.1.1 printed 301, corrected to 310 on OpenCL-Docs'
 * main branch (PR #1568), the value every other version macro's pattern
 * gives.
 *
 * -cl-std=CL3.1 runs Clang's OpenCL C 3.0 front end with
 * __SKEIN_OPENCL_C_3_1 defined (compiler/options.c, which also enables
 * what 3.1 made part of the language); here __OPENCL_C_VERSION__ becomes
 * 310. It cannot be set on the command line: opencl-c-base.h, read
 * before this file, tests `__OPENCL_C_VERSION__ == 300` for the 3.0
 * feature macros. */
#define CL_VERSION_3_1 310
#if defined(__SKEIN_OPENCL_C_3_1)
#undef __OPENCL_C_VERSION__
#define __OPENCL_C_VERSION__ 310
#undef __SKEIN_OPENCL_C_3_1
#endif
