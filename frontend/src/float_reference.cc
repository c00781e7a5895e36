// The float reference of an imported model: what the model computes before quantization, used to
// calibrate the quantization and to measure the float accuracy beside the int8 one.

#include "vta/network/float_reference.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "conv_kernel.h"
#include "join.h"
#include "layout_kernel.h"

namespace vta::network {
namespace {

const std::vector<float>& read(const FloatGraph& g, const FloatOp& op, const FloatValues& v, const std::string& t) {
  const auto it = v.find(t);
  if (it == v.end()) throw ImportError(join({g.name, ": ", op.name, ": no value for its input ", t}));
  return it->second;
}

// A convolution as matrix products: conv_kernel.h's windows, OpenBLAS's sgemm.
std::vector<float> conv(const FloatGraph& g, const FloatOp& op, const std::vector<float>& x) {
  const auto& in = g.shape(op.inputs[0]);
  const auto& out = g.shape(op.output);
  const FloatTensor& w = g.constants.at(op.weight);
  const detail::ConvShape s{in[0],  in[1],     in[2],     in[3],  out[1],   out[2],
                            out[3], op.kernel, op.stride, op.pad, op.groups};
  const int64_t cols = s.oh * s.ow;
  std::vector<float> y(size_t(s.n * s.o * cols));
  for (int64_t f = 0; f < s.o; ++f) {  // each output plane starts at its bias
    const float b = op.bias.empty() ? 0.f : g.constants.at(op.bias).values[size_t(f)];
    for (int64_t a = 0; a < s.n; ++a) std::fill_n(y.begin() + (a * s.o + f) * cols, cols, b);
  }
  detail::conv_by_gemm(
      x.data(), s, y.data(),
      [&](int64_t group, int64_t og, int64_t width, int64_t rows, const float* b, int64_t ldb, float* c, int64_t ldc) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(og), int(width), int(rows), 1.f,
                    w.values.data() + group * og * rows, int(rows), b, int(ldb), 1.f, c, int(ldc));
      });
  return y;
}

std::vector<float> dense(const FloatGraph& g, const FloatOp& op, const std::vector<float>& x) {
  const FloatTensor& w = g.constants.at(op.weight);
  const int64_t m = w.shape[0], k = w.shape[1], n = int64_t(x.size()) / k;
  std::vector<float> y(size_t(n * m));
  for (int64_t a = 0; a < n; ++a) {
    for (int64_t j = 0; j < m; ++j) {
      double s = op.bias.empty() ? 0.0 : double(g.constants.at(op.bias).values[size_t(j)]);
      for (int64_t q = 0; q < k; ++q) s += double(x[size_t(a * k + q)]) * double(w.values[size_t(j * k + q)]);
      y[size_t(a * m + j)] = float(s);
    }
  }
  return y;
}

// Max and average pools: each window of the input (padding never wins a max; an average divides by
// the window's size, or by the values inside the input without include_pad).
std::vector<float> window(const FloatGraph& g, const FloatOp& op, const std::vector<float>& x) {
  const auto& s = g.shape(op.inputs[0]);
  const auto& o = g.shape(op.output);
  const int64_t nc = s[0] * s[1], h = s[2], w = s[3], oh = o[2], ow = o[3];
  const bool max = op.kind == FloatOpKind::kMaxPool;
  std::vector<float> y(size_t(nc * oh * ow));
  for (int64_t p = 0; p < nc; ++p) {
    for (int64_t yy = 0; yy < oh; ++yy) {
      for (int64_t xx = 0; xx < ow; ++xx) {
        double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
        int64_t count = 0;
        for (int64_t dy = 0; dy < op.kernel; ++dy) {
          for (int64_t dx = 0; dx < op.kernel; ++dx) {
            const int64_t iy = yy * op.stride + dy - op.pad, ix = xx * op.stride + dx - op.pad;
            if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
            const double e = double(x[size_t((p * h + iy) * w + ix)]);
            acc = max ? std::max(acc, e) : acc + e;
            ++count;
          }
        }
        if (!max) acc /= double(op.include_pad ? op.kernel * op.kernel : count);
        y[size_t((p * oh + yy) * ow + xx)] = float(acc);
      }
    }
  }
  return y;
}

std::vector<float> global_avg_pool(const FloatGraph& g, const FloatOp& op, const std::vector<float>& x) {
  const auto& s = g.shape(op.inputs[0]);
  const int64_t nc = s[0] * s[1], hw = s[2] * s[3];
  std::vector<float> y(static_cast<size_t>(nc));
  for (int64_t p = 0; p < nc; ++p) {
    double sum = 0;
    for (int64_t e = 0; e < hw; ++e) sum += double(x[size_t(p * hw + e)]);
    y[size_t(p)] = float(sum / double(hw));
  }
  return y;
}

