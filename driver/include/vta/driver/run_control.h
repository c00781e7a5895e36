#pragma once
/// \file vta/driver/run_control.h
/// Running a program on the accelerator through its control registers (vta/driver/vcr_map.h), and
/// turning what the registers say into the statistics and a diagnostic: the part of every
/// register-level backend that does not care how the design is reached. The tsim clocks the Verilated
/// model itself; a virtual platform clocks it with SystemC and reaches its registers over TLM; a board
/// reaches them through its Linux driver's register window. All give the same verdicts, the same
/// diagnostics and the same statistics because they run this code.

#include <cstdint>
#include <string>

#include "vta/driver/device.h"
#include "vta/driver/isa.h"
#include "vta/driver/memory.h"

namespace vta {

/// The accelerator as a run sees it.
class RegisterBus {
 public:
  virtual ~RegisterBus() = default;
  /// One AXI4-Lite register access (throws std::runtime_error when it is not answered in time).
  virtual void write_reg(uint32_t offset, uint32_t value) = 0;
  virtual uint32_t read_reg(uint32_t offset) = 0;
  /// Clocks until the interrupt output is high (true), or until `cycles` cycles have passed or an RTL
  /// assertion failed (false).
  virtual bool wait_irq(uint64_t cycles) = 0;
  /// Cycles clocked so far.
  virtual uint64_t cycles() const = 0;
  /// Resets the design (SRAM contents stay, tokens and counters are cleared).
  virtual void reset_design() = 0;
  /// Whether the design reported a fault of its own since the last take_fault() (a simulator: an RTL
  /// assertion failed). A run stops at the next look and fails with kInternal.
  virtual bool faulted() const { return false; }
  /// What the fault was, for the diagnostic after "error [internal]: " (ends with a newline), and
  /// forgets it.
  virtual std::string take_fault() { return {}; }
  /// Told every program a run is about to start (a simulator names the instructions in its waveform).
  virtual void on_program(const Isa& /*isa*/, const uint8_t* /*stream*/, uint32_t /*count*/) {}
  /// Finishes the waveform being written, if any, and returns its path ("" when none): an interrupted
  /// run leaves a complete file behind.
  virtual std::string close_waveform() { return {}; }
};

struct RunControlOptions {
  uint64_t default_budget = uint64_t{1} << 34;  ///< cycles, when run() is given 0
  uint32_t watchdog = 4096;                     ///< written to the WATCHDOG register after every reset
  bool host_validation = true;                  ///< validate each program as the fsim does before starting it
  bool profile = false;                         ///< print per-stage counters after each run
  const char* name = "tsim";                    ///< the backend's name in diagnostics
  /// The accelerator is shared by several controllers (the systemc backend's devices): its counters
  /// are cleared before each run and each controller adds what its own runs counted.
  bool shared = false;
};

class RunControl {
 public:
  RunControl(RegisterBus& bus, Dram& memory, const Config& config, RunControlOptions options);
  RunControl(const RunControl&) = delete;
  RunControl& operator=(const RunControl&) = delete;

  /// Resets the design and sets the watchdog (the state after construction and after a failed run).
  void reset();
  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget);
  const Stats& stats() const { return stats_; }
  void clear_stats();
  TokenCounts tokens();
  const std::string& last_error() const { return last_error_; }
  ErrorKind last_error_kind() const { return last_error_kind_; }
  void set_shared(bool shared) { options_.shared = shared; }

 private:
  std::string diagnose(RunStatus status, ErrorKind kind, const std::string& what, PhysAddr insn_addr, uint32_t count);
  RunStatus fail(RunStatus status, ErrorKind kind, std::string diagnostic, const Stats& before);
  RunStatus assertion_failed(const Stats& before);
  ErrorKind classify(uint32_t error_status, PhysAddr insn_addr, uint32_t count) const;
  void read_stats();
  void print_profile(uint64_t cycles);
  /// Waits for the accelerator in slices, printing progress and watching for SIGINT/SIGTERM between
  /// them. Returns whether it finished; `interrupted` is the signal that came during the wait (0: none),
  /// whether or not the accelerator finished too.
  bool wait_done(uint64_t budget, uint32_t count, int& interrupted);
  bool clock_until_done(uint64_t budget, uint32_t count, int& interrupted);  ///< wait_done's loop

  RegisterBus& bus_;
  Dram& memory_;
  Isa isa_;
  RunControlOptions options_;
  Stats stats_;
  Stats base_;  ///< statistics before the last reset (the hardware counters restart from 0)
  std::string last_error_;
  ErrorKind last_error_kind_ = ErrorKind::kNone;
};

/// Cycles clocked inside RunControl::run and the wall-clock seconds they took, summed over every
/// controller of the process (for speed reports; register accesses and resets are not included).
struct SpeedTotals {
  uint64_t cycles = 0;
  double seconds = 0;
  double cycles_per_second() const { return seconds > 0 ? double(cycles) / seconds : 0; }
};
SpeedTotals speed_totals();

}  // namespace vta
