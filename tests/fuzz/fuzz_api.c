/* This file contains the API-sequence fuzz target: the input is decoded
 * into a sequence of up to 64 calls on small handle tables (contexts,
 * queues, buffers and sub-buffers, kernels, events, mappings, and the
 * fixed programs): create, retain and release; clSetKernelArg with
 * random indices, sizes and values; NDRange launches with random
 * geometry; reads, writes, copies,
 * fills, rectangles, maps and migrations with random offsets and sizes;
 * wait lists, user events, markers, barriers and callbacks; info
 * queries. Every call must succeed or return a code the OpenCL 3.0 API
 * spec lists for that entry point, and some must fail (a range past a
 * buffer's end, an argument index past the last). Everything is
 * released at the end of each input, and every callback registered must
 * have been called by then.
 *
 * Host memory is always real: host pointers point into an arena or a
 * buffer's own host block large enough for any call the spec lets
 * succeed, and argument values point to at least arg_size bytes. Handles
 * are live objects (a handle of the wrong kind is a live object of
 * another kind), never freed ones. Kernels are a fixed set built once
 * (at the first input), bounds-checked (-skein-bounds-check), so no
 * geometry or buffer size makes them touch memory outside their
 * buffers. Blocking calls become
 * non-blocking (clFinish, clWaitForEvents are skipped) while a user
 * event is unset: they could wait for ever, as the spec allows. */
#include "fuzz.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NCTX = 2, NQ = 4, NMEM = 8, NKERN = 4, NEV = 12, NMAP = 8 };
enum { ARENA = 1 << 17, MAX_BUF = 1 << 16, MAX_OPS = 64 };

/* The fixed kernels: their argument kinds ('g' buffer, 'l' __local, 's'
 * scalar of the given size, 'n' a buffer that may be NULL). */
static const char kernel_source[] =
    "typedef struct { int a; float b; char c[6]; } pod;\n"
    "kernel void fill(global int *out, int v) {\n"
    "  out[get_global_id(0)] = v;\n"
    "}\n"
    "kernel void axpy(global float *y, global const float *x, float a) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + y[i];\n"
    "}\n"
    "kernel void grid(global uchar *dst, global const uchar *src) {\n"
    "  size_t i = (get_global_id(2) * get_global_size(1) +\n"
    "              get_global_id(1)) * get_global_size(0) + get_global_id(0);\n"
    "  dst[i] = src[i] + 1;\n"
    "}\n"
    "kernel void reduce(global const int *in, global int *out,\n"
    "                   local int *tmp) {\n"
    "  size_t l = get_local_id(0);\n"
    "  tmp[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l == 0) {\n"
    "    int s = 0;\n"
    "    for (size_t i = 0; i < get_local_size(0); i++) s += tmp[i];\n"
    "    out[get_group_id(0)] = s;\n"
    "  }\n"
    "}\n"
    "kernel void group(global float *x) {\n"
    "  x[get_global_id(0)] = work_group_reduce_add(x[get_global_id(0)]);\n"
    "}\n"
    "kernel __attribute__((reqd_work_group_size(4, 1, 1)))\n"
    "void fixed(global int *x) {\n"
    "  x[get_global_id(0)] += (int)get_local_id(0);\n"
    "}\n"
    "kernel void bystruct(global int *x, pod p, long n, uchar c) {\n"
    "  x[get_global_id(0)] = p.a + (int)p.b + p.c[5] + (int)n + c;\n"
    "}\n"
    "kernel void noargs(void) {}\n"
    "kernel void maybe_null(global int *p) {\n"
    "  if (p) p[get_global_id(0)] = 1;\n"
    "}\n"
    "kernel void count(global int *c) { atomic_inc(c); }\n";

typedef struct kernel_def {
  const char *name;
  const char *args; /* one letter per argument */
  unsigned scalar_size[4];
} kernel_def;

static const kernel_def defs[] = {
    {"fill", "gs", {0, 4}},
    {"axpy", "ggs", {0, 0, 4}},
    {"grid", "gg", {0}},
    {"reduce", "ggl", {0}},
    {"group", "g", {0}},
    {"fixed", "g", {0}},
    {"bystruct", "gsss", {0, 16, 8, 1}},
    {"noargs", "", {0}},
    {"maybe_null", "n", {0}},
    {"count", "g", {0}},
};
enum { NDEFS = sizeof defs / sizeof defs[0] };

/* Programs built once: the kernels in region/loop mode and in fiber
 * mode, both bounds-checked. */
static cl_context ctx0;
static cl_program progs[2];
static cl_ulong max_alloc; /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
static cl_ulong local_mem; /* CL_DEVICE_LOCAL_MEM_SIZE */

typedef struct mem_slot {
  cl_mem m;
  size_t size;
  int ctx;
  int sub;
} mem_slot;

typedef struct queue_slot {
  cl_command_queue q;
  int ctx;
  int profiling;
} queue_slot;

typedef struct event_slot {
  cl_event e;
  int ctx;
  int user;   /* a user event, not set yet */
} event_slot;

typedef struct map_slot {
  void *ptr;
  size_t size;
  cl_mem m;           /* retained */
  cl_command_queue q; /* retained */
} map_slot;

typedef struct state {
  fz_in in;
  cl_context ctx[NCTX];
  queue_slot q[NQ];
  mem_slot mem[NMEM];
  cl_kernel kern[NKERN];
  int kdef[NKERN];
  size_t klocal[NKERN]; /* the largest __local argument size set */
  /* The buffers each kernel's arguments name; a kernel whose buffer was
   * released is stale: launching it would hand Skein a freed handle
   * (kernels do not retain their arguments), so it is not launched. */
  cl_mem kmem[NKERN][4];
  int kstale[NKERN];
#define FREED ((cl_mem)(uintptr_t)1) /* marks a released buffer */
  event_slot ev[NEV];
  map_slot map[NMAP];
  uint8_t *arena;
  void *host[NMEM * 2]; /* host blocks of USE_HOST_PTR buffers */
  int nhost;
  int unset_users;
  /* Markers enqueued on queues released in flight: once they complete,
   * nothing of the input touches host memory any more. */
  cl_event last[NQ * 8];
  int nlast;
  uint8_t scratch[256];
} state;

/* Callbacks registered and called (all must be called by the end). */
static atomic_long cb_registered, cb_called;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fz_setup();
  ctx0 = fz_context();
  return 0;
}

/* Builds the fixed kernels, once, at the first input rather than in
 * LLVMFuzzerInitialize: the first build installs LLVM's crash-recovery
 * signal handlers, which remember the handlers in place then and give
 * a signal outside a build back to them. libFuzzer installs its own
 * after LLVMFuzzerInitialize and only where no handler is installed yet;
 * built earlier, an abort() of a finding would end the process without
 * libFuzzer saving the input. */
static void build_once(void) {
  if (progs[0])
    return;
  if (clGetDeviceInfo(fz_device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                      sizeof max_alloc, &max_alloc, NULL) != CL_SUCCESS)
    fz_fail("CL_DEVICE_MAX_MEM_ALLOC_SIZE");
  if (clGetDeviceInfo(fz_device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem,
                      &local_mem, NULL) != CL_SUCCESS)
    fz_fail("CL_DEVICE_LOCAL_MEM_SIZE");
  static const char *const modes[2] = {NULL, "fiber"};
  for (int i = 0; i < 2; i++) {
    if (modes[i])
      setenv("SKEIN_MODE", modes[i], 1);
    const char *src = kernel_source;
    cl_int err;
    progs[i] = clCreateProgramWithSource(ctx0, 1, &src, NULL, &err);
    if (err != CL_SUCCESS ||
        clBuildProgram(progs[i], 1, &fz_device,
                       "-cl-std=CL3.0 -skein-bounds-check", NULL, NULL))
      fz_fail("building the fixed kernels failed");
    unsetenv("SKEIN_MODE");
  }
}

