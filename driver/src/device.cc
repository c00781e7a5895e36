#include "vta/driver/device.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "vta/driver/capture.h"
#include "vta/driver/fsim.h"
#include "vta/driver/parse.h"
#include "vta/driver/program.h"

namespace vta {
namespace {

struct Registry {
  Registry() {
    factories["fsim"] = [](const Config& c, const DeviceOptions& o) { return make_fsim(c, o); };
    concurrent.insert("fsim");
  }
  std::mutex mu;
  std::map<std::string, DeviceFactory, std::less<>> factories;
  std::map<std::string, AddressCheck, std::less<>> address_checks;  // per scheme
  std::map<std::string, MemoryFactory, std::less<>> memories;       // backends with memory of their own
  std::set<std::string, std::less<>> concurrent;                    // register_concurrent_backend's
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

bool Stats::counters_equal(const Stats& o) const {
  for (const auto& f : kStatFields) {
    if (this->*f.member != o.*f.member) return false;
  }
  return true;
}

Stats& Stats::operator+=(const Stats& o) {
  if (acc_load_dram_nbytes || o.acc_load_dram_nbytes) acc_load_dram_nbytes = acc_load_dram() + o.acc_load_dram();
  for (const auto& f : kStatFields) this->*f.member += o.*f.member;
  if (o.cycle_count) cycle_count = cycle_count.value_or(0) + *o.cycle_count;
  return *this;
}

uint64_t Stats::bytes_moved() const {
  uint64_t total = 0;
  for (const auto& f : kStatFields) total += f.bytes ? this->*f.member : 0;
  return total;
}

CycleBounds cycle_bounds(const Stats& s, int bus_width_bits, int compute_issue) {
  const double beat = bus_width_bits / 8.0;
  const double slot_a = double(s.alu_counter) + double(s.acc_load_dram() + s.uop_load_nbytes) / beat;
  const double compute =
      compute_issue == 2 ? std::max(double(s.gemm_counter), slot_a) : double(s.gemm_counter + s.alu_counter);
  return {compute, double(s.dram_nbytes()) / beat};
}

CycleBounds cycle_bounds(const Stats& s, const Config& config) {
  return cycle_bounds(s, config.bus_width(), config.compute_issue());
}

std::string Stats::to_json() const {
  std::ostringstream s;
  const char* sep = "{";
  for (const auto& f : kStatFields) {
    s << sep << "\"" << f.name << "\": " << this->*f.member;
    sep = ", ";
  }
  if (cycle_count) s << ", \"cycle_count\": " << *cycle_count;
  if (acc_load_dram_nbytes) s << ", \"acc_load_dram_nbytes\": " << *acc_load_dram_nbytes;
  s << "}";
  return s.str();
}

std::string Stats::to_table() const {
  // The seeds' format: print("\t{:<16}: {:>16}".format(k, v)).
  std::string out;
  char line[64];
  auto row = [&](const char* name, uint64_t v) {
    std::snprintf(line, sizeof line, "\t%-16s: %16llu\n", name, static_cast<unsigned long long>(v));
    out += line;
  };
  for (const auto& f : kStatFields) row(std::string(f.name).c_str(), this->*f.member);
  if (cycle_count) row("cycle_count", *cycle_count);
  return out;
}

const char* to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNone: return "none";
    case ErrorKind::kInvalidStream: return "invalid_stream";
    case ErrorKind::kInvalidInstruction: return "invalid_instruction";
    case ErrorKind::kSramRange: return "sram_range";
    case ErrorKind::kDramRange: return "dram_range";
    case ErrorKind::kDeadlock: return "deadlock";
    case ErrorKind::kUnfinished: return "unfinished";
    case ErrorKind::kTimeout: return "timeout";
    case ErrorKind::kBusError: return "bus_error";
    case ErrorKind::kInternal: return "internal";
    case ErrorKind::kInterrupted: return "interrupted";
  }
  return "internal";
}

std::string TokenCounts::to_string() const {
  std::ostringstream s;
  s << "l2g=" << l2g << " g2l=" << g2l << " g2s=" << g2s << " s2g=" << s2g;
  return s.str();
}

std::string default_target() {
  const char* env = std::getenv("VTA_TARGET");
  return (env == nullptr || *env == '\0') ? "fsim" : env;
}

void register_backend(std::string name, DeviceFactory factory, AddressCheck check) {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  if (check) r.address_checks[name] = std::move(check);
  r.factories[std::move(name)] = std::move(factory);
}

void register_concurrent_backend(std::string name) {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  r.concurrent.insert(std::move(name));
}

bool runs_concurrently(std::string_view target) {
  if (target == "sim") target = "fsim";
  for (const char* one_file : {"VTA_WAVE", "VTA_CAPTURE"}) {  // (one waveform; captures of the whole memory)
    if (const char* v = std::getenv(one_file); v != nullptr && *v != '\0') return false;
  }
  auto& r = registry();
  std::lock_guard lock(r.mu);
  return r.concurrent.count(target) != 0;
}

namespace {

bool is_scheme(std::string_view name) { return name.size() > 3 && name.ends_with("://"); }

// The factory for `target` and, for a scheme, the address after it.
DeviceFactory find_factory(std::string_view target, std::string* address) {
  if (target == "sim") target = "fsim";
  auto& r = registry();
  std::lock_guard lock(r.mu);
  if (const auto pos = target.find("://"); pos != std::string_view::npos) {
    auto it = r.factories.find(target.substr(0, pos + 3));
    if (it == r.factories.end()) return nullptr;
    if (address != nullptr) *address = std::string(target.substr(pos + 3));
    return it->second;
  }
  auto it = r.factories.find(target);
  return it == r.factories.end() ? nullptr : it->second;
}

}  // namespace

std::vector<std::string> backend_names() {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  std::vector<std::string> names;
  for (const auto& [name, f] : r.factories) {
    if (!is_scheme(name)) names.push_back(name);
  }
  return names;
}

std::vector<std::string> backend_schemes() {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  std::vector<std::string> names;
  for (const auto& [name, f] : r.factories) {
    if (is_scheme(name)) names.push_back(name);
  }
  return names;
}

void register_backend_memory(std::string name, MemoryFactory make) {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  r.memories[std::move(name)] = std::move(make);
}

namespace {
Dram* make_global_dram() {
  MemoryFactory make;
  {
    auto& r = registry();
    std::lock_guard lock(r.mu);
    if (auto it = r.memories.find(default_target()); it != r.memories.end()) make = it->second;
  }
  return make ? make().release() : new Dram;
}
}  // namespace

Dram& Dram::global() {
  // Never destroyed: buffers still alive at exit (a leaked VTABufferAlloc, a static device) may free
  // into it while other static objects are destroyed; the system reclaims the memory.
  static Dram* dram = make_global_dram();
  return *dram;
}

bool is_known_target(std::string_view target) { return find_factory(target, nullptr) != nullptr; }

void check_target(std::string_view target) {
  std::string address;
  if (find_factory(target, &address) == nullptr) {
    std::string known;
    for (const auto& n : backend_names()) known += n + ", ";
    for (const auto& s : backend_schemes()) known += s + "HOST:PORT, ";
    throw std::invalid_argument("unknown VTA target \"" + std::string(target) +
                                "\" (known: " + known.substr(0, known.size() - 2) + ")");
  }
  AddressCheck check;
  if (const auto pos = target.find("://"); pos != std::string_view::npos) {
    auto& r = registry();
    std::lock_guard lock(r.mu);
    if (auto it = r.address_checks.find(target.substr(0, pos + 3)); it != r.address_checks.end()) check = it->second;
  }
  if (check) check(address);
}

bool is_scheme_address(std::string_view target) { return target.find("://") != std::string_view::npos; }

namespace {

uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  const std::optional<uint64_t> x = parse_u64(v);
  if (!x) throw std::invalid_argument(std::string(name) + "=" + quoted(v) + " is not a non-negative integer");
  return *x;
}

std::optional<uint64_t> env_u64(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return env_u64(name, 0);
}

std::optional<uint32_t> env_u32(const char* name) {
  const std::optional<uint64_t> x = env_u64(name);
  if (x && *x > UINT32_MAX) throw std::invalid_argument(std::string(name) + " is larger than 2^32-1");
  return x ? std::optional<uint32_t>(uint32_t(*x)) : std::nullopt;
}

}  // namespace

