/* This file contains the kernel object's behaviour: creation, cloning,
 * argument storage and destruction. Validation and error codes of the
 * API live in api_kernel.c; the launch in api_enqueue_kernel.c. */
#include "kernel.h"
#include "program.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

cl_kernel rt_kernel_create(cl_program p, const cc_kernel_info *info) {
  cl_kernel k = calloc(1, sizeof *k);
  if (!k)
    return NULL;
  k->args = calloc(info->num_args ? info->num_args : 1, sizeof *k->args);
  if (!k->args) {
    free(k);
    return NULL;
  }
  rt_object_init(&k->obj, RT_KERNEL);
  pthread_mutex_init(&k->lock, NULL);
  k->info = info;
  rt_retain(p);
  atomic_fetch_add(&p->num_kernels, 1);
  k->program = p;
  return k;
}

cl_kernel rt_kernel_clone(cl_kernel k) {
  cl_kernel c = rt_kernel_create(k->program, k->info);
  if (!c)
    return NULL;
  pthread_mutex_lock(&k->lock);
  bool ok = true;
  for (unsigned i = 0; i < k->info->num_args && ok; i++) {
    const rt_kernel_arg *a = &k->args[i];
    if (a->set && a->is_svm)
      rt_kernel_set_arg_svm(c, i, a->svm);
    else if (a->set)
      ok = rt_kernel_set_arg(c, i, a->size, a->value, a->mem) == CL_SUCCESS;
  }
  pthread_mutex_unlock(&k->lock);
  if (!ok) {
    rt_kernel_release(c);
    return NULL;
  }
  return c;
}

cl_int rt_kernel_set_arg(cl_kernel k, cl_uint index, size_t size,
                         const void *value, cl_mem mem) {
  void *copy = NULL;
  /* By-value arguments (and a sampler's handle) are copied: the
   * application's bytes may change right after the call. */
  cc_arg_kind kind = k->info->args[index].kind;
  if (kind == CC_ARG_VALUE || kind == CC_ARG_SAMPLER) {
    copy = malloc(size);
    if (!copy)
      return CL_OUT_OF_HOST_MEMORY;
    memcpy(copy, value, size);
  }
  pthread_mutex_lock(&k->lock);
  rt_kernel_arg *a = &k->args[index];
  free(a->value);
  a->value = copy;
  a->mem = mem;
  a->size = size;
  a->set = true;
  a->is_svm = false;
  a->svm = NULL;
  pthread_mutex_unlock(&k->lock);
  return CL_SUCCESS;
}

void rt_kernel_set_arg_svm(cl_kernel k, cl_uint index, void *ptr) {
  pthread_mutex_lock(&k->lock);
  rt_kernel_arg *a = &k->args[index];
  free(a->value);
  a->value = NULL;
  a->mem = NULL;
  a->size = sizeof ptr;
  a->svm = ptr;
  a->is_svm = true;
  a->set = true;
  pthread_mutex_unlock(&k->lock);
}

/* n rounded up to a multiple of a, or SIZE_MAX where that overflows. */
static size_t align_up(size_t n, size_t a) {
  return n > SIZE_MAX - (a - 1) ? SIZE_MAX : (n + a - 1) / a * a;
}

size_t rt_kernel_local_mem(cl_kernel k) {
  size_t total = align_up(k->info->static_local_mem_size, RT_LOCAL_ALIGN);
  pthread_mutex_lock(&k->lock);
  for (unsigned i = 0; i < k->info->num_args; i++) {
    if (k->info->args[i].kind == CC_ARG_LOCAL && k->args[i].set) {
      /* Saturating: __local sizes near SIZE_MAX (which clSetKernelArg
       * accepts) must not wrap the total below the device's limit, or
       * the launch would run with too little local memory. */
      size_t n = align_up(k->args[i].size, RT_LOCAL_ALIGN);
      total = n > SIZE_MAX - total ? SIZE_MAX : total + n;
    }
  }
  pthread_mutex_unlock(&k->lock);
  return total;
}

void rt_kernel_release(cl_kernel k) {
  if (!rt_release_last(k))
    return;
  for (unsigned i = 0; i < k->info->num_args; i++)
    free(k->args[i].value);
  free(k->args);
  pthread_mutex_destroy(&k->lock);
  cl_program p = k->program;
  free(k);
  atomic_fetch_sub(&p->num_kernels, 1);
  rt_program_release(p);
}
