/* This file declares on-device command queues (CL_QUEUE_ON_DEVICE) and
 * the runtime side of device-side enqueue: the child commands a kernel's
 * enqueue_kernel and enqueue_marker create, their clk_event_t events,
 * and how they run. A device queue is a cl_command_queue of type
 * RT_DEVICE_QUEUE, so that every host command refuses it. */
#ifndef SKEIN_RUNTIME_DEVICE_QUEUE_H
#define SKEIN_RUNTIME_DEVICE_QUEUE_H

#include "object.h"
#include "../../compiler/compiler.h"

/* The device's limits (CL_DEVICE_QUEUE_ON_DEVICE_*,
 * CL_DEVICE_MAX_ON_DEVICE_*). A queue of size bytes holds size /
 * RT_DQ_COMMAND_BYTES commands not yet run; more make enqueue_kernel
 * return CLK_DEVICE_QUEUE_FULL. */
/* 2 MiB: 32768 pending children, so that one child per work-item of
 * a 16384-item launch fits (the CTS command_buffer device_enqueue test
 * makes that many in a default-size queue; 256 KiB held 4096). */
#define RT_DQ_PREFERRED_SIZE (2u * 1024 * 1024)
#define RT_DQ_MAX_SIZE (8u * 1024 * 1024)
#define RT_DQ_COMMAND_BYTES 64u
#define RT_DQ_MAX_QUEUES 4u
#define RT_DQ_MAX_EVENTS 1024u

/* Registers a new device queue q of its context: counts it, and with
 * make_default makes it the context's default device queue. A context
 * has at most RT_DQ_MAX_QUEUES queues besides its default one (the
 * conformance tests make that many next to the default): past that,
 * returns CL_OUT_OF_RESOURCES. If
 * make_default and the context has a default queue, *existing receives
 * it, retained, and q must be discarded. */
cl_int rt_device_queue_register(cl_command_queue q, bool make_default,
                                cl_command_queue *existing);
/* Forgets q (its last release). */
void rt_device_queue_unregister(cl_command_queue q);
/* The context's default device queue (not retained), or NULL. */
cl_command_queue rt_device_queue_default(cl_context ctx);
/* clSetDefaultDeviceCommandQueue's effect: q (a device queue of ctx)
 * becomes the default. */
void rt_device_queue_set_default(cl_context ctx, cl_command_queue q);

struct rt_dq_root;

/* What an NDRange command keeps for device-side enqueue: launch
 * .device_enqueue points at de. Costs nothing until a work-item enqueues
 * (the root is made then). Fields after de are private to
 * device_queue.c. */
typedef struct rt_dq_host {
  skein_device_enqueue de;
  struct rt_dq_host *host;       /* itself */
  void *node;                    /* NULL: the host command's launch */
  struct rt_dq_root *_Atomic root;
  const cc_program *program;     /* the kernel's program: block kernels */
  cl_context context;
  cl_device_id device;
} rt_dq_host;

/* Prepares h for a launch of a kernel of program (whose cc_program
 * outlives the launch) in ctx. */
void rt_dq_host_init(rt_dq_host *h, const cc_program *program,
                     cl_context ctx, cl_device_id dev);

/* After the launch's work-groups have all finished: runs every child
 * command they enqueued, and theirs, until none is left, then frees
 * what the launch's enqueues made. Returns CL_SUCCESS, or an error when
 * the child commands could not all run. */
cl_int rt_dq_host_finish(rt_dq_host *h);

#endif
