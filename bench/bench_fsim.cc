// fsim throughput: GEMM micro-ops per second on one large GEMM instruction (2M micro-op executions:
// 2048 distinct micro-ops in a 32 x 32 loop), on each GEMM kernel (VNNI, AVX2, portable; the one a device
// chooses by itself is BM_FsimGemmAuto, and the context lines say which the CPU has), beside the same
// instruction as the reference fsim computes it (BM_GemmPlainLoop); and ALU
// micro-ops per second for an immediate ADD and a vector ADD. Also the fixed costs: opening a device
// (through the C API, as the reference's per-call vta() does), next to the eager zero-fill of the same
// SRAM sizes that opening used to cost, and a 1-byte device allocation.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gemm_plain_loop.h"
#include "vta/driver.h"
#include "vta/driver/device.h"
#include "vta/driver/energy.h"
#include "vta/driver/fsim.h"
#include "vta/driver/isa.h"
#include "vta/driver/memory.h"

namespace {

using namespace vta;

struct Buf {
  explicit Buf(size_t n) : p(static_cast<uint8_t*>(Dram::global().alloc(n))) {}
  ~Buf() { Dram::global().free(p); }
  uint32_t base(uint64_t unit) const { return static_cast<uint32_t>(Dram::global().phys_addr(p) / unit); }
  PhysAddr phys() const { return Dram::global().phys_addr(p); }
  uint8_t* p;
};

// Loads the buffers once, then times a stream of one compute instruction (+ FINISH).
void run_compute(benchmark::State& state, FsimKernel kernel, bool gemm, bool use_imm) {
  const Config cfg = Config::default_config();
  const Isa isa(cfg);
  DeviceOptions opt;
  opt.fsim_kernel = kernel;
  std::unique_ptr<FsimDevice> made;
  try {
    made = std::make_unique<FsimDevice>(cfg, opt);
  } catch (const std::invalid_argument& e) {  // a kernel this CPU does not run
    state.SkipWithError(e.what());
    return;
  }
  FsimDevice& dev = *made;
  state.SetLabel(std::string(fsim_kernel_name(dev.kernel())));
  const uint32_t kUops = 2048, kOut = 32, kIn = 32;
  std::mt19937 rng(1);
  Buf inp(cfg.inp_depth() * cfg.inp_elem_bytes()), wgt(cfg.wgt_depth() * cfg.wgt_elem_bytes());
  Buf acc(cfg.acc_depth() * cfg.acc_elem_bytes()), uops(kUops * 4), setup(8 * 16), prog(2 * 16);
  for (size_t i = 0; i < cfg.inp_depth() * cfg.inp_elem_bytes(); ++i) inp.p[i] = uint8_t(rng());
  for (size_t i = 0; i < cfg.wgt_depth() * cfg.wgt_elem_bytes(); ++i) wgt.p[i] = uint8_t(rng());
  for (uint32_t k = 0; k < kUops; ++k) {
    const uint32_t w = isa.encode(Uop{k % 1024, (k * 7) % 1024, (k * 13) % 960});
    std::memcpy(uops.p + 4 * k, &w, 4);
  }
  auto mem = [&](MemId t, uint32_t dram, uint32_t n) {
    MemInsn m;
    m.memory_type = static_cast<uint8_t>(t), m.dram_base = dram, m.y_size = 1, m.x_size = n, m.x_stride = n;
    return isa.encode(m);
  };
  GemmInsn fin;
  fin.opcode = static_cast<uint8_t>(Opcode::kFinish);
  const RawInsn loads[] = {mem(MemId::kUop, uops.base(4), kUops), mem(MemId::kInp, inp.base(16), cfg.inp_depth()),
                           mem(MemId::kWgt, wgt.base(256), cfg.wgt_depth()),
                           mem(MemId::kAcc, acc.base(64), cfg.acc_depth()), isa.encode(fin)};
  for (int i = 0; i < 5; ++i) store_insn(setup.p + 16 * i, loads[i]);
  if (dev.run(setup.phys(), 5, 0) != RunStatus::kOk) {
    state.SkipWithError(dev.last_error().c_str());
    return;
  }
  RawInsn work;
  if (gemm) {
    GemmInsn g;
    g.uop_bgn = 0, g.uop_end = kUops, g.iter_out = kOut, g.iter_in = kIn;
    g.dst_factor_out = 1, g.dst_factor_in = 2, g.src_factor_out = 1, g.src_factor_in = 3, g.wgt_factor_in = 1;
    work = isa.encode(g);
  } else {
    AluInsn a;
    a.alu_opcode = static_cast<uint8_t>(AluOp::kAdd), a.use_imm = use_imm, a.imm = 3;
    a.uop_bgn = 0, a.uop_end = kUops, a.iter_out = kOut, a.iter_in = kIn;
    a.dst_factor_out = 1, a.dst_factor_in = 2, a.src_factor_out = 1, a.src_factor_in = 3;
    work = isa.encode(a);
  }
  store_insn(prog.p, work);
  store_insn(prog.p + 16, isa.encode(fin));
  const uint64_t per_run = uint64_t(kUops) * kOut * kIn;
  for (auto _ : state) {
    if (dev.run(prog.phys(), 2, 0) != RunStatus::kOk) {
      state.SkipWithError(dev.last_error().c_str());
      return;
    }
  }
  state.counters["uops_per_s"] = benchmark::Counter(double(per_run), benchmark::Counter::kIsIterationInvariantRate);
  if (gemm) {
    const double macs = double(per_run) * cfg.batch() * cfg.block_in() * cfg.block_out();
    state.counters["GMAC_per_s"] = benchmark::Counter(macs / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  }
}

// The same GEMM instruction as run_compute's, computed the way the reference fsim computes it
// (bench/gemm_plain_loop.cc): its figure on this machine, in the same run as the kernels above.
void BM_GemmPlainLoop(benchmark::State& state) {
  const Config cfg = Config::default_config();
  if (cfg.batch() != 1 || cfg.block_in() != 16 || cfg.block_out() != 16) {
    state.SkipWithError("the plain loop is written for the default 1x16x16 shape");
    return;
  }
  std::mt19937 rng(1);
  std::vector<int8_t> inp(size_t(cfg.inp_depth()) * 16), wgt(size_t(cfg.wgt_depth()) * 256);
  std::vector<int32_t> acc(size_t(cfg.acc_depth()) * 16);
  for (auto& v : inp) v = int8_t(rng());
  for (auto& v : wgt) v = int8_t(rng());
  const uint32_t kUops = 2048;
  std::vector<Uop> uops(kUops);
  for (uint32_t k = 0; k < kUops; ++k) uops[k] = Uop{k % 1024, (k * 7) % 1024, (k * 13) % 960};
  for (auto _ : state) {
    vta_bench::gemm_plain_loop(uops.data(), kUops, acc.data(), inp.data(), wgt.data());
    benchmark::DoNotOptimize(acc.data());
    benchmark::ClobberMemory();
  }
  const double per_run = double(kUops) * vta_bench::kPlainLoopIterations;
  state.counters["uops_per_s"] = benchmark::Counter(per_run, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["GMAC_per_s"] = benchmark::Counter(per_run * 256 / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_FsimGemmAuto(benchmark::State& s) { run_compute(s, FsimKernel::kAuto, true, false); }
void BM_FsimGemmVnni(benchmark::State& s) { run_compute(s, FsimKernel::kVnni, true, false); }
void BM_FsimGemmAvx2(benchmark::State& s) { run_compute(s, FsimKernel::kAvx2, true, false); }
void BM_FsimGemmPortable(benchmark::State& s) { run_compute(s, FsimKernel::kPortable, true, false); }
void BM_FsimAluAddImm(benchmark::State& s) { run_compute(s, FsimKernel::kAuto, false, true); }
void BM_FsimAluAddVector(benchmark::State& s) { run_compute(s, FsimKernel::kAuto, false, false); }

void BM_FsimDeviceOpen(benchmark::State& state) {
  for (auto _ : state) {
    VTADeviceHandle dev = VTADeviceAlloc();
    benchmark::DoNotOptimize(dev);
    VTADeviceFree(dev);
  }
}

// The reference's per-call pattern (its vta() entry point): open a device, run a small program
// (a 16-element input load and FINISH), close it.
void BM_FsimOpenRunClose(benchmark::State& state) {
  const Config cfg = Config::default_config();
  const Isa isa(cfg);
  Buf data(16 * cfg.inp_elem_bytes()), insns(32);
  MemInsn m;
  m.memory_type = uint8_t(MemId::kInp), m.dram_base = data.base(cfg.inp_elem_bytes());
  m.y_size = 1, m.x_size = 16, m.x_stride = 16;
  GemmInsn fin;
  fin.opcode = uint8_t(Opcode::kFinish);
  store_insn(insns.p, isa.encode(m));
  store_insn(insns.p + 16, isa.encode(fin));
  for (auto _ : state) {
    VTADeviceHandle dev = VTADeviceAlloc();
    if (VTADeviceRun(dev, vta_phy_addr_t(insns.phys()), 2, 0) != 0) state.SkipWithError("run failed");
    VTADeviceFree(dev);
  }
}

// What the energy model adds to a run (docs/ENERGY.md): the estimate and its line, once per run, for
// the convolution tutorial's statistics. Side by side with BM_FsimOpenRunClose, the smallest run
// there is: the model's share of a run is at most this time over that one.
void BM_EnergyOfARun(benchmark::State& state) {
  const Config cfg = Config::default_config();
  Stats stats;
  stats.inp_load_nbytes = 114688, stats.wgt_load_nbytes = 1179648, stats.out_store_nbytes = 50176;
  stats.uop_load_nbytes = 1144, stats.gemm_counter = 451584, stats.alu_counter = 9408, stats.cycle_count = 483434;
  const EnergyTable& table = EnergyTable::default_table();
  for (auto _ : state) {
    const Energy e = estimate_energy(stats, cfg, table);
    std::string line = energy_line(e, stats.cycle_count, 100, table.name);
    benchmark::DoNotOptimize(line);
  }
}

// What opening cost before the SRAMs were mapped zero pages: filling vectors of the same sizes.
void BM_SramEagerZeroFill(benchmark::State& state) {
  const Config cfg = Config::default_config();
  const size_t wsize = size_t(cfg.block_in()) * cfg.block_out();
  for (auto _ : state) {
    std::vector<int8_t> inp(size_t(cfg.inp_depth()) * cfg.batch() * cfg.block_in()), wgt(cfg.wgt_depth() * wsize);
    std::vector<int32_t> acc(size_t(cfg.acc_depth()) * cfg.batch() * cfg.block_out());
    std::vector<uint32_t> uop(cfg.uop_depth());
    std::vector<Uop> uops(cfg.uop_depth());
    std::vector<int8_t> vnni(wgt.size());
    std::vector<int32_t> bias(size_t(cfg.wgt_depth()) * cfg.block_out());
    benchmark::DoNotOptimize(inp.data());
    benchmark::DoNotOptimize(wgt.data());
    benchmark::DoNotOptimize(acc.data());
    benchmark::DoNotOptimize(uop.data());
    benchmark::DoNotOptimize(uops.data());
    benchmark::DoNotOptimize(vnni.data());
    benchmark::DoNotOptimize(bias.data());
  }
}

void BM_DramAlloc1Byte(benchmark::State& state) {
  for (auto _ : state) {
    void* p = VTAMemAlloc(1, VTA_CACHED);
    static_cast<uint8_t*>(p)[0] = 1;
    VTAMemFree(p);
  }
}

BENCHMARK(BM_FsimDeviceOpen)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FsimOpenRunClose)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_EnergyOfARun)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SramEagerZeroFill)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DramAlloc1Byte)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FsimGemmAuto)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FsimGemmVnni)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FsimGemmAvx2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FsimGemmPortable)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmPlainLoop)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FsimAluAddImm)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FsimAluAddVector)->Unit(benchmark::kMillisecond);

}  // namespace

// The machine's vector features and the kernel the fsim chooses on it, in the benchmark's context lines.
int main(int argc, char** argv) {
  __builtin_cpu_init();
  std::string features;
  for (const auto& [name, has] :
       {std::pair{"avx2", __builtin_cpu_supports("avx2")}, std::pair{"avx512f", __builtin_cpu_supports("avx512f")},
        std::pair{"avx512bw", __builtin_cpu_supports("avx512bw")},
        std::pair{"avx512vnni", __builtin_cpu_supports("avx512vnni")}}) {
    features += std::string(features.empty() ? "" : " ") + name + (has ? "+" : "-");
  }
  benchmark::AddCustomContext("cpu_features", features);
  try {
    benchmark::AddCustomContext(
        "fsim_gemm_kernel",
        std::string(fsim_kernel_name(FsimDevice(Config::default_config(), DeviceOptions{}).kernel())));
  } catch (const std::exception& e) {  // (a VTA_FSIM_KERNEL this CPU does not run)
    std::fprintf(stderr, "vta_bench_fsim: %s\n", e.what());
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
