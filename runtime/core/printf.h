/* This file declares the host side of OpenCL C's printf: the per-launch
 * buffer kernels append records to (builtins/printf.c), and the
 * formatting of those records to stdout when the launch has finished. */
#ifndef SKEIN_RUNTIME_PRINTF_H
#define SKEIN_RUNTIME_PRINTF_H

#include "../../builtins/abi.h"

#include <stddef.h>

/* The default of CL_DEVICE_PRINTF_BUFFER_SIZE: the bytes of records (a
 * 40-byte header and the arguments of each call, rounded up to 8) one
 * launch may store; the calls that do not fit return -1 and print
 * nothing. The full profile asks for at least 1 MiB; 1 MiB held 21,845
 * one-character printfs, fewer than the CTS command_buffer printf test
 * makes in one launch (16,384 work-items printing up to 5 each). A
 * launch's buffer starts at RT_PRINTF_FIRST_BLOCK bytes and grows by
 * doubling blocks (mapped lazily), so a launch that prints little costs
 * no more than before. */
#define RT_PRINTF_BUFFER_SIZE ((size_t)256 * 1024 * 1024)
#define RT_PRINTF_FIRST_BLOCK ((size_t)1024 * 1024)

/* CL_DEVICE_PRINTF_BUFFER_SIZE: SKEIN_PRINTF_BUFFER_SIZE (bytes, at
 * least RT_PRINTF_FIRST_BLOCK) if set, else RT_PRINTF_BUFFER_SIZE. Read
 * once. */
size_t rt_printf_buffer_size(void);

/* A new, empty buffer for one launch of a kernel that calls printf,
 * growing to rt_printf_buffer_size() bytes (the caller frees it with
 * rt_printf_flush). NULL on allocation failure. */
skein_printf_buffer *rt_printf_buffer_create(void);

/* Writes the output of every record in buf to stdout and flushes it,
 * then frees buf (NULL: nothing). Precondition: every work-group of the
 * launch has returned. The output of one launch is written in one piece
 * (stdout locked), ordered by work-group linear id, then by local linear
 * id within the group, then in each work-item's program order. */
void rt_printf_flush(skein_printf_buffer *buf);

#endif
