/* This file contains the once-per-process LLVM initialisation and the
 * target model: which CPU kernels are compiled for (the host's, or the
 * one SKEIN_CPU and SKEIN_CPU_FEATURES name), and the properties of that
 * CPU every code-generation choice is derived from (vector width,
 * register count, FMA chains, half arithmetic). docs/architecture.md,
 * "The target model", gives the reasoning for each. */
#include "compiler_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* SKEIN_LLVM_OPTIONS passes LLVM's own command-line options, space-
 * separated, for looking into the optimiser: e.g.
 * "-pass-remarks-missed=loop-vectorize -pass-remarks-analysis=loop-vectorize"
 * says why a work-item loop was not vectorised. A developer's switch:
 * LLVM exits the process on an option it does not know. */
static void parse_llvm_options(void) {
  const char *env = getenv("SKEIN_LLVM_OPTIONS");
  if (!env || !*env)
    return;
  char *copy = strdup(env);
  const char *argv[32] = {"skein"};
  int argc = 1;
  for (char *save = NULL, *tok = copy ? strtok_r(copy, " ", &save) : NULL;
       tok && argc < 32; tok = strtok_r(NULL, " ", &save))
    argv[argc++] = tok;
  LLVMParseCommandLineOptions(argc, argv, "Skein's LLVM options\n");
  /* copy stays: LLVM's options may keep pointers into it. */
}

