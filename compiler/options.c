/* This file contains the translation of OpenCL build options (the string
 * given to clBuildProgram) and the device caps into Clang cc1 arguments.
 * Only options the OpenCL API spec (3.1) lists are accepted. */
#include "compiler_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends a copy of s to the argument list; false on allocation failure. */
static bool push_arg(cc_options *o, const char *s, size_t len) {
  char **argv = realloc(o->argv, sizeof(*argv) * (size_t)(o->argc + 1));
  if (!argv)
    return false;
  o->argv = argv;
  char *copy = malloc(len + 1);
  if (!copy)
    return false;
  memcpy(copy, s, len);
  copy[len] = '\0';
  o->argv[o->argc++] = copy;
  return true;
}

static bool push(cc_options *o, const char *s) {
  return push_arg(o, s, strlen(s));
}

/* Builds -cl-ext=-all,+a,+b from the space-separated lists. */
static bool push_extensions(cc_options *o, const cc_device_caps *caps,
                            cc_log *log) {
  cc_log ext = {0};
  cc_log_printf(&ext, "-cl-ext=-all");
  const char *lists[2] = {caps ? caps->extensions : NULL,
                          caps ? caps->features : NULL};
  for (int i = 0; i < 2; i++) {
    for (const char *p = lists[i]; p && *p;) {
      p += strspn(p, " \t");
      size_t n = strcspn(p, " \t");
      if (n)
        cc_log_printf(&ext, ",+%.*s", (int)n, p);
      p += n;
    }
  }
  bool ok = !ext.oom && push(o, ext.buf);
  free(ext.buf);
  (void)log;
  return ok;
}

/* Extensions and features Clang 19 accepts in -cl-ext but defines no
 * macro for on this target: the extension is Skein's own (Clang does not
 * know it), or the feature macro is one opencl-c-base.h defines only for
 * SPIR targets. Skein defines them with -D when enabled. */
static const char *const macro_only[] = {
  "cl_khr_work_group_uniform_arithmetic",
  "cl_khr_extended_bit_ops",
  "cl_khr_subgroup_extended_types",
  "cl_khr_subgroup_non_uniform_vote",
  "cl_khr_subgroup_ballot",
  "cl_khr_subgroup_non_uniform_arithmetic",
  "cl_khr_subgroup_shuffle",
  "cl_khr_subgroup_shuffle_relative",
  "cl_khr_subgroup_clustered_reduce",
  "cl_khr_subgroup_rotate",
  "cl_intel_required_subgroup_size",
  "cl_intel_subgroups_char",
  "cl_intel_subgroups_long",
  "cl_khr_expect_assume",
  "cl_khr_integer_dot_product",
  "__opencl_c_integer_dot_product_input_4x8bit",
  "__opencl_c_integer_dot_product_input_4x8bit_packed",
  "cl_khr_kernel_clock",
  "cl_khr_subgroup_named_barrier",
  "__opencl_c_kernel_clock_scope_device",
  "__opencl_c_kernel_clock_scope_work_group",
  "__opencl_c_kernel_clock_scope_sub_group",
  "__opencl_c_work_group_collective_functions",
  "__opencl_c_fp16",
  "__opencl_c_atomic_scope_device",
  "__opencl_c_atomic_scope_all_devices",
  /* cl_ext_float_atomics (builtins/float_atomics.cl): Clang 19 declares
   * its functions (and the generic-pointer forms when both the global and
   * the local feature of an operation are defined) from these macros. */
  "cl_ext_float_atomics",
  "__opencl_c_ext_fp16_global_atomic_load_store",
  "__opencl_c_ext_fp16_local_atomic_load_store",
  "__opencl_c_ext_fp16_global_atomic_add",
  "__opencl_c_ext_fp32_global_atomic_add",
  "__opencl_c_ext_fp64_global_atomic_add",
  "__opencl_c_ext_fp16_local_atomic_add",
  "__opencl_c_ext_fp32_local_atomic_add",
  "__opencl_c_ext_fp64_local_atomic_add",
  "__opencl_c_ext_fp16_global_atomic_min_max",
  "__opencl_c_ext_fp32_global_atomic_min_max",
  "__opencl_c_ext_fp64_global_atomic_min_max",
  "__opencl_c_ext_fp16_local_atomic_min_max",
  "__opencl_c_ext_fp32_local_atomic_min_max",
  "__opencl_c_ext_fp64_local_atomic_min_max",
};

