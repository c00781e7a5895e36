// Invalid programs on the tsim: each class ends the run with an error status (the register bit named
// in the diagnostic), the instruction each stage holds, and the token counts; a deadlock is caught
// by the hardware watchdog within a bounded number of cycles; a run past its budget is a timeout;
// the device is usable again afterwards.

#include <gtest/gtest.h>

#include "../driver/test_util.h"
#include "vta/build_config.h"
#include "vta/tsim.h"

namespace vta {
namespace {

using test::DevBuf;
using test::Program;

class TsimErrors : public ::testing::Test {
 protected:
  const Config& cfg = build_config();
  std::unique_ptr<Device> dev = make_device("tsim", cfg);
  DevBuf data{64 * 1024};
  DevBuf uops{4 * 64};

  void expect_failure(const Program& p, RunStatus status, std::initializer_list<std::string> needles,
                      uint64_t budget = 0) {
    EXPECT_EQ(p.run(*dev, budget), status);
    const std::string& err = dev->last_error();
    for (const auto& n : needles) EXPECT_NE(err.find(n), std::string::npos) << "missing '" << n << "' in:\n" << err;
    EXPECT_NE(err.find("tokens l2g="), std::string::npos) << err;
    EXPECT_EQ(dev->tokens(), TokenCounts{}) << "a failed run resets the design";
    // and the device still works
    Program ok(cfg);
    ok.load(MemId::kInp, 0, data.base(16), 1, 1, 1).finish();
    EXPECT_EQ(ok.run(*dev), RunStatus::kOk) << dev->last_error();
  }
  uint32_t base(int unit) const { return data.base(unit); }
};

TEST_F(TsimErrors, IllegalOpcode) {
  Program bad(cfg);
  bad.raw(RawInsn{5, 0}).finish();
  expect_failure(bad, RunStatus::kError, {"compute stage refused", "compute: refused instruction 0"});
}

TEST_F(TsimErrors, IllegalMemoryTypes) {
  Program load_out(cfg);
  load_out.load(MemId::kOut, 0, base(16), 1, 1, 1).finish();
  expect_failure(load_out, RunStatus::kError, {"compute stage refused", "LOAD OUT"});
  Program store_acc(cfg);
  store_acc.raw(store_acc.isa().encode(MemInsn{1, {}, 3, 0, base(16), 1, 1, 1, 0, 0, 0, 0})).finish();
  expect_failure(store_acc, RunStatus::kError, {"store stage refused", "store: refused instruction 0"});
}

TEST_F(TsimErrors, SramRangesBeyondDepth) {
  Program inp(cfg);
  inp.load(MemId::kInp, 2040, base(16), 2, 4, 4, {}, 0, 0, 0, 1).finish();
  expect_failure(inp, RunStatus::kError, {"load stage refused", "load: refused instruction 0 (LOAD INP"});
  Program uop(cfg);
  uop.load(MemId::kUop, 8190, base(4), 1, 4, 4).finish();
  expect_failure(uop, RunStatus::kError, {"compute stage refused", "LOAD UOP"});
  Program store(cfg);
  store.store(2047, base(16), 1, 2, 2).finish();
  expect_failure(store, RunStatus::kError, {"store stage refused"});
}

TEST_F(TsimErrors, GemmIndexBeyondDepth) {
  test::put_uops(Program(cfg).isa(), uops, {{2000, 10, 1000}});
  Program p(cfg);
  GemmInsn g = test::gemm_insn(0, 1, 1, 3);
  g.dst_factor_in = 30;  // 2000 + 2*30 = 2060 >= 2048
  p.load(MemId::kUop, 0, uops.base(4), 1, 1, 1).gemm(g).finish();
  expect_failure(p, RunStatus::kError, {"compute stage refused", "(GEMM"});
}

TEST_F(TsimErrors, ZeroIterations) {
  Program p(cfg);
  p.gemm(test::gemm_insn(0, 1, 0, 1)).finish();
  expect_failure(p, RunStatus::kError, {"compute stage refused"});
}

TEST_F(TsimErrors, DramAccessOutsideAllocations) {
  Program unmapped(cfg);
  unmapped.load(MemId::kInp, 0, 0x10, 1, 1, 1, test::push_next()).finish(test::pop_prev());  // page 0: never mapped
  expect_failure(unmapped, RunStatus::kError, {"memory answered a read with an error response", "memory client: inp load"});
  // FINISH not ordered after the failing load: done waits for the memory traffic, so the run still
  // reports the error.
  Program racing(cfg);
  racing.load(MemId::kInp, 0, 0x10, 1, 1, 1).finish();
  expect_failure(racing, RunStatus::kError, {"memory answered a read with an error response", "memory client: inp load"});
  Program store(cfg);
  // (memory is checked per page, like an IOMMU: a row running into the next allocation is not caught)
  store.store(0, 0x10, 1, 2, 2, test::push_prev()).finish(test::pop_next());
  expect_failure(store, RunStatus::kError, {"memory answered a write with an error response", "memory client: store"});
}

TEST_F(TsimErrors, DeadlockIsReportedByTheWatchdog) {
  Program p(cfg);
  GemmInsn g = test::gemm_insn(0, 1);
  g.deps.pop_prev = true;  // waits for a load that never pushes
  p.load(MemId::kInp, 0, base(16), 1, 1, 1).gemm(g).store(0, base(16), 1, 1, 1, test::pop_prev()).finish();
  EXPECT_EQ(p.run(*dev), RunStatus::kError);
  const std::string& err = dev->last_error();
  for (const char* n : {"token deadlock", "compute: waiting for a token with instruction 1 (GEMM",
                        "store: waiting for a token with instruction 2 (STORE", "load: idle after 1 instructions"}) {
    EXPECT_NE(err.find(n), std::string::npos) << "missing '" << n << "' in:\n" << err;
  }
  // bounded: the watchdog's 4096 idle cycles plus the run's few dozen
  EXPECT_NE(err.find("after 41"), std::string::npos) << err;
}

TEST_F(TsimErrors, FinishWithInstructionsWaiting) {
  Program p(cfg);
  p.store(0, base(16), 1, 1, 1, test::pop_prev()).finish();  // the store waits for a token nobody pushes
  expect_failure(p, RunStatus::kError,
                 {"FINISH completed with instructions still waiting", "store: waiting for a token with instruction 0"});
}

TEST_F(TsimErrors, BudgetOverrunIsATimeout) {
  test::put_uops(Program(cfg).isa(), uops, {{0, 0, 0}});
  Program p(cfg);
  p.load(MemId::kUop, 0, uops.base(4), 1, 1, 1).gemm(test::gemm_insn(0, 1, 1000, 100)).finish();
  expect_failure(p, RunStatus::kTimeout, {"exceeded its cycle budget of 5000 cycles", "compute: executing instruction 1"},
                 5000);
}

TEST(TsimOptions, MalformedEnvironmentIsNamed) {
  setenv("VTA_TSIM_READ_LATENCY", "fast", 1);
  try {
    (void)tsim::Simulator::Options::from_env();
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("VTA_TSIM_READ_LATENCY=\"fast\""), std::string::npos) << e.what();
  }
  unsetenv("VTA_TSIM_READ_LATENCY");
  setenv("VTA_WAVE", "run.txt", 1);
  EXPECT_THROW((void)make_device("tsim", build_config()), std::invalid_argument);
  unsetenv("VTA_WAVE");
}

}  // namespace
}  // namespace vta
