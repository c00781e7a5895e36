// Constant folding: the nodes an exporter leaves around shape arithmetic (torch.onnx writes a
// ZeroPad2d's pads as ConstantOfShape, Concat, Reshape, Slice, Transpose and Cast of constants, and a
// flatten's shape as Shape, Gather, Unsqueeze and Concat) are evaluated while the model is read, so
// that the operator they feed sees a constant. A node folds when every input it reads is a constant
// (Shape: when its input's shape is known, which every activation's is); otherwise its rule applies.
// One function per operator on small exact tensors; fold_constant gathers a node's inputs and
// attributes and stores the result.

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <set>

#include "onnx_importer.h"

namespace vta::network::onnx_import_detail {
namespace {

// A small N-D tensor of exact values (int64 fit in a double up to 2^53; larger ones only appear as
// Slice's "to the end" and are clamped).
struct Folded {
  std::vector<int64_t> shape;
  std::vector<double> values;
  bool integer = true;
};

// What a folding function throws; fold_constant names the node.
struct FoldError {
  std::string what;
};

// The number of elements of `shape`: 0 when a dimension is 0, otherwise saturated at INT64_MAX (a
// Reshape's target shape is read from the model and may be anything; fuzz_onnx found the overflow).
int64_t count(const std::vector<int64_t>& shape) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  int64_t n = 1;
  for (const int64_t d : shape) {
    if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<int64_t>::max();
  }
  return n;
}

void bounded(const std::vector<int64_t>& shape) {
  int64_t total = 1;
  for (const int64_t d : shape) {
    if (d < 0 || (d > 0 && total > kMaxOnnxElements / d)) {
      throw FoldError{"shape " + shape_text(shape) + " is negative or too large"};
    }
    total *= d;
  }
}

size_t axis_of(int64_t axis, size_t rank) {
  if (axis < 0) axis += int64_t(rank);
  if (axis < 0 || axis >= int64_t(std::max<size_t>(rank, 1))) {
    throw FoldError{"axis " + std::to_string(axis) + " out of range"};
  }
  return size_t(axis);
}

// A folded integer (held as a double) as an int64. An int64 near its limits is held as +-2^63 (the
// exporters' "to the end" in Slice is INT64_MAX): saturated to the limit, not converted past it. NaN
// (a Cast of one) is refused.
int64_t to_int64(double v) {
  constexpr double kLimit = 0x1p63;
  if (std::isnan(v)) throw FoldError{"integer NaN (a Cast of a NaN to an integer type)"};
  if (v >= kLimit) return std::numeric_limits<int64_t>::max();
  if (v <= -kLimit) return std::numeric_limits<int64_t>::min();
  return int64_t(v);
}

std::vector<int64_t> as_ints(const Folded& f, const std::string& name) {
  if (!f.integer || f.shape.size() > 1) throw FoldError{"input " + name + " is not a list of integers"};
  std::vector<int64_t> r;
  r.reserve(f.values.size());
  for (const double v : f.values) r.push_back(to_int64(v));
  return r;
}

// Row-major strides of `shape`.
std::vector<int64_t> strides_of(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

// out's values: element `idx` of out taken from `in` at flat index source(idx).
void gather_from(const Folded& in, Folded& out, const std::function<int64_t(const std::vector<int64_t>&)>& source) {
  out.values.resize(size_t(count(out.shape)));
  std::vector<int64_t> idx(out.shape.size(), 0);
  for (size_t flat = 0; flat < out.values.size(); ++flat) {
    out.values[flat] = in.values[size_t(source(idx))];
    for (size_t d = out.shape.size(); d-- > 0;) {
      if (++idx[d] < out.shape[d]) break;
      idx[d] = 0;
    }
  }
}

bool integer_type(int64_t onnx_type) {
  return onnx_type == onnx::TensorProto_DataType_INT64 || onnx_type == onnx::TensorProto_DataType_INT32 ||
         onnx_type == onnx::TensorProto_DataType_INT8 || onnx_type == onnx::TensorProto_DataType_UINT8 ||
         onnx_type == onnx::TensorProto_DataType_BOOL;
}

Folded fold_constant_of_shape(const std::vector<int64_t>& shape, double value, bool integer) {
  bounded(shape);
  Folded out;
  out.shape = shape;
  out.integer = integer;
  out.values.assign(size_t(count(shape)), value);
  return out;
}

Folded fold_concat(const std::vector<Folded>& parts, int64_t axis_attr) {
  const size_t axis = axis_of(axis_attr, parts[0].shape.size());
  Folded out;
  out.shape = parts[0].shape;
  out.shape[axis] = 0;
  for (const Folded& p : parts) {
    if (p.shape.size() != out.shape.size()) throw FoldError{"inputs of different ranks"};
    out.shape[axis] += p.shape[axis];
    out.integer = out.integer && p.integer;
  }
  out.values.reserve(size_t(count(out.shape)));
  const int64_t outer = count({out.shape.begin(), out.shape.begin() + std::ptrdiff_t(axis)});
  for (int64_t o = 0; o < outer; ++o) {
    for (const Folded& p : parts) {
      const int64_t block = count({p.shape.begin() + std::ptrdiff_t(axis), p.shape.end()});
      out.values.insert(out.values.end(), p.values.begin() + std::ptrdiff_t(o * block),
                        p.values.begin() + std::ptrdiff_t((o + 1) * block));
    }
  }
  return out;
}

Folded fold_reshape(Folded in, std::vector<int64_t> s, bool allow_zero) {
  int64_t infer = -1;
  std::vector<int64_t> known;
  for (size_t d = 0; d < s.size(); ++d) {
    if (s[d] == 0 && !allow_zero) s[d] = d < in.shape.size() ? in.shape[d] : 1;
    if (s[d] == -1) {
      if (infer >= 0) throw FoldError{"two -1 in its shape"};
      infer = int64_t(d);
    } else if (s[d] < 0) {
      throw FoldError{"shape " + shape_text(s)};
    } else {
      known.push_back(s[d]);
    }
  }
  const auto total = int64_t(in.values.size());
  if (infer >= 0) s[size_t(infer)] = count(known) > 0 ? total / count(known) : 0;
  if (count(s) != total) throw FoldError{"shape " + shape_text(s) + " for " + std::to_string(total) + " values"};
  bounded(s);  // no element, yet dimensions whose strides would overflow
  in.shape = s;
  return in;
}

Folded fold_transpose(const Folded& in, std::vector<int64_t> perm) {
  if (perm.empty()) {
    for (size_t d = in.shape.size(); d-- > 0;) perm.push_back(int64_t(d));
  }
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t d = 0; d < sorted.size(); ++d) {
    if (sorted.size() != in.shape.size() || sorted[d] != int64_t(d)) {
      throw FoldError{"attribute perm " + shape_text(perm)};
    }
  }
  Folded out;
  out.integer = in.integer;
  for (const int64_t p : perm) out.shape.push_back(in.shape[size_t(p)]);
  const auto strides = strides_of(in.shape);
  gather_from(in, out, [&](const std::vector<int64_t>& idx) {
    int64_t src = 0;
    for (size_t d = 0; d < perm.size(); ++d) src += idx[d] * strides[size_t(perm[d])];
    return src;
  });
  return out;
}

Folded fold_slice(const Folded& in, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                  std::vector<int64_t> axes, std::vector<int64_t> steps) {
  if (axes.empty()) {
    for (size_t d = 0; d < starts.size(); ++d) axes.push_back(int64_t(d));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    throw FoldError{"starts, ends, axes and steps of different lengths"};
  }
  std::vector<int64_t> first(in.shape.size(), 0), step(in.shape.size(), 1);
  Folded out;
  out.integer = in.integer;
  out.shape = in.shape;
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t a = axis_of(axes[i], in.shape.size());
    const int64_t dim = in.shape[a], st = steps[i];
    if (st == 0) throw FoldError{"a step of 0"};
    auto clamped = [&](int64_t v, int64_t lo, int64_t hi) { return std::clamp(v < 0 ? v + dim : v, lo, hi); };
    const int64_t b = st > 0 ? clamped(starts[i], 0, dim) : clamped(starts[i], -1, dim - 1);
    const int64_t e = st > 0 ? clamped(ends[i], 0, dim) : clamped(ends[i], -1, dim - 1);
    first[a] = b, step[a] = st;
    out.shape[a] = st > 0 ? std::max<int64_t>(0, (e - b + st - 1) / st) : std::max<int64_t>(0, (b - e - st - 1) / -st);
  }
  const auto strides = strides_of(in.shape);
  gather_from(in, out, [&](const std::vector<int64_t>& idx) {
    int64_t src = 0;
    for (size_t d = 0; d < idx.size(); ++d) src += (first[d] + idx[d] * step[d]) * strides[d];
    return src;
  });
  return out;
}

