#include "weight_rounding.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

namespace vta::network::detail {

WindowMoments::WindowMoments(const ConvShape& s) : s_(s) {
  const int64_t rows = s.c / s.groups * s.k * s.k;
  h_.assign(size_t(s.groups), Eigen::MatrixXf::Zero(rows, rows));
}

void WindowMoments::add(const std::vector<float>& x) {
  if (int64_t(x.size()) != s_.n * s_.c * s_.h * s_.w) {
    throw std::invalid_argument("WindowMoments: an input of " + std::to_string(x.size()) + " values for a shape of " +
                                std::to_string(s_.n * s_.c * s_.h * s_.w));
  }
  using Rows = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  // (conv_by_gemm's output, never written: its pointer only locates each band; made for this call alone,
  // so that the moments of a whole network do not keep an output's worth of memory per convolution)
  const auto sink = std::make_unique_for_overwrite<float[]>(size_t(s_.n * s_.o * s_.oh * s_.ow));
  conv_by_gemm(x.data(), s_, sink.get(),
               [&](int64_t group, int64_t, int64_t width, int64_t rows, const float* b, int64_t ldb, float*, int64_t) {
                 const Eigen::Map<const Rows, 0, Eigen::OuterStride<>> windows(b, rows, width,
                                                                               Eigen::OuterStride<>(ldb));
                 h_[size_t(group)].noalias() += windows * windows.transpose();
               });
}

namespace {

// U upper triangular with U^T U = (H + damping)^-1: row r of U says how column r's error moves the
// columns after it, U(r, r) how much of it the output sees. With J the reversal of the rows, J H J = L
// L^T gives H^-1 = (J L^-T J)(J L^-1 J), so U = J L^-1 J: one Cholesky factor and one triangular
// inverse.
Eigen::MatrixXf inverse_factor(const Eigen::MatrixXf& h) {
  const auto rows = h.rows();
  const float mean_diagonal = h.diagonal().mean();
  for (float damping = 0.01F; damping <= 1e3F; damping *= 10) {
    Eigen::MatrixXf reversed = h.reverse();  // (J H J: both the rows and the columns reversed)
    reversed.diagonal().array() += damping * mean_diagonal;
    const Eigen::LLT<Eigen::MatrixXf> llt(reversed);
    if (llt.info() != Eigen::Success) continue;
    Eigen::MatrixXf inverse = Eigen::MatrixXf::Identity(rows, rows);
    llt.matrixL().solveInPlace(inverse);
    return inverse.reverse();
  }
  throw std::runtime_error("round_by_output: the input moments are not positive definite");
}

}  // namespace

std::vector<int8_t> round_by_output(const std::vector<float>& w, int64_t outputs, int64_t groups,
                                    const WindowMoments& moments, const std::function<double(int64_t)>& factor,
                                    long most) {
  constexpr int64_t kBlock = 128;  // columns rounded between two updates of the rest (one product each)
  const int64_t per_group = outputs / groups, rows = int64_t(w.size()) / outputs;
  std::vector<int8_t> q(w.size());
  for (int64_t g = 0; g < groups; ++g) {
    Eigen::MatrixXf h = moments.group(g);
    if (h.rows() != rows) throw std::invalid_argument("round_by_output: moments of another convolution");
    Eigen::MatrixXf wg(per_group, rows);  // the group's weights on the integer grid
    for (int64_t o = 0; o < per_group; ++o) {
      const double f = factor(g * per_group + o);
      for (int64_t r = 0; r < rows; ++r) wg(o, r) = float(double(w[size_t((g * per_group + o) * rows + r)]) * f);
    }
    for (int64_t r = 0; r < rows; ++r) {
      if (h(r, r) == 0) h(r, r) = 1, wg.col(r).setZero();  // (an input that is always 0)
    }
    const Eigen::MatrixXf u = inverse_factor(h);
    for (int64_t b0 = 0; b0 < rows; b0 += kBlock) {
      const int64_t b1 = std::min(rows, b0 + kBlock);
      Eigen::MatrixXf errors(per_group, b1 - b0);
      for (int64_t r = b0; r < b1; ++r) {
        for (int64_t o = 0; o < per_group; ++o) {
          const auto v = std::clamp(std::lround(double(wg(o, r))), -most, most);
          q[size_t((g * per_group + o) * rows + r)] = int8_t(v);
          errors(o, r - b0) = (wg(o, r) - float(v)) / u(r, r);
        }
        if (r + 1 < b1)
          wg.middleCols(r + 1, b1 - r - 1).noalias() -= errors.col(r - b0) * u.row(r).segment(r + 1, b1 - r - 1);
      }
      if (b1 < rows) wg.rightCols(rows - b1).noalias() -= errors * u.block(b0, b1, b1 - b0, rows - b1);
    }
  }
  return q;
}

double relative_output_error(const std::vector<float>& w, const std::vector<int8_t>& q, int64_t outputs, int64_t groups,
                             const WindowMoments& moments, const std::function<double(int64_t)>& factor) {
  const int64_t per_group = outputs / groups, rows = int64_t(w.size()) / outputs;
  double error = 0, total = 0;
  for (int64_t g = 0; g < groups; ++g) {
    Eigen::MatrixXf wg(per_group, rows), d(per_group, rows);
    for (int64_t o = 0; o < per_group; ++o) {
      const double f = factor(g * per_group + o);
      for (int64_t r = 0; r < rows; ++r) {
        const size_t k = size_t((g * per_group + o) * rows + r);
        wg(o, r) = w[k], d(o, r) = float(double(q[k]) / f - double(w[k]));
      }
    }
    // sum over outputs o of d_o H d_o^T (and w_o H w_o^T): the products' elementwise sums
    const Eigen::MatrixXf& h = moments.group(g);
    error += double((d * h).cwiseProduct(d).sum()), total += double((wg * h).cwiseProduct(wg).sum());
  }
  return total > 0 ? error / total : 0;
}

}  // namespace vta::network::detail
