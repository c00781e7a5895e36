// Choosing a step's tiling: the SRAM-fit rules, the traffic ranking, and the build-and-estimate loop.

#include "vta/network/tiling.h"

#include <algorithm>
#include <functional>
#include <numeric>

#include "join.h"
#include "vta/compiler/estimate.h"

namespace vta::network {
namespace {

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i <= n; ++i) {
    if (n % i == 0) d.push_back(i);
  }
  return d;
}

// The cycles a tiling should take, from the traffic the schedule makes: weights once per spatial
// tile, the input tile (with its halo) once per output-channel tile, the output (and the residual)
// once; with two virtual threads loads overlap the GEMMs, with one they do not; and a fixed cost per
// inner iteration (tokens, micro-op kernel launch). Every tile size divides its extent.
double traffic_cycles(const Config& config, const ConvGeometry& g, Residual residual, const ConvTiling& t) {
  const double beat = config.bus_width() / 8.0;
  const double inp_elem = config.inp_elem_bytes(), wgt_elem = config.wgt_elem_bytes(),
               acc_elem = config.acc_elem_bytes();
  const int64_t k = g.kernel, sc_blocks = g.shortcut_blocks;
  const int64_t in_rows = g.input_rows(t.h_block), in_cols = g.input_cols(t.w_block);
  const int64_t sc_ic = sc_blocks > 0 ? shortcut_ic_block(t.ic_block, sc_blocks) : 0;
  const int64_t sc_cols = g.shortcut_cols(t.w_block);
  const double gemm = double(g.batches * g.out_height * g.out_width * g.oc_blocks * (g.in_blocks * k * k + sc_blocks));
  const int64_t oc_tile_count = g.oc_blocks / t.oc_block,
                spatial_count = (g.out_height / t.h_block) * (g.out_width / t.w_block);
  const int64_t ic_steps = g.in_blocks / t.ic_block + (sc_blocks > 0 ? sc_blocks / sc_ic : 0);
  const double oc_tiles = double(oc_tile_count), spatial = double(spatial_count);
  const bool loads_residual = residual == Residual::kAluAdd || residual == Residual::kSumInit;
  const double bytes =
      spatial * double(g.oc_blocks * (g.in_blocks * k * k + sc_blocks)) * wgt_elem +
      oc_tiles * spatial *
          double(g.batches *
                 ((g.depthwise ? t.oc_block : g.in_blocks) * in_rows * in_cols + sc_blocks * t.h_block * sc_cols)) *
          inp_elem +
      double(g.batches * g.oc_blocks * g.out_height * g.out_width) * (inp_elem + (loads_residual ? acc_elem : 0));
  const double memory = bytes / beat;
  const double iterations = double(g.batches) * oc_tiles * spatial * double(ic_steps);
  return (t.virtual_threads > 1 ? std::max(gemm, memory) : gemm + memory) + 60.0 * iterations;
}

// How many of `ops` are of `kind`.
int64_t count_of(const std::vector<const Op*>& ops, OpKind kind) {
  return std::count_if(ops.begin(), ops.end(), [&](const Op* op) { return op->kind == kind; });
}

}  // namespace

// (a leaky ReLU keeps x beside its product; a tie-to-even shift, the copy it takes the parity from)
int64_t alu_temporaries(const Step& step) {
  return count_of(step.ops, OpKind::kLeakyRelu) + count_of(step.ops, OpKind::kShrEven);
}

std::string ConvTiling::to_string() const {
  return join({"oc ", std::to_string(oc_block), " h ", std::to_string(h_block), " w ", std::to_string(w_block), " ic ",
               std::to_string(ic_block), " vt ", std::to_string(virtual_threads)});
}

int64_t ConvGeometry::input_rows(int64_t h_block) const {
  return loads_only_read_rows() ? h_block : (h_block - 1) * stride + kernel;
}

int64_t ConvGeometry::input_cols(int64_t w_block) const { return (w_block - 1) * stride + kernel; }

