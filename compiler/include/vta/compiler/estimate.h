#pragma once
/// \file vta/compiler/estimate.h
/// What a built module should cost on the accelerator, without a clocked simulation: one call of the
/// module is made on a device that keeps the instruction streams it is given (a module's instructions
/// do not depend on its data), and each stream goes through the timeline estimate of vta/driver/timeline.h
/// (the fsim's order, the token rules, bus and latency costs per instruction). The network executor
/// picks its tilings with it, `vta estimate` prints it beside the bounds, and a tuner can rank
/// candidate schedules by it. Its measured error against the tsim is in docs/COMPILER.md.
///
///   const uint64_t cycles = estimate_cycles(module, config);

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vta/compiler/build.h"
#include "vta/driver/config.h"
#include "vta/driver/device.h"
#include "vta/driver/memory.h"
#include "vta/driver/timeline.h"

namespace vta::compiler {

/// A device that keeps every instruction stream it is asked to run, then passes the run on to
/// `inner` (nullptr: runs nothing, succeeds, and its statistics stay zero).
class RecordingDevice final : public Device {
 public:
  RecordingDevice(const Config& config, const Dram& dram, std::unique_ptr<Device> inner = nullptr);
  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget) override;
  const Stats& stats() const override { return inner_ ? inner_->stats() : stats_; }
  void clear_stats() override;
  TokenCounts tokens() const override { return inner_ ? inner_->tokens() : TokenCounts{}; }
  const std::string& last_error() const override { return inner_ && error_.empty() ? inner_->last_error() : error_; }
  ErrorKind last_error_kind() const override;
  std::string_view target() const override { return inner_ ? inner_->target() : "estimate"; }
  const Config& config() const override { return config_; }

  /// The streams of the runs so far, one per run, in order.
  const std::vector<std::vector<RawInsn>>& streams() const { return streams_; }
  /// The micro-ops each run's LOAD UOP instructions found in memory (read_uop_loads), one map per
  /// run, when made with keep_uop_loads.
  const std::vector<std::map<size_t, std::vector<uint32_t>>>& uop_loads() const { return uop_loads_; }
  void keep_uop_loads(bool keep) { keep_uop_loads_ = keep; }

 private:
  Config config_;
  const Dram& dram_;
  std::unique_ptr<Device> inner_;
  std::vector<std::vector<RawInsn>> streams_;
  bool keep_uop_loads_ = false;
  std::vector<std::map<size_t, std::vector<uint32_t>>> uop_loads_;
  Stats stats_;
  std::string error_;
};

/// What one recorded call made.
struct RecordedCall {
  std::vector<std::vector<RawInsn>> streams;  ///< one per device run (each VTASynchronize)
  Stats stats;                                ///< the inner device's counters (zero without one)
  /// Per run, the micro-ops its LOAD UOP instructions wrote (with keep_uop_loads; else empty).
  std::vector<std::map<size_t, std::vector<uint32_t>>> uop_loads;
};

/// Makes the device a recorded call passes its runs on to, over the call's scratch memory.
using InnerDeviceFactory = std::function<std::unique_ptr<Device>(const Config&, Dram&)>;
/// The registered backend `target` (make_device) over the call's scratch memory.
InnerDeviceFactory backend_device(std::string target);

/// Calls `module` once on scratch memory (every argument zero-filled) with a runtime of its own over a
/// RecordingDevice (passing the runs on to `inner`'s device when given), keeping the micro-ops of its
/// loads when `keep_uop_loads` (for an estimate with EstimateOptions::compute_issue 2). Throws
/// RuntimeError as Module::call does.
RecordedCall record_call(const Module& module, const Config& config, const InnerDeviceFactory& inner = nullptr,
                         bool keep_uop_loads = false);

/// The timeline estimate of each run of a recorded call (Timeline::estimated set), with `options`
/// (their uop_loads taken from the call's, per run).
std::vector<Timeline> estimate_timelines(const RecordedCall& call, const Config& config,
                                         const EstimateOptions& options = {});
/// The same for one call of `module`, recorded on a device that runs nothing (its micro-ops kept for
/// EstimateOptions::compute_issue 2).
std::vector<Timeline> estimate_timelines(const Module& module, const Config& config,
                                         const EstimateOptions& options = {});

/// The cycles one call of `module` should take: the sum of its runs' estimates.
uint64_t estimate_cycles(const Module& module, const Config& config, const EstimateOptions& options = {});
/// The same for a recorded call (its statistics at hand too).
uint64_t estimate_cycles(const RecordedCall& call, const Config& config, const EstimateOptions& options = {});

}  // namespace vta::compiler
