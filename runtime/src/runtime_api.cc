// The runtime C API (vta/runtime.h) over vta::runtime::CommandQueue.

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include "vta/build_config.h"
#include "vta/c_stats.h"
#include "vta/command_queue.h"
#include "vta/driver.h"
#include "vta/path_claim.h"
#include "vta/runtime.h"
#include "vta/runtime_context.h"

namespace {

using vta::runtime::CommandQueue;
using vta::runtime::DataBuffer;
using vta::runtime::KernelOp;
using vta::runtime::RuntimeError;
using vta::runtime::UopKernel;

// Buffer handles handed out by VTABufferAlloc. The handle is the DataBuffer's address; its device
// memory is shared with every batch that queued a transfer on it, so freeing a buffer before the
// batch runs only invalidates the handle (the memory is released when the batch is done with it).
std::mutex g_buffers_mu;
std::map<const void*, std::unique_ptr<DataBuffer>> g_buffers;

DataBuffer* as_buffer(const void* handle) {
  std::lock_guard lock(g_buffers_mu);
  auto it = g_buffers.find(handle);
  return it == g_buffers.end() ? nullptr : it->second.get();
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// A queue's call-trace file; the name is claimed for as long as the file is open, so a second thread
// tracing at the same time writes beside it (<path>.1, <path>.2, ...) instead of truncating it.
struct Trace {
  vta::PathClaim claim;
  std::unique_ptr<std::FILE, FileCloser> file;
  Trace() = default;
  Trace(Trace&&) noexcept = default;
  Trace& operator=(Trace&& o) noexcept {
    release();
    claim = std::move(o.claim);
    file = std::move(o.file);
    return *this;
  }
  ~Trace() { release(); }
  void release() {
    file.reset();  // closed before the name is free again
    claim.release();
  }
};

// The trace file named by VTA_TRACE_CALLS, opened (truncated) when the thread's queue is created.
Trace open_trace() {
  Trace t;
  const char* env = std::getenv("VTA_TRACE_CALLS");
  if (env == nullptr || *env == '\0') return t;
  t.claim = vta::PathClaim(env, vta::PathClaim::Suffix::kAppend);
  t.file.reset(std::fopen(t.claim.path().c_str(), "w"));
  if (t.file == nullptr) {
    throw RuntimeError("cannot open the VTA_TRACE_CALLS file " + t.claim.path() + ": " + std::strerror(errno));
  }
  return t;
}

// The live command queues: each thread's own (by thread) and those of Contexts (no thread). A handle
// that is not here (after VTARuntimeShutdown) or that is not the calling thread's current queue is
// refused by name.
std::mutex g_queues_mu;
std::map<const void*, std::optional<std::thread::id>> g_queues;

}  // namespace

namespace vta::runtime {

// The state of one runtime: a thread's own, or a Context's.
struct ContextState {
  Trace trace;  // outlives the queue that writes to it
  std::unique_ptr<CommandQueue> queue;
  std::string error;  // first error of the current batch, or of the last call outside a batch
  bool poisoned = false;
  UopKernel* recording = nullptr;  // the kernel finit is recording
  std::string recording_error;

