#pragma once
/// \file vta/network/plan.h
/// How a Graph becomes steps: each host operator a step of its own; each VTA convolution fused with
/// the chain of elementwise operators after it (shift, residual add, ReLU, clip, the int8 cast) into
/// one VTA program; a residual added right after the shift becomes the start of the convolution's
/// sum; a 1x1 convolution (ResNet's downsample) read only by such a residual is computed inside the
/// program that reads it; VTA max pools are programs of their own.

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "vta/compiler/build.h"
#include "vta/driver/config.h"
#include "vta/network/graph.h"

namespace vta::network {

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
/// after it, or a max pool).
struct Step {
  std::string name;  ///< the tensor it produces
  Placement placement = Placement::kHost;
  std::vector<const Op*> ops;       ///< what it performs, in order
  std::vector<const Op*> shortcut;  ///< VTA: the residual's own 1x1 convolution chain (kShortcut)
  std::vector<std::string> inputs;  ///< activations it reads (VTA: the data, then the residual or the shortcut's input)
  std::string description;          ///< "conv2d 3x3/1 + shr + add + clip + cast"
  ConvTiling tiling;                ///< VTA
  Residual residual = Residual::kNone;             ///< VTA convolution
  uint64_t estimated_cycles = 0;                   ///< VTA: compiler::estimate_cycles of its program
  std::shared_ptr<const compiler::Module> module;  ///< VTA
  /// VTA, set by plan_steps for a target with views: a concatenation whose inputs' VTA steps write
  /// their outputs into it (each a view of its channel blocks, Target::Tensor::view): no program,
  /// nothing copied.
  bool in_place = false;
};

/// What a target offers that decides where steps run (vta/network/target.h).
struct TargetTraits {
  bool views = false;  ///< Target::views(): a tensor can be a view of another's channel blocks
};

/// The steps of `g` in execution order (each at the position of its last operator), without tilings
/// or programs; residuals other than kShortcut are decided by residual_of. Throws GraphError naming an
/// operator VTA cannot run where it is placed.
std::vector<Step> plan_steps(const Graph& g);

/// The steps of `g` as a target with `traits` runs them under `config`, final: plan_steps(g)'s, then
/// - a VTA upsample on the host where the target has no views (its program writes its output as a
///   view of another shape);
/// - a VTA pool or upsample on the host where no tiling of the configuration's SRAMs holds it;
/// - where the target has views, a host concatenation whose inputs are VTA steps' outputs (one batch
///   block, whole channel blocks, each input once and in no other such concatenation) on VTA and
///   in_place: its inputs' programs write into it.
/// The Executor compiles and runs these steps as they are.
std::vector<Step> plan_steps(const Graph& g, const Config& config, const TargetTraits& traits);

/// The steps [begin, end) of `steps` (plan_steps(g)'s) from the one producing `first` to the one
/// producing `last` (tensor names; empty = from the start / to the end). Throws GraphError naming a
/// tensor no step produces, or an empty range.
std::pair<size_t, size_t> step_range(const Graph& g, const std::vector<Step>& steps, const std::string& first,
                                     const std::string& last);
/// The names of the VTA steps in that range (what fast_forward_target takes, vta/network/target.h).
std::set<std::string> vta_step_names(const Graph& g, const std::string& first, const std::string& last);
/// "FIRST:LAST" (or one name: FIRST:FIRST) as the pair; "" as two empty names.
std::pair<std::string, std::string> parse_step_range(const std::string& range);
/// vta_step_names over parse_step_range(range): the steps of a --tsim-steps FIRST:LAST.
std::set<std::string> vta_step_names(const Graph& g, const std::string& range);

/// How a VTA convolution step adds its residual (kShortcut is set by plan_steps).
Residual residual_of(const Graph& g, const Step& step);

/// The inputs VTA step `step` loads into the accumulator, whose loads take 8-bit elements whatever the
/// configuration's input width: a pool's or an upsample's input, the residual a convolution's sum
/// starts from or adds (kSumInit, kAluAdd; `step.residual` decided). At 4-bit activations the executor
/// gives these an 8-bit copy of their values.
std::vector<std::string> accumulator_inputs(const Step& step);

/// The BLOCK-wide channel blocks `channels` take on VTA: a last partial block is padded with zero
/// channels there (their weights and biases are zeros, so their values stay zero along a chain).
inline int64_t channel_blocks(int64_t channels, int64_t block) { return (channels + block - 1) / block; }

/// kSumInit, kShortcut: the shr right before the residual add (after the step's bias_add, if any);
/// the sum starts from the residual shifted left by it. Throws GraphError when the step has none.
const Op& residual_shift(const Step& step);

/// The convolutions a VTA convolution step runs: its own, then its shortcut's if it has one.
std::vector<const Op*> convolutions(const Step& step);

/// Whether convolution `op` of `g` is depthwise: one group per channel, as many outputs as inputs (the
/// one grouped form VTA runs, as a block-diagonal GEMM).
bool depthwise(const Graph& g, const Op& op);

/// Why operator `op` of `g` cannot run on VTA `config` ("" when it can): a convolution's or pool's
/// tensors that do not fill whole tiles, padding other than kernel/2, groups, a padded pool over
/// values that may be negative; operators that are no VTA step's start (dense, global pools,
/// flatten) run on the host. The executor refuses a VTA operator with this reason; importers place
/// operators with it.
std::string vta_refusal(const Graph& g, const Op& op, const Config& config);

/// Whether every value of `tensor` is >= 0: it comes (through casts and max pools) from a ReLU or a
/// clip at >= 0.
bool non_negative(const Graph& g, std::string tensor);

}  // namespace vta::network
