#pragma once
/// \file vta/network/calibration.h
/// Where quantization's calibration inputs come from (docs/MODELS.md "Quantization"): a source gives
/// one input at a time -- an .npy file's rows, random values, inputs in memory, a Python iterable --
/// so quantize() never needs the whole set at once. The tools' spelling of a source (`random:N` or a
/// file) is read here and nowhere else.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vta/network/npy.h"
#include "vta/network/onnx_import.h"

namespace vta::network {

/// Calibration inputs, one at a time (onnxruntime's CalibrationDataReader plays this part).
class CalibrationSource {
 public:
  virtual ~CalibrationSource() = default;
  /// The next input (row-major in the model input's shape), or nothing once the source is exhausted.
  virtual std::optional<std::vector<float>> next() = 0;
};

/// `random:N`: N inputs uniform in [kRandomInputLow, kRandomInputHigh], N from 1 to kMaxRandomInputs.
inline constexpr float kRandomInputLow = -1, kRandomInputHigh = 1;
inline constexpr int64_t kMaxRandomInputs = 10000;

/// N when `spec` is `random:N`; nothing when it does not start with `random:`. Throws ImportError
/// ("WHAT random:x: random:N with N 1 to 10000") when N is not a count in range.
std::optional<int64_t> parse_random_spec(const std::string& spec, const std::string& what);

/// The number of rows of `a`, each holding one input of `input_size` values; throws ImportError
/// naming `what` when its rows are not inputs of that size.
int64_t input_rows(const NpyFloatArray& a, int64_t input_size, const std::string& what);

/// The rows of `a` (checked by input_rows), the first `limit` of them.
std::unique_ptr<CalibrationSource> array_calibration(NpyFloatArray a, int64_t input_size, int64_t limit,
                                                     const std::string& what);
/// `count` inputs for `g`, each value uniform in [kRandomInputLow, kRandomInputHigh] (std::mt19937
/// from `seed`, the same inputs every run): calibration and test inputs for a model that comes without
/// data (vta-onnx --calibration random:N, vta-sweep's onnx workloads).
std::unique_ptr<CalibrationSource> random_calibration(const FloatGraph& g, int64_t count, uint32_t seed);
/// Inputs held in memory.
std::unique_ptr<CalibrationSource> vector_calibration(std::vector<std::vector<float>> inputs);
/// How many inputs of a calibration file the tools calibrate on unless told (vta-onnx --calibrate,
/// vta-sweep's onnx workloads' "calibrate").
inline constexpr int64_t kDefaultCalibrationInputs = 100;

/// The tools' spelling: `random:N` (random_calibration from `seed`) or an .npy file of N x the model's
/// input (array_calibration); at most `limit` inputs. `what` names the option in errors.
std::unique_ptr<CalibrationSource> calibration_from_spec(const std::string& spec, const FloatGraph& g, uint32_t seed,
                                                         int64_t limit, const std::string& what);

}  // namespace vta::network