/* ---- choices ------------------------------------------------------ */

static size_t pick_size(state *s, size_t around) {
  static const size_t fixed[] = {0, 1, 3, 4, 16, 64, 100, 256, 4096,
                                 MAX_BUF, (size_t)1 << 32, SIZE_MAX,
                                 SIZE_MAX - 3, (size_t)1 << 62};
  unsigned c = fz_pick(&s->in, 20);
  if (c < sizeof fixed / sizeof *fixed)
    return fixed[c];
  switch (c) {
  case 14: return around;
  case 15: return around / 2;
  case 16: return around + 1;
  case 17: return around ? around - 1 : 0;
  default: return fz_u16(&s->in) % (MAX_BUF + 1);
  }
}

static int pick_ctx(state *s) {
  int c = (int)fz_pick(&s->in, 4) == 3 ? 1 : 0;
  return s->ctx[c] ? c : 0;
}

static queue_slot *pick_queue(state *s) {
  unsigned i = fz_pick(&s->in, NQ);
  for (unsigned k = 0; k < NQ; k++)
    if (s->q[(i + k) % NQ].q)
      return &s->q[(i + k) % NQ];
  return NULL;
}

static mem_slot *pick_mem(state *s) {
  unsigned i = fz_pick(&s->in, NMEM);
  for (unsigned k = 0; k < NMEM; k++)
    if (s->mem[(i + k) % NMEM].m)
      return &s->mem[(i + k) % NMEM];
  return NULL;
}

static int pick_kernel(state *s) {
  unsigned i = fz_pick(&s->in, NKERN);
  for (unsigned k = 0; k < NKERN; k++)
    if (s->kern[(i + k) % NKERN])
      return (int)((i + k) % NKERN);
  return -1;
}

/* A host pointer into the arena with room for n bytes when n fits. */
static void *arena_ptr(state *s, size_t n) {
  size_t off = fz_u16(&s->in) % (ARENA - MAX_BUF);
  (void)n;
  return s->arena + off;
}

/* ---- tables ------------------------------------------------------- */

static void add_event(state *s, cl_event e, int ctx, int user) {
  for (int i = 0; i < NEV; i++)
    if (!s->ev[i].e) {
      s->ev[i] = (event_slot){e, ctx, user};
      s->unset_users += user;
      return;
    }
  if (user) { /* no room: it must still be set, or waiters hang */
    clSetUserEventStatus(e, CL_COMPLETE);
  }
  clReleaseEvent(e);
}

/* A wait list of up to 4 events (or the spec's wrong forms); *n_out and
 * the list it returns are what the call gets. */
static const cl_event *wait_list(state *s, cl_event *buf, cl_uint *n_out) {
  unsigned form = fz_pick(&s->in, 16);
  *n_out = 0;
  if (form < 8)
    return NULL;
  if (form == 8) { /* a count with no list */
    *n_out = 1;
    return NULL;
  }
  if (form == 9) { /* a list with count 0 */
    buf[0] = s->ev[0].e;
    return buf;
  }
  cl_uint n = 1 + fz_pick(&s->in, 4);
  for (cl_uint i = 0; i < n; i++) {
    event_slot *e = &s->ev[fz_pick(&s->in, NEV)];
    if (e->e)
      buf[(*n_out)++] = e->e;
    else if (form == 10 && s->mem[0].m) /* a live non-event */
      buf[(*n_out)++] = (cl_event)s->mem[0].m;
  }
  return *n_out ? buf : NULL;
}

/* Where the event of an enqueue goes: NULL or a local that the caller
 * adds to the table. */
static cl_event *want_event(state *s, cl_event *out) {
  *out = NULL;
  return fz_pick(&s->in, 2) ? out : NULL;
}

static void took_event(state *s, cl_int err, cl_event e, int ctx) {
  if (err != CL_SUCCESS && e &&
      err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    fz_fail("a failed enqueue (%d) returned an event", err);
  if (e)
    add_event(s, e, ctx, 0);
}

/* Blocking flag of a transfer: never while a user event is unset. */
static cl_bool blocking(state *s) {
  cl_bool b = fz_pick(&s->in, 2);
  return s->unset_users ? CL_FALSE : b;
}

/* The codes every enqueue may return (besides its own). */
#define ENQ_CODES                                                         \
  CL_INVALID_COMMAND_QUEUE, CL_INVALID_CONTEXT, CL_INVALID_EVENT_WAIT_LIST, \
      CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY

static cl_int enq_check(const char *call, cl_int err, cl_bool block) {
  if (err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST && !block)
    fz_fail("%s: non-blocking, yet "
            "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST", call);
  return err;
}

/* ---- operations --------------------------------------------------- */

static void CL_CALLBACK context_notify(const char *errinfo, const void *pi,
                                       size_t cb, void *user) {
  (void)errinfo; (void)pi; (void)cb; (void)user;
}

static void CL_CALLBACK destructor(void *obj, void *user) {
  (void)obj;
  (void)user;
  atomic_fetch_add(&cb_called, 1);
}

static void CL_CALLBACK context_destructor(cl_context c, void *user) {
  destructor(c, user);
}

static void CL_CALLBACK mem_destructor(cl_mem m, void *user) {
  destructor(m, user);
}

static void CL_CALLBACK event_callback(cl_event e, cl_int status,
                                       void *user) {
  cl_int st;
  /* A callback may query its event. */
  if (clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st,
                     NULL) != CL_SUCCESS)
    fz_fail("clGetEventInfo in an event callback failed");
  if (status > CL_SUBMITTED)
    fz_fail("event callback with status %d", status);
  destructor(e, user);
}

static void op_context(state *s) {
  if (s->ctx[1])
    return;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                   (cl_context_properties)fz_platform, 0};
  cl_int err;
  cl_context c;
  switch (fz_pick(&s->in, 4)) {
  case 0:
    c = clCreateContext(props, 1, &fz_device, context_notify, NULL, &err);
    break;
  case 1: {
    static const cl_device_type types[] = {
        CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ALL,
        CL_DEVICE_TYPE_DEFAULT, CL_DEVICE_TYPE_ACCELERATOR, 0x1000};
    c = clCreateContextFromType(props, types[fz_pick(&s->in, 6)], NULL,
                                NULL, &err);
    FZ_EXPECT("clCreateContextFromType", err, CL_DEVICE_NOT_FOUND,
              CL_INVALID_DEVICE_TYPE, CL_OUT_OF_HOST_MEMORY);
    break;
  }
  case 2: { /* an unknown property */
    cl_context_properties bad[] = {0x7777, 1, 0};
    c = clCreateContext(bad, 1, &fz_device, NULL, NULL, &err);
    if (err != CL_INVALID_PROPERTY)
      fz_fail("clCreateContext with property 0x7777: %d", err);
    break;
  }
  default:
    c = clCreateContext(NULL, 1, &fz_device, NULL, NULL, &err);
  }
  FZ_EXPECT("clCreateContext", err, CL_DEVICE_NOT_FOUND,
            CL_INVALID_DEVICE_TYPE, CL_INVALID_PROPERTY,
            CL_OUT_OF_HOST_MEMORY);
  if (!c)
    return;
  s->ctx[1] = c;
  if (fz_pick(&s->in, 2) &&
      FZ_EXPECT("clSetContextDestructorCallback",
                clSetContextDestructorCallback(c, context_destructor, NULL),
                CL_OUT_OF_HOST_MEMORY) == CL_SUCCESS)
    atomic_fetch_add(&cb_registered, 1);
}

