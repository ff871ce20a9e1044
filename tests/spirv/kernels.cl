// Kernels test-spirv runs twice, built from this source by Skein and from
// the SPIR-V clang-15 and llvm-spirv-15 make of it, comparing the results
// bit for bit. Every kernel takes (out, in, n); in holds n pseudo-random
// words, out is written by the kernel.

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

kernel void arith(global uint *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  uint a = in[i], b = in[(i + 1) % n];
  out[i] = (a * 2654435761u) ^ (b >> 3) ^ rotate(a, 7u) ^ mul_hi(a, b) ^
           (b ? a / b : 0u) ^ add_sat(a, b) ^ clz(a) ^ popcount(b);
}

kernel void float_math(global float *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  float x = (float)(in[i] % 20000u) / 1000.0f - 10.0f;
  out[i] = sin(x) + cos(x) * exp(x * 0.1f) + sqrt(fabs(x)) + fma(x, x, 1.0f) +
           log(fabs(x) + 1.0f) + pow(fabs(x), 1.5f) + floor(x) + tanh(x);
}

kernel void double_math(global double *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  double x = (double)(in[i] % 20000u) / 1000.0 - 10.0;
  out[i] = sin(x) * exp(x * 0.01) + atan2(x, 3.0) + cbrt(x) + hypot(x, 2.0);
}

kernel void vectors(global float4 *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  // Finite values only: a NaN's payload depends on operand order, which
  // the two compilations need not share.
  float4 v = convert_float4(vload4(i % (n / 4), in) & 0xffffu);
  float4 w = v.wzyx * (float4)(1.0f, 2.0f, 3.0f, 4.0f);
  out[i] = select(v, w, v < w) + (float4)(dot(v, w), length(v), 0.0f, 1.0f);
}

kernel void shorts_chars(global short *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  char c = (char)in[i];
  short s = (short)(in[i] >> 8);
  uchar u = (uchar)(in[i] >> 16);
  out[i] = (short)(c * s) + (short)hadd(u, (uchar)c) + abs_diff(s, (short)c) +
           convert_short_sat((int)c * 300);
}

kernel void conversions(global int *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  float f = as_float(in[i] & 0x7f7fffffu) * 1e-30f;
  out[i] = convert_int_sat_rte(f) ^ convert_int_rtz(f * 1e-9f) ^
           (int)convert_uchar_sat((int)in[i]) ^ (int)convert_half(f);
}

kernel void half_math(global half *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  half h = (half)((float)(in[i] % 1000u) / 100.0f);
  // Two statements: within one, clang-15 contracts h * h + 1.5 into a
  // mad (any precision), Clang 19 on x86 into float arithmetic.
  half sq = h * h;
  out[i] = sq + (half)1.5f;
  vstore_half((float)h * 3.0f, i, (global half *)out + n);
}

kernel void atomics(global int *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  atomic_add(&out[0], (int)(in[i] & 0xff));
  atomic_max(&out[1], (int)(in[i] & 0xffff));
  atomic_inc(&out[2]);
  atomic_fetch_add_explicit((volatile global atomic_int *)&out[3], 2,
                            memory_order_relaxed, memory_scope_device);
  atomic_or(&out[4 + (i % 4)], 1 << (in[i] % 31));
}

kernel void local_barrier(global uint *out, global const uint *in, uint n) {
  local uint tile[64];
  size_t l = get_local_id(0), i = get_global_id(0);
  tile[l] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint sum = 0;
  for (uint k = 0; k < get_local_size(0); k++)
    sum += tile[(l + k) % get_local_size(0)] >> (k % 4);
  barrier(CLK_LOCAL_MEM_FENCE);
  tile[get_local_size(0) - 1 - l] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[i] = tile[l];
}

kernel void collectives(global uint *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  uint v = in[i] & 0xffff;
  out[i] = work_group_reduce_add(v) ^ work_group_scan_inclusive_max(v) ^
           work_group_broadcast(v, 3);
}

kernel void loops(global float *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  float acc = 0.0f;
  for (uint k = 0; k < 32; k++)
    acc = acc * 0.5f + (float)(in[(i + k) % n] & 0xff);
  out[i] = acc;
}

typedef struct {
  int a;
  float b;
  long c;
} record;

kernel void structs(global record *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  record r = {(int)in[i], (float)in[i] * 0.5f, (long)in[i] << 20};
  if (i % 3 == 0)
    r.c = -r.c;
  out[i] = r;
}

kernel void workitem(global uint *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  out[i] = (uint)(get_local_id(0) | get_group_id(0) << 8 |
                  get_num_groups(0) << 16 | get_local_size(0) << 24) ^
           (uint)get_global_size(0) ^ get_work_dim() ^ (uint)get_global_offset(0);
}

int helper(int x) { return x * x - 3 * x; }

kernel void calls(global int *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  out[i] = helper((int)(in[i] & 0xfff)) + helper((int)i);
}

kernel void generic_ptr(global int *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  int priv = (int)in[i];
  int *p = (i & 1) ? &priv : (int *)&out[i];
  *p = 7;
  out[i] += priv;
}

// Sub-group functions of the cl_khr_subgroup_* extensions: llvm-spirv
// writes them as OpGroupNonUniform* instructions (and the required size
// as the SubgroupSize execution mode), which the translator reads back.
__attribute__((intel_reqd_sub_group_size(8)))
kernel void subgroups(global uint *out, global const uint *in, uint n) {
  size_t i = get_global_id(0);
  uint x = in[i] % 1000u;
  uint r = sub_group_non_uniform_reduce_add(x) ^ get_sub_group_size();
  if (x & 1u)
    r += sub_group_non_uniform_scan_inclusive_max(x);
  r ^= sub_group_ballot_bit_count(sub_group_ballot(x > 500u)) << 8;
  r += sub_group_clustered_reduce_min(x, 4u);
  r += sub_group_shuffle(x, 1u) + sub_group_shuffle_xor(x, 2u) +
       sub_group_shuffle_up(x, 1u) + sub_group_shuffle_down(x, 1u);
  r += (uint)sub_group_elect() +
       (uint)sub_group_non_uniform_all_equal(x & 0x100u);
  r += sub_group_rotate(x, 3) + sub_group_non_uniform_broadcast(x, 2u);
  r += sub_group_reduce_max(x) + work_group_reduce_add(x);
  out[i] = r;
}

// cl_intel_subgroups through SPV_INTEL_subgroups (cl_intel_spirv_subgroups):
// the four shuffles and a buffer block read and write.
kernel void intel_subgroups(global uint *out, global const uint *in,
                            uint n) {
  size_t i = get_global_id(0);
  uint a = in[i];
  uint s = intel_sub_group_shuffle(a, 3u) ^ intel_sub_group_shuffle_xor(a, 1u) ^
           intel_sub_group_shuffle_down(a, a + 1u, 2u) ^
           intel_sub_group_shuffle_up(a - 1u, a, 1u);
  size_t block = get_group_id(0) * get_local_size(0) +
                 get_sub_group_id() * get_max_sub_group_size();
  uint r = intel_sub_group_block_read(in + block);
  intel_sub_group_block_write(out + block, s ^ (r * 3u));
}
