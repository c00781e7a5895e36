#pragma once
/// \file vta/rpc/remote_device.h
/// The driver-level client (docs/REMOTE.md): a vta::Device whose runs execute on a device server, so
/// that every driver.h program runs remotely unchanged with VTA_TARGET=rpc://HOST:PORT. Programs keep
/// writing their buffers in local memory (Dram::global()); the device mirrors each buffer a run uses
/// at the same physical address in the session's memory on the server, sends the bytes the run reads,
/// runs, and copies back the bytes it stores: one round trip per run.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "vta/driver/device.h"
#include "vta/rpc/client.h"

namespace vta::rpc {

/// "HOST:PORT" (or "[IPv6]:PORT") split into host and port; throws std::invalid_argument naming the
/// expected form.
std::pair<std::string, uint16_t> parse_address(std::string_view address);

/// A device on the server at `address` ("HOST:PORT"). Throws RemoteError when the server cannot be
/// reached or refuses the handshake (another configuration, full, ...).
std::unique_ptr<Device> make_remote_device(std::string_view address, const Config& config,
                                           const DeviceOptions& options = {}, const ConnectionOptions& connection = {});

/// Figures of a remote device's traffic, for tests and benchmarks (zero for other devices).
struct RemoteTraffic {
  uint64_t round_trips = 0;
  uint64_t bytes_sent = 0;      ///< memory contents uploaded
  uint64_t bytes_received = 0;  ///< memory contents copied back
};
RemoteTraffic remote_traffic(const Device& device);

}  // namespace vta::rpc
