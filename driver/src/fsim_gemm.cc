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

// The packings below are transpositions: a tile [o][c] read as elements of two bytes (the avx2 layout's
// pairs) or four (the vnni layout's groups) is [o][g], and each layout is its transpose [g][o]. Where
// both sides are multiples of the block, SSE2 transposes blocks of 8 x 8 pairs or 4 x 4 groups (a LOAD
// WGT packs every tile it writes: the byte loop was 21.5 % of the fsim's instructions on ResNet-18 with
// the AVX2 kernel, callgrind); elsewhere the byte loop does.

namespace {
// Rows r[0..7] of eight 16-bit elements become its columns.
void transpose_8x8_epi16(__m128i r[8]) {
  __m128i a[8], b[8];
  for (int k = 0; k < 4; ++k) {
    a[2 * k] = _mm_unpacklo_epi16(r[2 * k], r[2 * k + 1]);
    a[2 * k + 1] = _mm_unpackhi_epi16(r[2 * k], r[2 * k + 1]);
  }
  for (int k = 0; k < 2; ++k) {
    b[4 * k] = _mm_unpacklo_epi32(a[4 * k], a[4 * k + 2]);
    b[4 * k + 1] = _mm_unpackhi_epi32(a[4 * k], a[4 * k + 2]);
    b[4 * k + 2] = _mm_unpacklo_epi32(a[4 * k + 1], a[4 * k + 3]);
    b[4 * k + 3] = _mm_unpackhi_epi32(a[4 * k + 1], a[4 * k + 3]);
  }
  for (int k = 0; k < 4; ++k) {
    r[2 * k] = _mm_unpacklo_epi64(b[k], b[k + 4]);
    r[2 * k + 1] = _mm_unpackhi_epi64(b[k], b[k + 4]);
  }
}
}  // namespace

void avx2_pack_tile(const int8_t* w, int8_t* avx2, int block_in, int block_out) {
  const int pairs = block_in / 2;
  if (pairs % 8 == 0 && block_out % 8 == 0) {
    for (int ob = 0; ob < block_out; ob += 8) {
      for (int gb = 0; gb < pairs; gb += 8) {
        __m128i r[8];  // outputs ob.., pairs gb..
        for (int k = 0; k < 8; ++k)
          r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + (ob + k) * block_in + gb * 2));
        transpose_8x8_epi16(r);
        for (int k = 0; k < 8; ++k)
          _mm_storeu_si128(reinterpret_cast<__m128i*>(avx2 + ((gb + k) * block_out + ob) * 2), r[k]);
      }
    }
    return;
  }
  for (int o = 0; o < block_out; ++o) {
    for (int c = 0; c < block_in; ++c) avx2[((c / 2) * block_out + o) * 2 + c % 2] = w[o * block_in + c];
  }
}

