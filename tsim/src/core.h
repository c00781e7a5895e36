#pragma once
// The Verilated accelerator and the per-cycle parts around it (extensions): one clock cycle, a
// reset. The tsim's Simulator clocks it in its own loop; the SystemC component clocks it on the
// edges of an sc_clock. Both therefore run the same model the same way.

#include <verilated.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "Vvta_top.h"
// the model's root, for the clock's previous value (generated code, not pedantic)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include "Vvta_top___024root.h"
#pragma GCC diagnostic pop
#include "coverage.h"
#include "extension.h"
#include "vta/tsim/rtl_assert.h"

namespace vta::tsim {

// A rising edge without a falling one: Verilator (5.x) finds an edge by comparing the clock with its
// value at the previous evaluation, kept in the model's root; writing a low there makes the next
// evaluation with the clock high an edge. Where a Verilator names it otherwise, every cycle takes
// the falling edge's evaluation too (kCanForceEdge is false).
template <class Root>
constexpr bool can_force_edge() {
  return requires(Root & r) { r.__Vtrigrprev__TOP__clk_i = 0; };
}
template <class Root>
void force_rising_edge(Root& root) {
  if constexpr (can_force_edge<Root>()) root.__Vtrigrprev__TOP__clk_i = 0;
}
inline constexpr bool kCanForceEdge = can_force_edge<Vvta_top___024root>();

// Verilator keeps a "last context" pointer that every thread setting its context writes: models are
// built and destroyed one at a time in the process (simulators on several threads: an executor's
// steps at once), each with a context of its own.
inline std::mutex& verilator_globals() {
  static std::mutex m;
  return m;
}

class Core {
 public:
  Core() : Core(std::unique_lock(verilator_globals())) {}
  explicit Core(std::unique_lock<std::mutex>)
      : ctx_(std::make_unique<VerilatedContext>()),
        // (the model is Verilated single-threaded: a context's default, one thread per core, would
        // start that many idle worker threads for each simulator)
        top_((ctx_->threads(1), ctx_->traceEverOn(true), Verilated::threadContextp(ctx_.get()),
              std::make_unique<Vvta_top>(ctx_.get(), "TOP"))) {
    // Settle the model once before anything (a waveform's first dump needs an evaluated model).
    top_->clk_i = 0;
    top_->rst_ni = 0;
    top_->eval();
  }
  ~Core() {
    // A model with scopes (assertions) registers them with the thread's current context when built
    // and removes them from it when destroyed: make that context this model's own both times.
    const std::lock_guard lock(verilator_globals());
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
  ///
  /// The settling is an evaluation of the whole model with the clock low. When no extension needs
  /// it (Extension::needs_falling_edge), the cycle is the rising edge alone: the outputs the
  /// extensions read are then those of the last edge, which no input has changed, and the edge's
  /// evaluation settles the new inputs before any register takes them (Verilator evaluates the logic
  /// that depends on inputs first). That halves the evaluations of a running accelerator.
  void step() {
    const tsim::AssertionLog::Scope scope(asserts);
    edge(needs_settle());
  }
  /// Clocks until `done()` holds (checked before each cycle), an RTL assertion fails or `cycles` have
  /// passed; true when done() held. The same cycles as step() in a loop, with the assertion scope and
  /// the settling choice made once: an extension's need can only start with a call from outside the
  /// loop (the host port's, with a transaction), and settling where it is no longer needed changes
  /// nothing but the time.
  template <class Done>
  bool step_until(Done done, uint64_t cycles) {
    const tsim::AssertionLog::Scope scope(asserts);
    const bool settle = needs_settle();
    for (uint64_t i = 0; !done(); ++i) {
      if (i >= cycles) return false;
      edge(settle);
      if (!asserts.empty()) return false;
    }
    return true;
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
  bool needs_settle() const {
    return !kCanForceEdge || std::any_of(extensions.begin(), extensions.end(),
                                         [](const Extension* e) { return e->needs_falling_edge(); });
  }
  void edge(bool settle) {
    if (settle) {
      top_->clk_i = 0;
      top_->eval();
    } else {
      force_rising_edge(*top_->rootp);
    }
    for (Extension* e : extensions) e->before_edge(*top_, cycle);
    top_->clk_i = 1;
    top_->eval();
    for (Extension* e : extensions) e->after_edge(*top_, cycle);
    ++cycle;
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vvta_top> top_;
};

}  // namespace vta::tsim
