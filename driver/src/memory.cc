#include "vta/memory.h"

#include <cstdlib>
#include <cstring>
#include <iterator>

namespace vta {

Dram& Dram::global() {
  static Dram dram;
  return dram;
}

Dram::Dram(int address_bits) {
  // Page 0 of the physical space stands for address 0 and is never handed out.
  total_pages_ = (size_t{1} << (address_bits - kPageBits)) - 1;
  free_pages_[0] = total_pages_;
}

Dram::~Dram() {
  for (auto& [phys, block] : by_phys_) std::free(block.host);
}

void* Dram::alloc(size_t size) {
  if (size == 0) return nullptr;
  const size_t pages = (size + kPageBytes - 1) / kPageBytes;
  std::lock_guard lock(mu_);
  auto it = free_pages_.begin();
  while (it != free_pages_.end() && it->second < pages) ++it;
  if (it == free_pages_.end()) return nullptr;
  auto* host = static_cast<uint8_t*>(std::aligned_alloc(kPageBytes, pages * kPageBytes));
  if (host == nullptr) return nullptr;
  std::memset(host, 0, pages * kPageBytes);
  const size_t first = it->first, run = it->second;
  free_pages_.erase(it);
  if (run > pages) free_pages_[first + pages] = run - pages;
  const PhysAddr phys = static_cast<PhysAddr>(first + 1) << kPageBits;
  by_phys_[phys] = DramBlock{phys, host, size, pages};
  by_host_[reinterpret_cast<uintptr_t>(host)] = phys;
  return host;
}

bool Dram::free(void* host) {
  std::lock_guard lock(mu_);
  auto h = by_host_.find(reinterpret_cast<uintptr_t>(host));
  if (h == by_host_.end()) return false;
  auto b = by_phys_.find(h->second);
  size_t first = static_cast<size_t>(b->first >> kPageBits) - 1, pages = b->second.pages;
  std::free(b->second.host);
  by_phys_.erase(b);
  by_host_.erase(h);
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

PhysAddr Dram::phys_addr(const void* host) const {
  const auto p = reinterpret_cast<uintptr_t>(host);
  std::lock_guard lock(mu_);
  auto it = by_host_.upper_bound(p);
  if (it == by_host_.begin()) return 0;
  --it;
  const DramBlock& b = by_phys_.at(it->second);
  // Interior pointers up to one past the requested size are accepted.
  if (p - it->first > b.size) return 0;
  return b.phys + (p - it->first);
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
  if (b == nullptr || phys - b->phys + bytes > b->size) return nullptr;
  return b->host + (phys - b->phys);
}

std::optional<DramBlock> Dram::block_at(PhysAddr phys) const {
  std::lock_guard lock(mu_);
  const DramBlock* b = find_phys(phys);
  if (b == nullptr) return std::nullopt;
  return *b;
}

size_t Dram::live_blocks() const {
  std::lock_guard lock(mu_);
  return by_phys_.size();
}

}  // namespace vta