/* Whether name ends up enabled after every -cl-ext argument in argv, in
 * order (the device's list first, then the user's): +name/-name set it,
 * +all/-all set every name. */
static bool ext_enabled(const cc_options *o, const char *name) {
  bool on = false;
  size_t len = strlen(name);
  for (int i = 0; i < o->argc; i++) {
    if (strncmp(o->argv[i], "-cl-ext=", 8) != 0)
      continue;
    for (const char *p = o->argv[i] + 8; *p;) {
      size_t n = strcspn(p, ",");
      if (n > 1 && (p[0] == '+' || p[0] == '-') &&
          ((n - 1 == len && strncmp(p + 1, name, len) == 0) ||
           (n == 4 && strncmp(p + 1, "all", 3) == 0)))
        on = p[0] == '+';
      p += n + (p[n] == ',');
    }
  }
  return on;
}

/* -D for each enabled macro-only name, and the macros every OpenCL C
 * program sees that Clang defines only for SPIR targets: the platform's
 * OpenCL version (__OPENCL_VERSION__), __IMAGE_SUPPORT__ and, since the
 * host's FMA is as fast as a multiply-add, FP_FAST_FMA(F). */
static bool push_macro_only(cc_options *o) {
  if (!push(o, "-D__OPENCL_VERSION__=300") || !push(o, "-DFP_FAST_FMAF=1") ||
      !push(o, "-DFP_FAST_FMA=1"))
    return false;
  /* __IMAGE_SUPPORT__: 1 where the device supports images (the OpenCL C
   * spec's preprocessor macros); Clang defines it only for SPIR. */
  if (ext_enabled(o, "__opencl_c_images") &&
      !push(o, "-D__IMAGE_SUPPORT__=1"))
    return false;
  for (size_t i = 0; i < sizeof(macro_only) / sizeof(macro_only[0]); i++) {
    if (!ext_enabled(o, macro_only[i]))
      continue;
    char def[80];
    snprintf(def, sizeof(def), "-D%s=1", macro_only[i]);
    if (!push(o, def))
      return false;
  }
  return true;
}

/* The next whitespace-separated token of *p (double quotes group), copied
 * into a malloc'd string; NULL at the end or on allocation failure. */
static char *next_token(const char **p) {
  const char *s = *p + strspn(*p, " \t\r\n");
  if (!*s) {
    *p = s;
    return NULL;
  }
  char *tok = malloc(strlen(s) + 1);
  if (!tok)
    return NULL;
  size_t n = 0;
  bool quoted = false;
  for (; *s && (quoted || !strchr(" \t\r\n", *s)); s++) {
    if (*s == '"')
      quoted = !quoted;
    else
      tok[n++] = *s;
  }
  tok[n] = '\0';
  *p = s;
  return tok;
}

/* Options passed to Clang unchanged. */
static const char *const passthrough[] = {
  "-w", "-Werror", "-cl-mad-enable", "-cl-no-signed-zeros",
  "-cl-unsafe-math-optimizations", "-cl-finite-math-only",
  "-cl-fast-relaxed-math", "-cl-single-precision-constant",
  "-cl-fp32-correctly-rounded-divide-sqrt", "-cl-uniform-work-group-size",
};

