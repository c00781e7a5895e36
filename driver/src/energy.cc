// Energy from a run's statistics and a technology table (vta/driver/energy.h, docs/ENERGY.md).

#include "vta/driver/energy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>

#include "vta/driver/file.h"
#include "vta/driver/format.h"
#include "vta/energy_45nm.h"

namespace vta {

double EnergyTable::sram_pj_per_byte(double bytes) const {
  const auto& p = sram_pj_per_64bit;
  if (p.size() == 1) return p[0].second / 8;
  size_t i = 1;  // the segment [i - 1, i] that holds bytes, or the nearest one
  while (i + 1 < p.size() && bytes > p[i].first) ++i;
  const double x0 = std::log(p[i - 1].first), x1 = std::log(p[i].first);
  const double y0 = std::log(p[i - 1].second), y1 = std::log(p[i].second);
  const double y = y0 + (std::log(bytes) - x0) * (y1 - y0) / (x1 - x0);
  return std::exp(y) / 8;
}

namespace {

// The largest energy a table may give one event, in pJ: a microjoule, far above any process node's
// (45 nm's DRAM access is 1.3 nJ per 64 bits). It keeps every estimate finite: 2^64 events of it are
// under 2e25 pJ.
constexpr double kMaxEventPj = 1e6;

}  // namespace

EnergyTable EnergyTable::from_json_text(const std::string& text, const std::string& what) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // (a syntax error, or a number past a double: 1e309)
    throw EnergyTableError(what + ": not JSON: " + e.what());
  }
  if (!j.is_object()) throw EnergyTableError(what + ": not a JSON object");
  auto number = [&](const char* key) {
    if (!j.contains(key) || !j[key].is_number()) {
      throw EnergyTableError(what + ": \"" + key + "\" must be a number of pJ");
    }
    const double v = j[key].get<double>();
    if (!(v >= 0 && v <= kMaxEventPj)) {
      throw EnergyTableError(what + ": \"" + key + "\" = " + j[key].dump() + " must be from 0 to " +
                             format("%g", kMaxEventPj) + " pJ");
    }
    return v;
  };
  EnergyTable t;
  t.name = what;
  if (j.contains("name")) {
    if (!j["name"].is_string()) throw EnergyTableError(what + ": \"name\" must be a string, not " + j["name"].dump());
    t.name = j["name"].get<std::string>();
  }
  if (j.contains("sources")) {
    if (!j["sources"].is_array()) throw EnergyTableError(what + ": \"sources\" must be a list of strings");
    for (const auto& s : j["sources"]) {
      if (!s.is_string()) throw EnergyTableError(what + ": \"sources\" must be a list of strings, not " + s.dump());
      t.sources.push_back(s.get<std::string>());
    }
  }
  t.mac_int8_pj = number("mac_int8_pj");
  if (j.contains("multiply_int8_pj")) {
    t.multiply_int8_pj = number("multiply_int8_pj");
    if (t.multiply_int8_pj > t.mac_int8_pj) {
      throw EnergyTableError(what + ": \"multiply_int8_pj\" = " + format("%g", t.multiply_int8_pj) +
                             " is a part of \"mac_int8_pj\" = " + format("%g", t.mac_int8_pj) +
                             ": it cannot exceed it");
    }
  }
  t.alu_op_pj = number("alu_op_pj");
  t.dram_pj_per_64bit = number("dram_pj_per_64bit");
  t.idle_pj_per_cycle = number("idle_pj_per_cycle");
  const auto& s = j.contains("sram_pj_per_64bit") ? j["sram_pj_per_64bit"] : nlohmann::json();
  if (!s.is_array() || s.empty()) {
    throw EnergyTableError(what + ": \"sram_pj_per_64bit\" must be a list of [buffer bytes, pJ per 64-bit access]");
  }
  for (const auto& point : s) {
    if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !point[1].is_number() ||
        !(point[0].get<double>() >= 1 && point[0].get<double>() <= 0x1p40) ||
        !(point[1].get<double>() > 0 && point[1].get<double>() <= kMaxEventPj)) {
      throw EnergyTableError(what + ": \"sram_pj_per_64bit\": each point is [bytes from 1 to 2^40, pJ > 0 and <= " +
                             format("%g", kMaxEventPj) + "], not " + point.dump());
    }
    t.sram_pj_per_64bit.emplace_back(point[0].get<double>(), point[1].get<double>());
  }
  for (size_t i = 1; i < t.sram_pj_per_64bit.size(); ++i) {
    if (!(t.sram_pj_per_64bit[i].first > t.sram_pj_per_64bit[i - 1].first)) {
      throw EnergyTableError(what + ": \"sram_pj_per_64bit\": the buffer sizes must increase");
    }
  }
  // the points extended beyond the first and the last: every buffer VTA can have (a byte to 2^40) must
  // cost a finite energy no larger than the bound (a steep last segment extrapolates to infinity)
  for (const double bytes : {1.0, 0x1p40}) {
    const double pj = t.sram_pj_per_byte(bytes) * 8;
    if (!(pj <= kMaxEventPj)) {
      throw EnergyTableError(what + ": \"sram_pj_per_64bit\" extends to " + format("%g", pj) + " pJ for a buffer of " +
                             format("%.0f", bytes) + " bytes, more than " + format("%g", kMaxEventPj));
    }
  }
  return t;
}

