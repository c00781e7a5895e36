// Remote-device benchmarks (docs/PERFORMANCE.md), servers in this process on loopback ports:
//   - the round-trip latency of an empty run (one FINISH) on a remote fsim, next to the same run on a
//     local fsim;
//   - copy throughput to and from device memory (64 MiB per iteration in 1 MiB requests, 16 per round
//     trip, into and out of a buffer allocated once);
//   - the wall time of each tutorial, local and remote, on the fsim and the tsim: each iteration opens
//     the runtime's device (a remote one connects and shakes hands), prepares the data, runs, reads back
//     and verifies, as a user's program does once;
//   - the compiled tutorials with the module run locally or uploaded to a server and called there
//     (the module-level client), likewise from opening the session to the verified output.
// Run with --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true to alternate local
// and remote runs (scripts/bench.sh does).

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "vta/driver/build_config.h"
#include "vta/driver/device.h"
#include "vta/driver/isa.h"
#include "vta/rpc/client.h"
#include "vta/rpc/server.h"
#include "vta/rpc/session.h"
#include "vta/runtime.h"
#include "vta/workloads/compiled.h"
#include "vta/workloads/tutorials.h"

namespace {

using namespace vta;

// A device server of this process per backend, kept for the whole run (rpc::process_server_port).
std::string remote_target(const std::string& backend) {
  return "rpc://127.0.0.1:" + std::to_string(rpc::process_server_port(backend, 1));
}

void BM_EmptyRun(benchmark::State& state, bool remote) {
  const Config& cfg = build_config();
  auto dev = make_device(remote ? remote_target("fsim") : "fsim", cfg);
  auto* insn = static_cast<uint8_t*>(Dram::global().alloc(16));
  GemmInsn finish;
  finish.opcode = uint8_t(Opcode::kFinish);
  store_insns(insn, {Isa(cfg).encode(finish)});
  const PhysAddr phys = Dram::global().phys_addr(insn);
  for (auto _ : state) {
    if (dev->run(phys, 1, 0) != RunStatus::kOk) {
      state.SkipWithError(dev->last_error().c_str());
      break;
    }
  }
  Dram::global().free(insn);
}
BENCHMARK_CAPTURE(BM_EmptyRun, local_fsim, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_EmptyRun, remote_fsim, true)->Unit(benchmark::kMicrosecond);

void BM_Copy(benchmark::State& state, bool to_device) {
  const std::string target = remote_target("fsim");
  const auto colon = target.rfind(':');
  rpc::Connection c("127.0.0.1", uint16_t(std::stoi(target.substr(colon + 1))));
  const size_t bytes = size_t{64} << 20;
  const uint64_t buf = c.alloc(bytes);
  std::vector<uint8_t> data(bytes, 0x5a);
  c.write(buf, data);  // the device memory's first touch (the system zero-fills its pages) is not timed
  for (auto _ : state) {
    if (to_device) {
      c.write(buf, data);
    } else {
      c.read(buf, data);
    }
    benchmark::DoNotOptimize(data.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
}
BENCHMARK_CAPTURE(BM_Copy, host_to_device, true)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK_CAPTURE(BM_Copy, device_to_host, false)->Unit(benchmark::kMillisecond)->MinTime(2);

void BM_Tutorial(benchmark::State& state, tutorials::Result (*workload)(uint32_t), const char* backend, bool remote) {
  const std::string target = remote ? remote_target(backend) : backend;
  setenv("VTA_TARGET", target.c_str(), 1);
  for (auto _ : state) {
    VTARuntimeShutdown();  // every iteration opens the device, as a program does
    const tutorials::Result r = workload(0);
    if (!r.ran || r.mismatches != 0) {
      state.SkipWithError(("workload failed: " + r.error).c_str());
      break;
    }
  }
  VTARuntimeShutdown();
  unsetenv("VTA_TARGET");
}
BENCHMARK_CAPTURE(BM_Tutorial, matmul_fsim_local, tutorials::matrix_multiply, "fsim", false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Tutorial, matmul_fsim_remote, tutorials::matrix_multiply, "fsim", true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Tutorial, conv_fsim_local, tutorials::convolution, "fsim", false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Tutorial, conv_fsim_remote, tutorials::convolution, "fsim", true)->Unit(benchmark::kMillisecond);
#ifdef VTA_BENCH_TSIM
BENCHMARK_CAPTURE(BM_Tutorial, matmul_tsim_local, tutorials::matrix_multiply, "tsim", false)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Tutorial, matmul_tsim_remote, tutorials::matrix_multiply, "tsim", true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Tutorial, conv_tsim_local, tutorials::convolution, "tsim", false)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Tutorial, conv_tsim_remote, tutorials::convolution, "tsim", true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
#endif

// The compiled tutorials (schedule, build, run, verify), with the module run here or uploaded to a
// server and called there (the module-level client: a session opened per iteration, as a program
// opens one).
using Compiled = tutorials::Result (*)(uint32_t, std::ostream*, const tutorials::MatmulShape&,
                                       tutorials::ModuleRunner&);
tutorials::Result compiled_conv(uint32_t seed, std::ostream*, const tutorials::MatmulShape&,
                                tutorials::ModuleRunner& runner) {
  return tutorials::compiled_convolution(seed, nullptr, {}, runner);
}
void BM_CompiledTutorial(benchmark::State& state, Compiled workload, const char* backend, bool remote) {
  setenv("VTA_TARGET", backend, 1);
  const uint16_t port = remote ? rpc::process_server_port(backend, 1) : 0;
  uint64_t trips = 0;
  for (auto _ : state) {
    tutorials::Result r;
    if (remote) {
      rpc::Remote session = rpc::connect("127.0.0.1", port);
      auto runner = tutorials::remote_runner(session);
      r = workload(0, nullptr, {}, *runner);
      trips = session.round_trips();
    } else {
      VTARuntimeShutdown();  // every iteration opens the device, as a program does
      r = workload(0, nullptr, {}, tutorials::local_runner());
    }
    if (!r.ok()) {
      state.SkipWithError(("workload failed: " + r.error).c_str());
      break;
    }
  }
  if (remote) state.counters["round_trips"] = double(trips);
  VTARuntimeShutdown();
  unsetenv("VTA_TARGET");
}
BENCHMARK_CAPTURE(BM_CompiledTutorial, matmul_fsim_local, tutorials::compiled_matrix_multiply, "fsim", false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompiledTutorial, matmul_fsim_module, tutorials::compiled_matrix_multiply, "fsim", true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompiledTutorial, conv_fsim_local, compiled_conv, "fsim", false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompiledTutorial, conv_fsim_module, compiled_conv, "fsim", true)->Unit(benchmark::kMillisecond);
#ifdef VTA_BENCH_TSIM
BENCHMARK_CAPTURE(BM_CompiledTutorial, conv_tsim_local, compiled_conv, "tsim", false)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_CompiledTutorial, conv_tsim_module, compiled_conv, "tsim", true)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
#endif

}  // namespace

BENCHMARK_MAIN();
