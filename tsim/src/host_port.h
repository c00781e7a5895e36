#pragma once
// The host port, an extension of the simulation controller: one AXI4-Lite register transaction at a
// time on vta_top's control port. The controller starts a write or a read and clocks the model until
// the port is idle again (Simulator::write_reg / read_reg bound the wait).

#include <cstdint>

#include "Vvta_top.h"
#include "extension.h"

namespace vta::tsim {

class HostPort final : public Extension {
 public:
  /// Offers a write of `value` to register `offset` (address and data together).
  void start_write(Vvta_top& top, uint32_t offset, uint32_t value) {
    state_ = State::kWrite, accepted_ = false;
    top.s_axil_awvalid_i = 1, top.s_axil_awaddr_i = offset & 0xfff;
    top.s_axil_wvalid_i = 1, top.s_axil_wdata_i = value, top.s_axil_wstrb_i = 0xf;
    top.s_axil_bready_i = 1;
  }
  /// Offers a read of register `offset`; data() holds the value once idle.
  void start_read(Vvta_top& top, uint32_t offset) {
    state_ = State::kRead, accepted_ = false;
    top.s_axil_arvalid_i = 1, top.s_axil_araddr_i = offset & 0xfff;
    top.s_axil_rready_i = 1;
  }
  bool idle() const { return state_ == State::kIdle; }
  uint32_t data() const { return data_; }

  void before_edge(const Vvta_top& top, uint64_t) override {
    addr_taken_ = state_ == State::kWrite ? top.s_axil_awready_o : top.s_axil_arready_o;
    response_ = state_ == State::kWrite ? top.s_axil_bvalid_o : top.s_axil_rvalid_o;
    if (state_ == State::kRead && response_) data_ = top.s_axil_rdata_o;
  }
  void after_edge(Vvta_top& top, uint64_t) override {
    if (state_ == State::kIdle) return;
    if (addr_taken_ && !accepted_) {  // the request is taken: withdraw it
      accepted_ = true;
      if (state_ == State::kWrite) {
        top.s_axil_awvalid_i = 0, top.s_axil_wvalid_i = 0;
      } else {
        top.s_axil_arvalid_i = 0;
        return;  // the read data comes in a later cycle
      }
    }
    if (response_ && accepted_) {  // the response is taken
      if (state_ == State::kWrite) {
        top.s_axil_bready_i = 0;
      } else {
        top.s_axil_rready_i = 0;
      }
      state_ = State::kIdle;
    }
  }
  /// The write ready follows the write valid combinationally: only a port at rest reads nothing.
  bool needs_falling_edge() const override { return state_ != State::kIdle; }
  void reset(Vvta_top& top, uint64_t) override {
    state_ = State::kIdle;
    top.s_axil_awvalid_i = 0, top.s_axil_wvalid_i = 0, top.s_axil_bready_i = 0;
    top.s_axil_arvalid_i = 0, top.s_axil_rready_i = 0;
  }

 private:
  enum class State : uint8_t { kIdle, kWrite, kRead };
  State state_ = State::kIdle;
  bool accepted_ = false;    // the address (and data) handshake happened
  bool addr_taken_ = false;  // sampled this cycle: the request handshake
  bool response_ = false;    // sampled this cycle: the response is valid
  uint32_t data_ = 0;
};

}  // namespace vta::tsim
