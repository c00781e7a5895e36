#pragma once
// The Verilated accelerator and the per-cycle parts around it (extensions): one clock cycle, a
// reset. The tsim's Simulator clocks it in its own loop; the SystemC component clocks it on the
// edges of an sc_clock. Both therefore run the same model the same way.

#include <verilated.h>

#include <memory>
#include <vector>

#include "Vvta_top.h"
#include "coverage.h"
#include "extension.h"
#include "vta/tsim/rtl_assert.h"

namespace vta::tsim {

class Core {
 public:
  Core()
      : ctx_(std::make_unique<VerilatedContext>()),
        top_((ctx_->traceEverOn(true), Verilated::threadContextp(ctx_.get()),
              std::make_unique<Vvta_top>(ctx_.get(), "TOP"))) {
    // Settle the model once before anything (a waveform's first dump needs an evaluated model).
    top_->clk_i = 0;
    top_->rst_ni = 0;
    top_->eval();
  }
  ~Core() {
    // A model with scopes (assertions) registers them with the thread's current context when built
    // and removes them from it when destroyed: make that context this model's own both times.
    Verilated::threadContextp(ctx_.get());
    top_->final();
    collect_coverage(*ctx_);
    top_.reset();
  }
  Core(const Core&) = delete;
  Core& operator=(const Core&) = delete;

  Vvta_top& top() { return *top_; }
  /// The per-cycle parts, in the order they see each cycle.
  std::vector<Extension*> extensions;
  uint64_t cycle = 0;
  tsim::AssertionLog asserts;  ///< the RTL's assertions that failed since the last check

  /// One clock cycle: settle the inputs set after the previous edge, let the extensions see this
  /// cycle's handshakes, then the rising edge, then the extensions drive the next cycle's inputs.
  void step() {
    const tsim::AssertionLog::Scope scope(asserts);
    top_->clk_i = 0;
    top_->eval();
    for (Extension* e : extensions) e->before_edge(*top_, cycle);
    top_->clk_i = 1;
    top_->eval();
    for (Extension* e : extensions) e->after_edge(*top_, cycle);
    ++cycle;
  }
  /// Reset held for two cycles, then one cycle out of reset.
  void reset() {
    top_->rst_ni = 0;
    for (Extension* e : extensions) e->reset(*top_, cycle);
    step();
    step();
    top_->rst_ni = 1;
    step();
  }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vvta_top> top_;
};

}  // namespace vta::tsim
