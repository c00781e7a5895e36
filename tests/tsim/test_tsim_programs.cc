// The tsim (Verilated vta_top + AXI DRAM model + host port) runs whole programs through the Device
// interface: the reference-style workloads (outputs against a plain C++ reference, statistics
// against closed forms), both tutorials through the runtime with VTA_TARGET=tsim (the seeds'
// statistics), and register-level behaviour of the control block.

#include <gtest/gtest.h>

#include <cstdlib>

#include "program_suite.h"
#include "test_util.h"
#include "vta/driver/build_config.h"
#include "vta/driver/vcr_map.h"
#include "vta/runtime.h"
#include "vta/tsim/simulator.h"
#include "vta/workloads/tutorials.h"

namespace vta::test {
namespace {

TEST(Tsim, IsARegisteredBackend) {
  const auto names = backend_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "tsim"), names.end());
  auto dev = make_device("tsim", build_config());
  EXPECT_EQ(dev->target(), "tsim");
  EXPECT_TRUE(runs_concurrently("tsim"));  // a Verilator context per simulator
  if (is_known_target("systemc")) {
    EXPECT_FALSE(runs_concurrently("systemc"));  // one SystemC kernel a process
  }
}

// The fsim's program suite (tests/common/program_suite.h), unchanged, on the tsim.
TEST(Tsim, AluEveryOpcodeImmediateAndVectorWithAndWithoutCompression) {
  auto dev = make_device("tsim", build_config());
  alu_every_opcode_suite(*dev, build_config());
}

TEST(Tsim, GemmSingleBlock) {
  auto dev = make_device("tsim", build_config());
  gemm_single_block_suite(*dev, build_config());
}

TEST(Tsim, BlockedGemmOneAndTwoVirtualThreads) {
  auto dev = make_device("tsim", build_config());
  blocked_gemm_suite(*dev, build_config());
}

TEST(Tsim, ReferenceSizesBlockedGemm256) {
  if (build_config().batch() != 1 || build_config().block_in() != 16) GTEST_SKIP() << "the reference sizes assume 1x16";
  auto dev = make_device("tsim", build_config());
  reference_sizes_suite(*dev);
}

// A run starts from the state reset leaves, whatever ran before: the same program takes the same
// cycles on a new device, after itself and after programs that end on other memory clients (the
// read arbiter's grant parks on fetch at launch; before, it stayed on the previous run's last
// client and the next run's first fetch took a cycle more).
TEST(Tsim, AProgramsCyclesDoNotDependOnWhatRanBefore) {
  const Config& cfg = build_config();
  auto gemm = [&](Device& dev) {
    const WorkloadResult r = blocked_gemm(dev, 4, 8 * cfg.block_in(), 2 * cfg.block_in(), false, 2, 3);
    EXPECT_EQ(r.status, RunStatus::kOk) << r.error;
    return r.stats.cycle_count.value_or(0);
  };
  auto dev = make_device("tsim", cfg);
  const uint64_t fresh = gemm(*dev);
  EXPECT_GT(fresh, 0u);
  EXPECT_EQ(gemm(*dev), fresh) << "after itself";
  const WorkloadResult alu = alu_workload(*dev, AluOp::kAdd, false, cfg.batch(), 4 * cfg.block_out(), true, 7);
  ASSERT_EQ(alu.status, RunStatus::kOk) << alu.error;
  EXPECT_EQ(gemm(*dev), fresh) << "after an ALU program";
}

