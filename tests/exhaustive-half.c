/* This file contains the exhaustive sweep of cl_khr_fp16: the checks of
 * test-builtins-half.c with every half value as the first operand of every
 * function (random second operands) and every vector width. */
#define HALF_EXHAUSTIVE 1
#include "test-builtins-half.c"
