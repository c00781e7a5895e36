// Post-training quantization of an imported model (docs/MODELS.md "Quantization"): every activation an
// int8 with a power-of-two scale chosen on calibration inputs, so that requantizing a convolution's
// int32 sum is VTA's arithmetic shift and clip; weights per tensor; biases at the accumulator's scale.
// Each operator is placed on VTA where plan.h's rules allow, on the host otherwise, with the reason.

#include "vta/network/quantize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "join.h"
#include "vta/driver/packing.h"
#include "vta/network/calibration.h"
#include "vta/network/float_reference.h"
#include "vta/network/plan.h"
#include "weight_rounding.h"

namespace vta::network {
namespace {

// Absolute values of one tensor over the calibration inputs (at most kSamples per input, evenly spaced).
constexpr size_t kSamples = size_t{1} << 16;

int clamp_frac(double f) { return int(std::clamp(f, -16.0, 30.0)); }

// A multiplier that is a power of two moved into the fraction bits (a 2 x 2 pool's 1/4: two more bits).
QuantParams normalized(QuantParams p) {
  int e = 0;
  const double mantissa = std::frexp(p.multiplier, &e);  // multiplier = mantissa * 2^e, mantissa in [0.5, 1)
  if (mantissa == 0.5) p.frac_bits -= e - 1, p.multiplier = 1;
  return p;
}

class Quantizer {
 public:
  Quantizer(const FloatGraph& g, const Config& config, const QuantizeOptions& options)
      : g_(g),
        config_(config),
        options_(at_widths(g, config, options)),
        amax_(lane_max(options_.activation_bits)),
        amin_(lane_min(options_.activation_bits)) {
    for (const FloatOp& op : g.ops) {
      for (const auto& t : op.inputs) ++readers_[t], reader_[t] = &op;
    }
    ++readers_[g.output];
    for (const auto& t : g.extra_outputs) ++readers_[t];
    // (below 8 bits, what the convolutions' rounding by output and its measured error need)
    if (options_.weight_bits < 8 && (options_.weight_rounding_by_output || options_.eight_bit_layers > 0)) {
      for (const FloatOp& op : g.ops) {
        if (op.kind != FloatOpKind::kConv) continue;
        const auto &in = g.shape(op.inputs[0]), &out = g.shape(op.output);
        moments_.emplace(op.name, detail::WindowMoments({in[0], in[1], in[2], in[3], out[1], out[2], out[3], op.kernel,
                                                         op.stride, op.pad, op.groups}));
      }
    }
  }

  void calibrate(CalibrationSource& inputs) {
    const int64_t size = g_.elements(g_.input);
    int64_t count = 0;
    while (const auto x = inputs.next()) {
      ++count;
      if (int64_t(x->size()) != size) {
        throw ImportError(join({g_.name, ": calibration input ", std::to_string(count), " has ",
                                std::to_string(x->size()), " values, the model's input ", std::to_string(size)}));
      }
      if (const auto bad = std::find_if(x->begin(), x->end(), [](float v) { return !std::isfinite(v); });
          bad != x->end()) {
        throw ImportError(join({g_.name, ": calibration input ", std::to_string(count), " has a value that is not ",
                                "finite (", std::to_string(*bad), ") at index ", std::to_string(bad - x->begin())}));
      }
      const FloatValues v = run_float(g_, *x, true);
      for (const auto& [name, values] : v) {
        auto& s = samples_[name];
        const size_t step = std::max<size_t>(1, values.size() / kSamples);
        for (size_t i = 0; i < values.size(); i += step) s.push_back(std::fabs(values[i]));
        // (an NCHW activation's mean per channel: what correct_bias reads, below 8 bits)
        const auto& shape = g_.shape(name);
        if (options_.weight_bits < 8 && options_.bias_correction && shape.size() == 4 && shape[1] > 0) {
          const auto channels = size_t(shape[1]), plane = size_t(shape[2] * shape[3]);
          auto& mean = channel_mean_[name];
          mean.resize(channels, 0.0);
          for (size_t b = 0; b * plane < values.size(); ++b) {  // (plane b of the tensor: channel b % channels)
            for (size_t i = b * plane; i < (b + 1) * plane; ++i) mean[b % channels] += double(values[i]);
          }
          channel_weight_[name] += double(values.size()) / double(channels);
        }
      }
      for (const FloatOp& op : g_.ops) {
        if (const auto it = moments_.find(op.name); it != moments_.end()) it->second.add(v.at(op.inputs[0]));
      }
    }
    if (count == 0) throw ImportError(g_.name + ": quantization needs at least one calibration input");
  }

  // The quantized model (run again after keep_eight_bits: each run starts from the calibration alone).
  QuantizedModel run() {
    m_ = QuantizedModel{};
    m_.graph = Graph(g_.name);
    m_.softmax = g_.softmax;
    m_.weight_bits = options_.weight_bits, m_.activation_bits = options_.activation_bits;
    q_.clear();
    const std::string& in = g_.input;
    const auto it = reader_.find(in);  // (the only reader of the input may be the graph's output)
    const auto own = readers_[in] == 1 && it != reader_.end() ? model_frac(*it->second, in, 1.0) : std::nullopt;
    const QuantParams pin{own ? *own : frac_for(in, 1.0), 1.0};
    m_.input = pin;
    m_.graph.input(in, g_.shape(in));
    q_[in] = make_q(in, pin, false, Placement::kHost);
    report(in, "input", pin, 0, 0);
    for (const FloatOp& op : g_.ops) emit(op);
    const Q out = output(g_.output);
    m_.output = out.params;
    m_.graph.set_output(out.name);
    for (const std::string& t : g_.extra_outputs) {
      const Q extra = output(t);
      m_.extra_outputs.push_back(extra.params);
      m_.graph.add_output(extra.name);
    }
    return std::move(m_);
  }

