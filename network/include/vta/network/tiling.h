#pragma once
/// \file vta/network/tiling.h
/// Choosing how a VTA step is blocked: the tilings whose buffers fit the SRAMs (the fit rules written
/// once, in sram_need), ranked by the traffic they make; the first few that compile are built and
/// the one whose program compiler::estimate_cycles finds fastest is kept (choose_tiling).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vta/compiler/build.h"
#include "vta/driver/config.h"
#include "vta/driver/timeline.h"
#include "vta/network/graph.h"
#include "vta/network/plan.h"

namespace vta::network {

/// The accumulator tiles a step's ALU chain needs besides its sum (one per leaky_relu: the copy its
/// product is computed in).
int64_t alu_temporaries(const Step& step);

/// A VTA convolution step's extents in VTA's blocks, as the tiling search sizes its buffers and the
/// program builder lays them out.
struct ConvGeometry {
  int64_t batches = 1, in_blocks = 1, oc_blocks = 1;  ///< N / BATCH, C / BLOCK_IN, O / BLOCK_OUT
  int64_t out_height = 1, out_width = 1;
  int64_t kernel = 1, pad = 0, stride = 1;
  int64_t shortcut_blocks = 0;  ///< Residual::kShortcut: the shortcut's input-channel blocks (0: none)
  int64_t shortcut_stride = 1;
  /// kBiasAdds in the chain and the shortcut's: oc_block accumulator entries each per virtual thread
  int64_t biases = 0;
  /// accumulator tiles the chain's ALU stages need besides the sum (a leaky_relu's copy)
  int64_t temporaries = 0;
  /// A depthwise convolution, computed as a block-diagonal GEMM: output block c reads input block c
  /// only (in_blocks is 1: the reduction is over the kernel window and one block's lanes), so an
  /// output tile of oc_block blocks loads oc_block input blocks.
  bool depthwise = false;

  /// A 1x1 convolution with a stride reads only every stride-th input row: its input buffer holds
  /// just those rows (one 2D transfer with a row stride of `stride` rows).
  bool loads_only_read_rows() const { return kernel == 1 && pad == 0 && stride > 1; }
  /// Rows and columns of the input tile an output tile of `h_block` x `w_block` reads.
  int64_t input_rows(int64_t h_block) const;
  int64_t input_cols(int64_t w_block) const;
  /// Columns of the shortcut's input tile (its rows: h_block, only those it reads).
  int64_t shortcut_cols(int64_t w_block) const { return (w_block - 1) * shortcut_stride + 1; }
};

/// The geometry of VTA convolution step `step` of `g` (its shortcut's, if any, included).
ConvGeometry conv_geometry(const Config& config, const Graph& g, const Step& step);

/// The SRAM entries a tiling's buffers take (each doubled by two virtual threads).
struct SramNeed {
  int64_t acc = 0, inp = 0, wgt = 0;
  bool fits(const Config& config) const;
};
SramNeed sram_need(const ConvGeometry& geometry, Residual residual, const ConvTiling& tiling);

/// The tilings of a convolution whose buffers fit `config`'s SRAMs, with `min_threads` to
/// `max_threads` virtual threads, best first by the traffic they make (at most `limit`).
std::vector<ConvTiling> tiling_candidates(const Config& config, const ConvGeometry& geometry, Residual residual,
                                          size_t limit = 32, int64_t min_threads = 1, int64_t max_threads = 2);

/// The input-channel blocks the shortcut's reduction loads at a time, for a tiling's `ic_block` and
/// the shortcut's `blocks` input-channel blocks (their greatest common divisor).
int64_t shortcut_ic_block(int64_t ic_block, int64_t blocks);

/// The tilings of a VTA pool step whose input and output tiles (and an average pool's bias) fit the
/// accumulator, fewest tiles first.
std::vector<ConvTiling> pool_tilings(const Config& config, const Graph& g, const Step& step);
/// A VTA upsample step's tilings that fit the accumulator (the input tile and its copies: c_block
/// channel blocks = oc_block, h_block input rows, the whole width), fewest tiles first.
std::vector<ConvTiling> upsample_tilings(const Config& config, const Graph& g, const Step& step);

/// The candidates built and estimated per step. (ResNet-18 on the tsim: 8 -> 7,310,075 cycles; 16 ->
/// 7,270,100; 32 -> 7,257,626; docs/PERFORMANCE.md.)
inline constexpr int kTilingsTried = 16;

/// A step's chosen program.
struct ChosenProgram {
  ConvTiling tiling;
  uint64_t estimated_cycles = 0;
  std::shared_ptr<const compiler::Module> module;
};

/// Builds `candidates` in order with `build` until `tried` have compiled, estimates each
/// (compiler::estimate_cycles with `stage`) and keeps the fastest (the first of equals); its module is
/// built again for the runs (an estimated module's kernels belong to the estimate's runtime). Throws
/// compiler::ScheduleError "`what`: no tiling fits the SRAMs" with each candidate's error when none
/// compiles.
ChosenProgram choose_tiling(const std::vector<ConvTiling>& candidates,
                            const std::function<compiler::Module(const ConvTiling&)>& build, const Config& config,
                            const std::string& what, int tried = kTilingsTried, const EstimateOptions& stage = {});

}  // namespace vta::network