bool cc_env_switch(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

static void init_llvm(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  cc_enable_unroll_and_jam();
  parse_llvm_options();
}

void cc_llvm_init(void) {
  pthread_once(&init_once, init_llvm);
}

/* Whether the last entry for name (without its sign) in features turns
 * it on. */
bool cc_feature_on(const char *features, const char *name) {
  size_t len = strlen(name);
  bool on = false;
  for (const char *p = features; p && *p;) {
    size_t n = strcspn(p, ",");
    if (n == len + 1 && strncmp(p + 1, name, len) == 0)
      on = p[0] == '+';
    p += n + (p[n] == ',');
  }
  return on;
}

/* Whether features names name at all (on or off). */
static bool feature_named(const char *features, const char *name) {
  size_t len = strlen(name);
  for (const char *p = features; p && *p;) {
    size_t n = strcspn(p, ",");
    if (n == len + 1 && strncmp(p + 1, name, len) == 0)
      return true;
    p += n + (p[n] == ',');
  }
  return false;
}

/* base followed by the entries of list ("+f" or "-f", comma-separated;
 * a later entry wins, in LLVM as in cc_feature_on); NULL list: base. */
static char *append_features(const char *base, const char *list) {
  size_t cap = strlen(base) + (list ? strlen(list) : 0) + 2;
  char *out = malloc(cap);
  if (!out)
    return NULL;
  strcpy(out, base);
  for (const char *p = list; p && *p;) {
    size_t n = strcspn(p, ",");
    if (n > 1 && (p[0] == '-' || p[0] == '+')) {
      if (*out)
        strcat(out, ",");
      strncat(out, p, n);
    }
    p += n + (p[n] == ',');
  }
  return out;
}

/* Whether a feature is part of the vector and arithmetic ISA that
 * kernel code is made of. The others a CPU model lists (pku, mwaitx,
 * rdpid, sgx, ...) are system instructions no OpenCL kernel compiles
 * to; so are AMX's tile instructions, which LLVM emits only for their
 * intrinsics (no builtin of Skein's uses them), and which a virtual
 * machine may hide from a Sapphire Rapids guest: SKEIN_CPU=
 * sapphirerapids failed to build on such a 2-core Xeon for lacking
 * +amx-bf16. */
static bool code_feature(const char *name) {
  static const char *const prefixes[] = {"sse", "ssse3", "avx", "fma",
                                         "f16c", "bmi", "popcnt",
                                         "lzcnt", "movbe", "adx", "aes",
                                         "vaes", "pclmul", "vpclmulqdq",
                                         "gfni", "sha", "fp16", "bf16"};
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
      return true;
  return false;
}

/* Masks features to what the host has: each feature it turns on that
 * the host has off (features the host string does not name are LLVM's
 * tuning flags, "fast-..." and "slow-...", and stay) is turned off again
 * at the end of the string if code never uses it; the first one code
 * uses goes to *missing ("+name"), and the string is then left as it
 * is. Returns the string (features, or a longer malloc'd copy). */
static char *mask_to_host(char *features, const char *host, char *missing,
                          size_t cap) {
  missing[0] = '\0';
  for (const char *p = features; p && *p;) {
    size_t n = strcspn(p, ",");
    char name[128];
    if (n > 1 && p[0] == '+' && n - 1 < sizeof name) {
      memcpy(name, p + 1, n - 1);
      name[n - 1] = '\0';
      if (cc_feature_on(features, name) && feature_named(host, name) &&
          !cc_feature_on(host, name)) {
        if (code_feature(name)) {
          if (!missing[0])
            snprintf(missing, cap, "+%s", name);
        } else {
          size_t off = (size_t)(p - features);
          char extra[sizeof name + 2];
          snprintf(extra, sizeof extra, "-%s", name);
          char *longer = append_features(features, extra);
          if (!longer)
            return features;
          free(features);
          features = longer;
          p = features + off;
        }
      }
    }
    p += n + (p[n] == ',');
  }
  return features;
}

static cc_target the_target;
static pthread_once_t target_once = PTHREAD_ONCE_INIT;

/* Every property is read off the feature string, so SKEIN_CPU=haswell on
 * an AVX-512 machine gets exactly the choices a Haswell would make. */
static void derive_properties(cc_target *t) {
  const char *f = t->features;
  bool avx512 = cc_feature_on(f, "avx512f");
  /* 512-bit vectors wherever AVX-512 exists. Zen 4 executes them as two
   * 256-bit halves, at the same FLOPs per cycle as AVX2 but with half
   * the instructions, so 512 is never worse there. LLVM's default of 256
   * for Intel AVX-512 CPUs guards against the clock drop of heavy 512-bit
   * code; Skein has used 512 there since its first tuning, and the
   * clpeak figures of docs/performance.md were all measured with it (the
   * 256-bit alternative was not timed). */
  t->vector_bits = avx512 ? 512 : cc_feature_on(f, "avx") ? 256 : 128;
  /* zmm0-31 with AVX-512 (also ymm/xmm16-31 through AVX512VL), 16
   * otherwise. */
  t->vector_regs = avx512 ? 32 : 16;
  t->f16c = cc_feature_on(f, "f16c");
  t->fp16_arith = cc_feature_on(f, "avx512fp16");
  /* Every x86 core Skein has met has two FMA pipes of 4 cycles' latency
   * (Skylake to Emerald Rapids, Zen 2 to Zen 5; Haswell's 5 cycles want
   * 10): 8 independent chains keep both pipes full. Without FMA a
   * multiply and an add in sequence take about as long. */
  t->fma_chains = 8;
  /* SKEIN_FMA_CHAINS overrides it, to measure the choice. */
  const char *chains = getenv("SKEIN_FMA_CHAINS");
  if (chains && atoi(chains) >= 1 && atoi(chains) <= 32)
    t->fma_chains = (unsigned)atoi(chains);
}

static void find_target(void) {
  cc_llvm_init();
  cc_target *t = &the_target;
  char *host_cpu = LLVMGetHostCPUName();
  char *host_features = LLVMGetHostCPUFeatures();
  const char *cpu = getenv("SKEIN_CPU");
  char *base = NULL;
  if (cpu && *cpu && strcmp(cpu, "native") != 0) {
    base = cc_cpu_feature_string(cpu);
    if (!base) {
      snprintf(t->problem, sizeof t->problem,
               "SKEIN_CPU=%s is not a CPU LLVM knows for this target", cpu);
      cpu = NULL;
    }
  } else {
    cpu = NULL;
  }
  snprintf(t->cpu, sizeof t->cpu, "%s", cpu ? cpu : host_cpu);
  /* SKEIN_TARGET_FEATURES is the older name of SKEIN_CPU_FEATURES (it
   * took only "-" entries); both apply, in that order. */
  char *with_old = append_features(base ? base : host_features,
                                   getenv("SKEIN_TARGET_FEATURES"));
  t->features = with_old ? append_features(with_old,
                                           getenv("SKEIN_CPU_FEATURES"))
                         : NULL;
  free(with_old);
  free(base);
  if (!t->features)
    t->features = strdup(host_features);
  /* A CPU with instructions this one lacks: its code would stop on an
   * illegal instruction, so builds stop before the JIT (build.c). */
  char missing[160];
  t->runnable = true;
  if (t->features)
    t->features = mask_to_host(t->features, host_features, missing,
                               sizeof missing);
  if (t->features && missing[0]) {
    snprintf(t->problem, sizeof t->problem,
             "kernels compiled for %.63s need %.63s, which this CPU (%.63s) "
             "lacks: they can be compiled and dumped but not run",
             t->cpu, missing, host_cpu);
    t->runnable = false;
  }
  derive_properties(t);
  LLVMDisposeMessage(host_cpu);
  LLVMDisposeMessage(host_features);
}

const cc_target *cc_target_get(void) {
  pthread_once(&target_once, find_target);
  return &the_target;
}

char *cc_target_features(void) {
  const char *f = cc_target_get()->features;
  return strdup(f ? f : "");
}

/* The vector width for 32-bit lanes the optimiser targets; it decides
 * the sub-group size. */
unsigned cc_sub_group_size(void) {
  return cc_target_get()->vector_bits / 32;
}

LLVMTargetMachineRef cc_host_target_machine(cc_log *log, bool *avx512) {
  const cc_target *t = cc_target_get();
  char *triple = LLVMGetDefaultTargetTriple();
  LLVMTargetRef target;
  char *err = NULL;
  LLVMTargetMachineRef tm = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &err)) {
    cc_log_printf(log, "error: no LLVM target for %s: %s\n", triple, err);
    LLVMDisposeMessage(err);
  } else {
    tm = LLVMCreateTargetMachine(target, triple, t->cpu,
                                 t->features ? t->features : "",
                                 LLVMCodeGenLevelAggressive, LLVMRelocPIC,
                                 LLVMCodeModelJITDefault);
    *avx512 = t->vector_bits == 512;
  }
  LLVMDisposeMessage(triple);
  return tm;
}
