// The tsim's options: their limits, and the backend-independent ClockedOptions (DeviceOptions) they come from.

#include <stdexcept>
#include <string>

#include "vta/tsim/simulator.h"

namespace vta::tsim {
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

Simulator::Options Simulator::Options::from(const ClockedOptions& c) {
  Options o;
  o.dram.read_latency = c.read_latency.value_or(o.dram.read_latency);
  o.dram.write_latency = c.write_latency.value_or(o.dram.write_latency);
  o.default_budget = c.cycle_budget.value_or(o.default_budget);
  o.watchdog = c.watchdog.value_or(o.watchdog);
  o.profile = c.profile;
  if (!c.wave.empty()) {
    WaveOptions wave;
    wave.path = c.wave;
    wave.start = c.wave_start;
    wave.stop = c.wave_stop;
    wave.depth = c.wave_depth;  // refused unless 0: see WaveOptions::depth
    o.wave = wave;
  }
  o.validate();
  return o;
}

Simulator::Options Simulator::Options::from_env() { return from(*DeviceOptions::from_env().clocked); }

Simulator::Options Simulator::Options::from(const DeviceOptions& d) {
  Options o = d.clocked ? from(*d.clocked) : from_env();
  o.dram_memory = d.dram;
  return o;
}

}  // namespace vta::tsim
