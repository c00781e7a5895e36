#include "vta/runtime/tensor.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "vta/driver/memory.h"
#include "vta/driver/packing.h"
#include "vta/runtime.h"
#include "vta/runtime/context.h"

namespace vta::runtime {
namespace {

void require_divides(int size, int block, const std::string& what) {
  if (block <= 0 || size % block != 0) {
    throw std::invalid_argument(what + ": size " + std::to_string(size) + " is not a multiple of the block " +
                                std::to_string(block));
  }
}

// A tensor's shape is refused unless every dimension is positive.
void require_positive(const std::vector<int64_t>& shape, const std::string& name) {
  for (int64_t d : shape) {
    if (d <= 0) throw std::invalid_argument("DeviceTensor " + name + ": every dimension must be positive");
  }
}

}  // namespace

void require_whole_bytes(DType t, size_t elements, const std::string& owner, const char* what) {
  if (t == DType::kInt4 && elements % 2 != 0) {
    throw std::invalid_argument(owner + ": an int4 tensor's " + what + " must be even (two elements a byte), not " +
                                std::to_string(elements));
  }
}

size_t dtype_bytes(DType t) {
  if (t == DType::kInt4) throw std::invalid_argument("int4 elements are packed two a byte: dtype_bytes has no value");
  return dtype_bits(t) / 8;
}

DType dtype_of_width(int width) {
  if (width == 4) return DType::kInt4;
  if (width == 8) return DType::kInt8;
  throw std::invalid_argument("no tensor type of " + std::to_string(width) + "-bit lanes (4 or 8)");
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kInt4: return "int4";
    case DType::kInt8: return "int8";
    case DType::kInt32: return "int32";
  }
  return "?";
}

DeviceTensor::DeviceTensor(std::vector<int64_t> shape, DType dtype, std::string name)
    : shape_(std::move(shape)), dtype_(dtype), name_(std::move(name)) {
  require_positive(shape_, name_);
  require_whole_bytes(dtype_, elements(), "DeviceTensor " + name_, "element count");
  // The process's memory is made at its first use (a board's DMA buffer, vta/driver/memory.h): what keeps
  // it from being made is the error to report, not "out of device memory".
  (void)Dram::global();
  handle_ = VTABufferAlloc(bytes());
  if (handle_ == nullptr) throw std::runtime_error("DeviceTensor " + name_ + ": out of device memory");
  std::memset(VTABufferCPUPtr(nullptr, handle_), 0, bytes());
  if (!name_.empty()) VTABufferSetName(handle_, name_.c_str());
}

DeviceTensor::DeviceTensor(std::vector<int64_t> shape, DType dtype, std::string name, void* handle)
    : shape_(std::move(shape)), dtype_(dtype), name_(std::move(name)), handle_(handle) {}

DeviceTensor DeviceTensor::view(const DeviceTensor& whole, size_t offset, std::vector<int64_t> shape,
                                std::string name) {
  require_positive(shape, name);
  DeviceTensor v(std::move(shape), whole.dtype(), std::move(name), nullptr);
  if (offset > whole.elements() || v.elements() > whole.elements() - offset) {
    throw std::invalid_argument("DeviceTensor " + v.name() + ": elements [" + std::to_string(offset) + ", " +
                                std::to_string(offset + v.elements()) + ") leave " + whole.name() + "'s " +
                                std::to_string(whole.elements()));
  }
  require_whole_bytes(v.dtype(), offset, "DeviceTensor " + v.name(), "offset");
  require_whole_bytes(v.dtype(), v.elements(), "DeviceTensor " + v.name(), "element count");
  v.handle_ = buffer_view(whole.handle(), packed_bytes(offset, int(dtype_bits(v.dtype()))), v.bytes(), v.name());
  return v;
}

DeviceTensor::~DeviceTensor() {
  if (handle_ != nullptr) VTABufferFree(handle_);
}

DeviceTensor::DeviceTensor(DeviceTensor&& other) noexcept
    : shape_(std::move(other.shape_)),
      dtype_(other.dtype_),
      name_(std::move(other.name_)),
      handle_(std::exchange(other.handle_, nullptr)) {}

