#pragma once
/// \file vta/network/quantize.h
/// Post-training quantization (docs/MODELS.md): an imported float graph as a Graph of int8 operators
/// with power-of-two scales, so that every requantization is VTA's shift and clip. Each operator is
/// placed on VTA or the host, and the reason is kept for printing.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vta/driver/config.h"
#include "vta/network/graph.h"
#include "vta/network/onnx_import.h"

namespace vta::network {

class CalibrationSource;  // calibration.h

/// One tensor's quantization: real value = q * 2^-frac_bits * multiplier (the multiplier is 1 but
/// after an average pool, 1 / window, folded into the next convolution or dense's weights).
struct QuantParams {
  int frac_bits = 0;
  double multiplier = 1;
  double scale() const;
};

/// What quantization decided for one activation: its parameters, the fraction of calibration values
/// its int8 range clips, and the fraction it rounds to zero.
struct LayerQuant {
  std::string tensor;  ///< the float graph's tensor
  std::string op;      ///< the ONNX node producing it
  QuantParams params;
  double clipped = 0, zero = 0;
  int weight_frac_bits = 0;  ///< the producing convolution or dense's weight scale (0 otherwise)
  int shift = 0;             ///< the requantization's right shift (0 where there is none)
  /// where frac_bits come from: "calibration", or the model's own fake quantization ("model 2^-7";
  /// "model 0.0123 ~ 2^-6" when its scale is not a power of two; uint8 scales one bit coarser)
  std::string scale_from = "calibration";
};

/// The weights of one convolution or dense: their bits, their scale, and how much their rounding changes
/// the operator's own output on the calibration inputs (the sum over every input window of the squared
/// change, relative to the output's sum of squares; measured for every convolution, at whatever bits it
/// has, when weight_bits is below 8 and the rounding by output or eight_bit_layers gathers the windows'
/// moments; 0 otherwise).
struct WeightQuant {
  std::string op;  ///< the ONNX node
  int bits = 8;
  int frac_bits = 0;
  double output_error = 0;
};

/// Where one operator of the quantized graph runs, and why.
struct PlacementNote {
  std::string op;  ///< the Graph operator
  std::string onnx_node;
  Placement placement = Placement::kHost;
  std::string reason;
};

struct QuantizeOptions {
  /// A shift is chosen so that at most this fraction of an activation's calibration values saturate.
  double max_clipped = 0.0005;
  /// Place every operator VTA can run on VTA (else everything runs on the host reference).
  bool use_vta = true;
  /// Equalize channel ranges across consecutive layers first (equalize_channels): exact in float,
  /// it lets one power-of-two weight scale per layer serve channels whose ranges differ widely
  /// (depthwise convolutions with folded batch norms).
  bool equalize = true;
  /// Round each requantization to nearest (2^(shift-1) added with the bias before the shift) rather
  /// than down; a convolution without a bias then gets one.
  bool round_to_nearest = true;
  /// Bits of the weights of the convolutions placed on VTA (4 or 8; 0: the configuration's weight
  /// width, LOG_WGT_WIDTH): in [-7, 7] at 4 bits, at the largest power of two that keeps them there. A
  /// host operator's weights (the first convolution of one channel, the classifier) stay 8 bits. 8
  /// on a configuration of 4-bit weights is refused (ImportError); 4 on one of 8 runs in 8-bit lanes.
  int weight_bits = 0;
  /// Below 8 bits, a weight scale per output channel of each VTA convolution (each channel's own power
  /// of two, at most 2^6 apart), brought to one scale after the sum by a scale_channels operator (VTA's
  /// MUL by a loaded vector). Off by default: with the bias correction it measured lower on the
  /// Fashion-MNIST models than one scale per tensor (docs/MODELS.md, "Four bits").
  bool per_channel_weights = false;
  /// Below 8 bits, each VTA convolution's bias corrected by the mean error its rounded weights make on
  /// the calibration inputs (the weights' error times each input channel's mean, taken off the bias).
  bool bias_correction = true;
  /// Below 8 bits, each VTA convolution's weights rounded by their effect on its output: column by
  /// column, each weight's rounding error taken off the weights of its output channel not yet rounded,
  /// weighed by the second moments of the calibration inputs they read (GPTQ's method on VTA's
  /// power-of-two grid). Off: each weight to its nearest step.
  bool weight_rounding_by_output = true;
  /// Below 8 bits, this many VTA convolutions keep 8-bit weights: those whose rounding to weight_bits
  /// changes their own output most on the calibration inputs (WeightQuant::output_error of a first
  /// quantization with every one rounded; the model is then quantized again). On a configuration of
  /// 4-bit weight lanes they run on the host; the placement notes say which and why.
  int eight_bit_layers = 0;
  /// Below 8 bits, Conv nodes (by ONNX name) that keep 8-bit weights likewise, beside eight_bit_layers'.
  std::vector<std::string> eight_bit_nodes;
  /// Bits of every requantized activation (4 or 8; 0: the configuration's input width): in [-8, 7] at
  /// 4 bits (ReLU's [0, 7]), each scale chosen so that at most max_clipped of its values saturate that
  /// range. The graph's input stays 8 bits (the first operator reads it), and a model's own
  /// quantization scales are used only at 8. 8 on a configuration of 4-bit inputs is refused.
  int activation_bits = 0;
};

/// Cross-layer equalization: for each convolution or dense A whose output reaches the next
/// convolution or dense B only through ReLU, max pools, global average pools and flatten (each read
/// by the next alone), output channel c of A is divided by s_c and B's weights reading channel c
/// multiplied by s_c, with s_c = sqrt(range_A(c) / range_B(c)), so both ranges become their
/// geometric mean. Exact: those operators commute with a positive per-channel scale. Returns the
/// number of layer pairs equalized.
int equalize_channels(FloatGraph& g, int sweeps = 4);

/// A float graph as int8 operators: the Graph the executor runs, and how to go between its integers
/// and the float model's values.
struct QuantizedModel {
  Graph graph{"model"};
  QuantParams input, output;  ///< the graph's int8 input and its output (int8, or int32 logits)
  /// The parameters of each further output (Graph::extra_outputs(), in that order).
  std::vector<QuantParams> extra_outputs;
  bool softmax = false;
  /// The widths the quantization used (QuantizeOptions's, 0 decided by the configuration).
  int weight_bits = 8, activation_bits = 8;
  std::vector<LayerQuant> layers;
  std::vector<WeightQuant> weights;  ///< each convolution's and dense's, in the model's order
  std::vector<PlacementNote> placements;
  /// `x` (the float model's input) as the graph's int8 input: round(x * 2^frac_bits), saturated.
  std::vector<int8_t> quantize_input(std::span<const float> x) const;
  /// The graph's output as the float model's values.
  std::vector<float> dequantize_output(std::span<const int32_t> y) const;
  /// Further output `i` (extra_outputs) as the float model's values.
  std::vector<float> dequantize_extra_output(size_t i, std::span<const int32_t> y) const;
};

/// Post-training quantization of `g` for VTA `config`: activations' scales chosen by running the float
/// reference on `calibration` (each one input, the input's shape), weights per tensor at the largest
/// power of two that keeps them in int8, biases at the accumulator's scale (an int8 shifted left).
/// Throws ImportError naming an operator the quantized graph cannot express.
QuantizedModel quantize(const FloatGraph& g, const std::vector<std::vector<float>>& calibration, const Config& config,
                        const QuantizeOptions& options = {});
/// The same with the calibration inputs taken one at a time from `calibration` (calibration.h), which
/// is read to its end once; an input of the wrong size is an ImportError naming it.
QuantizedModel quantize(const FloatGraph& g, CalibrationSource& calibration, const Config& config,
                        const QuantizeOptions& options = {});

}  // namespace vta::network
