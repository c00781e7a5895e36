// The simulation controller: clocks the Verilated vta_top and its extensions (the DRAM model on the
// AXI4 port, the waveform tracer), drives the AXI4-Lite host port, runs programs with a cycle budget
// and turns the error and status registers into a diagnostic.

#include <verilated.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "Vvta_top.h"
#include "axi_dram.h"
#include "host_port.h"
#include "vta/build_config.h"
#include "vta/isa.h"
#include "vta/program.h"
#include "vta/rtl_assert.h"
#include "vta/tsim.h"
#include "vta/vcr_map.h"
#include "wave.h"

namespace vta::tsim {
namespace {

constexpr uint64_t kHostTimeout = 1000;  // cycles an AXI4-Lite transaction may take
static_assert(vcr::field("TOKENS_L2G").width == isa::kTokenCountBits, "TOKENS holds whole token counters");

uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  const unsigned long long x = std::strtoull(v, &end, 0);
  if (errno != 0 || end == v || *end != '\0' || v[0] == '-') {
    throw std::invalid_argument(std::string(name) + "=\"" + v + "\" is not a non-negative integer");
  }
  return x;
}

uint32_t env_u32(const char* name, uint32_t fallback) {
  const uint64_t x = env_u64(name, fallback);
  if (x > UINT32_MAX) throw std::invalid_argument(std::string(name) + " is larger than 2^32-1");
  return uint32_t(x);
}

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

std::mutex g_speed_mu;
SpeedTotals g_speed;

}  // namespace

SpeedTotals speed_totals() {
  std::lock_guard lock(g_speed_mu);
  return g_speed;
}

void Simulator::Options::validate() const {
  auto range = [](const char* what, uint64_t v, uint64_t lo, uint64_t hi, const char* why) {
    if (v < lo || v > hi) {
      throw std::invalid_argument(std::string(what) + " = " + std::to_string(v) + " is outside [" + std::to_string(lo) +
                                  ", " + std::to_string(hi) + "]: " + why);
    }
  };
  range("VTA_TSIM_READ_LATENCY", dram.read_latency, 0, kMaxLatency,
        "a DRAM latency beyond that would only make runs end at their cycle budget");
  range("VTA_TSIM_WRITE_LATENCY", dram.write_latency, 0, kMaxLatency,
        "a DRAM latency beyond that would only make runs end at their cycle budget");
  range("VTA_TSIM_CYCLE_BUDGET", default_budget, 1, kMaxBudget, "a run needs at least one cycle");
  range("VTA_TSIM_WATCHDOG", watchdog, kMinWatchdog, UINT32_MAX,
        "fewer idle cycles are normal between instructions, and 0 (off) would let a deadlock run to the cycle budget");
  if (dram.max_reads == 0 || dram.max_writes == 0) {
    throw std::invalid_argument("tsim: the DRAM model must accept at least one read and one write request");
  }
}

Simulator::Options Simulator::Options::from_env() {
  Options o;
  o.dram.read_latency = env_u32("VTA_TSIM_READ_LATENCY", o.dram.read_latency);
  o.dram.write_latency = env_u32("VTA_TSIM_WRITE_LATENCY", o.dram.write_latency);
  o.default_budget = env_u64("VTA_TSIM_CYCLE_BUDGET", o.default_budget);
  o.watchdog = env_u32("VTA_TSIM_WATCHDOG", o.watchdog);
  o.profile = env_u32("VTA_TSIM_PROFILE", 0) != 0;
  if (const char* w = std::getenv("VTA_WAVE"); w != nullptr && *w != '\0') {
    WaveOptions wave;
    wave.path = w;
    wave.start = env_u64("VTA_WAVE_START", 0);
    wave.stop = env_u64("VTA_WAVE_STOP", UINT64_MAX);
    wave.depth = int(env_u32("VTA_WAVE_DEPTH", 0));  // refused unless 0: see WaveOptions::depth
    o.wave = wave;
  }
  o.validate();
  return o;
}

