/* This file declares the host side of OpenCL C's printf: the per-launch
 * buffer kernels append records to (builtins/printf.c), and the
 * formatting of those records to stdout when the launch has finished. */
#ifndef SKEIN_RUNTIME_PRINTF_H
#define SKEIN_RUNTIME_PRINTF_H

#include "../../builtins/abi.h"

/* CL_DEVICE_PRINTF_BUFFER_SIZE: the bytes of records (a 40-byte header
 * and the arguments of each call, rounded up to 8) one launch may
 * store; the calls that do not fit return -1 and print nothing. The full
 * profile asks for at least 1 MiB. */
#define RT_PRINTF_BUFFER_SIZE ((size_t)1024 * 1024)

/* A new, empty buffer of RT_PRINTF_BUFFER_SIZE bytes for one launch of a
 * kernel that calls printf (the caller frees it with rt_printf_flush).
 * NULL on allocation failure. */
skein_printf_buffer *rt_printf_buffer_create(void);

/* Writes the output of every record in buf to stdout and flushes it,
 * then frees buf (NULL: nothing). Precondition: every work-group of the
 * launch has returned. The output of one launch is written in one piece
 * (stdout locked), ordered by work-group linear id, then by local linear
 * id within the group, then in each work-item's program order. */
void rt_printf_flush(skein_printf_buffer *buf);

#endif
