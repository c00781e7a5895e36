// The RTL core runs whole programs: the reference-style workloads (every output checked against a
// C++ reference, statistics against closed forms) and the matrix-multiply tutorial through the
// runtime (the seed's statistics exactly).

#include <gtest/gtest.h>

#include "../driver/workloads.h"
#include "rtl_core_device.h"
#include "tutorials.h"
#include "vta/runtime.h"

namespace vta::test {
namespace {

void expect_clean(const WorkloadResult& r) {
  ASSERT_EQ(r.status, RunStatus::kOk) << r.error;
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_TRUE(r.stats.counters_equal(r.expected)) << "got " << r.stats.to_json() << "\nwant " << r.expected.to_json();
}

TEST(HwCore, BlockedGemmWithOneAndTwoVirtualThreads) {
  RtlCoreDevice dev;
  for (bool compression : {false, true}) {
    for (int vt : {1, 2}) {
      SCOPED_TRACE(std::string(compression ? "compressed" : "plain") + " vt " + std::to_string(vt));
      expect_clean(blocked_gemm(dev, 4, 64, 32, compression, vt, 7));
    }
  }
  std::printf("rtl core: %llu cycles for 4 blocked GEMMs\n", static_cast<unsigned long long>(dev.cycles()));
}

TEST(HwCore, AluEveryOpcode) {
  RtlCoreDevice dev;
  for (AluOp op : {AluOp::kMin, AluOp::kMax, AluOp::kAdd, AluOp::kShr, AluOp::kMul}) {
    for (bool imm : {true, false}) {
      SCOPED_TRACE(std::string(to_string(op)) + (imm ? " imm" : " vector"));
      expect_clean(alu_workload(dev, op, imm, 2, 64, true, 3));
    }
  }
}

TEST(HwCore, MatrixMultiplyTutorialThroughTheRuntime) {
  register_backend("rtl-core", [](const Config&, const DeviceOptions&) { return std::make_unique<RtlCoreDevice>(); });
  ASSERT_EQ(setenv("VTA_TARGET", "rtl-core", 1), 0);
  VTARuntimeShutdown();
  const uint64_t before = RtlCoreDevice::total_cycles;
  const tutorials::Result r = tutorials::matrix_multiply(1);
  VTARuntimeShutdown();
  std::printf("rtl core: matrix multiply tutorial in %llu cycles\n",
              static_cast<unsigned long long>(RtlCoreDevice::total_cycles - before));
  unsetenv("VTA_TARGET");
  ASSERT_TRUE(r.ran) << r.error;
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_TRUE(r.stats.counters_equal(tutorials::matrix_multiply_seed_stats())) << r.stats.to_table();
}

}  // namespace
}  // namespace vta::test

namespace vta::test {
namespace {

TEST(HwCore, ConvolutionTutorialThroughTheRuntime) {
  register_backend("rtl-core", [](const Config&, const DeviceOptions&) { return std::make_unique<RtlCoreDevice>(); });
  ASSERT_EQ(setenv("VTA_TARGET", "rtl-core", 1), 0);
  VTARuntimeShutdown();
  const uint64_t before = RtlCoreDevice::total_cycles;
  const tutorials::Result r = tutorials::convolution(2);
  VTARuntimeShutdown();
  std::printf("rtl core: convolution tutorial in %llu cycles\n",
              static_cast<unsigned long long>(RtlCoreDevice::total_cycles - before));
  unsetenv("VTA_TARGET");
  ASSERT_TRUE(r.ran) << r.error;
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_TRUE(r.stats.counters_equal(tutorials::convolution_seed_stats())) << r.stats.to_table();
}

}  // namespace
}  // namespace vta::test
