#pragma once
/// \file vta/driver/device.h
/// The one Device interface every backend implements (fsim now; tsim and remote devices later), the
/// VTA statistics, and the factory that picks a backend by name or from VTA_TARGET.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vta/driver/config.h"
#include "vta/driver/isa.h"
#include "vta/driver/memory.h"

namespace vta {

/// The seven VTA statistics (spec 7.3) and, on clocked backends, the cycle count.
struct Stats {
  uint64_t inp_load_nbytes = 0;
  uint64_t wgt_load_nbytes = 0;
  uint64_t acc_load_nbytes = 0;
  uint64_t uop_load_nbytes = 0;
  uint64_t out_store_nbytes = 0;
  uint64_t gemm_counter = 0;
  uint64_t alu_counter = 0;
  std::optional<uint64_t> cycle_count;  ///< absent on the fsim
  /// Not one of the seven: the bytes the accumulator loads (ACC and ACC_8BIT) read from DRAM.
  /// acc_load_nbytes counts both at the accumulator's width, as the reference's counter does, so an
  /// ACC_8BIT load's 16 bytes an element (BATCH x BLOCK_OUT int8) count 64 there. Counted from each
  /// successful run's instructions by every device make_device makes; absent where nothing counted it
  /// (a device made otherwise, a capture written before it was counted), and then taken to be
  /// acc_load_nbytes. docs/ENERGY.md.
  std::optional<uint64_t> acc_load_dram_nbytes;
  bool operator==(const Stats&) const = default;
  /// True when the seven VTA counters agree (cycle counts are not compared): the contract between
  /// backends.
  bool counters_equal(const Stats& o) const;
  /// Every byte the loads and stores moved, as the five byte counters count them.
  uint64_t bytes_moved() const;
  /// The accumulator loads' DRAM bytes: acc_load_dram_nbytes when counted, else acc_load_nbytes.
  uint64_t acc_load_dram() const { return acc_load_dram_nbytes.value_or(acc_load_nbytes); }
  /// Every byte the loads and stores read from or wrote to DRAM: bytes_moved with the accumulator
  /// loads' bytes as read (acc_load_dram).
  uint64_t dram_nbytes() const { return bytes_moved() - acc_load_nbytes + acc_load_dram(); }
  /// Adds another run's statistics: every counter, the cycles when `o` has them (a sum of runs has
  /// cycles when any of them had), and the accumulator loads' DRAM bytes when either counted them.
  Stats& operator+=(const Stats& o);

