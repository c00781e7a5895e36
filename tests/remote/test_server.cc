// The device server on an ephemeral loopback port, driven by a plain blocking client: the handshake
// and its refusals, memory and runs equal to a local device, every bad request answered by name, and
// the limits (sessions, memory, idle time, abrupt disconnects) enforced without losing the server.

#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>

#include "test_paths.h"
#include "test_util.h"
#include "vta/driver/build_config.h"
#include "vta/rpc/client.h"
#include "vta/rpc/detail/asio.h"
#include "vta/rpc/server.h"

namespace vta::rpc {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// A blocking client; every read gives up after 5 s (SO_RCVTIMEO), so no test can hang.
class Client {
 public:
  explicit Client(uint16_t port) : sock_(io_) {
    sock_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    timeval tv{5, 0};
    setsockopt(sock_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  void send_raw(const std::vector<uint8_t>& bytes) { asio::write(sock_, asio::buffer(bytes)); }
  void send(const Message& m) { send_raw(encode(m, ++id_)); }
  /// The next frame, or nullopt when the server closed the connection.
  std::optional<Frame> recv() {
    for (;;) {
      if (auto f = dec_.next()) return f;
      uint8_t buf[65536];
      boost::system::error_code ec;
      const size_t n = sock_.read_some(asio::buffer(buf), ec);
      if (ec) return std::nullopt;
      dec_.feed({buf, n});
    }
  }
  Message call(const Message& m) {
    send(m);
    auto f = recv();
    if (!f) throw std::runtime_error("connection closed");
    EXPECT_EQ(f->header.id, id_);
    return f->message;
  }
  void hello() {
    const Message r = call(Hello{kVersion, config_hash(build_config()), build_config().bitstream_name(), 1});
    ASSERT_TRUE(std::holds_alternative<HelloReply>(r)) << describe(r);
  }
  uint64_t alloc(uint64_t bytes) { return std::get<AllocReply>(call(Alloc{bytes})).phys; }
  static std::string describe(const Message& m) {
    if (const auto* e = std::get_if<Error>(&m)) return std::string("Error ") + to_string(e->code) + ": " + e->message;
    return to_string(type_of(m));
  }

 private:
  asio::io_context io_;
  tcp::socket sock_;
  FrameDecoder dec_;
  uint32_t id_ = 0;
};

Error expect_error(const Message& m, ErrorCode code, const std::string& needle) {
  const auto* e = std::get_if<Error>(&m);
  EXPECT_TRUE(e) << Client::describe(m);
  if (!e) return {};
  EXPECT_EQ(e->code, code) << e->message;
  EXPECT_NE(e->message.find(needle), std::string::npos) << e->message;
  return *e;
}

bool eventually(const std::function<bool()>& cond) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

ServerOptions options() {
  ServerOptions o;
  o.max_sessions = 4;
  o.max_memory = 4u << 20;
  o.idle_timeout = std::chrono::milliseconds(2000);
  return o;
}

// A small program (the reference-style ALU test of test_util) as bytes, with its buffers.
TEST(RpcServer, ARunEqualsTheSameRunOnALocalDevice) {
  Server server(options());
  Client c(server.port());
  c.hello();
  // build the program locally with the test helpers, then ship its buffers
  const Config& cfg = build_config();
  test::DevBuf data(4096);
  test::Program p(cfg);
  p.load(MemId::kInp, 0, data.base(16), 1, 2, 2).store(0, data.base(16) + 8, 1, 1, 1).finish();
  for (size_t i = 0; i < 64; ++i) data.data()[i] = uint8_t(i * 3);
  auto local = make_device("fsim", cfg);
  ASSERT_EQ(p.run(*local), RunStatus::kOk) << local->last_error();

  // the same stream and data at the server's addresses: the instructions are position-dependent
  // (absolute DRAM addresses), so allocate, then rebuild the program for the remote base
  const uint64_t remote_data = c.alloc(4096);
  test::Program q(cfg);
  const auto unit = [&](uint64_t phys) { return uint32_t(phys / 16); };
  q.load(MemId::kInp, 0, unit(remote_data), 1, 2, 2).store(0, unit(remote_data) + 8, 1, 1, 1).finish();
  std::vector<uint8_t> init(64);
  for (size_t i = 0; i < 64; ++i) init[i] = uint8_t(i * 3);
  EXPECT_TRUE(std::holds_alternative<Ok>(c.call(Write{remote_data, init})));
  std::vector<uint8_t> stream(q.insns().size() * Config::kInsnElemBytes);
  vta::store_insns(stream.data(), q.insns());
  const uint64_t remote_insns = c.alloc(stream.size());
  EXPECT_TRUE(std::holds_alternative<Ok>(c.call(Write{remote_insns, stream})));
  const Message r = c.call(rpc::Run{remote_insns, uint32_t(stream.size() / 16), 0});
  const auto& reply = std::get<RunReply>(r);
  EXPECT_EQ(reply.status, 0u) << reply.diagnostic;
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(reply.stats.counters[i], local->stats().*kStatFields[i].member) << kStatFields[i].name;
  }
  EXPECT_EQ(reply.stats.acc_load_dram, local->stats().acc_load_dram_nbytes);
  // the stored row, read back, equals the local result
  const auto back = std::get<ReadReply>(c.call(Read{remote_data + 128, 16})).data;
  EXPECT_EQ(back, std::vector<uint8_t>(data.data() + 128, data.data() + 144));
  const auto cleared = std::get<RunReply>(c.call(ClearStats{}));
  WireStats zero;
  zero.acc_load_dram = 0;  // (counted by the server's device: none since the clear)
  EXPECT_EQ(cleared.stats, zero) << "ClearStats answers with the cleared state";
  EXPECT_TRUE(std::holds_alternative<Ok>(c.call(Goodbye{})));
  EXPECT_FALSE(c.recv()) << "the server closes after Goodbye";
  EXPECT_TRUE(eventually([&] { return server.active_sessions() == 0; }));
}

TEST(RpcServer, TheHandshakeRefusesAnotherConfigurationByName) {
  Server server(options());
  Client c(server.port());
  const Message r = c.call(Hello{kVersion, config_hash(build_config()) + 1, "2x8_i8w8a32_15_15_18_17", 1});
  expect_error(r, ErrorCode::kConfigMismatch, "client was built for hardware configuration 2x8_i8w8a32_15_15_18_17");
  expect_error(r, ErrorCode::kConfigMismatch, build_config().bitstream_name());
  EXPECT_FALSE(c.recv()) << "closed after the refusal";
  // requests before Hello are refused, and so are replies sent as requests
  Client d(server.port());
  expect_error(d.call(Alloc{4096}), ErrorCode::kUnexpected, "Alloc before Hello");
  Client e(server.port());
  e.hello();
  expect_error(e.call(Ok{}), ErrorCode::kUnexpected, "Ok is not a request");
  expect_error(e.call(Hello{}), ErrorCode::kUnexpected, "already open");
}

TEST(RpcServer, BadRequestsAreAnsweredByNameAndTheSessionGoesOn) {
  Server server(options());
  Client c(server.port());
  c.hello();
  const uint64_t buf = c.alloc(4096);
  expect_error(c.call(Write{buf + 4090, std::vector<uint8_t>(16, 1)}), ErrorCode::kNoSuchBuffer, "16 bytes at 0x");
  expect_error(c.call(Read{0x10, 4}), ErrorCode::kNoSuchBuffer, "not inside one buffer of this session");
  expect_error(c.call(Free{buf + 16}), ErrorCode::kNoSuchBuffer, "Free: no buffer starts at");
  expect_error(c.call(Alloc{8u << 20}), ErrorCode::kOutOfMemory, "of its 4194304 bytes");
  // a run of garbage: the device's verdict comes back, the session stays usable
  const auto r = std::get<RunReply>(c.call(rpc::Run{buf, 1, 0}));
  EXPECT_EQ(r.status, uint32_t(RunStatus::kError));
  EXPECT_FALSE(r.diagnostic.empty());
  EXPECT_TRUE(std::holds_alternative<Ok>(c.call(Free{buf})));
  EXPECT_GT(c.alloc(2u << 20), 0u) << "the freed memory counts again";
}

TEST(RpcServer, AMalformedFrameIsNamedThenTheConnectionClosesAndTheServerServesOn) {
  Server server(options());
  {
    Client c(server.port());
    c.hello();
    auto f = encode(Free{0x1000}, 9);
    f[4] = 7;  // version 7
    c.send_raw(f);
    auto reply = c.recv();
    ASSERT_TRUE(reply);
    expect_error(reply->message, ErrorCode::kBadVersion, "protocol version 7");
    EXPECT_FALSE(c.recv());
  }
  Client d(server.port());
  d.hello();
  EXPECT_EQ(server.counters().protocol_errors, 1u);
}

TEST(RpcServer, LimitsOnSessionsAndIdleTimeAreEnforced) {
  ServerOptions o = options();
  o.max_sessions = 2;
  o.idle_timeout = std::chrono::milliseconds(300);
  Server server(o);
  Client a(server.port()), b(server.port());
  a.hello();
  b.hello();
  Client c(server.port());
  auto busy = c.recv();
  ASSERT_TRUE(busy);
  expect_error(busy->message, ErrorCode::kBusy, "2 sessions at most");
  // silent sessions are closed after the idle timeout, with a message saying so
  auto t = a.recv();
  ASSERT_TRUE(t);
  expect_error(t->message, ErrorCode::kTimeout, "no request for 300 ms");
  EXPECT_FALSE(a.recv());
  EXPECT_TRUE(eventually([&] { return server.active_sessions() == 0; }));
}

// Slowloris: bytes trickling in do not keep a connection in its handshake alive (the handshake has a
// deadline of its own), and connections in their handshake do not count against max_sessions (they
// have a small cap of their own), so they cannot lock real clients out.
TEST(RpcServer, AHandshakeHasADeadlineAndDoesNotTakeASession) {
  ServerOptions o = options();
  o.max_sessions = 1;
  o.max_pending = 2;
  o.handshake_timeout = std::chrono::milliseconds(300);
  o.idle_timeout = std::chrono::milliseconds(60'000);
  o.token = std::string(32, 'k');
  Server server(o);
  const std::vector<uint8_t> hello = encode(Hello{kVersion, config_hash(build_config()), "x", 1}, 1);
  // a Hello sent one byte at a time, slower than the deadline: closed with a message saying why
  Client trickler(server.port());
  for (size_t i = 0; i < 4; ++i) {
    trickler.send_raw({hello[i]});
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto t = trickler.recv();
  ASSERT_TRUE(t);
  expect_error(t->message, ErrorCode::kTimeout, "the handshake did not complete within 300 ms");
  EXPECT_FALSE(trickler.recv());
  // two silent connections fill the handshake cap; a third is refused as busy, naming the cap
  Client silent1(server.port()), silent2(server.port());
  ASSERT_TRUE(eventually([&] { return server.counters().sessions_opened == 3; }));
  Client third(server.port());
  auto busy = third.recv();
  ASSERT_TRUE(busy);
  expect_error(busy->message, ErrorCode::kBusy, "2 connections in their handshake");
  // once their deadline has passed, a real client gets the one session, though they were first
  for (Client* c : {&silent1, &silent2}) {
    auto m = c->recv();
    ASSERT_TRUE(m);
    expect_error(m->message, ErrorCode::kTimeout, "the handshake did not complete");
    EXPECT_FALSE(c->recv());
  }
  ASSERT_TRUE(eventually([&] { return server.counters().sessions_closed == 3; }));
  ConnectionOptions co;
  co.token = o.token;
  Connection real("127.0.0.1", server.port(), co);
  EXPECT_EQ(server.active_sessions(), 1u);
  // a second real client finds the one session taken: refused after its proof, by name
  try {
    Connection second("127.0.0.1", server.port(), co);
    ADD_FAILURE() << "a second session on a one-session server";
  } catch (const RemoteError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBusy) << e.what();
    EXPECT_NE(std::string(e.what()).find("1 sessions at most"), std::string::npos) << e.what();
  }
}

// A Hello of another protocol version is refused by name (it got a normal reply before).
TEST(RpcServer, AHelloOfAnotherProtocolVersionIsRefused) {
  Server server(options());
  Client c(server.port());
  const Message r = c.call(Hello{3, config_hash(build_config()), build_config().bitstream_name(), 1});
  expect_error(r, ErrorCode::kBadVersion, "protocol version 3, this server version 2");
}

// Anonymous resident memory of this process (the server runs in it), bytes, after the allocator
// has given back the free memory it caches. A figure only: the kernel keeps these counters per thread
// and synchronises them in batches, so two readings of an idle process differ by megabytes.
uint64_t resident_bytes() {
  malloc_trim(0);
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("RssAnon:", 0) == 0) return std::stoull(line.substr(8)) * 1024;  // "RssAnon:  1234 kB"
  }
  return 0;
}

// Bytes the allocator has handed out and not got back: exact, where resident memory is not.
uint64_t heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// 1,000 clients each fill a 1 MiB buffer, then vanish: half in the middle of a copy (half a frame
// sent), half in the middle of a run (the Run sent, the reply never read). Every session is freed and
// the server serves on; the memory it holds returns to within 10 % of where it started: the heap in
// use exactly, resident memory as a figure (device memory is mapped per session and unmapped with it).
TEST(RpcServer, AbruptDisconnectsFreeTheirSessions) {
  ServerOptions o = options();
  o.max_sessions = 8;
  Server server(o);
  const Config& cfg = build_config();
  const auto half = encode(Write{0x1000, std::vector<uint8_t>(1000, 1)}, 1);
  const std::vector<uint8_t> fill(1u << 20, 0x5a);
  auto client = [&](int i) {
    Client c(server.port());
    c.hello();
    const uint64_t buf = c.alloc(fill.size());
    ASSERT_TRUE(std::holds_alternative<Ok>(c.call(Write{buf, fill})));
    if (i % 2 == 0) {
      c.send_raw(std::vector<uint8_t>(half.begin(), half.begin() + 500));  // in the middle of a copy
      return;
    }
    // in the middle of a run: 2,500 GEMM micro-op executions, the reply never read
    GemmInsn g;
    g.uop_bgn = 0, g.uop_end = 1, g.iter_out = 50, g.iter_in = 50;
    test::Program p(cfg);
    p.load(MemId::kUop, 0, uint32_t(buf / 4), 1, 1, 1).gemm(g).finish();
    std::vector<uint8_t> insns(p.insns().size() * 16);
    store_insns(insns.data(), p.insns());
    ASSERT_TRUE(std::holds_alternative<Ok>(c.call(Write{buf, {0, 0, 0, 0}})));  // micro-op 0: all indices 0
    ASSERT_TRUE(std::holds_alternative<Ok>(c.call(Write{buf + 4096, insns})));
    c.send(rpc::Run{buf + 4096, uint32_t(p.insns().size()), 0});
  };
  // warm up: the allocator's arenas, the thread pool (a disconnected session closes asynchronously,
  // after its run: wait as the measured loop does, or a loaded machine finds the 8 slots still taken)
  for (int i = 0; i < 50; ++i) {
    client(i);
    ASSERT_TRUE(eventually([&] { return server.active_sessions() <= 4; })) << "warm-up client " << i;
  }
  ASSERT_TRUE(eventually([&] { return server.active_sessions() == 0; }));
  {
    // and the server's idle device memories (kept for the next sessions, at most 4): 8 sessions at once
    std::vector<std::unique_ptr<Client>> open;
    for (int i = 0; i < 8; ++i) {
      open.push_back(std::make_unique<Client>(server.port()));
      open.back()->hello();
    }
  }
  ASSERT_TRUE(eventually([&] { return server.active_sessions() == 0; }));
  const uint64_t before = resident_bytes(), heap_before = heap_in_use();
  const int kClients = 1000;
  for (int i = 0; i < kClients; ++i) {
    client(i);
    ASSERT_TRUE(eventually([&] { return server.active_sessions() <= 4; })) << "client " << i;
  }
  EXPECT_TRUE(eventually([&] { return server.active_sessions() == 0; }));
  const uint64_t after = resident_bytes(), heap_after = heap_in_use();
  const auto counters = server.counters();
  std::printf(
      "%d abrupt disconnects (half mid-copy, half mid-run): %llu sessions opened, %llu closed, %llu runs; "
      "heap in use %.2f MiB before, %.2f MiB after (%+.1f %%); resident %.1f MiB before, %.1f MiB after\n",
      kClients, static_cast<unsigned long long>(counters.sessions_opened),
      static_cast<unsigned long long>(counters.sessions_closed), static_cast<unsigned long long>(counters.runs),
      double(heap_before) / (1 << 20), double(heap_after) / (1 << 20),
      100.0 * (double(heap_after) - double(heap_before)) / double(heap_before), double(before) / (1 << 20),
      double(after) / (1 << 20));
  EXPECT_EQ(counters.sessions_closed, counters.sessions_opened);
#if !defined(__SANITIZE_ADDRESS__)  // ASan's allocator is not glibc's
  EXPECT_LE(double(heap_after), 1.1 * double(heap_before)) << "closed sessions left allocations behind";
#endif
  Client last(server.port());
  last.hello();
}

// Device memory is kept from one session for the next (its pages stay mapped), never its contents.
TEST(RpcServer, ANewSessionNeverSeesTheBytesOfAnEndedOne) {
  ServerOptions o = options();
  o.threads = 1;
  Server server(o);
  const std::vector<uint8_t> secret(1u << 20, 0x5a);
  uint64_t first = 0;
  {
    Client c(server.port());
    c.hello();
    first = c.alloc(secret.size());
    ASSERT_TRUE(std::holds_alternative<Ok>(c.call(Write{first, secret})));
  }  // an abrupt end: no Goodbye
  ASSERT_TRUE(eventually([&] { return server.active_sessions() == 0; }));
  for (int i = 0; i < 3; ++i) {
    Client c(server.port());
    c.hello();
    const uint64_t buf = c.alloc(secret.size());
    EXPECT_EQ(buf, first) << "the same memory, reused";
    const auto reply = c.call(Read{buf, uint32_t(secret.size())});
    const auto* r = std::get_if<ReadReply>(&reply);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(std::count(r->data.begin(), r->data.end(), 0), long(secret.size())) << "zero-filled";
    ASSERT_TRUE(std::holds_alternative<Ok>(c.call(Write{buf, secret})));
  }
}

TEST(RpcServer, OptionsAreCheckedByName) {
  ServerOptions o;
  o.host = "0.0.0.0";
  try {
    Server s(o);
    ADD_FAILURE() << "bound";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("without authentication: give a --token-file"), std::string::npos) << e.what();
  }
  o.token = "a-token-of-24-characters";
  EXPECT_NO_THROW(o.validate()) << "a token makes any address acceptable";
  o.token = "short";
  EXPECT_THROW(o.validate(), std::invalid_argument);
  o = ServerOptions{};
  o.target = "nonesuch";
  EXPECT_THROW(Server{o}, std::invalid_argument);
  o = ServerOptions{};
  o.host = "localhost:80";
  EXPECT_THROW(Server{o}, std::invalid_argument);
}

