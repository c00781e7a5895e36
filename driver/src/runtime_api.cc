// The runtime C API (vta/runtime.h) over vta::runtime::CommandQueue.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

#include "c_stats.h"
#include "vta/build_config.h"
#include "vta/command_queue.h"
#include "vta/driver.h"
#include "vta/runtime.h"

namespace {

using vta::runtime::CommandQueue;
using vta::runtime::DataBuffer;
using vta::runtime::KernelOp;
using vta::runtime::RuntimeError;
using vta::runtime::UopKernel;

// Buffer handles handed out by VTABufferAlloc (VTABufferCPUPtr must recognise them).
std::mutex g_buffers_mu;
std::set<DataBuffer*> g_buffers;

DataBuffer* as_buffer(const void* handle) {
  std::lock_guard lock(g_buffers_mu);
  auto it = g_buffers.find(static_cast<DataBuffer*>(const_cast<void*>(handle)));
  return it == g_buffers.end() ? nullptr : *it;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// The trace file named by VTA_TRACE_CALLS, opened (truncated) when the thread's queue is created.
std::unique_ptr<std::FILE, FileCloser> open_trace() {
  const char* path = std::getenv("VTA_TRACE_CALLS");
  if (path == nullptr || *path == '\0') return nullptr;
  std::FILE* file = std::fopen(path, "w");
  if (file == nullptr) std::fprintf(stderr, "vta runtime: cannot open VTA_TRACE_CALLS file %s\n", path);
  return std::unique_ptr<std::FILE, FileCloser>(file);
}

struct ThreadRuntime {
  std::unique_ptr<std::FILE, FileCloser> trace;  // outlives the queue that writes to it
  std::unique_ptr<CommandQueue> queue;
  std::string error;     // first error of the current batch, or of the last call outside a batch
  bool poisoned = false;
  UopKernel* recording = nullptr;  // the kernel finit is recording
  std::string recording_error;
};

thread_local ThreadRuntime t_rt;

CommandQueue* queue() {
  if (!t_rt.queue) {
    auto device = vta::make_device(vta::default_target(), vta::build_config());
    vta::runtime::QueueOptions options;
    t_rt.trace = open_trace();
    options.trace = t_rt.trace.get();
    t_rt.queue = std::make_unique<CommandQueue>(std::move(device), options);
  }
  return t_rt.queue.get();
}

void fail(const std::string& message) {
  if (!t_rt.poisoned) {
    std::fprintf(stderr, "vta runtime: error: %s\n", message.c_str());
    t_rt.error = message;
  }
  t_rt.poisoned = true;
}

// Runs a runtime call unless the batch is already poisoned; converts errors into the poisoned state.
template <class F>
int guarded(F&& f) {
  if (t_rt.poisoned) return -1;
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    fail(e.what());
    return -1;
  }
}

DataBuffer* require_buffer(void* handle, const char* call) {
  DataBuffer* b = as_buffer(handle);
  if (b == nullptr) throw RuntimeError(std::string(call) + ": argument is not a buffer from VTABufferAlloc");
  return b;
}

int push_op(bool gemm, void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return guarded([&] {
    const char* call = gemm ? "VTAPushGEMMOp" : "VTAPushALUOp";
    if (uop_handle == nullptr || finit == nullptr) throw RuntimeError(std::string(call) + ": NULL handle or finit");
    if (nbytes != 0 && nbytes != 4) {
      throw RuntimeError(std::string(call) + ": closure of " + std::to_string(nbytes) +
                         " bytes; only none (0) or one int (4) is supported");
    }
    int64_t key = 0;
    if (nbytes == 4) {
      int32_t v;
      std::memcpy(&v, signature, 4);
      key = int64_t{v} + 1;
    }
    // The handle only identifies the call site; the queue owns the kernels, so nothing dangles when a
    // queue is shut down or a handle goes out of scope.
    if (*uop_handle == nullptr) *uop_handle = reinterpret_cast<void*>(uintptr_t(CommandQueue::new_site_id()));
    const auto site = uint64_t(reinterpret_cast<uintptr_t>(*uop_handle));
    queue()->push_kernel(gemm, site, key, [&](UopKernel& k) {
      t_rt.recording = &k;
      t_rt.recording_error.clear();
      const int rc = finit(signature);
      t_rt.recording = nullptr;
      if (!t_rt.recording_error.empty()) throw RuntimeError(std::string(call) + ": " + t_rt.recording_error);
      if (rc != 0) throw RuntimeError(std::string(call) + ": finit returned " + std::to_string(rc));
    });
  });
}

// Recording calls cannot throw through the user's C finit; they note the first error instead.
UopKernel* recording(const char* call) {
  if (t_rt.recording == nullptr) {
    fail(std::string(call) + " called outside the finit of VTAPushGEMMOp/VTAPushALUOp");
    return nullptr;
  }
  return t_rt.recording_error.empty() ? t_rt.recording : nullptr;
}

}  // namespace

