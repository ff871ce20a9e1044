/* This file defines the launch ABI shared by the runtime (which fills it),
 * the work-group functions the compiler generates (which read it) and the
 * builtin library (whose work-item functions read it). It is the only
 * contract between them: C code includes it, and the compiler takes the
 * IR layout of these structs from bitcode built from builtins/workitem.c,
 * so the two cannot drift. Plain C, no OpenCL types. */
#ifndef SKEIN_BUILTINS_ABI_H
#define SKEIN_BUILTINS_ABI_H

#include <stdint.h>

typedef struct skein_group skein_group;
typedef struct skein_hooks skein_hooks;

/* A fiber-mode sub-group operation: computes the results of the n
 * members of its active set (skein_hooks.sub_group_operation), in
 * increasing linear id order; each member is the work-item's own record,
 * which the builtin defines. */
typedef void (*skein_sub_group_op)(void *const *members, unsigned n);

/* One NDRange launch: constant for every work-group of a command. */
typedef struct skein_launch {
  uint32_t work_dim;          /* 1..3 */
  /* The kernel's sub-group size (the compiler's SIMD width for 32-bit
   * lanes: cc_kernel_info.sub_group_size; a power of two, which region
   * mode relies on). Sub-group k of a group is the
   * work-items of linear local id k * sub_group_size up to the next
   * multiple or the group's end (the last one may be smaller). */
  uint32_t sub_group_size;
  uint64_t global_offset[3];  /* unused dimensions: 0 */
  uint64_t global_size[3];    /* unused dimensions: 1 */
  uint64_t local_size[3];     /* enqueued local size; unused dimensions: 1 */
  uint64_t num_groups[3];     /* ceil(global / local); unused dimensions: 1 */
  /* args[i] points at kernel argument i's value: for a buffer, at a
   * pointer-sized slot holding the buffer's address (or NULL); for a
   * by-value argument, at its bytes; for a __local pointer argument, at a
   * uint64_t byte offset into the work-group's local memory block. */
  void *const *args;
  /* The runtime services generated code may call (fiber mode). */
  const skein_hooks *hooks;
  /* The launch's printf buffer (builtins/printf.c appends to it), NULL
   * for kernels that do not call printf. */
  struct skein_printf_buffer *printf_buffer;
  /* Bounds-checked kernels only (built with -skein-bounds-check or
   * SKEIN_BOUNDS_CHECK=1; NULL otherwise): arg_sizes[i] is the byte size
   * of argument i's object (a buffer's or sub-buffer's size, a __local
   * argument's size; 0 for a NULL buffer or a by-value argument), and
   * bounds receives the accesses that fell outside their object. */
  const uint64_t *arg_sizes;
  struct skein_bounds_report *bounds;
  /* Device-side enqueue (builtins/device_enqueue.c): the runtime's
   * services for the enqueue_kernel family, whose state belongs to this
   * launch (runtime/core/device_queue.c). Set for every NDRange launch;
   * NULL only where no kernel can enqueue. */
  struct skein_device_enqueue *device_enqueue;
} skein_launch;

/* The ndrange_t of OpenCL C (Clang's opencl-c-base.h layout). */
typedef struct skein_ndrange {
  uint32_t work_dim;
  uint64_t global_offset[3];
  uint64_t global_size[3];
  uint64_t local_size[3];
} skein_ndrange;

/* What enqueue_kernel asks the runtime for: a child launch of the block
 * kernel named kernel (compiler/device_enqueue.c replaces the block
 * kernel's address by its name) over nd, with a copy of the block
 * literal (its first 4 bytes are its size) and num_locals __local
 * arguments of the given sizes, after the num_waits events of waits;
 * *event_ret (if not NULL) receives a new event. queue, waits and the
 * events are the runtime's handles (queue_t, clk_event_t). */
typedef struct skein_child_request {
  void *queue;
  int32_t flags;
  const skein_ndrange *nd;
  const char *kernel;
  const void *literal;
  uint32_t num_locals;
  const uint64_t *local_sizes;
  uint32_t num_waits;
  void *const *waits;
  void **event_ret;
} skein_child_request;