// Token authentication: the client proves the secret with an HMAC over both sides' nonces (the secret
// never travels); a wrong token, a missing one, a replayed proof and requests before the proof are
// refused by name, and nothing is opened for an unauthenticated client.
TEST(RpcServer, ATokenIsProvenNotSentAndEveryWrongProofIsRefused) {
  ServerOptions o = options();
  o.token = "correct horse battery staple";
  Server server(o);
  ConnectionOptions good;
  good.token = o.token;
  {
    Connection c("127.0.0.1", server.port(), good);
    EXPECT_NE(c.alloc(4096), 0u) << "an authenticated session works";
  }
  ConnectionOptions wrong;
  wrong.token = "incorrect horse battery staple";
  try {
    Connection c("127.0.0.1", server.port(), wrong);
    ADD_FAILURE() << "a wrong token was accepted";
  } catch (const RemoteError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kAuthFailed);
    EXPECT_NE(std::string(e.what()).find("does not match"), std::string::npos) << e.what();
  }
  try {
    Connection c("127.0.0.1", server.port());
    ADD_FAILURE() << "no token was accepted";
  } catch (const RemoteError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kAuthFailed);
    EXPECT_NE(std::string(e.what()).find("asks for a token"), std::string::npos) << e.what();
  }
  // by hand: requests before the proof are refused, and a proof for other nonces (a replay) fails
  Client a(server.port());
  const auto hello = Hello{kVersion, config_hash(build_config()), build_config().bitstream_name(), 11};
  const auto reply = std::get<HelloReply>(a.call(hello));
  EXPECT_TRUE(reply.auth_required);
  expect_error(a.call(Alloc{4096}), ErrorCode::kUnexpected, "Alloc before Auth");
  Client b(server.port());
  const auto reply_b = std::get<HelloReply>(b.call(hello));
  EXPECT_NE(reply_b.server_nonce, reply.server_nonce) << "every session gets a fresh challenge";
  expect_error(b.call(Auth{auth_proof(o.token, 11, reply.server_nonce)}), ErrorCode::kAuthFailed, "does not match");
  EXPECT_FALSE(b.recv()) << "a failed proof closes the session";
  // the Auth frame carries 32 bytes that are not the secret
  const auto frame = encode(Auth{auth_proof(o.token, 11, reply_b.server_nonce)}, 1);
  EXPECT_EQ(std::search(frame.begin(), frame.end(), o.token.begin(), o.token.end()), frame.end());
  EXPECT_EQ(server.counters().auth_failures, 2u);
}

