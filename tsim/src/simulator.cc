// The simulation controller: clocks the Verilated vta_top and its extensions (the DRAM model on the
// AXI4 port, the waveform tracer), drives the AXI4-Lite host port, runs programs with a cycle budget
// and turns the error and status registers into a diagnostic.

#include "vta/tsim/simulator.h"

#include <verilated.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "Vvta_top.h"
#include "axi_dram.h"
#include "core.h"  // and the model's root: the signals vta_top marks public for the timeline
#include "host_port.h"
#include "vta/driver/build_config.h"
#include "vta/driver/format.h"
#include "vta/driver/isa.h"
#include "vta/driver/program.h"
#include "vta/driver/run_control.h"
#include "vta/driver/vcr_map.h"
#include "vta/hw_config.h"  // (VTA_COMPUTE_ISSUE: which compute stage the model has)
#include "vta/tsim/rtl_assert.h"
#include "wave.h"

namespace vta::tsim {
namespace {

// Records what each stage does, cycle by cycle, from the signals vta_top exposes to the simulator
// (busy, stall, insn_start, mem_activity: hw/rtl/vta_top.sv), as the intervals of a Timeline. The
// compute stage of COMPUTE_ISSUE 2 runs two instructions at once: its slots are read from the stage
// itself (hw/rtl/vta_compute_dual.sv: the dispatch `take` and its slot, each slot's `run_*_q`), the
// GEMMs' on the compute track and what runs beside them on the track of slot 1, as
// estimate_timeline draws them (vta/driver/timeline.h).
class TimelineRecorder final : public Extension {
 public:
  TimelineRecorder(const Isa& isa, const std::vector<RawInsn>& insns, uint64_t start) : start_(start) {
    timeline_.insn_names = instruction_names(isa, insns);
    timeline_.ns_per_cycle = isa.config().clock_period_ns();
    for (size_t i = 0; i < insns.size(); ++i) {
      const Stage s = stage_of(insns[i]);
      const int lane = s == Stage::kLoad ? 0 : s == Stage::kCompute ? 1 : 2;
      lanes_[size_t(lane)].push_back(long(i));
      const uint8_t op = Isa::opcode_of(insns[i]);
      moves_data_.push_back(op == uint8_t(Opcode::kLoad) || op == uint8_t(Opcode::kStore));
    }
  }
  void before_edge(const Vvta_top&, uint64_t) override {}
  void reset(Vvta_top&, uint64_t) override {}
  bool needs_falling_edge() const override { return false; }
  void after_edge(Vvta_top& top, uint64_t cycle) override {
    const auto* r = top.rootp;
    const unsigned busy = r->vta_top__DOT__busy, stall = r->vta_top__DOT__stall;
    const unsigned taken = r->vta_top__DOT__insn_start, mem = r->vta_top__DOT__mem_activity;
    const uint64_t at = cycle - start_;
    for (size_t lane = 0; lane < 3; ++lane) {
#if VTA_COMPUTE_ISSUE == 2
      if (lane == 1) {  // (its instructions counted by the stage's dispatch, not by insn_start)
        compute_slots(*r, stall, mem, at);
        continue;
      }
#endif
      auto& q = lanes_[lane];
      if ((taken >> lane) & 1) ++taken_[lane];
      int state = -1;  // idle
      long insn = -1;
      if ((busy >> lane) & 1) {
        insn = taken_[lane] > 0 && taken_[lane] <= q.size() ? q[taken_[lane] - 1] : -1;
        const bool data = insn >= 0 && moves_data_[size_t(insn)];
        const bool waiting = lane == 2 ? (mem >> 5) & 1 : (mem & kBeats[lane]) == 0;
        state = int(data && waiting ? Activity::kMemory : Activity::kBusy);
      } else if ((stall >> lane) & 1) {
        insn = taken_[lane] < q.size() ? q[taken_[lane]] : -1;
        state = int(Activity::kToken);
      }
      track(lane, state, insn, at);
    }
  }
  Timeline finish(uint64_t cycle) {
    const uint64_t end = cycle - start_;
    for (size_t t = 0; t < kTracks; ++t) close(t, end);
    timeline_.cycles = end;
    std::sort(timeline_.intervals.begin(), timeline_.intervals.end(), [](const auto& a, const auto& b) {
      return a.lane != b.lane ? a.lane < b.lane : a.slot != b.slot ? a.slot < b.slot : a.begin < b.begin;
    });
    return std::move(timeline_);
  }

