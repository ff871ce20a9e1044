/* This file contains the half (cl_khr_fp16) forms of the async copy and
 * prefetch built-ins, done the way builtins/async_copy.cl does them for
 * the other types: the whole copy at once, the event returned unchanged. */
#include "builtins.h"

#define ASYNC_OVL __attribute__((overloadable))

#define ASYNC_COPY_HALF(T, S) \
  event_t ASYNC_OVL async_work_group_copy(__local T *dst, \
      const __global T *src, size_t n, event_t event) { \
    for (size_t i = 0; i < n; i++) \
      dst[i] = src[i]; \
    return event; \
  } \
  event_t ASYNC_OVL async_work_group_copy(__global T *dst, \
      const __local T *src, size_t n, event_t event) { \
    for (size_t i = 0; i < n; i++) \
      dst[i] = src[i]; \
    return event; \
  } \
  event_t ASYNC_OVL async_work_group_strided_copy(__local T *dst, \
      const __global T *src, size_t n, size_t stride, event_t event) { \
    for (size_t i = 0; i < n; i++) \
      dst[i] = src[i * stride]; \
    return event; \
  } \
  event_t ASYNC_OVL async_work_group_strided_copy(__global T *dst, \
      const __local T *src, size_t n, size_t stride, event_t event) { \
    for (size_t i = 0; i < n; i++) \
      dst[i * stride] = src[i]; \
    return event; \
  } \
  void ASYNC_OVL prefetch(const __global T *p, size_t n) { \
    (void)p; \
    (void)n; \
  }
SK_HALFS(ASYNC_COPY_HALF)
