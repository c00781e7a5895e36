// The two tutorial workloads on the runtime: every output verified on random data with several seeds,
// the seeds' statistics exactly, and the runtime call trace identical to the seeds' final lowered
// programs evaluated loop by loop (tests/golden/, made by scripts/seed_trace.py from the seed text).

#include <gtest/gtest.h>

#include "golden_trace.h"

namespace vta::tutorials {
namespace {

class Tutorials : public ::testing::TestWithParam<uint32_t> {};

// A tutorial's run: no runtime error, each of its `outputs` outputs equal to the reference, and the
// statistics its seed printed (`seed`, typed here from the seed's text; the workload's own copy of
// them, `seed_stats`, agrees).
void expect_verified(const Result& r, size_t outputs, const Stats& seed, const Stats& seed_stats) {
  EXPECT_TRUE(seed_stats.counters_equal(seed)) << seed_stats.to_table();
  ASSERT_TRUE(r.ran) << r.error;
  EXPECT_EQ(r.outputs, outputs);
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_TRUE(r.stats.counters_equal(seed)) << r.stats.to_table();
}

TEST_P(Tutorials, MatrixMultiplyVerifiedWithTheSeedStatistics) {
  const Result r = matrix_multiply(GetParam());
  // inp, wgt, acc, uop load bytes; out store bytes; GEMM and ALU micro-ops
  expect_verified(r, 1024, Stats{4096, 1048576, 0, 20, 1024, 4096, 192, std::nullopt, std::nullopt},
                  matrix_multiply_seed_stats());
}

TEST_P(Tutorials, ConvolutionVerifiedWithTheSeedStatistics) {
  const Result r = convolution(GetParam());
  expect_verified(r, 50176, Stats{114688, 1179648, 0, 1144, 50176, 451584, 9408, std::nullopt, std::nullopt},
                  convolution_seed_stats());
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
