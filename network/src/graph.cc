#include "vta/network/graph.h"

#include <algorithm>

#include "join.h"

namespace vta::network {
namespace {

// Refuses a tensor with a dimension below 1 or more than kMaxTensorElements elements (counted
// without overflow): a size the graph's users would multiply out and allocate.
void check_shape(const std::string& graph, const std::string& name, const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (const int64_t d : shape) {
    if (d < 1) {
      throw GraphError(
          join({graph, ": tensor ", name, " has shape ", shape_text(shape), ": every dimension must be >= 1"}));
    }
    if (d > kMaxTensorElements / n) {
      throw GraphError(join({graph, ": tensor ", name, " has shape ", shape_text(shape), ": more than ",
                             std::to_string(kMaxTensorElements), " elements"}));
    }
    n *= d;
  }
}

Op make_op(OpKind kind, const std::string& name, std::vector<std::string> inputs) {
  Op op;
  op.kind = kind;
  op.name = name;
  op.inputs = std::move(inputs);
  return op;
}

}  // namespace

const char* to_string(ElemType t) { return t == ElemType::kInt8 ? "int8" : "int32"; }

const char* to_string(OpKind k) {
  switch (k) {
    case OpKind::kConv2d: return "conv2d";
    case OpKind::kDense: return "dense";
    case OpKind::kShr: return "shr";
    case OpKind::kAdd: return "add";
    case OpKind::kRelu: return "relu";
    case OpKind::kClip: return "clip";
    case OpKind::kCast: return "cast";
    case OpKind::kMaxPool: return "max_pool";
    case OpKind::kGlobalAvgPool: return "global_avg_pool";
    case OpKind::kBiasAdd: return "bias_add";
    case OpKind::kFlatten: return "flatten";
    case OpKind::kAvgPool: return "avg_pool";
    case OpKind::kConcat: return "concat";
    case OpKind::kUpsample: return "upsample";
    case OpKind::kDilate: return "dilate";
    case OpKind::kLeakyRelu: return "leaky_relu";
    case OpKind::kShrEven: return "shr_even";
    case OpKind::kScaleChannels: return "scale_channels";
  }
  return "?";
}

MacCount count_macs(const Graph& g) {
  MacCount m;
  for (const Op& op : g.ops()) {
    if (op.kind != OpKind::kConv2d && op.kind != OpKind::kDense) continue;
    const TensorDesc& w = g.tensor(op.weight);  // (O, C / groups, K, K) or (M, K): one output's products
    const int64_t per_output = w.elements() / w.shape[0];
    const int64_t macs = g.tensor(op.output).elements() * per_output;
    (op.placement == Placement::kVta ? m.vta : m.host) += macs;
  }
  return m;
}

const char* to_string(Placement p) { return p == Placement::kHost ? "host" : "vta"; }

int64_t TensorDesc::elements() const {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  return n;
}

std::string Graph::input(const std::string& name, std::vector<int64_t> shape) {
  if (!input_.empty()) throw GraphError(name_ + ": a second input " + name + " (the graph has one: " + input_ + ")");
  if (shape.size() != 4) throw GraphError(name_ + ": input " + name + " must be NCHW, not " + shape_text(shape));
  if (tensors_.count(name)) throw GraphError(name_ + ": tensor " + name + " is defined twice");
  check_shape(name_, name, shape);
  tensors_[name] = {name, std::move(shape), ElemType::kInt8};
  input_ = name;
  return name;
}

std::string Graph::constant(const std::string& name, std::vector<int64_t> shape, std::vector<int8_t> values) {
  if (tensors_.count(name)) throw GraphError(name_ + ": tensor " + name + " is defined twice");
  check_shape(name_, name, shape);
  TensorDesc d{name, std::move(shape), ElemType::kInt8};
  if (d.elements() != int64_t(values.size())) {
    throw GraphError(name_ + ": constant " + name + " has " + std::to_string(values.size()) + " values for shape " +
                     shape_text(d.shape));
  }
  tensors_[name] = d;
  weights_[name] = std::move(values);
  weight_order_.push_back(name);
  return name;
}

const TensorDesc& Graph::tensor(const std::string& name) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) throw GraphError(name_ + ": no tensor " + name);
  return it->second;
}

const std::vector<int8_t>& Graph::weight(const std::string& name) const {
  const auto it = weights_.find(name);
  if (it == weights_.end()) throw GraphError(name_ + ": no weight constant " + name);
  return it->second;
}

std::vector<int8_t>& Graph::mutable_weight(const std::string& name) {
  const auto it = weights_.find(name);
  if (it == weights_.end()) throw GraphError(name_ + ": no weight constant " + name);
  return it->second;
}

