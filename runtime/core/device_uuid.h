/* This file declares the identifiers of cl_khr_device_uuid
 * (device_uuid.c). */
#ifndef SKEIN_DEVICE_UUID_H
#define SKEIN_DEVICE_UUID_H

#include <stdint.h>

/* The device's UUID: a hash of what identifies the CPU (CPUID vendor,
 * signature and brand string) and the machine (/etc/machine-id where it
 * exists), so the same on every run on one machine. */
void rt_device_uuid(uint8_t out[16]);

/* The driver's UUID: a hash of Skein's version and the LLVM version its
 * compiler is built with (what decides whether a program binary made by
 * another driver build loads). */
void rt_driver_uuid(uint8_t out[16]);

#endif
