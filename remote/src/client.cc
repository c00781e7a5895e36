// A synchronous connection to a device server. Each operation is an asynchronous Asio operation run
// on a private io_context for at most the operation's timeout (io_context::run_for), so a silent or
// slow server ends in a RemoteError{timeout} instead of a hang.

#include "vta/rpc/client.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <random>
#include <utility>

#include "vta/driver/build_config.h"
#include "vta/driver/config.h"
#include "vta/rpc/detail/asio.h"

namespace vta::rpc {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct Connection::Impl {
  ConnectionOptions options;
  std::string where;
  asio::io_context io;
  tcp::socket sock{io};
  FrameDecoder decoder;
  uint32_t next_id = 0;
  std::atomic<uint64_t> round_trips = 0;
  // One exchange at a time: a connection shared by threads (a Python session used from two threads,
  // which release the GIL during calls) would otherwise interleave frames and read each other's replies.
  std::mutex exchange_mu;
  std::string server_config, server_target;
  bool open = false;
  std::array<uint8_t, 256 * 1024> rbuf{};

  explicit Impl(ConnectionOptions o) : options(std::move(o)), decoder(options.limits) {}

  /// Bytes of one Write or Read: a frame's payload less room for the other fields.
  /// Bytes of one Write or Read: at most 1 MiB (a buffer that size is reused by the allocator, where a
  /// frame-sized one would be fresh pages every time: copies ran at 100 MB/s with 64 MiB chunks), and
  /// a frame's payload less room for the other fields.
  uint64_t chunk_bytes() const { return std::min<uint64_t>(options.limits.max_payload - 64, uint64_t{1} << 20); }
  /// Chunks in flight per round trip of a copy.
  static constexpr size_t kChunksPerTrip = 16;

  /// Throws the server's refusal when `reply` is an Error (the session goes on).
  void throw_if_refused(const Message& reply) const {
    if (const auto* err = std::get_if<Error>(&reply))
      throw RemoteError(err->code, "vta rpc " + where + ": " + err->message);
  }

  void expect_ok(const Message& reply, const char* what) {
    throw_if_refused(reply);
    if (!std::holds_alternative<Ok>(reply)) {
      fail(ErrorCode::kUnexpected, std::string("the server answered ") + what + " with " + to_string(type_of(reply)));
    }
  }

  [[noreturn]] void fail(ErrorCode code, const std::string& what) {
    boost::system::error_code ignored;
    sock.close(ignored);
    open = false;
    throw RemoteError(code, "vta rpc " + where + ": " + what);
  }

  // Runs the queued operation for at most `limit`; a timeout cancels it and fails.
  void await(std::chrono::milliseconds limit, const char* what, std::chrono::milliseconds shown = {}) {
    if (shown.count() == 0) shown = limit;
    io.restart();
    io.run_for(limit);
    if (!io.stopped()) {
      boost::system::error_code ignored;
      sock.cancel(ignored);
      io.run();  // let the cancelled handlers finish
      fail(ErrorCode::kTimeout, std::string(what) + ": no answer within " + std::to_string(shown.count()) + " ms");
    }
  }

  void connect(const std::string& host, uint16_t port) {
    boost::system::error_code ec;
    tcp::resolver resolver(io);
    tcp::resolver::results_type endpoints;
    resolver.async_resolve(host, std::to_string(port), [&](const boost::system::error_code& e, auto results) {
      ec = e;
      endpoints = std::move(results);
    });
    await(options.timeout, "resolve");
    if (ec) fail(ErrorCode::kBadValue, "cannot resolve '" + host + "': " + ec.message());
    asio::async_connect(sock, endpoints, [&](const boost::system::error_code& e, const tcp::endpoint&) { ec = e; });
    await(options.timeout, "connect");
    if (ec) fail(ErrorCode::kInternal, "cannot connect: " + ec.message());
    sock.set_option(tcp::no_delay(true), ec);  // requests are small and answered at once
    open = true;
  }