const TensorDesc& Graph::need(const Op& op, const std::string& name, ElemType type) const {
  const auto it = tensors_.find(name);
  if (it == tensors_.end()) throw GraphError(name_ + ": " + op.name + " reads " + name + ", which is not defined");
  if (it->second.type != type) {
    throw GraphError(name_ + ": " + op.name + " (" + to_string(op.kind) + ") needs " + name + " to be " +
                     to_string(type) + ", not " + to_string(it->second.type));
  }
  return it->second;
}

std::string Graph::add_op(Op op, TensorDesc out) {
  if (tensors_.count(op.name)) throw GraphError(name_ + ": tensor " + op.name + " is defined twice");
  check_shape(name_, op.name, out.shape);
  out.name = op.name;
  op.output = op.name;
  tensors_[op.name] = std::move(out);
  ops_.push_back(std::move(op));
  return ops_.back().output;
}

std::string Graph::conv2d(const std::string& name, const std::string& x, const std::string& weight, int stride, int pad,
                          int groups) {
  Op op = make_op(OpKind::kConv2d, name, {x});
  op.weight = weight;
  const TensorDesc& in = need(op, x, ElemType::kInt8);
  const TensorDesc& w = need(op, weight, ElemType::kInt8);
  if (groups < 1 || in.shape.size() != 4 || w.shape.size() != 4 || in.shape[1] % groups != 0 ||
      w.shape[0] % groups != 0 || w.shape[1] * groups != in.shape[1] || w.shape[2] != w.shape[3]) {
    throw GraphError(name_ + ": " + name + ": input " + shape_text(in.shape) + " and weight " + shape_text(w.shape) +
                     " do not make an NCHW x OIHW convolution with a square kernel in " + std::to_string(groups) +
                     " group(s)");
  }
  if (stride < 1 || pad < 0) throw GraphError(name_ + ": " + name + ": stride must be >= 1 and pad >= 0");
  op.kernel = int(w.shape[2]), op.stride = stride, op.pad = pad, op.groups = groups;
  const int64_t oh = (in.shape[2] + 2 * pad - op.kernel) / stride + 1,
                ow = (in.shape[3] + 2 * pad - op.kernel) / stride + 1;
  if (oh < 1 || ow < 1) throw GraphError(name_ + ": " + name + ": the kernel is larger than the padded input");
  return add_op(op, {"", {in.shape[0], w.shape[0], oh, ow}, ElemType::kInt32});
}

std::string Graph::dense(const std::string& name, const std::string& x, const std::string& weight) {
  Op op = make_op(OpKind::kDense, name, {x});
  op.weight = weight;
  const TensorDesc& in = need(op, x, ElemType::kInt8);
  const TensorDesc& w = need(op, weight, ElemType::kInt8);
  if (in.shape.size() != 2 || w.shape.size() != 2 || w.shape[1] != in.shape[1]) {
    throw GraphError(name_ + ": " + name + ": input " + shape_text(in.shape) + " and weight " + shape_text(w.shape) +
                     " do not make (N, K) x (M, K)");
  }
  return add_op(op, {"", {in.shape[0], w.shape[0]}, ElemType::kInt32});
}

std::string Graph::shr_even(const std::string& name, const std::string& x, int shift) {
  Op op = make_op(OpKind::kShrEven, name, {x});
  if (shift < 1 || shift > kMaxShrEvenShift) {
    throw GraphError(name_ + ": " + name + ": shift " + std::to_string(shift) + " is not 1 to " +
                     std::to_string(kMaxShrEvenShift));
  }
  op.shift = shift;
  return add_op(op, need(op, x, ElemType::kInt32));
}

std::string Graph::shr(const std::string& name, const std::string& x, int shift) {
  Op op = make_op(OpKind::kShr, name, {x});
  if (shift < 0 || shift > 31)
    throw GraphError(name_ + ": " + name + ": shift " + std::to_string(shift) + " is not 0 to 31");
  op.shift = shift;
  const TensorDesc& in = tensor(x);
  return add_op(op, need(op, x, in.type));
}

std::string Graph::add(const std::string& name, const std::string& a, const std::string& b) {
  Op op = make_op(OpKind::kAdd, name, {a, b});
  const TensorDesc& ta = need(op, a, ElemType::kInt32);
  const TensorDesc& tb = tensor(b);
  if (ta.shape != tb.shape) {
    throw GraphError(name_ + ": " + name + ": " + a + " " + shape_text(ta.shape) + " and " + b + " " +
                     shape_text(tb.shape) + " differ in shape");
  }
  return add_op(op, ta);
}

std::string Graph::relu(const std::string& name, const std::string& x) {
  Op op = make_op(OpKind::kRelu, name, {x});
  return add_op(op, need(op, x, ElemType::kInt32));
}

