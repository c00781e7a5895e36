#pragma once
/// \file vta/driver/capture.h
/// Captured runs: one device run as a self-contained file (the instructions, every DRAM allocation
/// the program reads or writes with its contents before the run and, for the written ones, after
/// it, the configuration, the budget, the outcome and the statistics), so that a run of any program
/// can be re-run alone on another backend and compared (docs/CAPTURE.md has the file format).
///
/// `VTA_CAPTURE=DIR` in the environment makes every device made by make_device (the driver API's
/// VTADeviceRun, the runtime's synchronize, the compiler's modules, a device server's sessions)
/// write one file per run into DIR.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vta/driver/config.h"
#include "vta/driver/device.h"
#include "vta/driver/memory.h"

namespace vta {

/// A malformed, truncated or corrupted capture file, or one this build cannot run.
class CaptureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Which kinds of access the program makes to a captured region (a bit set).
enum CaptureUse : unsigned {
  kUseInsn = 1u << 0,  ///< the instruction stream
  kUseUop = 1u << 1,   ///< LOAD UOP
  kUseWgt = 1u << 2,   ///< LOAD WGT
  kUseInp = 1u << 3,   ///< LOAD INP
  kUseAcc = 1u << 4,   ///< LOAD ACC / ACC_8BIT
  kUseOut = 1u << 5,   ///< STORE
};

/// One DRAM allocation the run touches, whole (so DRAM range checks see the same bounds).
struct CapturedRegion {
  PhysAddr phys = 0;
  unsigned uses = 0;  ///< CaptureUse bits
  std::vector<uint8_t> before;
  std::optional<std::vector<uint8_t>> after;  ///< present for regions a STORE writes
  bool written() const { return (uses & kUseOut) != 0; }
  /// "insn,uop,out"
  std::string uses_text() const;
};

/// What a run ended with.
struct CapturedResult {
  RunStatus status = RunStatus::kOk;
  ErrorKind kind = ErrorKind::kNone;
  std::string error;  ///< the backend's diagnostic of a failed run
  Stats stats;        ///< what this run added to the device's statistics
  TokenCounts tokens_after;
};

struct Capture {
  static constexpr int kVersion = 1;
  std::string config_json;  ///< Config::to_json_text() of the device that ran it
  std::string target;       ///< backend that ran it
  std::string program;      ///< the process that ran it (for the reader)
  uint64_t sequence = 0;    ///< runs of that process before this one
  /// Runs of the same device before this one. A replay recreates the tokens earlier runs left, not the
  /// rest of the pipeline's state, so the cycles of a later run may differ by a few (docs/CAPTURE.md).
  uint64_t device_run = 0;
  PhysAddr insn_addr = 0;
  uint32_t insn_count = 0;
  uint64_t budget = 0;
  TokenCounts tokens_before;  ///< tokens earlier runs left in the queues (a replay starts with none)
  std::vector<CapturedRegion> regions;
  CapturedResult result;

  Config config() const;
  /// FNV-1a 64 of config_json, as 16 hex digits.
  std::string config_hash() const;
  /// The instruction stream (from the region holding it); empty when it lies in no region.
  std::vector<RawInsn> instructions() const;
  /// The region holding [phys, phys + bytes), if any.
  const CapturedRegion* region_at(PhysAddr phys, uint64_t bytes = 1) const;

  void save(const std::string& path) const;
  /// Throws CaptureError naming the file and what is wrong with it.
  static Capture load(const std::string& path);
  std::string to_bytes() const;
  static Capture from_bytes(const std::string& bytes, const std::string& origin);
};

/// Snapshots the run about to start: the regions of `count` instructions at `insn_addr` (found by a
/// scan that never throws: regions of an invalid program are captured as far as they exist).
Capture capture_before(const Device& device, const Dram& dram, PhysAddr insn_addr, uint32_t count, uint64_t budget);
/// Completes it after the run with the device's outcome (`stats_before` = the statistics before it).
void capture_after(Capture& capture, const Device& device, const Dram& dram, RunStatus status,
                   const Stats& stats_before);

/// Wraps `inner` so that every run is written to `dir` (created when missing) as
/// `<program>-<pid>-<sequence>.vtacap`. A file that cannot be written is reported on stderr; the
/// run's result is never changed by capturing.
std::unique_ptr<Device> make_capturing_device(std::unique_ptr<Device> inner, Dram& dram, std::string dir);

/// A replay: the capture's regions restored at their physical addresses in a fresh memory, the
/// program run on `target`, the outcome compared with the captured one.
struct ReplayOptions {
  std::string target = "fsim";
  uint64_t budget = 0;         ///< 0 = the captured run's
  bool compare_cycles = true;  ///< cycle counts compared when both runs have one
  /// The clocked backends' settings (waveform, latencies); unset: the VTA_* variables'.
  std::optional<ClockedOptions> clocked;
  /// Makes the device instead of make_device(target) (e.g. a tsim recording a timeline); it must
  /// use `dram`, the replay's memory.
  std::function<std::unique_ptr<Device>(const Config&, Dram& dram)> make_device;
};
struct ReplayResult {
  CapturedResult result;
  std::vector<std::string> differences;  ///< empty = the replay matches the capture
  std::vector<std::string> warnings;     ///< e.g. tokens left by earlier runs
  bool matches() const { return differences.empty(); }
};
ReplayResult replay(const Capture& capture, const ReplayOptions& options);

}  // namespace vta
