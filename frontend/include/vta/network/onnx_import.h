#pragma once
/// \file vta/network/onnx_import.h
/// Bringing a model in (docs/MODELS.md): an ONNX file read into a float graph of the operators VTA's
/// networks use (batch norms folded into their convolutions, biases into the operator before), every
/// size bounded before anything is allocated. float_reference.h runs that graph, quantize.h turns it
/// into int8 operators for VTA.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

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
  kAvgPool,    ///< kernel, stride, pad; include_pad: padding counted in the divisor
  kConcat,     ///< along the channels
  kUpsample,   ///< nearest neighbour by integer factors: kernel down, stride across
  kDilate,     ///< stride - 1 zeros between values and pad more at the bottom and right (ConvTranspose's input)
  kLeakyRelu,  ///< x for x >= 0, alpha * x below (0 < alpha < 1)
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
  int pad_after = 0;         ///< kMaxPool: more padding at the bottom and right (end pads, ceil_mode)
  float lo = 0, hi = 0;      ///< kClip
  float scale = 1;           ///< kScale, kFakeQuant
  float alpha = 0;           ///< kLeakyRelu: the slope below 0
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
  std::string output;                      ///< the first of the model's outputs
  std::vector<std::string> extra_outputs;  ///< the others, in the model's order (two detection heads, ...)
  bool softmax = false;  ///< the model ends in a Softmax over its last axis (run on the host after the output)
  std::vector<FloatOp> ops;
  std::map<std::string, FloatTensor> constants;
  std::map<std::string, std::vector<int64_t>> shapes;  ///< every activation's
  const std::vector<int64_t>& shape(const std::string& tensor) const;
  bool is_output(const std::string& tensor) const;
  int64_t elements(const std::string& tensor) const { return shape_elements(shape(tensor)); }
};

struct ImportOptions {
  int64_t batch = 1;  ///< for an input whose first dimension is symbolic
};

/// Largest file and constant import_onnx accepts (bytes, elements).
inline constexpr int64_t kMaxOnnxBytes = int64_t{1} << 30;
inline constexpr int64_t kMaxOnnxElements = int64_t{1} << 28;

/// The newest opset of the default ONNX domain import_onnx reads.
inline constexpr int kLastOnnxOpset = 18;

/// An ONNX operator import_onnx reads, and the opsets of the default domain it reads it in.
struct OnnxOperator {
  std::string op_type;
  int since = 1, until = kLastOnnxOpset;
};
/// Every operator import_onnx reads, in the order docs/MODELS.md lists them.
std::vector<OnnxOperator> onnx_operators();

/// Reads an ONNX model (opsets 1 to kLastOnnxOpset of the default domain). Throws ImportError naming the problem:
/// a file that is not ONNX, an unsupported operator (or one outside its opsets) or attribute (the node, its operator,
/// the attribute), a graph whose nodes read what no earlier node produces (a cycle, a missing initializer), shapes that
/// do not agree, sizes beyond the bounds above.
FloatGraph import_onnx(const std::filesystem::path& file, const ImportOptions& options = {});
/// The same from the file's bytes; `what` names them in errors.
FloatGraph import_onnx_bytes(std::string_view bytes, const std::string& what, const ImportOptions& options = {});

}  // namespace vta::network
