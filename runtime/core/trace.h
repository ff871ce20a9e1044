/* This file declares the timeline trace: SKEIN_TRACE=<file> writes every
 * command (queued, submitted, started, ended, on its queue's track), the
 * workers' work-group spans of each NDRange and program builds as a
 * Chrome/Perfetto JSON trace (docs/debugging.md). With the variable unset
 * every trace point is one test of rt_trace_on. */
#ifndef SKEIN_RUNTIME_TRACE_H
#define SKEIN_RUNTIME_TRACE_H

#include "object.h"
#include <stdbool.h>
#include <stdint.h>

/* True when SKEIN_TRACE named a file that could be opened; set once when
 * the library is loaded, never changed after. */
extern bool rt_trace_on;

/* A fresh nonzero id for a command (the "id" of its trace records). */
uint64_t rt_trace_next_id(void);

/* Gives queue q a track of its own (call when q is created; a queue
 * created later at the same address gets a new track). */
void rt_trace_queue_new(cl_command_queue q);

/* Records command ev, which has just reached its final status; ev's lock
 * may be held. Frees ev->trace_name. */
void rt_trace_command(cl_event ev, cl_int status);

/* Records a program build (what: "clBuildProgram", "clCompileProgram",
 * "clLinkProgram") on the calling thread's track, from t0 (rt_now_ns) to
 * now; kernels: the ';'-separated kernel names, or NULL. */
void rt_trace_build(const char *what, uint64_t t0, cl_int status,
                    const char *kernels);

/* Writes every thread's buffered records to the file, which is a
 * complete JSON document after each flush. Thread-safe. */
void rt_trace_flush(void);

#endif