static void op_queue(state *s) {
  int slot = (int)fz_pick(&s->in, NQ);
  if (s->q[slot].q)
    return;
  int c = pick_ctx(s);
  static const cl_command_queue_properties bits[] = {
      0, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_PROFILING_ENABLE,
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE,
      CL_QUEUE_ON_DEVICE, 0x100};
  cl_command_queue_properties p = bits[fz_pick(&s->in, 6)];
  cl_int err;
  cl_command_queue q;
  if (fz_pick(&s->in, 4) == 0) {
    q = clCreateCommandQueue(s->ctx[c], fz_device, p, &err);
  } else {
    cl_queue_properties props[5] = {CL_QUEUE_PROPERTIES, p, 0, 0, 0};
    if (fz_pick(&s->in, 8) == 0) { /* a size without ON_DEVICE */
      props[2] = CL_QUEUE_SIZE;
      props[3] = 1024;
    }
    q = clCreateCommandQueueWithProperties(s->ctx[c], fz_device, props,
                                           &err);
  }
  FZ_EXPECT("clCreateCommandQueue", err, CL_INVALID_VALUE,
            CL_INVALID_QUEUE_PROPERTIES, CL_OUT_OF_RESOURCES,
            CL_OUT_OF_HOST_MEMORY);
  if (p == 0x100 && err == CL_SUCCESS)
    fz_fail("a queue with unknown property bit 0x100 was created");
  if (q)
    s->q[slot] = (queue_slot){q, c, (p & CL_QUEUE_PROFILING_ENABLE) != 0};
}

static void op_buffer(state *s) {
  int slot = (int)fz_pick(&s->in, NMEM);
  if (s->mem[slot].m)
    return;
  static const cl_mem_flags access[] = {
      0, CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY,
      CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY};
  static const cl_mem_flags host[] = {
      0, CL_MEM_USE_HOST_PTR, CL_MEM_COPY_HOST_PTR, CL_MEM_ALLOC_HOST_PTR,
      CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR,
      CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR};
  static const cl_mem_flags hostacc[] = {
      0, CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_NO_ACCESS,
      CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS};
  cl_mem_flags flags = access[fz_pick(&s->in, 5)] | host[fz_pick(&s->in, 6)] |
                       hostacc[fz_pick(&s->in, 5)];
  if (fz_pick(&s->in, 16) == 0)
    flags |= (cl_mem_flags)1 << 40;
  size_t size = pick_size(s, 4096);
  /* Sizes the device accepts stay small (the fuzzer's memory limit and
   * speed); larger ones exceed CL_DEVICE_MAX_MEM_ALLOC_SIZE. */
  if (size > MAX_BUF && size <= max_alloc)
    size = fz_pick(&s->in, 2) ? MAX_BUF : (size_t)max_alloc + 1;
  int c = pick_ctx(s);
  void *hp = NULL;
  /* A host pointer when the flags want one, with room for size bytes
   * whenever the size could be accepted; sometimes one without such a
   * flag (CL_INVALID_HOST_PTR). */
  int wants = (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) != 0;
  int give = wants ? fz_pick(&s->in, 8) != 0 : fz_pick(&s->in, 8) == 0;
  if (give && size <= MAX_BUF && s->nhost < NMEM * 2) {
    size_t mis = fz_pick(&s->in, 8);
    uint8_t *block = malloc(size + 8);
    memset(block, 0x5a, size + 8);
    s->host[s->nhost++] = block;
    hp = block + mis;
  } else if (give) {
    return; /* no host block that large: the spec makes that ours */
  }
  cl_int err;
  cl_mem m;
  if (fz_pick(&s->in, 4) == 0) {
    cl_mem_properties props[] = {0x9999, 1, 0};
    m = clCreateBufferWithProperties(s->ctx[c], fz_pick(&s->in, 2) ? props
                                                                   : NULL,
                                     flags, size, hp, &err);
    FZ_EXPECT("clCreateBufferWithProperties", err, CL_INVALID_PROPERTY,
              CL_INVALID_VALUE, CL_INVALID_BUFFER_SIZE, CL_INVALID_HOST_PTR,
              CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES,
              CL_OUT_OF_HOST_MEMORY);
  } else {
    m = clCreateBuffer(s->ctx[c], flags, size, hp, &err);
    FZ_EXPECT("clCreateBuffer", err, CL_INVALID_VALUE,
              CL_INVALID_BUFFER_SIZE, CL_INVALID_HOST_PTR,
              CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES,
              CL_OUT_OF_HOST_MEMORY);
  }
  /* CL_INVALID_BUFFER_SIZE if size is 0 or greater than
   * CL_DEVICE_MAX_MEM_ALLOC_SIZE. */
  if ((size == 0 || size > max_alloc) && err != CL_INVALID_BUFFER_SIZE &&
      err != CL_INVALID_VALUE && err != CL_INVALID_HOST_PTR &&
      err != CL_INVALID_PROPERTY)
    fz_fail("clCreateBuffer of size %zu: %d, not CL_INVALID_BUFFER_SIZE",
            size, err);
  if (err == CL_SUCCESS && (wants != (hp != NULL)))
    fz_fail("clCreateBuffer: host pointer %p with flags %llx accepted", hp,
            (unsigned long long)flags);
  if (m) {
    s->mem[slot] = (mem_slot){m, size, c, 0};
    if (fz_pick(&s->in, 4) == 0 &&
        FZ_EXPECT("clSetMemObjectDestructorCallback",
                  clSetMemObjectDestructorCallback(m, mem_destructor, NULL),
                  CL_OUT_OF_HOST_MEMORY) == CL_SUCCESS)
      atomic_fetch_add(&cb_registered, 1);
  }
}

static void op_sub_buffer(state *s) {
  mem_slot *parent = pick_mem(s);
  int slot = (int)fz_pick(&s->in, NMEM);
  if (!parent || s->mem[slot].m)
    return;
  cl_buffer_region r;
  static const size_t origins[] = {0, 1, 4, 64, 128, 1024, 4096};
  r.origin = fz_pick(&s->in, 2) ? origins[fz_pick(&s->in, 7)]
                                : pick_size(s, parent->size);
  r.size = pick_size(s, parent->size - (r.origin < parent->size
                                            ? r.origin : parent->size));
  static const cl_mem_flags flags[] = {0, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY,
                                       CL_MEM_READ_WRITE,
                                       CL_MEM_USE_HOST_PTR,
                                       CL_MEM_HOST_NO_ACCESS};
  cl_buffer_create_type type =
      fz_pick(&s->in, 8) ? CL_BUFFER_CREATE_TYPE_REGION : 0x7777;
  cl_int err;
  cl_mem m = clCreateSubBuffer(parent->m, flags[fz_pick(&s->in, 6)], type,
                               &r, &err);
  FZ_EXPECT("clCreateSubBuffer", err, CL_INVALID_MEM_OBJECT,
            CL_INVALID_VALUE, CL_INVALID_BUFFER_SIZE,
            CL_MISALIGNED_SUB_BUFFER_OFFSET,
            CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_RESOURCES,
            CL_OUT_OF_HOST_MEMORY);
  if (err == CL_SUCCESS &&
      (parent->sub || r.size == 0 || r.origin > parent->size ||
       r.size > parent->size - r.origin))
    fz_fail("clCreateSubBuffer accepted origin %zu size %zu of a %s of %zu",
            r.origin, r.size, parent->sub ? "sub-buffer" : "buffer",
            parent->size);
  if (m)
    s->mem[slot] = (mem_slot){m, r.size, parent->ctx, 1};
}

