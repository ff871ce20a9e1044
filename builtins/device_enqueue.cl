/* This file contains the ndrange_t constructors of OpenCL C 3.0 section
 * 6.15.16.4 ("Enqueuing Kernels"): ndrange_1D, ndrange_2D and ndrange_3D
 * with a global size, a global and local size, or an offset, a global
 * and a local size. A local size of 0 lets the runtime choose
 * (runtime/core/device_queue.c). The enqueue functions themselves are
 * builtins/device_enqueue.c. */

/* An ndrange of dim dimensions; o, g, l are NULL where not given. */
static ndrange_t make(uint dim, const size_t *o, const size_t *g,
                      const size_t *l) {
  ndrange_t r;
  r.workDimension = dim;
  for (uint i = 0; i < 3; i++) {
    r.globalWorkOffset[i] = o && i < dim ? o[i] : 0;
    r.globalWorkSize[i] = i < dim ? g[i] : 1;
    r.localWorkSize[i] = l && i < dim ? l[i] : (i < dim ? 0 : 1);
  }
  return r;
}

ndrange_t __attribute__((overloadable)) ndrange_1D(size_t g) {
  return make(1, 0, &g, 0);
}
ndrange_t __attribute__((overloadable)) ndrange_1D(size_t g, size_t l) {
  return make(1, 0, &g, &l);
}
ndrange_t __attribute__((overloadable)) ndrange_1D(size_t o, size_t g,
                                                   size_t l) {
  return make(1, &o, &g, &l);
}

#define ND(NAME, D)                                                            \
  ndrange_t __attribute__((overloadable)) NAME(                  \
      const size_t g[D]) {                                                 \
    return make(D, 0, g, 0);                                               \
  }                                                                        \
  ndrange_t __attribute__((overloadable)) NAME(                  \
      const size_t g[D], const size_t l[D]) {                              \
    return make(D, 0, g, l);                                               \
  }                                                                        \
  ndrange_t __attribute__((overloadable)) NAME(                  \
      const size_t o[D], const size_t g[D], const size_t l[D]) {           \
    return make(D, o, g, l);                                               \
  }
ND(ndrange_2D, 2)
ND(ndrange_3D, 3)
