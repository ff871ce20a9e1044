/* This file declares pipe objects (OpenCL 3.0 API section 5.4): cl_mem
 * objects of type CL_MEM_OBJECT_PIPE whose storage is the ring of packets
 * the kernels' pipe built-ins use (builtins/pipes.h). The host never
 * reads or writes a pipe's packets. */
#ifndef SKEIN_RUNTIME_PIPE_H
#define SKEIN_RUNTIME_PIPE_H

#include "mem.h"
#include "../../builtins/pipes.h"
#include "../../compiler/compiler.h"

/* The device's pipe limits (CL_DEVICE_PIPE_MAX_PACKET_SIZE,
 * CL_DEVICE_MAX_PIPE_ARGS, CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS). A
 * reservation is only a range of positions (nothing is allocated for
 * it), so any number may be active: the reported number is a promise
 * that is cheap to keep, not a table size. */
#define RT_PIPE_MAX_PACKET_SIZE 1024u
#define RT_PIPE_MAX_ARGS CC_MAX_PIPE_ARGS  /* the compiler enforces it */
#define RT_PIPE_MAX_ACTIVE_RESERVATIONS 1024u

/* True if m is a pipe (a valid cl_mem of type CL_MEM_OBJECT_PIPE). */
bool rt_is_pipe(const void *m);

/* Creates an empty pipe of max_packets packets of packet_size bytes in
 * context (both non-zero, already validated), with flags as given (the
 * default already applied). Returns the pipe with one reference, or NULL
 * with *err set (CL_OUT_OF_HOST_MEMORY, or
 * CL_MEM_OBJECT_ALLOCATION_FAILURE where the ring is too large). */
cl_mem rt_pipe_create(cl_context context, cl_mem_flags flags,
                      cl_uint packet_size, cl_uint max_packets, cl_int *err);

/* The ring kernels see: the address a pipe argument's slot holds. */
skein_pipe *rt_pipe_ring(cl_mem pipe);

#endif
