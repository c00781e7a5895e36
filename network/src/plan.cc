// The plan: which operators each step runs (docs/NETWORK.md, "Fusion").

#include "vta/network/plan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "join.h"
#include "vta/driver/packing.h"
#include "vta/network/tiling.h"

namespace vta::network {
namespace {

// The operators fused after a VTA convolution or average pool (an int32 sum): a chain of elementwise
// operators, each the only reader of the one before, ending with the int8 cast (VTA stores int8).
std::vector<const Op*> fuse_after(const Graph& g, const Op& conv) {
  std::vector<const Op*> chain{&conv};
  std::string current = conv.output;
  for (;;) {
    const auto readers = g.consumers(current);
    if (readers.size() != 1) {
      throw GraphError(join({g.name(), ": ", current, " (after VTA convolution ", conv.name, ") is read by ",
                             std::to_string(readers.size()),
                             " operators; VTA keeps int32 values on chip only for the one chain that ends in a cast"}));
    }
    const Op& op = *readers[0];
    const bool elementwise = op.kind == OpKind::kShr || op.kind == OpKind::kShrEven || op.kind == OpKind::kAdd ||
                             op.kind == OpKind::kRelu || op.kind == OpKind::kClip || op.kind == OpKind::kCast ||
                             op.kind == OpKind::kBiasAdd || op.kind == OpKind::kLeakyRelu ||
                             op.kind == OpKind::kScaleChannels;
    if (!elementwise || op.placement != Placement::kVta || op.inputs[0] != current) {
      throw GraphError(join(
          {g.name(), ": ", op.name, " (", to_string(op.kind), ", ", to_string(op.placement),
           ") reads the int32 result of VTA convolution ", conv.name,
           "; the chain after a VTA convolution must be VTA bias_add/shr/add/relu/clip/leaky_relu ending in a cast"}));
    }
    if (op.kind == OpKind::kAdd && g.tensor(op.inputs[1]).type != ElemType::kInt8) {
      throw GraphError(join({g.name(), ": ", op.name, ": the residual ", op.inputs[1],
                             " must be int8 (loaded into the accumulator sign-extended)"}));
    }
    chain.push_back(&op);
    if (op.kind == OpKind::kCast) return chain;
    current = op.output;
  }
}

// How a convolution step adds its residual. `(conv >> s) + r` equals `(conv + (r << s)) >> s` for an
// arithmetic shift (floor division by 2^s; r an integer), so when the shift comes right before the add
// the residual, shifted left, is where the sum starts: no accumulator reset, no two-operand ADD (2
// cycles per micro-op), no buffer of its own. Both sides are exact while the int32 sum cannot
// overflow: |conv| <= C*K*K * 128 * 128 and |r << s| <= 128 << s.
// A bias added before the shift changes nothing: (conv + b >> s) + r is (conv + (r << s) + b) >> s.
const Op* shift_before_residual(const Step& step) {
  const size_t at = step.ops.size() > 1 && step.ops[1]->kind == OpKind::kBiasAdd ? 2 : 1;
  if (step.ops.size() < at + 2 || step.ops[at]->kind != OpKind::kShr || step.ops[at + 1]->kind != OpKind::kAdd) {
    return nullptr;
  }
  return step.ops[at];
}

bool residual_starts_sum(const Graph& g, const Step& step) {
  const Op* shr = shift_before_residual(step);
  if (!shr) return false;
  const Op& conv = *step.ops[0];
  const int shift = shr->shift;
  const int64_t channels = g.tensor(conv.inputs[0]).shape[1];
  const int64_t conv_max = channels * conv.kernel * conv.kernel * 128 * 128;
  const int64_t bias_max = step.ops[1]->kind == OpKind::kBiasAdd ? int64_t{128} << step.ops[1]->shift : 0;
  return shift >= 0 && shift <= 23 &&
         conv_max + bias_max + (int64_t{128} << shift) <= std::numeric_limits<int32_t>::max();
}

// A VTA step that is a 1x1 convolution chain whose int8 result is within int8 before its cast (the
// chain ends with a clip inside [-128, 127]): its value can stay in the accumulator.
bool is_shortcut_chain(const Step& s) {
  if (s.placement != Placement::kVta || s.ops.size() < 3 || s.ops[0]->kind != OpKind::kConv2d) return false;
  const Op& conv = *s.ops[0];
  if (conv.kernel != 1 || conv.pad != 0 || conv.groups != 1 || s.inputs.size() != 1) return false;
  const Op& before_cast = *s.ops[s.ops.size() - 2];
  if (before_cast.kind != OpKind::kClip || before_cast.lo < -128 || before_cast.hi > 127) return false;
  for (size_t i = 1; i + 1 < s.ops.size(); ++i) {
    const OpKind k = s.ops[i]->kind;
    if (k != OpKind::kShr && k != OpKind::kRelu && k != OpKind::kClip && k != OpKind::kBiasAdd &&
        k != OpKind::kScaleChannels) {
      return false;
    }
  }
  return true;
}

// A 1x1 convolution (ResNet's downsample) whose int8 result only the residual add of a later VTA
// step reads, where that step starts its sum from the residual, is computed inside that step's
// program: its own reduction into the accumulator, its shift and clip on the ALU, then shifted left
// as the start of the step's sum (Residual::kShortcut). Its result is never stored, so its step is
// gone (and is not verified on its own: the step that absorbs it is).
void fuse_shortcuts(const Graph& g, std::vector<Step>& steps) {
  for (size_t i = 0; i < steps.size(); ++i) {
    Step& s = steps[i];
    if (s.placement != Placement::kVta || s.inputs.size() != 2 || !residual_starts_sum(g, s)) continue;
    const std::string& r = s.inputs[1];
    if (g.consumers(r).size() != 1) continue;
    auto producer =
        std::find_if(steps.begin(), steps.begin() + std::ptrdiff_t(i), [&](const Step& p) { return p.name == r; });
    if (producer == steps.begin() + std::ptrdiff_t(i) || !is_shortcut_chain(*producer)) continue;
    s.shortcut = producer->ops;
    s.inputs[1] = producer->inputs[0];
    const std::string add = " + add";  // "... + add(conv2d 1x1/2 + shr + clip + cast) + ..."
    const size_t at = s.description.find(add);
    if (at != std::string::npos) s.description.insert(at + add.size(), "(" + producer->description + ")");
    steps.erase(producer);
    --i;
  }
}

}  // namespace

const Op& residual_shift(const Step& step) {
  const Op* shr = shift_before_residual(step);
  if (!shr) throw GraphError(step.name + ": no shr right before the residual add");
  return *shr;
}

Residual residual_of(const Graph& g, const Step& step) {
  if (step.inputs.size() < 2) return Residual::kNone;
  if (!step.shortcut.empty()) return Residual::kShortcut;
  return residual_starts_sum(g, step) ? Residual::kSumInit : Residual::kAluAdd;
}

std::vector<Step> plan_steps(const Graph& g) {
  std::vector<std::pair<size_t, Step>> keyed;  // position of the step's last operator
  std::set<const Op*> taken;
  std::map<const Op*, size_t> index;
  for (size_t i = 0; i < g.ops().size(); ++i) index[&g.ops()[i]] = i;
  for (const Op& op : g.ops()) {
    if (taken.count(&op)) continue;
    Step s;
    s.placement = op.placement;
    if (op.placement == Placement::kHost) {
      s.ops = {&op};
      s.inputs = op.inputs;
      s.description = to_string(op.kind);
    } else if (op.kind == OpKind::kConv2d) {
      s.ops = fuse_after(g, op);
      s.inputs = {op.inputs[0]};
      s.description = join({depthwise(g, op) ? "depthwise conv2d " : "conv2d ", std::to_string(op.kernel), "x",
                            std::to_string(op.kernel), "/", std::to_string(op.stride)});
      for (size_t i = 1; i < s.ops.size(); ++i) {
        s.description.append(" + ").append(to_string(s.ops[i]->kind));
        if (s.ops[i]->kind == OpKind::kAdd) s.inputs.push_back(s.ops[i]->inputs[1]);
      }
    } else if (op.kind == OpKind::kMaxPool || op.kind == OpKind::kAvgPool) {
      const bool max = op.kind == OpKind::kMaxPool;
      s.ops = max ? std::vector<const Op*>{&op} : fuse_after(g, op);
      s.inputs = op.inputs;
      s.description = join({max ? "max_pool " : "avg_pool ", std::to_string(op.kernel), "x", std::to_string(op.kernel),
                            "/", std::to_string(op.stride)});
      for (size_t i = 1; i < s.ops.size(); ++i) s.description.append(" + ").append(to_string(s.ops[i]->kind));
      for (const Op* o : s.ops) {
        if (o->kind == OpKind::kAdd) {
          throw GraphError(join({g.name(), ": ", o->name, ": a residual add after a VTA average pool is not fused"}));
        }
      }
    } else if (op.kind == OpKind::kUpsample) {
      s.ops = {&op};
      s.inputs = op.inputs;
      s.description = join({"upsample ", std::to_string(op.kernel), "x", std::to_string(op.stride)});
    } else {
      throw GraphError(join({g.name(), ": ", op.name, " (", to_string(op.kind),
                             ") is placed on VTA, which runs convolutions and average pools with the elementwise ",
                             "operators fused after them, max pools and upsamples; place it on the host"}));
    }
    for (const Op* o : s.ops) taken.insert(o);
    s.name = s.ops.back()->output;
    keyed.emplace_back(index[s.ops.back()], std::move(s));
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Step> steps;
  steps.reserve(keyed.size());
  for (auto& [k, s] : keyed) steps.push_back(std::move(s));
  fuse_shortcuts(g, steps);
  return steps;
}

std::vector<const Op*> convolutions(const Step& s) {
  std::vector<const Op*> c{s.ops[0]};
  if (!s.shortcut.empty()) c.push_back(s.shortcut[0]);
  return c;
}

bool depthwise(const Graph& g, const Op& op) {
  const int64_t channels = g.tensor(op.inputs[0]).shape[1];
  return op.kind == OpKind::kConv2d && op.groups > 1 && op.groups == channels &&
         g.tensor(op.output).shape[1] == channels;
}

namespace {
constexpr const char* kGraphInputAt4Bits =
    "it reads the graph's input, which keeps 8 bits, and this configuration's inputs are 4 bits";
}  // namespace

std::vector<std::string> accumulator_inputs(const Step& step) {
  if (step.placement != Placement::kVta || step.in_place || step.ops.empty()) return {};
  switch (step.ops[0]->kind) {
    case OpKind::kMaxPool:
    case OpKind::kAvgPool:
    case OpKind::kUpsample: return {step.inputs.at(0)};
    case OpKind::kConv2d:
      if (step.residual == Residual::kSumInit || step.residual == Residual::kAluAdd) return {step.inputs.at(1)};
      return {};
    default: return {};
  }
}

std::string vta_refusal(const Graph& g, const Op& op, const Config& config) {
  const auto tiles = [&](const TensorDesc& in, int64_t out_channels) -> std::string {
    // Channels short of a whole block are padded with zeros on VTA (when both blocks are the same),
    // if that at most doubles the work: the last block at least half full.
    const auto fits = [&](int64_t channels, int64_t block) {
      if (channels % block == 0) return true;
      return config.block_in() == config.block_out() && 2 * channels >= channel_blocks(channels, block) * block;
    };
    if (in.shape.size() != 4 || in.shape[0] % config.batch() != 0 || !fits(in.shape[1], config.block_in()) ||
        !fits(out_channels, config.block_out())) {
      return join({"batch ", std::to_string(in.shape[0]), ", ", std::to_string(in.shape[1]), " input and ",
                   std::to_string(out_channels), " output channels do not fill VTA tiles of BATCH ",
                   std::to_string(config.batch()), " x BLOCK ", std::to_string(config.block_in()),
                   " (channels are padded to whole blocks when they fill at least half of them)"});
    }
    return "";
  };
  // (at 4-bit inputs: the graph's input keeps 8 bits; what a step loads into the accumulator is given
  // as an 8-bit copy, accumulator_inputs)
  const bool narrow_inputs = config.inp_width() < 8;
  switch (op.kind) {
    case OpKind::kConv2d: {
      if (auto t = tiles(g.tensor(op.inputs[0]), g.tensor(op.output).shape[1]); !t.empty()) return t;
      if (narrow_inputs && op.inputs[0] == g.input_name()) return kGraphInputAt4Bits;
      if (const int bits = config.wgt_width(); bits < 8) {
        const std::vector<int8_t>& w = g.weight(op.weight);
        const auto [lo, hi] = std::minmax_element(w.begin(), w.end());
        if (lo != w.end() && (*lo < lane_min(bits) || *hi > lane_max(bits))) {
          return join({"its weights span [", std::to_string(*lo), ", ", std::to_string(*hi), "] and this ",
                       "configuration's weights are ", std::to_string(bits), " bits (quantize them to ",
                       std::to_string(bits), " bits)"});
        }
      }
      if (op.pad != op.kernel / 2) return "VTA convolutions here pad by kernel/2";
      const bool dw = depthwise(g, op);
      if (op.groups != 1 && !dw) {
        return "a convolution in " + std::to_string(op.groups) +
               " groups runs on the host (VTA runs dense and depthwise convolutions)";
      }
      if (dw && config.block_in() != config.block_out()) {
        return "a depthwise convolution runs on VTA as a block-diagonal GEMM, which needs BLOCK_IN = BLOCK_OUT";
      }
      return "";
    }
    case OpKind::kAvgPool:  // (an average pool's zero padding adds nothing)
    case OpKind::kUpsample:
      // (at 4-bit inputs the graph's 8-bit values would be stored into 4-bit lanes)
      if (narrow_inputs && op.inputs[0] == g.input_name()) return kGraphInputAt4Bits;
      return tiles(g.tensor(op.inputs[0]), g.tensor(op.output).shape[1]);
    case OpKind::kMaxPool: {
      if (narrow_inputs && op.inputs[0] == g.input_name()) return kGraphInputAt4Bits;
      if (auto t = tiles(g.tensor(op.inputs[0]), g.tensor(op.output).shape[1]); !t.empty()) return t;
      if ((op.pad > 0 || op.pad_after > 0) && !non_negative(g, op.inputs[0])) {
        return "VTA's DMA pads with zeros, which would win over negative values: a padded max_pool runs on VTA only "
               "after a relu or a clip at 0";
      }
      return "";
    }
    case OpKind::kShr:
    case OpKind::kShrEven:
    case OpKind::kAdd:
    case OpKind::kRelu:
    case OpKind::kClip:
    case OpKind::kLeakyRelu:
    case OpKind::kCast:
    case OpKind::kBiasAdd:
    case OpKind::kScaleChannels: return "";  // fused after a VTA convolution (plan_steps checks the chain)
    default:
      return join({to_string(op.kind), " runs on the host: VTA steps are convolutions and average pools with the ",
                   "elementwise operators fused after them, max pools and upsamples"});
  }
}

std::vector<Step> plan_steps(const Graph& g, const Config& config, const TargetTraits& traits) {
  std::vector<Step> steps = plan_steps(g);
  for (Step& s : steps) {
    if (s.placement != Placement::kVta) continue;
    const OpKind kind = s.ops[0]->kind;
    const bool up = kind == OpKind::kUpsample, pool = kind == OpKind::kMaxPool || kind == OpKind::kAvgPool;
    if (up && !traits.views) {  // (its program writes the output as a view of another shape)
      s.placement = Placement::kHost;
      s.description += " (on the host: this target's tensors have no views)";
    } else if ((up || pool) && (up ? upsample_tilings(config, g, s) : pool_tilings(config, g, s)).empty()) {
      // a window or factor no tiling of this configuration's SRAMs holds (an upsample by 32 makes 1,024
      // accumulator rows of one input pixel): the host runs it, as it runs any pool or upsample
      s.placement = Placement::kHost;
      s.description += " (on the host: no VTA tiling of it fits this configuration's SRAMs)";
    }
  }
  if (!traits.views) return steps;
  // host concatenations whose inputs' VTA programs can write into them
  std::set<std::string> vta_outputs, taken;  // what VTA programs write; the inputs already placed
  for (const Step& s : steps) {
    if (s.placement == Placement::kVta) vta_outputs.insert(s.name);
  }
  for (Step& s : steps) {
    if (s.placement != Placement::kHost || s.ops.size() != 1 || s.ops[0]->kind != OpKind::kConcat) continue;
    const std::vector<std::string>& in = s.ops[0]->inputs;
    // (one batch block: each input's channel blocks are then one contiguous range of the result)
    bool fits = g.tensor(s.name).shape[0] == config.batch() && std::set(in.begin(), in.end()).size() == in.size();
    for (const std::string& x : in) {
      fits = fits && vta_outputs.count(x) != 0 && taken.count(x) == 0 &&
             g.tensor(x).shape[1] % int64_t(config.block_out()) == 0;
    }
    if (!fits) continue;
    taken.insert(in.begin(), in.end());
    s.placement = Placement::kVta;
    s.in_place = true;
    s.description = "concat in place (its inputs' steps write into it)";
  }
  return steps;
}

bool non_negative(const Graph& g, std::string tensor) {
  for (;;) {
    if (tensor == g.input_name()) return false;
    const Op& p = g.producer(tensor);
    if (p.kind == OpKind::kRelu || (p.kind == OpKind::kClip && p.lo >= 0)) return true;
    // (moving values, or adding zeros, keeps them >= 0)
    if (p.kind != OpKind::kCast && p.kind != OpKind::kMaxPool && p.kind != OpKind::kDilate &&
        p.kind != OpKind::kUpsample) {
      return false;
    }
    tensor = p.inputs[0];
  }
}

std::pair<size_t, size_t> step_range(const Graph& g, const std::vector<Step>& steps, const std::string& first,
                                     const std::string& last) {
  auto find = [&](const std::string& name) {
    for (size_t i = 0; i < steps.size(); ++i) {
      if (steps[i].name == name) return i;
    }
    throw GraphError(join({g.name(), ": no step produces ", name}));
  };
  size_t begin = 0, end = steps.size();
  if (!first.empty()) begin = find(first);
  if (!last.empty()) end = find(last) + 1;
  if (begin >= end) throw GraphError(join({g.name(), ": the slice ", first, " .. ", last, " is empty"}));
  return {begin, end};
}

std::pair<std::string, std::string> parse_step_range(const std::string& range) {
  const auto colon = range.find(':');
  if (colon == std::string::npos) return {range, range};
  return {range.substr(0, colon), range.substr(colon + 1)};
}

std::set<std::string> vta_step_names(const Graph& g, const std::string& first, const std::string& last) {
  const std::vector<Step> steps = plan_steps(g);
  const auto [begin, end] = step_range(g, steps, first, last);
  std::set<std::string> names;
  for (size_t i = begin; i < end; ++i) {
    if (steps[i].placement == Placement::kVta) names.insert(steps[i].name);
  }
  if (names.empty()) throw GraphError(join({g.name(), ": no VTA step from ", first, " to ", last}));
  return names;
}

std::set<std::string> vta_step_names(const Graph& g, const std::string& range) {
  const auto [first, last] = parse_step_range(range);
  return vta_step_names(g, first, last);
}

}  // namespace vta::network