extern "C" {

VTACommandHandle VTATLSCommandHandle(void) {
  try {
    return queue();
  } catch (const std::exception& e) {
    fail(e.what());
    return nullptr;
  }
}

void VTARuntimeShutdown(void) {
  t_rt.queue.reset();
  t_rt = ThreadRuntime{};
}

void VTASetDebugMode(VTACommandHandle cmd, int debug_flag) {
  if (cmd != nullptr) static_cast<CommandQueue*>(cmd)->set_debug(debug_flag);
}

void* VTABufferAlloc(size_t size) {
  void* data = VTAMemAlloc(size, VTA_CACHED);
  if (data == nullptr) return nullptr;
  auto* b = new DataBuffer{static_cast<uint8_t*>(data), VTAMemGetPhyAddr(data), size, {}};
  std::lock_guard lock(g_buffers_mu);
  g_buffers.insert(b);
  return b;
}

void VTABufferFree(void* buffer) {
  DataBuffer* b = as_buffer(buffer);
  if (b == nullptr) {
    if (buffer != nullptr) std::fprintf(stderr, "VTABufferFree: %p is not a buffer from VTABufferAlloc\n", buffer);
    return;
  }
  {
    std::lock_guard lock(g_buffers_mu);
    g_buffers.erase(b);
  }
  VTAMemFree(b->data);
  delete b;
}

void* VTABufferCPUPtr(VTACommandHandle, void* buffer) {
  DataBuffer* b = as_buffer(buffer);
  return b ? b->data : buffer;
}

void VTABufferCopy(const void* from, size_t from_offset, void* to, size_t to_offset, size_t size, int kind_mask) {
  const uint8_t* src = static_cast<const uint8_t*>(from);
  uint8_t* dst = static_cast<uint8_t*>(to);
  if (kind_mask & 2) {
    const DataBuffer* b = as_buffer(from);
    if (b == nullptr || from_offset + size > b->size) {
      std::fprintf(stderr, "VTABufferCopy: source is not a device buffer or the range exceeds it\n");
      return;
    }
    src = b->data;
  }
  if (kind_mask & 1) {
    const DataBuffer* b = as_buffer(to);
    if (b == nullptr || to_offset + size > b->size) {
      std::fprintf(stderr, "VTABufferCopy: destination is not a device buffer or the range exceeds it\n");
      return;
    }
    dst = b->data;
  }
  std::memmove(dst + to_offset, src + from_offset, size);
}

void VTABufferSetName(void* buffer, const char* name) {
  if (DataBuffer* b = as_buffer(buffer)) b->name = name ? name : "";
}

void VTAWriteBarrier(VTACommandHandle, void*, uint32_t, uint32_t, uint32_t) {}
void VTAReadBarrier(VTACommandHandle, void*, uint32_t, uint32_t, uint32_t) {}

void VTALoadBuffer2D(VTACommandHandle cmd, void* src_dram_addr, uint32_t src_elem_offset, uint32_t x_size,
                     uint32_t y_size, uint32_t x_stride, uint32_t x_pad_before, uint32_t y_pad_before,
                     uint32_t x_pad_after, uint32_t y_pad_after, uint32_t dst_sram_index, uint32_t dst_memory_type) {
  guarded([&] {
    auto* q = cmd ? static_cast<CommandQueue*>(cmd) : queue();
    q->load_buffer_2d(*require_buffer(src_dram_addr, "VTALoadBuffer2D"), src_elem_offset, x_size, y_size, x_stride,
                      x_pad_before, y_pad_before, x_pad_after, y_pad_after, dst_sram_index, dst_memory_type);
  });
}

void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index, uint32_t src_memory_type, void* dst_dram_addr,
                      uint32_t dst_elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride) {
  guarded([&] {
    auto* q = cmd ? static_cast<CommandQueue*>(cmd) : queue();
    q->store_buffer_2d(src_sram_index, src_memory_type, *require_buffer(dst_dram_addr, "VTAStoreBuffer2D"),
                       dst_elem_offset, x_size, y_size, x_stride);
  });
}

