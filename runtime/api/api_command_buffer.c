/* This file contains the entry points of cl_khr_command_buffer,
 * cl_khr_command_buffer_mutable_dispatch and
 * cl_khr_command_buffer_multi_device: creating, finalizing, enqueuing,
 * querying and remapping command-buffers, the clCommand*KHR recording
 * functions and mutable-command updates. Each recording function checks
 * what is its own (buffer, queue, properties, sync points, handle), then
 * calls the clEnqueue* entry point it mirrors with the command captured
 * (runtime/core/command_buffer.h): the spec gives them the enqueue's
 * errors, and the replay runs the enqueue's own command. */
#include "../core/command_buffer.h"
#include "../core/context.h"
#include "../core/event.h"
#include "../core/info.h"
#include "../core/kernel.h"
#include "../core/program.h"
#include "../core/queue.h"
#include <stdlib.h>
#include <string.h>

/* The flags and fields Skein supports (all the extensions define). */
#define CB_FLAGS                                                           \
  (CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR | CL_COMMAND_BUFFER_MUTABLE_KHR | \
   CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR)
#define CB_DISPATCH_FIELDS                                                 \
  (CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR |                                 \
   CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR | CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR | \
   CL_MUTABLE_DISPATCH_ARGUMENTS_KHR | CL_MUTABLE_DISPATCH_EXEC_INFO_KHR)
#define CB_ASSERTS CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR
/* Queue properties a replay may run on (CL_DEVICE_COMMAND_BUFFER_
 * SUPPORTED_QUEUE_PROPERTIES_KHR; none is required). */
#define CB_QUEUE_PROPERTIES                                                \
  (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE)

/* Reads a 0-terminated (name, value) list: CL_INVALID_VALUE for a name
 * not in names[0..n), a value with bits outside the name's mask, or a
 * name given twice; values[i] receives name i's value (0 if absent).
 * *count gets the entries including the 0. */
static cl_int parse_props(const cl_properties *props, const cl_properties *names,
                          const cl_bitfield *masks, unsigned n,
                          cl_bitfield *values, size_t *count) {
  bool seen[4] = {false};
  for (unsigned i = 0; i < n; i++)
    values[i] = 0;
  *count = 0;
  if (!props)
    return CL_SUCCESS;
  size_t at = 0;
  for (; props[at]; at += 2) {
    unsigned i = 0;
    while (i < n && names[i] != props[at])
      i++;
    RT_RETURN_IF(i == n || seen[i], CL_INVALID_VALUE);
    RT_RETURN_IF(props[at + 1] & ~masks[i], CL_INVALID_VALUE);
    seen[i] = true;
    values[i] = props[at + 1];
  }
  *count = at + 1;
  return CL_SUCCESS;
}

