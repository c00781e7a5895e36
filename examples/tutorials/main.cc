// vta-tutorials: runs the seeds' tutorial workloads on the VTA runtime (backend from VTA_TARGET),
// verifies every output and prints the statistics in the seeds' format next to the seeds' numbers.
// Exit status 0 only when every output is right and every statistic equals the seed's.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>

#include "tutorials.h"
#include "vta/build_config.h"
#include "vta/device.h"
#ifdef VTA_HAVE_TSIM
#include "vta/tsim.h"
#endif

namespace {

bool report(const char* title, const vta::tutorials::Result& r, const vta::Stats& seed, const char* success) {
  std::printf("== %s on %s ==\n", title, vta::default_target().c_str());
  if (!r.ran) {
    std::printf("FAIL: %s\n", r.error.c_str());
    return false;
  }
  std::printf("Execution statistics:\n%s", r.stats.to_table().c_str());
  if (r.stats.cycle_count) {
    const auto b = vta::tutorials::cycle_bounds(r.stats, vta::build_config().bus_width());
    std::printf("cycles: %llu (compute bound %.0f, memory bound %.0f: %+.1f %% over the larger)\n",
                static_cast<unsigned long long>(*r.stats.cycle_count), b.compute, b.memory,
                b.over_percent(*r.stats.cycle_count));
  }
  const bool stats_ok = r.stats.counters_equal(seed);  // the seeds have no cycle counts
  if (!stats_ok) std::printf("FAIL: statistics differ from the tutorial's:\n%s", seed.to_table().c_str());
  if (r.mismatches != 0) std::printf("FAIL: %zu of %zu outputs differ from the reference\n", r.mismatches, r.outputs);
  if (stats_ok && r.mismatches == 0) std::printf("%s (%zu outputs verified)\n", success, r.outputs);
  std::printf("\n");
  return stats_ok && r.mismatches == 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The VTA tutorials (matrix multiply blocking, 2D convolution) on the VTA runtime"};
  std::string which = "all";
  uint32_t seed = 0;
  std::string target;
  app.add_option("workload", which, "matmul, conv or all")->check(CLI::IsMember({"matmul", "conv", "all"}));
  app.add_option("--seed", seed, "seed of the random int8 inputs");
  app.add_option("--target", target, "backend: fsim or tsim (default: VTA_TARGET, else fsim)")
      ->check(CLI::IsMember(vta::backend_names()));
  CLI11_PARSE(app, argc, argv);
  if (!target.empty()) setenv("VTA_TARGET", target.c_str(), 1);
  bool ok = true;
  if (which == "matmul" || which == "all") {
    ok &= report("Matrix multiply blocking (1x1024 x 1024x1024)", vta::tutorials::matrix_multiply(seed),
                 vta::tutorials::matrix_multiply_seed_stats(), "Successful blocked matrix multiply test!");
  }
  if (which == "conv" || which == "all") {
    ok &= report("2D convolution (ResNet-18 layer, 2 virtual threads)", vta::tutorials::convolution(seed),
                 vta::tutorials::convolution_seed_stats(), "Successful 2D convolution test!");
  }
#ifdef VTA_HAVE_TSIM
  if (const auto speed = vta::tsim::speed_totals(); speed.cycles > 0) {
    std::printf("tsim: %llu cycles simulated in %.2f s (%.0f cycles/s)\n",
                static_cast<unsigned long long>(speed.cycles), speed.seconds, speed.cycles_per_second());
  }
#endif
  return ok ? 0 : 1;
}
