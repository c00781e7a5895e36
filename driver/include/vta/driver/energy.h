#pragma once
/// \file vta/driver/energy.h
/// Energy beside the statistics (docs/ENERGY.md): each counter of a run (Stats) is a number of events,
/// a technology table gives the energy of one event, and a run's energy is their sum by component.
/// The default table is config/energy/45nm.json (Horowitz, ISSCC 2014), compiled in; VTA_ENERGY_TABLE
/// names another file with the same keys.

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "vta/driver/config.h"
#include "vta/driver/device.h"
#include "vta/driver/isa.h"

namespace vta {

/// A table that cannot be read (a missing key, a negative energy, unsorted SRAM sizes); the message
/// names the file and the key.
class EnergyTableError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Energy per event of one process node, in picojoules.
struct EnergyTable {
  std::string name;                  ///< "45nm"
  std::vector<std::string> sources;  ///< where each figure comes from
  double mac_int8_pj = 0;            ///< one int8 x int8 product accumulated into 32 bits
  /// The multiply's part of mac_int8_pj (optional key; 0: the table does not split it, and a product
  /// costs mac_int8_pj at every width). At other element widths it scales with the product of the
  /// operands' widths (mac_pj).
  double multiply_int8_pj = 0;
  double alu_op_pj = 0;                                      ///< one 32-bit ALU operation on one lane
  std::vector<std::pair<double, double>> sram_pj_per_64bit;  ///< (buffer bytes, pJ per 64-bit access), by size
  double dram_pj_per_64bit = 0;
  double idle_pj_per_cycle = 0;  ///< clock and leakage, whatever the accelerator does

  /// pJ per product of `inp_bits` x `wgt_bits` operands accumulated into 32 bits: the accumulation
  /// (mac_int8_pj - multiply_int8_pj) and the multiply scaled by inp_bits x wgt_bits / 64 (an array
  /// multiplier's partial-product bits: 4 x 8 bits half of 8 x 8, 4 x 4 a quarter).
  double mac_pj(int inp_bits, int wgt_bits) const {
    return mac_int8_pj - multiply_int8_pj + multiply_int8_pj * double(inp_bits) * double(wgt_bits) / 64.0;
  }

  /// pJ per byte read or written in a buffer of `bytes`: the table's points on log-log axes,
  /// interpolated between them and extended by the nearest segment beyond them.
  double sram_pj_per_byte(double bytes) const;

  static EnergyTable from_json_text(const std::string& text, const std::string& what);
  static EnergyTable from_file(const std::string& path);
  /// config/energy/45nm.json, as compiled in.
  static const EnergyTable& default_table();
  /// The table VTA_ENERGY_TABLE names, else the default one (read once per process).
  static const EnergyTable& from_environment();
};

/// A run's energy by component, in picojoules.
struct Energy {
  double mac = 0;   ///< the GEMM's multiply-accumulates
  double alu = 0;   ///< the ALU's operations
  double sram = 0;  ///< the on-chip buffers: the GEMM's and ALU's reads and writes, loads' writes, stores' reads
  double dram = 0;  ///< every byte loaded or stored
  double idle = 0;  ///< cycles x the idle term (0 without a cycle count: the fsim)
  double total() const { return mac + alu + sram + dram + idle; }
  /// Average power in milliwatts over `cycles` at `clock_mhz` (0 when cycles is 0).
  double average_mw(uint64_t cycles, int clock_mhz) const;
};

/// The energy of a run with `stats` on an accelerator of `config`: per GEMM micro-op BATCH x
/// BLOCK_IN x BLOCK_OUT products (mac_pj at the configuration's input and weight widths), the input vector, the weight
/// block and the accumulator (read and written) in their buffers; per ALU micro-op BATCH x BLOCK_OUT operations, two
/// accumulator reads and a write; each byte loaded: DRAM and its buffer's write; each byte stored: the output buffer's
/// read and DRAM; the idle term per cycle.
Energy estimate_energy(const Stats& stats, const Config& config, const EnergyTable& table);

/// The energy of the events each stage's instructions cause: load, the input and weight bytes through
/// DRAM into their buffers; compute, the multiply-accumulates, the ALU's operations, their buffer
/// accesses, and the accumulator and micro-op bytes it loads; store, the output buffer's reads and their
/// bytes through DRAM. The idle term belongs to no stage (each stage's `idle` is 0); the stages and
/// estimate_energy's idle make up estimate_energy. Indexed as Timeline's lanes: [0] load (LOAD INP, LOAD
/// WGT), [1] compute (GEMM, ALU, LOAD UOP, LOAD ACC), [2] store; Stage s is [int(s) - 1].
std::array<Energy, kStages> estimate_energy_by_stage(const Stats& stats, const Config& config,
                                                     const EnergyTable& table);

/// "energy: 12.3 uJ (MAC 1.2, ALU 0.0, SRAM 4.5, DRAM 6.6, idle 0.1 uJ; 45nm); 45.0 mW average at 100 MHz"
/// (the idle term and the power only with cycles).
std::string energy_line(const Energy& e, const std::optional<uint64_t>& cycles, int clock_mhz,
                        const std::string& table_name);

/// The lines every tool prints under a run's statistics: on a clocked backend its cycles against the
/// bounds ("cycles: 483434 (compute bound 460992, memory bound 168207: +4.9 % over the larger)"), then
/// its energy by the table VTA_ENERGY_TABLE names (else 45 nm). Each line ends with a newline.
std::string cost_lines(const Stats& stats, const Config& config);

}  // namespace vta
