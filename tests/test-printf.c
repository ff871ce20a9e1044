/* Tests OpenCL C printf (OpenCL C 3.0 section 6.15.14): every conversion
 * with flags, width, precision and length modifiers, vectors, %s of
 * literals, the output order of work-groups and work-items (Skein's
 * order: group linear id, then local linear id, then program order; see
 * runtime/core/printf.c), barriers, loops, helper functions, return values,
 * 3.5 MiB of records from one launch (the buffer grows), a full buffer
 * (SKEIN_PRINTF_BUFFER_SIZE), program binaries, CL1.2 and CL3.0, loop/fiber/region
 * modes. Each case runs in a child process whose stdout is a pipe; the
 * parent compares the bytes with text the host's snprintf makes. */
#define _GNU_SOURCE
#include "test_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

/* Written with write(2) right after clFinish: printf output that was not
 * flushed by then would come after it. */
#define MARK "<<clFinish>>\n"

/* A growable string. */
typedef struct text {
  char *s;
  size_t len, cap;
} text;

static void add(text *t, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (t->len + (size_t)n + 1 > t->cap) {
    t->cap = (t->len + (size_t)n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    if (!t->s)
      exit(1);
  }
  vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  t->len += (size_t)n;
}

/* ---- the child: builds and runs one case's kernel ---- */

static test_env env;

/* Builds src with options (through a program binary if via_binary),
 * runs kernel "k" over global/local (dims 1 or 2) with an int buffer of
 * n elements as argument 0, waits with clFinish, writes MARK, and returns
 * the buffer (malloc'd). */
static int *run(const char *src, const char *options, bool via_binary,
                cl_uint dims, const size_t *global, const size_t *local,
                size_t n) {
  cl_program p = test_build(&env, src, options);
  cl_int err;
  if (via_binary) {
    size_t size;
    REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size,
                                &size, NULL));
    unsigned char *bin = malloc(size);
    REQUIRE_OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin,
                                NULL));
    REQUIRE_OK(clReleaseProgram(p));
    const unsigned char *cbin = bin;
    p = clCreateProgramWithBinary(env.context, 1, &env.device, &size, &cbin,
                                  NULL, &err);
    REQUIRE_OK(err);
    REQUIRE_OK(clBuildProgram(p, 1, &env.device, options, NULL, NULL));
    free(bin);
  }
  cl_kernel k = clCreateKernel(p, "k", &err);
  REQUIRE_OK(err);
  cl_mem buf = clCreateBuffer(env.context, CL_MEM_READ_WRITE,
                              n * sizeof(int), NULL, &err);
  REQUIRE_OK(err);
  int *out = calloc(n, sizeof(int));
  REQUIRE_OK(clEnqueueWriteBuffer(env.queue, buf, CL_TRUE, 0,
                                  n * sizeof(int), out, 0, NULL, NULL));
  REQUIRE_OK(clSetKernelArg(k, 0, sizeof buf, &buf));
  REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, k, dims, NULL, global, local,
                                    0, NULL, NULL));
  REQUIRE_OK(clFinish(env.queue));
  if (write(STDOUT_FILENO, MARK, strlen(MARK)) < 0)
    test_failures++;
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, buf, CL_TRUE, 0,
                                 n * sizeof(int), out, 0, NULL, NULL));
  clReleaseMemObject(buf);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return out;
}

/* ---- the cases: each makes its kernel source and expected output ---- */

typedef struct scase {
  text src, expect;
  const char *options;
  bool via_binary;
  cl_uint dims;
  size_t global[2], local[2];
  size_t n;                   /* ints in the result buffer */
  bool rets_zero;             /* every work-item stores printf's result in
                                 buf[gid]: all must be 0 */
  const char *mode;           /* SKEIN_MODE for the child, or NULL */
  const char *want_mode;      /* the mode SKEIN_DUMP=modes must report
                                 for the kernel, or NULL */
  const char *buffer_size;    /* SKEIN_PRINTF_BUFFER_SIZE, or NULL */
} scase;

/* One scalar conversion: the format, the OpenCL C type of the argument
 * and its value as C text. */
typedef struct scalar {
  const char *fmt, *type, *value;
} scalar;

