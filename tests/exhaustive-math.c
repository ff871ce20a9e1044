/* This file contains the exhaustive sweep of key float math builtins:
 * sin, cos, exp and log on all 2^32 float inputs, and pow on a
 * 4096 x 4096 grid of bit patterns spread over the whole range, each
 * compared with glibc's double result (within 1 ULP of double, so
 * exact to 2^-28 ULP of float) at the spec's float ULP bound. It takes
 * minutes: ctest runs it under the name prefix exhaustive- only. */
#define _GNU_SOURCE
#include "test_util.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define CHUNK (1u << 24)      /* inputs per launch */
#define GRID 4096             /* pow: x and y bit patterns per axis */

typedef double (*ref1)(double);

typedef struct sweep {
  const char *name;
  ref1 ref;                    /* NULL: pow */
  double bound;                /* float ULP bound (full profile) */
} sweep;

static const sweep sweeps[] = {
  {"sin", sin, 4}, {"cos", cos, 4}, {"exp", exp, 3}, {"log", log, 3},
  {"pow", NULL, 16},
};

/* ULP error of float got against the double reference, the spec's
 * overflow allowance included; INFINITY for a wrong special value. */
static double ulp_error(double ref, float got) {
  if (isnan(ref))
    return isnan(got) ? 0 : INFINITY;
  if (isnan(got))
    return INFINITY;
  if (isinf(ref) || ref == 0)
    return got == ref && !signbit(got) == !signbit(ref) ? 0 : INFINITY;
  int e = ilogb(ref);
  e = e < -126 ? -126 : e > 127 ? 127 : e;
  double ulp = ldexp(1, e - 23);
  if (isinf(got)) {
    if (!signbit(got) != !signbit(ref))
      return INFINITY;
    double d = ldexp(1, 128) - fabs(ref);
    return d > 0 ? d / ulp : 0;
  }
  return fabs((double)got - ref) / ulp;
}

/* One chunk's host check, split over two threads. */
typedef struct job {
  const sweep *s;
  const float *x, *y, *r;
  size_t begin, end;
  double worst;
  unsigned long long failures;
} job;

static void *check_range(void *arg) {
  job *j = arg;
  for (size_t i = j->begin; i < j->end; i++) {
    double ref = j->s->ref ? j->s->ref(j->x[i]) : pow(j->x[i], j->y[i]);
    double err = ulp_error(ref, j->r[i]);
    if (err > j->worst && isfinite(err))
      j->worst = err;
    if (err > j->s->bound) {
      if (j->failures++ < 5)
        fprintf(stderr, "%s(%a%s%a): got %a, want %a (%.2f ulp)\n",
                j->s->name, j->x[i], j->s->ref ? "" : ", ",
                j->s->ref ? 0.0f / 0.0f : j->y[i], j->r[i], ref, err);
    }
  }
  return NULL;
}

static void check_chunk(const sweep *s, const float *x, const float *y,
                        const float *r, size_t n, double *worst,
                        unsigned long long *failures) {
  job jobs[2] = {{s, x, y, r, 0, n / 2, 0, 0}, {s, x, y, r, n / 2, n, 0, 0}};
  pthread_t t;
  pthread_create(&t, NULL, check_range, &jobs[1]);
  check_range(&jobs[0]);
  pthread_join(t, NULL);
  for (int k = 0; k < 2; k++) {
    if (jobs[k].worst > *worst)
      *worst = jobs[k].worst;
    *failures += jobs[k].failures;
  }
}

/* The inputs of chunk c: every float bit pattern in order, or for pow
 * the grid (x: the high 12 bits, y: the next 12, spread over all
 * exponents, with a fixed pattern in the low bits). */
