/* This file contains the pipe built-in functions (OpenCL C 3.0 section
 * 6.15.16, __opencl_c_pipes) in the form Clang lowers them to: the
 * unmangled __read_pipe_2, __write_pipe_4, __reserve_read_pipe,
 * __commit_write_pipe, __get_pipe_num_packets_ro ... with the packet
 * size and alignment as the last two arguments, and the work-group and
 * sub-group reservations as __skein_ctx_ functions (see sync.c), since
 * they need the calling work-item's group. The ring itself is described
 * in pipes.h.
 *
 * Reads and writes never wait: a reservation that cannot be had now
 * fails (OpenCL's pipe functions are non-blocking), so a work-item never
 * spins inside the driver and every execution mode can run the plain
 * forms. The work-group forms are work-group collectives (fiber mode:
 * compiler/callgraph.c counts them, region mode declines them); the
 * sub-group forms are fiber-mode sub-group operations. */
#include "collective_ops.h"
#include "pipes.h"

/* Clang passes a pipe as a global pointer and the packet as a generic
 * one (the -ffake-address-space-map numbers), so the definitions take
 * them in those address spaces; all of them are one flat memory. */
#define AS_GLOBAL __attribute__((address_space(1)))
#define AS_GENERIC __attribute__((address_space(4)))

typedef AS_GLOBAL skein_pipe *pipe_arg;
typedef AS_GENERIC void *packet_ptr;

/* A reservation id (reserve_id_t, a pointer for Clang) packs the first
 * position (40 bits: positions are below SKEIN_PIPE_LIMIT) and the
 * number of packets (24 bits, at least 1): 0 is never a valid id, nor is
 * all ones, which is CLK_NULL_RESERVE_ID and the id of a failed
 * reservation. Reservations of more packets than the 24 bits hold fail. */
#define ID_COUNT_BITS 24
#define ID_MAX_COUNT ((1u << ID_COUNT_BITS) - 2)
#define ID_INVALID UINT64_MAX

static inline uint64_t id_make(uint64_t pos, uint32_t n) {
  return pos << ID_COUNT_BITS | n;
}
static inline uint64_t id_pos(uint64_t id) { return id >> ID_COUNT_BITS; }
static inline uint32_t id_count(uint64_t id) {
  return (uint32_t)(id & ((1u << ID_COUNT_BITS) - 1));
}
static inline int id_valid(uint64_t id) {
  return id != 0 && id != ID_INVALID;
}

static inline skein_pipe *flat(pipe_arg p) {
  return (skein_pipe *)(uintptr_t)p;
}

/* a + b modulo limit, for a, b below limit. */
static inline uint64_t wrap_add(uint64_t a, uint64_t b, uint64_t limit) {
  uint64_t s = a + b;
  return s >= limit ? s - limit : s;
}

/* a - b modulo limit as a signed distance (|a - b| < limit / 2). */
static inline int64_t wrap_diff(uint64_t a, uint64_t b, uint64_t limit) {
  uint64_t d = a >= b ? a - b : a + (limit - b);
  return d >= limit / 2 ? (int64_t)d - (int64_t)limit : (int64_t)d;
}

/* Called where a reservation fails because the pipe is full or empty:
 * the runtime's yield (pipes.h). Out of line, so that kernels call a
 * defined function, not a pointer (region mode takes no indirect call). */
static __attribute__((noinline, cold)) void yield_thread(skein_pipe *p) {
  if (p->yield)
    p->yield();
}

/* Claims n consecutive positions for writing (reading = 0) or reading
 * (reading = 1): the id, or ID_INVALID where the pipe has no n free
 * (readable) slots there now. Lock-free: it retries only after another
 * work-item's reservation moved the position on. */
