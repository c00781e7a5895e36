// VTA as a SystemC/TLM-2.0 component: the tsim's Verilated model and per-cycle parts (core.h), stepped
// once per rising edge of the platform's clock; the AXI4 memory port answered by TLM transactions on
// `mem` (AxiMemoryPort over a MemoryTarget that calls b_transport), the AXI4-Lite port driven by the
// transactions arriving on `ctrl` (the tsim's HostPort).

// The Verilated model's headers first: they must not see SystemC's (this model is not Verilator's
// SystemC output; its time is the cycle count).
#include "axi_dram.h"
#include "core.h"
#include "host_port.h"
#include "wave.h"
// (then the component's)
#include <cmath>
#include <cstring>

#include "vta/driver/build_config.h"
#include "vta/sc/accelerator.h"

namespace vta::sc {

using sc_core::sc_time;

// One cycle of the build configuration's clock (HW_FREQ).
sc_time clock_period() { return sc_time(double(build_config().clock_period_ps()), sc_core::SC_PS); }

namespace {

constexpr uint64_t kHostTimeout = 1000;  // cycles an AXI4-Lite transaction may take (as the tsim's)

// Cycles of a delay, rounded up.
uint64_t cycles_of(const sc_time& delay) {
  const double c = delay / clock_period();
  return c <= 0 ? 0 : uint64_t(std::ceil(c - 1e-9));
}

// Device memory over the initiator socket: one blocking transaction per burst.
class TlmTarget final : public tsim::MemoryTarget {
 public:
  explicit TlmTarget(tlm_utils::simple_initiator_socket<Accelerator>& socket) : socket_(socket) {}

  Read read(uint64_t addr, size_t bytes, uint64_t cycle, std::vector<uint8_t>& scratch) override {
    scratch.assign(bytes, 0);
    const auto [ok, latency] = transport(tlm::TLM_READ_COMMAND, addr, scratch.data(), bytes, nullptr);
    return {ok ? scratch.data() : nullptr, cycle + latency};
  }
  uint8_t* write_buffer(uint64_t, size_t bytes, std::vector<uint8_t>& scratch) override {
    scratch.assign(bytes, 0);
    return scratch.data();
  }
  Write write_done(uint64_t addr, const uint8_t* data, const std::vector<uint8_t>& enables, uint64_t cycle) override {
    const auto [ok, latency] = transport(tlm::TLM_WRITE_COMMAND, addr, const_cast<uint8_t*>(data), enables.size(),
                                         const_cast<uint8_t*>(enables.data()));
    return {ok, cycle + latency};
  }

 private:
  // AXI responses: TLM_OK_RESPONSE is OKAY; anything else (an address error, a generic error, a
  // response the target left incomplete) is SLVERR, which the accelerator reports as a bus error.
  std::pair<bool, uint64_t> transport(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, size_t bytes,
                                      uint8_t* enables) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(data);
    t.set_data_length(unsigned(bytes));
    t.set_streaming_width(unsigned(bytes));
    t.set_byte_enable_ptr(enables);
    t.set_byte_enable_length(enables != nullptr ? unsigned(bytes) : 0);
    t.set_dmi_allowed(false);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = sc_core::SC_ZERO_TIME;
    socket_->b_transport(t, delay);
    return {t.get_response_status() == tlm::TLM_OK_RESPONSE, cycles_of(delay)};
  }
  tlm_utils::simple_initiator_socket<Accelerator>& socket_;
};

}  // namespace

struct Accelerator::Impl {
  Impl(Accelerator& self, const AcceleratorOptions& o)
      : target(self.mem), port(target, limits(o), unsigned(build_config().bus_width() / 8)) {
    if (o.wave) {
      wave = std::make_unique<tsim::WaveTracer>(core.top(), *o.wave, build_config());
      core.extensions.push_back(wave.get());
    }
    core.extensions.push_back(&port);
    core.extensions.push_back(&host);
  }
  ~Impl() { wave.reset(); }
  static tsim::DramTiming limits(const AcceleratorOptions& o) {
    tsim::DramTiming t;
    t.max_reads = o.max_reads;
    t.max_writes = o.max_writes;
    return t;
  }