/* The runtime's device-side enqueue services (OpenCL C "Enqueuing
 * Kernels"). Each takes the launch's skein_device_enqueue, so the
 * runtime finds the command it belongs to. Return values are OpenCL C's
 * CLK_* codes. Thread-safe: work-items of every group call them. */
typedef struct skein_device_enqueue_ops {
  int32_t (*enqueue_kernel)(struct skein_device_enqueue *d,
                            const skein_child_request *r);
  int32_t (*enqueue_marker)(struct skein_device_enqueue *d, void *queue,
                            uint32_t num_waits, void *const *waits,
                            void **event_ret);
  void *(*default_queue)(struct skein_device_enqueue *d);
  void (*retain_event)(struct skein_device_enqueue *d, void *event);
  void (*release_event)(struct skein_device_enqueue *d, void *event);
  void *(*create_user_event)(struct skein_device_enqueue *d);
  void (*set_user_event_status)(struct skein_device_enqueue *d, void *event,
                                int32_t status);
  int32_t (*is_valid_event)(struct skein_device_enqueue *d, void *event);
  void (*capture_profiling)(struct skein_device_enqueue *d, void *event,
                            int32_t name, uint64_t *out);
  /* get_kernel_work_group_size (what 0), ..._preferred_work_group_size_
   * multiple (1), get_kernel_sub_group_count_for_ndrange (2),
   * get_kernel_max_sub_group_size_for_ndrange (3) of the named block
   * kernel; nd is NULL for 0 and 1. */
  uint32_t (*kernel_query)(struct skein_device_enqueue *d, uint32_t what,
                           const char *kernel, const skein_ndrange *nd);
} skein_device_enqueue_ops;

/* A launch's handle on the runtime's device-side enqueue: the runtime
 * embeds it in its own record of the command. */
typedef struct skein_device_enqueue {
  const skein_device_enqueue_ops *ops;
} skein_device_enqueue;

/* The work-items of a bounds-checked launch that made an access outside
 * its object (which was skipped), one entry per linear local id, so the
 * check's note is a plain store of consecutive work-items and vectorises
 * with the kernel (builtins/bounds.c). Groups write the same entries: the
 * host reports one of the notes when the launch completes. */
#define SKEIN_BOUNDS_SLOTS 1024   /* the device's largest work-group */
typedef struct skein_bounds_report {
  uint32_t site[SKEIN_BOUNDS_SLOTS];    /* check site + 1; 0: none */
  uint64_t offset[SKEIN_BOUNDS_SLOTS];  /* the access's offset in bytes */
  uint64_t group[SKEIN_BOUNDS_SLOTS];   /* linear work-group id */
} skein_bounds_report;

/* A block of printf records: records are reserved in the newest block
 * only, so the records of one work-item are in program order when read
 * block by block, each from its start. */
typedef struct skein_printf_chunk {
  uint64_t used;              /* bytes reserved so far (atomic, never more
                                 than capacity) */
  uint64_t capacity;
  unsigned char *data;        /* capacity bytes, zeroed, 8-byte aligned */
  struct skein_printf_chunk *prev;  /* the block before, or NULL */
  uint64_t seq;               /* 0 for the first block, then 1, 2, ... */
} skein_printf_chunk;

/* The records of every printf call of one launch, appended by the
 * work-items of all groups at once and formatted by the host when the
 * launch has finished (runtime/core/printf.c). It grows: a call whose
 * record does not fit in the newest block asks the host for a larger
 * one, up to CL_DEVICE_PRINTF_BUFFER_SIZE bytes in all. */
typedef struct skein_printf_buffer {
  skein_printf_chunk *current;  /* the newest block (atomic) */
  /* Makes a block that holds at least bytes the newest, if full (which
   * the caller found too full) still is; returns the newest block, or
   * NULL if the launch's blocks would exceed the limit or memory ran
   * out. Thread-safe. */
  skein_printf_chunk *(*grow)(struct skein_printf_buffer *buf,
                              skein_printf_chunk *full, uint64_t bytes);
} skein_printf_buffer;

/* One record in a skein_printf_chunk's data, followed by the call's
 * arguments packed without padding (layout says where each one is). */
