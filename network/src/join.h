#pragma once
// Error messages of the network layer, written from parts.

#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>

namespace vta::network {

inline std::string join(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (const auto p : parts) s.append(p);
  return s;
}

/// A float as a message writes it: "1.5", "0.1", "-inf".
inline std::string float_text(float v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

}  // namespace vta::network
