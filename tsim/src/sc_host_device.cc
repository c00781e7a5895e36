// vta::sc::HostDevice: the tsim's run controller over TLM register transactions, from an SC_THREAD.

#include <algorithm>
#include <stdexcept>

#include "vta/driver/build_config.h"
#include "vta/driver/run_control.h"
#include "vta/sc/host_device.h"
#include "wave.h"

namespace vta::sc {

using sc_core::sc_time;

struct HostDevice::Impl final : RegisterBus {
  Impl(tlm::tlm_fw_transport_if<>& b, const sc_core::sc_signal<bool>& i, sc_core::sc_signal<bool>& r, Accelerator& a,
       uint64_t base_addr, Dram& memory)
      : bus(b), irq(i), rst_n(r), acc(a), base(base_addr), control(*this, memory, build_config(), run_options()) {}

  static RunControlOptions run_options() {
    RunControlOptions o;
    o.name = "systemc";
    return o;
  }

  void write_reg(uint32_t offset, uint32_t value) override { access(tlm::TLM_WRITE_COMMAND, offset, value); }
  uint32_t read_reg(uint32_t offset) override { return access(tlm::TLM_READ_COMMAND, offset, 0); }
  bool wait_irq(uint64_t cycles) override {
    const uint64_t start = acc.cycle();
    while (!irq.read()) {
      if (acc.cycle() - start >= cycles) return false;
      // in slices, so that an assertion ends the wait soon after it fails
      const uint64_t slice = std::min<uint64_t>(cycles - (acc.cycle() - start), 4096);
      sc_core::wait(clock_period() * double(slice), irq.posedge_event());
      if (!acc.assertion_log().empty()) return false;
    }
    return true;
  }
  uint64_t cycles() const override { return acc.cycle(); }
  void reset_design() override {
    rst_n.write(false);
    sc_core::wait(clock_period() * 2.0);
    rst_n.write(true);
    sc_core::wait(clock_period());
  }
  bool faulted() const override { return !acc.assertion_log().empty(); }
  std::string take_fault() override { return acc.assertion_log().take_report(acc.cycle()); }
  void on_program(const Isa& isa, const uint8_t* stream, uint32_t count) override {
    tsim::note_program(isa, stream, count);
  }
  // an interrupted run leaves a complete waveform behind, as on the tsim
  std::string close_waveform() override { return acc.close_wave(); }

  uint32_t access(tlm::tlm_command cmd, uint32_t offset, uint32_t value) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(base + offset);
    t.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
    t.set_data_length(4);
    t.set_streaming_width(4);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = sc_core::SC_ZERO_TIME;
    bus.b_transport(t, delay);
    if (delay != sc_core::SC_ZERO_TIME) sc_core::wait(delay);
    if (!t.is_response_ok()) {
      throw std::runtime_error("vta systemc: the control register at " + std::to_string(base + offset) + " answered " +
                               t.get_response_string());
    }
    return value;
  }

  tlm::tlm_fw_transport_if<>& bus;
  const sc_core::sc_signal<bool>& irq;
  sc_core::sc_signal<bool>& rst_n;
  Accelerator& acc;
  uint64_t base;
  RunControl control;
};

HostDevice::HostDevice(tlm::tlm_fw_transport_if<>& bus, const sc_core::sc_signal<bool>& irq,
                       sc_core::sc_signal<bool>& rst_n, Accelerator& acc, uint64_t base, Dram& memory)
    : impl_(std::make_unique<Impl>(bus, irq, rst_n, acc, base, memory)) {
  impl_->control.reset();
}
HostDevice::~HostDevice() = default;

RunStatus HostDevice::run(PhysAddr insn_addr, uint32_t count, uint64_t budget) {
  return impl_->control.run(insn_addr, count, budget);
}
const Stats& HostDevice::stats() const { return impl_->control.stats(); }
void HostDevice::clear_stats() { impl_->control.clear_stats(); }
TokenCounts HostDevice::tokens() const { return impl_->control.tokens(); }
const std::string& HostDevice::last_error() const { return impl_->control.last_error(); }
ErrorKind HostDevice::last_error_kind() const { return impl_->control.last_error_kind(); }
const Config& HostDevice::config() const { return build_config(); }
void HostDevice::set_shared(bool shared) { impl_->control.set_shared(shared); }

}  // namespace vta::sc
