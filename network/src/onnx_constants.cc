// Constant folding: the nodes an exporter leaves around shape arithmetic (torch.onnx writes a
// ZeroPad2d's pads as ConstantOfShape, Concat, Reshape, Slice, Transpose and Cast of constants, and a
// flatten's shape as Shape, Gather, Unsqueeze and Concat) are evaluated while the model is read, so
// that the operator they feed sees a constant. A node folds when every input it reads is a constant
// (Shape: when its input's shape is known, which every activation's is); otherwise its rule applies.

#include <algorithm>
#include <cmath>
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

int64_t count(const std::vector<int64_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
}

// Row-major strides of `shape`.
std::vector<int64_t> strides_of(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) s[d - 1] = s[d] * shape[d];
  return s;
}

// Calls f(index, flat) for every element of `shape`, in row-major order.
template <class F>
void each_index(const std::vector<int64_t>& shape, F&& f) {
  const int64_t n = count(shape);
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    f(idx, flat);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

bool integer_type(int64_t onnx_type) {
  return onnx_type == onnx::TensorProto_DataType_INT64 || onnx_type == onnx::TensorProto_DataType_INT32 ||
         onnx_type == onnx::TensorProto_DataType_INT8 || onnx_type == onnx::TensorProto_DataType_UINT8 ||
         onnx_type == onnx::TensorProto_DataType_BOOL;
}

}  // namespace

