#pragma once
/// \file vta/driver/format.h
/// How diagnostics write addresses and durations, the same in every layer.

#include <cstdint>
#include <cstdio>
#include <string>

namespace vta {

/// An address, register offset or fingerprint as diagnostics write it: "0x1f000000".
inline std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

/// A duration in seconds as diagnostics write it: "10", "2.5", "0.25".
inline std::string format_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

}  // namespace vta