DeviceTensor& DeviceTensor::operator=(DeviceTensor&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) VTABufferFree(handle_);
    shape_ = std::move(other.shape_), dtype_ = other.dtype_, name_ = std::move(other.name_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

size_t DeviceTensor::elements() const {
  return std::accumulate(shape_.begin(), shape_.end(), size_t{1}, [](size_t a, int64_t d) { return a * size_t(d); });
}

void DeviceTensor::check(size_t count, DType t, const char* what) const {
  // int8 host values serve int8 and int4 tensors
  if (t != dtype_ && !(t == DType::kInt8 && dtype_ == DType::kInt4)) {
    throw std::invalid_argument("DeviceTensor " + name_ + ": " + what + " of " + dtype_name(t) + " values to an " +
                                dtype_name(dtype_) + " tensor");
  }
  if (count != elements()) {
    throw std::invalid_argument("DeviceTensor " + name_ + ": " + what + " of " + std::to_string(count) +
                                " elements, the tensor has " + std::to_string(elements()));
  }
}

std::vector<uint8_t> pack_int4(std::span<const int8_t> host, const std::string& what) {
  for (size_t i = 0; i < host.size(); ++i) {
    if (host[i] < lane_min(4) || host[i] > lane_max(4)) {
      throw std::invalid_argument(what + ": element " + std::to_string(i) + " is " + std::to_string(host[i]) +
                                  ", outside int4's [-8, 7]");
    }
  }
  std::vector<uint8_t> packed(packed_bytes(host.size(), 4));
  pack_lanes(host.data(), packed.data(), host.size(), 4);
  return packed;
}

void DeviceTensor::copy_from(std::span<const int8_t> host) {
  check(host.size(), DType::kInt8, "copy_from");
  if (dtype_ == DType::kInt4) {
    const std::vector<uint8_t> packed = pack_int4(host, "DeviceTensor " + name_ + ": copy_from");
    VTABufferCopy(packed.data(), 0, handle_, 0, bytes(), 1);
    return;
  }
  VTABufferCopy(host.data(), 0, handle_, 0, bytes(), 1);
}
void DeviceTensor::copy_from(std::span<const int32_t> host) {
  check(host.size(), DType::kInt32, "copy_from");
  VTABufferCopy(host.data(), 0, handle_, 0, bytes(), 1);
}
void DeviceTensor::copy_to(std::span<int8_t> host) const {
  check(host.size(), DType::kInt8, "copy_to");
  if (dtype_ == DType::kInt4) {
    std::vector<uint8_t> packed(bytes());
    VTABufferCopy(handle_, 0, packed.data(), 0, bytes(), 2);
    unpack_lanes(packed.data(), host.data(), host.size(), 4);
    return;
  }
  VTABufferCopy(handle_, 0, host.data(), 0, bytes(), 2);
}
void DeviceTensor::copy_to(std::span<int32_t> host) const {
  check(host.size(), DType::kInt32, "copy_to");
  VTABufferCopy(handle_, 0, host.data(), 0, bytes(), 2);
}

namespace {
// Each layout change is one loop nest for both directions: the element at the plain (row-major) index
// goes to the tiled one when packing, and back when unpacking.
std::vector<int8_t> relayout_matrix(std::span<const int8_t> x, int rows, int cols, int rb, int cb, bool pack) {
  const std::string what = pack ? "pack_matrix" : "unpack_matrix";
  require_divides(rows, rb, what + " rows");
  require_divides(cols, cb, what + " cols");
  std::vector<int8_t> out(size_t(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const size_t plain = size_t(r) * cols + c;
      const size_t tiled = ((size_t(r / rb) * (cols / cb) + c / cb) * rb + r % rb) * cb + c % cb;
      out[pack ? tiled : plain] = x[pack ? plain : tiled];
    }
  return out;
}

size_t nchwnc_index(int n, int c, int y, int x, int c_total, int h_total, int w_total, int nb, int cb) {
  return (((((size_t(n / nb) * (c_total / cb) + c / cb) * h_total + y) * w_total + x) * nb + n % nb) * cb) + c % cb;
}

std::vector<int8_t> relayout_nchw(std::span<const int8_t> x, int n, int c, int h, int w, int nb, int cb, bool pack) {
  const std::string what = pack ? "pack_nchw" : "unpack_nchw";
  require_divides(n, nb, what + " batch");
  require_divides(c, cb, what + " channels");
  std::vector<int8_t> out(x.size());
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < c; ++b)
      for (int y = 0; y < h; ++y)
        for (int z = 0; z < w; ++z) {
          const size_t plain = ((size_t(a) * c + b) * h + y) * w + z;
          const size_t tiled = nchwnc_index(a, b, y, z, c, h, w, nb, cb);
          out[pack ? tiled : plain] = x[pack ? plain : tiled];
        }
  return out;
}
}  // namespace

std::vector<int8_t> pack_matrix(std::span<const int8_t> m, int rows, int cols, int rb, int cb) {
  return relayout_matrix(m, rows, cols, rb, cb, true);
}
std::vector<int8_t> unpack_matrix(std::span<const int8_t> tiles, int rows, int cols, int rb, int cb) {
  return relayout_matrix(tiles, rows, cols, rb, cb, false);
}
std::vector<int8_t> pack_nchw(std::span<const int8_t> x, int n, int c, int h, int w, int nb, int cb) {
  return relayout_nchw(x, n, c, h, w, nb, cb, true);
}
std::vector<int8_t> unpack_nchw(std::span<const int8_t> x, int n, int c, int h, int w, int nb, int cb) {
  return relayout_nchw(x, n, c, h, w, nb, cb, false);
}

std::vector<int8_t> pack_oihw(std::span<const int8_t> k, int o, int i, int kh, int kw, int ob, int ib) {
  // Same index arithmetic as NCHWnc with (O, I) in place of (N, C).
  return pack_nchw(k, o, i, kh, kw, ob, ib);
}

std::vector<int32_t> gemm_reference(std::span<const int8_t> a, std::span<const int8_t> w, int n, int k, int m) {
  std::vector<int32_t> out(size_t(n) * m);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < m; ++c) {
      uint32_t sum = 0;
      for (int j = 0; j < k; ++j) sum += uint32_t(int32_t(a[size_t(r) * k + j]) * int32_t(w[size_t(c) * k + j]));
      out[size_t(r) * m + c] = static_cast<int32_t>(sum);
    }
  return out;
}

