#pragma once
// Drives a Verilated model: one VerilatedContext per model, clock and reset helpers. The models are
// built with the RTL's assertions: one that fails during a test fails the test naming it, unless the
// test takes the failures (take_assertion_failures) to check them.

#include <gtest/gtest.h>
#include <verilated.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "vta/isa.h"
#include "vta/rtl_assert.h"

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
  std::vector<rtl::AssertionFailure> take_assertion_failures() {
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
  rtl::AssertionLog asserts_;
  rtl::AssertionLog::Scope scope_{asserts_};
};

/// Bits [lsb, lsb + width) of a Verilator wide value (array of 32-bit words).
template <class Wide>
uint64_t bits(const Wide& w, int lsb, int width) {
  uint64_t v = 0;
  for (int i = 0; i < width; ++i) {
    const int b = lsb + i;
    v |= uint64_t((w[b / 32] >> (b % 32)) & 1u) << i;
  }
  return v;
}

/// A 128-bit instruction to / from a Verilator wide port (four 32-bit words, low word first).
template <class Wide>
void put_insn(Wide& w, RawInsn r) {
  w[0] = uint32_t(r.lo), w[1] = uint32_t(r.lo >> 32), w[2] = uint32_t(r.hi), w[3] = uint32_t(r.hi >> 32);
}
template <class Wide>
RawInsn get_insn(const Wide& w) {
  return {uint64_t(w[0]) | uint64_t(w[1]) << 32, uint64_t(w[2]) | uint64_t(w[3]) << 32};
}

/// Sets bits [lsb, lsb + width) of a Verilator wide value.
template <class Wide>
void set_bits(Wide& w, int lsb, int width, uint64_t v) {
  for (int i = 0; i < width; ++i) {
    const int b = lsb + i;
    const uint32_t bit = uint32_t((v >> i) & 1u) << (b % 32);
    w[b / 32] = (w[b / 32] & ~(uint32_t{1} << (b % 32))) | bit;
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
