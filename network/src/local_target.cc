// The executor's target in this process: the runtime's device and its tensors.

#include "vta/network/target.h"
#include "vta/runtime/tensor.h"

namespace vta::network {
namespace c = vta::compiler;
namespace {

class LocalTensor final : public Target::Tensor {
 public:
  LocalTensor(const std::vector<int64_t>& shape, const std::string& name)
      : t_(shape, vta::runtime::DType::kInt8, name) {}
  void copy_from(std::span<const int8_t> host) override { t_.copy_from(host); }
  void copy_to(std::span<int8_t> host) const override { t_.copy_to(host); }
  const runtime::DeviceTensor& tensor() const { return t_; }

 private:
  runtime::DeviceTensor t_;
};

class LocalProgram final : public Target::Program {
 public:
  explicit LocalProgram(const c::Module& m) : module_(m) {}
  Stats run(const std::vector<const Target::Tensor*>& args) override {
    std::vector<const runtime::DeviceTensor*> tensors;
    tensors.reserve(args.size());
    for (const Target::Tensor* a : args) tensors.push_back(&dynamic_cast<const LocalTensor&>(*a).tensor());
    vta::runtime::clear_runtime_stats();
    module_(tensors);
    return vta::runtime::runtime_stats();
  }

 private:
  c::Module module_;
};

class LocalTarget final : public Target {
 public:
  std::unique_ptr<Tensor> empty(const std::vector<int64_t>& shape, const std::string& name) override {
    return std::make_unique<LocalTensor>(shape, name);
  }
  std::unique_ptr<Program> load(const c::Module& module, const std::string& /*name*/) override {
    return std::make_unique<LocalProgram>(module);
  }
};

}  // namespace

std::shared_ptr<Target> local_target() { return std::make_shared<LocalTarget>(); }

}  // namespace vta::network
