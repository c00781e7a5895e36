// The executor's target in this process: the runtime's device and its tensors.

#include <optional>
#include <stdexcept>

#include "vta/driver/build_config.h"
#include "vta/driver/device.h"
#include "vta/network/target.h"
#include "vta/runtime/context.h"
#include "vta/runtime/tensor.h"

namespace vta::network {
namespace c = vta::compiler;
namespace {

class LocalTensor final : public Target::Tensor {
 public:
  LocalTensor(const std::vector<int64_t>& shape, const std::string& name, runtime::DType dtype)
      : t_(shape, dtype, name) {}
  explicit LocalTensor(runtime::DeviceTensor t) : t_(std::move(t)) {}
  void copy_from(std::span<const int8_t> host) override { t_.copy_from(host); }
  void copy_to(std::span<int8_t> host) const override { t_.copy_to(host); }
  std::unique_ptr<Target::Tensor> view(size_t offset, const std::vector<int64_t>& shape,
                                       const std::string& name) const override {
    return std::make_unique<LocalTensor>(runtime::DeviceTensor::view(t_, offset, shape, name));
  }
  const runtime::DeviceTensor& tensor() const { return t_; }

 private:
  runtime::DeviceTensor t_;
};

// A runtime of its own over this process's memory, with a new device of `backend`.
std::unique_ptr<runtime::Context> runtime_of_its_own(const std::string& backend) {
  return std::make_unique<runtime::Context>(make_device(backend, build_config(), DeviceOptions::from_env()),
                                            Dram::global());
}

// A second runtime in this process, over the same memory (fast_forward_target's detailed device),
// made when first used.
class DetailedRuntime {
 public:
  explicit DetailedRuntime(std::string backend) : backend_(std::move(backend)) {}
  runtime::Context& context() {
    if (!context_) context_ = runtime_of_its_own(backend_);
    return *context_;
  }

 private:
  std::string backend_;
  std::unique_ptr<runtime::Context> context_;
};

// The cycle budget of the few no-op instructions that pop the tokens a step left (drain_tokens).
constexpr uint32_t kDrainBudget = 1u << 20;

class LocalProgram final : public Target::Program {
 public:
  /// `detailed`: the runtime that runs it (nullptr: the calling thread's).
  LocalProgram(const c::Module& m, std::shared_ptr<DetailedRuntime> detailed)
      : module_(m), detailed_(std::move(detailed)) {}
  Stats run(const std::vector<const Target::Tensor*>& args) override {
    std::vector<const runtime::DeviceTensor*> tensors;
    tensors.reserve(args.size());
    for (const Target::Tensor* a : args) tensors.push_back(&dynamic_cast<const LocalTensor&>(*a).tensor());
    std::optional<runtime::Context::Scope> scope;
    if (detailed_) scope.emplace(detailed_->context());
    vta::runtime::clear_runtime_stats();
    module_(tensors);
    const Stats stats = vta::runtime::runtime_stats();
    // a step's program may leave tokens in the queues (spec 4.1: pushes past its pops leak into the
    // next run, and the next program's cycles then depend on which program ran before it): popped
    // here, outside the step's statistics, so every step starts from empty queues whatever ran last
    // on this thread's device (SqueezeNet's last convolution left one g2l and one s2g token)
    vta::runtime::Context::current().queue().drain_tokens(kDrainBudget);
    return stats;
  }

 private:
  c::Module module_;
  std::shared_ptr<DetailedRuntime> detailed_;
};

// A worker of steps at once: a runtime of its own over the process's memory, its device made once.
class LocalWorker final : public Target::Worker {
 public:
  LocalWorker() : context_(runtime_of_its_own(default_target())) {}
  void run(const std::function<void()>& f) override {
    const runtime::Context::Scope scope(*context_);
    f();
  }

 private:
  std::unique_ptr<runtime::Context> context_;
};

class LocalTarget final : public Target {
 public:
  LocalTarget() = default;
  LocalTarget(std::shared_ptr<DetailedRuntime> detailed, std::set<std::string> steps)
      : detailed_(std::move(detailed)), detailed_steps_(std::move(steps)) {}
  std::unique_ptr<Tensor> empty(const std::vector<int64_t>& shape, const std::string& name,
                                runtime::DType dtype) override {
    return std::make_unique<LocalTensor>(shape, name, dtype);
  }
  bool views() const override { return true; }
  bool concurrent() const override { return detailed_ == nullptr && runs_concurrently(default_target()); }
  std::unique_ptr<Worker> worker() override {
    if (!concurrent()) return Target::worker();
    return std::make_unique<LocalWorker>();
  }
  std::unique_ptr<Program> load(const c::Module& module, const std::string& name) override {
    return std::make_unique<LocalProgram>(module, detailed_steps_.count(name) != 0 ? detailed_ : nullptr);
  }

 private:
  std::shared_ptr<DetailedRuntime> detailed_;
  std::set<std::string> detailed_steps_;
};

}  // namespace

std::shared_ptr<Target> local_target() { return std::make_shared<LocalTarget>(); }

std::string fast_forward_refusal(const std::string& detailed_backend) {
  if (is_scheme_address(detailed_backend)) {
    return "the detailed backend " + detailed_backend + " does not run in this process's memory (use tsim or systemc)";
  }
  if (!is_known_target(detailed_backend)) return "unknown backend " + detailed_backend;
  if (const std::string runtime = default_target(); is_scheme_address(runtime)) {
    return "the runtime's backend " + runtime +
           " (VTA_TARGET) does not run in this process's memory; fast-forward shares it with the detailed "
           "backend (use fsim)";
  }
  return {};
}

std::shared_ptr<Target> fast_forward_target(const std::string& detailed_backend, std::set<std::string> detailed) {
  if (const std::string refusal = fast_forward_refusal(detailed_backend); !refusal.empty()) {
    throw std::invalid_argument("fast-forward: " + refusal);
  }
  return std::make_shared<LocalTarget>(std::make_shared<DetailedRuntime>(detailed_backend), std::move(detailed));
}

}  // namespace vta::network