std::string Graph::leaky_relu(const std::string& name, const std::string& x, int32_t multiplier, int shift) {
  Op op = make_op(OpKind::kLeakyRelu, name, {x});
  if (shift < 1 || shift > 15 || multiplier < 1 || multiplier > 32767 || (int64_t{multiplier} >> shift) != 0) {
    throw GraphError(
        join({name_, ": ", name, ": leaky_relu slope ", std::to_string(multiplier), " / 2^", std::to_string(shift),
              " (multiplier 1 to 32767, shift 1 to 15, the slope below 1: VTA's ALU immediates)"}));
  }
  op.multiplier = multiplier, op.shift = shift;
  return add_op(op, need(op, x, ElemType::kInt32));
}

std::string Graph::clip(const std::string& name, const std::string& x, int32_t lo, int32_t hi) {
  Op op = make_op(OpKind::kClip, name, {x});
  if (lo > hi)
    throw GraphError(name_ + ": " + name + ": clip bounds [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  op.lo = lo, op.hi = hi;
  return add_op(op, need(op, x, ElemType::kInt32));
}

std::string Graph::cast(const std::string& name, const std::string& x) {
  Op op = make_op(OpKind::kCast, name, {x});
  TensorDesc out = need(op, x, ElemType::kInt32);
  out.type = ElemType::kInt8;
  return add_op(op, out);
}

std::string Graph::max_pool(const std::string& name, const std::string& x, int kernel, int stride, int pad,
                            int pad_after) {
  Op op = make_op(OpKind::kMaxPool, name, {x});
  const TensorDesc& in = need(op, x, ElemType::kInt8);
  if (in.shape.size() != 4 || kernel < 1 || stride < 1 || pad < 0 || pad >= kernel || pad_after < 0 ||
      pad + pad_after >= kernel || in.shape[2] + 2 * pad + pad_after < kernel ||
      in.shape[3] + 2 * pad + pad_after < kernel) {
    throw GraphError(name_ + ": " + name +
                     ": max_pool needs NCHW, kernel >= 1, stride >= 1, 0 <= pad, pad + pad_after < kernel, the "
                     "padded input at least the kernel");
  }
  op.kernel = kernel, op.stride = stride, op.pad = pad, op.pad_after = pad_after;
  const int64_t oh = (in.shape[2] + 2 * pad + pad_after - kernel) / stride + 1,
                ow = (in.shape[3] + 2 * pad + pad_after - kernel) / stride + 1;
  return add_op(op, {"", {in.shape[0], in.shape[1], oh, ow}, ElemType::kInt8});
}

std::string Graph::global_avg_pool(const std::string& name, const std::string& x) {
  Op op = make_op(OpKind::kGlobalAvgPool, name, {x});
  const TensorDesc& in = need(op, x, ElemType::kInt8);
  if (in.shape.size() != 4) throw GraphError(name_ + ": " + name + ": global_avg_pool needs NCHW");
  return add_op(op, {"", {in.shape[0], in.shape[1]}, ElemType::kInt32});
}

// An operator of int32 `x` and an int8 constant of one value per channel (bias_add, scale_channels).
Op Graph::per_channel_op(OpKind kind, const std::string& name, const std::string& x, const std::string& constant,
                         const char* what) {
  Op op = make_op(kind, name, {x});
  op.weight = constant;
  const TensorDesc& in = need(op, x, ElemType::kInt32);
  const TensorDesc& k = need(op, constant, ElemType::kInt8);
  if (in.shape.size() < 2 || k.shape.size() != 1 || k.shape[0] != in.shape[1]) {
    throw GraphError(name_ + ": " + name + ": " + what + " " + shape_text(k.shape) +
                     " is not one value per channel of " + shape_text(in.shape));
  }
  return op;
}

std::string Graph::bias_add(const std::string& name, const std::string& x, const std::string& bias, int shift) {
  Op op = per_channel_op(OpKind::kBiasAdd, name, x, bias, "bias");
  const TensorDesc& in = tensor(x);
  if (shift < 0 || shift > 23) {
    throw GraphError(name_ + ": " + name + ": bias shift " + std::to_string(shift) + " is not 0 to 23");
  }
  op.shift = shift;
  return add_op(op, in);
}

std::string Graph::scale_channels(const std::string& name, const std::string& x, const std::string& factors) {
  Op op = per_channel_op(OpKind::kScaleChannels, name, x, factors, "factors");
  return add_op(op, tensor(x));
}

std::string Graph::flatten(const std::string& name, const std::string& x) {
  Op op = make_op(OpKind::kFlatten, name, {x});
  const TensorDesc& in = need(op, x, ElemType::kInt8);
  if (in.shape.size() < 2)
    throw GraphError(name_ + ": " + name + ": flatten needs (N, ...), not " + shape_text(in.shape));
  return add_op(op, {"", {in.shape[0], in.elements() / std::max<int64_t>(in.shape[0], 1)}, ElemType::kInt8});
}

std::string Graph::avg_pool(const std::string& name, const std::string& x, int kernel, int stride, int pad) {
  Op op = make_op(OpKind::kAvgPool, name, {x});
  const TensorDesc& in = need(op, x, ElemType::kInt8);
  if (in.shape.size() != 4 || kernel < 1 || stride < 1 || pad < 0 || pad >= kernel || in.shape[2] + 2 * pad < kernel ||
      in.shape[3] + 2 * pad < kernel) {
    throw GraphError(name_ + ": " + name +
                     ": avg_pool needs NCHW, kernel >= 1 within the padded input, stride >= 1, 0 <= pad < kernel");
  }
  op.kernel = kernel, op.stride = stride, op.pad = pad;
  const int64_t oh = (in.shape[2] + 2 * pad - kernel) / stride + 1, ow = (in.shape[3] + 2 * pad - kernel) / stride + 1;
  return add_op(op, {"", {in.shape[0], in.shape[1], oh, ow}, ElemType::kInt32});
}

std::string Graph::concat(const std::string& name, const std::vector<std::string>& xs) {
  Op op = make_op(OpKind::kConcat, name, xs);
  if (xs.empty()) throw GraphError(name_ + ": " + name + ": concat of nothing");
  TensorDesc out = need(op, xs[0], ElemType::kInt8);
  if (out.shape.size() < 2) throw GraphError(name_ + ": " + name + ": concat needs (N, C, ...) inputs");
  for (size_t i = 1; i < xs.size(); ++i) {
    const TensorDesc& t = need(op, xs[i], ElemType::kInt8);
    std::vector<int64_t> a = t.shape, b = out.shape;
    if (a.size() != b.size()) a.clear();
    if (!a.empty()) a[1] = b[1] = 0;
    if (a.empty() || a != b) {
      throw GraphError(name_ + ": " + name + ": " + xs[i] + " " + shape_text(t.shape) + " does not match " + xs[0] +
                       " " + shape_text(tensor(xs[0]).shape) + " but in its channels");
    }
    out.shape[1] += t.shape[1];
  }
  return add_op(op, out);
}

std::string Graph::upsample(const std::string& name, const std::string& x, int factor_h, int factor_w) {
  Op op = make_op(OpKind::kUpsample, name, {x});
  TensorDesc out = need(op, x, ElemType::kInt8);
  if (out.shape.size() != 4 || factor_h < 1 || factor_h > 64 || factor_w < 1 || factor_w > 64) {
    throw GraphError(name_ + ": " + name + ": upsample needs NCHW and factors of 1 to 64");
  }
  op.kernel = factor_h, op.stride = factor_w;
  out.shape[2] *= factor_h, out.shape[3] *= factor_w;
  return add_op(op, out);
}

std::string Graph::dilate(const std::string& name, const std::string& x, int stride, int extra) {
  Op op = make_op(OpKind::kDilate, name, {x});
  TensorDesc out = need(op, x, ElemType::kInt8);
  if (out.shape.size() != 4 || stride < 1 || stride > 64 || extra < 0 || extra > 64) {
    throw GraphError(name_ + ": " + name + ": dilate needs NCHW, a stride of 1 to 64 and 0 to 64 extra rows");
  }
  op.stride = stride, op.pad = extra;
  out.shape[2] = (out.shape[2] - 1) * stride + 1 + extra, out.shape[3] = (out.shape[3] - 1) * stride + 1 + extra;
  return add_op(op, out);
}

std::string Graph::requantize(const std::string& name, const std::string& x, int shift, bool relu) {
  const std::string s = shr(name + ".shr", x, shift);
  const std::string c = clip(name + ".clip", s, relu ? 0 : -128, 127);
  return cast(name, c);
}

void Graph::set_output(const std::string& name) {
  tensor(name);
  output_ = name;
}

void Graph::add_output(const std::string& name) {
  tensor(name);
  if (is_output(name)) throw GraphError(name_ + ": " + name + " is already an output");
  extra_outputs_.push_back(name);
}

bool Graph::is_output(const std::string& t) const {
  return t == output_ || std::find(extra_outputs_.begin(), extra_outputs_.end(), t) != extra_outputs_.end();
}

std::vector<const Op*> Graph::consumers(const std::string& t) const {
  std::vector<const Op*> out;
  for (const Op& op : ops_) {
    if (std::find(op.inputs.begin(), op.inputs.end(), t) != op.inputs.end()) out.push_back(&op);
  }
  return out;
}

const Op& Graph::producer(const std::string& t) const {
  for (const Op& op : ops_) {
    if (op.output == t) return op;
  }
  throw GraphError(name_ + ": no operator produces " + t);
}

}  // namespace vta::network
