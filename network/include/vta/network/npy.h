#pragma once
/// \file vta/network/npy.h
/// NumPy .npy files (format versions 1 to 3; C order; int8 or little-endian int32): how quantized
/// weights come from outside (docs/NETWORK.md). A file that is not one of these is refused with its
/// name and the reason; sizes are checked against the file before anything is allocated.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace vta::network {

class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NpyArray {
  std::vector<int64_t> shape;
  bool int32 = false;           ///< element type: int32 ('<i4') or int8 ('|i1')
  std::vector<int32_t> values;  ///< every element, widened
};

/// Largest array read_npy accepts, in elements (ResNet-18's largest tensor has 2.4 M).
inline constexpr int64_t kMaxNpyElements = int64_t{1} << 28;

NpyArray read_npy(const std::filesystem::path& path);

/// An array of any numeric type as floats: what a model's inputs and labels come in.
struct NpyFloatArray {
  std::vector<int64_t> shape;
  std::vector<float> values;
};
/// Reads float32/float64, int8/uint8, int32/int64 (little-endian) arrays, converted to float.
NpyFloatArray read_npy_floats(const std::filesystem::path& path);
void write_npy(const std::filesystem::path& path, const std::vector<int64_t>& shape, const std::vector<int8_t>& values);
void write_npy(const std::filesystem::path& path, const std::vector<int64_t>& shape,
               const std::vector<int32_t>& values);
void write_npy(const std::filesystem::path& path, const std::vector<int64_t>& shape, const std::vector<float>& values);

}  // namespace vta::network
