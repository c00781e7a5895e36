// What the fsim says about invalid programs beyond what every backend says (test_backend_errors.cc):
// the exact index a micro-op loop reaches, each module's state in a deadlock, and its work-unit budget.

#include <gtest/gtest.h>

#include "test_util.h"

namespace vta {
namespace {

using test::DevBuf;
using test::Program;

class FsimErrors : public test::DefaultFsimTest {
 protected:
  DevBuf data_{64 * 1024};
  DevBuf uops_{4 * 64};

  // Runs `p` and checks the status and that the diagnostic contains each of `needles`.
  void expect_failure(const Program& p, RunStatus status, std::initializer_list<std::string> needles,
                      uint64_t budget = 0) {
    EXPECT_EQ(p.run(*dev_, budget), status);
    const std::string& err = dev_->last_error();
    for (const auto& n : needles) EXPECT_NE(err.find(n), std::string::npos) << "missing '" << n << "' in:\n" << err;
    EXPECT_NE(err.find("tokens: l2g="), std::string::npos) << err;
    EXPECT_EQ(dev_->tokens(), TokenCounts{}) << "a failed run resets the token queues";
  }
  uint32_t base(int unit) const { return data_.base(unit); }
};

TEST_F(FsimErrors, GemmAndAluIndicesBeyondDepth) {
  test::put_uops(Program(cfg_).isa(), uops_, {{2000, 10, 1000}, {5, 2047, 3}});
  auto with_uops = [&](auto&& add) { return test::with_uops(cfg_, uops_, 2, add); };
  GemmInsn g = test::gemm_insn(0, 1, 1, 3);
  g.dst_factor_in = 30;  // 2000 + 2*30 = 2060 >= 2048
  expect_failure(with_uops([&](Program& p) { p.gemm(g); }), RunStatus::kError,
                 {"SRAM index out of range: the accumulator (dst) index reaches 2060", "GEMM"});
  g = test::gemm_insn(0, 1, 2, 1);
  g.wgt_factor_out = 24;  // 1000 + 24 = 1024
  expect_failure(with_uops([&](Program& p) { p.gemm(g); }), RunStatus::kError,
                 {"weight (wgt) index reaches 1024", "depth is 1024"});
  g = test::gemm_insn(1, 2, 1, 2);
  g.src_factor_in = 1;  // 2047 + 1 = 2048
  expect_failure(with_uops([&](Program& p) { p.gemm(g); }), RunStatus::kError, {"input (src) index reaches 2048"});
  AluInsn a = test::alu_insn(AluOp::kAdd, 1, 2, false, 0, 1, 2);
  a.src_factor_in = 1;
  expect_failure(with_uops([&](Program& p) { p.alu(a); }), RunStatus::kError,
                 {"accumulator (src) index reaches 2048", "ALU ADD"});
  // With an immediate the source index is not read, so it cannot be out of range.
  a.use_imm = true;
  Program ok = with_uops([&](Program& p) { p.alu(a); });
  EXPECT_EQ(ok.run(*dev_), RunStatus::kOk) << dev_->last_error();
}

TEST_F(FsimErrors, DependencyDeadlockIsReportedWithModuleStates) {
  expect_failure(test::deadlocking_program(cfg_, base(16)), RunStatus::kError,
                 {"dependency deadlock", "load: idle, executed all 1", "compute: at instruction 1",
                  "waiting for a token on l2g (load -> compute)", "store: at instruction 2",
                  "waiting for a token on g2s (compute -> store)"});
}

TEST_F(FsimErrors, BudgetOverrunIsATimeout) {
  test::put_uops(Program(cfg_).isa(), uops_, {{0, 0, 0}});
  Program p(cfg_);
  p.load(MemId::kUop, 0, uops_.base(4), 1, 1, 1).gemm(test::gemm_insn(0, 1, 1000, 1000)).finish();
  expect_failure(p, RunStatus::kTimeout,
                 {"timeout at instruction 1", "exceeded its budget of 100000 work units", "needs 1000001"}, 100000);
  EXPECT_EQ(dev_->stats().gemm_counter, 0u) << "the instruction over budget must not execute";
  EXPECT_EQ(p.run(*dev_, 2000000), RunStatus::kOk) << dev_->last_error();
}

}  // namespace
}  // namespace vta
