#pragma once
// Hand-built VTA programs in the style of the reference bare-metal tests (alu_test, gemm_test,
// blocked_gemm_test), written anew against the encoder. Each builds its program and data, and knows
// the expected output (from a plain C++ reference) and the closed-form statistics.

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "test_util.h"

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

inline int8_t trunc8(int64_t v) { return static_cast<int8_t>(static_cast<uint8_t>(static_cast<uint64_t>(v) & 0xff)); }

/// out[b][o] = trunc8(sum_c in[b][c] * w[o][c]) computed in blocks of `block` channels. With
/// `compression` the micro-op kernel is one uop per batch tile inside a two-level loop; without it
/// every (batch, out, in) tile triple is its own uop. `virtual_threads` (1 or 2) double-buffers the
/// input/weight SRAM, synchronised with the dependency tokens.
inline WorkloadResult blocked_gemm(Device& dev, int batch, int channels, int block, bool compression,
                                   int virtual_threads, uint32_t seed) {
  const Config& c = dev.config();
  const int BA = c.batch(), BI = c.block_in(), BO = c.block_out();
  const int IE = c.inp_elem_bytes(), WE = c.wgt_elem_bytes(), OE = c.out_elem_bytes();
  const int B = batch / BA, CT = channels / BI, OT = channels / BO, I = block / BI, O = block / BO;
  const int nib = CT / I, nob = OT / O, vt = virtual_threads;
  std::mt19937 rng(seed);
  std::vector<int8_t> in(size_t(batch) * channels), w(size_t(channels) * channels);
  fill_random(in, rng);
  fill_random(w, rng);

  DevBuf inp(size_t(B) * CT * IE), wgt(size_t(OT) * CT * WE), out(size_t(B) * OT * OE);
  for (int b = 0; b < batch; ++b)
    for (int ch = 0; ch < channels; ++ch)
      inp.as<int8_t>()[((b / BA) * CT + ch / BI) * IE + (b % BA) * BI + ch % BI] = in[size_t(b) * channels + ch];
  for (int o = 0; o < channels; ++o)
    for (int ch = 0; ch < channels; ++ch)
      wgt.as<int8_t>()[(size_t(o / BO) * CT + ch / BI) * WE + (o % BO) * BI + ch % BI] = w[size_t(o) * channels + ch];

  Program p(c);
  const Isa& isa = p.isa();
  // One GEMM kernel per virtual thread (its own SRAM slot). The reset reuses thread 0's kernel:
  // a reset ignores the source and weight indices, as the reference tests rely on.
  std::vector<Uop> uops;
  std::vector<uint32_t> kbgn, kend;
  for (int s = 0; s < vt; ++s) {
    kbgn.push_back(uint32_t(uops.size()));
    const uint32_t ib0 = uint32_t(s * B * I), wb0 = uint32_t(s * O * I);
    if (compression) {
      for (int b = 0; b < B; ++b) uops.push_back({uint32_t(b * O), ib0 + uint32_t(b * I), wb0});
    } else {
      for (int b = 0; b < B; ++b)
        for (int o = 0; o < O; ++o)
          for (int i = 0; i < I; ++i)
            uops.push_back({uint32_t(b * O + o), ib0 + uint32_t(b * I + i), wb0 + uint32_t(o * I + i)});
    }
    kend.push_back(uint32_t(uops.size()));
  }
  DevBuf ubuf(uops.size() * 4);
  put_uops(isa, ubuf, uops);

  auto kernel = [&](uint32_t bgn, uint32_t end, bool reset) {
    GemmInsn g = gemm_insn(bgn, end);
    g.reset = reset;
    if (compression) {
      g.iter_out = uint32_t(O), g.dst_factor_out = 1, g.wgt_factor_out = uint32_t(I);
      g.iter_in = uint32_t(I), g.src_factor_in = 1, g.wgt_factor_in = 1;
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
      p.load(MemId::kInp, uint32_t(s * B * I), inp.base(IE) + uint32_t(ib * I), uint32_t(B), uint32_t(I), uint32_t(CT),
             DepFlags{false, n >= vt, false, false});
      p.load(MemId::kWgt, uint32_t(s * O * I), wgt.base(WE) + uint32_t(ob * O * CT + ib * I), uint32_t(O), uint32_t(I),
             uint32_t(CT), push_next());
      GemmInsn g = kernel(kbgn[s], kend[s], false);
      g.deps = {true, false, n + vt < total, ib == nib - 1};
      p.gemm(g);
    }
    p.store(0, out.base(OE) + uint32_t(ob * O), uint32_t(B), uint32_t(O), uint32_t(OT), pop_prev() | push_prev());
  }
  p.finish(pop_next());

  WorkloadResult r = run_workload(dev, p);
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < channels; ++o) {
      int64_t sum = 0;
      for (int ch = 0; ch < channels; ++ch)
        sum += int64_t(in[size_t(b) * channels + ch]) * w[size_t(o) * channels + ch];
      const int8_t got = out.as<int8_t>()[((b / BA) * OT + o / BO) * OE + (b % BA) * BO + o % BO];
      r.mismatches += got != trunc8(static_cast<int32_t>(sum));
    }
  r.expected.inp_load_nbytes = uint64_t(total) * B * I * IE;
  r.expected.wgt_load_nbytes = uint64_t(total) * O * I * WE;
  r.expected.gemm_counter = uint64_t(total) * B * O * I;
  r.expected.out_store_nbytes = uint64_t(nob) * B * O * OE;
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
  const int BA = c.batch(), BO = c.block_out(), AE = c.acc_elem_bytes(), OE = c.out_elem_bytes(), L = BA * BO;
  const int B = batch / BA, V = vector_size / BO, tiles = use_imm ? V : 2 * V;
  std::mt19937 rng(seed);
  // Operand ranges in the spirit of the reference tests: shifts by small amounts, int8-ish values.
  auto value = [&](bool operand_b) -> int32_t {
    if (op == AluOp::kShr && operand_b) return static_cast<int32_t>(rng() % 16) - 8;
    return static_cast<int32_t>(rng() % 65536) - 32768;
  };
  DevBuf acc(size_t(B) * tiles * AE), out(size_t(B) * V * OE);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < tiles; ++t)
      for (int l = 0; l < L; ++l) acc.as<int32_t>()[(size_t(b) * tiles + t) * L + l] = value(t >= V);
  const int32_t imm = use_imm ? value(true) : 0;

  Program p(c);
  std::vector<Uop> uops;
  if (compression) {
    uops.push_back({0, uint32_t(V), 0});
  } else {
    for (int t = 0; t < V; ++t) uops.push_back({uint32_t(t), uint32_t(V + t), 0});
  }
  DevBuf ubuf(uops.size() * 4);
  put_uops(p.isa(), ubuf, uops);
  p.load(MemId::kUop, 0, ubuf.base(4), 1, uint32_t(uops.size()), uint32_t(uops.size()));
  for (int b = 0; b < B; ++b) {
    p.load(MemId::kAcc, 0, acc.base(AE) + uint32_t(b * tiles), 1, uint32_t(tiles), uint32_t(tiles),
           DepFlags{false, b > 0, false, false});
    AluInsn a = alu_insn(op, 0, uint32_t(uops.size()), use_imm, imm);
    if (compression) a.iter_in = uint32_t(V), a.dst_factor_in = 1, a.src_factor_in = 1;
    a.deps = push_next();
    p.alu(a);
    p.store(0, out.base(OE) + uint32_t(b * V), 1, uint32_t(V), uint32_t(V), pop_prev() | push_prev());
  }
  p.finish(pop_next());

  WorkloadResult r = run_workload(dev, p);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < V; ++t)
      for (int l = 0; l < L; ++l) {
        const int32_t A = acc.as<int32_t>()[(size_t(b) * tiles + t) * L + l];
        const int32_t Bv = use_imm ? imm : acc.as<int32_t>()[(size_t(b) * tiles + V + t) * L + l];
        r.mismatches += out.as<int8_t>()[(size_t(b) * V + t) * OE + l] != trunc8(alu_op_reference(op, A, Bv));
      }
  r.expected.acc_load_nbytes = uint64_t(B) * tiles * AE;
  r.expected.alu_counter = uint64_t(B) * V;
  r.expected.out_store_nbytes = uint64_t(B) * V * OE;
  r.expected.uop_load_nbytes = uint64_t(uops.size()) * 4;
  return r;
}

}  // namespace vta::test