cl_command_buffer_khr CL_API_CALL skein_clCreateCommandBufferKHR(
    cl_uint num_queues, const cl_command_queue *queues,
    const cl_command_buffer_properties_khr *properties, cl_int *errcode_ret) {
  /* CL_INVALID_VALUE if num_queues is zero (multi-device is supported),
   * or if queues is NULL. */
  RT_FAIL_IF(num_queues == 0 || !queues, CL_INVALID_VALUE, errcode_ret);
  for (cl_uint i = 0; i < num_queues; i++) {
    /* CL_INVALID_COMMAND_QUEUE if any command-queue in queues is not a
     * valid command-queue. */
    RT_FAIL_IF(!rt_is(queues[i], RT_QUEUE), CL_INVALID_COMMAND_QUEUE,
               errcode_ret);
    /* CL_INVALID_CONTEXT if all the command-queues in queues do not have
     * the same OpenCL context. */
    RT_FAIL_IF(queues[i]->context != queues[0]->context, CL_INVALID_CONTEXT,
               errcode_ret);
  }
  /* CL_INVALID_VALUE if values specified in properties are not valid, or
   * if the same property name is specified more than once. */
  static const cl_properties names[] = {
      CL_COMMAND_BUFFER_FLAGS_KHR,
      CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR};
  static const cl_bitfield masks[] = {CB_FLAGS, CB_ASSERTS};
  cl_bitfield values[2];
  size_t num_props;
  cl_int err = parse_props(properties, names, masks, 2, values, &num_props);
  RT_FAIL_IF(err != CL_SUCCESS, err, errcode_ret);
  /* CL_INCOMPATIBLE_COMMAND_QUEUE_KHR if CL_COMMAND_BUFFER_DEVICE_SIDE_
   * SYNC_KHR is set and a device of queues cannot synchronise natively
   * with the others: Skein's device synchronises with itself only
   * (CL_DEVICE_COMMAND_BUFFER_SYNC_DEVICES_KHR). Without the flag,
   * universal sync covers any mix; several queues of one device have
   * CL_COMMAND_BUFFER_CAPABILITY_MULTIPLE_QUEUE_KHR. */
  for (cl_uint i = 1; i < num_queues; i++)
    RT_FAIL_IF((values[0] & CL_COMMAND_BUFFER_DEVICE_SIDE_SYNC_KHR) &&
                   queues[i]->device != queues[0]->device,
               CL_INCOMPATIBLE_COMMAND_QUEUE_KHR, errcode_ret);
  cl_command_buffer_khr cb =
      rt_cb_create(num_queues, queues, properties, num_props, values[0]);
  RT_FAIL_IF(!cb, CL_OUT_OF_HOST_MEMORY, errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return cb;
}

cl_int CL_API_CALL
skein_clRetainCommandBufferKHR(cl_command_buffer_khr command_buffer) {
  /* CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
   * command-buffer. */
  RT_RETURN_IF(!rt_is(command_buffer, RT_COMMAND_BUFFER),
               CL_INVALID_COMMAND_BUFFER_KHR);
  rt_retain(command_buffer);
  return CL_SUCCESS;
}

cl_int CL_API_CALL
skein_clReleaseCommandBufferKHR(cl_command_buffer_khr command_buffer) {
  /* CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
   * command-buffer. */
  RT_RETURN_IF(!rt_is(command_buffer, RT_COMMAND_BUFFER),
               CL_INVALID_COMMAND_BUFFER_KHR);
  rt_cb_release(command_buffer);
  return CL_SUCCESS;
}

cl_int CL_API_CALL
skein_clFinalizeCommandBufferKHR(cl_command_buffer_khr command_buffer) {
  /* CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
   * command-buffer. */
  RT_RETURN_IF(!rt_is(command_buffer, RT_COMMAND_BUFFER),
               CL_INVALID_COMMAND_BUFFER_KHR);
  cl_command_buffer_khr cb = command_buffer;
  pthread_mutex_lock(&cb->lock);
  /* CL_INVALID_OPERATION if command_buffer is not in the Recording
   * state. */
  cl_int err = cb->state != CL_COMMAND_BUFFER_STATE_RECORDING_KHR
                   ? CL_INVALID_OPERATION
                   : rt_cb_finalize_locked(cb);
  pthread_mutex_unlock(&cb->lock);
  RT_RETURN_IF(err != CL_SUCCESS, err);
  return CL_SUCCESS;
}

/* The checks of a queue a replay runs on, against the buffer's queue
 * orig at the same index. */
static cl_int check_replay_queue(cl_command_queue q, cl_command_queue orig) {
  /* CL_INVALID_COMMAND_QUEUE if any element of queues is not a valid
   * command-queue. */
  RT_RETURN_IF(!rt_is(q, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INCOMPATIBLE_COMMAND_QUEUE_KHR if the properties of any
   * command-queue contain a property not in CL_DEVICE_COMMAND_BUFFER_
   * SUPPORTED_QUEUE_PROPERTIES_KHR (none is required). */
  RT_RETURN_IF(q->properties & ~(cl_command_queue_properties)
                                   CB_QUEUE_PROPERTIES,
               CL_INCOMPATIBLE_COMMAND_QUEUE_KHR);
  /* CL_INVALID_CONTEXT if any element of queues does not have the same
   * context as the command-queue set on creation at the same index. */
  RT_RETURN_IF(q->context != orig->context, CL_INVALID_CONTEXT);
  /* CL_INVALID_DEVICE if any element of queues does not have the same
   * device as the command-queue set on creation at the same index. */
  RT_RETURN_IF(q->device != orig->device, CL_INVALID_DEVICE);
  return CL_SUCCESS;
}

cl_int CL_API_CALL skein_clEnqueueCommandBufferKHR(
    cl_uint num_queues, cl_command_queue *queues,
    cl_command_buffer_khr command_buffer, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  /* CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
   * command-buffer. */
  RT_RETURN_IF(!rt_is(command_buffer, RT_COMMAND_BUFFER),
               CL_INVALID_COMMAND_BUFFER_KHR);
  cl_command_buffer_khr cb = command_buffer;
  pthread_mutex_lock(&cb->lock);
  cl_command_buffer_state_khr state = cb->state;
  pthread_mutex_unlock(&cb->lock);
  /* CL_INVALID_OPERATION if command_buffer is not in the Executable
   * state. */
  RT_RETURN_IF(state != CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR,
               CL_INVALID_OPERATION);
  /* CL_INVALID_VALUE if queues is NULL and num_queues is > 0, or queues
   * is not NULL and num_queues is 0. */
  RT_RETURN_IF(!queues != !num_queues, CL_INVALID_VALUE);
  /* CL_INVALID_VALUE if num_queues is > 0 and not the same value as
   * num_queues set on command_buffer creation. */
  RT_RETURN_IF(num_queues && num_queues != cb->num_queues, CL_INVALID_VALUE);
  cl_command_queue *run_on = queues ? queues : cb->queues;
  for (cl_uint i = 0; i < cb->num_queues; i++) {
    cl_int err = check_replay_queue(run_on[i], cb->queues[i]);
    if (err != CL_SUCCESS)
      return err;
  }
  /* CL_INVALID_EVENT_WAIT_LIST for a wait list and count that disagree
   * or an invalid event; CL_INVALID_CONTEXT if the context of
   * command_buffer and of the events are not the same. */
  cl_int err = rt_check_wait_list(cb->context, num_events_in_wait_list,
                                  event_wait_list);
  if (err != CL_SUCCESS)
    return err;
  return rt_cb_enqueue(cb, run_on, num_events_in_wait_list, event_wait_list,
                       event);
}

/* The checks every recording entry point shares; *q receives the queue
 * the command is recorded to. */
static cl_int check_record(cl_command_buffer_khr cb, cl_command_queue queue,
                           cl_uint num_sync, const cl_sync_point_khr *list,
                           cl_command_queue *q) {
  /* CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
   * command-buffer. */
  RT_RETURN_IF(!rt_is(cb, RT_COMMAND_BUFFER), CL_INVALID_COMMAND_BUFFER_KHR);
  if (!queue) {
    /* CL_INVALID_COMMAND_QUEUE if command_queue is NULL and
     * command_buffer was created with more than one queue. */
    RT_RETURN_IF(cb->num_queues != 1, CL_INVALID_COMMAND_QUEUE);
    *q = cb->queues[0];
  } else {
    RT_RETURN_IF(!rt_is(queue, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
    /* CL_INVALID_CONTEXT if command_queue is not NULL, and the context
     * associated with command_queue and command_buffer is not the same. */
    RT_RETURN_IF(queue->context != cb->context, CL_INVALID_CONTEXT);
    /* CL_INVALID_COMMAND_QUEUE if command_queue is not a command-queue
     * listed on command_buffer creation. */
    cl_uint i = 0;
    while (i < cb->num_queues && cb->queues[i] != queue)
      i++;
    RT_RETURN_IF(i == cb->num_queues, CL_INVALID_COMMAND_QUEUE);
    *q = queue;
  }
  pthread_mutex_lock(&cb->lock);
  bool recording = cb->state == CL_COMMAND_BUFFER_STATE_RECORDING_KHR;
  cl_uint num_cmds = cb->num_cmds;
  pthread_mutex_unlock(&cb->lock);
  /* CL_INVALID_OPERATION if command_buffer has been finalized. */
  RT_RETURN_IF(!recording, CL_INVALID_OPERATION);
  /* CL_INVALID_SYNC_POINT_WAIT_LIST_KHR if sync_point_wait_list is NULL
   * and num_sync_points_in_wait_list is > 0, or sync_point_wait_list is
   * not NULL and num_sync_points_in_wait_list is 0, or if
   * synchronization-point objects in sync_point_wait_list are not valid
   * synchronization-points (sync points are 1 + a command's index). */
  RT_RETURN_IF(!list != !num_sync, CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
  for (cl_uint i = 0; i < num_sync; i++)
    RT_RETURN_IF(list[i] == 0 || list[i] > num_cmds,
                 CL_INVALID_SYNC_POINT_WAIT_LIST_KHR);
  return CL_SUCCESS;
}

/* CL_INVALID_VALUE if values specified in properties are not valid (no
 * property is defined for commands other than kernels), or if
 * mutable_handle is not NULL (only kernel commands have handles). */
static cl_int check_plain(const skein_command_properties_khr *props,
                          cl_mutable_command_khr *mutable_handle) {
  RT_RETURN_IF(props && props[0], CL_INVALID_VALUE);
  RT_RETURN_IF(mutable_handle, CL_INVALID_VALUE);
  return CL_SUCCESS;
}

/* Ends the capture begun before an enqueue call that returned err and
 * appends the command it built (ev) to cb. cmd, if not NULL, is the
 * command to append (a kernel's, filled in), else one is made here. */
static cl_int record_end(cl_command_buffer_khr cb, cl_command_queue q,
                         cl_command_type type, cl_int err, cl_event ev,
                         struct _cl_mutable_command_khr *cmd,
                         cl_sync_point_khr *sync_point) {
  rt_command_capture(NULL);
  /* Defensive: an entry point that succeeded without building a command
   * would replay as nothing (kernel commands, which may wait for their
   * arguments, were checked by their caller). */
  if (err == CL_SUCCESS && !ev && !cmd && type != CL_COMMAND_BARRIER)
    err = CL_OUT_OF_RESOURCES;
  if (err != CL_SUCCESS) {
    if (ev)
      rt_event_release(ev);
    if (cmd)
      rt_cb_command_free(cmd);
    return err;
  }
  if (!cmd && !(cmd = rt_cb_command_new(cb, type, q))) {
    if (ev)
      rt_event_release(ev);
    return CL_OUT_OF_HOST_MEMORY;
  }
  if (ev)
    cmd->ev = ev;
  pthread_mutex_lock(&cb->lock);
  /* Finalized by another thread since check_record. */
  if (cb->state != CL_COMMAND_BUFFER_STATE_RECORDING_KHR)
    err = CL_INVALID_OPERATION;
  else if (!rt_cb_append_locked(cb, cmd, sync_point))
    err = CL_OUT_OF_HOST_MEMORY;
  pthread_mutex_unlock(&cb->lock);
  if (err != CL_SUCCESS)
    rt_cb_command_free(cmd);
  return err;
}

/* Starts a recording entry point that mirrors an enqueue: the shared and
 * plain checks, then the capture. */
#define RECORD_BEGIN(cb, queue, props, handle, num_sync, list, q)          \
  cl_command_queue q;                                                      \
  do {                                                                     \
    cl_int err_ = check_record(cb, queue, num_sync, list, &q);             \
    if (err_ == CL_SUCCESS)                                                \
      err_ = check_plain(props, handle);                                   \
    if (err_ != CL_SUCCESS)                                                \
      return err_;                                                         \
  } while (0);                                                             \
  cl_event captured_ = NULL;                                               \
  rt_command_capture(&captured_)

#define RECORD_END(cb, q, type, err, sync_point)                           \
  record_end(cb, q, type, err, captured_, NULL, sync_point)

cl_int CL_API_CALL skein_clCommandBarrierWithWaitListKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
    const skein_command_properties_khr *properties,
    cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list,
    cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  cl_command_queue q;
  cl_int err = check_record(command_buffer, command_queue,
                            num_sync_points_in_wait_list,
                            sync_point_wait_list, &q);
  if (err == CL_SUCCESS)
    err = check_plain(properties, mutable_handle);
  if (err != CL_SUCCESS)
    return err;
  /* Replays run the commands in recording order, one after another, so
   * a barrier already holds; it only takes a sync point. */
  rt_command_capture(NULL);
  return record_end(command_buffer, q, CL_COMMAND_BARRIER, CL_SUCCESS, NULL,
                    NULL, sync_point);
}

cl_int CL_API_CALL skein_clCommandCopyBufferKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
    const skein_command_properties_khr *properties, cl_mem src_buffer,
    cl_mem dst_buffer, size_t src_offset, size_t dst_offset, size_t size,
    cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list,
    cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  RECORD_BEGIN(command_buffer, command_queue, properties, mutable_handle,
               num_sync_points_in_wait_list, sync_point_wait_list, q);
  cl_int err = clEnqueueCopyBuffer(q, src_buffer, dst_buffer, src_offset,
                                   dst_offset, size, 0, NULL, NULL);
  return RECORD_END(command_buffer, q, CL_COMMAND_COPY_BUFFER, err,
                    sync_point);
}

cl_int CL_API_CALL skein_clCommandCopyBufferRectKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
    const skein_command_properties_khr *properties, cl_mem src_buffer,
    cl_mem dst_buffer, const size_t *src_origin, const size_t *dst_origin,
    const size_t *region, size_t src_row_pitch, size_t src_slice_pitch,
    size_t dst_row_pitch, size_t dst_slice_pitch,
    cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list,
    cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  RECORD_BEGIN(command_buffer, command_queue, properties, mutable_handle,
               num_sync_points_in_wait_list, sync_point_wait_list, q);
  cl_int err = clEnqueueCopyBufferRect(
      q, src_buffer, dst_buffer, src_origin, dst_origin, region,
      src_row_pitch, src_slice_pitch, dst_row_pitch, dst_slice_pitch, 0, NULL,
      NULL);
  return RECORD_END(command_buffer, q, CL_COMMAND_COPY_BUFFER_RECT, err,
                    sync_point);
}

cl_int CL_API_CALL skein_clCommandCopyBufferToImageKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
    const skein_command_properties_khr *properties, cl_mem src_buffer,
    cl_mem dst_image, size_t src_offset, const size_t *dst_origin,
    const size_t *region, cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list,
    cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  RECORD_BEGIN(command_buffer, command_queue, properties, mutable_handle,
               num_sync_points_in_wait_list, sync_point_wait_list, q);
  cl_int err = clEnqueueCopyBufferToImage(q, src_buffer, dst_image,
                                          src_offset, dst_origin, region, 0,
                                          NULL, NULL);
  return RECORD_END(command_buffer, q, CL_COMMAND_COPY_BUFFER_TO_IMAGE, err,
                    sync_point);
}

cl_int CL_API_CALL skein_clCommandCopyImageKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
    const skein_command_properties_khr *properties, cl_mem src_image,
    cl_mem dst_image, const size_t *src_origin, const size_t *dst_origin,
    const size_t *region, cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list,
    cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  RECORD_BEGIN(command_buffer, command_queue, properties, mutable_handle,
               num_sync_points_in_wait_list, sync_point_wait_list, q);
  cl_int err = clEnqueueCopyImage(q, src_image, dst_image, src_origin,
                                  dst_origin, region, 0, NULL, NULL);
  return RECORD_END(command_buffer, q, CL_COMMAND_COPY_IMAGE, err,
                    sync_point);
}

cl_int CL_API_CALL skein_clCommandCopyImageToBufferKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
    const skein_command_properties_khr *properties, cl_mem src_image,
    cl_mem dst_buffer, const size_t *src_origin, const size_t *region,
    size_t dst_offset, cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list,
    cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  RECORD_BEGIN(command_buffer, command_queue, properties, mutable_handle,
               num_sync_points_in_wait_list, sync_point_wait_list, q);
  cl_int err = clEnqueueCopyImageToBuffer(q, src_image, dst_buffer,
                                          src_origin, region, dst_offset, 0,
                                          NULL, NULL);
  return RECORD_END(command_buffer, q, CL_COMMAND_COPY_IMAGE_TO_BUFFER, err,
                    sync_point);
}

