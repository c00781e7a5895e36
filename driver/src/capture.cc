#include "vta/driver/capture.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "vta/driver/file.h"
#include "vta/driver/hash.h"
#include "vta/driver/json_field.h"
#include "vta/driver/program.h"

namespace vta {
namespace {

using json = nlohmann::json;

constexpr std::string_view kMagic = "VTACAP1\n";

const char* status_name(RunStatus s) {
  return s == RunStatus::kOk ? "ok" : s == RunStatus::kTimeout ? "timeout" : "error";
}

RunStatus parse_status(const std::string& s) {
  if (s == "ok") return RunStatus::kOk;
  if (s == "timeout") return RunStatus::kTimeout;
  if (s == "error") return RunStatus::kError;
  throw CaptureError("unknown run status \"" + s + "\"");
}

ErrorKind parse_kind(const std::string& s) {
  for (int k = int(ErrorKind::kNone); k <= int(kLastErrorKind); ++k) {
    if (s == to_string(ErrorKind(k))) return ErrorKind(k);
  }
  throw CaptureError("unknown error kind \"" + s + "\"");
}

constexpr std::pair<CaptureUse, const char*> kUseNames[] = {
    {kUseInsn, "insn"}, {kUseUop, "uop"}, {kUseWgt, "wgt"}, {kUseInp, "inp"}, {kUseAcc, "acc"}, {kUseOut, "out"},
};

unsigned use_of(MemId m, bool store) {
  if (store) return kUseOut;
  switch (m) {
    case MemId::kUop: return kUseUop;
    case MemId::kWgt: return kUseWgt;
    case MemId::kInp: return kUseInp;
    default: return kUseAcc;
  }
}

json stats_json(const Stats& s) {
  json j = json::object();
  for (const auto& f : kStatFields) j[std::string(f.name)] = s.*f.member;
  if (s.cycle_count) j["cycle_count"] = *s.cycle_count;
  if (s.acc_load_dram_nbytes) j["acc_load_dram_nbytes"] = *s.acc_load_dram_nbytes;
  return j;
}

Stats parse_stats(const json& j) {
  Stats s;
  for (const auto& f : kStatFields) s.*f.member = json_field<uint64_t>(j, std::string(f.name).c_str());
  if (j.contains("cycle_count")) s.cycle_count = json_field<uint64_t>(j, "cycle_count");
  // (absent from the captures written before make_device's devices counted it)
  if (j.contains("acc_load_dram_nbytes")) s.acc_load_dram_nbytes = json_field<uint64_t>(j, "acc_load_dram_nbytes");
  return s;
}

json tokens_json(const TokenCounts& t) { return {{"l2g", t.l2g}, {"g2l", t.g2l}, {"g2s", t.g2s}, {"s2g", t.s2g}}; }

TokenCounts parse_tokens(const json& j) {
  return {json_field<uint64_t>(j, "l2g"), json_field<uint64_t>(j, "g2l"), json_field<uint64_t>(j, "g2s"),
          json_field<uint64_t>(j, "s2g")};
}

Stats stats_delta(const Stats& after, const Stats& before) {
  Stats d;
  for (const auto& f : kStatFields) d.*f.member = after.*f.member - before.*f.member;
  if (after.cycle_count) d.cycle_count = *after.cycle_count - before.cycle_count.value_or(0);
  if (after.acc_load_dram_nbytes) d.acc_load_dram_nbytes = *after.acc_load_dram_nbytes - before.acc_load_dram();
  return d;
}

// The allocations `count` instructions at `insn_addr` use, found without throwing: an invalid
// program's regions are captured as far as they exist, so that its replay gets the same verdict.
std::map<PhysAddr, unsigned> scan_regions(const Isa& isa, const Dram& dram, PhysAddr insn_addr, uint32_t count) {
  std::map<PhysAddr, unsigned> uses;
  const auto insn_block = dram.block_at(insn_addr);
  if (!insn_block) return uses;
  uses[insn_block->phys] |= kUseInsn;
  const Config& c = isa.config();
  for_each_readable_insn(dram, insn_addr, count, [&](RawInsn raw) {
    const uint8_t op = Isa::opcode_of(raw);
    if (op != uint8_t(Opcode::kLoad) && op != uint8_t(Opcode::kStore)) return;
    const MemInsn m = isa.decode_mem(raw);
    if (!is_valid_mem_id(m.memory_type) || m.x_size == 0 || m.y_size == 0) return;
    const auto type = static_cast<MemId>(m.memory_type);
    const DramSpan span = dram_span(c, m, type);
    const unsigned use = use_of(type, op == uint8_t(Opcode::kStore));
    for (const PhysAddr at : {span.start, span.start + span.bytes - 1}) {
      if (auto b = dram.block_at(at)) uses[b->phys] |= use;
    }
  });
  return uses;
}

CapturedResult outcome(const Device& device, RunStatus status, const Stats& stats_before) {
  CapturedResult r;
  r.status = status;
  r.kind = status == RunStatus::kOk ? ErrorKind::kNone : device.last_error_kind();
  r.error = status == RunStatus::kOk ? "" : device.last_error();
  r.stats = stats_delta(device.stats(), stats_before);
  r.tokens_after = device.tokens();
  return r;
}

std::string program_name() {
  std::string name = program_invocation_short_name;
  for (char& ch : name) {
    if (ch == '/' || ch == ' ') ch = '_';
  }
  return name.empty() ? "vta" : name;
}

std::atomic<uint64_t> g_sequence{0};

class CapturingDevice final : public ForwardingDevice {
 public:
  CapturingDevice(std::unique_ptr<Device> inner, Dram& dram, std::string dir)
      : ForwardingDevice(std::move(inner)), dram_(dram), dir_(std::move(dir)) {}

  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget) override {
    Capture capture = capture_before(inner(), dram_, insn_addr, count, budget);
    capture.device_run = runs_++;
    const Stats before = inner().stats();
    const RunStatus status = inner().run(insn_addr, count, budget);
    try {
      capture_after(capture, inner(), dram_, status, before);
      std::filesystem::create_directories(dir_);
      char seq[16];
      std::snprintf(seq, sizeof seq, "%06llu", static_cast<unsigned long long>(capture.sequence));
      const std::string path = dir_ + "/" + capture.program + "-" + std::to_string(::getpid()) + "-" + seq + ".vtacap";
      capture.save(path);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "vta capture: run not captured: %s\n", e.what());
    }
    return status;
  }

