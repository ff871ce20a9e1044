/* This file contains the executor: one runtime thread that runs commands
 * whose dependencies are complete, in the order they became ready.
 * Kernels fan out to the scheduler's workers from here; blocking calls
 * whose command is ready at once run it on the calling thread instead. */
#include "event.h"
#include <pthread.h>
#include <stdlib.h>

static pthread_once_t executor_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t executor_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t executor_wake = PTHREAD_COND_INITIALIZER;
static cl_event ready_head, ready_tail; /* guarded by executor_lock */
static bool executor_running;

static void *executor_main(void *unused) {
  (void)unused;
  for (;;) {
    pthread_mutex_lock(&executor_lock);
    while (!ready_head)
      pthread_cond_wait(&executor_wake, &executor_lock);
    cl_event ev = ready_head;
    ready_head = ev->next_ready;
    if (!ready_head)
      ready_tail = NULL;
    pthread_mutex_unlock(&executor_lock);
    ev->next_ready = NULL;
    rt_command_execute(ev);
  }
  return NULL;
}

static void executor_start(void) {
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  executor_running = pthread_create(&thread, &attr, executor_main, NULL) == 0;
  pthread_attr_destroy(&attr);
}

void rt_executor_push(cl_event ev) {
  pthread_once(&executor_once, executor_start);
  if (!executor_running) { /* defensive: no thread, run it here */
    rt_command_execute(ev);
    return;
  }
  pthread_mutex_lock(&executor_lock);
  ev->next_ready = NULL;
  if (ready_tail)
    ready_tail->next_ready = ev;
  else
    ready_head = ev;
  ready_tail = ev;
  pthread_cond_signal(&executor_wake);
  pthread_mutex_unlock(&executor_lock);
}