  // Below 8 bits, the convolutions whose weights stay 8 bits in the next run: those named, and the
  // `count` whose rounding changed their own output most in the last run (`last`, its weights).
  void keep_eight_bits(const std::vector<std::string>& names, int count, const std::vector<WeightQuant>& last) {
    for (const std::string& name : names) {
      const auto it = std::find_if(g_.ops.begin(), g_.ops.end(), [&](const FloatOp& op) { return op.name == name; });
      if (it == g_.ops.end() || it->kind != FloatOpKind::kConv) {
        throw ImportError(join({g_.name, ": eight_bit_nodes names ", name, ", which is not a Conv node of the model"}));
      }
      kept_[name] = "named in eight_bit_nodes";
    }
    std::vector<WeightQuant> rounded;
    for (const WeightQuant& w : last) {
      if (w.bits < 8 && !kept_.count(w.op)) rounded.push_back(w);
    }
    std::stable_sort(rounded.begin(), rounded.end(),
                     [](const WeightQuant& a, const WeightQuant& b) { return a.output_error > b.output_error; });
    rounded.resize(std::min(rounded.size(), size_t(std::max(count, 0))));
    for (const WeightQuant& w : rounded) {
      char why[160];
      std::snprintf(why, sizeof why,
                    "at %d bits they changed its output by %.2f %%, among the %d largest: eight_bit_layers", w.bits,
                    100 * w.output_error, count);
      kept_[w.op] = why;
    }
  }

 private:
  // A residual add's bias_add (the graph tensor it produces), its values in accumulator units before
  // they were made int8, and the shift between it and the add.
  struct Fold {
    std::string bias_add;
    std::vector<double> total;
    int shift = 0;
    std::optional<std::vector<double>> taken;  // the bias of the sum's first requantization (after the add)
  };
  // A float tensor's quantized form: an int8 graph tensor, or (wide) an int32 one still to be requantized.
  struct Q {
    std::string name;
    QuantParams params;
    bool wide = false;
    Placement placement = Placement::kHost;
    int weight_frac = 0;         // the producing convolution's or dense's
    std::vector<double> bias;    // wide: a bias still to add, in accumulator units (one per channel)
    std::string node;            // the operator the bias belongs to
    std::shared_ptr<Fold> fold;  // wide, a residual add's sum: where its next bias goes (shared by copies)
  };

  // Float output `t` as the graph gives it: int8 as stored by VTA, or int32 logits with their bias.
  Q output(const std::string& t) {
    Q out = q_.at(t);
    if (out.wide && out.placement == Placement::kVta) out = q_.at(narrow(t, op_of(t).name));
    if (out.wide && !out.bias.empty()) {  // int32 logits: the bias added, nothing rounded
      const size_t mark = m_.graph.ops().size();
      out.name = finish_sum(out, 0, out.node);
      place(mark, out.placement, out.node, "the output's bias, on the host");
    }
    return out;
  }

  // `o` with its widths decided: 0 is the configuration's; a width the configuration's lanes cannot
  // hold (8-bit weights for 4-bit lanes) is refused by name.
  static QuantizeOptions at_widths(const FloatGraph& g, const Config& config, QuantizeOptions o) {
    const auto decide = [&](int& bits, int lane, const char* what) {
      if (bits == 0) bits = lane;
      if (!packable_width(bits)) {
        throw ImportError(g.name + ": weights and activations are quantized to 4 or 8 bits, not " +
                          std::to_string(bits) + " (QuantizeOptions::weight_bits, activation_bits)");
      }
      if (bits > lane) {
        throw ImportError(g.name + ": " + what + " of " + std::to_string(bits) +
                          " bits do not fit this configuration's " + std::to_string(lane) + "-bit lanes (quantize to " +
                          std::to_string(lane) + " bits)");
      }
    };
    decide(o.weight_bits, config.wgt_width(), "weights");
    decide(o.activation_bits, config.inp_width(), "activations");
    return o;
  }

  static Q make_q(std::string name, QuantParams p, bool wide, Placement placement, int weight_frac = 0) {
    Q q;
    q.name = std::move(name), q.params = p, q.wide = wide, q.placement = placement, q.weight_frac = weight_frac;
    return q;
  }

  // The wide sum `w` with its bias added, and 2^(shift - 1) with it when rounding to nearest (an
  // arithmetic shift alone rounds down): the int8 bias at the largest power of two that keeps it.
  // A sum that is a residual add's, ((s + b) >> k) + r, takes its bias c into the add's own b as
  // c << k, exactly (adding a multiple of 2^k before the shift adds c after it), so that its VTA step
  // has one bias: the bias_add before the add is rewritten and no operator is added.
  std::string finish_sum(const Q& w, int shift, const std::string& name, bool half = true) {
    const int64_t channels = m_.graph.tensor(w.name).shape[1];
    std::vector<double> total = bias_total(w, shift, half);
    if (w.fold && w.fold->taken) {  // (a second requantization: the sum already holds the first's bias)
      for (size_t i = 0; i < total.size(); ++i) total[i] -= (*w.fold->taken)[i];
    } else if (w.fold) {
      Fold& f = *w.fold;
      f.taken = total;
      if (std::all_of(total.begin(), total.end(), [](double v) { return v == 0; })) return w.name;
      for (size_t i = 0; i < total.size(); ++i) total[i] = f.total[i] + std::ldexp(total[i], f.shift);
      for (Op& op : m_.graph.mutable_ops()) {
        if (op.output != f.bias_add) continue;
        auto [q, left] = int8_bias(total, w.node);
        m_.graph.mutable_weight(op.weight) = std::move(q);
        op.shift = left;
        return w.name;
      }
      throw ImportError(join({g_.name, ": ", w.node, ": internal: the bias_add ", f.bias_add, " is gone"}));
    }
    double big = 0;
    for (const double v : total) big = std::max(big, std::fabs(v));
    if (big < 0.5) return w.name;
    auto [q, left] = int8_bias(total, w.node);
    if (std::all_of(q.begin(), q.end(), [](int8_t v) { return v == 0; })) return w.name;
    const std::string b = m_.graph.constant(unique(name + ".bias"), {channels}, q);
    return m_.graph.bias_add(unique(name + ".bias_add"), w.name, b, left);
  }