TEST(RpcServer, TokenFilesMustBePrivateAndLongEnough) {
  const auto path = vta::test::scratch_path("vta_token");
  auto write = [&](const std::string& text, std::filesystem::perms perms) {
    std::ofstream(path) << text;
    std::filesystem::permissions(path, perms);
  };
  using std::filesystem::perms;
  write("0123456789abcdef0123\n", perms::owner_read | perms::owner_write);
  EXPECT_EQ(read_token_file(path.string()), "0123456789abcdef0123") << "the trailing newline is not part of it";
  write("0123456789abcdef0123\n", perms::owner_read | perms::owner_write | perms::group_read | perms::others_read);
  try {
    (void)read_token_file(path.string());
    ADD_FAILURE() << "a world-readable token was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("readable by other users (mode 644); make it private: chmod 600"),
              std::string::npos)
        << e.what();
  }
  write("short\n", perms::owner_read | perms::owner_write);
  EXPECT_THROW((void)read_token_file(path.string()), std::runtime_error);
  std::filesystem::remove(path);
  EXPECT_THROW((void)read_token_file(path.string()), std::runtime_error) << "a missing file";
}

// The client library: copies larger than a frame are split and come back whole; the server's refusals
// and a silent server become RemoteErrors naming the reason; the round trips are counted.
TEST(RpcClient, CopiesAreSplitIntoFramesAndErrorsAreNamed) {
  ServerOptions so = options();
  so.max_sessions = 1;
  so.limits.max_payload = 64 * 1024;
  Server server(so);
  ConnectionOptions co;
  co.limits = so.limits;
  Connection c("127.0.0.1", server.port(), co);
  EXPECT_EQ(c.server_config(), build_config().bitstream_name());
  const uint64_t bytes = 3'000'000;
  const uint64_t buf = c.alloc(bytes);
  std::vector<uint8_t> data(bytes);
  std::mt19937 rng(5);
  for (auto& b : data) b = uint8_t(rng());
  const uint64_t before = c.round_trips(), requests_before = server.counters().requests;
  c.write(buf, data);
  EXPECT_EQ(c.read(buf, bytes), data);
  const uint64_t chunks = (bytes + 65471) / 65472;  // 46 requests of at most one 64 KiB frame each way
  EXPECT_EQ(server.counters().requests - requests_before, 2 * chunks);
  EXPECT_EQ(c.round_trips() - before, 2 * ((chunks + 15) / 16)) << "16 requests in flight per round trip";
  try {
    c.free(buf + 8);
    ADD_FAILURE() << "freed";
  } catch (const RemoteError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNoSuchBuffer);
    EXPECT_NE(std::string(e.what()).find("no buffer starts at"), std::string::npos) << e.what();
  }
  c.free(buf);  // the session went on
  try {
    Connection second("127.0.0.1", server.port(), co);
    ADD_FAILURE() << "a second session on a one-session server";
  } catch (const RemoteError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBusy) << e.what();
  }
}

TEST(RpcClient, ASilentServerIsATimeoutNotAHang) {
  asio::io_context io;
  tcp::acceptor silent(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));  // accepts, never answers
  ConnectionOptions co;
  co.timeout = std::chrono::milliseconds(200);
  const auto start = std::chrono::steady_clock::now();
  try {
    Connection c("127.0.0.1", silent.local_endpoint().port(), co);
    ADD_FAILURE() << "connected";
  } catch (const RemoteError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kTimeout);
    EXPECT_NE(std::string(e.what()).find("Hello: no answer within 200 ms"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  try {
    Connection c("127.0.0.1", 1, co);  // nothing listens on port 1
    ADD_FAILURE() << "connected";
  } catch (const RemoteError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot connect"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vta::rpc
