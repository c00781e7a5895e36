// The two tutorial workloads on the runtime: every output verified on random data with several seeds,
// the seeds' statistics exactly, and the runtime call trace identical to the seeds' final lowered
// programs evaluated loop by loop (tests/golden/, made by scripts/seed_trace.py from the seed text).

#include <gtest/gtest.h>

#include "golden_trace.h"

namespace vta::tutorials {
namespace {

class Tutorials : public ::testing::TestWithParam<uint32_t> {};

TEST_P(Tutorials, MatrixMultiplyVerifiedWithTheSeedStatistics) {
  const Result r = matrix_multiply(GetParam());
  ASSERT_TRUE(r.ran) << r.error;
  EXPECT_EQ(r.outputs, 1024u);
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_TRUE(r.stats.counters_equal(matrix_multiply_seed_stats())) << r.stats.to_table();
  EXPECT_EQ(r.stats.inp_load_nbytes, 4096u);
  EXPECT_EQ(r.stats.wgt_load_nbytes, 1048576u);
  EXPECT_EQ(r.stats.uop_load_nbytes, 20u);
  EXPECT_EQ(r.stats.gemm_counter, 4096u);
  EXPECT_EQ(r.stats.alu_counter, 192u);
}

TEST_P(Tutorials, ConvolutionVerifiedWithTheSeedStatistics) {
  const Result r = convolution(GetParam());
  ASSERT_TRUE(r.ran) << r.error;
  EXPECT_EQ(r.outputs, 50176u);
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_TRUE(r.stats.counters_equal(convolution_seed_stats())) << r.stats.to_table();
  EXPECT_EQ(r.stats.inp_load_nbytes, 114688u);
  EXPECT_EQ(r.stats.uop_load_nbytes, 1144u);
  EXPECT_EQ(r.stats.gemm_counter, 451584u);
  EXPECT_EQ(r.stats.alu_counter, 9408u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, Tutorials, ::testing::Values(0u, 1u, 7u));

TEST(TutorialTraces, MatrixMultiplyEqualsTheSeedListing) {
  expect_trace([] { return matrix_multiply(3); }, "matrix_multiply.trace");
}
TEST(TutorialTraces, ConvolutionEqualsTheSeedListing) {
  expect_trace([] { return convolution(3); }, "convolution.trace");
}

}  // namespace
}  // namespace vta::tutorials