  // The state of the current batch (the last error stays readable).
  void clear_batch_state() {
    poisoned = false;
    recording = nullptr;
    recording_error.clear();
  }
  void clear_errors() {
    error.clear();
    clear_batch_state();
  }
  void close() {
    if (queue) {
      std::lock_guard lock(g_queues_mu);
      g_queues.erase(queue.get());
    }
    queue.reset();
    trace.release();
  }
  ~ContextState() { close(); }
};

}  // namespace vta::runtime

namespace {

using vta::runtime::ContextState;

thread_local ContextState t_own;               // the thread's own runtime
thread_local ContextState* t_bound = nullptr;  // a Context bound by Context::Scope, if any

// The runtime the calling thread's calls go to.
ContextState& rt() { return t_bound != nullptr ? *t_bound : t_own; }

// The calling thread's queue, created on first use. Throws RuntimeError naming the problem when
// the device cannot be created (an unknown VTA_TARGET, a bad VTA_TSIM_* value, ...).
CommandQueue* queue() {
  ContextState& t_rt = rt();
  if (!t_rt.queue) {
    try {
      auto device = vta::make_device(vta::default_target(), vta::build_config());
      vta::runtime::QueueOptions options;
      Trace trace = open_trace();
      options.trace = trace.file.get();
      auto q = std::make_unique<CommandQueue>(std::move(device), options);
      t_rt.trace = std::move(trace);
      t_rt.queue = std::move(q);
    } catch (const RuntimeError&) {
      throw;
    } catch (const std::exception& e) {
      throw RuntimeError(std::string("cannot create the VTA device: ") + e.what());
    }
    std::lock_guard lock(g_queues_mu);
    g_queues[t_rt.queue.get()] = std::this_thread::get_id();
  }
  return t_rt.queue.get();
}

// The queue a call names: the current runtime's for NULL, else that queue itself when it is the
// current runtime's.
CommandQueue* resolve(VTACommandHandle cmd, const char* call) {
  if (cmd == nullptr || cmd == rt().queue.get()) return queue();
  std::optional<std::thread::id> owner;
  {
    std::lock_guard lock(g_queues_mu);
    auto it = g_queues.find(cmd);
    if (it == g_queues.end()) {
      throw RuntimeError(std::string(call) +
                         ": the command handle is not a live queue (was VTARuntimeShutdown called, or is it not "
                         "from VTATLSCommandHandle?)");
    }
    owner = it->second;
  }
  if (owner && *owner == std::this_thread::get_id()) {
    throw RuntimeError(std::string(call) +
                       ": the command handle is this thread's own queue, but a runtime context is in use on this "
                       "thread (vta::runtime::Context::Scope); use VTATLSCommandHandle() inside the scope");
  }
  throw RuntimeError(std::string(call) +
                     (owner ? ": the command handle belongs to another thread; every thread has its own queue "
                              "(VTATLSCommandHandle), which only that thread may use"
                            : ": the command handle belongs to a runtime context that is not in use on this thread"));
}

void fail(const std::string& message) {
  if (!rt().poisoned) {
    std::fprintf(stderr, "vta runtime: error: %s\n", message.c_str());
    rt().error = message;
  }
  rt().poisoned = true;
}

// Runs a runtime call unless the batch is already poisoned; converts errors into the poisoned state.
template <class F>
int guarded(F&& f) {
  if (rt().poisoned) return -1;
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    fail(e.what());
    return -1;
  }
}

// Runs a call that is not part of a batch (statistics, settings): an error is reported and kept for
// VTARuntimeGetLastError without poisoning the batch.
template <class F>
int outside_batch(F&& f) {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    rt().error = e.what();
    std::fprintf(stderr, "vta runtime: error: %s\n", e.what());
    return -1;
  }
}

DataBuffer* require_buffer(void* handle, const char* call) {
  DataBuffer* b = as_buffer(handle);
  if (b == nullptr) {
    throw RuntimeError(std::string(call) +
                       ": argument is not a live buffer from VTABufferAlloc (NULL, freed, or a data pointer instead "
                       "of the handle)");
  }
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
    if (nbytes == 4 && signature == nullptr) throw RuntimeError(std::string(call) + ": NULL closure of 4 bytes");
    int64_t key = 0;
    if (nbytes == 4) {
      int32_t v;
      std::memcpy(&v, signature, 4);
      key = int64_t{v} + 1;
    }
    // The handle only identifies the call site; the queue owns the kernels, so nothing dangles when a
    // queue is shut down or a handle goes out of scope. Threads running the same kernel code share
    // the (static) handle: it is claimed atomically.
    std::atomic_ref<void*> slot(*uop_handle);
    void* site_handle = slot.load();
    if (site_handle == nullptr) {
      // the handle is an opaque site number, never dereferenced
      void* fresh =
          reinterpret_cast<void*>(uintptr_t(CommandQueue::new_site_id()));  // NOLINT(performance-no-int-to-ptr)
      if (slot.compare_exchange_strong(site_handle, fresh)) site_handle = fresh;
    }
    const auto site = uint64_t(reinterpret_cast<uintptr_t>(site_handle));
    queue()->push_kernel(gemm, site, key, [&](UopKernel& k) {
      rt().recording = &k;
      rt().recording_error.clear();
      struct StopRecording {  // also when a C++ finit throws: no call may record into `k` afterwards
        ~StopRecording() { rt().recording = nullptr; }
      } stop;
      const int rc = finit(signature);
      if (!rt().recording_error.empty()) throw RuntimeError(std::string(call) + ": " + rt().recording_error);
      if (rc != 0) throw RuntimeError(std::string(call) + ": finit returned " + std::to_string(rc));
    });
  });
}

