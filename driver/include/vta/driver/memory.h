#pragma once
/// \file vta/driver/memory.h
/// Physical memory: the DRAM every backend (fsim, tsim, remote server, board) reads and writes.
/// Simulated, the whole physical space is one reservation of host address space; an allocation is a
/// run of 4 KiB pages in it, so physical page n (0-based) has address (n + 1) << 12 (address 0 is never
/// valid, spec 7.1) and host address base + n * 4096. Pages are zero when handed out and are given
/// back to the operating system once freed (at most kDirtyLimit bytes of freed pages wait to be
/// given back together, because each release flushes the TLB), so memory use follows the live
/// allocations. Over a region (DramRegion: a board's DMA buffer, physically contiguous, mapped by its
/// driver) page n is at region.phys + n * 4096 and pages are zeroed when handed out.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace vta {

using PhysAddr = uint64_t;

/// One live allocation.
struct DramBlock {
  PhysAddr phys = 0;  ///< first physical byte
  uint8_t* host = nullptr;
  size_t size = 0;   ///< bytes requested; accesses beyond it are errors
  size_t pages = 0;  ///< pages reserved
};

/// Memory a Dram manages instead of reserving its own: a physically contiguous buffer mapped into this
/// process (a board's DMA buffer).
struct DramRegion {
  uint8_t* host = nullptr;        ///< where it is mapped (page-aligned)
  PhysAddr phys = 0;              ///< its physical address (page-aligned, not 0)
  size_t bytes = 0;               ///< its size (a whole number of pages)
  std::string name;               ///< what it is, for diagnostics ("/dev/udmabuf0")
  bool zeroed = false;            ///< its bytes are all zero already (else each page is zeroed when handed out)
  std::function<void()> release;  ///< called when the Dram is destroyed (unmaps it)
};

/// The process-wide physical memory. Thread-safe.
class Dram {
 public:
  static constexpr int kPageBits = 12;
  static constexpr size_t kPageBytes = size_t{1} << kPageBits;  ///< VTA_PAGE_BYTES of vta/driver.h
  /// Largest physically contiguous transfer the runtime stages at once (VTA_MAX_XFER of vta/driver.h).
  static constexpr size_t kMaxTransferBytes = size_t{1} << 25;
  /// Widest physical space a Dram can have (64 GiB of host address space is reserved for it).
  static constexpr int kMaxAddressBits = 36;
  /// Freed pages not yet given back to the system, at most (larger frees are given back at once).
  static constexpr size_t kDirtyLimit = size_t{4} << 20;

  /// The memory used by the C API and by every device: when the backend VTA_TARGET names has memory
  /// of its own (register_backend_memory in vta/driver/device.h: the board's DMA buffer), that, made
  /// at the first call; else a simulated one. Throws what making the backend's memory throws (the
  /// next call tries again).
  static Dram& global();

  /// `address_bits` (13..kMaxAddressBits) bounds physical addresses (32 by default, as
  /// vta_phy_addr_t). Throws std::invalid_argument for a width outside that range and
  /// std::runtime_error when the host cannot reserve the address space.
  explicit Dram(int address_bits = 32);
  /// Manages `region` (checked: aligned, nonzero, not wider than the 32-bit physical space).
  /// Throws std::invalid_argument naming the region and what is wrong with it.
  explicit Dram(DramRegion region);
  ~Dram();
  Dram(const Dram&) = delete;
  Dram& operator=(const Dram&) = delete;

  /// Zero-filled, page-aligned memory; nullptr when size is 0, larger than the physical space, or
  /// no run of free pages is long enough.
  void* alloc(size_t size);
  /// Like alloc, at exactly the physical address `phys` (page-aligned): nullptr when any of the pages
  /// is taken or outside the physical space. The remote device mirrors a client's allocations with it.
  void* alloc_at(PhysAddr phys, size_t size);
  /// Frees an allocation; returns false when `host` is not the start of one.
  bool free(void* host);
  /// Physical address of a host pointer inside an allocation (interior pointers allowed, up to one
  /// past its end), or 0.
  PhysAddr phys_addr(const void* host) const;
  /// Host pointer for the physical range [phys, phys + bytes) when it lies inside one allocation,
  /// else nullptr (the caller reports the access as outside allocated memory). Overflow-safe for any
  /// arguments.
  uint8_t* translate(PhysAddr phys, size_t bytes) const;
  /// The allocation containing `phys`, if any (for diagnostics).
  std::optional<DramBlock> block_at(PhysAddr phys) const;
  /// The allocation containing the host address `host` (interior pointers allowed), if any.
  std::optional<DramBlock> block_of(const void* host) const;
  /// Number of live allocations (for leak checks in tests).
  size_t live_blocks() const;
  /// Bytes of the physical space (every allocation is smaller).
  uint64_t capacity() const { return uint64_t(total_pages_) * kPageBytes; }
  /// The region this memory manages, or nullptr when it is simulated.
  const DramRegion* region() const { return region_ ? &*region_ : nullptr; }
  /// The lowest and highest physical byte of the live allocations plus one ({0, 0} when none).
  std::pair<PhysAddr, PhysAddr> live_span() const;

 private:
  const DramBlock* find_phys(PhysAddr phys) const;
  // hands out `pages` pages at `first` from the free run `run` that holds them (mu_ held)
  void* take(std::map<size_t, size_t>::iterator run, size_t first, size_t pages, size_t size);
  void release_dirty();                    // gives every freed, unreleased page back
  void clean(size_t first, size_t pages);  // zeroes the freed, unreleased pages of a range
  mutable std::mutex mu_;
  std::vector<uint64_t> dirty_;  ///< bit per page: freed but not yet given back (so not zero)
  size_t dirty_pages_ = 0;
  size_t total_pages_;
  uint8_t* base_ = nullptr;      ///< host address of page 0
  PhysAddr phys0_ = kPageBytes;  ///< physical address of page 0
  std::optional<DramRegion> region_;
  std::map<PhysAddr, DramBlock> by_phys_;
  std::map<size_t, size_t> free_pages_;  ///< first page -> page count, first fit
};

}  // namespace vta
