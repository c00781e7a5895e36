#ifndef VTA_DRIVER_H_
#define VTA_DRIVER_H_
/* vta/driver.h: the device driver C API, source compatible with the reference. Device memory is
 * simulated physical memory shared by every backend; the backend behind a device handle is chosen by
 * the environment variable VTA_TARGET (fsim by default). Extensions (statistics, diagnostics) are in
 * vta/driver_ext.h. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TVM_DLL
#define TVM_DLL __attribute__((visibility("default")))
#endif

/* Memory management constants for cached / non-cached memory (both are coherent in simulation). */
#define VTA_CACHED 1
#define VTA_NOT_CACHED 0

/* Largest physically contiguous transfer the runtime stages at once. */
#ifndef VTA_MAX_XFER
#define VTA_MAX_XFER (1 << 25)
#endif

#define VTA_PAGE_BITS 12
#define VTA_PAGE_BYTES (1 << VTA_PAGE_BITS)

/* Opaque device context. */
typedef void* VTADeviceHandle;

/* A device-visible physical address; 0 is never a valid address. */
#ifdef USE_VTA64
typedef uint64_t vta_phy_addr_t;
#else
typedef uint32_t vta_phy_addr_t;
#endif

/* Creates a device of the backend named by VTA_TARGET (fsim if unset); NULL (with a message on
 * stderr) if the backend is unknown. */
TVM_DLL VTADeviceHandle VTADeviceAlloc(void);

/* Destroys a device; NULL is ignored, an unknown or already freed handle is reported on stderr. */
TVM_DLL void VTADeviceFree(VTADeviceHandle handle);

/* Runs insn_count instructions starting at insn_phy_addr (16-byte aligned, inside one VTAMemAlloc
 * buffer) until FINISH completes. wait_cycles bounds the run (0 = the backend's default bound).
 * Returns 0 on success, 1 on timeout, 2 on an invalid program or device error; the diagnostic is
 * printed to stderr and kept for VTADeviceGetLastError (vta/driver_ext.h). */
TVM_DLL int VTADeviceRun(VTADeviceHandle device, vta_phy_addr_t insn_phy_addr, uint32_t insn_count,
                         uint32_t wait_cycles);

/* Allocates page-aligned, physically contiguous device memory (zero-filled); NULL (with a message on
 * stderr) for size 0, a size beyond the physical address space, or when memory is exhausted. */
TVM_DLL void* VTAMemAlloc(size_t size, int cached);

/* Frees memory from VTAMemAlloc; NULL is ignored, any other pointer is reported on stderr. */
TVM_DLL void VTAMemFree(void* buf);

/* Physical address of a VTAMemAlloc buffer (interior pointers accepted); 0 if not device memory. */
TVM_DLL vta_phy_addr_t VTAMemGetPhyAddr(void* buf);

/* Copies between host memory and device memory. A device-side range that runs past the end of its
 * VTAMemAlloc buffer is refused with a message on stderr and nothing is copied. */
TVM_DLL void VTAMemCopyFromHost(void* dst, const void* src, size_t size);
TVM_DLL void VTAMemCopyToHost(void* dst, const void* src, size_t size);

/* Cache maintenance: no-ops, simulated device memory is coherent. */
TVM_DLL void VTAFlushCache(void* vir_addr, vta_phy_addr_t phy_addr, int size);
TVM_DLL void VTAInvalidateCache(void* vir_addr, vta_phy_addr_t phy_addr, int size);

/* Programs a bitstream: nothing to do for simulated backends. */
TVM_DLL void VTAProgram(const char* bitstream);

#ifdef __cplusplus
}
#endif
#endif /* VTA_DRIVER_H_ */
