#pragma once
/// \file vta/rpc/server.h
/// The VTA device server (docs/REMOTE.md): accepts clients over TCP (Boost.Asio), gives each session
/// its own device memory and device of the configured backend, and serves the protocol's requests.
/// Every wait has a bound (the handshake and idle timeouts, a module call's step limit); when a session ends, by
/// Goodbye, disconnect, timeout or a protocol error, everything it held is freed.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "vta/rpc/protocol.h"

namespace vta::rpc {

struct ServerOptions {
  std::string target = "fsim";                     ///< the backend each session's device runs on (fsim, tsim)
  std::string host = "127.0.0.1";                  ///< address to bind; a non-loopback address needs `insecure`
  uint16_t port = 0;                               ///< 0: an ephemeral port (Server::port() tells which)
  unsigned max_sessions = 16;                      ///< further clients get Error{busy} and are closed
  uint64_t max_memory = uint64_t{1} << 30;         ///< device memory per session, bytes
  uint64_t max_uploads = uint64_t{64} << 20;       ///< bytes of uploaded module files per session
  std::chrono::milliseconds idle_timeout{60'000};  ///< a session without a whole request this long is closed
  /// A connection that has not completed Hello (and Auth, with a token) this long after it was accepted
  /// is closed, however many bytes it sends meanwhile.
  std::chrono::milliseconds handshake_timeout{10'000};
  /// Connections still in their handshake at once; more are refused (busy). They do not count
  /// against max_sessions, which counts opened (authenticated) sessions only.
  unsigned max_pending = 16;
  /// Bound of one module Call's host-side interpretation (compiler::CallLimits::max_host_steps); 0: the
  /// compiler's default.
  uint64_t max_call_steps = 0;
  unsigned threads = 4;   ///< threads serving the sessions (a run occupies one)
  bool insecure = false;  ///< allow a non-loopback bind without authentication
  /// The shared secret clients must prove in the handshake (read_token_file); empty: none asked.
  std::string token;
  Limits limits;
  /// Throws std::invalid_argument naming the first value out of range.
  void validate() const;
};

/// Counters over the server's lifetime.
struct ServerCounters {
  uint64_t sessions_opened = 0, sessions_closed = 0, sessions_refused = 0;
  uint64_t requests = 0, protocol_errors = 0, runs = 0, auth_failures = 0, calls = 0;
};

class Server {
 public:
  /// Binds and starts serving on background threads. Throws std::runtime_error naming host:port
  /// when the address cannot be bound, std::invalid_argument for bad options.
  explicit Server(ServerOptions options);
  /// Stops accepting, cancels the module calls in progress, closes every session, joins the threads.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  uint16_t port() const;
  unsigned active_sessions() const;
  ServerCounters counters() const;
  /// Blocks until stop() is called (from another thread or a signal handler's thread).
  void wait();
  void stop();

  struct Impl;  ///< opaque (declared public only so the server's sessions can refer to it)

 private:
  std::unique_ptr<Impl> impl_;
};

/// The port of this process's own server of `target` with `threads` threads, started on an ephemeral
/// loopback port at the first call for that pair and kept until the process exits (thread-safe): how
/// the tests' loopback backends and the benchmarks reach a device server without another process.
uint16_t process_server_port(const std::string& target, unsigned threads);

}  // namespace vta::rpc
