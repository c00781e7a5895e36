#pragma once
/// \file vta/network/executor.h
/// Running a Graph: its steps planned (vta/network/plan.h), each VTA step compiled with the tiling
/// whose program is estimated fastest (vta/network/tiling.h) and run on a Target
/// (vta/network/target.h), its host operators with the reference. Activations between VTA programs stay in device
/// memory in VTA's blocked layout (N/BATCH, C/BLOCK, H, W, BATCH, BLOCK): packed once where a host
/// operator hands a tensor to VTA and unpacked once where VTA hands one back. Weights are packed and
/// copied to the device once, when the executor is built. Every step can be verified bit for bit
/// against the reference.

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "vta/driver/config.h"
#include "vta/driver/device.h"
#include "vta/network/graph.h"
#include "vta/network/plan.h"
#include "vta/network/reference.h"
#include "vta/network/target.h"
#include "vta/network/tiling.h"
#include "vta/network/tuning.h"

namespace vta::network {

struct StepResult {
  const Step* step = nullptr;
  Stats stats;         ///< VTA: the counters of its run (cycles on clocked backends)
  double seconds = 0;  ///< wall time of the step (VTA: the run, not the copies)
  int64_t outputs = 0;
  int64_t mismatches = -1;  ///< against the reference; -1: not verified
};

struct NetworkRun {
  std::vector<StepResult> steps;
  std::vector<int32_t> output;  ///< the graph's output (a slice that ends before it: its last step's)
  std::string output_name;      ///< the tensor `output` holds
  /// The graph's further outputs (Graph::extra_outputs()) that the run computed, by name.
  std::map<std::string, std::vector<int32_t>> extra_outputs;
  Stats vta;              ///< the VTA steps' counters summed
  double seconds = 0;     ///< wall time of the run (copies included, the reference not)
  bool verified() const;  ///< every step verified with no mismatch
  /// The sum of the VTA steps' cycle bounds on `config` (vta::cycle_bounds of each step's statistics,
  /// the larger of its compute and memory bounds): the fewest cycles the steps' work and traffic allow,
  /// step by step. `only`: the steps of these names alone (a fast-forward's detailed ones).
  double bound(const Config& config, const std::set<std::string>* only = nullptr) const;
};

struct RunOptions {
  /// Compare every step's output with the reference (every VTA output is copied back to do so).
  bool verify = true;
  /// Run the steps from `first` to `last` (tensor names; empty = from the start / to the end): their
  /// inputs come from the reference, so a slice needs `reference`.
  std::string first, last;
  /// How many steps run at once, each on a thread of its own whose VTA programs run on that thread's
  /// device (a tsim of its own, over the same memory). With more than one, every step takes its
  /// inputs from the reference, as a one-step slice does (so `reference` is needed): the run then
  /// equals a run one step after another exactly when it is verified, and each step's statistics
  /// are the same either way (a step starts and ends on an idle accelerator). On a target whose
  /// programs run one at a time (Target::concurrent(): a device server's session, fast-forward's
  /// detailed device) the steps run one after another.
  unsigned jobs = 1;
};

/// The most steps RunOptions::jobs runs at once.
inline constexpr unsigned kMaxJobs = 256;
/// `requested` steps at once as RunOptions::jobs takes them, the one rule for every caller (the
/// programs' --jobs, Python's Executor.run): 0 means one per core; GraphError naming the range for a
/// negative count or one past kMaxJobs.
unsigned resolve_jobs(int64_t requested);
/// Whether a run with `options` needs the reference's values (Executor::run's `reference`): to verify,
/// and to give a slice or steps run at once their inputs (a run need not verify to run steps at once).
inline bool needs_reference(const RunOptions& options) {
  return options.verify || options.jobs > 1 || !options.first.empty() || !options.last.empty();
}

/// How the executor chooses each VTA convolution's tiling.
struct PlanOptions {
  /// Tilings by step name (a tuned file, vta/network/tuning.h): a step listed runs with its tiling,
  /// which must fit the SRAMs and compile (GraphError naming the step otherwise).
  TilingTable tilings;
  /// Any other step: the candidates ranked by traffic (at most this many), the first `tried` that
  /// compile built and estimated, the fastest kept.
  size_t candidates = 32;
  int tried = kTilingsTried;
  /// The most virtual threads a convolution's tiling may have (1 to 4): the search ranks those with 1
  /// or 2 and, apart, those with 3 or 4, whose best is kept only when estimated 2 % faster (they move
  /// more data: docs/NETWORK.md). 2 gives the programs of the search before it tried more.
  int max_virtual_threads = 4;
  /// The compute stage the programs are made for (vta/driver/compute_issue.h): 1, the reference's, one
  /// instruction at a time; 2, one that runs an ALU instruction or a load beside a GEMM, with this
  /// dispatch window (the RTL of COMPUTE_ISSUE 2 has a window of 1): each convolution's tilings ranked
  /// by that stage's estimate, each virtual thread's accumulator buffers in a region of their own
  /// (compiler::Env::thread_banks); 0, the configuration's. The programs compute the same and run on
  /// either stage; Step::estimated_cycles is the estimate of the stage they were made for.
  int compute_issue = 0;
  size_t window = 1;
};

class Executor {
 public:
  /// Fuses and compiles every VTA operator of `g` for `config` (the target's device must have it)
  /// and copies the weights to the target (nullptr: local_target()). The executor keeps its own copy
  /// of `g`: the caller may change or destroy `g` afterwards. Throws GraphError naming an
  /// operator VTA cannot run and compiler::ScheduleError when no tiling of a convolution fits the
  /// SRAMs; the target's errors (a server refusing the modules' configuration) as they come.
  explicit Executor(const Graph& g, const Config& config, std::shared_ptr<Target> target = nullptr,
                    PlanOptions plan = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  const Graph& graph() const { return graph_; }
  const std::vector<Step>& steps() const { return steps_; }
  /// The plan as resolved (PlanOptions::compute_issue 0 became the configuration's stage).
  const PlanOptions& plan() const { return plan_; }
  /// The tiling of every VTA convolution step, by step name (what save_tilings writes).
  TilingTable tilings() const;
  /// Runs the graph on `input` (NCHW int8). `reference` (run_reference's, all values kept) is needed
  /// to verify and to run a slice; without it verification is skipped.
  NetworkRun run(std::span<const int8_t> input, const RunOptions& options = {}, const Values* reference = nullptr);

 private:
  struct DeviceState;
  class Activations;
  void plan_conv(Step& s);  ///< a VTA convolution: its residual, tiling, program and weights
  /// A VTA max or average pool or upsample: its tiling and program (plan_steps placed it).
  void plan_alu_step(Step& s);
  void load_biases(const Step& s);  ///< the step's bias_add constants, packed, on the target
  compiler::Env plan_env() const;   ///< the Env its programs are built with (PlanOptions::compute_issue)
  EstimateOptions stage() const;    ///< the compute stage their tilings are ranked for
  /// The step whose output is the run's output: the graph output's step, or a slice's last.
  const std::string& output_step(size_t begin, size_t end) const;
  /// The steps [first, last) `options` selects; throws GraphError for an empty or unknown slice.
  std::pair<size_t, size_t> slice(const RunOptions& options, const Values* reference) const;
  /// The inputs of steps [first, last) that `host` has not, from the reference (a slice's, a step's
  /// run at once).
  void inputs_from_reference(Values& host, size_t first, size_t last, const Values& reference) const;
  StepResult run_step(size_t i, Activations& values, const RunOptions& options, const Values* reference);
  /// Steps [begin, end) on options.jobs threads, each from the reference's values of its inputs.
  NetworkRun run_concurrently(std::span<const int8_t> input, size_t begin, size_t end, const RunOptions& options,
                              const Values& reference);
  const Graph graph_;  ///< its own copy: the steps point into it
  Config config_;
  std::shared_ptr<Target> target_;
  PlanOptions plan_;
  std::vector<Step> steps_;
  /// An in-place concatenation's input -> (the concatenation, the input's first element in it).
  using InPlaceParts = std::map<std::string, std::pair<std::string, size_t>>;
  InPlaceParts in_place_;
  std::unique_ptr<DeviceState> device_;
  /// The workers of steps run at once (Target::worker), made when a run first needs them and kept.
  std::vector<std::unique_ptr<Target::Worker>> workers_;
};

}  // namespace vta::network
