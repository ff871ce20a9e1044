/* This file contains the on-disk program cache: the key of a request,
 * the entry format (a checked header, then the program's metadata, its
 * binary, its build log, the files its front end read and the object
 * file the JIT generated), loading an entry into a new JIT without Clang
 * or LLVM's optimiser, atomic stores and least-recently-used eviction.
 * Every failure of the cache is a miss: a build never fails because of
 * it. docs/architecture.md ("Program cache") describes the design. */
#define _GNU_SOURCE   /* dl_iterate_phdr, dladdr */
#include "program_cache.h"
#include "math_lib.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <llvm-c/Orc.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Core.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

_Thread_local bool cc_cache_capturing;

#define ENTRY_MAGIC "SKEINCCH"
#define ENTRY_FORMAT 2u   /* 2: a list of object files (one per part) */
#define DEFAULT_MAX_MB 256.0

/* ---- SHA-256 (FIPS 180-4): the key is a name that must not collide ---- */

typedef struct sha256 {
  uint32_t h[8];
  unsigned char block[64];
  size_t fill;
  uint64_t bytes;
} sha256;

static const uint32_t sha_k[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
  0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
  0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
  0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror(uint32_t x, unsigned n) {
  return (x >> n) | (x << (32 - n));
}

static void sha_block(sha256 *s, const unsigned char *p) {
  uint32_t w[64], v[8];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
           (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  memcpy(v, s->h, sizeof(v));
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
                  ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha_k[i] + w[i];
    uint32_t t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
                  ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
    memmove(v + 1, v, 7 * sizeof(uint32_t));
    v[4] += t1;
    v[0] = t1 + t2;
  }
  for (int i = 0; i < 8; i++)
    s->h[i] += v[i];
}

static void sha_init(sha256 *s) {
  static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                 0xa54ff53a, 0x510e527f, 0x9b05688c,
                                 0x1f83d9ab, 0x5be0cd19};
  memcpy(s->h, h0, sizeof(h0));
  s->fill = 0;
  s->bytes = 0;
}

static void sha_add(sha256 *s, const void *data, size_t n) {
  const unsigned char *p = data;
  s->bytes += n;
  while (n) {
    size_t take = 64 - s->fill < n ? 64 - s->fill : n;
    memcpy(s->block + s->fill, p, take);
    s->fill += take;
    p += take;
    n -= take;
    if (s->fill == 64) {
      sha_block(s, s->block);
      s->fill = 0;
    }
  }
}

static void sha_end(sha256 *s, unsigned char out[32]) {
  uint64_t bits = s->bytes * 8;
  unsigned char pad = 0x80, zero = 0, len[8];
  sha_add(s, &pad, 1);
  while (s->fill != 56)
    sha_add(s, &zero, 1);
  for (int i = 0; i < 8; i++)
    len[i] = (unsigned char)(bits >> (56 - 8 * i));
  sha_add(s, len, 8);
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 4; j++)
      out[4 * i + j] = (unsigned char)(s->h[i] >> (24 - 8 * j));
}

/* A field of the key: its length first, so that no two sequences of
 * fields hash the same bytes. */
static void key_field(sha256 *s, const void *data, size_t n) {
  uint64_t len = n;
  sha_add(s, &len, sizeof(len));
  if (n)
    sha_add(s, data, n);
}

static void key_string(sha256 *s, const char *str) {
  key_field(s, str ? str : "", str ? strlen(str) : 0);
}

/* The payload checksum: catches truncation and flipped bits (not
 * malice: the cache folder is the user's own). Eight bytes a step. */
