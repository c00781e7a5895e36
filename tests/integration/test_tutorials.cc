// The two tutorial workloads on the runtime: every output verified on random data with several seeds,
// the seeds' statistics exactly, and the runtime call trace identical to the seeds' final lowered
// programs evaluated loop by loop (tests/golden/, made by scripts/seed_trace.py from the seed text).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tutorials.h"
#include "vta/runtime.h"

namespace vta::tutorials {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

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

void expect_trace(Result (*run)(uint32_t), const char* golden) {
  const auto path = std::filesystem::temp_directory_path() / ("vta_trace_" + std::to_string(::getpid()) + ".txt");
  ASSERT_EQ(setenv("VTA_TRACE_CALLS", path.c_str(), 1), 0);
  VTARuntimeShutdown();  // the next queue opens the trace file
  const Result r = run(3);
  VTARuntimeShutdown();  // closes it
  unsetenv("VTA_TRACE_CALLS");
  ASSERT_TRUE(r.ok()) << r.error;
  const std::string got = read(path), want = read(std::filesystem::path(VTA_GOLDEN_DIR) / golden);
  std::filesystem::remove(path);
  ASSERT_FALSE(want.empty()) << golden;
  EXPECT_EQ(got, want) << "the runtime call trace differs from " << golden;
}

TEST(TutorialTraces, MatrixMultiplyEqualsTheSeedListing) { expect_trace(matrix_multiply, "matrix_multiply.trace"); }
TEST(TutorialTraces, ConvolutionEqualsTheSeedListing) { expect_trace(convolution, "convolution.trace"); }

}  // namespace
}  // namespace vta::tutorials
