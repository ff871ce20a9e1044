/* This file contains pipe objects: the allocation and layout of the ring
 * of packets (builtins/pipes.h) behind a cl_mem of type
 * CL_MEM_OBJECT_PIPE. The ring's header, its sequence numbers and its
 * packets are one allocation, which the cl_mem owns and
 * rt_mem_release frees. */
#include "pipe.h"
#include "context.h"
#include "platform.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>

bool rt_is_pipe(const void *m) {
  return rt_is(m, RT_MEM) && ((const struct _cl_mem *)m)->type ==
                                 CL_MEM_OBJECT_PIPE;
}

skein_pipe *rt_pipe_ring(cl_mem pipe) { return (skein_pipe *)pipe->data; }

/* The ring's yield (builtins/pipes.h). */
static void pipe_yield(void) { sched_yield(); }

/* Positions run modulo max_packets times the largest power of two that
 * keeps the product within SKEIN_PIPE_LIMIT (at least 2^8 laps, since
 * max_packets < 2^32), so that a reservation id can hold one. */
static uint64_t ring_limit(uint64_t max_packets) {
  uint64_t laps = SKEIN_PIPE_LIMIT / max_packets, pow2 = 1;
  while (pow2 * 2 <= laps)
    pow2 *= 2;
  return max_packets * pow2;
}

/* Bytes of the ring: the header, the sequence numbers and the packets,
 * each part RT_MEM_ALIGN aligned; 0 where that overflows. */
static size_t ring_bytes(uint64_t packet_size, uint64_t max_packets,
                         size_t *seq_at, size_t *packets_at) {
  size_t a = RT_MEM_ALIGN;
  size_t head = (sizeof(skein_pipe) + a - 1) / a * a;
  if (max_packets > (SIZE_MAX / 2 - head) / (8 + packet_size))
    return 0;
  size_t seq = (max_packets * 8 + a - 1) / a * a;
  size_t packets = (max_packets * packet_size + a - 1) / a * a;
  *seq_at = head;
  *packets_at = head + seq;
  return head + seq + packets;
}

cl_mem rt_pipe_create(cl_context context, cl_mem_flags flags,
                      cl_uint packet_size, cl_uint max_packets, cl_int *err) {
  size_t seq_at, packets_at;
  size_t bytes = ring_bytes(packet_size, max_packets, &seq_at, &packets_at);
  if (bytes == 0 || bytes > rt_device()->max_mem_alloc_size) {
    *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return NULL;
  }
  cl_mem m = calloc(1, sizeof *m);
  char *data = m ? aligned_alloc(RT_MEM_ALIGN, bytes) : NULL;
  if (!data) {
    free(m);
    *err = m ? CL_MEM_OBJECT_ALLOCATION_FAILURE : CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  skein_pipe *ring = (skein_pipe *)data;
  memset(ring, 0, sizeof *ring);
  ring->limit = ring_limit(max_packets);
  ring->packet_size = packet_size;
  ring->max_packets = max_packets;
  ring->seq = (uint64_t *)(data + seq_at);
  ring->packets = data + packets_at;
  ring->yield = pipe_yield;
  /* Slot i is free for the writer of position i. */
  for (uint64_t i = 0; i < max_packets; i++)
    ring->seq[i] = 2 * i;
  rt_object_init(&m->obj, RT_MEM);
  m->context = context;
  rt_retain(context);
  m->type = CL_MEM_OBJECT_PIPE;
  m->flags = flags;
  m->size = bytes;
  m->data = data;
  m->owns_data = true;
  pthread_mutex_init(&m->lock, NULL);
  *err = CL_SUCCESS;
  return m;
}
