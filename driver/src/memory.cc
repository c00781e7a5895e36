#include "vta/driver/memory.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>

#include "vta/driver/format.h"

namespace vta {

Dram::Dram(int address_bits) {
  if (address_bits <= kPageBits || address_bits > kMaxAddressBits) {
    throw std::invalid_argument("Dram: a physical space of " + std::to_string(address_bits) +
                                " address bits is outside [" + std::to_string(kPageBits + 1) + ", " +
                                std::to_string(kMaxAddressBits) + "]");
  }
  // Page 0 of the physical space stands for address 0 and is never handed out.
  total_pages_ = (size_t{1} << (address_bits - kPageBits)) - 1;
  // Address space only: pages cost memory when first touched and stop costing it when freed.
  void* p = mmap(nullptr, total_pages_ * kPageBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    throw std::runtime_error("vta: cannot reserve " + std::to_string(total_pages_ * kPageBytes >> 20) +
                             " MiB of address space for the simulated DRAM: " + std::strerror(errno));
  }
  base_ = static_cast<uint8_t*>(p);
  // 4 KiB pages: a transparent huge page would zero 2 MiB on the first touch of a 1-byte buffer.
  madvise(base_, total_pages_ * kPageBytes, MADV_NOHUGEPAGE);
  free_pages_[0] = total_pages_;
  dirty_.assign((total_pages_ + 63) / 64, 0);
}

Dram::Dram(DramRegion region) {
  const auto what = [&](const std::string& problem) {
    return std::invalid_argument("vta: the memory region " + region.name + " " + problem);
  };
  if (region.host == nullptr || reinterpret_cast<uintptr_t>(region.host) % kPageBytes != 0)
    throw what("is not mapped at a page boundary");
  if (region.phys == 0 || region.phys % kPageBytes != 0)
    throw what("has physical address " + hex(region.phys) + ", which is 0 or not a multiple of 4096");
  if (region.bytes < kPageBytes || region.bytes % kPageBytes != 0)
    throw what("has " + std::to_string(region.bytes) + " bytes, not a whole number of 4 KiB pages");
  if (region.phys + region.bytes > (uint64_t{1} << 32) || region.phys + region.bytes < region.phys)
    throw what("ends past the 32-bit physical address space (" + hex(region.phys) + " + " +
               std::to_string(region.bytes) + " bytes): VTA's addresses are 32 bits");
  total_pages_ = region.bytes / kPageBytes;
  base_ = region.host;
  phys0_ = region.phys;
  free_pages_[0] = total_pages_;
  // What the region held before is unknown (unless it says): every page is cleaned as it is handed out.
  dirty_.assign((total_pages_ + 63) / 64, region.zeroed ? 0 : ~uint64_t{0});
  dirty_pages_ = region.zeroed ? 0 : total_pages_;
  region_ = std::move(region);
}

Dram::~Dram() {
  if (!region_) {
    munmap(base_, total_pages_ * kPageBytes);
  } else if (region_->release) {
    region_->release();
  }
}

void* Dram::alloc(size_t size) {
  if (size == 0 || size > total_pages_ * kPageBytes) return nullptr;
  const size_t pages = (size + kPageBytes - 1) / kPageBytes;  // no overflow: size is bounded above
  std::lock_guard lock(mu_);
  auto it = free_pages_.begin();
  while (it != free_pages_.end() && it->second < pages) ++it;
  if (it == free_pages_.end()) return nullptr;
  return take(it, it->first, pages, size);
}

void* Dram::alloc_at(PhysAddr phys, size_t size) {
  if (size == 0 || size > total_pages_ * kPageBytes || phys % kPageBytes != 0 || phys < phys0_) return nullptr;
  const size_t pages = (size + kPageBytes - 1) / kPageBytes;
  const uint64_t first = (phys - phys0_) >> kPageBits;
  if (first >= total_pages_ || pages > total_pages_ - first) return nullptr;
  std::lock_guard lock(mu_);
  // The free run that contains the first page must hold all of them.
  auto it = free_pages_.upper_bound(size_t(first));
  if (it == free_pages_.begin()) return nullptr;
  --it;
  if (first + pages > it->first + it->second) return nullptr;
  return take(it, size_t(first), pages, size);
}

void* Dram::take(std::map<size_t, size_t>::iterator run, size_t first, size_t pages, size_t size) {
  const size_t run_first = run->first, run_pages = run->second;
  free_pages_.erase(run);
  if (first > run_first) free_pages_[run_first] = first - run_first;
  if (run_first + run_pages > first + pages) free_pages_[first + pages] = run_first + run_pages - first - pages;
  const PhysAddr phys = phys0_ + (static_cast<PhysAddr>(first) << kPageBits);
  uint8_t* host = base_ + first * kPageBytes;  // zero: never touched, given back, or cleaned here
  if (dirty_pages_ > 0) clean(first, pages);
  by_phys_[phys] = DramBlock{phys, host, size, pages};
  return host;
}

bool Dram::free(void* host) {
  const auto h = reinterpret_cast<uintptr_t>(host), b0 = reinterpret_cast<uintptr_t>(base_);
  if (h < b0 || h - b0 >= total_pages_ * kPageBytes) return false;
  std::lock_guard lock(mu_);
  auto b = by_phys_.find(PhysAddr(h - b0) + phys0_);
  if (b == by_phys_.end()) return false;
  size_t first = static_cast<size_t>((b->first - phys0_) >> kPageBits), pages = b->second.pages;
  by_phys_.erase(b);
  // Give the pages back: their memory is released and they read as zero when reused. Small frees
  // are given back together (each madvise flushes the TLB: ~15 us here, 100x a malloc/free pair).
  // A region's pages are not ours to give back: they are cleaned when handed out again.
  if (region_) {
    for (size_t p = first; p < first + pages; ++p) dirty_[p / 64] |= uint64_t{1} << (p % 64);
    dirty_pages_ += pages;
  } else if (pages * kPageBytes >= kDirtyLimit) {
    madvise(base_ + first * kPageBytes, pages * kPageBytes, MADV_DONTNEED);
  } else {
    for (size_t p = first; p < first + pages; ++p) dirty_[p / 64] |= uint64_t{1} << (p % 64);
    dirty_pages_ += pages;
    if (dirty_pages_ * kPageBytes >= kDirtyLimit) release_dirty();
  }
  // Return the pages and merge with free neighbours so large allocations stay possible.
  auto next = free_pages_.lower_bound(first);
  if (next != free_pages_.end() && next->first == first + pages) {
    pages += next->second;
    next = free_pages_.erase(next);
  }
  if (next != free_pages_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == first) {
      prev->second += pages;
      return true;
    }
  }
  free_pages_[first] = pages;
  return true;
}

