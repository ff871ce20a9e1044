/* This file declares the one helper behind every clGet*Info query: the
 * size/value protocol the specification gives them all. */
#ifndef SKEIN_RUNTIME_INFO_H
#define SKEIN_RUNTIME_INFO_H

#include "object.h"
#include <string.h>

/* Answers an info query with the size bytes at value:
 * - param_value_size_ret (if not NULL) receives size;
 * - if param_value is not NULL and param_value_size < size, returns
 *   CL_INVALID_VALUE; otherwise copies size bytes there.
 * Returns CL_SUCCESS. */
cl_int rt_info(size_t param_value_size, void *param_value,
               size_t *param_value_size_ret, const void *value, size_t size);

/* Shorthands for the common result types. */
#define RT_INFO_VALUE(type, v)                                             \
  do {                                                                     \
    type rt_info_tmp_ = (v);                                               \
    return rt_info(param_value_size, param_value, param_value_size_ret,    \
                   &rt_info_tmp_, sizeof rt_info_tmp_);                    \
  } while (0)
#define RT_INFO_STRING(s)                                                  \
  do {                                                                     \
    const char *rt_info_str_ = (s);                                        \
    return rt_info(param_value_size, param_value, param_value_size_ret,    \
                   rt_info_str_, strlen(rt_info_str_) + 1);                \
  } while (0)
#define RT_INFO_ARRAY(ptr, count)                                          \
  return rt_info(param_value_size, param_value, param_value_size_ret,      \
                 (ptr), sizeof *(ptr) * (count))

#endif