static uint64_t checksum(const unsigned char *p, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  for (; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

/* ---- identity of this build of Skein ---- */

static unsigned char identity[64];
static size_t identity_size;
static pthread_once_t identity_once = PTHREAD_ONCE_INIT;

/* The GNU build-id note of the object holding this code (libskein.so),
 * read from its program headers in memory. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  Dl_info *self = arg;
  if ((void *)info->dlpi_addr != self->dli_fbase)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE)
      continue;
    const unsigned char *p = (const unsigned char *)info->dlpi_addr +
                             ph->p_vaddr;
    const unsigned char *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *n = (const void *)p;
      const unsigned char *name = p + sizeof(*n);
      const unsigned char *desc = name + ((n->n_namesz + 3) & ~3u);
      if (desc + n->n_descsz > end)
        break;
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
          memcmp(name, "GNU", 4) == 0 && n->n_descsz <= sizeof(identity)) {
        memcpy(identity, desc, n->n_descsz);
        identity_size = n->n_descsz;
        return 1;
      }
      p = desc + ((n->n_descsz + 3) & ~3u);
    }
  }
  return 1;
}

/* Without a build-id (a linker told not to write one), the SHA-256 of
 * the library file: slower, once per process, and as exact. */
static void hash_own_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return;
  sha256 s;
  sha_init(&s);
  unsigned char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
    sha_add(&s, buf, n);
  fclose(f);
  sha_end(&s, identity);
  identity_size = 32;
}

static void find_identity(void) {
  Dl_info self;
  if (!dladdr((void *)find_identity, &self))
    return;
  dl_iterate_phdr(find_build_id, &self);
  if (!identity_size && self.dli_fname)
    hash_own_file(self.dli_fname);
}

/* ---- switches ---- */

static bool env_is(const char *name, const char *value) {
  const char *e = getenv(name);
  return e && strcmp(e, value) == 0;
}

static bool trace(void) {
  return cc_dump_enabled("cache");
}

bool cc_cache_enabled(void) {
  if (env_is("SKEIN_CACHE", "0") || getenv("SKEIN_INJECT_COMPILER_CRASH"))
    return false;
  const char *dump = getenv("SKEIN_DUMP");
  return !dump || !*dump || strcmp(dump, "cache") == 0;
}

/* SKEIN_* variables read only by the runtime, the scheduler or the cache
 * itself: they change no compiled code. Every other SKEIN_* variable is
 * part of the key, so one added later for the compiler is never
 * forgotten (at worst a variable that does not matter causes misses). */
static bool runtime_only(const char *entry) {
  static const char *const names[] = {
    "SKEIN_CACHE=", "SKEIN_CACHE_DIR=", "SKEIN_CACHE_MAX_MB=",
    "SKEIN_DUMP=", "SKEIN_NUM_THREADS=", "SKEIN_SCHED_CALLER=",
    "SKEIN_DEBUG=", "SKEIN_NO_CRASH_GUARD=", "SKEIN_SPIRV_SECONDS=",
    /* how many threads compile, and when: the code is the same */
    "SKEIN_BUILD_THREADS=", "SKEIN_LAZY=",
  };
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
    if (strncmp(entry, names[i], strlen(names[i])) == 0)
      return true;
  return false;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The SKEIN_* variables of the environment, in sorted order. */
static bool key_environment(sha256 *s) {
  size_t n = 0;
  for (char **e = environ; e && *e; e++)
    n += strncmp(*e, "SKEIN_", 6) == 0 && !runtime_only(*e);
  const char **list = malloc((n + 1) * sizeof(*list));
  if (!list)
    return false;
  size_t k = 0;
  for (char **e = environ; e && *e && k < n; e++)
    if (strncmp(*e, "SKEIN_", 6) == 0 && !runtime_only(*e))
      list[k++] = *e;
  qsort(list, k, sizeof(*list), cmp_str);
  key_field(s, &k, sizeof(k));
  for (size_t i = 0; i < k; i++)
    key_string(s, list[i]);
  free(list);
  return true;
}

/* What the code is generated for: the triple, the CPU and the feature
 * string target.c gives the code generator (cc_target_features: the
 * host's, or what SKEIN_* variables made of it), and the host's own CPU
 * and features, which the math library's vector forms follow. Found once
 * per process: they depend only on the host and on SKEIN_* variables,
 * which the key holds themselves, so a variable changed later still
 * changes the key. (Not from a TargetMachine: making one costs more
 * than the rest of a hit.) */
static sha256 target_part;   /* the fields below, hashed */
static bool target_ok;
static pthread_once_t target_once = PTHREAD_ONCE_INIT;

static void find_target(void) {
  char *parts[5] = {LLVMGetDefaultTargetTriple(), LLVMGetHostCPUName(),
                    LLVMGetHostCPUFeatures(), NULL, NULL};
  char *features = cc_target_features();
  if (!features)
    goto out;
  sha_init(&target_part);
  for (int i = 0; i < 3; i++)
    key_string(&target_part, parts[i]);
  key_string(&target_part, features);
  unsigned sg = cc_sub_group_size();
  key_field(&target_part, &sg, sizeof(sg));
  target_ok = true;
out:
  for (int i = 0; i < 3; i++)
    LLVMDisposeMessage(parts[i]);
  free(features);
}

static bool key_target(sha256 *s) {
  pthread_once(&target_once, find_target);
  if (!target_ok)
    return false;
  sha256 copy = target_part;
  unsigned char digest[32];
  sha_end(&copy, digest);
  key_field(s, digest, sizeof(digest));
  return true;
}

/* The SPIR-V tools run as child processes: their identity (path, size,
 * modification time) decides the translation too. */
static void key_il_tools(sha256 *s) {
  const char *tools[2] = {getenv("SKEIN_LLVM_SPIRV"),
                          getenv("SKEIN_SPIRV_VAL")};
#ifdef SKEIN_LLVM_SPIRV_PATH
  if (!tools[0])
    tools[0] = SKEIN_LLVM_SPIRV_PATH;
  if (!tools[1])
    tools[1] = SKEIN_SPIRV_VAL_PATH;
#endif
  for (int i = 0; i < 2; i++) {
    struct stat st;
    uint64_t id[2] = {0, 0};
    if (tools[i] && stat(tools[i], &st) == 0) {
      id[0] = (uint64_t)st.st_size;
      id[1] = (uint64_t)st.st_mtim.tv_sec * 1000000000ull +
              (uint64_t)st.st_mtim.tv_nsec;
    }
    key_string(s, tools[i]);
    key_field(s, id, sizeof(id));
  }
}

/* Whether options holds -g: such a build also leaves what a debugger
 * needs beside its code (its source as a file), which a hit would not. */
static bool debug_build(const char *options) {
  for (const char *p = options; p && *p;) {
    p += strspn(p, " \t");
    size_t n = strcspn(p, " \t");
    if (n == 2 && strncmp(p, "-g", 2) == 0)
      return true;
    p += n;
  }
  return false;
}

bool cc_cache_key_make(cc_cache_request what, const cc_cache_part *parts,
                       unsigned n, const char *options,
                       const cc_device_caps *caps, cc_cache_key *key) {
  pthread_once(&identity_once, find_identity);
  if (!identity_size || debug_build(options))
    return false;
  sha256 s;
  sha_init(&s);
  key_string(&s, "skein program cache 1");
  key_field(&s, identity, identity_size);
  key_string(&s, SKEIN_VERSION);
  key_string(&s, SKEIN_LLVM_VERSION);
  unsigned llvm[3];
  LLVMGetVersion(&llvm[0], &llvm[1], &llvm[2]);
  key_field(&s, llvm, sizeof(llvm));
  uint32_t w = what;
  key_field(&s, &w, sizeof(w));
  key_field(&s, &n, sizeof(n));
  for (unsigned i = 0; i < n; i++)
    key_field(&s, parts[i].data, parts[i].size);
  key_string(&s, options);
  key_string(&s, caps ? caps->extensions : NULL);
  key_string(&s, caps ? caps->features : NULL);
  unsigned version = caps ? caps->max_cl_c_version : 0;
  key_field(&s, &version, sizeof(version));
  if (what == CC_CACHE_BUILD_IL || what == CC_CACHE_COMPILE_IL)
    key_il_tools(&s);
  if (!key_environment(&s) || !key_target(&s))
    return false;
  sha_end(&s, key->hash);
  return true;
}

/* ---- where entries live ---- */

/* The cache folder (malloc'd): SKEIN_CACHE_DIR, else $XDG_CACHE_HOME/
 * skein, else ~/.cache/skein; created (mode 0700) if missing. NULL if
 * there is none. */
static char *cache_dir(void) {
  const char *dir = getenv("SKEIN_CACHE_DIR");
  char *path = NULL;
  if (dir && *dir) {
    path = strdup(dir);
  } else {
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg == '/') {
      if (asprintf(&path, "%s/skein", xdg) < 0)
        path = NULL;
    } else if (home && *home) {
      if (asprintf(&path, "%s/.cache/skein", home) < 0)
        path = NULL;
    }
  }
  if (!path)
    return NULL;
  /* mkdir -p: each parent in turn (existing ones answer EEXIST). */
  for (char *p = path + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    mkdir(path, 0700);
    *p = '/';
  }
  if (mkdir(path, 0700) != 0 && errno != EEXIST) {
    free(path);
    return NULL;
  }
  return path;
}

static char *entry_path(const char *dir, const cc_cache_key *key) {
  char hex[65];
  for (int i = 0; i < 32; i++)
    snprintf(hex + 2 * i, 3, "%02x", key->hash[i]);
  char *path;
  return asprintf(&path, "%s/%s.skc", dir, hex) < 0 ? NULL : path;
}

/* ---- the entry: header, then payload ---- */

typedef struct entry_header {
  char magic[8];
  uint32_t format;
  uint32_t header_size;
  unsigned char key[32];
  uint64_t payload_size;
  uint64_t payload_checksum;
} entry_header;

/* A growable payload. */
typedef struct writer {
  unsigned char *buf;
  size_t len, cap;
  bool failed;
} writer;

static void put(writer *w, const void *data, size_t n) {
  if (w->failed)
    return;
  if (w->len + n > w->cap) {
    size_t cap = w->cap ? w->cap : 4096;
    while (cap < w->len + n)
      cap *= 2;
    unsigned char *buf = realloc(w->buf, cap);
    if (!buf) {
      w->failed = true;
      return;
    }
    w->buf = buf;
    w->cap = cap;
  }
  if (n)
    memcpy(w->buf + w->len, data, n);
  w->len += n;
}

static void put_u64(writer *w, uint64_t v) {
  put(w, &v, sizeof(v));
}

static void put_blob(writer *w, const void *data, size_t n) {
  put_u64(w, n);
  put(w, data, n);
}

/* A string or NULL: its length plus one, 0 for NULL. */
static void put_str(writer *w, const char *s) {
  put_u64(w, s ? strlen(s) + 1 : 0);
  if (s)
    put(w, s, strlen(s));
}

/* Reads a payload; any overrun marks it bad and reads zeros. */
typedef struct reader {
  const unsigned char *p, *end;
  bool bad;
} reader;

static const unsigned char *take(reader *r, size_t n) {
  if (r->bad || (size_t)(r->end - r->p) < n) {
    r->bad = true;
    return NULL;
  }
  const unsigned char *at = r->p;
  r->p += n;
  return at;
}

static uint64_t get_u64(reader *r) {
  const unsigned char *at = take(r, 8);
  uint64_t v = 0;
  if (at)
    memcpy(&v, at, 8);
  return v;
}

/* Points into the payload: no copy. */
static const unsigned char *get_blob(reader *r, size_t *n) {
  *n = get_u64(r);
  return take(r, *n);
}

/* A malloc'd copy of a string put_str wrote (NULL for NULL, or bad). */
static char *get_str(reader *r) {
  uint64_t n = get_u64(r);
  if (n == 0)
    return NULL;
  const unsigned char *at = take(r, n - 1);
  char *s = at ? malloc(n) : NULL;
  if (!s) {
    r->bad = true;
    return NULL;
  }
  memcpy(s, at, n - 1);
  s[n - 1] = '\0';
  return s;
}

/* ---- kernels ---- */

static void put_kernel(writer *w, const cc_kernel_info *k) {
  put_str(w, k->name);
  put_u64(w, k->num_args);
  for (unsigned i = 0; i < k->num_args; i++) {
    const cc_arg_info *a = &k->args[i];
    put_u64(w, a->kind);
    put_u64(w, a->size);
    put_u64(w, a->address_qualifier);
    put_u64(w, a->access_qualifier);
    put_u64(w, a->type_qualifier);
    put_str(w, a->type_name);
    put_str(w, a->name);
  }
  put_str(w, k->attributes);
  for (int d = 0; d < 3; d++) {
    put_u64(w, k->reqd_work_group_size[d]);
    put_u64(w, k->work_group_size_hint[d]);
  }
  put_u64(w, k->static_local_mem_size);
  put_u64(w, k->private_mem_size);
  put_u64(w, k->uses_barriers);
  put_u64(w, k->sub_group_size);
  put_u64(w, k->required_sub_group_size);
  put_u64(w, k->uses_printf);
  put_u64(w, k->num_bounds_sites);
  for (unsigned i = 0; i < k->num_bounds_sites; i++) {
    const cc_bounds_site *b = &k->bounds_sites[i];
    put_u64(w, b->arg);
    put_str(w, b->variable);
    put_u64(w, b->variable_size);
    put_u64(w, b->access);
    put_u64(w, b->line);
    put_u64(w, b->is_store);
  }
}

/* Counts read from a file are bounded by what the rest of it could
 * hold, so a garbage count cannot ask for a huge allocation. */
static bool count_ok(reader *r, uint64_t n, size_t min_bytes) {
  if (n > (uint64_t)(r->end - r->p) / min_bytes)
    r->bad = true;
  return !r->bad;
}

static bool get_kernel(reader *r, cc_kernel_info *k) {
  k->name = get_str(r);
  uint64_t n = get_u64(r);
  if (!k->name || !count_ok(r, n, 7 * 8))
    return false;
  k->num_args = (unsigned)n;
  k->args = calloc(n + 1, sizeof(*k->args));
  if (!k->args)
    return false;
  for (unsigned i = 0; i < k->num_args; i++) {
    cc_arg_info *a = &k->args[i];
    a->kind = (cc_arg_kind)get_u64(r);
    a->size = get_u64(r);
    a->address_qualifier = (unsigned)get_u64(r);
    a->access_qualifier = (unsigned)get_u64(r);
    a->type_qualifier = get_u64(r);
    a->type_name = get_str(r);
    a->name = get_str(r);
    if (!a->type_name || a->kind > CC_ARG_PIPE)
      return false;
  }
  k->attributes = get_str(r);
  for (int d = 0; d < 3; d++) {
    k->reqd_work_group_size[d] = get_u64(r);
    k->work_group_size_hint[d] = get_u64(r);
  }
  k->static_local_mem_size = get_u64(r);
  k->private_mem_size = get_u64(r);
  k->uses_barriers = get_u64(r) != 0;
  k->sub_group_size = (unsigned)get_u64(r);
  k->required_sub_group_size = (unsigned)get_u64(r);
  k->uses_printf = get_u64(r) != 0;
  n = get_u64(r);
  if (!k->attributes || !count_ok(r, n, 6 * 8))
    return false;
  k->num_bounds_sites = (unsigned)n;
  k->bounds_sites = n ? calloc(n, sizeof(*k->bounds_sites)) : NULL;
  if (n && !k->bounds_sites)
    return false;
  for (unsigned i = 0; i < k->num_bounds_sites; i++) {
    cc_bounds_site *b = &k->bounds_sites[i];
    b->arg = (unsigned)get_u64(r);
    b->variable = get_str(r);
    b->variable_size = get_u64(r);
    b->access = get_u64(r);
    b->line = (unsigned)get_u64(r);
    b->is_store = get_u64(r) != 0;
  }
  return !r->bad;
}

/* ---- the files a front end read ---- */

/* Size and checksum of a file's bytes; false if it cannot be read. */
static bool file_digest(const char *path, uint64_t *size, uint64_t *sum) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  struct stat st;
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  unsigned char *buf = ok ? malloc((size_t)st.st_size + 1) : NULL;
  ok = buf && read(fd, buf, (size_t)st.st_size) == st.st_size;
  if (ok) {
    *size = (uint64_t)st.st_size;
    *sum = checksum(buf, (size_t)st.st_size);
  }
  free(buf);
  close(fd);
  return ok;
}

