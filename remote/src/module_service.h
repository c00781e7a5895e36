#pragma once
// The module layer of a device server session (docs/REMOTE.md): modules arrive as data (Upload), are
// read and checked by the compiler's module reader (LoadModule) and run with the runtime on the
// session's device (Call). The transport (server.cc: sockets, framing, the handshake, device memory
// and direct runs) hands it these three requests and sends what it answers; it is the only part of the
// server that depends on the compiler.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "vta/driver/memory.h"
#include "vta/rpc/protocol.h"
#include "vta/runtime/context.h"

namespace vta::compiler {
class Module;
}

namespace vta::rpc {

class ModuleService {
 public:
  struct Options {
    std::string target;                         ///< the backend the session's device runs ("fsim", "tsim")
    uint64_t max_uploads = 0;                   ///< bytes of uploads the session keeps
    uint64_t max_call_steps = 0;                ///< host steps a call may take (0: the compiler's default)
    const std::atomic<bool>* cancel = nullptr;  ///< set when the server stops: calls in progress end
  };
  /// How a call ended: its error message when the module failed while running.
  struct CallResult {
    std::optional<std::string> failure;
  };
  /// The size of the session's buffer starting at `phys`, none when no buffer starts there.
  using BufferSize = std::function<std::optional<uint64_t>(PhysAddr phys)>;

  explicit ModuleService(Options options);
  ~ModuleService();
  ModuleService(const ModuleService&) = delete;
  ModuleService& operator=(const ModuleService&) = delete;

  /// Keeps the data under its name (replacing an upload of that name): Ok, or an Error past the limit.
  Message upload(const Upload& u);
  /// Reads an uploaded module: its handle and arguments, or an Error naming what is wrong with it.
  Message load(const LoadModule& l);
  /// Checks the call's buffers against the module's arguments (an Error when they do not fit), then runs
  /// it on `ctx`, bounded by the options' steps and cancellation; `on_start` is told when it starts.
  std::variant<Error, CallResult> call(const Call& c, runtime::Context& ctx, const BufferSize& buffer_size,
                                       const std::function<void()>& on_start);

 private:
  static constexpr size_t kMaxModules = 64;
  Options options_;
  std::map<std::string, std::vector<uint8_t>> uploads_;  // the session's store, by name
  uint64_t upload_bytes_ = 0;
  std::map<uint32_t, std::unique_ptr<compiler::Module>> modules_;
  uint32_t next_module_ = 1;
};

}  // namespace vta::rpc