typedef struct skein_printf_record {
  uint32_t size;              /* whole record, a multiple of 8 */
  uint32_t arg_size;          /* argument bytes after the header */
  uint64_t group;             /* linear work-group id */
  uint64_t local;             /* linear local id in the group */
  const char *format;         /* the format string (program constant) */
  const char *layout;         /* the arguments' sizes and kinds, from the
                                 compiler (compiler/printf_lower.c) */
} skein_printf_record;

/* One work-group, as the work-group function sees it. Built on the stack
 * of the work-group function; work-item builtins read it. launch,
 * group_id, local_size and local_mem are written only where the
 * work-group function builds the group, never by a builtin or a hook
 * (compiler/bounds_lift.cpp's forward_records relies on it), and the
 * launch is never written while the command runs. */
typedef struct skein_group {
  const skein_launch *launch;
  uint64_t group_id[3];
  uint64_t local_size[3];     /* this group's size (smaller for the last,
                                 partial group of a non-uniform NDRange) */
  uint64_t local_id[3];       /* the current work-item */
  char *local_mem;            /* this group's __local memory block */
  /* Fiber mode only (set by hooks->run_fibers, NULL in loop mode): */
  void *fiber;                /* the scheduler's handle of this work-item */
  uint64_t *collective;       /* per-group scratch for collectives, in
                                 8-byte slots; with n work-items in the
                                 group: [0, n] for work-group collectives
                                 (one per work-item and the group's
                                 result), [n + 1, 2n + 1) for sub-group
                                 collectives (one per work-item, which
                                 also receives its result); at least
                                 SKEIN_COLLECTIVE_SLOTS(n) slots */
} skein_group;

/* The collective slots a group of n work-items needs (see
 * skein_group.collective). */
#define SKEIN_COLLECTIVE_SLOTS(n) (2 * (n) + 1)

/* Runs one work-item in fiber mode; g is the work-item's own copy of the
 * group description, with local_id set. */
typedef void (*skein_wi_fn)(skein_group *g);

/* Services of the scheduler that generated code reaches through
 * skein_launch.hooks (the compiler never links against the scheduler). */
struct skein_hooks {
  /* Runs wi once for every work-item of the group described by proto
   * (all fields but local_id, fiber and collective are used), each as a
   * fiber with a stack of at least stack_size bytes and its own copy of
   * proto. Work-items start in increasing linear local id order and each
   * runs until it returns or calls barrier; then the next one runs.
   * Returns when all have returned. */
  void (*run_fibers)(const skein_group *proto, skein_wi_fn wi,
                     uint64_t stack_size);
  /* Suspends the calling work-item until every work-item of its group
   * has called barrier as many times. Because work-items run in linear id
   * order, the last to arrive is always the one with the highest linear
   * local id: collectives use that to let it compute the group's result
   * before the others resume. */
  void (*barrier)(skein_group *g);
  /* Which memory p points into, as the work-item g sees it: one of
   * SKEIN_ADDR_* (to_global, to_local, to_private, get_fence). */
  unsigned (*address_kind)(const skein_group *g, const void *p);
  /* Suspends the calling work-item until no work-item of its sub-group
   * (launch->sub_group_size consecutive linear ids) can run on: each has
   * called sub_group_barrier, is at a work-group barrier or has returned
   * (those parked at sub_group_operation are served first); other
   * sub-groups need not take part. Work-items of a sub-group run in
   * increasing linear id order. */
  void (*sub_group_barrier)(skein_group *g);
  /* Fiber mode's sub-group operations (builtins/subgroups_nu.c): parks
   * the calling work-item at call site site with member, its part of
   * operation op, until no member of its sub-group can run on (each is
   * parked at a sub-group operation or barrier, at a work-group barrier,
   * or has returned); then the members parked at the same (op, site),
   * the active set, are passed to op in increasing linear id order and
   * resume. Never called in loop or region mode. */
  void (*sub_group_operation)(skein_group *g, skein_sub_group_op op,
                              const void *site, void *member);
  /* Fiber mode's yield, called on each trip round a loop that waits for
   * another work-item (compiler/forward_progress.c): runs work-items of
   * the other sub-groups until each parks or returns (then those of the
   * caller's own), and resumes the caller, which never parks. This is
   * what gives sub-groups independent forward progress. Never called in
   * loop or region mode (such kernels run in fiber mode). */
  void (*yield)(skein_group *g);
};