/* Writes the list of dependencies with each one's digest; false if one
 * cannot be read (then the entry is not written). */
static bool put_deps(writer *w, const char *deps, size_t size) {
  uint64_t n = 0;
  for (size_t i = 0; i < size; i += strlen(deps + i) + 1)
    n++;
  put_u64(w, n);
  for (size_t i = 0; i < size; i += strlen(deps + i) + 1) {
    uint64_t fsize, sum;
    if (!file_digest(deps + i, &fsize, &sum))
      return false;
    put_str(w, deps + i);
    put_u64(w, fsize);
    put_u64(w, sum);
  }
  return true;
}

/* Whether every dependency still has the bytes it had (resolved from
 * the current folder, as the front end would resolve it now). */
static bool deps_unchanged(reader *r) {
  uint64_t n = get_u64(r);
  if (!count_ok(r, n, 3 * 8))
    return false;
  for (uint64_t i = 0; i < n; i++) {
    char *path = get_str(r);
    uint64_t size = get_u64(r), sum = get_u64(r), now_size, now_sum;
    bool same = path && !r->bad && file_digest(path, &now_size, &now_sum) &&
                now_size == size && now_sum == sum;
    if (!same && path && !r->bad && trace())
      fprintf(stderr, "skein: cache: %s changed\n", path);
    free(path);
    if (!same)
      return false;
  }
  return true;
}

