// Whole programs in the reference's bare-metal test style (ALU tests for every opcode, GEMM and
// blocked GEMM with 1 and 2 virtual threads), on every sample configuration, checking every output
// element against a plain C++ reference and the statistics against closed-form formulas.

#include <gtest/gtest.h>

#include "program_suite.h"

namespace vta {
namespace {

std::string config_name(const std::string& path) { return std::filesystem::path(path).stem().string(); }

class Programs : public ::testing::TestWithParam<std::string> {
 protected:
  Config cfg_ = Config::from_file(GetParam());
  std::unique_ptr<FsimDevice> dev_ = test::make_test_fsim(cfg_);
};

TEST_P(Programs, AluEveryOpcodeImmediateAndVectorWithAndWithoutCompression) {
  test::alu_every_opcode_suite(*dev_, cfg_);
}

TEST_P(Programs, GemmSingleBlock) { test::gemm_single_block_suite(*dev_, cfg_); }

TEST_P(Programs, BlockedGemmOneAndTwoVirtualThreads) { test::blocked_gemm_suite(*dev_, cfg_); }

INSTANTIATE_TEST_SUITE_P(Configs, Programs, ::testing::ValuesIn(test::sample_config_paths()),
                         [](const auto& param_info) { return config_name(param_info.param); });

TEST(ReferenceSizes, BlockedGemm256) {
  auto dev = test::make_test_fsim(Config::default_config());
  test::reference_sizes_suite(*dev);
}

}  // namespace
}  // namespace vta
