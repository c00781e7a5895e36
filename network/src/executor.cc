// The Executor: plans and compiles a graph's steps once, then runs them with activations kept on the
// target between VTA steps.

#include "vta/network/executor.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "join.h"
#include "programs.h"
#include "vta/compiler/env.h"
#include "vta/runtime/tensor.h"

namespace vta::network {
namespace {

using Clock = std::chrono::steady_clock;
namespace c = vta::compiler;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::vector<int32_t> widen(std::span<const int8_t> v) { return {v.begin(), v.end()}; }
std::vector<int8_t> narrow(const std::vector<int32_t>& v) {
  std::vector<int8_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<int8_t>(v[i]);
  return out;
}

// `rows` rows of `from` values, as rows of `to` values (cut, or padded with zeros), in a buffer of
// `out_rows` rows (the ones past `rows` zeros): channels padded to whole VTA blocks, or dropped again.
std::vector<int8_t> resize_rows(std::span<const int8_t> x, int64_t rows, int64_t from, int64_t to, int64_t out_rows) {
  std::vector<int8_t> y(size_t(out_rows * to), 0);
  for (int64_t r = 0; r < rows; ++r) {
    std::copy_n(x.begin() + std::ptrdiff_t(r * from), std::min(from, to), y.begin() + std::ptrdiff_t(r * to));
  }
  return y;
}

// A VTA pool step (its own program, tiled by pool_tilings) or upsample (upsample_tilings); every other
// VTA step is a convolution.
bool is_pool(const Step& s) { return s.ops[0]->kind == OpKind::kMaxPool || s.ops[0]->kind == OpKind::kAvgPool; }
bool is_upsample(const Step& s) { return s.ops[0]->kind == OpKind::kUpsample; }

// Whether step `s` ends in one of the graph's further outputs (NetworkRun::extra_outputs).
bool ends_in_extra_output(const Graph& g, const Step& s) { return g.is_output(s.name) && s.name != g.output_name(); }

// The blocked output of upsample step `s` as its program addresses it: (N/BATCH, C/BLOCK, H, fh, W, fw,
// BATCH, BLOCK) over the input's H x W.
std::vector<int64_t> upsample_shape(const Graph& g, const Step& s, const c::Env& env) {
  const TensorDesc& in = g.tensor(s.ops[0]->inputs[0]);
  return {in.shape[0] / env.BATCH,
          channel_blocks(in.shape[1], env.BLOCK_OUT),
          in.shape[2],
          s.ops[0]->kernel,
          in.shape[3],
          s.ops[0]->stride,
          env.BATCH,
          env.BLOCK_OUT};
}

}  // namespace

bool NetworkRun::verified() const {
  return std::all_of(steps.begin(), steps.end(), [](const StepResult& r) { return r.mismatches == 0; });
}

double NetworkRun::bound(const Config& config, const std::set<std::string>* only) const {
  double sum = 0;
  for (const StepResult& r : steps) {
    if (r.step->placement != Placement::kVta || (only != nullptr && only->count(r.step->name) == 0)) continue;
    sum += cycle_bounds(r.stats, config).larger();
  }
  return sum;
}

struct Executor::DeviceState {
  std::map<std::string, std::unique_ptr<Target::Tensor>> weights;  // packed OIHWoi
  std::vector<std::unique_ptr<Target::Program>> programs;          // per step (VTA steps only)
};

Executor::Executor(const Graph& g, const Config& config, std::shared_ptr<Target> target, PlanOptions plan)
    : graph_(g),
      config_(config),
      target_(target ? std::move(target) : local_target()),
      plan_(std::move(plan)),
      device_(new DeviceState) {
  if (plan_.max_virtual_threads < 1 || plan_.max_virtual_threads > 4) {
    throw std::invalid_argument("Executor: PlanOptions asks for at most " + std::to_string(plan_.max_virtual_threads) +
                                " virtual threads (1 to 4)");
  }
  check_stage(stage(), "Executor: PlanOptions asks for");
  plan_.compute_issue = EstimateOptions{.compute_issue = plan_.compute_issue}.issue(config_);  // 0: the configuration's
  if (plan_.window > 1 && plan_.compute_issue != 2) {
    throw std::invalid_argument("Executor: PlanOptions asks for a window of " + std::to_string(plan_.window) +
                                " (above 1 only with compute_issue 2) on a configuration whose compute stage runs "
                                "one instruction at a time");
  }
  // the final steps (its own graph's: the steps point into it); compiled here, run by run()
  steps_ = plan_steps(graph_, config_, TargetTraits{target_->views()});
  for (Step& s : steps_) {
    if (s.placement != Placement::kVta || s.in_place) continue;
    if (is_pool(s) || is_upsample(s)) {
      plan_alu_step(s);
    } else {
      plan_conv(s);
    }
  }
  for (const Step& s : steps_) {  // each in-place concatenation's inputs: where each starts in it
    if (!s.in_place) continue;
    size_t offset = 0;
    for (const std::string& x : s.ops[0]->inputs) {
      in_place_[x] = {s.name, offset};
      offset += size_t(graph_.tensor(x).elements());
    }
  }
  for (const std::string& out : graph_.extra_outputs()) {  // (each is copied back from the step that ends in it)
    const bool ends_a_step = out == graph_.input_name() ||
                             std::any_of(steps_.begin(), steps_.end(), [&](const Step& s) { return s.name == out; });
    if (!ends_a_step) {
      throw GraphError(join({graph_.name(), ": the output ", out,
                             " is inside a VTA step, fused with the operators after it; place them on the host"}));
    }
  }
  const TilingTable planned = tilings();
  for (const auto& entry : plan_.tilings) {
    if (!planned.count(entry.first)) {
      throw GraphError(
          join({graph_.name(), ": a tuned tiling names step ", entry.first, ", which is no VTA convolution here"}));
    }
  }
  // every VTA program on the target, once
  device_->programs.resize(steps_.size());
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (steps_[i].module) device_->programs[i] = target_->load(*steps_[i].module, steps_[i].name);
  }
}

