// The 2D convolution optimization tutorial (seed 002), step by step with the compiler: a ResNet-18
// layer declared in VTA's tiled NCHW layout with zero padding, blocked into output tiles that fit the
// SRAMs, split into two virtual threads, its copies lowered to (padded) 2D DMA transfers, the
// convolution tensorized into GEMM micro-ops and the normalisation mapped to the ALU; then built, run
// on the runtime's device and checked against a plain C++ reference. With the default shape, running
// it makes exactly the runtime calls of workloads/src/convolution.cc.

#include "print_step.h"
#include "vta/compiler/build.h"
#include "vta/compiler/te.h"
#include "vta/driver/build_config.h"
#include "vta/runtime/tensor.h"
#include "vta/workloads/compiled.h"

namespace vta::tutorials {

using namespace vta::compiler;  // NOLINT: the tutorial's vocabulary

ConvDeclaration declare_convolution(const Env& env, const ConvShape& shape) {
  ConvDeclaration d;
  const int64_t n = shape.batch, c = shape.in_channels, o = shape.out_channels, h = shape.height, w = shape.width;
  const int64_t k = shape.kernel, p = shape.pad, stride = shape.stride;
  const int64_t oh = (h + 2 * p - k) / stride + 1, ow = (w + 2 * p - k) / stride + 1;
  d.data = placeholder({n / env.BATCH, c / env.BLOCK_IN, h, w, env.BATCH, env.BLOCK_IN}, "data", env.inp_dtype);
  d.kernel =
      placeholder({o / env.BLOCK_OUT, c / env.BLOCK_IN, k, k, env.BLOCK_OUT, env.BLOCK_IN}, "kernel", env.wgt_dtype);
  // the padded input (topi.nn.pad) and the weight copy: the stages the DMA will perform
  d.data_buf = pad(d.data, {0, 0, p, p, 0, 0}, {0, 0, p, p, 0, 0}, "data_buf");
  d.kernel_buf = compute(
      d.kernel->shape, [&](const Indices& i) { return d.kernel(i); }, "kernel_buf");
  d.dy = reduce_axis(k, "dy"), d.dx = reduce_axis(k, "dx"), d.ic = reduce_axis(c / env.BLOCK_IN, "ic");
  d.ic_tns = reduce_axis(env.BLOCK_IN, "ic_tns");
  const std::vector<int64_t> output_shape{n / env.BATCH, o / env.BLOCK_OUT, oh, ow, env.BATCH, env.BLOCK_OUT};
  d.res_conv = compute(
      output_shape, {"bo", "co", "i", "j", "bi", "ci"},
      [&](const Indices& x) {
        return sum(cast(env.acc_dtype, d.data_buf(x[0], d.ic.var, Expr(x[2]) * stride + d.dy.var,
                                                  Expr(x[3]) * stride + d.dx.var, x[4], d.ic_tns.var)) *
                       cast(env.acc_dtype, d.kernel_buf(x[1], d.ic.var, d.dy.var, d.dx.var, x[5], d.ic_tns.var)),
                   {d.ic, d.dy, d.dx, d.ic_tns});
      },
      "res_conv");
  d.res_shr = compute(
      output_shape, [&](const Indices& i) { return d.res_conv(i) >> shape.shift; }, "res_shr");
  d.res_max = compute(
      output_shape, [&](const Indices& i) { return max(d.res_shr(i), 0); }, "res_max");
  d.res_min = compute(
      output_shape, [&](const Indices& i) { return min(d.res_max(i), out_max(env)); }, "res_min");
  d.res = compute(
      output_shape, [&](const Indices& i) { return cast(env.inp_dtype, d.res_min(i)); }, "res");
  return d;
}

Result compiled_convolution(uint32_t seed, std::ostream* steps, const ConvShape& shape, ModuleRunner& runner) {
  Result r;
  Env env(vta::build_config());
  env.thread_banks = shape.thread_banks;

  // ---- Computation declaration
  const int64_t n = shape.batch, c = shape.in_channels, o = shape.out_channels, h = shape.height, w = shape.width;
  const int64_t k = shape.kernel, p = shape.pad, stride = shape.stride;
  const int64_t oh = (h + 2 * p - k) / stride + 1, ow = (w + 2 * p - k) / stride + 1;
  const ConvDeclaration d = declare_convolution(env, shape);
  const Tensor &data = d.data, &kernel = d.kernel, &data_buf = d.data_buf, &kernel_buf = d.kernel_buf;
  const Tensor &res_conv = d.res_conv, &res_shr = d.res_shr, &res_max = d.res_max, &res_min = d.res_min, &res = d.res;
  const IterVar &ic = d.ic, &dy = d.dy, &dx = d.dx, &ic_tns = d.ic_tns;
  const std::vector<Tensor> args{data, kernel, res};

  // ---- Default schedule
  Schedule s = create_schedule(res);
  print_step(steps, "default schedule", lower(s, args));

  // ---- Blocking: output tiles of (b_block, oc_block, h_block, w_block), input channels by ic_block
  const auto& ax = res->op->axis;  // b, oc, y, x, b_tns, oc_tns
  auto [b_out, b_inn] = s[res].split(ax[0], shape.b_block);
  auto [oc_out, oc_inn] = s[res].split(ax[1], shape.oc_block);
  auto [y_out, y_inn] = s[res].split(ax[2], shape.h_block);
  auto [x_out, x_inn] = s[res].split(ax[3], shape.w_block);
  s[res].reorder({b_out, oc_out, y_out, x_out, b_inn, oc_inn, y_inn, x_inn, ax[4], ax[5]});
  for (const Tensor& t : {res_conv, res_shr, res_max, res_min}) s[t].compute_at(s[res], x_out);
  const auto& cx = res_conv->op->axis;  // b_inn, oc_inn, y_inn, x_inn, b_tns, oc_tns
  auto [ic_out, ic_inn] = s[res_conv].split(ic, shape.ic_block);
  s[res_conv].reorder({ic_out, cx[0], cx[1], cx[2], ic_inn, dy, dx, cx[3], cx[4], cx[5], ic_tns});
  // ---- Virtual threads along the output channel tiles
  if (shape.virtual_threads > 1) {
    auto [oc_rest, tx] = s[res].split(oc_out, shape.virtual_threads);
    (void)oc_rest;
    s[res].reorder({tx, b_out});
    s[res].bind(tx, "cthread");
  }
  print_step(steps, "blocked schedule with virtual threads", lower(s, args));

  // ---- Lowering copies to DMA transfers
  s[data_buf].set_scope(env.inp_scope);
  s[kernel_buf].set_scope(env.wgt_scope);
  for (const Tensor& t : {res_conv, res_shr, res_max, res_min}) s[t].set_scope(env.acc_scope);
  s[data_buf].compute_at(s[res_conv], ic_out);
  s[kernel_buf].compute_at(s[res_conv], ic_out);
  s[data_buf].pragma(data_buf->op->axis[0], env.dma_copy);
  s[kernel_buf].pragma(kernel_buf->op->axis[0], env.dma_copy);
  // the tutorial: one store per output element; or one 2D store per output channel block of the tile
  s[res].pragma(shape.store_rows ? y_inn : ax[4], env.dma_copy);
  LowerOptions dma;
  dma.env = &env;
  print_step(steps, "DMA copies", lower(s, args, dma));

  // ---- Tensorization and the ALU
  s[res_conv].tensorize(cx[4], "gemm");
  for (const Tensor& t : {res_shr, res_min, res_max}) s[t].pragma(t->op->axis[0], env.alu);
  BuildOptions build_options;
  build_options.overlap_tiles = shape.overlap_tiles;
  const Module module = build(s, args, env, build_options);
  print_step(steps, "final lowered program", module.program());

  // ---- Run and verify
  const auto [x, wt] =
      random_operands(seed, size_t(n * c * h * w), size_t(o * c * k * k), env.INP_WIDTH, env.WGT_WIDTH);
  std::vector<int8_t> got;
  try {
    got = runner.run(module,
                     {vta::runtime::pack_nchw(x, int(n), int(c), int(h), int(w), env.BATCH, env.BLOCK_IN),
                      vta::runtime::pack_oihw(wt, int(o), int(c), int(k), int(k), env.BLOCK_OUT, env.BLOCK_IN)},
                     r.stats);
  } catch (const RunError& e) {
    r.error = e.what();
    return r;
  }
  r.ran = true;
  const auto want =
      vta::runtime::shift_clip(vta::runtime::conv2d_reference(x, wt, int(n), int(c), int(h), int(w), int(o), int(k),
                                                              int(k), int(p), int(stride)),
                               shape.shift, 0, out_max(env));
  const auto got_nchw = vta::runtime::unpack_nchw(got, int(n), int(o), int(oh), int(ow), env.BATCH, env.BLOCK_OUT);
  r.compare(got_nchw, want);
  return r;
}

std::vector<NamedConv> resnet18_convolutions() {
  struct Layer {
    const char* name;
    int64_t size, in, out, kernel, pad, stride;
    int64_t oc_block, h_block, w_block, ic_block;
  };
  static const Layer kLayers[] = {
      {"56x56 64->64 k3 s1", 56, 64, 64, 3, 1, 1, 2, 8, 28, 1},
      {"56x56 64->128 k3 s2", 56, 64, 128, 3, 1, 2, 2, 7, 28, 1},
      {"56x56 64->128 k1 s2", 56, 64, 128, 1, 0, 2, 2, 7, 28, 1},
      {"28x28 128->128 k3 s1", 28, 128, 128, 3, 1, 1, 2, 7, 14, 2},
      {"28x28 128->256 k3 s2", 28, 128, 256, 3, 1, 2, 4, 7, 14, 1},
      {"28x28 128->256 k1 s2", 28, 128, 256, 1, 0, 2, 4, 14, 14, 1},
      {"14x14 256->256 k3 s1", 14, 256, 256, 3, 1, 1, 8, 7, 14, 1},
      {"14x14 256->512 k3 s2", 14, 256, 512, 3, 1, 2, 8, 7, 7, 1},
      {"14x14 256->512 k1 s2", 14, 256, 512, 1, 0, 2, 16, 7, 7, 2},
      {"7x7 512->512 k3 s1", 7, 512, 512, 3, 1, 1, 8, 7, 7, 1},
  };
  std::vector<NamedConv> layers;
  for (const Layer& l : kLayers) {
    ConvShape s;
    s.height = s.width = l.size, s.in_channels = l.in, s.out_channels = l.out;
    s.kernel = l.kernel, s.pad = l.pad, s.stride = l.stride;
    s.oc_block = l.oc_block, s.h_block = l.h_block, s.w_block = l.w_block, s.ic_block = l.ic_block;
    s.store_rows = true;
    layers.push_back({l.name, s});
  }
  return layers;
}

}  // namespace vta::tutorials
