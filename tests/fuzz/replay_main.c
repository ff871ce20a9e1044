/* This file contains the main() that replays fuzz inputs without
 * libFuzzer: it calls LLVMFuzzerInitialize (when the target has one) and
 * LLVMFuzzerTestOneInput once for every file named on the command line
 * and every file of every directory named there (in name order), so the
 * targets build with any compiler and ctest replays their corpora.
 * `--max N` replays at most N files of each directory: the files whose
 * names start with "regress-" always, then the others in name order. */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Weak: a target without LLVMFuzzerInitialize leaves it NULL. */
extern int LLVMFuzzerInitialize(int *argc, char ***argv)
    __attribute__((weak));

static long replayed;

/* Reads a whole file and runs it; exits when it cannot be read. */
static void replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(2);
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
    n += got;
    if (n == cap)
      buf = realloc(buf, cap *= 2);
  }
  if (!buf || ferror(f)) {
    fprintf(stderr, "%s: read failed\n", path);
    exit(2);
  }
  fclose(f);
  /* A copy of exactly n bytes, so that ASan sees reads past the end. */
  uint8_t *exact = malloc(n ? n : 1);
  memcpy(exact, buf, n);
  free(buf);
  fprintf(stderr, "replay %s (%zu bytes)\n", path, n);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  replayed++;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays up to max files of a directory (max < 0: all). */
static void replay_dir(const char *dir, long max) {
  DIR *d = opendir(dir);
  if (!d) {
    perror(dir);
    exit(2);
  }
  char **names = NULL;
  size_t n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue;
    names = realloc(names, (n + 1) * sizeof *names);
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  if (n)
    qsort(names, n, sizeof *names, by_name);
  long done = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++) {
      int regress = strncmp(names[i], "regress-", 8) == 0;
      if (pass == 0 ? !regress : regress || (max >= 0 && done >= max))
        continue;
      size_t len = strlen(dir) + strlen(names[i]) + 2;
      char *path = malloc(len);
      snprintf(path, len, "%s/%s", dir, names[i]);
      replay_file(path);
      free(path);
      done++;
    }
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  long max = -1;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--max") == 0 && i + 1 < argc) {
      max = atol(argv[++i]);
      continue;
    }
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      perror(argv[i]);
      return 2;
    }
    if (S_ISDIR(st.st_mode))
      replay_dir(argv[i], max);
    else
      replay_file(argv[i]);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) +
             (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  fprintf(stderr, "replayed %ld inputs in %.2f s\n", replayed, s);
  /* An empty replay proves nothing: a missing corpus is a failure. */
  return replayed > 0 ? 0 : 1;
}
