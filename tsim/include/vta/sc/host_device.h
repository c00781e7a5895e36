#pragma once
/// \file vta/sc/host_device.h
/// A vta::Device that drives a vta::sc::Accelerator from a thread of the virtual platform: a run
/// writes the registers through an initiator socket that reaches the accelerator's `ctrl` (at `base`
/// on that bus), waits for `irq` and reads the statistics; a failed run resets the accelerator through
/// `rst_n`. Verdicts, diagnostics ("vta systemc: error [deadlock]: ...") and statistics are the tsim's
/// (the same run controller). Every call waits in simulated time: make them from an SC_THREAD. The VTA
/// runtime and every driver API program run on it:
///
///   vta::sc::HostDevice dev(socket, irq, rst_n, accelerator, 0xf0000000, Dram::global());
///   vta::runtime::Context ctx(std::make_unique<...>(...), Dram::global());   // (make_host_device)
///   vta::runtime::Context::Scope use(ctx);
///   vta::tutorials::matrix_multiply(0);
///
/// Several host threads, each with its own runtime, can share the simulation: a runtime context keeps
/// the calling SC_THREAD's Scope binding across every call of its device (vta/runtime/context.h), so
/// this device, which only needs the device layer, knows nothing of the runtime.

#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>

#include "vta/driver/device.h"
#include "vta/driver/memory.h"
#include "vta/sc/accelerator.h"

namespace vta::sc {

class HostDevice final : public Device {
 public:
  /// `bus`: the interface of an initiator socket bound (possibly through a router) to `acc.ctrl`;
  /// `base`: where the register window lies on that bus; `memory`: where the programs lie (what
  /// the accelerator's memory reads).
  HostDevice(tlm::tlm_fw_transport_if<>& bus, const sc_core::sc_signal<bool>& irq, sc_core::sc_signal<bool>& rst_n,
             Accelerator& acc, uint64_t base, Dram& memory);
  template <class Socket>
  HostDevice(Socket& socket, const sc_core::sc_signal<bool>& irq, sc_core::sc_signal<bool>& rst_n, Accelerator& acc,
             uint64_t base, Dram& memory)
      : HostDevice(*socket.operator->(), irq, rst_n, acc, base, memory) {}
  ~HostDevice() override;

  RunStatus run(PhysAddr insn_addr, uint32_t count, uint64_t budget) override;
  const Stats& stats() const override;
  void clear_stats() override;
  TokenCounts tokens() const override;
  const std::string& last_error() const override;
  ErrorKind last_error_kind() const override;
  std::string_view target() const override { return "systemc"; }
  const Config& config() const override;

  /// For several devices on one accelerator (the systemc backend): clear its counters before each run.
  void set_shared(bool shared);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vta::sc
