// The runtime C API (vta/runtime.h): a facade over vta::runtime::Context (context.cc). Each call
// resolves its command handle to the calling thread's current runtime and makes the context's call;
// what only the C shape needs is here: handle checks, the finit callbacks of micro-op kernels, and
// VTABufferAlloc's buffers in the global memory.

#include <cstdio>
#include <cstring>
#include <sstream>
#include <thread>

#include "context_state.h"
#include "vta/driver.h"
#include "vta/driver/c_stats.h"
#include "vta/runtime.h"

namespace {

using vta::runtime::as_buffer;
using vta::runtime::CommandQueue;
using vta::runtime::ContextState;
using vta::runtime::DataBuffer;
using vta::runtime::KernelError;
using vta::runtime::RuntimeError;
using vta::runtime::UopKernel;

ContextState& rt() { return vta::runtime::current_state(); }

// The queue a call names: the current runtime's for NULL, else that queue itself when it is the
// current runtime's.
CommandQueue* resolve(VTACommandHandle cmd, const char* call) {
  if (cmd == nullptr || cmd == rt().queue.get()) return &rt().get_queue();
  const auto owner = vta::runtime::queue_owner(cmd);
  if (!owner) {
    throw RuntimeError(std::string(call) +
                       ": the command handle is not a live queue (was VTARuntimeShutdown called, or is it not "
                       "from VTATLSCommandHandle?)");
  }
  if (*owner && **owner == std::this_thread::get_id()) {
    throw RuntimeError(std::string(call) +
                       ": the command handle is this thread's own queue, but a runtime context is in use on this "
                       "thread (vta::runtime::Context::Scope); use VTATLSCommandHandle() inside the scope");
  }
  throw RuntimeError(std::string(call) +
                     (*owner ? ": the command handle belongs to another thread; every thread has its own queue "
                               "(VTATLSCommandHandle), which only that thread may use"
                             : ": the command handle belongs to a runtime context that is not in use on this thread"));
}

// Whether `cmd` names the calling thread's current runtime; otherwise the call's error is reported
// (the batch poisoned) and false.
bool resolved(VTACommandHandle cmd, const char* call) {
  return rt().guarded([&] { resolve(cmd, call); }) == 0;
}

int push_op(bool gemm, void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  ContextState& state = rt();
  return state.guarded([&] {
    const char* call = gemm ? "VTAPushGEMMOp" : "VTAPushALUOp";
    if (uop_handle == nullptr || finit == nullptr) throw RuntimeError(std::string(call) + ": NULL handle or finit");
    if (nbytes != 0 && nbytes != 4) {
      throw RuntimeError(std::string(call) + ": closure of " + std::to_string(nbytes) +
                         " bytes; only none (0) or one int (4) is supported");
    }
    if (nbytes == 4 && signature == nullptr) throw RuntimeError(std::string(call) + ": NULL closure of 4 bytes");
    int64_t key = 0;
    if (nbytes == 4) {
      int32_t v;
      std::memcpy(&v, signature, 4);
      key = int64_t{v} + 1;
    }
    state.push_kernel(gemm, uop_handle, key, [&](UopKernel& k) {
      state.recording = &k;
      state.recording_error.clear();
      struct StopRecording {  // also when a C++ finit throws: no call may record into `k` afterwards
        ContextState& s;
        ~StopRecording() { s.recording = nullptr; }
      } stop{state};
      const int rc = finit(signature);
      // (the recording calls cannot throw through the user's C finit; they note the first error)
      if (!state.recording_error.empty()) throw KernelError(state.recording_error);
      if (rc != 0) throw RuntimeError(std::string(call) + ": finit returned " + std::to_string(rc));
    });
  });
}

// The kernel a recording call (inside a finit) records into, or nullptr: outside a finit (an error),
// or after the kernel's first error.
UopKernel* recording(const char* call) {
  if (rt().recording == nullptr) {
    rt().fail(std::string(call) + " called outside the finit of VTAPushGEMMOp/VTAPushALUOp");
    return nullptr;
  }
  return rt().recording_error.empty() ? rt().recording : nullptr;
}

// Runs one recording call; its error is the kernel's first.
template <class F>
void record(const char* call, F&& f) {
  UopKernel* k = recording(call);
  if (k == nullptr) return;
  try {
    f(*k);
  } catch (const KernelError& e) {
    rt().recording_error = e.what();
  }
}

// [offset, offset + size) inside a buffer of `total` bytes, without overflowing.
bool range_fits(size_t offset, size_t size, size_t total) { return offset <= total && size <= total - offset; }

std::string range_text(size_t offset, size_t size) {
  std::ostringstream s;
  s << "[" << offset << ", " << offset << " + " << size << ")";
  return s.str();
}

}  // namespace

