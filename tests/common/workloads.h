#pragma once
// Hand-built VTA programs in the style of the reference bare-metal tests (alu_test, gemm_test,
// blocked_gemm_test), written anew against the encoder. Each builds its program and data, and knows
// the expected output (from a plain C++ reference) and the closed-form statistics.

#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "test_util.h"
#include "vta/driver/packing.h"

namespace vta::test {

/// Result of one workload run: element mismatches against the reference and the device statistics.
struct WorkloadResult {
  RunStatus status = RunStatus::kError;
  std::string error;
  size_t mismatches = 0;
  Stats stats;
  Stats expected;
};

/// Runs a program from cleared statistics and records status, diagnostic and statistics.
inline WorkloadResult run_workload(Device& dev, const Program& p) {
  WorkloadResult r;
  dev.clear_stats();
  r.status = p.run(dev, uint64_t{1} << 32);
  r.error = dev.last_error();
  r.stats = dev.stats();
  return r;
}

/// What a lane of `width` bits (4 or 8) keeps of `v`: its low bits, sign-extended (the store's
/// truncation, spec 3.5), computed here from the two's-complement definition.
inline int32_t wrap_lane(int64_t v, int width) {
  const uint64_t low = static_cast<uint64_t>(v) & ((uint64_t{1} << width) - 1);
  return static_cast<int32_t>(low >= (uint64_t{1} << (width - 1)) ? int64_t(low) - (int64_t{1} << width)
                                                                  : int64_t(low));
}

/// Random values of a lane of `width` bits.
inline void fill_random_lanes(std::span<int8_t> v, int width, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(lane_min(width), lane_max(width));
  for (auto& x : v) x = static_cast<int8_t>(d(rng));
}

/// Host lanes (one int8 each) written to / read from DRAM at `width` bits (vta/driver/packing.h).
inline void put_lanes(const std::vector<int8_t>& lanes, DevBuf& buf, int width) {
  pack_lanes(lanes.data(), buf.data(), lanes.size(), width);
}
inline std::vector<int8_t> get_lanes(const DevBuf& buf, size_t lanes, int width) {
  std::vector<int8_t> v(lanes);
  unpack_lanes(buf.data(), v.data(), lanes, width);
  return v;
}

/// out[b][o] = wrap_lane(sum_c in[b][c] * w[o][c], output width) computed in blocks of `block` channels. With
/// `compression` the micro-op kernel is one uop per batch tile inside a two-level loop; without it
/// every (batch, out, in) tile triple is its own uop. `virtual_threads` (1 or 2) double-buffers the
/// input/weight SRAM, synchronised with the dependency tokens.
inline WorkloadResult blocked_gemm(Device& dev, int batch, int channels, int block, bool compression,
                                   int virtual_threads, uint32_t seed) {
  const Config& c = dev.config();
  const int blk_batch = c.batch(), blk_in = c.block_in(), blk_out = c.block_out();
  const int inp_elem = c.inp_elem_bytes(), wgt_elem = c.wgt_elem_bytes(), out_elem = c.out_elem_bytes();
  const int batch_tiles = batch / blk_batch, in_blocks = channels / blk_in, out_blocks = channels / blk_out,
            in_per_tile = block / blk_in, out_per_tile = block / blk_out;
  const int nib = in_blocks / in_per_tile, nob = out_blocks / out_per_tile, vt = virtual_threads;
  std::mt19937 rng(seed);
  std::vector<int8_t> in(size_t(batch) * channels), w(size_t(channels) * channels);
  fill_random_lanes(in, c.inp_width(), rng);
  fill_random_lanes(w, c.wgt_width(), rng);

  DevBuf inp(size_t(batch_tiles) * in_blocks * inp_elem), wgt(size_t(out_blocks) * in_blocks * wgt_elem),
      out(size_t(batch_tiles) * out_blocks * out_elem);
  // the tiles' lanes (one int8 each), packed at the configuration's widths as they are written
  const int inp_lanes = blk_batch * blk_in, wgt_lanes = blk_out * blk_in, out_lanes = blk_batch * blk_out;
  std::vector<int8_t> inp_tiles(size_t(batch_tiles) * in_blocks * inp_lanes),
      wgt_tiles(size_t(out_blocks) * in_blocks * wgt_lanes);
  for (int b = 0; b < batch; ++b)
    for (int ch = 0; ch < channels; ++ch)
      inp_tiles[((b / blk_batch) * in_blocks + ch / blk_in) * inp_lanes + (b % blk_batch) * blk_in + ch % blk_in] =
          in[size_t(b) * channels + ch];
  for (int o = 0; o < channels; ++o)
    for (int ch = 0; ch < channels; ++ch)
      wgt_tiles[(size_t(o / blk_out) * in_blocks + ch / blk_in) * wgt_lanes + (o % blk_out) * blk_in + ch % blk_in] =
          w[size_t(o) * channels + ch];
  put_lanes(inp_tiles, inp, c.inp_width());
  put_lanes(wgt_tiles, wgt, c.wgt_width());

  Program p(c);
  const Isa& isa = p.isa();
  // One GEMM kernel per virtual thread (its own SRAM slot). The reset reuses thread 0's kernel:
  // a reset ignores the source and weight indices, as the reference tests rely on.
  std::vector<Uop> uops;
  std::vector<uint32_t> kbgn, kend;
  for (int s = 0; s < vt; ++s) {
    kbgn.push_back(uint32_t(uops.size()));
    const uint32_t ib0 = uint32_t(s * batch_tiles * in_per_tile), wb0 = uint32_t(s * out_per_tile * in_per_tile);
    if (compression) {
      for (int b = 0; b < batch_tiles; ++b)
        uops.push_back({uint32_t(b * out_per_tile), ib0 + uint32_t(b * in_per_tile), wb0});
    } else {
      for (int b = 0; b < batch_tiles; ++b)
        for (int o = 0; o < out_per_tile; ++o)
          for (int i = 0; i < in_per_tile; ++i)
            uops.push_back({uint32_t(b * out_per_tile + o), ib0 + uint32_t(b * in_per_tile + i),
                            wb0 + uint32_t(o * in_per_tile + i)});
    }
    kend.push_back(uint32_t(uops.size()));
  }
  DevBuf ubuf(uops.size() * 4);
  put_uops(isa, ubuf, uops);

  auto kernel = [&](uint32_t bgn, uint32_t end, bool reset) {
    GemmInsn g = gemm_insn(bgn, end);
    g.reset = reset;
    if (compression) {
      g.iter_out = uint32_t(out_per_tile), g.dst_factor_out = 1, g.wgt_factor_out = uint32_t(in_per_tile);
      g.iter_in = uint32_t(in_per_tile), g.src_factor_in = 1, g.wgt_factor_in = 1;
    }
    return g;
  };

  p.load(MemId::kUop, 0, ubuf.base(4), 1, uint32_t(uops.size()), uint32_t(uops.size()));
  const int total = nob * nib;
  for (int ob = 0; ob < nob; ++ob) {
    GemmInsn reset = kernel(kbgn[0], kend[0], true);
    reset.deps.pop_next = ob > 0;  // the previous block's store has read the accumulators
    p.gemm(reset);
    for (int ib = 0; ib < nib; ++ib) {
      const int n = ob * nib + ib, s = n % vt;
      p.load(MemId::kInp, uint32_t(s * batch_tiles * in_per_tile), inp.base(inp_elem) + uint32_t(ib * in_per_tile),
             uint32_t(batch_tiles), uint32_t(in_per_tile), uint32_t(in_blocks), DepFlags{false, n >= vt, false, false});
      p.load(MemId::kWgt, uint32_t(s * out_per_tile * in_per_tile),
             wgt.base(wgt_elem) + uint32_t(ob * out_per_tile * in_blocks + ib * in_per_tile), uint32_t(out_per_tile),
             uint32_t(in_per_tile), uint32_t(in_blocks), push_next());
      GemmInsn g = kernel(kbgn[s], kend[s], false);
      g.deps = {true, false, n + vt < total, ib == nib - 1};
      p.gemm(g);
    }
    p.store(0, out.base(out_elem) + uint32_t(ob * out_per_tile), uint32_t(batch_tiles), uint32_t(out_per_tile),
            uint32_t(out_blocks), pop_prev() | push_prev());
  }
  p.finish(pop_next());

  WorkloadResult r = run_workload(dev, p);
  const std::vector<int8_t> got = get_lanes(out, size_t(batch_tiles) * out_blocks * out_lanes, c.out_width());
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < channels; ++o) {
      int64_t sum = 0;
      for (int ch = 0; ch < channels; ++ch)
        sum += int64_t(in[size_t(b) * channels + ch]) * w[size_t(o) * channels + ch];
      const int8_t lane =
          got[((b / blk_batch) * out_blocks + o / blk_out) * out_lanes + (b % blk_batch) * blk_out + o % blk_out];
      r.mismatches += lane != wrap_lane(static_cast<int32_t>(sum), c.out_width());
    }
  r.expected.inp_load_nbytes = uint64_t(total) * batch_tiles * in_per_tile * inp_elem;
  r.expected.wgt_load_nbytes = uint64_t(total) * out_per_tile * in_per_tile * wgt_elem;
  r.expected.gemm_counter = uint64_t(total) * batch_tiles * out_per_tile * in_per_tile;
  r.expected.out_store_nbytes = uint64_t(nob) * batch_tiles * out_per_tile * out_elem;
  r.expected.uop_load_nbytes = uint64_t(uops.size()) * 4;
  return r;
}

