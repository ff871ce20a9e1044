/* This file tests the on-disk program cache (compiler/program_cache.c)
 * through the ICD loader: a build in a new process is served from the
 * cache (SKEIN_DUMP=cache says so) with the same log and results; each
 * key component (source, a header read from disk, options, the SKEIN_*
 * variables that change code, the target) makes a miss; compiles and
 * links are cached too, keyed by their embedded headers and inputs; corrupt,
 * truncated, garbage and foreign entries are ignored and rebuilt; two
 * processes building the same program at once both succeed; the size
 * cap evicts the least recently used entry; SKEIN_CACHE=0 writes
 * nothing; an unusable cache folder does not fail a build. Every test
 * uses its own folder under /tmp and removes it. */
#define _GNU_SOURCE
#include "test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static test_env env;
static const char *self;   /* argv[0]: children run this binary */
static char dir[256];      /* the current test's cache folder */
static char hdr_dir[300];  /* -I folder of the header test */

/* Two kernels: a math library call (its Sleef symbol is resolved in a
 * cached program's new JIT), a program-scope variable with an
 * initialiser, and a barrier kernel (fiber or region mode). #warning
 * puts a line in the build log that a hit must return too. */
static const char *source_fmt =
    "#warning skein cache test\n"
    "%s"
    "#ifndef SCALE\n#define SCALE 2.0f\n#endif\n"
    "global float offset = %d.0f;\n"
    "kernel void wave(global const float *in, global float *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = sin(in[i]) * SCALE + offset + EXTRA;\n"
    "}\n"
    "kernel void flip(global const float *in, global float *out) {\n"
    "  local float tile[64];\n"
    "  size_t l = get_local_id(0), g = get_group_id(0);\n"
    "  tile[l] = in[g * 64 + l];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[g * 64 + l] = tile[63 - l];\n"
    "}\n";

enum { N = 256 };

/* Builds the program (variant: the offset constant; include: whether
 * it reads pc_extra.h from -I hdr_dir), runs both kernels and checks
 * them against the host. Returns the build log (malloc'd) and *sum, a
 * digest of the outputs' bits. Exits on a failed build. */
static char *build_and_check(int variant, bool include, const char *options,
                             double *sum) {
  char src[2048], opts[512];
  snprintf(src, sizeof src, source_fmt,
           include ? "#include \"pc_extra.h\"\n" : "#define EXTRA 0.0f\n",
           variant);
  snprintf(opts, sizeof opts, "-cl-std=CL3.0 %s%s%s", options ? options : "",
           include ? " -I " : "", include ? hdr_dir : "");
  cl_program p = test_build(&env, src, opts);
  size_t len = 0;
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, 0,
                                   NULL, &len));
  char *log = calloc(len + 1, 1);
  REQUIRE_OK(clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_LOG, len,
                                   log, NULL));
  float in[N], out[N], extra = 0;
  for (int i = 0; i < N; i++)
    in[i] = (float)i * 0.37f - 40.0f;
  if (include) {   /* the header's value, read as the compiler would */
    char path[400];
    snprintf(path, sizeof path, "%s/pc_extra.h", hdr_dir);
    FILE *f = fopen(path, "r");
    CHECK(f && fscanf(f, "#define EXTRA %ff", &extra) == 1);
    if (f)
      fclose(f);
  }
  float scale = 2.0f;
  if (options && strstr(options, "-DSCALE=3.0f"))
    scale = 3.0f;
  cl_mem bufs[2] = {test_buffer(&env, sizeof in, in),
                    test_buffer(&env, sizeof out, NULL)};
  test_run_1d(&env, p, "wave", N, bufs, 2);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bufs[1], CL_TRUE, 0, sizeof out,
                                 out, 0, NULL, NULL));
  *sum = 0;
  int bad = 0;
  for (int i = 0; i < N; i++) {
    float want = sinf(in[i]) * scale + (float)variant + extra;
    bad += fabsf(out[i] - want) > 1e-4f * (1 + fabsf(want));
    *sum += out[i] * (i + 1);
  }
  CHECK_EQ(bad, 0);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "flip", &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof(cl_mem), &bufs[0]));
  REQUIRE_OK(clSetKernelArg(k, 1, sizeof(cl_mem), &bufs[1]));
  size_t global = N, local = 64;
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, bufs[1], CL_TRUE, 0, sizeof out,
                                 out, 0, NULL, NULL));
  bad = 0;
  for (int i = 0; i < N; i++)
    bad += out[i] != in[(i / 64) * 64 + 63 - i % 64];
  CHECK_EQ(bad, 0);
  clReleaseKernel(k);
  test_release_buffers(bufs, 2);
  clReleaseProgram(p);
  return log;
}

