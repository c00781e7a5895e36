// One VTA program: a convolution and its fused chain. The builder declares the tensors in the order
// the program reads them (inputs, the shortcut, the sum's start, the convolution, the chain), then
// schedules them: output tiles, the reduction's chunks, buffers in the SRAMs, DMA, GEMM and ALU.

#include <functional>
#include <limits>

#include "join.h"
#include "programs.h"
#include "vta/compiler/te.h"

namespace vta::network {
namespace c = vta::compiler;
using c::Indices;

namespace {

// The output of a step's first operator in VTA's blocked layout.
std::vector<int64_t> blocked_output(const Graph& g, const Step& step, const c::Env& env) {
  const TensorDesc& out = g.tensor(step.ops[0]->output);
  return {out.shape[0] / env.BATCH,
          channel_blocks(out.shape[1], env.BLOCK_OUT),
          out.shape[2],
          out.shape[3],
          env.BATCH,
          env.BLOCK_OUT};
}

class ConvProgramBuilder {
 public:
  ConvProgramBuilder(const Graph& g, const Step& step, const c::Env& env, const ConvTiling& t)
      : g_(g),
        step_(step),
        env_(env),
        t_(t),
        geo_(conv_geometry(env.config, g, step)),
        shape_(blocked_output(g, step, env)),
        chain_(g, env, shape_),
        sc_chain_(g, env, shape_),
        alu_(chain_.stages()) {}

  Program build() {
    declare_inputs();
    if (shortcut()) declare_shortcut();
    declare_sum_start();
    declare_convolution();
    declare_chain();
    std::vector<c::Tensor> args{data_, kernel_};
    if (chain_.bias()) args.push_back(chain_.bias());
    if (chain_.scale()) args.push_back(chain_.scale());
    if (residual_) args.push_back(residual_);
    if (shortcut()) args.insert(args.end(), {sc_data_, sc_kernel_});
    if (sc_chain_.bias()) args.push_back(sc_chain_.bias());
    if (sc_chain_.scale()) args.push_back(sc_chain_.scale());
    args.push_back(res_);
    c::Schedule s = c::create_schedule(res_);
    const OutputLoops loops = schedule_output(s);
    schedule_convolution(s, loops);
    if (shortcut()) schedule_shortcut(s, loops.x_out);
    s[res_].pragma(loops.y_inn, env_.dma_copy);
    s[res_conv_].tensorize(res_conv_->op->axis[4], "gemm");
    for (const c::Tensor& a : alu_) s[a].pragma(a->op->axis[0], env_.alu);
    return {std::move(s), std::move(args)};
  }

 private:
  bool shortcut() const { return step_.residual == Residual::kShortcut; }
  // the sum's initial value: the residual (kSumInit) or the shortcut's value (kShortcut) shifted left
  bool sum_init() const { return step_.residual == Residual::kSumInit || shortcut(); }

  void declare_inputs();
  void declare_shortcut();
  void declare_sum_start();
  void declare_convolution();
  void declare_chain();
  void load_residual();
  struct OutputLoops {
    c::IterVar b_out, oc_out, x_out, y_inn;
  };
  OutputLoops schedule_output(c::Schedule& s);
  void schedule_convolution(c::Schedule& s, const OutputLoops& loops);
  void schedule_shortcut(c::Schedule& s, const c::IterVar& x_out);