/* ---- store ---- */

static double max_bytes(void) {
  const char *e = getenv("SKEIN_CACHE_MAX_MB");
  char *end;
  double mb = e ? strtod(e, &end) : DEFAULT_MAX_MB;
  if (!e || end == e || *end || !(mb >= 0))
    mb = DEFAULT_MAX_MB;
  return mb * 1024 * 1024;
}

typedef struct entry_stat {
  char *name;
  struct timespec used;
  off_t size;
} entry_stat;

static int cmp_used(const void *a, const void *b) {
  const entry_stat *x = a, *y = b;
  if (x->used.tv_sec != y->used.tv_sec)
    return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  return (x->used.tv_nsec > y->used.tv_nsec) -
         (x->used.tv_nsec < y->used.tv_nsec);
}

/* Deletes the least recently used entries (a hit refreshes an entry's
 * modification time) until the folder holds at most the cap, and the
 * temporary files of writers that died over an hour ago. Returns the
 * bytes left in entries. */
static double evict(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return 0;
  entry_stat *list = NULL;
  size_t n = 0, cap = 0;
  double total = 0;
  time_t now = time(NULL);
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    bool entry = len > 4 && strcmp(e->d_name + len - 4, ".skc") == 0;
    bool temp = strstr(e->d_name, ".tmp.") != NULL;
    struct stat st;
    if ((!entry && !temp) || fstatat(dirfd(d), e->d_name, &st, 0) != 0)
      continue;
    if (temp) {
      if (now - st.st_mtim.tv_sec > 3600)
        unlinkat(dirfd(d), e->d_name, 0);
      continue;
    }
    if (n == cap) {
      entry_stat *grown = realloc(list, (cap = cap ? 2 * cap : 64) *
                                            sizeof(*list));
      if (!grown)
        break;
      list = grown;
    }
    if (!(list[n].name = strdup(e->d_name)))
      break;
    list[n].used = st.st_mtim;
    list[n].size = st.st_size;
    total += (double)st.st_size;
    n++;
  }
  double limit = max_bytes();
  if (total > limit) {
    qsort(list, n, sizeof(*list), cmp_used);
    for (size_t i = 0; i < n && total > limit; i++) {
      if (unlinkat(dirfd(d), list[i].name, 0) == 0) {
        total -= (double)list[i].size;
        if (trace())
          fprintf(stderr, "skein: cache evicted %s\n", list[i].name);
      }
    }
  }
  for (size_t i = 0; i < n; i++)
    free(list[i].name);
  free(list);
  closedir(d);
  return total;
}

