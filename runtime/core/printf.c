/* This file contains the host side of OpenCL C's printf (OpenCL C 3.0
 * section 6.15.14): the per-launch record buffer, and the formatting of
 * the records at the end of the launch. Each record holds the format
 * string's address (a constant of the program, alive while the launch
 * runs), the compiler's layout of the arguments and their bytes
 * (compiler/printf_lower.c); every conversion is done by the host's
 * fprintf, one element at a time for vectors (comma separated).
 *
 * Order: the spec leaves the order of concurrent work-items open. Skein
 * writes the output of one launch ordered by work-group linear id, then by
 * local linear id (all of local id 0, then all of 1, ...), then in each
 * work-item's program order, whatever the mode (loop, fiber, region) and
 * whichever threads ran the groups: the same program prints the same text
 * every run. */
#define _POSIX_C_SOURCE 200809L /* flockfile, strnlen */
#include "printf.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t rt_printf_buffer_size(void) {
  /* Any thread may compute it first: all compute the same value. */
  static _Atomic size_t size;
  size_t v = atomic_load_explicit(&size, memory_order_relaxed);
  if (v)
    return v;
  v = RT_PRINTF_BUFFER_SIZE;
  const char *env = getenv("SKEIN_PRINTF_BUFFER_SIZE");
  if (env && *env) {
    char *end;
    unsigned long long n = strtoull(env, &end, 10);
    if (!*end && n >= RT_PRINTF_FIRST_BLOCK && n <= SIZE_MAX / 2)
      v = (size_t)n;
  }
  atomic_store_explicit(&size, v, memory_order_relaxed);
  return v;
}

/* The host's side of a launch's buffer: the lock that grow takes, and
 * the bytes of its blocks so far. */
typedef struct pf_buffer {
  skein_printf_buffer buf;      /* first: the device sees this */
  pthread_mutex_t lock;         /* guards total and the making of blocks */
  size_t total;                 /* bytes of every block */
} pf_buffer;

/* A zeroed block of capacity bytes after prev (calloc maps large ones
 * lazily): a record header of zeros ends the walk in collect(). */
static skein_printf_chunk *chunk_new(size_t capacity,
                                     skein_printf_chunk *prev) {
  skein_printf_chunk *c = calloc(1, sizeof(*c));
  if (!c)
    return NULL;
  c->data = calloc(1, capacity);
  if (!c->data) {
    free(c);
    return NULL;
  }
  c->capacity = capacity;
  c->prev = prev;
  c->seq = prev ? prev->seq + 1 : 0;
  return c;
}

/* skein_printf_buffer.grow: blocks double (from RT_PRINTF_FIRST_BLOCK),
 * so a launch that prints much makes few of them, and stop at
 * rt_printf_buffer_size() bytes in all. */
