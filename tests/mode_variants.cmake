# The kernel tests again in the other execution modes (issue 13): each of
# them checks its kernels against host references, so run in fiber mode,
# in plain loop mode (no region mode) and with LLVM's vectorisers off
# they check those forms too, beside the default one the plain entry
# runs (test-printf is left out: it checks which mode each kernel took).
# Labelled mode-variants and release-only: the sanitizer stages of
# .ci/test skip them (the release stage runs them; test-modes-diff runs in
# every stage).
set(SKEIN_MODE_VARIANT_TESTS
  kernels barriers kernel-loops kernel-vector-loops kernel-types region
  collectives collectives-half subgroups subgroups-ext forward-progress
  uniform-arith expect-assume
  int-division
  builtins-async builtins-atomics builtins-atomics-c11 builtins-common
  builtins-integer generic-as program-globals device-enqueue svm pipes
  spirv-enqueue spirv-14 half-mad-chains)
# The tests again as <topic>@<suffix>, with setting (NAME=value) in
# their environment.
function(skein_target_variant_tests suffix setting)
  foreach(topic ${ARGN})
    if(NOT TARGET test-${topic})
      continue()
    endif()
    add_test(NAME ${topic}@${suffix} COMMAND test-${topic})
    set_tests_properties(${topic}@${suffix} PROPERTIES
      ENVIRONMENT "OCL_ICD_VENDORS=${SKEIN_ICD_DIR};OCL_ICD_ASSUME_ICD_EXTENSION=1;${setting}"
      TIMEOUT 1800 LABELS "mode-variants;release-only")
  endforeach()
endfunction()
skein_target_variant_tests(fiber SKEIN_MODE=fiber ${SKEIN_MODE_VARIANT_TESTS})
skein_target_variant_tests(loop SKEIN_MODE=loop ${SKEIN_MODE_VARIANT_TESTS})
skein_target_variant_tests(scalar SKEIN_VECTORIZE=0 ${SKEIN_MODE_VARIANT_TESTS})

# Code generation for AVX2 (issue 10): on an AVX-512 machine
# SKEIN_TARGET_FEATURES=-avx512f compiles kernels as for one without it
# (8 lanes, 256-bit vectors, sub-groups of 8), so the machines CI runs on
# check that path too. Elsewhere it changes nothing and the tests check
# the host's own width.
skein_target_variant_tests(avx2 SKEIN_TARGET_FEATURES=-avx512f
  kernels kernel-vector-loops collectives subgroups subgroups-api
  subgroups-ext bounds-check)

# Code generation for SSE4.2-only CPUs (no AVX, FMA or F16C): half
# conversions and fma become calls of helpers LLVM's code generator names
# (__extendhfsf2, __truncsfhf2, fmaf), which the JIT must find
# (compiler/math_lib.c, cc_math_define_runtime). Before they were
# defined, every half kernel failed to link for SKEIN_CPU=x86-64-v2.
skein_target_variant_tests(sse SKEIN_CPU=x86-64-v2 builtins-half kernel-types)

# Half without AVX-512 FP16: on a CPU with it (Sapphire and Emerald
# Rapids) Skein computes half in the hardware's half instructions, so the
# plain tests check only that path there. SKEIN_CPU_FEATURES=-avx512fp16
# compiles as for an AVX-512 CPU without it (a Zen 4 or 5): half in float
# between F16C conversions, mad widened by compiler/half_lower.c, half
# bodies vectorised by vector_plan.c's float rule. Elsewhere it changes
# nothing.
skein_target_variant_tests(nofp16 SKEIN_CPU_FEATURES=-avx512fp16
  builtins-half collectives-half float-atomics kernel-types half-mad-chains)

# The kernels linked by RTDyld instead of JITLink (SKEIN_JIT_LINKER=
# rtdyld, compiler/jit_listeners.cpp): the linker -g and SKEIN_PERF
# builds use, kept working for the placement comparisons of
# docs/performance.md.
skein_target_variant_tests(rtdyld SKEIN_JIT_LINKER=rtdyld
  kernels kernel-loops kernel-vector-loops half-mad-chains)