/* One build in this process with stderr captured: returns what the
 * cache said (malloc'd) and the log and digest. */
static char *traced_build(int variant, bool include, const char *options,
                          char **log, double *sum) {
  test_capture c;
  test_capture_begin(&c);
  char *l = build_and_check(variant, include, options, sum);
  char *said = test_capture_end(&c);
  if (log)
    *log = l;
  else
    free(l);
  return said;
}

static bool said_hit(const char *said) {
  return strstr(said, "skein: cache hit") != NULL;
}

static bool said_stored(const char *said) {
  return strstr(said, "skein: cache stored") != NULL;
}

/* Runs this binary as a child ("child variant"), building in a new
 * process; returns its exit status; its stderr goes to err_path. */
static pid_t spawn_child(int variant, const char *err_path) {
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0)
      dup2(fd, 2);
    char v[16];
    snprintf(v, sizeof v, "%d", variant);
    execl(self, self, "child", v, (char *)NULL);
    _exit(127);
  }
  return pid;
}

static int wait_child(pid_t pid) {
  int status;
  if (pid < 0 || waitpid(pid, &status, 0) != pid)
    return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  char *buf = calloc(1 << 16, 1);
  if (f) {
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    buf[n] = '\0';
    fclose(f);
  }
  return buf;
}

/* The number of entries in the folder, and the name of the last. */
static int entries(char *name, size_t cap) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (len > 4 && strcmp(e->d_name + len - 4, ".skc") == 0) {
      n++;
      if (name)
        snprintf(name, cap, "%s/%s", dir, e->d_name);
    }
  }
  if (d)
    closedir(d);
  return n;
}

static void remove_tree(const char *path) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", path);
}

/* A fresh folder for each test. */
static void fresh_dir(const char *name) {
  if (dir[0])
    remove_tree(dir);
  snprintf(dir, sizeof dir, "/tmp/skein-cache-test-%ld-%s", (long)getpid(),
           name);
  remove_tree(dir);
  setenv("SKEIN_CACHE_DIR", dir, 1);
  printf("-- %s\n", name);
}

static void test_hit_in_new_process(void) {
  fresh_dir("hit");
  char err1[300], err2[300];
  snprintf(err1, sizeof err1, "%s.err1", dir);
  snprintf(err2, sizeof err2, "%s.err2", dir);
  CHECK_EQ(wait_child(spawn_child(7, err1)), 0);
  CHECK_EQ(wait_child(spawn_child(7, err2)), 0);
  char *a = read_text(err1), *b = read_text(err2);
  CHECK(said_stored(a) && !said_hit(a));
  CHECK(said_hit(b) && !said_stored(b));
  /* The children print their log and digest: the same in both. */
  const char *la = strstr(a, "log:"), *lb = strstr(b, "log:");
  CHECK(la && lb && strcmp(la, lb) == 0);
  CHECK(la && strstr(la, "skein cache test"));
  free(a);
  free(b);
  unlink(err1);
  unlink(err2);
}

/* Builds, then builds again after change() (must miss), then as the
 * first time (must hit). */
static void expect_miss(const char *what, void (*change)(bool on),
                        const char *options, const char *changed_options) {
  double s1, s2, s3;
  char *log1, *log3;
  char *a = traced_build(1, false, options, &log1, &s1);
  change(true);
  char *b = traced_build(1, false, changed_options, NULL, &s2);
  change(false);
  char *c = traced_build(1, false, options, &log3, &s3);
  printf("   %s: %s / %s / %s\n", what, said_hit(a) ? "hit" : "miss",
         said_hit(b) ? "hit" : "miss", said_hit(c) ? "hit" : "miss");
  CHECK(!said_hit(b) && said_stored(b));
  CHECK(said_hit(c));
  CHECK(s1 == s3 && strcmp(log1, log3) == 0);
  free(a);
  free(b);
  free(c);
  free(log1);
  free(log3);
}

static const char *env_name, *env_value;

