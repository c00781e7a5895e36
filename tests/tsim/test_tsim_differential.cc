// Differential testing: random valid programs (random_program.h) run on the fsim and on the tsim;
// every output byte and the seven statistics must agree. VTA_DIFF_PROGRAMS sets the number of
// programs (1,000 by default; 100,000 in the long mode), VTA_DIFF_SEED the first seed. Program k uses
// seed base + k; a mismatch prints that seed and the program, and
//   VTA_DIFF_SEED=<seed> VTA_DIFF_PROGRAMS=1 vta_tsim_diff_tests
// replays it alone.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "random_program.h"
#include "vta/build_config.h"
#include "vta/tsim.h"

namespace vta::test {
namespace {

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return (v == nullptr || *v == '\0') ? fallback : std::strtoull(v, nullptr, 0);
}

TEST(TsimDifferential, RandomProgramsAgreeWithTheFsim) {
  const Config& c = build_config();
  const uint64_t count = env_or("VTA_DIFF_PROGRAMS", 1000), base = env_or("VTA_DIFF_SEED", 20261122);
  auto fsim = make_test_fsim(c);
  auto tsim = make_device("tsim", c);
  std::printf("differential: %llu programs from seed %llu (BATCH %d, BLOCK %d, bus %d bits)\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(base), c.batch(), c.block_in(),
              c.bus_width());
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t failures = 0, insns = 0, cycles = 0;
  for (uint64_t k = 0; k < count && failures < 5; ++k) {
    const uint64_t seed = base + k;
    RandomProgram p(c, seed);
    insns += p.size();
    p.reset_memory();
    fsim->clear_stats();
    const RunStatus fs = p.run(*fsim);
    const auto fout = p.output();
    const Stats fstats = fsim->stats();
    p.reset_memory();
    tsim->clear_stats();
    const RunStatus ts = p.run(*tsim);
    const auto tout = p.output();
    const Stats tstats = tsim->stats();
    cycles += tstats.cycle_count.value_or(0);
    std::string why;
    if (fs != RunStatus::kOk) why = "fsim refused the program: " + fsim->last_error();
    else if (ts != RunStatus::kOk) why = "tsim failed: " + tsim->last_error();
    else if (!fstats.counters_equal(tstats)) why = "statistics differ: fsim " + fstats.to_json() + " tsim " + tstats.to_json();
    else if (fout != tout) {
      size_t i = 0;
      while (fout[i] == tout[i]) ++i;
      why = "output byte " + std::to_string(i) + " differs: fsim " + std::to_string(fout[i]) + " tsim " +
            std::to_string(tout[i]);
    }
    if (!why.empty()) {
      ++failures;
      ADD_FAILURE() << "seed " << seed << ": " << why << "\nreplay: VTA_DIFF_SEED=" << seed
                    << " VTA_DIFF_PROGRAMS=1\n" << p.listing();
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("differential: %llu programs, %llu instructions, %llu tsim cycles, %llu mismatches, %.1f s\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(insns),
              static_cast<unsigned long long>(cycles), static_cast<unsigned long long>(failures), s);
}

}  // namespace
}  // namespace vta::test
