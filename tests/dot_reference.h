/* This file contains host references of the cl_khr_integer_dot_product
 * functions, shared by tests/test-integer-dot-product.c and
 * tests/test-spirv.c: the dot products of the four bytes of a and b
 * (byte 0 the least significant), each operand read as signed (s) or
 * unsigned (u) bytes, and their saturating sums with an accumulator. */
#ifndef SKEIN_TEST_DOT_REFERENCE_H
#define SKEIN_TEST_DOT_REFERENCE_H

#include <stdbool.h>
#include <stdint.h>

static inline int64_t ref_dot(uint32_t a, uint32_t b, bool a_signed,
                              bool b_signed) {
  int64_t sum = 0;
  for (int k = 0; k < 4; k++) {
    int64_t x = (a >> (8 * k)) & 0xff, y = (b >> (8 * k)) & 0xff;
    if (a_signed && x > 127)
      x -= 256;
    if (b_signed && y > 127)
      y -= 256;
    sum += x * y;
  }
  return sum;
}

static inline int32_t ref_sat_int(int64_t v) {
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

static inline uint32_t ref_sat_uint(int64_t v) {
  return v > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

#endif