static skein_printf_chunk *grow(skein_printf_buffer *b,
                                skein_printf_chunk *full, uint64_t bytes) {
  pf_buffer *pb = (pf_buffer *)b;
  pthread_mutex_lock(&pb->lock);
  skein_printf_chunk *c = __atomic_load_n(&b->current, __ATOMIC_RELAXED);
  if (c == full) {
    size_t left = rt_printf_buffer_size() - pb->total;
    size_t want = 2 * full->capacity > bytes ? 2 * full->capacity : bytes;
    if (want > left)
      want = left;
    c = want >= bytes ? chunk_new(want, full) : NULL;
    if (c) {
      pb->total += want;
      /* Release: a thread that reads current sees the block whole. */
      __atomic_store_n(&b->current, c, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&pb->lock);
  return c;
}

skein_printf_buffer *rt_printf_buffer_create(void) {
  pf_buffer *pb = calloc(1, sizeof(*pb));
  if (!pb)
    return NULL;
  pb->buf.current = chunk_new(RT_PRINTF_FIRST_BLOCK, NULL);
  if (!pb->buf.current) {
    free(pb);
    return NULL;
  }
  pb->total = RT_PRINTF_FIRST_BLOCK;
  pb->buf.grow = grow;
  pthread_mutex_init(&pb->lock, NULL);
  return &pb->buf;
}

/* One argument as the compiler laid it out: kind (i, f, s, p, v),
 * bytes and offset in the record; bound: the bytes of a string literal. */
typedef struct pf_arg {
  char kind;
  unsigned long size, offset, bound;
} pf_arg;

/* The next argument of the layout text at *layout ("k<size>@<offset>" and
 * ":<bound>" for literals, space separated); false when none is left. */
static bool next_arg(const char **layout, pf_arg *a) {
  const char *p = *layout;
  if (!p || !*p)
    return false;
  char *end;
  a->kind = *p++;
  a->size = strtoul(p, &end, 10);
  a->offset = *end == '@' ? strtoul(end + 1, &end, 10) : 0;
  a->bound = *end == ':' ? strtoul(end + 1, &end, 10) : 0;
  *layout = end + (*end == ' ');
  return true;
}

/* Length modifiers. */
enum { LEN_NONE, LEN_HH, LEN_H, LEN_HL, LEN_L };

/* One parsed conversion specification. */
typedef struct pf_spec {
  const char *flags, *width, *prec;   /* into the format */
  int nflags, nwidth, nprec;
  bool has_prec;
  unsigned vec;                       /* 0, or the vector size */
  int len;
  char conv;
} pf_spec;

static int digits(const char **p) {
  int n = 0;
  while ((*p)[n] >= '0' && (*p)[n] <= '9')
    n++;
  *p += n;
  return n;
}

/* Parses the length modifier at *p. */
static int length(const char **p) {
  const char *s = *p;
  int len = LEN_NONE;
  if (s[0] == 'h')
    len = s[1] == 'h' ? LEN_HH : s[1] == 'l' ? LEN_HL : LEN_H;
  else if (s[0] == 'l' || s[0] == 'z' || s[0] == 't' || s[0] == 'j')
    len = LEN_L;   /* z, t (size_t, ptrdiff_t) and j are 64-bit here */
  *p += len == LEN_NONE ? 0 : len == LEN_HH || len == LEN_HL ? 2 : 1;
  if (len == LEN_L && s[0] == 'l' && s[1] == 'l')
    (*p)++;        /* ll: reserved by OpenCL C, read as l */
  return len;
}

/* Parses the specification after a '%' at p; returns the character after
 * it, or NULL if it is not one the spec defines (the field width is a
 * plain decimal number: OpenCL C has no '*'). */
static const char *parse_spec(const char *p, pf_spec *s) {
  memset(s, 0, sizeof(*s));
  s->flags = p;
  while (*p && strchr("-+ #0", *p))
    p++;
  s->nflags = (int)(p - s->flags);
  s->width = p;
  s->nwidth = digits(&p);
  if (*p == '.') {
    p++;
    s->has_prec = true;
    s->prec = p;
    s->nprec = digits(&p);
  }
  if (*p == 'v') {
    p++;
    const char *n = p;
    if (!digits(&p))
      return NULL;
    s->vec = (unsigned)atoi(n);
    if (s->vec != 2 && s->vec != 3 && s->vec != 4 && s->vec != 8 &&
        s->vec != 16)
      return NULL;
  }
  s->len = length(&p);
  s->conv = *p;
  if (!s->conv || !strchr("diouxXcsfFeEgGaAp%", s->conv))
    return NULL;
  if (s->vec && (s->len == LEN_NONE || !strchr("diouxXfFeEgGaA", s->conv)))
    return NULL;   /* a vector needs a length and a numeric conversion */
  return p + 1;
}

/* The host format of s for one value: flags, width, precision (prec < 0:
 * s's own), then mod and the conversion. A flag may be repeated any
 * number of times in the format string; it is given once here, so the
 * host format always fits out (cap >= 96: five flags, and width and
 * precision of at most 40 digits each). */
static void host_format(char *out, size_t cap, const pf_spec *s,
                        const char *mod, long prec) {
  char flags[6] = "";
  size_t nf = 0;
  for (int i = 0; i < s->nflags; i++)
    if (!memchr(flags, s->flags[i], nf) && nf < sizeof(flags) - 1)
      flags[nf++] = s->flags[i];
  flags[nf] = 0;
  char p[48] = "";
  if (prec >= 0)
    snprintf(p, sizeof(p), ".%ld", prec);
  else if (s->has_prec)
    snprintf(p, sizeof(p), ".%.*s", s->nprec > 40 ? 40 : s->nprec, s->prec);
  snprintf(out, cap, "%%%s%.*s%s%s%c", flags, s->nwidth > 40 ? 40 : s->nwidth,
           s->width, p, mod, s->conv);
}

/* IEEE half bits to double (exact). */
static double half_to_double(uint16_t h) {
  int e = (h >> 10) & 0x1f;
  double m = h & 0x3ff;
  double v = e == 0    ? m * 0x1p-24
             : e == 31 ? (m ? __builtin_nan("") : __builtin_inf())
                       : (1.0 + m / 1024.0) * __builtin_ldexp(1.0, e - 15);
  return h & 0x8000 ? -v : v;
}

/* The little-endian integer of size bytes at p (size <= 8). */
static uint64_t load_uint(const unsigned char *p, unsigned long size) {
  uint64_t v = 0;
  for (unsigned long i = 0; i < size && i < 8; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* The floating-point value of size bytes (2, 4 or 8) at p. */
static double load_float(const unsigned char *p, unsigned long size) {
  if (size == 8) {
    double d;
    memcpy(&d, p, 8);
    return d;
  }
  if (size == 4) {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  return size == 2 ? half_to_double((uint16_t)load_uint(p, 2)) : 0.0;
}

/* Prints integer bits u as conversion s with length len (the value is
 * converted to the length's type, signed for d and i). */
static void print_int(FILE *out, const pf_spec *s, uint64_t u, int len) {
  char fmt[96];
  bool sign = s->conv == 'd' || s->conv == 'i';
  long long v;
  switch (len) {
  case LEN_HH: v = sign ? (signed char)u : (long long)(unsigned char)u; break;
  case LEN_H: v = sign ? (short)u : (long long)(unsigned short)u; break;
  case LEN_L: v = (long long)u; break;
  default: v = sign ? (int)u : (long long)(unsigned)u; break;
  }
  if (s->conv == 'c') {
    host_format(fmt, sizeof(fmt), s, "", -1);
    fprintf(out, fmt, (int)(unsigned char)u);
    return;
  }
  host_format(fmt, sizeof(fmt), s, "ll", -1);
  fprintf(out, fmt, v);
}

static void print_double(FILE *out, const pf_spec *s, double d) {
  char fmt[96];
  host_format(fmt, sizeof(fmt), s, "", -1);
  fprintf(out, fmt, d);
}

/* %s: a literal is read up to its array's end at most; any other
 * pointer (undefined behaviour by the spec) up to its NUL. */
static void print_string(FILE *out, const pf_spec *s, const pf_arg *a,
                         const unsigned char *bytes) {
  char fmt[96];
  const char *str = (const char *)(uintptr_t)load_uint(bytes, 8);
  if (a->kind != 's' && a->kind != 'p')
    return;   /* not a pointer: undefined, print nothing */
  if (!str)
    str = "(null)";
  long max = s->has_prec ? atol(s->prec) : -1;
  if (a->kind == 's' && (max < 0 || (unsigned long)max > a->bound))
    max = (long)strnlen(str, a->bound);
  host_format(fmt, sizeof(fmt), s, "", max);
  fprintf(out, fmt, str);
}

/* Bytes of one vector element for a length modifier (0: invalid). */
static unsigned long element_size(int len, bool fp) {
  switch (len) {
  case LEN_HH: return fp ? 0 : 1;
  case LEN_H: return 2;
  case LEN_HL: return 4;
  case LEN_L: return 8;
  default: return 0;
  }
}

/* A vector conversion: each element as its scalar, comma separated. A
 * vector shorter than the specification (undefined) prints what it has. */
static void print_vector(FILE *out, const pf_spec *s, const pf_arg *a,
                         const unsigned char *bytes) {
  bool fp = strchr("fFeEgGaA", s->conv) != NULL;
  unsigned long es = element_size(s->len, fp);
  for (unsigned i = 0; es && i < s->vec && (i + 1) * es <= a->size; i++) {
    if (i)
      fputc(',', out);
    const unsigned char *e = bytes + i * es;
    if (fp)
      print_double(out, s, load_float(e, es));
    else
      print_int(out, s, load_uint(e, es), s->len);
  }
}

/* One conversion with argument a (whose bytes start at bytes). */
static void print_conversion(FILE *out, const pf_spec *s, const pf_arg *a,
                             const unsigned char *bytes) {
  char fmt[96];
  if (s->vec) {
    print_vector(out, s, a, bytes);
  } else if (s->conv == 's') {
    print_string(out, s, a, bytes);
  } else if (s->conv == 'p') {
    host_format(fmt, sizeof(fmt), s, "", -1);
    fprintf(out, fmt, (void *)(uintptr_t)load_uint(bytes, 8));
  } else if (strchr("fFeEgGaA", s->conv)) {
    print_double(out, s, load_float(bytes, a->size));
  } else {
    /* Integers: sign-extend what was passed, then convert to the length
     * modifier's type. */
    uint64_t u = load_uint(bytes, a->size);
    if (a->size > 0 && a->size < 8 && (u >> (8 * a->size - 1)) & 1)
      u |= ~0ull << (8 * a->size);
    print_int(out, s, u, s->len);
  }
}

/* Writes the output of one record; args holds its arg_size bytes. */
static void print_record(FILE *out, const skein_printf_record *r,
                         const unsigned char *args) {
  const char *layout = r->layout;
  const char *p = r->format;
  while (p && *p) {
    const char *pct = strchr(p, '%');
    size_t n = pct ? (size_t)(pct - p) : strlen(p);
    fwrite(p, 1, n, out);
    if (!pct)
      break;
    pf_spec s;
    const char *after = parse_spec(pct + 1, &s);
    if (!after) {
      /* Not a conversion OpenCL C defines (undefined): as written. */
      fputc('%', out);
      p = pct + 1;
      continue;
    }
    p = after;
    if (s.conv == '%') {
      fputc('%', out);
      continue;
    }
    pf_arg a;
    if (!next_arg(&layout, &a))
      continue;   /* too few arguments: undefined, print nothing */
    if (a.offset + a.size <= r->arg_size)
      print_conversion(out, &s, &a, args + a.offset);
  }
}

/* Where a record sits and how it sorts. */
typedef struct pf_entry {
  uint64_t group, local, seq;   /* seq: the block's */
  const unsigned char *at;
} pf_entry;

static int entry_cmp(const void *x, const void *y) {
  const pf_entry *a = x, *b = y;
  if (a->group != b->group)
    return a->group < b->group ? -1 : 1;
  if (a->local != b->local)
    return a->local < b->local ? -1 : 1;
  if (a->seq != b->seq)
    return a->seq < b->seq ? -1 : 1;
  return a->at < b->at ? -1 : a->at > b->at;
}

/* Appends the well-formed records of block c (the walk stops at the
 * first that is not) to e (*n of them; room for them all). Within a
 * group, the order of blocks and of records in a block is the program
 * order of each work-item: one thread runs the whole group. */
static void collect(const skein_printf_chunk *c, pf_entry *e, size_t *n) {
  size_t used = c->used < c->capacity ? c->used : c->capacity;
  for (size_t off = 0; off + sizeof(skein_printf_record) <= used;) {
    skein_printf_record r;
    memcpy(&r, c->data + off, sizeof(r));
    if (r.size < sizeof(r) || r.size % 8 || r.size > used - off ||
        r.arg_size > r.size - sizeof(r))
      break;
    e[(*n)++] = (pf_entry){r.group, r.local, c->seq, c->data + off};
    off += r.size;
  }
}

void rt_printf_flush(skein_printf_buffer *buf) {
  if (!buf)
    return;
  pf_buffer *pb = (pf_buffer *)buf;
  size_t cap = 0, n = 0;
  for (skein_printf_chunk *c = buf->current; c; c = c->prev)
    cap += c->used / sizeof(skein_printf_record) + 1;
  pf_entry *e = malloc(cap * sizeof(*e));
  if (e) {
    for (skein_printf_chunk *c = buf->current; c; c = c->prev)
      collect(c, e, &n);
    qsort(e, n, sizeof(*e), entry_cmp);
    FILE *out = stdout;   /* as it is now: applications may redirect it */
    flockfile(out);
    for (size_t i = 0; i < n; i++) {
      skein_printf_record r;
      memcpy(&r, e[i].at, sizeof(r));
      print_record(out, &r, e[i].at + sizeof(r));
    }
    fflush(out);
    funlockfile(out);
  }
  free(e);
  for (skein_printf_chunk *c = buf->current, *prev; c; c = prev) {
    prev = c->prev;
    free(c->data);
    free(c);
  }
  pthread_mutex_destroy(&pb->lock);
  free(pb);
}