/* The folder's usage ledger ("usage": the entries' bytes as of the last
 * scan plus what was stored since, in decimal): a store scans the folder
 * (which costs a stat per entry: 10-40 ms with ten thousand) only when
 * the ledger says the cap is passed, or when there is no ledger. Stores
 * racing each other may lose an addition; the ledger then runs low until
 * the next scan corrects it, so the cap can be passed by what was lost. */
static void account(const char *dir, size_t added) {
  char *path, *tmp;
  if (asprintf(&path, "%s/usage", dir) < 0)
    return;
  static _Atomic unsigned counter;
  if (asprintf(&tmp, "%s/usage.tmp.%ld.%u", dir, (long)getpid(),
               counter++) < 0) {
    free(path);
    return;
  }
  double used = -1;
  FILE *f = fopen(path, "r");
  if (f) {
    if (fscanf(f, "%lf", &used) != 1 || !(used >= 0))
      used = -1;
    fclose(f);
  }
  if (used < 0 || used + (double)added > max_bytes())
    used = evict(dir);
  else
    used += (double)added;
  f = fopen(tmp, "w");
  if (f) {
    bool ok = fprintf(f, "%.0f\n", used) > 0;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0)
      unlink(tmp);
  }
  free(tmp);
  free(path);
}

/* Writes all of buf to a new temporary file beside path and renames it
 * onto path: readers see the old entry or the whole new one. */
