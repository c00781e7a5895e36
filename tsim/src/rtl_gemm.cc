// The simulator side of vta_gemm's dot products (hw/rtl/vta_gemm.sv, `ifdef VTA_GEMM_DPI): the
// function the RTL's loop nest describes, computed here because Verilator unrolls that nest into
// scalar code (docs/PERFORMANCE.md).
#include "vta/tsim/rtl_gemm.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

#if defined(__SSE2__)
// 16 int8 elements (at `p`) as two vectors of 8 int16.
inline void widen(const uint8_t* p, __m128i& lo, __m128i& hi) {
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  lo = _mm_srai_epi16(_mm_unpacklo_epi8(bytes, bytes), 8);
  hi = _mm_srai_epi16(_mm_unpackhi_epi8(bytes, bytes), 8);
}

// The four int32 lanes of `v` added.
inline uint32_t lanes_sum(__m128i v) {
  v = _mm_add_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(1, 0, 3, 2)));
  v = _mm_add_epi32(v, _mm_shuffle_epi32(v, _MM_SHUFFLE(2, 3, 0, 1)));
  return uint32_t(_mm_cvtsi128_si32(v));
}

// The int8 case with rows of kChunks x 16 elements: each input row widened once, pmaddwd against
// each weight row, four rows' partial sums reduced together.
template <uint32_t kChunks>
void dot_int8(uint32_t batch, uint32_t block_out, const uint8_t* x, const uint8_t* w, uint32_t* dots) {
  constexpr uint32_t kRow = 16 * kChunks;
  for (uint32_t b = 0; b < batch; ++b) {
    __m128i xl[kChunks], xh[kChunks];
    for (uint32_t k = 0; k < kChunks; ++k) widen(x + b * kRow + 16 * k, xl[k], xh[k]);
    // one weight row's partial sums: four int32 lanes adding up to its dot product
    auto partial = [&](uint32_t o) {
      __m128i acc = _mm_setzero_si128();
      for (uint32_t k = 0; k < kChunks; ++k) {
        __m128i wl, wh;
        widen(w + o * kRow + 16 * k, wl, wh);
        acc = _mm_add_epi32(acc, _mm_add_epi32(_mm_madd_epi16(xl[k], wl), _mm_madd_epi16(xh[k], wh)));
      }
      return acc;
    };
    uint32_t o = 0;
    for (; o + 4 <= block_out; o += 4) {
      const __m128i s0 = partial(o), s1 = partial(o + 1), s2 = partial(o + 2), s3 = partial(o + 3);
      const __m128i t0 = _mm_add_epi32(_mm_unpacklo_epi32(s0, s1), _mm_unpackhi_epi32(s0, s1));
      const __m128i t1 = _mm_add_epi32(_mm_unpacklo_epi32(s2, s3), _mm_unpackhi_epi32(s2, s3));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dots + b * block_out + o),
                       _mm_add_epi32(_mm_unpacklo_epi64(t0, t1), _mm_unpackhi_epi64(t0, t1)));
    }
    for (; o < block_out; ++o) dots[b * block_out + o] = lanes_sum(partial(o));
  }
}
#endif

}  // namespace

extern "C" void vta_gemm_dot(int batch, int block_in, int block_out, int inp_width, int wgt_width, const uint32_t* inp,
                             const uint32_t* wgt, uint32_t* dots) {
  const auto nb = uint32_t(batch), ni = uint32_t(block_in), no = uint32_t(block_out);
#if defined(__SSE2__)
  if (inp_width == 8 && wgt_width == 8) {
    const auto* x = reinterpret_cast<const uint8_t*>(inp);
    const auto* w = reinterpret_cast<const uint8_t*>(wgt);
    switch (ni) {
      case 16: return dot_int8<1>(nb, no, x, w, dots);
      case 32: return dot_int8<2>(nb, no, x, w, dots);
      case 64: return dot_int8<4>(nb, no, x, w, dots);
      default: break;  // the generic loop below
    }
  }
#endif
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