TilingTable Executor::tilings() const {
  TilingTable out;
  for (const Step& s : steps_) {
    if (s.module && !is_pool(s) && !is_upsample(s)) out[s.name] = s.tiling;
  }
  return out;
}

// A tiling with 3 or 4 virtual threads moves more data than the best with 1 or 2 (smaller tiles, their
// inputs and weights loaded more often: DRAM energy), and the estimate of its cycles is off by up to
// 1.5 % on ResNet-50's 1x1 layers (225,308 tsim cycles where 222,122 was chosen over it): it is taken
// only when estimated this much faster (MobileNetV2's depthwise layers gain far more).
constexpr double kMoreThreadsMargin = 0.02;

c::Env Executor::plan_env() const {
  c::Env env(config_);
  env.thread_banks = plan_.compute_issue == 2;
  return env;
}

EstimateOptions Executor::stage() const {
  EstimateOptions o;
  o.compute_issue = plan_.compute_issue;
  o.window = plan_.window;
  return o;
}

void Executor::plan_conv(Step& s) {
  const Graph& g = graph_;
  const c::Env env = plan_env();
  const Op& conv = *s.ops[0];
  for (const Op* op : convolutions(s)) {
    if (const std::string why = vta_refusal(g, *op, config_); !why.empty()) {
      throw GraphError(join({g.name(), ": ", op->name, ": ", why}));
    }
  }
  s.residual = residual_of(g, s);
  const ConvGeometry geometry = conv_geometry(config_, g, s);
  const auto build = [&](const ConvTiling& t) { return build_program(conv_program(g, s, env, t), env); };
  const std::string what = join({g.name(), ": ", conv.name});
  ChosenProgram chosen;
  const auto tuned = plan_.tilings.find(s.name);
  if (tuned != plan_.tilings.end()) {  // the tuned tiling, if it still fits and compiles
    if (!sram_need(geometry, s.residual, tuned->second).fits(config_)) {
      throw GraphError(join({g.name(), ": step ", s.name, ": the tuned tiling ", tuned->second.to_string(),
                             " does not fit this configuration's SRAMs"}));
    }
    chosen = choose_tiling({tuned->second}, build, config_, what, plan_.tried, stage());
  } else {
    // the ranked tilings with 1 or 2 virtual threads and, apart, those with 3 or 4 (more tiles in flight
    // where a tile's GEMMs are short: depthwise layers), the first `tried` of the first list and half as
    // many of the second (MobileNetV2: 16 gain 0.4 % more than 8, for 1.5 times the planning time); the
    // second's best only when its estimate is lower by more than kMoreThreadsMargin
    const int64_t most = plan_.max_virtual_threads;
    chosen =
        choose_tiling(tiling_candidates(config_, geometry, s.residual, plan_.candidates, 1, std::min<int64_t>(2, most)),
                      build, config_, what, plan_.tried, stage());
    // (a check that skipped this search when the best was already within the margin of the micro-ops'
    // own cycles read counts the estimate's recording does not make: it never skipped; counting them on
    // an fsim that does not execute cost ResNet-50's planning what the skipped searches saved)
    const std::vector<ConvTiling> more =
        most >= 3 ? tiling_candidates(config_, geometry, s.residual, plan_.candidates, 3, most)
                  : std::vector<ConvTiling>{};
    if (!more.empty()) {
      try {
        ChosenProgram other = choose_tiling(more, build, config_, what, std::max(1, plan_.tried / 2), stage());
        if (double(other.estimated_cycles) < double(chosen.estimated_cycles) * (1 - kMoreThreadsMargin)) {
          chosen = std::move(other);
        }
      } catch (const compiler::ScheduleError&) {  // none of them compiles: the first list's
      }
    }
  }
  s.tiling = chosen.tiling;
  s.estimated_cycles = chosen.estimated_cycles;
  s.module = chosen.module;
  for (const Op* op : convolutions(s)) {
    if (device_->weights.count(op->weight)) continue;
    const TensorDesc& w = g.tensor(op->weight);
    const bool diagonal = depthwise(g, *op);
    std::vector<int8_t> dense;
    if (diagonal) {  // (O, 1, K, K) as the block-diagonal (O, BLOCK_IN, K, K) of a grouped GEMM
      const int64_t kk = w.shape[2] * w.shape[3], block = env.BLOCK_IN;
      const std::vector<int8_t>& dw = g.weight(op->weight);
      dense.assign(size_t(w.shape[0] * block * kk), 0);
      for (int64_t c = 0; c < w.shape[0]; ++c) {
        for (int64_t t = 0; t < kk; ++t) dense[size_t((c * block + c % block) * kk + t)] = dw[size_t(c * kk + t)];
      }
    }
    const int64_t in_channels = diagonal ? env.BLOCK_IN : w.shape[1];
    // (channels short of a whole block: zero weights, channel_blocks)
    const int64_t ob = channel_blocks(w.shape[0], env.BLOCK_OUT), ib = channel_blocks(in_channels, env.BLOCK_IN);
    const int64_t kk = w.shape[2] * w.shape[3];
    const std::vector<int8_t> padded = resize_rows(diagonal ? dense : g.weight(op->weight), w.shape[0],
                                                   in_channels * kk, ib * env.BLOCK_IN * kk, ob * env.BLOCK_OUT);
    std::unique_ptr<Target::Tensor> d = target_->empty({ob, ib, w.shape[2], w.shape[3], env.BLOCK_OUT, env.BLOCK_IN},
                                                       op->weight, c::device_dtype(env.wgt_dtype));
    d->copy_from(vta::runtime::pack_oihw(padded, int(ob * env.BLOCK_OUT), int(ib * env.BLOCK_IN), int(w.shape[2]),
                                         int(w.shape[3]), env.BLOCK_OUT, env.BLOCK_IN));
    device_->weights.emplace(op->weight, std::move(d));
  }
  load_biases(s);
}