  /// `{"inp_load_nbytes": 4096, ...}` with the keys in the order above (the last two when present).
  std::string to_json() const;
  /// The seeds' table format: one `name: value` line per counter.
  std::string to_table() const;
};

/// How far `cycles` is above `bound`, in percent.
inline double percent_over(uint64_t cycles, double bound) { return 100.0 * (double(cycles) - bound) / bound; }

/// A run's cycles next to what its statistics allow. compute: on the compute stage of one instruction
/// at a time, one GEMM or ALU micro-op per cycle (GEMMs plus ALU micro-ops); on the two-slot stage
/// (compute_issue 2, vta/driver/compute_issue.h), the busier slot: the GEMMs, or the ALU micro-ops and
/// the bus beats of the loads slot A runs beside them (accumulators, as read, and micro-ops). memory =
/// every byte read from or written to DRAM (Stats::dram_nbytes) at one bus beat per cycle.
struct CycleBounds {
  double compute = 0, memory = 0;
  double larger() const { return compute > memory ? compute : memory; }
  /// How far `cycles` is above the larger bound, in percent.
  double over_percent(uint64_t cycles) const { return percent_over(cycles, larger()); }
};
CycleBounds cycle_bounds(const Stats& stats, int bus_width_bits, int compute_issue = 1);
/// The bounds on the hardware of `config` (its bus width and compute stage).
CycleBounds cycle_bounds(const Stats& stats, const Config& config);

/// The seven statistics, declared once: their names (JSON keys, table rows, the C struct's members)
/// and order (the C struct, the hardware's counter registers at vcr::kStatsBase + 8 * index).
struct StatField {
  std::string_view name;
  uint64_t Stats::*member;
  bool bytes;  ///< counts bytes moved (the five load/store counters)
};
inline constexpr StatField kStatFields[] = {
    {"inp_load_nbytes", &Stats::inp_load_nbytes, true},   {"wgt_load_nbytes", &Stats::wgt_load_nbytes, true},
    {"acc_load_nbytes", &Stats::acc_load_nbytes, true},   {"uop_load_nbytes", &Stats::uop_load_nbytes, true},
    {"out_store_nbytes", &Stats::out_store_nbytes, true}, {"gemm_counter", &Stats::gemm_counter, false},
    {"alu_counter", &Stats::alu_counter, false},
};

/// Outcome of Device::run, with the same numbers as VTADeviceRun's return value.
enum class RunStatus : int { kOk = 0, kTimeout = 1, kError = 2 };

/// The class of a failed run: every backend reports the same class for the same program (the
/// contract the differential tests check). Names (to_string) are stable and documented in docs/ISA.md.
enum class ErrorKind : int {
  kNone = 0,            ///< the last run succeeded
  kInvalidStream,       ///< empty, misaligned, outside one allocation, no FINISH, or code after FINISH
  kInvalidInstruction,  ///< illegal opcode, memory type or ALU opcode; zero iterations; bad micro-op range; pads on
                        ///< STORE
  kSramRange,           ///< a LOAD, STORE, GEMM or ALU reaches past an on-chip buffer
  kDramRange,           ///< a LOAD or STORE reaches outside its DRAM allocation
  kDeadlock,            ///< no module can proceed and FINISH has not executed
  kUnfinished,          ///< FINISH completed while instructions still waited for tokens
  kTimeout,             ///< the run exceeded its budget
  kBusError,            ///< the memory system answered with an error (clocked backends)
  kInternal,            ///< a backend failure that is not the program's fault
  kInterrupted,         ///< SIGINT or SIGTERM stopped the run (clocked backends)
};
inline constexpr ErrorKind kLastErrorKind = ErrorKind::kInterrupted;
const char* to_string(ErrorKind kind);

/// Token counts of the four dependency queues (spec 4.1).
struct TokenCounts {
  uint64_t l2g = 0;  ///< load -> compute
  uint64_t g2l = 0;  ///< compute -> load
  uint64_t g2s = 0;  ///< compute -> store
  uint64_t s2g = 0;  ///< store -> compute
  bool operator==(const TokenCounts&) const = default;
  uint64_t& operator[](TokenQueue q) {
    return q == TokenQueue::kL2G ? l2g : q == TokenQueue::kG2L ? g2l : q == TokenQueue::kG2S ? g2s : s2g;
  }
  uint64_t operator[](TokenQueue q) const { return const_cast<TokenCounts&>(*this)[q]; }
  std::string to_string() const;
};

/// A VTA device. All addresses are physical addresses in Dram::global().
class Device {
 public:
  virtual ~Device() = default;
  /// Executes `count` instructions at `insn_addr` until FINISH. `budget` bounds the run in the
  /// backend's unit of time (cycles; fsim: work units, see docs/ISA.md); 0 = the default bound.
  /// On failure `last_error()` holds the diagnostic and `last_error_kind()` its class; a failed run
  /// leaves the statistics as they were before it and empties the token queues.
  virtual RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget) = 0;
  virtual const Stats& stats() const = 0;
  virtual void clear_stats() = 0;
  /// Tokens left in the four queues (they persist across runs, as in hardware).
  virtual TokenCounts tokens() const = 0;
  virtual const std::string& last_error() const = 0;
  /// The class of the last failed run (kNone after a successful run).
  virtual ErrorKind last_error_kind() const = 0;
  virtual std::string_view target() const = 0;
  virtual const Config& config() const = 0;
};

/// A device that passes every call on to another it owns: the base of the wrappers that change a few
/// calls and forward the rest (make_device's count of the accumulator loads' DRAM bytes, VTA_CAPTURE's
/// captures, the runtime's thread binding).
class ForwardingDevice : public Device {
 public:
  explicit ForwardingDevice(std::unique_ptr<Device> inner) : inner_(std::move(inner)) {}
  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget) override {
    return inner_->run(insn_addr, count, budget);
  }
  const Stats& stats() const override { return inner_->stats(); }
  void clear_stats() override { inner_->clear_stats(); }
  TokenCounts tokens() const override { return inner_->tokens(); }
  const std::string& last_error() const override { return inner_->last_error(); }
  ErrorKind last_error_kind() const override { return inner_->last_error_kind(); }
  std::string_view target() const override { return inner_->target(); }
  const Config& config() const override { return inner_->config(); }

 protected:
  Device& inner() const { return *inner_; }

 private:
  std::unique_ptr<Device> inner_;
};

/// What the clocked backends (tsim, systemc) take beyond the configuration; an unset field is the
/// backend's default. The backend checks the ranges (naming the VTA_* variable of the setting).
struct ClockedOptions {
  std::optional<uint32_t> read_latency, write_latency;  ///< the DRAM model's latencies, cycles
  std::optional<uint64_t> cycle_budget;                 ///< a run's bound when it is given 0
  std::optional<uint32_t> watchdog;                     ///< idle cycles before a deadlock is reported
  bool profile = false;                                 ///< per-stage busy/stall counters after each run
  std::string wave;                                     ///< a waveform of the runs (.fst or .vcd); "" = none
  uint64_t wave_start = 0;                              ///< first cycle in the waveform
  uint64_t wave_stop = UINT64_MAX;                      ///< cycle the waveform stops before
  int wave_depth = 0;                                   ///< (VTA_WAVE_DEPTH; refused unless 0)
};