ConvGeometry conv_geometry(const Config& config, const Graph& g, const Step& step) {
  const Op& conv = *step.ops[0];
  const TensorDesc& in = g.tensor(conv.inputs[0]);
  const TensorDesc& out = g.tensor(conv.output);
  ConvGeometry geo;
  geo.batches = in.shape[0] / config.batch();
  geo.depthwise = depthwise(g, conv);
  geo.in_blocks = geo.depthwise ? 1 : channel_blocks(in.shape[1], config.block_in());
  geo.oc_blocks = channel_blocks(out.shape[1], config.block_out());
  geo.out_height = out.shape[2];
  geo.out_width = out.shape[3];
  geo.kernel = conv.kernel;
  geo.pad = conv.pad;
  geo.stride = conv.stride;
  geo.biases = count_of(step.ops, OpKind::kBiasAdd) + count_of(step.shortcut, OpKind::kBiasAdd) +
               count_of(step.ops, OpKind::kScaleChannels) + count_of(step.shortcut, OpKind::kScaleChannels);
  geo.temporaries = alu_temporaries(step);
  if (!step.shortcut.empty()) {
    geo.shortcut_blocks = channel_blocks(g.tensor(step.shortcut[0]->inputs[0]).shape[1], config.block_in());
    geo.shortcut_stride = step.shortcut[0]->stride;
  }
  return geo;
}

bool SramNeed::fits(const Config& config) const {
  return acc <= int64_t(config.acc_depth()) && inp <= int64_t(config.inp_depth()) && wgt <= int64_t(config.wgt_depth());
}

SramNeed sram_need(const ConvGeometry& g, Residual residual, const ConvTiling& t) {
  const int64_t vt = t.virtual_threads, k = g.kernel;
  // (the shortcut's chunk: its rows read only, columns at its stride)
  const int64_t sc_ic = g.shortcut_blocks > 0 ? shortcut_ic_block(t.ic_block, g.shortcut_blocks) : 0;
  SramNeed need;
  need.acc = (t.oc_block * t.h_block * t.w_block * (1 + (residual == Residual::kAluAdd ? 1 : 0) + g.temporaries) +
              g.biases * t.oc_block) *
             vt;
  need.inp = ((g.depthwise ? t.oc_block : t.ic_block) * g.input_rows(t.h_block) * g.input_cols(t.w_block) +
              sc_ic * t.h_block * g.shortcut_cols(t.w_block)) *
             vt;
  need.wgt = (t.oc_block * t.ic_block * k * k + t.oc_block * sc_ic) * vt;
  return need;
}

int64_t shortcut_ic_block(int64_t ic_block, int64_t blocks) { return std::gcd(ic_block, blocks); }

std::vector<ConvTiling> tiling_candidates(const Config& config, const ConvGeometry& g, Residual residual, size_t limit,
                                          int64_t min_threads, int64_t max_threads) {
  struct Scored {
    double cycles;
    ConvTiling t;
  };
  std::vector<Scored> scored;
  for (int64_t vt = max_threads; vt >= min_threads; --vt) {
    for (const int64_t oc : divisors(g.oc_blocks)) {
      if ((g.oc_blocks / oc) % vt != 0) continue;
      for (const int64_t hb : divisors(g.out_height)) {
        for (const int64_t wb : divisors(g.out_width)) {
          for (const int64_t ic : divisors(g.in_blocks)) {
            const ConvTiling t{oc, hb, wb, ic, vt};
            if (!sram_need(g, residual, t).fits(config)) continue;
            scored.push_back({traffic_cycles(config, g, residual, t), t});
          }
        }
      }
    }
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) { return a.cycles < b.cycles; });
  std::vector<ConvTiling> out;
  for (size_t i = 0; i < scored.size() && i < limit; ++i) out.push_back(scored[i].t);
  return out;
}

