/* This file contains the tests of cl_khr_device_uuid: the extension is
 * reported with its version, CL_DEVICE_UUID_KHR and CL_DRIVER_UUID_KHR
 * are 16-byte RFC 9562 UUIDs that differ from each other and are the same
 * in another process, the LUID is reported invalid (zeros, node mask 0),
 * and a short buffer is CL_INVALID_VALUE. "--print" prints the two UUIDs
 * in hex (for the other process). */
#include "test_util.h"

#include <CL/cl_ext.h>
#include <stdint.h>

static test_env env;

static void get_uuid(cl_device_info which, uint8_t out[16]) {
  size_t size = 0;
  REQUIRE_OK(clGetDeviceInfo(env.device, which, 16, out, &size));
  CHECK_EQ(size, 16);
}

static void hex(const uint8_t *u, size_t n, char *out) {
  for (size_t i = 0; i < n; i++)
    sprintf(out + 2 * i, "%02x", u[i]);
}

int main(int argc, char **argv) {
  test_setup(&env);
  uint8_t dev[16], drv[16];
  get_uuid(CL_DEVICE_UUID_KHR, dev);
  get_uuid(CL_DRIVER_UUID_KHR, drv);
  char dev_hex[33], drv_hex[33];
  hex(dev, 16, dev_hex);
  hex(drv, 16, drv_hex);
  if (argc > 1 && strcmp(argv[1], "--print") == 0) {
    printf("%s %s\n", dev_hex, drv_hex);
    test_teardown(&env);
    return 0;
  }

  CHECK(test_extension_listed(&env, "cl_khr_device_uuid"));
  CHECK_EQ(test_extension_count(&env, "cl_khr_device_uuid", 0), 1);
  CHECK_EQ(test_extension_count(&env, "cl_khr_device_uuid",
                                CL_MAKE_VERSION(1, 0, 0)),
           1);

  /* Version 8 (custom) and the RFC 9562 variant; distinct and not 0. */
  for (int k = 0; k < 2; k++) {
    const uint8_t *u = k ? drv : dev;
    CHECK_EQ(u[6] >> 4, 8);
    CHECK_EQ(u[8] >> 6, 2);
  }
  CHECK(memcmp(dev, drv, 16) != 0);
  /* The same on every query and in another process. */
  uint8_t again[16];
  get_uuid(CL_DEVICE_UUID_KHR, again);
  CHECK(memcmp(dev, again, 16) == 0);
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "'%s' --print", argv[0]);
  FILE *child = popen(cmd, "r");
  CHECK(child != NULL);
  char line[128] = {0};
  if (child) {
    CHECK(fgets(line, sizeof line, child) != NULL);
    CHECK_EQ(pclose(child), 0);
  }
  char expect[80];
  snprintf(expect, sizeof expect, "%s %s\n", dev_hex, drv_hex);
  if (strcmp(line, expect) != 0) {
    fprintf(stderr, "another process reported %s, this one %s", line,
            expect);
    test_failures++;
  }

  /* No LUID: invalid, zeros, node mask 0. */
  size_t size = 0;
  cl_bool valid = CL_TRUE;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_LUID_VALID_KHR,
                             sizeof valid, &valid, &size));
  CHECK_EQ(size, sizeof(cl_bool));
  CHECK_EQ(valid, CL_FALSE);
  uint8_t luid[CL_LUID_SIZE_KHR];
  memset(luid, 0xff, sizeof luid);
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_LUID_KHR, sizeof luid,
                             luid, &size));
  CHECK_EQ(size, CL_LUID_SIZE_KHR);
  for (int i = 0; i < CL_LUID_SIZE_KHR; i++)
    CHECK_EQ(luid[i], 0);
  cl_uint mask = 1;
  REQUIRE_OK(clGetDeviceInfo(env.device, CL_DEVICE_NODE_MASK_KHR,
                             sizeof mask, &mask, &size));
  CHECK_EQ(size, sizeof(cl_uint));
  CHECK_EQ(mask, 0);

  /* param_value_size smaller than the value: CL_INVALID_VALUE. */
  CHECK_EQ(clGetDeviceInfo(env.device, CL_DEVICE_UUID_KHR, 15, again, NULL),
           CL_INVALID_VALUE);
  CHECK_EQ(clGetDeviceInfo(env.device, CL_DRIVER_UUID_KHR, 8, again, NULL),
           CL_INVALID_VALUE);
  test_teardown(&env);
  return test_finish("device-uuid");
}
