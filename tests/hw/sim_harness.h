#pragma once
// Drives a Verilated model: one VerilatedContext per model, clock and reset helpers.

#include <verilated.h>

#include <cstdint>
#include <memory>

namespace vta::test {

template <class Model>
class Harness {
 public:
  Harness() : ctx_(std::make_unique<VerilatedContext>()), m_(std::make_unique<Model>(ctx_.get())) {}
  ~Harness() { m_->final(); }
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

}  // namespace vta::test
