/* Tests SKEIN_PERF=map (compiler/jit_listeners.cpp): after a kernel has
 * been built and run, /tmp/perf-<pid>.map names its work-group function
 * with a nonzero size, at an address inside an executable mapping of
 * this process (where perf would find the samples). */
#include "test_util.h"
#include <unistd.h>

static const char *source =
    "kernel void perf_probe(global int *a) {\n"
    "  a[get_global_id(0)] = (int)get_global_id(0) * 7;\n"
    "}\n";

/* Whether [addr, addr + size) lies in one executable mapping. */
static int in_executable_mapping(unsigned long long addr,
                                 unsigned long long size) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f)
    return 0;
  char line[512];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned long long lo, hi;
    char perms[8];
    if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) == 3 &&
        perms[2] == 'x' && addr >= lo && addr + size <= hi)
      found = 1;
  }
  fclose(f);
  return found;
}

int main(void) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
  unlink(path);
  setenv("SKEIN_PERF", "map", 1);
  test_env env;
  test_setup(&env);
  cl_program p = test_build(&env, source, "");
  enum { N = 256 };
  int out[N];
  cl_mem m = test_buffer(&env, sizeof out, NULL);
  test_run_1d(&env, p, "perf_probe", N, &m, 1);
  REQUIRE_OK(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, sizeof out, out,
                                 0, NULL, NULL));
  for (int i = 0; i < N; i++)
    CHECK_EQ(out[i], i * 7);

  /* Read while the program's code is still loaded. */
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  int entries = 0, wg = 0;
  if (f) {
    char line[512], name[256];
    unsigned long long addr, size;
    while (fgets(line, sizeof line, f)) {
      CHECK_EQ(sscanf(line, "%llx %llx %255s", &addr, &size, name), 3);
      entries++;
      if (strcmp(name, "__skein_wg_perf_probe") == 0) {
        wg++;
        CHECK(size > 0);
        CHECK(in_executable_mapping(addr, size));
      }
    }
    fclose(f);
  }
  CHECK(entries >= 1);
  CHECK_EQ(wg, 1);
  test_release_buffers(&m, 1);
  clReleaseProgram(p);
  test_teardown(&env);
  unlink(path);
  return test_finish("perf-map");
}
