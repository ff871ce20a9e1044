// test-spirv's Pipes case (with CL_DEVICE_PIPE_SUPPORT): llvm-spirv
// writes OpWritePipe/OpReadPipe, which it reads back as Clang's
// __write_pipe_2/__read_pipe_2 calls. The producer writes in[i] to the
// pipe, the consumer reads one packet per work-item (0xffffffff if the
// pipe was empty).
kernel void pipe_producer(global const uint *in, write_only pipe uint p) {
  uint v = in[get_global_id(0)];
  write_pipe(p, &v);
}

kernel void pipe_consumer(global uint *out, read_only pipe uint p) {
  uint v = 0;
  if (read_pipe(p, &v) != 0)
    v = 0xffffffffu;
  out[get_global_id(0)] = v;
}