/* The OpenCL C version of a -cl-std value (CL1.2: 120), 0 if unknown. */
static unsigned std_version(const char *v) {
  static const struct {
    const char *name;
    unsigned version;
  } stds[] = {{"CL1.0", 100}, {"CL1.1", 110}, {"CL1.2", 120},
              {"CL2.0", 200}, {"CL3.0", 300}, {"CL3.1", 310}};
  for (size_t i = 0; i < sizeof(stds) / sizeof(stds[0]); i++)
    if (strcmp(v, stds[i].name) == 0)
      return stds[i].version;
  return 0;
}

/* What OpenCL C 3.1 made part of the language (OpenCL C spec v3.1.1):
 * the promoted extensions' builtins, the 4x8-bit dot products (the
 * packed form required of every 3.1 device), and the sub-group
 * functions without __opencl_c_subgroups. Clang 19 declares each of
 * these builtins only while its extension or feature macro is defined
 * (-fdeclare-opencl-builtins looks the macro up at the call), and
 * opencl-c-base.h defines memory_scope_sub_group and the internal
 * __opencl_subgroup_builtins only under __opencl_c_subgroups; so a 3.1
 * build enables them all after the user's -cl-ext, whatever it said. A
 * 3.1 device supports every one of them (the API spec requires the
 * extensions reported), so the macros stay truthful. */
static const char cl_c_3_1_language[] =
    "-cl-ext=+__opencl_c_subgroups,+cl_khr_extended_bit_ops,"
    "+cl_khr_integer_dot_product,"
    "+__opencl_c_integer_dot_product_input_4x8bit,"
    "+__opencl_c_integer_dot_product_input_4x8bit_packed,"
    "+cl_khr_subgroup_extended_types,+cl_khr_subgroup_rotate,"
    "+cl_khr_subgroup_shuffle,+cl_khr_subgroup_shuffle_relative";

/* Translates one option tok (p: the rest of the string, for options that
 * take a separate value); *std receives a -cl-std's version. 1 ok, 0
 * invalid, -1 out of memory. */
static int translate(cc_options *o, const char *tok, const char **p,
                     unsigned *std, cc_log *log) {
  for (size_t i = 0; i < sizeof(passthrough) / sizeof(passthrough[0]); i++)
    if (strcmp(tok, passthrough[i]) == 0)
      return push(o, tok) ? 1 : -1;
  if (strcmp(tok, "-cl-kernel-arg-info") == 0) {
    o->kernel_arg_info = true;   /* Clang always gets it (see build.c) */
    return 1;
  }
  if (strcmp(tok, "-cl-opt-disable") == 0) {
    o->opt_disable = true;
    return 1;
  }
  /* Skein's own: checked global, constant and local accesses. */
  if (strcmp(tok, "-skein-bounds-check") == 0) {
    o->bounds_check = true;
    return 1;
  }
  /* -g: full debug info (lines, variables), DWARF 4 tuned for gdb; the
   * JIT registers the code with gdb (jit_listeners.cpp) and the source
   * gets a file name (debug_info.c). Bounds-checked kernels report
   * its lines. */
  if (strcmp(tok, "-g") == 0) {
    o->debug = true;
    return push(o, "-debug-info-kind=constructor") &&
                   push(o, "-dwarf-version=4") &&
                   push(o, "-debugger-tuning=gdb")
               ? 1
               : -1;
  }
  /* -s <file>: the file a -g build's debug info names (Intel's CPU
   * runtime takes the same option): the application's own copy of the
   * source, so gdb shows and breaks in it. */
  if (strcmp(tok, "-s") == 0) {
    char *val = next_token(p);
    if (!val) {
      cc_log_printf(log, "error: option '-s' needs a file name\n");
      return 0;
    }
    free(o->debug_source);
    o->debug_source = val;
    return 1;
  }
  /* The program does not need its sub-groups to make independent
   * forward progress: its waiting loops keep the fast modes. */
  if (strcmp(tok, "-cl-no-subgroup-ifp") == 0) {
    o->no_subgroup_ifp = true;
    return 1;
  }
  if (strcmp(tok, "-cl-denorms-are-zero") == 0)
    return push(o, "-fdenormal-fp-math-f32=preserve-sign") ? 1 : -1;
  if (strncmp(tok, "-cl-std=", 8) == 0) {
    *std = std_version(tok + 8);
    if (!*std) {
      cc_log_printf(log, "error: invalid option value '%s'\n", tok);
      return 0;
    }
    /* Clang 19 has no OpenCL C 3.1 ("invalid value 'CL3.1'"): its 3.0
     * front end builds it, and the 3.1 additions come after the last
     * option (cc_options_parse) and in the prelude (builtins/
     * skein_opencl_c_3_1.h). */
    return push(o, *std == 310 ? "-cl-std=CL3.0" : tok) ? 1 : -1;
  }
  if (strncmp(tok, "-cl-ext=", 8) == 0 && tok[8])
    return push(o, tok) ? 1 : -1;
  if ((strcmp(tok, "-D") == 0 || strcmp(tok, "-I") == 0)) {
    char *val = next_token(p);
    if (!val) {
      cc_log_printf(log, "error: option '%s' needs a value\n", tok);
      return 0;
    }
    int r = push(o, tok) && push(o, val) ? 1 : -1;
    free(val);
    return r;
  }
  if ((strncmp(tok, "-D", 2) == 0 || strncmp(tok, "-I", 2) == 0) && tok[2])
    return push(o, tok) ? 1 : -1;
  cc_log_printf(log, "error: unsupported build option '%s'\n", tok);
  return 0;
}

