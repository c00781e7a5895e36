// libFuzzer harness: an energy table read from JSON text (VTA_ENERGY_TABLE); a table or EnergyTableError,
// never a crash, and every estimate and line from an accepted table finite and whole.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "vta/driver/build_config.h"
#include "vta/driver/energy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vta::EnergyTable t;
  try {
    t = vta::EnergyTable::from_json_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
  } catch (const vta::EnergyTableError&) {
    return 0;
  }
  vta::Stats s;  // every counter at its largest: the estimate must stay finite
  s.gemm_counter = s.alu_counter = s.inp_load_nbytes = s.wgt_load_nbytes = s.acc_load_nbytes = s.uop_load_nbytes =
      s.out_store_nbytes = UINT64_MAX >> 8;
  s.cycle_count = UINT64_MAX >> 8;
  const vta::Energy e = vta::estimate_energy(s, vta::build_config(), t);
  if (!std::isfinite(e.total())) std::abort();
  // the numbers are checked in a line whose name is ours: a table may well be called "infinite banana"
  const std::string line = vta::energy_line(e, s.cycle_count, 100, "T");
  if (line.find("nan") != std::string::npos || line.find("inf") != std::string::npos) std::abort();
  (void)vta::energy_line(e, s.cycle_count, 100, t.name);  // and any name is printed without harm
  return 0;
}
