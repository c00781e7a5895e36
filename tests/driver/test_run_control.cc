// The run controller's handling of SIGINT and SIGTERM, on a register bus whose accelerator finishes in
// the same slice the signal comes in: the signal must stop the run (issue 46: a signal recorded while
// the run finished was lost once the handlers were restored, so one SIGTERM was ignored).

#include <gtest/gtest.h>

#include <csignal>
#include <map>

#include "vta/driver/build_config.h"
#include "vta/driver/interrupt.h"
#include "vta/driver/run_control.h"
#include "vta/driver/vcr_map.h"

namespace vta {
namespace {

// An accelerator that finishes every program at once: DONE set, no error, no instruction left. When
// `signal` is set, it is raised while the run is clocked, in the slice that finishes it.
class FinishingBus final : public RegisterBus {
 public:
  explicit FinishingBus(int signal) : signal_(signal) {}
  void write_reg(uint32_t offset, uint32_t value) override { regs_[offset] = value; }
  uint32_t read_reg(uint32_t offset) override {
    if (offset == vcr::kCtrl) return vcr::bit("CTRL_DONE");
    return 0;  // status, queue fills, counters, errors: none
  }
  bool wait_irq(uint64_t cycles) override {
    if (signal_ != 0) ::raise(signal_);  // delivered at once to this thread: recorded by the run
    cycles_ += std::min<uint64_t>(cycles, 100);
    return true;
  }
  uint64_t cycles() const override { return cycles_; }
  void reset_design() override {}

 private:
  int signal_;
  uint64_t cycles_ = 0;
  std::map<uint32_t, uint32_t> regs_;
};

RunStatus run_with(int signal, std::string& error, ErrorKind& kind) {
  Dram dram;
  void* insns = dram.alloc(Config::kInsnElemBytes);
  FinishingBus bus(signal);
  RunControlOptions o;
  o.host_validation = false;
  RunControl control(bus, dram, build_config(), o);
  const RunStatus status = control.run(dram.phys_addr(insns), 1, 0);
  error = control.last_error();
  kind = control.last_error_kind();
  return status;
}

TEST(RunControlSignals, ASignalInTheSliceThatFinishesTheRunStopsIt) {
  for (const int sig : {SIGINT, SIGTERM}) {
    std::string error;
    ErrorKind kind = ErrorKind::kNone;
    EXPECT_EQ(run_with(sig, error, kind), RunStatus::kError) << "signal " << sig << " was lost";
    EXPECT_EQ(kind, ErrorKind::kInterrupted);
    EXPECT_NE(error.find(sig == SIGINT ? "interrupted by SIGINT" : "interrupted by SIGTERM"), std::string::npos)
        << error;
    EXPECT_EQ(process_stop_signal(), sig) << "what a program's main reports as its exit status";
  }
}

TEST(RunControlSignals, WithoutASignalTheRunSucceedsAndTheHandlersAreRestored) {
  std::string error;
  ErrorKind kind = ErrorKind::kNone;
  EXPECT_EQ(run_with(0, error, kind), RunStatus::kOk) << error;
  struct sigaction now = {};
  ASSERT_EQ(::sigaction(SIGTERM, nullptr, &now), 0);
  EXPECT_EQ(now.sa_handler, SIG_DFL) << "the run put SIGTERM's previous disposition back";
}

}  // namespace
}  // namespace vta
