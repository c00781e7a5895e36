// libFuzzer harness: the device server's request handling. One server runs in the process (fsim
// sessions); each input is sent on a connection of its own, after a valid Hello when its first byte
// is even (so the fuzzer reaches the requests behind the handshake), and the harness reads every
// reply until the server closes. The server must answer or close, never crash; the connection's end
// frees the session, and the harness waits for that before the next input: a session still being
// freed when libFuzzer ends the run would race the process's exit (its static destructors) and count
// its memory against the next input in libFuzzer's leak check.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "vta/driver/build_config.h"
#include "vta/rpc/detail/asio.h"
#include "vta/rpc/protocol.h"
#include "vta/rpc/server.h"

namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

vta::rpc::Server& server() {
  static vta::rpc::Server* s = [] {
    vta::rpc::ServerOptions o;
    o.threads = 2;
    o.max_memory = 64u << 20;
    o.max_uploads = 1u << 20;
    o.idle_timeout = std::chrono::milliseconds(1000);
    o.handshake_timeout = std::chrono::milliseconds(1000);
    o.max_call_steps = 1 << 16;
    return new vta::rpc::Server(o);  // lives as long as the process
  }();
  return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vta::rpc;  // NOLINT
  asio::io_context io;
  tcp::socket sock(io);
  boost::system::error_code ec;
  sock.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server().port()), ec);
  if (ec) return 0;
  if (size > 0 && data[0] % 2 == 0) {
    const auto hello =
        encode(Hello{kVersion, config_hash(vta::build_config()), vta::build_config().bitstream_name(), 1}, 1);
    asio::write(sock, asio::buffer(hello), ec);
  }
  if (size > 1) asio::write(sock, asio::buffer(data + 1, size - 1), ec);
  sock.shutdown(tcp::socket::shutdown_send, ec);
  uint8_t buf[65536];
  // until the server closes; a server that never does is a hang, which libFuzzer's -timeout reports.
  // libFuzzer's timer signal interrupts a blocking read now and then (EINTR): that is no answer yet.
  for (;;) {
    sock.read_some(asio::buffer(buf), ec);
    if (ec == asio::error::interrupted) continue;
    if (ec) break;
  }
  // every session the server opened has been freed (its destructor counts it closed); a session the
  // server never frees is a leak of the server's, reported as a crash
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    const auto c = server().counters();
    if (c.sessions_closed == c.sessions_opened) break;
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "fuzz_server: %llu of %llu sessions still open 10 s after their connection closed\n",
                   static_cast<unsigned long long>(c.sessions_opened - c.sessions_closed),
                   static_cast<unsigned long long>(c.sessions_opened));
      std::abort();
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return 0;
}