TEST(Tsim, ReferenceRegisterOffsets) {
  // The four registers the reference drivers use keep their offsets (spec 5.3).
  EXPECT_EQ(vcr::kCtrl, 0x00u);
  EXPECT_EQ(vcr::kCycles, 0x04u);
  EXPECT_EQ(vcr::kInsnCount, 0x08u);
  EXPECT_EQ(vcr::kInsnAddr, 0x0Cu);
  tsim::Simulator sim(tsim::Simulator::Options{});
  sim.write_reg(vcr::kInsnCount, 0x1234);
  sim.write_reg(vcr::kInsnAddr, 0xabcd0);
  EXPECT_EQ(sim.read_reg(vcr::kInsnCount), 0x1234u);
  EXPECT_EQ(sim.read_reg(vcr::kInsnAddr), 0xabcd0u);
  EXPECT_EQ(sim.read_reg(vcr::kWatchdog), 4096u);
  EXPECT_EQ(sim.read_reg(0xF00), 0u) << "unmapped addresses read 0";
  sim.write_reg(vcr::kCycles, 77);  // read-only: ignored
  EXPECT_EQ(sim.read_reg(vcr::kCycles), 0u);
}

// The host's reset (CTRL_RESET, what a board's driver uses: docs/HARDWARE.md) in the middle of a
// memory-bound run: STATUS_RESET_PENDING while the memory engine finishes the bursts it has taken, then the
// run is forgotten (CTRL, errors, cycles, tokens, statistics), and the next program runs as on a fresh
// accelerator. The bus checker's assertions watch the AXI port throughout: an abandoned burst fails them.
TEST(Tsim, TheHostsResetLetsTheBurstsInFlightFinish) {
  const Config& c = build_config();
  tsim::Simulator sim(tsim::Simulator::Options{});
  constexpr uint32_t kRows = 512;
  const DevBuf inp(size_t(c.inp_elem_bytes()) * kRows);
  Program p(c);
  for (int i = 0; i < 64; ++i) p.load(MemId::kInp, 0, uint32_t(inp.phys() / c.inp_elem_bytes()), kRows, 1, 1);
  p.finish();
  const DevBuf insns = p.to_device();
  sim.write_reg(vcr::kInsnCount, uint32_t(p.insns().size()));
  sim.write_reg(vcr::kInsnAddr, uint32_t(insns.phys()));
  sim.write_reg(vcr::kCtrl, vcr::bit("CTRL_LAUNCH"));
  EXPECT_FALSE(sim.clock_until_irq(3000)) << "the program runs for about 70,000 cycles";
  ASSERT_NE(vcr::extract(sim.read_reg(vcr::kStatus), vcr::field("STATUS_MEM_BUSY")), 0u) << "reads in flight";
  sim.write_reg(vcr::kCtrl, vcr::bit("CTRL_RESET"));
  EXPECT_NE(vcr::extract(sim.read_reg(vcr::kStatus), vcr::field("STATUS_RESET_PENDING")), 0u);
  sim.write_reg(vcr::kCtrl, vcr::bit("CTRL_LAUNCH"));  // ignored while the reset waits
  int reads = 0;
  while (vcr::extract(sim.read_reg(vcr::kStatus), vcr::field("STATUS_RESET_PENDING")) != 0) {
    ASSERT_LT(++reads, 1000) << "the reset did not complete";
  }
  EXPECT_EQ(sim.read_reg(vcr::kCtrl), 0u);
  EXPECT_EQ(sim.read_reg(vcr::kErrorStatus), 0u);
  EXPECT_EQ(sim.read_reg(vcr::kCycles), 0u);
  EXPECT_EQ(sim.read_reg(vcr::kTokens), 0u);
  EXPECT_EQ(sim.read_reg(vcr::kStatsBase), 0u) << "inp_load_nbytes";
  EXPECT_EQ(sim.read_reg(vcr::kInsnCount), uint32_t(p.insns().size())) << "kept";
  EXPECT_EQ(sim.take_fault(), "") << "the AXI port's assertions held";
  // and the whole program runs afterwards, with the statistics of a fresh start
  ASSERT_EQ(sim.run(insns.phys(), uint32_t(p.insns().size()), 1'000'000), RunStatus::kOk) << sim.last_error();
  EXPECT_EQ(sim.stats().inp_load_nbytes, uint64_t(64) * kRows * c.inp_elem_bytes());
}

