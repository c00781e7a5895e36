// The matrix-multiply blocking tutorial (seed 001), step by step with the compiler: declare the
// computation, look at its default schedule, block it to fit the SRAMs, move data with DMA copies,
// tensorize the GEMM, map the epilogue to the ALU, then build and run it on the runtime's device and
// check every output against a plain C++ reference. The final lowered program is the tutorial's, and
// running it makes exactly the runtime calls of workloads/src/matrix_multiply.cc.

#include "print_step.h"
#include "vta/compiler/build.h"
#include "vta/compiler/te.h"
#include "vta/driver/build_config.h"
#include "vta/runtime/tensor.h"
#include "vta/workloads/compiled.h"

namespace vta::tutorials {

using namespace vta::compiler;  // NOLINT: the tutorial's vocabulary

MatmulDeclaration declare_matrix_multiply(const Env& env, const MatmulShape& shape) {
  MatmulDeclaration m;
  const int64_t bb = shape.batch / env.BATCH, ib = shape.in_channels / env.BLOCK_IN,
                ob = shape.out_channels / env.BLOCK_OUT;
  m.data = placeholder({bb, ib, env.BATCH, env.BLOCK_IN}, "data", env.inp_dtype);
  m.weight = placeholder({ob, ib, env.BLOCK_OUT, env.BLOCK_IN}, "weight", env.wgt_dtype);
  // copies into the on-chip buffers
  m.data_buf = compute(
      m.data->shape, [&](const Indices& i) { return m.data(i); }, "data_buf");
  m.weight_buf = compute(
      m.weight->shape, [&](const Indices& i) { return m.weight(i); }, "weight_buf");
  // the matrix product over the outer and the tensor-level input channels
  m.ic = reduce_axis(ib, "ic");
  m.ic_tns = reduce_axis(env.BLOCK_IN, "ic_tns");
  m.res_gem = compute(
      {bb, ob, env.BATCH, env.BLOCK_OUT}, {"bo", "co", "bi", "ci"},
      [&](const Indices& i) {
        return sum(cast(env.acc_dtype, m.data_buf(i[0], m.ic.var, i[2], m.ic_tns.var)) *
                       cast(env.acc_dtype, m.weight_buf(i[1], m.ic.var, i[3], m.ic_tns.var)),
                   {m.ic, m.ic_tns});
      },
      "res_gem");
  // fixed-point normalisation and clipping; the cast to int8 comes last
  const std::vector<int64_t>& out = m.res_gem->shape;
  m.res_shr = compute(
      out, [&](const Indices& i) { return m.res_gem(i) >> shape.shift; }, "res_shr");
  if (shape.clip) {
    m.res_max = compute(
        out, [&](const Indices& i) { return max(m.res_shr(i), 0); }, "res_max");
    m.res_min = compute(
        out, [&](const Indices& i) { return min(m.res_max(i), out_max(env)); }, "res_min");
  }
  m.acc_stages = {m.res_gem};
  if (shape.epilogue) {
    m.alu_stages = shape.clip ? std::vector<Tensor>{m.res_shr, m.res_max, m.res_min} : std::vector<Tensor>{m.res_shr};
    m.acc_stages.insert(m.acc_stages.end(), m.alu_stages.begin(), m.alu_stages.end());
  }
  // (without the epilogue, the int32 sums are truncated to int8 as they are stored)
  const Tensor last = m.acc_stages.back();
  m.res = compute(
      out, [&](const Indices& i) { return cast(env.inp_dtype, last(i)); }, "res");
  return m;
}

Result compiled_matrix_multiply(uint32_t seed, std::ostream* steps, const MatmulShape& shape, ModuleRunner& runner) {
  Result r;
  const Env env(vta::build_config());

  // ---- Computation declaration: out = clip((data x weight^T) >> 8, 0, 127), in VTA's tiled layout
  const MatmulDeclaration m = declare_matrix_multiply(env, shape);
  const Tensor &data = m.data, &weight = m.weight, &data_buf = m.data_buf, &weight_buf = m.weight_buf;
  const Tensor &res_gem = m.res_gem, &res = m.res;
  const IterVar &ic = m.ic, &ic_tns = m.ic_tns;
  const int64_t batch = shape.batch, in_channels = shape.in_channels, out_channels = shape.out_channels;
  const std::vector<Tensor> args{data, weight, res};

  // ---- Default schedule
  Schedule s = create_schedule(res);
  print_step(steps, "default schedule", lower(s, args));

  // ---- Blocking: output tiles of o_block blocks, input channels in chunks of i_block blocks
  const auto& ax = res->op->axis;
  auto [b_out, b_inn] = s[res].split(ax[0], shape.b_block);
  auto [oc_out, oc_inn] = s[res].split(ax[1], shape.o_block);
  s[res].reorder({b_out, oc_out, b_inn, oc_inn});
  IterVar tile = oc_out;  // the loop over output tiles, where the tile's stages are computed
  if (shape.virtual_threads > 1) {
    // the output tiles split into virtual threads that interleave their loads and computations
    auto [oc_rest, tx] = s[res].split(oc_out, shape.virtual_threads);
    s[res].reorder({tx, b_out, oc_rest});
    s[res].bind(tx, "cthread");
    tile = oc_rest;
  }
  for (const Tensor& t : m.acc_stages) s[t].compute_at(s[res], tile);
  const auto& gx = res_gem->op->axis;  // b_inn, oc_inn, b_tns, oc_tns
  auto [ic_out, ic_inn] = s[res_gem].split(ic, shape.i_block);
  s[res_gem].reorder({ic_out, gx[0], gx[1], ic_inn, gx[2], gx[3], ic_tns});
  print_step(steps, "blocked schedule", lower(s, args));

  // ---- Lowering copies to DMA transfers: buffers in the SRAM scopes, copies as dma_copy
  s[data_buf].set_scope(env.inp_scope);
  s[weight_buf].set_scope(env.wgt_scope);
  for (const Tensor& t : m.acc_stages) s[t].set_scope(env.acc_scope);
  s[data_buf].compute_at(s[res_gem], ic_out);
  s[weight_buf].compute_at(s[res_gem], ic_out);
  s[data_buf].pragma(data_buf->op->axis[0], env.dma_copy);
  s[weight_buf].pragma(weight_buf->op->axis[0], env.dma_copy);
  s[res].pragma(ax[2], env.dma_copy);  // one store per output element
  LowerOptions dma;
  dma.env = &env;
  print_step(steps, "DMA copies", lower(s, args, dma));

  // ---- Tensorization and the ALU
  s[res_gem].tensorize(gx[2], "gemm");
  for (const Tensor& t : m.alu_stages) s[t].pragma(t->op->axis[0], env.alu);
  const Module module = build(s, args, env);
  print_step(steps, "final lowered program", module.program());

  // ---- Run and verify
  const auto [a, w] = random_operands(seed, size_t(batch * in_channels), size_t(out_channels * in_channels),
                                      env.INP_WIDTH, env.WGT_WIDTH);
  std::vector<int8_t> got;
  try {
    got = runner.run(module,
                     {vta::runtime::pack_matrix(a, int(batch), int(in_channels), env.BATCH, env.BLOCK_IN),
                      vta::runtime::pack_matrix(w, int(out_channels), int(in_channels), env.BLOCK_OUT, env.BLOCK_IN)},
                     r.stats);
  } catch (const RunError& e) {
    r.error = e.what();
    return r;
  }
  r.ran = true;
  const auto wide = vta::runtime::gemm_reference(a, w, int(batch), int(in_channels), int(out_channels));
  const auto clipped = vta::runtime::shift_clip(wide, shape.shift, 0, out_max(env));
  const auto got_flat = vta::runtime::unpack_matrix(got, int(batch), int(out_channels), env.BATCH, env.BLOCK_OUT);
  std::vector<int8_t> want(wide.size());
  for (size_t i = 0; i < wide.size(); ++i) {
    const int out_width = env.config.out_width();
    want[i] = !shape.epilogue ? narrow_lane(wide[i], out_width)
              : shape.clip    ? clipped[i]
                              : narrow_lane(wide[i] >> shape.shift, out_width);
  }
  r.compare(got_flat, want);
  return r;
}

}  // namespace vta::tutorials