void Dram::release_dirty() {
  // Every dirty page is free (allocation cleans the pages it hands out): give back each run of them.
  size_t run_start = 0, run = 0;
  auto flush = [&] {
    if (run > 0) madvise(base_ + run_start * kPageBytes, run * kPageBytes, MADV_DONTNEED);
    run = 0;
  };
  for (size_t w = 0; w < dirty_.size(); ++w) {
    if (dirty_[w] == 0) {
      flush();
      continue;
    }
    for (size_t b = 0; b < 64; ++b) {
      const size_t p = w * 64 + b;
      if (dirty_[w] >> b & 1u) {
        if (run == 0) run_start = p;
        ++run;
      } else {
        flush();
      }
    }
    dirty_[w] = 0;
  }
  flush();
  dirty_pages_ = 0;
}

void Dram::clean(size_t first, size_t pages) {
  for (size_t p = first; p < first + pages; ++p) {
    uint64_t& word = dirty_[p / 64];
    if (word == 0) {
      p = (p / 64) * 64 + 63;  // skip the rest of a clean word
      continue;
    }
    const uint64_t bit = uint64_t{1} << (p % 64);
    if (word & bit) {
      std::memset(base_ + p * kPageBytes, 0, kPageBytes);
      word &= ~bit;
      --dirty_pages_;
    }
  }
}

std::optional<DramBlock> Dram::block_of(const void* host) const {
  const auto h = reinterpret_cast<uintptr_t>(host), b0 = reinterpret_cast<uintptr_t>(base_);
  if (h < b0 || h - b0 > total_pages_ * kPageBytes) return std::nullopt;
  const PhysAddr phys = PhysAddr(h - b0) + phys0_;
  std::lock_guard lock(mu_);
  auto it = by_phys_.upper_bound(phys);
  if (it == by_phys_.begin()) return std::nullopt;
  --it;
  // Interior pointers up to one past the requested size belong to the allocation.
  if (phys - it->first > it->second.size) return std::nullopt;
  return it->second;
}

PhysAddr Dram::phys_addr(const void* host) const {
  const auto b = block_of(host);
  if (!b) return 0;
  return b->phys + PhysAddr(static_cast<const uint8_t*>(host) - b->host);
}

const DramBlock* Dram::find_phys(PhysAddr phys) const {
  auto it = by_phys_.upper_bound(phys);
  if (it == by_phys_.begin()) return nullptr;
  --it;
  if (phys - it->first >= it->second.size) return nullptr;
  return &it->second;
}

uint8_t* Dram::translate(PhysAddr phys, size_t bytes) const {
  std::lock_guard lock(mu_);
  const DramBlock* b = find_phys(phys);
  // phys - b->phys < b->size here, so the subtraction below cannot wrap.
  if (b == nullptr || bytes > b->size - (phys - b->phys)) return nullptr;
  return b->host + (phys - b->phys);
}

std::optional<DramBlock> Dram::block_at(PhysAddr phys) const {
  std::lock_guard lock(mu_);
  const DramBlock* b = find_phys(phys);
  if (b == nullptr) return std::nullopt;
  return *b;
}

std::pair<PhysAddr, PhysAddr> Dram::live_span() const {
  std::lock_guard lock(mu_);
  if (by_phys_.empty()) return {0, 0};
  const DramBlock& last = by_phys_.rbegin()->second;
  return {by_phys_.begin()->first, last.phys + last.pages * kPageBytes};
}

size_t Dram::live_blocks() const {
  std::lock_guard lock(mu_);
  return by_phys_.size();
}

}  // namespace vta
