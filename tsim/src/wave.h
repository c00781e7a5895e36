#pragma once
// Waveform tracing for the tsim: an FST dump of the Verilated design (VCD by converting the FST with
// GTKWave's fst2vcd when the file name ends in .vcd), limited to a window of cycles and a hierarchy
// depth, on the time axis of the configuration's clock (HW_FREQ), and a GTKWave save file beside it
// that groups the signals a user looks at first, opens on the dumped window and attaches translate
// filter files (<stem>.<kind>.flt) so that instructions read as one-line disassembly and FSM states,
// compute units and AXI read clients as names.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "extension.h"
#include "vta/driver/config.h"
#include "vta/driver/file.h"
#include "vta/driver/isa.h"
#include "vta/driver/path_claim.h"
#include "vta/tsim/simulator.h"

class VerilatedFstC;

namespace vta::tsim {

/// How a signal of the view is shown: hexadecimal, binary, or through one of the translate filters.
enum class WaveFilter { kNone, kInsn, kState, kUnit, kClient };
inline constexpr WaveFilter kWaveFilters[] = {WaveFilter::kInsn, WaveFilter::kState, WaveFilter::kUnit,
                                              WaveFilter::kClient};
/// "insn", "state", "unit", "client": the middle of the filter file's name.
const char* to_string(WaveFilter f);

/// One signal of the save file: full hierarchical name as the dump spells it (with its bit range).
struct WaveSignal {
  std::string group;
  std::string name;
  WaveFilter filter = WaveFilter::kNone;
};

/// The signals of the GTKWave view, grouped per module, for a configuration.
std::vector<WaveSignal> gtkw_signals(const Config& config);

/// What the save file shows: the dump, the time window it opens on (in dump time units) and the filter
/// files (absolute paths; empty = that filter is not attached).
struct GtkwView {
  std::string dump_path;
  uint64_t start_time = 0, end_time = 0;  ///< end_time == start_time: GTKWave's default zoom
  std::string filter_path[5];             ///< indexed by WaveFilter
};
/// The text of a .gtkw save file for that view.
std::string gtkw_text(const Config& config, const GtkwView& view);

/// The fixed translate tables (state, unit, client) as filter-file text; kInsn has no fixed table. States
/// and units carry the RTL's enum names (an FST shows them without the filter).
std::string filter_table(WaveFilter f);

/// Called by every run (RunControl) with its instruction stream: while a waveform is being written in
/// this process, the instructions' values are remembered with their disassembly, and each waveform's
/// instruction filter is written from them when it closes. Costs nothing when no waveform is open.
void note_program(const Isa& isa, const uint8_t* stream, uint32_t count);
/// The instruction filter's text: one line per distinct instruction value noted so far,
/// "<32 hex digits> #<index> <disassembly>".
std::string insn_filter_text();

/// Throws std::invalid_argument naming the problem with waveform settings (VTA_WAVE's name and folder,
/// the window, the depth): the one check of the tsim and the SystemC component, made before a model
/// is built.
void check_wave_options(const WaveOptions& options);

class WaveTracer final : public Extension {
 public:
  /// Opens the dump. `attach` is called with the FST writer to register the model's signals.
  template <class Model>
  WaveTracer(Model& model, const WaveOptions& options, const Config& config)
      : WaveTracer(options, config, model.contextp()->timeprecision()) {
    model.trace(fst_.get(), 99);
    open();
  }
  ~WaveTracer();
  /// Dumps the design's state at half-cycle `time` (2 * cycle + phase) when inside the window.
  void dump(uint64_t cycle, int phase);
  /// Dump time units of one clock period (the configuration's HW_FREQ at the model's time precision).
  uint64_t period() const { return period_; }
  void before_edge(const Vvta_top&, uint64_t cycle) override { dump(cycle, 0); }
  void after_edge(Vvta_top&, uint64_t cycle) override { dump(cycle, 1); }
  void reset(Vvta_top&, uint64_t) override {}
  /// Finishes the file (and the VCD conversion); called by the destructor.
  void close();
  const std::string& path() const { return options_.path; }

 private:
  WaveTracer(const WaveOptions& options, const Config& config, int time_precision);
  void open();
  /// Writes the save file and the filter files for what has been dumped so far.
  void write_view();
  WaveOptions options_;
  Config config_;
  uint64_t period_ = 2;                               ///< dump time units per cycle (even)
  uint64_t first_time_ = UINT64_MAX, last_time_ = 0;  ///< dumped so far
  std::string fst_path_;                      // the file Verilator writes (path itself, or fst_partial_'s for .vcd)
  std::unique_ptr<PartialFile> fst_partial_;  ///< .vcd: the FST before its conversion
  std::unique_ptr<VerilatedFstC> fst_;
  bool closed_ = false;
  PathClaim claim_;  ///< the dump's file name, reserved while it is written
};

}  // namespace vta::tsim