DeviceOptions DeviceOptions::from_env() {
  ClockedOptions c;
  c.read_latency = env_u32("VTA_TSIM_READ_LATENCY");
  c.write_latency = env_u32("VTA_TSIM_WRITE_LATENCY");
  c.cycle_budget = env_u64("VTA_TSIM_CYCLE_BUDGET");
  c.watchdog = env_u32("VTA_TSIM_WATCHDOG");
  c.profile = env_u32("VTA_TSIM_PROFILE").value_or(0) != 0;
  if (const char* w = std::getenv("VTA_WAVE"); w != nullptr && *w != '\0') {
    c.wave = w;
    c.wave_start = env_u64("VTA_WAVE_START", 0);
    c.wave_stop = env_u64("VTA_WAVE_STOP", UINT64_MAX);
    c.wave_depth = int(env_u32("VTA_WAVE_DEPTH").value_or(0));
  }
  DeviceOptions o;
  o.clocked = std::move(c);
  return o;
}

namespace {
std::atomic<uint64_t> made_devices{0};

// What every device make_device makes adds to its backend's statistics: the accumulator loads'
// DRAM bytes (Stats::acc_load_dram_nbytes), counted from each successful run's instructions, so
// that every backend counts them in one place and the same way.
class DramCountingDevice final : public ForwardingDevice {
 public:
  DramCountingDevice(std::unique_ptr<Device> inner, Dram& dram)
      : ForwardingDevice(std::move(inner)), dram_(dram), isa_(config()) {
    refresh(0);
  }
  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget) override {
    const RunStatus status = inner().run(insn_addr, count, budget);
    const uint64_t added = status == RunStatus::kOk ? acc_load_dram_bytes(isa_, dram_, insn_addr, count) : 0;
    refresh(*stats_.acc_load_dram_nbytes + added);
    return status;
  }
  const Stats& stats() const override { return stats_; }
  void clear_stats() override {
    inner().clear_stats();
    refresh(0);
  }

