// Invalid programs on the tsim: each class ends the run with an error status (the register bit named
// in the diagnostic), the instruction each stage holds, and the token counts; a deadlock is caught
// by the hardware watchdog within a bounded number of cycles; a run past its budget is a timeout;
// the device is usable again afterwards.

#include <gtest/gtest.h>

#include "test_util.h"
#include "vta/driver/build_config.h"
#include "vta/tsim/simulator.h"

namespace vta {
namespace {

using test::DevBuf;
using test::Program;

// The fixture runs each program on a tsim device and checks the verdict, the error class, words of
// the diagnostic, and that the device is usable again afterwards.
class TsimErrorsBase : public ::testing::Test {
 protected:
  explicit TsimErrorsBase(std::unique_ptr<Device> d) : dev_(std::move(d)) {}
  const Config& cfg_ = build_config();
  std::unique_ptr<Device> dev_;
  DevBuf data_{64 * 1024};
  DevBuf uops_{4 * 64};

  void expect_failure(const Program& p, RunStatus status, ErrorKind kind, std::initializer_list<std::string> needles,
                      uint64_t budget = 0) {
    const Stats before = dev_->stats();
    EXPECT_EQ(p.run(*dev_, budget), status);
    EXPECT_EQ(dev_->last_error_kind(), kind) << dev_->last_error();
    const std::string& err = dev_->last_error();
    for (const auto& n : needles) EXPECT_NE(err.find(n), std::string::npos) << "missing '" << n << "' in:\n" << err;
    EXPECT_NE(err.find("tokens: l2g="), std::string::npos) << err;
    ASSERT_FALSE(err.empty());
    EXPECT_EQ(err.back(), '\n') << "a diagnostic ends its last line";
    EXPECT_EQ(dev_->tokens(), TokenCounts{}) << "a failed run resets the design";
    EXPECT_TRUE(dev_->stats().counters_equal(before)) << "a failed run counts nothing";
    // and the device still works
    Program ok(cfg_);
    ok.load(MemId::kInp, 0, data_.base(16), 1, 1, 1).finish();
    EXPECT_EQ(ok.run(*dev_), RunStatus::kOk) << dev_->last_error();
    EXPECT_EQ(dev_->last_error_kind(), ErrorKind::kNone);
  }
  uint32_t base(int unit) const { return data_.base(unit); }

