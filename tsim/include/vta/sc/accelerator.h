#pragma once
/// \file vta/sc/accelerator.h
/// VTA as a SystemC/TLM-2.0 component for virtual platforms (docs/SYSTEMC.md): the same Verilated RTL
/// as the tsim, clocked by the edges of the platform's clock, with
///   - `ctrl`, a TLM-2.0 target socket: the AXI4-Lite control registers (docs/HARDWARE.md's map, a
///     4 KiB window, 32-bit accesses);
///   - `mem`, a TLM-2.0 initiator socket: device memory, one blocking transaction per AXI burst (reads
///     when the address is accepted, writes when the last beat arrives, with byte enables from the
///     strobes); the delay the target annotates is the burst's latency in clock cycles, rounded up;
///   - `irq`, high once a run has finished, and `rst_n`, a synchronous active-low reset.
/// The memory target should annotate its latency rather than wait in b_transport: the accelerator's
/// clock does not advance while a transaction waits.
///
///   vta::sc::Accelerator vta("vta");
///   vta.clk(clock); vta.rst_n(reset_n); vta.irq(irq);
///   vta.mem.bind(bus.target_socket);  host.socket.bind(vta.ctrl);

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "vta/tsim/rtl_assert.h"
#include "vta/tsim/simulator.h"

namespace vta::sc {

/// The accelerator's clock period: the build configuration's HW_FREQ (10 ns at the default 100 MHz).
sc_core::sc_time clock_period();

struct AcceleratorOptions {
  uint32_t max_reads = 32;   ///< read bursts in flight toward memory before ARREADY drops
  uint32_t max_writes = 16;  ///< write bursts in flight before AWREADY drops
  /// A waveform of cycles [start, stop) with its GTKWave save file, as the tsim's (VTA_WAVE); it is
  /// complete once close_wave() is called or the component is destroyed.
  std::optional<tsim::WaveOptions> wave;
};

class Accelerator : public sc_core::sc_module {
 public:
  sc_core::sc_in<bool> clk;
  sc_core::sc_in<bool> rst_n;
  sc_core::sc_out<bool> irq;
  tlm_utils::simple_target_socket<Accelerator> ctrl;
  tlm_utils::simple_initiator_socket<Accelerator> mem;

  SC_HAS_PROCESS(Accelerator);
  explicit Accelerator(const sc_core::sc_module_name& name, const AcceleratorOptions& options = {});
  ~Accelerator() override;
  Accelerator(const Accelerator&) = delete;
  Accelerator& operator=(const Accelerator&) = delete;

  /// Clock cycles so far.
  uint64_t cycle() const;
  /// Finishes the waveform (later cycles are not dumped); returns its path, "" when there is none.
  std::string close_wave();
  /// The RTL assertions that failed since the log was last cleared; empty in a healthy run.
  tsim::AssertionLog& assertion_log();

 private:
  void clock_thread();
  void ctrl_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vta::sc
