// The VTA device server: one Boost.Asio io_context served by a few threads; each session's handlers
// run on its own strand (so a session is single-threaded and sessions proceed in parallel), with an
// idle timer re-armed by every byte received. A session owns its device memory (a Dram of its own) and
// its device; both go away with the session, however it ends.

#include "vta/rpc/server.h"

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>

#include "module_service.h"
#include "vta/driver/build_config.h"
#include "vta/driver/device.h"
#include "vta/driver/memory.h"
#include "vta/rpc/detail/asio.h"
#include "vta/runtime/context.h"

namespace vta::rpc {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

void ServerOptions::validate() const {
  auto bad = [](const std::string& what) { throw std::invalid_argument("server options: " + what); };
  if (max_sessions == 0) bad("max_sessions must be at least 1");
  if (max_memory < Dram::kPageBytes)
    bad("max_memory must be at least one page (" + std::to_string(Dram::kPageBytes) + " bytes)");
  if (idle_timeout.count() <= 0) bad("idle_timeout must be positive");
  if (handshake_timeout.count() <= 0) bad("handshake_timeout must be positive");
  if (max_pending == 0) bad("max_pending must be at least 1");
  if (max_uploads == 0) bad("max_uploads must be at least 1 byte");
  if (threads == 0 || threads > 256) bad("threads must be in [1, 256]");
  if (limits.max_payload < 4096) bad("the payload limit must be at least 4096 bytes");
  boost::system::error_code ec;
  const auto addr = asio::ip::make_address(host, ec);
  if (ec) bad("'" + host + "' is not an IP address");
  if (!addr.is_loopback() && token.empty() && !insecure) {
    bad("binding to " + host +
        " would expose the device to the network without authentication: give a --token-file (or --insecure, or "
        "bind to 127.0.0.1)");
  }
  if (!token.empty() && token.size() < kMinTokenBytes) {
    bad("a token needs " + std::to_string(kMinTokenBytes) + " bytes at least");
  }
}

namespace {

class Session;

}  // namespace

struct Server::Impl {
  explicit Impl(ServerOptions o)
      : options(std::move(o)), io_ptr(std::make_unique<asio::io_context>()), io(*io_ptr), config(build_config()) {
    acceptor.emplace(io);
  }
  ServerOptions options;
  // Destroyed explicitly, acceptor first, while the counters the sessions update still exist.
  std::unique_ptr<asio::io_context> io_ptr;
  asio::io_context& io;
  std::optional<tcp::acceptor> acceptor;
  std::vector<std::thread> threads;
  const Config& config;
  std::atomic<unsigned> active{0};   // opened sessions (authenticated, when a token is asked)
  std::atomic<unsigned> pending{0};  // connections in their handshake
  // set once, under `mu`, by stop(); read without the lock by module calls in progress, which stop at
  // their next loop iteration
  std::atomic<bool> stopping{false};
  mutable std::mutex mu;
  ServerCounters counters;
  std::condition_variable stop_cv;

  void count(uint64_t ServerCounters::*field) {
    std::lock_guard<std::mutex> lock(mu);
    ++(counters.*field);
  }
  void accept();

  // Device memories of ended sessions, kept for the next ones: their freed pages stay mapped (up to
  // Dram::kDirtyLimit each), so a new session does not fault its memory in page by page (copies into
  // fresh pages ran at 350 MB/s here). Every allocation zero-fills, so nothing of one session is seen
  // by the next.
  static constexpr size_t kIdleDrams = 4;
  std::mutex dram_mu;
  std::vector<std::unique_ptr<Dram>> idle_drams;
  std::unique_ptr<Dram> take_dram() {
    {
      std::lock_guard<std::mutex> lock(dram_mu);
      if (!idle_drams.empty()) {
        auto d = std::move(idle_drams.back());
        idle_drams.pop_back();
        return d;
      }
    }
    return std::make_unique<Dram>();
  }
  void give_back(std::unique_ptr<Dram> d) {
    if (d == nullptr || d->live_blocks() != 0) return;  // (a leak would be a bug: such a memory is dropped)
    std::lock_guard<std::mutex> lock(dram_mu);
    if (idle_drams.size() < kIdleDrams) idle_drams.push_back(std::move(d));
  }
};

namespace {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, Server::Impl& server)
      : sock_(std::move(socket)),
        strand_(asio::make_strand(server.io)),
        timer_(strand_),
        server_(server),
        decoder_(server.options.limits) {}