static const scalar scalars[] = {
  {"%d", "int", "0"}, {"%5d", "int", "10"}, {"%-5d|", "int", "10"},
  /* A flag may repeat: 120 of them (the host format gets each once). */
  {"%------------------------------------------------------------------------------------------------------------------------+5d|",
   "int", "10"},
  {"%05d", "int", "-10"}, {"%+5d", "int", "10"}, {"%-+5d|", "int", "10"},
  {"%.5i", "int", "100"}, {"%6.5i", "int", "-100"}, {"%-06i|", "int", "100"},
  {"%06.5i", "int", "100"}, {"% 10d", "int", "42"}, {"% d", "int", "-42"},
  {"%.0d|", "int", "0"}, {"%i", "int", "-2147483648"},
  {"%o", "uint", "10"}, {"%.5o", "uint", "10"}, {"%#o", "uint", "100000000"},
  {"%#o", "uint", "0"}, {"%04.5o", "uint", "10"}, {"%010o", "uint", "10"},
  {"%u", "uint", "4294967295"}, {"%.0u|", "uint", "0"}, {"%8u", "uint", "7"},
  {"%#x", "uint", "11259375"}, {"%#X", "uint", "11259375"},
  {"%#X", "uint", "0"}, {"%8x", "uint", "399"}, {"%04x", "uint", "399"},
  {"%-#10x|", "uint", "255"}, {"%.6X", "uint", "48879"},
  {"%hd", "short", "-32767"}, {"%hx", "short", "-32767"},
  {"%ho", "short", "32767"}, {"%hu", "ushort", "65535"},
  {"%+hi", "short", "123"}, {"%hhd", "char", "-128"},
  {"%hhx", "char", "-128"}, {"%hho", "char", "127"}, {"%hhu", "uchar", "255"},
  {"%#hhX", "uchar", "171"},
  {"%ld", "long", "9223372036854775807"},
  {"%ld", "long", "-9223372036854775807"}, {"%lx", "long", "-1"},
  {"%-+16.15li|", "long", "-10000000000"}, {"%015ld", "long", "10000000000"},
  {"%lu", "ulong", "18446744073709551615"}, {"%#lo", "ulong", "8"},
  {"%#lX", "ulong", "3735928559"},
  {"%c", "char", "66"}, {"%4c", "char", "49"}, {"%-4c|", "char", "49"},
  {"%f", "float", "10.3456"}, {"%.1f", "float", "10.3456"},
  {"%8.3f", "float", "10.3456"}, {"%08.2f", "float", "-10.3456"},
  {"%-8.2f|", "float", "10.3456"}, {"%+8.2f", "float", "10.3456"},
  {"%.0f", "float", "0.6"}, {"%#.0f", "float", "3"}, {"%0f", "float", "0.6"},
  {"% 10.2f", "float", "1.25"}, {"%F", "float", "INFINITY"},
  {"%f", "float", "-INFINITY"}, {"%f", "float", "NAN"}, {"%F", "float", "NAN"},
  {"%e", "float", "789456128"}, {"%-#20.15e|", "float", "789456128"},
  {"%+#21.15E", "float", "789456128"}, {"%E", "float", "0"},
  {"%e", "float", "INFINITY"}, {"%.0e", "float", "12345"},
  {"%4g", "float", "12345.6789"}, {"%4.2g", "float", "12345.6789"},
  {"%4G", "float", "0.0000023"}, {"%#g", "float", "1"},
  {"%g", "float", "100000"}, {"%g", "float", "1000000"},
  {"%G", "float", "-INFINITY"}, {"%.6a", "float", "0.5"},
  {"%10.2a", "float", "1.5"}, {"%a", "float", "-0.1"}, {"%A", "float", "255"},
  {"%#a", "float", "1"}, {"%a", "float", "0"},
  {"%f", "double", "10.3456"}, {"%.15g", "double", "0.1"},
  {"%-#20.15e|", "double", "789456123.0"}, {"%a", "double", "0.1"},
  {"%A", "double", "-1e300"}, {"%.3E", "double", "5e-320"},
  {"%G", "double", "1e-5"}, {"%020.10f", "double", "-3.14159265358979"},
  {"%s", "string", "foo"}, {"%4s|", "string", "foo"},
  {"%-6s|", "string", "foo"}, {"%.1s|", "string", "foo"},
  {"%.0s|", "string", "foo"}, {"%.10s|", "string", "foo"},
  {"%s|", "string", ""}, {"%s", "string", "foo%%bar%sbar"},
  {"%%", NULL, NULL}, {"%%%d%%", "int", "5"}, {"a%%s%s", "string", "b"},
  {"no conversion", NULL, NULL},
};