struct Simulator::Impl {
  explicit Impl(const Options& o)
      : options(o),
        ctx(std::make_unique<VerilatedContext>()),
        top((ctx->traceEverOn(true), Verilated::threadContextp(ctx.get()),
             std::make_unique<Vvta_top>(ctx.get(), "TOP"))),
        memory(o.dram_memory != nullptr ? *o.dram_memory : Dram::global()),
        isa(build_config()),
        dram(memory, o.dram, unsigned(build_config().bus_width() / 8), o.dram_fault, o.dram_fault_cycle) {
    // Settle the model once before anything (a waveform's first dump needs an evaluated model).
    top->clk_i = 0;
    top->rst_ni = 0;
    top->eval();
    attach();
  }

  ~Impl() {
    // A model with scopes (assertions) registers them with the thread's current context when built
    // and removes them from it when destroyed: make that context this model's own both times.
    Verilated::threadContextp(ctx.get());
    wave.reset();
    top->final();
    top.reset();
  }

  /// One clock cycle: settle the inputs set after the previous edge, let the extensions see this
  /// cycle's handshakes, then the rising edge, then the extensions drive the next cycle's inputs.
  void step() {
    const rtl::AssertionLog::Scope scope(asserts);
    top->clk_i = 0;
    top->eval();
    for (Extension* e : extensions) e->before_edge(*top, cycle);
    top->clk_i = 1;
    top->eval();
    for (Extension* e : extensions) e->after_edge(*top, cycle);
    ++cycle;
  }

  void reset() {
    top->rst_ni = 0;
    for (Extension* e : extensions) e->reset(*top, cycle);
    step();
    step();
    top->rst_ni = 1;
    step();
  }

  /// The per-cycle parts in order: the waveform (it records this cycle before the others drive the
  /// next one), the DRAM model, the host port.
  void attach() {
    extensions.clear();
    if (wave) extensions.push_back(wave.get());
    extensions.push_back(&dram);
    extensions.push_back(&host);
  }

  /// Clocks until the host port's transaction is complete (bounded).
  void host_transaction(const char* what, uint32_t offset) {
    for (uint64_t i = 0; i < kHostTimeout; ++i) {
      step();
      if (host.idle()) return;
    }
    throw std::runtime_error(std::string("tsim: AXI4-Lite ") + what + " " + hex(offset) + " was not answered within " +
                             std::to_string(kHostTimeout) + " cycles");
  }

  Options options;
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Vvta_top> top;
  Dram& memory;
  Isa isa;
  AxiDram dram;
  std::unique_ptr<WaveTracer> wave;
  HostPort host;
  std::vector<Extension*> extensions;  ///< see attach()
  uint64_t cycle = 0;
  rtl::AssertionLog asserts;  ///< the RTL's assertions that failed since the last check
};

bool Simulator::has_assertions() { return VTA_TSIM_ASSERTIONS != 0; }

Simulator::Simulator(Options options) : impl_((options.validate(), std::make_unique<Impl>(options))) {
  if (options.wave) start_wave(*options.wave);
  impl_->reset();
  write_reg(vcr::kWatchdog, options.watchdog);
}

Simulator::~Simulator() = default;

uint64_t Simulator::cycle() const { return impl_->cycle; }
const PortCounters& Simulator::port_counters() const { return impl_->dram.counters(); }

void Simulator::start_wave(const WaveOptions& wave) {
  impl_->wave.reset();
  impl_->attach();
  impl_->wave = std::make_unique<WaveTracer>(*impl_->top, wave, build_config());
  impl_->attach();
}

void Simulator::stop_wave() {
  if (impl_->wave) impl_->wave->close();
  impl_->wave.reset();
  impl_->attach();
}

void Simulator::write_reg(uint32_t offset, uint32_t value) {
  impl_->host.start_write(*impl_->top, offset, value);
  impl_->host_transaction("write to", offset);
}

uint32_t Simulator::read_reg(uint32_t offset) {
  impl_->host.start_read(*impl_->top, offset);
  impl_->host_transaction("read of", offset);
  return impl_->host.data();
}

