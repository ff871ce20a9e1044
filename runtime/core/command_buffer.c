/* This file contains the command-buffer object: its commands, the plans
 * that replays run, capturing a clEnqueue* command for recording, and
 * the replay command itself (command_buffer.h describes the design).
 *
 * Lock rules: cb->lock guards the buffer's state, commands and current
 * plan; it is never held while a replay runs. A plan's exec lock is held
 * only while one replay runs its commands, with no other lock held. */
#include "command_buffer.h"
#include "event.h"
#include "kernel.h"
#include "queue.h"
#include <stdlib.h>
#include <string.h>

static void exec_release(rt_cb_exec *x) {
  if (atomic_fetch_sub(&x->refs, 1) != 1)
    return;
  pthread_mutex_destroy(&x->lock);
  free(x);
}

static void plan_release(rt_cb_plan *p) {
  if (!p || atomic_fetch_sub(&p->refs, 1) != 1)
    return;
  for (unsigned i = 0; i < p->num; i++)
    rt_event_release(p->cmds[i]);
  free(p->cmds);
  exec_release(p->exec);
  free(p);
}

cl_command_buffer_khr rt_cb_create(cl_uint num_queues,
                                   const cl_command_queue *queues,
                                   const cl_command_buffer_properties_khr
                                       *props,
                                   size_t num_props, cl_bitfield flags) {
  cl_command_buffer_khr cb = calloc(1, sizeof *cb);
  if (!cb)
    return NULL;
  cb->queues = malloc(sizeof *cb->queues * num_queues);
  cb->exec = calloc(1, sizeof *cb->exec);
  if (num_props)
    cb->props = malloc(sizeof *props * num_props);
  if (!cb->queues || !cb->exec || (num_props && !cb->props)) {
    free(cb->queues);
    free(cb->exec);
    free(cb->props);
    free(cb);
    return NULL;
  }
  if (num_props)
    memcpy(cb->props, props, sizeof *props * num_props);
  cb->num_props = num_props;
  atomic_init(&cb->exec->refs, 1);
  pthread_mutex_init(&cb->exec->lock, NULL);
  cb->num_queues = num_queues;
  for (cl_uint i = 0; i < num_queues; i++) {
    cb->queues[i] = queues[i];
    rt_retain(queues[i]);
  }
  cb->context = queues[0]->context;
  rt_retain(cb->context);
  cb->flags = flags;
  cb->state = CL_COMMAND_BUFFER_STATE_RECORDING_KHR;
  pthread_mutex_init(&cb->lock, NULL);
  pthread_mutex_init(&cb->update_lock, NULL);
  rt_object_init(&cb->obj, RT_COMMAND_BUFFER);
  return cb;
}

struct _cl_mutable_command_khr *rt_cb_command_new(cl_command_buffer_khr cb,
                                                  cl_command_type type,
                                                  cl_command_queue queue) {
  struct _cl_mutable_command_khr *cmd = calloc(1, sizeof *cmd);
  if (!cmd)
    return NULL;
  cmd->cb = cb;
  cmd->type = type;
  cmd->queue = queue;
  return cmd;
}

void rt_cb_command_free(struct _cl_mutable_command_khr *cmd) {
  cmd->magic = 0;
  if (cmd->ev)
    rt_event_release(cmd->ev);
  if (cmd->args)
    rt_kernel_release(cmd->args);
  if (cmd->kernel)
    rt_kernel_release(cmd->kernel);
  free(cmd->props);
  free(cmd);
}

bool rt_cb_append_locked(cl_command_buffer_khr cb,
                         struct _cl_mutable_command_khr *cmd,
                         cl_sync_point_khr *sync_point) {
  if (cb->num_cmds == cb->cap_cmds) {
    unsigned cap = cb->cap_cmds ? 2 * cb->cap_cmds : 16;
    void *grown = realloc(cb->cmds, sizeof *cb->cmds * cap);
    if (!grown)
      return false;
    cb->cmds = grown;
    cb->cap_cmds = cap;
  }
  cmd->magic = RT_CB_COMMAND_MAGIC;
  cb->cmds[cb->num_cmds++] = cmd;
  /* Sync points are 1 + the command's index: 0 is never one. */
  if (sync_point)
    *sync_point = cb->num_cmds;
  return true;
}

void rt_cb_release(cl_command_buffer_khr cb) {
  if (!rt_release_last(cb))
    return;
  cb->obj.type = 0;
  for (unsigned i = 0; i < cb->num_cmds; i++)
    rt_cb_command_free(cb->cmds[i]);
  free(cb->cmds);
  plan_release(cb->plan);
  exec_release(cb->exec);
  for (cl_uint i = 0; i < cb->num_queues; i++)
    clReleaseCommandQueue(cb->queues[i]);
  clReleaseContext(cb->context);
  free(cb->queues);
  free(cb->props);
  pthread_mutex_destroy(&cb->lock);
  pthread_mutex_destroy(&cb->update_lock);
  free(cb);
}

rt_cb_plan *rt_cb_plan_alloc(unsigned num_cmds) {
  rt_cb_plan *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->cmds = malloc(sizeof *p->cmds * (num_cmds ? num_cmds : 1));
  if (!p->cmds) {
    free(p);
    return NULL;
  }
  return p;
}

void rt_cb_plan_install_locked(cl_command_buffer_khr cb, rt_cb_plan *p) {
  bool complete = true;
  p->num = 0;
  for (unsigned i = 0; i < cb->num_cmds; i++) {
    struct _cl_mutable_command_khr *cmd = cb->cmds[i];
    if (cmd->ev) {
      rt_retain(cmd->ev);
      p->cmds[p->num++] = cmd->ev;
    } else if (cmd->type == CL_COMMAND_NDRANGE_KERNEL) {
      complete = false; /* arguments still to be set by an update */
    }
  }
  atomic_init(&p->refs, 1);
  atomic_fetch_add(&cb->exec->refs, 1);
  p->exec = cb->exec;
  plan_release(cb->plan);
  cb->plan = p;
  cb->state = complete ? CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR
                       : CL_COMMAND_BUFFER_STATE_FINALIZED_KHR;
}

