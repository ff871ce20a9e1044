/* This file contains the SVM allocations and their registry: one array of
 * every live clSVMAlloc and USM allocation, of every context, sorted by
 * address, so that the allocation holding any pointer is a binary search
 * away. */
#include "svm.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The registry. Allocations never overlap, so sorted by base they are
 * sorted by end too. The lock guards all three; it is a leaf lock: no
 * other lock is taken while it is held, and the context is retained and
 * released outside it. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static rt_svm_info *registry;
static size_t registry_len, registry_cap;

/* Index of the first entry whose base is above p (0..registry_len);
 * called with the lock held. */
static size_t upper_bound(const char *p) {
  size_t lo = 0, hi = registry_len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (registry[mid].base <= p)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Inserts info at its place; false when the array cannot grow. */
static bool registry_insert(const rt_svm_info *info) {
  if (registry_len == registry_cap) {
    size_t cap = registry_cap ? 2 * registry_cap : 64;
    rt_svm_info *grown = realloc(registry, cap * sizeof *grown);
    if (!grown)
      return false;
    registry = grown;
    registry_cap = cap;
  }
  size_t at = upper_bound(info->base);
  memmove(&registry[at + 1], &registry[at],
          (registry_len - at) * sizeof *registry);
  registry[at] = *info;
  registry_len++;
  return true;
}

void *rt_alloc_register(const rt_svm_info *desc, size_t align) {
  /* aligned_alloc wants a size that is a multiple of the alignment. */
  size_t size = desc->size;
  if (size > SIZE_MAX - (align - 1))
    return NULL;
  size_t rounded = (size + align - 1) / align * align;
  char *p = aligned_alloc(align, rounded);
  if (!p)
    return NULL;
  rt_svm_info info = *desc;
  info.base = p;
  pthread_mutex_lock(&registry_lock);
  bool ok = registry_insert(&info);
  pthread_mutex_unlock(&registry_lock);
  if (!ok) {
    free(p);
    return NULL;
  }
  /* The context stays valid while it has allocations: clSVMFree and
   * clMemFreeINTEL name it and kernels of it may use them. */
  rt_retain(info.context);
  return p;
}

void *rt_svm_alloc(cl_context ctx, cl_svm_mem_flags flags, size_t size,
                   size_t align) {
  rt_svm_info info = {NULL, size, flags, ctx, RT_ALLOC_SVM, NULL};
  return rt_alloc_register(&info, align);
}

bool rt_alloc_unregister(cl_context ctx, void *ptr, bool usm) {
  pthread_mutex_lock(&registry_lock);
  size_t at = upper_bound(ptr);
  bool found = at > 0 && registry[at - 1].base == ptr &&
               registry[at - 1].context == ctx &&
               (registry[at - 1].kind != RT_ALLOC_SVM) == usm;
  if (found) {
    at--;
    memmove(&registry[at], &registry[at + 1],
            (registry_len - at - 1) * sizeof *registry);
    registry_len--;
  }
  pthread_mutex_unlock(&registry_lock);
  if (!found)
    return false;
  free(ptr);
  clReleaseContext(ctx);
  return true;
}

bool rt_svm_free(cl_context ctx, void *ptr) {
  return rt_alloc_unregister(ctx, ptr, false);
}

bool rt_svm_find(const void *ptr, rt_svm_info *info) {
  const char *p = ptr;
  pthread_mutex_lock(&registry_lock);
  size_t at = upper_bound(p);
  bool found = at > 0 && p < registry[at - 1].base + registry[at - 1].size;
  if (found)
    *info = registry[at - 1];
  pthread_mutex_unlock(&registry_lock);
  return found;
}
