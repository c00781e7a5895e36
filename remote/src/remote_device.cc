// The driver-level client: VTA_TARGET=rpc://HOST:PORT. A run is one pipelined batch of requests:
// free the mirrors of buffers the program freed since, allocate mirrors of the buffers this run uses
// (at the same physical addresses, so the instructions' addresses hold on the server), write the byte
// ranges the run reads, run, read back the ranges it stores. The program's instructions are decoded
// here only to find those ranges; the server's device validates and runs them, so a bad program gets
// the server's verdict, exactly as a local device would give it.

#include "vta/rpc/remote_device.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "vta/driver/isa.h"
#include "vta/driver/program.h"

namespace vta::rpc {
namespace {

// Byte ranges [lo, hi) inside one local buffer.
struct Ranges {
  DramBlock block;
  std::vector<std::pair<PhysAddr, PhysAddr>> read, stored;
};

// Sorts and merges ranges that overlap or lie closer than `gap` bytes.
void coalesce(std::vector<std::pair<PhysAddr, PhysAddr>>& r, uint64_t gap) {
  std::sort(r.begin(), r.end());
  size_t out = 0;
  for (const auto& x : r) {
    if (out > 0 && x.first <= r[out - 1].second + gap) {
      r[out - 1].second = std::max(r[out - 1].second, x.second);
    } else {
      r[out++] = x;
    }
  }
  r.resize(out);
}

class RemoteDevice final : public Device {
 public:
  RemoteDevice(std::string_view address, const Config& config, const DeviceOptions& options, ConnectionOptions conn)
      : config_(config),
        isa_(config),
        dram_(options.dram != nullptr ? *options.dram : Dram::global()),
        target_("rpc://" + std::string(address)),
        conn_(connect(address, config_, std::move(conn))) {}

  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget) override {
    const std::map<PhysAddr, Ranges> used = ranges_of(insn_addr, count);
    std::vector<Request> batch;
    std::vector<PhysAddr> allocs;  // the buffer of each Alloc in `batch`, in order
    for (auto it = mirrors_.begin(); it != mirrors_.end();) {
      // a mirror whose local buffer is gone (or was replaced) is freed before anything is placed
      const auto b = dram_.block_at(it->first);
      if (b && b->phys == it->first && b->size == it->second) {
        ++it;
        continue;
      }
      batch.emplace_back(Free{it->first});
      it = mirrors_.erase(it);
    }
    for (const auto& [phys, r] : used) {
      if (mirrors_.count(phys) != 0) continue;
      batch.emplace_back(Alloc{r.block.size, phys});
      allocs.push_back(phys);
    }
    const uint64_t chunk = conn_.chunk_bytes();
    uint64_t sent = 0;
    for (const auto& [phys, r] : used) {
      for (const auto& [lo, hi] : r.read) {
        for (PhysAddr at = lo; at < hi; at += chunk) {
          const uint64_t n = std::min<uint64_t>(chunk, hi - at);
          batch.emplace_back(WriteView{at, {r.block.host + (at - phys), size_t(n)}});  // sent from where it lies
          sent += n;
        }
      }
    }
    const size_t run_index = batch.size();
    batch.emplace_back(Run{insn_addr, count, budget});
    std::vector<std::pair<uint8_t*, uint64_t>> copies;  // where each Read's bytes go
    for (const auto& [phys, r] : used) {
      for (const auto& [lo, hi] : r.stored) {
        for (PhysAddr at = lo; at < hi; at += chunk) {
          const uint64_t n = std::min<uint64_t>(chunk, hi - at);
          batch.emplace_back(Read{at, uint32_t(n)});
          copies.emplace_back(r.block.host + (at - phys), n);
        }
      }
    }

    std::vector<Message> replies;
    try {
      replies = conn_.pipeline(batch, conn_options_.run_timeout);
    } catch (const std::exception& e) {
      return fail(std::string("remote device: ") + e.what());
    }
    ++traffic_.round_trips;
    traffic_.bytes_sent += sent;
    std::string setup_error;
    size_t next_alloc = 0;
    for (size_t i = 0; i < run_index; ++i) {
      const auto* err = std::get_if<Error>(&replies[i]);
      const auto* m = std::get_if<Message>(&batch[i]);
      if (m != nullptr && std::holds_alternative<Alloc>(*m)) {
        if (err == nullptr) mirrors_[allocs[next_alloc]] = std::get<Alloc>(*m).bytes;
        ++next_alloc;
      }
      if (err != nullptr && !(m != nullptr && std::holds_alternative<Free>(*m)) && setup_error.empty()) {
        setup_error = std::string(m != nullptr ? to_string(type_of(*m)) : "Write") + ": " + err->message;
      }
    }
    const auto* reply = std::get_if<RunReply>(&replies[run_index]);
    if (reply == nullptr) {
      const auto* err = std::get_if<Error>(&replies[run_index]);
      return fail("remote device: Run: " + (err != nullptr ? err->message : std::string("unexpected reply")));
    }
    for (size_t i = 0; i < copies.size(); ++i) {
      const auto* data = std::get_if<ReadReply>(&replies[run_index + 1 + i]);
      if (data == nullptr || data->data.size() != copies[i].second) {
        if (setup_error.empty()) setup_error = "Read: the server did not send back the bytes the run stored";
        continue;
      }
      std::memcpy(copies[i].first, data->data.data(), data->data.size());
      traffic_.bytes_received += data->data.size();
    }
    take_stats(*reply);
    error_ = rename(reply->diagnostic);
    kind_ = static_cast<ErrorKind>(reply->error_kind);
    if (!setup_error.empty()) {
      // the server could not mirror a buffer: the run's verdict would be about memory it never got
      error_ = "vta " + target_ + ": error [internal]: remote device: " + setup_error + "\n" + error_;
      kind_ = ErrorKind::kInternal;
      return RunStatus::kError;
    }
    return static_cast<RunStatus>(reply->status);
  }

