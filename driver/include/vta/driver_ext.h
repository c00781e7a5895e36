#ifndef VTA_DRIVER_EXT_H_
#define VTA_DRIVER_EXT_H_
/* vta/driver_ext.h: extensions of the driver C API: run status codes, the VTA statistics, and the
 * diagnostic of the last failed run. */

#include <stddef.h>
#include <stdint.h>

#include "vta/driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Return values of VTADeviceRun. */
#define VTA_RUN_OK 0
#define VTA_RUN_TIMEOUT 1
#define VTA_RUN_ERROR 2

/* The seven VTA statistics (spec 7.3), accumulated across runs until cleared, plus the simulated
 * cycle count of backends that have a clock (0 on the fsim). */
typedef struct {
  uint64_t inp_load_nbytes;
  uint64_t wgt_load_nbytes;
  uint64_t acc_load_nbytes;
  uint64_t uop_load_nbytes;
  uint64_t out_store_nbytes;
  uint64_t gemm_counter;
  uint64_t alu_counter;
  uint64_t cycle_count;
} VTAStats;

/* Every call below refuses (with a message on stderr) a handle that VTADeviceAlloc did not return or
 * that was freed; calls on one handle from several threads are serialised.
 * Copies the device's statistics into *stats; returns 0, or -1 for a NULL or unknown argument. */
TVM_DLL int VTADeviceGetStats(VTADeviceHandle device, VTAStats* stats);

/* Resets every statistic to 0. */
TVM_DLL void VTADeviceClearStats(VTADeviceHandle device);

/* Writes the statistics as a JSON object into buf (always NUL-terminated when size > 0); returns the
 * length of the full text, like snprintf, or -1 for a NULL device. */
TVM_DLL int VTADeviceStatsJson(VTADeviceHandle device, char* buf, size_t size);

/* The diagnostic of the last failed VTADeviceRun on this device ("" after a successful run). Valid
 * until the next call on the device. */
TVM_DLL const char* VTADeviceGetLastError(VTADeviceHandle device);

/* The class of the last failed run, the same on every backend for the same program: "none",
 * "invalid_stream", "invalid_instruction", "sram_range", "dram_range", "deadlock", "unfinished",
 * "timeout", "bus_error" or "internal" (docs/ISA.md). A static string. */
TVM_DLL const char* VTADeviceGetLastErrorKind(VTADeviceHandle device);

/* Name of the backend behind the handle ("fsim", ...). */
TVM_DLL const char* VTADeviceTarget(VTADeviceHandle device);

#ifdef __cplusplus
}
#endif
#endif /* VTA_DRIVER_EXT_H_ */
