#pragma once
/// \file vta/runtime/context.h
/// A runtime: a command queue over a device and its memory, with the batch's error state. Every
/// thread has one of its own, created on first use over `VTA_TARGET` and `Dram::global()`
/// (Context::current() outside any Scope); a program that drives several devices makes more (the
/// device server runs each session's modules on the session's device and memory, a SystemC platform
/// one per accelerator).
///
/// The runtime calls of vta/runtime.h are methods of a Context, with the C API's semantics (0, or -1
/// after the error was printed and kept for last_error(); the batch's further calls do nothing until
/// synchronize discards it). The C API is a facade over them: its calls go to the context a
/// Context::Scope binds on the calling thread, or to the thread's own (a NULL command handle and
/// VTATLSCommandHandle() mean that context's queue, VTARuntimeGetLastError() reads its error).
///
///   vta::runtime::Context ctx(std::move(device), dram);
///   void* buf = ctx.wrap_buffer(phys, bytes, "data");
///   module.call(ctx, {buf, ...});               // vta/compiler/build.h
///   ctx.release_buffer(buf);
///
/// A context is used by one thread at a time (the caller serialises, e.g. with a strand); it may move
/// between threads between calls. Its device's calls keep the calling thread's Scope binding across
/// whatever the device does meanwhile, so cooperative threads that share an OS thread (SystemC's
/// SC_THREADs, each with a Scope of its own, waiting inside their devices) each keep their own.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "vta/driver/device.h"
#include "vta/runtime/command_queue.h"

namespace vta::runtime {

struct ContextState;        // the state of one runtime (context_state.h)
ContextState& own_state();  // the calling thread's own runtime (context.cc)

/// Bytes of a live runtime buffer handle (VTABufferAlloc's or a context's), 0 for anything else.
size_t buffer_bytes(const void* handle);

/// A new buffer handle over `bytes` bytes of the live buffer `handle` from byte `offset`: the same
/// memory (a transfer on either is a transfer on both), kept allocated while the view lives even if
/// `handle` is freed first. Freed with VTABufferFree like any handle. Throws std::invalid_argument
/// when `handle` is not a live buffer or the range leaves it.
void* buffer_view(const void* handle, size_t offset, size_t bytes, std::string name);

class Context {
 public:
  /// A queue over `device`, staging its instruction streams in `dram` (the device's memory, which
  /// must outlive the context).
  Context(std::unique_ptr<Device> device, Dram& dram);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  /// The calling thread's runtime: the context a Scope binds, else the thread's own.
  static Context& current();

  /// Opens the queue (the thread's own is opened on first use): 0, or -1 after reporting why the device
  /// could not be made (last_error()).
  int open();
  /// The queue and its device (opened if needed; RuntimeError when that fails).
  CommandQueue& queue();
  Device& device() { return queue().device(); }

  /// A runtime buffer handle (what load_buffer_2d and store_buffer_2d take) over `bytes` bytes at
  /// `phys` of this context's memory, which the caller keeps allocated until release_buffer. Throws
  /// RuntimeError when the range is not inside one allocation.
  void* wrap_buffer(PhysAddr phys, size_t bytes, std::string name);
  void release_buffer(void* handle);

  // The runtime calls (vta/runtime.h: VTALoadBuffer2D, VTAStoreBuffer2D, VTADepPush, VTADepPop,
  // VTAPushGEMMOp / VTAPushALUOp, VTASynchronize) on this context: 0, or -1 after the error was
  // reported; a failed call poisons the batch, whose further calls return -1 until synchronize
  // discards it.
  int load_buffer_2d(void* buffer, uint32_t src_elem_offset, uint32_t x_size, uint32_t y_size, uint32_t x_stride,
                     uint32_t x_pad_before, uint32_t y_pad_before, uint32_t x_pad_after, uint32_t y_pad_after,
                     uint32_t dst_sram_index, uint32_t dst_memory_type);
  int store_buffer_2d(uint32_t src_sram_index, uint32_t src_memory_type, void* buffer, uint32_t dst_elem_offset,
                      uint32_t x_size, uint32_t y_size, uint32_t x_stride);
  int dep_push(int from, int to);
  int dep_pop(int from, int to);
  /// Pushes a GEMM (`gemm`) or ALU micro-op kernel. `site` is the call site's handle slot (nullptr
  /// the first time: a process-unique id is stored in it), `closure` selects the kernel's instance
  /// (0: none), and `record` records it the first time this context sees the pair, with
  /// UopKernel::loop_begin / loop_end / push.
  int push_kernel(bool gemm, void** site, int64_t closure, const std::function<void(UopKernel&)>& record);
  int synchronize(uint32_t wait_cycles);

  /// True when a call of the current batch failed (the batch is poisoned).
  bool batch_failed() const;
  /// Discards the current batch, failed or built halfway, so the next call starts clean; the last
  /// error stays readable.
  void abandon_batch();
  /// Where the batch stands (CommandQueue::checkpoint), and the same discard back to it: what a caller
  /// that stops halfway (a module call) does, keeping the pops it found pending.
  CommandQueue::Checkpoint checkpoint();
  void abandon_batch(const CommandQueue::Checkpoint& back_to);
  /// Clears the error state of the current batch (the batch itself stays as it is).
  void clear_error();
  /// After a failure in the middle of a batch: drops the batch and clears the error state.
  void reset();
  /// The error of the last failed call made in this context (VTARuntimeGetLastError's text).
  const std::string& last_error() const;

  /// Makes `ctx` the runtime of the calling thread's C API until destroyed (scopes nest).
  class Scope {
   public:
    explicit Scope(Context& ctx);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    ContextState* previous_;
  };

 private:
  friend ContextState& own_state();
  explicit Context(ContextState& own);  // a thread's own runtime
  Dram& dram_;
  std::unique_ptr<ContextState> owned_;
  ContextState* state_;
};

}  // namespace vta::runtime
