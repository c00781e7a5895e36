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
/// that order and those offsets for every kernel; always inlined, so a kernel compiled for other
/// instructions (VNNI) passes a lambda with its own target attribute.
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

/// A GEMM micro-op's rows: its accumulator row (BATCH x BLOCK_OUT lanes) and its input row (BATCH x
/// BLOCK_IN), from the indices for_each_uop gives. Always inlined into the kernels of every instruction set.
struct GemmRows {
  int32_t* acc;
  const int8_t* inp;
};
[[gnu::always_inline]] inline GemmRows gemm_rows(const GemmArgs& a, uint32_t dst, uint32_t src) {
  return {a.acc + size_t(dst) * a.batch * a.block_out, a.inp + size_t(src) * a.batch * a.block_in};
}

void gemm_portable(const GemmArgs& a);
/// Needs block_out % 8 == 0 and block_in % 2 == 0, and a CPU with AVX2.
void gemm_avx2(const GemmArgs& a);
bool cpu_has_avx2();
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