  const Graph& g_;
  const Step& step_;
  const c::Env& env_;
  const ConvTiling& t_;
  const ConvGeometry geo_;
  std::vector<int64_t> shape_;  // the output, blocked
  c::Tensor data_, kernel_, data_buf_, kernel_buf_;
  c::IterVar dy_, dx_, ic_, ic_tns_;
  c::Tensor sc_data_, sc_kernel_, sc_data_buf_, sc_kernel_buf_, sc_conv_, shortcut_value_;
  c::IterVar sc_ic_, sc_ic_tns_;
  c::Tensor residual_, residual_buf_, start_, res_conv_, res_;
  AluChain chain_;
  AluChain sc_chain_;            // the shortcut's (its own bias), its stages moved to alu_
  std::vector<c::Tensor>& alu_;  // the ALU stages, in order (chain_'s)
};

void ConvProgramBuilder::declare_inputs() {
  const TensorDesc& in = g_.tensor(step_.ops[0]->inputs[0]);
  const int64_t n = in.shape[0], ch = in.shape[1], h = in.shape[2], w = in.shape[3], o = shape_[1] * env_.BLOCK_OUT;
  const int64_t k = geo_.kernel, p = geo_.pad, stride = geo_.stride, oh = geo_.out_height;
  data_ = c::placeholder({n / env_.BATCH, channel_blocks(ch, env_.BLOCK_IN), h, w, env_.BATCH, env_.BLOCK_IN}, "data",
                         env_.inp_dtype);
  // (depthwise: one block-diagonal BLOCK_OUT x BLOCK_IN weight block per output block and tap)
  kernel_ = c::placeholder({o / env_.BLOCK_OUT, geo_.in_blocks, k, k, env_.BLOCK_OUT, env_.BLOCK_IN}, "kernel",
                           env_.wgt_dtype);
  data_buf_ = geo_.loads_only_read_rows()
                  ? c::compute(
                        {n / env_.BATCH, channel_blocks(ch, env_.BLOCK_IN), oh, w, env_.BATCH, env_.BLOCK_IN},
                        [&](const Indices& i) { return data_(i[0], i[1], c::Expr(i[2]) * stride, i[3], i[4], i[5]); },
                        "data_buf")
                  : c::pad(data_, {0, 0, p, p, 0, 0}, {0, 0, p, p, 0, 0}, "data_buf");
  kernel_buf_ = c::compute(
      kernel_->shape, [&](const Indices& i) { return kernel_(i); }, "kernel_buf");
  dy_ = c::reduce_axis(k, "dy");
  dx_ = c::reduce_axis(k, "dx");
  ic_ = c::reduce_axis(geo_.in_blocks, "ic");
  ic_tns_ = c::reduce_axis(env_.BLOCK_IN, "ic_tns");
}

void ConvProgramBuilder::load_residual() {
  residual_ = c::placeholder(shape_, "residual", c::DType::kInt8);  // (8-bit elements: accumulator_inputs)
  residual_buf_ = c::compute(
      shape_, [&](const Indices& x) { return c::cast(env_.acc_dtype, residual_(x)); }, "residual_buf");
}

// The shortcut (Residual::kShortcut): a 1x1 convolution of its own input into the accumulator, its
// chain on the ALU (the final cast is the identity: the chain ends clipped to int8).
void ConvProgramBuilder::declare_shortcut() {
  const Op& sc = *step_.shortcut[0];
  const TensorDesc& sin = g_.tensor(sc.inputs[0]);
  const int64_t n = sin.shape[0], sch = sin.shape[1], sh = sin.shape[2], sw = sin.shape[3], ss = sc.stride;
  const int64_t o = shape_[1] * env_.BLOCK_OUT;
  const int64_t scb = channel_blocks(sch, env_.BLOCK_IN);
  sc_data_ = c::placeholder({n / env_.BATCH, scb, sh, sw, env_.BATCH, env_.BLOCK_IN}, "shortcut_data", env_.inp_dtype);
  sc_kernel_ =
      c::placeholder({o / env_.BLOCK_OUT, scb, 1, 1, env_.BLOCK_OUT, env_.BLOCK_IN}, "shortcut_kernel", env_.wgt_dtype);
  const bool sc_skip = ConvGeometry{.kernel = 1, .pad = 0, .stride = ss}.loads_only_read_rows();
  const int64_t sc_rows = sc_skip ? geo_.out_height : sh, sc_row_step = sc_skip ? ss : 1;
  sc_data_buf_ = c::compute(
      {n / env_.BATCH, scb, sc_rows, sw, env_.BATCH, env_.BLOCK_IN},
      [&](const Indices& i) { return sc_data_(i[0], i[1], c::Expr(i[2]) * sc_row_step, i[3], i[4], i[5]); },
      "shortcut_data_buf");
  sc_kernel_buf_ = c::compute(
      sc_kernel_->shape, [&](const Indices& i) { return sc_kernel_(i); }, "shortcut_kernel_buf");
  sc_ic_ = c::reduce_axis(scb, "sc_ic");
  sc_ic_tns_ = c::reduce_axis(env_.BLOCK_IN, "sc_ic_tns");
  sc_conv_ = c::compute(
      shape_, {"sbo", "sco", "si", "sj", "sbi", "sci"},
      [&](const Indices& x) {
        const c::Expr d = sc_data_buf_(x[0], sc_ic_.var, c::Expr(x[2]) * (ss / sc_row_step), c::Expr(x[3]) * ss, x[4],
                                       sc_ic_tns_.var);
        const c::Expr w = sc_kernel_buf_(x[1], sc_ic_.var, c::make_int(0), c::make_int(0), x[5], sc_ic_tns_.var);
        return c::sum(c::cast(env_.acc_dtype, d) * c::cast(env_.acc_dtype, w), {sc_ic_, sc_ic_tns_});
      },
      "shortcut_conv");
  shortcut_value_ = sc_conv_;
  for (size_t i = 1; i + 1 < step_.shortcut.size(); ++i) {
    shortcut_value_ = sc_chain_.elementwise(*step_.shortcut[i], shortcut_value_, "shortcut_");
  }
  alu_.insert(alu_.end(), sc_chain_.stages().begin(), sc_chain_.stages().end());
}

void ConvProgramBuilder::declare_sum_start() {
  if (!sum_init()) return;
  if (!shortcut()) load_residual();
  const c::Tensor r = shortcut() ? shortcut_value_ : residual_buf_;
  const int shift = residual_shift(step_).shift;
  start_ = shift == 0 ? r
                      : c::compute(
                            shape_, [&](const Indices& x) { return r(x) >> -shift; }, "residual_shl");
  if (shift != 0) alu_.push_back(start_);
}

void ConvProgramBuilder::declare_convolution() {
  const int64_t row_stride = geo_.loads_only_read_rows() ? 1 : geo_.stride, stride = geo_.stride;
  res_conv_ = c::compute(
      shape_, {"bo", "co", "i", "j", "bi", "ci"},
      [&](const Indices& x) {
        // (depthwise: output block x[1] reads input block x[1]; ic has one value, 0)
        const c::Expr block = geo_.depthwise ? c::Expr(x[1]) + ic_.var : c::Expr(ic_.var);
        c::Expr product = c::cast(env_.acc_dtype, data_buf_(x[0], block, c::Expr(x[2]) * row_stride + dy_.var,
                                                            c::Expr(x[3]) * stride + dx_.var, x[4], ic_tns_.var)) *
                          c::cast(env_.acc_dtype, kernel_buf_(x[1], ic_.var, dy_.var, dx_.var, x[5], ic_tns_.var));
        return start_ ? c::sum(product, {ic_, dy_, dx_, ic_tns_}, start_(x))
                      : c::sum(product, {ic_, dy_, dx_, ic_tns_});
      },
      "res_conv");
}

// The fused chain: each operator one ALU stage (clip: MAX then MIN), the cast the store. With the
// residual's add gone into the sum's start, a shr before it and a shr after it are one shr (floor
// divisions by powers of two compose): one ALU pass less per tile.
void ConvProgramBuilder::declare_chain() {
  c::Tensor cur = res_conv_;
  const auto& ops = step_.ops;
  for (size_t i = 1; i < ops.size(); ++i) {
    const Op& op = *ops[i];
    const c::Tensor prev = cur;
    if (sum_init() && op.kind == OpKind::kAdd) continue;  // (the sum started from the residual)
    if (sum_init() && &op == &residual_shift(step_) && i + 2 < ops.size() && ops[i + 2]->kind == OpKind::kShr &&
        op.shift + ops[i + 2]->shift <= 31) {
      Op both = op;
      both.shift += ops[i + 2]->shift;
      cur = chain_.elementwise(both, prev);
      i += 2;
      continue;
    }
    switch (op.kind) {
      case OpKind::kAdd:
        load_residual();
        // (the residual read first: its stage comes first in the tile, so its accumulator load, on
        // the compute stage, runs while the load stage fetches the tile's first inputs)
        cur = c::compute(
            shape_, [&](const Indices& x) { return residual_buf_(x) + prev(x); }, "add" + std::to_string(alu_.size()));
        alu_.push_back(cur);
        break;
      case OpKind::kCast:
        res_ = c::compute(
            shape_, [&](const Indices& x) { return c::cast(env_.inp_dtype, prev(x)); }, "res");
        break;
      default: cur = chain_.elementwise(op, prev);
    }
  }
}

// Output tiles (batch, output channels shared among virtual threads, rows, columns), every stage of
// the chain computed per tile.
ConvProgramBuilder::OutputLoops ConvProgramBuilder::schedule_output(c::Schedule& s) {
  const auto& ax = res_->op->axis;  // b, oc, y, x, b_tns, oc_tns
  auto [b_out, b_inn] = s[res_].split(ax[0], 1);
  auto [oc_out, oc_inn] = s[res_].split(ax[1], t_.oc_block);
  auto [y_out, y_inn] = s[res_].split(ax[2], t_.h_block);
  auto [x_out, x_inn] = s[res_].split(ax[3], t_.w_block);
  s[res_].reorder({b_out, oc_out, y_out, x_out, b_inn, oc_inn, y_inn, x_inn, ax[4], ax[5]});
  s[res_conv_].compute_at(s[res_], x_out);
  for (const c::Tensor& a : alu_) s[a].compute_at(s[res_], x_out);
  return {b_out, oc_out, x_out, y_inn};
}

// The reduction in chunks of ic_block input blocks, each chunk's inputs loaded into the SRAMs; the
// output-channel tiles shared among the virtual threads.
void ConvProgramBuilder::schedule_convolution(c::Schedule& s, const OutputLoops& loops) {
  const auto& cx = res_conv_->op->axis;
  auto [ic_out, ic_inn] = s[res_conv_].split(ic_, t_.ic_block);
  s[res_conv_].reorder({ic_out, cx[0], cx[1], cx[2], ic_inn, dy_, dx_, cx[3], cx[4], cx[5], ic_tns_});
  if (t_.virtual_threads > 1) {
    auto [oc_rest, tx] = s[res_].split(loops.oc_out, t_.virtual_threads);
    (void)oc_rest;
    s[res_].reorder({tx, loops.b_out});
    s[res_].bind(tx, "cthread");
  }
  s[data_buf_].set_scope(env_.inp_scope);
  s[kernel_buf_].set_scope(env_.wgt_scope);
  s[res_conv_].set_scope(env_.acc_scope);
  for (const c::Tensor& a : alu_) s[a].set_scope(env_.acc_scope);
  s[data_buf_].compute_at(s[res_conv_], ic_out);
  s[kernel_buf_].compute_at(s[res_conv_], ic_out);
  s[data_buf_].pragma(data_buf_->op->axis[0], env_.dma_copy);
  s[kernel_buf_].pragma(kernel_buf_->op->axis[0], env_.dma_copy);
  for (const c::Tensor& b :
       {residual_buf_, chain_.bias_buf(), chain_.scale_buf(), sc_chain_.bias_buf(), sc_chain_.scale_buf()}) {
    if (!b) continue;
    s[b].set_scope(env_.acc_scope);
    s[b].compute_at(s[res_], loops.x_out);
    s[b].pragma(b->op->axis[0], env_.dma_copy);
  }
}

void ConvProgramBuilder::schedule_shortcut(c::Schedule& s, const c::IterVar& x_out) {
  s[sc_conv_].compute_at(s[res_], x_out);
  s[sc_conv_].set_scope(env_.acc_scope);
  const auto& sx = sc_conv_->op->axis;
  auto [sic_out, sic_inn] = s[sc_conv_].split(sc_ic_, shortcut_ic_block(t_.ic_block, sc_ic_.extent));
  s[sc_conv_].reorder({sic_out, sx[0], sx[1], sx[2], sic_inn, sx[3], sx[4], sx[5], sc_ic_tns_});
  s[sc_data_buf_].set_scope(env_.inp_scope);
  s[sc_kernel_buf_].set_scope(env_.wgt_scope);
  for (const c::Tensor& b : {sc_data_buf_, sc_kernel_buf_}) {
    s[b].compute_at(s[sc_conv_], sic_out);
    s[b].pragma(b->op->axis[0], env_.dma_copy);
  }
  s[sc_conv_].tensorize(sx[4], "gemm");
}

}  // namespace

// An elementwise operator after `prev` as ALU stages (clip: MAX then MIN); the last one's tensor.
c::Tensor AluChain::elementwise(const Op& op, c::Tensor prev, const std::string& prefix) {
  auto stage = [&](const std::string& name, const std::function<c::Expr(const Indices&)>& body) {
    prev = c::compute(shape_, body, prefix + name + std::to_string(alu_.size()));
    alu_.push_back(prev);
  };
  switch (op.kind) {
    case OpKind::kShr: stage("shr", [&](const Indices& x) { return prev(x) >> op.shift; }); break;
    case OpKind::kShrEven: {
      // x' = x + 2^(s-1) - 1; the parity p = bit s of x', as -((x' << (31 - s)) >> 31) in a copy (the ALU
      // has no AND and no SUB; MUL by -1 negates); then (x' + p) >> s: a tie goes up exactly when the
      // result below it is odd (graph.h)
      const int s = op.shift;
      if (s > 1) stage("even_round", [&](const Indices& i) { return prev(i) + ((int64_t{1} << (s - 1)) - 1); });
      const c::Tensor x = prev;
      stage("even_copy", [&](const Indices& i) { return x(i); });
      stage("even_top", [&](const Indices& i) {
        return c::make_binary(c::ExprKind::kShl, prev(i), c::make_int_like(prev(i), 31 - s));
      });
      stage("even_sign", [&](const Indices& i) { return prev(i) >> 31; });
      stage("even_bit", [&](const Indices& i) { return prev(i) * int64_t{-1}; });
      stage("even_add", [&](const Indices& i) { return prev(i) + x(i); });  // (in the copy, as leaky's MAX)
      stage("even_shr", [&](const Indices& i) { return prev(i) >> s; });
      break;
    }
    case OpKind::kRelu: stage("relu", [&](const Indices& x) { return c::max(prev(x), 0); }); break;
    case OpKind::kClip: {
      if (op.lo != std::numeric_limits<int32_t>::min()) {
        stage("clip_lo", [&](const Indices& x) { return c::max(prev(x), int64_t(op.lo)); });
      }
      if (op.hi != std::numeric_limits<int32_t>::max()) {
        stage("clip_hi", [&](const Indices& x) { return c::min(prev(x), int64_t(op.hi)); });
      }
      break;
    }
    case OpKind::kBiasAdd: return add_bias(op, prev, prefix);
    case OpKind::kScaleChannels: return scale_channels(op, prev, prefix);
    case OpKind::kLeakyRelu: {
      // max(x, (x * m + 2^(k-1)) >> k): the product in a copy of x (the ALU writes in place), rounded,
      // then the two's MAX
      const c::Tensor x = prev;
      stage("leaky_copy", [&](const Indices& i) { return x(i); });
      stage("leaky_mul", [&](const Indices& i) { return prev(i) * int64_t(op.multiplier); });
      stage("leaky_round", [&](const Indices& i) { return prev(i) + (int64_t{1} << (op.shift - 1)); });
      stage("leaky_shr", [&](const Indices& i) { return prev(i) >> op.shift; });
      stage("leaky", [&](const Indices& i) { return c::max(prev(i), x(i)); });
      break;
    }
    default: throw GraphError(join({g_.name(), ": ", op.name, ": not an operator VTA's ALU runs after a sum"}));
  }
  return prev;
}

// A vector of one int8 per output channel, replicated over the BATCH lanes: the argument `arg` named
// `name` and its copy into the accumulator `buf` (sign-extended). Returns their shape.
std::vector<int64_t> AluChain::channel_vector(const std::string& name, c::Tensor& arg, c::Tensor& buf) {
  std::vector<int64_t> shape{1, shape_[1], 1, 1, env_.BATCH, env_.BLOCK_OUT};
  arg = c::placeholder(shape, name, c::DType::kInt8);
  const c::Tensor a = arg;
  buf = c::compute(
      shape, [a, this](const Indices& x) { return c::cast(env_.acc_dtype, a(x)); }, name + "_buf");
  return shape;
}

// The bias (kBiasAdd): one int8 value per output channel (replicated over the BATCH lanes), loaded
// into the accumulator per output tile, shifted left there, and added to every row and column.
c::Tensor AluChain::add_bias(const Op& op, const c::Tensor& prev, const std::string& prefix) {
  if (bias_) throw GraphError(join({g_.name(), ": ", op.name, ": a second bias_add in one VTA chain"}));
  const std::vector<int64_t> shape = channel_vector(prefix + "bias", bias_, bias_buf_);
  c::Tensor b = bias_buf_;
  if (op.shift != 0) {
    b = c::compute(
        shape, [&](const Indices& x) { return bias_buf_(x) >> -op.shift; }, prefix + "bias_shl");
    alu_.push_back(b);
  }
  c::Tensor out = c::compute(
      shape_,
      [&](const Indices& x) { return prev(x) + b(c::make_int(0), x[1], c::make_int(0), c::make_int(0), x[4], x[5]); },
      prefix + "bias_add" + std::to_string(alu_.size()));
  alu_.push_back(out);
  return out;
}

// The factors (kScaleChannels): one int8 per output channel (replicated over the BATCH lanes), loaded
// into the accumulator per output tile as the bias is, every row and column multiplied by them.
c::Tensor AluChain::scale_channels(const Op& op, const c::Tensor& prev, const std::string& prefix) {
  if (scale_) throw GraphError(join({g_.name(), ": ", op.name, ": a second scale_channels in one VTA chain"}));
  (void)channel_vector(prefix + "factors", scale_, scale_buf_);
  c::Tensor out = c::compute(
      shape_,
      [&](const Indices& x) {
        return prev(x) * scale_buf_(c::make_int(0), x[1], c::make_int(0), c::make_int(0), x[4], x[5]);
      },
      prefix + "scale" + std::to_string(alu_.size()));
  alu_.push_back(out);
  return out;
}

Program conv_program(const Graph& g, const Step& step, const c::Env& env, const ConvTiling& tiling) {
  return ConvProgramBuilder(g, step, env, tiling).build();
}

}  // namespace vta::network
