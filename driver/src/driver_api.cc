// The C driver API (vta/driver.h, vta/driver_ext.h) over the C++ Device interface. No C entry point
// throws: every failure is a return value and a message naming the call and the problem.

#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "vta/driver.h"
#include "vta/driver/build_config.h"
#include "vta/driver/c_stats.h"
#include "vta/driver/device.h"
#include "vta/driver_ext.h"

// The C header's memory constants are the memory model's.
static_assert(VTA_PAGE_BYTES == vta::Dram::kPageBytes && VTA_PAGE_BITS == vta::Dram::kPageBits);
static_assert(VTA_MAX_XFER == vta::Dram::kMaxTransferBytes);

namespace {

// A device handle. Calls on one handle from several threads are serialised by its mutex.
struct Handle {
  std::mutex mu;
  std::unique_ptr<vta::Device> device;
  std::string target;
  std::string error;
};

// The live handles: a handle that is not here (never allocated, or freed) is refused by name
// instead of being dereferenced.
std::mutex g_handles_mu;
std::map<const void*, std::shared_ptr<Handle>> g_handles;

std::shared_ptr<Handle> find_handle(const void* h) {
  std::lock_guard lock(g_handles_mu);
  auto it = g_handles.find(h);
  return it == g_handles.end() ? nullptr : it->second;
}

std::shared_ptr<Handle> require_handle(const void* h, const char* call) {
  auto handle = find_handle(h);
  if (handle == nullptr) {
    std::fprintf(stderr, "%s: %p is not a live device handle (NULL, never returned by VTADeviceAlloc, or freed)\n",
                 call, h);
  }
  return handle;
}

// Reports a device-memory range problem of a copy call; returns false when the copy must not happen.
bool device_range_ok(const char* call, const void* p, size_t size, const char* side) {
  const auto block = vta::Dram::global().block_of(p);
  if (!block) return true;  // host memory: the caller's responsibility, as with memcpy
  const size_t offset = size_t(static_cast<const uint8_t*>(p) - block->host);
  if (size <= block->size - offset) return true;
  std::fprintf(stderr, "%s: the %s range of %zu bytes at offset %zu runs past the end of its %zu-byte device buffer\n",
               call, side, size, offset, block->size);
  return false;
}

// A copy between host and device memory; the device side is `dst` when `to_device`, else `src`.
void checked_copy(const char* call, void* dst, const void* src, size_t size, bool to_device) {
  if (size == 0) return;
  if (dst == nullptr || src == nullptr) {
    std::fprintf(stderr, "%s: NULL %s\n", call, dst == nullptr ? "destination" : "source");
    return;
  }
  const void* device = to_device ? dst : src;
  if (device_range_ok(call, device, size, to_device ? "destination" : "source")) std::memcpy(dst, src, size);
}

}  // namespace

extern "C" {

VTADeviceHandle VTADeviceAlloc(void) {
  try {
    const std::string target = vta::default_target();
    auto h = std::make_shared<Handle>();
    h->device = vta::make_device(target, vta::build_config(), vta::DeviceOptions::from_env());
    h->target = std::string(h->device->target());
    std::lock_guard lock(g_handles_mu);
    g_handles[h.get()] = h;
    return h.get();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "VTADeviceAlloc: %s\n", e.what());
    return nullptr;
  }
}

void VTADeviceFree(VTADeviceHandle handle) {
  if (handle == nullptr) return;
  std::shared_ptr<Handle> h;
  {
    std::lock_guard lock(g_handles_mu);
    auto it = g_handles.find(handle);
    if (it == g_handles.end()) {
      std::fprintf(stderr, "VTADeviceFree: %p is not a live device handle (already freed?)\n", handle);
      return;
    }
    h = std::move(it->second);
    g_handles.erase(it);
  }
  std::lock_guard wait(h->mu);  // a call still running on another thread finishes first
}