/* The host value of s printed with its own format. */
static void expect_scalar(text *t, const scalar *s) {
  const char *v = s->value, *ty = s->type;
  if (!ty) {
    add(t, s->fmt);
  } else if (strcmp(ty, "string") == 0) {
    add(t, s->fmt, v);
  } else if (strcmp(ty, "float") == 0 || strcmp(ty, "double") == 0) {
    double d = strcmp(v, "INFINITY") == 0    ? INFINITY
               : strcmp(v, "-INFINITY") == 0 ? -INFINITY
               : strcmp(v, "NAN") == 0       ? NAN
                                             : strtod(v, NULL);
    if (strcmp(ty, "float") == 0)
      d = (float)d;
    add(t, s->fmt, d);
  } else if (strcmp(ty, "long") == 0 || strcmp(ty, "ulong") == 0) {
    add(t, s->fmt, (long)strtoull(v, NULL, 0));
  } else {
    long long x = strtoll(v, NULL, 0);
    int promoted = strcmp(ty, "char") == 0     ? (signed char)x
                   : strcmp(ty, "uchar") == 0  ? (unsigned char)x
                   : strcmp(ty, "short") == 0  ? (short)x
                   : strcmp(ty, "ushort") == 0 ? (unsigned short)x
                                               : (int)(unsigned)x;
    add(t, s->fmt, promoted);
  }
  add(t, "\n");
}

/* The OpenCL C argument expression of s. */
static void kernel_arg(text *t, const scalar *s) {
  if (!s->type)
    return;
  if (strcmp(s->type, "string") == 0)
    add(t, ", \"%s\"", s->value);
  else if (strcmp(s->type, "long") == 0)
    add(t, ", (long)(%sUL)", s->value);
  else if (strcmp(s->type, "ulong") == 0)
    add(t, ", (ulong)(%sUL)", s->value);
  else if (strcmp(s->type, "int") == 0 || strcmp(s->type, "uint") == 0)
    add(t, ", (%s)(%sL)", s->type, s->value);
  else
    add(t, ", (%s)(%s)", s->type, s->value);
}

/* Every scalar conversion, one work-item. */
static void case_scalars(scase *c) {
  add(&c->src, "kernel void k(global int *r) {\n  int ret = 0;\n");
  for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
    add(&c->src, "  ret |= printf(\"%s\\n\"", scalars[i].fmt);
    kernel_arg(&c->src, &scalars[i]);
    add(&c->src, ");\n");
    expect_scalar(&c->expect, &scalars[i]);
  }
  add(&c->src, "  r[0] = ret;\n}\n");
  c->rets_zero = true;
}

/* One vector type: element C type, OpenCL name, length modifier, host
 * length modifier and the conversions tried in turn. */
typedef struct vtype {
  const char *name, *len, *host_len;
  bool fp, is_signed;
  unsigned bytes;
  const char *convs[4];
} vtype;

static const vtype vtypes[] = {
  {"char", "hh", "hh", false, true, 1, {"%d", "%+4i", "%#x", "%o"}},
  {"uchar", "hh", "hh", false, false, 1, {"%u", "%#X", "%03o", "%x"}},
  {"short", "h", "h", false, true, 2, {"%d", "%-7i|", "%x", "%.4o"}},
  {"ushort", "h", "h", false, false, 2, {"%u", "%#x", "%06X", "%o"}},
  {"int", "hl", "", false, true, 4, {"%d", "% i", "%X", "%#o"}},
  {"uint", "hl", "", false, false, 4, {"%u", "%05u", "%#x", "%o"}},
  {"long", "l", "l", false, true, 8, {"%d", "%+i", "%x", "%o"}},
  {"ulong", "l", "l", false, false, 8, {"%u", "%#X", "%20u", "%o"}},
  {"float", "hl", "", true, true, 4, {"%f", "%.2e", "%g", "%a"}},
  {"double", "l", "", true, true, 8, {"%8.3F", "%G", "%E", "%A"}},
  {"half", "h", "", true, true, 2, {"%f", "%.3e", "%g", "%a"}},
};

/* Element i of a vector of t: integers spread over the type's range,
 * floats exact in half precision. */
