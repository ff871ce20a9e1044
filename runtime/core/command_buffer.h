/* This file declares command-buffers (cl_khr_command_buffer and its
 * mutable-dispatch and multi-device layers) and their commands.
 *
 * A recorded command is the very command the matching clEnqueue* entry
 * point builds (same checks, same error codes, same payload: a kernel's
 * argument block and launch geometry resolved once), captured instead of
 * submitted (rt_command_capture, runtime/core/event.c). Finalizing builds
 * a plan: the captured commands in recording order, which is a
 * topological order of the sync-point graph because a sync point can
 * only name a command recorded before. A replay is one queue command
 * (CL_COMMAND_COMMAND_BUFFER_KHR) that runs the plan's commands one
 * after another on the thread that runs it: one event, one dependency
 * resolution and no per-command allocation per replay. */
#ifndef SKEIN_RUNTIME_COMMAND_BUFFER_H
#define SKEIN_RUNTIME_COMMAND_BUFFER_H

#include "object.h" /* first: it sets the OpenCL version */
#include "command_buffer_khr.h"
#include <pthread.h>

/* Serialises the replays of one command-buffer: a captured kernel
 * command keeps per-run state in its payload (printf buffer, child
 * kernels), and plans share unchanged commands. Shared by the buffer
 * and its plans, freed with the last. */
typedef struct rt_cb_exec {
  atomic_uint refs;
  pthread_mutex_t lock;
} rt_cb_exec;

/* What a replay runs: an immutable snapshot of the commands, shared by
 * every replay enqueued while it was current. An update makes a new
 * plan, so replays enqueued before it run the old commands. */
typedef struct rt_cb_plan {
  atomic_uint refs;            /* the command-buffer's, one per replay */
  rt_cb_exec *exec;            /* the buffer's, counted */
  unsigned num;
  cl_event *cmds;              /* captured commands, retained */
} rt_cb_plan;

/* Marks a live command handle (rt_cb_is_command). */
#define RT_CB_COMMAND_MAGIC 0x5a1ec0deu

struct _cl_mutable_command_khr {
  unsigned magic;              /* RT_CB_COMMAND_MAGIC until freed */
  cl_command_buffer_khr cb;    /* owner (the handle lives as long) */
  cl_command_type type;        /* CL_COMMAND_NDRANGE_KERNEL, ... */
  cl_command_queue queue;      /* recording queue (cb holds it) */
  cl_event ev;                 /* the captured command, retained; NULL
                                  for a barrier, or a kernel command
                                  whose arguments are not all set yet */
  /* Kernel commands: */
  cl_kernel kernel;            /* the application's kernel, retained */
  cl_kernel args;              /* mutable buffers: a clone holding the
                                  command's current arguments, which
                                  updates change; NULL otherwise */
  cl_uint work_dim;
  size_t offset[3], global[3], local[3];
  bool local_given;            /* local sizes set (record or update) */
  cl_bitfield updatable;       /* cl_mutable_dispatch_fields_khr */
  skein_command_properties_khr *props; /* copy; NULL if none given */
  size_t num_props;            /* entries incl. the 0 */
};

struct _cl_command_buffer_khr {
  rt_object obj;
  cl_context context;                 /* retained */
  cl_uint num_queues;
  cl_command_queue *queues;           /* retained */
  cl_command_buffer_properties_khr *props; /* copy; NULL if none given */
  size_t num_props;                   /* entries incl. the 0 */
  cl_bitfield flags;                  /* cl_command_buffer_flags_khr */
  pthread_mutex_t update_lock;        /* one clUpdateMutableCommandsKHR
                                         at a time: an update starts from
                                         the commands' current arguments;
                                         taken before lock, never inside */
  pthread_mutex_t lock;               /* guards what follows */
  cl_command_buffer_state_khr state;  /* RECORDING, FINALIZED or
                                         EXECUTABLE */
  unsigned num_cmds, cap_cmds;
  struct _cl_mutable_command_khr **cmds;
  rt_cb_plan *plan;                   /* current plan once executable */
  rt_cb_exec *exec;                   /* counted */
};

