#pragma once
// Rounding a convolution's weights to few bits by their effect on its output rather than one by one
// (docs/MODELS.md, "Four bits"): the rounding error of each weight is spread over the weights of the
// same output channel not yet rounded, in proportion to how the calibration inputs they read vary
// together, so that the channel's output moves as little as it can (the method of GPTQ, Frantar et al.,
// 2022, on VTA's fixed power-of-two grid). What it needs of the calibration inputs is each group's
// second moments of the input windows the convolution reads, H = sum over windows of x x^T.

#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <vector>

#include "conv_kernel.h"

namespace vta::network::detail {

/// The second moments of one convolution's input windows, per group (rows: the group's input channels
/// times the kernel's taps, in the order the weights are stored), summed over the inputs added.
class WindowMoments {
 public:
  /// `s` with n, the batch, as the inputs added will have it.
  explicit WindowMoments(const ConvShape& s);
  /// One calibration input's values of the convolution's input (NCHW, the shape's).
  void add(const std::vector<float>& x);
  const Eigen::MatrixXf& group(int64_t g) const { return h_.at(size_t(g)); }

 private:
  ConvShape s_;
  std::vector<Eigen::MatrixXf> h_;
};

/// A convolution's weights (o, rows per group, as stored) times each output channel's factor
/// (`factor(o)`: the integer grid's step is 1), rounded to integers in [-most, most] column by column,
/// each column's error taken off the columns after it by the inverse of the moments (damped by 1 % of
/// their mean diagonal, so that inputs that never vary or always vary together leave it invertible).
/// A column whose input is always 0 rounds to 0.
std::vector<int8_t> round_by_output(const std::vector<float>& w, int64_t outputs, int64_t groups,
                                    const WindowMoments& moments, const std::function<double(int64_t)>& factor,
                                    long most);

/// How much rounding `w` to `q` (on the grid of `factor`) changes the convolution's output on the
/// inputs the moments summed: sum of (q / factor - w) x squared over the windows, relative to the
/// output's own sum of squares (w x)^2 (0 when that is 0).
double relative_output_error(const std::vector<float>& w, const std::vector<int8_t>& q, int64_t outputs, int64_t groups,
                             const WindowMoments& moments, const std::function<double(int64_t)>& factor);

}  // namespace vta::network::detail
