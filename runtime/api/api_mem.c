/* This file contains the buffer object entry points: creation with every
 * flag, sub-buffers, reference counting, info queries and destructor
 * callbacks. */
#include "../core/context.h"
#include "../core/info.h"
#include "../core/mem.h"
#include "../core/platform.h"
#include "../core/svm.h"
#include "../core/usm.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* True if more than one bit of mask is set in flags. */
static bool several(cl_mem_flags flags, cl_mem_flags mask) {
  cl_mem_flags f = flags & mask;
  return f & (f - 1);
}

bool rt_mem_flags_valid(cl_mem_flags flags) {
  const cl_mem_flags known = RT_MEM_ACCESS_FLAGS | RT_MEM_HOST_ACCESS_FLAGS |
                             RT_MEM_HOST_PTR_FLAGS |
                             CL_MEM_KERNEL_READ_AND_WRITE;
  if (flags & ~known)
    return false;
  if (several(flags, RT_MEM_ACCESS_FLAGS) ||
      several(flags, RT_MEM_HOST_ACCESS_FLAGS))
    return false;
  if ((flags & CL_MEM_USE_HOST_PTR) &&
      (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return false;
  return true;
}

/* CL_INVALID_VALUE if the parent was created with CL_MEM_WRITE_ONLY and
 * flags specifies CL_MEM_READ_WRITE or CL_MEM_READ_ONLY, or with
 * CL_MEM_READ_ONLY and flags specifies CL_MEM_READ_WRITE or
 * CL_MEM_WRITE_ONLY; if flags specifies CL_MEM_USE_HOST_PTR,
 * CL_MEM_ALLOC_HOST_PTR or CL_MEM_COPY_HOST_PTR; if the parent was
 * created with CL_MEM_HOST_WRITE_ONLY and flags specifies
 * CL_MEM_HOST_READ_ONLY, with CL_MEM_HOST_READ_ONLY and flags specifies
 * CL_MEM_HOST_WRITE_ONLY, or with CL_MEM_HOST_NO_ACCESS and flags
 * specifies CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_WRITE_ONLY. */
bool rt_mem_inherit_flags(cl_mem parent, cl_mem_flags *flags) {
  cl_mem_flags p = parent->flags, f = *flags;
  if (f & RT_MEM_HOST_PTR_FLAGS)
    return false;
  if ((p & CL_MEM_WRITE_ONLY) && (f & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY)))
    return false;
  if ((p & CL_MEM_READ_ONLY) && (f & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY)))
    return false;
  if ((p & CL_MEM_HOST_WRITE_ONLY) && (f & CL_MEM_HOST_READ_ONLY))
    return false;
  if ((p & CL_MEM_HOST_READ_ONLY) && (f & CL_MEM_HOST_WRITE_ONLY))
    return false;
  if ((p & CL_MEM_HOST_NO_ACCESS) &&
      (f & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY)))
    return false;
  if (!(f & RT_MEM_ACCESS_FLAGS))
    f |= p & RT_MEM_ACCESS_FLAGS;
  if (!(f & RT_MEM_HOST_ACCESS_FLAGS))
    f |= p & RT_MEM_HOST_ACCESS_FLAGS;
  *flags = f | (p & RT_MEM_HOST_PTR_FLAGS);
  return true;
}

static cl_mem mem_alloc(cl_context ctx, cl_mem_flags flags, size_t size) {
  cl_mem m = calloc(1, sizeof *m);
  if (!m)
    return NULL;
  rt_object_init(&m->obj, RT_MEM);
  m->context = ctx;
  rt_retain(ctx);
  m->type = CL_MEM_OBJECT_BUFFER;
  m->flags = flags;
  m->size = size;
  pthread_mutex_init(&m->lock, NULL);
  return m;
}

