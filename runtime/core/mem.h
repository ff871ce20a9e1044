/* This file declares memory objects (buffers and sub-buffers). Buffers
 * are host memory: USE_HOST_PTR and map/unmap are zero-copy. */
#ifndef SKEIN_RUNTIME_MEM_H
#define SKEIN_RUNTIME_MEM_H

#include "object.h"
#include <pthread.h>

/* One live mapping (clEnqueueMapBuffer/MapImage not yet unmapped). */
typedef struct rt_mapping {
  void *ptr;
  struct rt_mapping *next;
  /* Image maps only (runtime/core/image.c; unset for buffers): whether it is
   * for writing, and its region, which no other write map may overlap. */
  bool write;
  size_t origin[3], region[3];
} rt_mapping;

typedef struct rt_mem_callback {
  void(CL_CALLBACK *fn)(cl_mem, void *);
  void *user_data;
  struct rt_mem_callback *next;
} rt_mem_callback;

struct _cl_mem {
  rt_object obj;
  cl_context context;               /* retained */
  cl_mem_object_type type;          /* CL_MEM_OBJECT_BUFFER or _IMAGE* */
  cl_mem_flags flags;
  size_t size;
  void *host_ptr;                   /* as given to clCreateBuffer */
  char *data;                       /* the storage, RT_MEM_ALIGN aligned
                                       unless USE_HOST_PTR */
  bool owns_data;
  bool uses_svm;                    /* USE_HOST_PTR over a clSVMAlloc
                                       allocation, or a sub-buffer of
                                       such a buffer
                                       (CL_MEM_USES_SVM_POINTER) */
  bool device_address;              /* CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT
                                       (or a sub-buffer of such a
                                       buffer): CL_MEM_DEVICE_ADDRESS_EXT
                                       answers */
  cl_mem parent;                    /* sub-buffer: retained parent;
                                       image: the buffer or image it was
                                       made from (retained), or NULL */
  size_t origin;                    /* sub-buffer: offset in parent */
  struct rt_image *image;           /* images only (runtime/core/image.h):
                                       in this allocation; else NULL */
  cl_mem_properties *props;         /* copy, for CL_MEM_PROPERTIES */
  size_t num_props;
  pthread_mutex_t lock;             /* guards below */
  unsigned map_count;
  rt_mapping *mappings;
  rt_mem_callback *destructors;
};

/* Drops a reference; destroys the object (running destructor callbacks)
 * on the last one. */
void rt_mem_release(cl_mem m);

/* The groups of the Memory Flags table whose members exclude each other. */
#define RT_MEM_ACCESS_FLAGS                                                \
  (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define RT_MEM_HOST_ACCESS_FLAGS                                           \
  (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)
#define RT_MEM_HOST_PTR_FLAGS                                              \
  (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)

/* False where the spec says CL_INVALID_VALUE for flags: unknown bits, or
 * mutually exclusive ones together (buffers and images alike). */
bool rt_mem_flags_valid(cl_mem_flags flags);

/* The flags of an object made from another (a sub-buffer, an image from
 * a buffer or image): false (CL_INVALID_VALUE) if flags names host
 * pointer flags or access the parent forbids; else fills in the access
 * and host access flags flags leaves out from the parent's, and the
 * parent's host pointer flags. */
bool rt_mem_inherit_flags(cl_mem parent, cl_mem_flags *flags);

#endif
