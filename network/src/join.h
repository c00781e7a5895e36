#pragma once
// Error messages of the network layer, written from parts.

#include <cstdint>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace vta::network {

inline std::string join(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (const auto p : parts) s.append(p);
  return s;
}

/// A shape as a message writes it: "(1, 3, 224, 224)".
inline std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s.append(i == 0 ? "" : ", ").append(std::to_string(shape[i]));
  return s + ")";
}

/// A number as a message writes it: "1.5", "0.1", "-inf", "9.22337e+18" (six significant digits).
inline std::string float_text(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}
inline std::string float_text(float v) { return float_text(double(v)); }

}  // namespace vta::network
