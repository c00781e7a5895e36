// ONNX models read into a FloatGraph (docs/MODELS.md "What is imported"): the protobuf parsed with
// Debian's libonnx, every node checked and turned into one of the float graph's operators (batch norms
// folded into their convolutions, biases added by a constant folded into the operator before), every
// size bounded before anything is allocated.

#include <google/protobuf/io/coded_stream.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>

#include "join.h"
#include "vta/driver/file.h"
#include "vta/network/onnx.h"

namespace vta::network {
namespace {

FloatOp make(FloatOpKind kind) {
  FloatOp op;
  op.kind = kind;
  return op;
}

std::string shape_text(const std::vector<int64_t>& s) {
  std::string t = "(";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + ")";
}

class Importer {
 public:
  Importer(const onnx::ModelProto& model, std::string what, const ImportOptions& options)
      : model_(model), what_(std::move(what)), options_(options) {}

  FloatGraph run() {
    opset_ = default_opset();
    const onnx::GraphProto& graph = model_.graph();
    g_.name = graph.name().empty() ? "model" : graph.name();
    for (const auto& t : graph.initializer()) constant_from(t, "initializer " + t.name());
    read_input(graph);
    for (const auto& node : graph.node()) {
      for (const auto& i : node.input()) ++readers_[i];
    }
    for (const auto& o : graph.output()) ++readers_[o.name()];
    for (const auto& n : graph.node()) node(n);
    if (graph.output_size() != 1)
      fail(join({"the graph has ", std::to_string(graph.output_size()), " outputs (one is imported)"}));
    g_.output = resolve(graph.output(0).name());
    if (!g_.shapes.count(g_.output))
      fail("the graph output " + graph.output(0).name() + " is not computed by any node");
    return std::move(g_);
  }

 private:
  [[noreturn]] void fail(const std::string& why) const { throw ImportError(what_ + ": " + why); }
  [[noreturn]] void fail(const onnx::NodeProto& n, const std::string& why) const {
    throw ImportError(join({what_, ": node ", node_name(n), " (", n.op_type(), "): ", why}));
  }
  static std::string node_name(const onnx::NodeProto& n) {
    return !n.name().empty() ? n.name() : n.output_size() > 0 ? n.output(0) : std::string("?");
  }

  int64_t default_opset() const {
    int64_t v = -1;
    for (const auto& o : model_.opset_import()) {
      if (o.domain().empty() || o.domain() == "ai.onnx") v = o.version();
    }
    if (v < 0) fail("the model imports no opset of the default ONNX domain");
    if (v < 1 || v > 18) fail("opset " + std::to_string(v) + " (1 to 18 are read)");
    return v;
  }

  // A constant's `n` values (checked against its data's size) as floats; int64 ones also kept exact.
  std::vector<float> values_of(const onnx::TensorProto& t, int64_t n, size_t width, const std::string& where) {
    const auto type = t.data_type();
    std::vector<float> values(static_cast<size_t>(n));
    if (!t.has_raw_data()) {
      auto take = [&](const auto& field, const char* name) {
        if (field.size() != n) {
          fail(join(
              {where, ": ", std::to_string(field.size()), " ", name, " values for ", std::to_string(n), " elements"}));
        }
        for (int i = 0; i < n; ++i) values[size_t(i)] = float(field.Get(i));
      };
      if (type == onnx::TensorProto_DataType_FLOAT) take(t.float_data(), "float_data");
      if (type == onnx::TensorProto_DataType_DOUBLE) take(t.double_data(), "double_data");
      if (type == onnx::TensorProto_DataType_INT32 || width == 1) take(t.int32_data(), "int32_data");
      if (type == onnx::TensorProto_DataType_INT64) {
        take(t.int64_data(), "int64_data");
        ints_[t.name()].assign(t.int64_data().begin(), t.int64_data().end());
      }
      return values;
    }
    const std::string& raw = t.raw_data();
    if (raw.size() != size_t(n) * width) {
      fail(join({where, ": ", std::to_string(raw.size()), " bytes of data for ", std::to_string(n), " elements"}));
    }
    for (size_t i = 0; i < size_t(n); ++i) {
      const char* p = raw.data() + i * width;
      if (type == onnx::TensorProto_DataType_FLOAT) {
        float v;
        std::memcpy(&v, p, 4);
        values[i] = v;
      } else if (type == onnx::TensorProto_DataType_DOUBLE) {
        double v;
        std::memcpy(&v, p, 8);
        values[i] = float(v);
      } else if (type == onnx::TensorProto_DataType_INT64) {
        int64_t v;
        std::memcpy(&v, p, 8);
        values[i] = float(v);
        ints_[t.name()].push_back(v);
      } else if (width == 1) {
        values[i] = type == onnx::TensorProto_DataType_INT8 ? float(int8_t(*p)) : float(uint8_t(*p));
      } else {
        int32_t v;
        std::memcpy(&v, p, 4);
        values[i] = float(v);
      }
    }
    return values;
  }

  // A constant's values as floats (FLOAT, DOUBLE, INT64, INT32), sizes checked against its dims.
  void constant_from(const onnx::TensorProto& t, const std::string& where) {
    if (t.name().empty()) fail(where + " has no name");
    if (t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL) fail(where + ": external data is not read");
    FloatTensor c;
    int64_t n = 1;
    for (const int64_t d : t.dims()) {
      if (d < 0 || (d > 0 && n > kMaxOnnxElements / d)) {
        fail(where + ": dimensions beyond " + std::to_string(kMaxOnnxElements) + " elements");
      }
      n *= d;
      c.shape.push_back(d);
    }
    const auto type = t.data_type();
    size_t width = 0;
    switch (type) {
      case onnx::TensorProto_DataType_INT8:
      case onnx::TensorProto_DataType_UINT8: width = 1; break;
      case onnx::TensorProto_DataType_FLOAT:
      case onnx::TensorProto_DataType_INT32: width = 4; break;
      case onnx::TensorProto_DataType_DOUBLE:
      case onnx::TensorProto_DataType_INT64: width = 8; break;
      default:
        fail(where + ": element type " + onnx::TensorProto_DataType_Name(type) +
             " (float, double, int64, int32, int8, uint8 are read)");
    }
    c.values = values_of(t, n, width, where);
    for (const float v : c.values) {
      if (!std::isfinite(v)) fail(where + ": a value is not finite");
    }
    if (type == onnx::TensorProto_DataType_INT8 || type == onnx::TensorProto_DataType_UINT8) {
      const bool u = type == onnx::TensorProto_DataType_UINT8;
      for (const float v : c.values) {
        if (v < (u ? 0.f : -128.f) || v > (u ? 255.f : 127.f)) fail(where + ": a value is outside its 8-bit type");
      }
      int_type_[t.name()] = u ? 2 : 1;
    }
    g_.constants[t.name()] = std::move(c);
  }

