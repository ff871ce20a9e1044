// Device-side enqueue from SPIR-V (tests/test-spirv-enqueue.c): the
// module clang-15 and llvm-spirv-15 make of this file declares
// DeviceEnqueue and holds OpEnqueueKernel (with and without events and
// __local sizes), OpEnqueueMarker, OpBuildNDRange (1D, 2D, 3D), the
// event instructions, the four kernel queries and OpGetDefaultQueue. The
// test builds this source too, and both must match its host references.
// Skein translates such modules in llvm-spirv's OpenCL 2.0 reading, which
// also spells atomics and barriers the 2.0 way: the children and
// `atomics` use those too.

// Each work-item of the parent enqueues a 1D child over its own slice.
kernel void grid1(global int *a, int tag) {
  size_t i = get_global_id(0);
  int r = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT,
      ndrange_1D(i * 64, 64, 16),
      ^{ size_t g = get_global_id(0);
         a[g] = tag + (int)g * 3 + (int)i
              + 1000 * (int)(get_group_id(0) * 16 + get_local_id(0)
                             == g - get_global_offset(0))
              + 100000 * (get_work_dim() == 1 && get_global_size(0) == 64 &&
                          get_local_size(0) == 16); });
  if (r != CLK_SUCCESS)
    a[i] = -1000000;
}

// A 2D child with an offset and a local size, a 3D child with a local
// size, and one with its global size only.
kernel void grid23(global int *a) {
  size_t g[2] = {12, 10}, l[2] = {4, 5}, o[2] = {2, 3};
  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,
      ndrange_2D(o, g, l),
      ^{ size_t x = get_global_id(0) - 2, y = get_global_id(1) - 3;
         a[y * 12 + x] = (int)(get_group_id(0) + 10 * get_group_id(1)
             + 100 * get_local_id(0) + 1000 * get_local_id(1)
             + 10000 * get_work_dim()
             + 100000 * (get_num_groups(0) * get_num_groups(1))); });
  size_t g3[3] = {8, 6, 4}, l3[3] = {2, 3, 2};
  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,
      ndrange_3D(g3, l3),
      ^{ size_t x = get_global_id(0), y = get_global_id(1),
                z = get_global_id(2);
         a[120 + (z * 6 + y) * 8 + x] = (int)(get_local_linear_id()
             + 100 * get_group_id(2) + 1000 * get_work_dim()
             + 10000 * get_global_linear_id()); });
  size_t g4[3] = {3, 2, 2};
  enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,
      ndrange_3D(g4),
      ^{ a[312 + get_global_linear_id()] = 7 + (int)get_global_size(2); });
}

// A chain through events: A writes x, B (waiting for A) doubles it into
// y, a marker waits for both, C (waiting for the marker) adds 1 into z;
// D waits for C and a user event that E, enqueued after it, completes
// after writing what D reads. (No is_valid_event(CLK_NULL_EVENT): llvm-spirv
// 15 writes it as an OpConvertUToPtr to OpTypeDeviceEvent, which
// spirv-val rejects.)
kernel void chain(global int *x, global int *y, global int *z,
                  global int *flags, global ulong *prof) {
  queue_t q = get_default_queue();
  clk_event_t a, b, m, c, u;
  int n = 256;
  flags[0] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(n, 32),
      0, NULL, &a, ^{ x[get_global_id(0)] = (int)get_global_id(0) * 5; });
  flags[1] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(n, 32),
      1, &a, &b, ^{ y[get_global_id(0)] = x[get_global_id(0)] * 2; });
  clk_event_t both[2] = {a, b};
  flags[2] = enqueue_marker(q, 2, both, &m);
  flags[3] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(n),
      1, &m, &c, ^{ z[get_global_id(0)] = y[get_global_id(0)] + 1; });
  u = create_user_event();
  flags[4] = is_valid_event(u);
  clk_event_t cu[2] = {c, u};
  flags[5] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),
      2, cu, NULL, ^{ flags[6] = z[n - 1] + flags[8]; });
  flags[8] = 0;
  enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(1),
      ^{ flags[8] = 2; set_user_event_status(u, CL_COMPLETE); });
  capture_event_profiling_info(a, CLK_PROFILING_COMMAND_EXEC_TIME, prof);
  retain_event(a);
  release_event(a);
  release_event(a);
  release_event(b);
  release_event(m);
  release_event(c);
  release_event(u);
}

// __local block arguments: each group of the child sums its 64 elements
// through one local array (barriers) and scales by a second local
// argument; then one with an event and one local argument.
kernel void sums(global const int *in, global int *out) {
  void (^blk)(local void *, local void *) =
      ^(local void *p, local void *q) {
    local int *s = p;
    local int *t = q;
    size_t l = get_local_id(0);
    s[l] = in[get_global_id(0)];
    if (l == 0)
      t[0] = 3;
    for (size_t h = get_local_size(0) / 2; h; h /= 2) {
      barrier(CLK_LOCAL_MEM_FENCE);
      if (l < h)
        s[l] += s[l + h];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0)
      out[get_group_id(0)] = s[0] * t[0];
  };
  out[100] = enqueue_kernel(get_default_queue(),
      CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(64 * 8, 64), blk,
      (uint)(64 * sizeof(int)), (uint)sizeof(int));
  clk_event_t e;
  out[101] = enqueue_kernel(get_default_queue(),
      CLK_ENQUEUE_FLAGS_WAIT_KERNEL, ndrange_1D(64 * 2, 64), 0, NULL, &e,
      ^(local void *p) {
        local int *s = p;
        s[get_local_id(0)] = 1;
        work_group_barrier(CLK_LOCAL_MEM_FENCE);
        if (get_local_id(0) == 0)
          out[8 + get_group_id(0)] = s[63] + (int)get_local_size(0);
      },
      (uint)(64 * sizeof(int)));
  release_event(e);
}

