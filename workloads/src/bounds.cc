#include <cstdio>
#include <random>

#include "vta/driver/build_config.h"
#include "vta/driver/energy.h"
#include "vta/driver/packing.h"
#include "vta/workloads/tutorials.h"

namespace vta::tutorials {

bool report(const char* title, const vta::tutorials::Result& r, const vta::Stats& seed, const char* success,
            const std::string& where) {
  std::printf("== %s on %s ==\n", title, where.empty() ? vta::default_target().c_str() : where.c_str());
  if (!r.ran) {
    std::printf("FAIL: %s\n", r.error.c_str());
    return false;
  }
  std::printf("Execution statistics:\n%s%s", r.stats.to_table().c_str(),
              vta::cost_lines(r.stats, vta::build_config()).c_str());
  const bool stats_ok = r.stats.counters_equal(seed);  // the seeds have no cycle counts
  if (!stats_ok) std::printf("FAIL: statistics differ from the tutorial's:\n%s", seed.to_table().c_str());
  if (r.mismatches != 0) std::printf("FAIL: %zu of %zu outputs differ from the reference\n", r.mismatches, r.outputs);
  if (stats_ok && r.mismatches == 0) std::printf("%s (%zu outputs verified)\n", success, r.outputs);
  std::printf("\n");
  return stats_ok && r.mismatches == 0;
}

bool written_for_this_build(Result& r) {
  const Config& cfg = build_config();
  if (cfg.batch() == 1 && cfg.block_in() == 16 && cfg.block_out() == 16) return true;
  r.error = "the tutorial programs are written for the default 1x16 shape, not " + cfg.bitstream_name();
  return false;
}

std::pair<std::vector<int8_t>, std::vector<int8_t>> random_operands(uint32_t seed, size_t data, size_t weight,
                                                                    int data_width, int weight_width) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> data_dist(lane_min(data_width), lane_max(data_width));
  std::uniform_int_distribution<int> weight_dist(lane_min(weight_width), lane_max(weight_width));
  std::pair<std::vector<int8_t>, std::vector<int8_t>> r{std::vector<int8_t>(data), std::vector<int8_t>(weight)};
  for (auto& v : r.first) v = static_cast<int8_t>(data_dist(rng));
  for (auto& v : r.second) v = static_cast<int8_t>(weight_dist(rng));
  return r;
}

Stats at_build_widths(Stats seed) {
  const Config& c = build_config();
  seed.inp_load_nbytes = seed.inp_load_nbytes * uint64_t(c.inp_width()) / 8;
  seed.wgt_load_nbytes = seed.wgt_load_nbytes * uint64_t(c.wgt_width()) / 8;
  seed.out_store_nbytes = seed.out_store_nbytes * uint64_t(c.out_width()) / 8;
  return seed;
}

}  // namespace vta::tutorials
