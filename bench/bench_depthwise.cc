// Two ways to run a depthwise convolution on VTA, side by side (docs/MODELS.md "Depthwise convolutions
// on VTA"): the block-diagonal GEMM the network executor uses, and the ALU form (the padded input and
// each tap's per-channel weights in the accumulator; per tap a copy of the shifted window, a MUL by
// the weights, an ADD into the sum). Both are built for the depthwise layers of the Fashion-MNIST
// dwsep model, run on the backend of VTA_TARGET (fsim by default; tsim for measured cycles), checked
// equal to the plain C++ reference, and their cycles printed: the compiler's estimate and, on a
// clocked backend, the measured count.
//
//   VTA_TARGET=tsim ./build/bench/vta_bench_depthwise

#include <cstdio>
#include <exception>
#include <random>

#include "vta/compiler/estimate.h"
#include "vta/compiler/te.h"
#include "vta/driver/build_config.h"
#include "vta/network/executor.h"
#include "vta/network/reference.h"
#include "vta/network/target.h"
#include "vta/runtime/tensor.h"

namespace {

namespace c = vta::compiler;
namespace net = vta::network;
using c::Indices;

std::vector<int8_t> random_int8(size_t n, uint32_t seed, int range) {
  std::mt19937 rng(seed);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(int(rng() % uint32_t(2 * range + 1)) - range);
  return v;
}

// The ALU form for (1, ch, h, w) with a 3x3 kernel, pad 1, stride 1: the sum (int32) stored narrowed
// to int8 after >> shift and a clip. One output tile per channel block and all rows.
c::Module alu_form(const c::Env& env, int64_t ch, int64_t h, int64_t w, int shift) {
  const int64_t cb = ch / env.BLOCK_OUT, k = 3, p = 1;
  c::Tensor data = c::placeholder({1, cb, h, w, env.BATCH, env.BLOCK_IN}, "data", c::DType::kInt8);
  c::Tensor weight = c::placeholder({cb, k * k, env.BATCH, env.BLOCK_OUT}, "weight", c::DType::kInt8);
  c::Tensor data_buf = c::compute(
      {1, cb, h + 2 * p, w + 2 * p, env.BATCH, env.BLOCK_IN},
      [&](const Indices& i) {
        const c::Expr inside =
            c::logical_and(c::logical_and(c::Expr(i[2]) >= c::make_int(p), c::Expr(i[2]) < c::make_int(p + h)),
                           c::logical_and(c::Expr(i[3]) >= c::make_int(p), c::Expr(i[3]) < c::make_int(p + w)));
        const c::Expr v = data(i[0], i[1], c::Expr(i[2]) - p, c::Expr(i[3]) - p, i[4], i[5]);
        return c::cast(env.acc_dtype, c::select(inside, v, c::make_int(0, c::DType::kInt8)));
      },
      "data_buf");
  c::Tensor weight_buf = c::compute(
      weight->shape, [&](const Indices& i) { return c::cast(env.acc_dtype, weight(i)); }, "weight_buf");
  const std::vector<int64_t> shape{1, cb, h, w, env.BATCH, env.BLOCK_OUT};
  std::vector<c::Tensor> alu;
  c::Tensor sum;
  for (int64_t t = 0; t < k * k; ++t) {
    c::Tensor tap = c::compute(
        shape,
        [&](const Indices& x) {
          return data_buf(x[0], x[1], c::Expr(x[2]) + t / k, c::Expr(x[3]) + t % k, x[4], x[5]);
        },
        "tap" + std::to_string(t));
    c::Tensor prod = c::compute(
        shape, [&](const Indices& x) { return tap(x) * weight_buf(x[1], c::make_int(t), x[4], x[5]); },
        "prod" + std::to_string(t));
    alu.insert(alu.end(), {tap, prod});
    if (t == 0) {
      sum = prod;
      continue;
    }
    const c::Tensor before = sum;
    sum = c::compute(
        shape, [&](const Indices& x) { return before(x) + prod(x); }, "sum" + std::to_string(t));
    alu.push_back(sum);
  }
  const c::Tensor last = sum;
  c::Tensor shr = c::compute(
      shape, [&](const Indices& x) { return last(x) >> shift; }, "shr");
  c::Tensor lo = c::compute(
      shape, [&](const Indices& x) { return c::max(shr(x), 0); }, "lo");
  c::Tensor hi = c::compute(
      shape, [&](const Indices& x) { return c::min(lo(x), 127); }, "hi");
  alu.insert(alu.end(), {shr, lo, hi});
  c::Tensor res = c::compute(
      shape, [&](const Indices& x) { return c::cast(env.inp_dtype, hi(x)); }, "res");
  c::Schedule s = c::create_schedule(res);
  const auto& ax = res->op->axis;
  const int64_t vt = cb % 2 == 0 ? 2 : 1;
  int64_t rows = h;  // the most rows per tile whose buffers fit the accumulator
  auto need = [&](int64_t r) { return ((r + 2 * p) * (w + 2 * p) + 9 * r * w + 9) * vt; };
  while (rows > 1 && (h % rows != 0 || need(rows) > int64_t(env.config.acc_depth()))) --rows;
  auto [c_out, c_inn] = s[res].split(ax[1], 1);
  auto [y_out, y_inn] = s[res].split(ax[2], rows);
  s[res].reorder({ax[0], c_out, y_out, c_inn, y_inn, ax[3], ax[4], ax[5]});
  if (vt == 2) {  // two virtual threads over the channel blocks
    auto [c_rest, tx] = s[res].split(c_out, 2);
    (void)c_rest;
    s[res].reorder({tx, ax[0]});
    s[res].bind(tx, "cthread");
  }
  // every stage but the result sits in the accumulator per tile: the two buffers copied in by DMA,
  // the others ALU work
  std::vector<c::Tensor> in_acc{data_buf, weight_buf};
  in_acc.insert(in_acc.end(), alu.begin(), alu.end());
  for (size_t i = 0; i < in_acc.size(); ++i) {
    s[in_acc[i]].set_scope(env.acc_scope);
    s[in_acc[i]].compute_at(s[res], y_out);
    s[in_acc[i]].pragma(in_acc[i]->op->axis[0], i < 2 ? env.dma_copy : env.alu);
  }
  s[res].pragma(y_inn, env.dma_copy);
  c::BuildOptions o;
  o.overlap_tiles = true;
  return c::build(s, {data, weight, res}, env, o);
}

int run() {
  const vta::Config& cfg = vta::build_config();
  const c::Env env(cfg);
  std::printf("%-22s %12s %12s %12s %12s %s\n", "layer (channels, HxW)", "gemm est", "gemm cycles", "alu est",
              "alu cycles", "outputs");
  for (const auto& [ch, hw] : {std::pair<int64_t, int64_t>{16, 28}, {32, 14}, {64, 7}}) {
    net::Graph g("dw");
    const std::string x = g.input("data", {1, ch, hw, hw});
    const std::vector<int8_t> w = random_int8(size_t(ch * 9), 1, 60);
    std::string a = g.conv2d("dw", x, g.constant("w", {ch, 1, 3, 3}, w), 1, 1, int(ch));
    g.set_output(g.requantize("dw.q", a, 8, true));
    for (net::Op& op : g.mutable_ops()) op.placement = net::Placement::kVta;
    const std::vector<int8_t> input = random_int8(size_t(ch * hw * hw), 2, 127);
    const net::Values ref = net::run_reference(g, input);
    net::Executor ex(g, cfg);
    const net::NetworkRun gemm = ex.run(input, {}, &ref);

    // the ALU form: the weights per channel block and tap, replicated over the batch lanes
    const c::Module m = alu_form(env, ch, hw, hw, 8);
    std::vector<int8_t> wp(size_t((ch / env.BLOCK_OUT) * 9 * env.BATCH * env.BLOCK_OUT));
    for (int64_t c0 = 0; c0 < ch; ++c0) {
      for (int64_t t = 0; t < 9; ++t) {
        for (int64_t lane = 0; lane < env.BATCH; ++lane) {
          wp[size_t((((c0 / env.BLOCK_OUT) * 9 + t) * env.BATCH + lane) * env.BLOCK_OUT + c0 % env.BLOCK_OUT)] =
              w[size_t(c0 * 9 + t)];
        }
      }
    }
    auto target = net::local_target();
    auto d = target->empty({1, ch / env.BLOCK_IN, hw, hw, env.BATCH, env.BLOCK_IN}, "data", vta::runtime::DType::kInt8);
    auto wt = target->empty({ch / env.BLOCK_OUT, 9, env.BATCH, env.BLOCK_OUT}, "weight", vta::runtime::DType::kInt8);
    auto out =
        target->empty({1, ch / env.BLOCK_OUT, hw, hw, env.BATCH, env.BLOCK_OUT}, "res", vta::runtime::DType::kInt8);
    d->copy_from(vta::runtime::pack_nchw(input, 1, int(ch), int(hw), int(hw), env.BATCH, env.BLOCK_IN));
    wt->copy_from(wp);
    const vta::Stats alu_stats = target->load(m, "alu")->run({d.get(), wt.get(), out.get()});
    std::vector<int8_t> blocked(size_t(ch * hw * hw));
    out->copy_to(blocked);
    const std::vector<int8_t> got =
        vta::runtime::unpack_nchw(blocked, 1, int(ch), int(hw), int(hw), env.BATCH, env.BLOCK_OUT);
    const auto& want = ref.at(g.output_name());
    int64_t differ = 0;
    for (size_t i = 0; i < got.size(); ++i) differ += int32_t(got[i]) != want[i];
    auto cycles = [](const vta::Stats& s) { return s.cycle_count ? std::to_string(*s.cycle_count) : std::string("-"); };
    std::printf("%-22s %12llu %12s %12llu %12s %s\n",
                (std::to_string(ch) + ", " + std::to_string(hw) + "x" + std::to_string(hw)).c_str(),
                static_cast<unsigned long long>(ex.steps()[0].estimated_cycles), cycles(gemm.vta).c_str(),
                static_cast<unsigned long long>(c::estimate_cycles(m, cfg)), cycles(alu_stats).c_str(),
                gemm.verified() && differ == 0 ? "both equal the reference" : "DIFFERENT");
    if (!gemm.verified() || differ != 0) return 1;
  }
  return 0;
}

}  // namespace

int main() {
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vta_bench_depthwise: %s\n", e.what());
    return 1;
  }
}