cl_int CL_API_CALL skein_clCommandFillBufferKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
    const skein_command_properties_khr *properties, cl_mem buffer,
    const void *pattern, size_t pattern_size, size_t offset, size_t size,
    cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list,
    cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  RECORD_BEGIN(command_buffer, command_queue, properties, mutable_handle,
               num_sync_points_in_wait_list, sync_point_wait_list, q);
  cl_int err = clEnqueueFillBuffer(q, buffer, pattern, pattern_size, offset,
                                   size, 0, NULL, NULL);
  return RECORD_END(command_buffer, q, CL_COMMAND_FILL_BUFFER, err,
                    sync_point);
}

cl_int CL_API_CALL skein_clCommandFillImageKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
    const skein_command_properties_khr *properties, cl_mem image,
    const void *fill_color, const size_t *origin, const size_t *region,
    cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list,
    cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  RECORD_BEGIN(command_buffer, command_queue, properties, mutable_handle,
               num_sync_points_in_wait_list, sync_point_wait_list, q);
  cl_int err = clEnqueueFillImage(q, image, fill_color, origin, region, 0,
                                  NULL, NULL);
  return RECORD_END(command_buffer, q, CL_COMMAND_FILL_IMAGE, err,
                    sync_point);
}

cl_int CL_API_CALL skein_clCommandSVMMemcpyKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
    const skein_command_properties_khr *properties, void *dst_ptr,
    const void *src_ptr, size_t size, cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list,
    cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  RECORD_BEGIN(command_buffer, command_queue, properties, mutable_handle,
               num_sync_points_in_wait_list, sync_point_wait_list, q);
  cl_int err = clEnqueueSVMMemcpy(q, CL_FALSE, dst_ptr, src_ptr, size, 0,
                                  NULL, NULL);
  return RECORD_END(command_buffer, q, CL_COMMAND_SVM_MEMCPY, err,
                    sync_point);
}