/// The fsim's GEMM kernels, all with the same results (docs/PERFORMANCE.md): plain C++, AVX2
/// (vpmaddwd on sign-extended operands) and AVX-512 VNNI (vpdpbusd).
enum class FsimKernel {
  kAuto,      ///< VTA_FSIM_KERNEL if set, else the fastest this CPU and configuration run
  kPortable,  ///< plain C++, any CPU and configuration
  kAvx2,      ///< needs AVX2, BLOCK_IN even and BLOCK_OUT a multiple of 8
  kVnni,      ///< needs AVX-512 F/BW/VNNI, BLOCK_IN a multiple of 4 and BLOCK_OUT of 16
};
/// "auto", "portable", "avx2", "vnni".
std::string_view fsim_kernel_name(FsimKernel k);
/// The kernel a name (as above) means; throws std::invalid_argument naming the accepted ones.
FsimKernel parse_fsim_kernel(std::string_view name);

/// Options of a backend, given as a value (nothing reads the environment behind the caller's back
/// when `clocked` is set, nor when `fsim_kernel` is not kAuto).
struct DeviceOptions {
  Dram* dram = nullptr;  ///< nullptr = Dram::global()
  /// fsim: the GEMM kernel. One the CPU or the configuration cannot run is refused when the device
  /// is made (std::invalid_argument), never replaced by another.
  FsimKernel fsim_kernel = FsimKernel::kAuto;
  /// A backend registered as a scheme ("rpc://") gets what follows the scheme ("HOST:PORT").
  std::string address;
  /// The clocked backends' settings; unset: the backend takes them from the VTA_* variables, read
  /// when the device is made (DeviceOptions::from_env()'s).
  std::optional<ClockedOptions> clocked;

  /// The options the environment gives: VTA_TSIM_READ_LATENCY, VTA_TSIM_WRITE_LATENCY,
  /// VTA_TSIM_CYCLE_BUDGET, VTA_TSIM_WATCHDOG, VTA_TSIM_PROFILE, VTA_WAVE, VTA_WAVE_START,
  /// VTA_WAVE_STOP, VTA_WAVE_DEPTH, read once (`clocked` is always set). What the C API's devices and
  /// the runtime's own are made with. Throws std::invalid_argument naming a malformed variable.
  static DeviceOptions from_env();
};

using DeviceFactory = std::function<std::unique_ptr<Device>(const Config&, const DeviceOptions&)>;

/// Makes a device of the named backend ("fsim"; "sim" is an alias), or of a scheme backend with its
/// address ("rpc://127.0.0.1:9091"). Throws std::invalid_argument naming the known backends when
/// `target` is unknown.
std::unique_ptr<Device> make_device(std::string_view target, const Config& config, const DeviceOptions& options = {});
/// How many devices make_device has made in this process (a program's device constructions, counted
/// by the tests that hold it to making its devices once).
uint64_t devices_made();
/// The backend named by VTA_TARGET, or fsim when it is unset or empty.
std::string default_target();
/// Checks a scheme backend's address ("HOST:PORT") without making a device: throws
/// std::invalid_argument naming what is wrong with it.
using AddressCheck = std::function<void(std::string_view address)>;

/// Registers a backend (tsim and the remote client register themselves when linked in). A name
/// ending in "://" registers a scheme: every target starting with it goes to `factory`, which finds
/// the rest in DeviceOptions::address; `check`, when given, is what check_target runs on the address.
void register_backend(std::string name, DeviceFactory factory, AddressCheck check = {});
/// Declares that devices of backend `name` may be several in one process, each run on a thread of its
/// own at the same time over this process's memory (the fsim and the tsim). Backends not declared are
/// run one device at a time: a board is one device, SystemC has one kernel a process, a scheme
/// backend's device is a connection to somewhere else.
void register_concurrent_backend(std::string name);
/// Whether `target` (a name or an alias) was declared with register_concurrent_backend and neither
/// VTA_WAVE (one waveform file) nor VTA_CAPTURE (each run's memory captured) is set.
bool runs_concurrently(std::string_view target);
/// Makes the memory of a backend that has its own (a board: its DMA buffer). When VTA_TARGET names
/// the backend, Dram::global() is made by it (at its first call), so every buffer the runtime and the
/// C API allocate is in memory the device can reach.
using MemoryFactory = std::function<std::unique_ptr<Dram>()>;
void register_backend_memory(std::string name, MemoryFactory make);
/// Names of the registered backends that need no address, sorted (the ones a test can open).
std::vector<std::string> backend_names();
/// The registered schemes ("rpc://"), sorted.
std::vector<std::string> backend_schemes();
/// Whether make_device would find a backend for `target` (a name, an alias or a scheme address);
/// for command-line validation.
bool is_known_target(std::string_view target);
/// Throws std::invalid_argument naming the problem when make_device could not use `target`: an unknown
/// backend (the known ones listed), or a scheme address its scheme refuses (a malformed HOST:PORT).
/// What command lines check their --target with (a usage error).
void check_target(std::string_view target);
/// Whether `target` is a scheme backend's address ("rpc://HOST:PORT"): a device outside this process,
/// which does not share its memory.
bool is_scheme_address(std::string_view target);

}  // namespace vta