 private:
  // (the inner device's statistics change only by its runs and clears, which pass through here)
  void refresh(uint64_t acc_load_dram) {
    stats_ = inner().stats();
    stats_.acc_load_dram_nbytes = acc_load_dram;
  }
  Dram& dram_;
  Isa isa_;
  Stats stats_;  // the inner device's, with the count
};

}  // namespace

uint64_t devices_made() { return made_devices.load(std::memory_order_relaxed); }

std::unique_ptr<Device> make_device(std::string_view target, const Config& config, const DeviceOptions& options) {
  DeviceOptions o = options;
  DeviceFactory factory = find_factory(target, &o.address);
  if (!factory) {
    std::string known;
    for (const auto& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
    for (const auto& n : backend_schemes()) known += ", " + n + "HOST:PORT";
    throw std::invalid_argument("unknown VTA target \"" + std::string(target) + "\" (known: " + known + ")");
  }
  Dram& dram = o.dram != nullptr ? *o.dram : Dram::global();
  std::unique_ptr<Device> device = std::make_unique<DramCountingDevice>(factory(config, o), dram);
  made_devices.fetch_add(1, std::memory_order_relaxed);
  // VTA_CAPTURE=DIR: every run of the device is written to DIR (vta/driver/capture.h)
  if (const char* dir = std::getenv("VTA_CAPTURE"); dir != nullptr && *dir != '\0') {
    device = make_capturing_device(std::move(device), dram, dir);
  }
  return device;
}

}  // namespace vta
