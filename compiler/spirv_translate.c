/* This file contains the contained run of the SPIR-V tools: spirv-val
 * validates a module and llvm-spirv (LLVM 15) translates it to LLVM
 * bitcode that LLVM 19 reads. Each runs as a child process (fork and
 * execv, no shell) with a time limit, an address-space limit and no core
 * dump and none of the host's file descriptors, on files of a private
 * temporary folder: whatever a malformed
 * module makes a tool do, the host process only sees a failed build.
 * docs/architecture.md gives the reasons for this path. */
#define _GNU_SOURCE
#include "spirv_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SKEIN_LLVM_SPIRV_PATH
#define SKEIN_LLVM_SPIRV_PATH ""
#endif
#ifndef SKEIN_SPIRV_VAL_PATH
#define SKEIN_SPIRV_VAL_PATH ""
#endif

/* How long one tool may run (SKEIN_SPIRV_SECONDS, for tests, may say
 * less), and how much address space it may map. */
#define TOOL_SECONDS_MAX 60
#define TOOL_ADDRESS_SPACE (8ull << 30)
/* How much of a tool's output the build log keeps. */
#define TOOL_LOG_MAX 4096

static const char *tool_path(const char *env, const char *configured) {
  const char *p = getenv(env);
  return p && *p ? p : configured;
}

static int tool_seconds(void) {
  const char *env = getenv("SKEIN_SPIRV_SECONDS");
  int n = env ? atoi(env) : 0;
  return n > 0 && n < TOOL_SECONDS_MAX ? n : TOOL_SECONDS_MAX;
}

static const char *translator(void) {
  return tool_path("SKEIN_LLVM_SPIRV", SKEIN_LLVM_SPIRV_PATH);
}

static const char *validator(void) {
  return tool_path("SKEIN_SPIRV_VAL", SKEIN_SPIRV_VAL_PATH);
}

bool cc_il_available(void) {
  return *translator() && access(translator(), X_OK) == 0 &&
         *validator() && access(validator(), X_OK) == 0;
}

/* Writes size bytes of data to a new file path (mode 0600). */
static bool write_file(const char *path, const void *data, size_t size) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return false;
  const char *p = data;
  while (size) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      close(fd);
      return false;
    }
    p += n;
    size -= (size_t)n;
  }
  return close(fd) == 0;
}

/* Reads the file path (at most max bytes) into a malloc'd buffer with a
 * NUL after it; NULL if it cannot be read. */
static unsigned char *read_file(const char *path, size_t max, size_t *size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  struct stat st;
  unsigned char *buf = NULL;
  if (fstat(fd, &st) == 0 && (buf = malloc((size_t)st.st_size + 1))) {
    size_t want = (size_t)st.st_size < max ? (size_t)st.st_size : max;
    size_t got = 0;
    while (got < want) {
      ssize_t n = read(fd, buf + got, want - got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      got += (size_t)n;
    }
    buf[got] = '\0';
    *size = got;
  }
  close(fd);
  return buf;
}

/* In the child: limits, stdin from /dev/null, stdout and stderr to
 * out_path, fd 3 the write end of the exit pipe (closed when the tool
 * ends), no other descriptor of the host, then the tool. Only
 * async-signal-safe calls until execv. */
static void child(const char *const *argv, const char *out_path,
                  int exit_pipe, int seconds) {
  struct rlimit cpu = {(rlim_t)seconds, (rlim_t)seconds + 1};
  struct rlimit as = {TOOL_ADDRESS_SPACE, TOOL_ADDRESS_SPACE};
  struct rlimit core = {0, 0};
  setrlimit(RLIMIT_CPU, &cpu);
  setrlimit(RLIMIT_AS, &as);
  setrlimit(RLIMIT_CORE, &core);
  int in = open("/dev/null", O_RDONLY);
  int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
      dup2(out, 2) < 0 || dup2(exit_pipe, 3) < 0)
    _exit(126);
  close_range(4, ~0u, 0);
  /* Signal dispositions the host set are not the tool's business. */
  signal(SIGPIPE, SIG_DFL);
  execv(argv[0], (char *const *)argv);
  _exit(127);
}