  void read_input(const onnx::GraphProto& graph) {
    std::vector<const onnx::ValueInfoProto*> inputs;
    for (const auto& in : graph.input()) {
      if (!g_.constants.count(in.name())) inputs.push_back(&in);
    }
    if (inputs.size() != 1)
      fail(join(
          {"the graph has ", std::to_string(inputs.size()), " inputs besides its initializers (one is imported)"}));
    const onnx::ValueInfoProto& in = *inputs[0];
    const std::string where = "input " + in.name();
    if (!in.type().has_tensor_type()) fail(where + " is not a tensor");
    const auto& tt = in.type().tensor_type();
    if (tt.elem_type() != onnx::TensorProto_DataType_FLOAT) {
      fail(where + ": element type " + onnx::TensorProto_DataType_Name(tt.elem_type()) + " (float inputs are read)");
    }
    std::vector<int64_t> shape;
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      const auto& d = tt.shape().dim(i);
      if (d.has_dim_value() && d.dim_value() > 0) {
        shape.push_back(d.dim_value());
      } else if (i == 0) {
        shape.push_back(options_.batch);
      } else {
        fail(where + ": dimension " + std::to_string(i) + " is not a fixed size");
      }
    }
    if (shape.empty() || shape.size() > 6) fail(where + ": shape " + shape_text(shape) + " (1 to 6 dimensions)");
    check_size(shape, where);
    g_.input = in.name();
    g_.shapes[in.name()] = shape;
  }

  void check_size(const std::vector<int64_t>& shape, const std::string& where) const {
    int64_t n = 1;
    for (const int64_t d : shape) {
      if (d < 1 || n > kMaxOnnxElements / d) fail(where + ": shape " + shape_text(shape) + " is empty or too large");
      n *= d;
    }
  }

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
  std::pair<float, int32_t> qparams(const onnx::NodeProto& n, int i, bool* uint8 = nullptr) {
    const FloatTensor& s = constant(n, i);
    if (s.values.size() != 1 || !(s.values[0] > 0) || !std::isfinite(s.values[0])) {
      fail(n, "the scale " + n.input(i) + " must be one positive value (per-tensor quantization of activations)");
    }
    int32_t zero = 0;
    bool u = false;
    if (i + 1 < n.input_size() && !n.input(i + 1).empty()) {
      const FloatTensor& z = constant(n, i + 1);
      if (z.values.size() != 1) fail(n, "the zero point " + n.input(i + 1) + " must be one value");
      zero = int32_t(z.values[0]);
      u = int_type_[n.input(i + 1)] == 2;
    }
    if (uint8) *uint8 = u;
    return {s.values[0], zero};
  }

  // A fake quantization of float activation `x` (QuantizeLinear then DequantizeLinear); its output.
  std::string fake_quant(const onnx::NodeProto& n, const std::string& x, float scale, int32_t zero, bool u,
                         const std::string& out) {
    FloatOp op = make(FloatOpKind::kFakeQuant);
    op.inputs = {x};
    op.scale = scale, op.zero = zero;
    op.lo = u ? 0.f : -128.f, op.hi = u ? 255.f : 127.f;
    onnx::NodeProto named = n;
    named.clear_output();
    named.add_output(out);
    add(op, named, g_.shapes[x]);
    return out;
  }

  void quantize_linear(const onnx::NodeProto& n) {
    only_attributes(n, {"axis", "saturate"});
    bool u = false;
    const auto [scale, zero] = qparams(n, 1, &u);
    if (is_constant(n, 0)) {  // a constant quantized: its integers, for a DequantizeLinear to read
      const FloatTensor& c = constant(n, 0);
      FloatTensor q = c;
      for (float& v : q.values)
        v = float(std::clamp(std::nearbyint(double(v) / double(scale)) + zero, u ? 0.0 : -128.0, u ? 255.0 : 127.0));
      g_.constants[n.output(0)] = std::move(q);
      int_type_[n.output(0)] = u ? 2 : 1;
      return;
    }
    const std::string x = activation(n, 0);
    quantized_[n.output(0)] = {fake_quant(n, x, scale, zero, u, n.output(0) + "#dequantized"), scale, zero};
  }

  // DequantizeLinear: of a constant, a float constant (per-tensor, or per-channel along `axis`); of a
  // quantized activation, its dequantized float tensor.
  void dequantize_linear(const onnx::NodeProto& n) {
    only_attributes(n, {"axis"});
    if (n.input_size() < 1) fail(n, "input 0 is missing");
    const auto q = quantized_.find(n.input(0));
    if (q != quantized_.end()) {
      const auto [scale, zero] = qparams(n, 1);
      if (scale != q->second.scale || zero != q->second.zero) {
        fail(n, "its scale and zero point differ from the QuantizeLinear's that made " + n.input(0));
      }
      return alias(n, q->second.dequantized);
    }
    if (!is_constant(n, 0)) fail(n, "input " + n.input(0) + " is neither a constant nor a QuantizeLinear's output");
    if (g_.constants.count(n.output(0)) || g_.shapes.count(n.output(0)))
      fail(n, "output " + n.output(0) + " is defined twice");
    const FloatTensor& c = constant(n, 0);
    const FloatTensor& s = constant(n, 1);
    const FloatTensor* z = n.input_size() > 2 && !n.input(2).empty() ? &constant(n, 2) : nullptr;
    int64_t axis = attr_int(n, "axis", 1);
    if (axis < 0) axis += int64_t(c.shape.size());
    const int64_t channels =
        s.values.size() == 1 ? 1 : (axis >= 0 && axis < int64_t(c.shape.size()) ? c.shape[size_t(axis)] : -1);
    if (channels != int64_t(s.values.size()) || (z && z->values.size() != s.values.size())) {
      fail(n, "its scale " + n.input(1) + " is neither one value nor one per element of axis " + std::to_string(axis));
    }
    int64_t inner = 1;
    for (size_t d = size_t(axis) + 1; channels > 1 && d < c.shape.size(); ++d) inner *= c.shape[d];
    FloatTensor f = c;
    for (size_t i = 0; i < f.values.size(); ++i) {
      const size_t ch = channels == 1 ? 0 : size_t((int64_t(i) / inner) % channels);
      f.values[i] = float((double(c.values[i]) - (z ? double(z->values[ch]) : 0.0)) * double(s.values[ch]));
    }
    g_.constants[n.output(0)] = std::move(f);
  }

