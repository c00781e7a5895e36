// The form of the reference fsim's GEMM (apache/tvm-vta, src/sim/sim_driver.cc): the ISA's loop nest
// and, per micro-op, a multiply-add loop over int8 lanes with the shape fixed at compile time (its
// BitPacker accessors reduce to plain int8 and int32 reads at the default widths). Built at -O2, as the
// reference's build does (bench/CMakeLists.txt): GCC 12 at -O3 makes this loop about twice as slow
// (callgrind: 1,306 host instructions per micro-op against 671), which would flatter the kernels.

#include "gemm_plain_loop.h"

#include <cstddef>

namespace vta_bench {

void gemm_plain_loop(const vta::Uop* uops, uint32_t n, int32_t* acc, const int8_t* inp, const int8_t* wgt) {
  constexpr int kBatch = 1, kIn = 16, kOut = 16;
  for (uint32_t i = 0; i < 32; ++i) {
    for (uint32_t j = 0; j < 32; ++j) {
      for (uint32_t k = 0; k < n; ++k) {
        int32_t* a = acc + size_t(uops[k].dst + i + 2 * j) * kBatch * kOut;
        const int8_t* x = inp + size_t(uops[k].src + i + 3 * j) * kBatch * kIn;
        const int8_t* w = wgt + size_t(uops[k].wgt + j) * kIn * kOut;
        for (int b = 0; b < kBatch; ++b) {
          for (int o = 0; o < kOut; ++o) {
            int32_t sum = a[b * kOut + o];
            for (int c = 0; c < kIn; ++c) sum += int32_t(x[b * kIn + c]) * w[o * kIn + c];
            a[b * kOut + o] = sum;
          }
        }
      }
    }
  }
}

}  // namespace vta_bench