 private:
  Dram& dram_;
  std::string dir_;
  uint64_t runs_ = 0;
};

json blob_ref(std::string& blobs, const std::vector<uint8_t>& bytes) {
  json j = {{"offset", blobs.size()},
            {"bytes", bytes.size()},
            {"fnv1a64", hex64(fnv1a64(std::span<const uint8_t>(bytes.data(), bytes.size())))}};
  blobs.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return j;
}

std::vector<uint8_t> read_blob(const json& ref, const std::string& bytes, size_t blobs_start, const std::string& what) {
  const uint64_t offset = json_field<uint64_t>(ref, "offset");
  const uint64_t n = json_field<uint64_t>(ref, "bytes");
  const uint64_t have = bytes.size() - blobs_start;
  if (offset > have || n > have - offset) {
    throw CaptureError(what + " lies past the end of the file (offset " + std::to_string(offset) + ", " +
                       std::to_string(n) + " bytes, " + std::to_string(have) + " bytes of data): truncated?");
  }
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data() + blobs_start + offset);
  std::vector<uint8_t> out(p, p + n);
  const std::string sum = hex64(fnv1a64(std::span<const uint8_t>(out.data(), out.size())));
  if (const std::string said = json_field<std::string>(ref, "fnv1a64"); sum != said) {
    throw CaptureError(what + " is corrupted (checksum " + sum + ", the header says " + said + ")");
  }
  return out;
}