void VTAUopLoopBegin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor, uint32_t wgt_factor) {
  UopKernel* k = recording("VTAUopLoopBegin");
  if (k == nullptr) return;
  if (!k->uops.empty()) {
    t_rt.recording_error = "VTAUopLoopBegin after the first VTAUopPush: loops must enclose every micro-op";
  } else if (k->loops.size() == 2) {
    t_rt.recording_error = "a third VTAUopLoopBegin: a kernel has at most two loops";
  } else {
    k->loops.push_back({extent, dst_factor, src_factor, wgt_factor});
    ++k->open_loops;
    k->ops.push_back({KernelOp::kLoopBegin, {extent, dst_factor, src_factor, wgt_factor}});
  }
}

void VTAUopLoopEnd(void) {
  UopKernel* k = recording("VTAUopLoopEnd");
  if (k == nullptr) return;
  if (k->open_loops == 0) {
    t_rt.recording_error = "VTAUopLoopEnd without a matching VTAUopLoopBegin";
    return;
  }
  --k->open_loops;
  k->ops.push_back({KernelOp::kLoopEnd, {}});
}

void VTAUopPush(uint32_t mode, uint32_t reset_out, uint32_t dst_index, uint32_t src_index, uint32_t wgt_index,
                uint32_t opcode, uint32_t use_imm, int32_t imm_val) {
  UopKernel* k = recording("VTAUopPush");
  if (k == nullptr) return;
  if (mode > 1) {
    t_rt.recording_error = "VTAUopPush mode " + std::to_string(mode) + " (0 = GEMM, 1 = ALU)";
    return;
  }
  if (k->uops.empty()) {
    k->mode = int(mode), k->reset = reset_out != 0, k->opcode = opcode, k->use_imm = use_imm, k->imm = imm_val;
  } else if (k->mode != int(mode) || k->reset != (reset_out != 0) ||
             (mode == 1 && (k->opcode != opcode || k->use_imm != use_imm || k->imm != imm_val))) {
    t_rt.recording_error = "micro-op " + std::to_string(k->uops.size()) +
                           " differs from the first in mode, reset or ALU operation; one kernel is one instruction";
    return;
  }
  if (mode == 1 && opcode > 4) {
    t_rt.recording_error = "ALU opcode " + std::to_string(opcode) + " (MIN 0, MAX 1, ADD 2, SHR 3, MUL 4)";
    return;
  }
  if (mode == 1 && use_imm && (imm_val < -32768 || imm_val > 32767)) {
    t_rt.recording_error = "ALU immediate " + std::to_string(imm_val) + " does not fit in 16 signed bits";
    return;
  }
  k->uops.push_back({dst_index, src_index, wgt_index});
  k->ops.push_back({KernelOp::kPush,
                    {mode, reset_out, dst_index, src_index, wgt_index, opcode, use_imm, static_cast<uint32_t>(imm_val)}});
}

int VTAPushGEMMOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return push_op(true, uop_handle, finit, signature, nbytes);
}

int VTAPushALUOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return push_op(false, uop_handle, finit, signature, nbytes);
}

int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid) {
  return guarded([&] { (cmd ? static_cast<CommandQueue*>(cmd) : queue())->dep_push(from_qid, to_qid); });
}

int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid) {
  return guarded([&] { (cmd ? static_cast<CommandQueue*>(cmd) : queue())->dep_pop(from_qid, to_qid); });
}

int VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles) {
  auto* q = cmd ? static_cast<CommandQueue*>(cmd) : queue();
  if (t_rt.poisoned) {
    q->trace_line("VTASynchronize()");
    q->discard_batch();
    t_rt.poisoned = false;  // the error stays readable through VTARuntimeGetLastError
    std::fprintf(stderr, "vta runtime: VTASynchronize: batch discarded after the error above\n");
    return -1;
  }
  t_rt.error.clear();
  const int rc = guarded([&] { q->synchronize(wait_cycles); });
  t_rt.poisoned = false;
  return rc;
}

int VTARuntimeGetStats(VTACommandHandle cmd, VTAStats* out) {
  if (out == nullptr) return -1;
  *out = vta::to_c_stats((cmd ? static_cast<CommandQueue*>(cmd) : queue())->device().stats());
  return 0;
}

void VTARuntimeClearStats(VTACommandHandle cmd) { (cmd ? static_cast<CommandQueue*>(cmd) : queue())->device().clear_stats(); }

const char* VTARuntimeGetLastError(void) { return t_rt.error.c_str(); }

}  // extern "C"

namespace vta {

Stats runtime_stats() { return queue()->device().stats(); }
void clear_runtime_stats() { queue()->device().clear_stats(); }

}  // namespace vta