  // The bias `w` adds before a right shift by `shift`, in accumulator units, rounding term included
  // (unless `half` is false: a shift that rounds by itself, shr_even).
  std::vector<double> bias_total(const Q& w, int shift, bool half = true) const {
    std::vector<double> total = w.bias;
    if (total.empty()) total.assign(size_t(m_.graph.tensor(w.name).shape[1]), 0.0);
    if (half && options_.round_to_nearest && shift > 0) {
      for (double& v : total) v += std::ldexp(1.0, shift - 1);
    }
    return total;
  }

  // A bias in accumulator units as int8 values shifted left: the smallest shift that keeps them.
  std::pair<std::vector<int8_t>, int> int8_bias(const std::vector<double>& total, const std::string& node) const {
    double big = 0;
    for (const double v : total) big = std::max(big, std::fabs(v));
    int left = 0;
    while (big / std::ldexp(1.0, left) > 127.49) ++left;
    if (left > 23)
      throw ImportError(join({g_.name, ": ", node, ": its bias is too large for the accumulator's scale"}));
    std::vector<int8_t> q(total.size());
    for (size_t i = 0; i < q.size(); ++i)
      q[i] = int8_t(std::clamp(std::lround(total[i] / std::ldexp(1.0, left)), -127L, 127L));
    return {std::move(q), left};
  }

  [[noreturn]] void fail(const FloatOp& op, const std::string& why) const {
    throw ImportError(join({g_.name, ": node ", op.name, " (", op.onnx_op, "): ", why}));
  }

  const FloatOp& op_of(const std::string& tensor) const {
    for (const FloatOp& op : g_.ops) {
      if (op.output == tensor) return op;
    }
    throw ImportError(g_.name + ": no operator produces " + tensor);
  }

  // The largest number of fraction bits at which at most max_clipped of `tensor`'s values (divided by
  // `multiplier`) saturate its range (most_of).
  int frac_for(const std::string& tensor, double multiplier) {
    const int32_t most = most_of(tensor);
    auto& s = samples_[tensor];
    if (s.empty()) return 7;
    std::vector<float> sorted = s;
    const auto k = size_t(std::floor((1.0 - options_.max_clipped) * double(sorted.size() - 1)));
    std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(k), sorted.end());
    const double top = double(sorted[k]) / multiplier;
    if (!(top > 0)) return 7;
    const int f = clamp_frac(std::floor(std::log2(double(most) / top)));
    if (most >= 127) return f;
    // Below 8 bits, the scale one or two bits finer when it gives the smaller squared error over the
    // calibration values (absolute values: saturating more of them, resolving the rest better).
    return least_squared_error(s, 1.0 / multiplier, f, 0, most);
  }

  // The fraction bits a model's own fake quantization `fq` (of float tensor `tensor`) gives, when its
  // zero point is 0: its scale / multiplier as a power of two (the nearest one when it is not; a
  // uint8 range [0, 255 s] one bit coarser, so that int8 holds it); noted for the report.
  std::optional<int> model_frac(const FloatOp& fq, const std::string& tensor, double multiplier) {
    if (fq.kind != FloatOpKind::kFakeQuant || fq.zero != 0 || !(fq.scale > 0)) return std::nullopt;
    if (most_of(tensor) != 127) return std::nullopt;  // (a model's own scales are int8's)
    const double s = double(fq.scale) / multiplier, bits = -std::log2(s);
    int frac = int(std::lround(bits));
    std::string how = "model 2^" + std::to_string(-frac);
    if (std::ldexp(1.0, -frac) != s) how = "model " + float_text(float(s)) + " ~ 2^" + std::to_string(-frac);
    if (fq.hi > 127) --frac, how += ", uint8: 2^" + std::to_string(-frac);
    frac = clamp_frac(frac);
    scale_from_[tensor] = how;
    return frac;
  }

  void report(const std::string& tensor, const std::string& node, const QuantParams& p, int weight_frac, int shift) {
    LayerQuant l{tensor, node, p, 0, 0, weight_frac, shift};
    if (const auto it = scale_from_.find(tensor); it != scale_from_.end()) l.scale_from = it->second;
    const auto& s = samples_[tensor];
    const double scale = p.scale();
    for (const float v : s) {
      const double q = double(v) / scale;
      l.clipped += q >= double(most_of(tensor)) + 0.5;
      l.zero += q < 0.5;
    }
    if (!s.empty()) l.clipped /= double(s.size()), l.zero /= double(s.size());
    m_.layers.push_back(l);
  }

  std::string unique(const std::string& name) const {
    std::string u = name;
    for (int i = 1; m_.graph.has_tensor(u); ++i) u = name + "." + std::to_string(i);
    return u;
  }

  // Gives the graph's operators from `mark` on their placement and a note each.
  void place(size_t mark, Placement p, const std::string& node, const std::string& reason) {
    auto& ops = m_.graph.mutable_ops();
    for (size_t i = mark; i < ops.size(); ++i) {
      ops[i].placement = p;
      m_.placements.push_back({ops[i].name, node, p, reason});
    }
  }

  // The largest value of float tensor `tensor` quantized: the graph's input keeps 8 bits (127), every
  // other activation has activation_bits (127 or 7).
  int32_t most_of(const std::string& tensor) const { return tensor == g_.input ? 127 : amax_; }