static uint64_t reserve(skein_pipe *p, uint32_t n, int reading) {
  uint64_t cap = p->max_packets, limit = p->limit;
  if (n == 0 || n > cap || n > ID_MAX_COUNT)
    return ID_INVALID;
  uint64_t *posp = reading ? &p->read_pos : &p->write_pos;
  uint64_t pos = __atomic_load_n(posp, __ATOMIC_RELAXED);
  for (;;) {
    uint64_t slot = pos % cap;
    int stale = 0;
    for (uint32_t k = 0; k < n; k++) {
      /* A writer of position q needs seq 2q, a reader 2q + 1. */
      uint64_t want = 2 * wrap_add(pos, k, limit) + (uint64_t)reading;
      uint64_t s = __atomic_load_n(&p->seq[slot], __ATOMIC_ACQUIRE);
      int64_t d = wrap_diff(s, want, 2 * limit);
      if (d < 0) {
        yield_thread(p);    /* full (writing) or empty (reading) here */
        return ID_INVALID;
      }
      if (d > 0) {
        stale = 1;          /* another reservation took pos already */
        break;
      }
      if (++slot == cap)
        slot = 0;
    }
    if (stale) {
      pos = __atomic_load_n(posp, __ATOMIC_RELAXED);
      continue;
    }
    if (__atomic_compare_exchange_n(posp, &pos, wrap_add(pos, n, limit), 1,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return id_make(pos, n);
  }
}

/* Hands the reservation's slots on: to the readers after a write, to the
 * next lap's writers after a read. An invalid id does nothing. */
static void commit(skein_pipe *p, uint64_t id, int reading) {
  if (!id_valid(id))
    return;
  uint64_t cap = p->max_packets, limit = p->limit, pos = id_pos(id);
  uint32_t n = id_count(id);
  uint64_t slot = pos % cap;
  for (uint32_t k = 0; k < n; k++) {
    uint64_t q = wrap_add(pos, k, limit);
    uint64_t next = reading ? 2 * wrap_add(q, cap, limit) : 2 * q + 1;
    __atomic_store_n(&p->seq[slot], next, __ATOMIC_RELEASE);
    if (++slot == cap)
      slot = 0;
  }
}

/* The address of packet index of reservation id, or NULL where the id is
 * invalid or index is outside it. */
static inline char *packet_at(skein_pipe *p, uint64_t id, uint32_t index) {
  if (!id_valid(id) || index >= id_count(id))
    return 0;
  uint64_t slot = (id_pos(id) % p->max_packets + index) % p->max_packets;
  return p->packets + slot * p->packet_size;
}

/* The reads and writes are inlined into the kernel, where the packet
 * size is a constant of the call: the copy becomes plain loads and stores
 * (no memcpy call, which ThreadSanitizer, seeing none of the kernel's
 * atomics, took for a race between writer and reader). A kernel whose
 * packet type is larger than the pipe's packets (undefined) fails every
 * read and write instead of copying past the packet. */
#define PIPE_COPY_ENTRY __attribute__((always_inline))

/* read_pipe(p, ptr): 0, or -1 if the pipe is empty. */
PIPE_COPY_ENTRY int __read_pipe_2(pipe_arg pa, packet_ptr ptr, uint32_t size,
                  uint32_t align) {
  (void)align;
  skein_pipe *p = flat(pa);
  if (size > p->packet_size)
    return -1;
  uint64_t id = reserve(p, 1, 1);
  char *at = packet_at(p, id, 0);
  if (!at)
    return -1;
  __builtin_memcpy((void *)(uintptr_t)ptr, at, size);
  commit(p, id, 1);
  return 0;
}

/* write_pipe(p, ptr): 0, or -1 if the pipe is full. */
PIPE_COPY_ENTRY int __write_pipe_2(pipe_arg pa, packet_ptr ptr, uint32_t size,
                   uint32_t align) {
  (void)align;
  skein_pipe *p = flat(pa);
  if (size > p->packet_size)
    return -1;
  uint64_t id = reserve(p, 1, 0);
  char *at = packet_at(p, id, 0);
  if (!at)
    return -1;
  __builtin_memcpy(at, (const void *)(uintptr_t)ptr, size);
  commit(p, id, 0);
  return 0;
}

/* read_pipe(p, reserve_id, index, ptr): 0, or -1 for an invalid id or an
 * index outside the reservation (nothing is read). */
PIPE_COPY_ENTRY int __read_pipe_4(pipe_arg pa, void *rid, uint32_t index, packet_ptr ptr,
                  uint32_t size, uint32_t align) {
  (void)align;
  skein_pipe *p = flat(pa);
  char *at = packet_at(p, (uint64_t)(uintptr_t)rid, index);
  if (!at || size > p->packet_size)
    return -1;
  __builtin_memcpy((void *)(uintptr_t)ptr, at, size);
  return 0;
}

/* write_pipe(p, reserve_id, index, ptr): as __read_pipe_4. */
PIPE_COPY_ENTRY int __write_pipe_4(pipe_arg pa, void *rid, uint32_t index, packet_ptr ptr,
                   uint32_t size, uint32_t align) {
  (void)align;
  skein_pipe *p = flat(pa);
  char *at = packet_at(p, (uint64_t)(uintptr_t)rid, index);
  if (!at || size > p->packet_size)
    return -1;
  __builtin_memcpy(at, (const void *)(uintptr_t)ptr, size);
  return 0;
}

void *__reserve_read_pipe(pipe_arg pa, uint32_t n, uint32_t size,
                          uint32_t align) {
  (void)size;
  (void)align;
  return (void *)(uintptr_t)reserve(flat(pa), n, 1);
}

void *__reserve_write_pipe(pipe_arg pa, uint32_t n, uint32_t size,
                           uint32_t align) {
  (void)size;
  (void)align;
  return (void *)(uintptr_t)reserve(flat(pa), n, 0);
}

void __commit_read_pipe(pipe_arg pa, void *rid, uint32_t size,
                        uint32_t align) {
  (void)size;
  (void)align;
  commit(flat(pa), (uint64_t)(uintptr_t)rid, 1);
}

void __commit_write_pipe(pipe_arg pa, void *rid, uint32_t size,
                         uint32_t align) {
  (void)size;
  (void)align;
  commit(flat(pa), (uint64_t)(uintptr_t)rid, 0);
}

/* is_valid_reserve_id(reserve_id_t). */
_Bool _Z19is_valid_reserve_id13ocl_reserveid(void *rid) {
  return id_valid((uint64_t)(uintptr_t)rid);
}

/* get_pipe_num_packets: the packets written (or being written) and not
 * yet reserved for reading; stale as soon as it is read, as the spec
 * says. read_pos is loaded first, so the difference is never negative. */
static uint32_t num_packets(pipe_arg pa) {
  skein_pipe *p = flat(pa);
  uint64_t r = __atomic_load_n(&p->read_pos, __ATOMIC_ACQUIRE);
  uint64_t w = __atomic_load_n(&p->write_pos, __ATOMIC_ACQUIRE);
  int64_t d = wrap_diff(w, r, p->limit);
  if (d < 0)
    return 0;
  return d > (int64_t)p->max_packets ? p->max_packets : (uint32_t)d;
}

uint32_t __get_pipe_num_packets_ro(pipe_arg pa, uint32_t size,
                                   uint32_t align) {
  (void)size;
  (void)align;
  return num_packets(pa);
}

uint32_t __get_pipe_num_packets_wo(pipe_arg pa, uint32_t size,
                                   uint32_t align) {
  (void)size;
  (void)align;
  return num_packets(pa);
}

uint32_t __get_pipe_max_packets_ro(pipe_arg pa, uint32_t size,
                                   uint32_t align) {
  (void)size;
  (void)align;
  return flat(pa)->max_packets;
}

uint32_t __get_pipe_max_packets_wo(pipe_arg pa, uint32_t size,
                                   uint32_t align) {
  (void)size;
  (void)align;
  return flat(pa)->max_packets;
}

/* ---- Work-group reservations: fiber-mode collectives ---------------- */

static inline void wait_group(skein_group *g) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  g->launch->hooks->barrier(g);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* One reservation for the whole group, made by its highest linear id
 * once every work-item has arrived, handed to all through the group's
 * result slot (as collectives.c does: nobody writes it again before
 * every work-item has passed the next collective's first barrier). */
static inline __attribute__((always_inline)) void *
group_reserve(skein_group *g, pipe_arg pa, uint32_t n, int reading) {
  slot *s = (slot *)g->collective;
  uint64_t count = group_size(g), id = linear_id(g);
  wait_group(g);
  if (id == count - 1)
    s[count].m = reserve(flat(pa), n, reading);
  wait_group(g);
  return (void *)(uintptr_t)s[count].m;
}

/* The group's commit, once every work-item has arrived (so every packet
 * of the reservation has been written or read). */
static inline __attribute__((always_inline)) void
group_commit(skein_group *g, pipe_arg pa, void *rid, int reading) {
  wait_group(g);
  if (linear_id(g) == group_size(g) - 1)
    commit(flat(pa), (uint64_t)(uintptr_t)rid, reading);
}

__attribute__((convergent)) void *
__skein_ctx___work_group_reserve_read_pipe(skein_group *g, pipe_arg pa,
                                           uint32_t n, uint32_t size,
                                           uint32_t align) {
  (void)size;
  (void)align;
  return group_reserve(g, pa, n, 1);
}

__attribute__((convergent)) void *
__skein_ctx___work_group_reserve_write_pipe(skein_group *g, pipe_arg pa,
                                            uint32_t n, uint32_t size,
                                            uint32_t align) {
  (void)size;
  (void)align;
  return group_reserve(g, pa, n, 0);
}

__attribute__((convergent)) void
__skein_ctx___work_group_commit_read_pipe(skein_group *g, pipe_arg pa,
                                          void *rid, uint32_t size,
                                          uint32_t align) {
  (void)size;
  (void)align;
  group_commit(g, pa, rid, 1);
}

__attribute__((convergent)) void
__skein_ctx___work_group_commit_write_pipe(skein_group *g, pipe_arg pa,
                                           void *rid, uint32_t size,
                                           uint32_t align) {
  (void)size;
  (void)align;
  group_commit(g, pa, rid, 0);
}

/* ---- Sub-group reservations: fiber-mode sub-group operations -------- */

/* One member's part (skein_hooks.sub_group_operation): the operation
 * runs once for the active set, on the first member's arguments. */
typedef struct pipe_member {
  skein_pipe *pipe;
  uint64_t id;
  uint32_t n;
} pipe_member;

#define PM(k) ((pipe_member *)mm[k])

static void sg_reserve_read(void *const *mm, unsigned n) {
  uint64_t id = reserve(PM(0)->pipe, PM(0)->n, 1);
  for (unsigned k = 0; k < n; k++)
    PM(k)->id = id;
}

static void sg_reserve_write(void *const *mm, unsigned n) {
  uint64_t id = reserve(PM(0)->pipe, PM(0)->n, 0);
  for (unsigned k = 0; k < n; k++)
    PM(k)->id = id;
}

static void sg_commit_read(void *const *mm, unsigned n) {
  (void)n;
  commit(PM(0)->pipe, PM(0)->id, 1);
}

static void sg_commit_write(void *const *mm, unsigned n) {
  (void)n;
  commit(PM(0)->pipe, PM(0)->id, 0);
}

/* Parks the caller at op until its sub-group is served. Never inlined,
 * so that its return address is the call site in the kernel (the entries
 * below are inlined there); convergent and nomerge, so that LLVM keeps
 * the calls of different branches apart (as subgroups_ops.h's sg_park). */
static __attribute__((noinline, convergent, nomerge)) void
pipe_park(skein_group *g, skein_sub_group_op op, pipe_member *m) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  g->launch->hooks->sub_group_operation(g, op, __builtin_return_address(0),
                                        m);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

#define PIPE_SG_ENTRY __attribute__((always_inline, convergent))

PIPE_SG_ENTRY void *
__skein_ctx___sub_group_reserve_read_pipe(skein_group *g, pipe_arg pa,
                                          uint32_t n, uint32_t size,
                                          uint32_t align) {
  (void)size;
  (void)align;
  pipe_member m = {flat(pa), ID_INVALID, n};
  pipe_park(g, sg_reserve_read, &m);
  return (void *)(uintptr_t)m.id;
}

PIPE_SG_ENTRY void *
__skein_ctx___sub_group_reserve_write_pipe(skein_group *g, pipe_arg pa,
                                           uint32_t n, uint32_t size,
                                           uint32_t align) {
  (void)size;
  (void)align;
  pipe_member m = {flat(pa), ID_INVALID, n};
  pipe_park(g, sg_reserve_write, &m);
  return (void *)(uintptr_t)m.id;
}

PIPE_SG_ENTRY void
__skein_ctx___sub_group_commit_read_pipe(skein_group *g, pipe_arg pa,
                                         void *rid, uint32_t size,
                                         uint32_t align) {
  (void)size;
  (void)align;
  pipe_member m = {flat(pa), (uint64_t)(uintptr_t)rid, 0};
  pipe_park(g, sg_commit_read, &m);
}

PIPE_SG_ENTRY void
__skein_ctx___sub_group_commit_write_pipe(skein_group *g, pipe_arg pa,
                                          void *rid, uint32_t size,
                                          uint32_t align) {
  (void)size;
  (void)align;
  pipe_member m = {flat(pa), (uint64_t)(uintptr_t)rid, 0};
  pipe_park(g, sg_commit_write, &m);
}