  void start() {
    boost::system::error_code ignored;
    sock_.set_option(tcp::no_delay(true), ignored);  // replies are small and awaited: no Nagle delay
    server_.count(&ServerCounters::sessions_opened);
    started_ = true;
    pending_ = true;
    ++server_.pending;
    // the handshake has a deadline of its own, which no byte received moves
    handshake_timer_.expires_after(server_.options.handshake_timeout);
    on_handshake_deadline();
    arm_timer();
    read();
  }
  /// Tells the client the server is full, then closes.
  void refuse_busy(const std::string& why, uint32_t id = 0) {
    server_.count(&ServerCounters::sessions_refused);
    send(Error{ErrorCode::kBusy, why + "; try again later"}, id);
    closing_ = true;
  }
  std::string sessions_full() const {
    return "the server serves " + std::to_string(server_.options.max_sessions) + " sessions at most";
  }
  ~Session() {
    // the modules, the device and its memory go with the session; the emptied memory is kept for
    // the next session
    modules_.reset();
    runtime_.reset();
    if (dram_) {
      for (const auto& [phys, b] : buffers_) dram_->free(b.host);
      server_.give_back(std::move(dram_));
    }
    if (pending_) --server_.pending;
    if (active_) --server_.active;
    if (started_) server_.count(&ServerCounters::sessions_closed);
  }

