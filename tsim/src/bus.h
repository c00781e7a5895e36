#pragma once
// Moving bytes in and out of Verilated ports of any width: up to 64 bits a port is an integer,
// wider it is a VlWide (an array of 32-bit words, least significant first). Both are little-endian
// images of the bus, as AXI lays bytes out.

#include <verilated.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace vta::tsim {

template <class Port>
void bus_store(Port& port, const uint8_t* src, size_t bytes) {
  if constexpr (std::is_integral_v<Port>) {
    Port v = 0;
    std::memcpy(&v, src, bytes);
    port = v;
  } else {
    std::memcpy(port.data(), src, bytes);
  }
}

template <class Port>
void bus_load(const Port& port, uint8_t* dst, size_t bytes) {
  if constexpr (std::is_integral_v<Port>) {
    std::memcpy(dst, &port, bytes);
  } else {
    std::memcpy(dst, port.data(), bytes);
  }
}

template <class Port>
void bus_zero(Port& port) {
  if constexpr (std::is_integral_v<Port>) {
    port = 0;
  } else {
    std::memset(port.data(), 0, sizeof(port));
  }
}

/// Bit `i` of a strobe port.
template <class Port>
bool bus_bit(const Port& port, unsigned i) {
  if constexpr (std::is_integral_v<Port>) {
    return (uint64_t(port) >> i) & 1u;
  } else {
    return (port.data()[i / 32] >> (i % 32)) & 1u;
  }
}

}  // namespace vta::tsim
