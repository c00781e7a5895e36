#include "vta/network/reference.h"

#include <algorithm>
#include <limits>

namespace vta::network {
namespace {

const std::vector<int32_t>& value_of(const Graph& g, const Op& op, const Values& values, const std::string& name) {
  const auto it = values.find(name);
  if (it == values.end()) throw GraphError(g.name() + ": " + op.name + ": no value for its input " + name);
  return it->second;
}

}  // namespace

std::vector<int32_t> conv2d(std::span<const int32_t> x, std::span<const int8_t> w, int64_t n, int64_t c, int64_t h,
                            int64_t width, int64_t o, int64_t k, int64_t stride, int64_t pad) {
  const int64_t oh = (h + 2 * pad - k) / stride + 1, ow = (width + 2 * pad - k) / stride + 1;
  std::vector<int32_t> out(size_t(n * o * oh * ow));
  std::vector<uint32_t> plane(size_t(oh * ow));  // unsigned: wrapping accumulation, as VTA's int32
  for (int64_t a = 0; a < n; ++a) {
    for (int64_t f = 0; f < o; ++f) {
      std::fill(plane.begin(), plane.end(), 0u);
      for (int64_t ch = 0; ch < c; ++ch) {
        const int32_t* xin = x.data() + (a * c + ch) * h * width;
        for (int64_t dy = 0; dy < k; ++dy) {
          for (int64_t dx = 0; dx < k; ++dx) {
            const uint32_t wv = uint32_t(int32_t(w[size_t(((f * c + ch) * k + dy) * k + dx)]));
            if (wv == 0) continue;
            // output columns whose input column z * stride + dx - pad lies inside the row
            const int64_t z0 = std::max<int64_t>(0, (pad - dx + stride - 1) / stride);
            const int64_t last = width - 1 + pad - dx;  // the largest z * stride that stays in the row
            const int64_t z1 = last < 0 ? 0 : std::min<int64_t>(ow, last / stride + 1);
            for (int64_t y = 0; y < oh; ++y) {
              const int64_t iy = y * stride + dy - pad;
              if (iy < 0 || iy >= h) continue;
              const int32_t* row = xin + iy * width;
              const int64_t shift = dx - pad;
              uint32_t* orow = plane.data() + y * ow;
              for (int64_t z = z0; z < z1; ++z) orow[z] += wv * uint32_t(row[z * stride + shift]);
            }
          }
        }
      }
      std::copy(plane.begin(), plane.end(), out.begin() + (a * o + f) * oh * ow);
    }
  }
  return out;
}

namespace {

// A convolution in op.groups groups: each group's channels convolved with its own filters.
std::vector<int32_t> grouped_conv2d(const Graph& g, const Op& op, const std::vector<int32_t>& x) {
  const TensorDesc& in = g.tensor(op.inputs[0]);
  const TensorDesc& w = g.tensor(op.weight);
  const TensorDesc& out = g.tensor(op.output);
  if (op.groups == 1) {
    return conv2d(x, g.weight(op.weight), in.shape[0], in.shape[1], in.shape[2], in.shape[3], w.shape[0], op.kernel,
                  op.stride, op.pad);
  }
  std::vector<int32_t> r(size_t(out.elements()));
  const int64_t n = in.shape[0], c = in.shape[1], hw = in.shape[2] * in.shape[3], groups = op.groups;
  const int64_t cg = c / groups, og = w.shape[0] / groups, ohw = out.shape[2] * out.shape[3];
  const std::vector<int8_t>& wv = g.weight(op.weight);
  const int64_t wg = og * cg * op.kernel * op.kernel;
  for (int64_t a = 0; a < n; ++a) {
    for (int64_t gi = 0; gi < groups; ++gi) {
      const auto part = conv2d(std::span(x).subspan(size_t((a * c + gi * cg) * hw), size_t(cg * hw)),
                               std::span(wv).subspan(size_t(gi * wg), size_t(wg)), 1, cg, in.shape[2], in.shape[3], og,
                               op.kernel, op.stride, op.pad);
      std::copy(part.begin(), part.end(), r.begin() + (a * w.shape[0] + gi * og) * ohw);
    }
  }
  return r;
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

// The operators that only move int8 values: concat, upsample, dilate.
std::vector<int32_t> layout_op(const Graph& g, const Op& op, const Values& values, const std::vector<int32_t>& x) {
  const TensorDesc& out = g.tensor(op.output);
  std::vector<int32_t> r(size_t(out.elements()));
  const TensorDesc& in = g.tensor(op.inputs[0]);
  if (op.kind == OpKind::kConcat) {
    const int64_t n = out.shape[0], per_out = out.elements() / std::max<int64_t>(n, 1);
    int64_t at = 0;  // the offset of this input's channels within an image of the output
    for (const std::string& name : op.inputs) {
      const std::vector<int32_t>& v = value_of(g, op, values, name);
      const int64_t per_in = int64_t(v.size()) / std::max<int64_t>(n, 1);
      for (int64_t a = 0; a < n; ++a) {
        std::copy(v.begin() + a * per_in, v.begin() + (a + 1) * per_in, r.begin() + a * per_out + at);
      }
      at += per_in;
    }
    return r;
  }
  const int64_t nc = in.shape[0] * in.shape[1], h = in.shape[2], w = in.shape[3];
  const int64_t oh = out.shape[2], ow = out.shape[3];
  for (int64_t p = 0; p < nc; ++p) {
    if (op.kind == OpKind::kUpsample) {  // each value repeated kernel times down, stride times across
      for (int64_t y = 0; y < oh; ++y) {
        for (int64_t z = 0; z < ow; ++z)
          r[size_t((p * oh + y) * ow + z)] = x[size_t((p * h + y / op.kernel) * w + z / op.stride)];
      }
    } else {  // kDilate: stride - 1 zeros between values
      for (int64_t y = 0; y < h; ++y) {
        for (int64_t z = 0; z < w; ++z)
          r[size_t((p * oh + y * op.stride) * ow + z * op.stride)] = x[size_t((p * h + y) * w + z)];
      }
    }
  }
  return r;
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
      for (size_t i = 0; i < r.size(); ++i) r[i] = x[i] >> op.shift;
      return r;
    case OpKind::kAdd: {
      const std::vector<int32_t>& y = value_of(g, op, values, op.inputs.at(1));
      for (size_t i = 0; i < r.size(); ++i) r[i] = int32_t(uint32_t(x[i]) + uint32_t(y[i]));
      return r;
    }
    case OpKind::kRelu:
      for (size_t i = 0; i < r.size(); ++i) r[i] = std::max(x[i], 0);
      return r;
    case OpKind::kClip:
      for (size_t i = 0; i < r.size(); ++i) r[i] = std::clamp(x[i], op.lo, op.hi);
      return r;
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
    case OpKind::kBiasAdd: {
      const TensorDesc& in = g.tensor(op.inputs[0]);
      const std::vector<int8_t>& b = g.weight(op.weight);
      const int64_t c = in.shape[1], inner = in.elements() / std::max<int64_t>(in.shape[0] * c, 1);
      for (size_t i = 0; i < r.size(); ++i) {
        const auto ch = size_t((int64_t(i) / inner) % c);
        r[i] = int32_t(uint32_t(x[i]) + (uint32_t(int32_t(b[ch])) << op.shift));
      }
      return r;
    }
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
        if (last_use[t] == i && t != g.input_name() && t != g.output_name()) v.erase(t);
      }
    }
  }
  return v;
}

}  // namespace vta::network