 private:
  void on_handshake_deadline() {
    handshake_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec || self->closed_ || !self->pending_) return;  // cancelled, closed, or the session is open
      if (self->closing_) return self->close();            // the message below could not be delivered in a second
      self->send(Error{ErrorCode::kTimeout, "the handshake did not complete within " +
                                                std::to_string(self->server_.options.handshake_timeout.count()) +
                                                " ms: the connection is closed"},
                 0);
      self->closing_ = true;
      self->handshake_timer_.expires_after(std::chrono::seconds(1));
      self->on_handshake_deadline();
    });
  }
  void arm_timer() {
    timer_.expires_after(server_.options.idle_timeout);
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec || self->closed_) return;  // re-armed or closed
      if (self->timer_.expiry() > std::chrono::steady_clock::now()) return;
      if (self->closing_) return self->close();  // the last message could not be delivered in time
      self->send(
          Error{ErrorCode::kTimeout, "no request for " + std::to_string(self->server_.options.idle_timeout.count()) +
                                         " ms: the session is closed"},
          0);
      self->closing_ = true;
      self->arm_timer();
    });
  }

  void read() {
    sock_.async_read_some(asio::buffer(rbuf_), asio::bind_executor(strand_, [self = shared_from_this()](
                                                                                const boost::system::error_code& ec,
                                                                                size_t n) { self->on_read(ec, n); }));
  }

  void on_read(const boost::system::error_code& ec, size_t n) {
    if (ec || closed_) return close();
    if (closing_) return;  // a final message is being sent; ignore the rest
    bool whole_request = false;
    try {
      decoder_.feed({rbuf_.data(), n});
      while (!closing_) {
        const auto raw = decoder_.next_raw();
        if (!raw) break;
        whole_request = true;
        server_.count(&ServerCounters::requests);
        if (raw->header.type == MsgType::kWrite && runtime_) {
          // the bytes go from the receive buffer straight to device memory
          copy_in(decode_write(raw->header, raw->payload, server_.options.limits), raw->header.id);
        } else {
          handle(Frame{raw->header, decode_payload(raw->header, raw->payload, server_.options.limits)});
        }
      }
    } catch (const ProtocolError& e) {
      server_.count(&ServerCounters::protocol_errors);
      send(Error{e.code(), e.what()}, 0);
      closing_ = true;  // the stream cannot be cut into frames any more
    }
    // the idle time counts from the end of the last whole request (a run may be long); bytes of a frame
    // trickling in do not keep a session alive
    if (whole_request) arm_timer();
    if (!closing_) read();
  }

  void handle(const Frame& f) {
    const uint32_t id = f.header.id;
    const Message& m = f.message;
    auto fail = [&](ErrorCode code, const std::string& what) { send(Error{code, what}, id); };
    if (const auto* h = std::get_if<Hello>(&m)) {
      if (hello_done_) return fail(ErrorCode::kUnexpected, "Hello: the session is already open");
      if (h->version != kVersion) {
        fail(ErrorCode::kBadVersion, "Hello: the client speaks protocol version " + std::to_string(h->version) +
                                         ", this server version " + std::to_string(kVersion));
        closing_ = true;
        return;
      }
      const uint64_t mine = config_hash(server_.config);
      if (h->config_hash != mine) {
        fail(ErrorCode::kConfigMismatch, "the client was built for hardware configuration " + h->config_name + " (" +
                                             hex(h->config_hash) + "), this server for " +
                                             server_.config.bitstream_name() + " (" + hex(mine) + ")");
        closing_ = true;
        return;
      }
      hello_done_ = true;
      std::random_device rd;
      client_nonce_ = h->client_nonce;
      server_nonce_ = (uint64_t(rd()) << 32) | rd();
      const bool auth = !server_.options.token.empty();
      // with a token, nothing is opened for the client before it has proven it
      if (!auth && !open_device(id)) return;
      return send(HelloReply{mine, server_.config.bitstream_name(), server_nonce_, auth, server_.options.target}, id);
    }
    if (const auto* a = std::get_if<Auth>(&m)) {
      if (!hello_done_ || runtime_ || server_.options.token.empty()) {
        return fail(ErrorCode::kUnexpected, "Auth: no authentication is pending");
      }
      if (!proofs_equal(a->proof, auth_proof(server_.options.token, client_nonce_, server_nonce_))) {
        server_.count(&ServerCounters::auth_failures);
        fail(ErrorCode::kAuthFailed, "the token proof does not match this server's token");
        closing_ = true;
        return;
      }
      if (!open_device(id)) return;
      return send(AuthReply{}, id);
    }
    if (!runtime_) {
      fail(ErrorCode::kUnexpected, std::string(to_string(type_of(m))) +
                                       (hello_done_ ? " before Auth (this server asks for a token)" : " before Hello"));
      closing_ = true;
      return;
    }
    try {
      std::visit([&](const auto& msg) { serve(msg, id); }, m);
    } catch (const std::exception& e) {
      fail(ErrorCode::kInternal, std::string(to_string(type_of(m))) + ": " + e.what());
    }
  }

  // The session's device memory and device; false (and the session closing) when they cannot be had.
  bool open_device(uint32_t id) {
    // the session counts against max_sessions from here (a handshake in progress does not)
    if (++server_.active > server_.options.max_sessions) {
      --server_.active;
      refuse_busy(sessions_full(), id);
      return false;
    }
    active_ = true;
    pending_ = false;
    --server_.pending;
    handshake_timer_.cancel();
    try {
      dram_ = server_.take_dram();
      DeviceOptions o;
      o.dram = dram_.get();
      // the device is run directly (Run) and through the runtime (Call, for modules)
      runtime_ = std::make_unique<runtime::Context>(make_device(server_.options.target, server_.config, o), *dram_);
      modules_ = std::make_unique<ModuleService>(ModuleService::Options{
          server_.options.target, server_.options.max_uploads, server_.options.max_call_steps, &server_.stopping});
      return true;
    } catch (const std::exception& e) {
      send(Error{ErrorCode::kInternal, std::string("cannot open a device: ") + e.what()}, id);
      closing_ = true;
      return false;
    }
  }

  void serve(const Alloc& a, uint32_t id) {
    if (a.bytes > server_.options.max_memory - used_) {
      return send(Error{ErrorCode::kOutOfMemory, "Alloc of " + std::to_string(a.bytes) + " bytes: the session holds " +
                                                     std::to_string(used_) + " of its " +
                                                     std::to_string(server_.options.max_memory) + " bytes"},
                  id);
    }
    void* host = a.phys == 0 ? dram_->alloc(size_t(a.bytes)) : dram_->alloc_at(PhysAddr(a.phys), size_t(a.bytes));
    if (host == nullptr && a.phys != 0) {
      return send(Error{ErrorCode::kBadValue, "Alloc of " + std::to_string(a.bytes) + " bytes at " + hex(a.phys) +
                                                  ": a page of that range is taken or outside device memory"},
                  id);
    }
    if (host == nullptr) {
      return send(
          Error{ErrorCode::kOutOfMemory, "Alloc of " + std::to_string(a.bytes) + " bytes: device memory exhausted"},
          id);
    }
    const PhysAddr phys = dram_->phys_addr(host);
    buffers_[phys] = {host, a.bytes};
    used_ += a.bytes;
    send(AllocReply{phys}, id);
  }
  void serve(const Free& f, uint32_t id) {
    const auto it = buffers_.find(PhysAddr(f.phys));
    if (it == buffers_.end())
      return send(Error{ErrorCode::kNoSuchBuffer, "Free: no buffer starts at " + hex(f.phys)}, id);
    dram_->free(it->second.host);
    used_ -= it->second.bytes;
    buffers_.erase(it);
    send(Ok{}, id);
  }
  void serve(const Write& w, uint32_t id) { copy_in(WriteRef{w.phys, w.data}, id); }
  void copy_in(const WriteRef& w, uint32_t id) {
    uint8_t* dst = dram_->translate(PhysAddr(w.phys), w.data.size());
    if (dst == nullptr) return send(Error{ErrorCode::kNoSuchBuffer, "Write: " + range(w.phys, w.data.size())}, id);
    std::memcpy(dst, w.data.data(), w.data.size());
    send(Ok{}, id);
  }
  void serve(const Read& r, uint32_t id) {
    const uint8_t* src = dram_->translate(PhysAddr(r.phys), r.bytes);
    if (src == nullptr) return send(Error{ErrorCode::kNoSuchBuffer, "Read: " + range(r.phys, r.bytes)}, id);
    send(ReadReply{std::vector<uint8_t>(src, src + r.bytes)}, id);
  }
  void serve(const Run& r, uint32_t id) {
    server_.count(&ServerCounters::runs);
    send(state(device().run(PhysAddr(r.insn_phys), r.count, r.budget)), id);
  }
  // The device's state after a run (or after clearing the statistics).
  RunReply state(RunStatus status, const std::string* diagnostic = nullptr) {
    RunReply reply;
    reply.status = uint32_t(status);
    reply.error_kind = uint32_t(device().last_error_kind());
    reply.diagnostic =
        (diagnostic != nullptr ? *diagnostic : device().last_error()).substr(0, server_.options.limits.max_string);
    reply.stats = to_wire(device().stats());
    const TokenCounts t = device().tokens();
    reply.tokens[0] = t.l2g, reply.tokens[1] = t.g2l, reply.tokens[2] = t.g2s, reply.tokens[3] = t.s2g;
    return reply;
  }
  void serve(const ClearStats&, uint32_t id) {
    device().clear_stats();
    send(state(RunStatus::kOk), id);
  }
  void serve(const Goodbye&, uint32_t id) {
    send(Ok{}, id);
    closing_ = true;
  }
  // ---- modules: the session's module service (module_service.h) ----
  void serve(const Upload& u, uint32_t id) { send(modules_->upload(u), id); }
  void serve(const LoadModule& l, uint32_t id) { send(modules_->load(l), id); }
  void serve(const Call& c, uint32_t id) {
    const auto buffer_size = [this](PhysAddr phys) -> std::optional<uint64_t> {
      const auto b = buffers_.find(phys);
      if (b == buffers_.end()) return std::nullopt;
      return b->second.bytes;
    };
    auto result = modules_->call(c, *runtime_, buffer_size, [this] { server_.count(&ServerCounters::calls); });
    if (const auto* e = std::get_if<Error>(&result)) return send(*e, id);
    const auto& failure = std::get<ModuleService::CallResult>(result).failure;
    send(failure ? state(RunStatus::kError, &*failure) : state(RunStatus::kOk), id);
  }

  template <class M>
  void serve(const M& m, uint32_t id) {  // replies and anything else a client must not send
    send(Error{ErrorCode::kUnexpected, std::string(to_string(type_of(Message(m)))) + " is not a request"}, id);
  }

  static std::string range(uint64_t phys, uint64_t bytes) {
    return std::to_string(bytes) + " bytes at " + hex(phys) + " are not inside one buffer of this session";
  }

  void send(const Message& m, uint32_t id) {
    wq_.push_back(encode(m, id, server_.options.limits));
    if (!writing_) write();
  }
  // Writes every queued reply in one gathered write (a pipelined batch is answered in one go).
  void write() {
    writing_ = true;
    const size_t n = wq_.size();
    std::vector<asio::const_buffer> buffers;
    buffers.reserve(n);
    for (const auto& f : wq_) buffers.emplace_back(asio::buffer(f));
    asio::async_write(
        sock_, buffers,
        asio::bind_executor(strand_, [self = shared_from_this(), n](const boost::system::error_code& ec, size_t) {
          self->writing_ = false;
          if (ec) return self->close();
          self->wq_.erase(self->wq_.begin(), self->wq_.begin() + long(n));
          if (!self->wq_.empty()) return self->write();
          if (self->closing_) self->close();
        }));
  }
  void close() {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ignored;
    sock_.shutdown(tcp::socket::shutdown_both, ignored);
    sock_.close(ignored);
    timer_.cancel();
    handshake_timer_.cancel();
  }

  struct Buffer {
    void* host;
    uint64_t bytes;
  };
  tcp::socket sock_;
  asio::strand<asio::io_context::executor_type> strand_;
  asio::steady_timer timer_;
  asio::steady_timer handshake_timer_{strand_};
  Server::Impl& server_;
  FrameDecoder decoder_;
  std::array<uint8_t, 64 * 1024> rbuf_{};
  std::deque<std::vector<uint8_t>> wq_;
  bool closing_ = false, closed_ = false, writing_ = false, hello_done_ = false;
  bool started_ = false, pending_ = false, active_ = false;  // what the server's counters count this session in
  uint64_t client_nonce_ = 0, server_nonce_ = 0;
  Device& device() { return runtime_->device(); }

  std::unique_ptr<Dram> dram_;
  std::unique_ptr<runtime::Context> runtime_;  // the session's device, and the runtime modules run on
  std::map<PhysAddr, Buffer> buffers_;
  uint64_t used_ = 0;
  std::unique_ptr<ModuleService> modules_;  // uploads and modules, once the session is open
};

}  // namespace