  tsim::Core core;
  TlmTarget target;
  tsim::AxiMemoryPort port;
  tsim::HostPort host;
  std::unique_ptr<tsim::WaveTracer> wave;
  bool in_reset = false;
  bool host_busy = false;
  sc_core::sc_event host_done;
};

Accelerator::Accelerator(const sc_core::sc_module_name& name, const AcceleratorOptions& options)
    : sc_module(name),
      clk("clk"),
      rst_n("rst_n"),
      irq("irq"),
      ctrl("ctrl"),
      mem("mem"),
      impl_(std::make_unique<Impl>(*this, options)) {
  if (options.max_reads == 0 || options.max_writes == 0) {
    throw std::invalid_argument("vta::sc::Accelerator: max_reads and max_writes must be at least 1");
  }
  ctrl.register_b_transport(this, &Accelerator::ctrl_transport);
  SC_THREAD(clock_thread);
}

Accelerator::~Accelerator() = default;

uint64_t Accelerator::cycle() const { return impl_->core.cycle; }

std::string Accelerator::close_wave() {
  if (!impl_->wave) return {};
  impl_->wave->close();
  return impl_->wave->path();
}

tsim::AssertionLog& Accelerator::assertion_log() { return impl_->core.asserts; }

void Accelerator::clock_thread() {
  Impl& m = *impl_;
  Vvta_top& top = m.core.top();
  for (;;) {
    wait(clk.posedge_event());
    const bool reset = !rst_n.read();
    if (reset && !m.in_reset) {
      // the parts forget what was in flight, as in the tsim's reset
      for (tsim::Extension* e : m.core.extensions) e->reset(top, m.core.cycle);
      m.host_busy = false;
    }
    m.in_reset = reset;
    top.rst_ni = reset ? 0 : 1;
    m.core.step();
    irq.write(top.irq_o != 0);
    if (m.host_busy && m.host.idle()) m.host_done.notify(sc_core::SC_ZERO_TIME);
  }
}

void Accelerator::ctrl_transport(tlm::tlm_generic_payload& t, sc_time& delay) {
  Impl& m = *impl_;
  const uint64_t addr = t.get_address();
  if (t.get_data_length() != 4 || t.get_streaming_width() < 4) {
    t.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);  // one 32-bit register per access
    return;
  }
  if (addr % 4 != 0 || addr >= 4096) {
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (t.get_byte_enable_ptr() != nullptr) {
    const uint8_t* be = t.get_byte_enable_ptr();
    for (unsigned i = 0; i < 4; ++i) {
      if (be[i % t.get_byte_enable_length()] != 0xff) {
        t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);  // registers are written whole
        return;
      }
    }
  }
  wait(delay);  // the initiator's time first, then the bus handshake in clock cycles
  delay = sc_core::SC_ZERO_TIME;
  while (m.host_busy) wait(m.host_done);
  m.host_busy = true;
  uint32_t value = 0;
  if (t.is_write()) {
    std::memcpy(&value, t.get_data_ptr(), 4);
    m.host.start_write(m.core.top(), uint32_t(addr), value);
  } else {
    m.host.start_read(m.core.top(), uint32_t(addr));
  }
  wait(clock_period() * double(kHostTimeout), m.host_done);
  if (!m.host.idle()) {  // not answered (the accelerator is held in reset, say)
    m.host.reset(m.core.top(), m.core.cycle);
    m.host_busy = false;
    m.host_done.notify(sc_core::SC_ZERO_TIME);
    t.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  m.host_busy = false;
  m.host_done.notify(sc_core::SC_ZERO_TIME);  // the next access waiting, if any
  if (t.is_read()) {
    value = m.host.data();
    std::memcpy(t.get_data_ptr(), &value, 4);
  }
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace vta::sc