void Simulator::read_stats() {
  // the hardware counters: a {lo, hi} register pair per statistic, in kStatFields order
  for (uint32_t i = 0; i < std::size(kStatFields); ++i) {
    const uint32_t lo = read_reg(vcr::kStatsBase + 8 * i);
    const uint32_t hi = read_reg(vcr::kStatsBase + 8 * i + 4);
    stats_.*kStatFields[i].member = base_.*kStatFields[i].member + (uint64_t(hi) << 32 | lo);
  }
}

void Simulator::clear_stats() {
  write_reg(vcr::kCtrl, vcr::bit("CTRL_CLEAR_STATS"));
  base_ = {};
  stats_ = {};
  stats_.cycle_count = 0;
}

TokenCounts Simulator::tokens() {
  const uint32_t t = read_reg(vcr::kTokens);
  return {vcr::extract(t, vcr::field("TOKENS_L2G")), vcr::extract(t, vcr::field("TOKENS_G2L")),
          vcr::extract(t, vcr::field("TOKENS_G2S")), vcr::extract(t, vcr::field("TOKENS_S2G"))};
}

void Simulator::reset() {
  // The hardware counters restart from zero: keep what they counted.
  base_ = stats_;
  impl_->reset();
  write_reg(vcr::kWatchdog, impl_->options.watchdog);
}