bool Importer::fold_constant(const onnx::NodeProto& n) {
  static const std::set<std::string> kFoldable{"ConstantOfShape", "Concat",  "Reshape", "Slice", "Transpose", "Cast",
                                               "Unsqueeze",       "Squeeze", "Gather",  "Shape"};
  if (!kFoldable.count(n.op_type()) || n.output_size() != 1) return false;
  const bool shape_op = n.op_type() == "Shape";
  if (shape_op ? n.input_size() != 1 || !g_.shapes.count(resolve(n.input(0))) : n.input_size() < 1) return false;
  for (int i = shape_op ? 1 : 0; i < n.input_size(); ++i) {
    if (!n.input(i).empty() && !g_.constants.count(n.input(i))) return false;
  }
  const std::string where = "node " + node_name(n) + " (" + n.op_type() + ", folded)";
  auto input = [&](int i) {
    Folded f;
    const FloatTensor& c = g_.constants.at(n.input(i));
    f.shape = c.shape;
    const auto it = ints_.find(n.input(i));
    f.integer = it != ints_.end();
    if (f.integer && int64_t(it->second.size()) == count(c.shape)) {
      f.values.assign(it->second.begin(), it->second.end());
    } else {
      f.values.assign(c.values.begin(), c.values.end());
      f.integer = false;
    }
    return f;
  };
  auto ints = [&](int i) {
    const Folded f = input(i);
    if (!f.integer || f.shape.size() > 1) fail(n, "input " + n.input(i) + " is not a list of integers");
    return std::vector<int64_t>(f.values.begin(), f.values.end());
  };
  auto axis_of = [&](int64_t axis, size_t rank) {
    if (axis < 0) axis += int64_t(rank);
    if (axis < 0 || axis >= int64_t(std::max<size_t>(rank, 1)))
      fail(n, "axis " + std::to_string(axis) + " out of range");
    return size_t(axis);
  };
  auto bounded = [&](const std::vector<int64_t>& shape) {
    int64_t total = 1;
    for (const int64_t d : shape) {
      if (d < 0 || (d > 0 && total > kMaxOnnxElements / d))
        fail(n, "shape " + shape_text(shape) + " is negative or too large");
      total *= d;
    }
  };
  Folded out;
  const std::string& op = n.op_type();
  if (op == "Shape") {
    const auto& s = g_.shapes.at(resolve(n.input(0)));
    out.shape = {int64_t(s.size())};
    out.values.assign(s.begin(), s.end());
  } else if (op == "ConstantOfShape") {
    out.shape = ints(0);
    out.integer = false;
    double v = 0;
    if (const auto* a = attr(n, "value")) {
      onnx::TensorProto t = a->t();
      t.set_name(n.output(0) + "#value");
      constant_from(t, where + " value");
      const FloatTensor& c = g_.constants.at(t.name());
      if (c.values.size() != 1) fail(n, "attribute value must hold one element");
      v = c.values[0];
      out.integer = integer_type(t.data_type());
      if (out.integer) v = double(ints_.count(t.name()) ? ints_.at(t.name()).at(0) : int64_t(v));
      g_.constants.erase(t.name()), ints_.erase(t.name());
    }
    bounded(out.shape);
    out.values.assign(size_t(count(out.shape)), v);
  } else if (op == "Concat") {
    std::vector<Folded> parts;
    for (int i = 0; i < n.input_size(); ++i) parts.push_back(input(i));
    const size_t axis = axis_of(attr_int(n, "axis", 0), parts[0].shape.size());
    out.shape = parts[0].shape;
    out.shape[axis] = 0;
    for (const Folded& p : parts) {
      if (p.shape.size() != out.shape.size()) fail(n, "inputs of different ranks");
      out.shape[axis] += p.shape[axis];
      out.integer = out.integer && p.integer;
    }
    const int64_t outer = count({out.shape.begin(), out.shape.begin() + std::ptrdiff_t(axis)});
    for (int64_t o = 0; o < outer; ++o) {
      for (const Folded& p : parts) {
        const int64_t block = count({p.shape.begin() + std::ptrdiff_t(axis), p.shape.end()});
        out.values.insert(out.values.end(), p.values.begin() + std::ptrdiff_t(o * block),
                          p.values.begin() + std::ptrdiff_t((o + 1) * block));
      }
    }
  } else if (op == "Reshape") {
    out = input(0);
    std::vector<int64_t> s = ints(1);
    int64_t known = 1, infer = -1;
    for (size_t d = 0; d < s.size(); ++d) {
      if (s[d] == 0 && attr_int(n, "allowzero", 0) == 0) s[d] = d < out.shape.size() ? out.shape[d] : 1;
      if (s[d] == -1) {
        if (infer >= 0) fail(n, "two -1 in its shape");
        infer = int64_t(d);
      } else if (s[d] < 0) {
        fail(n, "shape " + shape_text(s));
      } else {
        known *= s[d];
      }
    }
    const int64_t total = int64_t(out.values.size());
    if (infer >= 0) s[size_t(infer)] = known > 0 ? total / known : 0;
    if (count(s) != total) fail(n, "shape " + shape_text(s) + " for " + std::to_string(total) + " values");
    out.shape = s;
  } else if (op == "Transpose") {
    const Folded in = input(0);
    std::vector<int64_t> perm = attr_ints(n, "perm");
    if (perm.empty()) {
      for (size_t d = in.shape.size(); d-- > 0;) perm.push_back(int64_t(d));
    }
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    for (size_t d = 0; d < sorted.size(); ++d) {
      if (sorted.size() != in.shape.size() || sorted[d] != int64_t(d)) fail(n, "attribute perm " + shape_text(perm));
    }
    out.integer = in.integer;
    for (const int64_t p : perm) out.shape.push_back(in.shape[size_t(p)]);
    const auto in_strides = strides_of(in.shape);
    out.values.resize(in.values.size());
    each_index(out.shape, [&](const std::vector<int64_t>& idx, int64_t flat) {
      int64_t src = 0;
      for (size_t d = 0; d < perm.size(); ++d) src += idx[d] * in_strides[size_t(perm[d])];
      out.values[size_t(flat)] = in.values[size_t(src)];
    });
  } else if (op == "Slice") {
    if (opset_ < 10) return false;  // (attributes then: not an exporter's shape arithmetic)
    const Folded in = input(0);
    const std::vector<int64_t> starts = ints(1), ends = ints(2);
    std::vector<int64_t> axes, steps;
    if (n.input_size() > 3 && !n.input(3).empty()) axes = ints(3);
    if (n.input_size() > 4 && !n.input(4).empty()) steps = ints(4);
    if (axes.empty()) {
      for (size_t d = 0; d < starts.size(); ++d) axes.push_back(int64_t(d));
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
      fail(n, "starts, ends, axes and steps of different lengths");
    }
    std::vector<int64_t> first(in.shape.size(), 0), step(in.shape.size(), 1);
    out.shape = in.shape;
    for (size_t i = 0; i < starts.size(); ++i) {
      const size_t a = axis_of(axes[i], in.shape.size());
      const int64_t dim = in.shape[a], st = steps[i];
      if (st == 0) fail(n, "a step of 0");
      auto clampi = [&](int64_t v, int64_t lo, int64_t hi) {
        if (v < 0) v += dim;
        return std::clamp(v, lo, hi);
      };
      const int64_t b = st > 0 ? clampi(starts[i], 0, dim) : clampi(starts[i], -1, dim - 1);
      const int64_t e = st > 0 ? clampi(ends[i], 0, dim) : clampi(ends[i], -1, dim - 1);
      first[a] = b, step[a] = st;
      out.shape[a] =
          st > 0 ? std::max<int64_t>(0, (e - b + st - 1) / st) : std::max<int64_t>(0, (b - e - st - 1) / -st);
    }
    out.integer = in.integer;
    const auto in_strides = strides_of(in.shape);
    out.values.resize(size_t(count(out.shape)));
    each_index(out.shape, [&](const std::vector<int64_t>& idx, int64_t flat) {
      int64_t src = 0;
      for (size_t d = 0; d < idx.size(); ++d) src += (first[d] + idx[d] * step[d]) * in_strides[d];
      out.values[size_t(flat)] = in.values[size_t(src)];
    });
  } else if (op == "Cast") {
    out = input(0);
    const int64_t to = attr_int(n, "to", 0);
    out.integer = integer_type(to);
    if (out.integer) {
      for (double& v : out.values) v = std::trunc(v);
    } else if (to != onnx::TensorProto_DataType_FLOAT && to != onnx::TensorProto_DataType_DOUBLE) {
      fail(n, "attribute to " + std::to_string(to) + " (integer and floating-point types are read)");
    }
  } else if (op == "Unsqueeze" || op == "Squeeze") {
    out = input(0);
    std::vector<int64_t> axes = opset_ >= 13
                                    ? (n.input_size() > 1 && !n.input(1).empty() ? ints(1) : std::vector<int64_t>{})
                                    : attr_ints(n, "axes");
    if (op == "Unsqueeze") {
      const size_t rank = out.shape.size() + axes.size();
      for (int64_t& a : axes) a = int64_t(axis_of(a, rank));
      std::sort(axes.begin(), axes.end());
      for (const int64_t a : axes) out.shape.insert(out.shape.begin() + std::ptrdiff_t(a), 1);
    } else {
      std::vector<int64_t> kept;
      for (size_t d = 0; d < out.shape.size(); ++d) {
        const bool named =
            std::any_of(axes.begin(), axes.end(), [&](int64_t a) { return axis_of(a, out.shape.size()) == d; });
        if ((axes.empty() && out.shape[d] == 1) || named) {
          if (out.shape[d] != 1) fail(n, "axis " + std::to_string(d) + " is not 1");
          continue;
        }
        kept.push_back(out.shape[d]);
      }
      out.shape = kept;
    }
  } else {  // Gather
    const Folded data = input(0), idx = input(1);
    if (!idx.integer) fail(n, "indices are not integers");
    const size_t axis = axis_of(attr_int(n, "axis", 0), data.shape.size());
    out.integer = data.integer;
    out.shape.assign(data.shape.begin(), data.shape.begin() + std::ptrdiff_t(axis));
    out.shape.insert(out.shape.end(), idx.shape.begin(), idx.shape.end());
    out.shape.insert(out.shape.end(), data.shape.begin() + std::ptrdiff_t(axis) + 1, data.shape.end());
    bounded(out.shape);
    const int64_t outer = count({data.shape.begin(), data.shape.begin() + std::ptrdiff_t(axis)}),
                  dim = data.shape[axis];
    const int64_t inner = count({data.shape.begin() + std::ptrdiff_t(axis) + 1, data.shape.end()});
    for (int64_t o = 0; o < outer; ++o) {
      for (const double iv : idx.values) {
        int64_t i = int64_t(iv);
        if (i < 0) i += dim;
        if (i < 0 || i >= dim) fail(n, "index " + std::to_string(int64_t(iv)) + " out of range");
        const auto at = data.values.begin() + std::ptrdiff_t((o * dim + i) * inner);
        out.values.insert(out.values.end(), at, at + std::ptrdiff_t(inner));
      }
    }
  }
  const std::string& name = n.output(0);
  if (g_.shapes.count(name) || g_.constants.count(name)) fail(n, "output " + name + " is defined twice");
  FloatTensor t{out.shape, std::vector<float>(out.values.begin(), out.values.end())};
  g_.constants[name] = std::move(t);
  if (out.integer) ints_[name].assign(out.values.begin(), out.values.end());
  return true;
}

}  // namespace vta::network::onnx_import_detail