static bool write_atomically(const char *path, const void *head, size_t hn,
                             const void *body, size_t bn) {
  static _Atomic unsigned counter;
  char *tmp;
  if (asprintf(&tmp, "%s.tmp.%ld.%u", path, (long)getpid(),
               counter++) < 0)
    return false;
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  bool ok = fd >= 0;
  const unsigned char *parts[2] = {head, body};
  size_t sizes[2] = {hn, bn};
  for (int i = 0; ok && i < 2; i++) {
    for (size_t done = 0; ok && done < sizes[i];) {
      ssize_t k = write(fd, parts[i] + done, sizes[i] - done);
      ok = k > 0;
      done += ok ? (size_t)k : 0;
    }
  }
  if (fd >= 0 && close(fd) != 0)
    ok = false;
  if (ok)
    ok = rename(tmp, path) == 0;
  if (!ok && fd >= 0)
    unlink(tmp);
  free(tmp);
  return ok;
}

void cc_cache_store(const cc_cache_key *key, const cc_program *p,
                    const char *log) {
  if (p->kind == CC_KIND_EXECUTABLE &&
      (!p->num_cache_objects || p->cache_objects_failed))
    return;   /* nothing (or not all) captured of what the JIT made */
  writer w = {0};
  put_str(&w, log ? log : "");
  put_u64(&w, p->kind);
  put_str(&w, p->options ? p->options : "");
  put_blob(&w, p->binary, p->binary_size);
  put_u64(&w, p->global_var_size);
  if (!put_deps(&w, p->cache_deps, p->cache_deps_size)) {
    free(w.buf);
    return;
  }
  put_blob(&w, p->cache_symbols, p->cache_symbols_size);
  put_u64(&w, p->num_kernels);
  put_u64(&w, p->num_visible);
  for (unsigned k = 0; k < p->num_kernels; k++)
    put_kernel(&w, &p->kernels[k]);
  put_u64(&w, p->num_cache_objects);
  for (unsigned i = 0; i < p->num_cache_objects; i++)
    put_blob(&w, p->cache_objects[i], p->cache_object_sizes[i]);
  char *dir = w.failed ? NULL : cache_dir();
  char *path = dir ? entry_path(dir, key) : NULL;
  if (path) {
    entry_header h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, ENTRY_MAGIC, 8);
    h.format = ENTRY_FORMAT;
    h.header_size = sizeof(h);
    memcpy(h.key, key->hash, 32);
    h.payload_size = w.len;
    h.payload_checksum = checksum(w.buf, w.len);
    bool ok = write_atomically(path, &h, sizeof(h), w.buf, w.len);
    if (trace())
      fprintf(stderr, "skein: cache %s %s (%zu bytes)\n",
              ok ? "stored" : "could not store", path, w.len + sizeof(h));
    if (ok)
      account(dir, w.len + sizeof(h));
  }
  free(path);
  free(dir);
  free(w.buf);
}

