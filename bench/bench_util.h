/* This file contains the small helpers the benchmark programs share: a
 * millisecond clock, a comparison for qsort of doubles (for medians) and
 * reading a whole file. Header-only: each benchmark is one program. */
#ifndef SKEIN_BENCH_UTIL_H
#define SKEIN_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The file's bytes, NUL-terminated (malloc'd); exits on failure. */
static inline char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
    exit(1);
  buf[n] = '\0';
  fclose(f);
  *size = (size_t)n;
  return buf;
}

#endif