static void op_kernel(state *s) {
  int slot = (int)fz_pick(&s->in, NKERN);
  if (s->kern[slot])
    return;
  int d = (int)fz_pick(&s->in, NDEFS + 1);
  cl_program p = progs[fz_pick(&s->in, 2)];
  cl_int err;
  int k0 = pick_kernel(s);
  cl_kernel k;
  if (k0 >= 0 && fz_pick(&s->in, 4) == 0) {
    k = clCloneKernel(s->kern[k0], &err);
    FZ_EXPECT("clCloneKernel", err, CL_OUT_OF_RESOURCES,
              CL_OUT_OF_HOST_MEMORY);
    d = s->kdef[k0];
    s->klocal[slot] = s->klocal[k0];
    memcpy(s->kmem[slot], s->kmem[k0], sizeof s->kmem[slot]);
    s->kstale[slot] = s->kstale[k0];
  } else {
    s->klocal[slot] = 0;
    memset(s->kmem[slot], 0, sizeof s->kmem[slot]);
    s->kstale[slot] = 0;
    k = clCreateKernel(p, d < NDEFS ? defs[d].name : "no_such", &err);
    FZ_EXPECT("clCreateKernel", err, CL_INVALID_KERNEL_NAME,
              CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
    if (d == NDEFS && err != CL_INVALID_KERNEL_NAME)
      fz_fail("clCreateKernel of a missing name: %d", err);
  }
  if (k) {
    s->kern[slot] = k;
    s->kdef[slot] = d;
  }
}

static void op_set_arg(state *s) {
  int ki = pick_kernel(s);
  if (ki < 0)
    return;
  const kernel_def *d = &defs[s->kdef[ki]];
  cl_uint nargs = (cl_uint)strlen(d->args);
  cl_uint idx = fz_pick(&s->in, nargs + 2);
  char kind = idx < nargs ? d->args[idx] : 's';
  static const size_t sizes[] = {0, 1, 2, 4, 8, 16, 24, 32, 64, 256};
  size_t size;
  const void *value;
  cl_mem mv = NULL;
  unsigned form = fz_pick(&s->in, 8);
  if ((kind == 'g' || kind == 'n') && form < 5) {
    /* A memory object argument: a buffer of either context, NULL, or a
     * live object of another kind. */
    mem_slot *m = pick_mem(s);
    switch (form) {
    case 0: case 1: case 2: mv = m ? m->m : NULL; break;
    case 3: mv = (cl_mem)(s->q[0].q ? (void *)s->q[0].q : (void *)ctx0); break;
    default: mv = NULL;
    }
    if (mv == NULL && kind == 'g')
      mv = m ? m->m : (cl_mem)ctx0;
    size = sizeof(cl_mem);
    value = fz_pick(&s->in, 8) == 0 && kind == 'n' ? NULL : &mv;
  } else if (kind == 'l' && form < 5) {
    static const size_t local[] = {0, 4, 16, 256, 4096, 65536, 1 << 20,
                                   (size_t)1 << 40, SIZE_MAX, SIZE_MAX - 8};
    size = local[fz_pick(&s->in, 10)];
    value = NULL;
  } else {
    /* Any size (value: the scratch block, which holds at least that
     * much, or NULL). Never random bytes for a memory object: they
     * would be a wild handle. */
    size = sizes[fz_pick(&s->in, 10)];
    value = fz_pick(&s->in, 4) ? s->scratch : NULL;
    if (kind == 'g' && size == sizeof(cl_mem))
      size = 4; /* neither random bytes nor NULL for a dereferenced one */
    if (kind == 'n' && size == sizeof(cl_mem) && value)
      size = 4;
  }
  cl_int err = clSetKernelArg(s->kern[ki], idx, size, value);
  FZ_EXPECT("clSetKernelArg", err, CL_INVALID_ARG_INDEX, CL_INVALID_ARG_VALUE,
            CL_INVALID_MEM_OBJECT, CL_INVALID_ARG_SIZE, CL_INVALID_CONTEXT,
            CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
  if (idx >= nargs && err != CL_INVALID_ARG_INDEX)
    fz_fail("clSetKernelArg of argument %u of %s (%u arguments): %d", idx,
            d->name, nargs, err);
  if (idx < nargs && idx < 4 && err == CL_SUCCESS) {
    s->kmem[ki][idx] = value == &mv ? mv : NULL;
    s->kstale[ki] = 0;
    for (int a = 0; a < 4; a++)
      s->kstale[ki] |= s->kmem[ki][a] == FREED;
  }
  if (idx < nargs && kind == 'l' && err == CL_SUCCESS)
    s->klocal[ki] = size; /* the one __local argument of its kernel */
  if (idx < nargs && kind == 's' && err == CL_SUCCESS &&
      size != d->scalar_size[idx])
    fz_fail("clSetKernelArg accepted size %zu for argument %u of %s", size,
            idx, d->name);
}

static void op_ndrange(state *s) {
  int ki = pick_kernel(s);
  queue_slot *q = pick_queue(s);
  if (ki < 0 || !q || s->kstale[ki])
    return;
  static const size_t gsizes[] = {0, 1, 2, 3, 4, 7, 16, 64, 100, 1000, 4096,
                                  (size_t)1 << 32, SIZE_MAX,
                                  SIZE_MAX / 2 + 1};
  static const size_t lsizes[] = {0, 1, 2, 3, 4, 8, 16, 64, 256, 1024, 2048,
                                  (size_t)1 << 33};
  static const size_t offsets[] = {0, 1, 5, SIZE_MAX - 2, (size_t)1 << 63};
  cl_uint dim = fz_pick(&s->in, 5);
  size_t g[4], l[4], o[4];
  for (int i = 0; i < 4; i++) {
    g[i] = gsizes[fz_pick(&s->in, 14)];
    l[i] = lsizes[fz_pick(&s->in, 12)];
    o[i] = offsets[fz_pick(&s->in, 5)];
  }
  /* form: 0 a task, 1 no offset, 2 no global size, 5-7 no local size. */
  unsigned form = fz_pick(&s->in, 8);
  if (form == 1)
    memset(o, 0, sizeof o);
  /* Bounded work: at most 2^18 work-items unless the launch is empty
   * or its offset overflows (then it must not run). */
  int empty = 0, overflow = 0;
  size_t total = 1;
  for (cl_uint i = 0; i < dim && i < 3; i++) {
    empty |= g[i] == 0;
    overflow |= g[i] > SIZE_MAX - o[i];
    total = total > SIZE_MAX / (g[i] ? g[i] : 1) ? SIZE_MAX : total * g[i];
  }
  if (!empty && !overflow && total > ((size_t)1 << 18))
    for (int i = 0; i < 3; i++)
      g[i] = g[i] > 64 ? 64 : g[i];
  cl_event buf[4], ev;
  cl_uint n;
  const cl_event *wl = wait_list(s, buf, &n);
  cl_event *evp = want_event(s, &ev);
  cl_int err;
  if (getenv("FUZZ_TRACE"))
    fprintf(stderr, "  launch %s form %u dim %u global %zu %zu %zu local "
            "%zu %zu %zu offset %zu %zu %zu\n", defs[s->kdef[ki]].name, form,
            dim, g[0], g[1], g[2], l[0], l[1], l[2], o[0], o[1], o[2]);
  if (form == 0) {
    err = clEnqueueTask(q->q, s->kern[ki], n, wl, evp);
  } else {
    err = clEnqueueNDRangeKernel(q->q, s->kern[ki], dim,
                                 form == 1 ? NULL : o, form == 2 ? NULL : g,
                                 form >= 5 ? NULL : l, n, wl, evp);
  }
  FZ_EXPECT("clEnqueueNDRangeKernel", err, ENQ_CODES,
            CL_INVALID_PROGRAM_EXECUTABLE, CL_INVALID_KERNEL_ARGS,
            CL_INVALID_WORK_DIMENSION, CL_INVALID_GLOBAL_WORK_SIZE,
            CL_INVALID_GLOBAL_OFFSET, CL_INVALID_WORK_GROUP_SIZE,
            CL_INVALID_WORK_ITEM_SIZE, CL_MISALIGNED_SUB_BUFFER_OFFSET,
            CL_INVALID_VALUE, CL_MEM_OBJECT_ALLOCATION_FAILURE,
            CL_INVALID_OPERATION);
  enq_check("clEnqueueNDRangeKernel", err, CL_FALSE);
  if (form != 0 && err == CL_SUCCESS && (dim == 0 || dim == 4))
    fz_fail("clEnqueueNDRangeKernel accepted work_dim %u", dim);
  /* A kernel whose __local memory exceeds CL_DEVICE_LOCAL_MEM_SIZE
   * cannot run (CL_OUT_OF_RESOURCES). */
  if (err == CL_SUCCESS && s->klocal[ki] > local_mem)
    fz_fail("a launch of %s with a __local argument of %zu bytes (the "
            "device has %llu) was accepted", defs[s->kdef[ki]].name,
            s->klocal[ki], (unsigned long long)local_mem);
  if (form > 2 && err == CL_SUCCESS && overflow && !empty)
    fz_fail("clEnqueueNDRangeKernel accepted an offset + size overflow: "
            "dim %u, global %zu %zu %zu, offset %zu %zu %zu", dim, g[0],
            g[1], g[2], o[0], o[1], o[2]);
  took_event(s, err, ev, q->ctx);
}

/* Range of a transfer: offset and size around the buffer's. */
static void pick_range(state *s, const mem_slot *m, size_t *off,
                       size_t *size) {
  *off = fz_pick(&s->in, 2) ? 0 : pick_size(s, m->size);
  *size = pick_size(s, m->size - (*off < m->size ? *off : m->size));
}

static int in_range(size_t off, size_t size, size_t total) {
  return off <= total && size <= total - off;
}

static void op_read_write(state *s) {
  queue_slot *q = pick_queue(s);
  mem_slot *m = pick_mem(s);
  if (!q || !m)
    return;
  int write = fz_pick(&s->in, 2);
  size_t off, size;
  pick_range(s, m, &off, &size);
  cl_bool block = blocking(s);
  void *hp = arena_ptr(s, size);
  cl_event buf[4], ev;
  cl_uint n;
  const cl_event *wl = wait_list(s, buf, &n);
  cl_event *evp = want_event(s, &ev);
  if (fz_pick(&s->in, 16) == 0)
    hp = NULL;
  cl_int err = write ? clEnqueueWriteBuffer(q->q, m->m, block, off, size, hp,
                                            n, wl, evp)
                     : clEnqueueReadBuffer(q->q, m->m, block, off, size, hp,
                                           n, wl, evp);
  FZ_EXPECT(write ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer", err,
            ENQ_CODES, CL_INVALID_MEM_OBJECT, CL_INVALID_VALUE,
            CL_MISALIGNED_SUB_BUFFER_OFFSET,
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
            CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_INVALID_OPERATION);
  enq_check("clEnqueueRead/WriteBuffer", err, block);
  if (err == CL_SUCCESS && !in_range(off, size, m->size))
    fz_fail("a %s of %zu bytes at %zu of a %zu-byte buffer was accepted",
            write ? "write" : "read", size, off, m->size);
  took_event(s, err, ev, q->ctx);
}

/* Host extent of a rectangle (0 when it overflows: then not called). */
static size_t rect_extent(const size_t *origin, const size_t *region,
                          size_t row, size_t slice) {
  if (!region[0] || !region[1] || !region[2])
    return 1;
  if (!row)
    row = region[0];
  if (!slice)
    slice = region[1] * row;
  unsigned __int128 e = (unsigned __int128)(origin[2] + region[2] - 1) * slice +
                        (unsigned __int128)(origin[1] + region[1] - 1) * row +
                        origin[0] + region[0];
  if (origin[0] > MAX_BUF || origin[1] > MAX_BUF || origin[2] > MAX_BUF ||
      region[0] > MAX_BUF || region[1] > MAX_BUF || region[2] > MAX_BUF ||
      e > ARENA - MAX_BUF)
    return 0;
  return (size_t)e;
}

static void op_rect(state *s) {
  queue_slot *q = pick_queue(s);
  mem_slot *a = pick_mem(s), *b = pick_mem(s);
  if (!q || !a)
    return;
  static const size_t small[] = {0, 1, 2, 3, 4, 8, 16, 64, 100, 256,
                                 SIZE_MAX, (size_t)1 << 63};
  size_t bo[3], ho[3], r[3], p[4];
  for (int i = 0; i < 3; i++) {
    bo[i] = small[fz_pick(&s->in, 12)];
    ho[i] = small[fz_pick(&s->in, 12)];
    r[i] = small[fz_pick(&s->in, 12)];
  }
  for (int i = 0; i < 4; i++)
    p[i] = fz_pick(&s->in, 2) ? 0 : small[fz_pick(&s->in, 12)];
  int kind = (int)fz_pick(&s->in, 3);
  cl_event buf[4], ev;
  cl_uint n;
  const cl_event *wl = wait_list(s, buf, &n);
  cl_event *evp = want_event(s, &ev);
  cl_bool block = blocking(s);
  cl_int err;
  if (kind == 2) {
    err = clEnqueueCopyBufferRect(q->q, a->m, b->m, bo, ho, r, p[0], p[1],
                                  p[2], p[3], n, wl, evp);
    block = CL_FALSE;
  } else {
    if (!rect_extent(ho, r, p[2], p[3]))
      return; /* a host rectangle beyond the arena: the caller's fault */
    void *hp = s->arena;
    err = kind ? clEnqueueWriteBufferRect(q->q, a->m, block, bo, ho, r, p[0],
                                          p[1], p[2], p[3], hp, n, wl, evp)
               : clEnqueueReadBufferRect(q->q, a->m, block, bo, ho, r, p[0],
                                         p[1], p[2], p[3], hp, n, wl, evp);
  }
  FZ_EXPECT("clEnqueue*BufferRect", err, ENQ_CODES, CL_INVALID_MEM_OBJECT,
            CL_INVALID_VALUE, CL_MEM_COPY_OVERLAP,
            CL_MISALIGNED_SUB_BUFFER_OFFSET,
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
            CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_INVALID_OPERATION);
  enq_check("clEnqueue*BufferRect", err, block);
  took_event(s, err, ev, q->ctx);
}

static void op_copy(state *s) {
  queue_slot *q = pick_queue(s);
  mem_slot *a = pick_mem(s), *b = pick_mem(s);
  if (!q || !a)
    return;
  size_t so, dof, size;
  pick_range(s, a, &so, &size);
  dof = fz_pick(&s->in, 2) ? 0 : pick_size(s, b->size);
  cl_event buf[4], ev;
  cl_uint n;
  const cl_event *wl = wait_list(s, buf, &n);
  cl_event *evp = want_event(s, &ev);
  cl_int err = clEnqueueCopyBuffer(q->q, a->m, b->m, so, dof, size, n, wl,
                                   evp);
  FZ_EXPECT("clEnqueueCopyBuffer", err, ENQ_CODES, CL_INVALID_MEM_OBJECT,
            CL_INVALID_VALUE, CL_MEM_COPY_OVERLAP,
            CL_MISALIGNED_SUB_BUFFER_OFFSET,
            CL_MEM_OBJECT_ALLOCATION_FAILURE);
  if (err == CL_SUCCESS &&
      (!in_range(so, size, a->size) || !in_range(dof, size, b->size)))
    fz_fail("a copy of %zu bytes from %zu (of %zu) to %zu (of %zu) was "
            "accepted", size, so, a->size, dof, b->size);
  if (err == CL_SUCCESS && a == b && size &&
      (so < dof ? dof - so < size : so - dof < size))
    fz_fail("an overlapping copy within one buffer was accepted");
  took_event(s, err, ev, q->ctx);
}

static void op_fill(state *s) {
  queue_slot *q = pick_queue(s);
  mem_slot *m = pick_mem(s);
  if (!q || !m)
    return;
  static const size_t psizes[] = {0, 1, 2, 3, 4, 8, 16, 32, 64, 128, 256};
  size_t ps = psizes[fz_pick(&s->in, 11)];
  size_t off, size;
  pick_range(s, m, &off, &size);
  if (fz_pick(&s->in, 2) && ps) { /* mostly aligned to the pattern */
    off -= off % ps;
    size -= size % ps;
  }
  cl_event buf[4], ev;
  cl_uint n;
  const cl_event *wl = wait_list(s, buf, &n);
  cl_event *evp = want_event(s, &ev);
  cl_int err = clEnqueueFillBuffer(q->q, m->m,
                                   fz_pick(&s->in, 16) ? s->scratch : NULL,
                                   ps, off, size, n, wl, evp);
  FZ_EXPECT("clEnqueueFillBuffer", err, ENQ_CODES, CL_INVALID_MEM_OBJECT,
            CL_INVALID_VALUE, CL_MISALIGNED_SUB_BUFFER_OFFSET,
            CL_MEM_OBJECT_ALLOCATION_FAILURE);
  if (err == CL_SUCCESS &&
      (!in_range(off, size, m->size) || ps == 0 || ps == 3 || ps > 128 ||
       off % ps || size % ps))
    fz_fail("a fill of %zu bytes at %zu (of %zu), pattern %zu accepted",
            size, off, m->size, ps);
  took_event(s, err, ev, q->ctx);
}

static void op_map(state *s) {
  queue_slot *q = pick_queue(s);
  mem_slot *m = pick_mem(s);
  int slot = (int)fz_pick(&s->in, NMAP);
  if (!q || !m || s->map[slot].ptr)
    return;
  static const cl_map_flags flags[] = {
      CL_MAP_READ, CL_MAP_WRITE, CL_MAP_READ | CL_MAP_WRITE,
      CL_MAP_WRITE_INVALIDATE_REGION,
      CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
      0, 0x40};
  cl_map_flags f = flags[fz_pick(&s->in, 7)];
  size_t off, size;
  pick_range(s, m, &off, &size);
  cl_bool block = blocking(s);
  cl_event buf[4], ev;
  cl_uint n;
  const cl_event *wl = wait_list(s, buf, &n);
  cl_event *evp = want_event(s, &ev);
  cl_int err;
  void *p = clEnqueueMapBuffer(q->q, m->m, block, f, off, size, n, wl, evp,
                               &err);
  FZ_EXPECT("clEnqueueMapBuffer", err, ENQ_CODES, CL_INVALID_MEM_OBJECT,
            CL_INVALID_VALUE, CL_MISALIGNED_SUB_BUFFER_OFFSET,
            CL_MAP_FAILURE, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
            CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_INVALID_OPERATION);
  enq_check("clEnqueueMapBuffer", err, block);
  if (err == CL_SUCCESS && (!in_range(off, size, m->size) || f == 0x40))
    fz_fail("a map of %zu bytes at %zu of %zu (flags %llx) was accepted",
            size, off, m->size, (unsigned long long)f);
  /* A pointer on success, NULL otherwise (also when a blocking map's
   * wait list failed: its command was enqueued, its event returned). */
  if ((p != NULL) != (err == CL_SUCCESS))
    fz_fail("clEnqueueMapBuffer returned %p with error %d", p, err);
  took_event(s, err, ev, q->ctx);
  if (!p)
    return;
  /* A blocking map's memory is the application's now. */
  if (block && err == CL_SUCCESS && (f & (CL_MAP_WRITE |
                                          CL_MAP_WRITE_INVALIDATE_REGION)))
    memset(p, 0xa5, size);
  clRetainMemObject(m->m);
  clRetainCommandQueue(q->q);
  s->map[slot] = (map_slot){p, size, m->m, q->q};
}

static void op_unmap(state *s) {
  map_slot *mp = &s->map[fz_pick(&s->in, NMAP)];
  if (!mp->ptr)
    return;
  queue_slot *q = pick_queue(s);
  cl_command_queue qq = q && fz_pick(&s->in, 4) == 0 ? q->q : mp->q;
  void *ptr = fz_pick(&s->in, 8) == 0 ? (void *)s->arena : mp->ptr;
  cl_event buf[4], ev;
  cl_uint n;
  const cl_event *wl = wait_list(s, buf, &n);
  cl_event *evp = want_event(s, &ev);
  cl_int err = clEnqueueUnmapMemObject(qq, mp->m, ptr, n, wl, evp);
  FZ_EXPECT("clEnqueueUnmapMemObject", err, ENQ_CODES, CL_INVALID_MEM_OBJECT,
            CL_INVALID_VALUE, CL_INVALID_OPERATION);
  if (err == CL_SUCCESS && ptr != mp->ptr)
    fz_fail("clEnqueueUnmapMemObject accepted a pointer it never mapped");
  cl_context c;
  clGetCommandQueueInfo(qq, CL_QUEUE_CONTEXT, sizeof c, &c, NULL);
  took_event(s, err, ev, c == ctx0 ? 0 : 1);
  if (err == CL_SUCCESS) {
    clReleaseMemObject(mp->m);
    clReleaseCommandQueue(mp->q);
    memset(mp, 0, sizeof *mp);
  }
}

static void op_migrate(state *s) {
  queue_slot *q = pick_queue(s);
  mem_slot *a = pick_mem(s), *b = pick_mem(s);
  if (!q || !a)
    return;
  cl_mem list[2] = {a->m, b->m};
  static const cl_mem_migration_flags flags[] = {
      0, CL_MIGRATE_MEM_OBJECT_HOST, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
      3, 0x100};
  cl_event buf[4], ev;
  cl_uint n;
  const cl_event *wl = wait_list(s, buf, &n);
  cl_event *evp = want_event(s, &ev);
  cl_int err = clEnqueueMigrateMemObjects(q->q, fz_pick(&s->in, 3), list,
                                          flags[fz_pick(&s->in, 5)], n, wl,
                                          evp);
  FZ_EXPECT("clEnqueueMigrateMemObjects", err, ENQ_CODES,
            CL_INVALID_MEM_OBJECT, CL_INVALID_VALUE,
            CL_MEM_OBJECT_ALLOCATION_FAILURE);
  took_event(s, err, ev, q->ctx);
}

static void op_marker(state *s) {
  queue_slot *q = pick_queue(s);
  if (!q)
    return;
  cl_event buf[4], ev;
  cl_uint n;
  const cl_event *wl = wait_list(s, buf, &n);
  cl_event *evp = want_event(s, &ev);
  int barrier = fz_pick(&s->in, 2);
  cl_int err = barrier ? clEnqueueBarrierWithWaitList(q->q, n, wl, evp)
                       : clEnqueueMarkerWithWaitList(q->q, n, wl, evp);
  FZ_EXPECT("clEnqueueMarker/BarrierWithWaitList", err, ENQ_CODES);
  took_event(s, err, ev, q->ctx);
}

static void op_user_event(state *s) {
  int c = pick_ctx(s);
  cl_int err;
  cl_event e = clCreateUserEvent(s->ctx[c], &err);
  FZ_EXPECT("clCreateUserEvent", err, CL_OUT_OF_RESOURCES,
            CL_OUT_OF_HOST_MEMORY);
  if (e)
    add_event(s, e, c, 1);
}

static void set_user(state *s, event_slot *e, cl_int status) {
  cl_int err = clSetUserEventStatus(e->e, status);
  FZ_EXPECT("clSetUserEventStatus", err, CL_INVALID_EVENT, CL_INVALID_VALUE,
            CL_INVALID_OPERATION, CL_OUT_OF_RESOURCES,
            CL_OUT_OF_HOST_MEMORY);
  if (e->user && status <= CL_COMPLETE && err != CL_SUCCESS)
    fz_fail("clSetUserEventStatus(%d) of an unset user event: %d", status,
            err);
  if (!e->user && err == CL_SUCCESS)
    fz_fail("clSetUserEventStatus succeeded on a set or non-user event");
  if (err == CL_SUCCESS) {
    e->user = 0;
    s->unset_users--;
  }
}

static void op_set_user(state *s) {
  event_slot *e = &s->ev[fz_pick(&s->in, NEV)];
  static const cl_int st[] = {CL_COMPLETE, CL_COMPLETE, -1, -9999,
                              CL_RUNNING, CL_SUBMITTED};
  if (e->e)
    set_user(s, e, st[fz_pick(&s->in, 6)]);
}

static void op_callback(state *s) {
  event_slot *e = &s->ev[fz_pick(&s->in, NEV)];
  if (!e->e)
    return;
  static const cl_int types[] = {CL_COMPLETE, CL_RUNNING, CL_SUBMITTED,
                                 CL_QUEUED, -1};
  cl_int t = types[fz_pick(&s->in, 5)];
  cl_int err = clSetEventCallback(e->e, t, event_callback, NULL);
  FZ_EXPECT("clSetEventCallback", err, CL_INVALID_VALUE,
            CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
  if (err == CL_SUCCESS && (t == CL_QUEUED || t < 0))
    fz_fail("clSetEventCallback accepted callback type %d", t);
  if (err == CL_SUCCESS)
    atomic_fetch_add(&cb_registered, 1);
}

static void op_wait(state *s) {
  if (s->unset_users)
    return;
  cl_event buf[4];
  cl_uint n;
  const cl_event *wl = wait_list(s, buf, &n);
  cl_int err = clWaitForEvents(n, wl);
  FZ_EXPECT("clWaitForEvents", err, CL_INVALID_VALUE, CL_INVALID_CONTEXT,
            CL_INVALID_EVENT, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
            CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
  if (n == 0 && err != CL_INVALID_VALUE)
    fz_fail("clWaitForEvents of no event: %d", err);
}

static void op_flush(state *s) {
  queue_slot *q = pick_queue(s);
  if (!q)
    return;
  if (fz_pick(&s->in, 2) || s->unset_users)
    FZ_EXPECT("clFlush", clFlush(q->q), CL_OUT_OF_RESOURCES,
              CL_OUT_OF_HOST_MEMORY);
  else
    FZ_EXPECT("clFinish", clFinish(q->q), CL_OUT_OF_RESOURCES,
              CL_OUT_OF_HOST_MEMORY);
}

/* An info query of a random object with a random parameter and size. */
static void op_query(state *s) {
  uint8_t out[256];
  size_t size = fz_pick(&s->in, 2) ? sizeof out : fz_pick(&s->in, 9);
  size_t ret;
  cl_uint pick = fz_pick(&s->in, 5);
  cl_uint param = fz_pick(&s->in, 4) ? 0x1000 + fz_pick(&s->in, 0x200)
                                     : fz_u32(&s->in);
  cl_int err;
  const char *what;
  if (pick == 0 && pick_mem(s)) {
    what = "clGetMemObjectInfo";
    err = clGetMemObjectInfo(pick_mem(s)->m, param, size, out, &ret);
  } else if (pick == 1 && pick_queue(s)) {
    what = "clGetCommandQueueInfo";
    err = clGetCommandQueueInfo(pick_queue(s)->q, param, size, out, &ret);
  } else if (pick == 2 && pick_kernel(s) >= 0) {
    cl_kernel k = s->kern[pick_kernel(s)];
    what = "clGetKernelInfo";
    switch (fz_pick(&s->in, 3)) {
    case 0: err = clGetKernelInfo(k, param, size, out, &ret); break;
    case 1:
      what = "clGetKernelWorkGroupInfo";
      err = clGetKernelWorkGroupInfo(k, fz_device, param, size, out, &ret);
      break;
    default:
      what = "clGetKernelArgInfo";
      err = clGetKernelArgInfo(k, fz_pick(&s->in, 5), param, size, out, &ret);
    }
  } else if (pick == 3 && s->ev[param % NEV].e) {
    cl_event e = s->ev[param % NEV].e;
    cl_uint p2 = 0x11d0 + fz_pick(&s->in, 8);
    if (fz_pick(&s->in, 2)) {
      what = "clGetEventInfo";
      err = clGetEventInfo(e, p2, size, out, &ret);
    } else {
      what = "clGetEventProfilingInfo";
      err = clGetEventProfilingInfo(e, 0x1280 + fz_pick(&s->in, 6), size,
                                    out, &ret);
    }
  } else {
    what = "clGetContextInfo";
    err = clGetContextInfo(s->ctx[pick_ctx(s)], param, size, out, &ret);
  }
  /* CL_INVALID_COMMAND_QUEUE if command_queue is not a valid
   * command-queue for param_name: CL_QUEUE_SIZE of a host queue. */
  if (param == CL_QUEUE_SIZE && strcmp(what, "clGetCommandQueueInfo") == 0) {
    if (err != CL_INVALID_COMMAND_QUEUE)
      fz_fail("CL_QUEUE_SIZE of a host queue: %d", err);
    return;
  }
  FZ_EXPECT(what, err, CL_INVALID_VALUE, CL_INVALID_ARG_INDEX,
            CL_KERNEL_ARG_INFO_NOT_AVAILABLE, CL_PROFILING_INFO_NOT_AVAILABLE,
            CL_INVALID_DEVICE, CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
  if (err == CL_SUCCESS && ret > size)
    fz_fail("%s(0x%x) wrote %zu bytes into %zu", what, param, ret, size);
}

/* Programs: retain and release of the fixed ones, their info, and a
 * program of another source that is never built (its kernels must be
 * refused). */
static void op_program(state *s) {
  cl_program p = progs[fz_pick(&s->in, 2)];
  uint8_t out[256];
  size_t size = fz_pick(&s->in, 2) ? sizeof out : fz_pick(&s->in, 9), ret;
  cl_int err;
  switch (fz_pick(&s->in, 4)) {
  case 0:
    FZ_EXPECT("clRetainProgram", clRetainProgram(p), CL_OUT_OF_HOST_MEMORY);
    FZ_EXPECT("clReleaseProgram", clReleaseProgram(p), CL_OUT_OF_HOST_MEMORY);
    break;
  case 1: {
    cl_uint param = 0x1160 + fz_pick(&s->in, 16);
    /* CL_PROGRAM_BINARIES writes through the pointers in out: those are
     * the caller's to make valid, so it is not asked here. */
    if (param == CL_PROGRAM_BINARIES)
      param = CL_PROGRAM_BINARY_SIZES;
    err = clGetProgramInfo(p, param, size, out, &ret);
    FZ_EXPECT("clGetProgramInfo", err, CL_INVALID_VALUE,
              CL_OUT_OF_HOST_MEMORY);
    if (err == CL_SUCCESS && ret > size)
      fz_fail("clGetProgramInfo(0x%x) wrote %zu bytes into %zu", param, ret,
              size);
    break;
  }
  case 2: {
    cl_uint param = 0x1181 + fz_pick(&s->in, 6);
    err = clGetProgramBuildInfo(p, fz_device, param, size, out, &ret);
    FZ_EXPECT("clGetProgramBuildInfo", err, CL_INVALID_VALUE,
              CL_OUT_OF_HOST_MEMORY);
    if (err == CL_SUCCESS && ret > size)
      fz_fail("clGetProgramBuildInfo(0x%x) wrote %zu bytes into %zu", param,
              ret, size);
    break;
  }
  default: {
    static const char src[] = "kernel void unbuilt(global int *x) {}";
    const char *sp = src;
    cl_program q = clCreateProgramWithSource(s->ctx[pick_ctx(s)], 1, &sp,
                                             NULL, &err);
    FZ_EXPECT("clCreateProgramWithSource", err, CL_OUT_OF_HOST_MEMORY);
    if (!q)
      break;
    cl_kernel k = clCreateKernel(q, "unbuilt", &err);
    if (k || err != CL_INVALID_PROGRAM_EXECUTABLE)
      fz_fail("clCreateKernel of an unbuilt program: %d", err);
    FZ_EXPECT("clReleaseProgram", clReleaseProgram(q), CL_OUT_OF_HOST_MEMORY);
  }
  }
}

/* Retains and releases, or drops an object while its commands run. */
static void op_release(state *s) {
  unsigned kind = fz_pick(&s->in, 5), i = fz_pick(&s->in, 16);
  switch (kind) {
  case 0: {
    mem_slot *m = &s->mem[i % NMEM];
    if (!m->m)
      return;
    if (i & 8) { /* retain + release: the count returns */
      clRetainMemObject(m->m);
      FZ_EXPECT("clReleaseMemObject", clReleaseMemObject(m->m),
                CL_OUT_OF_HOST_MEMORY);
    } else {
      for (int k = 0; k < NKERN; k++)
        for (int a = 0; a < 4; a++)
          if (s->kmem[k][a] == m->m) {
            s->kmem[k][a] = FREED;
            s->kstale[k] = 1;
          }
      FZ_EXPECT("clReleaseMemObject", clReleaseMemObject(m->m),
                CL_OUT_OF_HOST_MEMORY);
      memset(m, 0, sizeof *m);
    }
    break;
  }
  case 1:
    if (s->kern[i % NKERN]) {
      FZ_EXPECT("clReleaseKernel", clReleaseKernel(s->kern[i % NKERN]),
                CL_OUT_OF_HOST_MEMORY);
      s->kern[i % NKERN] = NULL;
    }
    break;
  case 2: {
    event_slot *e = &s->ev[i % NEV];
    if (e->e && !e->user) {
      FZ_EXPECT("clReleaseEvent", clReleaseEvent(e->e),
                CL_OUT_OF_HOST_MEMORY);
      memset(e, 0, sizeof *e);
    }
    break;
  }
  case 3: {
    queue_slot *q = &s->q[i % NQ];
    if (q->q && s->nlast < NQ * 8) {
      cl_event *m = &s->last[s->nlast];
      if (FZ_EXPECT("clEnqueueMarkerWithWaitList",
                    clEnqueueMarkerWithWaitList(q->q, 0, NULL, m),
                    CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY) == CL_SUCCESS)
        s->nlast++;
      else if (s->unset_users || clFinish(q->q) != CL_SUCCESS)
        return; /* keep it: its commands may still use host memory */
      FZ_EXPECT("clReleaseCommandQueue", clReleaseCommandQueue(q->q),
                CL_OUT_OF_HOST_MEMORY);
      memset(q, 0, sizeof *q);
    }
    break;
  }
  default:
    /* The second context goes; its objects hold it until they go. */
    if (s->ctx[1] && (i & 1)) {
      FZ_EXPECT("clReleaseContext", clReleaseContext(s->ctx[1]),
                CL_OUT_OF_HOST_MEMORY);
      s->ctx[1] = NULL;
      for (int k = 0; k < NMEM; k++)
        if (s->mem[k].m && s->mem[k].ctx == 1)
          s->mem[k].ctx = -1;
    }
  }
}

/* ---- one input ---------------------------------------------------- */

static void teardown(state *s) {
  for (int i = 0; i < NEV; i++)
    if (s->ev[i].e && s->ev[i].user)
      set_user(s, &s->ev[i], CL_COMPLETE);
  for (int i = 0; i < NMAP; i++)
    if (s->map[i].ptr) {
      FZ_EXPECT("clEnqueueUnmapMemObject (end)",
                clEnqueueUnmapMemObject(s->map[i].q, s->map[i].m,
                                        s->map[i].ptr, 0, NULL, NULL),
                CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
      FZ_EXPECT("clFinish (end)", clFinish(s->map[i].q),
                CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY);
      clReleaseMemObject(s->map[i].m);
      clReleaseCommandQueue(s->map[i].q);
    }
  for (int i = 0; i < NQ; i++)
    if (s->q[i].q) {
      FZ_EXPECT("clFinish (end)", clFinish(s->q[i].q), CL_OUT_OF_RESOURCES,
                CL_OUT_OF_HOST_MEMORY);
      clReleaseCommandQueue(s->q[i].q);
    }
  for (int i = 0; i < s->nlast; i++) {
    cl_int err = clWaitForEvents(1, &s->last[i]);
    FZ_EXPECT("clWaitForEvents (end)", err,
              CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    clReleaseEvent(s->last[i]);
  }
  for (int i = 0; i < NEV; i++)
    if (s->ev[i].e) {
      if (s->ev[i].ctx >= 0) {
        cl_int err = clWaitForEvents(1, &s->ev[i].e);
        FZ_EXPECT("clWaitForEvents (end)", err,
                  CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
      }
      clReleaseEvent(s->ev[i].e);
    }
  for (int i = 0; i < NKERN; i++)
    if (s->kern[i])
      clReleaseKernel(s->kern[i]);
  for (int i = 0; i < NMEM; i++)
    if (s->mem[i].m)
      clReleaseMemObject(s->mem[i].m);
  if (s->ctx[1])
    clReleaseContext(s->ctx[1]);
  /* Every callback registered must have been called: events are
   * complete and every object is released. Callbacks may run on
   * Skein's threads just after, so wait up to 10 s. */
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while (atomic_load(&cb_called) != atomic_load(&cb_registered)) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    if (t.tv_sec - t0.tv_sec > 10)
      fz_fail("%ld callbacks registered, %ld called at the end",
              atomic_load(&cb_registered), atomic_load(&cb_called));
    sched_yield();
  }
  for (int i = 0; i < s->nhost; i++)
    free(s->host[i]);
  free(s->arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static state st;
  state *s = &st;
  build_once();
  memset(s, 0, sizeof *s);
  s->in = (fz_in){data, size};
  s->ctx[0] = ctx0;
  s->arena = malloc(ARENA);
  memset(s->arena, 0x3c, ARENA);
  for (size_t i = 0; i < sizeof s->scratch; i++)
    s->scratch[i] = (uint8_t)(i * 37);
  cl_int err;
  s->q[0].q = clCreateCommandQueueWithProperties(ctx0, fz_device, NULL, &err);
  if (err != CL_SUCCESS)
    fz_fail("clCreateCommandQueueWithProperties: %d", err);
  atomic_store(&cb_registered, 0);
  atomic_store(&cb_called, 0);
  static void (*const ops[])(state *) = {
      op_context, op_queue, op_buffer, op_buffer, op_sub_buffer,
      op_kernel, op_kernel, op_set_arg, op_set_arg, op_set_arg,
      op_ndrange, op_ndrange, op_read_write, op_read_write, op_rect,
      op_copy, op_fill, op_map, op_unmap, op_migrate, op_marker,
      op_user_event, op_set_user, op_callback, op_wait, op_flush,
      op_query, op_release};
  /* Op bytes 224-255 are program operations (added later: inputs with
   * no such op byte decode as before). */
  for (int i = 0; i < MAX_OPS && s->in.n; i++) {
    uint8_t op = fz_u8(&s->in);
    if (op >= 224)
      op_program(s);
    else
      ops[op % (sizeof ops / sizeof *ops)](s);
  }
  teardown(s);
  return 0;
}