// The step's biases and channel factors on the target: (1, O / BLOCK_OUT, 1, 1, BATCH, BLOCK_OUT),
// replicated over the batch lanes.
void Executor::load_biases(const Step& s) {
  const Graph& g = graph_;
  const c::Env env(config_);
  const int64_t o = g.tensor(s.ops[0]->output).shape[1];
  std::vector<const Op*> ops = s.ops;
  ops.insert(ops.end(), s.shortcut.begin(), s.shortcut.end());
  for (const Op* op : ops) {
    if ((op->kind != OpKind::kBiasAdd && op->kind != OpKind::kScaleChannels) || device_->weights.count(op->weight)) {
      continue;
    }
    const std::vector<int8_t>& b = g.weight(op->weight);
    std::vector<int8_t> packed(size_t(channel_blocks(o, env.BLOCK_OUT) * env.BLOCK_OUT * env.BATCH), 0);
    for (int64_t ch = 0; ch < o; ++ch) {
      for (int64_t lane = 0; lane < env.BATCH; ++lane) {
        packed[size_t(((ch / env.BLOCK_OUT) * env.BATCH + lane) * env.BLOCK_OUT + ch % env.BLOCK_OUT)] = b[size_t(ch)];
      }
    }
    std::unique_ptr<Target::Tensor> d =
        target_->empty({1, channel_blocks(o, env.BLOCK_OUT), 1, 1, env.BATCH, env.BLOCK_OUT}, op->weight,
                       runtime::DType::kInt8);  // (loaded into the accumulator as int8: ACC_8BIT)
    d->copy_from(packed);
    device_->weights.emplace(op->weight, std::move(d));
  }
}

