#include "vta/network/reference.h"

#include <cblas.h>

#include <algorithm>
#include <limits>
#include <string>

#include "conv_kernel.h"
#include "layout_kernel.h"

namespace vta::network {
namespace {

const std::vector<int32_t>& value_of(const Graph& g, const Op& op, const Values& values, const std::string& name) {
  const auto it = values.find(name);
  if (it == values.end()) throw GraphError(g.name() + ": " + op.name + ": no value for its input " + name);
  return it->second;
}

}  // namespace

namespace {

// An int8 convolution in groups through conv_kernel.h, the products by OpenBLAS's dgemm: every product
// of two int8 values and every sum of them is an integer that double holds exactly (while the windows
// hold fewer than 2^39 values), whatever order the sums take, so the result is the exact sum, taken
// modulo 2^32 as VTA's int32 accumulator wraps.
std::vector<int32_t> conv_exact(std::span<const int32_t> x, std::span<const int8_t> w, const detail::ConvShape& s) {
  int64_t widest = 0;
  for (const int32_t v : x) widest = std::max<int64_t>(widest, v < 0 ? -int64_t(v) : int64_t(v));
  const int64_t window = s.c / s.groups * s.k * s.k;
  const auto rows = double(window);
  if (rows * double(widest) * 128.0 >= 9007199254740992.0) {  // 2^53: a sum double could round
    throw GraphError("conv2d: input values up to " + std::to_string(widest) + " over windows of " +
                     std::to_string(window) + " are beyond the exact reference (int8 inputs are expected)");
  }
  const std::vector<double> xd(x.begin(), x.end()), wd(w.begin(), w.end());
  std::vector<double> yd(size_t(s.n * s.o * s.oh * s.ow), 0.0);
  detail::conv_by_gemm(
      xd.data(), s, yd.data(),
      [&](int64_t group, int64_t og, int64_t width, int64_t k, const double* b, int64_t ldb, double* c, int64_t ldc) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(og), int(width), int(k), 1.0,
                    wd.data() + group * og * k, int(k), b, int(ldb), 1.0, c, int(ldc));
      });
  std::vector<int32_t> out(yd.size());
  for (size_t i = 0; i < yd.size(); ++i) out[i] = int32_t(uint32_t(uint64_t(int64_t(yd[i]))));
  return out;
}

}  // namespace

std::vector<int32_t> conv2d(std::span<const int32_t> x, std::span<const int8_t> w, int64_t n, int64_t c, int64_t h,
                            int64_t width, int64_t o, int64_t k, int64_t stride, int64_t pad) {
  const int64_t oh = (h + 2 * pad - k) / stride + 1, ow = (width + 2 * pad - k) / stride + 1;
  return conv_exact(x, w, {n, c, h, width, o, oh, ow, k, stride, pad, 1});
}

namespace {

// A convolution in op.groups groups: each group's channels convolved with its own filters.
std::vector<int32_t> grouped_conv2d(const Graph& g, const Op& op, const std::vector<int32_t>& x) {
  const TensorDesc& in = g.tensor(op.inputs[0]);
  const TensorDesc& w = g.tensor(op.weight);
  const TensorDesc& out = g.tensor(op.output);
  return conv_exact(x, g.weight(op.weight),
                    {in.shape[0], in.shape[1], in.shape[2], in.shape[3], w.shape[0], out.shape[2], out.shape[3],
                     op.kernel, op.stride, op.pad, op.groups});
}

// Max (padding never wins) or sum (padding adds nothing) over each kernel x kernel window.
template <class Combine>
std::vector<int32_t> window_op(const Graph& g, const Op& op, const std::vector<int32_t>& x, int32_t init,
                               Combine combine) {
  const TensorDesc& in = g.tensor(op.inputs[0]);
  const TensorDesc& out = g.tensor(op.output);
  std::vector<int32_t> r(size_t(out.elements()));
  const int64_t nc = in.shape[0] * in.shape[1], h = in.shape[2], w = in.shape[3];
  const int64_t oh = out.shape[2], ow = out.shape[3];
  for (int64_t p = 0; p < nc; ++p) {
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t z = 0; z < ow; ++z) {
        int32_t acc = init;
        for (int64_t dy = 0; dy < op.kernel; ++dy) {
          for (int64_t dx = 0; dx < op.kernel; ++dx) {
            const int64_t iy = y * op.stride + dy - op.pad, ix = z * op.stride + dx - op.pad;
            if (iy >= 0 && iy < h && ix >= 0 && ix < w) acc = combine(acc, x[size_t((p * h + iy) * w + ix)]);
          }
        }
        r[size_t((p * oh + y) * ow + z)] = acc;
      }
    }
  }
  return r;
}

