// The exporters' quantized ONNX operators (docs/MODELS.md): QuantizeLinear and DequantizeLinear pairs
// read as fake quantization whose power-of-two scales the quantizer honours, and QLinearConv /
// QLinearMatMul as the float operator between such pairs. Converters of the Importer
// (onnx_importer.h), named in onnx_operators.cc's table of rules.

#include <algorithm>
#include <cmath>

#include "onnx_importer.h"

namespace vta::network::onnx_import_detail {

void Importer::quantize_linear(const onnx::NodeProto& n) {
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
void Importer::dequantize_linear(const onnx::NodeProto& n) {
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
void Importer::qlinear(const onnx::NodeProto& n) {
  const bool conv = n.op_type() == "QLinearConv";
  if (conv)
    only_attributes(n, {"kernel_shape", "strides", "pads", "dilations", "group", "auto_pad"});
  else
    only_attributes(n, {});
  if (n.input_size() < 8) fail(n, std::to_string(n.input_size()) + " inputs (at least 8)");
  const auto q = quantized_.find(n.input(0));
  if (q == quantized_.end()) fail(n, "input " + n.input(0) + " is not a QuantizeLinear's or QLinear operator's output");
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

}  // namespace vta::network::onnx_import_detail