/* Runs argv[0] (an absolute path) with argv, its output in out_path;
 * waits at most tool_seconds() of wall time, then kills it. The end of
 * the tool is seen as the end of a pipe only it holds, so the wait
 * sleeps in poll() and wakes at once. Returns the exit status, or -1
 * (with *how set) if it did not exit normally. */
static int run_tool(const char *const *argv, const char *out_path,
                    const char **how) {
  *how = NULL;
  int seconds = tool_seconds();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *how = "could not be started (no pipe)";
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    *how = "could not be started";
    return -1;
  }
  if (pid == 0)
    child(argv, out_path, fds[1], seconds);
  close(fds[1]);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  bool ended = false;
  for (;;) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    long left = seconds * 1000L - ((now.tv_sec - start.tv_sec) * 1000L +
                                        (now.tv_nsec - start.tv_nsec) /
                                            1000000L);
    if (left <= 0)
      break;
    struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
    int r = poll(&pfd, 1, (int)left);
    char byte;
    if (r > 0 && read(fds[0], &byte, 1) <= 0) {
      ended = true;   /* end of file: the tool has exited */
      break;
    }
    if (r < 0 && errno != EINTR)
      break;
  }
  close(fds[0]);
  if (!ended)
    kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      *how = "was lost (waitpid failed)";
      return -1;
    }
  }
  if (!ended) {
    *how = "ran out of time and was stopped";
    return -1;
  }
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  *how = "crashed";
  return -1;
}

/* Appends the tool's output file (its first TOOL_LOG_MAX bytes) to log. */
static void log_output(cc_log *log, const char *out_path) {
  size_t n = 0;
  unsigned char *text = read_file(out_path, TOOL_LOG_MAX, &n);
  if (text && n) {
    cc_log_append(log, (const char *)text, n);
    if (text[n - 1] != '\n')
      cc_log_append(log, "\n", 1);
  }
  free(text);
}

/* Runs one tool and logs a failure; true if it exited with 0. */
static bool step(const char *what, const char *const *argv,
                 const char *out_path, cc_log *log) {
  const char *how;
  int rc = run_tool(argv, out_path, &how);
  if (rc == 0)
    return true;
  if (how)
    cc_log_printf(log, "error: %s (%s) %s\n", what, argv[0], how);
  else if (rc == 127)
    cc_log_printf(log, "error: %s (%s) could not be run\n", what, argv[0]);
  else
    cc_log_printf(log, "error: %s (%s) rejected the module:\n", what,
                  argv[0]);
  log_output(log, out_path);
  return false;
}

/* The spirv-val environment for a module of this version: the universal
 * rules of its SPIR-V version. (The "opencl2.2" environment refuses
 * capabilities that extensions such as cl_khr_fp16 allow, Float16 among
 * them; cc_il_supported checks what the device takes.) */
static const char *val_env(uint32_t version) {
  static const char *const envs[] = {"spv1.0", "spv1.1", "spv1.2", "spv1.3",
                                     "spv1.4"};
  unsigned minor = (version >> 8) & 0xffu;
  return envs[minor < 5 ? minor : 4];
}

/* Two valid forms llvm-spirv 15 aborts on (assertions in its validate
 * methods), which SPIR-V generators other than llvm-spirv write (the
 * CTS's cl_khr_expect_assume modules do): OpConstantNull of a scalar
 * type, and OpVectorShuffle of two vectors of different lengths. Returns
 * a malloc'd copy of the module's num_words words (*out_words of them) in
 * which every such constant is OpConstant 0 of its integer or float type
 * or OpConstantFalse of its boolean type, and the shorter operand of
 * every such shuffle is first widened to the longer one's type by a
 * shuffle of its own (a new id; the indices into the second operand
 * follow); NULL on allocation failure. The module passed cc_il_load, so
 * every word count fits. A value's type is known where its instruction's
 * first operand is a vector type: in a module's logical layout nothing
 * else can name a type id there once types are declared. */
