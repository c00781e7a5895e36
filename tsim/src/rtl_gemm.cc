// The simulator side of vta_gemm's dot products (hw/rtl/vta_gemm.sv, `ifdef VTA_GEMM_DPI): the
// function the RTL's loop nest describes, computed here because Verilator unrolls that nest into
// scalar code (docs/PERFORMANCE.md).
#include "vta/tsim/rtl_gemm.h"

#include "vta/driver/int8_dot.h"

namespace {

// Element `index` of `width` bits (at most 32) of a packed vector, sign-extended.
int32_t element(const uint32_t* v, uint32_t index, uint32_t width) {
  const uint64_t lsb = uint64_t(index) * width;
  const uint32_t word = uint32_t(lsb / 32), shift = uint32_t(lsb % 32);
  uint64_t bits = v[word] >> shift;
  if (shift + width > 32) bits |= uint64_t(v[word + 1]) << (32 - shift);
  const uint32_t sign = 32 - width;
  return int32_t(uint32_t(bits) << sign) >> sign;
}

}  // namespace

extern "C" void vta_gemm_dot(int batch, int block_in, int block_out, int inp_width, int wgt_width, const uint32_t* inp,
                             const uint32_t* wgt, uint32_t* dots) {
  const auto nb = uint32_t(batch), ni = uint32_t(block_in), no = uint32_t(block_out);
  if (inp_width == 8 && wgt_width == 8) {  // VTA's widths: the fsim's arithmetic (vta/driver/int8_dot.h)
    static const bool avx2 = vta::cpu_has_avx2();
    const auto* x = reinterpret_cast<const int8_t*>(inp);
    const auto* w = reinterpret_cast<const int8_t*>(wgt);
    if (avx2) {
      vta::int8_dots_avx2(batch, block_in, block_out, x, w, dots);
    } else {
      vta::int8_dots(batch, block_in, block_out, x, w, dots);
    }
    return;
  }
  for (uint32_t b = 0; b < nb; ++b) {
    for (uint32_t o = 0; o < no; ++o) {
      uint32_t sum = 0;  // 32 bits, wrapping, as the RTL's sum
      for (uint32_t c = 0; c < ni; ++c) {
        sum += uint32_t(element(inp, b * ni + c, uint32_t(inp_width))) *
               uint32_t(element(wgt, o * ni + c, uint32_t(wgt_width)));
      }
      dots[b * no + o] = sum;
    }
  }
}