static void set_env(bool on) {
  if (on)
    setenv(env_name, env_value, 1);
  else
    unsetenv(env_name);
}

static void no_change(bool on) {
  (void)on;
}

static void test_misses(void) {
  fresh_dir("misses");
  /* The source: another constant (and another result). */
  double s1, s2;
  char *a = traced_build(1, false, NULL, NULL, &s1);
  char *b = traced_build(2, false, NULL, NULL, &s2);
  CHECK(!said_hit(b) && s1 != s2);
  free(a);
  free(b);
  expect_miss("options", no_change, NULL, "-DSCALE=3.0f");
  static const char *const vars[][2] = {
      {"SKEIN_MODE", "fiber"},        {"SKEIN_MODE", "loop"},
      {"SKEIN_VECTORIZE", "0"},       {"SKEIN_BOUNDS_CHECK", "1"},
      {"SKEIN_INTERLEAVE", "2"},      {"SKEIN_NO_SCALARIZE", "1"},
      {"SKEIN_IMAGE_VERSIONS", "0"},  {"SKEIN_IMAGES", "0"},
      /* the target: its features (AVX-512 off, or a no-op "off" on a
       * machine without it: still another feature string) */
      {"SKEIN_TARGET_FEATURES", "-avx512f"},
      {"SKEIN_CPU", "x86-64-v2"},
  };
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    env_name = vars[i][0];
    env_value = vars[i][1];
    char what[64];
    snprintf(what, sizeof what, "%s=%s", env_name, env_value);
    expect_miss(what, set_env, NULL, NULL);
  }
}

static void write_header(float extra) {
  char path[400];
  snprintf(path, sizeof path, "%s/pc_extra.h", hdr_dir);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fprintf(f, "#define EXTRA %.1ff\n", extra);
    fclose(f);
  }
}

static void test_header_change(void) {
  fresh_dir("header");
  snprintf(hdr_dir, sizeof hdr_dir, "%s-inc", dir);
  mkdir(hdr_dir, 0700);
  write_header(1.0f);
  double s1, s2, s3;
  char *a = traced_build(1, true, NULL, NULL, &s1);
  char *b = traced_build(1, true, NULL, NULL, &s2);
  write_header(5.0f);   /* same length, other bytes */
  char *c = traced_build(1, true, NULL, NULL, &s3);
  CHECK(!said_hit(a) && said_hit(b) && s1 == s2);
  CHECK(!said_hit(c) && strstr(c, "pc_extra.h changed") && s3 != s1);
  free(a);
  free(b);
  free(c);
  remove_tree(hdr_dir);
}

/* Damages the one entry with damage(), then builds: the entry must be
 * ignored for the reason given, the build right, and the entry
 * rewritten (the next build hits). */
static void after_damage(const char *what, void (*damage)(const char *),
                         const char *reason) {
  double s1, s2, s3;
  char *a = traced_build(3, false, NULL, NULL, &s1);
  char path[600];
  CHECK_EQ(entries(path, sizeof path), 1);
  damage(path);
  char *b = traced_build(3, false, NULL, NULL, &s2);
  char *c = traced_build(3, false, NULL, NULL, &s3);
  printf("   %s: %s", what, strstr(b, "skein: cache") ? strstr(b, "skein: cache") : "?\n");
  CHECK(!said_hit(b) && strstr(b, reason) && said_stored(b));
  CHECK(said_hit(c) && s1 == s2 && s2 == s3);
  free(a);
  free(b);
  free(c);
}

static void truncate_entry(const char *path) {
  struct stat st;
  CHECK(stat(path, &st) == 0 && truncate(path, st.st_size / 2) == 0);
}

static void garbage_entry(const char *path) {
  struct stat st;
  CHECK(stat(path, &st) == 0);
  FILE *f = fopen(path, "wb");
  for (off_t i = 0; f && i < st.st_size; i++)
    fputc((int)(test_rand() & 0xff), f);
  if (f)
    fclose(f);
}

/* Rewrites the byte at offset to v (from the end if offset < 0). */
static void poke(const char *path, long offset, int v) {
  FILE *f = fopen(path, "r+b");
  CHECK(f != NULL);
  if (!f)
    return;
  fseek(f, offset, offset < 0 ? SEEK_END : SEEK_SET);
  long at = ftell(f);
  int old = fgetc(f);
  fseek(f, at, SEEK_SET);
  fputc(v < 0 ? old ^ 0x10 : v, f);
  fclose(f);
}