// vpmaddwd multiplies signed 16-bit lanes and adds each pair into a 32-bit lane: with the inputs and
// weights sign-extended, a pair of inputs (x[2g], x[2g+1]) broadcast against the weights of eight
// outputs (o, 2g), (o, 2g+1) gives eight exact partial sums (|x w| <= 2^14, a pair <= 2^15). The 32-bit
// additions wrap as the accumulator does, so the results equal the portable kernel's bit for bit.
// (vpmaddubsw, the byte form, saturates its 16-bit pairs and would not.) The weights stay bytes in that
// pair order (`wgt_avx2`) and are sign-extended (vpmovsxbw) once a weight run (for_each_weight_run): for
// a fixed shape the run's executions stream past the extended tile, which the lambda holds by value so
// that it can live in registers (16 of them for 16x16: those that do not fit are read from the stack,
// never extended again). The inputs are kept sign-extended (`inp_avx2`, written with the input SRAM),
// so a pair is one 32-bit broadcast from memory. The empty asm on each sum keeps the additions in
// program order: without it GCC 12 reassociates a row's 16 additions into a tree whose partial
// products spill (248 M against about 320 M micro-ops/s on the benchmark, docs/PERFORMANCE.md).
// kPairs / kOBlocks > 0 fix block_in / 2 and block_out / 8 at compile time, kBatch > 0 the batch; 0 reads
// them from the arguments (and the weights from memory, where a run keeps them in the first-level cache).
#define VTA_AVX2_TARGET __attribute__((target("avx2")))
template <int kPairs, int kOBlocks, int kBatch>
VTA_AVX2_TARGET void gemm_avx2_impl(const GemmArgs& a) {
  const int pairs = kPairs > 0 ? kPairs : a.block_in / 2;
  const int oblocks = kOBlocks > 0 ? kOBlocks : a.block_out / 8;
  const size_t block_in = size_t(pairs) * 2, block_out = size_t(oblocks) * 8;
  const size_t batch = kBatch > 0 ? size_t(kBatch) : size_t(a.batch);
  int32_t* const acc = a.acc;  // locals: the stores through acc cannot change them
  const int16_t* const inp = a.inp_avx2;
  const int8_t* const wgt = a.wgt_avx2;
  auto pair = [&](const int16_t* xb, int g) VTA_AVX2_TARGET {  // (x[2g], x[2g+1]) in every 32-bit lane
    int32_t p;
    std::memcpy(&p, xb + 2 * g, 4);
    return _mm256_set1_epi32(p);
  };
  for_each_weight_run(a, [&](const WeightRun& r) VTA_AVX2_TARGET {
    const int8_t* w2 = wgt + r.wgt * block_in * block_out;
    auto weights = [&](int g, int ob) VTA_AVX2_TARGET {
      return _mm256_cvtepi8_epi16(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(w2 + (size_t(g) * block_out + ob * 8) * 2)));
    };
    if constexpr (kPairs > 0) {  // a fixed shape: the tile sign-extended once a run (what fits stays in registers)
      __m256i w[kPairs][kOBlocks];
      for (int g = 0; g < kPairs; ++g)
        for (int ob = 0; ob < kOBlocks; ++ob) w[g][ob] = weights(g, ob);
      for_each_in_run(r, [&, w](uint32_t dst_row, uint32_t src) VTA_AVX2_TARGET {
        for (size_t b = 0; b < batch; ++b) {
          const int16_t* xb = inp + (src * batch + b) * block_in;
          auto* d = reinterpret_cast<__m256i*>(acc + (dst_row * batch + b) * block_out);
          __m256i sum[kOBlocks];
          for (int ob = 0; ob < kOBlocks; ++ob) sum[ob] = _mm256_loadu_si256(d + ob);
          for (int g = 0; g < kPairs; ++g) {
            const __m256i xp = pair(xb, g);
            for (int ob = 0; ob < kOBlocks; ++ob) {
              sum[ob] = _mm256_add_epi32(sum[ob], _mm256_madd_epi16(xp, w[g][ob]));
              asm("" : "+x"(sum[ob]));
            }
          }
          for (int ob = 0; ob < kOBlocks; ++ob) _mm256_storeu_si256(d + ob, sum[ob]);
        }
      });
    } else {  // any shape: the partial sums go to the accumulator pair by pair (the additions wrap alike)
      for_each_in_run(r, [&](uint32_t dst_row, uint32_t src) VTA_AVX2_TARGET {
        for (size_t b = 0; b < batch; ++b) {
          const int16_t* xb = inp + (src * batch + b) * block_in;
          auto* d = reinterpret_cast<__m256i*>(acc + (dst_row * batch + b) * block_out);
          for (int ob = 0; ob < oblocks; ++ob) {
            __m256i sum = _mm256_loadu_si256(d + ob);
            for (int g = 0; g < pairs; ++g) sum = _mm256_add_epi32(sum, _mm256_madd_epi16(pair(xb, g), weights(g, ob)));
            _mm256_storeu_si256(d + ob, sum);
          }
        }
      });
    }
  });
}
#undef VTA_AVX2_TARGET

void gemm_avx2(const GemmArgs& a) {
  if (a.block_in == 16 && a.block_out == 16)
    return a.batch == 1 ? gemm_avx2_impl<8, 2, 1>(a) : gemm_avx2_impl<8, 2, 0>(a);
  if (a.block_in == 32 && a.block_out == 32) return gemm_avx2_impl<16, 4, 0>(a);
  gemm_avx2_impl<0, 0, 0>(a);
}

bool vnni_shape_ok(int block_in, int block_out) { return block_out % 16 == 0 && block_in % 4 == 0; }

bool cpu_has_vnni() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
}