  // Of the fraction bits f, f + 1 and f + 2, the one at which `v` (times `m`) rounded and saturated to
  // [lo, hi] is nearest to `v` in squared error; the lowest on a tie (the weights' and the activations'
  // choice below 8 bits).
  static int least_squared_error(const std::vector<float>& v, double m, int f, long lo, long hi) {
    int best = f;
    double best_error = std::numeric_limits<double>::infinity();
    for (int c = f; c <= f + 2; ++c) {
      const double factor = m * std::ldexp(1.0, c);
      double error = 0;
      for (const float x : v) {
        const double q = double(std::clamp(std::lround(double(x) * factor), lo, hi)) / factor;
        error += (q - double(x)) * (q - double(x));
      }
      if (error < best_error) best = c, best_error = error;
    }
    return clamp_frac(best);
  }

  // What takes output channel `o`'s float weights to their integer grid: the input's multiplier `m`
  // times 2^wf, or times 2^f of the channel's own scale (`channel_frac`, per_channel_weights).
  static double weight_factor(double m, int wf, const std::vector<int>& channel_frac, int64_t o) {
    return m * std::ldexp(1.0, channel_frac.empty() ? wf : channel_frac[size_t(o)]);
  }

  // The weight scale of each output channel of `w` (O, ...) below 8 bits: each channel's own power of two
  // (least_squared_error over its weights), at most kMaxFactorBits coarser than the finest (its factor,
  // 2^(finest - f), an int8 power of two); a channel of zeros takes the finest. Empty when every channel
  // has the same (one scale per tensor then), or when a factor could make a sum leave int32.
  static constexpr int kMaxFactorBits = 6;
  std::vector<int> channel_fracs(const FloatTensor& w, double m, long most) const {
    const size_t channels = size_t(w.shape.at(0)), per = w.values.size() / channels;
    std::vector<int> f(channels, std::numeric_limits<int>::min());
    for (size_t c = 0; c < channels; ++c) {
      const std::vector<float> part(w.values.begin() + std::ptrdiff_t(c * per),
                                    w.values.begin() + std::ptrdiff_t((c + 1) * per));
      float top = 0;
      for (const float v : part) top = std::max(top, std::fabs(v));
      if (top > 0) {
        f[c] = least_squared_error(part, m, clamp_frac(std::floor(std::log2(double(most) / (double(top) * m)))), -most,
                                   most);
      }
    }
    const int finest = *std::max_element(f.begin(), f.end());
    for (int& x : f) x = x == std::numeric_limits<int>::min() ? finest : std::max(x, finest - kMaxFactorBits);
    if (std::all_of(f.begin(), f.end(), [&](int x) { return x == f[0]; })) return {};
    // |sum| <= per x most x 128 (an int8 input) before the factor: the product must stay in int32
    const double bound = double(per) * double(most) * 128.0 * std::ldexp(1.0, kMaxFactorBits);
    if (bound > double(std::numeric_limits<int32_t>::max())) return {};
    return f;
  }

  // Bias correction below 8 bits: the weights' rounding shifts each output channel's mean by
  // sum over its taps of (quantized - float weight) x the input channel's calibration mean; that much is
  // taken off its bias (one made when it has none), in accumulator units. `q` the int weights, each
  // output channel at 2^frac[o] (or 2^wf for all), the input's multiplier `m`.
  void correct_bias(const FloatOp& op, double m, int wf, const std::vector<int>& frac, const std::vector<int8_t>& q,
                    Q& out) const {
    const auto it = channel_mean_.find(op.inputs[0]);
    if (it == channel_mean_.end()) return;
    const FloatTensor& w = g_.constants.at(op.weight);
    const int64_t outs = w.shape.at(0), per_group_in = w.shape.at(1), groups = std::max<int64_t>(op.groups, 1);
    const size_t per = w.values.size() / size_t(outs), taps = per / size_t(per_group_in);
    const double count = channel_weight_.at(op.inputs[0]);
    if (out.bias.empty()) out.bias.assign(size_t(outs), 0.0), out.node = op.name;
    for (int64_t o = 0; o < outs; ++o) {
      const double scale = weight_factor(m, wf, frac, o);
      const int64_t first_in = (o / (outs / groups)) * per_group_in;
      double delta = 0;
      for (size_t j = 0; j < per; ++j) {
        const size_t k = size_t(o) * per + j;
        const double mean = it->second.at(size_t(first_in) + j / taps) / count;
        delta += (double(q[k]) / scale - double(w.values[k])) * mean;
      }
      out.bias[size_t(o)] -= delta * std::ldexp(1.0, out.params.frac_bits);
    }
  }