EnergyTable EnergyTable::from_file(const std::string& path) {
  return from_json_text(read_file_as<EnergyTableError>(path, 1 << 20, "energy table: "), path);
}

const EnergyTable& EnergyTable::default_table() {
  static const EnergyTable t = from_json_text(detail::kEnergy45nmJson, "config/energy/45nm.json (compiled in)");
  return t;
}

const EnergyTable& EnergyTable::from_environment() {
  static const EnergyTable t = [] {
    const char* path = std::getenv("VTA_ENERGY_TABLE");
    return path && *path ? from_file(path) : default_table();
  }();
  return t;
}

double Energy::average_mw(uint64_t cycles, int clock_mhz) const {
  if (cycles == 0 || clock_mhz <= 0) return 0;
  const double seconds = double(cycles) / (double(clock_mhz) * 1e6);
  return total() * 1e-12 / seconds * 1e3;
}

std::array<Energy, kStages> estimate_energy_by_stage(const Stats& s, const Config& c, const EnergyTable& t) {
  const double inp_buffer = double(c.inp_depth()) * c.inp_elem_bytes(),
               wgt_buffer = double(c.wgt_depth()) * c.wgt_elem_bytes(),
               acc_buffer = double(c.acc_depth()) * c.acc_elem_bytes(),
               out_buffer = double(c.out_depth()) * c.out_elem_bytes(),
               uop_buffer = double(c.uop_depth()) * Config::kUopElemBytes;
  const double inp = t.sram_pj_per_byte(inp_buffer), wgt = t.sram_pj_per_byte(wgt_buffer),
               acc = t.sram_pj_per_byte(acc_buffer), out = t.sram_pj_per_byte(out_buffer),
               uop = t.sram_pj_per_byte(uop_buffer);
  const double dram_byte = t.dram_pj_per_64bit / 8;
  const double lanes = double(c.batch()) * c.block_out();
  const auto gemm = double(s.gemm_counter), alu = double(s.alu_counter);
  std::array<Energy, kStages> e{};
  Energy& load = e[size_t(Stage::kLoad) - 1];
  load.sram = double(s.inp_load_nbytes) * inp + double(s.wgt_load_nbytes) * wgt;
  load.dram = double(s.inp_load_nbytes + s.wgt_load_nbytes) * dram_byte;
  Energy& compute = e[size_t(Stage::kCompute) - 1];
  compute.mac = gemm * lanes * c.block_in() * t.mac_pj(c.inp_width(), c.wgt_width());
  compute.alu = alu * lanes * t.alu_op_pj;
  compute.sram = gemm * (c.inp_elem_bytes() * inp + c.wgt_elem_bytes() * wgt + 2.0 * c.acc_elem_bytes() * acc) +
                 alu * 3.0 * c.acc_elem_bytes() * acc + double(s.acc_load_nbytes) * acc +
                 double(s.uop_load_nbytes) * uop;
  compute.dram = double(s.acc_load_dram() + s.uop_load_nbytes) * dram_byte;  // (an ACC_8BIT load's bytes as read)
  Energy& store = e[size_t(Stage::kStore) - 1];
  store.sram = double(s.out_store_nbytes) * out;
  store.dram = double(s.out_store_nbytes) * dram_byte;
  return e;
}

Energy estimate_energy(const Stats& s, const Config& c, const EnergyTable& t) {
  Energy e;
  for (const Energy& stage : estimate_energy_by_stage(s, c, t)) {
    e.mac += stage.mac, e.alu += stage.alu, e.sram += stage.sram, e.dram += stage.dram;
  }
  if (s.cycle_count) e.idle = double(*s.cycle_count) * t.idle_pj_per_cycle;
  return e;
}

std::string energy_line(const Energy& e, const std::optional<uint64_t>& cycles, int clock_mhz,
                        const std::string& table_name) {
  const double uj = 1e-6;
  std::string line = format("energy: %.3f uJ (MAC %.3f, ALU %.3f, SRAM %.3f, DRAM %.3f", e.total() * uj, e.mac * uj,
                            e.alu * uj, e.sram * uj, e.dram * uj);
  if (cycles) {
    line += format(", idle %.3f uJ; %s)", e.idle * uj, table_name.c_str());
  } else {  // (the fsim counts no cycles)
    line += format(" uJ; %s; no cycles: idle not counted)", table_name.c_str());
  }
  if (cycles && *cycles > 0) {
    line += format("; %.1f mW average at %d MHz", e.average_mw(*cycles, clock_mhz), clock_mhz);
  }
  return line;
}

std::string cost_lines(const Stats& s, const Config& config) {
  std::string out;
  if (s.cycle_count) {
    const CycleBounds b = cycle_bounds(s, config);
    out += format("cycles: %llu (compute bound %.0f, memory bound %.0f",
                  static_cast<unsigned long long>(*s.cycle_count), b.compute, b.memory);
    if (b.larger() > 0) out += format(": %+.1f %% over the larger", b.over_percent(*s.cycle_count));
    out += ")\n";
  }
  const EnergyTable& table = EnergyTable::from_environment();
  out += energy_line(estimate_energy(s, config, table), s.cycle_count, config.hw_freq_mhz(), table.name) + "\n";
  return out;
}

}  // namespace vta
