#pragma once
/// \file vta/network/target.h
/// Where an Executor's VTA programs run and its device tensors (the packed weights, the activations in
/// the blocked layout) live between steps. local_target(): the runtime's device in this process
/// (VTA_TARGET), the default. vta/network/remote.h: a session on a device server, whose memory then
/// keeps the activations (the tutorials' RPC setup).

#include <cstdint>
#include <memory>
#include <span>
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
  };
  class Program {
   public:
    virtual ~Program() = default;
    /// Runs once on one tensor per argument (those of this target); the statistics of the run.
    virtual Stats run(const std::vector<const Tensor*>& args) = 0;
  };
  virtual ~Target() = default;
  /// A zero-filled int8 tensor.
  virtual std::unique_ptr<Tensor> empty(const std::vector<int64_t>& shape, const std::string& name) = 0;
  /// `module` ready to run there; `name` names it (the step) in uploads and diagnostics.
  virtual std::unique_ptr<Program> load(const compiler::Module& module, const std::string& name) = 0;
};

/// The runtime's device in this process.
std::shared_ptr<Target> local_target();

}  // namespace vta::network