void vnni_pack_tile(const int8_t* w, int8_t* vnni, int32_t* bias, int block_in, int block_out) {
  const int groups = block_in / 4;
  if (groups % 4 == 0 && block_out % 4 == 0) {
    const __m128i flip = _mm_set1_epi8(char(0x80));
    for (int o = 0; o < block_out; ++o) {  // the bias: 128 * sum_c w[o][c], from sums of w + 128
      int64_t sum = 0;
      for (int c = 0; c < block_in; c += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + o * block_in + c));
        const __m128i s = _mm_sad_epu8(_mm_xor_si128(v, flip), _mm_setzero_si128());
        sum += _mm_cvtsi128_si32(s) + _mm_extract_epi16(s, 4) - 128 * 16;
      }
      bias[o] = int32_t(128 * sum);
    }
    for (int ob = 0; ob < block_out; ob += 4) {
      for (int gb = 0; gb < groups; gb += 4) {
        __m128i r[4];  // outputs ob.., groups gb..
        for (int k = 0; k < 4; ++k)
          r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + (ob + k) * block_in + gb * 4));
        const __m128i t0 = _mm_unpacklo_epi32(r[0], r[1]), t1 = _mm_unpacklo_epi32(r[2], r[3]);
        const __m128i t2 = _mm_unpackhi_epi32(r[0], r[1]), t3 = _mm_unpackhi_epi32(r[2], r[3]);
        const __m128i cols[4] = {_mm_unpacklo_epi64(t0, t1), _mm_unpackhi_epi64(t0, t1), _mm_unpacklo_epi64(t2, t3),
                                 _mm_unpackhi_epi64(t2, t3)};
        for (int k = 0; k < 4; ++k)
          _mm_storeu_si128(reinterpret_cast<__m128i*>(vnni + ((gb + k) * block_out + ob) * 4), cols[k]);
      }
    }
    return;
  }
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
// kGroups / kOBlocks > 0 fix block_in / 4 and block_out / 16 at compile time: a weight run's tile and
// bias rows stay in registers (4 + 1 of the 32 for 16x16, 16 + 2 for 32x32; the lambda holds them by
// value, a reference would keep them in memory) while its executions stream past; kBatch > 0 fixes the
// batch; 0 means "read them from the arguments", and the weights from memory.
#define VTA_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))
template <int kGroups, int kOBlocks, int kBatch>
VTA_VNNI_TARGET void gemm_vnni_impl(const GemmArgs& a) {
  const int groups = kGroups > 0 ? kGroups : a.block_in / 4;
  const int oblocks = kOBlocks > 0 ? kOBlocks : a.block_out / 16;
  const size_t block_in = size_t(groups) * 4, block_out = size_t(oblocks) * 16;
  const size_t batch = kBatch > 0 ? size_t(kBatch) : size_t(a.batch);
  int32_t* const acc = a.acc;  // locals: the stores through acc cannot change them
  const int8_t* const inp = a.inp;
  auto quad = [&](const int8_t* xb, int g) VTA_VNNI_TARGET {  // x[4g..4g+3] + 128 in every 32-bit lane
    int32_t q;
    std::memcpy(&q, xb + 4 * g, 4);
    return _mm512_set1_epi32(q ^ int32_t(0x80808080u));
  };
  for_each_weight_run(a, [&](const WeightRun& r) VTA_VNNI_TARGET {
    const int8_t* wv = a.wgt_vnni + size_t(r.wgt) * block_in * block_out;
    const int32_t* bias = a.wgt_bias + size_t(r.wgt) * block_out;
    auto weights = [&](int g, int ob)
                       VTA_VNNI_TARGET { return _mm512_loadu_si512(wv + (size_t(g) * block_out + ob * 16) * 4); };
    if constexpr (kGroups > 0) {
      __m512i w[kOBlocks][kGroups], bias_q[kOBlocks];
      for (int ob = 0; ob < kOBlocks; ++ob) {
        bias_q[ob] = _mm512_loadu_si512(bias + ob * 16);
        for (int g = 0; g < kGroups; ++g) w[ob][g] = weights(g, ob);
      }
      for_each_in_run(r, [&, w, bias_q](uint32_t dst_row, uint32_t src) VTA_VNNI_TARGET {
        for (size_t b = 0; b < batch; ++b) {
          const int8_t* xb = inp + (src * batch + b) * block_in;
          int32_t* dst = acc + (dst_row * batch + b) * block_out;
          __m512i xq[kGroups];
          for (int g = 0; g < kGroups; ++g) xq[g] = quad(xb, g);
          for (int ob = 0; ob < kOBlocks; ++ob) {
            __m512i sum = _mm512_sub_epi32(_mm512_loadu_si512(dst + ob * 16), bias_q[ob]);
            for (int g = 0; g < kGroups; ++g) sum = _mm512_dpbusd_epi32(sum, xq[g], w[ob][g]);
            _mm512_storeu_si512(dst + ob * 16, sum);
          }
        }
      });
    } else {
      for_each_in_run(r, [&](uint32_t dst_row, uint32_t src) VTA_VNNI_TARGET {
        for (size_t b = 0; b < batch; ++b) {
          const int8_t* xb = inp + (src * batch + b) * block_in;
          int32_t* dst = acc + (dst_row * batch + b) * block_out;
          for (int ob = 0; ob < oblocks; ++ob) {
            __m512i sum = _mm512_sub_epi32(_mm512_loadu_si512(dst + ob * 16), _mm512_loadu_si512(bias + ob * 16));
            for (int g = 0; g < groups; ++g) sum = _mm512_dpbusd_epi32(sum, quad(xb, g), weights(g, ob));
            _mm512_storeu_si512(dst + ob * 16, sum);
          }
        }
      });
    }
  });
}
#undef VTA_VNNI_TARGET

void gemm_vnni(const GemmArgs& a) {
  if (a.block_in == 16 && a.block_out == 16)
    return a.batch == 1 ? gemm_vnni_impl<4, 1, 1>(a) : gemm_vnni_impl<4, 1, 0>(a);
  if (a.block_in == 32 && a.block_out == 32) return gemm_vnni_impl<8, 2, 0>(a);
  gemm_vnni_impl<0, 0, 0>(a);
}

}  // namespace vta::fsim_detail