void Executor::plan_alu_step(Step& s) {
  const Graph& g = graph_;
  const c::Env env = plan_env();
  const Op& op = *s.ops[0];
  if (const std::string why = vta_refusal(g, op, config_); !why.empty()) {
    throw GraphError(join({g.name(), ": ", op.name, ": ", why}));
  }
  const bool up = is_upsample(s);
  const ChosenProgram chosen = choose_tiling(
      up ? upsample_tilings(config_, g, s) : pool_tilings(config_, g, s),
      [&](const ConvTiling& t) {
        return build_program(up ? upsample_program(g, s, env, t) : pool_program(g, s, env, t), env);
      },
      config_, join({g.name(), ": ", op.name}), kTilingsTried, stage());
  s.tiling = chosen.tiling;
  s.estimated_cycles = chosen.estimated_cycles;
  s.module = chosen.module;
  load_biases(s);
}

Executor::~Executor() = default;

// The values of one run: NCHW on the host, blocked on the target, each copied across once, when the
// other side first needs it.
class Executor::Activations {
 public:
  Activations(const Graph& g, const Config& config, Target& target, const InPlaceParts& in_place)
      : g_(g), env_(config), target_(target), in_place_(in_place) {}

  Values& host() { return host_; }

  const Target::Tensor* to_device(const std::string& name) {
    auto it = device_.find(name);
    if (it != device_.end()) return it->second.get();
    std::unique_ptr<Target::Tensor> t = make(name);
    upload(*t, g_.tensor(name), host_.at(name));
    return device_.emplace(name, std::move(t)).first->second.get();
  }

  const std::vector<int32_t>& to_host(const std::string& name) {
    auto it = host_.find(name);
    if (it != host_.end()) return it->second;
    const TensorDesc& d = g_.tensor(name);
    const int64_t c = padded_channels(d), n = d.shape[0], plane = d.shape[2] * d.shape[3];
    std::vector<int8_t> blocked(size_t(n * c * plane));
    device_.at(name)->copy_to(blocked);
    std::vector<int8_t> x = vta::runtime::unpack_nchw(blocked, int(n), int(c), int(d.shape[2]), int(d.shape[3]),
                                                      env_.BATCH, env_.BLOCK_OUT);
    if (c != d.shape[1]) x = resize_rows(x, n, c * plane, d.shape[1] * plane, n);  // (the padding dropped)
    return host_.emplace(name, widen(x)).first->second;
  }

  // `name` as 8-bit elements, what the accumulator's loads read (accumulator_inputs): the tensor itself
  // at 8-bit activations; at 4-bit ones a copy of its values made once, from the host.
  const Target::Tensor* to_device_8bit(const std::string& name) {
    if (env_.inp_dtype == c::DType::kInt8) return to_device(name);
    const std::string key = name + "#8-bit";
    if (const auto it = device_.find(key); it != device_.end()) return it->second.get();
    const TensorDesc& d = g_.tensor(name);
    std::unique_ptr<Target::Tensor> t = target_.empty(blocked_shape(d), key, vta::runtime::DType::kInt8);
    upload(*t, d, to_host(name));
    return device_.emplace(key, std::move(t)).first->second.get();
  }

  // The target tensor a VTA step writes `name` into.
  const Target::Tensor* output(const std::string& name) {
    auto it = device_.find(name);
    if (it == device_.end()) it = device_.emplace(name, make(name)).first;
    return it->second.get();
  }

 private:
  // A new target tensor for `name`: its part of an in-place concatenation (made first, on first
  // use), or its own.
  std::unique_ptr<Target::Tensor> make(const std::string& name) {
    const auto part = in_place_.find(name);
    if (part == in_place_.end()) {
      return target_.empty(blocked_shape(g_.tensor(name)), name, c::device_dtype(env_.inp_dtype));
    }
    return output(part->second.first)->view(part->second.second, blocked_shape(g_.tensor(name)), name);
  }