static double velem(const vtype *t, unsigned i, long long *ival) {
  long long x = (long long)(i * 2654435761u) ^ ((long long)i << 40);
  if (t->is_signed && (i & 1))
    x = -x;
  unsigned bits = 8 * t->bytes;
  if (bits < 64) {
    x &= (1ll << bits) - 1;
    if (t->is_signed && (x >> (bits - 1)))
      x -= 1ll << bits;
  }
  *ival = x;
  return (i & 1 ? -1.0 : 1.0) * (0.25 * i + (i % 3) * 16);
}

/* One vector printf: "%<flags...>v<n><len><conv>". */
static void one_vector(scase *c, const vtype *t, unsigned n,
                       const char *conv) {
  size_t cl = strlen(conv);
  const char *bar = conv[cl - 1] == '|' ? "|" : "";
  size_t speclen = cl - strlen(bar) - 1;   /* without the conversion */
  char cv = conv[speclen];
  add(&c->src, "  { %s%u v = (%s%u)(", t->name, n, t->name, n);
  char host[32];
  snprintf(host, sizeof host, "%.*s%s%c", (int)speclen, conv, t->host_len,
           cv);
  for (unsigned i = 0; i < n; i++) {
    long long iv;
    double dv = velem(t, i, &iv);
    if (t->fp) {
      add(&c->src, "%s%.17g", i ? ", " : "", dv);
      add(&c->expect, host, dv);
    } else {
      add(&c->src, "%s(%s)%lldL", i ? ", " : "", t->name, iv);
      if (t->bytes == 8)
        add(&c->expect, host, iv);
      else
        add(&c->expect, host, (int)iv);
    }
    add(&c->expect, i + 1 < n ? "," : "");
  }
  add(&c->expect, "%s\n", bar);
  add(&c->src, ");\n    ret |= printf(\"%.*sv%u%s%c%s\\n\", v); }\n",
      (int)speclen, conv, n, t->len, cv, bar);
}

/* Every vector type and size, one work-item; half only with fp16. */
static void case_vectors(scase *c, bool fp16) {
  static const unsigned sizes[] = {2, 3, 4, 8, 16};
  if (fp16)
    add(&c->src, "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n");
  add(&c->src, "kernel void k(global int *r) {\n  int ret = 0;\n");
  /* The spec's own examples. */
  add(&c->src, "  float4 f = (float4)(1.0f, 2.0f, 3.0f, 4.0f);\n"
               "  uchar4 uc = (uchar4)(0xFA, 0xFB, 0xFC, 0xFD);\n"
               "  ret |= printf(\"f4 = %%2.2v4hlf\\n\", f);\n"
               "  ret |= printf(\"uc = %%#v4hhx\\n\", uc);\n");
  add(&c->expect, "f4 = 1.00,2.00,3.00,4.00\nuc = 0xfa,0xfb,0xfc,0xfd\n");
  for (size_t t = 0; t < sizeof(vtypes) / sizeof(vtypes[0]); t++) {
    if (strcmp(vtypes[t].name, "half") == 0 && !fp16)
      continue;
    for (size_t s = 0; s < 5; s++)
      for (size_t k = 0; k < 4; k++)
        if ((s + k) % 2 == 0)   /* half the combinations: each conversion
                                   and each size still appear */
          one_vector(c, &vtypes[t], sizes[s], vtypes[t].convs[k]);
  }
  add(&c->src, "  r[0] = ret;\n}\n");
  c->rets_zero = true;
}

/* A 2-D NDRange of 4x3 groups of 3x2: each work-item prints two lines;
 * the order is group linear id, local linear id, program order. */
static void case_order(scase *c) {
  add(&c->src,
      "kernel void k(global int *r) {\n"
      "  size_t gx = get_group_id(0), gy = get_group_id(1);\n"
      "  size_t lx = get_local_id(0), ly = get_local_id(1);\n"
      "  int a = printf(\"g%%d,%%d l%%d,%%d first\\n\", (int)gx, (int)gy,"
      " (int)lx, (int)ly);\n"
      "  int b = printf(\"g%%d,%%d l%%d,%%d second %%ld\\n\", (int)gx,"
      " (int)gy, (int)lx, (int)ly, (long)(get_global_id(1) * 12 +"
      " get_global_id(0)));\n"
      "  r[get_global_id(1) * 12 + get_global_id(0)] = a | b;\n}\n");
  c->dims = 2;
  c->global[0] = 12, c->global[1] = 6, c->local[0] = 3, c->local[1] = 2;
  c->n = 72;
  for (int gy = 0; gy < 3; gy++)
    for (int gx = 0; gx < 4; gx++)
      for (int ly = 0; ly < 2; ly++)
        for (int lx = 0; lx < 3; lx++) {
          add(&c->expect, "g%d,%d l%d,%d first\n", gx, gy, lx, ly);
          add(&c->expect, "g%d,%d l%d,%d second %d\n", gx, gy, lx, ly,
              (gy * 2 + ly) * 12 + gx * 3 + lx);
        }
  c->rets_zero = true;
}

