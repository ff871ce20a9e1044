/* This file contains the command payload cache: blocks of a few size
 * classes kept on free lists after use, so that enqueueing a command
 * (its argument snapshot, its transfer description) calls malloc only
 * until the cache is warm. Larger blocks go straight to the heap.
 *
 * Lock rules: cache_lock guards the free lists; nothing else is locked
 * while it is held. */
#include "event.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Every block starts with a header of ALIGN bytes (keeping the payload
 * 128-byte aligned, as __local argument offsets and vector loads of
 * argument bytes expect). */
#define ALIGN 128
enum { NUM_CLASSES = 3, CLASS_MAX_FREE = 64, HEAP_CLASS = NUM_CLASSES };
static const size_t class_size[NUM_CLASSES] = {256, 1024, 4096};

typedef struct block_header {
  unsigned cls;                  /* index into class_size, or HEAP_CLASS */
  struct block_header *next;     /* free list link */
} block_header;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static block_header *free_list[NUM_CLASSES];
static unsigned num_free[NUM_CLASSES];

/* The smallest class that holds size bytes, or HEAP_CLASS. */
static unsigned class_of(size_t size) {
  for (unsigned c = 0; c < NUM_CLASSES; c++)
    if (size <= class_size[c])
      return c;
  return HEAP_CLASS;
}

void *rt_payload_alloc(size_t size) {
  unsigned cls = class_of(size);
  block_header *h = NULL;
  if (cls != HEAP_CLASS) {
    pthread_mutex_lock(&cache_lock);
    h = free_list[cls];
    if (h) {
      free_list[cls] = h->next;
      num_free[cls]--;
    }
    pthread_mutex_unlock(&cache_lock);
  }
  if (!h) {
    size_t bytes = cls == HEAP_CLASS ? size : class_size[cls];
    if (bytes > SIZE_MAX - 2 * ALIGN)
      return NULL;
    /* aligned_alloc wants a multiple of the alignment. */
    h = aligned_alloc(ALIGN, (ALIGN + bytes + ALIGN - 1) / ALIGN * ALIGN);
    if (!h)
      return NULL;
    h->cls = cls;
  }
  char *p = (char *)h + ALIGN;
  memset(p, 0, size);
  return p;
}

void rt_payload_free(void *p) {
  if (!p)
    return;
  block_header *h = (block_header *)((char *)p - ALIGN);
  unsigned cls = h->cls;
  if (cls != HEAP_CLASS) {
    pthread_mutex_lock(&cache_lock);
    bool keep = num_free[cls] < CLASS_MAX_FREE;
    if (keep) {
      h->next = free_list[cls];
      free_list[cls] = h;
      num_free[cls]++;
    }
    pthread_mutex_unlock(&cache_lock);
    if (keep)
      return;
  }
  free(h);
}
