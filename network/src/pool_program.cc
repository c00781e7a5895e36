// The VTA programs on the ALU alone: a max or average pool, a nearest upsample.

#include "programs.h"
#include "vta/compiler/te.h"

namespace vta::network {
namespace c = vta::compiler;

// The input tile (with its halo, zero-padded by the DMA, sign-extended into the accumulator with
// ACC_8BIT) and the output tile, both in the accumulator: a copy of the window's first element, then
// one MAX (max pool) or ADD (average pool: the window's sum) stage per other element, in place; an
// average pool's chain after its sum (bias_add, shr, clip); the int8 store. Tiles: c_block channel
// blocks x h_block output rows x the whole width, output-channel tiles shared among virtual threads.
Program pool_program(const Graph& g, const Step& step, const c::Env& env, const ConvTiling& t) {
  const Op& pool = *step.ops[0];
  const TensorDesc& in = g.tensor(pool.inputs[0]);
  const TensorDesc& out = g.tensor(pool.output);
  const int64_t n = in.shape[0], ch = in.shape[1], h = in.shape[2], w = in.shape[3];
  const int64_t k = pool.kernel, p = pool.pad, stride = pool.stride, oh = out.shape[2], ow = out.shape[3];
  const int64_t pa = pool.pad_after;  // (more zeros at the bottom and right)
  using c::Indices;
  const std::vector<int64_t> in_shape{n / env.BATCH, channel_blocks(ch, env.BLOCK_IN), h, w, env.BATCH, env.BLOCK_IN};
  c::Tensor data = c::placeholder(in_shape, "data", c::DType::kInt8);  // (accumulator_inputs)
  c::Tensor data_buf = c::compute(
      {in_shape[0], in_shape[1], h + 2 * p + pa, w + 2 * p + pa, env.BATCH, env.BLOCK_IN},
      [&](const Indices& i) {
        const c::Expr value = data(i[0], i[1], c::Expr(i[2]) - p, c::Expr(i[3]) - p, i[4], i[5]);
        if (p == 0 && pa == 0) return c::cast(env.acc_dtype, value);
        const c::Expr inside =
            c::logical_and(c::logical_and(c::Expr(i[2]) >= c::make_int(p), c::Expr(i[2]) < c::make_int(p + h)),
                           c::logical_and(c::Expr(i[3]) >= c::make_int(p), c::Expr(i[3]) < c::make_int(p + w)));
        return c::cast(env.acc_dtype, c::select(inside, value, c::make_int(0, c::DType::kInt8)));
      },
      "data_buf");
  const std::vector<int64_t> shape{n / env.BATCH, channel_blocks(ch, env.BLOCK_OUT), oh, ow, env.BATCH, env.BLOCK_OUT};
  auto window = [&](const Indices& x, int64_t dy, int64_t dx) {
    return data_buf(x[0], x[1], c::Expr(x[2]) * stride + dy, c::Expr(x[3]) * stride + dx, x[4], x[5]);
  };
  const bool max = pool.kind == OpKind::kMaxPool;
  AluChain chain(g, env, shape);
  std::vector<c::Tensor>& alu = chain.stages();
  alu.push_back(c::compute(
      shape, [&](const Indices& x) { return window(x, 0, 0); }, "win0"));
  for (int64_t e = 1; e < k * k; ++e) {
    const c::Tensor prev = alu.back();
    alu.push_back(c::compute(
        shape,
        [&](const Indices& x) {
          const c::Expr acc = prev(x[0], x[1], x[2], x[3], x[4], x[5]), next = window(x, e / k, e % k);
          return max ? c::max(acc, next) : acc + next;
        },
        "win" + std::to_string(e)));
  }
  c::Tensor last = alu.back();
  for (size_t i = 1; i + 1 < step.ops.size(); ++i) last = chain.elementwise(*step.ops[i], last);
  c::Tensor res = c::compute(
      shape, [&](const Indices& x) { return c::cast(env.inp_dtype, last(x[0], x[1], x[2], x[3], x[4], x[5])); }, "res");
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
  for (const c::Tensor& b : {data_buf, chain.bias_buf(), chain.scale_buf()}) {
    if (!b) continue;
    s[b].set_scope(env.acc_scope);
    s[b].compute_at(s[res], y_out);
    s[b].pragma(b->op->axis[0], env.dma_copy);
  }
  for (const c::Tensor& a : alu) {
    s[a].set_scope(env.acc_scope);
    s[a].compute_at(s[res], y_out);
    s[a].pragma(a->op->axis[0], env.alu);
  }
  s[res].pragma(y_inn, env.dma_copy);
  std::vector<c::Tensor> args{data};
  if (chain.bias()) args.push_back(chain.bias());
  if (chain.scale()) args.push_back(chain.scale());
  args.push_back(res);
  return {std::move(s), std::move(args)};
}

// The input tile sign-extended into the accumulator (ACC_8BIT), each of its pixels copied into the
// fh x fw pixels it becomes, the int8 store. The output is addressed as (N, C, H, fh, W, fw, BATCH,
// BLOCK), the same memory as its (N, C, H x fh, W x fw, BATCH, BLOCK): every index is then a sum of
// loop variables, as the ALU's micro-op loops and the DMA need. Tiles: c_block channel blocks x h_block
// input rows x the whole width.
Program upsample_program(const Graph& g, const Step& step, const c::Env& env, const ConvTiling& t) {
  const Op& up = *step.ops[0];
  const TensorDesc& in = g.tensor(up.inputs[0]);
  const int64_t n = in.shape[0], ch = in.shape[1], h = in.shape[2], w = in.shape[3], fh = up.kernel, fw = up.stride;
  using c::Indices;
  const std::vector<int64_t> in_shape{n / env.BATCH, channel_blocks(ch, env.BLOCK_IN), h, w, env.BATCH, env.BLOCK_IN};
  c::Tensor data = c::placeholder(in_shape, "data", c::DType::kInt8);  // (accumulator_inputs)
  c::Tensor data_buf = c::compute(
      in_shape, [&](const Indices& i) { return c::cast(env.acc_dtype, data(i[0], i[1], i[2], i[3], i[4], i[5])); },
      "data_buf");
  const std::vector<int64_t> shape{in_shape[0], in_shape[1], h, fh, w, fw, env.BATCH, env.BLOCK_OUT};
  c::Tensor copy = c::compute(
      shape, [&](const Indices& x) { return data_buf(x[0], x[1], x[2], x[4], x[6], x[7]); }, "copy");
  c::Tensor res = c::compute(
      shape,
      [&](const Indices& x) { return c::cast(env.inp_dtype, copy(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7])); },
      "res");
  c::Schedule s = c::create_schedule(res);
  const auto& ax = res->op->axis;  // b, c, y, dy, x, dx, b_tns, c_tns
  auto [b_out, b_inn] = s[res].split(ax[0], 1);
  auto [c_out, c_inn] = s[res].split(ax[1], t.oc_block);
  auto [y_out, y_inn] = s[res].split(ax[2], t.h_block);
  s[res].reorder({b_out, c_out, y_out, b_inn, c_inn, y_inn, ax[3], ax[4], ax[5], ax[6], ax[7]});
  if (t.virtual_threads > 1) {
    auto [c_rest, tx] = s[res].split(c_out, t.virtual_threads);
    (void)c_rest;
    s[res].reorder({tx, b_out});
    s[res].bind(tx, "cthread");
  }
  s[data_buf].set_scope(env.acc_scope);
  s[data_buf].compute_at(s[res], y_out);
  s[data_buf].pragma(data_buf->op->axis[0], env.dma_copy);
  s[copy].set_scope(env.acc_scope);
  s[copy].compute_at(s[res], y_out);
  s[copy].pragma(copy->op->axis[0], env.alu);
  s[res].pragma(y_inn, env.dma_copy);
  return {std::move(s), {data, res}};
}

}  // namespace vta::network