std::vector<int32_t> conv2d_reference(std::span<const int8_t> x, std::span<const int8_t> w, int n, int c, int h,
                                      int width, int o, int kh, int kw, int pad, int stride) {
  const int oh = (h + 2 * pad - kh) / stride + 1, ow = (width + 2 * pad - kw) / stride + 1;
  std::vector<int32_t> out(size_t(n) * o * oh * ow);
  for (int a = 0; a < n; ++a)
    for (int f = 0; f < o; ++f)
      for (int y = 0; y < oh; ++y)
        for (int z = 0; z < ow; ++z) {
          uint32_t sum = 0;
          for (int ch = 0; ch < c; ++ch)
            for (int dy = 0; dy < kh; ++dy)
              for (int dx = 0; dx < kw; ++dx) {
                const int iy = y * stride + dy - pad, ix = z * stride + dx - pad;
                if (iy < 0 || iy >= h || ix < 0 || ix >= width) continue;
                sum += uint32_t(int32_t(x[((size_t(a) * c + ch) * h + iy) * width + ix]) *
                                int32_t(w[((size_t(f) * c + ch) * kh + dy) * kw + dx]));
              }
          out[((size_t(a) * o + f) * oh + y) * ow + z] = static_cast<int32_t>(sum);
        }
  return out;
}

std::vector<int8_t> shift_clip(std::span<const int32_t> v, int shift, int lo, int hi) {
  std::vector<int8_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<int8_t>(std::clamp(v[i] >> shift, lo, hi));
  return out;
}

}  // namespace vta::runtime
