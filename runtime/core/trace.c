/* This file contains the timeline trace (SKEIN_TRACE=<file>): records in
 * Chrome's JSON trace-event format, which Perfetto and chrome://tracing
 * open. Each thread appends to a buffer of its own; a full buffer, a
 * thread's exit, clReleaseContext and process exit write buffers to the
 * file, which is kept a complete JSON document after every write (the
 * closing "]}" is rewritten after the last record).
 *
 * Tracks: commands on one track per queue (process "Skein command
 * queues", thread id = queue number), work-group chunks and builds on the
 * track of the thread that ran them (the real process and thread ids).
 *
 * Locks: a thread buffer's lock guards its bytes (taken by its owner per
 * record and by flushers); file_lock guards the file, the buffer list
 * and the queue table. file_lock is taken before a buffer's lock, never
 * while holding one (a thread whose buffer is full lets go of it first). */
#define _GNU_SOURCE   /* pthread_getname_np */
#include "trace.h"
#include "event.h"
#include "platform.h"
#include "queue.h"
#include "../../scheduler/scheduler.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

bool rt_trace_on;

enum { BUF_SIZE = 64 * 1024, RECORD_MAX = 1024 };
#define QUEUE_PID 1  /* the pseudo-process that holds the queue tracks */

typedef struct tbuf {
  pthread_mutex_t lock;
  size_t len;
  struct tbuf *next;          /* file_lock */
  char data[BUF_SIZE];
} tbuf;

static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1;
static off_t file_pos;        /* where the next bytes go (before "]}") */
static tbuf *buffers;         /* every live thread's buffer */
static pthread_key_t buf_key; /* flushes and frees a thread's buffer */
static cl_ulong origin;       /* rt_now_ns at load: time 0 of the trace */
static _Atomic uint64_t next_id;
static int pid;

/* Queue tracks: queue address -> track number (file_lock). */
static struct { const void *q; unsigned id; } *queues;
static unsigned num_queues, cap_queues, next_queue;

uint64_t rt_trace_next_id(void) { return atomic_fetch_add(&next_id, 1) + 1; }

/* Appends n bytes at the file's end and rewrites the closer after them;
 * file_lock held. A failed write stops the trace rather than the app. */
static void file_append(const char *s, size_t n) {
  static const char closer[] = "\n]}\n";
  if (fd < 0)
    return;
  if (pwrite(fd, s, n, file_pos) != (ssize_t)n ||
      pwrite(fd, closer, sizeof closer - 1, file_pos + n) !=
          (ssize_t)(sizeof closer - 1)) {
    close(fd);
    fd = -1;
    return;
  }
  file_pos += n;
}

/* Writes b's records to the file; file_lock and b's lock held. */
static void buf_write_locked(tbuf *b) {
  file_append(b->data, b->len);
  b->len = 0;
}

/* pthread key destructor: the thread is exiting. */
static void buf_exit(void *p) {
  tbuf *b = p;
  pthread_mutex_lock(&file_lock);
  pthread_mutex_lock(&b->lock);
  buf_write_locked(b);
  for (tbuf **at = &buffers; *at; at = &(*at)->next)
    if (*at == b) {
      *at = b->next;
      break;
    }
  pthread_mutex_unlock(&b->lock);
  pthread_mutex_unlock(&file_lock);
  pthread_mutex_destroy(&b->lock);
  free(b);
}

/* Formats a JSON string body (no quotes) of s into out[cap]: identifiers
 * pass unchanged; quotes, backslashes and control bytes are escaped. */
static void json_escape(char *out, size_t cap, const char *s) {
  size_t n = 0;
  for (; s && *s && n + 7 < cap; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      n += (size_t)snprintf(out + n, cap - n, "\\%c", c);
    else if (c < 0x20)
      n += (size_t)snprintf(out + n, cap - n, "\\u%04x", c);
    else
      out[n++] = (char)c;
  }
  out[n] = '\0';
}

static pid_t my_tid(void) { return (pid_t)syscall(SYS_gettid); }

/* Appends one record (",\n" then the text) to the calling thread's
 * buffer, creating it (and its track's name) on first use. */
static void emit(const char *rec, size_t n);

static tbuf *my_buffer(void) {
  tbuf *b = pthread_getspecific(buf_key);
  if (b)
    return b;
  if (!(b = malloc(sizeof *b)))
    return NULL;
  pthread_mutex_init(&b->lock, NULL);
  b->len = 0;
  pthread_setspecific(buf_key, b);
  pthread_mutex_lock(&file_lock);
  b->next = buffers;
  buffers = b;
  pthread_mutex_unlock(&file_lock);
  /* The track's name: the thread's own name and id. */
  char name[32] = "", esc[80], rec[256];
  pthread_getname_np(pthread_self(), name, sizeof name);
  json_escape(esc, sizeof esc, name);
  int len = snprintf(rec, sizeof rec,
                     "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":"
                     "\"thread_name\",\"args\":{\"name\":\"%s %d\"}}",
                     pid, (int)my_tid(), esc, (int)my_tid());
  emit(rec, (size_t)len);
  return b;
}

