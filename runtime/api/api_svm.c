/* This file contains the shared virtual memory entry points: clSVMAlloc
 * and clSVMFree, and the SVM commands (free, memcpy, fill, map, unmap,
 * migrate). Host and device share one coherent address space, so map,
 * unmap and migrate only order, and memcpy and fill touch the memory
 * itself; the allocations and their registry live in core/svm.c. */
#include "../core/event.h"
#include "../core/platform.h"
#include "../core/queue.h"
#include "../core/svm.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *CL_API_CALL clSVMAlloc(cl_context context, cl_svm_mem_flags flags,
                             size_t size, cl_uint alignment) {
  /* clSVMAlloc returns NULL (it has no error code) if context is not a
   * valid context; */
  if (!rt_is(context, RT_CONTEXT)) {
    rt_debug("%s: invalid context -> NULL\n", __func__);
    return NULL;
  }
  /* if flags does not contain a valid combination of values (read/write
   * flags are mutually exclusive; CL_MEM_SVM_ATOMICS needs
   * CL_MEM_SVM_FINE_GRAIN_BUFFER). The device supports fine-grain
   * buffers and atomics, so both are valid. */
  cl_svm_mem_flags access =
      flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY);
  if ((flags & ~(cl_svm_mem_flags)RT_SVM_FLAGS) || (access & (access - 1)) ||
      ((flags & CL_MEM_SVM_ATOMICS) &&
       !(flags & CL_MEM_SVM_FINE_GRAIN_BUFFER))) {
    rt_debug("%s: invalid flags 0x%llx -> NULL\n", __func__,
             (unsigned long long)flags);
    return NULL;
  }
  /* if size is 0 or greater than CL_DEVICE_MAX_MEM_ALLOC_SIZE; */
  if (size == 0 || size > rt_device()->max_mem_alloc_size) {
    rt_debug("%s: size %zu -> NULL\n", __func__, size);
    return NULL;
  }
  /* if alignment is not a power of two or the implementation cannot
   * support it (0 is the default: the largest data type, long16). */
  if ((alignment & (alignment - 1)) || alignment > RT_SVM_MAX_ALIGN) {
    rt_debug("%s: alignment %u -> NULL\n", __func__, alignment);
    return NULL;
  }
  size_t align = alignment > RT_SVM_DEFAULT_ALIGN ? alignment
                                                  : RT_SVM_DEFAULT_ALIGN;
  void *p = rt_svm_alloc(context, flags, size, align);
  if (!p)
    rt_debug("%s: out of memory -> NULL\n", __func__);
  return p;
}

void CL_API_CALL clSVMFree(cl_context context, void *svm_pointer) {
  /* If a NULL pointer is passed in svm_pointer, no action occurs. A
   * pointer clSVMAlloc did not return for context (freed already,
   * another context's, inside an allocation) is undefined behaviour:
   * Skein leaves the memory alone. */
  if (!rt_is(context, RT_CONTEXT) || !svm_pointer)
    return;
  if (!rt_svm_free(context, svm_pointer))
    rt_debug("%s: %p is no SVM allocation of this context: ignored\n",
             __func__, svm_pointer);
}

/* The payload of an SVM command. */
typedef struct svm_cmd {
  cl_command_queue queue;            /* free: the queue for the callback */
  void(CL_CALLBACK *free_fn)(cl_command_queue, cl_uint, void *[], void *);
  void *user_data;
  cl_uint num_ptrs;                  /* free: the pointers, copied */
  void **ptrs;
  char *dst;                         /* memcpy, fill */
  const char *src;                   /* memcpy */
  size_t size;
  size_t pattern_size;               /* fill */
  unsigned char pattern[128];
} svm_cmd;