cl_int CL_API_CALL skein_clCommandSVMMemFillKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
    const skein_command_properties_khr *properties, void *svm_ptr,
    const void *pattern, size_t pattern_size, size_t size,
    cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list,
    cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  RECORD_BEGIN(command_buffer, command_queue, properties, mutable_handle,
               num_sync_points_in_wait_list, sync_point_wait_list, q);
  cl_int err = clEnqueueSVMMemFill(q, svm_ptr, pattern, pattern_size, size,
                                   0, NULL, NULL);
  return RECORD_END(command_buffer, q, CL_COMMAND_SVM_MEMFILL, err,
                    sync_point);
}

/* Captures the NDRange command of cmd's current geometry over kernel k
 * into *ev. CL_INVALID_KERNEL_ARGS (with *ev NULL) is not an error for a
 * command whose arguments may still be set by an update (the buffer
 * then stays Finalized until they are). */
static cl_int capture_kernel(const struct _cl_mutable_command_khr *cmd,
                             cl_kernel k, bool may_defer, cl_event *ev) {
  *ev = NULL;
  rt_command_capture(ev);
  cl_int err = clEnqueueNDRangeKernel(
      cmd->queue, k, cmd->work_dim, cmd->offset, cmd->global,
      cmd->local_given ? cmd->local : NULL, 0, NULL, NULL);
  rt_command_capture(NULL);
  if (err == CL_SUCCESS && !*ev)
    err = CL_OUT_OF_RESOURCES; /* defensive, as record_end */
  if (err != CL_SUCCESS && *ev) {
    rt_event_release(*ev);
    *ev = NULL;
  }
  if (err == CL_INVALID_KERNEL_ARGS && may_defer)
    err = CL_SUCCESS;
  return err;
}

