#pragma once
/// \file vta/network/resnet18.h
/// Quantized ResNet-18 (batch 1, 224x224x3 int8 input, 1000 int32 logits) as a Graph: conv1, its
/// requantization and the max-pool, the global average pool and the classifier on the host; layers 1
/// to 4 (sixteen 3x3 and three 1x1 convolutions, eight residual additions, each convolution with its
/// requantization, ReLU and residual addition) on VTA. Weights are either generated (deterministic,
/// with per-layer shifts calibrated on the generated input so activations neither vanish nor
/// saturate) or read from a folder of .npy files with a manifest (docs/NETWORK.md).

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "vta/network/graph.h"

namespace vta::network {

/// The sizes resnet18() accepts (the command line's and Python's bounds are these).
inline constexpr int64_t kMinResNetImage = 32, kMaxResNetImage = 1024;  ///< and a multiple of 32
inline constexpr int64_t kMaxResNetBatch = 64;
inline constexpr int64_t kMaxResNetWidth = 256;
inline constexpr int64_t kMaxResNetClasses = 100000;

struct ResNet18Options {
  int64_t image = 224;  ///< input height and width (a multiple of 32, kMinResNetImage to kMaxResNetImage)
  int64_t classes = 1000;
  int64_t batch = 1;
  int64_t width = 64;  ///< channels of conv1 and layer1 (128, 256, 512 after); 64 in ResNet-18
  uint32_t seed = 1;   ///< generated weights and input
  /// The max pool after conv1 on VTA's ALU instead of the host (its input then goes to the device
  /// 4x larger; docs/NETWORK.md has the cost).
  bool max_pool_on_vta = false;
};

/// The graph with generated weights and every shift 0 (calibrate_shifts sets them). Throws GraphError
/// naming the option out of its bounds (kMaxResNet*).
Graph resnet18(const ResNet18Options& options = {});

/// A deterministic input image (NCHW int8) for the graph's input.
std::vector<int8_t> generated_input(const Graph& g, uint32_t seed);

/// What calibration chose for one shift, and what it does to the values.
struct ShiftReport {
  std::string op;  ///< the kShr operator
  int shift = 0;
  double clipped = 0;  ///< fraction of values the following clip saturates (above 127, below -128)
  double zero = 0;     ///< fraction of the clipped values that are 0
};

/// Runs the reference on `input` and sets every shift to the smallest that clips at most
/// `max_clipped` of the values its clip sees. Returns one report per shift, in order. Throws
/// GraphError when `input` is not the size of the graph's input (as run_reference does).
std::vector<ShiftReport> calibrate_shifts(Graph& g, const std::vector<int8_t>& input, double max_clipped = 0.005);

/// The shifts' effect on `input` without changing them.
std::vector<ShiftReport> shift_reports(const Graph& g, const std::vector<int8_t>& input);

/// Writes every weight as `<dir>/<name>.npy` and `<dir>/manifest.json` (tensors, shapes, shifts).
void save_weights(const Graph& g, const std::filesystem::path& dir);
/// Replaces every weight and shift of `g` with those of a folder written by save_weights or by a
/// converter (docs/NETWORK.md); every tensor of the graph must be there with its shape, and nothing
/// else. Throws GraphError / NpyError naming the file and the problem.
void load_weights(Graph& g, const std::filesystem::path& dir);

}  // namespace vta::network
