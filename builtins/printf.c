/* This file contains the device side of printf (OpenCL C 3.0 section
 * 6.15.14): the builtin every printf call becomes (compiler/
 * printf_lower.c), which appends one record, its arguments already packed
 * by the caller, to the launch's printf buffer. The host formats the
 * records when the launch has finished (runtime/core/printf.c). */
#include "abi.h"

#include <stddef.h>

/* Reserves bytes in block buf; NULL if they do not fit. Work-groups
 * append at once from several threads: a compare-and-swap reserves only
 * what fits. */
static unsigned char *reserve(skein_printf_chunk *buf, uint64_t bytes) {
  uint64_t used = __atomic_load_n(&buf->used, __ATOMIC_RELAXED);
  do {
    if (bytes > buf->capacity - used)
      return NULL;
  } while (!__atomic_compare_exchange_n(&buf->used, &used, used + bytes, 1,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return buf->data + used;
}

/* printf(format, ...) of the work-item with linear local id local in
 * group g: args holds arg_size bytes laid out as layout says. Returns 0
 * if the record was stored, -1 if the buffer cannot grow to hold it
 * (CL_DEVICE_PRINTF_BUFFER_SIZE per launch). The host reads the records
 * only after every group has returned, so plain stores suffice. */
__attribute__((noinline)) int32_t
__skein_ctx___skein_printf(skein_group *g, const char *format,
                           const char *layout, const void *args,
                           uint32_t arg_size, uint64_t local) {
  skein_printf_buffer *buf = g->launch->printf_buffer;
  if (!buf)
    return -1;   /* defensive: the compiler said the kernel never prints */
  uint64_t bytes = (sizeof(skein_printf_record) + arg_size + 7) & ~7ull;
  /* Only in the newest block, which is read again at every call: a
   * work-item's later record never lands in an earlier block. */
  skein_printf_chunk *c = __atomic_load_n(&buf->current, __ATOMIC_ACQUIRE);
  unsigned char *p;
  while (!(p = reserve(c, bytes)))
    if (!(c = buf->grow(buf, c, bytes)))
      return -1;
  const uint64_t *n = g->launch->num_groups;
  skein_printf_record r = {
      .size = (uint32_t)bytes,
      .arg_size = arg_size,
      .group = (g->group_id[2] * n[1] + g->group_id[1]) * n[0] +
               g->group_id[0],
      .local = local,
      .format = format,
      .layout = layout,
  };
  __builtin_memcpy(p, &r, sizeof(r));
  /* A loop, not memcpy: the JIT resolves no libc symbols (this file is
   * built -ffreestanding, so the loop stays a loop). */
  const unsigned char *src = args;
  for (uint32_t i = 0; i < arg_size; i++)
    p[sizeof(r) + i] = src[i];
  return 0;
}
