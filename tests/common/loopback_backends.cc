// Linked into a test executable, this registers the remote device as more backends of the driver's
// factory: "rpc-fsim" and, when built with VTA_LOOPBACK_TSIM, "rpc-tsim" are devices on device
// servers of that backend which this process starts on ephemeral loopback ports at their first use.
// Every suite that iterates over backend_names() (the invalid-program classes, the driver API) then
// runs on the remote device too, unchanged: "a new backend is done when the whole suite passes on it".

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "vta/driver/device.h"
#include "vta/rpc/remote_device.h"
#include "vta/rpc/server.h"

namespace vta::test {
namespace {

// One server per backend for the whole process, stopped when the process exits.
uint16_t server_port(const std::string& target) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<rpc::Server>> servers;
  std::lock_guard lock(mu);
  auto& s = servers[target];
  if (s == nullptr) {
    rpc::ServerOptions o;
    o.target = target;
    o.threads = 2;
    s = std::make_unique<rpc::Server>(o);
  }
  return s->port();
}

void register_loopback(const std::string& target) {
  register_backend("rpc-" + target, [target](const Config& c, const DeviceOptions& o) {
    return rpc::make_remote_device("127.0.0.1:" + std::to_string(server_port(target)), c, o);
  });
}

const bool kRegistered = [] {
  register_loopback("fsim");
#ifdef VTA_LOOPBACK_TSIM
  register_loopback("tsim");
#endif
  return true;
}();

}  // namespace
}  // namespace vta::test