// The flags' promises: a WAIT_KERNEL child runs after every work-group
// of its parent; a WAIT_WORK_GROUP child after its enqueuing group.
kernel void wait_kernel(global int *a, global int *out) {
  size_t i = get_global_id(0), n = get_global_size(0);
  if (i == 0)
    enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,
        ndrange_1D(1), ^{ int s = 0;
          for (size_t k = 0; k < n; k++) s += a[k];
          out[0] = s; });
  a[i] = (int)i * 2 + 1;
}

kernel void wait_group(global int *a, global int *out) {
  size_t i = get_global_id(0), g = get_group_id(0);
  size_t base = g * get_local_size(0), n = get_local_size(0);
  if (get_local_id(0) == 0)
    enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_WORK_GROUP,
        ndrange_1D(1), ^{ int s = 0;
          for (size_t k = 0; k < n; k++) s += a[base + k];
          out[1 + g] = s; });
  a[i] = (int)i + 7;
}

// The kernel queries of a block, and a queue_t kernel argument; the
// children count through legacy and C11 atomics. A marker without
// events is CLK_INVALID_EVENT_WAIT_LIST.
kernel void queries(queue_t q, global int *out, volatile global int *count) {
  size_t g3[3] = {4, 6, 2}, l3[3] = {2, 3, 2};
  ndrange_t nd = ndrange_3D(g3, l3);
  void (^b)(void) = ^{ atomic_inc(count); };
  out[0] = (int)get_kernel_work_group_size(b);
  out[1] = (int)get_kernel_preferred_work_group_size_multiple(b);
  out[2] = (int)get_kernel_sub_group_count_for_ndrange(nd, b);
  out[3] = (int)get_kernel_max_sub_group_size_for_ndrange(nd, b);
  out[4] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, nd, b);
  out[5] = enqueue_kernel(q, CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(10),
      ^{ atomic_fetch_add_explicit((volatile global atomic_int *)count, 100,
                                   memory_order_relaxed,
                                   memory_scope_device); });
  out[6] = enqueue_marker(q, 0, NULL, NULL);
}

// No enqueue: the 2.0 reading of atomics, fences and barriers.
kernel void atomics(global int *c, global int *out, global int *scratch) {
  size_t i = get_global_id(0), l = get_local_id(0);
  atomic_inc(&c[0]);
  atomic_add(&c[1], (int)i);
  atomic_max(&c[2], (int)i);
  atomic_min(&c[3], -(int)i);
  atomic_or(&c[4], 1 << (i % 31));
  atomic_xor(&c[5], (int)i);
  atomic_cmpxchg(&c[6], 0, 5);
  atomic_fetch_sub_explicit((volatile global atomic_int *)&c[7], 2,
                            memory_order_acq_rel, memory_scope_work_group);
  atomic_fetch_and((volatile global atomic_int *)&c[8], ~(1 << (i % 31)));
  int expected = 0;
  if (atomic_compare_exchange_strong(
          (volatile global atomic_int *)&c[9], &expected, (int)i + 1))
    atomic_store((volatile global atomic_int *)&c[10], 1);
  scratch[i] = (int)i * 3;
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  barrier(CLK_GLOBAL_MEM_FENCE);
  work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_work_group);
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst,
                         memory_scope_work_group);
  size_t base = i - l, n = get_local_size(0);
  out[i] = scratch[base + (l + 1) % n] +
           atomic_load((volatile global atomic_int *)&c[11]);
}

// Reserve ids (OpTypeReserveId), in the 2.0 reading too: each work-item
// writes two packets through its own reservation and one through its
// group's; pipe_counts reads the pipe's packet counts; reserve_read
// reads three packets per work-item through its own reservations.
kernel void reserve_write(write_only pipe int p, global const int *in) {
  size_t i = get_global_id(0);
  reserve_id_t r = reserve_write_pipe(p, 2);
  if (is_valid_reserve_id(r)) {
    write_pipe(p, r, 0, &in[2 * i]);
    write_pipe(p, r, 1, &in[2 * i + 1]);
    commit_write_pipe(p, r);
  }
  reserve_id_t w = work_group_reserve_write_pipe(p, get_local_size(0));
  if (is_valid_reserve_id(w))
    write_pipe(p, w, get_local_id(0), &in[2 * get_global_size(0) + i]);
  work_group_commit_write_pipe(p, w);
}

kernel void pipe_counts(read_only pipe int p, global int *counts) {
  counts[0] = (int)get_pipe_num_packets(p);
  counts[1] = (int)get_pipe_max_packets(p);
}

kernel void reserve_read(read_only pipe int p, global int *out) {
  size_t i = get_global_id(0);
  reserve_id_t r = reserve_read_pipe(p, 3);
  if (is_valid_reserve_id(r)) {
    for (uint k = 0; k < 3; k++)
      read_pipe(p, r, k, &out[3 * i + k]);
    commit_read_pipe(p, r);
  }
}