// Recording calls cannot throw through the user's C finit; they note the first error instead.
UopKernel* recording(const char* call) {
  if (rt().recording == nullptr) {
    fail(std::string(call) + " called outside the finit of VTAPushGEMMOp/VTAPushALUOp");
    return nullptr;
  }
  return rt().recording_error.empty() ? rt().recording : nullptr;
}

// [offset, offset + size) inside a buffer of `total` bytes, without overflowing.
bool range_fits(size_t offset, size_t size, size_t total) { return offset <= total && size <= total - offset; }

std::string range_text(size_t offset, size_t size) {
  std::ostringstream s;
  s << "[" << offset << ", " << offset << " + " << size << ")";
  return s.str();
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
  // the thread's own runtime; a Context bound meanwhile stays as it is (its owner destroys it)
  t_own.close();
  t_own.clear_errors();
}

void VTASetDebugMode(VTACommandHandle cmd, int debug_flag) {
  outside_batch([&] { resolve(cmd, "VTASetDebugMode")->set_debug(debug_flag); });
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
    DataBuffer* handle = b.get();
    std::lock_guard lock(g_buffers_mu);
    g_buffers[handle] = std::move(b);
    return handle;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "VTABufferAlloc: %s\n", e.what());
    return nullptr;
  }
}

void VTABufferFree(void* buffer) {
  if (buffer == nullptr) return;
  std::unique_ptr<DataBuffer> b;
  {
    std::lock_guard lock(g_buffers_mu);
    auto it = g_buffers.find(buffer);
    if (it != g_buffers.end()) {
      b = std::move(it->second);
      g_buffers.erase(it);
    }
  }
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
  guarded([&] {
    auto* q = resolve(cmd, "VTALoadBuffer2D");
    q->load_buffer_2d(*require_buffer(src_dram_addr, "VTALoadBuffer2D"), src_elem_offset, x_size, y_size, x_stride,
                      x_pad_before, y_pad_before, x_pad_after, y_pad_after, dst_sram_index, dst_memory_type);
  });
}

void VTAStoreBuffer2D(VTACommandHandle cmd, uint32_t src_sram_index, uint32_t src_memory_type, void* dst_dram_addr,
                      uint32_t dst_elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride) {
  guarded([&] {
    auto* q = resolve(cmd, "VTAStoreBuffer2D");
    q->store_buffer_2d(src_sram_index, src_memory_type, *require_buffer(dst_dram_addr, "VTAStoreBuffer2D"),
                       dst_elem_offset, x_size, y_size, x_stride);
  });
}

void VTAUopLoopBegin(uint32_t extent, uint32_t dst_factor, uint32_t src_factor, uint32_t wgt_factor) {
  UopKernel* k = recording("VTAUopLoopBegin");
  if (k == nullptr) return;
  if (!k->uops.empty()) {
    rt().recording_error = "VTAUopLoopBegin after the first VTAUopPush: loops must enclose every micro-op";
  } else if (k->loops.size() == 2) {
    rt().recording_error = "a third VTAUopLoopBegin: a kernel has at most two loops";
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
    rt().recording_error = "VTAUopLoopEnd without a matching VTAUopLoopBegin";
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
    rt().recording_error = "VTAUopPush mode " + std::to_string(mode) + " (0 = GEMM, 1 = ALU)";
    return;
  }
  if (k->uops.empty()) {
    k->mode = int(mode), k->reset = reset_out != 0, k->opcode = opcode, k->use_imm = use_imm, k->imm = imm_val;
  } else if (k->mode != int(mode) || k->reset != (reset_out != 0) ||
             (mode == 1 && (k->opcode != opcode || k->use_imm != use_imm || k->imm != imm_val))) {
    rt().recording_error = "micro-op " + std::to_string(k->uops.size()) +
                           " differs from the first in mode, reset or ALU operation; one kernel is one instruction";
    return;
  }
  if (mode == 1 && opcode > 4) {
    rt().recording_error = "ALU opcode " + std::to_string(opcode) + " (MIN 0, MAX 1, ADD 2, SHR 3, MUL 4)";
    return;
  }
  if (mode == 1 && use_imm && (imm_val < -32768 || imm_val > 32767)) {
    rt().recording_error = "ALU immediate " + std::to_string(imm_val) + " does not fit in 16 signed bits";
    return;
  }
  k->uops.push_back({dst_index, src_index, wgt_index});
  k->ops.push_back(
      {KernelOp::kPush,
       {mode, reset_out, dst_index, src_index, wgt_index, opcode, use_imm, static_cast<uint32_t>(imm_val)}});
}

int VTAPushGEMMOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return push_op(true, uop_handle, finit, signature, nbytes);
}

