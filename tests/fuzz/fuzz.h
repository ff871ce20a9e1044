/* This file declares what the fuzz targets of tests/fuzz/ share: the
 * Skein platform and device (through the ICD loader), the check that a
 * call returned CL_SUCCESS or one of the codes the OpenCL 3.0 API spec
 * lists for it, and a reader that turns the fuzzer's bytes into choices.
 * Each target defines LLVMFuzzerTestOneInput (and may define
 * LLVMFuzzerInitialize); libFuzzer or replay_main.c calls them. */
#ifndef SKEIN_FUZZ_H
#define SKEIN_FUZZ_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The Skein platform's CPU device; aborts when Skein is not the platform
 * the loader offers (OCL_ICD_VENDORS must name only Skein's .icd). */
extern cl_platform_id fz_platform;
extern cl_device_id fz_device;
void fz_setup(void);

/* A context of fz_device (aborts on failure: the targets need one). */
cl_context fz_context(void);

/* Aborts with "call: unexpected error code" unless err is CL_SUCCESS or
 * one of the codes in the list that follows (ended by 1, which no
 * OpenCL error is). Returns err. FUZZ_TRACE=1 in the environment prints
 * every checked call and its code (to read what an input does). */
cl_int fz_expect(const char *call, cl_int err, ...);
#define FZ_EXPECT(call, err, ...) fz_expect(call, err, __VA_ARGS__, 1)

/* Aborts with the message (a finding: libFuzzer saves the input). */
_Noreturn void fz_fail(const char *fmt, ...);

/* The input as a stream of choices: each take_* consumes bytes from the
 * front and returns 0 once the input is used up. */
typedef struct fz_in {
  const uint8_t *p;
  size_t n;
} fz_in;

uint8_t fz_u8(fz_in *in);
uint16_t fz_u16(fz_in *in);
uint32_t fz_u32(fz_in *in);
uint64_t fz_u64(fz_in *in);
/* A value in [0, n) (0 when n is 0). */
unsigned fz_pick(fz_in *in, unsigned n);
/* Takes the bytes up to and excluding the first occurrence of sep (the
 * separator is consumed too; all the rest when sep is "" or absent);
 * returns a NUL-terminated malloc'd copy and its length in *len_out. */
char *fz_take_until(fz_in *in, const char *sep, size_t *len_out);

/* Program build status and log of fz_device, checked for consistency
 * with the clBuildProgram/clCompileProgram/clLinkProgram result err:
 * CL_SUCCESS must leave CL_BUILD_SUCCESS, a failure CL_BUILD_ERROR (or
 * CL_BUILD_NONE for option errors). Aborts otherwise. */
void fz_check_build_info(cl_program p, cl_int err, const char *call);
/* Set by targets whose inputs are OpenCL C (build, link): a build the
 * crash guard saved from a crash or fatal error inside LLVM or Skein's
 * compiler (its log says "internal compiler error" or "LLVM crashed") is
 * then a finding, so the input is saved. fuzz_binary leaves it unset:
 * LLVM's bitcode reader crashes on crafted bitcode (docs/reliability.md). */
extern bool fz_guarded_crash_is_finding;

/* Creates every kernel of a built program and queries its program,
 * kernel, argument and work-group information, checking each answer's
 * error code and a few consistencies (names, counts). */
void fz_query_kernels(cl_program p);

#endif