Folded fold_cast(Folded in, int64_t to) {
  in.integer = integer_type(to);
  if (in.integer) {
    for (double& v : in.values) v = std::trunc(v);
  } else if (to != onnx::TensorProto_DataType_FLOAT && to != onnx::TensorProto_DataType_DOUBLE) {
    throw FoldError{"attribute to " + std::to_string(to) + " (integer and floating-point types are read)"};
  }
  return in;
}

Folded fold_unsqueeze(Folded in, std::vector<int64_t> axes) {
  const size_t rank = in.shape.size() + axes.size();
  for (int64_t& a : axes) a = int64_t(axis_of(a, rank));
  std::sort(axes.begin(), axes.end());
  for (const int64_t a : axes) in.shape.insert(in.shape.begin() + std::ptrdiff_t(a), 1);
  return in;
}

Folded fold_squeeze(Folded in, const std::vector<int64_t>& axes) {
  std::vector<int64_t> kept;
  for (size_t d = 0; d < in.shape.size(); ++d) {
    const bool named =
        std::any_of(axes.begin(), axes.end(), [&](int64_t a) { return axis_of(a, in.shape.size()) == d; });
    if ((axes.empty() && in.shape[d] == 1) || named) {
      if (in.shape[d] != 1) throw FoldError{"axis " + std::to_string(d) + " is not 1"};
      continue;
    }
    kept.push_back(in.shape[d]);
  }
  in.shape = kept;
  return in;
}

