/* This file contains the event entry points: waiting, info and profiling
 * queries, user events, callbacks, and the marker/barrier commands. */
#include "../core/context.h"
#include "../core/event.h"
#include "../core/info.h"
#include "../core/queue.h"
#include <stdlib.h>

cl_int CL_API_CALL clWaitForEvents(cl_uint num_events,
                                   const cl_event *event_list) {
  /* CL_INVALID_VALUE if num_events is zero or event_list is NULL. */
  RT_RETURN_IF(num_events == 0 || !event_list, CL_INVALID_VALUE);
  for (cl_uint i = 0; i < num_events; i++) {
    /* CL_INVALID_EVENT if event objects specified in event_list are not
     * valid event objects. */
    RT_RETURN_IF(!rt_is(event_list[i], RT_EVENT), CL_INVALID_EVENT);
    /* CL_INVALID_CONTEXT if events specified in event_list do not belong
     * to the same context. */
    RT_RETURN_IF(event_list[i]->context != event_list[0]->context,
                 CL_INVALID_CONTEXT);
  }
  cl_int result = CL_SUCCESS;
  for (cl_uint i = 0; i < num_events; i++)
    /* CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST if the execution
     * status of any of the events in event_list is a negative value. */
    if (rt_event_wait(event_list[i]) < 0)
      result = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  return result;
}

cl_int CL_API_CALL clGetEventInfo(cl_event event, cl_event_info param_name,
                                  size_t param_value_size, void *param_value,
                                  size_t *param_value_size_ret) {
  RT_RETURN_IF(!rt_is(event, RT_EVENT), CL_INVALID_EVENT);
  switch (param_name) {
  case CL_EVENT_COMMAND_QUEUE:
    RT_INFO_VALUE(cl_command_queue, event->queue);
  case CL_EVENT_CONTEXT:
    RT_INFO_VALUE(cl_context, event->context);
  case CL_EVENT_COMMAND_TYPE:
    RT_INFO_VALUE(cl_command_type, event->command_type);
  case CL_EVENT_COMMAND_EXECUTION_STATUS: {
    /* Applications poll this in a loop: make sure the commands it waits
     * for are being run (an implicit flush). */
    rt_executor_flush();
    cl_int status = atomic_load(&event->status);
    RT_INFO_VALUE(cl_int, status);
  }
  case CL_EVENT_REFERENCE_COUNT:
    RT_INFO_VALUE(cl_uint, rt_refcount(event));
  default:
    RT_FAIL(CL_INVALID_VALUE);
  }
}

cl_int CL_API_CALL clGetEventProfilingInfo(cl_event event,
                                           cl_profiling_info param_name,
                                           size_t param_value_size,
                                           void *param_value,
                                           size_t *param_value_size_ret) {
  RT_RETURN_IF(!rt_is(event, RT_EVENT), CL_INVALID_EVENT);
  /* CL_PROFILING_INFO_NOT_AVAILABLE if the CL_QUEUE_PROFILING_ENABLE flag
   * is not set for the command-queue, if the execution status of the
   * command identified by event is not CL_COMPLETE or if event is a user
   * event object. */
  RT_RETURN_IF(!event->queue, CL_PROFILING_INFO_NOT_AVAILABLE);
  RT_RETURN_IF(!(event->queue->properties & CL_QUEUE_PROFILING_ENABLE),
               CL_PROFILING_INFO_NOT_AVAILABLE);
  pthread_mutex_lock(&event->lock);
  cl_int status = event->status;
  cl_ulong t[4] = {event->t_queued, event->t_submit, event->t_start,
                   event->t_end};
  pthread_mutex_unlock(&event->lock);
  RT_RETURN_IF(status != CL_COMPLETE, CL_PROFILING_INFO_NOT_AVAILABLE);
  switch (param_name) {
  case CL_PROFILING_COMMAND_QUEUED:
    RT_INFO_VALUE(cl_ulong, t[0]);
  case CL_PROFILING_COMMAND_SUBMIT:
    RT_INFO_VALUE(cl_ulong, t[1]);
  case CL_PROFILING_COMMAND_START:
    RT_INFO_VALUE(cl_ulong, t[2]);
  case CL_PROFILING_COMMAND_END:
  case CL_PROFILING_COMMAND_COMPLETE: /* no child commands */
    RT_INFO_VALUE(cl_ulong, t[3]);
  default:
    RT_FAIL(CL_INVALID_VALUE);
  }
}

