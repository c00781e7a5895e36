#pragma once
// The state of one runtime (a thread's own, or a Context's) and the error rules every runtime call
// follows, whether it comes through the C API (runtime_api.cc) or a Context's methods (context.cc):
// a failed call prints its message, keeps it for VTARuntimeGetLastError and poisons the batch, whose
// further calls do nothing until VTASynchronize discards it.

#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "vta/driver/file.h"
#include "vta/driver/path_claim.h"
#include "vta/runtime/command_queue.h"
#include "vta/runtime/context.h"

namespace vta::runtime {

/// A buffer handle: VTABufferAlloc's or a Context's wrap_buffer; nullptr for anything else.
DataBuffer* as_buffer(const void* handle);
/// Registers a buffer; the handle is its address.
void* add_buffer(std::unique_ptr<DataBuffer> b);
/// Unregisters a handle; the buffer, or nullptr when it was not live.
std::unique_ptr<DataBuffer> remove_buffer(const void* handle);
/// The buffer a call names, or RuntimeError naming the call.
DataBuffer& require_buffer(void* handle, const char* call);

/// The live command queues: each thread's own (by thread) and those of Contexts (no thread).
std::optional<std::optional<std::thread::id>> queue_owner(const void* handle);

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// A queue's call-trace file; the name is claimed for as long as the file is open, so a second thread
// tracing at the same time writes beside it (<path>.1, <path>.2, ...) instead of truncating it. It is
// written as a partial file and renamed onto its name when the queue is done with it: complete or
// absent whatever signal comes (vta/driver/file.h).
struct Trace {
  PathClaim claim;
  std::unique_ptr<PartialFile> partial;
  std::unique_ptr<std::FILE, FileCloser> file;
  Trace() = default;
  Trace(Trace&&) noexcept = default;
  Trace& operator=(Trace&& o) noexcept;
  ~Trace() { release(); }
  void release();
};

struct ContextState {
  Context* owner = nullptr;  // the Context this is the state of (a thread's own: its wrapper)
  bool thread_own = false;   // the queue is created on first use over VTA_TARGET and Dram::global()
  Trace trace;               // outlives the queue that writes to it
  std::unique_ptr<CommandQueue> queue;
  std::string error;  // first error of the current batch, or of the last call outside a batch
  bool poisoned = false;
  UopKernel* recording = nullptr;  // the kernel a C finit is recording
  std::string recording_error;

  ~ContextState() { close(); }
  /// The queue, created on first use for a thread's own runtime (RuntimeError when its device cannot
  /// be made: an unknown VTA_TARGET, a bad VTA_TSIM_* value, ...).
  CommandQueue& get_queue();
  void adopt(std::unique_ptr<CommandQueue> q, std::optional<std::thread::id> thread);
  void close();

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

  /// Prints and keeps the first error of the batch, and poisons it.
  void fail(const std::string& message);
  /// Runs a runtime call unless the batch is already poisoned; an exception poisons it. 0 or -1.
  int guarded(const std::function<void()>& f);
  /// Runs a call that is not part of a batch (statistics, settings): an error is reported and kept
  /// for VTARuntimeGetLastError without poisoning the batch. 0 or -1.
  int outside_batch(const std::function<void()>& f);
  /// VTAPushGEMMOp / VTAPushALUOp after their arguments are checked: `uop_handle` the call site's slot,
  /// `key` the closure's (0: none), `record` records the kernel the first time this queue sees it.
  /// Errors the kernel's recording reports (KernelError) are prefixed with the call's name.
  void push_kernel(bool gemm, void** uop_handle, int64_t key, const std::function<void(UopKernel&)>& record);
  /// VTASynchronize on this runtime's queue: a poisoned batch is discarded; 0 or -1.
  int synchronize(uint32_t wait_cycles);
};

/// The runtime the calling thread's C API calls go to: the Context a Scope binds, else its own.
ContextState& current_state();
/// The calling thread's own runtime.
ContextState& own_state();

}  // namespace vta::runtime