  // QLinearConv / QLinearMatMul: the float operator on the dequantized input and weights (a per-channel
  // weight scale allowed), its output quantized with the output's scale.
  void qlinear(const onnx::NodeProto& n) {
    const bool conv = n.op_type() == "QLinearConv";
    if (conv)
      only_attributes(n, {"kernel_shape", "strides", "pads", "dilations", "group", "auto_pad"});
    else
      only_attributes(n, {});
    if (n.input_size() < 8) fail(n, std::to_string(n.input_size()) + " inputs (at least 8)");
    const auto q = quantized_.find(n.input(0));
    if (q == quantized_.end())
      fail(n, "input " + n.input(0) + " is not a QuantizeLinear's or QLinear operator's output");
    const auto [x_scale, x_zero] = qparams(n, 1);
    if (x_scale != q->second.scale || x_zero != q->second.zero)
      fail(n, "the input's scale and zero point differ from its producer's");
    const FloatTensor& wq = constant(n, 3);
    const FloatTensor& ws = constant(n, 4);
    const FloatTensor& wz = constant(n, 5);
    const int64_t out_channels = conv ? (wq.shape.empty() ? 0 : wq.shape[0]) : (wq.shape.size() == 2 ? wq.shape[1] : 0);
    const size_t per = ws.values.size();
    if ((per != 1 && int64_t(per) != out_channels) || wz.values.size() != per) {
      fail(n, "the weight scale and zero point must be one value or one per output channel");
    }
    FloatTensor w = wq;
    const int64_t inner = conv ? int64_t(w.values.size()) / std::max<int64_t>(out_channels, 1) : 1;
    for (size_t i = 0; i < w.values.size(); ++i) {
      const size_t ch = per == 1 ? 0 : conv ? size_t(int64_t(i) / inner) : size_t(int64_t(i) % out_channels);
      w.values[i] = float((double(wq.values[i]) - double(wz.values[ch])) * double(ws.values[ch]));
    }
    bool u = false;
    const auto [y_scale, y_zero] = qparams(n, 6, &u);
    onnx::NodeProto inner_node = n;  // the float operator: the dequantized input, weights and bias
    inner_node.clear_input();
    inner_node.set_op_type(conv ? "Conv" : "MatMul");
    inner_node.add_input(q->second.dequantized);
    inner_node.add_input(new_constant(node_name(n) + ".weight", std::move(w)));
    if (conv && n.input_size() > 8 && !n.input(8).empty()) {
      FloatTensor b = constant(n, 8);
      for (size_t i = 0; i < b.values.size(); ++i) {
        b.values[i] = float(double(b.values[i]) * double(x_scale) * double(ws.values[per == 1 ? 0 : i]));
      }
      inner_node.add_input(new_constant(node_name(n) + ".bias", std::move(b)));
    }
    const std::string sum = n.output(0) + "#float";
    inner_node.clear_output();
    inner_node.add_output(sum);
    if (conv) {
      this->conv(inner_node);
    } else {
      dense(inner_node);
    }
    quantized_[n.output(0)] = {fake_quant(n, sum, y_scale, y_zero, u, n.output(0) + "#dequantized"), y_scale, y_zero};
  }

  // An activation input (defined earlier, not a constant).
  std::string activation(const onnx::NodeProto& n, int i) {
    if (i >= n.input_size() || n.input(i).empty()) fail(n, "input " + std::to_string(i) + " is missing");
    std::string name = resolve(n.input(i));
    if (g_.constants.count(name)) fail(n, "input " + name + " is a constant where an activation is expected");
    if (!g_.shapes.count(name)) {
      fail(n, "reads " + name +
                  ", which no earlier node produces and no initializer holds (a cycle, a node out of "
                  "order, or a missing initializer)");
    }
    return name;
  }
  const FloatTensor& constant(const onnx::NodeProto& n, int i) {
    if (i >= n.input_size() || n.input(i).empty()) fail(n, "input " + std::to_string(i) + " is missing");
    const auto it = g_.constants.find(n.input(i));
    if (it != g_.constants.end()) return it->second;
    if (!g_.shapes.count(resolve(n.input(i)))) {
      fail(n,
           "reads " + n.input(i) + ", which no earlier node produces and no initializer holds (a missing initializer)");
    }
    fail(n, "input " + n.input(i) + " must be a constant (an initializer), not an activation");
  }
  bool is_constant(const onnx::NodeProto& n, int i) const {
    return i < n.input_size() && g_.constants.count(n.input(i)) != 0;
  }

  const onnx::AttributeProto* attr(const onnx::NodeProto& n, const std::string& name) const {
    for (const auto& a : n.attribute()) {
      if (a.name() == name) return &a;
    }
    return nullptr;
  }
  int64_t attr_int(const onnx::NodeProto& n, const std::string& name, int64_t fallback) const {
    const auto* a = attr(n, name);
    if (!a) return fallback;
    if (a->type() != onnx::AttributeProto_AttributeType_INT) fail(n, "attribute " + name + " is not an integer");
    return a->i();
  }
  float attr_float(const onnx::NodeProto& n, const std::string& name, float fallback) const {
    const auto* a = attr(n, name);
    if (!a) return fallback;
    if (a->type() != onnx::AttributeProto_AttributeType_FLOAT) fail(n, "attribute " + name + " is not a float");
    return a->f();
  }
  std::vector<int64_t> attr_ints(const onnx::NodeProto& n, const std::string& name) const {
    const auto* a = attr(n, name);
    if (!a) return {};
    if (a->type() != onnx::AttributeProto_AttributeType_INTS)
      fail(n, "attribute " + name + " is not a list of integers");
    return {a->ints().begin(), a->ints().end()};
  }
  std::string attr_string(const onnx::NodeProto& n, const std::string& name, const std::string& fallback) const {
    const auto* a = attr(n, name);
    if (!a) return fallback;
    if (a->type() != onnx::AttributeProto_AttributeType_STRING) fail(n, "attribute " + name + " is not a string");
    return a->s();
  }
  // Every attribute of `n` must be one of `known` (an unknown one could change the meaning).
  void only_attributes(const onnx::NodeProto& n, std::initializer_list<const char*> known) const {
    for (const auto& a : n.attribute()) {
      if (std::none_of(known.begin(), known.end(), [&](const char* k) { return a.name() == k; })) {
        fail(n, "attribute " + a.name() + " is not supported");
      }
    }
  }

