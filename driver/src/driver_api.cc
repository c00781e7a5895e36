// The C driver API (vta/driver.h, vta/driver_ext.h) over the C++ Device interface.

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include "c_stats.h"
#include "vta/build_config.h"
#include "vta/device.h"
#include "vta/driver.h"
#include "vta/driver_ext.h"

namespace {

struct Handle {
  std::unique_ptr<vta::Device> device;
  std::string target;
  std::string error;
};

Handle* as_handle(VTADeviceHandle h) { return static_cast<Handle*>(h); }

}  // namespace

extern "C" {

VTADeviceHandle VTADeviceAlloc(void) {
  const std::string target = vta::default_target();
  try {
    auto h = std::make_unique<Handle>();
    h->device = vta::make_device(target, vta::build_config());
    h->target = std::string(h->device->target());
    return h.release();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "VTADeviceAlloc: %s\n", e.what());
    return nullptr;
  }
}

void VTADeviceFree(VTADeviceHandle handle) { delete as_handle(handle); }

int VTADeviceRun(VTADeviceHandle handle, vta_phy_addr_t insn_phy_addr, uint32_t insn_count, uint32_t wait_cycles) {
  Handle* h = as_handle(handle);
  if (h == nullptr) {
    std::fprintf(stderr, "VTADeviceRun: NULL device handle\n");
    return VTA_RUN_ERROR;
  }
  vta::RunStatus status;
  try {
    status = h->device->run(insn_phy_addr, insn_count, wait_cycles);
  } catch (const std::exception& e) {
    h->error = std::string("vta: internal error: ") + e.what();
    std::fprintf(stderr, "%s\n", h->error.c_str());
    return VTA_RUN_ERROR;
  }
  h->error = h->device->last_error();
  if (status != vta::RunStatus::kOk) std::fputs(h->error.c_str(), stderr);
  return static_cast<int>(status);
}

void* VTAMemAlloc(size_t size, int /*cached*/) { return vta::Dram::global().alloc(size); }

void VTAMemFree(void* buf) {
  if (buf != nullptr && !vta::Dram::global().free(buf)) {
    std::fprintf(stderr, "VTAMemFree: %p was not returned by VTAMemAlloc (or was already freed)\n", buf);
  }
}

vta_phy_addr_t VTAMemGetPhyAddr(void* buf) {
  return static_cast<vta_phy_addr_t>(vta::Dram::global().phys_addr(buf));
}

void VTAMemCopyFromHost(void* dst, const void* src, size_t size) { std::memcpy(dst, src, size); }
void VTAMemCopyToHost(void* dst, const void* src, size_t size) { std::memcpy(dst, src, size); }
void VTAFlushCache(void*, vta_phy_addr_t, int) {}
void VTAInvalidateCache(void*, vta_phy_addr_t, int) {}
void VTAProgram(const char*) {}

int VTADeviceGetStats(VTADeviceHandle handle, VTAStats* out) {
  Handle* h = as_handle(handle);
  if (h == nullptr || out == nullptr) return -1;
  *out = vta::to_c_stats(h->device->stats());
  return 0;
}

void VTADeviceClearStats(VTADeviceHandle handle) {
  if (Handle* h = as_handle(handle)) h->device->clear_stats();
}

int VTADeviceStatsJson(VTADeviceHandle handle, char* buf, size_t size) {
  Handle* h = as_handle(handle);
  if (h == nullptr) return -1;
  const std::string json = h->device->stats().to_json();
  if (buf != nullptr && size > 0) {
    const size_t n = std::min(size - 1, json.size());
    std::memcpy(buf, json.data(), n);
    buf[n] = '\0';
  }
  return static_cast<int>(json.size());
}

const char* VTADeviceGetLastError(VTADeviceHandle handle) {
  Handle* h = as_handle(handle);
  return h == nullptr ? "NULL device handle" : h->error.c_str();
}

const char* VTADeviceTarget(VTADeviceHandle handle) {
  Handle* h = as_handle(handle);
  return h == nullptr ? "" : h->target.c_str();
}

}  // extern "C"