  // The invalid programs both fixtures run (with host validation, and with the RTL's own checks).
  Program illegal_opcode() const { return std::move(Program(cfg_).raw(RawInsn{5, 0}).finish()); }
  Program load_out() const { return std::move(Program(cfg_).load(MemId::kOut, 0, base(16), 1, 1, 1).finish()); }
  Program store_acc() const {
    Program p(cfg_);
    return std::move(p.raw(p.isa().encode(MemInsn{1, {}, 3, 0, base(16), 1, 1, 1, 0, 0, 0, 0})).finish());
  }
  Program inp_past_depth() const {
    return std::move(Program(cfg_).load(MemId::kInp, 2040, base(16), 2, 4, 4, {}, 0, 0, 0, 1).finish());
  }
  Program store_past_depth() const { return std::move(Program(cfg_).store(2047, base(16), 1, 2, 2).finish()); }
  Program zero_iterations() const { return std::move(Program(cfg_).gemm(test::gemm_insn(0, 1, 0, 1)).finish()); }
  Program unmapped_load() const {  // page 0: never mapped
    return std::move(Program(cfg_).load(MemId::kInp, 0, 0x10, 1, 1, 1, test::push_next()).finish(test::pop_prev()));
  }
};

// The tsim as users get it: programs are validated on the host before they start, so a program the
// fsim refuses gets the fsim's verdict, class and message (one program, one verdict: every class is
// checked on every backend in tests/driver/test_backend_errors.cc). Here: what only the tsim says.
class TsimErrors : public TsimErrorsBase {
 protected:
  TsimErrors() : TsimErrorsBase(make_device("tsim", build_config())) {}
};

TEST_F(TsimErrors, GemmIndexBeyondDepthIsFoundByTheHardware) {
  // Micro-op indices are known only when the micro-ops are loaded: the RTL checks them as it runs.
  test::put_uops(Program(cfg_).isa(), uops_, {{2000, 10, 1000}});
  Program p(cfg_);
  GemmInsn g = test::gemm_insn(0, 1, 1, 3);
  g.dst_factor_in = 30;  // 2000 + 2*30 = 2060 >= 2048
  p.load(MemId::kUop, 0, uops_.base(4), 1, 1, 1).gemm(g).finish();
  expect_failure(p, RunStatus::kError, ErrorKind::kSramRange, {"[sram_range]", "compute stage refused", "(GEMM"});
}

TEST_F(TsimErrors, StreamProblems) {
  DevBuf insns{64};
  Program p(cfg_);
  p.finish();
  store_insn(insns.data(), p.insns()[0]);
  EXPECT_EQ(dev_->run(insns.phys(), 5, 0), RunStatus::kError) << "80 bytes from a 64-byte buffer";
  EXPECT_EQ(dev_->last_error_kind(), ErrorKind::kInvalidStream);
  EXPECT_EQ(dev_->run(insns.phys() + 8, 1, 0), RunStatus::kError);
  EXPECT_NE(dev_->last_error().find("not 16-byte aligned"), std::string::npos) << dev_->last_error();
  Program after(cfg_);
  after.finish().load(MemId::kInp, 0, base(16), 1, 1, 1);
  expect_failure(after, RunStatus::kError, ErrorKind::kInvalidStream, {"instruction follows FINISH"});
}

TEST_F(TsimErrors, DeadlockIsReportedByTheWatchdog) {
  EXPECT_EQ(test::deadlocking_program(cfg_, base(16)).run(*dev_), RunStatus::kError);
  EXPECT_EQ(dev_->last_error_kind(), ErrorKind::kDeadlock);
  const std::string& err = dev_->last_error();
  for (const char* n : {"[deadlock]", "token deadlock", "compute: waiting for a token with instruction 1 (GEMM",
                        "store: waiting for a token with instruction 2 (STORE", "load: idle after 1 instructions"}) {
    EXPECT_NE(err.find(n), std::string::npos) << "missing '" << n << "' in:\n" << err;
  }
  // bounded: the watchdog's 4096 idle cycles plus the run's few dozen
  EXPECT_NE(err.find("after 41"), std::string::npos) << err;
}

TEST_F(TsimErrors, FinishWithInstructionsWaiting) {
  Program p(cfg_);
  p.store(0, base(16), 1, 1, 1, test::pop_prev()).finish();  // the store waits for a token nobody pushes
  expect_failure(p, RunStatus::kError, ErrorKind::kUnfinished,
                 {"FINISH completed while 1 instruction(s)", "store: waiting for a token with instruction 0"});
}

TEST_F(TsimErrors, BudgetOverrunIsATimeout) {
  test::put_uops(Program(cfg_).isa(), uops_, {{0, 0, 0}});
  Program p(cfg_);
  p.load(MemId::kUop, 0, uops_.base(4), 1, 1, 1).gemm(test::gemm_insn(0, 1, 1000, 100)).finish();
  expect_failure(p, RunStatus::kTimeout, ErrorKind::kTimeout,
                 {"exceeded its cycle budget of 5000 cycles", "compute: executing instruction 1"}, 5000);
}

// The RTL's own checks, with host validation off: the hardware refuses what the validator would
// have refused, so a program that bypasses the host (a driver of its own) cannot corrupt memory.
class TsimHardwareChecks : public TsimErrorsBase {
 protected:
  static std::unique_ptr<Device> unvalidated() {
    tsim::Simulator::Options o;
    o.host_validation = false;
    return tsim::make_tsim_device(o);
  }
  TsimHardwareChecks() : TsimErrorsBase(unvalidated()) {}
};

TEST_F(TsimHardwareChecks, IllegalOpcode) {
  expect_failure(illegal_opcode(), RunStatus::kError, ErrorKind::kInvalidInstruction,
                 {"compute stage refused", "compute: refused instruction 0"});
}

TEST_F(TsimHardwareChecks, IllegalMemoryTypes) {
  expect_failure(load_out(), RunStatus::kError, ErrorKind::kInvalidInstruction, {"compute stage refused", "LOAD OUT"});
  expect_failure(store_acc(), RunStatus::kError, ErrorKind::kInvalidInstruction,
                 {"store stage refused", "store: refused instruction 0"});
}

TEST_F(TsimHardwareChecks, SramRangesBeyondDepth) {
  expect_failure(inp_past_depth(), RunStatus::kError, ErrorKind::kSramRange,
                 {"load stage refused", "load: refused instruction 0 (LOAD INP"});
  Program uop(cfg_);
  uop.load(MemId::kUop, 8190, base(4), 1, 4, 4).finish();
  expect_failure(uop, RunStatus::kError, ErrorKind::kSramRange, {"compute stage refused", "LOAD UOP"});
  expect_failure(store_past_depth(), RunStatus::kError, ErrorKind::kSramRange, {"store stage refused"});
}

TEST_F(TsimHardwareChecks, ZeroIterations) {
  expect_failure(zero_iterations(), RunStatus::kError, ErrorKind::kInvalidInstruction, {"compute stage refused"});
}

TEST_F(TsimHardwareChecks, MemoryModelChecksEachBurstAgainstItsAllocation) {
  expect_failure(unmapped_load(), RunStatus::kError, ErrorKind::kDramRange,
                 {"memory answered a read with an error response", "memory client: inp load"});
  // FINISH not ordered after the failing load: done waits for the memory traffic, so the run still
  // reports the error.
  Program racing(cfg_);
  racing.load(MemId::kInp, 0, 0x10, 1, 1, 1).finish();
  expect_failure(racing, RunStatus::kError, ErrorKind::kDramRange,
                 {"memory answered a read with an error response", "memory client: inp load"});
  // a row past the end of a 100-byte allocation (inside its page): SLVERR, not a silent write
  DevBuf small{100};
  Program store(cfg_);
  store.store(0, small.base(16), 2, 4, 4, test::push_prev()).finish(test::pop_next());
  expect_failure(store, RunStatus::kError, ErrorKind::kDramRange,
                 {"memory answered a write with an error response", "memory client: store"});
}

// The RTL's assertions fail a run by name: a memory that answers a read nobody asked for violates
// the AXI rule vta_bus_checker states as AxiRForOutstandingId.
TEST(TsimAssertions, AViolatedAssertionFailsTheRunWithItsName) {
  if (!tsim::Simulator::has_assertions()) GTEST_SKIP() << "built with VTA_TSIM_ASSERT=OFF";
  tsim::Simulator::Options o;
  o.dram_fault = tsim::DramFault::kStrayReadBeat;
  auto dev = tsim::make_tsim_device(o);
  DevBuf data{4096};
  Program p(build_config());
  p.load(MemId::kInp, 0, data.base(16), 1, 1, 1).finish();
  EXPECT_EQ(p.run(*dev), RunStatus::kError);
  EXPECT_EQ(dev->last_error_kind(), ErrorKind::kInternal);
  const std::string& err = dev->last_error();
  for (const char* needle : {"AxiRForOutstandingId", "vta_bus_checker.sv", "u_bus_checker"}) {
    EXPECT_NE(err.find(needle), std::string::npos) << "missing '" << needle << "' in:\n" << err;
  }
  // the fault is committed once: the device works again
  EXPECT_EQ(p.run(*dev), RunStatus::kOk) << dev->last_error();
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

// Options given as a value are the device's, whatever the environment says; unset, the environment's.
TEST(TsimOptions, GivenOptionsAreUsedAndTheEnvironmentIsNotRead) {
  setenv("VTA_TSIM_WATCHDOG", "0", 1);  // out of range: a device reading the environment is refused
  EXPECT_THROW((void)make_device("tsim", build_config()), std::invalid_argument);
  EXPECT_THROW((void)make_device("tsim", build_config(), DeviceOptions::from_env()), std::invalid_argument);
  DeviceOptions given;
  given.clocked = ClockedOptions{};
  given.clocked->watchdog = 64;
  auto dev = make_device("tsim", build_config(), given);
  unsetenv("VTA_TSIM_WATCHDOG");
  DevBuf data(4096);
  Program p(build_config());
  p.load(MemId::kInp, 0, data.base(16), 4, 4, 4, test::push_next()).finish(test::pop_prev());
  EXPECT_EQ(p.run(*dev), RunStatus::kOk) << dev->last_error();
  // and a value out of range is named as its variable names it
  given.clocked->read_latency = 100000;
  try {
    (void)make_device("tsim", build_config(), given);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("VTA_TSIM_READ_LATENCY = 100000 is outside"), std::string::npos) << e.what();
  }
}

// Every wait is bounded: values that would make a run spin for hours, or call valid programs
// deadlocked, are refused by name.
TEST(TsimOptions, OutOfRangeValuesAreRefusedByName) {
  const std::pair<const char*, const char*> bad[] = {
      {"VTA_TSIM_WATCHDOG", "0"},           {"VTA_TSIM_WATCHDOG", "2"},     {"VTA_TSIM_READ_LATENCY", "4294967295"},
      {"VTA_TSIM_WRITE_LATENCY", "100000"}, {"VTA_TSIM_CYCLE_BUDGET", "0"}, {"VTA_TSIM_CYCLE_BUDGET", "-5"},
  };
  for (const auto& [name, value] : bad) {
    setenv(name, value, 1);
    try {
      (void)tsim::Simulator::Options::from_env();
      ADD_FAILURE() << name << "=" << value << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)make_device("tsim", build_config()), std::invalid_argument) << name << "=" << value;
    unsetenv(name);
  }
  tsim::Simulator::Options o;
  o.watchdog = 0;
  EXPECT_THROW(tsim::Simulator{o}, std::invalid_argument) << "the C++ API is checked too";
  // the smallest allowed watchdog still runs valid programs
  setenv("VTA_TSIM_WATCHDOG", "64", 1);
  auto dev = make_device("tsim", build_config());
  unsetenv("VTA_TSIM_WATCHDOG");
  DevBuf data(4096);
  Program p(build_config());
  p.load(MemId::kInp, 0, data.base(16), 4, 4, 4, test::push_next()).finish(test::pop_prev());
  EXPECT_EQ(p.run(*dev), RunStatus::kOk) << dev->last_error();
}

// Token queues hold at most 255 tokens on every backend, and an instruction waits for room before
// it starts: a program that leaves one token per run behaves the same on the fsim and the tsim at
// every run (here: run 256 cannot push, so FINISH completes with the load still waiting).
TEST(TsimTokens, AQueueThatFillsUpGetsTheSameVerdictOnEveryBackend) {
  const Config& cfg = build_config();
  auto fsim = test::make_test_fsim(cfg);
  auto tsim = make_device("tsim", cfg);
  DevBuf data(4096);
  Program p(cfg);
  p.load(MemId::kInp, 0, data.base(16), 1, 1, 1, test::push_next()).finish();  // nobody pops l2g
  int first_failure[2] = {-1, -1};
  Device* devs[2] = {fsim.get(), tsim.get()};
  for (int d = 0; d < 2; ++d) {
    for (int run = 1; run <= 300 && first_failure[d] < 0; ++run) {
      if (p.run(*devs[d]) != RunStatus::kOk) first_failure[d] = run;
      if (run == 255) {
        EXPECT_EQ(devs[d]->tokens().l2g, 255u) << devs[d]->target();
      }
    }
    EXPECT_EQ(devs[d]->last_error_kind(), ErrorKind::kUnfinished) << devs[d]->last_error();
    EXPECT_EQ(devs[d]->tokens(), TokenCounts{}) << "a failed run empties the queues";
  }
  EXPECT_EQ(first_failure[0], 256);
  EXPECT_EQ(first_failure[1], first_failure[0]) << "the tsim and the fsim disagree on when the queue is full";
  // with a consumer, a full queue only makes the producer wait: the load cannot start until the
  // compute no-op has popped, then the run completes (one token fewer each time) on both
  Program draining(cfg);
  draining.load(MemId::kInp, 0, data.base(16), 1, 1, 1, test::push_next())
      .load(MemId::kUop, 0, 0, 0, 0, 0, test::pop_prev())  // compute no-op
      .finish(test::pop_prev());
  for (int d = 0; d < 2; ++d) {
    for (int run = 0; run < 255; ++run) ASSERT_EQ(p.run(*devs[d]), RunStatus::kOk);
    for (int run = 0; run < 45; ++run) ASSERT_EQ(draining.run(*devs[d]), RunStatus::kOk) << devs[d]->last_error();
    EXPECT_EQ(devs[d]->tokens().l2g, 210u) << devs[d]->target();
  }
}

}  // namespace
}  // namespace vta
