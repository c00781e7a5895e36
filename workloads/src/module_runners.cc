// Where the compiled tutorials run their modules: on the runtime's device in this process, or on a
// device server through the module-level client (upload, load_module, remote tensors, one call).

#include <atomic>
#include <string>

#include "vta/compiler/build.h"
#include "vta/rpc/session.h"
#include "vta/runtime/tensor.h"
#include "vta/workloads/compiled.h"

namespace vta::tutorials {
namespace {

// The arguments' device types; the last argument is the output.
vta::runtime::DType device_type(const compiler::Tensor& t) { return compiler::device_dtype(t->dtype); }

void check_arity(const compiler::Module& module, size_t inputs) {
  if (module.args().size() != inputs + 1) {
    throw std::invalid_argument("module runner: " + std::to_string(inputs) + " inputs for a module of " +
                                std::to_string(module.args().size()) + " arguments (inputs, then one output)");
  }
}

class LocalRunner final : public ModuleRunner {
 public:
  std::vector<int8_t> run(const compiler::Module& module, const std::vector<std::vector<int8_t>>& inputs,
                          Stats& stats) override {
    check_arity(module, inputs.size());
    std::vector<vta::runtime::DeviceTensor> tensors;
    tensors.reserve(module.args().size());
    for (const compiler::Tensor& t : module.args()) tensors.emplace_back(t->shape, device_type(t), t->name);
    for (size_t i = 0; i < inputs.size(); ++i) tensors[i].copy_from(inputs[i]);
    std::vector<const vta::runtime::DeviceTensor*> args;
    args.reserve(tensors.size());
    for (const auto& t : tensors) args.push_back(&t);
    vta::runtime::clear_runtime_stats();
    try {
      module(args);
    } catch (const compiler::RuntimeError& e) {
      throw RunError(e.what());
    }
    stats = vta::runtime::runtime_stats();
    std::vector<int8_t> out(tensors.back().elements());
    tensors.back().copy_to(out);
    return out;
  }
};

class RemoteRunner final : public ModuleRunner {
 public:
  explicit RemoteRunner(rpc::Remote& remote) : remote_(remote) {}
  std::vector<int8_t> run(const compiler::Module& module, const std::vector<std::vector<int8_t>>& inputs,
                          Stats& stats) override {
    check_arity(module, inputs.size());
    // the module as a file's bytes, under a name of its own (the tutorials: remote.upload(lib))
    static std::atomic<unsigned> serial{0};
    const std::string name = "module-" + std::to_string(++serial) + ".vtam";
    const std::string text = module.to_json();
    remote_.upload(name, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
    const rpc::RemoteModule f = remote_.load_module(name);
    std::vector<rpc::RemoteTensor> tensors;
    tensors.reserve(module.args().size());
    for (const compiler::Tensor& t : module.args()) tensors.push_back(remote_.empty(t->shape, device_type(t), t->name));
    for (size_t i = 0; i < inputs.size(); ++i) tensors[i].copy_from(inputs[i]);
    std::vector<const rpc::RemoteTensor*> args;
    args.reserve(tensors.size());
    for (const auto& t : tensors) args.push_back(&t);
    remote_.clear_stats();
    try {
      f.call(args);
    } catch (const rpc::CallError& e) {
      throw RunError(e.what());
    }
    stats = remote_.stats();
    std::vector<int8_t> out(tensors.back().elements());
    tensors.back().copy_to(out);
    return out;
  }

 private:
  rpc::Remote& remote_;
};

}  // namespace

ModuleRunner& local_runner() {
  static LocalRunner runner;
  return runner;
}

std::unique_ptr<ModuleRunner> remote_runner(rpc::Remote& remote) { return std::make_unique<RemoteRunner>(remote); }

}  // namespace vta::tutorials