/// The reference ALU operation on int32 values (spec 2.8, docs/ISA.md for shift amounts).
inline int32_t alu_op_reference(AluOp op, int32_t a, int32_t b) {
  switch (op) {
    case AluOp::kMin: return std::min(a, b);
    case AluOp::kMax: return std::max(a, b);
    case AluOp::kAdd: return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
    case AluOp::kMul: return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
    case AluOp::kShr:
      if (b >= 0) return b >= 32 ? (a < 0 ? -1 : 0) : a >> b;
      return b <= -32 ? 0 : static_cast<int32_t>(static_cast<uint32_t>(a) << -b);
  }
  return 0;
}

/// For each batch tile: LOAD ACC (operands), one ALU instruction over `vector_size` lanes, STORE.
/// With `compression` the kernel is one uop in a loop; without, one uop per tile.
inline WorkloadResult alu_workload(Device& dev, AluOp op, bool use_imm, int batch, int vector_size, bool compression,
                                   uint32_t seed) {
  const Config& c = dev.config();
  const int blk_batch = c.batch(), blk_out = c.block_out(), acc_elem = c.acc_elem_bytes(),
            out_elem = c.out_elem_bytes(), lane_count = blk_batch * blk_out;
  const int batch_tiles = batch / blk_batch, vec_tiles = vector_size / blk_out,
            tiles = use_imm ? vec_tiles : 2 * vec_tiles;
  std::mt19937 rng(seed);
  // Operand ranges in the spirit of the reference tests: shifts by small amounts, int8-ish values.
  auto value = [&](bool operand_b) -> int32_t {
    if (op == AluOp::kShr && operand_b) return static_cast<int32_t>(rng() % 16) - 8;
    return static_cast<int32_t>(rng() % 65536) - 32768;
  };
  DevBuf acc(size_t(batch_tiles) * tiles * acc_elem), out(size_t(batch_tiles) * vec_tiles * out_elem);
  for (int b = 0; b < batch_tiles; ++b)
    for (int t = 0; t < tiles; ++t)
      for (int l = 0; l < lane_count; ++l)
        acc.as<int32_t>()[(size_t(b) * tiles + t) * lane_count + l] = value(t >= vec_tiles);
  const int32_t imm = use_imm ? value(true) : 0;

  Program p(c);
  std::vector<Uop> uops;
  if (compression) {
    uops.push_back({0, uint32_t(vec_tiles), 0});
  } else {
    for (int t = 0; t < vec_tiles; ++t) uops.push_back({uint32_t(t), uint32_t(vec_tiles + t), 0});
  }
  DevBuf ubuf(uops.size() * 4);
  put_uops(p.isa(), ubuf, uops);
  p.load(MemId::kUop, 0, ubuf.base(4), 1, uint32_t(uops.size()), uint32_t(uops.size()));
  for (int b = 0; b < batch_tiles; ++b) {
    p.load(MemId::kAcc, 0, acc.base(acc_elem) + uint32_t(b * tiles), 1, uint32_t(tiles), uint32_t(tiles),
           DepFlags{false, b > 0, false, false});
    AluInsn a = alu_insn(op, 0, uint32_t(uops.size()), use_imm, imm);
    if (compression) a.iter_in = uint32_t(vec_tiles), a.dst_factor_in = 1, a.src_factor_in = 1;
    a.deps = push_next();
    p.alu(a);
    p.store(0, out.base(out_elem) + uint32_t(b * vec_tiles), 1, uint32_t(vec_tiles), uint32_t(vec_tiles),
            pop_prev() | push_prev());
  }
  p.finish(pop_next());

  WorkloadResult r = run_workload(dev, p);
  const std::vector<int8_t> got = get_lanes(out, size_t(batch_tiles) * vec_tiles * lane_count, c.out_width());
  for (int b = 0; b < batch_tiles; ++b)
    for (int t = 0; t < vec_tiles; ++t)
      for (int l = 0; l < lane_count; ++l) {
        const int32_t lhs = acc.as<int32_t>()[(size_t(b) * tiles + t) * lane_count + l];
        const int32_t rhs = use_imm ? imm : acc.as<int32_t>()[(size_t(b) * tiles + vec_tiles + t) * lane_count + l];
        r.mismatches += got[(size_t(b) * vec_tiles + t) * lane_count + l] !=
                        wrap_lane(alu_op_reference(op, lhs, rhs), c.out_width());
      }
  r.expected.acc_load_nbytes = uint64_t(batch_tiles) * tiles * acc_elem;
  r.expected.alu_counter = uint64_t(batch_tiles) * vec_tiles;
  r.expected.out_store_nbytes = uint64_t(batch_tiles) * vec_tiles * out_elem;
  r.expected.uop_load_nbytes = uint64_t(uops.size()) * 4;
  return r;
}

}  // namespace vta::test
