// tsim (and SystemC platform) benchmarks: simulation speed (simulated cycles per wall-clock second, measured inside the
// simulator's run loop, so the workloads' data preparation and reference checks are not counted) and
// the cycles of both tutorial workloads next to their bounds (compute: one GEMM or ALU micro-op per
// cycle; memory: every byte moved at one bus beat per cycle).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>

#include "vta/driver/build_config.h"
#include "vta/runtime.h"
#include "vta/tsim/simulator.h"
#include "vta/workloads/tutorials.h"

namespace {

void run_tutorial(benchmark::State& state, vta::tutorials::Result (*workload)(uint32_t), const char* target = "tsim") {
  setenv("VTA_TARGET", target, 1);
  uint64_t cycles = 0;
  vta::Stats stats;
  const auto before = vta::tsim::speed_totals();
  for (auto _ : state) {
    VTARuntimeShutdown();
    const vta::tutorials::Result r = workload(0);
    if (!r.ran || r.mismatches != 0) {
      state.SkipWithError(("workload failed: " + r.error).c_str());
      break;
    }
    stats = r.stats;
    cycles = stats.cycle_count.value_or(0);
  }
  VTARuntimeShutdown();
  const auto after = vta::tsim::speed_totals();
  const auto b = vta::tutorials::cycle_bounds(stats, vta::build_config());
  state.counters["cycles"] = double(cycles);
  state.counters["compute_bound"] = b.compute;
  state.counters["memory_bound"] = b.memory;
  state.counters["over_bound_pct"] = b.over_percent(cycles);
  state.counters["sim_cycles_per_s"] =
      double(after.cycles - before.cycles) / std::max(1e-9, after.seconds - before.seconds);
}

void BM_TsimConvolution(benchmark::State& state) { run_tutorial(state, vta::tutorials::convolution); }
void BM_TsimMatrixMultiply(benchmark::State& state) { run_tutorial(state, vta::tutorials::matrix_multiply); }

BENCHMARK(BM_TsimConvolution)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_TsimMatrixMultiply)->Unit(benchmark::kMillisecond)->Iterations(3);
#ifdef VTA_BENCH_SYSTEMC
// The same model on the SystemC virtual platform (VTA_TARGET=systemc): the cost of SystemC's clock and
// TLM transactions per simulated cycle, next to the tsim's (goal: at most 1.5x the tsim's time).
void BM_SystemcConvolution(benchmark::State& state) { run_tutorial(state, vta::tutorials::convolution, "systemc"); }
void BM_SystemcMatrixMultiply(benchmark::State& state) {
  run_tutorial(state, vta::tutorials::matrix_multiply, "systemc");
}
BENCHMARK(BM_SystemcConvolution)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_SystemcMatrixMultiply)->Unit(benchmark::kMillisecond)->Iterations(3);
#endif

}  // namespace

BENCHMARK_MAIN();
