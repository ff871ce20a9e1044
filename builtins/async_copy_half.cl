/* This file contains the half (cl_khr_fp16) forms of the async copy and
 * prefetch built-ins (builtins/async_copy.h, as builtins/async_copy.cl
 * uses it for the other types): a family of its own, so that programs
 * without half never load it. */
#include "builtins.h"

#include "async_copy.h"

SK_HALFS(ASYNC_COPY)
