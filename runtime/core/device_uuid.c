/* This file contains the identifiers cl_khr_device_uuid reports: a device
 * UUID derived from the CPU and the machine, and a driver UUID derived
 * from the build, both stable across runs and processes. */
#include "device_uuid.h"
#include "platform.h"

#include <cpuid.h>
#include <llvm-c/Core.h>
#include <stdio.h>
#include <string.h>

/* Two FNV-1a 64-bit hashes of the same bytes with different offset
 * bases, continued from h[0], h[1]. */
static void hash_bytes(uint64_t h[2], const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h[0] = (h[0] ^ p[i]) * 0x100000001b3ull;
    h[1] = (h[1] ^ p[i]) * 0x100000001b3ull;
  }
}

/* The 16 bytes of h as an RFC 9562 UUID of version 8 (custom). */
static void to_uuid(const uint64_t h[2], uint8_t out[16]) {
  for (int i = 0; i < 8; i++) {
    out[i] = (uint8_t)(h[0] >> (56 - 8 * i));
    out[8 + i] = (uint8_t)(h[1] >> (56 - 8 * i));
  }
  out[6] = (uint8_t)((out[6] & 0x0f) | 0x80);   /* version 8 */
  out[8] = (uint8_t)((out[8] & 0x3f) | 0x80);   /* variant 10 */
}

static const uint64_t fnv_bases[2] = {0xcbf29ce484222325ull,
                                      0x84222325cbf29ce4ull};

void rt_device_uuid(uint8_t out[16]) {
  uint64_t h[2] = {fnv_bases[0], fnv_bases[1]};
  hash_bytes(h, "skein-device", 12);
  unsigned r[4];
  /* Vendor (leaf 0), signature (leaf 1's family, model, stepping) and
   * the brand string (leaves 0x80000002-4); never the APIC id or other
   * bits that differ between cores. */
  if (__get_cpuid(0, &r[0], &r[1], &r[2], &r[3]))
    hash_bytes(h, r, sizeof r);
  if (__get_cpuid(1, &r[0], &r[1], &r[2], &r[3]))
    hash_bytes(h, &r[0], sizeof r[0]);
  for (unsigned leaf = 0x80000002u; leaf <= 0x80000004u; leaf++)
    if (__get_cpuid(leaf, &r[0], &r[1], &r[2], &r[3]))
      hash_bytes(h, r, sizeof r);
  FILE *f = fopen("/etc/machine-id", "r");
  if (f) {
    char id[64] = {0};
    size_t n = fread(id, 1, sizeof id - 1, f);
    fclose(f);
    hash_bytes(h, id, n);
  }
  to_uuid(h, out);
}

void rt_driver_uuid(uint8_t out[16]) {
  uint64_t h[2] = {fnv_bases[0], fnv_bases[1]};
  unsigned v[3];
  LLVMGetVersion(&v[0], &v[1], &v[2]);
  char text[128];
  int n = snprintf(text, sizeof text, "skein-driver %s llvm %u.%u.%u",
                   RT_DRIVER_VERSION, v[0], v[1], v[2]);
  hash_bytes(h, text, (size_t)n);
  to_uuid(h, out);
}
