#pragma once
/// \file vta/network/float_reference.h
/// The imported float graph run in plain C++ (docs/MODELS.md): the reference a quantized model's
/// accuracy is measured against and calibration's source of activation ranges.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "vta/network/onnx_import.h"

namespace vta::network {

/// Float values by tensor name (row-major in their shapes).
using FloatValues = std::map<std::string, std::vector<float>>;
/// Runs the float graph on `input` (its input's shape, row-major); every tensor kept when `keep_all`.
FloatValues run_float(const FloatGraph& g, std::span<const float> input, bool keep_all = false);

/// The softmax of each of the `rows` rows `logits` holds (row-major).
std::vector<float> softmax(std::span<const float> logits, int64_t rows);

}  // namespace vta::network
