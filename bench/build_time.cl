// The 5-kernel program skein-bench-build builds from OpenCL C and from the
// SPIR-V that clang-15 and llvm-spirv-15 make of it (bench/CMakeLists.txt).

kernel void saxpy(global float *y, global const float *x, float a) {
  size_t i = get_global_id(0);
  y[i] = fma(a, x[i], y[i]);
}

kernel void reduce(global const float *in, global float *out,
                   local float *scratch) {
  size_t l = get_local_id(0), n = get_local_size(0);
  scratch[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = n / 2; s > 0; s /= 2) {
    if (l < s)
      scratch[l] += scratch[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0)
    out[get_group_id(0)] = scratch[0];
}

kernel void matmul(global const float *a, global const float *b,
                   global float *c, int n) {
  int row = get_global_id(1), col = get_global_id(0);
  float acc = 0.0f;
  for (int k = 0; k < n; k++)
    acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}

kernel void math(global float4 *out, global const float4 *in) {
  size_t i = get_global_id(0);
  float4 x = in[i];
  out[i] = sin(x) * exp(-x * x) + sqrt(fabs(x)) * log1p(fabs(x)) +
           pow(fabs(x) + 1.0f, (float4)(0.5f));
}

kernel void histogram(global const uchar *data, global volatile int *bins,
                      uint n) {
  for (uint i = get_global_id(0); i < n; i += get_global_size(0))
    atomic_inc(&bins[data[i]]);
}
