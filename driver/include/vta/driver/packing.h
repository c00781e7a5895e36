#pragma once
/// \file vta/driver/packing.h
/// Elements narrower than a byte in DRAM (docs/ISA.md, "Element widths"): the one home of the packing
/// every component that moves inputs, weights or outputs in DRAM uses (the fsim's loads and stores,
/// the runtime's host copies, the tests' references). A vector of lanes of `width` bits (4 or 8) is
/// stored from bit 0 of its first byte on: at 8 bits one byte a lane; at 4 bits two lanes a byte,
/// lane 2k in the low nibble of byte k and lane 2k + 1 in the high nibble, each a two's-complement
/// nibble. This is the RTL's order too (lane l at bits [l * width +: width] of an SRAM word, and the
/// bus little-endian).

#include <cstddef>
#include <cstdint>

namespace vta {

/// The widths an input, weight or output lane may have (LOG_INP_WIDTH / LOG_WGT_WIDTH 2 or 3).
inline bool packable_width(int width) { return width == 4 || width == 8; }

/// Bytes of `lanes` lanes of `width` bits (lanes * width a multiple of 8: the configurations' vectors
/// always are, BLOCK >= 4; a runtime tensor checks its count).
inline size_t packed_bytes(size_t lanes, int width) { return lanes * size_t(width) / 8; }

/// The `lanes` lanes packed in `bytes`, sign-extended to int8.
inline void unpack_lanes(const uint8_t* bytes, int8_t* out, size_t lanes, int width) {
  if (width == 8) {
    for (size_t i = 0; i < lanes; ++i) out[i] = static_cast<int8_t>(bytes[i]);
    return;
  }
  auto nibble = [](unsigned n) { return static_cast<int8_t>(n >= 8 ? int(n) - 16 : int(n)); };  // two's complement
  for (size_t k = 0; k < lanes / 2; ++k) {
    out[2 * k] = nibble(bytes[k] & 0xFu);
    out[2 * k + 1] = nibble(unsigned(bytes[k]) >> 4);
  }
}

/// `lanes` values packed into `bytes`, each truncated to its low `width` bits (as the store narrows an
/// accumulator: spec 3.5, int32 -> the output width by truncation). T is int8_t or int32_t.
template <class T>
void pack_lanes(const T* in, uint8_t* bytes, size_t lanes, int width) {
  if (width == 8) {
    for (size_t i = 0; i < lanes; ++i) bytes[i] = static_cast<uint8_t>(static_cast<uint32_t>(in[i]));
    return;
  }
  for (size_t k = 0; k < lanes / 2; ++k) {
    const auto lo = static_cast<uint32_t>(in[2 * k]) & 0xFu, hi = static_cast<uint32_t>(in[2 * k + 1]) & 0xFu;
    bytes[k] = static_cast<uint8_t>(lo | (hi << 4));
  }
}

/// What a lane of `width` bits keeps of `v`: its low `width` bits, sign-extended (a store's narrowing
/// of an accumulator, spec 3.5; a cast to int8 or int4).
inline int8_t narrow_lane(int64_t v, int width) {
  const auto low = static_cast<uint8_t>(static_cast<uint64_t>(v) & ((uint64_t{1} << width) - 1));
  return static_cast<int8_t>(static_cast<int8_t>(low << (8 - width)) >> (8 - width));
}

/// The range of a signed lane of `width` bits: [-2^(width-1), 2^(width-1) - 1].
inline int lane_min(int width) { return -(1 << (width - 1)); }
inline int lane_max(int width) { return (1 << (width - 1)) - 1; }

}  // namespace vta
