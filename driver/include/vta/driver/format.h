#pragma once
/// \file vta/driver/format.h
/// How diagnostics write addresses and durations, the same in every layer, and `format`: printf's
/// formats into a string of whatever length they need (no buffer sized by hope).

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>

namespace vta {

/// printf's format into a std::string as long as the text: "%.3f" of 1e300 is 305 characters, all kept.
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
inline std::string
format(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list again;
  va_copy(again, args);
  char small[128];
  const int n = std::vsnprintf(small, sizeof small, fmt, args);
  va_end(args);
  std::string out;
  if (n < 0) {
    va_end(again);
    return out;  // (an encoding error: nothing to show)
  }
  if (size_t(n) < sizeof small) {
    va_end(again);
    return std::string(small, size_t(n));
  }
  out.resize(size_t(n));
  std::vsnprintf(out.data(), out.size() + 1, fmt, again);
  va_end(again);
  return out;
}

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
