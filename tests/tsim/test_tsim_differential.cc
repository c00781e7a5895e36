// Differential testing: random valid programs (vta/driver/random_program.h) run on the fsim and on the tsim (or
// the backend VTA_DIFF_TARGET names: rpc-fsim, rpc-tsim run them through a device server);
// every output byte and the seven statistics must agree. VTA_DIFF_PROGRAMS sets the number of
// programs (1,000 by default; 100,000 in the long mode), VTA_DIFF_SEED the first seed. Program k uses
// seed base + k; a mismatch prints that seed and the program, and
//   VTA_DIFF_SEED=<seed> VTA_DIFF_PROGRAMS=1 vta_tsim_diff_tests
// replays it alone.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <string>

#include "test_util.h"
#include "vta/driver/build_config.h"
#include "vta/driver/random_program.h"
#include "vta/tsim/simulator.h"

namespace vta::test {
namespace {

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return (v == nullptr || *v == '\0') ? fallback : std::strtoull(v, nullptr, 0);
}

// The backend compared with the fsim.
std::string target_under_test() {
  const char* v = std::getenv("VTA_DIFF_TARGET");
  return (v == nullptr || *v == '\0') ? "tsim" : v;
}

// Runs `count` random programs from seed `base` on the fsim and on `dut`: outputs and statistics equal.
void compare_random_programs(Device& dut, const std::string& name, uint64_t count, uint64_t base) {
  const Config& c = build_config();
  auto fsim = make_test_fsim(c);
  std::printf("differential: %llu programs from seed %llu (BATCH %d, BLOCK %d, bus %d bits)\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(base), c.batch(), c.block_in(),
              c.bus_width());
  const auto t0 = std::chrono::steady_clock::now();
  const DifferentialResult r = differential(c, *fsim, dut, name, base, count);
  for (const DifferentialMismatch& m : r.mismatches) {
    ADD_FAILURE() << "seed " << m.seed << ": " << m.why << "\nreplay: VTA_DIFF_SEED=" << m.seed
                  << " VTA_DIFF_PROGRAMS=1\n"
                  << m.listing;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("differential: %llu programs, %llu instructions, %llu %s cycles, %zu mismatches, %.1f s\n",
              static_cast<unsigned long long>(r.programs), static_cast<unsigned long long>(r.instructions),
              static_cast<unsigned long long>(r.cycles), name.c_str(), r.mismatches.size(), s);
}

TEST(TsimDifferential, RandomProgramsAgreeWithTheFsim) {
  const uint64_t count = env_or("VTA_DIFF_PROGRAMS", 1000), base = env_or("VTA_DIFF_SEED", 20261122);
  const std::string name = target_under_test();
  auto dut = make_device(name, build_config());
  compare_random_programs(*dut, name, count, base);
}

// The same programs against a slow, narrow memory: one read and one write request accepted at a time
// and long latencies, so the accelerator meets back-pressure on AR, AW and W (RTL cover points
// ArBackPressure, AwBackPressure, WBackPressure; docs/COVERAGE.md) and must still agree.
TEST(TsimDifferential, RandomProgramsAgreeUnderABusyMemory) {
  if (target_under_test() != "tsim") GTEST_SKIP() << "the DRAM model's limits are the tsim's";
  tsim::Simulator::Options o;
  o.dram.max_reads = 1, o.dram.max_writes = 1, o.dram.read_latency = 40, o.dram.write_latency = 40;
  auto dut = tsim::make_tsim_device(o);
  compare_random_programs(*dut, "tsim (busy memory)", std::max<uint64_t>(1, env_or("VTA_DIFF_PROGRAMS", 1000) / 5),
                          env_or("VTA_DIFF_SEED", 20261122));
}

// One program, one verdict: every invalid program gets the same return code and error class on the
// fsim and on the tsim, and neither counts anything for it. VTA_DIFF_INVALID_PROGRAMS sets the number
// (400 by default: 50 of each defect class in turn).
TEST(TsimDifferential, InvalidProgramsGetTheSameVerdict) {
  const Config& c = build_config();
  const uint64_t count = env_or("VTA_DIFF_INVALID_PROGRAMS", 400), base = env_or("VTA_DIFF_SEED", 20261123);
  auto fsim = make_test_fsim(c);
  const std::string name = target_under_test();
  auto dut = make_device(name, c);
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t failures = 0;
  std::map<std::string, uint64_t> per_class;
  for (uint64_t k = 0; k < count && failures < 5; ++k) {
    const uint64_t seed = base + k;
    const auto defect = RandomProgram::Defect(k % uint64_t(RandomProgram::Defect::kCount));
    RandomProgram p(c, seed);
    const ErrorKind expected = p.inject(defect);
    const Stats before_f = fsim->stats(), before_t = dut->stats();
    p.reset_memory();
    const RunStatus fs = p.run(*fsim);
    p.reset_memory();
    const RunStatus ts = p.run(*dut);
    std::string why;
    if (fs != RunStatus::kError || fsim->last_error_kind() != expected) {
      why = std::string("fsim: status ") + std::to_string(int(fs)) + " class " + to_string(fsim->last_error_kind()) +
            ", expected class " + to_string(expected) + "\n" + fsim->last_error();
    } else if (ts != fs || dut->last_error_kind() != fsim->last_error_kind()) {
      why = name + ": status " + std::to_string(int(ts)) + " class " + to_string(dut->last_error_kind()) +
            ", fsim: class " + to_string(fsim->last_error_kind()) + "\n" + dut->last_error() + "fsim said:\n" +
            fsim->last_error();
    } else if (!fsim->stats().counters_equal(before_f) || !dut->stats().counters_equal(before_t)) {
      why = "a failed run changed the statistics: fsim " + fsim->stats().to_json() + " " + name + " " +
            dut->stats().to_json();
    } else if (fsim->tokens() != TokenCounts{} || dut->tokens() != TokenCounts{}) {
      why =
          "a failed run left tokens: fsim " + fsim->tokens().to_string() + " " + name + " " + dut->tokens().to_string();
    }
    ++per_class[RandomProgram::name(defect)];
    if (!why.empty()) {
      ++failures;
      ADD_FAILURE() << "seed " << seed << ", defect " << RandomProgram::name(defect) << ": " << why
                    << "\nreplay: VTA_DIFF_SEED=" << seed - k << " (program " << k << ")\n"
                    << p.listing();
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("invalid programs on %s: %llu, %llu verdict mismatches, %.1f s; per defect:", name.c_str(),
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(failures), s);
  for (const auto& [defect_name, n] : per_class)
    std::printf(" %s %llu", defect_name.c_str(), static_cast<unsigned long long>(n));
  std::printf("\n");
}

}  // namespace
}  // namespace vta::test