/* skein_hooks.address_kind's answers: the group's local memory, the
 * work-item's private memory (its stack), anything else (global). */
enum { SKEIN_ADDR_GLOBAL = 0, SKEIN_ADDR_LOCAL = 1, SKEIN_ADDR_PRIVATE = 2 };

/* An image as kernel code sees it. The runtime keeps one in every image
 * object (runtime/core/image.h) and passes a pointer to it for each image
 * argument (args[i] points at a pointer-sized slot holding the
 * skein_image's address); builtins/image.c reads it. Coordinates are
 * pixels: pixel (x, y, z) of a 2D or 3D image, (x, layer) of a 1D array
 * or (x, y, layer) of a 2D array starts at
 *   data + x * element_size + y * row_pitch + z * slice_pitch
 * with z the layer of either array (slice_pitch is an array's layer
 * pitch) and y 0 for a 1D array, so that every type is one formula.
 * Unused dimensions are 1; array_size is 0 for a non-array, as
 * CL_IMAGE_ARRAY_SIZE reports. channel_order and channel_type are the
 * API's CL_* values, which equal OpenCL C's CLK_* values, so
 * get_image_channel_order/_data_type return them unchanged. */
typedef struct skein_image {
  char *data;                 /* pixel (0, 0, 0) */
  uint64_t width;             /* pixels */
  uint64_t height;            /* 1D, 1D buffer, 1D array: 1 */
  uint64_t depth;             /* 3D only; otherwise 1 */
  uint64_t array_size;        /* layers of a 1D/2D array; otherwise 0 */
  uint64_t row_pitch;         /* bytes between rows (y) */
  uint64_t slice_pitch;       /* bytes between 3D slices or array layers;
                                 0 for 1D, 1D buffer and 2D images */
  uint32_t element_size;      /* bytes per pixel: 1 .. 16 */
  uint32_t num_channels;      /* channels stored per pixel: 1 .. 4 */
  uint32_t channel_order;     /* CL_R ... (= CLK_R ...) */
  uint32_t channel_type;      /* CL_UNORM_INT8 ... (= CLK_UNORM_INT8 ...) */
  uint32_t image_type;        /* CL_MEM_OBJECT_IMAGE1D ... */
  uint32_t reserved;
} skein_image;

/* A sampler as kernel code sees it: the OpenCL C sampler_t bits of
 * Clang's opencl-c-base.h, one integer. A sampler_t constant's
 * initialiser is already this value (Clang passes it to
 * __translate_sampler_initializer); a sampler argument's slot holds the
 * same value, widened to 64 bits, made by the runtime from the
 * cl_sampler (rt_sampler_bits). */
enum {
  SKEIN_SAMPLER_NORMALIZED = 0x1,       /* CLK_NORMALIZED_COORDS_TRUE */
  SKEIN_SAMPLER_ADDRESS_MASK = 0xe,     /* CLK_ADDRESS_* */
  SKEIN_SAMPLER_ADDRESS_NONE = 0x0,
  SKEIN_SAMPLER_ADDRESS_CLAMP_TO_EDGE = 0x2,
  SKEIN_SAMPLER_ADDRESS_CLAMP = 0x4,
  SKEIN_SAMPLER_ADDRESS_REPEAT = 0x6,
  SKEIN_SAMPLER_ADDRESS_MIRRORED_REPEAT = 0x8,
  SKEIN_SAMPLER_FILTER_MASK = 0x30,     /* CLK_FILTER_* */
  SKEIN_SAMPLER_FILTER_NEAREST = 0x10,
  SKEIN_SAMPLER_FILTER_LINEAR = 0x20,
};

/* The work-group function generated for every kernel: runs all work-items
 * of group (gx, gy, gz). local_mem is a block of at least the kernel's
 * local memory size, private to this work-group while it runs. */
typedef void (*skein_wg_fn)(const skein_launch *launch, uint64_t gx,
                            uint64_t gy, uint64_t gz, char *local_mem);

#endif