 private:
  // a data beat for the stage's read clients (load: inp, wgt; compute: uop, acc); the store held up
  static constexpr unsigned kBeats[3] = {0b001100, 0b010010, 0};
  static constexpr size_t kTracks = 4;  ///< the three stages' and the compute stage's second slot (3)

#if VTA_COMPUTE_ISSUE == 2
  // The two slots in the cycle that begins now (each slot's instruction is the one the dispatch last
  // gave it), then the dispatch at the end of this cycle: `take` gives the compute stage's next
  // instruction in program order to slot G (a GEMM), slot A (any other) or to neither (one that runs
  // alone: FINISH, a load of nothing; one cycle on the compute track). The stage's waits for a token
  // are drawn when neither slot runs and the head waits.
  template <class Root>
  void compute_slots(const Root& r, unsigned stall, unsigned mem, uint64_t at) {
    const bool run_g = r.vta_top__DOT__u_core__DOT__u_compute__DOT__run_g_q;
    const bool run_a = r.vta_top__DOT__u_core__DOT__u_compute__DOT__run_a_q;
    int g_state = -1, a_state = -1;
    long g_insn = -1, a_insn = -1;
    if (run_g) g_state = int(Activity::kBusy), g_insn = slot_insn_[0];
    if (run_a) {
      a_insn = slot_insn_[1];
      const bool data = a_insn >= 0 && moves_data_[size_t(a_insn)];
      a_state = int(data && (mem & kBeats[1]) == 0 ? Activity::kMemory : Activity::kBusy);
    }
    const auto& q = lanes_[1];
    if (alone_insn_ >= 0) {
      g_state = int(Activity::kBusy), g_insn = alone_insn_;
      alone_insn_ = -1;
    } else if (!run_g && !run_a &&
               (((stall >> 1) & 1) || (r.vta_top__DOT__u_core__DOT__u_compute__DOT__f2_q &&
                                       !r.vta_top__DOT__u_core__DOT__u_compute__DOT__go))) {
      g_state = int(Activity::kToken), g_insn = dispatched_ < q.size() ? q[dispatched_] : -1;
    }
    track(1, g_state, g_insn, at);
    track(3, a_state, a_insn, at);
    if (r.vta_top__DOT__u_core__DOT__u_compute__DOT__take && dispatched_ < q.size()) {
      const long next = q[dispatched_++];
      if (r.vta_top__DOT__u_core__DOT__u_compute__DOT__to_g) {
        slot_insn_[0] = next;
      } else if (r.vta_top__DOT__u_core__DOT__u_compute__DOT__to_a) {
        slot_insn_[1] = next;
      } else {
        alone_insn_ = next;
      }
    }
  }
  size_t dispatched_ = 0;                  ///< compute instructions the dispatch has given out
  std::array<long, 2> slot_insn_{-1, -1};  ///< each slot's instruction (G, A)
  long alone_insn_ = -1;                   ///< an instruction that runs alone, in the cycle after its dispatch
#endif

  // track `t` (a stage's, or 3: the compute stage's second slot) is in `state` for `insn` from `at` on
  void track(size_t t, int state, long insn, uint64_t at) {
    if (state != open_state_[t] || insn != open_insn_[t]) {
      close(t, at);
      open_state_[t] = state, open_insn_[t] = insn, open_begin_[t] = at;
    }
  }
  void close(size_t t, uint64_t at) {
    if (open_state_[t] >= 0 && at > open_begin_[t]) {
      const int lane = t == 3 ? 1 : int(t);
      timeline_.intervals.push_back(
          {lane, Activity(open_state_[t]), open_begin_[t], at, open_insn_[t], uint8_t(t == 3 ? 1 : 0)});
    }
    open_state_[t] = -1;
  }
  uint64_t start_;
  Timeline timeline_;
  std::array<std::vector<long>, 3> lanes_;  ///< per stage, the stream indices of its instructions
  std::vector<bool> moves_data_;            ///< per instruction: a LOAD or STORE
  std::array<size_t, 3> taken_{};
  std::array<int, kTracks> open_state_{-1, -1, -1, -1};
  std::array<long, kTracks> open_insn_{-1, -1, -1, -1};
  std::array<uint64_t, kTracks> open_begin_{};
};

}  // namespace

namespace {

constexpr uint64_t kHostTimeout = 1000;  // cycles an AXI4-Lite transaction may take
static_assert(vcr::field("TOKENS_L2G").width == isa::kTokenCountBits, "TOKENS holds whole token counters");

}  // namespace

struct Simulator::Impl final : RegisterBus {
  explicit Impl(const Options& o)
      : options(o),
        memory(o.dram_memory != nullptr ? *o.dram_memory : Dram::global()),
        dram_target(memory, o.dram, unsigned(build_config().bus_width() / 8)),
        dram(dram_target, o.dram, unsigned(build_config().bus_width() / 8), o.dram_fault, o.dram_fault_cycle),
        control(*this, memory, build_config(), run_options(o)) {
    attach();
  }

  ~Impl() {
    wave.reset();  // before the model it traces
  }

  static RunControlOptions run_options(const Options& o) {
    RunControlOptions r;
    r.default_budget = o.default_budget;
    r.watchdog = o.watchdog;
    r.host_validation = o.host_validation;
    r.profile = o.profile;
    return r;
  }