  // Requantizes wide `w` to `frac` bits: shr (when not 0), clip to [lo, hi] (within the activations'
  // range, int8 or int4), cast. With a leaky ReLU's slope `alpha` (0 < alpha < 1), the clip keeps the
  // values whose product stays in that range, the slope is alpha to 15 fraction bits (its error at most 2^-16), the
  // product rounded to the nearest, the clip to [lo, hi] after it. `ties_to_even`: the model's own QuantizeLinear
  // defines the rounding, so a sum halfway between two steps goes to the even one (shr_even, up to a shift of 16, the
  // ALU immediate's reach; a larger shift rounds ties up, docs/MODELS.md), not up.
  Q requantize(const Q& w, int frac, int32_t lo, int32_t hi, const std::string& name, const std::string& node,
               const std::string& tensor, float alpha = 0, bool ties_to_even = false) {
    const int shift = std::clamp(w.params.frac_bits - frac, 0, 31);
    frac = w.params.frac_bits - shift;
    const size_t mark = m_.graph.ops().size();
    const bool even = ties_to_even && options_.round_to_nearest && shift >= 1 && shift <= Graph::kMaxShrEvenShift;
    std::string t = finish_sum(w, shift, name, !even);
    if (even) {
      t = m_.graph.shr_even(unique(name + ".shr"), t, shift);
    } else if (shift > 0) {
      t = m_.graph.shr(unique(name + ".shr"), t, shift);
    }
    lo = std::max(lo, amin_), hi = std::min(hi, amax_);
    if (alpha > 0) {
      constexpr int kSlopeBits = 15;  // (the multiplier and the rounding term are 16-bit ALU immediates)
      const auto m = int32_t(std::clamp(std::lround(double(alpha) * (1 << kSlopeBits)), 1L, (1L << kSlopeBits) - 1));
      const auto least = int32_t(std::ceil((double(amin_) - 0.5) * double(1 << kSlopeBits) / double(m)));
      t = m_.graph.clip(unique(name + ".clip"), t, least, amax_);
      t = m_.graph.leaky_relu(unique(name + ".leaky"), t, m, kSlopeBits);
      if (lo > amin_ || hi < amax_) t = m_.graph.clip(unique(name + ".clamp"), t, lo, hi);
    } else {
      t = m_.graph.clip(unique(name + ".clip"), t, lo, hi);
    }
    t = m_.graph.cast(unique(name), t);
    place(mark, w.placement, node,
          w.placement == Placement::kVta ? "fused after its VTA sum" : "requantizes a host operator's sum");
    const QuantParams p{frac, w.params.multiplier};
    report(tensor, node, p, w.weight_frac, shift);
    return make_q(t, p, false, w.placement);
  }

  // The int8 form of float tensor `tensor` (requantized once, without ReLU, when it is wide).
  std::string narrow(const std::string& tensor, const std::string& node) {
    const Q& q = q_.at(tensor);
    if (!q.wide) return tensor;
    std::string key = tensor + "#int8";
    if (!q_.count(key)) {
      q_[key] = requantize(q, frac_for(tensor, q.params.multiplier), amin_, amax_, q.name + ".q", node, tensor);
    }
    return key;
  }
  const Q& int8_input(const FloatOp& op, size_t i) { return q_.at(narrow(op.inputs.at(i), op.name)); }
  // The wide input the operator can fuse after: produced for it alone.
  bool fusable(const FloatOp& op) const {
    const Q& q = q_.at(op.inputs[0]);
    return q.wide && readers_.at(op.inputs[0]) == 1;
  }

  void emit(const FloatOp& op) {
    if (q_.count(op.output)) return;  // (a clamp fused into the requantization before it)
    switch (op.kind) {
      case FloatOpKind::kConv:
      case FloatOpKind::kDense: return weighted(op);
      case FloatOpKind::kRelu:
      case FloatOpKind::kClip:
      case FloatOpKind::kLeakyRelu: return activation(op);
      case FloatOpKind::kFakeQuant:
        // a model's own quantization: its clamp fused like a Clip after a sum; on an int8 tensor the
        // tensor itself (its scale is the calibrated one: VTA's are powers of two)
        if (fusable(op)) return activation(op);
        q_[op.output] = q_.at(narrow(op.inputs[0], op.name));
        return;
      case FloatOpKind::kAdd: return add(op);
      case FloatOpKind::kScale: {
        Q q = q_.at(op.inputs[0]);
        q.params.multiplier *= double(op.scale);
        q_[op.output] = q;
        return;
      }
      case FloatOpKind::kMaxPool:
      case FloatOpKind::kAvgPool:
      case FloatOpKind::kGlobalAvgPool: return pool(op);
      case FloatOpKind::kUpsample:
      case FloatOpKind::kDilate:
      case FloatOpKind::kFlatten: return layout(op);
      case FloatOpKind::kConcat: return concat(op);
    }
  }

  // The pools, on an int8 input: a max pool keeps its scale (on VTA's ALU where plan.h allows); an
  // average pool's sum is the mean times the window's size, whose inverse the multiplier takes.
  void pool(const FloatOp& op) {
    if (op.kind == FloatOpKind::kAvgPool && op.pad > 0 && !op.include_pad) {
      fail(op,
           "an AveragePool with padding excluded from its count (count_include_pad 0) divides by a "
           "different count at the borders; VTA's scales are one power of two per tensor");
    }
    const Q& x = int8_input(op, 0);
    const size_t mark = m_.graph.ops().size();
    const std::string name = unique(op.name);
    if (op.kind == FloatOpKind::kMaxPool) {
      const std::string t = m_.graph.max_pool(name, x.name, op.kernel, op.stride, op.pad, op.pad_after);
      const std::string why = options_.use_vta ? vta_refusal(m_.graph, m_.graph.ops().back(), config_) : "VTA not used";
      place(mark, why.empty() ? Placement::kVta : Placement::kHost, op.name, why.empty() ? "VTA: ALU max" : why);
      q_[op.output] = make_q(t, x.params, false, Placement::kHost);
      return;
    }
    const auto& s = g_.shape(op.inputs[0]);
    const bool global = op.kind == FloatOpKind::kGlobalAvgPool;
    // a global pool over a square map is the average pool whose window is the map, (N, C, 1, 1) as
    // ONNX's (a following Flatten makes it (N, C)): VTA's ALU sums it; over another map, the host
    const std::string t = !global        ? m_.graph.avg_pool(name, x.name, op.kernel, op.stride, op.pad)
                          : s[2] == s[3] ? m_.graph.avg_pool(name, x.name, int(s[2]), int(s[2]), 0)
                                         : m_.graph.global_avg_pool(name, x.name);
    // an average pool's sum on VTA's ALU where plan.h allows, its requantization fused after it
    const std::string why = options_.use_vta ? vta_refusal(m_.graph, m_.graph.ops().back(), config_) : "VTA not used";
    const Placement p = why.empty() ? Placement::kVta : Placement::kHost;
    place(mark, p, op.name, why.empty() ? "VTA: ALU add" : why);
    const double window = global ? double(s[2] * s[3]) : double(op.kernel * op.kernel);
    q_[op.output] = make_q(t, normalized({x.params.frac_bits, x.params.multiplier / window}), true, p);
  }

