#pragma once
/// \file vta/driver/parse.h
/// Numbers read from text a user or a device wrote (environment variables, sysfs attributes, board
/// settings), checked the same way everywhere, and text quoted for a message whatever bytes it holds.

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace vta {

/// `text` in double quotes for a diagnostic: a tab, CR, LF and every other byte outside printable
/// ASCII written as a C escape (backslash r, n, t, or x and two hexadecimal digits), at most `max`
/// bytes of it shown (then "...").
inline std::string quoted(std::string_view text, size_t max = 64) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size() && i < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  if (text.size() > max) out += "...";
  return out + "\"";
}

/// Trailing whitespace a line-oriented writer adds (sysfs ends its attributes with a newline).
enum class Trailing { kNone, kNewline };

/// `text` as an unsigned integer, decimal or 0x-hexadecimal (or 0-octal), all of it: no sign, nothing
/// after the number but, with Trailing::kNewline, one newline; nullopt otherwise or past 2^64 - 1.
inline std::optional<uint64_t> parse_u64(std::string_view text, Trailing trailing = Trailing::kNone) {
  if (trailing == Trailing::kNewline && !text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (text.empty() || !(text[0] >= '0' && text[0] <= '9')) return std::nullopt;  // (no sign, no space)
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (errno != 0 || end != s.c_str() + s.size()) return std::nullopt;
  return uint64_t(v);
}

/// `text` as a finite real number, all of it (4.9e-324 and the other subnormals included: they are
/// numbers, only smaller than DBL_MIN); nullopt otherwise ("inf", "nan", 1e400, "1.5x", "").
inline std::optional<double> parse_double(std::string_view text) {
  if (text.empty() || text[0] == ' ' || text[0] == '\t' || text[0] == '\n') return std::nullopt;
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  if (errno == ERANGE && std::fabs(v) > 1.0) return std::nullopt;  // (an overflow; an underflow is a number)
  return v;
}

}  // namespace vta
