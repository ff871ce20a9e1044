/* This file contains the device side of OpenCL C's device-side enqueue
 * (OpenCL C 3.0 section 6.15.16): the functions Clang's enqueue_kernel
 * lowering calls (__enqueue_kernel_basic and its _events, _varargs and
 * _events_varargs forms, the __get_kernel_*_impl queries), enqueue_marker,
 * get_default_queue and the clk_event_t functions. Each is a
 * __skein_ctx_ function (see sync.c): it reaches the runtime through its
 * launch's skein_device_enqueue (builtins/abi.h), which owns the child
 * commands (runtime/core/device_queue.c). compiler/device_enqueue.c has
 * already replaced each block kernel's address by its name. The
 * ndrange_t constructors are device_enqueue.cl. */
#include "abi.h"

#include <stdbool.h>

#define AS_GLOBAL __attribute__((address_space(1)))
#define AS_GENERIC __attribute__((address_space(4)))

#define CLK_ENQUEUE_FAILURE (-101)

static skein_device_enqueue *dq(skein_group *g) {
  return g->launch->device_enqueue;
}

/* The common form of the four enqueue_kernel lowerings. */
static int32_t enqueue(skein_group *g, void *queue, int32_t flags,
                       const skein_ndrange *nd, uint32_t num_waits,
                       const AS_GENERIC void *waits,
                       AS_GENERIC void *event_ret,
                       const AS_GENERIC char *kernel,
                       const AS_GENERIC void *literal, uint32_t num_locals,
                       const uint64_t *local_sizes) {
  skein_device_enqueue *d = dq(g);
  if (!d)
    return CLK_ENQUEUE_FAILURE;   /* defensive: a launch without it */
  skein_child_request r = {
      .queue = queue,
      .flags = flags,
      .nd = nd,
      .kernel = (const char *)kernel,
      .literal = (const void *)literal,
      .num_locals = num_locals,
      .local_sizes = local_sizes,
      .num_waits = num_waits,
      .waits = (void *const *)waits,
      .event_ret = (void **)event_ret,
  };
  return d->ops->enqueue_kernel(d, &r);
}

int32_t __skein_ctx___enqueue_kernel_basic(skein_group *g, void *queue,
                                           int32_t flags,
                                           const skein_ndrange *nd,
                                           const AS_GENERIC char *kernel,
                                           const AS_GENERIC void *literal) {
  return enqueue(g, queue, flags, nd, 0, 0, 0, kernel, literal, 0, 0);
}

int32_t __skein_ctx___enqueue_kernel_basic_events(
    skein_group *g, void *queue, int32_t flags, const skein_ndrange *nd,
    uint32_t num_waits, const AS_GENERIC void *waits,
    AS_GENERIC void *event_ret, const AS_GENERIC char *kernel,
    const AS_GENERIC void *literal) {
  return enqueue(g, queue, flags, nd, num_waits, waits, event_ret, kernel,
                 literal, 0, 0);
}

int32_t __skein_ctx___enqueue_kernel_varargs(
    skein_group *g, void *queue, int32_t flags, const skein_ndrange *nd,
    const AS_GENERIC char *kernel, const AS_GENERIC void *literal,
    uint32_t num_locals, const uint64_t *local_sizes) {
  return enqueue(g, queue, flags, nd, 0, 0, 0, kernel, literal, num_locals,
                 local_sizes);
}

int32_t __skein_ctx___enqueue_kernel_events_varargs(
    skein_group *g, void *queue, int32_t flags, const skein_ndrange *nd,
    uint32_t num_waits, const AS_GENERIC void *waits,
    AS_GENERIC void *event_ret, const AS_GENERIC char *kernel,
    const AS_GENERIC void *literal, uint32_t num_locals,
    const uint64_t *local_sizes) {
  return enqueue(g, queue, flags, nd, num_waits, waits, event_ret, kernel,
                 literal, num_locals, local_sizes);
}