int VTAPushALUOp(void** uop_handle, int (*finit)(void*), void* signature, int nbytes) {
  return push_op(false, uop_handle, finit, signature, nbytes);
}

int VTADepPush(VTACommandHandle cmd, int from_qid, int to_qid) {
  return guarded([&] { resolve(cmd, "VTADepPush")->dep_push(from_qid, to_qid); });
}

int VTADepPop(VTACommandHandle cmd, int from_qid, int to_qid) {
  return guarded([&] { resolve(cmd, "VTADepPop")->dep_pop(from_qid, to_qid); });
}

int VTASynchronize(VTACommandHandle cmd, uint32_t wait_cycles) {
  CommandQueue* q = nullptr;
  try {
    q = resolve(cmd, "VTASynchronize");
  } catch (const std::exception& e) {
    fail(e.what());
    rt().poisoned = false;  // there is no batch to discard; the message stays readable
    return -1;
  }
  if (rt().poisoned) {
    q->trace_line("VTASynchronize()");
    q->discard_batch();
    rt().poisoned = false;  // the error stays readable through VTARuntimeGetLastError
    std::fprintf(stderr, "vta runtime: VTASynchronize: batch discarded after the error above\n");
    return -1;
  }
  rt().error.clear();
  const int rc = guarded([&] { q->synchronize(wait_cycles); });
  rt().poisoned = false;
  return rc;
}

int VTARuntimeGetStats(VTACommandHandle cmd, VTAStats* out) {
  if (out == nullptr) return -1;
  return outside_batch([&] { *out = vta::to_c_stats(resolve(cmd, "VTARuntimeGetStats")->device().stats()); });
}

void VTARuntimeClearStats(VTACommandHandle cmd) {
  outside_batch([&] { resolve(cmd, "VTARuntimeClearStats")->device().clear_stats(); });
}

const char* VTARuntimeGetLastError(void) { return rt().error.c_str(); }

}  // extern "C"

namespace vta {

Stats runtime_stats() { return queue()->device().stats(); }
void clear_runtime_stats() { queue()->device().clear_stats(); }

}  // namespace vta

namespace vta::runtime {

bool batch_failed() { return rt().poisoned; }

void abandon_batch() {
  ContextState& state = rt();
  if (state.queue) state.queue->discard_batch();
  state.clear_batch_state();  // the error stays readable through VTARuntimeGetLastError
}

size_t buffer_bytes(const void* handle) {
  const DataBuffer* b = as_buffer(handle);
  return b == nullptr ? 0 : b->size;
}

Context::Context(std::unique_ptr<Device> device, Dram& dram) : dram_(dram), state_(std::make_unique<ContextState>()) {
  if (!device) throw std::invalid_argument("runtime context: no device");
  QueueOptions options;
  options.dram = &dram;
  state_->queue = std::make_unique<CommandQueue>(std::move(device), options);
  std::lock_guard lock(g_queues_mu);
  g_queues[state_->queue.get()] = std::nullopt;
}

Context::~Context() {
  // a scope still binding this context on the destroying thread would leave a dangling pointer
  if (t_bound == state_.get()) t_bound = nullptr;
}

CommandQueue& Context::queue() { return *state_->queue; }

void* Context::wrap_buffer(PhysAddr phys, size_t bytes, std::string name) {
  uint8_t* data = dram_.translate(phys, bytes);
  if (data == nullptr || bytes == 0) {
    throw RuntimeError("runtime context: " + std::to_string(bytes) + " bytes at physical address " +
                       std::to_string(phys) + " are not inside one allocation of the context's memory");
  }
  auto b = std::make_unique<DataBuffer>();
  b->data = data;
  b->phys = phys;
  b->size = bytes;
  b->name = std::move(name);
  DataBuffer* handle = b.get();
  std::lock_guard lock(g_buffers_mu);
  g_buffers[handle] = std::move(b);
  return handle;
}

void Context::release_buffer(void* handle) {
  std::lock_guard lock(g_buffers_mu);
  g_buffers.erase(handle);
}

void Context::reset() {
  state_->queue->discard_batch();
  state_->clear_errors();
}

const std::string& Context::last_error() const { return state_->error; }

Context::Scope::Scope(Context& ctx) : previous_(t_bound) { t_bound = ctx.state_.get(); }
Context::Scope::~Scope() { t_bound = previous_; }
Context::Keep::Keep() : kept_(t_bound) {}
Context::Keep::~Keep() { t_bound = kept_; }

}  // namespace vta::runtime