static void flip_byte(const char *path) {
  poke(path, -100, -1);   /* inside the object file */
}

static void foreign_version(const char *path) {
  poke(path, 8, 99);      /* the format field follows the magic */
}

static void test_corruption(void) {
  fresh_dir("corrupt");
  test_seed(18);
  after_damage("truncated", truncate_entry, "truncated");
  after_damage("garbage", garbage_entry, "not a Skein cache entry");
  after_damage("flipped byte", flip_byte, "checksum mismatch");
  after_damage("foreign version", foreign_version, "another format version");
}

static void test_concurrency(void) {
  fresh_dir("concurrent");
  char e1[300], e2[300], e3[300];
  snprintf(e1, sizeof e1, "%s.e1", dir);
  snprintf(e2, sizeof e2, "%s.e2", dir);
  snprintf(e3, sizeof e3, "%s.e3", dir);
  pid_t a = spawn_child(4, e1), b = spawn_child(4, e2);
  CHECK_EQ(wait_child(a), 0);
  CHECK_EQ(wait_child(b), 0);
  CHECK_EQ(entries(NULL, 0), 1);
  CHECK_EQ(wait_child(spawn_child(4, e3)), 0);
  char *t = read_text(e3);
  CHECK(said_hit(t));
  free(t);
  /* No temporary file left behind. */
  DIR *d = opendir(dir);
  struct dirent *e;
  int temps = 0;
  while (d && (e = readdir(d)))
    temps += strstr(e->d_name, ".tmp.") != NULL;
  if (d)
    closedir(d);
  CHECK_EQ(temps, 0);
  unlink(e1);
  unlink(e2);
  unlink(e3);
}

static void test_eviction(void) {
  fresh_dir("evict");
  double s;
  free(traced_build(10, false, NULL, NULL, &s));
  char path[600];
  struct stat st;
  CHECK(entries(path, sizeof path) == 1 && stat(path, &st) == 0);
  /* Room for two entries (they are all about this size), not three. */
  char cap[64];
  snprintf(cap, sizeof cap, "%f", 2.5 * (double)st.st_size / (1 << 20));
  setenv("SKEIN_CACHE_MAX_MB", cap, 1);
  free(traced_build(11, false, NULL, NULL, &s));
  CHECK_EQ(entries(NULL, 0), 2);
  /* File times follow the kernel's coarse clock (a few ms): apart. */
  usleep(50000);
  char *hit = traced_build(10, false, NULL, NULL, &s);  /* 10 now newest */
  usleep(50000);
  CHECK(said_hit(hit));
  free(hit);
  char *c = traced_build(12, false, NULL, NULL, &s);     /* evicts 11 */
  CHECK(strstr(c, "skein: cache evicted") != NULL);
  CHECK_EQ(entries(NULL, 0), 2);
  char *a = traced_build(10, false, NULL, NULL, &s);
  char *b = traced_build(11, false, NULL, NULL, &s);
  CHECK(said_hit(a) && !said_hit(b));
  if (!said_hit(a) || said_hit(b))
    fprintf(stderr, "evict: %s\n%s\n%s\n", c, a, b);
  free(a);
  free(b);
  free(c);
  unsetenv("SKEIN_CACHE_MAX_MB");
}

/* clCompileProgram with an embedded header defining K, clLinkProgram,
 * and a run checked against K; returns what the cache said. */
static char *compile_and_link(int k) {
  static const char *src =
      "#include \"k.h\"\n"
      "kernel void f(global int *o) { o[get_global_id(0)] = K * (int)"
      "get_global_id(0); }\n";
  char header[64];
  snprintf(header, sizeof header, "#define K %d\n", k);
  const char *htext = header, *hname = "k.h";
  test_capture c;
  test_capture_begin(&c);
  cl_int err;
  cl_program h = clCreateProgramWithSource(env.context, 1, &htext, NULL, &err);
  REQUIRE_OK(err);
  cl_program p = clCreateProgramWithSource(env.context, 1, &src, NULL, &err);
  REQUIRE_OK(err);
  REQUIRE_OK(clCompileProgram(p, 1, &env.device, "", 1, &h, &hname, NULL,
                              NULL));
  cl_program linked = clLinkProgram(env.context, 1, &env.device, "", 1, &p,
                                    NULL, NULL, &err);
  REQUIRE_OK(err);
  char *said = test_capture_end(&c);
  cl_mem out = test_buffer(&env, 64 * sizeof(cl_int), NULL);
  test_run_1d(&env, linked, "f", 64, &out, 1);
  cl_int got[64];
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, out, CL_TRUE, 0, sizeof got, got,
                                 0, NULL, NULL));
  int bad = 0;
  for (int i = 0; i < 64; i++)
    bad += got[i] != k * i;
  CHECK_EQ(bad, 0);
  clReleaseMemObject(out);
  clReleaseProgram(linked);
  clReleaseProgram(p);
  clReleaseProgram(h);
  return said;
}

