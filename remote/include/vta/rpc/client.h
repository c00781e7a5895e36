#pragma once
/// \file vta/rpc/client.h
/// A connection to a VTA device server (docs/REMOTE.md): the handshake, device memory, runs. Every
/// call is one request and its reply (copies larger than a frame are split); every wait is bounded by
/// the connection's timeouts. The building block of the driver-level and module-level clients.

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "vta/driver/config.h"
#include "vta/rpc/protocol.h"

namespace vta::rpc {

/// The server refused a request (its Error message), or the connection failed or timed out.
class RemoteError : public std::runtime_error {
 public:
  RemoteError(ErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

struct ConnectionOptions {
  std::chrono::milliseconds timeout{30'000};         ///< connect and every request but Run
  std::chrono::milliseconds run_timeout{3'600'000};  ///< a Run (a long tsim run is legitimate)
  Limits limits;
  /// The hardware configuration claimed in the handshake (nullptr: the one this program was built for).
  const Config* config = nullptr;
  /// The shared secret to prove when the server asks for one (read_token_file); never sent itself.
  std::string token;
};

/// A Write whose bytes are borrowed, not copied: they must stay valid until the call returns.
struct WriteView {
  uint64_t phys = 0;
  std::span<const uint8_t> data;
};
/// One request of a pipelined batch.
using Request = std::variant<Message, WriteView>;

class Connection {
 public:
  /// Connects (`host` is a name or an address) and performs the handshake for the configuration this program was built
  /// for. Throws RemoteError naming the server and the reason (unreachable, timeout, config-mismatch, busy).
  Connection(const std::string& host, uint16_t port, const ConnectionOptions& options = {});
  ~Connection();  ///< says Goodbye (without waiting long) and closes
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  uint64_t alloc(uint64_t bytes);
  void free(uint64_t phys);
  /// Copies into device memory; chunks of chunk_bytes(), 16 per round trip.
  void write(uint64_t phys, std::span<const uint8_t> bytes);
  /// Copies out of device memory into `out` (or a new vector), chunked like write.
  void read(uint64_t phys, std::span<uint8_t> out);
  std::vector<uint8_t> read(uint64_t phys, uint64_t bytes);
  RunReply run(uint64_t insn_phys, uint32_t count, uint64_t budget);
  /// Zeroes the statistics; returns the device's state afterwards (its statistics, tokens, last error).
  RunReply clear_stats();
  /// Sends every request at once and waits for all the replies (one round trip); returns them in
  /// order, a refused request as its Error message (not thrown). `limit` bounds the wait for the
  /// replies (0: the connection's timeout). A request that needs more than one frame is the caller's
  /// to split. Throws RemoteError when the connection fails.
  std::vector<Message> pipeline(std::span<const Message> requests, std::chrono::milliseconds limit = {});
  /// The same with borrowed Write data (sent from where it lies; a WriteView's reply is Ok or Error).
  std::vector<Message> pipeline(std::span<const Request> requests, std::chrono::milliseconds limit = {});
  /// The server's configuration name and its sessions' backend (from the handshake).
  const std::string& server_config() const;
  const std::string& server_target() const;
  /// The most bytes one Write or Read request carries: 1 MiB, or less under a smaller frame limit.
  uint64_t chunk_bytes() const;
  /// "host:port" as given.
  const std::string& where() const;
  /// Round trips so far (a request, or a pipelined batch of them).
  uint64_t round_trips() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vta::rpc