void Server::Impl::accept() {
  acceptor->async_accept(asio::make_strand(io), [this](const boost::system::error_code& ec, tcp::socket socket) {
    if (ec) return;  // the acceptor was closed
    auto session = std::make_shared<Session>(std::move(socket), *this);
    if (active.load() >= options.max_sessions) {
      session->refuse_busy(session->sessions_full());
    } else if (pending.load() >= options.max_pending) {
      session->refuse_busy("the server has " + std::to_string(options.max_pending) +
                           " connections in their handshake already");
    } else {
      session->start();
    }
    accept();
  });
}

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  Impl& s = *impl_;
  s.options.validate();
  // an unknown backend fails here, not per session; an alias ("sim") becomes the backend's name
  s.options.target = std::string(make_device(s.options.target, s.config)->target());
  const tcp::endpoint ep(asio::ip::make_address(s.options.host), s.options.port);
  boost::system::error_code ec;
  s.acceptor->open(ep.protocol(), ec);
  if (!ec) s.acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) s.acceptor->bind(ep, ec);
  if (!ec) s.acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    throw std::runtime_error("vta-device-server: cannot listen on " + s.options.host + ":" +
                             std::to_string(s.options.port) + ": " + ec.message());
  }
  s.accept();
  for (unsigned i = 0; i < s.options.threads; ++i) s.threads.emplace_back([&s] { s.io.run(); });
}

Server::~Server() {
  stop();
  for (auto& t : impl_->threads) t.join();
  impl_->acceptor.reset();
  impl_->io_ptr.reset();  // destroys the sessions still queued, freeing their devices and memory
}

uint16_t Server::port() const { return impl_->acceptor->local_endpoint().port(); }
unsigned Server::active_sessions() const { return impl_->active.load(); }
ServerCounters Server::counters() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->counters;
}

void Server::stop() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopping.load()) return;
    impl_->stopping.store(true);
  }
  impl_->io.stop();
  impl_->stop_cv.notify_all();
}

void Server::wait() {
  std::unique_lock<std::mutex> lock(impl_->mu);
  impl_->stop_cv.wait(lock, [this] { return impl_->stopping.load(); });
}

uint16_t process_server_port(const std::string& target, unsigned threads) {
  static std::mutex mu;
  static std::map<std::pair<std::string, unsigned>, std::unique_ptr<Server>> servers;
  std::lock_guard<std::mutex> lock(mu);
  auto& s = servers[{target, threads}];
  if (s == nullptr) {
    ServerOptions o;
    o.target = target;
    o.threads = threads;
    s = std::make_unique<Server>(o);
  }
  return s->port();
}

}  // namespace vta::rpc
