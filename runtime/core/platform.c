/* This file contains Skein's platform singleton and the host clock that
 * device timers, host timers and profiling share. */
#include "platform.h"
#include <pthread.h>
#include <time.h>

static struct _cl_platform_id rt_the_platform;
static pthread_once_t rt_platform_once = PTHREAD_ONCE_INIT;

static void rt_platform_init(void) {
  rt_object_init(&rt_the_platform.obj, RT_PLATFORM);
}

/* Returns the platform, creating it on first use. Thread-safe; the
 * platform lives as long as the library and is never freed. */
cl_platform_id rt_platform(void) {
  pthread_once(&rt_platform_once, rt_platform_init);
  return &rt_the_platform;
}

/* The platform extensions, space-separated (a static string). */
const char *rt_platform_extensions(void) { return "cl_khr_icd"; }

/* Nanoseconds of CLOCK_MONOTONIC. The device is the host CPU, so device
 * and host timers, and profiling timestamps, all read this one clock. */
cl_ulong rt_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (cl_ulong)ts.tv_sec * 1000000000u + (cl_ulong)ts.tv_nsec;
}