int VTADeviceRun(VTADeviceHandle handle, vta_phy_addr_t insn_phy_addr, uint32_t insn_count, uint32_t wait_cycles) {
  auto h = require_handle(handle, "VTADeviceRun");
  if (h == nullptr) return VTA_RUN_ERROR;
  std::lock_guard lock(h->mu);
  vta::RunStatus status;
  try {
    status = h->device->run(insn_phy_addr, insn_count, wait_cycles);
  } catch (const std::exception& e) {
    h->error = std::string("vta: internal error: ") + e.what() + "\n";
    std::fputs(h->error.c_str(), stderr);
    return VTA_RUN_ERROR;
  }
  h->error = h->device->last_error();
  if (status != vta::RunStatus::kOk) std::fputs(h->error.c_str(), stderr);
  return static_cast<int>(status);
}

void* VTAMemAlloc(size_t size, int /*cached*/) {
  try {
    auto& dram = vta::Dram::global();
    if (size == 0 || size > dram.capacity()) {
      std::fprintf(stderr,
                   "VTAMemAlloc: cannot allocate %zu bytes: sizes must be between 1 and %llu (the physical "
                   "address space)\n",
                   size, static_cast<unsigned long long>(dram.capacity()));
      return nullptr;
    }
    void* p = dram.alloc(size);
    if (p == nullptr) std::fprintf(stderr, "VTAMemAlloc: out of device memory for %zu bytes\n", size);
    return p;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "VTAMemAlloc: %s\n", e.what());
    return nullptr;
  }
}

void VTAMemFree(void* buf) {
  if (buf != nullptr && !vta::Dram::global().free(buf)) {
    std::fprintf(stderr, "VTAMemFree: %p was not returned by VTAMemAlloc (or was already freed)\n", buf);
  }
}

vta_phy_addr_t VTAMemGetPhyAddr(void* buf) { return static_cast<vta_phy_addr_t>(vta::Dram::global().phys_addr(buf)); }

void VTAMemCopyFromHost(void* dst, const void* src, size_t size) {
  checked_copy("VTAMemCopyFromHost", dst, src, size, true);
}

void VTAMemCopyToHost(void* dst, const void* src, size_t size) {
  checked_copy("VTAMemCopyToHost", dst, src, size, false);
}

void VTAFlushCache(void*, vta_phy_addr_t, int) {}
void VTAInvalidateCache(void*, vta_phy_addr_t, int) {}
void VTAProgram(const char*) {}

int VTADeviceGetStats(VTADeviceHandle handle, VTAStats* out) {
  auto h = require_handle(handle, "VTADeviceGetStats");
  if (h == nullptr || out == nullptr) return -1;
  std::lock_guard lock(h->mu);
  *out = vta::to_c_stats(h->device->stats());
  return 0;
}

void VTADeviceClearStats(VTADeviceHandle handle) {
  auto h = require_handle(handle, "VTADeviceClearStats");
  if (h == nullptr) return;
  std::lock_guard lock(h->mu);
  try {
    h->device->clear_stats();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "VTADeviceClearStats: %s\n", e.what());
  }
}

int VTADeviceStatsJson(VTADeviceHandle handle, char* buf, size_t size) {
  auto h = require_handle(handle, "VTADeviceStatsJson");
  if (h == nullptr) return -1;
  std::lock_guard lock(h->mu);
  const std::string json = h->device->stats().to_json();
  if (buf != nullptr && size > 0) {
    const size_t n = std::min(size - 1, json.size());
    std::memcpy(buf, json.data(), n);
    buf[n] = '\0';
  }
  return static_cast<int>(json.size());
}

const char* VTADeviceGetLastError(VTADeviceHandle handle) {
  auto h = find_handle(handle);
  if (h == nullptr) return "not a live device handle";
  std::lock_guard lock(h->mu);
  return h->error.c_str();  // owned by the handle, which the registry keeps alive until VTADeviceFree
}

const char* VTADeviceGetLastErrorKind(VTADeviceHandle handle) {
  auto h = find_handle(handle);
  if (h == nullptr) return "internal";
  std::lock_guard lock(h->mu);
  return vta::to_string(h->device->last_error_kind());
}

const char* VTADeviceTarget(VTADeviceHandle handle) {
  auto h = find_handle(handle);
  return h == nullptr ? "" : h->target.c_str();
}

}  // extern "C"