  const Stats& stats() const override { return stats_; }
  void clear_stats() override {
    const Message request = ClearStats{};
    const auto replies = conn_.pipeline({&request, 1});
    ++traffic_.round_trips;
    const auto* reply = std::get_if<RunReply>(&replies.front());
    if (reply == nullptr) throw std::runtime_error("vta " + target_ + ": the server did not clear the statistics");
    take_stats(*reply);
  }
  TokenCounts tokens() const override { return tokens_; }
  const std::string& last_error() const override { return error_; }
  ErrorKind last_error_kind() const override { return kind_; }
  std::string_view target() const override { return target_; }
  const Config& config() const override { return config_; }
  const RemoteTraffic& traffic() const { return traffic_; }

 private:
  Connection connect(std::string_view address, const Config& config, ConnectionOptions options) {
    options.config = &config;
    const char* token_file = std::getenv("VTA_RPC_TOKEN_FILE");
    if (options.token.empty() && token_file != nullptr && *token_file != '\0')
      options.token = read_token_file(token_file);
    conn_options_ = options;
    const auto [host, port] = parse_address(address);
    return Connection(host, port, options);
  }

  // The local buffers the run touches and the byte ranges it reads and stores in each: the
  // instruction stream, every LOAD's rows (micro-ops included) and every STORE's rows. A store's
  // range is also sent, so that what comes back is exact between the rows it writes.
  std::map<PhysAddr, Ranges> ranges_of(PhysAddr insn_addr, uint32_t count) const {
    std::map<PhysAddr, Ranges> used;
    auto add = [&](PhysAddr lo, uint64_t bytes, bool store) {
      const auto b = dram_.block_at(lo);
      if (!b) return;  // outside every buffer: the server's device reports it
      const PhysAddr hi = std::min<PhysAddr>(lo + bytes, b->phys + b->size);
      auto& r = used[b->phys];
      r.block = *b;
      r.read.emplace_back(lo, hi);
      if (store) r.stored.emplace_back(lo, hi);
    };
    const uint64_t stream_bytes = uint64_t(count) * Config::kInsnElemBytes;
    add(insn_addr, stream_bytes, false);
    const uint8_t* insns = dram_.translate(insn_addr, stream_bytes);
    for (uint32_t i = 0; insns != nullptr && i < count; ++i) {
      const RawInsn raw = load_insn(insns + size_t(i) * Config::kInsnElemBytes);
      const uint8_t op = Isa::opcode_of(raw);
      if (op != uint8_t(Opcode::kLoad) && op != uint8_t(Opcode::kStore)) continue;
      const MemInsn m = isa_.decode_mem(raw);
      if (m.x_size == 0 || m.y_size == 0 || !is_valid_mem_id(m.memory_type)) continue;
      const DramSpan span = dram_span(config_, m, static_cast<MemId>(m.memory_type));
      add(span.start, span.bytes, op == uint8_t(Opcode::kStore));
    }
    for (auto& [phys, r] : used) {
      coalesce(r.read, 16 * 1024);  // sending a small gap costs less than another message
      coalesce(r.stored, 0);
    }
    return used;
  }