  // `values` (NCHW, of `d`'s shape) into target tensor `t` in the blocked layout, zeros in the channels
  // that fill the last block.
  void upload(Target::Tensor& t, const TensorDesc& d, const std::vector<int32_t>& values) const {
    const int64_t c = padded_channels(d), n = d.shape[0], plane = d.shape[2] * d.shape[3];
    std::vector<int8_t> x = narrow(values);
    if (c != d.shape[1]) x = resize_rows(x, n, d.shape[1] * plane, c * plane, n);
    t.copy_from(
        vta::runtime::pack_nchw(x, int(n), int(c), int(d.shape[2]), int(d.shape[3]), env_.BATCH, env_.BLOCK_IN));
  }

  // (channel_blocks: BLOCK_IN = BLOCK_OUT wherever a tensor's channels are padded)
  std::vector<int64_t> blocked_shape(const TensorDesc& d) const {
    return {d.shape[0] / env_.BATCH, channel_blocks(d.shape[1], env_.BLOCK_OUT), d.shape[2], d.shape[3], env_.BATCH,
            env_.BLOCK_OUT};
  }
  int64_t padded_channels(const TensorDesc& d) const {
    return channel_blocks(d.shape[1], env_.BLOCK_OUT) * env_.BLOCK_OUT;
  }

  const Graph& g_;
  const c::Env env_;
  Target& target_;
  const InPlaceParts& in_place_;
  Values host_;
  std::map<std::string, std::unique_ptr<Target::Tensor>> device_;
};

void Executor::inputs_from_reference(Values& host, size_t first, size_t last, const Values& reference) const {
  for (size_t i = first; i < last; ++i) {
    for (const auto& in : steps_[i].inputs) {
      if (!host.count(in) && reference.count(in)) host[in] = reference.at(in);
    }
  }
}

std::pair<size_t, size_t> Executor::slice(const RunOptions& options, const Values* reference) const {
  const auto range = step_range(graph_, steps_, options.first, options.last);
  if (range.first > 0 && reference == nullptr) {
    throw GraphError(graph_.name() + ": a slice takes its inputs from the reference");
  }
  return range;
}

StepResult Executor::run_step(size_t i, Activations& values, const RunOptions& options, const Values* reference) {
  const Graph& g = graph_;
  const Step& s = steps_[i];
  StepResult r;
  r.step = &s;
  const auto start = Clock::now();
  if (s.in_place) {  // (its inputs' steps wrote it; a slice's inputs from the reference go there now)
    for (const auto& name : s.ops[0]->inputs) values.to_device(name);
    r.seconds = seconds_since(start);
  } else if (s.placement == Placement::kHost) {
    Values in;
    for (const auto& name : s.inputs) in[name] = values.to_host(name);
    values.host()[s.name] = reference_op(g, *s.ops[0], in);
    r.seconds = seconds_since(start);
  } else {
    const std::vector<std::string> wide = accumulator_inputs(s);
    const auto input = [&](const std::string& name) {
      return std::count(wide.begin(), wide.end(), name) > 0 ? values.to_device_8bit(name) : values.to_device(name);
    };
    std::vector<const Target::Tensor*> args{input(s.inputs[0])};
    if (s.ops[0]->kind == OpKind::kConv2d) args.push_back(device_->weights.at(s.ops[0]->weight).get());
    // a chain's vectors in conv_program's order: the bias, then the factors
    const auto vectors = [&](const std::vector<const Op*>& ops) {
      for (const OpKind kind : {OpKind::kBiasAdd, OpKind::kScaleChannels}) {
        for (const Op* op : ops) {
          if (op->kind == kind) args.push_back(device_->weights.at(op->weight).get());
        }
      }
    };
    vectors(s.ops);
    if (s.inputs.size() > 1) args.push_back(input(s.inputs[1]));
    if (!s.shortcut.empty()) {  // (its weight, then its vectors)
      args.push_back(device_->weights.at(s.shortcut[0]->weight).get());
      vectors(s.shortcut);
    }
    std::unique_ptr<Target::Tensor> reshaped;  // (an upsample's output as its program addresses it)
    if (is_upsample(s)) {
      reshaped = values.output(s.name)->view(0, upsample_shape(g, s, c::Env(config_)), s.name);
      args.push_back(reshaped.get());
    } else {
      args.push_back(values.output(s.name));
    }
    const auto run_start = Clock::now();
    r.stats = device_->programs.at(i)->run(args);
    r.seconds = seconds_since(run_start);
  }
  r.outputs = g.tensor(s.name).elements();
  if (options.verify && reference != nullptr) {
    const std::vector<int32_t>& got = values.to_host(s.name);
    const std::vector<int32_t>& want = reference->at(s.name);
    r.mismatches = 0;
    for (size_t e = 0; e < got.size(); ++e) r.mismatches += got[e] != want[e];
  }
  return r;
}

