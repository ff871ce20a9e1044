/* This file contains the cl_khr_kernel_clock builtins: clock_read_device,
 * clock_read_work_group, clock_read_sub_group and their _hilo forms
 * (uint2: .lo the low 32 bits, .hi the high ones). Every scope reads the
 * CPU's time-stamp counter (LLVM's readcyclecounter: RDTSC on x86-64),
 * which on CPUs with an invariant TSC ticks at one constant rate and is
 * synchronised across cores, so the device scope holds: any two reads in
 * the device's kernels, on any worker, are ordered as the reads were; the
 * work-group and sub-group scopes, which ask less, hold too. Clang
 * declares them when the feature macros below are defined, as the
 * compiler does for programs (compiler/options.c). */
#define __opencl_c_kernel_clock_scope_device 1
#define __opencl_c_kernel_clock_scope_work_group 1
#define __opencl_c_kernel_clock_scope_sub_group 1
#include "builtins.h"

/* Not OVL: a clock read is neither const nor to be merged with another. */
#define CLOCK_OVL __attribute__((overloadable))

static ulong read_tsc(void) { return __builtin_readcyclecounter(); }

static uint2 hilo(ulong t) { return (uint2)((uint)t, (uint)(t >> 32)); }

CLOCK_OVL ulong clock_read_device(void) { return read_tsc(); }
CLOCK_OVL ulong clock_read_work_group(void) { return read_tsc(); }
CLOCK_OVL ulong clock_read_sub_group(void) { return read_tsc(); }
CLOCK_OVL uint2 clock_read_hilo_device(void) { return hilo(read_tsc()); }
CLOCK_OVL uint2 clock_read_hilo_work_group(void) { return hilo(read_tsc()); }
CLOCK_OVL uint2 clock_read_hilo_sub_group(void) { return hilo(read_tsc()); }

/* SPIR-V's OpReadClockKHR (SPV_KHR_shader_clock), which
 * compiler/spirv_lower.c turns into a call of this with the
 * instruction's scope (Device 1, Workgroup 2, Subgroup 3), and a bitcast
 * to two 32-bit integers for the vector form: the same counter. Not
 * overloadable: the SPIR-V module imports it by this name. */
ulong __skein_spirv_read_clock(uint scope) {
  (void)scope;
  return read_tsc();
}