/* Many groups on several threads at once: still in global id order. */
static void case_many(scase *c) {
  add(&c->src, "kernel void k(global int *r) {\n"
               "  r[get_global_id(0)] = printf(\"%%u\\n\","
               " (uint)get_global_id(0));\n}\n");
  c->global[0] = 8192, c->local[0] = 64, c->n = 8192;
  for (int i = 0; i < 8192; i++)
    add(&c->expect, "%d\n", i);
  c->rets_zero = true;
}

/* A barrier between two printfs (region or fiber mode): each
 * work-item's two lines together, work-items in local id order. */
static void case_barrier(scase *c) {
  add(&c->src,
      "kernel void k(global int *r) {\n"
      "  local int seen[16];\n"
      "  size_t l = get_local_id(0), g = get_group_id(0);\n"
      "  seen[l] = (int)(l * 10);\n"
      "  int a = printf(\"before g%%d l%%d\\n\", (int)g, (int)l);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  int b = printf(\"after g%%d l%%d next %%d\\n\", (int)g, (int)l,"
      " seen[(l + 1) %% 16]);\n"
      "  r[get_global_id(0)] = a | b;\n}\n");
  c->global[0] = 48, c->local[0] = 16, c->n = 48;
  for (int g = 0; g < 3; g++)
    for (int l = 0; l < 16; l++) {
      add(&c->expect, "before g%d l%d\n", g, l);
      add(&c->expect, "after g%d l%d next %d\n", g, l, (l + 1) % 16 * 10);
    }
  c->rets_zero = true;
}

/* printf in a loop and in a helper function (with a %s literal). */
static void case_loop_helper(scase *c) {
  add(&c->src,
      "void say(int i, int j) {\n"
      "  printf(\"%%s %%d.%%d\\n\", \"helper\", i, j);\n}\n"
      "kernel void k(global int *r) {\n"
      "  int i = (int)get_global_id(0), ret = 0;\n"
      "  for (int j = 0; j < i %% 4 + 1; j++) {\n"
      "    ret |= printf(\"loop %%d.%%d\\n\", i, j);\n"
      "    if (j %% 2) say(i, j);\n  }\n"
      "  r[i] = ret;\n}\n");
  c->global[0] = 20, c->local[0] = 5, c->n = 20;
  for (int i = 0; i < 20; i++)
    for (int j = 0; j < i % 4 + 1; j++) {
      add(&c->expect, "loop %d.%d\n", i, j);
      if (j % 2)
        add(&c->expect, "helper %d.%d\n", i, j);
    }
  c->rets_zero = true;
}

/* A kernel without printf prints nothing (and still runs). */
static void case_silent(scase *c) {
  add(&c->src, "kernel void k(global int *r) {\n"
               "  r[get_global_id(0)] = 7 * (int)get_global_id(0);\n}\n");
  c->global[0] = 64, c->n = 64;
}

/* Records of 56 bytes (40 of header, a 4-byte int and an 8-byte string
 * pointer, rounded up) from 65536 work-items: 3.5 MiB of records, lines
 * of 66 bytes, 4.1 MiB of output. The default buffer (256 MiB) holds
 * them all; one of SMALL_BUFFER bytes is made of two blocks of 1 MiB,
 * each holding 1 MiB / 56 records: the calls that do not fit return -1
 * and print nothing. */
#define FULL_ITEMS 65536
#define FULL_RECORD 56
#define SMALL_BUFFER (2 * 1024 * 1024)
static const char full_text[] =
    "0123456789012345678901234567890123456789012345678901234567";

static void case_full(scase *c) {
  add(&c->src, "kernel void k(global int *r) {\n"
               "  r[get_global_id(0)] = printf(\"%%06d %%s\\n\","
               " (int)get_global_id(0), \"%s\");\n}\n", full_text);
  c->global[0] = FULL_ITEMS, c->local[0] = 256, c->n = FULL_ITEMS;
}