cl_int CL_API_CALL skein_clCommandNDRangeKernelKHR(
    cl_command_buffer_khr command_buffer, cl_command_queue command_queue,
    const skein_command_properties_khr *properties, cl_kernel kernel,
    cl_uint work_dim, const size_t *global_work_offset,
    const size_t *global_work_size, const size_t *local_work_size,
    cl_uint num_sync_points_in_wait_list,
    const cl_sync_point_khr *sync_point_wait_list,
    cl_sync_point_khr *sync_point, cl_mutable_command_khr *mutable_handle) {
  cl_command_buffer_khr cb = command_buffer;
  cl_command_queue q;
  cl_int err = check_record(cb, command_queue, num_sync_points_in_wait_list,
                            sync_point_wait_list, &q);
  if (err != CL_SUCCESS)
    return err;
  /* CL_INVALID_VALUE if values specified in properties are not valid:
   * the mutable-dispatch properties, each once, with known bits. */
  static const cl_properties names[] = {CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR,
                                        CL_MUTABLE_DISPATCH_ASSERTS_KHR};
  static const cl_bitfield masks[] = {CB_DISPATCH_FIELDS, CB_ASSERTS};
  cl_bitfield values[2];
  size_t num_props;
  err = parse_props(properties, names, masks, 2, values, &num_props);
  if (err != CL_SUCCESS)
    return err;
  /* CL_INVALID_VALUE if command_buffer was created with, or properties
   * include, CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR and
   * local_work_size is NULL (the number of work-groups is then the
   * implementation's choice, which the assertion cannot bound). */
  cl_bitfield asserts = values[1];
  for (size_t i = 0; cb->props && cb->props[i]; i += 2)
    if (cb->props[i] == CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR)
      asserts |= cb->props[i + 1];
  if ((asserts & CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR) &&
      !local_work_size)
    return CL_INVALID_VALUE;
  /* Without CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR every field the
   * device reports (CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR: all) is
   * updatable. Arguments may be left unset only when the property names
   * them: otherwise CL_INVALID_KERNEL_ARGS stays the enqueue's. */
  bool fields_given = false;
  for (size_t i = 0; properties && properties[i]; i += 2)
    fields_given |= properties[i] == CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR;
  cl_bitfield updatable = fields_given ? values[0] : CB_DISPATCH_FIELDS;
  bool may_defer =
      fields_given && (values[0] & CL_MUTABLE_DISPATCH_ARGUMENTS_KHR);
  struct _cl_mutable_command_khr *cmd =
      rt_cb_command_new(cb, CL_COMMAND_NDRANGE_KERNEL, q);
  if (!cmd)
    return CL_OUT_OF_HOST_MEMORY;
  cmd->work_dim = work_dim;
  cmd->updatable = updatable;
  for (cl_uint i = 0; i < 3 && work_dim >= 1 && work_dim <= 3; i++) {
    bool in = i < work_dim;
    cmd->offset[i] = in && global_work_offset ? global_work_offset[i] : 0;
    cmd->global[i] = in && global_work_size ? global_work_size[i] : 0;
    cmd->local[i] = in && local_work_size ? local_work_size[i] : 0;
  }
  cmd->local_given = local_work_size != NULL;
  /* The enqueue's checks (kernel, context, geometry, arguments) and its
   * command; a global size array only if one was given (NULL: an empty
   * launch, as for clEnqueueNDRangeKernel). */
  cl_event ev = NULL;
  rt_command_capture(&ev);
  err = clEnqueueNDRangeKernel(q, kernel, work_dim, global_work_offset,
                               global_work_size, local_work_size, 0, NULL,
                               NULL);
  rt_command_capture(NULL);
  if (err == CL_INVALID_KERNEL_ARGS && may_defer)
    err = CL_SUCCESS;
  if (err == CL_SUCCESS && num_props &&
      !(cmd->props = malloc(sizeof *cmd->props * num_props)))
    err = CL_OUT_OF_HOST_MEMORY;
  if (err == CL_SUCCESS) {
    if (num_props)
      memcpy(cmd->props, properties, sizeof *cmd->props * num_props);
    cmd->num_props = num_props;
    rt_retain(kernel);
    cmd->kernel = kernel;
    /* A mutable buffer's command keeps its own copy of the arguments,
     * which updates change (the kernel object itself never is). */
    if ((cb->flags & CL_COMMAND_BUFFER_MUTABLE_KHR) &&
        !(cmd->args = rt_kernel_clone(kernel)))
      err = CL_OUT_OF_HOST_MEMORY;
  }
  if (err == CL_SUCCESS && ev == NULL && !may_defer)
    err = CL_OUT_OF_RESOURCES; /* defensive, as record_end */
  cl_sync_point_khr point;
  err = record_end(cb, q, CL_COMMAND_NDRANGE_KERNEL, err, ev, cmd, &point);
  if (err != CL_SUCCESS)
    return err;
  if (sync_point)
    *sync_point = point;
  if (mutable_handle)
    *mutable_handle = cmd;
  return CL_SUCCESS;
}

cl_int CL_API_CALL skein_clGetCommandBufferInfoKHR(
    cl_command_buffer_khr command_buffer,
    cl_command_buffer_info_khr param_name, size_t param_value_size,
    void *param_value, size_t *param_value_size_ret) {
  /* CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
   * command-buffer. */
  RT_RETURN_IF(!rt_is(command_buffer, RT_COMMAND_BUFFER),
               CL_INVALID_COMMAND_BUFFER_KHR);
  cl_command_buffer_khr cb = command_buffer;
  switch (param_name) {
  case CL_COMMAND_BUFFER_NUM_QUEUES_KHR:
    RT_INFO_VALUE(cl_uint, cb->num_queues);
  case CL_COMMAND_BUFFER_QUEUES_KHR:
    RT_INFO_ARRAY(cb->queues, cb->num_queues);
  case CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR:
    RT_INFO_VALUE(cl_uint, rt_refcount(cb));
  case CL_COMMAND_BUFFER_STATE_KHR: {
    pthread_mutex_lock(&cb->lock);
    cl_command_buffer_state_khr state = cb->state;
    pthread_mutex_unlock(&cb->lock);
    RT_INFO_VALUE(cl_command_buffer_state_khr, state);
  }
  case CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR:
    /* What the application gave; nothing if it gave NULL. */
    RT_INFO_ARRAY(cb->props, cb->num_props);
  case CL_COMMAND_BUFFER_CONTEXT_KHR:
    RT_INFO_VALUE(cl_context, cb->context);
  default:
    /* CL_INVALID_VALUE if param_name is not one of the supported
     * values. */
    RT_FAIL(CL_INVALID_VALUE);
  }
}

/* One mutable-dispatch update, prepared but not yet applied. */
typedef struct update {
  struct _cl_mutable_command_khr *cmd;
  cl_kernel args;                 /* the new argument copy, or NULL */
  struct _cl_mutable_command_khr geometry; /* new work_dim .. local_given */
  cl_event ev;                    /* the new command (NULL: args unset) */
} update;

/* True if every given dimension of c divides evenly. */
static bool uniform(const struct _cl_mutable_command_khr *c) {
  for (cl_uint i = 0; i < c->work_dim && i < 3; i++)
    if (c->local[i] && c->global[i] % c->local[i])
      return false;
  return true;
}

/* Prepares config cfg of cb into u: the new arguments on a fresh copy,
 * the new geometry, and the command they make, starting from prev (an
 * earlier update of the same command in this call) if not NULL. Nothing
 * of the command changes. */
