/* This file contains the build log buffer and the SKEIN_DUMP switch the
 * compiler stages consult before printing their IR. */
#include "compiler_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Makes room for extra more bytes plus the NUL; false (and oom) if not. */
static bool log_reserve(cc_log *log, size_t extra) {
  if (log->oom)
    return false;
  if (log->len + extra + 1 <= log->cap)
    return true;
  size_t cap = log->cap ? log->cap : 256;
  while (cap < log->len + extra + 1)
    cap *= 2;
  char *buf = realloc(log->buf, cap);
  if (!buf) {
    log->oom = true;
    return false;
  }
  log->buf = buf;
  log->cap = cap;
  return true;
}

void cc_log_append(cc_log *log, const char *text, size_t len) {
  if (!log_reserve(log, len))
    return;
  memcpy(log->buf + log->len, text, len);
  log->len += len;
  log->buf[log->len] = '\0';
}

void cc_log_printf(cc_log *log, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || !log_reserve(log, (size_t)n))
    return;
  va_start(ap, fmt);
  vsnprintf(log->buf + log->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  log->len += (size_t)n;
}

bool cc_dump_enabled(const char *stage) {
  const char *env = getenv("SKEIN_DUMP");
  if (!env || !*env)
    return false;
  if (strcmp(env, "all") == 0)
    return true;
  size_t n = strlen(stage);
  for (const char *p = env; *p;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == n && strncmp(p, stage, n) == 0)
      return true;
    if (!end)
      break;
    p = end + 1;
  }
  return false;
}
