#include <immintrin.h>

#include <cstring>

#include "fsim_kernels.h"
#include "vta/driver/int8_dot.h"

namespace vta::fsim_detail {

// The dot products of vta/driver/int8_dot.h (SSE2 on every x86-64, a plain loop elsewhere), which the
// tsim's GEMM computes too.
void gemm_portable(const GemmArgs& a) {
  const size_t wsize = size_t(a.block_in) * a.block_out;
  for_each_uop(a, a.uops, [&](uint32_t dst, uint32_t src, uint32_t wgt) {
    const auto [acc, x] = gemm_rows(a, dst, src);
    int8_dots_add(a.batch, a.block_in, a.block_out, x, a.wgt + wgt * wsize, reinterpret_cast<uint32_t*>(acc));
  });
}

bool avx2_shape_ok(int block_in, int block_out) { return block_out % 8 == 0 && block_in % 2 == 0; }

bool cpu_has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}

void avx2_pack_tile(const int8_t* w, int8_t* avx2, int block_in, int block_out) {
  for (int o = 0; o < block_out; ++o) {
    for (int c = 0; c < block_in; ++c) avx2[((c / 2) * block_out + o) * 2 + c % 2] = w[o * block_in + c];
  }
}

// vpmaddwd multiplies signed 16-bit lanes and adds each pair into a 32-bit lane: with the inputs and
// weights sign-extended, a pair of inputs (x[2g], x[2g+1]) broadcast against the weights of eight
// outputs (o, 2g), (o, 2g+1) gives eight exact partial sums (|x w| <= 2^14, a pair <= 2^15). The 32-bit
// additions wrap as the accumulator does, so the results equal the portable kernel's bit for bit.
// (vpmaddubsw, the byte form, saturates its 16-bit pairs and would not.) The weights stay bytes in that
// pair order (`wgt_avx2`) and are sign-extended as they are loaded (vpmovsxbw): a micro-op reads 256
// bytes of weights instead of 512, and the weight SRAM's copy fits the caches twice as well (a GEMM
// whose micro-ops visit ~1,000 weight tiles: medians 81.9 -> 98.8 M micro-ops/s on a Zen 3, docs/PERFORMANCE.md).
// The inputs are kept sign-extended (`inp_avx2`, written with the input SRAM), so a pair is one 32-bit
// broadcast from memory. kPairs / kOBlocks > 0 fix block_in / 2 and block_out / 8 at compile time; 0
// reads them from the arguments.
#define VTA_AVX2_TARGET __attribute__((target("avx2")))
template <int kPairs, int kOBlocks>
VTA_AVX2_TARGET void gemm_avx2_impl(const GemmArgs& a) {
  const int pairs = kPairs > 0 ? kPairs : a.block_in / 2;
  const int oblocks = kOBlocks > 0 ? kOBlocks : a.block_out / 8;
  const size_t block_in = size_t(pairs) * 2, block_out = size_t(oblocks) * 8, batch = size_t(a.batch);
  for_each_uop(a, a.uops, [&](uint32_t dst_row, uint32_t src, uint32_t wgt) VTA_AVX2_TARGET {
    int32_t* acc = a.acc + dst_row * batch * block_out;
    const int16_t* x = a.inp_avx2 + src * batch * block_in;
    const int8_t* w2 = a.wgt_avx2 + wgt * block_in * block_out;
    for (size_t b = 0; b < batch; ++b) {
      const int16_t* xb = x + b * block_in;
      int32_t* dst = acc + b * block_out;
      auto pair = [&](int g) VTA_AVX2_TARGET {  // (x[2g], x[2g+1]) in every 32-bit lane
        int32_t p;
        std::memcpy(&p, xb + 2 * g, 4);
        return _mm256_set1_epi32(p);
      };
      auto weights = [&](int g, int ob) VTA_AVX2_TARGET {
        return _mm256_cvtepi8_epi16(
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(w2 + (size_t(g) * block_out + ob * 8) * 2)));
      };
      if constexpr (kOBlocks > 0) {  // the sums of a fixed shape stay in registers
        __m256i sum[kOBlocks];
        for (int ob = 0; ob < kOBlocks; ++ob) sum[ob] = _mm256_loadu_si256(reinterpret_cast<__m256i*>(dst + ob * 8));
        for (int g = 0; g < pairs; ++g) {
          const __m256i xp = pair(g);
          for (int ob = 0; ob < kOBlocks; ++ob)
            sum[ob] = _mm256_add_epi32(sum[ob], _mm256_madd_epi16(xp, weights(g, ob)));
        }
        for (int ob = 0; ob < kOBlocks; ++ob) _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + ob * 8), sum[ob]);
      } else {  // any shape: the partial sums go to the accumulator pair by pair (the additions wrap alike)
        for (int g = 0; g < pairs; ++g) {
          const __m256i xp = pair(g);
          for (int ob = 0; ob < oblocks; ++ob) {
            auto* d = reinterpret_cast<__m256i*>(dst + ob * 8);
            _mm256_storeu_si256(d, _mm256_add_epi32(_mm256_loadu_si256(d), _mm256_madd_epi16(xp, weights(g, ob))));
          }
        }
      }
    }
  });
}
#undef VTA_AVX2_TARGET