cl_int rt_cb_replan_locked(cl_command_buffer_khr cb) {
  rt_cb_plan *p = rt_cb_plan_alloc(cb->num_cmds);
  if (!p)
    return CL_OUT_OF_HOST_MEMORY;
  rt_cb_plan_install_locked(cb, p);
  return CL_SUCCESS;
}

cl_int rt_cb_finalize_locked(cl_command_buffer_khr cb) {
  return rt_cb_replan_locked(cb);
}

/* The replay command's payload. */
typedef struct replay_cmd {
  rt_cb_plan *plan;
} replay_cmd;

/* Runs the plan's commands in recording order (a topological order of
 * their sync points) on this thread; the first failure ends the replay
 * with its error, as a failed command would fail its dependents. */
static cl_int replay_run(cl_event ev) {
  replay_cmd *r = ev->payload;
  rt_cb_plan *p = r->plan;
  cl_int err = CL_SUCCESS;
  pthread_mutex_lock(&p->exec->lock);
  for (unsigned i = 0; i < p->num && err == CL_SUCCESS; i++) {
    cl_event c = p->cmds[i];
    err = c->run ? c->run(c) : CL_SUCCESS;
    /* Under SKEIN_TRACE a kernel command names its trace record (a copy
     * of the kernel's name, freed when the record is written at
     * completion); a captured command never completes, so each replay
     * drops it here. */
    free(c->trace_name);
    c->trace_name = NULL;
  }
  pthread_mutex_unlock(&p->exec->lock);
  return err;
}

static void replay_free(cl_event ev) {
  replay_cmd *r = ev->payload;
  if (!r)
    return;
  plan_release(r->plan);
  rt_payload_free(r);
  ev->payload = NULL;
}

/* Creates (does not submit) the replay command of r on q after list,
 * taking r over; NULL, with r freed and *err set, on failure. */
static cl_event create_replay(cl_command_queue q, replay_cmd *r, cl_uint n,
                              const cl_event *list, cl_int *err) {
  cl_event ev = rt_command_create(q, CL_COMMAND_COMMAND_BUFFER_KHR, n, list,
                                  err);
  if (!ev) {
    plan_release(r->plan);
    rt_payload_free(r);
    return NULL;
  }
  ev->run = replay_run;
  ev->payload = r;
  ev->free_payload = replay_free;
  return ev;
}

cl_int rt_cb_enqueue(cl_command_buffer_khr cb, cl_command_queue *queues,
                     cl_uint num_events, const cl_event *wait_list,
                     cl_event *event) {
  replay_cmd *r = rt_payload_alloc(sizeof *r);
  if (!r)
    return CL_OUT_OF_HOST_MEMORY;
  pthread_mutex_lock(&cb->lock);
  r->plan = cb->plan;
  atomic_fetch_add(&r->plan->refs, 1);
  pthread_mutex_unlock(&cb->lock);
  cl_uint n = cb->num_queues;
  cl_int err;
  if (n == 1) {
    cl_event ev = create_replay(queues[0], r, num_events, wait_list, &err);
    return ev ? rt_command_submit(ev, false, event) : err;
  }
  /* Several queues (multi-device): the replay runs as one command of the
   * first queue, which also waits for an ordering command on each other
   * queue (so for what they held before); then each other queue gets an
   * ordering command after the replay, so what they take later follows
   * it as their own commands would. Every command is created before any
   * is submitted (submitting cannot fail): a failure leaves nothing
   * queued, where it left part of a replay. cmds[0, n-1) lead,
   * cmds[n-1] is the replay, cmds[n, 2n-1) follow. */
  cl_event *waits = malloc(sizeof *waits * (num_events + n - 1));
  cl_event *cmds = calloc(2 * n - 1, sizeof *cmds);
  if (!waits || !cmds) {
    free(waits);
    free(cmds);
    plan_release(r->plan);
    rt_payload_free(r);
    return CL_OUT_OF_HOST_MEMORY;
  }
  err = CL_SUCCESS;
  for (cl_uint i = 0; i < num_events; i++)
    waits[i] = wait_list[i];
  for (cl_uint i = 1; i < n && err == CL_SUCCESS; i++) {
    cmds[i - 1] = rt_command_create(queues[i], CL_COMMAND_COMMAND_BUFFER_KHR,
                                    0, NULL, &err);
    waits[num_events + i - 1] = cmds[i - 1];
  }
  cl_event replay = NULL;
  if (err == CL_SUCCESS)
    replay = cmds[n - 1] = create_replay(queues[0], r, num_events + n - 1,
                                         waits, &err);
  else {
    plan_release(r->plan);
    rt_payload_free(r);
  }
  for (cl_uint i = 1; i < n && err == CL_SUCCESS; i++)
    cmds[n - 1 + i] = rt_command_create(
        queues[i], CL_COMMAND_COMMAND_BUFFER_KHR, 1, &replay, &err);
  free(waits);
  if (err != CL_SUCCESS) {
    /* Never submitted: releasing frees them (and the replay's plan). */
    for (cl_uint i = 0; i < 2 * n - 1; i++)
      if (cmds[i])
        rt_event_release(cmds[i]);
    free(cmds);
    return err;
  }
  for (cl_uint i = 0; i < 2 * n - 1; i++)
    rt_command_submit(cmds[i], false, i == n - 1 ? event : NULL);
  free(cmds);
  return CL_SUCCESS;
}