static uint32_t query(skein_group *g, uint32_t what,
                      const AS_GENERIC char *kernel,
                      const skein_ndrange *nd) {
  skein_device_enqueue *d = dq(g);
  return d ? d->ops->kernel_query(d, what, (const char *)kernel, nd) : 0;
}

uint32_t __skein_ctx___get_kernel_work_group_size_impl(
    skein_group *g, const AS_GENERIC char *kernel,
    const AS_GENERIC void *literal) {
  (void)literal;
  return query(g, 0, kernel, 0);
}

uint32_t __skein_ctx___get_kernel_preferred_work_group_size_multiple_impl(
    skein_group *g, const AS_GENERIC char *kernel,
    const AS_GENERIC void *literal) {
  (void)literal;
  return query(g, 1, kernel, 0);
}

uint32_t __skein_ctx___get_kernel_sub_group_count_for_ndrange_impl(
    skein_group *g, const skein_ndrange *nd, const AS_GENERIC char *kernel,
    const AS_GENERIC void *literal) {
  (void)literal;
  return query(g, 2, kernel, nd);
}

uint32_t __skein_ctx___get_kernel_max_sub_group_size_for_ndrange_impl(
    skein_group *g, const skein_ndrange *nd, const AS_GENERIC char *kernel,
    const AS_GENERIC void *literal) {
  (void)literal;
  return query(g, 3, kernel, nd);
}

/* int enqueue_marker(queue_t, uint, const clk_event_t *, clk_event_t *) */
int32_t
__skein_ctx__Z14enqueue_marker9ocl_queuejPU9CLgenericK12ocl_clkeventPU9CLgenericS0_(
    skein_group *g, void *queue, uint32_t num_waits,
    const AS_GENERIC void *waits, AS_GENERIC void *event_ret) {
  skein_device_enqueue *d = dq(g);
  if (!d)
    return CLK_ENQUEUE_FAILURE;
  return d->ops->enqueue_marker(d, queue, num_waits, (void *const *)waits,
                                (void **)event_ret);
}

/* queue_t get_default_queue(void) */
void *__skein_ctx__Z17get_default_queuev(skein_group *g) {
  skein_device_enqueue *d = dq(g);
  return d ? d->ops->default_queue(d) : 0;
}

/* void retain_event(clk_event_t) */
void __skein_ctx__Z12retain_event12ocl_clkevent(skein_group *g, void *e) {
  skein_device_enqueue *d = dq(g);
  if (d)
    d->ops->retain_event(d, e);
}

/* void release_event(clk_event_t) */
void __skein_ctx__Z13release_event12ocl_clkevent(skein_group *g, void *e) {
  skein_device_enqueue *d = dq(g);
  if (d)
    d->ops->release_event(d, e);
}

/* clk_event_t create_user_event(void) */
void *__skein_ctx__Z17create_user_eventv(skein_group *g) {
  skein_device_enqueue *d = dq(g);
  return d ? d->ops->create_user_event(d) : (void *)~(uintptr_t)0;
}

/* void set_user_event_status(clk_event_t, int) */
void __skein_ctx__Z21set_user_event_status12ocl_clkeventi(skein_group *g,
                                                          void *e,
                                                          int32_t status) {
  skein_device_enqueue *d = dq(g);
  if (d)
    d->ops->set_user_event_status(d, e, status);
}

/* bool is_valid_event(clk_event_t) */
bool __skein_ctx__Z14is_valid_event12ocl_clkevent(skein_group *g, void *e) {
  skein_device_enqueue *d = dq(g);
  return d && d->ops->is_valid_event(d, e);
}

/* void capture_event_profiling_info(clk_event_t, clk_profiling_info,
 * global void *value) */
void __skein_ctx__Z28capture_event_profiling_info12ocl_clkeventiPU8CLglobalv(
    skein_group *g, void *e, int32_t name, AS_GLOBAL void *value) {
  skein_device_enqueue *d = dq(g);
  if (d)
    d->ops->capture_profiling(d, e, name, (uint64_t *)value);
}