  // The server's diagnostic names its backend ("vta fsim: ..."); the user's device is this one.
  std::string rename(const std::string& diagnostic) const {
    const std::string theirs = "vta " + conn_.server_target() + ": ";
    if (diagnostic.rfind(theirs, 0) != 0) return diagnostic;
    return "vta " + target_ + ": " + diagnostic.substr(theirs.size());
  }

  void take_stats(const RunReply& reply) {
    stats_ = from_wire(reply.stats);
    tokens_ = TokenCounts{reply.tokens[0], reply.tokens[1], reply.tokens[2], reply.tokens[3]};
  }

  RunStatus fail(const std::string& what) {
    error_ = "vta " + target_ + ": error [internal]: " + what + "\n";
    kind_ = ErrorKind::kInternal;
    tokens_ = {};
    return RunStatus::kError;
  }

  Config config_;
  Isa isa_;
  Dram& dram_;
  std::string target_;
  ConnectionOptions conn_options_;
  Connection conn_;
  std::map<PhysAddr, uint64_t> mirrors_;  ///< buffers allocated on the server: phys -> bytes
  Stats stats_;
  TokenCounts tokens_;
  std::string error_;
  ErrorKind kind_ = ErrorKind::kNone;
  RemoteTraffic traffic_;
};

const bool kRegistered = [] {
  register_backend(
      "rpc://", [](const Config& c, const DeviceOptions& o) { return make_remote_device(o.address, c, o); },
      [](std::string_view address) { (void)parse_address(address); });
  return true;
}();

}  // namespace

std::pair<std::string, uint16_t> parse_address(std::string_view address) {
  auto bad = [&](const std::string& why) -> std::invalid_argument {
    return std::invalid_argument("remote device address '" + std::string(address) + "': " + why +
                                 " (expected HOST:PORT, e.g. rpc://127.0.0.1:9091)");
  };
  const size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) throw bad("no port");
  std::string_view host = address.substr(0, colon), port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) throw bad("no host");
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size() || value == 0 || value > 65535) {
    throw bad("the port must be a number from 1 to 65535");
  }
  return {std::string(host), uint16_t(value)};
}

std::unique_ptr<Device> make_remote_device(std::string_view address, const Config& config, const DeviceOptions& options,
                                           const ConnectionOptions& connection) {
  return std::make_unique<RemoteDevice>(address, config, options, connection);
}

RemoteTraffic remote_traffic(const Device& device) {
  const auto* remote = dynamic_cast<const RemoteDevice*>(&device);
  return remote != nullptr ? remote->traffic() : RemoteTraffic{};
}

}  // namespace vta::rpc