using vta::runtime::Context;

extern "C" {

VTACommandHandle VTATLSCommandHandle(void) {
  try {
    return &rt().get_queue();
  } catch (const std::exception& e) {
    rt().fail(e.what());
    return nullptr;
  }
}

void VTARuntimeShutdown(void) {
  // the thread's own runtime; a Context bound meanwhile stays as it is (its owner destroys it)
  ContextState& own = vta::runtime::own_state();
  own.close();
  own.clear_errors();
}

void VTASetDebugMode(VTACommandHandle cmd, int debug_flag) {
  rt().outside_batch([&] { resolve(cmd, "VTASetDebugMode")->set_debug(debug_flag); });
}

void* VTABufferAlloc(size_t size) {
  void* data = VTAMemAlloc(size, VTA_CACHED);  // reports impossible sizes and exhaustion
  if (data == nullptr) return nullptr;
  try {
    auto b = std::make_unique<DataBuffer>();
    b->data = static_cast<uint8_t*>(data);
    b->phys = VTAMemGetPhyAddr(data);
    b->size = size;
    b->memory = std::shared_ptr<void>(data, [](void* p) { VTAMemFree(p); });
    return vta::runtime::add_buffer(std::move(b));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "VTABufferAlloc: %s\n", e.what());
    return nullptr;
  }
}

void VTABufferFree(void* buffer) {
  if (buffer == nullptr) return;
  const std::unique_ptr<DataBuffer> b = vta::runtime::remove_buffer(buffer);
  if (b == nullptr) {
    std::fprintf(stderr, "VTABufferFree: %p is not a live buffer from VTABufferAlloc (already freed?)\n", buffer);
  }
  // The device memory goes when the last batch that queued a transfer on it is done with it.
}

void* VTABufferCPUPtr(VTACommandHandle, void* buffer) {
  DataBuffer* b = as_buffer(buffer);
  return b ? b->data : buffer;
}

void VTABufferCopy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t size, int kind_mask) {
  if (kind_mask < 0 || kind_mask > 3) {
    std::fprintf(stderr,
                 "VTABufferCopy: kind_mask %d (bit 1: the source is a device buffer, bit 0: the destination "
                 "is)\n",
                 kind_mask);
    return;
  }
  if (from == nullptr || to == nullptr) {
    std::fprintf(stderr, "VTABufferCopy: NULL %s\n", from == nullptr ? "source" : "destination");
    return;
  }
  const uint8_t* src = static_cast<const uint8_t*>(from);
  uint8_t* dst = static_cast<uint8_t*>(to);
  // A device side is a buffer handle: its data, when [offset, offset + size) fits; else nullptr.
  auto device_data = [&](const void* handle, size_t offset, const char* side) -> uint8_t* {
    const DataBuffer* b = as_buffer(handle);
    if (b == nullptr) {
      std::fprintf(stderr, "VTABufferCopy: the %s is not a live buffer from VTABufferAlloc\n", side);
      return nullptr;
    }
    if (!range_fits(offset, size, b->size)) {
      std::fprintf(stderr, "VTABufferCopy: the %s range %s exceeds its %zu-byte buffer\n", side,
                   range_text(offset, size).c_str(), b->size);
      return nullptr;
    }
    return b->data;
  };
  if (kind_mask & 2) {
    src = device_data(from, from_offset, "source");
    if (src == nullptr) return;
  }
  if (kind_mask & 1) {
    dst = device_data(to, to_offset, "destination");
    if (dst == nullptr) return;
  }
  if (size != 0) std::memmove(dst + to_offset, src + from_offset, size);
}