static void emit(const char *rec, size_t n) {
  tbuf *b = my_buffer();
  if (!b || n + 2 > BUF_SIZE)
    return;
  pthread_mutex_lock(&b->lock);
  if (b->len + n + 2 > BUF_SIZE) {
    /* file_lock comes first (see the top of the file). */
    pthread_mutex_unlock(&b->lock);
    pthread_mutex_lock(&file_lock);
    pthread_mutex_lock(&b->lock);
    buf_write_locked(b);
    pthread_mutex_unlock(&file_lock);
  }
  memcpy(b->data + b->len, ",\n", 2);
  memcpy(b->data + b->len + 2, rec, n);
  b->len += n + 2;
  pthread_mutex_unlock(&b->lock);
}

/* Microseconds since the trace's origin, as "%llu.%03llu". */
#define US_FMT "%llu.%03llu"
#define US(t) (unsigned long long)(((t) - origin) / 1000), \
              (unsigned long long)(((t) - origin) % 1000)

/* The queue's track number (file_lock held); fresh forces a new one. */
static unsigned queue_id_locked(const void *q, bool fresh, bool *created) {
  *created = false;
  for (unsigned i = 0; i < num_queues; i++)
    if (queues[i].q == q) {
      if (fresh) {
        queues[i].id = ++next_queue;
        *created = true;
      }
      return queues[i].id;
    }
  if (num_queues == cap_queues) {
    unsigned cap = cap_queues ? 2 * cap_queues : 16;
    void *grown = realloc(queues, cap * sizeof *queues);
    if (!grown)
      return 0;
    queues = grown;
    cap_queues = cap;
  }
  queues[num_queues].q = q;
  queues[num_queues].id = ++next_queue;
  *created = true;
  return queues[num_queues++].id;
}

/* q's track number, naming the track when it is new. */
static unsigned queue_track(cl_command_queue q, bool fresh) {
  bool created;
  pthread_mutex_lock(&file_lock);
  unsigned id = queue_id_locked(q, fresh, &created);
  pthread_mutex_unlock(&file_lock);
  if (created) {
    char rec[256];
    int n = snprintf(rec, sizeof rec,
                     "{\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"name\":"
                     "\"thread_name\",\"args\":{\"name\":\"queue %u "
                     "(%s)\"}}",
                     QUEUE_PID, id, id,
                     rt_queue_in_order(q) ? "in order" : "out of order");
    emit(rec, (size_t)n);
  }
  return id;
}

void rt_trace_queue_new(cl_command_queue q) {
  if (rt_trace_on)
    queue_track(q, true);
}

/* The command type's name in the trace (the CL_COMMAND_ suffix). */
static const char *command_name(cl_command_type t) {
  static const struct { cl_command_type type; const char *name; } names[] = {
    {CL_COMMAND_NDRANGE_KERNEL, "NDRangeKernel"},
    {CL_COMMAND_TASK, "Task"},
    {CL_COMMAND_NATIVE_KERNEL, "NativeKernel"},
    {CL_COMMAND_READ_BUFFER, "ReadBuffer"},
    {CL_COMMAND_WRITE_BUFFER, "WriteBuffer"},
    {CL_COMMAND_COPY_BUFFER, "CopyBuffer"},
    {CL_COMMAND_READ_IMAGE, "ReadImage"},
    {CL_COMMAND_WRITE_IMAGE, "WriteImage"},
    {CL_COMMAND_COPY_IMAGE, "CopyImage"},
    {CL_COMMAND_COPY_IMAGE_TO_BUFFER, "CopyImageToBuffer"},
    {CL_COMMAND_COPY_BUFFER_TO_IMAGE, "CopyBufferToImage"},
    {CL_COMMAND_MAP_BUFFER, "MapBuffer"},
    {CL_COMMAND_MAP_IMAGE, "MapImage"},
    {CL_COMMAND_UNMAP_MEM_OBJECT, "UnmapMemObject"},
    {CL_COMMAND_MARKER, "Marker"},
    {CL_COMMAND_READ_BUFFER_RECT, "ReadBufferRect"},
    {CL_COMMAND_WRITE_BUFFER_RECT, "WriteBufferRect"},
    {CL_COMMAND_COPY_BUFFER_RECT, "CopyBufferRect"},
    {CL_COMMAND_BARRIER, "Barrier"},
    {CL_COMMAND_MIGRATE_MEM_OBJECTS, "MigrateMemObjects"},
    {CL_COMMAND_FILL_BUFFER, "FillBuffer"},
    {CL_COMMAND_FILL_IMAGE, "FillImage"},
    {CL_COMMAND_SVM_FREE, "SVMFree"},
    {CL_COMMAND_SVM_MEMCPY, "SVMMemcpy"},
    {CL_COMMAND_SVM_MEMFILL, "SVMMemFill"},
    {CL_COMMAND_SVM_MAP, "SVMMap"},
    {CL_COMMAND_SVM_UNMAP, "SVMUnmap"},
    {CL_COMMAND_SVM_MIGRATE_MEM, "SVMMigrateMem"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].type == t)
      return names[i].name;
  return "Command";
}