void compare_region(const CapturedRegion& r, const std::vector<uint8_t>& expected, const uint8_t* got,
                    std::vector<std::string>& differences) {
  size_t first = expected.size(), count = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (expected[i] != got[i]) {
      if (count++ == 0) first = i;
    }
  }
  if (count == 0) return;
  std::ostringstream s;
  s << "memory at 0x" << std::hex << r.phys << std::dec << " (" << r.uses_text() << ", " << expected.size()
    << " bytes): " << count << " bytes differ, the first at offset " << first << " (0x" << std::hex << r.phys + first
    << "): captured 0x" << int(expected[first]) << ", replay 0x" << int(got[first]) << ")";
  differences.push_back(s.str());
}

// Leaves `tokens` in the device's queues, as earlier runs left them for the captured one: a run of
// NOPs that push them (one more on the queues FINISH pops, so that it waits for the pushing stage),
// from a buffer freed again before the captured run (its bounds must not change any DRAM check).
void seed_tokens(Device& device, Dram& dram, const TokenCounts& tokens) {
  for (const uint64_t n : {tokens.l2g, tokens.g2l, tokens.g2s, tokens.s2g}) {
    if (n >= isa::kTokenQueueCapacity)
      throw CaptureError("cannot recreate " + std::to_string(n) + " tokens in one queue");
  }
  const Isa isa(device.config());
  std::vector<RawInsn> insns;
  auto nop = [&](Stage stage, uint64_t count, bool push_prev) {
    MemInsn m;
    m.memory_type = uint8_t(stage == Stage::kLoad ? MemId::kInp : MemId::kUop);
    if (stage == Stage::kStore) m.opcode = uint8_t(Opcode::kStore);
    (push_prev ? m.deps.push_prev : m.deps.push_next) = true;
    for (uint64_t i = 0; i < count; ++i) insns.push_back(isa.encode(m));
  };
  nop(Stage::kLoad, tokens.l2g == 0 ? 0 : tokens.l2g + 1, false);
  nop(Stage::kStore, tokens.s2g == 0 ? 0 : tokens.s2g + 1, true);
  nop(Stage::kCompute, tokens.g2l, true);
  nop(Stage::kCompute, tokens.g2s, false);
  GemmInsn fin;
  fin.opcode = uint8_t(Opcode::kFinish);
  fin.deps.pop_prev = tokens.l2g != 0;
  fin.deps.pop_next = tokens.s2g != 0;
  insns.push_back(isa.encode(fin));
  void* host = dram.alloc(insns.size() * Config::kInsnElemBytes);
  if (host == nullptr) throw CaptureError("no room for the token preamble in the replay's memory");
  store_insns(host, insns);
  const RunStatus status = device.run(dram.phys_addr(host), uint32_t(insns.size()), 0);
  dram.free(host);
  if (status != RunStatus::kOk) {
    throw CaptureError("recreating the tokens the captured run started with failed:\n" + device.last_error());
  }
  if (device.tokens() != tokens) {
    throw CaptureError("recreating the tokens the captured run started with left " + device.tokens().to_string() +
                       " instead of " + tokens.to_string());
  }
}

}  // namespace

std::string CapturedRegion::uses_text() const {
  std::string s;
  for (const auto& [bit, name] : kUseNames) {
    if ((uses & bit) == 0) continue;
    if (!s.empty()) s += ',';
    s += name;
  }
  return s;
}

Config Capture::config() const { return Config::from_json_text(config_json, "the capture's configuration"); }

std::string Capture::config_hash() const { return hex64(fnv1a64(config_json)); }

const CapturedRegion* Capture::region_at(PhysAddr phys, uint64_t bytes) const {
  for (const auto& r : regions) {
    if (phys >= r.phys && phys - r.phys <= r.before.size() && bytes <= r.before.size() - (phys - r.phys)) return &r;
  }
  return nullptr;
}