  // The window attributes of Conv and MaxPool: a square kernel, one stride, symmetric equal pads.
  void window(const onnx::NodeProto& n, FloatOp& op, int64_t kh, int64_t kw) const {
    const auto ks = attr_ints(n, "kernel_shape");
    if (!ks.empty() && (ks.size() != 2 || ks[0] != kh || ks[1] != kw)) {
      fail(n, "attribute kernel_shape " + shape_text(ks) + " disagrees with the weight's " + shape_text({kh, kw}));
    }
    if (kh != kw) fail(n, "attribute kernel_shape " + shape_text({kh, kw}) + ": only square kernels are supported");
    const std::string auto_pad = attr_string(n, "auto_pad", "NOTSET");
    if (auto_pad != "NOTSET" && auto_pad != "VALID") fail(n, "attribute auto_pad " + auto_pad + " (NOTSET or VALID)");
    const auto strides = attr_ints(n, "strides");
    if (!strides.empty() && (strides.size() != 2 || strides[0] != strides[1] || strides[0] < 1 || strides[0] > 64)) {
      fail(n, "attribute strides " + shape_text(strides) + ": one stride of 1 to 64 for both dimensions");
    }
    const auto pads = attr_ints(n, "pads");
    if (!pads.empty() &&
        (pads.size() != 4 || std::any_of(pads.begin(), pads.end(), [&](int64_t p) { return p != pads[0]; }) ||
         pads[0] < 0 || pads[0] >= kh)) {
      fail(n, "attribute pads " + shape_text(pads) + ": equal pads on every side, smaller than the kernel");
    }
    const auto dil = attr_ints(n, "dilations");
    if (std::any_of(dil.begin(), dil.end(), [](int64_t d) { return d != 1; })) {
      fail(n, "attribute dilations " + shape_text(dil) + ": only 1 is supported");
    }
    if (kh < 1 || kh > 64) fail(n, "kernel " + std::to_string(kh) + " (1 to 64)");
    op.kernel = int(kh);
    op.stride = strides.empty() ? 1 : int(strides[0]);
    op.pad = pads.empty() ? 0 : int(pads[0]);
  }

  std::vector<int64_t> windowed(const onnx::NodeProto& n, const std::vector<int64_t>& in, int64_t channels,
                                const FloatOp& op) const {
    const int64_t oh = (in[2] + 2 * op.pad - op.kernel) / op.stride + 1,
                  ow = (in[3] + 2 * op.pad - op.kernel) / op.stride + 1;
    if (in[2] + 2 * op.pad < op.kernel || in[3] + 2 * op.pad < op.kernel) {
      fail(n, "the kernel " + std::to_string(op.kernel) + " is larger than the padded input " + shape_text(in));
    }
    return {in[0], channels, oh, ow};
  }

  void add(FloatOp op, const onnx::NodeProto& n, std::vector<int64_t> shape) {
    check_size(shape, "node " + node_name(n) + " (" + n.op_type() + ") output");
    if (n.output_size() < 1 || n.output(0).empty()) fail(n, "has no output");
    op.onnx_op = n.op_type();
    op.name = node_name(n);
    op.output = n.output(0);
    if (g_.shapes.count(op.output) || g_.constants.count(op.output))
      fail(n, "output " + op.output + " is defined twice");
    g_.shapes[op.output] = std::move(shape);
    producer_[op.output] = g_.ops.size();
    g_.ops.push_back(std::move(op));
  }
  void alias(const onnx::NodeProto& n, const std::string& to) {
    if (n.output_size() < 1 || n.output(0).empty()) fail(n, "has no output");
    if (g_.shapes.count(n.output(0))) fail(n, "output " + n.output(0) + " is defined twice");
    alias_[n.output(0)] = to;
  }
  // The operator producing `tensor` when only one reader (the node at hand) reads it.
  FloatOp* sole_producer(const std::string& tensor, FloatOpKind kind) {
    const auto it = producer_.find(tensor);
    if (it == producer_.end() || readers_[tensor] != 1) return nullptr;
    FloatOp& op = g_.ops[it->second];
    return op.kind == kind ? &op : nullptr;
  }

  std::string new_constant(const std::string& name, FloatTensor t) {
    std::string unique = name;
    for (int i = 1; g_.constants.count(unique) || g_.shapes.count(unique); ++i) unique = name + "." + std::to_string(i);
    g_.constants[unique] = std::move(t);
    return unique;
  }

