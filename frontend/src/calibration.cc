// Calibration sources (vta/network/calibration.h): an array's rows, seeded random inputs, inputs in
// memory, and the tools' `random:N` / file spelling.

#include "vta/network/calibration.h"

#include <algorithm>
#include <random>
#include <utility>

namespace vta::network {
namespace {

class ArraySource final : public CalibrationSource {
 public:
  ArraySource(NpyFloatArray a, int64_t size, int64_t rows) : a_(std::move(a)), size_(size), rows_(rows) {}
  std::optional<std::vector<float>> next() override {
    if (row_ >= rows_) return std::nullopt;
    const auto at = a_.values.begin() + row_++ * size_;
    return std::vector<float>(at, at + size_);
  }

 private:
  NpyFloatArray a_;
  int64_t size_, rows_, row_ = 0;
};

class RandomSource final : public CalibrationSource {
 public:
  RandomSource(int64_t size, int64_t count, uint32_t seed) : size_(size), left_(count), rng_(seed) {}
  std::optional<std::vector<float>> next() override {
    if (left_ <= 0) return std::nullopt;
    --left_;
    std::vector<float> x(static_cast<size_t>(size_));
    for (float& v : x) v = d_(rng_);
    return x;
  }

 private:
  int64_t size_, left_;
  std::mt19937 rng_;
  std::uniform_real_distribution<float> d_{kRandomInputLow, kRandomInputHigh};
};

class VectorSource final : public CalibrationSource {
 public:
  explicit VectorSource(std::vector<std::vector<float>> inputs) : inputs_(std::move(inputs)) {}
  std::optional<std::vector<float>> next() override {
    if (at_ >= inputs_.size()) return std::nullopt;
    return std::move(inputs_[at_++]);
  }

 private:
  std::vector<std::vector<float>> inputs_;
  size_t at_ = 0;
};

}  // namespace

std::optional<int64_t> parse_random_spec(const std::string& spec, const std::string& what) {
  if (!spec.starts_with("random:")) return std::nullopt;
  const std::string n = spec.substr(7);
  int64_t count = 0;
  const bool digits =
      !n.empty() && n.size() <= 6 && std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) count = std::stoll(n);
  if (count < 1 || count > kMaxRandomInputs) {
    throw ImportError(what + " " + spec + ": random:N with N 1 to " + std::to_string(kMaxRandomInputs));
  }
  return count;
}

int64_t input_rows(const NpyFloatArray& a, int64_t input_size, const std::string& what) {
  if (a.shape.empty() || a.values.empty() || input_size < 1 || int64_t(a.values.size()) % input_size != 0 ||
      a.shape[0] < 1 || int64_t(a.values.size()) / a.shape[0] != input_size) {
    throw ImportError(what + ": each row must hold one model input (" + std::to_string(input_size) + " values)");
  }
  return a.shape[0];
}

std::unique_ptr<CalibrationSource> array_calibration(NpyFloatArray a, int64_t input_size, int64_t limit,
                                                     const std::string& what) {
  const int64_t rows = std::min(input_rows(a, input_size, what), std::max<int64_t>(limit, 0));
  return std::make_unique<ArraySource>(std::move(a), input_size, rows);
}

std::unique_ptr<CalibrationSource> random_calibration(const FloatGraph& g, int64_t count, uint32_t seed) {
  return std::make_unique<RandomSource>(g.elements(g.input), count, seed);
}

std::unique_ptr<CalibrationSource> vector_calibration(std::vector<std::vector<float>> inputs) {
  return std::make_unique<VectorSource>(std::move(inputs));
}

std::unique_ptr<CalibrationSource> calibration_from_spec(const std::string& spec, const FloatGraph& g, uint32_t seed,
                                                         int64_t limit, const std::string& what) {
  if (const auto count = parse_random_spec(spec, what)) {
    return random_calibration(g, std::min(*count, std::max<int64_t>(limit, 0)), seed);
  }
  return array_calibration(read_npy_floats(spec), g.elements(g.input), limit, what);
}

}  // namespace vta::network
