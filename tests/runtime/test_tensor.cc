// The C++ user API: device tensors, the tiled layouts, and the reference operators.

#include <gtest/gtest.h>

#include <numeric>
#include <optional>
#include <string>
#include <vector>

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

// An int4 tensor: half a byte an element in device memory, packed as the device reads it (lane 2k in
// the low nibble of byte k, docs/ISA.md), int8 values on the host; a value past [-8, 7], an odd
// element count and an odd view offset are refused by name.
TEST(Tensor, FourBitElementsArePackedTwoAByte) {
  DeviceTensor t({2, 4}, DType::kInt4, "t");
  EXPECT_EQ(t.bytes(), 4u);
  const std::vector<int8_t> in = {1, -1, 7, -8, 0, 5, -2, 3};
  t.copy_from(in);
  const auto* bytes = static_cast<const uint8_t*>(VTABufferCPUPtr(nullptr, t.handle()));
  EXPECT_EQ(bytes[0], 0xF1);
  EXPECT_EQ(bytes[1], 0x87);
  EXPECT_EQ(bytes[2], 0x50);
  EXPECT_EQ(bytes[3], 0x3E);
  std::vector<int8_t> out(8, 99);
  t.copy_to(out);
  EXPECT_EQ(out, in);
  DeviceTensor second_row = DeviceTensor::view(t, 4, {4}, "row");
  EXPECT_EQ(second_row.bytes(), 2u);
  std::vector<int8_t> row(4);
  second_row.copy_to(row);
  EXPECT_EQ(row, std::vector<int8_t>(in.begin() + 4, in.end()));
  try {
    t.copy_from(std::vector<int8_t>{0, 0, 0, 8, 0, 0, 0, 0});
    ADD_FAILURE() << "8 taken as an int4 value";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "DeviceTensor t: copy_from: element 3 is 8, outside int4's [-8, 7]");
  }
  EXPECT_THROW(DeviceTensor({3}, DType::kInt4, "odd"), std::invalid_argument);
  EXPECT_THROW(DeviceTensor::view(t, 1, {2}, "odd offset"), std::invalid_argument);
  EXPECT_THROW(t.copy_from(std::vector<int32_t>(8)), std::invalid_argument);
  EXPECT_EQ(dtype_of_width(4), DType::kInt4);
  EXPECT_EQ(dtype_of_width(8), DType::kInt8);
  EXPECT_THROW(dtype_of_width(2), std::invalid_argument);
  EXPECT_THROW(dtype_bytes(DType::kInt4), std::invalid_argument);
}

// A view is the whole's memory: what is written through either is read through the other, at the
// view's offset; the view keeps the memory after the whole is freed; a range past the whole is
// refused by name.
TEST(Tensor, AViewIsPartOfTheWholesMemory) {
  std::vector<int32_t> values(24);
  std::iota(values.begin(), values.end(), 100);
  std::optional<DeviceTensor> whole(std::in_place, std::vector<int64_t>{4, 6}, DType::kInt32, "whole");
  whole->copy_from(values);
  DeviceTensor part = DeviceTensor::view(*whole, 6, {2, 6}, "part");  // rows 1 and 2
  EXPECT_EQ(part.bytes(), 48u);
  EXPECT_EQ(part.dtype(), DType::kInt32);
  EXPECT_NE(part.handle(), whole->handle());
  std::vector<int32_t> got(12);
  part.copy_to(got);
  EXPECT_EQ(got, std::vector<int32_t>(values.begin() + 6, values.begin() + 18));
  std::vector<int32_t> written(12, -7);
  part.copy_from(written);
  whole->copy_to(values);
  EXPECT_EQ(values[5], 105);
  EXPECT_EQ(values[6], -7);
  EXPECT_EQ(values[17], -7);
  EXPECT_EQ(values[18], 118);
  whole.reset();  // (the view keeps the memory)
  part.copy_to(got);
  EXPECT_EQ(got, written);
  DeviceTensor other({4, 6}, DType::kInt32, "other");
  try {
    (void)DeviceTensor::view(other, 20, {2, 3}, "past");
    ADD_FAILURE() << "a view past the whole was made";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("past: elements [20, 26) leave other's 24"), std::string::npos) << e.what();
  }
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