Folded fold_gather(const Folded& data, const Folded& idx, int64_t axis_attr) {
  if (!idx.integer) throw FoldError{"indices are not integers"};
  const size_t axis = axis_of(axis_attr, data.shape.size());
  Folded out;
  out.integer = data.integer;
  out.shape.assign(data.shape.begin(), data.shape.begin() + std::ptrdiff_t(axis));
  out.shape.insert(out.shape.end(), idx.shape.begin(), idx.shape.end());
  out.shape.insert(out.shape.end(), data.shape.begin() + std::ptrdiff_t(axis) + 1, data.shape.end());
  bounded(out.shape);
  const int64_t outer = count({data.shape.begin(), data.shape.begin() + std::ptrdiff_t(axis)}), dim = data.shape[axis];
  const int64_t inner = count({data.shape.begin() + std::ptrdiff_t(axis) + 1, data.shape.end()});
  out.values.reserve(size_t(count(out.shape)));
  for (int64_t o = 0; o < outer; ++o) {
    for (const double iv : idx.values) {
      const int64_t given = to_int64(iv);
      const int64_t i = given < 0 ? given + dim : given;
      if (i < 0 || i >= dim) throw FoldError{"index " + std::to_string(given) + " out of range"};
      const auto at = data.values.begin() + std::ptrdiff_t((o * dim + i) * inner);
      out.values.insert(out.values.end(), at, at + std::ptrdiff_t(inner));
    }
  }
  return out;
}

}  // namespace

