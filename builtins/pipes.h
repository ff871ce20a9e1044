/* This file defines a pipe as kernels see it: the ring of packets that
 * the pipe built-ins (pipes.c) read and write and that the runtime
 * (runtime/core/pipe.c) lays out when clCreatePipe makes one. A pipe
 * kernel argument's slot holds the address of its skein_pipe. Plain C,
 * shared by both sides. */
#ifndef SKEIN_BUILTINS_PIPES_H
#define SKEIN_BUILTINS_PIPES_H

#include <stdint.h>

/* A bounded multi-producer, multi-consumer ring in the manner of
 * Vyukov's queue: every slot has a sequence number that says who may
 * use it next, so that nothing ever waits.
 *
 * Positions count packets written (write_pos) and read (read_pos)
 * modulo limit, a multiple of max_packets; position q lives in slot
 * q % max_packets. seq[slot] is, modulo 2 * limit:
 *   2q                    free for the writer of position q;
 *   2q + 1                position q was written and committed: readable;
 *   2(q + max_packets)    position q was read and committed: free for
 *                         the writer of q + max_packets.
 * (Doubling keeps "readable at q" apart from "free for q + 1", which a
 * pipe of one packet would otherwise confuse: a write would overwrite
 * the unread packet.)
 * A reservation of n packets at position q checks that all n slots are
 * in the state it needs, then claims them by moving write_pos (or
 * read_pos) from q to q + n with a compare-and-swap; it fails, without
 * waiting, where a slot is not ready (the pipe is full or empty there,
 * or another work-item's reservation has not been committed yet). A
 * commit stores each slot's next state with release order; the checks
 * load with acquire order, so the packet bytes a writer commits are
 * visible to the reader that claims them, and a reader's copy is done
 * before the next writer of the slot may claim it. Packets are read in
 * the order their positions were reserved, each exactly once.
 *
 * limit is max_packets times the largest power of two that keeps it at
 * most SKEIN_PIPE_LIMIT, so positions fit the 40 bits a reservation id
 * keeps for them (the id packs the position and the count: pipes.c). */
#define SKEIN_PIPE_LIMIT (1ull << 40)

typedef struct skein_pipe {
  uint64_t write_pos;            /* next position to reserve for writing */
  char pad0[56];                 /* readers and writers: own cache lines */
  uint64_t read_pos;             /* next position to reserve for reading */
  char pad1[56];
  uint64_t limit;                /* positions are modulo this */
  uint32_t packet_size;          /* bytes per packet */
  uint32_t max_packets;          /* capacity: slots in the ring */
  uint64_t *seq;                 /* max_packets sequence numbers */
  char *packets;                 /* max_packets * packet_size bytes */
  /* Gives the calling thread's core to another runnable thread (the
   * runtime's sched_yield); the built-ins call it where a reservation
   * fails because the pipe is full or empty. A kernel that retries until
   * it succeeds (the usual producer and consumer) spins there, and on a
   * machine with more runnable threads than cores its spinning would
   * keep the other kernel, the one that could make room, from running
   * until its time slice ends: on the loaded 2-core test machine a
   * producer and consumer passed a packet every 2 ms without it. */
  void (*yield)(void);
} skein_pipe;

#endif
