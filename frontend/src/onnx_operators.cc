// The ONNX operators the importer reads: one converter each (a member of the Importer, onnx_importer.h),
// which checks its node's inputs and attributes and adds the float graph's operators, and the table
// of rules naming them with the opsets they are read in. A new operator is a converter and a row. (The
// exporters' quantized operators have their converters in onnx_quantized_operators.cc.)

#include <algorithm>
#include <cmath>

#include "onnx_importer.h"

namespace vta::network::onnx_import_detail {

void Importer::relu(const onnx::NodeProto& n) {
  const FloatOp op = unary(n, FloatOpKind::kRelu);
  add(op, n, g_.shapes[op.inputs[0]]);
}

void Importer::leaky_relu(const onnx::NodeProto& n) {
  only_attributes(n, {"alpha"});
  FloatOp op = make(FloatOpKind::kLeakyRelu);
  op.inputs = {activation(n, 0)};
  op.alpha = attr_float(n, "alpha", 0.01f);
  if (!(op.alpha > 0 && op.alpha < 1)) {
    fail(n, "attribute alpha " + float_text(op.alpha) + ": a slope between 0 and 1 (exclusive) is supported");
  }
  add(op, n, g_.shapes[op.inputs[0]]);
}

// Pad with zeros at the bottom and right (a ZeroPad2d((0, p, 0, p)), YOLOv3-tiny's before its stride-1
// max pool): the dilation by 1 that adds p zero rows and columns there, on the host.
void Importer::pad(const onnx::NodeProto& n) {
  only_attributes(n, {"mode", "pads", "value"});
  const std::string x = activation(n, 0);
  const auto& in = g_.shapes[x];
  if (attr_string(n, "mode", "constant") != "constant") fail(n, "attribute mode " + attr_string(n, "mode", ""));
  std::vector<int64_t> pads = attr_ints(n, "pads");
  float value = attr_float(n, "value", 0.f);
  if (opset_ >= 11) {
    if (n.input_size() < 2 || !ints_.count(n.input(1))) fail(n, "its pads are not constant");
    pads = ints_.at(n.input(1));
    if (n.input_size() > 2 && !n.input(2).empty()) {
      const FloatTensor& c = constant(n, 2);
      if (c.values.size() != 1) fail(n, "its constant_value is not a scalar");
      value = c.values[0];
    }
    if (n.input_size() > 3 && !n.input(3).empty()) fail(n, "input axes is not supported");
  }
  if (value != 0.f) fail(n, "constant value " + float_text(value) + " (zeros are supported)");
  // (pads: the begins of N, C, H, W, then their ends)
  const bool bottom_right = in.size() == 4 && pads.size() == 8 &&
                            std::all_of(pads.begin(), pads.begin() + 6, [](int64_t p) { return p == 0; }) &&
                            pads[6] == pads[7] && pads[6] >= 0 && pads[6] <= 64;
  if (!bottom_right) {
    fail(n, "pads " + shape_text(pads) +
                ": zeros at the bottom and right of an NCHW tensor, as many rows as columns "
                "(0 to 64), are supported");
  }
  if (pads[6] == 0) return alias(n, x);
  FloatOp op = make(FloatOpKind::kDilate);
  op.inputs = {x};
  op.stride = 1, op.pad = int(pads[6]);
  add(op, n, {in[0], in[1], in[2] + pads[6], in[3] + pads[6]});
}

void Importer::global_average_pool(const onnx::NodeProto& n) {
  const FloatOp op = unary(n, FloatOpKind::kGlobalAvgPool);
  const auto& s = g_.shapes[op.inputs[0]];
  if (s.size() != 4) fail(n, "input " + shape_text(s) + " is not NCHW");
  add(op, n, {s[0], s[1], 1, 1});
}

void Importer::identity(const onnx::NodeProto& n) {
  if (n.op_type() == "Dropout" && n.output_size() > 1 && !n.output(1).empty() && readers_[n.output(1)] > 0) {
    fail(n, "its mask output is read (inference drops nothing)");
  }
  if (is_constant(n, 0) && n.output_size() == 1) {  // a constant's copy (exporters share equal constants so)
    if (g_.constants.count(n.output(0)) || g_.shapes.count(n.output(0)))
      fail(n, "output " + n.output(0) + " is defined twice");
    g_.constants[n.output(0)] = g_.constants.at(n.input(0));
    if (ints_.count(n.input(0))) ints_[n.output(0)] = ints_.at(n.input(0));
    return;
  }
  alias(n, activation(n, 0));
}

void Importer::softmax(const onnx::NodeProto& n) {
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
  alias(n, in);
}

void Importer::constant_node(const onnx::NodeProto& n) {
  const auto* v = attr(n, "value");
  if (!v || v->type() != onnx::AttributeProto_AttributeType_TENSOR || n.output_size() != 1) {
    fail(n, "a Constant with a tensor 'value' is read");
  }
  onnx::TensorProto copy = v->t();
  copy.set_name(n.output(0));
  constant_from(copy, "node " + node_name(n) + " (Constant)");
}

void Importer::max_pool(const onnx::NodeProto& n) { pool(n, FloatOpKind::kMaxPool); }
void Importer::average_pool(const onnx::NodeProto& n) { pool(n, FloatOpKind::kAvgPool); }

// An operator of one activation and no attributes.
FloatOp Importer::unary(const onnx::NodeProto& n, FloatOpKind kind) {
  only_attributes(n, {});
  FloatOp op = make(kind);
  op.inputs = {activation(n, 0)};
  return op;
}

void Importer::conv(const onnx::NodeProto& n) {
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

void Importer::dense(const onnx::NodeProto& n) {
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
void Importer::batch_norm(const onnx::NodeProto& n) {
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

void Importer::clip(const onnx::NodeProto& n) {
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
  if (!(op.lo <= op.hi)) fail(n, "bounds [" + float_text(op.lo) + ", " + float_text(op.hi) + "]");
  add(op, n, g_.shapes[op.inputs[0]]);
}

// An Add of two activations, or of a per-channel constant to a Conv or Gemm's output (its bias).
void Importer::add_node(const onnx::NodeProto& n) {
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

void Importer::mul(const onnx::NodeProto& n) {
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
void Importer::pool(const onnx::NodeProto& n, FloatOpKind kind) {
  const bool max = kind == FloatOpKind::kMaxPool;
  if (max) {
    only_attributes(n, {"kernel_shape", "strides", "pads", "dilations", "auto_pad", "ceil_mode", "storage_order"});
    if (attr_int(n, "storage_order", 0) != 0) fail(n, "attribute storage_order 1 is not supported");
    if (n.output_size() > 1 && !n.output(1).empty()) fail(n, "the Indices output is not supported");
  } else {
    only_attributes(n, {"kernel_shape", "strides", "pads", "auto_pad", "ceil_mode", "count_include_pad"});
  }
  const bool ceil = attr_int(n, "ceil_mode", 0) != 0;
  if (ceil && !max) fail(n, "attribute ceil_mode 1 is supported for MaxPool (an average's count would change)");
  FloatOp op = make(kind);
  op.inputs = {activation(n, 0)};
  const auto& in = g_.shapes[op.inputs[0]];
  if (in.size() != 4) fail(n, "input " + shape_text(in) + " is not NCHW");
  const auto ks = attr_ints(n, "kernel_shape");
  if (ks.size() != 2) fail(n, "attribute kernel_shape must give two sizes");
  window(n, op, ks[0], ks[1]);
  if (ceil) {  // the windows rounded up, none starting in the end padding: more padding at the end
    auto extra = [&](int64_t size) {
      const int64_t span = size + 2 * op.pad + op.pad_after - op.kernel;
      if (span < 0) return int64_t{0};
      int64_t out = (span + op.stride - 1) / op.stride + 1;
      if ((out - 1) * op.stride >= size + op.pad) --out;
      return std::max<int64_t>(0, (out - 1) * op.stride + op.kernel - (size + 2 * op.pad + op.pad_after));
    };
    if (extra(in[2]) != extra(in[3])) {
      fail(n, "attribute ceil_mode 1 on input " + shape_text(in) + " pads rows and columns differently");
    }
    op.pad_after += int(extra(in[2]));
  }
  op.include_pad = !max && attr_int(n, "count_include_pad", 0) != 0;
  add(op, n, windowed(n, in, in[1], op));
}

void Importer::concat(const onnx::NodeProto& n) {
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
void Importer::resize(const onnx::NodeProto& n) {
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
        fail(n, "attribute coordinate_transformation_mode " + coord + " (half_pixel, pytorch_half_pixel, asymmetric)");
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
        fail(n, join({"its nearest mapping (", coord, ", ", nearest, ") does not repeat each value ", std::to_string(f),
                      " times"}));
      }
    }
  }
  op.kernel = int(scales[2]), op.stride = int(scales[3]);
  add(op, n, {in[0], in[1], in[2] * op.kernel, in[3] * op.stride});
}

// ConvTranspose as a convolution over the input with stride - 1 zeros between values (and the output
// padding at the bottom and right), padded by kernel - 1 - pad, with the kernel flipped and its input
// and output channels exchanged.
void Importer::conv_transpose(const onnx::NodeProto& n) {
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
  if (!op_pad.empty() && (op_pad.size() != 2 || op_pad[0] != op_pad[1] || op_pad[0] < 0 || op_pad[0] >= probe.stride)) {
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
    if (b.shape != std::vector<int64_t>{co}) fail(n, "bias " + shape_text(b.shape) + " is not one per output channel");
    conv.bias = n.input(2);
  }
  const auto& d = g_.shapes[conv.inputs[0]];
  add(conv, n, windowed(n, d, co, conv));
}

// Flatten at axis 1, or a Reshape to (N, everything else).
void Importer::flatten(const onnx::NodeProto& n) {
  FloatOp op = make(FloatOpKind::kFlatten);
  op.inputs = {activation(n, 0)};
  const auto& in = g_.shapes[op.inputs[0]];
  const int64_t rest = shape_elements(in) / in[0];
  if (n.op_type() == "Flatten") {
    only_attributes(n, {"axis"});
    const int64_t axis = attr_int(n, "axis", 1);
    if (axis != 1) fail(n, "attribute axis " + std::to_string(axis) + " (1 is supported)");
  } else {
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

// What is read, in docs/MODELS.md's order. The opsets: from the version whose inputs and attributes
// the converter reads (Reshape's shape became an input in 5, Upsample took its scales as an input in
// 7 and gave way to Resize in 10, the quantization operators came in 10) to the newest read.
std::span<const OperatorRule> Importer::rules() {
  static const OperatorRule kRules[] = {
      {"Conv", 1, kLastOnnxOpset, &Importer::conv},
      {"BatchNormalization", 1, kLastOnnxOpset, &Importer::batch_norm},
      {"Gemm", 1, kLastOnnxOpset, &Importer::dense},
      {"MatMul", 1, kLastOnnxOpset, &Importer::dense},
      {"Add", 1, kLastOnnxOpset, &Importer::add_node},
      {"Sum", 1, kLastOnnxOpset, &Importer::add_node},
      {"Mul", 1, kLastOnnxOpset, &Importer::mul},
      {"Relu", 1, kLastOnnxOpset, &Importer::relu},
      {"Clip", 1, kLastOnnxOpset, &Importer::clip},
      {"LeakyRelu", 6, kLastOnnxOpset, &Importer::leaky_relu},
      {"MaxPool", 1, kLastOnnxOpset, &Importer::max_pool},
      {"GlobalAveragePool", 1, kLastOnnxOpset, &Importer::global_average_pool},
      {"Flatten", 1, kLastOnnxOpset, &Importer::flatten},
      {"Reshape", 5, kLastOnnxOpset, &Importer::flatten},
      {"Identity", 1, kLastOnnxOpset, &Importer::identity},
      {"Dropout", 1, kLastOnnxOpset, &Importer::identity},
      {"Softmax", 1, kLastOnnxOpset, &Importer::softmax},
      {"QuantizeLinear", 10, kLastOnnxOpset, &Importer::quantize_linear},
      {"DequantizeLinear", 10, kLastOnnxOpset, &Importer::dequantize_linear},
      {"QLinearConv", 10, kLastOnnxOpset, &Importer::qlinear},
      {"QLinearMatMul", 10, kLastOnnxOpset, &Importer::qlinear},
      {"AveragePool", 1, kLastOnnxOpset, &Importer::average_pool},
      {"Concat", 1, kLastOnnxOpset, &Importer::concat},
      {"Resize", 10, kLastOnnxOpset, &Importer::resize},
      {"Upsample", 7, 10, &Importer::resize},
      {"ConvTranspose", 1, kLastOnnxOpset, &Importer::conv_transpose},
      {"Constant", 1, kLastOnnxOpset, &Importer::constant_node},
      {"Pad", 1, kLastOnnxOpset, &Importer::pad},
  };
  return kRules;
}

}  // namespace vta::network::onnx_import_detail