// The operators that only move int8 values (layout_kernel.h).
std::vector<int32_t> layout_op(const Graph& g, const Op& op, const Values& values, const std::vector<int32_t>& x) {
  const TensorDesc& out = g.tensor(op.output);
  if (op.kind == OpKind::kConcat) {
    std::vector<const std::vector<int32_t>*> inputs;
    for (const std::string& name : op.inputs) inputs.push_back(&value_of(g, op, values, name));
    return detail::concat_channels(inputs, out.shape[0]);
  }
  const TensorDesc& in = g.tensor(op.inputs[0]);
  const int64_t planes = in.shape[0] * in.shape[1];
  if (op.kind == OpKind::kUpsample)
    return detail::upsample(x.data(), planes, in.shape[2], in.shape[3], op.kernel, op.stride);
  return detail::dilate(x.data(), planes, in.shape[2], in.shape[3], op.stride, out.shape[2], out.shape[3]);
}

// `f(x, constant[c])` for each element of channel c (dimension 1), wrapping in 32 bits: bias_add,
// scale_channels.
template <typename F>
std::vector<int32_t> per_channel(const Graph& g, const Op& op, const std::vector<int32_t>& x, F f) {
  const TensorDesc& in = g.tensor(op.inputs[0]);
  const std::vector<int8_t>& k = g.weight(op.weight);
  const int64_t n = in.shape[0], c = in.shape[1], inner = in.elements() / std::max<int64_t>(n * c, 1);
  std::vector<int32_t> r(x.size());
  size_t i = 0;
  for (int64_t a = 0; a < n; ++a) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t e = 0; e < inner; ++e, ++i) r[i] = int32_t(f(uint32_t(x[i]), k[size_t(ch)]));
    }
  }
  return r;
}

// The one-input elementwise operators on one value.
int32_t elementwise(const Op& op, int32_t v) {
  switch (op.kind) {
    case OpKind::kShr: return v >> op.shift;
    case OpKind::kShrEven: {  // as VTA's ALU computes it (graph.h), in 32 bits
      const uint32_t x = uint32_t(v) + ((uint32_t{1} << (op.shift - 1)) - 1);
      return int32_t(x + ((x >> op.shift) & 1)) >> op.shift;
    }
    case OpKind::kRelu: return std::max(v, 0);
    case OpKind::kClip: return std::clamp(v, op.lo, op.hi);
    case OpKind::kLeakyRelu: {  // (VTA's MUL and ADD keep the low 32 bits; SHR is arithmetic)
      const uint32_t half = uint32_t{1} << (op.shift - 1);
      return std::max(v, int32_t(uint32_t(v) * uint32_t(op.multiplier) + half) >> op.shift);
    }
    default: return v;
  }
}

}  // namespace