bool Importer::fold_constant(const onnx::NodeProto& n) {
  static const std::set<std::string> kFoldable{"ConstantOfShape", "Concat",  "Reshape", "Slice", "Transpose", "Cast",
                                               "Unsqueeze",       "Squeeze", "Gather",  "Shape"};
  const std::string& op = n.op_type();
  if (!kFoldable.count(op) || n.output_size() != 1) return false;
  const bool shape_op = op == "Shape";
  if (shape_op ? n.input_size() != 1 || !g_.shapes.count(resolve(n.input(0))) : n.input_size() < 1) return false;
  for (int i = shape_op ? 1 : 0; i < n.input_size(); ++i) {
    if (!n.input(i).empty() && !g_.constants.count(n.input(i))) return false;
  }
  auto input = [&](int i) {
    if (i >= n.input_size() || n.input(i).empty()) {
      fail(n, "needs input " + std::to_string(i + 1) + ", has " + std::to_string(n.input_size()));
    }
    Folded f;
    const FloatTensor& c = g_.constants.at(n.input(i));
    f.shape = c.shape;
    const auto it = ints_.find(n.input(i));
    f.integer = it != ints_.end() && int64_t(it->second.size()) == count(c.shape);
    if (f.integer) {
      f.values.assign(it->second.begin(), it->second.end());
    } else {
      f.values.assign(c.values.begin(), c.values.end());
    }
    return f;
  };
  auto ints = [&](int i) { return as_ints(input(i), n.input(i)); };
  auto optional_ints = [&](int i) {
    return i < n.input_size() && !n.input(i).empty() ? ints(i) : std::vector<int64_t>{};
  };
  Folded out;
  try {
    if (op == "Shape") {
      const auto& s = g_.shapes.at(resolve(n.input(0)));
      out.shape = {int64_t(s.size())};
      out.values.assign(s.begin(), s.end());
    } else if (op == "ConstantOfShape") {
      const auto [value, integer] = constant_of_shape_value(n);
      out = fold_constant_of_shape(ints(0), value, integer);
    } else if (op == "Concat") {
      std::vector<Folded> parts;
      parts.reserve(size_t(n.input_size()));
      for (int i = 0; i < n.input_size(); ++i) parts.push_back(input(i));
      out = fold_concat(parts, attr_int(n, "axis", 0));
    } else if (op == "Reshape") {
      out = fold_reshape(input(0), ints(1), attr_int(n, "allowzero", 0) != 0);
    } else if (op == "Transpose") {
      out = fold_transpose(input(0), attr_ints(n, "perm"));
    } else if (op == "Slice") {
      if (opset_ < 10) return false;  // (attributes then: not an exporter's shape arithmetic)
      out = fold_slice(input(0), ints(1), ints(2), optional_ints(3), optional_ints(4));
    } else if (op == "Cast") {
      out = fold_cast(input(0), attr_int(n, "to", 0));
    } else if (op == "Unsqueeze" || op == "Squeeze") {
      const std::vector<int64_t> axes = opset_ >= 13 ? optional_ints(1) : attr_ints(n, "axes");
      out = op == "Unsqueeze" ? fold_unsqueeze(input(0), axes) : fold_squeeze(input(0), axes);
    } else {
      out = fold_gather(input(0), input(1), attr_int(n, "axis", 0));
    }
  } catch (const FoldError& e) {
    fail(n, e.what);
  }
  const std::string& name = n.output(0);
  if (g_.shapes.count(name) || g_.constants.count(name)) fail(n, "output " + name + " is defined twice");
  g_.constants[name] = FloatTensor{out.shape, std::vector<float>(out.values.begin(), out.values.end())};
  if (out.integer) ints_[name].assign(out.values.begin(), out.values.end());
  return true;
}

// ConstantOfShape's `value` attribute (one element; a float 0 without it) and whether it is an integer.
std::pair<double, bool> Importer::constant_of_shape_value(const onnx::NodeProto& n) {
  const auto* a = attr(n, "value");
  if (!a) return {0.0, false};
  onnx::TensorProto t = a->t();
  t.set_name(n.output(0) + "#value");
  constant_from(t, "node " + node_name(n) + " (ConstantOfShape) value");
  const FloatTensor& c = g_.constants.at(t.name());
  if (c.values.size() != 1) fail(n, "attribute value must hold one element");
  double v = double(c.values[0]);
  const bool integer = integer_type(t.data_type());
  if (integer && ints_.count(t.name())) v = double(ints_.at(t.name()).at(0));
  g_.constants.erase(t.name()), ints_.erase(t.name());
  return {v, integer};
}

}  // namespace vta::network::onnx_import_detail
