#pragma once
/// \file vta/memory.h
/// Simulated physical memory: the DRAM every backend (fsim, tsim, remote server) reads and writes.
/// Allocations are page-aligned host buffers mapped to a contiguous range of 4 KiB physical pages;
/// physical page n (0-based) has address (n + 1) << 12, so address 0 is never valid (spec 7.1).

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace vta {

using PhysAddr = uint64_t;

/// One live allocation.
struct DramBlock {
  PhysAddr phys = 0;    ///< first physical byte
  uint8_t* host = nullptr;
  size_t size = 0;      ///< bytes requested; accesses beyond it are errors
  size_t pages = 0;     ///< pages reserved
};

/// The process-wide physical memory. Thread-safe.
class Dram {
 public:
  static constexpr int kPageBits = 12;
  static constexpr size_t kPageBytes = size_t{1} << kPageBits;

  /// The memory used by the C API and by every device.
  static Dram& global();

  /// `address_bits` bounds physical addresses (32 by default, as vta_phy_addr_t).
  explicit Dram(int address_bits = 32);
  ~Dram();
  Dram(const Dram&) = delete;
  Dram& operator=(const Dram&) = delete;

  /// Zero-filled, page-aligned memory; nullptr when size is 0 or the physical space is exhausted.
  void* alloc(size_t size);
  /// Frees an allocation; returns false when `host` is not the start of one.
  bool free(void* host);
  /// Physical address of a host pointer inside an allocation (interior pointers allowed), or 0.
  PhysAddr phys_addr(const void* host) const;
  /// Host pointer for the physical range [phys, phys + bytes) when it lies inside one allocation,
  /// else nullptr (the caller reports the access as outside allocated memory).
  uint8_t* translate(PhysAddr phys, size_t bytes) const;
  /// The allocation containing `phys`, if any (for diagnostics).
  std::optional<DramBlock> block_at(PhysAddr phys) const;
  /// Number of live allocations and bytes (for leak checks in tests).
  size_t live_blocks() const;

 private:
  const DramBlock* find_phys(PhysAddr phys) const;
  mutable std::mutex mu_;
  size_t total_pages_;
  std::map<PhysAddr, DramBlock> by_phys_;
  std::map<uintptr_t, PhysAddr> by_host_;
  std::map<size_t, size_t> free_pages_;  ///< first page -> page count, first fit
};

}  // namespace vta