std::vector<RawInsn> Capture::instructions() const {
  std::vector<RawInsn> insns;
  // (at least one instruction: a region that ends where the stream starts is not it)
  const CapturedRegion* r = region_at(insn_addr, Config::kInsnElemBytes);
  if (r == nullptr) return insns;
  const uint64_t available = (r->before.size() - (insn_addr - r->phys)) / Config::kInsnElemBytes;
  const uint64_t n = std::min<uint64_t>(insn_count, available);
  for (uint64_t i = 0; i < n; ++i) {
    insns.push_back(load_insn(r->before.data() + (insn_addr - r->phys) + i * Config::kInsnElemBytes));
  }
  return insns;
}

std::string Capture::to_bytes() const {
  std::string blobs;
  json regs = json::array();
  for (const auto& r : regions) {
    json j = {
        {"phys", r.phys}, {"size", r.before.size()}, {"uses", r.uses_text()}, {"before", blob_ref(blobs, r.before)}};
    if (r.after) j["after"] = blob_ref(blobs, *r.after);
    regs.push_back(std::move(j));
  }
  json header = {
      {"format", "vta-capture"},
      {"version", kVersion},
      {"config", json::parse(config_json)},
      {"config_hash", config_hash()},
      {"target", target},
      {"program", program},
      {"sequence", sequence},
      {"device_run", device_run},
      {"insn_addr", insn_addr},
      {"insn_count", insn_count},
      {"budget", budget},
      {"tokens_before", tokens_json(tokens_before)},
      {"regions", std::move(regs)},
      {"result",
       {{"status", status_name(result.status)},
        {"error_kind", to_string(result.kind)},
        {"error", result.error},
        {"stats", stats_json(result.stats)},
        {"tokens_after", tokens_json(result.tokens_after)}}},
  };
  std::string out(kMagic);
  out += header.dump();
  out += '\n';
  out += blobs;
  return out;
}

Capture Capture::from_bytes(const std::string& bytes, const std::string& origin) {
  auto fail = [&](const std::string& what) -> CaptureError { return CaptureError(origin + ": " + what); };
  if (bytes.compare(0, kMagic.size(), kMagic) != 0) {
    throw fail("not a VTA capture file (it does not start with \"VTACAP1\")");
  }
  const size_t eol = bytes.find('\n', kMagic.size());
  if (eol == std::string::npos) throw fail("the header line is not terminated: truncated?");
  Capture c;
  try {
    const json h = json::parse(bytes.begin() + long(kMagic.size()), bytes.begin() + long(eol));
    if (json_member(h, "format") != "vta-capture") throw fail("format is not \"vta-capture\"");
    if (json_field<int>(h, "version") != kVersion) {
      throw fail("capture format version " + h.at("version").dump() + ", this build reads version " +
                 std::to_string(kVersion));
    }
    c.config_json = json_member(h, "config", JsonKind::kObject).dump();
    try {  // re-serialised the way the writer did, for the hash
      c.config_json = Config::from_json_text(c.config_json).to_json_text();
    } catch (const std::exception& e) {
      throw fail(std::string("its configuration is invalid: ") + e.what());
    }
    if (const std::string hash = json_field<std::string>(h, "config_hash"); c.config_hash() != hash) {
      throw fail("the configuration does not match its hash " + hash);
    }
    c.target = json_field<std::string>(h, "target");
    c.program = json_field<std::string>(h, "program");
    c.sequence = json_field<uint64_t>(h, "sequence");
    c.device_run = json_field<uint64_t>(h, "device_run");
    c.insn_addr = json_field<uint64_t>(h, "insn_addr");
    c.insn_count = json_field<uint32_t>(h, "insn_count");
    c.budget = json_field<uint64_t>(h, "budget");
    c.tokens_before = parse_tokens(json_member(h, "tokens_before", JsonKind::kObject));
    const size_t blobs_start = eol + 1;
    for (const json& r : json_member(h, "regions", JsonKind::kArray)) {
      CapturedRegion region;
      region.phys = json_field<uint64_t>(r, "phys");
      const std::string uses = json_field<std::string>(r, "uses");
      std::stringstream list(uses);
      for (std::string name; std::getline(list, name, ',');) {
        unsigned bit = 0;
        for (const auto& [b, n] : kUseNames) bit = name == n ? b : bit;
        if (bit == 0) throw fail("region at " + std::to_string(region.phys) + ": unknown use \"" + name + "\"");
        region.uses |= bit;
      }
      const std::string what = "region at 0x" + hex64(region.phys);
      region.before = read_blob(json_member(r, "before"), bytes, blobs_start, what + " (before)");
      if (region.before.size() != json_field<uint64_t>(r, "size")) throw fail(what + ": size does not match its data");
      if (r.contains("after")) {
        region.after = read_blob(json_member(r, "after"), bytes, blobs_start, what + " (after)");
        if (region.after->size() != region.before.size()) throw fail(what + ": before and after differ in size");
      }
      c.regions.push_back(std::move(region));
    }
    const json& res = json_member(h, "result", JsonKind::kObject);
    c.result.status = parse_status(json_field<std::string>(res, "status"));
    c.result.kind = parse_kind(json_field<std::string>(res, "error_kind"));
    c.result.error = json_field<std::string>(res, "error");
    c.result.stats = parse_stats(json_member(res, "stats", JsonKind::kObject));
    c.result.tokens_after = parse_tokens(json_member(res, "tokens_after", JsonKind::kObject));
  } catch (const CaptureError& e) {
    if (std::string_view(e.what()).starts_with(origin)) throw;
    throw fail(e.what());
  } catch (const json::exception& e) {
    throw fail(std::string("malformed header: ") + e.what());
  } catch (const std::invalid_argument& e) {  // a field of the wrong type or range, by name
    throw fail(std::string("header: ") + e.what());
  }
  return c;
}

