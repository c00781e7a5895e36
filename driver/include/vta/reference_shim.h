#ifndef VTA_REFERENCE_SHIM_H_
#define VTA_REFERENCE_SHIM_H_
/* vta/reference_shim.h: the `vta()` entry point the reference's bare-metal tests
 * (tests/hardware/common/test_lib.cc, built with NO_SIM) call, implemented on the driver API.
 * Those tests address DRAM relative to one base buffer per memory type (micro-ops, inputs, weights,
 * biases = accumulators, outputs), like the HLS design; this shim rebases every LOAD/STORE onto the
 * buffers' physical addresses in a copy of the stream and runs it with VTADeviceRun. Force-include
 * this header when compiling test_lib.cc (see docs/COMPATIBILITY.md). */

#include <stdint.h>

#include "vta/driver_ext.h"
#include "vta/hw_spec.h"

#ifdef __cplusplus
/* Runs insn_count instructions. All buffers must come from VTAMemAlloc; a NULL buffer is allowed
 * when no instruction uses its memory type. Returns the wall time of the run in nanoseconds, or
 * UINT64_MAX when the run failed (the diagnostic is printed to stderr). */
uint64_t vta(uint32_t insn_count, VTAGenericInsn* insns, VTAUop* uops, uint32_t* inputs, uint32_t* weights,
             uint32_t* biases, uint32_t* outputs);
/* Every vta() call runs on one device of the process (created at the first call, on the backend of
 * VTA_TARGET): its statistics accumulate over the calls. Copies them into *stats and returns 0, or
 * returns -1 when no device could be created. */
int vta_shim_stats(VTAStats* stats);
/* Clears those statistics. */
void vta_shim_clear_stats();
#endif

#endif /* VTA_REFERENCE_SHIM_H_ */
