#pragma once
/// \file vta/runtime_context.h
/// A runtime of its own, for a program that drives several devices from a pool of threads (the device
/// server runs each session's modules on the session's device and memory). By default every thread
/// has one runtime, created on first use over `VTA_TARGET` and `Dram::global()`. A Context is another:
/// a command queue over a given device and memory, with its own batch error state. While a
/// Context::Scope lives on a thread, the C API's calls on that thread are the context's: a NULL command
/// handle and VTATLSCommandHandle() mean its queue, and VTARuntimeGetLastError() reads its error.
///
///   vta::runtime::Context ctx(std::move(device), dram);
///   void* buf = ctx.wrap_buffer(phys, bytes, "data");
///   { vta::runtime::Context::Scope use(ctx); module.call({buf, ...}); }
///   ctx.release_buffer(buf);
///
/// A context is used by one thread at a time (the caller serialises, e.g. with a strand); it may move
/// between threads between scopes.

#include <cstddef>
#include <memory>
#include <string>

#include "vta/command_queue.h"
#include "vta/device.h"

namespace vta::runtime {

struct ContextState;  // the per-runtime state of the C API (runtime_api.cc)

/// Bytes of a live runtime buffer handle (VTABufferAlloc's or a context's), 0 for anything else.
size_t buffer_bytes(const void* handle);

/// The calling thread's runtime (its own, or the Context a Scope binds): true when a call of the current
/// batch failed; the batch is poisoned and its further calls do nothing until it is discarded.
bool batch_failed();
/// Discards the current batch of the calling thread's runtime, failed or built halfway (a module call
/// that stops early), so the next call starts clean; the last error stays readable.
void abandon_batch();

class Context {
 public:
  /// A queue over `device`, staging its instruction streams in `dram` (the device's memory, which
  /// must outlive the context).
  Context(std::unique_ptr<Device> device, Dram& dram);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  CommandQueue& queue();
  Device& device() { return queue().device(); }

  /// A runtime buffer handle (what VTALoadBuffer2D and VTAStoreBuffer2D take) over `bytes` bytes at
  /// `phys` of this context's memory, which the caller keeps allocated until release_buffer. Throws
  /// RuntimeError when the range is not inside one allocation.
  void* wrap_buffer(PhysAddr phys, size_t bytes, std::string name);
  void release_buffer(void* handle);

  /// After a failure in the middle of a batch: drops the batch and clears the error state, so the
  /// next call starts clean.
  void reset();
  /// The error of the last failed call made in this context (VTARuntimeGetLastError's text).
  const std::string& last_error() const;

  /// Makes `ctx` the runtime of the calling thread until destroyed (scopes nest).
  class Scope {
   public:
    explicit Scope(Context& ctx);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    ContextState* previous_;
  };

  /// Keeps the calling thread's runtime binding across a switch to other cooperative threads that
  /// share the OS thread (SystemC's SC_THREADs, each with a Scope of its own): construct it before
  /// yielding (a SystemC wait), and the binding is restored when it is destroyed.
  class Keep {
   public:
    Keep();
    ~Keep();
    Keep(const Keep&) = delete;
    Keep& operator=(const Keep&) = delete;

   private:
    ContextState* kept_;
  };

 private:
  Dram& dram_;
  std::unique_ptr<ContextState> state_;
};

}  // namespace vta::runtime