const std::string& Executor::output_step(size_t begin, size_t end) const {
  for (size_t i = begin; i < end; ++i) {
    if (steps_[i].name == graph_.output_name()) return steps_[i].name;
  }
  return steps_[end - 1].name;  // (a slice that ends before the output: its last step's)
}

unsigned resolve_jobs(int64_t requested) {
  if (requested < 0 || requested > int64_t(kMaxJobs)) {
    throw GraphError("jobs = " + std::to_string(requested) + ": steps at once are from 1 to " +
                     std::to_string(kMaxJobs) + " (0: one per core)");
  }
  return requested != 0 ? unsigned(requested) : std::max(1U, std::thread::hardware_concurrency());
}

NetworkRun Executor::run(std::span<const int8_t> input, const RunOptions& options, const Values* reference) {
  const Graph& g = graph_;
  const auto t0 = Clock::now();
  const auto [begin, end] = slice(options, reference);
  if (options.jobs > 1 && end - begin > 1 && target_->concurrent()) {
    if (reference == nullptr) {
      throw GraphError(g.name() + ": steps run at once (jobs " + std::to_string(options.jobs) +
                       ") take their inputs from the reference");
    }
    return run_concurrently(input, begin, end, options, *reference);
  }
  Activations values(g, config_, *target_, in_place_);
  Values& host = values.host();
  host[g.input_name()] = widen(input);
  if (begin > 0) inputs_from_reference(host, begin, end, *reference);  // (the slice's)
  NetworkRun result;
  for (size_t i = begin; i < end; ++i) {
    result.steps.push_back(run_step(i, values, options, reference));
    if (steps_[i].placement == Placement::kVta) result.vta += result.steps.back().stats;
  }
  result.output_name = output_step(begin, end);
  result.output = values.to_host(result.output_name);
  for (size_t i = begin; i < end; ++i) {
    if (ends_in_extra_output(g, steps_[i])) result.extra_outputs[steps_[i].name] = values.to_host(steps_[i].name);
  }
  result.seconds = seconds_since(t0);
  return result;
}

// Each thread takes the next step not taken yet and runs it as a one-step slice: the reference's
// values of its inputs copied to the target (its own Activations), its program run on the thread's
// worker (a device of its own, made once for the executor's runs), its output compared. The calling
// thread is one of them.
NetworkRun Executor::run_concurrently(std::span<const int8_t> input, size_t begin, size_t end,
                                      const RunOptions& options, const Values& reference) {
  const auto t0 = Clock::now();
  NetworkRun result;
  result.steps.resize(end - begin);
  std::atomic<size_t> next{begin};
  std::atomic<bool> failed{false};
  std::mutex mu;  // (the first error, the further outputs)
  std::exception_ptr error;
  const std::vector<int32_t> x = widen(input);
  const std::string& output = output_step(begin, end);
  const size_t threads_wanted = std::min<size_t>(options.jobs, end - begin);
  while (workers_.size() < threads_wanted) workers_.push_back(target_->worker());
  auto steps = [&] {
    for (size_t i = next++; i < end && !failed; i = next++) {
      const Step& s = steps_[i];
      Activations values(graph_, config_, *target_, in_place_);
      Values& host = values.host();
      if (std::count(s.inputs.begin(), s.inputs.end(), graph_.input_name()) != 0) host[graph_.input_name()] = x;
      inputs_from_reference(host, i, i + 1, reference);
      result.steps[i - begin] = run_step(i, values, options, &reference);
      if (s.name == output) result.output = values.to_host(s.name), result.output_name = s.name;
      if (ends_in_extra_output(graph_, s)) {
        std::vector<int32_t> extra = values.to_host(s.name);
        const std::lock_guard lock(mu);
        result.extra_outputs[s.name] = std::move(extra);
      }
    }
  };
  auto work = [&](Target::Worker& worker) {
    try {
      worker.run(steps);
    } catch (...) {
      const std::lock_guard lock(mu);
      if (!error) error = std::current_exception();
      failed = true;
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < threads_wanted; ++t) threads.emplace_back(work, std::ref(*workers_[t]));
  work(*workers_[0]);
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);
  for (size_t i = begin; i < end; ++i) {
    if (steps_[i].placement == Placement::kVta) result.vta += result.steps[i - begin].stats;
  }
  result.seconds = seconds_since(t0);
  return result;
}

}  // namespace vta::network