static cl_int prepare_update(cl_command_buffer_khr cb,
                             const skein_mutable_dispatch_config_khr *cfg,
                             const update *prev, update *u) {
  struct _cl_mutable_command_khr *cmd = cfg->command;
  /* CL_INVALID_MUTABLE_COMMAND_KHR if command is not a valid mutable
   * command object returned from clCommandNDRangeKernelKHR, or created
   * from command_buffer. */
  RT_RETURN_IF(!rt_cb_is_command(cmd) || cmd->cb != cb ||
                   cmd->type != CL_COMMAND_NDRANGE_KERNEL || !cmd->args,
               CL_INVALID_MUTABLE_COMMAND_KHR);
  u->cmd = cmd;
  const struct _cl_mutable_command_khr *base = prev ? &prev->geometry : cmd;
  /* CL_INVALID_OPERATION if work_dim is not zero and different from the
   * work_dim set on command recording. */
  RT_RETURN_IF(cfg->work_dim && cfg->work_dim != cmd->work_dim,
               CL_INVALID_OPERATION);
  /* CL_INVALID_OPERATION if the field a value changes was not made
   * updatable (CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR) on recording. */
  cl_bitfield f = cmd->updatable;
  RT_RETURN_IF(cfg->global_work_offset &&
                   !(f & CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR),
               CL_INVALID_OPERATION);
  RT_RETURN_IF(cfg->global_work_size &&
                   !(f & CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR),
               CL_INVALID_OPERATION);
  RT_RETURN_IF(cfg->local_work_size &&
                   !(f & CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR),
               CL_INVALID_OPERATION);
  RT_RETURN_IF((cfg->num_args || cfg->num_svm_args) &&
                   !(f & CL_MUTABLE_DISPATCH_ARGUMENTS_KHR),
               CL_INVALID_OPERATION);
  RT_RETURN_IF(cfg->num_exec_infos && !(f & CL_MUTABLE_DISPATCH_EXEC_INFO_KHR),
               CL_INVALID_OPERATION);
  /* CL_INVALID_VALUE if a list is NULL and its count > 0, or not NULL
   * and its count is 0. */
  RT_RETURN_IF(!cfg->arg_list != !cfg->num_args, CL_INVALID_VALUE);
  RT_RETURN_IF(!cfg->arg_svm_list != !cfg->num_svm_args, CL_INVALID_VALUE);
  RT_RETURN_IF(!cfg->exec_info_list != !cfg->num_exec_infos,
               CL_INVALID_VALUE);
  /* The geometry after the update; CL_INVALID_OPERATION if the sizes
   * change the work-groups' uniformity. */
  u->geometry = *base;
  struct _cl_mutable_command_khr *g = &u->geometry;
  for (cl_uint i = 0; i < cmd->work_dim && i < 3; i++) {
    if (cfg->global_work_offset)
      g->offset[i] = cfg->global_work_offset[i];
    if (cfg->global_work_size)
      g->global[i] = cfg->global_work_size[i];
    if (cfg->local_work_size)
      g->local[i] = cfg->local_work_size[i];
  }
  g->local_given |= cfg->local_work_size != NULL;
  RT_RETURN_IF(g->local_given && uniform(base) != uniform(g),
               CL_INVALID_OPERATION);
  /* The arguments, on a copy: the errors of clSetKernelArg,
   * clSetKernelArgSVMPointer and clSetKernelExecInfo. */
  u->args = rt_kernel_clone(prev ? prev->args : cmd->args);
  if (!u->args)
    return CL_OUT_OF_HOST_MEMORY;
  cl_int err = CL_SUCCESS;
  for (cl_uint i = 0; i < cfg->num_args && err == CL_SUCCESS; i++)
    err = clSetKernelArg(u->args, cfg->arg_list[i].arg_index,
                         cfg->arg_list[i].arg_size,
                         cfg->arg_list[i].arg_value);
  for (cl_uint i = 0; i < cfg->num_svm_args && err == CL_SUCCESS; i++)
    err = clSetKernelArgSVMPointer(u->args, cfg->arg_svm_list[i].arg_index,
                                   cfg->arg_svm_list[i].arg_value);
  for (cl_uint i = 0; i < cfg->num_exec_infos && err == CL_SUCCESS; i++)
    err = clSetKernelExecInfo(u->args, cfg->exec_info_list[i].param_name,
                              cfg->exec_info_list[i].param_value_size,
                              cfg->exec_info_list[i].param_value);
  /* The errors of clEnqueueNDRangeKernel for the new geometry. */
  if (err == CL_SUCCESS)
    err = capture_kernel(g, u->args, f & CL_MUTABLE_DISPATCH_ARGUMENTS_KHR,
                         &u->ev);
  return err;
}

