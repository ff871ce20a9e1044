/* This file contains the program binary container: "SKEINBIN", a format
 * version, the LLVM and Skein versions that wrote it, the build options
 * and the front end's bitcode, closed by a checksum. Loading validates
 * every field before anything is parsed. */
#include "compiler_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIN_MAGIC "SKEINBIN"
#define BIN_FORMAT 1u

/* Fixed-size header; all integers little-endian (hosts are x86-64). */
typedef struct bin_header {
  char magic[8];
  uint32_t format;
  uint32_t header_size;
  char llvm_version[16];
  char skein_version[16];
  uint64_t options_size;   /* including the terminating NUL */
  uint64_t bitcode_size;
} bin_header;

/* FNV-1a: catches truncation and stray bit flips, not malice. */
static uint64_t checksum(const unsigned char *p, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

unsigned char *cc_binary_pack(const void *bc, size_t bc_size,
                              const char *options, size_t *size) {
  bin_header h;
  memset(&h, 0, sizeof(h));
  memcpy(h.magic, BIN_MAGIC, 8);
  h.format = BIN_FORMAT;
  h.header_size = sizeof(h);
  snprintf(h.llvm_version, sizeof(h.llvm_version), "%s", SKEIN_LLVM_VERSION);
  snprintf(h.skein_version, sizeof(h.skein_version), "%s", SKEIN_VERSION);
  h.options_size = strlen(options ? options : "") + 1;
  h.bitcode_size = bc_size;
  size_t total = sizeof(h) + h.options_size + bc_size + sizeof(uint64_t);
  unsigned char *out = malloc(total);
  if (!out)
    return NULL;
  memcpy(out, &h, sizeof(h));
  memcpy(out + sizeof(h), options ? options : "", h.options_size);
  memcpy(out + sizeof(h) + h.options_size, bc, bc_size);
  uint64_t sum = checksum(out, total - sizeof(sum));
  memcpy(out + total - sizeof(sum), &sum, sizeof(sum));
  *size = total;
  return out;
}

/* Fails the load with a log line. */
static bool invalid(cc_log *log, const char *why) {
  cc_log_printf(log, "error: invalid program binary: %s\n", why);
  return false;
}

bool cc_binary_unpack(const unsigned char *bin, size_t size,
                      const unsigned char **bc, size_t *bc_size,
                      const char **options, cc_log *log) {
  bin_header h;
  if (!bin || size < sizeof(h) + sizeof(uint64_t))
    return invalid(log, "too short");
  memcpy(&h, bin, sizeof(h));
  if (memcmp(h.magic, BIN_MAGIC, 8) != 0)
    return invalid(log, "not a Skein binary");
  if (h.format != BIN_FORMAT || h.header_size != sizeof(h))
    return invalid(log, "unknown format version");
  if (strncmp(h.llvm_version, SKEIN_LLVM_VERSION, sizeof(h.llvm_version)))
    return invalid(log, "built with another LLVM version");
  size_t room = size - sizeof(h) - sizeof(uint64_t);
  if (h.options_size == 0 || h.options_size > room ||
      h.bitcode_size != room - h.options_size)
    return invalid(log, "truncated or inconsistent sizes");
  const char *opts = (const char *)bin + sizeof(h);
  if (memchr(opts, '\0', h.options_size) != opts + h.options_size - 1)
    return invalid(log, "malformed option string");
  uint64_t sum;
  memcpy(&sum, bin + size - sizeof(sum), sizeof(sum));
  if (sum != checksum(bin, size - sizeof(sum)))
    return invalid(log, "checksum mismatch");
  *options = opts;
  *bc = bin + sizeof(h) + h.options_size;
  *bc_size = h.bitcode_size;
  return true;
}