static uint32_t *rewrite_scalar_nulls(const uint32_t *w, size_t num_words,
                                      size_t *out_words) {
  enum { OP_TYPE_BOOL = 20, OP_TYPE_INT = 21, OP_TYPE_FLOAT = 22,
         OP_TYPE_VECTOR = 23, OP_CONSTANT_FALSE = 42, OP_CONSTANT = 43,
         OP_CONSTANT_NULL = 46, OP_VECTOR_SHUFFLE = 79 };
  uint32_t bound = w[3];
  /* Per id: 0 not a scalar type, 1 bool, else 1 + literal words. */
  unsigned char *kind = calloc(bound, 1);
  /* Per id: the length of a vector type; the vector type of a value. */
  uint32_t *length = calloc(bound, sizeof(*length));
  uint32_t *type = calloc(bound, sizeof(*type));
  /* A widening shuffle adds at most 5 words per word of a shuffle. */
  uint32_t *out = malloc(num_words * 8 * sizeof(*out));
  if (!kind || !length || !type || !out) {
    free(kind);
    free(length);
    free(type);
    free(out);
    return NULL;
  }
  memcpy(out, w, 5 * sizeof(*out));
  size_t n = 5;
  uint32_t next_id = bound;
  for (size_t at = 5; at < num_words;) {
    uint32_t count = w[at] >> 16, op = w[at] & 0xffffu;
    const uint32_t *a = w + at + 1;
    if ((op == OP_TYPE_INT || op == OP_TYPE_FLOAT) && count >= 3 &&
        a[0] < bound)
      kind[a[0]] = a[1] > 32 ? 3 : 2;
    else if (op == OP_TYPE_BOOL && count >= 2 && a[0] < bound)
      kind[a[0]] = 1;
    else if (op == OP_TYPE_VECTOR && count >= 4 && a[0] < bound)
      length[a[0]] = a[2];
    else if (count >= 3 && a[0] < bound && length[a[0]] && a[1] < bound)
      type[a[1]] = a[0];
    uint32_t t1 = 0, t2 = 0;
    if (op == OP_VECTOR_SHUFFLE && count >= 5 && a[2] < bound &&
        a[3] < bound) {
      t1 = type[a[2]];
      t2 = type[a[3]];
    }
    /* (OpenCL vectors have at most 16 components; nothing longer is
     * rewritten, which also bounds the words added.) */
    if (t1 && t2 && length[t1] != length[t2] && length[t1] <= 16 &&
        length[t2] <= 16 && next_id < (1u << 22)) {
      /* Widen the shorter operand v to the longer's type: a shuffle of
       * v with itself keeping its components (then component 0). */
      bool first = length[t1] < length[t2];
      uint32_t from = first ? a[2] : a[3], to_type = first ? t2 : t1;
      uint32_t short_len = first ? length[t1] : length[t2];
      uint32_t long_len = first ? length[t2] : length[t1];
      uint32_t wide = next_id++;
      out[n++] = (5u + long_len) << 16 | OP_VECTOR_SHUFFLE;
      out[n++] = to_type;
      out[n++] = wide;
      out[n++] = from;
      out[n++] = from;
      for (uint32_t i = 0; i < long_len; i++)
        out[n++] = i < short_len ? i : 0;
      memcpy(out + n, w + at, count * sizeof(*out));
      uint32_t *copy = out + n;
      n += count;
      copy[first ? 3 : 4] = wide;
      /* Indices into the second operand start after the first's length,
       * which changed if the first was widened. 0xFFFFFFFF is undef. */
      if (first)
        for (uint32_t i = 5; i < count; i++)
          if (copy[i] != 0xFFFFFFFFu && copy[i] >= short_len)
            copy[i] = copy[i] - short_len + long_len;
    } else if (op == OP_CONSTANT_NULL && count == 3 && a[0] < bound &&
               kind[a[0]]) {
      if (kind[a[0]] == 1) {
        out[n++] = 3u << 16 | OP_CONSTANT_FALSE;
        out[n++] = a[0];
        out[n++] = a[1];
      } else {
        unsigned literals = kind[a[0]] - 1u;
        out[n++] = (3u + literals) << 16 | OP_CONSTANT;
        out[n++] = a[0];
        out[n++] = a[1];
        for (unsigned i = 0; i < literals; i++)
          out[n++] = 0;
      }
    } else {
      memcpy(out + n, w + at, count * sizeof(*out));
      n += count;
    }
    at += count;
  }
  free(kind);
  free(length);
  free(type);
  out[3] = next_id;   /* the id bound, past any new id */
  *out_words = n;
  return out;
}

