#pragma once
/// \file vta/driver/fsim.h
/// The functional simulator: the golden model every other backend is compared with. It executes an
/// instruction stream with exactly the semantics of spec sections 2-4 and counts the statistics of 7.3.
/// A run first validates every instruction (nothing executes if one is malformed), then schedules the
/// three modules deterministically through the four token queues, reporting deadlocks and budget
/// overruns instead of hanging.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vta/driver/device.h"
#include "vta/driver/isa.h"

namespace vta {

/// A zero-filled array in its own anonymous mapping: creating one costs a system call, and its
/// pages cost memory only once touched (a device's ~0.75 MB of SRAM is mostly never read).
template <class T>
class ZeroPages {
 public:
  ZeroPages() = default;
  ~ZeroPages() { release(); }
  ZeroPages(const ZeroPages&) = delete;
  ZeroPages& operator=(const ZeroPages&) = delete;
  /// Replaces the contents with n zero elements; throws std::bad_alloc when the host has no memory.
  void allocate(size_t n) {
    release();
    if (n == 0) return;
    data_ = static_cast<T*>(map_zero_pages(n * sizeof(T)));
    size_ = n;
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  operator std::span<const T>() const { return {data_, size_}; }

 private:
  static void* map_zero_pages(size_t bytes);
  static void unmap(void* p, size_t bytes);
  void release() {
    if (data_ != nullptr) unmap(data_, size_ * sizeof(T));
    data_ = nullptr, size_ = 0;
  }
  T* data_ = nullptr;
  size_t size_ = 0;
};

class FsimDevice final : public Device {
 public:
  FsimDevice(const Config& config, const DeviceOptions& options);
  ~FsimDevice() override;

  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget) override;
  const Stats& stats() const override { return stats_; }
  void clear_stats() override { stats_ = Stats{}; }
  TokenCounts tokens() const override { return tokens_; }
  const std::string& last_error() const override { return last_error_; }
  ErrorKind last_error_kind() const override { return last_error_kind_; }
  std::string_view target() const override { return "fsim"; }
  const Config& config() const override { return isa_.config(); }

  /// Count statistics without executing LOAD INP/WGT/ACC, STORE, GEMM and ALU (micro-op loads still
  /// execute), like the reference simulator's "skip execution" debug mode.
  void set_skip_execution(bool skip) { skip_execution_ = skip; }
  /// The GEMM kernel this device runs (never kAuto).
  FsimKernel kernel() const { return kernel_; }
  /// True when GEMMs run on the AVX-512 VNNI kernel.
  bool uses_vnni() const { return kernel_ == FsimKernel::kVnni; }
  /// Default budget in work units when run() is given 0.
  static constexpr uint64_t kDefaultBudget = uint64_t{1} << 34;

  /// Read-only views of the on-chip buffers, for tests and debugging. Elements are stored densely:
  /// element i of the input buffer is inp_sram()[i*BATCH*BLOCK_IN ...], lanes in DRAM order, one
  /// int8 a lane whatever the configured width (a 4-bit lane sign-extended: vta/driver/packing.h).
  std::span<const int8_t> inp_sram() const { return inp_; }
  std::span<const int8_t> wgt_sram() const { return wgt_; }
  std::span<const int32_t> acc_sram() const { return acc_; }
  std::span<const uint32_t> uop_sram() const { return uop_raw_; }

  struct Impl;

 private:
  friend struct Impl;
  Isa isa_;
  Dram* dram_;
  FsimKernel kernel_ = FsimKernel::kPortable;
  bool skip_execution_ = false;
  Stats stats_;
  TokenCounts tokens_;
  std::string last_error_;
  ErrorKind last_error_kind_ = ErrorKind::kNone;
  ZeroPages<int8_t> inp_, wgt_;
  ZeroPages<int32_t> acc_;
  ZeroPages<uint32_t> uop_raw_;
  ZeroPages<Uop> uops_;          ///< decoded micro-ops, kept in step with uop_raw_ (all-zero = Uop{})
  ZeroPages<int8_t> wgt_vnni_;   ///< weights regrouped for vpdpbusd (see fsim_gemm.cc)
  ZeroPages<int32_t> wgt_bias_;  ///< 128 * row sums of each weight tile, for the same kernel
  ZeroPages<int8_t> wgt_avx2_;   ///< weights regrouped in pairs for vpmaddwd (fsim_gemm.cc)
  ZeroPages<int16_t> inp_avx2_;  ///< the inputs sign-extended, for the same kernel
};

/// Factory used by make_device("fsim").
std::unique_ptr<Device> make_fsim(const Config& config, const DeviceOptions& options);

}  // namespace vta