static void fill_inputs(const sweep *s, uint64_t c, float *x, float *y) {
  for (uint32_t i = 0; i < CHUNK; i++) {
    uint64_t k = c * CHUNK + i;
    uint32_t bx, by;
    if (s->ref) {
      bx = (uint32_t)k;
      by = 0;
    } else {
      bx = (uint32_t)(k / GRID) << 20 | 0x5a5a5u;
      by = (uint32_t)(k % GRID) << 20 | 0x3c3c3u;
    }
    memcpy(&x[i], &bx, 4);
    memcpy(&y[i], &by, 4);
  }
}

int main(void) {
  test_env env;
  test_setup(&env);
  const char *src =
      "kernel void f1(global const float16 *x, global float16 *r) {\n"
      "  size_t i = get_global_id(0); r[i] = FN(x[i]);\n}\n"
      "kernel void f2(global const float16 *x, global const float16 *y,\n"
      "               global float16 *r) {\n"
      "  size_t i = get_global_id(0); r[i] = pow(x[i], y[i]);\n}\n";
  float *x = malloc(CHUNK * 4), *y = malloc(CHUNK * 4), *r = malloc(CHUNK * 4);
  cl_int err;
  cl_mem bx = clCreateBuffer(env.context, CL_MEM_READ_ONLY, CHUNK * 4, NULL,
                             &err);
  cl_mem by = clCreateBuffer(env.context, CL_MEM_READ_ONLY, CHUNK * 4, NULL,
                             &err);
  cl_mem br = clCreateBuffer(env.context, CL_MEM_WRITE_ONLY, CHUNK * 4, NULL,
                             &err);
  REQUIRE_OK(err);
  for (size_t k = 0; k < sizeof(sweeps) / sizeof(sweeps[0]); k++) {
    const sweep *s = &sweeps[k];
    char opts[32];
    snprintf(opts, sizeof opts, "-DFN=%s", s->ref ? s->name : "sin");
    cl_program p = test_build(&env, src, opts);
    cl_kernel kern = clCreateKernel(p, s->ref ? "f1" : "f2", &err);
    REQUIRE_OK(err);
    cl_mem args[3] = {bx, s->ref ? br : by, br};
    for (cl_uint a = 0; a < (s->ref ? 2u : 3u); a++)
      REQUIRE_OK(clSetKernelArg(kern, a, sizeof(cl_mem), &args[a]));
    uint64_t chunks = s->ref ? (1ull << 32) / CHUNK
                             : ((uint64_t)GRID * GRID + CHUNK - 1) / CHUNK;
    double worst = 0;
    unsigned long long failures = 0;
    for (uint64_t c = 0; c < chunks; c++) {
      fill_inputs(s, c, x, y);
      REQUIRE_OK(clEnqueueWriteBuffer(env.queue, bx, CL_FALSE, 0, CHUNK * 4,
                                      x, 0, NULL, NULL));
      if (!s->ref)
        REQUIRE_OK(clEnqueueWriteBuffer(env.queue, by, CL_FALSE, 0,
                                        CHUNK * 4, y, 0, NULL, NULL));
      size_t global = CHUNK / 16;
      REQUIRE_OK(clEnqueueNDRangeKernel(env.queue, kern, 1, NULL, &global,
                                        NULL, 0, NULL, NULL));
      REQUIRE_OK(clEnqueueReadBuffer(env.queue, br, CL_TRUE, 0, CHUNK * 4, r,
                                     0, NULL, NULL));
      check_chunk(s, x, y, r, CHUNK, &worst, &failures);
      if (getenv("SKEIN_EXHAUSTIVE_PROGRESS"))
        fprintf(stderr, "%s: chunk %llu/%llu\n", s->name,
                (unsigned long long)c + 1, (unsigned long long)chunks);
    }
    printf("%s: max %.3f ulp (bound %.0f), %llu failure(s)\n", s->name,
           worst, s->bound, failures);
    CHECK_EQ(failures, 0);
    clReleaseKernel(kern);
    clReleaseProgram(p);
  }
  clReleaseMemObject(bx);
  clReleaseMemObject(by);
  clReleaseMemObject(br);
  free(x);
  free(y);
  free(r);
  test_teardown(&env);
  return test_finish("exhaustive-math");
}
