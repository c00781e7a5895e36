// The module-level client: a Connection, a queue of requests whose answers nobody waits for, and the
// device's statistics as the last answer left them (the session's device is this client's alone).

#include "vta/rpc/session.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "vta/driver/device.h"
#include "vta/driver/file.h"
#include "vta/driver/packing.h"
#include "vta/rpc/server.h"
#include "wire_dtype.h"

namespace vta::rpc {
namespace detail {

struct RemoteState {
  std::unique_ptr<Server> server;  // local_session's; declared first, so it stops after the connection closes
  ConnectionOptions options;
  std::unique_ptr<Connection> conn;
  // Requests sent with the next request that waits for an answer. A queued copy's bytes are kept in
  // `arena` (reused, so its pages are touched once) and sent from there (a WriteView, no frame copy).
  struct Pending {
    Message message;    // unless a copy
    uint64_t phys = 0;  // a copy: `size` bytes at arena[offset]
    size_t offset = 0, size = 0;
    std::string what;
  };
  std::vector<Pending> pending;
  std::vector<uint8_t> arena;
  Stats stats;
  // Everything above is the session's, shared by its tensors and modules: one call at a time, from
  // whichever thread (recursive: a call may queue, and a full queue sends).
  std::recursive_mutex mu;

  [[noreturn]] void refused(const Error& e, const std::string& what) const {
    throw RemoteError(e.code, "vta rpc " + conn->where() + ": " + what + ": " + e.message);
  }

  void take_stats(const RunReply& r) { stats = from_wire(r.stats); }

  void queue(Message m, std::string what) {
    pending.push_back({std::move(m), 0, 0, 0, std::move(what)});
    if (pending.size() >= 4096) exchange({});
  }
  // Queues a copy to device memory in requests of at most a chunk; a round trip's worth (the
  // connection's 16 chunks) goes out at once.
  void queue_copy(uint64_t phys, const uint8_t* bytes, size_t n, const std::string& what) {
    const size_t chunk = size_t(conn->chunk_bytes());
    for (size_t at = 0; at < n; at += chunk) {
      const size_t len = std::min(chunk, n - at);
      pending.push_back({Ok{}, phys + at, arena.size(), len, what});
      arena.insert(arena.end(), bytes + at, bytes + at + len);
      if (arena.size() >= 16 * chunk) exchange({});
    }
  }

  // Sends the queued requests and `requests` in one round trip; returns the replies to `requests`
  // (an Error among them is the caller's to report). A refused queued request throws, naming it.
  std::vector<Message> exchange(std::vector<Message> requests, std::chrono::milliseconds limit = {}) {
    if (pending.empty() && requests.empty()) return {};
    std::vector<Request> batch;
    batch.reserve(pending.size() + requests.size());
    for (const Pending& p : pending) {
      if (p.size > 0) {
        batch.emplace_back(WriteView{p.phys, {arena.data() + p.offset, p.size}});
      } else {
        batch.emplace_back(p.message);
      }
    }
    for (Message& m : requests) batch.emplace_back(std::move(m));
    const size_t queued = pending.size();
    std::vector<std::string> what;
    what.reserve(queued);
    for (Pending& p : pending) what.push_back(std::move(p.what));
    pending.clear();
    std::vector<Message> replies;
    try {
      replies = conn->pipeline(batch, limit);
    } catch (...) {
      arena.clear();
      throw;
    }
    arena.clear();  // the capacity stays
    for (size_t i = 0; i < queued; ++i) {
      if (const auto* e = std::get_if<Error>(&replies[i])) refused(*e, what[i]);
      if (const auto* r = std::get_if<RunReply>(&replies[i])) take_stats(*r);  // ClearStats
    }
    return {std::make_move_iterator(replies.begin() + long(queued)), std::make_move_iterator(replies.end())};
  }

  // One request that needs its answer, of type Reply, with everything queued before it.
  template <class Reply>
  Reply ask(Message request, const std::string& what, std::chrono::milliseconds limit = {}) {
    std::vector<Message> one;
    one.push_back(std::move(request));
    Message reply = std::move(exchange(std::move(one), limit).front());
    if (const auto* e = std::get_if<Error>(&reply)) refused(*e, what);
    if (auto* r = std::get_if<Reply>(&reply)) return std::move(*r);
    throw RemoteError(ErrorCode::kUnexpected,
                      "vta rpc " + conn->where() + ": " + what + " was answered with " + to_string(type_of(reply)));
  }
};

}  // namespace detail

namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

size_t element_count(const std::vector<int64_t>& shape, const std::string& name) {
  if (shape.empty() || shape.size() > kMaxRank) {
    throw std::invalid_argument("remote tensor " + name + ": " + std::to_string(shape.size()) + " dimensions (1 to " +
                                std::to_string(kMaxRank) + ")");
  }
  size_t n = 1;
  for (const int64_t d : shape) {
    if (d < 1 || uint64_t(d) > std::numeric_limits<size_t>::max() / 4 / n) {
      throw std::invalid_argument("remote tensor " + name + ": the shape " + shape_text(shape) +
                                  " has a dimension below 1 or is too large");
    }
    n *= size_t(d);
  }
  return n;
}

}  // namespace

