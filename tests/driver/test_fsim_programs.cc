// Whole programs in the reference's bare-metal test style (ALU tests for every opcode, GEMM and
// blocked GEMM with 1 and 2 virtual threads), on every sample configuration, checking every output
// element against a plain C++ reference and the statistics against closed-form formulas.

#include <gtest/gtest.h>

#include "workloads.h"

namespace vta {
namespace {

std::string config_name(const std::string& path) { return std::filesystem::path(path).stem().string(); }

void expect_clean(const test::WorkloadResult& r) {
  ASSERT_EQ(r.status, RunStatus::kOk) << r.error;
  EXPECT_EQ(r.mismatches, 0u);
  EXPECT_EQ(r.stats, r.expected) << "got " << r.stats.to_json() << "\nwant " << r.expected.to_json();
}

class Programs : public ::testing::TestWithParam<std::string> {
 protected:
  Config cfg = Config::from_file(GetParam());
  std::unique_ptr<FsimDevice> dev = test::make_test_fsim(cfg);
};

TEST_P(Programs, AluEveryOpcodeImmediateAndVectorWithAndWithoutCompression) {
  const int batch = 4 * cfg.batch();
  for (AluOp op : {AluOp::kMin, AluOp::kMax, AluOp::kAdd, AluOp::kShr, AluOp::kMul}) {
    for (bool use_imm : {true, false}) {
      for (bool compression : {false, true}) {
        for (int vector_size : {cfg.block_out(), 8 * cfg.block_out(), 64 * cfg.block_out()}) {
          SCOPED_TRACE(std::string(to_string(op)) + (use_imm ? " imm" : " vector") +
                       (compression ? " compressed" : "") + " vector_size " + std::to_string(vector_size));
          expect_clean(test::alu_workload(*dev, op, use_imm, batch, vector_size, compression, 17));
        }
      }
    }
  }
}

TEST_P(Programs, GemmSingleBlock) {
  // gemm_test(batch, in, out): one block covering all channels.
  for (bool compression : {false, true}) {
    expect_clean(test::blocked_gemm(*dev, 4 * cfg.batch(), 4 * cfg.block_in(), 4 * cfg.block_in(), compression, 1, 3));
  }
}

TEST_P(Programs, BlockedGemmOneAndTwoVirtualThreads) {
  struct Shape {
    int batch, channels, block;
  };
  const int BI = cfg.block_in();
  for (Shape s : {Shape{cfg.batch(), 4 * BI, BI}, Shape{8 * cfg.batch(), 8 * BI, 2 * BI},
                  Shape{16 * cfg.batch(), 16 * BI, 4 * BI}, Shape{64 * cfg.batch(), 16 * BI, 8 * BI}}) {
    for (bool compression : {false, true}) {
      for (int vt : {1, 2}) {
        SCOPED_TRACE("batch " + std::to_string(s.batch) + " channels " + std::to_string(s.channels) + " block " +
                     std::to_string(s.block) + (compression ? " compressed" : "") + " vt " + std::to_string(vt));
        expect_clean(test::blocked_gemm(*dev, s.batch, s.channels, s.block, compression, vt, 5));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, Programs, ::testing::ValuesIn(test::sample_config_paths()),
                         [](const auto& param_info) { return config_name(param_info.param); });

// The reference's own sizes on the default configuration: blocked_gemm_test(256, 256, 64, ...) and
// gemm_test(4, 64, 64).
TEST(ReferenceSizes, BlockedGemm256) {
  auto dev = test::make_test_fsim(Config::default_config());
  for (bool compression : {false, true}) {
    for (int vt : {1, 2}) {
      SCOPED_TRACE(std::string(compression ? "compressed" : "plain") + " vt " + std::to_string(vt));
      auto r = test::blocked_gemm(*dev, 256, 256, 64, compression, vt, 42);
      expect_clean(r);
      EXPECT_EQ(r.stats.gemm_counter, 256u * 16 * 16);  // every (batch row, out tile, in tile) once
    }
  }
  expect_clean(test::blocked_gemm(*dev, 4, 64, 64, false, 1, 42));
}

}  // namespace
}  // namespace vta