/* ---- load ---- */

/* Reads the whole file at path (malloc'd), or NULL. */
static unsigned char *read_entry(const char *path, size_t *size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  struct stat st;
  unsigned char *buf = NULL;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      (size_t)st.st_size >= sizeof(entry_header) &&
      (buf = malloc((size_t)st.st_size))) {
    size_t done = 0;
    while (done < (size_t)st.st_size) {
      ssize_t k = read(fd, buf + done, (size_t)st.st_size - done);
      if (k <= 0)
        break;
      done += (size_t)k;
    }
    if (done != (size_t)st.st_size) {
      free(buf);
      buf = NULL;
    }
    *size = done;
  }
  close(fd);
  return buf;
}

/* The checks before a payload is trusted; the reason it is not, or
 * NULL. */
static const char *check_entry(const unsigned char *buf, size_t size,
                               const cc_cache_key *key) {
  entry_header h;
  memcpy(&h, buf, sizeof(h));
  if (memcmp(h.magic, ENTRY_MAGIC, 8) != 0)
    return "not a Skein cache entry";
  if (h.format != ENTRY_FORMAT || h.header_size != sizeof(h))
    return "another format version";
  if (memcmp(h.key, key->hash, 32) != 0)
    return "another key";
  if (h.payload_size != size - sizeof(h))
    return "truncated or extended";
  if (h.payload_checksum != checksum(buf + sizeof(h), size - sizeof(h)))
    return "checksum mismatch";
  return NULL;
}

/* Loads the n object files into a new JIT and finds every kernel's
 * work-group function, as the build's own JIT step does. */
static bool load_code(cc_program *p, const unsigned char *const *objs,
                      const size_t *sizes, unsigned num_objs,
                      const char *symbols, size_t symbols_size) {
  cc_llvm_init();
  LLVMErrorRef err = cc_jit_create(p);
  const char *names[512];
  unsigned n = 0;
  for (size_t i = 0; !err && i < symbols_size;
       i += strlen(symbols + i) + 1) {
    if (n == sizeof(names) / sizeof(names[0]))
      return false;
    names[n++] = symbols + i;
  }
  if (!err)
    err = cc_math_define_names(p->jit, names, n);
  for (unsigned i = 0; !err && i < num_objs; i++) {
    LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
        (const char *)objs[i], sizes[i], "skein-cache");
    err = LLVMOrcLLJITAddObjectFile(p->jit,
                                    LLVMOrcLLJITGetMainJITDylib(p->jit), buf);
  }
  for (unsigned k = 0; !err && k < p->num_kernels; k++) {
    char name[strlen(p->kernels[k].name) + 16];
    snprintf(name, sizeof(name), "__skein_wg_%s", p->kernels[k].name);
    LLVMOrcExecutorAddress addr;
    if (!(err = LLVMOrcLLJITLookup(p->jit, &addr, name)))
      p->kernels[k].wg = (skein_wg_fn)(uintptr_t)addr;
  }
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    if (trace())
      fprintf(stderr, "skein: cache: cannot load the code: %s%s%s\n", msg,
              p->jit_error[0] ? ": " : "", p->jit_error);
    LLVMDisposeErrorMessage(msg);
    return false;
  }
  return true;
}