  // ---- RegisterBus: the registers through the host port, the clock stepped here
  void write_reg(uint32_t offset, uint32_t value) override {
    host.start_write(core.top(), offset, value);
    host_transaction("write to", offset);
  }
  uint32_t read_reg(uint32_t offset) override {
    host.start_read(core.top(), offset);
    host_transaction("read of", offset);
    return host.data();
  }
  bool wait_irq(uint64_t cycles) override {
    // irq_o is a register output: it is valid after each edge without another eval.
    return core.step_until([this] { return core.top().irq_o != 0; }, cycles);
  }
  uint64_t cycles() const override { return core.cycle; }
  void reset_design() override { core.reset(); }
  bool faulted() const override { return !core.asserts.empty(); }
  std::string take_fault() override { return core.asserts.take_report(core.cycle); }
  void on_program(const Isa& isa, const uint8_t* stream, uint32_t count) override { note_program(isa, stream, count); }
  std::string close_waveform() override {
    if (!wave) return {};
    std::string path = wave->path();
    wave->close();
    wave.reset();
    attach();
    return path;
  }

  /// The per-cycle parts in order: the waveform (it records this cycle before the others drive the
  /// next one), the DRAM model, the host port.
  void attach() {
    core.extensions.clear();
    if (wave) core.extensions.push_back(wave.get());
    core.extensions.push_back(&dram);
    core.extensions.push_back(&host);
    if (recorder) core.extensions.push_back(recorder.get());
  }

  /// Clocks until the host port's transaction is complete (bounded).
  void host_transaction(const char* what, uint32_t offset) {
    for (uint64_t i = 0; i < kHostTimeout; ++i) {
      core.step();
      if (host.idle()) return;
    }
    throw std::runtime_error(std::string("tsim: AXI4-Lite ") + what + " " + hex(offset) + " was not answered within " +
                             std::to_string(kHostTimeout) + " cycles");
  }

  Options options;
  Core core;
  Dram& memory;
  DramTarget dram_target;
  AxiMemoryPort dram;
  std::unique_ptr<WaveTracer> wave;
  HostPort host;
  std::unique_ptr<TimelineRecorder> recorder;  ///< while a run is recorded (Options::on_timeline)
  RunControl control;                          ///< runs, statistics and diagnostics over this bus
};

bool Simulator::has_assertions() { return VTA_TSIM_ASSERTIONS != 0; }

Simulator::Simulator(Options options) : impl_((options.validate(), std::make_unique<Impl>(options))) {
  if (options.wave) start_wave(*options.wave);
  impl_->control.reset();
}

Simulator::~Simulator() = default;

uint64_t Simulator::cycle() const { return impl_->core.cycle; }
const PortCounters& Simulator::port_counters() const { return impl_->dram.counters(); }

void Simulator::start_wave(const WaveOptions& wave) {
  impl_->wave.reset();
  impl_->attach();
  impl_->wave = std::make_unique<WaveTracer>(impl_->core.top(), wave, build_config());
  impl_->attach();
}

void Simulator::stop_wave() {
  if (impl_->wave) impl_->wave->close();
  impl_->wave.reset();
  impl_->attach();
}

void Simulator::write_reg(uint32_t offset, uint32_t value) { impl_->write_reg(offset, value); }
bool Simulator::clock_until_irq(uint64_t cycles) { return impl_->wait_irq(cycles); }
std::string Simulator::take_fault() { return impl_->take_fault(); }
uint32_t Simulator::read_reg(uint32_t offset) { return impl_->read_reg(offset); }

const Stats& Simulator::stats() const { return impl_->control.stats(); }
void Simulator::clear_stats() { impl_->control.clear_stats(); }
TokenCounts Simulator::tokens() { return impl_->control.tokens(); }
const std::string& Simulator::last_error() const { return impl_->control.last_error(); }
ErrorKind Simulator::last_error_kind() const { return impl_->control.last_error_kind(); }
RunStatus Simulator::run(PhysAddr insn_addr, uint32_t count, uint64_t budget) {
  const uint8_t* stream = impl_->memory.translate(insn_addr, uint64_t(count) * Config::kInsnElemBytes);
  if (!impl_->options.on_timeline || stream == nullptr) return impl_->control.run(insn_addr, count, budget);
  std::vector<RawInsn> insns(count);
  for (uint32_t i = 0; i < count; ++i) insns[i] = load_insn(stream + uint64_t(i) * Config::kInsnElemBytes);
  impl_->recorder = std::make_unique<TimelineRecorder>(Isa(build_config()), insns, impl_->core.cycle);
  impl_->attach();
  const RunStatus status = impl_->control.run(insn_addr, count, budget);
  Timeline timeline = impl_->recorder->finish(impl_->core.cycle);
  impl_->recorder.reset();
  impl_->attach();
  impl_->options.on_timeline(timeline);
  return status;
}

}  // namespace vta::tsim