// ---- RemoteTensor ---------------------------------------------------------------------------------

RemoteTensor::RemoteTensor(std::shared_ptr<detail::RemoteState> state, std::vector<int64_t> shape, runtime::DType dtype,
                           std::string name, uint64_t phys)
    : state_(std::move(state)), shape_(std::move(shape)), dtype_(dtype), name_(std::move(name)), phys_(phys) {}

RemoteTensor::~RemoteTensor() {
  if (!state_ || !state_->conn) return;
  try {
    const std::lock_guard lock(state_->mu);
    state_->queue(Free{phys_}, "Free of tensor " + name_);
  } catch (const std::exception&) {
    // the connection is gone: so is the session, and its memory with it
  }
}

RemoteTensor::RemoteTensor(RemoteTensor&& o) noexcept
    : state_(std::move(o.state_)),
      shape_(std::move(o.shape_)),
      dtype_(o.dtype_),
      name_(std::move(o.name_)),
      phys_(o.phys_) {}

RemoteTensor& RemoteTensor::operator=(RemoteTensor&& o) noexcept {
  if (this != &o) {
    RemoteTensor old(std::move(*this));  // freed on the server
    state_ = std::move(o.state_);
    shape_ = std::move(o.shape_);
    dtype_ = o.dtype_;
    name_ = std::move(o.name_);
    phys_ = o.phys_;
  }
  return *this;
}

size_t RemoteTensor::elements() const {
  size_t n = 1;
  for (const int64_t d : shape_) n *= size_t(d);
  return n;
}

void RemoteTensor::check(size_t count, runtime::DType t, const char* what) const {
  if (!state_) throw std::invalid_argument(std::string(what) + ": the remote tensor was moved from");
  if (t != dtype_) {
    throw std::invalid_argument(std::string(what) + ": tensor " + name_ + " holds " + runtime::dtype_name(dtype_) +
                                " elements");
  }
  if (count != elements()) {
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(count) + " elements for tensor " + name_ +
                                " of " + std::to_string(elements()));
  }
}

void RemoteTensor::send(const uint8_t* bytes, size_t n) {
  const std::lock_guard lock(state_->mu);
  state_->queue_copy(phys_, bytes, n, "copy to tensor " + name_);
}
void RemoteTensor::copy_from(std::span<const int8_t> host) {
  if (dtype_ == runtime::DType::kInt4) {
    check(host.size(), runtime::DType::kInt4, "copy_from");
    const std::vector<uint8_t> packed = runtime::pack_int4(host, "remote tensor " + name_ + ": copy_from");
    send(packed.data(), packed.size());
    return;
  }
  check(host.size(), runtime::DType::kInt8, "copy_from");
  send(reinterpret_cast<const uint8_t*>(host.data()), host.size_bytes());
}
void RemoteTensor::copy_from(std::span<const int32_t> host) {
  check(host.size(), runtime::DType::kInt32, "copy_from");
  send(reinterpret_cast<const uint8_t*>(host.data()), host.size_bytes());
}

void RemoteTensor::copy_to(std::span<int8_t> host) const {
  const bool int4 = dtype_ == runtime::DType::kInt4;
  check(host.size(), int4 ? runtime::DType::kInt4 : runtime::DType::kInt8, "copy_to");
  const std::lock_guard lock(state_->mu);
  state_->exchange({});
  if (!int4) {
    state_->conn->read(phys_, {reinterpret_cast<uint8_t*>(host.data()), host.size_bytes()});
    return;
  }
  std::vector<uint8_t> packed(packed_bytes(host.size(), 4));
  state_->conn->read(phys_, packed);
  unpack_lanes(packed.data(), host.data(), host.size(), 4);
}
void RemoteTensor::copy_to(std::span<int32_t> host) const {
  check(host.size(), runtime::DType::kInt32, "copy_to");
  const std::lock_guard lock(state_->mu);
  state_->exchange({});
  state_->conn->read(phys_, {reinterpret_cast<uint8_t*>(host.data()), host.size_bytes()});
}

// ---- RemoteModule ---------------------------------------------------------------------------------

RemoteModule::RemoteModule(std::shared_ptr<detail::RemoteState> state, std::string name, uint32_t handle,
                           std::vector<ModuleArg> args)
    : state_(std::move(state)), name_(std::move(name)), handle_(handle), args_(std::move(args)) {}