static cl_int run_free(cl_event ev) {
  svm_cmd *c = ev->payload;
  /* The callback frees the pointers if there is one; otherwise Skein
   * does, as clSVMFree would. */
  if (c->free_fn)
    c->free_fn(c->queue, c->num_ptrs, c->ptrs, c->user_data);
  else
    for (cl_uint i = 0; i < c->num_ptrs; i++)
      if (c->ptrs[i])
        rt_svm_free(c->queue->context, c->ptrs[i]);
  return CL_SUCCESS;
}

static cl_int run_memcpy(cl_event ev) {
  svm_cmd *c = ev->payload;
  memcpy(c->dst, c->src, c->size);
  return CL_SUCCESS;
}

static cl_int run_fill(cl_event ev) {
  svm_cmd *c = ev->payload;
  for (size_t off = 0; off < c->size; off += c->pattern_size)
    memcpy(c->dst + off, c->pattern, c->pattern_size);
  return CL_SUCCESS;
}

static void free_cmd(cl_event ev) {
  svm_cmd *c = ev->payload;
  if (!c)
    return;
  rt_payload_free(c);
  ev->payload = NULL;
}

/* Creates and submits command type on q running run (NULL: the command
 * only orders) with payload c, which it takes over. */
static cl_int submit(cl_command_queue q, cl_command_type type,
                     rt_command_run_fn run, svm_cmd *c, bool blocking,
                     cl_uint num_events, const cl_event *wait_list,
                     cl_event *event) {
  return rt_command_enqueue(q, type, run, c, NULL, free_cmd, blocking,
                            num_events, wait_list, event);
}

/* The check of a range an SVM command reads or writes. Any host memory
 * is SVM (fine-grain system SVM), so a range outside every clSVMAlloc
 * allocation is valid. A range that starts in one must lie in an
 * allocation of q's context and end inside it: the specification leaves
 * other contexts' pointers undefined, and Skein answers
 * CL_INVALID_VALUE rather than touch memory past the allocation's end. */
static bool range_ok(cl_command_queue q, const void *ptr, size_t size) {
  rt_svm_info info;
  if (!rt_svm_find(ptr, &info))
    return true;
  return info.context == q->context &&
         size <= (size_t)(info.base + info.size - (const char *)ptr);
}

bool rt_svm_range_ok(cl_command_queue q, const void *ptr, size_t size) {
  return range_ok(q, ptr, size);
}

cl_int CL_API_CALL clEnqueueSVMFree(
    cl_command_queue command_queue, cl_uint num_svm_pointers,
    void *svm_pointers[],
    void(CL_CALLBACK *pfn_free_func)(cl_command_queue queue,
                                     cl_uint num_svm_pointers,
                                     void *svm_pointers[], void *user_data),
    void *user_data, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid host
   * command-queue. */
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_VALUE if num_svm_pointers is 0 and svm_pointers is
   * non-NULL, or if svm_pointers is NULL and num_svm_pointers is not 0. */
  RT_RETURN_IF((num_svm_pointers == 0) != (svm_pointers == NULL),
               CL_INVALID_VALUE);
  /* If pfn_free_func is NULL, all pointers in svm_pointers must have been
   * allocated with clSVMAlloc in the queue's context: anything else would
   * free memory Skein does not own, so it is CL_INVALID_VALUE here (the
   * specification leaves it undefined). */
  for (cl_uint i = 0; !pfn_free_func && i < num_svm_pointers; i++) {
    rt_svm_info info;
    RT_RETURN_IF(svm_pointers[i] &&
                     (!rt_svm_find(svm_pointers[i], &info) ||
                      info.base != svm_pointers[i] ||
                      info.kind != RT_ALLOC_SVM ||
                      info.context != command_queue->context),
                 CL_INVALID_VALUE);
  }
  /* The memory associated with svm_pointers can be reused or freed after
   * the function returns: the command keeps a copy. */
  svm_cmd *c = rt_payload_alloc(sizeof *c +
                                num_svm_pointers * sizeof(void *));
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  c->queue = command_queue;
  c->free_fn = pfn_free_func;
  c->user_data = user_data;
  c->num_ptrs = num_svm_pointers;
  c->ptrs = (void **)(c + 1);
  if (num_svm_pointers)
    memcpy(c->ptrs, svm_pointers, num_svm_pointers * sizeof(void *));
  return submit(command_queue, CL_COMMAND_SVM_FREE, run_free, c, false,
                num_events_in_wait_list, event_wait_list, event);
}

