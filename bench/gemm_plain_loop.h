#pragma once
// The GEMM of bench_fsim.cc's benchmark computed the straightforward way, as the reference fsim does.

#include <cstdint>

#include "vta/driver/isa.h"

namespace vta_bench {

/// run_compute's loop nest: iter_out 32, iter_in 32.
inline constexpr uint32_t kPlainLoopIterations = 32 * 32;

/// The GEMM instruction of bench_fsim.cc's run_compute (factors dst 1/2, src 1/3, wgt 0/1) over `uops`,
/// on the default 1 x 16 x 16 shape: per micro-op and output lane, the accumulator plus the int8 dot
/// product of the input row and the weight row.
void gemm_plain_loop(const vta::Uop* uops, uint32_t n, int32_t* acc, const int8_t* inp, const int8_t* wgt);

}  // namespace vta_bench