  void node(const onnx::NodeProto& n) {
    if (!n.domain().empty() && n.domain() != "ai.onnx")
      fail(n, "domain " + n.domain() + " (the default ONNX domain is read)");
    if (n.output_size() < 1 || n.output(0).empty()) fail(n, "has no output");
    const std::string& t = n.op_type();
    if (t == "Conv") return conv(n);
    if (t == "Gemm" || t == "MatMul") return dense(n);
    if (t == "BatchNormalization") return batch_norm(n);
    if (t == "Relu") {
      const FloatOp op = unary(n, FloatOpKind::kRelu);
      return add(op, n, g_.shapes[op.inputs[0]]);
    }
    if (t == "Clip") return clip(n);
    if (t == "Add" || t == "Sum") return add_node(n);
    if (t == "Mul") return mul(n);
    if (t == "MaxPool") return pool(n, FloatOpKind::kMaxPool);
    if (t == "AveragePool") return pool(n, FloatOpKind::kAvgPool);
    if (t == "Concat") return concat(n);
    if (t == "Resize" || t == "Upsample") return resize(n);
    if (t == "ConvTranspose") return conv_transpose(n);
    if (t == "GlobalAveragePool") {
      const FloatOp op = unary(n, FloatOpKind::kGlobalAvgPool);
      const auto& s = g_.shapes[op.inputs[0]];
      if (s.size() != 4) fail(n, "input " + shape_text(s) + " is not NCHW");
      return add(op, n, {s[0], s[1], 1, 1});
    }
    if (t == "Flatten" || t == "Reshape") return flatten(n);
    if (t == "Identity" || t == "Dropout") {
      if (t == "Dropout" && n.output_size() > 1 && !n.output(1).empty() && readers_[n.output(1)] > 0) {
        fail(n, "its mask output is read (inference drops nothing)");
      }
      if (is_constant(n, 0) && n.output_size() == 1) {  // a constant's copy (exporters share equal constants so)
        if (g_.constants.count(n.output(0)) || g_.shapes.count(n.output(0)))
          fail(n, "output " + n.output(0) + " is defined twice");
        g_.constants[n.output(0)] = g_.constants.at(n.input(0));
        if (ints_.count(n.input(0))) ints_[n.output(0)] = ints_.at(n.input(0));
        return;
      }
      return alias(n, activation(n, 0));
    }
    if (t == "Softmax") {
      const std::string in = activation(n, 0);
      const auto& s = g_.shapes[in];
      const auto rank = int64_t(s.size());
      int64_t axis = attr_int(n, "axis", opset_ >= 13 ? -1 : 1);
      if (axis < 0) axis += rank;
      if (axis != rank - 1)
        fail(n, "attribute axis " + std::to_string(axis) + ": a softmax over the last axis is supported");
      if (model_.graph().output_size() != 1 || n.output(0) != model_.graph().output(0).name()) {
        fail(n, "Softmax runs on the host after the graph's output: it must produce the graph's output");
      }
      g_.softmax = true;
      return alias(n, in);
    }
    if (t == "QuantizeLinear") return quantize_linear(n);
    if (t == "DequantizeLinear") return dequantize_linear(n);
    if (t == "QLinearConv" || t == "QLinearMatMul") return qlinear(n);
    if (t == "Constant") {
      const auto* v = attr(n, "value");
      if (!v || v->type() != onnx::AttributeProto_AttributeType_TENSOR || n.output_size() != 1) {
        fail(n, "a Constant with a tensor 'value' is read");
      }
      onnx::TensorProto copy = v->t();
      copy.set_name(n.output(0));
      return constant_from(copy, "node " + node_name(n) + " (Constant)");
    }
    fail(n, "operator " + t + " is not supported (docs/MODELS.md lists what is)");
  }

  // An operator of one activation and no attributes.
  FloatOp unary(const onnx::NodeProto& n, FloatOpKind kind) {
    only_attributes(n, {});
    FloatOp op = make(kind);
    op.inputs = {activation(n, 0)};
    return op;
  }

  void conv(const onnx::NodeProto& n) {
    only_attributes(n, {"kernel_shape", "strides", "pads", "dilations", "group", "auto_pad"});
    FloatOp op = make(FloatOpKind::kConv);
    op.inputs = {activation(n, 0)};
    const auto& in = g_.shapes[op.inputs[0]];
    const FloatTensor& w = constant(n, 1);
    if (in.size() != 4) fail(n, "input " + shape_text(in) + " is not NCHW (2D convolutions are supported)");
    if (w.shape.size() != 4) fail(n, "weight " + shape_text(w.shape) + " is not OIHW");
    const int64_t groups = attr_int(n, "group", 1);
    if (groups < 1 || in[1] % groups != 0 || w.shape[0] % groups != 0 || w.shape[1] * groups != in[1]) {
      fail(n, join({"attribute group ", std::to_string(groups), ": input ", shape_text(in), " and weight ",
                    shape_text(w.shape), " do not agree"}));
    }
    op.groups = int(groups);
    window(n, op, w.shape[2], w.shape[3]);
    op.weight = n.input(1);
    if (n.input_size() > 2 && !n.input(2).empty()) {
      const FloatTensor& b = constant(n, 2);
      if (b.shape != std::vector<int64_t>{w.shape[0]})
        fail(n, "bias " + shape_text(b.shape) + " is not one per output channel");
      op.bias = n.input(2);
    }
    add(op, n, windowed(n, in, w.shape[0], op));
  }

