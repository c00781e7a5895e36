// The Executor's target on a device server: remote tensors, modules uploaded once.

#include "vta/network/remote.h"

#include <stdexcept>
#include <string>

#include "vta/rpc/protocol.h"

namespace vta::network {
namespace {

class RemoteTensor final : public Target::Tensor {
 public:
  explicit RemoteTensor(rpc::RemoteTensor t) : t_(std::move(t)) {}
  void copy_from(std::span<const int8_t> host) override { t_.copy_from(host); }
  void copy_to(std::span<int8_t> host) const override { t_.copy_to(host); }
  const rpc::RemoteTensor& tensor() const { return t_; }

 private:
  rpc::RemoteTensor t_;
};

class RemoteProgram final : public Target::Program {
 public:
  RemoteProgram(std::shared_ptr<rpc::Remote> remote, rpc::RemoteModule module)
      : remote_(std::move(remote)), module_(std::move(module)) {}
  Stats run(const std::vector<const Target::Tensor*>& args) override {
    std::vector<const rpc::RemoteTensor*> tensors;
    tensors.reserve(args.size());
    for (const Target::Tensor* a : args) tensors.push_back(&dynamic_cast<const RemoteTensor&>(*a).tensor());
    remote_->clear_stats();
    module_.call(tensors);
    return remote_->stats();
  }

 private:
  std::shared_ptr<rpc::Remote> remote_;
  rpc::RemoteModule module_;
};

// An upload name for the program of step `index` named `step` (rpc::valid_upload_name: the step's
// characters no upload name may hold become '_').
std::string upload_name(size_t index, const std::string& step) {
  std::string name = "step" + std::to_string(index) + "-";
  for (const char c : step) name += rpc::upload_name_char(c) ? c : '_';
  const std::string suffix = ".vtam";
  return name.substr(0, rpc::kMaxUploadName - suffix.size()) + suffix;
}

class RemoteTarget final : public Target {
 public:
  explicit RemoteTarget(std::shared_ptr<rpc::Remote> remote) : remote_(std::move(remote)) {}
  std::unique_ptr<Tensor> empty(const std::vector<int64_t>& shape, const std::string& name,
                                runtime::DType dtype) override {
    return std::make_unique<RemoteTensor>(remote_->empty(shape, dtype, name));
  }
  std::unique_ptr<Program> load(const compiler::Module& module, const std::string& name) override {
    const std::string file = upload_name(uploads_++, name);
    const std::string text = module.to_json();
    remote_->upload(file, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
    return std::make_unique<RemoteProgram>(remote_, remote_->load_module(file));
  }

 private:
  std::shared_ptr<rpc::Remote> remote_;
  size_t uploads_ = 0;
};

}  // namespace

std::shared_ptr<Target> remote_target(std::shared_ptr<rpc::Remote> remote) {
  if (!remote) throw std::invalid_argument("remote_target: no session");
  return std::make_shared<RemoteTarget>(std::move(remote));
}

}  // namespace vta::network
