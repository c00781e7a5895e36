#pragma once
/// \file vta/runtime/tensor.h
/// The C++ user API over the runtime: RAII device tensors (shape, dtype, name, host<->device copies),
/// the tiled layouts of the tutorials, and plain C++ reference implementations of the tutorial
/// operators used to verify every output.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vta/driver/device.h"
#include "vta/driver/packing.h"

namespace vta::runtime {

/// The statistics of the calling thread's runtime device, and clearing them.
Stats runtime_stats();
void clear_runtime_stats();

/// Element types of device tensors. kInt4 elements are packed two a byte as the device reads them
/// (vta/driver/packing.h): the host sees one int8 per element, in [-8, 7].
enum class DType { kInt8, kInt32, kInt4 };

/// Bits of one element.
inline size_t dtype_bits(DType t) { return t == DType::kInt4 ? 4 : t == DType::kInt8 ? 8 : 32; }
/// Bytes of one element of a whole-byte type (kInt8, kInt32); throws std::invalid_argument for kInt4,
/// whose elements share bytes (dtype_bits).
size_t dtype_bytes(DType t);
/// The tensor type of a configuration's lanes of `width` bits (4 or 8).
DType dtype_of_width(int width);
/// "int4", "int8" or "int32".
const char* dtype_name(DType t);
/// An int4 tensor's elements pair into bytes: its element count (and a view's offset) must be even.
/// Throws std::invalid_argument "`owner`: an int4 tensor's `what` must be even ..." for an odd one of
/// type `t`; the one home of the rule, for this process's tensors and a device server's.
void require_whole_bytes(DType t, size_t elements, const std::string& owner, const char* what);
/// `host` packed as int4 elements (vta/driver/packing.h) for a copy to the device; a value outside
/// [-8, 7] throws std::invalid_argument naming `what` and the element. The one home of the check,
/// for this process's tensors and a device server's.
std::vector<uint8_t> pack_int4(std::span<const int8_t> host, const std::string& what);

/// A tensor in device memory, allocated through the runtime (VTABufferAlloc) and freed on
/// destruction. Its name appears in the runtime call trace.
class DeviceTensor {
 public:
  DeviceTensor(std::vector<int64_t> shape, DType dtype, std::string name = "");
  /// A tensor of `shape` over `whole`'s memory from element `offset` on (runtime::buffer_view): what
  /// a program writes there, `whole` holds. Throws std::invalid_argument when it leaves `whole`.
  static DeviceTensor view(const DeviceTensor& whole, size_t offset, std::vector<int64_t> shape, std::string name);
  ~DeviceTensor();
  DeviceTensor(DeviceTensor&& other) noexcept;
  DeviceTensor& operator=(DeviceTensor&& other) noexcept;
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  /// The runtime buffer handle, as VTALoadBuffer2D / VTAStoreBuffer2D take it.
  void* handle() const { return handle_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  const std::string& name() const { return name_; }
  size_t elements() const;
  size_t bytes() const { return packed_bytes(elements(), int(dtype_bits(dtype_))); }

  /// Host<->device copies; the element type must match dtype() and the size must match exactly. An
  /// int4 tensor is copied from and to int8 values, packed and unpacked on the way; a value outside
  /// [-8, 7] is refused (std::invalid_argument naming the element).
  void copy_from(std::span<const int8_t> host);
  void copy_from(std::span<const int32_t> host);
  void copy_to(std::span<int8_t> host) const;
  void copy_to(std::span<int32_t> host) const;

 private:
  DeviceTensor(std::vector<int64_t> shape, DType dtype, std::string name, void* handle);
  void check(size_t count, DType t, const char* what) const;
  std::vector<int64_t> shape_;
  DType dtype_;
  std::string name_;
  void* handle_ = nullptr;
};

/// A row-major (rows x cols) matrix as tiles: shape (rows/rb, cols/cb, rb, cb) (the tutorials'
/// (N/BATCH, C/BLOCK, BATCH, BLOCK) layout). Sizes must divide; throws std::invalid_argument otherwise.
std::vector<int8_t> pack_matrix(std::span<const int8_t> m, int rows, int cols, int rb, int cb);
std::vector<int8_t> unpack_matrix(std::span<const int8_t> tiles, int rows, int cols, int rb, int cb);

/// NCHW activations as NCHWnc: (N/nb, C/cb, H, W, nb, cb).
std::vector<int8_t> pack_nchw(std::span<const int8_t> x, int n, int c, int h, int w, int nb, int cb);
std::vector<int8_t> unpack_nchw(std::span<const int8_t> x, int n, int c, int h, int w, int nb, int cb);
/// OIHW kernels as OIHWoi: (O/ob, I/ib, KH, KW, ob, ib).
std::vector<int8_t> pack_oihw(std::span<const int8_t> k, int o, int i, int kh, int kw, int ob, int ib);

/// out[n][m] = sum_k a[n][k] * w[m][k], int8 inputs, int32 accumulation (two's-complement wrap).
std::vector<int32_t> gemm_reference(std::span<const int8_t> a, std::span<const int8_t> w, int n, int k, int m);
/// NCHW conv2d, OIHW kernel, symmetric zero padding, int32 accumulation.
std::vector<int32_t> conv2d_reference(std::span<const int8_t> x, std::span<const int8_t> w, int n, int c, int h,
                                      int width, int o, int kh, int kw, int pad, int stride);
/// The tutorials' epilogue: arithmetic shift right, clip to [lo, hi], cast to int8.
std::vector<int8_t> shift_clip(std::span<const int32_t> v, int shift, int lo, int hi);

}  // namespace vta::runtime
