// What every device make_device makes counts beside its backend's seven statistics: the bytes the
// accumulator loads read from DRAM (Stats::acc_load_dram_nbytes), on every registered backend (the
// fsim, the tsim and SystemC when linked, device servers in-process), against a count by hand. The
// counter acc_load_nbytes counts an ACC_8BIT load at the accumulator's width, as the reference's does;
// the energy (docs/ENERGY.md) takes the bytes as read.

#include <gtest/gtest.h>

#include "test_util.h"
#include "vta/driver/build_config.h"
#include "vta/driver/energy.h"

namespace vta {
namespace {

using test::DevBuf;
using test::Program;

class BackendCounts : public ::testing::TestWithParam<std::string> {
 protected:
  const Config cfg_ = GetParam() == "fsim" ? Config::default_config() : build_config();
  std::unique_ptr<Device> dev_ = make_device(GetParam(), cfg_);
  DevBuf data_{64 * 1024};
};

TEST_P(BackendCounts, AccumulatorLoadsCountTheBytesTheyRead) {
  const uint64_t acc_elem = uint64_t(cfg_.acc_elem_bytes()), acc8_elem = uint64_t(cfg_.batch()) * cfg_.block_out();
  ASSERT_EQ(acc_elem, 4 * acc8_elem) << "an ACC_8BIT element is the accumulator's at a quarter of the width";
  // an ACC load of 2 rows of 3 elements with a padding row and column (pads read nothing), an ACC_8BIT
  // load of 4 rows of 5 elements at a stride of 7
  Program p(cfg_);
  p.load(MemId::kAcc, 0, data_.base(acc_elem), 2, 3, 3, {}, 1, 0, 1, 0)
      .load(MemId::kAcc8Bit, 16, data_.base(acc8_elem) + 8, 4, 5, 7)
      .finish();
  ASSERT_EQ(p.run(*dev_), RunStatus::kOk) << dev_->last_error();
  const uint64_t acc_read = 2 * 3 * acc_elem, acc8_read = 4 * 5 * acc8_elem;
  Stats s = dev_->stats();
  EXPECT_EQ(s.acc_load_nbytes, 2 * 3 * acc_elem + 4 * 5 * acc_elem) << "the counter: both at the accumulator's width";
  ASSERT_TRUE(s.acc_load_dram_nbytes.has_value()) << dev_->target();
  EXPECT_EQ(*s.acc_load_dram_nbytes, acc_read + acc8_read);
  EXPECT_EQ(s.dram_nbytes(), s.bytes_moved() - 4 * 5 * acc_elem + acc8_read);

  // the energy's DRAM term reads the bytes as read: 3 x 20 x 16 bytes fewer than the counter says
  Stats as_counted = s;
  as_counted.acc_load_dram_nbytes.reset();
  const EnergyTable& t = EnergyTable::default_table();
  const double fewer = double(4 * 5 * (acc_elem - acc8_elem)) * t.dram_pj_per_64bit / 8;
  EXPECT_NEAR(estimate_energy(as_counted, cfg_, t).dram - estimate_energy(s, cfg_, t).dram, fewer, 1e-6 * fewer);

  // a failed run adds nothing; a second run adds its own; clearing the statistics clears it
  Program bad(cfg_);
  bad.load(MemId::kAcc8Bit, 0, data_.base(acc8_elem), 1, 1, 1).raw(RawInsn{5, 0}).finish();
  EXPECT_EQ(bad.run(*dev_), RunStatus::kError);
  EXPECT_EQ(dev_->stats().acc_load_dram_nbytes, s.acc_load_dram_nbytes);
  ASSERT_EQ(p.run(*dev_), RunStatus::kOk) << dev_->last_error();
  EXPECT_EQ(dev_->stats().acc_load_dram_nbytes, 2 * (acc_read + acc8_read));
  dev_->clear_stats();
  EXPECT_EQ(dev_->stats().acc_load_dram_nbytes, 0u);
  EXPECT_EQ(dev_->stats().acc_load_nbytes, 0u);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, BackendCounts, ::testing::ValuesIn(backend_names()), test::backend_test_name);

// Sums: a run whose accumulator loads were not counted (absent) adds its counter's bytes, so a sum
// of counted and uncounted runs is what each says; the memory bound reads the bytes as read.
TEST(StatsSum, AccumulatorDramBytesAddAcrossCountedAndUncountedRuns) {
  Stats counted, uncounted;
  counted.acc_load_nbytes = 640, counted.acc_load_dram_nbytes = 160;
  uncounted.acc_load_nbytes = 64;
  Stats sum = uncounted;
  sum += counted;
  EXPECT_EQ(sum.acc_load_nbytes, 704u);
  EXPECT_EQ(sum.acc_load_dram_nbytes, 224u);
  Stats none = uncounted;
  none += uncounted;
  EXPECT_FALSE(none.acc_load_dram_nbytes.has_value());
  EXPECT_EQ(none.acc_load_dram(), 128u);
  EXPECT_DOUBLE_EQ(cycle_bounds(counted, 64).memory, 160.0 / 8);
  EXPECT_DOUBLE_EQ(cycle_bounds(uncounted, 64).memory, 64.0 / 8);
}

// The compute bound by stage, by hand: one instruction at a time, GEMM plus ALU micro-ops; two at once,
// the busier slot: the GEMMs, or the ALU micro-ops with the bus beats of slot A's loads (accumulators as
// read, 160 bytes = 20 beats of a 64-bit bus; micro-ops, 80 bytes = 10 beats). The memory bound is the
// same on both.
TEST(CycleBounds, TheTwoSlotStagesComputeBoundIsItsBusierSlot) {
  Stats s;
  s.gemm_counter = 100, s.alu_counter = 30;
  s.acc_load_nbytes = 640, s.acc_load_dram_nbytes = 160, s.uop_load_nbytes = 80;
  EXPECT_DOUBLE_EQ(cycle_bounds(s, 64).compute, 130.0);
  EXPECT_DOUBLE_EQ(cycle_bounds(s, 64, 2).compute, 100.0);  // GEMMs 100 > 30 + 20 + 10
  s.alu_counter = 120;
  EXPECT_DOUBLE_EQ(cycle_bounds(s, 64, 2).compute, 150.0);  // 120 + 20 + 10 > 100
  EXPECT_DOUBLE_EQ(cycle_bounds(s, 256, 2).compute, 120.0 + 160.0 / 32 + 80.0 / 32);
  EXPECT_DOUBLE_EQ(cycle_bounds(s, 64, 2).memory, cycle_bounds(s, 64).memory);
  EXPECT_DOUBLE_EQ(cycle_bounds(s, 64).memory, (160.0 + 80.0) / 8);
}

}  // namespace
}  // namespace vta