  void dense(const onnx::NodeProto& n) {
    const bool gemm = n.op_type() == "Gemm";
    if (gemm) only_attributes(n, {"alpha", "beta", "transA", "transB"});
    FloatOp op = make(FloatOpKind::kDense);
    op.inputs = {activation(n, 0)};
    const auto& in = g_.shapes[op.inputs[0]];
    const FloatTensor& b = constant(n, 1);
    if (in.size() != 2 || b.shape.size() != 2)
      fail(n, "inputs " + shape_text(in) + " and " + shape_text(b.shape) + " are not matrices");
    if (gemm && attr_int(n, "transA", 0) != 0) fail(n, "attribute transA 1 is not supported");
    const bool trans_b = gemm && attr_int(n, "transB", 0) != 0;
    const int64_t k = trans_b ? b.shape[1] : b.shape[0], m = trans_b ? b.shape[0] : b.shape[1];
    if (k != in[1]) fail(n, "inputs " + shape_text(in) + " and " + shape_text(b.shape) + " do not multiply");
    const float alpha = gemm ? attr_float(n, "alpha", 1.f) : 1.f, beta = gemm ? attr_float(n, "beta", 1.f) : 1.f;
    FloatTensor w{{m, k}, std::vector<float>(size_t(m * k))};
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < k; ++j) {
        w.values[size_t(i * k + j)] = alpha * b.values[size_t(trans_b ? i * k + j : j * m + i)];
      }
    }
    op.weight = new_constant(node_name(n) + ".weight", std::move(w));
    if (gemm && n.input_size() > 2 && !n.input(2).empty()) {
      const FloatTensor& c = constant(n, 2);
      const int64_t ce = shape_elements(c.shape);
      if (ce != m && ce != 1) fail(n, "bias C " + shape_text(c.shape) + " is neither (M) nor a scalar");
      FloatTensor bias{{m}, std::vector<float>(size_t(m))};
      for (int64_t i = 0; i < m; ++i) bias.values[size_t(i)] = beta * c.values[size_t(ce == 1 ? 0 : i)];
      op.bias = new_constant(node_name(n) + ".bias", std::move(bias));
    }
    add(op, n, {in[0], m});
  }

  // y = (x - mean) / sqrt(var + eps) * scale + b, folded into the convolution that produces x.
  void batch_norm(const onnx::NodeProto& n) {
    only_attributes(n, {"epsilon", "momentum", "training_mode", "spatial"});
    if (attr_int(n, "training_mode", 0) != 0) fail(n, "attribute training_mode 1 (inference is imported)");
    const std::string x = activation(n, 0);
    if (g_.shapes[x].size() != 4) fail(n, "input " + shape_text(g_.shapes[x]) + " is not NCHW");
    FloatOp* conv = sole_producer(x, FloatOpKind::kConv);
    const int64_t o = g_.shapes[x][1];
    std::vector<const FloatTensor*> p;
    for (int i = 1; i <= 4; ++i) {
      p.push_back(&constant(n, i));
      if (shape_elements(p.back()->shape) != o)
        fail(n, "input " + n.input(i) + " " + shape_text(p.back()->shape) + " is not one value per channel");
    }
    const float eps = attr_float(n, "epsilon", 1e-5f);
    if (!conv) {  // on its own: a 1x1 depthwise convolution (one weight and one bias per channel)
      FloatOp op = make(FloatOpKind::kConv);
      op.inputs = {x};
      op.groups = int(o);
      op.weight = new_constant(node_name(n) + ".weight", {{o, 1, 1, 1}, std::vector<float>(size_t(o), 1.f)});
      op.bias = new_constant(node_name(n) + ".bias", {{o}, std::vector<float>(size_t(o), 0.f)});
      add(op, n, g_.shapes[x]);
      conv = &g_.ops.back();
    }
    FloatTensor w = g_.constants.at(conv->weight);
    FloatTensor b{{o}, std::vector<float>(size_t(o), 0.f)};
    if (!conv->bias.empty()) b.values = g_.constants.at(conv->bias).values;
    const int64_t per = shape_elements(w.shape) / o;
    for (int64_t c = 0; c < o; ++c) {
      const auto at = [&](int i) { return double(p[size_t(i)]->values[size_t(c)]); };  // scale, b, mean, var
      const double f = at(0) / std::sqrt(at(3) + double(eps));
      for (int64_t i = 0; i < per; ++i) {
        float& v = w.values[size_t(c * per + i)];
        v = float(double(v) * f);
      }
      b.values[size_t(c)] = float((double(b.values[size_t(c)]) - at(2)) * f + at(1));
    }
    conv->weight = new_constant(conv->name + ".weight_bn", std::move(w));
    conv->bias = new_constant(conv->name + ".bias_bn", std::move(b));
    if (conv->output != n.output(0)) alias(n, x);
  }

  void clip(const onnx::NodeProto& n) {
    FloatOp op = make(FloatOpKind::kClip);
    op.inputs = {activation(n, 0)};
    op.lo = -INFINITY, op.hi = INFINITY;
    if (opset_ < 11) {
      only_attributes(n, {"min", "max"});
      op.lo = attr_float(n, "min", op.lo), op.hi = attr_float(n, "max", op.hi);
    } else {
      only_attributes(n, {});
      for (int i = 1; i <= 2; ++i) {
        if (i >= n.input_size() || n.input(i).empty()) continue;
        const FloatTensor& c = constant(n, i);
        if (c.values.size() != 1) fail(n, "input " + n.input(i) + " is not a scalar");
        (i == 1 ? op.lo : op.hi) = c.values[0];
      }
    }
    if (!(op.lo <= op.hi)) fail(n, "bounds [" + std::to_string(op.lo) + ", " + std::to_string(op.hi) + "]");
    add(op, n, g_.shapes[op.inputs[0]]);
  }

  // An Add of two activations, or of a per-channel constant to a Conv or Gemm's output (its bias).
  void add_node(const onnx::NodeProto& n) {
    only_attributes(n, {});
    if (n.input_size() != 2) fail(n, std::to_string(n.input_size()) + " inputs (two are supported)");
    for (int c = 0; c < 2; ++c) {
      if (!is_constant(n, c)) continue;
      const std::string x = activation(n, 1 - c);
      const FloatTensor& k = constant(n, c);
      FloatOp* p = sole_producer(x, FloatOpKind::kConv);
      if (!p) p = sole_producer(x, FloatOpKind::kDense);
      if (!p || g_.shapes[x].size() < 2) {
        fail(n, "adding constant " + n.input(c) +
                    " is supported as a per-channel bias of the Conv or Gemm/MatMul before it only");
      }
      const int64_t ch = g_.shapes[x][1];
      if (!p || shape_elements(k.shape) != ch || k.shape.empty() || k.shape.size() > g_.shapes[x].size()) {
        fail(n, "adding constant " + n.input(c) + " " + shape_text(k.shape) +
                    " is supported as a per-channel bias of the Conv or Gemm/MatMul before it only");
      }
      FloatTensor b{{ch}, std::vector<float>(size_t(ch), 0.f)};
      if (!p->bias.empty()) b.values = g_.constants.at(p->bias).values;
      for (int64_t i = 0; i < ch; ++i) b.values[size_t(i)] += k.values[size_t(i)];
      p->bias = new_constant(p->name + ".bias_add", std::move(b));
      return alias(n, x);
    }
    FloatOp op = make(FloatOpKind::kAdd);
    op.inputs = {activation(n, 0), activation(n, 1)};
    if (g_.shapes[op.inputs[0]] != g_.shapes[op.inputs[1]]) {
      fail(n, "inputs " + shape_text(g_.shapes[op.inputs[0]]) + " and " + shape_text(g_.shapes[op.inputs[1]]) +
                  " differ (broadcasting is not supported)");
    }
    add(op, n, g_.shapes[op.inputs[0]]);
  }

  void mul(const onnx::NodeProto& n) {
    only_attributes(n, {});
    const int c = is_constant(n, 0) ? 0 : 1;
    if (n.input_size() != 2 || !is_constant(n, c) || constant(n, c).values.size() != 1 ||
        !(constant(n, c).values[0] > 0)) {
      fail(n, "a Mul by one positive constant is supported");
    }
    FloatOp op = make(FloatOpKind::kScale);
    op.inputs = {activation(n, 1 - c)};
    op.scale = constant(n, c).values[0];
    add(op, n, g_.shapes[op.inputs[0]]);
  }

  // MaxPool and AveragePool: a square window, one stride, equal pads, no ceil mode.
  void pool(const onnx::NodeProto& n, FloatOpKind kind) {
    const bool max = kind == FloatOpKind::kMaxPool;
    if (max) {
      only_attributes(n, {"kernel_shape", "strides", "pads", "dilations", "auto_pad", "ceil_mode", "storage_order"});
      if (attr_int(n, "storage_order", 0) != 0) fail(n, "attribute storage_order 1 is not supported");
      if (n.output_size() > 1 && !n.output(1).empty()) fail(n, "the Indices output is not supported");
    } else {
      only_attributes(n, {"kernel_shape", "strides", "pads", "auto_pad", "ceil_mode", "count_include_pad"});
    }
    if (attr_int(n, "ceil_mode", 0) != 0) fail(n, "attribute ceil_mode 1 is not supported");
    FloatOp op = make(kind);
    op.inputs = {activation(n, 0)};
    const auto& in = g_.shapes[op.inputs[0]];
    if (in.size() != 4) fail(n, "input " + shape_text(in) + " is not NCHW");
    const auto ks = attr_ints(n, "kernel_shape");
    if (ks.size() != 2) fail(n, "attribute kernel_shape must give two sizes");
    window(n, op, ks[0], ks[1]);
    op.include_pad = !max && attr_int(n, "count_include_pad", 0) != 0;
    add(op, n, windowed(n, in, in[1], op));
  }

  void concat(const onnx::NodeProto& n) {
    only_attributes(n, {"axis"});
    FloatOp op = make(FloatOpKind::kConcat);
    if (n.input_size() < 1) fail(n, "no inputs");
    for (int i = 0; i < n.input_size(); ++i) op.inputs.push_back(activation(n, i));
    std::vector<int64_t> out = g_.shapes[op.inputs[0]];
    const auto rank = int64_t(out.size());
    int64_t axis = attr_int(n, "axis", -999);
    if (axis < 0 && axis != -999) axis += rank;
    if (axis != 1 || rank < 2)
      fail(n, "attribute axis " + std::to_string(axis) + ": a concatenation of channels (axis 1) is supported");
    for (size_t i = 1; i < op.inputs.size(); ++i) {
      std::vector<int64_t> a = g_.shapes[op.inputs[i]], b = out;
      if (a.size() != b.size())
        fail(n, "inputs of ranks " + std::to_string(a.size()) + " and " + std::to_string(b.size()));
      out[1] += a[1];
      a[1] = b[1] = 0;
      if (a != b) fail(n, "input " + op.inputs[i] + " differs from " + op.inputs[0] + " in more than its channels");
    }
    add(op, n, out);
  }

  // Resize (mode nearest) or Upsample by one integer factor in H and W, whose nearest-neighbour
  // mapping is each value repeated (source index = output index / factor).
  void resize(const onnx::NodeProto& n) {
    only_attributes(n, {"mode", "scales", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
                        "exclude_outside", "extrapolation_value", "antialias", "axes", "keep_aspect_ratio_policy"});
    FloatOp op = make(FloatOpKind::kUpsample);
    op.inputs = {activation(n, 0)};
    const auto& in = g_.shapes[op.inputs[0]];
    if (in.size() != 4) fail(n, "input " + shape_text(in) + " is not NCHW");
    if (attr_string(n, "mode", "nearest") != "nearest")
      fail(n, "attribute mode " + attr_string(n, "mode", "") + " (nearest is supported)");
    std::vector<double> scales;
    if (n.op_type() == "Upsample" && attr(n, "scales")) {
      const auto* a = attr(n, "scales");
      scales.assign(a->floats().begin(), a->floats().end());
    } else {
      const int scales_at = n.op_type() == "Upsample" || opset_ < 11 ? 1 : 2;
      if (scales_at < n.input_size() && !n.input(scales_at).empty() && !constant(n, scales_at).values.empty()) {
        for (const float v : constant(n, scales_at).values) scales.push_back(double(v));
      } else if (scales_at + 1 < n.input_size() && !n.input(scales_at + 1).empty()) {
        const auto& sizes = constant(n, scales_at + 1).values;
        if (sizes.size() != 4) fail(n, "sizes must give four sizes");
        for (size_t d = 0; d < 4; ++d) scales.push_back(double(sizes[d]) / double(in[d]));
      }
    }
    auto whole = [](double v) { return v >= 1 && v <= 64 && v == std::floor(v); };
    if (scales.size() != 4 || scales[0] != 1 || scales[1] != 1 || !whole(scales[2]) || !whole(scales[3])) {
      fail(n, "scales must be (1, 1, fh, fw) with integer factors of 1 to 64 (an upsample)");
    }
    const std::string coord =
        attr_string(n, "coordinate_transformation_mode", opset_ >= 11 ? "half_pixel" : "asymmetric");
    const std::string nearest = attr_string(n, "nearest_mode", opset_ >= 11 ? "round_prefer_floor" : "floor");
    for (int d = 2; d < 4; ++d) {  // the mapping ONNX defines, checked against repetition
      const auto f = int64_t(scales[size_t(d)]);
      for (int64_t y = 0; y < in[size_t(d)] * f; ++y) {
        double x = double(y) / double(f);
        if (coord == "half_pixel" || coord == "pytorch_half_pixel") {
          x = (double(y) + 0.5) / double(f) - 0.5;
        } else if (coord != "asymmetric") {
          fail(n,
               "attribute coordinate_transformation_mode " + coord + " (half_pixel, pytorch_half_pixel, asymmetric)");
        }
        double src = 0;
        if (nearest == "floor")
          src = std::floor(x);
        else if (nearest == "ceil")
          src = std::ceil(x);
        else if (nearest == "round_prefer_floor")
          src = x - std::floor(x) == 0.5 ? std::floor(x) : std::round(x);
        else if (nearest == "round_prefer_ceil")
          src = std::round(x);
        else
          fail(n, "attribute nearest_mode " + nearest);
        if (int64_t(std::clamp(src, 0.0, double(in[size_t(d)] - 1))) != y / f) {
          fail(n, join({"its nearest mapping (", coord, ", ", nearest, ") does not repeat each value ",
                        std::to_string(f), " times"}));
        }
      }
    }
    op.kernel = int(scales[2]), op.stride = int(scales[3]);
    add(op, n, {in[0], in[1], in[2] * op.kernel, in[3] * op.stride});
  }

  // ConvTranspose as a convolution over the input with stride - 1 zeros between values (and the output
  // padding at the bottom and right), padded by kernel - 1 - pad, with the kernel flipped and its input
  // and output channels exchanged.
  void conv_transpose(const onnx::NodeProto& n) {
    only_attributes(n, {"kernel_shape", "strides", "pads", "dilations", "group", "auto_pad", "output_padding"});
    if (attr(n, "output_shape")) fail(n, "attribute output_shape is not supported");
    if (attr_int(n, "group", 1) != 1)
      fail(n, "attribute group " + std::to_string(attr_int(n, "group", 1)) + " (1 is supported)");
    const std::string x = activation(n, 0);
    const auto& in = g_.shapes[x];
    const FloatTensor& w = constant(n, 1);
    if (in.size() != 4 || w.shape.size() != 4 || w.shape[0] != in[1]) {
      fail(n, "input " + shape_text(in) + " and weight " + shape_text(w.shape) +
                  " do not make an NCHW transposed convolution");
    }
    FloatOp probe = make(FloatOpKind::kConv);
    window(n, probe, w.shape[2], w.shape[3]);
    const auto op_pad = attr_ints(n, "output_padding");
    if (!op_pad.empty() &&
        (op_pad.size() != 2 || op_pad[0] != op_pad[1] || op_pad[0] < 0 || op_pad[0] >= probe.stride)) {
      fail(n, "attribute output_padding " + shape_text(op_pad) + ": one value below the stride");
    }
    const int64_t k = probe.kernel, s = probe.stride, p = probe.pad, extra = op_pad.empty() ? 0 : op_pad[0];
    FloatOp dil = make(FloatOpKind::kDilate);
    dil.inputs = {x};
    dil.stride = int(s), dil.pad = int(extra);
    onnx::NodeProto named = n;
    named.clear_output();
    named.add_output(n.output(0) + "#dilated");
    add(dil, named, {in[0], in[1], (in[2] - 1) * s + 1 + extra, (in[3] - 1) * s + 1 + extra});
    const int64_t ci = w.shape[0], co = w.shape[1];
    FloatTensor wc{{co, ci, k, k}, std::vector<float>(w.values.size())};
    for (int64_t o = 0; o < co; ++o) {
      for (int64_t i = 0; i < ci; ++i) {
        for (int64_t t = 0; t < k * k; ++t) {
          wc.values[size_t((o * ci + i) * k * k + t)] = w.values[size_t((i * co + o) * k * k + (k * k - 1 - t))];
        }
      }
    }
    FloatOp conv = make(FloatOpKind::kConv);
    conv.inputs = {n.output(0) + "#dilated"};
    conv.kernel = int(k), conv.stride = 1, conv.pad = int(k - 1 - p);
    conv.weight = new_constant(node_name(n) + ".weight", std::move(wc));
    if (n.input_size() > 2 && !n.input(2).empty()) {
      const FloatTensor& b = constant(n, 2);
      if (b.shape != std::vector<int64_t>{co})
        fail(n, "bias " + shape_text(b.shape) + " is not one per output channel");
      conv.bias = n.input(2);
    }
    const auto& d = g_.shapes[conv.inputs[0]];
    add(conv, n, windowed(n, d, co, conv));
  }

  // Flatten at axis 1, or a Reshape to (N, everything else).
  void flatten(const onnx::NodeProto& n) {
    FloatOp op = make(FloatOpKind::kFlatten);
    op.inputs = {activation(n, 0)};
    const auto& in = g_.shapes[op.inputs[0]];
    const int64_t rest = shape_elements(in) / in[0];
    if (n.op_type() == "Flatten") {
      only_attributes(n, {"axis"});
      const int64_t axis = attr_int(n, "axis", 1);
      if (axis != 1) fail(n, "attribute axis " + std::to_string(axis) + " (1 is supported)");
    } else {
      if (opset_ < 5) fail(n, "a Reshape before opset 5 (its shape an attribute) is not read");
      only_attributes(n, {"allowzero"});
      if (!is_constant(n, 1) || !ints_.count(n.input(1))) fail(n, "the shape must be an int64 constant");
      const auto& s = ints_[n.input(1)];
      const bool ok =
          s.size() == 2 && (s[0] == in[0] || s[0] == 0 || (s[0] == -1 && s[1] == rest)) && (s[1] == rest || s[1] == -1);
      if (!ok)
        fail(n, "reshape of " + shape_text(in) + " to " + shape_text(s) + ": only (N, everything else) is supported");
    }
    if (in.size() == 2) return alias(n, op.inputs[0]);
    add(op, n, {in[0], rest});
  }

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

}  // namespace