RunStatus Simulator::run(PhysAddr insn_addr, uint32_t count, uint64_t budget) {
  last_error_.clear();
  last_error_kind_ = ErrorKind::kNone;
  if (budget == 0) budget = impl_->options.default_budget;
  const Stats before = stats_;
  // One program, one verdict: what the fsim refuses before running, the tsim refuses before
  // starting, with the same diagnostic (the RTL's own checks stay as a second line of defence).
  if (impl_->options.host_validation) {
    try {
      validate_program(impl_->isa, impl_->memory, insn_addr, count);
    } catch (const RunError& e) {
      return fail(e.status, e.kind, format_run_error("tsim", e) + "  tokens: " + tokens().to_string() + "\n", before);
    }
  }
  write_reg(vcr::kInsnCount, count);
  write_reg(vcr::kInsnAddr, uint32_t(insn_addr));
  write_reg(vcr::kCtrl, vcr::bit("CTRL_LAUNCH"));
  auto& t = *impl_->top;
  const uint64_t start = impl_->cycle;
  const auto t0 = std::chrono::steady_clock::now();
  auto account = [&] {
    std::lock_guard lock(g_speed_mu);
    g_speed.cycles += impl_->cycle - start;
    g_speed.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  // irq_o is a register output: it is valid after each edge without another eval.
  while (!t.irq_o) {
    if (impl_->cycle - start >= budget) {
      account();
      return fail(RunStatus::kTimeout, ErrorKind::kTimeout,
                  diagnose(RunStatus::kTimeout, ErrorKind::kTimeout,
                           "the run exceeded its cycle budget of " + std::to_string(budget) +
                               " cycles (raise wait_cycles or VTA_TSIM_CYCLE_BUDGET if the program is meant to run "
                               "this long)",
                           insn_addr, count),
                  before);
    }
    impl_->step();
    if (!impl_->asserts.empty()) break;
  }
  account();
  if (!impl_->asserts.empty()) return assertion_failed(before);
  const uint32_t ctrl = read_reg(vcr::kCtrl);
  const uint64_t cycles = uint64_t(read_reg(vcr::kCyclesHi)) << 32 | read_reg(vcr::kCycles);
  if (ctrl & vcr::bit("CTRL_DONE")) {
    // FINISH does not wait for instructions its tokens do not order: one of those may fail after it.
    const uint32_t status = read_reg(vcr::kStatus);
    if (const uint32_t fills = read_reg(vcr::kQueueFill); fills != 0) {
      // as the fsim: FINISH must come last (its tokens must order every other instruction before it)
      const uint32_t left = vcr::extract(fills, vcr::field("QUEUE_FILL_LOAD")) +
                            vcr::extract(fills, vcr::field("QUEUE_FILL_COMPUTE")) +
                            vcr::extract(fills, vcr::field("QUEUE_FILL_STORE"));
      return fail(RunStatus::kError, ErrorKind::kUnfinished,
                  diagnose(RunStatus::kError, ErrorKind::kUnfinished,
                           "FINISH completed while " + std::to_string(left) +
                               " instruction(s) of other modules had not executed; they wait for tokens that are "
                               "never pushed",
                           insn_addr, count),
                  before);
    }
    if (!impl_->asserts.empty()) return assertion_failed(before);
    if (vcr::extract(status, vcr::field("STATUS_ERROR_PENDING")) == 0) {
      stats_.cycle_count = stats_.cycle_count.value_or(0) + cycles;
      read_stats();
      if (impl_->options.profile) print_profile(cycles);
      return RunStatus::kOk;
    }
    const ErrorKind kind = classify(read_reg(vcr::kErrorStatus), insn_addr, count);
    return fail(RunStatus::kError, kind,
                diagnose(RunStatus::kError, kind,
                         "FINISH completed after " + std::to_string(cycles) +
                             " cycles but an instruction it did not wait for failed",
                         insn_addr, count),
                before);
  }
  const ErrorKind kind = classify(read_reg(vcr::kErrorStatus), insn_addr, count);
  return fail(RunStatus::kError, kind,
              diagnose(RunStatus::kError, kind,
                       "the run stopped with an error after " + std::to_string(cycles) + " cycles", insn_addr, count),
              before);
}

ErrorKind Simulator::classify(uint32_t error_status, PhysAddr insn_addr, uint32_t count) const {
  // With host validation off, a program the validator refuses still gets the validator's class when
  // the hardware finds the problem: the class belongs to the program, not to the backend. (With it
  // on, the program already passed.)
  if (!impl_->options.host_validation) {
    try {
      validate_program(impl_->isa, impl_->memory, insn_addr, count);
    } catch (const RunError& e) {
      return e.kind;
    }
  }
  if (error_status & vcr::bit("ERR_DEADLOCK")) return ErrorKind::kDeadlock;
  if (error_status & (vcr::bit("ERR_READ") | vcr::bit("ERR_WRITE") | vcr::bit("ERR_RANGE")))
    return ErrorKind::kBusError;
  // After host validation the compute stage refuses only GEMM/ALU indices past a buffer (the one
  // check that depends on micro-ops loaded during the run); load and store refuse nothing.
  if (error_status & vcr::bit("ERR_COMPUTE")) return ErrorKind::kSramRange;
  if (error_status & (vcr::bit("ERR_LOAD") | vcr::bit("ERR_STORE"))) return ErrorKind::kInvalidInstruction;
  return ErrorKind::kInternal;
}

RunStatus Simulator::assertion_failed(const Stats& before) {
  std::ostringstream d;
  const auto& failures = impl_->asserts.failures();
  d << "vta tsim: error [" << to_string(ErrorKind::kInternal) << "]: RTL assertion " << failures.front().name
    << " failed by cycle " << impl_->cycle << " (a hardware or bus-model bug: please report it)\n";
  for (const auto& f : failures)
    d << "  " << f.to_string() << (f.count > 1 ? ", " + std::to_string(f.count) + " times" : "") << "\n";
  impl_->asserts.clear();
  return fail(RunStatus::kError, ErrorKind::kInternal, d.str(), before);
}

RunStatus Simulator::fail(RunStatus status, ErrorKind kind, std::string diagnostic, const Stats& before) {
  last_error_ = std::move(diagnostic);  // every diagnostic ends its last line
  last_error_kind_ = kind;
  // A failed run counts nothing (as on the fsim): back to the statistics before it, then reset.
  stats_ = before;
  reset();
  return status;
}

void Simulator::print_profile(uint64_t cycles) {
  static const char* kNames[] = {"load", "compute", "store"};
  std::fprintf(stderr, "tsim profile: %llu cycles", static_cast<unsigned long long>(cycles));
  for (uint32_t s = 0; s < 3; ++s) {
    std::fprintf(stderr, "; %s %u insns, busy %u, token stall %u", kNames[s], read_reg(vcr::kLoadInsns + 4 * s),
                 read_reg(vcr::offset("LOAD_BUSY") + 4 * s), read_reg(vcr::offset("LOAD_STALL") + 4 * s));
  }
  std::fprintf(stderr, "\n");
}

std::string Simulator::diagnose(RunStatus status, ErrorKind kind, const std::string& what, PhysAddr insn_addr,
                                uint32_t count) {
  std::ostringstream d;
  d << "vta tsim: " << (status == RunStatus::kTimeout ? "timeout" : "error") << " [" << to_string(kind) << "]: " << what
    << "\n";
  const uint32_t err = read_reg(vcr::kErrorStatus);
  if (err != 0) {
    d << "  error status 0x" << std::hex << err << std::dec << " (";
    bool first = true;
    for (const auto& b : vcr::kBits) {
      if (b.name.substr(0, 4) == "ERR_" && (err >> b.index & 1u)) {
        d << (first ? "" : ", ") << b.doc.substr(b.doc.find(':') + 2);
        first = false;
      }
    }
    d << ")";
    if (err & (vcr::bit("ERR_READ") | vcr::bit("ERR_WRITE") | vcr::bit("ERR_RANGE"))) {
      const auto client = vcr::MemClient(vcr::extract(read_reg(vcr::kErrorInfo), vcr::field("ERROR_INFO_CLIENT")));
      d << "; memory client: " << vcr::to_string(client);
    }
    d << "\n";
  }
  const uint32_t status_reg = read_reg(vcr::kStatus), fills = read_reg(vcr::kQueueFill);
  const uint32_t busy_flags = vcr::extract(status_reg, vcr::field("STATUS_BUSY"));  // {fetch, store, compute, load}
  d << "  tokens: " << tokens().to_string() << "; fetch " << ((busy_flags >> 3) & 1 ? "busy" : "done")
    << (vcr::extract(status_reg, vcr::field("STATUS_MEM_BUSY")) ? ", memory engine busy" : ", memory engine idle")
    << "\n";

  // Which instruction each stage holds: the stage's n-th instruction of the stream, read from this
  // simulator's own memory.
  const uint8_t* stream = impl_->memory.translate(insn_addr, size_t(count) * Config::kInsnElemBytes);
  const Stage kStages[] = {Stage::kLoad, Stage::kCompute, Stage::kStore};
  const vcr::Field kFills[] = {vcr::field("QUEUE_FILL_LOAD"), vcr::field("QUEUE_FILL_COMPUTE"),
                               vcr::field("QUEUE_FILL_STORE")};
  for (int s = 0; s < 3; ++s) {
    const uint32_t started = read_reg(vcr::kLoadInsns + 4 * uint32_t(s));
    const bool busy = (busy_flags >> s) & 1;
    const uint32_t fill = vcr::extract(fills, kFills[s]);
    const bool failed = (err >> s) & 1;
    d << "  " << to_string(kStages[s]) << ": ";
    uint32_t nth;  // 1-based position of the instruction of interest in this stage's order
    if (failed) {
      d << "refused";
      nth = started;
    } else if (busy) {
      d << "executing";
      nth = started;
    } else if (fill > 0) {
      d << "waiting for a token with";
      nth = started + 1;
    } else {
      d << "idle after " << started << " instructions\n";
      continue;
    }
    uint32_t seen = 0;
    bool found = false;
    for (uint32_t i = 0; stream != nullptr && i < count && !found; ++i) {
      const RawInsn raw = load_insn(stream + size_t(i) * Config::kInsnElemBytes);
      if (stage_of(raw) != kStages[s] || ++seen != nth) continue;
      d << " instruction " << i << " (" << impl_->isa.disassemble(raw) << ")";
      found = true;
    }
    if (!found) d << " its instruction " << nth;
    d << ", " << fill << " queued\n";
  }
  return d.str();
}

}  // namespace vta::tsim