/* Relative ns of a stamp, or 0 for one that was never taken. */
static unsigned long long rel(cl_ulong t) {
  return t > origin ? (unsigned long long)(t - origin) : 0;
}

void rt_trace_command(cl_event ev, cl_int status) {
  unsigned track = queue_track(ev->queue, false);
  const char *type = command_name(ev->command_type);
  char name[128], rec[RECORD_MAX];
  json_escape(name, sizeof name, ev->trace_name ? ev->trace_name : type);
  cl_ulong start = ev->t_start > origin ? ev->t_start : origin;
  cl_ulong end = ev->t_end > start ? ev->t_end : start;
  int n = snprintf(
      rec, sizeof rec,
      "{\"ph\":\"X\",\"cat\":\"command\",\"pid\":%d,\"tid\":%u,\"name\":"
      "\"%s\",\"ts\":" US_FMT ",\"dur\":%llu.%03llu,\"args\":{\"id\":%llu,"
      "\"type\":\"%s\",\"status\":%d,\"queued_ns\":%llu,\"submitted_ns\":"
      "%llu,\"started_ns\":%llu,\"ended_ns\":%llu}}",
      QUEUE_PID, track, name, US(start),
      (unsigned long long)((end - start) / 1000),
      (unsigned long long)((end - start) % 1000),
      (unsigned long long)ev->trace_id, type, (int)status,
      rel(ev->t_queued), rel(ev->t_submit), rel(ev->t_start),
      rel(ev->t_end));
  emit(rec, (size_t)n);
  free(ev->trace_name);
  ev->trace_name = NULL;
}

/* The scheduler's hook: one chunk of work-groups run by this thread. */
static void trace_chunk(uint64_t id, const char *kernel, uint64_t first,
                        uint64_t count, uint64_t t0, uint64_t t1) {
  char name[128], rec[RECORD_MAX];
  json_escape(name, sizeof name, kernel ? kernel : "groups");
  if (t0 < origin)
    t0 = origin;
  if (t1 < t0)
    t1 = t0;
  int n = snprintf(
      rec, sizeof rec,
      "{\"ph\":\"X\",\"cat\":\"work-groups\",\"pid\":%d,\"tid\":%d,"
      "\"name\":\"%s\",\"ts\":" US_FMT ",\"dur\":%llu.%03llu,\"args\":{"
      "\"id\":%llu,\"first_group\":%llu,\"groups\":%llu}}",
      pid, (int)my_tid(), name, US(t0),
      (unsigned long long)((t1 - t0) / 1000),
      (unsigned long long)((t1 - t0) % 1000), (unsigned long long)id,
      (unsigned long long)first, (unsigned long long)count);
  emit(rec, (size_t)n);
}

void rt_trace_build(const char *what, uint64_t t0, cl_int status,
                    const char *kernels) {
  if (!rt_trace_on)
    return;
  uint64_t t1 = rt_now_ns();
  if (t0 < origin)
    t0 = origin;
  char names[512], rec[RECORD_MAX];
  json_escape(names, sizeof names, kernels ? kernels : "");
  int n = snprintf(
      rec, sizeof rec,
      "{\"ph\":\"X\",\"cat\":\"build\",\"pid\":%d,\"tid\":%d,\"name\":"
      "\"%s\",\"ts\":" US_FMT ",\"dur\":%llu.%03llu,\"args\":{\"status\":"
      "%d,\"kernels\":\"%s\"}}",
      pid, (int)my_tid(), what, US(t0),
      (unsigned long long)((t1 - t0) / 1000),
      (unsigned long long)((t1 - t0) % 1000), (int)status, names);
  emit(rec, (size_t)n);
}

void rt_trace_flush(void) {
  if (!rt_trace_on)
    return;
  pthread_mutex_lock(&file_lock);
  for (tbuf *b = buffers; b; b = b->next) {
    pthread_mutex_lock(&b->lock);
    buf_write_locked(b);
    pthread_mutex_unlock(&b->lock);
  }
  pthread_mutex_unlock(&file_lock);
}

static void trace_exit(void) {
  rt_trace_flush();
  pthread_mutex_lock(&file_lock);
  if (fd >= 0)
    close(fd);
  fd = -1;
  pthread_mutex_unlock(&file_lock);
}

/* SKEIN_TRACE is read once, when the loader loads the library. */
__attribute__((constructor)) static void trace_init(void) {
  const char *path = getenv("SKEIN_TRACE");
  if (!path || !*path)
    return;
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    fprintf(stderr, "skein: SKEIN_TRACE: cannot open %s\n", path);
    return;
  }
  if (pthread_key_create(&buf_key, buf_exit) != 0) {
    close(fd);
    fd = -1;
    return;
  }
  pid = (int)getpid();
  origin = rt_now_ns();
  char head[256];
  int n = snprintf(head, sizeof head,
                   "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
                   "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\","
                   "\"args\":{\"name\":\"Skein command queues\"}},\n"
                   "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\","
                   "\"args\":{\"name\":\"Skein threads\"}}",
                   QUEUE_PID, pid);
  file_append(head, (size_t)n);
  sched_set_trace_hook(trace_chunk);
  atexit(trace_exit);
  rt_trace_on = true;
}