/* Builds the program an entry's payload describes. */
static cc_program *parse_entry(reader *r, char **log) {
  const unsigned char **objs = NULL;
  size_t *obj_sizes = NULL;
  cc_program *p = calloc(1, sizeof(*p));
  char *text = get_str(r);
  if (!p || !text)
    goto fail;
  uint64_t kind = get_u64(r);
  p->options = get_str(r);
  size_t bin_size;
  const unsigned char *bin = get_blob(r, &bin_size);
  p->global_var_size = get_u64(r);
  if (kind > CC_KIND_LIBRARY || !p->options || r->bad)
    goto fail;
  p->kind = (cc_kind)kind;
  if (!(p->binary = malloc(bin_size ? bin_size : 1)))
    goto fail;
  memcpy(p->binary, bin, bin_size);
  p->binary_size = bin_size;
  if (!deps_unchanged(r))
    goto fail;
  size_t symbols_size;
  const unsigned char *symbols = get_blob(r, &symbols_size);
  if (symbols_size && symbols && symbols[symbols_size - 1] != '\0')
    r->bad = true;
  uint64_t num = get_u64(r), visible = get_u64(r);
  if (!count_ok(r, num, 8) || visible > num ||
      !(p->kernels = calloc(num + 1, sizeof(*p->kernels))))
    goto fail;
  for (p->num_kernels = 0; p->num_kernels < num; p->num_kernels++)
    if (!get_kernel(r, &p->kernels[p->num_kernels])) {
      p->num_kernels++;   /* free what it holds */
      goto fail;
    }
  p->num_visible = (unsigned)visible;
  /* One object per part: at most one per kernel (a library: none). */
  uint64_t num_objs = get_u64(r);
  if (num_objs > num + 1 ||
      (num_objs == 0) != (p->kind != CC_KIND_EXECUTABLE))
    goto fail;
  objs = calloc(num_objs + 1, sizeof(*objs));
  obj_sizes = calloc(num_objs + 1, sizeof(*obj_sizes));
  if (!objs || !obj_sizes)
    goto fail;
  for (uint64_t i = 0; i < num_objs; i++)
    objs[i] = get_blob(r, &obj_sizes[i]);
  if (r->bad || r->p != r->end)
    goto fail;
  if (p->kind == CC_KIND_EXECUTABLE &&
      !load_code(p, objs, obj_sizes, (unsigned)num_objs,
                 (const char *)symbols, symbols_size))
    goto fail;
  free(objs);
  free(obj_sizes);
  if (log)
    *log = text;
  else
    free(text);
  return p;
fail:
  free(objs);
  free(obj_sizes);
  free(text);
  cc_program_destroy(p);
  return NULL;
}

cc_program *cc_cache_load(const cc_cache_key *key, char **log) {
  char *dir = cache_dir();
  char *path = dir ? entry_path(dir, key) : NULL;
  size_t size = 0;
  unsigned char *buf = path ? read_entry(path, &size) : NULL;
  cc_program *p = NULL;
  const char *why = buf ? check_entry(buf, size, key) : NULL;
  if (buf && !why) {
    reader r = {buf + sizeof(entry_header), buf + size, false};
    p = parse_entry(&r, log);
    if (!p)
      why = "stale or unreadable";
  }
  if (p)
    utimensat(AT_FDCWD, path, NULL, 0);   /* recently used (eviction) */
  if (trace())
    fprintf(stderr, "skein: cache %s %s%s%s\n",
            p ? "hit" : why ? "entry ignored:" : "miss",
            why ? why : "", why ? " " : "", path ? path : "(no folder)");
  free(buf);
  free(path);
  free(dir);
  return p;
}
