// The tutorials compiled from their schedules against the hand-written programs of the runtime
// issue and the seeds: the runtime call trace (VTA_TRACE_CALLS) equals the golden trace of the
// hand-written program call for call, the statistics equal the seeds' tables, every output is right;
// and the printed final programs equal their golden listings.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "golden_trace.h"
#include "test_paths.h"
#include "vta/workloads/compiled.h"

namespace vta::tutorials {
namespace {

TEST(CompiledTutorials, MatrixMultiplyMakesTheHandWrittenCalls) {
  expect_trace([] { return compiled_matrix_multiply(3); }, "matrix_multiply.trace");
}
TEST(CompiledTutorials, ConvolutionMakesTheHandWrittenCalls) {
  expect_trace([] { return compiled_convolution(3); }, "convolution.trace");
}

TEST(CompiledTutorials, StatisticsEqualTheSeeds) {
  for (uint32_t seed : {0u, 1u}) {
    const Result m = compiled_matrix_multiply(seed);
    ASSERT_TRUE(m.ok()) << m.error;
    EXPECT_TRUE(m.stats.counters_equal(matrix_multiply_seed_stats())) << m.stats.to_table();
    const Result c = compiled_convolution(seed);
    ASSERT_TRUE(c.ok()) << c.error;
    EXPECT_TRUE(c.stats.counters_equal(convolution_seed_stats())) << c.stats.to_table();
  }
}

/// The final lowered programs, as printed by the tutorial steps, equal the golden listings
/// (tests/golden/*.lowered; regenerate with VTA_UPDATE_GOLDEN=1 after an intended change).
void expect_listing(const std::string& steps, const char* golden) {
  const std::string marker = "// ---- final lowered program\n";
  const size_t at = steps.find(marker);
  ASSERT_NE(at, std::string::npos);
  const std::string got = steps.substr(at + marker.size());
  const auto path = vta::test::source_path("tests/golden") / golden;
  if (std::getenv("VTA_UPDATE_GOLDEN") != nullptr) std::ofstream(path) << got;
  EXPECT_EQ(got, read_text(path)) << "the final lowered program differs from " << golden;
}

TEST(CompiledTutorials, FinalProgramsEqualTheGoldenListings) {
  std::ostringstream m, c;
  ASSERT_TRUE(compiled_matrix_multiply(0, &m).ok());
  ASSERT_TRUE(compiled_convolution(0, &c).ok());
  expect_listing(m.str(), "matrix_multiply.lowered");
  expect_listing(c.str(), "convolution.lowered");
  // every tutorial step prints its program
  for (const char* step : {"// ---- default schedule", "// ---- DMA copies", "// ---- final lowered program"}) {
    EXPECT_NE(m.str().find(step), std::string::npos) << step;
    EXPECT_NE(c.str().find(step), std::string::npos) << step;
  }
}

}  // namespace
}  // namespace vta::tutorials
