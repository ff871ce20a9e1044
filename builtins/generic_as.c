/* This file contains the builtins of the generic address space that must
 * find out at run time where a pointer points (OpenCL C 3.0 section
 * 6.15.3): to_global, to_local, to_private and get_fence. They are
 * __skein_ctx_ functions (see sync.c): the scheduler's address_kind hook
 * classifies the pointer against the calling work-item's group. */
#include "abi.h"

/* The -ffake-address-space-map numbers of the in-process front end:
 * Clang declares the results and arguments in these address spaces, and
 * the replacement call must have the same types. */
#define AS_GLOBAL __attribute__((address_space(1)))
#define AS_LOCAL __attribute__((address_space(3)))
#define AS_GENERIC __attribute__((address_space(4)))

/* cl_mem_fence_flags (OpenCL C's CLK_*_MEM_FENCE). */
#define CLK_LOCAL_MEM_FENCE 1u
#define CLK_GLOBAL_MEM_FENCE 2u

static unsigned kind_of(skein_group *g, const AS_GENERIC void *p) {
  /* All address spaces are one flat memory on the host. */
  return g->launch->hooks->address_kind(g, (const void *)(uintptr_t)p);
}

/* to_global(p): p if it points into global memory, else NULL. Clang calls
 * the unmangled __to_global. */
AS_GLOBAL void *__skein_ctx___to_global(skein_group *g,
                                        const AS_GENERIC void *p) {
  return kind_of(g, p) == SKEIN_ADDR_GLOBAL ? (AS_GLOBAL void *)p : 0;
}

/* to_local(p): p if it points into the group's local memory, else NULL. */
AS_LOCAL void *__skein_ctx___to_local(skein_group *g,
                                      const AS_GENERIC void *p) {
  return kind_of(g, p) == SKEIN_ADDR_LOCAL ? (AS_LOCAL void *)p : 0;
}

/* to_private(p): p if it points into the work-item's private memory,
 * else NULL. */
void *__skein_ctx___to_private(skein_group *g, const AS_GENERIC void *p) {
  return kind_of(g, p) == SKEIN_ADDR_PRIVATE ? (void *)p : 0;
}

/* get_fence(p): the fence that orders accesses through p: global or local
 * memory's; none for private memory, which no other work-item sees. */
static uint32_t fence_of(skein_group *g, const AS_GENERIC void *p) {
  switch (kind_of(g, p)) {
  case SKEIN_ADDR_LOCAL:
    return CLK_LOCAL_MEM_FENCE;
  case SKEIN_ADDR_PRIVATE:
    return 0;
  default:
    return CLK_GLOBAL_MEM_FENCE;
  }
}

/* get_fence(generic void *) and get_fence(const generic void *). */
uint32_t __skein_ctx__Z9get_fencePU9CLgenericv(skein_group *g,
                                               AS_GENERIC void *p) {
  return fence_of(g, p);
}

uint32_t __skein_ctx__Z9get_fencePU9CLgenericKv(skein_group *g,
                                                const AS_GENERIC void *p) {
  return fence_of(g, p);
}