const char* to_string(FloatOpKind k) {
  switch (k) {
    case FloatOpKind::kConv: return "conv";
    case FloatOpKind::kDense: return "dense";
    case FloatOpKind::kRelu: return "relu";
    case FloatOpKind::kClip: return "clip";
    case FloatOpKind::kAdd: return "add";
    case FloatOpKind::kScale: return "scale";
    case FloatOpKind::kMaxPool: return "max_pool";
    case FloatOpKind::kGlobalAvgPool: return "global_avg_pool";
    case FloatOpKind::kFlatten: return "flatten";
    case FloatOpKind::kFakeQuant: return "fake_quant";
    case FloatOpKind::kAvgPool: return "avg_pool";
    case FloatOpKind::kConcat: return "concat";
    case FloatOpKind::kUpsample: return "upsample";
    case FloatOpKind::kDilate: return "dilate";
  }
  return "?";
}

const std::vector<int64_t>& FloatGraph::shape(const std::string& tensor) const {
  const auto it = shapes.find(tensor);
  if (it == shapes.end()) throw ImportError(name + ": no tensor " + tensor);
  return it->second;
}

FloatGraph import_onnx_bytes(std::string_view bytes, const std::string& what, const ImportOptions& options) {
  if (int64_t(bytes.size()) > kMaxOnnxBytes) {
    throw ImportError(what + ": " + std::to_string(bytes.size()) + " bytes (at most " + std::to_string(kMaxOnnxBytes) +
                      ")");
  }
  if (bytes.empty()) throw ImportError(what + ": not an ONNX model: the file is empty");
  if (options.batch < 1 || options.batch > 4096) throw ImportError(what + ": batch " + std::to_string(options.batch));
  onnx::ModelProto model;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), int(bytes.size()));
  in.SetTotalBytesLimit(int(kMaxOnnxBytes));
  if (!model.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    throw ImportError(what + ": not an ONNX model (the protobuf does not parse: truncated or another format)");
  }
  if (!model.has_graph()) throw ImportError(what + ": the model has no graph");
  return Importer(model, what, options).run();
}

FloatGraph import_onnx(const std::filesystem::path& file, const ImportOptions& options) {
  return import_onnx_bytes(read_file_as<ImportError>(file, uint64_t(kMaxOnnxBytes)), file.string(), options);
}

}  // namespace vta::network