/* A compile and a link are cached too; the embedded header is part of
 * the compile's key, and the changed object changes the link's. */
static void test_compile_link(void) {
  fresh_dir("link");
  char *a = compile_and_link(3), *b = compile_and_link(3);
  char *c = compile_and_link(4);
  printf("   compile+link: %d/%d/%d hits\n", test_count(a, "cache hit"),
         test_count(b, "cache hit"), test_count(c, "cache hit"));
  CHECK(test_count(a, "cache hit") == 0 && test_count(a, "cache stored") == 2);
  CHECK(test_count(b, "cache hit") == 2 && test_count(b, "cache stored") == 0);
  CHECK(test_count(c, "cache hit") == 0 && test_count(c, "cache stored") == 2);
  free(a);
  free(b);
  free(c);
}

static void test_off_switch(void) {
  fresh_dir("off");
  setenv("SKEIN_CACHE", "0", 1);
  double s1, s2;
  char *a = traced_build(1, false, NULL, NULL, &s1);
  char *b = traced_build(1, false, NULL, NULL, &s2);
  CHECK(!strstr(a, "skein: cache") && !strstr(b, "skein: cache"));
  CHECK_EQ(entries(NULL, 0), 0);
  unsetenv("SKEIN_CACHE");
  free(a);
  free(b);
}

static void test_unusable_dir(void) {
  fresh_dir("unusable");
  /* A folder below a regular file cannot be made, even by root. */
  char file[300], below[400];
  snprintf(file, sizeof file, "%s-file", dir);
  FILE *f = fopen(file, "w");
  if (f)
    fclose(f);
  snprintf(below, sizeof below, "%s/cache", file);
  setenv("SKEIN_CACHE_DIR", below, 1);
  double s1, s2;
  char *a = traced_build(1, false, NULL, NULL, &s1);
  char *b = traced_build(1, false, NULL, NULL, &s2);
  CHECK(!said_hit(b) && s1 == s2);
  free(a);
  free(b);
  unlink(file);
  setenv("SKEIN_CACHE_DIR", dir, 1);
}

int main(int argc, char **argv) {
  self = argv[0];
  setenv("SKEIN_DUMP", "cache", 1);
  /* The variables the miss tests set must start unset. */
  const char *clear[] = {"SKEIN_MODE", "SKEIN_VECTORIZE", "SKEIN_BOUNDS_CHECK",
                         "SKEIN_INTERLEAVE", "SKEIN_NO_SCALARIZE",
                         "SKEIN_IMAGE_VERSIONS", "SKEIN_IMAGES",
                         "SKEIN_TARGET_FEATURES", "SKEIN_CPU", "SKEIN_CACHE",
                         "SKEIN_CACHE_MAX_MB"};
  if (argc == 3 && strcmp(argv[1], "child") == 0) {
    test_setup(&env);
    double sum;
    char *log = build_and_check(atoi(argv[2]), false, NULL, &sum);
    fprintf(stderr, "log:%s\nsum:%.17g\n", log, sum);
    free(log);
    test_teardown(&env);
    return test_finish("program-cache child");
  }
  for (size_t i = 0; i < sizeof clear / sizeof clear[0]; i++)
    unsetenv(clear[i]);
  test_setup(&env);
  test_hit_in_new_process();
  test_misses();
  test_header_change();
  test_corruption();
  test_concurrency();
  test_eviction();
  test_compile_link();
  test_off_switch();
  test_unusable_dir();
  remove_tree(dir);
  test_teardown(&env);
  return test_finish("program-cache");
}
