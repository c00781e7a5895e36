#pragma once
// The two tutorial workloads of the seeds, written against the VTA runtime API exactly as their final
// lowered programs call it. Each run makes random int8 inputs from a seed, runs on the runtime's
// device (VTA_TARGET), verifies every output against a plain C++ reference and reports the statistics.

#include <cstdint>
#include <string>

#include "vta/driver/device.h"
#ifdef VTA_HAVE_TSIM
#include <cstdio>

#include "vta/tsim/simulator.h"
#endif

namespace vta::tutorials {

struct Result {
  bool ran = false;       ///< the runtime reported no error
  std::string error;      ///< the runtime's message when !ran
  size_t outputs = 0;     ///< output elements compared
  size_t mismatches = 0;  ///< elements that differ from the reference
  Stats stats;            ///< the device statistics of this run alone
  bool ok() const { return ran && mismatches == 0; }
};

/// Matrix multiply blocking: 1x1024 by 1024x1024, tiles of 256, >> 8, clip to [0, 127].
Result matrix_multiply(uint32_t seed);
/// 2D convolution: ResNet-18 layer 1x256x14x14, 256 filters 3x3, pad 1, stride 1, 2 virtual threads.
Result convolution(uint32_t seed);

using vta::cycle_bounds;  // vta/driver/device.h
using vta::CycleBounds;

/// Prints a run's outcome (statistics table, cycle bounds, verdict against `seed`'s statistics and the
/// reference outputs); true when every output is right and every counter equals the seed's.
bool report(const char* title, const Result& r, const Stats& seed, const char* success, const std::string& where = "");

/// Prints the tsim's total simulated cycles and speed when this program ran on it. Inline: a program
/// built with the tsim defines VTA_HAVE_TSIM (the library itself does not link the tsim).
inline void print_tsim_speed() {
#ifdef VTA_HAVE_TSIM
  if (const auto speed = vta::tsim::speed_totals(); speed.cycles > 0) {
    std::printf("tsim: %llu cycles simulated in %.2f s (%.0f cycles/s)\n",
                static_cast<unsigned long long>(speed.cycles), speed.seconds, speed.cycles_per_second());
  }
#endif
}

/// The statistics tables printed by the seeds.
Stats matrix_multiply_seed_stats();
Stats convolution_seed_stats();

}  // namespace vta::tutorials