  // Sends every request at once, then collects one reply per request, in order: one round trip.
  std::vector<Message> pipeline(std::span<const Request> requests, std::chrono::milliseconds limit) {
    const std::lock_guard lock(exchange_mu);
    if (!open) fail(ErrorCode::kUnexpected, "the connection is closed");
    if (requests.empty()) return {};
    const auto* last = std::get_if<Message>(&requests.back());
    const char* what = last != nullptr ? to_string(type_of(*last)) : "Write";
    const uint32_t first = next_id + 1;
    std::vector<std::vector<uint8_t>> frames;  // reserved: the buffers point into it
    std::vector<asio::const_buffer> buffers;
    frames.reserve(requests.size());
    buffers.reserve(2 * requests.size());
    for (const Request& r : requests) {
      if (const auto* m = std::get_if<Message>(&r)) {
        frames.push_back(encode(*m, ++next_id, options.limits));
        buffers.emplace_back(asio::buffer(frames.back()));
      } else {
        const auto& w = std::get<WriteView>(r);
        frames.push_back(encode_write_prefix(w.phys, w.data, ++next_id, options.limits));
        buffers.emplace_back(asio::buffer(frames.back()));
        buffers.emplace_back(asio::buffer(w.data.data(), w.data.size()));
      }
    }
    ++round_trips;
    boost::system::error_code ec;
    asio::async_write(sock, buffers, [&](const boost::system::error_code& e, size_t) { ec = e; });
    await(options.timeout, what);
    if (ec) fail(ErrorCode::kInternal, std::string(what) + ": " + ec.message());
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::vector<Message> replies;
    replies.reserve(requests.size());
    while (replies.size() < requests.size()) {
      std::optional<Frame> f;
      try {
        f = decoder.next();
      } catch (const ProtocolError& e) {
        fail(e.code(), std::string("the server sent a malformed frame: ") + e.what());
      }
      if (f) {
        if (const auto* err = std::get_if<Error>(&f->message); err && f->header.id == 0) {
          fail(err->code, err->message);  // the server closed the session
        }
        const uint32_t expected = first + uint32_t(replies.size());
        if (f->header.id != expected) {
          fail(ErrorCode::kUnexpected,
               "a reply to request " + std::to_string(f->header.id) + ", expected " + std::to_string(expected));
        }
        replies.push_back(std::move(f->message));
        continue;
      }
      size_t n = 0;
      sock.async_read_some(asio::buffer(rbuf), [&](const boost::system::error_code& e, size_t got) {
        ec = e;
        n = got;
      });
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      await(std::max(left, std::chrono::milliseconds(1)), what, limit);
      if (ec) fail(ErrorCode::kInternal, "the server closed the connection (" + ec.message() + ")");
      decoder.feed({rbuf.data(), n});
    }
    return replies;
  }

  Message call(const Message& request, std::chrono::milliseconds limit) {
    const Request r = request;
    Message m = std::move(pipeline({&r, 1}, limit).front());
    throw_if_refused(m);
    return m;
  }