std::vector<int32_t> reference_op(const Graph& g, const Op& op, const Values& values) {
  const TensorDesc& out = g.tensor(op.output);
  const std::vector<int32_t>& x = value_of(g, op, values, op.inputs.at(0));
  std::vector<int32_t> r(size_t(out.elements()));
  switch (op.kind) {
    case OpKind::kConv2d: return grouped_conv2d(g, op, x);
    case OpKind::kDense: {
      const TensorDesc& in = g.tensor(op.inputs[0]);
      const auto& w = g.weight(op.weight);
      const int64_t n = in.shape[0], k = in.shape[1], m = out.shape[1];
      for (int64_t a = 0; a < n; ++a) {
        for (int64_t j = 0; j < m; ++j) {
          uint32_t sum = 0;
          for (int64_t i = 0; i < k; ++i)
            sum += uint32_t(x[size_t(a * k + i)]) * uint32_t(int32_t(w[size_t(j * k + i)]));
          r[size_t(a * m + j)] = int32_t(sum);
        }
      }
      return r;
    }
    case OpKind::kShr:
    case OpKind::kShrEven:
    case OpKind::kRelu:
    case OpKind::kClip:
    case OpKind::kLeakyRelu:
      std::transform(x.begin(), x.end(), r.begin(), [&](int32_t v) { return elementwise(op, v); });
      return r;
    case OpKind::kAdd: {
      const std::vector<int32_t>& y = value_of(g, op, values, op.inputs.at(1));
      for (size_t i = 0; i < r.size(); ++i) r[i] = int32_t(uint32_t(x[i]) + uint32_t(y[i]));
      return r;
    }
    case OpKind::kCast:
      for (size_t i = 0; i < r.size(); ++i) {
        if (x[i] < -128 || x[i] > 127) {
          throw GraphError(g.name() + ": " + op.name + ": value " + std::to_string(x[i]) + " at element " +
                           std::to_string(i) + " of " + op.inputs[0] + " is not an int8 (clip it first)");
        }
        r[i] = x[i];
      }
      return r;
    case OpKind::kMaxPool:
      return window_op(g, op, x, std::numeric_limits<int32_t>::min(),
                       [](int32_t a, int32_t b) { return std::max(a, b); });
    case OpKind::kAvgPool: return window_op(g, op, x, 0, [](int32_t a, int32_t b) { return a + b; });
    case OpKind::kGlobalAvgPool: {
      const TensorDesc& in = g.tensor(op.inputs[0]);
      const int64_t nc = in.shape[0] * in.shape[1], hw = in.shape[2] * in.shape[3];
      for (int64_t p = 0; p < nc; ++p) {
        int32_t sum = 0;
        for (int64_t i = 0; i < hw; ++i) sum += x[size_t(p * hw + i)];
        r[size_t(p)] = sum;
      }
      return r;
    }
    case OpKind::kBiasAdd:  // x + (bias[c] << shift)
      return per_channel(g, op, x, [&](uint32_t v, int8_t b) { return v + (uint32_t(int32_t(b)) << op.shift); });
    case OpKind::kScaleChannels:  // x * factor[c]
      return per_channel(g, op, x, [](uint32_t v, int8_t f) { return v * uint32_t(int32_t(f)); });
    case OpKind::kFlatten: return x;
    case OpKind::kConcat:
    case OpKind::kUpsample:
    case OpKind::kDilate: return layout_op(g, op, values, x);
  }
  throw GraphError(g.name() + ": " + op.name + ": unknown operator");
}

std::vector<int32_t> checked_input(const Graph& g, std::span<const int8_t> input) {
  const TensorDesc& in = g.tensor(g.input_name());
  if (int64_t(input.size()) != in.elements()) {
    throw GraphError(g.name() + ": the input " + in.name + " needs " + std::to_string(in.elements()) + " values, not " +
                     std::to_string(input.size()));
  }
  return {input.begin(), input.end()};
}

Values run_reference(const Graph& g, std::span<const int8_t> input, bool keep_all) {
  Values v;
  v[g.input_name()] = checked_input(g, input);
  // values no longer read are dropped unless all are kept
  std::map<std::string, size_t> last_use;
  for (size_t i = 0; i < g.ops().size(); ++i) {
    for (const auto& t : g.ops()[i].inputs) last_use[t] = i;
  }
  for (size_t i = 0; i < g.ops().size(); ++i) {
    const Op& op = g.ops()[i];
    v[op.output] = reference_op(g, op, v);
    if (!keep_all) {
      for (const auto& t : op.inputs) {
        if (last_use[t] == i && t != g.input_name() && !g.is_output(t)) v.erase(t);
      }
    }
  }
  return v;
}

}  // namespace vta::network