/* ---- the parent ---- */

/* Runs case c in a child with stdout on a pipe; returns what it wrote
 * (malloc'd, *len bytes) and its exit status in *status. */
static char *spawn(const scase *c, size_t *len, int *status) {
  int fds[2];
  if (pipe(fds) != 0)
    exit(1);
  /* The child's stderr, when its kernel's mode is checked: a file, which
   * cannot fill up while the parent reads the stdout pipe. */
  char err_name[] = "/tmp/test-printf-XXXXXX";
  int err_fd = c->want_mode ? mkstemp(err_name) : -1;
  if (c->want_mode && err_fd < 0)
    exit(1);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], STDOUT_FILENO);
    close(fds[1]);
    if (c->mode)
      setenv("SKEIN_MODE", c->mode, 1);
    if (c->buffer_size)
      setenv("SKEIN_PRINTF_BUFFER_SIZE", c->buffer_size, 1);
    if (c->want_mode) {
      setenv("SKEIN_DUMP", "modes", 1);
      dup2(err_fd, STDERR_FILENO);
    }
    test_setup(&env);
    int *r = run(c->src.s, c->options, c->via_binary, c->dims ? c->dims : 1,
                 c->global, c->local[0] ? c->local : NULL, c->n);
    for (size_t i = 0; c->rets_zero && i < c->n; i++)
      CHECK_EQ(r[i], 0);
    if (c->n == FULL_ITEMS) {
      /* The parent checks the printed lines against these. */
      long ok = 0, sum = 0;
      for (size_t i = 0; i < c->n; i++) {
        CHECK(r[i] == 0 || r[i] == -1);
        ok += r[i] == 0;
        sum += r[i] == 0 ? (long)i : 0;
      }
      size_t size = 0;
      REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_PRINTF_BUFFER_SIZE,
                                 sizeof size, &size, NULL));
      fprintf(stderr, "full: %ld calls fitted in %zu bytes\n", ok, size);
      printf("fitted %ld %ld %zu\n", ok, sum, size);
    }
    free(r);
    test_teardown(&env);
    fflush(stdout);
    exit(test_failures ? 1 : 0);   /* exit: the leak checker runs too */
  }
  close(fds[1]);
  text out = {0};
  char chunk[65536];
  ssize_t n;
  while ((n = read(fds[0], chunk, sizeof chunk)) > 0)
    add(&out, "%.*s", (int)n, chunk);
  close(fds[0]);
  waitpid(pid, status, 0);
  if (c->want_mode) {
    char log[4096] = "";
    ssize_t got = pread(err_fd, log, sizeof log - 1, 0);
    log[got > 0 ? got : 0] = '\0';
    if (!strstr(log, c->want_mode)) {
      fprintf(stderr, "kernel mode: want '%s', child said:\n%s\n",
              c->want_mode, log);
      test_failures++;
    }
    close(err_fd);
    unlink(err_name);
  }
  *len = out.len;
  return out.s ? out.s : strdup("");
}

/* Prints where got and want first differ. */
static void report_diff(const char *name, const char *got, size_t glen,
                        const char *want, size_t wlen) {
  size_t i = 0;
  while (i < glen && i < wlen && got[i] == want[i])
    i++;
  size_t from = i > 80 ? i - 80 : 0;
  fprintf(stderr, "%s: output differs at byte %zu (got %zu, want %zu)\n"
          "  got:  ...%.*s\n  want: ...%.*s\n", name, i, glen, wlen,
          (int)(glen - from < 160 ? glen - from : 160), got + from,
          (int)(wlen - from < 160 ? wlen - from : 160), want + from);
}

static void check_case(const char *name, scase *c) {
  size_t len;
  int status;
  char *got = spawn(c, &len, &status);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  add(&c->expect, MARK);
  if (len != c->expect.len || memcmp(got, c->expect.s, len) != 0) {
    report_diff(name, got, len, c->expect.s, c->expect.len);
    test_failures++;
  }
  free(got);
}

/* The large and full-buffer cases: the lines printed before MARK are
 * exactly the calls that returned 0, in global id order, each whole, and
 * as many as fit in a buffer of buffer_size bytes (NULL: the default,
 * which holds all), which CL_DEVICE_PRINTF_BUFFER_SIZE reports. */