cl_mem CL_API_CALL clCreateBufferWithProperties(
    cl_context context, const cl_mem_properties *properties,
    cl_mem_flags flags, size_t size, void *host_ptr, cl_int *errcode_ret) {
  RT_FAIL_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT, errcode_ret);
  /* CL_INVALID_PROPERTY if a property name in properties is not a
   * supported property name, if the value specified for a supported
   * property name is not valid, or if the same property name is
   * specified more than once. The one property is cl_ext_buffer_device_
   * address's CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT, a cl_bool. */
  size_t num_props = 0;
  bool device_address = false;
  for (; properties && properties[num_props]; num_props += 2) {
    const cl_mem_properties *p = &properties[num_props];
    RT_FAIL_IF(p[0] != CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT || num_props > 0 ||
                   (p[1] != CL_TRUE && p[1] != CL_FALSE),
               CL_INVALID_PROPERTY, errcode_ret);
    device_address = p[1] == CL_TRUE;
  }
  RT_FAIL_IF(!rt_mem_flags_valid(flags), CL_INVALID_VALUE, errcode_ret);
  if (!(flags & RT_MEM_ACCESS_FLAGS))
    flags |= CL_MEM_READ_WRITE;
  /* CL_INVALID_BUFFER_SIZE if size is 0 or greater than
   * CL_DEVICE_MAX_MEM_ALLOC_SIZE. */
  RT_FAIL_IF(size == 0 || size > rt_device()->max_mem_alloc_size,
             CL_INVALID_BUFFER_SIZE, errcode_ret);
  /* CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
   * CL_MEM_COPY_HOST_PTR are set in flags or if host_ptr is not NULL but
   * CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are not set in flags. */
  bool wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR);
  RT_FAIL_IF(wants_ptr != (host_ptr != NULL), CL_INVALID_HOST_PTR,
             errcode_ret);
  /* CL_INVALID_BUFFER_SIZE if CL_MEM_USE_HOST_PTR is set in flags and
   * host_ptr is a pointer returned by clSVMAlloc and size is greater than
   * the size passed to clSVMAlloc (here: than the rest of the allocation
   * host_ptr lies in). */
  rt_svm_info svm;
  bool over_svm =
      (flags & CL_MEM_USE_HOST_PTR) && rt_svm_find(host_ptr, &svm);
  RT_FAIL_IF(over_svm &&
                 size > (size_t)(svm.base + svm.size - (char *)host_ptr),
             CL_INVALID_BUFFER_SIZE, errcode_ret);

  cl_mem m = mem_alloc(context, flags, size);
  RT_FAIL_IF(!m, CL_OUT_OF_HOST_MEMORY, errcode_ret);
  m->host_ptr = host_ptr;
  /* The registry holds USM allocations too; those are no SVM pointer. */
  m->uses_svm = over_svm && svm.kind == RT_ALLOC_SVM;
  m->device_address = device_address;
  if (flags & CL_MEM_USE_HOST_PTR) {
    m->data = host_ptr; /* zero-copy: the application's memory */
  } else {
    /* The storage ends in a zeroed tail: at least RT_MEM_ZERO_TAIL bytes
     * past size, up to the next RT_MEM_ALIGN boundary. A kernel that
     * reads past the end of a buffer (undefined behaviour, but real
     * libraries do it: CLBlast 1.5's batched half routines upload their
     * per-batch alphas as 2-byte halves and read them as 4-byte floats)
     * then sees zeros, the same on every run. Left uninitialised, those
     * bytes were whatever the heap last held there — other buffers'
     * data, freed objects, pointers — so such a kernel's result changed
     * from run to run, whatever the execution mode or thread count
     * (issue 13, clblast_test_xaxpybatched/xgemmbatched in half). The
     * buffer's own contents stay undefined until written, as the
     * specification says. */
    size_t rounded = (size + RT_MEM_ZERO_TAIL + RT_MEM_ALIGN - 1) /
                     RT_MEM_ALIGN * RT_MEM_ALIGN;
    m->data = aligned_alloc(RT_MEM_ALIGN, rounded);
    if (!m->data) {
      rt_mem_release(m);
      RT_FAIL_IF(true, CL_MEM_OBJECT_ALLOCATION_FAILURE, errcode_ret);
    }
    memset(m->data + size, 0, rounded - size);
    m->owns_data = true;
    if (flags & CL_MEM_COPY_HOST_PTR)
      memcpy(m->data, host_ptr, size);
  }
  if (properties) { /* an empty list is still reported back */
    m->props = malloc((num_props + 1) * sizeof *m->props);
    if (!m->props) {
      rt_mem_release(m);
      RT_FAIL_IF(true, CL_OUT_OF_HOST_MEMORY, errcode_ret);
    }
    memcpy(m->props, properties, (num_props + 1) * sizeof *m->props);
    m->num_props = num_props + 1;
  }
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return m;
}

cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags,
                                  size_t size, void *host_ptr,
                                  cl_int *errcode_ret) {
  return clCreateBufferWithProperties(context, NULL, flags, size, host_ptr,
                                      errcode_ret);
}

cl_mem CL_API_CALL clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags,
                                     cl_buffer_create_type create_type,
                                     const void *create_info,
                                     cl_int *errcode_ret) {
  /* CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object or is a
   * sub-buffer object. */
  RT_FAIL_IF(!rt_is(buffer, RT_MEM) || buffer->type != CL_MEM_OBJECT_BUFFER ||
                 buffer->parent,
             CL_INVALID_MEM_OBJECT, errcode_ret);
  RT_FAIL_IF(!rt_mem_flags_valid(flags) ||
                 !rt_mem_inherit_flags(buffer, &flags),
             CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_VALUE if value specified in buffer_create_type is not
   * valid, or if value(s) specified in buffer_create_info are not valid or
   * if buffer_create_info is NULL. */
  RT_FAIL_IF(create_type != CL_BUFFER_CREATE_TYPE_REGION || !create_info,
             CL_INVALID_VALUE, errcode_ret);
  const cl_buffer_region *region = create_info;
  /* CL_INVALID_BUFFER_SIZE if the size field of the cl_buffer_region
   * structure passed in buffer_create_info is 0. */
  RT_FAIL_IF(region->size == 0, CL_INVALID_BUFFER_SIZE, errcode_ret);
  /* CL_INVALID_VALUE if the region specified by the cl_buffer_region
   * structure passed in buffer_create_info is out of bounds in buffer. */
  RT_FAIL_IF(region->origin > buffer->size ||
                 region->size > buffer->size - region->origin,
             CL_INVALID_VALUE, errcode_ret);
  /* CL_MISALIGNED_SUB_BUFFER_OFFSET if there are no devices in context
   * associated with buffer for which the origin field of the
   * cl_buffer_region structure passed in buffer_create_info is aligned to
   * the CL_DEVICE_MEM_BASE_ADDR_ALIGN value. */
  RT_FAIL_IF(region->origin % RT_MEM_ALIGN, CL_MISALIGNED_SUB_BUFFER_OFFSET,
             errcode_ret);

  cl_mem m = mem_alloc(buffer->context, flags, region->size);
  RT_FAIL_IF(!m, CL_OUT_OF_HOST_MEMORY, errcode_ret);
  m->parent = buffer;
  rt_retain(buffer);
  m->origin = region->origin;
  m->data = buffer->data + region->origin;
  m->uses_svm = buffer->uses_svm;
  /* Its device address is the parent's plus origin, as the extension
   * says, and it answers the query too. */
  m->device_address = buffer->device_address;
  if (buffer->flags & CL_MEM_USE_HOST_PTR)
    m->host_ptr = (char *)buffer->host_ptr + region->origin;
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return m;
}

void rt_mem_release(cl_mem m) {
  if (!rt_release_last(m))
    return;
  /* Destructor callbacks run in reverse order of registration, before the
   * memory is given back (the list is kept newest first). */
  for (rt_mem_callback *c = m->destructors, *next; c; c = next) {
    next = c->next;
    c->fn(m, c->user_data);
    free(c);
  }
  if (m->owns_data)
    free(m->data);
  if (m->parent)
    rt_mem_release(m->parent);
  free(m->props);
  pthread_mutex_destroy(&m->lock);
  clReleaseContext(m->context);
  free(m);
}

cl_int CL_API_CALL clRetainMemObject(cl_mem memobj) {
  RT_RETURN_IF(!rt_is(memobj, RT_MEM), CL_INVALID_MEM_OBJECT);
  rt_retain(memobj);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clReleaseMemObject(cl_mem memobj) {
  RT_RETURN_IF(!rt_is(memobj, RT_MEM), CL_INVALID_MEM_OBJECT);
  rt_mem_release(memobj);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clSetMemObjectDestructorCallback(
    cl_mem memobj, void(CL_CALLBACK *pfn_notify)(cl_mem, void *),
    void *user_data) {
  RT_RETURN_IF(!rt_is(memobj, RT_MEM), CL_INVALID_MEM_OBJECT);
  /* CL_INVALID_VALUE if pfn_notify is NULL. */
  RT_RETURN_IF(!pfn_notify, CL_INVALID_VALUE);
  rt_mem_callback *c = malloc(sizeof *c);
  RT_RETURN_IF(!c, CL_OUT_OF_HOST_MEMORY);
  c->fn = pfn_notify;
  c->user_data = user_data;
  pthread_mutex_lock(&memobj->lock);
  c->next = memobj->destructors;
  memobj->destructors = c;
  pthread_mutex_unlock(&memobj->lock);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clGetMemObjectInfo(cl_mem m, cl_mem_info param_name,
                                      size_t param_value_size,
                                      void *param_value,
                                      size_t *param_value_size_ret) {
  RT_RETURN_IF(!rt_is(m, RT_MEM), CL_INVALID_MEM_OBJECT);
  switch (param_name) {
  case CL_MEM_TYPE:
    RT_INFO_VALUE(cl_mem_object_type, m->type);
  case CL_MEM_FLAGS:
    RT_INFO_VALUE(cl_mem_flags, m->flags);
  case CL_MEM_SIZE:
    RT_INFO_VALUE(size_t, m->size);
  case CL_MEM_HOST_PTR:
    RT_INFO_VALUE(void *, (m->flags & CL_MEM_USE_HOST_PTR) ? m->host_ptr
                                                           : NULL);
  case CL_MEM_MAP_COUNT: {
    pthread_mutex_lock(&m->lock);
    cl_uint count = m->map_count;
    pthread_mutex_unlock(&m->lock);
    RT_INFO_VALUE(cl_uint, count);
  }
  case CL_MEM_REFERENCE_COUNT:
    RT_INFO_VALUE(cl_uint, rt_refcount(m));
  case CL_MEM_CONTEXT:
    RT_INFO_VALUE(cl_context, m->context);
  case CL_MEM_ASSOCIATED_MEMOBJECT:
    RT_INFO_VALUE(cl_mem, m->parent);
  case CL_MEM_OFFSET:
    RT_INFO_VALUE(size_t, m->origin);
  case CL_MEM_USES_SVM_POINTER:
    RT_INFO_VALUE(cl_bool, m->uses_svm ? CL_TRUE : CL_FALSE);
  case CL_MEM_PROPERTIES:
    RT_INFO_ARRAY(m->props, m->num_props);
  case CL_MEM_DEVICE_ADDRESS_EXT: {
    /* CL_INVALID_OPERATION if the buffer was not allocated with
     * CL_MEM_DEVICE_PRIVATE_ADDRESS_EXT. Otherwise one address per device
     * of the context: kernels run in the host's address space, so each
     * is where the data lies. */
    RT_RETURN_IF(!m->device_address, CL_INVALID_OPERATION);
    cl_uint n = m->context->num_devices;
    cl_mem_device_address_ext *addr = malloc(n * sizeof *addr);
    RT_RETURN_IF(!addr, CL_OUT_OF_HOST_MEMORY);
    for (cl_uint i = 0; i < n; i++)
      addr[i] = (cl_mem_device_address_ext)(uintptr_t)m->data;
    cl_int err = rt_info(param_value_size, param_value, param_value_size_ret,
                         addr, n * sizeof *addr);
    free(addr);
    return err;
  }
  default:
    RT_FAIL(CL_INVALID_VALUE);
  }
}