  // Upsample, dilate and flatten: the int8 values moved, their scale kept.
  void layout(const FloatOp& op) {
    const Q& x = int8_input(op, 0);
    if (op.kind == FloatOpKind::kFlatten && m_.graph.tensor(x.name).shape.size() == 2) {
      q_[op.output] = x;
      return;
    }
    const size_t mark = m_.graph.ops().size();
    const std::string name = unique(op.name);
    const std::string t = op.kind == FloatOpKind::kUpsample ? m_.graph.upsample(name, x.name, op.kernel, op.stride)
                          : op.kind == FloatOpKind::kDilate ? m_.graph.dilate(name, x.name, op.stride, op.pad)
                                                            : m_.graph.flatten(name, x.name);
    // a nearest upsample is copied on VTA's ALU where plan.h allows; dilate and flatten move values on
    // the host
    const std::string why = !options_.use_vta ? "VTA not used" : vta_refusal(m_.graph, m_.graph.ops().back(), config_);
    const Placement p = op.kind == FloatOpKind::kUpsample && why.empty() ? Placement::kVta : Placement::kHost;
    place(mark, p, op.name, p == Placement::kVta ? "VTA: ALU copies" : why);
    q_[op.output] = make_q(t, x.params, false, p);
  }

  // `op`'s weights on their grid (each output channel's at 2^wf, or at its own 2^f brought to 2^wf by its
  // factor after the sum; the input's multiplier `m` folded in) in [-most, most]: rounded by their effect
  // on the output below 8 bits (weight_rounding_by_output), else each to its nearest step; and how much
  // the rounding changes the output, where the convolution's moments were gathered.
  WeightQuant round_weights(const FloatOp& op, double m, int wf, const std::vector<int>& channel_frac, long most,
                            std::vector<int8_t>& weights) const {
    const FloatTensor& w = g_.constants.at(op.weight);
    const auto factor = [&](int64_t o) { return weight_factor(m, wf, channel_frac, o); };
    const auto moments = moments_.find(op.name);
    const int64_t groups = std::max(op.groups, 1);
    if (moments != moments_.end() && most < 127 && options_.weight_rounding_by_output) {
      weights = detail::round_by_output(w.values, w.shape.at(0), groups, moments->second, factor, most);
    } else {
      const size_t per = w.values.size() / size_t(w.shape.at(0));
      for (size_t k = 0; k < weights.size(); ++k) {
        weights[k] = int8_t(std::clamp(std::lround(double(w.values[k]) * factor(int64_t(k / per))), -most, most));
      }
    }
    WeightQuant wq{op.name, most < 127 ? options_.weight_bits : 8, wf, 0};
    if (moments != moments_.end()) {
      wq.output_error =
          detail::relative_output_error(w.values, weights, w.shape.at(0), groups, moments->second, factor);
    }
    return wq;
  }

  // A convolution or dense: weights at the largest power of two that keeps them in int8 (the input's
  // multiplier folded in), the bias at the accumulator's scale as an int8 shifted left.
  void weighted(const FloatOp& op) {
    const Q& x = int8_input(op, 0);
    const FloatTensor& w = g_.constants.at(op.weight);
    float top = 0;
    for (const float v : w.values) top = std::max(top, std::fabs(v));
    const double m = x.params.multiplier;
    const size_t mark = m_.graph.ops().size();
    // (the values are set once the operator's placement says at how many bits)
    const std::string wname =
        m_.graph.constant(unique(op.name + ".weight"), w.shape, std::vector<int8_t>(w.values.size()));
    std::string t;
    std::string reason;
    Placement p = Placement::kHost;
    bool vta_capable = false;  // (its weights' bits do not depend on use_vta: the host-only reference is the same)
    if (op.kind == FloatOpKind::kConv) {
      const auto& xs = m_.graph.tensor(x.name).shape;
      if (xs.size() != 4) fail(op, "its input is not NCHW after quantization");
      t = m_.graph.conv2d(unique(op.name), x.name, wname, op.stride, op.pad, op.groups);
      const std::string refusal = vta_refusal(m_.graph, m_.graph.ops().back(), config_);
      vta_capable = refusal.empty();
      reason = options_.use_vta ? refusal : "VTA not used";
      if (reason.empty()) p = Placement::kVta, reason = "VTA: GEMM";
    } else {
      if (m_.graph.tensor(x.name).shape.size() != 2) fail(op, "its input is not (N, K) after quantization");
      t = m_.graph.dense(unique(op.name), x.name, wname);
      reason = vta_refusal(m_.graph, m_.graph.ops().back(), config_);
    }
    // (a convolution keep_eight_bits chose keeps 8-bit weights: on 4-bit weight lanes, on the host)
    const auto kept = kept_.find(op.name);
    const long most = vta_capable && kept == kept_.end() ? lane_max(options_.weight_bits) : 127;
    if (kept != kept_.end() && p == Placement::kVta && config_.wgt_width() < 8) {
      p = Placement::kHost,
      reason = join({"its weights stay 8 bits (", kept->second, "); this configuration's weight lanes are 4 bits"});
    } else if (kept != kept_.end() && vta_capable) {
      reason += ", 8-bit weights: " + kept->second;
    }
    int wf = top > 0 ? clamp_frac(std::floor(std::log2(double(most) / (double(top) * m)))) : 0;
    // Below 8 bits a step of 2^-wf is coarse against most weights: the scale one or two bits finer,
    // which saturates the largest few, is taken when it gives the smaller squared error over the tensor.
    if (most < 127 && top > 0) wf = least_squared_error(w.values, m, wf, -most, most);
    std::vector<int> channel_frac;  // (below 8 bits on VTA: a scale per output channel, when they differ)
    if (most < 127 && top > 0 && op.kind == FloatOpKind::kConv && options_.per_channel_weights) {
      channel_frac = channel_fracs(w, m, most);
      if (!channel_frac.empty()) {
        wf = *std::max_element(channel_frac.begin(), channel_frac.end());
        std::vector<int8_t> factors;
        factors.reserve(channel_frac.size());
        for (const int f : channel_frac) factors.push_back(int8_t(1 << (wf - f)));
        const std::string fname = m_.graph.constant(unique(op.name + ".factors"), {int64_t(factors.size())}, factors);
        t = m_.graph.scale_channels(unique(op.name + ".scale"), t, fname);
      }
    }
    const WeightQuant wq = round_weights(op, m, wf, channel_frac, most, m_.graph.mutable_weight(wname));
    if (most < 127 && p == Placement::kVta && moments_.count(op.name)) {
      char note[96];
      std::snprintf(note, sizeof note, ", %d-bit weights (they change its output by %.2f %%)", wq.bits,
                    100 * wq.output_error);
      reason += note;
    }
    m_.weights.push_back(wq);
    place(mark, p, op.name, reason);
    const int acc = x.params.frac_bits + wf;
    Q out = make_q(t, {acc, 1.0}, true, p, wf);
    if (!op.bias.empty()) {  // added with the requantization, which rounds with it
      const FloatTensor& b = g_.constants.at(op.bias);
      out.bias.resize(b.values.size());
      for (size_t i = 0; i < out.bias.size(); ++i) out.bias[i] = double(b.values[i]) * std::ldexp(1.0, acc);
      out.node = op.name;
    }
    if (most < 127 && op.kind == FloatOpKind::kConv && options_.bias_correction) {
      correct_bias(op, m, wf, channel_frac, m_.graph.weight(wname), out);
    }
    q_[op.output] = out;
  }

