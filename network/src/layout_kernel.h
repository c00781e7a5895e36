#pragma once
// The operators that only move values -- concat, upsample, dilate -- for both references
// (float_reference.cc on floats, reference.cc on int8 values held as int32): one definition each,
// whatever the element type.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace vta::network::detail {

// Inputs joined along the channels: image by image, each input's part of that image in turn (each
// input holds `n` images).
template <class T>
std::vector<T> concat_channels(const std::vector<const std::vector<T>*>& inputs, int64_t n) {
  size_t total = 0;
  for (const auto* in : inputs) total += in->size();
  std::vector<T> y;
  y.reserve(total);
  for (int64_t a = 0; a < n; ++a) {
    for (const auto* in : inputs) {
      const int64_t per = int64_t(in->size()) / std::max<int64_t>(n, 1);
      y.insert(y.end(), in->begin() + a * per, in->begin() + (a + 1) * per);
    }
  }
  return y;
}

// Nearest-neighbour upsampling of `planes` planes of h x w: each value repeated fh times down and fw
// times across.
template <class T>
std::vector<T> upsample(const T* x, int64_t planes, int64_t h, int64_t w, int64_t fh, int64_t fw) {
  const int64_t oh = h * fh, ow = w * fw;
  std::vector<T> y(static_cast<size_t>(planes * oh * ow));
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t yy = 0; yy < oh; ++yy) {
      const T* in = x + (p * h + yy / fh) * w;
      T* out = y.data() + (p * oh + yy) * ow;
      for (int64_t xx = 0; xx < ow; ++xx) out[xx] = in[xx / fw];
    }
  }
  return y;
}

// `stride` - 1 zeros between the values of each of `planes` planes of h x w, in planes of oh x ow (the
// rest of which, the bottom and right padding, is zeros too).
template <class T>
std::vector<T> dilate(const T* x, int64_t planes, int64_t h, int64_t w, int64_t stride, int64_t oh, int64_t ow) {
  std::vector<T> y(static_cast<size_t>(planes * oh * ow), T(0));
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t yy = 0; yy < h; ++yy) {
      for (int64_t xx = 0; xx < w; ++xx)
        y[size_t((p * oh + yy * stride) * ow + xx * stride)] = x[(p * h + yy) * w + xx];
    }
  }
  return y;
}

}  // namespace vta::network::detail
