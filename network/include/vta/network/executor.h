#pragma once
/// \file vta/network/executor.h
/// Running a Graph: its VTA operators fused into VTA programs compiled with the schedule machinery
/// (a convolution with the elementwise operators after it: shift, residual add, ReLU, clip, the int8
/// store), its host operators with the reference. Activations between VTA programs stay in device
/// memory in VTA's blocked layout (N/BATCH, C/BLOCK, H, W, BATCH, BLOCK): packed once where a host
/// operator hands a tensor to VTA and unpacked once where VTA hands one back. Weights are packed and
/// copied to the device once, when the executor is built. Every step can be verified bit for bit
/// against the reference.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vta/compiler/build.h"
#include "vta/config.h"
#include "vta/device.h"
#include "vta/network/graph.h"
#include "vta/network/reference.h"

namespace vta::net {

/// How one convolution is blocked: output tiles of oc_block x BLOCK channels, h_block rows, w_block
/// columns; input channels ic_block blocks at a time; the output channel tiles shared among
/// virtual_threads virtual threads.
struct ConvTiling {
  int64_t oc_block = 1, h_block = 1, w_block = 1, ic_block = 1, virtual_threads = 2;
  std::string to_string() const;
};

/// How a convolution step adds its residual (an int8 tensor, loaded into the accumulator).
enum class Residual : uint8_t {
  kNone,
  kAluAdd,   ///< in its own accumulator buffer, added by the ALU after the shift
  kSumInit,  ///< shifted left by the step's shift, the sum's initial value: no buffer of its own, no add
  /// the result of `Step::shortcut`, a 1x1 convolution chain computed in the same program's accumulator,
  /// shifted left as for kSumInit: its int8 output is never stored nor loaded back
  kShortcut,
};

/// One step: a host operator, or a VTA program (a convolution and the elementwise operators fused
/// after it).
struct Step {
  std::string name;  ///< the tensor it produces
  Placement placement = Placement::kHost;
  std::vector<const Op*> ops;       ///< what it performs, in order
  std::vector<const Op*> shortcut;  ///< VTA: the residual's own 1x1 convolution chain (kShortcut)
  std::vector<std::string> inputs;  ///< activations it reads (VTA: the data, then the residual or the shortcut's input)
  std::string description;          ///< "conv2d 3x3/1 + shr + add + clip + cast"
  ConvTiling tiling;                ///< VTA
  Residual residual = Residual::kNone;             ///< VTA convolution
  uint64_t estimated_cycles = 0;                   ///< VTA: the timeline estimate of its program (vta/timeline.h)
  std::shared_ptr<const compiler::Module> module;  ///< VTA
};

struct StepResult {
  const Step* step = nullptr;
  Stats stats;         ///< VTA: the counters of its run (cycles on clocked backends)
  double seconds = 0;  ///< wall time of the step (VTA: the run, not the copies)
  int64_t outputs = 0;
  int64_t mismatches = -1;  ///< against the reference; -1: not verified
};

struct NetworkRun {
  std::vector<StepResult> steps;
  std::vector<int32_t> output;  ///< the graph's output (the last step's, for a slice)
  Stats vta;                    ///< the VTA steps' counters summed
  double seconds = 0;           ///< wall time of the run (copies included, the reference not)
  bool verified() const;        ///< every step verified with no mismatch
};

struct RunOptions {
  /// Compare every step's output with the reference (every VTA output is copied back to do so).
  bool verify = true;
  /// Run the steps from `first` to `last` (tensor names; empty = from the start / to the end): their
  /// inputs come from the reference, so a slice needs `reference`.
  std::string first, last;
};

/// Where an Executor's VTA programs run and its device tensors (the packed weights, the activations in
/// the blocked layout) live between steps. local_target(): the runtime's device in this process
/// (VTA_TARGET), the default. vta/network/remote.h: a session on a device server, whose memory then
/// keeps the activations (the tutorials' RPC setup).
class Target {
 public:
  class Tensor {
   public:
    virtual ~Tensor() = default;
    virtual void copy_from(std::span<const int8_t> host) = 0;
    virtual void copy_to(std::span<int8_t> host) const = 0;
  };
  class Program {
   public:
    virtual ~Program() = default;
    /// Runs once on one tensor per argument (those of this target); the statistics of the run.
    virtual Stats run(const std::vector<const Tensor*>& args) = 0;
  };
  virtual ~Target() = default;
  /// A zero-filled int8 tensor.
  virtual std::unique_ptr<Tensor> empty(const std::vector<int64_t>& shape, const std::string& name) = 0;
  /// `module` ready to run there; `name` names it (the step) in uploads and diagnostics.
  virtual std::unique_ptr<Program> load(const compiler::Module& module, const std::string& name) = 0;
};
/// The runtime's device in this process.
std::shared_ptr<Target> local_target();

class Executor {
 public:
  /// Fuses and compiles every VTA operator of `g` for `config` (the target's device must have it)
  /// and copies the weights to the target (nullptr: local_target()). Throws GraphError naming an
  /// operator VTA cannot run and compiler::ScheduleError when no tiling of a convolution fits the
  /// SRAMs; the target's errors (a server refusing the modules' configuration) as they come.
  explicit Executor(const Graph& g, const Config& config, std::shared_ptr<Target> target = nullptr);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  const Graph& graph() const { return graph_; }
  const std::vector<Step>& steps() const { return steps_; }
  /// Runs the graph on `input` (NCHW int8). `reference` (run_reference's, all values kept) is needed
  /// to verify and to run a slice; without it verification is skipped.
  NetworkRun run(std::span<const int8_t> input, const RunOptions& options = {}, const Values* reference = nullptr);

 private:
  struct DeviceState;
  void plan_pool(Step& s);  ///< a VTA max_pool: its tiling and program
  const Graph& graph_;
  Config config_;
  std::shared_ptr<Target> target_;
  std::vector<Step> steps_;
  std::unique_ptr<DeviceState> device_;
};

/// The tilings of a convolution whose buffers fit `config`'s SRAMs, best first by the traffic they
/// make (at most 32). The executor builds the first few that compile and keeps the one whose program
/// the timeline estimate finds fastest.
/// `shortcut_input` and `shortcut_stride`: the input and stride of the 1x1 convolution computed in the
/// same program (Residual::kShortcut), whose input and weight chunks share the SRAMs.
std::vector<ConvTiling> tiling_candidates(const Config& config, const TensorDesc& input, int64_t out_channels,
                                          int kernel, int stride, Residual residual,
                                          const TensorDesc* shortcut_input = nullptr, int shortcut_stride = 1);

/// The input-channel blocks the shortcut's reduction loads at a time, for a tiling's `ic_block` and
/// the shortcut's `blocks` input-channel blocks (their greatest common divisor).
int64_t shortcut_ic_block(int64_t ic_block, int64_t blocks);

}  // namespace vta::net