  // Relu, Clip, LeakyRelu or a fake quantization's clamp: fused into the requantization of the
  // convolution or add before it, with the clamp of a fake quantization that alone reads its output.
  void activation(const FloatOp& op) {
    if (!fusable(op)) {
      fail(op, "a Relu, Clip or LeakyRelu is quantized with the Conv, Gemm or Add whose output it alone reads; " +
                   op.inputs[0] + " is not one");
    }
    std::vector<const FloatOp*> clamps{&op};
    for (std::string t = op.output;
         readers_[t] == 1 && !g_.is_output(t) && reader_.at(t)->kind == FloatOpKind::kFakeQuant;
         t = reader_.at(t)->output) {
      clamps.push_back(reader_.at(t));
    }
    const std::string& out = clamps.back()->output;
    const Q& w = q_.at(op.inputs[0]);
    const auto own = model_frac(*clamps.back(), out, w.params.multiplier);
    int frac = own ? *own : frac_for(out, w.params.multiplier);
    // read by a Concat alone: at the concatenation's scale, the fewest fraction bits its inputs are
    // calibrated to (what concat would shift this input to on the host; requantized here, it can be
    // written in place on VTA)
    if (!own && readers_[out] == 1 && !g_.is_output(out) && reader_.at(out)->kind == FloatOpKind::kConcat) {
      for (const auto& in : reader_.at(out)->inputs) frac = std::min(frac, frac_for(in, w.params.multiplier));
    }
    const double s = std::ldexp(1.0, std::min(frac, w.params.frac_bits)) / w.params.multiplier;
    double f_lo = -std::numeric_limits<double>::infinity(), f_hi = std::numeric_limits<double>::infinity();
    for (const FloatOp* c : clamps) {                                   // the bounds in real values, intersected
      double lo_c = 0, hi_c = std::numeric_limits<double>::infinity();  // (ReLU)
      if (c->kind == FloatOpKind::kLeakyRelu) lo_c = -hi_c;
      if (c->kind == FloatOpKind::kClip) lo_c = double(c->lo), hi_c = double(c->hi);
      if (c->kind == FloatOpKind::kFakeQuant) {
        lo_c = (double(c->lo) - c->zero) * double(c->scale), hi_c = (double(c->hi) - c->zero) * double(c->scale);
      }
      f_lo = std::max(f_lo, lo_c), f_hi = std::min(f_hi, hi_c);
    }
    const int32_t lo =
        std::isfinite(f_lo) ? int32_t(std::clamp(std::lround(f_lo * s), long(amin_), long(amax_))) : amin_;
    const int32_t hi =
        std::isfinite(f_hi) ? int32_t(std::clamp(std::lround(f_hi * s), long(amin_), long(amax_))) : amax_;
    const Q r = requantize(w, frac, lo, hi, unique(op.name), op.name, out,
                           op.kind == FloatOpKind::kLeakyRelu ? op.alpha : 0.f, own.has_value());
    for (const FloatOp* c : clamps) q_[c->output] = r;
  }

  // A concatenation: every input at the fewest fraction bits any of them has (a sum requantized there,
  // an int8 tensor shifted right on the host), then joined on the host.
  void concat(const FloatOp& op) {
    int frac = 64;
    const double m = q_.at(op.inputs[0]).params.multiplier;
    for (const auto& in : op.inputs) {
      const Q& q = q_.at(in);
      if (q.params.multiplier != m) fail(op, "its inputs carry different average-pool factors");
      frac = std::min(frac, q.wide ? std::min(frac_for(in, m), q.params.frac_bits) : q.params.frac_bits);
    }
    std::vector<std::string> parts;
    for (const auto& in : op.inputs) {
      Q q = q_.at(in);
      if (q.wide) {
        q = requantize(q, frac, amin_, amax_, unique(q.name + ".q"), op.name, in);
      } else if (q.params.frac_bits > frac) {
        const size_t mark = m_.graph.ops().size();
        q.name = m_.graph.shr(unique(q.name + ".rescale"), q.name, q.params.frac_bits - frac);
        place(mark, Placement::kHost, op.name, "brings a concatenated input to the others' scale");
      }
      parts.push_back(q.name);
    }
    const size_t mark = m_.graph.ops().size();
    const std::string t = m_.graph.concat(unique(op.name), parts);
    place(mark, Placement::kHost, op.name, vta_refusal(m_.graph, m_.graph.ops().back(), config_));
    q_[op.output] = make_q(t, {frac, m}, false, Placement::kHost);
  }

