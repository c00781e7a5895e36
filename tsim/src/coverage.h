#pragma once
// RTL coverage of a tsim built with VTA_TSIM_COVERAGE (Verilator --coverage: line, toggle and the
// RTL's cover properties; docs/COVERAGE.md). Each model's counters are added to this process's totals
// when the model is destroyed; the totals are written once, at exit, to
// $VTA_COVERAGE_DIR/<host>-<pid>.dat in Verilator's coverage format (verilator_coverage merges such
// files). Without VTA_COVERAGE_DIR, or in a build without coverage, nothing is collected.

#include <verilated.h>

namespace vta::tsim {

/// Adds the counts of `ctx`'s coverage points to the process's totals (before its model is freed).
void collect_coverage(VerilatedContext& ctx);

}  // namespace vta::tsim
