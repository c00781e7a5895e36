#pragma once
/// \file vta/driver/hash.h
/// FNV-1a over 64 bits, the project's one checksum: a capture's blobs and configuration, a sweep's
/// configuration and source hashes, the device protocol's configuration hash, a seeded run's output.
/// Not a cryptographic hash: it names and checks, it does not authenticate.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "vta/driver/format.h"

namespace vta {

/// An FNV-1a hash fed in parts: Fnv1a64().add(a).add(b).value() is the hash of a then b.
class Fnv1a64 {
 public:
  Fnv1a64& add(std::span<const uint8_t> bytes) {
    for (const uint8_t b : bytes) h_ = (h_ ^ b) * kPrime;
    return *this;
  }
  Fnv1a64& add(std::string_view text) {
    for (const char c : text) h_ = (h_ ^ uint8_t(c)) * kPrime;
    return *this;
  }
  uint64_t value() const { return h_; }

 private:
  static constexpr uint64_t kOffsetBasis = 0xcbf29ce484222325ull, kPrime = 0x100000001b3ull;
  uint64_t h_ = kOffsetBasis;
};

inline uint64_t fnv1a64(std::span<const uint8_t> bytes) { return Fnv1a64().add(bytes).value(); }
inline uint64_t fnv1a64(std::string_view text) { return Fnv1a64().add(text).value(); }
/// `v` as 16 lowercase hexadecimal digits (how hashes are written in files and names).
inline std::string hex64(uint64_t v) { return format("%016llx", static_cast<unsigned long long>(v)); }

}  // namespace vta
