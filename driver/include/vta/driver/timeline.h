#pragma once
/// \file vta/driver/timeline.h
/// What each stage of the accelerator does over a run, as intervals: executing an instruction,
/// waiting for a dependency token, waiting for memory, idle. Recorded cycle by cycle by the tsim
/// (tsim::Simulator::Options::on_timeline), or estimated from a program alone (estimate_timeline: the
/// fsim's instruction order with a simple cost per instruction). Written as Chrome/Perfetto
/// trace-event JSON or as a standalone SVG (docs/TIMELINE.md).

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vta/driver/compute_issue.h"
#include "vta/driver/config.h"
#include "vta/driver/device.h"
#include "vta/driver/isa.h"

namespace vta {

enum class Activity : uint8_t {
  kBusy,    ///< executing its instruction
  kToken,   ///< holding its next instruction, waiting for a dependency token
  kMemory,  ///< executing a LOAD or STORE, waiting for the memory engine
};
const char* to_string(Activity a);

struct TimelineInterval {
  int lane = 0;  ///< 0 load, 1 compute, 2 store
  Activity activity = Activity::kBusy;
  uint64_t begin = 0;  ///< first cycle
  uint64_t end = 0;    ///< first cycle after
  long insn = -1;      ///< index in the stream of the instruction concerned
  /// 0; 1 for the second slot of a two-instruction compute stage (EstimateOptions::compute_issue 2:
  /// what runs beside the GEMMs), which the trace shows on a track of its own
  uint8_t slot = 0;
};

struct Timeline {
  static constexpr int kLanes = kStages;  ///< one per stage, lane i is kStageOrder[i] (isa.h)
  std::string title;
  bool estimated = false;               ///< from estimate_timeline, not recorded
  uint64_t cycles = 0;                  ///< length of the run
  double ns_per_cycle = 10.0;           ///< the clock period the times are written with (HW_FREQ)
  std::vector<std::string> insn_names;  ///< per instruction of the stream: "GEMM", "LOAD INP", ...
  std::vector<TimelineInterval> intervals;
  /// Energy of each stage's events in picojoules (estimate_energy_by_stage of the run's statistics),
  /// when the maker of the timeline knows them; the SVG adds it to each stage's totals.
  std::optional<std::array<double, kLanes>> energy_pj;

  /// Cycles of `lane` spent in `a` (a cycle in two overlapping intervals counted once).
  uint64_t total(int lane, Activity a) const;
  /// Chrome/Perfetto trace-event JSON: one thread per stage, one complete event per interval.
  std::string to_trace_json() const;
};

/// Short names of a stream's instructions ("LOAD INP", "GEMM", "ALU ADD", "STORE", "FINISH").
std::vector<std::string> instruction_names(const Isa& isa, const std::vector<RawInsn>& insns);

/// How estimate_timeline models the compute stage.
struct EstimateOptions {
  /// 1: one instruction at a time; 2: the compute stage of vta/driver/compute_issue.h (the second
  /// slot's intervals then have TimelineInterval::slot 1 and overlap the GEMMs', and the compute
  /// stage's waits for tokens are not drawn); 0: the configuration's (its COMPUTE_ISSUE, the stage its
  /// RTL has). Another value than the configuration's estimates a stage the build does not have.
  int compute_issue = 0;
  /// The stage this asks for on configuration `config` (1 or 2).
  int issue(const Config& config) const { return compute_issue != 0 ? compute_issue : config.compute_issue(); }
  /// With compute_issue 2: which footprints may overlap (compute_issue.h).
  AccBanks banks = AccBanks::kHalves;
  /// With compute_issue 2: the dispatch window of compute_issue.h's rule 2 (1: in program order; W: an
  /// instruction may start before up to W - 1 older ones of the other slot; 1 to 64).
  size_t window = 1;
  /// The micro-ops the stream's LOAD UOP instructions write (read_uop_loads), for the footprints of
  /// compute_issue.h (nullptr, or a load not in it: unknown, so the GEMMs and ALU instructions that
  /// use them run alone; micro-op loads still run beside GEMMs).
  const std::map<size_t, std::vector<uint32_t>>* uop_loads = nullptr;
};

/// Throws std::invalid_argument, the message starting with `who`, when `options` asks for a compute stage
/// the estimate does not model: compute_issue 0, 1 or 2, a window of 1 to 64 and above 1 only with 2 (or
/// with 0 on a configuration whose COMPUTE_ISSUE is 2).
void check_stage(const EstimateOptions& options, const std::string& who);

/// The micro-op words each LOAD UOP of `insns` writes, by instruction index (pads as zero words), from
/// the memory `read` returns (nullptr where it has none: that load is left out).
std::map<size_t, std::vector<uint32_t>> read_uop_loads(
    const Isa& isa, const std::vector<RawInsn>& insns,
    const std::function<const uint8_t*(uint64_t addr, size_t bytes)>& read);

/// An estimate from the program alone, in program order per stage with the token rules: a LOAD or
/// STORE takes its bytes over the bus width plus the DRAM latency (32 cycles), a GEMM one cycle per
/// micro-op iteration, an ALU instruction its `alu_cycles`, anything else one cycle. Uncapped token
/// queues, starting with `tokens` (those earlier runs left); stops at a deadlock.
Timeline estimate_timeline(const Isa& isa, const std::vector<RawInsn>& insns, const TokenCounts& tokens = {},
                           const EstimateOptions& options = {});

/// The cycles the ALU (hw/rtl/vta_alu.sv) spends on one instruction's micro-op iterations, without
/// its pipeline's latency: one per iteration with an immediate; with a vector operand one more per
/// read of the source, which every iteration makes except in a one-micro-op kernel, whose source is
/// read again only where its offset changes (a bias added along a row of pixels: one read per row).
/// A write to the held source makes the next iteration read it again; this does not count those
/// (the program's micro-ops are not in its instructions; compiled programs never write a source).
uint64_t alu_cycles(const AluInsn& a);

/// A standalone SVG of one or more timelines stacked on one time axis (each scaled to the longest),
/// with a legend and per-stage totals. `width` in pixels.
std::string timelines_to_svg(const std::vector<Timeline>& timelines, int width = 1200);

}  // namespace vta