void VTABufferSetName(void* buffer, const char* name) {
  if (DataBuffer* b = as_buffer(buffer)) b->name = name ? name : "";
}

void VTAWriteBarrier(VTACommandHandle, void*, uint32_t, uint32_t, uint32_t) {}
void VTAReadBarrier(VTACommandHandle, void*, uint32_t, uint32_t, uint32_t) {}

void VTALoadBuffer2D(VTACommandHandle cmd, void* src_dram_addr, uint32_t src_elem_offset, uint32_t x_size,
                     uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before, uint32_t y_pad_before,
                     uint32_t x_pad_after, uint32_t y_pad_after, uint32_t dst_sram_index, uint32_t dst_memory_type) {
  if (!resolved(cmd, "VTALoadBuffer2D")) return;
  Context::current().load_buffer_2d(src_dram_addr, src_elem_offset, x_size, y_size, x_stride, x_pad_before,
                                    y_pad_before, x_pad_after, y_pad_after, dst_sram_index, dst_memory_type);
}

void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index, uint32_t src_memory_type, void* dst_dram_addr,
                      uint32_t dst_elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride) {
  if (!resolved(cmd, "VTAStoreBuffer2D")) return;
  Context::current().store_buffer_2d(src_sram_index, src_memory_type, dst_dram_addr, dst_elem_offset, x_size, y_size,
                                     x_stride);
}

void VTAUopLoopBegin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor, uint32_t wgt_factor) {
  record("VTAUopLoopBegin", [&](UopKernel& k) { k.loop_begin(extent, dst_factor, src_factor, wgt_factor); });
}

void VTAUopLoopEnd(void) {
  record("VTAUopLoopEnd", [](UopKernel& k) { k.loop_end(); });
}

void VTAUopPush(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index, uint32_t wgt_index,
                uint32_t opcode, uint32_t use_imm, int32_t imm_val) {
  record("VTAUopPush",
         [&](UopKernel& k) { k.push(mode, reset_out, dst_index, src_index, wgt_index, opcode, use_imm, imm_val); });
}

int VTAPushGEMMOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return push_op(true, uop_handle, finit, signature, nbytes);
}

int VTAPushALUOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return push_op(false, uop_handle, finit, signature, nbytes);
}

int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid) {
  if (!resolved(cmd, "VTADepPush")) return -1;
  return Context::current().dep_push(from_qid, to_qid);
}

int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid) {
  if (!resolved(cmd, "VTADepPop")) return -1;
  return Context::current().dep_pop(from_qid, to_qid);
}

int VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles) {
  try {
    resolve(cmd, "VTASynchronize");
  } catch (const std::exception& e) {
    rt().fail(e.what());
    rt().poisoned = false;  // there is no batch to discard; the message stays readable
    return -1;
  }
  return Context::current().synchronize(wait_cycles);
}

int VTARuntimeGetStats(VTACommandHandle cmd, VTAStats* out) {
  if (out == nullptr) return -1;
  return rt().outside_batch([&] { *out = vta::to_c_stats(resolve(cmd, "VTARuntimeGetStats")->device().stats()); });
}

void VTARuntimeClearStats(VTACommandHandle cmd) {
  rt().outside_batch([&] { resolve(cmd, "VTARuntimeClearStats")->device().clear_stats(); });
}

const char* VTARuntimeGetLastError(void) { return rt().error.c_str(); }

}  // extern "C"

namespace vta::runtime {

Stats runtime_stats() { return rt().get_queue().device().stats(); }
void clear_runtime_stats() { rt().get_queue().device().clear_stats(); }

}  // namespace vta::runtime