struct TutorialCase {
  const char* name;
  tutorials::Result (*run)(uint32_t);
  Stats (*seed)();
};

void run_tutorial_on_tsim(const TutorialCase& t) {
  ASSERT_EQ(setenv("VTA_TARGET", "tsim", 1), 0);
  VTARuntimeShutdown();
  const tutorials::Result r = t.run(1);
  VTARuntimeShutdown();
  unsetenv("VTA_TARGET");
  ASSERT_TRUE(r.ran) << r.error;
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_TRUE(r.stats.counters_equal(t.seed())) << r.stats.to_table();
  ASSERT_TRUE(r.stats.cycle_count.has_value());
  std::printf("tsim: %s tutorial in %llu cycles\n", t.name, static_cast<unsigned long long>(*r.stats.cycle_count));
}

TEST(Tsim, MatrixMultiplyTutorial) {
  run_tutorial_on_tsim({"matrix multiply", tutorials::matrix_multiply, tutorials::matrix_multiply_seed_stats});
}

TEST(Tsim, ConvolutionTutorial) {
  run_tutorial_on_tsim({"convolution", tutorials::convolution, tutorials::convolution_seed_stats});
}

// Fetch held by a full load queue (the RTL's LoadQueueFull cover point; the coverage regression reaches
// it here in a second instead of through a whole ResNet-18): a long GEMM keeps the first load waiting
// for its token while more loads arrive behind it than vta_top's instruction queues hold (512). The
// tsim's statistics are the fsim's.
TEST(Tsim, AFullLoadQueueHoldsFetchUntilTheLoadsDrain) {
  const Config& c = build_config();
  const DevBuf uops(4);
  constexpr uint32_t kLoads = 600;  // (> the 512-deep queue + fetch's buffer; < the input buffer's depth)
  if (c.inp_depth() <= kLoads) GTEST_SKIP() << "an input buffer of fewer than " << kLoads << " rows";
  const DevBuf inp(size_t(c.inp_elem_bytes()) * kLoads);
  for (size_t i = 0; i < inp.size(); ++i) inp.as<int8_t>()[i] = int8_t(i * 7);
  const uint32_t inp_base = uint32_t(inp.phys() / uint64_t(c.inp_elem_bytes()));
  Program p(c);
  p.load(MemId::kUop, 0, uint32_t(uops.phys() / 4), 1, 1, 1);  // (a compute-stage load: micro-op 0, all zero)
  GemmInsn g = gemm_insn(0, 1, 255, 255);                      // 65,025 micro-ops
  g.deps = push_prev();                                        // then the first load may start
  p.gemm(g);
  p.load(MemId::kInp, 0, inp_base, 1, 1, 1, pop_next());
  for (uint32_t i = 1; i + 1 < kLoads; ++i) p.load(MemId::kInp, i, inp_base + i, 1, 1, 1);
  p.load(MemId::kInp, kLoads - 1, inp_base + kLoads - 1, 1, 1, 1, push_next());  // FINISH after every load
  p.finish(pop_prev());
  auto fsim = make_device("fsim", c);
  auto tsim = make_device("tsim", c);
  ASSERT_EQ(p.run(*fsim), RunStatus::kOk) << fsim->last_error();
  ASSERT_EQ(p.run(*tsim), RunStatus::kOk) << tsim->last_error();
  EXPECT_EQ(tsim->stats().gemm_counter, 255u * 255u);
  EXPECT_EQ(tsim->stats().inp_load_nbytes, kLoads * uint64_t(c.inp_elem_bytes()));
  EXPECT_EQ(tsim->stats().gemm_counter, fsim->stats().gemm_counter);
  EXPECT_EQ(tsim->stats().inp_load_nbytes, fsim->stats().inp_load_nbytes);
  EXPECT_GE(tsim->stats().cycle_count.value_or(0), 255u * 255u) << "the loads waited for the GEMM";
}

}  // namespace
}  // namespace vta::test