cl_int CL_API_CALL clRetainEvent(cl_event event) {
  RT_RETURN_IF(!rt_is(event, RT_EVENT), CL_INVALID_EVENT);
  rt_retain(event);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clReleaseEvent(cl_event event) {
  RT_RETURN_IF(!rt_is(event, RT_EVENT), CL_INVALID_EVENT);
  rt_event_release(event);
  return CL_SUCCESS;
}

cl_event CL_API_CALL clCreateUserEvent(cl_context context,
                                       cl_int *errcode_ret) {
  RT_FAIL_IF(!rt_is(context, RT_CONTEXT), CL_INVALID_CONTEXT, errcode_ret);
  cl_int err;
  cl_event ev = rt_user_event_create(context, &err);
  if (errcode_ret)
    *errcode_ret = err;
  return ev;
}

cl_int CL_API_CALL clSetUserEventStatus(cl_event event,
                                        cl_int execution_status) {
  /* CL_INVALID_EVENT if event is not a valid user event object. */
  RT_RETURN_IF(!rt_is(event, RT_EVENT) ||
                   event->command_type != CL_COMMAND_USER,
               CL_INVALID_EVENT);
  /* CL_INVALID_VALUE if the execution_status is not CL_COMPLETE or a
   * negative integer value. */
  RT_RETURN_IF(execution_status > 0, CL_INVALID_VALUE);
  /* CL_INVALID_OPERATION if the execution_status for event has already
   * been changed by a previous call to clSetUserEventStatus (checked and
   * set under the event's lock: of two racing calls, one fails). */
  RT_RETURN_IF(!rt_event_set_status(event, execution_status),
               CL_INVALID_OPERATION);
  rt_executor_flush(); /* start what the event held back now */
  return CL_SUCCESS;
}

cl_int CL_API_CALL clSetEventCallback(
    cl_event event, cl_int command_exec_callback_type,
    void(CL_CALLBACK *pfn_notify)(cl_event, cl_int, void *),
    void *user_data) {
  RT_RETURN_IF(!rt_is(event, RT_EVENT), CL_INVALID_EVENT);
  /* CL_INVALID_VALUE if pfn_event_notify is NULL or if
   * command_exec_callback_type is not CL_SUBMITTED, CL_RUNNING or
   * CL_COMPLETE. */
  RT_RETURN_IF(!pfn_notify, CL_INVALID_VALUE);
  RT_RETURN_IF(command_exec_callback_type != CL_SUBMITTED &&
                   command_exec_callback_type != CL_RUNNING &&
                   command_exec_callback_type != CL_COMPLETE,
               CL_INVALID_VALUE);
  rt_event_callback *cb = calloc(1, sizeof *cb);
  RT_RETURN_IF(!cb, CL_OUT_OF_HOST_MEMORY);
  cb->fn = pfn_notify;
  cb->user_data = user_data;
  cb->trigger = command_exec_callback_type;
  pthread_mutex_lock(&event->lock);
  /* Appended, so callbacks run in registration order. */
  rt_event_callback **tail = &event->callbacks;
  while (*tail)
    tail = &(*tail)->next;
  *tail = cb;
  bool reached = event->status <= command_exec_callback_type;
  cl_int status = event->status;
  if (reached)
    cb->fired = true;
  pthread_mutex_unlock(&event->lock);
  /* A status already reached calls back at once. */
  if (reached)
    pfn_notify(event, status < 0 ? status : command_exec_callback_type,
               user_data);
  else
    rt_executor_flush(); /* the application may now wait for the call */
  return CL_SUCCESS;
}

/* Enqueues a marker or barrier: a command that does nothing but wait. */
static cl_int enqueue_sync(cl_command_queue q, cl_command_type type,
                           bool blocks_later, cl_uint num_events,
                           const cl_event *wait_list, cl_event *event) {
  RT_RETURN_IF(!rt_is(q, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  cl_int err;
  cl_event ev = rt_command_create(q, type, num_events, wait_list, &err);
  if (!ev)
    return err;
  ev->wait_all = true;
  ev->blocks_later = blocks_later;
  return rt_command_submit(ev, false, event);
}

cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue q,
                                               cl_uint num_events,
                                               const cl_event *wait_list,
                                               cl_event *event) {
  return enqueue_sync(q, CL_COMMAND_MARKER, false, num_events, wait_list,
                      event);
}

cl_int CL_API_CALL clEnqueueBarrierWithWaitList(cl_command_queue q,
                                                cl_uint num_events,
                                                const cl_event *wait_list,
                                                cl_event *event) {
  return enqueue_sync(q, CL_COMMAND_BARRIER, true, num_events, wait_list,
                      event);
}

cl_int CL_API_CALL clEnqueueMarker(cl_command_queue q, cl_event *event) {
  /* CL_INVALID_VALUE if event is NULL (OpenCL 1.1 marker). */
  RT_RETURN_IF(rt_is(q, RT_QUEUE) && !event, CL_INVALID_VALUE);
  return enqueue_sync(q, CL_COMMAND_MARKER, false, 0, NULL, event);
}

cl_int CL_API_CALL clEnqueueBarrier(cl_command_queue q) {
  return enqueue_sync(q, CL_COMMAND_BARRIER, true, 0, NULL, NULL);
}

cl_int CL_API_CALL clEnqueueWaitForEvents(cl_command_queue q,
                                          cl_uint num_events,
                                          const cl_event *event_list) {
  RT_RETURN_IF(!rt_is(q, RT_QUEUE), CL_INVALID_COMMAND_QUEUE);
  /* CL_INVALID_VALUE if num_events is zero or event_list is NULL. */
  RT_RETURN_IF(num_events == 0 || !event_list, CL_INVALID_VALUE);
  for (cl_uint i = 0; i < num_events; i++)
    RT_RETURN_IF(!rt_is(event_list[i], RT_EVENT), CL_INVALID_EVENT);
  return enqueue_sync(q, CL_COMMAND_BARRIER, true, num_events, event_list,
                      NULL);
}
