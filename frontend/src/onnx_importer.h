#pragma once
// The ONNX importer inside (not installed): its state and the helpers its converters share, declared
// once for the two files that define them -- onnx_import.cc (the model read, its constants, each node
// sent to its operator's converter) and onnx_operators.cc (the converters and the table of operator
// rules: which ONNX operator, which opsets, which converter).

#include <onnx/onnx_pb.h>

#include <initializer_list>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "join.h"
#include "vta/network/onnx_import.h"

namespace vta::network::onnx_import_detail {

FloatOp make(FloatOpKind kind);

class Importer;

/// One operator the importer reads: its ONNX name, the default domain's opsets its converter is
/// written for (a model importing another opset is refused by name), and the converter.
struct OperatorRule {
  std::string_view op_type;
  int since = 1, until = kLastOnnxOpset;
  void (Importer::*convert)(const onnx::NodeProto&) = nullptr;
};

class Importer {
 public:
  Importer(const onnx::ModelProto& model, std::string what, const ImportOptions& options)
      : model_(model), what_(std::move(what)), options_(options) {}

  FloatGraph run();

  /// What is read: each operator's converter and the default domain's opsets it is written for,
  /// in the order docs/MODELS.md lists them (onnx_operators.cc).
  static std::span<const OperatorRule> rules();

 private:
  // ---- reading the model and its constants, the helpers every converter uses (onnx_import.cc)

  [[noreturn]] void fail(const std::string& why) const { throw ImportError(what_ + ": " + why); }
  [[noreturn]] void fail(const onnx::NodeProto& n, const std::string& why) const {
    throw ImportError(join({what_, ": node ", node_name(n), " (", n.op_type(), "): ", why}));
  }
  static std::string node_name(const onnx::NodeProto& n) {
    return !n.name().empty() ? n.name() : n.output_size() > 0 ? n.output(0) : std::string("?");
  }

  int64_t default_opset() const;

  // A constant's `n` values (checked against its data's size) as floats; int64 ones also kept exact.
  std::vector<float> values_of(const onnx::TensorProto& t, int64_t n, size_t width, const std::string& where);

  // A constant's values as floats (FLOAT, DOUBLE, INT64, INT32), sizes checked against its dims.
  void constant_from(const onnx::TensorProto& t, const std::string& where);

  void read_input(const onnx::GraphProto& graph);

  void check_size(const std::vector<int64_t>& shape, const std::string& where) const;

  std::string resolve(const std::string& name) const {
    const auto it = alias_.find(name);
    return it == alias_.end() ? name : it->second;
  }

  // The quantization of an 8-bit tensor (QuantizeLinear's output, a QLinear operator's): the float
  // tensor holding its dequantized values, its scale and zero point.
  struct Quantized {
    std::string dequantized;
    float scale = 1;
    int32_t zero = 0;
  };

  // A scalar scale and zero point of a (De)QuantizeLinear or QLinear node: inputs i and i + 1.
  std::pair<float, int32_t> qparams(const onnx::NodeProto& n, int i, bool* uint8 = nullptr);

  // A fake quantization of float activation `x` (QuantizeLinear then DequantizeLinear); its output.
  std::string fake_quant(const onnx::NodeProto& n, const std::string& x, float scale, int32_t zero, bool u,
                         const std::string& out);

  // An activation input (defined earlier, not a constant).
  std::string activation(const onnx::NodeProto& n, int i);
  const FloatTensor& constant(const onnx::NodeProto& n, int i);
  bool is_constant(const onnx::NodeProto& n, int i) const {
    return i < n.input_size() && g_.constants.count(n.input(i)) != 0;
  }

  const onnx::AttributeProto* attr(const onnx::NodeProto& n, const std::string& name) const;
  int64_t attr_int(const onnx::NodeProto& n, const std::string& name, int64_t fallback) const;
  float attr_float(const onnx::NodeProto& n, const std::string& name, float fallback) const;
  std::vector<int64_t> attr_ints(const onnx::NodeProto& n, const std::string& name) const;
  std::string attr_string(const onnx::NodeProto& n, const std::string& name, const std::string& fallback) const;
  // Every attribute of `n` must be one of `known` (an unknown one could change the meaning).
  void only_attributes(const onnx::NodeProto& n, std::initializer_list<const char*> known) const;

  // The window attributes of Conv and MaxPool: a square kernel, one stride, symmetric equal pads.
  void window(const onnx::NodeProto& n, FloatOp& op, int64_t kh, int64_t kw) const;

  std::vector<int64_t> windowed(const onnx::NodeProto& n, const std::vector<int64_t>& in, int64_t channels,
                                const FloatOp& op) const;

  void add(FloatOp op, const onnx::NodeProto& n, std::vector<int64_t> shape);
  void alias(const onnx::NodeProto& n, const std::string& to);
  // The operator producing `tensor` when only one reader (the node at hand) reads it.
  FloatOp* sole_producer(const std::string& tensor, FloatOpKind kind);

  std::string new_constant(const std::string& name, FloatTensor t);

  // One node: folded when it computes a constant from constants (onnx_constants.cc), else its
  // operator's rule looked up (rules()) and its converter called.
  void node(const onnx::NodeProto& n);
  bool fold_constant(const onnx::NodeProto& n);
  std::pair<double, bool> constant_of_shape_value(const onnx::NodeProto& n);

  // ---- the converters (onnx_operators.cc): one per rule, each checks its node and adds its operators

  FloatOp unary(const onnx::NodeProto& n, FloatOpKind kind);
  void pool(const onnx::NodeProto& n, FloatOpKind kind);
  void conv(const onnx::NodeProto& n);
  void conv_transpose(const onnx::NodeProto& n);
  void dense(const onnx::NodeProto& n);
  void batch_norm(const onnx::NodeProto& n);
  void add_node(const onnx::NodeProto& n);
  void mul(const onnx::NodeProto& n);
  void relu(const onnx::NodeProto& n);
  void leaky_relu(const onnx::NodeProto& n);
  void pad(const onnx::NodeProto& n);
  void clip(const onnx::NodeProto& n);
  void max_pool(const onnx::NodeProto& n);
  void average_pool(const onnx::NodeProto& n);
  void global_average_pool(const onnx::NodeProto& n);
  void flatten(const onnx::NodeProto& n);
  // Identity and Dropout: an alias of the input (a constant's copy when the input is a constant).
  void identity(const onnx::NodeProto& n);
  // The graph's last node only: the softmax runs on the host after the output.
  void softmax(const onnx::NodeProto& n);
  void constant_node(const onnx::NodeProto& n);
  void quantize_linear(const onnx::NodeProto& n);
  void dequantize_linear(const onnx::NodeProto& n);
  void qlinear(const onnx::NodeProto& n);
  void concat(const onnx::NodeProto& n);
  void resize(const onnx::NodeProto& n);

  const onnx::ModelProto& model_;
  std::string what_;
  ImportOptions options_;
  int64_t opset_ = 0;
  FloatGraph g_;
  std::map<std::string, std::string> alias_;
  std::map<std::string, int> readers_;
  std::map<std::string, size_t> producer_;
  std::map<std::string, std::vector<int64_t>> ints_;
  std::map<std::string, int> int_type_;  // 8-bit constants: 1 int8, 2 uint8
  std::map<std::string, Quantized> quantized_;
};

}  // namespace vta::network::onnx_import_detail