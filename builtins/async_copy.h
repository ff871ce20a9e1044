/* This file defines ASYNC_COPY(T, S), the async copy and prefetch
 * built-ins for element type T, shared by builtins/async_copy.cl and
 * builtins/async_copy_half.cl (see the former for how they work). */
#ifndef SKEIN_ASYNC_COPY_H
#define SKEIN_ASYNC_COPY_H

#define ASYNC_OVL __attribute__((overloadable))

#define ASYNC_COPY(T, S)                                                    \
  event_t ASYNC_OVL async_work_group_copy(__local T *dst,                   \
                                          const __global T *src, size_t n,  \
                                          event_t event) {                  \
    for (size_t i = 0; i < n; i++)                                          \
      dst[i] = src[i];                                                      \
    return event;                                                           \
  }                                                                         \
  event_t ASYNC_OVL async_work_group_copy(__global T *dst,                  \
                                          const __local T *src, size_t n,   \
                                          event_t event) {                  \
    for (size_t i = 0; i < n; i++)                                          \
      dst[i] = src[i];                                                      \
    return event;                                                           \
  }                                                                         \
  event_t ASYNC_OVL async_work_group_strided_copy(                          \
      __local T *dst, const __global T *src, size_t n, size_t stride,       \
      event_t event) {                                                      \
    for (size_t i = 0; i < n; i++)                                          \
      dst[i] = src[i * stride];                                             \
    return event;                                                           \
  }                                                                         \
  event_t ASYNC_OVL async_work_group_strided_copy(                          \
      __global T *dst, const __local T *src, size_t n, size_t stride,       \
      event_t event) {                                                      \
    for (size_t i = 0; i < n; i++)                                          \
      dst[i * stride] = src[i];                                             \
    return event;                                                           \
  }                                                                         \
  void ASYNC_OVL prefetch(const __global T *p, size_t n) {                  \
    (void)p;                                                                \
    (void)n;                                                                \
  }

#endif