cl_int CL_API_CALL skein_clUpdateMutableCommandsKHR(
    cl_command_buffer_khr command_buffer, cl_uint num_configs,
    const skein_command_buffer_update_type_khr *config_types,
    const void **configs) {
  /* CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
   * command-buffer. */
  RT_RETURN_IF(!rt_is(command_buffer, RT_COMMAND_BUFFER),
               CL_INVALID_COMMAND_BUFFER_KHR);
  cl_command_buffer_khr cb = command_buffer;
  pthread_mutex_lock(&cb->lock);
  bool finalized = cb->state != CL_COMMAND_BUFFER_STATE_RECORDING_KHR;
  pthread_mutex_unlock(&cb->lock);
  /* CL_INVALID_OPERATION if command_buffer has not been finalized, or
   * was not created with the CL_COMMAND_BUFFER_MUTABLE_KHR flag. */
  RT_RETURN_IF(!finalized, CL_INVALID_OPERATION);
  RT_RETURN_IF(!(cb->flags & CL_COMMAND_BUFFER_MUTABLE_KHR),
               CL_INVALID_OPERATION);
  /* CL_INVALID_VALUE if config_types or configs is NULL and num_configs
   * > 0, or not NULL and num_configs is 0. */
  RT_RETURN_IF(!config_types != !num_configs, CL_INVALID_VALUE);
  RT_RETURN_IF(!configs != !num_configs, CL_INVALID_VALUE);
  for (cl_uint i = 0; i < num_configs; i++) {
    /* CL_INVALID_VALUE if any element of config_types is not a valid
     * cl_command_buffer_update_type_khr, or of configs is NULL. */
    RT_RETURN_IF(config_types[i] !=
                     SKEIN_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR,
                 CL_INVALID_VALUE);
    RT_RETURN_IF(!configs[i], CL_INVALID_VALUE);
  }
  if (!num_configs)
    return CL_SUCCESS;
  update *u = calloc(num_configs, sizeof *u);
  if (!u)
    return CL_OUT_OF_HOST_MEMORY;
  /* Every update is prepared before any is applied: on an error none is
   * kept. Updates of one command apply in order, each on the last. */
  cl_int err = CL_SUCCESS;
  cl_uint done = 0;
  pthread_mutex_lock(&cb->update_lock);
  for (; done < num_configs && err == CL_SUCCESS; done++) {
    const skein_mutable_dispatch_config_khr *cfg = configs[done];
    const update *prev = NULL;
    for (cl_uint j = 0; j < done; j++)
      if (u[j].cmd == cfg->command)
        prev = &u[j];
    err = prepare_update(cb, cfg, prev, &u[done]);
  }
  /* The new plan too: once a command has changed, nothing may fail (a
   * failed plan left the commands updated and the replays on the old
   * plan). The commands are fixed since finalizing. */
  rt_cb_plan *plan = NULL;
  if (err == CL_SUCCESS && !(plan = rt_cb_plan_alloc(cb->num_cmds)))
    err = CL_OUT_OF_HOST_MEMORY;
  if (err == CL_SUCCESS) {
    pthread_mutex_lock(&cb->lock);
    for (cl_uint i = 0; i < num_configs; i++) {
      struct _cl_mutable_command_khr *cmd = u[i].cmd;
      cl_kernel old_args = cmd->args;
      cl_event old_ev = cmd->ev;
      const struct _cl_mutable_command_khr *g = &u[i].geometry;
      memcpy(cmd->offset, g->offset, sizeof cmd->offset);
      memcpy(cmd->global, g->global, sizeof cmd->global);
      memcpy(cmd->local, g->local, sizeof cmd->local);
      cmd->local_given = g->local_given;
      cmd->args = u[i].args;
      cmd->ev = u[i].ev;
      u[i].args = old_args; /* released below */
      u[i].ev = old_ev;
    }
    /* Replays enqueued before keep the plan they hold. */
    rt_cb_plan_install_locked(cb, plan);
    pthread_mutex_unlock(&cb->lock);
  }
  pthread_mutex_unlock(&cb->update_lock);
  for (cl_uint i = 0; i < done; i++) {
    if (u[i].args)
      rt_kernel_release(u[i].args);
    if (u[i].ev)
      rt_event_release(u[i].ev);
  }
  free(u);
  return err;
}

cl_int CL_API_CALL skein_clGetMutableCommandInfoKHR(
    cl_mutable_command_khr command, cl_mutable_command_info_khr param_name,
    size_t param_value_size, void *param_value,
    size_t *param_value_size_ret) {
  /* CL_INVALID_MUTABLE_COMMAND_KHR if command is not a valid mutable
   * command object. */
  RT_RETURN_IF(!rt_cb_is_command(command), CL_INVALID_MUTABLE_COMMAND_KHR);
  struct _cl_mutable_command_khr *c = command;
  bool kernel = c->type == CL_COMMAND_NDRANGE_KERNEL;
  pthread_mutex_lock(&c->cb->lock);
  size_t offset[3], global[3], local[3];
  memcpy(offset, c->offset, sizeof offset);
  memcpy(global, c->global, sizeof global);
  memcpy(local, c->local, sizeof local);
  pthread_mutex_unlock(&c->cb->lock);
  size_t dims = kernel ? c->work_dim : 0;
  switch (param_name) {
  case CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR:
    RT_INFO_VALUE(cl_command_queue, c->queue);
  case CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR:
    RT_INFO_VALUE(cl_command_buffer_khr, c->cb);
  case CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR:
    RT_INFO_VALUE(cl_command_type, c->type);
  case CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR:
    RT_INFO_ARRAY(c->props, c->num_props);
  /* The dispatch queries return nothing for other commands. */
  case CL_MUTABLE_DISPATCH_KERNEL_KHR:
    RT_INFO_ARRAY(&c->kernel, kernel ? 1 : 0);
  case CL_MUTABLE_DISPATCH_DIMENSIONS_KHR:
    RT_INFO_ARRAY(&c->work_dim, kernel ? 1 : 0);
  case CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR:
    RT_INFO_ARRAY(offset, dims);
  case CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR:
    RT_INFO_ARRAY(global, dims);
  case CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR:
    RT_INFO_ARRAY(local, dims);
  default:
    /* CL_INVALID_VALUE if param_name is not one of the supported
     * values. */
    RT_FAIL(CL_INVALID_VALUE);
  }
}

/* A copy of command c for buffer to, recorded to queue q: the captured
 * command is shared (it does not depend on the queue), the argument
 * copy is copied. NULL if out of memory. */
static struct _cl_mutable_command_khr *
remap_command(const struct _cl_mutable_command_khr *c,
              cl_command_buffer_khr to, cl_command_queue q) {
  struct _cl_mutable_command_khr *n = rt_cb_command_new(to, c->type, q);
  if (!n)
    return NULL;
  *n = *c;
  n->cb = to;
  n->queue = q;
  n->props = NULL;
  n->args = NULL;
  n->kernel = NULL;
  n->ev = NULL;
  if (c->num_props && !(n->props = malloc(sizeof *n->props * c->num_props)))
    goto out_free;
  if (c->num_props)
    memcpy(n->props, c->props, sizeof *n->props * c->num_props);
  if (c->args && !(n->args = rt_kernel_clone(c->args)))
    goto out_free;
  if (c->kernel)
    rt_retain(n->kernel = c->kernel);
  if (c->ev)
    rt_retain(n->ev = c->ev);
  return n;
out_free:
  rt_cb_command_free(n);
  return NULL;
}

