// The run controller: a program through the control registers, the statistics, the diagnostics.

#include "vta/driver/run_control.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include "vta/driver/interrupt.h"
#include "vta/driver/program.h"
#include "vta/driver/vcr_map.h"

namespace vta {

namespace {
// The speed totals: every run of every controller of the process.
std::mutex g_speed_mu;
SpeedTotals g_speed;

// Cycles the accelerator runs between two looks at signals and the clock (about 0.1 s of tsim time).
constexpr uint64_t kSlice = 65536;
// A run shows progress once it has taken this long, then every kProgressEvery.
constexpr auto kProgressAfter = std::chrono::seconds(2);
constexpr auto kProgressEvery = std::chrono::milliseconds(500);

bool progress_wanted() {
  const char* quiet = std::getenv("VTA_QUIET");
  return ::isatty(STDERR_FILENO) == 1 && (quiet == nullptr || *quiet == '\0' || std::string_view(quiet) == "0");
}
}  // namespace

SpeedTotals speed_totals() {
  std::lock_guard lock(g_speed_mu);
  return g_speed;
}

RunControl::RunControl(RegisterBus& bus, Dram& memory, const Config& config, RunControlOptions options)
    : bus_(bus), memory_(memory), isa_(config), options_(options) {}

void RunControl::reset() {
  bus_.reset_design();
  bus_.write_reg(vcr::kWatchdog, options_.watchdog);
}

void RunControl::read_stats() {
  // the hardware counters: a {lo, hi} register pair per statistic, in kStatFields order
  for (uint32_t i = 0; i < std::size(kStatFields); ++i) {
    const uint32_t lo = bus_.read_reg(vcr::kStatsBase + 8 * i);
    const uint32_t hi = bus_.read_reg(vcr::kStatsBase + 8 * i + 4);
    stats_.*kStatFields[i].member = base_.*kStatFields[i].member + (uint64_t(hi) << 32 | lo);
  }
}

void RunControl::clear_stats() {
  bus_.write_reg(vcr::kCtrl, vcr::bit("CTRL_CLEAR_STATS"));
  base_ = {};
  stats_ = {};
  stats_.cycle_count = 0;
}

TokenCounts RunControl::tokens() {
  const uint32_t t = bus_.read_reg(vcr::kTokens);
  return {vcr::extract(t, vcr::field("TOKENS_L2G")), vcr::extract(t, vcr::field("TOKENS_G2L")),
          vcr::extract(t, vcr::field("TOKENS_G2S")), vcr::extract(t, vcr::field("TOKENS_S2G"))};
}

RunStatus RunControl::run(PhysAddr insn_addr, uint32_t count, uint64_t budget) {
  last_error_.clear();
  last_error_kind_ = ErrorKind::kNone;
  if (budget == 0) budget = options_.default_budget;
  const Stats before = stats_;
  // One program, one verdict: what the fsim refuses before running, the tsim refuses before
  // starting, with the same diagnostic (the RTL's own checks stay as a second line of defence).
  if (options_.host_validation) {
    try {
      validate_program(isa_, memory_, insn_addr, count);
    } catch (const RunError& e) {
      return fail(e.status, e.kind, format_run_error(options_.name, e) + "  tokens: " + tokens().to_string() + "\n",
                  before);
    }
  }
  // names for the instruction signals of any waveform being written
  bus_.on_program(isa_, memory_.translate(insn_addr, uint64_t(count) * Config::kInsnElemBytes), count);
  if (options_.shared) {
    bus_.write_reg(vcr::kCtrl, vcr::bit("CTRL_CLEAR_STATS"));
    base_ = stats_;
  }
  bus_.write_reg(vcr::kInsnCount, count);
  bus_.write_reg(vcr::kInsnAddr, uint32_t(insn_addr));
  bus_.write_reg(vcr::kCtrl, vcr::bit("CTRL_LAUNCH"));
  const uint64_t start = bus_.cycles();
  const auto t0 = std::chrono::steady_clock::now();
  int interrupted = 0;
  const bool done = wait_done(budget, count, interrupted);
  {
    std::lock_guard lock(g_speed_mu);
    g_speed.cycles += bus_.cycles() - start;
    g_speed.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  if (bus_.faulted()) return assertion_failed(before);
  if (interrupted != 0) {
    const std::string wave = bus_.close_waveform();
    return fail(RunStatus::kError, ErrorKind::kInterrupted,
                diagnose(RunStatus::kError, ErrorKind::kInterrupted,
                         std::string("interrupted by ") + (interrupted == SIGINT ? "SIGINT" : "SIGTERM") + " after " +
                             std::to_string(bus_.cycles() - start) + " cycles" +
                             (wave.empty() ? "" : "; the waveform " + wave + " is complete up to here"),
                         insn_addr, count),
                before);
  }
  if (!done) {
    return fail(RunStatus::kTimeout, ErrorKind::kTimeout,
                diagnose(RunStatus::kTimeout, ErrorKind::kTimeout,
                         "the run exceeded its cycle budget of " + std::to_string(budget) +
                             " cycles (raise wait_cycles or VTA_TSIM_CYCLE_BUDGET if the program is meant to run "
                             "this long)",
                         insn_addr, count),
                before);
  }
  const uint32_t ctrl = bus_.read_reg(vcr::kCtrl);
  const uint64_t cycles = uint64_t(bus_.read_reg(vcr::kCyclesHi)) << 32 | bus_.read_reg(vcr::kCycles);
  if (ctrl & vcr::bit("CTRL_DONE")) {
    // FINISH does not wait for instructions its tokens do not order: one of those may fail after it.
    const uint32_t status = bus_.read_reg(vcr::kStatus);
    if (const uint32_t fills = bus_.read_reg(vcr::kQueueFill); fills != 0) {
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
    if (bus_.faulted()) return assertion_failed(before);
    if (vcr::extract(status, vcr::field("STATUS_ERROR_PENDING")) == 0) {
      stats_.cycle_count = stats_.cycle_count.value_or(0) + cycles;
      read_stats();
      if (options_.profile) print_profile(cycles);
      return RunStatus::kOk;
    }
    const ErrorKind kind = classify(bus_.read_reg(vcr::kErrorStatus), insn_addr, count);
    return fail(RunStatus::kError, kind,
                diagnose(RunStatus::kError, kind,
                         "FINISH completed after " + std::to_string(cycles) +
                             " cycles but an instruction it did not wait for failed",
                         insn_addr, count),
                before);
  }
  const ErrorKind kind = classify(bus_.read_reg(vcr::kErrorStatus), insn_addr, count);
  return fail(RunStatus::kError, kind,
              diagnose(RunStatus::kError, kind,
                       "the run stopped with an error after " + std::to_string(cycles) + " cycles", insn_addr, count),
              before);
}

bool RunControl::wait_done(uint64_t budget, uint32_t count, int& interrupted) {
  // SIGINT and SIGTERM are recorded while the run is clocked (vta/driver/interrupt.h) and stop it at the
  // next slice; one recorded with the last slice, or just after it, stops it too (it is never lost)
  bool done = false;
  {
    const StopSignals stop_signals;
    done = clock_until_done(budget, count, interrupted);
  }
  if (interrupted == 0) interrupted = stop_signal();
  return done;
}

bool RunControl::clock_until_done(uint64_t budget, uint32_t count, int& interrupted) {
  const bool show = progress_wanted();
  const auto t0 = std::chrono::steady_clock::now();
  auto next_progress = t0 + kProgressAfter;
  bool shown = false;
  const uint64_t start = bus_.cycles();
  bool done = false;
  while (!done) {
    const uint64_t waited = bus_.cycles() - start;
    if (waited >= budget) break;
    done = bus_.wait_irq(std::min(kSlice, budget - waited));
    if (done || bus_.faulted()) break;
    if (const int sig = stop_signal(); sig != 0) {
      interrupted = sig;
      break;
    }
    if (show && std::chrono::steady_clock::now() >= next_progress) {
      const auto now = std::chrono::steady_clock::now();
      next_progress = now + kProgressEvery;
      uint64_t started = 0;  // instructions the three stages have taken on
      for (uint32_t s = 0; s < uint32_t(kStages); ++s) started += bus_.read_reg(vcr::kLoadInsns + 4 * s);
      const double seconds = std::chrono::duration<double>(now - t0).count();
      const uint64_t cycles = bus_.cycles() - start;
      std::fprintf(stderr, "\r%s: %llu cycles, %llu of %u instructions, %.0f cycles/s, %.0f s ", options_.name,
                   static_cast<unsigned long long>(cycles), static_cast<unsigned long long>(started), count,
                   double(cycles) / seconds, seconds);
      shown = true;
    }
  }
  if (shown) std::fprintf(stderr, "\n");
  return done;
}

ErrorKind RunControl::classify(uint32_t error_status, PhysAddr insn_addr, uint32_t count) const {
  // With host validation off, a program the validator refuses still gets the validator's class when
  // the hardware finds the problem: the class belongs to the program, not to the backend. (With it
  // on, the program already passed.)
  if (!options_.host_validation) {
    try {
      validate_program(isa_, memory_, insn_addr, count);
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

RunStatus RunControl::assertion_failed(const Stats& before) {
  std::string d = "vta " + std::string(options_.name) + ": error [" + to_string(ErrorKind::kInternal) + "]: ";
  d += bus_.take_fault();
  return fail(RunStatus::kError, ErrorKind::kInternal, d, before);
}

RunStatus RunControl::fail(RunStatus status, ErrorKind kind, std::string diagnostic, const Stats& before) {
  last_error_ = std::move(diagnostic);  // every diagnostic ends its last line
  last_error_kind_ = kind;
  // A failed run counts nothing (as on the fsim): back to the statistics before it, then reset.
  stats_ = before;
  base_ = stats_;  // the hardware counters restart from zero: keep what they counted
  reset();
  return status;
}

void RunControl::print_profile(uint64_t cycles) {
  std::fprintf(stderr, "tsim profile: %llu cycles", static_cast<unsigned long long>(cycles));
  for (uint32_t s = 0; s < uint32_t(kStages); ++s) {
    std::fprintf(stderr, "; %s %u insns, busy %u, token stall %u", to_string(kStageOrder[s]),
                 bus_.read_reg(vcr::kLoadInsns + 4 * s), bus_.read_reg(vcr::offset("LOAD_BUSY") + 4 * s),
                 bus_.read_reg(vcr::offset("LOAD_STALL") + 4 * s));
  }
  std::fprintf(stderr, "\n");
}

std::string RunControl::diagnose(RunStatus status, ErrorKind kind, const std::string& what, PhysAddr insn_addr,
                                 uint32_t count) {
  std::ostringstream d;
  d << "vta " << options_.name << ": " << (status == RunStatus::kTimeout ? "timeout" : "error") << " ["
    << to_string(kind) << "]: " << what << "\n";
  const uint32_t err = bus_.read_reg(vcr::kErrorStatus);
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
      const auto client = vcr::MemClient(vcr::extract(bus_.read_reg(vcr::kErrorInfo), vcr::field("ERROR_INFO_CLIENT")));
      d << "; memory client: " << vcr::to_string(client);
    }
    d << "\n";
  }
  const uint32_t status_reg = bus_.read_reg(vcr::kStatus), fills = bus_.read_reg(vcr::kQueueFill);
  const uint32_t busy_flags = vcr::extract(status_reg, vcr::field("STATUS_BUSY"));  // {fetch, store, compute, load}
  d << "  tokens: " << tokens().to_string() << "; fetch " << ((busy_flags >> 3) & 1 ? "busy" : "done")
    << (vcr::extract(status_reg, vcr::field("STATUS_MEM_BUSY")) ? ", memory engine busy" : ", memory engine idle")
    << "\n";

  // Which instruction each stage holds: the stage's n-th instruction of the stream, read from this
  // simulator's own memory.
  const uint8_t* stream = memory_.translate(insn_addr, size_t(count) * Config::kInsnElemBytes);
  const vcr::Field kFills[] = {vcr::field("QUEUE_FILL_LOAD"), vcr::field("QUEUE_FILL_COMPUTE"),
                               vcr::field("QUEUE_FILL_STORE")};
  for (int s = 0; s < kStages; ++s) {
    const uint32_t started = bus_.read_reg(vcr::kLoadInsns + 4 * uint32_t(s));
    const bool busy = (busy_flags >> s) & 1;
    const uint32_t fill = vcr::extract(fills, kFills[s]);
    const bool failed = (err >> s) & 1;
    d << "  " << to_string(kStageOrder[s]) << ": ";
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
      if (stage_of(raw) != kStageOrder[s] || ++seen != nth) continue;
      d << " instruction " << i << " (" << isa_.disassemble(raw) << ")";
      found = true;
    }
    if (!found) d << " its instruction " << nth;
    d << ", " << fill << " queued\n";
  }
  return d.str();
}

}  // namespace vta