void Capture::save(const std::string& path) const { write_file(path, to_bytes()); }  // (whole or absent)

// A capture holds the memory regions of its run: up to the 4 GiB of a 32-bit physical space.
constexpr uint64_t kMaxCaptureFileBytes = uint64_t{1} << 32;

Capture Capture::load(const std::string& path) {
  return from_bytes(read_file_as<CaptureError>(path, kMaxCaptureFileBytes), path);
}

Capture capture_before(const Device& device, const Dram& dram, PhysAddr insn_addr, uint32_t count, uint64_t budget) {
  Capture c;
  c.config_json = device.config().to_json_text();
  c.target = std::string(device.target());
  c.program = program_name();
  c.sequence = g_sequence.fetch_add(1);
  c.insn_addr = insn_addr;
  c.insn_count = count;
  c.budget = budget;
  c.tokens_before = device.tokens();
  const Isa isa(device.config());
  for (const auto& [phys, uses] : scan_regions(isa, dram, insn_addr, count)) {
    const auto block = dram.block_at(phys);
    const uint8_t* host = dram.translate(block->phys, block->size);
    CapturedRegion r;
    r.phys = block->phys;
    r.uses = uses;
    r.before.assign(host, host + block->size);
    c.regions.push_back(std::move(r));
  }
  return c;
}

void capture_after(Capture& c, const Device& device, const Dram& dram, RunStatus status, const Stats& stats_before) {
  c.result = outcome(device, status, stats_before);
  for (auto& r : c.regions) {
    if (!r.written()) continue;
    const uint8_t* host = dram.translate(r.phys, r.before.size());
    if (host != nullptr) r.after.emplace(host, host + r.before.size());
  }
}

std::unique_ptr<Device> make_capturing_device(std::unique_ptr<Device> inner, Dram& dram, std::string dir) {
  return std::make_unique<CapturingDevice>(std::move(inner), dram, std::move(dir));
}

