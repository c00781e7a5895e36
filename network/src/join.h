#pragma once
// Error messages of the network layer, written from parts.

#include <initializer_list>
#include <string>
#include <string_view>

namespace vta::network {

inline std::string join(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (const auto p : parts) s.append(p);
  return s;
}

}  // namespace vta::network
