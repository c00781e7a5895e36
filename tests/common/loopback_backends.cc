// Linked into a test executable, this registers the remote device as more backends of the driver's
// factory: "rpc-fsim" and, when built with VTA_LOOPBACK_TSIM, "rpc-tsim" are devices on device
// servers of that backend which this process starts on ephemeral loopback ports at their first use.
// Every suite that iterates over backend_names() (the invalid-program classes, the driver API) then
// runs on the remote device too, unchanged: "a new backend is done when the whole suite passes on it".

#include <string>

#include "vta/driver/device.h"
#include "vta/rpc/remote_device.h"
#include "vta/rpc/server.h"

namespace vta::test {
namespace {

void register_loopback(const std::string& target) {
  register_backend("rpc-" + target, [target](const Config& c, const DeviceOptions& o) {
    return rpc::make_remote_device("127.0.0.1:" + std::to_string(rpc::process_server_port(target, 2)), c, o);
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
