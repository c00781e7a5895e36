#pragma once
// The simulation controller's per-cycle parts, in the way of Ibex's simulation controller: each
// extension sees the model at the two points of every clock cycle. Simulator::Impl::step() runs the
// extensions in order: the waveform writer, the DRAM model on the AXI4 port, the host port on the
// AXI4-Lite port (and later monitors); reset() tells each that the design was reset.

#include <cstdint>

class Vvta_top;

namespace vta::tsim {

class Extension {
 public:
  virtual ~Extension() = default;
  /// The model settled with the clock low: this cycle's handshakes, before the rising edge.
  virtual void before_edge(const Vvta_top& top, uint64_t cycle) = 0;
  /// Right after the rising edge of `cycle` (the model evaluated): the inputs of the next cycle.
  virtual void after_edge(Vvta_top& top, uint64_t cycle) = 0;
  /// The design is being reset: forget transactions in flight, drive idle inputs.
  virtual void reset(Vvta_top& top, uint64_t cycle) = 0;
  /// Whether before_edge needs the model evaluated with the clock low, after the inputs of the cycle
  /// were driven: it reads an output that follows an input combinationally (the AXI4-Lite port's
  /// write ready while a register access is in flight) or internal signals at the falling edge (a
  /// waveform). When no extension does, a cycle is one evaluation of the model (Core::step).
  virtual bool needs_falling_edge() const { return true; }
};

}  // namespace vta::tsim