cc_status cc_options_parse(const char *options, const cc_device_caps *caps,
                           cc_options *out, cc_log *log) {
  memset(out, 0, sizeof(*out));
  unsigned std = 0;
  /* The device's extensions first, so a user's -cl-ext refines them. */
  if (!push_extensions(out, caps, log))
    return CC_OUT_OF_MEMORY;
  const char *p = options ? options : "";
  for (;;) {
    char *tok = next_token(&p);
    if (!tok) {
      if (*p)
        return CC_OUT_OF_MEMORY;
      break;
    }
    int r = translate(out, tok, &p, &std, log);
    free(tok);
    if (r < 0)
      return CC_OUT_OF_MEMORY;
    if (r == 0)
      return CC_INVALID_OPTIONS;
  }
  /* Without -cl-std, a device compiles OpenCL C 1.2 (OpenCL 3.0 API
   * spec, 5.8.6.5). */
  if (!std && !push(out, "-cl-std=CL1.2"))
    return CC_OUT_OF_MEMORY;
  /* -cl-std=CL3.1 "will fail to compile the program for any devices
   * when CL_DEVICE_OPENCL_C_ALL_VERSIONS does not include OpenCL C 3.1"
   * (API spec v3.1.1, 5.8.6.5): a build failure, not an invalid option.
   * Without caps (a binary's stored options) the build that made it
   * checked already. The last -cl-std counts, as in Clang. */
  if (std == 310 && caps && caps->max_cl_c_version < 310) {
    cc_log_printf(log, "error: this device does not support OpenCL C 3.1 "
                  "(-cl-std=CL3.1); CL_DEVICE_OPENCL_C_ALL_VERSIONS lists "
                  "the versions it builds\n");
    return CC_BUILD_FAILED;
  }
  if (std == 310 && (!push(out, cl_c_3_1_language) ||
                     !push(out, "-D__SKEIN_OPENCL_C_3_1=1")))
    return CC_OUT_OF_MEMORY;
  return push_macro_only(out) ? CC_OK : CC_OUT_OF_MEMORY;
}

void cc_options_free(cc_options *o) {
  for (int i = 0; i < o->argc; i++)
    free(o->argv[i]);
  free(o->argv);
  free(o->debug_source);
  memset(o, 0, sizeof(*o));
}
