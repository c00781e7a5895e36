#pragma once
/// \file vta/driver/int8_dot.h
/// The int8 dot products of one GEMM micro-op, the one home of that arithmetic for the fsim's
/// portable kernel (driver/src/fsim_gemm.cc) and the tsim's GEMM (tsim/src/rtl_gemm.cc, the DPI body
/// of hw/rtl/vta_gemm.sv; its AVX2 form where the CPU has it). The fsim's AVX2 and VNNI kernels compute
/// the same sums from weights packed for their instructions; the random differential programs hold all
/// of them equal.

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define VTA_INT8_DOT_AVX2 1
#endif

namespace vta {

namespace int8_dot_detail {

#if defined(__SSE2__)
// 16 int8 elements (at `p`) as two vectors of 8 int16.
inline void widen(const int8_t* p, __m128i& lo, __m128i& hi) {
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

// Rows of kChunks x 16 elements (SSE2, every x86-64): each input row widened once, pmaddwd (exact:
// a pair of products is at most 2^15) against each weight row, four rows' partial sums reduced together.
// kAdd: added to `acc`; else written over it.
template <int kChunks, bool kAdd>
void dots_sse2(int batch, int block_out, const int8_t* x, const int8_t* w, uint32_t* acc) {
  constexpr int kRow = 16 * kChunks;
  for (int b = 0; b < batch; ++b) {
    __m128i xl[kChunks], xh[kChunks];
    for (int k = 0; k < kChunks; ++k) widen(x + b * kRow + 16 * k, xl[k], xh[k]);
    // one weight row's partial sums: four int32 lanes adding up to its dot product
    auto partial = [&](int o) {
      __m128i sum = _mm_setzero_si128();
      for (int k = 0; k < kChunks; ++k) {
        __m128i wl, wh;
        widen(w + o * kRow + 16 * k, wl, wh);
        sum = _mm_add_epi32(sum, _mm_add_epi32(_mm_madd_epi16(xl[k], wl), _mm_madd_epi16(xh[k], wh)));
      }
      return sum;
    };
    uint32_t* out = acc + b * block_out;
    int o = 0;
    for (; o + 4 <= block_out; o += 4) {
      const __m128i s0 = partial(o), s1 = partial(o + 1), s2 = partial(o + 2), s3 = partial(o + 3);
      const __m128i t0 = _mm_add_epi32(_mm_unpacklo_epi32(s0, s1), _mm_unpackhi_epi32(s0, s1));
      const __m128i t1 = _mm_add_epi32(_mm_unpacklo_epi32(s2, s3), _mm_unpackhi_epi32(s2, s3));
      const __m128i sums = _mm_add_epi32(_mm_unpacklo_epi64(t0, t1), _mm_unpackhi_epi64(t0, t1));
      auto* d = reinterpret_cast<__m128i*>(out + o);
      _mm_storeu_si128(d, kAdd ? _mm_add_epi32(_mm_loadu_si128(d), sums) : sums);
    }
    for (; o < block_out; ++o) out[o] = (kAdd ? out[o] : 0u) + lanes_sum(partial(o));
  }
}
#endif

template <bool kAdd>
[[gnu::always_inline]] inline void dots(int batch, int block_in, int block_out, const int8_t* x, const int8_t* w,
                                        uint32_t* acc) {
#if defined(__SSE2__)
  switch (block_in) {
    case 16: return dots_sse2<1, kAdd>(batch, block_out, x, w, acc);
    case 32: return dots_sse2<2, kAdd>(batch, block_out, x, w, acc);
    case 64: return dots_sse2<4, kAdd>(batch, block_out, x, w, acc);
    default: break;  // the loop below
  }
#endif
  for (int b = 0; b < batch; ++b) {
    for (int o = 0; o < block_out; ++o) {
      uint32_t sum = 0;
      for (int c = 0; c < block_in; ++c) sum += uint32_t(int32_t(x[b * block_in + c]) * int32_t(w[o * block_in + c]));
      acc[b * block_out + o] = (kAdd ? acc[b * block_out + o] : 0u) + sum;
    }
  }
}

#if defined(VTA_INT8_DOT_AVX2)
// Rows of kChunks x 16 elements with AVX2 (chosen at run time): each input row sign-extended into
// kChunks vectors of 16 int16 once, vpmaddwd against each weight row (exact, as above), and eight rows'
// eight partial sums reduced together (two rounds of vphaddd, then the two 128-bit halves added).
// Writes (not adds) the sums; block_out's last block_out % 8 rows one at a time.
template <int kChunks>
__attribute__((target("avx2"))) void dots_avx2(int batch, int block_out, const int8_t* x, const int8_t* w,
                                               uint32_t* out) {
  constexpr int kRow = 16 * kChunks;
  auto widen16 = [&](const int8_t* p) __attribute__((target("avx2"))) {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  };
  for (int b = 0; b < batch; ++b) {
    __m256i xv[kChunks];
    for (int k = 0; k < kChunks; ++k) xv[k] = widen16(x + b * kRow + 16 * k);
    auto partial = [&](int o) __attribute__((target("avx2"))) {  // eight lanes adding up to row o's dot product
      __m256i sum = _mm256_madd_epi16(xv[0], widen16(w + o * kRow));
      for (int k = 1; k < kChunks; ++k)
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(xv[k], widen16(w + o * kRow + 16 * k)));
      return sum;
    };
    uint32_t* row = out + b * block_out;
    int o = 0;
    for (; o + 8 <= block_out; o += 8) {
      const __m256i h01 = _mm256_hadd_epi32(partial(o), partial(o + 1));
      const __m256i h23 = _mm256_hadd_epi32(partial(o + 2), partial(o + 3));
      const __m256i h45 = _mm256_hadd_epi32(partial(o + 4), partial(o + 5));
      const __m256i h67 = _mm256_hadd_epi32(partial(o + 6), partial(o + 7));
      // each 128-bit half: rows o..o+3 (q0) or o+4..o+7 (q1), over that half's elements
      const __m256i q0 = _mm256_hadd_epi32(h01, h23), q1 = _mm256_hadd_epi32(h45, h67);
      const __m256i sums =
          _mm256_add_epi32(_mm256_permute2x128_si256(q0, q1, 0x20), _mm256_permute2x128_si256(q0, q1, 0x31));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(row + o), sums);
    }
    for (; o < block_out; ++o) {
      const __m256i p = partial(o);
      const __m128i v = _mm_add_epi32(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
      row[o] = lanes_sum(v);
    }
  }
}
#endif

}  // namespace int8_dot_detail

/// acc[b * block_out + o] += sum over c < block_in of x[b * block_in + c] * w[o * block_in + c], for
/// b < batch and o < block_out: VTA's GEMM on one micro-op's rows (x: batch x block_in inputs, w:
/// block_out x block_in weights), in 32 bits that wrap as the accumulator does.
inline void int8_dots_add(int batch, int block_in, int block_out, const int8_t* x, const int8_t* w, uint32_t* acc) {
  int8_dot_detail::dots<true>(batch, block_in, block_out, x, w, acc);
}

/// The same sums written to `out` (batch x block_out) instead of added to it.
inline void int8_dots(int batch, int block_in, int block_out, const int8_t* x, const int8_t* w, uint32_t* out) {
  int8_dot_detail::dots<false>(batch, block_in, block_out, x, w, out);
}

/// Whether this CPU runs AVX2 (false where this header has no AVX2 form: not x86-64, or not GCC/Clang).
inline bool cpu_has_avx2() {
#if defined(VTA_INT8_DOT_AVX2)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

/// int8_dots with AVX2 instructions for rows of 16, 32 or 64 elements (int8_dots for other rows): the
/// same sums. Only on a CPU where cpu_has_avx2(); the tsim's GEMM asks once and calls it, the fsim's
/// portable kernel stays int8_dots_add.
inline void int8_dots_avx2(int batch, int block_in, int block_out, const int8_t* x, const int8_t* w, uint32_t* out) {
#if defined(VTA_INT8_DOT_AVX2)
  switch (block_in) {
    case 16: return int8_dot_detail::dots_avx2<1>(batch, block_out, x, w, out);
    case 32: return int8_dot_detail::dots_avx2<2>(batch, block_out, x, w, out);
    case 64: return int8_dot_detail::dots_avx2<4>(batch, block_out, x, w, out);
    default: break;
  }
#endif
  int8_dots(batch, block_in, block_out, x, w, out);
}

}  // namespace vta