/* True if h is a live command handle. Defensive, as rt_is. */
static inline bool rt_cb_is_command(const void *h) {
  return h && ((const struct _cl_mutable_command_khr *)h)->magic ==
                  RT_CB_COMMAND_MAGIC;
}

/* Creates a command-buffer in the recording state over queues (valid,
 * one context; retained here) with flags and a copy of props (num_props
 * entries incl. the 0, or NULL). NULL on allocation failure. */
cl_command_buffer_khr rt_cb_create(cl_uint num_queues,
                                   const cl_command_queue *queues,
                                   const cl_command_buffer_properties_khr
                                       *props,
                                   size_t num_props, cl_bitfield flags);

/* Drops a reference; the last frees the buffer, its commands and its
 * plan (replays in flight hold the plan, not the buffer). */
void rt_cb_release(cl_command_buffer_khr cb);

/* Appends cmd (allocated by the caller with rt_cb_command_new, filled
 * in) to cb, which must be recording; returns its sync point (>= 1).
 * cb->lock held by the caller. False on allocation failure. */
bool rt_cb_append_locked(cl_command_buffer_khr cb,
                         struct _cl_mutable_command_khr *cmd,
                         cl_sync_point_khr *sync_point);

/* A zeroed command of cb (not yet appended). NULL if out of memory. */
struct _cl_mutable_command_khr *rt_cb_command_new(cl_command_buffer_khr cb,
                                                  cl_command_type type,
                                                  cl_command_queue queue);

/* Frees a command that was never appended (or at the buffer's end). */
void rt_cb_command_free(struct _cl_mutable_command_khr *cmd);

/* Finalizes cb (recording, cb->lock held): Executable if every command
 * is complete, else Finalized. CL_OUT_OF_HOST_MEMORY if the plan cannot
 * be built. */
cl_int rt_cb_finalize_locked(cl_command_buffer_khr cb);

/* Rebuilds cb's plan from its commands (cb->lock held); the previous one
 * lives on in the replays that hold it. Sets the state from whether
 * every command is complete. CL_OUT_OF_HOST_MEMORY on failure (nothing
 * changed). */
cl_int rt_cb_replan_locked(cl_command_buffer_khr cb);

/* The two halves of rt_cb_replan_locked, for an update that must not
 * fail once it has changed a command: rt_cb_plan_alloc makes an empty
 * plan for num_cmds commands (NULL if out of memory);
 * rt_cb_plan_install_locked fills it from cb's commands (num_cmds of
 * them, cb->lock held) and makes it current, and cannot fail. */
rt_cb_plan *rt_cb_plan_alloc(unsigned num_cmds);
void rt_cb_plan_install_locked(cl_command_buffer_khr cb, rt_cb_plan *p);

/* Enqueues one replay of cb's current plan on queues (num_queues, the
 * buffer's or substitutes checked by the caller) after the wait list.
 * cb executable. */
cl_int rt_cb_enqueue(cl_command_buffer_khr cb, cl_command_queue *queues,
                     cl_uint num_events, const cl_event *wait_list,
                     cl_event *event);

/* The command-buffer device queries (CL_DEVICE_COMMAND_BUFFER_*,
 * CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR) for clGetDeviceInfo;
 * returns 1 (no CL error code) for any other param_name. */
cl_int rt_cb_device_info(cl_device_id dev, cl_device_info param_name,
                         size_t param_value_size, void *param_value,
                         size_t *param_value_size_ret);

/* What clGetPlatformInfo reports for CL_PLATFORM_COMMAND_BUFFER_
 * CAPABILITIES_KHR: universal sync and remapping by the application. */
#define RT_CB_PLATFORM_CAPABILITIES                                        \
  ((cl_bitfield)(CL_COMMAND_BUFFER_PLATFORM_UNIVERSAL_SYNC_KHR |          \
                 CL_COMMAND_BUFFER_PLATFORM_REMAP_QUEUES_KHR))

/* The entry points (runtime/api/api_command_buffer.c), named skein_cl*
 * (command_buffer_khr.h says why). */
#define RT_CB_PROTOTYPE(ret, name, params) ret CL_API_CALL skein_##name params;
SKEIN_COMMAND_BUFFER_FUNCTIONS(RT_CB_PROTOTYPE)
#undef RT_CB_PROTOTYPE

#endif
