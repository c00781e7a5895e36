#pragma once
// Waveform tracing for the tsim: an FST dump of the Verilated design (VCD by converting the FST with
// GTKWave's fst2vcd when the file name ends in .vcd), limited to a window of cycles and a hierarchy
// depth, and a GTKWave save file beside it that groups the signals a user looks at first.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "extension.h"
#include "vta/config.h"
#include "vta/path_claim.h"
#include "vta/tsim.h"

class VerilatedFstC;

namespace vta::tsim {

/// One signal of the save file: full hierarchical name as the dump spells it (with its bit range).
struct WaveSignal {
  std::string group;
  std::string name;
};

/// The signals of the GTKWave view, grouped per module, for a configuration.
std::vector<WaveSignal> gtkw_signals(const Config& config);
/// The text of a .gtkw save file that opens `dump_path` with those signals.
std::string gtkw_text(const Config& config, const std::string& dump_path);

class WaveTracer final : public Extension {
 public:
  /// Opens the dump. `attach` is called with the FST writer to register the model's signals.
  template <class Model>
  WaveTracer(Model& model, const WaveOptions& options, const Config& config) : WaveTracer(options, config) {
    model.trace(fst_.get(), 99);
    open();
  }
  ~WaveTracer();
  /// Dumps the design's state at half-cycle `time` (2 * cycle + phase) when inside the window.
  void dump(uint64_t cycle, int phase);
  void before_edge(const Vvta_top&, uint64_t cycle) override { dump(cycle, 0); }
  void after_edge(Vvta_top&, uint64_t cycle) override { dump(cycle, 1); }
  void reset(Vvta_top&, uint64_t) override {}
  /// Finishes the file (and the VCD conversion); called by the destructor.
  void close();
  const std::string& path() const { return options_.path; }

 private:
  WaveTracer(const WaveOptions& options, const Config& config);
  void open();
  WaveOptions options_;
  std::string fst_path_;  // the file Verilator writes (path itself, or a temporary for .vcd)
  std::unique_ptr<VerilatedFstC> fst_;
  bool closed_ = false;
  PathClaim claim_;  ///< the dump's file name, reserved while it is written
};

}  // namespace vta::tsim
