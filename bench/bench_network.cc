// Whole-network numbers (docs/NETWORK.md, docs/PERFORMANCE.md): ResNet-18's plain C++ reference, the
// executor's compile time (fusion, tiling search, builds, weights to the device), and one inference on
// the fsim and on the tsim (cycles, GEMM utilisation, wall time). Each backend runs on a thread of its
// own, whose runtime is made over that backend (VTA_TARGET is read when a thread first uses it).

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <thread>

#include "vta/driver/build_config.h"
#include "vta/network/executor.h"
#include "vta/network/resnet18.h"

namespace {

using namespace vta::network;  // NOLINT

struct Network {
  Graph graph = resnet18();
  std::vector<int8_t> input = generated_input(graph, 1);
  Network() { calibrate_shifts(graph, input); }
};

Network& network() {
  static Network n;
  return n;
}

template <class F>
void on_backend(const char* target, F&& f) {
  setenv("VTA_TARGET", target, 1);
  std::thread t(std::forward<F>(f));
  t.join();
}

void BM_ResNet18Reference(benchmark::State& state) {
  Network& n = network();
  for (auto _ : state) benchmark::DoNotOptimize(run_reference(n.graph, n.input, false));
}
BENCHMARK(BM_ResNet18Reference)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ResNet18Compile(benchmark::State& state) {
  Network& n = network();
  on_backend("fsim", [&] {
    for (auto _ : state) Executor ex(n.graph, vta::build_config());
  });
}
BENCHMARK(BM_ResNet18Compile)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

void run_network(benchmark::State& state, const char* target) {
  Network& n = network();
  on_backend(target, [&] {
    Executor ex(n.graph, vta::build_config());
    RunOptions o;
    o.verify = false;
    NetworkRun last;
    for (auto _ : state) last = ex.run(n.input, o);
    state.counters["gemm_uops"] = double(last.vta.gemm_counter);
    if (last.vta.cycle_count) {
      const double cycles = double(*last.vta.cycle_count);
      state.counters["cycles"] = cycles;
      state.counters["gemm_utilisation_%"] = 100.0 * double(last.vta.gemm_counter) / cycles;
      state.counters["over_bound_%"] =
          vta::cycle_bounds(last.vta, vta::build_config()).over_percent(*last.vta.cycle_count);
    }
  });
}

void BM_ResNet18Fsim(benchmark::State& state) { run_network(state, "fsim"); }
BENCHMARK(BM_ResNet18Fsim)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

#ifdef VTA_BENCH_TSIM
void BM_ResNet18Tsim(benchmark::State& state) { run_network(state, "tsim"); }
BENCHMARK(BM_ResNet18Tsim)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
#endif

}  // namespace

BENCHMARK_MAIN();
