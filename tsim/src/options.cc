// The tsim's options: their limits, and the VTA_* environment variables that override the defaults.

#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "vta/tsim.h"

namespace vta::tsim {
namespace {

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

}  // namespace

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

}  // namespace vta::tsim
