#pragma once
// The two tutorial workloads of the seeds, written against the VTA runtime API exactly as their final
// lowered programs call it. Each run makes random int8 inputs from a seed, runs on the runtime's
// device (VTA_TARGET), verifies every output against a plain C++ reference and reports the statistics.

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "vta/driver/device.h"
#include "vta/driver/run_control.h"

namespace vta::tutorials {

struct Result {
  bool ran = false;       ///< the runtime reported no error
  std::string error;      ///< the runtime's message when !ran
  size_t outputs = 0;     ///< output elements compared
  size_t mismatches = 0;  ///< elements that differ from the reference
  Stats stats;            ///< the device statistics of this run alone
  bool ok() const { return ran && mismatches == 0; }
  /// Counts `got` against the reference `want`, element by element (outputs and mismatches).
  void compare(const std::vector<int8_t>& got, const std::vector<int8_t>& want) {
    outputs = want.size();
    for (size_t i = 0; i < want.size(); ++i) mismatches += i >= got.size() || got[i] != want[i];
  }
};

/// Whether this build's configuration has the default 1x16 shape the hand-written tutorial programs are
/// written for (at any element widths); if not, says so in `r.error`.
bool written_for_this_build(Result& r);

/// The tutorials' inputs: `data` then `weight` values uniform over lanes of `data_width` and
/// `weight_width` bits ([-128, 127] at 8, [-8, 7] at 4), drawn from one generator seeded with `seed`.
/// The hand-written and the compiled workloads draw alike, so one seed gives both the same inputs.
std::pair<std::vector<int8_t>, std::vector<int8_t>> random_operands(uint32_t seed, size_t data, size_t weight,
                                                                    int data_width = 8, int weight_width = 8);

/// A seed's statistics with the byte counters at this build's element widths (inputs, weights and
/// outputs move width/8 of the seed's bytes; the seed's own numbers at 8 bits).
Stats at_build_widths(Stats seed);

/// Matrix multiply blocking: 1x1024 by 1024x1024, tiles of 256, >> 8, clip to [0, 127] (to [0, 7] with
/// 4-bit outputs). The hand-written tutorials run at the build's element widths.
Result matrix_multiply(uint32_t seed);
/// 2D convolution: ResNet-18 layer 1x256x14x14, 256 filters 3x3, pad 1, stride 1, 2 virtual threads.
Result convolution(uint32_t seed);

using vta::cycle_bounds;  // vta/driver/device.h
using vta::CycleBounds;

/// Prints a run's outcome (statistics table, cycle bounds, verdict against `seed`'s statistics and the
/// reference outputs); true when every output is right and every counter equals the seed's.
bool report(const char* title, const Result& r, const Stats& seed, const char* success, const std::string& where = "");

/// Prints the cycles the register-level backends (tsim, systemc, fpga) ran and their speed when this
/// program ran on one: "tsim: N cycles simulated in S s (R cycles/s)" ("run" on a board).
inline void print_clocked_speed() {
  if (const auto speed = vta::speed_totals(); speed.cycles > 0) {
    const std::string target = vta::default_target();
    std::printf("%s: %llu cycles %s in %.2f s (%.0f cycles/s)\n", target.c_str(),
                static_cast<unsigned long long>(speed.cycles), target == "fpga" ? "run" : "simulated", speed.seconds,
                speed.cycles_per_second());
  }
}

/// The statistics tables printed by the seeds, at this build's element widths (at_build_widths).
Stats matrix_multiply_seed_stats();
Stats convolution_seed_stats();

}  // namespace vta::tutorials
