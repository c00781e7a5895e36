#pragma once
// Drives a Verilated model: one VerilatedContext per model, clock and reset helpers. The models are
// built with the RTL's assertions: one that fails during a test fails the test naming it, unless the
// test takes the failures (take_assertion_failures) to check them.

#include <gtest/gtest.h>
#include <verilated.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "vta/driver/isa.h"
#include "vta/tsim/rtl_assert.h"

namespace vta::test {

template <class Model>
class Harness {
 public:
  // (a model with scopes registers them with the thread's current context: make it the model's own)
  Harness()
      : ctx_(std::make_unique<VerilatedContext>()),
        m_((Verilated::threadContextp(ctx_.get()), std::make_unique<Model>(ctx_.get()))) {}
  ~Harness() {
    Verilated::threadContextp(ctx_.get());
    m_->final();
    m_.reset();
    for (const auto& f : asserts_.failures())
      ADD_FAILURE() << "RTL assertion " << f.name << " failed: " << f.to_string();
  }
  /// The assertions that failed so far (and forgets them).
  std::vector<tsim::AssertionFailure> take_assertion_failures() {
    auto f = asserts_.failures();
    asserts_.clear();
    return f;
  }
  Model* operator->() { return m_.get(); }
  Model& model() { return *m_; }

  /// Settles combinational logic for the current inputs.
  void eval() { m_->eval(); }
  /// One rising edge: the registers take the values computed from the current inputs.
  void tick() {
    m_->clk_i = 0;
    m_->eval();
    m_->clk_i = 1;
    m_->eval();
    ctx_->timeInc(1);
  }
  /// Asserts the active-low reset for one cycle.
  void reset() {
    m_->clk_i = 0;
    m_->rst_ni = 1;
    m_->eval();
    m_->rst_ni = 0;
    m_->eval();
    tick();
    m_->rst_ni = 1;
    m_->eval();
  }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> m_;
  tsim::AssertionLog asserts_;
  tsim::AssertionLog::Scope scope_{asserts_};
};

/// A 128-bit instruction to / from a Verilator wide port (four 32-bit words, low word first).
template <class Wide>
void put_insn(Wide& w, RawInsn r) {
  w[0] = uint32_t(r.lo), w[1] = uint32_t(r.lo >> 32), w[2] = uint32_t(r.hi), w[3] = uint32_t(r.hi >> 32);
}
template <class Wide>
RawInsn get_insn(const Wide& w) {
  return {uint64_t(w[0]) | uint64_t(w[1]) << 32, uint64_t(w[2]) | uint64_t(w[3]) << 32};
}

/// Bits [lsb, lsb + width) (width <= 64) of a Verilator port: an integer up to 64 bits, else a VlWide
/// (32-bit words, least significant first). A packed-struct port is one such value, its last member
/// at bit 0.
template <class Port>
uint64_t get_bits(const Port& port, int lsb, int width) {
  if constexpr (std::is_integral_v<Port>) {
    const uint64_t v = uint64_t(port) >> lsb;
    return width >= 64 ? v : v & ((uint64_t(1) << width) - 1);
  } else {
    uint64_t v = 0;
    for (int i = 0; i < width; ++i) {
      const int b = lsb + i;
      v |= uint64_t((port[b / 32] >> (b % 32)) & 1u) << i;
    }
    return v;
  }
}

template <class Port>
void set_bits(Port& port, int lsb, int width, uint64_t v) {
  if constexpr (std::is_integral_v<Port>) {
    const uint64_t mask = (width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1) << lsb;
    port = static_cast<Port>((uint64_t(port) & ~mask) | ((v << lsb) & mask));
  } else {
    for (int i = 0; i < width; ++i) {
      const int b = lsb + i;
      const uint32_t bit = uint32_t((v >> i) & 1u) << (b % 32);
      port[b / 32] = (port[b / 32] & ~(uint32_t{1} << (b % 32))) | bit;
    }
  }
}

/// Positions of the fields of a packed struct declared MSB first (as in vta_pkg.sv).
inline std::vector<int> packed_lsbs(const std::vector<int>& widths_msb_first) {
  std::vector<int> lsb(widths_msb_first.size());
  int pos = 0;
  for (size_t i = widths_msb_first.size(); i-- > 0;) {
    lsb[i] = pos;
    pos += widths_msb_first[i];
  }
  return lsb;
}

/// Field widths of vta_pkg::loop_insn_t for a configuration, MSB first.
template <class Config>
std::vector<int> loop_insn_widths(const Config& c) {
  const int la = c.log_acc_depth(), lw = c.log_wgt_depth(), lu = c.log_uop_depth();
  const int src = std::max(la, c.log_inp_depth());
  return {1, lu, lu + 1, 14, 14, la, la, src, src, lw, lw, 3, 1, 16};
}

}  // namespace vta::test
