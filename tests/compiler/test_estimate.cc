// The compiler's cost estimate (vta/compiler/estimate.h) on the compiled tutorials: the recording
// device sees what the runtime's device runs, and the estimate is within a bound of the cycles the
// tsim measures for the same module.

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "vta/compiler/build.h"
#include "vta/compiler/estimate.h"
#include "vta/driver/build_config.h"
#include "vta/workloads/compiled.h"

namespace vta::tutorials {
namespace {

// Runs a tutorial's module where local_runner does and keeps a copy of it.
class KeepingRunner final : public ModuleRunner {
 public:
  std::vector<int8_t> run(const compiler::Module& module, const std::vector<std::vector<int8_t>>& inputs,
                          Stats& stats) override {
    kept.emplace(module);
    return local_runner().run(module, inputs, stats);
  }
  std::optional<compiler::Module> kept;
};

struct Tutorial {
  compiler::Module module;
  Result result;  // its run on the runtime's device (fsim unless VTA_TARGET says otherwise)
};

Tutorial matmul() {
  KeepingRunner runner;
  const Result r = compiled_matrix_multiply(5, nullptr, {}, runner);
  return {*runner.kept, r};
}

Tutorial conv() {
  KeepingRunner runner;
  const Result r = compiled_convolution(5, nullptr, {}, runner);
  return {*runner.kept, r};
}

TEST(Estimate, TheRecordingDeviceSeesWhatTheDeviceRuns) {
  for (const Tutorial& t : {matmul(), conv()}) {
    ASSERT_TRUE(t.result.ok()) << t.result.error << " ran " << t.result.ran << " mismatches " << t.result.mismatches;
    const compiler::RecordedCall with_fsim =
        compiler::record_call(t.module, build_config(), compiler::backend_device("fsim"));
    // the statistics of the recorded call are the run's (zero-filled inputs: counters do not depend on data)
    EXPECT_TRUE(with_fsim.stats.counters_equal(t.result.stats))
        << with_fsim.stats.to_json() << " vs " << t.result.stats.to_json();
    ASSERT_EQ(with_fsim.streams.size(), 1u) << "each tutorial is one device run";
    // with nothing behind it the recorder sees the same streams and counts nothing
    const compiler::RecordedCall alone = compiler::record_call(t.module, build_config());
    EXPECT_EQ(alone.streams, with_fsim.streams);
    EXPECT_EQ(alone.stats, Stats{});
    // an estimate per run, marked as one, summed by estimate_cycles
    const std::vector<Timeline> runs = compiler::estimate_timelines(t.module, build_config());
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_TRUE(runs[0].estimated);
    EXPECT_EQ(runs[0].insn_names.size(), alone.streams[0].size());
    EXPECT_EQ(compiler::estimate_cycles(t.module, build_config()), runs[0].cycles);
    // never below what the statistics allow
    const CycleBounds b = cycle_bounds(with_fsim.stats, build_config());
    EXPECT_GE(double(runs[0].cycles), b.larger());
  }
}

TEST(Estimate, IsNearTheTsimsCycles) {
  if (!is_known_target("tsim")) GTEST_SKIP() << "this build has no tsim";
  // docs/COMPILER.md ("Cost estimate"): matmul +0.1 %, conv +7.1 %
  const struct {
    Tutorial t;
    double bound_percent;
  } cases[] = {{matmul(), 1.0}, {conv(), 10.0}};
  for (const auto& [t, bound] : cases) {
    const compiler::RecordedCall measured =
        compiler::record_call(t.module, build_config(), compiler::backend_device("tsim"));
    ASSERT_TRUE(measured.stats.cycle_count.has_value());
    const double cycles = double(*measured.stats.cycle_count);
    const double estimate = double(compiler::estimate_cycles(t.module, build_config()));
    EXPECT_LT(std::abs(estimate - cycles) / cycles * 100.0, bound)
        << estimate << " estimated, " << cycles << " measured";
  }
}

// A device whose every run fails with its own message.
class RefusingDevice final : public Device {
 public:
  RunStatus run(PhysAddr, uint32_t, uint64_t) override { return RunStatus::kError; }
  const Stats& stats() const override { return stats_; }
  void clear_stats() override {}
  TokenCounts tokens() const override { return {}; }
  const std::string& last_error() const override { return error_; }
  ErrorKind last_error_kind() const override { return ErrorKind::kInternal; }
  std::string_view target() const override { return "refusing"; }
  const Config& config() const override { return config_; }

 private:
  Config config_ = build_config();
  Stats stats_;
  std::string error_ = "the refusing device refuses";
};

TEST(Estimate, AFailingRunIsTheCallsRuntimeError) {
  const Tutorial t = matmul();
  try {
    compiler::record_call(t.module, build_config(),
                          [](const Config&, Dram&) { return std::make_unique<RefusingDevice>(); });
    ADD_FAILURE() << "the call succeeded";
  } catch (const compiler::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("the refusing device refuses"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vta::tutorials
