#pragma once
/// \file vta/network/onnx.h
/// Bringing a model in (docs/MODELS.md): an ONNX file read into a float graph (the operators VTA's
/// networks use, batch norms folded into their convolutions), its plain C++ float reference, and
/// post-training quantization into a Graph of int8 operators with power-of-two scales, so that every
/// requantization is VTA's shift and clip. Each operator is placed on VTA or the host, and the reason
/// is kept for printing.

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vta/driver/config.h"
#include "vta/network/graph.h"

namespace vta::network {

/// A model that cannot be imported or quantized; the message names the file, the node, its operator
/// and the attribute or input at fault.
class ImportError : public GraphError {
 public:
  using GraphError::GraphError;
};

enum class FloatOpKind : uint8_t {
  kConv,           ///< weight (O, C / groups, K, K), optional bias (O); stride, pad, groups
  kDense,          ///< x (N, K) times weight (M, K) transposed, optional bias (M)
  kRelu,           ///< max(x, 0)
  kClip,           ///< min(max(x, lo), hi)
  kAdd,            ///< a + b, same shapes
  kScale,          ///< x * scale (a positive constant)
  kMaxPool,        ///< kernel, stride, pad
  kGlobalAvgPool,  ///< (N, C, H, W) -> (N, C, 1, 1), the mean
  kFlatten,        ///< (N, ...) -> (N, rest)
  /// QuantizeLinear then DequantizeLinear: (clamp(round(x / scale) + zero, lo, hi) - zero) * scale, the
  /// rounding to nearest even (lo, hi: the integer type's range)
  kFakeQuant,
  kAvgPool,   ///< kernel, stride, pad; include_pad: padding counted in the divisor
  kConcat,    ///< along the channels
  kUpsample,  ///< nearest neighbour by integer factors: kernel down, stride across
  kDilate,    ///< stride - 1 zeros between values and pad more at the bottom and right (ConvTranspose's input)
};
const char* to_string(FloatOpKind k);

struct FloatOp {
  FloatOpKind kind = FloatOpKind::kConv;
  std::string name;     ///< the ONNX node's name (or its output's, when it has none)
  std::string onnx_op;  ///< the ONNX operator it came from ("Conv", "Gemm", ...)
  std::vector<std::string> inputs;
  std::string output;
  std::string weight, bias;  ///< kConv, kDense: constants (bias may be empty)
  int kernel = 1, stride = 1, pad = 0, groups = 1;
  float lo = 0, hi = 0;      ///< kClip
  float scale = 1;           ///< kScale, kFakeQuant
  int32_t zero = 0;          ///< kFakeQuant: the zero point
  bool include_pad = false;  ///< kAvgPool
};

/// The number of elements of a tensor of `shape`.
int64_t shape_elements(const std::vector<int64_t>& shape);

struct FloatTensor {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

/// An imported model: one NCHW float input, float operators in execution order, constants, shapes.
struct FloatGraph {
  std::string name;
  std::string input;
  std::string output;
  bool softmax = false;  ///< the model ends in a Softmax over its last axis (run on the host after the output)
  std::vector<FloatOp> ops;
  std::map<std::string, FloatTensor> constants;
  std::map<std::string, std::vector<int64_t>> shapes;  ///< every activation's
  const std::vector<int64_t>& shape(const std::string& tensor) const;
  int64_t elements(const std::string& tensor) const { return shape_elements(shape(tensor)); }
};

struct ImportOptions {
  int64_t batch = 1;  ///< for an input whose first dimension is symbolic
};

/// Largest file and constant import_onnx accepts (bytes, elements).
inline constexpr int64_t kMaxOnnxBytes = int64_t{1} << 30;
inline constexpr int64_t kMaxOnnxElements = int64_t{1} << 28;

/// Reads an ONNX model (opsets 1 to 18 of the default domain). Throws ImportError naming the problem:
/// a file that is not ONNX, an unsupported operator or attribute (the node, its operator, the
/// attribute), a graph whose nodes read what no earlier node produces (a cycle, a missing
/// initializer), shapes that do not agree, sizes beyond the bounds above.
FloatGraph import_onnx(const std::filesystem::path& file, const ImportOptions& options = {});
/// The same from the file's bytes; `what` names them in errors.
FloatGraph import_onnx_bytes(std::string_view bytes, const std::string& what, const ImportOptions& options = {});

/// Float values by tensor name (row-major in their shapes).
using FloatValues = std::map<std::string, std::vector<float>>;
/// Runs the float graph on `input` (its input's shape, row-major); every tensor kept when `keep_all`.
FloatValues run_float(const FloatGraph& g, std::span<const float> input, bool keep_all = false);
/// `count` inputs for `g`, each value uniform in [lo, hi] (std::mt19937 from `seed`): calibration and
/// test inputs for a model that comes without data (vta-onnx --calibration random:N, vta-sweep).
std::vector<std::vector<float>> random_inputs(const FloatGraph& g, int64_t count, uint32_t seed, float lo, float hi);

/// The softmax of each of the `rows` rows `logits` holds (row-major).
std::vector<float> softmax(std::span<const float> logits, int64_t rows);

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
  bool softmax = false;
  std::vector<LayerQuant> layers;
  std::vector<PlacementNote> placements;
  /// `x` (the float model's input) as the graph's int8 input: round(x * 2^frac_bits), saturated.
  std::vector<int8_t> quantize_input(std::span<const float> x) const;
  /// The graph's output as the float model's values.
  std::vector<float> dequantize_output(std::span<const int32_t> y) const;
};

/// Post-training quantization of `g` for VTA `config`: activations' scales chosen by running the float
/// reference on `calibration` (each one input, the input's shape), weights per tensor at the largest
/// power of two that keeps them in int8, biases at the accumulator's scale (an int8 shifted left).
/// Throws ImportError naming an operator the quantized graph cannot express.
QuantizedModel quantize(const FloatGraph& g, const std::vector<std::vector<float>>& calibration, const Config& config,
                        const QuantizeOptions& options = {});

}  // namespace vta::network
