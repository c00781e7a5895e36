// vta-device-server: serves VTA devices (fsim or tsim) to remote clients (docs/REMOTE.md).

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <thread>

#include "vta/driver/build_config.h"
#include "vta/driver/device.h"
#include "vta/driver/guarded_main.h"
#include "vta/driver/memory.h"
#include "vta/rpc/server.h"

namespace {

int run(int argc, char** argv) {
  CLI::App app{"Serve a VTA device (fsim or tsim) to remote clients over TCP (docs/REMOTE.md)"};
  vta::rpc::ServerOptions o;
  uint64_t idle_ms = uint64_t(o.idle_timeout.count());
  app.add_option("--target", o.target, "backend of each session's device")->check(CLI::IsMember(vta::backend_names()));
  app.add_option("--host", o.host, "address to listen on (a non-loopback address needs --token-file or --insecure)");
  app.add_option("--port", o.port, "TCP port; 0 picks a free one (printed)");
  app.add_option("--max-sessions", o.max_sessions, "sessions served at once")->check(CLI::Range(1u, 4096u));
  app.add_option("--max-memory", o.max_memory, "device memory per session, bytes")
      ->check(CLI::Range(uint64_t{vta::Dram::kPageBytes}, uint64_t{1} << 40));
  app.add_option("--max-uploads", o.max_uploads, "bytes of uploaded module files kept per session")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  app.add_option("--idle-timeout", idle_ms, "milliseconds a session may go without a whole request")
      ->check(CLI::Range(1, 86'400'000));
  uint64_t handshake_ms = uint64_t(o.handshake_timeout.count());
  app.add_option("--handshake-timeout", handshake_ms,
                 "milliseconds a connection has to complete Hello (and Auth), however many bytes it sends")
      ->check(CLI::Range(1, 600'000));
  app.add_option("--max-pending", o.max_pending, "connections in their handshake at once (not counted as sessions)")
      ->check(CLI::Range(1u, 4096u));
  app.add_option("--max-call-steps", o.max_call_steps,
                 "statements the host may execute for one module Call (0: the compiler's default)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 48));
  app.add_option("--threads", o.threads, "threads serving the sessions (one per concurrent run)")
      ->check(CLI::Range(1u, 256u));
  std::string token_file;
  app.add_option("--token-file", token_file,
                 "file holding the shared secret clients must prove (chmod 600; clients: VTA_RPC_TOKEN_FILE)");
  app.add_flag("--insecure", o.insecure, "allow a non-loopback address without authentication");
  VTA_CLI_PARSE(app, argc, argv);
  if (!token_file.empty()) o.token = vta::rpc::read_token_file(token_file);
  o.idle_timeout = std::chrono::milliseconds(idle_ms);
  o.handshake_timeout = std::chrono::milliseconds(handshake_ms);

  // SIGINT/SIGTERM stop the server: blocked here, waited for by a thread of their own.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  vta::rpc::Server server(o);
  std::printf("vta-device-server: serving %s (%s) on %s:%u\n", o.target.c_str(),
              vta::build_config().bitstream_name().c_str(), o.host.c_str(), unsigned(server.port()));
  std::fflush(stdout);
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    server.stop();
  });
  waiter.detach();
  server.wait();
  const auto c = server.counters();
  std::printf(
      "vta-device-server: stopped after %llu sessions (%llu refused), %llu requests, %llu runs, %llu module calls\n",
      static_cast<unsigned long long>(c.sessions_opened), static_cast<unsigned long long>(c.sessions_refused),
      static_cast<unsigned long long>(c.requests), static_cast<unsigned long long>(c.runs),
      static_cast<unsigned long long>(c.calls));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return vta::guarded_main("vta-device-server", [&] { return run(argc, argv); });
}
