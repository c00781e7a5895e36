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
#include "core.h"
#include "host_port.h"
#include "run_control.h"
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

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

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

  static RunOptions run_options(const Options& o) {
    RunOptions r;
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
    const uint64_t start = core.cycle;
    // irq_o is a register output: it is valid after each edge without another eval.
    while (!core.top().irq_o) {
      if (core.cycle - start >= cycles) return false;
      core.step();
      if (!core.asserts.empty()) return false;
    }
    return true;
  }
  uint64_t cycles() const override { return core.cycle; }
  void reset_design() override { core.reset(); }
  rtl::AssertionLog& assertions() override { return core.asserts; }
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
  RunControl control;  ///< runs, statistics and diagnostics over this bus
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
uint32_t Simulator::read_reg(uint32_t offset) { return impl_->read_reg(offset); }

const Stats& Simulator::stats() const { return impl_->control.stats(); }
void Simulator::clear_stats() { impl_->control.clear_stats(); }
TokenCounts Simulator::tokens() { return impl_->control.tokens(); }
const std::string& Simulator::last_error() const { return impl_->control.last_error(); }
ErrorKind Simulator::last_error_kind() const { return impl_->control.last_error_kind(); }
RunStatus Simulator::run(PhysAddr insn_addr, uint32_t count, uint64_t budget) {
  return impl_->control.run(insn_addr, count, budget);
}

}  // namespace vta::tsim
