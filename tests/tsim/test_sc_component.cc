// The SystemC component on a platform of its own (this executable does not link the systemc backend):
// the register socket answers malformed accesses with the TLM error responses docs/SYSTEMC.md lists
// and an access the accelerator cannot answer (held in reset) with a generic error after 1,000
// cycles; a program runs through the registers to its interrupt; a memory error response becomes the
// accelerator's read error. SystemC elaborates once per process, so one test drives one platform.

#include <gtest/gtest.h>

#include <functional>

#include "test_util.h"
#include "vta/driver/build_config.h"
#include "vta/driver/vcr_map.h"
#include "vta/sc/accelerator.h"
#include "vta/sc/memory.h"

// SystemC's library refers to sc_main; this program's main is GoogleTest's.
int sc_main(int, char*[]) { return 1; }

namespace vta::sc {
namespace {

struct Host : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Host> socket;
  sc_core::sc_signal<bool>& rst_n;
  sc_core::sc_signal<bool>& irq;
  std::function<void(Host&)> body;
  bool done = false;

  SC_HAS_PROCESS(Host);
  Host(const sc_core::sc_module_name& name, sc_core::sc_signal<bool>& r, sc_core::sc_signal<bool>& i)
      : sc_module(name), socket("socket"), rst_n(r), irq(i) {
    SC_THREAD(run);
  }
  void run() {
    body(*this);
    done = true;
    sc_core::sc_stop();
  }
  // One register access; returns the response status (and the value read into `value`).
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, uint32_t& value, unsigned length = 4,
                                  uint8_t* enables = nullptr) {
    uint8_t data[8] = {};
    std::memcpy(data, &value, 4);
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(data);
    t.set_data_length(length);
    t.set_streaming_width(length);
    t.set_byte_enable_ptr(enables);
    t.set_byte_enable_length(enables ? length : 0);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(t, delay);
    std::memcpy(&value, data, 4);
    return t.get_response_status();
  }
  uint32_t read(uint32_t offset) {
    uint32_t v = 0;
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, offset, v), tlm::TLM_OK_RESPONSE) << offset;
    return v;
  }
  void write(uint32_t offset, uint32_t v) {
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, offset, v), tlm::TLM_OK_RESPONSE) << offset;
  }
};

TEST(ScComponent, RegistersProgramsAndErrorResponses) {
  const Config& cfg = build_config();
  sc_core::sc_clock clock("clock", clock_period());
  sc_core::sc_signal<bool> rst_n("rst_n", false), irq("irq");
  Accelerator vta("vta");
  Memory memory("memory", Dram::global(), 32, 16, unsigned(cfg.bus_width() / 8));
  Host host("host", rst_n, irq);
  vta.clk(clock);
  vta.rst_n(rst_n);
  vta.irq(irq);
  vta.mem.bind(memory.socket);
  host.socket.bind(vta.ctrl);

  // a program that loads one input tile and finishes
  test::Program ok(cfg);
  test::DevBuf inp(4096);
  ok.load(MemId::kInp, 0, inp.base(16), 1, 4, 4, test::push_next()).finish(test::pop_prev());
  const test::DevBuf ok_insns = ok.to_device();
  // the same with its load outside device memory: the memory answers with an error
  test::Program bad(cfg);
  bad.load(MemId::kInp, 0, 0x7fff0000u / 16, 1, 4, 4, test::push_next()).finish(test::pop_prev());
  const test::DevBuf bad_insns = bad.to_device();

  // starts `p` (at `insns`) through the registers; whether the interrupt came within 100,000 cycles
  auto launch = [](Host& h, const test::Program& p, const test::DevBuf& insns) {
    h.write(vcr::kInsnCount, uint32_t(p.insns().size()));
    h.write(vcr::kInsnAddr, uint32_t(insns.phys()));
    h.write(vcr::kCtrl, vcr::bit("CTRL_LAUNCH"));
    sc_core::wait(clock_period() * 100000.0, h.irq.posedge_event());
    return h.irq.read();
  };
  host.body = [&](Host& h) {
    uint32_t v = 0;
    // held in reset: not answered, a generic error after 1,000 cycles
    const double t0 = sc_core::sc_time_stamp().to_seconds();  // (the stamp itself moves on)
    EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, vcr::kCtrl, v), tlm::TLM_GENERIC_ERROR_RESPONSE);
    EXPECT_GE(sc_core::sc_time_stamp().to_seconds() - t0, (clock_period() * 1000.0).to_seconds());
    h.rst_n.write(true);
    sc_core::wait(clock_period() * 2.0);
    // malformed accesses
    EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, 2, v), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, 4096, v), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(h.access(tlm::TLM_READ_COMMAND, 0, v, 8), tlm::TLM_BURST_ERROR_RESPONSE);
    uint8_t half[4] = {0xff, 0xff, 0, 0};
    EXPECT_EQ(h.access(tlm::TLM_WRITE_COMMAND, vcr::kWatchdog, v, 4, half), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    // a register written and read back
    h.write(vcr::kWatchdog, 5000);
    EXPECT_EQ(h.read(vcr::kWatchdog), 5000u);
    // a program to its interrupt
    ASSERT_TRUE(launch(h, ok, ok_insns)) << "no interrupt";
    EXPECT_TRUE(h.read(vcr::kCtrl) & vcr::bit("CTRL_DONE"));
    EXPECT_EQ(h.read(vcr::kErrorStatus), 0u);
    EXPECT_EQ(h.read(vcr::kStatsBase + 0), 4u * uint32_t(cfg.inp_elem_bytes())) << "inp_load_nbytes";
    // the error response of memory is the accelerator's read error
    h.rst_n.write(false);
    sc_core::wait(clock_period() * 2.0);
    h.rst_n.write(true);
    sc_core::wait(clock_period() * 2.0);
    ASSERT_TRUE(launch(h, bad, bad_insns)) << "no interrupt after the error";
    EXPECT_TRUE(h.read(vcr::kErrorStatus) & vcr::bit("ERR_READ"));
  };
  sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_MS));
  EXPECT_TRUE(host.done) << "the host thread did not finish within 10 ms of simulated time";
  EXPECT_GT(memory.reads(), 0u);
  EXPECT_TRUE(vta.assertion_log().empty());
}

}  // namespace
}  // namespace vta::sc