  template <class Reply>
  Reply expect(const Message& request, std::chrono::milliseconds limit) {
    Message m = call(request, limit);
    if (auto* r = std::get_if<Reply>(&m)) return std::move(*r);
    fail(ErrorCode::kUnexpected,
         std::string("the server answered ") + to_string(type_of(request)) + " with " + to_string(type_of(m)));
  }
};

Connection::Connection(const std::string& host, uint16_t port, const ConnectionOptions& options)
    : impl_(std::make_unique<Impl>(options)) {
  impl_->where = host + ":" + std::to_string(port);
  impl_->connect(host, port);
  const Config& cfg = options.config != nullptr ? *options.config : build_config();
  std::random_device rd;
  const Hello hello{kVersion, config_hash(cfg), cfg.bitstream_name(), (uint64_t(rd()) << 32) | rd()};
  const auto reply = impl_->expect<HelloReply>(hello, options.timeout);
  impl_->server_config = reply.config_name;
  impl_->server_target = reply.target;
  if (reply.auth_required) {
    if (options.token.empty()) {
      impl_->fail(ErrorCode::kAuthFailed,
                  "the server asks for a token: give the client the server's token file (VTA_RPC_TOKEN_FILE for "
                  "rpc:// devices, ConnectionOptions::token in C++)");
    }
    (void)impl_->expect<AuthReply>(Auth{auth_proof(options.token, hello.client_nonce, reply.server_nonce)},
                                   options.timeout);
  }
}

Connection::~Connection() {
  if (!impl_->open) return;
  try {
    impl_->options.timeout = std::chrono::milliseconds(1000);
    (void)impl_->call(Goodbye{}, impl_->options.timeout);
  } catch (const std::exception&) {
    // the server may be gone already; the session ends with the connection either way
  }
}

uint64_t Connection::alloc(uint64_t bytes) {
  return impl_->expect<AllocReply>(Alloc{bytes}, impl_->options.timeout).phys;
}
void Connection::free(uint64_t phys) { (void)impl_->expect<Ok>(Free{phys}, impl_->options.timeout); }

void Connection::write(uint64_t phys, std::span<const uint8_t> bytes) {
  const auto chunk = size_t(impl_->chunk_bytes());
  std::vector<Request> batch;
  for (size_t at = 0; at < bytes.size();) {
    batch.clear();
    for (; at < bytes.size() && batch.size() < Impl::kChunksPerTrip; at += chunk) {
      batch.emplace_back(WriteView{phys + at, bytes.subspan(at, std::min(chunk, bytes.size() - at))});
    }
    for (const Message& reply : pipeline(batch)) impl_->expect_ok(reply, "Write");
  }
}

void Connection::read(uint64_t phys, std::span<uint8_t> out) {
  const uint64_t chunk = impl_->chunk_bytes();
  std::vector<Message> batch;
  for (uint64_t at = 0; at < out.size();) {
    batch.clear();
    const uint64_t first = at;
    for (; at < out.size() && batch.size() < Impl::kChunksPerTrip; at += chunk) {
      batch.emplace_back(Read{phys + at, uint32_t(std::min<uint64_t>(chunk, out.size() - at))});
    }
    const auto replies = pipeline(batch);
    uint64_t to = first;
    for (size_t i = 0; i < replies.size(); ++i) {
      impl_->throw_if_refused(replies[i]);
      const auto* r = std::get_if<ReadReply>(&replies[i]);
      const uint32_t n = std::get<Read>(batch[i]).bytes;
      if (r == nullptr || r->data.size() != n) {
        impl_->fail(ErrorCode::kBadValue, "Read: " + std::to_string(r == nullptr ? 0 : r->data.size()) +
                                              " bytes back, asked " + std::to_string(n));
      }
      std::memcpy(out.data() + to, r->data.data(), n);
      to += n;
    }
  }
}

std::vector<uint8_t> Connection::read(uint64_t phys, uint64_t bytes) {
  std::vector<uint8_t> out(static_cast<size_t>(bytes));
  read(phys, out);
  return out;
}

RunReply Connection::run(uint64_t insn_phys, uint32_t count, uint64_t budget) {
  return impl_->expect<RunReply>(Run{insn_phys, count, budget}, impl_->options.run_timeout);
}
RunReply Connection::clear_stats() { return impl_->expect<RunReply>(ClearStats{}, impl_->options.timeout); }
const std::string& Connection::server_config() const { return impl_->server_config; }
const std::string& Connection::server_target() const { return impl_->server_target; }
const std::string& Connection::where() const { return impl_->where; }
uint64_t Connection::chunk_bytes() const { return impl_->chunk_bytes(); }

std::vector<Message> Connection::pipeline(std::span<const Request> requests, std::chrono::milliseconds limit) {
  return impl_->pipeline(requests, limit.count() > 0 ? limit : impl_->options.timeout);
}
std::vector<Message> Connection::pipeline(std::span<const Message> requests, std::chrono::milliseconds limit) {
  const std::vector<Request> r(requests.begin(), requests.end());
  return pipeline(r, limit);
}
uint64_t Connection::round_trips() const { return impl_->round_trips; }

}  // namespace vta::rpc