  // A residual addition: the wide operand (a convolution's sum) shifted to the other's scale, the
  // other (int8) added; ReLU and the final requantization follow.
  void add(const FloatOp& op) {
    int main = -1;
    for (int i = 0; i < 2 && main < 0; ++i) {
      const Q& q = q_.at(op.inputs[size_t(i)]);
      if (q.wide && readers_.at(op.inputs[size_t(i)]) == 1 && m_.graph.producer(q.name).kind != OpKind::kAdd) main = i;
    }
    if (main < 0) {
      fail(op,
           "an Add needs one operand that is a Conv's or Gemm's output read only by it (the residual is added to "
           "that sum); neither " +
               op.inputs[0] + " nor " + op.inputs[1] + " is");
    }
    const Q w = q_.at(op.inputs[size_t(main)]);
    const Q r = int8_input(op, size_t(1 - main));
    if (r.params.multiplier != w.params.multiplier) fail(op, "its operands carry different average-pool factors");
    const int shift = w.params.frac_bits - r.params.frac_bits;
    if (shift < 0 || shift > 31) {
      fail(op, join({"the sum has ", std::to_string(w.params.frac_bits), " fraction bits and the residual ",
                     std::to_string(r.params.frac_bits), ": the shift between them must be 0 to 31"}));
    }
    const size_t mark = m_.graph.ops().size();
    std::string t = finish_sum(w, shift, op.name);
    std::shared_ptr<Fold> fold;
    if (t != w.name) fold = std::make_shared<Fold>(Fold{t, bias_total(w, shift), shift, {}});
    t = m_.graph.shr(unique(op.name + ".shr"), t, shift);
    t = m_.graph.add(unique(op.name), t, r.name);
    place(mark, w.placement, op.name,
          w.placement == Placement::kVta ? "fused after its VTA sum" : "adds to a host operator's sum");
    q_[op.output] = make_q(t, {r.params.frac_bits, r.params.multiplier}, true, w.placement, w.weight_frac);
    q_[op.output].fold = std::move(fold);
    q_[op.output].node = op.name;
  }

  const FloatGraph& g_;
  const Config& config_;
  QuantizeOptions options_;
  int32_t amax_, amin_;  // an activation's range: [-128, 127] at 8 bits, [-8, 7] at 4
  QuantizedModel m_;
  std::map<std::string, Q> q_;
  std::map<std::string, int> readers_;
  std::map<std::string, const FloatOp*> reader_;  // (the last reader: the one when readers_ is 1)
  std::map<std::string, std::vector<float>> samples_;
  std::map<std::string, std::vector<double>> channel_mean_;  // NCHW activations: the sum per channel...
  std::map<std::string, double> channel_weight_;             // ...over this many values each
  std::map<std::string, std::string> scale_from_;            // tensors whose scale the model gives (report)
  std::map<std::string, detail::WindowMoments> moments_;     // below 8 bits, each convolution's (by name)
  std::map<std::string, std::string> kept_;                  // convolutions keeping 8-bit weights, and why
};

}  // namespace

QuantizedModel quantize(const FloatGraph& g, const std::vector<std::vector<float>>& calibration, const Config& config,
                        const QuantizeOptions& options) {
  const auto source = vector_calibration(calibration);
  return quantize(g, *source, config, options);
}

QuantizedModel quantize(const FloatGraph& g, CalibrationSource& calibration, const Config& config,
                        const QuantizeOptions& options) {
  FloatGraph equalized;
  if (options.equalize) equalized = g, equalize_channels(equalized);
  Quantizer q(options.equalize ? equalized : g, config, options);
  q.calibrate(calibration);
  const bool widen = !options.eight_bit_nodes.empty() || options.eight_bit_layers > 0;
  if (!widen) return q.run();
  QuantizedModel all;  // (every convolution rounded: eight_bit_layers chooses by their errors)
  if (options.eight_bit_layers > 0) all = q.run();
  if (options.eight_bit_layers > 0 && all.weight_bits == 8) return all;  // (nothing below 8 bits to keep)
  q.keep_eight_bits(options.eight_bit_nodes, options.eight_bit_layers, all.weights);
  return q.run();
}

double QuantParams::scale() const { return std::ldexp(1.0, -frac_bits) * multiplier; }

std::vector<int8_t> QuantizedModel::quantize_input(std::span<const float> x) const {
  std::vector<int8_t> q(x.size());
  const double f = 1.0 / input.scale();
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = double(x[i]) * f;
    q[i] = int8_t(std::isnan(v) ? 0 : std::clamp(std::nearbyint(v), -128.0, 127.0));
  }
  return q;
}

namespace {

std::vector<float> dequantize(const QuantParams& p, std::span<const int32_t> y) {
  std::vector<float> f(y.size());
  const double s = p.scale();
  for (size_t i = 0; i < y.size(); ++i) f[i] = float(double(y[i]) * s);
  return f;
}

}  // namespace

std::vector<float> QuantizedModel::dequantize_output(std::span<const int32_t> y) const { return dequantize(output, y); }

std::vector<float> QuantizedModel::dequantize_extra_output(size_t i, std::span<const int32_t> y) const {
  return dequantize(extra_outputs.at(i), y);
}

}  // namespace vta::network
