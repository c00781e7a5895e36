#pragma once
/// \file vta/network/target.h
/// Where an Executor's VTA programs run and its device tensors (the packed weights, the activations in
/// the blocked layout) live between steps. local_target(): the runtime's device in this process
/// (VTA_TARGET), the default. fast_forward_target(): the same, with the steps of interest simulated
/// in detail on a second device over the same memory. vta/network/remote.h: a session on a device
/// server, whose memory then keeps the activations (the tutorials' RPC setup).

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "vta/compiler/build.h"
#include "vta/driver/device.h"

namespace vta::network {

class Target {
 public:
  class Tensor {
   public:
    virtual ~Tensor() = default;
    virtual void copy_from(std::span<const int8_t> host) = 0;
    virtual void copy_to(std::span<int8_t> host) const = 0;
    /// A tensor of `shape` over this one's memory from element `offset` on (a part a program writes
    /// in place: a concatenation's input). Only on a target whose views() is true: elsewhere it throws
    /// std::logic_error (a caller that did not ask views() first).
    virtual std::unique_ptr<Tensor> view(size_t offset, const std::vector<int64_t>& shape,
                                         const std::string& name) const {
      (void)offset, (void)shape;
      throw std::logic_error("tensor " + name + ": this target's tensors have no views (Target::views())");
    }
  };
  class Program {
   public:
    virtual ~Program() = default;
    /// Runs once on one tensor per argument (those of this target); the statistics of the run.
    virtual Stats run(const std::vector<const Tensor*>& args) = 0;
  };
  virtual ~Target() = default;
  /// A zero-filled tensor of `dtype` (int8, or int4 on a configuration of 4-bit elements: copied from
  /// and to int8 values, packed on the target).
  virtual std::unique_ptr<Tensor> empty(const std::vector<int64_t>& shape, const std::string& name,
                                        runtime::DType dtype) = 0;
  /// Whether its tensors give views (Tensor::view): this process's memory does, a device server's
  /// session does not (its protocol names whole tensors).
  virtual bool views() const { return false; }
  /// Whether its programs may run on several threads at once, each on the calling thread's own
  /// device over the same memory: this process's runtime on a backend that allows it (the fsim and the
  /// tsim: vta::runs_concurrently); a board, SystemC, a device server's session and fast-forward's one
  /// detailed device run one program at a time.
  virtual bool concurrent() const { return false; }
  /// One thread's share of steps run at once (concurrent() targets): its own device over the same
  /// memory, made once with the worker; an Executor keeps its workers for all its runs.
  class Worker {
   public:
    virtual ~Worker() = default;
    /// Runs `f` on the calling thread with this worker's device as the thread's runtime.
    virtual void run(const std::function<void()>& f) = 0;
  };
  /// A new worker; only on a target whose concurrent() is true (std::logic_error elsewhere).
  virtual std::unique_ptr<Worker> worker() {
    throw std::logic_error("this target runs one program at a time: it has no workers (Target::concurrent())");
  }
  /// `module` ready to run there; `name` names it (the step) in uploads and diagnostics.
  virtual std::unique_ptr<Program> load(const compiler::Module& module, const std::string& name) = 0;
};

/// The runtime's device in this process.
std::shared_ptr<Target> local_target();

/// Sampled simulation, the way CPU simulators fast-forward: every program runs on the runtime's
/// device in this process (as local_target(), typically the fsim) except those of the steps
/// `detailed` names, which run on a second device of backend `detailed_backend` (tsim, systemc) made
/// in this process over the same device memory (Dram::global()). The tensors are shared, so a
/// network runs at the fast backend's speed up to the steps of interest, is simulated cycle by cycle
/// there (their statistics carry cycles), and goes on fast. The detailed device is made on the first
/// run of a detailed step. Throws std::invalid_argument with fast_forward_refusal's reason.
std::shared_ptr<Target> fast_forward_target(const std::string& detailed_backend, std::set<std::string> detailed);

/// Why fast_forward_target(detailed_backend, ...) refuses now, or "": the detailed backend is unknown,
/// or it or the runtime's backend (default_target(), VTA_TARGET) runs outside this process's memory
/// (rpc://). Programs call it before their long preparations; fast_forward_target calls it again.
std::string fast_forward_refusal(const std::string& detailed_backend);

}  // namespace vta::network