static void check_full(const char *mode, const char *buffer_size) {
  scase c = {.mode = mode, .buffer_size = buffer_size};
  case_full(&c);
  size_t len;
  int status;
  char *got = spawn(&c, &len, &status);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  char *mark = strstr(got, MARK);
  REQUIRE_OK(mark ? CL_SUCCESS : CL_INVALID_VALUE);
  long lines = 0, sum = 0, last = -1, ok = -1, ok_sum = -1;
  size_t size = 0;
  bool well_formed = true;
  for (char *p = got; p < mark;) {
    char *nl = strchr(p, '\n');
    long id = strtol(p, NULL, 10);
    well_formed &= nl && nl - p == 7 + (long)strlen(full_text) &&
                   strncmp(p + 7, full_text, strlen(full_text)) == 0 &&
                   id > last;
    last = id;
    lines++;
    sum += id;
    p = nl ? nl + 1 : mark;
  }
  CHECK(sscanf(mark + strlen(MARK), "fitted %ld %ld %zu", &ok, &ok_sum,
               &size) == 3);
  CHECK(well_formed);
  if (buffer_size) {
    CHECK_EQ(size, (size_t)SMALL_BUFFER);
    CHECK_EQ(lines, 2 * ((1024 * 1024) / FULL_RECORD));
  } else {
    CHECK_EQ(size, (size_t)256 * 1024 * 1024);
    CHECK_EQ(lines, FULL_ITEMS);
    CHECK_EQ((size_t)(mark - got),
             (size_t)FULL_ITEMS * (8 + strlen(full_text)));
  }
  CHECK_EQ(ok, lines);
  CHECK_EQ(ok_sum, sum);
  free(got);
  free(c.src.s);
}

/* Whether the device has cl_khr_fp16 (asked in a child: the parent keeps
 * no OpenCL state across fork). */
static bool has_fp16(void) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    test_setup(&env);
    char ext[8192] = "";
    clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    _exit(strstr(ext, "cl_khr_fp16") ? 10 : 11);
  }
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 10;
}

typedef void (*case_fn)(scase *c);

static void run_case(const char *name, case_fn make, const char *mode,
                     const char *options, bool via_binary) {
  scase c = {.mode = mode, .options = options, .via_binary = via_binary,
             .n = 1, .global = {1, 1}};
  /* Each mode must really run: printf must not push a kernel out of the
   * mode it would have without it. */
  if (make == case_barrier)
    c.want_mode = mode && strcmp(mode, "fiber") == 0 ? "k: fiber mode"
                                                     : "k: region mode";
  else if (make == case_loop_helper)
    c.want_mode = mode && strcmp(mode, "fiber") == 0 ? "k: fiber mode"
                                                     : "k: loop mode";
  make(&c);
  char full[128];
  snprintf(full, sizeof full, "%s [mode %s, %s%s]", name,
           mode ? mode : "default", options ? options : "",
           via_binary ? ", binary" : "");
  check_case(full, &c);
  free(c.src.s);
  free(c.expect.s);
}

static bool fp16;
static void case_vectors_dev(scase *c) { case_vectors(c, fp16); }

int main(void) {
  fp16 = has_fp16();
  static const case_fn fns[] = {case_scalars, case_vectors_dev, case_order,
                                case_many, case_barrier, case_loop_helper,
                                case_silent};
  static const char *const names[] = {"scalars", "vectors", "order", "many",
                                      "barrier", "loop+helper", "silent"};
  static const char *const modes[] = {NULL, "fiber"};
  for (size_t m = 0; m < 2; m++)
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
      run_case(names[i], fns[i], modes[m], NULL, false);
  run_case("barrier", case_barrier, "region", NULL, false);
  run_case("scalars", case_scalars, NULL, "-cl-std=CL1.2", false);
  run_case("vectors", case_vectors_dev, NULL, "-cl-std=CL3.0", false);
  run_case("barrier", case_barrier, NULL, "-cl-std=CL1.2", true);
  run_case("loop+helper", case_loop_helper, NULL, "-cl-std=CL3.0", true);
  run_case("scalars", case_scalars, "fiber", "-cl-opt-disable", true);
  check_full(NULL, NULL);
  check_full("fiber", NULL);
  check_full(NULL, "2097152");
  check_full("fiber", "2097152");
  return test_finish("printf");
}
