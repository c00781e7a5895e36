#pragma once
// GEMM inner loops of the fsim: a portable kernel, an AVX2 kernel and an AVX-512 VNNI kernel with identical
// results.

#include <cstdint>

#include "vta/driver/isa.h"

namespace vta::fsim_detail {

/// One GEMM instruction (non-reset) after validation: every index it forms is in range.
struct GemmArgs {
  const Uop* uops;
  uint32_t uop_bgn, uop_end, iter_out, iter_in;
  uint32_t dst_factor_out, dst_factor_in, src_factor_out, src_factor_in, wgt_factor_out, wgt_factor_in;
  int batch, block_in, block_out;
  int32_t* acc;
  const int8_t* inp;
  const int8_t* wgt;        ///< native layout: tile, then [o][c]
  const int8_t* wgt_vnni;   ///< vnni layout: tile, then [c/4][o][c%4]
  const int32_t* wgt_bias;  ///< tile, then [o]: 128 * sum_c w[o][c]
  const int8_t* wgt_avx2;   ///< avx2 layout: tile, then [c/2][o][c%2]
  const int16_t* inp_avx2;  ///< the input SRAM sign-extended (avx2 kernel)
};

/// The ISA's loop nest over one GEMM or ALU instruction (spec 3.3): for iter_out, iter_in, then the
/// micro-ops [uop_bgn, uop_end), calls `f(dst, src, wgt)` with each micro-op's indices plus the loops'
/// affine offsets (`wgt` is 0 for an instruction without weight factors, the ALU). The one home of
/// that order for the ALU, GEMM resets and the portable kernel (the vector kernels take the same
/// executions grouped by weight tile, for_each_weight_run); always inlined.
template <class Insn, class F>
[[gnu::always_inline]] inline void for_each_uop(const Insn& x, const Uop* uops, F&& f) {
  for (uint32_t i = 0; i < x.iter_out; ++i) {
    for (uint32_t j = 0; j < x.iter_in; ++j) {
      const uint32_t dst = i * x.dst_factor_out + j * x.dst_factor_in;
      const uint32_t src = i * x.src_factor_out + j * x.src_factor_in;
      uint32_t wgt = 0;
      if constexpr (requires { x.wgt_factor_in; }) wgt = i * x.wgt_factor_out + j * x.wgt_factor_in;
      for (uint32_t k = x.uop_bgn; k < x.uop_end; ++k) f(uops[k].dst + dst, uops[k].src + src, uops[k].wgt + wgt);
    }
  }
}

/// A run of one GEMM's micro-op executions that all read one weight tile: accumulator row
/// `dst + i * dst_out + j * dst_in` and input row `src + i * src_out + j * src_in` for i < n_out, j < n_in.
struct WeightRun {
  uint32_t wgt, dst, src, n_out, n_in, dst_out, dst_in, src_out, src_in;
};

/// for_each_weight_run's loop nest, one instance per kind of weight factors, so that a run's extent of 1
/// is a constant: the kernels' loops over a run then lose that loop, which is worth about a third of
/// the VNNI kernel's speed on the benchmark (one nest with the extents at run time: 330 against 520 M
/// micro-ops/s).
template <bool kOutFree, bool kInFree, class F>
[[gnu::always_inline]] inline void weight_runs(const GemmArgs& a, F&& f) {
  // a loop whose weight factor is 0 is the run's (its iterations, its factors as the run's steps); a
  // loop that changes the weight is iterated here (the run's extent along it is 1)
  const Uop* u = a.uops;
  const uint32_t outer = kOutFree ? 1 : a.iter_out, inner = kInFree ? 1 : a.iter_in;
  const uint32_t n_out = kOutFree ? a.iter_out : 1, n_in = kInFree ? a.iter_in : 1;
  for (uint32_t i = 0; i < outer; ++i) {
    for (uint32_t j = 0; j < inner; ++j) {
      const uint32_t w = i * a.wgt_factor_out + j * a.wgt_factor_in;
      const uint32_t d = i * a.dst_factor_out + j * a.dst_factor_in, s = i * a.src_factor_out + j * a.src_factor_in;
      for (uint32_t k = a.uop_bgn; k < a.uop_end; ++k) {
        f(WeightRun{u[k].wgt + w, u[k].dst + d, u[k].src + s, n_out, n_in, a.dst_factor_out, a.dst_factor_in,
                    a.src_factor_out, a.src_factor_in});
      }
    }
  }
}

/// A GEMM's micro-op executions as runs over one weight tile each, for the vector kernels: a loop whose
/// weight factor is 0 reads the same tile in every iteration, so it becomes the run and the kernel loads
/// the tile once a run (into registers, where the shape is fixed) instead of once an execution. A GEMM
/// (not a reset) only adds products into the accumulator, in 32 bits that wrap, so any order of its
/// executions leaves the same bits as the ISA's order (for_each_uop), which the portable kernel keeps and
/// the tests compare against. Loops whose weight factors are both nonzero give runs of one execution.
template <class F>
[[gnu::always_inline]] inline void for_each_weight_run(const GemmArgs& a, F&& f) {
  const bool out_free = a.wgt_factor_out == 0, in_free = a.wgt_factor_in == 0;
  if (out_free && in_free) return weight_runs<true, true>(a, f);
  if (out_free) return weight_runs<true, false>(a, f);
  if (in_free) return weight_runs<false, true>(a, f);
  weight_runs<false, false>(a, f);
}

/// Calls `f(dst, src)` for each execution of a run, in its loops' order.
template <class F>
[[gnu::always_inline]] inline void for_each_in_run(const WeightRun& r, F&& f) {
  for (uint32_t i = 0; i < r.n_out; ++i) {
    for (uint32_t j = 0; j < r.n_in; ++j) f(r.dst + i * r.dst_out + j * r.dst_in, r.src + i * r.src_out + j * r.src_in);
  }
}

/// A GEMM micro-op's rows: its accumulator row (BATCH x BLOCK_OUT lanes) and its input row (BATCH x
/// BLOCK_IN), from the indices for_each_uop gives (the portable kernel's).
struct GemmRows {
  int32_t* acc;
  const int8_t* inp;
};
[[gnu::always_inline]] inline GemmRows gemm_rows(const GemmArgs& a, uint32_t dst, uint32_t src) {
  return {a.acc + size_t(dst) * a.batch * a.block_out, a.inp + size_t(src) * a.batch * a.block_in};
}

void gemm_portable(const GemmArgs& a);
/// Needs block_out % 8 == 0 and block_in % 2 == 0, and a CPU with AVX2 (vta::cpu_has_avx2, int8_dot.h).
void gemm_avx2(const GemmArgs& a);
bool avx2_shape_ok(int block_in, int block_out);
/// Rewrites one weight tile into the avx2 layout.
void avx2_pack_tile(const int8_t* w, int8_t* avx2, int block_in, int block_out);
/// Needs block_out % 16 == 0 and block_in % 4 == 0, and a CPU with AVX-512 F/BW/VNNI.
void gemm_vnni(const GemmArgs& a);
bool cpu_has_vnni();
bool vnni_shape_ok(int block_in, int block_out);
/// Rewrites one weight tile into the vnni layout and its bias row.
void vnni_pack_tile(const int8_t* w, int8_t* vnni, int32_t* bias, int block_in, int block_out);

}  // namespace vta::fsim_detail
