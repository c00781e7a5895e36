// The C++ user API: device tensors, the tiled layouts, and the reference operators.

#include <gtest/gtest.h>

#include <numeric>

#include "vta/runtime.h"
#include "vta/runtime/tensor.h"

namespace vta::runtime {
namespace {

TEST(Tensor, CopiesAndChecks) {
  DeviceTensor t({2, 3, 4}, DType::kInt32, "t");
  EXPECT_EQ(t.elements(), 24u);
  EXPECT_EQ(t.bytes(), 96u);
  std::vector<int32_t> in(24), out(24, -1);
  std::iota(in.begin(), in.end(), -5);
  t.copy_from(in);
  t.copy_to(out);
  EXPECT_EQ(in, out);
  std::vector<int8_t> wrong_type(24);
  EXPECT_THROW(t.copy_from(wrong_type), std::invalid_argument);
  std::vector<int32_t> wrong_size(23);
  EXPECT_THROW(t.copy_from(wrong_size), std::invalid_argument);
  EXPECT_THROW(DeviceTensor({4, 0}, DType::kInt8), std::invalid_argument);
  DeviceTensor moved = std::move(t);
  EXPECT_EQ(t.handle(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is the subject
  moved.copy_to(out);
  EXPECT_EQ(in, out);
  EXPECT_NE(VTABufferCPUPtr(nullptr, moved.handle()), moved.handle());
}

TEST(Tensor, MatrixTilesFollowTheTutorialLayout) {
  // (rows, cols) = (4, 6) in (2, 3) tiles: element (r, c) lands in tile (r/2, c/3) at lane (r%2, c%3).
  std::vector<int8_t> m(24);
  std::iota(m.begin(), m.end(), 0);
  const auto t = pack_matrix(m, 4, 6, 2, 3);
  EXPECT_EQ(t[0], 0);    // (0,0)
  EXPECT_EQ(t[1], 1);    // (0,1)
  EXPECT_EQ(t[3], 6);    // (1,0): second row of tile (0,0)
  EXPECT_EQ(t[6], 3);    // (0,3): tile (0,1)
  EXPECT_EQ(t[12], 12);  // (2,0): tile (1,0)
  EXPECT_EQ(unpack_matrix(t, 4, 6, 2, 3), m);
  EXPECT_THROW(pack_matrix(m, 4, 6, 3, 3), std::invalid_argument);
}

TEST(Tensor, NchwRoundTripAndLayout) {
  const int n = 2, c = 4, h = 3, w = 2;
  std::vector<int8_t> x(size_t(n) * c * h * w);
  std::iota(x.begin(), x.end(), 0);
  const auto p = pack_nchw(x, n, c, h, w, 1, 2);
  // (n=0, c=1, y=0, x=0) -> block c/2 = 0, lane c%2 = 1 -> index 1; value x[1*h*w] = 6.
  EXPECT_EQ(p[1], 6);
  EXPECT_EQ(unpack_nchw(p, n, c, h, w, 1, 2), x);
}

TEST(Tensor, ReferenceOperators) {
  // gemm: [1 2; 3 4] x [5 6; 7 8]^T
  const std::vector<int8_t> a = {1, 2, 3, 4}, w = {5, 6, 7, 8};
  EXPECT_EQ(gemm_reference(a, w, 2, 2, 2), (std::vector<int32_t>{17, 23, 39, 53}));
  // A 3x3 all-ones kernel with padding 1 on a 3x3 all-ones image counts the neighbours.
  const std::vector<int8_t> img(9, 1), k(9, 1);
  EXPECT_EQ(conv2d_reference(img, k, 1, 1, 3, 3, 1, 3, 3, 1, 1), (std::vector<int32_t>{4, 6, 4, 6, 9, 6, 4, 6, 4}));
  // Stride 2 picks every other output of the same convolution.
  EXPECT_EQ(conv2d_reference(img, k, 1, 1, 3, 3, 1, 3, 3, 1, 2), (std::vector<int32_t>{4, 4, 4, 4}));
  // A 1x1 convolution is a GEMM over channels.
  const std::vector<int8_t> x2 = {1, 2, 3, 4, 5, 6, 7, 8};  // c=2, h=2, w=2
  const std::vector<int8_t> k2 = {3, -1};                   // o=1, c=2: 3*channel0 - channel1
  EXPECT_EQ(conv2d_reference(x2, k2, 1, 2, 2, 2, 1, 1, 1, 0, 1), (std::vector<int32_t>{-2, 0, 2, 4}));
  EXPECT_EQ(shift_clip(std::vector<int32_t>{-300, 255, 256, 40000, 1000}, 8, 0, 127),
            (std::vector<int8_t>{0, 0, 1, 127, 3}));
}

}  // namespace
}  // namespace vta::runtime
