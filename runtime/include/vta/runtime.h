#ifndef VTA_RUNTIME_H_
#define VTA_RUNTIME_H_
/* vta/runtime.h: the VTA runtime C API, with the reference's names and argument orders: the calls a
 * compiled VTA operator makes (2D DMA loads and stores, micro-op kernels, dependency tokens,
 * synchronize). One command queue per thread, on the device VTADeviceAlloc would create.
 *
 * Errors: a call that is misused (a value that does not fit its instruction field, unbalanced
 * tokens, a kernel that breaks the recording rules, ...) prints a message naming the problem to stderr
 * and poisons the current batch: later calls are ignored until VTASynchronize, which discards the
 * batch and returns non-zero. VTARuntimeGetLastError returns the message. */

#include <stddef.h>
#include <stdint.h>

#include "vta/driver.h"
#include "vta/driver_ext.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void* VTACommandHandle;

/* Debug flags of VTASetDebugMode. */
#define VTA_DEBUG_DUMP_INSN (1 << 1)
#define VTA_DEBUG_DUMP_UOP (1 << 2)
#define VTA_DEBUG_SKIP_READ_BARRIER (1 << 3)
#define VTA_DEBUG_SKIP_WRITE_BARRIER (1 << 4)
#define VTA_DEBUG_FORCE_SERIAL (1 << 5)

/* The calling thread's command queue, created on first use. */
TVM_DLL VTACommandHandle VTATLSCommandHandle(void);
/* Destroys the calling thread's command queue (pending work is discarded). */
TVM_DLL void VTARuntimeShutdown(void);
TVM_DLL void VTASetDebugMode(VTACommandHandle cmd, int debug_flag);

/* Device data buffers. VTABufferAlloc returns an opaque handle, not the data pointer. */
TVM_DLL void* VTABufferAlloc(size_t size);
TVM_DLL void VTABufferFree(void* buffer);
/* The host address of a buffer's data (the handle itself if it is not a buffer handle). */
TVM_DLL void* VTABufferCPUPtr(VTACommandHandle cmd, void* buffer);
/* Copies between buffers (kind_mask bit 1: source is a device buffer, bit 0: destination is). */
TVM_DLL void VTABufferCopy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t size,
                           int kind_mask);
/* Names a buffer in the call trace (extension). */
TVM_DLL void VTABufferSetName(void* buffer, const char* name);
/* Cache maintenance for a range of a buffer (no-ops on coherent simulated memory). */
TVM_DLL void VTAWriteBarrier(VTACommandHandle cmd, void* buffer, uint32_t elem_bits, uint32_t start, uint32_t extent);
TVM_DLL void VTAReadBarrier(VTACommandHandle cmd, void* buffer, uint32_t elem_bits, uint32_t start, uint32_t extent);

/* DMA: a 2D load of y_size rows of x_size elements (pitch x_stride) with zero padding into an SRAM,
 * and a 2D store from the output buffer. Offsets and sizes are in elements of the memory type. */
TVM_DLL void VTALoadBuffer2D(VTACommandHandle cmd, void* src_dram_addr, uint32_t src_elem_offset, uint32_t x_size,
                             uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before, uint32_t y_pad_before,
                             uint32_t x_pad_after, uint32_t y_pad_after, uint32_t dst_sram_index,
                             uint32_t dst_memory_type);
TVM_DLL void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index, uint32_t src_memory_type,
                              void* dst_dram_addr, uint32_t dst_elem_offset, uint32_t x_size, uint32_t y_size,
                              uint32_t x_stride);

/* Micro-op kernel recording, valid only inside the finit callback of VTAPushGEMMOp/VTAPushALUOp:
 * up to two loops (outer first) opened before the first VTAUopPush. mode 0 = GEMM, 1 = ALU. */
TVM_DLL void VTAUopLoopBegin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor, uint32_t wgt_factor);
TVM_DLL void VTAUopLoopEnd(void);
TVM_DLL void VTAUopPush(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index, uint32_t wgt_index,
                        uint32_t opcode, uint32_t use_imm, int32_t imm_val);

/* Appends a GEMM / ALU instruction running a micro-op kernel. *uop_handle identifies the call site
 * (initially NULL); signature/nbytes is the closure (nbytes 0, or 4 for one int such as the
 * virtual-thread index). The first time a (call site, closure) is seen, finit(signature) records the
 * kernel. A kernel is loaded into the micro-op SRAM once per synchronize batch, at first use.
 * Returns 0, or non-zero on misuse. */
TVM_DLL int VTAPushGEMMOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes);
TVM_DLL int VTAPushALUOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes);

/* Dependency tokens between stages 1 (load), 2 (compute), 3 (store); load<->store is not a pair. */
TVM_DLL int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid);
TVM_DLL int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid);

/* Closes the batch (tokens, FINISH), runs it on the device and waits; wait_cycles bounds the run.
 * Returns 0, or non-zero when the batch was poisoned or the device reported an error or timeout
 * (extension: the reference returns void). */
TVM_DLL int VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles);

/* The statistics of the queue's device (extension), and clearing them. */
TVM_DLL int VTARuntimeGetStats(VTACommandHandle cmd, VTAStats* stats);
TVM_DLL void VTARuntimeClearStats(VTACommandHandle cmd);

/* The last error message of the calling thread's runtime ("" if none). */
TVM_DLL const char* VTARuntimeGetLastError(void);

#ifdef __cplusplus
}
#endif
#endif /* VTA_RUNTIME_H_ */