/* Whether the module declares the DeviceEnqueue capability. llvm-spirv
 * 15 reads OpEnqueueKernel and the other device-enqueue instructions
 * back only in its OpenCL 2.0 reading (its default, OpenCL 1.2, aborts
 * on them); that reading also spells atomics and barriers the 2.0 way
 * (atomic_fetch_add_explicit, work_group_barrier), which the library
 * has too, so only such modules take it (docs/architecture.md). The
 * module passed cc_il_load, so every word count fits; capabilities come
 * first in a module's logical layout. */
static bool declares_device_enqueue(const uint32_t *w, size_t num_words) {
  enum { OP_CAPABILITY = 17, DEVICE_ENQUEUE = 19 };
  for (size_t at = 5; at < num_words && (w[at] & 0xffffu) == OP_CAPABILITY &&
                      w[at] >> 16;
       at += w[at] >> 16)
    if (w[at] >> 16 >= 2 && w[at + 1] == DEVICE_ENQUEUE)
      return true;
  return false;
}

cc_status cc_il_translate(const uint32_t *words, size_t num_words,
                          unsigned char **bc, size_t *bc_size, cc_log *log) {
  *bc = NULL;
  if (!cc_il_available()) {
    cc_log_printf(log, "error: SPIR-V programs need llvm-spirv and "
                  "spirv-val ('%s', '%s'), which are not installed; see "
                  "Skein's README for the set-up\n", translator(),
                  validator());
    return CC_BUILD_FAILED;
  }
  const char *tmp = getenv("TMPDIR");
  char dir[512], in[600], out[600], msgs[600];
  snprintf(dir, sizeof dir, "%s/skein-spirv-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    cc_log_printf(log, "error: no private temporary folder for the SPIR-V "
                  "translator: %s\n", strerror(errno));
    return CC_BUILD_FAILED;
  }
  snprintf(in, sizeof in, "%s/module.spv", dir);
  snprintf(out, sizeof out, "%s/module.bc", dir);
  snprintf(msgs, sizeof msgs, "%s/messages.txt", dir);
  cc_status st = CC_BUILD_FAILED;
  size_t fixed_words = 0, scalar_words = 0;
  char *why = NULL;
  uint32_t *scalar = rewrite_scalar_nulls(words, num_words, &scalar_words);
  /* Then Skein's own translation of what llvm-spirv lacks (spirv_lower.c). */
  uint32_t *fixed =
      scalar ? cc_il_lower(scalar, scalar_words, &fixed_words, &why) : NULL;
  free(scalar);
  if (why) {
    cc_log_printf(log, "error: the SPIR-V module has %s, which Skein cannot "
                  "translate\n", why);
    free(why);
  } else if (!fixed) {
    cc_log_printf(log, "error: out of host memory\n");
  } else if (!write_file(in, fixed, fixed_words * 4)) {
    cc_log_printf(log, "error: could not write the SPIR-V module for the "
                  "translator: %s\n", strerror(errno));
  } else {
    const char *val[] = {validator(), "--target-env", val_env(words[1]), in,
                         NULL};
    const char *tr[] = {translator(), "-r", in, "-o", out, NULL, NULL};
    if (declares_device_enqueue(words, num_words))
      tr[5] = "--spirv-target-env=CL2.0";
    if (step("the SPIR-V validator", val, msgs, log) &&
        step("the SPIR-V translator", tr, msgs, log)) {
      *bc = read_file(out, SIZE_MAX, bc_size);
      if (*bc)
        st = CC_OK;
      else
        cc_log_printf(log, "error: the SPIR-V translator wrote no "
                      "module\n");
    }
  }
  free(fixed);
  unlink(in);
  unlink(out);
  unlink(msgs);
  rmdir(dir);
  return st;
}