namespace {

// The tilings of an ALU-only step over `blocks` channel blocks and `rows` rows (output rows of a pool,
// input rows of an upsample), the whole `width` a tile, whose accumulator words need(c_block, h_block)
// a virtual thread fit the accumulator; fewest tiles first.
std::vector<ConvTiling> alu_step_tilings(const Config& config, int64_t blocks, int64_t rows, int64_t width,
                                         const std::function<int64_t(int64_t, int64_t)>& need) {
  std::vector<std::pair<int64_t, ConvTiling>> scored;  // tiles (fewer first)
  for (const int64_t vt : {int64_t{2}, int64_t{1}}) {
    for (int64_t cb = 1; cb <= blocks; ++cb) {
      if (blocks % cb != 0 || (blocks / cb) % vt != 0) continue;
      for (int64_t hb = 1; hb <= rows; ++hb) {
        if (rows % hb != 0 || need(cb, hb) * vt > int64_t(config.acc_depth())) continue;
        scored.push_back({(blocks / cb) * (rows / hb), {cb, hb, width, 1, vt}});
      }
    }
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<ConvTiling> out;
  out.reserve(scored.size());
  for (const auto& [tiles, t] : scored) out.push_back(t);
  return out;
}

}  // namespace

std::vector<ConvTiling> pool_tilings(const Config& config, const Graph& g, const Step& step) {
  const Op& pool = *step.ops[0];
  // (a bias and factors: one accumulator row each per channel block)
  const int64_t vectors = count_of(step.ops, OpKind::kBiasAdd) + count_of(step.ops, OpKind::kScaleChannels);
  const int64_t temporaries = alu_temporaries(step);
  const TensorDesc& in = g.tensor(pool.inputs[0]);
  const TensorDesc& out = g.tensor(pool.output);
  const int64_t blocks = channel_blocks(in.shape[1], config.block_in()), oh = out.shape[2], ow = out.shape[3];
  const int64_t wp = in.shape[3] + 2 * pool.pad + pool.pad_after;
  return alu_step_tilings(config, blocks, oh, ow, [&](int64_t cb, int64_t hb) {
    return cb * (((hb - 1) * pool.stride + pool.kernel) * wp + hb * ow * (1 + temporaries) + vectors);
  });
}

std::vector<ConvTiling> upsample_tilings(const Config& config, const Graph& g, const Step& step) {
  const Op& up = *step.ops[0];
  const TensorDesc& in = g.tensor(up.inputs[0]);
  const int64_t blocks = channel_blocks(in.shape[1], config.block_in()), h = in.shape[2], w = in.shape[3];
  // (the input tile and its fh x fw copies)
  return alu_step_tilings(config, blocks, h, w,
                          [&](int64_t cb, int64_t hb) { return cb * hb * w * (1 + int64_t(up.kernel) * up.stride); });
}

ChosenProgram choose_tiling(const std::vector<ConvTiling>& candidates,
                            const std::function<compiler::Module(const ConvTiling&)>& build, const Config& config,
                            const std::string& what, int tried, const EstimateOptions& stage) {
  std::string failures;
  ChosenProgram best;
  uint64_t best_cycles = UINT64_MAX;
  int built = 0;
  for (const ConvTiling& t : candidates) {
    try {
      const compiler::RecordedCall call = compiler::record_call(build(t), config, nullptr, stage.issue(config) == 2);
      const uint64_t cycles = compiler::estimate_cycles(call, config, stage);
      if (cycles < best_cycles) {
        best_cycles = cycles;
        best.tiling = t;
        best.estimated_cycles = cycles;
      }
      if (++built == tried) break;
    } catch (const compiler::ScheduleError& e) {
      failures.append("\n  ").append(t.to_string()).append(": ").append(e.what());
    }
  }
  if (built == 0) throw compiler::ScheduleError(join({what, ": no tiling fits the SRAMs", failures}));
  best.module = std::make_shared<const compiler::Module>(build(best.tiling));
  return best;
}

}  // namespace vta::network
