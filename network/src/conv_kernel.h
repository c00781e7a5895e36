#pragma once
// The one convolution kernel of both references (float_reference.cc for imported float models,
// reference.cc for int8 graphs): per image and group, the group's filters (og x cg*k*k, as weights are
// stored) times the input's windows laid out as columns (cg*k*k x output positions, zeros where a
// window reaches into the padding) -- a matrix product the caller does with OpenBLAS -- a band of output
// rows at a time, so that the windows never take more than kMaxWindowValues values whatever the
// input's size; a 1x1 convolution of stride 1 reads the input as it is.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace vta::network::detail {

inline constexpr int64_t kMaxWindowValues = int64_t(1) << 22;

struct ConvShape {
  int64_t n, c, h, w;  // the input (NCHW)
  int64_t o, oh, ow;   // the output's channels and size
  int64_t k, stride, pad, groups;
};

// y (n x o x oh x ow, holding what the products add to: zeros or the bias) += conv(x). `gemm(group,
// og, width, rows, b, ldb, c, ldc)` must add W_group (og x rows, row-major) times B (rows x width, row
// stride ldb) to C (og x width, row stride ldc).
template <class T, class Gemm>
void conv_by_gemm(const T* x, const ConvShape& s, T* y, Gemm&& gemm) {
  const int64_t k = s.k, cg = s.c / s.groups, og = s.o / s.groups;
  const int64_t rows = cg * k * k, cols = s.oh * s.ow;
  const bool direct = k == 1 && s.stride == 1 && s.pad == 0;
  const int64_t band =
      direct ? s.oh : std::clamp<int64_t>(kMaxWindowValues / std::max<int64_t>(rows * s.ow, 1), 1, s.oh);
  std::vector<T> windows(direct ? 0 : static_cast<size_t>(rows * band * s.ow));
  for (int64_t a = 0; a < s.n; ++a) {
    for (int64_t gi = 0; gi < s.groups; ++gi) {
      const T* xin = x + (a * s.c + gi * cg) * s.h * s.w;
      for (int64_t y0 = 0; y0 < s.oh; y0 += band) {
        const int64_t in_band = std::min(band, s.oh - y0), width = in_band * s.ow;
        if (!direct) {
          for (int64_t r = 0; r < rows; ++r) {  // row r: channel r / (k*k), kernel offset (dy, dx)
            const int64_t ch = r / (k * k), dy = r / k % k, dx = r % k;
            // the output columns whose input column xx * stride + dx - pad lies inside the row: [x0, x1)
            const int64_t x0 = std::min(s.ow, dx >= s.pad ? 0 : (s.pad - dx + s.stride - 1) / s.stride);
            const int64_t last = s.w - 1 + s.pad - dx;
            const int64_t x1 = std::max(x0, last < 0 ? 0 : std::min(s.ow, last / s.stride + 1));
            T* row = windows.data() + r * width;
            for (int64_t yy = 0; yy < in_band; ++yy) {
              const int64_t iy = (y0 + yy) * s.stride + dy - s.pad;
              T* out = row + yy * s.ow;
              if (iy < 0 || iy >= s.h) {
                std::fill_n(out, s.ow, T(0));
                continue;
              }
              const T* in = xin + (ch * s.h + iy) * s.w + dx - s.pad;
              std::fill_n(out, x0, T(0));
              for (int64_t xx = x0; xx < x1; ++xx) out[xx] = in[xx * s.stride];
              std::fill_n(out + x1, s.ow - x1, T(0));
            }
          }
        }
        gemm(gi, og, width, rows, direct ? xin : windows.data(), direct ? cols : width,
             y + (a * s.o + gi * og) * cols + y0 * s.ow, cols);
      }
    }
  }
}

}  // namespace vta::network::detail