void gemm_avx2(const GemmArgs& a) {
  if (a.block_in == 16 && a.block_out == 16) return gemm_avx2_impl<8, 2>(a);
  if (a.block_in == 32 && a.block_out == 32) return gemm_avx2_impl<16, 4>(a);
  gemm_avx2_impl<0, 0>(a);
}

bool vnni_shape_ok(int block_in, int block_out) { return block_out % 16 == 0 && block_in % 4 == 0; }

bool cpu_has_vnni() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
}

void vnni_pack_tile(const int8_t* w, int8_t* vnni, int32_t* bias, int block_in, int block_out) {
  for (int o = 0; o < block_out; ++o) {
    int32_t sum = 0;
    for (int c = 0; c < block_in; ++c) {
      vnni[((c / 4) * block_out + o) * 4 + c % 4] = w[o * block_in + c];
      sum += w[o * block_in + c];
    }
    bias[o] = 128 * sum;
  }
}

// vpdpbusd multiplies unsigned by signed bytes. Inputs are signed, so each input byte is biased by
// +128 (xor 0x80) and the surplus 128 * sum_c w[o][c] is subtracted once per output lane.
// kGroups / kOBlocks > 0 fix block_in / 4 and block_out / 16 at compile time (fully unrolled inner
// loops for the common shapes); 0 means "read them from the arguments".
#define VTA_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))
template <int kGroups, int kOBlocks>
VTA_VNNI_TARGET void gemm_vnni_impl(const GemmArgs& a) {
  const int groups = kGroups > 0 ? kGroups : a.block_in / 4;
  const int oblocks = kOBlocks > 0 ? kOBlocks : a.block_out / 16;
  for_each_uop(a, a.uops, [&](uint32_t dst_row, uint32_t src, uint32_t wgt) VTA_VNNI_TARGET {
    const auto [acc, x] = gemm_rows(a, dst_row, src);
    const int8_t* wv = a.wgt_vnni + size_t(wgt) * a.block_in * a.block_out;
    const int32_t* bias = a.wgt_bias + size_t(wgt) * a.block_out;
    for (int b = 0; b < a.batch; ++b) {
      const int8_t* xb = x + b * a.block_in;
      for (int ob = 0; ob < oblocks; ++ob) {
        __m512i sum = _mm512_setzero_si512();
        for (int g = 0; g < groups; ++g) {
          int32_t quad;
          std::memcpy(&quad, xb + 4 * g, 4);
          const __m512i xq = _mm512_set1_epi32(quad ^ int32_t(0x80808080u));
          const __m512i wq = _mm512_loadu_si512(wv + (size_t(g) * a.block_out + ob * 16) * 4);
          sum = _mm512_dpbusd_epi32(sum, xq, wq);
        }
        int32_t* dst = acc + b * a.block_out + ob * 16;
        __m512i r = _mm512_add_epi32(_mm512_loadu_si512(dst), sum);
        r = _mm512_sub_epi32(r, _mm512_loadu_si512(bias + ob * 16));
        _mm512_storeu_si512(dst, r);
      }
    }
  });
}
#undef VTA_VNNI_TARGET

void gemm_vnni(const GemmArgs& a) {
  if (a.block_in == 16 && a.block_out == 16) return gemm_vnni_impl<4, 1>(a);
  if (a.block_in == 32 && a.block_out == 32) return gemm_vnni_impl<8, 2>(a);
  gemm_vnni_impl<0, 0>(a);
}

}  // namespace vta::fsim_detail
