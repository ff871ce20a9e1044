// The SPIR-V half of test-spirv's link of an IL object with an OpenCL C
// object: it exports lib_scale, and its kernel calls c_offset, which the
// OpenCL C object defines.
int c_offset(int x);

int lib_scale(int x) { return x * 3 + 1; }

kernel void il_side(global int *out) {
  int i = (int)get_global_id(0);
  out[i] = c_offset(i) + lib_scale(i);
}