cl_int rt_svm_enqueue_memcpy(cl_command_queue command_queue,
                             cl_command_type type, cl_bool blocking_copy,
                             void *dst_ptr, const void *src_ptr, size_t size,
                             cl_uint num_events_in_wait_list,
                             const cl_event *event_wait_list,
                             cl_event *event) {
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_VALUE if dst_ptr or src_ptr is NULL. */
  RT_RETURN_IF(!dst_ptr || !src_ptr, CL_INVALID_VALUE);
  /* CL_MEM_COPY_OVERLAP if the values specified for dst_ptr, src_ptr and
   * size result in an overlapping copy. */
  const char *d = dst_ptr, *s = src_ptr;
  RT_RETURN_IF(size && d < s + size && s < d + size, CL_MEM_COPY_OVERLAP);
  RT_RETURN_IF(!range_ok(command_queue, dst_ptr, size) ||
                   !range_ok(command_queue, src_ptr, size),
               CL_INVALID_VALUE);
  svm_cmd *c = rt_payload_alloc(sizeof *c);
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  c->dst = dst_ptr;
  c->src = src_ptr;
  c->size = size;
  return submit(command_queue, type, run_memcpy, c, blocking_copy,
                num_events_in_wait_list, event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueSVMMemcpy(cl_command_queue command_queue,
                                      cl_bool blocking_copy, void *dst_ptr,
                                      const void *src_ptr, size_t size,
                                      cl_uint num_events_in_wait_list,
                                      const cl_event *event_wait_list,
                                      cl_event *event) {
  return rt_svm_enqueue_memcpy(command_queue, CL_COMMAND_SVM_MEMCPY,
                               blocking_copy, dst_ptr, src_ptr, size,
                               num_events_in_wait_list, event_wait_list,
                               event);
}

cl_int rt_svm_enqueue_fill(cl_command_queue command_queue,
                           cl_command_type type, void *svm_ptr,
                           const void *pattern, size_t pattern_size,
                           size_t size, cl_uint num_events_in_wait_list,
                           const cl_event *event_wait_list,
                           cl_event *event) {
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_VALUE if svm_ptr is NULL. */
  RT_RETURN_IF(!svm_ptr, CL_INVALID_VALUE);
  /* CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if
   * pattern_size is not one of {1, 2, 4, 8, 16, 32, 64, 128}. */
  RT_RETURN_IF(!pattern || pattern_size == 0 || pattern_size > 128 ||
                   (pattern_size & (pattern_size - 1)),
               CL_INVALID_VALUE);
  /* CL_INVALID_VALUE if svm_ptr is not aligned to pattern_size bytes. */
  RT_RETURN_IF((uintptr_t)svm_ptr % pattern_size, CL_INVALID_VALUE);
  /* CL_INVALID_VALUE if size is not a multiple of pattern_size. */
  RT_RETURN_IF(size % pattern_size, CL_INVALID_VALUE);
  RT_RETURN_IF(!range_ok(command_queue, svm_ptr, size), CL_INVALID_VALUE);
  svm_cmd *c = rt_payload_alloc(sizeof *c);
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  c->dst = svm_ptr;
  c->size = size;
  c->pattern_size = pattern_size;
  memcpy(c->pattern, pattern, pattern_size);
  return submit(command_queue, type, run_fill, c, false,
                num_events_in_wait_list, event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueSVMMemFill(cl_command_queue command_queue,
                                       void *svm_ptr, const void *pattern,
                                       size_t pattern_size, size_t size,
                                       cl_uint num_events_in_wait_list,
                                       const cl_event *event_wait_list,
                                       cl_event *event) {
  return rt_svm_enqueue_fill(command_queue, CL_COMMAND_SVM_MEMFILL, svm_ptr,
                             pattern, pattern_size, size,
                             num_events_in_wait_list, event_wait_list,
                             event);
}

cl_int CL_API_CALL clEnqueueSVMMap(cl_command_queue command_queue,
                                   cl_bool blocking_map, cl_map_flags flags,
                                   void *svm_ptr, size_t size,
                                   cl_uint num_events_in_wait_list,
                                   const cl_event *event_wait_list,
                                   cl_event *event) {
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_VALUE if svm_ptr is NULL; if size is 0 or if values
   * specified in map_flags are not valid. */
  const cl_map_flags known =
      CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
  RT_RETURN_IF(!svm_ptr || size == 0 || (flags & ~known) ||
                   ((flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
                    (flags & (CL_MAP_READ | CL_MAP_WRITE))),
               CL_INVALID_VALUE);
  RT_RETURN_IF(!range_ok(command_queue, svm_ptr, size), CL_INVALID_VALUE);
  /* The region is host memory already: the command only orders. */
  svm_cmd *c = rt_payload_alloc(sizeof *c);
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  return submit(command_queue, CL_COMMAND_SVM_MAP, NULL, c, blocking_map,
                num_events_in_wait_list, event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueSVMUnmap(cl_command_queue command_queue,
                                     void *svm_ptr,
                                     cl_uint num_events_in_wait_list,
                                     const cl_event *event_wait_list,
                                     cl_event *event) {
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_VALUE if svm_ptr is NULL. */
  RT_RETURN_IF(!svm_ptr, CL_INVALID_VALUE);
  RT_RETURN_IF(!range_ok(command_queue, svm_ptr, 1), CL_INVALID_VALUE);
  svm_cmd *c = rt_payload_alloc(sizeof *c);
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  return submit(command_queue, CL_COMMAND_SVM_UNMAP, NULL, c, false,
                num_events_in_wait_list, event_wait_list, event);
}

cl_int CL_API_CALL clEnqueueSVMMigrateMem(
    cl_command_queue command_queue, cl_uint num_svm_pointers,
    const void **svm_pointers, const size_t *sizes,
    cl_mem_migration_flags flags, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  RT_RETURN_IF(!rt_is(command_queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_VALUE if num_svm_pointers is zero or svm_pointers is
   * NULL, or if flags is not 0 or any of the migration flags. */
  RT_RETURN_IF(num_svm_pointers == 0 || !svm_pointers, CL_INVALID_VALUE);
  RT_RETURN_IF(flags & ~(cl_mem_migration_flags)(
                           CL_MIGRATE_MEM_OBJECT_HOST |
                           CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED),
               CL_INVALID_VALUE);
  /* Each pointer must be within an allocation made by clSVMAlloc (in the
   * queue's context); CL_INVALID_VALUE if sizes[i] is non-zero and the
   * range [svm_pointers[i], svm_pointers[i] + sizes[i]) is not contained
   * within an existing clSVMAlloc allocation. */
  for (cl_uint i = 0; i < num_svm_pointers; i++) {
    rt_svm_info info;
    RT_RETURN_IF(!svm_pointers[i] || !rt_svm_find(svm_pointers[i], &info) ||
                     info.context != command_queue->context,
                 CL_INVALID_VALUE);
    RT_RETURN_IF(sizes && !range_ok(command_queue, svm_pointers[i],
                                    sizes[i]),
                 CL_INVALID_VALUE);
  }
  /* One memory for host and device: the command only orders. */
  svm_cmd *c = rt_payload_alloc(sizeof *c);
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  return submit(command_queue, CL_COMMAND_SVM_MIGRATE_MEM, NULL, c, false,
                num_events_in_wait_list, event_wait_list, event);
}