void RemoteModule::call(const std::vector<const RemoteTensor*>& tensors) const {
  const std::string what = "call of module " + name_;
  if (tensors.size() != args_.size()) {
    throw std::invalid_argument(what + ": " + std::to_string(tensors.size()) + " tensors for " +
                                std::to_string(args_.size()) + " arguments");
  }
  Call c{handle_, {}};
  for (size_t i = 0; i < args_.size(); ++i) {
    const ModuleArg& a = args_[i];
    const RemoteTensor* t = tensors[i];
    if (t == nullptr || t->state_ != state_) {
      throw std::invalid_argument(what + ": the tensor for argument " + a.name +
                                  " is not a live tensor of this remote session");
    }
    if (t->shape() != a.shape || wire_dtype(t->dtype()) != a.dtype) {
      std::string m = what + ": ";
      m += t->name().empty() ? "the tensor given" : "tensor " + t->name();
      m += " for argument " + a.name + " is ";
      m += runtime::dtype_name(t->dtype());
      m += shape_text(t->shape()) + "; the argument is " + wire_dtype_name(a.dtype);
      m += shape_text(a.shape);
      throw std::invalid_argument(m);
    }
    c.args.push_back(t->phys());
  }
  const std::lock_guard lock(state_->mu);
  const RunReply r = state_->ask<RunReply>(c, what, state_->options.run_timeout);
  state_->take_stats(r);
  if (r.status != uint32_t(RunStatus::kOk)) {
    throw CallError("vta rpc " + state_->conn->where() + ": " + what + " failed: " + r.diagnostic, r);
  }
}

// ---- Remote ---------------------------------------------------------------------------------------

Remote::Remote(std::shared_ptr<detail::RemoteState> state) : state_(std::move(state)) {}
Remote::~Remote() = default;
Remote::Remote(Remote&&) noexcept = default;
Remote& Remote::operator=(Remote&&) noexcept = default;

void Remote::upload(const std::string& path) {
  const std::string bytes = read_file(path, uint64_t{1} << 32);
  const size_t slash = path.find_last_of('/');
  upload(slash == std::string::npos ? path : path.substr(slash + 1),
         {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
}

void Remote::upload(const std::string& name, std::span<const uint8_t> bytes) {
  if (!valid_upload_name(name)) {
    throw std::invalid_argument("upload: '" + name +
                                "' is not an upload name (1 to 128 letters, digits, '.', '_' or '-', not starting "
                                "with '.')");
  }
  if (bytes.empty()) throw std::invalid_argument("upload: " + name + " is empty");
  if (bytes.size() + 1024 > state_->options.limits.max_payload) {
    throw std::invalid_argument("upload: " + name + " has " + std::to_string(bytes.size()) +
                                " bytes, more than one frame carries (" +
                                std::to_string(state_->options.limits.max_payload) + ")");
  }
  const std::lock_guard lock(state_->mu);
  state_->queue(Upload{name, {bytes.begin(), bytes.end()}}, "upload of " + name);
}

RemoteModule Remote::load_module(const std::string& name) {
  const std::lock_guard lock(state_->mu);
  ModuleReply r = state_->ask<ModuleReply>(LoadModule{name}, "load_module " + name);
  return RemoteModule(state_, name, r.handle, std::move(r.args));
}

RemoteTensor Remote::empty(std::vector<int64_t> shape, runtime::DType dtype, std::string name) {
  const size_t count = element_count(shape, name);
  runtime::require_whole_bytes(dtype, count, "remote tensor " + name, "element count");
  const size_t bytes = packed_bytes(count, int(runtime::dtype_bits(dtype)));
  const std::lock_guard lock(state_->mu);
  const AllocReply r = state_->ask<AllocReply>(Alloc{bytes, 0}, "allocation of tensor " + name);
  return RemoteTensor(state_, std::move(shape), dtype, std::move(name), r.phys);
}

Stats Remote::stats() {
  const std::lock_guard lock(state_->mu);
  state_->exchange({});
  return state_->stats;
}
void Remote::clear_stats() {
  const std::lock_guard lock(state_->mu);
  state_->queue(ClearStats{}, "clear_stats");
}
void Remote::flush() {
  const std::lock_guard lock(state_->mu);
  state_->exchange({});
}
const std::string& Remote::target() const { return state_->conn->server_target(); }
const std::string& Remote::where() const { return state_->conn->where(); }
uint64_t Remote::round_trips() const { return state_->conn->round_trips(); }

Remote connect(const std::string& host, uint16_t port, const ConnectionOptions& options) {
  auto state = std::make_shared<detail::RemoteState>();
  state->options = options;
  if (state->options.token.empty()) {  // as rpc:// devices do
    const char* file = std::getenv("VTA_RPC_TOKEN_FILE");
    if (file != nullptr && *file != '\0') state->options.token = read_token_file(file);
  }
  state->conn = std::make_unique<Connection>(host, port, options);
  return Remote(std::move(state));
}

Remote local_session(const std::string& target) {
  ServerOptions o;
  o.target = target.empty() ? default_target() : target;
  if (is_scheme_address(o.target)) {
    throw std::invalid_argument("local_session: " + o.target +
                                " is a remote device; a local session serves a backend of this process (fsim, tsim)");
  }
  o.threads = 1;
  auto state = std::make_shared<detail::RemoteState>();
  state->server = std::make_unique<Server>(o);
  state->conn = std::make_unique<Connection>("127.0.0.1", state->server->port(), state->options);
  return Remote(std::move(state));
}

}  // namespace vta::rpc
