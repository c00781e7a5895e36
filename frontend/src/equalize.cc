// Cross-layer equalization of an imported model (docs/MODELS.md "Quantization"): each channel's range
// moved between consecutive weighted operators, exactly in float, so that the per-tensor scales of the
// quantization lose less (vta/network/quantize.h, equalize_channels).

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "vta/network/float_reference.h"
#include "vta/network/quantize.h"

namespace vta::network {
namespace {

// The next weighted operator after `a` through channel-preserving, positively homogeneous operators
// each read only by the next; nullptr when there is none. `spread` is how many of B's input columns
// each channel of A becomes (flatten's H x W).
const FloatOp* next_weighted(const FloatGraph& g, const FloatOp& a,
                             const std::map<std::string, std::vector<const FloatOp*>>& readers, int64_t& spread) {
  std::string t = a.output;
  spread = 1;
  for (;;) {
    const auto it = readers.find(t);
    if (it == readers.end() || it->second.size() != 1 || t == g.output) return nullptr;
    const FloatOp& r = *it->second[0];
    switch (r.kind) {
      case FloatOpKind::kConv:
      case FloatOpKind::kDense: return &r;
      case FloatOpKind::kRelu:
      case FloatOpKind::kLeakyRelu:
      case FloatOpKind::kMaxPool:
      case FloatOpKind::kAvgPool:
      case FloatOpKind::kUpsample:
      case FloatOpKind::kDilate:
      case FloatOpKind::kGlobalAvgPool: break;
      case FloatOpKind::kFlatten: {
        const auto& in = g.shape(r.inputs[0]);
        for (size_t d = 2; d < in.size(); ++d) spread *= in[d];
        break;
      }
      default: return nullptr;
    }
    t = r.output;
  }
}

}  // namespace

int equalize_channels(FloatGraph& g, int sweeps) {
  std::map<std::string, std::vector<const FloatOp*>> readers;
  std::map<std::string, int> uses;  // a constant two operators share is left alone
  for (const FloatOp& op : g.ops) {
    for (const auto& t : op.inputs) readers[t].push_back(&op);
    for (const auto* c : {&op.weight, &op.bias}) uses[*c] += !c->empty();
  }
  int pairs = 0;
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    for (FloatOp& a : g.ops) {
      if (a.kind != FloatOpKind::kConv && a.kind != FloatOpKind::kDense) continue;
      int64_t spread = 1;
      const FloatOp* b = next_weighted(g, a, readers, spread);
      if (!b || uses[a.weight] > 1 || uses[b->weight] > 1 || (!a.bias.empty() && uses[a.bias] > 1)) continue;
      FloatTensor& wa = g.constants.at(a.weight);
      FloatTensor& wb = g.constants.at(b->weight);
      const int64_t channels = wa.shape[0], per_a = int64_t(wa.values.size()) / channels;
      // B's weights reading channel c: (o, i, ...) with i = c % (C / groups), o in c's group; or the
      // dense columns c * spread .. (c + 1) * spread - 1
      const int64_t out_b = wb.shape[0], in_b = wb.shape[1], per_b = int64_t(wb.values.size()) / (out_b * in_b);
      const int64_t groups = b->kind == FloatOpKind::kConv ? b->groups : 1;
      if (b->kind == FloatOpKind::kConv ? in_b * groups != channels : in_b != channels * spread) continue;
      const int64_t og = out_b / groups;
      auto each_b = [&](int64_t c, auto&& f) {
        if (b->kind == FloatOpKind::kDense) {
          for (int64_t o = 0; o < out_b; ++o) {
            for (int64_t k = c * spread; k < (c + 1) * spread; ++k) f(wb.values[size_t(o * in_b + k)]);
          }
          return;
        }
        const int64_t group = c / in_b, i = c % in_b;
        for (int64_t o = group * og; o < (group + 1) * og; ++o) {
          for (int64_t k = 0; k < per_b; ++k) f(wb.values[size_t((o * in_b + i) * per_b + k)]);
        }
      };
      FloatTensor* bias = a.bias.empty() ? nullptr : &g.constants.at(a.bias);
      for (int64_t c = 0; c < channels; ++c) {
        float ra = 0, rb = 0;
        for (int64_t k = 0; k < per_a; ++k) ra = std::max(ra, std::fabs(wa.values[size_t(c * per_a + k)]));
        each_b(c, [&](float v) { rb = std::max(rb, std::fabs(v)); });
        if (!(ra > 0) || !(rb > 0)) continue;
        const double s = std::sqrt(double(ra) / double(rb));
        for (int64_t k = 0; k < per_a; ++k) {
          float& v = wa.values[size_t(c * per_a + k)];
          v = float(double(v) / s);
        }
        if (bias) bias->values[size_t(c)] = float(double(bias->values[size_t(c)]) / s);
        each_b(c, [&](float& v) { v = float(double(v) * s); });
      }
      if (sweep == 0) ++pairs;
    }
  }
  return pairs;
}

}  // namespace vta::network