ReplayResult replay(const Capture& capture, const ReplayOptions& options) {
  ReplayResult out;
  Dram dram;
  std::vector<void*> blocks;
  struct Free {
    Dram& d;
    std::vector<void*>& b;
    ~Free() {
      for (void* p : b) d.free(p);
    }
  } free_all{dram, blocks};
  for (const auto& r : capture.regions) {
    void* host = dram.alloc_at(r.phys, r.before.size());
    if (host == nullptr) {
      std::string why = "it lies outside the physical address space, or does not start on a page boundary";
      for (const auto& other : capture.regions) {
        if (&other == &r) break;
        const uint64_t page = Dram::kPageBytes;
        const uint64_t a0 = r.phys / page, a1 = (r.phys + r.before.size() + page - 1) / page;
        const uint64_t b0 = other.phys / page, b1 = (other.phys + other.before.size() + page - 1) / page;
        if (a0 < b1 && b0 < a1) why = "its pages overlap the region at 0x" + hex64(other.phys);
      }
      throw CaptureError("cannot place the region at 0x" + hex64(r.phys) + " (" + std::to_string(r.before.size()) +
                         " bytes) in a fresh memory: " + why);
    }
    blocks.push_back(host);
    std::memcpy(host, r.before.data(), r.before.size());
  }
  DeviceOptions o;
  o.dram = &dram;
  o.clocked = options.clocked;
  auto device = options.make_device ? options.make_device(capture.config(), dram)
                                    : make_device(options.target, capture.config(), o);
  if (capture.tokens_before != TokenCounts{}) seed_tokens(*device, dram, capture.tokens_before);
  const Stats before = device->stats();
  const RunStatus status =
      device->run(capture.insn_addr, capture.insn_count, options.budget != 0 ? options.budget : capture.budget);
  out.result = outcome(*device, status, before);

  auto& diff = out.differences;
  const CapturedResult& want = capture.result;
  if (out.result.status != want.status || out.result.kind != want.kind) {
    diff.push_back(std::string("outcome: captured ") + status_name(want.status) + " [" + to_string(want.kind) +
                   "], replay " + status_name(out.result.status) + " [" + to_string(out.result.kind) + "]" +
                   (out.result.error.empty() ? "" : ":\n" + out.result.error));
  }
  for (const auto& f : kStatFields) {
    const uint64_t a = want.stats.*f.member, b = out.result.stats.*f.member;
    if (a != b)
      diff.push_back(std::string(f.name) + ": captured " + std::to_string(a) + ", replay " + std::to_string(b));
  }
  if (want.stats.acc_load_dram_nbytes && out.result.stats.acc_load_dram_nbytes &&
      *want.stats.acc_load_dram_nbytes != *out.result.stats.acc_load_dram_nbytes) {
    diff.push_back("acc_load_dram_nbytes: captured " + std::to_string(*want.stats.acc_load_dram_nbytes) + ", replay " +
                   std::to_string(*out.result.stats.acc_load_dram_nbytes));
  }
  if (options.compare_cycles && want.stats.cycle_count && out.result.stats.cycle_count &&
      *want.stats.cycle_count != *out.result.stats.cycle_count) {
    const std::string text = "cycle_count: captured " + std::to_string(*want.stats.cycle_count) + ", replay " +
                             std::to_string(*out.result.stats.cycle_count);
    if (capture.device_run == 0) {
      diff.push_back(text);
    } else {  // state earlier runs left in the pipeline (besides tokens) is not part of a capture
      out.warnings.push_back(text + " (the captured run was run " + std::to_string(capture.device_run + 1) +
                             " of its device: the pipeline state earlier runs left is not captured)");
    }
  }
  if (out.result.tokens_after != want.tokens_after && capture.tokens_before == TokenCounts{}) {
    diff.push_back("tokens left in the queues: captured " + want.tokens_after.to_string() + ", replay " +
                   out.result.tokens_after.to_string());
  }
  // Written regions must hold what they held after the captured run; the others must be unchanged.
  for (const auto& r : capture.regions) {
    const uint8_t* host = dram.translate(r.phys, r.before.size());
    compare_region(r, r.after ? *r.after : r.before, host, diff);
  }
  return out;
}

}  // namespace vta