cl_command_buffer_khr CL_API_CALL skein_clRemapCommandBufferKHR(
    cl_command_buffer_khr command_buffer, cl_bool automatic,
    cl_uint num_queues, const cl_command_queue *queues, cl_uint num_handles,
    const cl_mutable_command_khr *handles, cl_mutable_command_khr *handles_ret,
    cl_int *errcode_ret) {
  /* CL_INVALID_COMMAND_BUFFER_KHR if command_buffer is not a valid
   * command-buffer. */
  RT_FAIL_IF(!rt_is(command_buffer, RT_COMMAND_BUFFER),
             CL_INVALID_COMMAND_BUFFER_KHR, errcode_ret);
  cl_command_buffer_khr cb = command_buffer;
  /* CL_INVALID_VALUE if num_queues is 0, or if queues is NULL. */
  RT_FAIL_IF(!num_queues || !queues, CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_OPERATION if the platform does not support
   * CL_COMMAND_BUFFER_PLATFORM_AUTOMATIC_REMAP_KHR and automatic is
   * CL_TRUE (Skein reports remapping by the application only). */
  RT_FAIL_IF(automatic, CL_INVALID_OPERATION, errcode_ret);
  /* CL_INVALID_VALUE if automatic is CL_FALSE and num_queues is not the
   * number of queues used on creation of command_buffer. */
  RT_FAIL_IF(num_queues != cb->num_queues, CL_INVALID_VALUE, errcode_ret);
  /* CL_INVALID_VALUE if handles or handles_ret is NULL and num_handles
   * is > 0, or either is not NULL and num_handles is 0. */
  RT_FAIL_IF(num_handles && (!handles || !handles_ret), CL_INVALID_VALUE,
             errcode_ret);
  RT_FAIL_IF(!num_handles && (handles || handles_ret), CL_INVALID_VALUE,
             errcode_ret);
  /* CL_INVALID_VALUE if any handle in handles is not a valid command
   * handle belonging to command_buffer. */
  for (cl_uint i = 0; i < num_handles; i++)
    RT_FAIL_IF(!rt_cb_is_command(handles[i]) || handles[i]->cb != cb,
               CL_INVALID_VALUE, errcode_ret);
  for (cl_uint i = 0; i < num_queues; i++) {
    /* CL_INVALID_COMMAND_QUEUE if any command-queue in queues is not a
     * valid command-queue. */
    RT_FAIL_IF(!rt_is(queues[i], RT_QUEUE), CL_INVALID_COMMAND_QUEUE,
               errcode_ret);
    /* CL_INVALID_CONTEXT if command_buffer and all the command-queues in
     * queues do not have the same OpenCL context. */
    RT_FAIL_IF(queues[i]->context != cb->context, CL_INVALID_CONTEXT,
               errcode_ret);
    /* A device-support error of recording: commands are built for the
     * device they were recorded for, and Skein remaps between queues of
     * that device only. */
    RT_FAIL_IF(queues[i]->device != cb->queues[i]->device,
               CL_INCOMPATIBLE_COMMAND_QUEUE_KHR, errcode_ret);
  }
  cl_command_buffer_khr to = rt_cb_create(num_queues, queues, cb->props,
                                          cb->num_props, cb->flags);
  RT_FAIL_IF(!to, CL_OUT_OF_HOST_MEMORY, errcode_ret);
  /* Captured commands are shared with the original, and so are the
   * replays' lock over them. */
  pthread_mutex_lock(&cb->lock);
  atomic_fetch_add(&cb->exec->refs, 1);
  rt_cb_exec *own = to->exec;
  to->exec = cb->exec;
  pthread_mutex_destroy(&own->lock);
  free(own);
  cl_int err = CL_SUCCESS;
  for (unsigned i = 0; i < cb->num_cmds && err == CL_SUCCESS; i++) {
    const struct _cl_mutable_command_khr *c = cb->cmds[i];
    cl_uint qi = 0;
    while (qi + 1 < cb->num_queues && cb->queues[qi] != c->queue)
      qi++;
    struct _cl_mutable_command_khr *n = remap_command(c, to, queues[qi]);
    if (!n || !rt_cb_append_locked(to, n, NULL)) {
      if (n)
        rt_cb_command_free(n);
      err = CL_OUT_OF_HOST_MEMORY;
    }
  }
  if (err == CL_SUCCESS && cb->state != CL_COMMAND_BUFFER_STATE_RECORDING_KHR)
    err = rt_cb_replan_locked(to);
  /* The same index in both buffers is the same command. Under cb's lock:
   * another thread may be recording into cb, growing its array. */
  for (cl_uint i = 0; i < num_handles && err == CL_SUCCESS; i++)
    for (unsigned j = 0; j < to->num_cmds; j++)
      if (cb->cmds[j] == handles[i])
        handles_ret[i] = to->cmds[j];
  pthread_mutex_unlock(&cb->lock);
  if (err != CL_SUCCESS) {
    rt_cb_release(to);
    RT_FAIL_IF(true, err, errcode_ret);
  }
  if (errcode_ret)
    *errcode_ret = CL_SUCCESS;
  return to;
}

cl_int rt_cb_device_info(cl_device_id dev, cl_device_info param_name,
                         size_t param_value_size, void *param_value,
                         size_t *param_value_size_ret) {
  switch (param_name) {
  case CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR:
    /* Replays run kernels through the enqueue's own command, so printf
     * and device-side enqueue work in them; replays of one buffer may
     * overlap (each holds its plan); commands may go to several queues
     * of the device. */
    RT_INFO_VALUE(cl_bitfield,
                  CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR |
                      CL_COMMAND_BUFFER_CAPABILITY_DEVICE_SIDE_ENQUEUE_KHR |
                      CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR |
                      CL_COMMAND_BUFFER_CAPABILITY_MULTIPLE_QUEUE_KHR);
  case CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR:
    RT_INFO_VALUE(cl_command_queue_properties, CB_QUEUE_PROPERTIES);
  case CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR:
    RT_INFO_VALUE(cl_command_queue_properties, 0);
  case CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR:
    RT_INFO_VALUE(cl_bitfield, CB_DISPATCH_FIELDS);
  /* Device-side sync with itself only; other devices of the platform
   * synchronise through the host (CL_COMMAND_BUFFER_PLATFORM_UNIVERSAL_
   * SYNC_KHR). */
  case CL_DEVICE_COMMAND_BUFFER_NUM_SYNC_DEVICES_KHR:
    RT_INFO_VALUE(cl_uint, 1);
  case CL_DEVICE_COMMAND_BUFFER_SYNC_DEVICES_KHR:
    RT_INFO_VALUE(cl_device_id, dev);
  default:
    return 1; /* not a command-buffer query */
  }
}
