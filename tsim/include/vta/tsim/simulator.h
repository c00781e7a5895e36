#pragma once
/// \file vta/tsim/simulator.h
/// The cycle-accurate simulator: hw/rtl/vta_top Verilated, clocked by a controller with extensions
/// (an AXI4 DRAM model on the memory port, the AXI4-Lite host port, counters, waveform tracing). As a
/// driver backend it is `VTA_TARGET=tsim` (registered when a program links vta::tsim).
///
/// Environment (read by make_device("tsim") and Simulator::Options::from_env()):
///   VTA_WAVE=`<file.fst|file.vcd>` dump a waveform (and `<file>.gtkw` beside it)
///   VTA_WAVE_START, VTA_WAVE_STOP  dump only cycles [start, stop)
///   (the hierarchy depth of the dump is a build option: `cmake -DVTA_TSIM_TRACE_DEPTH=<levels>`)
///   VTA_TSIM_READ_LATENCY, VTA_TSIM_WRITE_LATENCY  DRAM latencies in cycles
///   VTA_TSIM_CYCLE_BUDGET          cycle budget of a run when the caller gives none (wait_cycles 0),
///                                  1 .. 2^40
///   VTA_TSIM_WATCHDOG              idle cycles before a deadlock is reported, 64 .. 2^32-1
///   (latencies are limited to 0 .. 65536 cycles)
///   VTA_TSIM_PROFILE=1             print each run's per-stage instruction, busy and stall counters

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "vta/driver/device.h"
#include "vta/driver/run_control.h"
#include "vta/driver/timeline.h"

namespace vta::tsim {

/// The DRAM model behind the AXI4 memory port.
struct DramTiming {
  uint32_t read_latency = 32;   ///< cycles from AR accepted to its first R beat
  uint32_t write_latency = 16;  ///< cycles from the last W beat to B
  uint32_t max_reads = 32;      ///< AR requests the model accepts before ARREADY drops
  uint32_t max_writes = 16;     ///< AW requests the model accepts before AWREADY drops
};

/// A protocol violation the DRAM model commits on purpose, to show how the accelerator and its
/// assertions react (a run with a fault ends with the violated assertion's name).
enum class DramFault : uint8_t {
  kNone,
  /// one R beat (ID 0, RLAST) while no read burst is outstanding, which AXI forbids: committed once,
  /// in the first cycle from dram_fault_cycle after a read burst has completed with none left
  kStrayReadBeat,
};

struct WaveOptions {
  std::string path;            ///< .fst or .vcd; the .gtkw save file is written beside it
  uint64_t start = 0;          ///< first cycle dumped
  uint64_t stop = UINT64_MAX;  ///< first cycle not dumped
  int depth = 0;               ///< must be 0: the depth is the build option VTA_TSIM_TRACE_DEPTH
};

/// Counters of the memory port, over the simulator's lifetime.
struct PortCounters {
  uint64_t read_bursts = 0, read_beats = 0, write_bursts = 0, write_beats = 0;
  uint64_t read_busy_cycles = 0;  ///< cycles an R beat was transferred
};

class Simulator {
 public:
  struct Options {
    DramTiming dram;
    std::optional<WaveOptions> wave;
    uint64_t default_budget = uint64_t{1} << 34;  ///< cycles, when run() is given 0
    uint32_t watchdog = 4096;                     ///< idle cycles before ERR_DEADLOCK (>= kMinWatchdog)
    Dram* dram_memory = nullptr;                  ///< nullptr = Dram::global()
    bool profile = false;                         ///< print per-stage busy/stall counters after each run
    /// Validate each program on the host before starting it, as the fsim does (the verdict and the
    /// diagnostic are the fsim's). Off only in tests of the RTL's own checks.
    bool host_validation = true;
    DramFault dram_fault = DramFault::kNone;  ///< for tests of the checks: a fault the DRAM model commits
    uint64_t dram_fault_cycle = 0;
    /// When set, each run is recorded cycle by cycle (what each stage does: vta/driver/timeline.h) and the
    /// timeline given to this function when the run ends, whatever its outcome.
    std::function<void(const Timeline&)> on_timeline;
    /// Defaults overridden by the set fields of `c` (validated); throws std::invalid_argument naming
    /// the setting (by its VTA_* variable) whose value is out of range.
    static Options from(const ClockedOptions& c);
    /// from(DeviceOptions::from_env().clocked): the VTA_* environment variables listed in this header.
    static Options from_env();
    /// A device's options: `d.clocked` (else the environment's) and its memory.
    static Options from(const DeviceOptions& d);
    /// Throws std::invalid_argument naming the first value outside its range (the limits below).
    void validate() const;
  };
  static constexpr uint32_t kMaxLatency = 65536;             ///< DRAM latency limit, cycles
  static constexpr uint32_t kMinWatchdog = 64;               ///< fewest idle cycles before a deadlock is reported
  static constexpr uint64_t kMaxBudget = uint64_t{1} << 40;  ///< cycle budget limit

  /// Whether this build checks the RTL's assertions (CMake option VTA_TSIM_ASSERT).
  static bool has_assertions();

  explicit Simulator(Options options);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  /// One AXI4-Lite register access through the host port (a few cycles each).
  void write_reg(uint32_t offset, uint32_t value);
  uint32_t read_reg(uint32_t offset);

  /// Runs `count` instructions at `insn_addr` until FINISH, an error status or `budget` cycles
  /// (0 = the default budget). On error or timeout last_error() holds a diagnostic naming what each
  /// module is doing, and the design is reset (SRAM contents stay, tokens are cleared).
  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget);

  /// The seven statistics since the last clear_stats(), and the cycles of the runs since then.
  const Stats& stats() const;
  void clear_stats();
  TokenCounts tokens();
  const std::string& last_error() const;
  ErrorKind last_error_kind() const;
  /// Cycles clocked since construction (runs, register accesses, resets).
  uint64_t cycle() const;
  const PortCounters& port_counters() const;

  /// Clocks the design until its interrupt output is high or `cycles` cycles have passed, and returns
  /// whether it is high: the free-running clock of the board emulator, whose driver runs programs
  /// through the registers itself (run() clocks its own runs).
  bool clock_until_irq(uint64_t cycles);
  /// The RTL assertions that failed since the last call, as a run's diagnostic states them ("" when
  /// none); forgets them.
  std::string take_fault();

  /// Starts / stops a waveform dump (the C++ API of VTA_WAVE).
  void start_wave(const WaveOptions& wave);
  void stop_wave();

 private:
  struct Impl;  // the model, its extensions and the run controller (run_control.h)
  std::unique_ptr<Impl> impl_;
};

/// The speed totals of every register-level run of the process (vta/driver/run_control.h).
using vta::speed_totals;
using vta::SpeedTotals;

/// Makes the tsim backend (as make_device("tsim", ...) does). Throws std::invalid_argument when
/// `config` is not the configuration the RTL was built for.
std::unique_ptr<Device> make_tsim_device(const Config& config, const DeviceOptions& options);
/// A tsim device with explicit simulator options (the environment is not read).
std::unique_ptr<Device> make_tsim_device(const Simulator::Options& options);

}  // namespace vta::tsim
