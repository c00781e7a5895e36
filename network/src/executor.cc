#include "vta/network/executor.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include "vta/compiler/te.h"
#include "vta/runtime_context.h"
#include "vta/tensor.h"
#include "vta/timeline.h"

namespace vta::net {
namespace {

using Clock = std::chrono::steady_clock;
namespace c = vta::compiler;

std::string join(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (const auto p : parts) s.append(p);
  return s;
}

// ---- fusion ---------------------------------------------------------------------------------------

// The operators fused after a VTA convolution: a chain of elementwise operators, each the only reader
// of the one before, ending with the int8 cast (VTA stores int8).
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
    const bool elementwise = op.kind == OpKind::kShr || op.kind == OpKind::kAdd || op.kind == OpKind::kRelu ||
                             op.kind == OpKind::kClip || op.kind == OpKind::kCast;
    if (!elementwise || op.placement != Placement::kVta || op.inputs[0] != current) {
      throw GraphError(join({g.name(), ": ", op.name, " (", to_string(op.kind), ", ", to_string(op.placement),
                             ") reads the int32 result of VTA convolution ", conv.name,
                             "; the chain after a VTA convolution must be VTA shr/add/relu/clip ending in a cast"}));
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
bool residual_starts_sum(const Graph& g, const Step& step) {
  const Op& conv = *step.ops[0];
  if (step.ops.size() < 3 || step.ops[1]->kind != OpKind::kShr || step.ops[2]->kind != OpKind::kAdd) return false;
  const int shift = step.ops[1]->shift;
  const int64_t channels = g.tensor(conv.inputs[0]).shape[1];
  const int64_t conv_max = channels * conv.kernel * conv.kernel * 128 * 128;
  return shift >= 0 && shift <= 23 && conv_max + (int64_t{128} << shift) <= std::numeric_limits<int32_t>::max();
}

Residual residual_of(const Graph& g, const Step& step) {
  if (step.inputs.size() < 2) return Residual::kNone;
  if (!step.shortcut.empty()) return Residual::kShortcut;
  return residual_starts_sum(g, step) ? Residual::kSumInit : Residual::kAluAdd;
}

// A VTA step that is a 1x1 convolution chain whose int8 result is within int8 before its cast (the
// chain ends with a clip inside [-128, 127]): its value can stay in the accumulator.
bool is_shortcut_chain(const Step& s) {
  if (s.placement != Placement::kVta || s.ops.size() < 3 || s.ops[0]->kind != OpKind::kConv2d) return false;
  const Op& conv = *s.ops[0];
  if (conv.kernel != 1 || conv.pad != 0 || s.inputs.size() != 1) return false;
  const Op& before_cast = *s.ops[s.ops.size() - 2];
  if (before_cast.kind != OpKind::kClip || before_cast.lo < -128 || before_cast.hi > 127) return false;
  for (size_t i = 1; i + 1 < s.ops.size(); ++i) {
    const OpKind k = s.ops[i]->kind;
    if (k != OpKind::kShr && k != OpKind::kRelu && k != OpKind::kClip) return false;
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
      s.description =
          join({"conv2d ", std::to_string(op.kernel), "x", std::to_string(op.kernel), "/", std::to_string(op.stride)});
      for (size_t i = 1; i < s.ops.size(); ++i) {
        s.description.append(" + ").append(to_string(s.ops[i]->kind));
        if (s.ops[i]->kind == OpKind::kAdd) s.inputs.push_back(s.ops[i]->inputs[1]);
      }
    } else if (op.kind == OpKind::kMaxPool) {
      s.ops = {&op};
      s.inputs = op.inputs;
      s.description = join(
          {"max_pool ", std::to_string(op.kernel), "x", std::to_string(op.kernel), "/", std::to_string(op.stride)});
    } else {
      throw GraphError(join({g.name(), ": ", op.name, " (", to_string(op.kind),
                             ") is placed on VTA, which runs convolutions with the elementwise operators fused after",
                             " them, and max pools; place it on the host"}));
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

// ---- one VTA program: a convolution and its fused chain -------------------------------------------

// How the executor builds its programs: the load stage runs a tile ahead (its buffers are free once
// a tile's last GEMM is done; the ALU stages and accumulator loads that end the tile overlap it).
c::BuildOptions build_options() {
  c::BuildOptions o;
  o.overlap_tiles = true;
  return o;
}

// A 1x1 convolution with a stride reads only every stride-th input row: its input buffer holds just
// those rows (one 2D transfer with a row stride of stride rows). conv_program builds the buffer that
// way and tiling_candidates sizes and counts it that way.
bool loads_only_read_rows(int64_t kernel, int64_t pad, int64_t stride) { return kernel == 1 && pad == 0 && stride > 1; }

// The convolutions a VTA convolution step runs: its own, then its shortcut's if it has one.
std::vector<const Op*> convolutions(const Step& s) {
  std::vector<const Op*> c{s.ops[0]};
  if (!s.shortcut.empty()) c.push_back(s.shortcut[0]);
  return c;
}

struct ConvProgram {
  c::Schedule schedule;
  std::vector<c::Tensor> args;  // data, kernel, [residual], res
};

ConvProgram conv_program(const Graph& g, const Step& step, const c::Env& env, const ConvTiling& t) {
  const Op& conv = *step.ops[0];
  const TensorDesc& in = g.tensor(conv.inputs[0]);
  const TensorDesc& out = g.tensor(conv.output);
  const int64_t n = in.shape[0], ch = in.shape[1], h = in.shape[2], w = in.shape[3], o = out.shape[1];
  const int64_t k = conv.kernel, p = conv.pad, stride = conv.stride, oh = out.shape[2], ow = out.shape[3];
  using c::Indices;
  c::Tensor data =
      c::placeholder({n / env.BATCH, ch / env.BLOCK_IN, h, w, env.BATCH, env.BLOCK_IN}, "data", c::DType::kInt8);
  c::Tensor kernel = c::placeholder({o / env.BLOCK_OUT, ch / env.BLOCK_IN, k, k, env.BLOCK_OUT, env.BLOCK_IN}, "kernel",
                                    c::DType::kInt8);
  const bool skip_rows = loads_only_read_rows(k, p, stride);
  c::Tensor data_buf = skip_rows ? c::compute(
                                       {n / env.BATCH, ch / env.BLOCK_IN, oh, w, env.BATCH, env.BLOCK_IN},
                                       [&](const Indices& i) {
                                         return c::read(data, {i[0], i[1], c::Expr(i[2]) * stride, i[3], i[4], i[5]});
                                       },
                                       "data_buf")
                                 : c::pad(data, {0, 0, p, p, 0, 0}, {0, 0, p, p, 0, 0}, "data_buf");
  const int64_t row_stride = skip_rows ? 1 : stride;
  auto at = [](const c::Tensor& x, const Indices& i) { return c::read(x, {i[0], i[1], i[2], i[3], i[4], i[5]}); };
  c::Tensor kernel_buf = c::compute(
      kernel->shape, [&](const Indices& i) { return at(kernel, i); }, "kernel_buf");
  c::IterVar dy = c::reduce_axis(k, "dy"), dx = c::reduce_axis(k, "dx"), ic = c::reduce_axis(ch / env.BLOCK_IN, "ic"),
             ic_tns = c::reduce_axis(env.BLOCK_IN, "ic_tns");
  const std::vector<int64_t> shape{n / env.BATCH, o / env.BLOCK_OUT, oh, ow, env.BATCH, env.BLOCK_OUT};
  std::vector<c::Tensor> alu;  // the ALU stages, in order
  // an elementwise operator after `prev` as ALU stages (clip: MAX then MIN); the last one's tensor
  auto elementwise = [&](const Op& op, c::Tensor prev, const std::string& prefix) {
    auto stage = [&](const std::string& name, const std::function<c::Expr(const Indices&)>& body) {
      prev = c::compute(shape, body, prefix + name + std::to_string(alu.size()));
      alu.push_back(prev);
    };
    switch (op.kind) {
      case OpKind::kShr: stage("shr", [&](const Indices& x) { return at(prev, x) >> op.shift; }); break;
      case OpKind::kRelu: stage("relu", [&](const Indices& x) { return c::max(at(prev, x), 0); }); break;
      case OpKind::kClip: {
        if (op.lo != std::numeric_limits<int32_t>::min()) {
          stage("clip_lo", [&](const Indices& x) { return c::max(at(prev, x), int64_t(op.lo)); });
        }
        if (op.hi != std::numeric_limits<int32_t>::max()) {
          stage("clip_hi", [&](const Indices& x) { return c::min(at(prev, x), int64_t(op.hi)); });
        }
        break;
      }
      default: throw GraphError(join({g.name(), ": ", op.name, ": not an operator VTA fuses after a convolution"}));
    }
    return prev;
  };
  c::Tensor residual, residual_buf;
  auto load_residual = [&] {
    residual = c::placeholder(shape, "residual", c::DType::kInt8);
    residual_buf = c::compute(
        shape, [&](const Indices& x) { return c::cast(env.acc_dtype, at(residual, x)); }, "residual_buf");
  };
  // the shortcut (Residual::kShortcut): a 1x1 convolution of its own input into the accumulator, its
  // chain on the ALU (the final cast is the identity: the chain ends clipped to int8)
  const bool shortcut = step.residual == Residual::kShortcut;
  c::Tensor sc_data, sc_kernel, sc_data_buf, sc_kernel_buf, sc_conv, shortcut_value;
  c::IterVar sc_ic, sc_ic_tns;
  if (shortcut) {
    const Op& sc = *step.shortcut[0];
    const TensorDesc& sin = g.tensor(sc.inputs[0]);
    const int64_t sch = sin.shape[1], sh = sin.shape[2], sw = sin.shape[3], ss = sc.stride;
    sc_data = c::placeholder({n / env.BATCH, sch / env.BLOCK_IN, sh, sw, env.BATCH, env.BLOCK_IN}, "shortcut_data",
                             c::DType::kInt8);
    sc_kernel = c::placeholder({o / env.BLOCK_OUT, sch / env.BLOCK_IN, 1, 1, env.BLOCK_OUT, env.BLOCK_IN},
                               "shortcut_kernel", c::DType::kInt8);
    const bool sc_skip = loads_only_read_rows(1, 0, ss);
    const int64_t sc_rows = sc_skip ? oh : sh, sc_row_step = sc_skip ? ss : 1;
    sc_data_buf = c::compute(
        {n / env.BATCH, sch / env.BLOCK_IN, sc_rows, sw, env.BATCH, env.BLOCK_IN},
        [&](const Indices& i) {
          return c::read(sc_data, {i[0], i[1], c::Expr(i[2]) * sc_row_step, i[3], i[4], i[5]});
        },
        "shortcut_data_buf");
    sc_kernel_buf = c::compute(
        sc_kernel->shape, [&](const Indices& i) { return at(sc_kernel, i); }, "shortcut_kernel_buf");
    sc_ic = c::reduce_axis(sch / env.BLOCK_IN, "sc_ic");
    sc_ic_tns = c::reduce_axis(env.BLOCK_IN, "sc_ic_tns");
    sc_conv = c::compute(
        shape, {"sbo", "sco", "si", "sj", "sbi", "sci"},
        [&](const Indices& x) {
          return c::sum(
              c::cast(env.acc_dtype, c::read(sc_data_buf, {x[0], sc_ic.var, c::Expr(x[2]) * (ss / sc_row_step),
                                                           c::Expr(x[3]) * ss, x[4], sc_ic_tns.var})) *
                  c::cast(env.acc_dtype, c::read(sc_kernel_buf, {x[1], sc_ic.var, c::make_int(0), c::make_int(0), x[5],
                                                                 sc_ic_tns.var})),
              {sc_ic, sc_ic_tns});
        },
        "shortcut_conv");
    shortcut_value = sc_conv;
    for (size_t i = 1; i + 1 < step.shortcut.size(); ++i) {
      shortcut_value = elementwise(*step.shortcut[i], shortcut_value, "shortcut_");
    }
  }
  // the sum's initial value: the residual (kSumInit) or the shortcut's value (kShortcut) shifted
  // left, else 0
  const bool sum_init = step.residual == Residual::kSumInit || shortcut;
  c::Tensor start;
  if (sum_init) {
    if (!shortcut) load_residual();
    const c::Tensor r = shortcut ? shortcut_value : residual_buf;
    const int shift = step.ops[1]->shift;
    start = shift == 0 ? r
                       : c::compute(
                             shape, [&](const Indices& x) { return at(r, x) >> -shift; }, "residual_shl");
    if (shift != 0) alu.push_back(start);
  }
  c::Tensor res_conv = c::compute(
      shape, {"bo", "co", "i", "j", "bi", "ci"},
      [&](const Indices& x) {
        c::Expr product =
            c::cast(env.acc_dtype, c::read(data_buf, {x[0], ic.var, c::Expr(x[2]) * row_stride + dy.var,
                                                      c::Expr(x[3]) * stride + dx.var, x[4], ic_tns.var})) *
            c::cast(env.acc_dtype, c::read(kernel_buf, {x[1], ic.var, dy.var, dx.var, x[5], ic_tns.var}));
        return start ? c::sum(product, {ic, dy, dx, ic_tns}, at(start, x)) : c::sum(product, {ic, dy, dx, ic_tns});
      },
      "res_conv");
  // the fused chain: each operator one ALU stage (clip: MAX then MIN), the cast the store
  c::Tensor cur = res_conv, res;
  for (size_t i = 1; i < step.ops.size(); ++i) {
    const Op& op = *step.ops[i];
    const c::Tensor prev = cur;
    if (sum_init && op.kind == OpKind::kAdd) continue;  // (the sum started from the residual)
    switch (op.kind) {
      case OpKind::kAdd:
        load_residual();
        // (the residual read first: its stage comes first in the tile, so its accumulator load, on
        // the compute stage, runs while the load stage fetches the tile's first inputs; 8k cycles
        // less on layer1.0 than after the GEMMs)
        cur = c::compute(
            shape, [&](const Indices& x) { return at(residual_buf, x) + at(prev, x); },
            "add" + std::to_string(alu.size()));
        alu.push_back(cur);
        break;
      case OpKind::kCast:
        res = c::compute(
            shape, [&](const Indices& x) { return c::cast(env.inp_dtype, at(prev, x)); }, "res");
        break;
      default: cur = elementwise(op, prev, "");
    }
  }
  std::vector<c::Tensor> args{data, kernel};
  if (residual) args.push_back(residual);
  if (shortcut) args.insert(args.end(), {sc_data, sc_kernel});
  args.push_back(res);

  c::Schedule s = c::create_schedule(res);
  const auto& ax = res->op->axis;  // b, oc, y, x, b_tns, oc_tns
  auto [b_out, b_inn] = s[res].split(ax[0], 1);
  auto [oc_out, oc_inn] = s[res].split(ax[1], t.oc_block);
  auto [y_out, y_inn] = s[res].split(ax[2], t.h_block);
  auto [x_out, x_inn] = s[res].split(ax[3], t.w_block);
  s[res].reorder({b_out, oc_out, y_out, x_out, b_inn, oc_inn, y_inn, x_inn, ax[4], ax[5]});
  s[res_conv].compute_at(s[res], x_out);
  for (const c::Tensor& a : alu) s[a].compute_at(s[res], x_out);
  const auto& cx = res_conv->op->axis;
  auto [ic_out, ic_inn] = s[res_conv].split(ic, t.ic_block);
  s[res_conv].reorder({ic_out, cx[0], cx[1], cx[2], ic_inn, dy, dx, cx[3], cx[4], cx[5], ic_tns});
  if (t.virtual_threads > 1) {
    auto [oc_rest, tx] = s[res].split(oc_out, t.virtual_threads);
    (void)oc_rest;
    s[res].reorder({tx, b_out});
    s[res].bind(tx, "cthread");
  }
  s[data_buf].set_scope(env.inp_scope);
  s[kernel_buf].set_scope(env.wgt_scope);
  s[res_conv].set_scope(env.acc_scope);
  for (const c::Tensor& a : alu) s[a].set_scope(env.acc_scope);
  s[data_buf].compute_at(s[res_conv], ic_out);
  s[kernel_buf].compute_at(s[res_conv], ic_out);
  s[data_buf].pragma(data_buf->op->axis[0], env.dma_copy);
  s[kernel_buf].pragma(kernel_buf->op->axis[0], env.dma_copy);
  if (residual_buf) {
    s[residual_buf].set_scope(env.acc_scope);
    s[residual_buf].compute_at(s[res], x_out);
    s[residual_buf].pragma(residual_buf->op->axis[0], env.dma_copy);
  }
  if (shortcut) {
    s[sc_conv].compute_at(s[res], x_out);
    s[sc_conv].set_scope(env.acc_scope);
    const auto& sx = sc_conv->op->axis;
    auto [sic_out, sic_inn] = s[sc_conv].split(sc_ic, shortcut_ic_block(t.ic_block, sc_ic.extent));
    s[sc_conv].reorder({sic_out, sx[0], sx[1], sx[2], sic_inn, sx[3], sx[4], sx[5], sc_ic_tns});
    s[sc_data_buf].set_scope(env.inp_scope);
    s[sc_kernel_buf].set_scope(env.wgt_scope);
    for (const c::Tensor& b : {sc_data_buf, sc_kernel_buf}) {
      s[b].compute_at(s[sc_conv], sic_out);
      s[b].pragma(b->op->axis[0], env.dma_copy);
    }
    s[sc_conv].tensorize(sx[4], "gemm");
  }
  s[res].pragma(y_inn, env.dma_copy);
  s[res_conv].tensorize(cx[4], "gemm");
  for (const c::Tensor& a : alu) s[a].pragma(a->op->axis[0], env.alu);
  return {std::move(s), std::move(args)};
}

// ---- one VTA program: a max pool on the ALU ---------------------------------------------------------

// Whether every value of `tensor` is >= 0: it comes (through casts) from a ReLU or a clip at >= 0.
bool non_negative(const Graph& g, std::string tensor) {
  for (;;) {
    if (tensor == g.input_name()) return false;
    const Op& p = g.producer(tensor);
    if (p.kind == OpKind::kRelu || (p.kind == OpKind::kClip && p.lo >= 0)) return true;
    if (p.kind != OpKind::kCast && p.kind != OpKind::kMaxPool) return false;
    tensor = p.inputs[0];
  }
}

// The input tile (with its halo, zero-padded by the DMA, sign-extended into the accumulator with
// ACC_8BIT) and the output tile, both in the accumulator: a copy of the window's first element, then
// one MAX stage per other element (in place), the int8 store. Tiles: c_block channel blocks x h_block
// output rows x the whole width, output-channel tiles shared among virtual threads.
ConvProgram pool_program(const Graph& g, const Step& step, const c::Env& env, const ConvTiling& t) {
  const Op& pool = *step.ops[0];
  const TensorDesc& in = g.tensor(pool.inputs[0]);
  const TensorDesc& out = g.tensor(pool.output);
  const int64_t n = in.shape[0], ch = in.shape[1], h = in.shape[2], w = in.shape[3];
  const int64_t k = pool.kernel, p = pool.pad, stride = pool.stride, oh = out.shape[2], ow = out.shape[3];
  using c::Indices;
  const std::vector<int64_t> in_shape{n / env.BATCH, ch / env.BLOCK_IN, h, w, env.BATCH, env.BLOCK_IN};
  c::Tensor data = c::placeholder(in_shape, "data", c::DType::kInt8);
  c::Tensor data_buf = c::compute(
      {in_shape[0], in_shape[1], h + 2 * p, w + 2 * p, env.BATCH, env.BLOCK_IN},
      [&](const Indices& i) {
        const c::Expr value = c::read(data, {i[0], i[1], c::Expr(i[2]) - p, c::Expr(i[3]) - p, i[4], i[5]});
        if (p == 0) return c::cast(env.acc_dtype, value);
        const c::Expr inside =
            c::logical_and(c::logical_and(c::Expr(i[2]) >= c::make_int(p), c::Expr(i[2]) < c::make_int(p + h)),
                           c::logical_and(c::Expr(i[3]) >= c::make_int(p), c::Expr(i[3]) < c::make_int(p + w)));
        return c::cast(env.acc_dtype, c::select(inside, value, c::make_int(0, c::DType::kInt8)));
      },
      "data_buf");
  const std::vector<int64_t> shape{n / env.BATCH, ch / env.BLOCK_OUT, oh, ow, env.BATCH, env.BLOCK_OUT};
  auto window = [&](const Indices& x, int64_t dy, int64_t dx) {
    return c::read(data_buf, {x[0], x[1], c::Expr(x[2]) * stride + dy, c::Expr(x[3]) * stride + dx, x[4], x[5]});
  };
  std::vector<c::Tensor> alu;
  alu.push_back(c::compute(
      shape, [&](const Indices& x) { return window(x, 0, 0); }, "win0"));
  for (int64_t e = 1; e < k * k; ++e) {
    const c::Tensor prev = alu.back();
    alu.push_back(c::compute(
        shape,
        [&](const Indices& x) {
          return c::max(c::read(prev, {x[0], x[1], x[2], x[3], x[4], x[5]}), window(x, e / k, e % k));
        },
        "win" + std::to_string(e)));
  }
  const c::Tensor last = alu.back();
  c::Tensor res = c::compute(
      shape,
      [&](const Indices& x) {
        return c::cast(env.inp_dtype, c::read(last, {x[0], x[1], x[2], x[3], x[4], x[5]}));
      },
      "res");
  c::Schedule s = c::create_schedule(res);
  const auto& ax = res->op->axis;  // b, c, y, x, b_tns, c_tns
  auto [b_out, b_inn] = s[res].split(ax[0], 1);
  auto [c_out, c_inn] = s[res].split(ax[1], t.oc_block);
  auto [y_out, y_inn] = s[res].split(ax[2], t.h_block);
  s[res].reorder({b_out, c_out, y_out, b_inn, c_inn, y_inn, ax[3], ax[4], ax[5]});
  if (t.virtual_threads > 1) {
    auto [c_rest, tx] = s[res].split(c_out, t.virtual_threads);
    (void)c_rest;
    s[res].reorder({tx, b_out});
    s[res].bind(tx, "cthread");
  }
  s[data_buf].set_scope(env.acc_scope);
  s[data_buf].compute_at(s[res], y_out);
  s[data_buf].pragma(data_buf->op->axis[0], env.dma_copy);
  for (const c::Tensor& a : alu) {
    s[a].set_scope(env.acc_scope);
    s[a].compute_at(s[res], y_out);
    s[a].pragma(a->op->axis[0], env.alu);
  }
  s[res].pragma(y_inn, env.dma_copy);
  return {std::move(s), {data, res}};
}

/// The pool tilings whose input and output tiles fit the accumulator, largest tiles first.
std::vector<ConvTiling> pool_tilings(const Config& config, const Graph& g, const Op& pool) {
  const TensorDesc& in = g.tensor(pool.inputs[0]);
  const TensorDesc& out = g.tensor(pool.output);
  const int64_t blocks = in.shape[1] / config.block_in(), oh = out.shape[2], ow = out.shape[3];
  const int64_t wp = in.shape[3] + 2 * pool.pad;
  std::vector<std::pair<int64_t, ConvTiling>> scored;  // tiles (fewer first)
  for (const int64_t vt : {int64_t{2}, int64_t{1}}) {
    for (int64_t cb = 1; cb <= blocks; ++cb) {
      if (blocks % cb != 0 || (blocks / cb) % vt != 0) continue;
      for (int64_t hb = 1; hb <= oh; ++hb) {
        if (oh % hb != 0) continue;
        const int64_t need = cb * (((hb - 1) * pool.stride + pool.kernel) * wp + hb * ow) * vt;
        if (need > int64_t(config.acc_depth())) continue;
        scored.push_back({(blocks / cb) * (oh / hb), {cb, hb, ow, 1, vt}});
      }
    }
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<ConvTiling> out_tilings;
  out_tilings.reserve(scored.size());
  for (const auto& [tiles, t] : scored) out_tilings.push_back(t);
  return out_tilings;
}

std::vector<int32_t> widen(std::span<const int8_t> v) { return {v.begin(), v.end()}; }
std::vector<int8_t> narrow(const std::vector<int32_t>& v) {
  std::vector<int8_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<int8_t>(v[i]);
  return out;
}

// ---- choosing a tiling by the program it makes ----------------------------------------------------

// A device that runs nothing: it keeps each instruction stream it is given (a module's program does
// not depend on the data, so running it here costs only the runtime's work).
class RecordingDevice final : public Device {
 public:
  RecordingDevice(const Config& config, const Dram& dram) : config_(config), dram_(dram) {}
  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t /*budget*/) override {
    const uint8_t* p = dram_.translate(insn_addr, size_t(count) * Config::kInsnElemBytes);
    if (p == nullptr) {
      error_ = "the instruction stream is outside memory";
      return RunStatus::kError;
    }
    std::vector<RawInsn>& run = streams.emplace_back();
    run.reserve(count);
    for (uint32_t i = 0; i < count; ++i) run.push_back(load_insn(p + size_t(i) * Config::kInsnElemBytes));
    return RunStatus::kOk;
  }
  const Stats& stats() const override { return stats_; }
  void clear_stats() override {}
  TokenCounts tokens() const override { return {}; }
  const std::string& last_error() const override { return error_; }
  ErrorKind last_error_kind() const override { return error_.empty() ? ErrorKind::kNone : ErrorKind::kInternal; }
  std::string_view target() const override { return "estimate"; }
  const Config& config() const override { return config_; }
  std::vector<std::vector<RawInsn>> streams;

 private:
  Config config_;
  const Dram& dram_;
  Stats stats_;
  std::string error_;
};

// The cycles a module should take: its instruction streams, recorded from a run on scratch memory,
// through the timeline estimate (vta/timeline.h: the fsim's order, the token rules, bus and latency
// costs per instruction).
uint64_t estimated_cycles(const c::Module& module, const Config& config) {
  Dram dram(30);
  auto device = std::make_unique<RecordingDevice>(config, dram);
  RecordingDevice& recorder = *device;
  runtime::Context ctx(std::move(device), dram);
  std::vector<void*> host, handles;
  for (const c::Tensor& t : module.args()) {
    const size_t bytes = size_t(t->elements()) * (t->dtype == c::DType::kInt32 ? 4 : 1);
    host.push_back(dram.alloc(bytes));
    handles.push_back(ctx.wrap_buffer(dram.phys_addr(host.back()), bytes, t->name));
  }
  {
    runtime::Context::Scope use(ctx);
    module.call(handles);
  }
  for (void* h : handles) ctx.release_buffer(h);
  for (void* h : host) dram.free(h);
  const Isa isa(config);
  uint64_t cycles = 0;
  for (const auto& stream : recorder.streams) cycles += estimate_timeline(isa, stream).cycles;
  return cycles;
}

}  // namespace

std::string ConvTiling::to_string() const {
  return join({"oc ", std::to_string(oc_block), " h ", std::to_string(h_block), " w ", std::to_string(w_block), " ic ",
               std::to_string(ic_block), " vt ", std::to_string(virtual_threads)});
}

bool NetworkRun::verified() const {
  return std::all_of(steps.begin(), steps.end(), [](const StepResult& r) { return r.mismatches == 0; });
}

int64_t shortcut_ic_block(int64_t ic_block, int64_t blocks) { return std::gcd(ic_block, blocks); }

std::vector<ConvTiling> tiling_candidates(const Config& config, const TensorDesc& input, int64_t out_channels,
                                          int kernel, int stride, Residual residual, const TensorDesc* shortcut_input,
                                          int shortcut_stride) {
  const int64_t in_blocks = input.shape[1] / config.block_in(), oc_blocks = out_channels / config.block_out();
  const int64_t batches = input.shape[0] / config.batch();
  const int64_t pad = kernel / 2, k = kernel;
  const int64_t oh = (input.shape[2] + 2 * pad - k) / stride + 1, ow = (input.shape[3] + 2 * pad - k) / stride + 1;
  const int64_t acc = config.acc_depth(), inp = config.inp_depth(), wgt = config.wgt_depth();
  const double beat = config.bus_width() / 8.0;
  const double inp_elem = config.inp_elem_bytes(), wgt_elem = config.wgt_elem_bytes(),
               acc_elem = config.acc_elem_bytes();
  auto divisors = [](int64_t n) {
    std::vector<int64_t> d;
    for (int64_t i = 1; i <= n; ++i) {
      if (n % i == 0) d.push_back(i);
    }
    return d;
  };
  // The cycles a tiling should take, from the traffic the schedule makes: weights once per spatial
  // tile, the input tile (with its halo) once per output-channel tile, the output (and the residual)
  // once; with two virtual threads loads overlap the GEMMs, with one they do not; and a fixed cost per
  // inner iteration (tokens, micro-op kernel launch).
  struct Scored {
    double cycles;
    ConvTiling t;
  };
  std::vector<Scored> scored;
  // the shortcut's 1x1 convolution (Residual::kShortcut): its input blocks and stride
  const int64_t sc_blocks = shortcut_input != nullptr ? shortcut_input->shape[1] / config.block_in() : 0;
  const int64_t ss = shortcut_stride;
  const double gemm = double(batches * oh * ow * oc_blocks * (in_blocks * k * k + sc_blocks));
  for (const int64_t vt : {int64_t{2}, int64_t{1}}) {
    for (const int64_t oc : divisors(oc_blocks)) {
      if ((oc_blocks / oc) % vt != 0) continue;
      for (const int64_t hb : divisors(oh)) {
        for (const int64_t wb : divisors(ow)) {
          for (const int64_t ic : divisors(in_blocks)) {
            const int64_t acc_need = oc * hb * wb * vt * (residual == Residual::kAluAdd ? 2 : 1);
            const int64_t in_rows = loads_only_read_rows(k, pad, stride) ? hb : (hb - 1) * stride + k,
                          in_cols = (wb - 1) * stride + k;
            // (the shortcut's chunk: its rows read only, columns at its stride)
            const int64_t sc_ic = sc_blocks > 0 ? shortcut_ic_block(ic, sc_blocks) : 0;
            const int64_t sc_cols = (wb - 1) * ss + 1;
            const int64_t inp_need = (ic * in_rows * in_cols + sc_ic * hb * sc_cols) * vt;
            const int64_t wgt_need = (oc * ic * k * k + oc * sc_ic) * vt;
            if (acc_need > acc || inp_need > inp || wgt_need > wgt) continue;
            // (every tile size divides its extent)
            const int64_t oc_tile_count = oc_blocks / oc, spatial_count = (oh / hb) * (ow / wb);
            const int64_t ic_steps = in_blocks / ic + (sc_blocks > 0 ? sc_blocks / sc_ic : 0);
            const double oc_tiles = double(oc_tile_count), spatial = double(spatial_count);
            const bool loads_residual = residual == Residual::kAluAdd || residual == Residual::kSumInit;
            const double bytes = spatial * double(oc_blocks * (in_blocks * k * k + sc_blocks)) * wgt_elem +
                                 oc_tiles * spatial *
                                     double(batches * (in_blocks * in_rows * in_cols + sc_blocks * hb * sc_cols)) *
                                     inp_elem +
                                 double(batches * oc_blocks * oh * ow) * (inp_elem + (loads_residual ? acc_elem : 0));
            const double memory = bytes / beat;
            const double iterations = double(batches) * oc_tiles * spatial * double(ic_steps);
            const double cycles = (vt > 1 ? std::max(gemm, memory) : gemm + memory) + 60.0 * iterations;
            scored.push_back({cycles, {oc, hb, wb, ic, vt}});
          }
        }
      }
    }
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) { return a.cycles < b.cycles; });
  std::vector<ConvTiling> out;
  for (size_t i = 0; i < scored.size() && i < 32; ++i) out.push_back(scored[i].t);
  return out;
}

// ---- the device side -------------------------------------------------------------------------------

namespace {
// Programs built and estimated per convolution when the executor chooses its tiling. (ResNet-18 on
// the tsim: 8 -> 7,310,075 cycles, compiled in 0.29 s; 16 -> 7,270,100 in 0.50 s; 32 -> 7,257,626 in
// 0.95 s.)
constexpr int kTilingsTried = 16;
}  // namespace

// ---- the local target: the runtime's device in this process ------------------------------------

namespace {

class LocalTensor final : public Target::Tensor {
 public:
  LocalTensor(const std::vector<int64_t>& shape, const std::string& name) : t_(shape, vta::DType::kInt8, name) {}
  void copy_from(std::span<const int8_t> host) override { t_.copy_from(host); }
  void copy_to(std::span<int8_t> host) const override { t_.copy_to(host); }
  const DeviceTensor& tensor() const { return t_; }

 private:
  DeviceTensor t_;
};

class LocalProgram final : public Target::Program {
 public:
  explicit LocalProgram(const c::Module& m) : module_(m) {}
  Stats run(const std::vector<const Target::Tensor*>& args) override {
    std::vector<const DeviceTensor*> tensors;
    tensors.reserve(args.size());
    for (const Target::Tensor* a : args) tensors.push_back(&dynamic_cast<const LocalTensor&>(*a).tensor());
    vta::clear_runtime_stats();
    module_(tensors);
    return vta::runtime_stats();
  }

 private:
  c::Module module_;
};

class LocalTarget final : public Target {
 public:
  std::unique_ptr<Tensor> empty(const std::vector<int64_t>& shape, const std::string& name) override {
    return std::make_unique<LocalTensor>(shape, name);
  }
  std::unique_ptr<Program> load(const c::Module& module, const std::string& /*name*/) override {
    return std::make_unique<LocalProgram>(module);
  }
};

}  // namespace

std::shared_ptr<Target> local_target() { return std::make_shared<LocalTarget>(); }

struct Executor::DeviceState {
  std::map<std::string, std::unique_ptr<Target::Tensor>> weights;  // packed OIHWoi
  std::vector<std::unique_ptr<Target::Program>> programs;          // per step (VTA steps only)
};

Executor::Executor(const Graph& g, const Config& config, std::shared_ptr<Target> target)
    : graph_(g), config_(config), target_(target ? std::move(target) : local_target()), device_(new DeviceState) {
  const c::Env env(config_);
  steps_ = plan_steps(g);
  for (Step& s : steps_) {
    if (s.placement != Placement::kVta) continue;
    if (s.ops[0]->kind == OpKind::kMaxPool) {
      plan_pool(s);
      continue;
    }
    const Op& conv = *s.ops[0];
    const TensorDesc& in = g.tensor(conv.inputs[0]);
    const int64_t o = g.tensor(conv.output).shape[1];
    for (const Op* c : convolutions(s)) {
      const TensorDesc& ci = g.tensor(c->inputs[0]);
      if (ci.shape[0] % env.BATCH != 0 || ci.shape[1] % env.BLOCK_IN != 0 || o % env.BLOCK_OUT != 0) {
        throw GraphError(
            join({g.name(), ": ", c->name, ": batch ", std::to_string(ci.shape[0]), ", ", std::to_string(ci.shape[1]),
                  " input and ", std::to_string(o), " output channels do not fill whole VTA tiles of BATCH ",
                  std::to_string(env.BATCH), " x BLOCK ", std::to_string(env.BLOCK_IN)}));
      }
    }
    if (conv.pad != conv.kernel / 2) {
      throw GraphError(join({g.name(), ": ", conv.name, ": VTA convolutions here pad by kernel/2"}));
    }
    const Residual residual = s.residual = residual_of(g, s);
    // the candidates the traffic model ranks first, each built and its program estimated; the fastest
    std::string failures;
    uint64_t best = UINT64_MAX;
    int built = 0;
    const TensorDesc* sc_in = s.shortcut.empty() ? nullptr : &g.tensor(s.shortcut[0]->inputs[0]);
    const int sc_stride = s.shortcut.empty() ? 1 : s.shortcut[0]->stride;
    for (const ConvTiling& t :
         tiling_candidates(config_, in, o, conv.kernel, conv.stride, residual, sc_in, sc_stride)) {
      try {
        ConvProgram p = conv_program(g, s, env, t);
        c::Module m = c::build(p.schedule, p.args, env, build_options());
        const uint64_t cycles = estimated_cycles(m, config_);
        if (cycles < best) {
          best = cycles;
          s.tiling = t;
          s.estimated_cycles = cycles;
        }
        if (++built == kTilingsTried) break;
      } catch (const c::ScheduleError& e) {
        failures.append("\n  ").append(t.to_string()).append(": ").append(e.what());
      }
    }
    if (built > 0) {
      // a module of its own for the runs: the estimate's ran in a context that is gone
      ConvProgram p = conv_program(g, s, env, s.tiling);
      s.module = std::make_shared<const c::Module>(c::build(p.schedule, p.args, env, build_options()));
    }
    if (!s.module) {
      throw c::ScheduleError(join({g.name(), ": ", conv.name, ": no tiling fits the SRAMs", failures}));
    }
    for (const Op* c : convolutions(s)) {
      if (device_->weights.count(c->weight)) continue;
      const TensorDesc& w = g.tensor(c->weight);
      std::unique_ptr<Target::Tensor> d = target_->empty(
          {w.shape[0] / env.BLOCK_OUT, w.shape[1] / env.BLOCK_IN, w.shape[2], w.shape[3], env.BLOCK_OUT, env.BLOCK_IN},
          c->weight);
      d->copy_from(vta::pack_oihw(g.weight(c->weight), int(w.shape[0]), int(w.shape[1]), int(w.shape[2]),
                                  int(w.shape[3]), env.BLOCK_OUT, env.BLOCK_IN));
      device_->weights.emplace(c->weight, std::move(d));
    }
  }
  // every VTA program on the target, once
  device_->programs.resize(steps_.size());
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (steps_[i].module) device_->programs[i] = target_->load(*steps_[i].module, steps_[i].name);
  }
}

void Executor::plan_pool(Step& s) {
  const Graph& g = graph_;
  const c::Env env(config_);
  const Op& pool = *s.ops[0];
  const TensorDesc& in = g.tensor(pool.inputs[0]);
  if (in.shape[0] % env.BATCH != 0 || in.shape[1] % env.BLOCK_IN != 0) {
    throw GraphError(join({g.name(), ": ", pool.name, ": batch ", std::to_string(in.shape[0]), " and ",
                           std::to_string(in.shape[1]), " channels do not fill whole VTA tiles of BATCH ",
                           std::to_string(env.BATCH), " x BLOCK ", std::to_string(env.BLOCK_IN)}));
  }
  if (pool.pad > 0 && !non_negative(g, pool.inputs[0])) {
    throw GraphError(join({g.name(), ": ", pool.name, ": VTA's DMA pads with zeros, which would win over negative ",
                           "values: a padded max_pool runs on VTA only after a relu or a clip at 0"}));
  }
  std::string failures;
  uint64_t best = UINT64_MAX;
  int built = 0;
  for (const ConvTiling& t : pool_tilings(config_, g, pool)) {
    try {
      ConvProgram p = pool_program(g, s, env, t);
      c::Module m = c::build(p.schedule, p.args, env, build_options());
      const uint64_t cycles = estimated_cycles(m, config_);
      if (cycles < best) {
        best = cycles;
        s.tiling = t;
        s.estimated_cycles = cycles;
      }
      if (++built == kTilingsTried) break;
    } catch (const c::ScheduleError& e) {
      failures.append("\n  ").append(t.to_string()).append(": ").append(e.what());
    }
  }
  if (built == 0) throw c::ScheduleError(join({g.name(), ": ", pool.name, ": no tiling fits the SRAMs", failures}));
  ConvProgram p = pool_program(g, s, env, s.tiling);
  s.module = std::make_shared<const c::Module>(c::build(p.schedule, p.args, env, build_options()));
}

Executor::~Executor() = default;

NetworkRun Executor::run(std::span<const int8_t> input, const RunOptions& options, const Values* reference) {
  const Graph& g = graph_;
  const c::Env env(config_);
  const auto t0 = Clock::now();
  NetworkRun result;
  Values host;                                                    // NCHW values on the host
  std::map<std::string, std::unique_ptr<Target::Tensor>> device;  // blocked activations on the target
  auto blocked_shape = [&](const TensorDesc& d) {
    return std::vector<int64_t>{d.shape[0] / env.BATCH, d.shape[1] / env.BLOCK_OUT, d.shape[2], d.shape[3], env.BATCH,
                                env.BLOCK_OUT};
  };
  auto to_device = [&](const std::string& name) -> const Target::Tensor* {
    auto it = device.find(name);
    if (it != device.end()) return it->second.get();
    const TensorDesc& d = g.tensor(name);
    std::unique_ptr<Target::Tensor> t = target_->empty(blocked_shape(d), name);
    t->copy_from(vta::pack_nchw(narrow(host.at(name)), int(d.shape[0]), int(d.shape[1]), int(d.shape[2]),
                                int(d.shape[3]), env.BATCH, env.BLOCK_IN));
    return device.emplace(name, std::move(t)).first->second.get();
  };
  auto to_host = [&](const std::string& name) -> const std::vector<int32_t>& {
    auto it = host.find(name);
    if (it != host.end()) return it->second;
    const TensorDesc& d = g.tensor(name);
    std::vector<int8_t> blocked(size_t(d.elements()));
    device.at(name)->copy_to(blocked);
    return host
        .emplace(name, widen(vta::unpack_nchw(blocked, int(d.shape[0]), int(d.shape[1]), int(d.shape[2]),
                                              int(d.shape[3]), env.BATCH, env.BLOCK_OUT)))
        .first->second;
  };

  // the slice: steps from `first` to `last`, inputs from the reference
  size_t begin = 0, end = steps_.size();
  auto find = [&](const std::string& name) {
    for (size_t i = 0; i < steps_.size(); ++i) {
      if (steps_[i].name == name) return i;
    }
    throw GraphError(join({g.name(), ": no step produces ", name}));
  };
  if (!options.first.empty()) begin = find(options.first);
  if (!options.last.empty()) end = find(options.last) + 1;
  if (begin >= end)
    throw GraphError(join({g.name(), ": the slice ", options.first, " .. ", options.last, " is empty"}));
  if (begin > 0 && reference == nullptr) throw GraphError(g.name() + ": a slice takes its inputs from the reference");
  host[g.input_name()] = widen(input);
  if (begin > 0) {
    for (size_t i = begin; i < end; ++i) {
      for (const auto& in : steps_[i].inputs) {
        if (!host.count(in) && reference->count(in)) host[in] = reference->at(in);
      }
    }
  }

  for (size_t i = begin; i < end; ++i) {
    const Step& s = steps_[i];
    StepResult r;
    r.step = &s;
    const auto start = Clock::now();
    if (s.placement == Placement::kHost) {
      Values in;
      for (const auto& name : s.inputs) in[name] = to_host(name);
      host[s.name] = reference_op(g, *s.ops[0], in);
      r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    } else {
      std::vector<const Target::Tensor*> args{to_device(s.inputs[0])};
      if (s.ops[0]->kind == OpKind::kConv2d) args.push_back(device_->weights.at(s.ops[0]->weight).get());
      if (s.inputs.size() > 1) args.push_back(to_device(s.inputs[1]));
      if (!s.shortcut.empty()) args.push_back(device_->weights.at(s.shortcut[0]->weight).get());
      auto& out = device[s.name];
      if (!out) out = target_->empty(blocked_shape(g.tensor(s.name)), s.name);
      args.push_back(out.get());
      const auto run_start = Clock::now();
      r.stats = device_->programs.at(i)->run(args);
      r.seconds = std::chrono::duration<double>(Clock::now() - run_start).count();
      result.vta.inp_load_nbytes += r.stats.inp_load_nbytes;
      result.vta.wgt_load_nbytes += r.stats.wgt_load_nbytes;
      result.vta.acc_load_nbytes += r.stats.acc_load_nbytes;
      result.vta.uop_load_nbytes += r.stats.uop_load_nbytes;
      result.vta.out_store_nbytes += r.stats.out_store_nbytes;
      result.vta.gemm_counter += r.stats.gemm_counter;
      result.vta.alu_counter += r.stats.alu_counter;
      if (r.stats.cycle_count) result.vta.cycle_count = result.vta.cycle_count.value_or(0) + *r.stats.cycle_count;
    }
    r.outputs = g.tensor(s.name).elements();
    if (options.verify && reference != nullptr) {
      const std::vector<int32_t>& got = to_host(s.name);
      const std::vector<int32_t>& want = reference->at(s.name);
      r.mismatches = 0;
      for (size_t e = 0; e < got.size(); ++e) r.mismatches += got[e] != want[e];
    }
    result.steps.push_back(r);
  }
  result.output = to_host(steps_[end - 1].name);
  result.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return result;
}

}  // namespace vta::net
