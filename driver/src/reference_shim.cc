// Written against the C API only: the global function vta() cannot share a translation unit with the
// C++ namespace vta.
#include "vta/reference_shim.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>

#include "vta/driver.h"
#include "vta/driver_ext.h"

namespace {

constexpr uint64_t kFailed = std::numeric_limits<uint64_t>::max();

struct MemDeleter {
  void operator()(void* p) const { VTAMemFree(p); }
};

struct Base {
  const void* buffer;
  uint32_t unit;  // bytes of one DRAM element of the memory type
  const char* name;
};

// The device every vta() call runs on, created at first use; its runs are serialised by the driver.
std::mutex g_device_mu;
VTADeviceHandle g_device = nullptr;

VTADeviceHandle shim_device() {
  std::lock_guard lock(g_device_mu);
  if (g_device == nullptr) g_device = VTADeviceAlloc();  // prints why on failure
  return g_device;
}

}  // namespace

int vta_shim_stats(VTAStats* stats) {
  VTADeviceHandle dev = shim_device();
  return dev == nullptr ? -1 : VTADeviceGetStats(dev, stats);
}

void vta_shim_clear_stats() {
  if (VTADeviceHandle dev = shim_device()) VTADeviceClearStats(dev);
}

// the reference's signature  NOLINTBEGIN(readability-non-const-parameter)
uint64_t vta(uint32_t insn_count, VTAGenericInsn* insns, VTAUop* uops, uint32_t* inputs, uint32_t* weights,
             uint32_t* biases, uint32_t* outputs) {  // NOLINTEND(readability-non-const-parameter)
  auto base_of = [&](unsigned type) -> Base {
    switch (type) {
      case VTA_MEM_ID_UOP: return {uops, VTA_UOP_ELEM_BYTES, "uops"};
      case VTA_MEM_ID_INP: return {inputs, VTA_INP_ELEM_BYTES, "inputs"};
      case VTA_MEM_ID_WGT: return {weights, VTA_WGT_ELEM_BYTES, "weights"};
      case VTA_MEM_ID_ACC: return {biases, VTA_ACC_ELEM_BYTES, "biases"};
      case VTA_MEM_ID_ACC_8BIT: return {biases, VTA_BATCH * VTA_BLOCK_OUT, "biases"};
      case VTA_MEM_ID_OUT: return {outputs, VTA_OUT_ELEM_BYTES, "outputs"};
      default: return {nullptr, 1, nullptr};  // illegal: left for the device to report
    }
  };
  if (insns == nullptr || insn_count == 0) {
    std::fprintf(stderr, "vta(): no instructions\n");
    return kFailed;
  }
  std::unique_ptr<void, MemDeleter> stream(VTAMemAlloc(size_t(insn_count) * sizeof(VTAInsn), VTA_CACHED));
  if (stream == nullptr) {
    std::fprintf(stderr, "vta(): out of device memory for %u instructions\n", insn_count);
    return kFailed;
  }
  auto* out = static_cast<VTAInsn*>(stream.get());
  std::memcpy(out, insns, size_t(insn_count) * sizeof(VTAInsn));
  for (uint32_t i = 0; i < insn_count; ++i) {
    VTAMemInsn& m = out[i].mem;
    if ((m.opcode != VTA_OPCODE_LOAD && m.opcode != VTA_OPCODE_STORE) || m.x_size == 0) continue;
    const Base b = base_of(unsigned(m.memory_type));
    if (b.name == nullptr) continue;
    const vta_phy_addr_t phys = b.buffer ? VTAMemGetPhyAddr(const_cast<void*>(b.buffer)) : 0;
    if (phys == 0) {
      std::fprintf(stderr, "vta(): instruction %u uses the %s buffer, which is %s\n", i, b.name,
                   b.buffer ? "not device memory from VTAMemAlloc" : "NULL");
      return kFailed;
    }
    m.dram_base += phys / b.unit;  // buffers are page aligned, so divisible by every element size
  }

  VTADeviceHandle dev = shim_device();
  if (dev == nullptr) return kFailed;
  const auto start = std::chrono::steady_clock::now();
  const int rc = VTADeviceRun(dev, VTAMemGetPhyAddr(stream.get()), insn_count, 0);
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
  return rc == VTA_RUN_OK ? uint64_t(ns.count()) : kFailed;
}