// The operators that only move values (layout_kernel.h).
std::vector<float> layout(const FloatGraph& g, const FloatOp& op, const FloatValues& v, const std::vector<float>& x) {
  const auto& o = g.shape(op.output);
  if (op.kind == FloatOpKind::kConcat) {
    std::vector<const std::vector<float>*> inputs;
    for (const auto& name : op.inputs) inputs.push_back(&read(g, op, v, name));
    return detail::concat_channels(inputs, o[0]);
  }
  const auto& s = g.shape(op.inputs[0]);
  if (op.kind == FloatOpKind::kUpsample)
    return detail::upsample(x.data(), s[0] * s[1], s[2], s[3], op.kernel, op.stride);
  return detail::dilate(x.data(), s[0] * s[1], s[2], s[3], op.stride, o[2], o[3]);
}

// One float operator on the values of its inputs (x: the first).
std::vector<float> float_op(const FloatGraph& g, const FloatOp& op, const FloatValues& v, const std::vector<float>& x) {
  std::vector<float> y = x;
  switch (op.kind) {
    case FloatOpKind::kConv: return conv(g, op, x);
    case FloatOpKind::kDense: return dense(g, op, x);
    case FloatOpKind::kMaxPool:
    case FloatOpKind::kAvgPool: return window(g, op, x);
    case FloatOpKind::kGlobalAvgPool: return global_avg_pool(g, op, x);
    case FloatOpKind::kConcat:
    case FloatOpKind::kUpsample:
    case FloatOpKind::kDilate: return layout(g, op, v, x);
    case FloatOpKind::kFlatten: return y;
    case FloatOpKind::kRelu:
      for (float& e : y) e = std::max(e, 0.f);
      return y;
    case FloatOpKind::kClip:
      for (float& e : y) e = std::clamp(e, op.lo, op.hi);
      return y;
    case FloatOpKind::kLeakyRelu:
      for (float& e : y) e = e < 0 ? e * op.alpha : e;
      return y;
    case FloatOpKind::kAdd: {
      const std::vector<float>& b = read(g, op, v, op.inputs[1]);
      for (size_t e = 0; e < y.size(); ++e) y[e] += b[e];
      return y;
    }
    case FloatOpKind::kScale:
      for (float& e : y) e *= op.scale;
      return y;
    case FloatOpKind::kFakeQuant:  // rounding to nearest even (the default mode), the type's clamp
      for (float& e : y) {
        const double q =
            std::clamp(std::nearbyint(double(e) / double(op.scale)) + op.zero, double(op.lo), double(op.hi));
        e = float((q - op.zero) * double(op.scale));
      }
      return y;
  }
  throw ImportError(g.name + ": " + op.name + ": unknown operator");
}

}  // namespace

int64_t shape_elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  return n;
}

std::vector<float> softmax(std::span<const float> logits, int64_t rows) {
  std::vector<float> p(logits.size());
  const int64_t m = rows > 0 ? int64_t(logits.size()) / rows : 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* l = logits.data() + r * m;
    const float top = *std::max_element(l, l + m);
    double sum = 0;
    for (int64_t i = 0; i < m; ++i) sum += std::exp(double(l[i] - top));
    for (int64_t i = 0; i < m; ++i) p[size_t(r * m + i)] = float(std::exp(double(l[i] - top)) / sum);
  }
  return p;
}

FloatValues run_float(const FloatGraph& g, std::span<const float> input, bool keep_all) {
  const int64_t n_in = g.elements(g.input);
  if (int64_t(input.size()) != n_in) {
    throw ImportError(join({g.name, ": the input ", g.input, " needs ", std::to_string(n_in), " values, not ",
                            std::to_string(input.size())}));
  }
  FloatValues v;
  v[g.input] = std::vector<float>(input.begin(), input.end());
  std::map<std::string, size_t> last_use;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    for (const auto& t : g.ops[i].inputs) last_use[t] = i;
  }
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const FloatOp& op = g.ops[i];
    const std::vector<float>& x = read(g, op, v, op.inputs[0]);
    std::vector<float> y = float_op(g, op, v, x);
    v[op.output] = std::move(y);
    if (!keep_all) {
      for (const auto& t : op.inputs) {
        if (last_use[t] == i && t != g.input && !g.is_output(t)) v.erase(t);
      }
    }
  }
  return v;
}

}  // namespace vta::network
