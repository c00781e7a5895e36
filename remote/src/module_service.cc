#include "module_service.h"

#include <exception>
#include <string_view>
#include <utility>

#include "vta/compiler/build.h"
#include "wire_dtype.h"

namespace vta::rpc {

ModuleService::ModuleService(Options options) : options_(std::move(options)) {}
ModuleService::~ModuleService() = default;

Message ModuleService::upload(const Upload& u) {
  auto old = uploads_.find(u.name);
  const uint64_t kept = upload_bytes_ - (old == uploads_.end() ? 0 : old->second.size());
  if (u.data.size() > options_.max_uploads - kept) {
    return Error{ErrorCode::kOutOfMemory, "Upload of " + u.name + " (" + std::to_string(u.data.size()) +
                                              " bytes): the session keeps " + std::to_string(kept) +
                                              " bytes of uploads of its " + std::to_string(options_.max_uploads)};
  }
  uploads_[u.name] = u.data;
  upload_bytes_ = kept + u.data.size();
  return Ok{};
}

Message ModuleService::load(const LoadModule& l) {
  const auto it = uploads_.find(l.name);
  if (it == uploads_.end()) {
    std::string names;
    for (const auto& [name, bytes] : uploads_) names += (names.empty() ? "" : ", ") + name;
    return Error{ErrorCode::kBadValue, "LoadModule: nothing named " + l.name + " was uploaded in this session" +
                                           (names.empty() ? "" : " (uploaded: " + names + ")")};
  }
  if (modules_.size() >= kMaxModules) {
    return Error{ErrorCode::kOutOfMemory,
                 "LoadModule: the session holds " + std::to_string(kMaxModules) + " modules already"};
  }
  std::unique_ptr<compiler::Module> module;
  try {
    const std::string_view text(reinterpret_cast<const char*>(it->second.data()), it->second.size());
    module = std::make_unique<compiler::Module>(compiler::Module::from_json(text, l.name));
  } catch (const compiler::ModuleError& e) {
    return Error{ErrorCode::kBadValue, std::string("LoadModule: ") + e.what()};
  }
  if (!module->target().empty() && module->target() != options_.target) {
    return Error{ErrorCode::kBadValue, "LoadModule: " + l.name + " was built for target " + module->target() +
                                           "; this server runs " + options_.target};
  }
  ModuleReply reply;
  for (const compiler::Tensor& t : module->args()) {
    if (t->dtype == compiler::DType::kBool) {
      return Error{ErrorCode::kBadValue, "LoadModule: argument " + t->name + " of " + l.name +
                                             " is of type bool, which cannot live in device memory"};
    }
    reply.args.push_back(ModuleArg{t->name, wire_dtype(compiler::device_dtype(t->dtype)), t->shape});
  }
  reply.handle = next_module_++;
  modules_[reply.handle] = std::move(module);
  return reply;
}

std::variant<Error, ModuleService::CallResult> ModuleService::call(const Call& c, runtime::Context& ctx,
                                                                   const BufferSize& buffer_size,
                                                                   const std::function<void()>& on_start) {
  const auto it = modules_.find(c.handle);
  if (it == modules_.end()) {
    return Error{ErrorCode::kBadValue,
                 "Call: no module with handle " + std::to_string(c.handle) + " was loaded in this session"};
  }
  const compiler::Module& module = *it->second;
  const auto& args = module.args();
  if (c.args.size() != args.size()) {
    return Error{ErrorCode::kBadValue, "Call: " + std::to_string(c.args.size()) + " buffers for a module of " +
                                           std::to_string(args.size()) + " arguments"};
  }
  // every argument names a whole buffer of this session, large enough for it
  struct Wrapped {
    runtime::Context& ctx;
    std::vector<void*> handles;
    ~Wrapped() {
      for (void* h : handles) ctx.release_buffer(h);
    }
  } wrapped{ctx, {}};
  for (size_t i = 0; i < args.size(); ++i) {
    const compiler::Tensor& t = args[i];
    const std::optional<uint64_t> bytes = buffer_size(PhysAddr(c.args[i]));
    if (!bytes) {
      return Error{ErrorCode::kNoSuchBuffer, "Call: argument " + t->name + ": no buffer starts at " + hex(c.args[i])};
    }
    const uint64_t need = compiler::device_bytes(t);
    if (*bytes < need) {
      return Error{ErrorCode::kBadValue, "Call: argument " + t->name + " needs " + std::to_string(need) +
                                             " bytes; the buffer at " + hex(c.args[i]) + " has " +
                                             std::to_string(*bytes)};
    }
    wrapped.handles.push_back(ctx.wrap_buffer(PhysAddr(c.args[i]), size_t(need), t->name));
  }
  on_start();
  try {
    compiler::CallLimits limits;
    if (options_.max_call_steps != 0) limits.max_host_steps = options_.max_call_steps;
    limits.cancel = options_.cancel;
    module.call(ctx, wrapped.handles, limits);
  } catch (const std::exception& e) {
    // (the call went back to where the batch stood when it started: a pop the previous call left
    // pending still meets its token)
    ctx.clear_error();
    return CallResult{e.what()};
  }
  return CallResult{};
}

}  // namespace vta::rpc
